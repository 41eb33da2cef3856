//! Projected Gauss–Seidel / SOR (`solvers::pgs`): closed-form LCPs, refusals, warm start,
//! over-relaxation, mixed problems, and agreement with the enumeration oracle on random SPD
//! instances.
use nalgebra::{DMatrix, DVector};
use signorini::solvers::pgs::Pgs;
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
        max_iterations: 10_000,
        ..Options::default()
    }
}

/// ‖a − b‖∞.
fn distance(a: &DVector<f64>, b: &DVector<f64>) -> f64 {
    (a - b).amax()
}

// Tolerance of the closed-form comparisons: the solve stops at a scaled residual ≤ 1e-12; for
// these well-conditioned SPD matrices (condition number < 10, ‖q‖∞ ≤ 6) the error in z is then
// below 1e-10.
const CLOSED_FORM_TOL: f64 = 1e-10;

#[test]
fn one_by_one_active_and_separating() {
    // 2z − 4 = 0 → z = 2; and 2z + 3 ≥ 0 with z = 0.
    let s = Pgs.solve(&problem(1, &[2.0], &[-4.0]), None, &options());
    assert_eq!(s.status, Status::Solved);
    assert!((s.z[0] - 2.0).abs() < CLOSED_FORM_TOL, "{}", s.z);
    let s = Pgs.solve(&problem(1, &[2.0], &[3.0]), None, &options());
    assert_eq!(s.status, Status::Solved);
    assert_eq!(s.z[0], 0.0, "the projection gives an exact zero");
}

#[test]
fn two_by_two_both_active_and_one_active() {
    // Both active: [[2,1],[1,2]] z = (5, 6) → z = (4/3, 7/3).
    let m = [2.0, 1.0, 1.0, 2.0];
    let s = Pgs.solve(&problem(2, &m, &[-5.0, -6.0]), None, &options());
    assert_eq!(s.status, Status::Solved);
    let expected = DVector::from_column_slice(&[4.0 / 3.0, 7.0 / 3.0]);
    assert!(distance(&s.z, &expected) < CLOSED_FORM_TOL, "{}", s.z);
    // Row 1 separates: z = (1/2, 0), w = (0, 5/2).
    let s = Pgs.solve(&problem(2, &m, &[-1.0, 2.0]), None, &options());
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
    let s = Pgs.solve(&p, None, &options());
    assert_eq!(s.status, Status::Solved);
    let expected = DVector::from_column_slice(&[1.0, 1.0, 0.0]);
    assert!(distance(&s.z, &expected) < CLOSED_FORM_TOL, "{}", s.z);
    let w = &p.m * &s.z + &p.q;
    assert!(
        (w[2] - 5.0).abs() < CLOSED_FORM_TOL,
        "separating gap velocity {}",
        w[2]
    );
    // The reported residual is the library's own measure of the returned z.
    assert_eq!(s.stats.residual, residual(&p, &s.z));
    assert!(s.stats.residual <= options().tolerance);
}

#[test]
fn negative_diagonal_without_solution_is_refused() {
    // w = −z − 1 ≥ 0 needs z ≤ −1: no solution; PGS cannot even start (M_00 < 0).
    let p = problem(1, &[-1.0], &[-1.0]);
    let s = Pgs.solve(&p, None, &options());
    assert!(
        matches!(s.status, Status::NotApplicable(_)),
        "{:?}",
        s.status
    );
    // The start z = 0 comes back with its residual |min(0, −1)| / 1 = 1 (exact).
    assert_eq!(s.z[0], 0.0);
    assert_eq!(s.stats.residual, 1.0);
}

#[test]
fn infeasible_psd_two_by_two_is_never_solved() {
    // w_0 + w_1 = −2 < 0 for every z: no feasible point. The diagonal is positive, so PGS runs
    // (z_0 ← z_1 + 1, z_1 ← z_0 + 1 grows without bound) until the sweep limit.
    let p = problem(2, &[1.0, -1.0, -1.0, 1.0], &[-1.0, -1.0]);
    let opts = Options {
        max_iterations: 200,
        ..options()
    };
    let s = Pgs.solve(&p, None, &opts);
    assert!(
        matches!(s.status, Status::IterationLimit | Status::Inaccurate),
        "{:?}",
        s.status
    );
    assert_eq!(s.stats.iterations, 200);
    // Residual reported and far from zero (w_0 + w_1 = −2 forces min(z_i, w_i) ≤ −1 somewhere).
    assert!(s.stats.residual >= 1.0, "{}", s.stats.residual);
}

#[test]
fn divergence_without_solution_is_inaccurate() {
    // M = [[1, −10], [−10, 1]], q = (−1, −1) has no solution (z_0 = 1 leaves w_1 = −11, the
    // symmetric case likewise, and both positive would need z_0 = z_1 = −1/9). The sweep
    // z_0 ← 1 + 10 z_1, z_1 ← 1 + 10 z_0 grows 100-fold per sweep and overflows after about 155
    // sweeps; the overflow must be reported as Inaccurate, long before the sweep limit.
    let p = problem(2, &[1.0, -10.0, -10.0, 1.0], &[-1.0, -1.0]);
    let s = Pgs.solve(&p, None, &options());
    assert_eq!(s.status, Status::Inaccurate);
    assert!(s.stats.iterations < 1000, "{}", s.stats.iterations);
    assert_eq!(s.stats.residual, f64::INFINITY);
}

/// Single-contact Stewart–Trinkle LCP with one friction direction: unknowns (λ_n, β, σ),
/// rows (normal velocity, tangential velocity + σ, μλ_n − β). Row 2 has a zero diagonal.
fn friction_contact() -> Problem {
    let (a, b, c, mu) = (2.0, 0.5, 2.0, 0.5);
    problem(
        3,
        &[a, b, 0.0, b, c, 1.0, mu, -1.0, 0.0],
        &[-1.0, -3.0, 0.0],
    )
}

#[test]
fn zero_diagonal_of_friction_lcp_is_not_applicable() {
    let s = Pgs.solve(&friction_contact(), None, &options());
    match &s.status {
        Status::NotApplicable(why) => {
            assert!(why.contains("row 2"), "{why}");
            assert!(why.contains("fischer-burmeister"), "{why}");
        }
        other => panic!("expected NotApplicable, got {other:?}"),
    }
    assert_eq!(s.stats.iterations, 0);
}

#[test]
fn tiny_diagonal_relative_to_row_is_not_applicable() {
    let p = problem(2, &[1.0, 0.5, 0.5, 1e-15], &[-1.0, -1.0]);
    let s = Pgs.solve(&p, None, &options());
    assert!(
        matches!(s.status, Status::NotApplicable(_)),
        "{:?}",
        s.status
    );
}

#[test]
fn warm_start_at_solution_returns_at_once() {
    let p = three_contacts();
    let cold = Pgs.solve(&p, None, &options());
    assert_eq!(cold.status, Status::Solved);
    assert!(cold.stats.iterations > 1, "cold start needs sweeps");
    let warm = Pgs.solve(&p, Some(&cold.z), &options());
    assert_eq!(warm.status, Status::Solved);
    // The start already meets the tolerance: the residual is checked before the first sweep.
    assert!(warm.stats.iterations <= 1, "{}", warm.stats.iterations);
    assert_eq!(warm.stats.iterations, 0);
}

#[test]
fn warm_start_negative_entries_are_projected() {
    // A start with a negative complementarity entry must not leave z < 0 in the answer.
    let p = three_contacts();
    let start = DVector::from_column_slice(&[1.0, 1.0, -5.0]);
    let s = Pgs.solve(&p, Some(&start), &options());
    assert_eq!(s.status, Status::Solved);
    assert!(s.z.iter().all(|&v| v >= 0.0), "{}", s.z);
    // From (1, 1, 0) after projection the start is the solution itself.
    assert_eq!(s.stats.iterations, 0);
}

/// 1-D Laplacian tridiag(−1, 2, −1) of size n with q = −1: its inverse is entrywise positive,
/// so every row is active and the LCP is the linear system M z = 1 — the textbook case where
/// Gauss–Seidel is slow and over-relaxation pays.
fn laplacian(n: usize) -> Problem {
    let m = DMatrix::from_fn(n, n, |i, j| match i.abs_diff(j) {
        0 => 2.0,
        1 => -1.0,
        _ => 0.0,
    });
    Problem::lcp(m, DVector::from_element(n, -1.0))
}

#[test]
fn over_relaxation_needs_fewer_sweeps_than_gauss_seidel() {
    let p = laplacian(10);
    let gs = Pgs.solve(&p, None, &options());
    let sor = Pgs.solve(
        &p,
        None,
        &Options {
            relaxation: 1.3,
            ..options()
        },
    );
    assert_eq!(gs.status, Status::Solved);
    assert_eq!(sor.status, Status::Solved);
    // For this matrix the optimal ω is 2 / (1 + sin(π/11)) ≈ 1.56, so ω = 1.3 lowers the
    // spectral radius of the iteration and must save sweeps.
    assert!(
        sor.stats.iterations < gs.stats.iterations,
        "SOR {} sweeps, GS {} sweeps",
        sor.stats.iterations,
        gs.stats.iterations
    );
    // Both reach the same solution z_i = (i + 1)(n − i) / 2.
    let exact = DVector::from_fn(10, |i, _| (i + 1) as f64 * (10 - i) as f64 / 2.0);
    // Scaled residual 1e-12 with ‖M⁻¹‖∞ ≈ 15 bounds the error by ~1e-11.
    assert!(distance(&gs.z, &exact) < 1e-9 && distance(&sor.z, &exact) < 1e-9);
}

/// A mixed LCP: two bilateral (free) rows and three contact rows, Delassus matrix J Jᵀ + 0.1 I
/// of a made-up 5 × 6 constraint Jacobian J (two joint rows, three contact normals).
/// The solution is built in: q = w* − M z* with z* = (0.7, −1.2 | 0.4, 0, 1.1) and
/// w* = (0, 0 | 0, 0.9, 0); M is SPD, so that solution is the only one.
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

/// The Schur-complement reduction of a mixed LCP onto its complementarity rows:
/// S = M_cc − M_cf M_ff⁻¹ M_fc, q_S = q_c − M_cf M_ff⁻¹ q_f, and the free part is recovered as
/// z_f = −M_ff⁻¹ (M_fc z_c + q_f). Returns (S, q_S, −M_ff⁻¹ M_fc, −M_ff⁻¹ q_f).
fn schur_reduction(p: &Problem) -> (DMatrix<f64>, DVector<f64>, DMatrix<f64>, DVector<f64>) {
    let (f, c) = (p.free, p.len() - p.free);
    let m_ff = p.m.view((0, 0), (f, f)).into_owned();
    let m_fc = p.m.view((0, f), (f, c)).into_owned();
    let m_cf = p.m.view((f, 0), (c, f)).into_owned();
    let m_cc = p.m.view((f, f), (c, c)).into_owned();
    let q_f = p.q.rows(0, f).into_owned();
    let inv_ff = m_ff.try_inverse().expect("M_ff is SPD");
    let s = &m_cc - &m_cf * &inv_ff * &m_fc;
    let q_s = p.q.rows(f, c) - &m_cf * &inv_ff * &q_f;
    (s, q_s, -&inv_ff * &m_fc, -&inv_ff * &q_f)
}

#[test]
fn mixed_lcp_with_free_rows() {
    let (p, z_star) = bilateral_and_contact();
    let s = Pgs.solve(&p, None, &options());
    assert_eq!(s.status, Status::Solved);
    // M has condition number ~1e2 here and ‖q‖∞ ~ 3, so a 1e-12 scaled residual leaves an
    // error well below 1e-8.
    assert!(distance(&s.z, &z_star) < 1e-8, "{} vs {}", s.z, z_star);
    // Hand reduction: the contact part solves the Schur-complement LCP (to the same 1e-8) and
    // the free part is the one recovered from it.
    let (schur, q_s, recover, offset) = schur_reduction(&p);
    let z_c = s.z.rows(2, 3).into_owned();
    let w_c = &schur * &z_c + &q_s;
    for i in 0..3 {
        assert!(z_c[i] >= 0.0 && w_c[i] >= -1e-8, "z_c {z_c} w_c {w_c}");
        assert!(z_c[i].min(w_c[i]).abs() < 1e-8, "z_c {z_c} w_c {w_c}");
    }
    let z_f = &recover * &z_c + &offset;
    assert!(distance(&z_f, &s.z.rows(0, 2).into_owned()) < 1e-8);
}

#[test]
fn malformed_inputs_are_bad_problems() {
    let mut p = three_contacts();
    p.m[(1, 2)] = f64::NAN;
    assert!(matches!(
        Pgs.solve(&p, None, &options()).status,
        Status::BadProblem(_)
    ));
    for omega in [2.5, 2.0, 0.0, -0.5, f64::NAN] {
        let opts = Options {
            relaxation: omega,
            ..options()
        };
        let s = Pgs.solve(&three_contacts(), None, &opts);
        assert!(
            matches!(s.status, Status::BadProblem(_)),
            "ω = {omega}: {:?}",
            s.status
        );
    }
}

#[test]
fn iteration_limit_on_a_slow_instance() {
    // One Gauss–Seidel sweep on the 10×10 Laplacian from z = 0 is far from the solution
    // (z_9 = 5 exactly, the first sweep reaches z_9 < 1), so the residual stays ≫ tolerance.
    let p = laplacian(10);
    let opts = Options {
        max_iterations: 1,
        ..options()
    };
    let s = Pgs.solve(&p, None, &opts);
    assert_eq!(s.status, Status::IterationLimit);
    assert_eq!(s.stats.iterations, 1);
    assert!(s.stats.residual > opts.tolerance, "{}", s.stats.residual);
    assert_eq!(s.stats.residual, residual(&p, &s.z));
}

#[test]
fn empty_problem_is_solved() {
    let p = Problem::lcp(DMatrix::zeros(0, 0), DVector::zeros(0));
    let s = Pgs.solve(&p, None, &options());
    assert_eq!(s.status, Status::Solved);
    assert_eq!(s.stats.iterations, 0);
}

#[test]
fn name_is_pgs() {
    assert_eq!(Pgs.name(), "pgs");
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
        c.rng_seed = RngSeed::Fixed(0x9e55_e1de_0001);
    }
    c
}

/// K with ‖z − z*‖₂ ≤ K ‖r(z)‖₂ for every z, where z* solves the (mixed) LCP, r is the natural
/// map (min(z_i, w_i) on complementarity rows, w_i on free rows) and M is positive definite
/// (xᵀMx ≥ λ‖x‖₂², λ = λ_min(½(M + Mᵀ)) > 0): K = (1 + ‖M‖₂) / λ.
///
/// Proof sketch (the strongly monotone case of the natural-map error bound, cf. Facchinei &
/// Pang, *Finite-Dimensional Variational Inequalities and Complementarity Problems*, 2003):
/// y = z − r is the projection of z − w onto the feasible box K, so (z* − y)ᵀ(r − w) ≤ 0; z*
/// solves the VI, so (y − z*)ᵀw* ≥ 0. Adding, (z* − y)ᵀr ≤ (z* − y)ᵀM(z − z*); substituting
/// z* − y = z* − z + r gives λ‖z − z*‖² ≤ (z − z*)ᵀM(z − z*) ≤ (1 + ‖M‖₂)‖z − z*‖‖r‖.
fn pd_error_constant(m: &DMatrix<f64>) -> f64 {
    let sym = (m + m.transpose()) * 0.5;
    let lambda = sym.symmetric_eigen().eigenvalues.min();
    assert!(lambda > 0.0, "M is not positive definite: {m}");
    (1.0 + m.clone().singular_values().max()) / lambda
}

/// Unscaled natural map r(z) (free rows: w_i; others: min(z_i, w_i)).
fn natural_map(p: &Problem, z: &DVector<f64>) -> DVector<f64> {
    let w = &p.m * z + &p.q;
    DVector::from_fn(
        p.len(),
        |i, _| if i < p.free { w[i] } else { z[i].min(w[i]) },
    )
}

/// Asserts that `z` is within the error-bound distance of the oracle's unique solution: both
/// are approximate solutions of a positive definite (M)LCP, so by the triangle inequality
/// ‖z − z_oracle‖₂ ≤ K (‖r(z)‖₂ + ‖r(z_oracle)‖₂) with K from [`pd_error_constant`];
/// 1e-12 (1 + ‖z‖₂) absorbs round-off in evaluating the residuals themselves.
fn assert_matches_oracle(p: &Problem, z: &DVector<f64>) -> Result<(), TestCaseError> {
    let solutions = lcp::enumerate(p, 1e-9);
    prop_assert_eq!(
        solutions.len(),
        1,
        "a positive definite (M)LCP has exactly one solution"
    );
    let oracle = &solutions[0].z;
    let k = pd_error_constant(&p.m);
    let bound =
        k * (natural_map(p, z).norm() + natural_map(p, oracle).norm()) + 1e-12 * (1.0 + z.norm());
    let error = (z - oracle).norm();
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

fn oracle_options() -> Options {
    Options {
        tolerance: 1e-10,
        max_iterations: 10_000,
        ..Options::default()
    }
}

proptest! {
    #![proptest_config(proptest_config(256))]

    /// Random SPD LCPs (A Aᵀ + 0.1 I, n ≤ 10): PGS converges (SPD, ω = 1) to the oracle's
    /// unique solution. Observed: at most ~360 sweeps over 3000 such instances.
    #[test]
    fn matches_oracle_on_random_spd(p in lcp::lcp_of_kind(lcp::MatrixKind::Spd, 1..=10)) {
        let s = Pgs.solve(&p, None, &oracle_options());
        prop_assert_eq!(&s.status, &Status::Solved, "{:?}", s.stats);
        assert_matches_oracle(&p, &s.z)?;
    }

    /// The same with over-relaxation ω = 1.5 (still in (0, 2), so still convergent).
    #[test]
    fn matches_oracle_on_random_spd_with_sor(
        p in lcp::lcp_of_kind(lcp::MatrixKind::Spd, 1..=10),
    ) {
        let opts = Options { relaxation: 1.5, ..oracle_options() };
        let s = Pgs.solve(&p, None, &opts);
        prop_assert_eq!(&s.status, &Status::Solved, "{:?}", s.stats);
        assert_matches_oracle(&p, &s.z)?;
    }
}

proptest! {
    #![proptest_config(proptest_config(64))]

    /// Random SPD mixed LCPs (up to 3 free rows): PGS (plain SOR on the free rows) solves and
    /// matches the oracle's unique solution within the error bound.
    #[test]
    fn mixed_lcp_matches_oracle(
        (p, free) in (lcp::lcp_of_kind(lcp::MatrixKind::Spd, 1..=10), 0usize..=3),
    ) {
        let free = free.min(p.len());
        let p = Problem { free, ..p };
        let s = Pgs.solve(&p, None, &oracle_options());
        prop_assert_eq!(&s.status, &Status::Solved, "{:?}", s.stats);
        assert_matches_oracle(&p, &s.z)?;
    }
}
