//! The planar contact models (`planar/models/`) against analytic solutions: a block on an
//! incline (sticks below the friction angle, slides at a = g(sin α − μ cos α) above it), a
//! resting stack of boxes, a disk rolling off a segment's end, the penalty spring's static
//! sag.
use signorini::contact::ParamInput;
use signorini::planar::shape::ConvexPolygon;
use signorini::planar::{
    build, MassSpec, Material, PlanarBody, PlanarBodyState, PlanarModel, PlanarSettings,
    PlanarShape, PlanarState, PlanarWorld,
};
use signorini::DVec2;

const G: f64 = 9.81;

fn world(
    bodies: Vec<(PlanarBody, PlanarBodyState)>,
    friction: f64,
    settings: PlanarSettings,
    model: &str,
) -> PlanarWorld {
    let (bodies, states): (Vec<_>, Vec<_>) = bodies.into_iter().unzip();
    let m = PlanarModel {
        bodies,
        materials: vec![Material {
            name: "default".into(),
            friction,
            restitution: 0.0,
        }],
        settings,
    };
    let cm = build(model, &[] as &[(String, ParamInput)]).unwrap();
    PlanarWorld::new(
        m,
        PlanarState {
            time: 0.0,
            bodies: states,
        },
        cm,
    )
}

fn box_body(name: &str, w: f64, h: f64, m: f64) -> PlanarBody {
    let shape = PlanarShape::Polygon(ConvexPolygon::rectangle(w, h).unwrap());
    PlanarBody::dynamic(name, shape, MassSpec::Mass(m), 0).unwrap()
}

/// A 0.4 × 0.1 m block resting on the line through the origin at angle α (a fixed half-plane).
fn incline(alpha: f64, mu: f64, model: &str) -> PlanarWorld {
    let ramp = PlanarBody::fixed("ramp", PlanarShape::Line { normal: DVec2::Y }, 0);
    let n = DVec2::new(-alpha.sin(), alpha.cos());
    let block = PlanarBodyState::at_rest(0.05 * n, alpha);
    world(
        vec![
            (ramp, PlanarBodyState::at_rest(DVec2::ZERO, alpha)),
            (box_body("block", 0.4, 0.1, 2.0), block),
        ],
        mu,
        PlanarSettings {
            duration: 1.0,
            ..PlanarSettings::default()
        },
        model,
    )
}

/// Speed down the slope and displacement along it.
fn along_slope(w: &PlanarWorld, alpha: f64) -> (f64, f64) {
    let down = DVec2::new(-alpha.cos(), -alpha.sin());
    let b = &w.state.bodies[1];
    (b.velocity.dot(down), b.position.dot(down))
}

#[test]
fn block_slides_down_an_incline_at_g_sin_minus_mu_cos() {
    let alpha = 30f64.to_radians();
    let mu = 0.2;
    let expected = G * (alpha.sin() - mu * alpha.cos());
    for model in ["stewart-trinkle", "anitescu-potra"] {
        let mut w = incline(alpha, mu, model);
        let mut v = Vec::new();
        for k in 1..=1000 {
            w.step().unwrap();
            if k == 200 || k == 1000 {
                v.push(along_slope(&w, alpha).0);
            }
        }
        let a = (v[1] - v[0]) / 0.8;
        println!(
            "{model}: a = {a} (expected {expected}), rel {:e}",
            (a - expected).abs() / expected
        );
        // The friction cone is exact in 2D and the LCP is solved to a residual of 1e-8 of
        // ‖q‖ ≈ g h, so each step's velocity change is exact to ~1e-10 m/s: over 800 steps the
        // measured acceleration is exact to ~1e-7 relative.
        assert!(
            (a - expected).abs() < 1e-6 * expected,
            "{model}: a = {a}, expected {expected}"
        );
        let pen = w.contacts(0.0).iter().map(|c| -c.gap).fold(0.0, f64::max);
        assert!(pen < 1e-9, "{model}: penetration {pen}");
    }
}

#[test]
fn block_sticks_on_an_incline_below_the_friction_angle() {
    let alpha = 30f64.to_radians();
    for model in ["stewart-trinkle", "anitescu-potra"] {
        let mut w = incline(alpha, 0.7, model); // tan 30° = 0.577 < 0.7
        let (_, x0) = along_slope(&w, alpha);
        for _ in 0..1000 {
            w.step().unwrap();
        }
        let (v, x) = along_slope(&w, alpha);
        println!("{model}: stick drift {:e} m, v {:e}", x - x0, v);
        assert!((x - x0).abs() < 1e-9, "{model}: slid {} m", x - x0);
        assert!(v.abs() < 1e-9, "{model}: v = {v}");
    }
}

#[test]
fn resting_stack_of_four_boxes_holds() {
    for model in ["stewart-trinkle", "anitescu-potra"] {
        let ground = PlanarBody::fixed("ground", PlanarShape::Line { normal: DVec2::Y }, 0);
        let mut bodies = vec![(ground, PlanarBodyState::at_rest(DVec2::ZERO, 0.0))];
        for i in 0..4 {
            let st = PlanarBodyState::at_rest(DVec2::new(0.0, 0.05 + 0.1 * i as f64), 0.0);
            bodies.push((box_body(&format!("box{i}"), 0.3, 0.1, 1.0), st));
        }
        let mut w = world(
            bodies,
            0.5,
            PlanarSettings {
                duration: 2.0,
                ..PlanarSettings::default()
            },
            model,
        );
        let start: Vec<DVec2> = w.state.bodies.iter().map(|b| b.position).collect();
        let mut worst_pen: f64 = 0.0;
        for _ in 0..2000 {
            let r = w.step().unwrap();
            worst_pen = worst_pen.max(r.max_penetration);
        }
        let drift = w
            .state
            .bodies
            .iter()
            .zip(&start)
            .map(|(b, s)| (b.position - *s).length())
            .fold(0.0, f64::max);
        let spin = w
            .state
            .bodies
            .iter()
            .map(|b| b.angle.abs())
            .fold(0.0, f64::max);
        println!("{model}: drift {drift:e} m, angle {spin:e}, max penetration {worst_pen:e} m");
        assert!(drift < 1e-9, "{model}: drift {drift}");
        assert!(spin < 1e-9, "{model}: angle {spin}");
        assert!(worst_pen < 1e-9, "{model}: penetration {worst_pen}");
    }
}

#[test]
fn disk_rolls_along_a_segment_and_falls_off_its_end() {
    let r = 0.1;
    let v0 = 2.0;
    let seg = PlanarBody::fixed(
        "table",
        PlanarShape::Segment {
            a: DVec2::new(-1.0, 0.0),
            b: DVec2::new(1.0, 0.0),
        },
        0,
    );
    let disk = PlanarBody::dynamic(
        "disk",
        PlanarShape::Disk { radius: r },
        MassSpec::Mass(1.0),
        0,
    )
    .unwrap();
    // Rolling without slip from the start: ω = −v/r.
    let st = PlanarBodyState {
        velocity: DVec2::new(v0, 0.0),
        angular_velocity: -v0 / r,
        ..PlanarBodyState::at_rest(DVec2::new(0.0, r), 0.0)
    };
    for model in ["stewart-trinkle", "anitescu-potra"] {
        let mut w = world(
            vec![
                (seg.clone(), PlanarBodyState::at_rest(DVec2::ZERO, 0.0)),
                (disk.clone(), st),
            ],
            0.5,
            PlanarSettings {
                duration: 1.0,
                ..PlanarSettings::default()
            },
            model,
        );
        // Until the centre reaches the end (t = 0.5 s), it rolls at v0 on the segment.
        for _ in 0..450 {
            w.step().unwrap();
        }
        let b = w.state.bodies[1];
        println!(
            "{model}: t = 0.45: x {} y {} vx {} w {}",
            b.position.x, b.position.y, b.velocity.x, b.angular_velocity
        );
        assert!(
            (b.position.y - r).abs() < 1e-9,
            "{model}: y = {}",
            b.position.y
        );
        assert!(
            (b.velocity.x - v0).abs() < 1e-9,
            "{model}: vx = {}",
            b.velocity.x
        );
        assert!(
            (b.position.x - 0.9).abs() < 1e-9,
            "{model}: x = {}",
            b.position.x
        );
        // Then it pivots over the end and falls: below the segment by 1 s, with no contact.
        for _ in 450..1000 {
            w.step().unwrap();
        }
        let b = w.state.bodies[1];
        println!(
            "{model}: t = 1: x {} y {} vy {}",
            b.position.x, b.position.y, b.velocity.y
        );
        assert!(b.position.y < -0.5, "{model}: y = {}", b.position.y);
        assert!(b.position.x > 1.0 + r, "{model}: x = {}", b.position.x);
        assert!(w.contacts(0.01).is_empty(), "{model}");
    }
}

/// The penalty spring settles where k_p d = m g: d = g / ω² with the default ω = 0.5/h
/// (critical damping: no overshoot to wait for; after 1 s = 500 periods it is at rest to
/// rounding, so 1e-6 relative is the spring's own accuracy, not a fit).
#[test]
fn penalty_box_sags_by_g_over_omega_squared() {
    let ground = PlanarBody::fixed("ground", PlanarShape::Line { normal: DVec2::Y }, 0);
    let st = PlanarBodyState::at_rest(DVec2::new(0.0, 0.05), 0.0);
    let mut w = world(
        vec![
            (ground, PlanarBodyState::at_rest(DVec2::ZERO, 0.0)),
            (box_body("b", 0.2, 0.1, 3.0), st),
        ],
        0.5,
        PlanarSettings::default(),
        "deepest-point",
    );
    for _ in 0..1000 {
        w.step().unwrap();
    }
    let omega = 0.5 / 1e-3;
    let sag = 0.05 - w.state.bodies[1].position.y;
    println!("sag {sag:e}, expected {:e}", G / (omega * omega));
    assert!(
        (sag - G / (omega * omega)).abs() < 1e-6 * G / (omega * omega),
        "sag {sag}"
    );
    assert!(w.state.bodies[1].angle.abs() < 1e-12);
}

/// Penalty friction on the incline: the sliding block's mean acceleration is g(sin α − μ cos α)
/// (on average the spring carries m g cos α). Not to rounding: a single spring at the weighted
/// point has no damping of rotation about that point, so the sliding block rocks (measured:
/// |θ − α| up to 2e-5 rad, ω up to 1e-2 rad/s), which modulates the normal force and with it
/// the friction; measured over 0.8 s the acceleration is 3.0e-5 relative above the analytic one.
/// The bounds below are those of this rocking, not of the LCP models (exact to ~1e-14).
#[test]
fn penalty_block_slides_and_sticks_on_the_incline() {
    let alpha = 30f64.to_radians();
    let mu = 0.2;
    let expected = G * (alpha.sin() - mu * alpha.cos());
    let mut w = incline(alpha, mu, "deepest-point");
    let mut v = Vec::new();
    let mut rocking: f64 = 0.0;
    for k in 1..=1000 {
        w.step().unwrap();
        rocking = rocking.max((w.state.bodies[1].angle - alpha).abs());
        if k == 200 || k == 1000 {
            v.push(along_slope(&w, alpha).0);
        }
    }
    let a = (v[1] - v[0]) / 0.8;
    println!("penalty: a = {a}, expected {expected}, rocking {rocking:e} rad");
    assert!(rocking < 1e-4, "rocking {rocking} rad");
    assert!((a - expected).abs() < 1e-4 * expected, "a = {a}");
    let mut w = incline(alpha, 0.7, "deepest-point");
    let (_, x0) = along_slope(&w, alpha);
    for _ in 0..1000 {
        w.step().unwrap();
    }
    let (v, x) = along_slope(&w, alpha);
    println!("penalty stick: drift {:e}, v {v:e}", x - x0);
    // Below the friction angle the regularized friction holds the block but lets it creep
    // (measured: 0.88 mm in 1 s, 0.87 mm/s, from the same rocking: the friction stops the spring
    // point's tangential velocity, not the centre of mass's). What is asserted: it sticks to
    // within 0.1 % of the frictionless slide's speed g sin α t = 4.9 m/s. The LCP models hold it
    // to 1e-15 m/s (`block_sticks_on_an_incline_below_the_friction_angle`).
    assert!(v.abs() < 1e-3 * G * alpha.sin() * 1.0, "creeps at {v} m/s");
    assert!(
        (x - x0).abs() < 1e-3 * 0.5 * G * alpha.sin(),
        "slid {} m",
        x - x0
    );
}

/// A pile: 16 random convex polygons (hulls of 10 points within 5–8 cm, seeded) and 4 disks
/// dropped from up to 0.83 m into a box made of a ground line and two fixed wall boxes, 3 s at
/// h = 1 ms. Every step's LCP is solved (no failure), nothing leaves the box, and the pile comes
/// to rest. Overlap: the standard contact model has, per polygon pair, the points of one SAT
/// manifold (reference and incident edge); a vertex of another edge that reaches the other body
/// within the step is not in the problem and enters by up to its approach over one step, |v| h
/// (measured: 1.6 mm at t = 0.306 s, a vertex against an edge of another falling polygon; the
/// PEG paper's standard-model error, which PEG 2D is to remove). The bound asserted is that:
/// the fastest possible approach, √(2 g · 0.83 m) = 4.0 m/s, times h.
#[test]
fn pile_of_random_polygons_and_disks_in_a_box() {
    use signorini::util::rng::Rng;
    for model in ["stewart-trinkle", "anitescu-potra"] {
        let mut rng = Rng::new(7);
        let ground = PlanarBody::fixed("ground", PlanarShape::Line { normal: DVec2::Y }, 0);
        let wall = || PlanarShape::Polygon(ConvexPolygon::rectangle(0.1, 1.0).unwrap());
        let mut bodies = vec![
            (ground, PlanarBodyState::at_rest(DVec2::ZERO, 0.0)),
            (
                PlanarBody::fixed("left", wall(), 0),
                PlanarBodyState::at_rest(DVec2::new(-0.35, 0.5), 0.0),
            ),
            (
                PlanarBody::fixed("right", wall(), 0),
                PlanarBodyState::at_rest(DVec2::new(0.35, 0.5), 0.0),
            ),
        ];
        for i in 0..20 {
            let at = DVec2::new(-0.2 + 0.13 * (i % 4) as f64, 0.15 + 0.17 * (i / 4) as f64);
            let shape = if i % 5 == 4 {
                PlanarShape::Disk {
                    radius: rng.uniform(0.03, 0.06),
                }
            } else {
                let r = rng.uniform(0.05, 0.08);
                let pts: Vec<DVec2> = (0..10)
                    .map(|_| {
                        let a = rng.uniform(0.0, std::f64::consts::TAU);
                        r * rng.next_f64().sqrt() * DVec2::new(a.cos(), a.sin())
                    })
                    .collect();
                PlanarShape::Polygon(ConvexPolygon::from_points(&pts).unwrap())
            };
            let body =
                PlanarBody::dynamic(&format!("p{i}"), shape, MassSpec::Density(500.0), 0).unwrap();
            let st = PlanarBodyState::at_rest(at, rng.uniform(0.0, 6.0));
            bodies.push((body, st));
        }
        let mut w = world(
            bodies,
            0.4,
            PlanarSettings {
                duration: 3.0,
                ..PlanarSettings::default()
            },
            model,
        );
        let mut worst: f64 = 0.0;
        let mut failures = 0;
        for _ in 0..3000 {
            let r = w.step().unwrap();
            worst = worst.max(r.max_penetration);
            failures += r.solve.is_some_and(|s| s.failed) as u32;
        }
        let ke = w.state.kinetic_energy(&w.model);
        let inside = w.state.bodies[3..]
            .iter()
            .all(|b| b.position.x.abs() < 0.3 && b.position.y > 0.0 && b.position.y < 1.0);
        println!("{model}: worst penetration {worst:e} m, final KE {ke:e} J, failures {failures}");
        assert_eq!(failures, 0, "{model}");
        assert!(inside, "{model}: a body left the box");
        assert!(
            worst < (2.0 * G * 0.83f64).sqrt() * 1e-3,
            "{model}: penetration {worst}"
        );
        assert!(ke < 1e-9, "{model}: still moving, KE {ke} J");
    }
}
