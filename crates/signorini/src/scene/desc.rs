//! Plain data describing a scene as written in its file, validated but before any geometry is
//! built. All quantities are SI (m, kg, s, N, rad). Every struct that a later build step may
//! reject carries the `line` (1-based, 0 = not from the file) and dotted `key` of its table, so
//! such errors can be reported with [`SceneError::new`](super::SceneError::new).

use glam::{DQuat, DVec3};

/// A whole scene file.
#[derive(Debug, Clone, PartialEq)]
pub struct SceneDesc {
    /// The file name given to the parser, for error messages.
    pub file: String,
    pub simulation: SimulationDesc,
    pub contact: ContactDesc,
    /// All materials; the implicit `default` comes first unless the file redefines it.
    pub materials: Vec<MaterialDesc>,
    /// The `[[body]]` entries, in file order.
    pub bodies: Vec<BodyDesc>,
    pub forces: Vec<ForceDesc>,
    pub random_forces: Vec<RandomForcesDesc>,
    pub spawns: Vec<SpawnDesc>,
    pub output: OutputDesc,
    /// The `[[deformable]]` entries, in file order (docs/deformable.md).
    pub deformables: Vec<DeformableDesc>,
    /// The `[[robot]]` entries, in file order (docs/scene-format.md, "Robots").
    pub robots: Vec<RobotDesc>,
}

impl SceneDesc {
    /// The material called `name`, if defined (including the implicit `default`).
    pub fn material(&self, name: &str) -> Option<&MaterialDesc> {
        self.materials.iter().find(|m| m.name == name)
    }

    /// Index in `bodies` of the `[[body]]` called `name`.
    pub fn body_index(&self, name: &str) -> Option<usize> {
        self.bodies.iter().position(|b| b.name == name)
    }
}

/// `[simulation]`: time stepping and global settings, as the dynamics layer's `Settings` (units
/// and meaning documented there), with where they were written.
#[derive(Debug, Clone, PartialEq)]
pub struct SimulationDesc {
    pub settings: Settings,
    pub line: usize,
    pub key: String,
}

impl std::ops::Deref for SimulationDesc {
    type Target = Settings;
    fn deref(&self) -> &Settings {
        &self.settings
    }
}

impl Default for SimulationDesc {
    fn default() -> Self {
        SimulationDesc {
            settings: Settings::default(),
            line: 0,
            key: "simulation".into(),
        }
    }
}

/// Time integration scheme (the dynamics layer's own type).
pub use crate::dynamics::{Integrator, Settings};

/// `[contact]`: the contact model and its parameters (validated against the model later).
#[derive(Debug, Clone, PartialEq)]
pub struct ContactDesc {
    /// Contact model name, default `deepest-point`.
    pub model: String,
    /// Line of the `model` key (0 if defaulted).
    pub model_line: usize,
    /// Every other key of `[contact]`, in file order.
    pub params: Vec<ParamDesc>,
    pub line: usize,
    pub key: String,
}

impl Default for ContactDesc {
    fn default() -> Self {
        ContactDesc {
            model: "deepest-point".into(),
            model_line: 0,
            params: Vec::new(),
            line: 0,
            key: "contact".into(),
        }
    }
}

/// One parameter of the contact model: a number (unit defined by the model), a word or a list of
/// words.
#[derive(Debug, Clone, PartialEq)]
pub struct ParamDesc {
    pub name: String,
    pub value: crate::contact::ParamInput,
    pub line: usize,
    /// `contact.{name}`.
    pub key: String,
}

/// `[[material]]`: surface properties shared by bodies.
#[derive(Debug, Clone, PartialEq)]
pub struct MaterialDesc {
    pub name: String,
    /// Coulomb friction coefficient (>= 0).
    pub friction: f64,
    /// Coefficient of restitution, in [0, 1].
    pub restitution: f64,
    pub line: usize,
    pub key: String,
}

impl MaterialDesc {
    /// The implicit material `default`: friction 0.5, restitution 0.
    pub fn default_material() -> Self {
        MaterialDesc {
            name: "default".into(),
            friction: 0.5,
            restitution: 0.0,
            line: 0,
            key: "material(default)".into(),
        }
    }
}

/// The line of each key a table gave (1-based), so that a check made after parsing (the build's
/// mass properties, the initial speed) can blame the key's own line.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct KeyLines(pub Vec<(String, usize)>);

impl KeyLines {
    /// The line of `key`, or `table_line` when the table did not give it.
    pub fn line_of(&self, key: &str, table_line: usize) -> usize {
        self.0
            .iter()
            .find(|(k, _)| k == key)
            .map_or(table_line, |&(_, line)| line)
    }
}

/// `[[body]]`: one rigid body.
#[derive(Debug, Clone, PartialEq)]
pub struct BodyDesc {
    pub name: String,
    /// Name of a defined material.
    pub material: String,
    pub mass: MassDesc,
    /// World position of the shape-frame origin, m.
    pub position: DVec3,
    /// Rotation of the shape frame, normalized.
    pub orientation: DQuat,
    /// Velocity of the centre of mass, m/s, world frame.
    pub velocity: DVec3,
    /// Angular velocity, rad/s, world frame.
    pub angular_velocity: DVec3,
    pub shape: BodyShapeDesc,
    pub line: usize,
    pub key: String,
    /// Lines of the keys given (empty for a body built in code).
    pub key_lines: KeyLines,
}

impl BodyDesc {
    pub fn is_fixed(&self) -> bool {
        self.mass == MassDesc::Fixed
    }
}

/// How a body's mass is given.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum MassDesc {
    /// Total mass, kg (> 0).
    Mass(f64),
    /// Uniform density, kg/m³ (> 0).
    Density(f64),
    /// Immovable body.
    Fixed,
}

/// A body's geometry: one shape, or a compound of pieces.
#[derive(Debug, Clone, PartialEq)]
pub enum BodyShapeDesc {
    Single(LocatedShape),
    Compound(Vec<PieceDesc>),
}

/// A shape with the location of its table in the file.
#[derive(Debug, Clone, PartialEq)]
pub struct LocatedShape {
    pub shape: ShapeDesc,
    pub line: usize,
    /// e.g. `body[0].shape`, `body[1].piece[2].shape`.
    pub key: String,
}

/// One convex shape, in its own frame. Lengths in m.
#[derive(Debug, Clone, PartialEq)]
pub enum ShapeDesc {
    Sphere {
        radius: f64,
    },
    /// Full edge lengths along x, y, z, centred on the origin.
    Box {
        size: DVec3,
    },
    /// Axis along local z, centred; the side is a prism with `segments` faces.
    Cylinder {
        radius: f64,
        height: f64,
        segments: u32,
    },
    /// Convex hull of the points (at least 4, all finite).
    Convex {
        points: Vec<DVec3>,
    },
    /// The solid `{x : normal·x <= 0}`; `normal` is unit length.
    HalfSpace {
        normal: DVec3,
    },
}

impl ShapeDesc {
    /// The `type` name used in scene files.
    pub fn type_name(&self) -> &'static str {
        match self {
            ShapeDesc::Sphere { .. } => "sphere",
            ShapeDesc::Box { .. } => "box",
            ShapeDesc::Cylinder { .. } => "cylinder",
            ShapeDesc::Convex { .. } => "convex",
            ShapeDesc::HalfSpace { .. } => "halfspace",
        }
    }
}

/// `[[body.piece]]`: one convex piece of a compound body.
#[derive(Debug, Clone, PartialEq)]
pub struct PieceDesc {
    pub shape: LocatedShape,
    /// Position in the body's shape frame, m.
    pub position: DVec3,
    /// Rotation relative to the body's shape frame, normalized.
    pub orientation: DQuat,
    pub line: usize,
    /// e.g. `body[1].piece[2]`.
    pub key: String,
}

/// `[[force]]`: a force applied to a body while `start <= t < end`.
#[derive(Debug, Clone, PartialEq)]
pub struct ForceDesc {
    /// Name of a `[[body]]`.
    pub body: String,
    /// N, world frame.
    pub force: DVec3,
    /// N m, world frame.
    pub torque: DVec3,
    /// Application point, m, body shape frame; `None` = the centre of mass.
    pub point: Option<DVec3>,
    /// s.
    pub start: f64,
    /// s, > start; `f64::INFINITY` if not given.
    pub end: f64,
    pub line: usize,
    pub key: String,
}

/// `[[random_forces]]`: pulses of random magnitude at random points (Drumwright perturbation).
#[derive(Debug, Clone, PartialEq)]
pub struct RandomForcesDesc {
    /// Name of a `[[body]]`.
    pub body: String,
    pub seed: u64,
    /// Number of pulses (>= 1).
    pub count: u32,
    /// Start of the first pulse, s.
    pub start: f64,
    /// Pulse `k` starts at `start + k * period`, s (> 0).
    pub period: f64,
    /// Length of each pulse, s (0 < on_time <= period).
    pub on_time: f64,
    /// Force magnitude range, N (0 <= lo <= hi).
    pub magnitude: Range,
    /// Force direction, world frame, normalized.
    pub direction: DVec3,
    /// Application points are uniform in the box [point_min, point_max], m, body shape frame.
    pub point_min: DVec3,
    pub point_max: DVec3,
    pub line: usize,
    pub key: String,
}

/// A closed interval `[lo, hi]` sampled uniformly; a scalar `x` in the file gives `lo = hi = x`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Range {
    pub lo: f64,
    pub hi: f64,
}

impl Range {
    pub fn exact(x: f64) -> Self {
        Range { lo: x, hi: x }
    }
}

/// `[[spawn]]`: many bodies placed on a lattice, deterministic from `seed`.
#[derive(Debug, Clone, PartialEq)]
pub struct SpawnDesc {
    /// Prefix of the generated body names, see [`SpawnDesc::body_name`].
    pub name: String,
    /// Number of bodies (1 ..= lattice cells).
    pub count: u32,
    pub seed: u64,
    /// Cells along x, y, z; filled x fastest, then y, then z.
    pub lattice: [u32; 3],
    /// Distance between cell centres, m (each > 0).
    pub spacing: DVec3,
    /// Centre of cell (0, 0, 0), m.
    pub origin: DVec3,
    /// Uniform offset in [-jitter, jitter] per axis, m (>= 0).
    pub jitter: f64,
    pub random_orientation: bool,
    /// Initial velocity, m/s.
    pub velocity: DVec3,
    pub material: String,
    pub mass: SpawnMassDesc,
    /// Candidate shapes (non-empty).
    pub shapes: Vec<LocatedSpawnShape>,
    /// Relative probability of each shape, same length as `shapes` (all 1 by default).
    pub weights: Vec<f64>,
    /// Body `i` is held at its initial pose (no motion, gravity or contact) until `i ×
    /// release_interval`, s (>= 0; 0 = all free from the start).
    pub release_interval: f64,
    pub line: usize,
    pub key: String,
    /// Lines of the keys given.
    pub key_lines: KeyLines,
}

impl SpawnDesc {
    /// Digits of the zero-padded index: the width of `count - 1`.
    pub fn index_width(&self) -> usize {
        index_width(self.count)
    }

    /// Name of spawned body `index`, e.g. `part_007` for count 200.
    pub fn body_name(&self, index: u32) -> String {
        format!("{}_{:0w$}", self.name, index, w = self.index_width())
    }

    /// Whether this spawn generates a body called `candidate`.
    pub fn generates(&self, candidate: &str) -> bool {
        spawn_generates(&self.name, self.count, candidate)
    }
}

/// Whether a spawn called `name` with `count` bodies generates a body called `candidate`.
pub(crate) fn spawn_generates(name: &str, count: u32, candidate: &str) -> bool {
    let Some(digits) = candidate
        .strip_prefix(name)
        .and_then(|rest| rest.strip_prefix('_'))
    else {
        return false;
    };
    digits.len() == index_width(count)
        && digits.bytes().all(|b| b.is_ascii_digit())
        && digits.parse::<u64>().is_ok_and(|i| i < u64::from(count))
}

pub(crate) fn index_width(count: u32) -> usize {
    count.saturating_sub(1).max(1).ilog10() as usize + 1
}

/// Mass of spawned bodies: exactly one of the two.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum SpawnMassDesc {
    /// kg; `lo = 0` means the open interval (0, hi].
    Mass(Range),
    /// kg/m³; `lo = 0` means the open interval (0, hi].
    Density(Range),
}

/// A spawn shape with the location of its inline table.
#[derive(Debug, Clone, PartialEq)]
pub struct LocatedSpawnShape {
    pub shape: SpawnShapeDesc,
    pub line: usize,
    /// e.g. `spawn[0].shapes[1]`.
    pub key: String,
}

/// A shape template for spawned bodies; every range is sampled per body. Lengths in m.
#[derive(Debug, Clone, PartialEq)]
pub enum SpawnShapeDesc {
    Box {
        size: [Range; 3],
    },
    Sphere {
        radius: Range,
    },
    Cylinder {
        radius: Range,
        height: Range,
        segments: u32,
    },
    /// Hull of `points` random points on a sphere of the given radius.
    RandomConvex {
        points: u32,
        radius: Range,
    },
}

/// `[output]`.
#[derive(Debug, Clone, PartialEq)]
pub struct OutputDesc {
    /// Minimum time between trajectory rows, s (>= 0; 0 = every step).
    pub trajectory_interval: f64,
    pub line: usize,
    pub key: String,
}

impl Default for OutputDesc {
    fn default() -> Self {
        OutputDesc {
            trajectory_interval: 0.0,
            line: 0,
            key: "output".into(),
        }
    }
}

/// `[[deformable]]`: a box (a rod, a plate) of particles and connectors (Deguet, Joukhadar &
/// Laugier 1998; docs/deformable.md, docs/scene-format.md). SI units.
#[derive(Debug, Clone, PartialEq)]
pub struct DeformableDesc {
    /// The box, material, pose, velocity and clamp (`deformable::BoxSpec`).
    pub spec: crate::deformable::BoxSpec,
    /// Penalty contact with the scene's fixed half-spaces.
    pub contact: crate::deformable::PlaneContact,
    /// Penalty forces or impulses (`contact_law`, `restitution`).
    pub law: crate::deformable::ContactLaw,
    /// Mass-proportional drag γ (1/s, ≥ 0).
    pub drag: f64,
    pub integrator: crate::deformable::DeformableIntegrator,
    /// Time between rows of particle positions, s (> 0).
    pub particle_interval: f64,
    /// Deguet's energy-based adaptive steps inside each scene step (§4.2): (ε_e (J, > 0), the
    /// smallest step (s, > 0, ≤ time_step; `None`: time_step / 1024)); `None`: one step of
    /// `time_step`.
    pub adaptive: Option<(f64, Option<f64>)>,
    pub line: usize,
    pub key: String,
    /// Lines of the keys given.
    pub key_lines: KeyLines,
}

/// `[[robot]]`: a URDF robot placed in the scene (docs/scene-format.md, "Robots"). A scene with
/// robots runs as one forest of trees (`multibody`): each robot a tree, each `[[body]]` a link
/// on a floating joint (a fixed body welded to the world), stepped by a tree contact model
/// (`contact::tree`). SI units.
#[derive(Debug, Clone, PartialEq)]
pub struct RobotDesc {
    /// Unique among robots and bodies: the prefix of its joints' columns.
    pub name: String,
    /// The URDF file as written: relative to the scene file's directory, or absolute.
    pub urdf: String,
    /// Weld the root link to the world (default false: a floating base).
    pub fixed_base: bool,
    /// Where the URDF's root link frame is placed in the world (m), and its rotation.
    pub position: DVec3,
    pub orientation: DQuat,
    /// Name of a defined material: the friction of every collision shape of the robot…
    pub material: String,
    /// …but those of these URDF links (link name, material name), in file order: a caster,
    /// a gripper's pads.
    pub link_materials: Vec<(String, String)>,
    /// Initial positions (rad or m) of revolute and prismatic joints by URDF joint name, in
    /// file order; the others start at zero.
    pub joints: Vec<(String, f64)>,
    /// Initial velocities (rad/s or m/s), the same way.
    pub joint_velocities: Vec<(String, f64)>,
    /// `[[robot.servo]]` entries, in file order.
    pub servos: Vec<ServoDesc>,
    /// `[[robot.torque]]` entries, in file order.
    pub torques: Vec<TorqueDesc>,
    pub line: usize,
    /// e.g. `robot[0]`.
    pub key: String,
    /// Lines of the keys given.
    pub key_lines: KeyLines,
}

/// `[[robot.servo]]`: a PD actuator on one revolute or prismatic joint,
/// τ = kp (q* − q) + kd (q̇* − q̇), its target following a schedule.
#[derive(Debug, Clone, PartialEq)]
pub struct ServoDesc {
    /// URDF joint name.
    pub joint: String,
    /// N m/rad or N/m (≥ 0).
    pub kp: f64,
    /// N m s/rad or N s/m (≥ 0).
    pub kd: f64,
    pub target: ServoTarget,
    pub line: usize,
    /// e.g. `robot[0].servo[1]`.
    pub key: String,
}

/// What a servo follows: (time s, value) points, times strictly increasing, the value
/// piecewise linear between them and held before the first and after the last.
#[derive(Debug, Clone, PartialEq)]
pub enum ServoTarget {
    /// `positions = [[t, q], …]` (rad or m): q* through the points, q̇* its slope (0 outside).
    Positions(Vec<(f64, f64)>),
    /// `velocities = [[t, w], …]` (rad/s or m/s): q̇* through the points; only with kp = 0
    /// (a velocity servo, as a wheel's).
    Velocities(Vec<(f64, f64)>),
}

/// `[[robot.torque]]`: a generalized force on one revolute or prismatic joint (N m or N),
/// piecewise linear through `schedule` (time s, value) and held outside it.
#[derive(Debug, Clone, PartialEq)]
pub struct TorqueDesc {
    /// URDF joint name.
    pub joint: String,
    pub schedule: Vec<(f64, f64)>,
    pub line: usize,
    /// e.g. `robot[0].torque[0]`.
    pub key: String,
}
