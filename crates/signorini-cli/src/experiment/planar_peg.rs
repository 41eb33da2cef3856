//! The PEG paper's 2D experiments (Williams, Lu & Trinkle 2016, §6.1): the box of polygons
//! (figs 21–22) and the triangle drop, under planar `peg` and the standard model
//! (`stewart-trinkle`), both with the paper's ψ/h (`docs/experiments.md`).
use super::Context;
use crate::plot::{Axes, Mark, Series};
use crate::Failure;
use rayon::prelude::*;
use signorini::experiments::planar_peg::{box_of_polygons, triangle_drop, BoxRun};

const MODELS: [&str; 2] = ["peg", "stewart-trinkle"];

/// Overlap areas below this (m²) are drawn at it on the log axis (PEG's is often exactly 0).
const AREA_FLOOR: f64 = 1e-16;

fn field(text: &str) -> String {
    text.replace([',', '\n', '\r'], ";")
}

fn mean(v: &[f64]) -> f64 {
    if v.is_empty() {
        0.0
    } else {
        v.iter().sum::<f64>() / v.len() as f64
    }
}

/// Median of `v` (sorted copy), 0 for none.
fn median(v: &[f64]) -> f64 {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    match s.len() {
        0 => 0.0,
        n if n % 2 == 1 => s[n / 2],
        n => 0.5 * (s[n / 2 - 1] + s[n / 2]),
    }
}

pub(super) fn box_of_polygons_experiment(cx: &mut Context) -> Result<(), Failure> {
    let (seeds, steps, duration): (Vec<u64>, Vec<f64>, f64) = if cx.quick {
        (vec![1, 2], vec![0.005, 0.016], 2.0)
    } else {
        ((1..=10).collect(), vec![0.001, 0.005, 0.010, 0.016], 5.0)
    };
    let mut jobs = Vec::new();
    for m in MODELS {
        for &h in &steps {
            for &s in &seeds {
                jobs.push((m, h, s));
            }
        }
    }
    cx.start(jobs.len());
    let bar = cx.bar.clone();
    let runs: Vec<BoxRun> = jobs
        .par_iter()
        .map(|&(m, h, s)| {
            let r = box_of_polygons(m, s, h, duration);
            if let Some(b) = &bar {
                b.inc(|| format!("last: {m} h = {h} s seed {s}"));
            }
            r
        })
        .collect();
    cx.finish();
    say!(
        "box of polygons (Williams, Lu & Trinkle 2016 §6.1, figs 21-22): hulls of 10 points at scale 0.25 m released every 0.25 s, {duration} s, frictionless, seeds {seeds:?}{}",
        if cx.quick { " (--quick)" } else { "" }
    );
    say!("overlap = total area of overlap after each step (m²): mean over each run's steps, then median and mean over seeds; traps = fraction of PEG steps where a multi-member constraint's primary ended behind its line while another member held (a standard-model trap avoided); multi = fraction of steps with an I- or X-constraint; gain = largest kinetic + gravitational energy gained by one step (J); us/step = wall time per step, all runs (runs share the cores)");
    say!(
        "{:<16} {:>7} {:>9} {:>12} {:>12} {:>12} {:>8} {:>8} {:>10} {:>9}",
        "model",
        "h (s)",
        "completed",
        "median",
        "mean",
        "max",
        "traps",
        "multi",
        "gain (J)",
        "us/step"
    );
    let mut summary_rows = Vec::new();
    let mut series = Vec::new();
    for m in MODELS {
        let mut points = Vec::new();
        for &h in &steps {
            let rs: Vec<&BoxRun> = runs.iter().filter(|r| r.model == m && r.h == h).collect();
            let means: Vec<f64> = rs.iter().map(|r| r.mean_overlap()).collect();
            let max = rs.iter().map(|r| r.max_overlap()).fold(0.0, f64::max);
            let done = rs.iter().filter(|r| r.failure.is_none()).count();
            let traps = mean(
                &rs.iter()
                    .map(|r| r.trap_step_fraction())
                    .collect::<Vec<_>>(),
            );
            let multi = mean(
                &rs.iter()
                    .map(|r| r.multi_step_fraction())
                    .collect::<Vec<_>>(),
            );
            let gain = rs
                .iter()
                .map(|r| r.max_energy_gain())
                .fold(f64::NEG_INFINITY, f64::max);
            let seconds = rs.iter().map(|r| r.step_seconds).sum::<f64>()
                / rs.iter().map(|r| r.steps).sum::<u64>().max(1) as f64;
            say!(
                "{:<16} {:>7} {:>9} {:>12.3e} {:>12.3e} {:>12.3e} {:>8.3} {:>8.3} {:>10.2e} {:>9.1}",
                m,
                h,
                format!("{done}/{}", rs.len()),
                median(&means),
                mean(&means),
                max,
                traps,
                multi,
                gain,
                seconds * 1e6
            );
            summary_rows.push(format!(
                "{m},{h},{},{done},{},{},{},{traps},{multi},{gain},{seconds}",
                rs.len(),
                median(&means),
                mean(&means),
                max
            ));
            points.push((h, median(&means).max(AREA_FLOOR)));
        }
        series.push(Series {
            label: format!("{m}: median over seeds of the mean overlap area"),
            points,
        });
    }
    for r in runs.iter().filter(|r| r.failure.is_some()) {
        say!(
            "run stopped: {} at h = {} s, seed {}, after {} of {} steps: {}",
            r.model,
            r.h,
            r.seed,
            r.steps,
            r.planned,
            r.failure.as_deref().unwrap_or_default()
        );
    }
    let rows: Vec<String> = runs
        .iter()
        .map(|r| {
            format!(
                "{},{},{},{},{},{},{},{},{},{},{},{}",
                r.model,
                r.h,
                r.seed,
                r.steps,
                r.planned,
                field(r.failure.as_deref().unwrap_or_default()),
                r.mean_overlap(),
                r.max_overlap(),
                r.trap_step_fraction(),
                r.multi_step_fraction(),
                r.max_energy_gain(),
                r.seconds_per_step()
            )
        })
        .collect();
    cx.csv(
        "box_of_polygons.csv",
        "model,time_step,seed,steps,planned,error,mean_overlap,max_overlap,trap_step_fraction,multi_step_fraction,max_energy_gain,seconds_per_step",
        &rows,
    )?;
    cx.csv(
        "box_of_polygons_summary.csv",
        "model,time_step,runs,completed,median_mean_overlap,mean_mean_overlap,max_overlap,trap_step_fraction,multi_step_fraction,max_energy_gain,seconds_per_step",
        &summary_rows,
    )?;
    cx.plot(
        "box_of_polygons.png",
        &Axes {
            title:
                "Box of polygons: overlap area vs time step (PEG paper fig. 21); 0 drawn at 1e-16",
            x_label: "time step h (s)",
            y_label: "overlap area (m²)",
            log_x: false,
            log_y: true,
        },
        &series.iter().map(|s| (s, Mark::Points)).collect::<Vec<_>>(),
    );
    // Fig. 22: contacts and traps per step of one PEG run (the first seed at the second step).
    if let Some(r) = runs
        .iter()
        .find(|r| r.model == "peg" && r.h == steps[steps.len().min(2) - 1] && r.seed == seeds[0])
    {
        let t = |i: usize| (i + 1) as f64 * r.h;
        let contacts = Series {
            label: "narrow-phase contacts".into(),
            points: r
                .contacts
                .iter()
                .enumerate()
                .map(|(i, c)| (t(i), *c as f64))
                .collect(),
        };
        let multi = Series {
            label: "I- and X-constraints (PEG needed)".into(),
            points: r
                .multi
                .iter()
                .enumerate()
                .map(|(i, c)| (t(i), *c as f64))
                .collect(),
        };
        let traps = Series {
            label: "standard-model traps avoided".into(),
            points: r
                .traps
                .iter()
                .enumerate()
                .map(|(i, c)| (t(i), *c as f64))
                .collect(),
        };
        let title = format!(
            "Box of polygons, PEG, h = {} s, seed {}: per step (fig. 22)",
            r.h, r.seed
        );
        cx.plot(
            "box_of_polygons_traps.png",
            &Axes {
                title: &title,
                x_label: "time (s)",
                y_label: "count",
                log_x: false,
                log_y: false,
            },
            &[
                (&contacts, Mark::Line),
                (&multi, Mark::Line),
                (&traps, Mark::Line),
            ],
        );
    }
    Ok(())
}

pub(super) fn triangle_drop_experiment(cx: &mut Context) -> Result<(), Failure> {
    // Steps that divide 1.5 s, so every run ends at the reference's time (1.5/h steps; a step
    // that does not divide it ends up to h early, a 15 m/s body's error of up to 0.2 m).
    let steps: Vec<f64> = if cx.quick {
        vec![0.001, 0.015]
    } else {
        vec![
            0.001, 0.002, 0.003, 0.004, 0.005, 0.006, 0.010, 0.012, 0.015,
        ]
    };
    say!("triangle drop (PEG paper §6.1; the authors' tri_drop.m): final position at t = 1.5 s against the run at h = 1e-4 s, frictionless");
    say!(
        "{:<16} {:>7} {:>12} {:>12} {:>12} {:>12} {:>12}",
        "model",
        "h (s)",
        "x (m)",
        "y (m)",
        "theta (rad)",
        "|error| (m)",
        "max overlap"
    );
    let mut rows = Vec::new();
    let mut series = Vec::new();
    for m in MODELS {
        let reference = match triangle_drop(m, 1e-4) {
            Ok((end, _)) => end,
            Err(e) => {
                say!("{m}: reference run stopped: {e}");
                continue;
            }
        };
        say!(
            "{:<16} {:>7} {:>12.6} {:>12.6} {:>12.6} {:>12} {:>12}",
            m,
            1e-4,
            reference[0],
            reference[1],
            reference[2],
            "reference",
            ""
        );
        let mut points = Vec::new();
        for &h in &steps {
            match triangle_drop(m, h) {
                Ok((end, overlap)) => {
                    let err =
                        ((end[0] - reference[0]).powi(2) + (end[1] - reference[1]).powi(2)).sqrt();
                    say!(
                        "{:<16} {:>7} {:>12.6} {:>12.6} {:>12.6} {:>12.3e} {:>12.3e}",
                        m,
                        h,
                        end[0],
                        end[1],
                        end[2],
                        err,
                        overlap
                    );
                    rows.push(format!(
                        "{m},{h},{},{},{},{err},{overlap},",
                        end[0], end[1], end[2]
                    ));
                    points.push((h, err.max(AREA_FLOOR)));
                }
                Err(e) => {
                    say!("{m} at h = {h}: stopped: {e}");
                    rows.push(format!("{m},{h},,,,,,{}", field(&e)));
                }
            }
        }
        series.push(Series {
            label: format!("{m}: |final position − reference|"),
            points,
        });
    }
    cx.csv(
        "triangle_drop.csv",
        "model,time_step,x,y,theta,position_error,max_overlap,error",
        &rows,
    )?;
    cx.plot(
        "triangle_drop.png",
        &Axes {
            title: "Triangle drop: self-convergence of the final position (reference h = 1e-4 s)",
            x_label: "time step h (s)",
            y_label: "position error (m)",
            log_x: true,
            log_y: true,
        },
        &series.iter().map(|s| (s, Mark::Points)).collect::<Vec<_>>(),
    );
    Ok(())
}
