//! `signorini experiment humanoid`: Drumwright's 26-degree-of-freedom humanoid on a
//! differential-drive base (`signorini::experiments::humanoid`, docs/multibody.md "Drumwright's
//! humanoid"), 2,500 steps under penalty contact and under Stewart–Trinkle on the tree, timed
//! beside the paper's table.
use super::{first_failure, under_tree_models, Context};
use crate::{input_error, Failure};
use anyhow::anyhow;
use signorini::experiments::humanoid::{
    travel_bound, Humanoid, HumanoidRun, PAPER_LCP, PAPER_PENALTY, STEPS, TIME_STEP,
};

/// The robot file, under the examples directory.
const ROBOT: &str = "robots/humanoid.urdf";

pub(super) fn humanoid(cx: &mut Context) -> Result<(), Failure> {
    let robot = cx.robot(ROBOT)?;
    let humanoid = Humanoid::new(&robot).map_err(|e| input_error(anyhow!("{ROBOT}: {e}")))?;
    let steps = if cx.quick { STEPS / 10 } else { STEPS };
    let runs = under_tree_models(cx, |model| humanoid.run(model, steps))?;
    print_table(&runs, steps);
    let rows: Vec<String> = runs.iter().map(|(name, r)| csv_row(name, r)).collect();
    cx.csv(
        "humanoid.csv",
        "model,steps,time_step,wall_seconds,steps_per_second,distance,lateral,final_height,heading,max_tilt,tracking_rms,tracking_max,worst_joint,wheel_rate,max_penetration,mean_contacts,max_lcp_rows,failure",
        &rows,
    )?;
    first_failure("humanoid", &runs, |r| r.failure.as_ref())
}

fn print_table(runs: &[(&str, HumanoidRun)], steps: usize) {
    say!(
        "Drumwright's humanoid (26 degrees of freedom, differential-drive base, ten contact points a wheel): {steps} steps of h = {TIME_STEP} s; wheels ramped to 5 rad/s (rim bound {:.3} m), upper body on computed-torque servos",
        travel_bound(steps)
    );
    say!(
        "{:<16} {:>7} {:>10} {:>10} {:>11} {:>10} {:>12} {:>12} {:>12} {:>9} {:>9}  failure",
        "model",
        "steps",
        "steps/s",
        "travel m",
        "height m",
        "tilt rad",
        "track rms",
        "track max",
        "max pen m",
        "contacts",
        "LCP rows"
    );
    for (name, r) in runs {
        say!(
            "{:<16} {:>7} {:>10.0} {:>10.4} {:>11.3e} {:>10.4} {:>12.3e} {:>12.3e} {:>12.3e} {:>9.2} {:>9}  {}",
            name,
            r.steps,
            r.steps_per_second,
            r.distance.hypot(r.lateral),
            r.final_height,
            r.max_tilt,
            r.tracking_rms,
            r.tracking_max,
            r.max_penetration,
            r.mean_contacts,
            r.max_lcp_rows,
            r.failure.as_deref().unwrap_or("none")
        );
    }
    if let [(_, pen), (_, lcp)] = runs {
        say!(
            "speed ratio penalty / stewart-trinkle: ours {:.2} ({:.0} / {:.0} steps/s); the paper's {:.2} ({PAPER_PENALTY} / {PAPER_LCP} steps/s)",
            pen.steps_per_second / lcp.steps_per_second,
            pen.steps_per_second,
            lcp.steps_per_second,
            PAPER_PENALTY / PAPER_LCP
        );
    }
}

fn csv_row(name: &str, r: &HumanoidRun) -> String {
    format!(
        "{name},{},{TIME_STEP},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
        r.steps,
        r.wall_seconds,
        r.steps_per_second,
        r.distance,
        r.lateral,
        r.final_height,
        r.heading,
        r.max_tilt,
        r.tracking_rms,
        r.tracking_max,
        r.worst_joint,
        r.wheel_rate,
        r.max_penetration,
        r.mean_contacts,
        r.max_lcp_rows,
        r.failure.as_deref().unwrap_or("").replace(',', ";")
    )
}
