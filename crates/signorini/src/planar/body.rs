//! Planar rigid bodies: the model (shapes, masses, rotational inertias about the centre of mass,
//! materials, settings) and the state (x, y, θ of the centre of mass and the body frame, and
//! vx, vy, ω).
//!
//! A body's frame has its origin at the centre of mass; its angle θ turns it counter-clockwise.
//! A scene places the *shape frame* (the frame its points are written in); `com_in_shape_frame`
//! converts, as in 3D. Generalized velocity: [vx, vy, ω] per dynamic body; fixed bodies take none.
use super::mass;
use super::shape::PlanarShape;
pub use crate::dynamics::Material;
use glam::DVec2;

/// A rotation by angle θ, kept as (cos θ, sin θ).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rot2 {
    pub c: f64,
    pub s: f64,
}

impl Rot2 {
    pub fn new(angle: f64) -> Self {
        let (s, c) = angle.sin_cos();
        Rot2 { c, s }
    }

    pub fn apply(&self, v: DVec2) -> DVec2 {
        DVec2::new(self.c * v.x - self.s * v.y, self.s * v.x + self.c * v.y)
    }

    pub fn inverse_apply(&self, v: DVec2) -> DVec2 {
        DVec2::new(self.c * v.x + self.s * v.y, -self.s * v.x + self.c * v.y)
    }
}

/// A body frame in the world: origin and rotation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pose2 {
    pub position: DVec2,
    pub rotation: Rot2,
}

impl Pose2 {
    pub fn new(position: DVec2, angle: f64) -> Self {
        Pose2 {
            position,
            rotation: Rot2::new(angle),
        }
    }

    /// A point of the body frame in the world.
    pub fn point(&self, p: DVec2) -> DVec2 {
        self.position + self.rotation.apply(p)
    }

    /// A direction of the body frame in the world.
    pub fn vector(&self, v: DVec2) -> DVec2 {
        self.rotation.apply(v)
    }
}

/// A rigid body of a planar model (immutable during a run).
#[derive(Clone, Debug, PartialEq)]
pub struct PlanarBody {
    pub name: String,
    pub fixed: bool,
    /// In the body frame (origin at the centre of mass for dynamic bodies).
    pub shape: PlanarShape,
    /// kg (0 for fixed bodies).
    pub mass: f64,
    /// Rotational inertia about the centre of mass, kg m² (0 for fixed bodies).
    pub inertia: f64,
    /// Index into `PlanarModel::materials`.
    pub material: usize,
    /// The centre of mass in the shape frame the scene wrote the shape in (m).
    pub com_in_shape_frame: DVec2,
}

/// How a dynamic body's mass is given.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum MassSpec {
    /// Total mass, kg.
    Mass(f64),
    /// Areal density, kg/m².
    Density(f64),
}

impl PlanarBody {
    /// A dynamic body with `shape` written in its shape frame: the shape is moved to its
    /// centroid and the mass and inertia follow from the area properties (`mass.rs`). Fails for
    /// a shape without area (segment, line) or a mass or density that is not positive and finite.
    pub fn dynamic(
        name: &str,
        shape: PlanarShape,
        mass: MassSpec,
        material: usize,
    ) -> Result<Self, String> {
        let Some(props) = mass::of_shape(&shape) else {
            return Err(format!(
                "a {} has no area and can only be the shape of a fixed body",
                shape.kind()
            ));
        };
        let (m, inertia) = match mass {
            MassSpec::Mass(m) if m > 0.0 && m.is_finite() => (m, props.inertia_for_mass(m)),
            MassSpec::Density(rho) if rho > 0.0 && rho.is_finite() => props.with_density(rho),
            _ => {
                return Err(format!(
                    "mass and density must be positive and finite, got {mass:?}"
                ))
            }
        };
        if !(m > 0.0 && m.is_finite() && inertia > 0.0 && inertia.is_finite()) {
            return Err(format!(
                "the shape gives mass {m} kg and inertia {inertia} kg m², which are not positive and finite"
            ));
        }
        Ok(PlanarBody {
            name: name.to_string(),
            fixed: false,
            shape: shape.recentred(props.centroid),
            mass: m,
            inertia,
            material,
            com_in_shape_frame: props.centroid,
        })
    }

    /// A fixed body: its frame is the shape frame.
    pub fn fixed(name: &str, shape: PlanarShape, material: usize) -> Self {
        PlanarBody {
            name: name.to_string(),
            fixed: true,
            shape,
            mass: 0.0,
            inertia: 0.0,
            material,
            com_in_shape_frame: DVec2::ZERO,
        }
    }

    /// (1/m, 1/I), zero for a fixed body.
    pub fn inverse_mass(&self) -> (f64, f64) {
        if self.fixed {
            (0.0, 0.0)
        } else {
            (1.0 / self.mass, 1.0 / self.inertia)
        }
    }
}

/// Global settings of a planar run (SI units).
#[derive(Clone, Debug, PartialEq)]
pub struct PlanarSettings {
    /// s.
    pub time_step: f64,
    /// s.
    pub duration: f64,
    /// m/s², world frame (default (0, −9.81): gravity along −y).
    pub gravity: DVec2,
    /// The narrow phase reports pairs closer than this (m).
    pub activation_distance: f64,
    /// A point of a body faster than this (|v| + |ω| r) stops the run (m/s).
    pub max_speed: f64,
}

impl Default for PlanarSettings {
    fn default() -> Self {
        PlanarSettings {
            time_step: 1e-3,
            duration: 1.0,
            gravity: DVec2::new(0.0, -9.81),
            activation_distance: 1e-3,
            max_speed: 1e4,
        }
    }
}

/// A planar model: bodies, materials, settings.
#[derive(Clone, Debug, PartialEq)]
pub struct PlanarModel {
    pub bodies: Vec<PlanarBody>,
    pub materials: Vec<Material>,
    pub settings: PlanarSettings,
}

impl PlanarModel {
    /// Coulomb friction of the pair (a, b): the geometric mean, as in 3D.
    pub fn friction(&self, a: usize, b: usize) -> f64 {
        Material::pair_friction(
            &self.materials[self.bodies[a].material],
            &self.materials[self.bodies[b].material],
        )
    }

    /// Offset of each dynamic body's velocity in the generalized velocity (3 per dynamic body),
    /// None for fixed bodies.
    pub fn dof_offsets(&self) -> Vec<Option<usize>> {
        let mut next = 0;
        self.bodies
            .iter()
            .map(|b| {
                (!b.fixed).then(|| {
                    next += 3;
                    next - 3
                })
            })
            .collect()
    }
}

/// Position and velocity of one body.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PlanarBodyState {
    /// Centre of mass (m).
    pub position: DVec2,
    /// Angle of the body frame (rad, counter-clockwise).
    pub angle: f64,
    /// Velocity of the centre of mass (m/s).
    pub velocity: DVec2,
    /// rad/s, counter-clockwise.
    pub angular_velocity: f64,
}

impl PlanarBodyState {
    pub fn at_rest(position: DVec2, angle: f64) -> Self {
        PlanarBodyState {
            position,
            angle,
            velocity: DVec2::ZERO,
            angular_velocity: 0.0,
        }
    }

    pub fn pose(&self) -> Pose2 {
        Pose2::new(self.position, self.angle)
    }

    /// Velocity of the world point `p` moving with the body.
    pub fn point_velocity(&self, p: DVec2) -> DVec2 {
        let r = p - self.position;
        self.velocity + self.angular_velocity * DVec2::new(-r.y, r.x)
    }
}

/// The state of a planar model.
#[derive(Clone, Debug, PartialEq)]
pub struct PlanarState {
    /// s.
    pub time: f64,
    pub bodies: Vec<PlanarBodyState>,
}

impl PlanarState {
    /// Kinetic energy ½ m |v|² + ½ I ω² summed over dynamic bodies (J).
    pub fn kinetic_energy(&self, model: &PlanarModel) -> f64 {
        model
            .bodies
            .iter()
            .zip(&self.bodies)
            .filter(|(b, _)| !b.fixed)
            .map(|(b, s)| {
                0.5 * b.mass * s.velocity.length_squared()
                    + 0.5 * b.inertia * s.angular_velocity * s.angular_velocity
            })
            .sum()
    }

    /// Gravitational potential energy −m g·x summed over dynamic bodies (J, zero at the origin).
    pub fn potential_energy(&self, model: &PlanarModel) -> f64 {
        let g = model.settings.gravity;
        model
            .bodies
            .iter()
            .zip(&self.bodies)
            .filter(|(b, _)| !b.fixed)
            .map(|(b, s)| -b.mass * g.dot(s.position))
            .sum()
    }

    /// Total linear momentum Σ m v (kg m/s) and angular momentum about the origin
    /// Σ (I ω + m x × v) (kg m²/s) of the dynamic bodies.
    pub fn momenta(&self, model: &PlanarModel) -> (DVec2, f64) {
        let mut p = DVec2::ZERO;
        let mut l = 0.0;
        for (b, s) in model
            .bodies
            .iter()
            .zip(&self.bodies)
            .filter(|(b, _)| !b.fixed)
        {
            p += b.mass * s.velocity;
            l += b.inertia * s.angular_velocity
                + b.mass * super::shape::cross(s.position, s.velocity);
        }
        (p, l)
    }
}
