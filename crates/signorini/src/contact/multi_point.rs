//! Drumwright's multi-point PID penalty method (Drumwright 2008, §III and appendix I).
//!
//! For every pair of convex pieces that penetrate:
//!
//! 1. the intersection polytope of the two pieces (`geometry::intersection`), the contact normal
//!    n (from A to B) by the min–max facet rule (appendix I, eq. 4) and the depth of each of its
//!    vertices along n (`geometry::penetration::contact_normal`);
//! 2. the points on the bottom of the intersection volume (§III-A), by the O(N log N) incremental
//!    procedure (`geometry::penetration::bottom_points_incremental`; `bottom = "exact"` takes the
//!    definition instead, `bottom_points`): the surface of B deepest in A, where the virtual
//!    springs act;
//! 3. at each bottom point y (eqs. 1–3), with d(y) its depth and v(y) the normal relative velocity
//!    (positive when separating),
//!
//!    ```text
//!      f(y) = max{(k_p d(y) − k_v v(y) + k_i I) / r, 0},   I_t = φ I_{t−1} + max_y d(y, t−1)
//!    ```
//!
//!    along +n on B and −n on A, r the number of bottom points whose force is non-zero (so more
//!    points do not mean more force) and I the pair's integral term with forgetting factor φ
//!    (eq. 2, `penalty::IntegralMemory`, with the narrow phase's depth of the pair);
//! 4. friction: static friction by tangential spring–dampers (Hwang et al. / Yamane & Nakamura,
//!    which Drumwright cites) spread over the bottom points like the normal force. The pair keeps
//!    a patch elongation: a slip δ (m, in the tangent plane) and a twist θ (rad, about n), both
//!    accumulated from the relative motion at the centre of pressure c. At bottom point y the
//!    spring is stretched by δ + θ n × (y − c), and
//!
//!    ```text
//!      f_t(y) = −w(y) (k_t (δ + θ n × (y − c)) + d_t v_t(y)),   w(y) = f(y)/f_n,   |f_t(y)| ≤ μ f(y)
//!    ```
//!
//!    (v_t(y) the tangential slip velocity there, f_n = Σ f(y)): the forces sum to −k_t δ − d_t v̄_t,
//!    and the points' lever arms resist spinning about the normal, which one force at c could not.
//!    Shares in proportion to the normal forces make every point reach its cone together, exactly
//!    when the pair's spring force reaches μ f_n (equal shares let a lightly loaded point slip
//!    first: a block on a slope crept). A point beyond its cone slides with Coulomb's μ f(y); δ and
//!    θ are pulled back so that the patch's spring force and moment stay within μ f_n and
//!    μ Σ f(y)|y − c|. Integrating the slip (rather than anchoring springs to material points)
//!    lets a ball roll without resistance.
//!
//! Pairs with a sphere have no intersection polytope: they get one spring at the narrow phase's
//! deepest point (r = 1) with the same PID law and friction. Gains given per kg scale with the
//! summed mass of the pair's dynamic bodies, as Drumwright's k_p = 100 (m₁ + m₂),
//! k_v = 50 (m₁ + m₂), k_i = 2 (m₁ + m₂) (a fixed body adds nothing); the default k_p, k_v are
//! m_red ω², 2 m_red ω on the pair's reduced mass (`penalty::default_frequency`), k_i stays
//! 2 (m₁ + m₂). The normal is the min–max facet's or the narrow phase's separating axis,
//! whichever the intersection is thinner along (`thinnest_normal`).
use super::params::model_params;
use super::penalty::{self, pair_key, IntegralMemory, PairKey};
use super::ContactImpulses;
use super::{
    ContactError, ForceModel, ModelBase, ModelSpec, ModelStats, ParamDefault, ParamKind, ParamSpec,
    ParamValue, Range,
};
use crate::collision::Contact;
use crate::dynamics::implicit::{push_friction, ForceElement};
use crate::dynamics::{Integrator, Model, State, Wrench};
use crate::geometry::intersection::Intersection;
use crate::geometry::penetration::{bottom_points, bottom_points_incremental};
use crate::geometry::Shape;
use glam::DVec3;
use std::collections::BTreeMap;

pub const NAME: &str = "multi-point";

model_params! {
    /// Parameters of `multi-point`.
    pub struct MultiPointParams {
        kp: Option<f64> = ParamSpec {
            name: "kp",
            unit: "N/m",
            default: ParamDefault::Derived("kp_per_kg * (m_a + m_b), or m_red * omega^2 when neither kp_per_kg nor kv_per_kg is given"),
            description: "proportional gain; when not given, kp_per_kg times the summed mass of the pair's dynamic bodies (Drumwright), or on the defaults omega^2 times the pair's reduced mass",
            kind: ParamKind::Number(Range::at_least(0.0)),
        },
        kv: Option<f64> = ParamSpec {
            name: "kv",
            unit: "N s/m",
            default: ParamDefault::Derived("kv_per_kg * (m_a + m_b), or 2 omega m_red when neither kp_per_kg nor kv_per_kg is given"),
            description: "derivative (damping) gain",
            kind: ParamKind::Number(Range::at_least(0.0)),
        },
        ki: Option<f64> = ParamSpec {
            name: "ki",
            unit: "N/m",
            default: ParamDefault::Derived("ki_per_kg * (m_a + m_b)"),
            description: "integral gain, times I (m): the pair's largest depth summed over past steps with the forgetting factor",
            kind: ParamKind::Number(Range::at_least(0.0)),
        },
        kp_per_kg: Option<f64> = ParamSpec {
            name: "kp_per_kg",
            unit: "N/(m kg)",
            default: ParamDefault::Derived("none: kp = m_red omega^2, omega = 2000 rad/s under implicit-euler, the largest stable omega <= 2000 rad/s at the contact under the explicit integrators"),
            description: "kp per kg of the pair's summed dynamic mass (Drumwright: 100)",
            kind: ParamKind::Number(Range::at_least(0.0)),
        },
        kv_per_kg: Option<f64> = ParamSpec {
            name: "kv_per_kg",
            unit: "N s/(m kg)",
            default: ParamDefault::Derived("none: kv = 2 omega m_red (critical damping of the default stiffness)"),
            description: "kv per kg of the pair's summed dynamic mass (Drumwright: 50)",
            kind: ParamKind::Number(Range::at_least(0.0)),
        },
        ki_per_kg: f64 = ParamSpec {
            name: "ki_per_kg",
            unit: "N/(m kg)",
            default: ParamDefault::Value(2.0),
            description: "ki per kg of the pair's dynamic mass (Drumwright: 2)",
            kind: ParamKind::Number(Range::at_least(0.0)),
        },
        forgetting: f64 = ParamSpec {
            name: "forgetting",
            unit: "-",
            default: ParamDefault::Value(0.85),
            description: "forgetting factor phi of the integral term, in [0, 1) (Drumwright: 0.8 to 0.9 works)",
            kind: ParamKind::Number(Range::closed_open(0.0, 1.0)),
        },
        bottom: &'static str = ParamSpec {
            name: "bottom",
            unit: "-",
            default: ParamDefault::Word("incremental"),
            description: "how the bottom points are found: \"incremental\" (Drumwright's O(N log N) procedure on the points, section III-A; may keep a few upper points) or \"exact\" (the vertices of the intersection's faces that face away from B)",
            kind: ParamKind::Choice(&["incremental", "exact"]),
        },
        max_recovery_speed: f64 = ParamSpec {
            name: "max_recovery_speed",
            unit: "m/s",
            default: ParamDefault::Value(penalty::MAX_RECOVERY_SPEED),
            description: "implicit-euler only: each spring's depth is capped at max_recovery_speed (h + kv/kp), so an overlap is pushed out at about this speed, not launched",
            kind: ParamKind::Number(Range::open(0.0, f64::INFINITY)),
        },
        friction_stiffness: Option<f64> = ParamSpec {
            name: "friction_stiffness",
            unit: "N/m",
            default: ParamDefault::Derived("kp"),
            description: "k_t of the tangential (static friction) spring",
            kind: ParamKind::Number(Range::at_least(0.0)),
        },
        friction_damping: Option<f64> = ParamSpec {
            name: "friction_damping",
            unit: "N s/m",
            default: ParamDefault::Derived("2 sqrt(friction_stiffness * m_pair)"),
            description: "d_t of the tangential (static friction) damper; the default damps the pair's tangential spring critically (m_pair its reduced mass)",
            kind: ParamKind::Number(Range::at_least(0.0)),
        },
    }
}

pub const SPEC: ModelSpec = ModelSpec {
    name: NAME,
    summary: "Drumwright's multi-point PID penalty: springs at the bottom of the intersection volume, forces normalized by their number, integral term with forgetting factor, static friction by a tangential spring",
    params: MultiPointParams::SPECS,
};

/// Gains of one pair.
#[derive(Clone, Copy, Debug)]
struct Gains {
    kp: f64,
    kv: f64,
    ki: f64,
    kt: f64,
    dt: f64,
}

/// Static-friction springs of a pair: the slip δ (m, world axes, in the tangent plane), the
/// twist θ about the normal (rad) and the time they were last advanced (s).
#[derive(Clone, Copy, Debug)]
struct TangentSpring {
    delta: DVec3,
    twist: f64,
    time: f64,
}

/// What one pair exerts: normal forces at points, and friction at the centre of pressure.
#[derive(Clone, Debug, Default)]
struct PairForces {
    /// (point, normal force on B along +n) with the force already divided by r.
    points: Vec<(DVec3, f64)>,
    normal: DVec3,
    /// Σ normal forces (N) and their centre (m).
    total: f64,
    centre: DVec3,
    /// Tangential slip velocity of B relative to A at the centre (m/s).
    slip: DVec3,
    /// Relative spin of B about the normal (rad/s).
    spin: f64,
    /// The pair does not touch yet (`implicit-euler`): `points` are springs at the narrow
    /// phase's contacts whose forces may be negative; no friction, no centre.
    anticipating: bool,
}

/// Drumwright's multi-point PID penalty method.
pub struct MultiPoint {
    values: Vec<ParamValue>,
    kp: Option<f64>,
    kv: Option<f64>,
    ki: Option<f64>,
    kp_per_kg: Option<f64>,
    kv_per_kg: Option<f64>,
    ki_per_kg: f64,
    max_recovery_speed: f64,
    forgetting: f64,
    exact_bottom: bool,
    kt: Option<f64>,
    dt: Option<f64>,
    integral: IntegralMemory,
    springs: BTreeMap<PairKey, TangentSpring>,
    /// The pairs' forces `end_step` computed at the state it was given, kept for the next
    /// step's first force evaluation at that same state (the intersection polytopes are most of
    /// a step's cost).
    computed: ComputedForces,
}

/// Pair forces computed at one state, for one step length: (step, time s, h s) and the forces.
#[derive(Debug, Default)]
struct ComputedForces {
    at: Option<(u64, f64, f64)>,
    pairs: BTreeMap<PairKey, PairForces>,
}

impl MultiPoint {
    /// `values` in the order of `SPEC.params`.
    pub fn new(values: &[ParamValue]) -> Result<Self, super::ConfigError> {
        let p = MultiPointParams::from_values(values);
        Ok(MultiPoint {
            values: values.to_vec(),
            kp: p.kp,
            kv: p.kv,
            ki: p.ki,
            kp_per_kg: p.kp_per_kg,
            kv_per_kg: p.kv_per_kg,
            ki_per_kg: p.ki_per_kg,
            max_recovery_speed: p.max_recovery_speed,
            forgetting: p.forgetting,
            exact_bottom: p.bottom == "exact",
            kt: p.friction_stiffness,
            dt: p.friction_damping,
            integral: IntegralMemory::default(),
            springs: BTreeMap::new(),
            computed: ComputedForces::default(),
        })
    }

    /// The gains of the pair of bodies `a`, `b`, whose effective mass along the contact normal
    /// is `m_eff` (kg) at its deepest point, for steps of `h` (s).
    ///
    /// Gains given per kg scale with the mass sum m_a + m_b, Drumwright's convention. The
    /// default gains, k_p = m ω² and k_v = 2 ζ m ω, take m = the pair's reduced mass, as
    /// `deepest-point` and `hunt-crossley` do: the pair's relative motion along the normal then
    /// has the natural frequency ω and the damping ratio ζ (m_red ẍ = −k_p x − k_v ẋ). On the
    /// mass sum a pair's frequency was ω √((m_a + m_b)/m_red): 2ω for equal boxes, and a 16 kg
    /// box landing on a 2.9 kg one had a spring 6.6 times the light box's spring to the floor
    /// (whose depth the push-out cap bounds), which drove the light box 5.6 mm into the floor on
    /// `bin_64` (seed 1).
    fn gains(&self, model: &Model, (a, b): (usize, usize), m_eff: f64, h: f64) -> Gains {
        let sum = penalty::mass_sum(model, a, b);
        let m = if self.kp_per_kg.is_none() && self.kv_per_kg.is_none() {
            penalty::reduced_mass(model, a, b)
        } else {
            sum
        };
        let omega = penalty::default_frequency(self.integrator(model), h, m / m_eff);
        let kp = self
            .kp
            .unwrap_or(self.kp_per_kg.map_or(omega * omega * m, |k| k * sum));
        let kt = self.kt.unwrap_or(kp);
        let kv = self.kv.unwrap_or(self.kv_per_kg.map_or(
            2.0 * penalty::DEFAULT_DAMPING_RATIO * omega * m,
            |k| k * sum,
        ));
        Gains {
            kp,
            kv,
            ki: self.ki.unwrap_or(self.ki_per_kg * sum),
            kt,
            dt: self
                .dt
                .unwrap_or_else(|| 2.0 * (kt * penalty::reduced_mass(model, a, b)).sqrt()),
        }
    }

    /// The gains of the pair of `group` (its narrow-phase contacts) at `state`.
    fn pair_gains(&self, model: &Model, state: &State, group: &[Contact], h: f64) -> Gains {
        let c = penalty::deepest_contact(group);
        let (a, b) = (c.body_a, c.body_b);
        let m_eff = penalty::effective_mass(model, state, a, b, c.midpoint(), c.normal);
        self.gains(model, (a, b), m_eff, h)
    }

    /// The normal forces of one pair of pieces (its narrow-phase contacts `group`) at `state`.
    ///
    /// `cap`: (push-out speed (m/s), h (s)) under `implicit-euler`: each spring's depth capped by
    /// `penalty::capped_depth`.
    fn pair_forces(
        &self,
        model: &Model,
        state: &State,
        (group, g): (&[Contact], &Gains),
        cap: Option<(f64, f64)>,
        out: &mut PairForces,
    ) -> Result<(), ContactError> {
        out.points.clear();
        out.total = 0.0;
        out.anticipating = false;
        let c = &group[0];
        let (a, b) = (c.body_a, c.body_b);
        let integral = g.ki * self.integral.get(pair_key(c));
        // (point, depth) of every bottom point, and the normal.
        let mut springs: Vec<(DVec3, f64)> = Vec::new();
        match penalty::penetration(model, state, c) {
            Some((inter, normal, depths)) => {
                let axis = penalty::deepest_contact(group).normal;
                let (normal, depths) = thinnest_normal(&inter, (normal, depths), axis);
                out.normal = normal;
                // A bottom point at zero depth lies on the contact plane and has no spring to
                // stretch: a box tilted by a hair has side faces that face slightly down, which
                // would put the points where its vertical edges cross the plane among the bottom
                // points, with only the integral term to carry (and r jumping as it rocks).
                let bottom = if self.exact_bottom {
                    bottom_points(&inter, normal)
                } else {
                    bottom_points_incremental(&inter.vertices, normal)
                };
                for i in bottom {
                    if depths[i] > inter.tolerance {
                        springs.push((inter.vertices[i], depths[i]));
                    }
                }
            }
            None => {
                // A sphere, or a pair whose pieces do not overlap in volume: one spring at the
                // narrow phase's deepest point, if it penetrates.
                let deepest = penalty::deepest_contact(group);
                if deepest.gap < 0.0 && is_sphere_pair(model, deepest) {
                    out.normal = deepest.normal;
                    springs.push((deepest.midpoint(), -deepest.gap));
                } else if deepest.gap >= 0.0 && cap.is_some() {
                    // implicit-euler, a pair within the activation distance that does not touch
                    // yet: a spring at each narrow-phase contact at its negative depth, which
                    // the implicit step engages if the pair would close its gap during the step.
                    out.normal = deepest.normal;
                    springs.extend(group.iter().map(|c| (c.midpoint(), -c.gap)));
                    out.anticipating = true;
                } else {
                    return Ok(());
                }
            }
        }
        // Eq. 3 before normalization; r counts the positive ones.
        let n = out.normal;
        let raw: Vec<f64> = springs
            .iter()
            .map(|&(p, d)| {
                let v = penalty::normal_velocity(state, a, b, p, n);
                let d = cap.map_or(d, |(speed, h)| {
                    penalty::capped_depth(d, speed, h, g.kp, g.kv)
                });
                g.kp * d - g.kv * v + integral
            })
            .collect();
        if out.anticipating {
            // Every spring, pushing or not: the implicit solve switches off those that pull.
            let r = springs.len() as f64;
            out.points
                .extend(springs.iter().zip(&raw).map(|(&(p, _), &f)| (p, f / r)));
            return Ok(());
        }
        let r = raw.iter().filter(|&&f| f > 0.0).count();
        if r == 0 {
            return Ok(());
        }
        let mut moment = DVec3::ZERO;
        for (&(p, _), &f) in springs.iter().zip(&raw) {
            if f > 0.0 {
                let f = f / r as f64;
                if !f.is_finite() {
                    return Err(ContactError::NonFiniteForce {
                        model: NAME,
                        body_a: model.bodies[a].name.clone(),
                        body_b: model.bodies[b].name.clone(),
                        detail: String::new(),
                    });
                }
                out.points.push((p, f));
                out.total += f;
                moment += f * p;
            }
        }
        out.centre = moment / out.total;
        out.slip = penalty::tangential(penalty::relative_velocity(state, a, b, out.centre), n);
        out.spin = (state.bodies[b].angular_velocity - state.bodies[a].angular_velocity).dot(n);
        Ok(())
    }

    /// Friction on B at each of the pair's force points (module documentation, step 4), added to
    /// `out` as (point, force) pairs.
    ///
    /// `clip`: each force clipped to its cone μ f(y) (the explicit integrators); unclipped for
    /// `implicit-euler`, whose step bounds the force at the end of the step (a force clipped at
    /// the state would be linearised with the spring–damper's slope around the sliding force).
    fn friction(
        &self,
        model: &Model,
        state: &State,
        (c, g): (&Contact, &Gains),
        f: &PairForces,
        clip: bool,
        out: &mut Vec<(DVec3, DVec3)>,
    ) {
        out.clear();
        let mu = model.friction(c.body_a, c.body_b);
        if mu == 0.0 {
            return;
        }
        let n = f.normal;
        let (delta, twist) = self
            .springs
            .get(&pair_key(c))
            .map_or((DVec3::ZERO, 0.0), |s| {
                (penalty::tangential(s.delta, n), s.twist)
            });
        for &(p, fn_) in &f.points {
            let slip =
                penalty::tangential(penalty::relative_velocity(state, c.body_a, c.body_b, p), n);
            let stretch = delta + twist * n.cross(p - f.centre);
            let trial = -(fn_ / f.total) * (g.kt * stretch + g.dt * slip);
            let (size, cap) = (trial.length(), mu * fn_);
            out.push((
                p,
                if size <= cap || !clip {
                    trial
                } else {
                    trial * (cap / size)
                },
            ));
        }
    }
}

/// The min–max normal `(normal, depths)` (Drumwright, appendix I, eq. 4: the facet of either
/// piece bounding the intersection `inter` whose plane is closest, in the max norm, to all of
/// its vertices, i.e. along whose normal the intersection is thinnest) or the narrow phase's
/// separating axis `axis` (unit, from A to B), whichever the intersection is thinner along by
/// more than its tolerance, with each vertex's depth along it.
///
/// The facet rule measures a candidate by the intersection's width along it, but its candidates
/// are facet normals only. Where two ridges cross (a box landing on an edge across another's
/// edge) the intersection is a sliver between two edges, thinnest along their cross product —
/// the narrow phase's edge–edge axis, the direction of least penetration — and no facet is near
/// it: on `bin_64` (seed 11) the rule picked a facet 42° off it, along which the sinking box was
/// separating, and its spring was switched off. Among facets the rule is unchanged (a face
/// contact's axis is a facet normal, and ties keep the facet).
fn thinnest_normal(
    inter: &Intersection,
    (normal, depths): (DVec3, Vec<f64>),
    axis: DVec3,
) -> (DVec3, Vec<f64>) {
    if !axis.is_finite() || (axis.length_squared() - 1.0).abs() > 1e-6 {
        return (normal, depths);
    }
    let width = depths.iter().copied().fold(0.0, f64::max);
    let along: Vec<f64> = inter.vertices.iter().map(|p| axis.dot(*p)).collect();
    let top = along.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let bottom = along.iter().copied().fold(f64::INFINITY, f64::min);
    if top - bottom < width - inter.tolerance {
        (axis, along.iter().map(|x| top - x).collect())
    } else {
        (normal, depths)
    }
}

/// Do the contact's pieces include a sphere?
fn is_sphere_pair(model: &Model, c: &Contact) -> bool {
    let shape = |body: usize, piece: usize| &model.bodies[body].pieces[piece].shape;
    matches!(shape(c.body_a, c.piece_a), Shape::Sphere { .. })
        || matches!(shape(c.body_b, c.piece_b), Shape::Sphere { .. })
}

impl ModelBase for MultiPoint {
    fn spec(&self) -> ModelSpec {
        SPEC
    }

    /// `penalty::activation_distance`.
    fn activation_distance(&self, model: &Model, state: &State) -> f64 {
        penalty::activation_distance(model, state, self.integrator(model))
    }

    /// Under `implicit-euler` (`penalty::wants_near_features`): a penetrating pair's contacts
    /// that do not touch yet are its guards (`penalty::guard_elements`).
    fn near_features(&self, model: &Model) -> bool {
        penalty::wants_near_features(self.integrator(model))
    }

    fn parameters(&self) -> Vec<(&'static str, ParamValue)> {
        super::named_values(SPEC.params, &self.values)
    }

    /// Advance the integral sums (eq. 2) and the friction springs: δ ← δ + v_t Δt in the tangent
    /// plane and θ ← θ + ω_n Δt at the centre of pressure, pulled back so that k_t |δ| ≤ μ f_n and
    /// k_t |θ| Σ w(y)|y − c|² ≤ μ Σ f(y)|y − c| when the pair slides or spins; pairs that stopped
    /// penetrating forget both.
    fn end_step(&mut self, model: &Model, state: &State, contacts: &[Contact]) {
        self.integral.advance(self.forgetting, contacts);
        let mut next = BTreeMap::new();
        let mut f = PairForces::default();
        let mut computed = ComputedForces {
            at: Some((state.step, state.time, model.settings.time_step)),
            pairs: BTreeMap::new(),
        };
        for group in penalty::pairs(contacts) {
            if penalty::pair_depth(group) <= 0.0 {
                continue;
            }
            let c = &group[0];
            let mu = model.friction(c.body_a, c.body_b);
            let h = model.settings.time_step;
            let g = self.pair_gains(model, state, group, h);
            let cap = self.cap(model, h);
            if mu == 0.0
                || self
                    .pair_forces(model, state, (group, &g), cap, &mut f)
                    .is_err()
            {
                continue;
            }
            computed.pairs.insert(pair_key(c), f.clone());
            if f.points.is_empty() || f.anticipating {
                continue;
            }
            let key = pair_key(c);
            let (delta, twist, dt) = match self.springs.get(&key) {
                Some(s) => (s.delta, s.twist, state.time - s.time),
                None => (DVec3::ZERO, 0.0, 0.0),
            };
            let n = f.normal;
            let mut delta = penalty::tangential(delta, n) + f.slip * dt;
            let mut twist = twist + f.spin * dt;
            let kt = g.kt;
            let cap = mu * f.total;
            if kt * delta.length() > cap {
                delta *= cap / (kt * delta.length());
            }
            let (arm2, arm): (f64, f64) = f
                .points
                .iter()
                .map(|&(p, fn_)| {
                    let d = p - f.centre;
                    let t = d - d.dot(n) * n;
                    (fn_ / f.total * t.length_squared(), fn_ * t.length())
                })
                .fold((0.0, 0.0), |(a, b), (x, y)| (a + x, b + y));
            let (torque, twist_cap) = (kt * twist.abs() * arm2, mu * arm);
            if torque > twist_cap {
                twist *= twist_cap / torque;
            }
            next.insert(
                key,
                TangentSpring {
                    delta,
                    twist,
                    time: state.time,
                },
            );
        }
        self.springs = next;
        self.computed = computed;
    }
}

impl ForceModel for MultiPoint {
    fn contact_forces(
        &mut self,
        model: &Model,
        state: &State,
        contacts: &[Contact],
        h: f64,
        out: &mut [Wrench],
        log: &mut ContactImpulses,
    ) -> Result<ModelStats, ContactError> {
        let mut stats = ModelStats::default();
        let mut f = PairForces::default();
        let mut tangential = Vec::new();
        for group in penalty::pairs(contacts) {
            if penalty::pair_depth(group) <= 0.0 {
                continue;
            }
            let g = self.pair_gains(model, state, group, h);
            self.pair_forces_at(model, state, (group, &g), (None, h), &mut f)?;
            if f.points.is_empty() {
                continue;
            }
            let c = &group[0];
            let (a, b) = (c.body_a, c.body_b);
            for &(p, fn_) in &f.points {
                penalty::apply_pair_force(state, (a, b), p, f.normal, fn_ * f.normal, out, log);
            }
            self.friction(model, state, (c, &g), &f, true, &mut tangential);
            for &(p, ft) in &tangential {
                penalty::apply_pair_force(state, (a, b), p, f.normal, ft, out, log);
            }
            stats.active_points += f.points.len();
        }
        Ok(stats)
    }

    /// Each bottom point's spring as a normal force element (stiffness kp/r, damping kv/r, its
    /// depth capped by `max_recovery_speed`), and its friction spring–damper as two tangent
    /// elements (stiffness w k_t, damping w d_t, w = f(y)/f_n, bounded by μ f(y)).
    #[allow(clippy::too_many_arguments)]
    fn linearised_forces(
        &mut self,
        model: &Model,
        state: &State,
        contacts: &[Contact],
        h: f64,
        _out: &mut [Wrench],
        elements: &mut Vec<ForceElement>,
        _log: &mut ContactImpulses,
    ) -> Result<ModelStats, ContactError> {
        let mut stats = ModelStats::default();
        let mut f = PairForces::default();
        let mut tangential = Vec::new();
        for group in penalty::pairs(contacts) {
            let g = self.pair_gains(model, state, group, h);
            self.pair_forces_at(model, state, (group, &g), (self.cap(model, h), h), &mut f)?;
            if f.points.is_empty() {
                continue;
            }
            let c = &group[0];
            let bodies = (c.body_a, c.body_b);
            let r = f.points.len() as f64;
            tangential.clear();
            if !f.anticipating {
                self.friction(model, state, (c, &g), &f, false, &mut tangential);
            }
            let mu = model.friction(c.body_a, c.body_b);
            for (k, &(p, fn_)) in f.points.iter().enumerate() {
                let normal = elements.len();
                elements.push(ForceElement::normal(
                    bodies,
                    p,
                    f.normal,
                    fn_,
                    g.kp / r,
                    g.kv / r,
                ));
                if let Some(&(_, ft)) = tangential.get(k) {
                    let w = fn_ / f.total;
                    let link = (w * g.kt, w * g.dt);
                    push_friction(elements, bodies, p, f.normal, ft, link, normal, mu);
                }
            }
            if !f.anticipating {
                // The springs are at the bottom of the intersection: a point outside it that
                // would touch during the step is a guard.
                let guards = group.iter().filter(|c| c.gap > 0.0);
                penalty::guard_elements(state, guards, (g.kp, g.kv), elements);
            }
            stats.active_points += f.points.len();
        }
        Ok(stats)
    }
}

impl MultiPoint {
    /// `pair_forces`, or the copy `end_step` kept when it computed them at this state for steps
    /// of this `h` (s) with the same cap (the contacts are the same: the pipeline detects once
    /// at the end of a step and starts the next with those contacts).
    fn pair_forces_at(
        &self,
        model: &Model,
        state: &State,
        (group, g): (&[Contact], &Gains),
        (cap, h): (Option<(f64, f64)>, f64),
        out: &mut PairForces,
    ) -> Result<(), ContactError> {
        let here = Some((state.step, state.time, h));
        let kept_cap = self.cap(model, model.settings.time_step);
        if self.computed.at == here && kept_cap == cap {
            if let Some(f) = self.computed.pairs.get(&pair_key(&group[0])) {
                out.clone_from(f);
                return Ok(());
            }
        }
        self.pair_forces(model, state, (group, g), cap, out)
    }

    /// The integrator the forces are integrated by: the scene's (the hybrid's impulse loop
    /// takes implicit-euler's force elements at the end of each substep as the force step does).
    fn integrator(&self, model: &Model) -> Integrator {
        model.settings.integrator
    }

    /// The depth cap of the springs under `implicit-euler`: (push-out speed, h).
    fn cap(&self, model: &Model, h: f64) -> Option<(f64, f64)> {
        (self.integrator(model) == Integrator::ImplicitEuler)
            .then_some((self.max_recovery_speed, h))
    }
}
