//! The system dynamics a velocity-level model is posed on, built once a step by the pipeline.
//!
//! Stewart & Trinkle (1996) and Anitescu & Potra (1997) write the step in the velocities ν⁺ at its
//! end: M (ν⁺ − ν) = h f_applied + Gᵀ p with complementarity on the contact impulses p. What the
//! model needs of the system is therefore the step h, the applied wrenches, the free velocity
//! ν_free = ν + h M⁻¹ f_applied, the inverse mass M⁻¹ and the contact Jacobian rows G; the PEG
//! paper's experiments ran "the same time stepper" with two contact models, and this is its shared
//! input. As Drake's contact solvers receive their system dynamics data, the model does not compute
//! them itself.
use super::contact_jacobian_row;
use crate::collision::Contact;
use crate::dynamics::integrate::{accelerations, rotate_by};
use crate::dynamics::jacobian::{InverseMass, JacobianRow};
use crate::dynamics::{Model, State, Wrench};
use crate::geometry::Pose;
use glam::DVec3;
use std::sync::OnceLock;

/// One step's velocity-level problem data, in `Model::dof_offsets` order.
pub struct VelocityProblem<'a> {
    pub model: &'a Model,
    /// The state at the start of the step.
    pub state: &'a State,
    /// Step length (s).
    pub h: f64,
    /// Applied (non-contact) wrenches at `state`, per body (N, N m).
    pub applied: &'a [Wrench],
    /// The generalized offsets, ν_free and M⁻¹, computed on first use (a step without active
    /// contacts needs none of them).
    offsets: OnceLock<Vec<Option<usize>>>,
    free_velocity: OnceLock<Vec<f64>>,
    inverse_mass: OnceLock<InverseMass>,
}

impl<'a> VelocityProblem<'a> {
    /// The problem of a step of `h` (s) from `state` under the applied wrenches `applied`.
    pub fn new(model: &'a Model, state: &'a State, h: f64, applied: &'a [Wrench]) -> Self {
        VelocityProblem {
            model,
            state,
            h,
            applied,
            offsets: OnceLock::new(),
            free_velocity: OnceLock::new(),
            inverse_mass: OnceLock::new(),
        }
    }

    /// ν_free = ν + h M⁻¹ f_applied (m/s, rad/s): the semi-implicit Euler velocity without
    /// contact, in `Model::dof_offsets` order.
    pub fn free_velocity(&self) -> &[f64] {
        self.free_velocity
            .get_or_init(|| velocity_after(self.model, self.state, self.h, self.applied))
    }

    /// Generalized offset of each body's 6 velocities (`None` for fixed bodies).
    pub fn offsets(&self) -> &[Option<usize>] {
        self.offsets.get_or_init(|| self.model.dof_offsets())
    }

    /// M⁻¹ at `state`.
    pub fn inverse_mass(&self) -> &InverseMass {
        self.inverse_mass
            .get_or_init(|| InverseMass::new(self.model, self.state))
    }

    /// The semi-implicit Euler velocity at the end of the step under `wrenches` (applied plus
    /// contact impulses / h): ν + h M⁻¹ f.
    pub fn velocity_after(&self, wrenches: &[Wrench]) -> Vec<f64> {
        velocity_after(self.model, self.state, self.h, wrenches)
    }

    /// The poses one step of the generalized velocities `nu` leads to from `state` (bodies that
    /// do not move stay): the trial configuration q + h ν of a velocity ν* (PEG's gap
    /// prediction).
    pub fn poses_after(&self, nu: &[f64]) -> Vec<Pose> {
        let (state, h) = (self.state, self.h);
        self.model
            .bodies
            .iter()
            .zip(&state.bodies)
            .enumerate()
            .map(|(i, (b, s))| match self.offsets()[i] {
                Some(o) if b.moves(state.time) => {
                    let v = DVec3::from_slice(&nu[o..o + 3]);
                    let w = DVec3::from_slice(&nu[o + 3..o + 6]);
                    Pose::new(s.position + h * v, rotate_by(s.orientation, h * w))
                }
                _ => s.pose(),
            })
            .collect()
    }

    /// The Jacobian row of contact `c`'s relative velocity (point on B minus point on A) along
    /// `d`.
    pub fn row(&self, c: &Contact, d: DVec3) -> JacobianRow {
        contact_jacobian_row(self.model, self.state, self.offsets(), c, d)
    }
}

/// ν + h M⁻¹ f for the wrenches `f` (per body, without contact unless included), in
/// `Model::dof_offsets` order; zero for fixed bodies.
pub fn velocity_after(model: &Model, state: &State, h: f64, wrenches: &[Wrench]) -> Vec<f64> {
    let offsets = model.dof_offsets();
    let mut nu = vec![0.0; model.dof_count()];
    for (i, body) in model.bodies.iter().enumerate() {
        if let (Some(o), false) = (offsets[i], body.fixed) {
            let (a, alpha) = accelerations(model, state, i, &wrenches[i]);
            let bs = &state.bodies[i];
            let v = bs.velocity + h * a;
            let w = bs.angular_velocity + h * alpha;
            nu[o..o + 6].copy_from_slice(&[v.x, v.y, v.z, w.x, w.y, w.z]);
        }
    }
    nu
}
