//! Velocity-space Newton solve of a contact step posed as a strictly convex quadratic program:
//! Anitescu's cone-complementarity relaxation with a polyhedral (pyramidal) cone.
//!
//! # Problem
//!
//! Bodies ("nodes") with 6 × 6 mass blocks M_k and a free velocity ν* (what the step reaches
//! without contact), and unilateral constraint rows e, each touching at most two nodes:
//!
//! ```text
//!   minimise  ½ (ν − ν*)ᵀ M (ν − ν*)     subject to   g_e(ν) = A_e ν + b_e ≥ 0   for every row e.
//! ```
//!
//! Its KKT conditions are the contact step: M (ν − ν*) = Σ_e A_eᵀ λ_e with 0 ≤ λ_e ⊥ g_e(ν) ≥ 0,
//! λ_e the impulse along row e (N s when A_e is a unit direction at a point). When each contact
//! contributes the k edges A_e = n + μ d_j of its friction pyramid (`contact/stewart_trinkle.rs`
//! builds them), this is Anitescu's convex relaxation of the Stewart–Trinkle step (M. Anitescu,
//! "Optimization-based simulation of nonsmooth rigid multibody dynamics", Math. Programming 105
//! (2006) 113–143, eq. (21) with a polyhedral cone); the same problem MuJoCo's pyramidal cone and
//! Drake's SAP pose, without their regularization. ν is unique (M is positive definite); λ need
//! not be (four coplanar points of a face span three directions).
//!
//! # Method: augmented Lagrangian, each subproblem by Newton's method
//!
//! With multipliers λ and a penalty D_e = ρ / W_ee per row (W_ee = A_e M⁻¹ A_eᵀ, so ρ is the
//! dimensionless stiffness of a row relative to the mass it moves), the method of multipliers
//! (Rockafellar, "The multiplier method of Hestenes and Powell applied to convex programming",
//! JOTA 12 (1973) 555–562) minimises
//!
//! ```text
//!   L(ν; λ) = ½ (ν − ν*)ᵀ M (ν − ν*) + Σ_e 1/(2 D_e) max(0, λ_e − D_e g_e(ν))²
//! ```
//!
//! over ν, then sets λ_e ← max(0, λ_e − D_e g_e(ν)), until the KKT conditions hold to the
//! tolerance. L is convex, piecewise quadratic and continuously differentiable; its gradient is
//! M (ν − ν*) − Σ_e A_eᵀ f_e with f_e = max(0, λ_e − D_e g_e), its (generalized) Hessian
//! H = M + Σ_{f_e > 0} D_e A_eᵀ A_e. Each Newton step solves H d = −∇L with a block Cholesky
//! factorization over the nodes' contact graph (`block_cholesky.rs`: 6 × nodes unknowns whatever
//! the number of rows; the graph's symbolic pattern is built once per solve, and the sum
//! G = Σ D_e A_eᵀ A_e follows the active set by adding and removing the rows that changed
//! sides, rather than being summed afresh at each step) and takes the exact minimiser of L
//! along d (L' along d is continuous, increasing and piecewise linear; its root is found by
//! walking its breakpoints in order, only those before t = 1 when L'(1) ≥ 0; c_e = λ_e − D_e g_e
//! then moves by −t D_e A_e d, the slopes the line search computed). A
//! step whose active set {f_e > 0} at the new ν is the one its H was built on lands on the
//! subproblem's minimiser, which ends the subproblem; on a resting pile that is the first step.
//!
//! # The first steps
//!
//! A subproblem whose multipliers hold a guess of its answer (a warm start, or any subproblem
//! after an update) first tries the rows with λ_e > 0 as its active set A: the minimiser ν̂ of
//! the quadratic Q_A that L is where exactly A is active is one Newton step away from any ν
//! (H built on A), and if the rows active at ν̂ are A, L equals Q_A around ν̂ (L is C¹ and
//! piecewise quadratic), so ν̂ is the subproblem's minimiser. Otherwise A is replaced by the
//! rows active at ν̂ and the step made again: the primal–dual active-set method (M. Hintermüller,
//! K. Ito, K. Kunisch, "The primal-dual active set strategy as a semismooth Newton method",
//! SIAM J. Optim. 13 (2002) 865–888), at most [`GUESSES`] = 8 times and while the number of rows
//! that disagree does not grow (and, past [`FEW_DISAGREE`] = 8 rows, shrinks by a quarter a try:
//! a guess far from the answer is not worth a factorization a try); then the line-searched Newton steps go on from the ν the
//! subproblem started at, with H on the last A (the rows that differ are added or removed). On a
//! resting pile the warm start misses the tolerance only by the step's change of the position
//! term (a few 1e-8 of ‖q‖∞): the rows with λ_e > 0 are then the answer's active set but for a
//! few, and these tries find it where the line-searched steps took 8–22 steps a subproblem
//! (a stiff row stops the line search where it changes side). Each try costs one factorization,
//! counted as a Newton step, of which only the columns of the bodies whose rows changed side,
//! and their elimination-tree ancestors, are computed (`BlockPattern::refactor`): H's sum and
//! factor are kept across the Newton steps, the subproblems of one ρ, and the solves of one
//! [`Prepared`] problem (the slip passes of `anitescu-convex`, [`Workspace`]).
//!
//! # Subproblems
//!
//! A subproblem also ends, before the next factorization, once ν is close enough to its
//! minimiser: the multipliers an update at ν would set, max(0, c_e), give the bodies the velocity
//! ν(max(0, c)) = ν + M⁻¹(−∇L), which differs from ν along every row by at most
//! [`GRADIENT_FRACTION`] = 0.1 of the tolerance (scaled by ‖q‖∞, as r is). That difference is the
//! imbalance of the updated multipliers, which r does not check ("Ends"), so an answer that meets
//! the tolerance in r is balanced within a tenth of it. Rows whose c_e sits at 0 to round-off no
//! longer keep a subproblem stepping until no row changes side. Measured on `bin_64` (first 2 s,
//! spawn seed 1, one run each): 122,646 Newton steps instead of 129,701 (−5.4 %), solve time
//! 10.2 s against 11.4 s, the same deepest contact (9.7e-9 m) and no failed solve.
//!
//! Unlike a penalty (or MuJoCo's and SAP's regularized) solve, the answer does not depend on ρ:
//! the multiplier update removes the violation λ_e / D_e a fixed penalty leaves, by a factor of
//! about ρ per update where W is well conditioned. ρ sets how many updates that takes and how
//! hard each subproblem is: a stiff row stops the line search where it becomes active, so with
//! a large ρ Newton's method adds rows to the active set a few at a time. The first subproblem
//! therefore takes ρ = [`INITIAL_PENALTY`] = 1e2 (as soft as MuJoCo's or SAP's near-rigid
//! contact: it finds the active set in a few steps), and an update that cut r by less than a
//! factor 4 ([`SLOW_DECREASE`] = 0.25) multiplies ρ by [`PENALTY_GROWTH`] = 1e2, up to
//! [`PENALTY`] = 1e8 (the usual rule of the method of multipliers: D. P. Bertsekas, *Constrained
//! Optimization and Lagrange Multiplier Methods*, 1982, §2.2; an update that works keeps its ρ,
//! and the next subproblem starts where the last one's active set holds). Against growing ρ at
//! every update, measured on the 64-box bin (`bin_64`, `anitescu-convex`, 5 s, spawn seeds 1, 3
//! and 7): 142,822 / 186,060 / 151,577 Newton steps instead of 179,321 / 227,317 / 186,092
//! (18–20 % fewer), the same deepest contact, no failed solve. Measured on the 64-box bin
//! (`docs/solvers.md`): with ρ fixed at 1e6 a solve of a 60-body island took 55 Newton steps on
//! average, with ρ fixed at 1e3 or 1e4 the updates gained too little (a third of the solves hit
//! the update limit), with this schedule 45 steps and 4 updates; capped at 1e6, a few islands
//! of the settling pile stalled at a KKT residual of 1.2e-8 for 30 updates (rows whose
//! Delassus directions are nearly dependent converge at 1/(1 + ρ σ) per update, σ their small
//! eigenvalue; one step of iterative refinement of each Newton system did not change that),
//! capped at 1e8 none did. H's condition number then reaches ~1e10; the whole 64-box bin runs
//! without a failed solve and without refinement (which cost 12 % of the run).
//!
//! # Ends
//!
//! The KKT residual, in velocity units scaled by the problem's ‖q‖∞ = max_e |A_e ν* + b_e|:
//!
//! ```text
//!   r = max_e |min(W_ee λ_e, g_e(ν))| / ‖q‖∞
//! ```
//!
//! (W_ee λ_e is the velocity change λ_e alone makes along row e), measured after each multiplier
//! update. Only an update from a subproblem's minimiser can end the solve: there
//! M (ν − ν*) = Σ A_eᵀ λ_e holds for the updated λ, which r does not check. A subproblem that
//! runs out of Newton steps short of its minimiser ends the solve with `IterationLimit`, its ν's
//! multipliers as the best guess, and a residual that counts the imbalance as well,
//! max(r, max_e |A_e (ν(λ) − ν)| / ‖q‖∞) with ν(λ) = ν* + M⁻¹ Σ_e A_eᵀ λ_e. (Updating from such
//! a ν and judging it by r passed answers whose impulses were far from their velocity: on the
//! 200-box bin under `anitescu-convex`, t = 1.758 s, a 9,664-row island ran out of its 300 steps
//! in its second subproblem, met r ≤ 1e-8 after the update, and its impulses threw a box resting
//! on the floor up at 9.2 m/s and 100 rad/s.)
//!
//! `Solved` when r ≤ tolerance;
//! `IterationLimit` when `max_iterations` Newton steps (over all subproblems) were made first;
//! `Singular` when H could not be factored (only round-off on a wildly scaled problem: M is
//! positive definite); `Malformed` for a non-finite or mis-shaped input. The answer is always the
//! last iterate.
use super::block_cholesky::{BlockCholeskyError, BlockPattern, Slot};
use super::Status;
use crate::dynamics::jacobian::JacobianRow;
use nalgebra::{Matrix6, Vector6};
use std::cmp::{Ordering, Reverse};
use std::collections::BinaryHeap;

/// The largest ρ: a row's penalty stiffness relative to the mass it moves (dimensionless). Larger
/// makes each multiplier update gain more and H worse conditioned (module documentation).
pub const PENALTY: f64 = 1e8;

/// ρ of the first subproblem, multiplied by `PENALTY_GROWTH` up to `PENALTY` after each update
/// that cut the residual by less than `SLOW_DECREASE` (r_new > SLOW_DECREASE · r_old).
pub const INITIAL_PENALTY: f64 = 1e2;
pub const PENALTY_GROWTH: f64 = 1e2;
pub const SLOW_DECREASE: f64 = 0.25;

/// A subproblem ends once the multipliers an update would set balance ν to this fraction of the
/// tolerance (module documentation, "Subproblems"), so an answer that meets the tolerance in
/// r is also balanced within it.
pub const GRADIENT_FRACTION: f64 = 0.1;

/// At most this many guesses of a subproblem's active set before its Newton steps (module
/// documentation, "The first steps").
pub const GUESSES: usize = 8;

/// Up to this many rows may disagree with a guess without the next try having to shrink their
/// number by a quarter (module documentation, "The first steps").
pub const FEW_DISAGREE: usize = 8;

/// The convex step: see the module documentation. Rows' blocks are indexed by node: a block at
/// offset o acts on node o / 6 (offsets 6 k, local to this problem).
pub struct ConvexProblem<'a> {
    /// M_k of each node (symmetric positive definite; kg and kg m² for a rigid body's
    /// [v; ω] in world axes).
    pub mass: &'a [Matrix6<f64>],
    /// ν*, 6 per node (m/s, rad/s).
    pub free_velocity: &'a [f64],
    /// A_e, at most two blocks each.
    pub rows: &'a [JacobianRow],
    /// b_e (m/s): g_e = A_e ν + b_e.
    pub bias: &'a [f64],
}

/// Options of [`solve`].
#[derive(Clone, Copy, Debug)]
pub struct ConvexOptions {
    /// Bound on the scaled KKT residual (dimensionless).
    pub tolerance: f64,
    /// Newton steps over all subproblems.
    pub max_iterations: usize,
    /// Multiplier updates.
    pub max_updates: usize,
}

impl Default for ConvexOptions {
    fn default() -> Self {
        ConvexOptions {
            tolerance: 1e-10,
            max_iterations: 300,
            max_updates: 30,
        }
    }
}

/// What [`solve`] found.
#[derive(Clone, Debug)]
pub struct ConvexSolve {
    /// ν (6 per node).
    pub velocity: Vec<f64>,
    /// λ_e ≥ 0 per row.
    pub impulses: Vec<f64>,
    pub status: Status,
    /// Newton steps (each one factorization of H).
    pub iterations: usize,
    /// Multiplier updates.
    pub updates: usize,
    /// The scaled KKT residual of (ν, λ).
    pub residual: f64,
}

/// Solve `problem` from the multipliers `warm` (one per row, read as max(0, ·); None: zero).
pub fn solve(problem: &ConvexProblem, warm: Option<&[f64]>, options: &ConvexOptions) -> ConvexSolve {
    match Prepared::new(problem) {
        Ok(prepared) => prepared.solve(problem, warm, options),
        Err(malformed) => malformed,
    }
}

/// The answer to a malformed problem: ν*, no impulses, `BadProblem(why)`.
fn malformed(problem: &ConvexProblem, why: &str) -> ConvexSolve {
    ConvexSolve {
        impulses: vec![0.0; problem.rows.len()],
        velocity: problem.free_velocity.to_vec(),
        status: Status::BadProblem(why.into()),
        iterations: 0,
        updates: 0,
        residual: f64::INFINITY,
    }
}

/// What a solve needs of the masses and rows alone (not the bias or free velocity): M⁻¹, W_ee
/// and H's block pattern, computed once for solves that differ only in their bias, as the slip
/// passes of `anitescu-convex` do (each pass is the same rows with shifted b).
pub struct Prepared {
    nodes: usize,
    rows: usize,
    /// M_k⁻¹ of each node.
    inverse: Vec<Matrix6<f64>>,
    /// W_ee (m/s per N s).
    self_delassus: Vec<f64>,
    /// H's block graph (the nodes the rows join), factored numerically at each Newton step.
    pattern: BlockPattern,
    /// Where each two-node row's block of H goes in the pattern.
    slots: Vec<Option<Slot>>,
}

impl Prepared {
    /// Check and prepare the masses and rows of `problem`; Err: the malformed answer.
    pub fn new(problem: &ConvexProblem) -> Result<Prepared, ConvexSolve> {
        let nodes = problem.mass.len();
        let shaped = problem
            .rows
            .iter()
            .all(|r| r.blocks.iter().all(|(o, _)| o % 6 == 0 && o / 6 < nodes));
        let finite = problem.mass.iter().all(|m| m.iter().all(|v| v.is_finite()))
            && problem
                .rows
                .iter()
                .all(|r| r.blocks.iter().all(|(_, b)| b.iter().all(|v| v.is_finite())));
        if !shaped {
            return Err(malformed(problem, "a row's block does not address one of the nodes"));
        }
        if !finite {
            return Err(malformed(problem, "a mass block or row entry is not finite"));
        }
        let Some(inverse) = problem
            .mass
            .iter()
            .map(|m| m.cholesky().map(|c| c.inverse()))
            .collect::<Option<Vec<_>>>()
        else {
            return Err(malformed(problem, "a mass block is not positive definite"));
        };
        let self_delassus: Vec<f64> = problem
            .rows
            .iter()
            .map(|r| {
                r.blocks
                    .iter()
                    .map(|(o, b)| {
                        let v = Vector6::from_column_slice(b);
                        v.dot(&(inverse[o / 6] * v))
                    })
                    .sum::<f64>()
            })
            .collect();
        let pair = |r: &JacobianRow| match r.blocks.as_slice() {
            [(a, _), (b, _)] => Some((a / 6, b / 6)),
            _ => None,
        };
        let pattern = BlockPattern::new(nodes, problem.rows.iter().filter_map(pair));
        let slots = problem.rows.iter().map(|r| pair(r).and_then(|(a, b)| pattern.slot(a, b))).collect();
        Ok(Prepared {
            nodes,
            rows: problem.rows.len(),
            inverse,
            self_delassus,
            pattern,
            slots,
        })
    }

    /// Solve `problem`, whose masses and rows must be the ones this was prepared from (only its
    /// bias and free velocity may differ), from the multipliers `warm` (as [`solve`]).
    pub fn solve(&self, problem: &ConvexProblem, warm: Option<&[f64]>, options: &ConvexOptions) -> ConvexSolve {
        self.solve_in(&mut Workspace::default(), problem, warm, options)
    }

    /// [`solve`](Self::solve) with H's sum and factor kept in `workspace` from an earlier solve
    /// of the same prepared problem (and for a later one), where its ρ is the same: the slip
    /// passes' solves start from the last pass's factor, refactoring only what changed.
    pub fn solve_in(
        &self,
        workspace: &mut Workspace,
        problem: &ConvexProblem,
        warm: Option<&[f64]>,
        options: &ConvexOptions,
    ) -> ConvexSolve {
        let rows = problem.rows.len();
        let shaped = problem.mass.len() == self.nodes
            && rows == self.rows
            && problem.free_velocity.len() == 6 * self.nodes
            && problem.bias.len() == rows
            && warm.is_none_or(|w| w.len() == rows);
        if !shaped {
            return malformed(problem, "the rows, bias, warm start or free velocity do not match the prepared nodes and rows");
        }
        if !problem.free_velocity.iter().chain(problem.bias).all(|v| v.is_finite()) {
            return malformed(problem, "a bias or free velocity entry is not finite");
        }
        Solver::new(problem, self).run(workspace, warm, options)
    }
}

/// What a caller may keep across solves of one [`Prepared`] problem: H = M + Σ D_e A_eᵀA_e
/// over the rows last active and its factor, with the ρ they were built for.
#[derive(Default)]
pub struct Workspace {
    hessian: Option<(f64, Hessian)>,
}

impl Workspace {
    /// H for penalty ρ: the kept one if it was built for this ρ and this problem's sizes (a
    /// workspace passed to another problem starts afresh), else a new one (no rows).
    fn hessian(&mut self, solver: &Solver, rho: f64) -> &mut Hessian {
        let fits = |(kept, h): &(f64, Hessian)| {
            *kept == rho
                && h.rows.len() == solver.p.rows.len()
                && h.diagonal.len() == solver.p.mass.len()
                && h.below.len() == solver.pattern.blocks()
        };
        if !self.hessian.as_ref().is_some_and(fits) {
            self.hessian = Some((rho, Hessian::new(solver)));
        }
        &mut self.hessian.as_mut().expect("just set").1
    }
}

/// The state of one solve.
struct Solver<'a> {
    p: &'a ConvexProblem<'a>,
    /// M_k⁻¹ of each node.
    inverse: &'a [Matrix6<f64>],
    /// D_e = ρ / W_ee (N s per m/s).
    penalty: Vec<f64>,
    /// W_ee (m/s per N s).
    self_delassus: &'a [f64],
    /// ‖q‖∞ = max_e |A_e ν* + b_e| (m/s), the residual's scale.
    scale: f64,
    /// H's block graph (the nodes the rows join), factored numerically at each Newton step.
    pattern: &'a BlockPattern,
    /// Where each two-node row's block of H goes in the pattern.
    slots: &'a [Option<Slot>],
}

impl<'a> Solver<'a> {
    fn new(p: &'a ConvexProblem<'a>, prepared: &'a Prepared) -> Self {
        // Set for each subproblem (`set_penalty`). A row that moves nothing (W_ee = 0: both
        // bodies fixed) keeps none; no ν can meet it, which the residual then shows.
        let penalty = vec![0.0; prepared.self_delassus.len()];
        let scale = p
            .rows
            .iter()
            .zip(p.bias)
            .map(|(r, b)| (r.dot(p.free_velocity) + b).abs())
            .fold(0.0, f64::max);
        Solver {
            p,
            inverse: &prepared.inverse,
            penalty,
            self_delassus: &prepared.self_delassus,
            scale,
            pattern: &prepared.pattern,
            slots: &prepared.slots,
        }
    }

    fn run(&mut self, workspace: &mut Workspace, warm: Option<&[f64]>, options: &ConvexOptions) -> ConvexSolve {
        let rows = self.p.rows.len();
        let mut lambda: Vec<f64> = match warm {
            Some(w) => w.iter().map(|&x| x.max(0.0)).collect(),
            None => vec![0.0; rows],
        };
        // Start where the warm multipliers alone would take the bodies.
        let mut nu = self.velocity_of(&lambda);

        let mut iterations = 0;
        let mut updates = 0;
        // ρ of the first subproblem: INITIAL_PENALTY from a cold start, stiffer from a warm start
        // that already meets the rows to r₀, so that the penalty's own violation (≈ 1/ρ of the
        // velocity changes) stays below the start's.
        let start = self.residual(&nu, &lambda);
        let mut rho = (INITIAL_PENALTY / start.max(f64::MIN_POSITIVE)).clamp(INITIAL_PENALTY, PENALTY);
        self.set_penalty(rho);
        // r before the last multiplier update.
        let mut last = start;
        // How close to its minimiser a subproblem must end (module documentation, "Subproblems").
        let enough = GRADIENT_FRACTION * options.tolerance;
        // r of (ν, λ) at the top of the loop: the start's first, then after each update.
        let mut residual = start;
        loop {
            let done = |status| ConvexSolve {
                velocity: nu.clone(),
                impulses: lambda.clone(),
                status,
                iterations,
                updates,
                residual,
            };
            if !residual.is_finite() {
                return done(Status::Inaccurate);
            }
            if residual <= options.tolerance {
                return done(Status::Solved);
            }
            if iterations >= options.max_iterations || updates >= options.max_updates {
                return done(Status::IterationLimit);
            }
            // Stiffer, up to PENALTY, when the last update cut r by less than SLOW_DECREASE.
            if updates > 0 && residual > SLOW_DECREASE * last && rho < PENALTY {
                rho = (rho * PENALTY_GROWTH).min(PENALTY);
                self.set_penalty(rho);
            }
            let hessian = workspace.hessian(self, rho);
            match self.minimise(hessian, &lambda, &mut nu, options.max_iterations - iterations, enough) {
                Ok((steps, true)) => iterations += steps,
                // Stopped short of the subproblem's minimiser: the multipliers of this ν are the
                // best guess, but not an answer (module doc, "Ends").
                Ok((steps, false)) => {
                    iterations += steps;
                    self.update(&mut lambda, &nu);
                    updates += 1;
                    let residual = self.residual(&nu, &lambda).max(self.imbalance(&nu, &lambda));
                    return ConvexSolve {
                        velocity: nu,
                        impulses: lambda,
                        status: Status::IterationLimit,
                        iterations,
                        updates,
                        residual,
                    };
                }
                Err(steps) => {
                    iterations += steps;
                    return ConvexSolve {
                        velocity: nu,
                        impulses: lambda,
                        status: Status::Singular,
                        iterations,
                        updates,
                        residual,
                    };
                }
            }
            self.update(&mut lambda, &nu);
            updates += 1;
            last = residual;
            residual = self.residual(&nu, &lambda);
        }
    }

    /// λ_e ← max(0, λ_e − D_e g_e(ν)).
    fn update(&self, lambda: &mut [f64], nu: &[f64]) {
        for (e, row) in self.p.rows.iter().enumerate() {
            let g = row.dot(nu) + self.p.bias[e];
            lambda[e] = (lambda[e] - self.penalty[e] * g).max(0.0);
        }
    }

    /// ν(λ) = ν* + M⁻¹ Σ_e A_eᵀ λ_e: the velocity the impulses λ give the bodies.
    fn velocity_of(&self, lambda: &[f64]) -> Vec<f64> {
        let mut nu = self.p.free_velocity.to_vec();
        let mut push = vec![0.0; nu.len()];
        for (row, &l) in self.p.rows.iter().zip(lambda) {
            add_transposed(row, l, &mut push);
        }
        for (k, m_inv) in self.inverse.iter().enumerate() {
            let y = m_inv * Vector6::from_column_slice(&push[6 * k..6 * k + 6]);
            for i in 0..6 {
                nu[6 * k + i] += y[i];
            }
        }
        nu
    }

    /// max_e |A_e (ν(λ) − ν)| / ‖q‖∞, ν(λ) = ν* + M⁻¹ Σ_e A_eᵀ λ_e the velocity the impulses
    /// make: how far λ is from balancing ν (0 at a subproblem's minimiser, up to round-off).
    fn imbalance(&self, nu: &[f64], lambda: &[f64]) -> f64 {
        let error: Vec<f64> = self.velocity_of(lambda).iter().zip(nu).map(|(m, v)| m - v).collect();
        self.along_rows(&error)
    }

    /// max_e |A_e δ| / ‖q‖∞ for a velocity change δ.
    fn along_rows(&self, delta: &[f64]) -> f64 {
        let worst = self.p.rows.iter().map(|row| row.dot(delta).abs()).fold(0.0, f64::max);
        self.scaled(worst)
    }

    /// A velocity over ‖q‖∞ (as it is where ‖q‖∞ = 0).
    fn scaled(&self, v: f64) -> f64 {
        if self.scale > 0.0 {
            v / self.scale
        } else {
            v
        }
    }

    /// Whether max_e |A_e M⁻¹ g| / ‖q‖∞ ≤ `enough` for g = −∇L(ν; λ): whether the multipliers
    /// max(0, c) that an update at ν would set balance ν to `enough`, since
    /// M⁻¹(−∇L) = ν(max(0, c)) − ν (0 at the subproblem's minimiser). Stops at the first row
    /// over `enough`: the answer is the full maximum's (a quotient by ‖q‖∞ > 0 keeps the order,
    /// and NaN rows count as the maximum's fold counts them, not at all).
    /// `delta`: a buffer kept by the caller across Newton steps.
    fn balanced(&self, minus_gradient: &[f64], delta: &mut [f64], enough: f64) -> bool {
        for (k, m_inv) in self.inverse.iter().enumerate() {
            let y = m_inv * Vector6::from_column_slice(&minus_gradient[6 * k..6 * k + 6]);
            delta[6 * k..6 * k + 6].copy_from_slice(y.as_slice());
        }
        let mut worst: f64 = 0.0;
        for row in self.p.rows.iter() {
            let a = row.dot(delta).abs();
            if a > worst {
                worst = a;
                if self.scaled(worst) > enough {
                    return false;
                }
            }
        }
        true
    }

    /// D_e = ρ / W_ee for every row that moves something.
    fn set_penalty(&mut self, rho: f64) {
        for (d, &w) in self.penalty.iter_mut().zip(self.self_delassus) {
            if w > 0.0 {
                *d = rho / w;
            }
        }
    }

    /// max_e |min(W_ee λ_e, g_e)| / ‖q‖∞ (the module documentation's r).
    fn residual(&self, nu: &[f64], lambda: &[f64]) -> f64 {
        let mut r: f64 = 0.0;
        for (e, row) in self.p.rows.iter().enumerate() {
            let g = row.dot(nu) + self.p.bias[e];
            let m = (self.self_delassus[e] * lambda[e]).min(g).abs();
            if m.is_nan() {
                return f64::INFINITY;
            }
            r = r.max(m);
        }
        self.scaled(r)
    }

    /// c_e = λ_e − D_e g_e(ν) of every row: f_e = max(0, c_e).
    fn trial(&self, lambda: &[f64], nu: &[f64], c: &mut Vec<f64>) {
        c.clear();
        c.extend(
            (self.p.rows.iter().enumerate())
                .map(|(e, row)| lambda[e] - self.penalty[e] * (row.dot(nu) + self.p.bias[e])),
        );
    }

    /// Minimise L(·; λ) from `nu` by Newton's method with exact line search, at most `limit`
    /// steps. Ok((steps, true)) at the minimiser, or close enough that the multipliers of ν are
    /// off balance by at most `enough` (scaled, [`Solver::balanced`]); Ok((steps, false)) at the
    /// limit short of it; Err(steps) when H could not be factored.
    fn minimise(
        &self,
        hessian: &mut Hessian,
        lambda: &[f64],
        nu: &mut [f64],
        limit: usize,
        enough: f64,
    ) -> Result<(usize, bool), usize> {
        let mut steps = 0;
        // Buffers kept across the Newton steps.
        let mut c = Vec::with_capacity(self.p.rows.len());
        self.trial(lambda, nu, &mut c);
        // `hessian`: the rows in G = Σ D_e A_eᵀ A_e (H = M + G), kept by adding and removing
        // the rows that changed sides since the last step (or the last subproblem or solve).
        // −∇L, then the Newton step solved in place.
        let mut d = vec![0.0; nu.len()];
        let (mut events, mut slope, mut candidates) = (Vec::new(), Vec::new(), Vec::new());
        let mut delta = vec![0.0; nu.len()];
        // A guess of the active set from the multipliers, when they hold one; ν moves to the
        // guess's minimiser when it is L's, and the balance test below then ends the
        // subproblem, as after any step.
        if lambda.iter().any(|&l| l > 0.0) {
            let mut set = Vec::new();
            let buffers = (&mut d[..], &mut slope, &mut set);
            steps += self.guess(lambda, nu, &mut c, hessian, buffers, limit);
        }
        // Whether the last step went at least half way (a truncated step is far from the
        // minimiser, so the balance is not worth checking).
        let mut check_balance = true;
        while steps < limit {
            // −∇L = Σ A_eᵀ f_e − M (ν − ν*).
            let minus_gradient = &mut d;
            self.minus_gradient(nu, &c, |e| c[e] > 0.0, minus_gradient);
            // Close enough: the update from ν leaves its impulses balancing ν to `enough`.
            if check_balance && self.balanced(minus_gradient, &mut delta, enough) {
                return Ok((steps, true));
            }
            hessian.follow(self, &c);
            if hessian.factor(self).is_err() {
                return Err(steps);
            }
            if d.iter().all(|&g| g == 0.0) {
                return Ok((steps, true));
            }
            hessian.solve(self, &mut d);
            steps += 1;
            let t = self.line_search(nu, &d, &c, (&mut events, &mut slope, &mut candidates));
            if !t.is_finite() {
                return Err(steps);
            }
            nu.iter_mut().zip(&d).for_each(|(v, dv)| *v += t * dv);
            // c_e(ν + t d) = c_e(ν) − t D_e A_e d.
            for ((ce, s), de) in c.iter_mut().zip(&slope).zip(&self.penalty) {
                *ce -= t * de * s;
            }
            check_balance = t >= 0.5;
            // No row changed sides along the step, so the line search stopped in its first
            // segment, where L is the quadratic H was built on: at its minimiser (t = 1 up to
            // round-off), the subproblem's.
            let same = c.iter().zip(&hessian.rows).all(|(&x, &a)| (x > 0.0) == a);
            // A step below round-off of ν: rows sitting at c_e ≈ 0 may flip sides forever.
            let size = |x: &[f64]| x.iter().fold(0.0f64, |m, v| m.max(v.abs()));
            if same || t * size(&d) <= 1e-15 * size(nu) {
                return Ok((steps, true));
            }
        }
        Ok((steps, false))
    }

    /// The first steps of a subproblem (module documentation, "The first steps"): a guess of
    /// the rows active at its minimiser, A = {λ_e > 0} first, and the minimiser ν̂ of the
    /// quadratic that L is where exactly the rows of A are active,
    /// Q_A(ν) = ½‖ν − ν*‖²_M + Σ_{e ∈ A} c_e(ν)² / (2 D_e), one Newton step of Q_A from ν (H built
    /// on A). If at ν̂ the rows with c_e > 0 are A, L equals Q_A around ν̂ (L is C¹ and
    /// piecewise quadratic) and ν̂ is L's minimiser: ν and c move there. Otherwise A becomes the
    /// rows active at ν̂ and the step is made again from ν (a primal–dual active-set iteration,
    /// M. Hintermüller, K. Ito, K. Kunisch, SIAM J. Optim. 13 (2002) 865–888, §2), at most
    /// [`GUESSES`] times and while no more rows disagree than the last time (past
    /// [`FEW_DISAGREE`], a quarter fewer). Returns the factorizations made; when no ν̂ was
    /// taken (or H could not be factored) ν and c are as they were, and the Newton steps go on
    /// from H's rows.
    /// `(d, slope, set)`: buffers kept by the caller.
    fn guess(
        &self,
        lambda: &[f64],
        nu: &mut [f64],
        c: &mut [f64],
        hessian: &mut Hessian,
        (d, slope, set): (&mut [f64], &mut Vec<f64>, &mut Vec<bool>),
        limit: usize,
    ) -> usize {
        set.clear();
        set.extend(lambda.iter().map(|&l| l > 0.0));
        let mut disagree_before = usize::MAX;
        let mut tries = 0;
        while tries < GUESSES.min(limit) {
            tries += 1;
            hessian.follow_rows(self, |e| set[e]);
            if hessian.factor(self).is_err() {
                return tries;
            }
            // −∇Q_A(ν) = Σ_{e ∈ A} A_eᵀ c_e − M (ν − ν*).
            self.minus_gradient(nu, c, |e| set[e], d);
            hessian.solve(self, d);
            // c_e(ν̂) = c_e(ν) − D_e A_e d, as after a full Newton step.
            slope.clear();
            slope.extend(self.p.rows.iter().map(|row| row.dot(d)));
            let moved = |e: usize| c[e] - self.penalty[e] * slope[e];
            let disagree = (0..c.len()).filter(|&e| (moved(e) > 0.0) != set[e]).count();
            if disagree == 0 {
                for (e, ce) in c.iter_mut().enumerate() {
                    *ce -= self.penalty[e] * slope[e];
                }
                nu.iter_mut().zip(d.iter()).for_each(|(v, dv)| *v += dv);
                return tries;
            }
            // Go on while the disagreement does not grow, and, past a few rows, shrinks by a
            // quarter: a guess far from the answer costs a factorization a try for little.
            if disagree > disagree_before || (disagree > FEW_DISAGREE && 4 * disagree > 3 * disagree_before) {
                break;
            }
            disagree_before = disagree;
            for (e, active) in set.iter_mut().enumerate() {
                *active = moved(e) > 0.0;
            }
        }
        tries
    }

    /// −∇ = Σ_{active e} A_eᵀ c_e − M (ν − ν*) into `out`: −∇L for active = {c_e > 0}.
    fn minus_gradient(&self, nu: &[f64], c: &[f64], active: impl Fn(usize) -> bool, out: &mut [f64]) {
        for (k, m) in self.p.mass.iter().enumerate() {
            let dv = Vector6::from_fn(|i, _| nu[6 * k + i] - self.p.free_velocity[6 * k + i]);
            let mdv = m * dv;
            for i in 0..6 {
                out[6 * k + i] = -mdv[i];
            }
        }
        for (e, row) in self.p.rows.iter().enumerate() {
            if active(e) {
                add_transposed(row, c[e], out);
            }
        }
    }

    /// The exact minimiser t ≥ 0 of L(ν + t d): the root of
    /// φ'(t) = dᵀM(ν − ν*) + t dᵀMd − Σ_e s_e max(0, c_e − t D_e s_e), s_e = A_e d,
    /// continuous, increasing and linear between the breakpoints t_e = c_e / (D_e s_e).
    /// `events`, `slope`, `candidates`: buffers for the breakpoints, s_e, and the rows that
    /// may have a breakpoint, kept by the caller across steps.
    fn line_search(
        &self,
        nu: &[f64],
        d: &[f64],
        c: &[f64],
        (events, slope, candidates): (&mut Vec<Reverse<Breakpoint>>, &mut Vec<f64>, &mut Vec<usize>),
    ) -> f64 {
        let (mut a0, mut a1) = (0.0, 0.0);
        for (k, m) in self.p.mass.iter().enumerate() {
            let dv = Vector6::from_fn(|i, _| nu[6 * k + i] - self.p.free_velocity[6 * k + i]);
            let dk = Vector6::from_column_slice(&d[6 * k..6 * k + 6]);
            let md = m * dk;
            a0 += md.dot(&dv);
            a1 += md.dot(&dk);
        }
        // φ'(1), to know whether breakpoints beyond t = 1 can matter.
        let mut at_one = a0 + a1;
        // Breakpoints (t_e, ±(row's terms)): the row is active on t < t_e when s_e > 0, on
        // t > t_e when s_e < 0.
        events.clear();
        candidates.clear();
        slope.clear();
        slope.resize(c.len(), 0.0);
        let rows = self.p.rows.iter().zip(&self.penalty).zip(c).zip(slope.iter_mut());
        for (e, (((row, &de), &ce), slope)) in rows.enumerate() {
            let s = row.dot(d);
            *slope = s;
            if s == 0.0 || de == 0.0 {
                // Constant in t: its term −s f_e vanishes (s = 0) or it has no penalty.
                continue;
            }
            let active_at_zero = ce > 0.0 || (ce == 0.0 && s < 0.0);
            if active_at_zero {
                a0 -= s * ce;
                a1 += de * s * s;
            }
            at_one -= s * (ce - de * s).max(0.0);
            // t_e > 0 only where c_e and s_e have one sign (D_e > 0).
            if (ce > 0.0) == (s > 0.0) && ce != 0.0 {
                candidates.push(e);
            }
        }
        // φ' is increasing: with φ'(1) ≥ 0 the root is at most 1, and only the breakpoints
        // before 1 can move it (most rows' lie far beyond on a Newton step). Such a row is
        // dropped without its division where |c_e| ≥ 2 |D_e s_e| (then t_e ≥ 2).
        let only_before_one = at_one >= 0.0;
        for &e in candidates.iter() {
            let (ce, s) = (c[e], slope[e]);
            let p = self.penalty[e] * s;
            if only_before_one && ce.abs() >= 2.0 * p.abs() {
                continue;
            }
            let t = ce / p;
            if t > 0.0 && (!only_before_one || t < 1.0) {
                events.push(Reverse(Breakpoint { t, e, s }));
            }
        }
        // In increasing t (ties by row), popped one at a time: the root usually lies before the
        // first breakpoint or a few past it, so a heap (O(E) to build) beats sorting them all.
        let mut heap = BinaryHeap::from(std::mem::take(events));
        let root = self.root_along(&mut heap, c, (a0, a1));
        *events = heap.into_vec();
        root
    }

    /// The root of φ' (line search) from its coefficients (a0, a1) on [0, first breakpoint],
    /// crossing the breakpoints of `heap` in increasing t.
    fn root_along(
        &self,
        heap: &mut BinaryHeap<Reverse<Breakpoint>>,
        c: &[f64],
        (mut a0, mut a1): (f64, f64),
    ) -> f64 {
        let mut start = 0.0;
        while let Some(Reverse(Breakpoint { t, e, s })) = heap.pop() {
            // On [start, t]: φ'(τ) = a0 + a1 τ.
            if a1 > 0.0 && a0 + a1 * t >= 0.0 {
                return (-a0 / a1).max(start);
            }
            let de = self.penalty[e];
            // Crossing t_e flips row e.
            if s > 0.0 {
                a0 += s * c[e];
                a1 -= de * s * s;
            } else {
                a0 -= s * c[e];
                a1 += de * s * s;
            }
            start = t;
        }
        if a1 > 0.0 {
            (-a0 / a1).max(start)
        } else {
            f64::NAN
        }
    }
}

/// H = M + G, G = Σ_{e in rows} D_e A_eᵀ A_e, over a subproblem's Newton steps: G is kept in
/// the pattern's blocks and follows the active set by adding the rows that became active and
/// removing those that left (on a settling pile a few of a thousand a step), instead of being
/// summed afresh at each step.
struct Hessian {
    /// Whether each row is in G.
    rows: Vec<bool>,
    g_diagonal: Vec<Matrix6<f64>>,
    g_below: Vec<Matrix6<f64>>,
    /// H, then its factor (`BlockPattern::factor`'s buffers).
    diagonal: Vec<Matrix6<f64>>,
    below: Vec<Matrix6<f64>>,
    /// The bodies whose blocks of G changed since the last factor (all before the first):
    /// their columns of the factor, and their ancestors', are computed again
    /// (`BlockPattern::refactor`), the rest kept.
    stale: Vec<bool>,
}

impl Hessian {
    fn new(solver: &Solver) -> Self {
        let (n, blocks) = (solver.p.mass.len(), solver.pattern.blocks());
        Hessian {
            rows: vec![false; solver.p.rows.len()],
            g_diagonal: vec![Matrix6::zeros(); n],
            g_below: vec![Matrix6::zeros(); blocks],
            diagonal: vec![Matrix6::zeros(); n],
            below: vec![Matrix6::zeros(); blocks],
            stale: vec![true; n],
        }
    }

    /// Bring G to the rows with c_e > 0.
    fn follow(&mut self, solver: &Solver, c: &[f64]) {
        self.follow_rows(solver, |e| c[e] > 0.0);
    }

    /// Bring G to the rows for which `active` holds.
    fn follow_rows(&mut self, solver: &Solver, active: impl Fn(usize) -> bool) {
        for e in 0..self.rows.len() {
            let active = active(e);
            if active != self.rows[e] {
                self.rows[e] = active;
                let sign = if active { 1.0 } else { -1.0 };
                self.add_row(solver, e, sign * solver.penalty[e]);
            }
        }
    }

    /// G += w A_eᵀ A_e.
    fn add_row(&mut self, solver: &Solver, e: usize, w: f64) {
        let block = |(o, b): &(usize, [f64; 6])| (o / 6, Vector6::from_column_slice(b));
        for (o, _) in solver.p.rows[e].blocks.iter() {
            self.stale[o / 6] = true;
        }
        match solver.p.rows[e].blocks.as_slice() {
            [one] => {
                let (k, v) = block(one);
                self.g_diagonal[k] += w * v * v.transpose();
            }
            [first, second] => {
                let ((p, vp), (q, vq)) = (block(first), block(second));
                self.g_diagonal[p] += w * vp * vp.transpose();
                self.g_diagonal[q] += w * vq * vq.transpose();
                let slot = solver.slots[e].expect("a two-node row has its block in the pattern");
                if slot.transposed {
                    self.g_below[slot.slot] += w * vq * vp.transpose();
                } else {
                    self.g_below[slot.slot] += w * vp * vq.transpose();
                }
            }
            _ => {}
        }
    }

    /// Factor H = M + G: the stale bodies' columns and their ancestors' from H's blocks, the
    /// others kept from the last factor (the same factor to the bit).
    fn factor(&mut self, solver: &Solver) -> Result<(), BlockCholeskyError> {
        let pattern = &solver.pattern;
        pattern.mark_ancestors(&mut self.stale);
        for k in (0..self.stale.len()).filter(|&k| self.stale[k]) {
            self.diagonal[k] = solver.p.mass[k] + self.g_diagonal[k];
            let column = pattern.column(k);
            self.below[column.clone()].copy_from_slice(&self.g_below[column]);
        }
        let result = pattern.refactor(&mut self.diagonal, &mut self.below, &self.stale);
        // A failed factor leaves its buffers part-way: everything is stale then.
        let stale = result.is_err();
        self.stale.iter_mut().for_each(|s| *s = stale);
        result
    }

    /// b ← H⁻¹ b.
    fn solve(&self, solver: &Solver, b: &mut [f64]) {
        solver.pattern.solve(&self.diagonal, &self.below, b);
    }
}

/// A row's breakpoint t_e on the line search, ordered by (t, e).
#[derive(Clone, Copy, Debug)]
struct Breakpoint {
    t: f64,
    e: usize,
    s: f64,
}

impl PartialEq for Breakpoint {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Breakpoint {}

impl PartialOrd for Breakpoint {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Breakpoint {
    fn cmp(&self, other: &Self) -> Ordering {
        self.t.total_cmp(&other.t).then(self.e.cmp(&other.e))
    }
}

/// x += λ A_eᵀ (on the row's nodes).
fn add_transposed(row: &JacobianRow, lambda: f64, x: &mut [f64]) {
    for (o, b) in row.blocks.iter() {
        for i in 0..6 {
            x[o + i] += lambda * b[i];
        }
    }
}
