//! Energy-based adaptive time steps (`pipeline::adaptive`, Deguet et al. 1998 §4.2): the rule
//! (halve while the energy balance error exceeds the tolerance, grow by 3/2 after a step within
//! it), every accepted step within the tolerance, the run landing exactly on its duration, the
//! work accounting for applied forces, determinism, and the refusal of velocity-level models.
use signorini::dynamics::{AdaptiveSettings, ScheduledForce};
use signorini::experiments::simulate;
use signorini::pipeline::adaptive::{AdaptiveStepper, Stepper};
use signorini::pipeline::Workspace;
use signorini::scene::{self, Scene};
use signorini::DVec3;
use std::path::PathBuf;

fn example(name: &str) -> Scene {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples")
        .join(name);
    scene::load(&path).unwrap_or_else(|e| panic!("{e}"))
}

/// Steps of a whole run of `scene` with its adaptive settings, and the final stepper.
fn steps(scene: &Scene) -> (Vec<f64>, Stepper) {
    let (mut cm, _) = scene.contact_model(None).unwrap();
    let mut stepper = Stepper::new(&scene.model, &cm).unwrap();
    let (mut state, mut ws) = (scene.initial.clone(), Workspace::new());
    let mut hs = Vec::new();
    while !stepper.finished(&scene.model, &state) {
        let r = stepper
            .step(&scene.model, &mut state, &mut ws, &mut cm)
            .unwrap_or_else(|e| panic!("{e}"));
        hs.push(r.time_step);
    }
    (hs, stepper)
}

/// Free flight under gravity: RK4 integrates the parabola exactly, so every attempt passes and
/// the step grows by exactly 3/2 from `time_step` until it reaches `max_time_step`; the last step
/// is clipped so that the run ends on its duration (to 1e-12 of it).
#[test]
fn free_flight_grows_the_step_by_three_halves_up_to_the_largest() {
    let mut scene = example("bounce.toml");
    let ball = scene.model.body_index("ball").unwrap();
    scene.initial.bodies[ball].position.z = 100.0; // no contact within the duration
    scene.model.settings.duration = 0.3;
    let (hs, stepper) = steps(&scene);
    let a = scene.model.settings.adaptive.unwrap();
    let mut expected = scene.model.settings.time_step;
    for (i, &h) in hs.iter().enumerate().take(hs.len() - 1) {
        assert_eq!(h, expected, "step {i}");
        expected = (1.5 * expected).min(a.max_time_step);
    }
    let total: f64 = hs.iter().sum();
    assert!((total - 0.3).abs() <= 1e-12 * 0.3, "{total}");
    let stats = stepper.adaptive_stats().unwrap();
    assert_eq!(stats.rejected, 0);
    assert_eq!(stats.largest, a.max_time_step);
}

/// The bouncing ball: the step shrinks by orders of magnitude in each contact (attempts are
/// rejected), every accepted step meets the energy tolerance (none is forced at h_min), and the
/// histogram counts every step.
#[test]
fn contacts_shrink_the_step_and_every_step_meets_the_tolerance() {
    let scene = example("bounce.toml");
    let (hs, stepper) = steps(&scene);
    let a = scene.model.settings.adaptive.unwrap();
    let stats = stepper.adaptive_stats().unwrap();
    eprintln!("{stats:?}");
    assert!(stats.rejected > 0);
    assert_eq!(stats.forced, 0);
    assert!(stats.max_error <= a.energy_tolerance, "{}", stats.max_error);
    assert!(
        stats.smallest < 1e-3 * a.max_time_step,
        "{}",
        stats.smallest
    );
    assert_eq!(stats.accepted as usize, hs.len());
    assert_eq!(
        stats.histogram.iter().map(|(_, n)| n).sum::<u64>(),
        stats.accepted
    );
    assert!((stats.mean() - scene.model.settings.duration / hs.len() as f64).abs() < 1e-15);
}

/// Deguet's rule for external forces: the work of an applied force is subtracted before judging
/// the energy change. A constant 50 N push on the ball in free flight (no contact) changes E_m by
/// exactly the work RK4's quadrature of the power computes, so no attempt is rejected; without
/// that accounting the first step would change E_m by F·Δx ≈ 50 N × 4.6 mm ≫ 1e-6 J.
#[test]
fn work_of_applied_forces_is_not_an_error() {
    let mut scene = example("bounce.toml");
    let ball = scene.model.body_index("ball").unwrap();
    scene.initial.bodies[ball].position.z = 100.0;
    scene.model.settings.duration = 0.2;
    scene.model.forces.push(ScheduledForce {
        body: ball,
        force: DVec3::new(50.0, 0.0, 0.0),
        torque: DVec3::ZERO,
        point: None,
        start: 0.0,
        end: f64::INFINITY,
    });
    let (_, stepper) = steps(&scene);
    assert_eq!(stepper.adaptive_stats().unwrap().rejected, 0);
}

/// Same scene twice: the same steps and bit-identical final states.
#[test]
fn adaptive_runs_are_deterministic() {
    let scene = example("bounce.toml");
    let a = simulate(&scene, None, |_, _| {}).unwrap();
    let b = simulate(&scene, None, |_, _| {}).unwrap();
    assert_eq!(a, b);
}

/// A velocity-level model poses its LCP for one fixed h: adaptive steps are refused with a reason.
#[test]
fn velocity_level_models_refuse_adaptive_steps() {
    let scene = example("bounce.toml");
    let (cm, _) = scene.contact_model(Some("stewart-trinkle")).unwrap();
    let err = Stepper::new(&scene.model, &cm).err().expect("refused");
    assert!(err.to_string().contains("velocity-level"), "{err}");
    let bad = AdaptiveSettings {
        energy_tolerance: 0.0,
        min_time_step: 1e-6,
        max_time_step: 1e-3,
    };
    let (cm, _) = scene.contact_model(None).unwrap();
    assert!(AdaptiveStepper::new(bad, 1e-3, &cm).is_err());
}

/// Semi-implicit Euler takes the trapezoid of the power (forces evaluated again at the end
/// state): the adaptive bounce under it rejects attempts in contact, keeps every accepted step
/// within the tolerance, and the ball still rebounds at e = 0.6 within the 2 % (measured:
/// first impact 0.5997). Its free flight is not exact (energy error ½ m g² h² per step), so its
/// steps stay below 4e-4 s where RK4's reach the largest.
#[test]
fn semi_implicit_euler_steps_adapt_too() {
    use signorini::dynamics::Integrator;
    use signorini::experiments::penalty::bounce;
    let mut scene = example("bounce.toml");
    scene.model.settings.integrator = Integrator::SemiImplicitEuler;
    let (_, stepper) = steps(&scene);
    let stats = stepper.adaptive_stats().unwrap();
    let tol = scene.model.settings.adaptive.unwrap().energy_tolerance;
    eprintln!("{stats:?}");
    assert!(stats.rejected > 0 && stats.forced == 0 && stats.max_error <= tol);
    let run = bounce(&scene, 0.1, 0.6, "exact", 0.5).unwrap();
    eprintln!("{:?}", run.impacts);
    assert!((run.impacts[0].restitution() - 0.6).abs() < 0.02 * 0.6);
}
