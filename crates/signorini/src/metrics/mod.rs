//! Measurements of a state: penetration, overlap volume (`overlap`). The energies and momenta
//! live in [`crate::dynamics::energy`] and are re-exported here for existing callers.
pub mod overlap;

pub use crate::dynamics::energy::{
    angular_momentum, kinetic_energy, linear_momentum, potential_energy,
};
