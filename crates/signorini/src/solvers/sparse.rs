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
    /// the sparse matrix. None when M_αα is singular.
    pub fn solve_on_support(&self, support: &[bool]) -> Option<DVector<f64>> {
        solve_on_support_with(self.len(), 0, support, |r, c| self.m.get(r, c), &self.q)
    }

    /// The same problem with a dense matrix.
    pub fn to_dense(&self) -> Problem {
        Problem::lcp(self.m.to_dense(), self.q.clone())
    }
}
