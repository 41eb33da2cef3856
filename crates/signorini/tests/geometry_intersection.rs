//! The intersection polytope (`geometry::intersection`): closed-form volumes and shapes, the
//! degenerate contacts a scene produces (touching faces, vertex or edge on a face, coplanar faces,
//! containment, identical bodies, tiny overlaps), and a seeded sweep over random polytopes checking
//! that the result is a closed convex polytope inside both inputs.
#[path = "common/geometry.rs"]
mod geom;

use geom::{check_intersection, cuboid, random_polytope, random_pose, rot, world_planes};
use signorini::geometry::{intersect, intersect_half_space, FaceOrigin, Polytope, Pose};
use signorini::util::rng::Rng;
use signorini::{DQuat, DVec3};
use std::f64::consts::{FRAC_PI_4, PI};

fn at(x: f64, y: f64, z: f64) -> Pose {
    Pose::new(DVec3::new(x, y, z), DQuat::IDENTITY)
}

/// Apply the same rigid motion to both poses.
fn moved(m: &Pose, p: &Pose) -> Pose {
    m.mul(p)
}

fn rel_err(got: f64, want: f64) -> f64 {
    (got - want).abs() / want.abs()
}

#[test]
fn axis_aligned_boxes_overlap_in_the_product_of_interval_overlaps() {
    // Random box sizes and offsets; the overlap is a box whose sides are the interval overlaps.
    // Exact up to rounding of the coordinates: 1e-12 relative covers ~10 ε per coordinate.
    let mut rng = Rng::new(11);
    let mut overlapping = 0;
    for _ in 0..300 {
        let ha = DVec3::new(
            rng.uniform(0.1, 2.0),
            rng.uniform(0.1, 2.0),
            rng.uniform(0.1, 2.0),
        );
        let hb = DVec3::new(
            rng.uniform(0.1, 2.0),
            rng.uniform(0.1, 2.0),
            rng.uniform(0.1, 2.0),
        );
        let (ca, cb) = (
            DVec3::new(
                rng.uniform(-1.0, 1.0),
                rng.uniform(-1.0, 1.0),
                rng.uniform(-1.0, 1.0),
            ),
            DVec3::new(
                rng.uniform(-2.0, 2.0),
                rng.uniform(-2.0, 2.0),
                rng.uniform(-2.0, 2.0),
            ),
        );
        let lo = (ca - ha).max(cb - hb);
        let hi = (ca + ha).min(cb + hb);
        let sides = (hi - lo).max(DVec3::ZERO);
        let want = sides.x * sides.y * sides.z;
        let got = intersect(
            &cuboid(ha),
            &at(ca.x, ca.y, ca.z),
            &cuboid(hb),
            &at(cb.x, cb.y, cb.z),
        );
        match got {
            None => assert_eq!(want, 0.0, "missed an overlap of {want}"),
            Some(i) => {
                overlapping += 1;
                assert!(rel_err(i.volume, want) < 1e-12, "{} vs {want}", i.volume);
                assert!(i.centroid.distance((lo + hi) / 2.0) < 1e-12);
                assert_eq!((i.vertices.len(), i.faces.len()), (8, 6));
            }
        }
    }
    assert!(overlapping > 50, "the sweep must exercise overlaps");
}

#[test]
fn cube_and_cube_turned_45_degrees_about_z_give_a_regular_octagonal_prism() {
    // Two squares of half-side 1, one turned 45°: a regular octagon of inradius 1, area 8 tan(π/8)
    // = 8(√2 − 1). Prism height 2 − dz when the second cube is raised by dz.
    let a = cuboid(DVec3::ONE);
    for dz in [0.0, 0.5, 1.9] {
        let pose_b = Pose::new(DVec3::new(0.0, 0.0, dz), rot(DVec3::Z, FRAC_PI_4));
        let i = intersect(&a, &Pose::IDENTITY, &a, &pose_b).expect("overlap");
        let want = 8.0 * (2f64.sqrt() - 1.0) * (2.0 - dz);
        assert!(rel_err(i.volume, want) < 1e-13, "{} vs {want}", i.volume);
        assert_eq!((i.vertices.len(), i.faces.len()), (16, 10));
        assert!(i.centroid.distance(DVec3::new(0.0, 0.0, dz / 2.0)) < 1e-13);
        check_intersection(&i, &[]);
    }
}

#[test]
fn half_space_through_the_centre_halves_a_cube_and_through_a_corner_cuts_a_tetrahedron() {
    let cube = cuboid(DVec3::splat(0.5));
    let mut rng = Rng::new(3);
    for _ in 0..50 {
        // Any plane through the centre of a centrally symmetric body bisects it.
        let pose = random_pose(&mut rng, 3.0);
        let n = rng.unit_vector();
        let i = intersect_half_space(&cube, &pose, n, n.dot(pose.translation)).expect("half");
        assert!(rel_err(i.volume, 0.5) < 1e-13, "{}", i.volume);
        // The unit cube [0, 1]³ (corner at the origin of its frame) against x/a + y/b + z/c ≤ 1 with
        // a, b, c ≤ 1: the tetrahedron of volume abc/6.
        let (a, b, c) = (
            rng.uniform(0.05, 1.0),
            rng.uniform(0.05, 1.0),
            rng.uniform(0.05, 1.0),
        );
        let corner = pose.mul(&at(0.5, 0.5, 0.5));
        let n_local = DVec3::new(1.0 / a, 1.0 / b, 1.0 / c);
        let n_world = pose.rotation * n_local;
        let i = intersect_half_space(&cube, &corner, n_world, 1.0 + n_world.dot(pose.translation))
            .expect("corner");
        assert!(rel_err(i.volume, a * b * c / 6.0) < 1e-12, "{}", i.volume);
        assert_eq!((i.vertices.len(), i.faces.len()), (4, 4));
        assert_eq!(
            i.faces
                .iter()
                .filter(|f| f.origin == FaceOrigin::HalfSpace)
                .count(),
            1
        );
        check_intersection(&i, &[&world_planes(&cube, &corner)]);
    }
}

#[test]
fn regular_tetrahedron_and_its_point_reflection_meet_in_an_octahedron_of_half_its_volume() {
    // T = hull{(1,1,1), (1,−1,−1), (−1,1,−1), (−1,−1,1)} = {s·x ≥ −1}, −T = {s·x ≤ 1}: T ∩ −T is
    // {|x| + |y| + |z| ≤ 1}, volume 4/3 = vol(T)/2 (vol T = 8 − 4·4/3 = 8/3).
    let t = Polytope::from_points(&[
        DVec3::new(1.0, 1.0, 1.0),
        DVec3::new(1.0, -1.0, -1.0),
        DVec3::new(-1.0, 1.0, -1.0),
        DVec3::new(-1.0, -1.0, 1.0),
    ])
    .unwrap();
    // The point reflection −x is not a rotation, but for this tetrahedron −T = T turned 90° about
    // z ((x, y, z) → (−y, x, z) maps the four corners onto the negated ones).
    let reflected = Pose::new(DVec3::ZERO, rot(DVec3::Z, 0.5 * PI));
    let mut rng = Rng::new(5);
    for k in 0..20 {
        let m = if k == 0 {
            Pose::IDENTITY
        } else {
            random_pose(&mut rng, 10.0)
        };
        let i = intersect(&t, &m, &t, &moved(&m, &reflected)).expect("octahedron");
        assert!(rel_err(i.volume, 4.0 / 3.0) < 1e-13, "{}", i.volume);
        assert_eq!((i.vertices.len(), i.faces.len()), (6, 8));
        assert!(i.centroid.distance(m.translation) < 1e-12);
        check_intersection(&i, &[]);
    }
}

#[test]
fn a_polytope_inside_another_is_the_intersection_whichever_comes_first() {
    let mut rng = Rng::new(7);
    let outer = cuboid(DVec3::splat(2.0));
    for _ in 0..30 {
        let inner = random_polytope(&mut rng, 12, 1.0);
        let m = random_pose(&mut rng, 5.0);
        let pose_in = m.mul(&Pose::new(DVec3::splat(0.3), rng.rotation()));
        for (a, pa, b, pb, want_b) in [
            (&outer, &m, &inner, &pose_in, true),
            (&inner, &pose_in, &outer, &m, false),
        ] {
            let i = intersect(a, pa, b, pb).expect("contained");
            assert!(rel_err(i.volume, inner.volume()) < 1e-12);
            assert_eq!(i.faces.len(), inner.faces.len());
            assert_eq!(i.vertices.len(), inner.vertices.len());
            // Every face comes from the inner polytope.
            assert!(i.faces.iter().all(|f| matches!(
                (f.origin, want_b),
                (FaceOrigin::B(_), true) | (FaceOrigin::A(_), false)
            )));
        }
    }
}

#[test]
fn identical_polytopes_give_themselves_with_a_s_faces() {
    // Every face of B coincides with one of A: coplanar faces give one face each (A's), never a
    // sliver, and the volume is A's.
    let mut rng = Rng::new(9);
    for _ in 0..30 {
        let p = random_polytope(&mut rng, 20, 1.0);
        let pose = random_pose(&mut rng, 100.0);
        let i = intersect(&p, &pose, &p, &pose).expect("identical");
        assert!(rel_err(i.volume, p.volume()) < 1e-12);
        assert_eq!(i.faces.len(), p.faces.len());
        assert_eq!(i.vertices.len(), p.vertices.len());
        assert!(i.faces.iter().all(|f| matches!(f.origin, FaceOrigin::A(_))));
    }
}

#[test]
fn coplanar_faces_give_one_face_not_slivers() {
    // Two unit-section bars side by side along x, sharing their four side planes: the overlap is
    // a box with exactly 6 faces and 8 vertices, also when B is turned about x by 1e-14 rad
    // (nearly coplanar: 1e-14 m off over the 1 m faces, below the tolerance) and when the pair is
    // moved far from the origin.
    let (a, b) = (
        cuboid(DVec3::new(1.0, 0.5, 0.5)),
        cuboid(DVec3::new(1.0, 0.5, 0.5)),
    );
    let mut rng = Rng::new(13);
    for k in 0..20 {
        let m = if k == 0 {
            Pose::IDENTITY
        } else {
            random_pose(&mut rng, 1e3)
        };
        let tilt = if k % 2 == 0 { 0.0 } else { 1e-14 };
        let pose_b = Pose::new(DVec3::new(1.0, 0.0, 0.0), rot(DVec3::X, tilt));
        let i = intersect(&a, &m, &b, &moved(&m, &pose_b)).expect("overlap");
        assert_eq!((i.vertices.len(), i.faces.len()), (8, 6), "k = {k}");
        assert!(rel_err(i.volume, 1.0) < 1e-12, "{}", i.volume);
        let origins: Vec<_> = i.faces.iter().map(|f| f.origin).collect();
        // The four shared side planes are A's; the two ends are A's right end and B's left end.
        assert_eq!(
            origins
                .iter()
                .filter(|o| matches!(o, FaceOrigin::A(_)))
                .count(),
            5
        );
        check_intersection(&i, &[]);
    }
}

#[test]
fn touching_and_separated_polytopes_do_not_intersect() {
    let c = cuboid(DVec3::splat(0.5));
    let m = Pose::new(
        DVec3::new(3.0, -7.0, 2.0),
        rot(DVec3::new(1.0, 2.0, 3.0), 0.7),
    );
    // Face on face (also offset sideways), edge on face, vertex on face, edge on edge, apart.
    let edge_down = rot(DVec3::X, FRAC_PI_4);
    let vertex_down = DQuat::from_rotation_arc(DVec3::ONE.normalize(), -DVec3::Z);
    let h_edge = 0.5 * 2f64.sqrt();
    let h_vertex = 0.5 * 3f64.sqrt();
    let cases = [
        Pose::new(DVec3::new(0.0, 0.0, 1.0), DQuat::IDENTITY),
        Pose::new(DVec3::new(0.3, 0.6, 1.0), DQuat::IDENTITY),
        Pose::new(DVec3::new(0.1, 0.0, 0.5 + h_edge), edge_down),
        Pose::new(DVec3::new(0.1, 0.2, 0.5 + h_vertex), vertex_down),
        Pose::new(DVec3::new(1.0, 1.0, 0.0), rot(DVec3::Z, 0.0)),
        Pose::new(DVec3::new(0.0, 0.0, 1.0 + 1e-9), DQuat::IDENTITY),
        Pose::new(DVec3::new(5.0, 0.0, 0.0), DQuat::IDENTITY),
    ];
    for (k, p) in cases.iter().enumerate() {
        assert!(
            intersect(&c, &m, &c, &moved(&m, p)).is_none(),
            "case {k} reported an overlap"
        );
        assert!(intersect(&c, &moved(&m, p), &c, &m).is_none(), "case {k}");
    }
    // A half-space touching a face, an edge, a vertex.
    for (q, h) in [
        (DQuat::IDENTITY, 0.5),
        (edge_down, h_edge),
        (vertex_down, h_vertex),
    ] {
        let pose = Pose::new(DVec3::new(0.0, 0.0, h), q);
        assert!(intersect_half_space(&c, &pose, DVec3::Z, 0.0).is_none());
        assert!(intersect_half_space(&c, &pose, -DVec3::Z, -2.0 * h).is_none());
    }
}

#[test]
fn tiny_overlaps_of_a_face_an_edge_and_a_vertex_have_their_closed_form_volumes() {
    // A unit cube pushed h into a unit cube below (offset sideways): face down (slab of
    // footprint 0.7 × 0.8, volume 0.56 h), edge down (prism of triangular section 2h wide, h deep,
    // over the 0.9 m the cubes share along x: 0.9 h²) and vertex down (corner tetrahedron cut
    // perpendicular to the diagonal at depth h: legs h√3, volume (√3/2) h³), for h from 1e-3 to
    // 1e-9 of the size; against the half-space under the lower cube's top face the footprints are
    // whole (h, h², (√3/2) h³). Coordinates pass through two rigid motions and are rounded to ~5e-16 m, so
    // a length h is known to ~5e-16/h relative; three legs and a 10× margin: 2e-14 / h (2e-5 at
    // h = 1e-9), never below 1e-12.
    let c = cuboid(DVec3::splat(0.5));
    let edge_down = rot(DVec3::X, FRAC_PI_4);
    let vertex_down = DQuat::from_rotation_arc(DVec3::ONE.normalize(), -DVec3::Z);
    let m = Pose::new(
        DVec3::new(0.2, 0.1, -0.4),
        rot(DVec3::new(3.0, 1.0, 2.0), 1.1),
    );
    for h in [1e-3f64, 1e-6, 1e-9] {
        let tol = (2e-14 / h).max(1e-12);
        let cases = [
            (
                Pose::new(DVec3::new(0.3, 0.2, 1.0 - h), DQuat::IDENTITY),
                0.56 * h,
                h,
                "face",
            ),
            (
                Pose::new(DVec3::new(0.1, 0.0, 0.5 + 0.5 * 2f64.sqrt() - h), edge_down),
                0.9 * h * h,
                h * h,
                "edge",
            ),
            (
                Pose::new(
                    DVec3::new(0.1, 0.2, 0.5 + 0.5 * 3f64.sqrt() - h),
                    vertex_down,
                ),
                0.5 * 3f64.sqrt() * h * h * h,
                0.5 * 3f64.sqrt() * h * h * h,
                "vertex",
            ),
        ];
        for (p, want, want_half, what) in cases {
            let i = intersect(&c, &m, &c, &moved(&m, &p))
                .unwrap_or_else(|| panic!("{what} at h = {h}: no overlap"));
            println!(
                "{what} h = {h:e}: relative error {:.1e}",
                rel_err(i.volume, want)
            );
            assert!(
                rel_err(i.volume, want) < tol,
                "{what} h = {h}: {} vs {want}",
                i.volume
            );
            check_intersection(&i, &[]);
            // Same with the half-space below (normal up through the top face of the lower cube).
            let top = m.transform_point(DVec3::new(0.0, 0.0, 0.5));
            let n = m.rotation * DVec3::Z;
            let i = intersect_half_space(&c, &moved(&m, &p), n, n.dot(top)).expect("half");
            assert!(
                rel_err(i.volume, want_half) < tol,
                "{what} half h = {h}: {} vs {want_half}",
                i.volume
            );
        }
    }
}

#[test]
fn random_intersections_are_closed_convex_polytopes_inside_both_inputs() {
    // Seeded sweep: random hulls of 4–60 points at scales 1e-3, 1 and 1e3, placed so that they
    // overlap in all sorts of ways (translation up to the size), plus random half-spaces.
    // Asserted: the structural checks of `check_intersection` (closed 2-manifold, V − E + F = 2,
    // CCW loops), vertices on their face planes, convexity and containment in both inputs, all to
    // 1e-9 of the size; the volume never exceeds either input's.
    let mut rng = Rng::new(17);
    let (mut count, mut worst) = (0, [0.0f64; 3]);
    for k in 0..600 {
        let scale = [1e-3, 1.0, 1e3][k % 3];
        let (na, nb) = (4 + rng.below(57), 4 + rng.below(57));
        let a = random_polytope(&mut rng, na, scale);
        let b = random_polytope(&mut rng, nb, scale);
        let far = random_pose(&mut rng, 50.0 * scale);
        let pa = far.mul(&random_pose(&mut rng, 0.2 * scale));
        let pb = far.mul(&random_pose(&mut rng, 1.0 * scale));
        let (wa, wb) = (world_planes(&a, &pa), world_planes(&b, &pb));
        if let Some(i) = intersect(&a, &pa, &b, &pb) {
            count += 1;
            let figures = check_intersection(&i, &[&wa, &wb]);
            for (w, f) in worst.iter_mut().zip([figures.0, figures.1, figures.2]) {
                *w = w.max(f / scale);
            }
            assert!(i.volume <= a.volume().min(b.volume()) * (1.0 + 1e-12));
        }
        let n = rng.unit_vector();
        let d = n.dot(pa.translation) + rng.uniform(-0.5, 0.5) * scale;
        if let Some(i) = intersect_half_space(&a, &pa, n, d) {
            let figures = check_intersection(&i, &[&wa, &[(n, d)]]);
            for (w, f) in worst.iter_mut().zip([figures.0, figures.1, figures.2]) {
                *w = w.max(f / scale);
            }
        }
    }
    println!(
        "{count} overlapping pairs; worst relative off-plane / non-convexity / outside: {worst:?}"
    );
    assert!(count > 200, "the sweep must exercise overlaps: {count}");
    for w in worst {
        assert!(w < 1e-9, "{worst:?}");
    }
}

/// The support vertex of a posed polytope in direction `-n` (its lowest point along n).
fn lowest_along(p: &Polytope, pose: &Pose, n: DVec3) -> DVec3 {
    p.vertices
        .iter()
        .map(|v| pose.transform_point(*v))
        .min_by(|a, b| a.dot(n).total_cmp(&b.dot(n)))
        .unwrap()
}

#[test]
fn degenerate_contacts_of_random_polytopes() {
    // Random A; a face f of A (outward n, plane n·x = d, centroid q). B random, placed three ways:
    // (1) its lowest vertex along n at q (vertex on a face), (2) one of its faces turned to −n and
    // laid on f around q (face on face), (3) one of its faces turned to +n, coplanar with f from
    // inside A (coplanar faces, same side). Then pushed into A by h (along −n) for h = 0 and
    // h = 1e-9, 1e-6, 1e-3 of the size. Asserted: h = 0 in (1) and (2) is touching (None); every
    // result passes the structural checks (closed, convex, inside both, one face per plane, so no
    // slivers where faces are coplanar); in (1) and (2) the volume is below h π R_B² (B's part
    // below the plane lies in a slab of thickness h and within B's bounding radius R_B).
    let mut rng = Rng::new(19);
    let mut overlaps = 0;
    for k in 0..300 {
        let (na, nb) = (6 + rng.below(30), 6 + rng.below(30));
        let a = random_polytope(&mut rng, na, 1.0);
        let b = random_polytope(&mut rng, nb, 1.0);
        let pa = random_pose(&mut rng, 5.0);
        let f = &a.faces[rng.below(a.faces.len())];
        let n = pa.rotation * f.normal;
        let q = pa.transform_point(
            f.vertices
                .iter()
                .map(|&v| a.vertices[v as usize])
                .sum::<DVec3>()
                / f.vertices.len() as f64,
        );
        let mode = k % 3;
        let qb = match mode {
            0 => rng.rotation(),
            _ => {
                let g = &b.faces[rng.below(b.faces.len())];
                let target = if mode == 1 { -n } else { n };
                DQuat::from_rotation_arc(g.normal, target) * rot(g.normal, rng.uniform(0.0, 6.3))
            }
        };
        // Translation putting B's contact feature at q.
        let mut pb = Pose::new(DVec3::ZERO, qb);
        let anchor = if mode == 0 {
            lowest_along(&b, &pb, n)
        } else {
            // The face of B turned to −n (mode 1) or +n (mode 2): its centroid goes to q.
            let target = if mode == 1 { -n } else { n };
            let g = b
                .faces
                .iter()
                .max_by(|x, y| {
                    (qb * x.normal)
                        .dot(target)
                        .total_cmp(&(qb * y.normal).dot(target))
                })
                .unwrap();
            pb.transform_point(
                g.vertices
                    .iter()
                    .map(|&v| b.vertices[v as usize])
                    .sum::<DVec3>()
                    / g.vertices.len() as f64,
            )
        };
        pb.translation = q - anchor;
        let wa = world_planes(&a, &pa);
        for h in [0.0, 1e-9, 1e-6, 1e-3] {
            let pose = Pose::new(pb.translation - h * n, pb.rotation);
            let wb = world_planes(&b, &pose);
            let got = intersect(&a, &pa, &b, &pose);
            if h == 0.0 && mode < 2 {
                assert!(got.is_none(), "case {k} mode {mode}: touching gave {got:?}");
                continue;
            }
            let Some(i) = got else { continue };
            overlaps += 1;
            let (off, nonconvex, outside) = check_intersection(&i, &[&wa, &wb]);
            assert!(
                off.max(nonconvex).max(outside) < 1e-9,
                "case {k}: {off} {nonconvex} {outside}"
            );
            if mode < 2 {
                assert!(
                    i.volume <= h * PI * b.radius * b.radius,
                    "case {k}: {} at h {h}",
                    i.volume
                );
            }
        }
    }
    println!("{overlaps} overlapping configurations checked");
    assert!(overlaps > 500, "{overlaps}");
}

#[test]
fn non_finite_inputs_give_none_not_a_panic() {
    let c = cuboid(DVec3::splat(0.5));
    let bad = at(f64::NAN, 0.0, 0.0);
    assert!(intersect(&c, &bad, &c, &Pose::IDENTITY).is_none());
    assert!(intersect(&c, &Pose::IDENTITY, &c, &bad).is_none());
    assert!(intersect_half_space(&c, &Pose::IDENTITY, DVec3::ZERO, 0.0).is_none());
    assert!(intersect_half_space(&c, &Pose::IDENTITY, DVec3::Z, f64::INFINITY).is_none());
    assert!(intersect_half_space(&c, &bad, DVec3::Z, 0.0).is_none());
}
