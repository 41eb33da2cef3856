//! The `signorini` command: run, check and benchmark scenes; list contact models; run the papers'
//! experiments.
//! Exit codes: 0 success, 1 the simulation failed (blew up or a model failed), 2 bad input.
mod heap;
mod mjcf;
mod plot;
mod progress;
mod replay;

/// println! that ignores a closed stdout (`signorini models | head` must not panic).
macro_rules! say {
    ($($t:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stdout(), $($t)*);
    }};
}

mod deformable;
mod experiment;
mod planar;
mod sweep;
mod urdf;

use anyhow::Context;
use clap::{Parser, Subcommand};
use signorini::contact::{catalog, ParamInput};
use signorini::dynamics::Integrator;
use signorini::pipeline::StageTimes;
use signorini::scene;
use signorini::simulation::run::{remove_stale, run, step_count, RunConfig};
use signorini::simulation::{override_params, Simulation};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

#[derive(Parser)]
#[command(
    name = "signorini",
    version,
    about = "Rigid-body contact dynamics with side-by-side contact models"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// Settings a command line may override.
#[derive(clap::Args, Clone)]
pub(crate) struct Overrides {
    /// Contact model (see `signorini models`); overrides the scene's [contact] model.
    #[arg(long)]
    model: Option<String>,
    /// Time step in seconds; overrides simulation.time_step.
    #[arg(long, allow_negative_numbers = true)]
    dt: Option<f64>,
    /// Simulated duration in seconds; overrides simulation.duration.
    #[arg(long, allow_negative_numbers = true)]
    duration: Option<f64>,
    /// Integrator: semi-implicit-euler or rk4; overrides simulation.integrator.
    #[arg(long)]
    integrator: Option<String>,
    /// A contact-model parameter, NAME=VALUE (repeatable); overrides the scene's [contact] key.
    /// VALUE is a number, a word, or words separated by commas for a list (solvers=pgs,lemke).
    #[arg(long = "param", value_name = "NAME=VALUE")]
    params: Vec<String>,
}

impl Overrides {
    /// No overrides (`check`).
    pub(crate) fn none() -> Self {
        Overrides {
            model: None,
            dt: None,
            duration: None,
            integrator: None,
            params: Vec::new(),
        }
    }
}

#[derive(Subcommand)]
enum Command {
    /// Simulate a scene; writes trajectory.csv, metrics.csv and summary.json.
    Run {
        scene: PathBuf,
        #[command(flatten)]
        overrides: Overrides,
        /// Output directory (default: out/<scene name>).
        #[arg(long)]
        out: Option<PathBuf>,
        /// Also record contacts.csv and write replay.html, a page that replays the run in a
        /// browser (docs/replay.md).
        #[arg(long)]
        html: bool,
        /// Frames per simulated second in replay.html.
        #[arg(long, default_value_t = replay::DEFAULT_FPS, requires = "html")]
        fps: f64,
        /// Also write impulses.csv: at each trajectory output time, the impulse (N s) each
        /// contact point carried over the step that ended there (docs/outputs.md).
        #[arg(long)]
        impulses: bool,
        /// Options of a URDF robot's run (docs/multibody.md, "Running a URDF").
        #[command(flatten)]
        robot: urdf::RobotArgs,
    },
    /// Write replay.html, a page that replays a run in a browser, from the run's output
    /// directory (scene.json, trajectory.csv, metrics.csv; contacts.csv if recorded).
    View {
        /// The output directory of `signorini run`.
        out_dir: PathBuf,
        /// Frames per simulated second.
        #[arg(long, default_value_t = replay::DEFAULT_FPS)]
        fps: f64,
    },
    /// Validate a scene file without running it; a `.urdf` robot is imported and summarized.
    Check { scene: PathBuf },
    /// List the contact models and their parameters with defaults.
    Models,
    /// Write a scene in another engine's format (the side-by-side benchmark's input).
    Export {
        scene: PathBuf,
        /// Write MuJoCo MJCF to this file (`-` for standard output).
        #[arg(long, value_name = "FILE")]
        mjcf: PathBuf,
    },
    /// Time steps of a scene without writing files: steps per second and time per stage.
    Bench {
        scene: PathBuf,
        #[command(flatten)]
        overrides: Overrides,
        /// Steps to time (default: the whole duration).
        #[arg(long)]
        steps: Option<u64>,
        /// Simulated seconds to run before timing starts (so a pile has landed, say).
        #[arg(long, default_value_t = 0.0, allow_negative_numbers = true)]
        warmup: f64,
    },
    /// Run a scene over every combination of the given values (each flag takes a comma-separated
    /// list), in parallel; each run's files in OUT/runs/NNN/, one row per run in OUT/sweep.csv.
    Sweep {
        scene: PathBuf,
        /// Contact models, e.g. stewart-trinkle,peg.
        #[arg(long)]
        model: Option<String>,
        /// Time steps in seconds, e.g. 1e-3,4e-3.
        #[arg(long)]
        dt: Option<String>,
        /// Simulated durations in seconds.
        #[arg(long)]
        duration: Option<String>,
        /// Integrator of every run (one value): semi-implicit-euler, rk4 or implicit-euler.
        #[arg(long)]
        integrator: Option<String>,
        /// A contact-model parameter and its values, NAME=V1,V2,... (repeatable); a list value is
        /// written with + between its items (solvers=lemke+pgs,pgs).
        #[arg(long = "param", value_name = "NAME=V1,V2,...")]
        params: Vec<String>,
        /// A scene setting and its values, KEY=V1,V2,... (repeatable): material.NAME.friction,
        /// material.NAME.restitution, or seed (the k-th [[spawn]] / [[random_forces]] gets seed + k).
        #[arg(long = "set", value_name = "KEY=V1,V2,...")]
        sets: Vec<String>,
        /// Output directory (default: out/sweep-<scene name>).
        #[arg(long)]
        out: Option<PathBuf>,
        /// Runs at a time (default: one per core).
        #[arg(long)]
        jobs: Option<usize>,
    },
    /// Run one of the papers' experiments on the bundled scenes; prints a table and writes a CSV
    /// file and plots. Without NAME (or with --list): list the experiments.
    Experiment {
        /// The experiment (see --list).
        name: Option<String>,
        /// List the experiments with one-line descriptions.
        #[arg(long, conflicts_with = "name")]
        list: bool,
        /// Output directory (default: out/experiment-NAME).
        #[arg(long)]
        out: Option<PathBuf>,
        /// Fewer and shorter runs (a quick look, and the tests).
        #[arg(long)]
        quick: bool,
        /// Directory of the scene files (default: examples, relative to the current directory).
        #[arg(long, value_name = "DIR")]
        examples: Option<PathBuf>,
        /// pose-statistics: drops per part and model (default 1000; --quick: 8).
        #[arg(long, value_name = "N")]
        drops: Option<u64>,
        /// pose-statistics: one part only (cube, cap, button; default: all three).
        #[arg(long, value_name = "PART")]
        part: Option<String>,
        /// pose-statistics: one contact model only (default: hunt-crossley and impulse).
        #[arg(long, value_name = "MODEL")]
        model: Option<String>,
        /// pose-statistics: first seed; drop i uses seed S + i (default 1).
        #[arg(long, value_name = "S")]
        seed: Option<u64>,
    },
}

/// An error with its exit code.
#[derive(Debug)]
pub(crate) struct Failure {
    code: u8,
    error: anyhow::Error,
}

pub(crate) fn input_error(e: impl Into<anyhow::Error>) -> Failure {
    Failure {
        code: 2,
        error: e.into(),
    }
}

fn main() -> ExitCode {
    heap::keep_working_set();
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Run {
            scene,
            overrides,
            out,
            html,
            fps,
            impulses,
            robot,
        } => cmd_run(
            &scene,
            &overrides,
            out,
            html.then_some(fps),
            impulses,
            &robot,
        ),
        Command::View { out_dir, fps } => cmd_view(&out_dir, fps),
        Command::Check { scene } => cmd_check(&scene),
        Command::Models => {
            cmd_models();
            Ok(())
        }
        Command::Export { scene, mjcf } => cmd_export(&scene, &mjcf),
        Command::Bench {
            scene,
            overrides,
            steps,
            warmup,
        } => cmd_bench(&scene, &overrides, steps, warmup),
        Command::Sweep {
            scene,
            model,
            dt,
            duration,
            integrator,
            params,
            sets,
            out,
            jobs,
        } => sweep::axes(
            model.as_deref(),
            dt.as_deref(),
            duration.as_deref(),
            &params,
            &sets,
        )
        .and_then(|axes| {
            let fixed = Overrides {
                model: None,
                dt: None,
                duration: None,
                integrator,
                params: Vec::new(),
            };
            sweep::cmd_sweep(&scene, axes, sweep::SweepOptions { out, jobs, fixed })
        }),
        Command::Experiment {
            name,
            list,
            out,
            quick,
            examples,
            drops,
            part,
            model,
            seed,
        } => experiment::cmd_experiment(
            name.as_deref(),
            list,
            experiment::Options {
                out,
                quick,
                examples,
                pose: experiment::PoseOptions {
                    drops,
                    part,
                    model,
                    seed,
                },
            },
        ),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(f) => {
            eprintln!("error: {:#}", f.error);
            ExitCode::from(f.code)
        }
    }
}

/// Load the scene, apply command-line overrides and build its contact model: the simulation,
/// ready to step.
fn prepare(path: &Path, o: &Overrides) -> Result<Simulation, Failure> {
    prepare_scene(scene::load(path).map_err(input_error)?, path, o)
}

/// [`prepare`] for a scene already loaded from `path` (a sweep edits it first).
fn prepare_scene(
    mut scene: scene::Scene,
    path: &Path,
    o: &Overrides,
) -> Result<Simulation, Failure> {
    if let Some(r) = scene.desc.robots.first() {
        return Err(input_error(anyhow::anyhow!(
            "{}:{}: {}: this command steps free bodies only; a scene with robots runs with `signorini run` and `signorini check` (docs/multibody.md, \"Robots in a scene\")",
            path.display(),
            r.line,
            r.key
        )));
    }
    let s = &mut scene.model.settings;
    let positive = |name: &str, v: f64| {
        if v > 0.0 && v.is_finite() {
            Ok(v)
        } else {
            Err(input_error(anyhow::anyhow!(
                "--{name} must be a positive number of seconds, got {v}"
            )))
        }
    };
    if let Some(dt) = o.dt {
        s.time_step = positive("dt", dt)?;
    }
    if let Some(t) = o.duration {
        s.duration = positive("duration", t)?;
    }
    if (o.dt.is_some() || o.duration.is_some()) && s.adaptive.is_none() {
        if let Err((message, hint)) =
            signorini::pipeline::adaptive::check_step_plan(s.duration, s.time_step)
        {
            return Err(input_error(anyhow::anyhow!(
                "--dt/--duration: {message}\n  help: {hint}"
            )));
        }
    }
    if let Some(name) = &o.integrator {
        s.integrator = Integrator::from_name(name).ok_or_else(|| {
            input_error(anyhow::anyhow!(
                "unknown integrator `{name}`; use semi-implicit-euler or rk4"
            ))
        })?;
    }
    for p in &o.params {
        let (name, value) = parse_param(p)?;
        override_params(
            &mut scene,
            o.model.as_deref(),
            &[(name.to_string(), value)],
            "--param",
        )
        .map_err(input_error)?;
    }
    let (model, ignored) = scene
        .contact_model(o.model.as_deref())
        .map_err(input_error)?;
    // implicit-euler steps a model without force elements exactly as semi-implicit Euler.
    if model.velocity_level() && scene.model.settings.integrator == Integrator::Rk4 {
        eprintln!(
            "note: `{}` is velocity-level time stepping; it integrates by semi-implicit Euler and ignores integrator = {}",
            model.spec().name,
            scene.model.settings.integrator
        );
    }
    let sim = Simulation::with_contact_model(scene, model, ignored).map_err(|e| match e {
        signorini::Error::Adaptive(_) => input_error(anyhow::anyhow!(
            "{}: {e}; remove [simulation.adaptive] or choose a force-based model",
            path.display()
        )),
        other => input_error(anyhow::anyhow!("{}: {other}", path.display())),
    })?;
    if !sim.ignored_params().is_empty() {
        eprintln!(
            "note: model `{}` does not use the scene's [contact] parameters {}; they are ignored",
            sim.contact_model().spec().name,
            sim.ignored_params().join(", ")
        );
    }
    Ok(sim)
}

/// `signorini view DIR`: the replay page of a run already written.
fn cmd_view(dir: &Path, fps: f64) -> Result<(), Failure> {
    if !dir.is_dir() {
        return Err(input_error(anyhow::anyhow!(
            "{} is not a directory; give the output directory of `signorini run` (its --out)",
            dir.display()
        )));
    }
    let (path, stats) = replay::write_replay(dir, fps).map_err(input_error)?;
    report_page(&path, &stats);
    Ok(())
}

pub(crate) fn report_page(path: &Path, s: &replay::PageStats) {
    say!(
        "wrote {} ({:.1} MB): {} bodies, {} frames of {} output times, {}",
        path.display(),
        s.bytes as f64 / 1e6,
        s.bodies,
        s.frames,
        s.trajectory_times,
        match s.contacts {
            Some(n) => format!("{n} contact points"),
            None => "no contacts.csv (run with --html to record contacts)".into(),
        }
    );
}

/// One `--param NAME=VALUE`: VALUE is a number, a word, or words separated by commas.
pub(crate) fn parse_param(p: &str) -> Result<(&str, ParamInput), Failure> {
    let Some((name, value)) = p.split_once('=') else {
        return Err(input_error(anyhow::anyhow!(
            "--param `{p}` is not NAME=VALUE, e.g. --param activation=penetrating"
        )));
    };
    let value = if let Ok(v) = value.parse::<f64>() {
        ParamInput::Number(v)
    } else if value.contains(',') {
        ParamInput::List(value.split(',').map(|w| w.trim().to_string()).collect())
    } else {
        ParamInput::Word(value.to_string())
    };
    Ok((name, value))
}

fn cmd_run(
    path: &Path,
    o: &Overrides,
    out: Option<PathBuf>,
    html_fps: Option<f64>,
    impulses: bool,
    robot: &urdf::RobotArgs,
) -> Result<(), Failure> {
    if let Some(fps) = html_fps {
        if !(fps.is_finite() && (1.0..=1e5).contains(&fps)) {
            return Err(input_error(replay::ReplayError::Fps(fps)));
        }
    }
    if urdf::is_urdf(path) {
        return urdf::run(path, o, out, (robot, html_fps, impulses));
    }
    if let Some(flag) = robot.first_given() {
        return Err(input_error(anyhow::anyhow!(
            "{flag} applies to a URDF robot (a .urdf file) only; {} is a scene file",
            path.display()
        )));
    }
    if planar::is_planar(path)? {
        return planar::run(path, o, out, (html_fps.is_some(), impulses));
    }
    let scene = scene::load(path).map_err(input_error)?;
    if !scene.desc.robots.is_empty() {
        return urdf::run_scene(path, scene, o, out, (html_fps, impulses));
    }
    let mut sim = prepare_scene(scene, path, o)?;
    let out_dir = out.unwrap_or_else(|| {
        PathBuf::from("out").join(
            path.file_stem()
                .map(|s| s.to_os_string())
                .unwrap_or_else(|| "scene".into()),
        )
    });
    let settings = &sim.model().settings;
    let adaptive = settings.adaptive.is_some();
    let total = if adaptive {
        (1e3 * settings.duration).round() as u64
    } else {
        sim.planned_steps()
    };
    // A bar on a terminal (for runs of 1000 steps or more); elsewhere a heartbeat line every
    // few seconds.
    let terminal = std::io::stderr().is_terminal();
    let (unit, template) = if adaptive {
        (
            "ms simulated",
            "{spinner} [{elapsed_precise}] {wide_bar} {pos}/{len} ms simulated (eta {eta})",
        )
    } else {
        (
            "steps",
            "{spinner} [{elapsed_precise}] {wide_bar} {pos}/{len} steps ({per_sec}, eta {eta})",
        )
    };
    let show = !terminal || adaptive || total >= 1000;
    let label = format!("run {}", path.display());
    let bar = show.then(|| progress::Progress::new(terminal, &label, unit, total, template));
    // Ctrl-C or SIGTERM: the run finishes the step in progress, flushes its CSV files and writes
    // summary.json with status "interrupted".
    let interrupt = on_interrupt("an interrupted run will leave no summary");
    let cfg = RunConfig {
        trajectory_interval: sim.scene().desc.output.trajectory_interval,
        out_dir: &out_dir,
        interrupt: Some(interrupt),
        contacts: html_fps.map(|fps| 1.0 / fps),
        impulses,
    };
    let mut last = 0;
    let time_step = settings.time_step;
    let mut progress = |k: u64, _n: u64| {
        if let Some(b) = &bar {
            if k >= last + 64 || !terminal {
                // k counts steps, or milliseconds of simulated time for adaptive steps.
                let t = if adaptive {
                    1e-3 * k as f64
                } else {
                    k as f64 * time_step
                };
                b.set(k, || format!("t = {t:.4} s"));
                last = k;
            }
        }
    };
    // Every file this run owns is cleared at its start, so a run that fails before writing one
    // leaves no previous run's file beside its own (the library clears its own files).
    for plot in ["energy.png", "penetration.png", "replay.html"] {
        remove_stale(&out_dir.join(plot)).map_err(input_error)?;
    }
    // An error here is the output's (a directory or file that cannot be written), not the
    // simulation's: the simulation's own failures come back in `summary.error`.
    let summary = run(&cfg, &mut sim, &mut progress).map_err(input_error)?;
    if let Some(b) = bar {
        b.finish();
    }
    say!(
        "{}: {} steps, {:.3} s simulated in {:.3} s wall ({:.0} steps/s); max penetration {:.3e} m, mean {:.3e} m; final kinetic energy {:.3e} J",
        sim.scene().desc.file,
        summary.steps,
        summary.simulated_time,
        summary.wall_time,
        summary.steps_per_second,
        summary.max_penetration,
        summary.mean_penetration,
        // + 0.0: no moving body sums to −0.0, printed as "-0.000e0".
        summary.final_kinetic_energy + 0.0
    );
    for w in summary.warnings() {
        eprintln!("warning: {w}");
    }
    let title = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    // The optional files the run was asked for.
    let extra = [
        (html_fps.is_some(), ", contacts.csv"),
        (impulses, ", impulses.csv"),
    ]
    .iter()
    .filter(|(asked, _)| *asked)
    .map(|(_, name)| *name)
    .collect::<String>();
    match plot::plot_run(&out_dir, &title) {
        Ok(_) => say!(
            "wrote {}/{{scene.json, trajectory.csv, metrics.csv, summary.json{extra}, energy.png, penetration.png}}",
            out_dir.display()
        ),
        Err(e) => {
            say!(
                "wrote {}/{{scene.json, trajectory.csv, metrics.csv, summary.json{extra}}}",
                out_dir.display()
            );
            eprintln!("note: no plots: {e:#}");
        }
    }
    // The page shows whatever the run wrote, a failed or interrupted run's steps included.
    if let Some(fps) = html_fps {
        match replay::write_replay(&out_dir, fps) {
            Ok((page, stats)) => report_page(&page, &stats),
            Err(e) if summary.error.is_none() && !summary.interrupted => {
                return Err(input_error(e));
            }
            Err(e) => eprintln!("note: no replay page: {e}"),
        }
    }
    deformable::report(&sim, &out_dir);
    run_outcome(
        summary
            .interrupted
            .then_some((summary.simulated_time, summary.steps)),
        summary.error,
        &out_dir,
    )
}

/// How a run that wrote its files ends: exit 130 when it was interrupted at (t (s), step), 1
/// when it stopped on `error`, success otherwise; each names where the files are.
pub(crate) fn run_outcome<E: std::error::Error + Send + Sync + 'static>(
    interrupted: Option<(f64, u64)>,
    error: Option<E>,
    out_dir: &Path,
) -> Result<(), Failure> {
    if let Some((time, steps)) = interrupted {
        return Err(Failure {
            code: 130,
            error: anyhow::anyhow!(
                "interrupted at t = {time:.6} s (step {steps}); files in {} hold the steps before it, summary.json says \"interrupted\"",
                out_dir.display()
            ),
        });
    }
    match error {
        None => Ok(()),
        Some(e) => Err(Failure {
            code: 1,
            error: anyhow::Error::new(e).context(format!(
                "the run stopped early; files in {} hold the steps before it",
                out_dir.display()
            )),
        }),
    }
}

/// The flag a SIGINT or SIGTERM sets; a second signal kills the process as usual (exit 130).
/// The handler replaces whatever the process inherited, SIGINT ignored included (a script's
/// background job starts so): an interrupt then ends a run cleanly, and SIGTERM is handled either
/// way (`try_set_handler` refused both in that case). Without a handler, a note on stderr says
/// what `without` an interrupt leaves.
pub(crate) fn on_interrupt(without: &str) -> &'static AtomicBool {
    static INTERRUPT: AtomicBool = AtomicBool::new(false);
    let handler = ctrlc::set_handler(|| {
        if INTERRUPT.swap(true, Ordering::SeqCst) {
            std::process::exit(130);
        }
    });
    if let Err(e) = handler {
        eprintln!("note: no Ctrl-C handler ({e}); {without}");
    }
    &INTERRUPT
}

fn cmd_check(path: &Path) -> Result<(), Failure> {
    if urdf::is_urdf(path) {
        return urdf::check(path);
    }
    if planar::is_planar(path)? {
        return planar::check(path);
    }
    let scene = scene::load(path).map_err(input_error)?;
    if !scene.desc.robots.is_empty() {
        return urdf::check_scene(path, scene);
    }
    let sim = prepare_scene(scene, path, &Overrides::none())?;
    let m = sim.model();
    let pieces: usize = m.bodies.iter().map(|b| b.pieces.len()).sum();
    say!(
        "{}: ok — {} bodies ({} dynamic, {} pieces), {} scheduled forces, model {}, {} ({}){}",
        sim.scene().desc.file,
        m.bodies.len(),
        m.bodies.iter().filter(|b| !b.fixed).count(),
        pieces,
        m.forces.len(),
        sim.contact_model().spec().name,
        match &m.settings.adaptive {
            None => format!("{} steps of {} s", step_count(m), m.settings.time_step),
            Some(a) => format!(
                "{} s in adaptive steps of {} to {} s",
                m.settings.duration, a.min_time_step, a.max_time_step
            ),
        },
        m.settings.integrator.name(),
        deformables_note(&sim)
    );
    Ok(())
}

/// `; N deformables (P particles), C coupled rigid pieces` for `check`, empty without
/// deformables.
fn deformables_note(sim: &Simulation) -> String {
    match sim.deformables() {
        None => String::new(),
        Some(d) => format!(
            "; {} deformables ({} particles), {} rigid pieces coupled",
            d.worlds.len(),
            d.worlds.iter().map(|w| w.x.len()).sum::<usize>(),
            d.coupler().rigid.len()
        ),
    }
}

fn cmd_export(path: &Path, mjcf: &Path) -> Result<(), Failure> {
    let scene = scene::load(path).map_err(input_error)?;
    if let Some(r) = scene.desc.robots.first() {
        return Err(input_error(anyhow::anyhow!(
            "{}:{}: {}: export --mjcf writes free bodies only, not robots yet (MuJoCo reads the URDF itself: scripts/bench_mujoco_robots.py)",
            path.display(),
            r.line,
            r.key
        )));
    }
    let name = path
        .file_stem()
        .map_or("scene".into(), |s| s.to_string_lossy());
    let text = mjcf::to_mjcf(&name, &scene.model, &scene.initial)
        .map_err(|why| input_error(anyhow::anyhow!("{}: cannot export: {why}", path.display())))?;
    if mjcf == Path::new("-") {
        print!("{text}");
    } else {
        std::fs::write(mjcf, text)
            .with_context(|| format!("cannot write {}", mjcf.display()))
            .map_err(input_error)?;
    }
    Ok(())
}

/// Every contact model with its parameters: the 3D catalog, then the planar one (scenes with
/// `[simulation] dimension = 2`), whose names are marked "(2D)" (their parameters differ: planar
/// `peg` has `gap_prediction`, `passes`, … of its own defaults).
fn cmd_models() {
    let specs = catalog().into_iter().map(|s| (s, ""));
    let planar = signorini::planar::catalog()
        .into_iter()
        .map(|s| (s, " (2D)"));
    for (spec, dimension) in specs.chain(planar) {
        say!("{}{dimension}\n  {}", spec.name, spec.summary);
        for p in spec.params {
            let kind = p.kind.to_string();
            say!(
                "    {:<20} [{}] {kind}; default {}\n        {}",
                p.name,
                p.unit,
                p.default,
                p.description
            );
        }
    }
}

fn cmd_bench(path: &Path, o: &Overrides, steps: Option<u64>, warmup: f64) -> Result<(), Failure> {
    if !(warmup >= 0.0 && warmup.is_finite()) {
        return Err(input_error(anyhow::anyhow!(
            "--warmup must be a non-negative number of simulated seconds, got {warmup}"
        )));
    }
    urdf::refuse_to_step(path, "bench")?;
    let mut sim = prepare(path, o)?;
    let n = steps.unwrap_or_else(|| sim.planned_steps());
    if n == 0 {
        return Err(input_error(anyhow::anyhow!("--steps must be at least 1")));
    }
    let mut warm_steps = 0u64;
    sim.run_until(warmup, |_, _| warm_steps += 1)
        .with_context(|| format!("warm-up of {} stopped", path.display()))
        .map_err(|e| Failure { code: 1, error: e })?;
    let mut t = StageTimes::default();
    let start = Instant::now();
    for _ in 0..n {
        let r = sim
            .step()
            .with_context(|| format!("bench of {} stopped", path.display()))
            .map_err(|e| Failure { code: 1, error: e })?;
        t.add(&r.times);
    }
    let wall = start.elapsed().as_secs_f64();
    let total = t.total().max(f64::MIN_POSITIVE);
    say!(
        "{} (after {} warm-up steps): {} steps in {:.3} s: {:.1} steps/s, {:.1} us/step",
        sim.scene().desc.file,
        warm_steps,
        n,
        wall,
        n as f64 / wall,
        1e6 * wall / n as f64
    );
    for (name, s) in [
        ("broad", t.broad),
        ("narrow", t.narrow),
        ("model", t.model),
        ("solve", t.solve),
        ("integrate", t.integrate),
    ] {
        say!(
            "  {:<10} {:>10.1} us/step  {:>5.1} %",
            name,
            1e6 * s / n as f64,
            100.0 * s / total
        );
    }
    Ok(())
}
