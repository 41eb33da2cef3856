//! Exact overlap volumes (`geometry::overlap`): the cap and lens formulas against slice
//! integration, sphere–polytope against closed forms (half, quarter, eighth ball, wedges, solid
//! angles, caps, containment), every pair type against Monte Carlo estimates with ≥ 10⁶ samples,
//! symmetry, invariance under a common rigid motion and growth as bodies are pushed together.
#[path = "common/geometry.rs"]
mod geom;

use geom::{cuboid, monte_carlo_overlap, random_polytope, random_pose, rot, shape};
use signorini::geometry::overlap::{lens_volume, overlap_volume, spherical_cap_volume};
use signorini::geometry::{Polytope, Pose, Shape};
use signorini::util::rng::Rng;
use signorini::{DQuat, DVec3};
use std::f64::consts::PI;

fn ball(r: f64) -> f64 {
    4.0 / 3.0 * PI * r * r * r
}

fn sphere(r: f64) -> Shape {
    Shape::Sphere { radius: r }
}

fn rel_err(got: f64, want: f64) -> f64 {
    (got - want).abs() / want.abs()
}

/// ∫ f over [a, b] split at `breaks`: on each piece the substitution t = t₀ + Δ(3σ² − 2σ³) (which
/// makes the square-root behaviour of circle areas at the piece ends smooth) and composite
/// Simpson in σ with 4000 panels; Simpson's error on a smooth integrand is ~(1/4000)⁴ ≈ 4e-15.
fn integrate(f: impl Fn(f64) -> f64, mut breaks: Vec<f64>, a: f64, b: f64) -> f64 {
    breaks.push(a);
    breaks.push(b);
    breaks.retain(|t| (a..=b).contains(t));
    breaks.sort_by(f64::total_cmp);
    let n = 4000;
    let mut total = 0.0;
    for w in breaks.windows(2) {
        let (t0, span) = (w[0], w[1] - w[0]);
        let g = |s: f64| f(t0 + span * s * s * (3.0 - 2.0 * s)) * 6.0 * span * s * (1.0 - s);
        let h = 1.0 / n as f64;
        let mut sum = g(0.0) + g(1.0);
        for k in 1..n {
            sum += g(k as f64 * h) * if k % 2 == 1 { 4.0 } else { 2.0 };
        }
        total += sum * h / 3.0;
    }
    total
}

/// Area of the part of the disc of radius ρ (centred at 0) below the line z = h: π ρ² minus the
/// circular segment ρ² acos(h/ρ) − h √(ρ² − h²) above it.
fn disc_below(rho: f64, h: f64) -> f64 {
    if h >= rho {
        PI * rho * rho
    } else if h <= -rho {
        0.0
    } else {
        PI * rho * rho - (rho * rho * (h / rho).acos() - h * (rho * rho - h * h).sqrt())
    }
}

/// Area of the intersection of discs of radii p, q with centres e apart (planar lens).
fn disc_lens(p: f64, q: f64, e: f64) -> f64 {
    if e >= p + q {
        return 0.0;
    }
    if e <= (p - q).abs() {
        return PI * p.min(q).powi(2);
    }
    let a = ((e * e + p * p - q * q) / (2.0 * e * p))
        .clamp(-1.0, 1.0)
        .acos();
    let b = ((e * e + q * q - p * p) / (2.0 * e * q))
        .clamp(-1.0, 1.0)
        .acos();
    p * p * (a - a.sin() * a.cos()) + q * q * (b - b.sin() * b.cos())
}

#[test]
fn cap_formula_matches_slices_across_the_cut() {
    // Ball of radius r at the origin, half-space n·x ≤ s with n tilted by α from z in the x–z
    // plane. Slices x = t: the disc of radius √(r² − t²) below the line z = (s − t sin α)/cos α.
    // The area's form changes where that line is tangent to the disc: (s − t sin α)² = ρ² cos² α,
    // i.e. t = s sin α ± cos α √(r² − s²). Tolerance 1e-12 relative: quadrature ~1e-14.
    for (r, s, alpha) in [
        (1.0, 0.3, 0.4),
        (2.0, -1.5, 1.0),
        (0.5, 0.0, 0.1),
        (1.0, 0.99, 1.3),
    ] {
        let (sa, ca) = (f64::sin(alpha), f64::cos(alpha));
        let area = |t: f64| {
            let rho = (r * r - t * t).max(0.0).sqrt();
            disc_below(rho, (s - t * sa) / ca)
        };
        let w = ca * (r * r - s * s).max(0.0).sqrt();
        let sliced = integrate(area, vec![s * sa - w, s * sa + w], -r, r);
        let n = DVec3::new(sa, 0.0, ca);
        // The half-space {n·x ≤ 0} of a frame at s n: {n·x ≤ s}.
        let hs = Shape::HalfSpace { normal: DVec3::Z };
        let hs_pose = Pose::new(s * n, DQuat::from_rotation_arc(DVec3::Z, n));
        let got = overlap_volume(&sphere(r), &Pose::IDENTITY, &hs, &hs_pose);
        assert!(rel_err(got, sliced) < 1e-12, "{got} vs {sliced}");
        // Inside height r + s.
        assert!(rel_err(spherical_cap_volume(r, r + s), sliced) < 1e-12);
    }
}

#[test]
fn lens_formula_matches_slices_across_the_centre_line() {
    // Balls at (0, 0, 0) and (d, 0, 0); slices y = t are discs of radii √(rᵢ² − t²) with centres d
    // apart in the x–z plane (planar lens area). Breaks where the discs touch or nest:
    // ρ₁ ± ρ₂ = d, solved for t by squaring: t² = r₁² − ((d² + r₁² − r₂²)/(2d))².
    for (r1, r2, d) in [
        (1.0, 1.0, 1.0),
        (1.0, 0.5, 1.2),
        (2.0, 0.7, 1.5),
        (1.0, 0.9, 0.2),
    ] {
        let m = f64::min(r1, r2);
        let area = |t: f64| {
            let p = (r1 * r1 - t * t).max(0.0).sqrt();
            let q = (r2 * r2 - t * t).max(0.0).sqrt();
            disc_lens(p, q, d)
        };
        let x = (d * d + r1 * r1 - r2 * r2) / (2.0 * d);
        let tt = (r1 * r1 - x * x).max(0.0).sqrt();
        let sliced = integrate(area, vec![-tt, tt], -m, m);
        let got = overlap_volume(
            &sphere(r1),
            &Pose::IDENTITY,
            &sphere(r2),
            &Pose::new(DVec3::new(d, 0.0, 0.0), DQuat::IDENTITY),
        );
        assert!(rel_err(got, sliced) < 1e-12, "{got} vs {sliced}");
        assert!(rel_err(lens_volume(r1, r2, d), sliced) < 1e-12);
    }
    // Apart, touching, nested.
    assert_eq!(lens_volume(1.0, 1.0, 2.0), 0.0);
    assert_eq!(lens_volume(1.0, 1.0, 3.0), 0.0);
    assert!(rel_err(lens_volume(1.0, 0.3, 0.5), ball(0.3)) < 1e-15);
}

/// A polytope whose frame axes are not aligned with its faces: the hull of the box corners turned
/// by `q` (the slicing axis of sphere–polytope is the polytope frame's z).
fn turned_box(half: DVec3, q: DQuat) -> Polytope {
    let corners: Vec<DVec3> = cuboid(half).vertices.iter().map(|v| q * *v).collect();
    Polytope::from_points(&corners).unwrap()
}

#[test]
fn sphere_and_polytope_closed_forms() {
    // Each case names a fraction of the ball (or cap) and is placed in a random frame; the box
    // corners are turned so that no face is a slice of the quadrature. Asserted: error ≤ 1e-13 of
    // the ball (worst printed; 1.2e-14 over a 6000-case run of this test). The centres are
    // placed through the random pose, so they sit on the edges and corners only to ~1e-15 m:
    // exactly the near-coincident breaks that need the adaptive rule.
    let mut rng = Rng::new(21);
    let mut worst = 0.0f64;
    for k in 0..40 {
        let q = rng.rotation();
        let m = random_pose(&mut rng, 10.0);
        let r = rng.uniform(0.2, 2.0);
        let big = 10.0 * r;
        let bx = turned_box(DVec3::splat(big), q);
        let local = |p: DVec3| m.transform_point(q * p);
        let mut check = |got: f64, want: f64, what: &str| {
            let e = (got - want).abs() / ball(r);
            worst = worst.max(e);
            assert!(e < 1e-13, "{what} (case {k}): {got} vs {want}");
        };
        let ov = |centre: DVec3| {
            overlap_volume(
                &sphere(r),
                &Pose::new(centre, DQuat::IDENTITY),
                &shape(bx.clone()),
                &m,
            )
        };
        // Centre on a face, on an edge, at a corner: 1/2, 1/4, 1/8 of the ball.
        check(
            ov(local(DVec3::new(0.3 * big, -0.2 * big, big))),
            ball(r) / 2.0,
            "half",
        );
        check(
            ov(local(DVec3::new(0.3 * big, big, big))),
            ball(r) / 4.0,
            "quarter",
        );
        check(ov(local(DVec3::splat(big))), ball(r) / 8.0, "eighth");
        // Centre inside at depth s below one face: ball minus the cap of height r − s outside.
        let s = rng.uniform(-0.9, 0.9) * r;
        check(
            ov(local(DVec3::new(0.1 * big, 0.0, big - s))),
            ball(r) - spherical_cap_volume(r, r - s),
            "cap",
        );
        // A slab of thickness w < 2r through the centre at offset o: ball minus two caps.
        let (w, o) = (rng.uniform(0.2, 1.8) * r, rng.uniform(-0.1, 0.1) * r);
        let slab = turned_box(DVec3::new(big, big, 0.5 * w), q);
        let c = local(DVec3::new(0.2 * big, -0.1 * big, o));
        let got = overlap_volume(&sphere(r), &Pose::new(c, DQuat::IDENTITY), &shape(slab), &m);
        let want = ball(r)
            - spherical_cap_volume(r, r - (0.5 * w - o))
            - spherical_cap_volume(r, r - (0.5 * w + o));
        check(got, want, "slab");
        // The edge of a wedge of dihedral angle φ: φ / 2π of the ball.
        let phi = rng.uniform(0.3, 2.8);
        let l = 30.0 * r;
        let wedge = Polytope::from_points(
            &[
                DVec3::ZERO,
                DVec3::new(l, 0.0, 0.0),
                DVec3::new(l * phi.cos(), l * phi.sin(), 0.0),
            ]
            .iter()
            .flat_map(|p| {
                [
                    q * (*p - DVec3::new(0.0, 0.0, l)),
                    q * (*p + DVec3::new(0.0, 0.0, l)),
                ]
            })
            .collect::<Vec<_>>(),
        )
        .unwrap();
        check(
            ov_with(&wedge, &m, r, m.translation),
            phi / (2.0 * PI) * ball(r),
            "wedge",
        );
        // A corner of a tetrahedron: Ω / 4π of the ball, Ω the solid angle of the trihedron of unit
        // edge directions a, b, c (Van Oosterom & Strackee): tan(Ω/2) = |a·(b×c)| /
        // (1 + a·b + b·c + c·a).
        let (a, b, cc) = (rng.unit_vector(), rng.unit_vector(), rng.unit_vector());
        let triple = a.dot(b.cross(cc)).abs();
        if triple > 0.2 {
            // atan2 of a positive numerator is in (0, π): Ω in (0, 2π), as for a convex corner.
            let omega = 2.0 * triple.atan2(1.0 + a.dot(b) + b.dot(cc) + cc.dot(a));
            let tet = Polytope::from_points(&[DVec3::ZERO, a * l, b * l, cc * l]).unwrap();
            check(
                ov_with(&tet, &m, r, m.translation),
                omega / (4.0 * PI) * ball(r),
                "solid angle",
            );
        }
    }
    println!(
        "worst error of sphere–polytope against closed forms, relative to the ball: {worst:e}"
    );
}

fn ov_with(p: &Polytope, pose: &Pose, r: f64, centre: DVec3) -> f64 {
    overlap_volume(
        &sphere(r),
        &Pose::new(centre, DQuat::IDENTITY),
        &shape(p.clone()),
        pose,
    )
}

#[test]
fn containment_gives_the_smaller_volume() {
    // Sphere inside a turned box; a small polytope inside a sphere; either way round.
    let mut rng = Rng::new(23);
    for _ in 0..20 {
        let m = random_pose(&mut rng, 5.0);
        let bx = shape(turned_box(DVec3::new(1.0, 1.5, 2.0), rng.rotation()));
        let c = m.transform_point(DVec3::new(0.1, -0.2, 0.3));
        let s = Pose::new(c, rng.rotation());
        assert!(rel_err(overlap_volume(&sphere(0.6), &s, &bx, &m), ball(0.6)) < 1e-14);
        assert!(rel_err(overlap_volume(&bx, &m, &sphere(0.6), &s), ball(0.6)) < 1e-14);
        let small = random_polytope(&mut rng, 15, 0.5);
        let v = small.volume();
        let got = overlap_volume(&sphere(3.0), &s, &shape(small), &m);
        assert!(rel_err(got, v) < 1e-14);
    }
}

/// A random shape of each kind (index 0: sphere, 1: polytope, 2: half-space) of size ~`scale`.
fn random_shape(rng: &mut Rng, kind: usize, scale: f64) -> Shape {
    match kind {
        0 => sphere(rng.uniform(0.5, 1.0) * scale),
        1 => {
            let n = 4 + rng.below(40);
            shape(random_polytope(rng, n, scale))
        }
        _ => Shape::HalfSpace {
            normal: rng.unit_vector(),
        },
    }
}

#[test]
fn every_pair_type_agrees_with_monte_carlo_within_four_standard_errors() {
    // 10⁶ uniform samples in the intersection of the two bounding boxes per case. The estimate's
    // standard error is V_box √(p (1 − p) / N) (printed); the exact volume must be within 4 of
    // them (a 6e-5 chance per case for a correct volume; seeds fixed).
    let mut rng = Rng::new(29);
    let pairs = [(1, 1), (1, 1), (0, 1), (1, 2), (0, 2), (0, 0)];
    let mut cases = 0;
    for round in 0..4 {
        for &(ka, kb) in &pairs {
            let (a, b) = (
                random_shape(&mut rng, ka, 1.0),
                random_shape(&mut rng, kb, 1.0),
            );
            let pa = random_pose(&mut rng, 0.5);
            let pb = random_pose(&mut rng, 0.5);
            let exact = overlap_volume(&a, &pa, &b, &pb);
            if exact == 0.0 {
                continue;
            }
            let (mc, se) = monte_carlo_overlap(&a, &pa, &b, &pb, 1_000_000, &mut rng);
            println!(
                "round {round} {}–{}: exact {exact:.6e}, MC {mc:.6e} ± {se:.1e} ({:+.2} SE)",
                a.kind(),
                b.kind(),
                (exact - mc) / se
            );
            assert!((exact - mc).abs() <= 4.0 * se, "{exact} vs {mc} ± {se}");
            cases += 1;
        }
    }
    assert!(cases >= 18, "{cases} overlapping cases");
}

#[test]
fn overlap_is_symmetric_and_invariant_under_a_common_rigid_motion() {
    // overlap(a, b) = overlap(b, a) and overlap(M a, M b) = overlap(a, b) for random shapes of all
    // kinds. Polytope pairs: the two orders clip different bodies, each exact to its tolerance
    // (~1e-12 of the size) times the surface; sphere–polytope: the quadrature slices the polytope's
    // own frame, so both are the same computation up to the rounding of the poses. 1e-10 of the
    // smaller shape's volume covers both with a wide margin (the worst seen is printed).
    let mut rng = Rng::new(31);
    let mut worst = 0.0f64;
    for _ in 0..200 {
        let (ka, kb) = (rng.below(3), rng.below(2));
        let (a, b) = (
            random_shape(&mut rng, ka, 1.0),
            random_shape(&mut rng, kb, 1.0),
        );
        let (pa, pb) = (random_pose(&mut rng, 0.7), random_pose(&mut rng, 0.7));
        let v = overlap_volume(&a, &pa, &b, &pb);
        let scale = [&a, &b]
            .iter()
            .filter_map(|s| s.mass_properties(1.0).map(|m| m.mass))
            .fold(f64::INFINITY, f64::min);
        let swapped = overlap_volume(&b, &pb, &a, &pa);
        let m = random_pose(&mut rng, 100.0);
        let moved = overlap_volume(&a, &m.mul(&pa), &b, &m.mul(&pb));
        for other in [swapped, moved] {
            let e = (other - v).abs() / scale;
            worst = worst.max(e);
            assert!(e < 1e-10, "{} {}: {v} vs {other}", a.kind(), b.kind());
        }
    }
    println!("worst symmetry / invariance difference relative to the smaller volume: {worst:e}");
}

#[test]
fn overlap_grows_as_bodies_are_pushed_together() {
    // (1) A polytope lowered into a half-space: the sets A ∩ H are nested, so the volume never
    // decreases, and it grows strictly once they touch. (2) Centrally symmetric bodies (boxes,
    // prisms, spheres) moved along a line towards coinciding centres: by Brunn–Minkowski
    // V(t)^{1/3} is concave in t, and symmetric about coinciding centres, so V does not decrease.
    // (3) Random polytopes and spheres along any line: V^{1/3} concave (second differences within
    // the volumes' accuracy), hence one rise and one fall.
    let mut rng = Rng::new(37);
    for _ in 0..20 {
        let p = shape(random_polytope(&mut rng, 20, 1.0));
        let hs = Shape::HalfSpace { normal: DVec3::Z };
        let q = rng.rotation();
        let mut last = 0.0;
        for k in 0..=40 {
            let z = 1.0 - 2.0 * k as f64 / 40.0;
            let v = overlap_volume(
                &p,
                &Pose::new(DVec3::new(0.0, 0.0, z), q),
                &hs,
                &Pose::IDENTITY,
            );
            assert!(v >= last, "half-space: {v} after {last}");
            last = v;
        }
        assert!(last > 0.0);
    }
    let symmetric = |rng: &mut Rng| match rng.below(3) {
        0 => sphere(rng.uniform(0.3, 1.0)),
        1 => shape(cuboid(DVec3::new(
            rng.uniform(0.2, 1.0),
            rng.uniform(0.2, 1.0),
            rng.uniform(0.2, 1.0),
        ))),
        _ => shape(
            Polytope::cylinder(
                rng.uniform(0.2, 1.0),
                rng.uniform(0.2, 2.0),
                6 + 2 * rng.below(5) as u32,
            )
            .unwrap(),
        ),
    };
    for _ in 0..30 {
        let (a, b) = (symmetric(&mut rng), symmetric(&mut rng));
        let (qa, qb, dir) = (rng.rotation(), rng.rotation(), rng.unit_vector());
        let mut last = 0.0;
        for k in 0..=40 {
            let t = 3.0 * (1.0 - k as f64 / 40.0);
            let v = overlap_volume(&a, &Pose::new(DVec3::ZERO, qa), &b, &Pose::new(t * dir, qb));
            // Allowance: the volumes' accuracy, 1e-12 of the ball (sphere–polytope quadrature).
            assert!(
                v >= last - 1e-12,
                "{} {}: {v} after {last}",
                a.kind(),
                b.kind()
            );
            last = v;
        }
        assert!(last > 0.0);
    }
    let mut triples = 0;
    for _ in 0..30 {
        let a = random_shape(&mut rng, 1, 1.0);
        let kind = rng.below(2);
        let b = random_shape(&mut rng, kind, 1.0);
        let (pa, qb, dir) = (
            random_pose(&mut rng, 0.2),
            rng.rotation(),
            rng.unit_vector(),
        );
        let cube_roots: Vec<f64> = (0..=60)
            .map(|k| {
                let t = -3.0 + 6.0 * k as f64 / 60.0;
                overlap_volume(&a, &pa, &b, &Pose::new(t * dir, qb)).cbrt()
            })
            .collect();
        for w in cube_roots.windows(3) {
            // Only where the volumes are well above their accuracy δV = 1e-12 m³ (sphere–polytope
            // quadrature); an error δV moves V^{1/3} by δV / (3 V^{2/3}), allowed for each point.
            if w.iter().all(|v| v.powi(3) > 1e-11) {
                triples += 1;
                let slack: f64 = w
                    .iter()
                    .zip([1.0, 2.0, 1.0])
                    .map(|(v, k)| k * 1e-12 / (3.0 * v * v))
                    .sum();
                assert!(
                    w[0] + w[2] - 2.0 * w[1] <= 1e-12 + slack,
                    "{} {}: not concave: {w:?}",
                    a.kind(),
                    b.kind()
                );
            }
        }
        assert!(cube_roots.iter().any(|v| *v > 0.0));
    }
    println!("{triples} triples checked for concavity");
    assert!(triples > 300, "{triples}");
}

#[test]
fn half_spaces_and_bad_poses() {
    let hs = Shape::HalfSpace { normal: DVec3::Z };
    assert_eq!(
        overlap_volume(
            &hs,
            &Pose::IDENTITY,
            &hs,
            &Pose::new(DVec3::ZERO, rot(DVec3::X, 1.0))
        ),
        0.0
    );
    let bad = Pose::new(DVec3::new(f64::NAN, 0.0, 0.0), DQuat::IDENTITY);
    assert!(overlap_volume(&sphere(1.0), &bad, &hs, &Pose::IDENTITY).is_nan());
    assert!(overlap_volume(
        &shape(cuboid(DVec3::ONE)),
        &Pose::IDENTITY,
        &sphere(1.0),
        &bad
    )
    .is_nan());
}
