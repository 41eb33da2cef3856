//! The PEG experiment (Williams, Lu & Trinkle 2016, §6.2, figs 23–24): the box of polyhedra
//! under PEG and the standard model over seeds and step sizes (`docs/experiments.md`).
use super::Context;
use crate::plot::{Axes, Band};
use crate::{input_error, Failure};
use anyhow::anyhow;
use rayon::prelude::*;
use signorini::experiments::peg::{self, Run, Summary, Sweep, PEG, STANDARD};

/// Overlap volumes below this (m³, a cube of 10 µm side) are drawn at it on the log axis: PEG's
/// overlap is often exactly 0. The plot's title says so.
const OVERLAP_FLOOR: f64 = 1e-15;

/// An error message as one CSV field (our files never quote).
fn field(text: &str) -> String {
    text.replace([',', '\n', '\r'], ";")
}

pub(super) fn pour_3d(cx: &mut Context) -> Result<(), Failure> {
    let scene = cx.scene("pour_3d.toml", &[Some(PEG), Some(STANDARD)], &[])?;
    let sweep = if cx.quick {
        Sweep::quick()
    } else {
        Sweep::full()
    };
    let scene = sweep
        .apply(&scene)
        .map_err(|e| input_error(anyhow!("{}: {e}", scene.desc.file)))?;
    let jobs = sweep.jobs();
    cx.start(jobs.len());
    let bar = cx.bar.clone();
    // Each run is single-threaded and deterministic; rayon only spreads the runs over the cores.
    let results: Vec<Result<Run, String>> = jobs
        .par_iter()
        .map(|j| {
            let r = peg::run(&scene, &j.model, j.seed, j.time_step)
                .map_err(|e| format!("{} at h = {} s, seed {}: {e}", j.model, j.time_step, j.seed));
            if let Some(b) = &bar {
                let what = format!("{} h = {} s seed {}", j.model, j.time_step, j.seed);
                if let Some(b) = b.bar() {
                    b.set_message(what.clone());
                }
                b.inc(|| format!("last: {what}"));
            }
            r
        })
        .collect();
    cx.finish();
    let mut runs = results
        .into_iter()
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| Failure {
            code: 1,
            error: anyhow!(e),
        })?;
    peg::sort_runs(&mut runs);
    let summaries = peg::summarize(&runs);
    let floors = peg::floors(&summaries);

    // Table.
    let spawned: u32 = scene.desc.spawns.iter().map(|s| s.count).sum();
    say!(
        "box of polyhedra (Williams, Lu & Trinkle 2016 §6.2, fig. 24): {spawned} bodies released every {} s, {} s simulated, seeds {:?}{}:",
        scene.desc.spawns.first().map_or(0.0, |s| s.release_interval),
        scene.model.settings.duration,
        sweep.seeds,
        if cx.quick { " (--quick)" } else { "" }
    );
    say!("overlap = total overlap volume of all pairs after a step; Q1/median/Q3 over seeds of each run's mean over steps (m³)");
    say!(
        "{:<16} {:>7} {:>9} {:>11} {:>11} {:>11} {:>11} {:>11} {:>8} {:>7} {:>11} {:>11} {:>8}",
        "model",
        "h (s)",
        "completed",
        "Q1",
        "median",
        "Q3",
        "mean",
        "max",
        "failures",
        "traps",
        "s/step",
        "max dE (J)",
        "max rows"
    );
    for s in &summaries {
        let (q1, med, q3) = s.overlap_quartiles;
        say!(
            "{:<16} {:>7} {:>9} {:>11.3e} {:>11.3e} {:>11.3e} {:>11.3e} {:>11.3e} {:>8} {:>7} {:>11.3e} {:>11.3e} {:>8}",
            s.model,
            s.time_step,
            format!("{}/{}", s.completed, s.runs),
            q1,
            med,
            q3,
            s.mean_overlap,
            s.max_overlap,
            s.solver_failures,
            s.trap_steps,
            s.seconds_per_step,
            s.max_energy_gain,
            s.max_rows
        );
    }
    for r in runs.iter().filter(|r| r.error.is_some()) {
        say!(
            "run stopped: {} at h = {} s, seed {}, after {} of {} steps: {}",
            r.model,
            r.time_step,
            r.seed,
            r.steps,
            r.planned,
            r.error.as_deref().unwrap_or_default()
        );
    }
    let verdict = |met: bool| if met { "met" } else { "MISSED" };
    say!(
        "floors (issue 4): standard/PEG mean overlap >= {}, PEG/standard s per step <= {}, PEG solver failures = 0",
        peg::OVERLAP_RATIO_FLOOR,
        peg::TIME_RATIO_CEILING
    );
    say!(
        "{:>7} {:>22} {:>22} {:>16} {:>12}",
        "h (s)",
        "overlap std/PEG",
        "time PEG/std",
        "PEG failures",
        "PEG stopped"
    );
    for f in &floors {
        say!(
            "{:>7} {:>22} {:>22} {:>16} {:>12}",
            f.time_step,
            format!("{:.3e} {}", f.overlap_ratio, verdict(f.overlap_met())),
            format!("{:.3} {}", f.time_ratio, verdict(f.time_met())),
            format!("{} {}", f.peg_solver_failures, verdict(f.failures_met())),
            f.peg_errors
        );
    }
    let all_met = !floors.is_empty()
        && floors
            .iter()
            .all(|f| f.overlap_met() && f.time_met() && f.failures_met());
    say!(
        "floors: {}",
        if all_met {
            "all met"
        } else {
            "not all met (see MISSED)"
        }
    );

    // Files.
    let rows: Vec<String> = runs
        .iter()
        .map(|r| {
            format!(
                "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
                r.model,
                r.time_step,
                r.seed,
                r.steps,
                r.planned,
                r.completed(),
                field(r.error.as_deref().unwrap_or_default()),
                r.mean_overlap(),
                r.max_overlap(),
                r.median_overlap(),
                r.solver_failures,
                r.trap_steps,
                r.seconds_per_step(),
                r.max_energy_gain(),
                r.max_rows
            )
        })
        .collect();
    cx.csv(
        "pour_3d.csv",
        "model,time_step,seed,steps,planned,completed,error,mean_overlap,max_overlap,median_overlap,solver_failures,trap_steps,seconds_per_step,max_energy_gain,max_rows",
        &rows,
    )?;
    let rows: Vec<String> = summaries.iter().map(summary_row).collect();
    cx.csv(
        "pour_3d_summary.csv",
        "model,time_step,runs,completed,errors,seed_mean_overlap_q1,seed_mean_overlap_median,seed_mean_overlap_q3,mean_overlap,max_overlap,solver_failures,trap_steps,seconds_per_step,max_energy_gain,max_rows",
        &rows,
    )?;
    let bands: Vec<Band> = sweep
        .models
        .iter()
        .map(|m| Band {
            label: format!("{m}: median, band Q1–Q3 over seeds"),
            points: summaries
                .iter()
                .filter(|s| &s.model == m)
                .map(|s| {
                    let (q1, med, q3) = s.overlap_quartiles;
                    let clamp = |v: f64| v.max(OVERLAP_FLOOR);
                    (s.time_step, clamp(q1), clamp(med), clamp(q3))
                })
                .collect(),
        })
        .collect();
    let title = format!(
        "box of polyhedra: mean overlap per run (values < {OVERLAP_FLOOR:e} m³ drawn at it; cf. fig. 24)"
    );
    cx.band_plot(
        "pour_3d.png",
        &Axes {
            title: &title,
            x_label: "time step h (s)",
            y_label: "overlap volume (m³)",
            log_x: true,
            log_y: true,
        },
        &bands,
    );
    Ok(())
}

fn summary_row(s: &Summary) -> String {
    let (q1, med, q3) = s.overlap_quartiles;
    format!(
        "{},{},{},{},{},{q1},{med},{q3},{},{},{},{},{},{},{}",
        s.model,
        s.time_step,
        s.runs,
        s.completed,
        s.errors,
        s.mean_overlap,
        s.max_overlap,
        s.solver_failures,
        s.trap_steps,
        s.seconds_per_step,
        s.max_energy_gain,
        s.max_rows
    )
}
