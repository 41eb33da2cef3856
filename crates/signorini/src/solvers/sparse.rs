//! Sparse complementarity problems: the matrix in compressed sparse rows (exact nonzeros only).
//!
//! A contact LCP is sparse — W = G M⁻¹ Gᵀ has an entry only for two rows of contacts that share a
//! body, and the friction rows add a few constants per contact — so a 10-box stack's 240 × 240
//! matrix holds about a third of its entries and a pile's island of 2,000 rows a few percent.
//! What every step does (assembling the problem, checking it, the warm start's principal solve
//! and the residual that accepts it) costs O(nnz) here instead of O(n²) on the dense matrix;
//! only a step that has to pivot from scratch or iterate builds the dense [`Problem`]
//! ([`SparseProblem::to_dense`]) for the solvers of this layer.
use super::lemke::solve_on_support_with;
use super::sparse_lu::SparseLu;
use super::Problem;
use nalgebra::{DMatrix, DVector};

/// A square matrix in compressed sparse rows: row r holds `cols[row_start[r]..row_start[r + 1]]`
/// (increasing) with `values` alongside.
#[derive(Clone, Debug, PartialEq)]
pub struct CsrMatrix {
    n: usize,
    row_start: Vec<usize>,
    cols: Vec<usize>,
    values: Vec<f64>,
}

impl CsrMatrix {
    /// The n × n matrix of `rows`' entries: row r holds (column, value) pairs with increasing
    /// columns (explicit zeros may be stored).
    pub fn from_rows(n: usize, row_start: Vec<usize>, cols: Vec<usize>, values: Vec<f64>) -> Self {
        assert!(row_start.len() == n + 1 && cols.len() == values.len());
        assert!(row_start[n] == cols.len() && cols.iter().all(|&c| c < n));
        debug_assert!((0..n).all(|r| cols[row_start[r]..row_start[r + 1]]
            .windows(2)
            .all(|w| w[0] < w[1])));
        CsrMatrix {
            n,
            row_start,
            cols,
            values,
        }
    }

    /// Rows (= columns).
    pub fn n(&self) -> usize {
        self.n
    }

    /// Stored entries.
    pub fn nnz(&self) -> usize {
        self.values.len()
    }

    /// Entry (r, c) (0 where nothing is stored).
    pub fn get(&self, r: usize, c: usize) -> f64 {
        let span = self.row_start[r]..self.row_start[r + 1];
        match self.cols[span.clone()].binary_search(&c) {
            Ok(k) => self.values[span.start + k],
            Err(_) => 0.0,
        }
    }

    /// The stored entries of row r: (column, value).
    pub fn row(&self, r: usize) -> impl Iterator<Item = (usize, f64)> + '_ {
        let span = self.row_start[r]..self.row_start[r + 1];
        self.cols[span.clone()]
            .iter()
            .copied()
            .zip(self.values[span].iter().copied())
    }

    /// max |Mᵢⱼ| (0 for an empty matrix).
    pub fn max_abs(&self) -> f64 {
        self.values.iter().fold(0.0, |m, v| m.max(v.abs()))
    }

    /// The columns: for each column, its stored (row, value) pairs, rows increasing.
    pub fn columns(&self) -> Vec<Vec<(usize, f64)>> {
        let mut columns = vec![Vec::new(); self.n];
        for r in 0..self.n {
            for (c, v) in self.row(r) {
                columns[c].push((r, v));
            }
        }
        columns
    }

    /// M z + q.
    pub fn mul_add(&self, z: &DVector<f64>, q: &DVector<f64>) -> DVector<f64> {
        DVector::from_fn(self.n, |r, _| {
            self.row(r).fold(q[r], |acc, (c, v)| acc + v * z[c])
        })
    }

    /// The dense matrix.
    pub fn to_dense(&self) -> DMatrix<f64> {
        let mut m = DMatrix::zeros(self.n, self.n);
        for r in 0..self.n {
            for (c, v) in self.row(r) {
                m[(r, c)] = v;
            }
        }
        m
    }
}

/// Principal systems of at most this many rows are factored densely: below it a dense LU costs
/// less than a sparse one's symbolic analysis (measured on the 10-box stack, whose supports are
/// ~100 rows: 0.17 ms a step dense, 0.6 ms sparse).
pub const DENSE_SUPPORT_MAX: usize = 200;

/// The LCP w = M z + q, 0 ≤ z ⊥ w ≥ 0 with a sparse M (no free rows).
#[derive(Clone, Debug, PartialEq)]
pub struct SparseProblem {
    pub m: CsrMatrix,
    pub q: DVector<f64>,
}

impl SparseProblem {
    /// Number of unknowns.
    pub fn len(&self) -> usize {
        self.q.len()
    }

    pub fn is_empty(&self) -> bool {
        self.q.is_empty()
    }

    /// Why this problem is malformed, if it is (shape mismatch, non-finite entries); O(nnz).
    pub fn check(&self) -> Result<(), String> {
        if self.m.n != self.q.len() {
            return Err(format!(
                "M is {0}×{0} but q has {1} entries",
                self.m.n,
                self.q.len()
            ));
        }
        if self.m.values.iter().chain(self.q.iter()).any(|v| !v.is_finite()) {
            return Err("M or q has a non-finite entry".into());
        }
        Ok(())
    }

    /// The scaled natural-map residual ‖min(z, Mz + q)‖∞ / ‖q‖∞ of [`residual`](super::residual),
    /// in O(nnz).
    pub fn residual(&self, z: &DVector<f64>) -> f64 {
        let w = self.m.mul_add(z, &self.q);
        let mut r: f64 = 0.0;
        for (zi, wi) in z.iter().zip(w.iter()) {
            if zi.is_nan() || wi.is_nan() {
                return f64::INFINITY;
            }
            r = r.max(zi.min(*wi).abs());
        }
        let scale = self.q.amax();
        if scale > 0.0 {
            r / scale
        } else {
            r
        }
    }

    /// z with z_α solving M_αα z_α = −q_α on α = {i : `support[i]`}, 0 elsewhere, negative
    /// entries set to 0: Lemke's warm start ([`Lemke`](super::lemke::Lemke), "Warm start") on
    /// the sparse matrix. M_αα is factored densely (nalgebra's LU, as the dense method's) when α
    /// has at most [`DENSE_SUPPORT_MAX`] rows, by a sparse LU ([`SparseLu`]) otherwise. None
    /// when M_αα is singular.
    pub fn solve_on_support(&self, support: &[bool]) -> Option<DVector<f64>> {
        if support.iter().filter(|&&b| b).count() <= DENSE_SUPPORT_MAX {
            return solve_on_support_with(self.len(), 0, support, |r, c| self.m.get(r, c), &self.q);
        }
        let n = self.len();
        let mut local = vec![usize::MAX; n];
        let mut alpha = Vec::new();
        for i in (0..n).filter(|&i| support[i]) {
            local[i] = alpha.len();
            alpha.push(i);
        }
        let mut z = DVector::zeros(n);
        if alpha.is_empty() {
            return Some(z);
        }
        let mut entries = Vec::new();
        for (k, &i) in alpha.iter().enumerate() {
            entries.extend(
                self.m
                    .row(i)
                    .filter(|&(c, _)| local[c] != usize::MAX)
                    .map(|(c, v)| (k, local[c], v)),
            );
        }
        let mut z_a: Vec<f64> = alpha.iter().map(|&i| -self.q[i]).collect();
        let lu = SparseLu::factor(alpha.len(), &entries, &z_a)?;
        lu.solve(&mut z_a);
        for (k, &i) in alpha.iter().enumerate() {
            z[i] = z_a[k].max(0.0);
        }
        Some(z)
    }

    /// The LCP of `problem` (which must have no free rows) with its nonzeros stored sparse.
    pub fn from_dense(problem: &Problem) -> Self {
        assert_eq!(problem.free, 0, "a sparse problem has no free rows");
        let n = problem.len();
        let (mut row_start, mut cols, mut values) = (vec![0], Vec::new(), Vec::new());
        for r in 0..n {
            for c in 0..n {
                let v = problem.m[(r, c)];
                if v != 0.0 {
                    cols.push(c);
                    values.push(v);
                }
            }
            row_start.push(cols.len());
        }
        SparseProblem {
            m: CsrMatrix::from_rows(n, row_start, cols, values),
            q: problem.q.clone(),
        }
    }

    /// The same problem with a dense matrix.
    pub fn to_dense(&self) -> Problem {
        Problem::lcp(self.m.to_dense(), self.q.clone())
    }
}
