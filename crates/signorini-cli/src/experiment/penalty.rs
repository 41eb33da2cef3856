//! The penalty experiments (Drumwright 2008; Deguet, Joukhadar & Laugier 1998): the Hunt–Crossley
//! bounce (`docs/experiments.md`, `docs/penalty.md`).
use super::{lines, Context};
use crate::plot::{Axes, Mark, Series};
use crate::Failure;
use signorini::experiments::penalty::{self as pen, BounceRun};

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
