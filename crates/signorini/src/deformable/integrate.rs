//! Time integration of a deformable world: the paper's explicit second-order Taylor scheme
//! (Deguet, Joukhadar & Laugier 1998, §4.1, eqs. 10–11; particles have no rotation, so eq. 12
//! does not arise), semi-implicit (symplectic) Euler and velocity Verlet; fixed steps or
//! Deguet's energy-based adaptive steps (§4.2), the rule of `pipeline::adaptive`.
//!
//! With a = a(x_t, v_t) (Deguet eq. 8 divided by the masses):
//!
//! ```text
//!   taylor (eqs. 10–11):  x ← x + τ v + ½ τ² a,   v ← v + τ a
//!   symplectic-euler:     v ← v + τ a,            x ← x + τ v
//!   verlet:               x ← x + τ v + ½ τ² a,   v ← v + ½ τ (a + a(x_{t+τ}, v + τ a))
//! ```
//!
//! On an undamped oscillator of frequency ω the Taylor step multiplies the energy by
//! 1 + ω²τ²/2 every step (its amplification matrix has determinant 1 + ω²τ²/2): it always gains
//! energy, which Deguet's adaptive step keeps below ε_e per step. Symplectic Euler and Verlet
//! keep it bounded for ωτ < 2 (docs/deformable.md, "Energy balance").
use super::world::{Forces, World};
use crate::dynamics::AdaptiveSettings;
use crate::pipeline::adaptive::AdaptiveStats;
use glam::DVec3;

/// Which scheme advances positions and velocities.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum DeformableIntegrator {
    /// Deguet eqs. 10–11 (explicit second-order Taylor).
    Taylor,
    /// Semi-implicit Euler: velocities first, positions with the new velocities.
    #[default]
    SymplecticEuler,
    /// Velocity Verlet (velocity-dependent forces taken at the Taylor-predicted velocity).
    Verlet,
}

impl DeformableIntegrator {
    pub const NAMES: [&'static str; 3] = ["taylor", "symplectic-euler", "verlet"];

    pub fn name(self) -> &'static str {
        match self {
            DeformableIntegrator::Taylor => "taylor",
            DeformableIntegrator::SymplecticEuler => "symplectic-euler",
            DeformableIntegrator::Verlet => "verlet",
        }
    }

    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "taylor" => Some(DeformableIntegrator::Taylor),
            "symplectic-euler" => Some(DeformableIntegrator::SymplecticEuler),
            "verlet" => Some(DeformableIntegrator::Verlet),
            _ => None,
        }
    }
}

/// Why a step failed.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum DeformableError {
    #[error("the deformable simulation diverged at t = {time:.6e} s: particle {particle} {what}; the time step {step:.3e} s is too long for the stiffest connector (estimated stable step 2/ω_max = {stable:.3e} s) — lower time_step, or use adaptive steps")]
    Diverged {
        time: f64,
        particle: usize,
        what: String,
        step: f64,
        stable: f64,
    },
    #[error("adaptive time steps: {0}")]
    Settings(String),
    /// A body, a world setting or a step out of range; the message names the field and its range.
    #[error("invalid deformable input: {0}")]
    Invalid(String),
}

/// Scratch memory and the statistics of adaptive runs.
#[derive(Default)]
pub struct Integrator {
    forces: Forces,
    end_forces: Forces,
    acc: Vec<DVec3>,
    acc2: Vec<DVec3>,
    /// Verlet: the velocities at the start of the step.
    start_v: Vec<DVec3>,
    saved_x: Vec<DVec3>,
    saved_v: Vec<DVec3>,
}

/// What one accepted step did.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct DeformableStep {
    /// Its length (s).
    pub h: f64,
    /// Work of the non-conservative forces over it (J; trapezoid rule on their power).
    pub work: f64,
}

impl Integrator {
    /// One step of length `h` with `scheme`; returns the work of the non-conservative forces
    /// (trapezoid rule on the power at both ends, which costs one more force evaluation at the
    /// end of the step, so only when `work` is asked for).
    pub fn step(
        &mut self,
        w: &mut World,
        scheme: DeformableIntegrator,
        h: f64,
        work: bool,
    ) -> Result<f64, DeformableError> {
        let p0 = self.begin(w, scheme, h, work)?;
        self.finish(w, scheme, h)?;
        if !work {
            return Ok(0.0);
        }
        w.forces(&w.x, &w.v, &mut self.end_forces);
        let p1 = self.end_forces.power(w, &w.v);
        Ok(0.5 * h * (p0 + p1))
    }

    /// The first part of a step: Taylor and symplectic Euler take the whole step; Verlet moves
    /// the particles to x + h v + ½ h² a and leaves their velocities at the prediction v + h a,
    /// where [`Integrator::finish`] evaluates the forces at the end of the step. Between the
    /// two, a driver may change what the world's forces depend on outside it (`World::coupling`,
    /// `couple.rs`: the forces at the end of the step). Returns the non-conservative power at
    /// the start when `power` is asked for (W).
    pub fn begin(
        &mut self,
        w: &mut World,
        scheme: DeformableIntegrator,
        h: f64,
        power: bool,
    ) -> Result<f64, DeformableError> {
        if !(h > 0.0 && h.is_finite()) {
            return Err(DeformableError::Invalid(format!(
                "the time step must be a positive finite number of seconds, got {h}"
            )));
        }
        w.check_settings()?;
        w.forces(&w.x, &w.v, &mut self.forces);
        self.forces.accelerations(w, &mut self.acc);
        let p0 = if power { self.forces.power(w, &w.v) } else { 0.0 };
        let n = w.x.len();
        match scheme {
            DeformableIntegrator::Taylor => {
                // Deguet eq. 11, then eq. 10.
                for p in 0..n {
                    w.x[p] += h * w.v[p] + 0.5 * h * h * self.acc[p];
                    w.v[p] += h * self.acc[p];
                }
            }
            DeformableIntegrator::SymplecticEuler => {
                for p in 0..n {
                    w.v[p] += h * self.acc[p];
                    w.x[p] += h * w.v[p];
                }
            }
            DeformableIntegrator::Verlet => {
                self.start_v.clone_from(&w.v);
                for p in 0..n {
                    w.x[p] = w.x[p] + h * w.v[p] + 0.5 * h * h * self.acc[p];
                    w.v[p] += h * self.acc[p];
                }
            }
        }
        w.time += h;
        self.check(w, h)?;
        Ok(p0)
    }

    /// The rest of a step [`Integrator::begin`] started: Verlet's velocities from the forces at
    /// both ends, v ← v + ½ h (a(t) + a(x_{t+h}, v + h a)); nothing for the other schemes.
    pub fn finish(
        &mut self,
        w: &mut World,
        scheme: DeformableIntegrator,
        h: f64,
    ) -> Result<(), DeformableError> {
        if scheme != DeformableIntegrator::Verlet {
            return Ok(());
        }
        w.forces(&w.x, &w.v, &mut self.end_forces);
        self.end_forces.accelerations(w, &mut self.acc2);
        for p in 0..w.x.len() {
            w.v[p] = self.start_v[p] + 0.5 * h * (self.acc[p] + self.acc2[p]);
        }
        self.check(w, h)
    }

    fn check(&self, w: &World, h: f64) -> Result<(), DeformableError> {
        for p in 0..w.x.len() {
            let bad = if !w.x[p].is_finite() || !w.v[p].is_finite() {
                Some("has a non-finite position or velocity".to_string())
            } else {
                None
            };
            if let Some(what) = bad {
                let omega = w.max_frequency();
                return Err(DeformableError::Diverged {
                    time: w.time,
                    particle: p,
                    what,
                    step: h,
                    stable: if omega > 0.0 { 2.0 / omega } else { f64::INFINITY },
                });
            }
        }
        Ok(())
    }
}

/// Deguet's adaptive step (§4.2) on a deformable world: an attempt of length τ is kept when the
/// energy balance error |E_m(t+τ) − E_m(t) − W| is at most ε_e (W the work of the
/// non-conservative forces, as in `pipeline::adaptive`); otherwise τ is halved and the step
/// tried again; after a step accepted at its first attempt τ grows by 3/2. A step at the
/// smallest τ is accepted and counted as forced.
pub struct AdaptiveDeformable {
    pub settings: AdaptiveSettings,
    pub scheme: DeformableIntegrator,
    h: f64,
    pub stats: AdaptiveStats,
    integrator: Integrator,
}

impl AdaptiveDeformable {
    pub fn new(
        settings: AdaptiveSettings,
        scheme: DeformableIntegrator,
        initial: f64,
    ) -> Result<Self, DeformableError> {
        let s = settings;
        s.check().map_err(DeformableError::Settings)?;
        Ok(AdaptiveDeformable {
            settings,
            scheme,
            h: initial.clamp(s.min_time_step, s.max_time_step),
            stats: AdaptiveStats::default(),
            integrator: Integrator::default(),
        })
    }

    /// The step the next attempt starts from (s).
    pub fn next_step(&self) -> f64 {
        self.h
    }

    /// One accepted step, at most `remaining` seconds long.
    pub fn step(&mut self, w: &mut World, remaining: f64) -> Result<DeformableStep, DeformableError> {
        let s = self.settings;
        if !(remaining > 0.0) {
            return Err(DeformableError::Invalid(format!(
                "the remaining time must be > 0 s, got {remaining}"
            )));
        }
        let it = &mut self.integrator;
        it.saved_x.clone_from(&w.x);
        it.saved_v.clone_from(&w.v);
        let (t0, e0) = (w.time, w.mechanical_energy());
        let mut first = true;
        loop {
            let h = self.h.min(remaining);
            let at_floor = h <= s.min_time_step;
            let attempt = match it.step(w, self.scheme, h, true) {
                Ok(work) => Some(work),
                Err(e) if at_floor => return Err(e),
                Err(_) => None,
            };
            let error = attempt.map_or(f64::INFINITY, |work| {
                (w.mechanical_energy() - e0 - work).abs()
            });
            if error > s.energy_tolerance && !at_floor {
                self.stats.rejected += 1;
                w.x.clone_from(&it.saved_x);
                w.v.clone_from(&it.saved_v);
                w.time = t0;
                self.h = (0.5 * h).max(s.min_time_step);
                first = false;
                continue;
            }
            self.stats.record(h, error, error > s.energy_tolerance && at_floor);
            if first && error <= s.energy_tolerance && h == self.h {
                self.h = (1.5 * self.h).min(s.max_time_step);
            }
            return Ok(DeformableStep {
                h,
                work: attempt.expect("a failed attempt is rejected or returned"),
            });
        }
    }
}
