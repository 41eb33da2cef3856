//! `signorini sweep`: one scene run over every combination of the values given for some of its
//! settings — the contact model, time step, duration, contact parameters, a material's friction
//! or restitution, the seed of its random parts — in parallel with rayon, each run writing its
//! own files under `OUT/runs/NNN/` exactly as `signorini run` would, and one row per run in
//! `OUT/sweep.csv` (docs/sweep.md).
//!
//! ```text
//!   axes  = the value lists of the command line, in its order (--model, --dt, --duration,
//!           --param NAME=…, --set KEY=…)
//!   runs  = their Cartesian product, the last axis fastest; run k is a pure function of
//!           (scene, its values): the same files whatever the thread count or order
//!   check every run's scene and model first (a bad value fails the sweep before any run, exit 2)
//!   run them on the thread pool; sweep.csv in run order; exit 1 if a run stopped early
//! ```
use crate::progress::Progress;
use crate::{input_error, on_interrupt, prepare_scene, Failure, Overrides};
use rayon::prelude::*;
use signorini::scene::{self, Scene};
use signorini::simulation::run::{run, RunConfig, RunSummary};
use std::io::{IsTerminal, Write as _};
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;

/// What a sweep varies, and over which values (as written on the command line).
#[derive(Clone, Debug, PartialEq)]
pub enum Axis {
    Model(Vec<String>),
    TimeStep(Vec<String>),
    Duration(Vec<String>),
    /// A contact-model parameter; a list value is written with `+` between its items.
    Param {
        name: String,
        values: Vec<String>,
    },
    /// `material.NAME.friction` or `material.NAME.restitution`.
    Material {
        name: String,
        field: MaterialField,
        values: Vec<String>,
    },
    /// `seed`: the k-th `[[spawn]]` and `[[random_forces]]` entry gets seed + k.
    Seed(Vec<String>),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MaterialField {
    Friction,
    Restitution,
}

impl Axis {
    /// The column name in sweep.csv.
    pub fn name(&self) -> String {
        match self {
            Axis::Model(_) => "model".into(),
            Axis::TimeStep(_) => "time_step".into(),
            Axis::Duration(_) => "duration".into(),
            Axis::Param { name, .. } => name.clone(),
            Axis::Material { name, field, .. } => format!(
                "material.{name}.{}",
                match field {
                    MaterialField::Friction => "friction",
                    MaterialField::Restitution => "restitution",
                }
            ),
            Axis::Seed(_) => "seed".into(),
        }
    }

    pub fn values(&self) -> &[String] {
        match self {
            Axis::Model(v) | Axis::TimeStep(v) | Axis::Duration(v) | Axis::Seed(v) => v,
            Axis::Param { values, .. } | Axis::Material { values, .. } => values,
        }
    }
}

/// Values of a comma-separated list, each trimmed; empty items are an error naming `flag`.
fn list(flag: &str, text: &str) -> Result<Vec<String>, Failure> {
    let values: Vec<String> = text.split(',').map(|v| v.trim().to_string()).collect();
    if values.iter().any(|v| v.is_empty()) {
        return Err(input_error(anyhow::anyhow!(
            "{flag} `{text}` has an empty value; write the values separated by commas, e.g. 1e-3,2e-3"
        )));
    }
    Ok(values)
}

/// The axes of a sweep from its command-line flags, in the order: model, dt, duration, each
/// `--param` and each `--set` as given.
pub fn axes(
    model: Option<&str>,
    dt: Option<&str>,
    duration: Option<&str>,
    params: &[String],
    sets: &[String],
) -> Result<Vec<Axis>, Failure> {
    let mut axes = Vec::new();
    if let Some(m) = model {
        axes.push(Axis::Model(list("--model", m)?));
    }
    if let Some(d) = dt {
        axes.push(Axis::TimeStep(list("--dt", d)?));
    }
    if let Some(d) = duration {
        axes.push(Axis::Duration(list("--duration", d)?));
    }
    for p in params {
        let Some((name, values)) = p.split_once('=') else {
            return Err(input_error(anyhow::anyhow!(
                "--param `{p}` is not NAME=V1,V2,..., e.g. --param tolerance=1e-8,1e-10"
            )));
        };
        axes.push(Axis::Param {
            name: name.trim().to_string(),
            values: list(&format!("--param {name}"), values)?,
        });
    }
    for s in sets {
        let Some((key, values)) = s.split_once('=') else {
            return Err(input_error(anyhow::anyhow!(
                "--set `{s}` is not KEY=V1,V2,..., e.g. --set material.default.friction=0.2,0.5"
            )));
        };
        let values = list(&format!("--set {key}"), values)?;
        let key = key.trim();
        let parts: Vec<&str> = key.split('.').collect();
        let axis = match parts.as_slice() {
            ["seed"] => Axis::Seed(values),
            ["material", name, "friction"] => Axis::Material {
                name: name.to_string(),
                field: MaterialField::Friction,
                values,
            },
            ["material", name, "restitution"] => Axis::Material {
                name: name.to_string(),
                field: MaterialField::Restitution,
                values,
            },
            _ => {
                return Err(input_error(anyhow::anyhow!(
                    "--set: unknown key `{key}`; use material.NAME.friction, material.NAME.restitution or seed (the contact model, time step and duration have --model, --dt, --duration; contact parameters --param)"
                )))
            }
        };
        axes.push(axis);
    }
    for (i, a) in axes.iter().enumerate() {
        if axes[..i].iter().any(|b| b.name() == a.name()) {
            return Err(input_error(anyhow::anyhow!(
                "`{}` is swept twice; give all its values in one list",
                a.name()
            )));
        }
    }
    Ok(axes)
}

/// Every combination of the axes' values (index into each axis), the last axis fastest.
pub fn grid(axes: &[Axis]) -> Vec<Vec<usize>> {
    let mut points = vec![Vec::new()];
    for axis in axes {
        let n = axis.values().len();
        points = points
            .into_iter()
            .flat_map(|p| {
                (0..n).map(move |k| {
                    let mut q = p.clone();
                    q.push(k);
                    q
                })
            })
            .collect();
    }
    points
}

/// The scene of one run: `base` with the scene-level values of `point` (materials, seed)
/// applied and rebuilt through the scene's own checks, and the command-line overrides for the
/// rest (`fixed`: the sweep's own single-valued overrides).
fn point_setup(
    base: &Scene,
    axes: &[Axis],
    point: &[usize],
    fixed: &Overrides,
) -> Result<(Scene, Overrides), Failure> {
    let mut o = fixed.clone();
    let mut desc = base.desc.clone();
    let mut rebuild = false;
    for (axis, &k) in axes.iter().zip(point) {
        let v = &axis.values()[k];
        match axis {
            Axis::Model(_) => o.model = Some(v.clone()),
            Axis::TimeStep(_) => o.dt = Some(number("--dt", v)?),
            Axis::Duration(_) => o.duration = Some(number("--duration", v)?),
            Axis::Param { name, .. } => o.params.push(format!("{name}={}", v.replace('+', ","))),
            Axis::Material { name, field, .. } => {
                let x = number(&format!("--set {}", axis.name()), v)?;
                let Some(m) = desc.materials.iter_mut().find(|m| &m.name == name) else {
                    let names: Vec<_> = desc.materials.iter().map(|m| m.name.as_str()).collect();
                    return Err(input_error(anyhow::anyhow!(
                        "--set {}: the scene has no material `{name}`; its materials are {}",
                        axis.name(),
                        names.join(", ")
                    )));
                };
                match field {
                    MaterialField::Friction => m.friction = x,
                    MaterialField::Restitution => m.restitution = x,
                }
                rebuild = true;
            }
            Axis::Seed(_) => {
                let s: u64 = v.parse().map_err(|_| {
                    input_error(anyhow::anyhow!(
                        "--set seed: `{v}` is not a whole number >= 0"
                    ))
                })?;
                if desc.spawns.is_empty() && desc.random_forces.is_empty() {
                    return Err(input_error(anyhow::anyhow!(
                        "--set seed: the scene has no [[spawn]] or [[random_forces]] to seed"
                    )));
                }
                for (k, sp) in desc.spawns.iter_mut().enumerate() {
                    sp.seed = s.wrapping_add(k as u64);
                }
                for (k, rf) in desc.random_forces.iter_mut().enumerate() {
                    rf.seed = s.wrapping_add(k as u64);
                }
                rebuild = true;
            }
        }
    }
    let scene = if rebuild {
        scene::build(desc).map_err(input_error)?
    } else {
        Scene {
            desc,
            model: base.model.clone(),
            initial: base.initial.clone(),
        }
    };
    Ok((scene, o))
}

fn number(flag: &str, v: &str) -> Result<f64, Failure> {
    v.parse::<f64>()
        .map_err(|_| input_error(anyhow::anyhow!("{flag}: `{v}` is not a number")))
}

/// One run's outcome: its summary, or the error that kept its files from being written.
type Outcome = Result<RunSummary, String>;

/// Options of `signorini sweep` besides the axes.
pub struct SweepOptions {
    pub out: Option<PathBuf>,
    pub jobs: Option<usize>,
    /// Settings every run shares (the integrator, say).
    pub fixed: Overrides,
}

pub fn cmd_sweep(path: &Path, axes: Vec<Axis>, opts: SweepOptions) -> Result<(), Failure> {
    let base = scene::load(path).map_err(input_error)?;
    let points = grid(&axes);
    // Check every run before any starts: a bad value is an input error, not a failed run.
    let mut setups = Vec::with_capacity(points.len());
    for p in &points {
        let (scene, o) = point_setup(&base, &axes, p, &opts.fixed)?;
        let sim = prepare_scene(scene, path, &o).map_err(|f| Failure {
            code: f.code,
            error: f.error.context(format!("run {}", describe(&axes, p))),
        })?;
        setups.push(sim);
    }
    let out_dir = opts.out.unwrap_or_else(|| {
        let stem = path.file_stem().map(|s| s.to_string_lossy().into_owned());
        PathBuf::from("out").join(format!("sweep-{}", stem.unwrap_or_else(|| "scene".into())))
    });
    std::fs::create_dir_all(&out_dir)
        .map_err(|e| input_error(anyhow::anyhow!("cannot create {}: {e}", out_dir.display())))?;
    let table = out_dir.join("sweep.csv");
    signorini::simulation::run::remove_stale(&table).map_err(input_error)?;

    let n = setups.len();
    let terminal = std::io::stderr().is_terminal();
    let progress = Progress::new(
        terminal,
        &format!("sweep {}", path.display()),
        "runs",
        n as u64,
        "{spinner} [{elapsed_precise}] {wide_bar} {pos}/{len} runs (eta {eta})",
    );
    let interrupt = on_interrupt("an interrupted sweep leaves no sweep.csv");
    let digits = (n.max(1) - 1).to_string().len().max(3);
    let dirs: Vec<PathBuf> = (0..n)
        .map(|k| out_dir.join("runs").join(format!("{k:0digits$}")))
        .collect();
    let work = || {
        setups
            .into_par_iter()
            .enumerate()
            .map(|(k, mut sim)| {
                let cfg = RunConfig {
                    trajectory_interval: sim.scene().desc.output.trajectory_interval,
                    out_dir: &dirs[k],
                    interrupt: Some(interrupt),
                    contacts: None,
                    impulses: false,
                };
                let outcome: Outcome =
                    run(&cfg, &mut sim, &mut |_, _| {}).map_err(|e| e.to_string());
                progress.inc(|| format!("run {k} done"));
                outcome
            })
            .collect::<Vec<Outcome>>()
    };
    let outcomes = match opts.jobs {
        None => work(),
        Some(j) => rayon::ThreadPoolBuilder::new()
            .num_threads(j)
            .build()
            .map_err(|e| input_error(anyhow::anyhow!("--jobs {j}: {e}")))?
            .install(work),
    };
    progress.finish();

    let text = sweep_csv(&axes, &points, &outcomes, &dirs);
    std::fs::write(&table, text)
        .map_err(|e| input_error(anyhow::anyhow!("cannot write {}: {e}", table.display())))?;
    let mut stopped = 0;
    for (k, (p, o)) in points.iter().zip(&outcomes).enumerate() {
        match o {
            Ok(s) => {
                let status = status(s);
                if status != "ok" {
                    stopped += 1;
                }
                say!(
                    "run {k:>3} {:<40} {status:<11} {:>7} steps {:>9.0} steps/s  max pen {:.3e} m  final KE {:.3e} J",
                    describe(&axes, p),
                    s.steps,
                    s.steps_per_second,
                    s.max_penetration,
                    s.final_kinetic_energy
                );
            }
            Err(e) => {
                stopped += 1;
                say!("run {k:>3} {:<40} no files: {e}", describe(&axes, p));
            }
        }
    }
    say!("wrote {} and {}/runs/", table.display(), out_dir.display());
    if interrupt.load(Ordering::SeqCst) {
        return Err(Failure {
            code: 130,
            error: anyhow::anyhow!("interrupted; sweep.csv says which runs finished"),
        });
    }
    if stopped > 0 {
        return Err(Failure {
            code: 1,
            error: anyhow::anyhow!(
                "{stopped} of {n} runs stopped early (sweep.csv: status, error; each run's summary.json)"
            ),
        });
    }
    Ok(())
}

/// "name=value name=value" of one run.
fn describe(axes: &[Axis], point: &[usize]) -> String {
    axes.iter()
        .zip(point)
        .map(|(a, &k)| format!("{}={}", a.name(), a.values()[k]))
        .collect::<Vec<_>>()
        .join(" ")
}

fn status(s: &RunSummary) -> &'static str {
    if s.interrupted {
        "interrupted"
    } else if s.error.is_some() {
        "stopped"
    } else {
        "ok"
    }
}

/// The columns of sweep.csv after the run index and the swept settings.
pub const SWEEP_COLUMNS: &str = "status,steps,simulated_time,wall_time,steps_per_second,max_penetration,mean_penetration,final_kinetic_energy,solver_failures,max_solver_residual,warnings,out_dir,error";

/// sweep.csv: a header `run,<axis names>,SWEEP_COLUMNS` and one row per run, in run order;
/// numbers in Rust's shortest round-trip form (bit-exact when read back).
pub fn sweep_csv(
    axes: &[Axis],
    points: &[Vec<usize>],
    outcomes: &[Outcome],
    dirs: &[PathBuf],
) -> String {
    let mut out = Vec::new();
    let names: Vec<String> = axes.iter().map(|a| csv_field(&a.name())).collect();
    let _ = writeln!(out, "run,{},{SWEEP_COLUMNS}", names.join(","));
    for (k, (p, o)) in points.iter().zip(outcomes).enumerate() {
        let values: Vec<String> = axes
            .iter()
            .zip(p)
            .map(|(a, &i)| csv_field(&a.values()[i]))
            .collect();
        let dir = csv_field(&dirs[k].display().to_string());
        let rest = match o {
            Ok(s) => format!(
                "{},{},{},{},{},{},{},{},{},{},{},{dir},{}",
                status(s),
                s.steps,
                num(s.simulated_time),
                num(s.wall_time),
                num(s.steps_per_second),
                num(s.max_penetration),
                num(s.mean_penetration),
                num(s.final_kinetic_energy),
                s.solver.failures,
                num(s.solver.max_residual),
                s.warnings().len(),
                csv_field(&s.error.as_ref().map(|e| e.to_string()).unwrap_or_default())
            ),
            Err(e) => format!("no files,,,,,,,,,,,{dir},{}", csv_field(e)),
        };
        let _ = writeln!(out, "{k},{},{rest}", values.join(","));
    }
    String::from_utf8(out).expect("utf-8")
}

/// `x` in Rust's shortest round-trip form, with an exponent when it is small or large.
fn num(x: f64) -> String {
    if x == 0.0 || (1e-4..1e15).contains(&x.abs()) {
        format!("{x}")
    } else {
        format!("{x:e}")
    }
}

/// A CSV field, quoted when it holds a comma, quote or line break.
fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_grid_is_the_cartesian_product_with_the_last_axis_fastest() {
        let axes = axes(Some("a,b"), Some("1e-3,2e-3,4e-3"), None, &[], &[]).unwrap();
        let g = grid(&axes);
        assert_eq!(g.len(), 6);
        assert_eq!(g[0], vec![0, 0]);
        assert_eq!(g[1], vec![0, 1]);
        assert_eq!(g[3], vec![1, 0]);
        assert_eq!(g[5], vec![1, 2]);
        assert_eq!(grid(&[]), vec![Vec::<usize>::new()]);
    }

    #[test]
    fn bad_axes_are_input_errors_naming_the_flag() {
        let msg = |r: Result<Vec<Axis>, Failure>| {
            let f = r.err().expect("an error");
            assert_eq!(f.code, 2);
            format!("{:#}", f.error)
        };
        assert!(msg(axes(None, Some("1e-3,"), None, &[], &[])).contains("--dt"));
        assert!(msg(axes(None, None, None, &["tolerance".into()], &[])).contains("NAME=V1,V2"));
        assert!(
            msg(axes(None, None, None, &[], &["material.x.color=1".into()]))
                .contains("unknown key")
        );
        let twice = ["kp=1,2".to_string(), "kp=3".to_string()];
        assert!(msg(axes(None, None, None, &twice, &[])).contains("swept twice"));
    }

    #[test]
    fn csv_fields_with_commas_or_quotes_are_quoted() {
        assert_eq!(csv_field("a,b"), "\"a,b\"");
        assert_eq!(csv_field("say \"x\""), "\"say \"\"x\"\"\"");
        assert_eq!(csv_field("plain"), "plain");
        for x in [0.0, 1.5, 9.814371537686384e-14, 3.2e20, -2.5e-7] {
            assert_eq!(num(x).parse::<f64>().unwrap().to_bits(), x.to_bits(), "{x}");
        }
        assert_eq!(num(9.814371537686384e-14), "9.814371537686384e-14");
    }
}
