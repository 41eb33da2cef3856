//! Time integration of (q, v) under forward dynamics (ABA), with the quaternions of ball and
//! floating joints kept on the unit sphere by the exponential map rather than renormalization
//! of a step in ℝ⁴.
//!
//! Every joint's position moves through `JointKind::retract` (q ⊕ δ, δ in the velocity's
//! tangent space, length nv). Semi-implicit Euler: v ← v + h q̈(q, v), then q ← q ⊕ h v (for a
//! rotation q ⊗ Exp(h ω)). RK4 is the Runge–Kutta–Munthe-Kaas form of the classical scheme
//! (Munthe-Kaas, "High order Runge–Kutta methods on manifolds", 1999): each stage's position is
//! q₀ ⊕ δ_s with δ_s = h Σ a_sj k_j, its position rate k_s = J_r⁻¹(δ_s) ω_s for rotations (the
//! exact inverse of the exponential's differential, `joint.rs`), the update q₀ ⊕ h Σ b_j k_j.
//! That keeps fourth order on SO(3) and leaves no normalization error to accumulate. Controls
//! (PD actuators, damping) are re-evaluated at every stage; torque inputs are held.
use super::algorithms::{aba_unchecked, Workspace};
use super::control::Controls;
use super::tree::Tree;
use super::MultibodyError;

/// Integrator of a multibody state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MbIntegrator {
    /// Symplectic Euler: velocities first, then positions with the new velocities.
    SemiImplicitEuler,
    /// Classical fourth-order Runge–Kutta (Munthe-Kaas form on the rotation groups).
    Rk4,
}

/// Scratch vectors of a step, sized once per tree.
#[derive(Clone, Debug)]
pub struct StepScratch {
    pub(super) zero_nv: Vec<f64>,
    tau: Vec<f64>,
    q0: Vec<f64>,
    v0: Vec<f64>,
    qs: Vec<f64>,
    vs: Vec<f64>,
    delta: Vec<f64>,
    kq: [Vec<f64>; 4],
    kv: [Vec<f64>; 4],
}

impl StepScratch {
    pub(super) fn new(tree: &Tree) -> StepScratch {
        let (nq, nv) = (tree.nq(), tree.nv());
        let z = || vec![0.0; nv];
        StepScratch {
            zero_nv: z(),
            tau: z(),
            q0: vec![0.0; nq],
            v0: z(),
            qs: vec![0.0; nq],
            vs: z(),
            delta: z(),
            kq: [z(), z(), z(), z()],
            kv: [z(), z(), z(), z()],
        }
    }
}

/// `out = q0 ⊕ δ`, joint by joint.
fn retract(tree: &Tree, q0: &[f64], delta: &[f64], out: &mut [f64]) {
    for (i, l) in tree.links().iter().enumerate() {
        let (qo, vo) = (tree.q_offset(i), tree.v_offset(i));
        let (nq, nv) = (l.joint.nq(), l.joint.nv());
        l.joint
            .retract(&q0[qo..qo + nq], &delta[vo..vo + nv], &mut out[qo..qo + nq]);
    }
}

/// Rates of the tangent coordinates δ at q = q0 ⊕ δ moving with velocity v.
fn tangent_rates(tree: &Tree, q: &[f64], delta: &[f64], v: &[f64], out: &mut [f64]) {
    for (i, l) in tree.links().iter().enumerate() {
        let (qo, vo) = (tree.q_offset(i), tree.v_offset(i));
        let (nq, nv) = (l.joint.nq(), l.joint.nv());
        l.joint.tangent_rate(
            &q[qo..qo + nq],
            &delta[vo..vo + nv],
            &v[vo..vo + nv],
            &mut out[vo..vo + nv],
        );
    }
}

/// One step of length h (s) from (q, v) under `controls`. Errors on a bad state or controls
/// (checked once, at the start) or a joint inertia that is not positive definite.
pub fn step(
    tree: &Tree,
    ws: &mut Workspace,
    q: &mut [f64],
    v: &mut [f64],
    controls: &Controls,
    h: f64,
    integrator: MbIntegrator,
) -> Result<(), MultibodyError> {
    tree.check_state(q, v)?;
    controls.check(tree)?;
    if !(h.is_finite() && h > 0.0) {
        return Err(MultibodyError::NonFiniteState);
    }
    let mut s = std::mem::replace(&mut ws.step, StepScratch::new_empty());
    let r = match integrator {
        MbIntegrator::SemiImplicitEuler => euler(tree, ws, &mut s, q, v, controls, h),
        MbIntegrator::Rk4 => rk4(tree, ws, &mut s, q, v, controls, h),
    };
    ws.step = s;
    r
}

impl StepScratch {
    fn new_empty() -> StepScratch {
        StepScratch {
            zero_nv: Vec::new(),
            tau: Vec::new(),
            q0: Vec::new(),
            v0: Vec::new(),
            qs: Vec::new(),
            vs: Vec::new(),
            delta: Vec::new(),
            kq: Default::default(),
            kv: Default::default(),
        }
    }
}

fn euler(
    tree: &Tree,
    ws: &mut Workspace,
    s: &mut StepScratch,
    q: &mut [f64],
    v: &mut [f64],
    controls: &Controls,
    h: f64,
) -> Result<(), MultibodyError> {
    controls.joint_forces(tree, q, v, &mut s.tau);
    aba_unchecked(tree, ws, q, v, &s.tau, &mut s.kv[0])?;
    for (vi, a) in v.iter_mut().zip(&s.kv[0]) {
        *vi += h * a;
    }
    advance_positions(tree, q, v, h);
    Ok(())
}

/// q ← q ⊕ h v, joint by joint: the position update of semi-implicit Euler, δ = h · (the
/// tangent rate at δ = 0 with velocity v). Also the contact models' on trees
/// (`contact::tree::lcp`).
pub fn advance_positions(tree: &Tree, q: &mut [f64], v: &[f64], h: f64) {
    let (zero, mut rate, mut out) = ([0.0; 6], [0.0; 6], [0.0; 7]);
    for (i, l) in tree.links().iter().enumerate() {
        let (qo, vo, nq, nv) = (tree.q_offset(i), tree.v_offset(i), l.joint.nq(), l.joint.nv());
        let qi = &q[qo..qo + nq];
        l.joint
            .tangent_rate(qi, &zero[..nv], &v[vo..vo + nv], &mut rate[..nv]);
        for r in rate.iter_mut().take(nv) {
            *r *= h;
        }
        l.joint.retract(qi, &rate[..nv], &mut out[..nq]);
        q[qo..qo + nq].copy_from_slice(&out[..nq]);
    }
}

#[allow(clippy::needless_range_loop)] // k indexes eight stage vectors together
fn rk4(
    tree: &Tree,
    ws: &mut Workspace,
    s: &mut StepScratch,
    q: &mut [f64],
    v: &mut [f64],
    controls: &Controls,
    h: f64,
) -> Result<(), MultibodyError> {
    s.q0.copy_from_slice(q);
    s.v0.copy_from_slice(v);
    // Stage j at δ_j = c_j h k_{j−1}, v_j = v0 + c_j h kv_{j−1} (c = 0, ½, ½, 1).
    for stage in 0..4 {
        let c = [0.0, 0.5, 0.5, 1.0][stage];
        if stage == 0 {
            s.delta.fill(0.0);
            s.qs.copy_from_slice(&s.q0);
            s.vs.copy_from_slice(&s.v0);
        } else {
            for k in 0..tree.nv() {
                s.delta[k] = c * h * s.kq[stage - 1][k];
                s.vs[k] = s.v0[k] + c * h * s.kv[stage - 1][k];
            }
            retract(tree, &s.q0, &s.delta, &mut s.qs);
        }
        tangent_rates(tree, &s.qs, &s.delta, &s.vs, &mut s.kq[stage]);
        controls.joint_forces(tree, &s.qs, &s.vs, &mut s.tau);
        aba_unchecked(tree, ws, &s.qs, &s.vs, &s.tau, &mut s.kv[stage])?;
    }
    let w = h / 6.0;
    for k in 0..tree.nv() {
        s.delta[k] = w * (s.kq[0][k] + 2.0 * s.kq[1][k] + 2.0 * s.kq[2][k] + s.kq[3][k]);
        v[k] = s.v0[k] + w * (s.kv[0][k] + 2.0 * s.kv[1][k] + 2.0 * s.kv[2][k] + s.kv[3][k]);
    }
    retract(tree, &s.q0, &s.delta, q);
    Ok(())
}
