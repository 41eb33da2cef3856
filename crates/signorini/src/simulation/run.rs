//! A whole run: step a scene to its duration, streaming `trajectory.csv` and `metrics.csv` (and,
//! when asked, `contacts.csv`) and writing `scene.json` (the bodies' geometry) and `summary.json`. Files are flushed as the run goes (every 256 steps or every second of
//! wall time), so a run that stops early leaves readable files and a summary saying why it
//! stopped, and an interrupted one loses at most the step in progress and the second before it.
//!
//! The run steps a [`Simulation`] (the embedding API, which sits above this layer: this module
//! is its client, the writer of its files).
use super::{Error, Simulation};
use crate::contact::impulse::ImpulseReport;
use crate::contact::{ContactModel, SolveReport};
use crate::dynamics::energy::{kinetic_energy, potential_energy};
use crate::dynamics::{Model, State};
use crate::pipeline::adaptive::AdaptiveStats;
use crate::pipeline::projection::ProjectionReport;
use crate::pipeline::{StageTimes, StepError, StepReport};
use serde_json::json;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

/// Where to write and how often.
pub struct RunConfig<'a> {
    /// Write trajectory rows at most this often (s); 0 = every step (scenes: `[output]
    /// trajectory_interval`).
    pub trajectory_interval: f64,
    pub out_dir: &'a Path,
    /// Set by the embedding program (the CLI's SIGINT/SIGTERM handler) to stop the run: the step
    /// in progress is finished, both CSV files flushed and `summary.json` written with status
    /// `interrupted`.
    pub interrupt: Option<&'a AtomicBool>,
    /// Also write `contacts.csv`: the contact points and normals of the state at trajectory
    /// output times, at most one time per this many seconds ([`Decimator`]; 0 = at every output
    /// time). The CLI's `run --html` sets it to the replay page's frame interval.
    pub contacts: Option<f64>,
    /// Also write `impulses.csv`: at each trajectory output time after the start, the impulse
    /// each contact point carried over the step that ended there
    /// ([`Simulation::contact_impulses`]; the CLI's `run --impulses`).
    pub impulses: bool,
}

/// Picks output times at most one per `interval` (s): the first time offered, then the first
/// time at or after each next multiple of `interval` (so a run writing every 10 ms, picked at
/// 1/60 s, keeps 0, 20, 40, 50, 70 ms…: 60 a second on average). `contacts.csv`'s times are
/// picked so from `trajectory.csv`'s, and the replay page's frames too, so a reader that knows
/// the interval (`scene.json`: `output.contacts_interval`) knows which trajectory times have a
/// contact snapshot, an empty one included.
#[derive(Clone, Debug)]
pub struct Decimator {
    interval: f64,
    next_due: f64,
}

impl Decimator {
    pub fn new(interval: f64) -> Self {
        Decimator {
            interval: interval.max(0.0),
            next_due: f64::NEG_INFINITY,
        }
    }

    /// Is `time` (s, increasing from call to call) picked?
    pub fn take(&mut self, time: f64) -> bool {
        if time < self.next_due - 1e-9 * self.interval {
            return false;
        }
        self.next_due = if self.interval > 0.0 {
            ((time / self.interval + 1e-6).floor() + 1.0) * self.interval
        } else {
            time
        };
        true
    }
}

/// Totals of a run (also written to `summary.json`).
#[derive(Clone, Debug, PartialEq)]
pub struct RunSummary {
    pub steps: u64,
    pub simulated_time: f64,
    pub wall_time: f64,
    pub steps_per_second: f64,
    pub max_penetration: f64,
    pub mean_penetration: f64,
    /// Of the last state that passed its checks (J).
    pub final_kinetic_energy: f64,
    pub stage_seconds: StageTimes,
    pub solver: SolverTotals,
    /// The state when the run ended (after a failure: the broken state, for diagnosis).
    pub final_state: State,
    /// `None` when the run reached its duration or was interrupted.
    pub error: Option<StepError>,
    /// Stopped through [`RunConfig::interrupt`] before its duration.
    pub interrupted: bool,
    /// Step sizes, for adaptive runs.
    pub adaptive: Option<AdaptiveStats>,
    /// Impulse totals, for impulse-based models.
    pub impulses: Option<ImpulseTotals>,
    /// Post-step position projections (`pipeline::projection`; all zero for models without).
    pub projection: ProjectionTotals,
    /// The scene's deformables at the end, as `deformables.json` lists them (`None` without).
    pub deformables: Option<serde_json::Value>,
}

/// The post-step position projections over a run.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ProjectionTotals {
    /// Steps that projected positions.
    pub steps: u64,
    /// Projections solved and applied, over all steps.
    pub passes: u64,
    /// Deepest overlap a step ended with before its projection (m).
    pub max_depth_before: f64,
    /// Largest displacement of a body's centre in one projection (m).
    pub max_shift: f64,
    /// Steps where a projection's solve missed its tolerance (not applied).
    pub failures: u64,
}

impl ProjectionTotals {
    fn add(&mut self, r: &ProjectionReport) {
        self.steps += (r.passes > 0 || r.failed) as u64;
        self.passes += r.passes as u64;
        self.max_depth_before = self.max_depth_before.max(r.depth_before);
        self.max_shift = self.max_shift.max(r.max_shift);
        self.failures += r.failed as u64;
    }
}

impl RunSummary {
    /// What a reader of the run must know although it completed: steps whose solve missed its
    /// tolerance, impulse stages that ran out of sweeps. One sentence each, naming the columns
    /// of metrics.csv that hold the figures per step; empty for a clean run. The CLI prints them
    /// and summary.json lists them (`warnings`).
    pub fn warnings(&self) -> Vec<String> {
        let mut out = Vec::new();
        let sv = &self.solver;
        if sv.failures > 0 {
            out.push(format!(
                "{} of {} steps' contact solves missed their tolerance and went on with their best answer (largest residual {:.3e}; metrics.csv: solver_failed, solver_residual)",
                sv.failures, sv.solves, sv.max_residual
            ));
        }
        if self.projection.failures > 0 {
            out.push(format!(
                "{} steps' post-step position projections missed their solver's tolerance and were not applied (metrics.csv: projection_failed, projected_depth)",
                self.projection.failures
            ));
        }
        if let Some(t) = self.impulses.as_ref().filter(|t| t.total.law_fallbacks > 0) {
            out.push(format!(
                "{} impulses fell back to the algebraic Newton law because the collision law's integration failed (summary.json: impulses.law_fallbacks)",
                t.total.law_fallbacks
            ));
        }
        if let Some(t) = self.impulses.as_ref().filter(|t| t.steps_unresolved > 0) {
            out.push(format!(
                "{} steps' sequential impulses ran out of sweeps with {} points still approaching, at up to {:.3e} m/s (metrics.csv: unresolved, unresolved_speed)",
                t.steps_unresolved, t.total.unresolved, t.total.unresolved_speed
            ));
        }
        out
    }
}

/// The impulse stages over a run (impulse-based models).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ImpulseTotals {
    /// Sums over the run's steps.
    pub total: ImpulseReport,
    /// Most impulses of every kind in one step.
    pub max_impulses: u64,
    /// Most substeps in one step.
    pub max_substeps: u64,
    /// Steps with at least one impulse.
    pub steps_with_impulses: u64,
    /// Steps with an unresolved point (sweeps ran out).
    pub steps_unresolved: u64,
}

impl ImpulseTotals {
    fn add(&mut self, r: &ImpulseReport) {
        self.total.add(r);
        self.max_impulses = self.max_impulses.max(r.impulses());
        self.max_substeps = self.max_substeps.max(r.substeps);
        self.steps_with_impulses += (r.impulses() > 0) as u64;
        self.steps_unresolved += (r.unresolved > 0) as u64;
    }
}

/// Complementarity solves over a run (all zero for penalty models).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SolverTotals {
    /// Steps that solved a problem.
    pub solves: u64,
    /// Steps where no solver met the tolerance (the run went on with `on_failure = "continue"`).
    pub failures: u64,
    /// Steps where the first solver of the order failed and a later one was used.
    pub fallbacks: u64,
    pub max_rows: usize,
    pub total_iterations: u64,
    pub max_iterations: usize,
    pub max_residual: f64,
    /// How many steps each solver's answer was used.
    pub used: Vec<(&'static str, u64)>,
}

impl SolverTotals {
    pub(super) fn add(&mut self, r: &SolveReport) {
        self.solves += 1;
        self.failures += r.failed as u64;
        self.fallbacks += (r.attempts > 1 && !r.failed) as u64;
        self.max_rows = self.max_rows.max(r.rows);
        self.total_iterations += r.iterations as u64;
        self.max_iterations = self.max_iterations.max(r.iterations);
        self.max_residual = self.max_residual.max(r.residual);
        match self.used.iter_mut().find(|(n, _)| *n == r.solver) {
            Some((_, c)) => *c += 1,
            None => self.used.push((r.solver, 1)),
        }
    }
}

/// Why a run failed to produce its files: the facade's error (`Error::Io` when a file cannot be
/// written). Kept under its old name.
pub type RunError = Error;

/// A CSV file written line by line (shared with `planar_run.rs`).
pub(super) struct Writer {
    path: PathBuf,
    inner: BufWriter<File>,
}

impl Writer {
    pub(super) fn create(path: PathBuf, header: &str) -> Result<Self, RunError> {
        let file = File::create(&path).map_err(|source| RunError::Io {
            path: path.clone(),
            source,
        })?;
        let mut w = Writer {
            path,
            inner: BufWriter::with_capacity(1 << 16, file),
        };
        w.line(header)?;
        Ok(w)
    }

    pub(super) fn line(&mut self, s: &str) -> Result<(), RunError> {
        self.inner
            .write_all(s.as_bytes())
            .and_then(|_| self.inner.write_all(b"\n"))
            .map_err(|source| RunError::Io {
                path: self.path.clone(),
                source,
            })
    }

    pub(super) fn flush(&mut self) -> Result<(), RunError> {
        self.inner.flush().map_err(|source| RunError::Io {
            path: self.path.clone(),
            source,
        })
    }
}

pub const TRAJECTORY_HEADER: &str = "time,body,x,y,z,qw,qx,qy,qz,vx,vy,vz,wx,wy,wz";
pub const CONTACTS_HEADER: &str = "time,body_a,body_b,piece_a,piece_b,x,y,z,nx,ny,nz,gap";
pub const IMPULSES_HEADER: &str = "time,body_a,body_b,x,y,z,nx,ny,nz,jx,jy,jz,jn";
pub const METRICS_HEADER: &str = "time,kinetic_energy,potential_energy,total_energy,max_penetration,contacts,active_points,step_seconds,broad_seconds,narrow_seconds,model_seconds,solve_seconds,integrate_seconds,lcp_rows,solver,solver_iterations,solver_residual,solver_failed,islands,time_step,collisions,microcollisions,contact_impulses,impulse_sweeps,unresolved,unresolved_speed,substeps,projection_passes,projected_depth,projection_failed";

fn trajectory_rows(model: &Model, state: &State, w: &mut Writer) -> Result<(), RunError> {
    let mut s = String::new();
    for (body, b) in model.bodies.iter().zip(&state.bodies) {
        if body.fixed {
            continue;
        }
        use std::fmt::Write as _;
        let (p, q, v, om) = (b.position, b.orientation, b.velocity, b.angular_velocity);
        let _ = write!(
            s,
            "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
            state.time,
            body.name,
            p.x,
            p.y,
            p.z,
            q.w,
            q.x,
            q.y,
            q.z,
            v.x,
            v.y,
            v.z,
            om.x,
            om.y,
            om.z
        );
        w.line(&s)?;
        s.clear();
    }
    Ok(())
}

/// One `contacts.csv` row per contact of the current state: the midpoint of the two witness
/// points, the unit normal from A to B and the signed gap (the points are the midpoint ∓ ½ gap n).
fn contact_rows(sim: &mut Simulation, w: &mut Writer) -> Result<(), RunError> {
    use std::fmt::Write as _;
    let time = sim.state().time;
    // The contacts of the last step's end state (cached by the step: no detection here).
    let contacts = sim.contacts().to_vec();
    let model = sim.model();
    let mut s = String::new();
    for c in &contacts {
        let p = 0.5 * (c.point_a + c.point_b);
        let n = c.normal;
        let _ = write!(
            s,
            "{},{},{},{},{},{},{},{},{},{},{},{}",
            time,
            model.bodies[c.body_a].name,
            model.bodies[c.body_b].name,
            c.piece_a,
            c.piece_b,
            p.x,
            p.y,
            p.z,
            n.x,
            n.y,
            n.z,
            c.gap
        );
        w.line(&s)?;
        s.clear();
    }
    Ok(())
}

/// One `impulses.csv` row per contact point of the last step's record: where the impulse acts,
/// the unit normal from A to B, the impulse on B (N s; A receives the opposite) and its normal
/// component.
fn impulse_rows(sim: &mut Simulation, w: &mut Writer) -> Result<(), RunError> {
    use std::fmt::Write as _;
    let time = sim.state().time;
    let impulses = sim.contact_impulses().to_vec();
    let model = sim.model();
    let mut s = String::new();
    for j in &impulses {
        let (p, n, i) = (j.point, j.normal, j.impulse);
        let _ = write!(
            s,
            "{},{},{},{},{},{},{},{},{},{},{},{},{}",
            time,
            model.bodies[j.body_a].name,
            model.bodies[j.body_b].name,
            p.x,
            p.y,
            p.z,
            n.x,
            n.y,
            n.z,
            i.x,
            i.y,
            i.z,
            j.normal_impulse()
        );
        w.line(&s)?;
        s.clear();
    }
    Ok(())
}

/// The bodies as `scene.json` describes them (docs/outputs.md): per body its name, whether it
/// is fixed, its mass, its pose in `state`, and its pieces with their shapes and poses in the
/// body frame (origin at the centre of mass, the frame `trajectory.csv`'s poses move).
pub fn scene_json(sim: &Simulation, state: &State, cfg: &RunConfig) -> serde_json::Value {
    let m = sim.model();
    let v3 = |v: glam::DVec3| json!([v.x, v.y, v.z]);
    let q4 = |q: glam::DQuat| json!([q.w, q.x, q.y, q.z]);
    let bodies: Vec<_> = m
        .bodies
        .iter()
        .zip(&state.bodies)
        .map(|(b, s)| {
            let pieces: Vec<_> = b
                .pieces
                .iter()
                .map(|p| piece_json(&p.shape, &p.pose))
                .collect();
            json!({
                "name": b.name,
                "fixed": b.fixed,
                "mass": if b.fixed { None } else { Some(b.mass) },
                "release_time": b.release_time,
                "position": v3(s.position),
                "orientation": q4(s.orientation),
                "pieces": pieces,
            })
        })
        .collect();
    let mut out = json!({
        "scene": sim.scene().desc.file,
        "time_step": m.settings.time_step,
        "duration": m.settings.duration,
        "gravity": v3(m.settings.gravity),
        "output": {
            "trajectory_interval": cfg.trajectory_interval,
            "contacts_interval": cfg.contacts,
        },
        "bodies": bodies,
        "version": env!("CARGO_PKG_VERSION"),
    });
    if let Some(d) = sim.deformables() {
        out["deformables"] = super::deformable_output::scene_json(d, &sim.scene().desc);
    }
    out
}

/// One piece of `scene.json`: its shape (sphere radius; polytope vertices and faces; half-space
/// normal) and its pose in the body frame (m; quaternion w, x, y, z).
pub fn piece_json(
    shape: &crate::geometry::Shape,
    pose: &crate::geometry::Pose,
) -> serde_json::Value {
    use crate::geometry::Shape;
    let v3 = |v: glam::DVec3| json!([v.x, v.y, v.z]);
    let mut piece = match shape {
        Shape::Sphere { radius } => json!({ "shape": "sphere", "radius": radius }),
        Shape::Polytope(poly) => json!({
            "shape": "polytope",
            "vertices": poly.vertices.iter().map(|&v| v3(v)).collect::<Vec<_>>(),
            "faces": poly.faces.iter().map(|f| f.vertices.clone()).collect::<Vec<_>>(),
        }),
        Shape::HalfSpace { normal } => json!({ "shape": "halfspace", "normal": v3(*normal) }),
    };
    let q = pose.rotation;
    piece["position"] = v3(pose.translation);
    piece["orientation"] = json!([q.w, q.x, q.y, q.z]);
    piece
}

pub use crate::pipeline::adaptive::step_count;

/// Remove `path` if it exists (a file an earlier run left), or say why it cannot be.
pub fn remove_stale(path: &Path) -> Result<(), RunError> {
    match std::fs::remove_file(path) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(source) => Err(RunError::Io {
            path: path.to_path_buf(),
            source,
        }),
    }
}

/// Run `sim` from its current state (a fresh simulation: the scene's initial state) to its
/// duration, calling `progress(done, total)` after each step (steps, or milliseconds of simulated
/// time for adaptive steps: `Simulation::progress`).
pub fn run(
    cfg: &RunConfig,
    sim: &mut Simulation,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<RunSummary, RunError> {
    std::fs::create_dir_all(cfg.out_dir).map_err(|source| RunError::Io {
        path: cfg.out_dir.to_path_buf(),
        source,
    })?;
    // A previous run's summary must not outlive this run's start (the CSVs are truncated below;
    // the summary is written at the end).
    remove_stale(&cfg.out_dir.join("summary.json"))?;
    let scene_path = cfg.out_dir.join("scene.json");
    let scene_text =
        serde_json::to_string(&scene_json(sim, sim.state(), cfg)).expect("plain JSON") + "\n";
    std::fs::write(&scene_path, scene_text).map_err(|source| RunError::Io {
        path: scene_path,
        source,
    })?;
    let mut traj = Writer::create(cfg.out_dir.join("trajectory.csv"), TRAJECTORY_HEADER)?;
    let mut metrics = Writer::create(cfg.out_dir.join("metrics.csv"), METRICS_HEADER)?;
    let contacts_path = cfg.out_dir.join("contacts.csv");
    let mut contact_file = if let Some(interval) = cfg.contacts {
        let w = Writer::create(contacts_path, CONTACTS_HEADER)?;
        Some((w, Decimator::new(interval)))
    } else {
        // A previous run's contacts must not pass for this run's.
        remove_stale(&contacts_path)?;
        None
    };
    let impulses_path = cfg.out_dir.join("impulses.csv");
    let mut impulse_file = if cfg.impulses {
        Some(Writer::create(impulses_path, IMPULSES_HEADER)?)
    } else {
        remove_stale(&impulses_path)?;
        None
    };
    let mut deformable_files = super::deformable_output::DeformableFiles::create(
        cfg.out_dir,
        sim,
        cfg.trajectory_interval,
    )?;
    let start = Instant::now();
    let mut last_flush = start;

    let contacts = sim.contacts();
    let max_pen = crate::collision::max_penetration(contacts);
    let initial = StepReport {
        contacts: contacts.len(),
        max_penetration: max_pen,
        ..StepReport::default()
    };
    let initial_ke = metric_row(sim.model(), sim.state(), &initial, &mut metrics)?;
    let mut totals = Totals::new(max_pen, initial_ke, sim.contact_model());
    trajectory_rows(sim.model(), sim.state(), &mut traj)?;
    if let Some((w, d)) = contact_file.as_mut() {
        if d.take(sim.state().time) {
            contact_rows(sim, w)?;
        }
    }
    let mut last_traj = 0.0;
    let mut error = None;
    let mut interrupted = false;
    while !sim.finished() {
        if cfg
            .interrupt
            .is_some_and(|flag| flag.load(Ordering::Relaxed))
        {
            // The last state gets its trajectory rows, as the final state of a whole run does.
            if sim.state().time > last_traj {
                trajectory_rows(sim.model(), sim.state(), &mut traj)?;
                if let Some((w, d)) = contact_file.as_mut() {
                    if d.take(sim.state().time) {
                        contact_rows(sim, w)?;
                    }
                }
                if let Some(w) = impulse_file.as_mut() {
                    impulse_rows(sim, w)?;
                }
            }
            interrupted = true;
            break;
        }
        let report = match sim.step() {
            Ok(report) => report,
            Err(Error::Step(e)) => {
                error = Some(e);
                break;
            }
            Err(e) => return Err(e),
        };
        let ke = metric_row(sim.model(), sim.state(), &report, &mut metrics)?;
        if let (Some(files), Some(d)) = (deformable_files.as_mut(), sim.deformables()) {
            files.record(d, report.time_step, sim.finished())?;
        }
        let due = sim.state().time - last_traj >= cfg.trajectory_interval - 1e-9 * report.time_step;
        if due || sim.finished() {
            trajectory_rows(sim.model(), sim.state(), &mut traj)?;
            if let Some((w, d)) = contact_file.as_mut() {
                if d.take(sim.state().time) {
                    contact_rows(sim, w)?;
                }
            }
            if let Some(w) = impulse_file.as_mut() {
                impulse_rows(sim, w)?;
            }
            last_traj = sim.state().time;
        }
        let state = sim.state();
        // Every 256 steps or every second of wall time, whichever comes first: slow steps
        // (a 200-body pile under a complementarity model takes seconds each) must not
        // leave minutes of a run in the buffers when it is interrupted.
        if state.step % 256 == 0 || last_flush.elapsed().as_secs_f64() >= 1.0 {
            traj.flush()?;
            metrics.flush()?;
            if let Some((w, _)) = contact_file.as_mut() {
                w.flush()?;
            }
            if let Some(w) = impulse_file.as_mut() {
                w.flush()?;
            }
            if let Some(f) = deformable_files.as_mut() {
                f.flush()?;
            }
            last_flush = Instant::now();
        }
        totals.add(&report, state, ke);
        let (done, total) = sim.progress();
        progress(done, total);
    }
    traj.flush()?;
    metrics.flush()?;
    if let Some((w, _)) = contact_file.as_mut() {
        w.flush()?;
    }
    if let Some(w) = impulse_file.as_mut() {
        w.flush()?;
    }
    let mut deformables = None;
    if let Some(files) = deformable_files {
        let why = match &error {
            Some(e) => Some(e.to_string()),
            None => interrupted.then(|| format!("interrupted at t = {} s", sim.state().time)),
        };
        deformables = files.finish(sim, why)?;
    }
    let mut summary = totals.summary(start.elapsed().as_secs_f64(), sim, error);
    summary.interrupted = interrupted;
    summary.deformables = deformables;
    write_summary(cfg, sim, &summary)?;
    Ok(summary)
}

/// What a run adds up step by step, for its summary.
struct Totals {
    stage_seconds: StageTimes,
    max_pen: f64,
    sum_pen: f64,
    /// Metrics rows written (the initial one included).
    rows: u64,
    solver: SolverTotals,
    impulses: Option<ImpulseTotals>,
    projection: ProjectionTotals,
    /// The last state that passed its checks: a failed step leaves the state broken.
    ok_steps: u64,
    ok_time: f64,
    ok_ke: f64,
}

impl Totals {
    /// Before the first step: the initial state's penetration and kinetic energy.
    fn new(initial_pen: f64, initial_ke: f64, contact_model: &ContactModel) -> Self {
        let mut sum_pen = 0.0;
        sum_pen += initial_pen;
        Totals {
            stage_seconds: StageTimes::default(),
            max_pen: initial_pen,
            sum_pen,
            rows: 1,
            solver: SolverTotals::default(),
            impulses: contact_model
                .impulse_loop()
                .map(|_| ImpulseTotals::default()),
            projection: ProjectionTotals::default(),
            ok_steps: 0,
            ok_time: 0.0,
            ok_ke: initial_ke,
        }
    }

    /// A step that ended in `state` with kinetic energy `ke` (J).
    fn add(&mut self, report: &StepReport, state: &State, ke: f64) {
        self.stage_seconds.add(&report.times);
        self.max_pen = self.max_pen.max(report.max_penetration);
        self.sum_pen += report.max_penetration;
        self.rows += 1;
        if let Some(r) = &report.model_stats.solve {
            self.solver.add(r);
        }
        if let Some(t) = self.impulses.as_mut() {
            t.add(&report.impulses);
        }
        self.projection.add(&report.projection);
        (self.ok_steps, self.ok_time, self.ok_ke) = (state.step, state.time, ke);
    }

    fn summary(self, wall: f64, sim: &Simulation, error: Option<StepError>) -> RunSummary {
        RunSummary {
            steps: self.ok_steps,
            simulated_time: self.ok_time,
            wall_time: wall,
            steps_per_second: if wall > 0.0 {
                self.ok_steps as f64 / wall
            } else {
                0.0
            },
            max_penetration: self.max_pen,
            mean_penetration: self.sum_pen / self.rows as f64,
            final_kinetic_energy: self.ok_ke,
            stage_seconds: self.stage_seconds,
            solver: self.solver,
            final_state: sim.state().clone(),
            error,
            interrupted: false,
            adaptive: sim.adaptive_stats().cloned(),
            impulses: self.impulses,
            projection: self.projection,
            deformables: None,
        }
    }
}

/// Write one metrics row for the state a step (or, for the initial row, nothing: zero times and
/// step) ended in; returns the kinetic energy it wrote (J).
fn metric_row(
    model: &Model,
    state: &State,
    r: &StepReport,
    w: &mut Writer,
) -> Result<f64, RunError> {
    let (ke, pe) = (kinetic_energy(model, state), potential_energy(model, state));
    let solve = match &r.model_stats.solve {
        Some(s) => format!(
            "{},{},{},{},{},{}",
            s.rows, s.solver, s.iterations, s.residual, s.failed as u8, s.islands
        ),
        None => "0,,0,0,0,0".to_string(),
    };
    let t = &r.times;
    let (i, p) = (&r.impulses, &r.projection);
    w.line(&format!(
        "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
        state.time,
        ke,
        pe,
        ke + pe,
        r.max_penetration,
        r.contacts,
        r.model_stats.active_points,
        t.total(),
        t.broad,
        t.narrow,
        t.model,
        t.solve,
        t.integrate,
        solve,
        r.time_step,
        i.collisions,
        i.microcollisions,
        i.contact_impulses,
        i.sweeps,
        i.unresolved,
        i.unresolved_speed,
        i.substeps,
        p.passes,
        p.depth_before,
        p.failed as u8
    ))?;
    Ok(ke)
}

/// `summary.json`'s `status`: a run that stopped on an error failed, whether interrupted or not.
pub(crate) fn status(failed: bool, interrupted: bool) -> &'static str {
    match (failed, interrupted) {
        (true, _) => "failed",
        (false, true) => "interrupted",
        (false, false) => "completed",
    }
}

/// `summary.json`'s `model.parameters`: name → value in effect.
pub(crate) fn parameters_json(
    params: Vec<(&'static str, crate::contact::ParamValue)>,
) -> serde_json::Map<String, serde_json::Value> {
    params
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.to_json()))
        .collect()
}

fn write_summary(cfg: &RunConfig, sim: &Simulation, s: &RunSummary) -> Result<(), RunError> {
    let (m, cm) = (sim.model(), sim.contact_model());
    let params = parameters_json(cm.parameters());
    let t = &s.stage_seconds;
    let doc = json!({
        "status": status(s.error.is_some(), s.interrupted),
        "error": s.error.as_ref().map(|e| e.to_string()),
        "scene": sim.scene().desc.file,
        "model": { "name": cm.spec().name, "parameters": params },
        "integrator": if cm.velocity_level() {
            "semi-implicit-euler (velocity-level time stepping)"
        } else if cm.impulse_loop_linearises()
            && m.settings.integrator == crate::dynamics::Integrator::ImplicitEuler
        {
            "semi-implicit-euler (impulse loop), penalty force elements by implicit-euler"
        } else if cm.impulse_loop().is_some() {
            "semi-implicit-euler (impulse loop)"
        } else {
            m.settings.integrator.name()
        },
        "time_step": m.settings.time_step,
        "adaptive": m.settings.adaptive.map(|a| json!({
            "energy_tolerance": a.energy_tolerance,
            "min_time_step": a.min_time_step,
            "max_time_step": a.max_time_step,
        })),
        "time_steps": s.adaptive.as_ref().map(|a| json!({
            "accepted": a.accepted,
            "rejected": a.rejected,
            "forced_at_min": a.forced,
            "smallest": a.smallest,
            "mean": a.mean(),
            "largest": a.largest,
            "max_energy_error": a.max_error,
            "histogram": a.histogram.iter().map(|&(k, n)| json!({
                "from": 2f64.powi(k),
                "to": 2f64.powi(k + 1),
                "count": n,
            })).collect::<Vec<_>>(),
        })),
        "impulses": s.impulses.as_ref().map(|t| json!({
            "collisions": t.total.collisions,
            "microcollisions": t.total.microcollisions,
            "contact_impulses": t.total.contact_impulses,
            "sweeps": t.total.sweeps,
            "unresolved": t.total.unresolved,
            "max_unresolved_speed": t.total.unresolved_speed,
            "law_fallbacks": t.total.law_fallbacks,
            "substeps": t.total.substeps,
            "toi_iterations": t.total.toi_iterations,
            "toi_capped": t.total.toi_capped,
            "max_impulses_per_step": t.max_impulses,
            "max_substeps_per_step": t.max_substeps,
            "steps_with_impulses": t.steps_with_impulses,
            "steps_unresolved": t.steps_unresolved,
        })),
        "projection": {
            "steps": s.projection.steps,
            "passes": s.projection.passes,
            "max_depth_before": s.projection.max_depth_before,
            "max_shift": s.projection.max_shift,
            "failures": s.projection.failures,
        },
        "duration": m.settings.duration,
        "activation_distance": m.settings.activation_distance,
        "solver": {
            "solves": s.solver.solves,
            "failures": s.solver.failures,
            "fallbacks": s.solver.fallbacks,
            "max_rows": s.solver.max_rows,
            "mean_iterations": if s.solver.solves > 0 { s.solver.total_iterations as f64 / s.solver.solves as f64 } else { 0.0 },
            "max_iterations": s.solver.max_iterations,
            "max_residual": s.solver.max_residual,
            "used": s.solver.used.iter().map(|(n, c)| (n.to_string(), json!(c))).collect::<serde_json::Map<_, _>>(),
        },
        "bodies": m.bodies.len(),
        "dynamic_bodies": m.bodies.iter().filter(|b| !b.fixed).count(),
        "steps": s.steps,
        "simulated_time": s.simulated_time,
        "wall_time": s.wall_time,
        "steps_per_second": s.steps_per_second,
        "max_penetration": s.max_penetration,
        "mean_penetration": s.mean_penetration,
        "final_kinetic_energy": s.final_kinetic_energy,
        "warnings": s.warnings(),
        "stage_seconds": { "broad": t.broad, "narrow": t.narrow, "model": t.model, "solve": t.solve, "integrate": t.integrate },
        "deformables": s.deformables,
        "version": env!("CARGO_PKG_VERSION"),
    });
    let path = cfg.out_dir.join("summary.json");
    let text = serde_json::to_string_pretty(&doc).expect("summary is plain JSON") + "\n";
    std::fs::write(&path, text).map_err(|source| RunError::Io { path, source })
}
