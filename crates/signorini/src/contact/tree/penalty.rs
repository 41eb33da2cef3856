//! Penalty contact of a tree with the ground: at every penetrating point a spring–damper normal
//! force with regularized Coulomb friction, mapped to the joints by τ = Jᵀ f and integrated by
//! the tree's own integrator (`multibody::integrate::step`), the forces held over the step.
//!
//! Normal force (Drumwright 2008, eq. 3, without the integral term; the multi-point model of
//! `contact::multi_point` per point): with depth d = −ψ > 0 and normal speed v_n = n · v_p
//! (> 0 separating),
//!
//! ```text
//!   f_n = max(0, k d − c v_n)
//! ```
//!
//! Friction (Drumwright's slipping friction, μ‖f_n‖ against the sliding velocity, regularized
//! below the slip speed ε so that it is a continuous function of the state):
//!
//! ```text
//!   f_t = −μ f_n v_t / max(‖v_t‖, ε)
//! ```
//!
//! Gains, when not given: k = m ω², c = 2 ζ m ω with m the tree's mass and ω = `omega_h` / h:
//! one point carrying the whole tree would oscillate at ω with damping ratio ζ. Semi-implicit
//! Euler is stable for a spring–damper while (ω h)² + 2 ζ ω h < 4 (the eigenvalues of its
//! step stay in the unit disc); with the default ω h = 0.1 and ζ = 0.5, n points under the
//! same mass give ω h = 0.1 √n, stable up to n ≈ 300 points sharing one rigid body's weight.
//! The rule assumes each point's effective mass is of the order of the tree's: a light link
//! (a finger) alone in contact sees a higher frequency; lower `omega_h` there. At rest the
//! depth under a weight W shared by n points is W / (n k).
//!
//! Friction's slope μ f_n / ε below the slip speed acts as a tangential damper: with the whole
//! weight on one point its rate μ g / ε (1/s) times h must stay below 2 (semi-implicit Euler's
//! bound for a damper); the default ε = 0.01 m/s gives μ g h / ε = 0.49 for μ = 0.5, h = 1 ms.
use super::ground::{add_point_force, ground_contacts, point_velocity};
use super::{Ground, GroundContact, LinkShape, TreeStepStats};
use crate::multibody::algorithms::forward_kinematics;
use crate::multibody::integrate::step;
use crate::multibody::{Controls, LinkKinematics, MbIntegrator, MultibodyError, Tree, Workspace};
use glam::DVec3;

/// Parameters of penalty contact on a tree.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TreePenaltyParams {
    /// Normal stiffness per contact point (N/m, > 0); `None`: m (ω h / h)² from `omega_h`.
    pub stiffness: Option<f64>,
    /// Normal damping per contact point (N s/m, ≥ 0); `None`: 2 ζ m ω.
    pub damping: Option<f64>,
    /// ω h of the derived stiffness (–, in (0, 1]; default 0.1).
    pub omega_h: f64,
    /// ζ of the derived damping (–, ≥ 0; default 0.5).
    pub damping_ratio: f64,
    /// Regularization ε of Coulomb friction (m/s, > 0; default 0.01).
    pub slip_speed: f64,
    pub ground: Ground,
}

impl Default for TreePenaltyParams {
    fn default() -> Self {
        TreePenaltyParams {
            stiffness: None,
            damping: None,
            omega_h: 0.1,
            damping_ratio: 0.5,
            slip_speed: 0.01,
            ground: Ground { height: 0.0 },
        }
    }
}

/// Penalty contact of one tree, with its gains and scratch.
#[derive(Clone, Debug)]
pub struct TreePenalty {
    pub params: TreePenaltyParams,
    /// The gains in use: stiffness (N/m) and damping (N s/m) per point.
    pub stiffness: f64,
    pub damping: f64,
    contacts: Vec<GroundContact>,
    links: Vec<LinkKinematics>,
    controls: Controls,
}

impl TreePenalty {
    /// Gains from `params`, derived from the tree's mass and the step h (s) where not given.
    /// Errors name the parameter out of its range.
    pub fn new(params: TreePenaltyParams, tree: &Tree, h: f64) -> Result<TreePenalty, String> {
        let bad = |name: &str, v: f64, range: &str| format!("penalty {name} = {v}: must be {range}");
        if !(params.omega_h > 0.0 && params.omega_h <= 1.0) {
            return Err(bad("omega_h", params.omega_h, "in (0, 1]"));
        }
        if !(params.damping_ratio >= 0.0 && params.damping_ratio.is_finite()) {
            return Err(bad("damping_ratio", params.damping_ratio, "finite and >= 0"));
        }
        if !(params.slip_speed > 0.0 && params.slip_speed.is_finite()) {
            return Err(bad("slip_speed", params.slip_speed, "finite and > 0 (m/s)"));
        }
        if !(h > 0.0 && h.is_finite() && params.ground.height.is_finite()) {
            return Err(format!("time step {h} s or ground height not positive and finite"));
        }
        let m: f64 = tree.links().iter().map(|l| l.mass).sum();
        let omega = params.omega_h / h;
        let stiffness = params.stiffness.unwrap_or(m * omega * omega);
        let damping = params.damping.unwrap_or(2.0 * params.damping_ratio * m * omega);
        if !(stiffness > 0.0 && stiffness.is_finite()) {
            return Err(bad("stiffness", stiffness, "finite and > 0 (N/m)"));
        }
        if !(damping >= 0.0 && damping.is_finite()) {
            return Err(bad("damping", damping, "finite and >= 0 (N s/m)"));
        }
        Ok(TreePenalty {
            params,
            stiffness,
            damping,
            contacts: Vec::new(),
            links: Vec::new(),
            controls: Controls::new(tree),
        })
    }

    /// The force (N, world axes) at one penetrating contact moving at `vel` (m/s).
    pub fn contact_force(&self, c: &GroundContact, vel: DVec3) -> DVec3 {
        let n = Ground::NORMAL;
        let vn = n.dot(vel);
        let fn_ = (self.stiffness * (-c.gap) - self.damping * vn).max(0.0);
        let vt = vel - vn * n;
        let ft = -c.friction * fn_ * vt / vt.length().max(self.params.slip_speed);
        fn_ * n + ft
    }

    /// The contact forces' generalized force τ_c = Σ Jᵀ f at (q, v) into `tau` (length nv,
    /// overwritten), and the step's contact figures.
    pub fn joint_forces(
        &mut self,
        tree: &Tree,
        ws: &mut Workspace,
        shapes: &[LinkShape],
        (q, v): (&[f64], &[f64]),
        tau: &mut [f64],
    ) -> Result<TreeStepStats, MultibodyError> {
        self.links.clear();
        self.links.extend_from_slice(forward_kinematics(tree, ws, q, v)?);
        let mut contacts = std::mem::take(&mut self.contacts);
        ground_contacts(shapes, &self.links, self.params.ground, 0.0, &mut contacts);
        tau.fill(0.0);
        let mut stats = TreeStepStats::default();
        for c in &contacts {
            let vel = point_velocity(&self.links, c.link, c.point);
            let f = self.contact_force(c, vel);
            add_point_force(tree, &self.links, c.link, c.point, f, tau);
            stats.max_penetration = stats.max_penetration.max(-c.gap);
        }
        stats.contacts = contacts.len();
        stats.penetrating = contacts.len();
        self.contacts = contacts;
        Ok(stats)
    }

    /// One step of length h (s): the contact forces at the start of the step added to the
    /// controls' torque inputs, held over the step, integrated by `integrator`.
    #[allow(clippy::too_many_arguments)]
    pub fn step(
        &mut self,
        tree: &Tree,
        ws: &mut Workspace,
        shapes: &[LinkShape],
        (q, v): (&mut [f64], &mut [f64]),
        controls: &Controls,
        h: f64,
        integrator: MbIntegrator,
    ) -> Result<TreeStepStats, MultibodyError> {
        let mut local = std::mem::take(&mut self.controls);
        local.tau.resize(tree.nv(), 0.0);
        let stats = self.joint_forces(tree, ws, shapes, (q, v), &mut local.tau)?;
        for (t, c) in local.tau.iter_mut().zip(&controls.tau) {
            *t += c;
        }
        local.pd.clone_from(&controls.pd);
        let r = step(tree, ws, q, v, &local, h, integrator);
        self.controls = local;
        r.map(|_| stats)
    }
}
