//! Collision detection: broad phase → narrow phase → contacts (with their features), for pairs
//! that penetrate and for pairs closer than the activation distance; `potential` enumerates PEG's
//! potential contacts (feature pairs and their groups) of close polytope pairs.
pub mod broad;
pub mod narrow;
pub mod near_features;
pub mod potential;

pub use broad::{BroadPhase, PiecePair};
pub use narrow::{NarrowPhase, Reach};

use crate::geometry::Feature;
use glam::DVec3;

/// A contact point between bodies A and B (DESIGN.md conventions): `normal` points from A
/// towards B and `gap = (point_b − point_a)·normal` is negative when they penetrate.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Contact {
    pub body_a: usize,
    pub body_b: usize,
    /// Index of the convex piece of each body.
    pub piece_a: usize,
    pub piece_b: usize,
    /// World points on A and on B (m).
    pub point_a: DVec3,
    pub point_b: DVec3,
    /// Unit normal, from A towards B.
    pub normal: DVec3,
    /// Signed gap ψ (m): positive apart, negative penetrating.
    pub gap: f64,
    /// Features of each piece that produced the contact.
    pub feature_a: Feature,
    pub feature_b: Feature,
}

impl Contact {
    /// The same contact seen from B: A and B swapped, normal reversed, gap unchanged.
    pub fn flipped(&self) -> Contact {
        Contact {
            body_a: self.body_b,
            body_b: self.body_a,
            piece_a: self.piece_b,
            piece_b: self.piece_a,
            point_a: self.point_b,
            point_b: self.point_a,
            normal: -self.normal,
            gap: self.gap,
            feature_a: self.feature_b,
            feature_b: self.feature_a,
        }
    }

    /// Midpoint of the two contact points (where a single force is applied to both bodies).
    pub fn midpoint(&self) -> DVec3 {
        0.5 * (self.point_a + self.point_b)
    }
}

/// Largest penetration depth among `contacts` (m, ≥ 0).
pub fn max_penetration(contacts: &[Contact]) -> f64 {
    contacts.iter().map(|c| -c.gap).fold(0.0, f64::max)
}
