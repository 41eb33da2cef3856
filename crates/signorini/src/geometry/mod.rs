//! Geometry: shapes, convex polytope topology, mass properties and pure geometric queries.
//! Knows nothing of bodies or time.
pub mod gjk;
pub mod intersection;
pub mod mass;
pub mod overlap;
pub mod penetration;
pub mod placed;
pub mod polytope;
pub mod pose;
pub mod shape;

pub use intersection::{
    intersect, intersect_half_space, FaceOrigin, Intersection, IntersectionFace,
};
pub use mass::MassProperties;
pub use overlap::overlap_volume;
pub use placed::PlacedPolytope;
pub use polytope::{Edge, Face, Feature, Polytope};
pub use pose::Pose;
pub use shape::Shape;

/// Errors from building geometry out of user data.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum GeometryError {
    #[error("degenerate convex hull: {0}")]
    DegenerateHull(String),
    #[error("invalid shape: {0}")]
    InvalidShape(String),
}
