//! Solving the resting-contact LCP (R5), (R7) and mapping its solution back: the solvers are
//! tried in order until one's answer is finite and meets `options.lcp.tolerance` (or every one
//! fails: [`RestingError::NotSolved`]); then z = (f, β, σ) gives the normal forces f, the friction
//! forces and, through Gᵀ, the contact wrench on every body.
//!
//! ```text
//!   for solver in solvers:  z = solve(M, q); usable if solved, finite, residual ≤ tol -> stop
//!   row multipliers: f (normal rows), β (cone rows), −μ f (slip rows)
//!   wrenches += Gᵀ (row multipliers);  friction = Σ β_j d_j  or  −μ f t̂
//! ```
use super::error::{RestingError, SolveAttempt};
use super::friction::{sliding_friction, sticking_friction};
use super::lcp::RestingLcp;
use crate::contact::SolveReport;
use crate::dynamics::jacobian::add_row_forces;
use crate::dynamics::{Model, Wrench};
use crate::solvers::{Options, Solve, Solver, Status};
use glam::DVec3;
use std::time::Instant;

/// The first usable answer, with every attempt up to it and the seconds spent in the solvers.
pub(super) struct Solved {
    /// Name of the solver whose answer is used.
    pub solver: &'static str,
    pub solution: Solve,
    pub attempts: Vec<SolveAttempt>,
    pub seconds: f64,
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
            failed: false,
            islands: 1,
        }
    }
}

/// Try `solvers` in order on `lcp` until one's answer is usable; [`RestingError::NotSolved`]
/// (with every attempt) when none is.
pub(super) fn solve_in_order(
    lcp: &RestingLcp,
    solvers: &[Box<dyn Solver>],
    options: &Options,
) -> Result<Solved, RestingError> {
    let n = lcp.layout.unknowns();
    let t0 = Instant::now();
    let mut attempts = Vec::new();
    let mut found = None;
    for solver in solvers {
        let s = solver.solve(&lcp.problem, None, options);
        let usable = s.status.is_solved()
            && s.z.len() == n
            && s.z.iter().all(|v| v.is_finite())
            && s.stats.residual <= options.tolerance;
        attempts.push(SolveAttempt {
            solver: solver.name(),
            status: if usable || !s.status.is_solved() {
                s.status.clone()
            } else {
                Status::Inaccurate
            },
            iterations: s.stats.iterations,
            residual: s.stats.residual,
        });
        if usable {
            found = Some((solver.name(), s));
            break;
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
