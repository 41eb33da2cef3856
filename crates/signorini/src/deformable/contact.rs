//! Particle–half-space penalty contact (Deguet, Joukhadar & Laugier 1998, §2.2 and §3.3): the
//! normal force is Hunt and Crossley's non-linear visco-elastic law, with Coulomb friction
//! regularised at small slip speeds.
//!
//! A particle at x with contact radius r (the distance to the surface it stands for) penetrates
//! the plane {y : n·y = d} by δ = r − (n·x − d) when δ > 0. With δ̇ = −n·v:
//!
//! ```text
//!   F_n = max(λ δ + μ δ δ̇, 0) n                         (Hunt–Crossley, Deguet §2.2)
//!   F_t = −μ_f |F_n| v_t / √(|v_t|² + v_s²)             (Coulomb, regularised below v_s)
//! ```
//!
//! The elastic part λ δ is the gradient of ½ λ δ² (counted in the potential energy); the rest is
//! dissipative (counted as work in the energy balance). Deguet's eq. 5 gives μ = (3/2) α λ with
//! α = (1 − e)/v_i for a restitution e at impact speed v_i.
use glam::DVec3;

/// A half-space {y : n·y ≤ d}: its surface n·y = d, n the unit outward normal.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Plane {
    pub normal: DVec3,
    /// d (m).
    pub offset: f64,
}

impl Plane {
    /// The ground z ≥ height.
    pub fn ground(height: f64) -> Plane {
        Plane {
            normal: DVec3::Z,
            offset: height,
        }
    }

    /// Penetration δ of a particle at `x` with radius `r` (m; ≤ 0 when apart).
    pub fn penetration(&self, x: DVec3, r: f64) -> f64 {
        r - (self.normal.dot(x) - self.offset)
    }
}

/// A fixed convex polytope, the intersection of the half-spaces of its faces (outward unit
/// normals). A particle's signed distance to it is taken as φ(x) = max_f (n_f·x − d_f): exact
/// inside and over a face, below the true distance near an edge or a corner outside (where the
/// particle is treated as touching the face's extended plane, a band of the particle's radius at
/// most). φ is convex and piecewise linear, so the penalty ½ λ (r − φ)² is a potential whose
/// gradient is the face law of the deepest face: the contact force of the face `active` returns.
#[derive(Clone, Debug, PartialEq)]
pub struct Polytope {
    pub faces: Vec<Plane>,
}

impl Polytope {
    /// The face of largest n_f·x − d_f (the first on a tie), the one the particle touches.
    pub fn active(&self, x: DVec3) -> Option<&Plane> {
        let mut best: Option<(&Plane, f64)> = None;
        for f in &self.faces {
            let phi = f.normal.dot(x) - f.offset;
            if best.is_none_or(|(_, b)| phi > b) {
                best = Some((f, phi));
            }
        }
        best.map(|(f, _)| f)
    }
}

/// The penalty law's parameters (SI units).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PlaneContact {
    /// λ per particle (N/m, > 0).
    pub stiffness: f64,
    /// μ of Hunt–Crossley's μ δ δ̇ (N·s/m², ≥ 0); Deguet eq. 5: μ = (3/2) α λ.
    pub damping: f64,
    /// Coulomb friction coefficient μ_f (≥ 0).
    pub friction: f64,
    /// v_s: slip speed below which friction is regularised (m/s, > 0).
    pub slip_speed: f64,
}

impl Default for PlaneContact {
    fn default() -> Self {
        PlaneContact {
            stiffness: 1e5,
            damping: 0.0,
            friction: 0.5,
            slip_speed: 1e-3,
        }
    }
}

impl PlaneContact {
    /// (elastic, dissipative) force on a particle, or `None` when it does not touch the plane.
    pub fn force(&self, plane: &Plane, x: DVec3, v: DVec3, r: f64) -> Option<(DVec3, DVec3)> {
        let delta = plane.penetration(x, r);
        if delta <= 0.0 {
            return None;
        }
        let n = plane.normal;
        let rate = -n.dot(v);
        let elastic = self.stiffness * delta;
        // The total never pulls: clip the damping part so that elastic + damping ≥ 0.
        let damping = (self.damping * delta * rate).max(-elastic);
        let fn_mag = elastic + damping;
        let vt = v - n.dot(v) * n;
        let friction =
            -self.friction * fn_mag * vt / (vt.length_squared() + self.slip_speed.powi(2)).sqrt();
        Some((elastic * n, damping * n + friction))
    }

    /// Elastic energy ½ λ δ² of a particle's penetration (J).
    pub fn energy(&self, plane: &Plane, x: DVec3, r: f64) -> f64 {
        let delta = plane.penetration(x, r);
        if delta <= 0.0 {
            0.0
        } else {
            0.5 * self.stiffness * delta * delta
        }
    }
}
