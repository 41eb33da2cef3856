//! Contact models: one module per model, each of one of three couplings to the time step
//! ([`ContactModel`]: force, velocity level, impulse based; `coupling.rs` tabulates them).
//!
//! - force (penalty): `deepest_point`, `hunt_crossley`, `multi_point` (shared: `penalty`);
//! - velocity level: `stewart_trinkle` (also Anitescu–Potra) and `peg`, posed on a
//!   [`VelocityProblem`] (shared: `time_stepping`, `cone`);
//! - impulse based: `impulse::model` (`impulse`) and `impulse::hybrid` (`hybrid`), with the
//!   collision laws of `impulse::law` and Baraff's resting-contact LCP (`resting`).
//!
//! Every model declares its parameters once (`params::model_params!`); [`build`] makes a model
//! from its name and the scene's parameters.
pub mod cone;
pub mod coupling;
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
pub mod velocity_problem;

use crate::collision::Contact;
use crate::dynamics::{Model, State};
pub use coupling::{
    ContactModel, Coupling, ForceModel, ImpulseBasedModel, ModelBase, VelocityLevelModel,
};
pub use params::{
    named_values, resolve_params, ConfigError, ParamDefault, ParamInput, ParamKind, ParamSpec,
    ParamValue, Range,
};
pub use velocity_problem::VelocityProblem;

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

/// What a model did during one force evaluation: what every model has. A model's own counters
/// (PEG's trapped constraints, say) come from `ModelBase::counters`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ModelStats {
    /// Contact points that carried a nonzero force.
    pub active_points: usize,
    /// The complementarity problem solved, for constraint-based models.
    pub solve: Option<SolveReport>,
    /// Wall-clock seconds of collision detection the model did itself (PEG's potential
    /// contacts); the pipeline counts them in the narrow-phase stage.
    pub detection: f64,
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
pub fn build(name: &str, params: &[(String, ParamInput)]) -> Result<ContactModel, ConfigError> {
    let specs = catalog();
    let Some(spec) = specs.iter().find(|s| s.name == name) else {
        return Err(ConfigError::UnknownModel {
            name: name.to_string(),
            available: specs.iter().map(|s| s.name).collect::<Vec<_>>().join(", "),
        });
    };
    let values = resolve_params(spec, params)?;
    use ContactModel::{Force, ImpulseBased, VelocityLevel};
    Ok(match spec.name {
        deepest_point::NAME => Force(Box::new(deepest_point::DeepestPoint::new(&values)?)),
        hunt_crossley::NAME => Force(Box::new(hunt_crossley::HuntCrossley::new(&values)?)),
        multi_point::NAME => Force(Box::new(multi_point::MultiPoint::new(&values)?)),
        stewart_trinkle::NAME_STEWART_TRINKLE => {
            VelocityLevel(Box::new(stewart_trinkle::TimeStepping::new(
                stewart_trinkle::Formulation::StewartTrinkle,
                &values,
            )?))
        }
        stewart_trinkle::NAME_ANITESCU_POTRA => {
            VelocityLevel(Box::new(stewart_trinkle::TimeStepping::new(
                stewart_trinkle::Formulation::AnitescuPotra,
                &values,
            )?))
        }
        peg::NAME => VelocityLevel(Box::new(peg::Peg::new(&values)?)),
        impulse::model::NAME => ImpulseBased(Box::new(impulse::model::ImpulseModel::new(&values)?)),
        impulse::hybrid::NAME => ImpulseBased(Box::new(impulse::hybrid::Hybrid::new(&values)?)),
        _ => unreachable!("every catalogued model is buildable"),
    })
}
