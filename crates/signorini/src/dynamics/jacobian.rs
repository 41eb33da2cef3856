//! Contact Jacobian rows in generalized coordinates (for the constraint-based models).
//!
//! The generalized velocity stacks [v; ω] (world axes) of every dynamic body (`Model::dof_offsets`).
//! For a direction `d` at contact points p_a on A and p_b on B, the row J gives
//! J·ν = (v_b + ω_b × r_b − v_a − ω_a × r_a)·d, i.e. the block of B is [dᵀ, (r_b × d)ᵀ] and the block
//! of A is −[dᵀ, (r_a × d)ᵀ], with r = p − x (DESIGN.md conventions).
use super::{Model, State};
use glam::DVec3;

/// A sparse Jacobian row: at most two 6-blocks.
#[derive(Clone, Debug, PartialEq)]
pub struct JacobianRow {
    /// (offset in the generalized velocity, block) for each dynamic body involved.
    pub blocks: Vec<(usize, [f64; 6])>,
}

impl JacobianRow {
    /// J·ν for a dense generalized velocity.
    pub fn dot(&self, nu: &[f64]) -> f64 {
        self.blocks
            .iter()
            .map(|(o, b)| (0..6).map(|k| b[k] * nu[o + k]).sum::<f64>())
            .sum()
    }
}

/// The Jacobian row of the relative velocity of p_b (on body b) with respect to p_a (on body a)
/// along `dir`.
pub fn contact_row(
    model: &Model,
    state: &State,
    offsets: &[Option<usize>],
    (a, p_a): (usize, DVec3),
    (b, p_b): (usize, DVec3),
    dir: DVec3,
) -> JacobianRow {
    let mut blocks = Vec::with_capacity(2);
    for (body, p, sign) in [(a, p_a, -1.0), (b, p_b, 1.0)] {
        if let (Some(o), false) = (offsets[body], model.bodies[body].fixed) {
            let r = p - state.bodies[body].position;
            let rxd = r.cross(dir);
            blocks.push((
                o,
                [
                    sign * dir.x,
                    sign * dir.y,
                    sign * dir.z,
                    sign * rxd.x,
                    sign * rxd.y,
                    sign * rxd.z,
                ],
            ));
        }
    }
    JacobianRow { blocks }
}

/// The generalized velocity of a state.
pub fn generalized_velocity(model: &Model, state: &State) -> Vec<f64> {
    let mut nu = Vec::with_capacity(model.dof_count());
    for (body, bs) in model.bodies.iter().zip(&state.bodies) {
        if !body.fixed {
            nu.extend(bs.velocity.to_array());
            nu.extend(bs.angular_velocity.to_array());
        }
    }
    nu
}
