//! A whole 2D run (`[simulation] dimension = 2`): step a [`PlanarWorld`] to its duration,
//! streaming `trajectory.csv` and `metrics.csv` and writing `summary.json`, as [`super::run`]
//! does for 3D scenes (same flushing, same status words, same solver totals). The columns are
//! documented in docs/planar.md.
use super::run::{remove_stale, RunConfig, SolverTotals, Writer};
use super::Error;
use crate::planar::{PlanarModel, PlanarState, PlanarStepError, PlanarStepReport, PlanarWorld};
use crate::scene::PlanarScene;
use serde_json::json;
use std::sync::atomic::Ordering;
use std::time::Instant;

/// `trajectory.csv` of a 2D run: one row per dynamic body per output time; x, y the centre of
/// mass (m), theta the body angle (rad, counter-clockwise), vx, vy (m/s), omega (rad/s).
pub const TRAJECTORY_HEADER_2D: &str = "time,body,x,y,theta,vx,vy,omega";
/// `metrics.csv` of a 2D run: one row per step (and the initial state).
pub const METRICS_HEADER_2D: &str = "time,kinetic_energy,potential_energy,total_energy,max_penetration,contacts,active_points,step_seconds,detect_seconds,model_seconds,integrate_seconds,lcp_rows,solver,solver_iterations,solver_residual,solver_failed";

/// Totals of a 2D run (also written to `summary.json`).
#[derive(Clone, Debug, PartialEq)]
pub struct PlanarRunSummary {
    pub steps: u64,
    pub simulated_time: f64,
    pub wall_time: f64,
    pub steps_per_second: f64,
    /// Largest and mean (over metric rows) deepest penetration (m).
    pub max_penetration: f64,
    pub mean_penetration: f64,
    /// Of the last state that passed its checks (J).
    pub final_kinetic_energy: f64,
    pub solver: SolverTotals,
    pub final_state: PlanarState,
    /// `None` when the run reached its duration or was interrupted.
    pub error: Option<PlanarStepError>,
    pub interrupted: bool,
}

fn trajectory_rows(model: &PlanarModel, state: &PlanarState, w: &mut Writer) -> Result<(), Error> {
    for (body, b) in model.bodies.iter().zip(&state.bodies) {
        if body.fixed {
            continue;
        }
        w.line(&format!(
            "{},{},{},{},{},{},{},{}",
            state.time,
            body.name,
            b.position.x,
            b.position.y,
            b.angle,
            b.velocity.x,
            b.velocity.y,
            b.angular_velocity
        ))?;
    }
    Ok(())
}

/// One metrics row; returns the kinetic energy.
fn metric_row(world: &PlanarWorld, r: &PlanarStepReport, w: &mut Writer) -> Result<f64, Error> {
    let (m, s) = (&world.model, &world.state);
    let ke = s.kinetic_energy(m);
    let pe = s.potential_energy(m);
    let step = r.detect_seconds + r.model_seconds + r.integrate_seconds;
    let (rows, solver, iterations, residual, failed) = match &r.solve {
        Some(v) => (v.rows, v.solver, v.iterations, v.residual, v.failed as u8),
        None => (0, "", 0, 0.0, 0),
    };
    w.line(&format!(
        "{},{ke},{pe},{},{},{},{},{step},{},{},{},{rows},{solver},{iterations},{residual},{failed}",
        s.time,
        ke + pe,
        r.max_penetration,
        r.contacts,
        r.active,
        r.detect_seconds,
        r.model_seconds,
        r.integrate_seconds,
    ))?;
    Ok(ke)
}

/// Run `world` (fresh from `scene`) to its duration, writing the files into `cfg.out_dir`
/// (`cfg.contacts` is not used in 2D: no replay page yet); `progress(done, total)` after each
/// step. A step's failure ends the run with the files of the steps before it and is returned
/// in the summary; only output errors are `Err`.
pub fn run_planar(
    cfg: &RunConfig,
    scene: &PlanarScene,
    world: &mut PlanarWorld,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<PlanarRunSummary, Error> {
    std::fs::create_dir_all(cfg.out_dir).map_err(|source| Error::Io {
        path: cfg.out_dir.to_path_buf(),
        source,
    })?;
    for stale in ["summary.json", "scene.json", "contacts.csv"] {
        remove_stale(&cfg.out_dir.join(stale))?;
    }
    let mut traj = Writer::create(cfg.out_dir.join("trajectory.csv"), TRAJECTORY_HEADER_2D)?;
    let mut metrics = Writer::create(cfg.out_dir.join("metrics.csv"), METRICS_HEADER_2D)?;
    let start = Instant::now();
    let mut last_flush = start;
    let touching = world.contacts(0.0);
    let initial = PlanarStepReport {
        contacts: touching.len(),
        max_penetration: touching.iter().map(|c| -c.gap).fold(0.0, f64::max),
        ..PlanarStepReport::default()
    };
    let mut ok_ke = metric_row(world, &initial, &mut metrics)?;
    trajectory_rows(&world.model, &world.state, &mut traj)?;
    let (mut max_pen, mut sum_pen, mut rows) =
        (initial.max_penetration, initial.max_penetration, 1u64);
    let mut solver = SolverTotals::default();
    let total = world.planned_steps();
    let h = world.model.settings.time_step;
    let mut last_traj = 0.0;
    let (mut error, mut interrupted) = (None, false);
    while world.steps < total {
        if cfg.interrupt.is_some_and(|f| f.load(Ordering::Relaxed)) {
            if world.state.time > last_traj {
                trajectory_rows(&world.model, &world.state, &mut traj)?;
            }
            interrupted = true;
            break;
        }
        let report = match world.step() {
            Ok(r) => r,
            Err(e) => {
                error = Some(e);
                break;
            }
        };
        ok_ke = metric_row(world, &report, &mut metrics)?;
        max_pen = max_pen.max(report.max_penetration);
        sum_pen += report.max_penetration;
        rows += 1;
        if let Some(s) = &report.solve {
            solver.add(s);
        }
        let done = world.steps >= total;
        if world.state.time - last_traj >= cfg.trajectory_interval - 1e-9 * h || done {
            trajectory_rows(&world.model, &world.state, &mut traj)?;
            last_traj = world.state.time;
        }
        if world.steps % 256 == 0 || last_flush.elapsed().as_secs_f64() >= 1.0 {
            traj.flush()?;
            metrics.flush()?;
            last_flush = Instant::now();
        }
        progress(world.steps, total);
    }
    traj.flush()?;
    metrics.flush()?;
    let wall = start.elapsed().as_secs_f64();
    let summary = PlanarRunSummary {
        steps: world.steps,
        simulated_time: world.state.time,
        wall_time: wall,
        steps_per_second: if wall > 0.0 {
            world.steps as f64 / wall
        } else {
            0.0
        },
        max_penetration: max_pen,
        mean_penetration: sum_pen / rows as f64,
        final_kinetic_energy: ok_ke,
        solver,
        final_state: world.state.clone(),
        error,
        interrupted,
    };
    write_summary(cfg, scene, world, &summary)?;
    Ok(summary)
}

fn write_summary(
    cfg: &RunConfig,
    scene: &PlanarScene,
    world: &PlanarWorld,
    s: &PlanarRunSummary,
) -> Result<(), Error> {
    let m = &world.model;
    let cm = &world.contact_model;
    let params = super::run::parameters_json(cm.parameters());
    let sv = &s.solver;
    let doc = json!({
        "status": super::run::status(s.error.is_some(), s.interrupted),
        "error": s.error.as_ref().map(|e| e.to_string()),
        "scene": scene.desc.file,
        "dimension": 2,
        "model": { "name": cm.spec().name, "parameters": params },
        "integrator": "semi-implicit-euler",
        "time_step": m.settings.time_step,
        "duration": m.settings.duration,
        "gravity": [m.settings.gravity.x, m.settings.gravity.y],
        "activation_distance": m.settings.activation_distance,
        "solver": {
            "solves": sv.solves,
            "failures": sv.failures,
            "fallbacks": sv.fallbacks,
            "max_rows": sv.max_rows,
            "mean_iterations": if sv.solves > 0 { sv.total_iterations as f64 / sv.solves as f64 } else { 0.0 },
            "max_iterations": sv.max_iterations,
            "max_residual": sv.max_residual,
            "used": sv.used.iter().map(|(n, c)| (n.to_string(), json!(c))).collect::<serde_json::Map<_, _>>(),
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
        "warnings": warnings(s),
        "version": env!("CARGO_PKG_VERSION"),
    });
    let path = cfg.out_dir.join("summary.json");
    let text = serde_json::to_string_pretty(&doc).expect("summary is plain JSON") + "\n";
    std::fs::write(&path, text).map_err(|source| Error::Io { path, source })
}

/// What a reader of a completed run must know (solves that missed their tolerance).
pub fn warnings(s: &PlanarRunSummary) -> Vec<String> {
    let sv = &s.solver;
    if sv.failures == 0 {
        return Vec::new();
    }
    vec![format!(
        "{} of {} steps' contact solves missed their tolerance and went on with their best answer (largest residual {:.3e}; metrics.csv: solver_failed, solver_residual)",
        sv.failures, sv.solves, sv.max_residual
    )]
}
