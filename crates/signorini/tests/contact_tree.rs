//! Contact of trees with the ground (`contact::tree`): the point Jacobian against forward
//! kinematics and finite differences, penalty contact's rest depth, Stewart–Trinkle's resting
//! height, Coulomb friction's stick and slide, and a joint limit in the LCP.
mod common;
#[path = "common/multibody.rs"]
mod mb;

use mb::{box_inertia, random_state, random_tree, rod, G};
use signorini::contact::tree::ground::point_velocity;
use signorini::contact::tree::{
    point_jacobian, LinkShape, TreeLcp, TreeLcpParams, TreePenalty, TreePenaltyParams,
};
use signorini::geometry::{Pose, Shape};
use signorini::multibody::algorithms::forward_kinematics;
use signorini::multibody::{Controls, JointKind, Link, MbIntegrator, Tree, Workspace};
use signorini::util::rng::Rng;
use signorini::DVec3;

const M: f64 = 2.0;
const HALF: f64 = 0.1;

/// A 0.2 m cube of 2 kg on a floating joint, its centre at height z.
fn floating_box(z: f64) -> (Tree, Vec<LinkShape>, Vec<f64>, f64) {
    let link = Link::new(
        "box",
        None,
        JointKind::Floating,
        M,
        DVec3::ZERO,
        box_inertia(M, 0.2, 0.2, 0.2),
    );
    let tree = Tree::new(vec![link], G).unwrap();
    let shapes = vec![LinkShape {
        link: 0,
        pose: Pose::IDENTITY,
        shape: Shape::cuboid(DVec3::splat(2.0 * HALF)).unwrap(),
        friction: 0.3,
    }];
    let mut q = tree.neutral_q();
    q[2] = z;
    (tree, shapes, q, M)
}

#[test]
fn point_jacobian_matches_forward_kinematics_and_finite_differences() {
    let mut rng = Rng::new(7);
    for trial in 0..12 {
        let tree = random_tree(&mut rng, 7, trial % 2 == 1, G);
        let mut ws = Workspace::new(&tree);
        let (q, v) = random_state(&mut rng, &tree);
        let links = forward_kinematics(&tree, &mut ws, &q, &v).unwrap().to_vec();
        for link in 0..tree.len() {
            let local = DVec3::new(rng.uniform(-0.3, 0.3), rng.uniform(-0.3, 0.3), 0.1);
            let p = links[link].point(local);
            let mut jac = vec![DVec3::ZERO; tree.nv()];
            point_jacobian(&tree, &links, link, p, &mut jac);
            let jv: DVec3 = jac.iter().zip(&v).map(|(c, w)| *c * *w).sum();
            let exact = point_velocity(&links, link, p);
            // Both are the same sums of products of order-1 numbers: round-off only.
            assert!(
                (jv - exact).length() <= 1e-12 * (1.0 + exact.length()),
                "{jv} {exact}"
            );
            // Central differences of the point's position along q ⊕ ±ε v: truncation O(ε²),
            // ε = 1e-6 gives ~1e-12 truncation and ~1e-10 round-off (1e-16 / ε).
            let eps = 1e-6;
            let moved = |s: f64| {
                let mut qs = q.clone();
                for (i, l) in tree.links().iter().enumerate() {
                    let (qo, vo) = (tree.q_offset(i), tree.v_offset(i));
                    let (nq, nv) = (l.joint.nq(), l.joint.nv());
                    let mut rate = vec![0.0; nv];
                    l.joint.tangent_rate(
                        &q[qo..qo + nq],
                        &vec![0.0; nv],
                        &v[vo..vo + nv],
                        &mut rate,
                    );
                    let d: Vec<f64> = rate.iter().map(|r| s * r).collect();
                    l.joint.retract(&q[qo..qo + nq], &d, &mut qs[qo..qo + nq]);
                }
                let mut ws = Workspace::new(&tree);
                let zero = vec![0.0; tree.nv()];
                forward_kinematics(&tree, &mut ws, &qs, &zero).unwrap()[link].point(local)
            };
            let fd = (moved(eps) - moved(-eps)) / (2.0 * eps);
            assert!(
                (fd - jv).length() <= 1e-7 * (1.0 + jv.length()),
                "{fd} {jv}"
            );
        }
    }
}

#[test]
fn penalty_box_comes_to_rest_at_the_weight_over_four_springs() {
    let (tree, shapes, mut q, m) = floating_box(HALF + 0.02);
    let h = 1e-3;
    let mut model = TreePenalty::new(TreePenaltyParams::default(), &tree, h).unwrap();
    let mut ws = Workspace::new(&tree);
    let mut v = vec![0.0; tree.nv()];
    let controls = Controls::new(&tree);
    for _ in 0..3000 {
        model
            .step(
                &tree,
                &mut ws,
                &shapes,
                (&mut q, &mut v),
                &controls,
                h,
                MbIntegrator::SemiImplicitEuler,
            )
            .unwrap();
    }
    // At rest the four corners share the weight: 4 k d = m g.
    let d = m * 9.81 / (4.0 * model.stiffness);
    let depth = HALF - q[2];
    // The transient decays as exp(−ζ_tot ω_tot t) with ζ_tot = 1, ω_tot = 2 ω = 200 rad/s: over
    // 3 s to e^-600; what remains is round-off of a 1e-3 m depth.
    assert!(
        (depth - d).abs() <= 1e-9 * d.max(1e-3),
        "depth {depth}, analytic {d}"
    );
    assert!(v.iter().all(|w| w.abs() < 1e-9), "{v:?}");
}

fn lcp_run(
    tree: &Tree,
    shapes: &[LinkShape],
    q: &mut [f64],
    v: &mut [f64],
    controls: &Controls,
    steps: usize,
    mut each: impl FnMut(&[f64], &[f64]),
) {
    let mut model = TreeLcp::new(TreeLcpParams::default()).unwrap();
    let mut ws = Workspace::new(tree);
    for _ in 0..steps {
        model
            .step(tree, &mut ws, shapes, (q, v), controls, 1e-3)
            .unwrap();
        each(q, v);
    }
}

#[test]
fn lcp_box_resting_on_the_ground_holds_its_height() {
    let (tree, shapes, mut q, _) = floating_box(HALF);
    let mut v = vec![0.0; tree.nv()];
    let mut worst: f64 = 0.0;
    lcp_run(
        &tree,
        &shapes,
        &mut q,
        &mut v,
        &Controls::new(&tree),
        1000,
        |q, _| {
            worst = worst.max((q[2] - HALF).abs());
        },
    );
    // Issue 18's target: ≤ 1e-9 m over 1 s.
    assert!(worst <= 1e-9, "height drift {worst} m");
}

#[test]
fn lcp_friction_sticks_below_mu_m_g_and_slides_at_the_analytic_acceleration_above() {
    let mu = 0.3;
    for (ratio, slides) in [(0.8, false), (1.5, true)] {
        let (tree, shapes, mut q, m) = floating_box(HALF);
        let mut v = vec![0.0; tree.nv()];
        let f = ratio * mu * m * 9.81;
        let mut controls = Controls::new(&tree);
        controls.tau[3] = f; // force along link x at the centre (link axes = world at rest)
        let steps = 500;
        lcp_run(&tree, &shapes, &mut q, &mut v, &controls, steps, |_, _| {});
        let t = steps as f64 * 1e-3;
        let expected = if slides { (f / m - mu * 9.81) * t } else { 0.0 };
        // The pyramid's direction −x is exact for this push, so the LCP's answer is Coulomb's
        // to the solver's tolerance (1e-8 of ‖q‖ ≈ g h per step).
        assert!(
            (v[3] - expected).abs() <= 1e-8,
            "ratio {ratio}: v_x {} vs {expected}",
            v[3]
        );
        assert!((q[2] - HALF).abs() <= 1e-9, "height {}", q[2]);
    }
}

#[test]
fn lcp_revolute_limit_stops_the_pendulum_at_the_limit() {
    // A 1 m rod hanging from a horizontal hinge, started at 0.5 rad with limits [0.2, 0.6]:
    // it swings down into the lower limit and stays there, gravity pressing it on.
    let link = rod("rod", None, DVec3::ZERO, 1.0, 1.0).limits(0.2, 0.6);
    let tree = Tree::new(vec![link], G).unwrap();
    let mut q = vec![0.5];
    let mut v = vec![0.0];
    let mut lowest = f64::INFINITY;
    let mut last = (0.0, 0.0);
    lcp_run(
        &tree,
        &[],
        &mut q,
        &mut v,
        &Controls::new(&tree),
        3000,
        |q, v| {
            lowest = lowest.min(q[0]);
            last = (q[0], v[0]);
        },
    );
    // The approach is stopped exactly at the limit (ψ/h with ψ ≥ 0 is anticipation); at rest
    // the gap stays at the limit to round-off.
    assert!(lowest >= 0.2 - 1e-9, "lowest {lowest}");
    assert!(
        (last.0 - 0.2).abs() <= 1e-9 && last.1.abs() <= 1e-9,
        "{last:?}"
    );
}
