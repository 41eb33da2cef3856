//! Settings of the resting-contact solve: the gap, velocity (ε_v) and slip (ε_t) tolerances of the
//! classification (R1), the number of friction-cone directions k of (R6), and the LCP solver
//! options of (R5).
use crate::solvers::Options;

/// Settings of the resting-contact solve.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RestingOptions {
    /// Contacts with gap ψ at most this (m) touch; farther ones get no force. Default 1e-4 m: ten
    /// times below the default activation distance (1e-3 m), so a body hovering at the edge of
    /// detection is not held up, and far above the position drift of an acceleration-level
    /// simulation over a step. Penetrating contacts (ψ < 0) touch; the forces act on
    /// accelerations only and do not push them apart (that is the caller's position correction).
    pub gap_tolerance: f64,
    /// ε_v (m/s): a touching contact is resting when |v_n| ≤ ε_v, separating above, colliding
    /// below −ε_v. Default 1e-4 m/s (a resting contact stays within round-off of v_n = 0 once its
    /// accelerations are held at zero; impulses leave v_n ≥ 0 up to their solver tolerance).
    pub velocity_tolerance: f64,
    /// ε_t (m/s): a resting frictional contact sticks when its tangential slip speed is at most
    /// this, and slides otherwise. Default 1e-4 m/s.
    pub slip_tolerance: f64,
    /// k ≥ 3, directions of the polyhedral friction cone (`cone::directions`). Default 4 (two
    /// opposite pairs along the tangent basis).
    pub friction_directions: usize,
    /// Options passed to every LCP solver. A solve counts only when its scaled natural-map residual
    /// (`solvers::residual`) is at most `lcp.tolerance`; default tolerance 1e-10.
    pub lcp: Options,
}

impl Default for RestingOptions {
    fn default() -> Self {
        RestingOptions {
            gap_tolerance: 1e-4,
            velocity_tolerance: 1e-4,
            slip_tolerance: 1e-4,
            friction_directions: 4,
            lcp: Options {
                tolerance: 1e-10,
                max_iterations: 200,
                max_pivots: 10_000,
                relaxation: 1.0,
            },
        }
    }
}
