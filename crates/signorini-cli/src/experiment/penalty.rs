//! The penalty experiments (Drumwright 2008; Deguet, Joukhadar & Laugier 1998): the block
//! penetrating a plane, the perturbed block, the Hunt–Crossley bounce (`docs/experiments.md`,
//! `docs/penalty.md`).
use super::{lines, Context};
use crate::plot::{Axes, Mark, Series};
use crate::Failure;
use signorini::experiments::complementarity as comp;
use signorini::experiments::penalty::{self as pen, BounceRun, ModelRun};
use signorini::scene::Scene;

/// Kinetic energies below this (J) are drawn at it on log axes: a block held still by a
/// complementarity model has zero kinetic energy up to round-off.
const ENERGY_FLOOR: f64 = 1e-15;

/// The integrator a run uses: velocity-level models integrate by semi-implicit Euler whatever the
/// scene says.
fn integrator(scene: &Scene, model: &str) -> String {
    match scene.contact_model(Some(model)) {
        Ok((m, _)) if m.velocity_level() => "semi-implicit-euler".to_string(),
        _ => scene.model.settings.integrator.name().to_string(),
    }
}

/// Check that every run's model builds with the scene and its parameters (bad input otherwise).
fn check_runs(scene: &Scene, runs: &[ModelRun]) -> Result<(), Failure> {
    for r in runs {
        r.apply(scene)
            .contact_model(Some(r.model))
            .map_err(crate::input_error)?;
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// block-penetrating-plane
// ---------------------------------------------------------------------------------------------

pub(super) fn block_penetrating_plane(cx: &mut Context) -> Result<(), Failure> {
    let mut scene = cx.scene("block_penetrating_plane.toml", &[None], &["cube"])?;
    if cx.quick {
        scene.model.settings.duration = 1.0;
    }
    check_runs(&scene, &pen::BLOCK_RUNS)?;
    cx.start(pen::BLOCK_RUNS.len());
    let mut results = Vec::new();
    for run in &pen::BLOCK_RUNS {
        let what = format!("block penetrating a plane, {}", run.label);
        results.push(cx.run(&what, || pen::energy_and_penetration(&scene, run))?);
    }
    cx.finish();

    let s = &scene.model.settings;
    say!(
        "tilted 1 m cube starting with a corner in the ground, {} steps of {} s, {}:",
        results[0].len() - 1,
        s.time_step,
        s.integrator.name()
    );
    say!(
        "{:<16} {:<34} {:>14} {:>14} {:>14} {:>14}",
        "model",
        "gains",
        "mean pen. (m)",
        "final pen. (m)",
        "KE mid (J)",
        "final KE (J)"
    );
    let gains = |r: &ModelRun| {
        r.params
            .iter()
            .map(|(n, v)| format!("{n} = {v}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut rows = Vec::new();
    for (run, series) in pen::BLOCK_RUNS.iter().zip(&results) {
        let after = &series[1..];
        let mean = after.iter().map(|r| r.2).sum::<f64>() / after.len().max(1) as f64;
        let last = series[series.len() - 1];
        say!(
            "{:<16} {:<34} {:>14.3e} {:>14.3e} {:>14.3e} {:>14.3e}",
            run.label,
            gains(run),
            mean,
            last.2,
            series[series.len() / 2].1,
            last.1
        );
        for &(k, ke, p) in series {
            rows.push(format!("{},{k},{ke},{p}", run.label));
        }
    }
    cx.csv(
        "block_penetrating_plane.csv",
        "model,step,kinetic_energy,penetration",
        &rows,
    )?;
    let series_of = |pick: fn(&(u64, f64, f64)) -> f64| -> Vec<Series> {
        pen::BLOCK_RUNS
            .iter()
            .zip(&results)
            .map(|(run, s)| Series {
                label: format!("{} ({})", run.label, gains(run)),
                points: s.iter().map(|r| (r.0 as f64, pick(r))).collect(),
            })
            .collect()
    };
    cx.plot(
        "block_penetrating_plane_energy.png",
        &Axes {
            title: "block penetrating a plane: kinetic energy (cf. Drumwright 2008 fig. 8)",
            x_label: "step",
            y_label: "kinetic energy (J)",
            log_x: false,
            log_y: true,
        },
        &lines(&series_of(|r| r.1.max(ENERGY_FLOOR))),
    );
    cx.plot(
        "block_penetrating_plane_penetration.png",
        &Axes {
            title: "block penetrating a plane: largest penetration (cf. Drumwright 2008 fig. 9)",
            x_label: "step",
            y_label: "penetration (m)",
            log_x: false,
            log_y: false,
        },
        &lines(&series_of(|r| r.2)),
    );
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// perturbed-block
// ---------------------------------------------------------------------------------------------

pub(super) fn perturbed_block(cx: &mut Context) -> Result<(), Failure> {
    let scene = cx.scene("resting_block_perturbed.toml", &[None], &["cube"])?;
    let runs = &pen::PERTURBED_RUNS;
    check_runs(&scene, runs)?;
    cx.start(runs.len());
    let mut results = Vec::new();
    for run in runs {
        let what = format!("perturbed block, {}", run.label);
        let scene = run.apply(&scene);
        results.push(cx.run(&what, || comp::perturbed_block(&scene, Some(run.model)))?);
    }
    cx.finish();

    say!(
        "resting block pushed by {} pulses, {} s at h = {} s:",
        scene.model.forces.len(),
        scene.model.settings.duration,
        scene.model.settings.time_step
    );
    say!(
        "{:<20} {:<36} {:<20} {:>14} {:>14}",
        "model",
        "gains",
        "integrator",
        "mean pen. (m)",
        "max pen. (m)"
    );
    for (run, r) in runs.iter().zip(&results) {
        let gains = run
            .params
            .iter()
            .map(|(n, v)| format!("{n} = {v}"))
            .collect::<Vec<_>>()
            .join(", ");
        say!(
            "{:<20} {:<36} {:<20} {:>14.3e} {:>14.3e}",
            run.label,
            gains,
            integrator(&scene, run.model),
            r.mean_penetration,
            r.max_penetration
        );
    }
    say!("kinetic energy (J) at the end of each force-free interval (the step before the next pulse):");
    let mut head = format!("{:<14}", "interval (s)");
    for run in runs {
        head += &format!(" {:>20}", run.label);
    }
    say!("{head}");
    for (i, &(start, end, _, _)) in results[0].force_free.iter().enumerate() {
        let mut line = format!("{:<14}", format!("{start:.2}–{end:.2}"));
        for r in &results {
            line += &format!(" {:>20.3e}", r.force_free.get(i).map_or(f64::NAN, |f| f.2));
        }
        say!("{line}");
    }

    let mut rows = Vec::new();
    for (run, r) in runs.iter().zip(&results) {
        for (k, (t, ke, pen)) in r.series.iter().enumerate() {
            rows.push(format!("{},{k},{t},{ke},{pen}", run.label));
        }
    }
    cx.csv(
        "perturbed_block.csv",
        "model,step,time,kinetic_energy,penetration",
        &rows,
    )?;

    let series_of = |pick: fn(&(f64, f64, f64)) -> f64| -> Vec<Series> {
        runs.iter()
            .zip(&results)
            .map(|(run, r)| Series {
                label: format!("{} ({})", run.label, integrator(&scene, run.model)),
                points: r
                    .series
                    .iter()
                    .enumerate()
                    .map(|(k, s)| (k as f64, pick(s)))
                    .collect(),
            })
            .collect()
    };
    cx.plot(
        "perturbed_block_energy.png",
        &Axes {
            title: &format!(
                "perturbed block: kinetic energy (values below {ENERGY_FLOOR:e} J drawn at {ENERGY_FLOOR:e} J)"
            ),
            x_label: "step",
            y_label: "kinetic energy (J)",
            log_x: false,
            log_y: true,
        },
        &lines(&series_of(|s| s.1.max(ENERGY_FLOOR))),
    );
    cx.plot(
        "perturbed_block_penetration.png",
        &Axes {
            title: "perturbed block: largest penetration",
            x_label: "step",
            y_label: "max penetration (m)",
            log_x: false,
            log_y: false,
        },
        &lines(&series_of(|s| s.2)),
    );
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// bounce
// ---------------------------------------------------------------------------------------------

const RESTITUTIONS: [f64; 3] = [0.3, 0.6, 0.9];
const DAMPING_LAWS: [&str; 2] = ["exact", "hunt-crossley"];
/// Impacts slower than this (m/s) are not reported (the ball comes to rest through ever smaller
/// bounces).
const MIN_IMPACT_SPEED: f64 = 0.2;
const BALL_RADIUS: f64 = 0.1;

pub(super) fn bounce(cx: &mut Context) -> Result<(), Failure> {
    let mut scene = cx.scene("bounce.toml", &[None], &["ball", "ground"])?;
    if cx.quick {
        scene.model.settings.duration = 1.0;
    }
    cx.start(RESTITUTIONS.len() * DAMPING_LAWS.len());
    let mut runs: Vec<BounceRun> = Vec::new();
    for law in DAMPING_LAWS {
        for e in RESTITUTIONS {
            let what = format!("bounce, e = {e}, damping {law}");
            runs.push(cx.run(&what, || {
                pen::bounce(&scene, BALL_RADIUS, e, law, MIN_IMPACT_SPEED)
            })?);
        }
    }
    cx.finish();

    say!(
        "ball (r = {BALL_RADIUS} m) dropped 1 m on the ground, hunt-crossley, RK4 with adaptive steps; measured restitution v_out / v_in per impact:"
    );
    say!(
        "{:<14} {:>5}  {:>7}  {:>10}  {:>10}  {:>10}  {:>10}",
        "damping",
        "e",
        "impact",
        "v_in m/s",
        "v_out m/s",
        "measured",
        "rel. err"
    );
    let mut rows = Vec::new();
    for r in &runs {
        for (k, i) in r.impacts.iter().enumerate() {
            let m = i.restitution();
            say!(
                "{:<14} {:>5}  {:>7}  {:>10.4}  {:>10.4}  {:>10.5}  {:>10.2e}",
                r.damping,
                r.restitution,
                k + 1,
                i.speed_in,
                i.speed_out,
                m,
                (m - r.restitution) / r.restitution
            );
            rows.push(format!(
                "{},{},{},{},{},{},{},{}",
                r.damping,
                r.restitution,
                k + 1,
                i.speed_in,
                i.speed_out,
                m,
                r.max_penetration,
                r.steps
            ));
        }
    }
    cx.csv(
        "bounce.csv",
        "damping,restitution,impact,speed_in,speed_out,measured_restitution,max_penetration,steps",
        &rows,
    )?;

    let heights: Vec<Series> = runs
        .iter()
        .filter(|r| r.damping == "exact")
        .map(|r| Series {
            label: format!("e = {}", r.restitution),
            points: r.trace.clone(),
        })
        .collect();
    cx.plot(
        "bounce_height.png",
        &Axes {
            title: "Hunt–Crossley bounce (damping from e, exact law): height of the ball's lowest point",
            x_label: "time (s)",
            y_label: "height (m)",
            log_x: false,
            log_y: false,
        },
        &lines(&heights),
    );
    let mut series = Vec::new();
    for r in &runs {
        series.push(Series {
            label: format!("{}, e = {}", r.damping, r.restitution),
            points: r
                .impacts
                .iter()
                .enumerate()
                .map(|(k, i)| ((k + 1) as f64, i.restitution()))
                .collect(),
        });
    }
    let most = runs
        .iter()
        .map(|r| r.impacts.len())
        .max()
        .unwrap_or(1)
        .max(2) as f64;
    let targets: Vec<Series> = RESTITUTIONS
        .iter()
        .map(|&e| Series {
            label: format!("target {e}"),
            points: vec![(1.0, e), (most, e)],
        })
        .collect();
    let mut drawn: Vec<(&Series, Mark)> = targets.iter().map(|s| (s, Mark::Line)).collect();
    drawn.extend(series.iter().map(|s| (s, Mark::Points)));
    cx.plot(
        "bounce_restitution.png",
        &Axes {
            title: "measured restitution per impact: exact damping law vs Deguet eq. 5",
            x_label: "impact",
            y_label: "v_out / v_in",
            log_x: false,
            log_y: false,
        },
        &drawn,
    );
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// pile
// ---------------------------------------------------------------------------------------------

pub(super) fn pile(cx: &mut Context) -> Result<(), Failure> {
    let mut scene = cx.scene("pile_multipoint.toml", &[None], &[])?;
    if cx.quick {
        scene.model.settings.duration = 1.5;
    }
    cx.start(1);
    let r = cx.run("pile", || pen::pile(&scene))?;
    cx.finish();

    let s = &scene.model.settings;
    let steps = r.series.len() - 1;
    let peak = r.series.iter().map(|x| x.1).fold(0.0, f64::max);
    let last = r.series[steps];
    say!(
        "pile of {} bodies ({}), {} s, {} with {}:",
        r.bodies,
        scene.desc.contact.model,
        s.duration,
        s.integrator.name(),
        if s.adaptive.is_some() {
            "energy-adaptive steps"
        } else {
            "fixed steps"
        }
    );
    say!(
        "  steps {steps}; kinetic energy: peak {peak:.3e} J, final {:.3e} J; largest penetration {:.3e} m",
        last.1,
        r.series.iter().map(|x| x.2).fold(0.0, f64::max)
    );
    say!(
        "  fastest body at the end: {} at {:.3e} m/s (rest: below {} m/s); bodies pushed through the floor: {}",
        r.fastest,
        r.largest_speed,
        pen::REST_SPEED,
        r.fell_through
    );
    say!("  comes to rest: {}", if r.at_rest { "yes" } else { "no" });
    for (name, kind, speed) in &r.moving {
        say!("    still moving: {name} ({kind}) at {speed:.3e} m/s");
    }
    let rows: Vec<String> = r
        .series
        .iter()
        .map(|(t, ke, p, h)| format!("{t},{ke},{p},{h}"))
        .collect();
    cx.csv(
        "pile.csv",
        "time,kinetic_energy,max_penetration,time_step",
        &rows,
    )?;
    let energy = Series {
        label: format!("kinetic energy ({} bodies)", r.bodies),
        points: r
            .series
            .iter()
            .map(|x| (x.0, x.1.max(ENERGY_FLOOR)))
            .collect(),
    };
    cx.plot(
        "pile_energy.png",
        &Axes {
            title: "pile under the multi-point penalty method: kinetic energy (cf. Drumwright 2008 fig. 13)",
            x_label: "time (s)",
            y_label: "kinetic energy (J)",
            log_x: false,
            log_y: true,
        },
        &[(&energy, Mark::Line)],
    );
    let pen_series = Series {
        label: "largest penetration".into(),
        points: r.series.iter().map(|x| (x.0, x.2)).collect(),
    };
    cx.plot(
        "pile_penetration.png",
        &Axes {
            title: "pile under the multi-point penalty method: largest penetration",
            x_label: "time (s)",
            y_label: "penetration (m)",
            log_x: false,
            log_y: false,
        },
        &[(&pen_series, Mark::Line)],
    );
    Ok(())
}
