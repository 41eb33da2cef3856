//! Penalty contact of a tree with the ground and between its bodies' links (`pairs.rs`): at
//! every penetrating point a spring–damper normal
//! force with regularized Coulomb friction, taken linearly implicitly in the generalized
//! velocities (backward Euler on the forces, linearized about the start of the step), and the
//! joint limits as unilateral velocity-level rows solved with the same step's matrix.
//!
//! **Laws** per penetrating point (depth d = −ψ > 0, normal n = +z on the ground or the pair's
//! normal from A to B, v_p = J v the point's velocity relative to A (`pairs::Touch`: J the
//! point Jacobian `ground::point_jacobian` of B's point minus A's), v_n = n · v_p > 0
//! separating; the force acts on B at its point and its opposite on A at A's):
//!
//! ```text
//!   f_n = max(0, k d − c v_n)                       (Drumwright 2008, eq. 3, no integral term)
//!   f_t = −μ f_n v_t / max(‖v_t‖, ε)                (Coulomb, regularized below the slip speed ε)
//! ```
//!
//! **Step** (linearly implicit Euler, the free bodies' `pipeline::implicit` in generalized
//! coordinates; Baraff & Witkin's linearized backward Euler, as MuJoCo's implicit damping):
//! the forces are taken at the end of the step, the depth linearized as d⁺ = d − h v_n⁺, friction's
//! coefficient μ f_n⁰ / max(‖v_t⁰‖, ε) held at its start-of-step value (a damper across the slip,
//! d_t ≥ 0, acting on the end-of-step slip), and the joints' own damping d_j and PD actuators
//! (kp, kd) likewise:
//!
//! ```text
//!   f_n⁺ = k d − (c + h k) v_n⁺,    f_t⁺ = −d_t (I − n nᵀ) v_p⁺,    d_t = μ f_n⁰ / max(‖v_t⁰‖, ε)
//!   A v⁺ = H v + h (τ(q, v) + D_u v − C(q, v) + Σ Jᵀ n k d)
//!   A    = H + h D_u + h² K_u + h Σ Jᵀ [(c + h k) n nᵀ + d_t (I − n nᵀ)] J
//!   q⁺   = q ⊕ h v⁺
//! ```
//!
//! with H = H(q) from CRBA (RBDA Table 6.2), C(q, v) the bias forces (RNEA), τ(q, v) the
//! controls' force (inputs, PD, −d q̇) and D_u = diag(d_j + kd), K_u = diag(kp) their slopes.
//! A is symmetric positive definite for any h, k, c, d_t ≥ 0, so the step is stable whatever
//! the gains and the effective masses (a wheel's rim, I / r² = 0.25 kg, under friction's slope
//! μ f_n / ε was the explicit step's failure: c h / m > 2, a period-2 oscillation). For a
//! linear spring–damper backward Euler removes energy every step: ΔE = −½ m Δv² − ½ k Δx² −
//! h c v⁺² ≤ 0, and the friction damper does work −d_t ‖v_t⁺‖² ≤ 0.
//!
//! A normal force never pulls: after a solve a point whose f_n⁺ < 0 is switched off and the
//! step solved again (at most one solve more per point; a point is never switched back on within
//! a step). A point with f_n⁰ = 0 (separating fast) has no friction this step.
//!
//! **Joint limits**: a limit is a unilateral constraint on one coordinate, as in the LCP model
//! (`lcp.rs`) and as MuJoCo treats limits (constraints of its solver, like contacts) rather than
//! springs (Drumwright 2008 does not say how its penalty method treats limits). With
//! v_pen = A⁻¹ b the velocities above and E the limit rows (+e_j for ψ = q − lo, −e_j for
//! ψ = hi − q, each taken when ψ < `limit_activation`):
//!
//! ```text
//!   v⁺ = v_pen + A⁻¹ Eᵀ λ,    0 ≤ λ ⊥ E v⁺ + ψ̃/h ≥ 0          (Stewart & Trinkle 1996, eq. 21,
//!                                                            limit rows only, A in place of H)
//! ```
//!
//! λ the limits' generalized impulses (N m s or N s), ψ̃/h `time_stepping::position_term`.
//! A revolute or prismatic q is linear in v, so q⁺ = q + h v⁺ keeps every limit to the LCP's
//! tolerance (1e-8, scaled), with no stiffness to choose and no violation growing with the load
//! (a limit spring would leave load / k_limit).
//!
//! **Gains**, when not given: k = m ω², c = 2 ζ m ω with m the tree's mass and ω = `omega_h` / h:
//! one point carrying the whole tree would oscillate at ω with damping ratio ζ. The step is
//! stable for any gains; these set the depth at rest, W / (n k) for a weight W on n points.
use super::ground::ground_contacts;
use super::lcp::{joint_limits, Limit, TreeContactError};
use super::pairs::{candidate_pairs, link_contacts, touches, LinkContact, Touch};
use super::{Ground, GroundContact, LinkShape, TreeStepStats};
use crate::contact::time_stepping::{position_term, SolverChain};
use crate::multibody::algorithms::{bias_forces, crba, forward_kinematics};
use crate::multibody::integrate::advance_positions;
use crate::multibody::{Controls, LinkKinematics, MultibodyError, Tree, Workspace};
use crate::solvers::Problem;
use glam::DVec3;
use nalgebra::{Cholesky, DMatrix, DVector, Dyn};

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
    /// Joint limits with gap below this enter the step's limit LCP (rad or m, ≥ 0; default
    /// 0.1, as stewart-trinkle's).
    pub limit_activation: f64,
    /// Bound of the speed at which a limit's violation is removed (rad/s or m/s, > 0; default
    /// 0.5, as stewart-trinkle's).
    pub max_recovery_speed: f64,
    /// Contact between the links of one body (`pairs.rs`; default false: only the links of
    /// different bodies, and each with the ground, touch).
    pub self_contact: bool,
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
            limit_activation: 0.1,
            max_recovery_speed: 0.5,
            self_contact: false,
            ground: Ground::at(0.0),
        }
    }
}

/// Scaled residual the limit LCP must meet (–; stewart-trinkle's default tolerance).
pub const LIMIT_TOLERANCE: f64 = 1e-8;

/// One penetrating point's linearized law (module doc).
#[derive(Clone, Copy, Debug)]
struct PointLaw {
    /// k d (N): the spring's force at the start of the step.
    spring: f64,
    /// c + h k (N s/m): minus the normal force's slope in v_n⁺.
    normal_slope: f64,
    /// d_t (N s/m): friction's damper across the slip.
    friction_slope: f64,
    /// Pushes (not switched off by a pulling solve).
    active: bool,
}

/// Penalty contact of one tree, with its gains, the limit LCP's solver chain and scratch.
pub struct TreePenalty {
    pub params: TreePenaltyParams,
    /// The gains in use: stiffness (N/m) and damping (N s/m) per point.
    pub stiffness: f64,
    pub damping: f64,
    chain: SolverChain,
    contacts: Vec<GroundContact>,
    link_contacts: Vec<LinkContact>,
    touches: Vec<Touch>,
    laws: Vec<PointLaw>,
    /// The point Jacobians, nv columns per contact, contact after contact.
    jac: Vec<DVec3>,
    links: Vec<LinkKinematics>,
    limits: Vec<Limit>,
    warm: DVector<f64>,
}

impl std::fmt::Debug for TreePenalty {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TreePenalty")
            .field("params", &self.params)
            .field("stiffness", &self.stiffness)
            .field("damping", &self.damping)
            .finish_non_exhaustive()
    }
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
        if !(params.limit_activation >= 0.0 && params.limit_activation.is_finite()) {
            let a = params.limit_activation;
            return Err(bad("limit_activation", a, "finite and >= 0 (rad or m)"));
        }
        if !(params.max_recovery_speed > 0.0 && params.max_recovery_speed.is_finite()) {
            let s = params.max_recovery_speed;
            return Err(bad("max_recovery_speed", s, "finite and > 0 (rad/s or m/s)"));
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
        let solvers = ["lemke", "fischer-burmeister", "pgs"];
        let chain = SolverChain::new(&solvers, LIMIT_TOLERANCE, 500, None, 1.0, "stop")
            .map_err(|e| e.to_string())?;
        Ok(TreePenalty {
            params,
            stiffness,
            damping,
            chain,
            contacts: Vec::new(),
            link_contacts: Vec::new(),
            touches: Vec::new(),
            laws: Vec::new(),
            jac: Vec::new(),
            links: Vec::new(),
            limits: Vec::new(),
            warm: DVector::zeros(0),
        })
    }

    /// The force (N, world axes) of the laws at one penetrating contact moving at `vel` (m/s),
    /// at the start of a step (the explicit value of the module doc's laws).
    pub fn contact_force(&self, c: &GroundContact, vel: DVec3) -> DVec3 {
        let n = Ground::NORMAL;
        let vn = n.dot(vel);
        let fn_ = (self.stiffness * (-c.gap) - self.damping * vn).max(0.0);
        let vt = vel - vn * n;
        let ft = -c.friction * fn_ * vt / vt.length().max(self.params.slip_speed);
        fn_ * n + ft
    }

    /// One step of length h (s) from (q, v) under `controls` (module doc): the linearly
    /// implicit velocities with the limit LCP's impulses, then q⁺ = q ⊕ h v⁺. On an error
    /// (q, v) are unchanged.
    pub fn step(
        &mut self,
        tree: &Tree,
        ws: &mut Workspace,
        shapes: &[LinkShape],
        (q, v): (&mut [f64], &mut [f64]),
        controls: &Controls,
        h: f64,
    ) -> Result<TreeStepStats, TreeContactError> {
        tree.check_state(q, v)?;
        controls.check(tree)?;
        if !(h.is_finite() && h > 0.0) {
            return Err(MultibodyError::NonFiniteState.into());
        }
        self.links.clear();
        self.links.extend_from_slice(forward_kinematics(tree, ws, q, v)?);
        let mut contacts = std::mem::take(&mut self.contacts);
        ground_contacts(shapes, &self.links, self.params.ground, 0.0, &mut contacts);
        self.contacts = contacts;
        let pairs = candidate_pairs(tree, shapes, self.params.self_contact);
        link_contacts(shapes, &pairs, &self.links, 0.0, &mut self.link_contacts);
        touches(&self.contacts, &self.link_contacts, &mut self.touches);
        joint_limits(tree, q, self.params.limit_activation, &mut self.limits);
        self.linearize(tree, h);
        let (base_a, base_b) = joint_system(tree, ws, (q, v), controls, h)?;
        let mut stats = TreeStepStats {
            contacts: self.touches.len(),
            penetrating: self.touches.len(),
            max_penetration: self.touches.iter().map(|c| -c.gap).fold(0.0, f64::max),
            limit_rows: self.limits.len(),
            ..TreeStepStats::default()
        };
        let v_new = loop {
            let (a, b) = self.assemble(&base_a, &base_b, h);
            let chol = Cholesky::new(a).ok_or(TreeContactError::SingularMass)?;
            let mut v_new = chol.solve(&b);
            if !self.limits.is_empty() {
                self.limit_impulses(&chol, &mut v_new, h, &mut stats)?;
            }
            if !self.switch_off_pulling(&v_new) {
                break v_new;
            }
        };
        advance_positions(tree, q, v_new.as_slice(), h);
        v.copy_from_slice(v_new.as_slice());
        Ok(stats)
    }

    /// Each contact's point Jacobian and linearized law at the start of the step.
    fn linearize(&mut self, tree: &Tree, h: f64) {
        let nv = tree.nv();
        self.jac.resize(self.touches.len() * nv, DVec3::ZERO);
        self.laws.clear();
        for (i, c) in self.touches.iter().enumerate() {
            let jac = &mut self.jac[i * nv..(i + 1) * nv];
            c.jacobian(tree, &self.links, jac);
            let vel = c.velocity(&self.links);
            let n = c.normal;
            let vn = n.dot(vel);
            let normal = (self.stiffness * (-c.gap) - self.damping * vn).max(0.0);
            let slip = (vel - vn * n).length().max(self.params.slip_speed);
            self.laws.push(PointLaw {
                spring: self.stiffness * (-c.gap),
                normal_slope: self.damping + h * self.stiffness,
                friction_slope: c.friction * normal / slip,
                active: true,
            });
        }
    }

    /// A = base_a + h Σ Jᵀ W J and b = base_b + h Σ Jᵀ n k d over the active points, W =
    /// (c + h k) n nᵀ + d_t (I − n nᵀ): Drumwright 2008 eq. 3 and regularized Coulomb friction
    /// linearized at the end of the step (module doc).
    fn assemble(
        &self,
        base_a: &DMatrix<f64>,
        base_b: &DVector<f64>,
        h: f64,
    ) -> (DMatrix<f64>, DVector<f64>) {
        let nv = base_b.len();
        let (mut a, mut b) = (base_a.clone(), base_b.clone());
        for (i, law) in self.laws.iter().enumerate().filter(|(_, l)| l.active) {
            let jac = &self.jac[i * nv..(i + 1) * nv];
            let n = self.touches[i].normal;
            let w = |x: DVec3| {
                let xn = n.dot(x);
                law.normal_slope * xn * n + law.friction_slope * (x - xn * n)
            };
            for (j, col) in jac.iter().enumerate() {
                if *col == DVec3::ZERO {
                    continue;
                }
                let wj = w(*col);
                for (r, row) in jac.iter().enumerate() {
                    a[(r, j)] += h * row.dot(wj);
                }
                b[j] += h * law.spring * n.dot(*col);
            }
        }
        (a, b)
    }

    /// Switch off every active point whose end-of-step normal force k d − (c + h k) v_n⁺ pulls;
    /// whether one was.
    fn switch_off_pulling(&mut self, v_new: &DVector<f64>) -> bool {
        let nv = v_new.len();
        let mut any = false;
        for (i, law) in self.laws.iter_mut().enumerate().filter(|(_, l)| l.active) {
            let jac = &self.jac[i * nv..(i + 1) * nv];
            let n = self.touches[i].normal;
            let vn: f64 = jac.iter().zip(v_new.iter()).map(|(c, w)| n.dot(*c) * w).sum();
            if law.spring - law.normal_slope * vn < 0.0 {
                law.active = false;
                any = true;
            }
        }
        any
    }

    /// The limit rows' LCP with the step's matrix A (factored in `chol`): Stewart & Trinkle
    /// 1996 eq. 21 on the limit rows only, A in place of H; its impulses added to `v_new`
    /// (module doc), its figures into `stats`.
    fn limit_impulses(
        &mut self,
        chol: &Cholesky<f64, Dyn>,
        v_new: &mut DVector<f64>,
        h: f64,
        stats: &mut TreeStepStats,
    ) -> Result<(), TreeContactError> {
        let (nv, nl) = (v_new.len(), self.limits.len());
        let mut et = DMatrix::zeros(nv, nl);
        for (r, l) in self.limits.iter().enumerate() {
            et[(l.dof, r)] = l.sign;
        }
        let y = chol.solve(&et);
        let w = et.transpose() * &y;
        let mut bias = et.transpose() * &*v_new;
        for (r, l) in self.limits.iter().enumerate() {
            bias[r] += position_term(l.gap, h, self.params.max_recovery_speed);
        }
        let problem = Problem::lcp(w, bias);
        let warm = if self.warm.len() == nl {
            self.warm.clone()
        } else {
            DVector::zeros(nl)
        };
        let what = || format!("the joint-limit LCP of {nl} rows (multi-point on a tree)");
        let (z, report) = self.chain.solve(&problem, &warm, what)?;
        *v_new += &y * &z;
        stats.lcp_rows = nl;
        stats.residual = report.residual;
        stats.solver = report.solver;
        stats.iterations = report.iterations;
        stats.failed = report.failed;
        self.warm = z;
        Ok(())
    }
}

/// The joints' part of the step (module doc): H + h D_u + h² K_u and H v + h (τ(q, v) + D_u v −
/// C(q, v)), with D_u the joints' damping plus the PD actuators' kd and K_u their kp. Also the
/// LCP model's free velocity (`lcp.rs`): the joints' damping and servos linearly implicit there
/// too.
pub(super) fn joint_system(
    tree: &Tree,
    ws: &mut Workspace,
    (q, v): (&[f64], &[f64]),
    controls: &Controls,
    h: f64,
) -> Result<(DMatrix<f64>, DVector<f64>), TreeContactError> {
    let nv = tree.nv();
    let mut a = crba(tree, ws, q)?.clone();
    let mut tau = vec![0.0; nv];
    controls.joint_forces(tree, q, v, &mut tau);
    let mut c = vec![0.0; nv];
    bias_forces(tree, ws, q, v, &mut c)?;
    let (mut damp, mut spring) = (vec![0.0; nv], vec![0.0; nv]);
    for (i, l) in tree.links().iter().enumerate() {
        for k in 0..l.joint.nv() {
            damp[tree.v_offset(i) + k] += l.damping;
        }
    }
    for pd in &controls.pd {
        damp[tree.v_offset(pd.link)] += pd.kd;
        spring[tree.v_offset(pd.link)] += pd.kp;
    }
    let hv = &a * DVector::from_column_slice(v);
    let b = DVector::from_fn(nv, |j, _| hv[j] + h * (tau[j] + damp[j] * v[j] - c[j]));
    for j in 0..nv {
        a[(j, j)] += h * damp[j] + h * h * spring[j];
    }
    Ok((a, b))
}
