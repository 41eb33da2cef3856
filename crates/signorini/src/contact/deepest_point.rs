//! The classical deepest-point penalty method: one spring–damper per pair of convex pieces,
//! acting at the pair's deepest contact point.
//!
//! Normal force (Drumwright 2008, eq. 1 with a single point): f_n = max(k_p d − k_v ḋ_n, 0) with
//! penetration depth d = −ψ > 0 and ḋ_n = v_rel·n the normal relative velocity (positive when
//! separating), so the force never pulls. Sliding friction is Coulomb's: f_t = −μ f_n t̂ along the
//! slip direction t̂, but capped at m_t |v_t| / h, the force that would stop the slip in one step
//! (m_t = effective mass of the pair along t̂), so that an explicit step never reverses the slip.
use super::{
    ContactError, ContactModel, ModelSpec, ModelStats, ParamDefault, ParamKind, ParamSpec,
    ParamValue,
};
use crate::collision::Contact;
use crate::dynamics::{Model, State, Wrench};
use glam::DVec3;

pub const NAME: &str = "deepest-point";

pub const SPEC: ModelSpec = ModelSpec {
    name: NAME,
    summary: "classical penalty: spring-damper at the deepest point of each pair of convex pieces, Coulomb sliding friction",
    params: &[
        ParamSpec {
            name: "kp",
            unit: "N/m",
            default: ParamDefault::Derived("kp_per_kg * m_pair"),
            description: "normal stiffness; when not given, kp_per_kg times the pair's reduced mass m_pair = m_a m_b / (m_a + m_b) (the dynamic body's mass against a fixed one)",
            kind: ParamKind::Number { min: 0.0 },
        },
        ParamSpec {
            name: "kv",
            unit: "N s/m",
            default: ParamDefault::Derived("kv_per_kg * m_pair"),
            description: "normal damping; when not given, kv_per_kg times the pair's reduced mass",
            kind: ParamKind::Number { min: 0.0 },
        },
        ParamSpec {
            name: "kp_per_kg",
            unit: "N/(m kg)",
            default: ParamDefault::Value(600.0),
            description: "stiffness per kg of reduced mass: the squared natural frequency (rad/s)^2 of every pair, whatever its masses (600 gives Drumwright's kp = 6000 N/m for the 10 kg cube)",
            kind: ParamKind::Number { min: 0.0 },
        },
        ParamSpec {
            name: "kv_per_kg",
            unit: "N s/(m kg)",
            default: ParamDefault::Value(300.0),
            description: "damping per kg of reduced mass (300 gives Drumwright's kv = 3000 N s/m for the 10 kg cube)",
            kind: ParamKind::Number { min: 0.0 },
        },
    ],
};

/// Deepest-point PD penalty with Coulomb sliding friction.
pub struct DeepestPoint {
    /// As set, in the order of `SPEC.params` (for `parameters`).
    values: Vec<ParamValue>,
    kp: Option<f64>,
    kv: Option<f64>,
    kp_per_kg: f64,
    kv_per_kg: f64,
}

impl DeepestPoint {
    /// `values` in the order of `SPEC.params`.
    pub fn new(values: &[ParamValue]) -> Self {
        let per_kg = |v: &ParamValue| v.value().expect("per-kg gains have values");
        DeepestPoint {
            values: values.to_vec(),
            kp: values[0].value(),
            kv: values[1].value(),
            kp_per_kg: per_kg(&values[2]),
            kv_per_kg: per_kg(&values[3]),
        }
    }

    /// (kp, kv) for a pair of reduced mass `m_pair` (kg).
    fn gains(&self, m_pair: f64) -> (f64, f64) {
        (
            self.kp.unwrap_or(self.kp_per_kg * m_pair),
            self.kv.unwrap_or(self.kv_per_kg * m_pair),
        )
    }
}

/// Reduced mass of a pair (kg): m_a m_b / (m_a + m_b), or the dynamic body's mass when the other
/// is fixed.
fn reduced_mass(model: &Model, a: usize, b: usize) -> f64 {
    let inv = model.bodies[a].inv_mass + model.bodies[b].inv_mass;
    if inv > 0.0 {
        1.0 / inv
    } else {
        0.0
    }
}

/// 1 / (tᵀ W t): the effective mass of the pair at point `p` along unit direction `t`.
fn effective_mass(model: &Model, state: &State, a: usize, b: usize, p: DVec3, t: DVec3) -> f64 {
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

impl ContactModel for DeepestPoint {
    fn spec(&self) -> ModelSpec {
        SPEC
    }

    fn parameters(&self) -> Vec<(&'static str, ParamValue)> {
        SPEC.params
            .iter()
            .map(|p| p.name)
            .zip(self.values.iter().cloned())
            .collect()
    }

    fn contact_forces(
        &mut self,
        model: &Model,
        state: &State,
        contacts: &[Contact],
        h: f64,
        out: &mut [Wrench],
    ) -> Result<ModelStats, ContactError> {
        let mut stats = ModelStats::default();
        // The narrow phase lists the contacts of each pair of pieces together.
        for group in contacts.chunk_by(|x, y| {
            (x.body_a, x.piece_a, x.body_b, x.piece_b) == (y.body_a, y.piece_a, y.body_b, y.piece_b)
        }) {
            let c = group
                .iter()
                .min_by(|x, y| x.gap.total_cmp(&y.gap))
                .expect("chunks are non-empty");
            if c.gap >= 0.0 {
                continue;
            }
            let (a, b) = (c.body_a, c.body_b);
            let (kp, kv) = self.gains(reduced_mass(model, a, b));
            let p = c.midpoint();
            let v_rel = state.bodies[b].point_velocity(p) - state.bodies[a].point_velocity(p);
            let vn = v_rel.dot(c.normal);
            let f_n = (kp * (-c.gap) - kv * vn).max(0.0);
            if f_n == 0.0 {
                continue;
            }
            stats.active_points += 1;
            let mut f = f_n * c.normal;
            let v_t = v_rel - vn * c.normal;
            let slip = v_t.length();
            let mu = model.friction(a, b);
            if slip > 0.0 && mu > 0.0 {
                let t = v_t / slip;
                let stop = effective_mass(model, state, a, b, p, t) * slip / h;
                f -= (mu * f_n).min(stop) * t;
            }
            // f acts on B, −f on A.
            out[b].add_at(f, p, state.bodies[b].position);
            out[a].add_at(-f, p, state.bodies[a].position);
        }
        Ok(stats)
    }
}
