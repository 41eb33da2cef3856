//! From the `[[deformable]]` tables of a scene to deformable worlds ready to step
//! (`deformable::World`, one per table), with the scene's gravity, its fixed half-spaces and boxes
//! as the planes and polytopes each world touches on its own, and the `deformable::Coupler` of
//! everything else they touch (docs/deformable.md, "Scene files" and "Coupling").
//!
//! - A fixed body whose shape (or piece) is a `halfspace` becomes a `deformable::Plane` with the
//!   same outward normal and surface, a fixed `box` a `deformable::Polytope` of its six faces:
//!   one-way contact (a fixed body takes no force back).
//! - Every other piece — every piece of a free body (spawned ones too), fixed spheres, cylinders
//!   and convex hulls — is touched through the coupler: two-way for free bodies.
//! - Deformables touch each other through their facets (the coupler).
use super::desc::{BodyShapeDesc, SceneDesc, ShapeDesc};
use super::SceneError;
use crate::deformable::{add_box, ContactLaw, Coupler, Plane, Polytope, World, WorldSettings};
use crate::dynamics::{AdaptiveSettings, Model};
use crate::geometry::Shape;
use glam::{DQuat, DVec3};

/// The deformable worlds of a scene and what couples them to the rigid bodies and each other.
#[derive(Clone, Debug, Default)]
pub struct DeformableWorlds {
    /// One world per `[[deformable]]`, in file order (`World::bodies[0].name` is its name).
    pub worlds: Vec<World>,
    /// The rigid pieces the worlds touch two-way (or, fixed, through the coupler), and the
    /// worlds' facets.
    pub coupler: Coupler,
    /// Each world's adaptive steps inside a scene step (`[[deformable]] adaptive_tolerance`):
    /// ε_e, the smallest step and the scene's `time_step` as the largest; `None`: fixed steps.
    pub adaptive: Vec<Option<AdaptiveSettings>>,
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

/// The pieces of `desc`'s bodies as (shape, world position, world orientation), per body.
fn pieces(body: &super::desc::BodyDesc) -> Vec<(&ShapeDesc, DVec3, DQuat)> {
    match &body.shape {
        BodyShapeDesc::Single(s) => vec![(&s.shape, body.position, body.orientation)],
        BodyShapeDesc::Compound(ps) => ps
            .iter()
            .map(|p| {
                let at = body.position + body.orientation * p.position;
                (&p.shape.shape, at, body.orientation * p.orientation)
            })
            .collect(),
    }
}

/// Is piece `piece` of `desc`'s body `body` one a world touches on its own (a fixed half-space
/// or box)?
fn own_obstacle(desc: &SceneDesc, body: usize, piece: usize) -> bool {
    desc.bodies.get(body).is_some_and(|b| {
        b.is_fixed()
            && pieces(b).get(piece).is_some_and(|(shape, _, _)| {
                matches!(shape, ShapeDesc::HalfSpace { .. } | ShapeDesc::Box { .. })
            })
    })
}

/// What every world touches on its own: the fixed half-spaces as planes, the fixed boxes as
/// polytopes.
fn obstacles(desc: &SceneDesc) -> (Vec<Plane>, Vec<Polytope>) {
    let (mut planes, mut polytopes) = (Vec::new(), Vec::new());
    for b in desc.bodies.iter().filter(|b| b.is_fixed()) {
        for (shape, at, rot) in pieces(b) {
            match *shape {
                ShapeDesc::HalfSpace { normal } => planes.push(plane(normal, at, rot)),
                ShapeDesc::Box { size } => polytopes.push(box_faces(size, at, rot)),
                _ => {}
            }
        }
    }
    (planes, polytopes)
}

/// The rigid pieces (body, piece) of `model` the worlds touch through the coupler: all but
/// half-spaces and the worlds' own obstacles.
fn coupled_pieces(desc: &SceneDesc, model: &Model) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    for (b, body) in model.bodies.iter().enumerate() {
        for (k, piece) in body.pieces.iter().enumerate() {
            let half_space = matches!(piece.shape, Shape::HalfSpace { .. });
            if !half_space && !own_obstacle(desc, b, k) {
                out.push((b, k));
            }
        }
    }
    out
}

/// A bound on the highest frequency of free rigid body `b` on the deformables' contact springs
/// (rad/s): every free particle pressing on it with its law's stiffness λ, through a point at
/// most its bounding radius R from the centre of mass, ω² ≤ Σ λ (1/m + R² ‖J⁻¹‖), ‖J⁻¹‖ the
/// Frobenius norm of the inverse inertia (above its largest eigenvalue).
fn rigid_frequency(model: &Model, b: usize, worlds: &[World]) -> f64 {
    let body = &model.bodies[b];
    let springs: f64 = worlds
        .iter()
        .filter(|w| w.settings.law == ContactLaw::Penalty)
        .map(|w| w.free_particles() as f64 * w.settings.contact.stiffness)
        .sum();
    let r = body.bounding_radius();
    let j = body.inv_inertia;
    let norm =
        (j.x_axis.length_squared() + j.y_axis.length_squared() + j.z_axis.length_squared()).sqrt();
    (springs * (body.inv_mass + r * r * norm)).sqrt()
}

/// Build the scene's deformables on `model` (the scene's rigid bodies, built from `desc`).
/// Errors name the file, line and key: a body the generator refuses, a scene with adaptive steps
/// (deformables step at `simulation.time_step`), a time step above the stable bound 2/ω_max of
/// an explicit scheme (ω_max by Gershgorin's bound, `World::max_frequency`, an upper bound: a
/// step under 2/ω_max is stable for Verlet and symplectic Euler; the coupled surfaces' springs
/// counted), and one above the bound of a free rigid body on the deformables' springs
/// (`rigid_frequency`).
pub fn deformable_worlds(desc: &SceneDesc, model: &Model) -> Result<DeformableWorlds, SceneError> {
    let file = &desc.file;
    if desc.deformables.is_empty() {
        return Ok(DeformableWorlds::default());
    }
    let (planes, polytopes) = obstacles(desc);
    let rigid = coupled_pieces(desc, model);
    let stiffness: Vec<f64> = desc
        .deformables
        .iter()
        .map(|d| match d.law {
            // Contact springs: none under the impulse law.
            ContactLaw::Penalty => d.contact.stiffness,
            ContactLaw::Impulse { .. } => 0.0,
        })
        .collect();
    let h = desc.simulation.settings.time_step;
    let mut worlds = Vec::with_capacity(desc.deformables.len());
    let mut adaptives = Vec::with_capacity(desc.deformables.len());
    for (i, d) in desc.deformables.iter().enumerate() {
        if desc.simulation.settings.adaptive.is_some() {
            return Err(SceneError::new(
                file,
                d.line,
                &d.key,
                "deformables step at simulation.time_step; [simulation.adaptive] is not supported with them",
                "remove [simulation.adaptive] from this scene; for Deguet's adaptive steps of a deformable, give it adaptive_tolerance (J): its steps then divide each scene step",
            ));
        }
        let mut world = World::new(WorldSettings {
            gravity: desc.simulation.settings.gravity,
            drag: d.drag,
            contact: d.contact,
            law: d.law,
        });
        world.planes = planes.clone();
        world.polytopes = polytopes.clone();
        // A particle touches each coupled rigid piece with its own law, and another world's
        // facets with the stiffer of the two laws (its own on it, the other's on the corners).
        let others: f64 = (0..stiffness.len())
            .filter(|&j| j != i)
            .map(|j| stiffness[j].max(stiffness[i]))
            .sum();
        world.coupled_stiffness = rigid.len() as f64 * stiffness[i] + others;
        add_box(&mut world, &d.spec).map_err(|e| {
            SceneError::new(
                file,
                d.line,
                &d.key,
                e.to_string(),
                "see docs/scene-format.md, [[deformable]], for each key's range",
            )
        })?;
        let adaptive = adaptive_settings(desc, d, h)?;
        let stable = 2.0 / world.max_frequency();
        if let Some(a) = adaptive.filter(|a| a.min_time_step > stable) {
            let line = d.key_lines.line_of("adaptive_min_step", d.line);
            return Err(SceneError::new(
                file,
                line,
                format!("{}.adaptive_min_step", d.key),
                format!(
                    "adaptive_min_step = {} s is above the stable step of deformable `{}`: 2/ω_max = {stable:.3e} s (a step forced at the smallest length must be stable)",
                    a.min_time_step, d.spec.name
                ),
                "give an adaptive_min_step below that bound",
            ));
        }
        adaptives.push(adaptive);
        if adaptive.is_none() && h > stable {
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
    check_rigid_bounds(desc, model, &rigid, &worlds)?;
    let coupler = Coupler::new(&worlds, rigid);
    Ok(DeformableWorlds {
        worlds,
        coupler,
        adaptive: adaptives,
    })
}

/// The adaptive settings of deformable `d` in a scene of step `h` (s): its tolerance, its
/// smallest step (h/1024 unless given; at most h) and h as the largest.
fn adaptive_settings(
    desc: &SceneDesc,
    d: &super::desc::DeformableDesc,
    h: f64,
) -> Result<Option<AdaptiveSettings>, SceneError> {
    let Some((tolerance, min)) = d.adaptive else {
        return Ok(None);
    };
    let min_time_step = min.unwrap_or(h / 1024.0);
    if min_time_step > h {
        let line = d.key_lines.line_of("adaptive_min_step", d.line);
        return Err(SceneError::new(
            &desc.file,
            line,
            format!("{}.adaptive_min_step", d.key),
            format!("adaptive_min_step = {min_time_step} s is above simulation.time_step = {h} s"),
            "the adaptive steps divide each scene step: give an adaptive_min_step below time_step",
        ));
    }
    Ok(Some(AdaptiveSettings {
        energy_tolerance: tolerance,
        min_time_step,
        max_time_step: h,
    }))
}

/// Refuse a time step above 2/ω of a free rigid body the deformables touch (`rigid_frequency`).
fn check_rigid_bounds(
    desc: &SceneDesc,
    model: &Model,
    rigid: &[(usize, usize)],
    worlds: &[World],
) -> Result<(), SceneError> {
    let h = desc.simulation.settings.time_step;
    for &(b, _) in rigid.iter().filter(|(b, _)| !model.bodies[*b].fixed) {
        let omega = rigid_frequency(model, b, worlds);
        let stable = 2.0 / omega;
        // ω = 0 (no contact springs: every world under the impulse law) bounds nothing.
        if omega > 0.0 && h > stable {
            return Err(SceneError::new(
                &desc.file,
                desc.simulation.line,
                "simulation.time_step",
                format!(
                    "time_step = {h} s is above the stable step of rigid body `{}` on the deformables' contact springs: 2/ω = {stable:.3e} s (ω = {omega:.4e} rad/s, every free particle pressing on it)",
                    model.bodies[b].name
                ),
                "lower time_step below that bound, make the body heavier, or the deformables' contact_stiffness lower",
            ));
        }
    }
    Ok(())
}
