//! Lemke's complementary pivoting method (Cottle, Pang & Stone, *The Linear Complementarity
//! Problem*, §4.4; "CPS" below).
//!
//! # The method
//!
//! For the LCP `w = M z + q, 0 ≤ z ⊥ w ≥ 0` of size n, Lemke augments the system with an
//! artificial variable z₀ ≥ 0 and the covering vector d = (1, …, 1) (CPS (4.4.1)):
//!
//! ```text
//!   w − M z − d z₀ = q,     w, z, z₀ ≥ 0,     wᵢ zᵢ = 0 for all i.
//! ```
//!
//! Writing the columns of `[I | −M | −d]` for the variables (w, z, z₀), a basis B holds n of them
//! and the basic variables are x_B = B⁻¹q. It starts from B = I (all w basic):
//!
//! 1. If q ≥ 0, z = 0 solves the LCP (no pivot).
//! 2. Otherwise z₀ enters at the value max(−qᵢ/dᵢ): the row r of the most negative qᵢ/dᵢ leaves,
//!    which makes every basic variable nonnegative (CPS Step 0).
//! 3. The complement of the variable that just left enters (wᵢ ↔ zᵢ). Its column c = B⁻¹a (a the
//!    variable's column of `[I | −M | −d]`) gives x_B(t) = B⁻¹q − t c; the blocking rows are
//!    those with cᵢ > 0 and the leaving row minimizes (B⁻¹q)ᵢ / cᵢ (the minimum-ratio test, CPS
//!    Step 2). No blocking row: the path leaves along a secondary ray (CPS Step 2, "ray
//!    termination"), reported as [`Status::RayTermination`]. For a copositive-plus M this proves
//!    the LCP has no solution (CPS Theorem 4.4.13).
//! 4. If z₀ leaves, the basis is complementary and z₀ = 0: a solution. Otherwise go to 3.
//!
//! **Ratio test.** Step 3's leaving row is chosen in four stages, and the step taken by a fifth
//! (after the first pivot):
//!
//! 1. *Blocking rows*: cᵢ > [`PIVOT_REL_TOL`] · ‖c‖∞; smaller entries are round-off of zeros
//!    (contact LCPs have many exactly singular bases, seen through round-off as entries ~1e-10
//!    of the column; pivoting on them wrecks B⁻¹).
//! 2. *Harris band* (Harris 1973, the textbook device of simplex codes): with the feasibility
//!    tolerance ζ = [`ZERO_REL_TOL`] · ‖q‖∞, t_max = minᵢ (xᵢ⁺ + ζ)/cᵢ is the longest step that
//!    keeps every basic variable ≥ −ζ; rows with xᵢ⁺/cᵢ ≤ t_max may leave (xᵢ⁺ = max(xᵢ, 0)).
//!    If z₀'s row is among them, z₀ leaves: the path ends with a solution (z₀ = 0 to within ζ).
//! 3. *Stability*: rows of the band whose cᵢ is below [`STABLE_REL_TOL`] times the band's
//!    largest are dropped (a near-zero pivot is never taken when a sound one is as good).
//! 4. *Lexicographic minimum* (anti-cycling, CPS §4.9, the perturbation
//!    q + (ε, ε², …, εⁿ)): among the remaining rows, compare the rows of `[x_B⁺ | B⁻¹]`, each
//!    divided by its cᵢ, column by column, and take the smallest; two values tie when they
//!    differ by at most [`TIE_REL_TOL`] times the scale of their column (|min| + max|value| /
//!    max cᵢ). The rows of B⁻¹ are distinct, so the choice is unique; in exact arithmetic no
//!    basis repeats and the method ends after finitely many pivots (CPS Theorem 4.9.3). On
//!    well-scaled data stages 2–3 leave every exactly tied row in play, so degenerate problems
//!    get the lexicographic rule itself (plus the early exit of z₀).
//!
//! 5. *The step* is t = xᵣ⁺/cᵣ: a leaving row whose xᵣ is a round-off negative within the band
//!    is pivoted as 0 (its x is set to 0 before the update), as the lexicographic test already
//!    reads it. Pivoting on xᵣ itself makes the entering variable xᵣ/cᵣ < 0, and a small pivot
//!    inflates that: measured on a 2,202-row island of a 64-box pile under stewart-trinkle
//!    (`bin_64`, spawn seed 7, t = 1.52 s), xᵣ = −2.3e-10 over cᵣ = 1.2e-5 entered at −1.9e-5, and
//!    the sparse method's path went on to end at a residual of 8e-2; with the step taken at 0 it
//!    solves the problem in 1,784 pivots (the dense method solves it either way: its path leaves
//!    the sparse one at pivot 143, on a tie). Setting xᵣ to 0 moves x_B off B⁻¹q by at most ζ in
//!    one entry, which the refinement at the end removes.
//!
//! The first pivot (z₀ entering with column −d) takes the lexicographic minimum of the rows of
//! `[q | I]` divided by dᵢ, i.e. the most negative qᵢ with ties broken lexicographically.
//!
//! **Linear algebra.** B⁻¹ (n × n) is kept explicitly. A pivot on row r with entering column c
//! multiplies it on the left by the eta matrix E = I + (η − e_r) e_rᵀ, η_r = 1/c_r,
//! ηᵢ = −cᵢ/c_r (the product form of the inverse): row r of B⁻¹ is divided by c_r and cᵢ times
//! the new row r is subtracted from every other row — O(n²) per pivot, the same for x_B. The
//! entering column costs one matrix–vector product B⁻¹a (a column of M, of I or d). All work
//! buffers are allocated before the pivot loop.
//!
//! **Ending.** Besides z₀ leaving (step 4) and a ray (step 3), the path ends
//! - when z₀ falls to the exit level max(ζ, 0.1 · min(tolerance, 1e-5) · ‖q‖∞): at an
//!   almost-complementary basis w = Mz + q + d z₀ with z ⊥ w, so z alone solves the LCP to
//!   within z₀ (degenerate contact LCPs can wander for hundreds of pivots with z₀ at round-off
//!   level without z₀ ever blocking);
//! - when a (basis, entering variable) state repeats (Zobrist hash of the basis): Harris steps
//!   and round-off can defeat the lexicographic rule, and such a cycle would only end at the
//!   pivot limit;
//! - at `options.max_pivots` pivots ([`Status::IterationLimit`], no polish).
//!
//! **Regularized restarts.** A path that ends on a ray or a cycle without a solution is run
//! again on M + εI, for the shifts ε‖M‖max of [`REGULARIZATION`] in turn, each answer
//! polished and judged on the original problem; the first that meets the
//! tolerance is returned (the best otherwise, with the pivots of every path). The contact LCPs
//! of Stewart–Trinkle and Anitescu–Potra are copositive (zᵀMz = ‖N c + D β‖²_{M⁻¹} + μ λᵀc ≥ 0
//! for z = (c, β, λ) ≥ 0) but not copositive-plus, so a ray from d = 1 does not prove them
//! infeasible (and Anitescu–Potra's is solvable); M + εI is strictly copositive, an LCP that
//! Lemke's method always solves (CPS Theorem 3.8.5, §4.4), and ε of 1e-12 – 1e-9 perturbs the
//! answer below the tolerance. Measured on an island of 276 rows of a 64-box pile under
//! anitescu-potra (`bin_64`, t = 0.75 s, no overlap: the paper's LCP): the path from M ends on a
//! ray after 187 pivots at residual 1.3e-3 (every other solver of the chain misses too: 2.5e-5
//! after 20,000 block Gauss–Seidel sweeps); the path of M + 1e-12‖M‖max I solves it to 4.6e-12.
//!
//! **Last resort: the textbook path, refined where it blocks.** When the restarts miss too, the
//! path on M is run again as the method is published, without the devices above that protect the
//! common case: blocking rows are those with cᵢ > [`LAST_RESORT_PIVOT_REL_TOL`] · ‖c‖∞, the
//! leaving row is z₀'s when its ratio is the minimum and otherwise the lexicographic minimum (no
//! Harris band, no stability filter), and z₀ falling to the exit level does not end the path.
//! Measured on a 96-row PEG island of a 64-box pile (`tests/data/lemke_peg_island_96.txt`,
//! `bin_64` seed 7 under peg with the post-step projection, t = 0.894 s): every path with the
//! devices, restarts included, ends on a detected cycle at residual 9.7e-3 (the pivot filter
//! drops a blocking row whose cᵢ is 1e-10 – 1e-9 of ‖c‖∞); with the pivot filter alone lowered,
//! the path stops at z₀'s exit level one pivot before the solution, at 1.4e-8; the textbook path
//! blocks on a ray after 86 pivots at the solution (as a plain float64 lexicographic Lemke does),
//! 6e-12 after refinement. Where the path blocks on a ray or a cycle, x_B is first refined (two
//! steps, as in "Finishing"); if z₀ then is at the exit level the path ends there
//! (`refined_ending`). x_B is
//! updated pivot by pivot and drifts from B⁻¹q, and a path that blocks at a degenerate basis on
//! the solution (z₀ exactly 0) can read z₀ as 1.8e-8 of ‖q‖∞: measured on a 78-row PEG island of
//! a 64-box pile (`tests/data/lemke_peg_island_78.txt`; basis condition number ~1e3), where the
//! path and every restart ended on rays at residuals down to 9.7e-8, and a 60-digit run of the
//! same path blocks with z₀ = 3e-43; refined, it ends solved at 2.7e-16. It comes last so that
//! every problem the restarts already solved keeps its answer (trajectories unchanged): tried
//! first, it answered 148 rays of 3.2 s of `bin_64` (seed 1) under anitescu-potra, each to the
//! tolerance, but the changed trajectory's pile was still sliding at 5 s (docs/solvers.md).
//!
//! **Finishing.** After z₀ leaves, x_B is improved by two steps of iterative refinement with
//! the kept B⁻¹ (x_B += B⁻¹(q − B x_B), O(n²) each), kept only if it lowers the residual (after
//! Harris steps the exact basic solution can be slightly infeasible); negative round-off in z is
//! set to 0. If the scaled residual still misses the tolerance, or the path ended otherwise than
//! by z₀ leaving (exit level, ray, cycle), the principal system
//! M_αα z_α = −q_α is solved directly by LU on the original problem for α = free rows ∪ the
//! basic z's, and for α = free rows ∪ {zᵢ > 0}; the answer with the smallest residual is kept.
//! A linear system is singular when its LU factor has a pivot at most [`SINGULAR_REL_TOL`] ·
//! ‖A‖max. (The time-stepping models' warm start solves its principal systems for their
//! least-norm answer instead, `least_norm_principal_solution_of`.) A ray or cycle whose
//! polished point meets the tolerance is reported solved (z₀ was at
//! round-off level: the residual is the contract); otherwise it is [`Status::RayTermination`]
//! or [`Status::IterationLimit`].
//!
//! # Mixed LCPs: reduction by the Schur complement
//!
//! With f = the leading `free` rows (wf = 0, zf free) and c = the complementarity rows:
//!
//! ```text
//!   0 = M_ff z_f + M_fc z_c + q_f      ⇒   z_f = −M_ff⁻¹ (q_f + M_fc z_c),
//!   w_c = M_cf z_f + M_cc z_c + q_c    ⇒   w_c = (M_cc − M_cf M_ff⁻¹ M_fc) z_c + (q_c − M_cf M_ff⁻¹ q_f),
//! ```
//!
//! so Lemke runs on the LCP of the Schur complement M_cc − M_cf M_ff⁻¹ M_fc with
//! q_c − M_cf M_ff⁻¹ q_f, and z_f is recovered from z_c. M_ff is factored once by LU; a singular
//! M_ff gives [`Status::Singular`]. The residual is always measured on the original problem.
//!
//! # Warm start
//!
//! A warm start z̃ of the right length proposes the active set α = {i : z̃ᵢ > 0} ∪ free rows: the
//! principal system M_αα z_α = −q_α is solved by LU, z is 0 off α (negative entries of
//! complementarity rows are set to 0), and if the scaled residual of z is within the tolerance it
//! is returned with 0 pivots. Otherwise Lemke runs from scratch (the warm start only ever saves
//! work; the result stays a pure function of the inputs). In time stepping the active set
//! usually repeats from step to step, so most solves end here.
use super::common::{failure, power_of_two_below, unsolved_at};
use super::{residual, Options, Problem, Solve, Solver, Stats, Status};
use nalgebra::{DMatrix, DVector};
use std::borrow::Cow;

/// Lemke's complementary pivoting method with lexicographic anti-cycling; see the module
/// documentation.
#[derive(Clone, Copy, Debug, Default)]
pub struct Lemke;

/// A row blocks the entering variable only when its entry of the entering column exceeds this
/// fraction of the column's largest magnitude. Contact LCPs (Delassus operators of redundant
/// contacts) have many exactly singular bases whose round-off shows up as entries ~1e-10 of the
/// column: pivoting on those wrecks B⁻¹, so they count as zeros.
pub const PIVOT_REL_TOL: f64 = 1e-9;

/// Ratios closer than this (relative to their scale) are tied in the lexicographic ratio test.
pub const TIE_REL_TOL: f64 = 1e-12;

/// ζ = this · ‖q‖∞ is the feasibility tolerance of the ratio test (Harris band): a step may
/// leave a basic variable as low as −ζ. Contact LCPs carry noise of ~1e-11 ‖q‖∞ in their "zero"
/// entries of q (velocities of resting bodies), which this must cover.
pub const ZERO_REL_TOL: f64 = 1e-10;

/// Rows of the Harris band whose pivot is below this fraction of the band's largest pivot are
/// not taken (unless z₀ can leave).
pub const STABLE_REL_TOL: f64 = 1e-3;

/// The last resort's blocking rows (module doc, "Last resort"): cᵢ above this fraction of ‖c‖∞.
/// Measured on the 96-row PEG island of `tests/data/lemke_peg_island_96.txt`: with 1e-9 the
/// textbook path cycles; with 1e-10, 1e-11 and 1e-12 it blocks on the solution after 86 pivots.
pub const LAST_RESORT_PIVOT_REL_TOL: f64 = 1e-11;

/// A matrix whose LU factor has a pivot at most this fraction of its largest entry is singular.
pub const SINGULAR_REL_TOL: f64 = 1e-12;

/// The shifts ε (relative to ‖M‖max) of the regularized restarts, tried in order until an answer
/// meets the tolerance on the unshifted problem (module doc, "Ending"). An answer of
/// LCP(M + εI, q) solves LCP(M, q) to within ε‖M‖max‖z‖∞ in w, about ε relative to ‖q‖∞: the
/// largest stays a decade below the time-stepping models' default tolerance (1e-8).
pub const REGULARIZATION: [f64; 4] = [1e-12, 1e-11, 1e-10, 1e-9];

/// Steps of iterative refinement of the final basic solution with the kept B⁻¹.
const REFINEMENT_STEPS: usize = 2;

impl Solver for Lemke {
    fn iterates_from_warm_start(&self) -> bool {
        false
    }

    fn name(&self) -> &'static str {
        "lemke"
    }

    fn solve(
        &self,
        problem: &Problem,
        warm_start: Option<&DVector<f64>>,
        options: &Options,
    ) -> Solve {
        self.solve_with_basis(problem, warm_start, options).0
    }

    /// The rows whose z is basic at the end (free rows included): the support α of the final
    /// principal system M_αα z_α = −q_α. Proposed as the next step's warm start
    /// (`SparseProblem::solve_on_support`) it gives back this answer exactly when the problem
    /// has not changed — which the support of z alone does not when a basic zᵢ is 0
    /// (degenerate contact LCPs, module doc "Warm start"). All false when no answer was reached.
    fn solve_with_basis(
        &self,
        problem: &Problem,
        warm_start: Option<&DVector<f64>>,
        options: &Options,
    ) -> (Solve, Vec<bool>) {
        let n = problem.len();
        if let Err(why) = problem.check() {
            return (failure(n, Status::BadProblem(why)), vec![false; n]);
        }
        if problem.is_empty() {
            let solve = finish(problem, DVector::zeros(0), 0, Ending::Complementary, options);
            return (solve, Vec::new());
        }

        if let Some(ws) = warm_start.filter(|ws| ws.len() == n) {
            let support: Vec<bool> = (0..n).map(|i| i < problem.free || ws[i] > 0.0).collect();
            if let Some(z) = solve_on_support(problem, &support) {
                if residual(problem, &z) <= options.tolerance {
                    return (finish(problem, z, 0, Ending::Complementary, options), support);
                }
            }
        }

        let Some(reduced) = Reduced::new(problem) else {
            let solve = unsolved_at(problem, DVector::zeros(n), Status::Singular);
            return (solve, vec![false; n]);
        };

        let (mut z, mut r, mut basis, mut pivots, mut ending) =
            path_and_polish(problem, &reduced, options, false);
        if !matches!(ending, Ending::Ray | Ending::Cycle) {
            return (finish(problem, z, pivots, ending, options), basis);
        }
        // Regularized restarts (module doc, "Ending"): the problem with M + εI, answers judged on M.
        let scale = problem.m.amax();
        for eps in REGULARIZATION {
            if r <= options.tolerance {
                break;
            }
            let mut shifted = problem.clone();
            for i in problem.free..n {
                shifted.m[(i, i)] += eps * scale;
            }
            let Some(reduced) = Reduced::new(&shifted) else {
                continue;
            };
            let (tried, _, tried_basis, tried_pivots, tried_ending) =
                path_and_polish(&shifted, &reduced, options, false);
            pivots += tried_pivots;
            let tried_r = residual(problem, &tried);
            if tried_r < r {
                (z, r, basis) = (tried, tried_r, tried_basis);
                ending = if r <= options.tolerance && tried_ending != Ending::PivotLimit {
                    Ending::Complementary
                } else {
                    tried_ending
                };
            }
        }
        // Last resort: the textbook path on M, its basic solution refined where it blocks.
        if r > options.tolerance {
            let (tried, tried_r, tried_basis, tried_pivots, tried_ending) =
                path_and_polish(problem, &reduced, options, true);
            pivots += tried_pivots;
            if tried_r < r {
                (z, basis, ending) = (tried, tried_basis, tried_ending);
            }
        }
        (finish(problem, z, pivots, ending, options), basis)
    }
}

/// Lemke's path on `reduced` (`problem` reduced by its free rows), its answer expanded and
/// polished on `problem` (module doc, "Finishing"): (z, residual, basis, pivots, ending).
fn path_and_polish(
    problem: &Problem,
    reduced: &Reduced,
    options: &Options,
    last_resort: bool,
) -> (DVector<f64>, f64, Vec<bool>, usize, Ending) {
    let n = problem.len();
    let (max_pivots, tolerance) = (options.max_pivots, options.tolerance);
    let run = lemke(&reduced.m, &reduced.q, max_pivots, tolerance, last_resort);
    let mut z = reduced.expand(problem, &run.z);
    let nf = problem.free;
    let mut basis: Vec<bool> = (0..n).map(|i| i < nf || run.basic_z[i - nf]).collect();
    let mut r = residual(problem, &z);
    if run.ending == Ending::PivotLimit {
        return (z, r, basis, run.pivots, run.ending);
    }
    // Polish: solve the final principal system directly (an O(n³) factorization, so only
    // when the pivoted answer misses the tolerance or the path did not end with z₀ leaving).
    if r > options.tolerance || run.ending != Ending::Complementary {
        let positive: Vec<bool> = (0..n).map(|i| i < nf || z[i] > 0.0).collect();
        for support in [basis.clone(), positive] {
            if let Some(polished) = solve_on_support(problem, &support) {
                let polished_r = residual(problem, &polished);
                if polished_r < r {
                    (z, r) = (polished, polished_r);
                    basis = support;
                }
            }
        }
    }
    // A ray or a cycle reached while z₀ was at round-off level (degenerate, noisy data) can
    // leave a point that solves the problem to the tolerance: the residual is the contract.
    let ending = match run.ending {
        Ending::Ray | Ending::Cycle if r <= options.tolerance => Ending::Complementary,
        ending => ending,
    };
    (z, r, basis, run.pivots, ending)
}

/// How the pivoting ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Ending {
    /// z₀ left the basis (or no pivot was needed): a complementary basis.
    Complementary,
    /// No blocking row for the entering variable.
    Ray,
    /// `max_pivots` pivots without reaching a complementary basis.
    PivotLimit,
    /// z₀ fell below the exit level (module doc, "Ending"): the z of the basis solves the LCP
    /// to within that level.
    NearlyComplementary,
    /// A (basis, entering variable) state repeated: round-off defeated the anti-cycling rule.
    Cycle,
}

/// The [`Solve`] for `z` on the original problem: Solved only when a complementary basis was
/// reached and the scaled residual is within the tolerance.
fn finish(
    problem: &Problem,
    z: DVector<f64>,
    pivots: usize,
    ending: Ending,
    options: &Options,
) -> Solve {
    let residual = residual(problem, &z);
    Solve {
        z,
        status: status_of(ending, residual, options.tolerance),
        stats: Stats {
            iterations: pivots,
            residual,
        },
    }
}

/// The status of a path that ended so, with this scaled residual: Solved only when a
/// complementary basis was reached and the residual is within the tolerance.
pub(super) fn status_of(ending: Ending, residual: f64, tolerance: f64) -> Status {
    match ending {
        Ending::Ray => Status::RayTermination,
        Ending::PivotLimit | Ending::Cycle => Status::IterationLimit,
        Ending::Complementary | Ending::NearlyComplementary if residual <= tolerance => {
            Status::Solved
        }
        Ending::Complementary | Ending::NearlyComplementary => Status::Inaccurate,
    }
}

/// The LCP on the complementarity rows left after eliminating the free rows (module doc,
/// "Mixed LCPs"), with what is needed to recover z_f = −(y + X z_c).
struct Reduced<'a> {
    /// M_cc − M_cf M_ff⁻¹ M_fc.
    m: Cow<'a, DMatrix<f64>>,
    /// q_c − M_cf M_ff⁻¹ q_f.
    q: Cow<'a, DVector<f64>>,
    /// X = M_ff⁻¹ M_fc (free × complementarity).
    x: DMatrix<f64>,
    /// y = M_ff⁻¹ q_f.
    y: DVector<f64>,
}

impl<'a> Reduced<'a> {
    /// None when M_ff is singular.
    fn new(problem: &'a Problem) -> Option<Self> {
        let (n, nf) = (problem.len(), problem.free);
        if nf == 0 {
            return Some(Reduced {
                m: Cow::Borrowed(&problem.m),
                q: Cow::Borrowed(&problem.q),
                x: DMatrix::zeros(0, n),
                y: DVector::zeros(0),
            });
        }
        let nc = n - nf;
        let m_ff = problem.m.view((0, 0), (nf, nf)).clone_owned();
        let m_fc = problem.m.view((0, nf), (nf, nc));
        let m_cf = problem.m.view((nf, 0), (nc, nf));
        let m_cc = problem.m.view((nf, nf), (nc, nc));
        let lu = factor(m_ff)?;
        let x = lu.solve(&m_fc.clone_owned())?;
        let y = lu.solve(&problem.q.rows(0, nf).clone_owned())?;
        let m = m_cc - m_cf * &x;
        let q = problem.q.rows(nf, nc) - m_cf * &y;
        Some(Reduced {
            m: Cow::Owned(m),
            q: Cow::Owned(q),
            x,
            y,
        })
    }

    /// The full z from the reduced problem's z_c: z_f = −(y + X z_c).
    fn expand(&self, problem: &Problem, z_c: &DVector<f64>) -> DVector<f64> {
        let nf = problem.free;
        let mut z = DVector::zeros(problem.len());
        z.rows_mut(nf, z_c.len()).copy_from(z_c);
        if nf > 0 {
            let z_f = -(&self.y + &self.x * z_c);
            z.rows_mut(0, nf).copy_from(&z_f);
        }
        z
    }
}

/// LU factorization of `a`, or None when a pivot is at most [`SINGULAR_REL_TOL`] · ‖a‖max.
fn factor(a: DMatrix<f64>) -> Option<nalgebra::LU<f64, nalgebra::Dyn, nalgebra::Dyn>> {
    let scale = a.amax();
    let lu = a.lu();
    let min_pivot = lu.u().diagonal().amin();
    (scale > 0.0 && min_pivot > SINGULAR_REL_TOL * scale).then_some(lu)
}

/// z with z_α solving the principal system M_αα z_α = −q_α (α = `support`) and 0 elsewhere;
/// negative entries of complementarity rows are set to 0 (the caller judges z by its residual).
/// None when M_αα is singular.
pub(crate) fn solve_on_support(problem: &Problem, support: &[bool]) -> Option<DVector<f64>> {
    let m = &problem.m;
    solve_on_support_with(problem.len(), problem.free, support, |r, c| m[(r, c)], &problem.q)
}

/// [`solve_on_support`] for a problem of `n` rows, the first `free` of them free, whose matrix
/// entries `entry(r, c)` gives (so a sparse matrix shares it), by a dense LU of M_αα.
pub(super) fn solve_on_support_with(
    n: usize,
    free: usize,
    support: &[bool],
    entry: impl Fn(usize, usize) -> f64,
    q: &DVector<f64>,
) -> Option<DVector<f64>> {
    let mut z = principal_solution_with(n, support, entry, q)?;
    for zi in z.iter_mut().skip(free) {
        *zi = zi.max(0.0);
    }
    Some(z)
}

/// z with z_α solving M_αα z_α = −q_α (α = `support`, dense LU and one step of iterative
/// refinement) and 0 elsewhere, negative entries kept; None when M_αα is singular.
pub(super) fn principal_solution_with(
    n: usize,
    support: &[bool],
    entry: impl Fn(usize, usize) -> f64,
    q: &DVector<f64>,
) -> Option<DVector<f64>> {
    let alpha: Vec<usize> = (0..n).filter(|&i| support[i]).collect();
    let k = alpha.len();
    let m_aa = DMatrix::from_fn(k, k, |r, c| entry(alpha[r], alpha[c]));
    principal_solution_of(n, &alpha, m_aa, q)
}

/// z of length `n` with z_α solving `m_aa` z_α = −q_α (α = `alpha`, increasing; `m_aa` =
/// M_αα) by a dense LU and one step of iterative refinement, 0 elsewhere, negative entries kept;
/// None when M_αα is singular.
pub(super) fn principal_solution_of(
    n: usize,
    alpha: &[usize],
    m_aa: DMatrix<f64>,
    q: &DVector<f64>,
) -> Option<DVector<f64>> {
    scattered(n, alpha, q, |rhs| {
        let lu = factor(m_aa.clone())?;
        let mut z_a = lu.solve(rhs)?;
        // One step of iterative refinement (supports of contact LCPs are often nearly
        // singular: three of a face's four coplanar points).
        if let Some(dz) = lu.solve(&(rhs - &m_aa * &z_a)) {
            z_a += dz;
        }
        Some(z_a)
    })
}

/// [`principal_solution_of`] by [`iterated_tikhonov`] instead: the same answer to round-off
/// when M_αα is nonsingular, and when it is singular and consistent (a face's four coplanar
/// corners) the least-norm one — the load shared by the four — where the plain solve gives
/// None. For the time-stepping models' warm start on steps without a large island only
/// (`sparse::principal_pivoting` with `least_norm`; docs/solvers.md, "Resting faces"): Lemke's
/// method and its polish keep vertex answers. `symmetric`: M_αα is symmetric (a block of
/// W = G M⁻¹ Gᵀ) and only its lower triangle is read, factored by Cholesky instead of LU.
pub(super) fn least_norm_principal_solution_of(
    n: usize,
    alpha: &[usize],
    m_aa: DMatrix<f64>,
    q: &DVector<f64>,
    symmetric: bool,
) -> Option<DVector<f64>> {
    scattered(n, alpha, q, |rhs| {
        if symmetric {
            iterated_tikhonov(&lower_mirrored(m_aa), rhs, Shifted::cholesky)
        } else {
            iterated_tikhonov(&m_aa, rhs, Shifted::lu)
        }
    })
}

/// `a` with its strict upper triangle replaced by the lower one's mirror image: exactly
/// symmetric (a product G M⁻¹ Gᵀ summed entry by entry is symmetric only to round-off).
fn lower_mirrored(mut a: DMatrix<f64>) -> DMatrix<f64> {
    for c in 1..a.ncols() {
        for r in 0..c {
            a[(r, c)] = a[(c, r)];
        }
    }
    a
}

/// z of length `n`: `solve`'s answer z_α of M_αα z_α = rhs = −q_α on α = `alpha`, 0 elsewhere
/// (z = 0 for an empty α).
fn scattered(
    n: usize,
    alpha: &[usize],
    q: &DVector<f64>,
    solve: impl FnOnce(&DVector<f64>) -> Option<DVector<f64>>,
) -> Option<DVector<f64>> {
    let mut z = DVector::zeros(n);
    if alpha.is_empty() {
        return Some(z);
    }
    let rhs = DVector::from_fn(alpha.len(), |r, _| -q[alpha[r]]);
    let z_a = solve(&rhs)?;
    for (r, &i) in alpha.iter().enumerate() {
        z[i] = z_a[r];
    }
    Some(z)
}

/// Relative shift ε / ‖M_αα‖max of [`iterated_tikhonov`].
const PRINCIPAL_SHIFT: f64 = 1e-9;

/// Most steps of [`iterated_tikhonov`].
const PRINCIPAL_STEPS: usize = 8;

/// Relative change of x at which [`iterated_tikhonov`] stops.
const PRINCIPAL_STEP_TOL: f64 = 1e-15;

/// [`iterated_tikhonov`] stops after a step larger than this fraction of the step before
/// (the steps no longer shrink) ...
const PRINCIPAL_STALL: f64 = 0.1;

/// ... when that step is at most this fraction of ‖x‖∞: eight times the round-off the shifted
/// solve puts along A's null space, u/ε (below).
const PRINCIPAL_NOISE_FLOOR: f64 = 8.0 * f64::EPSILON / PRINCIPAL_SHIFT;

/// A + ε I factored.
enum Shifted {
    Lu(nalgebra::LU<f64, nalgebra::Dyn, nalgebra::Dyn>),
    Cholesky(PackedCholesky),
}

impl Shifted {
    /// LU of A + ε I; None when a pivot is at most [`SINGULAR_REL_TOL`] of its largest entry.
    fn lu(a: &DMatrix<f64>, eps: f64) -> Option<Self> {
        let k = a.nrows();
        factor(a + DMatrix::identity(k, k) * eps).map(Shifted::Lu)
    }

    /// Cholesky of the symmetric A + ε I (A positive semidefinite, so A + ε I is definite);
    /// LU when round-off leaves it indefinite.
    fn cholesky(a: &DMatrix<f64>, eps: f64) -> Option<Self> {
        match PackedCholesky::new(a, eps) {
            Some(c) => Some(Shifted::Cholesky(c)),
            None => Self::lu(a, eps),
        }
    }

    fn solve(&self, b: &DVector<f64>) -> Option<DVector<f64>> {
        match self {
            Shifted::Lu(lu) => lu.solve(b),
            Shifted::Cholesky(c) => Some(c.solve(b)),
        }
    }
}

/// L with L Lᵀ = A + ε I for a symmetric A of a few hundred rows at most (the warm start's
/// principal systems), by the right-looking (outer-product) order: each column is scaled by its
/// pivot's reciprocal and the trailing columns updated by contiguous `axpy`s, so no division
/// or inner product sits on a chain of dependent operations. L's lower triangle in an n × n
/// column-major array, its pivots' reciprocals, and each column's extent: rows of contacts that
/// share no body with a column's row stay zero unless fill-in reaches them, so the work skips
/// every column's zero tail (exact: it would subtract zeros) and a stack's banded W costs
/// O(n b²) to factor and O(n b) to solve with.
struct PackedCholesky {
    n: usize,
    l: Vec<f64>,
    inverse_pivots: Vec<f64>,
    /// One past the last nonzero row of each column of L.
    ends: Vec<usize>,
}

impl PackedCholesky {
    /// From A's lower triangle; None when a pivot is not positive (A + ε I not definite).
    fn new(a: &DMatrix<f64>, eps: f64) -> Option<Self> {
        let n = a.nrows();
        let mut l = a.as_slice().to_vec();
        let mut inverse_pivots = vec![0.0; n];
        let mut ends = vec![0; n];
        for j in 0..n {
            l[j * n + j] += eps;
        }
        for j in 0..n {
            let (done, trailing) = l.split_at_mut((j + 1) * n);
            let column = &mut done[j * n..];
            let pivot = column[j];
            if !(pivot > 0.0) {
                return None;
            }
            let d = pivot.sqrt();
            let inverse = 1.0 / d;
            column[j] = d;
            inverse_pivots[j] = inverse;
            let end = j + 1 + column[j + 1..].iter().rposition(|&x| x != 0.0).map_or(0, |i| i + 1);
            ends[j] = end;
            for x in &mut column[j + 1..end] {
                *x *= inverse;
            }
            // Column k of the trailing matrix, rows k..end: −= L_kj L_(k..end),j (nothing
            // where L_kj = 0).
            for (c, target) in trailing.chunks_exact_mut(n).take(end - j - 1).enumerate() {
                let k = j + 1 + c;
                let lkj = column[k];
                if lkj == 0.0 {
                    continue;
                }
                for (t, &lij) in target[k..end].iter_mut().zip(&column[k..end]) {
                    *t -= lkj * lij;
                }
            }
        }
        Some(PackedCholesky {
            n,
            l,
            inverse_pivots,
            ends,
        })
    }

    /// x with L Lᵀ x = b: forward substitution by columns of L, back substitution by rows of
    /// Lᵀ (L's columns again), each over the column's extent.
    fn solve(&self, b: &DVector<f64>) -> DVector<f64> {
        let (n, l) = (self.n, &self.l);
        let mut x = b.clone();
        let x = x.as_mut_slice();
        for j in 0..n {
            x[j] *= self.inverse_pivots[j];
            let end = self.ends[j];
            let (xj, below) = (x[j], &mut x[j + 1..end]);
            for (xi, lij) in below.iter_mut().zip(&l[j * n + j + 1..j * n + end]) {
                *xi -= lij * xj;
            }
        }
        for j in (0..n).rev() {
            let end = self.ends[j];
            let below = dot(&l[j * n + j + 1..j * n + end], &x[j + 1..end]);
            x[j] = (x[j] - below) * self.inverse_pivots[j];
        }
        DVector::from_column_slice(x)
    }
}

/// Σ aᵢ bᵢ in four interleaved partial sums (which the compiler keeps in vector registers).
fn dot(a: &[f64], b: &[f64]) -> f64 {
    let mut partial = [0.0; 4];
    let (chunks_a, chunks_b) = (a.chunks_exact(4), b.chunks_exact(4));
    let tail: f64 = chunks_a
        .remainder()
        .iter()
        .zip(chunks_b.remainder())
        .map(|(x, y)| x * y)
        .sum();
    for (ca, cb) in chunks_a.zip(chunks_b) {
        for k in 0..4 {
            partial[k] += ca[k] * cb[k];
        }
    }
    (partial[0] + partial[1]) + (partial[2] + partial[3]) + tail
}

/// ‖v‖∞ of a vector or matrix's entries, in four interleaved maxima (the maximum of the same
/// numbers in any order; one chain of `max` was 8 % of a stack step's principal solve).
fn largest_magnitude(v: &[f64]) -> f64 {
    let mut lanes = [0.0f64; 4];
    let chunks = v.chunks_exact(4);
    let tail = chunks.remainder().iter().fold(0.0, |m: f64, x| m.max(x.abs()));
    for chunk in chunks {
        for k in 0..4 {
            lanes[k] = lanes[k].max(chunk[k].abs());
        }
    }
    lanes.iter().fold(tail, |m, &x| m.max(x))
}

/// x with A x = b by iterated Tikhonov regularization (Hanke & Groetsch, "Nonstationary
/// iterated Tikhonov regularization", J. Optim. Theory Appl. 98, 1998, the stationary case):
/// x⁰ = 0, xᵏ⁺¹ = xᵏ + (A + ε I)⁻¹ (b − A xᵏ), ε = [`PRINCIPAL_SHIFT`] ‖A‖max, one
/// factorization of A + ε I (`factor` of A and ε: LU, or Cholesky for a symmetric A). Each step
/// divides the error along an eigenvector of eigenvalue λ by 1 + λ/ε: a well-conditioned A is
/// solved to round-off in two or three steps, and a singular, consistent A (a face's four
/// coplanar corners: W has rank 3 on them) gets the solution with no part in its null space —
/// for symmetric A the least-norm one, the load shared by the four corners instead of one of
/// the two triangles of three. An inconsistent system gives a large x, which the caller's
/// residual rejects. None when A is zero or A + ε I is singular.
///
/// Stop: after [`PRINCIPAL_STEPS`] steps, or a step below [`PRINCIPAL_STEP_TOL`] ‖x‖∞, or a step
/// that did not shrink tenfold ([`PRINCIPAL_STALL`]) and is at the round-off floor
/// ([`PRINCIPAL_NOISE_FLOOR`] ‖x‖∞). The residual b − A xᵏ carries round-off of u ‖A‖ ‖x‖ in
/// every direction, and the shifted solve multiplies its null-space part by 1/ε: each step moves
/// x along the null space by ~u/ε ‖x‖ (2.2e-7) at random, so once the steps are that small they
/// no longer shrink (measured on the 10-box stack: 1, 9.9e-8, then 3e-8 to 1.1e-7 for every
/// later step) and further steps only add noise. A step that shrinks slowly but is larger than
/// the floor is a component converging slowly (an eigenvalue λ near ε): the iteration goes on.
fn iterated_tikhonov(
    a: &DMatrix<f64>,
    b: &DVector<f64>,
    factor: impl FnOnce(&DMatrix<f64>, f64) -> Option<Shifted>,
) -> Option<DVector<f64>> {
    let k = a.nrows();
    let eps = PRINCIPAL_SHIFT * largest_magnitude(a.as_slice());
    if eps == 0.0 {
        return None;
    }
    let shifted = factor(a, eps)?;
    let mut x = DVector::zeros(k);
    let mut last_step = f64::INFINITY;
    for _ in 0..PRINCIPAL_STEPS {
        let dx = shifted.solve(&(b - a * &x))?;
        x += &dx;
        let step = largest_magnitude(dx.as_slice());
        let size = largest_magnitude(x.as_slice());
        let stalled = step > PRINCIPAL_STALL * last_step && step <= PRINCIPAL_NOISE_FLOOR * size;
        if step <= PRINCIPAL_STEP_TOL * size || stalled {
            break;
        }
        last_step = step;
    }
    Some(x)
}

/// A variable of the augmented system `w − M z − d z₀ = q`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Var {
    W(usize),
    Z(usize),
    Z0,
}

impl Var {
    /// A pseudo-random 64-bit key (SplitMix64 of the variable's index) for Zobrist hashing.
    fn hash(self) -> u64 {
        let id = match self {
            Var::W(i) => 2 * i as u64,
            Var::Z(i) => 2 * i as u64 + 1,
            Var::Z0 => u64::MAX,
        };
        let mut x = id.wrapping_add(0x9E37_79B9_7F4A_7C15);
        x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        x ^ (x >> 31)
    }

    /// The complementary variable (wᵢ ↔ zᵢ); z₀ has none and never re-enters.
    fn complement(self) -> Var {
        match self {
            Var::W(i) => Var::Z(i),
            Var::Z(i) => Var::W(i),
            Var::Z0 => unreachable!("z0 leaving ends the method"),
        }
    }
}

/// Result of [`lemke`] on a plain LCP.
struct Run {
    /// The z part of the last basic solution (negative round-off clamped to 0).
    z: DVector<f64>,
    /// Which zᵢ are basic at the end (the active set α of the final principal system).
    basic_z: Vec<bool>,
    pivots: usize,
    ending: Ending,
}

/// The linear algebra of a basis B (n of the columns of `[I | −M̂ | −d]`) that the pivoting
/// needs; [`DenseBasis`] keeps B⁻¹ explicitly, `lemke_sparse::SparseBasis` a sparse LU of an
/// earlier basis and the eta matrices of the pivots since.
pub(super) trait BasisAlgebra {
    /// out ← B⁻¹a for the column a of `var`.
    fn entering_column(&mut self, var: Var, out: &mut DVector<f64>);
    /// (B⁻¹)ᵢₖ (the lexicographic ratio test, levels ≥ 1).
    fn inverse_entry(&mut self, i: usize, k: usize) -> f64;
    /// Row r of the basis now holds the variable whose entering column (B⁻¹a before the
    /// exchange) is `column`; `basis` is the basis after the exchange.
    fn pivot(&mut self, r: usize, column: &DVector<f64>, basis: &[Var]);
    /// out += x · a for the column a of `var`.
    fn add_column(&self, var: Var, x: f64, out: &mut DVector<f64>);
    /// x += B⁻¹v (v may be overwritten).
    fn add_solve(&mut self, v: &mut DVector<f64>, x: &mut DVector<f64>);
}

/// B⁻¹ kept explicitly (n × n), for the dense LCP(M̂, q̂) with d = (1, …, 1); M̂ = M/μ is applied
/// as `m_inv_unit · M` so M is never copied.
struct DenseBasis<'a> {
    m: &'a DMatrix<f64>,
    /// 1/μ.
    m_inv_unit: f64,
    binv: DMatrix<f64>,
}

impl BasisAlgebra for DenseBasis<'_> {
    fn entering_column(&mut self, var: Var, out: &mut DVector<f64>) {
        match var {
            Var::W(j) => out.copy_from(&self.binv.column(j)),
            // B⁻¹ times column j of −M̂, over the column's nonzeros only (contact LCPs are
            // sparse): the same sum, term for term in the same order, as the dense product.
            Var::Z(j) => {
                out.fill(0.0);
                for (k, &m_kj) in self.m.column(j).iter().enumerate() {
                    if m_kj != 0.0 {
                        out.axpy(-self.m_inv_unit * m_kj, &self.binv.column(k), 1.0);
                    }
                }
            }
            Var::Z0 => {
                // −B⁻¹d with d = (1, …, 1): minus the sum of the columns of B⁻¹.
                out.fill(0.0);
                for j in 0..self.binv.ncols() {
                    out.axpy(-1.0, &self.binv.column(j), 1.0);
                }
            }
        }
    }

    fn inverse_entry(&mut self, i: usize, k: usize) -> f64 {
        self.binv[(i, k)]
    }

    fn pivot(&mut self, r: usize, column: &DVector<f64>, _basis: &[Var]) {
        // Column-major storage: update each column of B⁻¹ as a vector.
        let n = column.len();
        for col in self.binv.as_mut_slice().chunks_exact_mut(n) {
            eliminate(col, column.as_slice(), r);
        }
    }

    fn add_column(&self, var: Var, x: f64, out: &mut DVector<f64>) {
        match var {
            Var::W(j) => out[j] += x,
            Var::Z(j) => out.axpy(-x * self.m_inv_unit, &self.m.column(j), 1.0),
            Var::Z0 => out.add_scalar_mut(-x),
        }
    }

    fn add_solve(&mut self, v: &mut DVector<f64>, x: &mut DVector<f64>) {
        x.gemv(1.0, &self.binv, v, 1.0);
    }
}

/// v ← E v for the eta matrix E of a pivot on row r with entering column c (module doc,
/// "Linear algebra"): vᵣ ← vᵣ/cᵣ, vᵢ ← vᵢ − cᵢ vᵣ/cᵣ.
fn eliminate(v: &mut [f64], c: &[f64], r: usize) {
    let p = v[r] / c[r];
    if p != 0.0 {
        for (vi, ci) in v.iter_mut().zip(c) {
            *vi -= ci * p;
        }
    }
    v[r] = p;
}

/// The pivoting state: basis, its linear algebra, x_B = B⁻¹q̂, and work buffers (allocated
/// once), on the unit-scaled LCP (M̂, q̂) = (M/μ, q/κ) (see [`lemke`]).
pub(super) struct Tableau<B> {
    alg: B,
    /// q̂.
    q: DVector<f64>,
    /// x_B = B⁻¹q̂: the values of the basic variables.
    xb: DVector<f64>,
    /// basis[i] = the variable basic in row i.
    basis: Vec<Var>,
    /// The entering column B⁻¹a (also a scratch vector for refinement).
    column: DVector<f64>,
    /// Rows still tied in the ratio test, and their current keys.
    candidates: Vec<usize>,
    keys: Vec<f64>,
    /// ζ = [`ZERO_REL_TOL`] · ‖q‖∞: basic values this small are round-off of 0.
    zero: f64,
    /// The drivers' last resort (module doc, "Last resort"): the textbook ratio test
    /// ([`Self::textbook_leaving_row`], [`LAST_RESORT_PIVOT_REL_TOL`]), no exit at z₀'s exit
    /// level, and x_B refined before a ray or a cycle ends the path ([`refined_ending`]).
    pub(super) last_resort: bool,
}

impl<B: BasisAlgebra> Tableau<B> {
    /// The basis `basis` with linear algebra `alg` and basic values `xb` = B⁻¹q̂, for q̂ (already
    /// scaled).
    pub(super) fn new(alg: B, q: DVector<f64>, basis: Vec<Var>, xb: DVector<f64>) -> Self {
        let n = q.len();
        Tableau {
            alg,
            xb,
            basis,
            column: DVector::zeros(n),
            candidates: Vec::with_capacity(n),
            keys: Vec::with_capacity(n),
            zero: ZERO_REL_TOL * q.amax(),
            q,
            last_resort: false,
        }
    }

    fn len(&self) -> usize {
        self.q.len()
    }

    /// column = B⁻¹a for the entering variable's column a of `[I | −M̂ | −d]`.
    fn load_column(&mut self, entering: Var) {
        self.alg.entering_column(entering, &mut self.column);
    }

    /// The value compared at `level` of the lexicographic test for row i: (B⁻¹q)ᵢ at level 0,
    /// then (B⁻¹)ᵢ,ₖ₋₁ at level k ≥ 1. Once the basis is feasible (after the first pivot), a
    /// negative (B⁻¹q)ᵢ can only be round-off of 0 and is read as 0.
    fn lex_value(&mut self, level: usize, i: usize, feasible: bool) -> f64 {
        if level == 0 {
            if feasible {
                self.xb[i].max(0.0)
            } else {
                self.xb[i]
            }
        } else {
            self.alg.inverse_entry(i, level - 1)
        }
    }

    /// The leaving row of a regular step (x_B ≥ −ζ; candidates = rows with cᵢ above the pivot
    /// tolerance); see "Ratio test" in the module doc.
    fn leaving_row(&mut self, z0_row: usize) -> usize {
        if self.last_resort {
            return self.textbook_leaving_row(z0_row);
        }
        // Harris band: the longest step that keeps every basic variable ≥ −ζ.
        let zeta = self.zero;
        let mut t_max = f64::INFINITY;
        for &i in &self.candidates {
            t_max = t_max.min((self.xb[i].max(0.0) + zeta) / self.column[i]);
        }
        let (xb, column) = (&self.xb, &self.column);
        self.candidates
            .retain(|&i| xb[i].max(0.0) / column[i] <= t_max);
        // z₀ can be driven to 0 within the band: that ends the path with a solution.
        if self.candidates.contains(&z0_row) {
            return z0_row;
        }
        // Numerical stability: no pivot much smaller than the band offers.
        let cmax = self
            .candidates
            .iter()
            .map(|&i| column[i])
            .fold(0.0, f64::max);
        self.candidates
            .retain(|&i| column[i] >= STABLE_REL_TOL * cmax);
        self.lex_min_ratio_row(1.0, true)
    }

    /// The leaving row of the last resort's textbook ratio test (module doc, "Last resort"): z₀'s
    /// row when its ratio is the minimum, otherwise the lexicographic minimum (CPS §4.9) of the
    /// blocking rows, with no Harris band and no stability filter.
    fn textbook_leaving_row(&mut self, z0_row: usize) -> usize {
        let (xb, column) = (&self.xb, &self.column);
        let ratio = |i: usize| xb[i].max(0.0) / column[i];
        if self.candidates.contains(&z0_row)
            && self.candidates.iter().all(|&i| ratio(i) >= ratio(z0_row))
        {
            return z0_row;
        }
        self.lex_min_ratio_row(1.0, true)
    }

    /// Among `self.candidates`, the row minimizing (row i of [B⁻¹q | B⁻¹]) / divisorᵢ
    /// lexicographically, with divisorᵢ = sign · columnᵢ > 0 (CPS §4.9). `feasible`: x_B ≥ 0
    /// (every step but the first).
    fn lex_min_ratio_row(&mut self, sign: f64, feasible: bool) -> usize {
        let n = self.len();
        for level in 0..=n {
            if self.candidates.len() <= 1 {
                break;
            }
            self.keys.clear();
            let (mut min, mut value_scale, mut divisor_scale) = (f64::INFINITY, 0.0f64, 0.0f64);
            for k in 0..self.candidates.len() {
                let i = self.candidates[k];
                let value = self.lex_value(level, i, feasible);
                let divisor = sign * self.column[i];
                let key = value / divisor;
                self.keys.push(key);
                min = min.min(key);
                value_scale = value_scale.max(value.abs());
                divisor_scale = divisor_scale.max(divisor);
            }
            let threshold = min + TIE_REL_TOL * (min.abs() + value_scale / divisor_scale);
            let mut kept = 0;
            for k in 0..self.candidates.len() {
                if self.keys[k] <= threshold {
                    self.candidates[kept] = self.candidates[k];
                    kept += 1;
                }
            }
            self.candidates.truncate(kept);
        }
        self.candidates[0]
    }

    /// Exchange the basic variable of row r for `entering` (whose column is loaded): the
    /// product-form update B⁻¹ ← E B⁻¹, x_B ← E x_B (module doc). Returns the leaving variable.
    fn pivot(&mut self, r: usize, entering: Var) -> Var {
        eliminate(self.xb.as_mut_slice(), self.column.as_slice(), r);
        let leaving = std::mem::replace(&mut self.basis[r], entering);
        self.alg.pivot(r, &self.column, &self.basis);
        leaving
    }

    /// x_B += B⁻¹(q̂ − B x_B): one step of iterative refinement of the basic solution.
    fn refine(&mut self) {
        self.column.copy_from(&self.q);
        for k in 0..self.len() {
            self.alg.add_column(self.basis[k], -self.xb[k], &mut self.column);
        }
        self.alg.add_solve(&mut self.column, &mut self.xb);
    }

    /// ‖min(ẑ, M̂ẑ + q̂)‖∞ of the basic solution (ẑ = basic z's, negatives read as 0).
    fn natural_residual(&mut self) -> f64 {
        let n = self.len();
        // keys := ẑ, column := M̂ẑ + q̂ (both work buffers).
        self.keys.clear();
        self.keys.resize(n, 0.0);
        self.column.copy_from(&self.q);
        for k in 0..n {
            if let Var::Z(j) = self.basis[k] {
                let x = self.xb[k].max(0.0);
                self.keys[j] = x;
                self.alg.add_column(Var::Z(j), -x, &mut self.column);
            }
        }
        (0..n)
            .map(|i| self.keys[i].min(self.column[i]).abs())
            .fold(0.0, f64::max)
    }

    /// The z part of the basic solution (in units of ẑ), and which zᵢ are basic.
    pub(super) fn z(&self) -> (DVector<f64>, Vec<bool>) {
        let n = self.len();
        let mut z = DVector::zeros(n);
        let mut basic = vec![false; n];
        for (k, var) in self.basis.iter().enumerate() {
            if let Var::Z(j) = *var {
                z[j] = self.xb[k].max(0.0);
                basic[j] = true;
            }
        }
        (z, basic)
    }
}

/// Lemke's method on the plain LCP(M, q) (module doc, steps 1–4), at most `max_pivots` pivots.
/// With `last_resort` the path is the textbook one, refined where it blocks (module doc, "Last
/// resort").
fn lemke(
    m: &DMatrix<f64>,
    q: &DVector<f64>,
    max_pivots: usize,
    tolerance: f64,
    last_resort: bool,
) -> Run {
    let n = q.len();
    // Units: with μ and κ the powers of two nearest below ‖M‖max and ‖q‖∞, ẑ = (μ/κ) z solves
    // LCP(M/μ, q/κ) with ŵ = w/κ. Every tolerance below compares z's with z's and w's with w's
    // of this O(1) problem, so the pivots do not depend on the units of M and q (and scaling
    // both by a power of two changes no bit of z).
    let m_unit = power_of_two_below(m.amax());
    let q_unit = power_of_two_below(q.amax().max(-q.min()));
    let alg = DenseBasis {
        m,
        m_inv_unit: 1.0 / m_unit,
        binv: DMatrix::identity(n, n),
    };
    let q_hat = q / q_unit;
    let mut t = Tableau::new(alg, q_hat.clone(), (0..n).map(Var::W).collect(), q_hat);
    t.last_resort = last_resort;
    let (pivots, ending) = pivot_path(&mut t, 1.0, max_pivots, tolerance);
    let (mut z, basic_z) = t.z();
    z *= q_unit / m_unit;
    Run {
        z,
        basic_z,
        pivots,
        ending,
    }
}

/// How a path that cannot go on (`ending`: a ray or a cycle) ends once its basic solution is
/// refined (module doc, "Ending"): x_B, updated pivot by pivot, drifts from B⁻¹q by round-off
/// (1.8e-8 of ‖q‖∞ after 75 pivots on a 78-row PEG island whose basis has condition number
/// ~1e3), and a z₀ that is exactly 0 at a degenerate basis — the path blocked there, on the
/// solution — can read as 1.8e-8 and fail the exit test. After [`REFINEMENT_STEPS`] steps of
/// iterative refinement a z₀ at the exit level ends the path [`Ending::NearlyComplementary`];
/// otherwise the refinement is undone and the path ends as it was going to.
fn refined_ending<B: BasisAlgebra>(
    t: &mut Tableau<B>,
    z0_row: usize,
    d_max: f64,
    z0_exit: f64,
    ending: Ending,
) -> Ending {
    if !t.last_resort {
        return ending;
    }
    let pivoted = t.xb.clone();
    for _ in 0..REFINEMENT_STEPS {
        t.refine();
    }
    if t.xb[z0_row].abs() * d_max <= z0_exit {
        return Ending::NearlyComplementary;
    }
    t.xb.copy_from(&pivoted);
    ending
}

/// Lemke's path from the tableau's basis (module doc, steps 1–4), at most `max_pivots`
/// pivots: the pivots made and how the path ended. The basis is I (all w basic, d = 1) for the
/// method as published, or any basis B₀ with d = B₀(1, …, 1) so that z₀'s column is −1 in the
/// basis's own coordinates (`lemke_sparse`, warm start): steps 2–4 then read the same.
///
/// `d_max` = ‖d‖∞: the path may end when d z₀ (not z₀ alone) is below the exit level.
pub(super) fn pivot_path<B: BasisAlgebra>(
    t: &mut Tableau<B>,
    d_max: f64,
    max_pivots: usize,
    tolerance: f64,
) -> (usize, Ending) {
    let n = t.len();
    // Step 1: x_B = B⁻¹q ≥ 0 → the basis is complementary.
    if t.xb.iter().all(|&x| x >= 0.0) {
        return (0, Ending::Complementary);
    }
    let mut pivots = 0;
    if max_pivots == 0 {
        return (pivots, Ending::PivotLimit);
    }

    // Step 2: z₀ enters with column −d; the lexicographically most negative row qᵢ/dᵢ leaves
    // (the ratio test with divisor −cᵢ = dᵢ > 0 over all rows).
    t.load_column(Var::Z0);
    t.candidates.clear();
    t.candidates.extend((0..n).filter(|&i| t.column[i] < 0.0));
    if t.candidates.is_empty() {
        return (pivots, Ending::Ray);
    }
    let r = t.lex_min_ratio_row(-1.0, false);
    let mut leaving = t.pivot(r, Var::Z0);
    // z₀ keeps this row for as long as it is basic.
    let z0_row = r;
    pivots += 1;

    // Exit level of z₀: at an almost-complementary basis ŵ = M̂ẑ + q̂ + d z₀ with ẑ ⊥ ŵ, so ẑ
    // alone solves the LCP to within ‖d‖∞ z₀ (in units of q̂).
    let z0_exit = t.zero.max(tolerance.min(1e-5) * 0.1 * t.q.amax());
    // Cycle detection: Zobrist hash of the basis, combined with the entering variable.
    let mut basis_hash = t.basis.iter().fold(0u64, |h, &v| h ^ v.hash());
    basis_hash ^= Var::Z0.hash() ^ leaving.hash();
    let mut seen = crate::util::hash::FastSet::with_capacity_and_hasher(
        max_pivots.min(1 << 14),
        Default::default(),
    );

    // Steps 3–4: complementary pivots until z₀ leaves.
    while leaving != Var::Z0 {
        if pivots >= max_pivots {
            return (pivots, Ending::PivotLimit);
        }
        if t.xb[z0_row] * d_max <= z0_exit && !t.last_resort {
            return (pivots, Ending::NearlyComplementary);
        }
        let entering = leaving.complement();
        t.load_column(entering);
        let pivot_tol = if t.last_resort {
            LAST_RESORT_PIVOT_REL_TOL
        } else {
            PIVOT_REL_TOL
        };
        let threshold = pivot_tol * t.column.amax();
        t.candidates.clear();
        for i in 0..n {
            if t.column[i] > threshold {
                t.candidates.push(i);
            }
        }
        if t.candidates.is_empty() {
            return (pivots, refined_ending(t, z0_row, d_max, z0_exit, Ending::Ray));
        }
        if !seen.insert(basis_hash ^ entering.hash().rotate_left(17)) {
            return (pivots, refined_ending(t, z0_row, d_max, z0_exit, Ending::Cycle));
        }
        let r = t.leaving_row(z0_row);
        // Ratio test, stage 5 (module doc): the step is xᵣ⁺/cᵣ.
        t.xb[r] = t.xb[r].max(0.0);
        leaving = t.pivot(r, entering);
        basis_hash ^= leaving.hash() ^ entering.hash();
        pivots += 1;
    }

    // Refinement moves x_B to the exact basic solution of the final basis; after Harris steps
    // that one can be slightly infeasible, so it is kept only when it is better.
    let pivoted = t.xb.clone();
    let pivoted_residual = t.natural_residual();
    for _ in 0..REFINEMENT_STEPS {
        t.refine();
    }
    let refined_residual = t.natural_residual();
    if refined_residual.is_nan() || refined_residual > pivoted_residual {
        t.xb.copy_from(&pivoted);
    }
    (pivots, Ending::Complementary)
}
