//! `solvers::lemke`: closed-form LCPs, Murty's exponential example, degenerate instances that make
//! naive pivoting cycle, property tests against the enumeration oracle (P-matrix, SPD, PSD, MLCP),
//! infeasible instances, mixed LCPs, warm starts and the failure statuses.
#[path = "common/lcp.rs"]
mod lcp;

use lcp::{check_solution, enumerate, mat, murty, murty_upper, vector, MatrixKind};
use nalgebra::{DMatrix, DVector};
use proptest::prelude::*;
use proptest::test_runner::RngSeed;
use signorini::solvers::lemke::Lemke;
use signorini::solvers::{all, by_name, residual, Options, Problem, Solve, Solver, Status};
use std::collections::HashSet;

/// Proptest settings: `cases` unless PROPTEST_CASES is set, a fixed seed unless
/// PROPTEST_RNG_SEED is set (reproducible runs), no persistence files.
fn proptest_config(cases: u32) -> ProptestConfig {
    let mut config = ProptestConfig {
        failure_persistence: None,
        ..ProptestConfig::default()
    };
    if std::env::var_os("PROPTEST_CASES").is_none() {
        config.cases = cases;
    }
    if std::env::var_os("PROPTEST_RNG_SEED").is_none() {
        config.rng_seed = RngSeed::Fixed(0x1e3b_e5ee_d0c0_ffee);
    }
    config
}

/// Default options (tolerance 1e-10 on the scaled residual).
fn solve(problem: &Problem) -> Solve {
    Lemke.solve(problem, None, &Options::default())
}

/// Absolute closeness of two vectors, for answers known in closed form: the data below are
/// O(1) and Lemke's arithmetic on them is a handful of pivots, so round-off stays within a few
/// ulps of O(1) numbers; 1e-12 leaves a margin of ~4 orders of magnitude.
const CLOSED_FORM_TOL: f64 = 1e-12;

fn assert_close(a: &DVector<f64>, b: &DVector<f64>, tol: f64) {
    assert_eq!(a.len(), b.len());
    assert!(
        (a - b).amax() <= tol,
        "{:?} vs {:?} (tolerance {tol:e})",
        a.as_slice(),
        b.as_slice()
    );
}

// ---------------------------------------------------------------------------------------------
// Closed forms.

#[test]
fn one_by_one_closed_form() {
    // 2z − 4 = 0 → z = 2 (one pivot for z₀, one for z₁).
    let s = solve(&Problem::lcp(mat(&[&[2.0]]), vector(&[-4.0])));
    assert_eq!(s.status, Status::Solved);
    assert_close(&s.z, &vector(&[2.0]), CLOSED_FORM_TOL);
    assert_eq!(s.stats.iterations, 2);
    // q ≥ 0: z = 0 without a pivot.
    let s = solve(&Problem::lcp(mat(&[&[2.0]]), vector(&[3.0])));
    assert_eq!(s.status, Status::Solved);
    assert_eq!(s.z, vector(&[0.0]));
    assert_eq!(s.stats.iterations, 0);
    assert_eq!(s.stats.residual, 0.0);
}

#[test]
fn two_by_two_closed_forms() {
    let m = mat(&[&[2.0, 1.0], &[1.0, 2.0]]);
    // Both active: M z = −q → z = (4/3, 7/3).
    let s = solve(&Problem::lcp(m.clone(), vector(&[-5.0, -6.0])));
    assert_eq!(s.status, Status::Solved);
    assert_close(&s.z, &vector(&[4.0 / 3.0, 7.0 / 3.0]), CLOSED_FORM_TOL);
    // Only the first active: z = (1/2, 0), w = (0, 5/2).
    let s = solve(&Problem::lcp(m.clone(), vector(&[-1.0, 2.0])));
    assert_eq!(s.status, Status::Solved);
    assert_close(&s.z, &vector(&[0.5, 0.0]), CLOSED_FORM_TOL);
    // Non-symmetric P-matrix: [[1, 2], [0, 1]], q = (−1, −1) → z₂ = 1 makes w₁ = 1 > 0, so
    // z = (0, 1), w = (1, 0).
    let s = solve(&Problem::lcp(
        mat(&[&[1.0, 2.0], &[0.0, 1.0]]),
        vector(&[-1.0, -1.0]),
    ));
    assert_eq!(s.status, Status::Solved);
    assert_close(&s.z, &vector(&[0.0, 1.0]), CLOSED_FORM_TOL);
}

#[test]
fn contact_like_bar_on_three_supports() {
    // A 2D bar (mass m, inertia I) falling flat at speed 1 onto three supports at x = −L, 0, L.
    // Contact Jacobian rows (vertical velocity of each support point) J = [1, x], Delassus
    // operator M = J diag(1/m, 1/I) Jᵀ (rank 2: symmetric PSD), q = J v = (−1, −1, −1).
    // Plastic impact: w = 0 at all three, and the total impulse stops the bar,
    // Jᵀz = (m·1, 0) — the three normal impulses are not unique, their resultant is.
    let (mass, inertia, l) = (2.0, 0.5, 0.75);
    let j = mat(&[&[1.0, -l], &[1.0, 0.0], &[1.0, l]]);
    let minv = DMatrix::from_diagonal(&vector(&[1.0 / mass, 1.0 / inertia]));
    let m = &j * minv * j.transpose();
    let q = vector(&[-1.0, -1.0, -1.0]);
    let problem = Problem::lcp(m.clone(), q.clone());
    let s = solve(&problem);
    assert_eq!(s.status, Status::Solved);
    // Tolerance: the residual test guarantees ‖min(z, w)‖∞ ≤ 1e-10‖q‖∞ = 1e-10.
    check_solution(&problem, &s.z, 1e-10).unwrap();
    assert_close(&(&m * &s.z + &q), &DVector::zeros(3), 1e-10);
    assert_close(&(j.transpose() * &s.z), &vector(&[mass, 0.0]), 1e-10);
}

#[test]
fn registered_first_in_the_fallback_order() {
    assert_eq!(all()[0].name(), "lemke");
    assert_eq!(by_name("lemke").map(|s| s.name()), Some("lemke"));
}

// ---------------------------------------------------------------------------------------------
// Murty's exponential example.

#[test]
fn murty_example_takes_exactly_two_to_the_n_pivots() {
    // Murty (1978): Lemke's method with d = (1, …, 1) needs 2ⁿ pivots on M lower triangular
    // (1 on the diagonal, 2 below), qᵢ = −(2ⁿ + … + 2ⁿ⁻ⁱ⁺¹); the z₀ pivot counts as one. The q
    // entries are distinct, so no tie-breaking is involved and the count is exact.
    let options = Options {
        max_pivots: 1 << 12,
        ..Options::default()
    };
    let mut counts = Vec::new();
    for n in 2..=10 {
        let (m, q) = murty(n);
        let s = Lemke.solve(&Problem::lcp(m, q), None, &options);
        assert_eq!(s.status, Status::Solved, "n = {n}");
        // Unique solution z = 2ⁿ e₁ (P-matrix); entries are integers up to 2ⁿ⁺¹ ≤ 2048 computed
        // exactly or to an ulp, so 1e-12 relative.
        let mut expected = DVector::zeros(n);
        expected[0] = 2f64.powi(n as i32);
        assert_close(&s.z, &expected, 1e-12 * expected[0]);
        assert_eq!(s.stats.iterations, 1 << n, "n = {n}");
        counts.push((n, s.stats.iterations));
    }
    eprintln!("Murty pivot counts: {counts:?}");
}

#[test]
fn murty_upper_form_with_tied_q_is_solved_in_two_pivots() {
    // The transposed form with q = −(1, …, 1): every qᵢ ties in the first ratio test. The
    // lexicographic rule compares rows of B⁻¹ = I and picks the last row (its row eₙ is the
    // lexicographic minimum), whose complement zₙ then drives z₀ out: z = eₙ after 2 pivots.
    for n in 2..=10 {
        let (m, q) = murty_upper(n);
        let s = solve(&Problem::lcp(m, q));
        assert_eq!(s.status, Status::Solved);
        let mut expected = DVector::zeros(n);
        expected[n - 1] = 1.0;
        assert_close(&s.z, &expected, CLOSED_FORM_TOL);
        assert_eq!(s.stats.iterations, 2);
    }
}

// ---------------------------------------------------------------------------------------------
// Degeneracy and cycling.

/// Lemke's method on a dense tableau with the naive tie-break "lowest row index among the tied
/// minimum ratios" (no lexicographic rule, no preference for z₀). Returns `Some(pivots)` when
/// it reaches a complementary basis and `None` when a state (ordered basis, entering variable)
/// repeats — the rule is deterministic in that state, so it would then cycle forever.
fn naive_lemke_pivots(m: &DMatrix<f64>, q: &DVector<f64>) -> Option<usize> {
    let n = q.len();
    // Columns: w (0..n), z (n..2n), z₀ (2n), right-hand side (2n + 1).
    let mut t = DMatrix::zeros(n, 2 * n + 2);
    for i in 0..n {
        t[(i, i)] = 1.0;
        for j in 0..n {
            t[(i, n + j)] = -m[(i, j)];
        }
        t[(i, 2 * n)] = -1.0;
        t[(i, 2 * n + 1)] = q[i];
    }
    let pivot = |t: &mut DMatrix<f64>, r: usize, c: usize| {
        let p = t[(r, c)];
        let row = t.row(r) / p;
        t.set_row(r, &row);
        for i in 0..n {
            if i != r {
                let f = t[(i, c)];
                let new = t.row(i) - &row * f;
                t.set_row(i, &new);
            }
        }
    };
    let complement = |v: usize| if v < n { v + n } else { v - n };
    let mut basis: Vec<usize> = (0..n).collect();
    // z₀ enters; the lowest-index row of the most negative q leaves.
    let qmin = q.min();
    let r = (0..n).find(|&i| q[i] <= qmin + 1e-12).unwrap();
    pivot(&mut t, r, 2 * n);
    let mut leaving = std::mem::replace(&mut basis[r], 2 * n);
    let mut seen = HashSet::new();
    for pivots in 1..1000 {
        if leaving == 2 * n {
            return Some(pivots);
        }
        let entering = complement(leaving);
        if !seen.insert((basis.clone(), entering)) {
            return None;
        }
        let ratio = |i: usize| t[(i, 2 * n + 1)].max(0.0) / t[(i, entering)];
        let rows: Vec<usize> = (0..n).filter(|&i| t[(i, entering)] > 1e-12).collect();
        let best = rows.iter().map(|&i| ratio(i)).fold(f64::INFINITY, f64::min);
        let r = *rows.iter().find(|&&i| ratio(i) <= best + 1e-12)?;
        pivot(&mut t, r, entering);
        leaving = std::mem::replace(&mut basis[r], entering);
    }
    panic!("naive Lemke neither ended nor repeated a state");
}

#[test]
fn degenerate_circulant_cycles_naively_but_not_lexicographically() {
    // Found by a brute-force search over small integer copositive-plus LCPs for instances where
    // naive (lowest-index) tie-breaking cycles. M is a positive circulant (strictly copositive,
    // so Lemke must end in a solution) and q = −(1, 1, 1) ties every row at every step: the
    // solution z = (1/9)(1, 1, 1) has w = 0, fully degenerate.
    let m = mat(&[&[3.0, 4.0, 2.0], &[2.0, 3.0, 4.0], &[4.0, 2.0, 3.0]]);
    let q = vector(&[-1.0, -1.0, -1.0]);
    assert_eq!(naive_lemke_pivots(&m, &q), None, "naive rule should cycle");
    let problem = Problem::lcp(m, q);
    let s = solve(&problem);
    assert_eq!(s.status, Status::Solved);
    assert!(s.stats.iterations <= 10, "{} pivots", s.stats.iterations);
    assert_close(&s.z, &DVector::from_element(3, 1.0 / 9.0), CLOSED_FORM_TOL);
}

#[test]
fn degenerate_instances_with_zero_q_entries_terminate() {
    // Same search (positive semidefinite plus skew-symmetric integer M, q with zero entries):
    // the naive rule cycles on each of these; the oracle gives the solutions to compare with.
    let cases = [
        (
            mat(&[&[1.0, -1.0, 3.0], &[3.0, 1.0, -1.0], &[-1.0, 3.0, 2.0]]),
            vector(&[-1.0, -1.0, -1.0]),
        ),
        (
            mat(&[
                &[3.0, 5.0, 1.0, 1.0],
                &[1.0, 4.0, -1.0, 5.0],
                &[1.0, 1.0, 2.0, 2.0],
                &[5.0, 1.0, 0.0, 3.0],
            ]),
            vector(&[-1.0, -1.0, 0.0, -1.0]),
        ),
    ];
    for (m, q) in cases {
        let problem = Problem::lcp(m.clone(), q.clone());
        let oracle = enumerate(&problem, 1e-9);
        assert!(!oracle.is_empty());
        let s = solve(&problem);
        assert_eq!(s.status, Status::Solved, "{m}");
        assert!(s.stats.iterations <= 20);
        // Tolerance: the data are O(1) integers; the residual test bounds ‖min(z, w)‖∞ by 1e-10.
        check_solution(&problem, &s.z, 1e-10).unwrap();
    }
    // Hand-made degeneracy: q with several zeros and M = I + all-ones. With q = (−1, 0, 0, −1)
    // the first ratio test ties rows 0 and 3, and every later step ties the zero rows.
    let n = 4;
    let m = DMatrix::identity(n, n) + DMatrix::from_element(n, n, 1.0);
    let q = vector(&[-1.0, 0.0, 0.0, -1.0]);
    let problem = Problem::lcp(m, q);
    let s = solve(&problem);
    assert_eq!(s.status, Status::Solved);
    // Unique (M is PD): z = (1/3, 0, 0, 1/3) since 2z₀ + z₃ = 1 = z₀ + 2z₃, w₁ = w₂ = 2/3.
    assert_close(
        &s.z,
        &vector(&[1.0 / 3.0, 0.0, 0.0, 1.0 / 3.0]),
        CLOSED_FORM_TOL,
    );
}

#[test]
fn all_zero_q_and_zero_matrix() {
    // q = 0 ≥ 0: z = 0 is a solution whatever M is (here M = 0, every z ≥ 0 solves).
    let s = solve(&Problem::lcp(DMatrix::zeros(3, 3), DVector::zeros(3)));
    assert_eq!(s.status, Status::Solved);
    assert_eq!(s.z, DVector::zeros(3));
    assert_eq!(s.stats.iterations, 0);
}

// ---------------------------------------------------------------------------------------------
// No solution.

#[test]
fn infeasible_instances_end_in_ray_termination() {
    // M = [−1], q = [−1]: w = −z − 1 < 0 for every z ≥ 0.
    let s = solve(&Problem::lcp(mat(&[&[-1.0]]), vector(&[-1.0])));
    assert_eq!(s.status, Status::RayTermination);
    // M = [[1, −1], [−1, 1]] is PSD (copositive-plus) and q = (−1, −1): w₁ + w₂ = −2 < 0, so
    // the LCP is infeasible; for copositive-plus M, Lemke proves it by a ray (CPS 4.4.13).
    let p = Problem::lcp(mat(&[&[1.0, -1.0], &[-1.0, 1.0]]), vector(&[-1.0, -1.0]));
    assert!(enumerate(&p, 1e-9).is_empty());
    let s = solve(&p);
    assert_eq!(s.status, Status::RayTermination);
    assert!(s.stats.residual > 0.1);
    // The zero matrix with a negative q: infeasible.
    let s = solve(&Problem::lcp(DMatrix::zeros(2, 2), vector(&[1.0, -1.0])));
    assert_eq!(s.status, Status::RayTermination);
}

// ---------------------------------------------------------------------------------------------
// Mixed LCPs.

#[test]
fn mixed_lcp_matches_the_hand_computed_reduction() {
    // M = [[2, 1, 0], [1, 2, 1], [0, 1, 2]], one free row, q = (3, −2, 3).
    // M_ff = 2, X = M_ff⁻¹M_fc = (1/2, 0), y = M_ff⁻¹q_f = 3/2;
    // reduced M = [[2, 1], [1, 2]] − (1, 0)ᵀ(1/2, 0) = [[3/2, 1], [1, 2]],
    // reduced q = (−2, 3) − (1, 0)·3/2 = (−7/2, 3) → z_c = (7/3, 0), w_c = (0, 16/3);
    // z_f = −(y + X z_c) = −(3/2 + 7/6) = −8/3 (negative: the free variable is unsigned).
    let m = mat(&[&[2.0, 1.0, 0.0], &[1.0, 2.0, 1.0], &[0.0, 1.0, 2.0]]);
    let problem = Problem {
        m,
        q: vector(&[3.0, -2.0, 3.0]),
        free: 1,
    };
    let s = solve(&problem);
    assert_eq!(s.status, Status::Solved);
    assert_close(
        &s.z,
        &vector(&[-8.0 / 3.0, 7.0 / 3.0, 0.0]),
        CLOSED_FORM_TOL,
    );
    let w = &problem.m * &s.z + &problem.q;
    assert_close(&w, &vector(&[0.0, 0.0, 16.0 / 3.0]), CLOSED_FORM_TOL);
}

#[test]
fn all_free_rows_is_a_linear_system() {
    let problem = Problem {
        m: mat(&[&[4.0, 1.0], &[1.0, 3.0]]),
        q: vector(&[-1.0, -2.0]),
        free: 2,
    };
    let s = solve(&problem);
    assert_eq!(s.status, Status::Solved);
    assert_eq!(s.stats.iterations, 0);
    // 4a + b = 1, a + 3b = 2 → a = 1/11, b = 7/11.
    assert_close(&s.z, &vector(&[1.0 / 11.0, 7.0 / 11.0]), CLOSED_FORM_TOL);
}

#[test]
fn singular_free_block_is_reported() {
    let problem = Problem {
        m: mat(&[&[1.0, 1.0, 0.0], &[1.0, 1.0, 0.0], &[0.0, 0.0, 1.0]]),
        q: vector(&[-1.0, -1.0, -1.0]),
        free: 2,
    };
    let s = solve(&problem);
    assert_eq!(s.status, Status::Singular);
    assert_eq!(s.z.len(), 3);
}

// ---------------------------------------------------------------------------------------------
// Warm starts.

#[test]
fn correct_warm_start_returns_without_pivoting() {
    let problem = lcp::random_lcp(MatrixKind::Spd, 8, 7);
    let cold = solve(&problem);
    assert_eq!(cold.status, Status::Solved);
    assert!(cold.stats.iterations > 0);
    let warm = Lemke.solve(&problem, Some(&cold.z), &Options::default());
    assert_eq!(warm.status, Status::Solved);
    assert_eq!(warm.stats.iterations, 0);
    // Both solve the same nonsingular principal system (one by pivots, one by LU): they agree
    // to round-off of O(1) data, 1e-12.
    assert_close(&warm.z, &cold.z, 1e-12);
    // The warm start only seeds the active set: a slightly wrong value with the right support
    // gives the same answer.
    let nudged = cold.z.map(|v| if v > 0.0 { v * 1.5 } else { 0.0 });
    let warm = Lemke.solve(&problem, Some(&nudged), &Options::default());
    assert_eq!(warm.stats.iterations, 0);
    assert_close(&warm.z, &cold.z, 1e-12);
}

#[test]
fn wrong_or_malformed_warm_starts_still_solve() {
    let problem = lcp::random_lcp(MatrixKind::PDominant, 8, 11);
    let cold = solve(&problem);
    assert_eq!(cold.status, Status::Solved);
    let wrong_supports = [
        DVector::from_element(8, 1.0),
        cold.z.map(|v| if v > 0.0 { 0.0 } else { 1.0 }),
        DVector::from_element(8, f64::NAN),
    ];
    for ws in &wrong_supports {
        let s = Lemke.solve(&problem, Some(ws), &Options::default());
        assert_eq!(s.status, Status::Solved);
        // The unique solution of a P-matrix LCP, reached by the same pivots as the cold solve.
        assert_close(&s.z, &cold.z, 1e-12);
    }
    // A warm start of the wrong length is ignored.
    let s = Lemke.solve(&problem, Some(&DVector::zeros(3)), &Options::default());
    assert_eq!(s, cold);
}

#[test]
fn warm_start_with_free_rows() {
    let problem = Problem {
        m: mat(&[&[2.0, 1.0, 0.0], &[1.0, 2.0, 1.0], &[0.0, 1.0, 2.0]]),
        q: vector(&[3.0, -2.0, 3.0]),
        free: 1,
    };
    let cold = solve(&problem);
    let warm = Lemke.solve(&problem, Some(&cold.z), &Options::default());
    assert_eq!(warm.status, Status::Solved);
    assert_eq!(warm.stats.iterations, 0);
    assert_close(&warm.z, &cold.z, CLOSED_FORM_TOL);
}

// ---------------------------------------------------------------------------------------------
// Limits and malformed input.

#[test]
fn pivot_limit_gives_iteration_limit() {
    let (m, q) = murty(6);
    let problem = Problem::lcp(m, q);
    for limit in [0, 1, 10, 63] {
        let options = Options {
            max_pivots: limit,
            ..Options::default()
        };
        let s = Lemke.solve(&problem, None, &options);
        assert_eq!(s.status, Status::IterationLimit, "limit {limit}");
        assert_eq!(s.stats.iterations, limit);
        assert_eq!(s.z.len(), 6);
    }
    // 2⁶ = 64 pivots suffice.
    let options = Options {
        max_pivots: 64,
        ..Options::default()
    };
    assert_eq!(Lemke.solve(&problem, None, &options).status, Status::Solved);
}

#[test]
fn malformed_and_empty_problems() {
    let s = solve(&Problem::lcp(mat(&[&[1.0]]), vector(&[f64::NAN])));
    assert!(matches!(s.status, Status::BadProblem(_)), "{:?}", s.status);
    assert_eq!(s.z.len(), 1);
    let s = solve(&Problem::lcp(DMatrix::identity(2, 2), vector(&[1.0])));
    assert!(matches!(s.status, Status::BadProblem(_)));
    let s = solve(&Problem::lcp(DMatrix::zeros(0, 0), DVector::zeros(0)));
    assert_eq!(s.status, Status::Solved);
    assert_eq!(s.z.len(), 0);
}

#[test]
fn tolerance_decides_solved_versus_inaccurate() {
    // An impossible tolerance (negative): the exact answer still misses it → Inaccurate.
    let problem = Problem::lcp(mat(&[&[2.0, 1.0], &[1.0, 2.0]]), vector(&[-5.0, -6.0]));
    let options = Options {
        tolerance: -1.0,
        ..Options::default()
    };
    let s = Lemke.solve(&problem, None, &options);
    assert_eq!(s.status, Status::Inaccurate);
    assert!(s.stats.residual < 1e-14);
}

#[test]
fn results_are_scale_invariant() {
    // Every tolerance is relative, so scaling M and q by a power of two (exact in binary
    // floating point, far from overflow and underflow) must give the very same pivots and the
    // very same z: (sM) z + sq = s(Mz + q). Exact equality is the assertion.
    for (kind, seed) in [
        (MatrixKind::PSkew, 3),
        (MatrixKind::Psd, 5),
        (MatrixKind::Spd, 8),
    ] {
        let problem = lcp::random_lcp(kind, 9, seed);
        let reference = solve(&problem);
        for s in [2f64.powi(-40), 2f64.powi(40)] {
            let scaled = Problem::lcp(&problem.m * s, &problem.q * s);
            let r = solve(&scaled);
            assert_eq!(r.status, reference.status);
            assert_eq!(r.stats.iterations, reference.stats.iterations);
            assert_eq!(r.z, reference.z);
        }
    }
}

#[test]
fn larger_spd_problem_is_solved_and_warm_start_skips_pivoting() {
    // n = 300: B⁻¹ is updated in place ~n/2 times; the residual test is the check.
    let n = 300;
    let mut rng = lcp::Rng::new(2024);
    let a = lcp::random_matrix(&mut rng, n, n);
    let m = &a * a.transpose() / n as f64 + DMatrix::identity(n, n) * 0.01;
    let q = lcp::random_q(&mut rng, n);
    let problem = Problem::lcp(m, q);
    let s = solve(&problem);
    assert_eq!(s.status, Status::Solved);
    assert!(s.stats.residual <= 1e-10);
    assert!(s.stats.iterations <= 2 * n);
    let warm = Lemke.solve(&problem, Some(&s.z), &Options::default());
    assert_eq!(warm.status, Status::Solved);
    assert_eq!(warm.stats.iterations, 0);
}

// ---------------------------------------------------------------------------------------------
// Property tests against the enumeration oracle.

/// Oracle acceptance tolerance (relative to max(1, ‖q‖∞, ‖M‖max)): the random data are O(1)
/// with P-matrix / SPD condition numbers rarely above 1e4, so oracle solutions carry errors
/// ~1e-12; 1e-9 accepts them and still rejects any real violation.
const ORACLE_TOL: f64 = 1e-9;

/// Agreement of Lemke's z (or w) with the oracle's for problems with a unique solution: both are
/// solutions of the same nonsingular principal system; with condition numbers up to ~1e4 and
/// O(1) data they agree to ~1e-12, and 1e-9 is the requested margin.
const MATCH_TOL: f64 = 1e-9;

fn unique_solution_matches_oracle(problem: &Problem) -> Result<(), TestCaseError> {
    let oracle = enumerate(problem, ORACLE_TOL);
    prop_assert_eq!(oracle.len(), 1, "a P-matrix LCP has exactly one solution");
    let s = solve(problem);
    prop_assert_eq!(&s.status, &Status::Solved);
    prop_assert!(s.stats.residual <= 1e-10);
    prop_assert!(
        (&s.z - &oracle[0].z).amax() <= MATCH_TOL * (1.0 + oracle[0].z.amax()),
        "lemke {:?} oracle {:?}",
        s.z.as_slice(),
        oracle[0].z.as_slice()
    );
    Ok(())
}

proptest! {
    #![proptest_config(proptest_config(48))]

    #[test]
    fn p_matrix_lcp_matches_oracle(problem in lcp::p_matrix_lcp(1..=10)) {
        unique_solution_matches_oracle(&problem)?;
    }

    #[test]
    fn spd_lcp_matches_oracle(problem in lcp::lcp_of_kind(MatrixKind::Spd, 1..=10)) {
        unique_solution_matches_oracle(&problem)?;
    }

    #[test]
    fn psd_lcp_solved_exactly_when_oracle_finds_a_solution(
        problem in lcp::lcp_of_kind(MatrixKind::Psd, 2..=10)
    ) {
        // Symmetric PSD is copositive-plus: Lemke solves whenever a solution exists and ends
        // in a ray otherwise (CPS 4.4.13); for symmetric PSD all solutions share w = Mz + q.
        let oracle = enumerate(&problem, ORACLE_TOL);
        let s = solve(&problem);
        if oracle.is_empty() {
            prop_assert_eq!(&s.status, &Status::RayTermination);
        } else {
            prop_assert_eq!(&s.status, &Status::Solved);
            let w = &problem.m * &s.z + &problem.q;
            // w is unique but z is not, and z can grow along near-null directions; compare w
            // relative to the size of z as well.
            prop_assert!(
                (&w - &oracle[0].w).amax() <= MATCH_TOL * (1.0 + s.z.amax()),
                "lemke w {:?} oracle w {:?}", w.as_slice(), oracle[0].w.as_slice()
            );
        }
    }

    #[test]
    fn mixed_spd_lcp_matches_oracle(
        problem in lcp::lcp_of_kind(MatrixKind::Spd, 2..=10),
        free_fraction in 0.0..1.0f64,
    ) {
        // SPD keeps M_ff nonsingular and the reduced matrix SPD: one solution.
        let free = ((problem.len() as f64) * free_fraction) as usize;
        let problem = Problem { free, ..problem };
        unique_solution_matches_oracle(&problem)?;
        // Residual is measured on the original problem: free rows have w = 0.
        let s = solve(&problem);
        prop_assert!(residual(&problem, &s.z) <= 1e-10);
    }

    #[test]
    fn warm_start_from_own_solution_is_free_and_identical(
        problem in lcp::p_matrix_lcp(1..=10),
        noise_seed in any::<u64>(),
    ) {
        let cold = solve(&problem);
        prop_assert_eq!(&cold.status, &Status::Solved);
        let warm = Lemke.solve(&problem, Some(&cold.z), &Options::default());
        prop_assert_eq!(&warm.status, &Status::Solved);
        prop_assert_eq!(warm.stats.iterations, 0);
        prop_assert!((&warm.z - &cold.z).amax() <= MATCH_TOL * (1.0 + cold.z.amax()));
        // A random warm start: still the unique solution.
        let mut rng = lcp::Rng::new(noise_seed);
        let guess = lcp::random_q(&mut rng, problem.len());
        let s = Lemke.solve(&problem, Some(&guess), &Options::default());
        prop_assert_eq!(&s.status, &Status::Solved);
        prop_assert!((&s.z - &cold.z).amax() <= MATCH_TOL * (1.0 + cold.z.amax()));
    }

    #[test]
    fn degenerate_integer_lcp_terminates_with_the_right_verdict(
        (problem, symmetric) in lcp::degenerate_lcp(2..=7)
    ) {
        // Copositive-plus M with ties everywhere: the lexicographic rule must end in a
        // solution or a ray, never cycle into the pivot limit. A solution the oracle finds
        // means Lemke must solve (CPS 4.4.13); for symmetric M the oracle is complete, so no
        // solution means a ray.
        let oracle = enumerate(&problem, ORACLE_TOL);
        let s = solve(&problem);
        prop_assert!(
            matches!(s.status, Status::Solved | Status::RayTermination),
            "{:?} after {} pivots", s.status, s.stats.iterations
        );
        if !oracle.is_empty() {
            prop_assert_eq!(&s.status, &Status::Solved);
        } else if symmetric {
            prop_assert_eq!(&s.status, &Status::RayTermination);
        }
        if s.status == Status::Solved {
            // Solutions can be large (z along near-null directions of M reaches ~1e3), and
            // w = Mz + q then carries round-off ~ε‖M‖‖z‖, so the slack scales with ‖z‖∞.
            let check = check_solution(&problem, &s.z, 1e-10 * (1.0 + s.z.amax()));
            prop_assert!(check.is_ok(), "{:?} z = {:?}", check, s.z.as_slice());
        }
    }
}

/// `Lemke::solve_with_basis` returns the rows whose z is basic at the end; proposed again as a
/// support, their principal system gives back the answer (within round-off of the refinement),
/// also when a basic zᵢ is 0 — which the support of z alone would drop. Over degenerate integer
/// LCPs (ties and zero basics are common there); at least one instance has such a zero basic.
#[test]
fn the_final_basis_reproduces_the_answer() {
    let options = Options::default();
    let mut zero_basics = 0;
    for seed in 0..200 {
        for symmetric in [true, false] {
            let problem = lcp::degenerate_integer_lcp(8, symmetric, seed);
            let (solve, basis) = Lemke.solve_with_basis(&problem, None, &options);
            if !solve.status.is_solved() {
                continue;
            }
            let support: Vec<bool> = basis.clone();
            let sparse = signorini::solvers::sparse::SparseProblem::from_dense(&problem);
            let again = sparse
                .solve_on_support(&support)
                .unwrap_or_else(|| panic!("seed {seed}: the final basis is singular"));
            assert!(
                sparse.residual(&again) <= options.tolerance,
                "seed {seed}: residual {:.3e} on the basis",
                sparse.residual(&again)
            );
            let scale = solve.z.amax().max(1.0);
            assert!(
                (&again - &solve.z).amax() <= 1e-10 * scale,
                "seed {seed}: {} vs {}",
                again,
                solve.z
            );
            zero_basics += (0..problem.len())
                .filter(|&i| basis[i] && solve.z[i] == 0.0)
                .count();
        }
    }
    assert!(
        zero_basics > 0,
        "no degenerate basic variable in the sample"
    );
}

/// An LCP of `tests/data/` (a PEG island of the 64-box bin, its format in the file's header).
fn peg_island(text: &str) -> Problem {
    let mut n = 0;
    let (mut m, mut q) = (DMatrix::zeros(0, 0), DVector::zeros(0));
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let f: Vec<&str> = line.split_whitespace().collect();
        match f[0] {
            "n" => {
                n = f[1].parse().unwrap();
                (m, q) = (DMatrix::zeros(n, n), DVector::zeros(n));
            }
            "q" => q[f[1].parse::<usize>().unwrap()] = f[2].parse().unwrap(),
            "m" => {
                let (i, j): (usize, usize) = (f[1].parse().unwrap(), f[2].parse().unwrap());
                m[(i, j)] = f[3].parse().unwrap();
            }
            other => panic!("unknown line kind {other}"),
        }
    }
    assert_eq!(q.len(), n);
    Problem::lcp(m, q)
}

/// The options the time-stepping models give Lemke's method (`SolverChain`): tolerance 1e-8,
/// 100 + 20 n pivots.
fn contact_model_options(problem: &Problem) -> Options {
    Options {
        tolerance: 1e-8,
        max_pivots: 100 + 20 * problem.len(),
        ..Options::default()
    }
}

/// Dense and sparse Lemke, with the contact models' options, both solve `problem` to within
/// `bound` (their reported residual, and the dense answer's recomputed).
fn assert_both_lemkes_solve(problem: &Problem, bound: f64) {
    let options = contact_model_options(problem);
    let dense = Lemke.solve(problem, None, &options);
    assert_eq!(dense.status, Status::Solved, "{dense:?}");
    assert!(dense.stats.residual <= bound, "{}", dense.stats.residual);
    assert!(residual(problem, &dense.z) <= bound);
    let sparse = signorini::solvers::lemke_sparse::solve(
        &signorini::solvers::sparse::SparseProblem::from_dense(problem),
        None,
        &options,
    )
    .0;
    assert_eq!(sparse.status, Status::Solved, "{sparse:?}");
    assert!(sparse.stats.residual <= bound, "{}", sparse.stats.residual);
}

/// A path that blocks at a degenerate basis where z₀ is exactly 0 (the problem's normal block has
/// rank 8 of 13): the pivoted x_B reads z₀ = 1.8e-8 (round-off of 75 product-form updates; the
/// basis's condition number is ~1e3) and the path used to end on a ray at residual 9.7e-8. The
/// refined basic solution has z₀ at round-off and solves the problem: an exact-arithmetic
/// (60-digit) Lemke run on the same data reaches the same ray with z₀ = 3e-43 and z at residual
/// 1.4e-16. 1e-12 is four decades above that and four below the models' tolerance (1e-8).
#[test]
fn a_ray_at_a_degenerate_solution_is_recognized_after_refinement() {
    let problem = peg_island(include_str!("data/lemke_peg_island_78.txt"));
    assert_eq!(problem.len(), 78);
    assert_both_lemkes_solve(&problem, 1e-12);
}

/// A 96-row PEG island (`bin_64` seed 7 under peg with the post-step projection, t = 0.894 s)
/// on which every path with the ratio test's safeguards, restarts included, ends on a detected
/// cycle at residual 9.7e-3 (the pivot filter drops a blocking row whose entry is 1e-10 – 1e-9
/// of the column). A plain lexicographic Lemke, in float64 and in 60-digit arithmetic, reaches a
/// ray after 86 pivots at a point that solves it to 3e-16; the last resort's textbook path does
/// the same and ends at 6e-12 (dense and sparse). The bound 1e-10 leaves a decade and a half
/// over that and stays two decades below the models' tolerance (1e-8).
#[test]
fn a_degenerate_peg_island_that_cycles_is_solved_by_the_textbook_path() {
    let problem = peg_island(include_str!("data/lemke_peg_island_96.txt"));
    assert_eq!(problem.len(), 96);
    assert_both_lemkes_solve(&problem, 1e-10);
}
