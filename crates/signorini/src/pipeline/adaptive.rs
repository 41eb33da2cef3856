//! Energy-based adaptive time steps (Deguet, Joukhadar & Laugier 1998, §4.2), for force-based
//! contact models with either integrator.
//!
//! Deguet's loop monitors the change of mechanical energy E_m = E_k + E_p over a step: it halves
//! the step while |ΔE_m| exceeds a tolerance ε_e and grows it by 3/2 after a step within it. An
//! isolated, non-dissipative system keeps E_m constant, so |ΔE_m| is the integration error.
//! Under external forces — applied forces, and here contact forces too — E_m changes by the work W
//! they do, which Deguet accounts for before judging the step ("dealing with external
//! perturbations"). The quantity held below ε_e is therefore the energy balance error
//!
//! ```text
//!   ε = |E_m(t + h) − E_m(t) − W(t, t + h)|,     E_m = kinetic + gravitational potential,
//! ```
//!
//! with W the work of every non-gravitational force over the step, computed by the integrator's
//! own quadrature of the power (`pipeline::Attempt::work`). For the exact trajectory ε is the
//! quadrature error only; a step that jumps deep into a stiff contact, or that RK4 integrates
//! badly, shows up as a large ε. Following Deguet's algorithm:
//!
//! ```text
//!   attempt h; while ε > ε_e and h > h_min: restore, h ← max(h/2, h_min), attempt again
//!   accept; if the first attempt passed, h ← min(3h/2, h_max)
//! ```
//!
//! A step at h_min that still misses ε_e is accepted and counted (`AdaptiveStats::forced`).
use super::{advance, Clock, StepError, StepReport, Workspace};
use crate::contact::ContactModel;
use crate::dynamics::energy::{kinetic_energy, potential_energy};
pub use crate::dynamics::AdaptiveSettings;
use crate::dynamics::{Model, State};

/// Step sizes of a run: extremes, mean and a histogram by powers of two.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct AdaptiveStats {
    pub accepted: u64,
    /// Attempts thrown away because their error exceeded the tolerance.
    pub rejected: u64,
    /// Steps accepted at the smallest step with the error still above the tolerance.
    pub forced: u64,
    pub smallest: f64,
    pub largest: f64,
    /// Sum of accepted steps (s).
    pub total: f64,
    /// Largest energy balance error of an accepted step (J).
    pub max_error: f64,
    /// (k, count): accepted steps with 2^k ≤ h < 2^(k+1), k ascending.
    pub histogram: Vec<(i32, u64)>,
}

impl AdaptiveStats {
    pub fn mean(&self) -> f64 {
        if self.accepted > 0 {
            self.total / self.accepted as f64
        } else {
            0.0
        }
    }

    pub(crate) fn record(&mut self, h: f64, error: f64, forced: bool) {
        if self.accepted == 0 {
            (self.smallest, self.largest) = (h, h);
        }
        self.accepted += 1;
        self.forced += forced as u64;
        self.smallest = self.smallest.min(h);
        self.largest = self.largest.max(h);
        self.total += h;
        self.max_error = self.max_error.max(error);
        let k = h.log2().floor() as i32;
        match self.histogram.binary_search_by_key(&k, |&(b, _)| b) {
            Ok(i) => self.histogram[i].1 += 1,
            Err(i) => self.histogram.insert(i, (k, 1)),
        }
    }
}

/// Why adaptive steps cannot be used.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum AdaptiveError {
    #[error("adaptive time steps need a force-based contact model; `{0}` is velocity-level time stepping (its LCP is posed for one fixed h)")]
    VelocityLevel(String),
    #[error("adaptive time steps need a force-based contact model; `{0}` is impulse-based (impulses change the energy at instants, which the energy-balance test would reject)")]
    ImpulseBased(String),
    #[error("adaptive time steps: {0}")]
    Settings(String),
}

/// Deguet's adaptive stepper: holds the current step length and the run's statistics.
pub struct AdaptiveStepper {
    settings: AdaptiveSettings,
    h: f64,
    saved: State,
    pub stats: AdaptiveStats,
}

impl AdaptiveStepper {
    /// Start at step `initial` (s), clamped to [min, max].
    pub fn new(
        settings: AdaptiveSettings,
        initial: f64,
        contact_model: &ContactModel,
    ) -> Result<Self, AdaptiveError> {
        if contact_model.velocity_level() {
            return Err(AdaptiveError::VelocityLevel(
                contact_model.spec().name.to_string(),
            ));
        }
        if contact_model.impulse_loop().is_some() {
            return Err(AdaptiveError::ImpulseBased(
                contact_model.spec().name.to_string(),
            ));
        }
        let s = settings;
        s.check().map_err(AdaptiveError::Settings)?;
        Ok(AdaptiveStepper {
            settings,
            h: initial.clamp(s.min_time_step, s.max_time_step),
            saved: State::default(),
            stats: AdaptiveStats::default(),
        })
    }

    /// The step length the next step will try first (s).
    pub fn next_step(&self) -> f64 {
        self.h
    }

    /// One accepted step, at most `remaining` seconds long (to land on the end of the run).
    pub fn step(
        &mut self,
        model: &Model,
        state: &mut State,
        ws: &mut Workspace,
        contact_model: &mut ContactModel,
        remaining: f64,
    ) -> Result<StepReport, StepError> {
        let s = self.settings;
        let energy = |state: &State| kinetic_energy(model, state) + potential_energy(model, state);
        self.saved.clone_from(state);
        let e0 = energy(state);
        let mut first = true;
        loop {
            let h = self.h.min(remaining);
            let at_floor = h <= s.min_time_step;
            // An attempt that blows up (non-finite or runaway state, a model failure) is a step
            // too long, like one that misses the energy tolerance — unless it is at h_min.
            let attempt = match advance(model, state, ws, contact_model, h, Clock::Accumulate, true)
            {
                Ok(a) => Some(a),
                Err(e) if at_floor => return Err(e),
                Err(_) => None,
            };
            let error = attempt.as_ref().map_or(f64::INFINITY, |a| {
                (energy(state) - e0 - a.work.expect("work was asked for")).abs()
            });
            if error > s.energy_tolerance && !at_floor {
                self.stats.rejected += 1;
                state.clone_from(&self.saved);
                ws.invalidate();
                self.h = (0.5 * h).max(s.min_time_step);
                first = false;
                continue;
            }
            contact_model.end_step(model, state, &ws.contacts);
            self.stats
                .record(h, error, error > s.energy_tolerance && at_floor);
            if first && error <= s.energy_tolerance && h == self.h {
                self.h = (1.5 * self.h).min(s.max_time_step);
            }
            return Ok(attempt
                .expect("a failed attempt is rejected or returned")
                .report);
        }
    }
}

/// Fixed steps of `time_step`, or adaptive steps when the scene asks for them: what a whole run
/// (the runner, the experiments, the CLI) steps with.
pub enum Stepper {
    Fixed { total: u64 },
    Adaptive(AdaptiveStepper),
}

impl Stepper {
    /// As `model.settings` say. Fails when adaptive steps are asked of a velocity-level model.
    pub fn new(model: &Model, contact_model: &ContactModel) -> Result<Self, AdaptiveError> {
        Ok(match model.settings.adaptive {
            None => Stepper::Fixed {
                total: step_count(model),
            },
            Some(a) => Stepper::Adaptive(AdaptiveStepper::new(
                a,
                model.settings.time_step,
                contact_model,
            )?),
        })
    }

    /// Has `state` reached the end of the run? Adaptive runs end when the time left is below
    /// 1e-12 of the duration (the last step is clipped to land on it).
    pub fn finished(&self, model: &Model, state: &State) -> bool {
        match self {
            Stepper::Fixed { total } => state.step >= *total,
            Stepper::Adaptive(_) => {
                let d = model.settings.duration;
                d - state.time <= 1e-12 * d
            }
        }
    }

    /// One accepted step.
    pub fn step(
        &mut self,
        model: &Model,
        state: &mut State,
        ws: &mut Workspace,
        contact_model: &mut ContactModel,
    ) -> Result<StepReport, StepError> {
        match self {
            Stepper::Fixed { .. } => super::step(model, state, ws, contact_model),
            Stepper::Adaptive(a) => {
                // Past the end (a benchmark stepping on), steps are no longer clipped.
                let remaining = match model.settings.duration - state.time {
                    r if r > 1e-12 * model.settings.duration => r,
                    _ => f64::INFINITY,
                };
                a.step(model, state, ws, contact_model, remaining)
            }
        }
    }

    /// (done, total) for a progress bar: steps for fixed steps, milliseconds of simulated time
    /// for adaptive ones.
    pub fn progress(&self, model: &Model, state: &State) -> (u64, u64) {
        match self {
            Stepper::Fixed { total } => (state.step, *total),
            Stepper::Adaptive(_) => (
                (1e3 * state.time) as u64,
                (1e3 * model.settings.duration).round() as u64,
            ),
        }
    }

    pub fn adaptive_stats(&self) -> Option<&AdaptiveStats> {
        match self {
            Stepper::Fixed { .. } => None,
            Stepper::Adaptive(a) => Some(&a.stats),
        }
    }
}

/// Number of steps for a duration: the nearest whole number of steps.
/// Most fixed steps a run may plan: beyond this a typo (`duration = 1e300`, `time_step =
/// 5e-324`) would run for centuries; a longer run is split into runs of at most this many steps.
pub const MAX_STEPS: f64 = 1e9;

/// Why a run of `duration` s in fixed steps of `time_step` s cannot be planned exactly, if it
/// cannot: the duration must be a whole number of steps (to 1e-9 relative; the run takes exactly
/// that many steps and ends at the duration), at least one and at most [`MAX_STEPS`]. The message
/// and the hint (with the nearest durations that work) are for the user.
pub fn check_step_plan(duration: f64, time_step: f64) -> Result<(), (String, String)> {
    let n = duration / time_step;
    if !(n >= 1.0 - 1e-9) {
        return Err((
            format!("time_step = {time_step} s is longer than the duration {duration} s"),
            format!(
                "make the time step at most the duration, e.g. time_step = {}",
                duration / 100.0
            ),
        ));
    }
    if n > MAX_STEPS {
        return Err((
            format!("duration / time_step = {n:.3e} steps, more than the limit of {MAX_STEPS:.0e}"),
            "shorten the duration or lengthen the time step (or split the run)".into(),
        ));
    }
    let whole = n.round();
    if (n - whole).abs() > 1e-9 * whole {
        // Printed to 12 significant digits, so 3 steps of 0.3 s read 0.9, not 0.8999999999999999.
        let tidy = |t: f64| format!("{}", format!("{t:.11e}").parse::<f64>().unwrap_or(t));
        let (below, above) = (tidy(n.floor() * time_step), tidy(n.ceil() * time_step));
        return Err((
            format!(
                "duration = {duration} s is not a whole number of steps of {time_step} s ({n:.6} steps)"
            ),
            format!(
                "use duration = {below} or {above} s, or a time step that divides {duration} s"
            ),
        ));
    }
    Ok(())
}

pub fn step_count(model: &Model) -> u64 {
    (model.settings.duration / model.settings.time_step)
        .round()
        .max(0.0) as u64
}
