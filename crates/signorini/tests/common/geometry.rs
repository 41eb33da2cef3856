//! Test support for the intersection, overlap and penetration geometry: seeded random polytopes
//! and poses, posed shapes as half-space sets, a Monte Carlo overlap estimator and the structural
//! checks of an intersection polytope. Oracles use only the library's types and its seeded RNG.
//!
//! Use it from a test file with `#[path = "common/geometry.rs"] mod geom;`.
#![allow(dead_code)]

use signorini::geometry::{Intersection, Polytope, Pose, Shape};
use signorini::util::rng::Rng;
use signorini::{DQuat, DVec3};
use std::sync::Arc;

/// The hull of `n` points uniform in the ball of radius `scale` (m), stretched by up to 2× along
/// random axes so that shapes are not all round. Retries (with new points) the rare clouds the
/// hull builder rejects.
pub fn random_polytope(rng: &mut Rng, n: usize, scale: f64) -> Polytope {
    loop {
        let stretch = DVec3::new(
            rng.uniform(0.5, 1.0),
            rng.uniform(0.5, 1.0),
            rng.uniform(0.5, 1.0),
        );
        let rot = rng.rotation();
        let pts: Vec<DVec3> = (0..n)
            .map(|_| {
                let r = rng.next_f64().cbrt();
                rot * (rng.unit_vector() * r * stretch * scale)
            })
            .collect();
        if let Ok(p) = Polytope::from_points(&pts) {
            return p;
        }
    }
}

/// A pose with a uniform random rotation and a translation uniform in the cube [-s, s]³ (m).
pub fn random_pose(rng: &mut Rng, s: f64) -> Pose {
    Pose::new(
        DVec3::new(rng.uniform(-s, s), rng.uniform(-s, s), rng.uniform(-s, s)),
        rng.rotation(),
    )
}

pub fn cuboid(half: DVec3) -> Polytope {
    Polytope::cuboid(half)
}

pub fn shape(p: Polytope) -> Shape {
    Shape::Polytope(Arc::new(p))
}

/// The face planes (n, d) of a posed polytope in world coordinates: x inside ⇔ n·x ≤ d for all.
pub fn world_planes(p: &Polytope, pose: &Pose) -> Vec<(DVec3, f64)> {
    p.faces
        .iter()
        .map(|f| {
            let n = pose.rotation * f.normal;
            (n, f.offset + n.dot(pose.translation))
        })
        .collect()
}

pub fn world_vertices(p: &Polytope, pose: &Pose) -> Vec<DVec3> {
    p.vertices
        .iter()
        .map(|v| pose.transform_point(*v))
        .collect()
}

/// Largest n·x − d over the planes: ≤ 0 inside.
pub fn plane_excess(planes: &[(DVec3, f64)], x: DVec3) -> f64 {
    planes
        .iter()
        .map(|(n, d)| n.dot(x) - d)
        .fold(f64::NEG_INFINITY, f64::max)
}

/// A posed convex shape as a membership test.
pub enum Solid {
    Ball(DVec3, f64),
    Planes(Vec<(DVec3, f64)>),
}

impl Solid {
    pub fn new(s: &Shape, pose: &Pose) -> Solid {
        match s {
            Shape::Sphere { radius } => Solid::Ball(pose.translation, *radius),
            Shape::Polytope(p) => Solid::Planes(world_planes(p, pose)),
            Shape::HalfSpace { normal } => {
                let n = pose.rotation * *normal;
                Solid::Planes(vec![(n, n.dot(pose.translation))])
            }
        }
    }

    pub fn contains(&self, x: DVec3) -> bool {
        match self {
            Solid::Ball(c, r) => x.distance_squared(*c) <= r * r,
            Solid::Planes(planes) => planes.iter().all(|(n, d)| n.dot(x) <= *d),
        }
    }

    /// Axis-aligned bounding box, or `None` when unbounded.
    pub fn aabb(&self, s: &Shape, pose: &Pose) -> Option<(DVec3, DVec3)> {
        match s {
            Shape::Sphere { radius } => Some((
                pose.translation - DVec3::splat(*radius),
                pose.translation + DVec3::splat(*radius),
            )),
            Shape::Polytope(p) => {
                let w = world_vertices(p, pose);
                Some(w.iter().fold(
                    (DVec3::splat(f64::INFINITY), DVec3::splat(f64::NEG_INFINITY)),
                    |(lo, hi), v| (lo.min(*v), hi.max(*v)),
                ))
            }
            Shape::HalfSpace { .. } => None,
        }
    }
}

/// Monte Carlo estimate of the overlap volume with `samples` points uniform in the intersection of
/// the two bounding boxes (the overlap lies inside it): V_box · k / N, standard error
/// V_box √(p (1 − p) / N) with p = k / N. Returns (estimate, standard error) in m³.
pub fn monte_carlo_overlap(
    a: &Shape,
    pose_a: &Pose,
    b: &Shape,
    pose_b: &Pose,
    samples: usize,
    rng: &mut Rng,
) -> (f64, f64) {
    let (sa, sb) = (Solid::new(a, pose_a), Solid::new(b, pose_b));
    let boxes = [sa.aabb(a, pose_a), sb.aabb(b, pose_b)];
    let (mut lo, mut hi) = (DVec3::splat(f64::NEG_INFINITY), DVec3::splat(f64::INFINITY));
    for (l, h) in boxes.into_iter().flatten() {
        lo = lo.max(l);
        hi = hi.min(h);
    }
    assert!(
        lo.is_finite() && hi.is_finite(),
        "one shape must be bounded"
    );
    if !(lo.x < hi.x && lo.y < hi.y && lo.z < hi.z) {
        return (0.0, 0.0);
    }
    let span = hi - lo;
    let vbox = span.x * span.y * span.z;
    let mut hits = 0usize;
    for _ in 0..samples {
        let x = lo + span * DVec3::new(rng.next_f64(), rng.next_f64(), rng.next_f64());
        if sa.contains(x) && sb.contains(x) {
            hits += 1;
        }
    }
    let p = hits as f64 / samples as f64;
    (vbox * p, vbox * (p * (1.0 - p) / samples as f64).sqrt())
}

/// Structural checks of an intersection polytope, returning the worst figures found:
/// - every face has ≥ 3 vertices, a unit normal, and its vertices on its plane;
/// - the face loop is counter-clockwise about the normal (Newell normal · normal > 0);
/// - closed 2-manifold: every directed edge appears once and its reverse once;
/// - Euler characteristic 2, and no two faces in one plane;
/// - convex: every vertex is on the inner side of every face plane;
/// - every vertex and the centroid inside `inputs` (world planes of the input solids).
///
/// Returns (largest distance of a vertex off its face's plane, largest excess of a vertex over any
/// face plane, largest excess of a vertex over an input plane), all in m, for the caller to
/// compare with its tolerance. Panics with a message on a topological failure.
pub fn check_intersection(inter: &Intersection, inputs: &[&[(DVec3, f64)]]) -> (f64, f64, f64) {
    let nv = inter.vertices.len();
    assert!(nv >= 4, "{nv} vertices");
    assert!(inter.volume > 0.0 && inter.volume.is_finite());
    let mut edges: Vec<(u32, u32)> = Vec::new();
    let mut off_plane = 0.0f64;
    for f in &inter.faces {
        assert!(
            f.vertices.len() >= 3,
            "face with {} vertices",
            f.vertices.len()
        );
        assert!((f.normal.length() - 1.0).abs() < 1e-12);
        // Twice the vector area, about the first corner (not the origin: a tiny face far away
        // would lose it to cancellation).
        let mut newell = DVec3::ZERO;
        let origin = inter.vertices[f.vertices[0] as usize];
        for i in 0..f.vertices.len() {
            let (a, b) = (f.vertices[i], f.vertices[(i + 1) % f.vertices.len()]);
            assert!((a as usize) < nv && (b as usize) < nv && a != b);
            edges.push((a, b));
            let (p, q) = (inter.vertices[a as usize], inter.vertices[b as usize]);
            newell += (p - origin).cross(q - origin);
            off_plane = off_plane.max((f.normal.dot(p) - f.offset).abs());
        }
        assert!(
            newell.dot(f.normal) > 0.0,
            "face loop not counter-clockwise about its normal: {:?}, 2·area·n {newell:?}, {} vertices {:?}",
            f.origin,
            f.vertices.len(),
            f.vertices.iter().map(|&v| inter.vertices[v as usize]).collect::<Vec<_>>()
        );
    }
    let mut sorted = edges.clone();
    sorted.sort_unstable();
    for w in sorted.windows(2) {
        assert!(w[0] != w[1], "directed edge {:?} used twice", w[0]);
    }
    for &(a, b) in &edges {
        assert!(
            sorted.binary_search(&(b, a)).is_ok(),
            "edge {a}->{b} has no twin: not closed"
        );
    }
    assert_eq!(inter.euler_characteristic(), 2, "V - E + F");
    // One face per plane: coplanar input faces must have merged, never left as slivers.
    for (i, f) in inter.faces.iter().enumerate() {
        for g in &inter.faces[i + 1..] {
            assert!(
                !(f.normal.dot(g.normal) > 1.0 - 1e-12
                    && (f.offset - g.offset).abs() <= 10.0 * inter.tolerance),
                "two faces in one plane: {:?} and {:?}",
                f.origin,
                g.origin
            );
        }
    }
    let mut used = vec![false; nv];
    for &(a, _) in &edges {
        used[a as usize] = true;
    }
    assert!(used.iter().all(|&u| u), "unused vertex");
    let mut nonconvex = 0.0f64;
    for f in &inter.faces {
        for v in &inter.vertices {
            nonconvex = nonconvex.max(f.normal.dot(*v) - f.offset);
        }
    }
    let mut outside = 0.0f64;
    for planes in inputs {
        for v in inter.vertices.iter().chain([&inter.centroid]) {
            outside = outside.max(plane_excess(planes, *v));
        }
    }
    (off_plane, nonconvex, outside)
}

/// Rotation by `angle` (rad) about `axis`.
pub fn rot(axis: DVec3, angle: f64) -> DQuat {
    DQuat::from_axis_angle(axis.normalize(), angle)
}
