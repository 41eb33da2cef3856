//! Planar narrow phase (`planar/collision/`), case by case against hand-computed geometry:
//! gaps, normals (A → B), points and features. Tolerance 1e-12 m: every quantity is a few
//! products of O(1) coordinates.
use signorini::planar::collision::{shape_pair, Contact2, Feature2, Placed};
use signorini::planar::shape::ConvexPolygon;
use signorini::planar::{PlanarShape, Pose2};
use signorini::DVec2;

const TOL: f64 = 1e-12;

fn placed(shape: PlanarShape, x: f64, y: f64, angle: f64) -> Placed {
    Placed::new(&shape, &Pose2::new(DVec2::new(x, y), angle))
}

fn rect(w: f64, h: f64) -> PlanarShape {
    PlanarShape::Polygon(ConvexPolygon::rectangle(w, h).unwrap())
}

fn contacts(a: &Placed, b: &Placed, margin: f64) -> Vec<Contact2> {
    let mut out = Vec::new();
    shape_pair(a, b, margin, &mut out);
    for c in &out {
        // The convention every routine keeps: ψ = (p_b − p_a)·n, n a unit vector.
        assert!(
            ((c.point_b - c.point_a).dot(c.normal) - c.gap).abs() < TOL,
            "{c:?}"
        );
        assert!((c.normal.length() - 1.0).abs() < TOL, "{c:?}");
    }
    out
}

fn check_symmetry(a: &Placed, b: &Placed, margin: f64) {
    let ab = contacts(a, b, margin);
    let ba = contacts(b, a, margin);
    assert_eq!(ab.len(), ba.len());
    for (x, y) in ab.iter().zip(&ba) {
        assert!((x.gap - y.gap).abs() < TOL);
        assert!((x.normal + y.normal).length() < TOL);
    }
}

#[test]
fn box_resting_on_a_wider_box_touches_at_its_two_bottom_corners() {
    // A: 2 × 1 box centred at the origin (top face y = 0.5); B: 0.4 × 0.2 box 0.01 m into it.
    let a = placed(rect(2.0, 1.0), 0.0, 0.0, 0.0);
    let b = placed(rect(0.4, 0.2), 0.3, 0.5 + 0.1 - 0.01, 0.0);
    let cs = contacts(&a, &b, 0.0);
    assert_eq!(cs.len(), 2, "{cs:?}");
    for c in &cs {
        assert!((c.gap + 0.01).abs() < TOL, "{c:?}");
        assert!((c.normal - DVec2::Y).length() < TOL);
        assert!((c.point_a.y - 0.5).abs() < TOL);
        assert!(matches!(c.feature_a, Feature2::Edge(_)));
        assert!(matches!(c.feature_b, Feature2::Vertex(_)));
    }
    let mut xs: Vec<f64> = cs.iter().map(|c| c.point_b.x).collect();
    xs.sort_by(f64::total_cmp);
    assert!(
        (xs[0] - 0.1).abs() < TOL && (xs[1] - 0.5).abs() < TOL,
        "{xs:?}"
    );
    check_symmetry(&a, &b, 0.0);
}

#[test]
fn overhanging_box_is_clipped_at_the_reference_edge_end() {
    // B overhangs A's right end (x = 1): the contact at B's right corner is clipped to x = 1.
    let a = placed(rect(2.0, 1.0), 0.0, 0.0, 0.0);
    let b = placed(rect(0.4, 0.2), 0.9, 0.6 - 0.02, 0.0);
    let cs = contacts(&a, &b, 0.0);
    assert_eq!(cs.len(), 2, "{cs:?}");
    let right = cs
        .iter()
        .max_by(|p, q| p.point_b.x.total_cmp(&q.point_b.x))
        .unwrap();
    assert!((right.point_b.x - 1.0).abs() < TOL, "{right:?}");
    assert!(matches!(right.feature_a, Feature2::Vertex(_)), "{right:?}");
    assert!(matches!(right.feature_b, Feature2::Edge(_)), "{right:?}");
}

#[test]
fn tilted_box_corner_into_a_box_face() {
    // B turned 45°: one corner at depth 0.01 below A's top face.
    let half_diag = 0.1 * 2f64.sqrt();
    let a = placed(rect(2.0, 1.0), 0.0, 0.0, 0.0);
    let b = placed(
        rect(0.2, 0.2),
        0.0,
        0.5 + half_diag - 0.01,
        std::f64::consts::FRAC_PI_4,
    );
    let cs = contacts(&a, &b, 0.0);
    assert_eq!(cs.len(), 1, "{cs:?}");
    assert!((cs[0].gap + 0.01).abs() < TOL);
    assert!(cs[0].point_b.x.abs() < TOL);
    // Separated by 0.02 along the normal: within a margin of 0.05, none within 0.01.
    let b = placed(
        rect(0.2, 0.2),
        0.0,
        0.5 + half_diag + 0.02,
        std::f64::consts::FRAC_PI_4,
    );
    assert_eq!(contacts(&a, &b, 0.01).len(), 0);
    let cs = contacts(&a, &b, 0.05);
    assert_eq!(cs.len(), 1);
    assert!((cs[0].gap - 0.02).abs() < TOL);
}

#[test]
fn polygon_on_a_line() {
    // Half-plane y ≤ 0 (normal +y through the origin); a triangle with one vertex 3 mm below.
    let line = placed(PlanarShape::Line { normal: DVec2::Y }, 0.0, 0.0, 0.0);
    let tri = PlanarShape::Polygon(
        ConvexPolygon::from_points(&[
            DVec2::new(0.0, -0.003),
            DVec2::new(1.0, 0.5),
            DVec2::new(-1.0, 0.5),
        ])
        .unwrap(),
    );
    let t = placed(tri, 0.0, 0.0, 0.0);
    let cs = contacts(&line, &t, 0.0);
    assert_eq!(cs.len(), 1);
    assert!((cs[0].gap + 0.003).abs() < TOL);
    assert!(
        (cs[0].normal - DVec2::Y).length() < TOL,
        "normal from the line (A) to the polygon"
    );
    assert_eq!(cs[0].feature_a, Feature2::Surface);
    check_symmetry(&line, &t, 0.0);
    // A tilted line: normal (−sin α, cos α).
    let alpha: f64 = 0.3;
    let ramp = placed(PlanarShape::Line { normal: DVec2::Y }, 0.0, 0.0, alpha);
    let sq = placed(rect(0.2, 0.2), 0.0, 0.0, alpha);
    assert_eq!(
        contacts(&ramp, &sq, 0.0).len(),
        2,
        "the square centred on the line: 2 corners in"
    );
    let cs = contacts(&ramp, &sq, 0.2);
    assert_eq!(cs.len(), 4, "and 2 out by 0.1 m, within a margin of 0.2 m");
    for c in &cs {
        assert!((c.normal - DVec2::new(-alpha.sin(), alpha.cos())).length() < TOL);
        assert!((c.gap.abs() - 0.1).abs() < TOL);
    }
}

#[test]
fn disk_disk() {
    let a = placed(PlanarShape::Disk { radius: 0.5 }, 0.0, 0.0, 0.0);
    let b = placed(PlanarShape::Disk { radius: 0.25 }, 0.6, 0.45, 0.0); // centres 0.75 apart
    let cs = contacts(&a, &b, 0.0);
    assert_eq!(cs.len(), 1);
    assert!(cs[0].gap.abs() < TOL);
    assert!((cs[0].normal - DVec2::new(0.8, 0.6)).length() < TOL);
    assert!((cs[0].point_a - DVec2::new(0.4, 0.3)).length() < TOL);
    let far = placed(PlanarShape::Disk { radius: 0.25 }, 0.6, 0.5, 0.0);
    assert!(contacts(&a, &far, 0.0).is_empty());
}

#[test]
fn disk_on_a_line() {
    let line = placed(PlanarShape::Line { normal: DVec2::Y }, 0.0, 1.0, 0.0); // y ≤ 1
    let d = placed(PlanarShape::Disk { radius: 0.2 }, 3.0, 1.15, 0.0);
    let cs = contacts(&d, &line, 0.0);
    assert_eq!(cs.len(), 1);
    assert!((cs[0].gap + 0.05).abs() < TOL);
    assert!(
        (cs[0].normal + DVec2::Y).length() < TOL,
        "disk (A) → line (B): −y"
    );
    assert!((cs[0].point_b - DVec2::new(3.0, 1.0)).length() < TOL);
    check_symmetry(&d, &line, 0.0);
}

#[test]
fn disk_against_polygon_face_vertex_and_inside() {
    let sq = placed(rect(1.0, 1.0), 0.0, 0.0, 0.0);
    // Over the top face, 0.01 deep.
    let d = placed(PlanarShape::Disk { radius: 0.1 }, 0.2, 0.59, 0.0);
    let cs = contacts(&d, &sq, 0.0);
    assert_eq!(cs.len(), 1);
    assert!((cs[0].gap + 0.01).abs() < TOL);
    assert_eq!(cs[0].feature_b, Feature2::Edge(2));
    // Beyond the corner (0.5, 0.5), along the diagonal at distance 0.1 − 0.01.
    let s = 0.09 / 2f64.sqrt();
    let d = placed(PlanarShape::Disk { radius: 0.1 }, 0.5 + s, 0.5 + s, 0.0);
    let cs = contacts(&d, &sq, 0.0);
    assert_eq!(cs.len(), 1);
    assert!((cs[0].gap + 0.01).abs() < TOL);
    assert_eq!(cs[0].feature_b, Feature2::Vertex(2));
    assert!((cs[0].point_b - DVec2::new(0.5, 0.5)).length() < TOL);
    // Centre inside, 0.05 below the top face: the way out is up, ψ = −0.05 − r.
    let d = placed(PlanarShape::Disk { radius: 0.1 }, 0.0, 0.45, 0.0);
    let cs = contacts(&d, &sq, 0.0);
    assert!((cs[0].gap + 0.15).abs() < TOL);
    assert!((cs[0].normal + DVec2::Y).length() < TOL);
    check_symmetry(&d, &sq, 0.0);
}

#[test]
fn disk_on_a_segment_sees_its_ends() {
    let seg = PlanarShape::Segment {
        a: DVec2::new(-1.0, 0.0),
        b: DVec2::new(1.0, 0.0),
    };
    let s = placed(seg, 0.0, 0.0, 0.0);
    let r = 0.1;
    // Over the middle, resting: gap 0, normal −y (disk A → segment B), side feature.
    let d = placed(PlanarShape::Disk { radius: r }, 0.3, r, 0.0);
    let cs = contacts(&d, &s, 1e-3);
    assert_eq!(cs.len(), 1);
    assert!(cs[0].gap.abs() < TOL);
    assert!(matches!(cs[0].feature_b, Feature2::Edge(_)));
    // Centre past the end by 0.06 at the same height: only the end point is near,
    // gap √(0.06² + 0.1²) − 0.1.
    let d = placed(PlanarShape::Disk { radius: r }, 1.06, r, 0.0);
    let cs = contacts(&d, &s, 0.05);
    assert_eq!(cs.len(), 1);
    assert_eq!(cs[0].feature_b, Feature2::Vertex(1));
    assert!((cs[0].point_b - DVec2::new(1.0, 0.0)).length() < TOL);
    let expected = (0.06f64 * 0.06 + r * r).sqrt() - r;
    assert!(
        (cs[0].gap - expected).abs() < TOL,
        "{} vs {expected}",
        cs[0].gap
    );
    // Past the end by more than its radius: nothing, although an infinite line would touch it.
    let d = placed(PlanarShape::Disk { radius: r }, 1.2, r - 0.01, 0.0);
    assert!(contacts(&d, &s, 1e-3).is_empty());
    // From below (the other side): normal +y.
    let d = placed(PlanarShape::Disk { radius: r }, 0.0, -r + 0.002, 0.0);
    let cs = contacts(&d, &s, 0.0);
    assert!((cs[0].normal - DVec2::Y).length() < TOL);
    assert!((cs[0].gap + 0.002).abs() < TOL);
}

#[test]
fn polygon_on_a_segment_sees_its_ends() {
    let seg = PlanarShape::Segment {
        a: DVec2::new(-1.0, 0.0),
        b: DVec2::new(1.0, 0.0),
    };
    let s = placed(seg, 0.0, 0.0, 0.0);
    // Resting in the middle, 1 mm deep: two contacts on the top side.
    let b = placed(rect(0.4, 0.2), 0.0, 0.1 - 0.001, 0.0);
    let cs = contacts(&b, &s, 0.0);
    assert_eq!(cs.len(), 2, "{cs:?}");
    for c in &cs {
        assert!((c.gap + 0.001).abs() < TOL);
        assert!(
            (c.normal + DVec2::Y).length() < TOL,
            "box (A) → segment (B): −y"
        );
    }
    // Overhanging the end: the outer contact is at the end point x = 1, not at the corner.
    let b = placed(rect(0.4, 0.2), 1.1, 0.1 - 0.001, 0.0);
    let cs = contacts(&b, &s, 0.0);
    assert_eq!(cs.len(), 2, "{cs:?}");
    let xs: Vec<f64> = cs.iter().map(|c| c.point_a.x.max(c.point_b.x)).collect();
    assert!(xs.iter().all(|&x| x <= 1.0 + TOL), "{xs:?}");
    assert!(xs.iter().any(|&x| (x - 1.0).abs() < TOL), "{xs:?}");
    // Wholly past the end (its left side at x = 1.05) at the segment's height: no contact.
    let b = placed(rect(0.4, 0.2), 1.25, 0.05, 0.0);
    assert!(contacts(&b, &s, 0.01).is_empty());
    check_symmetry(&placed(rect(0.4, 0.2), 0.0, 0.099, 0.0), &s, 0.0);
}
