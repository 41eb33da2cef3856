//! Projected Gauss–Seidel with successive over-relaxation (PGS / projected SOR).
//!
//! One sweep visits the rows in order i = 0, …, n−1 and, with w = M z + q taken at the current
//! (partly updated) iterate,
//!
//! ```text
//!   z_i ← z_i − ω w_i / M_ii                 free rows (plain SOR on the equality w_i = 0),
//!   z_i ← max(0, z_i − ω w_i / M_ii)         complementarity rows (projection onto z_i ≥ 0).
//! ```
//!
//! Convergence (Cottle, Pang & Stone, *The Linear Complementarity Problem*, 1992, §5.2, projected
//! SOR; also Murty, *Linear Complementarity, Linear and Nonlinear Programming*, 1988, ch. 9):
//! for a symmetric positive definite M and ω ∈ (0, 2) the iterates converge to the unique
//! solution from any start, because each row update minimises (ω = 1) or decreases the strictly
//! convex quadratic f(z) = ½ zᵀMz + qᵀz along coordinate i over its feasible set (the whole line
//! for a free row, z_i ≥ 0 otherwise). For other matrices with a positive diagonal the method
//! may or may not converge; it is then only a heuristic and its answer is checked like any other
//! (it is reported `Solved` only when the residual meets the tolerance). A non-positive diagonal
//! entry makes the row update undefined, so such problems are refused as
//! [`Status::NotApplicable`].
//!
//! Cost: w = M z + q is kept current by a column update w += δ M_{:,i} whenever z_i changes by
//! δ, so a sweep costs O(n²) like a plain Gauss–Seidel sweep and reads M column by column (its
//! storage order). Because w is current, the scaled residual of [`residual`] is evaluated after
//! every sweep in O(n) without allocating. Round-off drift in the updated w is removed by
//! recomputing w = M z + q in place every [`REFRESH_SWEEPS`] sweeps; when the cheap check passes,
//! convergence is confirmed with [`residual`] itself, so `Solved` always rests on the residual
//! that is reported.
use nalgebra::{DMatrix, DVector};

use super::common::{
    failure, initial_iterate, natural_residual, relaxation_error, residual_scale, unsolved_at,
};
use super::{residual, Options, Problem, Solve, Solver, Stats, Status};

/// Projected Gauss–Seidel / SOR; the name in scene files is `pgs`.
///
/// Reads `options.relaxation` (ω, must lie in (0, 2)), `options.max_iterations` (sweeps) and
/// `options.tolerance`. `stats.iterations` counts sweeps. Ends `Solved` (residual ≤ tolerance),
/// `IterationLimit` (sweep limit), `Inaccurate` (the iterate overflowed: the method diverges on
/// this problem), `NotApplicable` (a diagonal entry is not positive; the start is returned) or
/// `BadProblem` (malformed problem, ω outside (0, 2)).
#[derive(Clone, Copy, Debug, Default)]
pub struct Pgs;

/// The incrementally updated w is recomputed from scratch this often (in sweeps).
pub const REFRESH_SWEEPS: usize = 32;

/// A diagonal entry at most this fraction of its row's largest magnitude counts as zero.
pub const MIN_RELATIVE_DIAGONAL: f64 = 1e-12;

impl Solver for Pgs {
    fn name(&self) -> &'static str {
        "pgs"
    }

    fn solve(
        &self,
        problem: &Problem,
        warm_start: Option<&DVector<f64>>,
        options: &Options,
    ) -> Solve {
        let n = problem.len();
        if let Err(why) = problem.check() {
            return failure(n, Status::BadProblem(why));
        }
        let omega = options.relaxation;
        if let Some(why) = relaxation_error("PGS", omega) {
            return failure(n, Status::BadProblem(why));
        }
        let mut z = initial_iterate(problem, warm_start);
        if let Some(why) = non_positive_diagonal(&problem.m) {
            // Hand back the start and its residual, so a caller can see what it was.
            return unsolved_at(problem, z, Status::NotApplicable(why));
        }

        let mut w = DVector::zeros(n);
        refresh_w(problem, &z, &mut w);
        let scale = residual_scale(problem);

        let mut sweeps = 0;
        let status = loop {
            let r = natural_residual(problem, &z, &w) / scale;
            if !r.is_finite() {
                break Status::Inaccurate;
            }
            if r <= options.tolerance {
                // Confirm with the reported residual itself (fresh M z + q, no drift); this
                // allocates, but only when the cheap check already says converged.
                if residual(problem, &z) <= options.tolerance {
                    break Status::Solved;
                }
                refresh_w(problem, &z, &mut w);
            }
            if sweeps == options.max_iterations {
                break Status::IterationLimit;
            }
            sweep(problem, omega, &mut z, &mut w);
            sweeps += 1;
            if sweeps % REFRESH_SWEEPS == 0 {
                refresh_w(problem, &z, &mut w);
            }
        };

        let res = if z.iter().all(|v| v.is_finite()) {
            residual(problem, &z)
        } else {
            f64::INFINITY
        };
        Solve {
            z,
            status,
            stats: Stats {
                iterations: sweeps,
                residual: res,
            },
        }
    }
}

/// The first row whose diagonal is not safely positive, described for `NotApplicable`.
fn non_positive_diagonal(m: &DMatrix<f64>) -> Option<String> {
    (0..m.nrows()).find_map(|i| {
        let diagonal = m[(i, i)];
        let row_max = m.row(i).amax();
        (diagonal <= MIN_RELATIVE_DIAGONAL * row_max).then(|| {
            format!(
                "row {i} has diagonal {diagonal:e}; PGS needs a positive diagonal — \
                 use lemke or fischer-burmeister"
            )
        })
    })
}

/// w ← M z + q, in place.
fn refresh_w(problem: &Problem, z: &DVector<f64>, w: &mut DVector<f64>) {
    w.copy_from(&problem.q);
    w.gemv(1.0, &problem.m, z, 1.0);
}

/// One projected SOR sweep over rows 0..n, keeping w = M z + q current.
fn sweep(problem: &Problem, omega: f64, z: &mut DVector<f64>, w: &mut DVector<f64>) {
    let m = &problem.m;
    for i in 0..problem.len() {
        let trial = z[i] - omega * w[i] / m[(i, i)];
        let updated = if i < problem.free {
            trial
        } else {
            trial.max(0.0)
        };
        let delta = updated - z[i];
        if delta != 0.0 {
            z[i] = updated;
            // w += δ M_{:,i}
            w.axpy(delta, &m.column(i), 1.0);
        }
    }
}
