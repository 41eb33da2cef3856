//! PEG's potential contacts (`collision::potential`; Williams, Lu & Trinkle 2016, §4–§5.2, eqs
//! 26–38) on hand-built configurations whose answer is derived in the comments: vertex–face
//! (eq. 34), a vertex near an edge (I of eq. 36) and near a corner (I of eq. 37), crossing edges
//! (eq. 35) with their releases, parallel edges, coplanar faces, coincident features, merging of
//! nearly equal candidates, relaxed applicability (eqs 30–31), A/B symmetry, the distance
//! threshold and the swept search, `feature_gap`, and seeded random pairs checked against
//! brute-force point-in-polytope and separating-axis oracles.
//!
//! Conventions (DESIGN.md): normal from A to B, gap ψ = (p_b − p_a)·n < 0 when penetrating.
//! A "group" is satisfied when at least one member has ψ ≥ 0.
#[allow(dead_code)]
mod common;
#[path = "common/geometry.rs"]
mod geom;

use signorini::collision::potential::{
    feature_gap, pair, Configuration, ConstraintKind, GroupKey, Motion, PotentialParams,
    PotentialSet, Scratch,
};
use signorini::collision::Contact;
use signorini::dynamics::{Body, Piece};
use signorini::geometry::{Feature, Polytope, Pose, Shape};
use signorini::util::rng::Rng;
use signorini::{DQuat, DVec3};
use std::f64::consts::FRAC_1_SQRT_2;
use std::sync::Arc;

// ---------------------------------------------------------------------------------------------
// Fixtures and helpers

/// Potential set of A and B, both at rest.
fn run(a: &Polytope, pa: &Pose, b: &Polytope, pb: &Pose, params: &PotentialParams) -> PotentialSet {
    run_moving(a, pa, &Motion::REST, b, pb, &Motion::REST, params)
}

fn run_moving(
    a: &Polytope,
    pa: &Pose,
    ma: &Motion,
    b: &Polytope,
    pb: &Pose,
    mb: &Motion,
    params: &PotentialParams,
) -> PotentialSet {
    let mut scratch = Scratch::default();
    let mut out = PotentialSet::default();
    pair(
        (a, pa, ma, &[]),
        (b, pb, mb, &[]),
        params,
        &mut scratch,
        &mut out,
    );
    check_well_formed(&out, params, a.radius + b.radius);
    out
}

fn at(x: f64, y: f64, z: f64) -> Pose {
    Pose::new(DVec3::new(x, y, z), DQuat::IDENTITY)
}

/// A tetrahedron with its apex at the origin and the three other vertices 0.5 m above it: the
/// apex points down (−z). Its apex edges have directions (0.3, 0, 0.5), (−0.15, ±0.26, 0.5).
fn tet() -> Polytope {
    Polytope::from_points(&[
        DVec3::ZERO,
        DVec3::new(0.3, 0.0, 0.5),
        DVec3::new(-0.15, 0.26, 0.5),
        DVec3::new(-0.15, -0.26, 0.5),
    ])
    .unwrap()
}

/// Index of the vertex of `p` at (local) position `x`.
fn vertex_at(p: &Polytope, x: DVec3) -> u32 {
    p.vertices
        .iter()
        .position(|v| v.distance(x) < 1e-12)
        .unwrap_or_else(|| panic!("no vertex at {x}")) as u32
}

/// Index of the face of `p` with (local) outward normal `n`.
fn face_with_normal(p: &Polytope, n: DVec3) -> u32 {
    p.faces
        .iter()
        .position(|f| f.normal.distance(n) < 1e-12)
        .unwrap_or_else(|| panic!("no face with normal {n}")) as u32
}

/// Index of the edge of `p` joining the vertices at (local) positions `x` and `y`.
fn edge_between(p: &Polytope, x: DVec3, y: DVec3) -> u32 {
    let (i, j) = (vertex_at(p, x), vertex_at(p, y));
    p.edges
        .iter()
        .position(|e| e.vertices == [i, j] || e.vertices == [j, i])
        .unwrap_or_else(|| panic!("no edge {x} – {y}")) as u32
}

/// The contact with these features, if present.
fn find(set: &PotentialSet, fa: Feature, fb: Feature) -> Option<usize> {
    set.contacts
        .iter()
        .position(|c| c.feature_a == fa && c.feature_b == fb)
}

fn group(set: &PotentialSet, key: GroupKey) -> Option<&signorini::collision::potential::Group> {
    set.groups.iter().find(|g| g.key == key)
}

fn satisfied(set: &PotentialSet, g: &signorini::collision::potential::Group) -> bool {
    g.members.iter().any(|&m| set.contacts[m].gap >= 0.0)
}

/// Structural invariants every potential set must meet, whatever the configuration:
/// - every contact finite, unit normal (|n| − 1 within 1e-12: a normalized f64 vector is unit
///   to a few ulps), and gap = (p_b − p_a)·n (the DESIGN.md convention; 1e-12 relative to the
///   pair's size r_A + r_B, round-off of coordinates of that size);
/// - groups: members non-empty, strictly increasing and in range; candidates non-empty, strictly
///   increasing and a subset of the members; a candidate has finite applicability (releases,
///   which carry no force, are −∞);
/// - after merging no two contacts are nearly equal (points within merge_tolerance·(r_A + r_B)
///   and normals within merge_tolerance), and no group's members contain another group's
///   (such a group is implied and dropped), so no two groups are equal;
/// - every contact is a member of some group.
fn check_well_formed(set: &PotentialSet, params: &PotentialParams, size: f64) {
    assert_eq!(set.contacts.len(), set.applicability.len());
    for (i, c) in set.contacts.iter().enumerate() {
        assert!(
            c.point_a.is_finite() && c.point_b.is_finite() && c.normal.is_finite(),
            "contact {i} not finite: {c:?}"
        );
        assert!(c.gap.is_finite(), "contact {i}: gap {}", c.gap);
        assert!(
            (c.normal.length() - 1.0).abs() < 1e-12,
            "contact {i}: |n| = {}",
            c.normal.length()
        );
        let g = (c.point_b - c.point_a).dot(c.normal);
        assert!(
            (g - c.gap).abs() <= 1e-12 * size,
            "contact {i}: gap {} but (p_b − p_a)·n = {g}",
            c.gap
        );
        assert!(!set.applicability[i].is_nan());
    }
    let point_tol = params.merge_tolerance * size;
    for i in 0..set.contacts.len() {
        for j in 0..i {
            let (ci, cj) = (&set.contacts[i], &set.contacts[j]);
            assert!(
                !(ci.point_a.distance(cj.point_a) <= point_tol
                    && ci.point_b.distance(cj.point_b) <= point_tol
                    && ci.normal.distance(cj.normal) <= params.merge_tolerance),
                "contacts {j} and {i} are nearly equal and were not merged: {cj:?} {ci:?}"
            );
        }
    }
    let mut used = vec![false; set.contacts.len()];
    for (gi, g) in set.groups.iter().enumerate() {
        assert!(!g.members.is_empty() && !g.candidates.is_empty(), "{g:?}");
        assert!(g.members.windows(2).all(|w| w[0] < w[1]), "{g:?}");
        assert!(g.candidates.windows(2).all(|w| w[0] < w[1]), "{g:?}");
        assert!(g.members.iter().all(|&m| m < set.contacts.len()));
        assert!(g.candidates.iter().all(|c| g.members.contains(c)), "{g:?}");
        assert!(
            g.candidates
                .iter()
                .all(|&c| set.applicability[c].is_finite()),
            "{g:?}"
        );
        for &m in &g.members {
            used[m] = true;
        }
        for (hi, h) in set.groups.iter().enumerate() {
            if hi != gi {
                assert!(
                    !h.members.iter().all(|m| g.members.contains(m)),
                    "group {gi} {g:?} is implied by group {hi} {h:?}"
                );
            }
        }
    }
    assert!(used.iter().all(|u| *u), "a contact belongs to no group");
}

// Box B of half extent 1 m at the origin: its top face is z = 1, its +x face x = 1.
fn unit_box() -> Polytope {
    Polytope::cuboid(DVec3::ONE)
}

// ---------------------------------------------------------------------------------------------
// Vertex–face (eq. 34)

/// The tetrahedron's apex h above the centre of the box's top face, with σ = 0.1 m: only the
/// apex is within σ of B (the other vertices are 0.5 m higher, B's corners are > 1 m from the
/// tetrahedron), so there is exactly one group: U(C(apex, top)) with ψ = h, normal −η_top = −z
/// (A is above B: A → B points down), p_a the apex, p_b its projection (0, 0, 1).
/// Applicability (eq. 30) = min over the apex's neighbours of η·(v_k − v)/|v_k − v|
/// = min(0.5/√0.34, 0.5/√(0.15² + 0.26² + 0.5²)) = 0.5/√0.3401.
#[test]
fn vertex_over_face_gives_one_unilateral_group() {
    let (a, b) = (tet(), unit_box());
    let params = PotentialParams::with_distance(0.1);
    let apex = vertex_at(&a, DVec3::ZERO);
    let top = face_with_normal(&b, DVec3::Z);
    for h in [0.05, -0.05] {
        let set = run(&a, &at(0.0, 0.0, 1.0 + h), &b, &Pose::IDENTITY, &params);
        assert_eq!(set.groups.len(), 1, "h = {h}: {set:#?}");
        let g = &set.groups[0];
        assert_eq!(g.key, GroupKey::VertexOfA(apex));
        assert_eq!(g.configuration, Configuration::VertexFace);
        assert_eq!(g.kind(), ConstraintKind::Unilateral);
        assert_eq!(g.members.len(), 1);
        assert_eq!(g.candidates, g.members);
        let c = &set.contacts[g.members[0]];
        assert_eq!(
            (c.feature_a, c.feature_b),
            (Feature::Vertex(apex), Feature::Face(top))
        );
        // 1 + h is rounded once (half an ulp of 1.05, 1.1e-16); the plane offset 1 and the
        // subtraction (Sterbenz) are exact: 1e-15 bounds the error with room.
        assert!((c.gap - h).abs() < 1e-15, "h = {h}: ψ = {}", c.gap);
        assert_eq!(c.normal, -DVec3::Z);
        assert!(c.point_a.distance(DVec3::new(0.0, 0.0, 1.0 + h)) < 1e-15);
        assert!(c.point_b.distance(DVec3::new(0.0, 0.0, 1.0)) < 1e-15);
        // Applicability: unit vectors of the apex edges, rounded to a few ulps.
        let appl = 0.5 / 0.3401f64.sqrt();
        assert!((set.applicability[g.members[0]] - appl).abs() < 1e-14);
        // h < 0: the apex is inside B, the group is violated; h > 0: satisfied.
        assert_eq!(satisfied(&set, g), h >= 0.0);
    }
}

// ---------------------------------------------------------------------------------------------
// Vertex near an edge (I of eq. 36) and near a vertex (I of eq. 37)

/// The apex at (1.02, 0, 1.03), beyond the box's edge {x = 1, z = 1} (in the edge's Voronoi
/// region): its distance to both faces' polygons, the distance to the edge √(0.02² + 0.03²) =
/// 0.036 m, is below σ = 0.1, so its vertex group has the two faces of the edge: C(apex, +x)
/// with ψ = 0.02 and C(apex, top) with ψ = 0.03 (the plane distances), an I-constraint.
/// Applicability (eq. 30) against +x: min(0.3/√0.34, −0.15/√0.3401) = −0.2572 < −sin 0.2: not a
/// candidate; against the top: 0.5/√0.3401 > 0, the only candidate.
/// The bodies are apart, so every group (the vertex group and the edge groups of the apex edges
/// with B's edge, released at the apex) is satisfied.
#[test]
fn vertex_near_box_edge_gives_both_faces_of_the_edge() {
    let (a, b) = (tet(), unit_box());
    let params = PotentialParams::with_distance(0.1);
    let apex = vertex_at(&a, DVec3::ZERO);
    let (top, side) = (
        face_with_normal(&b, DVec3::Z),
        face_with_normal(&b, DVec3::X),
    );
    let set = run(&a, &at(1.02, 0.0, 1.03), &b, &Pose::IDENTITY, &params);
    let g = group(&set, GroupKey::VertexOfA(apex)).expect("apex group");
    assert_eq!(g.configuration, Configuration::VertexEdge);
    assert_eq!(g.kind(), ConstraintKind::Inter);
    assert_eq!(g.members.len(), 2);
    let i_side = find(&set, Feature::Vertex(apex), Feature::Face(side)).unwrap();
    let i_top = find(&set, Feature::Vertex(apex), Feature::Face(top)).unwrap();
    assert!(g.members.contains(&i_side) && g.members.contains(&i_top));
    // Coordinates near 1 rounded once: a few 1e-16.
    assert!((set.contacts[i_side].gap - 0.02).abs() < 1e-15);
    assert!((set.contacts[i_top].gap - 0.03).abs() < 1e-15);
    assert_eq!(set.contacts[i_side].normal, -DVec3::X);
    assert_eq!(set.contacts[i_top].normal, -DVec3::Z);
    assert!((set.applicability[i_side] - -0.15 / 0.3401f64.sqrt()).abs() < 1e-14);
    assert_eq!(g.candidates, vec![i_top]);
    // The only other groups are edge groups of the apex edges against B's edge x = z = 1.
    let edge = edge_between(&b, DVec3::new(1.0, -1.0, 1.0), DVec3::new(1.0, 1.0, 1.0));
    for g in set.groups.iter().filter(|g| g.from_edges) {
        let GroupKey::Edges(_, eb) = g.key else {
            panic!("{g:?}")
        };
        assert_eq!(eb, edge);
        assert_eq!(g.candidates.len(), 1);
        // Released at the apex only (the far ends are 0.58 m away).
        assert_eq!(g.configuration, Configuration::VertexEdge);
        assert!(g.members[1..]
            .iter()
            .all(|&m| set.contacts[m].feature_a == Feature::Vertex(apex)));
    }
    assert_eq!(set.groups.iter().filter(|g| !g.from_edges).count(), 1);
    assert!(set.groups.iter().all(|g| satisfied(&set, g)));
}

/// The apex at (1.02, 1.01, 1.03), beyond the corner (1, 1, 1): the three faces at the corner
/// (ψ = 0.02, 0.01, 0.03) form the apex's group (I of eq. 37), and B's corner gets its own group
/// against the three faces of the tetrahedron at the apex (the fourth face is 0.5 m away); each
/// gap is the corner's plane distance, checked against the polytope's planes.
#[test]
fn vertex_near_box_corner_gives_the_three_faces_of_the_corner() {
    let (a, b) = (tet(), unit_box());
    let params = PotentialParams::with_distance(0.1);
    let apex = vertex_at(&a, DVec3::ZERO);
    let pose_a = at(1.02, 1.01, 1.03);
    let set = run(&a, &pose_a, &b, &Pose::IDENTITY, &params);
    let g = group(&set, GroupKey::VertexOfA(apex)).expect("apex group");
    assert_eq!(g.configuration, Configuration::VertexVertex);
    assert_eq!(g.kind(), ConstraintKind::Inter);
    let mut found: Vec<(DVec3, f64)> = g
        .members
        .iter()
        .map(|&m| (set.contacts[m].normal, set.contacts[m].gap))
        .collect();
    found.sort_by(|x, y| x.1.total_cmp(&y.1));
    let want = [(-DVec3::Y, 0.01), (-DVec3::X, 0.02), (-DVec3::Z, 0.03)];
    assert_eq!(found.len(), 3);
    for ((n, gap), (wn, wg)) in found.iter().zip(want) {
        assert_eq!(*n, wn);
        assert!((gap - wg).abs() < 1e-15);
    }
    let corner = vertex_at(&b, DVec3::ONE);
    let gb = group(&set, GroupKey::VertexOfB(corner)).expect("corner group");
    assert_eq!(gb.members.len(), 3);
    let planes = geom::world_planes(&a, &pose_a);
    let apex_faces = &a.vertex_faces[apex as usize];
    for &m in &gb.members {
        let c = &set.contacts[m];
        let Feature::Face(f) = c.feature_a else {
            panic!("{c:?}")
        };
        assert!(apex_faces.contains(&f));
        let (n, o) = planes[f as usize];
        // Plane distance of a point of size 1: round-off of a few ulps.
        assert!((c.gap - (n.dot(DVec3::ONE) - o)).abs() < 1e-14);
        assert!(c.normal.distance(n) < 1e-15);
    }
    // The corner is outside the tetrahedron, so some member has ψ ≥ 0.
    assert!(set.groups.iter().all(|g| satisfied(&set, g)));
}
