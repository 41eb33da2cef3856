//! The polytopes of a pair placed in the world ([`PlacedPolytope`]) with what the look-ahead of
//! §4.3 needs on top: how each moves ([`Motion`]: a vertex p moving at w relative to the other
//! polytope sweeps [p, p + T w]) and which of its faces another piece of its body covers.
use crate::geometry::{PlacedPolytope, Polytope, Pose};
use glam::DVec3;

/// How a polytope moves (world axes): the velocity of `point` and the angular velocity.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Motion {
    pub point: DVec3,
    /// m/s.
    pub velocity: DVec3,
    /// rad/s.
    pub angular_velocity: DVec3,
}

impl Motion {
    /// At rest.
    pub const REST: Motion = Motion {
        point: DVec3::ZERO,
        velocity: DVec3::ZERO,
        angular_velocity: DVec3::ZERO,
    };

    /// Velocity of the material point at `p` (m/s).
    pub fn at(&self, p: DVec3) -> DVec3 {
        self.velocity + self.angular_velocity.cross(p - self.point)
    }
}

/// A polytope placed in the world, moving, with its covered faces.
#[derive(Clone, Debug, Default)]
pub(super) struct World {
    /// Vertices, face normals, plane offsets and centroid in world axes.
    pub(super) placed: PlacedPolytope,
    pub(super) motion: Motion,
    /// Faces covered by another piece of the same body (not boundary).
    pub(super) covered: Vec<bool>,
}

impl World {
    pub(super) fn place(&mut self, p: &Polytope, pose: &Pose, motion: &Motion, covered: &[bool]) {
        self.motion = *motion;
        self.covered.clear();
        self.covered
            .extend((0..p.faces.len()).map(|f| covered.get(f).copied().unwrap_or(false)));
        self.placed.place(p, pose);
    }
}

impl std::ops::Deref for World {
    type Target = PlacedPolytope;
    fn deref(&self) -> &PlacedPolytope {
        &self.placed
    }
}

/// A polytope with its world placement.
#[derive(Clone, Copy)]
pub(super) struct Side<'a> {
    pub(super) p: &'a Polytope,
    pub(super) w: &'a World,
}
