//! The impulse law for deformables (`[[deformable]] contact_law = "impulse"`; docs/deformable.md,
//! "Impulse law"): Newton's impact law with Coulomb friction for each particle touching a
//! surface, by sequential impulses at the end of every step, then a position projection out of
//! the surface. Deguet, Joukhadar & Laugier 1998 §2.1 compare this family with the penalty law
//! (§2.2); for a particle, a point mass without rotation, Newton's and Poisson's laws coincide.
//!
//! A touch is a particle p (mass m_p, radius r) inside a surface by δ > 0 with unit normal n
//! (from the surface to p): a fixed surface (a plane, a polytope's deepest face, a fixed piece),
//! a free rigid body (mass M, world inverse inertia I⁻¹, the contact at x_p, r_b = x_p − c) or
//! another deformable's facet (corners i with weights w_i, masses m_i). Along a direction d:
//!
//! ```text
//!   relative velocity   u = v_p − v_other(x_p)      (0; v + ω × r_b; Σ w_i v_i)
//!   inverse mass        K_d = 1/m_p + (0; 1/M + (r_b × d)·I⁻¹(r_b × d); Σ_free w_i²/m_i)
//!   target              u_n⁺ = −e u_n⁻ if u_n⁻ < −v_rest and the touch is new, else 0
//!                       (Newton; v_rest = 2 h max(|g|, −a_p·n), a_p the particle's acceleration
//!                       without contact at the step's end; new: the particle did not touch the
//!                       same surface, body or deformable at the previous step's end — a
//!                       resting particle re-enters its surface every step by the step's own
//!                       acceleration, up to n_z g h under a column of n_z particles, and must
//!                       not bounce on it, while a body striking it must)
//!   sweeps (Gauss–Seidel, accumulated impulses, Catto's clamping):
//!     j_n ← max(j_n + (u_n⁺ − n·u)/K_n, 0)
//!     j_t ← j_t − u_t/K_t, clipped to |j_t| ≤ μ j_n        (u_t the tangential part of u)
//!     each change J applied: p takes J, the other side −J (the body at x_p, the corners −w_i J)
//!   until no impulse changes a velocity by more than 1e-9 m/s, or 100 sweeps
//!   projection: λ = δ/K_n; p moves λ/m_p along n, the other side the rest by its inverse
//!     masses (a body −λ/M n and a turn −λ I⁻¹(r_b × n); corners −λ w_i/m_i n)
//! ```
//!
//! Collision laws (`ImpactLaw`): under `newton` (the default) the targets above are all. Under
//! `poisson` or `stronge`, each new touch arriving faster than v_rest is first resolved on its own,
//! in order, by the single-point law of `contact::impulse::law` (the slides' L1–L5): the
//! collision matrix K (3 × 3, contact frame) of the particle and the other side, and the impulse
//! path integrated with Coulomb friction (Mirtich) to Poisson's P_n = (1 + e) P_c or Stronge's
//! W_n = (1 − e²) W_c. Its impulse starts the touch's accumulated impulses and its exit normal
//! velocity becomes the touch's target, so the sweeps then only correct what the other touches
//! changed. With a fixed surface or a facet the other side does not turn, K = k 1 is isotropic,
//! normal and tangential impulses decouple, and the three laws give the same impulse (tested);
//! they differ against a free rigid body, whose turning couples them (a particle striking it
//! off-centre with friction).
//!
//! Every impulse has its opposite, so linear momentum is kept to round-off (tested); the
//! projection moves positions only. Departures: the restitution applies to the velocity
//! of each touch as the sweeps start, one touch at a time (simultaneous touches are not one
//! multi-point collision).
use super::world::{ContactLaw, Forces, ImpactLaw, World, WorldSettings};
use crate::contact::impulse::law::{
    collide, collision_matrix, BodyAtContact, ContactFrame, IntegrationOptions,
};
use crate::dynamics::integrate::rotate_by;
use crate::dynamics::{Model, State};
use glam::{DMat3, DVec3};

/// The other side of a touch.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Other {
    /// A fixed surface: takes no impulse.
    Fixed,
    /// Free rigid body `body` of the model.
    Rigid { body: usize },
    /// A facet of world `world`: its corners and the weights of the closest point.
    Facet { world: usize, corners: [usize; 3], weights: [f64; 3] },
}

/// A particle inside a surface at the end of a step.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Touch {
    pub world: usize,
    pub particle: usize,
    /// Unit normal from the surface to the particle.
    pub normal: DVec3,
    /// δ (m, > 0).
    pub depth: f64,
    pub other: Other,
}

/// What one resolution did.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ImpulseReport {
    pub touches: usize,
    pub sweeps: usize,
    /// Touches resolved first by an integrated collision law (`poisson`, `stronge`).
    pub collisions: usize,
    /// Largest velocity change of the last sweep (m/s): ≤ 1e-9 when the sweeps converged.
    pub residual: f64,
}

/// Sweeps at most; a velocity change below `TOLERANCE` (m/s) ends them.
const MAX_SWEEPS: usize = 100;
const TOLERANCE: f64 = 1e-9;

/// The worlds, the rigid bodies' model and state, mutable together.
pub struct Bodies<'a> {
    pub worlds: &'a mut [World],
    pub model: &'a Model,
    pub state: &'a mut State,
}

impl Bodies<'_> {
    fn particle_inverse_mass(&self, t: &Touch) -> f64 {
        let w = &self.worlds[t.world];
        if w.fixed[t.particle] {
            0.0
        } else {
            1.0 / w.mass[t.particle]
        }
    }

    fn rigid_inverse_inertia(&self, body: usize) -> DMat3 {
        let b = &self.model.bodies[body];
        self.state.bodies[body].world_inverse_inertia(&b.inv_inertia)
    }

    /// Velocity of the particle relative to the other side at the particle (m/s).
    fn relative_velocity(&self, t: &Touch) -> DVec3 {
        let w = &self.worlds[t.world];
        let (x, v) = (w.x[t.particle], w.v[t.particle]);
        match t.other {
            Other::Fixed => v,
            Other::Rigid { body } => v - self.state.bodies[body].point_velocity(x),
            Other::Facet { world, corners, weights } => {
                let wb = &self.worlds[world];
                v - (0..3).map(|i| weights[i] * wb.v[corners[i]]).sum::<DVec3>()
            }
        }
    }

    /// Inverse mass of the touch along unit `d` (1/kg): how much velocity a unit impulse gives.
    fn inverse_mass(&self, t: &Touch, d: DVec3) -> f64 {
        let own = self.particle_inverse_mass(t);
        own + match t.other {
            Other::Fixed => 0.0,
            Other::Rigid { body } => {
                let r = self.worlds[t.world].x[t.particle] - self.state.bodies[body].position;
                let rd = r.cross(d);
                self.model.bodies[body].inv_mass + rd.dot(self.rigid_inverse_inertia(body) * rd)
            }
            Other::Facet { world, corners, weights } => self.facet_inverse_mass(world, corners, weights),
        }
    }

    /// Σ w_i²/m_i over a facet's free corners (1/kg): its inverse mass at the closest point.
    fn facet_inverse_mass(&self, world: usize, corners: [usize; 3], weights: [f64; 3]) -> f64 {
        let wb = &self.worlds[world];
        (0..3)
            .filter(|&i| !wb.fixed[corners[i]])
            .map(|i| weights[i] * weights[i] / wb.mass[corners[i]])
            .sum()
    }

    /// The touch's collision matrix in `frame` (the slides' L1; 1/kg): the other side as body A
    /// (a free rigid body with its inertia at r = x_p − c; a facet's closest point as a point of
    /// mass 1/Σ w_i²/m_i; nothing for a fixed surface), the particle as body B.
    fn collision_matrix(&self, t: &Touch, frame: &ContactFrame) -> Option<DMat3> {
        let point = |inverse_mass: f64| BodyAtContact {
            inverse_mass,
            inverse_inertia: DMat3::ZERO,
            r: DVec3::ZERO,
        };
        let other = match t.other {
            Other::Fixed => None,
            Other::Rigid { body } => Some(BodyAtContact {
                inverse_mass: self.model.bodies[body].inv_mass,
                inverse_inertia: self.rigid_inverse_inertia(body),
                r: self.worlds[t.world].x[t.particle] - self.state.bodies[body].position,
            }),
            Other::Facet { world, corners, weights } => {
                Some(point(self.facet_inverse_mass(world, corners, weights)))
            }
        };
        let particle = point(self.particle_inverse_mass(t));
        collision_matrix(frame, other.as_ref(), Some(&particle)).ok()
    }

    /// Impulse `j` (N s) on the particle, −`j` on the other side.
    fn apply(&mut self, t: &Touch, j: DVec3) {
        let own = self.particle_inverse_mass(t);
        let x = self.worlds[t.world].x[t.particle];
        self.worlds[t.world].v[t.particle] += own * j;
        match t.other {
            Other::Fixed => {}
            Other::Rigid { body } => {
                let inv_i = self.rigid_inverse_inertia(body);
                let bs = &mut self.state.bodies[body];
                let r = x - bs.position;
                bs.velocity -= self.model.bodies[body].inv_mass * j;
                bs.angular_velocity -= inv_i * r.cross(j);
            }
            Other::Facet { world, corners, weights } => {
                let wb = &mut self.worlds[world];
                for i in (0..3).filter(|&i| !wb.fixed[corners[i]]) {
                    let c = corners[i];
                    wb.v[c] -= weights[i] * j / wb.mass[c];
                }
            }
        }
    }

    /// Move the particle and the other side apart by the touch's depth, shared by inverse mass
    /// along the normal: with λ = δ / K_n (K_n = `inverse_mass(t, n)`), the particle moves
    /// λ/m_p n, a free body −λ/M n and turns by −λ I⁻¹ (r × n), facet corners −λ w_i/m_i n. To
    /// first order the gap closes by exactly δ, and the moves keep Σ m Δx = 0 and, about the
    /// body's centre, I Δθ + r × m_p Δx_p = 0 (the position analogue of an impulse λ n).
    fn project(&mut self, t: &Touch) {
        let own = self.particle_inverse_mass(t);
        let n = t.normal;
        let total = self.inverse_mass(t, n);
        if total == 0.0 {
            return;
        }
        let step = t.depth / total;
        let x = self.worlds[t.world].x[t.particle];
        self.worlds[t.world].x[t.particle] += own * step * n;
        match t.other {
            Other::Fixed => {}
            Other::Rigid { body } => {
                let turn = -(self.rigid_inverse_inertia(body) * (x - self.state.bodies[body].position).cross(n)) * step;
                let bs = &mut self.state.bodies[body];
                bs.position -= self.model.bodies[body].inv_mass * step * n;
                bs.orientation = rotate_by(bs.orientation, turn);
            }
            Other::Facet { world, corners, weights } => {
                let wb = &mut self.worlds[world];
                for i in (0..3).filter(|&i| !wb.fixed[corners[i]]) {
                    let c = corners[i];
                    wb.x[c] -= weights[i] / wb.mass[c] * step * n;
                }
            }
        }
    }
}

/// The impulse law of each world: restitution e, Coulomb's μ and the collision law.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TouchLaw {
    pub restitution: f64,
    pub friction: f64,
    pub impact: ImpactLaw,
}

impl TouchLaw {
    /// The law of a world (a penalty world's touches are not resolved here: no bounce, no
    /// friction).
    pub fn of(settings: &WorldSettings) -> Self {
        match settings.law {
            ContactLaw::Impulse {
                restitution,
                impact,
            } => TouchLaw {
                restitution,
                friction: settings.contact.friction,
                impact,
            },
            ContactLaw::Penalty => TouchLaw {
                restitution: 0.0,
                friction: 0.0,
                impact: ImpactLaw::Newton,
            },
        }
    }
}

/// The rest speed of each touch (m/s; the module's v_rest): twice the approach its particle's
/// own acceleration a_p (without contact: gravity, connectors, coupling, at the state) gives
/// over a step `h`, at least 2 |g| h. A resting particle under a column of n_z re-enters its
/// surface at up to n_z g h every step. Costs one force evaluation of each world with touches.
pub fn rest_speeds(worlds: &[World], touches: &[Touch], gravity: f64, h: f64) -> Vec<f64> {
    let mut accelerations: Vec<Vec<DVec3>> = vec![Vec::new(); worlds.len()];
    let mut forces = Forces::default();
    for t in touches {
        let (w, a) = (&worlds[t.world], &mut accelerations[t.world]);
        if a.is_empty() {
            w.forces(&w.x, &w.v, &mut forces);
            forces.accelerations(w, a);
        }
    }
    touches
        .iter()
        .map(|t| 2.0 * h * gravity.max(-accelerations[t.world][t.particle].dot(t.normal)))
        .collect()
}

/// Resolve `touches` (see the module's rule) under the law `laws[world]` of each touch's world,
/// `rest_speed[k]` (m/s) the approach speed below which touch k does not bounce, `resting[k]`
/// whether touch k (its particle and what it touches) was found at the previous step's end too
/// (it does not bounce).
pub fn resolve(
    touches: &[Touch],
    bodies: &mut Bodies,
    laws: &[TouchLaw],
    rest_speed: &[f64],
    resting: &[bool],
) -> ImpulseReport {
    let arriving = |k: usize, un: f64| !resting[k] && un < -rest_speed[k];
    let mut targets: Vec<f64> = touches
        .iter()
        .enumerate()
        .map(|(k, t)| {
            let un = t.normal.dot(bodies.relative_velocity(t));
            if arriving(k, un) {
                -laws[t.world].restitution * un
            } else {
                0.0
            }
        })
        .collect();
    let mut normal = vec![0.0; touches.len()];
    let mut tangent = vec![DVec3::ZERO; touches.len()];
    let mut report = ImpulseReport {
        touches: touches.len(),
        ..ImpulseReport::default()
    };
    for (k, t) in touches.iter().enumerate() {
        let law = laws[t.world];
        if law.impact == ImpactLaw::Newton {
            continue;
        }
        let u = bodies.relative_velocity(t);
        if !arriving(k, t.normal.dot(u)) {
            continue;
        }
        if let Some(p) = integrated_collision(bodies, t, u, law) {
            bodies.apply(t, p);
            normal[k] = p.dot(t.normal);
            tangent[k] = p - normal[k] * t.normal;
            targets[k] = t.normal.dot(bodies.relative_velocity(t)).max(0.0);
            report.collisions += 1;
        }
    }
    for sweep in 1..=MAX_SWEEPS {
        let mut largest: f64 = 0.0;
        for (k, t) in touches.iter().enumerate() {
            let n = t.normal;
            let kn = bodies.inverse_mass(t, n);
            if kn == 0.0 {
                continue;
            }
            let un = n.dot(bodies.relative_velocity(t));
            let jn = (normal[k] + (targets[k] - un) / kn).max(0.0);
            let dn = jn - normal[k];
            normal[k] = jn;
            bodies.apply(t, dn * n);
            largest = largest.max((dn * kn).abs());
            let u = bodies.relative_velocity(t);
            let ut = u - n.dot(u) * n;
            let speed = ut.length();
            if speed > 0.0 {
                let kt = bodies.inverse_mass(t, ut / speed);
                let mut jt = tangent[k] - ut / kt;
                let limit = laws[t.world].friction * normal[k];
                if jt.length() > limit {
                    jt *= limit / jt.length();
                }
                let dt = jt - tangent[k];
                tangent[k] = jt;
                bodies.apply(t, dt);
                largest = largest.max(dt.length() * kt);
            }
        }
        report.sweeps = sweep;
        report.residual = largest;
        if largest <= TOLERANCE {
            break;
        }
    }
    for t in touches {
        bodies.project(t);
    }
    report
}

/// The impulse (world, on the particle; N s) of touch `t` arriving at relative velocity `u`
/// under `law`'s integrated collision law, or `None` where the law declines (a singular K: both
/// sides immovable; the Newton targets then stand).
fn integrated_collision(bodies: &Bodies, t: &Touch, u: DVec3, law: TouchLaw) -> Option<DVec3> {
    let frame = ContactFrame::from_normal(t.normal).ok()?;
    let k = bodies.collision_matrix(t, &frame)?;
    let c = collide(
        law.impact.law(),
        &k,
        frame.to_contact(u),
        law.friction,
        law.restitution,
        &IntegrationOptions::default(),
    )
    .ok()?;
    Some(frame.to_world(c.impulse))
}
