//! The complementarity experiments: type 1 / type 2 activation, the ramp and the box stack
//! (`docs/experiments.md`).
use super::{stem, Context};
use crate::plot::{Axes, Mark, Series};
use crate::Failure;
use signorini::experiments::complementarity::{self as comp, ACTIVATIONS};

/// Type 1 or type 2, for labels.
fn activation_type(activation: &str) -> &'static str {
    if activation == "penetrating" {
        "type 1"
    } else {
        "type 2"
    }
}

// ---------------------------------------------------------------------------------------------
// activation
// ---------------------------------------------------------------------------------------------

/// Penetrations below this (m) are drawn at it on the log axis of `activation.png` (type 2 gives
/// zero or round-off, and plotters labels no log tick below 2.2e-16).
const PENETRATION_FLOOR: f64 = 1e-15;

pub(super) fn activation(cx: &mut Context) -> Result<(), Failure> {
    let (speeds, steps): (&[f64], &[f64]) = if cx.quick {
        (&[1.0, 20.0], &[1e-3, 1e-2])
    } else {
        (&[1.0, 5.0, 20.0, 50.0], &[1e-4, 1e-3, 1e-2])
    };
    let mut scenes = Vec::new();
    for file in ["sphere_on_plane.toml", "sphere_in_wedge.toml"] {
        scenes.push((stem(file), cx.scene(file, &[None], &["ball"])?));
    }
    cx.start(scenes.len() * ACTIVATIONS.len() * speeds.len() * steps.len());
    let mut runs = Vec::new();
    for (name, scene) in &scenes {
        for a in ACTIVATIONS {
            for &v in speeds {
                for &h in steps {
                    let what = format!("{name}: {a}, v = {v} m/s, h = {h} s");
                    let r = cx.run(&what, || comp::ball_penetration(scene, v, h, a))?;
                    runs.push((name.clone(), r));
                }
            }
        }
    }
    cx.finish();

    say!("largest penetration (m) of a sphere thrown down at speed v, by time step h:");
    let mut head = format!("{:<16} {:<13} {:>7}", "scene", "activation", "v (m/s)");
    for h in steps {
        head += &format!("  {:>10} ", format!("h = {h}"));
    }
    say!("{head}");
    for (name, _) in &scenes {
        for a in ACTIVATIONS {
            for &v in speeds {
                let mut line = format!("{name:<16} {a:<13} {v:>7}");
                for &h in steps {
                    let r = runs.iter().find(|(n, r)| {
                        n == name && r.activation == a && r.speed == v && r.time_step == h
                    });
                    // `*`: the ball passed wholly into the ground and the run stopped there.
                    let mark = if r.is_some_and(|r| r.1.passed_through) {
                        "*"
                    } else {
                        " "
                    };
                    line += &format!(
                        "  {:>10.3e}{mark}",
                        r.map_or(f64::NAN, |r| r.1.max_penetration)
                    );
                }
                say!("{line}");
            }
        }
    }
    let through = runs.iter().filter(|(_, r)| r.passed_through).count();
    if through > 0 {
        say!(
            "* passed through: {through} runs stopped when the ball ended a step wholly beyond a plane of the ground (the figure is the depth of its deepest point there)"
        );
    }
    for a in ACTIVATIONS {
        let worst = runs
            .iter()
            .filter(|(_, r)| r.activation == a)
            .map(|(_, r)| r.max_penetration)
            .fold(0.0, f64::max);
        say!(
            "{a} ({}): largest penetration over all runs {worst:.3e} m",
            activation_type(a)
        );
    }

    let rows: Vec<String> = runs
        .iter()
        .map(|(n, r)| {
            format!(
                "{n},{},{},{},{},{},{}",
                r.activation,
                r.speed,
                r.time_step,
                r.speed * r.time_step,
                r.max_penetration,
                r.passed_through as u8
            )
        })
        .collect();
    cx.csv(
        "activation.csv",
        "scene,activation,speed,time_step,speed_times_step,max_penetration,passed_through",
        &rows,
    )?;

    // Measured points per (scene, activation), clamped to the floor; the line p = v h is the
    // depth type 1 activation can reach in one step (gravity adds g h², not drawn).
    let mut series = Vec::new();
    for (name, _) in &scenes {
        for a in ACTIVATIONS {
            let points: Vec<(f64, f64)> = runs
                .iter()
                .filter(|(n, r)| n == name && r.activation == a)
                .map(|(_, r)| {
                    (
                        r.speed * r.time_step,
                        r.max_penetration.max(PENETRATION_FLOOR),
                    )
                })
                .collect();
            let floored = runs
                .iter()
                .filter(|(n, r)| n == name && r.activation == a)
                .filter(|(_, r)| r.max_penetration < PENETRATION_FLOOR)
                .count();
            let mut label = format!("{name}, {} ({a})", activation_type(a));
            if floored > 0 {
                label += &format!(", {floored} of {} at the floor", points.len());
            }
            series.push(Series { label, points });
        }
    }
    let mut vh: Vec<f64> = runs.iter().map(|(_, r)| r.speed * r.time_step).collect();
    vh.sort_by(f64::total_cmp);
    vh.dedup();
    let bound = Series {
        label: "p = v·h (v: throw speed; gravity speeds the ball up before impact)".into(),
        points: vh.iter().map(|&x| (x, x)).collect(),
    };
    let mut marked: Vec<(&Series, Mark)> = series.iter().map(|s| (s, Mark::Points)).collect();
    marked.push((&bound, Mark::Line));
    cx.plot(
        "activation.png",
        &Axes {
            title: &format!(
                "max penetration vs v·h (values below {PENETRATION_FLOOR:e} m drawn at {PENETRATION_FLOOR:e} m)"
            ),
            x_label: "speed × time step v·h (m)",
            y_label: "max penetration (m)",
            log_x: true,
            log_y: true,
        },
        &marked,
    );
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// ramp
// ---------------------------------------------------------------------------------------------

pub(super) fn ramp(cx: &mut Context) -> Result<(), Failure> {
    // i / 20 is the double nearest to the decimal 0.05 i.
    let mus: Vec<f64> = if cx.quick {
        vec![0.0, 0.3, 0.6, 0.9]
    } else {
        (0..=20).map(|i| i as f64 / 20.0).collect()
    };
    let scene = cx.scene("ramp.toml", &[None], &["ramp", "block"])?;
    cx.start(mus.len());
    let mut results = Vec::new();
    for &mu in &mus {
        results.push(cx.run(&format!("ramp, μ = {mu}"), || comp::ramp(&scene, mu))?);
    }
    cx.finish();
    let angle = results[0].angle;
    let g = scene.model.settings.gravity.length();
    // Relative error of the measured acceleration; none where the block should stick.
    let rel = |r: &comp::RampResult| {
        (r.expected > 0.0).then(|| (r.acceleration - r.expected) / r.expected)
    };

    say!(
        "block on a {:.1}° ramp (sticks for μ > tan θ = {:.4}), {} s at h = {} s, model {}:",
        angle.to_degrees(),
        angle.tan(),
        scene.model.settings.duration,
        scene.model.settings.time_step,
        scene.desc.contact.model
    );
    say!(
        "{:>5}  {:>14}  {:>14}  {:>10}  {:>12}",
        "μ",
        "expected m/s²",
        "measured m/s²",
        "rel. error",
        "distance m"
    );
    for r in &results {
        let e = rel(r).map_or("-".to_string(), |e| format!("{e:.2e}"));
        say!(
            "{:>5}  {:>14.6}  {:>14.6}  {:>10}  {:>12.4e}",
            r.friction,
            r.expected,
            r.acceleration,
            e,
            r.distance
        );
    }

    let rows: Vec<String> = results
        .iter()
        .map(|r| {
            let e = rel(r).map_or(String::new(), |e| e.to_string());
            format!(
                "{},{},{},{e},{}",
                r.friction, r.expected, r.acceleration, r.distance
            )
        })
        .collect();
    cx.csv(
        "ramp.csv",
        "friction,expected,acceleration,relative_error,distance",
        &rows,
    )?;

    let (lo, hi) = (mus[0], mus[mus.len() - 1]);
    let analytic = Series {
        label: format!("g (sin θ − μ cos θ)⁺, θ = {:.1}°", angle.to_degrees()),
        points: (0..=400)
            .map(|i| {
                let mu = lo + (hi - lo) * i as f64 / 400.0;
                (mu, (g * (angle.sin() - mu * angle.cos())).max(0.0))
            })
            .collect(),
    };
    let measured = Series {
        label: format!("measured ({})", scene.desc.contact.model),
        points: results
            .iter()
            .map(|r| (r.friction, r.acceleration))
            .collect(),
    };
    cx.plot(
        "ramp.png",
        &Axes {
            title: "block on a ramp: acceleration down the slope against friction",
            x_label: "friction coefficient μ",
            y_label: "acceleration (m/s²)",
            log_x: false,
            log_y: false,
        },
        &[(&analytic, Mark::Line), (&measured, Mark::Points)],
    );
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// box-stack
// ---------------------------------------------------------------------------------------------

/// Simulated duration of the stack with `--quick` (s); the full run uses the scene's.
const QUICK_STACK_DURATION: f64 = 2.0;

pub(super) fn box_stack(cx: &mut Context) -> Result<(), Failure> {
    let runs: &[(&str, f64)] = if cx.quick {
        &[
            ("stewart-trinkle", 1e-2),
            ("peg", 1e-2),
            ("deepest-point", 1e-3),
        ]
    } else {
        &[
            ("stewart-trinkle", 1e-2),
            ("stewart-trinkle", 1e-3),
            ("peg", 1e-2),
            ("peg", 1e-3),
            ("deepest-point", 1e-3),
        ]
    };
    let models: Vec<Option<&str>> = runs.iter().map(|r| Some(r.0)).collect();
    let mut scene = cx.scene("box_stack.toml", &models, &[])?;
    if cx.quick {
        let d = &mut scene.model.settings.duration;
        *d = d.min(QUICK_STACK_DURATION);
    }
    let duration = scene.model.settings.duration;
    cx.start(runs.len());
    let mut results = Vec::new();
    for &(model, h) in runs {
        let what = format!("box stack, {model}, h = {h} s");
        results.push((
            model,
            cx.run(&what, || comp::stack(&scene, Some(model), h))?,
        ));
    }
    cx.finish();

    say!("stack of boxes after {duration} s (drifts: horizontal displacement):");
    say!(
        "{:<16} {:>6}  {:>10}  {:>10}  {:>10}  {:>10}  {:>10}  {:>10}  {:>8}",
        "model",
        "h (s)",
        "top drift",
        "max drift",
        "top Δz",
        "max tilt",
        "max pen.",
        "final KE",
        "wall s"
    );
    for (model, r) in &results {
        say!(
            "{:<16} {:>6}  {:>10.3e}  {:>10.3e}  {:>10.3e}  {:>10.3e}  {:>10.3e}  {:>10.3e}  {:>8.2}",
            model,
            r.time_step,
            r.top_drift,
            r.max_drift,
            r.top_height_change,
            r.max_tilt,
            r.max_penetration,
            r.final_kinetic_energy,
            r.seconds
        );
    }
    say!("(m, m, m, rad, m, J)");

    let rows: Vec<String> = results
        .iter()
        .map(|(model, r)| {
            format!(
                "{model},{},{duration},{},{},{},{},{},{},{}",
                r.time_step,
                r.top_drift,
                r.max_drift,
                r.top_height_change,
                r.max_tilt,
                r.max_penetration,
                r.final_kinetic_energy,
                r.seconds
            )
        })
        .collect();
    cx.csv(
        "box_stack.csv",
        "model,time_step,duration,top_drift,max_drift,top_height_change,max_tilt,max_penetration,final_kinetic_energy,wall_seconds",
        &rows,
    )
}
