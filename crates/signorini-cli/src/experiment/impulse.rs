//! The impulse experiments: the single-point collision laws against the impact angle on a rough
//! rod and sphere (`docs/impulse.md`, `docs/experiments.md`).
use super::Context;
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
