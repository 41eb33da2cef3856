//! From the `[[deformable]]` tables of a scene to deformable worlds ready to step
//! (`deformable::World`, one per table: deformables do not touch each other), with the scene's
//! gravity and its fixed half-spaces as the ground planes they touch (docs/deformable.md,
//! "Scene files").
//!
//! Contact with rigid bodies is one-way and limited to fixed half-spaces and boxes: a fixed
//! body whose shape (or piece) is a `halfspace` becomes a `deformable::Plane` with the same
//! outward normal and surface, a `box` a `deformable::Polytope` of its six faces. Other rigid
//! bodies are not seen by the deformables (listed in [`DeformableWorlds::ignored`] for the
//! caller to say so).
use super::desc::{BodyShapeDesc, SceneDesc, ShapeDesc};
use super::SceneError;
use crate::deformable::{add_box, Plane, Polytope, World, WorldSettings};
use glam::{DQuat, DVec3};

/// The deformable worlds of a scene and what they do not see.
#[derive(Clone, Debug, Default)]
pub struct DeformableWorlds {
    /// One world per `[[deformable]]`, in file order (`World::bodies[0].name` is its name).
    pub worlds: Vec<World>,
    /// Names of the rigid bodies the deformables ignore (free bodies, fixed bodies of other shapes than half-spaces and boxes).
    pub ignored: Vec<String>,
}

/// The plane of a half-space shape with outward local normal `n` at pose (`position`,
/// `orientation`): the solid {y : n_w·y ≤ n_w·position}, n_w = orientation · n.
fn plane(n: DVec3, position: DVec3, orientation: DQuat) -> Plane {
    let normal = (orientation * n).normalize();
    Plane {
        normal,
        offset: normal.dot(position),
    }
}

/// The six faces of a box of edge lengths `size` at pose (`position`, `orientation`).
fn box_faces(size: DVec3, position: DVec3, orientation: DQuat) -> Polytope {
    let faces = (0..3)
        .flat_map(|d| [1.0, -1.0].map(|sign| (d, sign)))
        .map(|(d, sign)| {
            let n = DVec3::AXES[d] * sign;
            plane(n, position + orientation * (n * size[d] / 2.0), orientation)
        })
        .collect();
    Polytope { faces }
}

/// What the deformables touch: the fixed half-spaces as planes, the fixed boxes as polytopes,
/// and the names of the bodies left out.
fn obstacles(desc: &SceneDesc) -> (Vec<Plane>, Vec<Polytope>, Vec<String>) {
    let (mut planes, mut polytopes, mut ignored) = (Vec::new(), Vec::new(), Vec::new());
    for b in &desc.bodies {
        // (shape, position, orientation) of each convex piece in the world.
        let pieces: Vec<(&ShapeDesc, DVec3, DQuat)> = match &b.shape {
            BodyShapeDesc::Single(s) => vec![(&s.shape, b.position, b.orientation)],
            BodyShapeDesc::Compound(ps) => ps
                .iter()
                .map(|p| {
                    let at = b.position + b.orientation * p.position;
                    (&p.shape.shape, at, b.orientation * p.orientation)
                })
                .collect(),
        };
        let mut seen = false;
        for (shape, at, rot) in pieces.into_iter().filter(|_| b.is_fixed()) {
            match *shape {
                ShapeDesc::HalfSpace { normal } => planes.push(plane(normal, at, rot)),
                ShapeDesc::Box { size } => polytopes.push(box_faces(size, at, rot)),
                _ => continue,
            }
            seen = true;
        }
        if !seen {
            ignored.push(b.name.clone());
        }
    }
    (planes, polytopes, ignored)
}

/// Build the scene's deformables. Errors name the file, line and key: a body the generator
/// refuses, a scene with adaptive steps (deformables step at `simulation.time_step`), and a time
/// step above the stable bound 2/ω_max of an explicit scheme (ω_max by Gershgorin's bound,
/// `World::max_frequency`, an upper bound: a step under 2/ω_max is stable for Verlet and
/// symplectic Euler).
pub fn deformable_worlds(desc: &SceneDesc) -> Result<DeformableWorlds, SceneError> {
    let file = &desc.file;
    let (planes, polytopes, ignored) = obstacles(desc);
    let mut worlds = Vec::with_capacity(desc.deformables.len());
    for d in &desc.deformables {
        if desc.simulation.settings.adaptive.is_some() {
            return Err(SceneError::new(
                file,
                d.line,
                &d.key,
                "deformables step at simulation.time_step; [simulation.adaptive] is not supported with them",
                "remove [simulation.adaptive] from this scene",
            ));
        }
        let mut world = World::new(WorldSettings {
            gravity: desc.simulation.settings.gravity,
            drag: d.drag,
            contact: d.contact,
        });
        world.planes = planes.clone();
        world.polytopes = polytopes.clone();
        add_box(&mut world, &d.spec).map_err(|e| {
            SceneError::new(
                file,
                d.line,
                &d.key,
                e.to_string(),
                "see docs/scene-format.md, [[deformable]], for each key's range",
            )
        })?;
        let h = desc.simulation.settings.time_step;
        let stable = 2.0 / world.max_frequency();
        if h > stable {
            return Err(SceneError::new(
                file,
                desc.simulation.line,
                "simulation.time_step",
                format!(
                    "time_step = {h} s is above the stable step of deformable `{}`: 2/ω_max = {stable:.3e} s (ω_max = {:.4e} rad/s, Gershgorin's bound)",
                    d.spec.name,
                    world.max_frequency()
                ),
                "lower time_step below that bound, or make the deformable softer (young, contact_stiffness) or its cells larger (divisions)",
            ));
        }
        worlds.push(world);
    }
    Ok(DeformableWorlds { worlds, ignored })
}
