//! `signorini run` and `signorini check` on a 2D scene (`[simulation] dimension = 2`,
//! docs/planar.md): the scene is loaded by `scene::load_planar`, stepped by
//! `planar::PlanarWorld` and written by `simulation::planar_run`. The command line's overrides
//! mean what they mean in 3D; `--integrator`, `--html` and `--impulses` are refused (2D runs integrate by
//! semi-implicit Euler and have no replay page yet).
use crate::{input_error, Failure, Overrides};
use signorini::planar::PlanarWorld;
use signorini::scene::{self, ParamDesc, PlanarScene};
use signorini::simulation::planar_run::{run_planar, warnings};
use signorini::simulation::run::RunConfig;
use std::path::{Path, PathBuf};

/// Is the scene at `path` a 2D scene? (Errors: unreadable, not TOML, a bad `dimension`.)
pub fn is_planar(path: &Path) -> Result<bool, Failure> {
    Ok(scene::dimension_of_file(path).map_err(input_error)? == 2)
}

/// Load the 2D scene and apply the overrides: the world, ready to step.
fn prepare(path: &Path, o: &Overrides) -> Result<(PlanarScene, PlanarWorld), Failure> {
    let mut sc = scene::load_planar(path).map_err(input_error)?;
    let positive = |name: &str, v: f64| {
        if v > 0.0 && v.is_finite() {
            Ok(v)
        } else {
            Err(input_error(anyhow::anyhow!(
                "--{name} must be a positive number of seconds, got {v}"
            )))
        }
    };
    let s = &mut sc.model.settings;
    if let Some(dt) = o.dt {
        s.time_step = positive("dt", dt)?;
    }
    if let Some(t) = o.duration {
        s.duration = positive("duration", t)?;
    }
    if o.dt.is_some() || o.duration.is_some() {
        if let Err((message, hint)) =
            signorini::pipeline::adaptive::check_step_plan(s.duration, s.time_step)
        {
            return Err(input_error(anyhow::anyhow!(
                "--dt/--duration: {message}\n  help: {hint}"
            )));
        }
    }
    sc.desc.settings = sc.model.settings.clone();
    if o.integrator.is_some() {
        return Err(input_error(anyhow::anyhow!(
            "--integrator: 2D scenes integrate by semi-implicit Euler (the only planar integrator so far); remove it"
        )));
    }
    for p in &o.params {
        let (name, value) = crate::parse_param(p)?;
        // A later value of a parameter wins (`resolve_params`), as in 3D.
        sc.desc.contact.params.push(ParamDesc {
            name: name.to_string(),
            value,
            line: 0,
            key: format!("--param {name}"),
        });
    }
    let (model, ignored) = sc.contact_model(o.model.as_deref()).map_err(input_error)?;
    if !ignored.is_empty() {
        eprintln!(
            "note: model `{}` does not use the scene's [contact] parameters {}; they are ignored",
            model.spec().name,
            ignored.join(", ")
        );
    }
    let world = PlanarWorld::new(sc.model.clone(), sc.initial.clone(), model);
    Ok((sc, world))
}

pub fn check(path: &Path) -> Result<(), Failure> {
    let (sc, w) = prepare(path, &Overrides::none())?;
    let m = &w.model;
    say!(
        "{}: ok — 2D, {} bodies ({} dynamic), model {}, {} steps of {} s (semi-implicit-euler)",
        sc.desc.file,
        m.bodies.len(),
        m.bodies.iter().filter(|b| !b.fixed).count(),
        w.contact_model.spec().name,
        w.planned_steps(),
        m.settings.time_step
    );
    Ok(())
}

pub fn run(
    path: &Path,
    o: &Overrides,
    out: Option<PathBuf>,
    (html, impulses): (bool, bool),
) -> Result<(), Failure> {
    if html {
        return Err(input_error(anyhow::anyhow!(
            "--html: 2D runs have no replay page yet; run without --html"
        )));
    }
    if impulses {
        return Err(input_error(anyhow::anyhow!(
            "--impulses: 2D runs do not record contact impulses yet; run without --impulses"
        )));
    }
    let (sc, mut world) = prepare(path, o)?;
    let out_dir = out.unwrap_or_else(|| {
        PathBuf::from("out").join(
            path.file_stem()
                .map(|s| s.to_os_string())
                .unwrap_or_else(|| "scene".into()),
        )
    });
    for stale in ["energy.png", "penetration.png", "replay.html"] {
        signorini::simulation::run::remove_stale(&out_dir.join(stale)).map_err(input_error)?;
    }
    let interrupt = crate::on_interrupt("an interrupted run will leave no summary");
    let cfg = RunConfig {
        trajectory_interval: sc.desc.trajectory_interval,
        out_dir: &out_dir,
        interrupt: Some(interrupt),
        contacts: None,
        impulses: false,
    };
    let summary = run_planar(&cfg, &sc, &mut world, &mut |_, _| {}).map_err(input_error)?;
    say!(
        "{}: 2D, {} steps, {:.3} s simulated in {:.3} s wall ({:.0} steps/s); max penetration {:.3e} m, mean {:.3e} m; final kinetic energy {:.3e} J",
        sc.desc.file,
        summary.steps,
        summary.simulated_time,
        summary.wall_time,
        summary.steps_per_second,
        summary.max_penetration,
        summary.mean_penetration,
        summary.final_kinetic_energy
    );
    for w in warnings(&summary) {
        eprintln!("warning: {w}");
    }
    let title = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    match crate::plot::plot_run(&out_dir, &title) {
        Ok(_) => say!(
            "wrote {}/{{trajectory.csv, metrics.csv, summary.json, energy.png, penetration.png}}",
            out_dir.display()
        ),
        Err(e) => {
            say!(
                "wrote {}/{{trajectory.csv, metrics.csv, summary.json}}",
                out_dir.display()
            );
            eprintln!("note: no plots: {e:#}");
        }
    }
    crate::run_outcome(
        summary
            .interrupted
            .then_some((summary.simulated_time, summary.steps)),
        summary.error,
        &out_dir,
    )
}
