//! Forward dynamics (ABA) of a 26-degree-of-freedom humanoid-like tree (criterion), against
//! issue 18's target of ≤ 5 µs per call; CRBA and RNEA of the same tree for comparison.
//!
//! The tree: a floating pelvis (6 DOF), four limbs of five revolute joints each (legs: hip
//! yaw/roll/pitch, knee pitch, ankle pitch; arms: shoulder pitch/roll/yaw, elbow pitch, wrist
//! yaw) and a head welded to the pelvis by a fixed joint: 22 links, nq = 27, nv = 26. Masses and
//! inertias are boxes of human-like proportions (60 kg in all). The state is seeded and fixed.
//! Run: `cargo bench -p signorini --bench multibody`.
use criterion::{criterion_group, criterion_main, Criterion};
use signorini::contact::tree::{TreeLcp, TreeLcpParams, TreePenalty, TreePenaltyParams};
use signorini::experiments::humanoid::{self, Humanoid};
use signorini::geometry::Pose;
use signorini::multibody::algorithms::{aba, crba, rnea};
use signorini::multibody::urdf::{self, UrdfOptions};
use signorini::multibody::{Controls, JointKind, Link, Tree, Workspace};
use signorini::util::rng::Rng;
use signorini::{DMat3, DQuat, DVec3};
use std::hint::black_box;
use std::path::Path;
use std::time::Duration;

fn box_link(
    name: &str,
    parent: Option<usize>,
    joint: JointKind,
    at: DVec3,
    m: f64,
    size: DVec3,
    com: DVec3,
) -> Link {
    let s2 = size * size;
    let j = DMat3::from_diagonal(DVec3::new(s2.y + s2.z, s2.x + s2.z, s2.x + s2.y) * (m / 12.0));
    Link::new(name, parent, joint, m, com, j).at(Pose::new(at, DQuat::IDENTITY))
}

/// The 26-DOF humanoid described above.
pub fn humanoid() -> Tree {
    let rev = |axis: DVec3| JointKind::Revolute { axis };
    let (x, y, z) = (DVec3::X, DVec3::Y, DVec3::Z);
    let mut links = vec![box_link(
        "pelvis",
        None,
        JointKind::Floating,
        DVec3::ZERO,
        20.0,
        DVec3::new(0.3, 0.2, 0.5),
        DVec3::new(0.0, 0.0, 0.15),
    )];
    links.push(box_link(
        "head",
        Some(0),
        JointKind::Fixed,
        DVec3::new(0.0, 0.0, 0.5),
        4.0,
        DVec3::splat(0.2),
        DVec3::new(0.0, 0.0, 0.1),
    ));
    // (side, hip/shoulder height, axes of the five joints, segment lengths)
    let limbs = [
        (
            -0.1,
            -0.05,
            [z, x, y, y, y],
            [0.0, 0.0, 0.42, 0.4, 0.0],
            4.0,
        ),
        (0.1, -0.05, [z, x, y, y, y], [0.0, 0.0, 0.42, 0.4, 0.0], 4.0),
        (-0.2, 0.45, [y, x, z, y, z], [0.0, 0.0, 0.3, 0.25, 0.0], 1.5),
        (0.2, 0.45, [y, x, z, y, z], [0.0, 0.0, 0.3, 0.25, 0.0], 1.5),
    ];
    for (k, (side, height, axes, lengths, m)) in limbs.into_iter().enumerate() {
        let mut parent = 0;
        let mut at = DVec3::new(0.0, side, height);
        for j in 0..5 {
            let len: f64 = f64::max(lengths[j], 0.05);
            let i = links.len();
            links.push(box_link(
                &format!("limb{k}.{j}"),
                Some(parent),
                rev(axes[j]),
                at,
                m,
                DVec3::new(0.08, 0.08, len),
                DVec3::new(0.0, 0.0, -len / 2.0),
            ));
            parent = i;
            at = DVec3::new(0.0, 0.0, -lengths[j]);
        }
    }
    Tree::new(links, DVec3::new(0.0, 0.0, -9.81)).expect("the humanoid is a valid tree")
}

fn bench_multibody(c: &mut Criterion) {
    let tree = humanoid();
    assert_eq!((tree.nv(), tree.nq(), tree.len()), (26, 27, 22));
    let mut rng = Rng::new(26);
    let mut q = tree.neutral_q();
    for (i, l) in tree.links().iter().enumerate() {
        if let JointKind::Revolute { .. } = l.joint {
            q[tree.q_offset(i)] = rng.uniform(-0.5, 0.5);
        }
    }
    let r = rng.rotation();
    q[3..7].copy_from_slice(&[r.x, r.y, r.z, r.w]);
    let v: Vec<f64> = (0..tree.nv()).map(|_| rng.uniform(-1.0, 1.0)).collect();
    let tau: Vec<f64> = (0..tree.nv()).map(|_| rng.uniform(-10.0, 10.0)).collect();
    let mut ws = Workspace::new(&tree);
    let mut qdd = vec![0.0; tree.nv()];
    let mut out = vec![0.0; tree.nv()];
    let mut group = c.benchmark_group("multibody");
    group
        .sample_size(100)
        .measurement_time(Duration::from_secs(3));
    group.bench_function("aba/humanoid-26dof", |b| {
        b.iter(|| {
            aba(
                &tree,
                &mut ws,
                black_box(&q),
                black_box(&v),
                black_box(&tau),
                &mut qdd,
            )
            .unwrap()
        })
    });
    group.bench_function("rnea/humanoid-26dof", |b| {
        b.iter(|| {
            rnea(
                &tree,
                &mut ws,
                black_box(&q),
                black_box(&v),
                black_box(&qdd),
                &mut out,
            )
            .unwrap()
        })
    });
    group.bench_function("crba/humanoid-26dof", |b| {
        b.iter(|| crba(&tree, &mut ws, black_box(&q)).unwrap()[(0, 0)])
    });
    group.finish();
}

/// The bundled humanoid URDF (`examples/robots/humanoid.urdf`, 26 DOF, 21 links; Drumwright's
/// experiment, `experiments::humanoid`) at its initial state: ABA, and one contact step under
/// each tree contact model standing on the ground (no controls).
fn bench_humanoid_urdf(c: &mut Criterion) {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/robots/humanoid.urdf"
    );
    let options = UrdfOptions {
        cylinder_segments: 10,
        ..Default::default()
    };
    let robot = urdf::load(Path::new(path), &options).expect("the bundled humanoid loads");
    let tree = &robot.tree;
    let humanoid = Humanoid::new(&robot).expect("the bundled humanoid has its joints");
    let (q0, v0) = humanoid.initial_state();
    let shapes = humanoid::shapes(&robot);
    let controls = Controls::new(tree);
    let mut ws = Workspace::new(tree);
    let tau = vec![0.0; tree.nv()];
    let mut qdd = vec![0.0; tree.nv()];
    let h = humanoid::TIME_STEP;
    let mut group = c.benchmark_group("multibody");
    group
        .sample_size(100)
        .measurement_time(Duration::from_secs(3));
    group.bench_function("aba/humanoid-urdf", |b| {
        b.iter(|| aba(tree, &mut ws, black_box(q0), black_box(v0), &tau, &mut qdd).unwrap())
    });
    let mut penalty = TreePenalty::new(TreePenaltyParams::default(), tree, h).unwrap();
    group.bench_function("step/humanoid-urdf/penalty", |b| {
        b.iter(|| {
            let (mut q, mut v) = (q0.to_vec(), v0.to_vec());
            (penalty.step(tree, &mut ws, &shapes, (&mut q, &mut v), &controls, h)).unwrap()
        })
    });
    let mut lcp = TreeLcp::new(TreeLcpParams::default()).unwrap();
    group.bench_function("step/humanoid-urdf/stewart-trinkle", |b| {
        b.iter(|| {
            let (mut q, mut v) = (q0.to_vec(), v0.to_vec());
            (lcp.step(tree, &mut ws, &shapes, (&mut q, &mut v), &controls, h)).unwrap()
        })
    });
    group.finish();
}

criterion_group!(benches, bench_multibody, bench_humanoid_urdf);
criterion_main!(benches);
