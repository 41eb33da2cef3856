//! The driver the robot experiments share (Drumwright 2008, Section IV-D: `mobile_robot`,
//! `humanoid`): a tree on the ground plane z = 0, stepped `steps` times under one of the two
//! tree contact models of `contact::tree`, a controller setting the inputs before each step,
//! timed. The driver does no physics of its own: the step is `TreePenalty::step` or
//! `TreeLcp::step`, the inputs are the controller's.
use crate::contact::tree::{
    Ground, LinkShape, TreeLcp, TreeLcpParams, TreePenalty, TreePenaltyParams, TreeStepStats,
};
use crate::multibody::{Controls, Tree, Workspace};
use std::time::Instant;

/// Which contact model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Model {
    /// `contact::tree::TreePenalty` on its defaults (multi-point penalty, linearly implicit).
    Penalty,
    /// `contact::tree::TreeLcp` on its defaults (Stewart–Trinkle on the tree).
    StewartTrinkle,
}

/// What a drive measured.
#[derive(Clone, Debug, PartialEq)]
pub struct Drive {
    /// Steps completed.
    pub steps: usize,
    /// Wall time of the steps and the controller (s), and steps per second.
    pub wall_seconds: f64,
    pub steps_per_second: f64,
    /// The deepest penetration at the start of any step (m).
    pub max_penetration: f64,
    /// Mean contact points per step.
    pub mean_contacts: f64,
    /// The largest LCP of any step (unknowns; penalty: its joint-limit LCP).
    pub max_lcp_rows: usize,
    /// The final state.
    pub q: Vec<f64>,
    pub v: Vec<f64>,
    /// The first failure (`None`: every step succeeded).
    pub failure: Option<String>,
}

/// Step `tree` from (q, v) `steps` times of length `h` (s) on the ground plane z = 0 under
/// `model`, with `control(step, q, v, controls)` called before each step (step counts from 0;
/// it may also observe the state). A step error or a non-finite state ends the drive with the
/// failure recorded; the steps before it are kept.
pub fn drive(
    tree: &Tree,
    shapes: &[LinkShape],
    (q, v): (Vec<f64>, Vec<f64>),
    model: Model,
    (steps, h): (usize, f64),
    mut control: impl FnMut(usize, &[f64], &[f64], &mut Controls),
) -> Drive {
    let (mut q, mut v) = (q, v);
    let mut controls = Controls::new(tree);
    let mut ws = Workspace::new(tree);
    let ground = Ground::at(0.0);
    let mut penalty = TreePenalty::new(
        TreePenaltyParams {
            ground,
            ..Default::default()
        },
        tree,
        h,
    )
    .expect("default penalty parameters are valid");
    let mut lcp = TreeLcp::new(TreeLcpParams {
        ground,
        ..Default::default()
    })
    .expect("default LCP parameters are valid");
    let (mut done, mut failure, mut deepest, mut contacts, mut rows) = (0, None, 0.0f64, 0, 0);
    let start = Instant::now();
    for step in 0..steps {
        control(step, &q, &v, &mut controls);
        let r: Result<TreeStepStats, String> = match model {
            Model::Penalty => penalty
                .step(tree, &mut ws, shapes, (&mut q, &mut v), &controls, h)
                .map_err(|e| e.to_string()),
            Model::StewartTrinkle => lcp
                .step(tree, &mut ws, shapes, (&mut q, &mut v), &controls, h)
                .map_err(|e| e.to_string()),
        };
        match r {
            Ok(s) => {
                deepest = deepest.max(s.max_penetration);
                contacts += s.contacts;
                rows = rows.max(s.lcp_rows);
                done += 1;
            }
            Err(e) => {
                failure = Some(format!("step {}: {e}", done + 1));
                break;
            }
        }
        if !q.iter().chain(&v).all(|x| x.is_finite()) {
            failure = Some(format!("step {done}: the state is not finite"));
            break;
        }
    }
    let wall = start.elapsed().as_secs_f64();
    Drive {
        steps: done,
        wall_seconds: wall,
        steps_per_second: done as f64 / wall.max(1e-12),
        max_penetration: deepest,
        mean_contacts: contacts as f64 / done.max(1) as f64,
        max_lcp_rows: rows,
        q,
        v,
        failure,
    }
}
