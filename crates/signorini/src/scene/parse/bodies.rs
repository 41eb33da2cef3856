//! `[[material]]` and `[[body]]` tables, and the references to them (`material = "..."`,
//! `body = "..."`) checked against every definition in the file.
use glam::{DQuat, DVec3};

use super::super::desc::*;
use super::hints::choices_hint;
use super::reader::Reader;
use super::sections::Parser;
use super::shapes::{piece, shape};
use super::values::{orientation, string, tables, Check};
use super::{keys, Res, Value, SHAPE_EXAMPLE};

impl<'a, 'i> Parser<'a, 'i> {
    pub(super) fn material(&mut self, i: usize, v: &'a Value<'i>) -> Res<()> {
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
    pub(super) fn material_ref(&self, r: &mut Reader) -> Res<String> {
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
    pub(super) fn body_ref(&self, r: &mut Reader) -> Res<String> {
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

    pub(super) fn body(&mut self, i: usize, v: &'a Value<'i>) -> Res<()> {
        let cx = self.cx;
        let key = format!("body[{i}]");
        let mut r = Reader::open(cx, v, &key, keys::BODY)?;
        let name = r.req_name("name")?;
        if let Some(first) = self
            .parsed_bodies
            .get(&name)
            .map(|&b| &self.scene.bodies[b])
        {
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
        let mass = body_mass(&mut r, fixed)?;
        let position = r.vec3("position", DVec3::ZERO)?;
        let orientation = r
            .opt("orientation", orientation)?
            .unwrap_or(DQuat::IDENTITY);
        let velocity = r.vec3("velocity", DVec3::ZERO)?;
        let angular_velocity = r.vec3("angular_velocity", DVec3::ZERO)?;
        let shape = body_shape(&mut r, fixed)?;
        let key_lines = r.key_lines();
        r.finish()?;
        self.parsed_bodies
            .insert(name.clone(), self.scene.bodies.len());
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
            key_lines,
        });
        Ok(())
    }
}

/// The mass of a `[[body]]`: none for a fixed body (which must not give `mass` or `density`),
/// else exactly one of `mass` and `density`.
fn body_mass(r: &mut Reader, fixed: bool) -> Res<MassDesc> {
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
    Ok(mass)
}

/// The shape of a `[[body]]`: either `shape` (a halfspace only on a fixed body) or one or more
/// `[[body.piece]]` tables.
fn body_shape(r: &mut Reader, fixed: bool) -> Res<BodyShapeDesc> {
    let cx = r.cx;
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
    Ok(shape)
}
