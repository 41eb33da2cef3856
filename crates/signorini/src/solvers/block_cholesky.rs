//! Cholesky factorization of a symmetric positive definite matrix of 6 × 6 blocks whose block
//! sparsity is a graph of bodies (the linearly implicit penalty step's M + h Σ D JᵀJ couples
//! each body to the bodies it touches, `pipeline::implicit`).
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
//! (i = j updates the diagonal; i ≠ j may create a block, the fill). Neighbour lists are kept
//! sorted, so the arithmetic, and the answer, do not depend on anything but the input.
//! For a few hundred bodies of a few neighbours each the cost is a few thousand 6 × 6 products,
//! where a general sparse factorization spends longer finding its ordering than this does
//! factoring (faer's, measured on the 10-box stack: 3× slower than a dense factorization).
use nalgebra::{Matrix6, Vector6};

/// The L factor of a block matrix (see the module documentation).
#[derive(Clone, Debug)]
pub struct BlockCholesky {
    /// Nodes in elimination order.
    order: Vec<usize>,
    /// L_kk of each node (lower triangular), by node.
    diagonal: Vec<Matrix6<f64>>,
    /// (i, L_ik) of each node k's neighbours at its elimination, by node.
    below: Vec<Vec<(usize, Matrix6<f64>)>>,
}

/// Why a block matrix could not be factored.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BlockCholeskyError {
    #[error("the block matrix is not positive definite (pivot block of node {node})")]
    NotPositiveDefinite { node: usize },
}

impl BlockCholesky {
    /// Factor the matrix with diagonal blocks `diagonal` (one per node, symmetric) and the
    /// off-diagonal blocks `(i, j, A_ij)`, i ≠ j (A_ji = A_ijᵀ is implied; a repeated pair adds
    /// up, in either orientation).
    pub fn factor(
        diagonal: Vec<Matrix6<f64>>,
        off_diagonal: &[(usize, usize, Matrix6<f64>)],
    ) -> Result<Self, BlockCholeskyError> {
        let n = diagonal.len();
        let mut diag = diagonal;
        // Neighbour lists, sorted by node: node i's holds (j, A_ij).
        let mut adj: Vec<Vec<(usize, Matrix6<f64>)>> = vec![Vec::new(); n];
        for &(i, j, a) in off_diagonal {
            add_block(&mut adj[i], j, &a);
            add_block(&mut adj[j], i, &a.transpose());
        }
        let mut eliminated = vec![false; n];
        let mut order = Vec::with_capacity(n);
        let mut l_diag = vec![Matrix6::zeros(); n];
        let mut below = vec![Vec::new(); n];
        for _ in 0..n {
            let k = (0..n)
                .filter(|&k| !eliminated[k])
                .min_by_key(|&k| (adj[k].len(), k))
                .expect("a node is left");
            eliminated[k] = true;
            order.push(k);
            let l_kk = diag[k]
                .cholesky()
                .ok_or(BlockCholeskyError::NotPositiveDefinite { node: k })?
                .l();
            let neighbours = std::mem::take(&mut adj[k]);
            // L_ik = A_ik L_kk⁻ᵀ, i.e. L_kk L_ikᵀ = A_ki (node k's list holds the blocks A_ki).
            let l_ik: Vec<(usize, Matrix6<f64>)> = neighbours
                .iter()
                .map(|(i, a_ki)| {
                    let t = l_kk
                        .solve_lower_triangular(a_ki)
                        .expect("L_kk has a positive diagonal");
                    (*i, t.transpose())
                })
                .collect();
            for (x, &(i, l_i)) in l_ik.iter().enumerate() {
                remove_block(&mut adj[i], k);
                diag[i] -= l_i * l_i.transpose();
                for &(j, l_j) in &l_ik[x + 1..] {
                    let update = -(l_i * l_j.transpose());
                    add_block(&mut adj[i], j, &update);
                    add_block(&mut adj[j], i, &update.transpose());
                }
            }
            l_diag[k] = l_kk;
            below[k] = l_ik;
        }
        Ok(BlockCholesky {
            order,
            diagonal: l_diag,
            below,
        })
    }

    /// Nodes.
    pub fn n(&self) -> usize {
        self.order.len()
    }

    /// Blocks of L below its diagonal (a tree of n nodes has n − 1; more is fill).
    pub fn fill_blocks(&self) -> usize {
        self.below.iter().map(Vec::len).sum()
    }

    /// b ← A⁻¹ b, b stacked by node (6 per node).
    pub fn solve(&self, b: &mut [f64]) {
        let block = |b: &[f64], k: usize| Vector6::from_column_slice(&b[6 * k..6 * k + 6]);
        let store = |b: &mut [f64], k: usize, v: &Vector6<f64>| {
            b[6 * k..6 * k + 6].copy_from_slice(v.as_slice())
        };
        // L y = b, in elimination order.
        for &k in &self.order {
            let y = self.diagonal[k]
                .solve_lower_triangular(&block(b, k))
                .expect("L_kk has a positive diagonal");
            store(b, k, &y);
            for (i, l_ik) in &self.below[k] {
                let bi = block(b, *i) - l_ik * y;
                store(b, *i, &bi);
            }
        }
        // Lᵀ x = y, in reverse.
        for &k in self.order.iter().rev() {
            let mut y = block(b, k);
            for (i, l_ik) in &self.below[k] {
                y -= l_ik.transpose() * block(b, *i);
            }
            let x = self.diagonal[k]
                .tr_solve_lower_triangular(&y)
                .expect("L_kk has a positive diagonal");
            store(b, k, &x);
        }
    }
}

/// list[j] += a, keeping `list` sorted by node.
fn add_block(list: &mut Vec<(usize, Matrix6<f64>)>, j: usize, a: &Matrix6<f64>) {
    match list.binary_search_by_key(&j, |(n, _)| *n) {
        Ok(x) => list[x].1 += a,
        Err(x) => list.insert(x, (j, *a)),
    }
}

/// Remove node j from `list`.
fn remove_block(list: &mut Vec<(usize, Matrix6<f64>)>, j: usize) {
    if let Ok(x) = list.binary_search_by_key(&j, |(n, _)| *n) {
        list.remove(x);
    }
}
