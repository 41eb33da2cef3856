//! `[[deformable]]` tables: a box (rod, plate) of particles and connectors (Deguet, Joukhadar &
//! Laugier 1998; docs/deformable.md), its material, pose, clamp and penalty contact.
use glam::DVec3;

use super::super::desc::*;
use super::hints::choices_hint;
use super::reader::Reader;
use super::sections::Parser;
use super::values::{array_n, int, vec3_checked, Check};
use super::{keys, Cx, Res, Value};
use crate::deformable::{
    BoxSpec, Clamp, ContactLaw, DeformableIntegrator, DeformableMaterial, ImpactLaw, PlaneContact,
};

/// Most cells of one deformable (as `deformable::generate::check`).
const MAX_CELLS: i64 = 2_000_000;
/// The clamp choices: the face held fixed, by axis and side.
const CLAMPS: &[&str] = &["none", "-x", "+x", "-y", "+y", "-z", "+z"];

/// `divisions = [n_x, n_y, n_z]`: cells along each axis, 1..=10000 each.
fn divisions(cx: &Cx, v: &Value, key: &str) -> Res<[usize; 3]> {
    let a = array_n(cx, v, key, 3, "[n_x, n_y, n_z]")?;
    let mut out = [0usize; 3];
    for (i, (o, e)) in out.iter_mut().zip(a).enumerate() {
        *o = int(cx, e, &format!("{key}[{i}]"), 1, 10_000)? as usize;
    }
    if out.iter().map(|&n| n as i64).product::<i64>() > MAX_CELLS {
        return Err(cx.err(
            v.span().start,
            key,
            format!("{out:?} makes more than {MAX_CELLS} cells"),
            "use fewer cells: each is a particle with up to a dozen connectors",
        ));
    }
    Ok(out)
}

impl<'a, 'i> Parser<'a, 'i> {
    pub(super) fn deformable(&mut self, i: usize, v: &'a Value<'i>) -> Res<()> {
        let key = format!("deformable[{i}]");
        let mut r = Reader::open(self.cx, v, &key, keys::DEFORMABLE)?;
        let name = r.req_name("name")?;
        if let Some(first) = self.scene.deformables.iter().find(|d| d.spec.name == name) {
            let hint = format!(
                "deformable names must be unique (they name the output files); `{name}` is first defined at line {}",
                first.line
            );
            return Err(r.err("name", format!("duplicate deformable name `{name}`"), hint));
        }
        let size = r.req("size", "[0.1, 0.1, 0.1]", |cx, v, k| {
            vec3_checked(cx, v, k, Check::Positive)
        })?;
        let divisions = r.req("divisions", "[3, 3, 3]", divisions)?;
        let position = r.vec3("position", DVec3::ZERO)?;
        // The particles' spacing must survive round-off at this position: f64's relative step
        // 2.2e-16 times 1e12 leaves 2e-4 of a cell.
        let cell = (0..3)
            .map(|k| size[k] / divisions[k] as f64)
            .fold(f64::INFINITY, f64::min);
        let reach = position.abs().max_element() + size.max_element();
        if reach > cell * 1e12 {
            let msg = format!(
                "at this position ({reach:e} m from the origin) the cells of {cell:e} m are lost in round-off"
            );
            let hint = format!("keep each coordinate of position below {:e} m", cell * 1e12);
            return Err(r.err("position", msg, hint));
        }
        let velocity = r.vec3("velocity", DVec3::ZERO)?;
        let d = DeformableMaterial::default();
        let young = r.num("young", d.young, Check::Positive)?;
        let poisson = r.num("poisson", d.poisson, Check::Finite)?;
        if !(0.0..0.5).contains(&poisson) {
            let msg = format!("poisson = {poisson} is outside [0, 0.5)");
            return Err(r.err(
                "poisson",
                msg,
                "give a Poisson ratio ≥ 0 and < 0.5, e.g. 0.3",
            ));
        }
        let material = DeformableMaterial {
            young,
            poisson,
            density: r.num("density", d.density, Check::Positive)?,
            damping: r.num("damping", d.damping, Check::NonNegative)?,
        };
        let clamp_name = r.string("clamp", "none")?;
        let clamp = match CLAMPS.iter().position(|c| *c == clamp_name) {
            Some(0) => None,
            Some(k) => Some(Clamp {
                axis: (k - 1) / 2,
                positive: k % 2 == 0,
            }),
            None => {
                let msg = format!("unknown clamp `{clamp_name}`");
                return Err(r.err("clamp", msg, choices_hint(&clamp_name, CLAMPS, "clamps")));
            }
        };
        let tip_load = r.vec3("tip_load", DVec3::ZERO)?;
        if clamp.is_none() && tip_load != DVec3::ZERO {
            let hint = "add `clamp = \"-x\"` (or another face): the load acts on the face opposite the clamped one";
            return Err(r.err("tip_load", "tip_load needs a clamp", hint));
        }
        let drag = r.num("drag", 0.0, Check::NonNegative)?;
        let scheme = r.string("integrator", DeformableIntegrator::Verlet.name())?;
        let integrator = DeformableIntegrator::from_name(&scheme).ok_or_else(|| {
            let hint = choices_hint(&scheme, &DeformableIntegrator::NAMES, "integrators");
            r.err("integrator", format!("unknown integrator `{scheme}`"), hint)
        })?;
        let c = PlaneContact::default();
        let contact = PlaneContact {
            stiffness: r.num("contact_stiffness", c.stiffness, Check::Positive)?,
            damping: r.num("contact_damping", c.damping, Check::NonNegative)?,
            friction: r.num("friction", c.friction, Check::NonNegative)?,
            slip_speed: r.num("slip_speed", c.slip_speed, Check::Positive)?,
        };
        let law_name = r.string("contact_law", "penalty")?;
        let restitution = r.opt_num("restitution", Check::NonNegative)?;
        let law = match (law_name.as_str(), restitution) {
            ("penalty", None) => {
                if r.get("impact_law").is_some() {
                    let hint = "impact_law is the impulse law's: add `contact_law = \"impulse\"`";
                    return Err(r.err(
                        "impact_law",
                        "impact_law without contact_law = \"impulse\"",
                        hint,
                    ));
                }
                ContactLaw::Penalty
            }
            ("penalty", Some(_)) => {
                let hint = "restitution is the impulse law's: add `contact_law = \"impulse\"`, or set the penalty law's contact_damping (Deguet eq. 5) instead";
                return Err(r.err(
                    "restitution",
                    "restitution without contact_law = \"impulse\"",
                    hint,
                ));
            }
            ("impulse", e) => {
                let e = e.unwrap_or(0.5);
                if e > 1.0 {
                    let msg = format!("restitution = {e} is above 1");
                    return Err(r.err("restitution", msg, "give a coefficient in [0, 1]"));
                }
                let name = r.string("impact_law", ImpactLaw::Newton.name())?;
                let impact = ImpactLaw::from_name(&name).ok_or_else(|| {
                    let hint = choices_hint(&name, &ImpactLaw::NAMES, "collision laws");
                    r.err(
                        "impact_law",
                        format!("unknown collision law `{name}`"),
                        hint,
                    )
                })?;
                ContactLaw::Impulse {
                    restitution: e,
                    impact,
                }
            }
            (other, _) => {
                let hint = choices_hint(other, &["penalty", "impulse"], "contact laws");
                return Err(r.err(
                    "contact_law",
                    format!("unknown contact law `{other}`"),
                    hint,
                ));
            }
        };
        let particle_interval = r.num("particle_interval", 0.01, Check::Positive)?;
        let tolerance = r.opt_num("adaptive_tolerance", Check::Positive)?;
        let min_step = r.opt_num("adaptive_min_step", Check::Positive)?;
        let adaptive = match (tolerance, min_step) {
            (Some(tol), min) => Some((tol, min)),
            (None, None) => None,
            (None, Some(_)) => {
                return Err(r.err(
                    "adaptive_min_step",
                    "adaptive_min_step without adaptive_tolerance",
                    "add `adaptive_tolerance = 1e-7` (J, the energy error allowed per step) to step this deformable adaptively, or remove adaptive_min_step",
                ))
            }
        };
        let key_lines = r.key_lines();
        r.finish()?;
        self.scene.deformables.push(DeformableDesc {
            spec: BoxSpec {
                name,
                size,
                divisions,
                position,
                velocity,
                material,
                clamp,
                tip_load,
            },
            contact,
            law,
            drag,
            integrator,
            particle_interval,
            adaptive,
            line: self.cx.line(v.span().start),
            key,
            key_lines,
        });
        Ok(())
    }
}
