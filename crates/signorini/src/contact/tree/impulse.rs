//! Impulse-based contact of a tree (issue 18: "impulse laws use the articulated collision
//! matrix (Mirtich)"): the free bodies' collision laws (`contact::impulse::law`: Newton,
//! Poisson, Stronge with Mirtich's integration, the algebraic baseline) applied one point at a
//! time in generalized coordinates, in the one-pass step of Guendelman, Bridson & Fedkiw (2003)
//! as Drumwright (2008, §II-E) describes it and the free bodies' `impulse` model runs it
//! (`LoopVariant::Guendelman`, `pipeline::impulse`).
//!
//! **Collision matrix** (Mirtich 1996, impulses on articulated bodies in generalized
//! coordinates; Drumwright §II-C). An impulse P (components in the contact frame R = [t1 t2 n],
//! n from A to B) acting +P on B and −P on A at the point m changes v through the rows
//! G = Rᵀ J (3 × nv; J = J_B(m) − J_A(m), the point Jacobians `ground::point_jacobian`):
//!
//! ```text
//!   Δv = A⁻¹ Gᵀ P,    Δu = G Δv = K P,    K = G A⁻¹ Gᵀ = R (J A⁻¹ Jᵀ) Rᵀ        (M1)
//! ```
//!
//! K is the 3 × 3 collision matrix of the laws' (L1) with the tree in place of two free bodies:
//! symmetric, positive semidefinite, constant over the collision. For a free body on a floating
//! joint it is (L1) exactly ([`collision_matrix`]; test `mirtich_matrix_of_a_floating_body_is_
//! the_free_bodies`). Mirtich obtains it with test impulses through Featherstone's
//! articulated-body algorithm (O(n) a column); here A is factored once a step (dense Cholesky)
//! and K = G Y with Y = A⁻¹ Gᵀ by its solves: the same matrix.
//!
//! **Step** (one pass, no regression to the time of impact; ψ the gap, u = G v, u_n its normal
//! component, ψ̃/h = `time_stepping::position_term(ψ, h, max_recovery_speed)`, tol = `tolerance`;
//! rows in the touches' order: ground contacts, pair contacts, then joint limits):
//!
//! ```text
//!   FK; rows: touches with ψ < activation_distance, joint limits with gap < limit_activation
//!   A, b = joint_system(q, v, h)      A = H + h D_u + h² K_u,  b = H v + h (τ + D_u v − C)
//!   A = L Lᵀ;  Y = A⁻¹ Gᵀ;  K_r = G_r Y_r                                          (M1)
//!   v_ℓ = A⁻¹ b (the LCP model's free velocity, `lcp.rs`);  v₀ = v
//!   collisions, compression: P_r = 0; sweep the rows in order, each re-solved:
//!       u⁻ʳ = G_r v − K_r P_r                        the velocity the other rows leave r
//!       P_r' = collide(law, K_r, u⁻ʳ, μ, 0)  if u⁻ʳ_n < −tol and ψ + h u⁻ʳ_n < 0, else 0
//!       v ← v + Y_r (P_r' − P_r);  P_r ← P_r'
//!     until a sweep changes no row's u by more than tol, or max_sweeps
//!   collisions, restitution (e > 0), from the same state for every row with P_r ≠ 0:
//!       alone in its group:  P_r ← collide(law, K_r, u⁻ʳ, μ, e)       the law itself
//!       in a group of more:  P_r ← (1 + e) P_r                        Poisson, (L4b)
//!   velocities: v ← v + (v_ℓ − v₀)          i.e.  A v = b + Σ G_rᵀ P_r
//!   contacts: P_r = the last step's contact impulse of the same row (warm start), v ← v + Y P;
//!     sweeps as above with
//!       P_r' = collide(law, K_r, u⁻ʳ + (ψ̃/h) n, μ, 0)  if u⁻ʳ_n + ψ̃/h < −tol, else 0
//!     (the law leaves the shifted velocity at u_n = 0: u_n = −ψ̃/h), until no row's u
//!     changes by more than tol and every u_n ≥ −ψ̃/h − tol; after max_sweeps: on_failure
//!   q ← q ⊕ h v
//! ```
//!
//! A group is the bodies (roots of the forest) that the rows with an impulse join, each pair
//! row joining its two. With no contact v⁺ = v_ℓ, the LCP model's free velocity; with contact
//! A v⁺ = b + Σ Gᵀ P over both stages' impulses, the form of the LCP model's A v⁺ = b + Gᵀ z:
//! the two models differ only in how the impulses are found. Joint limits are rows too: one
//! row ±e_j (+ for q − lo, − for hi − q; gap ψ in rad or m), K = A⁻¹_jj in its normal entry, no
//! friction, the same two stages.
//!
//! **The rule** of each stage is Guendelman's: a collision is an approach that the positions
//! predicted with the current velocities, ψ + h u_n, would turn into an overlap; it bounces
//! with the law and restitution e. After the forces' velocity update, the contact stage stops
//! every approach that would still overlap at the end of the step, plastically (e = 0).
//!
//! **Departures** (each ours, stated here):
//! - **Re-solved rows.** A visit replaces the row's impulse of the stage by the law's answer
//!   for the velocity the other rows leave it, rather than adding the law's impulse for the
//!   current velocity (Mirtich's and Guendelman's sequential impulses, the free bodies'
//!   `sequential`): a row's impulse can shrink again, and the sweeps are a block Gauss–Seidel
//!   iteration (the law the block's solver) whose fixed point, without friction, is the
//!   simultaneous plastic impulse of the rows (the velocities unique). Impulses that only add
//!   leave whatever the first corner's impulse started: measured before the change, a box
//!   dropped flat from 0.5 m (e = 0.5, no friction) bounced to 0.110 m (e²H = 0.125 m) spinning
//!   at 12 rad/s, at e = 1 to 0.197 m (0.5 m), and a box resting on the ground drifted 3.4 mm
//!   and turned at 0.01 rad/s after 2 s (the free bodies' `guendelman` loop's creep,
//!   docs/impulse.md).
//! - **Restitution of simultaneous impacts** is Poisson's: the group's compression impulses
//!   times 1 + e, so v⁺ = v_c + e (v_c − v₀) over the group — every law's answer for one point
//!   without friction (the laws' module doc), a flat box's bounce whatever the friction, and it
//!   never gains energy without friction (ΔT = −½ (1 − e²) P_cᵀ W P_c). Each row's law applied
//!   as if alone did: the flat box with μ = 0.5, e = 0.5 bounced to 0.369 m under Newton's law
//!   and 0.215 m under Stronge's (0.125 m). A row alone in its group gets its law exactly.
//! - The impulses change v through A⁻¹, not H⁻¹: with joint damping or servos (A ≠ H) an
//!   impulse meets the implicit damper over the step, as in the LCP model; without them A = H and
//!   K is Mirtich's matrix exactly. The collision stage dissipates in the metric of A (the laws'
//!   (L5)); kinetic energy ½ vᵀHv is guaranteed not to rise when A = H.
//! - The contact stage's target is u_n ≥ −ψ̃/h (a gap is closed within the step, an overlap
//!   removed at no more than `max_recovery_speed`), the LCP model's bounded position term, where
//!   Guendelman stop the approach (u_n ≥ 0) and correct positions separately; sweeps go until
//!   the rows' velocities settle to `tolerance`, not a fixed count; the contact stage starts
//!   from the last step's impulses of the same rows (keys: a ground contact's shape and vertex,
//!   a pair contact's shapes and rank in the pair, a limit's degree of freedom and side); there
//!   is no shock propagation.
//! - A pair's impulse acts at one point, the midpoint of its two points ([`impulse_point`]), as
//!   the free bodies' impulses do (`sequential::ImpactPoint`): +P and −P are collinear, so linear
//!   and angular momentum are conserved exactly. The LCP and penalty models use J_B(p_B) −
//!   J_A(p_A), which turns a friction impulse P_t into the couple (p_B − p_A) × P_t.
//! - **Rank.** A point whose path to the root has fewer than three degrees of freedom has a
//!   singular K (a pendulum's tip: rank 1), which the laws refuse. The law is given K + ε diag(1,
//!   1, 0), ε = 1e-10 tr K: the normal entry exact, so a frictionless impulse is exact; a
//!   tangential impulse in K's null space moves nothing (A⁻¹ Gᵀ P = 0 there) and the law sees it
//!   change the slip by ε P only. If that is still not positive definite (a grazing point whose
//!   null space is nearly normal), K + ε I. A row with K_nn ≤ 1e-12 tr K cannot be pushed along
//!   its normal (then G_n v = 0 for every v: it can neither approach nor be pushed) and is left
//!   out.
//! - The collision stage never fails: what it leaves approaching after `max_sweeps` is stopped
//!   by the contact stage. Only the contact stage counts for `on_failure`; its residual is the
//!   larger of the last sweep's largest velocity change and the largest shortfall −ψ̃/h − u_n.
//! - A law whose integration fails at a point (Mirtich's integration out of steps) stops the
//!   step under `on_failure = "stop"`; under "continue" the point gets the algebraic Newton
//!   impulse instead, counted in [`TreeImpulse::law_fallbacks`], as the free model's fallback.
//! - Rows are visited in the touches' order: deterministic. Near-parallel rows (the two
//!   vertices of a polygonal wheel's lowest edge) converge slowly under Gauss–Seidel (a
//!   shortfall fell by about 1 % a sweep on the mobile robot): hence the defaults tolerance = 1e-5 m/s (an approach left
//!   sinks the point by at most tol h = 1e-8 m a step at h = 1 ms, and the next step's position
//!   term takes it back) and max_sweeps = 1000 (the mobile robot needed up to 557, the
//!   humanoid 153; with 1e-6 m/s, 1000 sweeps missed on two steps of 500). Friction coupled
//!   into the normal direction (K_nt ≠ 0) between such rows can make the sweeps wander without
//!   settling: 2 of the mobile robot's 2,500 steps end at max_sweeps with a shortfall of 1.08e-5
//!   m/s. Hence `on_failure = "continue"` by default, as the free `impulse` model's
//!   `on_unresolved`: the step is taken and counted (`TreeStepStats::failed`, `residual`).
//!   `algebraic-newton` ignores K_nt in its exit velocity, so a sliding point is left short of
//!   its target whatever the sweeps (the mobile robot: 1,748 of 2,500 steps, up to 0.035 m/s):
//!   it suits the collision stage, not resting contact.
//!
//! Units SI: m, m/s, N s (rad, rad/s, N m s for rotational limits).
use super::ground::{add_point_jacobian, ground_contacts, point_jacobian};
use super::lcp::{check_step, joint_limits, Limit, TreeContactError};
use super::pairs::{candidate_pairs, link_contacts, touches, LinkContact, Touch};
use super::params::{number, on_off, spec, stop_or_continue, unknown, whole, word, TreeParamSpec};
use super::penalty::{joint_system, PairKey};
use super::{Ground, GroundContact, LinkShape, TreeStepStats};
use crate::contact::impulse::law::{
    check_collision_matrix, collide, ContactFrame, IntegrationOptions, Law, LawError,
};
use crate::contact::impulse::model::LAW_PARAM;
use crate::contact::time_stepping::position_term;
use crate::contact::{ContactError, ParamDefault, ParamInput};
use crate::multibody::algorithms::forward_kinematics;
use crate::multibody::integrate::advance_positions;
use crate::multibody::{Controls, LinkKinematics, MultibodyError, Tree, Workspace};
use glam::{DMat3, DVec3};
use nalgebra::{Cholesky, DMatrix, DVector, Dyn};

/// `TreeStepStats::solver` of a step with impulse rows.
pub const SOLVER: &str = "sequential-impulses";
/// ε / tr K of the law's regularized collision matrix (module doc, "Rank").
const REGULARIZATION: f64 = 1e-10;
/// A row with K_nn at most this times tr K is left out (module doc, "Rank").
const NORMAL_FLOOR: f64 = 1e-12;

/// Parameters of impulse-based contact on a tree.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TreeImpulseParams {
    /// The collision law of every impulse (default: the free bodies' `impulse` model's default
    /// `law`, Stronge).
    pub law: Law,
    /// Coefficient of restitution e of the collision stage (–, in [0, 1]; default 0, the free
    /// bodies' default material's).
    pub restitution: f64,
    /// Contact points with gap ψ below this are rows (m, ≥ 0; default 0.01, as the LCP's).
    pub activation_distance: f64,
    /// Joint limits with gap below this are rows (rad or m, ≥ 0; default 0.1, as the LCP's).
    pub limit_activation: f64,
    /// Gauss–Seidel sweeps per stage before giving up (–, ≥ 1; default 1000, module doc).
    pub max_sweeps: usize,
    /// A row approaching faster than this (beyond its target) gets an impulse; a stage is done
    /// when a sweep changes no row's velocity by more and (contacts) none is short of its
    /// target by more (m/s, or rad/s for a limit; > 0; default 1e-5, module doc).
    pub tolerance: f64,
    /// Bound of the speed at which an overlap is removed (m/s, or rad/s for a limit; > 0;
    /// default 0.5, as the LCP's).
    pub max_recovery_speed: f64,
    /// When the contact stage misses its tolerance after `max_sweeps`: "continue" (default, as
    /// the free `impulse` model's `on_unresolved`: the step is taken, `TreeStepStats::failed`
    /// and `residual` report it, and a law whose integration fails at a point falls back to the
    /// algebraic law) or "stop" (the step is an error naming the residual).
    pub on_failure: &'static str,
    /// Contact between the links of one body (`pairs.rs`; default false).
    pub self_contact: bool,
    pub ground: Ground,
}

/// The free bodies' `impulse` model's default law (its `law` parameter's default).
fn default_law() -> Law {
    match LAW_PARAM.default {
        ParamDefault::Word(w) => Law::by_name(w).unwrap_or(Law::Stronge),
        _ => Law::Stronge,
    }
}

impl Default for TreeImpulseParams {
    fn default() -> Self {
        TreeImpulseParams {
            law: default_law(),
            restitution: 0.0,
            activation_distance: 0.01,
            limit_activation: 0.1,
            max_sweeps: 1000,
            tolerance: 1e-5,
            max_recovery_speed: 0.5,
            on_failure: "continue",
            self_contact: false,
            ground: Ground::at(0.0),
        }
    }
}

/// `impulse` on a tree (`TreeImpulse`), by name (the command line's `--param NAME=VALUE`).
pub const IMPULSE_PARAMS: &[TreeParamSpec] = &[
    spec("law", "-", "stronge", "collision law of every impulse: stronge, newton, poisson (Mirtich's integration with Coulomb friction) or algebraic-newton"),
    spec("restitution", "-", "0", "coefficient of restitution e of the collision stage, in [0, 1] (the free bodies' default material's)"),
    spec("activation_distance", "m", "0.01", "contact points with gap below this are impulse rows, >= 0"),
    spec("limit_activation", "rad or m", "0.1", "joint limits with gap below this are impulse rows, >= 0"),
    spec("max_sweeps", "-", "1000", "Gauss-Seidel sweeps of each stage before giving up, a whole number >= 1"),
    spec("tolerance", "m/s", "1e-5", "a point approaching faster than this (beyond its target) gets an impulse; a stage is done when a sweep changes no point's velocity by more and (contacts) none is short of its target by more, > 0"),
    spec("max_recovery_speed", "m/s", "0.5", "bound of the speed at which an overlap is removed, > 0"),
    spec("on_failure", "-", "continue", "when the contact stage misses the tolerance after max_sweeps: continue (the step is taken and counted; a failed law integration falls back to algebraic-newton) or stop (the run ends)"),
    spec("self_contact", "-", "off", "on: the links of one body touch each other (never a parent and its child); off: only different bodies and the ground"),
];

impl TreeImpulseParams {
    /// Set the parameter `name` (one of [`IMPULSE_PARAMS`]) to `value`. Errors: an unknown name
    /// (the message lists the parameters), a value of the wrong kind, an unknown law. Ranges are
    /// checked by [`TreeImpulse::new`].
    pub fn set(&mut self, name: &str, value: &ParamInput) -> Result<(), String> {
        match name {
            "law" => {
                self.law = word(value).and_then(Law::by_name).ok_or_else(|| {
                    let laws: Vec<&str> = Law::ALL.iter().map(|l| l.name()).collect();
                    format!("law = {value}: must be one of {}", laws.join(", "))
                })?
            }
            "restitution" => self.restitution = number(name, value)?,
            "activation_distance" => self.activation_distance = number(name, value)?,
            "limit_activation" => self.limit_activation = number(name, value)?,
            "max_sweeps" => self.max_sweeps = whole(name, value)?,
            "tolerance" => self.tolerance = number(name, value)?,
            "max_recovery_speed" => self.max_recovery_speed = number(name, value)?,
            "on_failure" => self.on_failure = stop_or_continue(value)?,
            "self_contact" => self.self_contact = on_off(name, value)?,
            _ => return Err(unknown(name, "impulse", IMPULSE_PARAMS)),
        }
        Ok(())
    }

    /// Every range, or a message naming the first parameter out of its range.
    fn check(&self) -> Result<(), String> {
        let bad =
            |name: &str, v: f64, range: &str| format!("impulse {name} = {v}: must be {range}");
        let (finite_nonneg, positive) = (
            |x: f64| x.is_finite() && x >= 0.0,
            |x: f64| x.is_finite() && x > 0.0,
        );
        if !(finite_nonneg(self.restitution) && self.restitution <= 1.0) {
            return Err(bad("restitution", self.restitution, "in [0, 1]"));
        }
        if !finite_nonneg(self.activation_distance) {
            let a = self.activation_distance;
            return Err(bad("activation_distance", a, "finite and >= 0 (m)"));
        }
        if !finite_nonneg(self.limit_activation) {
            let a = self.limit_activation;
            return Err(bad("limit_activation", a, "finite and >= 0 (rad or m)"));
        }
        if self.max_sweeps == 0 {
            return Err("impulse max_sweeps = 0: must be at least 1".into());
        }
        if !positive(self.tolerance) {
            return Err(bad("tolerance", self.tolerance, "finite and > 0 (m/s)"));
        }
        if !positive(self.max_recovery_speed) {
            let s = self.max_recovery_speed;
            return Err(bad("max_recovery_speed", s, "finite and > 0 (m/s)"));
        }
        if !matches!(self.on_failure, "stop" | "continue") {
            return Err(format!(
                "impulse on_failure = \"{}\": must be \"stop\" or \"continue\"",
                self.on_failure
            ));
        }
        let g = self.ground;
        if !(g.height.is_finite() && g.friction.is_none_or(finite_nonneg)) {
            return Err(format!(
                "impulse ground: height {} m must be finite and friction {:?} finite and >= 0",
                g.height, g.friction
            ));
        }
        Ok(())
    }
}

/// Which stage a sweep belongs to (module doc).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stage {
    Collisions,
    Contacts,
}

/// One impulse row of a step: a touch or a joint limit.
#[derive(Clone, Copy, Debug)]
struct Row {
    /// ψ (m; rad or m for a limit).
    gap: f64,
    /// μ (–; 0 for a limit).
    friction: f64,
    /// K (M1), contact frame (1/kg; 1/(kg m²) for a rotational limit).
    k: DMat3,
    /// The matrix the law is given (module doc, "Rank"); `None`: the row is left out.
    law: Option<DMat3>,
    /// The bodies (root links) of B and, for a pair, A; a limit's body.
    bodies: (usize, Option<usize>),
    /// Left out of the collision stage (`hybrid.rs`: a pair in its resting phase, or a limit).
    resting: bool,
}

/// A row's identity across steps (`TreeImpulse::collect_keys`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum RowKey {
    /// A shape's vertex on the ground: (shape, vertex).
    Ground(usize, usize),
    /// A shape pair's contact: (shape a, shape b, rank within the pair).
    Pair(usize, usize, usize),
    /// A joint limit: (degree of freedom, upper).
    Limit(usize, bool),
}

/// How a stage's sweeps ended.
#[derive(Clone, Copy, Debug, Default)]
struct Sweeps {
    count: usize,
    /// The last sweep's largest change of a row's velocity (m/s, any component).
    change: f64,
    converged: bool,
}

/// Impulse-based contact of one tree (module doc), with its scratch.
pub struct TreeImpulse {
    pub params: TreeImpulseParams,
    options: IntegrationOptions,
    links: Vec<LinkKinematics>,
    contacts: Vec<GroundContact>,
    link_contacts: Vec<LinkContact>,
    touches: Vec<Touch>,
    limits: Vec<Limit>,
    rows: Vec<Row>,
    jac: Vec<DVec3>,
    /// Gᵀ: nv × 3 per row, the row's (t1, t2, n) columns (a limit: its normal column only).
    gt: DMatrix<f64>,
    /// Y = A⁻¹ Gᵀ.
    y: DMatrix<f64>,
    /// The velocities being updated.
    vel: DVector<f64>,
    /// Each row's impulse in the current stage (contact frame, N s).
    impulses: Vec<DVec3>,
    /// The restitution's changes of the impulses (N s).
    changes: Vec<DVec3>,
    /// The rows' velocities before a sweep (m/s).
    before: Vec<DVec3>,
    /// The rows' keys, and the last contact stage's impulses by key (sorted).
    keys: Vec<RowKey>,
    warm: Vec<(RowKey, DVec3)>,
    /// Union–find over the links (bodies by their roots) and the rows per group.
    union: Vec<usize>,
    group: Vec<usize>,
    law_fallbacks: u64,
}

impl std::fmt::Debug for TreeImpulse {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TreeImpulse")
            .field("params", &self.params)
            .field("law_fallbacks", &self.law_fallbacks)
            .finish_non_exhaustive()
    }
}

impl TreeImpulse {
    /// Errors name the parameter out of its range.
    pub fn new(params: TreeImpulseParams) -> Result<TreeImpulse, String> {
        params.check()?;
        Ok(TreeImpulse {
            params,
            options: IntegrationOptions::default(),
            links: Vec::new(),
            contacts: Vec::new(),
            link_contacts: Vec::new(),
            touches: Vec::new(),
            limits: Vec::new(),
            rows: Vec::new(),
            jac: Vec::new(),
            gt: DMatrix::zeros(0, 0),
            y: DMatrix::zeros(0, 0),
            vel: DVector::zeros(0),
            impulses: Vec::new(),
            changes: Vec::new(),
            before: Vec::new(),
            keys: Vec::new(),
            warm: Vec::new(),
            union: Vec::new(),
            group: Vec::new(),
            law_fallbacks: 0,
        })
    }

    /// Impulses the algebraic Newton law gave because the chosen law's integration failed
    /// (`on_failure = "continue"`), over every step so far.
    pub fn law_fallbacks(&self) -> u64 {
        self.law_fallbacks
    }

    /// One step of length h (s) from (q, v) under `controls` (module doc): collisions, the
    /// velocity update, contacts, then q⁺ = q ⊕ h v⁺. On an error (q, v) are unchanged.
    pub fn step(
        &mut self,
        tree: &Tree,
        ws: &mut Workspace,
        shapes: &[LinkShape],
        (q, v): (&mut [f64], &mut [f64]),
        controls: &Controls,
        h: f64,
    ) -> Result<TreeStepStats, TreeContactError> {
        let v_free = self.prepare(tree, ws, shapes, (q, v), controls, h)?;
        let mut stats = self.stats();
        let collision_sweeps = self.collisions(tree, h)?;
        // A v = b + A (v_c − v₀): the collision impulses kept, the forces' update added.
        for (j, w) in self.vel.iter_mut().enumerate() {
            *w += v_free[j] - v[j];
        }
        let contacts = self.sweeps(tree, Stage::Contacts, h)?;
        stats.iterations = collision_sweeps + contacts.count;
        let (shortfall, worst) = self.shortfall(h);
        stats.residual = contacts.change.max(shortfall);
        if !contacts.converged {
            if self.params.on_failure == "stop" {
                return Err(self.unresolved(tree, stats.residual, worst));
            }
            stats.failed = true;
        }
        self.remember();
        advance_positions(tree, q, self.vel.as_slice(), h);
        v.copy_from_slice(self.vel.as_slice());
        Ok(stats)
    }

    /// The start of a step at (q, v) — detection, the step's matrix A and the rows, the stages'
    /// velocity set to v — without changing (q, v); returns the free velocity v_ℓ = A⁻¹ b.
    /// `hybrid.rs` goes on with [`Self::touch_rows`] and [`Self::collide_pairs`].
    pub(super) fn prepare(
        &mut self,
        tree: &Tree,
        ws: &mut Workspace,
        shapes: &[LinkShape],
        (q, v): (&[f64], &[f64]),
        controls: &Controls,
        h: f64,
    ) -> Result<DVector<f64>, TreeContactError> {
        check_step(tree, shapes, (q, v), controls, h)?;
        self.detect(tree, ws, shapes, (q, v))?;
        let (a, b) = joint_system(tree, ws, (q, v), controls, h)?;
        let chol = Cholesky::new(a).ok_or(TreeContactError::SingularMass)?;
        self.build_rows(tree, &chol)?;
        self.vel = DVector::from_column_slice(v);
        Ok(chol.solve(&b))
    }

    /// Each contact row's pair, gap ψ (m) and normal velocity u_n (m/s, > 0 separating) at the
    /// current velocities, in row order.
    pub(super) fn touch_rows(&self) -> impl Iterator<Item = (PairKey, f64, f64)> + '_ {
        (0..self.touches.len()).map(|r| (self.pair_of(r), self.rows[r].gap, self.velocity(r).z))
    }

    /// The pair of contact row r.
    fn pair_of(&self, r: usize) -> PairKey {
        match r.checked_sub(self.contacts.len()) {
            None => PairKey::Ground(self.contacts[r].shape),
            Some(i) => {
                PairKey::Shapes(self.link_contacts[i].shape_a, self.link_contacts[i].shape_b)
            }
        }
    }

    /// The collision stage (module doc) on the contact rows whose pair `impacting` names (the
    /// others and the limits left out); its sweeps. The velocities after it: [`Self::velocity_now`].
    pub(super) fn collide_pairs(
        &mut self,
        tree: &Tree,
        h: f64,
        impacting: impl Fn(PairKey) -> bool,
    ) -> Result<usize, TreeContactError> {
        let mut any = false;
        for r in 0..self.rows.len() {
            let resting = r >= self.touches.len() || !impacting(self.pair_of(r));
            self.rows[r].resting = resting;
            any |= !resting;
        }
        match any {
            true => self.collisions(tree, h),
            false => Ok(0),
        }
    }

    /// The generalized velocity v (m/s, rad/s) as the stages left it.
    pub(super) fn velocity_now(&self) -> &[f64] {
        self.vel.as_slice()
    }

    /// Forward kinematics, the touches within the activation distance and the joint limits
    /// within theirs, at (q, v). A shape on a link the tree does not have is an error.
    fn detect(
        &mut self,
        tree: &Tree,
        ws: &mut Workspace,
        shapes: &[LinkShape],
        (q, v): (&[f64], &[f64]),
    ) -> Result<(), TreeContactError> {
        self.links.clear();
        self.links
            .extend_from_slice(forward_kinematics(tree, ws, q, v)?);
        let (reach, ground) = (self.params.activation_distance, self.params.ground);
        ground_contacts(shapes, &self.links, ground, reach, &mut self.contacts);
        let pairs = candidate_pairs(tree, shapes, self.params.self_contact);
        link_contacts(shapes, &pairs, &self.links, reach, &mut self.link_contacts);
        touches(&self.contacts, &self.link_contacts, &mut self.touches);
        joint_limits(tree, q, self.params.limit_activation, &mut self.limits);
        Ok(())
    }

    /// The rows of the step: Gᵀ, Y = A⁻¹ Gᵀ (A factored in `chol`), each row's K (M1) and its
    /// key across steps.
    fn build_rows(
        &mut self,
        tree: &Tree,
        chol: &Cholesky<f64, Dyn>,
    ) -> Result<(), TreeContactError> {
        let (nv, nt) = (tree.nv(), self.touches.len());
        let n = nt + self.limits.len();
        self.gt.resize_mut(nv, 3 * n, 0.0);
        self.gt.fill(0.0);
        self.jac.resize(nv, DVec3::ZERO);
        for (r, t) in self.touches.iter().enumerate() {
            let frame =
                ContactFrame::from_normal(t.normal).map_err(|error| law_failure(tree, t, error))?;
            touch_jacobian(tree, &self.links, t, &mut self.jac);
            write_rows(&mut self.gt, r, &frame, &self.jac);
        }
        for (l, limit) in self.limits.iter().enumerate() {
            self.gt[(limit.dof, 3 * (nt + l) + 2)] = limit.sign;
        }
        self.y.resize_mut(nv, 3 * n, 0.0);
        self.y.copy_from(&self.gt);
        chol.solve_mut(&mut self.y);
        self.rows.clear();
        for r in 0..n {
            let row = self.row(tree, r);
            self.rows.push(row);
        }
        self.collect_keys();
        Ok(())
    }

    /// Row r's gap, friction, K and bodies (Gᵀ and Y written).
    fn row(&self, tree: &Tree, r: usize) -> Row {
        let k = block(&self.gt, &self.y, r);
        let (gap, friction, bodies) = match self.touches.get(r) {
            Some(t) => {
                let bodies = (body(tree, t.b.0), t.a.map(|a| body(tree, a.0)));
                (t.gap, t.friction, bodies)
            }
            None => {
                let limit = &self.limits[r - self.touches.len()];
                (limit.gap, 0.0, (body(tree, limit_link(tree, limit)), None))
            }
        };
        Row {
            gap,
            friction,
            k,
            law: law_matrix(&k),
            bodies,
            resting: false,
        }
    }

    /// The rows' keys, in row order: ground contacts by (shape, vertex), pair contacts by
    /// (shape pair, rank within the pair), limits by (degree of freedom, side).
    fn collect_keys(&mut self) {
        self.keys.clear();
        let ground = self.contacts.iter();
        self.keys
            .extend(ground.map(|c| RowKey::Ground(c.shape, c.vertex)));
        let mut nth = 0;
        for (i, c) in self.link_contacts.iter().enumerate() {
            let prev = i.checked_sub(1).map(|j| &self.link_contacts[j]);
            let same = prev.is_some_and(|p| (p.shape_a, p.shape_b) == (c.shape_a, c.shape_b));
            nth = if same { nth + 1 } else { 0 };
            self.keys.push(RowKey::Pair(c.shape_a, c.shape_b, nth));
        }
        let limits = self.limits.iter();
        self.keys
            .extend(limits.map(|l| RowKey::Limit(l.dof, l.sign < 0.0)));
    }

    /// The stage's first impulses, applied to v: the contact stage's of the last step for rows
    /// with the same key (warm start), zero for the collision stage.
    fn start_impulses(&mut self, stage: Stage) {
        self.impulses.clear();
        for r in 0..self.rows.len() {
            let key = self.keys[r];
            let p = match self.warm.binary_search_by(|(k, _)| k.cmp(&key)) {
                Ok(i) if stage == Stage::Contacts && self.rows[r].law.is_some() => self.warm[i].1,
                _ => DVec3::ZERO,
            };
            self.impulses.push(p);
            self.apply(r, p);
        }
    }

    /// Keep the contact stage's impulses by key for the next step's warm start.
    fn remember(&mut self) {
        self.warm.clear();
        let rows = self.keys.iter().zip(&self.impulses);
        self.warm.extend(
            rows.filter(|(_, p)| **p != DVec3::ZERO)
                .map(|(k, p)| (*k, *p)),
        );
        self.warm.sort_by_key(|w| w.0);
    }

    fn stats(&self) -> TreeStepStats {
        let pen = self.touches.iter().filter(|c| c.gap < 0.0);
        TreeStepStats {
            contacts: self.touches.len(),
            penetrating: pen.clone().count(),
            max_penetration: pen.map(|c| -c.gap).fold(0.0, f64::max),
            limit_rows: self.limits.len(),
            solver: if self.rows.is_empty() { "" } else { SOLVER },
            ..TreeStepStats::default()
        }
    }

    /// The collision stage (module doc): the compression's sweeps, then the restitution;
    /// returns the sweeps done.
    fn collisions(&mut self, tree: &Tree, h: f64) -> Result<usize, TreeContactError> {
        let sweeps = self.sweeps(tree, Stage::Collisions, h)?;
        if self.params.restitution > 0.0 {
            self.restitution(tree)?;
        }
        Ok(sweeps.count)
    }

    /// Sweeps of `stage` over the rows in order, each row re-solved ([`Self::visit`]), until a
    /// sweep changes no row's velocity by more than the tolerance and (contacts) every row meets
    /// its target to within it, or `max_sweeps`.
    fn sweeps(&mut self, tree: &Tree, stage: Stage, h: f64) -> Result<Sweeps, TreeContactError> {
        self.start_impulses(stage);
        let mut out = Sweeps::default();
        let tol = self.params.tolerance;
        while !self.rows.is_empty() && out.count < self.params.max_sweeps {
            out.count += 1;
            self.before.clear();
            for r in 0..self.rows.len() {
                self.before.push(self.velocity(r));
            }
            for r in 0..self.rows.len() {
                self.visit(tree, r, stage, h)?;
            }
            out.change = (0..self.rows.len())
                .map(|r| (self.velocity(r) - self.before[r]).abs().max_element())
                .fold(0.0, f64::max);
            let shortfall = match stage {
                Stage::Collisions => 0.0,
                Stage::Contacts => self.shortfall(h).0,
            };
            if out.change <= tol && shortfall <= tol {
                break;
            }
        }
        out.converged =
            out.change <= tol && (stage == Stage::Collisions || self.shortfall(h).0 <= tol);
        Ok(out)
    }

    /// Row r's velocity u = G_r v (contact frame, m/s).
    fn velocity(&self, r: usize) -> DVec3 {
        let u = |c: usize| self.gt.column(3 * r + c).dot(&self.vel);
        DVec3::new(u(0), u(1), u(2))
    }

    /// v ← v + A⁻¹ G_rᵀ dp.
    fn apply(&mut self, r: usize, dp: DVec3) {
        for c in 0..3 {
            if dp[c] != 0.0 {
                self.vel.axpy(dp[c], &self.y.column(3 * r + c), 1.0);
            }
        }
    }

    /// Row r re-solved: its impulse of this stage taken back, the stage's rule applied to the
    /// velocity the other rows leave it, u⁻ʳ = u − K P_r (module doc).
    fn visit(
        &mut self,
        tree: &Tree,
        r: usize,
        stage: Stage,
        h: f64,
    ) -> Result<(), TreeContactError> {
        let row = self.rows[r];
        let Some(law_k) = row.law else { return Ok(()) };
        let old = self.impulses[r];
        let others = self.velocity(r) - row.k * old;
        let new = match self.rule(stage, &row, others, h) {
            Some(seen) => self.law_impulse(tree, r, &law_k, seen, (row.friction, 0.0))?,
            None => DVec3::ZERO,
        };
        self.apply(r, new - old);
        self.impulses[r] = new;
        Ok(())
    }

    /// The velocity the law is given at a row whose other rows leave it u (contact frame), or
    /// `None`: no impulse. Collisions: an approach that ψ + h u_n predicts to overlap.
    /// Contacts: an approach beyond −ψ̃/h, shifted so that the law (e = 0) leaves it there.
    fn rule(&self, stage: Stage, row: &Row, u: DVec3, h: f64) -> Option<DVec3> {
        let tol = self.params.tolerance;
        match stage {
            Stage::Collisions => {
                let collides = u.z < -tol && row.gap + h * u.z < 0.0;
                (collides && !row.resting).then_some(u)
            }
            Stage::Contacts => {
                let allowance = position_term(row.gap, h, self.params.max_recovery_speed);
                (u.z + allowance < -tol).then_some(u + DVec3::Z * allowance)
            }
        }
    }

    /// The restitution of the collision stage (module doc): a row alone in its group (the
    /// bodies its impulse and the others' join) gets the law's impulse with e for the velocity
    /// the others leave it, u⁻ʳ = u − K P_c; the rows of a group of several get e P_c more
    /// (Poisson's hypothesis on their simultaneous compression). All taken at the same state,
    /// then applied together.
    fn restitution(&mut self, tree: &Tree) -> Result<(), TreeContactError> {
        let e = self.params.restitution;
        self.group_sizes(tree);
        self.changes.clear();
        for r in 0..self.rows.len() {
            let (row, pc) = (self.rows[r], self.impulses[r]);
            let others = self.velocity(r) - row.k * pc;
            let alone = self.group[find(&mut self.union, row.bodies.0)] == 1;
            let change = match row.law {
                _ if pc == DVec3::ZERO => DVec3::ZERO,
                Some(law_k) if alone && others.z < 0.0 => {
                    self.law_impulse(tree, r, &law_k, others, (row.friction, e))? - pc
                }
                _ => e * pc,
            };
            self.changes.push(change);
        }
        for r in 0..self.rows.len() {
            self.apply(r, self.changes[r]);
            self.impulses[r] += self.changes[r];
        }
        Ok(())
    }

    /// `group[find(body)]`: how many rows with an impulse act on the bodies that those rows
    /// join (union–find over the bodies' roots, `union`).
    fn group_sizes(&mut self, tree: &Tree) {
        self.union.clear();
        self.union.extend(0..tree.len());
        for (row, p) in self.rows.iter().zip(&self.impulses) {
            if let (Some(a), true) = (row.bodies.1, *p != DVec3::ZERO) {
                let (ra, rb) = (
                    find(&mut self.union, a),
                    find(&mut self.union, row.bodies.0),
                );
                self.union[ra] = rb;
            }
        }
        self.group.clear();
        self.group.resize(tree.len(), 0);
        for (row, p) in self.rows.iter().zip(&self.impulses) {
            if *p != DVec3::ZERO {
                self.group[find(&mut self.union, row.bodies.0)] += 1;
            }
        }
    }

    /// The law's impulse (contact frame, N s) for velocity u and (μ, e) at row r; on a failed
    /// integration the algebraic law's under "continue" (counted), else the error.
    fn law_impulse(
        &mut self,
        tree: &Tree,
        r: usize,
        k: &DMat3,
        u: DVec3,
        (mu, e): (f64, f64),
    ) -> Result<DVec3, TreeContactError> {
        let law = self.params.law;
        let error = match collide(law, k, u, mu, e, &self.options) {
            Ok(c) => return Ok(c.impulse),
            Err(error) => error,
        };
        if self.params.on_failure == "continue" && law != Law::AlgebraicNewton {
            self.law_fallbacks += 1;
            if let Ok(c) = collide(Law::AlgebraicNewton, k, u, mu, e, &self.options) {
                return Ok(c.impulse);
            }
        }
        Err(self.row_failure(tree, r, error))
    }

    /// The contact stage's shortfall max(0, −ψ̃/h − u_n) over the rows (m/s) and its row.
    fn shortfall(&self, h: f64) -> (f64, usize) {
        let vmax = self.params.max_recovery_speed;
        let mut worst = (0.0, 0);
        for (r, row) in self.rows.iter().enumerate() {
            if row.law.is_none() {
                continue;
            }
            let short = -position_term(row.gap, h, vmax) - self.velocity(r).z;
            if short > worst.0 {
                worst = (short, r);
            }
        }
        worst
    }

    /// Row r by name: "`a`-`b`" for a touch ("ground" for the ground), the limit's side and
    /// link for a limit.
    fn row_names(&self, tree: &Tree, r: usize) -> (String, String) {
        match self.touches.get(r) {
            Some(t) => touch_names(tree, t),
            None => {
                let limit = &self.limits[r - self.touches.len()];
                let side = if limit.sign > 0.0 { "lower" } else { "upper" };
                let name = &tree.links()[limit_link(tree, limit)].name;
                (format!("{side} limit"), name.clone())
            }
        }
    }

    fn row_failure(&self, tree: &Tree, r: usize, error: LawError) -> TreeContactError {
        let (body_a, body_b) = self.row_names(tree, r);
        ContactError::Law {
            body_a,
            body_b,
            error,
        }
        .into()
    }

    /// The contact stage's failure (`on_failure = "stop"`): the residual and its row.
    fn unresolved(&self, tree: &Tree, residual: f64, worst: usize) -> TreeContactError {
        let (a, b) = self.row_names(tree, worst);
        TreeContactError::SweepsShort {
            problem: format!(
                "sequential impulses of a tree's contact stage ({} contact points, {} joint-limit \
                 rows) in max_sweeps = {} sweeps",
                self.touches.len(),
                self.limits.len(),
                self.params.max_sweeps
            ),
            residual,
            tolerance: self.params.tolerance,
            a,
            b,
        }
    }
}

/// The root of link i's body.
fn body(tree: &Tree, mut i: usize) -> usize {
    while let Some(p) = tree.links()[i].parent {
        i = p;
    }
    i
}

/// The link whose joint a limit bounds (the one-degree-of-freedom joint at its index in v).
fn limit_link(tree: &Tree, limit: &Limit) -> usize {
    (0..tree.len())
        .find(|&i| tree.links()[i].joint.nv() == 1 && tree.v_offset(i) == limit.dof)
        .unwrap_or(0)
}

/// The representative of i's set in the union–find `parent` (path halving).
fn find(parent: &mut [usize], mut i: usize) -> usize {
    while parent[i] != i {
        parent[i] = parent[parent[i]];
        i = parent[i];
    }
    i
}

/// Where a touch's impulse acts (m, world): the midpoint of its two points for a pair of links
/// (the free bodies' impact point), B's point on the ground.
pub fn impulse_point(touch: &Touch) -> DVec3 {
    match touch.a {
        Some((_, pa)) => 0.5 * (pa + touch.b.1),
        None => touch.b.1,
    }
}

/// J = J_B(m) − J_A(m) at the impulse point m (length nv).
fn touch_jacobian(tree: &Tree, links: &[LinkKinematics], touch: &Touch, out: &mut [DVec3]) {
    let m = impulse_point(touch);
    point_jacobian(tree, links, touch.b.0, m, out);
    if let Some((link, _)) = touch.a {
        add_point_jacobian(tree, links, link, m, -1.0, out);
    }
}

/// Columns 3r, 3r + 1, 3r + 2 of Gᵀ: t1·J, t2·J, n·J (G = Rᵀ J).
fn write_rows(gt: &mut DMatrix<f64>, r: usize, frame: &ContactFrame, jac: &[DVec3]) {
    for (j, col) in jac.iter().enumerate() {
        gt[(j, 3 * r)] = frame.t1.dot(*col);
        gt[(j, 3 * r + 1)] = frame.t2.dot(*col);
        gt[(j, 3 * r + 2)] = frame.n.dot(*col);
    }
}

/// Row r's K = G_r Y_r (M1), symmetrized (1/kg, contact frame).
fn block(gt: &DMatrix<f64>, y: &DMatrix<f64>, r: usize) -> DMat3 {
    let e = |a: usize, b: usize| gt.column(3 * r + a).dot(&y.column(3 * r + b));
    let s = |a: usize, b: usize| 0.5 * (e(a, b) + e(b, a));
    DMat3::from_cols(
        DVec3::new(s(0, 0), s(1, 0), s(2, 0)),
        DVec3::new(s(0, 1), s(1, 1), s(2, 1)),
        DVec3::new(s(0, 2), s(1, 2), s(2, 2)),
    )
}

/// The matrix the law is given for K (module doc, "Rank"): K + ε diag(1, 1, 0), else K + ε I,
/// ε = 1e-10 tr K; `None` when K_nn ≤ 1e-12 tr K (the row cannot be pushed along n).
fn law_matrix(k: &DMat3) -> Option<DMat3> {
    let tr = k.x_axis.x + k.y_axis.y + k.z_axis.z;
    if !(tr.is_finite() && tr > 0.0 && k.z_axis.z > NORMAL_FLOOR * tr) {
        return None;
    }
    let eps = REGULARIZATION * tr;
    let tangential = *k + DMat3::from_diagonal(DVec3::new(eps, eps, 0.0));
    check_collision_matrix(&tangential)
        .or_else(|_| check_collision_matrix(&(*k + DMat3::from_diagonal(DVec3::splat(eps)))))
        .ok()
}

fn touch_names(tree: &Tree, t: &Touch) -> (String, String) {
    let name = |i: usize| tree.links()[i].name.clone();
    (t.a.map_or("ground".into(), |(l, _)| name(l)), name(t.b.0))
}

fn law_failure(tree: &Tree, t: &Touch, error: LawError) -> TreeContactError {
    let (body_a, body_b) = touch_names(tree, t);
    ContactError::Law {
        body_a,
        body_b,
        error,
    }
    .into()
}

/// Mirtich's articulated collision matrix (M1) of `touch` at the link poses `links` with the
/// joint-space matrix `a` (A = H(q) from CRBA for an instantaneous impulse; the step uses H +
/// h D_u + h² K_u): the contact frame (`ContactFrame::from_normal` of the touch's normal) and
/// K = R (J A⁻¹ Jᵀ) Rᵀ at [`impulse_point`] (1/kg), not regularized. Errors: `a` not nv × nv,
/// not positive definite, a normal that is zero or not finite.
pub fn collision_matrix(
    tree: &Tree,
    links: &[LinkKinematics],
    a: &DMatrix<f64>,
    touch: &Touch,
) -> Result<(ContactFrame, DMat3), TreeContactError> {
    let nv = tree.nv();
    if a.shape() != (nv, nv) {
        return Err(MultibodyError::Length {
            what: "the joint-space matrix's rows and columns",
            expected: nv,
            got: if a.nrows() != nv {
                a.nrows()
            } else {
                a.ncols()
            },
        }
        .into());
    }
    let chol = Cholesky::new(a.clone()).ok_or(TreeContactError::SingularMass)?;
    let frame =
        ContactFrame::from_normal(touch.normal).map_err(|error| law_failure(tree, touch, error))?;
    let mut jac = vec![DVec3::ZERO; nv];
    touch_jacobian(tree, links, touch, &mut jac);
    let mut gt = DMatrix::zeros(nv, 3);
    write_rows(&mut gt, 0, &frame, &jac);
    let mut y = gt.clone();
    chol.solve_mut(&mut y);
    Ok((frame, block(&gt, &y, 0)))
}
