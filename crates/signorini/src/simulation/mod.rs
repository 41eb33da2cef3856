//! The embedding API: a [`Simulation`] owns everything a run needs — the scene (its [`Model`]
//! and initial [`State`]), the current state, the contact model, the step-size policy
//! (`Stepper`: fixed or Deguet's adaptive steps) and the scratch `Workspace` — and steps it.
//! [`ModelBuilder`] writes scenes in code. The CLI's `run` and `bench`, the experiments and
//! [`run`] (which writes a run's files) all step through it, so a program embedding the library
//! gets exactly the numbers the command line writes.
//!
//! ```text
//!   Simulation::new(scene, model, params)   params → scene's [contact], contact model, Stepper
//!   loop: sim.step()                        Stepper::step(model, state, workspace, contact model)
//! ```
//!
//! Layering: this module sits on top of `scene` and `pipeline` (ARCHITECTURE.md's arrows point
//! from here down); `run.rs` streams a whole run to its files through it.
mod builder;
pub mod deformable_output;
pub mod deformables;
mod error;
pub mod multibody_run;
pub mod planar_run;
pub mod robot_scene;
pub mod run;
pub mod tree_output;

pub use builder::{BodyBuilder, IntoParam, ModelBuilder};
pub use deformables::Deformables;
pub use error::Error;

use crate::collision::Contact;
use crate::contact::{catalog, ConfigError, ContactImpulse, ContactModel, ParamInput};
use crate::dynamics::{Model, State, Wrench};
use crate::pipeline::adaptive::{AdaptiveStats, Stepper};
use crate::pipeline::{self, StepReport, Workspace};
use crate::scene::{self, Scene, SceneError};
use glam::DVec3;
use std::path::Path;

/// A scene being simulated: its model, current state, contact model, step-size policy and
/// scratch memory.
pub struct Simulation {
    scene: Scene,
    state: State,
    contact_model: ContactModel,
    /// Scene parameters the contact model does not know (the scene was written for another).
    ignored_params: Vec<String>,
    stepper: Stepper,
    workspace: Workspace,
    /// The scene's `[[deformable]]` bodies, stepped with the rigid ones (`deformables.rs`).
    deformables: Option<Deformables>,
}

impl Simulation {
    /// Simulate `scene` with its contact model, or `model_name` instead, with `params` (name,
    /// value) replacing the scene's `[contact]` parameters. A parameter the model does not have
    /// is an [`Error::Config`] naming it (key `param NAME`); values are checked with the scene's.
    pub fn new(
        mut scene: Scene,
        model_name: Option<&str>,
        params: &[(String, ParamInput)],
    ) -> Result<Self, Error> {
        override_params(&mut scene, model_name, params, "param")?;
        let (contact_model, ignored) = scene.contact_model(model_name)?;
        Self::with_contact_model(scene, contact_model, ignored)
    }

    /// Load, validate and build the scene file at `path` and simulate it with its own contact
    /// model.
    pub fn from_file(path: impl AsRef<Path>) -> Result<Self, Error> {
        Self::new(scene::load(path.as_ref())?, None, &[])
    }

    /// Simulate `scene` with a contact model already built from it ([`Scene::contact_model`];
    /// `ignored_params` is what that call returned). Fails when the scene asks for adaptive
    /// steps and the model cannot take them.
    pub fn with_contact_model(
        scene: Scene,
        contact_model: ContactModel,
        ignored_params: Vec<String>,
    ) -> Result<Self, Error> {
        if let Some(r) = scene.desc.robots.first() {
            // The free bodies' pipeline would step the bodies and leave the robots out.
            return Err(SceneError::new(
                &scene.desc.file,
                r.line,
                r.key.clone(),
                "a scene with robots runs as a forest of trees, not in the free bodies' pipeline",
                "run it with `signorini run` (or `simulation::robot_scene::tree_run` and `multibody_run::run_tree`); docs/multibody.md, \"Robots in a scene\"",
            )
            .into());
        }
        let stepper = Stepper::new(&scene.model, &contact_model)?;
        let state = scene.initial.clone();
        let deformables = Deformables::of_scene(&scene)?;
        Ok(Simulation {
            scene,
            state,
            contact_model,
            ignored_params,
            stepper,
            workspace: Workspace::new(),
            deformables,
        })
    }

    /// One accepted step: of `time_step`, or of the adaptive length (clipped to land on the
    /// scene's duration). Steps on past the duration when asked to.
    /// With deformables, the rigid bodies take the contact forces of the deformables held over
    /// the step, and the deformables step after them (`deformables.rs`).
    pub fn step(&mut self) -> Result<StepReport, Error> {
        let Some(d) = self.deformables.as_mut() else {
            return Ok(self.stepper.step(
                &self.scene.model,
                &mut self.state,
                &mut self.workspace,
                &mut self.contact_model,
            )?);
        };
        let coupling = d.wrenches(&self.scene.model, &self.state);
        let user = std::mem::take(&mut self.state.external);
        self.state.external = deformables::merged(&user, &coupling);
        let stepped = self.stepper.step(
            &self.scene.model,
            &mut self.state,
            &mut self.workspace,
            &mut self.contact_model,
        );
        self.state.external = user;
        let report = stepped?;
        let (step, time) = (self.state.step, self.state.time);
        d.step(report.time_step, &self.scene.model, &mut self.state)
            .map_err(|e| pipeline::StepError::Deformable {
                step,
                time,
                message: e.to_string(),
            })?;
        Ok(report)
    }

    /// The scene's deformable bodies as they are now (`None` without `[[deformable]]` tables).
    pub fn deformables(&self) -> Option<&Deformables> {
        self.deformables.as_ref()
    }

    /// Step until the time reaches `t` (s, within 1e-9 of a time step), calling `observer` with
    /// the state and report after each step. Runs past the scene's duration if `t` lies beyond
    /// it; adaptive steps are not clipped to `t`, so the last one may end after it.
    pub fn run_until(
        &mut self,
        t: f64,
        mut observer: impl FnMut(&State, &StepReport),
    ) -> Result<(), Error> {
        while self.state.time < t - 1e-9 * self.scene.model.settings.time_step {
            let report = self.step()?;
            observer(&self.state, &report);
        }
        Ok(())
    }

    /// Step to the end of the scene's duration ([`Simulation::finished`]), calling `observer`
    /// after each step.
    pub fn run_to_end(
        &mut self,
        mut observer: impl FnMut(&State, &StepReport),
    ) -> Result<(), Error> {
        while !self.finished() {
            let report = self.step()?;
            observer(&self.state, &report);
        }
        Ok(())
    }

    /// Has the state reached the scene's duration (fixed steps: all `duration / time_step`
    /// steps taken)?
    pub fn finished(&self) -> bool {
        self.stepper.finished(&self.scene.model, &self.state)
    }

    /// (done, total) for a progress bar: steps for fixed steps, milliseconds of simulated time
    /// for adaptive ones.
    pub fn progress(&self) -> (u64, u64) {
        self.stepper.progress(&self.scene.model, &self.state)
    }

    /// Step sizes so far, for adaptive steps.
    pub fn adaptive_stats(&self) -> Option<&AdaptiveStats> {
        self.stepper.adaptive_stats()
    }

    /// Steps taken so far.
    pub fn step_count(&self) -> u64 {
        self.state.step
    }

    /// Steps of a whole run with fixed steps: the nearest whole number of `duration / time_step`.
    pub fn planned_steps(&self) -> u64 {
        run::step_count(&self.scene.model)
    }

    pub fn state(&self) -> &State {
        &self.state
    }

    /// The state, giving the simulation up.
    pub fn into_state(self) -> State {
        self.state
    }

    pub fn model(&self) -> &Model {
        &self.scene.model
    }

    /// The scene: its description as written (file name, `[output]`, …), model and initial state.
    pub fn scene(&self) -> &Scene {
        &self.scene
    }

    pub fn contact_model(&self) -> &ContactModel {
        &self.contact_model
    }

    /// Scene `[contact]` parameters the contact model does not use (the scene was written for
    /// another model), left out.
    pub fn ignored_params(&self) -> &[String] {
        &self.ignored_params
    }

    /// Contacts of the current state as the contact model sees them (those of the last step,
    /// or detected now for the initial state).
    pub fn contacts(&mut self) -> &[Contact] {
        pipeline::contacts(
            &self.scene.model,
            &self.state,
            &mut self.workspace,
            &self.contact_model,
        )
    }

    /// What each contact point pushed with over the last step: the impulse (N s, world axes) on
    /// body B at the point, −impulse on A, one entry per (A, B, point) in the order the contact
    /// model applied them (`docs/library.md` says what each model records). Empty before the
    /// first step. Summed over a body's entries, it is the momentum contact gave the body in the
    /// step: m (v⁺ − v) = h (m g + applied force) + Σ_B J − Σ_A J.
    pub fn contact_impulses(&mut self) -> &[ContactImpulse] {
        self.workspace.contact_impulses()
    }

    /// Apply a constant `force` (N, at the centre of mass) and `torque` (N m), world axes, to
    /// `body` from now on, replacing the one set before; zero for both removes it. It lives in
    /// the state (`State::external`), not in the model, which stays as the scene built it; a
    /// simulation that never calls this steps exactly as the scene says.
    pub fn set_force(&mut self, body: usize, force: DVec3, torque: DVec3) -> Result<(), Error> {
        let bodies = self.scene.model.bodies.len();
        if body >= bodies {
            return Err(Error::NoSuchBody { body, bodies });
        }
        let external = &mut self.state.external;
        external.retain(|(b, _)| *b != body);
        if force != DVec3::ZERO || torque != DVec3::ZERO {
            external.push((body, Wrench { force, torque }));
            external.sort_by_key(|(b, _)| *b);
        }
        Ok(())
    }
}

/// Replace `scene`'s `[contact]` parameters with `params` (name, value), checking each name
/// against the model that will run (`model_name`, or the scene's): an unknown one is an
/// [`Error::Config`] with key `{key_prefix} {name}` (the CLI passes `--param`). Values are
/// checked later, with the scene's, by [`Scene::contact_model`] (errors at the same key).
pub fn override_params(
    scene: &mut Scene,
    model_name: Option<&str>,
    params: &[(String, ParamInput)],
    key_prefix: &str,
) -> Result<(), Error> {
    let model_name = model_name.unwrap_or(&scene.desc.contact.model).to_string();
    let spec = catalog().into_iter().find(|s| s.name == model_name);
    for (name, value) in params {
        let key = format!("{key_prefix} {name}");
        if let Some(spec) = spec.filter(|s| !s.params.iter().any(|q| q.name == name)) {
            let names: Vec<_> = spec.params.iter().map(|q| q.name).collect();
            let error = ConfigError::UnknownParam {
                model: model_name,
                param: name.clone(),
                available: names.join(", "),
            };
            return Err(Error::Config { key, error });
        }
        scene.set_param(name, value.clone(), &key);
    }
    Ok(())
}
