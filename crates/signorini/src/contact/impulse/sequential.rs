//! Sequential impulses: one single-point collision (`law`) at a time over many contact points,
//! swept Gauss–Seidel fashion until no point approaches (slides 13–14: "impulses often applied in
//! local contact resolution scheme … applied iteratively, until all resting contacts are
//! resolved").
//!
//! Each impulse is the collision law at one point with the collision matrix K of the two bodies
//! there (L1), so an impulse at one point changes the velocity of every other point of the same
//! bodies; a sweep visits every point once, in an order, and the sweeps stop when one applies
//! nothing. The order matters for convergence: slide 14 prioritizes "contact points along major
//! axes of acceleration (gravity)" — [`Priority::Gravity`] visits the points lowest along gravity
//! first, so in a stack an impulse at the bottom has reached the contact above before that one is
//! visited, and the correction travels up the stack in one sweep.
//!
//! What a point gets is the caller's choice ([`Response`]), from its normal velocity u_n (m/s,
//! u_n < 0 approaching) at the moment it is visited:
//!
//! ```text
//!   Collide { e }      the law with restitution e ∈ [0, 1]
//!   Plastic { a }      the law with e = 0 applied to u + a n: it leaves at u_n = −a (a ≥ 0 is an
//!                      approach allowed to remain, Guendelman's predicted gap ψ/h; 0 otherwise)
//!   Micro { target }   leave at u_n = target ≥ 0 even when target > |u_n| (restitution above 1):
//!                      the law with e = 1 applied to u − w n, w = (target + u_n)/2, leaves at
//!                      ũ_n = (target − u_n)/2, i.e. u_n = target when the law's exit normal
//!                      velocity is −e ũ_n (exact without normal–tangent coupling in K)
//! ```
//!
//! The shifts leave u_t unchanged and K constant, so the impulse is the law's own impulse P for
//! the shifted velocity and the velocity after is u + K P. Units: SI; impulses in N s.
use super::law::{collide, collision_matrix, BodyAtContact, ContactFrame, IntegrationOptions, Law};
use super::ImpulseReport;
use crate::collision::Contact;
use crate::contact::{ContactError, ContactImpulses};
use crate::dynamics::{Model, State};
use glam::DVec3;

/// Where an impulse acts: a contact point of bodies A and B.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ImpactPoint {
    pub body_a: usize,
    pub body_b: usize,
    /// World point where the impulse acts (m): the midpoint of a contact's two points, or the
    /// centroid of a pair's touching points.
    pub point: DVec3,
    /// Unit normal from A to B.
    pub normal: DVec3,
    /// Gap ψ (m), negative when penetrating.
    pub gap: f64,
    /// μ of the pair (`Model::friction`).
    pub friction: f64,
    /// e of the pair (`Material::pair_restitution`).
    pub restitution: f64,
}

impl ImpactPoint {
    /// The point of a narrow-phase contact: its midpoint, normal and gap, and the pair's μ and e.
    pub fn from_contact(model: &Model, c: &Contact) -> Self {
        ImpactPoint {
            body_a: c.body_a,
            body_b: c.body_b,
            point: c.midpoint(),
            normal: c.normal,
            gap: c.gap,
            friction: model.friction(c.body_a, c.body_b),
            restitution: pair_restitution(model, c.body_a, c.body_b),
        }
    }
}

/// e of a pair: `Material::pair_restitution` of the bodies' materials.
pub fn pair_restitution(model: &Model, a: usize, b: usize) -> f64 {
    crate::dynamics::Material::pair_restitution(
        &model.materials[model.bodies[a].material],
        &model.materials[model.bodies[b].material],
    )
}

/// What a visited point gets (module documentation).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Response {
    /// Nothing.
    Skip,
    /// The collision law with restitution e ∈ [0, 1]; counted as a collision.
    Collide { e: f64 },
    /// Plastic impulse leaving at u_n = −allowance (allowance ≥ 0, m/s); counted as a contact
    /// impulse.
    Plastic { allowance: f64 },
    /// Microcollision leaving at u_n = target ≥ 0 (m/s); counted as a microcollision.
    Micro { target: f64 },
}

/// The order points are visited in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Priority {
    /// As given (the narrow phase's order: by pair of bodies and pieces).
    None,
    /// Lowest along gravity first (slide 14); ties keep the given order. Without gravity, as
    /// given.
    Gravity,
}

impl Priority {
    pub fn name(self) -> &'static str {
        match self {
            Priority::None => "none",
            Priority::Gravity => "gravity",
        }
    }

    pub fn by_name(name: &str) -> Option<Priority> {
        [Priority::None, Priority::Gravity]
            .into_iter()
            .find(|p| p.name() == name)
    }
}

/// Settings of a resolution.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SequentialOptions {
    pub law: Law,
    pub priority: Priority,
    /// Sweeps before giving up (≥ 1).
    pub max_sweeps: usize,
    pub integration: IntegrationOptions,
    /// The law an impulse falls back to when `law`'s integration fails at a point (Mirtich's
    /// integration out of steps on a near-singular collision matrix): counted in
    /// `ImpulseReport::law_fallbacks`. `None`: the failure is an error.
    pub fallback: Option<Law>,
}

/// Velocity of B's material point at `p` relative to A's (m/s).
pub fn relative_velocity(state: &State, a: usize, b: usize, p: DVec3) -> DVec3 {
    state.bodies[b].point_velocity(p) - state.bodies[a].point_velocity(p)
}

/// u_n = (v_B(p) − v_A(p))·n at an impact point (m/s).
pub fn normal_velocity(state: &State, p: &ImpactPoint) -> f64 {
    relative_velocity(state, p.body_a, p.body_b, p.point).dot(p.normal)
}

/// Indices of `points` in visiting order.
pub fn visiting_order(points: &[ImpactPoint], priority: Priority, gravity: DVec3) -> Vec<usize> {
    let mut order: Vec<usize> = (0..points.len()).collect();
    if priority == Priority::Gravity && gravity.length() > 0.0 {
        let up = -gravity.normalize();
        // Stable: equal heights keep the given order.
        order.sort_by(|&i, &j| points[i].point.dot(up).total_cmp(&points[j].point.dot(up)));
    }
    order
}

/// Is body `i` held still: fixed, or frozen (`frozen[i]`; an empty slice freezes nothing)?
fn held(model: &Model, frozen: &[bool], i: usize) -> bool {
    model.bodies[i].fixed || frozen.get(i).copied().unwrap_or(false)
}

/// What one body looks like to the collision matrix at `p` (None for a held body: fixed or
/// frozen, an infinite mass).
fn at_contact(
    model: &Model,
    state: &State,
    frozen: &[bool],
    i: usize,
    p: DVec3,
) -> Option<BodyAtContact> {
    let body = &model.bodies[i];
    if held(model, frozen, i) {
        return None;
    }
    let bs = &state.bodies[i];
    Some(BodyAtContact {
        inverse_mass: body.inv_mass,
        inverse_inertia: bs.world_inverse_inertia(&body.inv_inertia),
        r: p - bs.position,
    })
}

/// Apply `response` at `p`: compute the law's impulse for the bodies' current velocities and add
/// it to both (+J on B, −J on A at the point). Returns the world impulse J on B (N s), or `None`
/// when the response asks for nothing or the (shifted) velocity does not approach.
pub fn apply(
    model: &Model,
    state: &mut State,
    p: &ImpactPoint,
    response: Response,
    law: Law,
    options: &IntegrationOptions,
) -> Result<Option<DVec3>, ContactError> {
    let log = &mut ContactImpulses::off();
    Ok(apply_held(model, state, &[], p, response, (law, None), options, log)?.map(|(j, _)| j))
}

/// [`apply`] with the bodies flagged in `frozen` held still (infinite mass): the impulse acts on
/// the other body alone; `laws` = (the law, its fallback when its integration fails). Returns
/// the impulse and whether the fallback gave it, and records the impulse in `log`.
#[allow(clippy::too_many_arguments)]
fn apply_held(
    model: &Model,
    state: &mut State,
    frozen: &[bool],
    p: &ImpactPoint,
    response: Response,
    laws: (Law, Option<Law>),
    options: &IntegrationOptions,
    log: &mut ContactImpulses,
) -> Result<Option<(DVec3, bool)>, ContactError> {
    let fail = |error: super::law::LawError| ContactError::Law {
        body_a: model.bodies[p.body_a].name.clone(),
        body_b: model.bodies[p.body_b].name.clone(),
        error,
    };
    let frame = ContactFrame::from_normal(p.normal).map_err(fail)?;
    let a = at_contact(model, state, frozen, p.body_a, p.point);
    let b = at_contact(model, state, frozen, p.body_b, p.point);
    let k = collision_matrix(&frame, a.as_ref(), b.as_ref()).map_err(fail)?;
    let u = frame.to_contact(relative_velocity(state, p.body_a, p.body_b, p.point));
    // The velocity the law sees (module documentation) and its restitution.
    let (shifted, e) = match response {
        Response::Skip => return Ok(None),
        Response::Collide { e } => (u, e),
        Response::Plastic { allowance } => (u + DVec3::Z * allowance, 0.0),
        Response::Micro { target } => (u - DVec3::Z * (0.5 * (target + u.z)), 1.0),
    };
    if !(shifted.z < 0.0) {
        return Ok(None);
    }
    let (c, fell_back) = match (collide(laws.0, &k, shifted, p.friction, e, options), laws.1) {
        (Ok(c), _) => (c, false),
        (Err(_), Some(fallback)) => (
            collide(fallback, &k, shifted, p.friction, e, options).map_err(fail)?,
            true,
        ),
        (Err(error), None) => return Err(fail(error)),
    };
    let j = add_impulse(model, state, frozen, p, frame.to_world(c.impulse));
    log.impulse((p.body_a, p.body_b), p.point, p.normal, j);
    Ok(Some((j, fell_back)))
}

/// +J on B and −J on A at the point (held bodies excepted); returns J.
fn add_impulse(
    model: &Model,
    state: &mut State,
    frozen: &[bool],
    p: &ImpactPoint,
    j: DVec3,
) -> DVec3 {
    for (i, sign) in [(p.body_a, -1.0), (p.body_b, 1.0)] {
        let body = &model.bodies[i];
        if held(model, frozen, i) {
            continue;
        }
        let bs = &mut state.bodies[i];
        let inv_inertia = bs.world_inverse_inertia(&body.inv_inertia);
        bs.velocity += sign * body.inv_mass * j;
        bs.angular_velocity += inv_inertia * (p.point - bs.position).cross(sign * j);
    }
    j
}

/// Sweep `points` in `options.priority` order, asking `respond(point, u_n)` at each visit, until a
/// sweep applies no impulse or `options.max_sweeps` sweeps are done. Bodies that received an
/// impulse are flagged in `touched` (indexed by body; pass an empty slice to skip). The report's
/// `unresolved` counts the points `respond` still wants an impulse at after the last sweep, and
/// `unresolved_speed` is the fastest approach −u_n among them. Each impulse applied is recorded
/// in `log`.
pub fn resolve(
    model: &Model,
    state: &mut State,
    points: &[ImpactPoint],
    options: &SequentialOptions,
    touched: &mut [bool],
    respond: impl FnMut(&ImpactPoint, f64) -> Response,
    log: &mut ContactImpulses,
) -> Result<ImpulseReport, ContactError> {
    resolve_held(model, state, points, options, (&[], touched), respond, log)
}

/// [`resolve`] with the bodies flagged in `frozen` held still (an empty slice freezes nothing).
fn resolve_held(
    model: &Model,
    state: &mut State,
    points: &[ImpactPoint],
    options: &SequentialOptions,
    (frozen, touched): (&[bool], &mut [bool]),
    mut respond: impl FnMut(&ImpactPoint, f64) -> Response,
    log: &mut ContactImpulses,
) -> Result<ImpulseReport, ContactError> {
    let mut report = ImpulseReport::default();
    if points.is_empty() {
        return Ok(report);
    }
    let order = visiting_order(points, options.priority, model.settings.gravity);
    let mut converged = false;
    for _ in 0..options.max_sweeps.max(1) {
        report.sweeps += 1;
        let mut applied = 0;
        for &i in &order {
            let p = &points[i];
            let response = respond(p, normal_velocity(state, p));
            let laws = (options.law, options.fallback);
            let applied_here = apply_held(
                model,
                state,
                frozen,
                p,
                response,
                laws,
                &options.integration,
                log,
            )?;
            if let Some((_, fell_back)) = applied_here {
                report.law_fallbacks += fell_back as u64;
                applied += 1;
                match response {
                    Response::Collide { .. } => report.collisions += 1,
                    Response::Plastic { .. } => report.contact_impulses += 1,
                    Response::Micro { .. } => report.microcollisions += 1,
                    Response::Skip => {}
                }
                for b in [p.body_a, p.body_b] {
                    if let Some(t) = touched.get_mut(b) {
                        *t = true;
                    }
                }
            }
        }
        if applied == 0 {
            converged = true;
            break;
        }
    }
    if !converged {
        for p in points {
            let u_n = normal_velocity(state, p);
            if respond(p, u_n) != Response::Skip {
                report.unresolved += 1;
                report.unresolved_speed = report.unresolved_speed.max(-u_n);
            }
        }
    }
    Ok(report)
}

/// Each body's level in the contact graph of `points` (Guendelman, Bridson & Fedkiw 2003, §7):
/// 0 for fixed bodies, 1 + the lowest level among its contact partners otherwise (breadth-first
/// from the fixed bodies), `usize::MAX` for a body no chain of contacts joins to a fixed one.
pub fn contact_levels(model: &Model, points: &[ImpactPoint]) -> Vec<usize> {
    let n = model.bodies.len();
    let mut level = vec![usize::MAX; n];
    let mut frontier: Vec<usize> = (0..n).filter(|&i| model.bodies[i].fixed).collect();
    for &i in &frontier {
        level[i] = 0;
    }
    let mut next = Vec::new();
    while !frontier.is_empty() {
        for p in points {
            for (from, to) in [(p.body_a, p.body_b), (p.body_b, p.body_a)] {
                if level[to] == usize::MAX && frontier.contains(&from) {
                    level[to] = level[from] + 1;
                    next.push(to);
                }
            }
        }
        next.sort_unstable();
        next.dedup();
        frontier = std::mem::take(&mut next);
    }
    level
}

/// Shock propagation (Guendelman, Bridson & Fedkiw 2003, §7), the last pass of a contact stage:
/// the levels of [`contact_levels`] are resolved from the ground up, each with the levels below
/// it held still (infinite mass), then frozen in turn:
///
/// ```text
///   frozen ← fixed bodies
///   for L = 1, 2, …:   sweep the points whose higher body is at level L (lower ones frozen)
///                      freeze the bodies of level L
/// ```
///
/// An upper body can no longer push a lower one down, so a stack's support is settled in one
/// pass per level instead of the sweeps it takes a load to travel down and back up (a 10-book
/// stack: 249 sweeps a step). The price is Guendelman's: the lower bodies do not feel the
/// bodies above within this pass (their weight reaches them through the next step's contact
/// stage). Points joining bodies of no level (not supported by a fixed body) are left to the
/// ordinary sweeps. Returns the sweeps' report (points still approaching counted as usual).
/// The impulses go into `log` as applied to B; a frozen A does not receive its −J.
pub fn shock_propagation(
    model: &Model,
    state: &mut State,
    points: &[ImpactPoint],
    options: &SequentialOptions,
    mut respond: impl FnMut(&ImpactPoint, f64) -> Response,
    log: &mut ContactImpulses,
) -> Result<ImpulseReport, ContactError> {
    let level = contact_levels(model, points);
    let top = level
        .iter()
        .copied()
        .filter(|&l| l != usize::MAX)
        .max()
        .unwrap_or(0);
    let mut frozen: Vec<bool> = model.bodies.iter().map(|b| b.fixed).collect();
    let mut report = ImpulseReport::default();
    for l in 1..=top {
        let here: Vec<ImpactPoint> = points
            .iter()
            .filter(|p| {
                let (a, b) = (level[p.body_a], level[p.body_b]);
                a != usize::MAX && b != usize::MAX && a.max(b) == l
            })
            .copied()
            .collect();
        let held = (frozen.as_slice(), &mut [][..]);
        let r = resolve_held(model, state, &here, options, held, &mut respond, log)?;
        report.add(&r);
        for (i, f) in frozen.iter_mut().enumerate() {
            if level[i] == l {
                *f = true;
            }
        }
    }
    Ok(report)
}
