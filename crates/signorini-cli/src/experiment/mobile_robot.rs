//! `signorini experiment mobile-robot`: Drumwright's differential-drive robot on a plane
//! (`signorini::experiments::mobile_robot`, docs/multibody.md "Contact"), 2,500 steps under
//! penalty contact and under Stewart–Trinkle on the tree, timed beside the paper's table.
use super::{first_failure, under_tree_models, Context};
use crate::Failure;
use signorini::experiments::mobile_robot::{
    run, RobotRun, PAPER_LCP, PAPER_PENALTY, STEPS, TIME_STEP,
};

/// The robot file, under the examples directory.
const ROBOT: &str = "robots/diff_drive.urdf";

pub(super) fn mobile_robot(cx: &mut Context) -> Result<(), Failure> {
    let robot = cx.robot(ROBOT)?;
    let steps = if cx.quick { STEPS / 10 } else { STEPS };
    let runs = under_tree_models(cx, |model| run(&robot, model, steps))?;
    print_table(&runs, steps);
    let rows: Vec<String> = runs.iter().map(|(name, r)| csv_row(name, r)).collect();
    cx.csv(
        "mobile-robot.csv",
        "model,steps,time_step,wall_seconds,steps_per_second,distance,final_height,max_penetration,mean_contacts,final_speed,wheel_rate,failure",
        &rows,
    )?;
    first_failure("mobile robot", &runs, |r| r.failure.as_ref())
}

fn print_table(runs: &[(&str, RobotRun)], steps: usize) {
    say!(
        "Drumwright's mobile robot (differential drive, ten contact points a wheel): {steps} steps of h = {TIME_STEP} s, wheels driven at 5 rad/s"
    );
    say!(
        "{:<16} {:>7} {:>10} {:>10} {:>11} {:>12} {:>10} {:>10}  failure",
        "model",
        "steps",
        "steps/s",
        "travel m",
        "height m",
        "max pen m",
        "contacts",
        "wheel r/s"
    );
    for (name, r) in runs {
        say!(
            "{:<16} {:>7} {:>10.0} {:>10.4} {:>11.3e} {:>12.3e} {:>10.2} {:>10.3}  {}",
            name,
            r.steps,
            r.steps_per_second,
            r.distance,
            r.final_height,
            r.max_penetration,
            r.mean_contacts,
            r.wheel_rate,
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

fn csv_row(name: &str, r: &RobotRun) -> String {
    format!(
        "{name},{},{TIME_STEP},{},{},{},{},{},{},{},{},{}",
        r.steps,
        r.wall_seconds,
        r.steps_per_second,
        r.distance,
        r.final_height,
        r.max_penetration,
        r.mean_contacts,
        r.final_speed,
        r.wheel_rate,
        r.failure.as_deref().unwrap_or("").replace(',', ";")
    )
}
