//! 6-D spatial vector algebra in Featherstone's notation (R. Featherstone, *Rigid Body Dynamics
//! Algorithms*, Springer 2008, chapter 2; "RBDA" below).
//!
//! Order: angular part first. A motion vector is `[ω; v_O]` (angular velocity, and the velocity
//! of the body-fixed point at the frame origin O), a force vector `[n_O; f]` (moment about O, and
//! force). Every quantity is expressed in some frame's coordinates; the algorithms keep each
//! link's quantities in that link's frame (RBDA §2.8, "body coordinates").
//!
//! Fixed-size 3 × 3 blocks (glam `DMat3`, `DVec3`) throughout: nothing allocates.
use glam::{DMat3, DVec3};

/// The 3 × 3 cross-product matrix: `skew(a) * b == a × b`.
#[inline]
pub fn skew(a: DVec3) -> DMat3 {
    DMat3::from_cols(
        DVec3::new(0.0, a.z, -a.y),
        DVec3::new(-a.z, 0.0, a.x),
        DVec3::new(a.y, -a.x, 0.0),
    )
}

/// A spatial motion vector `[ω; v]` (velocity, acceleration, a joint's motion subspace column).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Motion {
    /// Angular part (rad/s, rad/s²).
    pub ang: DVec3,
    /// Linear part at the frame origin (m/s, m/s²).
    pub lin: DVec3,
}

/// A spatial force vector `[n; f]` (wrench, momentum, a column of `I S`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Force {
    /// Moment about the frame origin (N m; kg m²/s for momentum).
    pub ang: DVec3,
    /// Force (N; kg m/s for momentum).
    pub lin: DVec3,
}

impl Motion {
    pub const ZERO: Motion = Motion {
        ang: DVec3::ZERO,
        lin: DVec3::ZERO,
    };

    pub fn new(ang: DVec3, lin: DVec3) -> Motion {
        Motion { ang, lin }
    }

    /// The spatial motion cross product `self × m` (RBDA §2.9, `crm(v) m`):
    /// `[ω × m_ω; ω × m_v + v × m_ω]`.
    #[inline]
    pub fn cross_motion(&self, m: &Motion) -> Motion {
        Motion {
            ang: self.ang.cross(m.ang),
            lin: self.ang.cross(m.lin) + self.lin.cross(m.ang),
        }
    }

    /// The spatial force cross product `self ×* f` (RBDA §2.9, `crf(v) f = −crm(v)ᵀ f`):
    /// `[ω × n + v × f; ω × f]`.
    #[inline]
    pub fn cross_force(&self, f: &Force) -> Force {
        Force {
            ang: self.ang.cross(f.ang) + self.lin.cross(f.lin),
            lin: self.ang.cross(f.lin),
        }
    }

    /// The scalar product with a force vector (power, W): `m · f = ω·n + v·f`.
    #[inline]
    pub fn dot(&self, f: &Force) -> f64 {
        self.ang.dot(f.ang) + self.lin.dot(f.lin)
    }

    #[inline]
    pub fn scale(&self, s: f64) -> Motion {
        Motion {
            ang: self.ang * s,
            lin: self.lin * s,
        }
    }

    pub fn is_finite(&self) -> bool {
        self.ang.is_finite() && self.lin.is_finite()
    }
}

impl Force {
    pub const ZERO: Force = Force {
        ang: DVec3::ZERO,
        lin: DVec3::ZERO,
    };

    pub fn new(ang: DVec3, lin: DVec3) -> Force {
        Force { ang, lin }
    }

    #[inline]
    pub fn scale(&self, s: f64) -> Force {
        Force {
            ang: self.ang * s,
            lin: self.lin * s,
        }
    }
}

macro_rules! vector_ops {
    ($t:ty) => {
        impl std::ops::Add for $t {
            type Output = $t;
            #[inline]
            fn add(self, o: $t) -> $t {
                Self {
                    ang: self.ang + o.ang,
                    lin: self.lin + o.lin,
                }
            }
        }
        impl std::ops::Sub for $t {
            type Output = $t;
            #[inline]
            fn sub(self, o: $t) -> $t {
                Self {
                    ang: self.ang - o.ang,
                    lin: self.lin - o.lin,
                }
            }
        }
        impl std::ops::AddAssign for $t {
            #[inline]
            fn add_assign(&mut self, o: $t) {
                self.ang += o.ang;
                self.lin += o.lin;
            }
        }
        impl std::ops::SubAssign for $t {
            #[inline]
            fn sub_assign(&mut self, o: $t) {
                self.ang -= o.ang;
                self.lin -= o.lin;
            }
        }
        impl std::ops::Neg for $t {
            type Output = $t;
            #[inline]
            fn neg(self) -> $t {
                Self {
                    ang: -self.ang,
                    lin: -self.lin,
                }
            }
        }
    };
}
vector_ops!(Motion);
vector_ops!(Force);

/// A Plücker coordinate transform `B X_A` from frame A's coordinates to frame B's, for B's origin
/// at `r` (in A coordinates) and B's axes rotated from A's by the rotation matrix whose columns
/// are B's axes in A: `E` is its transpose (A → B coordinates). RBDA §2.8:
///
/// `X = rot(E) xlt(r) = [E 0; −E r× E]`,  `X* = X⁻ᵀ = [E −E r×; 0 E]`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Transform {
    /// A → B coordinate rotation.
    pub e: DMat3,
    /// B's origin in A coordinates (m).
    pub r: DVec3,
}

impl Transform {
    pub const IDENTITY: Transform = Transform {
        e: DMat3::IDENTITY,
        r: DVec3::ZERO,
    };

    /// The transform into a frame whose axes are the columns of `rot` and whose origin is `pos`,
    /// both written in the current frame.
    #[inline]
    pub fn from_frame(rot: DMat3, pos: DVec3) -> Transform {
        Transform {
            e: rot.transpose(),
            r: pos,
        }
    }

    /// `X m = [E ω; E (v − r × ω)]`.
    #[inline]
    pub fn apply_motion(&self, m: &Motion) -> Motion {
        Motion {
            ang: self.e * m.ang,
            lin: self.e * (m.lin - self.r.cross(m.ang)),
        }
    }

    /// `X⁻¹ m = [Eᵀ ω; Eᵀ v + r × Eᵀ ω]`: B coordinates back to A.
    #[inline]
    pub fn inv_apply_motion(&self, m: &Motion) -> Motion {
        let ang = self.e.transpose() * m.ang;
        Motion {
            ang,
            lin: self.e.transpose() * m.lin + self.r.cross(ang),
        }
    }

    /// `X* f = [E (n − r × f); E f]`: a force from A coordinates to B.
    #[inline]
    pub fn apply_force(&self, f: &Force) -> Force {
        Force {
            ang: self.e * (f.ang - self.r.cross(f.lin)),
            lin: self.e * f.lin,
        }
    }

    /// `Xᵀ f = (X*)⁻¹ f = [Eᵀ n + r × Eᵀ f; Eᵀ f]`: a force from B coordinates back to A (RBDA
    /// eq. 2.13, X* = X⁻ᵀ).
    #[inline]
    pub fn transpose_apply_force(&self, f: &Force) -> Force {
        let lin = self.e.transpose() * f.lin;
        Force {
            ang: self.e.transpose() * f.ang + self.r.cross(lin),
            lin,
        }
    }

    /// `self * other`: first `other` (A → B), then `self` (B → C): `E = E₁ E₂`, `r = r₂ + E₂ᵀ r₁`.
    #[inline]
    pub fn compose(&self, other: &Transform) -> Transform {
        Transform {
            e: self.e * other.e,
            r: other.r + other.e.transpose() * self.r,
        }
    }
}

/// A rigid body's spatial inertia about a frame's origin (RBDA eq. 2.63):
///
/// `I = [Ī_c + m c× c×ᵀ   m c×; m c×ᵀ   m 1]`
///
/// stored as mass m (kg), first moment h = m c (kg m) and rotational inertia about the origin
/// Ī_O = Ī_c + m c×c×ᵀ (kg m²).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RigidInertia {
    pub mass: f64,
    pub h: DVec3,
    pub i_o: DMat3,
}

impl RigidInertia {
    /// From mass (kg), centre of mass `com` (m) and rotational inertia about the centre of mass
    /// (kg m²), all in the frame's coordinates.
    pub fn from_com(mass: f64, com: DVec3, inertia_com: DMat3) -> RigidInertia {
        let cx = skew(com);
        RigidInertia {
            mass,
            h: mass * com,
            i_o: inertia_com + mass * cx * cx.transpose(),
        }
    }

    /// `I v = [Ī_O ω + h × v; m v − h × ω]`.
    #[inline]
    pub fn mul_motion(&self, v: &Motion) -> Force {
        Force {
            ang: self.i_o * v.ang + self.h.cross(v.lin),
            lin: self.mass * v.lin - self.h.cross(v.ang),
        }
    }

    /// As a general symmetric 6 × 6 inertia.
    pub fn to_articulated(&self) -> ArticulatedInertia {
        ArticulatedInertia {
            a: self.i_o,
            b: skew(self.h),
            c: DMat3::from_diagonal(DVec3::splat(self.mass)),
        }
    }
}

/// A symmetric 6 × 6 spatial inertia in blocks, `[A B; Bᵀ C]` with A = Aᵀ and C = Cᵀ: an
/// articulated-body inertia (RBDA §7.2) or a composite rigid-body inertia (§6.2). Maps a motion
/// vector to a force vector.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ArticulatedInertia {
    pub a: DMat3,
    pub b: DMat3,
    pub c: DMat3,
}

impl ArticulatedInertia {
    pub const ZERO: ArticulatedInertia = ArticulatedInertia {
        a: DMat3::ZERO,
        b: DMat3::ZERO,
        c: DMat3::ZERO,
    };

    /// `[A ω + B v; Bᵀ ω + C v]`.
    #[inline]
    pub fn mul_motion(&self, m: &Motion) -> Force {
        Force {
            ang: self.a * m.ang + self.b * m.lin,
            lin: self.b.transpose() * m.ang + self.c * m.lin,
        }
    }

    /// Subtract `s u wᵀ` (u, w force vectors) from the stored blocks A (`s u_n w_nᵀ`) and B
    /// (`s u_n w_fᵀ`) and C (`s u_f w_fᵀ`). Summed over every pair (j, k) of a joint's columns of
    /// U with s = (D⁻¹)_jk, the total is symmetric and is RBDA eq. 7.47's `Iᵃ = Iᴬ − U D⁻¹ Uᵀ`.
    #[inline]
    pub fn sub_outer(&mut self, u: &Force, w: &Force, s: f64) {
        self.a -= outer(u.ang * s, w.ang);
        self.b -= outer(u.ang * s, w.lin);
        self.c -= outer(u.lin * s, w.lin);
    }

    /// The congruence `Xᵀ I X` (X = ᴮX_A): an inertia written in B coordinates, rewritten in A's
    /// (`I_A = ᴬX*_B I_B ᴮX_A` with `ᴬX*_B = (ᴮX_A)ᵀ` by RBDA eq. 2.13). In blocks, with
    /// A', B', C' the blocks rotated by E (`Eᵀ A E`, …) and r× = skew(r):
    ///
    /// `[A' + r×B'ᵀ − (B' + r×C') r×,  B' + r×C';  B'ᵀ − C' r×,  C']`.
    #[inline]
    pub fn transform_to_parent(&self, x: &Transform) -> ArticulatedInertia {
        let et = x.e.transpose();
        let a1 = et * self.a * x.e;
        let b1 = et * self.b * x.e;
        let c1 = et * self.c * x.e;
        // r× M column by column (r × m_k), and M r× = −(r× Mᵀ)ᵀ.
        let r = x.r;
        let rx_mul = |m: DMat3| DMat3::from_cols(r.cross(m.x_axis), r.cross(m.y_axis), r.cross(m.z_axis));
        let b2 = b1 + rx_mul(c1);
        ArticulatedInertia {
            a: a1 + rx_mul(b1.transpose()) + rx_mul(b2.transpose()).transpose(),
            b: b2,
            c: c1,
        }
    }

    /// Symmetrize A and C in place (round-off of the congruences).
    #[inline]
    pub fn symmetrize(&mut self) {
        self.a = 0.5 * (self.a + self.a.transpose());
        self.c = 0.5 * (self.c + self.c.transpose());
    }
}

impl std::ops::AddAssign for ArticulatedInertia {
    #[inline]
    fn add_assign(&mut self, o: ArticulatedInertia) {
        self.a += o.a;
        self.b += o.b;
        self.c += o.c;
    }
}

/// `u wᵀ`.
#[inline]
pub fn outer(u: DVec3, w: DVec3) -> DMat3 {
    DMat3::from_cols(u * w.x, u * w.y, u * w.z)
}
