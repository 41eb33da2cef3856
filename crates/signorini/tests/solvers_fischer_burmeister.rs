//! Semismooth Newton on the Fischer–Burmeister function (`solvers::fischer_burmeister`):
//! closed-form LCPs, friction LCPs with a zero diagonal, unsolvable problems, warm start, mixed
//! problems, and agreement with the enumeration oracle on random P, PD and PSD instances.
use nalgebra::{DMatrix, DVector};
use signorini::solvers::fischer_burmeister::{fischer_burmeister, jacobian, FischerBurmeister};
use signorini::solvers::{residual, Options, Problem, Solver, Status};

fn problem(n: usize, m: &[f64], q: &[f64]) -> Problem {
    Problem::lcp(
        DMatrix::from_row_slice(n, n, m),
        DVector::from_column_slice(q),
    )
}

fn options() -> Options {
    Options {
        tolerance: 1e-12,
        max_iterations: 100,
        ..Options::default()
    }
}

/// ‖a − b‖∞.
fn distance(a: &DVector<f64>, b: &DVector<f64>) -> f64 {
    (a - b).amax()
}

// Tolerance of the closed-form comparisons: the solve stops at a scaled residual ≤ 1e-12; for
// these well-conditioned matrices (condition number < 10, ‖q‖∞ ≤ 6) the error in z is then
// below 1e-10.
const CLOSED_FORM_TOL: f64 = 1e-10;

#[test]
fn fischer_burmeister_function_values() {
    // φ(a, b) = 0 ⇔ a, b ≥ 0 and ab = 0; the stable form must agree with the textbook one.
    assert_eq!(fischer_burmeister(0.0, 0.0), 0.0);
    assert_eq!(fischer_burmeister(3.0, 0.0), 0.0);
    assert_eq!(fischer_burmeister(0.0, 2.0), 0.0);
    // 3 + 4 − 5 = 2, computed as 2·3·4 / (3 + 4 + 5) = 2: exact in both forms.
    assert_eq!(fischer_burmeister(3.0, 4.0), 2.0);
    assert_eq!(fischer_burmeister(-3.0, -4.0), -12.0);
    assert!(fischer_burmeister(-1.0, 0.0) < 0.0);
    // Large a with tiny b: the naive a + b − √(a² + b²) is a difference of numbers ~1e8 whose
    // ulp is 1.5e-8, so it keeps at most 5 of the digits of φ ≈ b (1 − b/2a) = 1e-3 (1 − 5e-12);
    // the stable form is accurate to a few ulps (asserted to 1e-15 relative).
    let v = fischer_burmeister(1e8, 1e-3);
    let exact = 1e-3 * (1.0 - 5e-12);
    assert!((v - exact).abs() < exact * 1e-15, "{v}");
}

#[test]
fn jacobian_at_kink_uses_the_de_luca_direction() {
    // At z = 0 with q = 0 every row is a kink; y = 1, M y = (3, 3), s = √10, so row i of H is
    // (1 − 1/√10) e_i + (1 − 3/√10) M_i. Checked entrywise to round-off (1e-15 on O(1) values).
    let p = problem(2, &[2.0, 1.0, 1.0, 2.0], &[0.0, 0.0]);
    let z = DVector::zeros(2);
    let w = DVector::zeros(2);
    let h = jacobian(&p, &z, &w);
    let s = 10f64.sqrt();
    let (da, db) = (1.0 - 1.0 / s, 1.0 - 3.0 / s);
    let expected = DMatrix::from_row_slice(2, 2, &[da + 2.0 * db, db, db, da + 2.0 * db]);
    assert!((h - expected).amax() < 1e-15);
}

#[test]
fn one_by_one_active_and_separating() {
    let s = FischerBurmeister.solve(&problem(1, &[2.0], &[-4.0]), None, &options());
    assert_eq!(s.status, Status::Solved);
    assert!((s.z[0] - 2.0).abs() < CLOSED_FORM_TOL, "{}", s.z);
    let s = FischerBurmeister.solve(&problem(1, &[2.0], &[3.0]), None, &options());
    assert_eq!(s.status, Status::Solved);
    assert!(s.z[0].abs() < CLOSED_FORM_TOL, "{}", s.z);
}

#[test]
fn two_by_two_both_active_and_one_active() {
    let m = [2.0, 1.0, 1.0, 2.0];
    let s = FischerBurmeister.solve(&problem(2, &m, &[-5.0, -6.0]), None, &options());
    assert_eq!(s.status, Status::Solved);
    let expected = DVector::from_column_slice(&[4.0 / 3.0, 7.0 / 3.0]);
    assert!(distance(&s.z, &expected) < CLOSED_FORM_TOL, "{}", s.z);
    let s = FischerBurmeister.solve(&problem(2, &m, &[-1.0, 2.0]), None, &options());
    assert_eq!(s.status, Status::Solved);
    let expected = DVector::from_column_slice(&[0.5, 0.0]);
    assert!(distance(&s.z, &expected) < CLOSED_FORM_TOL, "{}", s.z);
}

/// A contact-like Delassus system: contacts 0 and 1 are pressed (q < 0) and coupled, contact 2
/// separates. Solution z = (1, 1, 0), w = (0, 0, 5).
fn three_contacts() -> Problem {
    problem(
        3,
        &[2.0, 1.0, 0.5, 1.0, 2.0, 0.5, 0.5, 0.5, 1.0],
        &[-3.0, -3.0, 4.0],
    )
}

#[test]
fn three_contacts_two_active_one_separating() {
    let p = three_contacts();
    let s = FischerBurmeister.solve(&p, None, &options());
    assert_eq!(s.status, Status::Solved);
    let expected = DVector::from_column_slice(&[1.0, 1.0, 0.0]);
    assert!(distance(&s.z, &expected) < CLOSED_FORM_TOL, "{}", s.z);
    assert_eq!(s.stats.residual, residual(&p, &s.z));
    // Locally quadratic convergence on a nondegenerate solution: a handful of iterations.
    assert!(s.stats.iterations <= 10, "{}", s.stats.iterations);
}

#[test]
fn unsolvable_one_by_one_is_never_solved() {
    // w = −z − 1 ≥ 0 needs z ≤ −1 < 0: no solution. (Observed: Singular after one step, at
    // z = −1/2 where z = w, so D_a = D_b and H = D_a − D_b = 0 and ∇Ψ = 0: a stationary point
    // of Ψ that no descent method can leave. M = −1 is not P₀, so that is allowed.)
    let p = problem(1, &[-1.0], &[-1.0]);
    let s = FischerBurmeister.solve(&p, None, &options());
    assert!(
        matches!(
            s.status,
            Status::IterationLimit | Status::Inaccurate | Status::Singular
        ),
        "{:?}",
        s.status
    );
    // For every z, min(z, −z − 1) ≤ −1/2, so the scaled residual is at least 1/2.
    assert!(s.stats.residual >= 0.5, "{}", s.stats.residual);
}

#[test]
fn infeasible_psd_two_by_two_is_never_solved() {
    // w_0 + w_1 = −2 for every z: no feasible point; min(z_i, w_i) ≤ −1 for some i.
    let p = problem(2, &[1.0, -1.0, -1.0, 1.0], &[-1.0, -1.0]);
    let s = FischerBurmeister.solve(&p, None, &options());
    assert!(
        matches!(
            s.status,
            Status::IterationLimit | Status::Inaccurate | Status::Singular
        ),
        "{:?}",
        s.status
    );
    assert!(s.stats.residual >= 1.0, "{}", s.stats.residual);
}

/// Single-contact Stewart–Trinkle LCP with one friction direction: unknowns (λ_n, β, σ),
/// rows (normal velocity, tangential velocity + σ, μλ_n − β); row 2 has a zero diagonal.
/// With a = 2, b = 0.5, c = 2, μ = 0.5 and q = (−1, −3, 0) the contact slides:
/// β = μλ_n, λ_n = 1 / (a + bμ) = 4/9, β = 2/9, σ = 3 − bλ_n − cβ = 7/3.
fn friction_contact() -> Problem {
    let (a, b, c, mu) = (2.0, 0.5, 2.0, 0.5);
    problem(
        3,
        &[a, b, 0.0, b, c, 1.0, mu, -1.0, 0.0],
        &[-1.0, -3.0, 0.0],
    )
}

#[test]
fn friction_lcp_with_zero_diagonal_is_solved() {
    let p = friction_contact();
    let s = FischerBurmeister.solve(&p, None, &options());
    assert_eq!(s.status, Status::Solved, "{:?}", s.stats);
    let expected = DVector::from_column_slice(&[4.0 / 9.0, 2.0 / 9.0, 7.0 / 3.0]);
    // Same conditioning argument as the closed-form tests (the 3×3 is well conditioned).
    assert!(distance(&s.z, &expected) < CLOSED_FORM_TOL, "{}", s.z);
}

#[test]
fn warm_start_at_solution_returns_at_once() {
    let p = three_contacts();
    let cold = FischerBurmeister.solve(&p, None, &options());
    assert_eq!(cold.status, Status::Solved);
    assert!(cold.stats.iterations > 1, "cold start needs iterations");
    let warm = FischerBurmeister.solve(&p, Some(&cold.z), &options());
    assert_eq!(warm.status, Status::Solved);
    // The residual is checked before the first Newton step.
    assert!(warm.stats.iterations <= 1, "{}", warm.stats.iterations);
}

#[test]
fn warm_start_of_wrong_length_is_ignored() {
    let p = three_contacts();
    let start = DVector::from_column_slice(&[1.0, 1.0]);
    let s = FischerBurmeister.solve(&p, Some(&start), &options());
    assert_eq!(s.status, Status::Solved);
    assert_eq!(s.z.len(), 3);
}

/// See `solvers_pgs.rs`: two bilateral rows and three contact rows, M = J Jᵀ + 0.1 I (SPD),
/// solution built in as z* = (0.7, −1.2 | 0.4, 0, 1.1), w* = (0, 0 | 0, 0.9, 0).
fn bilateral_and_contact() -> (Problem, DVector<f64>) {
    let j = DMatrix::from_row_slice(
        5,
        6,
        &[
            1.0, 0.0, 0.3, -1.0, 0.0, 0.2, // joint x
            0.0, 1.0, -0.4, 0.0, -1.0, 0.5, // joint y
            0.0, 1.0, 0.8, 0.0, 0.0, 0.0, // contact body 1 / ground
            0.0, 0.0, 0.0, 0.2, 1.0, -0.6, // contact body 2 / ground
            0.5, 0.8, -0.2, 0.0, 0.0, 0.0, // contact body 1 / ground, second point
        ],
    );
    let m = &j * j.transpose() + DMatrix::identity(5, 5) * 0.1;
    let z_star = DVector::from_column_slice(&[0.7, -1.2, 0.4, 0.0, 1.1]);
    let w_star = DVector::from_column_slice(&[0.0, 0.0, 0.0, 0.9, 0.0]);
    let q = &w_star - &m * &z_star;
    (Problem { m, q, free: 2 }, z_star)
}

#[test]
fn mixed_lcp_with_free_rows() {
    let (p, z_star) = bilateral_and_contact();
    let s = FischerBurmeister.solve(&p, None, &options());
    assert_eq!(s.status, Status::Solved);
    // Condition number ~1e2 and ‖q‖∞ ~ 3: a 1e-12 scaled residual leaves an error < 1e-8.
    assert!(distance(&s.z, &z_star) < 1e-8, "{} vs {}", s.z, z_star);
    // Direct solve on the identified active set (free rows + contacts 0 and 2, i.e. rows
    // 0, 1, 2, 4 with z_3 = 0) reproduces the same z.
    let rows = [0usize, 1, 2, 4];
    let m_a = DMatrix::from_fn(4, 4, |i, j| p.m[(rows[i], rows[j])]);
    let q_a = DVector::from_fn(4, |i, _| -p.q[rows[i]]);
    let z_a = m_a.lu().solve(&q_a).expect("SPD principal submatrix");
    for (k, &i) in rows.iter().enumerate() {
        assert!(
            (s.z[i] - z_a[k]).abs() < 1e-8,
            "row {i}: {} vs {}",
            s.z[i],
            z_a[k]
        );
    }
    assert!(s.z[3].abs() < 1e-8);
}

#[test]
fn malformed_input_is_a_bad_problem() {
    let mut p = three_contacts();
    p.m[(0, 1)] = f64::NAN;
    let s = FischerBurmeister.solve(&p, None, &options());
    assert!(matches!(s.status, Status::BadProblem(_)), "{:?}", s.status);
    let mut p = three_contacts();
    p.q[2] = f64::INFINITY;
    let s = FischerBurmeister.solve(&p, None, &options());
    assert!(matches!(s.status, Status::BadProblem(_)), "{:?}", s.status);
}

#[test]
fn iteration_limit_after_one_newton_step() {
    // From z = 0 the first Newton step on the smooth-but-curved FB system cannot land exactly
    // on the solution of the friction LCP, so one iteration leaves a residual ≫ 1e-12.
    let p = friction_contact();
    let opts = Options {
        max_iterations: 1,
        ..options()
    };
    let s = FischerBurmeister.solve(&p, None, &opts);
    assert_eq!(s.status, Status::IterationLimit);
    assert_eq!(s.stats.iterations, 1);
    assert!(s.stats.residual > opts.tolerance, "{}", s.stats.residual);
    assert_eq!(s.stats.residual, residual(&p, &s.z));
}

#[test]
fn empty_problem_is_solved() {
    let p = Problem::lcp(DMatrix::zeros(0, 0), DVector::zeros(0));
    let s = FischerBurmeister.solve(&p, None, &options());
    assert_eq!(s.status, Status::Solved);
}

#[test]
fn name_is_fischer_burmeister() {
    assert_eq!(FischerBurmeister.name(), "fischer-burmeister");
}

// ---------------------------------------------------------------------------------------------
// Agreement with the enumeration oracle.

#[path = "common/lcp.rs"]
mod lcp;

use proptest::prelude::*;
use proptest::test_runner::{Config as ProptestConfig, RngSeed};

/// `cases` cases, no failure files, fixed seed (PROPTEST_CASES / PROPTEST_RNG_SEED override),
/// as in `common/mod.rs`.
fn proptest_config(cases: u32) -> ProptestConfig {
    let mut c = ProptestConfig {
        failure_persistence: None,
        ..ProptestConfig::default()
    };
    if std::env::var_os("PROPTEST_CASES").is_none() {
        c.cases = cases;
    }
    if std::env::var_os("PROPTEST_RNG_SEED").is_none() {
        c.rng_seed = RngSeed::Fixed(0xfb5e_1de0_0002);
    }
    c
}

/// K with ‖z − z*‖∞ ≤ K ‖min(z, Mz + q)‖∞ for every z, z* the solution of a P-matrix LCP
/// (Mathias & Pang, "Error bounds for the linear complementarity problem with a P-matrix",
/// Linear Algebra Appl. 132 (1990)): K = (1 + ‖M‖∞) / c(M) with
/// c(M) = min_{‖x‖∞ = 1} max_i x_i (Mx)_i. Two lower bounds of c(M) are used, whichever is
/// larger: λ_min(½(M + Mᵀ)) / n (as max_i x_i (Mx)_i ≥ xᵀMx / n ≥ λ_min ‖x‖₂² / n ≥ λ_min / n)
/// and the least row-dominance margin M_ii − Σ_{j≠i} |M_ij| (take i with |x_i| = 1).
fn mathias_pang_constant(m: &DMatrix<f64>) -> f64 {
    let n = m.nrows();
    let sym = (m + m.transpose()) * 0.5;
    let by_eigen = sym.symmetric_eigen().eigenvalues.min() / n as f64;
    let by_dominance = (0..n)
        .map(|i| {
            let off: f64 = (0..n).filter(|&j| j != i).map(|j| m[(i, j)].abs()).sum();
            m[(i, i)] - off
        })
        .fold(f64::INFINITY, f64::min);
    let c = by_eigen.max(by_dominance);
    assert!(c > 0.0, "no lower bound on c(M) for {m}");
    let norm_inf = m.row_iter().map(|r| r.abs().sum()).fold(0.0, f64::max);
    (1.0 + norm_inf) / c
}

/// Unscaled natural-map residual ‖min(z, Mz + q)‖∞ of a plain LCP.
fn natural_residual(p: &Problem, z: &DVector<f64>) -> f64 {
    let w = &p.m * z + &p.q;
    z.zip_map(&w, |a, b| a.min(b).abs()).max()
}

/// Asserts that `z` is within the Mathias–Pang distance of the oracle's unique solution: both
/// approximately solve the same P-matrix LCP, so ‖z − z_oracle‖∞ ≤ K (r(z) + r(z_oracle));
/// 1e-12 (1 + ‖z‖∞) absorbs round-off in evaluating the residuals themselves.
fn assert_matches_oracle(p: &Problem, z: &DVector<f64>) -> Result<(), TestCaseError> {
    let solutions = lcp::enumerate(p, 1e-9);
    prop_assert_eq!(
        solutions.len(),
        1,
        "a P-matrix LCP has exactly one solution"
    );
    let oracle = &solutions[0].z;
    let k = mathias_pang_constant(&p.m);
    let bound =
        k * (natural_residual(p, z) + natural_residual(p, oracle)) + 1e-12 * (1.0 + z.amax());
    let error = distance(z, oracle);
    prop_assert!(
        error <= bound,
        "error {:e} > bound {:e}: {} vs {}",
        error,
        bound,
        z,
        oracle
    );
    Ok(())
}

fn oracle_options(max_iterations: usize) -> Options {
    Options {
        tolerance: 1e-10,
        max_iterations,
        ..Options::default()
    }
}

proptest! {
    #![proptest_config(proptest_config(256))]

    /// Random non-symmetric P-matrix LCPs (diagonally dominant or PD + skew, n ≤ 10): every
    /// stationary point of Ψ is the solution, and the solution is BD-regular, so Newton
    /// converges fast (observed ≤ 11 iterations over 6000 instances; the limit 100 is slack).
    #[test]
    fn matches_oracle_on_random_p_matrices(p in lcp::p_matrix_lcp(1..=10)) {
        let s = FischerBurmeister.solve(&p, None, &oracle_options(100));
        prop_assert_eq!(&s.status, &Status::Solved, "{:?}", s.stats);
        assert_matches_oracle(&p, &s.z)?;
    }

    /// Random symmetric positive semidefinite, rank-deficient LCPs (n ≤ 10): a PSD matrix is
    /// P₀, so every stationary point of Ψ solves the LCP, and FB must solve every instance the
    /// oracle finds solvable (the oracle is complete for symmetric PSD matrices). Convergence
    /// can be slow here (non-unique, possibly huge solutions; observed ≤ 136 iterations over
    /// 3000 instances), hence the limit 500. Conversely it must never claim to solve an instance
    /// the oracle finds unsolvable.
    #[test]
    fn solves_psd_instances_whenever_solvable(
        p in lcp::lcp_of_kind(lcp::MatrixKind::Psd, 1..=10),
    ) {
        let s = FischerBurmeister.solve(&p, None, &oracle_options(500));
        let solvable = !lcp::enumerate(&p, 1e-9).is_empty();
        if solvable {
            prop_assert_eq!(&s.status, &Status::Solved, "{:?}", s.stats);
            prop_assert!(s.stats.residual <= 1e-10);
        } else {
            prop_assert!(!s.status.is_solved(), "solved an LCP without solution: {}", s.z);
        }
    }
}

proptest! {
    #![proptest_config(proptest_config(64))]

    /// Random SPD LCPs (A Aᵀ + 0.1 I, n ≤ 10): the unique solution, as for P-matrices.
    #[test]
    fn matches_oracle_on_random_spd(p in lcp::lcp_of_kind(lcp::MatrixKind::Spd, 1..=10)) {
        let s = FischerBurmeister.solve(&p, None, &oracle_options(100));
        prop_assert_eq!(&s.status, &Status::Solved, "{:?}", s.stats);
        assert_matches_oracle(&p, &s.z)?;
    }

    /// Random SPD mixed LCPs (up to 3 free rows): FB solves, and z matches the oracle's unique
    /// solution to 1e-6 absolute. Why 1e-6: for positive definite M the natural-map error bound
    /// ‖z − z*‖₂ ≤ (1 + ‖M‖₂)/λ_min ‖r‖₂ holds (see `pd_error_constant` in `solvers_pgs.rs`);
    /// here ‖M‖₂ ≤ ‖A‖_F² + 0.1 ≤ 100.1, λ_min ≥ 0.1 and ‖r‖₂ ≤ √10 · 1e-10 (‖q‖∞ < 1), so
    /// the error is below 3.2e-7, and the oracle's own solve is far more accurate than that.
    #[test]
    fn mixed_lcp_matches_oracle(
        (p, free) in (lcp::lcp_of_kind(lcp::MatrixKind::Spd, 1..=10), 0usize..=3),
    ) {
        let free = free.min(p.len());
        let p = Problem { free, ..p };
        let s = FischerBurmeister.solve(&p, None, &oracle_options(100));
        prop_assert_eq!(&s.status, &Status::Solved, "{:?}", s.stats);
        let solutions = lcp::enumerate(&p, 1e-9);
        prop_assert_eq!(solutions.len(), 1);
        prop_assert!(distance(&s.z, &solutions[0].z) <= 1e-6, "{} vs {}", s.z, solutions[0].z);
    }
}
