//! Joint models (RBDA chapter 4, Table 4.1): each joint's position and velocity dimensions, its
//! transform X_J(q), its motion subspace S, and how its position moves along a velocity.
//!
//! A joint connects a *joint frame* fixed in the parent link to the child link's frame. At
//! q = neutral the two frames coincide. Layout of q and v per joint (v always in the child
//! link's coordinates, angular before linear as spatial vectors are):
//!
//! | kind      | nq | nv | q                                   | v                                  |
//! |-----------|----|----|-------------------------------------|------------------------------------|
//! | revolute  | 1  | 1  | angle about `axis` (rad)            | rate (rad/s)                       |
//! | prismatic | 1  | 1  | displacement along `axis` (m)       | rate (m/s)                         |
//! | fixed     | 0  | 0  | —                                   | —                                  |
//! | ball      | 4  | 3  | unit quaternion [x, y, z, w]        | ω in child axes (rad/s)            |
//! | floating  | 7  | 6  | position p (m) in the joint frame, then quaternion [x, y, z, w] | [ω; v] in child axes: ω (rad/s), v the velocity of the child origin (m/s) |
//!
//! The motion subspace S is constant in child coordinates for every kind (revolute `[a; 0]`,
//! prismatic `[0; a]`, ball `[1; 0]`, floating the 6 × 6 identity), so the joint's bias
//! acceleration c_J = Ṡ q̇ is zero (RBDA §4.4).
use super::spatial::{Motion, Transform};
use glam::{DMat3, DQuat, DVec3};

/// The kind of a joint, with its axis (a unit vector in the joint frame) where it has one.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum JointKind {
    /// Rotation about `axis` by q (rad).
    Revolute { axis: DVec3 },
    /// Translation along `axis` by q (m).
    Prismatic { axis: DVec3 },
    /// The child is welded to the joint frame.
    Fixed,
    /// Spherical joint: any rotation, q a unit quaternion.
    Ball,
    /// Free 6-DOF motion relative to the joint frame (a floating base when the parent is the
    /// world).
    Floating,
}

impl JointKind {
    /// Number of position coordinates.
    pub fn nq(&self) -> usize {
        match self {
            JointKind::Revolute { .. } | JointKind::Prismatic { .. } => 1,
            JointKind::Fixed => 0,
            JointKind::Ball => 4,
            JointKind::Floating => 7,
        }
    }

    /// Number of velocity coordinates (degrees of freedom).
    pub fn nv(&self) -> usize {
        match self {
            JointKind::Revolute { .. } | JointKind::Prismatic { .. } => 1,
            JointKind::Fixed => 0,
            JointKind::Ball => 3,
            JointKind::Floating => 6,
        }
    }

    pub fn name(&self) -> &'static str {
        match self {
            JointKind::Revolute { .. } => "revolute",
            JointKind::Prismatic { .. } => "prismatic",
            JointKind::Fixed => "fixed",
            JointKind::Ball => "ball",
            JointKind::Floating => "floating",
        }
    }

    /// The neutral position: zeros, identity quaternions.
    pub fn neutral(&self, q: &mut [f64]) {
        q.fill(0.0);
        match self {
            JointKind::Ball => q[3] = 1.0,
            JointKind::Floating => q[6] = 1.0,
            _ => {}
        }
    }

    /// Column k of the motion subspace S (child coordinates).
    pub fn subspace(&self, k: usize) -> Motion {
        let unit = |i: usize| DVec3::AXES[i];
        match self {
            JointKind::Revolute { axis } => Motion::new(*axis, DVec3::ZERO),
            JointKind::Prismatic { axis } => Motion::new(DVec3::ZERO, *axis),
            JointKind::Fixed => unreachable!("a fixed joint has no motion subspace"),
            JointKind::Ball => Motion::new(unit(k), DVec3::ZERO),
            JointKind::Floating if k < 3 => Motion::new(unit(k), DVec3::ZERO),
            JointKind::Floating => Motion::new(DVec3::ZERO, unit(k - 3)),
        }
    }

    /// The child frame in joint-frame coordinates at position q: (rotation whose columns are the
    /// child's axes, child origin). The quaternions are normalized here, so a q that drifted
    /// off the unit sphere still gives a rotation.
    pub fn frame(&self, q: &[f64]) -> (DMat3, DVec3) {
        match self {
            JointKind::Revolute { axis } => (DMat3::from_axis_angle(*axis, q[0]), DVec3::ZERO),
            JointKind::Prismatic { axis } => (DMat3::IDENTITY, *axis * q[0]),
            JointKind::Fixed => (DMat3::IDENTITY, DVec3::ZERO),
            JointKind::Ball => (DMat3::from_quat(quat(q).normalize()), DVec3::ZERO),
            JointKind::Floating => (
                DMat3::from_quat(quat(&q[3..]).normalize()),
                DVec3::new(q[0], q[1], q[2]),
            ),
        }
    }

    /// The joint transform X_J(q): joint-frame coordinates to child coordinates (RBDA Table 4.1).
    pub fn transform(&self, q: &[f64]) -> Transform {
        let (rot, pos) = self.frame(q);
        Transform::from_frame(rot, pos)
    }

    /// `q0 ⊕ δ` for a tangent vector δ (length nv): q0 + δ for revolute and prismatic joints,
    /// q0 ⊗ Exp(δ) for a ball (δ a rotation vector in child axes), and for a floating joint
    /// position p0 + δ[3..6] (joint-frame axes) with orientation q0 ⊗ Exp(δ[0..3]). Quaternions
    /// are renormalized.
    pub fn retract(&self, q0: &[f64], delta: &[f64], out: &mut [f64]) {
        match self {
            JointKind::Revolute { .. } | JointKind::Prismatic { .. } => out[0] = q0[0] + delta[0],
            JointKind::Fixed => {}
            JointKind::Ball => {
                let r = (quat(q0) * exp3(vec3(delta))).normalize();
                write_quat(r, out);
            }
            JointKind::Floating => {
                for k in 0..3 {
                    out[k] = q0[k] + delta[3 + k];
                }
                let r = (quat(&q0[3..]) * exp3(vec3(delta))).normalize();
                write_quat(r, &mut out[3..]);
            }
        }
    }

    /// The rate of the tangent coordinates δ of `q = q0 ⊕ δ` when the joint moves with velocity
    /// v at q: v itself for revolute and prismatic joints; for the rotation part
    /// δ̇ = J_r⁻¹(δ) ω (the inverse right Jacobian of SO(3), since R = R0 Exp(δ) and
    /// ω = J_r(δ) δ̇ in child axes); for a floating joint's position ṗ = R(q) v.
    /// At δ = 0 it is the velocity mapped to q-space's tangent: what the integrators use.
    pub fn tangent_rate(&self, q: &[f64], delta: &[f64], v: &[f64], out: &mut [f64]) {
        match self {
            JointKind::Revolute { .. } | JointKind::Prismatic { .. } => out[0] = v[0],
            JointKind::Fixed => {}
            JointKind::Ball => {
                let r = inv_right_jacobian(vec3(delta), vec3(v));
                out[..3].copy_from_slice(&r.to_array());
            }
            JointKind::Floating => {
                let r = inv_right_jacobian(vec3(delta), vec3(v));
                out[..3].copy_from_slice(&r.to_array());
                let p = quat(&q[3..]).normalize() * vec3(&v[3..]);
                out[3..6].copy_from_slice(&p.to_array());
            }
        }
    }

    /// Do the joint's position coordinates hold a quaternion, and where (offset in the joint's
    /// q)?
    pub fn quaternion_offset(&self) -> Option<usize> {
        match self {
            JointKind::Ball => Some(0),
            JointKind::Floating => Some(3),
            _ => None,
        }
    }
}

fn vec3(s: &[f64]) -> DVec3 {
    DVec3::new(s[0], s[1], s[2])
}

/// The quaternion stored [x, y, z, w] at the start of `s`.
pub fn quat(s: &[f64]) -> DQuat {
    DQuat::from_xyzw(s[0], s[1], s[2], s[3])
}

/// Store `r` as [x, y, z, w].
pub fn write_quat(r: DQuat, out: &mut [f64]) {
    out[..4].copy_from_slice(&[r.x, r.y, r.z, r.w]);
}

/// Exp: rotation vector (rad) → unit quaternion.
fn exp3(phi: DVec3) -> DQuat {
    DQuat::from_scaled_axis(phi)
}

/// `J_r⁻¹(θ) ω = ω + ½ θ × ω + β θ × (θ × ω)` with β = 1/θ² − (1 + cos θ)/(2 θ sin θ) (the inverse
/// right Jacobian of SO(3); Solà, Deray, Atchuthan, "A micro Lie theory for state estimation in
/// robotics", 2018, appendix on SO(3); checked against J_r by the unit test below). β's Taylor series 1/12 + θ²/720 + θ⁴/30240 below θ = 0.01 rad,
/// where the closed form loses digits to cancellation (the series' next term, ≈ θ⁶/1.2e6, is
/// below 1e-18 there).
fn inv_right_jacobian(theta: DVec3, w: DVec3) -> DVec3 {
    let t2 = theta.length_squared();
    let beta = if t2 < 1e-4 {
        1.0 / 12.0 + t2 / 720.0 + t2 * t2 / 30240.0
    } else {
        let t = t2.sqrt();
        1.0 / t2 - (1.0 + t.cos()) / (2.0 * t * t.sin())
    };
    let txw = theta.cross(w);
    w + 0.5 * txw + beta * theta.cross(txw)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// J_r⁻¹ inverts J_r(θ) = I − (1 − cos θ)/θ² θ× + (θ − sin θ)/θ³ θ×², on both sides of the
    /// series switch.
    #[test]
    fn inverse_right_jacobian_inverts_the_right_jacobian() {
        for theta in [
            DVec3::new(0.3, -0.2, 0.5),
            DVec3::new(1e-3, 2e-3, -4e-3),
            DVec3::new(0.0, 0.0, 2.5),
        ] {
            let t = theta.length();
            let w = DVec3::new(0.7, -1.1, 0.4);
            let a = (1.0 - t.cos()) / (t * t);
            let b = (t - t.sin()) / (t * t * t);
            let jr = |x: DVec3| x - a * theta.cross(x) + b * theta.cross(theta.cross(x));
            let back = jr(inv_right_jacobian(theta, w));
            // A few roundings of quantities of size |w|; the closed form at θ ~ 1e-3 has
            // cancellation of order ε/θ² ≈ 1e-10 in a and b, times θ² in the terms: 1e-12 · |w|.
            assert!((back - w).length() < 1e-12, "θ = {theta}: {back} vs {w}");
        }
    }
}
