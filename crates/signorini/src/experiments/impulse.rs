//! Experiments of the impulse issue: the single-point collision laws (`contact::impulse::law`)
//! side by side on a rough rod and a rough sphere striking fixed ground, against the impact angle.
//!
//! Each body translates without spin at 1 m/s, at angle φ from the downward normal, so its
//! contact point's velocity is u₀ = (sin φ, 0, −cos φ) m/s and its kinetic energy T₀ = ½ m |u₀|².
//! The measured figures are the three coefficients each law could be said to enforce — kinematic
//! u_n / (−u_n0), kinetic P_n / P_c − 1 and energetic √(W_r / −W_c) — and the energy change ΔT/T₀.
use crate::contact::impulse::law::{collide, collision_matrix, BodyAtContact, ContactFrame};
use crate::contact::impulse::law::{IntegrationOptions, Law};
use glam::{DMat3, DVec3};

/// A body striking fixed ground z = 0 at one point: its collision matrix in the frame
/// (x, y, z) and its mass.
#[derive(Clone, Debug, PartialEq)]
pub struct ImpactCase {
    /// `rod-45` or `sphere`.
    pub name: String,
    /// What it is, for captions.
    pub description: String,
    /// K in the contact frame (x, y, z), 1/kg.
    pub k: DMat3,
    /// Mass (kg).
    pub mass: f64,
}

/// A 1 kg, 1 m rod (solid cylinder of radius 1 cm) in the x–z plane, tilted `tilt_deg` degrees
/// from the ground and touching it with its lower end (its centre of mass is at +x of the
/// contact: it leans towards +x).
pub fn rod(tilt_deg: f64) -> Result<ImpactCase, String> {
    let (m, l, r) = (1.0, 1.0, 0.01);
    let tilt = tilt_deg.to_radians();
    let axis = DVec3::new(tilt.cos(), 0.0, tilt.sin());
    let transverse = m * l * l / 12.0 + m * r * r / 4.0;
    let axial = m * r * r / 2.0;
    let along = DMat3::from_cols(axis * axis.x, axis * axis.y, axis * axis.z);
    let body = BodyAtContact {
        inverse_mass: 1.0 / m,
        inverse_inertia: along * (1.0 / axial) + (DMat3::IDENTITY - along) * (1.0 / transverse),
        r: -0.5 * l * axis,
    };
    Ok(ImpactCase {
        name: format!("rod-{tilt_deg}"),
        description: format!("1 kg, 1 m rod at {tilt_deg}° hitting with its lower end"),
        k: ground_matrix(&body)?,
        mass: m,
    })
}

/// A solid 1 kg sphere of radius 0.1 m: K = diag(3.5, 3.5, 1) 1/kg, no coupling between the
/// normal and the tangents.
pub fn sphere() -> Result<ImpactCase, String> {
    let (m, r) = (1.0, 0.1);
    let body = BodyAtContact {
        inverse_mass: 1.0 / m,
        inverse_inertia: DMat3::from_diagonal(DVec3::splat(1.0 / (0.4 * m * r * r))),
        r: DVec3::new(0.0, 0.0, -r),
    };
    Ok(ImpactCase {
        name: "sphere".into(),
        description: "1 kg solid sphere of radius 0.1 m".into(),
        k: ground_matrix(&body)?,
        mass: m,
    })
}

fn ground_matrix(body: &BodyAtContact) -> Result<DMat3, String> {
    let frame = ContactFrame::new(DVec3::X, DVec3::Y, DVec3::Z).map_err(|e| e.to_string())?;
    collision_matrix(&frame, None, Some(body)).map_err(|e| e.to_string())
}

/// One collision of the sweep.
#[derive(Clone, Debug, PartialEq)]
pub struct LawRun {
    pub case: String,
    pub law: Law,
    pub friction: f64,
    pub restitution: f64,
    /// Impact angle φ from the downward normal (degrees); positive: moving towards +x.
    pub angle_deg: f64,
    /// u₀ (m/s), contact frame (x, y, z).
    pub u0: DVec3,
    /// Total impulse on the body (N s), contact frame.
    pub impulse: DVec3,
    /// Contact velocity after (m/s).
    pub velocity: DVec3,
    /// u_n / (−u_n0).
    pub kinematic: f64,
    /// P_n / P_c − 1.
    pub kinetic: f64,
    /// sign(W_r) √|W_r / W_c|.
    pub energetic: f64,
    /// ΔT / T₀.
    pub energy_ratio: f64,
    /// `none`, `stable` or `unstable`: whether the slip stopped and sticking held.
    pub stick: &'static str,
}

/// Every law of `laws` on `case` at each impact angle of `angles_deg` (degrees, |φ| < 90), with
/// friction `mu` and restitution `e`.
pub fn angle_sweep(
    case: &ImpactCase,
    laws: &[Law],
    mu: f64,
    e: f64,
    angles_deg: &[f64],
) -> Result<Vec<LawRun>, String> {
    let mut runs = Vec::new();
    for &law in laws {
        for &phi in angles_deg {
            if !(phi.abs() < 90.0) {
                return Err(format!("impact angle {phi}° must be within (−90°, 90°)"));
            }
            let a = phi.to_radians();
            let u0 = DVec3::new(a.sin(), 0.0, -a.cos());
            let c = collide(law, &case.k, u0, mu, e, &IntegrationOptions::default())
                .map_err(|err| format!("{}, {law}, φ = {phi}°: {err}", case.name))?;
            let t0 = 0.5 * case.mass * u0.length_squared();
            let ratio = c.restitution_work / -c.compression_work;
            runs.push(LawRun {
                case: case.name.clone(),
                law,
                friction: mu,
                restitution: e,
                angle_deg: phi,
                u0,
                impulse: c.impulse,
                velocity: c.velocity,
                kinematic: c.velocity.z / -u0.z,
                kinetic: c.impulse.z / c.compression_impulse - 1.0,
                energetic: ratio.signum() * ratio.abs().sqrt(),
                energy_ratio: c.energy_change / t0,
                stick: match c.stick {
                    None => "none",
                    Some(s) if s.test.stable => "stable",
                    Some(_) => "unstable",
                },
            });
        }
    }
    Ok(runs)
}
