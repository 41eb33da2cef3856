//! A deformable world's settings and steps (`deformable::world`, `deformable::integrate`): bad
//! settings, bad steps and a step too long for the stiffest connector give a clear error, never
//! a panic or a silent NaN (issue 19 (e)).
use signorini::deformable::{
    add_box, AdaptiveDeformable, BoxSpec, DeformableError, DeformableIntegrator,
    DeformableMaterial, Integrator, Plane, World, WorldSettings,
};
use signorini::dynamics::AdaptiveSettings;
use signorini::DVec3;

fn world() -> World {
    let mut w = World::new(WorldSettings::default());
    w.planes.push(Plane::ground(-1.0));
    let spec = BoxSpec {
        name: "cube".into(),
        size: DVec3::splat(0.1),
        divisions: [2, 2, 2],
        position: DVec3::ZERO,
        velocity: DVec3::ZERO,
        material: DeformableMaterial::default(),
        clamp: None,
        tip_load: DVec3::ZERO,
    };
    add_box(&mut w, &spec).unwrap();
    w
}

fn invalid(r: Result<f64, DeformableError>, field: &str) {
    match r {
        Err(DeformableError::Invalid(msg)) => {
            assert!(msg.contains(field), "`{msg}` should name {field}")
        }
        other => panic!("{field}: expected an error, got {other:?}"),
    }
}

#[test]
fn bad_settings_are_refused_before_any_motion() {
    let cases: Vec<(&str, Box<dyn Fn(&mut World)>)> = vec![
        ("gravity", Box::new(|w| w.settings.gravity.z = f64::NAN)),
        ("drag", Box::new(|w| w.settings.drag = -1.0)),
        (
            "contact.stiffness",
            Box::new(|w| w.settings.contact.stiffness = 0.0),
        ),
        (
            "contact.stiffness",
            Box::new(|w| w.settings.contact.stiffness = f64::INFINITY),
        ),
        (
            "contact.damping",
            Box::new(|w| w.settings.contact.damping = -1.0),
        ),
        (
            "contact.friction",
            Box::new(|w| w.settings.contact.friction = f64::NAN),
        ),
        (
            "contact.slip_speed",
            Box::new(|w| w.settings.contact.slip_speed = 0.0),
        ),
        (
            "plane 0",
            Box::new(|w| w.planes[0].normal = DVec3::new(0.0, 0.0, 2.0)),
        ),
        ("plane 0", Box::new(|w| w.planes[0].offset = f64::NAN)),
    ];
    for (field, spoil) in cases {
        let mut w = world();
        spoil(&mut w);
        let before = w.x.clone();
        invalid(
            Integrator::default().step(&mut w, DeformableIntegrator::Verlet, 1e-5, false),
            field,
        );
        assert_eq!(w.x, before, "{field}: the world moved");
    }
}

#[test]
fn bad_steps_are_refused() {
    for h in [0.0, -1e-5, f64::NAN, f64::INFINITY] {
        let mut w = world();
        invalid(
            Integrator::default().step(&mut w, DeformableIntegrator::Taylor, h, false),
            "time step",
        );
    }
    let bad = AdaptiveSettings {
        energy_tolerance: 1e-6,
        min_time_step: 1e-3,
        max_time_step: 1e-4,
    };
    assert!(matches!(
        AdaptiveDeformable::new(bad, DeformableIntegrator::Taylor, 1e-4),
        Err(DeformableError::Settings(_))
    ));
    let ok = AdaptiveSettings {
        energy_tolerance: 1e-6,
        min_time_step: 1e-7,
        max_time_step: 1e-4,
    };
    let mut a = AdaptiveDeformable::new(ok, DeformableIntegrator::Taylor, 1e-4).unwrap();
    let mut w = world();
    assert!(matches!(
        a.step(&mut w, f64::NAN),
        Err(DeformableError::Invalid(_))
    ));
    assert!(matches!(
        a.step(&mut w, 0.0),
        Err(DeformableError::Invalid(_))
    ));
}

/// A step far beyond the stable 2/ω_max blows up; the run stops with a diagnosis naming the
/// particle, the step and the estimated stable step, instead of carrying NaNs on.
#[test]
fn a_step_too_long_is_diagnosed() {
    let mut w = world();
    w.v[0] = DVec3::new(0.1, 0.0, 0.0);
    let stable = 2.0 / w.max_frequency();
    let mut it = Integrator::default();
    let mut failure = None;
    for _ in 0..10_000 {
        if let Err(e) = it.step(
            &mut w,
            DeformableIntegrator::SymplecticEuler,
            20.0 * stable,
            false,
        ) {
            failure = Some(e);
            break;
        }
    }
    match failure {
        Some(e @ DeformableError::Diverged { .. }) => {
            let msg = e.to_string();
            assert!(
                msg.contains("time step") && msg.contains("stable step"),
                "{msg}"
            );
        }
        other => panic!("expected a divergence diagnosis, got {other:?}"),
    }
}
