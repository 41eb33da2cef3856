//! One planar step, the same stages as the 3D pipeline: detection (broad and narrow phase at the
//! model's activation distance), the contact model (an LCP for the time-stepping models, forces
//! for the penalty model), semi-implicit Euler integration, the state checks, and detection once
//! more on the new state for the step's metrics.
//!
//! Semi-implicit Euler in the plane (exact for the rotation: θ is a scalar):
//!
//! ```text
//!   ν⁺ = ν + h M⁻¹ (f_ext + f_contact)     (velocity-level models: ν⁺ from the LCP)
//!   x⁺ = x + h v⁺,   θ⁺ = θ + h ω⁺
//! ```
use super::body::{PlanarModel, PlanarState};
use super::collision::{self, Contact2};
use super::models::group::GroupStats;
use super::models::peg::PlanarPegStats;
use super::models::PlanarContactModel;
use crate::contact::{ContactError, SolveReport};
use std::time::Instant;

/// Why a planar step failed; each names the step, the time and the body or contact problem.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum PlanarStepError {
    #[error("step {step} (t = {time:.6} s): {source}")]
    Contact {
        step: u64,
        time: f64,
        #[source]
        source: ContactError,
    },
    #[error("step {step} (t = {time:.6} s): body `{body}` has a non-finite state; try a smaller time step")]
    NonFinite { step: u64, time: f64, body: String },
    #[error("step {step} (t = {time:.6} s): a point of body `{body}` moves at {speed:.3e} m/s, above simulation.max_speed = {max_speed} m/s; the simulation is probably unstable: try a smaller time step or another contact model")]
    TooFast {
        step: u64,
        time: f64,
        body: String,
        speed: f64,
        max_speed: f64,
    },
}

/// What one step did.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PlanarStepReport {
    /// Contacts detected at the start of the step (within the activation distance).
    pub contacts: usize,
    /// Contacts in the model's problem (time stepping: active; penalty: pairs in contact).
    pub active: usize,
    /// Deepest penetration of the new state (m, ≥ 0).
    pub max_penetration: f64,
    /// The complementarity solve, for the time-stepping models.
    pub solve: Option<SolveReport>,
    /// Wall-clock seconds: detection (both), model (solve included), integration.
    pub detect_seconds: f64,
    pub model_seconds: f64,
    pub integrate_seconds: f64,
    /// PEG's counts of the step (`peg` only).
    pub peg: Option<PlanarPegStats>,
    /// The group activation's counts of the step (`activation = "group"` or `"exploratory"`).
    pub group: Option<GroupStats>,
}

/// A planar model, its state and contact model: what steps.
pub struct PlanarWorld {
    pub model: PlanarModel,
    pub state: PlanarState,
    pub contact_model: PlanarContactModel,
    /// Steps taken.
    pub steps: u64,
}

impl PlanarWorld {
    pub fn new(model: PlanarModel, state: PlanarState, contact_model: PlanarContactModel) -> Self {
        PlanarWorld {
            model,
            state,
            contact_model,
            steps: 0,
        }
    }

    /// Steps to the duration at the fixed time step.
    pub fn planned_steps(&self) -> u64 {
        let s = &self.model.settings;
        (s.duration / s.time_step).round() as u64
    }

    /// The contacts of the current state with ψ ≤ `margin`.
    pub fn contacts(&self, margin: f64) -> Vec<Contact2> {
        collision::detect(&self.model, &self.state, margin)
    }

    /// The generalized velocity ν and the free velocity ν + h M⁻¹ f_ext (gravity).
    fn velocities(&self) -> (Vec<f64>, Vec<f64>) {
        let h = self.model.settings.time_step;
        let g = self.model.settings.gravity;
        let mut nu = Vec::new();
        let mut free = Vec::new();
        for (b, s) in self.model.bodies.iter().zip(&self.state.bodies) {
            if !b.fixed {
                nu.extend([s.velocity.x, s.velocity.y, s.angular_velocity]);
                free.extend([
                    s.velocity.x + h * g.x,
                    s.velocity.y + h * g.y,
                    s.angular_velocity,
                ]);
            }
        }
        (nu, free)
    }

    /// One step of `time_step`.
    pub fn step(&mut self) -> Result<PlanarStepReport, PlanarStepError> {
        let h = self.model.settings.time_step;
        let mut report = PlanarStepReport::default();
        let t0 = Instant::now();
        let margin = match &self.contact_model {
            PlanarContactModel::TimeStepping(m) => m.activation_distance(&self.model, &self.state),
            PlanarContactModel::Peg(m) => m.activation_distance(&self.model, &self.state),
            PlanarContactModel::Penalty(_) => self.model.settings.activation_distance,
        };
        let contacts = self.contacts(margin);
        report.contacts = contacts.len();
        let t1 = Instant::now();
        let (_, free) = self.velocities();
        let (step, time) = (self.steps, self.state.time);
        let wrap = |source| PlanarStepError::Contact { step, time, source };
        let velocity = match &mut self.contact_model {
            PlanarContactModel::TimeStepping(m) => {
                let s = m
                    .solve_step(&self.model, &self.state, &contacts, &free, margin)
                    .map_err(wrap)?;
                report.active = s.active;
                report.solve = s.report;
                report.group = s.group;
                s.velocity
            }
            PlanarContactModel::Peg(m) => {
                let s = m
                    .solve_step(&self.model, &self.state, &contacts, &free, margin)
                    .map_err(wrap)?;
                report.active = s.active;
                report.solve = s.report;
                report.peg = Some(m.stats());
                s.velocity
            }
            PlanarContactModel::Penalty(m) => {
                let mut forces = vec![0.0; free.len()];
                report.active = m
                    .add_forces(&self.model, &self.state, &contacts, &free, &mut forces)
                    .map_err(wrap)?;
                let mut v = free;
                for (b, o) in self.model.bodies.iter().zip(self.model.dof_offsets()) {
                    if let Some(o) = o {
                        let (im, ii) = b.inverse_mass();
                        v[o] += h * im * forces[o];
                        v[o + 1] += h * im * forces[o + 1];
                        v[o + 2] += h * ii * forces[o + 2];
                    }
                }
                v
            }
        };
        let t2 = Instant::now();
        self.integrate(&velocity, h);
        self.steps += 1;
        self.check()?;
        let t3 = Instant::now();
        report.max_penetration = self
            .contacts(0.0)
            .iter()
            .map(|c| -c.gap)
            .fold(0.0, f64::max);
        let t4 = Instant::now();
        report.detect_seconds = (t1 - t0).as_secs_f64() + (t4 - t3).as_secs_f64();
        report.model_seconds = (t2 - t1).as_secs_f64();
        report.integrate_seconds = (t3 - t2).as_secs_f64();
        Ok(report)
    }

    /// x⁺ = x + h v⁺, θ⁺ = θ + h ω⁺ with v⁺ = `velocity`.
    fn integrate(&mut self, velocity: &[f64], h: f64) {
        let dofs = self.model.dof_offsets();
        for (s, o) in self.state.bodies.iter_mut().zip(dofs) {
            if let Some(o) = o {
                s.velocity.x = velocity[o];
                s.velocity.y = velocity[o + 1];
                s.angular_velocity = velocity[o + 2];
                s.position += h * s.velocity;
                s.angle += h * s.angular_velocity;
            }
        }
        self.state.time = (self.steps + 1) as f64 * h;
    }

    /// Non-finite states and points faster than `max_speed` stop the run.
    fn check(&self) -> Result<(), PlanarStepError> {
        let max_speed = self.model.settings.max_speed;
        for (b, s) in self.model.bodies.iter().zip(&self.state.bodies) {
            if b.fixed {
                continue;
            }
            let finite = s.position.is_finite()
                && s.angle.is_finite()
                && s.velocity.is_finite()
                && s.angular_velocity.is_finite();
            if !finite {
                return Err(PlanarStepError::NonFinite {
                    step: self.steps,
                    time: self.state.time,
                    body: b.name.clone(),
                });
            }
            let speed = s.velocity.length() + s.angular_velocity.abs() * b.shape.bounding_radius();
            if speed > max_speed {
                return Err(PlanarStepError::TooFast {
                    step: self.steps,
                    time: self.state.time,
                    body: b.name.clone(),
                    speed,
                    max_speed,
                });
            }
        }
        Ok(())
    }
}
