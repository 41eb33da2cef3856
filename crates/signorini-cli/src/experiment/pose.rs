//! `signorini experiment pose-statistics` (issue 19 item 3; Deguet, Joukhadar & Laugier 1998
//! §5, tables 1–2): drop the cube, the insulator cap and the stereo button many times under a
//! penalty and an impulse model, count the resting poses, and compare with the fair die and
//! the paper's tables (`docs/experiments.md`).
use super::Context;
use crate::plot::{Axes, BarGroup};
use crate::{input_error, Failure};
use anyhow::anyhow;
use signorini::experiments::pose::{
    self, by_paper_pose, chi_square, frequencies, paper_error, Drop, DropSettings, Dropper,
    Outcome, Part, PartKind, DEFAULT_IMPULSE, DEFAULT_PENALTY,
};
use std::time::Instant;

/// Drops per (part, model) without `--drops`, and with `--quick`.
pub const DROPS: u64 = 1000;
pub const QUICK_DROPS: u64 = 8;
/// First seed without `--seed`: drops use seeds S, S + 1, …, S + N − 1.
pub const SEED: u64 = 1;

/// The experiment's own options (`--drops`, `--part`, `--model`, `--seed`).
#[derive(Clone, Debug, Default)]
pub struct PoseOptions {
    pub drops: Option<u64>,
    pub part: Option<String>,
    pub model: Option<String>,
    pub seed: Option<u64>,
}

impl PoseOptions {
    pub fn any(&self) -> bool {
        self.drops.is_some() || self.part.is_some() || self.model.is_some() || self.seed.is_some()
    }
}

/// A field of our CSV files (no quoting: commas and line breaks replaced).
fn field(text: &str) -> String {
    text.replace([',', '\n', '\r'], ";")
}

/// Empty for a NaN or missing value, else Rust's shortest round-trip decimal.
fn num(v: Option<f64>) -> String {
    match v {
        Some(v) if v.is_finite() => v.to_string(),
        _ => String::new(),
    }
}

struct Run {
    dropper: Dropper,
    drops: Vec<Drop>,
    seconds: f64,
}

pub(super) fn pose_statistics(cx: &mut Context) -> Result<(), Failure> {
    let o = cx.pose.clone();
    let parts: Vec<PartKind> = match &o.part {
        None => PartKind::ALL.to_vec(),
        Some(name) => vec![PartKind::from_name(name).ok_or_else(|| {
            let names: Vec<_> = PartKind::ALL.iter().map(|k| k.name()).collect();
            input_error(anyhow!(
                "unknown part `{name}`; the parts are {}",
                names.join(", ")
            ))
        })?],
    };
    let models: Vec<String> = match &o.model {
        None => vec![DEFAULT_PENALTY.into(), DEFAULT_IMPULSE.into()],
        Some(m) => vec![m.clone()],
    };
    let n = o
        .drops
        .unwrap_or(if cx.quick { QUICK_DROPS } else { DROPS });
    if n == 0 {
        return Err(input_error(anyhow!("--drops 0: give at least one drop")));
    }
    let seed = o.seed.unwrap_or(SEED);
    let seeds = seed..seed.checked_add(n).ok_or_else(|| {
        input_error(anyhow!(
            "--seed {seed} with --drops {n} runs past the largest seed"
        ))
    })?;
    // Every (part, model) builds before any drop runs: a bad model or parameter is bad input.
    let mut droppers = Vec::new();
    for &kind in &parts {
        for m in &models {
            let d = Dropper::new(Part::new(kind), DropSettings::new(m))
                .map_err(|e| input_error(anyhow!("{} under {m}: {e}", kind.name())))?;
            droppers.push(d);
        }
    }
    cx.start(droppers.len() * n as usize);
    let bar = cx.bar.clone();
    let mut runs = Vec::new();
    for dropper in droppers {
        let what = format!(
            "{} under {}",
            dropper.part.kind.name(),
            dropper.settings.model
        );
        if let Some(b) = bar.as_ref().and_then(|b| b.bar()) {
            b.set_message(what.clone());
        }
        let start = Instant::now();
        let done = |d: &Drop| {
            if let Some(b) = &bar {
                b.inc(|| format!("{what}, seed {}", d.seed));
            }
        };
        let drops = pose::monte_carlo(&dropper, seeds.clone(), &done);
        let seconds = start.elapsed().as_secs_f64();
        runs.push(Run {
            dropper,
            drops,
            seconds,
        });
    }
    cx.finish();
    report(cx, &runs, n, seed)
}

/// Per (part, model): the summary figures.
struct Summary {
    classified: usize,
    leaning: usize,
    not_at_rest: usize,
    failed: usize,
    chi: Option<(f64, usize, f64)>,
    /// The paper's error measure of our frequencies (rank-matched), if the part has a table.
    paper_error: Option<f64>,
    mean_rest_time: f64,
    mean_steps: f64,
}

fn summarize(r: &Run) -> Summary {
    let part = &r.dropper.part;
    let count = |f: fn(&Outcome) -> bool| r.drops.iter().filter(|d| f(&d.outcome)).count();
    let freqs = frequencies(part, &r.drops);
    let classified = freqs.first().map_or(0, |f| f.total);
    let chi = part.expected.as_ref().and_then(|e| {
        let c: Vec<usize> = freqs.iter().map(|f| f.count).collect();
        chi_square(&c, e).ok()
    });
    let ours: Vec<f64> = freqs.iter().map(|f| f.frequency).collect();
    let paper_error = part
        .paper
        .filter(|_| classified > 0)
        .map(|t| paper_error(&by_paper_pose(&ours), t.physical));
    let rest: Vec<f64> = r.drops.iter().filter_map(|d| d.rest_time).collect();
    Summary {
        classified,
        leaning: count(|o| *o == Outcome::Leaning),
        not_at_rest: count(|o| *o == Outcome::NotAtRest),
        failed: count(|o| matches!(o, Outcome::Failed(_))),
        chi,
        paper_error,
        mean_rest_time: rest.iter().sum::<f64>() / rest.len().max(1) as f64,
        mean_steps: r.drops.iter().map(|d| d.steps as f64).sum::<f64>() / r.drops.len() as f64,
    }
}

fn report(cx: &mut Context, runs: &[Run], n: u64, seed: u64) -> Result<(), Failure> {
    let s0 = &runs[0].dropper.settings;
    say!(
        "pose statistics (Deguet, Joukhadar & Laugier 1998 §5, tables 1-2): {n} drops per part and model, seeds {seed}..{}, friction {}, restitution {}, h = {} s, lowest point released {}-{} m above the ground, at rest below {} m/s for {} s, cap {} s",
        seed + n - 1,
        pose::FRICTION,
        pose::RESTITUTION,
        s0.time_step,
        s0.height.0,
        s0.height.1,
        s0.rest_speed,
        s0.rest_hold,
        s0.time_cap
    );
    let mut drop_rows = Vec::new();
    let mut freq_rows = Vec::new();
    let mut summary_rows = Vec::new();
    for r in runs {
        let part = &r.dropper.part;
        let (pname, model) = (part.kind.name(), r.dropper.settings.model.as_str());
        let sm = summarize(r);
        let freqs = frequencies(part, &r.drops);
        say!(
            "\n{pname} ({:.3} g) under {model}: {} of {} classified ({} leaning, {} not at rest by {} s, {} failed); mean rest from {:.3} s, {:.0} steps a drop; {:.1} s wall",
            r.dropper.mass() * 1e3,
            sm.classified,
            r.drops.len(),
            sm.leaning,
            sm.not_at_rest,
            r.dropper.settings.time_cap,
            sm.failed,
            sm.mean_rest_time,
            sm.mean_steps,
            r.seconds
        );
        let ours: Vec<f64> = freqs.iter().map(|f| f.frequency).collect();
        let ranks = pose::ranks(&ours);
        let paper = part.paper;
        say!(
            "  {:<10} {:>6} {:>8} {:>18} {:>9} {:>22}",
            "pose",
            "count",
            "freq %",
            "95% Wilson CI %",
            "expected",
            "paper pose (rank): imp/pen/phys %"
        );
        for (i, f) in freqs.iter().enumerate() {
            let expected = part.expected.as_ref().map(|e| e[i]);
            let paper_cols = paper.map(|t| {
                let k = ranks[i];
                (
                    k + 1,
                    t.impulse.get(k).copied(),
                    t.penalty.get(k).copied(),
                    t.physical.get(k).copied(),
                )
            });
            say!(
                "  {:<10} {:>6} {:>8.2} {:>8.2} - {:>7.2} {:>9} {:>22}",
                f.pose,
                f.count,
                100.0 * f.frequency,
                100.0 * f.ci_low,
                100.0 * f.ci_high,
                expected.map_or("".into(), |e| format!("{:.2}", 100.0 * e)),
                paper_cols.map_or(String::new(), |(k, a, b, c)| format!(
                    "{k}: {}/{}/{}",
                    num(a),
                    num(b),
                    num(c)
                ))
            );
            freq_rows.push(format!(
                "{pname},{model},{},{},{},{},{},{},{},{},{},{},{}",
                f.pose,
                f.count,
                f.total,
                num(Some(f.frequency)),
                num(Some(f.ci_low)),
                num(Some(f.ci_high)),
                num(expected),
                paper_cols.map_or(String::new(), |c| c.0.to_string()),
                num(paper_cols.and_then(|c| c.1)),
                num(paper_cols.and_then(|c| c.2)),
                num(paper_cols.and_then(|c| c.3)),
            ));
        }
        if let Some(t) = paper {
            // The paper's poses that have no counterpart among ours.
            for k in part.poses.len()..t.physical.len() {
                say!(
                    "  {:<10} {:>6} {:>8} {:>18} {:>9} {:>22}",
                    "(none)",
                    "",
                    "",
                    "",
                    "",
                    format!(
                        "{}: {}/{}/{}",
                        k + 1,
                        t.impulse[k],
                        t.penalty[k],
                        t.physical[k]
                    )
                );
                freq_rows.push(format!(
                    "{pname},{model},none,0,{},0,,,,{},{},{},{}",
                    sm.classified,
                    k + 1,
                    t.impulse[k],
                    t.penalty[k],
                    t.physical[k]
                ));
            }
        }
        if let Some((chi, dof, p)) = sm.chi {
            say!("  chi-square against the expected frequencies: {chi:.3} ({dof} dof), p = {p:.4}");
        }
        if let (Some(e), Some(t)) = (sm.paper_error, paper) {
            say!(
                "  paper's error e = 100 sum p_i |a_i - p_i| against its physical tests (poses matched by rank): ours {e:.1}; the paper's impulse {:.1}, penalty {:.1}",
                paper_error(t.impulse, t.physical),
                paper_error(t.penalty, t.physical)
            );
        }
        for d in &r.drops {
            let message = match &d.outcome {
                Outcome::Failed(m) => field(m),
                _ => String::new(),
            };
            drop_rows.push(format!(
                "{pname},{model},{},{},{},{},{},{},{},{},{},{},{}",
                d.seed,
                d.outcome.label(part),
                num(Some(d.release_height)),
                num(d.rest_time),
                num(Some(d.end_time)),
                d.steps,
                num(Some(d.final_height)),
                num(Some(d.tilt.to_degrees())),
                num(Some(d.kinetic_energy)),
                num(Some(d.max_penetration)),
                message
            ));
        }
        summary_rows.push(format!(
            "{pname},{model},{},{},{},{},{},{},{},{},{},{},{},{},{}",
            r.drops.len(),
            sm.classified,
            sm.leaning,
            sm.not_at_rest,
            sm.failed,
            num(sm.chi.map(|c| c.0)),
            sm.chi.map_or(String::new(), |c| c.1.to_string()),
            num(sm.chi.map(|c| c.2)),
            num(sm.paper_error),
            num(Some(sm.mean_rest_time)),
            num(Some(sm.mean_steps)),
            num(Some(r.dropper.mass())),
            num(Some(r.seconds)),
        ));
    }
    cx.csv(
        "pose_drops.csv",
        "part,model,seed,outcome,release_height,rest_time,end_time,steps,final_height,tilt_deg,kinetic_energy,max_penetration,message",
        &drop_rows,
    )?;
    cx.csv(
        "pose_frequencies.csv",
        "part,model,pose,count,classified,frequency,ci95_low,ci95_high,expected,paper_pose,paper_impulse_percent,paper_penalty_percent,paper_physical_percent",
        &freq_rows,
    )?;
    cx.csv(
        "pose_summary.csv",
        "part,model,drops,classified,leaning,not_at_rest,failed,chi2,dof,p_value,paper_error,mean_rest_time,mean_steps,mass,wall_seconds",
        &summary_rows,
    )?;
    plots(cx, runs);
    Ok(())
}

/// One bar chart per part: each model's frequencies with their Wilson intervals, and the fair
/// die's 1/6 or the paper's physical frequencies (rank-matched).
fn plots(cx: &mut Context, runs: &[Run]) {
    for kind in PartKind::ALL {
        let these: Vec<&Run> = runs
            .iter()
            .filter(|r| r.dropper.part.kind == kind)
            .collect();
        let Some(first) = these.first() else { continue };
        let part = &first.dropper.part;
        let mut groups = Vec::new();
        for r in &these {
            let f = frequencies(part, &r.drops);
            if f.iter().any(|f| !f.frequency.is_finite()) {
                continue; // nothing classified
            }
            groups.push(BarGroup {
                label: format!("{} (n = {})", r.dropper.settings.model, f[0].total),
                values: f.iter().map(|f| 100.0 * f.frequency).collect(),
                intervals: Some(
                    f.iter()
                        .map(|f| (100.0 * f.ci_low, 100.0 * f.ci_high))
                        .collect(),
                ),
            });
        }
        if groups.is_empty() {
            continue;
        }
        if let Some(e) = &part.expected {
            groups.push(BarGroup {
                label: "fair die 1/6".into(),
                values: e.iter().map(|p| 100.0 * p).collect(),
                intervals: None,
            });
        }
        if let Some(t) = part.paper {
            // Rank-matched to the first model's frequencies.
            let ours: Vec<f64> = groups[0].values.clone();
            let ranks = pose::ranks(&ours);
            groups.push(BarGroup {
                label: "paper: physical tests (by rank)".into(),
                values: ranks
                    .iter()
                    .map(|&k| t.physical.get(k).copied().unwrap_or(0.0))
                    .collect(),
                intervals: None,
            });
        }
        let categories: Vec<String> = part.poses.iter().map(|p| p.to_string()).collect();
        let title = format!(
            "{}: resting pose frequencies, 95% Wilson intervals",
            kind.name()
        );
        let axes = Axes {
            title: &title,
            x_label: "pose",
            y_label: "frequency (%)",
            log_x: false,
            log_y: false,
        };
        cx.bar_plot(
            &format!("pose_statistics_{}.png", kind.name()),
            &axes,
            &categories,
            &groups,
        );
    }
}
