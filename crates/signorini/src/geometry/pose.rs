//! Rigid transforms: a rotation (unit quaternion) followed by a translation.
use glam::{DQuat, DVec3};

/// `x_world = rotation * x_local + translation`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pose {
    pub rotation: DQuat,
    pub translation: DVec3,
}

impl Default for Pose {
    fn default() -> Self {
        Pose::IDENTITY
    }
}

impl Pose {
    pub const IDENTITY: Pose = Pose {
        rotation: DQuat::IDENTITY,
        translation: DVec3::ZERO,
    };

    pub fn new(translation: DVec3, rotation: DQuat) -> Self {
        Pose {
            rotation,
            translation,
        }
    }

    pub fn transform_point(&self, p: DVec3) -> DVec3 {
        self.rotation * p + self.translation
    }

    pub fn transform_vector(&self, v: DVec3) -> DVec3 {
        self.rotation * v
    }

    pub fn inverse_transform_point(&self, p: DVec3) -> DVec3 {
        self.rotation.inverse() * (p - self.translation)
    }

    pub fn inverse_transform_vector(&self, v: DVec3) -> DVec3 {
        self.rotation.inverse() * v
    }

    /// `self ∘ other`: apply `other` first, then `self`.
    pub fn mul(&self, other: &Pose) -> Pose {
        Pose {
            rotation: (self.rotation * other.rotation).normalize(),
            translation: self.transform_point(other.translation),
        }
    }

    pub fn inverse(&self) -> Pose {
        let r = self.rotation.inverse();
        Pose {
            rotation: r,
            translation: -(r * self.translation),
        }
    }
}
