//! `pipeline::step`'s diagnoses: a pair pushed deeper than the smaller piece is wide stops the run
//! with `StepError::PassedThrough`, naming the step and both bodies; a body whose fastest point
//! (|v| + |ω| r) exceeds `simulation.max_speed` stops it with `StepError::TooFast`.
use signorini::contact::ParamInput;
use signorini::experiments::simulate;
use signorini::scene::{self, Scene};
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
/// depth check included.
#[test]
fn bundled_examples_never_trip_the_depth_check() {
    for f in common::bundled_examples() {
        let mut scene = scene::load(&f).unwrap_or_else(|e| panic!("{e}"));
        scene.model.settings.duration = scene.model.settings.duration.min(0.3);
        simulate(&scene, None, |_, _| {}).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
    }
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
