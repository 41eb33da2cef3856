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

use std::path::Path;

use glam::{DQuat, DVec3};
use toml::de::{DeTable, DeValue};
use toml::Spanned;

use super::desc::*;
use super::error::{line_of, SceneError};
use crate::contact::ParamInput;
use crate::dynamics::AdaptiveSettings;

type Value<'i> = Spanned<DeValue<'i>>;
type Res<T> = Result<T, SceneError>;

/// Valid keys of each table.
#[rustfmt::skip]
mod keys {
    pub const ROOT: &[&str] = &["simulation", "contact", "material", "body", "force", "random_forces", "spawn", "output"];
    /// Top-level keys that hold arrays of tables (`[[name]]`).
    pub const ARRAY_SECTIONS: &[&str] = &["material", "body", "force", "random_forces", "spawn"];
    pub const SIMULATION: &[&str] = &["time_step", "duration", "gravity", "integrator", "activation_distance", "max_speed",
                                      "adaptive"];
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

/// Parses and validates scene `text`; `file` is only used in error messages.
pub fn parse_scene(text: &str, file: &str) -> Result<SceneDesc, SceneError> {
    let root = DeTable::parse(text).map_err(|e| {
        let line = e.span().map_or(0, |s| line_of(text, s.start));
        SceneError::new(
            file,
            line,
            "syntax",
            e.message(),
            "check the TOML syntax at this line",
        )
    })?;
    let cx = Cx { file, text };
    Parser::new(&cx, root.get_ref()).run()
}

/// What every error needs: the file name and the text (for line numbers).
struct Cx<'a> {
    file: &'a str,
    text: &'a str,
}

impl Cx<'_> {
    fn err(
        &self,
        pos: usize,
        key: &str,
        message: impl Into<String>,
        hint: impl Into<String>,
    ) -> SceneError {
        SceneError::at(self.file, self.text, pos, key, message, hint)
    }

    fn line(&self, pos: usize) -> usize {
        line_of(self.text, pos)
    }
}

// ---------------------------------------------------------------------------------------------
// Hints

/// Levenshtein distance between two short strings.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1];
        for (j, &cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != cb);
            cur.push(sub.min(prev[j + 1] + 1).min(cur[j] + 1));
        }
        prev = cur;
    }
    prev[b.len()]
}

/// The candidate closest to `given`, if within edit distance 2.
fn closest<'v>(given: &str, candidates: &[&'v str]) -> Option<&'v str> {
    candidates
        .iter()
        .map(|c| (edit_distance(given, c), *c))
        .filter(|(d, _)| *d <= 2)
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}

/// "did you mean `x`? valid {what}: `a`, `b`" (the list is cut after 20 entries).
fn choices_hint(given: &str, valid: &[&str], what: &str) -> String {
    let mut list: Vec<String> = valid.iter().take(20).map(|v| format!("`{v}`")).collect();
    if valid.len() > 20 {
        list.push(format!("... ({} in all)", valid.len()));
    }
    let list = if valid.is_empty() {
        format!("no {what} are defined")
    } else {
        format!("valid {what}: {}", list.join(", "))
    };
    match closest(given, valid) {
        Some(c) => format!("did you mean `{c}`? {list}"),
        None => list,
    }
}

/// The last key name of a dotted path: `spawn[0].shapes[1].size[2]` -> `size`.
fn leaf(key: &str) -> &str {
    let last = key.rsplit('.').next().unwrap_or(key);
    last.split('[').next().unwrap_or(last)
}

/// The unit of a key, for hints.
fn unit_of(name: &str) -> Option<&'static str> {
    Some(match name {
        "time_step"
        | "duration"
        | "start"
        | "end"
        | "period"
        | "on_time"
        | "min_time_step"
        | "max_time_step"
        | "trajectory_interval"
        | "release_interval" => "in s",
        "energy_tolerance" => "in J",
        "mass" => "in kg",
        "density" => "in kg/m^3",
        "radius" | "height" | "size" | "spacing" | "jitter" | "activation_distance" => "in m",
        "max_speed" => "in m/s",
        "magnitude" => "in N",
        "friction" | "restitution" | "weights" => "dimensionless",
        _ => return None,
    })
}

/// A short description of a value, for "expected X, found Y" messages.
fn found(v: &DeValue) -> String {
    match v {
        DeValue::String(s) if s.chars().count() > 40 => {
            format!(
                "the string \"{}...\"",
                s.chars().take(40).collect::<String>()
            )
        }
        DeValue::String(s) => format!("the string \"{s}\""),
        DeValue::Integer(i) => format!("the integer {}", i.as_str()),
        DeValue::Float(f) => format!("the float {}", f.as_str()),
        DeValue::Boolean(b) => format!("the boolean {b}"),
        DeValue::Datetime(_) => "a date-time".into(),
        DeValue::Array(a) => format!("an array of {} items", a.len()),
        DeValue::Table(_) => "a table".into(),
    }
}

// ---------------------------------------------------------------------------------------------
// Value conversions. Each takes the value, its dotted key (for errors), and returns a checked
// Rust value.

/// A constraint on a number.
#[derive(Clone, Copy)]
enum Check {
    Finite,
    Positive,
    NonNegative,
    Fraction,
}

impl Check {
    fn holds(self, x: f64) -> bool {
        match self {
            Check::Finite => true,
            Check::Positive => x > 0.0,
            Check::NonNegative => x >= 0.0,
            Check::Fraction => (0.0..=1.0).contains(&x),
        }
    }

    fn text(self) -> &'static str {
        match self {
            Check::Finite => "a finite number",
            Check::Positive => "greater than 0",
            Check::NonNegative => "at least 0",
            Check::Fraction => "between 0 and 1",
        }
    }
}

fn type_err(cx: &Cx, v: &Value, key: &str, expected: &str, hint: impl Into<String>) -> SceneError {
    let message = format!("expected {expected}, found {}", found(v.get_ref()));
    cx.err(v.span().start, key, message, hint)
}

/// A contact-model parameter: a number, a string, or an array of strings.
fn param_input(cx: &Cx, v: &Value, key: &str) -> Res<ParamInput> {
    let hint = "a contact-model parameter is a number (e.g. `1e5`), a word in quotes \
                (e.g. `\"anticipating\"`) or a list of words (e.g. `[\"lemke\", \"pgs\"]`); \
                `signorini models` lists each model's parameters";
    if is_number(v) {
        return Ok(ParamInput::Number(num(cx, v, key, Check::Finite)?));
    }
    if let Some(w) = v.get_ref().as_str() {
        return Ok(ParamInput::Word(w.to_string()));
    }
    if let Some(items) = v.get_ref().as_array() {
        let mut words = Vec::with_capacity(items.len());
        for (i, item) in items.iter().enumerate() {
            let item_key = format!("{key}[{i}]");
            words.push(string(cx, item, &item_key)?.to_string());
        }
        return Ok(ParamInput::List(words));
    }
    Err(type_err(
        cx,
        v,
        key,
        "a number, a word or a list of words",
        hint,
    ))
}

fn is_number(v: &Value) -> bool {
    matches!(v.get_ref(), DeValue::Integer(_) | DeValue::Float(_))
}

/// A TOML integer (floats are rejected).
fn int(cx: &Cx, v: &Value, key: &str, min: i64, max: i64) -> Res<i64> {
    let n = match v.get_ref() {
        DeValue::Integer(i) => i64::from_str_radix(i.as_str(), i.radix()).map_err(|_| {
            let msg = format!("integer {} is out of range", i.as_str());
            cx.err(
                v.span().start,
                key,
                msg,
                format!("give an integer from {min} to {max}"),
            )
        })?,
        DeValue::Float(_) => {
            let hint = "write a whole number without a decimal point or exponent, e.g. `3`";
            return Err(type_err(cx, v, key, "an integer", hint));
        }
        _ => {
            return Err(type_err(
                cx,
                v,
                key,
                "an integer",
                "write a whole number, e.g. `3`",
            ))
        }
    };
    let bound = if n < min {
        format!("at least {min}")
    } else if n > max {
        format!("at most {max}")
    } else {
        return Ok(n);
    };
    let msg = format!("must be an integer {bound}, got {n}");
    Err(cx.err(v.span().start, key, msg, format!("give an integer {bound}")))
}

/// A finite number satisfying `check`; TOML integers are accepted as floats.
fn num(cx: &Cx, v: &Value, key: &str, check: Check) -> Res<f64> {
    let pos = v.span().start;
    let (x, raw) = match v.get_ref() {
        DeValue::Integer(i) => match i64::from_str_radix(i.as_str(), i.radix()) {
            Ok(n) => (n as f64, i.as_str()),
            Err(_) => (f64::INFINITY, i.as_str()),
        },
        DeValue::Float(f) => (f.as_str().parse().unwrap_or(f64::NAN), f.as_str()),
        _ => {
            let hint = "write a number such as `1.0` (integers like `2` are accepted too)";
            return Err(type_err(cx, v, key, "a number", hint));
        }
    };
    if !x.is_finite() {
        let hint = "nan, inf and out-of-range numbers have no physical meaning here; write a finite number";
        let msg = format!("expected a finite number, found {raw}");
        return Err(cx.err(pos, key, msg, hint));
    }
    if !check.holds(x) {
        let name = leaf(key);
        let hint = match unit_of(name) {
            Some(unit) => format!("`{name}` is {unit}; give a value {}", check.text()),
            None => format!("give a value {}", check.text()),
        };
        return Err(cx.err(pos, key, format!("must be {}, got {x}", check.text()), hint));
    }
    Ok(x)
}

fn string<'v>(cx: &Cx, v: &'v Value, key: &str) -> Res<&'v str> {
    let hint = r#"write it in double quotes, e.g. "name""#;
    v.get_ref()
        .as_str()
        .ok_or_else(|| type_err(cx, v, key, "a string", hint))
}

/// A non-empty string naming something.
fn name(cx: &Cx, v: &Value, key: &str) -> Res<String> {
    let s = string(cx, v, key)?;
    if s.is_empty() {
        return Err(cx.err(
            v.span().start,
            key,
            "the name is empty",
            "give a non-empty name",
        ));
    }
    Ok(s.to_string())
}

fn boolean(cx: &Cx, v: &Value, key: &str) -> Res<bool> {
    let hint = "write `true` or `false` (no quotes)";
    v.get_ref()
        .as_bool()
        .ok_or_else(|| type_err(cx, v, key, "a boolean", hint))
}

fn array<'v, 'i>(cx: &Cx, v: &'v Value<'i>, key: &str) -> Res<&'v [Value<'i>]> {
    match v.get_ref() {
        DeValue::Array(a) => Ok(a),
        _ => Err(type_err(
            cx,
            v,
            key,
            "an array",
            "write it in brackets, e.g. `[1.0, 2.0]`",
        )),
    }
}

/// An array of exactly `n` items; `form` shows the expected shape, e.g. `[x, y, z]`.
fn array_n<'v, 'i>(
    cx: &Cx,
    v: &'v Value<'i>,
    key: &str,
    n: usize,
    form: &str,
) -> Res<&'v [Value<'i>]> {
    match v.get_ref() {
        DeValue::Array(a) if a.len() == n => Ok(a),
        _ => {
            let expected = format!("an array of {n} numbers {form}");
            Err(type_err(
                cx,
                v,
                key,
                &expected,
                format!("write it as {form}"),
            ))
        }
    }
}

fn table<'v, 'i>(cx: &Cx, v: &'v Value<'i>, key: &str) -> Res<&'v DeTable<'i>> {
    match v.get_ref() {
        DeValue::Table(t) => Ok(t),
        _ => {
            let hint = format!("write `{}` as a table: `[{key}]` or `{{ ... }}`", leaf(key));
            Err(type_err(cx, v, key, "a table", hint))
        }
    }
}

/// The items of an array of tables (`[[key]]` headers or an array of inline tables).
fn tables<'v, 'i>(cx: &Cx, v: &'v Value<'i>, key: &str) -> Res<&'v [Value<'i>]> {
    match v.get_ref() {
        DeValue::Array(a) => Ok(a),
        _ => {
            let hint = format!("write each entry under its own `[[{key}]]` header");
            Err(type_err(cx, v, key, "an array of tables", hint))
        }
    }
}

/// `[x, y, z]`, each component satisfying `check`.
fn vec3_checked(cx: &Cx, v: &Value, key: &str, check: Check) -> Res<DVec3> {
    let a = array_n(cx, v, key, 3, "[x, y, z]")?;
    let mut out = [0.0; 3];
    for (i, (o, e)) in out.iter_mut().zip(a).enumerate() {
        *o = num(cx, e, &format!("{key}[{i}]"), check)?;
    }
    Ok(DVec3::from_array(out))
}

fn vec3(cx: &Cx, v: &Value, key: &str) -> Res<DVec3> {
    vec3_checked(cx, v, key, Check::Finite)
}

/// A nonzero vector, returned normalized.
fn direction(cx: &Cx, v: &Value, key: &str) -> Res<DVec3> {
    let d = vec3(cx, v, key)?;
    let len = d.length();
    if !(len > 0.0 && len.is_finite()) {
        let hint = "give a vector with a nonzero, finite length, e.g. [0.0, 0.0, 1.0]";
        return Err(cx.err(
            v.span().start,
            key,
            "the vector must have a nonzero length",
            hint,
        ));
    }
    Ok(d / len)
}

/// A number `x` (= `[x, x]`) or a range `[lo, hi]` with `lo <= hi`; `lo` satisfies `lo_check`,
/// `hi` and a single number satisfy `check`.
fn range(cx: &Cx, v: &Value, key: &str, lo_check: Check, check: Check) -> Res<Range> {
    match v.get_ref() {
        DeValue::Array(a) if a.len() == 2 => {
            let lo = num(cx, &a[0], &format!("{key}[0]"), lo_check)?;
            let hi = num(cx, &a[1], &format!("{key}[1]"), check)?;
            if lo > hi {
                let msg = format!("the range [{lo}, {hi}] has lo > hi");
                let hint = format!("write the smaller bound first: [{hi}, {lo}]");
                return Err(cx.err(v.span().start, key, msg, hint));
            }
            Ok(Range { lo, hi })
        }
        _ if is_number(v) => Ok(Range::exact(num(cx, v, key, check)?)),
        _ => {
            let hint = "write a single number or `[lo, hi]`";
            Err(type_err(cx, v, key, "a number or a range [lo, hi]", hint))
        }
    }
}

/// `[w, x, y, z]`, `{ axis, angle | angle_deg }` or `{ rpy | rpy_deg }`, returned normalized.
fn orientation(cx: &Cx, v: &Value, key: &str) -> Res<DQuat> {
    let pos = v.span().start;
    let q = match v.get_ref() {
        DeValue::Array(_) => {
            let a = array_n(cx, v, key, 4, "[w, x, y, z]")?;
            let mut c = [0.0; 4];
            for (i, (o, e)) in c.iter_mut().zip(a).enumerate() {
                *o = num(cx, e, &format!("{key}[{i}]"), Check::Finite)?;
            }
            let q = DQuat::from_xyzw(c[1], c[2], c[3], c[0]);
            let len = q.length();
            if !(len > 0.0 && len.is_finite()) {
                let hint =
                    "give a nonzero quaternion [w, x, y, z]; the identity is [1.0, 0.0, 0.0, 0.0]";
                return Err(cx.err(pos, key, "the quaternion has zero norm", hint));
            }
            q
        }
        DeValue::Table(t) => {
            let mut r = Reader::new(cx, t, pos, key, keys::ORIENTATION)?;
            let axis = r.opt("axis", direction)?;
            let angle = r.opt_num("angle", Check::Finite)?;
            let angle_deg = r.opt_num("angle_deg", Check::Finite)?;
            let rpy = r.opt("rpy", vec3)?;
            let rpy_deg = r.opt("rpy_deg", vec3)?;
            r.finish()?;
            let rpy_quat = |e: DVec3| {
                DQuat::from_rotation_z(e.z)
                    * DQuat::from_rotation_y(e.y)
                    * DQuat::from_rotation_x(e.x)
            };
            match (axis, angle, angle_deg, rpy, rpy_deg) {
                (Some(a), Some(t), None, None, None) => DQuat::from_axis_angle(a, t),
                (Some(a), None, Some(d), None, None) => DQuat::from_axis_angle(a, d.to_radians()),
                (None, None, None, Some(e), None) => rpy_quat(e),
                (None, None, None, None, Some(e)) => rpy_quat(e * 1f64.to_radians()),
                _ => {
                    let msg =
                        "an orientation table takes `axis` with one of `angle` / `angle_deg`, \
                               or one of `rpy` / `rpy_deg`";
                    let hint = "e.g. `{ axis = [0.0, 0.0, 1.0], angle_deg = 30.0 }` or \
                                `{ rpy_deg = [0.0, 0.0, 30.0] }`";
                    return Err(cx.err(pos, key, msg, hint));
                }
            }
        }
        _ => {
            let hint = "write a quaternion [w, x, y, z] or a table such as \
                        `{ axis = [0.0, 0.0, 1.0], angle_deg = 30.0 }`";
            return Err(type_err(cx, v, key, "an orientation", hint));
        }
    };
    Ok(q.normalize())
}

/// Reads `type` of a shape table and checks it is one of `types`.
fn shape_type<'v>(cx: &Cx, t: &'v DeTable, pos: usize, key: &str, types: &[&str]) -> Res<&'v str> {
    let list = types
        .iter()
        .map(|t| format!("\"{t}\""))
        .collect::<Vec<_>>()
        .join(", ");
    let Some(v) = t.get("type") else {
        let hint = format!("add `type = ...`, one of {list}");
        return Err(cx.err(pos, &format!("{key}.type"), "the shape has no `type`", hint));
    };
    let ty = string(cx, v, &format!("{key}.type"))?;
    if !types.contains(&ty) {
        let msg = format!("unknown shape type `{ty}`");
        return Err(cx.err(
            v.span().start,
            &format!("{key}.type"),
            msg,
            choices_hint(ty, types, "types"),
        ));
    }
    Ok(ty)
}

/// A body or piece shape (exact values).
fn shape(cx: &Cx, v: &Value, key: &str) -> Res<LocatedShape> {
    let pos = v.span().start;
    let t = table(cx, v, key)?;
    let ty = shape_type(cx, t, pos, key, keys::SHAPE_TYPES)?;
    let mut r = Reader::new(cx, t, pos, key, keys::shape(ty))?;
    r.get("type");
    let shape = match ty {
        "sphere" => ShapeDesc::Sphere {
            radius: r.req_num("radius", Check::Positive)?,
        },
        "box" => ShapeDesc::Box {
            size: r.req("size", "[lx, ly, lz]", |cx, v, k| {
                vec3_checked(cx, v, k, Check::Positive)
            })?,
        },
        "cylinder" => ShapeDesc::Cylinder {
            radius: r.req_num("radius", Check::Positive)?,
            height: r.req_num("height", Check::Positive)?,
            segments: r.int("segments", 16, 3, U32_MAX)? as u32,
        },
        "convex" => ShapeDesc::Convex {
            points: r.req("points", "[[x, y, z], ...]", points)?,
        },
        _ => ShapeDesc::HalfSpace {
            normal: r.req("normal", "[0.0, 0.0, 1.0]", direction)?,
        },
    };
    r.finish()?;
    Ok(LocatedShape {
        shape,
        line: cx.line(pos),
        key: key.to_string(),
    })
}

/// At least 4 finite points `[[x, y, z], ...]`.
fn points(cx: &Cx, v: &Value, key: &str) -> Res<Vec<DVec3>> {
    let a = array(cx, v, key)?;
    if a.len() < 4 {
        let msg = format!("a convex shape needs at least 4 points, got {}", a.len());
        let hint = "give at least 4 points that span a volume, e.g. the corners of a tetrahedron";
        return Err(cx.err(v.span().start, key, msg, hint));
    }
    a.iter()
        .enumerate()
        .map(|(i, p)| vec3(cx, p, &format!("{key}[{i}]")))
        .collect()
}

/// A spawn shape (numbers may be ranges).
fn spawn_shape(cx: &Cx, v: &Value, key: &str) -> Res<LocatedSpawnShape> {
    let pos = v.span().start;
    let t = table(cx, v, key)?;
    let ty = shape_type(cx, t, pos, key, keys::SPAWN_SHAPE_TYPES)?;
    let mut r = Reader::new(cx, t, pos, key, keys::shape(ty))?;
    r.get("type");
    let shape = match ty {
        "box" => SpawnShapeDesc::Box {
            size: r.req("size", "[lx, ly, lz]", size_ranges)?,
        },
        "sphere" => SpawnShapeDesc::Sphere {
            radius: length(&mut r, "radius")?,
        },
        "cylinder" => SpawnShapeDesc::Cylinder {
            radius: length(&mut r, "radius")?,
            height: length(&mut r, "height")?,
            segments: r.int("segments", 16, 3, U32_MAX)? as u32,
        },
        _ => SpawnShapeDesc::RandomConvex {
            points: r.req_int("points", 4, U32_MAX)? as u32,
            radius: length(&mut r, "radius")?,
        },
    };
    r.finish()?;
    Ok(LocatedSpawnShape {
        shape,
        line: cx.line(pos),
        key: key.to_string(),
    })
}

/// The non-empty `shapes` array of a spawn.
fn spawn_shapes(cx: &Cx, v: &Value, key: &str) -> Res<Vec<LocatedSpawnShape>> {
    let items = array(cx, v, key)?;
    if items.is_empty() {
        let hint = "give at least one shape, e.g. [{ type = \"sphere\", radius = 0.1 }]";
        return Err(cx.err(v.span().start, key, "`shapes` is empty", hint));
    }
    let shapes = items.iter().enumerate();
    shapes
        .map(|(j, s)| spawn_shape(cx, s, &format!("{key}[{j}]")))
        .collect()
}

/// `n` weights, each >= 0, not all zero.
fn weights(cx: &Cx, v: &Value, key: &str, n: usize) -> Res<Vec<f64>> {
    let items = array(cx, v, key)?;
    if items.len() != n {
        let msg = format!("`weights` has {} entries but `shapes` has {n}", items.len());
        return Err(cx.err(
            v.span().start,
            key,
            msg,
            "give one weight per entry of `shapes`",
        ));
    }
    let w = items.iter().enumerate();
    let w = w.map(|(j, e)| num(cx, e, &format!("{key}[{j}]"), Check::NonNegative));
    let w = w.collect::<Res<Vec<f64>>>()?;
    if w.iter().all(|&x| x == 0.0) {
        let hint = "give at least one shape a positive weight";
        return Err(cx.err(v.span().start, key, "all weights are zero", hint));
    }
    Ok(w)
}

/// A required positive length, number or range.
fn length(r: &mut Reader, name: &'static str) -> Res<Range> {
    r.req(name, "<number or [lo, hi]>", |cx, v, k| {
        range(cx, v, k, Check::Positive, Check::Positive)
    })
}

/// `[lx, ly, lz]`, each a positive number or range.
fn size_ranges(cx: &Cx, v: &Value, key: &str) -> Res<[Range; 3]> {
    let a = array_n(cx, v, key, 3, "[lx, ly, lz]")?;
    let mut out = [Range::exact(0.0); 3];
    for (i, (o, e)) in out.iter_mut().zip(a).enumerate() {
        *o = range(
            cx,
            e,
            &format!("{key}[{i}]"),
            Check::Positive,
            Check::Positive,
        )?;
    }
    Ok(out)
}

/// `[nx, ny, nz]`, integers >= 1.
fn lattice(cx: &Cx, v: &Value, key: &str) -> Res<[u32; 3]> {
    let a = array_n(cx, v, key, 3, "[nx, ny, nz]")?;
    let mut out = [0; 3];
    for (i, (o, e)) in out.iter_mut().zip(a).enumerate() {
        *o = int(cx, e, &format!("{key}[{i}]"), 1, U32_MAX)? as u32;
    }
    Ok(out)
}

// ---------------------------------------------------------------------------------------------
// Table reader

/// Reads the keys of one table one at a time, recording which were consumed.
///
/// Keys not in `valid` are rejected when the reader is created (so a misspelt key is reported
/// as such rather than as a missing one); [`Reader::finish`] rejects any key left unread.
struct Reader<'a, 'i> {
    cx: &'a Cx<'a>,
    table: &'a DeTable<'i>,
    /// Byte offset of the table (its header or opening brace), for "missing key" errors.
    pos: usize,
    /// Dotted path of the table, e.g. `body[2]`.
    path: String,
    valid: &'static [&'static str],
    used: Vec<&'static str>,
}

impl<'a, 'i> Reader<'a, 'i> {
    fn new(
        cx: &'a Cx<'a>,
        table: &'a DeTable<'i>,
        pos: usize,
        path: &str,
        valid: &'static [&'static str],
    ) -> Res<Self> {
        let r = Reader {
            cx,
            table,
            pos,
            path: path.to_string(),
            valid,
            used: Vec::new(),
        };
        r.reject_keys(|k| valid.contains(&k))?;
        Ok(r)
    }

    /// A reader over the table value `v` at `path`.
    fn open(
        cx: &'a Cx<'a>,
        v: &'a Value<'i>,
        path: &str,
        valid: &'static [&'static str],
    ) -> Res<Self> {
        Self::new(cx, table(cx, v, path)?, v.span().start, path, valid)
    }

    /// Reports the first key, in file order, for which `ok` is false.
    fn reject_keys(&self, ok: impl Fn(&str) -> bool) -> Res<()> {
        let mut keys: Vec<_> = self.table.keys().collect();
        keys.sort_by_key(|k| k.span().start);
        match keys.into_iter().find(|k| !ok(k.get_ref())) {
            None => Ok(()),
            Some(k) => Err(self.cx.err(
                k.span().start,
                &self.key(k.get_ref()),
                format!("unknown key `{}`", k.get_ref()),
                choices_hint(k.get_ref(), self.valid, "keys here"),
            )),
        }
    }

    /// Fails on the first key that was not read.
    fn finish(self) -> Res<()> {
        self.reject_keys(|k| self.used.contains(&k))
    }

    fn key(&self, name: &str) -> String {
        if self.path.is_empty() {
            name.to_string()
        } else {
            format!("{}.{name}", self.path)
        }
    }

    /// The raw value of `name`, marking it consumed.
    fn get(&mut self, name: &'static str) -> Option<&'a Value<'i>> {
        self.used.push(name);
        self.table.get(name)
    }

    /// Byte offset of the value of `name`, or of the table if absent.
    fn at(&self, name: &str) -> usize {
        self.table.get(name).map_or(self.pos, |v| v.span().start)
    }

    /// An error about key `name`, at its value (or at the table if the key is absent).
    fn err(&self, name: &str, message: impl Into<String>, hint: impl Into<String>) -> SceneError {
        self.cx.err(self.at(name), &self.key(name), message, hint)
    }

    fn missing(&self, name: &str, example: &str) -> SceneError {
        let unit = unit_of(name).map(|u| format!(" ({u})")).unwrap_or_default();
        let hint = format!("add `{name} = {example}`{unit} to this table");
        self.cx.err(
            self.pos,
            &self.key(name),
            format!("missing required key `{name}`"),
            hint,
        )
    }

    fn opt<T>(
        &mut self,
        name: &'static str,
        f: impl FnOnce(&Cx, &Value, &str) -> Res<T>,
    ) -> Res<Option<T>> {
        let key = self.key(name);
        self.get(name).map(|v| f(self.cx, v, &key)).transpose()
    }

    /// A required key; `example` shows its form in the "missing key" hint.
    fn req<T>(
        &mut self,
        name: &'static str,
        example: &str,
        f: impl FnOnce(&Cx, &Value, &str) -> Res<T>,
    ) -> Res<T> {
        self.opt(name, f)?
            .ok_or_else(|| self.missing(name, example))
    }

    fn opt_num(&mut self, name: &'static str, check: Check) -> Res<Option<f64>> {
        self.opt(name, |cx, v, k| num(cx, v, k, check))
    }

    fn num(&mut self, name: &'static str, default: f64, check: Check) -> Res<f64> {
        Ok(self.opt_num(name, check)?.unwrap_or(default))
    }

    fn req_num(&mut self, name: &'static str, check: Check) -> Res<f64> {
        self.req(name, "<number>", |cx, v, k| num(cx, v, k, check))
    }

    fn int(&mut self, name: &'static str, default: i64, min: i64, max: i64) -> Res<i64> {
        Ok(self
            .opt(name, |cx, v, k| int(cx, v, k, min, max))?
            .unwrap_or(default))
    }

    fn req_int(&mut self, name: &'static str, min: i64, max: i64) -> Res<i64> {
        self.req(name, "<integer>", |cx, v, k| int(cx, v, k, min, max))
    }

    fn vec3(&mut self, name: &'static str, default: DVec3) -> Res<DVec3> {
        Ok(self.opt(name, vec3)?.unwrap_or(default))
    }

    fn req_vec3(&mut self, name: &'static str) -> Res<DVec3> {
        self.req(name, "[x, y, z]", vec3)
    }

    fn string(&mut self, name: &'static str, default: &str) -> Res<String> {
        Ok(self
            .opt(name, |cx, v, k| string(cx, v, k).map(str::to_string))?
            .unwrap_or_else(|| default.to_string()))
    }

    fn req_name(&mut self, name: &'static str) -> Res<String> {
        self.req(name, "\"...\"", self::name)
    }

    fn boolean(&mut self, name: &'static str, default: bool) -> Res<bool> {
        Ok(self.opt(name, boolean)?.unwrap_or(default))
    }
}

// ---------------------------------------------------------------------------------------------
// Sections

struct Parser<'a, 'i> {
    cx: &'a Cx<'a>,
    root: &'a DeTable<'i>,
    /// Names given in `[[material]]`, `[[body]]` and `[[spawn]]` anywhere in the file, for
    /// resolving references regardless of order.
    material_names: Vec<&'a str>,
    body_names: Vec<&'a str>,
    spawn_names: Vec<&'a str>,
    scene: SceneDesc,
}

/// The `name` strings of the entries of the array of tables `section`.
fn declared_names<'a>(root: &'a DeTable, section: &str) -> Vec<&'a str> {
    let Some(DeValue::Array(items)) = root.get(section).map(|v| v.get_ref()) else {
        return Vec::new();
    };
    items
        .iter()
        .filter_map(|e| e.get_ref().as_table()?.get("name")?.get_ref().as_str())
        .collect()
}

impl<'a, 'i> Parser<'a, 'i> {
    fn new(cx: &'a Cx<'a>, root: &'a DeTable<'i>) -> Self {
        let mut material_names = declared_names(root, "material");
        if !material_names.contains(&"default") {
            material_names.insert(0, "default");
        }
        Parser {
            cx,
            root,
            material_names,
            body_names: declared_names(root, "body"),
            spawn_names: declared_names(root, "spawn"),
            scene: SceneDesc {
                file: cx.file.to_string(),
                simulation: SimulationDesc::default(),
                contact: ContactDesc::default(),
                materials: Vec::new(),
                bodies: Vec::new(),
                forces: Vec::new(),
                random_forces: Vec::new(),
                spawns: Vec::new(),
                output: OutputDesc::default(),
            },
        }
    }

    fn run(mut self) -> Res<SceneDesc> {
        // (position, section, index in its array of tables, value), visited in file order.
        let mut items: Vec<(usize, &'a str, Option<usize>, &'a Value<'i>)> = Vec::new();
        for (k, v) in self.root.iter() {
            let section: &'a str = k.get_ref();
            match v.get_ref() {
                DeValue::Array(a) if keys::ARRAY_SECTIONS.contains(&section) => {
                    items.extend(
                        a.iter()
                            .enumerate()
                            .map(|(i, e)| (e.span().start, section, Some(i), e)),
                    );
                }
                _ => items.push((k.span().start.min(v.span().start), section, None, v)),
            }
        }
        items.sort_by_key(|it| it.0);
        for (pos, section, index, v) in items {
            match (section, index) {
                ("simulation", _) => self.scene.simulation = self.simulation(v)?,
                ("contact", _) => self.scene.contact = self.contact(v)?,
                ("output", _) => self.scene.output = self.output(v)?,
                ("material", Some(i)) => self.material(i, v)?,
                ("body", Some(i)) => self.body(i, v)?,
                ("force", Some(i)) => self.force(i, v)?,
                ("random_forces", Some(i)) => self.random_forces(i, v)?,
                ("spawn", Some(i)) => self.spawn(i, v)?,
                // Not an array (arrays were split into their entries above): fails.
                (s, None) if keys::ARRAY_SECTIONS.contains(&s) => _ = tables(self.cx, v, s)?,
                (s, _) => {
                    let msg = format!("unknown key `{s}`");
                    return Err(self.cx.err(
                        pos,
                        s,
                        msg,
                        choices_hint(s, keys::ROOT, "top-level keys"),
                    ));
                }
            }
        }
        if !self.scene.materials.iter().any(|m| m.name == "default") {
            self.scene
                .materials
                .insert(0, MaterialDesc::default_material());
        }
        Ok(self.scene)
    }

    fn simulation(&self, v: &'a Value<'i>) -> Res<SimulationDesc> {
        let mut r = Reader::open(self.cx, v, "simulation", keys::SIMULATION)?;
        let d = SimulationDesc::default();
        let settings = Settings {
            time_step: r.num("time_step", d.time_step, Check::Positive)?,
            duration: r.num("duration", d.duration, Check::Positive)?,
            gravity: r.vec3("gravity", d.gravity)?,
            integrator: {
                let name = r.string("integrator", d.integrator.name())?;
                name.parse().map_err(|msg| {
                    let names = Integrator::ALL.map(|i| i.name());
                    let hint = choices_hint(&name, &names, "integrators");
                    r.err("integrator", msg, hint)
                })?
            },
            activation_distance: r.num(
                "activation_distance",
                d.activation_distance,
                Check::NonNegative,
            )?,
            max_speed: r.num("max_speed", d.max_speed, Check::Positive)?,
            adaptive: None,
        };
        let mut settings = settings;
        if let Some(a) = r.get("adaptive") {
            settings.adaptive = Some(self.adaptive(a, settings.time_step)?);
        }
        let sim = SimulationDesc {
            settings,
            line: self.cx.line(v.span().start),
            key: d.key,
        };
        r.finish()?;
        Ok(sim)
    }

    /// `[simulation.adaptive]`: Deguet's energy-based adaptive steps, starting from `time_step`.
    fn adaptive(&self, v: &'a Value<'i>, time_step: f64) -> Res<AdaptiveSettings> {
        let mut r = Reader::open(self.cx, v, "simulation.adaptive", keys::ADAPTIVE)?;
        let a = AdaptiveSettings {
            energy_tolerance: r.req_num("energy_tolerance", Check::Positive)?,
            min_time_step: r.num("min_time_step", time_step * 1e-6, Check::Positive)?,
            max_time_step: r.num("max_time_step", time_step, Check::Positive)?,
        };
        if a.min_time_step > a.max_time_step {
            return Err(r.err(
                "min_time_step",
                format!(
                    "min_time_step = {} s is above max_time_step = {} s",
                    a.min_time_step, a.max_time_step
                ),
                "make min_time_step <= max_time_step (max_time_step defaults to time_step)",
            ));
        }
        if time_step > a.max_time_step || time_step < a.min_time_step {
            return Err(r.err(
                "max_time_step",
                format!(
                    "simulation.time_step = {time_step} s, the first step, is outside [min_time_step, max_time_step] = [{}, {}] s",
                    a.min_time_step, a.max_time_step
                ),
                "set time_step between min_time_step and max_time_step",
            ));
        }
        r.finish()?;
        Ok(a)
    }

    /// `[contact]`: `model` plus the model's parameters (numbers, words or lists of words), kept
    /// in file order; the model checks them.
    fn contact(&self, v: &'a Value<'i>) -> Res<ContactDesc> {
        let cx = self.cx;
        let t = table(cx, v, "contact")?;
        let mut contact = ContactDesc {
            line: cx.line(v.span().start),
            ..ContactDesc::default()
        };
        let mut entries: Vec<_> = t.iter().collect();
        entries.sort_by_key(|(k, _)| k.span().start);
        for (k, val) in entries {
            let name: &str = k.get_ref();
            let key = format!("contact.{name}");
            if name == "model" {
                contact.model = string(cx, val, &key)?.to_string();
                contact.model_line = cx.line(val.span().start);
            } else {
                let value = param_input(cx, val, &key)?;
                let line = cx.line(k.span().start);
                contact.params.push(ParamDesc {
                    name: name.to_string(),
                    value,
                    line,
                    key,
                });
            }
        }
        Ok(contact)
    }

    fn output(&self, v: &'a Value<'i>) -> Res<OutputDesc> {
        let mut r = Reader::open(self.cx, v, "output", keys::OUTPUT)?;
        let out = OutputDesc {
            trajectory_interval: r.num("trajectory_interval", 0.0, Check::NonNegative)?,
            line: self.cx.line(v.span().start),
            key: "output".into(),
        };
        r.finish()?;
        Ok(out)
    }

    fn material(&mut self, i: usize, v: &'a Value<'i>) -> Res<()> {
        let key = format!("material[{i}]");
        let mut r = Reader::open(self.cx, v, &key, keys::MATERIAL)?;
        let name = r.req_name("name")?;
        if let Some(first) = self.scene.materials.iter().find(|m| m.name == name) {
            let hint = format!(
                "material names must be unique; `{name}` is first defined at line {}",
                first.line
            );
            return Err(r.err("name", format!("duplicate material name `{name}`"), hint));
        }
        let material = MaterialDesc {
            name,
            friction: r.num("friction", 0.5, Check::NonNegative)?,
            restitution: r.num("restitution", 0.0, Check::Fraction)?,
            line: self.cx.line(v.span().start),
            key,
        };
        r.finish()?;
        self.scene.materials.push(material);
        Ok(())
    }

    /// Reads `material` (default `default`) and checks it is defined somewhere in the file.
    fn material_ref(&self, r: &mut Reader) -> Res<String> {
        let name = r.string("material", "default")?;
        if !self.material_names.contains(&name.as_str()) {
            let hint = format!(
                "define it in a [[material]] table; {}",
                choices_hint(&name, &self.material_names, "materials")
            );
            return Err(r.err("material", format!("undefined material `{name}`"), hint));
        }
        Ok(name)
    }

    /// Reads `body` and checks it names a `[[body]]`.
    fn body_ref(&self, r: &mut Reader) -> Res<String> {
        let name = r.req("body", "\"<body name>\"", |cx, v, k| {
            string(cx, v, k).map(str::to_string)
        })?;
        if self.body_names.contains(&name.as_str()) {
            return Ok(name);
        }
        let spawned = self.spawn_names.iter().any(|s| {
            name.strip_prefix(s)
                .and_then(|rest| rest.strip_prefix('_'))
                .is_some_and(|d| d.bytes().all(|b| b.is_ascii_digit()))
        });
        let hint = if spawned {
            "spawned bodies cannot be referenced; name a [[body]] instead".to_string()
        } else {
            let choices = choices_hint(&name, &self.body_names, "[[body]] names");
            format!("`body` must name a [[body]] table; {choices}")
        };
        Err(r.err("body", format!("undefined body `{name}`"), hint))
    }

    fn body(&mut self, i: usize, v: &'a Value<'i>) -> Res<()> {
        let cx = self.cx;
        let key = format!("body[{i}]");
        let mut r = Reader::open(cx, v, &key, keys::BODY)?;
        let name = r.req_name("name")?;
        if let Some(first) = self.scene.bodies.iter().find(|b| b.name == name) {
            let hint = format!(
                "body names must be unique; `{name}` is first defined at line {}",
                first.line
            );
            return Err(r.err("name", format!("duplicate body name `{name}`"), hint));
        }
        if let Some(s) = self.scene.spawns.iter().find(|s| s.generates(&name)) {
            let msg = format!(
                "the name `{name}` is also given to a body of {} (line {})",
                s.key, s.line
            );
            return Err(r.err("name", msg, "rename this body or the spawn"));
        }
        let fixed = r.boolean("fixed", false)?;
        let material = self.material_ref(&mut r)?;
        let mass = if fixed {
            if let Some(k) = ["mass", "density"]
                .into_iter()
                .find(|k| r.table.contains_key(*k))
            {
                let hint = format!("remove `{k}` (or set `fixed = false`)");
                return Err(r.err(k, "fixed bodies do not move and take no mass", hint));
            }
            MassDesc::Fixed
        } else {
            match (
                r.opt_num("mass", Check::Positive)?,
                r.opt_num("density", Check::Positive)?,
            ) {
                (Some(m), None) => MassDesc::Mass(m),
                (None, Some(d)) => MassDesc::Density(d),
                (None, None) => {
                    let hint = "add `mass = <kg>` or `density = <kg/m^3>`, or set `fixed = true`";
                    return Err(r.err("mass", "a dynamic body needs `mass` or `density`", hint));
                }
                (Some(_), Some(_)) => {
                    let msg = "give either `mass` or `density`, not both";
                    return Err(r.err("density", msg, "remove one of them"));
                }
            }
        };
        let position = r.vec3("position", DVec3::ZERO)?;
        let orientation = r
            .opt("orientation", orientation)?
            .unwrap_or(DQuat::IDENTITY);
        let velocity = r.vec3("velocity", DVec3::ZERO)?;
        let angular_velocity = r.vec3("angular_velocity", DVec3::ZERO)?;
        let shape = match (r.get("shape"), r.get("piece")) {
            (Some(s), None) => {
                let shape = shape(cx, s, &r.key("shape"))?;
                if matches!(shape.shape, ShapeDesc::HalfSpace { .. }) && !fixed {
                    let msg = "a halfspace is infinite and must belong to a fixed body";
                    let hint = "set `fixed = true` on this body (and remove `mass` / `density`)";
                    return Err(cx.err(s.span().start, &shape.key, msg, hint));
                }
                BodyShapeDesc::Single(shape)
            }
            (None, Some(p)) => {
                let pkey = r.key("piece");
                let pieces = tables(cx, p, &pkey)?;
                if pieces.is_empty() {
                    let hint = format!(
                        "add at least one piece, e.g. [[body.piece]] with shape = {SHAPE_EXAMPLE}"
                    );
                    return Err(r.err("piece", "a compound body needs at least one piece", hint));
                }
                let pieces = pieces
                    .iter()
                    .enumerate()
                    .map(|(j, p)| piece(cx, p, &format!("{pkey}[{j}]")));
                BodyShapeDesc::Compound(pieces.collect::<Res<_>>()?)
            }
            (None, None) => {
                let hint =
                    format!("add `shape = {SHAPE_EXAMPLE}`, or one or more [[body.piece]] tables");
                return Err(r.err("shape", "the body has no `shape` and no `piece`", hint));
            }
            (Some(_), Some(_)) => {
                let msg = "a body has either `shape` or [[body.piece]] tables, not both";
                let hint = "remove `shape`, or move it into a [[body.piece]] table";
                return Err(r.err("piece", msg, hint));
            }
        };
        r.finish()?;
        self.scene.bodies.push(BodyDesc {
            name,
            material,
            mass,
            position,
            orientation,
            velocity,
            angular_velocity,
            shape,
            line: cx.line(v.span().start),
            key,
        });
        Ok(())
    }

    fn force(&mut self, i: usize, v: &'a Value<'i>) -> Res<()> {
        let key = format!("force[{i}]");
        let mut r = Reader::open(self.cx, v, &key, keys::FORCE)?;
        let body = self.body_ref(&mut r)?;
        let force = r.vec3("force", DVec3::ZERO)?;
        let torque = r.vec3("torque", DVec3::ZERO)?;
        let point = r.opt("point", vec3)?;
        let start = r.num("start", 0.0, Check::Finite)?;
        let end = r.opt_num("end", Check::Finite)?.unwrap_or(f64::INFINITY);
        if end <= start {
            let msg = format!("end ({end} s) must be after start ({start} s)");
            let hint =
                "make `end` greater than `start`, or omit `end` for a force that never stops";
            return Err(r.err("end", msg, hint));
        }
        r.finish()?;
        let line = self.cx.line(v.span().start);
        self.scene.forces.push(ForceDesc {
            body,
            force,
            torque,
            point,
            start,
            end,
            line,
            key,
        });
        Ok(())
    }

    fn random_forces(&mut self, i: usize, v: &'a Value<'i>) -> Res<()> {
        let cx = self.cx;
        let key = format!("random_forces[{i}]");
        let mut r = Reader::open(cx, v, &key, keys::RANDOM_FORCES)?;
        let body = self.body_ref(&mut r)?;
        let seed = r.req_int("seed", 0, i64::MAX)? as u64;
        let count = r.req_int("count", 1, U32_MAX)? as u32;
        let start = r.num("start", 0.0, Check::Finite)?;
        let period = r.req_num("period", Check::Positive)?;
        let on_time = r.req_num("on_time", Check::Positive)?;
        if on_time > period {
            let msg = format!("on_time ({on_time} s) is longer than period ({period} s)");
            let hint = "pulses must not overlap: make `on_time` at most `period`";
            return Err(r.err("on_time", msg, hint));
        }
        let magnitude = r.req("magnitude", "[lo, hi]", |cx, v, k| {
            range(cx, v, k, Check::NonNegative, Check::NonNegative)
        })?;
        let direction = r.req("direction", "[x, y, z]", direction)?;
        let point_min = r.req_vec3("point_min")?;
        let point_max = r.req_vec3("point_max")?;
        if let Some(c) = (0..3).find(|&c| point_min[c] > point_max[c]) {
            let msg = format!(
                "point_max[{c}] ({}) is less than point_min[{c}] ({})",
                point_max[c], point_min[c]
            );
            let hint = "each component of `point_max` must be at least that of `point_min`";
            return Err(r.err("point_max", msg, hint));
        }
        r.finish()?;
        let line = cx.line(v.span().start);
        self.scene.random_forces.push(RandomForcesDesc {
            body,
            seed,
            count,
            start,
            period,
            on_time,
            magnitude,
            direction,
            point_min,
            point_max,
            line,
            key,
        });
        Ok(())
    }

    fn spawn(&mut self, i: usize, v: &'a Value<'i>) -> Res<()> {
        let cx = self.cx;
        let key = format!("spawn[{i}]");
        let line = cx.line(v.span().start);
        let mut r = Reader::open(cx, v, &key, keys::SPAWN)?;
        let name = r.req_name("name")?;
        if let Some(first) = self.scene.spawns.iter().find(|s| s.name == name) {
            let hint = format!(
                "spawn names must be unique; `{name}` is first used at line {}",
                first.line
            );
            return Err(r.err("name", format!("duplicate spawn name `{name}`"), hint));
        }
        let count = r.req_int("count", 1, U32_MAX)? as u32;
        if let Some(b) = self
            .scene
            .bodies
            .iter()
            .find(|b| spawn_generates(&name, count, &b.name))
        {
            let msg = format!(
                "this spawn names a body `{}`, already the name of {} (line {})",
                b.name, b.key, b.line
            );
            return Err(r.err("name", msg, "rename the spawn or that body"));
        }
        let seed = r.req_int("seed", 0, i64::MAX)? as u64;
        let lattice = r.req("lattice", "[nx, ny, nz]", lattice)?;
        let cells = lattice.iter().map(|&n| u128::from(n)).product::<u128>();
        if u128::from(count) > cells {
            let msg = format!("count {count} exceeds the {cells} cells of lattice {lattice:?}");
            let hint = "enlarge `lattice` or lower `count`: each body needs its own cell";
            return Err(r.err("count", msg, hint));
        }
        let spacing = r.req("spacing", "[dx, dy, dz]", |cx, v, k| {
            vec3_checked(cx, v, k, Check::Positive)
        })?;
        let origin = r.vec3("origin", DVec3::ZERO)?;
        let jitter = r.num("jitter", 0.0, Check::NonNegative)?;
        let random_orientation = r.boolean("random_orientation", false)?;
        let velocity = r.vec3("velocity", DVec3::ZERO)?;
        let material = self.material_ref(&mut r)?;
        let mass_range =
            |cx: &Cx, v: &Value, k: &str| range(cx, v, k, Check::NonNegative, Check::Positive);
        let mass = match (r.opt("mass", mass_range)?, r.opt("density", mass_range)?) {
            (Some(m), None) => SpawnMassDesc::Mass(m),
            (None, Some(d)) => SpawnMassDesc::Density(d),
            (None, None) => {
                let hint = "add `mass = <kg or [lo, hi]>` or `density = <kg/m^3 or [lo, hi]>`";
                return Err(r.err("mass", "a spawn needs `mass` or `density`", hint));
            }
            (Some(_), Some(_)) => {
                let msg = "give either `mass` or `density`, not both";
                return Err(r.err("density", msg, "remove one of them"));
            }
        };
        let shapes = r.req(
            "shapes",
            "[{ type = \"sphere\", radius = 0.1 }]",
            spawn_shapes,
        )?;
        let weights = r.opt("weights", |cx, v, k| weights(cx, v, k, shapes.len()))?;
        let weights = weights.unwrap_or_else(|| vec![1.0; shapes.len()]);
        let release_interval = r.num("release_interval", 0.0, Check::NonNegative)?;
        r.finish()?;
        self.scene.spawns.push(SpawnDesc {
            name,
            count,
            seed,
            lattice,
            spacing,
            origin,
            jitter,
            random_orientation,
            velocity,
            material,
            mass,
            shapes,
            weights,
            release_interval,
            line,
            key,
        });
        Ok(())
    }
}

/// One piece of a compound body.
fn piece(cx: &Cx, v: &Value, key: &str) -> Res<PieceDesc> {
    let mut r = Reader::open(cx, v, key, keys::PIECE)?;
    let shape = r.req("shape", SHAPE_EXAMPLE, shape)?;
    if matches!(shape.shape, ShapeDesc::HalfSpace { .. }) {
        let msg = "a halfspace cannot be a piece of a compound body";
        let hint = "give the halfspace its own [[body]] with `fixed = true` and `shape = { type = \"halfspace\", normal = [0.0, 0.0, 1.0] }`";
        return Err(cx.err(r.at("shape"), &shape.key, msg, hint));
    }
    let piece = PieceDesc {
        shape,
        position: r.vec3("position", DVec3::ZERO)?,
        orientation: r
            .opt("orientation", orientation)?
            .unwrap_or(DQuat::IDENTITY),
        line: cx.line(v.span().start),
        key: key.to_string(),
    };
    r.finish()?;
    Ok(piece)
}
