//! The impulse loop of the pipeline (`pipeline::impulse`): time-of-impact regression (no
//! tunnelling, impacts found touching), substeps, stage times, determinism, and what adaptive
//! steps refuse.
use signorini::contact::impulse::model::SPEC;
use signorini::contact::{resolve_params, ContactModel, ParamInput};
use signorini::dynamics::AdaptiveSettings;
use signorini::pipeline::adaptive::{AdaptiveError, Stepper};
use signorini::pipeline::{step, StepReport, Workspace};
use signorini::scene::{build, parse_scene, Scene};

fn scene(text: &str) -> Scene {
    build(parse_scene(text, "test.toml").expect("parses")).expect("builds")
}

/// A ball of radius 0.05 m shot down at `speed` m/s from 1.07 m above a fixed 1 cm plate (top at
/// z = 0.005), no gravity, e = 0.8.
fn plate(speed: f64, h: f64, regress: bool) -> Scene {
    scene(&format!(
        r#"
[simulation]
time_step = {h}
duration = {duration}
gravity = [0.0, 0.0, 0.0]
max_speed = 1e5
[contact]
model = "impulse"
loop = "sequential"
time_of_impact = "{toi}"
[[material]]
name = "steel"
friction = 0.2
restitution = 0.8
[[body]]
name = "plate"
fixed = true
material = "steel"
shape = {{ type = "box", size = [1.0, 1.0, 0.01] }}
[[body]]
name = "ball"
material = "steel"
mass = 0.5
shape = {{ type = "sphere", radius = 0.05 }}
position = [0.0, 0.0, 1.07]
velocity = [0.0, 0.0, {v}]
"#,
        // 2.5 m of flight, at least 3 steps, as a whole number of steps (a scene's duration must
        // be one; the run takes the same steps as the rounded count did).
        duration = ((2.5 / speed / h).round().max(3.0)) * h,
        toi = if regress { "regress" } else { "off" },
        v = -speed
    ))
}

/// Run a scene to its end; every step's report and the final state.
fn run(s: &Scene) -> (Vec<StepReport>, signorini::dynamics::State) {
    let (mut cm, _) = s.contact_model(None).unwrap();
    let mut stepper = Stepper::new(&s.model, &cm).unwrap();
    let mut state = s.initial.clone();
    let mut ws = Workspace::new();
    let mut reports = Vec::new();
    while !stepper.finished(&s.model, &state) {
        reports.push(
            stepper
                .step(&s.model, &mut state, &mut ws, &mut cm)
                .unwrap(),
        );
    }
    (reports, state)
}

#[test]
fn a_fast_ball_never_tunnels_through_a_thin_plate_with_time_of_impact_regression() {
    // From 1 m/s to 3 km/s, at steps of 1 ms and 10 ms: up to 30 m per step against a plate of
    // 1 cm and a ball of 10 cm.
    for speed in [1.0, 3.0, 10.0, 30.0, 100.0, 300.0, 1000.0, 3000.0] {
        for h in [1e-3, 1e-2] {
            let s = plate(speed, h, true);
            let (reports, last) = run(&s);
            let ball = &last.bodies[1];
            // Every impact is found before contact (conservative advancement never overshoots):
            // no step ends penetrating.
            let worst = reports
                .iter()
                .map(|r| r.max_penetration)
                .fold(0.0, f64::max);
            assert_eq!(worst, 0.0, "v = {speed} m/s, h = {h} s");
            assert!(
                ball.position.z > 0.055 && ball.velocity.z > 0.0,
                "v = {speed} m/s, h = {h} s: the ball must bounce back up, ends at z = {} moving {}",
                ball.position.z,
                ball.velocity.z
            );
            // It bounced once, with the pair's restitution (frictionless in effect: a head-on
            // impact has no slip), e = 0.8 to round-off.
            let collisions: u64 = reports.iter().map(|r| r.impulses.collisions).sum();
            assert_eq!(collisions, 1, "v = {speed} m/s, h = {h} s");
            assert!(
                (ball.velocity.z - 0.8 * speed).abs() <= 1e-12 * speed,
                "v = {speed}: leaves at {}",
                ball.velocity.z
            );
        }
    }
}

#[test]
fn a_plain_fixed_step_lets_the_fast_ball_through_the_plate_and_the_run_stops() {
    // 1 m per step: the ball is above the plate at one step and below it at the next, and never
    // seen touching. (What regression prevents; at 1 m/s the plain step still catches it.) The
    // pipeline's pass-through check stops the run at that step: from z = 1.07 the ball's centre
    // is at 0.07 after step 1 and at −0.93 after step 2, 0.925 m past the plate's bottom face.
    let s = plate(1000.0, 1e-3, false);
    let (mut cm, _) = s.contact_model(None).unwrap();
    let mut stepper = Stepper::new(&s.model, &cm).unwrap();
    let (mut state, mut ws) = (s.initial.clone(), Workspace::new());
    let err = loop {
        match stepper.step(&s.model, &mut state, &mut ws, &mut cm) {
            Ok(_) => assert!(state.step < 3, "the run went on past the plate"),
            Err(e) => break e,
        }
    };
    match &err {
        signorini::StepError::CrossedFixed {
            step,
            body,
            obstacle,
            beyond,
            ..
        } => {
            assert_eq!(
                (*step, body.as_str(), obstacle.as_str()),
                (2, "`ball`", "`plate`")
            );
            assert!((beyond - 0.925).abs() < 1e-9, "{err}");
        }
        e => panic!("expected CrossedFixed, got: {e}"),
    }
    assert!(
        err.to_string().contains("time_of_impact = \"regress\""),
        "{err}"
    );
    let (_, last) = run(&plate(1.0, 1e-3, false));
    assert!(last.bodies[1].position.z > 0.0 && last.bodies[1].velocity.z > 0.0);
}

/// A ball of radius 0.1 m, e = 0, frictionless, dropped from `height` m (its bottom) onto the
/// ground under the global option.
fn plastic_drop(height: f64, toi: f64) -> Scene {
    scene(&format!(
        r#"
[simulation]
time_step = 1e-3
duration = 1.0
[contact]
model = "impulse"
loop = "global"
toi_tolerance = {toi}
[[material]]
name = "clay"
friction = 0.0
restitution = 0.0
[[body]]
name = "ground"
fixed = true
material = "clay"
shape = {{ type = "halfspace", normal = [0.0, 0.0, 1.0] }}
[[body]]
name = "ball"
material = "clay"
mass = 1.0
shape = {{ type = "sphere", radius = 0.1 }}
position = [0.0, 0.0, {z}]
"#,
        z = 0.1 + height
    ))
}

#[test]
fn impacts_are_found_within_the_regression_tolerance_of_contact() {
    // A plastic impact stops the ball where the regression found it, and the resting-contact LCP
    // holds it there: its final gap is where the impact was located. Conservative advancement
    // stops once the gap is at most τ_toi and every advance keeps it above τ_toi/2.
    for toi in [1e-5, 1e-6] {
        for height in [0.013, 0.2, 0.37, 0.9] {
            let (reports, last) = run(&plastic_drop(height, toi));
            let gap = last.bodies[1].position.z - 0.1;
            assert!(
                gap > 0.5 * toi && gap <= toi,
                "drop from {height} m, τ_toi = {toi}: rests at gap {gap}"
            );
            assert!(last.bodies[1].velocity.length() <= 1e-12);
            // One collision (plastic, the pair's e = 0), found by regression.
            let collisions: u64 = reports.iter().map(|r| r.impulses.collisions).sum();
            assert_eq!(collisions, 1);
            assert!(reports.iter().any(|r| r.impulses.substeps == 2));
            assert!(
                reports
                    .iter()
                    .map(|r| r.impulses.toi_iterations)
                    .sum::<u64>()
                    > 0
            );
        }
    }
}

#[test]
fn impulse_steps_time_their_stages_and_report_the_resting_lcp() {
    let (reports, _) = run(&plastic_drop(0.05, 1e-5));
    for r in &reports {
        let t = &r.times;
        for v in [t.broad, t.narrow, t.model, t.solve, t.integrate] {
            assert!(v >= 0.0 && v.is_finite());
        }
        assert!(t.total() > 0.0);
        assert!(r.impulses.substeps >= 1);
        assert_eq!(r.time_step, 1e-3);
    }
    // At rest, the global option solves the resting-contact LCP every step (one normal row, no
    // friction) and applies no impulse.
    let last = reports.last().unwrap();
    let solve = last.model_stats.solve.expect("an LCP at rest");
    assert_eq!(solve.rows, 1);
    assert_eq!(last.impulses.impulses(), 0);
    assert_eq!(last.model_stats.active_points, 1);
}

#[test]
fn impulse_runs_are_bit_identical() {
    let text = std::fs::read_to_string("../../examples/box_drop.toml").unwrap();
    for (model, loop_) in [
        ("impulse", "global"),
        ("impulse", "sequential"),
        ("impulse", "microcollisions"),
        ("impulse", "guendelman"),
        ("hybrid", ""),
    ] {
        let mut s = scene(&text);
        s.model.settings.duration = 1.0;
        let params: Vec<(String, ParamInput)> = if loop_.is_empty() {
            vec![]
        } else {
            vec![("loop".into(), ParamInput::Word(loop_.into()))]
        };
        let make = || -> ContactModel { signorini::contact::build(model, &params).unwrap() };
        let go = |mut cm: ContactModel| {
            let mut state = s.initial.clone();
            let mut ws = Workspace::new();
            let mut trace = Vec::new();
            for _ in 0..1000 {
                let r = step(&s.model, &mut state, &mut ws, &mut cm).unwrap();
                trace.push((r.contacts, r.max_penetration.to_bits(), r.impulses));
            }
            (state, trace)
        };
        let (a, b) = (go(make()), go(make()));
        assert_eq!(a.0, b.0, "{model} {loop_}: final states differ");
        assert_eq!(a.1, b.1, "{model} {loop_}: step reports differ");
    }
}

#[test]
fn adaptive_steps_refuse_impulse_based_models() {
    let s = plastic_drop(0.1, 1e-5);
    let mut model = s.model.clone();
    model.settings.adaptive = Some(AdaptiveSettings {
        energy_tolerance: 1e-6,
        min_time_step: 1e-8,
        max_time_step: 1e-2,
    });
    for name in ["impulse", "hybrid"] {
        let cm = signorini::contact::build(name, &[]).unwrap();
        match Stepper::new(&model, &cm) {
            Err(AdaptiveError::ImpulseBased(n)) => assert_eq!(n, name),
            Err(e) => panic!("{name}: wrong error {e}"),
            Ok(_) => panic!("{name}: adaptive steps accepted"),
        }
    }
}

#[test]
fn guendelman_takes_one_substep_whatever_the_regression_setting() {
    let values = resolve_params(
        &SPEC,
        &[
            ("loop".into(), ParamInput::Word("guendelman".into())),
            ("time_of_impact".into(), ParamInput::Word("regress".into())),
        ],
    )
    .unwrap();
    let m = signorini::contact::impulse::model::ImpulseModel::new(&values).unwrap();
    assert!(!signorini::contact::ImpulseBasedModel::loop_settings(&m).time_of_impact);
    let mut s = plate(100.0, 1e-3, true);
    s.set_param("loop", ParamInput::Word("guendelman".into()), "test");
    let (reports, last) = run(&s);
    assert!(reports.iter().all(|r| r.impulses.substeps == 1));
    // Guendelman's collision stage predicts the impact a step ahead (ψ + h u_n < 0): the ball
    // bounces before reaching the plate, without regression.
    assert!(last.bodies[1].velocity.z > 0.0);
    assert_eq!(
        reports
            .iter()
            .map(|r| r.max_penetration)
            .fold(0.0, f64::max),
        0.0
    );
}

/// An impulse-based model that applies nothing and whose forces never hold (horizon 0).
struct Stalling(signorini::contact::impulse::LoopSettings);

impl signorini::contact::impulse::ImpulseStages for Stalling {
    fn apply_impulses(
        &mut self,
        _: &signorini::dynamics::Model,
        _: &mut signorini::dynamics::State,
        _: &[signorini::collision::Contact],
        _: signorini::contact::impulse::Stage,
        _: f64,
        _: &mut signorini::contact::ContactImpulses,
    ) -> Result<signorini::contact::impulse::ImpulseReport, signorini::contact::ContactError> {
        Ok(Default::default())
    }

    fn force_horizon(&self) -> f64 {
        0.0
    }
}

impl signorini::contact::ModelBase for Stalling {
    fn spec(&self) -> signorini::contact::ModelSpec {
        SPEC
    }
    fn parameters(&self) -> Vec<(&'static str, signorini::contact::ParamValue)> {
        Vec::new()
    }
}

impl signorini::contact::ImpulseBasedModel for Stalling {
    fn loop_settings(&self) -> signorini::contact::impulse::LoopSettings {
        self.0
    }
    fn contact_forces(
        &mut self,
        _: &signorini::dynamics::Model,
        _: &signorini::dynamics::State,
        _: &[signorini::collision::Contact],
        _: f64,
        _: &mut [signorini::dynamics::Wrench],
        _: &mut signorini::contact::ContactImpulses,
    ) -> Result<signorini::contact::ModelStats, signorini::contact::ContactError> {
        Ok(Default::default())
    }
}

#[test]
fn a_zero_force_horizon_cannot_stall_a_step() {
    let s = plastic_drop(0.5, 1e-5);
    let cm = signorini::contact::build("impulse", &[]).unwrap();
    let mut settings = cm.impulse_loop().unwrap();
    settings.max_substeps = 7;
    let mut model = ContactModel::ImpulseBased(Box::new(Stalling(settings)));
    let mut state = s.initial.clone();
    let mut ws = Workspace::new();
    let r = step(&s.model, &mut state, &mut ws, &mut model).unwrap();
    // Six substeps of length zero, then the last one takes the whole step (free fall).
    assert_eq!(r.impulses.substeps, 7);
    assert_eq!(state.time, 1e-3);
    assert_eq!(state.bodies[1].velocity.z, 1e-3 * -9.81);
}
