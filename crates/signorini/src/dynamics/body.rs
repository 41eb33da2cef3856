//! Rigid bodies and their materials.
use crate::geometry::{MassProperties, Pose, Shape};
use glam::{DMat3, DVec3};

/// Surface properties of a body.
#[derive(Clone, Debug, PartialEq)]
pub struct Material {
    pub name: String,
    /// Coulomb friction coefficient (dimensionless, ≥ 0).
    pub friction: f64,
    /// Coefficient of restitution (dimensionless, in [0, 1]).
    pub restitution: f64,
}

impl Material {
    /// Friction of a pair: the geometric mean √(μ_a μ_b), so a frictionless material makes a
    /// frictionless pair and two equal materials keep their value.
    pub fn pair_friction(a: &Material, b: &Material) -> f64 {
        (a.friction * b.friction).sqrt()
    }

    /// Restitution of a pair: the geometric mean √(e_a e_b), so two equal materials keep their
    /// value and a perfectly plastic material makes a plastic pair.
    pub fn pair_restitution(a: &Material, b: &Material) -> f64 {
        (a.restitution * b.restitution).sqrt()
    }
}

/// A convex piece of a body, placed in the body frame (origin at the body's centre of mass).
#[derive(Clone, Debug, PartialEq)]
pub struct Piece {
    pub shape: Shape,
    pub pose: Pose,
}

/// A rigid body. Its frame has its origin at the centre of mass; `inertia` is about the centre of
/// mass in that frame and is rotated into the world as R J Rᵀ.
#[derive(Clone, Debug, PartialEq)]
pub struct Body {
    pub name: String,
    /// Fixed bodies have infinite mass and take no generalized velocity.
    pub fixed: bool,
    /// kg (infinite for fixed bodies).
    pub mass: f64,
    pub inv_mass: f64,
    /// kg m², body frame, about the centre of mass (zero for fixed bodies).
    pub inertia: DMat3,
    pub inv_inertia: DMat3,
    pub pieces: Vec<Piece>,
    pub material: usize,
    /// Where the centre of mass sits in the frame the scene described the shapes in (m): scene
    /// positions and force points are given in that "shape frame".
    pub com_in_shape_frame: DVec3,
    /// Simulated time (s) before which the body is held at its initial state: not integrated, no
    /// gravity, no contacts (bodies "dropped over time", `[[spawn]] release_interval`). 0 = free
    /// from the start.
    pub release_time: f64,
}

impl Body {
    /// Radius of a ball about the centre of mass that contains every piece (m); infinite when a
    /// piece is a half-space, 0 for a body without pieces.
    pub fn bounding_radius(&self) -> f64 {
        self.pieces
            .iter()
            .map(|p| p.pose.translation.length() + p.shape.bounding_radius())
            .fold(0.0, f64::max)
    }

    /// A dynamic body from pieces placed in its shape frame, with total `mass` (kg) or, if `None`,
    /// the mass given by `density` (kg/m³). The pieces are re-expressed about the centre of mass.
    pub fn dynamic(
        name: &str,
        pieces: Vec<Piece>,
        mass: Option<f64>,
        density: f64,
        material: usize,
    ) -> Result<Body, String> {
        let mut parts = Vec::with_capacity(pieces.len());
        for p in &pieces {
            let mp = p
                .shape
                .mass_properties(density)
                .ok_or("unbounded shape on a dynamic body")?;
            parts.push((mp, p.pose));
        }
        let mut mp = MassProperties::union(&parts);
        if let Some(m) = mass {
            mp = mp.with_mass(m);
        }
        if !(mp.mass > 0.0 && mp.mass.is_finite()) {
            return Err(format!("mass {} is not positive and finite", mp.mass));
        }
        let inv_inertia = mp.inertia.inverse();
        if !inv_inertia.is_finite() {
            let d = mp.inertia.diagonal();
            return Err(format!(
                "the inertia tensor of mass {} kg over these shapes is singular or overflows \
                 (diagonal [{:.3e}, {:.3e}, {:.3e}] kg m^2)",
                mp.mass, d.x, d.y, d.z
            ));
        }
        let pieces = pieces
            .into_iter()
            .map(|p| Piece {
                shape: p.shape,
                pose: Pose::new(p.pose.translation - mp.com, p.pose.rotation),
            })
            .collect();
        Ok(Body {
            name: name.to_string(),
            fixed: false,
            mass: mp.mass,
            inv_mass: 1.0 / mp.mass,
            inertia: mp.inertia,
            inv_inertia,
            pieces,
            material,
            com_in_shape_frame: mp.com,
            release_time: 0.0,
        })
    }

    /// A fixed body: its frame is the shape frame.
    pub fn fixed(name: &str, pieces: Vec<Piece>, material: usize) -> Body {
        Body {
            name: name.to_string(),
            fixed: true,
            mass: f64::INFINITY,
            inv_mass: 0.0,
            inertia: DMat3::ZERO,
            inv_inertia: DMat3::ZERO,
            pieces,
            material,
            com_in_shape_frame: DVec3::ZERO,
            release_time: 0.0,
        }
    }

    /// Is the body held (not yet released) during a step that starts at time `t` (s)?
    pub fn held(&self, t: f64) -> bool {
        t < self.release_time
    }

    /// Does the body move during a step that starts at time `t` (s): dynamic and released?
    pub fn moves(&self, t: f64) -> bool {
        !self.fixed && !self.held(t)
    }
}
