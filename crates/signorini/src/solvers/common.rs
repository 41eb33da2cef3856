//! What the solvers share: the answers of a solve that cannot start (a malformed problem, a
//! method that does not apply), the warm start taken only when it fits, and the natural-map
//! residual ‖r‖∞ of [`residual`](super::residual) evaluated from a current w = M z + q.
use super::sparse::SparseProblem;
use super::{residual, Problem, Solve, Stats, Status};
use nalgebra::DVector;

/// What the shared helpers read of a problem, dense ([`Problem`]) or sparse ([`SparseProblem`]).
pub(super) trait ProblemRows {
    /// Number of unknowns.
    fn rows(&self) -> usize;
    /// Leading free rows.
    fn free_rows(&self) -> usize;
    /// q.
    fn rhs(&self) -> &DVector<f64>;
    /// The scaled natural-map residual of [`residual`].
    fn scaled_residual(&self, z: &DVector<f64>) -> f64;
}

impl ProblemRows for Problem {
    fn rows(&self) -> usize {
        self.len()
    }
    fn free_rows(&self) -> usize {
        self.free
    }
    fn rhs(&self) -> &DVector<f64> {
        &self.q
    }
    fn scaled_residual(&self, z: &DVector<f64>) -> f64 {
        residual(self, z)
    }
}

impl ProblemRows for SparseProblem {
    fn rows(&self) -> usize {
        self.len()
    }
    fn free_rows(&self) -> usize {
        0
    }
    fn rhs(&self) -> &DVector<f64> {
        &self.q
    }
    fn scaled_residual(&self, z: &DVector<f64>) -> f64 {
        self.residual(z)
    }
}

/// A solve that ended before starting: zero z of length `n`, no iterations, infinite residual.
pub(super) fn failure(n: usize, status: Status) -> Solve {
    Solve {
        z: DVector::zeros(n),
        status,
        stats: Stats {
            iterations: 0,
            residual: f64::INFINITY,
        },
    }
}

/// A solve that hands back `z` (the start) with its residual, so a caller can see what it was.
pub(super) fn unsolved_at(problem: &impl ProblemRows, z: DVector<f64>, status: Status) -> Solve {
    let res = problem.scaled_residual(&z);
    Solve {
        z,
        status,
        stats: Stats {
            iterations: 0,
            residual: res,
        },
    }
}

/// Why the over-relaxation factor ω of `method` is refused (outside (0, 2)), if it is.
pub(super) fn relaxation_error(method: &str, omega: f64) -> Option<String> {
    if !(omega > 0.0 && omega < 2.0) {
        Some(format!("{method} relaxation ω = {omega} is outside (0, 2)"))
    } else {
        None
    }
}

/// The warm start if it fits: the problem's length and finite.
pub(super) fn fitting_warm_start<'a>(
    problem: &impl ProblemRows,
    warm_start: Option<&'a DVector<f64>>,
) -> Option<&'a DVector<f64>> {
    let n = problem.rows();
    warm_start.filter(|start| start.len() == n && start.iter().all(|v| v.is_finite()))
}

/// The warm start if it fits (right length, finite), with complementarity rows projected onto
/// z ≥ 0; zero otherwise.
pub(super) fn initial_iterate(
    problem: &impl ProblemRows,
    warm_start: Option<&DVector<f64>>,
) -> DVector<f64> {
    match fitting_warm_start(problem, warm_start) {
        Some(start) => {
            let mut z = start.clone();
            for zi in z.iter_mut().skip(problem.free_rows()) {
                *zi = zi.max(0.0);
            }
            z
        }
        None => DVector::zeros(problem.rows()),
    }
}

/// |r_i| of the natural map at row `i`: |w_i| for a free row, |min(z_i, w_i)| otherwise.
pub(super) fn natural_map_entry(problem: &impl ProblemRows, i: usize, zi: f64, wi: f64) -> f64 {
    if i < problem.free_rows() {
        wi.abs()
    } else {
        zi.min(wi).abs()
    }
}

/// ‖r‖∞ of the natural map for the given z and w = M z + q (unscaled); infinite as soon as
/// any z_i or w_i is not finite.
pub(super) fn natural_residual(problem: &impl ProblemRows, z: &DVector<f64>, w: &DVector<f64>) -> f64 {
    let mut r: f64 = 0.0;
    for i in 0..problem.rows() {
        if !(z[i].is_finite() && w[i].is_finite()) {
            return f64::INFINITY;
        }
        let ri = natural_map_entry(problem, i, z[i], w[i]);
        r = r.max(ri);
    }
    r
}

/// The divisor [`residual`] uses: ‖q‖∞, or 1 when q = 0.
pub(super) fn residual_scale(problem: &impl ProblemRows) -> f64 {
    let scale = problem.rhs().amax();
    if scale > 0.0 {
        scale
    } else {
        1.0
    }
}

/// The largest power of two at most `x` (its exponent bits alone, so exact); 1 for 0,
/// subnormal and non-finite values.
pub(super) fn power_of_two_below(x: f64) -> f64 {
    if x >= f64::MIN_POSITIVE && x.is_finite() {
        f64::from_bits(x.to_bits() & 0x7FF0_0000_0000_0000)
    } else {
        1.0
    }
}
