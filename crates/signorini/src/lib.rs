//! signorini: rigid-body contact dynamics with side-by-side contact models.
//!
//! Layers (arrows point downward only; see ARCHITECTURE.md):
//! `simulation` → `scene` → `pipeline` → `contact` → `solvers` → `collision` → `dynamics` →
//! `geometry`, with `metrics` reading states and contacts.
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

pub mod collision;
pub mod contact;
pub mod dynamics;
pub mod experiments;
pub mod geometry;
pub mod metrics;
pub mod pipeline;
pub mod scene;
pub mod simulation;
pub mod solvers;
pub mod util;

pub use glam::{DMat3, DQuat, DVec2, DVec3};
pub use scene::{load, Scene};
pub use simulation::{BodyBuilder, Error, ModelBuilder, Simulation};

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
