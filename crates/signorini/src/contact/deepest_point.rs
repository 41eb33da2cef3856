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
use super::{
    ConfigError, ContactError, ForceModel, ModelBase, ModelSpec, ModelStats, ParamDefault,
    ParamKind, ParamSpec, ParamValue, Range,
};
use crate::collision::Contact;
use crate::dynamics::{Model, State, Wrench};

pub const NAME: &str = "deepest-point";

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
        kp_per_kg: f64 = ParamSpec {
            name: "kp_per_kg",
            unit: "N/(m kg)",
            default: ParamDefault::Value(600.0),
            description: "stiffness per kg of reduced mass: the squared natural frequency (rad/s)^2 of every pair, whatever its masses (600 gives Drumwright's kp = 6000 N/m for the 10 kg cube)",
            kind: ParamKind::Number(Range::at_least(0.0)),
        },
        kv_per_kg: f64 = ParamSpec {
            name: "kv_per_kg",
            unit: "N s/(m kg)",
            default: ParamDefault::Value(300.0),
            description: "damping per kg of reduced mass (300 gives Drumwright's kv = 3000 N s/m for the 10 kg cube)",
            kind: ParamKind::Number(Range::at_least(0.0)),
        },
        ki: f64 = ParamSpec {
            name: "ki",
            unit: "N/m",
            default: ParamDefault::Value(0.0),
            description: "integral gain (Drumwright eq. 3): times I, the pair's depths summed over past steps with the forgetting factor (I in m); 0 is the plain PD method",
            kind: ParamKind::Number(Range::at_least(0.0)),
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
    kp_per_kg: f64,
    kv_per_kg: f64,
    ki: f64,
    forgetting: f64,
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
            ki: p.ki,
            forgetting: p.forgetting,
            integral: IntegralMemory::default(),
        })
    }

    /// (kp, kv) for a pair of reduced mass `m_pair` (kg).
    fn gains(&self, m_pair: f64) -> (f64, f64) {
        (
            self.kp.unwrap_or(self.kp_per_kg * m_pair),
            self.kv.unwrap_or(self.kv_per_kg * m_pair),
        )
    }
}

impl ModelBase for DeepestPoint {
    fn spec(&self) -> ModelSpec {
        SPEC
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
    ) -> Result<ModelStats, ContactError> {
        let mut stats = ModelStats::default();
        for group in penalty::pairs(contacts) {
            let c = penalty::deepest_contact(group);
            if c.gap >= 0.0 {
                continue;
            }
            let (a, b) = (c.body_a, c.body_b);
            let (kp, kv) = self.gains(penalty::reduced_mass(model, a, b));
            let p = c.midpoint();
            let vn = penalty::normal_velocity(state, a, b, p, c.normal);
            let integral = self.ki * self.integral.get(penalty::pair_key(c));
            let f_n = (kp * (-c.gap) - kv * vn + integral).max(0.0);
            if f_n == 0.0 {
                continue;
            }
            stats.active_points += 1;
            let f =
                f_n * c.normal + penalty::sliding_friction(model, state, a, b, p, c.normal, f_n, h);
            // f acts on B, −f on A.
            penalty::apply_pair_force(state, a, b, p, f, out);
        }
        Ok(stats)
    }
}
