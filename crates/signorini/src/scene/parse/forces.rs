//! `[[force]]` (a constant force and torque on a body over a time interval) and
//! `[[random_forces]]` (random pulses on a body) tables.
use glam::DVec3;

use super::super::desc::*;
use super::reader::Reader;
use super::sections::Parser;
use super::values::{direction, range, vec3, Check};
use super::{keys, Res, Value, U32_MAX};

impl<'a, 'i> Parser<'a, 'i> {
    pub(super) fn force(&mut self, i: usize, v: &'a Value<'i>) -> Res<()> {
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

    pub(super) fn random_forces(&mut self, i: usize, v: &'a Value<'i>) -> Res<()> {
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
}
