//! The contact models that run in the plane: `stewart-trinkle` and `anitescu-potra`
//! (`time_stepping.rs`: velocity-level LCP) and `deepest-point` (`penalty.rs`: a spring–damper
//! force) and `peg` (`peg.rs`: PEG 2D, Williams, Lu & Trinkle 2016 §5.1). Names and parameters follow the 3D catalog (`contact::catalog`); parameters are
//! declared with the same `model_params!` tables and checked by `contact::resolve_params`.
pub mod group;
pub mod peg;
mod peg_implicit;
pub mod penalty;
mod rows;
pub mod time_stepping;

use crate::contact::{resolve_params, ConfigError, ModelSpec, ParamInput, ParamValue};
use peg::PlanarPeg;
use penalty::PlanarPenalty;
use time_stepping::{Formulation, PlanarTimeStepping};

/// Every planar contact model, the default first.
pub fn catalog() -> Vec<ModelSpec> {
    vec![
        time_stepping::SPEC_STEWART_TRINKLE,
        time_stepping::SPEC_ANITESCU_POTRA,
        penalty::SPEC,
        peg::SPEC,
    ]
}

/// A planar contact model.
pub enum PlanarContactModel {
    /// Velocity level: the step's new velocity is an LCP's answer.
    TimeStepping(PlanarTimeStepping),
    /// Force: contact forces added to the step's applied forces.
    Penalty(PlanarPenalty),
    /// Velocity level with PEG's constraints (`peg.rs`).
    Peg(PlanarPeg),
}

impl PlanarContactModel {
    pub fn spec(&self) -> ModelSpec {
        match self {
            PlanarContactModel::TimeStepping(m) => m.spec(),
            PlanarContactModel::Penalty(_) => penalty::SPEC,
            PlanarContactModel::Peg(_) => peg::SPEC,
        }
    }

    /// The parameters in effect, by name.
    pub fn parameters(&self) -> Vec<(&'static str, ParamValue)> {
        let values = match self {
            PlanarContactModel::TimeStepping(m) => m.values(),
            PlanarContactModel::Penalty(m) => m.values(),
            PlanarContactModel::Peg(m) => m.values(),
        };
        crate::contact::named_values(self.spec().params, values)
    }
}

/// The planar model called `name` with the given parameters (checked against its table:
/// unknown names, values out of range and words it does not take are errors naming the
/// parameter). A 3D-only model (e.g. `hunt-crossley`) is an `UnknownModel` listing the
/// planar ones.
pub fn build(
    name: &str,
    params: &[(String, ParamInput)],
) -> Result<PlanarContactModel, ConfigError> {
    let Some(spec) = catalog().into_iter().find(|s| s.name == name) else {
        return Err(ConfigError::UnknownModel {
            name: name.to_string(),
            available: format!(
                "{} (the models that run in 2D so far)",
                catalog()
                    .iter()
                    .map(|s| s.name)
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        });
    };
    let values = resolve_params(&spec, params)?;
    Ok(match name {
        "stewart-trinkle" => PlanarContactModel::TimeStepping(PlanarTimeStepping::new(
            Formulation::StewartTrinkle,
            &values,
        )?),
        "anitescu-potra" => PlanarContactModel::TimeStepping(PlanarTimeStepping::new(
            Formulation::AnitescuPotra,
            &values,
        )?),
        "peg" => PlanarContactModel::Peg(PlanarPeg::new(&values)?),
        _ => PlanarContactModel::Penalty(PlanarPenalty::new(&values)),
    })
}
