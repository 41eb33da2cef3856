//! The visco-elastic connectors of a particle network (Deguet, Joukhadar & Laugier 1998, §3.1):
//! a linear connector keeps a resting distance between two particles, a torsion connector keeps
//! an unsigned resting angle at the middle of three particles. Each is a Kelvin–Voigt law with
//! stiffness λ and damping μ (Deguet §2.2, F = −λ x − μ ẋ, x the deviation from rest):
//!
//! ```text
//!   linear:   l = |x_j − x_i|,                    U = ½ λ (l − l₀)²,   F_i = (λ (l − l₀) + μ l̇) u,  F_j = −F_i
//!   torsion:  θ = ∠(x_i − x_j, x_k − x_j) ∈ [0, π],  U = ½ λ (θ − θ₀)²,  F_p = −(λ (θ − θ₀) + μ θ̇) ∂θ/∂x_p
//! ```
//!
//! A shear connector (four particles, the corners a, b, c, d of a cell face in order around it)
//! keeps a signed angle at zero, as the paper's four-particle joint connector does: the face's
//! shear γ = (θ_a − θ_b + θ_c − θ_d)/4, θ_p the corner angles, with U = ½ λ γ² and
//! F_p = −(λ γ + μ γ̇) ∂γ/∂x_p. A pure shear turns every corner by ±γ; a trapezoid (the shape a
//! face takes in bending: one edge stretched, the opposite one compressed) turns them by
//! (+δ, +δ, −δ, −δ) and leaves γ = 0 — which four separate right-angle torsion connectors, each
//! penalising its own corner, do not: they stiffened a 2 × 2 beam by 14% (issue 19's cantilever).
//!
//! with u = (x_j − x_i)/l, l̇ = u·(v_j − v_i) and θ̇ = Σ_p ∂θ/∂x_p · v_p. The elastic part is the
//! gradient of U (so a network without damping conserves Σ ½ m v² + Σ U); the damping part
//! dissipates μ l̇² (resp. μ θ̇²) watts. Units: a linear λ in N/m and μ in N·s/m; a torsion λ in
//! N·m/rad and μ in N·m·s/rad.
use glam::DVec3;

/// Two particles kept at a resting distance (Deguet §3.1).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Linear {
    pub i: usize,
    pub j: usize,
    /// Resting distance l₀ (m).
    pub rest: f64,
    /// λ (N/m).
    pub stiffness: f64,
    /// μ (N·s/m).
    pub damping: f64,
}

/// Three particles whose angle at the middle one `j` is kept at an unsigned resting angle
/// (Deguet §3.1): θ₀ = π keeps a fibre straight (bending), θ₀ = π/2 keeps two edges of the
/// network square (shear).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Torsion {
    pub i: usize,
    pub j: usize,
    pub k: usize,
    /// Resting angle θ₀ (rad, in (0, π]).
    pub rest: f64,
    /// λ (N·m/rad).
    pub stiffness: f64,
    /// μ (N·m·s/rad).
    pub damping: f64,
}

/// Forces of one connector: elastic (conservative) and damping parts kept apart so that the
/// energy balance can count the damping's work.
#[derive(Clone, Copy, Debug, Default)]
pub struct Split {
    pub elastic: DVec3,
    pub damping: DVec3,
}

impl Linear {
    /// Elastic energy ½ λ (l − l₀)² (J).
    pub fn energy(&self, x: &[DVec3]) -> f64 {
        let l = (x[self.j] - x[self.i]).length();
        0.5 * self.stiffness * (l - self.rest).powi(2)
    }

    /// Forces on particle i (the force on j is its opposite).
    pub fn force(&self, x: &[DVec3], v: &[DVec3]) -> Split {
        let d = x[self.j] - x[self.i];
        let l = d.length();
        if l <= 0.0 {
            return Split::default(); // coincident particles: no direction
        }
        let u = d / l;
        let rate = u.dot(v[self.j] - v[self.i]);
        Split {
            elastic: self.stiffness * (l - self.rest) * u,
            damping: self.damping * rate * u,
        }
    }
}

/// θ/sin θ-free pieces of the angle at `j`: θ, and the gradients ∂θ/∂x_i, ∂θ/∂x_k, each
/// multiplied by (θ − θ₀) so that the straight case (θ₀ = π, where ∂θ/∂x alone has no limit)
/// stays smooth. Returns (θ, (θ−θ₀)∂θ/∂x_i, (θ−θ₀)∂θ/∂x_k, ∂θ/∂x_i, ∂θ/∂x_k); the last two are
/// zero where the angle is (numerically) flat or folded, and used only for damping.
fn angle_terms(e1: DVec3, e2: DVec3, rest: f64) -> (f64, DVec3, DVec3, DVec3, DVec3) {
    let (l1, l2) = (e1.length(), e2.length());
    if l1 <= 0.0 || l2 <= 0.0 {
        return (rest, DVec3::ZERO, DVec3::ZERO, DVec3::ZERO, DVec3::ZERO);
    }
    let (a, b) = (e1 / l1, e2 / l2);
    let cos = a.dot(b).clamp(-1.0, 1.0);
    let sin = a.cross(b).length();
    let theta = sin.atan2(a.dot(b));
    // ∂θ/∂e1 = −(b − cos a)/(l1 sin θ), ∂θ/∂e2 = −(a − cos b)/(l2 sin θ).
    // (θ − θ₀)/sin θ: for θ₀ = π and θ → π it tends to −1 (φ = π − θ, −φ/sin φ).
    let ratio = if (rest - std::f64::consts::PI).abs() < 1e-12 {
        let phi = std::f64::consts::PI - theta;
        if phi < 1e-4 {
            -(1.0 + phi * phi / 6.0)
        } else {
            -phi / phi.sin()
        }
    } else if sin > 1e-12 {
        (theta - rest) / sin
    } else {
        0.0 // folded flat against a non-straight rest angle: direction undefined
    };
    let gi = -(b - cos * a) / l1;
    let gk = -(a - cos * b) / l2;
    let (di, dk) = if sin > 1e-9 {
        (gi / sin, gk / sin)
    } else {
        (DVec3::ZERO, DVec3::ZERO)
    };
    (theta, ratio * gi, ratio * gk, di, dk)
}

impl Torsion {
    /// The angle θ at particle j (rad).
    pub fn angle(&self, x: &[DVec3]) -> f64 {
        let (e1, e2) = (x[self.i] - x[self.j], x[self.k] - x[self.j]);
        e1.cross(e2).length().atan2(e1.dot(e2))
    }

    /// Elastic energy ½ λ (θ − θ₀)² (J).
    pub fn energy(&self, x: &[DVec3]) -> f64 {
        0.5 * self.stiffness * (self.angle(x) - self.rest).powi(2)
    }

    /// Forces on particles i, j, k (they sum to zero, and so does their moment).
    pub fn forces(&self, x: &[DVec3], v: &[DVec3]) -> [Split; 3] {
        let (e1, e2) = (x[self.i] - x[self.j], x[self.k] - x[self.j]);
        let (_, gi, gk, di, dk) = angle_terms(e1, e2, self.rest);
        let rate = di.dot(v[self.i]) + dk.dot(v[self.k]) - (di + dk).dot(v[self.j]);
        let (ei, ek) = (-self.stiffness * gi, -self.stiffness * gk);
        let (mi, mk) = (
            -self.damping * rate * di,
            -self.damping * rate * dk,
        );
        [
            Split { elastic: ei, damping: mi },
            Split { elastic: -(ei + ek), damping: -(mi + mk) },
            Split { elastic: ek, damping: mk },
        ]
    }
}

/// Four particles at the corners of a cell face, in order around it; keeps the face's signed
/// shear angle γ = (θ_a − θ_b + θ_c − θ_d)/4 at zero (Deguet §3.1's joint connector, four
/// particles and a signed angle, used here for shear; docs/deformable.md "Identification").
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Shear {
    pub corners: [usize; 4],
    /// λ (N·m/rad).
    pub stiffness: f64,
    /// μ (N·m·s/rad).
    pub damping: f64,
}

impl Shear {
    /// γ (rad) and ∂γ/∂x of the four corners (1/m).
    pub fn shear(&self, x: &[DVec3]) -> (f64, [DVec3; 4]) {
        let c = self.corners;
        let mut gamma = 0.0;
        let mut grad = [DVec3::ZERO; 4];
        for s in 0..4 {
            let (i, j, k) = ((s + 3) % 4, s, (s + 1) % 4);
            let (e1, e2) = (x[c[i]] - x[c[j]], x[c[k]] - x[c[j]]);
            let (theta, _, _, di, dk) = angle_terms(e1, e2, std::f64::consts::FRAC_PI_2);
            let sign = if s % 2 == 0 { 0.25 } else { -0.25 };
            gamma += sign * (theta - std::f64::consts::FRAC_PI_2);
            grad[i] += sign * di;
            grad[k] += sign * dk;
            grad[j] -= sign * (di + dk);
        }
        (gamma, grad)
    }

    /// Elastic energy ½ λ γ² (J).
    pub fn energy(&self, x: &[DVec3]) -> f64 {
        0.5 * self.stiffness * self.shear(x).0.powi(2)
    }

    /// Forces on the four corners (they sum to zero, and so does their moment).
    pub fn forces(&self, x: &[DVec3], v: &[DVec3]) -> [Split; 4] {
        let (gamma, grad) = self.shear(x);
        let rate: f64 = (0..4).map(|s| grad[s].dot(v[self.corners[s]])).sum();
        grad.map(|g| Split {
            elastic: -self.stiffness * gamma * g,
            damping: -self.damping * rate * g,
        })
    }
}
