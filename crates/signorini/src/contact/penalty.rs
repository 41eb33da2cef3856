//! Pieces shared by the force-based (penalty) models: pair identity and per-pair memory, the
//! pair's deepest point, its masses and relative velocity at a point, a force applied to both
//! bodies, and Coulomb sliding friction capped so an explicit step never reverses a slip.
use crate::collision::Contact;
use crate::contact::ContactImpulses;
use crate::dynamics::implicit::{push_friction, ForceElement};
use crate::dynamics::piece_pose;
use crate::dynamics::{Integrator, Model, State, Wrench};
use crate::geometry::intersection::{intersect, intersect_half_space, Intersection};
use crate::geometry::penetration::contact_normal;
use crate::geometry::Shape;
use glam::DVec3;
use std::collections::BTreeMap;

/// A pair of convex pieces: (body A, piece of A, body B, piece of B). Compound bodies pair piece
/// by piece; the narrow phase lists each pair's contacts together, in this order.
pub type PairKey = (usize, usize, usize, usize);

pub fn pair_key(c: &Contact) -> PairKey {
    (c.body_a, c.piece_a, c.body_b, c.piece_b)
}

/// The contacts of `contacts` grouped by pair of pieces (consecutive, as the narrow phase lists
/// them).
pub fn pairs(contacts: &[Contact]) -> impl Iterator<Item = &[Contact]> {
    contacts.chunk_by(|x, y| pair_key(x) == pair_key(y))
}

/// The pair's deepest contact (smallest gap ψ; the first of equals) among its contacts `group`.
pub fn deepest_contact(group: &[Contact]) -> &Contact {
    group
        .iter()
        .min_by(|x, y| x.gap.total_cmp(&y.gap))
        .expect("pairs are non-empty")
}

/// Largest penetration depth of a pair's contacts (m, ≥ 0).
pub fn pair_depth(group: &[Contact]) -> f64 {
    group.iter().map(|c| -c.gap).fold(0.0, f64::max)
}

/// Natural frequency of the penalty models' default gains under `implicit-euler` (rad/s): a 1 kg
/// box on the ground sinks g/ω² = 2.5 µm, a stack of ten 1 kg boxes 0.25 mm in all. Backward
/// Euler is stable at any h ω; at h ω ≫ 1 it resolves the contact in about a step, as a
/// constraint would.
pub const DEFAULT_FREQUENCY: f64 = 2000.0;
/// Damping ratio ζ of the default gains: k_v = 2 ζ ω m (critical).
pub const DEFAULT_DAMPING_RATIO: f64 = 1.0;
/// Default of the penalty models' `max_recovery_speed` (m/s), as stewart-trinkle's.
pub const MAX_RECOVERY_SPEED: f64 = 0.5;
/// Stability margin of the explicit defaults: ρ (h²ω² + 4 ζ h ω) ≤ this, of the 4 that
/// semi-implicit Euler allows.
pub const EXPLICIT_MARGIN: f64 = 2.0;
/// The choices of the single-spring models' `point` parameter.
pub const SPRING_POINTS: &[&str] = &["weighted", "deepest"];

/// ω (rad/s) of a pair's default gains k_p = m ω², k_v = 2 ζ m ω for steps of `h` (s) by
/// `integrator`, where `ratio` = m / m_eff ≥ 1 is the mass the gains scale with over the pair's
/// effective mass at the contact along its normal.
///
/// `implicit-euler`: [`DEFAULT_FREQUENCY`]. Explicit integrators: the largest ω up to it for
/// which semi-implicit Euler on the contact's spring–damper (1-D, mass m_eff) keeps half its
/// stability margin. That step is stable iff h² k/m_eff + 2 h c/m_eff < 4 (the trace and
/// determinant conditions of its 2 × 2 update), i.e. ρ (x² + 4 ζ x) < 4 with x = h ω; so
/// x = −2ζ + √(4ζ² + [`EXPLICIT_MARGIN`]/ρ). RK4's region contains semi-implicit Euler's on the
/// negative real axis and along the imaginary one up to 2.8, so the same ω serves it.
pub fn default_frequency(integrator: Integrator, h: f64, ratio: f64) -> f64 {
    if integrator == Integrator::ImplicitEuler || h.is_nan() || h <= 0.0 {
        return DEFAULT_FREQUENCY;
    }
    let (z, rho) = (DEFAULT_DAMPING_RATIO, ratio.max(1.0));
    let x = -2.0 * z + (4.0 * z * z + EXPLICIT_MARGIN / rho).sqrt();
    (x / h).min(DEFAULT_FREQUENCY)
}

/// The activation distance (m) of a penalty model integrated by `integrator`: under
/// `implicit-euler`, the time-stepping models' anticipating distance
/// (`time_stepping::anticipating_distance`: 4 h times the fastest point's speed beyond the
/// scene's), since the springs engage before touch only for pairs the narrow phase reports, and
/// a box falling at 5 m/s closes 1 cm in a step of 2 ms; the scene's otherwise.
pub fn activation_distance(model: &Model, state: &State, integrator: Integrator) -> f64 {
    if integrator == Integrator::ImplicitEuler {
        super::time_stepping::anticipating_distance(model, state, &[])
    } else {
        model.settings.activation_distance
    }
}

/// The depth a spring of stiffness `kp` (N/m) and damping `kv` (N s/m) is given for an overlap
/// `depth` (m) under `implicit-euler`, so that the implicit step pushes it out at about
/// `speed` (m/s): min(depth, speed (h + kv/kp)). A backward Euler step drives the overlap
/// towards zero at kp d / (kp h + kv) once inertia is overcome; the cap bounds that rate. A
/// load of more than kp times the cap sinks in slowly instead.
pub fn capped_depth(depth: f64, speed: f64, h: f64, kp: f64, kv: f64) -> f64 {
    if kp <= 0.0 {
        return depth;
    }
    depth.min(speed * (h + kv / kp))
}

/// [`capped_depth`] for a law whose damping grows with the depth, kv = kv_per_depth × x
/// (Hunt–Crossley's λ x c): the element is given x_c with its own damping at x_c, so the cap
/// must hold at it, x_c = speed (h + kv_per_depth x_c / kp), i.e.
/// x_c = speed h / (1 − speed kv_per_depth / kp). Where speed kv_per_depth ≥ kp the damping
/// alone keeps the push-out below `speed` (the rate kp x / (kp h + kv_per_depth x) stays under
/// kp / kv_per_depth at any depth) and the depth is not capped. Capping with the damping at the
/// full depth instead (as [`capped_depth`] with kv = kv_per_depth × depth) gave a cap the
/// element's smaller damping did not honour: a 10 kg cube started 5 cm in the ground left at
/// 2.6 m/s under `hunt-crossley`.
pub fn capped_depth_damped_by_depth(
    depth: f64,
    speed: f64,
    h: f64,
    kp: f64,
    kv_per_depth: f64,
) -> f64 {
    if kp <= 0.0 || speed * kv_per_depth >= kp {
        return depth;
    }
    depth.min(speed * h / (1.0 - speed * kv_per_depth / kp))
}

/// The weights wᵢ / Σ wᵢ of a pair's contacts in its depth-weighted centre
/// ([`weighted_point`]): wᵢ = max(dᵢ − d + max(d, 0) + ε, 0), dᵢ = −ψᵢ their depths, d the
/// deepest's and ε (m) a small length (the activation distance). wᵢ ≈ dᵢ when the pair
/// penetrates; contacts within ε of the deepest count about equally when none penetrates yet.
pub fn contact_weights(group: &[Contact], epsilon: f64) -> Vec<f64> {
    let deepest = -deepest_contact(group).gap;
    let offset = deepest.max(0.0) + epsilon - deepest;
    let mut w: Vec<f64> = group.iter().map(|c| (-c.gap + offset).max(0.0)).collect();
    let total: f64 = w.iter().sum();
    if total > 0.0 {
        w.iter_mut().for_each(|x| *x /= total);
    } else {
        // ε = 0 and a single contact at the deepest depth: it alone.
        let k = group
            .iter()
            .position(|c| std::ptr::eq(c, deepest_contact(group)))
            .unwrap_or(0);
        w.iter_mut()
            .enumerate()
            .for_each(|(i, x)| *x = f64::from(u8::from(i == k)));
    }
    w
}

/// The depth-weighted centre Σ wᵢ pᵢ of a pair's contacts (pᵢ their midpoints, wᵢ from
/// [`contact_weights`]): a face pressed in evenly is pushed at its centre, a single corner at
/// itself. Varies continuously as a face tilts.
pub fn weighted_point(group: &[Contact], epsilon: f64) -> DVec3 {
    contact_weights(group, epsilon)
        .iter()
        .zip(group)
        .map(|(w, c)| *w * c.midpoint())
        .sum()
}

/// A pair's single spring–damper as force elements shared among its contacts `group` in
/// proportion to `weights` (summing to 1, [`contact_weights`]), for `implicit-euler`. `law`
/// gives the spring's (force N, stiffness N/m, damping N s/m) for a normal relative velocity
/// (m/s, positive separating) along the unit normal `n`; contact i carries wᵢ times the law at its
/// own velocity, with its own friction ([`friction_elements`], cone μ fᵢ).
///
/// The shares' forces sum to the spring's at the weighted centre Σ wᵢ pᵢ (the law is affine in
/// the velocity, and the velocity field of a rigid body is affine in the point), and so does
/// their moment from the spring's part; what spreading adds is the damper's and friction's
/// moment: a single damper at the centre has no lever arm, and a box on a face rocked and spun
/// on it undamped. Returns how many shares push.
#[allow(clippy::too_many_arguments)]
pub fn spread_spring_elements(
    model: &Model,
    state: &State,
    (group, weights): (&[Contact], &[f64]),
    n: DVec3,
    law: impl Fn(f64) -> (f64, f64, f64),
    stiction_speed: f64,
    elements: &mut Vec<ForceElement>,
) -> usize {
    let bodies = (group[0].body_a, group[0].body_b);
    let mut pushing = 0;
    for (c, &w) in group.iter().zip(weights) {
        if w <= 0.0 {
            continue;
        }
        let p = c.midpoint();
        let (f, k, damping) = law(normal_velocity(state, bodies.0, bodies.1, p, n));
        let normal = elements.len();
        elements.push(ForceElement::normal(
            bodies,
            p,
            n,
            w * f,
            w * k,
            w * damping,
        ));
        friction_elements(
            model,
            state,
            bodies,
            p,
            n,
            (normal, w * f),
            stiction_speed,
            elements,
        );
        pushing += usize::from(f > 0.0);
    }
    pushing
}

/// Guards: the points of a pair that do not carry its spring, as anticipating springs of their
/// own, for `implicit-euler`. `guards` are the pair's contacts that get no share of its spring
/// and do not touch yet (gap ψ > 0: a corner of a turning box coming down, the far end of a
/// tilted box landing, found by the narrow phase's near features, `ModelBase::near_features`);
/// each gets the pair's gains `(kp, kv)` (N/m, N s/m) shared equally among them, at its own
/// negative depth −ψ along its own normal: f⁰ = (−kp ψ − kv v)/n, v its normal velocity
/// (positive separating), n the number of guards, as a pair that does not touch yet shares its
/// spring among its points. The implicit step switches a guard on only if its point would close
/// its gap during the step (its force is negative at the state), so a guard changes nothing
/// until it is needed.
///
/// Why: a single spring acts where the pair touches now. A box turning at 15 rad/s as it lands
/// on another, or landing tilted, touches first at one edge; its other end comes down at up to
/// 6 m/s, 12 mm in a step of 2 ms, and was found a centimetre deep on `bin_64` (its point had
/// no share of the spring, or the narrow phase had not reported it).
pub fn guard_elements<'c>(
    state: &State,
    guards: impl Iterator<Item = &'c Contact> + Clone,
    (kp, kv): (f64, f64),
    elements: &mut Vec<ForceElement>,
) -> usize {
    let n = guards.clone().count();
    if n == 0 {
        return 0;
    }
    let share = 1.0 / n as f64;
    for c in guards {
        let (a, b, p) = (c.body_a, c.body_b, c.midpoint());
        let v = normal_velocity(state, a, b, p, c.normal);
        let f = share * (-kp * c.gap - kv * v);
        elements.push(ForceElement::normal(
            (a, b),
            p,
            c.normal,
            f,
            share * kp,
            share * kv,
        ));
    }
    n
}

/// The contacts of `group` that get no share of its spring (`weights`, [`contact_weights`]; a
/// zero weight) and do not touch yet: the pair's guards ([`guard_elements`]).
pub fn unweighted_gaps<'c>(
    group: &'c [Contact],
    weights: &'c [f64],
) -> impl Iterator<Item = &'c Contact> + Clone {
    group
        .iter()
        .zip(weights)
        .filter(|(c, &w)| w <= 0.0 && c.gap > 0.0)
        .map(|(c, _)| c)
}

/// The contacts of `group` other than its deepest that do not touch yet: the guards of a pair
/// whose spring acts at its deepest contact (`point = "deepest"`, [`guard_elements`]).
pub fn others_apart(group: &[Contact]) -> impl Iterator<Item = &Contact> + Clone {
    let spring = deepest_contact(group);
    group
        .iter()
        .filter(move |c| c.gap > 0.0 && !std::ptr::eq(*c, spring))
}

/// Whether a penalty model integrated by `integrator` asks the narrow phase for near features
/// (`collision::near_features`): under `implicit-euler`, whose springs engage before touch, so
/// that every point of a pair that can touch during the step is a contact (a guard,
/// [`guard_elements`]), not only the points of the axis that realizes the gap (one point for an
/// edge–edge gap). The explicit integrators use penetrating points only.
pub fn wants_near_features(integrator: Integrator) -> bool {
    integrator == Integrator::ImplicitEuler
}

/// Drumwright (2008) eq. 2, the integral term with a forgetting factor φ:
///
/// ```text
///   I_t = Σ_{i=0}^{t−1} φ^{t−i−1} max_y d(y, i)  =  φ I_{t−1} + max_y d(y, t−1)
/// ```
///
/// kept per pair of pieces (m: a sum of depths over steps, not a time integral). A pair's sum
/// persists while it penetrates and is forgotten when it separates (no popping from a stale sum
/// when it touches again).
#[derive(Clone, Debug, Default)]
pub struct IntegralMemory {
    sums: BTreeMap<PairKey, f64>,
}

impl IntegralMemory {
    /// I of the pair (0 for a pair not in contact at the previous steps).
    pub fn get(&self, key: PairKey) -> f64 {
        self.sums.get(&key).copied().unwrap_or(0.0)
    }

    /// Advance by one accepted step whose final contacts are `contacts`.
    pub fn advance(&mut self, forgetting: f64, contacts: &[Contact]) {
        let mut next = BTreeMap::new();
        for group in pairs(contacts) {
            let depth = pair_depth(group);
            if depth > 0.0 {
                let key = pair_key(&group[0]);
                next.insert(key, forgetting * self.get(key) + depth);
            }
        }
        self.sums = next;
    }
}

/// Reduced mass of a pair (kg): m_a m_b / (m_a + m_b), or the dynamic body's mass when the other
/// is fixed.
pub fn reduced_mass(model: &Model, a: usize, b: usize) -> f64 {
    let inv = model.bodies[a].inv_mass + model.bodies[b].inv_mass;
    if inv > 0.0 {
        1.0 / inv
    } else {
        0.0
    }
}

/// m_a + m_b over the pair's dynamic bodies (kg): Drumwright's gain scale (a fixed body adds
/// nothing).
pub fn mass_sum(model: &Model, a: usize, b: usize) -> f64 {
    [a, b]
        .iter()
        .map(|&i| &model.bodies[i])
        .filter(|b| !b.fixed)
        .map(|b| b.mass)
        .sum()
}

/// 1 / (tᵀ W t): the effective mass of the pair at point `p` along unit direction `t` (kg).
pub fn effective_mass(model: &Model, state: &State, a: usize, b: usize, p: DVec3, t: DVec3) -> f64 {
    let mut w = 0.0;
    for i in [a, b] {
        let body = &model.bodies[i];
        if body.fixed {
            continue;
        }
        let bs = &state.bodies[i];
        let rxt = (p - bs.position).cross(t);
        w += body.inv_mass + rxt.dot(bs.world_inverse_inertia(&body.inv_inertia) * rxt);
    }
    if w > 0.0 {
        1.0 / w
    } else {
        0.0
    }
}

/// Velocity of B's material point at `p` relative to A's (m/s).
pub fn relative_velocity(state: &State, a: usize, b: usize, p: DVec3) -> DVec3 {
    state.bodies[b].point_velocity(p) - state.bodies[a].point_velocity(p)
}

/// v_rel·n: the normal relative velocity of B's material point at `p` with respect to A's along
/// `n` (m/s, positive separating when n points from A to B).
pub fn normal_velocity(state: &State, a: usize, b: usize, p: DVec3, n: DVec3) -> f64 {
    relative_velocity(state, a, b, p).dot(n)
}

/// The part of `v` in the plane normal to the unit vector `n`: v − (v·n) n.
pub fn tangential(v: DVec3, n: DVec3) -> DVec3 {
    v - v.dot(n) * n
}

/// Force `f` on B at point `p`, and −f on A (added to `out`, per body), recorded in `log` with
/// the contact's unit normal `n` (from A to B).
#[allow(clippy::too_many_arguments)]
pub fn apply_pair_force(
    state: &State,
    (a, b): (usize, usize),
    p: DVec3,
    n: DVec3,
    f: DVec3,
    out: &mut [Wrench],
    log: &mut ContactImpulses,
) {
    out[b].add_at(f, p, state.bodies[b].position);
    out[a].add_at(-f, p, state.bodies[a].position);
    log.force((a, b), p, n, f);
}

/// Coulomb sliding friction on B at point `p` for normal force `f_n` (N) along unit `normal`:
/// −min(μ f_n, m_t |v_t| / h) v_t/|v_t|, with v_t the slip velocity and m_t the pair's effective
/// mass along it. The cap is the force that stops the slip in one step of length `h`, so an
/// explicit integrator never reverses the slip and a body at rest does not chatter.
#[allow(clippy::too_many_arguments)]
pub fn sliding_friction(
    model: &Model,
    state: &State,
    a: usize,
    b: usize,
    p: DVec3,
    normal: DVec3,
    f_n: f64,
    h: f64,
) -> DVec3 {
    let mu = model.friction(a, b);
    if mu == 0.0 || f_n <= 0.0 {
        return DVec3::ZERO;
    }
    let v_rel = relative_velocity(state, a, b, p);
    let v_t = tangential(v_rel, normal);
    let slip = v_t.length();
    if slip == 0.0 {
        return DVec3::ZERO;
    }
    let t = v_t / slip;
    let stop = effective_mass(model, state, a, b, p, t) * slip / h;
    -(mu * f_n).min(stop) * t
}

/// Coulomb friction at `p` for the `implicit-euler` integrator, as the two tangent force
/// elements of normal element `normal` (normal force `f_n`, N, along unit `n` on B): regularised
/// Coulomb friction, a damper of μ f_n / v_s (N s/m) on the slip velocity, which the implicit
/// step takes at the end of the step and bounds by the cone μ f_n⁺ (`dynamics::implicit`). A
/// contact sticks with a creep below the stiction speed v_s (m/s) and slides at μ f_n.
#[allow(clippy::too_many_arguments)]
pub fn friction_elements(
    model: &Model,
    state: &State,
    (a, b): (usize, usize),
    p: DVec3,
    n: DVec3,
    (normal, f_n): (usize, f64),
    stiction_speed: f64,
    elements: &mut Vec<ForceElement>,
) {
    let mu = model.friction(a, b);
    if mu == 0.0 || f_n <= 0.0 {
        return;
    }
    // The sticking law itself, unclipped: the implicit step bounds it by the cone at the end
    // of the step. (Clipped at the state, its linearisation would have the damper's slope
    // around the sliding force, and the step would stop at the slip where that line crosses
    // zero: a sliding block barely slowed.)
    let damping = mu * f_n / stiction_speed;
    let v_t = tangential(relative_velocity(state, a, b, p), n);
    push_friction(
        elements,
        (a, b),
        p,
        n,
        -damping * v_t,
        (0.0, damping),
        normal,
        mu,
    );
}

/// The intersection of the contact's two pieces (polytope–polytope or polytope–half-space), the
/// contact normal from A to B and each vertex's depth along it (how far it must move along n to
/// leave A). `None` for pairs with a sphere or without a volume of overlap.
///
/// The normal is the min–max facet rule's (Drumwright, appendix I, eq. 4), except against a
/// half-space: its plane is the only facet on its side and its normal is exact whatever the depth,
/// while the rule, once a polytope is more than half submerged, prefers one of the polytope's own
/// facets (the only ones still "inside the other geometry") and pushes it sideways or down — a
/// collapsing stack under `hunt-crossley` volume mode fell 3.9 km through the ground that way.
pub fn penetration(
    model: &Model,
    state: &State,
    c: &Contact,
) -> Option<(Intersection, DVec3, Vec<f64>)> {
    let pose_a = piece_pose(model, state, c.body_a, c.piece_a);
    let pose_b = piece_pose(model, state, c.body_b, c.piece_b);
    let shape_a = &model.bodies[c.body_a].pieces[c.piece_a].shape;
    let shape_b = &model.bodies[c.body_b].pieces[c.piece_b].shape;
    let plane = |pose: &crate::geometry::Pose, normal: DVec3| {
        let n = pose.transform_vector(normal);
        (n, n.dot(pose.translation))
    };
    // Depth of every vertex along `n`: how far below the top of the volume (the side facing B).
    let along = |inter: &Intersection, n: DVec3| {
        let top = inter
            .vertices
            .iter()
            .map(|p| n.dot(*p))
            .fold(f64::NEG_INFINITY, f64::max);
        inter.vertices.iter().map(|p| top - n.dot(*p)).collect()
    };
    match (shape_a, shape_b) {
        (Shape::Polytope(pa), Shape::Polytope(pb)) => {
            let inter = intersect(pa, &pose_a, pb, &pose_b)?;
            let cn = contact_normal(&inter);
            Some((inter, cn.normal, cn.depths))
        }
        (Shape::Polytope(pa), Shape::HalfSpace { normal }) => {
            // From the polytope into the half-space's material: against its outward normal.
            let (n, d) = plane(&pose_b, *normal);
            let inter = intersect_half_space(pa, &pose_a, n, d)?;
            let depths = along(&inter, -n);
            Some((inter, -n, depths))
        }
        (Shape::HalfSpace { normal }, Shape::Polytope(pb)) => {
            // From the half-space out of its material, into the polytope.
            let (n, d) = plane(&pose_a, *normal);
            let inter = intersect_half_space(pb, &pose_b, n, d)?;
            let depths = along(&inter, n);
            Some((inter, n, depths))
        }
        _ => None,
    }
}
