//! Contact models: one module per model, all behind the [`ContactModel`] trait.
//!
//! This issue provides the force-based coupling (penalty models: contact forces are a function of
//! the state, integrated by the chosen integrator at every stage). The constraint-based models
//! (Stewart–Trinkle, PEG) and impulse models will add their coupling to the same trait: they read
//! the same [`Contact`]s and build Jacobian rows with `dynamics::jacobian`.
pub mod cone;
pub mod deepest_point;
pub mod hunt_crossley;
pub mod impulse;
pub mod multi_point;
pub mod params;
pub mod peg;
pub mod penalty;
pub mod resting;
pub mod stewart_trinkle;
pub mod time_stepping;

use crate::collision::Contact;
use crate::dynamics::{Model, State, Wrench};
pub use params::{
    named_values, resolve_params, ConfigError, ParamDefault, ParamInput, ParamKind, ParamSpec,
    ParamValue, Range,
};

/// A model's name, summary and parameters.
#[derive(Clone, Copy, Debug)]
pub struct ModelSpec {
    pub name: &'static str,
    pub summary: &'static str,
    pub params: &'static [ParamSpec],
}

/// Every contact model this build provides.
pub fn catalog() -> Vec<ModelSpec> {
    vec![
        deepest_point::SPEC,
        hunt_crossley::SPEC,
        multi_point::SPEC,
        stewart_trinkle::SPEC_STEWART_TRINKLE,
        stewart_trinkle::SPEC_ANITESCU_POTRA,
        peg::SPEC,
        impulse::model::SPEC,
        impulse::hybrid::SPEC,
    ]
}

/// A model failure during a step (a solver that did not converge, say).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{0}")]
pub struct ContactError(pub String);

/// What a model did during one force evaluation.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ModelStats {
    /// Contact points that carried a nonzero force.
    pub active_points: usize,
    /// The complementarity problem solved, for constraint-based models.
    pub solve: Option<SolveReport>,
    /// Wall-clock seconds of collision detection the model did itself (PEG's potential
    /// contacts); the pipeline counts them in the narrow-phase stage.
    pub detection: f64,
    /// PEG: constraints whose primary contact ended the step beyond its plane while another
    /// member held the constraint — a corner the standard model's single half-space would have
    /// blocked (`contact::peg::TRAP_DEPTH`). Zero for the other models.
    pub traps: usize,
    /// PEG: a further pass (`contact::peg`, parameter `passes`) whose subproblem was too large or
    /// was not solved, so that the step kept the previous pass's solution. Zero for the others.
    pub passes_dropped: usize,
}

/// One complementarity solve inside a model.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SolveReport {
    /// Unknowns of the problem.
    pub rows: usize,
    /// The solver whose answer was used.
    pub solver: &'static str,
    /// Its iterations or pivots.
    pub iterations: usize,
    /// Its scaled natural-map residual (`solvers::residual`).
    pub residual: f64,
    /// Solvers tried (1 when the first succeeded).
    pub attempts: usize,
    /// Wall-clock seconds in the solvers.
    pub seconds: f64,
    /// No solver met the tolerance; the answer with the smallest residual was used.
    pub failed: bool,
}

/// A contact model. Implementations keep whatever per-pair memory they need between steps.
pub trait ContactModel: Send {
    fn spec(&self) -> ModelSpec;

    /// Parameter values in effect, for `summary.json` (name → value or default expression).
    fn parameters(&self) -> Vec<(&'static str, ParamValue)>;

    /// Add the contact forces for `contacts` at `state` into `out` (one wrench per body, world
    /// axes, torque about the centre of mass). `h` is the time step (s). Memory kept across steps
    /// changes only in `end_step`: an adaptive step may evaluate forces and then throw the attempt
    /// away.
    fn contact_forces(
        &mut self,
        model: &Model,
        state: &State,
        contacts: &[Contact],
        h: f64,
        out: &mut [Wrench],
    ) -> Result<ModelStats, ContactError>;

    /// Called once per accepted step with the contacts of the new state (models with memory
    /// update it here). The default does nothing.
    fn end_step(&mut self, _model: &Model, _state: &State, _contacts: &[Contact]) {}

    /// True for velocity-level time-stepping models: their `contact_forces` are impulses over the
    /// step divided by h, computed for the semi-implicit Euler update, so the pipeline always
    /// integrates them with semi-implicit Euler (one evaluation per step).
    fn velocity_level(&self) -> bool {
        false
    }

    /// The gap (m) below which the narrow phase reports contacts at `state`. The default is the
    /// scene's `simulation.activation_distance`.
    fn activation_distance(&self, model: &Model, _state: &State) -> f64 {
        model.settings.activation_distance
    }

    /// Impulse-based models (`contact::impulse`) return the loop the pipeline must run them with
    /// (`pipeline::impulse`); `None`, the default, for force-based and velocity-level models.
    fn impulse_loop(&self) -> Option<impulse::LoopSettings> {
        None
    }

    /// Impulse-based models: their impulse stages (`Some` exactly when `impulse_loop` is).
    fn impulse_stages(&mut self) -> Option<&mut dyn impulse::ImpulseStages> {
        None
    }
}

/// The Jacobian row of contact `c`'s relative velocity (point on B minus point on A) along `d`.
pub fn contact_jacobian_row(
    model: &Model,
    state: &State,
    offsets: &[Option<usize>],
    c: &Contact,
    d: glam::DVec3,
) -> crate::dynamics::jacobian::JacobianRow {
    crate::dynamics::jacobian::contact_row(
        model,
        state,
        offsets,
        (c.body_a, c.point_a),
        (c.body_b, c.point_b),
        d,
    )
}

/// Build the model `name` with `params` (name, value) from the scene; absent ones take defaults.
pub fn build(
    name: &str,
    params: &[(String, ParamInput)],
) -> Result<Box<dyn ContactModel>, ConfigError> {
    let specs = catalog();
    let Some(spec) = specs.iter().find(|s| s.name == name) else {
        return Err(ConfigError::UnknownModel {
            name: name.to_string(),
            available: specs.iter().map(|s| s.name).collect::<Vec<_>>().join(", "),
        });
    };
    let values = resolve_params(spec, params)?;
    Ok(match spec.name {
        deepest_point::NAME => Box::new(deepest_point::DeepestPoint::new(&values)?),
        hunt_crossley::NAME => Box::new(hunt_crossley::HuntCrossley::new(&values)?),
        multi_point::NAME => Box::new(multi_point::MultiPoint::new(&values)?),
        stewart_trinkle::NAME_STEWART_TRINKLE => Box::new(stewart_trinkle::TimeStepping::new(
            stewart_trinkle::Formulation::StewartTrinkle,
            &values,
        )?),
        stewart_trinkle::NAME_ANITESCU_POTRA => Box::new(stewart_trinkle::TimeStepping::new(
            stewart_trinkle::Formulation::AnitescuPotra,
            &values,
        )?),
        peg::NAME => Box::new(peg::Peg::new(&values)?),
        impulse::model::NAME => Box::new(impulse::model::ImpulseModel::new(&values)?),
        impulse::hybrid::NAME => Box::new(impulse::hybrid::Hybrid::new(&values)?),
        _ => unreachable!("every catalogued model is buildable"),
    })
}
