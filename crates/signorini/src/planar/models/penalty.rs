//! The deepest-point penalty model in the plane: one spring–damper per pair of bodies, explicit
//! in the step (semi-implicit Euler), with a regularized Coulomb friction force.
//!
//! Normal force (Drumwright 2008, eq. 1 with a single point, the PD part; as
//! `contact/deepest_point.rs` in 3D):
//!
//! ```text
//!   f_n = max(k_p d − k_v ḋ_n, 0)
//! ```
//!
//! with d = −min ψ > 0 the pair's deepest penetration, ḋ_n = v_rel·n the normal relative
//! velocity at the spring point (positive when separating) and n the deepest contact's normal.
//! The spring acts at the depth-weighted centre of the pair's penetrating points (3D's
//! `point = "weighted"`: a face pressed in evenly is pushed at its centre instead of rocking).
//! Gains per kg of the pair's reduced mass m_pair (the dynamic body's mass against a fixed one):
//! k_p = ω² m_pair, k_v = 2 ω m_pair (critical damping), with ω = min(2000 rad/s, 0.5/h) by
//! default: semi-implicit Euler on a critically damped spring is stable for ω h < 2(√2 − 1) ≈
//! 0.83, so 0.5/h keeps a margin.
//!
//! Friction: the tangential force that would stop the spring point's relative tangential
//! velocity v_t,free (what the step gives without friction) within the step, at the point's
//! effective mass m_t = 1/(tᵀ W t), clamped to the Coulomb bound:
//! f_t = −clamp(m_t v_t,free / h, −μ f_n, μ f_n). A block on an incline below the friction
//! angle therefore stays put (exactly, for one contact pair per body), and a sliding one feels
//! μ f_n. With several pairs on one body each pair's friction is computed alone (the pairs are
//! not coupled as in the LCP models).
use super::super::body::{PlanarModel, PlanarState};
use super::super::collision::Contact2;
use crate::contact::params::model_params;
use crate::contact::{
    ContactError, ModelSpec, ParamDefault, ParamKind, ParamSpec, ParamValue, Range,
};
use glam::DVec2;

model_params! {
    /// Parameters of planar `deepest-point`.
    pub struct PlanarPenaltyParams {
        kp_per_kg: Option<f64> = ParamSpec {
            name: "kp_per_kg",
            unit: "N/(m kg)",
            default: ParamDefault::Derived("omega^2 with omega = min(2000 rad/s, 0.5 / h)"),
            description: "normal stiffness per kg of the pair's reduced mass: the squared natural frequency (rad/s)^2",
            kind: ParamKind::Number(Range::at_least(0.0)),
        },
        kv_per_kg: Option<f64> = ParamSpec {
            name: "kv_per_kg",
            unit: "N s/(m kg)",
            default: ParamDefault::Derived("2 omega (critical damping of the default stiffness)"),
            description: "normal damping per kg of the pair's reduced mass",
            kind: ParamKind::Number(Range::at_least(0.0)),
        },
    }
}

pub const SPEC: ModelSpec = ModelSpec {
    name: "deepest-point",
    summary: "planar penalty: one spring-damper per pair at the depth-weighted centre of its penetrating points, regularized Coulomb friction, explicit (semi-implicit Euler)",
    params: PlanarPenaltyParams::SPECS,
};

/// The planar deepest-point model.
pub struct PlanarPenalty {
    values: Vec<ParamValue>,
    kp_per_kg: Option<f64>,
    kv_per_kg: Option<f64>,
}

impl PlanarPenalty {
    pub fn new(values: &[ParamValue]) -> Self {
        let p = PlanarPenaltyParams::from_values(values);
        PlanarPenalty {
            values: values.to_vec(),
            kp_per_kg: p.kp_per_kg,
            kv_per_kg: p.kv_per_kg,
        }
    }

    pub fn values(&self) -> &[ParamValue] {
        &self.values
    }

    /// (k_p, k_v) per kg of reduced mass at step `h`.
    pub fn gains(&self, h: f64) -> (f64, f64) {
        let omega = (0.5 / h).min(2000.0);
        (
            self.kp_per_kg.unwrap_or(omega * omega),
            self.kv_per_kg.unwrap_or(2.0 * omega),
        )
    }

    /// The contact forces of the state as generalized forces (added to `forces`, laid out as
    /// the generalized velocity: [fx, fy, τ] per dynamic body). `nu_free` is the velocity the
    /// step gives without contact forces. Contacts must be grouped by pair (as `detect` gives
    /// them).
    pub fn add_forces(
        &self,
        model: &PlanarModel,
        state: &PlanarState,
        contacts: &[Contact2],
        nu_free: &[f64],
        forces: &mut [f64],
    ) -> Result<usize, ContactError> {
        let h = model.settings.time_step;
        let (kp_kg, kv_kg) = self.gains(h);
        let dofs = model.dof_offsets();
        let mut pairs = 0;
        let mut start = 0;
        while start < contacts.len() {
            let (a, b) = (contacts[start].body_a, contacts[start].body_b);
            let end = start
                + contacts[start..]
                    .iter()
                    .take_while(|c| c.body_a == a && c.body_b == b)
                    .count();
            let pen: Vec<&Contact2> = contacts[start..end]
                .iter()
                .filter(|c| c.gap < 0.0)
                .collect();
            start = end;
            if pen.is_empty() {
                continue;
            }
            pairs += 1;
            let deepest = pen
                .iter()
                .min_by(|x, y| x.gap.total_cmp(&y.gap))
                .expect("non-empty");
            let d = -deepest.gap;
            let n = deepest.normal;
            let weight: f64 = pen.iter().map(|c| -c.gap).sum();
            let point = pen
                .iter()
                .map(|c| (-c.gap) * 0.5 * (c.point_a + c.point_b))
                .sum::<DVec2>()
                / weight;
            let body = |i: usize| (&model.bodies[i], &state.bodies[i], dofs[i]);
            let (ba, sa, oa) = body(a);
            let (bb, sb, ob) = body(b);
            let inv = |m: f64| if m > 0.0 { 1.0 / m } else { 0.0 };
            let m_pair = inv(inv(ba.mass) + inv(bb.mass));
            let ra = point - sa.position;
            let rb = point - sb.position;
            let vel = |o: Option<usize>,
                       r: DVec2,
                       s: &super::super::body::PlanarBodyState,
                       free: bool| match o {
                None => DVec2::ZERO,
                Some(o) if free => {
                    DVec2::new(nu_free[o], nu_free[o + 1]) + nu_free[o + 2] * r.perp()
                }
                Some(_) => s.velocity + s.angular_velocity * r.perp(),
            };
            let v_rel = vel(ob, rb, sb, false) - vel(oa, ra, sa, false);
            let fn_ = (kp_kg * m_pair * d - kv_kg * m_pair * v_rel.dot(n)).max(0.0);
            // Friction from the tangential velocity without friction (the normal force's share
            // of it is small and ignored), at the point's effective mass.
            let t = n.perp();
            let vt_free = (vel(ob, rb, sb, true) - vel(oa, ra, sa, true)).dot(t);
            let w_t = |bd: &super::super::body::PlanarBody, r: DVec2| {
                let (im, ii) = bd.inverse_mass();
                im + ii * r.perp_dot(t).powi(2)
            };
            let m_t = inv(w_t(ba, ra) + w_t(bb, rb));
            let mu = model.friction(a, b);
            let ft = -(m_t * vt_free / h).clamp(-mu * fn_, mu * fn_);
            let f = fn_ * n + ft * t; // on B; −f on A
            if !f.is_finite() {
                return Err(ContactError::NonFiniteForce {
                    model: SPEC.name,
                    body_a: ba.name.clone(),
                    body_b: bb.name.clone(),
                    detail: format!(
                        " (penetration {d:e} m, normal speed {:e} m/s)",
                        v_rel.dot(n)
                    ),
                });
            }
            for (o, r, sign) in [(oa, ra, -1.0), (ob, rb, 1.0)] {
                if let Some(o) = o {
                    forces[o] += sign * f.x;
                    forces[o + 1] += sign * f.y;
                    forces[o + 2] += sign * r.perp_dot(f);
                }
            }
        }
        Ok(pairs)
    }
}
