//! What the velocity-level time-stepping models share (`stewart_trinkle.rs`, `peg.rs`): the
//! parameters they have in common, the anticipating activation distance and the solver fallback
//! chain (the free velocity and inverse mass come with the step's `VelocityProblem`). The PEG paper's experiments (§6) ran "the
//! same time stepper" with two contact models; this module is that time stepper's common part.
use super::{ConfigError, ContactError, ParamDefault, ParamKind, ParamSpec, Range, SolveReport};
use crate::dynamics::{Model, State};
use crate::solvers::block_gauss_seidel::BlockGaussSeidel;
use crate::solvers::lemke::Lemke;
use crate::solvers::sparse::{self, LcpMatrix, SparseProblem};
use crate::solvers::{self, lemke_sparse, Options, Problem, Solver};
use crate::util::disjoint::DisjointSets;
use nalgebra::{DMatrix, DVector};
use std::time::Instant;

/// Solver names, in the default fallback order.
pub const SOLVER_NAMES: &[&str] = &["lemke", "fischer-burmeister", "pgs", "block-gauss-seidel"];

pub const ACTIVATION: ParamSpec = ParamSpec {
    name: "activation",
    unit: "-",
    default: ParamDefault::Word("anticipating"),
    description: "which contacts enter the problem: \"anticipating\" (Nguyen-Trinkle type 2: every contact with gap below activation_distance) or \"penetrating\" (type 1: only contacts with gap < 0)",
    kind: ParamKind::Choice(&["anticipating", "penetrating"]),
};

pub const ACTIVATION_DISTANCE: ParamSpec = ParamSpec {
    name: "activation_distance",
    unit: "m",
    default: ParamDefault::Derived(
        "simulation.activation_distance + 4 h max_i(|v_i| + |w_i| r_i + h |g|)",
    ),
    description: "contacts closer than this are detected; the default covers any pair's approach over one step with a factor 2 (r_i: body i's bounding radius about its centre of mass)",
    kind: ParamKind::Number(Range::at_least(0.0)),
};

pub const MANIFOLD: ParamSpec = ParamSpec {
    name: "manifold",
    unit: "-",
    default: ParamDefault::Word("near-features"),
    description: "which points of a close polytope pair get rows (with activation = \"anticipating\"): \"near-features\": the points of the axis that realizes the gap (clipped faces, or one point) and every vertex, edge pair and edge crossing a face's boundary within the pair's reach (2 h times its closing speed, at most the activation distance; docs/collision.md), so a turning body is stopped at the point that will touch; \"axis\": the axis's points only (one point for an edge-edge or vertex-edge gap)",
    kind: ParamKind::Choice(&["near-features", "axis"]),
};

/// Whether a model with these `activation` and `manifold` words asks for near features: with
/// anticipating activation only (a penetrating one puts no gap ψ > 0 in the problem).
pub fn near_features(activation: &str, manifold: &str) -> bool {
    activation == "anticipating" && manifold == "near-features"
}

pub const MAX_RECOVERY_SPEED: ParamSpec = ParamSpec {
    name: "max_recovery_speed",
    unit: "m/s",
    default: ParamDefault::Value(0.5),
    description: "an overlap is removed at no more than this normal speed: the position term of a normal row is max(psi, -v h) / h instead of psi / h (a gap, psi >= 0, is untouched); with recovery = \"full\" it is not used",
    kind: ParamKind::Number(Range::open(0.0, f64::INFINITY)),
};

/// Islands from this many rows go to the sparse path (`stewart-trinkle`, `anitescu-potra`, `peg`).
pub const LARGE_ISLAND_ROWS: ParamSpec = ParamSpec {
    name: "large_island_rows",
    unit: "-",
    default: ParamDefault::Value(300.0),
    description: "islands whose LCP has at least this many rows (when the solvers chain starts with lemke) are solved by Lemke's method on the sparse matrix (sparse LU of the basis, warm-started from last step's basis), then block-gauss-seidel on the sparse matrix, then the rest of the chain on the dense matrix up to 1000 rows (above, dense lemke alone up to 4000 rows; then the step fails: on_failure); smaller ones by the dense chain",
    kind: ParamKind::Number(Range::at_least(1.0).integer()),
};

/// The sweep limit of block Gauss–Seidel on a large island.
pub const LARGE_ISLAND_SWEEPS: ParamSpec = ParamSpec {
    name: "large_island_sweeps",
    unit: "-",
    default: ParamDefault::Value(2000.0),
    description: "sweep limit of block-gauss-seidel on a large island (see large_island_rows) when sparse Lemke misses, before the rest of the solvers chain",
    kind: ParamKind::Number(Range::at_least(1.0).integer()),
};

/// How a small island's warm start loads a face resting on a face (`stewart-trinkle`,
/// `anitescu-potra`, `peg`; docs/solvers.md, "Resting faces").
pub const RESTING_FACES: ParamSpec = ParamSpec {
    name: "resting_faces",
    unit: "-",
    default: ParamDefault::Word("least-norm"),
    description: "\"least-norm\": on a step whose LCP stays below large_island_rows, the warm start proposes every contact matched from last step and solves singular principal systems for their least-norm answer, so a face resting on a face carries its load on all four corners (a stack holds to round-off at any step size); \"vertex\": Lemke's vertex answers only (three corners; the boxes of a stack rock on the diagonal by round-off, but piles solve 1.3-5x faster)",
    kind: ParamKind::Choice(&["least-norm", "vertex"]),
};

pub const RECOVERY: ParamSpec = ParamSpec {
    name: "recovery",
    unit: "-",
    default: ParamDefault::Word("bounded"),
    description: "\"bounded\": an overlap is removed at up to max_recovery_speed; \"full\": the papers' psi / h, which removes any overlap in one step whatever the speed it takes",
    kind: ParamKind::Choice(&["bounded", "full"]),
};

/// `recovery` of `anitescu-potra`, whose paper has no position term: the bounded correction
/// applies to an existing overlap only, and `"none"` is the paper's model.
pub const RECOVERY_ANITESCU_POTRA: ParamSpec = ParamSpec {
    description: "\"bounded\": an existing overlap (gap psi < -1e-10 m) is removed at up to max_recovery_speed (down to 1e-10 m), a gap psi >= 0 gets no position term (the paper's constraint, bodies stop at the gap they have); \"full\": an overlap is removed in one step, at |psi| / h; \"none\": the paper's model, no position term at all, an overlap is never removed",
    kind: ParamKind::Choice(&["bounded", "full", "none"]),
    ..RECOVERY
};

/// Overlap (m) that anitescu-potra's correction of existing overlaps leaves alone: a contact's
/// row gets the position term of min(0, ψ + OVERLAP_SLOP), so an overlap is removed down to this
/// depth and the round-off overlaps of resting contacts get none. Correcting those (of order
/// 1e-12 m on the 10-box stack) made the rows of a box's coplanar corners ask for separation
/// speeds no rigid motion meets at once (the correction is not affine over the face, as ψ/h
/// is), so the load jumped between corners: at h = 1/240 s five steps took 4.8 s of Lemke
/// misses and fallbacks (the run 6.0 s instead of 0.7 s). The overlaps left alone add up along
/// a stack: with 1e-9 m the 10-box stack's top box drifted 1.74e-9 m in 10 s at h = 1/240 s,
/// above the 1e-9 m (`signorini experiment robustness`); with 1e-10 m it drifts
/// 7.9e-10 m (8.1e-11 m at h = 1e-3), and the run takes 1.6 s, not slowed by the load jumping
/// that 1e-12 m caused. It is 1e-4 of the bin's penetration target (1e-6 m).
pub const OVERLAP_SLOP: f64 = 1e-10;

/// The end-of-step gap (m) a pair whose gap at the start of the step is ψ must at least reach:
/// 0 when ψ ≥ −v_max h (a gap closes no further than contact, an overlap of up to v_max h goes
/// in one step), ψ + v_max h for a deeper overlap (it shrinks by v_max h per step, so the pair
/// separates at no more than v_max). Issue 16, item 5; v_max = ∞ is the papers' 0.
pub fn recovery_floor(gap: f64, h: f64, max_recovery_speed: f64) -> f64 {
    (gap + max_recovery_speed * h).min(0.0)
}

/// The position term of a normal (or gap-function) row, ψ/h in PEG eq. 7 and Stewart–Trinkle's
/// stabilised constraint ψ/h + Gᵀν⁺ ≥ 0: an overlap ψ < 0 asks the step's end velocity to
/// separate the pair by −ψ/h, removing it in one step, which throws a body started 5 cm deep at
/// 0.05/h m/s (50 m/s at h = 1 ms). Bounded (issue 16, item 5, as Box2D bounds its push-out
/// velocity): (ψ − [`recovery_floor`])/h = max(ψ, −v_max h)/h, so the pair separates at no more
/// than v_max and the overlap goes in |ψ|/v_max seconds; a gap ψ ≥ 0 is untouched (anticipation
/// unchanged). `max_recovery_speed` = ∞ is the papers' ψ/h.
pub fn position_term(gap: f64, h: f64, max_recovery_speed: f64) -> f64 {
    gap.max(-max_recovery_speed * h) / h
}

/// The bound of [`position_term`] from the `recovery` and `max_recovery_speed` parameters:
/// ∞ for `full`, 0 for `none` (anitescu-potra's: no overlap is removed), else
/// `max_recovery_speed`.
pub fn recovery_bound(recovery: &str, max_recovery_speed: f64) -> f64 {
    match recovery {
        "full" => f64::INFINITY,
        "none" => 0.0,
        _ => max_recovery_speed,
    }
}

pub const PROJECTION: ParamSpec = ParamSpec {
    name: "projection",
    unit: "-",
    default: ParamDefault::Word("post-step"),
    description: "\"post-step\": after the step, when a contact is deeper than projection_tolerance and not deeper than v h (v = max_recovery_speed), the positions of the islands involved are projected: the smallest mass-weighted displacement that gives every such contact of those islands a gap of at least -1e-10 m and keeps deeper ones from going deeper (those the velocity-level position term removes at v); velocities unchanged; Cline and Pai's post-stabilization; docs/collision.md. It removes the overlap a turning body's linearized step leaves; \"none\": the step alone",
    kind: ParamKind::Choice(&["post-step", "none"]),
};

pub const PROJECTION_TOLERANCE: ParamSpec = ParamSpec {
    name: "projection_tolerance",
    unit: "m",
    default: ParamDefault::Value(1e-8),
    description: "with projection = \"post-step\": a step ending with a contact deeper than this projects positions (1e-8 m: 1 % of the constraint models' 1e-6 m target, far above a resting pile's round-off overlaps of ~1e-12 m)",
    kind: ParamKind::Number(Range::open(0.0, f64::INFINITY)),
};

/// How a velocity-level model's step ends (`pipeline::projection`): positions projected when a
/// contact is deeper than `tolerance` (m) and not deeper than `max_recovery_speed` h (m/s; ∞
/// with `recovery = "full"`), down to the `slop` (m).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PositionProjection {
    pub tolerance: f64,
    pub max_recovery_speed: f64,
    pub slop: f64,
}

impl PositionProjection {
    /// From the `projection`, `projection_tolerance` and the model's recovery bound
    /// ([`recovery_bound`]); `None` for `"none"` or a model that removes no overlap (bound 0).
    pub fn from_params(projection: &str, tolerance: f64, max_recovery_speed: f64) -> Option<Self> {
        (projection == "post-step" && max_recovery_speed > 0.0).then_some(PositionProjection {
            tolerance,
            max_recovery_speed,
            slop: OVERLAP_SLOP,
        })
    }
}

pub const FRICTION_DIRECTIONS: ParamSpec = ParamSpec {
    name: "friction_directions",
    unit: "-",
    default: ParamDefault::Value(4.0),
    description:
        "k, the number of tangent directions of the polyhedral friction cone (an integer >= 3)",
    kind: ParamKind::Number(Range::at_least(3.0).integer()),
};

pub const SOLVERS: ParamSpec = ParamSpec {
    name: "solvers",
    unit: "-",
    default: ParamDefault::Words(SOLVER_NAMES),
    description: "LCP solvers tried in this order until one meets the tolerance",
    kind: ParamKind::List(SOLVER_NAMES),
};

pub const TOLERANCE: ParamSpec = ParamSpec {
    name: "tolerance",
    unit: "-",
    default: ParamDefault::Value(1e-8),
    description: "a solve succeeds when ||min(z, Mz + q)||_inf / ||q||_inf is at most this",
    kind: ParamKind::Number(Range::at_least(0.0)),
};

pub const MAX_ITERATIONS: ParamSpec = ParamSpec {
    name: "max_iterations",
    unit: "-",
    default: ParamDefault::Value(500.0),
    description: "iteration limit of the iterative solvers (PGS sweeps, Newton iterations)",
    kind: ParamKind::Number(Range::at_least(1.0).integer()),
};

pub const MAX_PIVOTS: ParamSpec = ParamSpec {
    name: "max_pivots",
    unit: "-",
    default: ParamDefault::Derived("100 + 20 n for a problem of n rows"),
    description: "pivot limit of Lemke's method",
    kind: ParamKind::Number(Range::at_least(1.0).integer()),
};

pub const RELAXATION: ParamSpec = ParamSpec {
    name: "relaxation",
    unit: "-",
    default: ParamDefault::Value(1.0),
    description: "over-relaxation factor of PGS, in (0, 2)",
    kind: ParamKind::Number(Range::open(0.0, 2.0)),
};

pub const ON_FAILURE: ParamSpec = ParamSpec {
    name: "on_failure",
    unit: "-",
    default: ParamDefault::Word("stop"),
    description: "when no solver meets the tolerance: \"stop\" the run with the residuals, or \"continue\" with the answer of smallest residual (counted in metrics.csv)",
    kind: ParamKind::Choice(&["stop", "continue"]),
};

/// Bounding radius of each body about its centre of mass (m).
pub fn body_radii(model: &Model) -> Vec<f64> {
    model.bodies.iter().map(|b| b.bounding_radius()).collect()
}

/// A bound on how fast any point of body `i` moves during the next step (m/s):
/// |v| + |ω| r + h |g|, with `radius` its bounding radius. Zero for fixed bodies.
pub fn speed_bound(model: &Model, state: &State, i: usize, radius: f64) -> f64 {
    if model.bodies[i].fixed {
        return 0.0;
    }
    let s = &model.settings;
    let bs = &state.bodies[i];
    bs.velocity.length() + bs.angular_velocity.length() * radius + s.time_step * s.gravity.length()
}

/// The anticipating (type 2) activation distance of the time-stepping models (m):
/// `simulation.activation_distance + 4 h max_i(|v_i| + |ω_i| r_i + h |g|)`, with `radii` from
/// [`body_radii`] (computed here when not given for every body).
pub fn anticipating_distance(model: &Model, state: &State, radii: &[f64]) -> f64 {
    let s = &model.settings;
    let h = s.time_step;
    let radius = |i: usize| {
        radii
            .get(i)
            .copied()
            .unwrap_or_else(|| model.bodies[i].bounding_radius())
    };
    let fastest = model
        .bodies
        .iter()
        .zip(&state.bodies)
        .enumerate()
        .filter(|(_, (b, _))| !b.fixed)
        .map(|(i, (_, bs))| {
            bs.velocity.length() + bs.angular_velocity.length() * radius(i) + h * s.gravity.length()
        })
        .fold(0.0, f64::max);
    s.activation_distance + 4.0 * h * fastest
}

/// The independent blocks of `problem`: the connected components of the graph on its rows with
/// an edge wherever M_ij ≠ 0 or M_ji ≠ 0, each a list of rows, increasing; blocks ordered by their
/// first row. O(n²) over the dense matrix.
pub fn independent_blocks(problem: &Problem) -> Vec<Vec<usize>> {
    let n = problem.len();
    let mut sets = DisjointSets::new(n);
    // Once every row is in one block nothing is left to find (a stack's problem is one block:
    // scanning its whole matrix was an eighth of a PEG step on the 10-box stack).
    let mut blocks_left = n;
    'columns: for j in 0..n {
        for (i, &m_ij) in problem.m.column(j).iter().enumerate() {
            if i != j && m_ij != 0.0 && sets.root(i) != sets.root(j) {
                sets.union(i, j);
                blocks_left -= 1;
                if blocks_left == 1 {
                    break 'columns;
                }
            }
        }
    }
    let mut block_of_root = vec![usize::MAX; n];
    let mut blocks: Vec<Vec<usize>> = Vec::new();
    for i in 0..n {
        let r = sets.root(i);
        if block_of_root[r] == usize::MAX {
            block_of_root[r] = blocks.len();
            blocks.push(Vec::new());
        }
        blocks[block_of_root[r]].push(i);
    }
    blocks
}

/// The [`SolverChain`] of a model's typed parameters that carry the time stepper's solver fields
/// (`solvers`, `tolerance`, `max_iterations`, `max_pivots`, `relaxation`, `on_failure`).
macro_rules! solver_chain {
    ($p:expr) => {
        $crate::contact::time_stepping::SolverChain::new(
            &$p.solvers,
            $p.tolerance,
            $p.max_iterations,
            $p.max_pivots,
            $p.relaxation,
            $p.on_failure,
        )
    };
}
pub(crate) use solver_chain;

/// Rounds of principal pivoting ([`sparse::principal_pivoting`]) that repair a warm start before
/// Lemke's method runs from scratch, or an answer that just misses the tolerance (the default of
/// [`SolverChain::with_repair_rounds`]).
pub const REPAIR_ROUNDS: usize = 6;

/// A large island (see [`SolverChain::with_large_problems`]) that sparse Lemke and sparse block
/// Gauss–Seidel both leave unsolved goes on to the rest of the chain on the dense matrix only
/// up to this many rows; above, only to dense Lemke (up to [`DENSE_LEMKE_ROWS`]), and if that
/// misses too the step fails (or, with `on_failure = "continue"`, keeps block Gauss–Seidel's
/// answer, marked failed). The dense Fischer–Burmeister Newton method factors the
/// n × n matrix every iteration: ~7e9 flops a Newton step at 2,202 rows, and one step of a 64-box
/// pile under stewart-trinkle (`bin_64`, spawn seed 7, t = 1.52 s) ran for more than 20 minutes
/// in it. At 1,000 rows a dense factorization takes ~0.1 s.
pub const DENSE_FALLBACK_ROWS: usize = 1000;

/// Above [`DENSE_FALLBACK_ROWS`], a large island that sparse Lemke and block Gauss–Seidel miss is
/// given to the dense Lemke method alone (explicit B⁻¹: 8n² bytes, O(n²) a pivot), up to this
/// many rows (128 MB). The two implementations' paths part on round-off, and on such islands
/// one solves what the other misses: measured on `bin_64` under anitescu-potra (spawn seed 7,
/// t = 2.26 s), an island of 1,362 rows that sparse Lemke left at 9.5e-8 (5,077 pivots) and
/// block Gauss–Seidel at 8.5e-6 (2,000 sweeps) was solved by the dense method to 2.0e-10 in
/// 1,967 pivots, 0.6 s.
pub const DENSE_LEMKE_ROWS: usize = 4000;

/// The report of one island's solve of `rows` rows that `solver` met the tolerance on, after
/// (iterations, residual) and `attempts` attempts in all, in `seconds`.
fn solved_report(
    rows: usize,
    solver: &'static str,
    (iterations, residual): (usize, f64),
    attempts: usize,
    seconds: f64,
) -> SolveReport {
    SolveReport {
        rows,
        solver,
        iterations,
        residual,
        attempts,
        seconds,
        failed: false,
        islands: 1,
    }
}

/// In a chain's list of attempts made: Lemke's method on the sparse matrix
/// ([`lemke_sparse`]) was tried.
const SPARSE_LEMKE: &str = "lemke (sparse)";

/// In a chain's list of attempts made: Lemke's warm start (the principal system on the last
/// support) was tried, not the method.
const WARM_START_ONLY: &str = "lemke warm start";

/// The solvers of a time-stepping model, tried in order until one meets the tolerance.
///
/// `lemke` on a dense problem that its explicit-inverse path misses (after the regularized
/// restarts, `solvers::lemke` module doc) is run again with the basis in sparse LU factors
/// (`solvers::lemke_sparse`, refactored every 40 pivots), before the next solver: the same
/// method whose path, through the round-off of different linear algebra, can differ. Measured on
/// an island of 180 rows of a 64-box pile under anitescu-potra (`bin_64`, spawn seed 7,
/// t = 2.04 s): the dense path and its restarts end at 1.1e-7 (a ray), every other solver
/// misses (block Gauss–Seidel 5.7e-8 in 500 sweeps), the sparse path solves it to 2.9e-11 in
/// 108 pivots.
pub struct SolverChain {
    solvers: Vec<Box<dyn Solver>>,
    options: Options,
    max_pivots: Option<usize>,
    stop_on_failure: bool,
    /// Problems of at least this many rows try block Gauss–Seidel first, with this sweep limit
    /// (`solve_sparse`).
    large: Option<(usize, usize)>,
    /// Rounds of principal pivoting that repair a warm start or a near answer (0: none).
    repair_rounds: usize,
}

impl SolverChain {
    /// From the values of the parameters `solvers`, `tolerance`, `max_iterations`, `max_pivots`
    /// (None: derived), `relaxation` and `on_failure` ("stop" or "continue").
    pub fn new(
        solver_names: &[&str],
        tolerance: f64,
        max_iterations: usize,
        max_pivots: Option<usize>,
        relaxation: f64,
        on_failure: &str,
    ) -> Result<Self, ConfigError> {
        let mut solver_list = Vec::new();
        for name in solver_names {
            solver_list.push(solvers::by_name(name).ok_or_else(|| ConfigError::Invalid {
                param: "solvers".into(),
                value: name.to_string(),
                expected: format!("a solver of this build: {}", solvers::names()),
            })?);
        }
        Ok(SolverChain {
            solvers: solver_list,
            options: Options {
                tolerance,
                max_iterations,
                max_pivots: 0,
                relaxation,
            },
            max_pivots,
            stop_on_failure: on_failure == "stop",
            large: None,
            repair_rounds: REPAIR_ROUNDS,
        })
    }

    /// At most `rounds` rounds of principal pivoting repair a warm start that just misses, or an
    /// answer a solver reached that misses the tolerance (default [`REPAIR_ROUNDS`]; 0: no
    /// repair, each solver's answer as it gave it — the chain's fallbacks alone).
    pub fn with_repair_rounds(mut self, rounds: usize) -> Self {
        self.repair_rounds = rounds;
        self
    }

    /// Problems of at least `rows` unknowns try block Gauss–Seidel on the sparse matrix, for at
    /// most `sweeps` sweeps, before the chain ([`solve_sparse`](Self::solve_sparse)); `None`:
    /// never.
    pub fn with_large_problems(mut self, large: Option<(usize, usize)>) -> Self {
        self.large = large;
        self
    }

    /// Solve the sparse `problem` from `warm`, building the dense matrix only when the sparse
    /// attempts miss. When the chain starts with Lemke:
    /// 1. a problem of at least [`with_large_problems`](Self::with_large_problems) rows goes to
    ///    Lemke's method on the sparse matrix ([`lemke_sparse::solve`]: from the basis {zᵢ > 0 in
    ///    `warm`} — see [`solve_sparse_from`](Self::solve_sparse_from) for the basic rows — then
    ///    from B = I, with a sparse LU of the basis) and, if that misses, to block Gauss–Seidel
    ///    from `warm` on the sparse matrix (O(nnz) a sweep, at most the sweep limit given there);
    /// 2. a smaller one tries Lemke's warm start ([`warm_start`](Self::warm_start): the
    ///    principal system on last step's basis or the support of `warm`, repaired by a few
    ///    rounds of principal pivoting, accepted by the residual: in time stepping the support
    ///    usually repeats from step to step);
    ///
    /// then the chain on the dense problem ([`solve`](Self::solve)), without the attempts already
    /// made.
    pub fn solve_sparse(
        &self,
        problem: &SparseProblem,
        warm: &DVector<f64>,
        what: impl FnOnce() -> String,
    ) -> Result<(DVector<f64>, SolveReport), ContactError> {
        let (z, report, _) = self.solve_sparse_from(problem, warm, &[], what)?;
        Ok((z, report))
    }

    /// [`solve_sparse`](Self::solve_sparse) with the rows `basic` known to have been basic at the
    /// end of the last solve (empty: none known; Lemke's warm start proposes the active set
    /// {zᵢ > 0 in `warm`} ∪ basic), returning as well the rows basic at the end of this solve
    /// (empty unless Lemke answered) to pass to the next.
    pub fn solve_sparse_from(
        &self,
        problem: &SparseProblem,
        warm: &DVector<f64>,
        basic: &[bool],
        what: impl FnOnce() -> String,
    ) -> Result<(DVector<f64>, SolveReport, Vec<bool>), ContactError> {
        self.solve_sparse_after(problem, warm, basic, None, what)
    }

    /// Is a problem of `n` rows a large one ([`with_large_problems`](Self::with_large_problems))?
    pub fn is_large(&self, n: usize) -> bool {
        self.large.is_some_and(|(rows, _)| n >= rows)
    }

    /// Does [`warm_start`](Self::warm_start) apply to a problem of `n` rows from `warm`? (The
    /// chain starts with Lemke, the problem is not a large one and `warm` is not zero.)
    pub fn warm_start_applies(&self, n: usize, warm: &DVector<f64>) -> bool {
        let lemke_first = self.solvers.first().is_some_and(|s| s.name() == "lemke");
        lemke_first && !self.is_large(n) && warm.iter().any(|&x| x != 0.0)
    }

    /// Lemke's warm start on the LCP (m, q), which may be an operator that never forms its
    /// matrix: the principal system on last step's basis `basic` with the support of `warm`,
    /// then on the support of `warm` alone, each repaired by principal pivoting
    /// ([`repair_from`](Self::repair_from)) and accepted by the scaled residual; with
    /// `least_norm` a singular principal system gets its least-norm answer
    /// ([`sparse::principal_pivoting`]). Ok: the answer, its report and its support (the basis
    /// to propose next time); Err: the line for the list of attempts.
    pub fn warm_start(
        &self,
        m: &impl LcpMatrix,
        q: &DVector<f64>,
        warm: &DVector<f64>,
        basic: &[bool],
        least_norm: bool,
    ) -> Result<(DVector<f64>, SolveReport, Vec<bool>), String> {
        let t0 = Instant::now();
        let n = q.len();
        let positive: Vec<bool> = warm.iter().map(|&x| x > 0.0).collect();
        match self.repair_from(m, q, basic, positive, least_norm) {
            Ok((r, rounds)) => {
                let report = SolveReport {
                    rows: n,
                    solver: "lemke",
                    iterations: rounds,
                    residual: r.residual,
                    attempts: 1,
                    seconds: t0.elapsed().as_secs_f64(),
                    failed: false,
                    islands: 1,
                };
                Ok((r.z, report, r.support))
            }
            Err((starts, rounds)) => Err(format!(
                "lemke warm start (the last step's support, {starts} start(s), {rounds} rounds of principal pivoting): no answer within the tolerance"
            )),
        }
    }

    /// Principal pivoting ([`sparse::principal_pivoting`], at most `repair_rounds` rounds each)
    /// from the support `positive` joined with the basic rows `basic` (a basic zᵢ may be 0 in a
    /// degenerate problem, and without its row the principal system is another one), then —
    /// when that start differs and is singular or not repaired — from `positive` alone. Ok: the
    /// answer and the rounds made over all starts; Err: the starts tried and the rounds made.
    fn repair_from(
        &self,
        m: &impl LcpMatrix,
        q: &DVector<f64>,
        basic: &[bool],
        positive: Vec<bool>,
        least_norm: bool,
    ) -> Result<(sparse::Repaired, usize), (usize, usize)> {
        let with_basis: Vec<bool> = (0..positive.len())
            .map(|i| positive[i] || basic.get(i) == Some(&true))
            .collect();
        let starts = if with_basis == positive {
            vec![positive]
        } else {
            vec![with_basis, positive]
        };
        let mut rounds_made = 0;
        for start in &starts {
            let tolerance = self.options.tolerance;
            match sparse::principal_pivoting(m, q, start, self.repair_rounds, tolerance, least_norm)
            {
                Ok(r) => {
                    let rounds = rounds_made + r.rounds;
                    return Ok((r, rounds));
                }
                Err(rounds) => rounds_made += rounds,
            }
        }
        Err((starts.len(), rounds_made))
    }

    /// [`solve_sparse_from`](Self::solve_sparse_from) after the warm start was already tried
    /// ([`warm_start`](Self::warm_start) on an operator): `warm_start_missed` is its line for
    /// the list of attempts (None: not tried, try it here on the sparse matrix).
    pub fn solve_sparse_after(
        &self,
        problem: &SparseProblem,
        warm: &DVector<f64>,
        basic: &[bool],
        warm_start_missed: Option<String>,
        what: impl FnOnce() -> String,
    ) -> Result<(DVector<f64>, SolveReport, Vec<bool>), ContactError> {
        let t0 = Instant::now();
        let n = problem.len();
        let report = |solver, iterations, residual, attempts| {
            solved_report(
                n,
                solver,
                (iterations, residual),
                attempts,
                t0.elapsed().as_secs_f64(),
            )
        };
        let mut attempts = Vec::new();
        let mut done = Vec::new();
        let lemke_first = self.solvers.first().is_some_and(|s| s.name() == "lemke");
        let large = self.large.filter(|&(rows, _)| n >= rows);
        if lemke_first && large.is_some() {
            let options = Options {
                max_pivots: self.max_pivots.unwrap_or(100 + 20 * n),
                ..self.options
            };
            let support: Vec<bool> = (0..n)
                .map(|i| warm.get(i).is_some_and(|&x| x > 0.0) || basic.get(i) == Some(&true))
                .collect();
            let (solve, basis) = lemke_sparse::solve(problem, Some(&support), &options);
            if solve.status.is_solved() {
                let r = report("lemke", solve.stats.iterations, solve.stats.residual, 1);
                return Ok((solve.z, r, basis));
            }
            attempts.push(format!(
                "lemke (sparse, from the last step's basis, then from B = I): {} after {} pivots, residual {:.3e}",
                solve.status, solve.stats.iterations, solve.stats.residual
            ));
            done.push(SPARSE_LEMKE);
        } else if let Some(line) = warm_start_missed {
            attempts.push(line);
            done.push(WARM_START_ONLY);
        } else if self.warm_start_applies(n, warm) && problem.check().is_ok() {
            match self.warm_start(&problem.m, &problem.q, warm, basic, false) {
                Ok((z, mut r, support)) => {
                    r.seconds = t0.elapsed().as_secs_f64();
                    return Ok((z, r, support));
                }
                Err(line) => attempts.push(line),
            }
            done.push(WARM_START_ONLY);
        }
        if let Some((_, sweeps)) = large {
            let options = Options {
                max_iterations: sweeps,
                ..self.options
            };
            let solve = BlockGaussSeidel.solve_sparse(problem, Some(warm), &options);
            let name = BlockGaussSeidel.name();
            if solve.status.is_solved() {
                let r = report(
                    name,
                    solve.stats.iterations,
                    solve.stats.residual,
                    1 + attempts.len(),
                );
                return Ok((solve.z, r, Vec::new()));
            }
            attempts.push(format!(
                "{name} (sparse, from the warm start): {} after {} iterations, residual {:.3e}",
                solve.status, solve.stats.iterations, solve.stats.residual
            ));
            done.push(name);
            if n > DENSE_FALLBACK_ROWS {
                let bgs = (solve.z, solve.stats.iterations, solve.stats.residual);
                return self
                    .above_dense_fallback(problem, bgs, &done, attempts, what)
                    .map(|(z, mut r, basis)| {
                        r.seconds = t0.elapsed().as_secs_f64();
                        (z, r, basis)
                    });
            }
        }
        let (z, mut report, basic) =
            self.solve_from(&problem.to_dense(), warm, &done, attempts, what)?;
        report.seconds = t0.elapsed().as_secs_f64();
        Ok((z, report, basic))
    }

    /// A large island above [`DENSE_FALLBACK_ROWS`] that sparse Lemke and block Gauss–Seidel
    /// (`bgs`: its answer, sweeps and residual) both missed: dense Lemke alone, up to
    /// [`DENSE_LEMKE_ROWS`], then the failure (or block Gauss–Seidel's answer, marked failed,
    /// under `on_failure = "continue"`). `done`: the solvers already run.
    fn above_dense_fallback(
        &self,
        problem: &SparseProblem,
        bgs: (DVector<f64>, usize, f64),
        done: &[&str],
        mut attempts: Vec<String>,
        what: impl FnOnce() -> String,
    ) -> Result<(DVector<f64>, SolveReport, Vec<bool>), ContactError> {
        let n = problem.len();
        let report = |solver, iterations, residual, attempts| {
            solved_report(n, solver, (iterations, residual), attempts, 0.0)
        };
        let lemke_first = self.solvers.first().is_some_and(|s| s.name() == "lemke");
        if lemke_first && n <= DENSE_LEMKE_ROWS {
            let options = Options {
                max_pivots: self.max_pivots.unwrap_or(100 + 20 * n),
                ..self.options
            };
            let (solve, basis) = Lemke.solve_with_basis(&problem.to_dense(), None, &options);
            attempts.push(format!(
                "lemke (dense, explicit inverse): {} after {} pivots, residual {:.3e}",
                solve.status, solve.stats.iterations, solve.stats.residual
            ));
            if solve.status.is_solved() {
                let r = report(
                    "lemke",
                    solve.stats.iterations,
                    solve.stats.residual,
                    attempts.len(),
                );
                return Ok((solve.z, r, basis));
            }
        }
        let rest: Vec<&str> = (self.solvers.iter())
            .map(|s| s.name())
            .filter(|&name| !done.contains(&name) && name != "lemke")
            .collect();
        if !rest.is_empty() {
            attempts.push(format!(
                "not run on the dense matrix above {DENSE_FALLBACK_ROWS} rows: {}",
                rest.join(", ")
            ));
        }
        let (z, sweeps, residual) = bgs;
        if self.stop_on_failure || !residual.is_finite() {
            return Err(ContactError::NotSolved {
                problem: what(),
                tolerance: self.options.tolerance,
                attempts,
            });
        }
        let mut r = report(BlockGaussSeidel.name(), sweeps, residual, attempts.len());
        r.failed = true;
        Ok((z, r, Vec::new()))
    }

    /// Dense Lemke's answer `solve` missed on `problem`: the same method with the basis in
    /// sparse LU factors ([`SolverChain`]'s doc), its line added to `attempts`; the better of
    /// the two answers, with its basis.
    fn with_sparse_lemke(
        &self,
        problem: &Problem,
        options: &Options,
        (solve, basis): (solvers::Solve, Vec<bool>),
        attempts: &mut Vec<String>,
    ) -> (solvers::Solve, Vec<bool>) {
        let (sparse, sparse_basis) =
            lemke_sparse::solve(&SparseProblem::from_dense(problem), None, options);
        attempts.push(format!(
            "lemke (sparse LU of the basis): {} after {} pivots, residual {:.3e}",
            sparse.status, sparse.stats.iterations, sparse.stats.residual
        ));
        if sparse.status.is_solved() || sparse.stats.residual < solve.stats.residual {
            (sparse, sparse_basis)
        } else {
            (solve, basis)
        }
    }

    /// Solve `problem` from `warm`: the first answer that meets the tolerance, else (with
    /// `on_failure = "continue"`) the one of smallest residual, marked failed. `what` names the
    /// problem in the error message, e.g. "LCP of 24 rows (4 contacts, 4 with friction)".
    ///
    /// A problem whose matrix is block diagonal up to a permutation (its rows fall into
    /// independent blocks: no nonzero M_ij or M_ji between them — the contact islands of a PEG
    /// step, say) is solved block by block, each accepted against its own ‖q‖∞; the report
    /// combines them ([`SolveReport::combined`]).
    pub fn solve(
        &self,
        problem: &Problem,
        warm: &DVector<f64>,
        what: impl FnOnce() -> String,
    ) -> Result<(DVector<f64>, SolveReport), ContactError> {
        let blocks = independent_blocks(problem);
        if blocks.len() <= 1 {
            let (z, report, _) = self.solve_from(problem, warm, &[], Vec::new(), what)?;
            return Ok((z, report));
        }
        let t0 = Instant::now();
        let count = blocks.len();
        let mut z = DVector::zeros(problem.len());
        let mut report: Option<SolveReport> = None;
        for (b, rows) in blocks.iter().enumerate() {
            let k = rows.len();
            let sub = Problem {
                m: DMatrix::from_fn(k, k, |i, j| problem.m[(rows[i], rows[j])]),
                q: DVector::from_fn(k, |i, _| problem.q[rows[i]]),
                free: rows.iter().filter(|&&r| r < problem.free).count(),
            };
            let sub_warm = DVector::from_fn(k, |i, _| warm.get(rows[i]).copied().unwrap_or(0.0));
            let (zb, rb) = match self.solve_from(&sub, &sub_warm, &[], Vec::new(), String::new) {
                Ok((zb, rb, _)) => (zb, rb),
                Err(e) => {
                    return Err(e.within(|_| {
                        format!(
                            "{}, independent block {} of {count} ({k} rows)",
                            what(),
                            b + 1
                        )
                    }))
                }
            };
            for (i, &r) in rows.iter().enumerate() {
                z[r] = zb[i];
            }
            report = Some(match report {
                None => rb,
                Some(r) => r.combined(&rb),
            });
        }
        let mut report = report.expect("at least two blocks");
        report.seconds = t0.elapsed().as_secs_f64();
        Ok((z, report))
    }

    /// An answer that misses the tolerance by little, repaired as the warm start is
    /// ([`warm_start`](Self::warm_start)): principal pivoting from the support it ended on — the
    /// final basis when Lemke's method gave it, then its support {zᵢ > 0} — for at most
    /// [`REPAIR_ROUNDS`] (by default) rounds ([`repair_from`](Self::repair_from)). On the 10-box
    /// stack under `anitescu-potra` at h = 10 ms, Lemke ended "inaccurate" at 2e-7 and
    /// Fischer–Burmeister at 1.04e-8 on a 240-row problem the principal system of a nearby
    /// support solves to round-off. The answer (status solved,
    /// iterations including the rounds) with its support, or None: nothing to repair (solved, not
    /// an answer the method reached, no finite residual, free rows) or no repair within the
    /// rounds.
    fn repair(
        &self,
        problem: &Problem,
        solve: &solvers::Solve,
        basis: &[bool],
    ) -> Option<(solvers::Solve, Vec<bool>, usize)> {
        // Only an answer the method reached (not "not applicable", a singular system or a
        // malformed problem, whose z says nothing).
        let reached = matches!(
            solve.status,
            solvers::Status::Inaccurate
                | solvers::Status::IterationLimit
                | solvers::Status::RayTermination
        );
        let off = self.repair_rounds == 0;
        if off || !reached || !solve.stats.residual.is_finite() || problem.free > 0 {
            return None;
        }
        let positive: Vec<bool> = solve.z.iter().map(|&x| x > 0.0).collect();
        let (r, rounds) = self
            .repair_from(&problem.m, &problem.q, basis, positive, false)
            .ok()?;
        let repaired = solvers::Solve {
            stats: solvers::Stats {
                iterations: solve.stats.iterations + rounds,
                residual: r.residual,
            },
            z: r.z,
            status: solvers::Status::Solved,
        };
        Some((repaired, r.support, rounds))
    }

    /// [`solve`](Self::solve) after the attempts `earlier` (their lines for the error message)
    /// made from `warm` by the solvers `done`: after Lemke on the sparse matrix
    /// ([`SPARSE_LEMKE`]) the dense method runs from scratch and the sparse one is not run again
    /// when it misses; after Lemke's warm start alone ([`WARM_START_ONLY`]) the method runs
    /// without one (it only proposes the support already tried); an iterative solver starts
    /// from zero only.
    fn solve_from(
        &self,
        problem: &Problem,
        warm: &DVector<f64>,
        done: &[&str],
        earlier: Vec<String>,
        what: impl FnOnce() -> String,
    ) -> Result<(DVector<f64>, SolveReport, Vec<bool>), ContactError> {
        let n = problem.len();
        let mut options = self.options;
        options.max_pivots = self.max_pivots.unwrap_or(100 + 20 * n);
        let t0 = Instant::now();
        let mut best: Option<(usize, solvers::Solve, Vec<bool>)> = None;
        let mut attempts = earlier;
        // An iterative solver that fails from a nonzero warm start is tried again from zero:
        // last step's answer can start Fischer–Burmeister's Newton far from this step's solution
        // (measured on the pour scene under PEG: a 229-row LCP at residual 8e-2 after 500
        // iterations from the warm start, solved in 30 from zero).
        let cold = DVector::zeros(n);
        let warm_is_zero = warm.iter().all(|&x| x == 0.0);
        let runs = self.solvers.iter().enumerate().flat_map(|(i, solver)| {
            let again = solver.iterates_from_warm_start() && !warm_is_zero;
            [(i, false), (i, true)]
                .into_iter()
                .take(if again { 2 } else { 1 })
        });
        for (i, from_zero) in runs {
            let solver = &self.solvers[i];
            let tried = done.contains(&solver.name());
            if tried && (!from_zero || !solver.iterates_from_warm_start()) {
                continue;
            }
            let start = if solver.name() == "lemke" && done.contains(&WARM_START_ONLY) {
                None
            } else if from_zero {
                Some(&cold)
            } else {
                Some(warm)
            };
            let (mut solve, mut basis) = solver.solve_with_basis(problem, start, &options);
            attempts.push(format!(
                "{}{}: {} after {} iterations, residual {:.3e}",
                solver.name(),
                if from_zero { " (from zero)" } else { "" },
                solve.status,
                solve.stats.iterations,
                solve.stats.residual
            ));
            // Dense Lemke missed: the same method with the basis in sparse LU factors.
            let sparse_tried = done.contains(&SPARSE_LEMKE);
            if solver.name() == "lemke"
                && !solve.status.is_solved()
                && problem.free == 0
                && !sparse_tried
            {
                (solve, basis) =
                    self.with_sparse_lemke(problem, &options, (solve, basis), &mut attempts);
            }
            if let Some((repaired, support, rounds)) = self.repair(problem, &solve, &basis) {
                attempts.push(format!(
                    "{}: its answer repaired by {rounds} rounds of principal pivoting, residual {:.3e}",
                    solver.name(),
                    repaired.stats.residual
                ));
                (solve, basis) = (repaired, support);
            }
            let solved = solve.status.is_solved();
            let better = match &best {
                None => solve.stats.residual.is_finite(),
                Some((_, b, _)) => solve.stats.residual < b.stats.residual,
            };
            if solved || better {
                best = Some((i, solve, basis));
            }
            if solved {
                break;
            }
        }
        let seconds = t0.elapsed().as_secs_f64();
        let failed = !best.as_ref().is_some_and(|(_, s, _)| s.status.is_solved());
        if failed && (self.stop_on_failure || best.is_none()) {
            return Err(ContactError::NotSolved {
                problem: what(),
                tolerance: options.tolerance,
                attempts,
            });
        }
        let (which, solve, basis) = best.expect("a finite answer exists");
        let report = SolveReport {
            rows: n,
            solver: self.solvers[which].name(),
            iterations: solve.stats.iterations,
            residual: solve.stats.residual,
            attempts: attempts.len(),
            seconds,
            failed,
            islands: 1,
        };
        Ok((solve.z, report, basis))
    }
}
