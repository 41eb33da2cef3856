//! Bad input to `multibody` is an error naming what is wrong, never a panic or a NaN: trees
//! (parent order, axes, masses, inertias, damping, limits), states and controls.
#[path = "common/multibody.rs"]
mod mb;

use mb::{box_inertia, rod, G};
use signorini::multibody::algorithms::aba;
use signorini::multibody::integrate::step;
use signorini::multibody::{
    Controls, JointKind, Link, MbIntegrator, MultibodyError, PdActuator, Tree, Workspace,
};
use signorini::{DMat3, DVec3};

fn link(joint: JointKind) -> Link {
    Link::new(
        "l",
        None,
        joint,
        1.0,
        DVec3::ZERO,
        box_inertia(1.0, 0.1, 0.2, 0.3),
    )
}

fn err(links: Vec<Link>) -> MultibodyError {
    Tree::new(links, G).expect_err("the tree is invalid")
}

#[test]
fn invalid_trees_are_errors() {
    let rev = JointKind::Revolute { axis: DVec3::X };
    // A parent after its child, and a link that is its own parent.
    let mut a = link(rev);
    a.parent = Some(1);
    assert!(matches!(
        err(vec![a, link(rev)]),
        MultibodyError::ParentNotBefore {
            index: 0,
            parent: 1,
            ..
        }
    ));
    let mut b = link(rev);
    b.parent = Some(1);
    assert!(matches!(
        err(vec![link(rev), b]),
        MultibodyError::ParentNotBefore { index: 1, .. }
    ));
    for axis in [
        DVec3::ZERO,
        DVec3::splat(1e-13),
        DVec3::new(f64::NAN, 0.0, 1.0),
    ] {
        assert!(matches!(
            err(vec![link(JointKind::Revolute { axis })]),
            MultibodyError::ZeroAxis { .. }
        ));
        assert!(matches!(
            err(vec![link(JointKind::Prismatic { axis })]),
            MultibodyError::ZeroAxis { .. }
        ));
    }
    for mass in [0.0, -1.0, f64::NAN, f64::INFINITY] {
        let mut l = link(rev);
        l.mass = mass;
        assert!(
            matches!(err(vec![l]), MultibodyError::Mass { .. }),
            "mass {mass}"
        );
    }
    let not_pd = [
        DMat3::ZERO,
        DMat3::from_diagonal(DVec3::new(1.0, -1.0, 1.0)),
        DMat3::from_diagonal(DVec3::new(1.0, 1.0, 0.0)),
        DMat3::from_cols(
            DVec3::new(1.0, 0.5, 0.0),
            DVec3::new(0.0, 1.0, 0.0),
            DVec3::Z,
        ), // asymmetric
        DMat3::from_cols(
            DVec3::new(1.0, 2.0, 0.0),
            DVec3::new(2.0, 1.0, 0.0),
            DVec3::Z,
        ), // indefinite
    ];
    for j in not_pd {
        let mut l = link(rev);
        l.inertia = j;
        assert!(
            matches!(err(vec![l]), MultibodyError::Inertia { .. }),
            "{j:?}"
        );
    }
    let mut l = link(rev);
    l.inertia.x_axis.x = f64::NAN;
    assert!(matches!(err(vec![l]), MultibodyError::NonFinite { .. }));
    let mut l = link(rev);
    l.com.y = f64::INFINITY;
    assert!(matches!(err(vec![l]), MultibodyError::NonFinite { .. }));
    assert!(matches!(
        err(vec![link(rev).damping(-0.1)]),
        MultibodyError::Negative { .. }
    ));
    assert!(matches!(
        err(vec![link(rev).armature(f64::NAN)]),
        MultibodyError::Negative { .. }
    ));
    assert!(matches!(
        err(vec![link(rev).limits(1.0, -1.0)]),
        MultibodyError::Limits { .. }
    ));
    assert!(matches!(
        err(vec![link(JointKind::Ball).limits(-1.0, 1.0)]),
        MultibodyError::Limits { .. }
    ));
    // The message names the link.
    let mut l = link(rev);
    l.name = "forearm".into();
    l.mass = -2.0;
    assert!(err(vec![l]).to_string().contains("forearm"));
}

#[test]
fn axes_are_normalized_and_limits_stored() {
    let tree = Tree::new(
        vec![link(JointKind::Revolute {
            axis: DVec3::new(0.0, 3.0, 4.0),
        })
        .limits(-1.0, 2.0)],
        G,
    )
    .unwrap();
    assert_eq!(
        tree.links()[0].joint,
        JointKind::Revolute {
            axis: DVec3::new(0.0, 0.6, 0.8)
        }
    );
    assert_eq!(tree.links()[0].limits, Some((-1.0, 2.0)));
}

#[test]
fn bad_states_and_controls_are_errors() {
    let tree = Tree::new(
        vec![
            link(JointKind::Floating),
            rod("arm", Some(0), DVec3::ZERO, 1.0, 1.0),
        ],
        G,
    )
    .unwrap();
    let mut ws = Workspace::new(&tree);
    let mut q = tree.neutral_q();
    let mut v = vec![0.0; tree.nv()];
    let mut qdd = vec![0.0; tree.nv()];
    let tau = vec![0.0; tree.nv()];
    assert!(matches!(
        aba(&tree, &mut ws, &q[1..], &v, &tau, &mut qdd),
        Err(MultibodyError::Length { .. })
    ));
    assert!(matches!(
        aba(&tree, &mut ws, &q, &v, &tau[1..], &mut qdd),
        Err(MultibodyError::Length { .. })
    ));
    let mut zq = q.clone();
    zq[3..7].fill(0.0);
    assert!(matches!(
        aba(&tree, &mut ws, &zq, &v, &tau, &mut qdd),
        Err(MultibodyError::ZeroQuaternion { .. })
    ));
    let mut nv = v.clone();
    nv[2] = f64::NAN;
    assert!(matches!(
        aba(&tree, &mut ws, &q, &nv, &tau, &mut qdd),
        Err(MultibodyError::NonFiniteState)
    ));
    // A workspace made for another tree.
    let other = Tree::new(vec![rod("r", None, DVec3::ZERO, 1.0, 1.0)], G).unwrap();
    let mut wrong = Workspace::new(&other);
    assert!(matches!(
        aba(&tree, &mut wrong, &q, &v, &tau, &mut qdd),
        Err(MultibodyError::Length { .. })
    ));
    // PD actuators only on one-DOF joints, with sane gains; the state is left untouched.
    let mut c = Controls::new(&tree);
    c.pd.push(PdActuator {
        link: 0,
        kp: 1.0,
        kd: 1.0,
        target_position: 0.0,
        target_velocity: 0.0,
    });
    let before = (q.clone(), v.clone());
    assert!(matches!(
        step(&tree, &mut ws, &mut q, &mut v, &c, 1e-3, MbIntegrator::Rk4),
        Err(MultibodyError::Actuator { link: 0, .. })
    ));
    c.pd[0].link = 1;
    c.pd[0].kd = -1.0;
    assert!(matches!(
        step(&tree, &mut ws, &mut q, &mut v, &c, 1e-3, MbIntegrator::Rk4),
        Err(MultibodyError::Actuator { .. })
    ));
    c.pd[0].link = 7;
    assert!(matches!(
        step(&tree, &mut ws, &mut q, &mut v, &c, 1e-3, MbIntegrator::Rk4),
        Err(MultibodyError::Actuator { .. })
    ));
    assert_eq!((q.clone(), v.clone()), before);
    // A valid actuator steps.
    c.pd[0] = PdActuator {
        link: 1,
        kp: 1.0,
        kd: 0.1,
        target_position: 0.3,
        target_velocity: 0.0,
    };
    step(
        &tree,
        &mut ws,
        &mut q,
        &mut v,
        &c,
        1e-3,
        MbIntegrator::SemiImplicitEuler,
    )
    .unwrap();
    assert!(q.iter().chain(&v).all(|x| x.is_finite()));
}
