//! The papers' experiments as library functions, shared by the tests that assert their claims and
//! by the CLI's `experiment` command that writes their CSV files and plots. Each takes a bundled
//! scene (`examples/`), or for single-collision experiments (`impulse`) a collision matrix built
//! in code, and returns the figures the paper reports.
pub mod complementarity;
pub mod impulse;
pub mod peg;
pub mod penalty;

use crate::contact::ContactModel;
use crate::dynamics::State;
use crate::pipeline::adaptive::Stepper;
use crate::pipeline::{StepReport, Workspace};
use crate::scene::Scene;

/// Run `scene` for its duration with its contact model (or `model` instead), calling `observe`
/// with the state after each step (and once with the initial state and `None`). Returns the final
/// state, or the first failure as text (scene or step error).
pub fn simulate(
    scene: &Scene,
    model: Option<&str>,
    mut observe: impl FnMut(&State, Option<&StepReport>),
) -> Result<State, String> {
    let (mut cm, _): (ContactModel, _) = scene.contact_model(model).map_err(|e| e.to_string())?;
    let mut stepper = Stepper::new(&scene.model, cm.as_ref()).map_err(|e| e.to_string())?;
    let mut state = scene.initial.clone();
    let mut ws = Workspace::new();
    observe(&state, None);
    while !stepper.finished(&scene.model, &state) {
        let report = stepper
            .step(&scene.model, &mut state, &mut ws, cm.as_mut())
            .map_err(|e| format!("{}: {e}", scene.desc.file))?;
        observe(&state, Some(&report));
    }
    Ok(state)
}

/// Largest penetration depth of the contacts after a step (m); 0 for the initial call.
pub fn penetration(report: Option<&StepReport>) -> f64 {
    report.map_or(0.0, |r| r.max_penetration)
}
