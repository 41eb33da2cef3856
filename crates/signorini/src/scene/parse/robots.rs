//! `[[robot]]` tables: a URDF robot placed in the scene, its initial joint state, and its
//! `[[robot.servo]]` (PD) and `[[robot.torque]]` actuators with their (time, value) schedules.
//! Robot names share one namespace with body names (and the names `[[spawn]]` generates).
use glam::{DQuat, DVec3};

use super::super::desc::*;
use super::reader::Reader;
use super::sections::Parser;
use super::values::{array, array_n, num, orientation, string, table, type_err, Check};
use super::{keys, Cx, Res, Value};
use crate::scene::SceneError;

/// The hint of a robot and a body with the same name.
const NAME_CLASH: &str =
    "robot and body names must be unique (a robot's name prefixes its joints' columns); rename one";

/// `[[t, x], ...]`: at least one point, times >= 0 (s) and strictly increasing, values finite.
fn points(cx: &Cx, v: &Value, key: &str) -> Res<Vec<(f64, f64)>> {
    let items = array(cx, v, key)?;
    if items.is_empty() {
        let hint = "give at least one point [time, value], e.g. `[[0.0, 0.5]]`";
        return Err(cx.err(v.span().start, key, "the schedule has no points", hint));
    }
    let mut out: Vec<(f64, f64)> = Vec::with_capacity(items.len());
    for (j, p) in items.iter().enumerate() {
        let pkey = format!("{key}[{j}]");
        let a = array_n(cx, p, &pkey, 2, "[time, value]")?;
        let tkey = format!("{pkey}[0]");
        let t = num(cx, &a[0], &tkey, Check::Finite)?;
        if t < 0.0 {
            let hint = "a schedule's times are in s from the start of the run; give a time >= 0";
            return Err(cx.err(a[0].span().start, &tkey, format!("negative time {t}"), hint));
        }
        if let Some(&(prev, _)) = out.last() {
            if t <= prev {
                let msg = format!("time {t} s is not after the previous point's time {prev} s");
                let hint = "list the points in strictly increasing time";
                return Err(cx.err(a[0].span().start, &tkey, msg, hint));
            }
        }
        out.push((t, num(cx, &a[1], &format!("{pkey}[1]"), Check::Finite)?));
    }
    Ok(out)
}

/// `joints` / `joint_velocities`: a table of joint name -> finite number, in file order; the
/// line of each entry is added to `lines` as `NAME_OF_TABLE.JOINT`.
fn joint_values(cx: &Cx, v: &Value, key: &str, lines: &mut KeyLines) -> Res<Vec<(String, f64)>> {
    let mut entries: Vec<_> = table(cx, v, key)?.iter().collect();
    entries.sort_by_key(|(k, _)| k.span().start);
    let table_name = super::hints::leaf(key);
    let mut out = Vec::with_capacity(entries.len());
    for (k, val) in entries {
        let joint: &str = k.get_ref();
        let jkey = format!("{key}.{}", keys::spelled(joint));
        if joint.is_empty() {
            let hint = "name a revolute or prismatic joint of the URDF";
            return Err(cx.err(k.span().start, &jkey, "the joint name is empty", hint));
        }
        let x = num(cx, val, &jkey, Check::Finite)?;
        lines
            .0
            .push((format!("{table_name}.{joint}"), cx.line(k.span().start)));
        out.push((joint.to_string(), x));
    }
    Ok(out)
}

/// `link_materials`: a table of URDF link name -> a defined material's name, in file order;
/// the line of each entry is added to `lines` as `link_materials.LINK`.
fn link_materials(
    cx: &Cx,
    v: &Value,
    key: &str,
    materials: &[&str],
    lines: &mut KeyLines,
) -> Res<Vec<(String, String)>> {
    let mut entries: Vec<_> = table(cx, v, key)?.iter().collect();
    entries.sort_by_key(|(k, _)| k.span().start);
    let mut out = Vec::with_capacity(entries.len());
    for (k, val) in entries {
        let link: &str = k.get_ref();
        let lkey = format!("{key}.{}", keys::spelled(link));
        if link.is_empty() {
            let hint = "name a link of the URDF that has collision geometry";
            return Err(cx.err(k.span().start, &lkey, "the link name is empty", hint));
        }
        let material = string(cx, val, &lkey)?;
        if !materials.contains(&material) {
            let msg = format!("undefined material `{material}`");
            let hint = format!(
                "define it in a [[material]] table; {}",
                super::hints::choices_hint(material, materials, "materials")
            );
            return Err(cx.err(val.span().start, &lkey, msg, hint));
        }
        lines
            .0
            .push((format!("link_materials.{link}"), cx.line(k.span().start)));
        out.push((link.to_string(), material.to_string()));
    }
    Ok(out)
}

/// A non-empty string (the URDF path as written).
fn urdf(cx: &Cx, v: &Value, key: &str) -> Res<String> {
    let s = string(cx, v, key)?;
    if s.is_empty() {
        let hint = "give the URDF file's path, relative to the scene file or absolute";
        return Err(cx.err(v.span().start, key, "the URDF path is empty", hint));
    }
    Ok(s.to_string())
}

/// `[[robot.servo]]`; `earlier` are the robot's servos before it (one servo per joint).
fn servo(cx: &Cx, v: &Value, key: &str, earlier: &[ServoDesc]) -> Res<ServoDesc> {
    let mut r = Reader::open(cx, v, key, keys::SERVO)?;
    let joint = r.req_name("joint")?;
    if let Some(first) = earlier.iter().find(|s| s.joint == joint) {
        let msg = format!(
            "joint `{joint}` already has a servo, {} (line {})",
            first.key, first.line
        );
        let hint = "give each joint at most one servo: remove one, or merge their schedules";
        return Err(r.err("joint", msg, hint));
    }
    let kp = r.num("kp", 0.0, Check::NonNegative)?;
    let kd = r.num("kd", 0.0, Check::NonNegative)?;
    let target = match (r.opt("positions", points)?, r.opt("velocities", points)?) {
        (Some(p), None) => ServoTarget::Positions(p),
        (None, Some(_)) if kp > 0.0 => {
            let hint = "a velocity servo has no position gain: set kp = 0 (and kd > 0), or give `positions`";
            return Err(r.err("kp", format!("kp = {kp} with `velocities`"), hint));
        }
        (None, Some(w)) => ServoTarget::Velocities(w),
        (None, None) => {
            let msg = "a servo needs `positions` or `velocities`";
            let hint = "add `positions = [[0.0, <rad or m>]]` (or `velocities`, with kp = 0)";
            return Err(r.err("positions", msg, hint));
        }
        (Some(_), Some(_)) => {
            let msg = "give either `positions` or `velocities`, not both";
            return Err(r.err("velocities", msg, "remove one of them"));
        }
    };
    if kp == 0.0 && kd == 0.0 {
        let hint = "give kp > 0 (N m/rad or N/m) and/or kd > 0 (N m s/rad or N s/m)";
        return Err(cx.err(
            r.pos,
            key,
            "the servo does nothing: kp = 0 and kd = 0",
            hint,
        ));
    }
    let line = cx.line(r.pos);
    r.finish()?;
    Ok(ServoDesc {
        joint,
        kp,
        kd,
        target,
        line,
        key: key.to_string(),
    })
}

/// `[[robot.torque]]`.
fn torque(cx: &Cx, v: &Value, key: &str) -> Res<TorqueDesc> {
    let mut r = Reader::open(cx, v, key, keys::TORQUE)?;
    let joint = r.req_name("joint")?;
    let schedule = r.req("schedule", "[[0.0, <N m or N>]]", points)?;
    let line = cx.line(r.pos);
    r.finish()?;
    Ok(TorqueDesc {
        joint,
        schedule,
        line,
        key: key.to_string(),
    })
}

/// The entries of `servo` or `torque` (an array of tables; `header` as `[[robot.servo]]`).
fn sub_tables<'v, 'i>(cx: &Cx, v: &'v Value<'i>, key: &str, header: &str) -> Res<&'v [Value<'i>]> {
    match v.get_ref().as_array() {
        Some(a) => Ok(a),
        None => {
            let hint =
                format!("write each entry under its own `{header}` header, after the robot's keys");
            Err(type_err(cx, v, key, "an array of tables", hint))
        }
    }
}

/// The servos of one robot (`servo`, an array of tables), in file order.
fn servos(r: &mut Reader) -> Res<Vec<ServoDesc>> {
    let (cx, key) = (r.cx, r.key("servo"));
    let Some(v) = r.get("servo") else {
        return Ok(Vec::new());
    };
    let items = sub_tables(cx, v, &key, "[[robot.servo]]")?;
    let mut out: Vec<ServoDesc> = Vec::with_capacity(items.len());
    for (j, s) in items.iter().enumerate() {
        let servo = servo(cx, s, &format!("{key}[{j}]"), &out)?;
        out.push(servo);
    }
    Ok(out)
}

/// The torques of one robot (`torque`, an array of tables), in file order.
fn torques(r: &mut Reader) -> Res<Vec<TorqueDesc>> {
    let (cx, key) = (r.cx, r.key("torque"));
    let Some(v) = r.get("torque") else {
        return Ok(Vec::new());
    };
    let items = sub_tables(cx, v, &key, "[[robot.torque]]")?
        .iter()
        .enumerate();
    items
        .map(|(j, t)| torque(cx, t, &format!("{key}[{j}]")))
        .collect()
}

impl<'a, 'i> Parser<'a, 'i> {
    pub(super) fn robot(&mut self, i: usize, v: &'a Value<'i>) -> Res<()> {
        let cx = self.cx;
        let key = format!("robot[{i}]");
        let mut r = Reader::open(cx, v, &key, keys::ROBOT)?;
        let name = r.req_name("name")?;
        self.check_robot_name(&r, &name)?;
        let urdf = r.req("urdf", "\"robots/arm.urdf\"", urdf)?;
        let fixed_base = r.boolean("fixed_base", false)?;
        let position = r.vec3("position", DVec3::ZERO)?;
        let orientation = r
            .opt("orientation", orientation)?
            .unwrap_or(DQuat::IDENTITY);
        let material = self.material_ref(&mut r)?;
        let mut key_lines = r.key_lines();
        let names = &self.material_names;
        let link_materials = r
            .opt("link_materials", |cx, v, k| {
                link_materials(cx, v, k, names, &mut key_lines)
            })?
            .unwrap_or_default();
        let mut read_joints = |r: &mut Reader, name| {
            r.opt(name, |cx, v, k| joint_values(cx, v, k, &mut key_lines))
                .map(Option::unwrap_or_default)
        };
        let joints = read_joints(&mut r, "joints")?;
        let joint_velocities = read_joints(&mut r, "joint_velocities")?;
        let servos = servos(&mut r)?;
        let torques = torques(&mut r)?;
        r.finish()?;
        self.scene.robots.push(RobotDesc {
            name,
            urdf,
            fixed_base,
            position,
            orientation,
            material,
            link_materials,
            joints,
            joint_velocities,
            servos,
            torques,
            line: cx.line(v.span().start),
            key,
            key_lines,
        });
        Ok(())
    }

    /// A robot's name must be new among robots, bodies and the names spawns generate, all
    /// read so far (a later body or spawn is checked by [`Parser::body_vs_robots`] and
    /// [`Parser::spawn_vs_robots`]).
    fn check_robot_name(&self, r: &Reader, name: &str) -> Res<()> {
        if let Some(first) = self.scene.robots.iter().find(|b| b.name == name) {
            let msg = format!("duplicate robot name `{name}`");
            let hint = format!(
                "robot names must be unique; `{name}` is first defined at line {}",
                first.line
            );
            return Err(r.err("name", msg, hint));
        }
        if let Some(&b) = self.parsed_bodies.get(name) {
            let b = &self.scene.bodies[b];
            let msg = format!(
                "the name `{name}` is already the name of {} (line {})",
                b.key, b.line
            );
            return Err(r.err("name", msg, NAME_CLASH));
        }
        if let Some(s) = self.scene.spawns.iter().find(|s| s.generates(name)) {
            let msg = format!(
                "the name `{name}` is also given to a body of {} (line {})",
                s.key, s.line
            );
            return Err(r.err("name", msg, "rename this robot or the spawn"));
        }
        Ok(())
    }

    /// The `[[body]]` just read must not take the name of a robot read before it.
    pub(super) fn body_vs_robots(&self) -> Res<()> {
        let Some(b) = self.scene.bodies.last() else {
            return Ok(());
        };
        let Some(robot) = self.scene.robots.iter().find(|r| r.name == b.name) else {
            return Ok(());
        };
        let msg = format!(
            "the name `{}` is already the name of {} (line {})",
            b.name, robot.key, robot.line
        );
        let line = b.key_lines.line_of("name", b.line);
        let key = format!("{}.name", b.key);
        Err(SceneError::new(self.cx.file, line, key, msg, NAME_CLASH))
    }

    /// The `[[spawn]]` just read must not generate the name of a robot read before it.
    pub(super) fn spawn_vs_robots(&self) -> Res<()> {
        let Some(s) = self.scene.spawns.last() else {
            return Ok(());
        };
        let Some(robot) = self.scene.robots.iter().find(|r| s.generates(&r.name)) else {
            return Ok(());
        };
        let msg = format!(
            "this spawn names a body `{}`, already the name of {} (line {})",
            robot.name, robot.key, robot.line
        );
        let line = s.key_lines.line_of("name", s.line);
        let key = format!("{}.name", s.key);
        Err(SceneError::new(
            self.cx.file,
            line,
            key,
            msg,
            "rename the spawn or that robot",
        ))
    }
}
