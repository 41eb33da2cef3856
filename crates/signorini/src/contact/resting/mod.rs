//! Resting contact at the acceleration level: Baraff's contact-force LCP (Baraff 1994, "Fast
//! contact force computation for nonpenetrating rigid bodies"; slides "Rigid Body Dynamics (II)",
//! slides 2 and 8–15), with Coulomb friction.
//!
//! This is a component, not a [`ContactModel`](super::ContactModel): an impulse-based model first
//! resolves the colliding contacts with impulses, then calls [`resting_forces`] for the forces that
//! keep the remaining (resting) contacts from accelerating into each other (slide 15's loop:
//! `applyImpulses` until nothing collides, then `solveLCP(restingC)`).
//!
//! # Classification (slide 2)
//!
//! Only contacts with gap ψ ≤ `gap_tolerance` touch; the others (and contacts between two fixed
//! bodies) are [`ContactClass::Apart`]. A touching contact with relative normal velocity
//!
//! ```text
//!   v_n = (v_B(p_b) − v_A(p_a))·n                                             (R1)
//! ```
//!
//! is separating when v_n > ε_v (no force), colliding when v_n < −ε_v (excluded from the LCP and
//! listed: the caller must apply impulses first) and resting when |v_n| ≤ ε_v (in the LCP).
//!
//! # Normal acceleration (slides 8–10)
//!
//! For a resting contact the separation d(t) = (p_b(t) − p_a(t))·n(t), with p_a, p_b material
//! points of A and B, has (Baraff's course notes "Rigid body simulation II: nonpenetration
//! constraints", the d̈ formula; A and B swapped to this crate's normal from A to B)
//!
//! ```text
//!   d̈ = n·(p̈_b − p̈_a) + 2 ṅ·(ṗ_b − ṗ_a) + (p_b − p_a)·n̈                      (R2)
//!   p̈ = a + α × r + ω × (ω × r),   r = p − x (x the centre of mass)           (R3)
//! ```
//!
//! This is exact for polyhedral features, whose contact points are material points (a vertex, or
//! any point of an edge or face: n is normal to the feature). A sphere's contact point
//! P = c ∓ r n slides over its surface as it rolls, so for a sphere side (R2) is taken of the true
//! gap with P in place of the material point: n·P̈_b = n·c̈_b + r_b |ṅ|², Ṗ_b = ċ_b − r_b ṅ on B
//! (signs flipped on A), c̈ from (R3) at the centre. (Material points there would add the
//! spurious r |ω × n − ṅ|²: a ball rolling fast on a floor would seem to lift off.)
//!
//! The last term of (R2) vanishes at ψ = 0 and is dropped (its size is |ψ| |ṅ|², below
//! `gap_tolerance` × |ω|²). The body accelerations (a, α) are affine in the contact forces, so the
//! normal accelerations of the resting contacts are (slide 9)
//!
//! ```text
//!   a_n = A f + b,   A = G_n M⁻¹ G_nᵀ (`delassus`),                            (R4)
//!   b   = (R2) evaluated with the applied wrenches, gravity and the gyroscopic term −ω × Jω
//!         and no contact force (`integrate::accelerations`), velocity products included,
//! ```
//!
//! and the forces solve the LCP (slides 9–10; Baraff 1994)
//!
//! ```text
//!   0 ≤ f ⊥ a_n = A f + b ≥ 0.                                                (R5)
//! ```
//!
//! ṅ depends on which body carries the normal:
//! - a half-space piece, or a face parallel to the contact plane (the contact's feature is that
//!   face, or a vertex or edge next to it, as for points clipped on a face's side): n turns with
//!   that body, ṅ = ω_owner × n. When both sides carry such a face (face–face contact) the first
//!   match wins, A before B; the choice changes b by 2 ((ω_B − ω_A) × n)·v_rel, which vanishes
//!   for a contact that is resting and sticking.
//! - edge–edge: n = s (e_a × e_b)/|e_a × e_b| with ė = ω × e, so
//!   ṅ = s (I − n nᵀ) u̇ / |u|, u = e_a × e_b, u̇ = ė_a × e_b + e_a × ė_b.
//! - a sphere against a sphere, vertex or edge: n is along w = (I − e eᵀ)(c − p₀) (c the sphere's
//!   centre, p₀ the other centre, the vertex or a point of the edge, e the unit edge direction or
//!   0), ṅ = ±(I − n nᵀ) ẇ / |w| with ẇ = (I − e eᵀ)(ċ − ṗ₀) − ė (e·(c − p₀)) − e (ė·(c − p₀)).
//! - anything else (polytope vertex–vertex or vertex–edge, where the normal is the direction
//!   between two touching points and is not defined at ψ = 0): ṅ ≈ 0, and the contact is listed
//!   in [`RestingForces::approximate_normal_rate`].
//!
//! # Friction
//!
//! μ is `Material::pair_friction` of the two bodies' materials. With the tangential slip
//! v_t = v_rel − v_n n:
//!
//! - sticking (|v_t| ≤ ε_t): the polyhedral cone of k directions d_j (`cone::directions`) with the
//!   Stewart–Trinkle σ rows at the acceleration level (β ≥ 0 the friction force components, σ ≥ 0
//!   the magnitude of the tangential acceleration once the contact starts to slip):
//!
//!   ```text
//!     0 ≤ β_c ⊥ D_cᵀ a + e σ_c ≥ 0,     0 ≤ σ_c ⊥ μ_c f_c − eᵀ β_c ≥ 0          (R6)
//!   ```
//!
//!   with D_cᵀ a = A_tn f + A_tt β + b_t, b_t = d_j·(p̈_b − p̈_a) at zero contact force. The velocity
//!   product of the tangent directions (ḋ_j·v_rel) is dropped: v_rel is within (ε_v, ε_t) of zero
//!   for a resting sticking contact. The cone rows use material points for spheres too, so for
//!   a rolling sphere they miss the terms of the contact point's motion over the surfaces. The
//!   LCP in z = (f, β, σ) has the matrix of `stewart_trinkle` (there in impulses, here in
//!   forces):
//!
//!   ```text
//!     M = [ A_nn  A_nt  0 ]     q = [ b_n ]
//!         [ A_tn  A_tt  E ]         [ b_t ]                                       (R7)
//!         [ μ     −Eᵀ   0 ]         [ 0   ]
//!   ```
//!
//!   The polyhedral cone is an inner approximation of Coulomb's: the friction force may reach only
//!   μ f cos(π/k) in directions halfway between two d_j (exact along each d_j).
//! - sliding (|v_t| > ε_t): Coulomb's law fixes the friction force on B to −μ f t̂, t̂ = v_t/|v_t|
//!   (and its opposite on A). It is folded into the normal column: the generalized force of contact
//!   c is f_c (G_n,c − μ_c G_t̂,c)ᵀ, so column c of (R7) becomes
//!
//!   ```text
//!     M[:, c] = W[:, n_c] − μ_c W[:, t̂_c],   W = G M⁻¹ Gᵀ over the rows (n, D, t̂)   (R8)
//!   ```
//!
//!   and M is no longer symmetric (Baraff 1994 treats dynamic friction this way; Drumwright, "A
//!   fast and stable penalty method for rigid body simulation", §II-B: "the matrix A generally
//!   becomes non-symmetric and nonpositive definite").
//!
//! # When there is no solution (Painlevé)
//!
//! Without sliding contacts M is copositive-plus (zᵀ M z = |Gᵀ(f, β)|²_{M⁻¹} + μ σ f ≥ 0), so
//! Lemke's method finds a solution whenever one exists. With sliding friction (R8) the diagonal
//! entry of a sliding contact, G_n M⁻¹ (G_n − μ G_t̂)ᵀ, can be negative. A thin rod of mass m
//! leaning at θ from the ground on its lower end, sliding towards the side away from its centre
//! of mass, has m A = 1 + 3 cos²θ − 3 μ sinθ cosθ, negative for μ > (1 + 3 cos²θ)/(3 sinθ cosθ)
//! (μ > 1.35 at θ = 60°): then a_n = A f + b < 0 for every f ≥ 0 when b < 0 (Painlevé's paradox:
//! the configuration is inconsistent and only an impulse, not a force, can resolve it), and there
//! are two solutions (f = 0 and f = −b/A) when b > 0. No solution: every solver fails and
//! [`resting_forces`] returns [`RestingError::NotSolved`] with each solver's status and residual
//! and the number of sliding contacts; it never returns forces that miss the tolerance. (Lemke
//! may also end on a ray for such a non-copositive M when a solution does exist; the next solver
//! in the list then gets its turn.)
//!
//! Options beyond Baraff (`RestingOptions`, off by default; the `impulse` model's global loop
//! turns them on): Baumgarte's drift terms on the normal and cone rows (`stabilization_time`,
//! `max_recovery_speed`: (R2) becomes b_n + 2 v_n/τ + ψ̃/τ², and a point being pushed out stays
//! resting up to `separation_speed`); a warm start from the last answer's active set
//! ([`resting_forces_from`], `RestingContact::solve_warm`); and a `degraded_tolerance` under
//! which the best answer of failed solvers is still used, reported failed. Answers are accepted on
//! the row-wise relative residual (`solvers::relative_residual`).
//!
//! Units: SI. Forces in N, accelerations in m/s², velocities in m/s, gaps in m.
//!
//! # Files
//!
//! The steps of [`resting_forces`], one file each:
//!
//! - `options.rs`: [`RestingOptions`], the tolerances of (R1) and the cone size k of (R6).
//! - `validate.rs`: input checks.
//! - `kinematics.rs`: v_rel (R1), the point accelerations (R3) and d̈ (R2) with the sphere terms
//!   n·P̈ = n·c̈ ± r |ṅ|², Ṗ = ċ ∓ r ṅ.
//! - `normal_rate.rs`: ṅ by the geometry that carries the normal (half-space or face, edge–edge,
//!   sphere against a sphere, vertex or edge).
//! - `classify.rs`: [`ContactClass`], the classification (R1) and μ of the resting contacts.
//! - `lcp.rs`: the rows of G, b (R2), (R6), A = W = G M⁻¹ Gᵀ (R4) and the matrix of (R7).
//! - `friction.rs`: the cone complementarity rows (R6), (R7), the sliding columns (R8) and the
//!   friction forces read back from the solution.
//! - `solve.rs`: the solvers in turn on (R5), then the solution mapped back to forces and wrenches.
//! - `forces.rs`: the driver [`resting_forces`] and its answer [`RestingForces`].
//! - `error.rs`: [`SolveAttempt`], [`RestingError`].
//! - `component.rs`: [`RestingContact`] (options and solver list), [`solvers_by_name`],
//!   [`DEFAULT_SOLVERS`].
mod classify;
mod component;
mod error;
mod forces;
mod friction;
mod kinematics;
mod lcp;
mod normal_rate;
mod options;
mod solve;
mod validate;

pub use classify::ContactClass;
pub use component::{solvers_by_name, RestingContact, DEFAULT_SOLVERS};
pub use error::{RestingError, SolveAttempt};
pub use forces::{resting_forces, resting_forces_from, RestingForces, WarmStart};
pub use options::RestingOptions;
