//! A convex polytope placed in the world by a pose: its vertices, outward face normals, face
//! plane offsets and centroid in world axes, computed once and reused by every query on it.
//!
//! With the pose x ↦ R x + t, a vertex v goes to R v + t, a face normal η to R η, and the plane
//! η·x = o of a face to (R η)·x = o + (R η)·t. The narrow phase (`collision::narrow`), PEG's
//! potential contacts (`collision::potential`, which adds the motion and the covered faces) and
//! the polytope intersection (`geometry::intersection`, B placed in A's frame) all place their
//! polytopes with [`PlacedPolytope::place`].
use super::{Polytope, Pose};
use glam::DVec3;

/// A polytope placed in the world: vertices, face normals and plane offsets in world axes.
#[derive(Default, Debug, Clone)]
pub struct PlacedPolytope {
    pub pose: Pose,
    /// World vertices, in the polytope's vertex order.
    pub vertices: Vec<DVec3>,
    /// World outward unit normals, in the polytope's face order.
    pub normals: Vec<DVec3>,
    /// Plane offsets: face f is {x : `normals[f]`·x = `offsets[f]`} (m).
    pub offsets: Vec<f64>,
    pub centroid: DVec3,
}

impl PlacedPolytope {
    /// `p` placed at `pose`.
    pub fn new(p: &Polytope, pose: &Pose) -> Self {
        let mut placed = PlacedPolytope::default();
        placed.place(p, pose);
        placed
    }

    /// Place `p` at `pose`, reusing the buffers.
    pub fn place(&mut self, p: &Polytope, pose: &Pose) {
        self.pose = *pose;
        self.vertices.clear();
        self.vertices
            .extend(p.vertices.iter().map(|v| pose.transform_point(*v)));
        self.normals.clear();
        self.normals
            .extend(p.faces.iter().map(|f| pose.transform_vector(f.normal)));
        self.offsets.clear();
        self.offsets.extend(
            p.faces
                .iter()
                .zip(&self.normals)
                .map(|(f, n)| f.offset + n.dot(pose.translation)),
        );
        self.centroid = pose.transform_point(p.centroid);
    }
}
