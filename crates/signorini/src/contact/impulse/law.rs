//! Single-point collision laws: the collision matrix K, Newton's, Poisson's and Stronge's
//! restitution driven by Mirtich's collision integration with Coulomb friction, and the algebraic
//! Newton + clamped-friction impulse of games and Guendelman et al. as a baseline.
//!
//! Pure functions of matrices and vectors: no bodies, no time. Sources: slides "Rigid Body
//! Dynamics (II): impulse-based dynamics" (slide numbers below as "s. N"), Deguet, Joukhadar &
//! Laugier §2.1 (eqs. 1–4), Mirtich's thesis "Impulse-based dynamic simulation of rigid body
//! systems" (1996, ch. 4), Stronge 1990/1991. Everything below is in the **contact frame**
//! (t1, t2, n), n from A to B: a vector `x` there is (x.x, x.y, x.z) = (t1, t2, n) components.
//!
//! # Collision matrix (s. 25–27)
//!
//! An impulse P applied +P to B and −P to A at the world point p changes the relative velocity
//! of the contact points u = v_B(p) − v_A(p) by
//!
//! ```text
//!   Δu = K P,   K = Σ_{A,B} ( m⁻¹ I₃ − [r]× I⁻¹ [r]× ),   r = p − x_com          (L1)
//! ```
//!
//! with I⁻¹ the world inverse inertia; a fixed body contributes nothing. K is symmetric positive
//! definite and constant over the collision (s. 27). [`collision_matrix`] builds it in the
//! contact frame (Rᵀ K_world R, R = [t1 t2 n]).
//!
//! # Collision integration (s. 28–40; Deguet eqs. 1–3)
//!
//! The collision is parameterized by the normal impulse P_n, which grows monotonically. With
//! P = (P_t, P_n) and the friction rate f = dP_t/dP_n,
//!
//! ```text
//!   du/dP_n = K (f, 1),   u(P) = u₀ + K P                                        (L2)
//!   f = −μ ŝ,  ŝ = u_t/|u_t|                      while sliding (Coulomb, s. 23–24, 29)
//!   dW_n/dP_n = u_n,  W_n = ∫ u_n dP_n             the normal work (s. 20)        (L3)
//! ```
//!
//! Compression ends at the first u_n = 0 (P_n = P_c, W_n = W_c ≤ 0); restitution ends when
//!
//! ```text
//!   Newton  (kinematic, s. 21):  u_n = −e u_n0                                     (L4a)
//!   Poisson (kinetic,   s. 21):  P_n = (1 + e) P_c                                 (L4b)
//!   Stronge (energetic, s. 22):  W_n − W_c = −e² W_c, i.e. W_n = (1 − e²) W_c      (L4c)
//! ```
//!
//! and the kinetic energy changes by (the bodies' energy, written with (L1))
//!
//! ```text
//!   ΔT = Pᵀu₀ + ½ PᵀKP = W_n + W_t,   W_t = ∫ u_t·dP_t = −μ ∫ |u_t| dP_n ≤ 0.      (L5)
//! ```
//!
//! With (L4c) W_n = (1 − e²) W_c ≤ 0, so Stronge's law never gains energy (s. 22).
//!
//! **No division by u_n.** The parameter is P_n throughout, also past maximum compression: (L2)
//! and (L3) are regular at u_n = 0, and the restitution targets are located as events of the
//! state (u_n or W_n crossing its target) rather than by changing the parameter to W_n, whose
//! dP_n/dW_n = 1/u_n is singular there (s. 34–36: the slides' "extension integration" integrates
//! on past u_n = 0 with a parameter that stays regular; here that parameter is P_n itself).
//!
//! **Sticking (s. 37–40).** When the slip reaches zero, keeping u_t = 0 needs K_tt f + K_tn = 0:
//!
//! ```text
//!   f* = −K_tt⁻¹ K_tn,   stable iff |f*| ≤ μ                                     (L6)
//! ```
//!
//! (K_tt the 2×2 tangential block, K_tn the tangential part of K's normal column). Stable: static
//! friction takes over and the rest is closed form (s. 40): u_t stays 0, u_n grows at
//! k_eff = K_nn + K_ntᵀ f* = K_nn − K_ntᵀ K_tt⁻¹ K_tn > 0 (a Schur complement of K). Unstable: the
//! slip leaves zero along a ray ŝ that the sliding flow maps to itself,
//!
//! ```text
//!   F(ŝ) = K_tn − μ K_tt ŝ = λ ŝ,   λ = d|u_t|/dP_n                             (L7)
//! ```
//!
//! With ŝ = (cos θ, sin θ), the ray condition ŝ⊥·F(ŝ) = 0 reads
//! g(θ) = b cos θ − a sin θ − μ (d sin 2θ + k₁₂ cos 2θ) = 0, (a, b) = K_tn, d = (k₂₂ − k₁₁)/2,
//! and t = tan(θ/2) turns it into the quartic (s. 39: "an equation in terms of the elements of K
//! which yields 4 roots")
//!
//! ```text
//!   (−b − μk₁₂) t⁴ + (−2a + 4μd) t³ + 6μk₁₂ t² + (−2a − 4μd) t + (b − μk₁₂) = 0.   (L8)
//! ```
//!
//! A root is a *diverging* ray when λ > 0. Exactly one root diverges when sticking is unstable
//! and none when it is stable. (L7) is (μK_tt + λI) ŝ = K_tn, so a ray with λ > 0 is
//! ŝ(λ) = (μK_tt + λI)⁻¹K_tn with |ŝ(λ)| = 1; |ŝ(λ)| decreases strictly in λ ≥ 0 (μK_tt + λI is
//! SPD and grows with λ) from |K_tt⁻¹K_tn|/μ = |f*|/μ to 0, so there is one such λ iff
//! |f*| > μ. [`diverging_ray`] solves (L8) (its real roots by derivative-bracketed bisection,
//! polished by Newton on g(θ)) and **chooses the root with λ > 0**; if round-off leaves none (a
//! near-marginal case, λ ≈ 0, where two roots merge) it solves |ŝ(λ)| = 1 by bisection instead
//! (`RayMethod::Secular`). Along the ray the slip keeps its direction (F(ŝ) ∥ ŝ), so the rest of
//! the collision is closed form too.
//!
//! A sliding contact reaches zero slip only along a converging ray (λ < 0) that attracts the
//! slip direction (g'(θ) < 0): in polar form dρ/dP_n = λ(θ), dθ/dP_n = g(θ)/ρ. When sticking is
//! unstable and the quartic has a single converging ray, that ray repels the direction (in all of
//! 7,366 such random K sampled; the diverging ray attracted in all 10,289 unstable ones), so only
//! a slip exactly on it stops, then reverses; any other slip turns onto the diverging ray without
//! passing through zero. In planar problems (one tangent) every slip is on a ray.
//!
//! **Integrator.** Sliding with a rotating slip direction (3D, anisotropic or coupled K) is
//! integrated with the embedded Dormand–Prince 5(4) pair (local extrapolation: the 5th-order
//! solution is kept) on y = (P_t1, P_t2, W_n), error per step ≤ `tolerance` in the norm
//! max(|δP_t| / (μΠ), |δW_n| / (VΠ)), V = |u₀| (m/s), Π = V / K_nn (N s). Events (end of
//! compression, restitution targets) are located to round-off by Illinois regula falsi on the
//! step length. Near zero slip the slip direction is stiff (it turns at a rate ∝ 1/|u_t|): each
//! step is limited to the slip's own scale (`Path::rk_step` says how), never crosses zero slip,
//! and once the direction has settled onto a converging ray the rest of the approach is a
//! straight segment. The slip counts as stopped below 64 ε (|u₀| + ‖K‖ |P|) (round-off of
//! u = u₀ + K P). Whenever the slip direction is an invariant ray (K_tt isotropic and K_tn = 0 —
//! a sphere —, or planar problems) and after sticking, segments are exact straight lines in P_n
//! (L9).
//!
//! **Accuracy: |P − P_exact| ≤ 20 τ Π** with τ = `tolerance`. Measured over 6000 random
//! collisions (random bodies, frames, u₀, μ ∈ [0, 2], e ∈ [0, 1]) against τ = 1e-14: at most
//! 13 τ Π for τ from 1e-4 to 1e-12, and |P(τ) − P(τ/2)| ≤ 7.4 τ Π; a fixed-step RK4 reference
//! with 200,000 steps agrees to 7e-12 Π at the default τ = 1e-10, which takes 43 steps on
//! average (400,000 random collisions: no failure, at most 4587 steps).
//!
//! ```text
//!   x ↦ P + (f, 1) x,  u + K(f, 1) x,  W_n + u_n x + ½ (K(f, 1))_n x²   (constant f)  (L9)
//! ```
//!
//! **Frictionless** (μ = 0): f = 0, one straight segment; P_c = −u_n0/K_nn and all three laws give
//! P_n = (1 + e) P_c, u_n = −e u_n0, ΔT = −(1 − e²) u_n0² / (2 K_nn).
//!
//! **Repeated compression.** In 3D the friction term of du_n/dP_n = K_nn − μ K_ntᵀŝ can turn
//! negative after maximum compression and bring u_n back below zero (`recompressed`). Compression
//! is the first u_n = 0 for all laws; Stronge's target is met at the first upward crossing, so
//! the exit velocity is ≥ 0. If Poisson's target P_n = (1 + e)P_c is met while u_n < 0 the
//! integration continues to u_n = 0 (`extended_to_separation`).
//!
//! # Algebraic Newton + Coulomb (the baseline)
//!
//! Games and Guendelman et al. 2003: the frictionless Newton impulse P_n = −(1 + e) u_n0 / K_nn,
//! then the tangential impulse that stops the slip, P_t = −K_tt⁻¹ u_t, scaled back onto the cone
//! |P_t| = μ P_n when it lies outside. Each stage dissipates — the normal one by
//! (1 − e²) u_n0² / (2K_nn), the tangential one by s(1 − s/2) u_tᵀK_tt⁻¹u_t, s ≤ 1 the clamping
//! factor — so it never gains energy; but it ignores the coupling of friction into the normal
//! velocity (K_nt), so its exit u_n is not −e u_n0 and can be negative (the bodies leave
//! approaching).
use glam::{DMat3, DVec2, DVec3};
use std::fmt;

// ---------------------------------------------------------------------------------------------
// Errors and options
// ---------------------------------------------------------------------------------------------

/// Why a collision could not be resolved.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum LawError {
    /// An input outside the law's domain (the text says which and why).
    #[error("collision law: bad input: {0}")]
    BadInput(String),
    /// The collision matrix is not symmetric positive definite.
    #[error("collision law: collision matrix is not symmetric positive definite: {0}")]
    NotPositiveDefinite(String),
    /// The integration could not finish.
    #[error("collision law: integration failed at P_n = {normal_impulse} N s after {steps} steps: {why}")]
    IntegrationFailed {
        normal_impulse: f64,
        steps: usize,
        why: String,
    },
}

/// Options of the collision integration.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct IntegrationOptions {
    /// Local error allowed per step, relative to the impulse scale Π = |u₀| / K_nn (and to
    /// μΠ for the friction impulse, |u₀|Π for the work). Dimensionless, in [1e-14, 1e-2].
    pub tolerance: f64,
    /// Accepted integration steps before giving up.
    pub max_steps: usize,
    /// Take exact straight segments whenever the slip direction is an invariant ray (default
    /// true). False sends sliding phases that start on a ray through the Runge–Kutta integrator
    /// too: for tests of the integrator against closed forms.
    pub straight_rays: bool,
}

impl Default for IntegrationOptions {
    fn default() -> Self {
        IntegrationOptions {
            tolerance: 1e-10,
            max_steps: 100_000,
            straight_rays: true,
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Contact frame and collision matrix
// ---------------------------------------------------------------------------------------------

/// An orthonormal right-handed contact frame: tangents t1, t2 and the normal n (from A to B),
/// t1 × t2 = n. World vectors, dimensionless.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ContactFrame {
    pub t1: DVec3,
    pub t2: DVec3,
    pub n: DVec3,
}

impl ContactFrame {
    /// The frame (t1, t2, n), checked orthonormal and right-handed to 1e-9.
    pub fn new(t1: DVec3, t2: DVec3, n: DVec3) -> Result<Self, LawError> {
        let ok = [t1, t2, n]
            .iter()
            .all(|v| v.is_finite() && (v.length() - 1.0).abs() <= 1e-9)
            && t1.dot(t2).abs() <= 1e-9
            && t1.dot(n).abs() <= 1e-9
            && t2.dot(n).abs() <= 1e-9
            && (t1.cross(t2) - n).length() <= 1e-9;
        if !ok {
            return Err(LawError::BadInput(format!(
                "contact frame t1 = {t1}, t2 = {t2}, n = {n} is not orthonormal and right-handed"
            )));
        }
        Ok(ContactFrame { t1, t2, n })
    }

    /// A frame with normal `n` (normalized; must be finite and nonzero) and tangents chosen
    /// deterministically: t1 ⊥ n built from the world axis least aligned with n, t2 = n × t1.
    pub fn from_normal(n: DVec3) -> Result<Self, LawError> {
        let len = n.length();
        if !(len.is_finite() && len > 0.0) {
            return Err(LawError::BadInput(format!(
                "contact normal {n} must be finite and nonzero"
            )));
        }
        let n = n / len;
        let a = n.abs();
        let axis = if a.x <= a.y && a.x <= a.z {
            DVec3::X
        } else if a.y <= a.z {
            DVec3::Y
        } else {
            DVec3::Z
        };
        let t1 = (axis - axis.dot(n) * n).normalize();
        let t2 = n.cross(t1);
        Ok(ContactFrame { t1, t2, n })
    }

    /// A world vector's components in the frame (t1, t2, n).
    pub fn to_contact(&self, w: DVec3) -> DVec3 {
        DVec3::new(w.dot(self.t1), w.dot(self.t2), w.dot(self.n))
    }

    /// The world vector with components `c` in the frame.
    pub fn to_world(&self, c: DVec3) -> DVec3 {
        c.x * self.t1 + c.y * self.t2 + c.z * self.n
    }

    /// R = [t1 t2 n]: contact → world.
    pub fn rotation(&self) -> DMat3 {
        DMat3::from_cols(self.t1, self.t2, self.n)
    }
}

/// What the collision matrix needs of one dynamic body at the contact point.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BodyAtContact {
    /// 1/m (1/kg), ≥ 0.
    pub inverse_mass: f64,
    /// World inverse inertia about the centre of mass, R J⁻¹ Rᵀ (1/(kg m²)), symmetric.
    pub inverse_inertia: DMat3,
    /// Contact point minus centre of mass, world (m).
    pub r: DVec3,
}

/// Element (row i, column j) of a glam matrix.
fn at(m: &DMat3, i: usize, j: usize) -> f64 {
    m.col(j)[i]
}

fn max_abs(m: &DMat3) -> f64 {
    m.to_cols_array().iter().fold(0.0, |a, v| a.max(v.abs()))
}

/// The collision matrix (L1) in the contact frame for bodies A and B (None: a fixed body).
/// Errors when an input is not finite, a mass or inertia is negative or asymmetric, or K is not
/// symmetric positive definite (e.g. both bodies fixed).
pub fn collision_matrix(
    frame: &ContactFrame,
    a: Option<&BodyAtContact>,
    b: Option<&BodyAtContact>,
) -> Result<DMat3, LawError> {
    let frame = ContactFrame::new(frame.t1, frame.t2, frame.n)?;
    let mut k_world = DMat3::ZERO;
    for (name, body) in [("A", a), ("B", b)] {
        let Some(body) = body else { continue };
        let ii = body.inverse_inertia;
        let finite = body.inverse_mass.is_finite()
            && ii.to_cols_array().iter().all(|v| v.is_finite())
            && body.r.is_finite();
        if !finite {
            return Err(LawError::BadInput(format!(
                "body {name}: inverse mass, inverse inertia and r must be finite"
            )));
        }
        if body.inverse_mass < 0.0 {
            return Err(LawError::BadInput(format!(
                "body {name}: inverse mass {} 1/kg is negative",
                body.inverse_mass
            )));
        }
        if max_abs(&(ii - ii.transpose())) > 1e-9 * max_abs(&ii) {
            return Err(LawError::BadInput(format!(
                "body {name}: inverse inertia {ii} is not symmetric"
            )));
        }
        // [r]× as a matrix: [r]× x = r × x.
        let rx = DMat3::from_cols(
            DVec3::new(0.0, body.r.z, -body.r.y),
            DVec3::new(-body.r.z, 0.0, body.r.x),
            DVec3::new(body.r.y, -body.r.x, 0.0),
        );
        // (L1): m⁻¹ I₃ − [r]× I⁻¹ [r]×.
        k_world += DMat3::from_diagonal(DVec3::splat(body.inverse_mass)) - rx * ii * rx;
    }
    let r = frame.rotation();
    check_collision_matrix(&(r.transpose() * k_world * r))
}

/// K checked finite, symmetric (to 1e-10 of its largest entry) and positive definite (Cholesky
/// pivots above 1e-14 of the largest diagonal entry); returned exactly symmetrized.
pub fn check_collision_matrix(k: &DMat3) -> Result<DMat3, LawError> {
    if !k.to_cols_array().iter().all(|v| v.is_finite()) {
        return Err(LawError::BadInput(format!(
            "collision matrix {k} is not finite"
        )));
    }
    let scale = max_abs(k);
    if max_abs(&(*k - k.transpose())) > 1e-10 * scale {
        return Err(LawError::NotPositiveDefinite(format!(
            "{k} is not symmetric"
        )));
    }
    let ks = (*k + k.transpose()) * 0.5;
    // Cholesky: K = L Lᵀ; every pivot must be clearly positive.
    let dmax = (0..3).map(|i| at(&ks, i, i)).fold(0.0, f64::max);
    let mut l = [[0.0f64; 3]; 3];
    for j in 0..3 {
        let d = at(&ks, j, j) - l[j][..j].iter().map(|v| v * v).sum::<f64>();
        if d.is_nan() || d <= 1e-14 * dmax {
            return Err(LawError::NotPositiveDefinite(format!(
                "{k}: Cholesky pivot {j} is {d:e} (largest diagonal entry {dmax:e})"
            )));
        }
        l[j][j] = d.sqrt();
        for i in j + 1..3 {
            let s = at(&ks, i, j) - (0..j).map(|m| l[i][m] * l[j][m]).sum::<f64>();
            l[i][j] = s / l[j][j];
        }
    }
    Ok(ks)
}

/// The tangential block K_tt (2×2, rows/cols t1, t2) as (k11, k12, k22).
fn tangential_block(k: &DMat3) -> (f64, f64, f64) {
    (at(k, 0, 0), at(k, 0, 1), at(k, 1, 1))
}

/// K_tn: the tangential part of K's normal column.
fn tangential_coupling(k: &DMat3) -> DVec2 {
    DVec2::new(at(k, 0, 2), at(k, 1, 2))
}

/// K_tt x.
fn ktt_mul(k: &DMat3, x: DVec2) -> DVec2 {
    let (k11, k12, k22) = tangential_block(k);
    DVec2::new(k11 * x.x + k12 * x.y, k12 * x.x + k22 * x.y)
}

/// K_tt⁻¹ x (K_tt is SPD when K is).
fn ktt_solve(k: &DMat3, x: DVec2) -> DVec2 {
    let (k11, k12, k22) = tangential_block(k);
    let det = k11 * k22 - k12 * k12;
    DVec2::new((k22 * x.x - k12 * x.y) / det, (k11 * x.y - k12 * x.x) / det)
}

// ---------------------------------------------------------------------------------------------
// Sticking test and slip rays
// ---------------------------------------------------------------------------------------------

/// Whether sticking, once reached, lasts (L6).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StickingTest {
    /// f* = −K_tt⁻¹ K_tn: tangential impulse per unit normal impulse that keeps u_t = 0.
    pub friction_rate: DVec2,
    /// |f*|: the friction coefficient sticking needs (dimensionless).
    pub required_friction: f64,
    /// |f*| ≤ μ.
    pub stable: bool,
}

/// The sticking test (L6) for collision matrix `k` (contact frame, assumed SPD) and friction `mu`.
pub fn sticking_test(k: &DMat3, mu: f64) -> StickingTest {
    let f = -ktt_solve(k, tangential_coupling(k));
    let required = f.length();
    StickingTest {
        friction_rate: f,
        required_friction: required,
        stable: required <= mu,
    }
}

/// How a diverging ray was found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RayMethod {
    /// The root of the quartic (L8) with λ > 0.
    Quartic,
    /// |(μK_tt + λI)⁻¹K_tn| = 1 by bisection (no quartic root had λ > 0 after round-off).
    Secular,
}

/// An invariant slip direction of the sliding flow (L7).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ray {
    /// Unit slip direction ŝ in the tangent plane (t1, t2).
    pub direction: DVec2,
    /// λ = ŝ·F(ŝ) = d|u_t|/dP_n along the ray (1/kg): > 0 diverging, < 0 converging.
    pub rate: f64,
}

/// g(θ) = ŝ⊥·F(ŝ) and its derivative, ŝ = (cos θ, sin θ) (the ray condition of (L7)).
fn ray_condition(k: &DMat3, mu: f64, theta: f64) -> (f64, f64) {
    let (k11, k12, k22) = tangential_block(k);
    let c = tangential_coupling(k);
    let d = 0.5 * (k22 - k11);
    let (s, co) = theta.sin_cos();
    let (s2, c2) = (2.0 * theta).sin_cos();
    let g = c.y * co - c.x * s - mu * (d * s2 + k12 * c2);
    let dg = -c.y * s - c.x * co - mu * (2.0 * d * c2 - 2.0 * k12 * s2);
    (g, dg)
}

/// λ = ŝ·F(ŝ), F(ŝ) = K_tn − μ K_tt ŝ.
fn ray_rate(k: &DMat3, mu: f64, s: DVec2) -> f64 {
    s.dot(tangential_coupling(k) - mu * ktt_mul(k, s))
}

/// Every invariant slip direction (L7) of K and μ, from the real roots of the quartic (L8), in
/// increasing angle from t1. The tangent frame is first turned by an angle θ₀ (the sample of
/// g(θ) farthest from zero, opposite t = ∞) so that no root sits at t = ∞. Roots are found by
/// bisection between the real roots of the derivative (recursively down to a quadratic), then
/// polished by Newton on g(θ); double roots (a ray where two merge, measure zero) can be missed.
pub fn slip_rays(k: &DMat3, mu: f64) -> Vec<Ray> {
    // θ₀: put the largest |g| among 16 sample angles at t = ∞.
    let samples = 16;
    let mut best = (0.0, -1.0);
    for j in 0..samples {
        let phi = std::f64::consts::TAU * j as f64 / samples as f64;
        let g = ray_condition(k, mu, phi).0.abs();
        if g > best.1 {
            best = (phi, g);
        }
    }
    let theta0 = best.0 - std::f64::consts::PI;
    // (L8) in the frame turned by θ₀: K_tn' = Rᵀ K_tn, K_tt' = Rᵀ K_tt R.
    let (sn, cs) = theta0.sin_cos();
    let (k11, k12, k22) = tangential_block(k);
    let kt = tangential_coupling(k);
    let a = cs * kt.x + sn * kt.y;
    let b = -sn * kt.x + cs * kt.y;
    let r11 = cs * cs * k11 + 2.0 * cs * sn * k12 + sn * sn * k22;
    let r22 = sn * sn * k11 - 2.0 * cs * sn * k12 + cs * cs * k22;
    let r12 = (k22 - k11) * cs * sn + k12 * (cs * cs - sn * sn);
    let d = 0.5 * (r22 - r11);
    let coeffs = [
        b - mu * r12,
        -2.0 * a - 4.0 * mu * d,
        6.0 * mu * r12,
        -2.0 * a + 4.0 * mu * d,
        -b - mu * r12,
    ];
    let mut thetas: Vec<f64> = real_roots(&coeffs)
        .into_iter()
        .map(|t| {
            // Newton polish on g(θ): keep only steps that reduce |g|.
            let mut th = theta0 + 2.0 * t.atan();
            for _ in 0..4 {
                let (g, dg) = ray_condition(k, mu, th);
                if dg == 0.0 {
                    break;
                }
                let next = th - g / dg;
                if ray_condition(k, mu, next).0.abs() < g.abs() {
                    th = next;
                } else {
                    break;
                }
            }
            th.rem_euclid(std::f64::consts::TAU)
        })
        .collect();
    thetas.sort_by(f64::total_cmp);
    thetas.dedup_by(|x, y| (*x - *y).abs() < 1e-12);
    thetas
        .into_iter()
        .map(|th| {
            let s = DVec2::new(th.cos(), th.sin());
            Ray {
                direction: s,
                rate: ray_rate(k, mu, s),
            }
        })
        .collect()
}

/// The direction the slip leaves zero in when sticking is unstable (s. 39): the unique
/// diverging ray (λ > 0) of (L7), with the method that found it. Errors when sticking is stable
/// (no ray diverges) or `mu` is not positive and finite.
pub fn diverging_ray(k: &DMat3, mu: f64) -> Result<(Ray, RayMethod), LawError> {
    let k = check_collision_matrix(k)?;
    if !(mu.is_finite() && mu > 0.0) {
        return Err(LawError::BadInput(format!(
            "friction coefficient {mu} must be positive and finite for a diverging ray"
        )));
    }
    let test = sticking_test(&k, mu);
    if test.stable {
        return Err(LawError::BadInput(format!(
            "sticking is stable (needs friction {} ≤ μ = {mu}): no ray diverges",
            test.required_friction
        )));
    }
    let best = slip_rays(&k, mu)
        .into_iter()
        .filter(|r| r.rate > 0.0)
        .max_by(|a, b| a.rate.total_cmp(&b.rate));
    if let Some(r) = best {
        return Ok((r, RayMethod::Quartic));
    }
    Ok((secular_ray(&k, mu), RayMethod::Secular))
}

/// The diverging ray from |ŝ(λ)| = 1, ŝ(λ) = (μK_tt + λI)⁻¹K_tn, decreasing in λ > 0 (see the
/// module notes): bisection to adjacent doubles. Only called when sticking is unstable.
fn secular_ray(k: &DMat3, mu: f64) -> Ray {
    let (k11, k12, k22) = tangential_block(k);
    let kt = tangential_coupling(k);
    let s_of = |lam: f64| {
        let (m11, m12, m22) = (mu * k11 + lam, mu * k12, mu * k22 + lam);
        let det = m11 * m22 - m12 * m12;
        DVec2::new(
            (m22 * kt.x - m12 * kt.y) / det,
            (m11 * kt.y - m12 * kt.x) / det,
        )
    };
    // |ŝ(λ)| ≤ |K_tn| / λ (μK_tt ⪰ 0), so λ = |K_tn| brackets the root from above.
    let (mut lo, mut hi) = (0.0, kt.length().max(f64::MIN_POSITIVE));
    for _ in 0..2000 {
        let mid = 0.5 * (lo + hi);
        if mid <= lo || mid >= hi {
            break;
        }
        if s_of(mid).length() > 1.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let s = s_of(hi).normalize_or_zero();
    Ray {
        direction: s,
        rate: ray_rate(k, mu, s),
    }
}

/// Real roots of Σ c[i] tⁱ (degree ≤ 4, c[last] ≠ 0), ascending. Between consecutive real roots
/// of the derivative the polynomial is monotone: each sign change there is bisected to adjacent
/// doubles. The roots lie within Cauchy's bound 1 + max |c[i]/c[n]|.
fn real_roots(c: &[f64]) -> Vec<f64> {
    let mut n = c.len() - 1;
    while n > 0 && c[n] == 0.0 {
        n -= 1;
    }
    if n == 0 {
        return Vec::new();
    }
    let c = &c[..=n];
    let eval = |t: f64| c.iter().rev().fold(0.0, |acc, &ci| acc * t + ci);
    let bound = 1.0
        + c[..n]
            .iter()
            .map(|ci| (ci / c[n]).abs())
            .fold(0.0, f64::max);
    let deriv: Vec<f64> = (1..=n).map(|i| i as f64 * c[i]).collect();
    let mut knots = vec![-bound];
    knots.extend(real_roots(&deriv).into_iter().filter(|t| t.abs() < bound));
    knots.push(bound);
    let mut roots = Vec::new();
    for w in knots.windows(2) {
        let (mut lo, mut hi) = (w[0], w[1]);
        let (glo, ghi) = (eval(lo), eval(hi));
        if glo == 0.0 {
            roots.push(lo);
            continue;
        }
        if glo * ghi > 0.0 {
            continue;
        }
        let rising = ghi > glo;
        loop {
            let mid = 0.5 * (lo + hi);
            if mid <= lo || mid >= hi {
                break;
            }
            if (eval(mid) < 0.0) == rising {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        roots.push(if eval(lo).abs() <= eval(hi).abs() {
            lo
        } else {
            hi
        });
    }
    if eval(bound) == 0.0 {
        roots.push(bound);
    }
    roots.dedup();
    roots
}

// ---------------------------------------------------------------------------------------------
// Laws and records
// ---------------------------------------------------------------------------------------------

/// A collision law.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Law {
    /// Kinematic restitution (L4a), integrated with friction.
    Newton,
    /// Kinetic restitution (L4b), integrated with friction.
    Poisson,
    /// Energetic restitution (L4c), integrated with friction.
    Stronge,
    /// Frictionless Newton impulse, then a slip-stopping tangential impulse clamped to the cone.
    AlgebraicNewton,
}

impl Law {
    /// Every law, in this order.
    pub const ALL: [Law; 4] = [
        Law::Newton,
        Law::Poisson,
        Law::Stronge,
        Law::AlgebraicNewton,
    ];

    /// Lower-case name: `newton`, `poisson`, `stronge`, `algebraic-newton`.
    pub fn name(self) -> &'static str {
        match self {
            Law::Newton => "newton",
            Law::Poisson => "poisson",
            Law::Stronge => "stronge",
            Law::AlgebraicNewton => "algebraic-newton",
        }
    }

    /// The law named `name` (see [`Law::name`]).
    pub fn by_name(name: &str) -> Option<Law> {
        Law::ALL.into_iter().find(|l| l.name() == name)
    }
}

impl fmt::Display for Law {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// How a piece of the impulse path was computed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SegmentKind {
    /// μ = 0 or the algebraic law's normal impulse: P_t constant.
    Frictionless,
    /// Sliding, integrated (rotating slip direction).
    SlidingIntegrated,
    /// Sliding along an invariant ray: straight line (L9).
    SlidingStraight,
    /// Stable sticking, closed form: f = f* (L6).
    Sticking,
    /// After unstable sticking: sliding out along the diverging ray, straight line.
    LeavingAlongRay,
    /// The algebraic law's tangential impulse (P_n constant).
    TangentialCorrection,
}

/// A piece of the impulse path, from `start` to `end` (contact-frame impulses, N s).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Segment {
    pub kind: SegmentKind,
    pub start: DVec3,
    pub end: DVec3,
}

/// Where and how the slip stopped.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Stick {
    /// P_n at which the slip reached zero (N s); 0 when the collision started without slip.
    pub normal_impulse: f64,
    /// The sticking test (L6) there.
    pub test: StickingTest,
    /// When unstable: the diverging ray the slip left along, and how it was found.
    pub ray: Option<(Ray, RayMethod)>,
}

/// The result of one collision.
#[derive(Clone, Debug, PartialEq)]
pub struct Collision {
    pub law: Law,
    /// Total impulse P = (P_t1, P_t2, P_n) on B (−P on A), contact frame (N s).
    pub impulse: DVec3,
    /// Relative contact velocity after the collision, u₀ + K P, contact frame (m/s).
    pub velocity: DVec3,
    /// P_n at (first) maximum compression, u_n = 0 (N s).
    pub compression_impulse: f64,
    /// W_n at maximum compression (J, ≤ 0).
    pub compression_work: f64,
    /// W_n(end) − W_n(compression) (J).
    pub restitution_work: f64,
    /// ΔT − W_n: the friction work W_t (J, ≤ 0 for the integrated laws).
    pub friction_work: f64,
    /// ΔT = Pᵀu₀ + ½PᵀKP (L5) (J).
    pub energy_change: f64,
    /// Whether and where the slip stopped (integrated laws). For the algebraic law: Some when its
    /// tangential impulse was inside the cone, at the final P_n, with `test.friction_rate` =
    /// P_t/P_n and `test.required_friction` = |P_t|/P_n of that impulse.
    pub stick: Option<Stick>,
    /// Unit slip direction (t1, t2) at the end; None when the contact ends without slip.
    pub exit_slip: Option<DVec2>,
    /// The impulse path, in order.
    pub segments: Vec<Segment>,
    /// Accepted Runge–Kutta steps (0 when every piece was closed form).
    pub steps: usize,
    /// u_n went below zero again after maximum compression.
    pub recompressed: bool,
    /// Poisson's target was met with u_n < 0 and the integration went on to u_n = 0.
    pub extended_to_separation: bool,
}

/// `law` with the default [`IntegrationOptions`]; see [`collide`].
pub fn newton(k: &DMat3, u0: DVec3, mu: f64, e: f64) -> Result<Collision, LawError> {
    collide(Law::Newton, k, u0, mu, e, &IntegrationOptions::default())
}

/// Poisson's law with the default options; see [`collide`].
pub fn poisson(k: &DMat3, u0: DVec3, mu: f64, e: f64) -> Result<Collision, LawError> {
    collide(Law::Poisson, k, u0, mu, e, &IntegrationOptions::default())
}

/// Stronge's law with the default options; see [`collide`].
pub fn stronge(k: &DMat3, u0: DVec3, mu: f64, e: f64) -> Result<Collision, LawError> {
    collide(Law::Stronge, k, u0, mu, e, &IntegrationOptions::default())
}

/// The algebraic Newton + clamped Coulomb impulse; see [`collide`].
pub fn algebraic_newton(k: &DMat3, u0: DVec3, mu: f64, e: f64) -> Result<Collision, LawError> {
    collide(
        Law::AlgebraicNewton,
        k,
        u0,
        mu,
        e,
        &IntegrationOptions::default(),
    )
}

/// Resolve one collision with `law`: `k` the collision matrix (contact frame, SPD, 1/kg), `u0`
/// the relative contact velocity before impact (contact frame, m/s, u0.z < 0: approaching), `mu`
/// ≥ 0 the Coulomb friction coefficient, `e` ∈ [0, 1] the law's coefficient of restitution.
pub fn collide(
    law: Law,
    k: &DMat3,
    u0: DVec3,
    mu: f64,
    e: f64,
    options: &IntegrationOptions,
) -> Result<Collision, LawError> {
    let k = check_collision_matrix(k)?;
    if !u0.is_finite() {
        return Err(LawError::BadInput(format!(
            "pre-impact velocity {u0} is not finite"
        )));
    }
    if u0.z >= 0.0 {
        return Err(LawError::BadInput(format!(
            "pre-impact normal velocity u0·n = {} m/s is not negative: the bodies do not approach",
            u0.z
        )));
    }
    if !(mu.is_finite() && mu >= 0.0) {
        return Err(LawError::BadInput(format!(
            "friction coefficient μ = {mu} must be finite and ≥ 0"
        )));
    }
    if !((0.0..=1.0).contains(&e)) {
        return Err(LawError::BadInput(format!(
            "coefficient of restitution e = {e} must be in [0, 1]"
        )));
    }
    if !(options.tolerance >= 1e-14 && options.tolerance <= 1e-2) || options.max_steps == 0 {
        return Err(LawError::BadInput(format!(
            "integration tolerance {} must be in [1e-14, 1e-2] and max_steps positive",
            options.tolerance
        )));
    }
    match law {
        Law::AlgebraicNewton => Ok(algebraic(&k, u0, mu, e)),
        _ => Path::new(law, k, u0, mu, e, *options).run(),
    }
}

/// ΔT (L5).
fn energy_change(k: &DMat3, u0: DVec3, p: DVec3) -> f64 {
    p.dot(u0) + 0.5 * p.dot(*k * p)
}

/// The algebraic Newton + clamped Coulomb impulse (module notes).
fn algebraic(k: &DMat3, u0: DVec3, mu: f64, e: f64) -> Collision {
    let knn = at(k, 2, 2);
    let pc = -u0.z / knn;
    let pn = (1.0 + e) * pc;
    let p1 = DVec3::new(0.0, 0.0, pn);
    let u1 = u0 + *k * p1;
    let mut pt = -ktt_solve(k, DVec2::new(u1.x, u1.y));
    let unclamped = pt.length();
    let clamped = unclamped > mu * pn;
    if clamped {
        pt *= mu * pn / unclamped;
    }
    let p = DVec3::new(pt.x, pt.y, pn);
    let u = u0 + *k * p;
    let de = energy_change(k, u0, p);
    // The normal stage alone: W_c = −u_n0²/(2K_nn), W_r = e² u_n0²/(2K_nn).
    let wc = -u0.z * u0.z / (2.0 * knn);
    let wr = e * e * u0.z * u0.z / (2.0 * knn);
    let ut = DVec2::new(u.x, u.y);
    let slip_floor =
        64.0 * f64::EPSILON * (u0.abs().element_sum() + max_abs(k) * p.abs().element_sum());
    Collision {
        law: Law::AlgebraicNewton,
        impulse: p,
        velocity: u,
        compression_impulse: pc,
        compression_work: wc,
        restitution_work: wr,
        friction_work: de - wc - wr,
        energy_change: de,
        stick: (!clamped && mu > 0.0).then(|| Stick {
            normal_impulse: pn,
            test: StickingTest {
                friction_rate: pt / pn,
                required_friction: unclamped / pn,
                stable: true,
            },
            ray: None,
        }),
        exit_slip: (ut.length() > slip_floor).then(|| ut.normalize()),
        segments: vec![
            Segment {
                kind: SegmentKind::Frictionless,
                start: DVec3::ZERO,
                end: p1,
            },
            Segment {
                kind: SegmentKind::TangentialCorrection,
                start: p1,
                end: p,
            },
        ],
        steps: 0,
        recompressed: false,
        extended_to_separation: false,
    }
}

// ---------------------------------------------------------------------------------------------
// The integration
// ---------------------------------------------------------------------------------------------

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    Compression,
    Restitution,
    /// Poisson's target met with u_n < 0: on to u_n = 0.
    Extension,
}

/// What ended a straight segment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Event {
    SlipStop,
    CompressionEnd,
    Target,
}

/// The friction rate chosen once the slip stopped: for the rest of the collision.
#[derive(Clone, Copy, Debug)]
struct Locked {
    friction: DVec2,
    kind: SegmentKind,
    /// The diverging ray when unstable.
    slip: Option<DVec2>,
}

// Dormand–Prince 5(4) (Dormand & Prince 1980): nodes, stages and the two weight rows.
const DP_C: [f64; 7] = [0.0, 1.0 / 5.0, 3.0 / 10.0, 4.0 / 5.0, 8.0 / 9.0, 1.0, 1.0];
const DP_A: [[f64; 6]; 7] = [
    [0.0; 6],
    [1.0 / 5.0, 0.0, 0.0, 0.0, 0.0, 0.0],
    [3.0 / 40.0, 9.0 / 40.0, 0.0, 0.0, 0.0, 0.0],
    [44.0 / 45.0, -56.0 / 15.0, 32.0 / 9.0, 0.0, 0.0, 0.0],
    [
        19372.0 / 6561.0,
        -25360.0 / 2187.0,
        64448.0 / 6561.0,
        -212.0 / 729.0,
        0.0,
        0.0,
    ],
    [
        9017.0 / 3168.0,
        -355.0 / 33.0,
        46732.0 / 5247.0,
        49.0 / 176.0,
        -5103.0 / 18656.0,
        0.0,
    ],
    [
        35.0 / 384.0,
        0.0,
        500.0 / 1113.0,
        125.0 / 192.0,
        -2187.0 / 6784.0,
        11.0 / 84.0,
    ],
];
/// 5th-order weights (= the last stage row: first same as last).
const DP_B: [f64; 7] = [
    35.0 / 384.0,
    0.0,
    500.0 / 1113.0,
    125.0 / 192.0,
    -2187.0 / 6784.0,
    11.0 / 84.0,
    0.0,
];
/// 4th-order weights.
const DP_BS: [f64; 7] = [
    5179.0 / 57600.0,
    0.0,
    7571.0 / 16695.0,
    393.0 / 640.0,
    -92097.0 / 339200.0,
    187.0 / 2100.0,
    1.0 / 40.0,
];

/// Integration state: P = (P_t1, P_t2, P_n) and W_n, with the phase bookkeeping.
struct Path {
    law: Law,
    k: DMat3,
    u0: DVec3,
    mu: f64,
    e: f64,
    options: IntegrationOptions,
    /// |u₀| (m/s) and Π = |u₀| / K_nn (N s): the scales of the error norm.
    v_scale: f64,
    p_scale: f64,
    p: DVec3,
    w: f64,
    phase: Phase,
    compression: Option<(f64, f64)>,
    done: bool,
    slip_stopped: bool,
    locked: Option<Locked>,
    stick: Option<Stick>,
    segments: Vec<Segment>,
    steps: usize,
    h: f64,
    recompressed: bool,
    extended: bool,
}

impl Path {
    fn new(law: Law, k: DMat3, u0: DVec3, mu: f64, e: f64, options: IntegrationOptions) -> Self {
        let v_scale = u0.length();
        let p_scale = v_scale / at(&k, 2, 2);
        Path {
            law,
            k,
            u0,
            mu,
            e,
            options,
            v_scale,
            p_scale,
            p: DVec3::ZERO,
            w: 0.0,
            phase: Phase::Compression,
            compression: None,
            done: false,
            slip_stopped: false,
            locked: None,
            stick: None,
            segments: Vec::new(),
            steps: 0,
            h: 0.05 * p_scale,
            recompressed: false,
            extended: false,
        }
    }

    fn velocity_at(&self, p: DVec3) -> DVec3 {
        self.u0 + self.k * p
    }

    fn velocity(&self) -> DVec3 {
        self.velocity_at(self.p)
    }

    /// Round-off level of u_t = u₀ + K P: below it the slip counts as zero.
    fn slip_floor(&self) -> f64 {
        64.0 * f64::EPSILON
            * (self.u0.abs().element_sum() + max_abs(&self.k) * self.p.abs().element_sum())
    }

    fn fail(&self, why: impl Into<String>) -> LawError {
        LawError::IntegrationFailed {
            normal_impulse: self.p.z,
            steps: self.steps,
            why: why.into(),
        }
    }

    /// Record the path from `start` to the current P as a `kind` segment (merged with the
    /// previous one when of the same kind).
    fn record(&mut self, kind: SegmentKind, start: DVec3) {
        match self.segments.last_mut() {
            Some(last) if last.kind == kind && last.end == start => last.end = self.p,
            _ => self.segments.push(Segment {
                kind,
                start,
                end: self.p,
            }),
        }
    }

    fn end_compression(&mut self) {
        self.compression = Some((self.p.z, self.w));
        self.phase = Phase::Restitution;
        self.done = false;
    }

    /// (P_c, W_c), known once compression ended.
    fn pc_wc(&self) -> (f64, f64) {
        self.compression.unwrap_or((0.0, 0.0))
    }

    /// Restitution's end reached, by value (the events also set `done`).
    fn target_met(&self) -> bool {
        let (pc, wc) = self.pc_wc();
        let u = self.velocity();
        self.done
            || match (self.phase, self.law) {
                (Phase::Compression, _) => false,
                (Phase::Extension, _) => u.z >= 0.0,
                (_, Law::Newton) => u.z >= -self.e * self.u0.z,
                (_, Law::Poisson) => self.p.z >= (1.0 + self.e) * pc,
                (_, Law::Stronge) => self.w >= (1.0 - self.e * self.e) * wc,
                (_, Law::AlgebraicNewton) => true,
            }
    }

    fn run(mut self) -> Result<Collision, LawError> {
        let mut iterations = 0usize;
        loop {
            iterations += 1;
            if iterations > 4 * self.options.max_steps + 64 {
                return Err(self.fail("too many segments"));
            }
            if self.phase == Phase::Compression && self.velocity().z >= 0.0 {
                self.end_compression();
            }
            if self.phase != Phase::Compression && self.velocity().z < -self.slip_floor() {
                self.recompressed = true;
            }
            if self.phase != Phase::Compression && self.target_met() {
                if self.law == Law::Poisson
                    && self.phase == Phase::Restitution
                    && self.velocity().z < 0.0
                {
                    self.phase = Phase::Extension;
                    self.extended = true;
                    self.done = false;
                    continue;
                }
                break;
            }
            if self.mu == 0.0 {
                self.straight(DVec2::ZERO, None, SegmentKind::Frictionless)?;
                continue;
            }
            if let Some(l) = self.locked {
                self.straight(l.friction, l.slip, l.kind)?;
                continue;
            }
            let u = self.velocity();
            let ut = DVec2::new(u.x, u.y);
            let rho = ut.length();
            if self.slip_stopped || rho <= self.slip_floor() {
                self.stick_here()?;
                continue;
            }
            let s = ut / rho;
            let kt = tangential_coupling(&self.k);
            let (k11, k12, k22) = tangential_block(&self.k);
            let along = kt - self.mu * ktt_mul(&self.k, s);
            let across = DVec2::new(-s.y, s.x).dot(along);
            let size = kt.length() + self.mu * (k11.abs() + 2.0 * k12.abs() + k22.abs());
            if self.options.straight_rays && across.abs() <= 64.0 * f64::EPSILON * size {
                self.straight(-self.mu * s, Some(s), SegmentKind::SlidingStraight)?;
            } else {
                self.rk_step()?;
            }
        }
        Ok(self.finish())
    }

    /// The slip reached zero: test sticking (L6), pick the friction rate for the rest.
    fn stick_here(&mut self) -> Result<(), LawError> {
        let test = sticking_test(&self.k, self.mu);
        let (locked, ray) = if test.stable {
            (
                Locked {
                    friction: test.friction_rate,
                    kind: SegmentKind::Sticking,
                    slip: None,
                },
                None,
            )
        } else {
            // A near-marginal ray (|f*| ≈ μ) may come with λ ≈ 0 of either sign: the slip then
            // stays at round-off level, which is the physical limit.
            let (ray, method) = diverging_ray(&self.k, self.mu)?;
            (
                Locked {
                    friction: -self.mu * ray.direction,
                    kind: SegmentKind::LeavingAlongRay,
                    slip: Some(ray.direction),
                },
                Some((ray, method)),
            )
        };
        self.stick = Some(Stick {
            normal_impulse: self.p.z,
            test,
            ray,
        });
        self.locked = Some(locked);
        Ok(())
    }

    /// One straight segment (L9) with constant friction rate `f`, to the first event: the slip
    /// stopping (when sliding along `slip` with λ < 0 and not yet locked), the end of
    /// compression, or the law's target.
    fn straight(
        &mut self,
        f: DVec2,
        slip: Option<DVec2>,
        kind: SegmentKind,
    ) -> Result<(), LawError> {
        let q = DVec3::new(f.x, f.y, 1.0);
        let d = self.k * q;
        let u = self.velocity();
        let mut best: Option<(f64, Event)> = None;
        let mut offer = |x: f64, ev: Event| {
            if x.is_finite() && x >= 0.0 && best.is_none_or(|(b, _)| x < b) {
                best = Some((x, ev));
            }
        };
        if let (Some(s), None) = (slip, self.locked) {
            let lam = s.dot(DVec2::new(d.x, d.y));
            if lam < 0.0 {
                offer(DVec2::new(u.x, u.y).length() / -lam, Event::SlipStop);
            }
        }
        let (pc, wc) = self.pc_wc();
        match (self.phase, self.law) {
            (Phase::Compression, _) | (Phase::Extension, _) => {
                if d.z > 0.0 {
                    let ev = if self.phase == Phase::Compression {
                        Event::CompressionEnd
                    } else {
                        Event::Target
                    };
                    offer((-u.z / d.z).max(0.0), ev);
                }
            }
            (_, Law::Newton) => {
                if d.z > 0.0 {
                    offer(((-self.e * self.u0.z - u.z) / d.z).max(0.0), Event::Target);
                }
            }
            (_, Law::Poisson) => offer(((1.0 + self.e) * pc - self.p.z).max(0.0), Event::Target),
            (_, Law::Stronge) => {
                // W_n + u_n x + ½ d_n x² = (1 − e²) W_c: smallest x ≥ 0, in the cancellation-free
                // form x = 2D / (u_n + √(u_n² + 2 d_n D)), D = target − W_n ≥ 0.
                let gap = ((1.0 - self.e * self.e) * wc - self.w).max(0.0);
                let disc = u.z * u.z + 2.0 * d.z * gap;
                if gap == 0.0 {
                    offer(0.0, Event::Target);
                } else if disc >= 0.0 && u.z + disc.sqrt() > 0.0 {
                    offer(2.0 * gap / (u.z + disc.sqrt()), Event::Target);
                }
            }
            (_, Law::AlgebraicNewton) => offer(0.0, Event::Target),
        }
        let Some((x, ev)) = best else {
            return Err(self.fail(format!(
                "no event ahead on a straight segment (friction rate {f}, du/dP_n = {d})"
            )));
        };
        let start = self.p;
        self.w += u.z * x + 0.5 * d.z * x * x;
        self.p += q * x;
        if ev == Event::Target && self.law == Law::Poisson && self.phase == Phase::Restitution {
            // Land exactly on (L4b).
            self.p.z = (1.0 + self.e) * pc;
        }
        self.record(kind, start);
        match ev {
            Event::SlipStop => self.slip_stopped = true,
            Event::CompressionEnd => self.end_compression(),
            Event::Target => self.done = true,
        }
        Ok(())
    }

    /// dy/dP_n for y = (P_t1, P_t2, W_n) at normal impulse `pn` (L2, L3).
    fn rhs(&self, pn: f64, y: [f64; 3]) -> [f64; 3] {
        let u = self.velocity_at(DVec3::new(y[0], y[1], pn));
        let s = DVec2::new(u.x, u.y).normalize_or_zero();
        [-self.mu * s.x, -self.mu * s.y, u.z]
    }

    /// One Dormand–Prince step of length h from (pn, y): the 5th-order solution and the
    /// difference to the 4th-order one.
    fn dp_step(&self, pn: f64, y: [f64; 3], h: f64) -> ([f64; 3], [f64; 3]) {
        let mut ks = [[0.0f64; 3]; 7];
        for i in 0..7 {
            let mut yi = y;
            for (j, kj) in ks.iter().enumerate().take(i) {
                for c in 0..3 {
                    yi[c] += h * DP_A[i][j] * kj[c];
                }
            }
            ks[i] = self.rhs(pn + DP_C[i] * h, yi);
        }
        let mut y5 = y;
        let mut err = [0.0; 3];
        for (i, ki) in ks.iter().enumerate() {
            for c in 0..3 {
                y5[c] += h * DP_B[i] * ki[c];
                err[c] += h * (DP_B[i] - DP_BS[i]) * ki[c];
            }
        }
        (y5, err)
    }

    /// The error norm of a step relative to the tolerance (≤ 1: accept).
    fn error_norm(&self, err: [f64; 3]) -> f64 {
        let pt = err[0].hypot(err[1]) / (self.mu * self.p_scale);
        let w = err[2].abs() / (self.v_scale * self.p_scale);
        pt.max(w) / self.options.tolerance
    }

    /// The event function of the current phase at (pn, y): crossing from < 0 to ≥ 0 ends the
    /// phase. None when the phase has no state event (Poisson's target is a parameter value).
    fn event_value(&self, pn: f64, y: [f64; 3]) -> Option<f64> {
        let un = self.velocity_at(DVec3::new(y[0], y[1], pn)).z;
        let (_, wc) = self.pc_wc();
        match (self.phase, self.law) {
            (Phase::Compression, _) | (Phase::Extension, _) => Some(un),
            (_, Law::Newton) => Some(un + self.e * self.u0.z),
            (_, Law::Stronge) => Some(y[2] - (1.0 - self.e * self.e) * wc),
            _ => None,
        }
    }

    /// One accepted Runge–Kutta step of the sliding phase (shortened to an event inside it).
    fn rk_step(&mut self) -> Result<(), LawError> {
        let pn = self.p.z;
        let y = [self.p.x, self.p.y, self.w];
        let u = self.velocity();
        let ut = DVec2::new(u.x, u.y);
        let rho = ut.length();
        let s0 = ut / rho;
        // In polar form u_t = ρ(cos θ, sin θ) the flow is dρ/dP_n = R(θ), dθ/dP_n = g(θ)/ρ, with
        // g(θ) = ŝ⊥·F(ŝ) the ray condition of (L7) and R = ŝ·F(ŝ). Near zero slip the angle is
        // stiff: it relaxes onto an attracting ray at the rate |g'(θ)|/ρ. An explicit step
        // longer than that is unstable, and the 5(4) estimate can then be fooled into a
        // chattering pseudo-equilibrium that never reaches zero. So each step is limited to
        // h ≤ ρ / (5|g| + 1.5|g'| + |R⁻|/0.9): a turn of at most ~0.2 rad, h|g'|/ρ ≤ 2/3 (well
        // inside the method's stability interval, ≈ 3.3), and 0.9 of the distance to zero slip.
        let theta = s0.y.atan2(s0.x);
        let (g, dg) = ray_condition(&self.k, self.mu, theta);
        let radial = ray_rate(&self.k, self.mu, s0);
        // Steps below a few ulps of P_n cannot move it.
        let h_min = 16.0 * f64::EPSILON * pn.abs() + f64::MIN_POSITIVE;
        let mut h_max = rho / (5.0 * g.abs() + 1.5 * dg.abs() + radial.min(0.0).abs() / 0.9);
        if h_max <= h_min {
            // The slip is within what P_n can resolve of zero: it has stopped.
            self.slip_stopped = true;
            return Ok(());
        }
        // Once the direction has settled onto an attracting (g' < 0) converging (λ < 0) ray θ*,
        // finish along the ray (L9): snap when the slip across the ray, ρ |θ − θ*|, is at the
        // round-off level of u_t, so the straight segment ends at zero slip to round-off and the
        // friction impulse left, μ ρ/|λ|, is off by μ ρ |θ − θ*| / |λ| at most. (Near such a ray
        // θ − θ* shrinks like ρ^(g'/λ); the more strongly it attracts, the stiffer the angle and
        // the sooner the snap.)
        if dg < 0.0 && g.abs() <= 0.01 * dg.abs() {
            let mut star = theta;
            for _ in 0..6 {
                let (gs, dgs) = ray_condition(&self.k, self.mu, star);
                if dgs == 0.0 {
                    break;
                }
                star -= gs / dgs;
            }
            let ray = DVec2::new(star.cos(), star.sin());
            let lam = ray_rate(&self.k, self.mu, ray);
            let (gs, dgs) = ray_condition(&self.k, self.mu, star);
            let settled = (star - theta).abs() <= 0.01
                && dgs < 0.0
                && gs.abs() <= 64.0 * f64::EPSILON * (dgs.abs() + lam.abs())
                && lam < 0.0
                && rho * (star - theta).abs() <= self.slip_floor();
            if settled {
                return self.straight(-self.mu * ray, Some(ray), SegmentKind::SlidingIntegrated);
            }
        }
        let poisson_end = self.law == Law::Poisson && self.phase == Phase::Restitution;
        let to_target = (1.0 + self.e) * self.pc_wc().0 - pn;
        if poisson_end {
            h_max = h_max.min(to_target);
        }
        let mut h = self.h.min(h_max);
        let g0 = self.event_value(pn, y);
        loop {
            if h < h_min {
                return Err(self.fail(format!(
                    "step size {h:e} N s below {h_min:e} (slip {rho:e} m/s)"
                )));
            }
            let (y1, err) = self.dp_step(pn, y, h);
            let norm = self.error_norm(err);
            let u1 = self.velocity_at(DVec3::new(y1[0], y1[1], pn + h));
            let turned = DVec2::new(u1.x, u1.y).dot(s0) < 0.0;
            if norm.is_nan() || norm > 1.0 || turned {
                let shrink = if norm.is_finite() {
                    (0.9 * norm.powf(-0.2)).clamp(0.2, 0.9)
                } else {
                    0.2
                };
                h *= if turned { 0.5f64.min(shrink) } else { shrink };
                continue;
            }
            let grow = if norm > 0.0 {
                (0.9 * norm.powf(-0.2)).clamp(0.2, 5.0)
            } else {
                5.0
            };
            let start = self.p;
            let g1 = self.event_value(pn + h, y1);
            let (h_used, y_used, event) = match (g0, g1) {
                (Some(a), Some(b)) if a < 0.0 && b >= 0.0 => {
                    let (hs, ys) = self.locate(pn, y, h, a, b);
                    (hs, ys, true)
                }
                _ => (h, y1, poisson_end && h >= to_target),
            };
            self.p = DVec3::new(y_used[0], y_used[1], pn + h_used);
            if event && poisson_end {
                self.p.z = (1.0 + self.e) * self.pc_wc().0;
            }
            self.w = y_used[2];
            self.steps += 1;
            self.h = h * grow;
            self.record(SegmentKind::SlidingIntegrated, start);
            if event {
                if self.phase == Phase::Compression {
                    self.end_compression();
                } else {
                    self.done = true;
                }
            }
            if self.steps > self.options.max_steps {
                return Err(self.fail(format!("more than {} steps", self.options.max_steps)));
            }
            return Ok(());
        }
    }

    /// The step length in (0, h] where the event function crosses zero (Illinois regula falsi on
    /// the step length; each trial is one Runge–Kutta step from the same start). Returns the
    /// bracket's upper end, where the function is ≥ 0.
    fn locate(&self, pn: f64, y: [f64; 3], h: f64, g_lo: f64, g_hi: f64) -> (f64, [f64; 3]) {
        let (mut lo, mut hi) = (0.0, h);
        let (mut glo, mut ghi) = (g_lo, g_hi);
        let mut y_hi = self.dp_step(pn, y, h).0;
        let mut side = 0i8;
        for _ in 0..200 {
            if hi - lo <= 4.0 * f64::EPSILON * (pn + hi) || ghi == 0.0 {
                break;
            }
            let mut x = hi - ghi * (hi - lo) / (ghi - glo);
            if !(x > lo && x < hi) {
                x = 0.5 * (lo + hi);
            }
            let yx = self.dp_step(pn, y, x).0;
            let gx = self.event_value(pn + x, yx).unwrap_or(0.0);
            if gx >= 0.0 {
                hi = x;
                ghi = gx;
                y_hi = yx;
                if side == 1 {
                    glo *= 0.5;
                }
                side = 1;
            } else {
                lo = x;
                glo = gx;
                if side == -1 {
                    ghi *= 0.5;
                }
                side = -1;
            }
        }
        (hi, y_hi)
    }

    fn finish(self) -> Collision {
        let u = self.velocity();
        let (pc, wc) = self.pc_wc();
        let de = energy_change(&self.k, self.u0, self.p);
        let ut = DVec2::new(u.x, u.y);
        let stuck = self.locked.is_some_and(|l| l.kind == SegmentKind::Sticking)
            || (self.mu > 0.0 && self.locked.is_none() && self.slip_stopped);
        Collision {
            law: self.law,
            impulse: self.p,
            velocity: u,
            compression_impulse: pc,
            compression_work: wc,
            restitution_work: self.w - wc,
            friction_work: de - self.w,
            energy_change: de,
            stick: self.stick,
            // Sticking at the end: no slip (u_t is then zero to round-off or, when the slip was
            // found stopped at the resolution of P_n, to a few ulps of P_n times ‖K‖).
            exit_slip: (!stuck && ut.length() > self.slip_floor()).then(|| ut.normalize()),
            segments: self.segments,
            steps: self.steps,
            recompressed: self.recompressed,
            extended_to_separation: self.extended,
        }
    }
}
