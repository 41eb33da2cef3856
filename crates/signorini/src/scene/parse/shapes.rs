//! Shapes: the shape table of a body or piece (exact values), the spawn shapes (numbers may be
//! ranges), convex point lists, and the pieces of a compound body.
use glam::{DQuat, DVec3};
use toml::de::DeTable;

use super::super::desc::*;
use super::hints::choices_hint;
use super::reader::Reader;
use super::values::{
    array, array_n, direction, orientation, range, string, table, vec3, vec3_checked, Check,
};
use super::{keys, Cx, Res, Value, SHAPE_EXAMPLE};
use super::{MAX_CONVEX_POINTS, MAX_CYLINDER_SEGMENTS, MAX_RANDOM_CONVEX_POINTS};

/// Reads `type` of a shape table and checks it is one of `types`.
pub(super) fn shape_type<'v>(
    cx: &Cx,
    t: &'v DeTable,
    pos: usize,
    key: &str,
    types: &[&str],
) -> Res<&'v str> {
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
pub(super) fn shape(cx: &Cx, v: &Value, key: &str) -> Res<LocatedShape> {
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
            segments: r.int("segments", 16, 3, MAX_CYLINDER_SEGMENTS)? as u32,
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
pub(super) fn points(cx: &Cx, v: &Value, key: &str) -> Res<Vec<DVec3>> {
    let a = array(cx, v, key)?;
    if a.len() < 4 {
        let msg = format!("a convex shape needs at least 4 points, got {}", a.len());
        let hint = "give at least 4 points that span a volume, e.g. the corners of a tetrahedron";
        return Err(cx.err(v.span().start, key, msg, hint));
    }
    if a.len() > MAX_CONVEX_POINTS {
        let msg = format!(
            "a convex shape may list at most {MAX_CONVEX_POINTS} points, got {}",
            a.len()
        );
        let hint = "give the hull's own vertices (or a subsample of the cloud): a contact model uses only the hull";
        return Err(cx.err(v.span().start, key, msg, hint));
    }
    a.iter()
        .enumerate()
        .map(|(i, p)| vec3(cx, p, &format!("{key}[{i}]")))
        .collect()
}

/// A spawn shape (numbers may be ranges).
pub(super) fn spawn_shape(cx: &Cx, v: &Value, key: &str) -> Res<LocatedSpawnShape> {
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
            segments: r.int("segments", 16, 3, MAX_CYLINDER_SEGMENTS)? as u32,
        },
        _ => SpawnShapeDesc::RandomConvex {
            points: r.req_int("points", 4, MAX_RANDOM_CONVEX_POINTS)? as u32,
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
pub(super) fn spawn_shapes(cx: &Cx, v: &Value, key: &str) -> Res<Vec<LocatedSpawnShape>> {
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

/// A required positive length, number or range.
pub(super) fn length(r: &mut Reader, name: &'static str) -> Res<Range> {
    r.req(name, "<number or [lo, hi]>", |cx, v, k| {
        range(cx, v, k, Check::Positive, Check::Positive)
    })
}

/// `[lx, ly, lz]`, each a positive number or range.
pub(super) fn size_ranges(cx: &Cx, v: &Value, key: &str) -> Res<[Range; 3]> {
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

/// One piece of a compound body.
pub(super) fn piece(cx: &Cx, v: &Value, key: &str) -> Res<PieceDesc> {
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
