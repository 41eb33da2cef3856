//! Experiments of the PEG paper (Williams, Lu & Trinkle 2016): the box of polyhedra (§6.2,
//! figs 23–24) and the standard-model traps (figs 2, 3, 5–6) as runs that record, after every
//! step, the total overlap volume of all pairs of bodies (`metrics::overlap`), the energy, the
//! solver's failures and PEG's trap count.
use crate::contact::ParamInput;
use crate::dynamics::State;
use crate::metrics::overlap::overlap_volume;
use crate::metrics::{kinetic_energy, potential_energy};
use crate::pipeline::{step, Workspace};
use crate::scene::{self, Scene};
use std::time::Instant;

/// One run of a scene under one model and time step.
#[derive(Clone, Debug, PartialEq)]
pub struct Run {
    pub model: String,
    /// Seed given to every `[[spawn]]` of the scene.
    pub seed: u64,
    /// h (s).
    pub time_step: f64,
    /// Steps planned (duration / h) and taken.
    pub planned: u64,
    pub steps: u64,
    /// Why the run stopped early (a body above `simulation.max_speed`, a non-finite state).
    pub error: Option<String>,
    /// Total overlap volume of all pairs after each step (m³).
    pub overlap: Vec<f64>,
    /// Kinetic + gravitational potential energy before the first step and after each (J).
    pub energy: Vec<f64>,
    /// Steps whose complementarity problem no solver met the tolerance for (the model's
    /// `on_failure` is set to "continue" so the run goes on and they are counted).
    pub solver_failures: u64,
    /// Steps in which PEG let at least one body go round a corner that the standard model's
    /// half-space would have blocked (`ModelStats::traps` > 0): the steps where PEG's I- and
    /// X-constraints were needed, as the paper's fig. 22 counts them. Zero for other models.
    pub trap_steps: u64,
    /// Wall-clock seconds spent in `pipeline::step` (the overlap and energy measurements are
    /// not counted).
    pub step_seconds: f64,
}

impl Run {
    /// Mean over steps of the total overlap volume (m³).
    pub fn mean_overlap(&self) -> f64 {
        if self.overlap.is_empty() {
            return 0.0;
        }
        self.overlap.iter().sum::<f64>() / self.overlap.len() as f64
    }

    /// Largest total overlap volume after a step (m³).
    pub fn max_overlap(&self) -> f64 {
        self.overlap.iter().copied().fold(0.0, f64::max)
    }

    /// Largest energy increase over one step (J; negative when the energy fell every step).
    pub fn max_energy_gain(&self) -> f64 {
        self.energy
            .windows(2)
            .map(|w| w[1] - w[0])
            .fold(f64::NEG_INFINITY, f64::max)
    }

    /// Wall-clock seconds per step taken.
    pub fn seconds_per_step(&self) -> f64 {
        self.step_seconds / self.steps.max(1) as f64
    }

    pub fn completed(&self) -> bool {
        self.error.is_none() && self.steps == self.planned
    }
}

/// The scene with every `[[spawn]]` drawn from `seed` instead of its own.
pub fn reseed(scene: &Scene, seed: u64) -> Result<Scene, String> {
    let mut desc = scene.desc.clone();
    for s in &mut desc.spawns {
        s.seed = seed;
    }
    let mut rebuilt = scene::build(desc).map_err(|e| e.to_string())?;
    rebuilt.model.settings = scene.model.settings.clone();
    Ok(rebuilt)
}

/// Run `scene` (reseeded with `seed`) under `model` with step `h` (s) for its duration, with
/// `on_failure = "continue"`, measuring overlap and energy after every step.
pub fn run(scene: &Scene, model: &str, seed: u64, h: f64) -> Result<Run, String> {
    let mut sc = reseed(scene, seed)?;
    sc.model.settings.time_step = h;
    sc.set_param(
        "on_failure",
        ParamInput::Word("continue".into()),
        "experiment pour-3d",
    );
    let (mut cm, _) = sc.contact_model(Some(model)).map_err(|e| e.to_string())?;
    let m = &sc.model;
    let energy = |s: &State| kinetic_energy(m, s) + potential_energy(m, s);
    let mut state = sc.initial.clone();
    let mut ws = Workspace::new();
    let planned = (m.settings.duration / h).round() as u64;
    let mut out = Run {
        model: model.to_string(),
        seed,
        time_step: h,
        planned,
        steps: 0,
        error: None,
        overlap: Vec::with_capacity(planned as usize),
        energy: vec![energy(&state)],
        solver_failures: 0,
        trap_steps: 0,
        step_seconds: 0.0,
    };
    for _ in 0..planned {
        let t0 = Instant::now();
        let report = step(m, &mut state, &mut ws, cm.as_mut());
        out.step_seconds += t0.elapsed().as_secs_f64();
        match report {
            Ok(r) => {
                out.steps += 1;
                out.solver_failures += u64::from(r.model_stats.solve.is_some_and(|s| s.failed));
                out.trap_steps += u64::from(r.model_stats.traps > 0);
                out.overlap.push(overlap_volume(m, &state));
                out.energy.push(energy(&state));
            }
            Err(e) => {
                out.error = Some(e.to_string());
                break;
            }
        }
    }
    Ok(out)
}

/// First quartile, median and third quartile of `values` (linear interpolation between order
/// statistics, the "type 7" definition); NaN for no values.
pub fn quartiles(values: &[f64]) -> (f64, f64, f64) {
    if values.is_empty() {
        return (f64::NAN, f64::NAN, f64::NAN);
    }
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    let at = |p: f64| {
        let x = p * (v.len() - 1) as f64;
        let (i, f) = (x.floor() as usize, x.fract());
        if i + 1 < v.len() {
            v[i] + f * (v[i + 1] - v[i])
        } else {
            v[i]
        }
    };
    (at(0.25), at(0.5), at(0.75))
}
