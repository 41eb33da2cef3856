//! Mass, centre of mass and inertia (`geometry::mass`) against closed forms: boxes, spheres,
//! tetrahedra (Tonon 2004), regular prisms, unions of parts, and `Polytope::volume`.
mod common;

use common::EPS;
use signorini::geometry::{MassProperties, Polytope, Pose, Shape};
use signorini::{DMat3, DQuat, DVec3};

/// Largest absolute difference between two matrices' entries.
fn max_abs_diff(a: DMat3, b: DMat3) -> f64 {
    (a - b)
        .to_cols_array()
        .iter()
        .fold(0.0, |m, x| m.max(x.abs()))
}

fn sym(xx: f64, yy: f64, zz: f64, xy: f64, xz: f64, yz: f64) -> DMat3 {
    DMat3::from_cols(
        DVec3::new(xx, xy, xz),
        DVec3::new(xy, yy, yz),
        DVec3::new(xz, yz, zz),
    )
}

/// Inertia tensor of a solid tetrahedron about its centroid, by the explicit formulas of
/// F. Tonon, "Explicit exact formulas for the 3-D tetrahedron inertia tensor in terms of its vertex
/// coordinates", J. Math. Stat. 1(1), 2004, eqs. (2)–(8), with vertex coordinates taken relative
/// to the centroid. Returns (mass, centroid, inertia).
fn tonon_tetrahedron(p: [DVec3; 4], rho: f64) -> (f64, DVec3, DMat3) {
    let c = (p[0] + p[1] + p[2] + p[3]) / 4.0;
    let q = p.map(|v| v - c);
    let det = (q[1] - q[0]).dot((q[2] - q[0]).cross(q[3] - q[0])).abs(); // |DET(J)| = 6 V
    let (x, y, z) = (q.map(|v| v.x), q.map(|v| v.y), q.map(|v| v.z));
    // Σ_{i≤j} u_i u_j
    let sq = |u: [f64; 4]| {
        let mut s = 0.0;
        for i in 0..4 {
            for j in i..4 {
                s += u[i] * u[j];
            }
        }
        s
    };
    // 2 Σ_i u_i w_i + Σ_{i≠j} u_i w_j
    let mixed = |u: [f64; 4], w: [f64; 4]| {
        let mut s = 0.0;
        for i in 0..4 {
            for j in 0..4 {
                s += if i == j { 2.0 } else { 1.0 } * u[i] * w[j];
            }
        }
        s
    };
    let k = rho * det;
    let a = k * (sq(y) + sq(z)) / 60.0;
    let b = k * (sq(x) + sq(z)) / 60.0;
    let cc = k * (sq(x) + sq(y)) / 60.0;
    let a1 = k * mixed(y, z) / 120.0; // yz product of inertia
    let b1 = k * mixed(x, z) / 120.0; // xz
    let c1 = k * mixed(x, y) / 120.0; // xy
    (rho * det / 6.0, c, sym(a, b, cc, -c1, -b1, -a1))
}

/// Box of full edge lengths l: I = m/12 diag(ly² + lz², lx² + lz², lx² + ly²).
fn box_inertia(m: f64, l: DVec3) -> DMat3 {
    DMat3::from_diagonal(
        DVec3::new(
            l.y * l.y + l.z * l.z,
            l.x * l.x + l.z * l.z,
            l.x * l.x + l.y * l.y,
        ) * (m / 12.0),
    )
}

/// Relative round-off budget of the library's origin-fan sums for a body of volume `v` whose
/// vertices lie within `r` of the origin. Each fan triangle contributes a triple product of
/// vectors of length ≤ r, computed with ~10 roundings: error ≲ 10 ε r³ per triangle, against a
/// total of 6 V. The first and second moments carry the same relative error times r and r², and
/// removing the centre of mass (S − V c cᵀ) cancels terms of size ρ V |c|² without adding any
/// more. With at most ~12 triangles here, 64 ε r³ / V bounds the relative error of the mass;
/// the centre and the inertia get bounds `rel · r` and `rel · m r²`. For a body far from the origin
/// (r³ ≫ V) this is much looser than ε, as it must be: the cancellation is real.
fn offset_round_off(r: f64, v: f64) -> f64 {
    64.0 * EPS * r.powi(3) / v
}

#[test]
fn box_mass_centre_and_inertia_match_closed_form() {
    let (l, rho) = (DVec3::new(0.3, 1.7, 2.9), 2700.0);
    let shape = Shape::cuboid(l).unwrap();
    let mp = shape.mass_properties(rho).unwrap();
    let m = rho * l.x * l.y * l.z;
    // 12 fan triangles, ~10 flops each: relative round-off ≤ 120 ε; bound 256 ε.
    assert!(
        (mp.mass - m).abs() <= 256.0 * EPS * m,
        "mass {} vs {m}",
        mp.mass
    );
    let r = 0.5 * l.length();
    assert!(mp.com.length() <= 256.0 * EPS * r, "com {}", mp.com);
    let i = box_inertia(m, l);
    assert!(
        max_abs_diff(mp.inertia, i) <= 256.0 * EPS * m * r * r,
        "inertia {:?} vs {:?}",
        mp.inertia,
        i
    );
}

#[test]
fn rotated_offset_box_inertia_is_r_diag_rt_about_its_centre() {
    // A box hull built from rotated and translated corners: centre of mass at the translation,
    // inertia R I_box Rᵀ.
    let (l, rho) = (DVec3::new(0.5, 1.0, 2.0), 3.0);
    let rot = DQuat::from_axis_angle(DVec3::new(1.0, -2.0, 0.5).normalize(), 0.7);
    let t = DVec3::new(4.0, -3.0, 2.5);
    let corners: Vec<DVec3> = Polytope::cuboid(0.5 * l)
        .vertices
        .iter()
        .map(|v| rot * *v + t)
        .collect();
    let p = Polytope::from_points(&corners).unwrap();
    let mp = MassProperties::polytope(&p, rho);
    let m = rho * l.x * l.y * l.z;
    let r = t.length() + 0.5 * l.length();
    let rm = DMat3::from_quat(rot);
    let expect = rm * box_inertia(m, l) * rm.transpose();
    let rel = offset_round_off(r, l.x * l.y * l.z);
    assert!((mp.mass - m).abs() <= rel * m, "mass {} vs {m}", mp.mass);
    assert!((mp.com - t).length() <= rel * r, "com {} vs {t}", mp.com);
    assert!(
        max_abs_diff(mp.inertia, expect) <= rel * m * r * r,
        "inertia {:?} vs {:?}",
        mp.inertia,
        expect
    );
    assert!((p.volume() * rho - mp.mass).abs() <= rel * m);
}

#[test]
fn thin_plate_mass_and_inertia_match_closed_form() {
    // A 1 m × 2 m × 0.2 mm steel sheet (regression: building thin boxes used to panic).
    let (l, rho) = (DVec3::new(1.0, 2.0, 2e-4), 7850.0);
    let mp = Shape::cuboid(l).unwrap().mass_properties(rho).unwrap();
    let m = rho * l.x * l.y * l.z;
    // Same budget as the box above, relative to the volume: the fan's triple products are of
    // vectors ≤ r = half diagonal, so 256 ε r³ / V relative.
    let r = 0.5 * l.length();
    let rel = 256.0 * EPS * r.powi(3) / (l.x * l.y * l.z);
    assert!((mp.mass - m).abs() <= rel * m, "mass {} vs {m}", mp.mass);
    assert!(mp.com.length() <= rel * r);
    assert!(
        max_abs_diff(mp.inertia, box_inertia(m, l)) <= rel * m * r * r,
        "{:?} vs {:?}",
        mp.inertia,
        box_inertia(m, l)
    );
}

#[test]
fn sphere_mass_and_inertia_match_closed_form() {
    for (r, rho) in [(0.1, 7800.0), (1.0, 1.0), (2.5, 0.3)] {
        let mp = Shape::sphere(r).unwrap().mass_properties(rho).unwrap();
        let m = rho * 4.0 / 3.0 * std::f64::consts::PI * r.powi(3);
        // A handful of multiplications: a few ε relative.
        assert!((mp.mass - m).abs() <= 8.0 * EPS * m);
        assert_eq!(mp.com, DVec3::ZERO);
        let i = 2.0 / 5.0 * m * r * r;
        assert!(max_abs_diff(mp.inertia, DMat3::from_diagonal(DVec3::splat(i))) <= 16.0 * EPS * i);
    }
}

#[test]
fn half_space_has_no_mass_properties() {
    assert!(Shape::half_space(DVec3::Z)
        .unwrap()
        .mass_properties(1.0)
        .is_none());
}

/// Checks `MassProperties::polytope` of the hull of the four points against Tonon's formulas.
fn check_tetrahedron(p: [DVec3; 4], rho: f64) {
    let poly = Polytope::from_points(&p).unwrap();
    assert_eq!(
        (poly.vertices.len(), poly.edges.len(), poly.faces.len()),
        (4, 6, 4)
    );
    let mp = MassProperties::polytope(&poly, rho);
    let (m, c, i) = tonon_tetrahedron(p, rho);
    let r = p.iter().map(|v| v.length()).fold(0.0, f64::max);
    let rel = offset_round_off(r, m / rho);
    assert!((mp.mass - m).abs() <= rel * m, "mass {} vs {m}", mp.mass);
    assert!(
        (poly.volume() * rho - m).abs() <= rel * m,
        "volume {} vs {}",
        poly.volume(),
        m / rho
    );
    assert!((mp.com - c).length() <= rel * r, "com {} vs {c}", mp.com);
    assert!(
        max_abs_diff(mp.inertia, i) <= rel * m * r * r,
        "inertia {:?} vs Tonon {:?}",
        mp.inertia,
        i
    );
    // Sanity of the oracle itself: a positive-definite tensor with the triangle inequalities.
    let d = [i.x_axis.x, i.y_axis.y, i.z_axis.z];
    assert!(
        d.iter().all(|x| *x > 0.0)
            && d[0] + d[1] >= d[2]
            && d[1] + d[2] >= d[0]
            && d[0] + d[2] >= d[1]
    );
}

#[test]
fn unit_corner_tetrahedron_matches_tonon() {
    // The canonical tetrahedron: V = 1/6, centroid (1/4, 1/4, 1/4); about the origin
    // ∫x² dV = 1/60, ∫xy dV = 1/120, so about the centroid I_xx = 2(1/60 − V/16) = 1/80 and
    // I_xy = −(1/120 − V/16) = 1/480. Checks the oracle and the library at once.
    let p = [DVec3::ZERO, DVec3::X, DVec3::Y, DVec3::Z];
    let (m, c, i) = tonon_tetrahedron(p, 1.0);
    assert!((m - 1.0 / 6.0).abs() <= 4.0 * EPS);
    assert!((c - DVec3::splat(0.25)).length() <= 4.0 * EPS);
    assert!(
        max_abs_diff(
            i,
            sym(
                1.0 / 80.0,
                1.0 / 80.0,
                1.0 / 80.0,
                1.0 / 480.0,
                1.0 / 480.0,
                1.0 / 480.0
            )
        ) <= 16.0 * EPS
    );
    check_tetrahedron(p, 1.0);
}

#[test]
fn asymmetric_tetrahedron_far_from_origin_matches_tonon() {
    let o = DVec3::new(8.0, -3.0, 5.0);
    let p = [
        o + DVec3::new(0.1, -0.2, 0.05),
        o + DVec3::new(1.3, 0.2, -0.1),
        o + DVec3::new(0.4, 2.1, 0.3),
        o + DVec3::new(-0.2, 0.5, 0.9),
    ];
    check_tetrahedron(p, 1250.0);
}

#[test]
fn asymmetric_tetrahedron_any_vertex_order_matches_tonon() {
    // The hull does not care how the points are listed, nor does the result.
    let base = [
        DVec3::new(-0.7, 0.1, 0.2),
        DVec3::new(0.9, -0.4, 0.1),
        DVec3::new(0.2, 1.1, -0.5),
        DVec3::new(0.3, 0.2, 1.4),
    ];
    for perm in [[0, 1, 2, 3], [1, 0, 2, 3], [3, 2, 1, 0], [2, 3, 0, 1]] {
        check_tetrahedron(perm.map(|k| base[k]), 0.8);
    }
}

#[test]
fn regular_prism_matches_closed_form() {
    // Regular n-gon of circumradius R: area A = n R² sin θ / 2 (θ = 2π/n), polar second moment
    // J = Σ over the n triangles (0, a, b) of A_t (|a|² + |b|² + a·b)/6 = n R⁴ sin θ (2 + cos θ)/12,
    // and the in-plane moments are J/2 each (isotropic for n ≥ 3). For the prism of height h:
    // I_zz = ρ h J, I_xx = I_yy = ρ h J/2 + m h²/12.
    for (n, r, h, rho) in [
        (3u32, 0.5, 2.0, 1.0),
        (7, 1.3, 0.4, 900.0),
        (24, 0.25, 1.0, 7.5),
    ] {
        let p = Polytope::cylinder(r, h, n).unwrap();
        let mp = MassProperties::polytope(&p, rho);
        let theta = std::f64::consts::TAU / n as f64;
        let area = n as f64 * r * r * theta.sin() / 2.0;
        let j = n as f64 * r.powi(4) * theta.sin() * (2.0 + theta.cos()) / 12.0;
        let m = rho * area * h;
        let expect = DMat3::from_diagonal(DVec3::new(
            rho * h * j / 2.0 + m * h * h / 12.0,
            rho * h * j / 2.0 + m * h * h / 12.0,
            rho * h * j,
        ));
        // ~4n fan triangles of ~10 flops each; the sin/cos of the vertex positions are accurate
        // to a few ε. Bound: 64 n ε relative.
        let rel = 64.0 * n as f64 * EPS;
        let big = (r * r + h * h).max(1e-300);
        assert!(
            (mp.mass - m).abs() <= rel * m,
            "n={n}: mass {} vs {m}",
            mp.mass
        );
        assert!(
            (p.volume() - area * h).abs() <= rel * area * h,
            "n={n}: volume {} vs {}",
            p.volume(),
            area * h
        );
        assert!(mp.com.length() <= rel * big.sqrt(), "n={n}: com {}", mp.com);
        assert!(
            max_abs_diff(mp.inertia, expect) <= rel * m * big,
            "n={n}: {:?} vs {:?}",
            mp.inertia,
            expect
        );
    }
}

#[test]
fn union_of_two_boxes_equals_the_box_they_form() {
    // The box [0, 3] × [0, 1] × [0, 1] as the union of a 2 × 1 × 1 block (given as a 1 × 2 × 1
    // box turned 90° about z, so that the part rotation R Iᵢ Rᵀ is exercised) centred at
    // (1, 0.5, 0.5) and a unit cube centred at (2.5, 0.5, 0.5).
    let rho = 4.0;
    let part1 = MassProperties::polytope(&Polytope::cuboid(DVec3::new(0.5, 1.0, 0.5)), rho);
    let part2 = MassProperties::polytope(&Polytope::cuboid(DVec3::splat(0.5)), rho);
    let pose1 = Pose::new(
        DVec3::new(1.0, 0.5, 0.5),
        DQuat::from_rotation_z(std::f64::consts::FRAC_PI_2),
    );
    let pose2 = Pose::new(DVec3::new(2.5, 0.5, 0.5), DQuat::IDENTITY);
    let u = MassProperties::union(&[(part1, pose1), (part2, pose2)]);
    let whole = MassProperties::polytope(&Polytope::cuboid(DVec3::new(1.5, 0.5, 0.5)), rho);
    let m = rho * 3.0;
    let expect = box_inertia(m, DVec3::new(3.0, 1.0, 1.0));
    // Round-off of the parts (~100 ε relative each, as for the box above) plus the parallel-axis
    // shifts (offsets ≤ 1.5 m): bound 256 ε · m · (size 3 m)².
    let tol = 256.0 * EPS * m * 9.0;
    assert!((u.mass - m).abs() <= 256.0 * EPS * m);
    assert!(
        (u.com - DVec3::new(1.5, 0.5, 0.5)).length() <= 256.0 * EPS * 3.0,
        "com {}",
        u.com
    );
    assert!(
        max_abs_diff(u.inertia, expect) <= tol,
        "union {:?} vs box {:?}",
        u.inertia,
        expect
    );
    assert!(max_abs_diff(u.inertia, whole.inertia) <= tol);
    // The union is symmetric about its centre's axes: no products of inertia.
    assert!(
        u.inertia.x_axis.y.abs() <= tol
            && u.inertia.x_axis.z.abs() <= tol
            && u.inertia.y_axis.z.abs() <= tol
    );
}

#[test]
fn with_mass_rescaling_scales_inertia_only() {
    // with_mass keeps the distribution: same centre, inertia scaled by m'/m.
    let mp = MassProperties::polytope(&Polytope::cuboid(DVec3::new(0.5, 1.0, 1.5)), 2.0);
    let scaled = mp.with_mass(3.0);
    assert_eq!(scaled.com, mp.com);
    assert!((scaled.mass - 3.0).abs() <= 2.0 * EPS * 3.0);
    let k = 3.0 / mp.mass;
    let largest = max_abs_diff(mp.inertia * k, DMat3::ZERO);
    // One division and one multiplication per entry: a couple of ε relative.
    assert!(max_abs_diff(scaled.inertia, mp.inertia * k) <= 4.0 * EPS * largest);
}

#[test]
fn polytope_volume_times_density_is_the_mass_for_hulls_of_random_clouds() {
    // Both are the same divergence-theorem sum; this guards that `volume` and `mass` agree and
    // that the hull of a random cloud inside the unit ball has a volume between that of a
    // tetrahedron of its points and of the ball. Deterministic points (a fixed LCG).
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut next = || {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (state >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
    };
    for n in [5usize, 12, 30] {
        let pts: Vec<DVec3> = (0..n)
            .map(|_| DVec3::new(next(), next(), next()).clamp_length_max(1.0))
            .collect();
        let p = Polytope::from_points(&pts).unwrap();
        let rho = 3.5;
        let mp = MassProperties::polytope(&p, rho);
        assert!(
            (p.volume() * rho - mp.mass).abs() <= 64.0 * EPS * mp.mass,
            "n={n}"
        );
        let tet = (pts[1] - pts[0])
            .dot((pts[2] - pts[0]).cross(pts[3] - pts[0]))
            .abs()
            / 6.0;
        assert!(
            p.volume() >= tet * (1.0 - 1e-12) && p.volume() <= 4.0 / 3.0 * std::f64::consts::PI
        );
    }
}

#[test]
fn polytope_mass_properties_are_covariant_under_rigid_motion() {
    // Moving a body by (R, t) moves its centre to R c + t and turns its inertia into R I Rᵀ; the
    // mass does not change. Computed through hulls of the moved points.
    let pts = [
        DVec3::new(0.3, -0.2, 0.9),
        DVec3::new(-0.8, 0.1, 0.2),
        DVec3::new(0.5, 0.7, -0.4),
        DVec3::new(-0.1, -0.9, -0.3),
        DVec3::new(0.9, 0.4, 0.5),
        DVec3::new(-0.4, 0.6, 0.8),
        DVec3::new(0.0, 0.0, -1.0),
    ];
    let rot = DQuat::from_axis_angle(DVec3::new(0.2, 0.9, -0.4).normalize(), 2.1);
    let t = DVec3::new(-1.5, 2.0, 0.7);
    let a = MassProperties::polytope(&Polytope::from_points(&pts).unwrap(), 1.0);
    let moved: Vec<DVec3> = pts.iter().map(|p| rot * *p + t).collect();
    let b = MassProperties::polytope(&Polytope::from_points(&moved).unwrap(), 1.0);
    let rm = DMat3::from_quat(rot);
    // R ≤ |t| + 1 ≈ 3.6 m, ~20 fan triangles: 256 ε m R² covers the round-off of both results.
    let r = t.length() + 1.0;
    assert!((a.mass - b.mass).abs() <= 256.0 * EPS * a.mass * r.powi(3));
    assert!((b.com - (rot * a.com + t)).length() <= 256.0 * EPS * r);
    assert!(
        max_abs_diff(b.inertia, rm * a.inertia * rm.transpose()) <= 256.0 * EPS * a.mass * r * r
    );
}
