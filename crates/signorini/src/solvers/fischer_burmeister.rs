//! Semismooth Newton method on the Fischer–Burmeister reformulation.
//!
//! The Fischer–Burmeister function φ(a, b) = a + b − √(a² + b²) vanishes exactly when
//! a ≥ 0, b ≥ 0, ab = 0. With w = M z + q the mixed LCP is therefore the square system
//!
//! ```text
//!   Φ_i(z) = w_i                    free rows,
//!   Φ_i(z) = φ(z_i, w_i)            complementarity rows,
//! ```
//!
//! Φ(z) = 0. Φ is strongly semismooth (φ is, and w is linear in z), which is what makes the
//! Newton method below work despite the kink of φ at the origin.
//! Following De Luca, Facchinei & Kanzow, "A semismooth equation approach to the solution of
//! nonlinear complementarity problems", Math. Programming 75 (1996) 407–439, each iteration
//!
//! 1. takes an element H = D_a + D_b M of the generalized Jacobian ∂Φ(z) (rows of M for free
//!    rows; see [`jacobian`] for the diagonal matrices D_a, D_b and the choice at the kink),
//! 2. solves H d = −Φ by LU; the step is kept when it is a sufficient descent direction of the
//!    merit function Ψ = ½‖Φ‖², otherwise (or when H is singular) the steepest descent direction
//!    d = −∇Ψ = −HᵀΦ is used,
//! 3. backtracks t = 1, β, β², … until the Armijo condition Ψ(z + t d) ≤ Ψ(z) + σ t ∇Ψᵀd holds.
//!
//! Sufficient descent. De Luca et al. accept the Newton direction when ∇Ψᵀd ≤ −ρ‖d‖^p
//! (ρ = 1e-8, p = 2.1). That test is not invariant under scaling of z: on rank-deficient PSD
//! instances whose solutions have entries ~1e3–1e4 it rejected the long Newton steps, and the
//! gradient fallback then crawled (5 of 191 random PSD instances unsolved in 500 iterations).
//! We use the scale-invariant angle condition ∇Ψᵀd ≤ −ρ‖∇Ψ‖‖d‖ with ρ = [`DESCENT_COSINE`]
//! instead, the usual angle requirement of descent methods with a backtracking line search
//! (Nocedal & Wright, *Numerical Optimization*, §3.2). For the exact Newton direction
//! ∇Ψᵀd = −‖Φ‖² < 0, so the test only fails when H is so ill-conditioned that the cosine drops
//! below ρ, or round-off spoils the solve.
//!
//! Convergence (De Luca et al. 1996, proved there for their descent test): every accumulation
//! point of the iterates is a stationary point of Ψ; if M is a P₀-matrix (in particular a P-matrix or positive semidefinite) every stationary point of
//! Ψ solves the LCP (Facchinei & Soares, SIAM J. Optim. 7 (1997) 225–247), so for a P-matrix the
//! iterates converge to the unique solution. Near a BD-regular solution (every element of the
//! B-subdifferential nonsingular, e.g. a P-matrix, or a nondegenerate solution whose active
//! principal submatrix is nonsingular) the full Newton step is eventually accepted and
//! convergence is locally quadratic. For merely positive semidefinite M with non-unique
//! solutions the Jacobian may be singular at the solution; convergence is then slower, and when
//! the LCP has no solution the iterates diverge (reported as `IterationLimit` or `Inaccurate`).
//!
//! Unlike PGS this needs no positive diagonal, so it handles friction LCPs with their zero
//! σ-rows. The stopping test is the same scaled natural-map residual as every solver's
//! ([`residual`]): (2 − √2)|min(a, b)| ≤ |φ(a, b)| ≤ (2 + √2)|min(a, b)| (Tseng, J. Optim.
//! Theory Appl. 89 (1996)), so Φ → 0 and the residual → 0 together.
use nalgebra::{DMatrix, DVector};

use super::common::{failure, fitting_warm_start};
use super::{residual, Options, Problem, Solve, Solver, Stats, Status};

/// Semismooth Newton on the Fischer–Burmeister function; the name in scene files is
/// `fischer-burmeister`.
///
/// Reads `options.max_iterations` (Newton iterations) and `options.tolerance`.
/// `stats.iterations` counts Newton iterations (accepted steps, Newton or gradient). Ends
/// `Solved` (residual ≤ tolerance), `IterationLimit`, `Inaccurate` (the line search stalled, the
/// iterate overflowed, or a stationary point of Ψ that is no solution was reached),
/// `Singular` (H singular and ∇Ψ = 0) or `BadProblem` (malformed problem).
#[derive(Clone, Copy, Debug, Default)]
pub struct FischerBurmeister;

/// Armijo sufficient-decrease constant σ of the line search.
pub const ARMIJO_SIGMA: f64 = 1e-4;
/// Backtracking factor β of the line search.
pub const BACKTRACK: f64 = 0.5;
/// The line search gives up below this step length (about 40 halvings): it has stalled.
pub const MIN_STEP: f64 = 1e-12;
/// The Newton direction d is kept when ∇Ψᵀd ≤ −ρ ‖∇Ψ‖ ‖d‖ with this ρ (the cosine of its angle
/// with the steepest descent direction is at least ρ).
pub const DESCENT_COSINE: f64 = 1e-10;

impl Solver for FischerBurmeister {
    fn name(&self) -> &'static str {
        "fischer-burmeister"
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

        let start = match fitting_warm_start(problem, warm_start) {
            Some(start) => start.clone(),
            None => DVector::zeros(n),
        };
        let mut x = Iterate::at(problem, start);
        let mut iterations = 0;

        let status = loop {
            if !x.merit.is_finite() {
                break Status::Inaccurate;
            }
            if residual(problem, &x.z) <= options.tolerance {
                break Status::Solved;
            }
            if iterations == options.max_iterations {
                break Status::IterationLimit;
            }

            let h = jacobian(problem, &x.z, &x.w);
            let gradient = h.tr_mul(&x.phi); // ∇Ψ = Hᵀ Φ
            let newton = h.lu().solve(&(-&x.phi)).filter(|d| {
                d.iter().all(|v| v.is_finite())
                    && gradient.dot(d) <= -DESCENT_COSINE * d.norm() * gradient.norm()
            });
            let newton_failed = newton.is_none();
            let direction = newton.unwrap_or_else(|| -&gradient);
            let slope = gradient.dot(&direction);
            if slope.is_nan() || slope >= 0.0 {
                // ∇Ψ = 0 at a non-solution: a stationary point no descent method can leave.
                break if newton_failed {
                    Status::Singular
                } else {
                    Status::Inaccurate
                };
            }

            match line_search(problem, &x, &direction, slope) {
                Some(next) => {
                    x = next;
                    iterations += 1;
                }
                None => break Status::Inaccurate,
            }
        };

        let z = x.z;
        let res = if z.iter().all(|v| v.is_finite()) {
            residual(problem, &z)
        } else {
            f64::INFINITY
        };
        Solve {
            z,
            status,
            stats: Stats {
                iterations,
                residual: res,
            },
        }
    }
}

/// A point z with w = M z + q, Φ(z) and the merit Ψ(z) = ½‖Φ(z)‖².
struct Iterate {
    z: DVector<f64>,
    w: DVector<f64>,
    phi: DVector<f64>,
    merit: f64,
}

impl Iterate {
    fn at(problem: &Problem, z: DVector<f64>) -> Self {
        let w = &problem.m * &z + &problem.q;
        let phi = fb_map(problem, &z, &w);
        let merit = 0.5 * phi.norm_squared();
        Iterate { z, w, phi, merit }
    }
}

/// φ(a, b) = a + b − √(a² + b²), evaluated without cancellation.
///
/// When a + b > 0 the two terms nearly cancel for large a, b with one of them small; the
/// identity (a + b)² − (a² + b²) = 2ab gives the stable form 2ab / (a + b + √(a² + b²)).
pub fn fischer_burmeister(a: f64, b: f64) -> f64 {
    let r = a.hypot(b);
    let s = a + b;
    if s > 0.0 {
        2.0 * a * b / (s + r)
    } else {
        s - r
    }
}

/// Φ(z) given w = M z + q.
fn fb_map(problem: &Problem, z: &DVector<f64>, w: &DVector<f64>) -> DVector<f64> {
    DVector::from_fn(problem.len(), |i, _| {
        if i < problem.free {
            w[i]
        } else {
            fischer_burmeister(z[i], w[i])
        }
    })
}

/// An element H = D_a + D_b M of the generalized Jacobian ∂Φ(z), given w = M z + q.
///
/// Free rows: H_i = M_i (Φ_i = w_i is linear). Complementarity rows away from the kink, with
/// r = ‖(z_i, w_i)‖: (D_a)_ii = 1 − z_i / r, (D_b)_ii = 1 − w_i / r (the gradient of φ). At the
/// kink z_i = w_i = 0 we follow De Luca, Facchinei & Kanzow (1996): take the vector y with
/// y_j = 1 on the kink rows and 0 elsewhere and use (D_a)_ii = 1 − y_i / s_i,
/// (D_b)_ii = 1 − (M y)_i / s_i with s_i = ‖(y_i, (M y)_i)‖ ≥ 1. This is the limit of the
/// gradient of Φ along z + t y as t ↓ 0, so H lies in the B-subdifferential.
pub fn jacobian(problem: &Problem, z: &DVector<f64>, w: &DVector<f64>) -> DMatrix<f64> {
    let n = problem.len();
    let m = &problem.m;
    let is_kink = |i: usize| i >= problem.free && z[i] == 0.0 && w[i] == 0.0;
    let kink_direction = DVector::from_fn(n, |i, _| if is_kink(i) { 1.0 } else { 0.0 });
    let m_kink = if kink_direction.iter().any(|&v| v != 0.0) {
        m * &kink_direction
    } else {
        DVector::zeros(n)
    };

    let mut h = m.clone();
    for i in problem.free..n {
        let (a, b) = if is_kink(i) {
            (kink_direction[i], m_kink[i])
        } else {
            (z[i], w[i])
        };
        let r = a.hypot(b);
        let (da, db) = (1.0 - a / r, 1.0 - b / r);
        // Row i of D_b M, then + D_a on the diagonal.
        h.row_mut(i).scale_mut(db);
        h[(i, i)] += da;
    }
    h
}

/// Armijo backtracking along `direction` from x: the first t = 1, β, β², … ≥ [`MIN_STEP`] with
/// Ψ(z + t d) ≤ Ψ(z) + σ t ∇Ψᵀd (`slope` = ∇Ψᵀd < 0). `None` when it stalls.
fn line_search(
    problem: &Problem,
    x: &Iterate,
    direction: &DVector<f64>,
    slope: f64,
) -> Option<Iterate> {
    let mut step = 1.0;
    while step >= MIN_STEP {
        let trial = Iterate::at(problem, &x.z + direction * step);
        if trial.merit <= x.merit + ARMIJO_SIGMA * step * slope {
            return Some(trial);
        }
        step *= BACKTRACK;
    }
    None
}
