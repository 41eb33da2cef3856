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
//!
//! # Files
//!
//! - `error.rs`: [`LawError`].
//! - `collision_matrix.rs`: [`ContactFrame`], [`BodyAtContact`], the collision matrix (L1)
//!   ([`collision_matrix`], [`check_collision_matrix`]) and its tangential blocks.
//! - `sticking.rs`: the sticking test (L6) and the slip rays (L7, L8) ([`sticking_test`],
//!   [`slip_rays`], [`diverging_ray`]).
//! - `records.rs`: the laws ([`Law`]) and the record of a collision ([`Collision`], [`Segment`],
//!   [`Stick`]).
//! - `collide.rs`: the entry point [`collide`] and the shorthands [`newton`], [`poisson`],
//!   [`stronge`], [`algebraic_newton`].
//! - `algebraic.rs`: the algebraic Newton + Coulomb baseline.
//! - `integration.rs`: the collision integration's state and driver ([`IntegrationOptions`]).
//! - `straight_segment.rs`: closed-form straight segments (L9) to the next event.
//! - `sliding_step.rs`: one adaptive Runge–Kutta step of the sliding flow, with event location
//!   (the Dormand–Prince 5(4) pair itself is [`crate::dynamics::dormand_prince`]).
mod algebraic;
mod collide;
mod collision_matrix;
mod error;
mod integration;
mod records;
mod sliding_step;
mod sticking;
mod straight_segment;

pub use collide::{algebraic_newton, collide, newton, poisson, stronge};
pub use collision_matrix::{check_collision_matrix, collision_matrix, BodyAtContact, ContactFrame};
pub use error::LawError;
pub use integration::IntegrationOptions;
pub use records::{Collision, Law, Segment, SegmentKind, Stick};
pub use sticking::{diverging_ray, slip_rays, sticking_test, Ray, RayMethod, StickingTest};
