//! Hunt–Crossley non-linear visco-elastic contact (Deguet, Joukhadar & Laugier 1998, §2.2), with
//! its damping taken from the coefficient of restitution and the impact speed.
//!
//! For a pair of convex pieces penetrating by x ≥ 0 at rate ẋ (positive while approaching), the
//! normal force is (Deguet §2.2, Hunt & Crossley 1975)
//!
//! ```text
//!   F = max(λ x + μ x ẋ, 0) = max(λ x (1 + c ẋ), 0),    c = μ / λ,
//! ```
//!
//! zero at first touch (no jump) and never pulling. The damping comes from the restitution e of the
//! pair and its impact speed v_i, recorded when the pair starts to touch:
//!
//! - `damping = "hunt-crossley"`: Deguet's eq. 5, μ = (3/2) α λ with α = (1 − e)/v_i, i.e.
//!   c = 1.5 (1 − e) / v_i. Hunt and Crossley derived it for e near 1 (Hertz contact); for this
//!   linear spring the rebound it gives is 0.58 v_i at e = 0.3 (see docs/penalty.md).
//! - `damping = "exact"` (default): c = ζ(e) / v_i with ζ the root of
//!
//!   ```text
//!     ζ (1 + e) = ln((1 + ζ) / (1 − e ζ)),    0 < ζ < 1/e,
//!   ```
//!
//!   the exact condition for a rebound at e v_i: with m ẍ = −λ x (1 + c ẋ) the phase plane is
//!   separable, ẋ dẋ / (1 + c ẋ) = −(λ/m) x dx, so G(v) = v/c − ln(1 + c v)/c² takes the same value
//!   at entry (v_i) and exit (−e v_i), both at x = 0; with ζ = c v_i this is the equation above,
//!   independent of m and λ. The exit speed e v_i < 1/c keeps 1 + c ẋ > 0: the force never has to
//!   be clipped in a single impact.
//!
//! What x measures is selectable (Deguet §3.3):
//!
//! - `penetration = "depth"`: x is the depth of the pair's deepest point, the force acts there
//!   along the narrow phase's normal, λ in N/m;
//! - `penetration = "volume"`: x is the volume of the intersection of the two pieces
//!   (`geometry::overlap`), F = max(λ_V V (1 + c ẋ), 0) with ẋ the normal approach rate at the
//!   intersection's centroid, along the min–max normal (`geometry::penetration`), λ_V in N/m³. For
//!   a flat face of area A pressed in, V = A d and this is the depth model with λ = λ_V A, so the
//!   exact damping law still gives e; where the contact area changes with depth (a corner, a
//!   sphere) it is only approximately e. A pair with a sphere takes the narrow phase's normal and
//!   deepest point.
//!
//! Sliding friction is Coulomb's (`penalty::sliding_friction`).
use super::params::model_params;
use super::penalty::{self, pair_key, PairKey};
use super::ContactImpulses;
use super::{
    ConfigError, ContactError, ForceModel, ModelBase, ModelSpec, ModelStats, ParamDefault,
    ParamKind, ParamSpec, ParamValue, Range,
};
use crate::collision::Contact;
use crate::dynamics::implicit::ForceElement;
use crate::dynamics::piece_pose;
use crate::dynamics::{Integrator, Material, Model, State, Wrench};
use crate::geometry::overlap::overlap_volume;
use glam::DVec3;
use std::collections::BTreeMap;
use std::sync::OnceLock;

pub const NAME: &str = "hunt-crossley";

/// Restitution below this is treated as this: e → 0 needs c → ∞ (a perfectly plastic impact has
/// no finite Hunt–Crossley damping).
pub const MIN_RESTITUTION: f64 = 1e-3;

/// The largest damping λ x c of an element, in units of m_n/h (`resolvable_damping`): a damper
/// of h d/m_n = 100 removes 99 % of a relative velocity in one backward Euler step.
pub const MAX_STEP_DAMPING: f64 = 100.0;

const DAMPING_LAWS: &[&str] = &["exact", "hunt-crossley"];
const PENETRATIONS: &[&str] = &["depth", "volume"];

model_params! {
    /// Parameters of `hunt-crossley`.
    pub struct HuntCrossleyParams {
        stiffness: Option<f64> = ParamSpec {
            name: "stiffness",
            unit: "N/m",
            default: ParamDefault::Derived("stiffness_per_kg * m_pair"),
            description: "lambda, the spring constant; when not given, stiffness_per_kg times the pair's reduced mass",
            kind: ParamKind::Number(Range::at_least(0.0)),
        },
        stiffness_per_kg: Option<f64> = ParamSpec {
            name: "stiffness_per_kg",
            unit: "N/(m kg)",
            default: ParamDefault::Derived("omega^2: omega = 2000 rad/s under implicit-euler, the largest stable omega <= 2000 rad/s at the contact under the explicit integrators"),
            description: "stiffness per kg of reduced mass: the squared natural frequency (rad/s)^2 of every pair (1e6: 1000 rad/s, contacts last about pi/1000 s; explicit steps then need h <= 1e-4 s or adaptive steps)",
            kind: ParamKind::Number(Range::at_least(0.0)),
        },
        restitution: Option<f64> = ParamSpec {
            name: "restitution",
            unit: "-",
            default: ParamDefault::Derived("sqrt(e_a e_b) of the two materials"),
            description: "coefficient of restitution e of every pair, in [0, 1] (values below 1e-3 act as 1e-3)",
            kind: ParamKind::Number(Range::closed(0.0, 1.0)),
        },
        damping: &'static str = ParamSpec {
            name: "damping",
            unit: "-",
            default: ParamDefault::Word("exact"),
            description: "how c = mu/lambda follows from e and the impact speed v_i: \"exact\" (zeta(e)/v_i, rebound at exactly e v_i) or \"hunt-crossley\" (1.5 (1 - e)/v_i, Deguet eq. 5)",
            kind: ParamKind::Choice(DAMPING_LAWS),
        },
        penetration: &'static str = ParamSpec {
            name: "penetration",
            unit: "-",
            default: ParamDefault::Word("depth"),
            description: "what x measures: \"depth\" of the deepest point (lambda in N/m) or \"volume\" of the intersection of the two pieces (Deguet 3.3, lambda in N/m^3)",
            kind: ParamKind::Choice(PENETRATIONS),
        },
        volume_stiffness: Option<f64> = ParamSpec {
            name: "volume_stiffness",
            unit: "N/m^3",
            default: ParamDefault::Derived("stiffness / L^2, L = cube root of the smaller piece's volume"),
            description: "lambda_V of the volume measure: a face of area L^2 pressed in then has the depth stiffness",
            kind: ParamKind::Number(Range::at_least(0.0)),
        },
        point: &'static str = ParamSpec {
            name: "point",
            unit: "-",
            default: ParamDefault::Word("weighted"),
            description: "depth mode: where the force acts, \"weighted\" (the depth-weighted centre of the pair's contacts: a face pressed in evenly is pushed at its centre) or \"deepest\" (the deepest contact, the classical method: a box resting on a face rocks)",
            kind: ParamKind::Choice(penalty::SPRING_POINTS),
        },
        stiction_speed: f64 = ParamSpec {
            name: "stiction_speed",
            unit: "m/s",
            default: ParamDefault::Value(super::deepest_point::STICTION_SPEED),
            description: "implicit-euler only: friction is a damper mu f_n / stiction_speed on the slip, bounded by mu f_n; a sticking contact creeps below this speed",
            kind: ParamKind::Number(Range::open(0.0, f64::INFINITY)),
        },
        max_recovery_speed: f64 = ParamSpec {
            name: "max_recovery_speed",
            unit: "m/s",
            default: ParamDefault::Value(penalty::MAX_RECOVERY_SPEED),
            description: "implicit-euler, depth mode: a pair that is not approaching gets its depth capped at the x_c whose push-out rate k x_c / (k h + lambda x_c c) is this speed (k = lambda (1 + c xdot) and lambda x_c c the element's own stiffness and damping), so an overlap is pushed out at about this speed, not launched; an approaching pair gets the whole spring, which stops it",
            kind: ParamKind::Number(Range::open(0.0, f64::INFINITY)),
        },
        min_impact_speed: f64 = ParamSpec {
            name: "min_impact_speed",
            unit: "m/s",
            default: ParamDefault::Value(1e-2),
            description: "impact speeds below this count as this (a pair that starts touching at rest would otherwise get infinite damping)",
            kind: ParamKind::Number(Range::at_least(0.0)),
        },
    }
}

pub const SPEC: ModelSpec = ModelSpec {
    name: NAME,
    summary: "Hunt-Crossley visco-elastic penalty F = lambda x (1 + c xdot), damping from the restitution and the impact speed (Deguet et al. 1998)",
    params: HuntCrossleyParams::SPECS,
};

/// The damping laws of the `damping` parameter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DampingLaw {
    Exact,
    HuntCrossley,
}

impl DampingLaw {
    /// ζ = c v_i for restitution `e` (clamped to [MIN_RESTITUTION, 1]).
    pub fn zeta(self, e: f64) -> f64 {
        let e = e.clamp(MIN_RESTITUTION, 1.0);
        match self {
            DampingLaw::Exact => exact_zeta(e),
            DampingLaw::HuntCrossley => 1.5 * (1.0 - e),
        }
    }
}

/// The root ζ ∈ (0, 1/e) of ζ(1 + e) = ln((1 + ζ)/(1 − eζ)) (module documentation), by bisection
/// on s = eζ ∈ (0, 1): g(s) = ln(1 + s/e) − ln(1 − s) − s(1 + e)/e is negative just above 0
/// (g(0) = g'(0) = 0, g''(0) = e² − 1 over e² < 0) and tends to +∞ at s = 1, with one sign change.
/// Halving until the bracket stops shrinking reaches the last bit; 0 for e = 1 (no damping).
pub fn exact_zeta(e: f64) -> f64 {
    if e >= 1.0 {
        return 0.0;
    }
    let g = |s: f64| (s / e).ln_1p() - (-s).ln_1p() - s * (1.0 + e) / e;
    let (mut lo, mut hi) = (0.0f64, 1.0f64);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if mid == lo || mid == hi {
            break;
        }
        if g(mid) < 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi) / e
}

/// Hunt–Crossley penalty with per-pair impact speeds.
pub struct HuntCrossley {
    values: Vec<ParamValue>,
    stiffness: Option<f64>,
    stiffness_per_kg: Option<f64>,
    restitution: Option<f64>,
    law: DampingLaw,
    by_volume: bool,
    volume_stiffness: Option<f64>,
    weighted: bool,
    stiction_speed: f64,
    max_recovery_speed: f64,
    min_impact_speed: f64,
    /// Impact speed v_i (m/s) of every pair in contact at the end of the last step.
    impact_speed: BTreeMap<PairKey, f64>,
    /// Approach rate ẋ (m/s, ≥ 0) of every pair that did not touch yet at the end of the last
    /// step but was within the activation distance (`implicit-euler`, depth mode): its impact
    /// speed if it touches during the next step ([`first_impact_speed`](Self::first_impact_speed)).
    approach: BTreeMap<PairKey, f64>,
    /// (e, ζ) of each pair of materials (row: body A's material): the pair's restitution and the
    /// law's [`DampingLaw::zeta`] of it, filled on first use ([`pair_zeta`](Self::pair_zeta)).
    /// The exact law's ζ is a bisection over ~100 logarithms; computed again at every contact
    /// and step it was a quarter of hunt-crossley's step on the 10-box stack.
    zetas: OnceLock<Vec<(f64, f64)>>,
}

impl HuntCrossley {
    /// `values` in the order of `SPEC.params`.
    pub fn new(values: &[ParamValue]) -> Result<Self, ConfigError> {
        let p = HuntCrossleyParams::from_values(values);
        Ok(HuntCrossley {
            values: values.to_vec(),
            stiffness: p.stiffness,
            stiffness_per_kg: p.stiffness_per_kg,
            restitution: p.restitution,
            law: match p.damping {
                "hunt-crossley" => DampingLaw::HuntCrossley,
                _ => DampingLaw::Exact,
            },
            by_volume: p.penetration == "volume",
            volume_stiffness: p.volume_stiffness,
            weighted: p.point == "weighted",
            stiction_speed: p.stiction_speed,
            max_recovery_speed: p.max_recovery_speed,
            min_impact_speed: p.min_impact_speed,
            impact_speed: BTreeMap::new(),
            approach: BTreeMap::new(),
            zetas: OnceLock::new(),
        })
    }

    /// λ (N/m) of contact `c`'s pair of bodies, acting at `point`, for steps of `h` (s).
    fn lambda(&self, model: &Model, state: &State, c: &Contact, point: DVec3, h: f64) -> f64 {
        let (a, b) = (c.body_a, c.body_b);
        let m_pair = penalty::reduced_mass(model, a, b);
        self.stiffness.unwrap_or_else(|| {
            let per_kg = self.stiffness_per_kg.unwrap_or_else(|| {
                let m_eff = penalty::effective_mass(model, state, a, b, point, c.normal);
                let ratio = m_pair / m_eff;
                penalty::default_frequency(model.settings.integrator, h, ratio).powi(2)
            });
            per_kg * m_pair
        })
    }

    /// c = ζ(e)/v_i (s/m) of contact `c`'s pair with penetration measure `m`: v_i its recorded
    /// impact speed (a pair touching for the first time in this step has no record yet: from
    /// its state), at least `min_impact_speed`.
    fn damping_per_speed(&self, model: &Model, state: &State, c: &Contact, m: &Measure) -> f64 {
        let zeta = self.pair_zeta(model, c.body_a, c.body_b);
        let v_i = self
            .impact_speed
            .get(&pair_key(c))
            .copied()
            .unwrap_or_else(|| self.first_impact_speed(model, state, c, m, zeta))
            .max(self.min_impact_speed);
        zeta / v_i
    }

    /// The impact speed of a pair first seen in contact (no record yet), with penetration
    /// measure `m` and ζ `zeta`.
    ///
    /// A pair the last step anticipated (`approach`: within the activation distance under
    /// `implicit-euler`) touched under the undamped spring λ x its element had before touch, not
    /// under the law λ x (1 + c ẋ): its normal phase plane over the step is the undamped one,
    /// v_i² = ẋ² + λ x²/m_n (`impact_speed` with ζ = 0), and its impact speed is at least the
    /// approach rate it had before the step. Inverting the damped law instead attributes the
    /// depth the undamped step left to an impact fast enough to reach it against the damping:
    /// for e → 0 (ζ → 1/e = 1000 at the floor of e) that is v_i ≈ ζ^½ ω x/√2, 30 times the true
    /// speed, so c = ζ/v_i was 30 times too small and the pair was pushed out at up to
    /// 1/c (the rate at which λ x (1 + c ẋ) vanishes) — the boxes of `bin_64` (seed 1) kept
    /// rising and sliding at 1–2 cm/s. Otherwise (explicit integrators, where the law acts from
    /// first touch) the damped phase plane of [`impact_speed`].
    fn first_impact_speed(
        &self,
        model: &Model,
        state: &State,
        c: &Contact,
        m: &Measure,
        zeta: f64,
    ) -> f64 {
        match self.approach.get(&pair_key(c)) {
            Some(&before) => {
                before.max(m.impact_speed(model, state, c, 0.0))
            }
            _ => m.impact_speed(model, state, c, zeta),
        }
    }

    /// The restitution of bodies `a` and `b`: the `restitution` parameter, else their
    /// materials'.
    fn pair_restitution(&self, model: &Model, a: usize, b: usize) -> f64 {
        self.material_restitution(model, model.bodies[a].material, model.bodies[b].material)
    }

    /// The restitution of a pair of materials (indices into `model.materials`).
    fn material_restitution(&self, model: &Model, a: usize, b: usize) -> f64 {
        self.restitution
            .unwrap_or_else(|| Material::pair_restitution(&model.materials[a], &model.materials[b]))
    }

    /// ζ of bodies `a` and `b` (`law.zeta` of their restitution e), from the table of material
    /// pairs built on first use when the table's entry was made for this e (bit for bit the
    /// number `law.zeta(e)` gives), else computed.
    fn pair_zeta(&self, model: &Model, a: usize, b: usize) -> f64 {
        let n = model.materials.len();
        let e = self.pair_restitution(model, a, b);
        let table = self.zetas.get_or_init(|| {
            (0..n * n)
                .map(|i| {
                    let e = self.material_restitution(model, i / n, i % n);
                    (e, self.law.zeta(e))
                })
                .collect()
        });
        let (ma, mb) = (model.bodies[a].material, model.bodies[b].material);
        match table.get(ma * n + mb) {
            Some(&(made_for, zeta)) if made_for.to_bits() == e.to_bits() => zeta,
            _ => self.law.zeta(e),
        }
    }
}

/// What the force law needs of a penetrating pair.
struct Measure {
    /// x: depth (m) or volume (m³).
    x: f64,
    /// λ for x: N/m or N/m³.
    stiffness: f64,
    /// Normal approach rate ẋ of the point (m/s, positive approaching).
    rate: f64,
    normal: DVec3,
    point: DVec3,
    /// Depth of the deepest point (m) and the stiffness against it (N/m: λ, or the secant
    /// λ_V V/depth), for the impact speed.
    depth: f64,
    secant: f64,
}

impl Measure {
    /// The pair's impact speed from its state at first sight (`impact_speed`), with the secant
    /// stiffness λ_V V/depth in volume mode (exact for a flat face pressed in, where V ∝ depth).
    fn impact_speed(&self, model: &Model, state: &State, c: &Contact, zeta: f64) -> f64 {
        let lambda = self.secant;
        let probe = Contact {
            point_a: self.point,
            point_b: self.point,
            normal: self.normal,
            gap: -self.depth,
            ..*c
        };
        impact_speed(model, state, &probe, self.rate, lambda, zeta)
    }
}

impl HuntCrossley {
    /// The pair's penetration measure for steps of `h` (s), or `None` when it does not
    /// penetrate (`anticipate`, depth mode: also when it is within the activation distance, with
    /// x = −gap ≤ 0).
    fn measure(
        &self,
        model: &Model,
        state: &State,
        group: &[Contact],
        h: f64,
        anticipate: bool,
    ) -> Option<Measure> {
        let (c, rate) = deepest(state, group);
        let anticipating = anticipate && !self.by_volume;
        if c.gap >= 0.0 && !anticipating {
            return None;
        }
        let (a, b) = (c.body_a, c.body_b);
        if !self.by_volume {
            let (point, rate) = if self.weighted {
                let p = penalty::weighted_point(group, model.settings.activation_distance);
                (p, -penalty::normal_velocity(state, a, b, p, c.normal))
            } else {
                (c.midpoint(), rate)
            };
            let lambda = self.lambda(model, state, &c, point, h);
            return Some(Measure {
                x: -c.gap,
                stiffness: lambda,
                rate,
                normal: c.normal,
                point,
                depth: -c.gap,
                secant: lambda,
            });
        }
        let lambda = self.lambda(model, state, &c, c.midpoint(), h);
        let piece = |body: usize, piece: usize| &model.bodies[body].pieces[piece];
        let (pa, pb) = (piece(a, c.piece_a), piece(b, c.piece_b));
        let volume = overlap_volume(
            &pa.shape,
            &piece_pose(model, state, a, c.piece_a),
            &pb.shape,
            &piece_pose(model, state, b, c.piece_b),
        );
        if !(volume > 0.0) {
            return None;
        }
        let stiffness = self.volume_stiffness.unwrap_or_else(|| {
            let size = [&pa.shape, &pb.shape]
                .iter()
                .filter_map(|s| s.mass_properties(1.0).map(|m| m.mass))
                .fold(f64::INFINITY, f64::min);
            lambda / size.cbrt().powi(2)
        });
        let (normal, point) = match penalty::penetration(model, state, &c) {
            Some((inter, normal, _)) => (normal, inter.centroid),
            None => (c.normal, c.midpoint()),
        };
        let rate = -penalty::normal_velocity(state, a, b, point, normal);
        Some(Measure {
            x: volume,
            stiffness,
            rate,
            normal,
            point,
            depth: -c.gap,
            secant: stiffness * volume / -c.gap,
        })
    }
}

/// c = ζ/v_i bounded so that the element's damping λ x c is at most
/// [`MAX_STEP_DAMPING`] m_n/h (m_n the pair's effective mass at the point along the normal, h the
/// step; `implicit-euler`).
///
/// Backward Euler on a damper d alone leaves u⁺ = u⁰/(1 + h d/m_n) of a relative velocity
/// after one step: at h d/m_n = 100 the step removes 99 % of it, and a larger d changes the
/// step's outcome by less than 1 % of the velocity. The exact law asks for much more where e is
/// small and the pair first touched slowly: ζ(e) → 1/e (1000 at the floor of e, the default
/// restitution 0 of a material), and v_i near `min_impact_speed` for a pair that settled into
/// contact, so c reached 1e5 s/m and λ x c 1e8–2.5e9 N s/m (h d/m_n up to 1e5) in the settling
/// pile of `bin_64`; with it the stiffness λ (1 + c ẋ) was up to 1300 λ. The implicit step's
/// active set multiplies whatever it leaves inconsistent by D = k h + d: seed 11's box_30,
/// squeezed between box_47 (c = 1660 s/m, k = 353 λ) and a wall, was shot out at 16 m/s in one
/// step. Bounded, the law keeps its form λ x (1 + c ẋ) with a smaller c (a larger effective
/// impact speed) only where h d/m_n would exceed 100. An impact at v_i is at most v_i h deep
/// after its first step, where h d/m_n ≤ ρ ζ (h ω)² (ρ = m_pair/m_n, 1 for a face, up to 4–8 at
/// a box's corner; h ω = 4 at the defaults and h = 2 ms): 49 ρ for e = 0.3, so the bound acts
/// on the law's plastic end (small e, slow first touches) and on corners only. The bounce
/// experiment runs RK4, which this does not touch.
fn resolvable_damping(
    model: &Model,
    state: &State,
    c: &Contact,
    m: &Measure,
    cd: f64,
    h: f64,
) -> f64 {
    if m.x <= 0.0 || h <= 0.0 {
        return cd;
    }
    let m_n = penalty::effective_mass(model, state, c.body_a, c.body_b, m.point, m.normal);
    let d_max = MAX_STEP_DAMPING * m_n / h;
    cd.min(d_max / (m.stiffness * m.x))
}

/// The pair's deepest contact and its approach speed ẋ = −v_rel·n at the contact's midpoint.
fn deepest(state: &State, group: &[Contact]) -> (Contact, f64) {
    let c = *penalty::deepest_contact(group);
    let rate = -penalty::normal_velocity(state, c.body_a, c.body_b, c.midpoint(), c.normal);
    (c, rate)
}

/// Impact speed of a pair first seen at depth x > 0 with approach rate ẋ (it touched somewhere
/// within the last step). Along the normal, with m_n the pair's effective mass there and
/// c = ζ/v_i, the phase plane of m_n ẍ = −λx(1 + cẋ) gives (module documentation)
///
/// ```text
///   G(ẋ) − G(v_i) = −(λ/m_n) x²/2,    G(v) = v/c − ln(1 + cv)/c²,
/// ```
///
/// an equation for v_i alone: with u = ẋ/v_i, f(v_i) = (v_i/ζ)² (g(u) − g(1)) + (λ/m_n) x²/2 = 0,
/// g(u) = ζu − ln(1 + ζu). Without damping (ζ = 0) v_i = √(ẋ² + λx²/m_n), the smallest possible
/// value; f falls from positive there to −∞, so bisection between it and a doubled bracket finds
/// v_i. (Taking ẋ itself would under-estimate v_i by what the first step in contact already
/// removed: damping is ζ times the spring force at first touch, ζ = 3.1 for e = 0.3.)
fn impact_speed(
    model: &Model,
    state: &State,
    c: &Contact,
    rate: f64,
    lambda: f64,
    zeta: f64,
) -> f64 {
    let m_n = penalty::effective_mass(model, state, c.body_a, c.body_b, c.midpoint(), c.normal);
    let x = -c.gap;
    if m_n <= 0.0 {
        return rate.max(0.0);
    }
    let spring = 0.5 * lambda * x * x / m_n;
    let undamped = (rate * rate + 2.0 * spring).sqrt();
    if zeta == 0.0 || undamped == 0.0 {
        return undamped;
    }
    let g = |u: f64| zeta * u - (zeta * u).ln_1p();
    let f = |v: f64| {
        let u = rate / v;
        if 1.0 + zeta * u <= 0.0 {
            return f64::INFINITY; // 1 + cẋ ≤ 0 cannot be reached from v: v is too small
        }
        (v / zeta).powi(2) * (g(u) - g(1.0)) + spring
    };
    let (mut lo, mut hi) = (undamped, 2.0 * undamped);
    while f(hi) > 0.0 && hi < 1e6 * undamped {
        (lo, hi) = (hi, 2.0 * hi);
    }
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if mid == lo || mid == hi {
            break;
        }
        if f(mid) > 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

impl ModelBase for HuntCrossley {
    fn spec(&self) -> ModelSpec {
        SPEC
    }

    /// `penalty::activation_distance`.
    fn activation_distance(&self, model: &Model, state: &State) -> f64 {
        penalty::activation_distance(model, state, model.settings.integrator)
    }

    /// Under `implicit-euler` (`penalty::wants_near_features`): the points of a pair that do not
    /// carry its spring are its guards (`penalty::guard_elements`, the undamped λ of a pair that
    /// does not touch yet).
    fn near_features(&self, model: &Model) -> bool {
        penalty::wants_near_features(model.settings.integrator)
    }

    fn parameters(&self) -> Vec<(&'static str, ParamValue)> {
        super::named_values(SPEC.params, &self.values)
    }

    /// Keep each touching pair's impact speed (recorded at first touch) and each anticipated
    /// pair's approach rate (`approach`).
    fn end_step(&mut self, model: &Model, state: &State, contacts: &[Contact]) {
        let mut next = BTreeMap::new();
        let mut approach = BTreeMap::new();
        let anticipate = model.settings.integrator == Integrator::ImplicitEuler && !self.by_volume;
        for group in penalty::pairs(contacts) {
            let h = model.settings.time_step;
            let c = &group[0];
            let key = pair_key(c);
            let recorded = self.impact_speed.get(&key).copied();
            // A point-measured pair in contact with its impact speed recorded keeps it: its
            // measure (whether it touches: its deepest gap < 0) is not needed beyond that.
            let touching = match (recorded, self.by_volume) {
                (Some(v), false) => (deepest(state, group).0.gap < 0.0).then_some(Ok(v)),
                _ => self.measure(model, state, group, h, false).map(Err),
            };
            let Some(touching) = touching else {
                if anticipate {
                    approach.insert(key, deepest(state, group).1.max(0.0));
                }
                continue;
            };
            let v_i = match (touching, recorded) {
                (Ok(v), _) | (Err(_), Some(v)) => v,
                (Err(m), None) => {
                    let zeta = self.pair_zeta(model, c.body_a, c.body_b);
                    self.first_impact_speed(model, state, c, &m, zeta)
                }
            };
            next.insert(key, v_i);
        }
        self.impact_speed = next;
        self.approach = approach;
    }
}

impl ForceModel for HuntCrossley {
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
        for group in penalty::pairs(contacts) {
            let Some(m) = self.measure(model, state, group, h, false) else {
                continue;
            };
            let (c, a, b) = (&group[0], group[0].body_a, group[0].body_b);
            let damping = self.damping_per_speed(model, state, c, &m);
            let f_n = (m.stiffness * m.x * (1.0 + damping * m.rate)).max(0.0);
            if !f_n.is_finite() {
                return Err(ContactError::NonFiniteForce {
                    model: NAME,
                    body_a: model.bodies[a].name.clone(),
                    body_b: model.bodies[b].name.clone(),
                    detail: format!(" (penetration {}, rate {} m/s)", m.x, m.rate),
                });
            }
            if f_n == 0.0 {
                continue;
            }
            stats.active_points += 1;
            let f = f_n * m.normal
                + penalty::sliding_friction(model, state, a, b, m.point, m.normal, f_n, h);
            penalty::apply_pair_force(state, (a, b), m.point, m.normal, f, out, log);
        }
        Ok(stats)
    }

    /// F = λ x (1 + c ẋ) as a force element: stiffness ∂F/∂x = λ (1 + c ẋ) (depth mode; the
    /// secant λ_V V/depth for λ in volume mode), damping ∂F/∂ẋ = λ x c; friction as
    /// `penalty::friction_elements`. A pair within the activation distance that does not
    /// penetrate yet (depth mode) gets the spring λ x at its negative x, undamped (the damping
    /// λ x c would be negative there), which the implicit step engages if the pair would touch
    /// during the step: F is still zero at first touch.
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
        for group in penalty::pairs(contacts) {
            let Some(m) = self.measure(model, state, group, h, true) else {
                continue;
            };
            let (c, a, b) = (&group[0], group[0].body_a, group[0].body_b);
            let lambda = m.secant;
            // (x, c): the measure (depth capped for the push-out speed) and c = ζ/v_i; before
            // touch, the undamped spring λ x at x ≤ 0.
            let (x, cd) = if m.depth <= 0.0 {
                (m.x, 0.0)
            } else {
                let cd = self.damping_per_speed(model, state, c, &m);
                let cd = resolvable_damping(model, state, c, &m, cd, h);
                // No cap while the pair approaches (ẋ > 0): the cap bounds how fast an overlap
                // is pushed out, and a landing pair needs the whole spring to stop it.
                let x = if self.by_volume || m.rate > 0.0 {
                    m.x
                } else {
                    // Stiffness λ (1 + c ẋ), damping λ x c: the element's at the capped x.
                    let k = (lambda * (1.0 + cd * m.rate)).max(0.0);
                    let per_depth = m.stiffness * cd;
                    penalty::capped_depth_damped_by_depth(
                        m.x,
                        self.max_recovery_speed,
                        h,
                        k,
                        per_depth,
                    )
                };
                (x, cd)
            };
            // F, ∂F/∂(depth), ∂F/∂ẋ at approach rate ẋ = −v.
            let law = |v: f64| {
                let rate = -v;
                (
                    m.stiffness * x * (1.0 + cd * rate),
                    (lambda * (1.0 + cd * rate)).max(0.0),
                    m.stiffness * x.max(0.0) * cd,
                )
            };
            let (force, stiffness, damping) = law(-m.rate);
            if !force.is_finite() {
                return Err(ContactError::NonFiniteForce {
                    model: NAME,
                    body_a: model.bodies[a].name.clone(),
                    body_b: model.bodies[b].name.clone(),
                    detail: format!(" (penetration {}, rate {} m/s)", m.x, m.rate),
                });
            }
            if self.weighted && !self.by_volume {
                let weights = penalty::contact_weights(group, model.settings.activation_distance);
                stats.active_points += penalty::spread_spring_elements(
                    model,
                    state,
                    (group, &weights),
                    m.normal,
                    law,
                    self.stiction_speed,
                    elements,
                );
                let guards = penalty::unweighted_gaps(group, &weights);
                penalty::guard_elements(state, guards, (lambda, 0.0), elements);
                continue;
            }
            stats.active_points += usize::from(force > 0.0);
            let normal = elements.len();
            elements.push(ForceElement::normal(
                (a, b),
                m.point,
                m.normal,
                force,
                stiffness,
                damping,
            ));
            penalty::friction_elements(
                model,
                state,
                (a, b),
                m.point,
                m.normal,
                (normal, force),
                self.stiction_speed,
                elements,
            );
            let guards = penalty::others_apart(group).filter(|_| !self.by_volume);
            penalty::guard_elements(state, guards, (lambda, 0.0), elements);
        }
        Ok(stats)
    }
}
