//! Energies and momenta of a state: kinetic energy Σ ½ m |v|² + ½ ωᵀ J_w ω, gravitational
//! potential energy −Σ m g·x, linear momentum Σ m v and angular momentum Σ x × m v + J_w ω about
//! the world origin, over the dynamic bodies (J_w = R J Rᵀ the world inertia tensor). SI units.
use crate::dynamics::{Model, State};
use glam::{DMat3, DVec3};

/// World inertia tensor R J Rᵀ of a body (kg m²).
fn world_inertia(body: &crate::dynamics::Body, orientation: glam::DQuat) -> DMat3 {
    let r = DMat3::from_quat(orientation);
    r * body.inertia * r.transpose()
}

/// Σ ½ m |v|² + ½ ωᵀ J_w ω over dynamic bodies (J).
pub fn kinetic_energy(model: &Model, state: &State) -> f64 {
    dynamic_bodies(model, state)
        .map(|(b, s)| {
            let jw = world_inertia(b, s.orientation);
            0.5 * b.mass * s.velocity.length_squared()
                + 0.5 * s.angular_velocity.dot(jw * s.angular_velocity)
        })
        .sum()
}

/// Gravitational potential energy −Σ m g·x of dynamic bodies, zero at the world origin (J).
pub fn potential_energy(model: &Model, state: &State) -> f64 {
    let g = model.settings.gravity;
    dynamic_bodies(model, state)
        .map(|(b, s)| -b.mass * g.dot(s.position))
        .sum()
}

/// Total linear momentum Σ m v (kg m/s).
pub fn linear_momentum(model: &Model, state: &State) -> DVec3 {
    dynamic_bodies(model, state)
        .map(|(b, s)| b.mass * s.velocity)
        .sum()
}

/// Total angular momentum about the world origin Σ x × m v + J_w ω (kg m²/s).
pub fn angular_momentum(model: &Model, state: &State) -> DVec3 {
    dynamic_bodies(model, state)
        .map(|(b, s)| {
            s.position.cross(b.mass * s.velocity)
                + world_inertia(b, s.orientation) * s.angular_velocity
        })
        .sum()
}

/// The dynamic (not fixed) bodies with their states, in model order.
fn dynamic_bodies<'a>(
    model: &'a Model,
    state: &'a State,
) -> impl Iterator<Item = (&'a crate::dynamics::Body, &'a crate::dynamics::BodyState)> {
    model
        .bodies
        .iter()
        .zip(&state.bodies)
        .filter(|(b, _)| !b.fixed)
}
