//! Planar shapes and mass properties (`planar/shape.rs`, `planar/mass.rs`) against closed forms.
//! Tolerances: the triangle fan sums n terms of size ~A r², so rounding leaves a relative error
//! of a few n ε; 1e-12 relative holds for the polygons here (n ≤ 64) with a margin of ~100.
use signorini::planar::mass;
use signorini::planar::shape::ConvexPolygon;
use signorini::planar::{MassSpec, PlanarBody, PlanarShape};
use signorini::DVec2;
use std::f64::consts::PI;

fn close(a: f64, b: f64, rel: f64) -> bool {
    (a - b).abs() <= rel * b.abs().max(1e-300)
}

#[test]
fn rectangle_area_centroid_and_polar_moment() {
    let (w, h) = (0.3, 0.12);
    let p = mass::polygon(&ConvexPolygon::rectangle(w, h).unwrap());
    assert!(close(p.area, w * h, 1e-12), "{}", p.area);
    assert!(p.centroid.length() < 1e-15, "{:?}", p.centroid);
    // J = A (w² + h²) / 12.
    assert!(close(p.polar_moment, w * h * (w * w + h * h) / 12.0, 1e-12));
}

#[test]
fn box_moved_off_the_origin_has_the_same_moment_about_its_centroid() {
    let pts: Vec<DVec2> = [(1.0, 2.0), (1.4, 2.0), (1.4, 2.1), (1.0, 2.1)]
        .iter()
        .map(|&(x, y)| DVec2::new(x, y))
        .collect();
    let p = mass::polygon(&ConvexPolygon::from_points(&pts).unwrap());
    assert!(close(p.area, 0.04, 1e-12));
    assert!((p.centroid - DVec2::new(1.2, 2.05)).length() < 1e-14);
    assert!(close(p.polar_moment, 0.04 * (0.16 + 0.01) / 12.0, 1e-11));
}

#[test]
fn regular_polygon_matches_its_closed_form() {
    // Regular n-gon of circumradius R: A = n R² sin(2π/n) / 2,
    // J = A R² (2 + cos(2π/n)) / 6 (sum of n isosceles triangles about the centre).
    for n in [3usize, 4, 5, 6, 7, 12, 64] {
        let r = 0.37;
        let p = mass::polygon(&ConvexPolygon::regular(n, r).unwrap());
        let a = 0.5 * n as f64 * r * r * (2.0 * PI / n as f64).sin();
        let j = a * r * r * (2.0 + (2.0 * PI / n as f64).cos()) / 6.0;
        assert!(close(p.area, a, 1e-12), "n = {n}: {} vs {a}", p.area);
        assert!(
            p.centroid.length() < 1e-15 * n as f64,
            "n = {n}: {:?}",
            p.centroid
        );
        assert!(
            close(p.polar_moment, j, 1e-12),
            "n = {n}: {} vs {j}",
            p.polar_moment
        );
    }
}

#[test]
fn triangle_matches_its_closed_form() {
    // Right triangle with legs a, b: A = ab/2, centroid (a/3, b/3),
    // J_c = A (a² + b²) / 18.
    let (a, b) = (0.6, 0.25);
    let t =
        ConvexPolygon::from_points(&[DVec2::ZERO, DVec2::new(a, 0.0), DVec2::new(0.0, b)]).unwrap();
    let p = mass::polygon(&t);
    assert!(close(p.area, a * b / 2.0, 1e-12));
    assert!((p.centroid - DVec2::new(a / 3.0, b / 3.0)).length() < 1e-15);
    assert!(close(
        p.polar_moment,
        a * b / 2.0 * (a * a + b * b) / 18.0,
        1e-12
    ));
}

#[test]
fn disk_mass_and_inertia() {
    let body = PlanarBody::dynamic(
        "d",
        PlanarShape::Disk { radius: 0.2 },
        MassSpec::Mass(3.0),
        0,
    )
    .unwrap();
    assert_eq!(body.mass, 3.0);
    assert!(close(body.inertia, 0.5 * 3.0 * 0.04, 1e-15));
    let by_density = PlanarBody::dynamic(
        "d",
        PlanarShape::Disk { radius: 0.2 },
        MassSpec::Density(10.0),
        0,
    )
    .unwrap();
    assert!(close(by_density.mass, 10.0 * PI * 0.04, 1e-15));
}

#[test]
fn dynamic_polygon_is_recentred_on_its_centroid() {
    let t = ConvexPolygon::from_points(&[DVec2::ZERO, DVec2::new(3.0, 0.0), DVec2::new(0.0, 3.0)])
        .unwrap();
    let body = PlanarBody::dynamic("t", PlanarShape::Polygon(t), MassSpec::Mass(2.0), 0).unwrap();
    assert!((body.com_in_shape_frame - DVec2::new(1.0, 1.0)).length() < 1e-15);
    let PlanarShape::Polygon(p) = &body.shape else {
        panic!()
    };
    assert!(mass::polygon(p).centroid.length() < 1e-15);
    // I = m J / A = 2 · (A (9 + 9)/18) / A = 2.
    assert!(close(body.inertia, 2.0, 1e-12), "{}", body.inertia);
}

#[test]
fn hull_drops_interior_and_collinear_points_and_orders_counter_clockwise() {
    let pts: Vec<DVec2> = [
        (0.0, 0.0),
        (1.0, 0.0),
        (2.0, 0.0), // collinear on the bottom edge
        (2.0, 1.0),
        (0.0, 1.0),
        (1.0, 0.5), // interior
        (2.0, 1.0), // repeated
    ]
    .iter()
    .map(|&(x, y)| DVec2::new(x, y))
    .collect();
    let p = ConvexPolygon::from_points(&pts).unwrap();
    assert_eq!(p.vertices().len(), 4, "{:?}", p.vertices());
    assert!(p.signed_area() > 0.0);
    assert!(close(p.signed_area(), 2.0, 1e-15));
    // Outward normals: each vertex of the polygon lies on or behind every edge line.
    for (i, n) in p.normals().iter().enumerate() {
        for v in p.vertices() {
            assert!(n.dot(*v - p.vertices()[i]) <= 1e-15);
        }
    }
}

#[test]
fn degenerate_inputs_are_refused_with_a_reason() {
    let line: Vec<DVec2> = (0..5)
        .map(|i| DVec2::new(i as f64, 2.0 * i as f64))
        .collect();
    let e = ConvexPolygon::from_points(&line).unwrap_err();
    assert!(e.contains("no area"), "{e}");
    assert!(ConvexPolygon::from_points(&[DVec2::ZERO, DVec2::X])
        .unwrap_err()
        .contains("at least 3"));
    assert!(
        ConvexPolygon::from_points(&[DVec2::ZERO, DVec2::X, DVec2::new(f64::NAN, 1.0)])
            .unwrap_err()
            .contains("not finite")
    );
    assert!(ConvexPolygon::regular(2, 1.0).is_err());
    assert!(ConvexPolygon::regular(5, -1.0).is_err());
    assert!(ConvexPolygon::rectangle(0.0, 1.0).is_err());
    // No area, no dynamic body.
    let seg = PlanarShape::Segment {
        a: DVec2::ZERO,
        b: DVec2::X,
    };
    assert!(PlanarBody::dynamic("s", seg, MassSpec::Mass(1.0), 0)
        .unwrap_err()
        .contains("fixed"));
    let disk = PlanarShape::Disk { radius: 1.0 };
    assert!(PlanarBody::dynamic("d", disk, MassSpec::Mass(f64::NAN), 0).is_err());
}
