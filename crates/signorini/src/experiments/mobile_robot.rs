//! Drumwright (2008), Section IV-D: a two-wheeled differential-drive mobile robot on a ground
//! plane, 2,500 steps under the LCP (Stewart–Trinkle) and under penalty contact, timed. The
//! paper: LCP 32.6 steps/s, penalty 80.6 steps/s (ratio 2.5), "the number of contact points per
//! wheel is limited to ten".
//!
//! The robot is `examples/robots/diff_drive.urdf` (a 5 kg box body, two 0.5 kg wheels of radius
//! 0.1 m, a ball caster): imported with each wheel cylinder as a 10-sided prism (its 20
//! vertices are its candidate contact points, of which the 2–4 of its lowest edge touch), the
//! caster frictionless (it stands for a free-turning caster), the wheels μ = 0.8. Each wheel
//! joint is driven by a velocity servo (`PdActuator`, kp = 0, kd = `WHEEL_KD`) towards
//! `WHEEL_SPEED`, so the robot drives along +x.
use super::tree_drive::drive;
pub use super::tree_drive::Model;
use crate::contact::tree::ground::shapes_of;
use crate::contact::tree::LinkShape;
use crate::geometry::Shape;
use crate::multibody::urdf::UrdfRobot;
use crate::multibody::{Controls, PdActuator, Tree, Workspace};

/// Steps of the paper's runs.
pub const STEPS: usize = 2500;
/// s.
pub const TIME_STEP: f64 = 1e-3;
/// Wheel target speed (rad/s): 0.5 m/s at radius 0.1 m.
pub const WHEEL_SPEED: f64 = 5.0;
/// Velocity servo gain (N m s/rad).
pub const WHEEL_KD: f64 = 2.0;
/// Wheel friction coefficient (–).
pub const WHEEL_FRICTION: f64 = 0.8;
/// The paper's figures (steps/s): LCP, penalty.
pub const PAPER_LCP: f64 = 32.6;
pub const PAPER_PENALTY: f64 = 80.6;

/// One run's figures.
#[derive(Clone, Debug, PartialEq)]
pub struct RobotRun {
    pub steps: usize,
    pub wall_seconds: f64,
    pub steps_per_second: f64,
    /// The base's travel along x (m) and its final height (m; 0 at the start).
    pub distance: f64,
    pub final_height: f64,
    /// The deepest penetration of any step (m).
    pub max_penetration: f64,
    /// Mean contact points per step.
    pub mean_contacts: f64,
    /// The base's final forward speed (m/s, world x) and the wheels' mean final rate (rad/s).
    pub final_speed: f64,
    pub wheel_rate: f64,
    /// The first failure (`None`: every step succeeded).
    pub failure: Option<String>,
}

/// The link shapes: wheels μ = `WHEEL_FRICTION`, the caster sphere frictionless, the body 0.5.
pub fn shapes(robot: &UrdfRobot) -> Vec<LinkShape> {
    let mut shapes = shapes_of(&robot.collisions, WHEEL_FRICTION);
    for (s, c) in shapes.iter_mut().zip(&robot.collisions) {
        if matches!(c.shape, Shape::Sphere { .. }) {
            s.friction = 0.0;
        } else if c.geometry == "box" {
            s.friction = 0.5;
        }
    }
    shapes
}

/// Velocity servos on every revolute joint (the wheels).
pub fn controls(tree: &Tree) -> Controls {
    let mut c = Controls::new(tree);
    for (i, l) in tree.links().iter().enumerate() {
        if l.joint.nv() == 1 {
            c.pd.push(PdActuator {
                link: i,
                kp: 0.0,
                kd: WHEEL_KD,
                target_position: 0.0,
                target_velocity: WHEEL_SPEED,
            });
        }
    }
    c
}

/// Run `steps` steps of the robot (imported with 10-sided wheels) under `model`.
pub fn run(robot: &UrdfRobot, model: Model, steps: usize) -> RobotRun {
    let tree = &robot.tree;
    let servos = controls(tree);
    let start = (tree.neutral_q(), vec![0.0; tree.nv()]);
    let d = drive(tree, &shapes(robot), start, model, (steps, TIME_STEP), |step, _, _, c| {
        if step == 0 {
            c.clone_from(&servos);
        }
    });
    let mut ws = Workspace::new(tree);
    RobotRun {
        steps: d.steps,
        wall_seconds: d.wall_seconds,
        steps_per_second: d.steps_per_second,
        distance: d.q[0],
        final_height: d.q[2],
        max_penetration: d.max_penetration,
        mean_contacts: d.mean_contacts,
        final_speed: final_speed(tree, &mut ws, &d.q, &d.v),
        wheel_rate: d.v[6..].iter().sum::<f64>() / (d.v.len() - 6).max(1) as f64,
        failure: d.failure,
    }
}

/// The root link's world velocity along x (m/s).
fn final_speed(tree: &Tree, ws: &mut Workspace, q: &[f64], v: &[f64]) -> f64 {
    crate::multibody::algorithms::forward_kinematics(tree, ws, q, v)
        .map_or(f64::NAN, |links| links[0].velocity.x)
}
