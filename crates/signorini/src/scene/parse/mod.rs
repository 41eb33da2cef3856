//! Scene file parser: TOML text -> validated [`SceneDesc`].
//!
//! The document is parsed with `toml::de::DeTable`, which keeps the byte span of every key and
//! value, and then walked by hand so that every error names the file, line and dotted key.
//!
//! Errors are reported one at a time: top-level tables (and each entry of an array of tables)
//! are checked in file order; inside a table, unknown keys are reported first, then the keys
//! in the order of the documentation. References (material and body names) are resolved
//! against every definition in the file, wherever it appears; duplicate names are reported at
//! the second definition.
//!
//! # Files
//!
//! - `mod.rs`: the entry points [`load_scene`] and [`parse_scene`], the valid keys of each table.
//! - `hints.rs`: "did you mean" suggestions, lists of choices, units, descriptions of values.
//! - `values.rs`: the value readers (numbers, integers, strings, vectors, ranges, orientations).
//! - `shapes.rs`: body, piece and spawn shapes.
//! - `reader.rs`: the table reader (unknown, missing and unread keys).
//! - `sections.rs`: the document walk and `[simulation]`, `[contact]`, `[output]`.
//! - `bodies.rs`: `[[material]]`, `[[body]]` and references to them.
//! - `forces.rs`: `[[force]]` and `[[random_forces]]`.
//! - `spawn.rs`: `[[spawn]]`.
//! - `deformable.rs`: `[[deformable]]`.
//! - `robots.rs`: `[[robot]]` with `[[robot.servo]]` and `[[robot.torque]]`.

mod bodies;
mod deformable;
mod forces;
mod hints;
mod planar;
mod reader;
mod robots;
mod sections;
mod shapes;
mod spawn;
mod values;

use std::path::Path;

use toml::de::{DeTable, DeValue};
use toml::Spanned;

use super::desc::*;
use super::error::{line_of, LineIndex, SceneError};
use sections::Parser;

type Value<'i> = Spanned<DeValue<'i>>;
type Res<T> = Result<T, SceneError>;

/// Valid keys of each table.
#[rustfmt::skip]
mod keys {
    /// A key as the scene spells it in messages: the empty key (`'' = 1`) as `''`.
    pub fn spelled(key: &str) -> &str {
        if key.is_empty() {
            "''"
        } else {
            key
        }
    }

    pub const ROOT: &[&str] = &["simulation", "contact", "material", "body", "force", "random_forces", "spawn", "output",
                                "deformable", "robot"];
    /// Top-level keys that hold arrays of tables (`[[name]]`).
    pub const ARRAY_SECTIONS: &[&str] = &["material", "body", "force", "random_forces", "spawn", "deformable", "robot"];
    pub const SIMULATION: &[&str] = &["dimension", "time_step", "duration", "gravity", "integrator", "activation_distance", "max_speed",
                                      "face_preference", "adaptive"];
    pub const ADAPTIVE: &[&str] = &["energy_tolerance", "min_time_step", "max_time_step"];
    pub const MATERIAL: &[&str] = &["name", "friction", "restitution"];
    pub const BODY: &[&str] = &["name", "fixed", "material", "mass", "density", "position", "orientation", "velocity",
                                "angular_velocity", "shape", "piece"];
    pub const PIECE: &[&str] = &["shape", "position", "orientation"];
    pub const FORCE: &[&str] = &["body", "force", "torque", "point", "start", "end"];
    pub const RANDOM_FORCES: &[&str] = &["body", "seed", "count", "start", "period", "on_time", "magnitude", "direction",
                                         "point_min", "point_max"];
    pub const SPAWN: &[&str] = &["name", "count", "seed", "lattice", "spacing", "origin", "jitter", "random_orientation",
                                 "velocity", "material", "mass", "density", "shapes", "weights", "release_interval"];
    pub const DEFORMABLE: &[&str] = &["name", "size", "divisions", "position", "velocity", "young", "poisson", "density",
                                      "damping", "clamp", "tip_load", "drag", "integrator", "contact_stiffness",
                                      "contact_damping", "friction", "slip_speed", "particle_interval",
                                      "adaptive_tolerance", "adaptive_min_step", "contact_law", "restitution",
                                      "impact_law"];
    pub const ROBOT: &[&str] = &["name", "urdf", "fixed_base", "position", "orientation", "material", "link_materials",
                                 "joints", "joint_velocities", "servo", "torque"];
    pub const SERVO: &[&str] = &["joint", "kp", "kd", "positions", "velocities"];
    pub const TORQUE: &[&str] = &["joint", "schedule"];
    pub const OUTPUT: &[&str] = &["trajectory_interval"];
    pub const ORIENTATION: &[&str] = &["axis", "angle", "angle_deg", "rpy", "rpy_deg"];
    pub const SHAPE_TYPES: &[&str] = &["sphere", "box", "cylinder", "convex", "halfspace"];
    pub const SPAWN_SHAPE_TYPES: &[&str] = &["box", "sphere", "cylinder", "random_convex"];

    /// Valid keys of a shape table of the given `type`.
    pub fn shape(ty: &str) -> &'static [&'static str] {
        match ty {
            "sphere" => &["type", "radius"],
            "box" => &["type", "size"],
            "cylinder" => &["type", "radius", "height", "segments"],
            "convex" => &["type", "points"],
            "halfspace" => &["type", "normal"],
            "random_convex" => &["type", "points", "radius"],
            _ => &["type"],
        }
    }
}

const SHAPE_EXAMPLE: &str = r#"{ type = "box", size = [1.0, 1.0, 1.0] }"#;
const U32_MAX: i64 = u32::MAX as i64;

/// Most flat faces a cylinder's round side may have (docs/scene-format.md): 1,024 faces follow a
/// circle to 5e-6 of its radius; beyond, memory and hull time grow with no gain in shape.
pub const MAX_CYLINDER_SEGMENTS: i64 = 1024;
/// Most points a `convex` shape may list: its hull and topology are built once at load, in time
/// that grows about quadratically with the hull's vertices (measured, all points on a sphere so
/// all are vertices: 5,000 in 0.18 s, 10,000 in 0.8 s, 100,000 in 2 minutes).
pub const MAX_CONVEX_POINTS: usize = 10_000;
/// Most random points of a spawned `random_convex` shape (each spawned body builds its own hull:
/// ~0.03 s at this size).
pub const MAX_RANDOM_CONVEX_POINTS: i64 = 2_000;

/// Reads and validates the scene file at `path`. I/O errors are reported at line 0.
pub fn load_scene(path: &Path) -> Result<SceneDesc, SceneError> {
    let file = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| {
        SceneError::new(
            &file,
            0,
            "file",
            format!("cannot read the scene file: {e}"),
            "check that the path exists and is a readable UTF-8 text file",
        )
    })?;
    parse_scene(&text, &file)
}

/// The TOML document of `text`, or the syntax error at its line.
fn parse_toml<'i>(text: &'i str, file: &str) -> Result<Spanned<DeTable<'i>>, SceneError> {
    DeTable::parse(text).map_err(|e| {
        let line = e.span().map_or(0, |s| line_of(text, s.start));
        SceneError::new(
            file,
            line,
            "syntax",
            e.message(),
            "check the TOML syntax at this line",
        )
    })
}

/// Parses and validates scene `text`; `file` is only used in error messages. A 2D scene
/// (`dimension = 2`) is an error here, at that key: it is read by [`parse_planar_scene`].
pub fn parse_scene(text: &str, file: &str) -> Result<SceneDesc, SceneError> {
    let root = parse_toml(text, file)?;
    let cx = Cx {
        file,
        lines: LineIndex::new(text),
    };
    if planar::dimension(&cx, root.get_ref())? == 2 {
        let pos = root
            .get_ref()
            .get("simulation")
            .and_then(|s| s.get_ref().as_table())
            .and_then(|t| t.get("dimension"))
            .map_or(0, |v| v.span().start);
        return Err(cx.err(
            pos,
            "simulation.dimension",
            "this is a 2D scene; this program reads 3D scenes only",
            "run it with `signorini run` or check it with `signorini check` (they read 2D scenes), or load it with `scene::load_planar`; remove `dimension = 2` for a 3D scene",
        ));
    }
    Parser::new(&cx, root.get_ref()).run()
}

/// The `[simulation] dimension` of scene `text` (2 or 3; 3 when not given).
pub fn dimension_of_text(text: &str, file: &str) -> Result<u32, SceneError> {
    let root = parse_toml(text, file)?;
    let cx = Cx {
        file,
        lines: LineIndex::new(text),
    };
    planar::dimension(&cx, root.get_ref())
}

/// Parses and validates the 2D scene `text` (`[simulation] dimension = 2`, required).
pub fn parse_planar_scene(
    text: &str,
    file: &str,
) -> Result<super::planar::PlanarSceneDesc, SceneError> {
    let root = parse_toml(text, file)?;
    let cx = Cx {
        file,
        lines: LineIndex::new(text),
    };
    if planar::dimension(&cx, root.get_ref())? != 2 {
        return Err(cx.err(
            0,
            "simulation.dimension",
            "this is a 3D scene (no `dimension = 2` in [simulation])",
            "add `dimension = 2` to [simulation] for a 2D scene, or load it with `scene::load`",
        ));
    }
    planar::parse(&cx, root.get_ref())
}

/// What every error needs: the file name and the text's lines, indexed once (every table and
/// value records its line).
struct Cx<'a> {
    file: &'a str,
    lines: LineIndex,
}

impl Cx<'_> {
    fn err(
        &self,
        pos: usize,
        key: &str,
        message: impl Into<String>,
        hint: impl Into<String>,
    ) -> SceneError {
        SceneError::new(self.file, self.lines.line(pos), key, message, hint)
    }

    fn line(&self, pos: usize) -> usize {
        self.lines.line(pos)
    }
}
