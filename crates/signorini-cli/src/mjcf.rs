//! `signorini export --mjcf`: a scene written as MuJoCo's MJCF, so the side-by-side benchmark
//! (`scripts/bench-mujoco.sh`) times MuJoCo on exactly the bodies a scene builds (spawned parts
//! included), not on a look-alike.
//!
//! What carries over: every body's pose, velocity, mass and full inertia about its centre of mass
//! (MuJoCo is given them, not asked to compute them), every piece as a geom (a box polytope as a
//! `box`, any other polytope as a convex `mesh` of its vertices, a sphere, a half-space as an
//! infinite `plane`), the pair friction (each geom gets its material's μ; MuJoCo takes the larger
//! of two geoms', ours the geometric mean, equal for scenes of one material), the time step and
//! gravity. MuJoCo's contact model stays its own: soft constraints with its default solver
//! parameters, a pyramidal cone (the polyhedral cone is what our constraint models use), its
//! default Newton solver and semi-implicit Euler integrator. Release times and scheduled forces do
//! not carry over (the exporter refuses scenes that have them).
use signorini::dynamics::{Model, State};
use signorini::geometry::{Polytope, Pose, Shape};
use signorini::{DQuat, DVec3};
use std::fmt::Write;

/// The MJCF text of `model` at `state`, or why the scene cannot be exported.
pub fn to_mjcf(name: &str, model: &Model, state: &State) -> Result<String, String> {
    if !model.forces.is_empty() {
        return Err("scheduled forces do not carry over to MJCF".into());
    }
    if let Some(b) = model.bodies.iter().find(|b| b.release_time > 0.0) {
        return Err(format!(
            "body `{}` has a release time, which does not carry over to MJCF",
            b.name
        ));
    }
    let s = &model.settings;
    let mut assets = String::new();
    let mut world = String::new();
    let mut key_qpos = Vec::new();
    let mut key_qvel = Vec::new();
    for (i, (body, bs)) in model.bodies.iter().zip(&state.bodies).enumerate() {
        let mu = model.materials[body.material].friction;
        let pose = bs.pose();
        if body.fixed {
            for (j, piece) in body.pieces.iter().enumerate() {
                let world_pose = compose(&pose, &piece.pose);
                let geom = geom(
                    &format!("b{i}p{j}"),
                    &piece.shape,
                    &world_pose,
                    mu,
                    &mut assets,
                );
                writeln!(world, "    {geom}").unwrap();
            }
            continue;
        }
        let (p, q) = (pose.translation, pose.rotation);
        writeln!(
            world,
            "    <body name=\"{}\" pos=\"{}\" quat=\"{}\">",
            xml_escape(&body.name),
            vec3(p),
            quat(q)
        )
        .unwrap();
        writeln!(world, "      <freejoint/>").unwrap();
        let j = body.inertia;
        writeln!(
            world,
            "      <inertial pos=\"0 0 0\" mass=\"{}\" fullinertia=\"{} {} {} {} {} {}\"/>",
            body.mass, j.x_axis.x, j.y_axis.y, j.z_axis.z, j.y_axis.x, j.z_axis.x, j.z_axis.y
        )
        .unwrap();
        for (k, piece) in body.pieces.iter().enumerate() {
            let geom = geom(
                &format!("b{i}p{k}"),
                &piece.shape,
                &piece.pose,
                mu,
                &mut assets,
            );
            writeln!(world, "      {geom}").unwrap();
        }
        writeln!(world, "    </body>").unwrap();
        key_qpos.push(format!("{} {}", vec3(p), quat(q)));
        // A free joint's angular velocity is in the body frame.
        let w_local = q.inverse() * bs.angular_velocity;
        key_qvel.push(format!("{} {}", vec3(bs.velocity), vec3(w_local)));
    }
    let mut out = String::new();
    writeln!(out, "<mujoco model=\"{}\">", xml_escape(name)).unwrap();
    writeln!(
        out,
        "  <option timestep=\"{}\" gravity=\"{}\" cone=\"pyramidal\"/>",
        s.time_step,
        vec3(s.gravity)
    )
    .unwrap();
    if !assets.is_empty() {
        write!(out, "  <asset>\n{assets}  </asset>\n").unwrap();
    }
    write!(out, "  <worldbody>\n{world}  </worldbody>\n").unwrap();
    if !key_qpos.is_empty() {
        writeln!(
            out,
            "  <keyframe>\n    <key name=\"initial\" qpos=\"{}\" qvel=\"{}\"/>\n  </keyframe>",
            key_qpos.join(" "),
            key_qvel.join(" ")
        )
        .unwrap();
    }
    writeln!(out, "</mujoco>").unwrap();
    Ok(out)
}

/// `outer` ∘ `inner`: the world pose of a piece placed at `inner` in a body at `outer`.
fn compose(outer: &Pose, inner: &Pose) -> Pose {
    Pose::new(
        outer.translation + outer.rotation * inner.translation,
        outer.rotation * inner.rotation,
    )
}

/// One geom element (and, for a mesh, its asset appended to `assets`).
fn geom(name: &str, shape: &Shape, pose: &Pose, mu: f64, assets: &mut String) -> String {
    let friction = format!("friction=\"{mu} 0.005 0.0001\"");
    match shape {
        Shape::Sphere { radius } => format!(
            "<geom name=\"{name}\" type=\"sphere\" size=\"{radius}\" pos=\"{}\" quat=\"{}\" {friction}/>",
            vec3(pose.translation),
            quat(pose.rotation)
        ),
        Shape::HalfSpace { normal } => {
            // The plane's +z is the outward normal; the solid lies below it.
            let q = pose.rotation * DQuat::from_rotation_arc(DVec3::Z, *normal);
            format!(
                "<geom name=\"{name}\" type=\"plane\" size=\"0 0 1\" pos=\"{}\" quat=\"{}\" {friction}/>",
                vec3(pose.translation),
                quat(q)
            )
        }
        Shape::Polytope(p) => match box_half_extents(p) {
            Some(half) => format!(
                "<geom name=\"{name}\" type=\"box\" size=\"{}\" pos=\"{}\" quat=\"{}\" {friction}/>",
                vec3(half),
                vec3(pose.translation),
                quat(pose.rotation)
            ),
            None => {
                let vertices: Vec<String> = p.vertices.iter().map(|v| vec3(*v)).collect();
                writeln!(
                    assets,
                    "    <mesh name=\"{name}\" vertex=\"{}\"/>",
                    vertices.join(" ")
                )
                .unwrap();
                format!(
                    "<geom name=\"{name}\" type=\"mesh\" mesh=\"{name}\" pos=\"{}\" quat=\"{}\" {friction}/>",
                    vec3(pose.translation),
                    quat(pose.rotation)
                )
            }
        },
    }
}

/// The half extents of a polytope that is an axis-aligned box centred at its origin.
fn box_half_extents(p: &Polytope) -> Option<DVec3> {
    let half = p.vertices.first()?.abs();
    let is_box =
        p.vertices.len() == 8 && p.faces.len() == 6 && p.vertices.iter().all(|v| v.abs() == half);
    is_box.then_some(half)
}

fn vec3(v: DVec3) -> String {
    format!("{} {} {}", v.x, v.y, v.z)
}

/// MuJoCo's quaternion order: w x y z.
fn quat(q: DQuat) -> String {
    format!("{} {} {} {}", q.w, q.x, q.y, q.z)
}

fn xml_escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}
