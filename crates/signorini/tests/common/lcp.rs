//! Test support for the complementarity solvers: an exhaustive-enumeration oracle for small
//! (M)LCPs, random instance generators (seeded, and as proptest strategies) and solution checks.
//!
//! Use it from a test file with `#[path = "common/lcp.rs"] mod lcp;`. Self-contained: only
//! nalgebra, proptest and `signorini::solvers`.
#![allow(dead_code)]

use nalgebra::{DMatrix, DVector};
use proptest::prelude::*;
use signorini::solvers::Problem;

/// Largest problem the enumeration oracle accepts: it visits 2ⁿ index sets.
pub const ORACLE_MAX_LEN: usize = 10;

/// Relative singular-value cutoff of the oracle's principal solves: a principal block whose
/// singular values fall below this fraction of the largest is treated as singular (its system is
/// then solved in the least-squares sense and kept only if consistent).
const ORACLE_RANK_TOL: f64 = 1e-10;

/// One solution found by the oracle.
#[derive(Clone, Debug)]
pub struct OracleSolution {
    /// The solution.
    pub z: DVector<f64>,
    /// w = M z + q at that solution.
    pub w: DVector<f64>,
    /// The complementary index set α whose principal system produced it (free rows included).
    pub basis: Vec<bool>,
}

/// A dense matrix from rows (nalgebra's `dmatrix!` needs a feature this workspace leaves off).
pub fn mat(rows: &[&[f64]]) -> DMatrix<f64> {
    let n = rows.len();
    let m = rows.first().map_or(0, |r| r.len());
    assert!(rows.iter().all(|r| r.len() == m), "ragged rows");
    DMatrix::from_fn(n, m, |i, j| rows[i][j])
}

/// A vector from a slice.
pub fn vector(v: &[f64]) -> DVector<f64> {
    DVector::from_column_slice(v)
}

/// w = M z + q.
pub fn w_of(problem: &Problem, z: &DVector<f64>) -> DVector<f64> {
    &problem.m * z + &problem.q
}

/// Absolute tolerance scale of a problem: max(1, ‖q‖∞, ‖M‖max).
pub fn data_scale(problem: &Problem) -> f64 {
    1f64.max(problem.q.amax()).max(problem.m.amax())
}

/// Every solution the enumeration finds, deduplicated (two solutions are the same when their z
/// agree to `tol`·scale). For each complementary index set α ⊇ free rows, solve the principal
/// system M_αα z_α = −q_α (z = 0 off α) and keep z when z_α ≥ −tol (complementarity rows) and
/// w_ᾱ ≥ −tol, with tol = `tol`·[`data_scale`]. A singular principal system is solved by the
/// pseudo-inverse and kept only if consistent, so an instance whose solutions all need a singular
/// basis may still be reported as having none: for P-matrices (all bases nonsingular) and
/// symmetric PSD matrices (some solution always has a nonsingular basis, by moving along the null
/// space of M) the enumeration is complete. Empty result = no solution found.
///
/// Panics when the problem has more than [`ORACLE_MAX_LEN`] complementarity rows.
pub fn enumerate(problem: &Problem, tol: f64) -> Vec<OracleSolution> {
    let n = problem.len();
    let nf = problem.free;
    let nc = n - nf;
    assert!(
        nc <= ORACLE_MAX_LEN,
        "oracle limited to {ORACLE_MAX_LEN} rows"
    );
    let abs_tol = tol * data_scale(problem);
    let mut found: Vec<OracleSolution> = Vec::new();
    for mask in 0u32..(1u32 << nc) {
        let basis: Vec<bool> = (0..n)
            .map(|i| i < nf || mask & (1 << (i - nf)) != 0)
            .collect();
        let Some(z) = principal_solve(problem, &basis, abs_tol) else {
            continue;
        };
        let w = w_of(problem, &z);
        let ok = (nf..n).all(|i| {
            if basis[i] {
                z[i] >= -abs_tol
            } else {
                w[i] >= -abs_tol
            }
        });
        if !ok {
            continue;
        }
        if found
            .iter()
            .any(|s| (&s.z - &z).amax() <= abs_tol.max(tol * z.amax()))
        {
            continue;
        }
        found.push(OracleSolution { z, w, basis });
    }
    found
}

/// [`enumerate`] for a plain LCP(M, q).
pub fn enumerate_lcp(m: &DMatrix<f64>, q: &DVector<f64>, tol: f64) -> Vec<OracleSolution> {
    enumerate(&Problem::lcp(m.clone(), q.clone()), tol)
}

/// z with z_α solving M_αα z_α = −q_α (pseudo-inverse when singular; None when inconsistent).
fn principal_solve(problem: &Problem, basis: &[bool], abs_tol: f64) -> Option<DVector<f64>> {
    let n = problem.len();
    let idx: Vec<usize> = (0..n).filter(|&i| basis[i]).collect();
    let k = idx.len();
    let mut z = DVector::zeros(n);
    if k == 0 {
        return Some(z);
    }
    let a = DMatrix::from_fn(k, k, |r, c| problem.m[(idx[r], idx[c])]);
    let b = DVector::from_fn(k, |r, _| -problem.q[idx[r]]);
    let svd = a.clone().svd(true, true);
    let smax = svd.singular_values.max();
    let eps = (ORACLE_RANK_TOL * smax).max(1e-300);
    let za = svd.solve(&b, eps).ok()?;
    // Consistency: a singular system solved in the least-squares sense may not satisfy it.
    if (&a * &za - &b).amax() > abs_tol.max(1e-9 * za.amax()) {
        return None;
    }
    for (r, &i) in idx.iter().enumerate() {
        z[i] = za[r];
    }
    Some(z)
}

/// Why `z` is not a solution of `problem` to absolute tolerance `tol`, if it is not:
/// z_i ≥ −tol and w_i ≥ −tol and |z_i w_i| ≤ tol on complementarity rows, |w_i| ≤ tol on free
/// rows, w = Mz + q.
pub fn check_solution(problem: &Problem, z: &DVector<f64>, tol: f64) -> Result<(), String> {
    if z.len() != problem.len() {
        return Err(format!(
            "z has {} entries, problem has {}",
            z.len(),
            problem.len()
        ));
    }
    let w = w_of(problem, z);
    for i in 0..problem.len() {
        if i < problem.free {
            if w[i].is_nan() || w[i].abs() > tol {
                return Err(format!("free row {i}: w = {:e}", w[i]));
            }
            continue;
        }
        if z[i].is_nan() || z[i] < -tol {
            return Err(format!("row {i}: z = {:e} < 0", z[i]));
        }
        if w[i].is_nan() || w[i] < -tol {
            return Err(format!("row {i}: w = {:e} < 0", w[i]));
        }
        if (z[i] * w[i]).abs() > tol {
            return Err(format!(
                "row {i}: z·w = {:e} (z = {:e}, w = {:e})",
                z[i] * w[i],
                z[i],
                w[i]
            ));
        }
    }
    Ok(())
}

/// [`check_solution`] for a plain LCP(M, q).
pub fn check_lcp_solution(
    m: &DMatrix<f64>,
    q: &DVector<f64>,
    z: &DVector<f64>,
    tol: f64,
) -> Result<(), String> {
    check_solution(&Problem::lcp(m.clone(), q.clone()), z, tol)
}

// ---------------------------------------------------------------------------------------------
// Seeded generators (no `rand` dependency: SplitMix64).

/// A small deterministic random source (SplitMix64), so instances are reproducible from a seed.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut x = self.0;
        x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        x ^ (x >> 31)
    }

    /// Uniform in [0, 1).
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Uniform in [lo, hi).
    pub fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.unit()
    }

    /// Uniform in lo..=hi.
    pub fn index(&mut self, lo: usize, hi: usize) -> usize {
        lo + (self.next_u64() % (hi - lo + 1) as u64) as usize
    }
}

/// rows × cols with entries uniform in [−1, 1).
pub fn random_matrix(rng: &mut Rng, rows: usize, cols: usize) -> DMatrix<f64> {
    DMatrix::from_fn(rows, cols, |_, _| rng.uniform(-1.0, 1.0))
}

/// n entries uniform in [−1, 1).
pub fn random_q(rng: &mut Rng, n: usize) -> DVector<f64> {
    DVector::from_fn(n, |_, _| rng.uniform(-1.0, 1.0))
}

/// Symmetric positive definite: A Aᵀ + 0.1 I, A uniform in [−1, 1).
pub fn spd(rng: &mut Rng, n: usize) -> DMatrix<f64> {
    let a = random_matrix(rng, n, n);
    &a * a.transpose() + DMatrix::identity(n, n) * 0.1
}

/// Symmetric positive semidefinite of rank `rank` < n (for rank < n): B Bᵀ, B n × rank.
pub fn psd(rng: &mut Rng, n: usize, rank: usize) -> DMatrix<f64> {
    let b = random_matrix(rng, n, rank);
    &b * b.transpose()
}

/// Non-symmetric P-matrix: strictly row diagonally dominant with a positive diagonal
/// (every principal submatrix is again such a matrix, so its determinant is positive).
pub fn p_matrix_dominant(rng: &mut Rng, n: usize) -> DMatrix<f64> {
    let mut m = random_matrix(rng, n, n);
    for i in 0..n {
        let off: f64 = (0..n).filter(|&j| j != i).map(|j| m[(i, j)].abs()).sum();
        m[(i, i)] = off + rng.uniform(0.1, 1.0);
    }
    m
}

/// Non-symmetric P-matrix: symmetric positive definite plus skew-symmetric (xᵀMx = xᵀSx > 0, so
/// M is positive definite, hence a P-matrix), not diagonally dominant in general.
pub fn p_matrix_pd_skew(rng: &mut Rng, n: usize) -> DMatrix<f64> {
    let s = spd(rng, n);
    let k = random_matrix(rng, n, n);
    s + (&k - k.transpose())
}

/// Murty's example for Lemke's method (K. G. Murty, "Computational complexity of complementary
/// pivot methods", Math. Programming Study 7, 1978; Murty, *Linear Complementarity, Linear and
/// Nonlinear Programming*, ch. 6): M lower triangular with 1 on the diagonal and 2 below it,
/// qᵢ = −(2ⁿ + 2ⁿ⁻¹ + … + 2ⁿ⁻ⁱ⁺¹) (1-based i). Lemke's method with d = (1, …, 1) takes 2ⁿ pivots.
/// M is a P-matrix (triangular, unit diagonal); the unique solution is z = 2ⁿ e₁, with
/// w = (0, 2ⁿ⁻¹, 2ⁿ⁻², …, 2).
pub fn murty(n: usize) -> (DMatrix<f64>, DVector<f64>) {
    let m = DMatrix::from_fn(n, n, |i, j| match i.cmp(&j) {
        std::cmp::Ordering::Equal => 1.0,
        std::cmp::Ordering::Greater => 2.0,
        std::cmp::Ordering::Less => 0.0,
    });
    let q = DVector::from_fn(n, |i, _| {
        -(0..=i).map(|k| 2f64.powi((n - k) as i32)).sum::<f64>()
    });
    (m, q)
}

/// The transposed form with q = −(1, …, 1): M upper triangular with 1 on the diagonal and 2
/// above. Unique solution z = e_n, w = (1, …, 1, 0). Every qᵢ ties in Lemke's first ratio test,
/// so how many pivots it takes depends on the tie-breaking rule.
pub fn murty_upper(n: usize) -> (DMatrix<f64>, DVector<f64>) {
    let m = DMatrix::from_fn(n, n, |i, j| match i.cmp(&j) {
        std::cmp::Ordering::Equal => 1.0,
        std::cmp::Ordering::Less => 2.0,
        std::cmp::Ordering::Greater => 0.0,
    });
    (m, DVector::from_element(n, -1.0))
}

// ---------------------------------------------------------------------------------------------
// Proptest strategies: an (n, seed) pair drawn by proptest, expanded by the seeded generators.

/// Kinds of random LCP matrix.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MatrixKind {
    /// Symmetric positive definite ([`spd`]).
    Spd,
    /// Symmetric positive semidefinite, rank-deficient ([`psd`] with rank < n).
    Psd,
    /// Row diagonally dominant P-matrix ([`p_matrix_dominant`]).
    PDominant,
    /// Positive definite + skew P-matrix ([`p_matrix_pd_skew`]).
    PSkew,
}

/// A random LCP of the given kind with n in `sizes`; q uniform in [−1, 1).
pub fn lcp_of_kind(
    kind: MatrixKind,
    sizes: std::ops::RangeInclusive<usize>,
) -> impl Strategy<Value = Problem> {
    (sizes, any::<u64>()).prop_map(move |(n, seed)| random_lcp(kind, n, seed))
}

/// The LCP [`lcp_of_kind`] draws for (kind, n, seed).
pub fn random_lcp(kind: MatrixKind, n: usize, seed: u64) -> Problem {
    let mut rng = Rng::new(seed);
    let m = match kind {
        MatrixKind::Spd => spd(&mut rng, n),
        MatrixKind::Psd => {
            let rank = if n > 1 { rng.index(1, n - 1) } else { 0 };
            psd(&mut rng, n, rank)
        }
        MatrixKind::PDominant => p_matrix_dominant(&mut rng, n),
        MatrixKind::PSkew => p_matrix_pd_skew(&mut rng, n),
    };
    let q = random_q(&mut rng, n);
    Problem::lcp(m, q)
}

/// A random P-matrix LCP (either construction) with n in `sizes`.
pub fn p_matrix_lcp(sizes: std::ops::RangeInclusive<usize>) -> impl Strategy<Value = Problem> {
    prop_oneof![
        lcp_of_kind(MatrixKind::PDominant, sizes.clone()),
        lcp_of_kind(MatrixKind::PSkew, sizes),
    ]
}

/// A small-integer copositive-plus LCP built to be degenerate: M = B Bᵀ + (K − Kᵀ) with B, K
/// entries in {−1, 0, 1} (positive semidefinite plus skew-symmetric; `symmetric` drops K) and
/// q entries in {−1, 0}, so ratio tests tie often and bases are degenerate.
pub fn degenerate_integer_lcp(n: usize, symmetric: bool, seed: u64) -> Problem {
    let mut rng = Rng::new(seed);
    let mut small = || rng.index(0, 2) as f64 - 1.0;
    let b = DMatrix::from_fn(n, n, |_, _| small());
    let k = DMatrix::from_fn(n, n, |_, _| small());
    let mut m = &b * b.transpose();
    if !symmetric {
        m += &k - k.transpose();
    }
    let q = DVector::from_fn(n, |_, _| -(rng.index(0, 1) as f64));
    Problem::lcp(m, q)
}

/// [`degenerate_integer_lcp`] as a strategy: (problem, whether it is symmetric).
pub fn degenerate_lcp(
    sizes: std::ops::RangeInclusive<usize>,
) -> impl Strategy<Value = (Problem, bool)> {
    (sizes, any::<bool>(), any::<u64>())
        .prop_map(|(n, symmetric, seed)| (degenerate_integer_lcp(n, symmetric, seed), symmetric))
}
