//! The robustness experiment (issue 16, item 6): every contact model on its defaults against the
//! stack, the bin, the cube started in the ground and the perturbed cube; a pass/fail table, a
//! CSV file and a grid plot (`docs/experiments.md`).
use super::Context;
use crate::plot::{Cell, Grid};
use crate::{input_error, Failure};
use anyhow::anyhow;
use rayon::prelude::*;
use signorini::experiments::robustness::{
    self as rob, Outcome, Plan, RunResult, SceneClass, TARGETS,
};
use signorini::scene::Scene;
use std::time::Duration;

/// Environment variable that replaces the wall-clock budget of a run (s, a positive number).
const BUDGET_VARIABLE: &str = "SIGNORINI_ROBUSTNESS_BUDGET_SECONDS";

/// CSV columns of `robustness.csv`, one row per (model, scene class).
const CSV_HEADER: &str = "model,class,scene,time_step,duration,verdict,outcome,reason,steps,planned,end_time,top_drift,max_penetration,escapes,final_kinetic_energy,max_speed,push_out_speed,end_speed,steps_per_second,step_seconds,message";

/// Full or quick plan, with the budget of `SIGNORINI_ROBUSTNESS_BUDGET_SECONDS` when set.
fn plan(quick: bool) -> Result<Plan, Failure> {
    let mut plan = if quick { Plan::quick() } else { Plan::full() };
    if let Ok(text) = std::env::var(BUDGET_VARIABLE) {
        let seconds = text
            .trim()
            .parse::<f64>()
            .ok()
            .filter(|s| *s > 0.0 && s.is_finite());
        let seconds = seconds.ok_or_else(|| {
            input_error(anyhow!(
                "{BUDGET_VARIABLE} = `{text}` is not a positive number of seconds"
            ))
        })?;
        plan.budget = Duration::from_secs_f64(seconds);
    }
    Ok(plan)
}

/// A field of our CSV files (never quoted): commas and line breaks become `;`.
fn field(text: &str) -> String {
    text.replace([',', '\n', '\r'], ";")
}

/// An optional figure as a CSV field (empty when not measured).
fn optional(value: Option<f64>) -> String {
    value.map_or(String::new(), |v| v.to_string())
}

/// Column heading of a scene class: what it runs and for how long.
fn heading(class: SceneClass, plan: &Plan) -> String {
    let what = match class {
        SceneClass::StackFine => "stack h=1e-3".to_string(),
        SceneClass::StackCoarse => "stack h=1/240".to_string(),
        SceneClass::Bin => "bin 64".to_string(),
        SceneClass::PenetratingCube => "cube in ground".to_string(),
        SceneClass::PerturbedCube => "perturbed cube".to_string(),
    };
    format!("{what} ({} s)", plan.duration(class))
}

/// PASS / FAIL with the run's key figure, or what stopped it: a cell of the printed table.
fn cell_text(r: &RunResult) -> (String, String) {
    let verdict = if r.verdict().pass { "PASS" } else { "FAIL" };
    let detail = match &r.outcome {
        Outcome::Completed => r.key_check().map_or(String::new(), |c| {
            if c.unit.is_empty() {
                format!("{} {:.0}", c.what, c.value)
            } else {
                format!("{} {:.2e} {}", c.what, c.value, c.unit)
            }
        }),
        Outcome::Stopped { .. } => format!("stopped t={:.3} s", r.figures.end_time),
        Outcome::TooSlow { .. } => format!("too slow t={:.3} s", r.figures.end_time),
        Outcome::Refused { .. } => "refused".to_string(),
    };
    (verdict.to_string(), detail)
}

/// Fill colours of the grid (red, green, blue) with their legend: pass, a target missed, stopped
/// by a step error, too slow, refused at set-up.
const COLORS: [(&str, (u8, u8, u8)); 5] = [
    ("pass", (126, 200, 128)),
    ("target missed", (250, 190, 100)),
    ("stopped (step error)", (232, 104, 96)),
    ("too slow (wall-clock budget)", (178, 150, 218)),
    ("refused at set-up", (176, 176, 176)),
];

/// Fill colour of a run's grid cell (`COLORS`).
fn color(r: &RunResult) -> (u8, u8, u8) {
    let k = match (&r.outcome, r.verdict().pass) {
        (Outcome::Completed, true) => 0,
        (Outcome::Completed, false) => 1,
        (Outcome::Stopped { .. }, _) => 2,
        (Outcome::TooSlow { .. }, _) => 3,
        (Outcome::Refused { .. }, _) => 4,
    };
    COLORS[k].1
}

pub(super) fn robustness(cx: &mut Context) -> Result<(), Failure> {
    let plan = plan(cx.quick)?;
    let mut scenes: Vec<(SceneClass, Scene)> = Vec::new();
    for class in SceneClass::ALL {
        let bodies: &[&str] = if class == SceneClass::Bin {
            &[rob::BIN_BODY]
        } else {
            &[]
        };
        scenes.push((class, cx.scene(class.spec().file, &[], bodies)?));
    }
    let cases = rob::cases();
    cx.start(cases.len());
    let bar = cx.bar.clone();
    // Each run is single-threaded apart from the library's own islands and deterministic; rayon
    // spreads the runs over the cores and `collect` keeps the cases' order.
    let results: Vec<Result<RunResult, String>> = cases
        .par_iter()
        .map(|&(model, class)| {
            let scene = &scenes
                .iter()
                .find(|(c, _)| *c == class)
                .expect("every class")
                .1;
            let r = rob::run(scene, class, model, &plan).map_err(|e| e.to_string());
            if let Some(b) = &bar {
                let what = format!("{model} on {}", class.spec().key);
                if let Some(b) = b.bar() {
                    b.set_message(what.clone());
                }
                b.inc(|| format!("last: {what}"));
            }
            r
        })
        .collect();
    cx.finish();
    let results = results
        .into_iter()
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| input_error(anyhow!(e)))?;
    print_grid(&results, &plan);
    print_details(&results);
    let rows: Vec<String> = results.iter().map(csv_row).collect();
    cx.csv("robustness.csv", CSV_HEADER, &rows)?;
    draw_grid(cx, &results, &plan);
    Ok(())
}

/// The model × scene table of verdicts, under the targets and the plan.
fn print_grid(results: &[RunResult], plan: &Plan) {
    let t = &TARGETS;
    say!(
        "robustness (issue 16): every contact model on its defaults (integrator implicit-euler), budget {:.0} s of wall clock a run",
        plan.budget.as_secs_f64()
    );
    if plan.quick {
        say!("--quick: shortened durations (below); the verdicts are provisional (a bin still falling, a cube not yet at rest)");
    }
    say!(
        "targets: stack drift <= {:.0e} m ({:.0e} m constraint); bin: completes, {} escapes, max penetration <= {:.0e} m ({:.0e} m constraint), final KE <= {:.0e} J; cube in ground: push-out speed <= {} m/s, at rest (every point <= {} m/s) at the end; perturbed cube: at rest at the end",
        t.stack_drift.force,
        t.stack_drift.constraint,
        t.bin_escapes,
        t.penetration.force,
        t.penetration.constraint,
        t.bin_final_kinetic_energy,
        t.push_out_speed,
        t.rest_speed
    );
    let mut head = format!("{:<16}", "model");
    for class in SceneClass::ALL {
        head += &format!(" | {:<31}", heading(class, plan));
    }
    say!("{}", head.trim_end());
    for model in rob::models() {
        let mut line = format!("{model:<16}");
        for class in SceneClass::ALL {
            let r = results
                .iter()
                .find(|r| r.model == model && r.scene == class);
            let (verdict, detail) = r.map_or(("-".into(), String::new()), cell_text);
            line += &format!(" | {verdict:<4} {detail:<26}");
        }
        say!("{}", line.trim_end());
    }
}

/// Every run's figures, then why each FAIL failed.
fn print_details(results: &[RunResult]) {
    say!(
        "{:<16} {:<16} {:<10} {:>12} {:>10} {:>10} {:>10} {:>7} {:>10} {:>10} {:>10} {:>10} {:>9}",
        "model",
        "scene",
        "outcome",
        "steps",
        "t end (s)",
        "drift (m)",
        "max pen(m)",
        "escapes",
        "final KE",
        "max v m/s",
        "push-out",
        "end speed",
        "steps/s"
    );
    let opt = |v: Option<f64>| v.map_or("-".to_string(), |v| format!("{v:.3e}"));
    for r in results {
        let f = &r.figures;
        say!(
            "{:<16} {:<16} {:<10} {:>12} {:>10.4} {:>10} {:>10.3e} {:>7} {:>10.3e} {:>10.3e} {:>10} {:>10.3e} {:>9.0}",
            r.model,
            r.scene.spec().key,
            r.outcome.name(),
            format!("{}/{}", f.steps, f.planned),
            f.end_time,
            opt(f.top_drift),
            f.max_penetration,
            f.escapes.map_or("-".to_string(), |e| e.to_string()),
            f.final_kinetic_energy,
            f.max_speed,
            opt(f.push_out_speed),
            f.end_speed,
            f.steps_per_second()
        );
    }
    let failed: Vec<&RunResult> = results.iter().filter(|r| !r.verdict().pass).collect();
    say!(
        "{} of {} runs pass; why the others fail:",
        results.len() - failed.len(),
        results.len()
    );
    for r in failed {
        say!(
            "  {} on {}: {}",
            r.model,
            r.scene.spec().key,
            r.verdict().reasons.join("; ")
        );
    }
}

fn csv_row(r: &RunResult) -> String {
    let f = &r.figures;
    let verdict = r.verdict();
    let message = match &r.outcome {
        Outcome::Stopped { message, .. } | Outcome::Refused { message, .. } => message.as_str(),
        _ => "",
    };
    format!(
        "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
        r.model,
        r.class.map_or("", |c| c.name()),
        r.scene.spec().key,
        r.time_step,
        r.duration,
        if verdict.pass { "PASS" } else { "FAIL" },
        r.outcome.name(),
        field(&verdict.reasons.join(" | ")),
        f.steps,
        f.planned,
        f.end_time,
        optional(f.top_drift),
        f.max_penetration,
        f.escapes.map_or(String::new(), |e| e.to_string()),
        f.final_kinetic_energy,
        f.max_speed,
        optional(f.push_out_speed),
        f.end_speed,
        f.steps_per_second(),
        f.step_seconds,
        field(message)
    )
}

/// `robustness.png`: the verdict grid, coloured by outcome, the key figure in each cell.
fn draw_grid(cx: &mut Context, results: &[RunResult], plan: &Plan) {
    let models = rob::models();
    let cells = models
        .iter()
        .map(|model| {
            SceneClass::ALL
                .iter()
                .map(|&class| {
                    match results
                        .iter()
                        .find(|r| r.model == *model && r.scene == class)
                    {
                        Some(r) => {
                            let (verdict, detail) = cell_text(r);
                            Cell {
                                lines: vec![verdict, detail],
                                color: color(r),
                            }
                        }
                        None => Cell {
                            lines: vec!["-".into()],
                            color: (255, 255, 255),
                        },
                    }
                })
                .collect()
        })
        .collect();
    let title = format!(
        "robustness (issue 16): every model on its defaults{}",
        if plan.quick {
            " — quick durations, verdicts provisional"
        } else {
            ""
        }
    );
    let grid = Grid {
        title: &title,
        row_labels: models.iter().map(|m| m.to_string()).collect(),
        column_labels: SceneClass::ALL.iter().map(|&c| heading(c, plan)).collect(),
        cells,
        legend: COLORS.iter().map(|(m, c)| (m.to_string(), *c)).collect(),
    };
    cx.grid_plot("robustness.png", &grid);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_never_hold_a_separator() {
        assert_eq!(field("a, b\nc"), "a; b;c");
        assert_eq!(optional(None), "");
        assert_eq!(CSV_HEADER.split(',').count(), 21);
    }
}
