//! `pipeline::step`'s diagnoses: a pair pushed deeper than the smaller piece is wide stops the run
//! with `StepError::PassedThrough`, naming the step and both bodies; a body whose fastest point
//! (|v| + |ω| r) exceeds `simulation.max_speed` stops it with `StepError::TooFast`. Nothing passes
//! through a fixed body (`pipeline/through.rs`): a piece that ends a step wholly beyond a
//! half-space stops the run with `StepError::BeyondHalfSpace`, one whose centre crossed a bounded
//! fixed piece within the step with `StepError::CrossedFixed` — and bodies resting on or partly
//! in the ground do not.
use signorini::contact::ParamInput;
use signorini::experiments::simulate;
use signorini::pipeline::adaptive::Stepper;
use signorini::pipeline::Workspace;
use signorini::scene::{self, build, parse_scene, Scene};
use signorini::{State, StepError};
use std::path::PathBuf;

mod common;

fn example(name: &str) -> Scene {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples")
        .join(name);
    scene::load(&path).unwrap_or_else(|e| panic!("{e}"))
}

/// The ball of `bounce.toml` (r = 0.1 m) on a fixed 1 m block instead of the ground, under a
/// deepest-point spring of 1 N/m, sinks into the block until it is more than its diameter deep:
/// the run stops there instead of letting it fall on through.
#[test]
fn a_ball_sinking_through_a_block_stops_the_run() {
    use signorini::geometry::{Pose, Shape};
    use signorini::DVec3;
    let mut scene = example("bounce.toml");
    scene.model.settings.adaptive = None;
    let ground = scene.model.body_index("ground").unwrap();
    scene.model.bodies[ground].pieces[0].shape = Shape::cuboid(DVec3::ONE).unwrap();
    scene.model.bodies[ground].pieces[0].pose =
        Pose::new(DVec3::new(0.0, 0.0, -0.5), Default::default());
    scene.desc.contact.model = "deepest-point".into();
    scene.desc.contact.params.clear();
    scene.set_param("kp", ParamInput::Number(1.0), "test");
    scene.set_param("kv", ParamInput::Number(0.0), "test");
    let err = simulate(&scene, None, |_, _| {})
        .err()
        .expect("the run stops")
        .to_string();
    assert!(
        err.contains("`ground` and `ball`")
            && err.contains("more than the size of the smaller piece (2.000e-1 m)"),
        "{err}"
    );
}

/// Against a half-space the way out is always known: the tilted cube of
/// `block_penetrating_plane.toml` with its centre 0.4 m below the ground (where Drumwright's
/// min–max rule prefers one of the cube's own faces, normal (0.95, 0.17, −0.27)) is pushed
/// straight up by the multi-point method and by Hunt–Crossley's volume mode (frictionless, so
/// that only the normal forces act), and the run goes on.
#[test]
fn a_cube_deep_in_the_ground_is_pushed_straight_up() {
    let mut base = example("block_penetrating_plane.toml");
    let cube = base.model.body_index("cube").unwrap();
    base.initial.bodies[cube].position = signorini::DVec3::new(0.0, 0.0, -0.4);
    base.model.settings.duration = 0.01;
    for m in &mut base.model.materials {
        m.friction = 0.0;
    }
    for (model, params) in [
        ("multi-point", vec![("kp", ParamInput::Number(5000.0))]),
        (
            "hunt-crossley",
            vec![("penetration", ParamInput::Word("volume".into()))],
        ),
    ] {
        let mut scene = base.clone();
        scene.desc.contact.model = model.into();
        scene.desc.contact.params.clear();
        for (n, v) in params {
            scene.set_param(n, v, "test");
        }
        let end = simulate(&scene, None, |_, _| {}).unwrap_or_else(|e| panic!("{model}: {e}"));
        let v = end.bodies[cube].velocity;
        assert!(v.z > 0.0 && v.x.hypot(v.y) < 1e-9 * v.z, "{model}: {v}");
    }
}

/// Every bundled example runs its first 0.3 s under its own model without any step error, the
/// depth check included (2D examples, `dimension = 2`, through the planar step and its checks).
#[test]
fn bundled_examples_never_trip_the_depth_check() {
    for f in common::bundled_examples() {
        if scene::dimension_of_file(&f).unwrap() == 2 {
            let sc = scene::load_planar(&f).unwrap_or_else(|e| panic!("{e}"));
            let (model, _) = sc.contact_model(None).unwrap();
            let mut w = signorini::planar::PlanarWorld::new(sc.model, sc.initial, model);
            for _ in 0..w.planned_steps().min(300) {
                w.step().unwrap_or_else(|e| panic!("{}: {e}", f.display()));
            }
            continue;
        }
        let mut scene = scene::load(&f).unwrap_or_else(|e| panic!("{e}"));
        if !scene.desc.robots.is_empty() {
            robot_scene_runs(&scene, 0.3);
            continue;
        }
        scene.model.settings.duration = scene.model.settings.duration.min(0.3);
        simulate(&scene, None, |_, _| {}).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
    }
}

/// A scene with robots runs as a forest of trees (`simulation::robot_scene`): its first `seconds`
/// without a step error.
fn robot_scene_runs(scene: &scene::Scene, seconds: f64) {
    use signorini::simulation::multibody_run::run_tree;
    use signorini::simulation::robot_scene::tree_run;
    use signorini::simulation::run::RunConfig;
    let (mut run, _) = tree_run(scene).unwrap_or_else(|e| panic!("{e}"));
    run.duration = run.duration.min(seconds);
    let dir = std::env::temp_dir().join(format!("signorini-robot-scene-{}", std::process::id()));
    let cfg = RunConfig {
        trajectory_interval: 0.0,
        out_dir: &dir,
        interrupt: None,
        contacts: None,
        impulses: false,
    };
    let summary = run_tree(&cfg, &run, &mut |_, _| {}).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        summary.error.is_none(),
        "{}: {:?}",
        scene.desc.file,
        summary.error
    );
}

/// A diverging spin stops the run as a diverging translation does: the cube of
/// `block_penetrating_plane.toml` at rest in translation but turning so fast that its corners
/// move at twice `simulation.max_speed` (|ω| r = 2 × 10 m/s, r its bounding radius about the
/// centre of mass) stops at the first step, naming the body; turning at half that it runs on.
#[test]
fn a_body_spinning_beyond_max_speed_stops_the_run() {
    use signorini::DVec3;
    let mut scene = example("block_penetrating_plane.toml");
    let cube = scene.model.body_index("cube").unwrap();
    scene.model.settings.max_speed = 10.0;
    scene.model.settings.duration = 5.0 * scene.model.settings.time_step;
    let r = scene.model.bodies[cube].bounding_radius();
    assert!(r > 0.0 && r.is_finite());
    scene.initial.bodies[cube].velocity = DVec3::ZERO;
    scene.initial.bodies[cube].angular_velocity = DVec3::new(0.0, 0.0, 20.0 / r);
    let err = simulate(&scene, None, |_, _| {})
        .err()
        .expect("the run stops")
        .to_string();
    assert!(
        err.contains("body `cube` moves at up to") && err.contains("max_speed = 10 m/s"),
        "{err}"
    );
    scene.initial.bodies[cube].angular_velocity = DVec3::new(0.0, 0.0, 5.0 / r);
    simulate(&scene, None, |_, _| {}).expect("a spin within max_speed runs on");
}

fn scene(text: &str) -> Scene {
    build(parse_scene(text, "test.toml").expect("parses")).expect("builds")
}

/// Step a scene to its end or its first step error: the state there and the error.
fn run(s: &Scene) -> (State, Option<StepError>) {
    let (mut cm, _) = s.contact_model(None).unwrap();
    let mut stepper = Stepper::new(&s.model, &cm).unwrap();
    let (mut state, mut ws) = (s.initial.clone(), Workspace::new());
    while !stepper.finished(&s.model, &state) {
        if let Err(e) = stepper.step(&s.model, &mut state, &mut ws, &mut cm) {
            return (state, Some(e));
        }
    }
    (state, None)
}

/// The issue's case: a 0.2 m box released with its centre at 0.5 m above the ground, in steps of
/// 0.5 s, under `model` with the extra `[contact]` / `[simulation]` lines. A step that does not
/// see the ground coming takes it to z = 0.5 − g h² = −1.9525 m (semi-implicit Euler).
fn drop_two_metres(model: &str, contact: &str, simulation: &str) -> Scene {
    scene(&format!(
        r#"
[simulation]
time_step = 0.5
duration = 2.0
{simulation}
[contact]
model = "{model}"
{contact}
[[material]]
name = "wood"
friction = 0.5
[[body]]
name = "ground"
fixed = true
material = "wood"
shape = {{ type = "halfspace", normal = [0.0, 0.0, 1.0] }}
[[body]]
name = "box"
material = "wood"
mass = 1.0
shape = {{ type = "box", size = [0.2, 0.2, 0.2] }}
position = [0.0, 0.0, 0.5]
"#
    ))
}

/// A box dropped 2 m into the ground in one step of 0.5 s. Measured before this check: explicit
/// deepest-point kept it sinking (z = −7.4 m after 2 s), explicit hunt-crossley threw it out at
/// 84 m/s, type 1 stewart-trinkle and impulse without time-of-impact regression lifted it at
/// 0.5 m/s from 2 m down; every run reported success. Now each stops at step 1 with the box
/// wholly beyond the ground: its top face 1.8525 m below the plane, its bottom 2.0525 m, its
/// centre moved g h² = 2.4525 m (exact in f64 to round-off: 1e-9 m), and the message says what
/// would keep it out for that model.
#[test]
fn a_box_dropped_two_metres_into_the_ground_in_one_step_stops_the_run() {
    let explicit = r#"integrator = "semi-implicit-euler""#;
    for (model, contact, simulation, remedy) in [
        (
            "deepest-point",
            "",
            explicit,
            "integrator = \"implicit-euler\"",
        ),
        (
            "multi-point",
            "",
            explicit,
            "integrator = \"implicit-euler\"",
        ),
        (
            "hunt-crossley",
            "",
            explicit,
            "integrator = \"implicit-euler\"",
        ),
        (
            "stewart-trinkle",
            r#"activation = "penetrating""#,
            "",
            "activation = \"anticipating\"",
        ),
        (
            "anitescu-potra",
            r#"activation = "penetrating""#,
            "",
            "activation = \"anticipating\"",
        ),
        (
            "impulse",
            r#"time_of_impact = "off""#,
            "",
            "time_of_impact = \"regress\"",
        ),
    ] {
        let (state, err) = run(&drop_two_metres(model, contact, simulation));
        let err = err.unwrap_or_else(|| panic!("{model}: the run went on"));
        let text = err.to_string();
        match &err {
            StepError::BeyondHalfSpace {
                step,
                time,
                body,
                half_space,
                beyond,
                depth,
                travel,
                ..
            } => {
                assert_eq!((*step, *time), (1, 0.5), "{model}: {text}");
                assert_eq!((body.as_str(), half_space.as_str()), ("`box`", "`ground`"));
                assert!((beyond - 1.8525).abs() < 1e-9, "{model}: {text}");
                assert!((depth - 2.0525).abs() < 1e-9, "{model}: {text}");
                assert!((travel - 2.4525).abs() < 1e-9, "{model}: {text}");
            }
            e => panic!("{model}: expected BeyondHalfSpace, got: {e}"),
        }
        assert!(
            text.contains(
                "step 1 (t = 0.5 s): body `box` ended wholly beyond the half-space `ground`"
            ) && text.contains("smaller time step")
                && text.contains(remedy),
            "{model}: {text}"
        );
        assert_eq!(state.step, 1, "{model}");
    }
}

/// The same drop under the models' defaults: deepest-point under `implicit-euler` (its springs
/// engage 4 h × speed ahead), stewart-trinkle's anticipating activation and impulse's
/// time-of-impact regression see the ground coming and land the box on it (its centre within
/// 1 mm of z = 0.1 m: measured 0.0999975, 0.1000000, 0.1000442), so the check has nothing to say.
#[test]
fn models_that_see_the_ground_coming_land_the_dropped_box_on_it() {
    for model in ["deepest-point", "stewart-trinkle", "impulse"] {
        let (state, err) = run(&drop_two_metres(model, "", ""));
        assert!(err.is_none(), "{model}: {}", err.unwrap());
        let z = state.bodies[1].position.z;
        assert!((z - 0.1).abs() < 1e-3, "{model}: ends at z = {z}");
    }
}

/// `shape` shot along +x at 20 m/s, 1 m per step of 0.05 s, from x = −0.5 m through the fixed
/// `obstacle` at the origin; no gravity.
fn shoot(shape: &str, obstacle: &str, model: &str, contact: &str, simulation: &str) -> Scene {
    scene(&format!(
        r#"
[simulation]
time_step = 0.05
duration = 0.2
gravity = [0.0, 0.0, 0.0]
{simulation}
[contact]
model = "{model}"
{contact}
[[material]]
name = "steel"
friction = 0.2
[[body]]
name = "wall"
fixed = true
material = "steel"
shape = {obstacle}
[[body]]
name = "shot"
material = "steel"
mass = 0.5
shape = {shape}
position = [-0.5, 0.0, 0.0]
velocity = [20.0, 0.0, 0.0]
"#
    ))
}

/// A sphere (r = 0.05 m), a box (0.1 m) and a convex hull (an octahedron, 0.06 m to each tip)
/// shot through a fixed wall 1 cm thick in one step, and a sphere through a fixed ball of 5 cm:
/// each ends 0.5 m past the obstacle's centre with no contact left, where the depth check sees
/// nothing (before: the run reported success with the body flying on at 20 m/s). Now each stops
/// at step 1 naming both bodies, for an explicit penalty model, type 1 stewart-trinkle and
/// impulse without regression. Figures: the centre moved 1 m, 1 cm of it inside the wall and
/// 0.495 m past its far face (ball: 0.1 m inside, 0.45 m past).
#[test]
fn a_body_shot_through_a_thin_wall_in_one_step_stops_the_run() {
    let wall = r#"{ type = "box", size = [0.01, 2.0, 2.0] }"#;
    let ball = r#"{ type = "sphere", radius = 0.05 }"#;
    let shapes = [
        ("sphere", ball),
        ("box", r#"{ type = "box", size = [0.1, 0.1, 0.1] }"#),
        (
            "hull",
            r#"{ type = "convex", points = [[0.06, 0.0, 0.0], [-0.06, 0.0, 0.0], [0.0, 0.06, 0.0], [0.0, -0.06, 0.0], [0.0, 0.0, 0.06], [0.0, 0.0, -0.06]] }"#,
        ),
    ];
    let explicit = r#"integrator = "semi-implicit-euler""#;
    let models = [
        ("deepest-point", "", explicit),
        ("stewart-trinkle", r#"activation = "penetrating""#, ""),
        ("impulse", r#"time_of_impact = "off""#, ""),
    ];
    let mut cases: Vec<(&str, &str, &str, f64, f64)> = shapes
        .iter()
        .map(|&(name, shape)| (name, shape, wall, 0.01, 0.495))
        .collect();
    cases.push(("sphere through a ball", ball, ball, 0.1, 0.45));
    for (name, shape, obstacle, chord_expected, beyond_expected) in cases {
        for (model, contact, simulation) in models {
            let (_, err) = run(&shoot(shape, obstacle, model, contact, simulation));
            let err = err.unwrap_or_else(|| panic!("{name}, {model}: the run went on"));
            let text = err.to_string();
            match &err {
                StepError::CrossedFixed {
                    step,
                    body,
                    obstacle,
                    chord,
                    beyond,
                    travel,
                    ..
                } => {
                    assert_eq!(*step, 1, "{name}, {model}: {text}");
                    assert_eq!((body.as_str(), obstacle.as_str()), ("`shot`", "`wall`"));
                    assert!((travel - 1.0).abs() < 1e-9, "{name}, {model}: {text}");
                    assert!(
                        (chord - chord_expected).abs() < 1e-9,
                        "{name}, {model}: {text}"
                    );
                    assert!(
                        (beyond - beyond_expected).abs() < 1e-9,
                        "{name}, {model}: {text}"
                    );
                }
                e => panic!("{name}, {model}: expected CrossedFixed, got: {e}"),
            }
            assert!(
                text.contains("body `shot` crossed the fixed body `wall` within one step")
                    && text.contains("smaller time step"),
                "{text}"
            );
        }
    }
}

/// A box dropped through a floor slab 2 cm thick, a piece of a fixed `bin` of two pieces (floor
/// and a side wall), in one step of 0.5 s: stops at step 1 naming the piece, its centre
/// 1.9325 m below the slab's bottom face.
#[test]
fn a_box_dropped_through_a_floor_slab_stops_the_run_naming_the_piece() {
    let s = scene(
        r#"
[simulation]
time_step = 0.5
duration = 1.0
integrator = "semi-implicit-euler"
[contact]
model = "deepest-point"
[[body]]
name = "bin"
fixed = true
[[body.piece]]
shape = { type = "box", size = [2.0, 2.0, 0.02] }
position = [0.0, 0.0, -0.01]
[[body.piece]]
shape = { type = "box", size = [0.1, 2.0, 1.0] }
position = [-0.95, 0.0, 0.5]
[[body]]
name = "box"
mass = 1.0
shape = { type = "box", size = [0.2, 0.2, 0.2] }
position = [0.0, 0.0, 0.5]
"#,
    );
    let (_, err) = run(&s);
    match err {
        Some(StepError::CrossedFixed {
            step: 1,
            ref body,
            ref obstacle,
            beyond,
            ..
        }) => {
            assert_eq!(
                (body.as_str(), obstacle.as_str()),
                ("`box`", "piece 0 of `bin`")
            );
            assert!((beyond - 1.9325).abs() < 1e-9, "{beyond}");
        }
        e => panic!("expected CrossedFixed at step 1, got {e:?}"),
    }
}

/// The boundary of "wholly beyond" is the piece's nearest point, not its depth: a ball (r =
/// 0.1 m) at rest with its centre 0.099 m below the ground — 0.199 m deep, its top 1 mm above
/// the plane — is pushed out by stewart-trinkle and the run goes on (as it did before); at
/// 0.101 m below (its top 1 mm beneath the plane) the first step stops, whatever the model: the
/// top is then 1 mm beneath less what the step lifted it (measured: stewart-trinkle 0.5 mm, its
/// recovery speed 0.5 m/s × h; deepest-point 0.56 mm; impulse 1 mm, no lift).
#[test]
fn a_ball_partly_in_the_ground_is_pushed_out_and_one_wholly_in_it_stops_the_run() {
    let ball = |z: f64, model: &str| {
        scene(&format!(
            r#"
[simulation]
time_step = 1e-3
duration = 0.05
[contact]
model = "{model}"
[[body]]
name = "ground"
fixed = true
shape = {{ type = "halfspace", normal = [0.0, 0.0, 1.0] }}
[[body]]
name = "ball"
mass = 1.0
shape = {{ type = "sphere", radius = 0.1 }}
position = [0.0, 0.0, {z}]
"#
        ))
    };
    let (state, err) = run(&ball(-0.099, "stewart-trinkle"));
    assert!(err.is_none(), "{}", err.unwrap());
    assert!(
        state.bodies[1].position.z > -0.099 + 1e-3,
        "{}",
        state.bodies[1].position.z
    );
    for model in ["stewart-trinkle", "deepest-point", "impulse"] {
        let (_, err) = run(&ball(-0.101, model));
        match err {
            Some(StepError::BeyondHalfSpace {
                step: 1, beyond, ..
            }) => {
                assert!(beyond > 4e-4 && beyond < 1e-3 + 1e-9, "{model}: {beyond}")
            }
            e => panic!("{model}: expected BeyondHalfSpace at step 1, got {e:?}"),
        }
    }
}

/// An adaptive step that would pass through is an attempt too long, not the end of the run: the
/// box of the 2 m drop under explicit hunt-crossley with adaptive steps of up to 0.5 s and an
/// energy tolerance (1e6 J) that accepts anything. Before the check the first step of 0.5 s was
/// accepted with the box 2 m underground; now the attempts of 0.5 s (box wholly beyond) and
/// 0.25 s (its top still 1.3 cm below the plane) are thrown away and the step of 0.125 s is kept.
#[test]
fn an_adaptive_attempt_that_passes_through_is_retried_shorter() {
    let s = drop_two_metres(
        "hunt-crossley",
        "",
        "integrator = \"semi-implicit-euler\"\n[simulation.adaptive]\nenergy_tolerance = 1e6\nmin_time_step = 1e-6\nmax_time_step = 0.5",
    );
    let (mut cm, _) = s.contact_model(None).unwrap();
    let mut stepper = Stepper::new(&s.model, &cm).unwrap();
    let (mut state, mut ws) = (s.initial.clone(), Workspace::new());
    let first = stepper
        .step(&s.model, &mut state, &mut ws, &mut cm)
        .unwrap();
    assert_eq!(first.time_step, 0.125);
    assert_eq!(stepper.adaptive_stats().unwrap().rejected, 2);
    assert!(
        state.bodies[1].position.z > 0.3,
        "{}",
        state.bodies[1].position.z
    );
}

/// No false positives: the bundled stack of boxes and the bin of 64 boxes for 0.5 s under
/// stewart-trinkle and deepest-point, and the cube penetrating the ground under its own model and
/// those two, run to their end (their trajectories are byte-identical to the build before the
/// check: the check only reads the state).
#[test]
fn stacks_bins_and_the_penetrating_cube_never_trip_the_pass_through_checks() {
    for (file, duration) in [
        ("box_stack.toml", 0.5),
        ("bin_64.toml", 0.5),
        ("block_penetrating_plane.toml", 1.0),
    ] {
        for model in [None, Some("stewart-trinkle"), Some("deepest-point")] {
            let mut s = example(file);
            s.model.settings.duration = duration;
            simulate(&s, model, |_, _| {}).unwrap_or_else(|e| panic!("{file}, {model:?}: {e}"));
        }
    }
}

/// A 1 kg box of 0.2 m on a fixed slab 2 cm thick under a deepest-point spring far too soft for
/// its weight (ω = 5 rad/s: a static depth of g/ω² = 0.39 m) sinks into the slab; once its centre
/// passes the slab's middle the least-overlap normal points down and the spring pushes it on
/// through. Its centre goes in at one step and comes out of the far side at a later one (no
/// single step crosses the slab), so it is the check across steps (`pipeline/through.rs`, way
/// 3) that stops the run, naming the slab and when the centre went in.
#[test]
fn a_box_sinking_through_a_floor_slab_over_several_steps_stops_the_run() {
    let s = scene(
        "[simulation]\ntime_step = 1e-3\nduration = 3.0\n\n\
         [contact]\nmodel = \"deepest-point\"\nkp_per_kg = 25.0\nkv_per_kg = 10.0\n\n\
         [[body]]\nname = \"slab\"\nfixed = true\nshape = { type = \"box\", size = [2.0, 2.0, 0.02] }\nposition = [0.0, 0.0, -0.01]\n\n\
         [[body]]\nname = \"box\"\nmass = 1.0\nshape = { type = \"box\", size = [0.2, 0.2, 0.2] }\nposition = [0.0, 0.0, 0.1]\n",
    );
    let (state, error) = run(&s);
    match error {
        Some(StepError::SankThrough {
            obstacle,
            entered,
            chord,
            beyond,
            time,
            ..
        }) => {
            assert_eq!(obstacle, "`slab`");
            // The centre went in some steps before it came out: not a one-step crossing.
            assert!(
                time - entered > 10.0 * 1e-3,
                "in at {entered} s, out at {time} s"
            );
            // From the top face to the bottom one: the slab's thickness (straight down).
            assert!((chord - 0.02).abs() < 1e-6, "chord {chord}");
            // Out by less than this step's travel (0.84 m/s × 1 ms).
            assert!(beyond > 0.0 && beyond < 1e-3, "beyond {beyond}");
        }
        other => panic!("expected SankThrough, got {other:?}"),
    }
    // The state the step ended in: the centre just out of the slab's bottom face (z = −0.02 m).
    let z = state.bodies[1].position.z;
    assert!((-0.021..-0.02).contains(&z), "z = {z}");
}

/// The same sinking box under Deguet's adaptive steps (RK4): attempts are thrown away and retried
/// shorter, so where a centre went in is kept only from steps that were accepted; the run still
/// stops when the centre comes out of the slab's far side.
#[test]
fn a_box_sinking_through_a_floor_slab_stops_the_run_under_adaptive_steps() {
    let s = scene(
        "[simulation]\ntime_step = 1e-3\nduration = 3.0\nintegrator = \"rk4\"\n\n\
         [simulation.adaptive]\nenergy_tolerance = 1e-3\nmin_time_step = 1e-8\nmax_time_step = 1e-2\n\n\
         [contact]\nmodel = \"deepest-point\"\nkp_per_kg = 25.0\nkv_per_kg = 10.0\n\n\
         [[body]]\nname = \"slab\"\nfixed = true\nshape = { type = \"box\", size = [2.0, 2.0, 0.02] }\nposition = [0.0, 0.0, -0.01]\n\n\
         [[body]]\nname = \"box\"\nmass = 1.0\nshape = { type = \"box\", size = [0.2, 0.2, 0.2] }\nposition = [0.0, 0.0, 0.1]\n",
    );
    match run(&s).1 {
        Some(StepError::SankThrough {
            obstacle,
            entered,
            time,
            chord,
            ..
        }) => {
            assert_eq!(obstacle, "`slab`");
            assert!(time > entered, "in at {entered} s, out at {time} s");
            assert!((chord - 0.02).abs() < 1e-6, "chord {chord}");
        }
        other => panic!("expected SankThrough, got {other:?}"),
    }
}
