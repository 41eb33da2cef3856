//! The mutable state of a simulation.
use crate::geometry::Pose;
use glam::{DMat3, DQuat, DVec3};

/// Where a body is and how it moves. `position` is the centre of mass (m), `orientation` the unit
/// quaternion of the body frame, `velocity` (m/s) and `angular_velocity` (rad/s) in world axes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BodyState {
    pub position: DVec3,
    pub orientation: DQuat,
    pub velocity: DVec3,
    pub angular_velocity: DVec3,
}

impl BodyState {
    pub fn pose(&self) -> Pose {
        Pose::new(self.position, self.orientation)
    }

    /// Velocity of the material point at world position `p` (m/s).
    pub fn point_velocity(&self, p: DVec3) -> DVec3 {
        self.velocity + self.angular_velocity.cross(p - self.position)
    }

    /// World inverse inertia R J⁻¹ Rᵀ.
    pub fn world_inverse_inertia(&self, inv_inertia_body: &DMat3) -> DMat3 {
        let r = DMat3::from_quat(self.orientation);
        r * *inv_inertia_body * r.transpose()
    }

    pub fn is_finite(&self) -> bool {
        self.position.is_finite()
            && self.orientation.is_finite()
            && self.velocity.is_finite()
            && self.angular_velocity.is_finite()
    }
}

/// The state of the whole simulation.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct State {
    /// Simulated time (s).
    pub time: f64,
    /// Steps taken.
    pub step: u64,
    pub bodies: Vec<BodyState>,
    /// Wrenches applied from outside (body index, force (N) at the centre of mass and torque
    /// (N m), world axes), held until changed: what an embedding program pushes with
    /// (`Simulation::set_force`), as MuJoCo's `xfrc_applied` in its mutable data. Added after the
    /// scene's scheduled forces; empty unless set.
    pub external: Vec<(usize, super::Wrench)>,
}
