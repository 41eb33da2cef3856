//! The Hunt–Crossley model (`contact::hunt_crossley`): the damping law against its closed form, the
//! bounce of `examples/bounce.toml` against the restitution it was given (issue floor: within 2 %
//! for e = 0.3, 0.6, 0.9), Deguet's eq. 5 against what it actually gives for a linear spring, and
//! a force that never pulls.
use signorini::contact::hunt_crossley::{exact_zeta, DampingLaw};
use signorini::experiments::penalty::bounce;
use signorini::scene::{self, Scene};
use std::path::PathBuf;

fn example(name: &str) -> Scene {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples")
        .join(name);
    scene::load(&path).unwrap_or_else(|e| panic!("{e}"))
}

/// ζ is the root of f(ζ) = ln((1 + ζ)/(1 − eζ)) − ζ(1 + e) to machine precision: f changes sign
/// between ζ(1 − 1e-12) and ζ(1 + 1e-12) (a residual test would be swamped by the conditioning of
/// ln(1 − eζ) near e → 0), and ζ falls from ∞ towards 0 as e goes from 0 to 1. Below e ≈ 0.03 the
/// root's 1 − eζ = (1 + ζ) e^(−ζ(1+e)) is under one ulp of 1: there ζ is 1/e to machine precision
/// and the residual cannot be evaluated, so only eζ ≤ 1 is checked.
#[test]
fn exact_zeta_solves_the_rebound_condition() {
    let mut previous = f64::INFINITY;
    for k in 1..=100 {
        let e = k as f64 / 100.0;
        let z = exact_zeta(e);
        assert!(
            e * z <= 1.0,
            "the exit speed e v_i must not exceed 1/c: e = {e}, zeta {z}"
        );
        assert!(
            z < previous,
            "zeta must decrease with e: e = {e}, {z} after {previous}"
        );
        previous = z;
        if e < 0.05 {
            assert!((e * z - 1.0).abs() < 1e-9, "e = {e}: zeta {z}");
            continue;
        }
        let f = |z: f64| ((1.0 + z) / (1.0 - e * z)).ln() - z * (1.0 + e);
        let (below, above) = (f(z * (1.0 - 1e-12)), f(z * (1.0 + 1e-12)));
        assert!(
            below <= 0.0 && above >= 0.0,
            "e = {e}: zeta {z}, f {below:e} .. {above:e}"
        );
    }
    assert_eq!(exact_zeta(1.0), 0.0);
}

/// The rebound of a linear Hunt–Crossley contact m ẍ = −λx(1 + cẋ), entered at v_i, is e_out v_i
/// with ζ = c v_i and ζ(1 + e_out) = ln((1 + ζ)/(1 − e_out ζ)); solving that for e_out (bisection
/// on (0, 1), where the left side minus the right changes sign once) predicts what Deguet's
/// eq. 5 (ζ = 1.5 (1 − e)) really gives.
fn rebound_for_zeta(z: f64) -> f64 {
    let f = |e: f64| z * (1.0 + e) - ((1.0 + z) / (1.0 - e * z)).ln();
    let (mut lo, mut hi) = (0.0f64, (1.0 / z).min(1.0));
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if f(mid) > 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

const RESTITUTIONS: [f64; 3] = [0.3, 0.6, 0.9];

/// Issue 5 floor: the measured coefficient of restitution within 2 % of e for each e. The scene
/// uses RK4 with Deguet's adaptive steps (energy tolerance 1e-6 J per step) and λ = 1e8 N/m per kg,
/// so the contact lasts ~0.3 ms; gravity acting during it changes the rebound by g t_c / v ≈ 0.07 %.
/// What is left of the 2 % is integration error. Measured: within 0.1 % (docs/penalty.md).
#[test]
fn bounce_restitution_is_within_2_percent_of_e() {
    let scene = example("bounce.toml");
    for e in RESTITUTIONS {
        let run = bounce(&scene, 0.1, e, "exact", 0.5).unwrap_or_else(|err| panic!("{err}"));
        eprintln!("{run:?}");
        assert!(
            run.impacts.len() >= 2,
            "e = {e}: {} impacts",
            run.impacts.len()
        );
        for i in &run.impacts {
            let measured = i.restitution();
            assert!(
                (measured - e).abs() <= 0.02 * e,
                "e = {e}: measured {measured} for {i:?}"
            );
        }
    }
}

/// Deguet's eq. 5 (μ = 3/2 α λ, α = (1 − e)/v_i) was derived by Hunt and Crossley for e near 1;
/// with this linear spring it rebounds at rebound_for_zeta(1.5 (1 − e)): 0.581 instead of 0.3,
/// 0.712 instead of 0.6, 0.909 instead of 0.9. The simulation agrees with that prediction to
/// 0.5 % (the same integration budget as above), which is why `damping = "exact"` is the default.
#[test]
fn deguet_eq5_damping_rebounds_as_the_closed_form_predicts() {
    let scene = example("bounce.toml");
    for e in RESTITUTIONS {
        let predicted = rebound_for_zeta(DampingLaw::HuntCrossley.zeta(e));
        let run =
            bounce(&scene, 0.1, e, "hunt-crossley", 0.5).unwrap_or_else(|err| panic!("{err}"));
        let first = run.impacts[0].restitution();
        eprintln!("e = {e}: eq. 5 predicts {predicted:.4}, measured {first:.4}");
        assert!(
            (first - predicted).abs() <= 0.005 * predicted,
            "e = {e}: {first} vs {predicted}"
        );
        assert!(predicted > e, "eq. 5 under-damps a linear spring");
    }
}

/// e = 1: no damping, the ball comes back at its impact speed (energy conserved through the
/// contact, to the integrator's tolerance: 1e-6 J of 9.8 J per step).
#[test]
fn elastic_bounce_keeps_its_speed() {
    let run = bounce(&example("bounce.toml"), 0.1, 1.0, "exact", 0.5).unwrap();
    for i in &run.impacts {
        assert!((i.restitution() - 1.0).abs() < 1e-3, "{i:?}");
    }
    assert!(run.impacts.len() >= 2);
}

/// A pair that came in at 1 m/s and now separates at 50 m/s, faster than 1/c: λx(1 + cẋ) would be
/// negative; the model applies nothing. Approaching at the same depth, it pushes B along +n.
#[test]
fn force_never_pulls() {
    use signorini::collision::Contact;
    use signorini::dynamics::Wrench;
    use signorini::geometry::Feature;
    use signorini::DVec3;
    let scene = example("bounce.toml");
    let (mut model, _) = scene.contact_model(None).unwrap();
    let mut state = scene.initial.clone();
    let ball = scene.model.body_index("ball").unwrap();
    let ground = scene.model.body_index("ground").unwrap();
    let contact = Contact {
        body_a: ground,
        body_b: ball,
        piece_a: 0,
        piece_b: 0,
        point_a: DVec3::ZERO,
        point_b: DVec3::new(0.0, 0.0, -1e-6),
        normal: DVec3::Z,
        gap: -1e-6,
        feature_a: Feature::Surface,
        feature_b: Feature::Surface,
    };
    // Touching at 1 m/s: the pair's impact speed is recorded (1 µm deep: ≈ 1 m/s).
    state.bodies[ball].position.z = 0.1 - 1e-6;
    state.bodies[ball].velocity = DVec3::new(0.0, 0.0, -1.0);
    model.end_step(&scene.model, &state, &[contact]);
    let force = |model: &mut signorini::contact::ContactModel,
                 state: &signorini::dynamics::State| {
        let mut out = vec![Wrench::default(); 2];
        let stats = model
            .forces_at(&scene.model, state, &[contact], 1e-4, &mut out)
            .expect("a force model")
            .unwrap();
        (stats.active_points, out[ball].force, out[ground].force)
    };
    state.bodies[ball].velocity = DVec3::new(0.0, 0.0, 50.0);
    let (active, on_ball, _) = force(&mut model, &state);
    assert_eq!((active, on_ball), (0, DVec3::ZERO));
    state.bodies[ball].velocity = DVec3::new(0.0, 0.0, -1.0);
    let (active, on_ball, on_ground) = force(&mut model, &state);
    assert_eq!(active, 1);
    assert!(
        on_ball.z > 0.0 && on_ground.z < 0.0,
        "{on_ball} {on_ground}"
    );
}

/// A restitution above 1 is refused when the model is built.
#[test]
fn restitution_above_one_is_an_error() {
    let err = signorini::contact::build(
        "hunt-crossley",
        &[(
            "restitution".into(),
            signorini::contact::ParamInput::Number(1.5),
        )],
    )
    .err()
    .expect("refused");
    assert!(err.to_string().contains("restitution"), "{err}");
}

/// Volume mode (Deguet §3.3): a 0.2 m cube dropped flat presses a face of area A into the ground,
/// V = A d, so the force is the depth model's with λ = λ_V A and the exact law gives e back; the
/// issue's 2 % holds for e = 0.3, 0.6, 0.9 (the default λ_V = λ/L² with L = 0.2 m the cube's side
/// makes λ_V A = λ). Measured within 0.1 %.
#[test]
fn volume_mode_bounce_of_a_flat_cube_has_restitution_e() {
    use signorini::contact::ParamInput;
    use signorini::geometry::Shape;
    use signorini::DVec3;
    let mut scene = example("bounce.toml");
    let ball = scene.model.body_index("ball").unwrap();
    scene.model.bodies[ball].pieces[0].shape = Shape::cuboid(DVec3::splat(0.2)).unwrap();
    scene.set_param("penetration", ParamInput::Word("volume".into()), "test");
    for e in RESTITUTIONS {
        let run = bounce(&scene, 0.1, e, "exact", 0.5).unwrap_or_else(|err| panic!("{err}"));
        eprintln!("{run:?}");
        assert!(run.impacts.len() >= 2, "e = {e}");
        for i in &run.impacts {
            assert!((i.restitution() - e).abs() <= 0.02 * e, "e = {e}: {i:?}");
        }
    }
}
