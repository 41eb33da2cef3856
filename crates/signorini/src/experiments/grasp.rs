//! A manipulator from URDF grasps a box on the ground and lifts it (issue 18 item 4): contact
//! between a robot's links and a free body, through friction alone, under both tree contact
//! models (`contact::tree`, `pairs.rs`).
//!
//! The robot is `examples/robots/gripper_arm.urdf` (mounted on the world: a yaw turret,
//! shoulder, elbow and wrist pitching about y, a parallel gripper of two prismatic fingers); the
//! box a 5 cm, 0.1 kg cube resting on the ground at `BOX_X`, added to the arm's tree as a second
//! root on a floating joint, so the forest has two bodies and their links touch. Friction: the
//! fingers and the box μ = 1 (pair √(μ_a μ_b) = 1), every other shape 0.5.
//!
//! The arm moves between poses found by inverse kinematics in its vertical plane (`reach`: the
//! wrist at (x, z) with the hand pointing down, elbow above the wrist), each move a quintic
//! blend in joint space (zero velocity and acceleration at its ends); because the three pitches
//! blend at one rate and sum to π at both ends, the hand points straight down all along.
//! `PHASES`: hold above the box, descend, close the fingers, lift by `LIFT`, hold. The arm's
//! joints are computed-torque servos (PD at ω = `SERVO_OMEGA` on each joint's own inertia plus
//! the inverse dynamics of the targets' accelerations, as `humanoid`; the box's weight is not fed
//! forward); the fingers PD position servos (`FINGER_KP`, `FINGER_KD`) whose closed target
//! lies `SQUEEZE` inside the box's faces, so each presses with about k_p × `SQUEEZE` = 5 N:
//! friction 2 μ × 5 N = 10 N holds the 0.98 N box with margin 10.
use super::tree_drive::{drive, Drive};
pub use super::tree_drive::Model;
use crate::contact::tree::ground::shapes_of;
use crate::contact::tree::LinkShape;
use crate::geometry::{Polytope, Pose, Shape};
use crate::multibody::algorithms::{crba, forward_kinematics, rnea};
use crate::multibody::urdf::UrdfRobot;
use crate::multibody::{Controls, JointKind, Link, PdActuator, Tree, Workspace};
use glam::{DMat3, DQuat, DVec3};
use std::f64::consts::PI;
use std::sync::Arc;

/// s.
pub const TIME_STEP: f64 = 1e-3;
/// The box: edge (m), mass (kg), where its centre rests on the ground (m, x).
pub const BOX_EDGE: f64 = 0.05;
pub const BOX_MASS: f64 = 0.1;
pub const BOX_X: f64 = 0.35;
/// How high the box is lifted (m).
pub const LIFT: f64 = 0.2;
/// Friction of the fingers and the box (–), of every other shape (–).
pub const GRIP_FRICTION: f64 = 1.0;
pub const OTHER_FRICTION: f64 = 0.5;
/// Arm servo bandwidth (rad/s) and damping ratio (–).
pub const SERVO_OMEGA: f64 = 25.0;
pub const SERVO_ZETA: f64 = 1.0;
/// Finger servos: N/m and N s/m; the open target (m, each inner face from the hand's centre
/// plane) and how far inside the box's face the closed target lies (m).
pub const FINGER_KP: f64 = 500.0;
pub const FINGER_KD: f64 = 10.0;
pub const FINGER_OPEN: f64 = 0.04;
pub const SQUEEZE: f64 = 0.01;

/// The arm's geometry as `gripper_arm.urdf` writes it (m): the shoulder's height above the
/// ground, the upper arm and forearm lengths, and how far below the wrist's axis the grasp
/// centre lies with the hand pointing down (palm 0.03 + half a finger 0.03).
const SHOULDER_HEIGHT: f64 = 0.18;
const UPPER_ARM: f64 = 0.3;
const FOREARM: f64 = 0.25;
const GRASP_DEPTH: f64 = 0.06;
/// The wrist's height when gripping (m): the fingers' lower ends 1 cm above the ground.
const GRIP_WRIST_Z: f64 = 0.1;
/// The arm joints and the fingers, by URDF name.
const ARM: [&str; 4] = ["base_yaw", "shoulder", "elbow", "wrist"];
const FINGERS: [&str; 2] = ["left_finger", "right_finger"];

/// One phase of the task: its end time (s), the wrist's height at its end (m, above the ground)
/// and whether the fingers are closed at its end.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Phase {
    pub name: &'static str,
    pub until: f64,
    pub wrist_z: f64,
    pub closed: bool,
}

/// Hold above the box, descend, close, lift, hold.
pub const PHASES: [Phase; 5] = [
    Phase { name: "settle", until: 0.5, wrist_z: GRIP_WRIST_Z + 0.1, closed: false },
    Phase { name: "descend", until: 1.0, wrist_z: GRIP_WRIST_Z, closed: false },
    Phase { name: "close", until: 1.5, wrist_z: GRIP_WRIST_Z, closed: true },
    Phase { name: "lift", until: 2.5, wrist_z: GRIP_WRIST_Z + LIFT, closed: true },
    Phase { name: "hold", until: 3.5, wrist_z: GRIP_WRIST_Z + LIFT, closed: true },
];

/// Steps of the whole task.
pub fn steps() -> usize {
    (PHASES[PHASES.len() - 1].until / TIME_STEP).round() as usize
}

/// The shoulder, elbow and wrist angles (rad) that put the wrist's axis at (x, z) (m, in the arm's
/// plane, z above the ground) with the hand pointing down, the elbow above the wrist; `None`
/// out of reach. With the angles θ measured from the vertical towards +x (a pitch about y),
/// wrist − shoulder = L₁ (sin θ₁, cos θ₁) + L₂ (sin(θ₁ + θ₂), cos(θ₁ + θ₂)), and the hand
/// points down when θ₁ + θ₂ + θ₃ = π.
pub fn reach(x: f64, z: f64) -> Option<[f64; 3]> {
    let (r, s) = (x, z - SHOULDER_HEIGHT);
    let c2 = (r * r + s * s - UPPER_ARM * UPPER_ARM - FOREARM * FOREARM) / (2.0 * UPPER_ARM * FOREARM);
    if !(-1.0..=1.0).contains(&c2) {
        return None;
    }
    let t2 = c2.acos();
    let t1 = r.atan2(s) - (FOREARM * t2.sin()).atan2(UPPER_ARM + FOREARM * t2.cos());
    Some([t1, t2, PI - t1 - t2])
}

/// The quintic blend s(τ) = 10τ³ − 15τ⁴ + 6τ⁵ on [0, 1] and its first two derivatives in τ.
fn blend(tau: f64) -> (f64, f64, f64) {
    let t = tau.clamp(0.0, 1.0);
    let (t2, t3) = (t * t, t * t * t);
    (
        t3 * (10.0 - 15.0 * t + 6.0 * t2),
        30.0 * t2 * (1.0 - t) * (1.0 - t),
        60.0 * t * (1.0 - t) * (1.0 - 2.0 * t),
    )
}

/// The set-up: the forest (arm + box), its shapes, the servos and the initial state.
pub struct Grasp {
    tree: Tree,
    shapes: Vec<LinkShape>,
    /// Arm joints: (link, q index, v index), gains (k_p, k_d).
    arm: Vec<(usize, usize, usize, f64, f64)>,
    fingers: [usize; 2],
    hand: usize,
    /// The box's link.
    pub box_link: usize,
    /// The arm's joint targets at the end of each phase (yaw, shoulder, elbow, wrist), and before
    /// the first.
    poses: Vec<[f64; 4]>,
    q0: Vec<f64>,
}

/// One run's figures.
#[derive(Clone, Debug, PartialEq)]
pub struct GraspRun {
    pub steps: usize,
    pub wall_seconds: f64,
    pub steps_per_second: f64,
    /// The box's centre: final height above its start (m), and its largest distance from the
    /// grasp centre over the hold phase, minus that distance at the end of `close` (m): how far
    /// it slipped in the fingers.
    pub lift: f64,
    pub slip: f64,
    /// The box's tilt at the end (rad).
    pub box_tilt: f64,
    pub max_penetration: f64,
    pub mean_contacts: f64,
    pub max_lcp_rows: usize,
    pub failure: Option<String>,
    /// Every `TRACE_EVERY` steps: (t in s, the box centre's height, the grasp centre's height,
    /// the fingers' mean opening), m.
    pub trace: Vec<[f64; 4]>,
}

/// Steps between the samples of `GraspRun::trace`.
pub const TRACE_EVERY: usize = 10;

impl Grasp {
    /// The arm of `robot` (loaded with `floating_base = false`) and the box; an error names a
    /// joint the robot lacks or a pose out of reach.
    pub fn new(robot: &UrdfRobot) -> Result<Grasp, String> {
        let joint = |name: &str| {
            robot
                .joints
                .iter()
                .find(|j| j.name == name)
                .and_then(|j| j.link)
                .ok_or_else(|| format!("robot \"{}\" has no joint named {name}", robot.name))
        };
        let mut links = robot.tree.links().to_vec();
        let box_link = links.len();
        let inertia = BOX_MASS * BOX_EDGE * BOX_EDGE / 6.0;
        let at = Pose::new(DVec3::new(BOX_X, 0.0, BOX_EDGE / 2.0), DQuat::IDENTITY);
        links.push(
            Link::new("box", None, JointKind::Floating, BOX_MASS, DVec3::ZERO, DMat3::from_diagonal(DVec3::splat(inertia)))
                .at(at),
        );
        let tree = Tree::new(links, robot.tree.gravity).map_err(|e| e.to_string())?;
        let mut shapes = shapes_of(&robot.collisions, OTHER_FRICTION);
        let (fingers, hand) = ([joint(FINGERS[0])?, joint(FINGERS[1])?], joint("wrist")?);
        for s in &mut shapes {
            if fingers.contains(&s.link) {
                s.friction = GRIP_FRICTION;
            }
        }
        shapes.push(LinkShape {
            link: box_link,
            pose: Pose::IDENTITY,
            shape: Shape::Polytope(Arc::new(Polytope::cuboid(DVec3::splat(BOX_EDGE / 2.0)))),
            friction: GRIP_FRICTION,
        });
        let out_of_reach = |z: f64| format!("the wrist at ({BOX_X}, {z}) m is out of the arm's reach");
        let pose = |z: f64| reach(BOX_X, z).map(|[a, b, c]| [0.0, a, b, c]).ok_or_else(|| out_of_reach(z));
        let mut poses = vec![pose(PHASES[0].wrist_z)?];
        for p in PHASES {
            poses.push(pose(p.wrist_z)?);
        }
        let mut q0 = tree.neutral_q();
        let mut arm = Vec::new();
        for (k, name) in ARM.iter().enumerate() {
            let l = joint(name)?;
            let (qi, vi) = (tree.q_offset(l), tree.v_offset(l));
            q0[qi] = poses[0][k];
            arm.push((l, qi, vi, 0.0, 0.0));
        }
        for &f in &fingers {
            q0[tree.q_offset(f)] = FINGER_OPEN;
        }
        let mut ws = Workspace::new(&tree);
        let h = crba(&tree, &mut ws, &q0).map_err(|e| e.to_string())?;
        for a in &mut arm {
            let i = h[(a.2, a.2)];
            (a.3, a.4) = (SERVO_OMEGA * SERVO_OMEGA * i, 2.0 * SERVO_ZETA * SERVO_OMEGA * i);
        }
        Ok(Grasp { tree, shapes, arm, fingers, hand, box_link, poses, q0 })
    }

    /// Give the fingers and the box friction μ (–, ≥ 0) instead of `GRIP_FRICTION`.
    pub fn set_grip_friction(&mut self, mu: f64) {
        let grip = [self.fingers[0], self.fingers[1], self.box_link];
        for s in self.shapes.iter_mut().filter(|s| grip.contains(&s.link)) {
            s.friction = mu;
        }
    }

    /// The forest: the arm's links, then the box.
    pub fn tree(&self) -> &Tree {
        &self.tree
    }

    /// The initial configuration: the arm above the box, fingers open, the box resting.
    pub fn initial_q(&self) -> &[f64] {
        &self.q0
    }

    /// The arm's targets (q*, q̇*, q̈*) per joint and the fingers' position target at t (s).
    fn targets(&self, t: f64) -> ([(f64, f64, f64); 4], f64) {
        let k = PHASES.iter().position(|p| t < p.until).unwrap_or(PHASES.len() - 1);
        let start = if k == 0 { 0.0 } else { PHASES[k - 1].until };
        let length = PHASES[k].until - start;
        let (s, ds, dds) = blend((t - start) / length);
        let (from, to) = (self.poses[k], self.poses[k + 1]);
        let arm = std::array::from_fn(|j| {
            let d = to[j] - from[j];
            (from[j] + d * s, d * ds / length, d * dds / (length * length))
        });
        let was_closed = k > 0 && PHASES[k - 1].closed;
        let width = |closed: bool| if closed { BOX_EDGE / 2.0 - SQUEEZE } else { FINGER_OPEN };
        let finger = width(was_closed) + (width(PHASES[k].closed) - width(was_closed)) * s;
        (arm, finger)
    }

    /// The grasp centre in the world (m) at (q, v): GRASP_DEPTH along the hand's axis from the
    /// wrist.
    fn grasp_centre(&self, ws: &mut Workspace, (q, v): (&[f64], &[f64])) -> DVec3 {
        forward_kinematics(&self.tree, ws, q, v)
            .map_or(DVec3::NAN, |l| l[self.hand].point(DVec3::new(0.0, 0.0, GRASP_DEPTH)))
    }

    /// Run the task (`steps()` steps, or fewer) under `model`.
    pub fn run(&self, model: Model, steps: usize) -> GraspRun {
        let tree = &self.tree;
        let nv = tree.nv();
        let mut ws = Workspace::new(tree);
        let (mut acc, mut feed) = (vec![0.0; nv], vec![0.0; nv]);
        let bq = tree.q_offset(self.box_link);
        let close_end = (PHASES[2].until / TIME_STEP).round() as usize;
        let hold_start = (PHASES[3].until / TIME_STEP).round() as usize;
        let (mut grip_offset, mut slip) = (f64::NAN, 0.0f64);
        let mut trace = Vec::with_capacity(steps / TRACE_EVERY + 1);
        let actuators: Vec<PdActuator> = (self.arm.iter().map(|a| (a.0, a.3, a.4)))
            .chain(self.fingers.iter().map(|&f| (f, FINGER_KP, FINGER_KD)))
            .map(|(link, kp, kd)| PdActuator { link, kp, kd, target_position: 0.0, target_velocity: 0.0 })
            .collect();
        let control = |step: usize, q: &[f64], v: &[f64], c: &mut Controls| {
            if step == 0 {
                c.pd.clone_from(&actuators);
            }
            let (arm, finger) = self.targets(step as f64 * TIME_STEP);
            for ((a, &(_, _, vi, _, _)), &(p, w, al)) in c.pd.iter_mut().zip(&self.arm).zip(&arm) {
                (a.target_position, a.target_velocity, acc[vi]) = (p, w, al);
            }
            for a in &mut c.pd[self.arm.len()..] {
                a.target_position = finger;
            }
            if rnea(tree, &mut ws, q, v, &acc, &mut feed).is_err() {
                feed.fill(0.0);
            }
            for &(_, _, vi, _, _) in &self.arm {
                c.tau[vi] = feed[vi];
            }
            let (traced, held) = (step % TRACE_EVERY == 0, step == close_end || step >= hold_start);
            if !(traced || held) {
                return;
            }
            let (b, g) = (box_centre(q, bq), self.grasp_centre(&mut ws, (q, v)));
            if traced {
                let opening = self.fingers.iter().map(|&f| q[tree.q_offset(f)]).sum::<f64>() / 2.0;
                trace.push([step as f64 * TIME_STEP, b.z, g.z, opening]);
            }
            if held {
                let offset = g.distance(b);
                if step == close_end {
                    grip_offset = offset;
                } else {
                    slip = slip.max(offset - grip_offset);
                }
            }
        };
        let start = (self.q0.clone(), vec![0.0; nv]);
        let d: Drive = drive(tree, &self.shapes, start, model, (steps, TIME_STEP), control);
        let (x, y, z, w) = (d.q[bq + 3], d.q[bq + 4], d.q[bq + 5], d.q[bq + 6]);
        let box_tilt = (1.0 - 2.0 * (x * x + y * y) / (x * x + y * y + z * z + w * w)).clamp(-1.0, 1.0).acos();
        GraspRun {
            steps: d.steps,
            wall_seconds: d.wall_seconds,
            steps_per_second: d.steps_per_second,
            lift: d.q[bq + 2],
            slip,
            box_tilt,
            max_penetration: d.max_penetration,
            mean_contacts: d.mean_contacts,
            max_lcp_rows: d.max_lcp_rows,
            failure: d.failure,
            trace,
        }
    }
}

/// The box's centre (m, world) at q: its floating joint's position in its joint frame, which
/// is the box's resting place, unrotated.
fn box_centre(q: &[f64], bq: usize) -> DVec3 {
    DVec3::new(BOX_X + q[bq], q[bq + 1], BOX_EDGE / 2.0 + q[bq + 2])
}
