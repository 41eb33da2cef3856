//! The velocity-space Newton solve of `solvers::convex` against the exhaustive LCP oracle of its
//! dual problem, on random small problems, and on a box resting on four frictionless contacts
//! (an analytic answer).
#[path = "common/lcp.rs"]
mod lcp;

use nalgebra::{DMatrix, DVector, Matrix6, Vector6};
use proptest::prelude::*;
use proptest::test_runner::{Config as ProptestConfig, RngSeed};
use signorini::dynamics::jacobian::JacobianRow;
use signorini::solvers::convex::{self, ConvexOptions, ConvexProblem};
use signorini::solvers::Status;

fn row(blocks: &[(usize, [f64; 6])]) -> JacobianRow {
    JacobianRow {
        blocks: blocks.iter().map(|&(node, b)| (6 * node, b)).collect(),
    }
}

/// The dual of the QP: W = A M⁻¹ Aᵀ, q = A ν* + b (rows of A dense over 6 × nodes).
fn dual(
    mass: &[Matrix6<f64>],
    free: &[f64],
    rows: &[JacobianRow],
    bias: &[f64],
) -> (DMatrix<f64>, DVector<f64>, DMatrix<f64>) {
    let n = 6 * mass.len();
    let a = DMatrix::from_fn(rows.len(), n, |e, j| {
        rows[e]
            .blocks
            .iter()
            .find(|(o, _)| (*o..o + 6).contains(&j))
            .map_or(0.0, |(o, b)| b[j - o])
    });
    let mut m_inv = DMatrix::zeros(n, n);
    for (k, m) in mass.iter().enumerate() {
        let inv = m.try_inverse().unwrap();
        m_inv.view_mut((6 * k, 6 * k), (6, 6)).copy_from(&inv);
    }
    let w = &a * &m_inv * a.transpose();
    let q = &a * DVector::from_column_slice(free) + DVector::from_column_slice(bias);
    (w, q, m_inv * a.transpose())
}

/// A random SPD 6 × 6 block: B Bᵀ + I.
fn spd(seed: &[f64; 36]) -> Matrix6<f64> {
    let b = Matrix6::from_column_slice(seed);
    b * b.transpose() + Matrix6::identity()
}

/// A problem the oracle can check: 1–3 nodes, 1–8 rows of one or two nodes, feasible by
/// construction (b_e = −A_e ν₀ + s_e with s_e > 0 for a random ν₀, so ν₀ meets every row).
#[allow(clippy::type_complexity)]
fn problems() -> impl Strategy<Value = (Vec<Matrix6<f64>>, Vec<f64>, Vec<JacobianRow>, Vec<f64>)> {
    (1usize..=3, 1usize..=8).prop_flat_map(|(nodes, rows)| {
        (
            prop::collection::vec(prop::array::uniform32(-1.0f64..1.0), nodes),
            prop::collection::vec(-1.0f64..1.0, 6 * nodes),
            prop::collection::vec(-1.0f64..1.0, 6 * nodes),
            prop::collection::vec(
                (
                    0..nodes,
                    0..nodes,
                    prop::array::uniform6(-1.0f64..1.0),
                    prop::array::uniform6(-1.0f64..1.0),
                    0.0f64..0.5,
                ),
                rows,
            ),
        )
            .prop_map(move |(seeds, free, nu0, rows)| {
                let mass: Vec<Matrix6<f64>> = seeds
                    .iter()
                    .map(|s| {
                        let mut full = [0.0; 36];
                        full[..32].copy_from_slice(s);
                        spd(&full)
                    })
                    .collect();
                let (mut jr, mut bias) = (Vec::new(), Vec::new());
                for (p, q, bp, bq, slack) in rows {
                    let r = if p == q {
                        row(&[(p, bp)])
                    } else {
                        row(&[(p, bp), (q, bq)])
                    };
                    bias.push(-r.dot(&nu0) + slack);
                    jr.push(r);
                }
                (mass, free, jr, bias)
            })
    })
}

fn config() -> ProptestConfig {
    let mut c = ProptestConfig::with_cases(200);
    c.rng_seed = RngSeed::Fixed(0xc0_11ec_5e);
    c
}

proptest! {
    #![proptest_config(config())]

    /// ν is unique (M is positive definite), so the Newton answer must be the oracle's
    /// ν* + M⁻¹ Aᵀ λ for any solution λ of the dual LCP. 1e-8 of the data: the solve ends at a
    /// KKT residual of 1e-12 of ‖q‖∞ on problems whose W has entries of order 1–10.
    #[test]
    fn the_velocity_is_the_dual_lcps((mass, free, rows, bias) in problems()) {
        let p = ConvexProblem { mass: &mass, free_velocity: &free, rows: &rows, bias: &bias };
        let options = ConvexOptions { tolerance: 1e-12, ..ConvexOptions::default() };
        let s = convex::solve(&p, None, &options);
        prop_assert!(s.status.is_solved(), "{} after {} steps, residual {:e}", s.status, s.iterations, s.residual);
        prop_assert!(s.impulses.iter().all(|&l| l >= 0.0));
        let (w, q, m_inv_at) = dual(&mass, &free, &rows, &bias);
        let solutions = lcp::enumerate_lcp(&w, &q, 1e-10);
        prop_assert!(!solutions.is_empty(), "the oracle found no solution of a feasible problem");
        let nu = DVector::from_column_slice(&free) + &m_inv_at * &solutions[0].z;
        let scale = 1.0 + nu.amax();
        let error = (DVector::from_column_slice(&s.velocity) - &nu).amax();
        prop_assert!(error <= 1e-8 * scale, "ν differs by {error:e}");
        // Every row is met, and its impulse is zero where it is not tight.
        for (e, r) in rows.iter().enumerate() {
            let g = r.dot(&s.velocity) + bias[e];
            prop_assert!(g >= -1e-9 * scale, "row {e} violated: {g:e}");
        }
    }

    /// An answer reported solved is one: its impulses make its velocity,
    /// ν = ν* + M⁻¹ Σ A_eᵀ λ_e, whatever Newton budget it was given. A budget that runs out
    /// inside a subproblem leaves ν short of the minimiser, and a multiplier update from there
    /// can meet a loose tolerance with impulses far from ν (module doc, "Ends"): such a solve must
    /// end `IterationLimit`, with a residual no smaller than that imbalance. Bound: 1e-6 of the
    /// data's scale; at a subproblem's minimiser the two differ by round-off amplified by the
    /// penalty (ρ ≤ 1e8 times ~1e-16).
    #[test]
    fn a_solved_answers_impulses_make_its_velocity((mass, free, rows, bias) in problems()) {
        let p = ConvexProblem { mass: &mass, free_velocity: &free, rows: &rows, bias: &bias };
        let (_, q, m_inv_at) = dual(&mass, &free, &rows, &bias);
        for budget in 1..=12 {
            let options = ConvexOptions { tolerance: 1e-2, max_iterations: budget, ..ConvexOptions::default() };
            let s = convex::solve(&p, None, &options);
            let made = DVector::from_column_slice(&free) + &m_inv_at * DVector::from_column_slice(&s.impulses);
            let nu = DVector::from_column_slice(&s.velocity);
            if s.status.is_solved() {
                let scale = 1.0 + nu.amax();
                let error = (made - nu).amax();
                prop_assert!(error <= 1e-6 * scale, "budget {budget}: impulses make a velocity {error:e} from ν");
            } else if s.status == Status::IterationLimit {
                // A failed answer's residual counts its imbalance, row by row, over ‖q‖∞.
                let apart = made - nu;
                let worst = rows.iter().map(|r| r.dot(apart.as_slice()).abs()).fold(0.0, f64::max);
                prop_assert!(
                    s.residual * q.amax() >= worst * (1.0 - 1e-9),
                    "budget {budget}: residual {:e} below the imbalance {:e}", s.residual, worst / q.amax()
                );
            }
        }
    }

    /// Started from its own answer's impulses, the solve is done at once, or after one
    /// subproblem when rebuilding ν = ν* + M⁻¹ Aᵀ λ from λ misses the tolerance by round-off
    /// (the residual is scaled by ‖A ν* + b‖∞, which can be far smaller than the terms that
    /// cancel in it); a cold start takes several.
    #[test]
    fn a_warm_start_at_the_answer_takes_no_step((mass, free, rows, bias) in problems()) {
        let p = ConvexProblem { mass: &mass, free_velocity: &free, rows: &rows, bias: &bias };
        let options = ConvexOptions { tolerance: 1e-10, ..ConvexOptions::default() };
        let cold = convex::solve(&p, None, &ConvexOptions { tolerance: 1e-13, ..options });
        prop_assume!(cold.status.is_solved());
        let warm = convex::solve(&p, Some(&cold.impulses), &options);
        prop_assert!(warm.status.is_solved());
        prop_assert!(warm.status.is_solved());
        prop_assert!(warm.updates <= 1, "{} updates from the answer", warm.updates);
    }

    /// One `Prepared` problem solved for a sequence of biases (as `anitescu-convex`'s slip
    /// passes do) with one `Workspace` (H and its factor kept from solve to solve, only the
    /// changed columns refactored): every answer is the fresh solve's velocity to 1e-8, the
    /// oracle test's tolerance for two answers of the same problem.
    #[test]
    fn solves_sharing_a_workspace_are_fresh_solves((mass, free, rows, bias) in problems(), shifts in prop::collection::vec(-0.2f64..0.2, 8 * 3)) {
        let options = ConvexOptions { tolerance: 1e-10, ..ConvexOptions::default() };
        let first = ConvexProblem { mass: &mass, free_velocity: &free, rows: &rows, bias: &bias };
        let prepared = convex::Prepared::new(&first).map_err(|_| TestCaseError::fail("malformed"))?;
        let mut workspace = convex::Workspace::default();
        let mut warm: Option<Vec<f64>> = None;
        for pass in 0..3 {
            // A shift of at most 0.2 m/s of each row keeps the rows feasible (they meet ν₀ with
            // slack up to 1 m/s, `problems`) where it is positive; a negative one may not.
            let b: Vec<f64> = bias.iter().enumerate().map(|(e, &b)| b + shifts[8 * pass + e].max(0.0)).collect();
            let p = ConvexProblem { mass: &mass, free_velocity: &free, rows: &rows, bias: &b };
            let kept = prepared.solve_in(&mut workspace, &p, warm.as_deref(), &options);
            let fresh = convex::solve(&p, None, &options);
            prop_assume!(fresh.status.is_solved());
            prop_assert!(kept.status.is_solved(), "{}", kept.status);
            for (a, f) in kept.velocity.iter().zip(&fresh.velocity) {
                prop_assert!((a - f).abs() <= 1e-8 * (1.0 + f.abs()), "{a} against {f}");
            }
            warm = Some(kept.impulses);
        }
    }
}

/// The resting box's (m, g, h), M, ν* (at rest, gravity over one step) and its four corners'
/// normal rows, with the corners' (x, y) signs.
type RestingBox = (
    (f64, f64, f64),
    Matrix6<f64>,
    [f64; 6],
    Vec<JacobianRow>,
    [(f64, f64); 4],
);

/// A 2 kg, 0.4 m cube on the ground on its four bottom corners, frictionless, h = 0.01 s.
fn resting_box() -> RestingBox {
    let (m, s, g, h) = (2.0, 0.4, 9.81, 0.01);
    let inertia = m * s * s / 6.0;
    let mut mass = Matrix6::zeros();
    for i in 0..3 {
        mass[(i, i)] = m;
        mass[(3 + i, 3 + i)] = inertia;
    }
    let free = [0.0, 0.0, -g * h, 0.0, 0.0, 0.0];
    let corners = [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)];
    // Row of the corner r = (x, y, −s/2) along +z: [n, r × n].
    let rows: Vec<JacobianRow> = corners
        .iter()
        .map(|&(x, y)| {
            let r = Vector6::new(0.0, 0.0, 1.0, y * s / 2.0, -x * s / 2.0, 0.0);
            row(&[(0, r.into())])
        })
        .collect();
    ((m, g, h), mass, free, rows, corners)
}

/// A 2 kg, 0.4 m cube on the ground on its four bottom corners, frictionless, one step of
/// h = 0.01 s from rest: ν⁺ = 0 and the impulses carry m g h (N s) with no moment. The four
/// normal rows span three directions (rank 3), so the impulses are not unique; their sum and
/// moment are. Tolerances: the solve's own, 1e-12 of ‖q‖∞ = g h on each row's velocity, so ν
/// (the rows' velocities combined with weights up to 2/s = 5) within 1e-11 g h, and the sum and
/// moments of the impulses (m v_z off m g h) within 1e-11 of m g h.
#[test]
fn a_resting_box_stops_and_its_four_corners_carry_its_weight() {
    let ((m, g, h), mass, free, rows, corners) = resting_box();
    let bias = [0.0; 4];
    let p = ConvexProblem {
        mass: &[mass],
        free_velocity: &free,
        rows: &rows,
        bias: &bias,
    };
    let options = ConvexOptions {
        tolerance: 1e-12,
        ..ConvexOptions::default()
    };
    for warm in [None, Some(&[m * g * h; 4][..])] {
        let sol = convex::solve(&p, warm, &options);
        assert!(sol.status.is_solved(), "{}", sol.status);
        for v in &sol.velocity {
            assert!(v.abs() <= 1e-11 * g * h, "ν = {:?}", sol.velocity);
        }
        let total: f64 = sol.impulses.iter().sum();
        assert!(
            (total - m * g * h).abs() <= 1e-11 * m * g * h,
            "Σλ = {total}"
        );
        let moment_x: f64 = corners
            .iter()
            .zip(&sol.impulses)
            .map(|((_, y), l)| y * l)
            .sum();
        let moment_y: f64 = corners
            .iter()
            .zip(&sol.impulses)
            .map(|((x, _), l)| x * l)
            .sum();
        assert!(moment_x.abs() <= 1e-11 * m * g * h && moment_y.abs() <= 1e-11 * m * g * h);
    }
}

/// A row that nothing can meet (both its bodies are fixed, so it has no blocks, and its bias is
/// negative) ends the solve short of the tolerance with the residual saying so; a non-finite or
/// mis-shaped input is refused.
#[test]
fn an_unmeetable_row_fails_and_bad_input_is_refused() {
    let mass = [Matrix6::identity()];
    let free = [0.0; 6];
    let rows = [
        row(&[(0, [0.0, 0.0, 1.0, 0.0, 0.0, 0.0])]),
        JacobianRow {
            blocks: Default::default(),
        },
    ];
    let p = ConvexProblem {
        mass: &mass,
        free_velocity: &free,
        rows: &rows,
        bias: &[0.0, -1.0],
    };
    let s = convex::solve(&p, None, &ConvexOptions::default());
    assert!(!s.status.is_solved());
    assert!(s.residual >= 0.5, "residual {}", s.residual);

    let nan = [f64::NAN, 0.0, 0.0, 0.0, 0.0, 0.0];
    let p = ConvexProblem {
        mass: &mass,
        free_velocity: &nan,
        rows: &rows[..1],
        bias: &[0.0],
    };
    assert!(matches!(
        convex::solve(&p, None, &ConvexOptions::default()).status,
        Status::BadProblem(_)
    ));
    let p = ConvexProblem {
        mass: &mass,
        free_velocity: &free,
        rows: &rows[..1],
        bias: &[0.0, 1.0],
    };
    assert!(matches!(
        convex::solve(&p, None, &ConvexOptions::default()).status,
        Status::BadProblem(_)
    ));
    let singular = [Matrix6::zeros()];
    let p = ConvexProblem {
        mass: &singular,
        free_velocity: &free,
        rows: &rows[..1],
        bias: &[0.0],
    };
    assert!(matches!(
        convex::solve(&p, None, &ConvexOptions::default()).status,
        Status::BadProblem(_)
    ));
}

/// The resting box above, solved from last step's impulses after its position term changed by
/// 1e-9 m/s on every corner (a resting face's ψ/h from one step to the next: the box may sink
/// by 1e-9 m/s and the four corners still carry it): the warm start misses the tolerance, and
/// each subproblem's first try of the multipliers' active set (all four corners) is its
/// minimiser, so every subproblem takes one factorization: Newton steps = multiplier updates
/// (module documentation, "The first steps"). The answer meets its rows to the tolerance.
#[test]
fn a_warm_start_off_by_a_small_bias_change_is_finished_by_its_active_set_guess() {
    let ((_, g, h), mass, free, rows, _) = resting_box();
    let options = ConvexOptions {
        tolerance: 1e-12,
        ..ConvexOptions::default()
    };
    let at_rest = [0.0; 4];
    let p = ConvexProblem {
        mass: &[mass],
        free_velocity: &free,
        rows: &rows,
        bias: &at_rest,
    };
    let last = convex::solve(&p, None, &options);
    assert!(last.status.is_solved(), "{}", last.status);
    let moved = [1e-9; 4];
    let p = ConvexProblem {
        mass: &[mass],
        free_velocity: &free,
        rows: &rows,
        bias: &moved,
    };
    let sol = convex::solve(&p, Some(&last.impulses), &options);
    assert!(sol.status.is_solved(), "{}", sol.status);
    assert!(sol.updates >= 1, "the warm start should miss the tolerance");
    assert_eq!(
        sol.iterations, sol.updates,
        "{} Newton steps for {} updates",
        sol.iterations, sol.updates
    );
    for (r, b) in rows.iter().zip(&moved) {
        assert!(r.dot(&sol.velocity) + b >= -1e-12 * g * h);
    }
}
