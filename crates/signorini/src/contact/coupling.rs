//! How a contact model couples to the time step: three kinds of physics, three traits, one enum.
//!
//! | kind | trait | what the pipeline gives it | what it gives back | integrated by |
//! |---|---|---|---|---|
//! | force (penalty) | [`ForceModel`] | a state and its contacts | contact wrenches, or force elements with their stiffness and damping (`implicit-euler`) | the scene's integrator, at every stage |
//! | velocity level (Stewart–Trinkle, Anitescu–Potra, PEG) | [`VelocityLevelModel`] | a [`VelocityProblem`]: h, applied wrenches, free velocity, inverse mass, Jacobian rows | contact impulses / h | semi-implicit Euler, once a step |
//! | impulse based (`impulse`, `hybrid`) | [`ImpulseBasedModel`] | contacts at instants (`pipeline::impulse`) | velocity jumps, then continuous forces and how long they hold | `pipeline::impulse`'s substeps |
//!
//! [`ContactModel`] is the enum over the three; `pipeline::advance` is one `match` on it, as
//! MuJoCo's `mj_step` is one switch. What every kind shares (name, parameters, activation
//! distance, memory kept across steps, counters of its own) is [`ModelBase`].
use super::impulse::{ImpulseStages, LoopSettings};
use super::impulses::ContactImpulses;
use super::params::ParamValue;
use super::time_stepping::PositionProjection;
use super::velocity_problem::VelocityProblem;
use super::{ContactError, ModelSpec, ModelStats};
use crate::collision::Contact;
use crate::dynamics::implicit::ForceElement;
use crate::dynamics::{Model, State, Wrench};

/// Access to the concrete model behind a `dyn` trait object (for tests and experiments that
/// read a model's own state, e.g. the hybrid's contact phases). Implemented for every type.
pub trait AsAny: std::any::Any {
    fn as_any(&self) -> &dyn std::any::Any;
    fn as_any_mut(&mut self) -> &mut dyn std::any::Any;
}

impl<T: std::any::Any> AsAny for T {
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
    fn as_any_mut(&mut self) -> &mut dyn std::any::Any {
        self
    }
}

/// What every contact model has, whatever its coupling.
pub trait ModelBase: Send + AsAny {
    fn spec(&self) -> ModelSpec;

    /// Parameter values in effect, for `summary.json` (name → value or default expression).
    fn parameters(&self) -> Vec<(&'static str, ParamValue)>;

    /// The gap (m) below which the narrow phase reports contacts at `state`. The default is the
    /// scene's `simulation.activation_distance`.
    fn activation_distance(&self, model: &Model, _state: &State) -> f64 {
        model.settings.activation_distance
    }

    /// Whether the narrow phase adds every polytope pair's near features to its contacts (the
    /// vertices, edge pairs and edges crossing a face's boundary within the pair's reach,
    /// `collision::near_features`), not only the points of the axis that realizes the gap. The
    /// default: no.
    fn near_features(&self, _model: &Model) -> bool {
        false
    }

    /// Called once per accepted step with the contacts of the new state (models with memory
    /// update it here). The default does nothing. Memory kept across steps changes only here:
    /// an adaptive step may evaluate a model and then throw the attempt away.
    fn end_step(&mut self, _model: &Model, _state: &State, _contacts: &[Contact]) {}

    /// Counters of the model's own over its last step (name, value), e.g. PEG's trapped
    /// constraints; empty by default. The shared [`ModelStats`] hold only what every model has.
    fn counters(&self) -> Vec<(&'static str, u64)> {
        Vec::new()
    }
}

/// Forces as a function of the state (penalty models): any integrator evaluates them at each of
/// its stages.
pub trait ForceModel: ModelBase {
    /// Add the contact forces for `contacts` at `state` into `out` (one wrench per body, world
    /// axes, torque about the centre of mass), and record each point's force in `log`
    /// ([`ContactImpulses::force`]). `h` is the time step (s).
    fn contact_forces(
        &mut self,
        model: &Model,
        state: &State,
        contacts: &[Contact],
        h: f64,
        out: &mut [Wrench],
        log: &mut ContactImpulses,
    ) -> Result<ModelStats, ContactError>;

    /// The contact forces for the `implicit-euler` integrator: what the model takes as it is at
    /// `state` goes into `out`, its spring–dampers into `elements` (force, stiffness, damping
    /// along a direction at a point; `dynamics::implicit`), which the pipeline takes at the end
    /// of the step. What goes into `out` is recorded in `log` as in `contact_forces`; the
    /// pipeline records the elements' forces. The default linearises nothing:
    /// `contact_forces`, all explicit.
    #[allow(clippy::too_many_arguments)]
    fn linearised_forces(
        &mut self,
        model: &Model,
        state: &State,
        contacts: &[Contact],
        h: f64,
        out: &mut [Wrench],
        _elements: &mut Vec<ForceElement>,
        log: &mut ContactImpulses,
    ) -> Result<ModelStats, ContactError> {
        self.contact_forces(model, state, contacts, h, out, log)
    }
}

/// Velocity-level time stepping: one complementarity problem per step in the velocities at the
/// end of the step, posed on the system dynamics the pipeline built ([`VelocityProblem`]), as
/// Drake's contact solvers receive theirs.
pub trait VelocityLevelModel: ModelBase {
    /// Add the contact impulses of the step divided by h (the mean contact force over the step)
    /// into `out`, which holds the applied wrenches of `problem` on entry; the pipeline then
    /// takes the semi-implicit Euler step with `out`. `contacts` are the narrow phase's contacts
    /// of `problem.state`. Each contact's impulse over the step goes into `log`
    /// ([`ContactImpulses::impulse`]).
    fn solve_step(
        &mut self,
        problem: &VelocityProblem,
        contacts: &[Contact],
        out: &mut [Wrench],
        log: &mut ContactImpulses,
    ) -> Result<ModelStats, ContactError>;

    /// Whether the pipeline projects positions after the step (`pipeline::projection`), and
    /// how. The default: no.
    fn projection(&self) -> Option<PositionProjection> {
        None
    }
}

/// Impulse-based models: `pipeline::impulse` runs their steps (substeps at the times of impact)
/// and calls the model for the velocity updates ([`ImpulseStages`]), the continuous forces
/// between them and how long those hold.
pub trait ImpulseBasedModel: ModelBase + ImpulseStages {
    /// The loop the pipeline must run the model with.
    fn loop_settings(&self) -> LoopSettings;

    /// Continuous forces at `state` held over a substep (Baraff's resting-contact forces, the
    /// hybrid's penalty on resting pairs; none for the others), added into `out` and recorded
    /// per point in `log` ([`ContactImpulses::force`]; the loop sets how long they hold).
    fn contact_forces(
        &mut self,
        model: &Model,
        state: &State,
        contacts: &[Contact],
        h: f64,
        out: &mut [Wrench],
        log: &mut ContactImpulses,
    ) -> Result<ModelStats, ContactError>;

    /// Does [`linearised_forces`](Self::linearised_forces) give force elements (so that under
    /// `implicit-euler` the loop takes them implicitly)? False by default.
    fn linearises(&self) -> bool {
        false
    }

    /// The continuous forces for the `implicit-euler` integrator, as [`ForceModel`]'s: what is
    /// taken as it is into `out`, the spring–dampers into `elements`, which the loop takes at
    /// the end of the substep. The default linearises nothing: `contact_forces`.
    #[allow(clippy::too_many_arguments)]
    fn linearised_forces(
        &mut self,
        model: &Model,
        state: &State,
        contacts: &[Contact],
        h: f64,
        out: &mut [Wrench],
        _elements: &mut Vec<ForceElement>,
        log: &mut ContactImpulses,
    ) -> Result<ModelStats, ContactError> {
        self.contact_forces(model, state, contacts, h, out, log)
    }
}

/// A contact model, by the way it couples to the step.
pub enum ContactModel {
    Force(Box<dyn ForceModel>),
    VelocityLevel(Box<dyn VelocityLevelModel>),
    ImpulseBased(Box<dyn ImpulseBasedModel>),
}

/// The three couplings, without the model (for messages and checks).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Coupling {
    Force,
    VelocityLevel,
    ImpulseBased,
}

impl ContactModel {
    /// What every kind shares.
    pub fn base(&self) -> &dyn ModelBase {
        match self {
            ContactModel::Force(m) => m.as_ref(),
            ContactModel::VelocityLevel(m) => m.as_ref(),
            ContactModel::ImpulseBased(m) => m.as_ref(),
        }
    }

    /// What every kind shares, mutably.
    pub fn base_mut(&mut self) -> &mut dyn ModelBase {
        match self {
            ContactModel::Force(m) => m.as_mut(),
            ContactModel::VelocityLevel(m) => m.as_mut(),
            ContactModel::ImpulseBased(m) => m.as_mut(),
        }
    }

    pub fn coupling(&self) -> Coupling {
        match self {
            ContactModel::Force(_) => Coupling::Force,
            ContactModel::VelocityLevel(_) => Coupling::VelocityLevel,
            ContactModel::ImpulseBased(_) => Coupling::ImpulseBased,
        }
    }

    pub fn spec(&self) -> ModelSpec {
        self.base().spec()
    }

    pub fn parameters(&self) -> Vec<(&'static str, ParamValue)> {
        self.base().parameters()
    }

    pub fn activation_distance(&self, model: &Model, state: &State) -> f64 {
        self.base().activation_distance(model, state)
    }

    pub fn end_step(&mut self, model: &Model, state: &State, contacts: &[Contact]) {
        self.base_mut().end_step(model, state, contacts)
    }

    pub fn counters(&self) -> Vec<(&'static str, u64)> {
        self.base().counters()
    }

    /// The counter `name` of the model's last step (0 when the model has none of that name).
    pub fn counter(&self, name: &str) -> u64 {
        self.counters()
            .into_iter()
            .find(|(n, _)| *n == name)
            .map_or(0, |(_, v)| v)
    }

    /// The concrete model, when it is a `T`.
    pub fn downcast_ref<T: 'static>(&self) -> Option<&T> {
        match self {
            ContactModel::Force(m) => (**m).as_any().downcast_ref(),
            ContactModel::VelocityLevel(m) => (**m).as_any().downcast_ref(),
            ContactModel::ImpulseBased(m) => (**m).as_any().downcast_ref(),
        }
    }

    /// The concrete model, mutably, when it is a `T`.
    pub fn downcast_mut<T: 'static>(&mut self) -> Option<&mut T> {
        match self {
            ContactModel::Force(m) => (**m).as_any_mut().downcast_mut(),
            ContactModel::VelocityLevel(m) => (**m).as_any_mut().downcast_mut(),
            ContactModel::ImpulseBased(m) => (**m).as_any_mut().downcast_mut(),
        }
    }

    /// True for velocity-level time stepping (always integrated by semi-implicit Euler).
    pub fn velocity_level(&self) -> bool {
        self.coupling() == Coupling::VelocityLevel
    }

    /// An impulse-based model whose continuous forces are force elements (the hybrid's
    /// penalty), taken implicitly under `implicit-euler`.
    pub fn impulse_loop_linearises(&self) -> bool {
        matches!(self, ContactModel::ImpulseBased(m) if m.linearises())
    }

    /// The impulse loop of an impulse-based model; `None` for the other kinds.
    pub fn impulse_loop(&self) -> Option<LoopSettings> {
        match self {
            ContactModel::ImpulseBased(m) => Some(m.loop_settings()),
            _ => None,
        }
    }

    /// Forces of a force model, or the continuous forces of an impulse-based one, at `state`
    /// (for tests and experiments that probe a model at one state). A velocity-level model has
    /// no forces of a state: it answers `None`.
    pub fn forces_at(
        &mut self,
        model: &Model,
        state: &State,
        contacts: &[Contact],
        h: f64,
        out: &mut [Wrench],
    ) -> Option<Result<ModelStats, ContactError>> {
        let log = &mut ContactImpulses::off();
        match self {
            ContactModel::Force(m) => Some(m.contact_forces(model, state, contacts, h, out, log)),
            ContactModel::ImpulseBased(m) => {
                Some(m.contact_forces(model, state, contacts, h, out, log))
            }
            ContactModel::VelocityLevel(_) => None,
        }
    }
}
