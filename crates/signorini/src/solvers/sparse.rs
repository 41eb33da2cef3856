//! Sparse complementarity problems: the matrix in compressed sparse rows (exact nonzeros only).
//!
//! A contact LCP is sparse — W = G M⁻¹ Gᵀ has an entry only for two rows of contacts that share a
//! body, and the friction rows add a few constants per contact — so a 10-box stack's 240 × 240
//! matrix holds about a third of its entries and a pile's island of 2,000 rows a few percent.
//! What every step does (assembling the problem, checking it, the warm start's principal solve
//! and the residual that accepts it) costs O(nnz) here instead of O(n²) on the dense matrix;
//! only a step that has to pivot from scratch or iterate builds the dense [`Problem`]
//! ([`SparseProblem::to_dense`]) for the solvers of this layer.
use super::lemke::{least_norm_principal_solution_of, principal_solution_of, principal_solution_with};
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

    /// The columns: for each column, its stored (row, value) pairs, rows increasing (one
    /// allocation for all of them: a transposed copy of the matrix).
    pub fn columns(&self) -> Columns {
        let mut start = vec![0; self.n + 1];
        for &c in &self.cols {
            start[c + 1] += 1;
        }
        for c in 0..self.n {
            start[c + 1] += start[c];
        }
        let mut next = start.clone();
        let mut entries = vec![(0, 0.0); self.cols.len()];
        for r in 0..self.n {
            for (c, v) in self.row(r) {
                entries[next[c]] = (r, v);
                next[c] += 1;
            }
        }
        Columns { start, entries }
    }

    /// M + by·I (a diagonal entry is stored in every row).
    pub fn shifted(&self, by: f64) -> CsrMatrix {
        let mut row_start = Vec::with_capacity(self.n + 1);
        let (mut cols, mut values) = (Vec::new(), Vec::new());
        row_start.push(0);
        for r in 0..self.n {
            let mut diagonal = Some(by);
            for (c, v) in self.row(r) {
                if c > r {
                    if let Some(d) = diagonal.take() {
                        cols.push(r);
                        values.push(d);
                    }
                }
                let v = if c == r { v + diagonal.take().unwrap_or(0.0) } else { v };
                cols.push(c);
                values.push(v);
            }
            if let Some(d) = diagonal {
                cols.push(r);
                values.push(d);
            }
            row_start.push(cols.len());
        }
        CsrMatrix::from_rows(self.n, row_start, cols, values)
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

/// The columns of a [`CsrMatrix`] ([`CsrMatrix::columns`]): `columns[c]` is column c's stored
/// (row, value) pairs, rows increasing.
#[derive(Clone, Debug, PartialEq)]
pub struct Columns {
    start: Vec<usize>,
    entries: Vec<(usize, f64)>,
}

impl Columns {
    /// Number of columns.
    pub fn len(&self) -> usize {
        self.start.len() - 1
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl std::ops::Index<usize> for Columns {
    type Output = [(usize, f64)];

    fn index(&self, c: usize) -> &[(usize, f64)] {
        &self.entries[self.start[c]..self.start[c + 1]]
    }
}

/// A square LCP matrix as the warm start's principal pivoting reads it: by entries (for the
/// principal systems M_αα) and by products (for the residual). A [`CsrMatrix`] stores it; a
/// contact problem can instead compute it from its Jacobian rows and inverse mass without ever
/// forming it (`contact::stewart_trinkle`'s step operator), which is what a step whose warm
/// start holds needs: O(rows) for the product instead of O(nnz of G M⁻¹ Gᵀ).
pub trait LcpMatrix {
    /// Rows (= columns).
    fn n(&self) -> usize;
    /// Entry (r, c).
    fn get(&self, r: usize, c: usize) -> f64;
    /// M z + q.
    fn mul_add(&self, z: &DVector<f64>, q: &DVector<f64>) -> DVector<f64>;
    /// M_αα for the rows `alpha` (increasing), dense. By default from [`get`](Self::get).
    fn principal_submatrix(&self, alpha: &[usize]) -> DMatrix<f64> {
        let k = alpha.len();
        DMatrix::from_fn(k, k, |r, c| self.get(alpha[r], alpha[c]))
    }
    /// z with z_α solving M_αα z_α = −q_α (α = `support`, negatives kept) and 0 elsewhere; None
    /// when M_αα is singular. By default factored densely from
    /// [`principal_submatrix`](Self::principal_submatrix).
    fn principal_solution(&self, support: &[bool], q: &DVector<f64>) -> Option<DVector<f64>> {
        let alpha: Vec<usize> = (0..self.n()).filter(|&i| support[i]).collect();
        principal_solution_of(self.n(), &alpha, self.principal_submatrix(&alpha), q)
    }
    /// How many leading rows and columns form a symmetric block (W = G M⁻¹ Gᵀ of a contact
    /// problem, symmetric up to the round-off of its sums): a principal system inside it is
    /// factored by Cholesky from its lower triangle. By default none.
    fn symmetric_rows(&self) -> usize {
        0
    }
    /// M_αα's lower triangle for rows `alpha` (increasing) inside the symmetric block
    /// ([`symmetric_rows`](Self::symmetric_rows)); the entries above the diagonal may be
    /// anything (they are not read). By default the whole principal submatrix.
    fn symmetric_principal_lower(&self, alpha: &[usize]) -> DMatrix<f64> {
        self.principal_submatrix(alpha)
    }
    /// [`principal_solution`](Self::principal_solution) with a singular, consistent M_αα solved
    /// for its least-norm answer (`lemke::least_norm_principal_solution_of`) when α has at most
    /// [`DENSE_SUPPORT_MAX`] rows; above, the plain one.
    fn least_norm_principal_solution(
        &self,
        support: &[bool],
        q: &DVector<f64>,
    ) -> Option<DVector<f64>> {
        let alpha: Vec<usize> = (0..self.n()).filter(|&i| support[i]).collect();
        if alpha.len() > DENSE_SUPPORT_MAX {
            return self.principal_solution(support, q);
        }
        let symmetric = alpha.last().is_some_and(|&r| r < self.symmetric_rows());
        let m_aa = if symmetric {
            self.symmetric_principal_lower(&alpha)
        } else {
            self.principal_submatrix(&alpha)
        };
        least_norm_principal_solution_of(self.n(), &alpha, m_aa, q, symmetric)
    }
}

impl LcpMatrix for CsrMatrix {
    fn n(&self) -> usize {
        self.n
    }

    fn get(&self, r: usize, c: usize) -> f64 {
        CsrMatrix::get(self, r, c)
    }

    fn mul_add(&self, z: &DVector<f64>, q: &DVector<f64>) -> DVector<f64> {
        CsrMatrix::mul_add(self, z, q)
    }

    /// Dense LU (nalgebra's, as the dense method's, with one step of iterative refinement) when
    /// α has at most [`DENSE_SUPPORT_MAX`] rows, a sparse LU ([`SparseLu`]) otherwise.
    fn principal_solution(&self, support: &[bool], q: &DVector<f64>) -> Option<DVector<f64>> {
        if support.iter().filter(|&&b| b).count() <= DENSE_SUPPORT_MAX {
            return principal_solution_with(self.n, support, |r, c| self.get(r, c), q);
        }
        let n = self.n;
        let mut local = vec![usize::MAX; n];
        let mut alpha = Vec::new();
        for i in (0..n).filter(|&i| support[i]) {
            local[i] = alpha.len();
            alpha.push(i);
        }
        let mut z = DVector::zeros(n);
        let mut entries = Vec::new();
        for (k, &i) in alpha.iter().enumerate() {
            entries.extend(
                self.row(i)
                    .filter(|&(c, _)| local[c] != usize::MAX)
                    .map(|(c, v)| (k, local[c], v)),
            );
        }
        let mut z_a: Vec<f64> = alpha.iter().map(|&i| -q[i]).collect();
        let lu = SparseLu::factor(alpha.len(), &entries, &z_a)?;
        lu.solve(&mut z_a);
        for (k, &i) in alpha.iter().enumerate() {
            z[i] = z_a[k];
        }
        Some(z)
    }
}

impl LcpMatrix for DMatrix<f64> {
    fn n(&self) -> usize {
        self.nrows()
    }

    fn get(&self, r: usize, c: usize) -> f64 {
        self[(r, c)]
    }

    fn mul_add(&self, z: &DVector<f64>, q: &DVector<f64>) -> DVector<f64> {
        self * z + q
    }
}

/// The scaled natural-map residual ‖min(z, w)‖∞ / ‖q‖∞ of [`residual`](super::residual) for
/// w = M z + q already computed (∞ when either has a NaN).
pub fn scaled_residual(z: &DVector<f64>, w: &DVector<f64>, q: &DVector<f64>) -> f64 {
    let mut r: f64 = 0.0;
    for (zi, wi) in z.iter().zip(w.iter()) {
        if zi.is_nan() || wi.is_nan() {
            return f64::INFINITY;
        }
        r = r.max(zi.min(*wi).abs());
    }
    let scale = q.amax();
    if scale > 0.0 {
        r / scale
    } else {
        r
    }
}

/// What [`principal_pivoting`] found.
#[derive(Clone, Debug, PartialEq)]
pub struct Repaired {
    /// The answer (negatives of the principal solution read as 0).
    pub z: DVector<f64>,
    /// Its α.
    pub support: Vec<bool>,
    /// Rounds made (0: the start's principal system was the answer).
    pub rounds: usize,
    /// Its scaled residual (≤ the tolerance).
    pub residual: f64,
}

/// Principal pivoting from the support `start` on the LCP (m, q), a repair of a warm start
/// that is almost right: solve the principal system M_αα z_α = −q_α, and while the answer
/// (negatives read as 0) misses `tolerance` — the scaled residual of [`scaled_residual`] —
/// change α for at most `rounds` rounds: drop every row of α whose zᵢ < 0 (the block exchange
/// of Júdice & Pires, "A block principal pivoting algorithm for large-scale strictly monotone
/// linear complementarity problems", Computers & Operations Research 21, 1994), or, when none
/// is negative, bring in the row of largest violation wᵢ < 0 (Murty's single exchange,
/// Cottle, Pang & Stone §4.2, with the most violated row instead of the least index) and with it
/// every row violated beyond what the tolerance allows, wᵢ < −tolerance · ‖q‖∞.
/// *Departures*: not every row with wᵢ < 0 enters at once, because that took in round-off
/// violations (~1e-13 on the 10-box stack) and made M_αα singular; but not one at a time either:
/// on the 10-box stack under `stewart-trinkle` an accepted support's violations creep from step
/// to step (~3e-10 of ‖q‖∞ a step) until about 90 rows are violated at ~1e-10 (1–2e-8 of ‖q‖∞),
/// which six single exchanges did not repair, and 743 of 10,000 steps went to Lemke's method
/// from scratch (2.5 ms each, 190 µs a step on average in the solve); with the rows beyond the
/// tolerance brought in together, 195 steps did (72 µs). Those violations were the stack rocking
/// on the diagonals of the three corners a face's vertex answer loads; on steps of resting faces
/// (the models' `resting_faces`), every matched contact proposes its normal row and, with
/// `least_norm`, a singular principal system gets its least-norm answer (the four corners share
/// the load: `lemke::least_norm_principal_solution_of`), so the stack's supports stay exact
/// (residual ~1e-13) and none misses. Nothing guarantees an end — after `rounds`,
/// or at a principal system that cannot be solved, the repair gives up and the caller pivots
/// (Lemke's method).
///
/// With `least_norm` the principal systems are solved for their least-norm answer
/// ([`LcpMatrix::least_norm_principal_solution`]): a singular, consistent one (a face's four
/// corners all proposed) is answered instead of ending the repair.
///
/// Ok: the answer; Err: the rounds made before giving up.
pub fn principal_pivoting(
    m: &impl LcpMatrix,
    q: &DVector<f64>,
    start: &[bool],
    rounds: usize,
    tolerance: f64,
    least_norm: bool,
) -> Result<Repaired, usize> {
    let n = m.n();
    let mut support = start.to_vec();
    let beyond = tolerance * q.amax();
    for round in 0..=rounds {
        let z = if least_norm {
            m.least_norm_principal_solution(&support, q)
        } else {
            m.principal_solution(&support, q)
        }
        .ok_or(round)?;
        let mut clamped = z.clone();
        clamped.apply(|zi| *zi = zi.max(0.0));
        let w = m.mul_add(&clamped, q);
        let residual = scaled_residual(&clamped, &w, q);
        if residual <= tolerance {
            return Ok(Repaired {
                z: clamped,
                support,
                rounds: round,
                residual,
            });
        }
        if round == rounds {
            break;
        }
        let mut changed = false;
        for i in 0..n {
            if support[i] && z[i] < 0.0 {
                support[i] = false;
                changed = true;
            }
        }
        if !changed {
            // No negative z: w is that of z itself.
            let worst = (0..n)
                .filter(|&i| !support[i] && w[i] < 0.0)
                .min_by(|&a, &b| w[a].total_cmp(&w[b]));
            let Some(i) = worst else {
                return Err(round);
            };
            support[i] = true;
            // With it, every row violated beyond what the tolerance allows.
            for j in 0..n {
                if !support[j] && w[j] < -beyond {
                    support[j] = true;
                }
            }
        }
    }
    Err(rounds)
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
        scaled_residual(z, &self.m.mul_add(z, &self.q), &self.q)
    }

    /// z with z_α solving M_αα z_α = −q_α on α = {i : `support[i]`}, 0 elsewhere, negative
    /// entries set to 0: Lemke's warm start ([`Lemke`](super::lemke::Lemke), "Warm start") on
    /// the sparse matrix. None when M_αα is singular.
    pub fn solve_on_support(&self, support: &[bool]) -> Option<DVector<f64>> {
        let mut z = self.principal_solution(support)?;
        z.apply(|zi| *zi = zi.max(0.0));
        Some(z)
    }

    /// z with z_α solving M_αα z_α = −q_α on α = {i : `support[i]`}, 0 elsewhere, negative
    /// entries kept ([`LcpMatrix::principal_solution`] of the CSR matrix). None when M_αα is
    /// singular.
    pub fn principal_solution(&self, support: &[bool]) -> Option<DVector<f64>> {
        self.m.principal_solution(support, &self.q)
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



