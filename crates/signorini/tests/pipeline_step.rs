//! `pipeline::step`'s diagnoses: a pair pushed deeper than the smaller piece is wide stops the run
//! with `StepError::PassedThrough`, naming the step and both bodies.
use signorini::contact::ParamInput;
use signorini::experiments::simulate;
use signorini::scene::{self, Scene};
use std::path::PathBuf;

fn example(name: &str) -> Scene {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples")
        .join(name);
    scene::load(&path).unwrap_or_else(|e| panic!("{e}"))
}

/// The ball of `bounce.toml` (r = 0.1 m) under a deepest-point spring of 1 N/m sinks into the
/// ground until it is more than 0.2 m deep: the run stops there instead of letting it fall on.
#[test]
fn a_ball_sinking_through_the_ground_stops_the_run() {
    let mut scene = example("bounce.toml");
    scene.model.settings.adaptive = None;
    scene.desc.contact.model = "deepest-point".into();
    scene.desc.contact.params.clear();
    scene.set_param("kp", ParamInput::Number(1.0), "test");
    scene.set_param("kv", ParamInput::Number(0.0), "test");
    let err = simulate(&scene, None, |_, _| {})
        .err()
        .expect("the run stops");
    assert!(
        err.contains("`ground` and `ball`")
            && err.contains("more than the size of the smaller piece (2.000e-1 m)"),
        "{err}"
    );
}

/// Every bundled example runs its first 0.3 s under its own model without any step error, the
/// depth check included.
#[test]
fn bundled_examples_never_trip_the_depth_check() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    files.sort();
    for f in files {
        let mut scene = scene::load(&f).unwrap_or_else(|e| panic!("{e}"));
        scene.model.settings.duration = scene.model.settings.duration.min(0.3);
        simulate(&scene, None, |_, _| {}).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
    }
}
