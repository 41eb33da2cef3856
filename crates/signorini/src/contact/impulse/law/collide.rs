//! Resolving one collision: the entry point [`collide`] (input checks, then the algebraic
//! baseline or Mirtich's collision integration), the one-law shorthands with default options,
//! and the energy change ΔT = Pᵀu₀ + ½PᵀKP (L5).
use glam::{DMat3, DVec3};

use super::algebraic::algebraic;
use super::collision_matrix::check_collision_matrix;
use super::integration::{IntegrationOptions, Path};
use super::records::{Collision, Law};
use super::LawError;

/// `law` with the default [`IntegrationOptions`]; see [`collide`].
pub fn newton(k: &DMat3, u0: DVec3, mu: f64, e: f64) -> Result<Collision, LawError> {
    collide(Law::Newton, k, u0, mu, e, &IntegrationOptions::default())
}

/// Poisson's law with the default options; see [`collide`].
pub fn poisson(k: &DMat3, u0: DVec3, mu: f64, e: f64) -> Result<Collision, LawError> {
    collide(Law::Poisson, k, u0, mu, e, &IntegrationOptions::default())
}

/// Stronge's law with the default options; see [`collide`].
pub fn stronge(k: &DMat3, u0: DVec3, mu: f64, e: f64) -> Result<Collision, LawError> {
    collide(Law::Stronge, k, u0, mu, e, &IntegrationOptions::default())
}

/// The algebraic Newton + clamped Coulomb impulse; see [`collide`].
pub fn algebraic_newton(k: &DMat3, u0: DVec3, mu: f64, e: f64) -> Result<Collision, LawError> {
    collide(
        Law::AlgebraicNewton,
        k,
        u0,
        mu,
        e,
        &IntegrationOptions::default(),
    )
}

/// Resolve one collision with `law`: `k` the collision matrix (contact frame, SPD, 1/kg), `u0`
/// the relative contact velocity before impact (contact frame, m/s, u0.z < 0: approaching), `mu`
/// ≥ 0 the Coulomb friction coefficient, `e` ∈ [0, 1] the law's coefficient of restitution.
pub fn collide(
    law: Law,
    k: &DMat3,
    u0: DVec3,
    mu: f64,
    e: f64,
    options: &IntegrationOptions,
) -> Result<Collision, LawError> {
    let k = check_collision_matrix(k)?;
    if !u0.is_finite() {
        return Err(LawError::BadInput(format!(
            "pre-impact velocity {u0} is not finite"
        )));
    }
    if u0.z >= 0.0 {
        return Err(LawError::BadInput(format!(
            "pre-impact normal velocity u0·n = {} m/s is not negative: the bodies do not approach",
            u0.z
        )));
    }
    if !(mu.is_finite() && mu >= 0.0) {
        return Err(LawError::BadInput(format!(
            "friction coefficient μ = {mu} must be finite and ≥ 0"
        )));
    }
    if !((0.0..=1.0).contains(&e)) {
        return Err(LawError::BadInput(format!(
            "coefficient of restitution e = {e} must be in [0, 1]"
        )));
    }
    if !(options.tolerance >= 1e-14 && options.tolerance <= 1e-2) || options.max_steps == 0 {
        return Err(LawError::BadInput(format!(
            "integration tolerance {} must be in [1e-14, 1e-2] and max_steps positive",
            options.tolerance
        )));
    }
    match law {
        Law::AlgebraicNewton => Ok(algebraic(&k, u0, mu, e)),
        _ => Path::new(law, k, u0, mu, e, *options).run(),
    }
}

/// ΔT (L5).
pub(super) fn energy_change(k: &DMat3, u0: DVec3, p: DVec3) -> f64 {
    p.dot(u0) + 0.5 * p.dot(*k * p)
}
