//! Near features of a polytope pair (`collision::near_features`) against brute force on seeded
//! random hull pairs placed a random gap apart within the activation distance.
//!
//! The oracles: the exact distance of a point to a hull (`common::point_hull_signed_distance`,
//! brute force over triangles of its points), the pair's distance (`common::signed_distance`,
//! every candidate separating axis), and supporting planes checked over every vertex. A contact
//! is sound when its points lie on the two surfaces, its gap is the distance between them along
//! its normal, no smaller than the pair's distance, and the plane through its point on a vertex's
//! other body (both planes for an edge–edge contact) supports that body: the contact is then a
//! closest-feature pair of the two bodies locally (a crossing of an edge over a face's boundary
//! has that plane on the face's body only). The set is complete when every vertex within
//! the activation distance of the other body, and every edge pair whose closest points are
//! interior and whose normal gives supporting planes on both bodies, has a contact.
#[allow(dead_code)]
mod common;
#[path = "common/geometry.rs"]
mod geom;

use common::{bisect_right, brute_force_hull_planes, point_hull_signed_distance, signed_distance};
use geom::{random_polytope, world_vertices};
use signorini::collision::narrow::segment_closest_points;
use signorini::collision::near_features::{add_near_features, MERGE_REL};
use signorini::collision::Contact;
use signorini::geometry::{Feature, PlacedPolytope, Polytope, Pose};
use signorini::util::rng::Rng;
use signorini::DVec3;

/// A random pair: A at the origin, B moved along a random direction until the pair's distance is
/// `gap` (m). Returns the polytopes with their world placements.
fn pair_at(rng: &mut Rng, gap: f64) -> ((Polytope, PlacedPolytope), (Polytope, PlacedPolytope)) {
    let (na, nb) = (5 + rng.below(8), 5 + rng.below(8));
    let a = random_polytope(rng, na, 0.2);
    let b = random_polytope(rng, nb, 0.2);
    let pose_a = Pose::new(DVec3::ZERO, rng.rotation());
    let (qb, u) = (rng.rotation(), rng.unit_vector());
    let world_a = world_vertices(&a, &pose_a);
    let place = |t: f64| world_vertices(&b, &Pose::new(t * u, qb));
    let t = bisect_right(|t| signed_distance(&world_a, &place(t)), gap, 2.0, 60);
    let pose_b = Pose::new(t * u, qb);
    let (wa, wb) = (
        PlacedPolytope::new(&a, &pose_a),
        PlacedPolytope::new(&b, &pose_b),
    );
    ((a, wa), (b, wb))
}

fn near_features(
    a: &(Polytope, PlacedPolytope),
    b: &(Polytope, PlacedPolytope),
    activation: f64,
    turn: f64,
) -> Vec<Contact> {
    let mut out = Vec::new();
    let buffers = (0, &mut Default::default());
    add_near_features(
        (&a.0, &a.1),
        (&b.0, &b.1),
        (activation, turn),
        buffers,
        &mut out,
    );
    out
}

/// Largest x·n over `points` minus `at`·n: ≤ 0 when the plane through `at` with normal `n` has
/// every point on its inner side.
fn excess(points: &[DVec3], at: DVec3, n: DVec3) -> f64 {
    points
        .iter()
        .map(|x| (*x - at).dot(n))
        .fold(f64::NEG_INFINITY, f64::max)
}

/// `points` without the two of `edge`.
fn others(points: &[DVec3], edge: [u32; 2]) -> Vec<DVec3> {
    points
        .iter()
        .enumerate()
        .filter(|(i, _)| !edge.contains(&(*i as u32)))
        .map(|(_, x)| *x)
        .collect()
}

/// 200 random pairs, gaps from 2 % to 90 % of an activation distance of 5 cm (the bins'
/// landing: 4 h × a few m/s). Tolerances: 1e-9 × the pair's size (0.2 m hulls; dot products and
/// the bisection's 60 halvings are far below it) for positions and gaps.
#[test]
fn near_features_are_exact_closest_features_and_every_one_within_reach_is_found() {
    let mut rng = Rng::new(2026_11_27);
    let activation = 0.05;
    let (mut vertices, mut edges) = (0, 0);
    for case in 0..200 {
        let gap = activation * rng.uniform(0.02, 0.9);
        let (a, b) = pair_at(&mut rng, gap);
        let (pa, pb) = (&a.1.vertices, &b.1.vertices);
        let (planes_a, planes_b) = (
            brute_force_hull_planes(pa, 1e-12),
            brute_force_hull_planes(pb, 1e-12),
        );
        let distance = signed_distance(pa, pb);
        let size = a.0.radius.max(b.0.radius) + b.1.pose.translation.length();
        let tol = 1e-9 * size;
        let merge = MERGE_REL * a.0.radius.max(b.0.radius);
        let contacts = near_features(&a, &b, activation, 0.0);
        let on = |planes, points, x| point_hull_signed_distance(planes, points, x);
        for c in &contacts {
            let what = format!("case {case}: {c:?}");
            assert!((c.normal.length() - 1.0).abs() < 1e-12, "{what}");
            assert!(
                (c.gap - (c.point_b - c.point_a).dot(c.normal)).abs() <= tol,
                "{what}"
            );
            assert!(
                c.gap >= distance - tol && c.gap <= activation + tol,
                "{what}: pair {distance}"
            );
            assert!(
                on(&planes_a, pa, c.point_a).abs() <= tol,
                "{what}: not on A"
            );
            assert!(
                on(&planes_b, pb, c.point_b).abs() <= tol,
                "{what}: not on B"
            );
            match (c.feature_a, c.feature_b) {
                (Feature::Edge(_), Feature::Edge(_)) => {
                    edges += 1;
                    // A closest pair has both bodies on the inner sides of its planes; a
                    // crossing of an edge over a face's boundary has the face's body (its normal
                    // is the face's).
                    let a_side = excess(pa, c.point_a, c.normal) <= tol;
                    let b_side = excess(pb, c.point_b, -c.normal) <= tol;
                    assert!(a_side || b_side, "{what}: neither body supported");
                }
                (fa, fb)
                    if matches!(fa, Feature::Vertex(_)) || matches!(fb, Feature::Vertex(_)) =>
                {
                    vertices += 1;
                    // A vertex of B and its closest point on A, or a vertex of A and its closest
                    // point on B (either, for a vertex–vertex contact).
                    let of_b = matches!(fb, Feature::Vertex(_))
                        && (on(&planes_a, pa, c.point_b) - c.gap).abs() <= tol
                        && excess(pa, c.point_a, c.normal) <= tol;
                    let of_a = matches!(fa, Feature::Vertex(_))
                        && (on(&planes_b, pb, c.point_a) - c.gap).abs() <= tol
                        && excess(pb, c.point_b, -c.normal) <= tol;
                    assert!(of_a || of_b, "{what}: not a vertex and its closest point");
                }
                other => panic!("{what}: features {other:?}"),
            }
        }
        // Every vertex within reach of the other body has its contact (or shares one's points).
        let carried = |x: DVec3, on_b: bool, f: Feature| {
            contacts.iter().any(|c| {
                let (mine, point) = if on_b {
                    (c.feature_b, c.point_b)
                } else {
                    (c.feature_a, c.point_a)
                };
                mine == f || point.distance(x) <= merge
            })
        };
        for (v, x) in pb.iter().enumerate() {
            let d = on(&planes_a, pa, *x);
            if d > tol && d <= activation - tol {
                assert!(
                    carried(*x, true, Feature::Vertex(v as u32)),
                    "case {case}: vertex {v} of B at {d}"
                );
            }
        }
        for (v, x) in pa.iter().enumerate() {
            let d = on(&planes_b, pb, *x);
            if d > tol && d <= activation - tol {
                assert!(
                    carried(*x, false, Feature::Vertex(v as u32)),
                    "case {case}: vertex {v} of A at {d}"
                );
            }
        }
        // Every edge pair that is a local closest pair, clear of the merging bands, has its contact.
        for (ea, edge_a) in a.0.edges.iter().enumerate() {
            let [a0, a1] = edge_a.vertices.map(|v| pa[v as usize]);
            for (eb, edge_b) in b.0.edges.iter().enumerate() {
                let [b0, b1] = edge_b.vertices.map(|v| pb[v as usize]);
                let (da, db) = (a1 - a0, b1 - b0);
                if da.cross(db).length() < 1e-3 * da.length() * db.length() {
                    continue;
                }
                let (xa, xb) = segment_closest_points(a0, a1, b0, b1);
                let d = xa.distance(xb);
                let clear = |x: DVec3, e0: DVec3, e1: DVec3| {
                    x.distance(e0).min(x.distance(e1)) > 2.0 * merge
                };
                if d <= 1e-6 || d > activation - tol || !clear(xa, a0, a1) || !clear(xb, b0, b1) {
                    continue;
                }
                let n = (xb - xa) / d;
                // A closest pair with 1e-7 m to spare: every other vertex strictly inside the
                // supporting planes (pairs at the margin are round-off's to decide).
                let (others_a, others_b) =
                    (others(pa, edge_a.vertices), others(pb, edge_b.vertices));
                if excess(&others_a, xa, n) > -1e-7 || excess(&others_b, xb, -n) > -1e-7 {
                    continue;
                }
                let found = contacts.iter().any(|c| {
                    (c.feature_a, c.feature_b)
                        == (Feature::Edge(ea as u32), Feature::Edge(eb as u32))
                        || (c.point_a.distance(xa) <= merge && c.point_b.distance(xb) <= merge)
                });
                assert!(found, "case {case}: edges {ea}, {eb} at {d}");
            }
        }
        // Allowing a turn adds contacts and removes none.
        let turned = near_features(&a, &b, activation, 0.2);
        for c in &contacts {
            assert!(
                turned
                    .iter()
                    .any(|t| (t.feature_a, t.feature_b) == (c.feature_a, c.feature_b)),
                "case {case}: {c:?} lost with a turn"
            );
        }
    }
    eprintln!("{vertices} vertex contacts, {edges} edge-edge contacts");
    assert!(
        vertices > 200 && edges > 20,
        "{vertices} vertex, {edges} edge-edge contacts"
    );
}

/// The stack's resting contacts are the axis's, with near features asked for or not: the 10-box
/// stack at rest (still pairs get none, `narrow.rs`, `STILL`; a resting pair's points within the
/// gravity term's reach are the clipped corners the axis gives), and once its top box turns at
/// 1 rad/s about a vertical axis every axis contact is still there (what the turn adds comes on
/// top). The stack's 1e-11 m accuracy rests on these contacts staying what they were.
#[test]
fn the_resting_stack_keeps_the_axis_contacts_with_near_features() {
    use signorini::collision::Reach;
    use signorini::pipeline::{detect, StageTimes, Workspace};
    let path =
        std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/box_stack.toml");
    let scene = signorini::scene::load(&path).unwrap_or_else(|e| panic!("{e}"));
    let contacts = |state: &signorini::State, near_features: bool| {
        let mut ws = Workspace::new();
        let reach = Reach {
            activation: 1e-3,
            near_features,
        };
        detect(
            &scene.model,
            state,
            reach,
            &mut ws,
            &mut StageTimes::default(),
        );
        ws.contacts.clone()
    };
    let still = &scene.initial;
    assert_eq!(contacts(still, true), contacts(still, false));
    assert!(!contacts(still, false).is_empty());
    let mut turning = still.clone();
    let top = turning.bodies.len() - 1;
    turning.bodies[top].angular_velocity = DVec3::new(0.0, 0.0, 1.0);
    let (with, without) = (contacts(&turning, true), contacts(&turning, false));
    assert!(with.len() >= without.len());
    assert_eq!(
        &with[..without.len()],
        &without[..],
        "the axis's contacts come first, unchanged"
    );
}
