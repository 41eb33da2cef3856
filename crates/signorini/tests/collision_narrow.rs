//! Narrow phase (`collision::narrow::pair_contacts`) against brute-force signed distances on random
//! convex pairs: polytope–polytope (penetrating, touching, separated within and beyond the
//! activation distance), sphere–polytope, sphere–sphere, half-space–polytope and half-space–sphere,
//! in both argument orders.
//!
//! The oracle: ψ = max over unit d of (min_{b∈B} b·d − max_{a∈A} a·d). For overlapping polytopes
//! the maximum is attained at a face normal of either polytope or at the normalized cross product
//! of an edge of A and an edge of B, and we try every such candidate with no Gauss-map pruning (in
//! fact a superset: every triangle of input points and every pair of input segments). For
//! separated polytopes ψ is the Euclidean distance, found by brute force over feature pairs
//! (`common::hull_distance`).
mod common;

use common::{
    bisect_right, bounding_diagonal, brute_force_hull_planes, point_hull_signed_distance,
    point_segment_distance, proptest_config, rotation, signed_distance, unit_cube_point,
    unit_vector, Plane,
};
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use signorini::collision::narrow::{pair_contacts, pair_contacts_with};
use signorini::collision::Contact;
use signorini::geometry::{Feature, Polytope, Pose, Shape};
use signorini::DVec3;
use std::sync::Arc;

/// Tolerance on gaps, in units of the pair's length scale L (largest of the shapes' radii and of
/// the world coordinates involved). The narrow phase resolves ties between separating axes within
/// AXIS_TIE_REL · scale = 1e-9 · scale (narrow.rs), so the axis it reports may be up to that much
/// below the best one; everything else is round-off (~1e-15 L per dot product, plus GJK's stop
/// rule, which certifies the distance to 1e-13 relative). Twice the tie band.
const GAP_REL: f64 = 2e-9;

/// Features are named by `Polytope::feature_at` with tolerance 1e-7 · scale (narrow.rs): a point
/// reported on vertex i lies within that of it, and so on.
const FEATURE_REL: f64 = 1e-7;

/// A convex solid in world coordinates, as the oracle sees it.
enum Solid {
    Hull {
        /// Every input point, moved to the world (the hull's corners are among them).
        points: Vec<DVec3>,
        /// Brute-force facet planes of `points`.
        planes: Vec<Plane>,
        poly: Arc<Polytope>,
        pose: Pose,
    },
    Ball {
        centre: DVec3,
        radius: f64,
    },
    Half {
        normal: DVec3,
        offset: f64,
    },
}

impl Solid {
    fn hull(local: &[DVec3], pose: Pose) -> (Solid, Shape) {
        let poly = Arc::new(
            Polytope::from_points(local).expect("random clouds in general position have a hull"),
        );
        let points: Vec<DVec3> = local.iter().map(|p| pose.transform_point(*p)).collect();
        let planes = brute_force_hull_planes(&points, 1e-9 * bounding_diagonal(&points));
        (
            Solid::Hull {
                points,
                planes,
                poly: poly.clone(),
                pose,
            },
            Shape::Polytope(poly),
        )
    }

    fn ball(centre: DVec3, radius: f64) -> (Solid, Shape, Pose) {
        (
            Solid::Ball { centre, radius },
            Shape::Sphere { radius },
            Pose::new(centre, signorini::DQuat::IDENTITY),
        )
    }

    fn half(local_normal: DVec3, pose: Pose) -> (Solid, Shape) {
        let normal = pose.transform_vector(local_normal);
        (
            Solid::Half {
                normal,
                offset: normal.dot(pose.translation),
            },
            Shape::HalfSpace {
                normal: local_normal,
            },
        )
    }

    /// max over the solid of x·d (+∞ for a half-space unless d is its normal).
    fn support(&self, d: DVec3) -> f64 {
        match self {
            Solid::Hull { points, .. } => common::support(points, d),
            Solid::Ball { centre, radius } => centre.dot(d) + radius,
            Solid::Half { normal, offset } => {
                if (d - *normal).length() <= 1e-12 {
                    *offset
                } else {
                    f64::INFINITY
                }
            }
        }
    }

    fn lowest(&self, d: DVec3) -> f64 {
        -self.support(-d)
    }

    /// Signed distance from x to the solid's boundary (negative inside).
    fn signed_distance(&self, x: DVec3) -> f64 {
        match self {
            Solid::Hull { points, planes, .. } => point_hull_signed_distance(planes, points, x),
            Solid::Ball { centre, radius } => x.distance(*centre) - radius,
            Solid::Half { normal, offset } => normal.dot(x) - offset,
        }
    }

    /// Largest distance of the solid's points from the world origin and its own size.
    fn scale(&self) -> f64 {
        match self {
            Solid::Hull { points, .. } => points.iter().map(|p| p.length()).fold(0.0, f64::max),
            Solid::Ball { centre, radius } => centre.length() + radius,
            Solid::Half { offset, .. } => offset.abs(),
        }
    }
}

/// Exact signed distance between two solids (see the module comment).
fn oracle_gap(a: &Solid, b: &Solid) -> f64 {
    use Solid::*;
    match (a, b) {
        (Hull { points: pa, .. }, Hull { points: pb, .. }) => signed_distance(pa, pb),
        // A ball is the set of points within r of its centre: gap = sd(centre) − r.
        (Ball { centre, radius }, other) | (other, Ball { centre, radius })
            if !matches!(other, Ball { .. }) =>
        {
            other.signed_distance(*centre) - radius
        }
        (
            Ball {
                centre: ca,
                radius: ra,
            },
            Ball {
                centre: cb,
                radius: rb,
            },
        ) => ca.distance(*cb) - ra - rb,
        (Half { normal, offset }, Hull { points, .. })
        | (Hull { points, .. }, Half { normal, offset }) => points
            .iter()
            .map(|p| normal.dot(*p) - offset)
            .fold(f64::INFINITY, f64::min),
        _ => unreachable!("half-space pairs are not tested"),
    }
}

/// Checks a feature of `solid` reported for the world point `x`.
fn check_feature(
    solid: &Solid,
    feature: Feature,
    x: DVec3,
    tol: f64,
    side: &str,
) -> Result<(), TestCaseError> {
    match solid {
        Solid::Hull { poly, pose, .. } => {
            let v = |i: u32| pose.transform_point(poly.vertices[i as usize]);
            match feature {
                Feature::Vertex(i) => prop_assert!(
                    x.distance(v(i)) <= tol,
                    "{}: point {} is {:e} from its vertex {}",
                    side,
                    x,
                    x.distance(v(i)),
                    i
                ),
                Feature::Edge(e) => {
                    let [a, b] = poly.edges[e as usize].vertices;
                    let d = point_segment_distance(x, v(a), v(b));
                    prop_assert!(
                        d <= tol,
                        "{}: point {} is {:e} from its edge {}",
                        side,
                        x,
                        d,
                        e
                    );
                }
                Feature::Face(f) => {
                    let face = &poly.faces[f as usize];
                    let n = pose.transform_vector(face.normal);
                    let k = face.vertices.len();
                    let off_plane = n.dot(x - v(face.vertices[0]));
                    prop_assert!(
                        off_plane.abs() <= tol,
                        "{}: point {} is {:e} off its face {}",
                        side,
                        x,
                        off_plane,
                        f
                    );
                    for i in 0..k {
                        let (p0, p1) = (v(face.vertices[i]), v(face.vertices[(i + 1) % k]));
                        let out = (p1 - p0).cross(n).normalize();
                        prop_assert!(
                            out.dot(x - p0) <= tol,
                            "{}: point {} is {:e} outside face {}",
                            side,
                            x,
                            out.dot(x - p0),
                            f
                        );
                    }
                }
                Feature::Surface => {
                    prop_assert!(false, "{}: a polytope reported Feature::Surface", side)
                }
            }
        }
        Solid::Ball { .. } | Solid::Half { .. } => {
            prop_assert_eq!(
                feature,
                Feature::Surface,
                "{}: smooth shapes report Surface",
                side
            )
        }
    }
    Ok(())
}

/// Runs the narrow phase on (A, B) and checks its output against the oracle.
fn check_pair(
    a: &Solid,
    shape_a: &Shape,
    pose_a: &Pose,
    b: &Solid,
    shape_b: &Shape,
    pose_b: &Pose,
    activation: f64,
) -> Result<(), TestCaseError> {
    let psi = oracle_gap(a, b);
    let l = a.scale().max(b.scale()).max(1.0);
    let gap_tol = GAP_REL * l;
    let feature_tol = FEATURE_REL * l;
    let mut out: Vec<Contact> = Vec::new();
    pair_contacts(shape_a, pose_a, shape_b, pose_b, activation, &mut out);

    if psi > activation + gap_tol {
        prop_assert!(
            out.is_empty(),
            "ψ = {:e} > activation {:e} but {} contacts (gaps {:?})",
            psi,
            activation,
            out.len(),
            out.iter().map(|c| c.gap).collect::<Vec<_>>()
        );
        return Ok(());
    }
    if psi <= activation - gap_tol {
        prop_assert!(
            !out.is_empty(),
            "ψ = {:e} ≤ activation {:e} but no contact",
            psi,
            activation
        );
    }
    if out.is_empty() {
        return Ok(()); // ψ within the tolerance band around the activation distance
    }
    let min_gap = out.iter().map(|c| c.gap).fold(f64::INFINITY, f64::min);
    prop_assert!(
        (min_gap - psi).abs() <= gap_tol,
        "min contact gap {:e} vs exact ψ {:e} (diff {:e}, tol {:e})",
        min_gap,
        psi,
        min_gap - psi,
        gap_tol
    );
    for (i, c) in out.iter().enumerate() {
        // The contact's own definition of its gap, and a unit normal (normalized vectors: a few ε).
        prop_assert!(
            ((c.point_b - c.point_a).dot(c.normal) - c.gap).abs() <= gap_tol,
            "contact {}: gap {:e} ≠ (p_b − p_a)·n {:e}",
            i,
            c.gap,
            (c.point_b - c.point_a).dot(c.normal)
        );
        prop_assert!(
            (c.normal.length() - 1.0).abs() <= 1e-12,
            "contact {}: |n| = {}",
            i,
            c.normal.length()
        );
        prop_assert!(
            c.gap <= activation,
            "contact {}: gap {:e} above the activation distance",
            i,
            c.gap
        );
        // Every reported gap is a separation between points of A and B along n, so no gap is below
        // the separation along n, which is itself at most ψ; and n is a best axis (points from A
        // towards B): the separation along it reaches ψ.
        let s_n = b.lowest(c.normal) - a.support(c.normal);
        prop_assert!(
            s_n >= psi - gap_tol,
            "contact {}: separation along n = {:e} < ψ = {:e}: n does not point from A to B along a best axis",
            i,
            s_n,
            psi
        );
        prop_assert!(
            c.gap >= psi - gap_tol,
            "contact {}: gap {:e} below ψ {:e}",
            i,
            c.gap,
            psi
        );
        // The points lie on the two surfaces.
        let (da, db) = (a.signed_distance(c.point_a), b.signed_distance(c.point_b));
        prop_assert!(
            da.abs() <= gap_tol,
            "contact {}: point_a {} is {:e} from A's surface",
            i,
            c.point_a,
            da
        );
        prop_assert!(
            db.abs() <= gap_tol,
            "contact {}: point_b {} is {:e} from B's surface",
            i,
            c.point_b,
            db
        );
        check_feature(a, c.feature_a, c.point_a, feature_tol, "A")?;
        check_feature(b, c.feature_b, c.point_b, feature_tol, "B")?;
        // Indices are left at 0 by pair_contacts.
        prop_assert_eq!((c.body_a, c.body_b, c.piece_a, c.piece_b), (0, 0, 0, 0));
    }
    Ok(())
}

/// Checks (A, B) and (B, A): the gap is symmetric and both orders must satisfy the contract.
fn check_both_orders(
    a: (&Solid, &Shape, &Pose),
    b: (&Solid, &Shape, &Pose),
    activation: f64,
) -> Result<(), TestCaseError> {
    check_pair(a.0, a.1, a.2, b.0, b.1, b.2, activation)?;
    check_pair(b.0, b.1, b.2, a.0, a.1, a.2, activation)
}

/// What gap to aim the placement at, from the overlap ψ₀ < 0 of the pair placed centre on centre.
#[derive(Clone, Copy, Debug)]
enum Target {
    /// A fraction of the full overlap.
    Deep(f64),
    /// Penetration shallower than the activation distance.
    Shallow(f64),
    /// Separated, within the activation distance.
    Near(f64),
    /// Separated beyond the activation distance (by up to 2×).
    Far(f64),
}

impl Target {
    fn gap(self, psi0: f64, activation: f64) -> f64 {
        match self {
            Target::Deep(f) => f * psi0,
            Target::Shallow(f) => (-f * activation).max(f * psi0),
            Target::Near(f) => f * activation,
            Target::Far(f) => activation * (1.0 + 2.0 * f),
        }
    }
}

fn target() -> impl Strategy<Value = Target> {
    (0u8..4, 0.0..1.0f64).prop_map(|(k, f)| match k {
        0 => Target::Deep(f),
        1 => Target::Shallow(f),
        2 => Target::Near(f),
        _ => Target::Far(f),
    })
}

fn activation() -> impl Strategy<Value = f64> {
    prop_oneof![Just(1e-3), Just(0.05), Just(0.3)]
}

/// A cloud of 4–8 points in a box of random proportions (flat and elongated bodies too), at
/// least 1 % as thick as it is wide: thinner clouds can make `Polytope::from_points` fail
/// (parry's flatness threshold; see `thin_tetrahedron_is_accepted` in geometry_polytope.rs),
/// which is not what these tests are about.
fn shape_cloud() -> impl Strategy<Value = Vec<DVec3>> {
    (
        common::random_cloud(4..=8),
        (0.2..1.5f64, 0.2..1.5f64, 0.2..1.5f64),
    )
        .prop_map(|(pts, (x, y, z))| pts.iter().map(|p| *p * DVec3::new(x, y, z)).collect())
        .prop_filter("spans a volume", |pts: &Vec<DVec3>| {
            common::relative_thickness(pts) > 1e-2
        })
}

fn mean(points: &[DVec3]) -> DVec3 {
    points.iter().copied().sum::<DVec3>() / points.len() as f64
}

fn max_radius(points: &[DVec3], centre: DVec3) -> f64 {
    points
        .iter()
        .map(|p| p.distance(centre))
        .fold(0.0, f64::max)
}

proptest! {
    #![proptest_config(proptest_config(128))]

    #[test]
    fn polytope_pair_gap_and_contacts_match_brute_force(
        cloud_a in shape_cloud(),
        cloud_b in shape_cloud(),
        (qa, qb) in (rotation(), rotation()),
        ta in unit_cube_point(),
        u in unit_vector(),
        target in target(),
        activation in activation(),
    ) {
        let pose_a = Pose::new(ta, qa);
        let (a, shape_a) = Solid::hull(&cloud_a, pose_a);
        // B's vertex mean on A's, then moved along u until the exact gap hits the target.
        let world_a: Vec<DVec3> = cloud_a.iter().map(|p| pose_a.transform_point(*p)).collect();
        let base = mean(&world_a) - qb * mean(&cloud_b);
        let place = |t: f64| -> Vec<DVec3> { cloud_b.iter().map(|p| qb * *p + base + t * u).collect() };
        let psi0 = signed_distance(&world_a, &place(0.0));
        prop_assert!(psi0 < 0.0, "vertex means coincide yet ψ₀ = {}", psi0);
        let goal = target.gap(psi0, activation);
        let reach = max_radius(&world_a, mean(&world_a)) + max_radius(&cloud_b, mean(&cloud_b)) + goal.max(0.0) + 0.1;
        let t = bisect_right(|t| signed_distance(&world_a, &place(t)), goal, reach, 36);
        let pose_b = Pose::new(base + t * u, qb);
        let (b, shape_b) = Solid::hull(&cloud_b, pose_b);
        check_both_orders((&a, &shape_a, &pose_a), (&b, &shape_b, &pose_b), activation)?;
    }

    /// `face_preference` p: the best face may stand in for the exact axis when within p of the
    /// pair's size of the gap, so the smallest contact gap lies in [ψ − p·size, ψ] (plus the
    /// exactness tolerance): never above the exact gap, never below it by more than the band.
    /// The pair's size is bounded here by twice the largest |point| (scale below).
    #[test]
    fn with_a_face_preference_the_smallest_gap_is_within_its_band_of_the_exact_one(
        cloud_a in shape_cloud(),
        cloud_b in shape_cloud(),
        (qa, qb) in (rotation(), rotation()),
        ta in unit_cube_point(),
        u in unit_vector(),
        target in target(),
        activation in activation(),
        preference in prop_oneof![Just(1e-3), Just(1e-2)],
    ) {
        let pose_a = Pose::new(ta, qa);
        let (a, shape_a) = Solid::hull(&cloud_a, pose_a);
        let world_a: Vec<DVec3> = cloud_a.iter().map(|p| pose_a.transform_point(*p)).collect();
        let base = mean(&world_a) - qb * mean(&cloud_b);
        let place = |t: f64| -> Vec<DVec3> { cloud_b.iter().map(|p| qb * *p + base + t * u).collect() };
        let goal = target.gap(signed_distance(&world_a, &place(0.0)), activation);
        let reach = max_radius(&world_a, mean(&world_a)) + max_radius(&cloud_b, mean(&cloud_b)) + goal.max(0.0) + 0.1;
        let t = bisect_right(|t| signed_distance(&world_a, &place(t)), goal, reach, 36);
        let pose_b = Pose::new(base + t * u, qb);
        let (b, shape_b) = Solid::hull(&cloud_b, pose_b);
        let psi = oracle_gap(&a, &b);
        let l = a.scale().max(b.scale()).max(1.0);
        let (gap_tol, band) = (GAP_REL * l, preference * 2.0 * l);
        let mut out: Vec<Contact> = Vec::new();
        pair_contacts_with(&shape_a, &pose_a, &shape_b, &pose_b, (activation, preference), &mut out);
        if let Some(min_gap) = out.iter().map(|c| c.gap).reduce(f64::min) {
            prop_assert!(
                min_gap <= psi + gap_tol && min_gap >= psi - band - gap_tol,
                "min contact gap {min_gap:e} vs exact ψ {psi:e}, band {band:e}"
            );
        } else {
            prop_assert!(psi > activation - gap_tol, "ψ = {psi:e} ≤ activation {activation:e} but no contact");
        }
    }

    #[test]
    fn sphere_polytope_gap_and_contacts_match_brute_force(
        cloud in shape_cloud(),
        q in rotation(),
        tp in unit_cube_point(),
        u in unit_vector(),
        radius in 0.05..1.0f64,
        target in target(),
        activation in activation(),
    ) {
        let pose = Pose::new(tp, q);
        let (p, shape_p) = Solid::hull(&cloud, pose);
        let Solid::Hull { ref points, ref planes, .. } = p else { unreachable!() };
        let m = mean(points);
        let psi = |t: f64| point_hull_signed_distance(planes, points, m + t * u) - radius;
        let goal = target.gap(psi(0.0), activation);
        let t = bisect_right(psi, goal, max_radius(points, m) + radius + goal.max(0.0) + 0.1, 40);
        let (s, shape_s, pose_s) = Solid::ball(m + t * u, radius);
        check_both_orders((&p, &shape_p, &pose), (&s, &shape_s, &pose_s), activation)?;
    }

    #[test]
    fn sphere_sphere_gap_and_contacts_match_closed_form(
        ca in unit_cube_point(),
        u in unit_vector(),
        (ra, rb) in (0.05..1.0f64, 0.05..1.0f64),
        target in target(),
        activation in activation(),
    ) {
        let goal = target.gap(-(ra + rb), activation);
        let (a, shape_a, pose_a) = Solid::ball(ca, ra);
        let (b, shape_b, pose_b) = Solid::ball(ca + (ra + rb + goal) * u, rb);
        check_both_orders((&a, &shape_a, &pose_a), (&b, &shape_b, &pose_b), activation)?;
    }

    #[test]
    fn half_space_polytope_gap_and_contacts_match_brute_force(
        local_normal in unit_vector(),
        (qh, th) in (rotation(), unit_cube_point()),
        cloud in shape_cloud(),
        (q, tp) in (rotation(), unit_cube_point()),
        depth in -1.0..1.0f64,
        activation in activation(),
    ) {
        let pose_h = Pose::new(th, qh);
        let (h, shape_h) = Solid::half(local_normal, pose_h);
        let Solid::Half { normal, offset } = h else { unreachable!() };
        // Shift the polytope along the normal so that its lowest point is `depth` (scaled) from
        // the plane: from deep penetration to beyond the activation distance.
        let lowest = cloud.iter().map(|p| normal.dot(q * *p + tp) - offset).fold(f64::INFINITY, f64::min);
        let goal = if depth < 0.0 { depth } else { depth * 2.0 * activation };
        let pose_p = Pose::new(tp + (goal - lowest) * normal, q);
        let (p, shape_p) = Solid::hull(&cloud, pose_p);
        check_both_orders((&h, &shape_h, &pose_h), (&p, &shape_p, &pose_p), activation)?;
        // Every corner of the polytope within the activation distance is a contact, exactly once.
        let mut out = Vec::new();
        pair_contacts(&shape_h, &pose_h, &shape_p, &pose_p, activation, &mut out);
        let Solid::Hull { ref poly, .. } = p else { unreachable!() };
        let within: Vec<u32> = (0..poly.vertices.len() as u32)
            .filter(|&i| normal.dot(pose_p.transform_point(poly.vertices[i as usize])) - offset <= activation)
            .collect();
        let mut reported: Vec<u32> = out.iter().map(|c| match c.feature_b { Feature::Vertex(i) => i, f => panic!("feature {f:?}") }).collect();
        reported.sort_unstable();
        prop_assert_eq!(reported, within);
    }

    #[test]
    fn half_space_sphere_gap_and_contacts_match_closed_form(
        local_normal in unit_vector(),
        (qh, th) in (rotation(), unit_cube_point()),
        c0 in unit_cube_point(),
        radius in 0.05..1.0f64,
        depth in -1.0..1.0f64,
        activation in activation(),
    ) {
        let pose_h = Pose::new(th, qh);
        let (h, shape_h) = Solid::half(local_normal, pose_h);
        let Solid::Half { normal, offset } = h else { unreachable!() };
        let goal = if depth < 0.0 { depth * radius } else { depth * 2.0 * activation };
        let centre = c0 + (goal + radius - (normal.dot(c0) - offset)) * normal;
        let (s, shape_s, pose_s) = Solid::ball(centre, radius);
        check_both_orders((&h, &shape_h, &pose_h), (&s, &shape_s, &pose_s), activation)?;
    }
}

#[test]
fn concentric_spheres_get_one_contact_at_full_depth() {
    // Centres coincide: no preferred direction, but the gap is still −(r_a + r_b) and the points
    // are on the spheres, with p_b − p_a along the (unit) normal.
    let (a, shape_a, pose_a) = Solid::ball(DVec3::new(0.3, -0.2, 1.0), 0.5);
    let (b, shape_b, pose_b) = Solid::ball(DVec3::new(0.3, -0.2, 1.0), 0.25);
    check_both_orders((&a, &shape_a, &pose_a), (&b, &shape_b, &pose_b), 1e-3).unwrap();
}

#[test]
fn box_resting_on_box_face_to_face_reports_the_full_overlap_rectangle() {
    // A 1 m cube on a 2 m × 2 m × 1 m slab, 1 mm deep, turned 0.3 rad about z: the manifold is the
    // top cube's four bottom corners (all inside the slab's top face), each 1 mm deep.
    let slab = Shape::cuboid(DVec3::new(2.0, 2.0, 1.0)).unwrap();
    let cube = Shape::cuboid(DVec3::ONE).unwrap();
    let top = Pose::new(
        DVec3::new(0.1, 0.2, 0.999),
        signorini::DQuat::from_rotation_z(0.3),
    );
    let mut out = Vec::new();
    pair_contacts(&slab, &Pose::IDENTITY, &cube, &top, 1e-3, &mut out);
    assert_eq!(out.len(), 4, "{out:?}");
    for c in &out {
        // Coordinates of order 1: round-off of a few ε.
        assert!((c.gap + 1e-3).abs() <= 1e-12, "gap {}", c.gap);
        assert!((c.normal - DVec3::Z).length() <= 1e-12);
        assert!(
            matches!(c.feature_a, Feature::Face(_)) && matches!(c.feature_b, Feature::Vertex(_))
        );
        assert!((c.point_a.z - 0.5).abs() <= 1e-12 && (c.point_b.z - 0.499).abs() <= 1e-12);
    }
}

fn q(x: f64, y: f64, z: f64, w: f64) -> signorini::DQuat {
    signorini::DQuat::from_xyzw(x, y, z, w)
}

#[test]
fn shallow_vertex_contact_is_kept_when_the_most_opposed_face_misses_that_vertex() {
    // Regression (shrunk from the property test). B is a tetrahedron whose vertex 2 touches face
    // 1 of A; B's face most anti-parallel to that face's normal (n·n_ref = −0.5001) does not
    // contain vertex 2, while the one that does is a hair less opposed (−0.4919). Clipping the
    // former lost the deepest point: at 0.1 mm penetration the only point left was 3.8 mm away
    // from A, so with a 1 mm activation distance the pair had no contact at all.
    let cloud_a = vec![
        DVec3::new(0.5614317975040565, 0.812958747435759, -0.8660984776512431),
        DVec3::new(0.0, 0.08445329515441126, 1.036963737193657),
        DVec3::new(0.0, -1.0564851800240025, -0.4052646044485968),
        DVec3::new(-0.5624212005083455, -0.3096695380534941, 0.8875465563569448),
    ];
    let cloud_b = vec![
        DVec3::new(0.05633947203176573, 0.0, -0.059103927284899674),
        DVec3::new(
            -0.17366937470326727,
            -0.1996787026367518,
            -0.16248503641129172,
        ),
        DVec3::new(0.0, 0.0, 0.0),
        DVec3::new(
            -0.19065801241471342,
            -0.1622791419815645,
            -0.09436382694709182,
        ),
    ];
    let pose_a = Pose::new(
        DVec3::ZERO,
        q(
            -0.2894442725274842,
            -0.23006844415615016,
            -0.9288937004914337,
            0.021142783448126617,
        ),
    );
    let qb = q(
        0.8764482241199901,
        -0.3583909602135449,
        0.271875892921778,
        -0.17169137695910902,
    );
    let u = DVec3::new(0.7691773360406872, 0.0, 0.6390353869085436);
    let world_a: Vec<DVec3> = cloud_a.iter().map(|p| pose_a.transform_point(*p)).collect();
    let base = mean(&world_a) - qb * mean(&cloud_b);
    let place = |t: f64| -> Vec<DVec3> { cloud_b.iter().map(|p| qb * *p + base + t * u).collect() };
    let t = bisect_right(|t| signed_distance(&world_a, &place(t)), -1e-4, 5.0, 60);
    let pose_b = Pose::new(base + t * u, qb);
    let (a, shape_a) = Solid::hull(&cloud_a, pose_a);
    let (b, shape_b) = Solid::hull(&cloud_b, pose_b);
    assert!((oracle_gap(&a, &b) + 1e-4).abs() < 1e-9);
    check_both_orders((&a, &shape_a, &pose_a), (&b, &shape_b, &pose_b), 1e-3).unwrap();
}

#[test]
fn separated_pair_with_a_multi_point_closest_feature_gets_a_unit_normal() {
    // Regression (from a long property-test run). The gap comes from GJK and its closest points
    // are combinations of several support points; n = (p_b − p_a)/gap had |n| = 1 − 2.2e-12,
    // because p_b − p_a cancels to ~ε|x| while the gap is 1.2e-4 m (the error grows as the gap
    // shrinks). Normalizing p_b − p_a gives a unit normal.
    let cloud_a = vec![
        DVec3::new(0.9343158353627555, 0.4710803247691748, -0.4157233338944518),
        DVec3::new(
            -0.2549753520824778,
            0.5151596549227859,
            0.057100581948214456,
        ),
        DVec3::new(
            0.7602056389029009,
            -0.08809247802559972,
            -0.5880554572073915,
        ),
        DVec3::new(
            -0.9792186682648872,
            -0.02326378681404384,
            0.012961879818599073,
        ),
        DVec3::new(
            0.5288645291365399,
            -0.5378627573630167,
            -0.034738074173452496,
        ),
        DVec3::new(
            -0.8362028574099889,
            -0.5576167556028121,
            -0.1969584765144515,
        ),
        DVec3::new(
            -0.35367299085080517,
            -0.14763306297840229,
            -0.6049706602818138,
        ),
    ];
    let cloud_b = vec![
        DVec3::new(
            -0.6334861999208767,
            -0.5985972313601308,
            0.12929070749587993,
        ),
        DVec3::new(
            -0.3773508726197577,
            -0.5533188301125502,
            0.13134519762729016,
        ),
        DVec3::new(
            -0.5583401681743477,
            -0.055666797558662995,
            -0.43439990695573905,
        ),
        DVec3::new(
            0.02614988641598674,
            -1.1158458389569512,
            -0.4438775252093109,
        ),
        DVec3::new(0.8313979197173209, -0.5871730067952592, 0.3717295166639175),
    ];
    let pose_a = Pose::new(
        DVec3::new(-0.6702898276555137, 0.8885420086900486, 0.3287004039974891),
        q(
            0.27858713176843347,
            -0.5139584676372739,
            0.7528929439072289,
            0.30230467838207425,
        ),
    );
    let pose_b = Pose::new(
        DVec3::new(
            -0.7770178471072919,
            1.2318494656141594,
            -0.07666905623431641,
        ),
        q(
            -0.3749890536800931,
            -0.5041963063246414,
            -0.5906549121518012,
            0.5062569200116128,
        ),
    );
    let (a, shape_a) = Solid::hull(&cloud_a, pose_a);
    let (b, shape_b) = Solid::hull(&cloud_b, pose_b);
    let psi = oracle_gap(&a, &b);
    assert!(psi > 0.0 && psi < 1e-3, "ψ = {psi}");
    check_both_orders((&a, &shape_a, &pose_a), (&b, &shape_b, &pose_b), 1e-3).unwrap();
}

/// Regression: below ~1e-9·scale a face axis ties with a corner-to-corner gap and its clip held no
/// point; the narrow phase now falls back to the GJK closest points.
#[test]
fn cube_corners_a_nanometre_apart_get_a_contact() {
    // Two unit cubes corner to corner along the diagonal, 1 nm apart per axis: ψ = √3 nm, well
    // within the 1 mm activation distance. The face separation (1 nm) is within the axis-tie band
    // AXIS_TIE_REL·scale = 0.87 nm of the gap, so the face-clipping branch is taken; B's incident
    // face lies entirely outside A's face prism (corner to corner), the clip is empty and the pair
    // gets no contact. From ψ ≈ 2e-9·scale upwards the GJK closest-point branch is taken and the
    // contact is reported.
    let cube = Shape::cuboid(DVec3::ONE).unwrap();
    let p = DVec3::splat(1000.0);
    let (pa, pb) = (
        Pose::new(p, signorini::DQuat::IDENTITY),
        Pose::new(p + DVec3::splat(1.0 + 1e-9), signorini::DQuat::IDENTITY),
    );
    let mut out = Vec::new();
    pair_contacts(&cube, &pa, &cube, &pb, 1e-3, &mut out);
    assert_eq!(out.len(), 1, "no contact for cubes √3 nm apart");
    // Coordinates ~1000 m: the gap itself is only good to ~ε·1000 ≈ 2e-13 m.
    assert!((out[0].gap - 3f64.sqrt() * 1e-9).abs() < 1e-11);
}
