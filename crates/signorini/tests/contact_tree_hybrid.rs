//! Drumwright's hybrid on a tree (`contact::tree::hybrid`): an impact is resolved by the
//! collision law (a frictionless sphere leaves at exactly e times its approach, never
//! penetrating), resting contact by the multi-point penalty (a box at rest sinks its penalty
//! depth m g / (4 k) with no impulse), a landing box is stopped by the impact's impulse rather
//! than by sinking into the springs, and the parameters are set by name and checked.
#[path = "common/multibody.rs"]
mod mb;

use mb::{box_inertia, G};
use signorini::contact::impulse::law::Law;
use signorini::contact::tree::{
    LinkShape, PenaltyLaw, TreeHybrid, TreeHybridParams, TreePenalty, TreePenaltyParams,
    TreeStepStats, HYBRID_PARAMS,
};
use signorini::contact::ParamInput;
use signorini::geometry::{Pose, Shape};
use signorini::multibody::{Controls, JointKind, Link, Tree, Workspace};
use signorini::DVec3;

const M: f64 = 2.0;
const HALF: f64 = 0.1;

/// A 2 kg body on a floating joint, a 0.2 m cube or a sphere of radius 0.1 m, its centre at
/// height z, frictionless or not, under `gravity`.
fn floating(cube: bool, z: f64, friction: f64, gravity: DVec3) -> (Tree, Vec<LinkShape>, Vec<f64>) {
    let inertia = box_inertia(M, 2.0 * HALF, 2.0 * HALF, 2.0 * HALF);
    let link = Link::new("body", None, JointKind::Floating, M, DVec3::ZERO, inertia);
    let tree = Tree::new(vec![link], gravity).unwrap();
    let shape = if cube {
        Shape::cuboid(DVec3::splat(2.0 * HALF)).unwrap()
    } else {
        Shape::sphere(HALF).unwrap()
    };
    let shapes = vec![LinkShape {
        link: 0,
        pose: Pose::IDENTITY,
        shape,
        friction,
    }];
    let mut q = tree.neutral_q();
    q[2] = z;
    (tree, shapes, q)
}

/// `steps` steps of 1 ms under `step`; `each` sees (stats, q, v) after each.
fn run(
    tree: &Tree,
    (q, v): (&mut [f64], &mut [f64]),
    steps: usize,
    mut step: impl FnMut(&mut Workspace, (&mut [f64], &mut [f64])) -> TreeStepStats,
    mut each: impl FnMut(&TreeStepStats, &[f64], &[f64]),
) {
    let mut ws = Workspace::new(tree);
    for _ in 0..steps {
        let stats = step(&mut ws, (&mut *q, &mut *v));
        each(&stats, q, v);
    }
}

const H: f64 = 1e-3;

#[test]
fn an_impact_leaves_at_e_times_the_approach_and_never_penetrates() {
    // A frictionless sphere 5 mm above the ground approaching at 1 m/s, no gravity: the impact
    // phase's collision law (Newton, e) answers a single frictionless point exactly (the laws'
    // module doc), and Guendelman's rule takes it before the step that would overlap; the pair
    // is then left to no penalty force while it is in its impact phase.
    for e in [0.0, 0.3, 0.8] {
        let (tree, shapes, mut q) = floating(false, HALF + 5e-3, 0.0, DVec3::ZERO);
        let mut v = vec![0.0; tree.nv()];
        v[5] = -1.0; // link z = world z (unrotated)
        let mut params = TreeHybridParams::default();
        params.impulse.law = Law::Newton;
        params.impulse.restitution = e;
        let mut model = TreeHybrid::new(params, &tree, H).unwrap();
        let c = Controls::new(&tree);
        let mut lowest = f64::INFINITY;
        run(
            &tree,
            (&mut q, &mut v),
            20,
            |ws, state| model.step(&tree, ws, &shapes, state, &c, H).unwrap(),
            |_, q, _| lowest = lowest.min(q[2] - HALF),
        );
        assert!((v[5] - e).abs() <= 1e-12, "e {e}: leaves at {} m/s", v[5]);
        assert!(lowest >= 0.0, "e {e}: gap went to {lowest} m");
    }
}

#[test]
fn resting_contact_is_the_penalty_models_and_takes_no_impulse() {
    // A box put on the ground at rest under gravity: its pair starts resting (no point
    // approaches faster than ε), so the multi-point penalty alone holds it, at its fixed point
    // m g / (4 k) (contact_tree.rs), and the collision stage never sweeps. Tolerance as the
    // penalty test's: the transient decays as e^(−300) in 3 s, round-off remains.
    let (tree, shapes, mut q) = floating(true, HALF, 0.5, G);
    let mut v = vec![0.0; tree.nv()];
    let mut model = TreeHybrid::new(TreeHybridParams::default(), &tree, H).unwrap();
    let k = model.gains().0;
    let c = Controls::new(&tree);
    let mut sweeps = 0;
    run(
        &tree,
        (&mut q, &mut v),
        3000,
        |ws, state| model.step(&tree, ws, &shapes, state, &c, H).unwrap(),
        |s, _, _| sweeps += s.iterations,
    );
    let depth = HALF - q[2];
    let expected = M * 9.81 / (4.0 * k);
    assert!(
        (depth - expected).abs() <= 1e-9 * expected,
        "{depth} vs {expected}"
    );
    assert!(v.iter().all(|w| w.abs() <= 1e-9), "{v:?}");
    assert_eq!(sweeps, 0, "collision sweeps on a resting box");
}

#[test]
fn a_landing_box_is_stopped_by_its_impact_not_by_the_springs() {
    // A box dropped flat from 0.2 m (lands at 1.98 m/s), e = 0: under multi-point penalty alone
    // the springs (ω = 100 rad/s a point's share) take the landing and it sinks about v / (2 ω)
    // = 1 cm before stopping; under the hybrid the impact's plastic impulse stops it at the
    // surface and the penalty only carries its weight from then on: no deeper than a step's
    // fall after the impulse, g h² = 1e-5 m, beyond the rest depth m g / (4 k).
    let drop = |hybrid: bool| {
        let (tree, shapes, mut q) = floating(true, HALF + 0.2, 0.5, G);
        let mut v = vec![0.0; tree.nv()];
        let c = Controls::new(&tree);
        let mut deepest: f64 = 0.0;
        let mut hy = TreeHybrid::new(TreeHybridParams::default(), &tree, H).unwrap();
        let penalty = TreePenaltyParams {
            law: PenaltyLaw::MultiPoint,
            ..TreePenaltyParams::default()
        };
        let mut pe = TreePenalty::new(penalty, &tree, H).unwrap();
        let k = pe.stiffness;
        run(
            &tree,
            (&mut q, &mut v),
            600,
            |ws, state| match hybrid {
                true => hy.step(&tree, ws, &shapes, state, &c, H).unwrap(),
                false => pe.step(&tree, ws, &shapes, state, &c, H).unwrap(),
            },
            |_, q, _| deepest = deepest.max(HALF - q[2]),
        );
        (deepest, M * 9.81 / (4.0 * k))
    };
    let (hybrid, rest) = drop(true);
    let (penalty, _) = drop(false);
    println!("landing: hybrid {hybrid:e} m, multi-point {penalty:e} m, rest {rest:e} m");
    assert!(
        hybrid <= rest + 9.81 * H * H,
        "hybrid landing {hybrid} m, rest {rest} m"
    );
    assert!(
        penalty >= 5.0 * rest,
        "penalty landing {penalty} m, rest {rest} m"
    );
}

#[test]
fn hybrid_parameters_are_set_by_name_and_checked() {
    let mut p = TreeHybridParams::default();
    for spec in HYBRID_PARAMS {
        let value = match spec.name {
            "law" => ParamInput::Word("poisson".into()),
            "self_contact" => ParamInput::Word("on".into()),
            "max_sweeps" => ParamInput::Number(50.0),
            _ => ParamInput::Number(0.25),
        };
        p.set(spec.name, &value).unwrap();
    }
    assert_eq!(p.impact_speed, 0.25);
    assert_eq!(p.impulse.law, Law::Poisson);
    assert_eq!((p.impulse.restitution, p.impulse.max_sweeps), (0.25, 50));
    assert_eq!(p.penalty.stiffness, Some(0.25));
    assert!(p.penalty.self_contact && p.impulse.self_contact);
    let e = p.set("tolerance", &ParamInput::Number(1.0)).unwrap_err();
    assert!(e.contains("impact_speed, law"), "{e}");
    let (tree, _, _) = floating(true, HALF, 0.5, G);
    let bad = TreeHybridParams {
        impact_speed: -1.0,
        ..TreeHybridParams::default()
    };
    let e = TreeHybrid::new(bad, &tree, H).unwrap_err();
    assert!(e.contains("impact_speed"), "{e}");
}
