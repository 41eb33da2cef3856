//! signorini: rigid-body contact dynamics with side-by-side contact models.
//!
//! Layers (arrows point downward only; see ARCHITECTURE.md):
//! `simulation` → `scene` → `pipeline` → `contact` → `solvers` → `collision` → `dynamics` →
//! `geometry`, with `metrics` reading states and contacts, and `multibody` (articulated trees in
//! generalized coordinates; their ground contact is `contact::tree`) on `geometry`.
//!
//! Conventions: SI units, f64. A contact between bodies A and B has world points `p_a`, `p_b`,
//! a unit normal `n` pointing from A towards B and the signed gap `ψ = (p_b − p_a)·n`
//! (positive when separated, negative when penetrating).
//!
//! # Embedding
//!
//! A [`Simulation`] runs a scene loaded from a file ([`Simulation::from_file`], [`load`]) or built
//! in code ([`ModelBuilder`]); it steps exactly as the `signorini` command does.
//!
//! ```
//! use signorini::prelude::*;
//!
//! let scene = ModelBuilder::new()
//!     .duration(0.5)
//!     .ground()
//!     .body(BodyBuilder::sphere("ball", 0.1).mass(1.0).position(DVec3::new(0.0, 0.0, 1.0)))
//!     .build()?;
//! let mut sim = Simulation::new(scene, None, &[])?;
//! sim.run_to_end(|_, _| {})?;
//! assert!(sim.state().bodies[1].position.z < 1.0);
//! # Ok::<(), signorini::Error>(())
//! ```

/// Declare the layer modules: public with the `internals` feature (the CLI, the tests and the
/// benchmarks reach into them), crate-private otherwise.
macro_rules! layers {
    ($($(#[$m:meta])* $name:ident),* $(,)?) => {
        $(
            $(#[$m])*
            #[cfg(feature = "internals")]
            pub mod $name;
            $(#[$m])*
            #[cfg(not(feature = "internals"))]
            #[allow(dead_code, unused_imports)]
            pub(crate) mod $name;
        )*
    };
}

layers!(
    collision,
    contact,
    deformable,
    dynamics,
    experiments,
    geometry,
    metrics,
    multibody,
    pipeline,
    planar,
    solvers,
    util
);
pub mod scene;
pub mod simulation;

pub use glam::{DMat3, DQuat, DVec2, DVec3};
pub use scene::{load, Scene, SceneError};
pub use simulation::{BodyBuilder, Error, IntoParam, ModelBuilder, Simulation};

// What a step reports and the errors a step or a model can give.
pub use contact::impulse::ImpulseReport;
pub use contact::{ConfigError, ContactError, ContactImpulse, ModelStats, SolveReport};
pub use pipeline::adaptive::{AdaptiveError, AdaptiveStats};
pub use pipeline::{StageTimes, StepError, StepReport};

// The model and state a simulation holds, and the contacts it finds.
pub use collision::Contact;
pub use dynamics::{Body, BodyState, Integrator, Material, Model, Settings, State, Wrench};

/// Contact models: the catalog, building one by name, and the three couplings a model of one's
/// own implements (`docs/library.md`).
pub mod models {
    pub use crate::contact::impulse::{ImpulseStages, LoopSettings, LoopVariant, Stage};
    pub use crate::contact::{
        build, catalog, ContactImpulses, ContactModel, Coupling, ForceModel, ImpulseBasedModel,
        ModelBase, ModelSpec, ParamDefault, ParamInput, ParamKind, ParamSpec, ParamValue, Range,
        VelocityLevelModel, VelocityProblem,
    };
    pub use crate::dynamics::jacobian::{InverseMass, JacobianRow};
}

/// The public surface of the embedding API in one `use signorini::prelude::*;`.
pub mod prelude {
    pub use crate::contact::{catalog, ContactModel, ModelSpec, ParamInput};
    pub use crate::dynamics::{Integrator, Model, Settings, State};
    pub use crate::pipeline::StepReport;
    pub use crate::scene::{load, Scene};
    pub use crate::simulation::{BodyBuilder, Error, IntoParam, ModelBuilder, Simulation};
    pub use glam::{DQuat, DVec3};
}

/// The README's Rust examples, compiled and run as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
mod readme {}
