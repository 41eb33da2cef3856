//! Sparse complementarity problems (`solvers::sparse`) and the sparse assembly of the
//! time-stepping LCP (`contact::stewart_trinkle::assemble_sparse`): the sparse matrix is the dense
//! one entry for entry, its residual is the dense residual, and block Gauss–Seidel on it takes
//! the dense iterates bit for bit.
use nalgebra::{DMatrix, DVector};
use signorini::collision::Contact;
use signorini::contact::stewart_trinkle::{assemble_sparse, Formulation};
use signorini::contact::VelocityProblem;
use signorini::dynamics::jacobian::{delassus, InverseMass};
use signorini::dynamics::Wrench;
use signorini::pipeline::{self, Workspace};
use signorini::scene;
use signorini::solvers::block_gauss_seidel::BlockGaussSeidel;
use signorini::solvers::sparse::{CsrMatrix, SparseProblem};
use signorini::solvers::{residual, Options, Solver};
use std::path::PathBuf;

/// The Stewart–Trinkle LCP (k = 4, h = 1e-3 s) of `examples/NAME` at its initial state, with its
/// Jacobian rows' Delassus matrix computed densely, the number of normal and tangent rows, and
/// each frictional contact's index and μ.
fn scene_lcp(name: &str) -> (SparseProblem, DMatrix<f64>, usize, Vec<(usize, f64)>) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples")
        .join(name);
    let scene = scene::load(&path).unwrap_or_else(|e| panic!("{e}"));
    let (cm, _) = scene.contact_model(Some("stewart-trinkle")).unwrap();
    let (model, state) = (&scene.model, &scene.initial);
    let mut ws = Workspace::new();
    let contacts: Vec<Contact> = pipeline::contacts(model, state, &mut ws, &cm).to_vec();
    let distance = cm.activation_distance(model, state);
    let active: Vec<&Contact> = contacts.iter().filter(|c| c.gap < distance).collect();
    let zero = vec![Wrench::default(); model.bodies.len()];
    let vp = VelocityProblem::new(model, state, 1e-3, &zero);
    let lcp = assemble_sparse(Formulation::StewartTrinkle, 4, &vp, &active, f64::INFINITY);
    let w = delassus(&lcp.rows, &InverseMass::new(model, state));
    let mu = lcp
        .frictional
        .iter()
        .map(|&c| (c, model.friction(active[c].body_a, active[c].body_b)))
        .collect();
    (lcp.problem, w, lcp.rows.len(), mu)
}

#[test]
fn a_csr_matrix_is_its_dense_matrix() {
    // [[2, 0, -1], [0, 0, 0], [4, 5, 0]] with an explicit zero stored at (2, 2).
    let m = CsrMatrix::from_rows(
        3,
        vec![0, 2, 2, 5],
        vec![0, 2, 0, 1, 2],
        vec![2.0, -1.0, 4.0, 5.0, 0.0],
    );
    let dense = DMatrix::from_row_slice(3, 3, &[2.0, 0.0, -1.0, 0.0, 0.0, 0.0, 4.0, 5.0, 0.0]);
    assert_eq!(m.to_dense(), dense);
    assert_eq!((m.n(), m.nnz()), (3, 5));
    for r in 0..3 {
        for c in 0..3 {
            assert_eq!(m.get(r, c), dense[(r, c)], "({r}, {c})");
        }
    }
    let z = DVector::from_vec(vec![1.0, -2.0, 3.0]);
    let q = DVector::from_vec(vec![0.5, 0.25, -1.0]);
    assert_eq!(m.mul_add(&z, &q), &dense * &z + &q);
    // Shifted by 0.5 I: rows with a stored diagonal (0, 2), none before it (1: empty), one after
    // it; `get` (a binary search) finds every entry, so each row's columns stay increasing.
    let shifted = m.shifted(0.5);
    let expected = &dense + DMatrix::identity(3, 3) * 0.5;
    assert_eq!(shifted.to_dense(), expected);
    assert_eq!(shifted.nnz(), 6);
    for r in 0..3 {
        for c in 0..3 {
            assert_eq!(shifted.get(r, c), expected[(r, c)], "({r}, {c})");
        }
    }
}

/// W = G M⁻¹ Gᵀ as assembled sparse is the dense Delassus matrix bit for bit (the same terms
/// summed in the same order); the σ rows and columns carry μ, −1 and +1 exactly where the module
/// documentation puts them; the residual is the dense one.
#[test]
fn the_sparse_assembly_is_the_dense_matrix() {
    for name in ["box_stack.toml", "book_stack.toml"] {
        let (p, w, nw, frictional) = scene_lcp(name);
        let dense = p.to_dense();
        assert_eq!(dense.m.view((0, 0), (nw, nw)).into_owned(), w, "{name}");
        let nf = p.len() - nw; // one σ row per frictional contact
        let nc = nw - 4 * nf;
        assert!(
            nf > 0 && nf == frictional.len(),
            "{name}: {nc} contacts, {nf} frictional"
        );
        for (f, &(c, mu)) in frictional.iter().enumerate() {
            let sigma = nw + f;
            assert_eq!(dense.m[(sigma, c)], mu, "{name}: μ at p_n of contact {c}");
            for j in 0..4 {
                let t = nc + 4 * f + j;
                assert_eq!((dense.m[(t, sigma)], dense.m[(sigma, t)]), (1.0, -1.0));
            }
            // Nothing else in σ's row: μ and the k entries −1.
            assert_eq!(p.m.row(sigma).count(), 1 + 4, "{name}");
        }
        assert!(p.m.nnz() < p.len() * p.len(), "{name}: sparse");
        let z = DVector::from_fn(p.len(), |i, _| (i % 7) as f64 * 0.1);
        let (rs, rd) = (p.residual(&z), residual(&dense, &z));
        assert!(
            (rs - rd).abs() <= 1e-14 * rd.max(1.0),
            "{name}: {rs} vs {rd}"
        );
        assert!(p.check().is_ok());
    }
}

/// Block Gauss–Seidel on the sparse matrix reads the same nonzeros in the same order as on the
/// dense one: the same iterates, the same sweeps, bit for bit.
#[test]
fn block_gauss_seidel_on_the_sparse_matrix_takes_the_dense_iterates() {
    let (p, _, _, _) = scene_lcp("box_stack.toml");
    let dense = p.to_dense();
    let options = Options {
        tolerance: 1e-6,
        max_iterations: 300,
        ..Options::default()
    };
    let warm = DVector::from_fn(p.len(), |i, _| if i < 40 { 1.0 } else { 0.0 });
    for start in [None, Some(&warm)] {
        let s = BlockGaussSeidel.solve_sparse(&p, start, &options);
        let d = BlockGaussSeidel.solve(&dense, start, &options);
        assert_eq!(s.stats.iterations, d.stats.iterations);
        assert_eq!(s.status, d.status);
        let bits = |z: &DVector<f64>| z.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&s.z), bits(&d.z));
    }
}

#[test]
fn a_malformed_sparse_problem_is_named() {
    let m = CsrMatrix::from_rows(2, vec![0, 1, 2], vec![0, 1], vec![1.0, f64::NAN]);
    let p = SparseProblem {
        m,
        q: DVector::from_vec(vec![-1.0, 0.0]),
    };
    assert!(p.check().unwrap_err().contains("non-finite"));
    let s = BlockGaussSeidel.solve_sparse(&p, None, &Options::default());
    assert!(!s.status.is_solved(), "{:?}", s.status);
}

/// Principal pivoting (`sparse::principal_pivoting`) on w = z + q, q = (−1, 2, −3), whose
/// solution is z = (1, 0, 3) on α = {0, 2}: from α = {0, 1}, z₁ = −2 is dropped (round 1), then
/// row 2, violated by w₂ = −3, comes in (round 2). With one round it gives up.
#[test]
fn principal_pivoting_drops_negatives_then_brings_in_the_most_violated_row() {
    use signorini::solvers::sparse::principal_pivoting;
    let identity = CsrMatrix::from_rows(3, vec![0, 1, 2, 3], vec![0, 1, 2], vec![1.0; 3]);
    let q = DVector::from_vec(vec![-1.0, 2.0, -3.0]);
    let r = principal_pivoting(&identity, &q, &[true, true, false], 6, 1e-12, false).unwrap();
    let (z, support, rounds) = (r.z, r.support, r.rounds);
    assert_eq!(r.residual, 0.0);
    assert_eq!(
        (z.as_slice(), support.as_slice(), rounds),
        (&[1.0, 0.0, 3.0][..], &[true, false, true][..], 2)
    );
    assert_eq!(
        principal_pivoting(&identity, &q, &[true, true, false], 1, 1e-12, false).unwrap_err(),
        1
    );
}

/// A singular principal system (M = [[1, 1], [1, 1]], rank 1, as a face's four coplanar corners
/// are rank 3) is solved for its least-norm answer when it is consistent: q = (−1, −1) gives
/// z = (½, ½) in round 0, not one of the vertex answers (1, 0) and (0, 1), exactly in the range
/// of M (z₀ + z₁ = 1 to round-off) and to 1e-6 along its null space: the regularized solve puts
/// round-off amplified by 1/ε there, u/ε = 2.2e-16/1e-9 = 2.2e-7 (measured 2.5e-10). When it is not
/// (q = (−1, −2)), the regularized answer is large and of mixed sign: z₀ < 0 is dropped and
/// z = (0, 2) solves the LCP (w₀ = 1) in round 1. Without `least_norm` a singular principal
/// system ends the repair at once.
#[test]
fn a_singular_principal_system_gets_its_least_norm_answer_or_is_repaired() {
    use signorini::solvers::sparse::principal_pivoting;
    let ones = CsrMatrix::from_rows(2, vec![0, 2, 4], vec![0, 1, 0, 1], vec![1.0; 4]);
    let q = DVector::from_vec(vec![-1.0, -1.0]);
    let r = principal_pivoting(&ones, &q, &[true, true], 6, 1e-12, true).unwrap();
    assert_eq!(r.rounds, 0);
    assert!(
        (r.z[0] + r.z[1] - 1.0).abs() <= 1e-15,
        "{:e} {:e}",
        r.z[0],
        r.z[1]
    );
    assert!(
        (r.z[0] - 0.5).abs() <= 1e-6 && (r.z[1] - 0.5).abs() <= 1e-6,
        "{:e} {:e}",
        r.z[0],
        r.z[1]
    );
    assert!(r.residual <= 1e-15, "{}", r.residual);
    // Without `least_norm` the singular system ends the repair at once.
    assert_eq!(
        principal_pivoting(&ones, &q, &[true, true], 6, 1e-12, false).unwrap_err(),
        0
    );
    let q = DVector::from_vec(vec![-1.0, -2.0]);
    let r = principal_pivoting(&ones, &q, &[true, true], 6, 1e-12, true).unwrap();
    assert_eq!((r.rounds, r.support.as_slice()), (1, &[false, true][..]));
    assert!(r.z[0] == 0.0 && (r.z[1] - 2.0).abs() <= 1e-15, "{}", r.z);
}

/// The 10-box stack's LCP (`box_stack.toml`, h = 1e-3 s) from the support of all forty normal
/// rows, whose principal system is singular (each face's four corners): each face carries the
/// weight of the k = 1 … 10 boxes of m = 1 kg above it over the step, k m g h, to 1e-12 of it,
/// and each of its corners a quarter, to 1e-6 (the least-norm answer up to round-off amplified by
/// the regularization, u/ε = 2.2e-7: `a_singular_principal_system_gets_its_least_norm_answer…`;
/// measured 1.5e-7; a vertex answer puts a third or a half on some corners and 0 on others), and
/// the friction rows carry nothing.
#[test]
fn the_stacks_principal_system_shares_each_face_load_among_its_four_corners() {
    use signorini::solvers::sparse::principal_pivoting;
    let (lcp, _, rows, _) = scene_lcp("box_stack.toml");
    let nc = 40;
    assert!(rows > nc);
    let start: Vec<bool> = (0..lcp.len()).map(|i| i < nc).collect();
    let r = principal_pivoting(&lcp.m, &lcp.q, &start, 0, 1e-8, true).unwrap();
    assert!(r.residual <= 1e-12, "residual {:e}", r.residual);
    let mut normal: Vec<f64> = r.z.iter().take(nc).copied().collect();
    normal.sort_by(f64::total_cmp);
    let quarter = 1.0 * 9.81 * 1e-3 / 4.0;
    for (k, face) in normal.chunks(4).enumerate() {
        let load = (k + 1) as f64 * 4.0 * quarter;
        let sum: f64 = face.iter().sum();
        assert!(
            (sum - load).abs() <= 1e-12 * load,
            "face {k}: {sum:e} vs {load:e}"
        );
        for z in face {
            let expected = load / 4.0;
            assert!(
                (z - expected).abs() <= 1e-6 * expected,
                "face {k}: {z:e} vs {expected:e}"
            );
        }
    }
    assert!(r.z.iter().skip(nc).all(|&z| z == 0.0));
}

/// `SparseLu::from_columns` keeps the symbolic factorization of the last patterns it factored:
/// a matrix of a kept pattern with other values, one of another pattern of the same size, and
/// the first matrix again all solve exactly (3 × 3, integer entries: x is exact in f64), and
/// the first one's answer is bit for bit what it was.
#[test]
fn sparse_lu_reuses_a_pattern_only_for_the_same_pattern() {
    use signorini::solvers::sparse_lu::SparseLu;
    // Column-major (start, rows, values): A = [[2, 0, 1], [1, 3, 0], [0, 1, 4]].
    let start = [0, 2, 4, 6];
    let rows = [0, 1, 1, 2, 0, 2];
    let solve = |start: &[usize], rows: &[usize], values: &[f64], b: [f64; 3]| {
        let lu = SparseLu::from_columns(3, start, rows, values, &b).expect("nonsingular");
        let mut x = b.to_vec();
        lu.solve(&mut x);
        x
    };
    let dense = |start: &[usize], rows: &[usize], values: &[f64]| {
        let mut m = DMatrix::zeros(3, 3);
        for c in 0..3 {
            for k in start[c]..start[c + 1] {
                m[(rows[k], c)] = values[k];
            }
        }
        m
    };
    let b = [3.0, 4.0, 5.0];
    let check = |start: &[usize], rows: &[usize], values: &[f64], x: &[f64]| {
        let ax = dense(start, rows, values) * DVector::from_column_slice(x);
        for i in 0..3 {
            assert!((ax[i] - b[i]).abs() <= 1e-14, "{ax} against {b:?}");
        }
    };
    let a = [2.0, 1.0, 3.0, 1.0, 1.0, 4.0];
    let first = solve(&start, &rows, &a, b);
    check(&start, &rows, &a, &first);
    // The same pattern, other values (row pivoting differs: the first column's larger entry
    // moves to row 1).
    let other = [1.0, 5.0, 2.0, 7.0, 3.0, 1.0];
    check(&start, &rows, &other, &solve(&start, &rows, &other, b));
    // Another pattern of the same size: [[1, 2, 0], [0, 1, 0], [3, 0, 1]].
    let (start2, rows2, values2) = ([0, 2, 4, 5], [0, 2, 0, 1, 2], [1.0, 3.0, 2.0, 1.0, 1.0]);
    check(
        &start2,
        &rows2,
        &values2,
        &solve(&start2, &rows2, &values2, b),
    );
    assert_eq!(solve(&start, &rows, &a, b), first);
}

/// A Delassus-like matrix W = J Jᵀ whose `rows` rows each touch one or two of `bodies`
/// consecutive 6-blocks (a chain, as a stack's contacts touch the boxes above and below), so W is
/// banded and has exact zeros between rows that share no block; rank ≤ 6 × bodies.
fn chain_delassus(rng: &mut signorini::util::rng::Rng, rows: usize, bodies: usize) -> DMatrix<f64> {
    let mut j = DMatrix::zeros(rows, 6 * bodies);
    for r in 0..rows {
        let b = r * bodies / rows;
        for k in 0..6 {
            j[(r, 6 * b + k)] = rng.uniform(-1.0, 1.0);
            if b + 1 < bodies {
                j[(r, 6 * (b + 1) + k)] = rng.uniform(-1.0, 1.0);
            }
        }
    }
    &j * j.transpose()
}

/// The matrix of a test, declared symmetric (`LcpMatrix::symmetric_rows`): its least-norm
/// principal systems go through the banded Cholesky of `solvers::lemke`, the plain matrix's
/// through LU.
struct Symmetric(DMatrix<f64>);

impl signorini::solvers::sparse::LcpMatrix for Symmetric {
    fn n(&self) -> usize {
        self.0.nrows()
    }
    fn get(&self, r: usize, c: usize) -> f64 {
        self.0[(r, c)]
    }
    fn mul_add(&self, z: &DVector<f64>, q: &DVector<f64>) -> DVector<f64> {
        &self.0 * z + q
    }
    fn symmetric_rows(&self) -> usize {
        self.0.nrows()
    }
}

/// The symmetric (Cholesky) least-norm solve against the general (LU) one and the
/// pseudo-inverse, on banded W of a chain of bodies: nonsingular (24 rows on 5 bodies: rank
/// 24 ≤ 30) the two agree with W⁻¹(−q) to 1e-10 of it; singular and consistent (40 rows on 5
/// bodies: rank 30, q = −W y) each is the least-norm answer W⁺(−q) to 1e-6 of it — the
/// round-off u/ε ≈ 2.2e-7 the shift amplifies along the null space
/// (`a_singular_principal_system_gets_its_least_norm_answer_or_is_repaired`).
#[test]
fn the_symmetric_least_norm_solve_is_the_general_one_and_the_pseudo_inverse() {
    use signorini::solvers::sparse::LcpMatrix;
    let mut rng = signorini::util::rng::Rng::new(7);
    for (rows, singular) in [(24, false), (40, true)] {
        for _ in 0..5 {
            let w = chain_delassus(&mut rng, rows, 5);
            assert!(w[(0, rows - 1)] == 0.0, "the test matrix is banded");
            let q = if singular {
                let y = DVector::from_fn(rows, |_, _| rng.uniform(0.0, 1.0));
                -(&w * y)
            } else {
                DVector::from_fn(rows, |_, _| rng.uniform(-1.0, 0.0))
            };
            let exact = w.clone().pseudo_inverse(1e-10).unwrap() * (-&q);
            let all = vec![true; rows];
            let symmetric = Symmetric(w.clone())
                .least_norm_principal_solution(&all, &q)
                .unwrap();
            let general = w.least_norm_principal_solution(&all, &q).unwrap();
            let scale = exact.amax();
            let tolerance = if singular { 1e-6 } else { 1e-10 };
            for (name, z) in [("symmetric", &symmetric), ("general", &general)] {
                let error = (z - &exact).amax() / scale;
                assert!(
                    error <= tolerance,
                    "{name}, {rows} rows: {error:e} from W⁺(−q)"
                );
            }
        }
    }
}
