//! Newton–Euler equations and the time integrators.
//!
//! For each dynamic body: m v̇ = f + m g and J_w ω̇ = τ − ω × (J_w ω) (gyroscopic term), with
//! J_w = R J Rᵀ; ẋ = v and q̇ = ½ (0, ω) ⊗ q.
use super::{Model, State, Wrench};
use glam::{DQuat, DVec3};

/// Time integrator (scene key `simulation.integrator`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Integrator {
    /// Semi-implicit Euler with the penalty spring–dampers taken at the end of the step,
    /// linearised (`implicit.rs`): stable at any step for any gains. The default. Models that
    /// give no linearisation (velocity-level, impulse-based) step as with semi-implicit Euler.
    #[default]
    ImplicitEuler,
    /// Symplectic (semi-implicit) Euler: velocities first, then positions with the new velocities.
    SemiImplicitEuler,
    /// Classical fourth-order Runge–Kutta; forces (contacts included) are evaluated at each stage.
    Rk4,
}

impl Integrator {
    /// Every integrator, in documentation order.
    pub const ALL: [Integrator; 3] = [
        Integrator::ImplicitEuler,
        Integrator::SemiImplicitEuler,
        Integrator::Rk4,
    ];

    /// The name used in scene files and on the command line.
    pub fn name(&self) -> &'static str {
        match self {
            Integrator::ImplicitEuler => "implicit-euler",
            Integrator::SemiImplicitEuler => "semi-implicit-euler",
            Integrator::Rk4 => "rk4",
        }
    }

    pub fn from_name(s: &str) -> Option<Self> {
        Integrator::ALL.into_iter().find(|i| i.name() == s)
    }

    /// Force evaluations per step.
    pub fn stages(&self) -> usize {
        match self {
            Integrator::ImplicitEuler | Integrator::SemiImplicitEuler => 1,
            Integrator::Rk4 => 4,
        }
    }
}

impl std::fmt::Display for Integrator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Integrator {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        Integrator::from_name(s).ok_or_else(|| format!("unknown integrator `{s}`"))
    }
}

/// Linear and angular acceleration of body `i` under `wrench` plus gravity.
pub fn accelerations(model: &Model, state: &State, i: usize, wrench: &Wrench) -> (DVec3, DVec3) {
    let body = &model.bodies[i];
    if body.fixed {
        return (DVec3::ZERO, DVec3::ZERO);
    }
    let bs = &state.bodies[i];
    let r = glam::DMat3::from_quat(bs.orientation);
    let j_world = r * body.inertia * r.transpose();
    let j_inv_world = r * body.inv_inertia * r.transpose();
    let w = bs.angular_velocity;
    let lin = model.settings.gravity + wrench.force * body.inv_mass;
    let ang = j_inv_world * (wrench.torque - w.cross(j_world * w));
    (lin, ang)
}

/// Rotate `q` by the rotation vector `phi` (rad) given in world axes: exp(φ) ⊗ q, renormalized.
pub fn rotate_by(q: DQuat, phi: DVec3) -> DQuat {
    (DQuat::from_scaled_axis(phi) * q).normalize()
}

/// One semi-implicit Euler step under the given wrenches (forces held over the step). Bodies
/// not yet released (`Body::held` at the step's start) stay where they are.
pub fn semi_implicit_euler(model: &Model, state: &mut State, wrenches: &[Wrench], h: f64) {
    let t = state.time;
    for i in 0..model.bodies.len() {
        if !model.bodies[i].moves(t) {
            continue;
        }
        let (a, alpha) = accelerations(model, state, i, &wrenches[i]);
        let bs = &mut state.bodies[i];
        bs.velocity += h * a;
        bs.angular_velocity += h * alpha;
        bs.position += h * bs.velocity;
        bs.orientation = rotate_by(bs.orientation, h * bs.angular_velocity);
    }
}

/// Time derivative of one body's state: (ẋ, q̇, v̇, ω̇).
#[derive(Clone, Copy, Debug, Default)]
pub struct Derivative {
    pub dx: DVec3,
    pub dq: DQuat,
    pub dv: DVec3,
    pub dw: DVec3,
}

/// Derivatives of every body under the given wrenches (zero for fixed and held bodies).
pub fn derivatives(model: &Model, state: &State, wrenches: &[Wrench], out: &mut Vec<Derivative>) {
    out.clear();
    for (i, bs) in state.bodies.iter().enumerate() {
        if !model.bodies[i].moves(state.time) {
            out.push(Derivative {
                dq: DQuat::from_xyzw(0.0, 0.0, 0.0, 0.0),
                ..Default::default()
            });
            continue;
        }
        let (dv, dw) = accelerations(model, state, i, &wrenches[i]);
        let w = bs.angular_velocity;
        let dq = DQuat::from_xyzw(w.x, w.y, w.z, 0.0) * bs.orientation * 0.5;
        out.push(Derivative {
            dx: bs.velocity,
            dq,
            dv,
            dw,
        });
    }
}

/// `base + h·k` for every dynamic body, quaternions renormalized (an RK4 stage state).
pub fn offset_state(model: &Model, base: &State, k: &[Derivative], h: f64, out: &mut State) {
    out.time = base.time + h;
    out.step = base.step;
    out.bodies.clone_from(&base.bodies);
    for (i, d) in k.iter().enumerate() {
        if !model.bodies[i].moves(base.time) {
            continue;
        }
        let b = &mut out.bodies[i];
        b.position += h * d.dx;
        b.orientation = (b.orientation + d.dq * h).normalize();
        b.velocity += h * d.dv;
        b.angular_velocity += h * d.dw;
    }
}

/// The RK4 update y ← y + h/6 (k1 + 2k2 + 2k3 + k4).
pub fn rk4_combine(model: &Model, state: &mut State, k: [&[Derivative]; 4], h: f64) {
    for i in 0..state.bodies.len() {
        if !model.bodies[i].moves(state.time) {
            continue;
        }
        let [a, b, c, d] = k.map(|k| k[i]);
        let s = h / 6.0;
        let bs = &mut state.bodies[i];
        bs.position += s * (a.dx + 2.0 * b.dx + 2.0 * c.dx + d.dx);
        bs.orientation = (bs.orientation + (a.dq + b.dq * 2.0 + c.dq * 2.0 + d.dq) * s).normalize();
        bs.velocity += s * (a.dv + 2.0 * b.dv + 2.0 * c.dv + d.dv);
        bs.angular_velocity += s * (a.dw + 2.0 * b.dw + 2.0 * c.dw + d.dw);
    }
}
