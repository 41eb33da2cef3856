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
    /// t_s (s): a resting frictional contact also sticks when its slip is one that friction
    /// under its own weight stops within t_s, |v_t| ≤ μ |g| t_s: the LCP then holds it on the
    /// friction cone (which lets it slide again if the cone saturates), and with the drift
    /// stabilization on its cone rows ask the slip to stop within t_s (d·u/t_s instead of d·u/τ). An impulse loop passes its time step: a slip
    /// that would stop within the step is not an event to cut the step at. 0 (the default): only
    /// `slip_tolerance`.
    pub stick_time: f64,
    /// k ≥ 3, directions of the polyhedral friction cone (`cone::directions`). Default 4 (two
    /// opposite pairs along the tangent basis).
    pub friction_directions: usize,
    /// Options passed to every LCP solver. A solve counts only when its row-wise relative residual
    /// (`solvers::relative_residual`) is at most `lcp.tolerance`; default tolerance 1e-10.
    pub lcp: Options,
    /// When no solver meets `lcp.tolerance`, the finite answer with the smallest relative
    /// residual is still used if that residual is at most this; the solve is then reported
    /// `failed`, with its residual. 0 (the default): never — the solve is an error
    /// ([`RestingError::NotSolved`](super::RestingError::NotSolved)).
    pub degraded_tolerance: f64,
    /// The LCP is solved per contact island (bodies joined by resting contacts). true: an island
    /// that no solver solves (within `degraded_tolerance`) gets no force, reported failed, and
    /// the other islands keep theirs. false (the default): its
    /// [`RestingError::NotSolved`](super::RestingError::NotSolved) is the answer.
    pub skip_unsolved_islands: bool,
    /// τ (s) of the drift stabilization (Baumgarte 1972): the normal rows ask a_n + 2 v_n/τ +
    /// min(ψ, 0)/τ² ≥ 0 and the cone rows hold the slip's acceleration at −u_t/τ, so a resting
    /// contact's velocity and overlap errors decay like a critically damped spring of period 2πτ
    /// instead of accumulating. 0 (the default): off, Baraff's a_n ≥ 0 exactly.
    pub stabilization_time: f64,
    /// v_max (m/s) of the stabilization: the overlap it corrects is bounded, ψ̃ = max(min(ψ, 0),
    /// −v_max τ), so an overlap is pushed out at about v_max/e at most (the critically damped
    /// response to ψ̃ from rest peaks at ψ̃/(τ e)), not launched. Default 0.5 m/s, the
    /// time-stepping models' `max_recovery_speed`.
    pub max_recovery_speed: f64,
}

impl RestingOptions {
    /// The overlap the stabilization corrects, ψ̃ = max(min(ψ, 0), −v_max τ) (m, ≤ 0); 0 when
    /// it is off.
    pub fn corrected_overlap(&self, gap: f64) -> f64 {
        if self.stabilization_time > 0.0 {
            gap.min(0.0)
                .max(-self.max_recovery_speed * self.stabilization_time)
        } else {
            0.0
        }
    }

    /// The normal speed (m/s) above which a touching contact separates: ε_v, and while the
    /// stabilization pushes an overlap out, twice the speed it may ask, ε_v + 2|ψ̃|/τ (a contact
    /// being pushed out stays in the LCP until it is out).
    pub fn separation_speed(&self, gap: f64) -> f64 {
        let push = if self.stabilization_time > 0.0 {
            -2.0 * self.corrected_overlap(gap) / self.stabilization_time
        } else {
            0.0
        };
        self.velocity_tolerance + push
    }
}

impl Default for RestingOptions {
    fn default() -> Self {
        RestingOptions {
            gap_tolerance: 1e-4,
            velocity_tolerance: 1e-4,
            slip_tolerance: 1e-4,
            stick_time: 0.0,
            friction_directions: 4,
            lcp: Options {
                tolerance: 1e-10,
                max_iterations: 200,
                max_pivots: 10_000,
                relaxation: 1.0,
            },
            degraded_tolerance: 0.0,
            skip_unsolved_islands: false,
            stabilization_time: 0.0,
            max_recovery_speed: crate::contact::penalty::MAX_RECOVERY_SPEED,
        }
    }
}
