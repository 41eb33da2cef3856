//! The polytopes of a pair placed in the world ([`PlacedPolytope`]) with what the look-ahead of
//! §4.3 needs on top: how each moves ([`Motion`]: a vertex p moving at w relative to the other
//! polytope sweeps [p, p + T w]) and which of its faces another piece of its body covers.
use super::edge::WorldEdge;
use crate::geometry::{PlacedPolytope, Polytope, Pose};
use glam::DVec3;
use std::sync::Arc;

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
    /// Every edge in world axes (endpoints, the unit vectors in its faces of eq. 26), in edge
    /// order.
    pub(super) edges: Vec<WorldEdge>,
    pub(super) motion: Motion,
    /// Faces covered by another piece of the same body (not boundary).
    pub(super) covered: Vec<bool>,
    /// A number no other placement has (`pose`: what a pair's search keeps is for the
    /// placements it was computed at).
    pub(super) stamp: u64,
}

/// A stamp no placement had before.
fn fresh_stamp() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(1);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

impl World {
    pub(super) fn place(&mut self, p: &Polytope, pose: &Pose, motion: &Motion, covered: &[bool]) {
        self.place_at(p, pose);
        self.set_motion(p, motion, covered);
    }

    /// Vertices, planes and edges of `p` at `pose`, with a fresh stamp.
    pub(super) fn place_at(&mut self, p: &Polytope, pose: &Pose) {
        self.stamp = fresh_stamp();
        self.placed.place(p, pose);
        self.edges.clear();
        let placed = &self.placed;
        self.edges
            .extend((0..p.edges.len()).map(|e| WorldEdge::new(p, placed, e)));
    }

    /// The motion and covered faces (of `p`'s faces).
    pub(super) fn set_motion(&mut self, p: &Polytope, motion: &Motion, covered: &[bool]) {
        self.motion = *motion;
        self.covered.clear();
        self.covered
            .extend((0..p.faces.len()).map(|f| covered.get(f).copied().unwrap_or(false)));
    }
}

/// The placed piece of a body kept between searches (`Scratch`): placed again only when its pose
/// changes bit for bit, or its polytope (held here, so that the pointer identifies it).
#[derive(Clone, Debug)]
pub(super) struct PlacedPiece {
    polytope: Arc<Polytope>,
    pose: Pose,
    pub(super) world: World,
}

impl PlacedPiece {
    /// `p` placed at `pose`.
    pub(super) fn new(p: &Arc<Polytope>, pose: &Pose) -> Self {
        let mut world = World::default();
        world.place_at(p, pose);
        PlacedPiece {
            polytope: Arc::clone(p),
            pose: *pose,
            world,
        }
    }

    /// Placed for `p` at `pose` again if either differs from the last placement.
    pub(super) fn update(&mut self, p: &Arc<Polytope>, pose: &Pose) {
        if !Arc::ptr_eq(&self.polytope, p) || !same_bits(&self.pose, pose) {
            self.polytope = Arc::clone(p);
            self.pose = *pose;
            self.world.place_at(p, pose);
        }
    }
}

/// Are two poses equal bit for bit (−0 and +0 differ: the placement is then redone, never taken
/// from a pose that only compares equal)?
fn same_bits(x: &Pose, y: &Pose) -> bool {
    let bits = |p: &Pose| {
        let (q, t) = (p.rotation, p.translation);
        [q.x, q.y, q.z, q.w, t.x, t.y, t.z].map(f64::to_bits)
    };
    bits(x) == bits(y)
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
