//! Small utilities with no physics in them.
pub mod disjoint;
pub mod hash;
pub mod rng;
