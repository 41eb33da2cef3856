//! The robustness experiment (issue 16, item 6): every contact model of the catalog, on its
//! defaults, against the scenes a user expects any model to hold — the 10-box stack at two time
//! steps, the 64-box bin, a cube started 5 cm into the ground and the resting cube perturbed —
//! each judged against the issue's targets ([`TARGETS`]).
//!
//! A run never fails the experiment: a model that cannot be set up on a scene, a step that
//! fails and a run that exceeds its wall-clock budget are outcomes ([`Outcome`]), each a FAIL
//! with its reason. Only a scene the experiment cannot use (a bin without walls, a duration that
//! is not a whole number of steps) is an error.
//!
//! ```text
//!   base scene ──prepare──▶ model defaults, h, duration, default integrator
//!              ──Simulation::new(scene, Some(model), &[])──▶ (as `signorini run --model`)
//!              ──step loop, Watch::observe after every step──▶ Figures ──checks──▶ Verdict
//! ```
use super::penalty::REST_SPEED;
use crate::contact::{self, Coupling};
use crate::dynamics::{piece_pose, Integrator, Model, State};
use crate::geometry::Shape;
use crate::metrics::kinetic_energy;
use crate::pipeline::adaptive::check_step_plan;
use crate::pipeline::StepReport;
use crate::scene::Scene;
use crate::simulation::{Error, Simulation};
use glam::DVec3;
use std::time::{Duration, Instant};

// ---------------------------------------------------------------------------------------------
// Targets
// ---------------------------------------------------------------------------------------------

/// How a model couples contacts to the dynamics, as far as the targets care: issue 16 holds
/// constraint models (the velocity-level ones: stewart-trinkle, anitescu-potra, peg) to tighter
/// limits than force models, and does not name impulse-based models, which are held to the
/// force models' limits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ModelClass {
    /// Penalty forces (deepest-point, hunt-crossley, multi-point).
    Force,
    /// Velocity-level complementarity (stewart-trinkle, anitescu-potra, peg).
    Constraint,
    /// Impulses (impulse, hybrid).
    Impulse,
}

impl ModelClass {
    /// The class of a coupling.
    pub fn of(coupling: Coupling) -> ModelClass {
        match coupling {
            Coupling::Force => ModelClass::Force,
            Coupling::VelocityLevel => ModelClass::Constraint,
            Coupling::ImpulseBased => ModelClass::Impulse,
        }
    }

    /// The class of the catalog's model `name` built on its defaults (`None`: it does not build).
    pub fn of_model(name: &str) -> Option<ModelClass> {
        contact::build(name, &[])
            .ok()
            .map(|m| ModelClass::of(m.coupling()))
    }

    /// `force`, `constraint` or `impulse` (tables and CSV files).
    pub fn name(self) -> &'static str {
        match self {
            ModelClass::Force => "force",
            ModelClass::Constraint => "constraint",
            ModelClass::Impulse => "impulse",
        }
    }
}

/// A limit that depends on the model's class (the figure's unit is the limit's).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PerClass {
    pub force: f64,
    pub constraint: f64,
    pub impulse: f64,
}

impl PerClass {
    /// The limit for `class`.
    pub fn of(&self, class: ModelClass) -> f64 {
        match class {
            ModelClass::Force => self.force,
            ModelClass::Constraint => self.constraint,
            ModelClass::Impulse => self.impulse,
        }
    }
}

/// What every model must do on its defaults. Source: issue 16, "Targets (every model,
/// defaults)"; the one figure that is ours, not the issue's, is `rest_speed` (the issue says "at
/// rest"). Every limit is an upper bound: a figure passes when it is at most the limit.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Targets {
    /// Displacement of the stack's top box at the end of its run (m): "top-box drift ≤ 1 mm
    /// (constraint models keep ≤ 1e-9 m)".
    pub stack_drift: PerClass,
    /// Largest penetration (m): "max penetration ≤ 5 mm for force models, ≤ 1e-6 m for
    /// constraint models" (the bin's figure). The penetrating cube's push-out lasts until its
    /// overlap is within this depth.
    pub penetration: PerClass,
    /// Boxes that may leave the bin or end below its floor: "0 boxes escape or end below the
    /// floor".
    pub bin_escapes: usize,
    /// Kinetic energy of the bin at the end (J): "final KE ≤ 1e-3 J".
    pub bin_final_kinetic_energy: f64,
    /// Largest speed of the penetrating cube's centre of mass during the push-out (m/s):
    /// "largest speed during push-out ≤ 1 m/s".
    pub push_out_speed: f64,
    /// Largest point speed |v| + |ω| r of any body for the scene to count as at rest (m/s):
    /// [`REST_SPEED`], the pile experiment's, since the issue gives no figure.
    pub rest_speed: f64,
}

/// Issue 16's targets.
pub const TARGETS: Targets = Targets {
    stack_drift: PerClass {
        force: 1e-3,
        constraint: 1e-9,
        impulse: 1e-3,
    },
    penetration: PerClass {
        force: 5e-3,
        constraint: 1e-6,
        impulse: 5e-3,
    },
    bin_escapes: 0,
    bin_final_kinetic_energy: 1e-3,
    push_out_speed: 1.0,
    rest_speed: REST_SPEED,
};

// ---------------------------------------------------------------------------------------------
// Scenes and plan
// ---------------------------------------------------------------------------------------------

/// The scene classes of issue 16, each a bundled scene file run with its own overrides.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SceneClass {
    /// `box_stack.toml` (10 cubes of 0.5 m, 1 kg) at h = 1e-3 s.
    StackFine,
    /// `box_stack.toml` at h = 1/240 s.
    StackCoarse,
    /// `bin_64.toml` (64 boxes dropped in a 2 × 2 m bin) at its h = 2e-3 s.
    Bin,
    /// `block_penetrating_plane.toml` (10 kg, 1 m cube, lowest corner 5 cm in the ground) at its
    /// h = 1e-3 s.
    PenetratingCube,
    /// `resting_block_perturbed.toml` (the same cube resting, pushed by 10 random forces) at its
    /// h = 1e-3 s.
    PerturbedCube,
}

/// What a scene class runs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SceneSpec {
    /// Short name (CSV files): `stack-1e-3`, `stack-1/240`, `bin-64`, `penetrating-cube`,
    /// `perturbed-cube`.
    pub key: &'static str,
    /// The bundled scene file (`examples/`).
    pub file: &'static str,
    /// h (s); `None` keeps the scene's.
    pub time_step: Option<f64>,
    /// Simulated time of the full run (s).
    pub duration: f64,
    /// Simulated time of the `--quick` run (s): too short for some targets (a bin still moving,
    /// a cube not yet at rest), so its verdicts are provisional.
    pub quick_duration: f64,
}

impl SceneClass {
    /// Every class, in the order of tables and files.
    pub const ALL: [SceneClass; 5] = [
        SceneClass::StackFine,
        SceneClass::StackCoarse,
        SceneClass::Bin,
        SceneClass::PenetratingCube,
        SceneClass::PerturbedCube,
    ];

    /// The class's scene, step and durations.
    pub fn spec(self) -> SceneSpec {
        let (key, file, time_step, duration, quick_duration) = match self {
            SceneClass::StackFine => ("stack-1e-3", "box_stack.toml", Some(1e-3), 10.0, 0.5),
            SceneClass::StackCoarse => ("stack-1/240", "box_stack.toml", Some(1.0 / 240.0), 10.0, 0.5),
            SceneClass::Bin => ("bin-64", "bin_64.toml", None, 5.0, 0.3),
            SceneClass::PenetratingCube => {
                ("penetrating-cube", "block_penetrating_plane.toml", None, 3.0, 0.5)
            }
            // One push (0–0.5 s) and the force-free half second after it.
            SceneClass::PerturbedCube => {
                ("perturbed-cube", "resting_block_perturbed.toml", None, 10.0, 1.0)
            }
        };
        SceneSpec {
            key,
            file,
            time_step,
            duration,
            quick_duration,
        }
    }

    /// Is the top box's drift measured (the stacks)?
    pub fn is_stack(self) -> bool {
        matches!(self, SceneClass::StackFine | SceneClass::StackCoarse)
    }
}

/// The contact models of the experiment: the whole catalog, in its order.
pub fn models() -> Vec<&'static str> {
    contact::catalog().iter().map(|s| s.name).collect()
}

/// Every (model, scene class) of the experiment, models in catalog order, classes in
/// [`SceneClass::ALL`] order: the order of tables and files.
pub fn cases() -> Vec<(&'static str, SceneClass)> {
    models()
        .into_iter()
        .flat_map(|m| SceneClass::ALL.map(|c| (m, c)))
        .collect()
}

/// Wall-clock budget of a full run (s): twice the slowest run that completes on a loaded 2-core
/// machine (stewart-trinkle's bin, 160–280 s), so that its verdict does not hang on the load.
pub const FULL_BUDGET_SECONDS: f64 = 600.0;
/// Wall-clock budget of a `--quick` run (s).
pub const QUICK_BUDGET_SECONDS: f64 = 20.0;

/// How long the runs are: full or `--quick` durations, and the wall-clock budget after which a
/// run is stopped and reported too slow (the experiment's one non-deterministic element).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Plan {
    pub quick: bool,
    pub budget: Duration,
}

impl Plan {
    /// Full durations, [`FULL_BUDGET_SECONDS`] a run.
    pub fn full() -> Plan {
        Plan {
            quick: false,
            budget: Duration::from_secs_f64(FULL_BUDGET_SECONDS),
        }
    }

    /// Quick durations, [`QUICK_BUDGET_SECONDS`] a run.
    pub fn quick() -> Plan {
        Plan {
            quick: true,
            budget: Duration::from_secs_f64(QUICK_BUDGET_SECONDS),
        }
    }

    /// Simulated time of a run of `class` (s).
    pub fn duration(&self, class: SceneClass) -> f64 {
        let spec = class.spec();
        if self.quick {
            spec.quick_duration
        } else {
            spec.duration
        }
    }
}

/// `base` (the class's scene file, loaded) as the experiment runs it: no `[contact]` parameters
/// (they belong to the scene's own model; every model runs on its defaults), the class's h and
/// the plan's duration, the default integrator (`implicit-euler`) in fixed steps.
pub fn prepare(base: &Scene, class: SceneClass, plan: &Plan) -> Result<Scene, Error> {
    let mut scene = base.clone();
    scene.desc.contact.params.clear();
    let s = &mut scene.model.settings;
    if let Some(h) = class.spec().time_step {
        s.time_step = h;
    }
    s.duration = plan.duration(class);
    s.integrator = Integrator::default();
    s.adaptive = None;
    check_step_plan(s.duration, s.time_step).map_err(|(message, hint)| {
        Error::Experiment(format!(
            "{} ({}): {message}; {hint}",
            scene.desc.file,
            class.spec().key
        ))
    })?;
    Ok(scene)
}

// ---------------------------------------------------------------------------------------------
// The bin
// ---------------------------------------------------------------------------------------------

/// The inside of an open box made as one fixed body of box pieces: above the floor (the piece
/// whose top is lowest) and between the inner faces of the walls (the other pieces, each closing
/// the side its thinner horizontal extent faces).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Container {
    /// Inner faces of the walls along x and along y (m).
    pub x: (f64, f64),
    pub y: (f64, f64),
    /// Height of the floor's top face (m).
    pub floor: f64,
}

impl Container {
    /// The container of body `body` of `model` placed as in `state`. Fails (with the reason) when
    /// a piece is not a polytope or a side has no wall.
    pub fn of(model: &Model, state: &State, body: usize) -> Result<Container, String> {
        let b = &model.bodies[body];
        let mut boxes = Vec::with_capacity(b.pieces.len());
        for (i, piece) in b.pieces.iter().enumerate() {
            let Shape::Polytope(p) = &piece.shape else {
                return Err(format!("piece {i} of `{}` is not a polytope", b.name));
            };
            let pose = piece_pose(model, state, body, i);
            let placed = p.vertices.iter().map(|v| pose.transform_point(*v));
            let lo = placed.clone().fold(DVec3::INFINITY, DVec3::min);
            boxes.push((lo, placed.fold(DVec3::NEG_INFINITY, DVec3::max)));
        }
        let floor = (0..boxes.len())
            .min_by(|&i, &j| boxes[i].1.z.total_cmp(&boxes[j].1.z))
            .ok_or_else(|| format!("`{}` has no pieces", b.name))?;
        let (flo, fhi) = boxes[floor];
        let centre = (flo + fhi) / 2.0;
        let mut c = Container {
            x: (flo.x, fhi.x),
            y: (flo.y, fhi.y),
            floor: fhi.z,
        };
        let mut closed = [false; 4]; // −x, +x, −y, +y
        let walls = boxes.iter().enumerate().filter(|(i, _)| *i != floor);
        for (_, &(lo, hi)) in walls {
            let extent = hi - lo;
            let mid = (lo + hi) / 2.0;
            if extent.x <= extent.y {
                if mid.x < centre.x {
                    (c.x.0, closed[0]) = (c.x.0.max(hi.x), true);
                } else {
                    (c.x.1, closed[1]) = (c.x.1.min(lo.x), true);
                }
            } else if mid.y < centre.y {
                (c.y.0, closed[2]) = (c.y.0.max(hi.y), true);
            } else {
                (c.y.1, closed[3]) = (c.y.1.min(lo.y), true);
            }
        }
        if let Some(side) = closed.iter().position(|c| !c) {
            let sides = ["-x", "+x", "-y", "+y"];
            return Err(format!("`{}` has no wall on its {} side", b.name, sides[side]));
        }
        Ok(c)
    }

    /// Is the point `p` between the walls (strictly; its height is not looked at)?
    pub fn between_walls(&self, p: DVec3) -> bool {
        self.x.0 < p.x && p.x < self.x.1 && self.y.0 < p.y && p.y < self.y.1
    }
}

/// Name of the bin's body in `bin_64.toml`.
pub const BIN_BODY: &str = "bin";

// ---------------------------------------------------------------------------------------------
// One run
// ---------------------------------------------------------------------------------------------

/// How a run ended.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    /// Every planned step was taken.
    Completed,
    /// A step failed (the state blew up, a body went too fast or through another, the contact
    /// model failed): `reason` is the diagnosis shortened ([`short_reason`]), `message` the
    /// whole error.
    Stopped { reason: String, message: String },
    /// The run used up its wall-clock budget ([`Plan::budget`]) before its duration:
    /// `wall_seconds` (s) of wall clock had passed, the figures are those of the steps taken.
    TooSlow { wall_seconds: f64 },
    /// The model could not be set up on the scene (a parameter refused, adaptive steps it
    /// cannot take): `reason` shortened, `message` whole.
    Refused { reason: String, message: String },
}

impl Outcome {
    /// `completed`, `stopped`, `too-slow` or `refused` (tables and CSV files).
    pub fn name(&self) -> &'static str {
        match self {
            Outcome::Completed => "completed",
            Outcome::Stopped { .. } => "stopped",
            Outcome::TooSlow { .. } => "too-slow",
            Outcome::Refused { .. } => "refused",
        }
    }
}

/// What a run measured, over the steps it took (all of them unless it stopped).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Figures {
    /// Steps taken and planned (duration / h).
    pub steps: u64,
    pub planned: u64,
    /// Simulated time reached (s).
    pub end_time: f64,
    /// Stacks: how far the top box's centre of mass is from where it started, at the end (m):
    /// |p_top(end) − p_top(0)|, the issue's drift |Δz| together with any sideways motion.
    pub top_drift: Option<f64>,
    /// Largest penetration depth after any step (m).
    pub max_penetration: f64,
    /// The bin: dynamic bodies whose centre of mass left the space between the walls at some
    /// step, or ended below the floor's top face.
    pub escapes: Option<usize>,
    /// Kinetic energy of all bodies at the end (J).
    pub final_kinetic_energy: f64,
    /// Largest speed of any body's centre of mass after any step (m/s).
    pub max_speed: f64,
    /// The penetrating cube: largest centre-of-mass speed at the end of a step that began with
    /// the cube deeper than the class's penetration limit ([`Targets::penetration`]), i.e. while
    /// it is being pushed out (m/s); the step that brings it within the limit counts.
    pub push_out_speed: Option<f64>,
    /// Largest point speed |v| + |ω| r (r: bounding radius) of any dynamic body at the end (m/s).
    pub end_speed: f64,
    /// Wall-clock seconds spent in the steps (measurements not counted).
    pub step_seconds: f64,
}

impl Figures {
    /// Steps per second of wall clock (0 for no step).
    pub fn steps_per_second(&self) -> f64 {
        if self.steps == 0 {
            0.0
        } else {
            self.steps as f64 / self.step_seconds.max(f64::MIN_POSITIVE)
        }
    }

    /// Every dynamic body at most [`Targets::rest_speed`] at the end.
    pub fn at_rest(&self) -> bool {
        self.end_speed <= TARGETS.rest_speed
    }
}

/// One model on one scene class: how it ended, what it measured and its verdict.
#[derive(Clone, Debug, PartialEq)]
pub struct RunResult {
    pub model: String,
    /// `None` when the model did not build.
    pub class: Option<ModelClass>,
    pub scene: SceneClass,
    /// h (s) and simulated duration planned (s).
    pub time_step: f64,
    pub duration: f64,
    pub outcome: Outcome,
    pub figures: Figures,
}

/// Run `model` on its defaults on `base` (the class's scene file, loaded) as `class` and `plan`
/// say: the model is chosen as `signorini run --model` chooses it ([`Simulation::new`]). A model
/// that cannot be set up, a failed step and a run over budget are outcomes; an error only when
/// the scene cannot be used (a step plan that does not fit, a bin without walls).
pub fn run(base: &Scene, class: SceneClass, model: &str, plan: &Plan) -> Result<RunResult, Error> {
    let scene = prepare(base, class, plan)?;
    let mut result = RunResult {
        model: model.to_string(),
        class: None,
        scene: class,
        time_step: scene.model.settings.time_step,
        duration: scene.model.settings.duration,
        outcome: Outcome::Completed,
        figures: Figures::default(),
    };
    let mut sim = match Simulation::new(scene, Some(model), &[]) {
        Ok(sim) => sim,
        Err(e) => {
            let message = e.to_string();
            result.outcome = Outcome::Refused {
                reason: short_reason(&message),
                message,
            };
            return Ok(result);
        }
    };
    let model_class = ModelClass::of(sim.contact_model().coupling());
    result.class = Some(model_class);
    let mut watch = Watch::new(sim.model(), sim.state(), class, model_class)?;
    let started = Instant::now();
    let mut step_seconds = 0.0;
    while !sim.finished() {
        let t0 = Instant::now();
        let report = sim.step();
        step_seconds += t0.elapsed().as_secs_f64();
        match report {
            Ok(r) => watch.observe(sim.model(), sim.state(), &r),
            Err(e) => {
                let message = e.to_string();
                result.outcome = Outcome::Stopped {
                    reason: short_reason(&message),
                    message,
                };
                break;
            }
        }
        let wall = started.elapsed();
        if wall > plan.budget && !sim.finished() {
            result.outcome = Outcome::TooSlow {
                wall_seconds: wall.as_secs_f64(),
            };
            break;
        }
    }
    result.figures = watch.finish(sim.model(), sim.state(), sim.planned_steps(), step_seconds);
    Ok(result)
}

/// What a run watches after every step.
struct Watch {
    /// Stacks: the top box and where it started.
    top: Option<(usize, DVec3)>,
    /// The bin: its inside, and which bodies have left it.
    container: Option<Container>,
    escaped: Vec<bool>,
    max_penetration: f64,
    max_speed: f64,
    /// The penetrating cube: the depth that ends the push-out, whether it is still going on,
    /// and the fastest speed during it.
    push_out: Option<(f64, bool, f64)>,
}

impl Watch {
    fn new(
        model: &Model,
        initial: &State,
        class: SceneClass,
        model_class: ModelClass,
    ) -> Result<Watch, Error> {
        let dynamic = |i: &usize| !model.bodies[*i].fixed;
        let top = class.is_stack().then(|| {
            (0..model.bodies.len())
                .filter(dynamic)
                .max_by(|&a, &b| {
                    let z = |i: usize| initial.bodies[i].position.z;
                    z(a).total_cmp(&z(b))
                })
                .map(|i| (i, initial.bodies[i].position))
        });
        let container = match class {
            SceneClass::Bin => {
                let body = model.body_index(BIN_BODY).ok_or_else(|| {
                    Error::Experiment(format!("the bin scene has no body named `{BIN_BODY}`"))
                })?;
                let c = Container::of(model, initial, body).map_err(Error::Experiment)?;
                Some(c)
            }
            _ => None,
        };
        let push_out = (class == SceneClass::PenetratingCube)
            .then(|| (TARGETS.penetration.of(model_class), true, 0.0));
        Ok(Watch {
            top: top.flatten(),
            container,
            escaped: vec![false; model.bodies.len()],
            max_penetration: 0.0,
            max_speed: 0.0,
            push_out,
        })
    }

    fn observe(&mut self, model: &Model, state: &State, report: &StepReport) {
        self.max_penetration = self.max_penetration.max(report.max_penetration);
        let speed = model
            .bodies
            .iter()
            .zip(&state.bodies)
            .filter(|(body, _)| !body.fixed)
            .map(|(_, b)| b.velocity.length())
            .fold(0.0, f64::max);
        self.max_speed = self.max_speed.max(speed);
        if let Some((limit, going_on, fastest)) = &mut self.push_out {
            if *going_on {
                *fastest = fastest.max(speed);
                *going_on = report.max_penetration > *limit;
            }
        }
        if let Some(c) = &self.container {
            for (i, (body, b)) in model.bodies.iter().zip(&state.bodies).enumerate() {
                self.escaped[i] |= !body.fixed && !c.between_walls(b.position);
            }
        }
    }

    fn finish(mut self, model: &Model, end: &State, planned: u64, step_seconds: f64) -> Figures {
        let dynamic = || model.bodies.iter().zip(&end.bodies).filter(|(m, _)| !m.fixed);
        let escapes = self.container.map(|c| {
            for (i, (body, b)) in model.bodies.iter().zip(&end.bodies).enumerate() {
                self.escaped[i] |= !body.fixed && b.position.z < c.floor;
            }
            self.escaped.iter().filter(|e| **e).count()
        });
        let drift = |(i, start): (usize, DVec3)| (end.bodies[i].position - start).length();
        Figures {
            steps: end.step,
            planned,
            end_time: end.time,
            top_drift: self.top.map(drift),
            max_penetration: self.max_penetration,
            escapes,
            final_kinetic_energy: kinetic_energy(model, end),
            max_speed: self.max_speed,
            push_out_speed: self.push_out.map(|(_, _, fastest)| fastest),
            end_speed: dynamic()
                .map(|(m, b)| b.velocity.length() + b.angular_velocity.length() * m.bounding_radius())
                .fold(0.0, f64::max),
            step_seconds,
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Verdicts
// ---------------------------------------------------------------------------------------------

/// One target of a scene class checked against a run's figure.
#[derive(Clone, Debug, PartialEq)]
pub struct Check {
    /// What is measured (`top drift`, `escapes`, …).
    pub what: &'static str,
    /// The figure and its limit, in `unit`.
    pub value: f64,
    pub limit: f64,
    pub unit: &'static str,
}

impl Check {
    /// The figure is at most its limit (NaN fails).
    pub fn passed(&self) -> bool {
        self.value <= self.limit
    }

    /// `what value unit`: `top drift 2.000e-9 m`, or a count without a unit as a whole number
    /// (`escapes 3`).
    pub fn figure(&self) -> String {
        if self.unit.is_empty() {
            format!("{} {:.0}", self.what, self.value)
        } else {
            format!("{} {:.3e} {}", self.what, self.value, self.unit)
        }
    }

    /// The limit as the issue writes it: `1e-3`, or a count as a whole number.
    pub fn limit_text(&self) -> String {
        if self.unit.is_empty() {
            format!("{:.0}", self.limit)
        } else {
            format!("{:.0e}", self.limit)
        }
    }
}

/// PASS or FAIL, and why not.
#[derive(Clone, Debug, PartialEq)]
pub struct Verdict {
    pub pass: bool,
    /// Why the run failed, one reason per entry (empty for a pass): the outcome's reason for a
    /// run that did not complete, else each target missed with its figure and limit.
    pub reasons: Vec<String>,
}

impl RunResult {
    /// The class's targets checked against the figures (`None` figures are not checked). For a
    /// model that did not build there is no class and nothing to check.
    pub fn checks(&self) -> Vec<Check> {
        let Some(class) = self.class else {
            return Vec::new();
        };
        let f = &self.figures;
        let check = |what, value, limit, unit| Check {
            what,
            value,
            limit,
            unit,
        };
        let mut checks = Vec::new();
        if let Some(drift) = f.top_drift {
            checks.push(check("top drift", drift, TARGETS.stack_drift.of(class), "m"));
        }
        if let Some(escapes) = f.escapes {
            checks.push(check("escapes", escapes as f64, TARGETS.bin_escapes as f64, ""));
            let pen = TARGETS.penetration.of(class);
            checks.push(check("max penetration", f.max_penetration, pen, "m"));
            let ke = TARGETS.bin_final_kinetic_energy;
            checks.push(check("final KE", f.final_kinetic_energy, ke, "J"));
        }
        if let Some(speed) = f.push_out_speed {
            checks.push(check("push-out speed", speed, TARGETS.push_out_speed, "m/s"));
        }
        if matches!(self.scene, SceneClass::PenetratingCube | SceneClass::PerturbedCube) {
            checks.push(check("end speed", f.end_speed, TARGETS.rest_speed, "m/s"));
        }
        checks
    }

    /// PASS when the run completed and met every target of its class; else FAIL with reasons.
    pub fn verdict(&self) -> Verdict {
        let reasons = match &self.outcome {
            Outcome::Completed => self
                .checks()
                .iter()
                .filter(|c| !c.passed())
                .map(|c| format!("{} > {}", c.figure(), c.limit_text()))
                .collect(),
            Outcome::Stopped { reason, .. } => vec![format!("stopped: {reason}")],
            Outcome::Refused { reason, .. } => vec![format!("refused: {reason}")],
            Outcome::TooSlow { wall_seconds } => vec![format!(
                "too slow: stopped at t = {:.4} s after {wall_seconds:.1} s of wall clock",
                self.figures.end_time
            )],
        };
        Verdict {
            pass: reasons.is_empty(),
            reasons,
        }
    }

    /// The check that sums the run up in a grid cell: the first target it missed, or for a pass
    /// the scene's main one (the stack's top drift, the bin's largest penetration, the cube's
    /// push-out speed, the perturbed cube's speed at the end). `None` when nothing was checked (a
    /// model that did not build).
    pub fn key_check(&self) -> Option<Check> {
        let checks = self.checks();
        let main = match self.scene {
            SceneClass::StackFine | SceneClass::StackCoarse => "top drift",
            SceneClass::Bin => "max penetration",
            SceneClass::PenetratingCube => "push-out speed",
            SceneClass::PerturbedCube => "end speed",
        };
        let missed = checks.iter().position(|c| !c.passed());
        let k = missed.or_else(|| checks.iter().position(|c| c.what == main))?;
        checks.into_iter().nth(k)
    }
}

/// Longest reason kept by [`short_reason`] (characters).
pub const MAX_REASON_CHARS: usize = 140;

/// An error message cut to its diagnosis: before the advice (". Try …", "; raise …") and the
/// long parentheses (the pairs of an unconverged loop, the speed's definition), at most
/// [`MAX_REASON_CHARS`] characters (cut with "…").
pub fn short_reason(message: &str) -> String {
    const CUTS: [&str; 7] = [
        ". Try ",
        "; the simulation",
        "; raise ",
        "; too many",
        " (among pairs",
        " (|v| + |ω| r",
        "\n",
    ];
    let end = CUTS
        .iter()
        .filter_map(|c| message.find(c))
        .min()
        .unwrap_or(message.len());
    let text = message[..end].trim().trim_end_matches('.');
    if text.chars().count() <= MAX_REASON_CHARS {
        return text.to_string();
    }
    let mut short: String = text.chars().take(MAX_REASON_CHARS - 1).collect();
    short.push('…');
    short
}
