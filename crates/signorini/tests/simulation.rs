//! The embedding API (`signorini::simulation`): a `Simulation` steps a scene to the same state,
//! bit for bit, as the hand-wired loop (contact model, `Stepper`, `Workspace`) it replaces;
//! `run_until` stops at the time asked; `set_force` accelerates a free body by F/m exactly as
//! semi-implicit Euler predicts; `ModelBuilder` builds the same scene as the same file and
//! reports what is wrong with a scene in code; a parameter override the model lacks is named.
use signorini::contact::ParamInput;
use signorini::pipeline::adaptive::Stepper;
use signorini::pipeline::Workspace;
use signorini::prelude::*;
use signorini::scene::{self, parse_scene};
use std::path::PathBuf;

fn example(name: &str) -> Scene {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples")
        .join(name);
    scene::load(&path).unwrap_or_else(|e| panic!("{e}"))
}

/// The bits of every number of a state: equal states, bit for bit (0.0 and −0.0 differ).
fn bits(state: &State) -> Vec<u64> {
    let mut out = vec![state.time.to_bits(), state.step];
    for b in &state.bodies {
        let q = b.orientation;
        for x in [
            b.position.to_array(),
            b.velocity.to_array(),
            b.angular_velocity.to_array(),
        ]
        .concat()
        .into_iter()
        .chain([q.x, q.y, q.z, q.w])
        {
            out.push(x.to_bits());
        }
    }
    out
}

/// The loop every caller wrote by hand before `Simulation`.
fn hand_wired(scene: &Scene) -> State {
    let (mut cm, _) = scene.contact_model(None).unwrap();
    let mut stepper = Stepper::new(&scene.model, &cm).unwrap();
    let mut state = scene.initial.clone();
    let mut ws = Workspace::new();
    while !stepper.finished(&scene.model, &state) {
        stepper
            .step(&scene.model, &mut state, &mut ws, &mut cm)
            .unwrap();
    }
    state
}

/// A tilted 1 kg box of 0.2 m dropped from 0.3 m onto the ground.
fn box_drop() -> ModelBuilder {
    box_drop_tilted(0.3)
}

/// The box of [`box_drop`] tilted by `tilt` (rad) about (1, 1, 0) (0: the identity rotation,
/// bit for bit, as a scene file that gives no quaternion).
fn box_drop_tilted(tilt: f64) -> ModelBuilder {
    ModelBuilder::new()
        .time_step(1e-3)
        .duration(0.4)
        .material("rubber", 0.8, 0.0)
        .ground()
        .body(
            BodyBuilder::cuboid("box", DVec3::splat(0.2))
                .mass(1.0)
                .material("rubber")
                .position(DVec3::new(0.0, 0.0, 0.3))
                .orientation(DQuat::from_axis_angle(
                    DVec3::new(1.0, 1.0, 0.0).normalize(),
                    tilt,
                ))
                .angular_velocity(DVec3::new(0.0, 0.0, 1.0)),
        )
}

#[test]
fn the_facade_steps_to_the_state_of_the_hand_wired_loop() {
    let built = box_drop().build().unwrap();
    let mut scenes = vec![("builder box drop".to_string(), built)];
    // Penalty with RK4, adaptive RK4, an impulse loop, velocity-level time stepping.
    for (file, duration) in [
        ("block_penetrating_plane.toml", 0.3),
        ("bounce.toml", 0.6),
        ("box_drop.toml", 0.5),
        ("ramp.toml", 0.2),
    ] {
        let mut scene = example(file);
        scene.model.settings.duration = duration;
        scenes.push((file.to_string(), scene));
    }
    for (name, scene) in scenes {
        let expected = hand_wired(&scene);
        let mut sim = Simulation::new(scene, None, &[]).unwrap();
        let mut steps = 0;
        sim.run_to_end(|_, _| steps += 1).unwrap();
        assert!(steps > 0, "{name}");
        assert_eq!(sim.step_count(), expected.step, "{name}");
        assert_eq!(bits(sim.state()), bits(&expected), "{name}");
    }
}

/// The builder's scene is the scene file's: same model, same stepping.
#[test]
fn a_built_scene_is_the_same_scene_as_its_file() {
    let text = r#"
[simulation]
time_step = 1e-3
duration = 0.4

[[material]]
name = "rubber"
friction = 0.8
restitution = 0.0

[[body]]
name = "ground"
fixed = true
shape = { type = "halfspace", normal = [0.0, 0.0, 1.0] }

[[body]]
name = "box"
mass = 1.0
material = "rubber"
position = [0.0, 0.0, 0.3]
angular_velocity = [0.0, 0.0, 1.0]
shape = { type = "box", size = [0.2, 0.2, 0.2] }
"#;
    let from_file = scene::build(parse_scene(text, "box.toml").unwrap()).unwrap();
    let built = box_drop()
        .body(BodyBuilder::sphere("unused", 0.1).mass(1.0))
        .build()
        .unwrap();
    // Same body as the file's but without the tilt (the file gives no quaternion).
    let built_untilted = box_drop_tilted(0.0).build().unwrap();
    assert_eq!(built.model.bodies.len(), 3);
    assert_eq!(built_untilted.model, from_file.model);
    assert_eq!(bits(&built_untilted.initial), bits(&from_file.initial));
    assert_eq!(
        bits(&hand_wired(&built_untilted)),
        bits(&hand_wired(&from_file))
    );
}

#[test]
fn run_until_stops_at_the_time_asked() {
    let mut sim = Simulation::new(box_drop().build().unwrap(), None, &[]).unwrap();
    let mut calls = 0;
    sim.run_until(0.25, |_, _| calls += 1).unwrap();
    assert_eq!(calls, 250);
    assert_eq!(sim.step_count(), 250);
    assert!((sim.state().time - 0.25).abs() < 1e-12);
    assert!(!sim.finished());
    // Already there: nothing to do.
    sim.run_until(0.1, |_, _| calls += 1).unwrap();
    assert_eq!(calls, 250);
    sim.run_until(0.4, |_, _| {}).unwrap();
    assert!(sim.finished());
    // The whole run in pieces is the whole run in one go.
    assert_eq!(
        bits(sim.state()),
        bits(&hand_wired(&box_drop().build().unwrap()))
    );
    // Past the duration it steps on.
    sim.run_until(0.5, |_, _| {}).unwrap();
    assert_eq!(sim.step_count(), 500);
}

/// A 2 kg sphere at rest in zero gravity under F = 1 N along x: semi-implicit Euler gives
/// v_n = n h a and x_n = h² a n(n+1)/2 with a = F/m. With h = 2⁻¹⁰ and a = 1/2 every number is
/// dyadic, so the simulation must hit the formula exactly.
#[test]
fn set_force_accelerates_a_free_body_by_f_over_m() {
    let h = 2f64.powi(-10);
    let scene = ModelBuilder::new()
        .time_step(h)
        .duration(1.0)
        .gravity(DVec3::ZERO)
        .body(BodyBuilder::sphere("ball", 0.1).mass(2.0))
        .build()
        .unwrap();
    let mut sim = Simulation::new(scene, None, &[]).unwrap();
    let x0 = sim.state().bodies[0].position;
    assert_eq!(x0, DVec3::ZERO);
    // 10 steps at rest, then the force.
    sim.run_until(10.0 * h, |_, _| {}).unwrap();
    assert_eq!(sim.state().bodies[0].position, x0);
    sim.set_force(0, DVec3::new(1.0, 0.0, 0.0), DVec3::ZERO)
        .unwrap();
    let a = 1.0 / 2.0;
    let n = 300u64;
    for _ in 0..n {
        sim.step().unwrap();
    }
    let b = &sim.state().bodies[0];
    let nf = n as f64;
    assert_eq!(b.velocity, DVec3::new(nf * h * a, 0.0, 0.0));
    assert_eq!(
        b.position,
        DVec3::new(h * h * a * nf * (nf + 1.0) / 2.0, 0.0, 0.0)
    );
    assert_eq!(b.angular_velocity, DVec3::ZERO);
    // Removed: it coasts at the speed it reached.
    sim.set_force(0, DVec3::ZERO, DVec3::ZERO).unwrap();
    let v = sim.state().bodies[0].velocity;
    sim.step().unwrap();
    assert_eq!(sim.state().bodies[0].velocity, v);
    assert!(sim.model().forces.is_empty());
    let err = sim.set_force(3, DVec3::X, DVec3::ZERO).unwrap_err();
    assert!(err.to_string().contains("no body 3"), "{err}");
}

/// Setting a force and removing it before any step leaves the run as it was.
#[test]
fn an_unused_set_force_changes_nothing() {
    let scene = box_drop().build().unwrap();
    let expected = hand_wired(&scene);
    let mut sim = Simulation::new(scene, None, &[]).unwrap();
    sim.set_force(1, DVec3::new(3.0, 0.0, 0.0), DVec3::Z)
        .unwrap();
    sim.set_force(1, DVec3::ZERO, DVec3::ZERO).unwrap();
    sim.run_to_end(|_, _| {}).unwrap();
    assert_eq!(bits(sim.state()), bits(&expected));
}

fn build_error(b: ModelBuilder) -> String {
    b.build().map(|_| ()).unwrap_err().to_string()
}

#[test]
fn builder_errors_name_the_body_and_key() {
    let no_mass = ModelBuilder::new().body(BodyBuilder::cuboid("crate", DVec3::ONE));
    let e = build_error(no_mass);
    assert!(
        e.contains("body[0].mass") && e.contains("`crate`") && e.contains("needs a mass"),
        "{e}"
    );

    let flat = [DVec3::ZERO, DVec3::X, DVec3::Y, DVec3::X + DVec3::Y];
    let e = build_error(
        ModelBuilder::new()
            .ground()
            .body(BodyBuilder::convex_hull("plate", &flat).mass(1.0)),
    );
    assert!(e.contains("body[1].shape"), "{e}");

    let e = build_error(
        ModelBuilder::new().body(BodyBuilder::sphere("ball", 0.1).mass(1.0).material("steel")),
    );
    assert!(e.contains("undefined material `steel`"), "{e}");

    let e = build_error(ModelBuilder::new().time_step(-1e-3));
    assert!(e.contains("simulation.time_step"), "{e}");

    let e = build_error(ModelBuilder::new().material("ice", -0.1, 0.0));
    assert!(e.contains("friction"), "{e}");

    let e = build_error(ModelBuilder::new().ground().ground());
    assert!(e.contains("duplicate body name `ground`"), "{e}");

    let e =
        build_error(ModelBuilder::new().body(BodyBuilder::half_space("wall", DVec3::X).mass(1.0)));
    assert!(e.contains("must be fixed"), "{e}");

    let e = build_error(ModelBuilder::new().contact_model("springs"));
    assert!(e.contains("unknown contact model `springs`"), "{e}");

    let e = build_error(ModelBuilder::new().param("kq", 1.0));
    assert!(e.contains("no parameter `kq`"), "{e}");
}

#[test]
fn an_unknown_param_override_is_named() {
    let err = Simulation::new(
        box_drop().build().unwrap(),
        None,
        &[("kq".into(), ParamInput::Number(1.0))],
    )
    .err()
    .expect("deepest-point has no kq");
    assert!(matches!(err, Error::Config { .. }));
    let msg = err.to_string();
    assert!(
        msg.starts_with(
            "param kq: model `deepest-point` has no parameter `kq`; its parameters: kp"
        ),
        "{msg}"
    );
    // A bad value is reported at the override's key.
    let err = Simulation::new(
        box_drop().build().unwrap(),
        Some("stewart-trinkle"),
        &[("activation".into(), ParamInput::Word("sometimes".into()))],
    )
    .err()
    .expect("no such activation");
    assert!(err.to_string().contains("param activation"), "{err}");
    // A good one is used.
    let sim = Simulation::new(
        box_drop().build().unwrap(),
        None,
        &[("kp".into(), ParamInput::Number(5000.0))],
    )
    .unwrap();
    let kp = sim
        .contact_model()
        .parameters()
        .into_iter()
        .find(|(k, _)| *k == "kp")
        .map(|(_, v)| v.to_json());
    assert_eq!(kp, Some(serde_json::json!(5000.0)));
}

#[test]
fn contacts_lists_the_current_contacts() {
    let mut sim = Simulation::new(box_drop().build().unwrap(), None, &[]).unwrap();
    assert!(sim.contacts().is_empty(), "the box starts in the air");
    sim.run_until(0.4, |_, _| {}).unwrap();
    assert!(!sim.contacts().is_empty(), "the box has landed");
}
