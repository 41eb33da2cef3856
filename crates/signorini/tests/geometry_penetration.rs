//! Drumwright's penetration geometry (`geometry::penetration`): the min–max facet normal on a box
//! tilted into a plane and on boxes in face contact, the bottom points of known volumes (the
//! paper's fig. 4), and the O(N log N) incremental procedure against the brute-force definition
//! on random intersections.
#[path = "common/geometry.rs"]
mod geom;

use geom::{cuboid, random_polytope, random_pose, rot};
use signorini::geometry::penetration::{
    bottom_points, bottom_points_incremental, contact_normal, VERTICAL_COS,
};
use signorini::geometry::{
    intersect, intersect_half_space, FaceOrigin, Intersection, Polytope, Pose,
};
use signorini::util::rng::Rng;
use signorini::{DQuat, DVec3};

/// A rotation tilting z by an angle in [lo, hi] (rad) about a random horizontal axis, then turning
/// about z at random.
fn tilt(rng: &mut Rng, lo: f64, hi: f64) -> DQuat {
    let a = rng.uniform(0.0, std::f64::consts::TAU);
    let axis = DVec3::new(a.cos(), a.sin(), 0.0);
    rot(axis, rng.uniform(lo, hi)) * rot(DVec3::Z, rng.uniform(0.0, 6.3))
}

/// Lowest world z of a posed polytope.
fn lowest(p: &Polytope, pose: &Pose) -> f64 {
    p.vertices
        .iter()
        .map(|v| pose.transform_point(*v).z)
        .fold(f64::INFINITY, f64::min)
}

#[test]
fn box_tilted_into_a_plane_takes_the_plane_normal() {
    // A box (half extents 0.3–1 m) at a random tilt, its lowest corner pushed δ ≤ 0.2 × the
    // smallest half extent below the ground z = 0. The ground's facet has max distance δ (the
    // deepest corner); a box face through that corner has as max distance the length of the box
    // edge perpendicular to it down to the ground, ≥ δ, and other box faces the box's thickness:
    // the ground wins (or ties at zero tilt, where the box's bottom face has the same normal).
    // Checked three ways: ground = a big box as A (normal +z, A → B), ground = a big box as B
    // (normal −z), ground = a half-space (B; normal −z, +z once swapped).
    let mut rng = Rng::new(41);
    let ground = cuboid(DVec3::new(50.0, 50.0, 5.0));
    let ground_pose = Pose::new(DVec3::new(0.0, 0.0, -5.0), DQuat::IDENTITY);
    for k in 0..200 {
        let half = DVec3::new(
            rng.uniform(0.3, 1.0),
            rng.uniform(0.3, 1.0),
            rng.uniform(0.3, 1.0),
        );
        let b = cuboid(half);
        let q = if k % 10 == 0 {
            rot(DVec3::Z, rng.uniform(0.0, 6.3))
        } else {
            tilt(&mut rng, 0.05, 1.5)
        };
        let delta = rng.uniform(1e-6, 0.2) * half.min_element();
        let mut pose = Pose::new(
            DVec3::new(rng.uniform(-3.0, 3.0), rng.uniform(-3.0, 3.0), 0.0),
            q,
        );
        pose.translation.z = -lowest(&b, &pose) - delta;

        let i = intersect(&ground, &ground_pose, &b, &pose).expect("overlap");
        let c = contact_normal(&i);
        assert!(
            c.normal.distance(DVec3::Z) < 1e-12,
            "case {k}: {:?} from {:?}",
            c.normal,
            c.facet
        );
        assert!(
            (c.thickness - delta).abs() < 1e-12,
            "{} vs {delta}",
            c.thickness
        );
        // The deepest corner is δ below the top of the volume (the ground plane).
        let deepest = c.depths.iter().copied().fold(0.0, f64::max);
        assert!((deepest - delta).abs() < 1e-12);

        let i = intersect(&b, &pose, &ground, &ground_pose).expect("overlap");
        let c = contact_normal(&i);
        assert!(
            c.normal.distance(-DVec3::Z) < 1e-12,
            "case {k}: {:?}",
            c.facet
        );

        let i = intersect_half_space(&b, &pose, DVec3::Z, 0.0).expect("overlap");
        let c = contact_normal(&i);
        assert!(
            c.normal.distance(-DVec3::Z) < 1e-12,
            "case {k}: {:?}",
            c.facet
        );
        if k % 10 != 0 {
            assert_eq!(c.facet, FaceOrigin::HalfSpace);
        }
        let s = c.swapped();
        assert!(s.normal.distance(DVec3::Z) < 1e-12);
        assert!((s.depths.iter().copied().fold(0.0, f64::max) - delta).abs() < 1e-12);
    }
}

#[test]
fn boxes_in_face_contact_take_the_face_normal() {
    // Box B resting on box A, turned about z and offset sideways, its bottom face δ into A's top
    // face: both faces have max distance δ (a tie within the tolerance, going to A's face);
    // normal +z from A to B, thickness δ. Also with the pair in a random common pose.
    let mut rng = Rng::new(43);
    for k in 0..100 {
        // A's top face is wide enough (≥ 1.2) to hold B's turned bottom face (reach ≤ 1.01).
        let ha = DVec3::new(
            rng.uniform(1.2, 2.0),
            rng.uniform(1.2, 2.0),
            rng.uniform(0.2, 1.0),
        );
        let hb = DVec3::new(
            rng.uniform(0.2, 0.5),
            rng.uniform(0.2, 0.5),
            rng.uniform(0.2, 1.0),
        );
        let delta = [1e-9, 1e-6, 1e-3, 0.1][k % 4] * hb.z;
        let pb = Pose::new(
            DVec3::new(
                rng.uniform(-0.3, 0.3),
                rng.uniform(-0.3, 0.3),
                ha.z + hb.z - delta,
            ),
            rot(DVec3::Z, rng.uniform(0.0, 6.3)),
        );
        let m = random_pose(&mut rng, 10.0);
        let i = intersect(&cuboid(ha), &m, &cuboid(hb), &m.mul(&pb)).expect("overlap");
        let c = contact_normal(&i);
        let up = m.rotation * DVec3::Z;
        assert!(c.normal.distance(up) < 1e-12, "case {k}: {:?}", c.facet);
        assert!(
            matches!(c.facet, FaceOrigin::A(_)),
            "tie goes to A: {:?}",
            c.facet
        );
        assert!((c.thickness - delta).abs() < 1e-12 + 1e-6 * delta);
        // Bottom points: B's bottom face corners inside A's top face, all at depth δ.
        let bottom = bottom_points(&i, c.normal);
        assert_eq!(bottom.len(), 4);
        for &j in &bottom {
            assert!((c.depths[j] - delta).abs() < 1e-12 + 1e-6 * delta);
        }
        assert_eq!(bottom_points_incremental(&i.vertices, c.normal), bottom);
    }
}

/// The vertices of `i` (indices) on a face whose outward normal has a negative dot with `n`,
/// found by a slower route than the library's: every face, every vertex, explicit membership.
fn on_down_faces(i: &Intersection, n: DVec3) -> Vec<usize> {
    (0..i.vertices.len())
        .filter(|&v| {
            i.faces
                .iter()
                .any(|f| f.vertices.contains(&(v as u32)) && f.normal.dot(n) < -VERTICAL_COS)
        })
        .collect()
}

#[test]
fn paper_figure_4_trapezoid_prism_in_the_ground() {
    // An extruded isosceles trapezoid, wide side down, penetrating the ground by 0.2 of its
    // height: the volume of intersection is a shorter trapezoid prism; its 4 corners on the wide
    // base are bottom points, the 4 on the ground plane are not (they are above the slanted
    // sides). With the narrow side down all 8 are bottom points (the slanted sides face down).
    let section = |w_bottom: f64, w_top: f64| -> Vec<DVec3> {
        let mut pts = Vec::new();
        for y in [-0.5, 0.5] {
            pts.extend([
                DVec3::new(-w_bottom, y, 0.0),
                DVec3::new(w_bottom, y, 0.0),
                DVec3::new(w_top, y, 1.0),
                DVec3::new(-w_top, y, 1.0),
            ]);
        }
        pts
    };
    for (wb, wt, want_bottom) in [(1.0, 0.5, 4), (0.5, 1.0, 8)] {
        let p = Polytope::from_points(&section(wb, wt)).unwrap();
        let pose = Pose::new(DVec3::new(0.3, -0.2, -0.2), DQuat::IDENTITY);
        // Ground as a big box A, the prism B: normal +z into the prism.
        let ground = cuboid(DVec3::new(10.0, 10.0, 1.0));
        let gp = Pose::new(DVec3::new(0.0, 0.0, -1.0), DQuat::IDENTITY);
        let i = intersect(&ground, &gp, &p, &pose).expect("overlap");
        assert_eq!(i.vertices.len(), 8);
        let c = contact_normal(&i);
        assert!(c.normal.distance(DVec3::Z) < 1e-12);
        let brute = bottom_points(&i, c.normal);
        assert_eq!(brute.len(), want_bottom);
        assert_eq!(brute, on_down_faces(&i, c.normal));
        for &j in &brute {
            assert!(i.vertices[j].z < -0.2 + 1e-12 || want_bottom == 8);
        }
        assert_eq!(bottom_points_incremental(&i.vertices, c.normal), brute);
    }
}

#[test]
fn incremental_procedure_keeps_a_shallow_vertex_above_a_steep_bottom_face() {
    // The limit of a procedure that sees only points. Prism along y over the convex polygon
    // L(−2, −5), v(−1.5, −2), (−1, 0), (1, 0), R(2, −1) in the x–z plane, normal +z. Vertex v lies on
    // the upper chain (faces L–v and v–(−1, 0) face up): there is material under it (the bottom
    // face L–R passes at z = −4.5 below x = −1.5), so it is not a bottom point. But the only points
    // deeper than v are L's two copies, whose projections (x = −2) do not surround v's (x = −1.5):
    // the incremental procedure keeps v. It keeps every bottom point (a superset, see the random
    // test), and here exactly the two copies of v too.
    let mut pts = Vec::new();
    for y in [-1.0, 1.0] {
        for (x, z) in [
            (-2.0, -5.0),
            (-1.5, -2.0),
            (-1.0, 0.0),
            (1.0, 0.0),
            (2.0, -1.0),
        ] {
            pts.push(DVec3::new(x, y, z));
        }
    }
    let p = Polytope::from_points(&pts).unwrap();
    let big = cuboid(DVec3::splat(20.0));
    let i = intersect(&big, &Pose::IDENTITY, &p, &Pose::IDENTITY).expect("inside");
    let brute = bottom_points(&i, DVec3::Z);
    let fast = bottom_points_incremental(&i.vertices, DVec3::Z);
    let is_v = |j: &usize| {
        let p = i.vertices[*j];
        (p.x + 1.5).abs() < 1e-12 && (p.z + 2.0).abs() < 1e-12
    };
    assert!(brute.iter().all(|j| fast.contains(j)));
    let extra: Vec<usize> = fast
        .iter()
        .copied()
        .filter(|j| !brute.contains(j))
        .collect();
    assert_eq!(extra.len(), 2);
    assert!(extra.iter().all(is_v));
    // Brute force: L and R copies (on the bottom face L–R).
    assert_eq!(brute.len(), 4);
}

#[test]
fn incremental_procedure_against_brute_force_on_random_intersections() {
    // Random cases: hulls of 5–40 points against each other, boxes against boxes, hulls against
    // random half-spaces; the normal from the min–max rule (B pushed), its reverse (A pushed) and
    // a random direction.
    //
    // Asserted, with the rules stated in the library (a face is a bottom face when
    // n_f·n < −1e-9; a point is discarded when its projection is within 1e-9 of the diagonal of
    // the hull of the deeper or tied projections):
    // 1. every bottom point is kept: if a bottom point v were discarded, its projection would be a
    //    convex combination of projections of points at least as deep, at least one strictly
    //    deeper (v is a vertex, not a combination of other points at its own depth), giving a
    //    point of the volume strictly below v: v would not be on a face facing down;
    // 2. the two agree whenever every face facing up (n_f·n > 1e-9) is perpendicular to n (the
    //    top face): a point that is not a bottom point then lies on the top face and on ≥ 2 side
    //    faces, whose common edge is vertical and leads down to a deeper vertex with the same
    //    projection, so it is discarded.
    // Ties: vertices closer than 1e-9 of the diagonal count as one point (found in a 30000-case
    // run: a cut 5e-12 from a corner); other near-ties within the tolerances (faces within 1e-9
    // rad of vertical, projections within 1e-9 of a hull edge) have probability ~1e-9 per face
    // here. The rate of cases where the procedure keeps extra points is printed.
    let mut rng = Rng::new(47);
    let (mut cases, mut equal, mut top_only, mut extra_points, mut points) = (0, 0, 0, 0, 0);
    let mut equal_by_normal = [0; 3];
    for k in 0..1500 {
        let inter = match k % 3 {
            0 => {
                let (na, nb) = (5 + rng.below(36), 5 + rng.below(36));
                let a = random_polytope(&mut rng, na, 1.0);
                let b = random_polytope(&mut rng, nb, 1.0);
                let (pa, pb) = (random_pose(&mut rng, 0.6), random_pose(&mut rng, 0.6));
                intersect(&a, &pa, &b, &pb)
            }
            1 => {
                let size = |rng: &mut Rng| {
                    DVec3::new(
                        rng.uniform(0.2, 1.0),
                        rng.uniform(0.2, 1.0),
                        rng.uniform(0.2, 1.0),
                    )
                };
                let (ha, hb) = (size(&mut rng), size(&mut rng));
                let (pa, pb) = (random_pose(&mut rng, 0.8), random_pose(&mut rng, 0.8));
                intersect(&cuboid(ha), &pa, &cuboid(hb), &pb)
            }
            _ => {
                let n = 5 + rng.below(36);
                let a = random_polytope(&mut rng, n, 1.0);
                let pa = random_pose(&mut rng, 1.0);
                let nrm = rng.unit_vector();
                intersect_half_space(
                    &a,
                    &pa,
                    nrm,
                    nrm.dot(pa.translation) + rng.uniform(-0.8, 0.8),
                )
            }
        };
        let Some(i) = inter else { continue };
        let c = contact_normal(&i);
        for (which, n) in [c.normal, -c.normal, rng.unit_vector()]
            .into_iter()
            .enumerate()
        {
            cases += 1;
            let brute = bottom_points(&i, n);
            assert_eq!(brute, on_down_faces(&i, n));
            let fast = bottom_points_incremental(&i.vertices, n);
            // Tie rule: two vertices closer than the procedure's tolerance (1e-9 of the diagonal)
            // are one point to it, and only the deeper is kept (intersections have such pairs
            // where a cut lands ~1e-11 from a corner).
            let tau = 1e-9 * diagonal(&i.vertices);
            for j in &brute {
                let merged = fast
                    .iter()
                    .any(|&m| i.vertices[m].distance(i.vertices[*j]) <= tau);
                assert!(
                    fast.contains(j) || merged,
                    "case {k}: bottom point {j} discarded"
                );
            }
            let only_top_faces_up = i
                .faces
                .iter()
                .all(|f| f.normal.dot(n) <= VERTICAL_COS || f.normal.dot(n) > 1.0 - 1e-12);
            if only_top_faces_up {
                top_only += 1;
                assert_eq!(fast, brute, "case {k}: only the top face faces up");
            }
            if fast == brute {
                equal += 1;
                equal_by_normal[which] += 1;
            }
            extra_points += fast.iter().filter(|j| !brute.contains(j)).count();
            points += i.vertices.len();
        }
    }
    println!(
        "{cases} cases: {equal} identical ({:.1} %), {top_only} with only a top face facing up; \
         {extra_points} extra points kept out of {points} ({:.2} %)",
        100.0 * equal as f64 / cases as f64,
        100.0 * extra_points as f64 / points as f64
    );
    println!(
        "identical per normal: min–max (B pushed) {}, reversed (A pushed) {}, random {} of {} each",
        equal_by_normal[0],
        equal_by_normal[1],
        equal_by_normal[2],
        cases / 3
    );
    assert!(cases > 2000 && top_only > 100, "{cases} {top_only}");
}

fn diagonal(points: &[DVec3]) -> f64 {
    let (lo, hi) = points.iter().fold(
        (DVec3::splat(f64::INFINITY), DVec3::splat(f64::NEG_INFINITY)),
        |(lo, hi), p| (lo.min(*p), hi.max(*p)),
    );
    (hi - lo).length()
}

#[test]
fn degenerate_point_sets() {
    // No points, one point, collinear points (the polygon stays a point or a segment until three
    // points span a triangle), a point repeated.
    assert!(bottom_points_incremental(&[], DVec3::Z).is_empty());
    assert_eq!(bottom_points_incremental(&[DVec3::ONE], DVec3::Z), vec![0]);
    let line: Vec<DVec3> = (0..5)
        .map(|k| DVec3::new(k as f64, 0.0, -(k as f64 % 2.0)))
        .collect();
    // Depths: x = 1, 3 at depth 1 (processed first), then 0, 2, 4 at depth 0: 2 lies between
    // 1 and 3 (discarded), 0 and 4 extend the segment (kept).
    assert_eq!(bottom_points_incremental(&line, DVec3::Z), vec![0, 1, 3, 4]);
    let twice = [DVec3::ZERO, DVec3::X, DVec3::Y, DVec3::ZERO + DVec3::Z];
    // (0, 0, 1) projects onto (0, 0, 0), which is deeper: discarded.
    assert_eq!(bottom_points_incremental(&twice, DVec3::Z), vec![0, 1, 2]);
    // A hand-made intersection without faces has no facet (zero normal, no depths) and no bottom
    // points.
    let empty = Intersection {
        vertices: vec![],
        faces: vec![],
        volume: 0.0,
        centroid: DVec3::ZERO,
        tolerance: 0.0,
    };
    let c = contact_normal(&empty);
    assert_eq!(
        (c.normal, c.thickness, c.depths.len()),
        (DVec3::ZERO, 0.0, 0)
    );
    assert!(bottom_points(&empty, DVec3::Z).is_empty());
}
