//! Dynamics: bodies, state, generalized coordinates, applied forces and integrators.
pub mod body;
pub mod dormand_prince;
pub mod energy;
pub mod forces;
pub mod implicit;
pub mod integrate;
pub mod jacobian;
pub mod model;
pub mod piece_pose;
pub mod state;

pub use body::{Body, Material, Piece};
pub use forces::{ScheduledForce, Wrench};
pub use integrate::Integrator;
pub use model::{AdaptiveSettings, Model, Settings};
pub use piece_pose::piece_pose;
pub use state::{BodyState, State};
