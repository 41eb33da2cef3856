//! Block Cholesky against a dense solve of the same matrix (nalgebra's LU), on random
//! symmetric positive definite block matrices with the sparsity of random contact graphs.
use nalgebra::{DMatrix, DVector, Matrix6};
use proptest::prelude::*;
use signorini::solvers::block_cholesky::{BlockCholesky, BlockPattern};

/// Diagonal blocks, off-diagonal blocks (i, j, A_ij), and the same matrix dense.
type BlockMatrix = (
    Vec<Matrix6<f64>>,
    Vec<(usize, usize, Matrix6<f64>)>,
    DMatrix<f64>,
);

/// An edge of the contact graph: (p, q, v_p, v_q, D).
type Edge = (usize, usize, [f64; 6], [f64; 6], f64);

/// A random SPD block matrix: diagonal blocks B Bᵀ + I and, per edge, the outer products of
/// random 6-vectors v_p, v_q added as in M + D JᵀJ (so the whole is SPD), with the dense copy.
fn block_matrix(n: usize, edges: &[Edge], seeds: &[[f64; 36]]) -> BlockMatrix {
    let mut diagonal: Vec<Matrix6<f64>> = (0..n)
        .map(|k| {
            let b = Matrix6::from_column_slice(&seeds[k % seeds.len()]);
            b * b.transpose() + Matrix6::identity()
        })
        .collect();
    let mut off = Vec::new();
    for &(p, q, vp, vq, d) in edges {
        if p == q {
            continue;
        }
        let (vp, vq) = (
            nalgebra::Vector6::from_column_slice(&vp),
            nalgebra::Vector6::from_column_slice(&vq),
        );
        diagonal[p] += d * vp * vp.transpose();
        diagonal[q] += d * vq * vq.transpose();
        off.push((p, q, d * vp * vq.transpose()));
    }
    let mut dense = DMatrix::zeros(6 * n, 6 * n);
    for (k, b) in diagonal.iter().enumerate() {
        dense.view_mut((6 * k, 6 * k), (6, 6)).copy_from(b);
    }
    for &(p, q, b) in &off {
        let mut v = dense.view_mut((6 * p, 6 * q), (6, 6));
        v += b;
        let mut w = dense.view_mut((6 * q, 6 * p), (6, 6));
        w += b.transpose();
    }
    (diagonal, off, dense)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// The block factorization solves what a dense LU solves, to 1e-9 relative (both backward
    /// stable on matrices with condition numbers ≲ 1e4 here).
    #[test]
    fn matches_a_dense_solve(
        n in 1usize..12,
        edges in prop::collection::vec(
            (0usize..12, 0usize..12, prop::array::uniform6(-1.0f64..1.0), prop::array::uniform6(-1.0f64..1.0), 0.0f64..100.0),
            0..30,
        ),
        seeds in prop::collection::vec(prop::array::uniform32(-1.0f64..1.0), 1..4),
        b in prop::collection::vec(-10.0f64..10.0, 72),
    ) {
        let edges: Vec<_> = edges.into_iter().map(|(p, q, a, c, d)| (p % n, q % n, a, c, d)).collect();
        let seeds: Vec<[f64; 36]> = seeds.iter().map(|s| {
            let mut m = [0.0; 36];
            for (k, v) in m.iter_mut().enumerate() { *v = s[k % 32]; }
            m
        }).collect();
        let (diagonal, off, dense) = block_matrix(n, &edges, &seeds);
        let rhs = DVector::from_column_slice(&b[..6 * n]);
        let expected = dense.clone().lu().solve(&rhs).expect("SPD");
        let chol = BlockCholesky::factor(diagonal, &off).expect("SPD");
        let mut x = rhs.as_slice().to_vec();
        chol.solve(&mut x);
        let x = DVector::from_vec(x);
        let err = (&x - &expected).norm() / expected.norm().max(1e-300);
        prop_assert!(err < 1e-9, "relative error {err:e}");
        let residual = (&dense * &x - &rhs).norm() / rhs.norm().max(1e-300);
        prop_assert!(residual < 1e-10, "relative residual {residual:e}");
    }
}

/// A chain (a stack of boxes) fills in nothing: the factor has one block below each node but
/// the last eliminated.
#[test]
fn a_chain_is_factored_without_fill() {
    let n = 10;
    let v = [1.0, 0.5, -0.25, 0.1, 0.0, 0.3];
    let edges: Vec<_> = (0..n - 1).map(|k| (k, k + 1, v, v, 10.0)).collect();
    let seeds = vec![[0.1; 36]];
    let (diagonal, off, dense) = block_matrix(n, &edges, &seeds);
    let chol = BlockCholesky::factor(diagonal, &off).unwrap();
    assert_eq!(chol.fill_blocks(), n - 1);
    let rhs = DVector::from_fn(6 * n, |i, _| (i as f64).sin());
    let mut x = rhs.as_slice().to_vec();
    chol.solve(&mut x);
    let residual = (&dense * DVector::from_vec(x) - &rhs).norm() / rhs.norm();
    assert!(residual < 1e-12, "{residual:e}");
}

/// Assemble `diagonal` and `off` into a pattern's buffers through `BlockPattern::slot`.
fn assemble(
    pattern: &BlockPattern,
    diagonal: &[Matrix6<f64>],
    off: &[(usize, usize, Matrix6<f64>)],
) -> (Vec<Matrix6<f64>>, Vec<Matrix6<f64>>) {
    let mut below = vec![Matrix6::zeros(); pattern.blocks()];
    for &(p, q, a) in off {
        let slot = pattern.slot(p, q).expect("an edge of the pattern");
        below[slot.slot] += if slot.transposed { a.transpose() } else { a };
    }
    (diagonal.to_vec(), below)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    /// One symbolic pattern, factored again and again with different values (as the convex
    /// solve's Newton steps do, with some of the graph's blocks zero), solves each matrix as a
    /// dense LU does, to the same 1e-9 as above; the blocks' orientation (`Slot::transposed`)
    /// matters as soon as a pair is given as (q, p), which half the random edges are.
    #[test]
    fn one_pattern_factors_many_matrices(
        n in 2usize..10,
        edges in prop::collection::vec(
            (0usize..10, 0usize..10, prop::array::uniform6(-1.0f64..1.0), prop::array::uniform6(-1.0f64..1.0), 0.0f64..100.0),
            1..25,
        ),
        keep in prop::collection::vec(any::<bool>(), 25),
        b in prop::collection::vec(-10.0f64..10.0, 60),
    ) {
        let edges: Vec<_> = edges.into_iter().map(|(p, q, a, c, d)| (p % n, q % n, a, c, d)).collect();
        let pattern = BlockPattern::new(n, edges.iter().map(|&(p, q, ..)| (p, q)));
        // The whole graph, then a subset of its edges (the rest zero), with the one pattern.
        for subset in [false, true] {
            let chosen: Vec<_> = edges
                .iter()
                .zip(&keep)
                .filter(|(_, &k)| !subset || k)
                .map(|(e, _)| *e)
                .collect();
            let (diag, off, dense) = block_matrix(n, &chosen, &[[0.3; 36]]);
            let (mut diagonal, mut below) = assemble(&pattern, &diag, &off);
            pattern.factor(&mut diagonal, &mut below).expect("SPD");
            let rhs = DVector::from_column_slice(&b[..6 * n]);
            let expected = dense.clone().lu().solve(&rhs).expect("SPD");
            let mut x = rhs.as_slice().to_vec();
            pattern.solve(&diagonal, &below, &mut x);
            let x = DVector::from_vec(x);
            let err = (&x - &expected).norm() / expected.norm().max(1e-300);
            prop_assert!(err < 1e-9, "relative error {err:e}");
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// `BlockPattern::refactor` after some edges of the matrix changed (a Newton step whose rows
    /// changed side) gives the full factorization's blocks bit for bit: the marked nodes are the
    /// changed edges' ends, closed under `mark_ancestors`, and every other node's stored column
    /// is reused. Compared with `factor` of the new matrix from scratch, every block (the
    /// diagonal L_kk⁻¹ and the below-diagonal ones) must have the same bits, so a wrong mark
    /// (a column kept that should have changed) or an update applied in another order fails.
    #[test]
    fn refactoring_the_changed_columns_is_the_full_factor_to_the_bit(
        n in 2usize..12,
        edges in prop::collection::vec(
            (0usize..12, 0usize..12, prop::array::uniform6(-1.0f64..1.0), prop::array::uniform6(-1.0f64..1.0), 0.0f64..100.0),
            1..30,
        ),
        keep in prop::collection::vec(any::<bool>(), 30),
    ) {
        let edges: Vec<_> = edges.into_iter().map(|(p, q, a, c, d)| (p % n, q % n, a, c, d)).collect();
        let pattern = BlockPattern::new(n, edges.iter().map(|&(p, q, ..)| (p, q)));
        let seeds = [[0.3; 36]];
        // Before: every edge. After: only the kept ones (the others' blocks zero).
        let (diag, off, _) = block_matrix(n, &edges, &seeds);
        let (mut diagonal, mut below) = assemble(&pattern, &diag, &off);
        pattern.factor(&mut diagonal, &mut below).expect("SPD");
        let kept: Vec<_> = edges.iter().zip(&keep).filter(|(_, &k)| k).map(|(e, _)| *e).collect();
        let (new_diag, new_off, _) = block_matrix(n, &kept, &seeds);
        let (mut full_diagonal, mut full_below) = assemble(&pattern, &new_diag, &new_off);
        pattern.factor(&mut full_diagonal, &mut full_below).expect("SPD");
        // Mark the ends of the dropped edges (self-loops change nothing), then their ancestors;
        // reset the marked columns to the new matrix's blocks and refactor.
        let mut marked = vec![false; n];
        for (&(p, q, ..), _) in edges.iter().zip(&keep).filter(|(e, &k)| !k && e.0 != e.1) {
            marked[p] = true;
            marked[q] = true;
        }
        pattern.mark_ancestors(&mut marked);
        let new_below = assemble(&pattern, &new_diag, &new_off).1;
        for k in (0..n).filter(|&k| marked[k]) {
            diagonal[k] = new_diag[k];
            let column = pattern.column(k);
            below[column.clone()].copy_from_slice(&new_below[column]);
        }
        pattern.refactor(&mut diagonal, &mut below, &marked).expect("SPD");
        let bits = |m: &[Matrix6<f64>]| m.iter().flat_map(|b| b.iter().map(|v| v.to_bits())).collect::<Vec<_>>();
        prop_assert_eq!(bits(&diagonal), bits(&full_diagonal));
        prop_assert_eq!(bits(&below), bits(&full_below));
        // Nothing marked: the factor is left as it was.
        let before = (bits(&diagonal), bits(&below));
        pattern.refactor(&mut diagonal, &mut below, &vec![false; n]).expect("SPD");
        prop_assert_eq!((bits(&diagonal), bits(&below)), before);
    }
}
