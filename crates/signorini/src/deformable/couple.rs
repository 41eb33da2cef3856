//! Two-way contact between deformable worlds and rigid bodies, and between deformable worlds
//! (docs/deformable.md, "Coupling"): the forces a particle takes from a rigid piece or from
//! another deformable's facets, and the equal and opposite forces on that piece's body or those
//! facets' particles.
//!
//! The rule of one coupled step of length h, from the state at t (the driver is
//! `simulation::deformables`):
//!
//! ```text
//!   for each deformable particle p (free) and each coupled rigid piece k near it:
//!     the piece's surface at p: a polytope's deepest face (Polytope::active) at the piece's
//!     world pose, or a sphere's tangent plane; its velocity there, v_k(x_p) = v + ω × (x_p − c)
//!     F = the particle's penalty law (contact.rs) at δ, with the relative velocity v_p − v_k(x_p)
//!     p takes F; body k takes −F at x_p (force and torque about its centre of mass)
//!   for each pair of deformable worlds A ≠ B and each particle p of A:
//!     the nearest facet of B (facets.rs): p takes F, the facet's corners −w_i F
//!   every force is held over the step: the worlds add it to their particles (World::coupling),
//!   the rigid step adds the wrenches to its applied forces (State::external)
//! ```
//!
//! Both sides integrate the same forces over the same h, so the linear momentum the contact
//! gives one side is what it takes from the other, to round-off (tested). Departure: the
//! exchange is explicit (forces from the state at t, not re-evaluated at the end of the step as
//! Verlet does inside a world): first order in h for the coupling springs. Its stability bound
//! is checked where a scene is built (`simulation::deformables`).
use super::contact::{Plane, Polytope};
use super::facets::{facet_force, Facets};
use super::impulse::{Other, Touch};
use super::world::{ContactLaw, World};
use crate::dynamics::{piece_pose, Model, State, Wrench};
use crate::geometry::Shape;
use glam::DVec3;

/// What the deformables of a scene touch outside their own worlds.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Coupler {
    /// Rigid pieces (body, piece) touched by every world's particles.
    pub rigid: Vec<(usize, usize)>,
    /// Each world's facets (one `Facets` per body of the world), touched by the other worlds'
    /// particles.
    pub facets: Vec<Vec<Facets>>,
}

/// A rigid piece at its pose of the step, as the particles see it.
enum Posed {
    /// A ball: centre (m) and radius (m).
    Sphere(DVec3, f64),
    /// A convex polytope: its faces' planes in the world.
    Polytope(Polytope),
}

/// A coupled rigid piece at its pose of the step.
struct PosedPiece {
    body: usize,
    shape: Posed,
    /// Its frame's origin (m) and bounding radius about it (m).
    centre: DVec3,
    reach: f64,
    /// The body moves and takes forces back: free and released (a fixed body, or one held
    /// before its `release_time`, is a fixed surface).
    moving: bool,
}

/// Every coupled piece but half-spaces (fixed, the worlds' own planes) at its world pose, built
/// once per exchange and shared by the worlds.
fn posed_pieces(rigid: &[(usize, usize)], model: &Model, state: &State) -> Vec<PosedPiece> {
    let mut out = Vec::with_capacity(rigid.len());
    for &(body, piece) in rigid {
        let pose = piece_pose(model, state, body, piece);
        let shape = &model.bodies[body].pieces[piece].shape;
        let at = pose.translation;
        let surface = match shape {
            Shape::Sphere { radius } => Posed::Sphere(at, *radius),
            Shape::Polytope(poly) => Posed::Polytope(Polytope {
                faces: poly
                    .faces
                    .iter()
                    .map(|f| {
                        let normal = pose.transform_vector(f.normal);
                        Plane {
                            normal,
                            offset: f.offset + normal.dot(at),
                        }
                    })
                    .collect(),
            }),
            Shape::HalfSpace { .. } => continue,
        };
        let b = &model.bodies[body];
        out.push(PosedPiece {
            body,
            shape: surface,
            centre: at,
            reach: shape.bounding_radius(),
            moving: !b.fixed && b.release_time <= state.time,
        });
    }
    out
}

impl Posed {
    /// The surface a particle at `x` touches, as a plane: a polytope's deepest face, a sphere's
    /// tangent plane at the point nearest `x` (`None` at its centre).
    fn surface(&self, x: DVec3) -> Option<Plane> {
        match self {
            Posed::Sphere(c, radius) => {
                let gap = x - *c;
                let d = gap.length();
                (d > 0.0).then(|| {
                    let normal = gap / d;
                    Plane {
                        normal,
                        offset: normal.dot(*c) + radius,
                    }
                })
            }
            Posed::Polytope(p) => p.active(x).copied(),
        }
    }
}

impl Coupler {
    /// A coupler for `worlds` touching the rigid pieces `rigid` (body, piece) and each other:
    /// each world's facets are built from its particles as they are now.
    pub fn new(worlds: &[World], rigid: Vec<(usize, usize)>) -> Coupler {
        let facets = worlds
            .iter()
            .map(|w| {
                w.bodies
                    .iter()
                    .map(|b| {
                        let r = w.radius.get(b.first).copied().unwrap_or(0.0);
                        Facets::of_body(b, &w.x, r)
                    })
                    .collect()
            })
            .collect();
        Coupler { rigid, facets }
    }

    /// Set every world's `coupling` forces from the state at t and return the rigid bodies'
    /// wrenches (body, wrench), one per body that takes a force, in body order.
    pub fn exchange(&self, worlds: &mut [World], model: &Model, state: &State) -> Vec<(usize, Wrench)> {
        let mut wrenches: Vec<(usize, Wrench)> = Vec::new();
        let pieces = posed_pieces(&self.rigid, model, state);
        for w in worlds.iter_mut() {
            w.coupling.clear();
            w.coupling.resize(w.x.len(), DVec3::ZERO);
            w.coupled_penetration = 0.0;
            w.coupled_contacts = 0;
            rigid_on_world(w, &pieces, state, &mut wrenches);
        }
        for a in 0..worlds.len() {
            for b in (0..worlds.len()).filter(|&b| b != a) {
                self.world_on_world(worlds, a, b);
            }
        }
        wrenches.sort_by_key(|(b, _)| *b);
        wrenches
    }

    /// World `b`'s facets' forces on world `a`'s particles, and their reactions on `b`'s (none
    /// when `a` is under the impulse law: `touches`).
    fn world_on_world(&self, worlds: &mut [World], a: usize, b: usize) {
        if worlds[a].settings.law != ContactLaw::Penalty {
            return;
        }
        for facets in &self.facets[b] {
            if facets.triangles.is_empty() {
                continue;
            }
            let (lo, hi) = bounds(&worlds[b].x, facets);
            let law = worlds[a].settings.contact;
            for p in 0..worlds[a].x.len() {
                if worlds[a].fixed[p] {
                    continue;
                }
                let (x, v, r) = (worlds[a].x[p], worlds[a].v[p], worlds[a].radius[p]);
                let reach = r + facets.radius;
                if (x - x.clamp(lo, hi)).length() > reach {
                    continue;
                }
                let wb = &worlds[b];
                let Some(contact) = facets.nearest(x, &wb.x, reach) else {
                    continue;
                };
                let Some((elastic, other)) = facet_force(&law, &contact, x, v, r, facets.radius, &wb.v) else {
                    continue;
                };
                let f = elastic + other;
                let depth = r + facets.radius - contact.distance;
                let wa = &mut worlds[a];
                wa.coupling[p] += f;
                wa.coupled_penetration = wa.coupled_penetration.max(depth);
                wa.coupled_contacts += 1;
                for (i, wgt) in contact.corners.into_iter().zip(contact.weights) {
                    worlds[b].coupling[i] -= wgt * f;
                }
            }
        }
    }

    /// The touches of the particles of every world under the impulse law at the current
    /// positions (`impulse.rs`): with the world's own planes and polytopes, the coupled rigid
    /// pieces (a fixed piece, or one of a body not yet released, as a fixed surface) and the
    /// other worlds' facets.
    pub fn touches(&self, worlds: &[World], model: &Model, state: &State) -> Vec<Touch> {
        let mut out = Vec::new();
        let pieces = posed_pieces(&self.rigid, model, state);
        for (k, w) in worlds.iter().enumerate() {
            if w.settings.law == ContactLaw::Penalty {
                continue;
            }
            for p in (0..w.x.len()).filter(|&p| !w.fixed[p]) {
                let (x, r) = (w.x[p], w.radius[p]);
                let mut touch = |normal: DVec3, depth: f64, other: Other| {
                    if depth > 0.0 {
                        out.push(Touch { world: k, particle: p, normal, depth, other });
                    }
                };
                for plane in w.surfaces(x) {
                    touch(plane.normal, plane.penetration(x, r), Other::Fixed);
                }
                for piece in &pieces {
                    if (x - piece.centre).length() > piece.reach + r {
                        continue;
                    }
                    let Some(plane) = piece.shape.surface(x) else {
                        continue;
                    };
                    let other = if piece.moving { Other::Rigid { body: piece.body } } else { Other::Fixed };
                    touch(plane.normal, plane.penetration(x, r), other);
                }
                for (b, wb) in worlds.iter().enumerate().filter(|(b, _)| *b != k) {
                    for facets in &self.facets[b] {
                        let reach = r + facets.radius;
                        if let Some(c) = facets.nearest(x, &wb.x, reach) {
                            let other = Other::Facet { world: b, corners: c.corners, weights: c.weights };
                            touch(c.normal, reach - c.distance, other);
                        }
                    }
                }
            }
        }
        out
    }
}

/// The rigid pieces' forces on `w`'s particles, and their reactions into `wrenches` (none for a
/// world under the impulse law: `Coupler::touches`; none back to a piece that does not move).
fn rigid_on_world(w: &mut World, pieces: &[PosedPiece], state: &State, wrenches: &mut Vec<(usize, Wrench)>) {
    if w.settings.law != ContactLaw::Penalty {
        return;
    }
    let law = w.settings.contact;
    for piece in pieces {
        let bs = &state.bodies[piece.body];
        let mut taken = Wrench::default();
        for p in (0..w.x.len()).filter(|&p| !w.fixed[p]) {
            let (x, r) = (w.x[p], w.radius[p]);
            if (x - piece.centre).length() > piece.reach + r {
                continue;
            }
            let Some(plane) = piece.shape.surface(x) else {
                continue;
            };
            let surface_velocity = if piece.moving { bs.point_velocity(x) } else { DVec3::ZERO };
            if let Some((elastic, other)) = law.force(&plane, x, w.v[p] - surface_velocity, r) {
                let f = elastic + other;
                w.coupling[p] += f;
                w.coupled_penetration = w.coupled_penetration.max(plane.penetration(x, r));
                w.coupled_contacts += 1;
                taken.add_at(-f, x, bs.position);
            }
        }
        if piece.moving && taken != Wrench::default() {
            match wrenches.iter_mut().find(|(b, _)| *b == piece.body) {
                Some((_, sum)) => {
                    sum.force += taken.force;
                    sum.torque += taken.torque;
                }
                None => wrenches.push((piece.body, taken)),
            }
        }
    }
}

/// The box around the particles of `facets` (m): its low and high corners.
fn bounds(x: &[DVec3], facets: &Facets) -> (DVec3, DVec3) {
    let mut lo = DVec3::splat(f64::INFINITY);
    let mut hi = DVec3::splat(f64::NEG_INFINITY);
    for t in &facets.triangles {
        for &i in t {
            lo = lo.min(x[i]);
            hi = hi.max(x[i]);
        }
    }
    (lo, hi)
}
