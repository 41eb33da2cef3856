//! PEG, the polytopal exact-geometry contact model (Williams, Lu & Trinkle 2016), in the same
//! velocity-level time stepper as Stewart–Trinkle (paper §6: "the only difference in the time
//! steppers was that one used the standard contact model and the other used PEG"), with Coulomb
//! friction on a polyhedral cone added (the paper leaves friction out).
//!
//! Polytope pairs that the narrow phase finds close are handed to `collision::potential`, which
//! enumerates their potential contacts and groups them into constraints "at least one member keeps
//! ψ ≥ 0" (U-, I- and X-constraints, eqs 17–25, per configuration, eqs 34–38). Every other contact
//! (sphere, half-space) is a plain unilateral constraint, as in the standard model: a plane or a
//! smooth surface has no corner to be trapped at.
//!
//! # One primary contact per constraint (eq. 24)
//!
//! Each constraint j gets one primary contact P_j (|C_ι| = 1), the only one that carries a force;
//! the other members K_j1 … K_jm are geometry only. The heuristic: for a vertex group, the member
//! with the **largest gap** (ties: the more applicable, then the first): the face in whose Voronoi
//! region the vertex lies (the largest face-plane distance of a point outside a convex body is the
//! face that realizes its distance), and for a penetrating vertex the face of the shallowest way
//! out. Applicability only breaks ties: a vertex swept through a thin slab also sees the slab's far
//! face, often the only "applicable" member, and a force along that face's normal pushes the body
//! *into* the slab while another constraint pushes back (measured on the pour scene: two opposite
//! impulses of 80 N s and a body spun to 700 rad/s). Edge groups have the edge–edge contact as
//! their only candidate (their releases carry no force).
//!
//! # The subproblem (eqs 39–49, velocity level)
//!
//! With ψ̂_X = ψ_X / h + G_X ν⁺ (the end-of-step gap over h, eq. 6; ψ_t = 0: no body here moves by
//! prescription) and slack variables c (m/s):
//!
//! ```text
//!   ν⁺ = ν_ℓ + M⁻¹ (Σ_j G_Pjᵀ p_j + Dᵀ β)                               (eq. 43, plus friction)
//!   0 ≤ c_js ⊥ c_j1 + … + c_js + ψ̂_Pj − ψ̂_Kjs ≥ 0     s = 1 … m       (eqs 20, 39, 45)
//!   0 ≤ p_j  ⊥ c_j1 + … + c_jm + ψ̂_Pj ≥ 0                             (eqs 24, 40, 46)
//!   0 ≤ β_j  ⊥ D_jᵀ ν⁺ + e σ_j ≥ 0,   0 ≤ σ_j ⊥ μ_j p_j − eᵀ β_j ≥ 0   (friction on P_j)
//! ```
//!
//! By Lemma 1.1 the chain makes ψ̂_Pj + Σ_s c_js = max(ψ̂_Pj, ψ̂_Kj1, …, ψ̂_Kjm): the constraint holds
//! when any member ends the step with a non-negative gap, and p_j pushes along P_j's normal only
//! when that maximum is zero. Eliminating ν⁺ as in `stewart_trinkle.rs` leaves an LCP in
//! z = (p, β, σ, c):
//!
//! ```text
//!   [ W_PP  W_PD  0   E_P ]       [ G_P ν_ℓ + ψ_P/h     ]
//!   [ W_DP  W_DD  E   0   ]       [ D ν_ℓ               ]
//!   [ μ     −Eᵀ   0   0   ] z  +  [ 0                   ]
//!   [ W_ΔP  W_ΔD  0   L   ]       [ Δ ν_ℓ + (ψ_P − ψ_K)/h ]
//! ```
//!
//! with Δ the rows G_Pj − G_Kjs (eq. 42), E_P the ones of eq. 24 and L the lower-triangular ones of
//! E_I1 (eq. 45). The ψ/h stabilization term is kept, as in the paper's experiments, except that
//! by default an overlap present at the start of the step is removed at no more than
//! `max_recovery_speed` (departure, issue 16 item 5: each constraint's recovery floor,
//! `assemble.rs`; `recovery = "full"` is the paper's). The c rows
//! have a unit diagonal, the σ rows a zero one: Lemke or Fischer–Burmeister solve it
//! (`docs/solvers.md`), with the same fallback chain as Stewart–Trinkle.
//!
//! # Activation
//!
//! The narrow phase finds the candidate pairs with Stewart–Trinkle's anticipating distance
//! (`time_stepping::anticipating_distance`). Within a pair (a, b), features are swept over
//! T = h with their velocity relative to the other body (a vertex p moving at w sweeps
//! [p, p + T w]) and kept when they come within σ = `simulation.activation_distance` +
//! T² (|ω_a|² r_a + |ω_b|² r_b + |g|) / 2 of each other: what they can close in one free step,
//! plus the second-order motion of rotation and gravity. A fast body thus gets potential contacts
//! only ahead of it, a resting one only within σ. A given `activation_distance` is σ for every
//! pair, without sweeping. T = 2h was tried: it also covers the turn a contact impulse gives the
//! body within the step, but two small polytopes at 2 m/s and 27 rad/s then have nearly all their
//! edge pairs within reach (1700 constraints, an LCP of 18,000 rows that Lemke cannot finish);
//! with T = h a corner the impulse swings down is found by the next pass, whose detection sweeps
//! the solve's velocities, and held by the implicit re-linearization (`passes`).
//!
//! # Files, by the paper's steps
//!
//! ```text
//!   constraints.rs  potential contacts → constraints: groups (eqs 17–25, 34–38) with a primary
//!                   contact and slack members (eq. 24), unilateral and recovery contacts
//!   assemble.rs     the LCP in z = (p, β, σ, c): force rows (eqs 43, 46), slack rows Δ (eq. 42),
//!                   matrix with E_P and L (eqs 20, 24, 45), friction as Stewart–Trinkle
//!   prediction.rs   implicit gap prediction about ν* (eq. 6 to higher order; Chakraborty et al.
//!                   2007): stepped poses, carried contacts, exact member gaps
//!   passes.rs       the passes of `solve_step`: solve, probe the velocities, energy guard, new
//!                   constraints, the pass kept
//!   map_back.rs     the kept pass mapped back: traps (Lemma 1.1), `PegStats`, warm-start memory
//! ```
mod assemble;
mod constraints;
mod islands;
#[cfg(feature = "internals")]
pub use islands::{check_islands, IslandCheck};
mod map_back;
mod passes;
mod prediction;

pub use map_back::PegStats;
pub(crate) use constraints::primary_member;

use super::params::model_params;
use super::time_stepping::{self, SolverChain};
use super::VelocityProblem;
use super::{
    ConfigError, ContactError, ContactImpulses, ModelBase, ModelSpec, ModelStats, ParamDefault,
    ParamKind, ParamSpec, ParamValue, Range, VelocityLevelModel,
};
use crate::collision::potential::{self, PotentialSet};
use crate::collision::Contact;
use crate::dynamics::{Model, State, Wrench};
use crate::util::hash::FastMap;
use constraints::Key;
use map_back::Previous;
use std::time::Instant;

pub const NAME: &str = "peg";

/// A constraint whose primary ends the step more than this below its plane (m) let its body pass
/// a corner the standard model's half-space would have blocked: a trap, counted in [`PegStats`].
pub const TRAP_DEPTH: f64 = 1e-9;

/// A further pass whose velocities hold more kinetic energy than this times the first pass's
/// (whose linearization is about the free motion) is not kept: re-linearizing moves where the
/// gaps are measured, not how much energy contact may add. Measured on the pour sweep: 1.1
/// stopped converging landings at 16 ms (the first pass under-rotates the body) and left mm-deep
/// overlaps; 1.5 keeps them, with the sweep's largest one-step energy gain unchanged.
pub const PASS_ENERGY_RATIO: f64 = 1.5;

/// `gap_tolerance` (m), shared with planar PEG (`planar/models/peg.rs`, its own default).
pub const GAP_TOLERANCE: ParamSpec = ParamSpec {
    name: "gap_tolerance",
    unit: "m",
    default: ParamDefault::Value(1e-7),
    description: "a constraint whose members all end the step (at the pose the pass's velocities lead to, exact geometry) deeper than this calls for another pass",
    kind: ParamKind::Number(Range::at_least(0.0)),
};

model_params! {
    /// Parameters of `peg`.
    pub struct PegParams {
        activation_distance: Option<f64> = ParamSpec {
            name: "activation_distance",
            unit: "m",
            default: ParamDefault::Derived(
            "features swept over T = h with their relative velocity, margin simulation.activation_distance + T^2 (|w_a|^2 r_a + |w_b|^2 r_b + |g|) / 2",
            ),
            description: "feature pairs closer than this are potential contacts (no sweep when given); the default sweeps each feature over its free motion in one step (r_i: body i's bounding radius about its centre of mass)",
            kind: ParamKind::Number(Range::at_least(0.0)),
        },
        applicability_angle: f64 = ParamSpec {
            name: "applicability_angle",
            unit: "rad",
            default: ParamDefault::Value(0.2),
            description: "theta of the relaxed applicability eps = sin(theta) (PEG eqs 29-31): feature pairs that a turn of theta within a step would make able to touch count as potential contacts",
            kind: ParamKind::Number(Range::closed(0.0, std::f64::consts::FRAC_PI_2)),
        },
        parallel_angle: f64 = ParamSpec {
            name: "parallel_angle",
            unit: "rad",
            default: ParamDefault::Value(1e-3),
            description: "edges closer to parallel than this give no edge-edge contact (their endpoints' vertex constraints hold them)",
            kind: ParamKind::Number(Range::closed(0.0, std::f64::consts::FRAC_PI_2)),
        },
        gap_prediction: &'static str = ParamSpec {
            name: "gap_prediction",
            unit: "-",
            default: ParamDefault::Word("implicit"),
            description: "end-of-step gap: \"linear\" psi + h G nu (PEG eq. 6 truncated after the linear term, as the paper's experiments); \"free-motion\" the exact gap of each feature pair after one free step, linearized about it (eq. 6 to higher order); \"implicit\" as free-motion, then each further pass linearizes about the pose the previous pass's velocities lead to (a Newton iteration on the exact end-of-step gaps: the turn a contact impulse gives a body no longer drives its corners into faces)",
            kind: ParamKind::Choice(&["implicit", "free-motion", "linear"]),
        },
        friction: &'static str = ParamSpec {
            name: "friction",
            unit: "-",
            default: ParamDefault::Word("coulomb"),
            description: "\"coulomb\": a polyhedral Coulomb cone on every force-carrying contact, with the materials' coefficients; \"none\": frictionless, as in the paper",
            kind: ParamKind::Choice(&["coulomb", "none"]),
        },
        max_rows: usize = ParamSpec {
            name: "max_rows",
            unit: "-",
            default: ParamDefault::Value(time_stepping::DENSE_LEMKE_ROWS as f64),
            description: "largest subproblem (rows of the LCP in p, beta, sigma, c) one island of a step may pose; an island over it keeps only the constraints the motion reaches, and a first pass still over it stops the step with a diagnosis. The default is time_stepping's DENSE_LEMKE_ROWS, the largest island whose last fallback (dense Lemke, after sparse Lemke and block Gauss-Seidel) stewart-trinkle runs too; islands of large_island_rows and more are solved on the sparse matrix first. Measured: the 64-box bin's islands reach 1,665 rows (at 1,250 the run stopped at 1.70 s); a fast spinning body can bring nearly every feature pair within reach (18,000 rows on the pour scene)",
            kind: ParamKind::Number(Range::at_least(1.0).integer()),
        },
        friction_directions: usize = time_stepping::FRICTION_DIRECTIONS,
        large_island_rows: usize = ParamSpec {
            description: "islands whose LCP has at least this many rows (when the solvers chain starts with lemke) are solved on the sparse matrix first, as stewart-trinkle's large islands (see its large_island_rows); smaller ones by the dense chain",
            ..time_stepping::LARGE_ISLAND_ROWS
        },
        large_island_sweeps: usize = time_stepping::LARGE_ISLAND_SWEEPS,
        resting_faces: &'static str = time_stepping::RESTING_FACES,
        solvers: Vec<&'static str> = time_stepping::SOLVERS,
        tolerance: f64 = time_stepping::TOLERANCE,
        max_iterations: usize = time_stepping::MAX_ITERATIONS,
        max_pivots: Option<usize> = time_stepping::MAX_PIVOTS,
        relaxation: f64 = time_stepping::RELAXATION,
        on_failure: &'static str = time_stepping::ON_FAILURE,
        passes: usize = ParamSpec {
            name: "passes",
            unit: "-",
            default: ParamDefault::Value(4.0),
            description: "most detection + solve passes per step; a further pass runs only when the last pass's velocities bring new potential contacts within reach or leave a constraint's exact end-of-step gap below -gap_tolerance",
            kind: ParamKind::Number(Range::at_least(1.0).integer()),
        },
        gap_tolerance: f64 = GAP_TOLERANCE,
        recovery: &'static str = ParamSpec {
            description: "\"bounded\": a constraint that overlaps at the start of the step (largest member gap d < 0) must end it with that gap at least min(0, d + max_recovery_speed h), so an overlap goes at up to that speed, and a constraint that does not overlap is the paper's; \"full\": the paper's psi / h, which removes any overlap in one step whatever the speed it takes",
            ..time_stepping::RECOVERY
        },
        max_recovery_speed: f64 = time_stepping::MAX_RECOVERY_SPEED,
        recovery_depth: f64 = ParamSpec {
            name: "recovery_depth",
            unit: "m",
            default: ParamDefault::Value(1e-5),
            description: "a polytope pair that the narrow phase finds overlapping deeper than this also gets its standard (narrow-phase) contacts as unilateral constraints, which push the pieces apart; PEG's groups alone hold what they see, not an overlap that an unseen feature pair let in",
            kind: ParamKind::Number(Range::at_least(0.0)),
        },
        projection: &'static str = ParamSpec {
            default: ParamDefault::Word("post-step"),
            description: "\"post-step\": as stewart-trinkle's, the positions projected after the step when a narrow-phase contact is deeper than projection_tolerance and not deeper than max_recovery_speed h (docs/collision.md), which removes what PEG's constraints let in (a pile of boxes lands within 1e-8 m with it, 1e-5 – 1e-3 m without: docs/peg.md); or \"none\" (the paper's PEG: its constraints prevent overlap, nothing corrects it afterwards; the paper's experiments use it)",
            ..time_stepping::PROJECTION
        },
        projection_tolerance: f64 = time_stepping::PROJECTION_TOLERANCE,
        search_reuse: f64 = ParamSpec {
            name: "search_reuse",
            unit: "m",
            default: ParamDefault::Value(1e-10),
            description: "a polytope pair whose relative placement moved less than this (m, and as many rad) since its last potential-contact search, both searches sweeping less than it and with the same thresholds, takes that search's feature pairs and groups again with each contact carried along with its bodies (collision::potential's reuse; a resting pile searches once, not every step); 0: every pair searched afresh every step",
            kind: ParamKind::Number(Range::at_least(0.0)),
        },
    }
}

const PARAMS: &[ParamSpec] = PegParams::SPECS;

pub const SPEC: ModelSpec = ModelSpec {
    name: NAME,
    summary: "PEG: geometrically exact polytope contact (potential contacts before penetration, one primary contact per I/X-constraint) in the Stewart-Trinkle time stepper, polyhedral friction cone",
    params: PARAMS,
};

/// The PEG contact model.
pub struct Peg {
    values: Vec<ParamValue>,
    activation_distance: Option<f64>,
    /// θ (rad) of the applicability relaxation, before the pair's turn over the horizon.
    applicability_angle: f64,
    parallel_sine: f64,
    /// Gap prediction: exact gaps at a predicted pose (else linear), re-linearized each pass.
    predict: bool,
    implicit: bool,
    /// Most passes per step, and the end-of-step depth (m) that calls for another.
    passes: usize,
    gap_tolerance: f64,
    /// Narrow-phase overlap (m) beyond which a polytope pair also gets its standard contacts.
    recovery_depth: f64,
    /// Bound of the position term's recovery speed, m/s (∞: the paper's ψ/h).
    max_recovery_speed: f64,
    /// `resting_faces = "least-norm"` (`passes.rs`, `solve_lcp`).
    least_norm: bool,
    frictional: bool,
    /// Largest LCP a step may pose (rows).
    max_rows: usize,
    directions: usize,
    solvers: SolverChain,
    radii: Vec<f64>,
    /// Faces covered by another piece of the same body, per body and piece.
    covered: Vec<Vec<Vec<bool>>>,
    potential: PotentialSet,
    scratch: potential::Scratch,
    previous: FastMap<Key, Previous>,
    last: PegStats,
    /// `projection = "post-step"` (`pipeline::projection`).
    projection: Option<time_stepping::PositionProjection>,
}

impl Peg {
    /// `values` in the order of the spec's parameters.
    pub fn new(values: &[ParamValue]) -> Result<Self, ConfigError> {
        let p = PegParams::from_values(values);
        Ok(Peg {
            values: values.to_vec(),
            activation_distance: p.activation_distance,
            applicability_angle: p.applicability_angle,
            parallel_sine: p.parallel_angle.sin(),
            predict: p.gap_prediction != "linear",
            implicit: p.gap_prediction == "implicit",
            passes: p.passes,
            gap_tolerance: p.gap_tolerance,
            recovery_depth: p.recovery_depth,
            max_recovery_speed: time_stepping::recovery_bound(p.recovery, p.max_recovery_speed),
            least_norm: p.resting_faces == "least-norm",
            frictional: p.friction == "coulomb",
            max_rows: p.max_rows,
            directions: p.friction_directions,
            solvers: time_stepping::solver_chain!(p)?
                .with_large_problems(Some((p.large_island_rows, p.large_island_sweeps))),
            radii: Vec::new(),
            covered: Vec::new(),
            potential: PotentialSet::default(),
            scratch: {
                let mut scratch = potential::Scratch::default();
                scratch.reuse_within(Some(p.search_reuse).filter(|&t| t > 0.0));
                scratch
            },
            previous: FastMap::default(),
            last: PegStats::default(),
            projection: time_stepping::PositionProjection::from_params(
                p.projection,
                p.projection_tolerance,
                time_stepping::recovery_bound(p.recovery, p.max_recovery_speed),
            ),
        })
    }

    /// The model with every parameter at its default.
    pub fn with_defaults() -> Self {
        Peg::new(&PegParams::defaults()).expect("defaults are valid")
    }

    /// What the last step's subproblem held.
    pub fn last_stats(&self) -> PegStats {
        self.last
    }

    /// The potential contacts and groups of the last step.
    pub fn potential_contacts(&self) -> &PotentialSet {
        &self.potential
    }
}

impl ModelBase for Peg {
    fn spec(&self) -> ModelSpec {
        SPEC
    }

    /// The last step's [`PegStats`].
    fn counters(&self) -> Vec<(&'static str, u64)> {
        let s = self.last;
        [
            ("unilateral", s.unilateral),
            ("inter", s.inter),
            ("cross", s.cross),
            ("slacks", s.slacks),
            ("traps", s.traps),
            ("passes", s.passes),
            ("passes_dropped", s.passes_dropped),
        ]
        .into_iter()
        .map(|(n, v)| (n, v as u64))
        .collect()
    }

    fn parameters(&self) -> Vec<(&'static str, ParamValue)> {
        super::named_values(PARAMS, &self.values)
    }

    fn activation_distance(&self, model: &Model, state: &State) -> f64 {
        if let Some(d) = self.activation_distance {
            return d;
        }
        time_stepping::anticipating_distance(model, state, &self.radii)
    }
}

impl VelocityLevelModel for Peg {
    fn projection(&self) -> Option<time_stepping::PositionProjection> {
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
        if self.radii.len() != model.bodies.len() {
            self.radii = time_stepping::body_radii(model);
        }
        let distance = self.activation_distance(model, state);
        let t0 = Instant::now();
        let mut constraints = self.constraints(model, state, contacts, distance);
        let detection = t0.elapsed().as_secs_f64();
        self.last = PegStats::default();
        if constraints.is_empty() {
            self.previous.clear();
            return Ok(ModelStats {
                detection,
                ..ModelStats::default()
            });
        }
        let k = self.directions;
        let passes = self.run_passes(
            problem,
            contacts,
            distance,
            &mut constraints,
            detection,
            out,
        )?;
        Ok(self.map_back(
            passes,
            &mut constraints,
            (h, k, problem.offsets()),
            out,
            log,
        ))
    }
}
