//! Pose statistics of dropped parts (issue 19 item 3; Deguet, Joukhadar & Laugier 1998 §5,
//! tables 1–2, after Mirtich et al. 1996): drop a part many times from random orientations and
//! heights onto the ground, classify the face it comes to rest on, and count.
//!
//! One drop is a pure function of (part, model, seed): [`drop_part`] (or [`Dropper::drop`] on a
//! dropper built once) builds the scene in code, draws the initial orientation (uniform on
//! SO(3)) and height from `Rng::new(seed)`, steps until the part is at rest or the time cap, and
//! classifies the resting pose by the face of the part's convex hull whose outward normal is
//! closest to −z in the world. [`monte_carlo`] runs many seeds in parallel (rayon) and returns
//! them in seed order, so its output does not depend on the number of threads. The statistics
//! ([`frequencies`], [`chi_square`], [`chi_square_p_value`]) are plain functions of the counts.
//!
//! The parts are modelled from the paper's words alone (its CAD models are not available): the
//! dimensions and densities are assumptions, written in [`Part`]'s constructors and in
//! `docs/experiments.md`.
use crate::contact::ParamInput;
use crate::dynamics::Integrator;
use crate::geometry::{Polytope, Shape};
use crate::scene::{
    self, BodyDesc, BodyShapeDesc, KeyLines, LocatedShape, MassDesc, PieceDesc, Scene, ShapeDesc,
};
use crate::simulation::{Error, ModelBuilder, Simulation};
use crate::util::rng::Rng;
use glam::{DQuat, DVec3};
use rayon::prelude::*;
use std::f64::consts::PI;

/// Friction coefficient of the part and the ground (the paper's 0.3 for both parts).
pub const FRICTION: f64 = 0.3;
/// Coefficient of restitution of the part and the ground (the paper's 0.3).
pub const RESTITUTION: f64 = 0.3;

/// The parts the experiment knows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PartKind {
    /// A fair die: a homogeneous cube.
    Cube,
    /// The orange insulator cap of table 1: a cylindrical cup.
    Cap,
    /// The large stereo button of table 2: a rectangular hollow push-button cap.
    Button,
}

impl PartKind {
    pub const ALL: [PartKind; 3] = [PartKind::Cube, PartKind::Cap, PartKind::Button];

    /// Name on the command line and in the CSV files.
    pub fn name(self) -> &'static str {
        match self {
            PartKind::Cube => "cube",
            PartKind::Cap => "cap",
            PartKind::Button => "button",
        }
    }

    pub fn from_name(name: &str) -> Option<PartKind> {
        PartKind::ALL.into_iter().find(|k| k.name() == name)
    }
}

/// One of the paper's tables: pose frequencies in percent, poses numbered as in the paper
/// (ranked by the physical tests, most frequent first).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PaperTable {
    /// "Table 1: Orange insulator cap statistics", …
    pub caption: &'static str,
    pub impulse: &'static [f64],
    pub penalty: &'static [f64],
    pub physical: &'static [f64],
    /// Drops the paper's penalty simulation made (its §5.3).
    pub penalty_drops: usize,
}

/// Deguet, Joukhadar & Laugier 1998, table 1 (percent).
pub const PAPER_CAP: PaperTable = PaperTable {
    caption: "Table 1: Orange insulator cap statistics",
    impulse: &[41.9, 26.2, 28.3, 3.0, 0.8, 0.0],
    penalty: &[43.0, 29.5, 20.1, 4.0, 2.7, 0.6],
    physical: &[46.0, 27.1, 19.7, 5.0, 2.2, 0.0],
    penalty_drops: 995,
};

/// Deguet, Joukhadar & Laugier 1998, table 2 (percent).
pub const PAPER_BUTTON: PaperTable = PaperTable {
    caption: "Table 2: Stereo button statistics",
    impulse: &[71.7, 20.9, 7.4, 0.1],
    penalty: &[70.4, 20.5, 8.9, 0.25],
    physical: &[75.8, 13.8, 10.5, 0.0],
    penalty_drops: 776,
};

/// A part: its convex pieces (in its shape frame, m), density, named stable poses and which hull
/// face belongs to which pose.
#[derive(Clone, Debug, PartialEq)]
pub struct Part {
    pub kind: PartKind,
    /// Convex pieces and their positions in the shape frame.
    pub pieces: Vec<(ShapeDesc, DVec3)>,
    /// kg/m³.
    pub density: f64,
    /// Names of the stable poses, in the order of [`Drop::pose`].
    pub poses: Vec<&'static str>,
    /// The paper's table for this part, if any.
    pub paper: Option<PaperTable>,
    /// Expected frequencies of the poses, when known (the fair die: 1/6 each).
    pub expected: Option<Vec<f64>>,
}

/// Edge of the die (m): a common 16 mm die.
pub const CUBE_EDGE: f64 = 0.016;
/// Density of the die (kg/m³): cellulose acetate / acrylic, ≈ 1190.
pub const CUBE_DENSITY: f64 = 1190.0;

/// The cap: outer diameter, length, wall and end thickness (m), density (kg/m³, soft PVC),
/// sides of the prism that stands for the cylinder.
pub const CAP_DIAMETER: f64 = 0.012;
pub const CAP_LENGTH: f64 = 0.016;
pub const CAP_WALL: f64 = 0.0015;
pub const CAP_END: f64 = 0.002;
pub const CAP_DENSITY: f64 = 1350.0;
pub const CAP_SIDES: usize = 12;

/// The button: outer size (m, x × y × z, the top face at +z, open at −z), wall and top
/// thickness (m), density (kg/m³, ABS).
pub const BUTTON_SIZE: DVec3 = DVec3::new(0.020, 0.012, 0.008);
pub const BUTTON_WALL: f64 = 0.0015;
pub const BUTTON_TOP: f64 = 0.002;
pub const BUTTON_DENSITY: f64 = 1050.0;

impl Part {
    pub fn new(kind: PartKind) -> Part {
        match kind {
            PartKind::Cube => Part::cube(),
            PartKind::Cap => Part::cap(),
            PartKind::Button => Part::button(),
        }
    }

    /// The fair die: a homogeneous cube of [`CUBE_EDGE`]. Face k (1…6) is the face it rests on:
    /// 1 on −z, 6 on +z, 2 on −y, 5 on +y, 3 on −x, 4 on +x (opposite faces sum to 7).
    pub fn cube() -> Part {
        Part {
            kind: PartKind::Cube,
            pieces: vec![(
                ShapeDesc::Box {
                    size: DVec3::splat(CUBE_EDGE),
                },
                DVec3::ZERO,
            )],
            density: CUBE_DENSITY,
            poses: vec!["1", "2", "3", "4", "5", "6"],
            paper: None,
            expected: Some(vec![1.0 / 6.0; 6]),
        }
    }

    /// The insulator cap: a cup, the axis along z, the closed end at +z. An end plate and
    /// [`CAP_SIDES`] wall staves (each the hull of an annular sector), so that the hull is a
    /// prism of [`CAP_SIDES`] sides. Poses: `top` (resting on the closed end), `open` (on the
    /// rim of the open end), `side` (on the cylinder's side, any of the prism's faces).
    pub fn cap() -> Part {
        let n = CAP_SIDES;
        let (ro, ri) = (CAP_DIAMETER / 2.0, CAP_DIAMETER / 2.0 - CAP_WALL);
        let (z0, z1, z2) = (-CAP_LENGTH / 2.0, CAP_LENGTH / 2.0 - CAP_END, CAP_LENGTH / 2.0);
        let at = |r: f64, k: usize, z: f64| {
            let a = 2.0 * PI * k as f64 / n as f64;
            DVec3::new(r * a.cos(), r * a.sin(), z)
        };
        let mut pieces = Vec::with_capacity(n + 1);
        let end: Vec<DVec3> = (0..n).flat_map(|k| [at(ro, k, z1), at(ro, k, z2)]).collect();
        pieces.push((ShapeDesc::Convex { points: end }, DVec3::ZERO));
        for k in 0..n {
            let points = [k, k + 1]
                .iter()
                .flat_map(|&j| [at(ro, j, z0), at(ro, j, z1), at(ri, j, z0), at(ri, j, z1)])
                .collect();
            pieces.push((ShapeDesc::Convex { points }, DVec3::ZERO));
        }
        Part {
            kind: PartKind::Cap,
            pieces,
            density: CAP_DENSITY,
            poses: vec!["top", "open", "side"],
            paper: Some(PAPER_CAP),
            expected: None,
        }
    }

    /// The stereo button: a rectangular cap [`BUTTON_SIZE`], hollow from below: a top plate and
    /// four walls. Poses: `top` (resting on its top face), `open` (on the rim of the open
    /// face), `long-side` (on one of the two large side faces, normal ±y), `end` (on one of the
    /// two small end faces, normal ±x).
    pub fn button() -> Part {
        let s = BUTTON_SIZE;
        let (w, t) = (BUTTON_WALL, BUTTON_TOP);
        let wall_h = s.z - t;
        let wall_z = -s.z / 2.0 + wall_h / 2.0;
        let bx = |size: DVec3, at: DVec3| (ShapeDesc::Box { size }, at);
        let pieces = vec![
            bx(DVec3::new(s.x, s.y, t), DVec3::new(0.0, 0.0, s.z / 2.0 - t / 2.0)),
            bx(DVec3::new(s.x, w, wall_h), DVec3::new(0.0, s.y / 2.0 - w / 2.0, wall_z)),
            bx(DVec3::new(s.x, w, wall_h), DVec3::new(0.0, -s.y / 2.0 + w / 2.0, wall_z)),
            bx(DVec3::new(w, s.y - 2.0 * w, wall_h), DVec3::new(s.x / 2.0 - w / 2.0, 0.0, wall_z)),
            bx(DVec3::new(w, s.y - 2.0 * w, wall_h), DVec3::new(-s.x / 2.0 + w / 2.0, 0.0, wall_z)),
        ];
        Part {
            kind: PartKind::Button,
            pieces,
            density: BUTTON_DENSITY,
            poses: vec!["top", "open", "long-side", "end"],
            paper: Some(PAPER_BUTTON),
            expected: None,
        }
    }

    /// The pose of a hull face with outward unit normal `n` (shape frame), or `None` for a face
    /// that belongs to no stable pose.
    pub fn pose_of_normal(&self, n: DVec3) -> Option<usize> {
        const AXIS: f64 = 0.999; // cos 2.6°: the hull faces of these parts are axis-aligned
        match self.kind {
            PartKind::Cube => {
                let faces = [-DVec3::Z, -DVec3::Y, -DVec3::X, DVec3::X, DVec3::Y, DVec3::Z];
                faces.iter().position(|f| f.dot(n) > AXIS)
            }
            PartKind::Cap => {
                if n.z > AXIS {
                    Some(0)
                } else if n.z < -AXIS {
                    Some(1)
                } else if n.z.abs() < 1e-6 {
                    Some(2)
                } else {
                    None
                }
            }
            PartKind::Button => {
                if n.z > AXIS {
                    Some(0)
                } else if n.z < -AXIS {
                    Some(1)
                } else if n.y.abs() > AXIS {
                    Some(2)
                } else if n.x.abs() > AXIS {
                    Some(3)
                } else {
                    None
                }
            }
        }
    }

    /// The largest tilt (rad) from its closest hull face at which a part at rest still counts as
    /// in pose `pose`, beyond `DropSettings::max_tilt`: for the cap's `side`, half the angle
    /// between two faces of the prism plus 1° (16° for 12 sides). The prism stands for a
    /// cylinder, which lies on its side at any roll angle; a penalty model's damping can stop the
    /// prism rolling on an edge between two side faces (measured: a quarter of the cap's drops
    /// under `hunt-crossley`, 13–15° from either face), and that is still lying on its side.
    /// 0 for every other pose.
    pub fn pose_tilt(&self, pose: usize) -> f64 {
        match (self.kind, pose) {
            (PartKind::Cap, 2) => PI / CAP_SIDES as f64 + 1f64.to_radians(),
            _ => 0.0,
        }
    }

    /// The part as a body of a scene: `part`, density [`Part::density`], material `part`.
    fn body_desc(&self) -> BodyDesc {
        let key = "body[1]".to_string();
        let pieces: Vec<PieceDesc> = self
            .pieces
            .iter()
            .enumerate()
            .map(|(i, (shape, at))| PieceDesc {
                shape: LocatedShape {
                    shape: shape.clone(),
                    line: 0,
                    key: format!("{key}.piece[{i}].shape"),
                },
                position: *at,
                orientation: DQuat::IDENTITY,
                line: 0,
                key: format!("{key}.piece[{i}]"),
            })
            .collect();
        let shape = if pieces.len() == 1 {
            BodyShapeDesc::Single(pieces[0].shape.clone())
        } else {
            BodyShapeDesc::Compound(pieces)
        };
        BodyDesc {
            name: "part".into(),
            material: "part".into(),
            mass: MassDesc::Density(self.density),
            position: DVec3::new(0.0, 0.0, 1.0),
            orientation: DQuat::IDENTITY,
            velocity: DVec3::ZERO,
            angular_velocity: DVec3::ZERO,
            shape,
            line: 0,
            key,
            key_lines: KeyLines::default(),
        }
    }
}

/// How a drop is simulated: the contact model with its parameters, integrator and step, the
/// range of heights, the rest criterion and the time cap.
#[derive(Clone, Debug, PartialEq)]
pub struct DropSettings {
    pub model: String,
    /// Contact-model parameters on top of the model's defaults.
    pub params: Vec<(String, ParamInput)>,
    pub integrator: Integrator,
    /// h (s).
    pub time_step: f64,
    /// Height of the part's lowest point above the ground at release, uniform in this range (m).
    pub height: (f64, f64),
    /// At rest: largest point speed |v| + |ω| r (r the part's bounding radius about its centre
    /// of mass) at most this (m/s) …
    pub rest_speed: f64,
    /// … and kinetic energy at most this per kg of the part (J/kg) …
    pub rest_energy_per_kg: f64,
    /// … at the end of every step for this long (s).
    pub rest_hold: f64,
    /// A drop not at rest by this time after release (s) is reported as such.
    pub time_cap: f64,
    /// The free fall from the release height down to this height of the lowest point above the
    /// ground (m) is solved in closed form (no rotation, v = √(2 g (H − c)), t = v / g): the
    /// simulation starts there. Above the narrow phase's activation distance (1 mm), so the
    /// first contact is found by the simulation, not placed.
    pub contact_clearance: f64,
    /// A part at rest whose closest hull face is tilted from the ground by more than this (rad)
    /// is reported as leaning, not classified.
    pub max_tilt: f64,
}

/// The model a drop runs under when none is named: the paper's penalty model.
pub const DEFAULT_PENALTY: &str = "hunt-crossley";
/// The impulse model of the comparison.
pub const DEFAULT_IMPULSE: &str = "impulse";

impl DropSettings {
    /// The defaults for `model` (a catalog name). `hunt-crossley` (the paper's penalty model,
    /// its damping from the restitution): RK4 at h = 0.5 ms — a 16 mm cube dropped flat from
    /// 10 cm then leaves the ground at 0.299 of its impact speed (0.075 under `implicit-euler` at
    /// 1 ms, whose damping of the 2 ms contact swamps the law's); every other model at h = 1 ms
    /// on its own defaults and integrator (`deepest-point` and `multi-point` critically damped:
    /// they have no restitution, the cube does not bounce). Heights 5–15 cm, the free fall
    /// solved in closed form down to 2 mm; at rest when every point is slower than 5 mm/s and
    /// the kinetic energy below ½ (5 mm/s)² per kg for 0.05 s; cap 5 s; leaning beyond 5°.
    pub fn new(model: &str) -> DropSettings {
        let rest_speed = 5e-3;
        let (integrator, time_step) = match model {
            "hunt-crossley" => (Integrator::ImplicitEuler, 1e-4),
            _ => (Integrator::ImplicitEuler, 1e-3),
        };
        DropSettings {
            model: model.to_string(),
            params: Vec::new(),
            integrator,
            time_step,
            height: (0.05, 0.15),
            rest_speed,
            rest_energy_per_kg: 0.5 * rest_speed * rest_speed,
            rest_hold: 0.05,
            time_cap: 5.0,
            contact_clearance: 2e-3,
            max_tilt: 5f64.to_radians(),
        }
    }
}

/// How a drop ended.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    /// At rest on a face of the pose with this index ([`Part::poses`]).
    Pose(usize),
    /// At rest, but tilted from every hull face by more than `max_tilt` or on a face of no
    /// pose: not classified.
    Leaning,
    /// Still moving at the time cap: not classified.
    NotAtRest,
    /// A step failed (the message): not classified.
    Failed(String),
}

impl Outcome {
    /// `pose` name, `leaning`, `not-at-rest` or `failed`.
    pub fn label<'a>(&self, part: &'a Part) -> &'a str {
        match self {
            Outcome::Pose(i) => part.poses[*i],
            Outcome::Leaning => "leaning",
            Outcome::NotAtRest => "not-at-rest",
            Outcome::Failed(_) => "failed",
        }
    }
}

/// One drop's result.
#[derive(Clone, Debug, PartialEq)]
pub struct Drop {
    pub seed: u64,
    pub outcome: Outcome,
    /// Height of the lowest point at release (m).
    pub release_height: f64,
    /// When the rest began (s after release; the start of the `rest_hold` window), if it came
    /// to rest.
    pub rest_time: Option<f64>,
    /// Time after release at the end of the drop (s).
    pub end_time: f64,
    pub steps: u64,
    /// Height of the centre of mass at the end (m).
    pub final_height: f64,
    /// Angle between the closest hull face's normal and −z at the end (rad).
    pub tilt: f64,
    /// Kinetic energy at the end (J).
    pub kinetic_energy: f64,
    /// Largest penetration over the drop (m).
    pub max_penetration: f64,
}

/// A part and a model ready to drop: the scene is built once, each drop clones it.
pub struct Dropper {
    pub part: Part,
    pub settings: DropSettings,
    scene: Scene,
    /// The hull of the part in its body frame (origin at the centre of mass).
    hull: Polytope,
    /// Bounding radius about the centre of mass (m).
    radius: f64,
    mass: f64,
}

impl Dropper {
    /// Build the scene (ground, part, material with [`FRICTION`] and [`RESTITUTION`], the model
    /// and its parameters): errors are the scene's or the model's (bad input).
    pub fn new(part: Part, settings: DropSettings) -> Result<Dropper, Error> {
        let mut builder = ModelBuilder::new()
            .name(&format!("pose-statistics ({})", part.kind.name()))
            .time_step(settings.time_step)
            .duration(settings.time_cap)
            .integrator(settings.integrator)
            .contact_model(&settings.model)
            .material("default", FRICTION, RESTITUTION)
            .material("part", FRICTION, RESTITUTION)
            .ground();
        for (name, value) in &settings.params {
            builder = builder.param(name, value.clone());
        }
        let (lo, hi) = settings.height;
        if !(lo > 0.0 && hi >= lo && hi.is_finite()) {
            return Err(Error::Experiment(format!(
                "drop heights ({lo}, {hi}) m: give 0 < low <= high"
            )));
        }
        let ground_only = builder.build()?;
        let mut desc = ground_only.desc;
        desc.bodies.push(part.body_desc());
        let scene = scene::build(desc)?;
        // The contact model must build with the scene (unknown model, bad parameter).
        scene.contact_model(None)?;
        let body = &scene.model.bodies[1];
        let mut points = Vec::new();
        for piece in &body.pieces {
            if let Shape::Polytope(p) = &piece.shape {
                points.extend(p.vertices.iter().map(|v| piece.pose.transform_point(*v)));
            }
        }
        let hull = Polytope::from_points(&points)
            .map_err(|e| Error::Experiment(format!("hull of the {}: {e}", part.kind.name())))?;
        let radius = points.iter().map(|p| p.length()).fold(0.0, f64::max);
        let mass = body.mass;
        Ok(Dropper {
            part,
            settings,
            scene,
            hull,
            radius,
            mass,
        })
    }

    /// The part's mass (kg).
    pub fn mass(&self) -> f64 {
        self.mass
    }

    /// The part's hull in its body frame (origin at the centre of mass).
    pub fn hull(&self) -> &Polytope {
        &self.hull
    }

    /// The scene of a drop with this `seed`: orientation uniform on SO(3), the lowest point
    /// released at a height H uniform in `settings.height`, at rest; the free fall to
    /// `contact_clearance` done in closed form. Returns the scene (the part at that clearance
    /// with the speed of the fall), H and the fall's duration (s).
    pub fn scene(&self, seed: u64) -> (Scene, f64, f64) {
        let mut rng = Rng::new(seed);
        let q = rng.rotation();
        let (lo, hi) = self.settings.height;
        let release = rng.uniform(lo, hi);
        let lowest = self
            .hull
            .vertices
            .iter()
            .map(|v| (q * *v).z)
            .fold(f64::INFINITY, f64::min);
        let g = -self.scene.model.settings.gravity.z;
        let start = self.settings.contact_clearance.min(release);
        let speed = (2.0 * g * (release - start)).sqrt();
        let mut scene = self.scene.clone();
        let b = &mut scene.initial.bodies[1];
        b.position = DVec3::new(0.0, 0.0, start - lowest);
        b.orientation = q;
        b.velocity = DVec3::new(0.0, 0.0, -speed);
        b.angular_velocity = DVec3::ZERO;
        (scene, release, speed / g)
    }

    /// Classify a resting orientation `q` of the part: (outcome, tilt in rad). The face of the
    /// hull whose outward normal, rotated into the world, is closest to −z.
    pub fn classify(&self, q: DQuat) -> (Outcome, f64) {
        let down = q.inverse() * DVec3::NEG_Z;
        let face = self
            .hull
            .faces
            .iter()
            .max_by(|a, b| a.normal.dot(down).total_cmp(&b.normal.dot(down)))
            .expect("a hull has faces");
        let tilt = face.normal.dot(down).clamp(-1.0, 1.0).acos();
        match self.part.pose_of_normal(face.normal) {
            Some(i) if tilt <= self.settings.max_tilt.max(self.part.pose_tilt(i)) => {
                (Outcome::Pose(i), tilt)
            }
            _ => (Outcome::Leaning, tilt),
        }
    }

    /// One drop: a pure function of the dropper (part, settings) and `seed`.
    pub fn drop(&self, seed: u64) -> Drop {
        let (scene, release_height, fall) = self.scene(seed);
        let s = &self.settings;
        let mut sim = match Simulation::new(scene, None, &[]) {
            Ok(sim) => sim,
            Err(e) => return self.failed(seed, release_height, e.to_string()),
        };
        let mut rest_since: Option<f64> = None;
        let mut max_penetration: f64 = 0.0;
        let energy_limit = s.rest_energy_per_kg * self.mass;
        let inertia = sim.model().bodies[1].inertia;
        let mut rest_time = None;
        let mut energy: f64;
        loop {
            let report = match sim.step() {
                Ok(r) => r,
                Err(e) => {
                    let mut d = self.failed(seed, release_height, e.to_string());
                    d.steps = sim.step_count();
                    d.end_time = fall + sim.state().time;
                    return d;
                }
            };
            max_penetration = max_penetration.max(report.max_penetration);
            let state = sim.state();
            let b = &state.bodies[1];
            let speed = b.velocity.length() + b.angular_velocity.length() * self.radius;
            // ½ m v² + ½ ωᵀ (R J Rᵀ) ω, with ω taken into the body frame.
            let w_body = b.orientation.inverse() * b.angular_velocity;
            energy = 0.5 * self.mass * b.velocity.length_squared()
                + 0.5 * w_body.dot(inertia * w_body);
            if speed <= s.rest_speed && energy <= energy_limit {
                let since = *rest_since.get_or_insert(state.time - report.time_step);
                if state.time - since >= s.rest_hold - 1e-9 * s.time_step {
                    rest_time = Some(fall + since);
                    break;
                }
            } else {
                rest_since = None;
            }
            if fall + state.time >= s.time_cap - 1e-9 * s.time_step {
                break;
            }
        }
        let b = &sim.state().bodies[1];
        let (classified, tilt) = self.classify(b.orientation);
        let outcome = if rest_time.is_some() {
            classified
        } else {
            Outcome::NotAtRest
        };
        Drop {
            seed,
            outcome,
            release_height,
            rest_time,
            end_time: fall + sim.state().time,
            steps: sim.step_count(),
            final_height: b.position.z,
            tilt,
            kinetic_energy: energy,
            max_penetration,
        }
    }

    fn failed(&self, seed: u64, release_height: f64, message: String) -> Drop {
        Drop {
            seed,
            outcome: Outcome::Failed(message),
            release_height,
            rest_time: None,
            end_time: 0.0,
            steps: 0,
            final_height: f64::NAN,
            tilt: f64::NAN,
            kinetic_energy: f64::NAN,
            max_penetration: f64::NAN,
        }
    }
}

/// One drop of `part` under `settings` with `seed` (builds the scene; for many drops build a
/// [`Dropper`] once).
pub fn drop_part(part: Part, settings: DropSettings, seed: u64) -> Result<Drop, Error> {
    Ok(Dropper::new(part, settings)?.drop(seed))
}

/// The drops of `seeds`, in parallel on rayon's current pool, returned in seed order (each drop
/// is single-threaded and deterministic, so the result does not depend on the thread count).
/// `done` is called after each drop (from any thread), for a progress bar.
pub fn monte_carlo(
    dropper: &Dropper,
    seeds: std::ops::Range<u64>,
    done: &(dyn Fn(&Drop) + Sync),
) -> Vec<Drop> {
    let seeds: Vec<u64> = seeds.collect();
    seeds
        .par_iter()
        .map(|&seed| {
            let d = dropper.drop(seed);
            done(&d);
            d
        })
        .collect()
}

/// 1.96: the standard normal quantile of 0.975 (two-sided 95 %).
pub const Z95: f64 = 1.959_963_984_540_054;

/// A pose's count and frequency among the classified drops, with its 95 % Wilson score
/// interval.
#[derive(Clone, Debug, PartialEq)]
pub struct Frequency {
    pub pose: &'static str,
    pub count: usize,
    /// Classified drops (the denominator).
    pub total: usize,
    pub frequency: f64,
    pub ci_low: f64,
    pub ci_high: f64,
}

/// The 95 % Wilson score interval of `k` successes in `n` trials: (p̂ + z²/2n ± z √(p̂(1−p̂)/n +
/// z²/4n²)) / (1 + z²/n). Unlike the normal (Wald) interval it stays inside [0, 1] and is not
/// empty at k = 0, which matters for the rare poses. (0, 1) when n = 0.
pub fn wilson_interval(k: usize, n: usize) -> (f64, f64) {
    if n == 0 {
        return (0.0, 1.0);
    }
    let (k, n, z) = (k as f64, n as f64, Z95);
    let p = k / n;
    let denom = 1.0 + z * z / n;
    let centre = (p + z * z / (2.0 * n)) / denom;
    let half = z * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt() / denom;
    ((centre - half).max(0.0), (centre + half).min(1.0))
}

/// Counts of each pose among `drops` (unclassified drops not counted).
pub fn counts(part: &Part, drops: &[Drop]) -> Vec<usize> {
    let mut c = vec![0; part.poses.len()];
    for d in drops {
        if let Outcome::Pose(i) = d.outcome {
            c[i] += 1;
        }
    }
    c
}

/// Frequencies of the poses among the classified drops, with Wilson intervals.
pub fn frequencies(part: &Part, drops: &[Drop]) -> Vec<Frequency> {
    let c = counts(part, drops);
    let total: usize = c.iter().sum();
    part.poses
        .iter()
        .zip(&c)
        .map(|(&pose, &count)| {
            let (ci_low, ci_high) = wilson_interval(count, total);
            Frequency {
                pose,
                count,
                total,
                frequency: if total > 0 { count as f64 / total as f64 } else { f64::NAN },
                ci_low,
                ci_high,
            }
        })
        .collect()
}

/// Pearson's χ² goodness-of-fit test of `counts` against `expected` probabilities (summing to
/// 1): (χ², degrees of freedom = categories − 1, p-value). Err on a probability ≤ 0, a length
/// mismatch or no counts.
pub fn chi_square(counts: &[usize], expected: &[f64]) -> Result<(f64, usize, f64), String> {
    if counts.len() != expected.len() || counts.len() < 2 {
        return Err(format!(
            "{} counts against {} expected probabilities: need the same number, at least 2",
            counts.len(),
            expected.len()
        ));
    }
    let n: usize = counts.iter().sum();
    if n == 0 {
        return Err("no classified drops to test".into());
    }
    if let Some(p) = expected.iter().find(|p| !(**p > 0.0 && p.is_finite())) {
        return Err(format!("expected probability {p} is not positive"));
    }
    let sum: f64 = expected.iter().sum();
    let stat: f64 = counts
        .iter()
        .zip(expected)
        .map(|(&o, &p)| {
            let e = n as f64 * p / sum;
            (o as f64 - e).powi(2) / e
        })
        .sum();
    let dof = counts.len() - 1;
    Ok((stat, dof, chi_square_p_value(stat, dof)))
}

/// P(X ≥ x) for X ~ χ² with `dof` degrees of freedom: the regularized upper incomplete gamma
/// function Q(dof/2, x/2).
pub fn chi_square_p_value(x: f64, dof: usize) -> f64 {
    if x <= 0.0 {
        return 1.0;
    }
    gamma_q(dof as f64 / 2.0, x / 2.0)
}

/// ln Γ(x) for x > 0: Lanczos' approximation (g = 7, 9 coefficients; relative error ~1e-15),
/// with the reflection formula below 0.5.
pub fn ln_gamma(x: f64) -> f64 {
    const G: f64 = 7.0;
    const C: [f64; 9] = [
        0.999_999_999_999_809_9,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_572e-6,
        1.505_632_735_149_311_6e-7,
    ];
    if x < 0.5 {
        return (PI / (PI * x).sin()).ln() - ln_gamma(1.0 - x);
    }
    let x = x - 1.0;
    let mut a = C[0];
    let t = x + G + 0.5;
    for (i, c) in C.iter().enumerate().skip(1) {
        a += c / (x + i as f64);
    }
    0.5 * (2.0 * PI).ln() + (x + 0.5) * t.ln() - t + a.ln()
}

/// The regularized upper incomplete gamma function Q(a, x) = Γ(a, x)/Γ(a), a > 0, x ≥ 0: the
/// series of P(a, x) for x < a + 1, else Legendre's continued fraction by the modified Lentz
/// method (Numerical Recipes §6.2), each to relative 1e-15.
pub fn gamma_q(a: f64, x: f64) -> f64 {
    if x <= 0.0 {
        return 1.0;
    }
    let front = (-x + a * x.ln() - ln_gamma(a)).exp();
    if x < a + 1.0 {
        // P(a, x) = e^{-x} x^a / Γ(a) Σ x^n / (a (a+1) … (a+n)).
        let (mut term, mut sum, mut ap) = (1.0 / a, 1.0 / a, a);
        for _ in 0..1000 {
            ap += 1.0;
            term *= x / ap;
            sum += term;
            if term.abs() < sum.abs() * 1e-16 {
                break;
            }
        }
        (1.0 - sum * front).max(0.0)
    } else {
        let tiny = 1e-300;
        let mut b = x + 1.0 - a;
        let mut c = 1.0 / tiny;
        let mut d = 1.0 / b;
        let mut h = d;
        for i in 1..1000 {
            let an = -(i as f64) * (i as f64 - a);
            b += 2.0;
            d = an * d + b;
            if d.abs() < tiny {
                d = tiny;
            }
            c = b + an / c;
            if c.abs() < tiny {
                c = tiny;
            }
            d = 1.0 / d;
            let delta = d * c;
            h *= delta;
            if (delta - 1.0).abs() < 1e-16 {
                break;
            }
        }
        front * h
    }
}

/// The paper's error measure e = 100 Σ p_i |a_i − p_i| (§5.2): `physical_percent` the physical
/// tests' frequencies and `simulated_percent` a simulator's, pose by pose, in percent. A pose
/// missing from `simulated_percent` counts as a_i = 0.
pub fn paper_error(simulated_percent: &[f64], physical_percent: &[f64]) -> f64 {
    physical_percent
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let (p, a) = (p / 100.0, simulated_percent.get(i).copied().unwrap_or(0.0) / 100.0);
            p * (a - p).abs()
        })
        .sum::<f64>()
        * 100.0
}

/// Our frequencies (fractions, in [`Part::poses`] order) as percentages per paper pose: our
/// poses matched to the paper's by rank, the i-th most frequent of ours against the paper's
/// pose i (the paper numbers its poses by decreasing physical frequency; its CAD models and pose
/// pictures are not available, so rank is the only correspondence we can make).
pub fn by_paper_pose(ours: &[f64]) -> Vec<f64> {
    let mut sorted: Vec<f64> = ours.iter().map(|f| 100.0 * f).collect();
    sorted.sort_by(|a, b| b.total_cmp(a));
    sorted
}

/// The rank (0 = most frequent) of each of `ours` in decreasing order, ties by index: which
/// paper pose a pose of ours is compared with.
pub fn ranks(ours: &[f64]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..ours.len()).collect();
    order.sort_by(|&a, &b| ours[b].total_cmp(&ours[a]).then(a.cmp(&b)));
    let mut rank = vec![0; ours.len()];
    for (r, &i) in order.iter().enumerate() {
        rank[i] = r;
    }
    rank
}
