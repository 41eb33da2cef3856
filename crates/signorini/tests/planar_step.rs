//! The planar step (`planar/step.rs`): free flight under semi-implicit Euler against its exact
//! discrete solution, a spinning body's energy and momenta, determinism, and the state checks.
use signorini::contact::ParamInput;
use signorini::planar::shape::ConvexPolygon;
use signorini::planar::{
    build, MassSpec, Material, PlanarBody, PlanarBodyState, PlanarModel, PlanarSettings,
    PlanarShape, PlanarState, PlanarStepError, PlanarWorld,
};
use signorini::DVec2;

fn world(
    bodies: Vec<(PlanarBody, PlanarBodyState)>,
    settings: PlanarSettings,
    model: &str,
) -> PlanarWorld {
    let (bodies, states): (Vec<_>, Vec<_>) = bodies.into_iter().unzip();
    let model_ = PlanarModel {
        bodies,
        materials: vec![Material {
            name: "default".into(),
            friction: 0.5,
            restitution: 0.0,
        }],
        settings,
    };
    let cm = build(model, &[] as &[(String, ParamInput)]).unwrap();
    PlanarWorld::new(
        model_,
        PlanarState {
            time: 0.0,
            bodies: states,
        },
        cm,
    )
}

fn box_body(name: &str, w: f64, h: f64, m: f64) -> PlanarBody {
    PlanarBody::dynamic(
        name,
        PlanarShape::Polygon(ConvexPolygon::rectangle(w, h).unwrap()),
        MassSpec::Mass(m),
        0,
    )
    .unwrap()
}

/// Semi-implicit Euler under constant gravity has the exact discrete solution
/// v_n = v₀ + n h g, x_n = x₀ + n h v₀ + h² g n(n+1)/2 (the parabola plus −g h t/2), and
/// θ_n = θ₀ + n h ω. The state after 1000 steps matches it to rounding: each step adds O(ε |x|),
/// so 1e-12 m over 1000 steps of |x| ≤ 10 m holds with a factor of ~10 to spare.
#[test]
fn free_flight_is_the_discrete_parabola_of_semi_implicit_euler() {
    for model in ["stewart-trinkle", "anitescu-potra", "deepest-point"] {
        let s = PlanarSettings {
            time_step: 1e-3,
            duration: 1.0,
            ..PlanarSettings::default()
        };
        let g = s.gravity;
        let (x0, v0, th0, om) = (DVec2::new(0.5, 2.0), DVec2::new(1.5, 4.0), 0.2, 3.0);
        let st = PlanarBodyState {
            position: x0,
            angle: th0,
            velocity: v0,
            angular_velocity: om,
        };
        let mut w = world(vec![(box_body("b", 0.2, 0.1, 1.0), st)], s, model);
        let n = 1000;
        for _ in 0..n {
            w.step().unwrap();
        }
        let (h, nf) = (1e-3, n as f64);
        let b = &w.state.bodies[0];
        let v = v0 + nf * h * g;
        let x = x0 + nf * h * v0 + h * h * g * nf * (nf + 1.0) / 2.0;
        assert!(
            (b.velocity - v).length() < 1e-12,
            "{model}: {:?} vs {v:?}",
            b.velocity
        );
        assert!(
            (b.position - x).length() < 1e-12,
            "{model}: {:?} vs {x:?}",
            b.position
        );
        assert!((b.angle - (th0 + nf * h * om)).abs() < 1e-12);
        assert_eq!(b.angular_velocity, om);
        // Against the continuous parabola: the first-order error −g h t / 2 exactly.
        let t = nf * h;
        let exact = x0 + v0 * t + 0.5 * g * t * t;
        assert!(((b.position - exact) - g * h * t / 2.0).length() < 1e-12);
        assert!((w.state.time - 1.0).abs() < 1e-15);
    }
}

/// Without gravity or contact a spinning, drifting body keeps its kinetic energy and momenta
/// (both exact under semi-implicit Euler with no force; rounding only).
#[test]
fn spinning_body_conserves_energy_and_momenta() {
    let s = PlanarSettings {
        gravity: DVec2::ZERO,
        ..PlanarSettings::default()
    };
    let tri =
        ConvexPolygon::from_points(&[DVec2::ZERO, DVec2::new(0.3, 0.0), DVec2::new(0.05, 0.2)])
            .unwrap();
    let body =
        PlanarBody::dynamic("t", PlanarShape::Polygon(tri), MassSpec::Density(500.0), 0).unwrap();
    let st = PlanarBodyState {
        position: DVec2::new(1.0, -2.0),
        angle: 0.0,
        velocity: DVec2::new(-0.3, 0.7),
        angular_velocity: 25.0,
    };
    let mut w = world(vec![(body, st)], s, "stewart-trinkle");
    let (e0, (p0, l0)) = (w.state.kinetic_energy(&w.model), w.state.momenta(&w.model));
    for _ in 0..2000 {
        w.step().unwrap();
    }
    let (e1, (p1, l1)) = (w.state.kinetic_energy(&w.model), w.state.momenta(&w.model));
    assert!((e1 - e0).abs() <= 1e-14 * e0, "{e0} → {e1}");
    assert!((p1 - p0).length() <= 1e-15);
    assert!((l1 - l0).abs() <= 1e-12 * l0.abs(), "{l0} → {l1}");
}

fn stack(model: &str) -> PlanarWorld {
    let ground = PlanarBody::fixed("ground", PlanarShape::Line { normal: DVec2::Y }, 0);
    let mut bodies = vec![(ground, PlanarBodyState::at_rest(DVec2::ZERO, 0.0))];
    for i in 0..4 {
        let st = PlanarBodyState::at_rest(DVec2::new(0.01 * i as f64, 0.05 + 0.1 * i as f64), 0.0);
        bodies.push((box_body(&format!("box{i}"), 0.3, 0.1, 1.0), st));
    }
    world(
        bodies,
        PlanarSettings {
            duration: 0.5,
            ..PlanarSettings::default()
        },
        model,
    )
}

/// Two runs of the same world give bit-identical states (no hash order, threads or clocks in the
/// physics).
#[test]
fn runs_are_bit_identical() {
    for model in ["stewart-trinkle", "anitescu-potra", "deepest-point"] {
        let (mut a, mut b) = (stack(model), stack(model));
        for _ in 0..300 {
            a.step().unwrap();
            b.step().unwrap();
        }
        for (x, y) in a.state.bodies.iter().zip(&b.state.bodies) {
            assert_eq!(x.position.x.to_bits(), y.position.x.to_bits(), "{model}");
            assert_eq!(x.position.y.to_bits(), y.position.y.to_bits(), "{model}");
            assert_eq!(x.angle.to_bits(), y.angle.to_bits(), "{model}");
            assert_eq!(x.velocity.x.to_bits(), y.velocity.x.to_bits(), "{model}");
            assert_eq!(
                x.angular_velocity.to_bits(),
                y.angular_velocity.to_bits(),
                "{model}"
            );
        }
    }
}

#[test]
fn a_body_faster_than_max_speed_stops_the_run_with_its_name() {
    let s = PlanarSettings {
        max_speed: 5.0,
        ..PlanarSettings::default()
    };
    let st = PlanarBodyState {
        velocity: DVec2::new(0.0, -4.99),
        ..PlanarBodyState::at_rest(DVec2::new(0.0, 100.0), 0.0)
    };
    let mut w = world(
        vec![(box_body("falling", 0.1, 0.1, 1.0), st)],
        s,
        "stewart-trinkle",
    );
    let err = (0..100)
        .find_map(|_| w.step().err())
        .expect("stops within 100 steps");
    assert!(matches!(err, PlanarStepError::TooFast { .. }), "{err}");
    assert!(err.to_string().contains("`falling`"), "{err}");
}
