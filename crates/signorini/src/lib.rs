//! signorini: rigid-body contact dynamics with side-by-side contact models.
//!
//! Layers (arrows point downward only; see ARCHITECTURE.md):
//! `scene` → `pipeline` → `contact` → `solvers` → `collision` → `dynamics` → `geometry`,
//! with `metrics` reading states and contacts.
//!
//! Conventions: SI units, f64. A contact between bodies A and B has world points `p_a`, `p_b`,
//! a unit normal `n` pointing from A towards B and the signed gap `ψ = (p_b − p_a)·n`
//! (positive when separated, negative when penetrating).

pub mod collision;
pub mod contact;
pub mod dynamics;
pub mod experiments;
pub mod geometry;
pub mod metrics;
pub mod pipeline;
pub mod scene;
pub mod solvers;
pub mod util;

pub use glam::{DMat3, DQuat, DVec2, DVec3};
