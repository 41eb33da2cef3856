//! Sparse LU factorization of a square matrix (faer's supernodal LU with partial row pivoting,
//! the one place this crate calls faer; ARCHITECTURE.md says why faer).
//!
//! Used by the sparse principal solves (Lemke's warm start on a large island) and by the basis
//! of Lemke's method on a sparse problem (`lemke::solve_sparse`): both factor a matrix whose
//! columns are columns of a contact LCP's M, which has a few dozen entries a column however large
//! the island.
use faer::linalg::solvers::Solve;
use faer::sparse::linalg::solvers::SymbolicLu;
use faer::sparse::{SparseColMat, SparseColMatRef, SymbolicSparseColMatRef, Triplet};
use std::cell::RefCell;
use faer::MatMut;

/// LU factors of an n × n sparse matrix.
pub struct SparseLu {
    n: usize,
    lu: faer::sparse::linalg::solvers::Lu<usize, f64>,
}

impl SparseLu {
    /// Factor the n × n matrix with the entries `(row, column, value)` (a repeated position
    /// adds up). None when the matrix is structurally singular, or when the factors do not
    /// reproduce it: a test solve with the right-hand side `probe` (say, the one the caller is
    /// about to solve) must give a finite x with ‖A x − probe‖∞ ≤ `RESIDUAL_REL_TOL` ·
    /// (‖A‖max ‖x‖∞ + ‖probe‖∞); a numerically singular A fails it.
    pub fn factor(n: usize, entries: &[(usize, usize, f64)], probe: &[f64]) -> Option<Self> {
        if n == 0 {
            return None;
        }
        let triplets: Vec<Triplet<usize, usize, f64>> = entries
            .iter()
            .map(|&(r, c, v)| Triplet::new(r, c, v))
            .collect();
        let a = SparseColMat::<usize, f64>::try_new_from_triplets(n, n, &triplets).ok()?;
        let lu = a.sp_lu().ok()?;
        SparseLu { n, lu }.checked(entries.iter().copied(), probe)
    }

    /// [`factor`](Self::factor) for a matrix given by columns: column c holds the rows
    /// `rows[start[c]..start[c + 1]]`, strictly increasing, with `values` alongside (no sort, no
    /// merging of repeated positions: what a caller that builds columns in order can give).
    pub fn from_columns(
        n: usize,
        start: &[usize],
        rows: &[usize],
        values: &[f64],
        probe: &[f64],
    ) -> Option<Self> {
        if n == 0 || start.len() != n + 1 {
            return None;
        }
        let pattern = SymbolicSparseColMatRef::new_checked(n, n, start, None, rows);
        let symbolic = cached_symbolic(pattern)?;
        let matrix = SparseColMatRef::new(pattern, values);
        let lu = faer::sparse::linalg::solvers::Lu::try_new_with_symbolic(symbolic, matrix).ok()?;
        let entries = (0..n).flat_map(|c| (start[c]..start[c + 1]).map(move |k| (rows[k], c, values[k])));
        SparseLu { n, lu }.checked(entries, probe)
    }

    /// These factors, if a test solve with `probe` reproduces it within [`RESIDUAL_REL_TOL`]
    /// (see [`factor`](Self::factor)); `entries` are the matrix's.
    fn checked(
        self,
        entries: impl Iterator<Item = (usize, usize, f64)>,
        probe: &[f64],
    ) -> Option<Self> {
        let n = self.n;
        let mut x = probe.to_vec();
        self.solve(&mut x);
        if x.iter().any(|v| !v.is_finite()) {
            return None;
        }
        let mut ax = vec![0.0; n];
        let mut scale: f64 = 0.0;
        for (r, c, v) in entries {
            ax[r] += v * x[c];
            scale = scale.max(v.abs());
        }
        let x_max = x.iter().fold(0.0f64, |m, v| m.max(v.abs()));
        let b_max = probe.iter().fold(0.0f64, |m, v| m.max(v.abs()));
        let err = ax
            .iter()
            .zip(probe)
            .fold(0.0f64, |m, (a, b)| m.max((a - b).abs()));
        (err <= RESIDUAL_REL_TOL * (scale * x_max + b_max)).then_some(self)
    }

    /// Rows (= columns).
    pub fn n(&self) -> usize {
        self.n
    }

    /// b ← A⁻¹ b.
    pub fn solve(&self, b: &mut [f64]) {
        let n = self.n;
        self.lu.solve_in_place(MatMut::from_column_major_slice_mut(b, n, 1));
    }

    /// b ← A⁻ᵀ b.
    pub fn solve_transpose(&self, b: &mut [f64]) {
        let n = self.n;
        self.lu
            .solve_transpose_in_place(MatMut::from_column_major_slice_mut(b, n, 1));
    }
}

/// Symbolic factorizations (fill-reducing ordering and elimination structure) kept per thread
/// for the last few sparsity patterns factored by [`SparseLu::from_columns`].
const SYMBOLIC_CACHE: usize = 4;

thread_local! {
    /// (column starts, row indices, symbolic factorization), the most recent first.
    static SYMBOLIC: RefCell<Vec<(Vec<usize>, Vec<usize>, SymbolicLu<usize>)>> =
        const { RefCell::new(Vec::new()) };
}

/// The symbolic LU of `pattern`: the one kept for the same pattern (compared entry by entry),
/// else computed (COLAMD ordering and symbolic factorization) and kept. A pile at rest factors
/// the same basis pattern at every step (Lemke's warm start from last step's basis), and the
/// ordering and symbolic stages were a third of that factorization's cost (perf, `bin_64` under
/// stewart-trinkle at rest). The numeric factorization reads only the pattern's symbolic result,
/// itself a function of the pattern alone, so a kept one gives bit-identical factors.
fn cached_symbolic(pattern: SymbolicSparseColMatRef<'_, usize>) -> Option<SymbolicLu<usize>> {
    let (start, rows) = (pattern.col_ptr(), pattern.row_idx());
    SYMBOLIC.with(|cache| {
        let mut cache = cache.borrow_mut();
        if let Some(k) = cache.iter().position(|(s, r, _)| s == start && r == rows) {
            let entry = cache.remove(k);
            let symbolic = entry.2.clone();
            cache.insert(0, entry);
            return Some(symbolic);
        }
        let symbolic = SymbolicLu::try_new(pattern).ok()?;
        cache.insert(0, (start.to_vec(), rows.to_vec(), symbolic.clone()));
        cache.truncate(SYMBOLIC_CACHE);
        Some(symbolic)
    })
}

/// A factorization is rejected when its test solve leaves a residual above this fraction of
/// ‖A‖max ‖x‖∞ + ‖b‖∞ (a backward-stable LU of a well-conditioned matrix leaves ~n ε of it).
pub const RESIDUAL_REL_TOL: f64 = 1e-9;
