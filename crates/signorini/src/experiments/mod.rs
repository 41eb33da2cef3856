//! The papers' experiments as library functions, shared by the tests that assert their claims and
//! by the CLI's `experiment` command that writes their CSV files and plots. Each takes a bundled
//! scene (`examples/`), or for single-collision experiments (`impulse`) a collision matrix built
//! in code, and returns the figures the paper reports. `robustness` is the issue-16 check of every
//! contact model on its defaults against the targets.
pub mod complementarity;
pub mod deformable;
pub mod grasp;
pub mod humanoid;
pub mod impulse;
pub mod mobile_robot;
pub mod peg;
pub mod planar_nguyen_trinkle;
pub mod planar_peg;
pub mod penalty;
pub mod pose;
pub mod robustness;
pub mod tree_drive;

use crate::dynamics::State;
use crate::pipeline::StepReport;
use crate::scene::Scene;
use crate::simulation::{Error, Simulation};

/// Run `scene` for its duration with its contact model (or `model` instead), calling `observe`
/// with the state after each step (and once with the initial state and `None`). Returns the final
/// state, or the first failure as text (scene or step error).
pub fn simulate(
    scene: &Scene,
    model: Option<&str>,
    mut observe: impl FnMut(&State, Option<&StepReport>),
) -> Result<State, Error> {
    let mut sim = Simulation::new(scene.clone(), model, &[])?;
    observe(sim.state(), None);
    sim.run_to_end(|state, report| observe(state, Some(report)))
        .map_err(|e| match e {
            Error::Step(_) => Error::InScene {
                file: scene.desc.file.clone(),
                error: Box::new(e),
            },
            e => e,
        })?;
    Ok(sim.into_state())
}

/// Largest penetration depth of the contacts after a step (m); 0 for the initial call.
pub fn penetration(report: Option<&StepReport>) -> f64 {
    report.map_or(0.0, |r| r.max_penetration)
}
