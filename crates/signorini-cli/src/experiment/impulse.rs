//! The impulse experiments: the single-point collision laws against the impact angle on a rough
//! rod and sphere; the impulse loops on a dropped box, a stack of books, a bouncing ball and a
//! fast ball against a thin plate (`docs/impulse.md`, `docs/experiments.md`).
use super::{lines, Context};
use crate::plot::{Axes, Mark, Series};
use crate::Failure;
use signorini::contact::impulse::law::Law;
use signorini::experiments::impulse::{self as imp, ImpactCase, LawRun};

/// Friction coefficient and restitution of the sweep.
const FRICTION: f64 = 0.5;
const RESTITUTION: f64 = 0.9;
/// Tilt of the rod from the ground (degrees).
const ROD_TILT: f64 = 45.0;

pub(super) fn laws(cx: &mut Context) -> Result<(), Failure> {
    let step = if cx.quick { 20 } else { 5 };
    let angles: Vec<f64> = (-80..=80).step_by(step).map(f64::from).collect();
    let cases = [
        cx.run("rod", || imp::rod(ROD_TILT))?,
        cx.run("sphere", imp::sphere)?,
    ];
    cx.start(cases.len());
    let mut runs: Vec<LawRun> = Vec::new();
    for case in &cases {
        let what = format!(
            "{}: {} laws × {} angles",
            case.name,
            Law::ALL.len(),
            angles.len()
        );
        runs.extend(cx.run(&what, || {
            imp::angle_sweep(case, &Law::ALL, FRICTION, RESTITUTION, &angles)
        })?);
    }
    cx.finish();
    let rod = &cases[0];
    let sphere = &cases[1];
    let find = |case: &ImpactCase, law: Law, phi: f64| {
        runs.iter()
            .find(|r| r.case == case.name && r.law == law && r.angle_deg == phi)
            .expect("every (case, law, angle) was run")
    };

    say!(
        "{}, μ = {FRICTION}, e = {RESTITUTION}, translating at 1 m/s, φ from the downward normal \
         (φ > 0: towards +x, where the rod leans):",
        rod.description
    );
    let names: Vec<&str> = Law::ALL.iter().map(|l| short(*l)).collect();
    say!(
        "{:>6}  {:<9} | ΔT/T₀ (%): {:>8} {:>8} {:>8} {:>8} | u_n/(−u_n0): {:>7} {:>7} {:>7} {:>7}",
        "φ (°)",
        "slip",
        names[0],
        names[1],
        names[2],
        names[3],
        names[0],
        names[1],
        names[2],
        names[3]
    );
    for &phi in &angles {
        let r: Vec<&LawRun> = Law::ALL.iter().map(|&l| find(rod, l, phi)).collect();
        say!(
            "{:>6}  {:<9} | {:>19.3} {:>8.3} {:>8.3} {:>8.3} | {:>20.4} {:>7.4} {:>7.4} {:>7.4}",
            phi,
            slip_label(r[2].stick),
            100.0 * r[0].energy_ratio,
            100.0 * r[1].energy_ratio,
            100.0 * r[2].energy_ratio,
            100.0 * r[3].energy_ratio,
            r[0].kinematic,
            r[1].kinematic,
            r[2].kinematic,
            r[3].kinematic
        );
    }
    for law in Law::ALL {
        let worst = runs
            .iter()
            .filter(|r| r.case == rod.name && r.law == law)
            .max_by(|a, b| a.energy_ratio.total_cmp(&b.energy_ratio))
            .expect("runs");
        let penetrating = runs
            .iter()
            .filter(|r| r.case == rod.name && r.law == law && r.velocity.z < 0.0)
            .count();
        say!(
            "{:<16} largest ΔT/T₀ {:+.3} % (φ = {}°); leaves with u_n < 0 at {penetrating} of {} angles",
            law.name(),
            100.0 * worst.energy_ratio,
            worst.angle_deg,
            angles.len()
        );
    }
    // The sphere: no normal–tangent coupling, so every law gives the same impulse.
    let spread = angles
        .iter()
        .map(|&phi| {
            let base = find(sphere, Law::Stronge, phi).impulse;
            Law::ALL
                .iter()
                .map(|&l| (find(sphere, l, phi).impulse - base).length())
                .fold(0.0, f64::max)
        })
        .fold(0.0, f64::max);
    say!(
        "{}: the four laws' impulses differ by at most {spread:.2e} N s over the sweep",
        sphere.description
    );

    let rows: Vec<String> = runs
        .iter()
        .map(|r| {
            format!(
                "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
                r.case,
                r.law.name(),
                r.friction,
                r.restitution,
                r.angle_deg,
                r.u0.x,
                r.u0.z,
                r.impulse.x,
                r.impulse.z,
                r.velocity.x,
                r.velocity.z,
                r.kinematic,
                r.kinetic,
                r.energetic,
                r.energy_ratio,
                r.stick
            )
        })
        .collect();
    cx.csv(
        "impulse_laws.csv",
        "case,law,friction,restitution,angle_deg,u0_t,u0_n,impulse_t,impulse_n,u_t,u_n,\
         kinematic,kinetic,energetic,energy_ratio,stick",
        &rows,
    )?;

    let series = |case: &ImpactCase, law: Law, value: fn(&LawRun) -> f64| Series {
        label: format!("{}, {}", case.name, law.name()),
        points: runs
            .iter()
            .filter(|r| r.case == case.name && r.law == law)
            .map(|r| (r.angle_deg, value(r)))
            .collect(),
    };
    let energy: Vec<Series> = Law::ALL
        .iter()
        .map(|&l| series(rod, l, |r| 100.0 * r.energy_ratio))
        .collect();
    let mut sphere_energy = series(sphere, Law::Stronge, |r| 100.0 * r.energy_ratio);
    sphere_energy.label = format!("{} (every law)", sphere.name);
    let mut marked: Vec<(&Series, Mark)> = energy.iter().map(|s| (s, Mark::Line)).collect();
    marked.push((&sphere_energy, Mark::Points));
    cx.plot(
        "impulse_laws_energy.png",
        &Axes {
            title: &format!(
                "kinetic energy change against impact angle (μ = {FRICTION}, e = {RESTITUTION})"
            ),
            x_label: "impact angle φ from the normal (°)",
            y_label: "ΔT / T₀ (%)",
            log_x: false,
            log_y: false,
        },
        &marked,
    );
    let restitution: Vec<Series> = Law::ALL
        .iter()
        .map(|&l| series(rod, l, |r| r.kinematic))
        .collect();
    cx.plot(
        "impulse_laws_restitution.png",
        &Axes {
            title: &format!(
                "{}: exit normal velocity u_n / (−u_n0) (e = {RESTITUTION})",
                rod.name
            ),
            x_label: "impact angle φ from the normal (°)",
            y_label: "u_n / (−u_n0)",
            log_x: false,
            log_y: false,
        },
        &restitution
            .iter()
            .map(|s| (s, Mark::Line))
            .collect::<Vec<_>>(),
    );
    Ok(())
}

/// Column label of a law in the table.
fn short(law: Law) -> &'static str {
    match law {
        Law::AlgebraicNewton => "algebr.",
        l => l.name(),
    }
}

/// How the slip went under Stronge's law: it slid throughout, or reached zero and stuck, or
/// reached zero (or started there) with unstable sticking and left along the diverging ray.
fn slip_label(stick: &str) -> &'static str {
    match stick {
        "stable" => "sticks",
        "unstable" => "stop→ray",
        _ => "slides",
    }
}

/// Kinetic energy below which the box counts as at rest (J): 1e-6 J is a speed of 1.4 mm/s of the
/// 1 kg box.
const REST_ENERGY: f64 = 1e-6;
/// Window of the impact rate (s).
const RATE_WINDOW: f64 = 0.1;

/// A value for a log axis: plotters draws nothing below f64::EPSILON, so tiny values are clamped
/// to this stated floor.
fn log_floor(v: f64) -> f64 {
    v.max(1e-14)
}

pub(super) fn box_drop(cx: &mut Context) -> Result<(), Failure> {
    let mut scene = cx.scene("box_drop.toml", &[None, Some("hybrid")], &["box", "ground"])?;
    if cx.quick {
        scene.model.settings.duration = 1.5;
    }
    let runs = imp::BOX_DROP_RUNS;
    cx.start(runs.len());
    let mut results = Vec::new();
    for run in &runs {
        let what = format!("box drop, {}", run.label);
        results.push(cx.run(&what, || {
            imp::box_drop(&scene, run, "box", RATE_WINDOW, REST_ENERGY)
        })?);
    }
    cx.finish();
    say!(
        "1 kg cube of 0.2 m dropped from 0.5 m, tilted (4°, 7°), e = 0.5, μ = 0.5, h = {} s, {} s; over the last second:",
        scene.model.settings.time_step,
        scene.model.settings.duration
    );
    say!(
        "{:<16} {:>13} {:>13} {:>13} {:>12} {:>12} {:>12}  {}",
        "loop",
        "impulses/s",
        "first 0.1 s",
        "max KE (J)",
        "sinks (m)",
        "max pen (m)",
        "substeps",
        "at rest (KE < 1e-6 J) from"
    );
    let mut rows = Vec::new();
    let mut rate_rows = Vec::new();
    for r in &results {
        let first = r
            .impact_rate
            .iter()
            .find(|(_, rate)| *rate > 0.0)
            .map_or(0.0, |(_, rate)| *rate);
        let substeps: u64 = r.samples.iter().map(|s| s.substeps).sum();
        say!(
            "{:<16} {:>13.0} {:>13.0} {:>13.3e} {:>12.3e} {:>12.3e} {:>12}  {}",
            r.label,
            r.late_impact_rate,
            first,
            r.late_kinetic_energy,
            r.late_sinking,
            r.late_penetration,
            substeps,
            r.rest_time
                .map_or("never".to_string(), |t| format!("{t:.3} s"))
        );
        for s in &r.samples {
            rows.push(format!(
                "{},{},{},{},{},{},{}",
                r.label, s.time, s.kinetic_energy, s.height, s.penetration, s.impulses, s.substeps
            ));
        }
        for (t, rate) in &r.impact_rate {
            rate_rows.push(format!("{},{t},{rate}", r.label));
        }
    }
    cx.csv(
        "box_drop.csv",
        "loop,time,kinetic_energy,height,penetration,impulses,substeps",
        &rows,
    )?;
    cx.csv(
        "box_drop_rate.csv",
        "loop,window_start,impulses_per_second",
        &rate_rows,
    )?;
    let energy: Vec<Series> = results
        .iter()
        .map(|r| Series {
            label: r.label.clone(),
            points: r
                .samples
                .iter()
                .map(|s| (s.time, log_floor(s.kinetic_energy)))
                .collect(),
        })
        .collect();
    cx.plot(
        "box_drop_energy.png",
        &Axes {
            title: "box dropped on the ground: kinetic energy (floor 1e-14 J)",
            x_label: "time (s)",
            y_label: "kinetic energy (J)",
            log_x: false,
            log_y: true,
        },
        &lines(&energy),
    );
    let rate: Vec<Series> = results
        .iter()
        .map(|r| Series {
            label: r.label.clone(),
            points: r
                .impact_rate
                .iter()
                .map(|&(t, v)| (t + 0.5 * RATE_WINDOW, v))
                .collect(),
        })
        .collect();
    cx.plot(
        "box_drop_impacts.png",
        &Axes {
            title: &format!(
                "box dropped on the ground: impulses per second (windows of {RATE_WINDOW} s)"
            ),
            x_label: "time (s)",
            y_label: "impulses per second",
            log_x: false,
            log_y: true,
        },
        &lines(&rate),
    );
    let rest_height = 0.1;
    let height: Vec<Series> = results
        .iter()
        .map(|r| Series {
            label: r.label.clone(),
            points: r
                .samples
                .iter()
                .filter(|s| s.time >= 0.5)
                .map(|s| (s.time, 1e3 * (s.height - rest_height)))
                .collect(),
        })
        .collect();
    cx.plot(
        "box_drop_height.png",
        &Axes {
            title: "box dropped on the ground: centre of mass above its resting height",
            x_label: "time (s)",
            y_label: "z − 0.1 m (mm)",
            log_x: false,
            log_y: false,
        },
        &lines(&height),
    );
    Ok(())
}

pub(super) fn book_stack(cx: &mut Context) -> Result<(), Failure> {
    let mut scene = cx.scene("book_stack.toml", &[None], &["table", "book0"])?;
    scene.model.settings.duration = if cx.quick { 0.05 } else { 0.5 };
    let counts: &[usize] = &[2, 5, 10];
    let runs = imp::BOOK_STACK_RUNS;
    cx.start(runs.len() * counts.len());
    let mut results = Vec::new();
    for &n in counts {
        for run in &runs {
            let what = format!("{n} books, {}", run.label);
            results.push(cx.run(&what, || imp::book_stack(&scene, run, n))?);
        }
    }
    cx.finish();
    say!(
        "stacks of books (0.24 × 0.17 × 0.03 m, 0.6 kg, μ = 0.4, e = 0) listed top-down, h = {} s, {} s; sweeps stop when no point approaches faster than 1e-4 m/s:",
        scene.model.settings.time_step,
        scene.model.settings.duration
    );
    say!(
        "{:<22} {:>5} {:>14} {:>10} {:>12} {:>11} {:>13} {:>13}",
        "loop, priority",
        "books",
        "impulses/step",
        "max",
        "sweeps/step",
        "unresolved",
        "penetration",
        "top drift (m)"
    );
    let mut rows = Vec::new();
    let mut step_rows = Vec::new();
    for r in &results {
        say!(
            "{:<22} {:>5} {:>14.1} {:>10} {:>12.1} {:>11} {:>13.3e} {:>13.3e}",
            r.label,
            r.books,
            r.mean_impulses,
            r.max_impulses,
            r.mean_sweeps,
            r.unresolved,
            r.final_penetration,
            r.top_drift
        );
        rows.push(format!(
            "{},{},{},{},{},{},{},{},{}",
            r.label,
            r.books,
            r.mean_impulses,
            r.max_impulses,
            r.mean_sweeps,
            r.unresolved,
            r.final_penetration,
            r.top_drift,
            r.final_kinetic_energy
        ));
        for &(t, i, s) in &r.steps {
            step_rows.push(format!("{},{},{t},{i},{s}", r.label, r.books));
        }
    }
    cx.csv(
        "book_stack.csv",
        "run,books,mean_impulses_per_step,max_impulses_per_step,mean_sweeps_per_step,unresolved,final_penetration,top_drift,final_kinetic_energy",
        &rows,
    )?;
    cx.csv(
        "book_stack_steps.csv",
        "run,books,time,impulses,sweeps",
        &step_rows,
    )?;
    let top = *counts.last().expect("counts");
    let per_step: Vec<Series> = results
        .iter()
        .filter(|r| r.books == top && r.mean_impulses > 0.0)
        .map(|r| Series {
            label: r.label.clone(),
            points: r
                .steps
                .iter()
                .map(|&(t, i, _)| (t, i.max(1) as f64))
                .collect(),
        })
        .collect();
    cx.plot(
        "book_stack_impulses.png",
        &Axes {
            title: &format!("{top} books: impulses per step"),
            x_label: "time (s)",
            y_label: "impulses per step",
            log_x: false,
            log_y: true,
        },
        &lines(&per_step),
    );
    let by_count: Vec<Series> = runs
        .iter()
        .filter(|run| run.label != "global")
        .map(|run| Series {
            label: run.label.to_string(),
            points: results
                .iter()
                .filter(|r| r.label == run.label)
                .map(|r| (r.books as f64, r.mean_impulses))
                .collect(),
        })
        .collect();
    cx.plot(
        "book_stack_growth.png",
        &Axes {
            title: "mean impulses per step against the number of books",
            x_label: "books",
            y_label: "impulses per step",
            log_x: true,
            log_y: true,
        },
        &by_count
            .iter()
            .map(|s| (s, Mark::Points))
            .collect::<Vec<_>>(),
    );
    Ok(())
}

/// Bounces slower than this are not measured (m/s): below it the hop is a few steps long.
const BOUNCE_MIN_SPEED: f64 = 0.3;
const BOUNCE_RESTITUTIONS: [f64; 3] = [0.3, 0.6, 0.9];

pub(super) fn impulse_bounce(cx: &mut Context) -> Result<(), Failure> {
    let mut scene = cx.scene("impulse_bounce.toml", &[None], &["ball", "ground"])?;
    if cx.quick {
        scene.model.settings.duration = 1.5;
    }
    cx.start(Law::ALL.len() * BOUNCE_RESTITUTIONS.len());
    let mut results = Vec::new();
    for law in Law::ALL {
        for e in BOUNCE_RESTITUTIONS {
            let what = format!("{law}, e = {e}");
            let b = cx.run(&what, || {
                imp::ball_bounces(&scene, law.name(), e, 0.1, BOUNCE_MIN_SPEED)
            })?;
            results.push((law, e, b));
        }
    }
    cx.finish();
    say!(
        "ball (r = 0.1 m, μ = 0.3, 0.5 m/s sideways, backspin 20 rad/s) dropped 1 m, impulse model, sequential loop, h = {} s; restitution v_out / v_in per bounce:",
        scene.model.settings.time_step
    );
    say!(
        "{:<17} {:>4}  {:>7}  {:>9}  {:>11}  {:>11}",
        "law",
        "e",
        "bounces",
        "first",
        "worst |err|",
        "apex ratio"
    );
    let mut rows = Vec::new();
    for (law, e, bounces) in &results {
        let worst = bounces
            .iter()
            .map(|b| (b.restitution() - e).abs())
            .fold(0.0, f64::max);
        let ratio = match bounces.as_slice() {
            [a, b, ..] => b.apex / a.apex,
            _ => f64::NAN,
        };
        say!(
            "{:<17} {:>4}  {:>7}  {:>9.6}  {:>11.2e}  {:>11.5}",
            law.name(),
            e,
            bounces.len(),
            bounces.first().map_or(f64::NAN, |b| b.restitution()),
            worst,
            ratio
        );
        for (k, b) in bounces.iter().enumerate() {
            rows.push(format!(
                "{},{e},{},{},{},{},{},{}",
                law.name(),
                k + 1,
                b.time,
                b.speed_in,
                b.speed_out,
                b.restitution(),
                b.apex
            ));
        }
    }
    cx.csv(
        "impulse_bounce.csv",
        "law,restitution,bounce,time,speed_in,speed_out,measured_restitution,apex",
        &rows,
    )?;
    let measured: Vec<Series> = results
        .iter()
        .map(|(law, e, b)| Series {
            label: format!("{}, e = {e}", law.name()),
            points: b
                .iter()
                .enumerate()
                .map(|(k, b)| ((k + 1) as f64, b.restitution()))
                .collect(),
        })
        .collect();
    cx.plot(
        "impulse_bounce_restitution.png",
        &Axes {
            title: "measured restitution per bounce, every law (they coincide on a sphere)",
            x_label: "bounce",
            y_label: "v_out / v_in",
            log_x: false,
            log_y: false,
        },
        &measured
            .iter()
            .map(|s| (s, Mark::Points))
            .collect::<Vec<_>>(),
    );
    let apex: Vec<Series> = results
        .iter()
        .filter(|(law, _, _)| *law == Law::Stronge)
        .flat_map(|(_, e, b)| {
            let first = b.first().map_or(1.0, |b| b.apex);
            [
                Series {
                    label: format!("stronge, e = {e}"),
                    points: b
                        .iter()
                        .enumerate()
                        .map(|(k, b)| ((k + 1) as f64, b.apex))
                        .collect(),
                },
                Series {
                    label: format!("e^(2k), e = {e}"),
                    points: (0..b.len())
                        .map(|k| ((k + 1) as f64, first * e.powi(2 * k as i32)))
                        .collect(),
                },
            ]
        })
        .collect();
    let marked: Vec<(&Series, Mark)> = apex
        .iter()
        .enumerate()
        .map(|(i, s)| (s, if i % 2 == 0 { Mark::Points } else { Mark::Line }))
        .collect();
    cx.plot(
        "impulse_bounce_apex.png",
        &Axes {
            title: "apex height after each bounce against e^(2k)",
            x_label: "bounce",
            y_label: "apex (m)",
            log_x: false,
            log_y: true,
        },
        &marked,
    );
    Ok(())
}

const PLATE_BOTTOM: f64 = -0.005;

pub(super) fn thin_plate(cx: &mut Context) -> Result<(), Failure> {
    let scene = cx.scene("thin_plate.toml", &[None], &["ball", "plate"])?;
    let speeds: &[f64] = if cx.quick {
        &[1.0, 10.0, 100.0, 1000.0]
    } else {
        &[
            1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0, 200.0, 500.0, 1000.0, 2000.0, 5000.0,
        ]
    };
    let steps = [1e-3, 1e-2];
    cx.start(speeds.len() * steps.len() * 2);
    let mut results = Vec::new();
    for &h in &steps {
        for regress in [true, false] {
            for &v in speeds {
                let what = format!("v = {v} m/s, h = {h} s, regression {regress}");
                results.push(cx.run(&what, || {
                    imp::thin_plate(&scene, v, h, regress, PLATE_BOTTOM)
                })?);
            }
        }
    }
    cx.finish();
    say!("ball (r = 0.05 m) shot at a fixed plate 1 cm thick, e = 0.8; the ball crosses v h per step:");
    say!(
        "{:>8} {:>7} {:>11} {:>10} {:>13} {:>11} {:>9} {:>11}",
        "v (m/s)",
        "h (s)",
        "regression",
        "v h (m)",
        "tunnelled",
        "final vz",
        "substeps",
        "max pen (m)"
    );
    let mut rows = Vec::new();
    for r in &results {
        say!(
            "{:>8} {:>7} {:>11} {:>10.3} {:>13} {:>11.1} {:>9} {:>11.3e}",
            r.speed,
            r.time_step,
            if r.regress { "on" } else { "off" },
            r.speed * r.time_step,
            if r.tunnelled { "TUNNELLED" } else { "no" },
            r.final_vz,
            r.substeps,
            r.max_penetration
        );
        rows.push(format!(
            "{},{},{},{},{},{},{},{}",
            r.speed,
            r.time_step,
            r.regress as u8,
            r.tunnelled as u8,
            r.final_vz,
            r.max_penetration,
            r.substeps,
            r.toi_iterations
        ));
    }
    cx.csv(
        "thin_plate.csv",
        "speed,time_step,regression,tunnelled,final_vz,max_penetration,substeps,toi_iterations",
        &rows,
    )?;
    let series: Vec<Series> = steps
        .iter()
        .flat_map(|&h| {
            [true, false].map(|regress| Series {
                label: format!(
                    "h = {h} s, regression {}",
                    if regress { "on" } else { "off" }
                ),
                points: results
                    .iter()
                    .filter(|r| r.time_step == h && r.regress == regress)
                    .map(|r| (r.speed, r.final_vz / r.speed))
                    .collect(),
            })
        })
        .collect();
    cx.plot(
        "thin_plate.png",
        &Axes {
            title:
                "fast ball against a 1 cm plate: final v_z / v (0.8: bounced, −1: passed through)",
            x_label: "speed (m/s)",
            y_label: "final v_z / v",
            log_x: true,
            log_y: false,
        },
        &series.iter().map(|s| (s, Mark::Points)).collect::<Vec<_>>(),
    );
    Ok(())
}
