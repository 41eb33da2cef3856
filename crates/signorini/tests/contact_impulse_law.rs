//! Single-point collision laws (`contact::impulse::law`): the collision matrix against
//! Newton–Euler, frictionless restitution recovered exactly by every law, Stronge's law never
//! gaining energy over 10,000 random frictional collisions, Newton's law gaining energy on a rod
//! whose slip reverses (Stronge 1991), stable and unstable sticking, sliding throughout against
//! the closed form, the integrator against a fine fixed-step reference and against itself at half
//! the tolerance, and bad input.
//!
//! Tolerances. Closed-form paths (frictionless, straight segments) carry round-off only: a few
//! dozen flops on numbers of size |u₀| and Π = |u₀|/K_nn, so they are asserted to 1e-13 of those
//! scales. Integrated paths are asserted against the integrator's stated accuracy: with tolerance
//! τ the impulse is within 20 τ Π of the exact one (the module docs; measured ≤ 13 τ Π over 6000
//! random collisions, τ from 1e-4 to 1e-12).
use signorini::contact::impulse::law::{
    algebraic_newton, check_collision_matrix, collide, collision_matrix, diverging_ray, newton,
    poisson, slip_rays, sticking_test, stronge, BodyAtContact, Collision, ContactFrame,
    IntegrationOptions, Law, LawError, RayMethod, SegmentKind,
};
use signorini::util::rng::Rng;
use signorini::{DMat3, DVec2, DVec3};

// ---------------------------------------------------------------------------------------------
// Building blocks

/// A random box-like body: mass 0.1–10 kg, sides 0.05–2 m, random orientation, contact point
/// up to 1 m from the centre of mass.
fn random_body(rng: &mut Rng) -> BodyAtContact {
    let m = rng.uniform(0.1, 10.0);
    let (a, b, c) = (
        rng.uniform(0.05, 2.0),
        rng.uniform(0.05, 2.0),
        rng.uniform(0.05, 2.0),
    );
    let inertia = DVec3::new(b * b + c * c, a * a + c * c, a * a + b * b) * (m / 12.0);
    let r = DMat3::from_quat(rng.rotation());
    let ii = r * DMat3::from_diagonal(inertia.recip()) * r.transpose();
    BodyAtContact {
        inverse_mass: 1.0 / m,
        inverse_inertia: (ii + ii.transpose()) * 0.5,
        r: rng.unit_vector() * rng.uniform(0.0, 1.0),
    }
}

/// A random collision: K from one or two random bodies at a random contact frame, u₀ of
/// 0.1–10 m/s approaching, μ ∈ [0, 2], e ∈ [0, 1].
fn random_collision(rng: &mut Rng) -> (DMat3, DVec3, f64, f64) {
    let frame = ContactFrame::from_normal(rng.unit_vector()).unwrap();
    let b = random_body(rng);
    let a = random_body(rng);
    let fixed = rng.next_f64() < 0.5;
    let k = collision_matrix(&frame, if fixed { None } else { Some(&a) }, Some(&b)).unwrap();
    let dir = rng.unit_vector();
    let u0 = DVec3::new(dir.x, dir.y, -dir.z.abs() - 1e-3) * rng.uniform(0.1, 10.0);
    let mu = rng.uniform(0.0, 2.0);
    let e = rng.uniform(0.0, 1.0);
    (k, u0, mu, e)
}

/// Impulse scale Π = |u₀| / K_nn (N s).
fn impulse_scale(k: &DMat3, u0: DVec3) -> f64 {
    u0.length() / k.col(2).z
}

/// World inverse inertia of a solid cylinder (mass m, length l, radius r) along `axis`.
fn cylinder_inverse_inertia(m: f64, l: f64, r: f64, axis: DVec3) -> DMat3 {
    let transverse = m * l * l / 12.0 + m * r * r / 4.0;
    let axial = m * r * r / 2.0;
    let p = DMat3::from_cols(axis * axis.x, axis * axis.y, axis * axis.z);
    p * (1.0 / axial) + (DMat3::IDENTITY - p) * (1.0 / transverse)
}

fn world_frame() -> ContactFrame {
    ContactFrame::new(DVec3::X, DVec3::Y, DVec3::Z).unwrap()
}

/// A 1 kg, 1 m rod (radius 1 cm) in the x–z plane at `tilt` from the ground z = 0, touching it
/// with its lower end: K in the frame (x, y, z).
fn rod_on_ground(tilt: f64) -> DMat3 {
    let axis = DVec3::new(tilt.cos(), 0.0, tilt.sin());
    let body = BodyAtContact {
        inverse_mass: 1.0,
        inverse_inertia: cylinder_inverse_inertia(1.0, 1.0, 0.01, axis),
        r: -0.5 * axis,
    };
    collision_matrix(&world_frame(), None, Some(&body)).unwrap()
}

/// A solid sphere (mass m, radius r) resting on fixed ground: K = diag(kt, kt, 1/m),
/// kt = 1/m + r²/I = 7/(2m).
fn sphere_on_ground(m: f64, r: f64) -> DMat3 {
    let body = BodyAtContact {
        inverse_mass: 1.0 / m,
        inverse_inertia: DMat3::from_diagonal(DVec3::splat(1.0 / (0.4 * m * r * r))),
        r: DVec3::new(0.0, 0.0, -r),
    };
    collision_matrix(&world_frame(), None, Some(&body)).unwrap()
}

/// A 2 kg box of 0.4 × 0.3 × 0.2 m hitting the ground with a corner, tilted about two axes: a
/// K with every entry nonzero.
fn box_corner() -> DMat3 {
    let m = 2.0;
    let (a, b, c) = (0.4, 0.3, 0.2);
    let inertia = DVec3::new(b * b + c * c, a * a + c * c, a * a + b * b) * (m / 12.0);
    let rot = DMat3::from_rotation_x(0.3) * DMat3::from_rotation_y(-0.5);
    let ii = rot * DMat3::from_diagonal(inertia.recip()) * rot.transpose();
    let body = BodyAtContact {
        inverse_mass: 1.0 / m,
        inverse_inertia: ii,
        r: rot * DVec3::new(-a / 2.0, -b / 2.0, -c / 2.0),
    };
    collision_matrix(&world_frame(), None, Some(&body)).unwrap()
}

/// Round-off allowed on u = u₀ + K P: 1e-13 (≈ 450 ulps) of the sizes summed.
fn velocity_roundoff(k: &DMat3, u0: DVec3, p: DVec3) -> f64 {
    let kmax = k.to_cols_array().iter().fold(0.0f64, |m, v| m.max(v.abs()));
    1e-13 * (u0.length() + kmax * p.length())
}

fn integrated_laws() -> [Law; 3] {
    [Law::Newton, Law::Poisson, Law::Stronge]
}

fn run(law: Law, k: &DMat3, u0: DVec3, mu: f64, e: f64) -> Collision {
    collide(law, k, u0, mu, e, &IntegrationOptions::default())
        .unwrap_or_else(|err| panic!("{law}: {err} (K = {k}, u0 = {u0}, μ = {mu}, e = {e})"))
}

// ---------------------------------------------------------------------------------------------
// Collision matrix

#[test]
fn collision_matrix_is_the_contact_velocity_response_to_an_impulse() {
    // Brute force with Newton–Euler: +P on B and −P on A at the contact point change v by ±P/m
    // and ω by ±I⁻¹(r × P); the contact points' velocities change by Δv + Δω × r.
    let mut rng = Rng::new(1);
    for _ in 0..200 {
        let frame = ContactFrame::from_normal(rng.unit_vector()).unwrap();
        let (a, b) = (random_body(&mut rng), random_body(&mut rng));
        let k = collision_matrix(&frame, Some(&a), Some(&b)).unwrap();
        let p_world = rng.unit_vector() * rng.uniform(0.1, 5.0);
        let point_change = |body: &BodyAtContact, p: DVec3| {
            let dv = p * body.inverse_mass;
            let dw = body.inverse_inertia * body.r.cross(p);
            dv + dw.cross(body.r)
        };
        let du_world = point_change(&b, p_world) - point_change(&a, -p_world);
        let predicted = k * frame.to_contact(p_world);
        let measured = frame.to_contact(du_world);
        // Round-off of ~30 flops on entries of size ‖K‖ |P|.
        let scale = k.to_cols_array().iter().fold(0.0f64, |m, v| m.max(v.abs())) * p_world.length();
        assert!(
            (predicted - measured).length() <= 1e-13 * scale,
            "K P = {predicted}, Newton–Euler {measured}"
        );
        assert_eq!(k, k.transpose(), "K is returned exactly symmetric");
        for _ in 0..5 {
            let x = rng.unit_vector();
            assert!(x.dot(k * x) > 0.0, "K positive definite");
        }
    }
    // A fixed body (None) is the same as a body of zero inverse mass and inertia.
    let mut rng = Rng::new(2);
    let frame = ContactFrame::from_normal(DVec3::new(0.3, -0.2, 1.0)).unwrap();
    let b = random_body(&mut rng);
    let still = BodyAtContact {
        inverse_mass: 0.0,
        inverse_inertia: DMat3::ZERO,
        r: DVec3::new(1.0, 2.0, 3.0),
    };
    assert_eq!(
        collision_matrix(&frame, None, Some(&b)).unwrap(),
        collision_matrix(&frame, Some(&still), Some(&b)).unwrap()
    );
    // The sphere on the ground: diag(7/(2m), 7/(2m), 1/m) to round-off.
    let k = sphere_on_ground(2.0, 0.1);
    let expect = DMat3::from_diagonal(DVec3::new(1.75, 1.75, 0.5));
    assert!(
        (k - expect).to_cols_array().iter().all(|d| d.abs() < 1e-14),
        "{k}"
    );
}

#[test]
fn collision_matrix_rejects_bad_bodies_and_frames() {
    let frame = world_frame();
    assert!(matches!(
        collision_matrix(&frame, None, None),
        Err(LawError::NotPositiveDefinite(_))
    ));
    let good = BodyAtContact {
        inverse_mass: 1.0,
        inverse_inertia: DMat3::IDENTITY,
        r: DVec3::new(0.1, 0.0, -0.2),
    };
    let nan = BodyAtContact {
        r: DVec3::new(f64::NAN, 0.0, 0.0),
        ..good
    };
    let negative = BodyAtContact {
        inverse_mass: -1.0,
        ..good
    };
    let asymmetric = BodyAtContact {
        inverse_inertia: DMat3::from_cols_array(&[1.0, 0.5, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0]),
        ..good
    };
    for bad in [nan, negative, asymmetric] {
        assert!(matches!(
            collision_matrix(&frame, Some(&bad), Some(&good)),
            Err(LawError::BadInput(_))
        ));
    }
    let skew = ContactFrame {
        t1: DVec3::X,
        t2: DVec3::new(0.1, 1.0, 0.0),
        n: DVec3::Z,
    };
    assert!(matches!(
        collision_matrix(&skew, None, Some(&good)),
        Err(LawError::BadInput(_))
    ));
    assert!(
        ContactFrame::new(DVec3::Y, DVec3::X, DVec3::Z).is_err(),
        "left-handed"
    );
    assert!(ContactFrame::from_normal(DVec3::ZERO).is_err());
    assert!(ContactFrame::from_normal(DVec3::new(f64::NAN, 0.0, 1.0)).is_err());
    // Indefinite and asymmetric matrices.
    let indefinite = DMat3::from_diagonal(DVec3::new(1.0, -1.0, 1.0));
    assert!(matches!(
        check_collision_matrix(&indefinite),
        Err(LawError::NotPositiveDefinite(_))
    ));
    let asym = DMat3::from_cols_array(&[2.0, 0.5, 0.0, 0.0, 2.0, 0.0, 0.0, 0.0, 2.0]);
    assert!(matches!(
        check_collision_matrix(&asym),
        Err(LawError::NotPositiveDefinite(_))
    ));
}

// ---------------------------------------------------------------------------------------------
// Frictionless: e recovered exactly, the laws coincide

#[test]
fn frictionless_collisions_recover_e_exactly_for_every_law() {
    // μ = 0: u_n = u_n0 + K_nn P_n whatever the tangential coupling, so every law gives
    // P_n = (1 + e) P_c, P_c = −u_n0/K_nn, u_n = −e u_n0, ΔT = −(1 − e²) u_n0² / (2 K_nn).
    let cases = [
        ("sphere (K diagonal)", sphere_on_ground(2.0, 0.1)),
        ("rod at 35°", rod_on_ground(35f64.to_radians())),
        ("box corner", box_corner()),
    ];
    let u0 = DVec3::new(0.7, -0.4, -2.5);
    for (name, k) in cases {
        let knn = k.col(2).z;
        let pc = -u0.z / knn;
        for e in [0.0, 0.25, 0.5, 0.9, 1.0] {
            let mut impulses = Vec::new();
            for law in Law::ALL {
                let c = run(law, &k, u0, 0.0, e);
                let what = format!("{name}, {law}, e = {e}");
                // Round-off: a handful of flops on |u₀| and Π.
                assert!(
                    (c.velocity.z + e * u0.z).abs() <= 1e-14 * u0.length(),
                    "{what}: u_n = {}, −e u_n0 = {}",
                    c.velocity.z,
                    -e * u0.z
                );
                assert!(
                    (c.impulse.z - (1.0 + e) * pc).abs() <= 1e-14 * pc,
                    "{what}: P_n {}",
                    c.impulse.z
                );
                assert_eq!(
                    (c.impulse.x, c.impulse.y),
                    (0.0, 0.0),
                    "{what}: no friction"
                );
                let de = -(1.0 - e * e) * u0.z * u0.z / (2.0 * knn);
                assert!(
                    (c.energy_change - de).abs() <= 1e-13 * u0.z * u0.z / knn,
                    "{what}: ΔT {} vs {de}",
                    c.energy_change
                );
                assert!((c.compression_impulse - pc).abs() <= 1e-14 * pc, "{what}");
                assert!(
                    (c.restitution_work + e * e * c.compression_work).abs()
                        <= 1e-13 * u0.z * u0.z / knn,
                    "{what}: W_r = −e² W_c"
                );
                impulses.push(c.impulse);
            }
            for p in &impulses[1..] {
                assert!(
                    (*p - impulses[0]).length() <= 1e-14 * pc,
                    "{name}, e = {e}: the laws coincide: {impulses:?}"
                );
            }
        }
    }
}

#[test]
fn laws_coincide_with_friction_when_the_normal_column_has_no_tangential_coupling() {
    // K_tn = 0 (a sphere): du_n/dP_n = K_nn whatever the friction, so compression ends at the
    // same P_c and the three integrated laws end at P_n = (1 + e) P_c with the same friction.
    let k = sphere_on_ground(1.5, 0.2);
    for (u0, mu) in [
        (DVec3::new(3.0, 1.0, -2.0), 0.2),  // slides throughout
        (DVec3::new(0.3, -0.2, -2.0), 0.8), // sticks
    ] {
        for e in [0.0, 0.5, 1.0] {
            let cs: Vec<Collision> = integrated_laws()
                .iter()
                .map(|&l| run(l, &k, u0, mu, e))
                .collect();
            let pi = impulse_scale(&k, u0);
            for c in &cs[1..] {
                assert!(
                    (c.impulse - cs[0].impulse).length() <= 1e-13 * pi,
                    "u0 = {u0}, μ = {mu}, e = {e}: {} vs {}",
                    c.impulse,
                    cs[0].impulse
                );
            }
            assert!((cs[0].velocity.z + e * u0.z).abs() <= 1e-13 * u0.length());
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Energy: Stronge never gains; Newton does on a rod whose slip reverses

#[test]
fn stronge_never_gains_energy_over_10000_random_frictional_collisions() {
    let seed = 20_240_611u64;
    println!("seed {seed}");
    let mut rng = Rng::new(seed);
    let (mut newton_gains, mut poisson_gains, mut unstable, mut stable) = (0, 0, 0, 0);
    let mut algebraic_approaching = 0;
    let (mut recompressed, mut steps, mut worst_de, mut worst_cone) = (0, 0, f64::MIN, 0.0f64);
    for i in 0..10_000 {
        let (k, u0, mu, e) = random_collision(&mut rng);
        let pi = impulse_scale(&k, u0);
        let v = u0.length();
        let c = run(Law::Stronge, &k, u0, mu, e);
        let what = format!("collision {i} (seed {seed}): K = {k}, u0 = {u0}, μ = {mu}, e = {e}");
        // ΔT ≤ 0 exactly; the computed ΔT carries the impulse error (≤ 20 τ Π with τ = 1e-10)
        // times velocities of size |u₀|: allow 1e-8 |u₀| Π, five times that.
        assert!(
            c.energy_change <= 1e-8 * v * pi,
            "{what}: Stronge gained ΔT = {:e} J",
            c.energy_change
        );
        worst_de = worst_de.max(c.energy_change / (v * pi));
        // Exit velocity ≥ 0 up to the round-off of u = u₀ + K P.
        assert!(
            c.velocity.z >= -1e-12 * v,
            "{what}: leaves with u_n = {:e}",
            c.velocity.z
        );
        // Every segment's impulse lies in the cone: |ΔP_t| ≤ μ ΔP_n; the integrated ones
        // within the integration tolerance (their exact value is strictly inside).
        for s in &c.segments {
            let d = s.end - s.start;
            let excess = d.truncate().length() - mu * d.z;
            worst_cone = worst_cone.max(excess / (mu.max(1e-300) * pi));
            assert!(
                excess <= 1e-9 * mu * pi + 1e-14 * pi,
                "{what}: segment {:?} outside the cone by {excess:e}",
                s.kind
            );
            assert!(d.z >= 0.0, "{what}: P_n decreases");
        }
        assert!(c.impulse.truncate().length() <= mu * c.impulse.z * (1.0 + 1e-9) + 1e-14 * pi);
        assert!(
            c.friction_work <= 1e-8 * v * pi,
            "{what}: friction did work"
        );
        if let Some(s) = c.stick {
            // Stable: leaves without slip. Unstable: along the diverging ray (L7).
            if s.test.stable {
                stable += 1;
                assert!(
                    c.velocity.truncate().length() <= velocity_roundoff(&k, u0, c.impulse),
                    "{what}: slips after sticking: {}",
                    c.velocity.truncate()
                );
            } else {
                unstable += 1;
                let (ray, _) = s.ray.expect("ray");
                let exit = c.exit_slip.expect("slides out");
                assert!(
                    ray.rate > 0.0 && (exit - ray.direction).length() < 1e-9,
                    "{what}: exit {exit} vs {ray:?}"
                );
            }
        }
        recompressed += c.recompressed as usize;
        steps += c.steps;
        // The algebraic baseline never gains either (both stages dissipate; closed form, so
        // round-off only), but may leave approaching.
        let a = run(Law::AlgebraicNewton, &k, u0, mu, e);
        assert!(
            a.energy_change <= 1e-12 * v * pi,
            "{what}: algebraic ΔT = {:e}",
            a.energy_change
        );
        algebraic_approaching += (a.velocity.z < -1e-12 * v) as usize;
        newton_gains += (run(Law::Newton, &k, u0, mu, e).energy_change > 1e-8 * v * pi) as usize;
        poisson_gains += (run(Law::Poisson, &k, u0, mu, e).energy_change > 1e-8 * v * pi) as usize;
    }
    println!(
        "Stronge: largest ΔT/(|u0| Π) {worst_de:.3e}, largest cone excess {worst_cone:.3e} μΠ, \
         slip stopped {stable} stable / {unstable} unstable, recompressed {recompressed}, \
         mean {:.1} steps; energy gained by Newton in {newton_gains}, by Poisson in {poisson_gains}; \
         the algebraic law leaves approaching in {algebraic_approaching}",
        steps as f64 / 10_000.0
    );
    assert!(
        unstable > 0 && stable > 0,
        "the sweep reaches both kinds of sticking"
    );
    assert!(newton_gains > 0, "Newton's law gains energy somewhere");
    assert!(algebraic_approaching > 0, "the algebraic law's flaw shows");
}

/// The planar collision (one tangent, K = [[ktt, ktn], [ktn, knn]]) solved independently of the
/// library: slip directions are ±1, so the path is piecewise linear in P_n (Routh's method);
/// returns (P_t, P_n).
fn planar_oracle(k: [f64; 3], u0: [f64; 2], mu: f64, e: f64, law: Law) -> (f64, f64) {
    let [ktt, ktn, knn] = k;
    let (mut ut, mut un, mut pt, mut pn, mut w) = (u0[0], u0[1], 0.0, 0.0, 0.0);
    let mut comp: Option<(f64, f64)> = None;
    let mut stuck: Option<f64> = None;
    for _ in 0..10 {
        if comp.is_none() && un >= 0.0 {
            comp = Some((pn, w));
        }
        if let Some((pc, wc)) = comp {
            let done = match law {
                Law::Newton => un >= -e * u0[1],
                Law::Poisson => pn >= (1.0 + e) * pc,
                _ => w >= (1.0 - e * e) * wc,
            };
            if done {
                break;
            }
        }
        // Friction rate: sliding −μ sign(u_t); at zero slip −ktn/ktt if within μ, else the
        // slip leaves towards sign(ktn) (du_t/dP_n = ktn − μ ktt s > 0 needs s = sign(ktn)).
        let f = match stuck {
            Some(f) => f,
            None if ut != 0.0 => -mu * ut.signum(),
            None => {
                let f = if (ktn / ktt).abs() <= mu {
                    -ktn / ktt
                } else {
                    -mu * ktn.signum()
                };
                stuck = Some(f);
                f
            }
        };
        let (dt, dn) = (ktt * f + ktn, ktn * f + knn);
        let mut x = f64::INFINITY;
        if stuck.is_none() && dt * ut < 0.0 {
            x = x.min(-ut / dt);
        }
        match comp {
            None => {
                if dn > 0.0 {
                    x = x.min(-un / dn);
                }
            }
            Some((pc, wc)) => match law {
                Law::Newton => x = x.min((-e * u0[1] - un) / dn),
                Law::Poisson => x = x.min((1.0 + e) * pc - pn),
                _ => {
                    let gap = (1.0 - e * e) * wc - w;
                    x = x.min(2.0 * gap / (un + (un * un + 2.0 * dn * gap).sqrt()));
                }
            },
        }
        w += un * x + 0.5 * dn * x * x;
        pn += x;
        pt += f * x;
        let was = ut;
        ut += dt * x;
        un += dn * x;
        if stuck.is_none() && was != 0.0 && (ut == 0.0 || ut.signum() != was.signum()) {
            ut = 0.0;
        }
    }
    (pt, pn)
}

#[test]
fn newton_gains_energy_on_a_rod_whose_slip_reverses_and_stronge_does_not() {
    // Stronge, "Unraveling paradoxical theories for rigid body collisions", J. Appl. Mech. 58
    // (1991) 1049: with friction, Newton's kinematic restitution gives "paradoxical increases in
    // energy for collisions where slip reverses"; the energetic coefficient never does (slides
    // 21–22). The case: a 1 kg, 1 m rod at 45° to a rough floor (μ = 0.5) hit on its lower end
    // while translating at 1 m/s, 30° from the vertical, towards +x. Sticking there needs
    // μ ≥ 3 sin θ cos θ / (1 + 3 sin² θ) = 0.6 > 0.5: the slip stops, then reverses.
    let k = rod_on_ground(45f64.to_radians());
    let mu = 0.5;
    let phi = 30f64.to_radians();
    let u0 = DVec3::new(phi.sin(), 0.0, -phi.cos());
    let t0 = 0.5; // ½ m |v|², J
    let mut gains = Vec::new();
    for e in [1.0, 0.9] {
        let n = newton(&k, u0, mu, e).unwrap();
        let s = stronge(&k, u0, mu, e).unwrap();
        let p = poisson(&k, u0, mu, e).unwrap();
        gains.push((
            e,
            n.energy_change / t0,
            p.energy_change / t0,
            s.energy_change / t0,
        ));
        for c in [&n, &s, &p] {
            let stick = c.stick.expect("the slip stops");
            assert!(!stick.test.stable, "{}: sticking unstable", c.law);
            let exit = c.exit_slip.expect("slides out");
            assert!(
                (exit.x + 1.0).abs() < 1e-12 && exit.y.abs() < 1e-12,
                "{}: slip reversed to −x: {exit}",
                c.law
            );
            // Planar: nothing along y.
            assert!(c.impulse.y.abs() < 1e-15 && c.velocity.y.abs() < 1e-15);
            // Against the independent piecewise-linear planar solution (round-off only).
            let (pt, pn) = planar_oracle(
                [k.col(0).x, k.col(2).x, k.col(2).z],
                [u0.x, u0.z],
                mu,
                e,
                c.law,
            );
            assert!(
                (c.impulse.x - pt).abs() < 1e-13 && (c.impulse.z - pn).abs() < 1e-13,
                "{}, e = {e}: P = {} vs planar ({pt}, {pn})",
                c.law,
                c.impulse
            );
        }
        // Newton reaches u_n = e |u_n0| and gains energy; Stronge loses.
        assert!((n.velocity.z + e * u0.z).abs() < 1e-13);
        assert!(
            n.energy_change > 0.0,
            "e = {e}: Newton ΔT = {}",
            n.energy_change
        );
        assert!(
            s.energy_change < 0.0,
            "e = {e}: Stronge ΔT = {}",
            s.energy_change
        );
        assert!(
            p.energy_change < 0.0,
            "e = {e}: Poisson ΔT = {}",
            p.energy_change
        );
    }
    println!("rod 45°, μ = 0.5, 30° incidence: (e, ΔT/T0 Newton, Poisson, Stronge) = {gains:?}");
    // e = 1: Newton creates 7.9 % of the rod's energy (well above integration error: planar
    // paths are closed form).
    assert!(gains[0].1 > 0.05, "{gains:?}");
}

// ---------------------------------------------------------------------------------------------
// Sticking

#[test]
fn large_friction_sticks_when_sticking_is_stable() {
    // With μ above the friction sticking needs (L6), once the slip stops it stays zero: the
    // contact leaves with u_t = 0 for every law, and the sticking friction rate is f*. The slip
    // is made to stop within the collision: while sliding, d|u_t|/dP_n ≤ |K_tn| − μ λ_min(K_tt),
    // so it stops by P_n = |u_t0| / (μ λ_min − |K_tn|), and compression lasts at least
    // |u_n0| / (K_nn + μ |K_tn|) (du_n/dP_n ≤ K_nn + μ |K_tn|). The initial slip is set to half
    // the size for which the first bound can stay below the second as μ grows, and μ doubled
    // until it does.
    let mut rng = Rng::new(5);
    for _ in 0..200 {
        let (k, u0, _, e) = random_collision(&mut rng);
        let (k11, k12, k22) = (k.col(0).x, k.col(1).x, k.col(1).y);
        let lmin = 0.5 * (k11 + k22) - (0.25 * (k11 - k22).powi(2) + k12 * k12).sqrt();
        let ktn = k.col(2).truncate().length();
        let slip = 0.5 * -u0.z * lmin / ktn.max(1e-12);
        let u0 = DVec3::new(0.0, 0.0, u0.z) + slip * u0.truncate().normalize().extend(0.0);
        let mut mu = 1.5 * sticking_test(&k, 0.0).required_friction + 0.1;
        while !(mu * lmin > ktn && slip / (mu * lmin - ktn) < -u0.z / (k.col(2).z + mu * ktn)) {
            mu *= 2.0;
        }
        for law in integrated_laws() {
            let c = run(law, &k, u0, mu, e);
            let stick = c.stick.expect("slip stops");
            assert!(stick.test.stable && stick.ray.is_none());
            assert!(
                stick.normal_impulse < c.compression_impulse,
                "stops in compression"
            );
            assert!(
                c.velocity.truncate().length() <= velocity_roundoff(&k, u0, c.impulse),
                "{law}: leaves with slip {} ({c:?}, K = {k}, u0 = {u0}, μ = {mu}, e = {e})",
                c.velocity.truncate()
            );
            assert!(c.exit_slip.is_none());
            let last = c.segments.last().unwrap();
            assert_eq!(last.kind, SegmentKind::Sticking);
            let d = last.end - last.start;
            // Round-off of the segment's ends (P_t can be large next to ΔP_n).
            let roundoff = 1e-12 * d.z + 1e-14 * last.end.length();
            assert!((d.truncate() - d.z * stick.test.friction_rate).length() <= roundoff);
        }
    }
}

/// A rod tilted out of every axis hitting the ground: K with anisotropic K_tt and K_tn off its
/// eigenvectors; sticking needs about 0.71.
fn tilted_rod() -> DMat3 {
    let axis = DVec3::new(0.6, 0.35, 0.7).normalize();
    let body = BodyAtContact {
        inverse_mass: 1.0 / 1.5,
        inverse_inertia: cylinder_inverse_inertia(1.5, 1.2, 0.05, axis),
        r: -0.6 * axis + DVec3::new(0.0, 0.04, 0.0),
    };
    let frame = ContactFrame::from_normal(DVec3::new(0.05, -0.1, 1.0)).unwrap();
    collision_matrix(&frame, None, Some(&body)).unwrap()
}

#[test]
fn unstable_sticking_leaves_along_the_diverging_ray() {
    let k = tilted_rod();
    let test = sticking_test(&k, 0.0);
    let mu = 0.5 * test.required_friction;
    let (ray, method) = diverging_ray(&k, mu).unwrap();
    assert_eq!(method, RayMethod::Quartic);
    // The ray: F(ŝ) = K_tn − μ K_tt ŝ = λ ŝ with λ > 0 (L7), to round-off.
    let s = ray.direction;
    let ktt = |x: DVec2| {
        DVec2::new(
            k.col(0).x * x.x + k.col(1).x * x.y,
            k.col(0).y * x.x + k.col(1).y * x.y,
        )
    };
    let ktn = DVec2::new(k.col(2).x, k.col(2).y);
    let f = ktn - mu * ktt(s);
    assert!(ray.rate > 0.0);
    assert!(
        (f - ray.rate * s).length() <= 1e-13 * f.length(),
        "F = {f}, λŝ = {}",
        ray.rate * s
    );
    // Exactly one of the quartic's rays diverges.
    let rays = slip_rays(&k, mu);
    assert_eq!(rays.iter().filter(|r| r.rate > 0.0).count(), 1, "{rays:?}");
    // Brute force: g(θ) = ŝ⊥·F(ŝ) sampled at 100,000 angles changes sign next to every ray.
    let g = |th: f64| {
        let s = DVec2::new(th.cos(), th.sin());
        DVec2::new(-s.y, s.x).dot(ktn - mu * ktt(s))
    };
    let n = 100_000;
    let mut found = 0;
    for i in 0..n {
        let (a, b) = (
            std::f64::consts::TAU * i as f64 / n as f64,
            std::f64::consts::TAU * (i + 1) as f64 / n as f64,
        );
        if g(a).signum() != g(b).signum() {
            found += 1;
            let hit = rays.iter().any(|r| {
                let th = r
                    .direction
                    .y
                    .atan2(r.direction.x)
                    .rem_euclid(std::f64::consts::TAU);
                th >= a - 1e-12 && th <= b + 1e-12
            });
            assert!(
                hit,
                "sign change in [{a}, {b}] has no quartic root: {rays:?}"
            );
        }
    }
    assert_eq!(found, rays.len());

    // A collision whose slip stops: it starts along the converging ray (an invariant direction:
    // off it, the slip of this K turns away and never reaches zero), stops, then leaves along
    // the diverging ray. (Slips that reach zero by turning onto a ray are checked in the random
    // sweep.)
    let converging = rays
        .iter()
        .find(|r| r.rate < 0.0)
        .expect("a converging ray");
    let u0 = (0.2 * converging.direction).extend(-2.0);
    for law in integrated_laws() {
        let c = run(law, &k, u0, mu, 0.6);
        let stick = c.stick.expect("slip stops");
        assert!(!stick.test.stable);
        assert!(
            stick.normal_impulse < c.compression_impulse,
            "{law}: stops in compression"
        );
        let (r, _) = stick.ray.expect("ray recorded");
        assert_eq!(r.direction, s);
        let exit = c.exit_slip.expect("slides out");
        assert!(
            (exit - s).length() < 1e-9,
            "{law}: exit slip {exit} vs ray {s}"
        );
        assert_eq!(
            c.segments.last().unwrap().kind,
            SegmentKind::LeavingAlongRay
        );
    }
    // Stable sticking has no diverging ray.
    assert!(diverging_ray(&k, 1.01 * test.required_friction).is_err());
}

#[test]
fn exactly_one_ray_diverges_when_sticking_is_unstable_over_random_matrices() {
    // The module's argument: a ray with λ > 0 solves (μK_tt + λI)ŝ = K_tn, |ŝ| = 1, whose
    // solution λ is unique and exists iff |K_tt⁻¹K_tn| > μ. Checked on random K and μ, away
    // from the marginal |f*| = μ where λ → 0.
    let mut rng = Rng::new(9);
    let (mut unstable, mut stable) = (0, 0);
    for _ in 0..3000 {
        let (k, _, _, _) = random_collision(&mut rng);
        let mu = rng.uniform(0.01, 2.0);
        let test = sticking_test(&k, mu);
        if (test.required_friction - mu).abs() < 1e-6 * mu {
            continue;
        }
        let diverging = slip_rays(&k, mu).iter().filter(|r| r.rate > 0.0).count();
        if test.stable {
            stable += 1;
            assert_eq!(diverging, 0, "stable: K = {k}, μ = {mu}");
        } else {
            unstable += 1;
            assert_eq!(diverging, 1, "unstable: K = {k}, μ = {mu}");
            assert_eq!(diverging_ray(&k, mu).unwrap().1, RayMethod::Quartic);
        }
    }
    println!("{stable} stable, {unstable} unstable");
    assert!(stable > 500 && unstable > 500);
}

#[test]
fn near_marginal_sticking_falls_back_to_the_secular_equation() {
    // μ two ulps below the friction sticking needs: unstable by round-off, the diverging ray has
    // λ ≈ 0 and merges with a converging one, so the quartic's bracketing may find no root with
    // λ > 0. The fallback solves |(μK_tt + λI)⁻¹K_tn| = 1, whose λ → 0 limit is ŝ = −f*/|f*|.
    let mut rng = Rng::new(3);
    let (mut secular, mut worst) = (0, 0.0f64);
    for _ in 0..2000 {
        let a = DMat3::from_cols(rng.unit_vector(), rng.unit_vector(), rng.unit_vector());
        let k = a * a.transpose() + DMat3::IDENTITY * 0.1;
        let k = (k + k.transpose()) * 0.5;
        let test = sticking_test(&k, 0.0);
        let mu = test.required_friction * (1.0 - 2.0 * f64::EPSILON);
        if sticking_test(&k, mu).stable {
            continue;
        }
        let (ray, method) = diverging_ray(&k, mu).unwrap();
        if method != RayMethod::Secular {
            continue;
        }
        secular += 1;
        let limit = -test.friction_rate / test.required_friction;
        worst = worst.max((ray.direction - limit).length());
        // The ray is the λ → 0 limit to round-off (the bisection ends at λ of a few ulps, where
        // ŝ(λ) is f*'s direction to the last bit) and its rate is zero to round-off.
        assert!((ray.direction.length() - 1.0).abs() < 1e-15);
        assert!(
            (ray.direction - limit).length() < 1e-6,
            "{ray:?} vs {limit}"
        );
        assert!(ray.rate.abs() < 1e-12, "{ray:?}");
        // A collision starting without slip completes and leaves (nearly) sticking.
        let c = run(Law::Stronge, &k, DVec3::new(0.0, 0.0, -1.0), mu, 0.5);
        assert!(c.velocity.truncate().length() < 1e-12, "{c:?}");
    }
    println!("{secular} of 2000 near-marginal matrices used the fallback; ray off the limit by ≤ {worst:e}");
    assert!(secular > 0, "the fallback is exercised");
}

// ---------------------------------------------------------------------------------------------
// Sliding throughout, integrator accuracy

#[test]
fn sliding_throughout_matches_the_closed_form() {
    // K_tt isotropic and K_tn = 0 (a sphere, any frame): the slip direction never turns, so
    // P_t = −μ P_n ŝ₀, P_n = (1 + e) P_c, while μ k_t P_n < |u_t0| (the slip never stops).
    let k = sphere_on_ground(0.5, 0.05);
    let (kt, kn) = (k.col(0).x, k.col(2).z);
    let u0 = DVec3::new(2.0, -1.5, -3.0);
    let mu = 0.1;
    let slip0 = u0.truncate();
    for straight in [true, false] {
        let opts = IntegrationOptions {
            straight_rays: straight,
            ..IntegrationOptions::default()
        };
        for law in integrated_laws() {
            for e in [0.0, 0.6, 1.0] {
                let pn = (1.0 + e) * (-u0.z / kn);
                assert!(mu * kt * pn < slip0.length(), "the case slides throughout");
                let pt = -mu * pn * slip0.normalize();
                let c = collide(law, &k, u0, mu, e, &opts).unwrap();
                let expect = DVec3::new(pt.x, pt.y, pn);
                assert!(
                    (c.impulse - expect).length() <= 1e-10 * expect.length(),
                    "{law}, e = {e}, straight {straight}: {} vs {expect}",
                    c.impulse
                );
                assert!(c.stick.is_none());
                assert_eq!(c.steps > 0, !straight, "the integrator ran iff asked to");
            }
        }
    }
}

/// A classical RK4 path with `n` fixed steps of dy/dP_n = (−μ ŝ, u_n) from P_n = a to b, from
/// state y = (P_t1, P_t2, W_n); the test's own oracle, independent of the library's integrator.
fn rk4_path(k: &DMat3, u0: DVec3, mu: f64, y: [f64; 3], a: f64, b: f64, n: usize) -> [f64; 3] {
    let rhs = |pn: f64, y: [f64; 3]| {
        let u = u0 + *k * DVec3::new(y[0], y[1], pn);
        let s = u.truncate().normalize();
        [-mu * s.x, -mu * s.y, u.z]
    };
    let h = (b - a) / n as f64;
    let mut y = y;
    for i in 0..n {
        let p = a + h * i as f64;
        let add =
            |y: [f64; 3], k: [f64; 3], c: f64| [y[0] + c * k[0], y[1] + c * k[1], y[2] + c * k[2]];
        let k1 = rhs(p, y);
        let k2 = rhs(p + h / 2.0, add(y, k1, h / 2.0));
        let k3 = rhs(p + h / 2.0, add(y, k2, h / 2.0));
        let k4 = rhs(p + h, add(y, k3, h));
        for c in 0..3 {
            y[c] += h / 6.0 * (k1[c] + 2.0 * k2[c] + 2.0 * k3[c] + k4[c]);
        }
    }
    y
}

#[test]
fn integrated_sliding_matches_a_fine_fixed_step_reference() {
    // The box corner (every entry of K coupled) sliding fast with little friction: the slip
    // direction turns through the collision but never stops. Poisson's target is a value of
    // P_n, so the reference only has to find P_c: fixed-step RK4 to bracket u_n = 0, then
    // bisection on the length of the last step. RK4 with 200,000 steps has error ~h⁴ far below
    // the tolerance checked.
    let k = box_corner();
    let u0 = DVec3::new(3.0, -2.0, -2.0);
    let (mu, e) = (0.3, 0.7);
    let c = poisson(&k, u0, mu, e).unwrap();
    assert!(c.stick.is_none() && c.steps > 0, "integrated, no stick");
    let turned = c.exit_slip.unwrap().angle_to(u0.truncate().normalize());
    assert!(
        turned.abs() > 0.1,
        "the slip direction turns ({turned} rad)"
    );
    // Reference P_c.
    let un = |y: [f64; 3], pn: f64| (u0 + k * DVec3::new(y[0], y[1], pn)).z;
    let n = 200_000;
    let span = 2.0 * c.compression_impulse;
    let h = span / n as f64;
    let mut y = [0.0; 3];
    let mut pn = 0.0;
    loop {
        let next = rk4_path(&k, u0, mu, y, pn, pn + h, 1);
        if un(next, pn + h) >= 0.0 {
            break;
        }
        y = next;
        pn += h;
    }
    let (mut lo, mut hi) = (0.0, h);
    for _ in 0..100 {
        let mid = 0.5 * (lo + hi);
        if un(rk4_path(&k, u0, mu, y, pn, pn + mid, 1), pn + mid) >= 0.0 {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    let pc = pn + hi;
    let yc = rk4_path(&k, u0, mu, y, pn, pc, 1);
    let pf = (1.0 + e) * pc;
    let yf = rk4_path(&k, u0, mu, yc, pc, pf, n);
    let reference = DVec3::new(yf[0], yf[1], pf);
    let pi = impulse_scale(&k, u0);
    let tol = IntegrationOptions::default().tolerance;
    println!(
        "P = {}, reference {reference}, |ΔP|/Π = {:e}, P_c {} vs {pc}",
        c.impulse,
        (c.impulse - reference).length() / pi,
        c.compression_impulse
    );
    assert!((c.compression_impulse - pc).abs() <= 20.0 * tol * pi);
    assert!((c.impulse - reference).length() <= 20.0 * tol * pi);
}

#[test]
fn halving_the_tolerance_changes_the_impulse_by_less_than_the_stated_bound() {
    // Stated accuracy: |P − P_exact| ≤ 20 τ Π. So |P(τ) − P(τ/2)| ≤ 20 τ Π too (measured at
    // most 7.4 τ Π over 6000 collisions).
    let mut rng = Rng::new(13);
    let mut worst = 0.0f64;
    for _ in 0..300 {
        let (k, u0, mu, e) = random_collision(&mut rng);
        let pi = impulse_scale(&k, u0);
        for tol in [1e-6, 1e-8, 1e-10] {
            for law in integrated_laws() {
                let at = |t: f64| {
                    let o = IntegrationOptions {
                        tolerance: t,
                        ..IntegrationOptions::default()
                    };
                    collide(law, &k, u0, mu, e, &o).unwrap().impulse
                };
                let d = (at(tol) - at(tol / 2.0)).length() / (tol * pi);
                worst = worst.max(d);
                assert!(
                    d <= 20.0,
                    "{law}, τ = {tol}: |ΔP| = {d} τ Π (K = {k}, u0 = {u0}, μ = {mu}, e = {e})"
                );
            }
        }
    }
    println!("largest |P(τ) − P(τ/2)| = {worst:.3} τ Π");
}

// ---------------------------------------------------------------------------------------------
// The algebraic baseline, bad input, determinism

#[test]
fn algebraic_newton_stops_the_slip_inside_the_cone_and_clamps_outside() {
    let k = sphere_on_ground(1.0, 0.1);
    let (kt, kn) = (k.col(0).x, k.col(2).z);
    let e = 0.5;
    // Small slip: stopped (P_t = −u_t/k_t inside μ P_n), u = (0, 0, −e u_n0).
    let u0 = DVec3::new(0.2, 0.1, -2.0);
    let c = algebraic_newton(&k, u0, 0.5, e).unwrap();
    let pn = (1.0 + e) * 2.0 / kn;
    assert!((c.impulse - DVec3::new(-0.2 / kt, -0.1 / kt, pn)).length() < 1e-14 * pn);
    assert!(c.velocity.truncate().length() < 1e-14 && (c.velocity.z - 1.0).abs() < 1e-14);
    assert!(c.stick.is_some() && c.exit_slip.is_none());
    // Large slip: clamped to |P_t| = μ P_n along −ŝ.
    let u0 = DVec3::new(4.0, 3.0, -2.0);
    let c = algebraic_newton(&k, u0, 0.2, e).unwrap();
    assert!(
        (c.impulse.truncate() + 0.2 * pn * DVec3::new(0.8, 0.6, 0.0).truncate()).length()
            < 1e-14 * pn
    );
    assert!(c.stick.is_none());
    // On the sphere it equals the integrated laws, sliding or sticking.
    for (u0, mu) in [
        (DVec3::new(0.2, 0.1, -2.0), 0.5),
        (DVec3::new(4.0, 3.0, -2.0), 0.2),
    ] {
        let s = stronge(&k, u0, mu, e).unwrap();
        let a = algebraic_newton(&k, u0, mu, e).unwrap();
        assert!(
            (s.impulse - a.impulse).length() < 1e-13 * pn,
            "{} vs {}",
            s.impulse,
            a.impulse
        );
    }
    // With coupling it ignores friction's effect on u_n: on the tilted rod with a stopping slip
    // the tangential correction changes the normal velocity away from −e u_n0.
    let k = tilted_rod();
    let u0 = DVec3::new(0.3, -0.2, -2.0);
    let a = algebraic_newton(&k, u0, 2.0, e).unwrap();
    assert!(
        (a.velocity.z + e * u0.z).abs() > 1e-3,
        "u_n = {}",
        a.velocity.z
    );
}

#[test]
fn out_of_domain_input_is_an_error_not_a_panic() {
    let k = box_corner();
    let u0 = DVec3::new(0.5, 0.2, -1.0);
    let bad_input = |r: Result<Collision, LawError>| matches!(r, Err(LawError::BadInput(_)));
    for law in Law::ALL {
        let d = IntegrationOptions::default();
        assert!(
            bad_input(collide(law, &k, DVec3::new(0.5, 0.2, 0.0), 0.3, 0.5, &d)),
            "u_n = 0"
        );
        assert!(
            bad_input(collide(law, &k, DVec3::new(0.5, 0.2, 1.0), 0.3, 0.5, &d)),
            "separating"
        );
        assert!(bad_input(collide(
            law,
            &k,
            DVec3::new(f64::NAN, 0.2, -1.0),
            0.3,
            0.5,
            &d
        )));
        assert!(bad_input(collide(
            law,
            &k,
            DVec3::new(0.0, 0.0, f64::NAN),
            0.3,
            0.5,
            &d
        )));
        assert!(bad_input(collide(law, &k, u0, -0.1, 0.5, &d)), "μ < 0");
        assert!(bad_input(collide(law, &k, u0, f64::NAN, 0.5, &d)));
        assert!(bad_input(collide(law, &k, u0, f64::INFINITY, 0.5, &d)));
        assert!(bad_input(collide(law, &k, u0, 0.3, 1.5, &d)), "e > 1");
        assert!(bad_input(collide(law, &k, u0, 0.3, -0.1, &d)), "e < 0");
        assert!(bad_input(collide(law, &k, u0, 0.3, f64::NAN, &d)));
        let loose = IntegrationOptions {
            tolerance: 0.5,
            ..d
        };
        assert!(bad_input(collide(law, &k, u0, 0.3, 0.5, &loose)));
        let none = IntegrationOptions { max_steps: 0, ..d };
        assert!(bad_input(collide(law, &k, u0, 0.3, 0.5, &none)));
        let singular = DMat3::from_diagonal(DVec3::new(1.0, 0.0, 1.0));
        assert!(matches!(
            collide(law, &singular, u0, 0.3, 0.5, &d),
            Err(LawError::NotPositiveDefinite(_))
        ));
        let nan_k = DMat3::from_diagonal(DVec3::new(1.0, f64::NAN, 1.0));
        assert!(bad_input(collide(law, &nan_k, u0, 0.3, 0.5, &d)));
    }
    // An integration that cannot finish in its step budget says so.
    let mut rng = Rng::new(3);
    let (k, u0, _, e) = random_collision(&mut rng);
    let tiny = IntegrationOptions {
        max_steps: 1,
        tolerance: 1e-14,
        straight_rays: false,
    };
    let r = collide(Law::Stronge, &k, u0, 0.4, e, &tiny);
    assert!(
        matches!(r, Err(LawError::IntegrationFailed { .. })),
        "{r:?}"
    );
}

#[test]
fn same_inputs_give_bitwise_identical_results() {
    let mut rng = Rng::new(17);
    for _ in 0..50 {
        let (k, u0, mu, e) = random_collision(&mut rng);
        for law in Law::ALL {
            assert_eq!(run(law, &k, u0, mu, e), run(law, &k, u0, mu, e));
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The `impulse-laws` experiment

#[test]
fn impact_angle_sweep_separates_the_laws_only_where_the_slip_stops() {
    use signorini::experiments::impulse::{angle_sweep, rod, sphere};
    let angles: Vec<f64> = (-80..=80).step_by(5).map(f64::from).collect();
    let (mu, e) = (0.5, 0.9);
    let rod = rod(45.0).unwrap();
    let runs = angle_sweep(&rod, &Law::ALL, mu, e, &angles).unwrap();
    let at = |law: Law, phi: f64| {
        runs.iter()
            .find(|r| r.law == law && r.angle_deg == phi)
            .unwrap()
    };
    let mut newton_gain = f64::MIN;
    for &phi in &angles {
        let [n, p, s] = [
            at(Law::Newton, phi),
            at(Law::Poisson, phi),
            at(Law::Stronge, phi),
        ];
        assert!(
            s.energy_ratio < 0.0,
            "φ = {phi}: Stronge ΔT/T0 = {}",
            s.energy_ratio
        );
        assert!((n.kinematic - e).abs() < 1e-12 && (p.kinetic - e).abs() < 1e-12);
        assert!(
            (s.energetic - e).abs() < 1e-12,
            "φ = {phi}: {}",
            s.energetic
        );
        newton_gain = newton_gain.max(n.energy_ratio);
        // Sliding throughout (planar: one slip direction) keeps u_n linear in P_n, and the three
        // restitution hypotheses coincide; they part only where the slip stops.
        if s.stick == "none" {
            for other in [n, p] {
                assert!((other.impulse - s.impulse).length() < 1e-13, "φ = {phi}");
            }
        }
    }
    // Slip reversal (φ = 30°–35°): Newton's law gains energy even with e = 0.9.
    assert!(newton_gain > 0.0, "largest Newton ΔT/T0 {newton_gain}");
    // The sphere: every law alike at every angle.
    let sphere = sphere().unwrap();
    let runs = angle_sweep(&sphere, &Law::ALL, mu, e, &angles).unwrap();
    for r in &runs {
        let s = runs
            .iter()
            .find(|x| x.law == Law::Stronge && x.angle_deg == r.angle_deg)
            .unwrap();
        assert!((r.impulse - s.impulse).length() < 1e-13, "{r:?}");
    }
    assert!(angle_sweep(&sphere, &[Law::Stronge], mu, e, &[90.0]).is_err());
}
