//! A whole run of an articulated tree (a URDF robot, issue 18 items 4–5): step a [`Tree`] to its
//! duration, streaming `trajectory.csv` (joint
//! positions, velocities and applied joint forces, and every link's world pose) and
//! `metrics.csv` (energies, step time) and writing `summary.json` (energy drift, momenta, the
//! options used), as [`super::planar_run`] does for 2D scenes: same flushing, same status words,
//! a failed step ending the run with the rows before it readable. Columns: docs/outputs.md,
//! "Articulated robots".
//!
//! Contact-free (`TreeRun::ground` = None) the tree is stepped by `multibody::integrate::step`.
//! On a ground plane ([`TreeRun::place_on_ground`]: the robot moved so its lowest collision point
//! is at a given height above z = 0) it is stepped by one of the tree contact models of
//! `contact::tree` ([`TreeContactModel`]: Stewart–Trinkle's LCP with joint limits, or
//! multi-point penalty), and `metrics.csv` gains the contact columns (`METRICS_HEADER_TREE` +
//! `METRICS_CONTACT_COLUMNS`), `summary.json` the contact totals.
//! Layering: uses `multibody` (and its `urdf` import), `contact::tree`, and the scene runs' step
//! plan rule (`pipeline::adaptive::check_step_plan`).
use super::run::{remove_stale, status, RunConfig, Writer};
use super::tree_output::{safe_name, TreeOutput};
use super::Error;
use crate::contact::stewart_trinkle::Formulation;
use crate::contact::tree::ground::ground_contacts;
use crate::contact::tree::pairs::{candidate_pairs, link_contacts, LinkContact};
use crate::contact::tree::{
    Ground, GroundContact, LinkShape, PenaltyLaw, TreeHybrid, TreeHybridParams, TreeImpulse,
    TreeImpulseParams, TreeLcp, TreeLcpParams, TreePenalty, TreePenaltyParams, TreeStepStats,
};
use crate::contact::ParamInput;
use crate::multibody::algorithms::{
    forward_kinematics, kinetic_energy, momentum, potential_energy,
};
use crate::multibody::integrate::step;
use crate::multibody::urdf::UrdfRobot;
use crate::multibody::{Controls, JointKind, MbIntegrator, Schedule, Tree, Workspace};
use crate::pipeline::adaptive::check_step_plan;
use glam::{DQuat, DVec3};
use serde_json::json;
use std::fmt::Write as _;
use std::sync::atomic::Ordering;
use std::time::Instant;

/// `metrics.csv` of a tree run: one row for the initial state, then one per step.
pub const METRICS_HEADER_TREE: &str =
    "time,kinetic_energy,potential_energy,total_energy,step_seconds";

/// The columns a run on the ground appends to [`METRICS_HEADER_TREE`] (docs/outputs.md).
pub const METRICS_CONTACT_COLUMNS: &str = "contacts,penetrating,max_penetration,limit_rows,lcp_rows,solver,solver_iterations,solver_residual,solver_failed";

/// The contact model of a tree on the ground, with its parameters.
#[derive(Clone, Debug, PartialEq)]
pub enum TreeContactModel {
    /// `stewart-trinkle` (also `anitescu-potra`, `anitescu-convex` and `peg`, by its
    /// parameters): the velocity-level LCP on the tree (`contact::tree::lcp`, `peg`), joint
    /// limits as rows of the same LCP; integrates by semi-implicit Euler.
    StewartTrinkle(TreeLcpParams),
    /// `multi-point`, `deepest-point` or `hunt-crossley` (`TreePenaltyParams::law`): penalty
    /// (`contact::tree::penalty`), its forces linearly implicit, joint limits as rows of a small
    /// LCP; integrates by its own linearly implicit Euler (q⁺ = q ⊕ h v⁺).
    Penalty(TreePenaltyParams),
    /// `impulse`: sequential impulses of a collision law with Mirtich's articulated collision
    /// matrix (`contact::tree::impulse`), one pass a step; integrates by semi-implicit Euler.
    Impulse(TreeImpulseParams),
    /// `hybrid`: Drumwright's hybrid (`contact::tree::hybrid`), impulses for impacts and
    /// multi-point penalty for resting contact, per pair; integrates as the penalty model.
    Hybrid(TreeHybridParams),
}

impl TreeContactModel {
    /// The models a tree supports, the default first.
    pub const NAMES: [&'static str; 9] = [
        "stewart-trinkle",
        "anitescu-potra",
        "anitescu-convex",
        "peg",
        "multi-point",
        "deepest-point",
        "hunt-crossley",
        "impulse",
        "hybrid",
    ];

    /// The model of that name with its default parameters; `None` for a model a tree does not
    /// support.
    pub fn by_name(name: &str) -> Option<TreeContactModel> {
        match name {
            "stewart-trinkle" => Some(TreeContactModel::StewartTrinkle(TreeLcpParams::default())),
            "anitescu-potra" => Some(TreeContactModel::StewartTrinkle(TreeLcpParams {
                formulation: Formulation::AnitescuPotra,
                ..TreeLcpParams::default()
            })),
            "anitescu-convex" => Some(TreeContactModel::StewartTrinkle(TreeLcpParams {
                convex: true,
                ..TreeLcpParams::default()
            })),
            "peg" => Some(TreeContactModel::StewartTrinkle(TreeLcpParams {
                peg: true,
                ..TreeLcpParams::default()
            })),
            "impulse" => Some(TreeContactModel::Impulse(TreeImpulseParams::default())),
            "hybrid" => Some(TreeContactModel::Hybrid(TreeHybridParams::default())),
            _ => PenaltyLaw::from_name(name).map(|law| {
                TreeContactModel::Penalty(TreePenaltyParams {
                    law,
                    ..TreePenaltyParams::default()
                })
            }),
        }
    }

    pub fn name(&self) -> &'static str {
        match self {
            TreeContactModel::StewartTrinkle(p) if p.convex => "anitescu-convex",
            TreeContactModel::StewartTrinkle(p) if p.peg => "peg",
            TreeContactModel::StewartTrinkle(p) => match p.formulation {
                Formulation::StewartTrinkle => "stewart-trinkle",
                Formulation::AnitescuPotra => "anitescu-potra",
            },
            TreeContactModel::Penalty(p) => p.law.name(),
            TreeContactModel::Impulse(_) => "impulse",
            TreeContactModel::Hybrid(_) => "hybrid",
        }
    }

    /// The ground plane the model steps against.
    pub fn ground(&self) -> Ground {
        match self {
            TreeContactModel::StewartTrinkle(p) => p.ground,
            TreeContactModel::Penalty(p) => p.ground,
            TreeContactModel::Impulse(p) => p.ground,
            TreeContactModel::Hybrid(p) => p.impulse.ground,
        }
    }

    /// Set the ground plane (m, world z).
    pub fn set_ground(&mut self, ground: Ground) {
        match self {
            TreeContactModel::StewartTrinkle(p) => p.ground = ground,
            TreeContactModel::Penalty(p) => p.ground = ground,
            TreeContactModel::Impulse(p) => p.ground = ground,
            TreeContactModel::Hybrid(p) => p.set_ground(ground),
        }
    }

    /// How far apart (m) a contact point is still within the model's reach: the LCP's
    /// activation distance; penalty acts on penetrating points only (0).
    pub fn reach(&self) -> f64 {
        match self {
            TreeContactModel::StewartTrinkle(p) => p.activation_distance,
            TreeContactModel::Penalty(_) => 0.0,
            TreeContactModel::Impulse(p) => p.activation_distance,
            TreeContactModel::Hybrid(p) => p.impulse.activation_distance,
        }
    }

    /// Whether the links of one body touch each other (`contact::tree::pairs`).
    pub fn self_contact(&self) -> bool {
        match self {
            TreeContactModel::StewartTrinkle(p) => p.self_contact,
            TreeContactModel::Penalty(p) => p.self_contact,
            TreeContactModel::Impulse(p) => p.self_contact,
            TreeContactModel::Hybrid(p) => p.penalty.self_contact,
        }
    }

    /// Set one of the model's parameters (`contact::tree::params`: names, units, ranges).
    pub fn set(&mut self, name: &str, value: &ParamInput) -> Result<(), String> {
        match self {
            TreeContactModel::StewartTrinkle(p) => p.set(name, value),
            TreeContactModel::Penalty(p) => p.set(name, value),
            TreeContactModel::Impulse(p) => p.set(name, value),
            TreeContactModel::Hybrid(p) => p.set(name, value),
        }
    }

    /// The parameters in effect, for `summary.json` (derived penalty gains as `null`: the
    /// summary's `contact.stiffness` / `contact.damping` give the values used).
    fn parameters_json(&self) -> serde_json::Value {
        match self {
            TreeContactModel::StewartTrinkle(p) => json!({
                "friction_directions": p.friction_directions,
                "activation_distance": p.activation_distance,
                "limit_activation": p.limit_activation,
                "max_recovery_speed": p.max_recovery_speed,
                "tolerance": p.tolerance,
                "slip_passes": p.slip_passes,
                "recovery_depth": p.recovery_depth,
                "applicability_angle": p.applicability_angle,
                "solvers": p.solvers,
                "on_failure": p.on_failure,
            }),
            TreeContactModel::Penalty(p) => json!({
                "stiffness": p.stiffness,
                "damping": p.damping,
                "omega_h": p.omega_h,
                "damping_ratio": p.damping_ratio,
                "slip_speed": p.slip_speed,
                "point": if p.weighted { "weighted" } else { "deepest" },
                "restitution": p.restitution,
            }),
            TreeContactModel::Impulse(p) => json!({
                "law": p.law.name(),
                "restitution": p.restitution,
                "activation_distance": p.activation_distance,
                "limit_activation": p.limit_activation,
                "max_sweeps": p.max_sweeps,
                "tolerance": p.tolerance,
                "max_recovery_speed": p.max_recovery_speed,
                "on_failure": p.on_failure,
            }),
            TreeContactModel::Hybrid(p) => json!({
                "impact_speed": p.impact_speed,
                "law": p.impulse.law.name(),
                "restitution": p.impulse.restitution,
                "activation_distance": p.impulse.activation_distance,
                "max_sweeps": p.impulse.max_sweeps,
                "stiffness": p.penalty.stiffness,
                "damping": p.penalty.damping,
                "omega_h": p.penalty.omega_h,
                "damping_ratio": p.penalty.damping_ratio,
                "slip_speed": p.penalty.slip_speed,
            }),
        }
    }
}

/// The ground plane a tree run stands on (set by [`TreeRun::place_on_ground`]).
#[derive(Clone, Debug)]
pub struct TreeGround {
    pub model: TreeContactModel,
    /// The link shapes that can touch the ground: those on links that some joint moves (a shape
    /// welded to the world can neither be pushed nor move).
    pub shapes: Vec<LinkShape>,
    /// Shapes left out because nothing moves them (drawn in `scene.json` and the replay page,
    /// never touching).
    pub welded: Vec<LinkShape>,
    /// Coulomb friction coefficient of every shape against the ground (–).
    pub friction: f64,
    /// How far the robot was moved along world z to stand where asked (m; 0 for a robot hung
    /// from the URDF's `world` link, which stays where its URDF puts it).
    pub shift: f64,
    /// Height of the lowest collision point above the ground at the start (m).
    pub clearance: f64,
}

/// What to run: a tree, the name of each link's joint (its columns), the initial state, the
/// controls, the step and the integrator.
#[derive(Clone, Debug)]
pub struct TreeRun {
    /// What the run is of (the URDF file), for `summary.json`.
    pub source: String,
    pub tree: Tree,
    /// The name of the joint that moves each tree link (in link order): its columns are
    /// `q_<name>…`. A URDF joint's name, or the root link's name for the joint the import adds
    /// between the root and the world. Commas, quotes and line breaks become `_` in the header.
    pub joint_names: Vec<String>,
    /// Initial q (length nq) and v (length nv), in the tree's layout (docs/multibody.md).
    pub q0: Vec<f64>,
    pub v0: Vec<f64>,
    /// Torque inputs and PD actuators at the start; joint damping is the tree's.
    pub controls: Controls,
    /// What of the controls follows time (a scene's servos and torques), set before each
    /// step; empty for a URDF run.
    pub schedule: Schedule,
    /// s, > 0.
    pub time_step: f64,
    /// s, a whole number of steps.
    pub duration: f64,
    pub integrator: MbIntegrator,
    /// The caller's choices as written (the CLI's flags), copied into `summary.json`'s `options`.
    pub options: serde_json::Value,
    /// `None`: contact-free. Otherwise the ground plane z = 0 and the contact model
    /// ([`TreeRun::place_on_ground`]).
    pub ground: Option<TreeGround>,
}

/// Why a step of a tree run failed: the step, its start time and what went wrong.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("step {step} (from t = {time} s): {message}")]
pub struct TreeStepError {
    /// 1-based: the step that failed.
    pub step: u64,
    pub time: f64,
    pub message: String,
}

/// Totals of a tree run (also written to `summary.json`).
#[derive(Clone, Debug, PartialEq)]
pub struct TreeRunSummary {
    pub steps: u64,
    pub simulated_time: f64,
    pub wall_time: f64,
    pub steps_per_second: f64,
    /// Total energy (kinetic + potential, J) of the initial state.
    pub initial_energy: f64,
    /// max |E − E0| over the steps written (J).
    pub max_energy_change: f64,
    /// The largest kinetic energy of the run (J): the energy the motion exchanges, independent
    /// of where the potential energy's zero is.
    pub energy_scale: f64,
    /// max |E − E0| / max(|E0|, `energy_scale`); 0 when both are 0.
    pub relative_energy_drift: f64,
    /// Linear (kg m/s) and angular momentum about the world origin (kg m²/s), world axes, of the
    /// initial and of the last good state.
    pub momentum_start: (DVec3, DVec3),
    pub momentum_end: (DVec3, DVec3),
    /// The last state that passed its checks.
    pub final_q: Vec<f64>,
    pub final_v: Vec<f64>,
    /// `None` when the run reached its duration or was interrupted.
    pub error: Option<TreeStepError>,
    pub interrupted: bool,
    /// The contact totals of a run on the ground (`None`: contact-free).
    pub contact: Option<TreeContactSummary>,
}

/// Contact totals of a tree run on the ground.
#[derive(Clone, Debug, PartialEq)]
pub struct TreeContactSummary {
    /// The deepest penetration of any written state, the initial one included (m).
    pub max_penetration: f64,
    /// Steps whose LCP no solver met the tolerance on and that went on with the best answer
    /// (`on_failure = "continue"`; under "stop" the first such step ends the run).
    pub solver_failures: u64,
    /// The largest scaled residual of the LCPs used (–).
    pub max_residual: f64,
    /// Contact points per step, mean (within the model's reach: the LCP's activation distance,
    /// penalty's penetrating points).
    pub mean_contacts: f64,
    /// Steps that solved an LCP.
    pub lcp_steps: u64,
    /// Penalty: the stiffness (N/m) and damping (N s/m) per point in use.
    pub gains: Option<(f64, f64)>,
}

impl TreeRun {
    /// A run of a URDF robot: its tree at the neutral position at rest, no inputs, joints named
    /// as in the file; `time_step` and `duration` (s) as given, RK4.
    pub fn from_urdf(robot: &UrdfRobot, source: &str, time_step: f64, duration: f64) -> TreeRun {
        TreeRun {
            source: source.to_string(),
            q0: robot.tree.neutral_q(),
            v0: vec![0.0; robot.tree.nv()],
            controls: Controls::new(&robot.tree),
            schedule: Schedule::default(),
            joint_names: urdf_joint_names(robot),
            tree: robot.tree.clone(),
            time_step,
            duration,
            integrator: MbIntegrator::Rk4,
            options: json!({}),
            ground: None,
        }
    }

    /// Stand the robot on the ground plane z = 0 under `model`: every collision shape with
    /// friction coefficient `friction` (–, ≥ 0), and the robot moved along world z so that its
    /// lowest collision point at (q0, v0) is `clearance` (m, ≥ 0) above the ground — a floating
    /// base through its q0, a base welded to the world (`--fixed-base`) through its weld. A robot
    /// hung from the URDF's `world` link is not moved: its URDF says where it is. Call after
    /// setting q0. Errors: no collision geometry, bad values.
    pub fn place_on_ground(
        &mut self,
        collisions: &[crate::multibody::urdf::Collision],
        model: TreeContactModel,
        friction: f64,
        clearance: f64,
    ) -> Result<(), Error> {
        let bad = |m: String| Err(Error::TreeRun(m));
        if !(friction.is_finite() && friction >= 0.0) {
            return bad(format!("friction = {friction}: must be finite and >= 0"));
        }
        if !(clearance.is_finite() && clearance >= 0.0) {
            return bad(format!("height {clearance} m: must be finite and >= 0"));
        }
        if collisions.is_empty() {
            return bad(
                "the robot has no collision geometry, so nothing of it can touch the \
                 ground; give its links <collision> elements, or run it contact-free"
                    .into(),
            );
        }
        self.tree.check_state(&self.q0, &self.v0)?;
        let all = crate::contact::tree::ground::shapes_of(collisions, friction);
        let lowest = lowest_point(&self.tree, &all, &self.q0, &self.v0)?;
        let shift = self.move_up(clearance - lowest)?;
        let (shapes, welded): (Vec<LinkShape>, Vec<LinkShape>) =
            all.into_iter().partition(|s| moves(&self.tree, s.link));
        self.ground = Some(TreeGround {
            model,
            shapes,
            welded,
            friction,
            shift,
            clearance: lowest + shift,
        });
        Ok(())
    }

    /// Move the robot up by `dz` (m, world z): a floating root through q0, a welded root
    /// through its joint frame; a root on another joint (hung from `world`) is not moved.
    /// Returns the move made.
    fn move_up(&mut self, dz: f64) -> Result<f64, Error> {
        let root = &self.tree.links()[0];
        let roots = self
            .tree
            .links()
            .iter()
            .filter(|l| l.parent.is_none())
            .count();
        if roots != 1 {
            return Ok(0.0);
        }
        match root.joint {
            JointKind::Floating => {
                // q's position is the root's origin in the joint frame: world z in those axes.
                let up = root.joint_frame.rotation.inverse() * DVec3::new(0.0, 0.0, dz);
                let o = self.tree.q_offset(0);
                for (k, d) in up.to_array().into_iter().enumerate() {
                    self.q0[o + k] += d;
                }
                Ok(dz)
            }
            JointKind::Fixed => {
                let mut links = self.tree.links().to_vec();
                links[0].joint_frame.translation.z += dz;
                self.tree = Tree::new(links, self.tree.gravity)?;
                Ok(dz)
            }
            _ => Ok(0.0),
        }
    }

    /// Set a revolute or prismatic joint's initial position (rad or m) and/or velocity (rad/s
    /// or m/s). Errors: no joint of that name (the message lists them), a joint of another kind.
    pub fn set_initial(
        &mut self,
        joint: &str,
        position: Option<f64>,
        velocity: Option<f64>,
    ) -> Result<(), Error> {
        let Some(i) = self.joint_names.iter().position(|n| n == joint) else {
            let movable: Vec<&str> = (0..self.tree.len())
                .filter(|&i| self.tree.links()[i].joint.nv() == 1)
                .map(|i| self.joint_names[i].as_str())
                .collect();
            return Err(Error::TreeRun(format!(
                "no joint `{joint}` in the tree; its revolute and prismatic joints are: {}",
                if movable.is_empty() {
                    "none".to_string()
                } else {
                    movable.join(", ")
                }
            )));
        };
        let kind = self.tree.links()[i].joint;
        if kind.nv() != 1 {
            return Err(Error::TreeRun(format!(
                "joint `{joint}` is {}: only revolute and prismatic joints take an initial value",
                kind.name()
            )));
        }
        let finite = |x: Option<f64>| x.map_or(true, f64::is_finite);
        if !(finite(position) && finite(velocity)) {
            return Err(Error::TreeRun(format!(
                "joint `{joint}`: initial values must be finite"
            )));
        }
        if let Some(p) = position {
            self.q0[self.tree.q_offset(i)] = p;
        }
        if let Some(w) = velocity {
            self.v0[self.tree.v_offset(i)] = w;
        }
        Ok(())
    }

    /// Number of steps: the nearest whole number of duration / time step.
    pub fn planned_steps(&self) -> u64 {
        (self.duration / self.time_step).round() as u64
    }

    /// Lengths, finite values, the step plan (as scenes check it), the controls.
    pub fn check(&self) -> Result<(), Error> {
        let bad = |m: String| Err(Error::TreeRun(m));
        if !(self.time_step.is_finite() && self.time_step > 0.0) {
            return bad(format!("time step {} s is not positive", self.time_step));
        }
        if !(self.duration.is_finite() && self.duration > 0.0) {
            return bad(format!("duration {} s is not positive", self.duration));
        }
        // The scene runs' rule: a whole number of steps, at least one, at most MAX_STEPS.
        if let Err((problem, help)) = check_step_plan(self.duration, self.time_step) {
            return bad(format!("{problem}\n  help: {help}"));
        }
        if self.joint_names.len() != self.tree.len() {
            return bad(format!(
                "{} joint names for {} links",
                self.joint_names.len(),
                self.tree.len()
            ));
        }
        self.tree.check_state(&self.q0, &self.v0)?;
        self.controls.check(&self.tree)?;
        let (servos, dofs) = (self.controls.pd.len(), self.tree.nv());
        if self.schedule.servos.iter().any(|(i, _)| *i >= servos)
            || self.schedule.torques.iter().any(|(d, _)| *d >= dofs)
        {
            return bad("the schedule names a servo or a degree of freedom the run lacks".into());
        }
        Stepper::new(self).map(|_| ())
    }

    /// The integrator the run steps by: the contact model's own under `stewart-trinkle`
    /// (semi-implicit Euler) and `multi-point` (linearly implicit Euler: semi-implicit Euler's
    /// position update q ⊕ h v⁺ with the forces at the end of the step), else `integrator`.
    pub fn effective_integrator(&self) -> MbIntegrator {
        match &self.ground {
            Some(_) => MbIntegrator::SemiImplicitEuler,
            None => self.integrator,
        }
    }

    /// The integrator's name in `summary.json`.
    fn integrator_name(&self) -> &'static str {
        match (&self.ground, self.effective_integrator()) {
            (
                Some(TreeGround {
                    model: TreeContactModel::Penalty(_) | TreeContactModel::Hybrid(_),
                    ..
                }),
                _,
            ) => "linearly-implicit-euler",
            (_, MbIntegrator::Rk4) => "rk4",
            (_, MbIntegrator::SemiImplicitEuler) => "semi-implicit-euler",
        }
    }
}

/// What steps the tree: its integrator alone, or a contact model with its scratch.
enum Stepper {
    Free,
    Lcp(Box<TreeLcp>),
    Penalty(Box<TreePenalty>),
    Impulse(Box<TreeImpulse>),
    Hybrid(Box<TreeHybrid>),
}

impl Stepper {
    /// The run's contact model built from its parameters (errors name the parameter).
    fn new(run: &TreeRun) -> Result<Stepper, Error> {
        let Some(g) = &run.ground else {
            return Ok(Stepper::Free);
        };
        let at = |e: String| Error::TreeRun(format!("{}: {e}", g.model.name()));
        Ok(match &g.model {
            TreeContactModel::StewartTrinkle(p) => {
                Stepper::Lcp(Box::new(TreeLcp::new(p.clone()).map_err(at)?))
            }
            TreeContactModel::Penalty(p) => Stepper::Penalty(Box::new(
                TreePenalty::new(*p, &run.tree, run.time_step).map_err(at)?,
            )),
            TreeContactModel::Impulse(p) => {
                Stepper::Impulse(Box::new(TreeImpulse::new(*p).map_err(at)?))
            }
            TreeContactModel::Hybrid(p) => Stepper::Hybrid(Box::new(
                TreeHybrid::new(*p, &run.tree, run.time_step).map_err(at)?,
            )),
        })
    }

    /// The penalty gains in use (N/m, N s/m), if penalty.
    fn gains(&self) -> Option<(f64, f64)> {
        match self {
            Stepper::Penalty(p) => Some((p.stiffness, p.damping)),
            Stepper::Hybrid(p) => Some(p.gains()),
            _ => None,
        }
    }
}

/// The name of each tree link's joint: the URDF joint that moves it, else (the joint the import
/// adds between the root and the world) the link's own name.
pub fn urdf_joint_names(robot: &UrdfRobot) -> Vec<String> {
    (0..robot.tree.len())
        .map(|i| {
            robot
                .joints
                .iter()
                .find(|j| j.link == Some(i))
                .map_or_else(|| robot.tree.links()[i].name.clone(), |j| j.name.clone())
        })
        .collect()
}

/// Does some joint on the path from `link` to the world move it (a degree of freedom)?
pub(super) fn moves(tree: &Tree, link: usize) -> bool {
    let mut j = Some(link);
    while let Some(i) = j {
        if tree.links()[i].joint.nv() > 0 {
            return true;
        }
        j = tree.links()[i].parent;
    }
    false
}

/// The world z (m) of the lowest point of `shapes` at (q, v).
fn lowest_point(tree: &Tree, shapes: &[LinkShape], q: &[f64], v: &[f64]) -> Result<f64, Error> {
    let mut ws = Workspace::new(tree);
    let links = forward_kinematics(tree, &mut ws, q, v)?;
    let mut points = Vec::new();
    let far = Ground::at(0.0);
    ground_contacts(shapes, links, far, f64::INFINITY, &mut points);
    Ok(points.iter().map(|c| c.gap).fold(f64::INFINITY, f64::min))
}

/// The points of `shapes` below the ground at (q, v), and the deepest penetration (m, ≥ 0).
fn penetration(
    tree: &Tree,
    ws: &mut Workspace,
    g: &TreeGround,
    (q, v): (&[f64], &[f64]),
    (ground, pairs): &mut (Vec<GroundContact>, Vec<LinkContact>),
) -> Result<(usize, f64), Error> {
    let links = forward_kinematics(tree, ws, q, v)?;
    ground_contacts(&g.shapes, links, g.model.ground(), 0.0, ground);
    let candidates = candidate_pairs(tree, &g.shapes, g.model.self_contact());
    link_contacts(&g.shapes, &candidates, links, 0.0, pairs);
    let gaps = ground
        .iter()
        .map(|c| c.gap)
        .chain(pairs.iter().map(|c| c.gap));
    let deepest = gaps.map(|gap| -gap).fold(0.0, f64::max);
    Ok((ground.len() + pairs.len(), deepest))
}

/// The suffixes of a joint's q, v and τ columns (empty: the joint's one column is unsuffixed).
fn suffixes(
    kind: &JointKind,
) -> (
    &'static [&'static str],
    &'static [&'static str],
    &'static [&'static str],
) {
    match kind {
        JointKind::Revolute { .. } | JointKind::Prismatic { .. } => (&[""], &[""], &[""]),
        JointKind::Fixed => (&[], &[], &[]),
        JointKind::Ball => (
            &["_qx", "_qy", "_qz", "_qw"],
            &["_wx", "_wy", "_wz"],
            &["_mx", "_my", "_mz"],
        ),
        JointKind::Floating => (
            &["_x", "_y", "_z", "_qx", "_qy", "_qz", "_qw"],
            &["_wx", "_wy", "_wz", "_vx", "_vy", "_vz"],
            &["_mx", "_my", "_mz", "_fx", "_fy", "_fz"],
        ),
    }
}

/// `trajectory.csv`'s header for `run`: time; every joint's q, then every joint's v, then every
/// joint's τ (joints without degrees of freedom have none); then every link's world pose.
pub fn trajectory_header(run: &TreeRun) -> String {
    let mut h = String::from("time");
    let links = run.tree.links();
    for (block, prefix) in [(0, "q_"), (1, "v_"), (2, "tau_")] {
        for (link, name) in links.iter().zip(&run.joint_names) {
            let s = suffixes(&link.joint);
            let list = [s.0, s.1, s.2][block];
            for suffix in list {
                let _ = write!(h, ",{prefix}{}{suffix}", safe_name(name));
            }
        }
    }
    for link in links {
        let n = safe_name(&link.name);
        for c in ["x", "y", "z", "qx", "qy", "qz", "qw"] {
            let _ = write!(h, ",{c}_{n}");
        }
    }
    h
}

/// One trajectory row of (q, v) at `time`, and the replay files' rows of the same state from
/// the same forward kinematics (`tree_output`); `tau` is scratch of length nv.
fn trajectory_row(
    (run, controls): (&TreeRun, &Controls),
    ws: &mut Workspace,
    (time, q, v): (f64, &[f64], &[f64]),
    tau: &mut [f64],
    (w, output): (&mut Writer, &mut TreeOutput),
) -> Result<(), Error> {
    let mut s = String::with_capacity(32 * (1 + q.len() + 2 * v.len() + 7 * run.tree.len()));
    let _ = write!(s, "{time}");
    controls.joint_forces(&run.tree, q, v, tau);
    for x in q.iter().chain(v).chain(tau.iter()) {
        let _ = write!(s, ",{x}");
    }
    let links = forward_kinematics(&run.tree, ws, q, v)?;
    for k in links {
        let r = DQuat::from_mat3(&k.rotation).normalize();
        let p = k.position;
        let _ = write!(
            s,
            ",{},{},{},{},{},{},{}",
            p.x, p.y, p.z, r.x, r.y, r.z, r.w
        );
    }
    w.line(&s)?;
    output.row(run, links, time)
}

/// (kinetic, potential) energy (J) of (q, v).
fn energies(run: &TreeRun, ws: &mut Workspace, q: &[f64], v: &[f64]) -> Result<(f64, f64), Error> {
    Ok((
        kinetic_energy(&run.tree, ws, q, v)?,
        potential_energy(&run.tree, ws, q)?,
    ))
}

/// Running energy and momentum figures.
struct Tally {
    e0: f64,
    max_change: f64,
    max_kinetic: f64,
}

impl Tally {
    fn add(&mut self, kinetic: f64, potential: f64) {
        self.max_change = self.max_change.max((kinetic + potential - self.e0).abs());
        self.max_kinetic = self.max_kinetic.max(kinetic);
    }

    fn relative(&self) -> f64 {
        let d = self.e0.abs().max(self.max_kinetic);
        if d > 0.0 {
            self.max_change / d
        } else {
            0.0
        }
    }
}

/// The first joint whose q or v is not finite, for a failed step's diagnosis.
fn first_non_finite(run: &TreeRun, q: &[f64], v: &[f64]) -> Option<String> {
    (0..run.tree.len()).find_map(|i| {
        let bad = !run.tree.joint_q(i, q).iter().all(|x| x.is_finite())
            || !run.tree.joint_v(i, v).iter().all(|x| x.is_finite());
        bad.then(|| run.joint_names[i].clone())
    })
}

/// One step from (q, v) (left unchanged when it fails) by `stepper`, taken in the scratch state
/// `next` (swapped in on success: no allocation a step); `Err` names what went wrong.
fn advance(
    (run, c): (&TreeRun, &Controls),
    ws: &mut Workspace,
    stepper: &mut Stepper,
    (q, v): (&mut Vec<f64>, &mut Vec<f64>),
    (q1, v1): (&mut Vec<f64>, &mut Vec<f64>),
) -> Result<TreeStepStats, String> {
    q1.copy_from_slice(q);
    v1.copy_from_slice(v);
    let h = run.time_step;
    let blowup = |e: &dyn std::fmt::Display| {
        format!(
            "{e} (the state before the step was finite: a joint inertia that degenerates this \
             way is a blow-up of the motion; try a smaller time step, --dt)"
        )
    };
    let tree = &run.tree;
    let shapes = run.ground.as_ref().map_or(&[][..], |g| &g.shapes[..]);
    // The penalty step is stable for any gains; what can still go wrong is a limit LCP no
    // solver solves or a motion too fast for h.
    let penalty_hint = match stepper {
        Stepper::Penalty(_) => "; under multi-point, a smaller --dt or lower --param omega_h",
        _ => "",
    };
    let stats = match stepper {
        Stepper::Free => step(tree, ws, q1, v1, c, h, run.integrator)
            .map(|_| TreeStepStats::default())
            .map_err(|e| blowup(&e))?,
        Stepper::Penalty(p) => p
            .step(tree, ws, shapes, (q1, v1), c, h)
            .map_err(|e| blowup(&e) + penalty_hint)?,
        Stepper::Hybrid(m) => m
            .step(tree, ws, shapes, (q1, v1), c, h)
            .map_err(|e| blowup(&e) + penalty_hint)?,
        Stepper::Impulse(i) => i
            .step(tree, ws, shapes, (q1, v1), c, h)
            .map_err(|e| e.to_string())?,
        Stepper::Lcp(l) => l.step(tree, ws, shapes, (q1, v1), c, h).map_err(|e| {
            format!(
                "{e} (on a URDF run: --param solvers=NAME,... changes the order, --param \
                 on_failure=continue goes on with the best answer, or try a smaller --dt)"
            )
        })?,
    };
    if let Some(joint) = first_non_finite(run, q1, v1) {
        return Err(format!(
            "the state is not finite after the step (joint `{joint}` first): the motion is too \
             fast for h = {h} s or a joint's inertia is too small for its load; try a smaller \
             time step (--dt), or check the URDF's inertials{penalty_hint}"
        ));
    }
    std::mem::swap(q, q1);
    std::mem::swap(v, v1);
    Ok(stats)
}

/// Running contact figures of a run on the ground.
#[derive(Default)]
struct ContactTally {
    /// Deepest penetration of any row's state (m).
    max_penetration: f64,
    /// Steps whose LCP was used unsolved (`on_failure = "continue"`).
    solver_failures: u64,
    max_residual: f64,
    /// Σ contact points over the steps, and the steps that had an LCP.
    contacts: u64,
    lcp_steps: u64,
    scratch: (Vec<GroundContact>, Vec<LinkContact>),
}

impl ContactTally {
    /// The contact columns of a row: `stats` of the step that ended in (q, v), the penetration
    /// of (q, v).
    fn columns(
        &mut self,
        run: &TreeRun,
        ws: &mut Workspace,
        (q, v): (&[f64], &[f64]),
        s: &TreeStepStats,
    ) -> Result<String, Error> {
        let Some(g) = &run.ground else {
            return Ok(String::new());
        };
        let (below, deepest) = penetration(&run.tree, ws, g, (q, v), &mut self.scratch)?;
        self.max_penetration = self.max_penetration.max(deepest);
        self.solver_failures += s.failed as u64;
        self.max_residual = self.max_residual.max(s.residual);
        self.contacts += s.contacts as u64;
        self.lcp_steps += (s.lcp_rows > 0) as u64;
        Ok(format!(
            ",{},{below},{deepest},{},{},{},{},{},{}",
            s.contacts,
            s.limit_rows,
            s.lcp_rows,
            s.solver,
            s.iterations,
            s.residual,
            s.failed as u8
        ))
    }
}

/// Run `run` from its initial state to its duration, writing `trajectory.csv` (every
/// `cfg.trajectory_interval` seconds, 0 = every step; the last step always), `metrics.csv`
/// (every step) and `summary.json` into `cfg.out_dir`; `progress(done, total)` after each step.
/// A bad run (`TreeRun::check`) is `Err` before any file is written; a step's failure ends the
/// run with the files of the steps before it and is returned in the summary; otherwise only
/// output errors are `Err`.
pub fn run_tree(
    cfg: &RunConfig,
    run: &TreeRun,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<TreeRunSummary, Error> {
    run.check()?;
    std::fs::create_dir_all(cfg.out_dir).map_err(|source| Error::Io {
        path: cfg.out_dir.to_path_buf(),
        source,
    })?;
    for stale in [
        "summary.json",
        "scene.json",
        "contacts.csv",
        "impulses.csv",
        super::tree_output::LINK_POSES_FILE,
    ] {
        remove_stale(&cfg.out_dir.join(stale))?;
    }
    let mut traj = Writer::create(cfg.out_dir.join("trajectory.csv"), &trajectory_header(run))?;
    let header = match run.ground {
        None => METRICS_HEADER_TREE.to_string(),
        Some(_) => format!("{METRICS_HEADER_TREE},{METRICS_CONTACT_COLUMNS}"),
    };
    let mut metrics = Writer::create(cfg.out_dir.join("metrics.csv"), &header)?;
    let mut stepper = Stepper::new(run)?;
    let mut contact = ContactTally::default();
    let (tree, h) = (&run.tree, run.time_step);
    let mut ws = Workspace::new(tree);
    let mut output = TreeOutput::create(cfg, run, &mut ws)?;
    let mut tau = vec![0.0; tree.nv()];
    let (mut q, mut v) = (run.q0.clone(), run.v0.clone());
    let (mut q_next, mut v_next) = (q.clone(), v.clone());
    let mut controls = run.controls.clone();
    run.schedule.apply(0.0, &mut controls);
    let (ke, pe) = energies(run, &mut ws, &q, &v)?;
    let none = TreeStepStats::default();
    let columns = contact.columns(run, &mut ws, (&q, &v), &none)?;
    metrics.line(&format!("0,{ke},{pe},{},0{columns}", ke + pe))?;
    trajectory_row(
        (run, &controls),
        &mut ws,
        (0.0, &q, &v),
        &mut tau,
        (&mut traj, &mut output),
    )?;
    let mut tally = Tally {
        e0: ke + pe,
        max_change: 0.0,
        max_kinetic: ke,
    };
    let momentum_start = momentum(tree, &mut ws, &q, &v)?;
    let total = run.planned_steps();
    let start = Instant::now();
    let mut last_flush = start;
    let (mut steps, mut last_traj, mut error, mut interrupted) = (0u64, 0.0, None, false);
    while steps < total {
        if cfg.interrupt.is_some_and(|f| f.load(Ordering::Relaxed)) {
            interrupted = true;
            break;
        }
        let clock = Instant::now();
        run.schedule.apply(steps as f64 * h, &mut controls);
        let stats = match advance(
            (run, &controls),
            &mut ws,
            &mut stepper,
            (&mut q, &mut v),
            (&mut q_next, &mut v_next),
        ) {
            Ok(stats) => stats,
            Err(message) => {
                let time = steps as f64 * h;
                error = Some(TreeStepError {
                    step: steps + 1,
                    time,
                    message,
                });
                break;
            }
        };
        let seconds = clock.elapsed().as_secs_f64();
        steps += 1;
        let time = steps as f64 * h;
        let (ke, pe) = energies(run, &mut ws, &q, &v)?;
        tally.add(ke, pe);
        let columns = contact.columns(run, &mut ws, (&q, &v), &stats)?;
        metrics.line(&format!("{time},{ke},{pe},{},{seconds}{columns}", ke + pe))?;
        if time - last_traj >= cfg.trajectory_interval - 1e-9 * h || steps == total {
            trajectory_row(
                (run, &controls),
                &mut ws,
                (time, &q, &v),
                &mut tau,
                (&mut traj, &mut output),
            )?;
            last_traj = time;
        }
        if steps % 256 == 0 || last_flush.elapsed().as_secs_f64() >= 1.0 {
            traj.flush()?;
            metrics.flush()?;
            output.flush()?;
            last_flush = Instant::now();
        }
        progress(steps, total);
    }
    let time = steps as f64 * h;
    if time > last_traj && (interrupted || error.is_some()) {
        trajectory_row(
            (run, &controls),
            &mut ws,
            (time, &q, &v),
            &mut tau,
            (&mut traj, &mut output),
        )?;
    }
    traj.flush()?;
    metrics.flush()?;
    output.flush()?;
    let wall = start.elapsed().as_secs_f64();
    let summary = TreeRunSummary {
        steps,
        simulated_time: time,
        wall_time: wall,
        steps_per_second: if wall > 0.0 { steps as f64 / wall } else { 0.0 },
        initial_energy: tally.e0,
        max_energy_change: tally.max_change,
        energy_scale: tally.max_kinetic,
        relative_energy_drift: tally.relative(),
        momentum_start,
        momentum_end: momentum(tree, &mut ws, &q, &v)?,
        final_q: q,
        final_v: v,
        error,
        interrupted,
        contact: run.ground.as_ref().map(|_| TreeContactSummary {
            max_penetration: contact.max_penetration,
            solver_failures: contact.solver_failures,
            max_residual: contact.max_residual,
            mean_contacts: contact.contacts as f64 / steps.max(1) as f64,
            lcp_steps: contact.lcp_steps,
            gains: stepper.gains(),
        }),
    };
    write_summary(cfg, run, &summary)?;
    Ok(summary)
}

/// The base: on a floating joint, welded to the world, or (a URDF whose root is `world`) hung
/// from the world by its own joints.
pub fn base_kind(tree: &Tree) -> &'static str {
    match tree.links().first() {
        Some(l) if l.parent.is_none() && l.joint == JointKind::Floating => "floating",
        Some(l) if l.parent.is_none() && l.joint == JointKind::Fixed => "fixed",
        _ => "world",
    }
}

fn momentum_json((linear, angular): (DVec3, DVec3)) -> serde_json::Value {
    json!({ "linear": linear.to_array(), "angular": angular.to_array() })
}

/// `summary.json`'s `contact`: "none" for a contact-free run, else the model, its parameters,
/// the placement and the totals.
fn contact_json(run: &TreeRun, s: &TreeRunSummary) -> serde_json::Value {
    let (Some(g), Some(c)) = (&run.ground, &s.contact) else {
        return json!("none: a contact-free run (no ground plane)");
    };
    json!({
        "model": g.model.name(),
        "parameters": g.model.parameters_json(),
        "stiffness": c.gains.map(|(k, _)| k),
        "damping": c.gains.map(|(_, d)| d),
        "ground_height": 0.0,
        "friction": g.friction,
        "placement_shift": g.shift,
        "initial_clearance": g.clearance,
        "shapes": g.shapes.len(),
        "welded_shapes": g.welded.len(),
        "max_penetration": c.max_penetration,
        "solver_failures": c.solver_failures,
        "max_residual": c.max_residual,
        "mean_contacts": c.mean_contacts,
        "lcp_steps": c.lcp_steps,
    })
}

fn write_summary(cfg: &RunConfig, run: &TreeRun, s: &TreeRunSummary) -> Result<(), Error> {
    let tree = &run.tree;
    let g = tree.gravity;
    let conserved = base_kind(tree) == "floating" && g == DVec3::ZERO && run.ground.is_none();
    let doc = json!({
        "status": status(s.error.is_some(), s.interrupted),
        "error": s.error.as_ref().map(|e| e.to_string()),
        "robot": run.source,
        "kind": match run.ground {
            None => "articulated tree, contact-free",
            Some(_) => "articulated tree on a ground plane",
        },
        "contact": contact_json(run, s),
        "integrator": run.integrator_name(),
        "time_step": run.time_step,
        "duration": run.duration,
        "gravity": g.to_array(),
        "base": base_kind(tree),
        "links": tree.len(),
        "nq": tree.nq(),
        "nv": tree.nv(),
        "mass": tree.links().iter().map(|l| l.mass).sum::<f64>(),
        "initial_q": run.q0,
        "initial_v": run.v0,
        "options": run.options,
        "steps": s.steps,
        "simulated_time": s.simulated_time,
        "wall_time": s.wall_time,
        "steps_per_second": s.steps_per_second,
        "energy": {
            "initial": s.initial_energy,
            "max_change": s.max_energy_change,
            "scale": s.energy_scale,
            "relative_drift": s.relative_energy_drift,
            "rule": "max |E - E0| / max(|E0|, scale); scale = the largest kinetic energy of the run",
        },
        "momentum": {
            "start": momentum_json(s.momentum_start),
            "end": momentum_json(s.momentum_end),
            "conserved": conserved,
            "note": "world axes, angular about the world origin; conserved only by a floating tree without gravity or ground (and then up to the integrator's truncation error)",
        },
        "version": env!("CARGO_PKG_VERSION"),
    });
    let path = cfg.out_dir.join("summary.json");
    let text = serde_json::to_string_pretty(&doc).expect("summary is plain JSON") + "\n";
    std::fs::write(&path, text).map_err(|source| Error::Io { path, source })
}
