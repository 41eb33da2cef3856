//! Contact of an articulated tree (`multibody::Tree`) with a ground half-space, issue 18 item 2:
//! contact points of the links' collision shapes (`ground.rs`), their Jacobians in generalized
//! coordinates (`ground::point_jacobian`), and two models that step a tree with them:
//!
//! - `penalty.rs`: a spring–damper normal force with regularized Coulomb friction at every
//!   contact point, applied as τ = Jᵀ f and integrated by the tree's integrator (the
//!   multi-point penalty of Drumwright 2008, Section III, without its integral term);
//! - `lcp.rs`: Stewart–Trinkle's velocity-level LCP (1996, eqs. 21–23, as
//!   `contact::stewart_trinkle` poses it for free bodies) with the joint-space mass matrix H of
//!   CRBA in place of M: W = J H⁻¹ Jᵀ, H factored once a step; joint limits are unilateral rows
//!   of the same LCP.
//!
//! Conventions are the tree's (docs/multibody.md): v per joint, a floating joint's v in link
//! axes. Units SI throughout. Layering: uses `multibody`, `geometry`, `solvers` and
//! `contact::time_stepping`; nothing of the free bodies' pipeline.
pub mod ground;
pub mod lcp;
pub mod penalty;

pub use ground::{ground_contacts, point_jacobian, Ground, GroundContact, LinkShape};
pub use lcp::{TreeLcp, TreeLcpParams};
pub use penalty::{TreePenalty, TreePenaltyParams};

/// What one contact step of a tree reports.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TreeStepStats {
    /// Contact points within the model's reach (penalty: penetrating; LCP: within the
    /// activation distance).
    pub contacts: usize,
    /// Contact points that penetrate the ground (gap < 0) at the start of the step.
    pub penetrating: usize,
    /// The deepest penetration at the start of the step (m, ≥ 0).
    pub max_penetration: f64,
    /// Joint-limit rows in the LCP (0 for penalty).
    pub limit_rows: usize,
    /// Unknowns of the step's LCP (0 for penalty).
    pub lcp_rows: usize,
    /// The scaled residual of the LCP's answer (0 for penalty).
    pub residual: f64,
}
