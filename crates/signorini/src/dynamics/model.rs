//! The immutable description of what is simulated.
use super::{Body, Integrator, Material, ScheduledForce};
use glam::DVec3;

/// Simulation settings (see docs/scene-format.md, table `[simulation]`).
#[derive(Clone, Debug, PartialEq)]
pub struct Settings {
    /// Time step h (s).
    pub time_step: f64,
    /// Simulated duration (s).
    pub duration: f64,
    /// m/s².
    pub gravity: DVec3,
    pub integrator: Integrator,
    /// The narrow phase reports pairs whose gap is below this (m).
    pub activation_distance: f64,
    /// A body faster than this (m/s) stops the run with a diagnosis.
    pub max_speed: f64,
    /// Narrow phase, polytope pairs: the best face is clipped (several points, each with its
    /// gap along the face normal) whenever its separation is within this fraction of the pair's
    /// size of the pair's exact gap, instead of only when it realizes the gap; the points' gaps
    /// may then understate the exact distance or overstate the exact depth by up to that much.
    /// Default 1e-3 (boxes resting face on face come to rest); 0: the exact axis
    /// (`collision/narrow.rs`, `docs/collision.md`).
    pub face_preference: f64,
    /// Energy-based adaptive time steps (`pipeline::adaptive`); `None`: fixed steps of
    /// `time_step`.
    pub adaptive: Option<AdaptiveSettings>,
}

/// Settings of Deguet's energy-based adaptive time steps (scene table `[simulation.adaptive]`;
/// `pipeline::adaptive` documents the rule).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AdaptiveSettings {
    /// ε_e: largest accepted energy balance error per step (J).
    pub energy_tolerance: f64,
    /// Smallest step (s).
    pub min_time_step: f64,
    /// Largest step (s).
    pub max_time_step: f64,
}

impl AdaptiveSettings {
    /// Refuse settings no adaptive step can run with: the message says what is needed.
    pub fn check(&self) -> Result<(), String> {
        let valid = self.energy_tolerance > 0.0
            && self.energy_tolerance.is_finite()
            && self.min_time_step > 0.0
            && self.min_time_step <= self.max_time_step
            && self.max_time_step.is_finite();
        if valid {
            Ok(())
        } else {
            Err(format!(
                "need energy_tolerance > 0 and 0 < min_time_step <= max_time_step (got {}, {}, {})",
                self.energy_tolerance, self.min_time_step, self.max_time_step
            ))
        }
    }
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            time_step: 1e-3,
            duration: 1.0,
            gravity: DVec3::new(0.0, 0.0, -9.81),
            integrator: Integrator::ImplicitEuler,
            activation_distance: 1e-3,
            max_speed: 1e4,
            face_preference: 1e-3,
            adaptive: None,
        }
    }
}

/// Bodies, materials, settings and scheduled forces: `step(&model, &mut state, &mut workspace)`.
#[derive(Clone, Debug, PartialEq)]
pub struct Model {
    pub bodies: Vec<Body>,
    pub materials: Vec<Material>,
    pub settings: Settings,
    pub forces: Vec<ScheduledForce>,
}

impl Model {
    /// Offset of each body's block in the generalized velocity (6 per dynamic body: v then ω);
    /// `None` for fixed bodies.
    pub fn dof_offsets(&self) -> Vec<Option<usize>> {
        let mut next = 0;
        self.bodies
            .iter()
            .map(|b| {
                (!b.fixed).then(|| {
                    next += 6;
                    next - 6
                })
            })
            .collect()
    }

    /// Number of generalized velocities.
    pub fn dof_count(&self) -> usize {
        6 * self.bodies.iter().filter(|b| !b.fixed).count()
    }

    /// Coulomb friction coefficient between bodies `a` and `b` (`Material::pair_friction`).
    pub fn friction(&self, a: usize, b: usize) -> f64 {
        Material::pair_friction(
            &self.materials[self.bodies[a].material],
            &self.materials[self.bodies[b].material],
        )
    }

    pub fn body_index(&self, name: &str) -> Option<usize> {
        self.bodies.iter().position(|b| b.name == name)
    }
}
