//! The recursive algorithms of `multibody::algorithms` against each other and against the
//! energies they must agree with, on seeded random trees (serial and branched, every joint kind,
//! armature, gravity): ABA = H⁻¹(τ − C) with H from CRBA and C from RNEA; RNEA inverts ABA; H is
//! symmetric positive definite with ½ vᵀHv the links' kinetic energy; link velocities are the
//! derivatives of link poses along v; C(q, 0) is the gradient of the potential energy.
#[path = "common/multibody.rs"]
mod mb;

use mb::{random_state, random_tree, random_vector, G};
use nalgebra::{DMatrix, DVector};
use signorini::multibody::algorithms::{
    aba, bias_forces, crba, forward_kinematics, kinetic_energy, potential_energy, rnea,
};
use signorini::multibody::{Tree, Workspace};
use signorini::util::rng::Rng;

/// (tree, q, v, τ) cases: for each shape (serial, branched) and size (1, 2, 5, 12 links),
/// three random trees with a random state and random joint forces (±5 N m or N).
type Case = (String, Tree, Vec<f64>, Vec<f64>, Vec<f64>);

fn cases() -> Vec<Case> {
    let mut rng = Rng::new(18);
    let mut out = Vec::new();
    for branched in [false, true] {
        for n in [1, 2, 5, 12] {
            for k in 0..3 {
                let tree = random_tree(&mut rng, n, branched, G);
                let (q, v) = random_state(&mut rng, &tree);
                let tau = random_vector(&mut rng, tree.nv(), 5.0);
                let name = format!(
                    "{} n={n} #{k}",
                    if branched { "branched" } else { "serial" }
                );
                out.push((name, tree, q, v, tau));
            }
        }
    }
    out
}

fn norm(x: &[f64]) -> f64 {
    x.iter().map(|a| a * a).sum::<f64>().sqrt()
}

fn dist(a: &[f64], b: &[f64]) -> f64 {
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y) * (x - y))
        .sum::<f64>()
        .sqrt()
}

/// Condition number of a symmetric positive definite matrix (ratio of extreme eigenvalues).
fn condition(h: &DMatrix<f64>) -> f64 {
    let e = h.clone().symmetric_eigen().eigenvalues;
    e.max() / e.min()
}

#[test]
fn aba_equals_the_mass_matrix_solve_on_random_trees() {
    // q̈_ABA against H⁻¹(τ − C), H by CRBA and C by RNEA, solved by Cholesky. The two routes
    // share only the joint models and transforms. The solve's relative error is ≤ ~κ(H) n ε;
    // with κ(H) < 1e4 (asserted) and n ≤ 40 that is ≤ 1e-10, the agreement target.
    let mut worst: f64 = 0.0;
    for (name, tree, q, v, tau) in cases() {
        let mut ws = Workspace::new(&tree);
        let mut qdd = vec![0.0; tree.nv()];
        aba(&tree, &mut ws, &q, &v, &tau, &mut qdd).unwrap();
        let mut c = vec![0.0; tree.nv()];
        bias_forces(&tree, &mut ws, &q, &v, &mut c).unwrap();
        let h = crba(&tree, &mut ws, &q).unwrap().clone();
        let kappa = condition(&h);
        assert!(kappa < 1e4, "{name}: κ(H) = {kappa:e}");
        let rhs = DVector::from_iterator(tree.nv(), tau.iter().zip(&c).map(|(t, c)| t - c));
        let expected = h.cholesky().expect("H is SPD").solve(&rhs);
        let err = dist(&qdd, expected.as_slice()) / norm(expected.as_slice());
        worst = worst.max(err);
        assert!(err <= 1e-10, "{name}: relative difference {err:e}");
    }
    println!("ABA vs H⁻¹(τ − C): worst relative difference {worst:.2e}");
}

#[test]
fn rnea_of_aba_returns_the_joint_forces() {
    // τ → q̈ → τ: the round trip loses ~κ(H) ε relative to |τ| + |C|; 1e-10 as above.
    let mut worst: f64 = 0.0;
    for (name, tree, q, v, tau) in cases() {
        let mut ws = Workspace::new(&tree);
        let mut qdd = vec![0.0; tree.nv()];
        aba(&tree, &mut ws, &q, &v, &tau, &mut qdd).unwrap();
        let mut back = vec![0.0; tree.nv()];
        rnea(&tree, &mut ws, &q, &v, &qdd, &mut back).unwrap();
        let mut c = vec![0.0; tree.nv()];
        bias_forces(&tree, &mut ws, &q, &v, &mut c).unwrap();
        let err = dist(&back, &tau) / (norm(&tau) + norm(&c));
        worst = worst.max(err);
        assert!(err <= 1e-10, "{name}: relative difference {err:e}");
    }
    println!("RNEA(ABA(τ)) vs τ: worst relative difference {worst:.2e}");
}

#[test]
fn the_mass_matrix_is_symmetric_positive_definite_and_gives_the_kinetic_energy() {
    // H is written symmetric by construction (both triangles from the same product): exactly
    // symmetric. Positive definite: Cholesky succeeds and the smallest eigenvalue is positive.
    // ½ vᵀ H v against Σ ½ v_iᵀ I_i v_i + ½ Σ armature q̇²: two sums of ~n² and ~n products of
    // O(1) terms, 1e-12 relative.
    let mut worst: f64 = 0.0;
    for (name, tree, q, v, _) in cases() {
        let mut ws = Workspace::new(&tree);
        let h = crba(&tree, &mut ws, &q).unwrap().clone();
        assert_eq!(h, h.transpose(), "{name}: H not symmetric");
        assert!(
            h.clone().cholesky().is_some(),
            "{name}: H not positive definite"
        );
        assert!(
            h.clone().symmetric_eigen().eigenvalues.min() > 0.0,
            "{name}"
        );
        let vv = DVector::from_column_slice(&v);
        let from_h = 0.5 * vv.dot(&(&h * &vv));
        let ke = kinetic_energy(&tree, &mut ws, &q, &v).unwrap();
        let err = (from_h - ke).abs() / ke;
        worst = worst.max(err);
        assert!(err <= 1e-12, "{name}: ½vᵀHv = {from_h}, Σ links = {ke}");
    }
    println!("½ vᵀHv vs link kinetic energy: worst relative difference {worst:.2e}");
}

/// q ⊕ s·v: where moving with velocity v for a time s leads to first order (each joint's
/// tangent rate at q, then its retraction; exact for constant joint velocities).
fn moved(tree: &Tree, q: &[f64], v: &[f64], s: f64) -> Vec<f64> {
    let mut out = q.to_vec();
    for (i, l) in tree.links().iter().enumerate() {
        let (qo, vo) = (tree.q_offset(i), tree.v_offset(i));
        let (nq, nv) = (l.joint.nq(), l.joint.nv());
        let mut d = vec![0.0; nv];
        l.joint
            .tangent_rate(&q[qo..qo + nq], &vec![0.0; nv], &v[vo..vo + nv], &mut d);
        d.iter_mut().for_each(|x| *x *= s);
        l.joint.retract(&q[qo..qo + nq], &d, &mut out[qo..qo + nq]);
    }
    out
}

#[test]
fn link_velocities_are_the_derivatives_of_link_poses() {
    // Central differences of forward kinematics along q ⊕ ±s v, s = 1e-5 s: truncation
    // O(s² |v|³ reach) ≈ 1e-10 · 8 · 5 m, round-off ε |x| / s ≈ 1e-11: 1e-8 absolute (m/s,
    // rad/s). This ties the joint's velocity convention (child axes, angular first) to its
    // position update for every kind.
    let s = 1e-5;
    for (name, tree, q, v, _) in cases() {
        let mut ws = Workspace::new(&tree);
        let now = forward_kinematics(&tree, &mut ws, &q, &v).unwrap().to_vec();
        let zero = vec![0.0; tree.nv()];
        let plus = forward_kinematics(&tree, &mut ws, &moved(&tree, &q, &v, s), &zero)
            .unwrap()
            .to_vec();
        let minus = forward_kinematics(&tree, &mut ws, &moved(&tree, &q, &v, -s), &zero)
            .unwrap()
            .to_vec();
        for i in 0..tree.len() {
            let dp = (plus[i].position - minus[i].position) / (2.0 * s);
            assert!(
                (dp - now[i].velocity).length() < 1e-8,
                "{name} link {i}: ṗ {dp} vs {}",
                now[i].velocity
            );
            // Ṙ Rᵀ = ω×: ω from the skew part of (R₊ − R₋) Rᵀ / 2s.
            let dr =
                (plus[i].rotation - minus[i].rotation) * now[i].rotation.transpose() / (2.0 * s);
            let w = signorini::DVec3::new(
                dr.y_axis.z - dr.z_axis.y,
                dr.z_axis.x - dr.x_axis.z,
                dr.x_axis.y - dr.y_axis.x,
            ) / 2.0;
            assert!(
                (w - now[i].angular_velocity).length() < 1e-8,
                "{name} link {i}: ω {w} vs {}",
                now[i].angular_velocity
            );
        }
    }
}

#[test]
fn gravity_forces_are_the_gradient_of_the_potential_energy() {
    // At rest C(q, 0) = ∂V/∂s along q ⊕ s e_k (moving with unit velocity in degree of
    // freedom k, the direction τ_k is dual to): central differences with step 1e-5, truncation O(1e-10 · m g reach) and round-off
    // ε |V| / 1e-5 ≈ 1e-9: 1e-7 absolute against forces of ~10–100 N m.
    let e = 1e-5;
    for (name, tree, q, _, _) in cases() {
        let mut ws = Workspace::new(&tree);
        let zero = vec![0.0; tree.nv()];
        let mut c = vec![0.0; tree.nv()];
        bias_forces(&tree, &mut ws, &q, &zero, &mut c).unwrap();
        for k in 0..tree.nv() {
            let mut dir = zero.clone();
            dir[k] = 1.0;
            let vp = potential_energy(&tree, &mut ws, &moved(&tree, &q, &dir, e)).unwrap();
            let vm = potential_energy(&tree, &mut ws, &moved(&tree, &q, &dir, -e)).unwrap();
            let grad = (vp - vm) / (2.0 * e);
            assert!(
                (grad - c[k]).abs() < 1e-7,
                "{name} dof {k}: ∂V = {grad}, C = {}",
                c[k]
            );
        }
    }
}

#[test]
fn aba_is_deterministic_in_a_reused_workspace() {
    // Nothing of a call leaks into the next: the second answer is bit-identical.
    let (name, tree, q, v, tau) = cases().remove(20);
    let mut ws = Workspace::new(&tree);
    let (mut a, mut b) = (vec![0.0; tree.nv()], vec![0.0; tree.nv()]);
    aba(&tree, &mut ws, &q, &v, &tau, &mut a).unwrap();
    aba(&tree, &mut ws, &q, &v, &tau, &mut b).unwrap();
    assert_eq!(a, b, "{name}: ABA is deterministic in a reused workspace");
}
