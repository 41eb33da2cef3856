//! Joint actuation: torque inputs, PD actuators and joint damping, summed into the generalized
//! force τ that forward dynamics takes.
use super::tree::{check_len, Tree};
use super::MultibodyError;

/// A position/velocity servo on a revolute or prismatic joint:
/// τ = kp (q* − q) + kd (q̇* − q̇).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PdActuator {
    /// Index of the link whose joint it drives.
    pub link: usize,
    /// Stiffness, ≥ 0: N m/rad (revolute) or N/m (prismatic).
    pub kp: f64,
    /// Damping gain, ≥ 0: N m s/rad or N s/m.
    pub kd: f64,
    /// q* (rad or m).
    pub target_position: f64,
    /// q̇* (rad/s or m/s).
    pub target_velocity: f64,
}

/// What drives the joints, held over a step (as `State::external` holds wrenches): a
/// generalized force per degree of freedom (N m or N, in v's layout) and PD actuators.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Controls {
    pub tau: Vec<f64>,
    pub pd: Vec<PdActuator>,
}

impl Controls {
    /// No input: zero torques, no actuators.
    pub fn new(tree: &Tree) -> Controls {
        Controls {
            tau: vec![0.0; tree.nv()],
            pd: Vec::new(),
        }
    }

    /// Lengths and finite values; each actuator on an existing revolute or prismatic joint
    /// with finite, non-negative gains and finite targets.
    pub fn check(&self, tree: &Tree) -> Result<(), MultibodyError> {
        check_len("τ", tree.nv(), self.tau.len())?;
        if !self.tau.iter().all(|t| t.is_finite()) {
            return Err(MultibodyError::NonFiniteState);
        }
        for a in &self.pd {
            let err = |reason: &str| MultibodyError::Actuator {
                link: a.link,
                reason: reason.to_string(),
            };
            let link = tree.links().get(a.link).ok_or_else(|| err("no such link"))?;
            if link.joint.nv() != 1 || link.joint.nq() != 1 {
                return Err(err(&format!(
                    "drives only revolute and prismatic joints, not {}",
                    link.joint.name()
                )));
            }
            if !(a.kp.is_finite() && a.kp >= 0.0 && a.kd.is_finite() && a.kd >= 0.0) {
                return Err(err("gains must be finite and non-negative"));
            }
            if !(a.target_position.is_finite() && a.target_velocity.is_finite()) {
                return Err(err("targets must be finite"));
            }
        }
        Ok(())
    }

    /// τ = inputs + Σ PD − damping ∘ q̇ at (q, v), into `out` (length nv). Assumes
    /// [`Controls::check`] passed.
    pub fn joint_forces(&self, tree: &Tree, q: &[f64], v: &[f64], out: &mut [f64]) {
        for ((o, t), (d, w)) in out.iter_mut().zip(&self.tau).zip(tree.damping.iter().zip(v)) {
            *o = t - d * w;
        }
        for a in &self.pd {
            let (qo, vo) = (tree.q_offset(a.link), tree.v_offset(a.link));
            out[vo] += a.kp * (a.target_position - q[qo]) + a.kd * (a.target_velocity - v[vo]);
        }
    }
}

/// A value through (time s, value) points, times strictly increasing: piecewise linear between
/// them, held before the first and after the last. [`Schedule`]'s servos and torques follow one.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Piecewise(pub Vec<(f64, f64)>);

impl Piecewise {
    /// (value, slope per second) at time t (s); the slope is 0 outside the points and on a
    /// point takes the segment that starts there.
    pub fn at(&self, t: f64) -> (f64, f64) {
        let p = &self.0;
        match p.iter().position(|&(ti, _)| ti > t) {
            None => (p.last().map_or(0.0, |&(_, y)| y), 0.0),
            Some(0) => (p[0].1, 0.0),
            Some(k) => {
                let ((t0, y0), (t1, y1)) = (p[k - 1], p[k]);
                let slope = (y1 - y0) / (t1 - t0);
                (y0 + slope * (t - t0), slope)
            }
        }
    }
}

/// What a scheduled servo follows.
#[derive(Clone, Debug, PartialEq)]
pub enum ServoSchedule {
    /// q*(t) through the points, q̇* its slope.
    Positions(Piecewise),
    /// q̇*(t) through the points (a velocity servo, kp = 0); q* left as it is.
    Velocities(Piecewise),
}

/// Inputs that follow time (a scene's `[[robot.servo]]` and `[[robot.torque]]`): set into a
/// [`Controls`] before each step by [`Schedule::apply`].
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Schedule {
    /// (index into `Controls::pd`, what its targets follow).
    pub servos: Vec<(usize, ServoSchedule)>,
    /// (degree of freedom, its input τ (N m or N) through time).
    pub torques: Vec<(usize, Piecewise)>,
}

impl Schedule {
    /// No scheduled input.
    pub fn is_empty(&self) -> bool {
        self.servos.is_empty() && self.torques.is_empty()
    }

    /// The servos' targets and the torque inputs at time t (s).
    pub fn apply(&self, t: f64, controls: &mut Controls) {
        for (i, s) in &self.servos {
            let a = &mut controls.pd[*i];
            match s {
                ServoSchedule::Positions(p) => (a.target_position, a.target_velocity) = p.at(t),
                ServoSchedule::Velocities(p) => a.target_velocity = p.at(t).0,
            }
        }
        for (dof, p) in &self.torques {
            controls.tau[*dof] = p.at(t).0;
        }
    }
}
