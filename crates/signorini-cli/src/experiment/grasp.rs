//! `signorini experiment grasp`: a manipulator from URDF grasps a box on the ground and lifts it
//! (`signorini::experiments::grasp`, docs/multibody.md "A manipulator grasps a box"), under
//! penalty contact and under Stewart–Trinkle on the tree: lift, slip, penetration, steps/s,
//! and the heights of the box and of the grasp centre over time.
use super::{first_failure, lines, under_tree_models, Context};
use crate::plot::{Axes, Series};
use crate::{input_error, Failure};
use anyhow::anyhow;
use signorini::experiments::grasp::{steps, Grasp, LIFT, TIME_STEP};
use signorini::multibody::urdf::UrdfOptions;

/// The robot file, under the examples directory.
const ROBOT: &str = "robots/gripper_arm.urdf";

pub(super) fn grasp(cx: &mut Context) -> Result<(), Failure> {
    let options = UrdfOptions {
        floating_base: false,
        ..Default::default()
    };
    let robot = cx.robot_with(ROBOT, &options)?;
    let grasp = Grasp::new(&robot).map_err(|e| input_error(anyhow!("{ROBOT}: {e}")))?;
    let n = steps();
    let runs = under_tree_models(cx, |model| grasp.run(model, n))?;
    say!(
        "A gripper arm (URDF, fixed base) lifts a 5 cm, 0.1 kg box by {LIFT} m: {n} steps of h = {TIME_STEP} s, fingers squeezing about 5 N each, friction 1"
    );
    say!(
        "{:<16} {:>7} {:>10} {:>10} {:>11} {:>11} {:>12} {:>9} {:>9}  failure",
        "model",
        "steps",
        "steps/s",
        "lift m",
        "slip m",
        "tilt rad",
        "max pen m",
        "contacts",
        "LCP rows"
    );
    for (name, r) in &runs {
        say!(
            "{:<16} {:>7} {:>10.0} {:>10.5} {:>11.3e} {:>11.3e} {:>12.3e} {:>9.2} {:>9}  {}",
            name,
            r.steps,
            r.steps_per_second,
            r.lift,
            r.slip,
            r.box_tilt,
            r.max_penetration,
            r.mean_contacts,
            r.max_lcp_rows,
            r.failure.as_deref().unwrap_or("none")
        );
    }
    let rows: Vec<String> = (runs.iter())
        .map(|(name, r)| {
            format!(
                "{name},{},{TIME_STEP},{},{},{},{},{},{},{},{},{}",
                r.steps,
                r.wall_seconds,
                r.steps_per_second,
                r.lift,
                r.slip,
                r.box_tilt,
                r.max_penetration,
                r.mean_contacts,
                r.max_lcp_rows,
                r.failure.as_deref().unwrap_or("").replace(',', ";")
            )
        })
        .collect();
    cx.csv(
        "grasp.csv",
        "model,steps,time_step,wall_seconds,steps_per_second,lift,slip,box_tilt,max_penetration,mean_contacts,max_lcp_rows,failure",
        &rows,
    )?;
    let trace: Vec<String> = (runs.iter())
        .flat_map(|(name, r)| {
            (r.trace.iter()).map(move |[t, b, g, f]| format!("{name},{t},{b},{g},{f}"))
        })
        .collect();
    cx.csv(
        "grasp_trace.csv",
        "model,time,box_z,grasp_z,finger_opening",
        &trace,
    )?;
    let mut series = Vec::new();
    for (name, r) in &runs {
        let curve = |what: &str, k: usize| Series {
            label: format!("{what}, {name}"),
            points: r.trace.iter().map(|s| (s[0], s[k])).collect(),
        };
        series.push(curve("box centre", 1));
        series.push(curve("grasp centre", 2));
    }
    cx.plot(
        "grasp.png",
        &Axes {
            title: "gripper arm lifting a box: heights of the box and of the grasp centre",
            x_label: "time (s)",
            y_label: "height (m)",
            log_x: false,
            log_y: false,
        },
        &lines(&series),
    );
    first_failure("grasp", &runs, |r| r.failure.as_ref())
}
