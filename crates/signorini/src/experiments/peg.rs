//! Experiments of the PEG paper (Williams, Lu & Trinkle 2016): the box of polyhedra (§6.2,
//! figs 23–24) and the standard-model traps (figs 2, 3, 5–6) as runs that record, after every
//! step, the total overlap volume of all pairs of bodies (`metrics::overlap`), the energy, the
//! solver's failures and PEG's trap count.
use crate::contact::ParamInput;
use crate::metrics::overlap::overlap_volume;
use crate::metrics::{kinetic_energy, potential_energy};
use crate::scene::{self, Scene};
use crate::simulation::{Error, Simulation};
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
    /// half-space would have blocked (PEG's counter `traps` > 0): the steps where PEG's I- and
    /// X-constraints were needed, as the paper's fig. 22 counts them. Zero for other models.
    pub trap_steps: u64,
    /// Wall-clock seconds spent in `pipeline::step` (the overlap and energy measurements are
    /// not counted).
    pub step_seconds: f64,
    /// Unknowns of the largest complementarity problem of the run (0 for none).
    pub max_rows: usize,
}

impl Run {
    /// Mean over steps of the total overlap volume (m³).
    pub fn mean_overlap(&self) -> f64 {
        if self.overlap.is_empty() {
            return 0.0;
        }
        self.overlap.iter().sum::<f64>() / self.overlap.len() as f64
    }

    /// Median over steps of the total overlap volume (m³; NaN for no step).
    pub fn median_overlap(&self) -> f64 {
        quartiles(&self.overlap).1
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
pub fn reseed(scene: &Scene, seed: u64) -> Result<Scene, Error> {
    let mut desc = scene.desc.clone();
    for s in &mut desc.spawns {
        s.seed = seed;
    }
    let mut rebuilt = scene::build(desc)?;
    rebuilt.model.settings = scene.model.settings.clone();
    Ok(rebuilt)
}

/// Run `scene` (reseeded with `seed`) under `model` with step `h` (s) for its duration, with
/// `on_failure = "continue"`, measuring overlap and energy after every step.
pub fn run(scene: &Scene, model: &str, seed: u64, h: f64) -> Result<Run, Error> {
    let mut sc = reseed(scene, seed)?;
    sc.model.settings.time_step = h;
    sc.set_param(
        "on_failure",
        ParamInput::Word("continue".into()),
        "experiment pour-3d",
    );
    // The paper's models: an overlap removed in one step by ψ/h.
    sc.set_param(
        "recovery",
        ParamInput::Word("full".into()),
        "experiment pour-3d",
    );
    // The paper's standard model: the contacts of the closest features only. Its near features
    // (a vertex near an edge gets one contact along the direction to the edge, not one per face)
    // keep it out of the traps the paper describes (`docs/peg.md`).
    if model == STANDARD {
        sc.set_param(
            "manifold",
            ParamInput::Word("axis".into()),
            "experiment pour-3d",
        );
    }
    // Neither model has the post-step projection (`pipeline::projection`): it would remove the
    // overlaps the paper measures (the standard model's traps, what PEG's constraints let in).
    sc.set_param(
        "projection",
        ParamInput::Word("none".into()),
        "experiment pour-3d",
    );
    // Fixed steps of h, whatever the scene says: the sweep compares step sizes.
    sc.model.settings.adaptive = None;
    let mut sim = Simulation::new(sc, Some(model), &[])?;
    let energy = |sim: &Simulation| {
        let (m, s) = (sim.model(), sim.state());
        kinetic_energy(m, s) + potential_energy(m, s)
    };
    let planned = (sim.model().settings.duration / h).round() as u64;
    let mut out = Run {
        model: model.to_string(),
        seed,
        time_step: h,
        planned,
        steps: 0,
        error: None,
        overlap: Vec::with_capacity(planned as usize),
        energy: vec![energy(&sim)],
        solver_failures: 0,
        trap_steps: 0,
        step_seconds: 0.0,
        max_rows: 0,
    };
    while !sim.finished() {
        let t0 = Instant::now();
        let report = sim.step();
        out.step_seconds += t0.elapsed().as_secs_f64();
        match report {
            Ok(r) => {
                out.steps += 1;
                out.solver_failures += u64::from(r.model_stats.solve.is_some_and(|s| s.failed));
                out.trap_steps += u64::from(sim.contact_model().counter("traps") > 0);
                if let Some(s) = r.model_stats.solve {
                    out.max_rows = out.max_rows.max(s.rows);
                }
                out.overlap.push(overlap_volume(sim.model(), sim.state()));
                out.energy.push(energy(&sim));
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

/// The two models of the paper's comparison: PEG and the standard model it is measured against
/// (Stewart–Trinkle time stepping on the closest-feature contacts).
pub const PEG: &str = "peg";
pub const STANDARD: &str = "stewart-trinkle";

/// Floors of the sweep (issue 4): the standard model's mean overlap volume divided by PEG's at
/// least this at every step size.
pub const OVERLAP_RATIO_FLOOR: f64 = 100.0;
/// PEG's wall time per step divided by the standard model's at most this at every step size.
pub const TIME_RATIO_CEILING: f64 = 3.0;

/// A sweep of the box of polyhedra: every (model, h, seed), on the scene shortened to
/// `duration` with its `[[spawn]]`s cut to their first `bodies` bodies.
#[derive(Clone, Debug, PartialEq)]
pub struct Sweep {
    pub models: Vec<String>,
    /// Time steps h (s).
    pub time_steps: Vec<f64>,
    /// Seeds given to every `[[spawn]]`.
    pub seeds: Vec<u64>,
    /// Simulated time (s); None keeps the scene's.
    pub duration: Option<f64>,
    /// Bodies kept per `[[spawn]]` (the first ones, whose draws do not depend on the count);
    /// None keeps them all.
    pub bodies: Option<u32>,
}

/// One run of a sweep.
#[derive(Clone, Debug, PartialEq)]
pub struct Job {
    pub model: String,
    /// h (s).
    pub time_step: f64,
    pub seed: u64,
}

impl Sweep {
    /// The paper's sweep (§6.2, fig. 24) at five of its step sizes: 10 seeds × h ∈ {1, 2, 4, 8,
    /// 16} ms × {peg, stewart-trinkle}, the whole scene (10 bodies, 5 s).
    pub fn full() -> Sweep {
        Sweep {
            models: vec![PEG.into(), STANDARD.into()],
            time_steps: vec![0.001, 0.002, 0.004, 0.008, 0.016],
            seeds: (1..=10).collect(),
            duration: None,
            bodies: None,
        }
    }

    /// The reduced sweep the tests afford: 2 seeds × h ∈ {4, 16} ms × {peg, stewart-trinkle},
    /// the first 3 bodies (released at 0, 0.5 and 1 s) for 1.5 s.
    pub fn quick() -> Sweep {
        Sweep {
            models: vec![PEG.into(), STANDARD.into()],
            time_steps: vec![0.004, 0.016],
            seeds: vec![1, 2],
            duration: Some(1.5),
            bodies: Some(3),
        }
    }

    /// Every run, ordered by (model, h, seed).
    pub fn jobs(&self) -> Vec<Job> {
        let mut jobs = Vec::new();
        for model in &self.models {
            for &time_step in &self.time_steps {
                for &seed in &self.seeds {
                    jobs.push(Job {
                        model: model.clone(),
                        time_step,
                        seed,
                    });
                }
            }
        }
        sort_jobs(&mut jobs);
        jobs
    }

    /// The scene this sweep runs: `scene` with its duration and spawn counts cut. Errors on an
    /// empty sweep, a non-positive or non-finite step or duration, or no body kept.
    pub fn apply(&self, scene: &Scene) -> Result<Scene, Error> {
        if self.models.is_empty() || self.time_steps.is_empty() || self.seeds.is_empty() {
            return Err(Error::Experiment(
                "the sweep needs at least one model, time step and seed".into(),
            ));
        }
        if let Some(h) = self
            .time_steps
            .iter()
            .find(|h| !(h.is_finite() && **h > 0.0))
        {
            return Err(Error::Experiment(format!(
                "time step {h} s is not a positive number"
            )));
        }
        let mut desc = scene.desc.clone();
        if let Some(n) = self.bodies {
            if n == 0 {
                return Err(Error::Experiment(
                    "the sweep keeps no body of the scene's spawns".into(),
                ));
            }
            for s in &mut desc.spawns {
                s.count = s.count.min(n);
            }
        }
        let mut out = scene::build(desc)?;
        out.model.settings = scene.model.settings.clone();
        if let Some(d) = self.duration {
            if !(d.is_finite() && d > 0.0) {
                return Err(Error::Experiment(format!(
                    "duration {d} s is not a positive number"
                )));
            }
            out.model.settings.duration = d;
        }
        Ok(out)
    }
}

/// (model, h, seed) order: the order of the files whatever order the runs finished in.
fn by_key(a: (&str, f64, u64), b: (&str, f64, u64)) -> std::cmp::Ordering {
    a.0.cmp(b.0).then(a.1.total_cmp(&b.1)).then(a.2.cmp(&b.2))
}

/// Sort jobs by (model, h, seed).
pub fn sort_jobs(jobs: &mut [Job]) {
    jobs.sort_by(|a, b| {
        by_key(
            (&a.model, a.time_step, a.seed),
            (&b.model, b.time_step, b.seed),
        )
    });
}

/// Sort runs by (model, h, seed).
pub fn sort_runs(runs: &mut [Run]) {
    runs.sort_by(|a, b| {
        by_key(
            (&a.model, a.time_step, a.seed),
            (&b.model, b.time_step, b.seed),
        )
    });
}

/// The runs of one (model, h) over the sweep's seeds.
#[derive(Clone, Debug, PartialEq)]
pub struct Summary {
    pub model: String,
    /// h (s).
    pub time_step: f64,
    pub runs: usize,
    /// Runs that took every planned step.
    pub completed: usize,
    /// Runs that stopped with an error.
    pub errors: usize,
    /// First quartile, median and third quartile over the seeds of each run's mean overlap
    /// volume (`Run::mean_overlap`, m³): the spread fig. 24 draws.
    pub overlap_quartiles: (f64, f64, f64),
    /// Mean over every step of every seed of the total overlap volume (m³): the figure the
    /// overlap floor compares.
    pub mean_overlap: f64,
    /// Largest total overlap volume after any step of any seed (m³).
    pub max_overlap: f64,
    pub solver_failures: u64,
    pub trap_steps: u64,
    pub steps: u64,
    /// Wall-clock seconds in `pipeline::step` over all seeds divided by their steps.
    pub seconds_per_step: f64,
    /// Largest one-step energy gain of any seed (J).
    pub max_energy_gain: f64,
    /// Unknowns of the largest complementarity problem of any seed.
    pub max_rows: usize,
}

/// One `Summary` per (model, h) present in `runs`, in (model, h) order.
pub fn summarize(runs: &[Run]) -> Vec<Summary> {
    let mut sorted = runs.to_vec();
    sort_runs(&mut sorted);
    let mut out: Vec<Summary> = Vec::new();
    for group in sorted.chunk_by(|a, b| a.model == b.model && a.time_step == b.time_step) {
        let means: Vec<f64> = group.iter().map(Run::mean_overlap).collect();
        let steps: u64 = group.iter().map(|r| r.steps).sum();
        let overlap_steps: usize = group.iter().map(|r| r.overlap.len()).sum();
        let overlap_sum: f64 = group.iter().flat_map(|r| r.overlap.iter()).sum();
        out.push(Summary {
            model: group[0].model.clone(),
            time_step: group[0].time_step,
            runs: group.len(),
            completed: group.iter().filter(|r| r.completed()).count(),
            errors: group.iter().filter(|r| r.error.is_some()).count(),
            overlap_quartiles: quartiles(&means),
            mean_overlap: if overlap_steps == 0 {
                f64::NAN
            } else {
                overlap_sum / overlap_steps as f64
            },
            max_overlap: group.iter().map(Run::max_overlap).fold(0.0, f64::max),
            solver_failures: group.iter().map(|r| r.solver_failures).sum(),
            trap_steps: group.iter().map(|r| r.trap_steps).sum(),
            steps,
            seconds_per_step: if steps == 0 {
                f64::NAN
            } else {
                group.iter().map(|r| r.step_seconds).sum::<f64>() / steps as f64
            },
            max_energy_gain: group
                .iter()
                .map(Run::max_energy_gain)
                .fold(f64::NEG_INFINITY, f64::max),
            max_rows: group.iter().map(|r| r.max_rows).max().unwrap_or(0),
        });
    }
    out
}

/// The floors at one step size, comparing PEG with the standard model.
#[derive(Clone, Debug, PartialEq)]
pub struct FloorRow {
    /// h (s).
    pub time_step: f64,
    /// Standard model's `Summary::mean_overlap` / PEG's (infinite when PEG's is 0 and the
    /// standard model's is not; NaN when both are 0, which meets no floor).
    pub overlap_ratio: f64,
    /// PEG's `Summary::seconds_per_step` / the standard model's.
    pub time_ratio: f64,
    pub peg_solver_failures: u64,
    /// PEG runs that stopped with an error (reported; no floor).
    pub peg_errors: usize,
}

impl FloorRow {
    pub fn overlap_met(&self) -> bool {
        self.overlap_ratio >= OVERLAP_RATIO_FLOOR
    }

    pub fn time_met(&self) -> bool {
        self.time_ratio <= TIME_RATIO_CEILING
    }

    pub fn failures_met(&self) -> bool {
        self.peg_solver_failures == 0
    }
}

/// One `FloorRow` per step size at which both PEG and the standard model were summarized, in h
/// order.
pub fn floors(summaries: &[Summary]) -> Vec<FloorRow> {
    let find = |model: &str, h: f64| {
        summaries
            .iter()
            .find(|s| s.model == model && s.time_step == h)
    };
    let mut rows = Vec::new();
    for peg in summaries.iter().filter(|s| s.model == PEG) {
        let Some(std) = find(STANDARD, peg.time_step) else {
            continue;
        };
        rows.push(FloorRow {
            time_step: peg.time_step,
            overlap_ratio: std.mean_overlap / peg.mean_overlap,
            time_ratio: peg.seconds_per_step / std.seconds_per_step,
            peg_solver_failures: peg.solver_failures,
            peg_errors: peg.errors,
        });
    }
    rows.sort_by(|a, b| a.time_step.total_cmp(&b.time_step));
    rows
}
