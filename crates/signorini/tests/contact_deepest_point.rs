//! The deepest-point penalty model's integral term (Drumwright 2008 eqs. 2–3): the forgetting sum
//! against its closed form, its reset when a pair separates, and the resting depth it gives
//! against the static balance k_p d + k_i d/(1 − φ) = m g.
use signorini::collision::Contact;
use signorini::contact::penalty::{pair_key, IntegralMemory};
use signorini::contact::ParamInput;
use signorini::experiments::simulate;
use signorini::geometry::Feature;
use signorini::scene::{self, Scene};
use signorini::DVec3;
use std::path::PathBuf;

fn example(name: &str) -> Scene {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples")
        .join(name);
    scene::load(&path).unwrap_or_else(|e| panic!("{e}"))
}

fn contact(body_b: usize, gap: f64) -> Contact {
    Contact {
        body_a: 0,
        body_b,
        piece_a: 0,
        piece_b: 0,
        point_a: DVec3::ZERO,
        point_b: DVec3::new(0.0, 0.0, gap),
        normal: DVec3::Z,
        gap,
        feature_a: Feature::Surface,
        feature_b: Feature::Surface,
    }
}

/// Eq. 2 at a constant depth d: I_N = d (1 − φ^N)/(1 − φ) after N steps, per pair, using the
/// pair's largest depth; a pair that stops penetrating is forgotten (I = 0 when it comes back).
#[test]
fn integral_term_is_the_forgetting_sum_and_resets_on_separation() {
    let (phi, d) = (0.85, 2e-3);
    let mut mem = IntegralMemory::default();
    let both = [contact(1, -d), contact(1, -0.5 * d), contact(2, -2.0 * d)];
    for n in 1..=40 {
        mem.advance(phi, &both);
        let expect = d * (1.0 - phi.powi(n)) / (1.0 - phi);
        let got = mem.get(pair_key(&both[0]));
        assert!(
            (got - expect).abs() <= 1e-15 * expect * n as f64,
            "n = {n}: {got} vs {expect}"
        );
        assert!((mem.get(pair_key(&both[2])) - 2.0 * got).abs() <= 1e-15 * got * n as f64);
    }
    // Pair 1 separates (a contact with a positive gap is not penetration); pair 2 stays.
    mem.advance(phi, &[contact(1, 1e-4), contact(2, -2.0 * d)]);
    assert_eq!(mem.get(pair_key(&both[0])), 0.0);
    assert!(mem.get(pair_key(&both[2])) > 0.0);
    mem.advance(phi, &[contact(1, -d)]);
    assert_eq!(mem.get(pair_key(&both[0])), d);
}

/// A ball resting on the plane under the PID method settles where the spring, the integral term
/// and gravity balance: I → d/(1 − φ), so k_p d + k_i d/(1 − φ) = m g. With k_p = 600 N/m,
/// k_i = 60 N/m, φ = 0.85 and 1 kg: d = 9.81/1000 m, against 9.81/600 without the integral term.
/// The spring–damper is critically damped (ω = 24.5 rad/s, ζ = 1.02), so 10 s are ~250 time
/// constants: the depth agrees with the balance to 1e-6 relative.
#[test]
fn integral_term_reduces_the_resting_depth_to_the_static_balance() {
    let mut scene = example("bounce.toml");
    scene.model.settings.adaptive = None;
    scene.model.settings.duration = 10.0;
    let ball = scene.model.body_index("ball").unwrap();
    scene.initial.bodies[ball].position.z = 0.1;
    for (name, value) in [("kp", 600.0), ("kv", 50.0), ("ki", 60.0)] {
        scene.set_param(name, ParamInput::Number(value), "test");
    }
    let end = simulate(&scene, Some("deepest-point"), |_, _| {}).unwrap();
    let depth = 0.1 - end.bodies[ball].position.z;
    let expect = 9.81 / (600.0 + 60.0 / (1.0 - 0.85));
    assert!(
        (depth - expect).abs() < 1e-6 * expect,
        "{depth} vs {expect}"
    );
}

/// φ must be in [0, 1): the sum would otherwise grow without bound.
#[test]
fn forgetting_factor_of_one_is_refused() {
    let err = signorini::contact::build(
        "deepest-point",
        &[("forgetting".into(), ParamInput::Number(1.0))],
    )
    .err()
    .expect("refused");
    assert!(err.to_string().contains("[0, 1)"), "{err}");
}
