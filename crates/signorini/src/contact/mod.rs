//! Contact models: one module per model, each of one of three couplings to the time step
//! ([`ContactModel`]: force, velocity level, impulse based; `coupling.rs` tabulates them).
//!
//! - force (penalty): `deepest_point`, `hunt_crossley`, `multi_point` (shared: `penalty`);
//! - velocity level: `stewart_trinkle` (also Anitescu–Potra) and `peg`, posed on a
//!   [`VelocityProblem`] (shared: `time_stepping`, `cone`);
//! - impulse based: `impulse::model` (`impulse`) and `impulse::hybrid` (`hybrid`), with the
//!   collision laws of `impulse::law` and Baraff's resting-contact LCP (`resting`);
//! - `tree`: contact of an articulated tree (`multibody`) with a ground plane, penalty and LCP.
//!
//! Every model declares its parameters once (`params::model_params!`); [`build`] makes a model
//! from its name and the scene's parameters.
pub mod cone;
pub mod convex_relaxation;
pub mod coupling;
pub mod deepest_point;
pub mod hunt_crossley;
pub mod impulse;
pub mod impulses;
pub mod islands;
pub mod multi_point;
pub mod params;
pub mod peg;
pub mod penalty;
pub mod resting;
pub mod stewart_trinkle;
pub mod time_stepping;
pub mod tree;
pub mod velocity_problem;

use crate::collision::Contact;
use crate::dynamics::{Model, State};
pub use coupling::{
    ContactModel, Coupling, ForceModel, ImpulseBasedModel, ModelBase, VelocityLevelModel,
};
pub use impulses::{ContactImpulse, ContactImpulses};
pub use params::{
    named_values, resolve_params, ConfigError, ParamDefault, ParamInput, ParamKind, ParamSpec,
    ParamValue, Range,
};
pub use time_stepping::PositionProjection;
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
        convex_relaxation::SPEC,
        peg::SPEC,
        impulse::model::SPEC,
        impulse::hybrid::SPEC,
    ]
}

/// Why a contact model could not give its forces or impulses for a step. Each says what failed,
/// where and what to change; the pipeline wraps it in `StepError::Contact` with the step.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ContactError {
    /// No LCP solver of the chain met the tolerance (and `on_failure = "stop"`); `attempts` has
    /// each solver's status, iterations and residual.
    #[error("{problem} not solved to tolerance {tolerance:e}: {attempts}. Try another solver order (contact.solvers), a smaller time step, or contact.on_failure = \"continue\"", attempts = attempts.join("; "))]
    NotSolved {
        /// The problem, e.g. "LCP of 24 rows (4 contacts, 4 with friction)".
        problem: String,
        tolerance: f64,
        attempts: Vec<String>,
    },
    /// `anitescu-convex`: an island's convex step missed its tolerance (and `on_failure =
    /// "stop"`); `attempt` has the Newton steps, multiplier updates and residual.
    #[error("{problem} not solved to tolerance {tolerance:e}: {attempt}. Try a larger contact.max_iterations, a smaller time step, or contact.on_failure = \"continue\"")]
    NotConverged {
        /// The problem, e.g. "convex step of 72 edge rows (18 contacts, 6 bodies)".
        problem: String,
        tolerance: f64,
        attempt: String,
    },
    /// PEG: the step's subproblem would exceed `max_rows`.
    #[error("PEG subproblem of {rows} rows ({constraints} constraints, {slacks} slack rows) exceeds max_rows = {max_rows}{spin}; too many potential contacts are within one step's reach. Try a smaller time step, or raise max_rows", spin = fastest.as_ref().map_or(String::new(), |(b, w)| format!("; fastest turning body `{b}` at {w:.3e} rad/s")))]
    TooManyRows {
        rows: usize,
        constraints: usize,
        slacks: usize,
        max_rows: usize,
        /// The fastest turning moving body and its angular speed (rad/s).
        fastest: Option<(String, f64)>,
    },
    /// A penalty model computed a non-finite force between two bodies.
    #[error("{model}: non-finite force between `{body_a}` and `{body_b}`{detail}")]
    NonFiniteForce {
        model: &'static str,
        body_a: String,
        body_b: String,
        /// What the force was computed from, e.g. " (penetration 1e300, rate 0 m/s)".
        detail: String,
    },
    /// Sequential impulses still left points approaching after `max_sweeps` sweeps.
    #[error("sequential impulses did not converge in {max_sweeps} sweeps: {points} points still approach (among pairs {pairs}); raise max_sweeps or set on_unresolved = \"continue\"", pairs = pairs.join(", "))]
    Unresolved {
        max_sweeps: usize,
        points: u64,
        /// Up to four pairs, "`a`-`b`".
        pairs: Vec<String>,
    },
    /// A collision law failed for an impulse between two bodies.
    #[error("impulse between `{body_a}` and `{body_b}`: {error}")]
    Law {
        body_a: String,
        body_b: String,
        error: impulse::law::LawError,
    },
    /// Baraff's resting-contact forces (the `impulse` model's global option) failed.
    #[error("global option: {}{error}", if matches!(error, resting::RestingError::NotSolved { .. }) { "" } else { "resting contact: " })]
    Resting { error: resting::RestingError },
}

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
    /// Independent problems (contact islands, `islands.rs`) the step's problem split into;
    /// the fields above sum over them (`residual`: the largest).
    pub islands: usize,
}

impl ContactError {
    /// The same error with the failed problem's description rewritten by `describe` (to say which
    /// island or block of the step failed); other errors unchanged.
    pub fn within(self, describe: impl FnOnce(String) -> String) -> ContactError {
        match self {
            ContactError::NotSolved {
                problem,
                tolerance,
                attempts,
            } => ContactError::NotSolved {
                problem: describe(problem),
                tolerance,
                attempts,
            },
            ContactError::NotConverged {
                problem,
                tolerance,
                attempt,
            } => ContactError::NotConverged {
                problem: describe(problem),
                tolerance,
                attempt,
            },
            other => other,
        }
    }
}

impl SolveReport {
    /// The report of two independent problems' solves (contact islands, or independent blocks
    /// of one LCP) as one: rows, iterations, attempts and islands add up, the residual is the
    /// larger (each is scaled by its own ‖q‖∞, which is at most the whole problem's, so the
    /// larger bounds the scaled residual of the whole LCP), the solver is the one of the larger
    /// problem, and the step failed if either did.
    pub fn combined(self, b: &SolveReport) -> SolveReport {
        SolveReport {
            rows: self.rows + b.rows,
            solver: if b.rows > self.rows {
                b.solver
            } else {
                self.solver
            },
            iterations: self.iterations + b.iterations,
            residual: self.residual.max(b.residual),
            attempts: self.attempts + b.attempts,
            seconds: self.seconds + b.seconds,
            failed: self.failed || b.failed,
            islands: self.islands + b.islands,
        }
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
        convex_relaxation::NAME => {
            VelocityLevel(Box::new(stewart_trinkle::TimeStepping::relaxed(&values)?))
        }
        peg::NAME => VelocityLevel(Box::new(peg::Peg::new(&values)?)),
        impulse::model::NAME => ImpulseBased(Box::new(impulse::model::ImpulseModel::new(&values)?)),
        impulse::hybrid::NAME => ImpulseBased(Box::new(impulse::hybrid::Hybrid::new(&values)?)),
        _ => unreachable!("every catalogued model is buildable"),
    })
}
