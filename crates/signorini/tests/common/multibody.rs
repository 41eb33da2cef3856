//! Trees for the multibody tests: seeded random trees of every joint kind, serial or branched,
//! random states, and the hand-built chains the integration tests simulate.
#![allow(dead_code)]

use signorini::geometry::Pose;
use signorini::multibody::{JointKind, Link, Tree};
use signorini::util::rng::Rng;
use signorini::{DMat3, DQuat, DVec3};

pub const G: DVec3 = DVec3::new(0.0, 0.0, -9.81);

/// Inertia about the centre of mass of a solid box of mass m and edges (a, b, c) (kg m²).
pub fn box_inertia(m: f64, a: f64, b: f64, c: f64) -> DMat3 {
    DMat3::from_diagonal(DVec3::new(b * b + c * c, a * a + c * c, a * a + b * b) * (m / 12.0))
}

/// A random mass (0.5–2 kg), centre of mass (within 0.2 m of the link origin) and inertia (a
/// box of edges 0.1–0.5 m, randomly rotated): physical, and within a factor ~100 of each other
/// so that H stays well conditioned (the tests measure κ(H)).
pub fn random_body(rng: &mut Rng) -> (f64, DVec3, DMat3) {
    let m = rng.uniform(0.5, 2.0);
    let com = rng.unit_vector() * rng.uniform(0.0, 0.2);
    let j = box_inertia(
        m,
        rng.uniform(0.1, 0.5),
        rng.uniform(0.1, 0.5),
        rng.uniform(0.1, 0.5),
    );
    let r = DMat3::from_quat(rng.rotation());
    (m, com, r * j * r.transpose())
}

pub fn random_pose(rng: &mut Rng, reach: f64) -> Pose {
    Pose::new(rng.unit_vector() * rng.uniform(0.0, reach), rng.rotation())
}

/// A random tree of `n` links: a floating root, then joints of every kind in turn (revolute,
/// prismatic, ball, fixed, floating, revolute, …) so each kind appears, each attached to the
/// previous link (`branched == false`) or to a random earlier one, at a random joint frame.
/// Random damping is irrelevant to ABA/RNEA/CRBA (it is a joint force), armature is not: some
/// joints get 0.01–0.1.
pub fn random_tree(rng: &mut Rng, n: usize, branched: bool, gravity: DVec3) -> Tree {
    let mut links = Vec::new();
    for i in 0..n {
        let (m, com, j) = random_body(rng);
        let joint = if i == 0 {
            JointKind::Floating
        } else {
            match i % 5 {
                1 => JointKind::Revolute {
                    axis: rng.unit_vector() * rng.uniform(0.5, 2.0),
                },
                2 => JointKind::Prismatic {
                    axis: rng.unit_vector(),
                },
                3 => JointKind::Ball,
                4 => JointKind::Fixed,
                _ => JointKind::Floating,
            }
        };
        let parent = match i {
            0 => None,
            _ if branched => Some(rng.below(i)),
            _ => Some(i - 1),
        };
        let mut link =
            Link::new(&format!("l{i}"), parent, joint, m, com, j).at(random_pose(rng, 0.4));
        if rng.next_f64() < 0.5 {
            link = link.armature(rng.uniform(0.01, 0.1));
        }
        links.push(link);
    }
    Tree::new(links, gravity).expect("random trees are valid")
}

/// A random state: joint positions in [−1, 1] (rad or m), random rotations, positions within
/// 1 m, velocities in [−2, 2] per component.
pub fn random_state(rng: &mut Rng, tree: &Tree) -> (Vec<f64>, Vec<f64>) {
    let mut q = tree.neutral_q();
    for (i, l) in tree.links().iter().enumerate() {
        let o = tree.q_offset(i);
        match l.joint {
            JointKind::Revolute { .. } | JointKind::Prismatic { .. } => {
                q[o] = rng.uniform(-1.0, 1.0)
            }
            JointKind::Fixed => {}
            JointKind::Ball => write_quat(rng.rotation(), &mut q[o..]),
            JointKind::Floating => {
                let p = rng.unit_vector() * rng.uniform(0.0, 1.0);
                q[o..o + 3].copy_from_slice(&p.to_array());
                write_quat(rng.rotation(), &mut q[o + 3..]);
            }
        }
    }
    let v = (0..tree.nv()).map(|_| rng.uniform(-2.0, 2.0)).collect();
    (q, v)
}

pub fn random_vector(rng: &mut Rng, n: usize, scale: f64) -> Vec<f64> {
    (0..n).map(|_| rng.uniform(-scale, scale)).collect()
}

pub fn write_quat(r: DQuat, out: &mut [f64]) {
    out[..4].copy_from_slice(&[r.x, r.y, r.z, r.w]);
}

pub fn read_quat(s: &[f64]) -> DQuat {
    DQuat::from_xyzw(s[0], s[1], s[2], s[3])
}

/// A slender rod of mass m and length l hanging from a revolute joint about y at its parent's
/// frame origin offset by `offset`; the rod points along −z from the joint, centre of mass at
/// its middle. Inertia about the centre of mass: m l²/12 about x and y, and a thin-rod radius
/// of 1 cm about z (m r²/2) so the tensor is definite.
pub fn rod(name: &str, parent: Option<usize>, offset: DVec3, m: f64, l: f64) -> Link {
    let t = m * l * l / 12.0;
    let inertia = DMat3::from_diagonal(DVec3::new(t, t, m * 1e-4 / 2.0));
    Link::new(
        name,
        parent,
        JointKind::Revolute { axis: DVec3::Y },
        m,
        DVec3::new(0.0, 0.0, -l / 2.0),
        inertia,
    )
    .at(Pose::new(offset, DQuat::IDENTITY))
}
