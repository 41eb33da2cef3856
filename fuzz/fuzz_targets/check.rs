//! Fuzz target: the whole path of `signorini check` — parse, build, choose and configure the
//! contact model, set up the stepper, count the steps — never panics; its errors are located.
#![no_main]
mod common;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let Some(Ok(scene)) = common::load(data) else { return };
    common::check_scene(&scene);
    let text = std::str::from_utf8(data).expect("load accepted it as UTF-8");
    let (model, ignored) = match scene.contact_model(None) {
        Ok(chosen) => chosen,
        Err(e) => return common::check_error(text, common::FILE, &e),
    };
    // A model that cannot take the scene's adaptive steps is refused with a message, not a panic.
    if let Ok(sim) = signorini::Simulation::with_contact_model(scene, model, ignored) {
        let _ = sim.planned_steps();
    }
});
