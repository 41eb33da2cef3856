//! Small utilities with no physics in them.
pub mod rng;
