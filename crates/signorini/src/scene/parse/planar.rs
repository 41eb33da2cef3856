//! 2D scenes (`[simulation] dimension = 2`): the same file format, walked by the same readers
//! (file:line:key errors, unknown-key hints), with the planar keys: vectors of 2 numbers, an
//! angle instead of an orientation, an angular velocity that is a number, and the planar shape
//! kinds. `[[material]]`, `[contact]` and `[output]` are read by the 3D parser's own functions.
//! `[[force]]`, `[[random_forces]]` and `[[spawn]]` are not available in 2D yet and are refused
//! with a hint saying so.
use glam::DVec2;
use toml::de::{DeTable, DeValue};

use super::hints::choices_hint;
use super::reader::Reader;
use super::sections::Parser;
use super::values::{array, array_n, num, table, tables, Check};
use super::{Cx, Res, Value};
use crate::pipeline::adaptive::check_step_plan;
use crate::planar::shape::{ConvexPolygon, PlanarShape, MAX_POLYGON_POINTS};
use crate::planar::{MassSpec, PlanarBody, PlanarBodyState, PlanarSettings};
use crate::scene::planar::{PlanarBodyDesc, PlanarSceneDesc};

#[rustfmt::skip]
mod keys {
    pub const ROOT: &[&str] = &["simulation", "contact", "material", "body", "output"];
    /// 3D sections a 2D scene cannot have yet.
    pub const NOT_IN_2D: &[&str] = &["force", "random_forces", "spawn", "robot"];
    pub const SIMULATION: &[&str] = &["dimension", "time_step", "duration", "gravity", "activation_distance", "max_speed"];
    pub const BODY: &[&str] = &["name", "fixed", "material", "mass", "density", "position", "angle", "angle_deg",
                                "velocity", "angular_velocity", "shape"];
    pub const SHAPE_TYPES: &[&str] = &["polygon", "regular_polygon", "box", "disk", "segment", "line"];
    pub fn shape(ty: &str) -> &'static [&'static str] {
        match ty {
            "polygon" => &["type", "points"],
            "regular_polygon" => &["type", "sides", "radius"],
            "box" => &["type", "size"],
            "disk" => &["type", "radius"],
            "segment" => &["type", "a", "b"],
            "line" => &["type", "normal"],
            _ => &["type"],
        }
    }
}

const SHAPE_EXAMPLE: &str = r#"{ type = "box", size = [1.0, 0.5] }"#;

/// The `dimension` of `[simulation]` (2 or 3; 3 when absent), checked.
pub(super) fn dimension(cx: &Cx, root: &DeTable) -> Res<u32> {
    let Some(sim) = root.get("simulation") else {
        return Ok(3);
    };
    let Some(t) = sim.get_ref().as_table() else {
        return Ok(3); // the section's own reader reports it
    };
    match t.get("dimension") {
        None => Ok(3),
        Some(v) => Ok(super::values::int(cx, v, "simulation.dimension", 2, 3)? as u32),
    }
}

/// `[x, y]`, each component satisfying `check`.
fn vec2_checked(cx: &Cx, v: &Value, key: &str, check: Check) -> Res<DVec2> {
    let a = array_n(cx, v, key, 2, "[x, y]")?;
    Ok(DVec2::new(
        num(cx, &a[0], &format!("{key}[0]"), check)?,
        num(cx, &a[1], &format!("{key}[1]"), check)?,
    ))
}

fn vec2(cx: &Cx, v: &Value, key: &str) -> Res<DVec2> {
    vec2_checked(cx, v, key, Check::Finite)
}

/// A nonzero `[x, y]`, returned normalized.
fn direction2(cx: &Cx, v: &Value, key: &str) -> Res<DVec2> {
    let d = vec2(cx, v, key)?;
    let len = d.length();
    if !(len > 0.0 && len.is_finite()) {
        let hint = "give a vector with a nonzero, finite length, e.g. [0.0, 1.0]";
        return Err(cx.err(
            v.span().start,
            key,
            "the vector must have a nonzero length",
            hint,
        ));
    }
    Ok(d / len)
}

/// Parse a 2D scene whose `[simulation] dimension = 2` (checked by the caller).
pub(super) fn parse(cx: &Cx, root: &DeTable) -> Res<PlanarSceneDesc> {
    let mut p = Parser::new(cx, root);
    let mut scene = PlanarSceneDesc {
        file: cx.file.to_string(),
        settings: PlanarSettings::default(),
        contact: Default::default(),
        materials: Vec::new(),
        bodies: Vec::new(),
        trajectory_interval: 0.0,
    };
    let mut items: Vec<(usize, &str, Option<usize>, &Value)> = Vec::new();
    for (k, v) in root.iter() {
        let section: &str = k.get_ref();
        match v.get_ref() {
            DeValue::Array(a) if section == "material" || section == "body" => items.extend(
                a.iter()
                    .enumerate()
                    .map(|(i, e)| (e.span().start, section, Some(i), e)),
            ),
            _ => items.push((k.span().start.min(v.span().start), section, None, v)),
        }
    }
    items.sort_by_key(|it| it.0);
    for (pos, section, index, v) in items {
        match (section, index) {
            ("simulation", _) => scene.settings = simulation(cx, v)?,
            ("contact", _) => scene.contact = p.contact(v)?,
            ("output", _) => scene.trajectory_interval = p.output(v)?.trajectory_interval,
            ("material", Some(i)) => p.material(i, v)?,
            ("body", Some(i)) => {
                let b = body(&p, &scene, i, v)?;
                scene.bodies.push(b);
            }
            (s @ ("material" | "body"), None) => _ = tables(cx, v, s)?,
            (s, _) if keys::NOT_IN_2D.contains(&s) => {
                let msg = format!("`[[{s}]]` is not available in 2D scenes yet");
                let hint = "remove it, or write the scene in 3D (without `dimension = 2`)";
                return Err(cx.err(pos, s, msg, hint));
            }
            (s, _) => {
                let msg = format!("unknown key `{}`", super::keys::spelled(s));
                return Err(cx.err(
                    pos,
                    super::keys::spelled(s),
                    msg,
                    choices_hint(s, keys::ROOT, "top-level keys of a 2D scene"),
                ));
            }
        }
    }
    scene.materials = p.scene.materials.clone();
    if !scene.materials.iter().any(|m| m.name == "default") {
        scene
            .materials
            .insert(0, super::super::desc::MaterialDesc::default_material());
    }
    Ok(scene)
}

/// `[simulation]` of a 2D scene.
fn simulation(cx: &Cx, v: &Value) -> Res<PlanarSettings> {
    let t = table(cx, v, "simulation")?;
    for (k, why) in [
        (
            "integrator",
            "2D scenes integrate by semi-implicit Euler (the only planar integrator so far)",
        ),
        (
            "adaptive",
            "adaptive steps are not available in 2D scenes yet",
        ),
    ] {
        if let Some(val) = t.get(k) {
            let hint = format!("remove `{k}`: {why}");
            return Err(cx.err(
                val.span().start,
                &format!("simulation.{k}"),
                format!("`{k}` is not a 2D setting"),
                hint,
            ));
        }
    }
    let mut r = Reader::open(cx, v, "simulation", keys::SIMULATION)?;
    r.get("dimension"); // checked before the walk
    let d = PlanarSettings::default();
    let s = PlanarSettings {
        time_step: r.num("time_step", d.time_step, Check::Positive)?,
        duration: r.num("duration", d.duration, Check::Positive)?,
        gravity: r.opt("gravity", vec2)?.unwrap_or(d.gravity),
        activation_distance: r.num(
            "activation_distance",
            d.activation_distance,
            Check::NonNegative,
        )?,
        max_speed: r.num("max_speed", d.max_speed, Check::Positive)?,
    };
    if let Err((message, hint)) = check_step_plan(s.duration, s.time_step) {
        return Err(r.err("duration", message, hint));
    }
    r.finish()?;
    Ok(s)
}

/// A `[[body]]` of a 2D scene, built (hull, mass properties) with its errors at its keys.
fn body(p: &Parser, scene: &PlanarSceneDesc, i: usize, v: &Value) -> Res<PlanarBodyDesc> {
    let cx = p.cx;
    let key = format!("body[{i}]");
    let mut r = Reader::open(cx, v, &key, keys::BODY)?;
    let name = r.req_name("name")?;
    if let Some(first) = scene.bodies.iter().find(|b| b.body.name == name) {
        let hint = format!(
            "body names must be unique; `{name}` is first defined at line {}",
            first.line
        );
        return Err(r.err("name", format!("duplicate body name `{name}`"), hint));
    }
    let fixed = r.boolean("fixed", false)?;
    let material_name = p.material_ref(&mut r)?;
    let mass = body_mass(&mut r, fixed)?;
    let position = r.opt("position", vec2)?.unwrap_or(DVec2::ZERO);
    let angle = match (
        r.opt_num("angle", Check::Finite)?,
        r.opt_num("angle_deg", Check::Finite)?,
    ) {
        (Some(_), Some(_)) => {
            return Err(r.err(
                "angle_deg",
                "give either `angle` (rad) or `angle_deg`, not both",
                "remove one of them",
            ))
        }
        (a, d) => a.or(d.map(f64::to_radians)).unwrap_or(0.0),
    };
    let velocity = r.opt("velocity", vec2)?.unwrap_or(DVec2::ZERO);
    let angular_velocity = r.num("angular_velocity", 0.0, Check::Finite)?;
    let Some(sv) = r.get("shape") else {
        let hint = format!("add `shape = {SHAPE_EXAMPLE}`");
        return Err(r.err("shape", "the body has no `shape`", hint));
    };
    let skey = r.key("shape");
    let shape = shape(cx, sv, &skey)?;
    r.finish()?;
    // The material's index in the final list (the implicit `default` first unless redefined).
    let material = material_index(p, &material_name);
    let body = if fixed {
        PlanarBody::fixed(&name, shape, material)
    } else {
        let mass = mass.expect("a dynamic body has a mass");
        PlanarBody::dynamic(&name, shape, mass, material).map_err(|why| {
            let hint = "a segment or a line is the shape of a fixed body: set `fixed = true` (and remove `mass` / `density`), or use a polygon, box or disk";
            cx.err(sv.span().start, &skey, why, hint)
        })?
    };
    let com = position + crate::planar::Rot2::new(angle).apply(body.com_in_shape_frame);
    let state = if fixed {
        PlanarBodyState::at_rest(position, angle)
    } else {
        PlanarBodyState {
            position: com,
            angle,
            velocity,
            angular_velocity,
        }
    };
    Ok(PlanarBodyDesc {
        body,
        state,
        line: cx.line(v.span().start),
        key,
    })
}

/// Index of `name` among the materials as `parse` will list them: file order, with `default`
/// first unless the file defines it.
fn material_index(p: &Parser, name: &str) -> usize {
    let defined: Vec<&str> = super::sections::declared_names(p.root, "material");
    let offset = usize::from(!defined.contains(&"default"));
    if name == "default" && offset == 1 {
        return 0;
    }
    offset
        + defined
            .iter()
            .position(|n| *n == name)
            .expect("checked by material_ref")
}

/// None for a fixed body (which must give neither `mass` nor `density`), else exactly one.
fn body_mass(r: &mut Reader, fixed: bool) -> Res<Option<MassSpec>> {
    if fixed {
        if let Some(k) = ["mass", "density"]
            .into_iter()
            .find(|k| r.table.contains_key(*k))
        {
            let hint = format!("remove `{k}` (or set `fixed = false`)");
            return Err(r.err(k, "fixed bodies do not move and take no mass", hint));
        }
        return Ok(None);
    }
    match (
        r.opt_num("mass", Check::Positive)?,
        r.opt_num("density", Check::Positive)?,
    ) {
        (Some(m), None) => Ok(Some(MassSpec::Mass(m))),
        (None, Some(d)) => Ok(Some(MassSpec::Density(d))),
        (None, None) => {
            let hint = "add `mass = <kg>` or `density = <kg/m^2>` (an areal density in 2D), or set `fixed = true`";
            Err(r.err("mass", "a dynamic body needs `mass` or `density`", hint))
        }
        (Some(_), Some(_)) => Err(r.err(
            "density",
            "give either `mass` or `density`, not both",
            "remove one of them",
        )),
    }
}

/// A 2D shape table.
fn shape(cx: &Cx, v: &Value, key: &str) -> Res<PlanarShape> {
    let pos = v.span().start;
    let t = table(cx, v, key)?;
    let ty = super::shapes::shape_type(cx, t, pos, key, keys::SHAPE_TYPES)?;
    let mut r = Reader::new(cx, t, pos, key, keys::shape(ty))?;
    r.get("type");
    let built = |r: &Reader, k: &str, res: Result<ConvexPolygon, String>, hint: &str| {
        res.map(PlanarShape::Polygon)
            .map_err(|why| r.err(k, why, hint.to_string()))
    };
    let shape = match ty {
        "polygon" => {
            let pts = r.req("points", "[[x, y], ...]", points2)?;
            let hint = "give at least 3 points that are not all on one line; the polygon is their convex hull";
            built(&r, "points", ConvexPolygon::from_points(&pts), hint)?
        }
        "regular_polygon" => {
            let sides = r.req_int("sides", 3, MAX_POLYGON_POINTS as i64)? as usize;
            let radius = r.req_num("radius", Check::Positive)?;
            built(
                &r,
                "radius",
                ConvexPolygon::regular(sides, radius),
                "give a positive radius",
            )?
        }
        "box" => {
            let size = r.req("size", "[width, height]", |cx, v, k| {
                vec2_checked(cx, v, k, Check::Positive)
            })?;
            built(
                &r,
                "size",
                ConvexPolygon::rectangle(size.x, size.y),
                "give a positive width and height",
            )?
        }
        "disk" => PlanarShape::Disk {
            radius: r.req_num("radius", Check::Positive)?,
        },
        "segment" => {
            let a = r.req("a", "[x, y]", vec2)?;
            let b = r.req("b", "[x, y]", vec2)?;
            if a == b {
                return Err(r.err(
                    "b",
                    "the segment's ends coincide",
                    "give two different points `a` and `b`",
                ));
            }
            PlanarShape::Segment { a, b }
        }
        _ => PlanarShape::Line {
            normal: r.req("normal", "[0.0, 1.0]", direction2)?,
        },
    };
    r.finish()?;
    Ok(shape)
}

/// `[[x, y], ...]`.
fn points2(cx: &Cx, v: &Value, key: &str) -> Res<Vec<DVec2>> {
    let items = array(cx, v, key)?;
    if items.len() > MAX_POLYGON_POINTS {
        let msg = format!(
            "{} points; a polygon takes at most {MAX_POLYGON_POINTS}",
            items.len()
        );
        return Err(cx.err(v.span().start, key, msg, "give fewer points"));
    }
    items
        .iter()
        .enumerate()
        .map(|(i, p)| vec2(cx, p, &format!("{key}[{i}]")))
        .collect()
}
