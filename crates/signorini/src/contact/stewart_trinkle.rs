//! Velocity-level time stepping with complementarity contact: Stewart–Trinkle (1996) and
//! Anitescu–Potra (1997), with Coulomb friction on a polyhedral cone.
//!
//! Each step solves for the impulses p over the step. With ν_ℓ = ν + h M⁻¹(f_ext − ω × Jω) the
//! free velocity (what semi-implicit Euler gives without contact), the new velocity is
//! (PEG paper, eq. 5, plus friction)
//!
//! ```text
//!   ν⁺ = ν_ℓ + M⁻¹ (G_n p_n + D β)
//! ```
//!
//! and, for every active contact c with normal row G_n,c, tangent rows D_c (k directions of
//! `cone::directions`) and friction coefficient μ_c (Stewart & Trinkle 1996, eqs. 21–23):
//!
//! ```text
//!   0 ≤ p_n,c ⊥ G_n,cᵀ ν⁺ + ψ_c / h ≥ 0                 (PEG eq. 7; ψ_t = 0, obstacles are fixed)
//!   0 ≤ β_c   ⊥ D_cᵀ ν⁺ + e σ_c ≥ 0                      (σ_c: sliding speed)
//!   0 ≤ σ_c   ⊥ μ_c p_n,c − eᵀ β_c ≥ 0                   (friction inside the cone)
//! ```
//!
//! Eliminating ν⁺ (the Schur complement of the MLCP of PEG eq. 8 in M) leaves the LCP in
//! z = (p_n, β, σ) with W = G M⁻¹ Gᵀ, G = [G_n D]:
//!
//! ```text
//!   M_lcp = [ W_nn  W_nt  0 ]     q = [ G_nᵀ ν_ℓ + ψ/h ]
//!           [ W_tn  W_tt  E ]         [ Dᵀ ν_ℓ         ]
//!           [ μ     −Eᵀ   0 ]         [ 0              ]
//! ```
//!
//! Departure (issue 16, item 5; `recovery = "bounded"`, the default): ψ/h is replaced by
//! max(ψ, −v_max h)/h with v_max = `max_recovery_speed` (0.5 m/s by default), so an overlap is
//! removed at no more than v_max instead of in one step (a cube started 5 cm into the ground was
//! thrown out at 50 m/s at h = 1 ms); gaps ψ ≥ 0 are untouched. `recovery = "full"` is the
//! paper's ψ/h.
//!
//! Anitescu–Potra (1997) drops the ψ/h term: the normal constraint is G_nᵀ ν⁺ ≥ 0 on the active
//! set. They prove their LCP always has a solution that Lemke's method finds in exact arithmetic
//! (M_lcp is copositive, though not copositive-plus: a unit σ gives zᵀMz = 0 with
//! (M + Mᵀ)z = μ e ≠ 0; see docs/solvers.md); the price is that penetration is never corrected and
//! bodies stop at the gap they had when their contact became active.
//!
//! Departure (issue 16, item 5; `recovery = "bounded"`, the default): an *existing overlap* is
//! removed at a bounded speed, and nothing else changes. The normal row of a contact with
//! ψ < −s (s = `time_stepping::OVERLAP_SLOP`, 1e-10 m) gets q_n += max(ψ + s, −v_max h)/h (the
//! constraint G_nᵀ ν⁺ ≥ min(|ψ + s|/h, v_max): the pair separates at up to v_max, or by the
//! whole overlap less s in one step when that is slower); a contact with ψ ≥ −s keeps the
//! paper's G_nᵀ ν⁺ ≥ 0, so bodies still stop at the gap they have and a positive gap is never
//! closed. Without it a cube started 5 cm into the ground keeps its corner in until it tips off
//! it (1.5 m/s at h = 1 ms); with it the cube is pushed out at 0.53 m/s. `recovery = "full"`
//! removes an overlap in one step (q_n += min(ψ + s, 0)/h), `recovery = "none"` is the paper's
//! model. Why the slop: `time_stepping::OVERLAP_SLOP`.
//!
//! The correction leaves M_lcp, and so its copositivity, as it is, but Anitescu and Potra's
//! existence argument also needs q: Lemke's method on a copositive M finds a solution when every
//! z ≥ 0 with M z ≥ 0 and zᵀ M z = 0 has zᵀ q ≥ 0. Such z have G_n p_n + D β = 0 (the impulses
//! cancel on every body), so zᵀ q = Σ_c p_n,c δ_c with δ_c ≤ 0 the correction: 0 without
//! overlaps (ψ ≥ −s on every active contact: their theorem holds as stated), and possibly
//! negative when overlapping contacts can squeeze a body from opposite sides (no velocity
//! separates a box overlapping two facing walls), where the corrected LCP may have no solution,
//! as Stewart–Trinkle's may. An island whose corrected LCP no solver meets is therefore solved
//! again with the paper's q (`TimeStepping::solve_island`): the step is then the paper's, the
//! overlap stays for the next steps to remove, and the model is solvable wherever the paper's
//! is. `recovery = "none"` is the paper's q throughout.
//!
//! The impulses are returned as forces p/h held over the step, so the pipeline's semi-implicit
//! Euler update reproduces ν⁺ and then q⁺ = q + h ν⁺ with the orientation advanced by the
//! exponential map and renormalized (PEG eq. 10 uses the first-order quaternion update; both
//! renormalize).
//!
//! A step's LCP is block diagonal over contact islands (`islands.rs`: bodies joined through
//! contacts, fixed bodies joining nothing): `solve_step` partitions the active contacts, and each
//! island's LCP is warm-started from last step's impulses of its contacts (keyed by the contact's
//! bodies, pieces and features; a contact with new features takes those of last step's contact at
//! the same point, `previous_of`) and from the rows that were basic at the end of last step's
//! pivoting (`Previous::basic`). On a small island that warm start is tried first on the step's
//! [`StepOperator`] (W from the Jacobian rows, never stored: `SolverChain::warm_start`); only a
//! miss assembles the matrix sparse ([`StepOperator::to_csr`], as [`assemble_sparse`] does) for
//! the rest of the chain (`SolverChain::solve_sparse_after`). Islands are solved on their own, in
//! parallel when there are several islands and at least `PARALLEL_MIN_CONTACTS` contacts; the
//! impulses are combined in island order, so the result does not depend on the number of
//! threads.
//!
//! Activation (Nguyen & Trinkle, "type 1 / type 2"): `penetrating` puts only contacts with ψ < 0
//! in the problem, so a body approaching fast enters by up to |v| h before it is stopped;
//! `anticipating` puts every contact with ψ below the activation distance, so the ψ/h term stops
//! the approach exactly at contact.
use super::params::model_params;
use super::time_stepping::{self, PositionProjection, SolverChain};
use super::VelocityProblem;
use super::{cone, convex_relaxation, islands, ContactImpulses, ModelSpec, SolveReport};
use super::{
    ConfigError, ContactError, ModelBase, ModelStats, ParamSpec, ParamValue, VelocityLevelModel,
};
use crate::collision::Contact;
use crate::dynamics::jacobian::{add_row_forces, DelassusRows, JacobianRow};
use crate::dynamics::{Model, State, Wrench};
use crate::geometry::Feature;
use crate::solvers::sparse::{CsrMatrix, LcpMatrix, SparseProblem};
use crate::solvers::Problem;
use crate::util::hash::FastMap;
use glam::DVec3;
use nalgebra::{DMatrix, DVector};
use rayon::prelude::*;
use std::time::Instant;

pub const NAME_STEWART_TRINKLE: &str = "stewart-trinkle";
pub const NAME_ANITESCU_POTRA: &str = "anitescu-potra";

model_params! {
    /// Parameters of `stewart-trinkle` and `anitescu-potra`.
    pub struct TimeSteppingParams {
        activation: &'static str = time_stepping::ACTIVATION,
        activation_distance: Option<f64> = time_stepping::ACTIVATION_DISTANCE,
        manifold: &'static str = time_stepping::MANIFOLD,
        // Read with anitescu-potra's spec, whose words include stewart-trinkle's (each model
        // checks a scene's value against its own table, `PARAMS_STEWART_TRINKLE`).
        recovery: &'static str = time_stepping::RECOVERY_ANITESCU_POTRA,
        max_recovery_speed: f64 = time_stepping::MAX_RECOVERY_SPEED,
        friction_directions: usize = time_stepping::FRICTION_DIRECTIONS,
        solvers: Vec<&'static str> = time_stepping::SOLVERS,
        tolerance: f64 = time_stepping::TOLERANCE,
        max_iterations: usize = time_stepping::MAX_ITERATIONS,
        max_pivots: Option<usize> = time_stepping::MAX_PIVOTS,
        relaxation: f64 = time_stepping::RELAXATION,
        on_failure: &'static str = time_stepping::ON_FAILURE,
        large_island_rows: usize = time_stepping::LARGE_ISLAND_ROWS,
        large_island_sweeps: usize = time_stepping::LARGE_ISLAND_SWEEPS,
        resting_faces: &'static str = time_stepping::RESTING_FACES,
        projection: &'static str = time_stepping::PROJECTION,
        projection_tolerance: f64 = time_stepping::PROJECTION_TOLERANCE,
    }
}

/// anitescu-potra's parameters: `recovery` with its `"none"`.
const PARAMS_ANITESCU_POTRA: &[ParamSpec] = TimeSteppingParams::SPECS;

/// stewart-trinkle's: the same, `recovery` without `"none"` (the ψ/h term is the model).
const PARAMS_STEWART_TRINKLE: &[ParamSpec] = &super::params::with_spec::<
    { TimeSteppingParams::SPECS.len() },
>(TimeSteppingParams::SPECS, time_stepping::RECOVERY);

pub const SPEC_STEWART_TRINKLE: ModelSpec = ModelSpec {
    name: NAME_STEWART_TRINKLE,
    summary: "velocity-level time stepping (LCP per step) with psi/h stabilization and a polyhedral friction cone",
    params: PARAMS_STEWART_TRINKLE,
};

pub const SPEC_ANITESCU_POTRA: ModelSpec = ModelSpec {
    name: NAME_ANITESCU_POTRA,
    summary: "velocity-level time stepping (LCP per step) without position stabilization of gaps (an existing overlap is removed at a bounded speed), solvable wherever the paper's LCP is, polyhedral friction cone",
    params: PARAMS_ANITESCU_POTRA,
};

/// Which normal constraint the subproblem uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Formulation {
    /// G_nᵀ ν⁺ + ψ/h ≥ 0.
    StewartTrinkle,
    /// G_nᵀ ν⁺ ≥ 0, with an overlap ψ < −`OVERLAP_SLOP` removed at a bounded speed (module
    /// documentation).
    AnitescuPotra,
}

impl Formulation {
    /// The bound of the position term in the papers (`time_stepping::position_term`): ∞ for
    /// Stewart–Trinkle's ψ/h, 0 for Anitescu–Potra's none.
    pub fn paper_recovery_bound(self) -> f64 {
        match self {
            Formulation::StewartTrinkle => f64::INFINITY,
            Formulation::AnitescuPotra => 0.0,
        }
    }
}

/// Key of a contact across steps, for warm starts.
type ContactKey = (usize, usize, usize, usize, Feature, Feature);

fn key(c: &Contact) -> ContactKey {
    (
        c.body_a,
        c.body_b,
        c.piece_a,
        c.piece_b,
        c.feature_a,
        c.feature_b,
    )
}

/// The bodies and pieces of a contact: the pair whose contacts of last step a contact with an
/// unseen key is matched against by position (`TimeStepping::previous_of`).
type PairKey = (usize, usize, usize, usize);

fn pair_key(c: &Contact) -> PairKey {
    (c.body_a, c.body_b, c.piece_a, c.piece_b)
}

/// A contact of this step whose features were not in last step's contacts takes the answer of
/// the nearest contact of last step between the same bodies and pieces if that one's point on
/// body A was within this fraction of the smaller body's bounding radius (m/m). Coincident
/// corners (a stack of aligned boxes) are labelled by the narrow phase as face–vertex at one step
/// and edge–edge at the next, by round-off alone; without this their warm start was lost and
/// Lemke's method ran from scratch (on the 10-box stack, the misses after the first 0.2 s).
const MATCH_RADIUS_FRACTION: f64 = 1e-3;

/// A contact's first friction direction d_0 that moved by less than this since the last step
/// (distance of unit vectors, 0.1 ≈ 5.7°) is the same direction turned with its normal: β and
/// Lemke's basic rows are carried over as they are. A switch of `cone::tangent_basis`'s rule
/// (at |n_x| = 1/√2) turns d_0 by cos⁻¹(−n_y / √(n_z² + 1/2)) (up to sign): 90° for a normal
/// in the xz plane, little only near n = (±1/√2, ∓1/√2, 0), where the two choices agree; beyond
/// the tolerance the friction impulse is re-decomposed.
/// (At 1e-9 every moving contact was re-decomposed, which lost Lemke's basis for its β: the
/// 64-box bin's landing under `stewart-trinkle` ran 10× slower.)
const BASIS_TOLERANCE: f64 = 0.1;

/// A contact's answer at the last step, its warm start at this one. Its friction impulses and
/// basic rows are ranges of [`Answers`]'s shared lists.
#[derive(Clone, Debug, Default)]
struct Previous {
    /// Its point on body A (world, m), for matching by position.
    point_a: DVec3,
    /// p_n (N s).
    normal: f64,
    /// β (N s): `directions` entries, or none for a contact without friction
    /// ([`Answers::friction`]).
    friction: (usize, usize),
    /// The first friction direction d_0 the β were along (world, unit).
    first_direction: DVec3,
    /// Σ_j β_j d_j (N s, world): the friction impulse, carried onto this step's directions
    /// when the contact's tangent basis changed ([`cone::Cone::decompose`]).
    friction_impulse: DVec3,
    /// σ (m/s).
    slip: f64,
    /// Which of the contact's rows (p_n, then β, then σ) were basic at the end of Lemke's
    /// method (empty when another solver answered): proposed again with the positive entries
    /// ([`Answers::basic`]).
    basic: (usize, usize),
    /// The next answer of the same contact key, in the order kept.
    next_same_key: Option<usize>,
    /// The first answer of its key (the heads of [`Answers::of_pair`]).
    first_of_key: bool,
    /// Its bodies and pieces.
    pair: PairKey,
}

/// Last step's answers, by contact key (usually one each; several when the narrow phase gave
/// two points the same features — a clipped point and the exact axis's contact on the same pair
/// of edges, or two cuts of one clipped segment by one side plane — told apart by position) and
/// by body pair (for matching by position). Flat lists chained by index, cleared and refilled
/// each step without an allocation per contact (per-contact vectors and map entries cost 12 %
/// of a step on the 10-box stack).
#[derive(Default)]
struct Answers {
    list: Vec<Previous>,
    /// The β of every answer, each answer's `friction` a range of it.
    friction: Vec<f64>,
    /// The basic flags of every answer, each answer's `basic` a range of it.
    basic: Vec<bool>,
    /// Key → its (first, last) answer.
    by_key: FastMap<ContactKey, (usize, usize)>,
    /// Body pair → the first answers of its keys in the order kept: built on the first look-up
    /// of an unseen key (a resting step has none).
    by_pair: std::sync::OnceLock<FastMap<PairKey, Vec<usize>>>,
}

impl Answers {
    fn clear(&mut self) {
        self.list.clear();
        self.friction.clear();
        self.basic.clear();
        self.by_key.clear();
        self.by_pair = std::sync::OnceLock::new();
    }

    /// Keep `answer` for the contact of `key` between the bodies and pieces of `pair`, after
    /// those kept before it.
    fn push(&mut self, key: ContactKey, pair: PairKey, mut answer: Previous) {
        use std::collections::hash_map::Entry;
        let i = self.list.len();
        answer.pair = pair;
        match self.by_key.entry(key) {
            Entry::Occupied(mut e) => {
                let last = &mut e.get_mut().1;
                self.list[*last].next_same_key = Some(i);
                *last = i;
            }
            Entry::Vacant(e) => {
                e.insert((i, i));
                answer.first_of_key = true;
            }
        }
        self.list.push(answer);
    }

    /// The answers from `first` on along its key's chain.
    fn same_key(&self, first: usize) -> impl Iterator<Item = &Previous> {
        std::iter::successors(Some(first), |&i| self.list[i].next_same_key).map(|i| &self.list[i])
    }

    /// The answers of `pair`'s keys, key by key in the order kept.
    fn of_pair(&self, pair: &PairKey) -> impl Iterator<Item = &Previous> {
        let by_pair = self.by_pair.get_or_init(|| {
            let mut by_pair: FastMap<PairKey, Vec<usize>> = FastMap::default();
            for (i, p) in self.list.iter().enumerate().filter(|(_, p)| p.first_of_key) {
                by_pair.entry(p.pair).or_default().push(i);
            }
            by_pair
        });
        let heads = by_pair.get(pair).map_or(&[][..], |h| h.as_slice());
        heads.iter().flat_map(|&head| self.same_key(head))
    }

    fn friction(&self, p: &Previous) -> &[f64] {
        &self.friction[p.friction.0..p.friction.1]
    }

    fn basic(&self, p: &Previous) -> &[bool] {
        &self.basic[p.basic.0..p.basic.1]
    }
}

/// The Stewart–Trinkle / Anitescu–Potra time-stepping model.
pub struct TimeStepping {
    formulation: Formulation,
    values: Vec<ParamValue>,
    anticipating: bool,
    /// The narrow phase adds near features (`manifold = "near-features"`, anticipating only).
    near_features: bool,
    activation_distance: Option<f64>,
    /// Bound of the position term's recovery speed, m/s (∞: an overlap goes in one step, the
    /// Stewart–Trinkle paper's ψ/h; 0: anitescu-potra's `"none"`).
    max_recovery_speed: f64,
    directions: usize,
    /// `resting_faces = "least-norm"` ([`resting_faces_apply`](Self::resting_faces_apply)).
    least_norm: bool,
    method: IslandMethod,
    /// Bounding radius of each body about its centre of mass (m), computed on first use.
    radii: Vec<f64>,
    /// Last step's answers, the warm start of this one.
    previous: Answers,
    /// `projection = "post-step"` (`pipeline::projection`).
    projection: Option<PositionProjection>,
}

impl TimeStepping {
    /// `values` in the order of `TimeSteppingParams::SPECS` (both models' tables).
    pub fn new(formulation: Formulation, values: &[ParamValue]) -> Result<Self, ConfigError> {
        let p = TimeSteppingParams::from_values(values);
        Ok(TimeStepping {
            formulation,
            values: values.to_vec(),
            anticipating: p.activation == "anticipating",
            near_features: time_stepping::near_features(p.activation, p.manifold),
            activation_distance: p.activation_distance,
            max_recovery_speed: time_stepping::recovery_bound(p.recovery, p.max_recovery_speed),
            directions: p.friction_directions,
            least_norm: p.resting_faces == "least-norm",
            method: IslandMethod::Lcp(
                time_stepping::solver_chain!(p)?
                    .with_large_problems(Some((p.large_island_rows, p.large_island_sweeps))),
            ),
            radii: Vec::new(),
            previous: Answers::default(),
            projection: PositionProjection::from_params(
                p.projection,
                p.projection_tolerance,
                time_stepping::recovery_bound(p.recovery, p.max_recovery_speed),
            ),
        })
    }

    /// `anitescu-convex`, `values` in the order of `convex_relaxation::ConvexParams::SPECS`.
    pub fn relaxed(values: &[ParamValue]) -> Result<Self, ConfigError> {
        let p = convex_relaxation::ConvexParams::from_values(values);
        Ok(TimeStepping {
            formulation: Formulation::StewartTrinkle,
            values: values.to_vec(),
            anticipating: p.activation == "anticipating",
            near_features: time_stepping::near_features(p.activation, p.manifold),
            activation_distance: p.activation_distance,
            max_recovery_speed: time_stepping::recovery_bound(p.recovery, p.max_recovery_speed),
            directions: p.friction_directions,
            least_norm: false,
            method: IslandMethod::Relaxed(convex_relaxation::Settings::from(&p)),
            radii: Vec::new(),
            previous: Answers::default(),
            projection: PositionProjection::from_params(
                p.projection,
                p.projection_tolerance,
                time_stepping::recovery_bound(p.recovery, p.max_recovery_speed),
            ),
        })
    }

    fn body_radii(&mut self, model: &Model) -> &[f64] {
        if self.radii.len() != model.bodies.len() {
            self.radii = time_stepping::body_radii(model);
        }
        &self.radii
    }

    /// Last step's answer of contact `c`: the one of the same key, else the nearest of the same
    /// body pair and pieces within [`MATCH_RADIUS_FRACTION`] of the smaller body's radius.
    fn previous_of(&self, c: &Contact) -> Option<&Previous> {
        let distance = |p: &Previous| p.point_a.distance(c.point_a);
        let answers = &self.previous;
        if let Some(&(first, last)) = answers.by_key.get(&key(c)) {
            if first == last {
                return Some(&answers.list[first]);
            }
            return answers
                .same_key(first)
                .min_by(|x, y| distance(x).total_cmp(&distance(y)));
        }
        let radius = |b: usize| self.radii.get(b).copied().unwrap_or(0.0);
        let within = MATCH_RADIUS_FRACTION * radius(c.body_a).min(radius(c.body_b));
        answers
            .of_pair(&pair_key(c))
            .map(|p| (distance(p), p))
            .filter(|&(d, _)| d <= within)
            .min_by(|x, y| x.0.total_cmp(&y.0))
            .map(|(_, p)| p)
    }

    /// Keep island `s`'s answers of its contacts (`island` into `active`) as the next step's
    /// warm starts: p_n, β with the directions they were along, σ, and Lemke's basic rows.
    fn remember(
        &mut self,
        active: &[&Contact],
        island: &[usize],
        s: &IslandSolve,
    ) {
        let k = self.directions;
        let nc = island.len();
        let nt = s.frictional.len() * k;
        let basic = |i: usize| s.basic.get(i).copied();
        let answers = &mut self.previous;
        // `s.frictional` is increasing: the contacts with friction come in island order.
        let mut frictional = s.frictional.iter().enumerate().peekable();
        for (c, &a) in island.iter().enumerate() {
            let contact = active[a];
            let (friction_start, basic_start) = (answers.friction.len(), answers.basic.len());
            answers.basic.extend(basic(c));
            let mut answer = Previous {
                point_a: contact.point_a,
                normal: s.z[c],
                ..Previous::default()
            };
            if let Some((f, _)) = frictional.next_if(|&(_, &fc)| fc == c) {
                answers.friction.extend((0..k).map(|j| s.z[nc + f * k + j]));
                let beta = &answers.friction[friction_start..];
                let directions = &s.directions[f * k..(f + 1) * k];
                answer.first_direction = directions.first().copied().unwrap_or_default();
                answer.friction_impulse = directions.iter().zip(beta).map(|(&d, &b)| b * d).sum();
                answer.slip = s.z[nc + nt + f];
                if answers.basic.len() > basic_start {
                    answers
                        .basic
                        .extend((0..k).filter_map(|j| basic(nc + f * k + j)));
                    answers.basic.extend(basic(nc + nt + f));
                }
            }
            answer.friction = (friction_start, answers.friction.len());
            answer.basic = (basic_start, answers.basic.len());
            answers.push(key(contact), pair_key(contact), answer);
        }
    }

    /// Is contact `c` in this step's problem?
    fn is_active(&self, c: &Contact, distance: f64) -> bool {
        if self.anticipating {
            c.gap < distance
        } else {
            c.gap < 0.0
        }
    }
}

impl ModelBase for TimeStepping {
    fn spec(&self) -> ModelSpec {
        if matches!(self.method, IslandMethod::Relaxed(_)) {
            return convex_relaxation::SPEC;
        }
        match self.formulation {
            Formulation::StewartTrinkle => SPEC_STEWART_TRINKLE,
            Formulation::AnitescuPotra => SPEC_ANITESCU_POTRA,
        }
    }

    fn parameters(&self) -> Vec<(&'static str, ParamValue)> {
        super::named_values(self.spec().params, &self.values)
    }

    fn near_features(&self, _model: &Model) -> bool {
        self.near_features
    }

    fn activation_distance(&self, model: &Model, state: &State) -> f64 {
        if let Some(d) = self.activation_distance {
            return d;
        }
        if !self.anticipating {
            return model.settings.activation_distance;
        }
        time_stepping::anticipating_distance(model, state, &self.radii)
    }
}

impl VelocityLevelModel for TimeStepping {
    fn projection(&self) -> Option<PositionProjection> {
        self.projection
    }

    fn solve_step(
        &mut self,
        problem: &VelocityProblem,
        contacts: &[Contact],
        out: &mut [Wrench],
        log: &mut ContactImpulses,
    ) -> Result<ModelStats, ContactError> {
        let (model, state, h) = (problem.model, problem.state, problem.h);
        self.body_radii(model);
        let distance = self.activation_distance(model, state);
        let active: Vec<&Contact> = contacts
            .iter()
            .filter(|c| self.is_active(c, distance))
            .collect();
        if active.is_empty() {
            self.previous.clear();
            return Ok(ModelStats::default());
        }
        // The LCP is block diagonal over islands (`islands.rs`): each is solved on its own, in
        // parallel when there are several worth the threads. Every island's answer depends on its
        // own data only and they are combined in island order, so the result is the same with any
        // number of threads.
        let islands = islands::partition(model, &active);
        let least_norm = self.resting_faces_apply(&active);
        let t0 = Instant::now();
        let solve = |island: &Vec<usize>| self.solve_island(problem, &active, island, least_norm);
        let solved: Vec<Result<IslandSolve, ContactError>> =
            if islands.len() > 1 && active.len() >= PARALLEL_MIN_CONTACTS {
                islands.par_iter().map(solve).collect()
            } else {
                islands.iter().map(solve).collect()
            };
        let seconds = t0.elapsed().as_secs_f64();
        let count = islands.len();
        let mut solves = Vec::with_capacity(count);
        for (i, s) in solved.into_iter().enumerate() {
            let name = |problem| format!("{problem}, island {} of {count}", i + 1);
            solves.push(s.map_err(|e| if count > 1 { e.within(name) } else { e })?);
        }

        self.previous.clear();
        let k = self.directions;
        let mut report: Option<SolveReport> = None;
        let mut active_points = 0;
        for (island, s) in islands.iter().zip(solves) {
            active_points += (0..island.len()).filter(|&c| s.z[c] > 0.0).count();
            record_impulses(&active, island, &s, k, log);
            self.remember(&active, island, &s);
            report = Some(match report {
                None => s.report,
                Some(r) => r.combined(&s.report),
            });
            // z = (p_n, β, σ): the impulses are the first rows.len() entries, σ is a speed.
            // Island by island, in island order (each body's impulses are in one island).
            add_row_forces(model, &s.rows, &s.z.as_slice()[..s.rows.len()], h, out);
        }
        let mut report = report.expect("at least one island");
        report.seconds = seconds;
        Ok(ModelStats {
            active_points,
            solve: Some(report),
            detection: 0.0,
        })
    }
}

/// Each contact's impulse p_n n + Σ_j β_j d_j (N s, on B at the contact's midpoint) of the
/// island's answer `s` (z = (p_n, β, σ), k friction directions) into `log`.
fn record_impulses(
    active: &[&Contact],
    island: &[usize],
    s: &IslandSolve,
    k: usize,
    log: &mut ContactImpulses,
) {
    let nc = island.len();
    let mut impulses: Vec<DVec3> = island
        .iter()
        .enumerate()
        .map(|(c, &a)| s.z[c] * active[a].normal)
        .collect();
    for (f, &c) in s.frictional.iter().enumerate() {
        for (j, d) in s.directions[f * k..(f + 1) * k].iter().enumerate() {
            impulses[c] += s.z[nc + f * k + j] * *d;
        }
    }
    for (&a, impulse) in island.iter().zip(impulses) {
        let contact = active[a];
        let bodies = (contact.body_a, contact.body_b);
        log.impulse(bodies, contact.midpoint(), contact.normal, impulse);
    }
}

/// Below this many active contacts the islands are solved one after the other: the problems are
/// too small for a thread hand-off to pay (a contact is k + 2 ≤ 10 rows by default).
const PARALLEL_MIN_CONTACTS: usize = 64;

/// How each island's step is solved.
enum IslandMethod {
    /// The LCP, by this chain of solvers (`stewart-trinkle`, `anitescu-potra`).
    Lcp(SolverChain),
    /// `anitescu-convex`: the convex relaxation (`convex_relaxation.rs`), solved by Newton's
    /// method with these settings.
    Relaxed(convex_relaxation::Settings),
}

/// One island's answer: z = (p_n, β, σ) of its LCP, with the rows and frictional contacts of
/// its assembly (indices local to the island).
struct IslandSolve {
    z: DVector<f64>,
    /// Rows basic at the end of Lemke's method (empty when another solver answered).
    basic: Vec<bool>,
    rows: Vec<JacobianRow>,
    frictional: Vec<usize>,
    /// [`StepRows::directions`].
    directions: Vec<DVec3>,
    report: SolveReport,
}

impl TimeStepping {
    /// Assemble and solve the LCP of the contacts `island` (indices into `active`), warm-started
    /// from last step's answer of the same contacts. Anitescu–Potra's island whose corrected LCP
    /// no solver meets (an error, or an answer marked failed under `on_failure = "continue"`)
    /// while one of its contacts overlaps beyond the slop is solved again with the paper's q (no
    /// position term), whose solution their theorem guarantees (module documentation: the
    /// correction can make the LCP infeasible, e.g. a box overlapping two facing walls); that
    /// answer is kept when it meets the tolerance, and the overlap is left to the next steps.
    fn solve_island(
        &self,
        problem: &VelocityProblem,
        active: &[&Contact],
        island: &[usize],
        least_norm: bool,
    ) -> Result<IslandSolve, ContactError> {
        let bound = self.max_recovery_speed;
        let solvers = match &self.method {
            IslandMethod::Relaxed(settings) => {
                return self.solve_island_relaxed(problem, active, island, settings)
            }
            IslandMethod::Lcp(solvers) => solvers,
        };
        let first =
            self.solve_island_bounded(solvers, (problem, active, island), bound, least_norm);
        let corrected = self.formulation == Formulation::AnitescuPotra
            && bound > 0.0
            && island
                .iter()
                .any(|&a| active[a].gap < -time_stepping::OVERLAP_SLOP);
        if !corrected || first.as_ref().is_ok_and(|s| !s.report.failed) {
            return first;
        }
        match self.solve_island_bounded(solvers, (problem, active, island), 0.0, least_norm) {
            Ok(mut paper) if !paper.report.failed => {
                // The attempts of both solves.
                if let Ok(tried) = &first {
                    paper.report.attempts += tried.report.attempts;
                }
                Ok(paper)
            }
            _ => first,
        }
    }

    /// `anitescu-convex`'s island: the convex relaxation from last step's answers of the same
    /// contacts, its answer read as z = (p_n, β, σ) (`convex_relaxation.rs`). One that misses
    /// its tolerance stops the run (`on_failure = "stop"`) or is used and marked failed.
    fn solve_island_relaxed(
        &self,
        problem: &VelocityProblem,
        active: &[&Contact],
        island: &[usize],
        settings: &convex_relaxation::Settings,
    ) -> Result<IslandSolve, ContactError> {
        let t0 = Instant::now();
        let contacts: Vec<&Contact> = island.iter().map(|&a| active[a]).collect();
        let k = self.directions;
        let bound = self.max_recovery_speed;
        let parts = StepRows::new(Formulation::StewartTrinkle, k, problem, &contacts, bound);
        let (warm, _, _) = self.warm_start(&contacts, &parts);
        let relaxed = convex_relaxation::solve(&parts, problem, &warm, settings);
        let failed = !relaxed.status.is_solved();
        if failed && settings.stop_on_failure {
            return Err(ContactError::NotConverged {
                problem: relaxed.describe(),
                tolerance: settings.options.tolerance,
                attempt: relaxed.attempt(),
            });
        }
        let report = SolveReport {
            rows: parts.q.len(),
            solver: convex_relaxation::SOLVER,
            iterations: relaxed.iterations,
            residual: relaxed.residual,
            attempts: 1,
            seconds: t0.elapsed().as_secs_f64(),
            failed,
            islands: 1,
        };
        Ok(IslandSolve {
            z: relaxed.z,
            basic: Vec::new(),
            rows: parts.rows,
            frictional: parts.frictional,
            directions: parts.directions,
            report,
        })
    }

    /// The rows an island's warm start proposes for its principal system besides the support
    /// of `warm`, on a step of resting faces ([`resting_faces_apply`](Self::resting_faces_apply)):
    /// last step's basic rows (`basic`, empty when none is known) and the normal row of every
    /// contact matched from last step, carrying a load or not. A face resting on a face has four
    /// coplanar corners; Lemke's vertex answer loads three, and with the fourth left out the box
    /// rocks on the diagonal as round-off moves its centre of pressure across it
    /// (docs/solvers.md, "Resting faces"). The principal system of all four is singular and is
    /// solved for its least-norm answer, the load shared by the four
    /// (`solvers::sparse::principal_pivoting` with `least_norm`).
    /// `matched[c]`: contact c has an answer from last step ([`warm_start`](Self::warm_start)).
    fn proposed_rows(basic: &[bool], matched: &[bool], n: usize) -> Vec<bool> {
        let mut proposed = if basic.is_empty() {
            vec![false; n]
        } else {
            basic.to_vec()
        };
        for (row, &m) in proposed.iter_mut().zip(matched) {
            *row |= m;
        }
        proposed
    }

    /// Do this step's warm starts propose every matched contact's normal row and solve for
    /// least-norm answers ([`proposed_rows`](Self::proposed_rows))? With `resting_faces =
    /// "least-norm"`, on a step whose LCP, all islands together, stays below the large-island
    /// size (at most k + 2 rows a contact): a large island's sparse Lemke keeps vertex answers
    /// (docs/solvers.md, "Resting faces", for what exact resting costs a pile).
    fn resting_faces_apply(&self, active: &[&Contact]) -> bool {
        let rows = active.len() * (self.directions + 2);
        match &self.method {
            IslandMethod::Lcp(solvers) => self.least_norm && !solvers.is_large(rows),
            IslandMethod::Relaxed(_) => false,
        }
    }

    /// Last step's answers of `contacts`, in the order of the rows `parts`: z (zero where a
    /// contact has none), the rows that were basic at the end of Lemke's method (empty when
    /// none is known) and which contacts have an answer.
    fn warm_start(
        &self,
        contacts: &[&Contact],
        parts: &StepRows,
    ) -> (DVector<f64>, Vec<bool>, Vec<bool>) {
        let (nc, k, n) = (contacts.len(), self.directions, parts.q.len());
        let nt = parts.frictional.len() * k;
        let mut warm = DVector::zeros(n);
        let mut basic = vec![false; n];
        let mut matched = vec![false; nc];
        let mut any_basic = false;
        let found: Vec<Option<&Previous>> = contacts.iter().map(|c| self.previous_of(c)).collect();
        for (c, found) in found.iter().enumerate() {
            if let Some(p) = found {
                matched[c] = true;
                warm[c] = p.normal;
                if let Some(&b) = self.previous.basic(p).first() {
                    basic[c] = b;
                    any_basic = true;
                }
            }
        }
        let cone = cone::Cone::new(k);
        for (f, &c) in parts.frictional.iter().enumerate() {
            if let Some(p) = found[c] {
                // Along the same directions, β as it was; else the friction impulse carried
                // onto this step's directions (a normal that moved across a switch of the
                // tangent basis's rule, or a face pair clipped from the other body's face,
                // would otherwise put each β_j on another direction).
                let normal = contacts[c].normal;
                // (A normal that moved by round-off keeps its basis: β as it was.)
                let same = parts
                    .directions
                    .get(f * k)
                    .is_some_and(|d| d.distance(p.first_direction) <= BASIS_TOLERANCE);
                let moved = (!same).then(|| cone.decompose(normal, p.friction_impulse));
                let (friction, was_basic) = (self.previous.friction(p), self.previous.basic(p));
                if friction.len() == k {
                    let beta = moved.as_deref().unwrap_or(friction);
                    for j in 0..k {
                        warm[nc + f * k + j] = beta[j];
                    }
                    warm[nc + nt + f] = p.slip;
                }
                if was_basic.len() == k + 2 {
                    for j in 0..k {
                        basic[nc + f * k + j] = match &moved {
                            Some(beta) => beta[j] > 0.0,
                            None => was_basic[1 + j],
                        };
                    }
                    basic[nc + nt + f] = was_basic[k + 1];
                }
            }
        }
        if !any_basic {
            basic.clear();
        }
        (warm, basic, matched)
    }

    /// [`solve_island`](Self::solve_island)'s LCP, by `solvers`, with the position term bounded
    /// by `bound` (m/s).
    fn solve_island_bounded(
        &self,
        solvers: &SolverChain,
        (problem, active, island): (&VelocityProblem, &[&Contact], &[usize]),
        bound: f64,
        least_norm: bool,
    ) -> Result<IslandSolve, ContactError> {
        let contacts: Vec<&Contact> = island.iter().map(|&a| active[a]).collect();
        let k = self.directions;
        let parts = StepRows::new(self.formulation, k, problem, &contacts, bound);
        let (nc, nf, n) = (contacts.len(), parts.frictional.len(), parts.q.len());

        let (warm, basic, matched) = self.warm_start(&contacts, &parts);

        // The warm start reads the matrix through the operator; only a miss stores it.
        let operator = StepOperator::new(&parts, problem);
        let mut missed = None;
        if solvers.warm_start_applies(n, &warm) {
            let proposed = if least_norm {
                Self::proposed_rows(&basic, &matched, n)
            } else {
                basic.clone()
            };
            match solvers.warm_start(&operator, &parts.q, &warm, &proposed, least_norm) {
                Ok((z, report, basic)) => {
                    return Ok(IslandSolve {
                        z,
                        basic,
                        rows: parts.rows,
                        frictional: parts.frictional,
                        directions: parts.directions,
                        report,
                    })
                }
                Err(line) => missed = Some(line),
            }
        }
        let m = operator.to_csr();
        let lcp = SparseProblem { m, q: parts.q };
        let (z, report, basic) = solvers.solve_sparse_after(&lcp, &warm, &basic, missed, || {
            format!("LCP of {n} rows ({nc} contacts, {nf} with friction)")
        })?;
        Ok(IslandSolve {
            z,
            basic,
            rows: parts.rows,
            frictional: parts.frictional,
            directions: parts.directions,
            report,
        })
    }
}

/// The time-stepping LCP of one step.
#[derive(Clone, Debug)]
pub struct StepLcp {
    /// In z = (p_n, β, σ): one normal impulse per contact, then k friction impulses and one
    /// sliding speed per frictional contact.
    pub problem: Problem,
    /// Rows of G: the normals, then k tangent rows per frictional contact.
    pub rows: Vec<JacobianRow>,
    /// Indices (into the active contacts) of the contacts with μ > 0, in row order.
    pub frictional: Vec<usize>,
}

/// Assemble the LCP of the module documentation for the `active` contacts at `state`, with step
/// `h` (s), `k` friction directions and the applied wrenches `applied` (per body, without
/// contact), with the papers' position term (Stewart–Trinkle's full ψ/h, Anitescu–Potra's none:
/// [`Formulation::paper_recovery_bound`]). Public so tests and benchmarks can solve the problems
/// real scenes produce.
pub fn assemble(
    formulation: Formulation,
    k: usize,
    model: &Model,
    state: &State,
    active: &[&Contact],
    h: f64,
    applied: &[Wrench],
) -> StepLcp {
    assemble_on(
        formulation,
        k,
        &VelocityProblem::new(model, state, h, applied),
        active,
    )
}

/// [`assemble_sparse`] with the dense matrix the solvers of `solvers` take.
pub fn assemble_on(
    formulation: Formulation,
    k: usize,
    problem: &VelocityProblem,
    active: &[&Contact],
) -> StepLcp {
    let lcp = assemble_sparse(
        formulation,
        k,
        problem,
        active,
        formulation.paper_recovery_bound(),
    );
    StepLcp {
        problem: lcp.problem.to_dense(),
        rows: lcp.rows,
        frictional: lcp.frictional,
    }
}

/// The time-stepping LCP of one step with its matrix sparse (what a step assembles; fields as
/// [`StepLcp`]).
#[derive(Clone, Debug)]
pub struct SparseStepLcp {
    pub problem: SparseProblem,
    pub rows: Vec<JacobianRow>,
    pub frictional: Vec<usize>,
}

/// The LCP of the module documentation (Stewart & Trinkle 1996, eqs. 16–19; Anitescu & Potra
/// 1997 without the ψ/h term) for the `active` contacts, posed on the step's system dynamics,
/// an overlap removed at up to `max_recovery_speed` m/s ([`time_stepping::position_term`]; ∞:
/// in one step, Stewart–Trinkle's ψ/h; Anitescu–Potra's rows get the term of overlaps ψ < 0
/// only, and none at all with 0). Its matrix is assembled sparse, row by row from W's nonzeros
/// ([`DelassusRows`]) and the friction blocks' constants, in O(nnz).
pub fn assemble_sparse(
    formulation: Formulation,
    k: usize,
    problem: &VelocityProblem,
    active: &[&Contact],
    max_recovery_speed: f64,
) -> SparseStepLcp {
    let parts = StepRows::new(formulation, k, problem, active, max_recovery_speed);
    let m = StepOperator::new(&parts, problem).to_csr();
    SparseStepLcp {
        problem: SparseProblem { m, q: parts.q },
        rows: parts.rows,
        frictional: parts.frictional,
    }
}

/// What the LCP of one step is made of before its matrix is stored: the rows of G, q, and the
/// friction structure.
#[derive(Clone, Debug)]
pub struct StepRows {
    /// Rows of G: the normals, then k tangent rows per frictional contact.
    pub rows: Vec<JacobianRow>,
    /// q of z = (p_n, β, σ).
    pub q: DVector<f64>,
    /// The contacts with friction (indices into the active contacts).
    pub frictional: Vec<usize>,
    /// The k friction directions of each frictional contact, in row order (`cone::Cone`):
    /// computed once a step for the rows, the warm start and the answers kept.
    pub directions: Vec<DVec3>,
    /// μ of each active contact.
    pub mu: Vec<f64>,
    /// Active contacts.
    pub nc: usize,
    /// Friction directions.
    pub k: usize,
}

impl StepRows {
    /// The rows and q of [`assemble_sparse`].
    pub fn new(
        formulation: Formulation,
        k: usize,
        problem: &VelocityProblem,
        active: &[&Contact],
        max_recovery_speed: f64,
    ) -> Self {
        let (model, h) = (problem.model, problem.h);
        let mu: Vec<f64> = active
            .iter()
            .map(|c| model.friction(c.body_a, c.body_b))
            .collect();
        let frictional: Vec<usize> = (0..active.len()).filter(|&c| mu[c] > 0.0).collect();
        let (nc, nf) = (active.len(), frictional.len());

        // Rows of G: normals first, then k tangent rows per frictional contact.
        let mut rows: Vec<JacobianRow> = Vec::with_capacity(nc + nf * k);
        for c in active {
            rows.push(problem.row(c, c.normal));
        }
        let cone = cone::Cone::new(k);
        let mut directions = Vec::with_capacity(nf * k);
        for &c in &frictional {
            directions.extend(cone.directions(active[c].normal));
        }
        for (f, &c) in frictional.iter().enumerate() {
            for &d in &directions[f * k..(f + 1) * k] {
                rows.push(problem.row(active[c], d));
            }
        }

        // Free velocity ν_ℓ: the semi-implicit Euler velocity under the applied wrenches.
        let nu_free = problem.free_velocity();

        // The LCP in z = (p_n, β, σ).
        let n = nc + nf * k + nf;
        let mut q = DVector::zeros(n);
        for (r, row) in rows.iter().enumerate() {
            q[r] = row.dot(nu_free);
        }
        for (c, contact) in active.iter().enumerate() {
            q[c] += match formulation {
                Formulation::StewartTrinkle => {
                    time_stepping::position_term(contact.gap, h, max_recovery_speed)
                }
                // An existing overlap beyond the slop only: a gap ψ ≥ 0 gets no term (the
                // paper's G_nᵀ ν⁺ ≥ 0).
                Formulation::AnitescuPotra => time_stepping::position_term(
                    (contact.gap + time_stepping::OVERLAP_SLOP).min(0.0),
                    h,
                    max_recovery_speed,
                ),
            };
        }
        StepRows {
            rows,
            q,
            frictional,
            directions,
            mu,
            nc,
            k,
        }
    }
}

/// The matrix of a step's LCP, known through W = G M⁻¹ Gᵀ ([`DelassusRows`]) and the friction
/// blocks' constants without being stored: the tangent rows of contact f end with +1 at σ_f,
/// σ_f's row has μ_c at p_n,c and −1 at β_f. A step whose warm start holds reads only its
/// principal systems and products ([`LcpMatrix`]); [`to_csr`](Self::to_csr) stores it for the
/// rest of the chain.
pub struct StepOperator<'r> {
    w: DelassusRows<'r>,
    parts: &'r StepRows,
}

impl<'r> StepOperator<'r> {
    /// The operator of `parts` with M⁻¹ at the step's state.
    pub fn new(parts: &'r StepRows, problem: &'r VelocityProblem<'_>) -> Self {
        StepOperator {
            w: DelassusRows::new(&parts.rows, problem.inverse_mass()),
            parts,
        }
    }

    /// Impulse rows (normal and tangent): the rows of G.
    fn impulse_rows(&self) -> usize {
        self.parts.rows.len()
    }

    /// The matrix in compressed sparse rows, row by row from W's nonzeros, in O(nnz).
    pub fn to_csr(&self) -> CsrMatrix {
        let StepRows {
            frictional,
            mu,
            nc,
            k,
            ..
        } = self.parts;
        let (nc, k, nf) = (*nc, *k, frictional.len());
        let nt = nf * k;
        let n = self.n();
        let capacity = self.w.nonzeros_bound() + nf * (2 * k + 1);
        let mut row_start = Vec::with_capacity(n + 1);
        row_start.push(0);
        let (mut cols, mut values) = (Vec::with_capacity(capacity), Vec::with_capacity(capacity));
        for r in 0..nc + nt {
            self.w.append_row(r, &mut cols, &mut values);
            if r >= nc {
                cols.push(nc + nt + (r - nc) / k);
                values.push(1.0);
            }
            row_start.push(cols.len());
        }
        for (f, &c) in frictional.iter().enumerate() {
            cols.push(c);
            values.push(mu[c]);
            for j in 0..k {
                cols.push(nc + f * k + j);
                values.push(-1.0);
            }
            row_start.push(cols.len());
        }
        CsrMatrix::from_rows(n, row_start, cols, values)
    }
}

impl LcpMatrix for StepOperator<'_> {
    fn n(&self) -> usize {
        self.parts.q.len()
    }

    /// The entry [`to_csr`](StepOperator::to_csr) stores (bit for bit), 0 where it stores none.
    fn get(&self, r: usize, c: usize) -> f64 {
        let StepRows {
            frictional,
            mu,
            nc,
            k,
            ..
        } = self.parts;
        let (nc, k) = (*nc, *k);
        let m = self.impulse_rows();
        match (r < m, c < m) {
            (true, true) => self.w.entry(r, c),
            // A tangent row's +1 at its contact's σ.
            (true, false) => f64::from(u8::from(r >= nc && c == m + (r - nc) / k)),
            (false, true) => {
                let f = r - m;
                if c == frictional[f] {
                    mu[c]
                } else if (nc + f * k..nc + (f + 1) * k).contains(&c) {
                    -1.0
                } else {
                    0.0
                }
            }
            (false, false) => 0.0,
        }
    }

    /// W_αα from the rows' bodies ([`DelassusRows::principal_block`]) and the friction
    /// constants from [`get`](LcpMatrix::get): bit for bit what `get` gives everywhere.
    fn principal_submatrix(&self, alpha: &[usize]) -> DMatrix<f64> {
        self.w.principal_with(alpha, self.impulse_rows(), |r, c| self.get(r, c))
    }

    /// The impulse rows: W.
    fn symmetric_rows(&self) -> usize {
        self.impulse_rows()
    }

    /// W_αα's lower triangle ([`DelassusRows::principal_block_lower`]).
    fn symmetric_principal_lower(&self, alpha: &[usize]) -> DMatrix<f64> {
        self.w.principal_block_lower(alpha)
    }

    fn mul_add(&self, z: &DVector<f64>, q: &DVector<f64>) -> DVector<f64> {
        let StepRows {
            frictional,
            mu,
            nc,
            k,
            ..
        } = self.parts;
        let (nc, k) = (*nc, *k);
        let m = self.impulse_rows();
        let wz = self.w.mul(&z.as_slice()[..m]);
        let mut out = q.clone();
        for r in 0..m {
            out[r] += wz[r];
            if r >= nc {
                out[r] += z[m + (r - nc) / k];
            }
        }
        for (f, &c) in frictional.iter().enumerate() {
            let beta: f64 = (0..k).map(|j| z[nc + f * k + j]).sum();
            out[m + f] += mu[c] * z[c] - beta;
        }
        out
    }
}
