//! `signorini experiment deformable`: the validation of deformable bodies (issue 19 item 2,
//! `signorini::experiments::deformable`, docs/deformable.md "Validation"): cantilever tip
//! deflection against Euler–Bernoulli, rod wave speed against √(E/ρ), energy drift of a free box
//! with damping off under Verlet and under the paper's Taylor scheme. Exits 1 when a target is
//! missed (beam within 5%, wave speed within the chain's dispersion + 1e-5, Verlet's drift
//! ≤ 1e-6).
use super::Context;
use crate::Failure;
use anyhow::anyhow;
use signorini::deformable::DeformableIntegrator;
use signorini::experiments::deformable::{beam, energy, wave, Beam, Energy, Wave};

/// Verlet's and Taylor's step (s).
const STEP: f64 = 1e-5;

/// One row of the table and of `deformable.csv`.
struct Row {
    quantity: &'static str,
    case: String,
    measured: f64,
    reference: f64,
    /// Largest accepted |measured/reference − 1| (or drift), none for a report-only row.
    bound: Option<f64>,
}

impl Row {
    fn difference(&self) -> f64 {
        if self.reference == 0.0 {
            self.measured
        } else {
            self.measured / self.reference - 1.0
        }
    }

    fn passes(&self) -> bool {
        self.bound.is_none_or(|b| self.difference().abs() <= b)
    }
}

fn beam_row(b: &Beam) -> Row {
    let [x, y, z] = b.divisions;
    Row {
        quantity: "beam tip deflection (m) vs P L^3/(3 E I)",
        case: format!(
            "{x}x{y}x{z} cells, residual speed {:.1e} m/s",
            b.residual_speed
        ),
        measured: b.deflection,
        reference: b.euler_bernoulli,
        bound: Some(0.05),
    }
}

fn wave_row(w: &Wave) -> Row {
    let dispersion = 1.0 - w.chain / w.continuum;
    Row {
        quantity: "rod wave speed (m/s) vs sqrt(E/rho)",
        case: format!(
            "{} cells, {}x{} section, chain predicts {:.6}",
            w.cells, w.section, w.section, w.chain
        ),
        measured: w.measured,
        reference: w.continuum,
        bound: Some(dispersion + 1e-5),
    }
}

fn energy_row(e: &Energy) -> Row {
    let verlet = e.scheme == DeformableIntegrator::Verlet;
    Row {
        quantity: if verlet {
            "energy drift max |dE|/E0 (damping off)"
        } else {
            "energy E(T)/E0 (damping off)"
        },
        case: format!("{} tau = {:e} s, {} s", e.scheme.name(), e.step, e.duration),
        measured: if verlet { e.max_drift } else { e.end_ratio },
        reference: if verlet { 0.0 } else { 1.0 },
        bound: verlet.then_some(1e-6),
    }
}

pub(super) fn deformable(cx: &mut Context) -> Result<(), Failure> {
    let duration = if cx.quick { 1.0 } else { 10.0 };
    let beams = [[20, 2, 2], [20, 1, 1]];
    let waves = [(20, 1), (20, 2), (10, 1)];
    let schemes = [DeformableIntegrator::Verlet, DeformableIntegrator::Taylor];
    cx.start(beams.len() + waves.len() + schemes.len());
    let wrap =
        |e: signorini::deformable::DeformableError| signorini::Error::Experiment(e.to_string());
    let mut rows = Vec::new();
    for d in beams {
        let b = cx.run(&format!("beam {d:?}"), || beam(d).map_err(wrap))?;
        rows.push(beam_row(&b));
    }
    for (n, s) in waves {
        let w = cx.run(&format!("rod {n} cells {s}x{s}"), || {
            wave(n, s).map_err(wrap)
        })?;
        rows.push(wave_row(&w));
    }
    for scheme in schemes {
        let e = cx.run(&format!("energy {}", scheme.name()), || {
            energy(scheme, STEP, duration).map_err(wrap)
        })?;
        rows.push(energy_row(&e));
    }
    cx.finish();
    say!("Deformable bodies (Deguet et al. 1998 §3-4; docs/deformable.md): measured against analytic");
    say!(
        "{:<42} {:>13} {:>13} {:>10} {:>9}  case",
        "quantity",
        "measured",
        "reference",
        "rel. diff",
        "verdict"
    );
    for r in &rows {
        let verdict = match (r.bound, r.passes()) {
            (None, _) => "report",
            (Some(_), true) => "pass",
            (Some(_), false) => "FAIL",
        };
        say!(
            "{:<42} {:>13.6e} {:>13.6e} {:>+10.3e} {:>9}  {}",
            r.quantity,
            r.measured,
            r.reference,
            r.difference(),
            verdict,
            r.case
        );
    }
    let csv: Vec<String> = rows
        .iter()
        .map(|r| {
            format!(
                "{},{},{},{},{},{},{}",
                r.quantity.replace(',', ";"),
                r.case.replace(',', ";"),
                r.measured,
                r.reference,
                r.difference(),
                r.bound.map_or(String::new(), |b| b.to_string()),
                r.passes()
            )
        })
        .collect();
    cx.csv(
        "deformable.csv",
        "quantity,case,measured,reference,relative_difference,bound,pass",
        &csv,
    )?;
    match rows.iter().find(|r| !r.passes()) {
        Some(r) => Err(Failure {
            code: 1,
            error: anyhow!("{} ({}) missed its target", r.quantity, r.case),
        }),
        None => Ok(()),
    }
}
