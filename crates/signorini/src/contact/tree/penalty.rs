//! Penalty contact of a tree with the ground and between its bodies' links (`pairs.rs`):
//! spring–damper normal forces with regularized Coulomb friction, taken linearly implicitly in
//! the generalized velocities (backward Euler on the forces, linearized about the start of the
//! step), and the joint limits as unilateral velocity-level rows solved with the same step's
//! matrix. Three normal laws ([`PenaltyLaw`], `TreePenaltyParams::law`):
//!
//! - `MultiPoint` (default): a spring–damper at every penetrating point (Drumwright 2008,
//!   Section III);
//! - `DeepestPoint`: the same spring–damper once per touching pair — one link shape against
//!   the ground, or two link shapes against each other — at the pair's depth d (its deepest
//!   point's), the free bodies' `deepest-point` without its integral term;
//! - `HuntCrossley`: Hunt & Crossley's visco-elastic force once per pair at its depth, its
//!   damping from the restitution e and the pair's impact speed (below).
//!
//! **One law per pair** (`TreePenaltyParams::weighted`, the free bodies' `point` parameter and
//! `penalty::contact_weights`): by default the pair's law is shared among its penetrating points
//! i in proportion to their depths, w_i = d_i / Σ d_j: point i carries w_i times the law at its
//! own velocity, with its own friction (cone μ w_i f_n). The shares sum to the law at the
//! depth-weighted centre Σ w_i p_i (the law is affine in the velocity, a link's velocity field
//! affine in the point): a face pressed in evenly is pushed at its centre, and a box resting on
//! a face rests at d = W / k without rocking. `weighted = false` (`point = "deepest"`) puts the
//! whole law on the deepest point (on a tie the first in the contacts' deterministic order:
//! `ground::ground_contacts`' shape then vertex order, `pairs::link_contacts`' pair order), the
//! classical method: a floating box on a face then carries its weight on one corner and rocks
//! (measured: |ω| up to 0.14 rad/s in a 4-step cycle, test `contact_tree_penalty_laws.rs`).
//!
//! **Laws** per point taken (depth d = −ψ > 0, normal n = +z on the ground or the pair's
//! normal from A to B, v_p = J v the point's velocity relative to A (`pairs::Touch`: J the
//! point Jacobian `ground::point_jacobian` of B's point minus A's), v_n = n · v_p > 0
//! separating, ẋ = −v_n the approach rate; the force acts on B at its point and its opposite on
//! A at A's):
//!
//! ```text
//!   multi-point, deepest-point:
//!   f_n = max(0, k d − c v_n)                       (Drumwright 2008, eq. 3, no integral term)
//!   hunt-crossley:
//!   f_n = max(0, k d (1 + c_hc ẋ)),  c_hc = ζ(e) / v_i   (Hunt & Crossley 1975; Deguet,
//!                      Joukhadar & Laugier 1998, §2.2: λ x + μ x ẋ, μ = λ c_hc; their eq. 5's
//!                      c_hc = 1.5 (1 − e) / v_i replaced by the exact rule below)
//!   all:
//!   f_t = −μ f_n v_t / max(‖v_t‖, ε)                (Coulomb, regularized below the slip speed ε)
//! ```
//!
//! ζ(e) is the free bodies' `damping = "exact"` rule (`contact::hunt_crossley::DampingLaw::
//! Exact`): the root of ζ (1 + e) = ln((1 + ζ)/(1 − e ζ)), for which a single impact at v_i on the
//! law leaves at exactly e v_i whatever m and k (e below `hunt_crossley::MIN_RESTITUTION` acts as
//! that). v_i (m/s) is the pair's approach rate ẋ at the start of the first step that finds it
//! penetrating, kept by the model (keyed by the pair's shape indices) until a step finds it not
//! penetrating; below [`MIN_IMPACT_SPEED`] it counts as that (a pair that settles into contact
//! would otherwise get c_hc → ∞), the free bodies' `min_impact_speed` default. The contact
//! starts within the last step, during which no force acted, so this ẋ is the impact speed up to
//! the step's change under the other forces (g h under gravity).
//!
//! **Step** (linearly implicit Euler, the free bodies' `pipeline::implicit` in generalized
//! coordinates; Baraff & Witkin's linearized backward Euler, as MuJoCo's implicit damping):
//! the forces are taken at the end of the step, linearized about the start-of-step state,
//! the depth as d⁺ = d − h v_n⁺, friction's coefficient μ f_n⁰ / max(‖v_t⁰‖, ε) held at its
//! start-of-step value (a damper across the slip, d_t ≥ 0, acting on the end-of-step slip), and
//! the joints' own damping d_j and PD actuators (kp, kd) likewise. Every law becomes
//! f_n⁺ = P − S v_n⁺ with a spring term P (N) and a slope S ≥ 0 (N s/m):
//!
//! ```text
//!   f_n⁺ = P − S v_n⁺,    f_t⁺ = −d_t (I − n nᵀ) v_p⁺,    d_t = μ f_n⁰ / max(‖v_t⁰‖, ε)
//!   A v⁺ = H v + h (τ(q, v) + D_u v − C(q, v) + Σ Jᵀ n P)
//!   A    = H + h D_u + h² K_u + h Σ Jᵀ [S n nᵀ + d_t (I − n nᵀ)] J
//!   q⁺   = q ⊕ h v⁺
//! ```
//!
//! - multi-point, deepest-point: P = k d, S = c + h k (the law is linear: exact).
//! - hunt-crossley: F(d, ẋ) = k d (1 + c_hc ẋ) to first order about the start (d⁰, ẋ⁰), with
//!   d⁺ − d⁰ = −h v_n⁺ and ẋ⁺ − ẋ⁰ = −v_n⁺ − ẋ⁰:
//!
//!   ```text
//!     F⁺ ≈ F⁰ + ∂F/∂d (d⁺ − d⁰) + ∂F/∂ẋ (ẋ⁺ − ẋ⁰)
//!        = k d⁰ (1 + c_hc ẋ⁰) − k (1 + c_hc ẋ⁰) h v_n⁺ − k c_hc d⁰ (v_n⁺ + ẋ⁰)
//!        = k d⁰ − [h k (1 + c_hc ẋ⁰) + k c_hc d⁰] v_n⁺
//!   ```
//!
//!   so P = k d⁰ (the damping's start-of-step term k c_hc d⁰ ẋ⁰ cancels against the slope's
//!   −∂F/∂ẋ ẋ⁰) and S = h k (1 + c_hc ẋ⁰) + k c_hc d⁰. Where 1 + c_hc ẋ⁰ > 0 both terms of S are
//!   positive; where 1 + c_hc ẋ⁰ ≤ 0 (separating faster than 1/c_hc) the law is 0 at the start,
//!   and ∂F/∂d is taken as k max(1 + c_hc ẋ⁰, 0) while the damping's slope k c_hc d⁰ stays: the
//!   end-of-step force decides, switched off where it pulls (below), as the free bodies'
//!   implicit step clips its force elements at the end of the step (dropping such a point
//!   instead let a settling contact with c_hc ≈ 1e5 s/m lose its force on any 1e-5 m/s of
//!   separation: the humanoid scene's wheels sank 9 mm in 4 s). c_hc is bounded so that the
//!   damper k d c_hc ≤ `hunt_crossley::MAX_STEP_DAMPING` m / h, m the tree's mass (the free
//!   bodies' bound with the pair's effective mass). f_n⁰ = k d⁰ max(1 + c_hc ẋ⁰, 0) sets
//!   friction's d_t.
//!
//! with H = H(q) from CRBA (RBDA Table 6.2), C(q, v) the bias forces (RNEA), τ(q, v) the
//! controls' force (inputs, PD, −d q̇) and D_u = diag(d_j + kd), K_u = diag(kp) their slopes.
//! A is symmetric positive definite for any h and any S, d_t ≥ 0, so the step is stable whatever
//! the gains and the effective masses (a wheel's rim, I / r² = 0.25 kg, under friction's slope
//! μ f_n / ε was the explicit step's failure: c h / m > 2, a period-2 oscillation). For a
//! linear spring–damper backward Euler removes energy every step: ΔE = −½ m Δv² − ½ k Δx² −
//! h c v⁺² ≤ 0, and the friction damper does work −d_t ‖v_t⁺‖² ≤ 0. At rest (v = v⁺ = 0) the
//! step reads 0 = h (τ − C + Σ Jᵀ n P): the slopes multiply v⁺ = 0 and drop out, and the springs'
//! P = k d alone balance the load, under every law: one point under a weight W sinks W / k, n
//! points sharing it equally W / (n k).
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
//! stable for any gains; these set the depth at rest, W / (n k) for a weight W on n points. The
//! same rule serves every law: it is stated for one point carrying the tree, which is what
//! deepest-point and hunt-crossley do per pair. Hunt–Crossley uses k only (its damping is
//! k d c_hc from e, so `damping` and `damping_ratio` do not act on it).
//!
//! **Units** of the fields: k N/m, c N s/m, c_hc s/m, v_i m/s, e and ζ dimensionless.
use super::ground::ground_contacts;
use super::lcp::{check_step, joint_limits, Limit, TreeContactError};
use super::pairs::{candidate_pairs, link_contacts, touches, LinkContact, Touch};
use super::{Ground, GroundContact, LinkShape, TreeStepStats};
use crate::contact::hunt_crossley::{DampingLaw, MAX_STEP_DAMPING};
use crate::contact::time_stepping::{position_term, SolverChain};
use crate::multibody::algorithms::{bias_forces, crba, forward_kinematics};
use crate::multibody::integrate::advance_positions;
use crate::multibody::{Controls, LinkKinematics, Tree, Workspace};
use crate::solvers::Problem;
use glam::DVec3;
use nalgebra::{Cholesky, DMatrix, DVector, Dyn};
use std::collections::BTreeMap;

/// The normal law of the penalty model (module doc).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum PenaltyLaw {
    /// A spring–damper at every penetrating point (Drumwright 2008, eq. 3).
    #[default]
    MultiPoint,
    /// The same spring–damper at the deepest point of each touching pair of shapes.
    DeepestPoint,
    /// Hunt–Crossley's k d (1 + c ẋ) at the deepest point of each touching pair, c from
    /// `TreePenaltyParams::restitution` and the pair's impact speed.
    HuntCrossley,
}

impl PenaltyLaw {
    /// Every law, in the order of [`PenaltyLaw::NAMES`].
    pub const ALL: [PenaltyLaw; 3] = [
        PenaltyLaw::MultiPoint,
        PenaltyLaw::DeepestPoint,
        PenaltyLaw::HuntCrossley,
    ];
    /// The contact models' names of the laws (the free bodies' model names).
    pub const NAMES: [&'static str; 3] = ["multi-point", "deepest-point", "hunt-crossley"];

    /// The law's model name: `multi-point`, `deepest-point` or `hunt-crossley`.
    pub fn name(self) -> &'static str {
        match self {
            PenaltyLaw::MultiPoint => Self::NAMES[0],
            PenaltyLaw::DeepestPoint => Self::NAMES[1],
            PenaltyLaw::HuntCrossley => Self::NAMES[2],
        }
    }

    /// The law of a model name ([`PenaltyLaw::NAMES`]); `None` for any other.
    pub fn from_name(name: &str) -> Option<PenaltyLaw> {
        Self::ALL.into_iter().find(|l| l.name() == name)
    }
}

/// Impact speeds below this count as this (m/s): the free bodies' `hunt-crossley`
/// `min_impact_speed` default (a pair that starts touching at rest would otherwise get c → ∞).
pub const MIN_IMPACT_SPEED: f64 = 1e-2;

/// The default restitution of `hunt-crossley` on a tree (–). Not the free bodies' default
/// material's e = 0 (acting as `hunt_crossley::MIN_RESTITUTION`): at e → 0, ζ(e) → 1/e and a
/// body put on the ground at rest (v_i at [`MIN_IMPACT_SPEED`]) gets c ≈ 1e5 s/m and creeps to
/// its rest depth for minutes (a floating box: 3e-4 of its 9.8e-4 m after 3 s; the humanoid
/// scene's boxes sank mm); at 0.5 it rests at m g / k within the first second (test
/// `contact_tree_penalty_laws.rs`).
pub const DEFAULT_RESTITUTION: f64 = 0.5;

/// A touching pair of shapes: one against the ground, or two (indices into the step's shapes,
/// a < b).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum PairKey {
    Ground(usize),
    Shapes(usize, usize),
}

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
    /// The normal law (module doc; default `MultiPoint`).
    pub law: PenaltyLaw,
    /// Under `DeepestPoint` and `HuntCrossley`, where a pair's one law acts: `true` (default)
    /// shared among the pair's penetrating points by their depths, the force at the
    /// depth-weighted centre (the free bodies' `point = "weighted"`: a face pressed in evenly is
    /// pushed at its centre); `false` at the deepest point alone (`point = "deepest"`, the
    /// classical method: a box resting on a face rocks). Multi-point ignores it.
    pub weighted: bool,
    /// Coefficient of restitution e of every pair under `HuntCrossley` (–, in [0, 1]; values
    /// below `hunt_crossley::MIN_RESTITUTION` act as that; default [`DEFAULT_RESTITUTION`]);
    /// the other laws ignore it.
    pub restitution: f64,
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
            law: PenaltyLaw::MultiPoint,
            weighted: true,
            restitution: DEFAULT_RESTITUTION,
        }
    }
}

/// Scaled residual the limit LCP must meet (–; stewart-trinkle's default tolerance).
pub const LIMIT_TOLERANCE: f64 = 1e-8;

/// One penetrating point's linearized law (module doc).
#[derive(Clone, Copy, Debug)]
struct PointLaw {
    /// P (N): the linearized normal force at v_n⁺ = 0, k d under every law.
    spring: f64,
    /// S (N s/m, ≥ 0): minus the normal force's slope in v_n⁺ (c + h k for the spring–damper).
    normal_slope: f64,
    /// d_t (N s/m): friction's damper across the slip.
    friction_slope: f64,
    /// Pushes (not switched off by a pulling solve).
    active: bool,
}

impl PointLaw {
    /// The law carried in the share w ∈ (0, 1] (a pair's law split among its points).
    fn times(self, w: f64) -> PointLaw {
        PointLaw {
            spring: w * self.spring,
            normal_slope: w * self.normal_slope,
            friction_slope: w * self.friction_slope,
            active: self.active,
        }
    }
}

/// Penalty contact of one tree, with its gains, the limit LCP's solver chain and scratch.
pub struct TreePenalty {
    pub params: TreePenaltyParams,
    /// The gains in use: stiffness (N/m) and damping (N s/m) per point.
    pub stiffness: f64,
    pub damping: f64,
    /// ζ(e) of `hunt-crossley`'s exact damping rule (–; module doc).
    zeta: f64,
    /// The tree's mass (kg): the gains' and hunt-crossley's damping bound's.
    mass: f64,
    chain: SolverChain,
    contacts: Vec<GroundContact>,
    link_contacts: Vec<LinkContact>,
    touches: Vec<Touch>,
    /// The pair of each touch (deepest-point and hunt-crossley only; empty under multi-point).
    keys: Vec<PairKey>,
    /// Per touch: its share w of its pair's law and the pair's depth (m), deepest-point and
    /// hunt-crossley only (module doc, "One law per pair").
    shares: Vec<(f64, f64)>,
    /// Pairs this model leaves alone (`hybrid.rs`: those in their impact phase).
    excluded: std::collections::BTreeSet<PairKey>,
    /// Impact speed v_i (m/s) of every pair penetrating at the start of the last step
    /// (hunt-crossley).
    impact: BTreeMap<PairKey, f64>,
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
            .field("zeta", &self.zeta)
            .field("impact_speeds", &self.impact)
            .finish_non_exhaustive()
    }
}

impl TreePenalty {
    /// Gains from `params`, derived from the tree's mass and the step h (s) where not given.
    /// Errors name the parameter out of its range.
    pub fn new(params: TreePenaltyParams, tree: &Tree, h: f64) -> Result<TreePenalty, String> {
        let bad =
            |name: &str, v: f64, range: &str| format!("penalty {name} = {v}: must be {range}");
        if !(params.omega_h > 0.0 && params.omega_h <= 1.0) {
            return Err(bad("omega_h", params.omega_h, "in (0, 1]"));
        }
        if !(params.damping_ratio >= 0.0 && params.damping_ratio.is_finite()) {
            return Err(bad(
                "damping_ratio",
                params.damping_ratio,
                "finite and >= 0",
            ));
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
            return Err(bad(
                "max_recovery_speed",
                s,
                "finite and > 0 (rad/s or m/s)",
            ));
        }
        if !(0.0..=1.0).contains(&params.restitution) {
            return Err(bad("restitution", params.restitution, "in [0, 1]"));
        }
        if !(h > 0.0 && h.is_finite() && params.ground.height.is_finite()) {
            return Err(format!(
                "time step {h} s or ground height not positive and finite"
            ));
        }
        let m: f64 = tree.links().iter().map(|l| l.mass).sum();
        let omega = params.omega_h / h;
        let stiffness = params.stiffness.unwrap_or(m * omega * omega);
        let damping = params
            .damping
            .unwrap_or(2.0 * params.damping_ratio * m * omega);
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
            zeta: DampingLaw::Exact.zeta(params.restitution),
            mass: m,
            chain,
            contacts: Vec::new(),
            link_contacts: Vec::new(),
            touches: Vec::new(),
            keys: Vec::new(),
            shares: Vec::new(),
            excluded: Default::default(),
            impact: BTreeMap::new(),
            laws: Vec::new(),
            jac: Vec::new(),
            links: Vec::new(),
            limits: Vec::new(),
            warm: DVector::zeros(0),
        })
    }

    /// The force (N, world axes) of the law at one penetrating contact moving at `vel` (m/s),
    /// at the start of a step (the explicit value of the module doc's laws; hunt-crossley with
    /// its shape's recorded impact speed, or this contact's approach rate if none).
    pub fn contact_force(&self, c: &GroundContact, vel: DVec3) -> DVec3 {
        let n = Ground::NORMAL;
        let vn = n.dot(vel);
        let fn_ = match self.params.law {
            PenaltyLaw::HuntCrossley => {
                let c_hc = self.hc_damping(PairKey::Ground(c.shape), -vn);
                (self.stiffness * (-c.gap) * (1.0 - c_hc * vn)).max(0.0)
            }
            _ => (self.stiffness * (-c.gap) - self.damping * vn).max(0.0),
        };
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
        check_step(tree, shapes, (q, v), controls, h)?;
        self.links.clear();
        self.links
            .extend_from_slice(forward_kinematics(tree, ws, q, v)?);
        let mut contacts = std::mem::take(&mut self.contacts);
        ground_contacts(shapes, &self.links, self.params.ground, 0.0, &mut contacts);
        self.contacts = contacts;
        let pairs = candidate_pairs(tree, shapes, self.params.self_contact);
        link_contacts(shapes, &pairs, &self.links, 0.0, &mut self.link_contacts);
        if !self.excluded.is_empty() {
            let out = &self.excluded;
            self.contacts
                .retain(|c| !out.contains(&PairKey::Ground(c.shape)));
            self.link_contacts
                .retain(|c| !out.contains(&PairKey::Shapes(c.shape_a, c.shape_b)));
        }
        touches(&self.contacts, &self.link_contacts, &mut self.touches);
        if self.params.law != PenaltyLaw::MultiPoint {
            self.group_pairs();
        }
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

    /// Leave the pairs `pairs` out of the next steps (`hybrid.rs`: the pairs in their impact
    /// phase get impulses, not forces).
    pub(super) fn exclude(&mut self, pairs: impl Iterator<Item = PairKey>) {
        self.excluded.clear();
        self.excluded.extend(pairs);
    }

    /// Each contact's point Jacobian and linearized law at the start of the step; under
    /// hunt-crossley the impact speeds of pairs no longer penetrating are dropped.
    fn linearize(&mut self, tree: &Tree, h: f64) {
        let nv = tree.nv();
        self.jac.resize(self.touches.len() * nv, DVec3::ZERO);
        self.laws.clear();
        for i in 0..self.touches.len() {
            let c = self.touches[i];
            c.jacobian(tree, &self.links, &mut self.jac[i * nv..(i + 1) * nv]);
            let vel = c.velocity(&self.links);
            // Multi-point: each point its own law at its own depth.
            let (share, depth) = self.shares.get(i).copied().unwrap_or((1.0, -c.gap));
            let law = match self.params.law {
                PenaltyLaw::HuntCrossley => {
                    self.hunt_crossley_law(self.keys[i], &c, (vel, depth), h)
                }
                _ => self.spring_damper_law(&c, (vel, depth), h),
            };
            self.laws.push(law.times(share));
        }
        if self.params.law == PenaltyLaw::HuntCrossley {
            let keys = &self.keys;
            self.impact.retain(|k, _| keys.contains(k));
        }
    }

    /// Drumwright's spring–damper at touch `c` moving at `vel` (m/s) with depth `d` (m): P =
    /// k d, S = c + h k.
    fn spring_damper_law(&self, c: &Touch, (vel, d): (DVec3, f64), h: f64) -> PointLaw {
        let n = c.normal;
        let vn = n.dot(vel);
        let normal = (self.stiffness * d - self.damping * vn).max(0.0);
        let slip = (vel - vn * n).length().max(self.params.slip_speed);
        PointLaw {
            spring: self.stiffness * d,
            normal_slope: self.damping + h * self.stiffness,
            friction_slope: c.friction * normal / slip,
            active: true,
        }
    }

    /// Hunt–Crossley at touch `c` of pair `key` moving at `vel` (m/s), linearized (module doc):
    /// P = k d, S = h k (1 + c ẋ) + k c d; no force where 1 + c ẋ ≤ 0. Records the pair's
    /// impact speed if it has none.
    fn hunt_crossley_law(
        &mut self,
        key: PairKey,
        c: &Touch,
        (vel, d): (DVec3, f64),
        h: f64,
    ) -> PointLaw {
        let n = c.normal;
        let vn = n.dot(vel);
        let (k, rate) = (self.stiffness, -vn);
        self.impact.entry(key).or_insert(rate.max(MIN_IMPACT_SPEED));
        // The damper k d c at most MAX_STEP_DAMPING m / h (the free bodies' bound,
        // `hunt_crossley::resolvable_damping`, with the tree's mass for the pair's effective
        // mass): past it a larger c changes the step's outcome by < 1 % of the velocity.
        let cap = MAX_STEP_DAMPING * self.mass / (h * k * d);
        let c_hc = self.hc_damping(key, rate).min(cap);
        // Separating faster than 1/c the law is 0 at the start, but its linearization is kept
        // (its slope k d c is what holds a settling contact), and the step's "never pulls"
        // switch decides at the end of the step, as the free bodies' implicit step does.
        let factor = (1.0 + c_hc * rate).max(0.0);
        let slip = (vel - vn * n).length().max(self.params.slip_speed);
        PointLaw {
            spring: k * d,
            normal_slope: h * k * factor + k * c_hc * d,
            friction_slope: c.friction * k * d * factor / slip,
            active: true,
        }
    }

    /// c = ζ(e) / v_i (s/m) of pair `key`: v_i its recorded impact speed, else `rate` (m/s), at
    /// least [`MIN_IMPACT_SPEED`].
    fn hc_damping(&self, key: PairKey, rate: f64) -> f64 {
        let v_i = self.impact.get(&key).copied().unwrap_or(rate);
        self.zeta / v_i.max(MIN_IMPACT_SPEED)
    }

    /// Each touch's pair and its share of the pair's law (module doc, "One law per pair"):
    /// weighted, every touch w = d / Σ d of its pair and the pair's deepest depth; otherwise only
    /// the deepest touch of each pair (the first on a tie), in the touches' order, w = 1.
    fn group_pairs(&mut self) {
        self.keys.clear();
        self.keys
            .extend(self.contacts.iter().map(|c| PairKey::Ground(c.shape)));
        let shapes = self.link_contacts.iter();
        self.keys
            .extend(shapes.map(|c| PairKey::Shapes(c.shape_a, c.shape_b)));
        // A pair's touches are contiguous (`ground_contacts`: shape then vertex order;
        // `link_contacts`: pair order): one run per pair, compacted in place.
        let (mut kept, mut start) = (0, 0);
        self.shares.clear();
        while start < self.touches.len() {
            let key = self.keys[start];
            let end = start + self.keys[start..].iter().take_while(|k| **k == key).count();
            // Its deepest touch (the first on a tie) and the sum of its depths.
            let (mut best, mut sum) = (start, 0.0);
            for i in start..end {
                if self.touches[i].gap < self.touches[best].gap {
                    best = i;
                }
                sum += -self.touches[i].gap;
            }
            let depth = -self.touches[best].gap;
            for i in start..end {
                let share = match self.params.weighted {
                    true => -self.touches[i].gap / sum,
                    false if best == i => 1.0,
                    false => continue,
                };
                self.touches[kept] = self.touches[i];
                self.keys[kept] = self.keys[i];
                self.shares.push((share, depth));
                kept += 1;
            }
            start = end;
        }
        self.touches.truncate(kept);
        self.keys.truncate(kept);
    }

    /// A = base_a + h Σ Jᵀ W J and b = base_b + h Σ Jᵀ n P over the active points, W =
    /// S n nᵀ + d_t (I − n nᵀ): the normal law (P, S) and regularized Coulomb friction
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

    /// Switch off every active point whose end-of-step normal force P − S v_n⁺ pulls; whether
    /// one was.
    fn switch_off_pulling(&mut self, v_new: &DVector<f64>) -> bool {
        let nv = v_new.len();
        let mut any = false;
        for (i, law) in self.laws.iter_mut().enumerate().filter(|(_, l)| l.active) {
            let jac = &self.jac[i * nv..(i + 1) * nv];
            let n = self.touches[i].normal;
            let vn: f64 = jac
                .iter()
                .zip(v_new.iter())
                .map(|(c, w)| n.dot(*c) * w)
                .sum();
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
        let law = self.params.law.name();
        let what = || format!("the joint-limit LCP of {nl} rows ({law} on a tree)");
        let (z, report) = self.chain.solve(&problem, &warm, what)?;
        *v_new += &y * &z;
        stats.solved(nl, &report);
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
