//! Post-step position projection of the velocity-level models (`projection = "post-step"`):
//! overlaps the step's linearization left are removed by moving positions, not velocities.
//!
//! # Why
//!
//! A velocity-level step (Stewart–Trinkle, Anitescu–Potra, the convex relaxation) keeps each
//! contact's *linearized* end gap ψ + h J ν⁺ non-negative. A point of a body turning at ω
//! leaves that straight path by up to ½ r ω² h² over the step (1.6e-4 m for r = 0.2 m at
//! 20 rad/s and h = 2 ms), so a landing box's corner ends a few tenths of a millimetre inside
//! the box below although every row of the step held (`docs/collision.md`, "Near features":
//! `bin_64` under `stewart-trinkle`, 0.3–0.5 mm). The next step's position term takes it back,
//! but the overlap was there.
//!
//! # What
//!
//! Post-stabilization (M. B. Cline and D. K. Pai, "Post-stabilization for rigid body simulation
//! with contact and constraints", ICRA 2003, §3 and §5: one projection onto the constraint
//! manifold after the step, positions only, with the unilateral contacts as inequalities). At
//! the end of the step, when some contact is deeper than the `tolerance` τ but not deeper than
//! c = v_max h, the smallest displacement δ = (δx, δθ) per body in the metric of the mass matrix
//! that restores every contact of the islands involved, to first order:
//!
//! ```text
//!   minimise ½ δᵀ M δ   subject to   ψ_i + J_i δ ≥ floor_i  for every contact i of those islands,
//!   floor_i = −s where ψ_i ≥ −c,  ψ_i where ψ_i < −c,   s = OVERLAP_SLOP (1e-10 m)
//!   (min(ψ_i, −s) for a contact of a recovering pair, below)
//! ```
//!
//! (J_i the contact's normal Jacobian row, M = diag(m, R I Rᵀ) per body: the convex program of
//! `solvers::convex` with ν* = 0). Its KKT conditions are the position-level LCP of Cline and Pai
//! (their eq. 11 with W = J M⁻¹ Jᵀ). Then x ← x + δx and q ← exp(δθ) q; the contacts are detected
//! again, and a second projection runs if the first one's linearization left one deeper than τ.
//!
//! Departures and rules:
//! - **Bounded** (issue 16, item 5): an overlap deeper than c = v_max h (`max_recovery_speed`,
//!   0.5 m/s by default: 1 mm at h = 2 ms) is older than the step's linearization can make it
//!   (½ r ω² h² is 1.6e-4 m at 20 rad/s), and so is any overlap of a pair that had one deeper
//!   than c at the start of the step (a *recovering* pair): the model's velocity-level position
//!   term is removing it at v_max. The projection does not pull those out, only keeps them from
//!   going deeper (floor_i = min(ψ_i, −s)), so a body started deep in the ground is neither
//!   launched nor teleported and its overlap shrinks at v_max to the end (the last step's
//!   remainder, below c, goes by the position term too). With `recovery = "full"` c = ∞.
//! - **Contacts already within the slop** s are not touched (their floor is below their gap):
//!   the round-off overlaps of a resting pile (of order 1e-12 m) are left to the step, as
//!   `time_stepping::OVERLAP_SLOP` explains; a pile at rest never triggers a projection.
//! - **Velocities are not changed** (Cline and Pai project positions only; a velocity projection
//!   would remove kinetic energy the step computed). The projected bodies' kinetic energy is
//!   unchanged; their potential energy changes by m g·δx (a lift of ≤ c per step).
//! - A projection whose solve misses its tolerance is not applied, and the step reports it
//!   (`ProjectionReport::failed`).
use crate::collision::Contact;
use crate::contact::PositionProjection;
use crate::dynamics::jacobian::{body_mass_block, contact_row, JacobianRow};
use crate::dynamics::{Model, State};
use crate::solvers::convex::{self, ConvexOptions, ConvexProblem};
use crate::util::disjoint::DisjointSets;
use glam::{DQuat, DVec3};
use nalgebra::Matrix6;

/// Projections a step may run (the second corrects the first one's linearization).
pub const PASSES: usize = 8;

/// What the projection did in one step (all zero when nothing was deeper than its tolerance).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ProjectionReport {
    /// Projections solved and applied (0, 1 or 2).
    pub passes: usize,
    /// Deepest overlap at the end of the step before the projection (m, ≥ 0).
    pub depth_before: f64,
    /// Contact rows of the largest projection.
    pub rows: usize,
    /// Bodies it moved.
    pub bodies: usize,
    /// Largest displacement of a body's centre (m).
    pub max_shift: f64,
    /// A projection's solve missed its tolerance: it was not applied.
    pub failed: bool,
}

impl ProjectionReport {
    /// Fold a later pass of the same step into this one (the first pass's depth stands).
    pub fn add(&mut self, pass: &ProjectionReport) {
        if self.passes == 0 && !self.failed {
            self.depth_before = pass.depth_before;
        }
        self.passes += pass.passes;
        self.rows = self.rows.max(pass.rows);
        self.bodies = self.bodies.max(pass.bodies);
        self.max_shift = self.max_shift.max(pass.max_shift);
        self.failed |= pass.failed;
    }
}

/// The deepest overlap among `contacts` (m, ≥ 0).
pub fn deepest(contacts: &[Contact]) -> f64 {
    contacts.iter().map(|c| -c.gap).fold(0.0, f64::max)
}

/// The body pairs (A < B) that have a contact deeper than v_max h among `contacts` (the
/// contacts at the start of a step): the pairs the step's position term is recovering, sorted.
pub fn recovering_pairs(
    contacts: &[Contact],
    settings: &PositionProjection,
    h: f64,
    out: &mut Vec<(usize, usize)>,
) {
    let reach = settings.max_recovery_speed * h;
    out.clear();
    out.extend(contacts.iter().filter(|c| -c.gap > reach).map(pair));
    out.sort_unstable();
    out.dedup();
}

fn pair(c: &Contact) -> (usize, usize) {
    (c.body_a.min(c.body_b), c.body_a.max(c.body_b))
}

/// What the projection does with one contact of the end-of-step state.
struct Rule<'a> {
    tolerance: f64,
    /// c = v_max h (m).
    reach: f64,
    slop: f64,
    /// [`recovering_pairs`] of the step's start.
    recovering: &'a [(usize, usize)],
}

impl Rule<'_> {
    fn recovering(&self, c: &Contact) -> bool {
        !self.recovering.is_empty() && self.recovering.binary_search(&pair(c)).is_ok()
    }

    /// Does the projection remove this contact's overlap: deeper than the tolerance, not deeper
    /// than c, not a recovering pair's?
    fn fixable(&self, c: &Contact) -> bool {
        -c.gap > self.tolerance && -c.gap <= self.reach && !self.recovering(c)
    }

    /// The gap (m) the contact must keep after the projection, to first order.
    fn floor(&self, c: &Contact) -> f64 {
        if -c.gap > self.reach || self.recovering(c) {
            c.gap.min(-self.slop)
        } else {
            -self.slop
        }
    }
}

/// One projection of `state` against `contacts` (detected at `state`) for a step of length `h`
/// whose start had the `recovering` pairs ([`recovering_pairs`]); returns its size, or `None`
/// when no contact is for it to remove. Leaves `state` unchanged when the solve fails (`Some`
/// with `failed`).
pub fn project(
    model: &Model,
    state: &mut State,
    contacts: &[Contact],
    settings: &PositionProjection,
    h: f64,
    recovering: &[(usize, usize)],
) -> Option<ProjectionReport> {
    let depth = deepest(contacts);
    let rule = Rule {
        tolerance: settings.tolerance,
        reach: settings.max_recovery_speed * h,
        slop: settings.slop,
        recovering,
    };
    if !contacts.iter().any(|c| rule.fixable(c)) {
        return None;
    }
    let system = ProjectionSystem::new(model, state, contacts, &rule);
    let mut report = ProjectionReport {
        depth_before: depth,
        rows: system.rows.len(),
        bodies: system.bodies.len(),
        ..Default::default()
    };
    let free = vec![0.0; 6 * system.bodies.len()];
    let problem = ConvexProblem {
        mass: &system.mass,
        free_velocity: &free,
        rows: &system.rows,
        bias: &system.bias,
    };
    let solve = convex::solve(&problem, None, &ConvexOptions::default());
    if !solve.status.is_solved() {
        report.failed = true;
        return Some(report);
    }
    for (node, &body) in system.bodies.iter().enumerate() {
        let d = &solve.velocity[6 * node..6 * node + 6];
        let (shift, turn) = (DVec3::new(d[0], d[1], d[2]), DVec3::new(d[3], d[4], d[5]));
        let b = &mut state.bodies[body];
        b.position += shift;
        b.orientation = (DQuat::from_scaled_axis(turn) * b.orientation).normalize();
        report.max_shift = report.max_shift.max(shift.length());
    }
    report.passes = 1;
    Some(report)
}

/// The projection's convex program over the islands (bodies joined by contacts; fixed bodies
/// join nothing) that hold a contact the projection removes ([`Rule::fixable`]).
struct ProjectionSystem {
    /// The moved bodies, in order of first appearance in `contacts` (node k ↔ offset 6 k).
    bodies: Vec<usize>,
    /// M_k = diag(m, m, m, R I Rᵀ) (kg, kg m²).
    mass: Vec<Matrix6<f64>>,
    /// J_i: the normal rows, in node offsets.
    rows: Vec<JacobianRow>,
    /// ψ_i − floor_i (m): g_i(δ) = J_i δ + bias_i ≥ 0.
    bias: Vec<f64>,
}

impl ProjectionSystem {
    fn new(model: &Model, state: &State, contacts: &[Contact], rule: &Rule) -> Self {
        let dynamic = |b: usize| !model.bodies[b].fixed;
        let mut islands = DisjointSets::new(model.bodies.len());
        for c in contacts
            .iter()
            .filter(|c| dynamic(c.body_a) && dynamic(c.body_b))
        {
            islands.union(c.body_a, c.body_b);
        }
        let island_of = |islands: &mut DisjointSets, c: &Contact| {
            let b = if dynamic(c.body_a) {
                c.body_a
            } else {
                c.body_b
            };
            islands.root(b)
        };
        let mut violated = vec![false; model.bodies.len()];
        for c in contacts.iter().filter(|c| rule.fixable(c)) {
            if dynamic(c.body_a) || dynamic(c.body_b) {
                let root = island_of(&mut islands, c);
                violated[root] = true;
            }
        }
        let mut offsets: Vec<Option<usize>> = vec![None; model.bodies.len()];
        let mut system = ProjectionSystem {
            bodies: Vec::new(),
            mass: Vec::new(),
            rows: Vec::new(),
            bias: Vec::new(),
        };
        for c in contacts {
            if !(dynamic(c.body_a) || dynamic(c.body_b)) || !violated[island_of(&mut islands, c)] {
                continue;
            }
            for b in [c.body_a, c.body_b].into_iter().filter(|&b| dynamic(b)) {
                if offsets[b].is_none() {
                    offsets[b] = Some(6 * system.bodies.len());
                    system.bodies.push(b);
                    system.mass.push(body_mass_block(model, state, b));
                }
            }
            let floor = rule.floor(c);
            system.rows.push(contact_row(
                model,
                state,
                &offsets,
                (c.body_a, c.point_a),
                (c.body_b, c.point_b),
                c.normal,
            ));
            system.bias.push(c.gap - floor);
        }
        system
    }
}
