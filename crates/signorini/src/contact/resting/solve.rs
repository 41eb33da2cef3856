//! Solving the resting-contact LCP (R5), (R7) and mapping its solution back: the solvers are
//! tried in order until one's answer is finite and its row-wise relative residual
//! (`solvers::relative_residual`) meets `options.lcp.tolerance` (or every one
//! fails: [`RestingError::NotSolved`]); then z = (f, β, σ) gives the normal forces f, the friction
//! forces and, through Gᵀ, the contact wrench on every body.
//!
//! ```text
//!   if the warm start's active set solves it to tol -> stop
//!   for solver in solvers:  z = solve(M, q); usable if finite, relative residual ≤ tol -> stop
//!   none usable: the best answer if its residual ≤ degraded_tolerance (reported failed)
//!   row multipliers: f (normal rows), β (cone rows), −μ f (slip rows)
//!   wrenches += Gᵀ (row multipliers);  friction = Σ β_j d_j  or  −μ f t̂
//! ```
use super::error::{RestingError, SolveAttempt};
use super::friction::{sliding_friction, sticking_friction};
use super::lcp::RestingLcp;
use crate::contact::SolveReport;
use crate::dynamics::jacobian::add_row_forces;
use crate::dynamics::{Model, Wrench};
use crate::solvers::lemke::solve_on_support;
use crate::solvers::lemke_sparse;
use crate::solvers::sparse::{principal_pivoting, SparseProblem};
use crate::solvers::{relative_residual, Options, Solve, Solver, Stats, Status};
use glam::DVec3;
use nalgebra::DVector;
use std::time::Instant;

/// The first usable answer, with every attempt up to it and the seconds spent in the solvers.
pub(super) struct Solved {
    /// Name of the solver whose answer is used.
    pub solver: &'static str,
    pub solution: Solve,
    pub attempts: Vec<SolveAttempt>,
    pub seconds: f64,
    /// No answer met the tolerance; this one met the degraded tolerance.
    pub failed: bool,
}

impl Solved {
    /// The report of this solve.
    pub(super) fn report(&self, rows: usize) -> SolveReport {
        SolveReport {
            rows,
            solver: self.solver,
            iterations: self.solution.stats.iterations,
            residual: self.solution.stats.residual,
            attempts: self.attempts.len(),
            seconds: self.seconds,
            failed: self.failed,
            islands: 1,
        }
    }
}

/// What a solve starts from: the last answer of the same LCP, or the rows that were active for
/// the contacts it shares with the last answers.
#[derive(Clone, Copy, Debug)]
pub(super) enum Proposal<'a> {
    Answer(&'a DVector<f64>),
    Support(&'a [bool]),
}

/// Rounds of principal pivoting ([`principal_pivoting`]) that repair a support
/// proposed from the contacts an LCP shares with the last one before the solvers run.
pub const SUPPORT_REPAIR_ROUNDS: usize = 8;

/// The principal system on the warm start's active set, α = {z̃ > 0}: z_α solving
/// M_αα z_α = −q_α, 0 elsewhere (`lemke::solve_on_support`); `None` when M_αα is singular or z
/// misses the tolerance (then the solvers run). A proposed support is first repaired by
/// principal pivoting (at most [`SUPPORT_REPAIR_ROUNDS`] rounds); its answer is accepted on the
/// same row-wise relative residual.
fn warm_solve(lcp: &RestingLcp, warm: Proposal, options: &Options) -> Option<Solved> {
    let problem = &lcp.problem;
    let (z, solver, iterations) = match warm {
        Proposal::Answer(warm) => {
            if warm.len() != problem.len() {
                return None;
            }
            let support: Vec<bool> = warm.iter().map(|&v| v > 0.0).collect();
            (solve_on_support(problem, &support)?, WARM_START, 0)
        }
        Proposal::Support(support) => {
            let rounds = SUPPORT_REPAIR_ROUNDS;
            let tolerance = options.tolerance;
            match principal_pivoting(&problem.m, &problem.q, support, rounds, tolerance, false) {
                Ok(repaired) => (repaired.z, WARM_START, 0),
                // Out of rounds, or a singular principal system: Lemke's method on the sparse
                // matrix (an island's rows couple only through shared bodies) from the basis
                // the support proposes, then from the start.
                Err(_) => {
                    let sparse = SparseProblem::from_dense(problem);
                    let (s, _) = lemke_sparse::solve(&sparse, Some(support), options);
                    (s.z, WARM_LEMKE, s.stats.iterations)
                }
            }
        }
    };
    let residual = relative_residual(problem, &z);
    let usable = z.len() == problem.len() && z.iter().all(|v| v.is_finite());
    (usable && residual <= options.tolerance).then(|| Solved {
        solver,
        solution: Solve {
            z,
            status: Status::Solved,
            stats: Stats {
                iterations,
                residual,
            },
        },
        attempts: Vec::new(),
        seconds: 0.0,
        failed: false,
    })
}

/// The solver name of an answer found by Lemke's method from a proposed support
/// (`solvers::lemke_sparse`).
pub const WARM_LEMKE: &str = "warm lemke";

/// The solver name of an answer found on the warm start's active set.
pub const WARM_START: &str = "warm start";

/// Try `solvers` in order on `lcp` until one's answer is usable; [`RestingError::NotSolved`]
/// (with every attempt) when none is.
pub(super) fn solve_in_order(
    lcp: &RestingLcp,
    solvers: &[Box<dyn Solver>],
    options: &Options,
    degraded_tolerance: f64,
    warm: Option<Proposal>,
) -> Result<Solved, RestingError> {
    let n = lcp.layout.unknowns();
    let t0 = Instant::now();
    let mut attempts = Vec::new();
    if let Some(solved) = warm.and_then(|z| warm_solve(lcp, z, options)) {
        return Ok(Solved {
            seconds: t0.elapsed().as_secs_f64(),
            ..solved
        });
    }
    let mut found = None;
    // The finite answer with the smallest residual, for the degraded tolerance.
    let mut best: Option<(&'static str, Solve)> = None;
    for solver in solvers {
        // A later solver starts from the best answer so far (a Newton method near a solution
        // converges or stalls in a few steps; from zero it may spend its whole iteration limit
        // on a degenerate resting problem the first solver left just short of the tolerance).
        let start = best.as_ref().map(|(_, b)| b.z.clone());
        let mut s = solver.solve(&lcp.problem, start.as_ref(), options);
        // Accepted on the row-wise relative residual (`solvers::relative_residual`): the stack's
        // load-carrying rows cancel large terms, which the ‖q‖-scaled residual charges.
        if s.z.len() == n {
            s.stats.residual = relative_residual(&lcp.problem, &s.z);
        }
        // The residual is the contract, whatever the method's own status says: Lemke reports
        // `Inaccurate` (or a ray whose polished point it could not certify) against its
        // ‖q‖-scaled tolerance, and an iterative method may meet this tolerance at its limit.
        let usable = s.z.len() == n
            && s.z.iter().all(|v| v.is_finite())
            && s.stats.residual <= options.tolerance;
        attempts.push(SolveAttempt {
            solver: solver.name(),
            status: if usable {
                Status::Solved
            } else if s.status.is_solved() {
                Status::Inaccurate
            } else {
                s.status.clone()
            },
            iterations: s.stats.iterations,
            residual: s.stats.residual,
        });
        if usable {
            found = Some((solver.name(), s));
            break;
        }
        let finite = s.z.len() == n && s.z.iter().all(|v| v.is_finite());
        if finite
            && best
                .as_ref()
                .map_or(true, |b| s.stats.residual < b.1.stats.residual)
        {
            best = Some((solver.name(), s));
        }
    }
    let mut failed = false;
    if found.is_none() {
        if let Some(b) = best.filter(|b| b.1.stats.residual <= degraded_tolerance) {
            found = Some(b);
            failed = true;
        }
    }
    let seconds = t0.elapsed().as_secs_f64();
    let Some((name, s)) = found else {
        return Err(RestingError::NotSolved {
            rows: n,
            contacts: lcp.layout.nc,
            sliding: lcp.layout.nl,
            attempts,
        });
    };
    Ok(Solved {
        solver: name,
        solution: s,
        attempts,
        seconds,
        failed,
    })
}

/// Per-contact normal and friction forces, and per-body contact wrenches (all accumulated into).
pub(super) struct ContactForces<'a> {
    pub normal: &'a mut [f64],
    pub friction: &'a mut [DVec3],
    pub wrenches: &'a mut [Wrench],
}

/// Map the solution `z` of `lcp` back to forces on the contacts `resting` (friction coefficients
/// `mu` per input contact): row multipliers f on the normal rows, β on the cone rows, −μ f on the
/// slip rows, applied through Gᵀ to the bodies.
pub(super) fn apply_solution(
    model: &Model,
    lcp: &RestingLcp,
    solved: &Solved,
    mu: &[f64],
    resting: &[usize],
    out: ContactForces,
) {
    let z = &solved.solution.z;
    let layout = &lcp.layout;
    let (nc, nt) = (layout.nc, layout.nt);
    let mut row_forces = Vec::with_capacity(lcp.rows.len());
    row_forces.extend((0..nc + nt).map(|r| z[r]));
    sliding_friction(z, layout, mu, resting, &mut row_forces, out.friction);
    add_row_forces(model, &lcp.rows, &row_forces, 1.0, out.wrenches);
    for (r, &i) in resting.iter().enumerate() {
        out.normal[i] = z[r];
    }
    sticking_friction(z, layout, &lcp.dirs, resting, out.friction);
}
