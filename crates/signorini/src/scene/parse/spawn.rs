//! `[[spawn]]` tables: many bodies on a lattice with random shapes (chosen by `weights`), sizes,
//! masses and orientations.
use glam::DVec3;

use super::super::desc::*;
use super::reader::Reader;
use super::sections::Parser;
use super::shapes::spawn_shapes;
use super::values::{array, array_n, int, num, range, vec3_checked, Check};
use super::{keys, Cx, Res, Value, U32_MAX};

/// `n` weights, each >= 0, not all zero.
pub(super) fn weights(cx: &Cx, v: &Value, key: &str, n: usize) -> Res<Vec<f64>> {
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

/// `[nx, ny, nz]`, integers >= 1.
pub(super) fn lattice(cx: &Cx, v: &Value, key: &str) -> Res<[u32; 3]> {
    let a = array_n(cx, v, key, 3, "[nx, ny, nz]")?;
    let mut out = [0; 3];
    for (i, (o, e)) in out.iter_mut().zip(a).enumerate() {
        *o = int(cx, e, &format!("{key}[{i}]"), 1, U32_MAX)? as u32;
    }
    Ok(out)
}

impl<'a, 'i> Parser<'a, 'i> {
    pub(super) fn spawn(&mut self, i: usize, v: &'a Value<'i>) -> Res<()> {
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
        let cells = DVec3::new(lattice[0] as f64, lattice[1] as f64, lattice[2] as f64);
        let far_corner = origin + (cells - DVec3::ONE) * spacing + DVec3::splat(jitter);
        if !far_corner.is_finite() {
            let msg = format!(
                "the lattice's far corner, origin + (lattice - 1) * spacing + jitter, is {far_corner}: not finite"
            );
            return Err(r.err(
                "spacing",
                msg,
                "give spacings and a jitter in metres of a sensible size",
            ));
        }
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
        let key_lines = r.key_lines();
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
            key_lines,
        });
        Ok(())
    }
}
