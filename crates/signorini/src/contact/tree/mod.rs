//! Contact of an articulated tree (`multibody::Tree`) with a ground half-space, issue 18 item 2:
//! contact points of the links' collision shapes (`ground.rs`), their Jacobians in generalized
//! coordinates (`ground::point_jacobian`), and the models that step a tree with them:
//!
//! - `penalty.rs`: a spring–damper normal force with regularized Coulomb friction at every
//!   contact point (the multi-point penalty of Drumwright 2008, Section III, without its
//!   integral term), τ = Jᵀ f taken linearly implicitly in v (H + h Jᵀ D J + h² Jᵀ K J), joint
//!   limits as unilateral rows of a small LCP with that matrix;
//! - `lcp.rs`: Stewart–Trinkle's velocity-level LCP (1996, eqs. 21–23, as
//!   `contact::stewart_trinkle` poses it for free bodies) with the joint-space mass matrix H of
//!   CRBA in place of M: W = J H⁻¹ Jᵀ, H factored once a step; joint limits are unilateral rows
//!   of the same LCP; `anitescu-potra` and `anitescu-convex` (Anitescu's relaxation) too;
//! - `peg.rs`: PEG (Williams, Lu & Trinkle 2016) in the same step: a pair of polytope shapes
//!   on two links takes PEG's grouped constraints of potential contacts, the rest is
//!   `lcp.rs`'s LCP;
//! - `impulse.rs`: sequential impulses of the collision laws with Mirtich's articulated
//!   collision matrix, one pass a step;
//! - `hybrid.rs`: Drumwright's hybrid, impulses for impacts and penalty for resting contact.
//!
//! Conventions are the tree's (docs/multibody.md): v per joint, a floating joint's v in link
//! axes. Units SI throughout. Layering: uses `multibody`, `geometry`, `collision` (the narrow
//! phase, PEG's potential contacts), `solvers`, `contact::time_stepping` and the free models'
//! laws and rules (`contact::impulse::law`, `contact::peg::primary_member`); nothing of the free
//! bodies' pipeline.
pub mod ground;
pub mod hybrid;
pub mod impulse;
pub mod lcp;
pub mod pairs;
pub mod params;
pub mod peg;
pub mod penalty;

pub use ground::{ground_contacts, point_jacobian, Ground, GroundContact, LinkShape};
pub use hybrid::{TreeHybrid, TreeHybridParams, HYBRID_PARAMS};
pub use impulse::{TreeImpulse, TreeImpulseParams, IMPULSE_PARAMS};
pub use lcp::{TreeLcp, TreeLcpParams};
pub use pairs::{candidate_pairs, link_contacts, LinkContact, Touch};
pub use params::{TreeParamSpec, LCP_PARAMS, PENALTY_PARAMS};
pub use penalty::{PenaltyLaw, TreePenalty, TreePenaltyParams};

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
    /// Joint-limit rows in the LCP (penalty: in its limit LCP).
    pub limit_rows: usize,
    /// Unknowns of the step's LCP (penalty: of its limit LCP; 0 without one).
    pub lcp_rows: usize,
    /// `peg`: the slack members of its constraints (rows c of its LCP, the members of a group
    /// besides its primary); 0 for the other models.
    pub slack_rows: usize,
    /// The scaled residual of the LCP's answer (0 without one).
    pub residual: f64,
    /// The solver whose answer was used ("" without an LCP).
    pub solver: &'static str,
    /// Its iterations or pivots (0 without an LCP).
    pub iterations: usize,
    /// No solver met the tolerance and the answer of smallest residual was used
    /// (`on_failure = "continue"`; under "stop" the step is an error instead).
    pub failed: bool,
}

impl TreeStepStats {
    /// The solve of an LCP of `rows` unknowns reported by `report`: its rows, residual,
    /// solver, iterations and failure.
    pub(super) fn solved(&mut self, rows: usize, report: &crate::contact::SolveReport) {
        self.lcp_rows = rows;
        self.residual = report.residual;
        self.solver = report.solver;
        self.iterations = report.iterations;
        self.failed = report.failed;
    }
}
