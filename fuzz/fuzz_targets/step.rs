//! Fuzz target: a few steps of a small scene under its own contact model end in a finite state
//! or a `StepError` that says what went wrong, never a panic. Scenes are kept small (at most 6
//! bodies, 10 steps) so that each input runs in milliseconds.
#![no_main]
mod common;

const MAX_BODIES: usize = 6;
const MAX_STEPS: u64 = 10;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let Some(Ok(scene)) = common::load(data) else { return };
    if scene.model.bodies.len() > MAX_BODIES {
        return;
    }
    let Ok((model, ignored)) = scene.contact_model(None) else { return };
    let Ok(mut sim) = signorini::Simulation::with_contact_model(scene, model, ignored) else {
        return;
    };
    for _ in 0..sim.planned_steps().min(MAX_STEPS) {
        match sim.step() {
            Ok(_) => {
                for (b, s) in sim.model().bodies.iter().zip(&sim.state().bodies) {
                    assert!(s.is_finite(), "body {} after an accepted step: {s:?}", b.name);
                }
            }
            Err(e) => {
                assert!(!e.to_string().is_empty());
                return;
            }
        }
    }
});
