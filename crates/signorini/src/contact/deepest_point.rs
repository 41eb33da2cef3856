//! The classical deepest-point penalty method: one spring–damper per pair of convex pieces,
//! acting at the pair's deepest contact point, with Drumwright's optional integral term (PID).
//!
//! Normal force (Drumwright 2008, eqs. 1–3 with a single point, r = 1):
//!
//! ```text
//!   f_n = max(k_p d − k_v ḋ_n + k_i I, 0),   I_t = φ I_{t−1} + d_{t−1}   (eq. 2)
//! ```
//!
//! with penetration depth d = −ψ > 0 and ḋ_n = v_rel·n the normal relative velocity (positive when
//! separating), so the force never pulls. Sliding friction is Coulomb's, capped so an explicit step
//! never reverses the slip (`penalty::sliding_friction`).
use super::params::model_params;
use super::penalty::{self, IntegralMemory};
use super::ContactImpulses;
use super::{
    ConfigError, ContactError, ForceModel, ModelBase, ModelSpec, ModelStats, ParamDefault,
    ParamKind, ParamSpec, ParamValue, Range,
};
use crate::collision::Contact;
use crate::dynamics::implicit::ForceElement;
use crate::dynamics::{Integrator, Model, State, Wrench};

pub const NAME: &str = "deepest-point";

/// Default stiction speed of the penalty models' implicit friction (m/s; Drake's default
/// stiction tolerance).
pub const STICTION_SPEED: f64 = 1e-4;

model_params! {
    /// Parameters of `deepest-point`.
    pub struct DeepestPointParams {
        kp: Option<f64> = ParamSpec {
            name: "kp",
            unit: "N/m",
            default: ParamDefault::Derived("kp_per_kg * m_pair"),
            description: "normal stiffness; when not given, kp_per_kg times the pair's reduced mass m_pair = m_a m_b / (m_a + m_b) (the dynamic body's mass against a fixed one)",
            kind: ParamKind::Number(Range::at_least(0.0)),
        },
        kv: Option<f64> = ParamSpec {
            name: "kv",
            unit: "N s/m",
            default: ParamDefault::Derived("kv_per_kg * m_pair"),
            description: "normal damping; when not given, kv_per_kg times the pair's reduced mass",
            kind: ParamKind::Number(Range::at_least(0.0)),
        },
        kp_per_kg: Option<f64> = ParamSpec {
            name: "kp_per_kg",
            unit: "N/(m kg)",
            default: ParamDefault::Derived("omega^2: omega = 2000 rad/s under implicit-euler, the largest stable omega <= 2000 rad/s at the contact under the explicit integrators"),
            description: "stiffness per kg of reduced mass: the squared natural frequency (rad/s)^2 of every pair, whatever its masses (600 gives Drumwright's kp = 6000 N/m for the 10 kg cube)",
            kind: ParamKind::Number(Range::at_least(0.0)),
        },
        kv_per_kg: Option<f64> = ParamSpec {
            name: "kv_per_kg",
            unit: "N s/(m kg)",
            default: ParamDefault::Derived("2 omega (critical damping of the default stiffness)"),
            description: "damping per kg of reduced mass (300 gives Drumwright's kv = 3000 N s/m for the 10 kg cube)",
            kind: ParamKind::Number(Range::at_least(0.0)),
        },
        point: &'static str = ParamSpec {
            name: "point",
            unit: "-",
            default: ParamDefault::Word("weighted"),
            description: "where the spring acts: \"weighted\" (the depth-weighted centre of the pair's penetrating contacts: a face pressed in evenly is pushed at its centre) or \"deepest\" (the deepest contact, the classical method: a box resting on a face rocks)",
            kind: ParamKind::Choice(penalty::SPRING_POINTS),
        },
        max_recovery_speed: f64 = ParamSpec {
            name: "max_recovery_speed",
            unit: "m/s",
            default: ParamDefault::Value(penalty::MAX_RECOVERY_SPEED),
            description: "implicit-euler only: the spring's depth is capped at max_recovery_speed (h + kv/kp), so an overlap is pushed out at about this speed, not launched",
            kind: ParamKind::Number(Range::open(0.0, f64::INFINITY)),
        },
        ki: f64 = ParamSpec {
            name: "ki",
            unit: "N/m",
            default: ParamDefault::Value(0.0),
            description: "integral gain (Drumwright eq. 3): times I, the pair's depths summed over past steps with the forgetting factor (I in m); 0 is the plain PD method",
            kind: ParamKind::Number(Range::at_least(0.0)),
        },
        stiction_speed: f64 = ParamSpec {
            name: "stiction_speed",
            unit: "m/s",
            default: ParamDefault::Value(STICTION_SPEED),
            description: "implicit-euler only: friction is a damper mu f_n / stiction_speed on the slip, bounded by mu f_n; a sticking contact creeps below this speed",
            kind: ParamKind::Number(Range::open(0.0, f64::INFINITY)),
        },
        forgetting: f64 = ParamSpec {
            name: "forgetting",
            unit: "-",
            default: ParamDefault::Value(0.85),
            description: "forgetting factor phi of the integral term, I_t = phi I_(t-1) + d_(t-1), in [0, 1) (Drumwright: 0.8 to 0.9 works)",
            kind: ParamKind::Number(Range::closed_open(0.0, 1.0)),
        },
    }
}

pub const SPEC: ModelSpec = ModelSpec {
    name: NAME,
    summary: "classical penalty: spring-damper (PD, or PID with ki > 0) at the deepest point of each pair of convex pieces, Coulomb sliding friction",
    params: DeepestPointParams::SPECS,
};

/// Deepest-point PD penalty with Coulomb sliding friction.
pub struct DeepestPoint {
    /// As set, in the order of `SPEC.params` (for `parameters`).
    values: Vec<ParamValue>,
    kp: Option<f64>,
    kv: Option<f64>,
    kp_per_kg: Option<f64>,
    kv_per_kg: Option<f64>,
    weighted: bool,
    max_recovery_speed: f64,
    ki: f64,
    forgetting: f64,
    stiction_speed: f64,
    integral: IntegralMemory,
}

impl DeepestPoint {
    /// `values` in the order of `SPEC.params`.
    pub fn new(values: &[ParamValue]) -> Result<Self, ConfigError> {
        let p = DeepestPointParams::from_values(values);
        Ok(DeepestPoint {
            values: values.to_vec(),
            kp: p.kp,
            kv: p.kv,
            kp_per_kg: p.kp_per_kg,
            kv_per_kg: p.kv_per_kg,
            weighted: p.point == "weighted",
            max_recovery_speed: p.max_recovery_speed,
            ki: p.ki,
            forgetting: p.forgetting,
            stiction_speed: p.stiction_speed,
            integral: IntegralMemory::default(),
        })
    }

    /// (kp, kv) of a pair of reduced mass `m_pair` (kg) whose effective mass at the spring's
    /// point along its normal is `m_eff` (kg), for steps of `h` (s) by `integrator`.
    fn gains(&self, m_pair: f64, m_eff: f64, h: f64, integrator: Integrator) -> (f64, f64) {
        let omega = penalty::default_frequency(integrator, h, m_pair / m_eff);
        let kp_per_kg = self.kp_per_kg.unwrap_or(omega * omega);
        let kv_per_kg = self
            .kv_per_kg
            .unwrap_or(2.0 * penalty::DEFAULT_DAMPING_RATIO * omega);
        (
            self.kp.unwrap_or(kp_per_kg * m_pair),
            self.kv.unwrap_or(kv_per_kg * m_pair),
        )
    }

    /// The pair's spring at `state`: (bodies, point, normal, raw force kp d − kv v + ki I (N),
    /// kp, kv). Explicit (`cap_speed` `None`): `None` unless the pair penetrates and the force
    /// pushes. Implicit (`cap_speed` the push-out speed, m/s, for `penalty::capped_depth`): a
    /// pair within the activation distance too, at its negative depth, so that the step's
    /// linearised spring engages if the pair would close the gap during the step (the
    /// implicit solve switches off a spring that would pull).
    fn spring(
        &self,
        model: &Model,
        state: &State,
        group: &[Contact],
        h: f64,
        cap_speed: Option<f64>,
    ) -> Option<Spring> {
        let c = penalty::deepest_contact(group);
        if c.gap >= 0.0 && cap_speed.is_none() {
            return None;
        }
        let (a, b) = (c.body_a, c.body_b);
        let p = if self.weighted {
            penalty::weighted_point(group, model.settings.activation_distance)
        } else {
            c.midpoint()
        };
        let m_eff = penalty::effective_mass(model, state, a, b, p, c.normal);
        let (kp, kv) = self.gains(
            penalty::reduced_mass(model, a, b),
            m_eff,
            h,
            model.settings.integrator,
        );
        let vn = penalty::normal_velocity(state, a, b, p, c.normal);
        let integral = self.ki * self.integral.get(penalty::pair_key(c));
        let depth = match cap_speed {
            Some(v) => penalty::capped_depth(-c.gap, v, h, kp, kv),
            None => -c.gap,
        };
        let force = kp * depth - kv * vn + integral;
        (force > 0.0 || cap_speed.is_some()).then_some(Spring {
            bodies: (a, b),
            point: p,
            normal: c.normal,
            normal_velocity: vn,
            force,
            kp,
            kv,
        })
    }
}

/// One pair's spring–damper (`DeepestPoint::spring`).
struct Spring {
    bodies: (usize, usize),
    point: glam::DVec3,
    normal: glam::DVec3,
    /// Normal relative velocity at `point` (m/s, positive separating).
    normal_velocity: f64,
    /// N, along the normal on B.
    force: f64,
    kp: f64,
    kv: f64,
}

impl ModelBase for DeepestPoint {
    fn spec(&self) -> ModelSpec {
        SPEC
    }

    /// `penalty::activation_distance`.
    fn activation_distance(&self, model: &Model, state: &State) -> f64 {
        penalty::activation_distance(model, state, model.settings.integrator)
    }

    /// Under `implicit-euler` (`penalty::wants_near_features`): the points of a pair that do not
    /// carry its spring are its guards (`penalty::guard_elements`).
    fn near_features(&self, model: &Model) -> bool {
        penalty::wants_near_features(model.settings.integrator)
    }

    fn parameters(&self) -> Vec<(&'static str, ParamValue)> {
        super::named_values(SPEC.params, &self.values)
    }

    fn end_step(&mut self, _model: &Model, _state: &State, contacts: &[Contact]) {
        if self.ki > 0.0 {
            self.integral.advance(self.forgetting, contacts);
        }
    }
}

impl ForceModel for DeepestPoint {
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
            let Some(sp) = self.spring(model, state, group, h, None) else {
                continue;
            };
            stats.active_points += 1;
            let (a, b) = sp.bodies;
            let f = sp.force * sp.normal
                + penalty::sliding_friction(model, state, a, b, sp.point, sp.normal, sp.force, h);
            // f acts on B, −f on A.
            penalty::apply_pair_force(state, (a, b), sp.point, sp.normal, f, out, log);
        }
        Ok(stats)
    }

    /// The same spring–damper as force elements (stiffness kp, damping kv), with regularised
    /// Coulomb friction (`penalty::friction_elements`): one at the point for `point =
    /// "deepest"`, shared among the pair's contacts by their weights for `"weighted"`
    /// (`penalty::spread_spring_elements`: the same net force and spring moment, and a damper
    /// and friction with lever arms).
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
        let cap = Some(self.max_recovery_speed);
        for group in penalty::pairs(contacts) {
            let Some(sp) = self.spring(model, state, group, h, cap) else {
                continue;
            };
            if self.weighted {
                // The spring's depth term and integral term are the pair's; the damper acts on
                // each share's own velocity.
                let push = sp.force + sp.kv * sp.normal_velocity;
                let weights = penalty::contact_weights(group, model.settings.activation_distance);
                stats.active_points += penalty::spread_spring_elements(
                    model,
                    state,
                    (group, &weights),
                    sp.normal,
                    |v| (push - sp.kv * v, sp.kp, sp.kv),
                    self.stiction_speed,
                    elements,
                );
                let guards = penalty::unweighted_gaps(group, &weights);
                penalty::guard_elements(state, guards, (sp.kp, sp.kv), elements);
                continue;
            }
            stats.active_points += 1;
            let normal = elements.len();
            elements.push(ForceElement::normal(
                sp.bodies, sp.point, sp.normal, sp.force, sp.kp, sp.kv,
            ));
            penalty::friction_elements(
                model,
                state,
                sp.bodies,
                sp.point,
                sp.normal,
                (normal, sp.force),
                self.stiction_speed,
                elements,
            );
            let guards = penalty::others_apart(group);
            penalty::guard_elements(state, guards, (sp.kp, sp.kv), elements);
        }
        Ok(stats)
    }
}
