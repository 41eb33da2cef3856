//! A scene with robots (`[[robot]]`; docs/multibody.md, "Robots in a scene") as one
//! [`TreeRun`]: a forest of trees in generalized coordinates, stepped by a tree contact model
//! (`contact::tree`) and written by [`run_tree`](super::multibody_run::run_tree).
//!
//! - Each robot is its URDF's tree (`multibody::urdf`, fixed joints merged), its root placed at
//!   the robot's pose (a floating base starts there, a fixed base is welded there), its joints
//!   at their initial values, its collision shapes with the robot's material.
//! - Each `[[body]]` (spawned ones too) is a root link on a floating joint at its pose (a fixed
//!   body welded to the world), its pieces its shapes with its material; its velocity becomes
//!   the floating joint's [ω; v] in body axes.
//! - The one fixed half-space of normal +z is the ground of the tree models, with its material:
//!   a shape touches it with √(μ μ_ground), each other with √(μ_a μ_b).
//! - `[contact] model` is one of the models with a tree form (`TreeContactModel::NAMES`: every
//!   3D model), its other keys their parameters (`contact::tree::params`).
//! - `[[robot.servo]]` are PD actuators and `[[robot.torque]]` torque inputs whose targets follow
//!   their schedules (`multibody::Schedule`).
//!
//! What a scene with robots cannot hold yet is refused at its key: scheduled and random forces,
//! deformables, bodies released over time, other half-spaces, several grounds.
use super::multibody_run::{urdf_joint_names, TreeContactModel, TreeGround, TreeRun};
use crate::contact::tree::ground::shapes_of;
use crate::contact::tree::{Ground, LinkShape};
use crate::dynamics::{Body, BodyState};
use crate::geometry::{Pose, Shape};
use crate::multibody::urdf::{self, UrdfOptions, UrdfRobot};
use crate::multibody::{
    Controls, JointKind, Link, MbIntegrator, PdActuator, Piecewise, Schedule, ServoSchedule, Tree,
};
use crate::scene::{RobotDesc, Scene, SceneError, ServoTarget};
use glam::{DMat3, DVec3};
use serde_json::json;
use std::path::Path;

/// The forest of the scene's robots and bodies, ready to run, and the URDF import's warnings.
pub fn tree_run(scene: &Scene) -> Result<(TreeRun, Vec<String>), SceneError> {
    let desc = &scene.desc;
    let file = desc.file.as_str();
    let err = |line: usize, key: &str, message: String, hint: &str| {
        SceneError::new(file, line, key, message, hint)
    };
    refuse_unsupported(scene)?;
    let mut model = contact_model(scene)?;
    let mut forest = Forest::default();
    let mut ground = None;
    for (b, body) in scene.model.bodies.iter().enumerate() {
        let place = (
            &scene.initial.bodies[b],
            scene.model.materials[body.material].friction,
        );
        match ground_height(body, place.0) {
            Some(Ok(height)) if ground.is_none() => ground = Some((height, place.1)),
            Some(_) => {
                let (line, key) = body_place(scene, b);
                return Err(err(
                    line,
                    &key,
                    format!("body `{}`: a scene with robots takes one ground half-space, of normal [0, 0, 1]", body.name),
                    "keep one fixed halfspace with normal [0, 0, 1] as the ground; make walls fixed boxes",
                ));
            }
            None => forest.body(body, place),
        }
    }
    let Some((height, ground_friction)) = ground else {
        return Err(err(
            0,
            "body",
            "a scene with robots needs a ground: no fixed half-space of normal [0, 0, 1]".into(),
            "add a [[body]] with fixed = true and shape = { type = \"halfspace\", normal = [0, 0, 1] }",
        ));
    };
    for robot in &desc.robots {
        forest.robot(scene, robot)?;
    }
    let tree = Tree::new(forest.links, desc.simulation.gravity).map_err(|e| {
        let (line, key) = desc
            .robots
            .first()
            .map_or((0, "robot".to_string()), |r| (r.line, r.key.clone()));
        err(
            line,
            &key,
            format!("the scene's forest of trees is not valid: {e}"),
            "check the robots' URDF files",
        )
    })?;
    model.set_ground(Ground {
        height,
        friction: Some(ground_friction),
    });
    let q0 = forest.q.iter().flatten().copied().collect::<Vec<f64>>();
    let v0 = forest.v.iter().flatten().copied().collect::<Vec<f64>>();
    let mut controls = Controls::new(&tree);
    controls.pd = forest.servos;
    let run = TreeRun {
        source: file.to_string(),
        joint_names: forest.names,
        q0,
        v0,
        controls,
        schedule: Schedule {
            servos: forest.servo_schedules,
            torques: forest
                .torques
                .into_iter()
                .map(|(link, p)| (tree.v_offset(link), p))
                .collect(),
        },
        tree,
        time_step: desc.simulation.time_step,
        duration: desc.simulation.duration,
        integrator: MbIntegrator::SemiImplicitEuler,
        options: json!({ "scene": file, "model": model.name() }),
        ground: Some(TreeGround {
            model,
            shapes: forest.shapes,
            welded: Vec::new(),
            friction: ground_friction,
            shift: 0.0,
            clearance: 0.0,
        }),
    };
    Ok((run, forest.warnings))
}

/// The forest as it is assembled: links, each link's q and v (in link order), joint names,
/// shapes, actuators.
#[derive(Default)]
struct Forest {
    links: Vec<Link>,
    q: Vec<Vec<f64>>,
    v: Vec<Vec<f64>>,
    names: Vec<String>,
    shapes: Vec<LinkShape>,
    servos: Vec<PdActuator>,
    servo_schedules: Vec<(usize, ServoSchedule)>,
    /// (link, input), the link's one degree of freedom.
    torques: Vec<(usize, Piecewise)>,
    warnings: Vec<String>,
}

impl Forest {
    /// A `[[body]]` as a root link: floating at its state (a fixed body welded there).
    fn body(&mut self, body: &Body, (state, friction): (&BodyState, f64)) {
        let link = self.links.len();
        let at = Pose::new(state.position, state.orientation);
        let (joint, mass, inertia) = if body.fixed {
            // A welded link's mass never enters the dynamics (no degree of freedom moves it).
            (JointKind::Fixed, 1.0, DMat3::IDENTITY)
        } else {
            (JointKind::Floating, body.mass, body.inertia)
        };
        self.links
            .push(Link::new(&body.name, None, joint, mass, DVec3::ZERO, inertia).at(at));
        if body.fixed {
            self.q.push(Vec::new());
            self.v.push(Vec::new());
        } else {
            // q: the origin in the joint frame (0) and the identity; v: [ω; v] in body axes.
            let back = state.orientation.inverse();
            let (w, u) = (back * state.angular_velocity, back * state.velocity);
            self.q.push(vec![0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0]);
            self.v.push(vec![w.x, w.y, w.z, u.x, u.y, u.z]);
        }
        self.names.push(body.name.clone());
        for piece in &body.pieces {
            self.shapes.push(LinkShape {
                link,
                pose: piece.pose,
                shape: piece.shape.clone(),
                friction,
            });
        }
    }

    /// A `[[robot]]`: its URDF's tree at its pose, initial joint values, shapes, servos, torques.
    fn robot(&mut self, scene: &Scene, r: &RobotDesc) -> Result<(), SceneError> {
        let file = scene.desc.file.as_str();
        let err = |key: &str, message: String, hint: &str| {
            let line = r.key_lines.line_of(key, r.line);
            SceneError::new(file, line, format!("{}.{key}", r.key), message, hint)
        };
        let dir = Path::new(file).parent().unwrap_or(Path::new("."));
        let path = dir.join(&r.urdf);
        let options = UrdfOptions {
            floating_base: !r.fixed_base,
            gravity: scene.desc.simulation.gravity,
            ..UrdfOptions::default()
        };
        let robot = urdf::load(&path, &options).map_err(|e| {
            err(
                "urdf",
                format!("robot `{}`: {e}", r.name),
                "give a readable URDF file, relative to the scene file's directory",
            )
        })?;
        self.warnings.extend(
            robot
                .warnings
                .iter()
                .map(|w| format!("robot `{}`: {w}", r.name)),
        );
        let offset = self.links.len();
        let pose = Pose::new(r.position, r.orientation);
        let neutral = robot.tree.neutral_q();
        for (i, l) in robot.tree.links().iter().enumerate() {
            let mut l = l.clone();
            l.name = format!("{}.{}", r.name, l.name);
            match l.parent {
                Some(p) => l.parent = Some(p + offset),
                None => l.joint_frame = pose.mul(&l.joint_frame),
            }
            let qi = robot.tree.q_offset(i);
            self.q.push(neutral[qi..qi + l.joint.nq()].to_vec());
            self.v.push(vec![0.0; l.joint.nv()]);
            self.links.push(l);
        }
        self.names.extend(
            urdf_joint_names(&robot)
                .into_iter()
                .map(|n| format!("{}.{n}", r.name)),
        );
        let friction_of = |name: &str| scene.desc.material(name).map_or(0.5, |m| m.friction);
        for (link, _) in &r.link_materials {
            if !robot.collisions.iter().any(|c| &c.urdf_link == link) {
                let mut with: Vec<&str> = robot
                    .collisions
                    .iter()
                    .map(|c| c.urdf_link.as_str())
                    .collect();
                with.dedup();
                return Err(err(
                    &format!("link_materials.{link}"),
                    format!(
                        "robot \"{}\" has no link `{link}` with collision geometry; its links with collision geometry are: {}",
                        robot.name,
                        with.join(", ")
                    ),
                    "name a URDF link that has <collision> elements",
                ));
            }
        }
        let shapes = shapes_of(&robot.collisions, friction_of(&r.material));
        self.shapes
            .extend(shapes.into_iter().zip(&robot.collisions).map(|(mut s, c)| {
                s.link += offset;
                if let Some((_, m)) = r.link_materials.iter().find(|(l, _)| *l == c.urdf_link) {
                    s.friction = friction_of(m);
                }
                s
            }));
        let joint = |key: &str, name: &str| {
            one_dof_joint(&robot, name).map(|l| l + offset).map_err(|m| err(key, m, "name a revolute or prismatic joint of the URDF (`signorini check` lists them)"))
        };
        for (name, value) in &r.joints {
            let l = joint(&format!("joints.{name}"), name)?;
            self.q[l][0] = *value;
        }
        for (name, value) in &r.joint_velocities {
            let l = joint(&format!("joint_velocities.{name}"), name)?;
            self.v[l][0] = *value;
        }
        for (k, s) in r.servos.iter().enumerate() {
            let key = format!("servo[{k}].joint");
            let link = joint(&key, &s.joint).map_err(|mut e| {
                e.line = s.line;
                e
            })?;
            let schedule = match &s.target {
                ServoTarget::Positions(p) => ServoSchedule::Positions(Piecewise(p.clone())),
                ServoTarget::Velocities(p) => ServoSchedule::Velocities(Piecewise(p.clone())),
            };
            self.servo_schedules.push((self.servos.len(), schedule));
            self.servos.push(PdActuator {
                link,
                kp: s.kp,
                kd: s.kd,
                target_position: self.q[link][0],
                target_velocity: 0.0,
            });
        }
        for (k, t) in r.torques.iter().enumerate() {
            let key = format!("torque[{k}].joint");
            let link = joint(&key, &t.joint).map_err(|mut e| {
                e.line = t.line;
                e
            })?;
            self.torques.push((link, Piecewise(t.schedule.clone())));
        }
        Ok(())
    }
}

/// The tree link (in the robot's tree) of the revolute or prismatic URDF joint `name`; the
/// error lists the robot's joints of that kind.
fn one_dof_joint(robot: &UrdfRobot, name: &str) -> Result<usize, String> {
    let tree = &robot.tree;
    let movable = || {
        let names: Vec<&str> = (robot.joints.iter())
            .filter(|j| j.link.is_some_and(|l| tree.links()[l].joint.nv() == 1))
            .map(|j| j.name.as_str())
            .collect();
        if names.is_empty() {
            "none".to_string()
        } else {
            names.join(", ")
        }
    };
    match robot.joints.iter().find(|j| j.name == name) {
        None => Err(format!("robot \"{}\" has no joint `{name}`; its revolute and prismatic joints are: {}", robot.name, movable())),
        Some(j) => match j.link.filter(|&l| tree.links()[l].joint.nv() == 1) {
            Some(l) => Ok(l),
            None => Err(format!("joint `{name}` is {}: only revolute and prismatic joints take an initial value, a servo or a torque", j.urdf_type)),
        },
    }
}

/// The ground's height (m) if `body` is a fixed half-space: `Ok` when its outward normal is +z
/// (to 1e-9), `Err` otherwise; `None` for any other body.
fn ground_height(body: &Body, state: &BodyState) -> Option<Result<f64, ()>> {
    let half = |p: &crate::dynamics::Piece| matches!(p.shape, Shape::HalfSpace { .. });
    if !body.pieces.iter().any(half) {
        return None;
    }
    let (true, [piece]) = (body.fixed, body.pieces.as_slice()) else {
        return Some(Err(()));
    };
    let Shape::HalfSpace { normal } = piece.shape else {
        return Some(Err(()));
    };
    // The solid is {normal · x ≤ 0} in the piece's frame: its outward normal is `normal`.
    let world = state.pose().mul(&piece.pose);
    let up = (world.rotation * normal - DVec3::Z).length() <= 1e-9;
    Some(if up { Ok(world.translation.z) } else { Err(()) })
}

/// Where body `b` of the built scene was written: its `[[body]]`, or its `[[spawn]]`.
fn body_place(scene: &Scene, b: usize) -> (usize, String) {
    let name = &scene.model.bodies[b].name;
    match scene.desc.bodies.iter().find(|d| &d.name == name) {
        Some(d) => (d.line, d.key.clone()),
        None => (0, "spawn".to_string()),
    }
}

/// The `[contact]` model as a tree model, its parameters set; errors at the key.
fn contact_model(scene: &Scene) -> Result<TreeContactModel, SceneError> {
    let c = &scene.desc.contact;
    let file = scene.desc.file.as_str();
    let mut model = TreeContactModel::by_name(&c.model).ok_or_else(|| {
        SceneError::new(
            file,
            c.model_line,
            format!("{}.model", c.key),
            format!(
                "a scene with robots runs under a model with a tree form, not `{}`",
                c.model
            ),
            format!("use one of: {}", TreeContactModel::NAMES.join(", ")),
        )
    })?;
    for p in &c.params {
        model.set(&p.name, &p.value).map_err(|m| {
            SceneError::new(
                file,
                p.line,
                p.key.clone(),
                m,
                "see docs/multibody.md, \"Contact\", for the parameters of the tree models",
            )
        })?;
    }
    Ok(model)
}

/// What a scene with robots does not hold yet, refused at its key.
fn refuse_unsupported(scene: &Scene) -> Result<(), SceneError> {
    let d = &scene.desc;
    let first = [
        d.forces
            .first()
            .map(|f| (f.line, f.key.clone(), "[[force]]")),
        d.random_forces
            .first()
            .map(|f| (f.line, f.key.clone(), "[[random_forces]]")),
        d.deformables
            .first()
            .map(|f| (f.line, f.key.clone(), "[[deformable]]")),
    ];
    if let Some((line, key, what)) = first.into_iter().flatten().next() {
        return Err(SceneError::new(
            &d.file,
            line,
            key,
            format!("a scene with robots does not take {what} yet"),
            "remove it, or the [[robot]] tables (robots run as trees in generalized coordinates: docs/multibody.md)",
        ));
    }
    if let Some(b) = scene.model.bodies.iter().position(|b| b.release_time > 0.0) {
        let (line, key) = body_place(scene, b);
        return Err(SceneError::new(
            &d.file,
            line,
            key,
            format!(
                "body `{}` is released over time: a scene with robots starts every body at t = 0",
                scene.model.bodies[b].name
            ),
            "remove `release_interval` from its [[spawn]]",
        ));
    }
    Ok(())
}
