//! Cholesky factorization of a symmetric positive definite matrix of 6 × 6 blocks whose block
//! sparsity is a graph of bodies (the linearly implicit penalty step's M + h Σ D JᵀJ and the
//! convex contact step's M + Σ D_e A_eᵀA_e couple each body to the bodies it touches).
//!
//! Right-looking block elimination in minimum-degree order: the node with the fewest remaining
//! neighbours goes next (ties: the lowest index), so a chain (a stack of boxes) eliminates from
//! its ends with no fill, and a pile fills in only between bodies that share a neighbour.
//! Eliminating node k with diagonal block D_k = L_kk L_kkᵀ and neighbour blocks A_ik:
//!
//! ```text
//!   L_ik = A_ik L_kk⁻ᵀ,     A_ij ← A_ij − L_ik L_jkᵀ   for every pair of neighbours i, j of k
//! ```
//!
//! (i = j updates the diagonal; i ≠ j may create a block, the fill).
//!
//! The work is split in two. [`BlockPattern`] (symbolic, from the graph alone) finds the order,
//! the blocks of L below each diagonal block with the fill, and the block each update lands on;
//! [`BlockPattern::factor`] (numeric) then runs the elimination on flat buffers with no search
//! and no allocation. A Newton solve whose matrices share one graph and differ in their values
//! (`solvers::convex`: the active rows change, the bodies' contact graph does not) builds the
//! pattern once and factors many times; [`BlockCholesky`] does both for a single matrix.
//! Neighbour lists are kept sorted, so the arithmetic, and the answer, depend on nothing but the
//! input. For a few hundred bodies of a few neighbours each the cost is a few thousand 6 × 6
//! products, where a general sparse factorization spends longer finding its ordering than this
//! does factoring (faer's, measured on the 10-box stack: 3× slower than a dense factorization).
use crate::util::hash::FastMap;
use nalgebra::{Matrix6, Vector6};

/// The symbolic factorization of a block graph (module documentation): elimination order, the
/// blocks of L, and where each elimination update lands.
#[derive(Clone, Debug)]
pub struct BlockPattern {
    /// Nodes in elimination order.
    order: Vec<usize>,
    /// Node k's blocks of L are `slots[start[k]..start[k + 1]]`, in elimination order of their
    /// rows: block x stands for L_{row[x], k} (and, before the factorization, A_{row[x], k}).
    start: Vec<usize>,
    /// The node i of each block (its block row).
    row: Vec<usize>,
    /// For node k, its pairs x < y of blocks in order: the block A_{row[y], row[x]} that
    /// L_{row[y], k} L_{row[x], k}ᵀ is taken from (one entry per pair, `pairs_start[k]..`).
    pair_target: Vec<usize>,
    pairs_start: Vec<usize>,
    /// Block of the pair (earlier, later) in elimination order.
    slot_of: FastMap<(usize, usize), usize>,
    /// Rank of each node in the order.
    rank: Vec<usize>,
}

/// Where an off-diagonal block A_pq goes in a [`BlockPattern`]'s buffer: `slot`, and whether
/// the block stored there is A_pq (`transposed == false`) or A_qp = A_pqᵀ.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Slot {
    pub slot: usize,
    pub transposed: bool,
}

/// Why a block matrix could not be factored.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BlockCholeskyError {
    #[error("the block matrix is not positive definite (pivot block of node {node})")]
    NotPositiveDefinite { node: usize },
}

impl BlockPattern {
    /// The pattern of an n-node matrix whose off-diagonal blocks are at `pairs` (i ≠ j, either
    /// orientation; repeats and i = j are ignored).
    pub fn new(n: usize, pairs: impl IntoIterator<Item = (usize, usize)>) -> Self {
        let mut adj: Vec<Vec<usize>> = vec![Vec::new(); n];
        for (i, j) in pairs {
            if i != j {
                insert_sorted(&mut adj[i], j);
                insert_sorted(&mut adj[j], i);
            }
        }
        // Minimum-degree elimination on the graph, recording each node's neighbours at its turn.
        let mut eliminated = vec![false; n];
        let mut order = Vec::with_capacity(n);
        let mut neighbours_at: Vec<Vec<usize>> = vec![Vec::new(); n];
        for _ in 0..n {
            let k = (0..n)
                .filter(|&k| !eliminated[k])
                .min_by_key(|&k| (adj[k].len(), k))
                .expect("a node is left");
            eliminated[k] = true;
            order.push(k);
            let neighbours = std::mem::take(&mut adj[k]);
            for (x, &i) in neighbours.iter().enumerate() {
                remove_sorted(&mut adj[i], k);
                for &j in &neighbours[x + 1..] {
                    insert_sorted(&mut adj[i], j);
                    insert_sorted(&mut adj[j], i);
                }
            }
            neighbours_at[k] = neighbours;
        }
        let mut rank = vec![0; n];
        for (r, &k) in order.iter().enumerate() {
            rank[k] = r;
        }
        // Blocks of L, node by node, each node's rows in elimination order.
        let mut start = vec![0; n + 1];
        let mut row = Vec::new();
        let mut slot_of = FastMap::default();
        for k in 0..n {
            let list = &mut neighbours_at[k];
            list.sort_unstable_by_key(|&i| rank[i]);
            start[k] = row.len();
            for &i in list.iter() {
                slot_of.insert((k, i), row.len());
                row.push(i);
            }
        }
        start[n] = row.len();
        let mut pair_target = Vec::new();
        let mut pairs_start = vec![0; n + 1];
        for k in 0..n {
            pairs_start[k] = pair_target.len();
            let rows = &row[start[k]..start[k + 1]];
            for (x, &i) in rows.iter().enumerate() {
                for &j in &rows[x + 1..] {
                    // rank i < rank j: the block A_ji sits with node i.
                    pair_target.push(slot_of[&(i, j)]);
                }
            }
        }
        pairs_start[n] = pair_target.len();
        BlockPattern {
            order,
            start,
            row,
            pair_target,
            pairs_start,
            slot_of,
            rank,
        }
    }

    /// Nodes.
    pub fn n(&self) -> usize {
        self.order.len()
    }

    /// Blocks of L below its diagonal (a tree of n nodes has n − 1; more is fill): the length
    /// of the buffer [`factor`](Self::factor) takes.
    pub fn blocks(&self) -> usize {
        self.row.len()
    }

    /// Where the block A_pq (p ≠ q, an edge of the graph) goes; None for a pair not in it.
    pub fn slot(&self, p: usize, q: usize) -> Option<Slot> {
        let (first, second) = if self.rank[p] < self.rank[q] { (p, q) } else { (q, p) };
        // The block stored with `first` is A_{second, first}: A_pq itself when q is first.
        self.slot_of.get(&(first, second)).map(|&slot| Slot {
            slot,
            transposed: first == p,
        })
    }

    /// Factor in place: on entry `diagonal[k]` = A_kk (symmetric) and `below` holds the
    /// off-diagonal blocks at their slots (zero where the matrix has none); on return
    /// `diagonal[k]` = L_kk⁻¹ and `below` = the blocks of L, for [`solve`](Self::solve).
    pub fn factor(
        &self,
        diagonal: &mut [Matrix6<f64>],
        below: &mut [Matrix6<f64>],
    ) -> Result<(), BlockCholeskyError> {
        debug_assert_eq!(diagonal.len(), self.n());
        debug_assert_eq!(below.len(), self.blocks());
        for &k in &self.order {
            self.eliminate(k, diagonal, below)?;
        }
        Ok(())
    }

    /// The elimination-tree parent of node k: the first-eliminated row of its column of L
    /// (None for a root). Column k of L depends on A's column k and on the columns of k's
    /// descendants only (its updates all come from them).
    pub fn parent(&self, k: usize) -> Option<usize> {
        let blocks = self.start[k]..self.start[k + 1];
        (!blocks.is_empty()).then(|| self.row[blocks.start])
    }

    /// The slots of node k's column of L in [`factor`](Self::factor)'s `below` buffer.
    pub fn column(&self, k: usize) -> std::ops::Range<usize> {
        self.start[k]..self.start[k + 1]
    }

    /// Mark every ancestor of a marked node: the columns of L a change of the marked nodes'
    /// blocks of A changes.
    pub fn mark_ancestors(&self, marked: &mut [bool]) {
        for &k in &self.order {
            if marked[k] {
                if let Some(p) = self.parent(k) {
                    marked[p] = true;
                }
            }
        }
    }

    /// Factor again after some blocks of A changed: on entry, for each `marked` node k
    /// (closed under [`mark_ancestors`](Self::mark_ancestors)) `diagonal[k]` and its column's
    /// blocks of `below` hold A's, and every other node's hold the last factor's, which stays
    /// right (neither its column of A nor any descendant's changed). Only the marked columns are
    /// computed, with the updates of unmarked descendants taken from their stored columns, in the
    /// order [`factor`](Self::factor) applies them: the answer is the full factorization's to
    /// the bit. A Newton step in which 5–60 rows of a thousand change side marks the bodies they
    /// touch and their ancestors, and leaves the rest of the factor as it was.
    pub fn refactor(
        &self,
        diagonal: &mut [Matrix6<f64>],
        below: &mut [Matrix6<f64>],
        marked: &[bool],
    ) -> Result<(), BlockCholeskyError> {
        debug_assert_eq!(marked.len(), self.n());
        for &k in &self.order {
            if marked[k] {
                self.eliminate(k, diagonal, below)?;
            } else {
                self.update_marked(k, diagonal, below, marked);
            }
        }
        Ok(())
    }

    /// Eliminate node k: L_kk⁻¹, its column of L, and its updates of the later blocks.
    fn eliminate(
        &self,
        k: usize,
        diagonal: &mut [Matrix6<f64>],
        below: &mut [Matrix6<f64>],
    ) -> Result<(), BlockCholeskyError> {
        let l_inv = inverse_cholesky_factor(&diagonal[k])
            .ok_or(BlockCholeskyError::NotPositiveDefinite { node: k })?;
        diagonal[k] = l_inv;
        let blocks = self.start[k]..self.start[k + 1];
        // L_ik = A_ik L_kk⁻ᵀ; A_ii ← A_ii − L_ik L_ikᵀ (its lower triangle: the pivot
        // reads no other).
        for x in blocks.clone() {
            let l_ik = times_lower_transpose(&below[x], &l_inv);
            below[x] = l_ik;
            subtract_gram_lower(&mut diagonal[self.row[x]], &l_ik);
        }
        // A_ji ← A_ji − L_jk L_ikᵀ for every pair rank i < rank j.
        let mut target = self.pair_target[self.pairs_start[k]..self.pairs_start[k + 1]].iter();
        for x in blocks.clone() {
            let l_ik = below[x];
            for y in x + 1..blocks.end {
                let t = *target.next().expect("one target per pair");
                let l_jk = below[y];
                subtract_times_transpose(&mut below[t], &l_jk, &l_ik);
            }
        }
        Ok(())
    }

    /// The updates of an unmarked node k (its column of L already computed) on the marked
    /// columns: [`eliminate`](Self::eliminate)'s updates, restricted to them.
    fn update_marked(&self, k: usize, diagonal: &mut [Matrix6<f64>], below: &mut [Matrix6<f64>], marked: &[bool]) {
        let blocks = self.start[k]..self.start[k + 1];
        // The rows are ancestors of k; a marked row's own ancestors are marked (the marks
        // close upward), an earlier row need not be.
        for x in blocks.clone() {
            let i = self.row[x];
            if marked[i] {
                subtract_gram_lower(&mut diagonal[i], &below[x]);
            }
        }
        // Pairs x < y in order, as `pair_target` lists them: those of block x start at `pair`.
        let mut pair = self.pairs_start[k];
        for x in blocks.clone() {
            let later = blocks.end - x - 1;
            if marked[self.row[x]] {
                for (y, &t) in (x + 1..blocks.end).zip(&self.pair_target[pair..pair + later]) {
                    let (l_ik, l_jk) = (below[x], below[y]);
                    subtract_times_transpose(&mut below[t], &l_jk, &l_ik);
                }
            }
            pair += later;
        }
    }

    /// b ← A⁻¹ b, b stacked by node (6 per node), from [`factor`](Self::factor)'s buffers.
    pub fn solve(&self, diagonal: &[Matrix6<f64>], below: &[Matrix6<f64>], b: &mut [f64]) {
        let block = |b: &[f64], k: usize| Vector6::from_column_slice(&b[6 * k..6 * k + 6]);
        let store = |b: &mut [f64], k: usize, v: &Vector6<f64>| {
            b[6 * k..6 * k + 6].copy_from_slice(v.as_slice())
        };
        // L y = b, in elimination order.
        for &k in &self.order {
            let y = diagonal[k] * block(b, k);
            store(b, k, &y);
            for x in self.start[k]..self.start[k + 1] {
                let i = self.row[x];
                let bi = block(b, i) - below[x] * y;
                store(b, i, &bi);
            }
        }
        // Lᵀ x = y, in reverse.
        for &k in self.order.iter().rev() {
            let mut y = block(b, k);
            for x in self.start[k]..self.start[k + 1] {
                y -= below[x].transpose() * block(b, self.row[x]);
            }
            let x = diagonal[k].transpose() * y;
            store(b, k, &x);
        }
    }
}

/// The factor of one matrix: its [`BlockPattern`] and numeric blocks.
#[derive(Clone, Debug)]
pub struct BlockCholesky {
    pattern: BlockPattern,
    /// L_kk⁻¹ of each node.
    diagonal: Vec<Matrix6<f64>>,
    /// The blocks of L, at the pattern's slots.
    below: Vec<Matrix6<f64>>,
}

impl BlockCholesky {
    /// Factor the matrix with diagonal blocks `diagonal` (one per node, symmetric) and the
    /// off-diagonal blocks `(i, j, A_ij)`, i ≠ j (A_ji = A_ijᵀ is implied; a repeated pair adds
    /// up, in either orientation).
    pub fn factor(
        diagonal: Vec<Matrix6<f64>>,
        off_diagonal: &[(usize, usize, Matrix6<f64>)],
    ) -> Result<Self, BlockCholeskyError> {
        let pattern = BlockPattern::new(diagonal.len(), off_diagonal.iter().map(|&(i, j, _)| (i, j)));
        let mut below = vec![Matrix6::zeros(); pattern.blocks()];
        for &(i, j, a) in off_diagonal {
            let Some(Slot { slot, transposed }) = pattern.slot(i, j) else {
                continue;
            };
            below[slot] += if transposed { a.transpose() } else { a };
        }
        let mut diagonal = diagonal;
        pattern.factor(&mut diagonal, &mut below)?;
        Ok(BlockCholesky {
            pattern,
            diagonal,
            below,
        })
    }

    /// Nodes.
    pub fn n(&self) -> usize {
        self.pattern.n()
    }

    /// Blocks of L below its diagonal (a tree of n nodes has n − 1; more is fill).
    pub fn fill_blocks(&self) -> usize {
        self.pattern.blocks()
    }

    /// b ← A⁻¹ b, b stacked by node (6 per node).
    pub fn solve(&self, b: &mut [f64]) {
        self.pattern.solve(&self.diagonal, &self.below, b);
    }
}

/// L⁻¹ for the Cholesky factor L (lower triangular, positive diagonal) of a symmetric 6 × 6
/// block A = L Lᵀ; None unless A is positive definite (a pivot ≤ 0 or not finite). Written out
/// for the fixed size, computing what nalgebra's `cholesky` followed by its triangular solve of
/// the identity did (the 64-box bin's trajectory came out the same to the bit) without their
/// generic loops: on the bin's first 2 s under `anitescu-convex` (a
/// block factored per node at every Newton step) the factorization's share of the run fell from
/// 22.8 % to 18.0 % of the time before (`perf record`, one run each).
fn inverse_cholesky_factor(a: &Matrix6<f64>) -> Option<Matrix6<f64>> {
    // L, column by column (Cholesky–Banachiewicz on the lower triangle).
    let mut l = [[0.0f64; 6]; 6];
    for i in 0..6 {
        for j in 0..=i {
            let mut sum = a[(i, j)];
            for p in 0..j {
                sum -= l[i][p] * l[j][p];
            }
            if i == j {
                if !(sum > 0.0) || !sum.is_finite() {
                    return None;
                }
                l[i][i] = sum.sqrt();
            } else {
                l[i][j] = sum / l[j][j];
            }
        }
    }
    // X = L⁻¹ (lower triangular): X_jj = 1 / L_jj, X_ij = −(Σ_{p=j}^{i−1} L_ip X_pj) / L_ii.
    let mut x = Matrix6::zeros();
    for j in 0..6 {
        x[(j, j)] = 1.0 / l[j][j];
        for i in j + 1..6 {
            let mut sum = 0.0;
            for p in j..i {
                sum += l[i][p] * x[(p, j)];
            }
            x[(i, j)] = -sum / l[i][i];
        }
    }
    Some(x)
}

/// T ← T − A Bᵀ, each entry of A Bᵀ summed over k in order from the k = 0 product (as
/// nalgebra's product sums it, so the answer is the same to the bit), column by column: the
/// factorization's inner loop, written out for 6 × 6 blocks.
#[inline]
fn subtract_times_transpose(t: &mut Matrix6<f64>, a: &Matrix6<f64>, b: &Matrix6<f64>) {
    let (a, b) = (a.as_slice(), b.as_slice());
    for (j, target) in t.as_mut_slice().chunks_exact_mut(6).enumerate() {
        // Column j of A Bᵀ = Σ_k (column k of A) B_jk; B_jk sits at 6 k + j.
        let mut column = [0.0f64; 6];
        let w = b[j];
        for i in 0..6 {
            column[i] = a[i] * w;
        }
        for k in 1..6 {
            let w = b[6 * k + j];
            for i in 0..6 {
                column[i] += a[6 * k + i] * w;
            }
        }
        for i in 0..6 {
            target[i] -= column[i];
        }
    }
}

/// A Lᵀ for a lower triangular L, summed as [`subtract_times_transpose`] sums A Bᵀ, without
/// the products by L's zeros above its diagonal.
#[inline]
fn times_lower_transpose(a: &Matrix6<f64>, l: &Matrix6<f64>) -> Matrix6<f64> {
    let (a, l) = (a.as_slice(), l.as_slice());
    let mut c = [0.0f64; 36];
    for (j, column) in c.chunks_exact_mut(6).enumerate() {
        // Column j of A Lᵀ = Σ_{k ≤ j} (column k of A) L_jk.
        let w = l[j];
        for i in 0..6 {
            column[i] = a[i] * w;
        }
        for k in 1..=j {
            let w = l[6 * k + j];
            for i in 0..6 {
                column[i] += a[6 * k + i] * w;
            }
        }
    }
    Matrix6::from_column_slice(&c)
}

/// The lower triangle of D ← D − A Aᵀ (each entry as [`subtract_times_transpose`] sums it); the upper
/// triangle is left as it was.
#[inline]
fn subtract_gram_lower(d: &mut Matrix6<f64>, a: &Matrix6<f64>) {
    let a = a.as_slice();
    for j in 0..6 {
        for i in j..6 {
            let mut sum = a[i] * a[j];
            for k in 1..6 {
                sum += a[6 * k + i] * a[6 * k + j];
            }
            d[(i, j)] -= sum;
        }
    }
}

/// Insert j into the sorted `list` unless present.
fn insert_sorted(list: &mut Vec<usize>, j: usize) {
    if let Err(x) = list.binary_search(&j) {
        list.insert(x, j);
    }
}

/// Remove j from the sorted `list`.
fn remove_sorted(list: &mut Vec<usize>, j: usize) {
    if let Ok(x) = list.binary_search(&j) {
        list.remove(x);
    }
}
