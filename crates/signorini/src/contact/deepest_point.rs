//! The classical deepest-point penalty method: one spring–damper per pair of convex pieces,
//! acting at the pair's deepest contact point.
//!
//! Normal force (Drumwright 2008, eq. 1 with a single point): f_n = max(k_p d − k_v ḋ_n, 0) with
//! penetration depth d = −ψ > 0 and ḋ_n = v_rel·n the normal relative velocity (positive when
//! separating), so the force never pulls. Sliding friction is Coulomb's: f_t = −μ f_n t̂ along the
//! slip direction t̂, but capped at m_t |v_t| / h, the force that would stop the slip in one step
//! (m_t = effective mass of the pair along t̂), so that an explicit step never reverses the slip.
use super::{ContactError, ContactModel, ModelSpec, ModelStats, ParamDefault, ParamSpec, ParamValue};
use crate::collision::Contact;
use crate::dynamics::{Material, Model, State, Wrench};
use glam::DVec3;

pub const NAME: &str = "deepest-point";

pub const SPEC: ModelSpec = ModelSpec {
    name: NAME,
    summary: "classical penalty: spring-damper at the deepest point of each pair of convex pieces, Coulomb sliding friction",
    params: &[
        ParamSpec {
            name: "kp",
            unit: "N/m",
            default: ParamDefault::MassScaled(600.0),
            description: "normal stiffness (default 600 N/(m kg) times the pair's dynamic mass: 6000 N/m for the 10 kg cube, Drumwright's value)",
            min: 0.0,
        },
        ParamSpec {
            name: "kv",
            unit: "N s/m",
            default: ParamDefault::MassScaled(300.0),
            description: "normal damping (default 300 N s/(m kg) times the pair's dynamic mass)",
            min: 0.0,
        },
    ],
};

/// Deepest-point PD penalty with Coulomb sliding friction.
pub struct DeepestPoint {
    kp: ParamValue,
    kv: ParamValue,
}

impl DeepestPoint {
    /// `values` in the order of `SPEC.params`.
    pub fn new(values: &[ParamValue]) -> Self {
        DeepestPoint { kp: values[0], kv: values[1] }
    }
}

/// Mass of a body for gain scaling: 0 for fixed bodies.
fn scaling_mass(model: &Model, body: usize) -> f64 {
    let b = &model.bodies[body];
    if b.fixed {
        0.0
    } else {
        b.mass
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
        vec![("kp", self.kp), ("kv", self.kv)]
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
        for group in contacts.chunk_by(|x, y| (x.body_a, x.piece_a, x.body_b, x.piece_b) == (y.body_a, y.piece_a, y.body_b, y.piece_b)) {
            let c = group.iter().min_by(|x, y| x.gap.total_cmp(&y.gap)).expect("chunks are non-empty");
            if c.gap >= 0.0 {
                continue;
            }
            let (a, b) = (c.body_a, c.body_b);
            let (ma, mb) = (scaling_mass(model, a), scaling_mass(model, b));
            let (kp, kv) = (self.kp.resolve(ma, mb), self.kv.resolve(ma, mb));
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
            let mu = Material::pair_friction(&model.materials[model.bodies[a].material], &model.materials[model.bodies[b].material]);
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
