//! Nguyen & Trinkle's non-penetration modelling error in 2D (RPI slides, 2008): a disk against
//! segments with ends under type 1, type 2, the exploratory solve alone and the group of
//! constraints (`signorini::experiments::planar_nguyen_trinkle`, `docs/experiments.md`).
use super::Context;
use crate::plot::{Axes, Mark, Series};
use crate::{input_error, Failure};
use anyhow::anyhow;
use rayon::prelude::*;
use signorini::experiments::planar_nguyen_trinkle::{
    gap_run, segment_end_run, GapRun, SegmentEndRun, Throw, ACTIVATIONS,
};
use signorini::scene::{load_planar, PlanarScene};

/// Errors and penetrations below this (m) are drawn at it on the log axes (exact answers are 0).
const FLOOR: f64 = 1e-12;

fn field(text: &str) -> String {
    text.replace([',', '\n', '\r'], ";")
}

fn planar_scene(cx: &Context, file: &str) -> Result<PlanarScene, Failure> {
    let path = cx.examples.join(file);
    if !path.is_file() {
        return Err(input_error(anyhow!(
            "scene {} not found: run from the repository root (which holds examples/) or pass --examples DIR",
            path.display()
        )));
    }
    load_planar(&path).map_err(input_error)
}

fn experiment_error(e: signorini::simulation::Error) -> Failure {
    input_error(anyhow!("{e}"))
}

pub(super) fn nguyen_trinkle_2d(cx: &mut Context) -> Result<(), Failure> {
    let segment = planar_scene(cx, "planar_nt_segment_end.toml")?;
    let gap = planar_scene(cx, "planar_nt_gap.toml")?;
    let (speeds, gap_speeds, steps): (Vec<f64>, Vec<f64>, Vec<f64>) = if cx.quick {
        (vec![2.0, 8.0], vec![2.0, 10.0], vec![0.005, 0.02])
    } else {
        (
            vec![1.0, 2.0, 4.0, 8.0],
            vec![1.0, 2.0, 5.0, 10.0],
            vec![0.001, 0.002, 0.005, 0.01, 0.02],
        )
    };
    // Check the scenes and arguments once (bad input is an error, not a failed run).
    segment_end_run(
        &segment,
        Throw::Landing,
        speeds[0],
        steps[0],
        ACTIVATIONS[0],
    )
    .map_err(experiment_error)?;
    gap_run(&gap, gap_speeds[0], steps[0], ACTIVATIONS[0]).map_err(experiment_error)?;
    let mut jobs = Vec::new();
    for a in ACTIVATIONS {
        for throw in [Throw::Landing, Throw::Miss] {
            for &u in &speeds {
                for &h in &steps {
                    jobs.push((a, Some(throw), u, h));
                }
            }
        }
        for &v in &gap_speeds {
            for &h in &steps {
                jobs.push((a, None, v, h));
            }
        }
    }
    cx.start(jobs.len());
    let bar = cx.bar.clone();
    type Outcome = Result<(Option<SegmentEndRun>, Option<GapRun>), signorini::simulation::Error>;
    let results: Vec<Outcome> = jobs
        .par_iter()
        .map(|&(a, throw, u, h)| {
            let r = match throw {
                Some(t) => segment_end_run(&segment, t, u, h, a).map(|r| (Some(r), None)),
                None => gap_run(&gap, u, h, a).map(|r| (None, Some(r))),
            };
            if let Some(b) = &bar {
                b.inc(|| format!("last: {a} u = {u} m/s h = {h} s"));
            }
            r
        })
        .collect();
    cx.finish();
    let (mut ends, mut gaps) = (Vec::new(), Vec::new());
    for r in results {
        let (end, in_gap) = r.map_err(experiment_error)?;
        ends.extend(end);
        gaps.extend(in_gap);
    }
    segment_end_report(cx, &ends)?;
    gap_report(cx, &gaps)?;
    plots(cx, &ends, &gaps);
    Ok(())
}

fn segment_end_report(cx: &mut Context, runs: &[SegmentEndRun]) -> Result<(), Failure> {
    say!(
        "segment end (Nguyen & Trinkle 2008, disk-line with a segment's end; examples/planar_nt_segment_end.toml): frictionless disk r = 0.1 m thrown at 45°, true path lands 5 cm past the table's end (landing) or passes 15 cm before it to the floor (miss); recovery = full{}",
        if cx.quick { " (--quick)" } else { "" }
    );
    say!("pen = largest penetration (m); error = |final centre − true final centre| (m); |dvx| = horizontal speed gained or lost (m/s, truth 0); ends = where it ended (truth: landing → table, miss → floor); clear = the true path's least distance from the corner less r (m); dropped = wrongly active constraints the group method dropped (sum over steps)");
    say!(
        "{:<12} {:<8} {:>5} {:>6} {:>7} {:>10} {:>10} {:>10} {:>9} {:>8} {:>7}",
        "activation",
        "throw",
        "u",
        "h (s)",
        "clear",
        "pen",
        "error",
        "|dvx|",
        "ends",
        "dropped",
        "switch"
    );
    let mut rows = Vec::new();
    for r in runs {
        say!(
            "{:<12} {:<8} {:>5} {:>6} {:>7.4} {:>10.3e} {:>10.3e} {:>10.3e} {:>9} {:>8} {:>7}{}",
            r.activation,
            r.throw.name(),
            r.speed,
            r.h,
            r.clearance,
            r.max_penetration,
            r.position_error(),
            r.vx_error,
            if r.correct() {
                r.outcome.to_string()
            } else {
                format!("{}!", r.outcome)
            },
            r.group.dropped,
            r.group.switched,
            r.failure
                .as_deref()
                .map(|f| format!("  stopped: {f}"))
                .unwrap_or_default()
        );
        rows.push(format!(
            "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
            r.activation,
            r.throw.name(),
            r.speed,
            r.h,
            r.clearance,
            r.max_penetration,
            r.end.x,
            r.end.y,
            r.truth.x,
            r.truth.y,
            r.position_error(),
            r.vx_error,
            r.outcome,
            r.expected,
            r.group.resolved_steps,
            r.group.dropped,
            r.group.switched,
            field(r.failure.as_deref().unwrap_or_default())
        ));
    }
    cx.csv(
        "segment_end.csv",
        "activation,throw,speed,time_step,clearance,max_penetration,x,y,true_x,true_y,position_error,vx_error,outcome,expected,resolved_steps,dropped,switched,error",
        &rows,
    )
}

fn gap_report(cx: &mut Context, runs: &[GapRun]) -> Result<(), Failure> {
    say!("disk between two lines (Nguyen & Trinkle 2008, disk-two lines; examples/planar_nt_gap.toml): frictionless disk r = 0.1 m thrown down at v onto a 0.12 m gap between two collinear segments; true rest centred in the gap touching both ends, 0.08 m above their line");
    say!("error = |final centre − true rest| (m); gaps = final distance to the left and right inner ends less r (m; truth 0, 0)");
    say!(
        "{:<12} {:>5} {:>6} {:>10} {:>10} {:>11} {:>11} {:>19} {:>8}",
        "activation",
        "v",
        "h (s)",
        "pen",
        "error",
        "gap left",
        "gap right",
        "ends",
        "dropped"
    );
    let mut rows = Vec::new();
    for r in runs {
        say!(
            "{:<12} {:>5} {:>6} {:>10.3e} {:>10.3e} {:>11.3e} {:>11.3e} {:>19} {:>8}{}",
            r.activation,
            r.speed,
            r.h,
            r.max_penetration,
            r.position_error(),
            r.gaps[0],
            r.gaps[1],
            r.outcome,
            r.group.dropped,
            r.failure
                .as_deref()
                .map(|f| format!("  stopped: {f}"))
                .unwrap_or_default()
        );
        rows.push(format!(
            "{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
            r.activation,
            r.speed,
            r.h,
            r.max_penetration,
            r.end.x,
            r.end.y,
            r.position_error(),
            r.gaps[0],
            r.gaps[1],
            r.outcome,
            r.group.resolved_steps,
            r.group.dropped,
            r.group.switched,
            field(r.failure.as_deref().unwrap_or_default())
        ));
    }
    cx.csv(
        "gap.csv",
        "activation,speed,time_step,max_penetration,x,y,position_error,gap_left,gap_right,outcome,resolved_steps,dropped,switched,error",
        &rows,
    )
}

fn plots(cx: &mut Context, ends: &[SegmentEndRun], gaps: &[GapRun]) {
    // The slides' lesson: type 1's error grows with relative velocity × time step.
    let mut penetration = Vec::new();
    let mut error = Vec::new();
    for a in ACTIVATIONS {
        let pen: Vec<(f64, f64)> = ends
            .iter()
            .filter(|r| r.activation == a)
            .map(|r| (r.speed * r.h, r.max_penetration.max(FLOOR)))
            .chain(
                gaps.iter()
                    .filter(|r| r.activation == a)
                    .map(|r| (r.speed * r.h, r.max_penetration.max(FLOOR))),
            )
            .collect();
        let err: Vec<(f64, f64)> = ends
            .iter()
            .filter(|r| r.activation == a)
            .map(|r| (r.speed * r.h, r.position_error().max(FLOOR)))
            .chain(
                gaps.iter()
                    .filter(|r| r.activation == a)
                    .map(|r| (r.speed * r.h, r.position_error().max(FLOOR))),
            )
            .collect();
        penetration.push(Series {
            label: a.to_string(),
            points: pen,
        });
        error.push(Series {
            label: a.to_string(),
            points: err,
        });
    }
    cx.plot(
        "nt2d_penetration.png",
        &Axes {
            title: "Disk against segments: largest penetration vs speed × time step (both scenes; 0 drawn at 1e-12)",
            x_label: "v h (m)",
            y_label: "max penetration (m)",
            log_x: true,
            log_y: true,
        },
        &penetration.iter().map(|s| (s, Mark::Points)).collect::<Vec<_>>(),
    );
    cx.plot(
        "nt2d_error.png",
        &Axes {
            title: "Disk against segments: |final centre − true| vs speed × time step (both scenes; 0 drawn at 1e-12)",
            x_label: "v h (m)",
            y_label: "modelling error (m)",
            log_x: true,
            log_y: true,
        },
        &error.iter().map(|s| (s, Mark::Points)).collect::<Vec<_>>(),
    );
    // The slides' figures: the disk's path near the segment's end, one case, each activation
    // and the true path, within 0.6 m of the table's end (at x = 0).
    let (u, h) = (8.0, 0.02);
    let near = |p: &(f64, f64)| p.0.abs() <= 0.6 && p.1 >= -0.4;
    for (throw, name) in [
        (Throw::Landing, "nt2d_landing_paths.png"),
        (Throw::Miss, "nt2d_miss_paths.png"),
    ] {
        let runs: Vec<&SegmentEndRun> = ends
            .iter()
            .filter(|r| r.throw == throw && r.speed == u && r.h == h)
            .collect();
        let Some(first) = runs.first() else {
            continue;
        };
        let mut series: Vec<Series> = runs
            .iter()
            .map(|r| Series {
                label: r.activation.clone(),
                points: r.path.iter().map(|p| (p.x, p.y)).filter(near).collect(),
            })
            .collect();
        let duration = first.h * (first.path.len() - 1) as f64;
        series.push(Series {
            label: "true path".into(),
            points: (0..=2000)
                .map(|k| first.true_centre(duration * k as f64 / 2000.0))
                .map(|p| (p.x, p.y))
                .filter(near)
                .collect(),
        });
        let title = format!(
            "{} throw, u = {u} m/s, h = {h} s: disk centre near the table's end (x = 0, y = 0)",
            throw.name()
        );
        cx.plot(
            name,
            &Axes {
                title: &title,
                x_label: "x (m)",
                y_label: "y (m)",
                log_x: false,
                log_y: false,
            },
            &series.iter().map(|s| (s, Mark::Line)).collect::<Vec<_>>(),
        );
    }
}
