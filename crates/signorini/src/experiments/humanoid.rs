//! Drumwright (2008), Section IV-D and fig. 14: "a humanoid robot ... which has a
//! differentially driven base, but possesses 26 degrees-of-freedom", in contact with the ground
//! plane only, 2,500 steps under the LCP method and under the penalty method, timed. The paper:
//! LCP 566.9 s (4.4 steps/s), penalty 81.4 s (30.7 steps/s), ratio 7.0.
//!
//! The robot is `examples/robots/humanoid.urdf`, our own model of that structure (the paper
//! gives no dimensions): a floating base on two wheels and two frictionless ball casters, a
//! waist (yaw, pitch), a neck (yaw, pitch) and two arms of seven joints; 26 degrees of freedom,
//! 37.6 kg. Imported with each wheel a 10-sided prism, as `mobile_robot` ("the number of contact
//! points per wheel is limited to ten").
//!
//! What it does (the paper does not say; ours): the wheels drive it forward, their velocity
//! servos' target ramping from 0 to `WHEEL_SPEED` over `SPEED_RAMP` (a step to full speed would
//! tip a robot this tall: its centre of mass is 0.35 m up, 0.2 m behind the front caster), while
//! the upper body moves: the waist turns ±0.4 rad, the arms swing in opposition, the elbows,
//! wrists and head nod (`MOTIONS`). The 18 upper-body joints are computed-torque servos:
//! τ_j = k_p (q*_j − q_j) + k_d (q̇*_j − q̇_j) + RNEA(q, q̇, a*)_j, the inverse dynamics at the
//! targets' accelerations a* (zero for the base and the wheels) fed forward, each with the gains
//! of a critically damped second-order response at `SERVO_OMEGA` on its own joint inertia
//! (k_p = ω² H_jj, k_d = 2 ζ ω H_jj, H at the initial pose): a 25 rad/s bandwidth whatever
//! the link's size, and h ω = 0.025, far inside the explicit servo's stability bound of the LCP
//! step. The robot starts on the ground with its base at rest and its joints on their targets:
//! q = q*(0), q̇ = q̇*(0).
use super::tree_drive::{drive, Drive};
pub use super::tree_drive::Model;
use crate::contact::tree::ground::shapes_of;
use crate::contact::tree::LinkShape;
use crate::geometry::Shape;
use crate::multibody::algorithms::{crba, rnea};
use crate::multibody::urdf::UrdfRobot;
use crate::multibody::{Controls, PdActuator, Workspace};
use std::f64::consts::TAU;

/// Steps of the paper's runs.
pub const STEPS: usize = 2500;
/// s.
pub const TIME_STEP: f64 = 1e-3;
/// The paper's figures (steps/s): LCP, penalty.
pub const PAPER_LCP: f64 = 4.4;
pub const PAPER_PENALTY: f64 = 30.7;
/// Wheel target speed after the ramp (rad/s): 0.5 m/s at the URDF's radius `WHEEL_RADIUS`.
pub const WHEEL_SPEED: f64 = 5.0;
/// m.
pub const WHEEL_RADIUS: f64 = 0.1;
/// Time over which the wheels' target rises from 0 to `WHEEL_SPEED` (s).
pub const SPEED_RAMP: f64 = 0.5;
/// Wheel velocity servo gain (N m s/rad).
pub const WHEEL_KD: f64 = 5.0;
/// Upper-body servo bandwidth ω (rad/s) and damping ratio ζ (–).
pub const SERVO_OMEGA: f64 = 25.0;
pub const SERVO_ZETA: f64 = 1.0;
/// Friction coefficients (–): wheels; every other shape but the casters (frictionless).
pub const WHEEL_FRICTION: f64 = 0.8;
pub const BODY_FRICTION: f64 = 0.5;
/// The wheel joints.
pub const WHEELS: [&str; 2] = ["left_wheel_joint", "right_wheel_joint"];

/// A joint target q*(t) = offset + amplitude sin(2π f t) (rad), q̇* its derivative.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Motion {
    pub offset: f64,
    pub amplitude: f64,
    /// Hz.
    pub frequency: f64,
}

impl Motion {
    const fn hold(offset: f64) -> Motion {
        Motion::wave(offset, 0.0, 0.0)
    }
    const fn wave(offset: f64, amplitude: f64, frequency: f64) -> Motion {
        Motion {
            offset,
            amplitude,
            frequency,
        }
    }
    /// (q*, q̇*, q̈*) at time t (s).
    pub fn at(&self, t: f64) -> (f64, f64, f64) {
        let w = TAU * self.frequency;
        let (sin, cos) = (w * t).sin_cos();
        (
            self.offset + self.amplitude * sin,
            self.amplitude * w * cos,
            -self.amplitude * w * w * sin,
        )
    }
}

/// The 18 servoed joints of `humanoid.urdf` and their targets.
pub const MOTIONS: [(&str, Motion); 18] = [
    ("waist_yaw", Motion::wave(0.0, 0.4, 0.5)),
    ("waist_pitch", Motion::hold(0.1)),
    ("neck_yaw", Motion::wave(0.0, 0.5, 0.25)),
    ("neck_pitch", Motion::wave(0.0, 0.2, 0.5)),
    ("left_shoulder_pitch", Motion::wave(-0.3, 0.6, 0.5)),
    ("right_shoulder_pitch", Motion::wave(-0.3, -0.6, 0.5)),
    ("left_shoulder_roll", Motion::hold(0.2)),
    ("right_shoulder_roll", Motion::hold(-0.2)),
    ("left_shoulder_yaw", Motion::hold(0.0)),
    ("right_shoulder_yaw", Motion::hold(0.0)),
    ("left_elbow", Motion::wave(-1.2, 0.3, 0.5)),
    ("right_elbow", Motion::wave(-1.2, 0.3, 0.5)),
    ("left_wrist_yaw", Motion::hold(0.0)),
    ("right_wrist_yaw", Motion::hold(0.0)),
    ("left_wrist_pitch", Motion::wave(0.0, 0.3, 1.0)),
    ("right_wrist_pitch", Motion::wave(0.0, 0.3, 1.0)),
    ("left_wrist_roll", Motion::hold(0.0)),
    ("right_wrist_roll", Motion::hold(0.0)),
];

/// One upper-body servo: the joint's tree link, its q and v index, target and gains.
#[derive(Clone, Debug)]
struct Servo {
    link: usize,
    qi: usize,
    vi: usize,
    motion: Motion,
    kp: f64,
    kd: f64,
}

/// The imported robot set up for the experiment.
pub struct Humanoid<'r> {
    robot: &'r UrdfRobot,
    shapes: Vec<LinkShape>,
    servos: Vec<Servo>,
    /// The wheels' tree links and v indices.
    wheels: [(usize, usize); 2],
    q0: Vec<f64>,
    v0: Vec<f64>,
}

/// One run's figures.
#[derive(Clone, Debug, PartialEq)]
pub struct HumanoidRun {
    pub steps: usize,
    pub wall_seconds: f64,
    pub steps_per_second: f64,
    /// The base's travel along x and sideways along y (m), its final height (m; 0 at the start).
    pub distance: f64,
    pub lateral: f64,
    pub final_height: f64,
    /// The base's largest tilt from upright over the run (rad).
    pub max_tilt: f64,
    /// The upper-body servos' tracking error |q − q*| over every joint and step: RMS and
    /// largest (rad).
    pub tracking_rms: f64,
    pub tracking_max: f64,
    /// The joint of that largest error.
    pub worst_joint: &'static str,
    /// The base's heading at the end (rad, about world z; 0 along +x).
    pub heading: f64,
    /// The wheels' mean final rate (rad/s).
    pub wheel_rate: f64,
    /// The deepest penetration of any step (m), mean contact points per step, the largest LCP.
    pub max_penetration: f64,
    pub mean_contacts: f64,
    pub max_lcp_rows: usize,
    /// The first failure (`None`: every step succeeded).
    pub failure: Option<String>,
}

impl<'r> Humanoid<'r> {
    /// Find the joints of `MOTIONS` and `WHEELS` in `robot` (an error names a missing one), set
    /// the initial pose q*(0) and the servo gains from the joint-space inertia there.
    pub fn new(robot: &'r UrdfRobot) -> Result<Humanoid<'r>, String> {
        let tree = &robot.tree;
        let link_of = |name: &str| {
            robot
                .joints
                .iter()
                .find(|j| j.name == name)
                .and_then(|j| j.link)
                .filter(|&l| tree.links()[l].joint.nv() == 1)
                .ok_or_else(|| {
                    format!(
                        "robot \"{}\" has no one-degree-of-freedom joint named {name}",
                        robot.name
                    )
                })
        };
        let (mut q0, mut v0) = (tree.neutral_q(), vec![0.0; tree.nv()]);
        let mut servos = Vec::with_capacity(MOTIONS.len());
        for (name, motion) in MOTIONS {
            let link = link_of(name)?;
            let (qi, vi) = (tree.q_offset(link), tree.v_offset(link));
            (q0[qi], v0[vi], _) = motion.at(0.0);
            servos.push(Servo {
                link,
                qi,
                vi,
                motion,
                kp: 0.0,
                kd: 0.0,
            });
        }
        let wheel = |name| link_of(name).map(|l| (l, tree.v_offset(l)));
        let wheels = [wheel(WHEELS[0])?, wheel(WHEELS[1])?];
        let mut ws = Workspace::new(tree);
        let h = crba(tree, &mut ws, &q0).map_err(|e| e.to_string())?;
        for s in &mut servos {
            let inertia = h[(s.vi, s.vi)];
            s.kp = SERVO_OMEGA * SERVO_OMEGA * inertia;
            s.kd = 2.0 * SERVO_ZETA * SERVO_OMEGA * inertia;
        }
        Ok(Humanoid {
            robot,
            shapes: shapes(robot),
            servos,
            wheels,
            q0,
            v0,
        })
    }

    /// The initial state: the targets at t = 0, the base at the origin at rest.
    pub fn initial_state(&self) -> (&[f64], &[f64]) {
        (&self.q0, &self.v0)
    }

    /// The servos: (joint name, its index in v, k_p in N m/rad, k_d in N m s/rad), in
    /// `MOTIONS` order.
    pub fn gains(&self) -> Vec<(&'static str, usize, f64, f64)> {
        (MOTIONS.iter().zip(&self.servos))
            .map(|((name, _), s)| (*name, s.vi, s.kp, s.kd))
            .collect()
    }

    /// The PD actuators: the upper-body servos in `MOTIONS` order, then the two wheels.
    fn actuators(&self) -> Vec<PdActuator> {
        let servo = |s: &Servo| PdActuator {
            link: s.link,
            kp: s.kp,
            kd: s.kd,
            target_position: 0.0,
            target_velocity: 0.0,
        };
        let wheel = |&(link, _): &(usize, usize)| PdActuator {
            link,
            kp: 0.0,
            kd: WHEEL_KD,
            target_position: 0.0,
            target_velocity: 0.0,
        };
        (self.servos.iter().map(servo))
            .chain(self.wheels.iter().map(wheel))
            .collect()
    }

    /// Run `steps` steps under `model`.
    pub fn run(&self, model: Model, steps: usize) -> HumanoidRun {
        let tree = &self.robot.tree;
        let mut ws = Workspace::new(tree);
        let (mut acc, mut feed) = (vec![0.0; tree.nv()], vec![0.0; tree.nv()]);
        let actuators = self.actuators();
        let n = self.servos.len();
        let (mut err_sq, mut tilt_max, mut samples) = (0.0, 0.0f64, 0usize);
        let mut err_max = vec![0.0f64; n];
        let start = (self.q0.clone(), self.v0.clone());
        let control = |step: usize, q: &[f64], v: &[f64], c: &mut Controls| {
            let t = step as f64 * TIME_STEP;
            if step == 0 {
                c.pd.clone_from(&actuators);
            }
            let wheel_speed = WHEEL_SPEED * (t / SPEED_RAMP).min(1.0);
            for ((a, s), m) in c.pd.iter_mut().zip(&self.servos).zip(&mut err_max) {
                (a.target_position, a.target_velocity, acc[s.vi]) = s.motion.at(t);
                let e = q[s.qi] - a.target_position;
                err_sq += e * e;
                *m = m.max(e.abs());
            }
            for a in &mut c.pd[n..] {
                a.target_velocity = wheel_speed;
            }
            samples += n;
            // The inverse dynamics' feed-forward at the targets' accelerations (base and
            // wheels at zero); a state the step would refuse leaves it 0 (the step then
            // reports the error).
            if rnea(tree, &mut ws, q, v, &acc, &mut feed).is_err() {
                feed.fill(0.0);
            }
            for s in &self.servos {
                c.tau[s.vi] = feed[s.vi];
            }
            tilt_max = tilt_max.max(tilt(q));
        };
        let d: Drive = drive(tree, &self.shapes, start, model, (steps, TIME_STEP), control);
        let worst = (0..n).fold(0, |w, i| if err_max[i] > err_max[w] { i } else { w });
        let wheel_rate = self.wheels.iter().map(|&(_, vi)| d.v[vi]).sum::<f64>() / 2.0;
        HumanoidRun {
            steps: d.steps,
            wall_seconds: d.wall_seconds,
            steps_per_second: d.steps_per_second,
            distance: d.q[0],
            lateral: d.q[1],
            final_height: d.q[2],
            max_tilt: tilt_max.max(tilt(&d.q)),
            tracking_rms: (err_sq / samples.max(1) as f64).sqrt(),
            tracking_max: err_max[worst],
            worst_joint: MOTIONS[worst].0,
            heading: heading(&d.q),
            wheel_rate,
            max_penetration: d.max_penetration,
            mean_contacts: d.mean_contacts,
            max_lcp_rows: d.max_lcp_rows,
            failure: d.failure,
        }
    }
}

/// The travel the wheels' rim speed allows over `steps` steps (m): r ∫ ω*(t) dt.
pub fn travel_bound(steps: usize) -> f64 {
    let t = steps as f64 * TIME_STEP;
    let ramp = t.min(SPEED_RAMP);
    WHEEL_RADIUS * WHEEL_SPEED * (ramp * ramp / (2.0 * SPEED_RAMP) + (t - ramp))
}

/// The root link's tilt from upright (rad): the angle between its z axis and the world's, from
/// the floating joint's quaternion q[3..7] = (x, y, z, w): cos θ = 1 − 2 (x² + y²).
fn tilt(q: &[f64]) -> f64 {
    let (x, y, z, w) = (q[3], q[4], q[5], q[6]);
    let norm2 = x * x + y * y + z * z + w * w;
    (1.0 - 2.0 * (x * x + y * y) / norm2).clamp(-1.0, 1.0).acos()
}

/// The root link's heading (rad): the angle of its x axis projected on the ground, from +x.
fn heading(q: &[f64]) -> f64 {
    let (x, y, z, w) = (q[3], q[4], q[5], q[6]);
    // The first column of the rotation matrix of (x, y, z, w), unnormalized by the same factor.
    let ax = w * w + x * x - y * y - z * z;
    let ay = 2.0 * (x * y + w * z);
    ay.atan2(ax)
}

/// The link shapes: wheels μ = `WHEEL_FRICTION`, the casters (spheres) frictionless, every
/// other shape `BODY_FRICTION`.
pub fn shapes(robot: &UrdfRobot) -> Vec<LinkShape> {
    let mut shapes = shapes_of(&robot.collisions, BODY_FRICTION);
    for (s, c) in shapes.iter_mut().zip(&robot.collisions) {
        if c.geometry == "cylinder" {
            s.friction = WHEEL_FRICTION;
        } else if matches!(c.shape, Shape::Sphere { .. }) && c.urdf_link.ends_with("caster") {
            s.friction = 0.0;
        }
    }
    shapes
}
