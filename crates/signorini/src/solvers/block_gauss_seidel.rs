//! Projected block Gauss–Seidel: each block of rows is solved exactly as a small LCP while the
//! other blocks are held fixed (Cottle, Pang & Stone, *The Linear Complementarity Problem*, 1992,
//! §5.2, block splittings and block iterative methods; in contact mechanics Jean & Moreau's
//! non-smooth Gauss–Seidel, where a block is one contact's normal and friction unknowns).
//!
//! # Blocks, from the matrix alone
//!
//! The solvers layer sees only (M, q, free), so the partition into blocks is read from M:
//!
//! - every complementarity row i whose diagonal is zero — M_ii ≤ [`MIN_RELATIVE_DIAGONAL`] ·
//!   maxⱼ |M_ij|, the test PGS uses to refuse a row — forms the block
//!   B_i = {i} ∪ {j : M_ij ≠ 0} (exact structural nonzeros of its row);
//! - every other row is a block of its own (a 1-row block).
//!
//! Two zero-diagonal rows with the same set B are one block. If two different such sets share a
//! row, if a set contains a free row, or if a free row has a zero diagonal, the method does not
//! apply and the solve ends [`Status::NotApplicable`] with the reason.
//!
//! *Example: the Stewart–Trinkle friction LCP* (`contact::stewart_trinkle`), in
//! z = (p_n, β, σ):
//!
//! ```text
//!   M = [ W_nn  W_nt  0 ]      σ_c's row:  μ_c at column p_n,c, −1 at the k columns β_c,
//!       [ W_tn  W_tt  E ]                  0 elsewhere (its diagonal included).
//!       [ μ     −Eᵀ   0 ]
//! ```
//!
//! Each σ row has a zero diagonal, and its block is {p_n,c, β_c,1 … β_c,k, σ_c}: exactly contact
//! c's unknowns (k + 2 rows). Contacts without friction (no σ row) keep their normal row as a
//! 1-row block. Different contacts never share a row, so the partition always exists for these
//! problems.
//!
//! # The sweep
//!
//! Blocks are visited in the order of their first row (for Stewart–Trinkle: contact by contact,
//! in the order of the normal rows). With w = M z + q at the current iterate, block b's local
//! right-hand side is r_b = q_b + Σ_{j∉b} M_bj z_j = w_b − M_bb z_b, and
//!
//! ```text
//!   1-row block i, free:           z_i ← z_i − ω w_i / M_ii                (SOR on w_i = 0),
//!   1-row block i, complementary:  z_i ← max(0, z_i − ω w_i / M_ii)        (= max(0, −r_i / M_ii) for ω = 1),
//!   multi-row block b:             z_b ← a solution of LCP(M_bb, r_b):  0 ≤ z_b ⊥ M_bb z_b + r_b ≥ 0,
//! ```
//!
//! ω = `options.relaxation` over-relaxes 1-row blocks only; a multi-row block is always solved
//! exactly (ω = 1). On a problem without zero diagonals every block is a single row and the
//! iterates are those of [`Pgs`](super::pgs::Pgs), operation for operation.
//!
//! **Local solves.** A multi-row block is small (k + 2 rows for a contact). Its LCP is solved
//! without allocation by, in order:
//! 1. the *support guess*: α = {a : z_b,a > 0} from the current iterate, z_α = −M_αα⁻¹ r_α by
//!    Gaussian elimination with partial pivoting, 0 off α — from one sweep to the next a
//!    contact usually keeps its state (sticking, sliding, separated), and then this is the
//!    answer;
//! 2. *Lemke's method* on a small dense tableau [B⁻¹ | −B⁻¹M̂ | −B⁻¹d | B⁻¹r̂] of the unit-scaled
//!    block (M̂ = M_bb/μ, r̂ = r_b/κ, μ and κ powers of two, covering vector d = 1), with the
//!    lexicographic ratio test (CPS §4.9) for the degenerate pivots that contact blocks have
//!    (the tangent directions come in opposite pairs), z₀ preferred when it ties;
//! 3. if neither meets the local acceptance level (below), the library's
//!    [`Lemke`] on the block (it allocates, but only here).
//!
//! A local answer is accepted when ‖min(z_b, M_bb z_b + r_b)‖∞ ≤
//! max([`LOCAL_REL_TOL`] · ‖r_b‖∞, 0.01 · tolerance · ‖q‖∞): accurate to round-off of the block's
//! data, or at least far below what the global tolerance asks. A block for which all three fail
//! (its LCP has no solution, or none was found) ends the solve [`Status::Inaccurate`] with the
//! residual of the current iterate: the method has no step to take.
//!
//! # Convergence
//!
//! For a symmetric positive definite M the 1-row case is PGS and converges (see `pgs`); the same
//! argument covers block Gauss–Seidel with symmetric positive definite diagonal blocks, each
//! block step minimising f(z) = ½ zᵀMz + qᵀz over its block (CPS §5.2). The Stewart–Trinkle M is
//! not symmetric, and no general convergence theorem applies: as for PGS on other matrices, the
//! method is then a heuristic whose answer is judged by the residual alone (reported `Solved`
//! only when [`residual`] ≤ tolerance). In practice the non-smooth Gauss–Seidel converges on
//! frictional contact problems at a linear rate that degrades with chains of contacts (stacks)
//! and mass ratios.
//!
//! # Cost
//!
//! Before sweeping, the exact nonzeros of M are copied by column (compressed sparse columns) in
//! one pass over the dense M, which also does the finite test of [`Problem::check`]; the rows of
//! the zero-diagonal blocks are read off that copy and each multi-row block's M_bb is extracted.
//! Contact matrices are sparse (W_ij ≠ 0 only for rows of contacts sharing a body), so with
//! w = M z + q kept current by column updates w += δ M_{:,j} over the nonzeros whenever z_j
//! changes by δ, a sweep costs O(nnz(M) + Σ_b |b|³) instead of O(n²). All buffers are allocated
//! before the first sweep; a sweep allocates nothing (except in the rare local fallback 3).
//! Round-off drift of w is removed by recomputing w = M z + q (over the nonzeros) every
//! [`REFRESH_SWEEPS`] sweeps, and the cheap O(n) residual check on the current w is confirmed
//! with [`residual`] itself (a dense product, computed once and reported) before `Solved` is
//! reported. A solve therefore reads the dense M twice (layout, final residual) plus O(nnz) per
//! sweep: measured on 2000–6000-row contact LCPs, 0.1–0.35 ms per sweep against ~3–30 ms for the
//! two dense passes.
use nalgebra::{DMatrix, DVector};

use super::common::{
    failure, initial_iterate, natural_residual, power_of_two_below, relaxation_error,
    residual_scale, unsolved_at,
};
use super::lemke::Lemke;
use super::pgs::{MIN_RELATIVE_DIAGONAL, REFRESH_SWEEPS};
use super::common::ProblemRows;
use super::sparse::SparseProblem;
use super::{Options, Problem, Solve, Solver, Stats, Status};

/// Projected block Gauss–Seidel; the name in scene files is `block-gauss-seidel`.
///
/// Reads `options.relaxation` (ω of the 1-row blocks, must lie in (0, 2)),
/// `options.max_iterations` (sweeps) and `options.tolerance`. `stats.iterations` counts sweeps.
/// Ends `Solved` (residual ≤ tolerance), `IterationLimit` (sweep limit), `Inaccurate` (a block's
/// local LCP could not be solved, or the iterate overflowed), `NotApplicable` (no block partition
/// exists, see the module documentation; the start is returned) or `BadProblem` (malformed
/// problem, ω outside (0, 2)).
#[derive(Clone, Copy, Debug, Default)]
pub struct BlockGaussSeidel;

/// A local block answer is accepted when its natural residual ‖min(z_b, M_bb z_b + r_b)‖∞ is at
/// most this fraction of ‖r_b‖∞ (or below 1 % of the global tolerance; module doc).
pub const LOCAL_REL_TOL: f64 = 1e-9;

/// In the local Lemke tableau, a column entry blocks only when it exceeds this fraction of the
/// column's largest magnitude (smaller ones are round-off of zeros).
const LOCAL_PIVOT_REL_TOL: f64 = 1e-11;

/// Lexicographic ratios closer than this (relative to their scale) tie.
const LOCAL_TIE_REL_TOL: f64 = 1e-10;

/// Basic values at most this (in units of the unit-scaled block, where ‖r̂‖∞ ∈ [1, 2)) are
/// round-off of 0; z₀ below it ends the path (z then solves the block to within it).
const LOCAL_ZERO: f64 = 1e-13;

/// A local principal system is singular when an elimination pivot is at most this fraction of
/// the matrix's largest entry.
const LOCAL_SINGULAR_REL_TOL: f64 = 1e-12;

impl Solver for BlockGaussSeidel {
    fn name(&self) -> &'static str {
        "block-gauss-seidel"
    }

    fn solve(
        &self,
        problem: &Problem,
        warm_start: Option<&DVector<f64>>,
        options: &Options,
    ) -> Solve {
        solve_on(problem, warm_start, options)
    }
}

impl BlockGaussSeidel {
    /// The same method on a sparse problem, without building the dense matrix: the iterates are
    /// those of [`Solver::solve`] on [`SparseProblem::to_dense`], operation for operation (the
    /// layout reads the same nonzeros in the same order); the residuals are the sparse ones.
    pub fn solve_sparse(
        &self,
        problem: &SparseProblem,
        warm_start: Option<&DVector<f64>>,
        options: &Options,
    ) -> Solve {
        solve_on(problem, warm_start, options)
    }
}

/// What a solve reads of its problem: the dense [`Problem`] or a [`SparseProblem`].
trait Source: ProblemRows {
    /// Why the problem is malformed (shape, free rows), before any pass over M.
    fn shape_error(&self) -> Option<String>;
    /// The problem's own check ([`Problem::check`], [`SparseProblem::check`]).
    fn check(&self) -> Result<(), String>;
    /// Why the problem is malformed (its own check), called once a malformation was seen.
    fn malformed(&self) -> String {
        match self.check() {
            Err(why) => why,
            Ok(()) => unreachable!("called on a malformed problem"),
        }
    }
    /// M_ij.
    fn entry(&self, i: usize, j: usize) -> f64;
    /// M's nonzeros by compressed columns (column start, row index, value), each column's rows
    /// ascending, and each row's largest magnitude; `NonFinite` when M or q has a non-finite
    /// entry.
    #[allow(clippy::type_complexity)]
    fn compressed_columns(&self) -> Result<(Vec<usize>, Vec<u32>, Vec<f64>, Vec<f64>), LayoutError>;
}

impl Source for Problem {
    fn shape_error(&self) -> Option<String> {
        let n = self.len();
        (self.m.shape() != (n, n) || self.free > n).then(|| self.malformed())
    }
    fn check(&self) -> Result<(), String> {
        Problem::check(self)
    }
    fn entry(&self, i: usize, j: usize) -> f64 {
        self.m[(i, j)]
    }
    fn compressed_columns(&self) -> Result<(Vec<usize>, Vec<u32>, Vec<f64>, Vec<f64>), LayoutError> {
        dense_compressed_columns(self)
    }
}

impl Source for SparseProblem {
    fn shape_error(&self) -> Option<String> {
        (self.m.n() != self.len()).then(|| self.malformed())
    }
    fn check(&self) -> Result<(), String> {
        SparseProblem::check(self)
    }
    fn entry(&self, i: usize, j: usize) -> f64 {
        self.m.get(i, j)
    }
    fn compressed_columns(&self) -> Result<(Vec<usize>, Vec<u32>, Vec<f64>, Vec<f64>), LayoutError> {
        // The transpose of the rows, skipping stored zeros (the dense layout's "exact
        // nonzeros"); rows are visited in order, so each column's rows come out ascending.
        let n = self.len();
        let mut finite = self.q.iter().all(|v| v.is_finite());
        let mut col_start = vec![0usize; n + 1];
        let mut row_max = vec![0.0f64; n];
        for (r, max) in row_max.iter_mut().enumerate() {
            for (c, v) in self.m.row(r) {
                if v != 0.0 {
                    finite &= v.is_finite();
                    col_start[c + 1] += 1;
                    *max = max.max(v.abs());
                }
            }
        }
        if !finite {
            return Err(LayoutError::NonFinite);
        }
        for c in 0..n {
            col_start[c + 1] += col_start[c];
        }
        let mut fill = col_start.clone();
        let mut row_index = vec![0u32; col_start[n]];
        let mut values = vec![0.0; col_start[n]];
        for r in 0..n {
            for (c, v) in self.m.row(r) {
                if v != 0.0 {
                    row_index[fill[c]] = r as u32;
                    values[fill[c]] = v;
                    fill[c] += 1;
                }
            }
        }
        Ok((col_start, row_index, values, row_max))
    }
}

/// The method of the module documentation on `problem`.
fn solve_on<P: Source>(problem: &P, warm_start: Option<&DVector<f64>>, options: &Options) -> Solve {
        let n = problem.rows();
        let fail = |status: Status| failure(n, status);
        // problem.check() is a pass over M; its finite test is fused into the layout's pass
        // below, so only the shape is checked here (problem.check() gives the message).
        if let Some(why) = problem.shape_error() {
            return fail(Status::BadProblem(why));
        }
        let omega = options.relaxation;
        if let Some(why) = relaxation_error("block Gauss–Seidel", omega) {
            return fail(Status::BadProblem(why));
        }
        let mut z = initial_iterate(problem, warm_start);
        let layout = match Layout::new(problem) {
            Ok(layout) => layout,
            Err(LayoutError::NonFinite) => return fail(Status::BadProblem(problem.malformed())),
            Err(LayoutError::NoPartition(why)) => {
                // Hand back the start and its residual, as PGS does.
                return unsolved_at(problem, z, Status::NotApplicable(why));
            }
        };

        let mut w = DVector::zeros(n);
        layout.refresh_w(problem, &z, &mut w);
        let scale = residual_scale(problem);
        let mut local = Local::new(layout.max_block);
        let accept_floor = 0.01 * options.tolerance * scale;

        let mut sweeps = 0;
        // The residual of the final z when it has been computed already.
        let mut confirmed = None;
        let status = loop {
            let r = natural_residual(problem, &z, &w) / scale;
            if !r.is_finite() {
                break Status::Inaccurate;
            }
            if r <= options.tolerance {
                // Confirm with the reported residual itself (fresh M z + q, no drift); this
                // allocates, but only when the cheap check already says converged.
                let full = problem.scaled_residual(&z);
                if full <= options.tolerance {
                    confirmed = Some(full);
                    break Status::Solved;
                }
                layout.refresh_w(problem, &z, &mut w);
            }
            if sweeps == options.max_iterations {
                break Status::IterationLimit;
            }
            let swept = layout.sweep(problem, omega, accept_floor, &mut local, &mut z, &mut w);
            sweeps += 1;
            if swept.is_err() {
                // A block without a local solution: no step to take. Never Solved, even if the
                // residual happened to be small (the tolerance check above came first).
                break Status::Inaccurate;
            }
            if sweeps % REFRESH_SWEEPS == 0 {
                layout.refresh_w(problem, &z, &mut w);
            }
        };

        let res = match confirmed {
            Some(res) => res,
            None if z.iter().all(|v| v.is_finite()) => problem.scaled_residual(&z),
            None => f64::INFINITY,
        };
        Solve {
            z,
            status,
            stats: Stats {
                iterations: sweeps,
                residual: res,
            },
        }
    }

/// Why no [`Layout`] was built.
#[derive(Debug)]
enum LayoutError {
    /// M or q has a non-finite entry.
    NonFinite,
    /// The block partition does not exist (says why).
    NoPartition(String),
}

/// One step of a sweep.
#[derive(Clone, Copy, Debug)]
enum Step {
    /// A 1-row block: the projected (or, for a free row, plain) SOR update of this row.
    Row(usize),
    /// A multi-row block (index into the block tables): its local LCP.
    Block(usize),
}

/// Everything a sweep needs, built once per solve: M by compressed columns, its diagonal, the
/// block partition in sweep order and each block's M_bb.
struct Layout {
    /// Column j's nonzeros are `row_index[col_start[j]..col_start[j + 1]]` / `values[..]`.
    col_start: Vec<usize>,
    row_index: Vec<u32>,
    values: Vec<f64>,
    /// M_ii.
    diagonal: Vec<f64>,
    /// The blocks in sweep order (by first row).
    steps: Vec<Step>,
    /// Rows of block b: `block_rows[block_start[b]..block_start[b + 1]]`, ascending.
    block_start: Vec<usize>,
    block_rows: Vec<usize>,
    /// M_bb of block b (|b| × |b|, column-major) from `block_m[block_m_start[b]..]`.
    block_m_start: Vec<usize>,
    block_m: Vec<f64>,
    /// Size of the largest multi-row block (0 when there is none).
    max_block: usize,
}

/// No block yet.
const UNOWNED: usize = usize::MAX;

impl Layout {
    /// The partition of the module documentation, or why it does not exist; also finds
    /// non-finite entries of M and q (the part of [`Problem::check`] that needs a pass over M).
    fn new<P: Source>(problem: &P) -> Result<Layout, LayoutError> {
        let n = problem.rows();
        assert!(
            n <= u32::MAX as usize,
            "block Gauss–Seidel indexes rows with u32"
        );
        let (col_start, row_index, values, row_max) = problem.compressed_columns()?;
        let diagonal: Vec<f64> = (0..n).map(|i| problem.entry(i, i)).collect();
        let zero_diagonal: Vec<bool> = (0..n)
            .map(|i| diagonal[i] <= MIN_RELATIVE_DIAGONAL * row_max[i])
            .collect();
        let (nz_start, nz_columns) =
            zero_diagonal_columns(n, &col_start, &row_index, &zero_diagonal);
        let (owner, block_start, block_rows) =
            zero_diagonal_blocks(problem, &diagonal, &zero_diagonal, &nz_start, &nz_columns)?;
        let steps = sweep_steps(n, &owner, &block_start, &block_rows);
        let (block_m_start, block_m, max_block) =
            block_matrices(problem, &block_start, &block_rows);
        Ok(Layout {
            col_start,
            row_index,
            values,
            diagonal,
            steps,
            block_start,
            block_rows,
            block_m_start,
            block_m,
            max_block,
        })
    }

    /// w += δ M_{:,j}, over the nonzeros of column j.
    #[inline]
    fn add_column(&self, j: usize, delta: f64, w: &mut [f64]) {
        let range = self.col_start[j]..self.col_start[j + 1];
        for (&i, &v) in self.row_index[range.clone()]
            .iter()
            .zip(&self.values[range])
        {
            w[i as usize] += delta * v;
        }
    }

    /// w ← M z + q, in place, over the nonzeros (the same additions, in the same order, as a
    /// dense column-by-column product; the skipped terms are exact zeros).
    fn refresh_w(&self, problem: &impl ProblemRows, z: &DVector<f64>, w: &mut DVector<f64>) {
        w.copy_from(problem.rhs());
        let w = w.as_mut_slice();
        for (j, &zj) in z.iter().enumerate() {
            if zj != 0.0 {
                let range = self.col_start[j]..self.col_start[j + 1];
                for (&i, &v) in self.row_index[range.clone()]
                    .iter()
                    .zip(&self.values[range])
                {
                    w[i as usize] += v * zj;
                }
            }
        }
    }

    /// One sweep over the blocks, keeping w = M z + q current. Err(b) when block b's local LCP
    /// could not be solved (z and w are then left consistent, block b unchanged).
    fn sweep(
        &self,
        problem: &impl ProblemRows,
        omega: f64,
        accept_floor: f64,
        local: &mut Local,
        z: &mut DVector<f64>,
        w: &mut DVector<f64>,
    ) -> Result<(), usize> {
        let z = z.as_mut_slice();
        let w = w.as_mut_slice();
        for &step in &self.steps {
            match step {
                Step::Row(i) => {
                    // Exactly PGS's update (same operations, so the same iterates).
                    let trial = z[i] - omega * w[i] / self.diagonal[i];
                    let updated = if i < problem.free_rows() {
                        trial
                    } else {
                        trial.max(0.0)
                    };
                    let delta = updated - z[i];
                    if delta != 0.0 {
                        z[i] = updated;
                        self.add_column(i, delta, w);
                    }
                }
                Step::Block(b) => {
                    let rows = &self.block_rows[self.block_start[b]..self.block_start[b + 1]];
                    let s = rows.len();
                    let m_bb = &self.block_m[self.block_m_start[b]..self.block_m_start[b + 1]];
                    // r_b = w_b − M_bb z_b: the block's right-hand side with the others fixed.
                    for (a, &i) in rows.iter().enumerate() {
                        local.r[a] = w[i];
                        local.z_old[a] = z[i];
                    }
                    for (c, &j) in rows.iter().enumerate() {
                        let zj = z[j];
                        if zj != 0.0 {
                            for a in 0..s {
                                local.r[a] -= m_bb[a + c * s] * zj;
                            }
                        }
                    }
                    if !local.solve(m_bb, s, accept_floor) {
                        return Err(b);
                    }
                    for (c, &j) in rows.iter().enumerate() {
                        let delta = local.z[c] - z[j];
                        if delta != 0.0 {
                            z[j] = local.z[c];
                            self.add_column(j, delta, w);
                        }
                    }
                }
            }
        }
        Ok(())
    }
}

/// M's nonzeros by compressed columns (column start, row index, value) and each row's largest
/// magnitude; `NonFinite` when M or q has a non-finite entry.
#[allow(clippy::type_complexity)]
fn dense_compressed_columns(
    problem: &Problem,
) -> Result<(Vec<usize>, Vec<u32>, Vec<f64>, Vec<f64>), LayoutError> {
    let n = problem.len();
    let m = &problem.m;
    // Compressed columns and, on the way, each row's largest magnitude.
    let mut col_start = Vec::with_capacity(n + 1);
    let mut row_index = Vec::new();
    let mut values = Vec::new();
    let mut row_max = vec![0.0f64; n];
    col_start.push(0);
    let mut finite = problem.q.iter().all(|v| v.is_finite());
    if n > 0 {
        for column in m.as_slice().chunks_exact(n) {
            for (i, &v) in column.iter().enumerate() {
                // NaN and ±∞ pass `v != 0`, so the finite test costs nothing on zeros.
                if v != 0.0 {
                    finite &= v.is_finite();
                    row_index.push(i as u32);
                    values.push(v);
                    row_max[i] = row_max[i].max(v.abs());
                }
            }
            col_start.push(row_index.len());
        }
    }
    if !finite {
        return Err(LayoutError::NonFinite);
    }
    Ok((col_start, row_index, values, row_max))
}

/// The nonzero columns of each zero-diagonal row: `columns[start[i]..start[i + 1]]`.
fn zero_diagonal_columns(
    n: usize,
    col_start: &[usize],
    row_index: &[u32],
    zero_diagonal: &[bool],
) -> (Vec<usize>, Vec<usize>) {
    // The nonzero columns of each zero-diagonal row, read off the compressed columns (in
    // ascending order): counts, then offsets, then the columns themselves.
    let mut nz_start = vec![0usize; n + 1];
    for &i in row_index {
        if zero_diagonal[i as usize] {
            nz_start[i as usize + 1] += 1;
        }
    }
    for i in 0..n {
        nz_start[i + 1] += nz_start[i];
    }
    let mut nz_columns = vec![0usize; nz_start[n]];
    let mut fill = nz_start.clone();
    for j in 0..n {
        for &i in &row_index[col_start[j]..col_start[j + 1]] {
            let i = i as usize;
            if zero_diagonal[i] {
                nz_columns[fill[i]] = j;
                fill[i] += 1;
            }
        }
    }

    (nz_start, nz_columns)
}

/// The blocks of the zero-diagonal rows (module doc): each row's block (or [`UNOWNED`]), and the
/// rows of block b, `block_rows[block_start[b]..block_start[b + 1]]`; or why they do not
/// partition the rows.
#[allow(clippy::type_complexity)]
fn zero_diagonal_blocks(
    problem: &impl ProblemRows,
    diagonal: &[f64],
    zero_diagonal: &[bool],
    nz_start: &[usize],
    nz_columns: &[usize],
) -> Result<(Vec<usize>, Vec<usize>, Vec<usize>), LayoutError> {
    let n = problem.rows();
    // Blocks of the zero-diagonal rows.
    let mut owner = vec![UNOWNED; n];
    let mut block_start = vec![0];
    let mut block_rows: Vec<usize> = Vec::new();
    let mut members: Vec<usize> = Vec::new();
    for i in (0..n).filter(|&i| zero_diagonal[i]) {
        if i < problem.free_rows() {
            return Err(LayoutError::NoPartition(format!(
                "free row {i} has diagonal {:e}; block Gauss–Seidel needs a positive \
                 diagonal on equality rows — use lemke or fischer-burmeister",
                diagonal[i]
            )));
        }
        // B_i = {i} ∪ {j : M_ij ≠ 0}, ascending (i is there already if M_ii ≠ 0).
        members.clear();
        members.extend_from_slice(&nz_columns[nz_start[i]..nz_start[i + 1]]);
        if let Err(at) = members.binary_search(&i) {
            members.insert(at, i);
        }
        if owner[i] != UNOWNED {
            let b = owner[i];
            if block_rows[block_start[b]..block_start[b + 1]] == members[..] {
                continue; // the same block, found again from another of its rows
            }
        }
        for &j in &members {
            if j < problem.free_rows() {
                return Err(LayoutError::NoPartition(format!(
                    "row {i} has a zero diagonal and its block {members:?} contains free \
                     row {j}; block Gauss–Seidel needs the blocks of zero-diagonal rows to \
                     be complementarity rows — use lemke or fischer-burmeister"
                )));
            }
            if owner[j] != UNOWNED {
                let b = owner[j];
                let other = &block_rows[block_start[b]..block_start[b + 1]];
                return Err(LayoutError::NoPartition(format!(
                    "row {i} has a zero diagonal and its block {members:?} overlaps the \
                     block {other:?} at row {j}; block Gauss–Seidel needs disjoint blocks \
                     — use lemke or fischer-burmeister"
                )));
            }
        }
        let b = block_start.len() - 1;
        for &j in &members {
            owner[j] = b;
        }
        block_rows.extend_from_slice(&members);
        block_start.push(block_rows.len());
    }

    Ok((owner, block_start, block_rows))
}

/// The sweep order of the rows and blocks.
fn sweep_steps(
    n: usize,
    owner: &[usize],
    block_start: &[usize],
    block_rows: &[usize],
) -> Vec<Step> {
    // Sweep order: every row in turn, a multi-row block at its first row.
    let mut steps = Vec::with_capacity(n);
    for (i, &b) in owner.iter().enumerate() {
        match b {
            UNOWNED => steps.push(Step::Row(i)),
            b if block_rows[block_start[b]] == i => steps.push(Step::Block(b)),
            _ => {}
        }
    }

    steps
}

/// Each block's M_bb and the size of the largest block.
fn block_matrices(
    problem: &impl Source,
    block_start: &[usize],
    block_rows: &[usize],
) -> (Vec<usize>, Vec<f64>, usize) {
    // Each block's M_bb, column-major.
    let blocks = block_start.len() - 1;
    let mut block_m_start = Vec::with_capacity(blocks + 1);
    let mut block_m = Vec::new();
    let mut max_block = 0;
    block_m_start.push(0);
    for b in 0..blocks {
        let rows = &block_rows[block_start[b]..block_start[b + 1]];
        max_block = max_block.max(rows.len());
        for &j in rows {
            for &i in rows {
                block_m.push(problem.entry(i, j));
            }
        }
        block_m_start.push(block_m.len());
    }

    (block_m_start, block_m, max_block)
}

/// Work space of the local block solves, sized for the largest block. Inputs: `r` (the block's
/// right-hand side), `z_old` (the block's current z, for the support guess); output: `z`.
struct Local {
    r: Vec<f64>,
    z_old: Vec<f64>,
    z: Vec<f64>,
    /// M_bb z + r of a candidate z.
    w: Vec<f64>,
    /// Lemke tableau, row-major, s × (2s + 2): columns w (s), z (s), z₀, right-hand side.
    tableau: Vec<f64>,
    /// basis[i] = the variable basic in tableau row i: 0..s → w, s..2s → z, 2s → z₀.
    basis: Vec<usize>,
    /// Rows still tied in a ratio test.
    tied: Vec<usize>,
    /// Indices of the support guess and its augmented system [M_αα | −r_α] (row-major).
    support: Vec<usize>,
    system: Vec<f64>,
}

impl Local {
    fn new(max_block: usize) -> Local {
        let s = max_block;
        Local {
            r: vec![0.0; s],
            z_old: vec![0.0; s],
            z: vec![0.0; s],
            w: vec![0.0; s],
            tableau: vec![0.0; s * (2 * s + 2)],
            basis: vec![0; s],
            tied: Vec::with_capacity(s),
            support: Vec::with_capacity(s),
            system: vec![0.0; s * (s + 1)],
        }
    }

    /// Solve LCP(M_bb, r) (block of size s, M_bb column-major) into `self.z[..s]`: support guess,
    /// then the local Lemke, then the library's Lemke; true when one meets the acceptance level
    /// max(LOCAL_REL_TOL ‖r‖∞, accept_floor).
    fn solve(&mut self, m: &[f64], s: usize, accept_floor: f64) -> bool {
        let r_norm = self.r[..s].iter().fold(0.0f64, |a, v| a.max(v.abs()));
        if !r_norm.is_finite() {
            return false;
        }
        let accept = (LOCAL_REL_TOL * r_norm).max(accept_floor);
        if self.support_guess(m, s) && self.local_residual(m, s) <= accept {
            return true;
        }
        if self.lemke(m, s) && self.local_residual(m, s) <= accept {
            return true;
        }
        self.library_lemke(m, s, accept)
    }

    /// ‖min(z, M z + r)‖∞ of the block's current `z` (infinite if not finite).
    fn local_residual(&mut self, m: &[f64], s: usize) -> f64 {
        self.w[..s].copy_from_slice(&self.r[..s]);
        for c in 0..s {
            let zc = self.z[c];
            if zc != 0.0 {
                for a in 0..s {
                    self.w[a] += m[a + c * s] * zc;
                }
            }
        }
        let mut res: f64 = 0.0;
        for a in 0..s {
            let ra = self.z[a].min(self.w[a]).abs();
            if ra.is_nan() {
                return f64::INFINITY;
            }
            res = res.max(ra);
        }
        res
    }

    /// z_α = −M_αα⁻¹ r_α for α = {a : z_old,a > 0}, 0 off α (negative entries set to 0; the
    /// caller judges z by its residual). False when M_αα is singular.
    fn support_guess(&mut self, m: &[f64], s: usize) -> bool {
        self.z[..s].fill(0.0);
        self.support.clear();
        self.support.extend((0..s).filter(|&a| self.z_old[a] > 0.0));
        let k = self.support.len();
        if k == 0 {
            return true;
        }
        // Augmented system [M_αα | −r_α], row-major k × (k + 1).
        let cols = k + 1;
        let mut largest: f64 = 0.0;
        for (ra, &a) in self.support.iter().enumerate() {
            for (rc, &c) in self.support.iter().enumerate() {
                let v = m[a + c * s];
                self.system[ra * cols + rc] = v;
                largest = largest.max(v.abs());
            }
            self.system[ra * cols + k] = -self.r[a];
        }
        if largest == 0.0 {
            return false;
        }
        // Gaussian elimination with partial pivoting.
        let sys = &mut self.system[..k * cols];
        for p in 0..k {
            let (mut best, mut best_abs) = (p, sys[p * cols + p].abs());
            for i in p + 1..k {
                let v = sys[i * cols + p].abs();
                if v > best_abs {
                    (best, best_abs) = (i, v);
                }
            }
            if best_abs <= LOCAL_SINGULAR_REL_TOL * largest {
                return false;
            }
            if best != p {
                for c in p..cols {
                    sys.swap(p * cols + c, best * cols + c);
                }
            }
            let pivot = sys[p * cols + p];
            for i in p + 1..k {
                let f = sys[i * cols + p] / pivot;
                if f != 0.0 {
                    for c in p..cols {
                        sys[i * cols + c] -= f * sys[p * cols + c];
                    }
                }
            }
        }
        // Back substitution into the support's entries of z, then the projection.
        for p in (0..k).rev() {
            let mut v = sys[p * cols + k];
            for c in p + 1..k {
                v -= sys[p * cols + c] * self.z[self.support[c]];
            }
            self.z[self.support[p]] = v / sys[p * cols + p];
        }
        for v in &mut self.z[..s] {
            *v = v.max(0.0);
        }
        self.z[..s].iter().all(|v| v.is_finite())
    }

    /// Lemke's method on the block (module doc, local solve 2) into `self.z[..s]`. False on a
    /// secondary ray, the pivot limit, or non-finite values.
    fn lemke(&mut self, m: &[f64], s: usize) -> bool {
        let r = &self.r[..s];
        if r.iter().all(|&v| v >= 0.0) {
            self.z[..s].fill(0.0);
            return true;
        }
        // Unit scaling by powers of two: ẑ = (μ/κ) z solves LCP(M/μ, r/κ).
        let m_unit = power_of_two_below(m[..s * s].iter().fold(0.0f64, |a, v| a.max(v.abs())));
        let r_unit = power_of_two_below(r.iter().fold(0.0f64, |a, v| a.max(v.abs())));
        let cols = 2 * s + 2;
        let (z0, rhs) = (2 * s, 2 * s + 1);
        let t = &mut self.tableau[..s * cols];
        for i in 0..s {
            let row = &mut t[i * cols..(i + 1) * cols];
            row.fill(0.0);
            row[i] = 1.0;
            for j in 0..s {
                row[s + j] = -m[i + j * s] / m_unit;
            }
            row[z0] = -1.0;
            row[rhs] = r[i] / r_unit;
            self.basis[i] = i;
        }

        // z₀ enters (column −d); the lexicographically most negative r̂_i leaves, which makes
        // every basic value nonnegative (CPS Step 0).
        let Some(z0_row) = self.leaving_row(s, z0, -1.0, None) else {
            return false;
        };
        let mut leaving = self.pivot(s, z0_row, z0);
        let max_pivots = 50 + 20 * s;
        let mut pivots = 1;
        while leaving != z0 {
            if pivots >= max_pivots {
                return false;
            }
            // z₀ at round-off level: the basic z solves the block to within it.
            if self.tableau[z0_row * cols + rhs] <= LOCAL_ZERO {
                break;
            }
            // The complement of the variable that left enters (w_i ↔ z_i).
            let entering = if leaving < s {
                leaving + s
            } else {
                leaving - s
            };
            let Some(row) = self.leaving_row(s, entering, 1.0, Some(z0_row)) else {
                return false; // secondary ray
            };
            leaving = self.pivot(s, row, entering);
            pivots += 1;
        }

        let z_unit = r_unit / m_unit;
        self.z[..s].fill(0.0);
        for i in 0..s {
            let var = self.basis[i];
            if (s..2 * s).contains(&var) {
                self.z[var - s] = self.tableau[i * cols + rhs].max(0.0) * z_unit;
            }
        }
        self.z[..s].iter().all(|v| v.is_finite())
    }

    /// The leaving row of the ratio test for the entering tableau column `col`, whose blocking
    /// entries are those with sign · cᵢ > 0: the minimum ratio xᵢ / (sign · cᵢ), z₀'s row when it
    /// ties (`z0_row`, not on the first pivot), else the lexicographic minimum of the tied rows of
    /// [x | B⁻¹] / (sign · cᵢ) (CPS §4.9). None when no row blocks (a ray).
    fn leaving_row(
        &mut self,
        s: usize,
        col: usize,
        sign: f64,
        z0_row: Option<usize>,
    ) -> Option<usize> {
        let cols = 2 * s + 2;
        let rhs = 2 * s + 1;
        let t = &self.tableau;
        let c = |i: usize| sign * t[i * cols + col];
        let c_max = (0..s).fold(0.0f64, |a, i| a.max(c(i).abs()));
        // No positive entry (or NaN from overflow): nothing blocks.
        if c_max.is_nan() || c_max <= 0.0 {
            return None;
        }
        self.tied.clear();
        self.tied
            .extend((0..s).filter(|&i| c(i) > LOCAL_PIVOT_REL_TOL * c_max));
        if self.tied.is_empty() {
            return None;
        }
        // Level 0: the ratio of the basic value (after the first pivot, values at round-off
        // level read as 0: the basis is feasible, so they are degenerate zeros).
        let value = |i: usize| {
            let x = t[i * cols + rhs];
            match z0_row {
                Some(_) if x <= LOCAL_ZERO => 0.0,
                _ => x,
            }
        };
        let min = self
            .tied
            .iter()
            .map(|&i| value(i) / c(i))
            .fold(f64::INFINITY, f64::min);
        let threshold = min + LOCAL_TIE_REL_TOL * min.abs();
        self.tied.retain(|&i| value(i) / c(i) <= threshold);
        if let Some(r) = z0_row {
            if self.tied.contains(&r) {
                return Some(r);
            }
        }
        // Levels 1..=s: the columns of B⁻¹ (the tableau's w columns).
        for level in 0..s {
            if self.tied.len() <= 1 {
                break;
            }
            let key = |i: usize| t[i * cols + level] / c(i);
            let (mut min, mut scale) = (f64::INFINITY, 0.0f64);
            for &i in &self.tied {
                let k = key(i);
                min = min.min(k);
                scale = scale.max(k.abs());
            }
            let threshold = min + LOCAL_TIE_REL_TOL * scale;
            self.tied.retain(|&i| key(i) <= threshold);
        }
        self.tied.first().copied()
    }

    /// Pivot the tableau on (row, col): the variable of `col` becomes basic in `row`. Returns
    /// the variable that left.
    fn pivot(&mut self, s: usize, row: usize, col: usize) -> usize {
        let cols = 2 * s + 2;
        let t = &mut self.tableau[..s * cols];
        let p = t[row * cols + col];
        for v in &mut t[row * cols..(row + 1) * cols] {
            *v /= p;
        }
        t[row * cols + col] = 1.0;
        let (before, rest) = t.split_at_mut(row * cols);
        let (pivot_row, after) = rest.split_at_mut(cols);
        for other in before
            .chunks_exact_mut(cols)
            .chain(after.chunks_exact_mut(cols))
        {
            let f = other[col];
            if f != 0.0 {
                for (o, &v) in other.iter_mut().zip(pivot_row.iter()) {
                    *o -= f * v;
                }
                other[col] = 0.0;
            }
        }
        std::mem::replace(&mut self.basis[row], col)
    }

    /// The library's Lemke on the block (allocates; the last resort). True when its answer
    /// meets `accept` (then in `self.z`).
    fn library_lemke(&mut self, m: &[f64], s: usize, accept: f64) -> bool {
        let block = Problem::lcp(
            DMatrix::from_column_slice(s, s, &m[..s * s]),
            DVector::from_column_slice(&self.r[..s]),
        );
        let options = Options {
            tolerance: LOCAL_REL_TOL,
            max_pivots: 1000 + 100 * s,
            ..Options::default()
        };
        let start = DVector::from_column_slice(&self.z_old[..s]);
        let solve = Lemke.solve(&block, Some(&start), &options);
        if !solve.z.iter().all(|v| v.is_finite()) {
            return false;
        }
        self.z[..s].copy_from_slice(solve.z.as_slice());
        self.local_residual(m, s) <= accept
    }
}
