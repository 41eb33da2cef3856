//! `solvers::relative_residual`, the row-wise backward error the resting-contact LCP is accepted
//! on, against hand-computed cases and the property that makes it the right measure for
//! load-carrying chains: an exact answer scores at round-off however large the forces, where
//! the ‖q‖-scaled `solvers::residual` grows with them.
use nalgebra::{DMatrix, DVector};
use signorini::solvers::{relative_residual, residual, Problem};

/// The LCP of a vertical chain of n unit masses on the ground under unit gravity, at the
/// acceleration level: contact i (0 = ground) pushes box i up and box i−1 down, so
/// W = G M⁻¹ Gᵀ is tridiagonal (2 on the diagonal, −1 beside it; 1 at the ground contact) and
/// q = (−1, 0, …, 0): only the ground contact sees gravity, the others join bodies falling
/// together. Its solution carries the weight above each contact: z_i = n − i.
fn chain(n: usize) -> (Problem, DVector<f64>) {
    let m = DMatrix::from_fn(n, n, |i, j| match (i, j) {
        (0, 0) => 1.0,
        _ if i == j => 2.0,
        _ if i.abs_diff(j) == 1 => -1.0,
        _ => 0.0,
    });
    let mut q = DVector::zeros(n);
    q[0] = -1.0;
    let z = DVector::from_fn(n, |i, _| (n - i) as f64);
    (Problem::lcp(m, q), z)
}

#[test]
fn an_exact_answer_scores_zero_and_round_off_stays_at_round_off_for_any_load() {
    for n in [2, 10, 100, 1000] {
        let (p, z) = chain(n);
        assert_eq!(
            relative_residual(&p, &z),
            0.0,
            "n = {n}: integers are exact"
        );
        // One ulp of the largest force on every entry: the ‖q‖-scaled residual grows with the
        // load (the rows sum terms of size n against a q of 1), the relative one does not.
        let bumped = z.map(|v| v * (1.0 + f64::EPSILON));
        let rel = relative_residual(&p, &bumped);
        // |w_i| ≤ 4 ε n and s_i ≥ 2n (row sum ≥ 2 × the force scale n): e_i ≤ 2 ε, plus the
        // rounding of forming w.
        assert!(rel <= 4.0 * f64::EPSILON, "n = {n}: relative {rel:e}");
        let scaled = residual(&p, &bumped);
        if n >= 100 {
            assert!(
                scaled >= 10.0 * rel,
                "n = {n}: scaled {scaled:e}, relative {rel:e}"
            );
        }
    }
}

#[test]
fn hand_computed_rows() {
    // M = I, q = (−1, 2): the solution is z = (1, 0), w = (0, 2).
    let p = Problem::lcp(DMatrix::identity(2, 2), DVector::from_vec(vec![-1.0, 2.0]));
    // z = 0 leaves row 0 violated by its whole size: w_0 = −1, s_0 = |q_0| = 1, e = 1.
    assert_eq!(relative_residual(&p, &DVector::zeros(2)), 1.0);
    // z = (0.5, 0): w_0 = −0.5, s_0 = 1 + 1 × 0.5 → e_0 = min(0.5/0.5, −0.5/1.5) → 1/3.
    let e = relative_residual(&p, &DVector::from_vec(vec![0.5, 0.0]));
    assert!((e - 1.0 / 3.0).abs() <= 1e-15, "{e}");
    // z = (1, 0.1): row 1 has z_1/‖z‖ = 0.1 and w_1/s_1 = 2.1/(2 + 1) = 0.7: e = 0.1.
    let e = relative_residual(&p, &DVector::from_vec(vec![1.0, 0.1]));
    assert!((e - 0.1).abs() <= 1e-15, "{e}");
    // A free row is judged on |w_i| / s_i alone: M = [2], q = [−1] free, z = 0.25:
    // w = −0.5, s = 1 + 2 × 0.25 = 1.5.
    let free = Problem {
        m: DMatrix::from_element(1, 1, 2.0),
        q: DVector::from_element(1, -1.0),
        free: 1,
    };
    let e = relative_residual(&free, &DVector::from_element(1, 0.25));
    assert!((e - 1.0 / 3.0).abs() <= 1e-15, "{e}");
    // Not finite: infinite.
    let nan = DVector::from_vec(vec![f64::NAN, 0.0]);
    assert_eq!(relative_residual(&p, &nan), f64::INFINITY);
}

/// Scaling a row of [M q] (a change of its units) leaves the measure unchanged; scaling z with
/// the problem (forces in other units) too.
#[test]
fn the_measure_does_not_depend_on_units() {
    let (p, z) = chain(10);
    let z = z.map(|v| v * 0.999);
    let base = relative_residual(&p, &z);
    assert!(base > 0.0);
    let mut rows = p.clone();
    for (i, k) in [(0usize, 1e6), (3, 1e-6), (9, 7.0)] {
        rows.m.row_mut(i).scale_mut(k);
        rows.q[i] *= k;
    }
    let r = relative_residual(&rows, &z);
    assert!((r - base).abs() <= 1e-12 * base, "{r:e} vs {base:e}");
    let mut units = p.clone();
    units.m /= 1e3;
    let r = relative_residual(&units, &z.map(|v| v * 1e3));
    assert!((r - base).abs() <= 1e-12 * base, "{r:e} vs {base:e}");
}
