//! Linearly implicit Euler for penalty spring–dampers (integrator `implicit-euler`).
//!
//! A penalty model hands its contact forces over as `ForceElement`s (`dynamics::implicit`): a
//! force f⁰ (N) along a unit direction d at a point, acting on body B (−f on A), with its
//! stiffness k (N/m) and damping c (N s/m). With u = J ν the relative velocity of the point
//! along d (J the contact Jacobian row, `jacobian::contact_row`) and the element's stretch
//! shrinking at rate u, the force at the end of a step of length h, linearised about the state (backward Euler on the
//! spring–damper, as MuJoCo's implicit damping and Drake's TAMSI take theirs):
//!
//! ```text
//!   f⁺ = f⁰ − k h u⁺ − c (u⁺ − u⁰)   =   g − D u⁺,    g = f⁰ + c u⁰,   D = k h + c,
//! ```
//!
//! and the velocities at the end of the step solve (semi-implicit Euler with these forces)
//!
//! ```text
//!   (M + h Σ D_i J_iᵀ J_i) ν⁺ = M ν_free + h Σ J_iᵀ g_i,    ν_free = ν + h M⁻¹ F,
//! ```
//!
//! F every other force (gravity, scheduled, the gyroscopic term). The matrix is symmetric
//! positive definite for any h, k, c ≥ 0: a stiff contact is stable at any step, and the
//! step removes at most what the linearised spring asks (backward Euler is L-stable: it damps
//! a spring it cannot resolve instead of amplifying it, as explicit steps do beyond h ω = 2).
//!
//! The laws are piecewise: a normal force never pulls (f = max(0, g − D u)) and a friction
//! pair's force stays in its cone |f_t| ≤ μ f_n⁺. With the cone's radius r = μ f_n held fixed,
//! each law is the projection of its linear (sticking) force w = g − D u onto a convex set C
//! ([0, ∞) for a normal, the disc |f| ≤ r for a friction pair), f = P_C(w), and P_C is the
//! gradient of the convex Φ_C(w) = sup_{f ∈ C} (f·w − |f|²/2). So f = −∂ψ/∂u with
//! ψ(u) = Φ_C(g − D u) / D (the two tangents of a pair share D: `push_friction` gives them the
//! same k and c), and the velocities at the end of the step minimise the strongly convex
//!
//! ```text
//!   E(ν) = ½ (ν − ν_free)ᵀ M (ν − ν_free) + h Σ_i ψ_i(J_i ν),
//!   ∇E   = M (ν − ν_free) − h Σ_i J_iᵀ f_i(J_i ν)            (momentum balance),
//!   ∇²E  = M + h Σ_i J_iᵀ D_i P'_C(w_i) J_i,
//! ```
//!
//! P' = 1 on an active normal (0 off), I₂ on a sticking pair, (r/|w|)(I₂ − ŵŵᵀ) on a sliding
//! one (a damper across the slip). Friction slides by the return map (the sticking force
//! projected onto the cone), so the force opposes the end-of-step slip of a damper and never
//! reverses it.
//!
//! Two phases per island:
//!
//! 1. **Active set** (at most [`MAX_PASSES`] linear solves, the cheap path that settles most
//!    islands): a normal element starts on if it would push, or touch with no force, were the
//!    bodies to move freely (g − D J ν_free ≥ −D [`CONTACT_SPEED_TOLERANCE`]), and after each
//!    solve is on where g − D u⁺ > 0 and off where it would pull (primal–dual); a friction pair
//!    sticks while |w| ≤ μ f_n⁺, else slides as f = s w with s = μ f_n⁺ / |w| of this solve (a
//!    linear law for the next one), updated by a secant step until s settles to
//!    [`SLIDING_TOLERANCE`] = 1e-10 (so a settled set's forces are on their cones to about that).
//! 2. **Convex solve**, when the set has not settled: Newton's method on E from the last pass,
//!    with an exact line search on the slope of E along the step (monotone, as E is convex), so
//!    it converges from any start; the normal forces that set the cones' radii are held for a
//!    Newton solve and updated between solves (rounds, Anderson-accelerated) until the radii
//!    settle to [`CONE_TOLERANCE`] of the island's largest force, at most [`MAX_CONE_ROUNDS`].
//!
//! **Warm start.** Each friction pair's final mode (sticking, or sliding at scale s) is kept for
//! the next step ([`Memory`], keyed by the pair's bodies and its place among their elements), and
//! the first pass takes it instead of "sticks": a pile whose contacts slide slowly step after
//! step starts near its answer. Normal elements keep their first-pass rule. Only the path
//! changes: the modes are still checked pass by pass and the answer meets the same tolerances.
//! On `bin_64` (5 s, seeds 1, 3, 7, the three force models) the linear solves fell from 635,632
//! to 500,878 in all (hunt-crossley seed 1: 150,722 → 68,389) and the steps whose solve missed
//! its tolerance from 6 to 0. The modes of an island whose active set settled are its last
//! pass's; after the convex solve they are read from its answer.
//!
//! What is left is reported: the momentum residual ‖∇E‖ and how far a friction force is outside
//! μ f_n⁺ (`ImplicitReport`); the pipeline fails the step's solve when either exceeds 1e-8.
//!
//! Before (to 16ed3d5) there was only the active set, of 8 passes, with the sliding damper
//! settled to 1 %, and a set still changing at the last pass was projected onto the laws: on
//! `bin_64` under deepest-point 235 of 2,422 steps ended with forces up to 67 % of the island's
//! largest away from their laws (the projection's change), and settled steps' friction up to
//! 1–2 % outside its cone unreported.
//!
//! The solve is per island (bodies joined by elements; fixed and held bodies join nothing), by a
//! block Cholesky factorization over the island's contact graph (`solvers::block_cholesky`: a
//! stack or a pile couples each body only to the few it touches). The pipeline then adds the
//! forces f⁺ to the applied wrenches and takes the ordinary semi-implicit Euler step, whose
//! velocities are ν⁺.
use crate::dynamics::implicit::{ElementLaw, ForceElement};
use crate::dynamics::integrate::accelerations;
use crate::dynamics::jacobian::{contact_row, mass_block, JacobianRow};
use crate::dynamics::{Model, State, Wrench};
use crate::solvers::block_cholesky::{BlockPattern, Slot};
use crate::util::hash::FastMap;
use std::cell::RefCell;
use crate::util::disjoint::DisjointSets;
use glam::DMat3;
use nalgebra::{DVector, Matrix6, Vector6};

/// Largest passes of the active-set loop; a set still changing then goes to the convex solve.
pub const MAX_PASSES: usize = 12;
/// A sliding pair's scale s (f = s w) has settled when a pass changes it by less than this
/// fraction; the force is then that close to the cone's bound. The fixed point converges fast
/// for a contact that slides, slowly only at the edge of sticking.
pub const SLIDING_TOLERANCE: f64 = 1e-10;
/// Sticking forces |w| below this (N) count as this in a sliding scale (no division by zero).
pub const MIN_FORCE: f64 = 1e-12;

/// Largest Newton steps of one solve (one round of cone radii).
pub const MAX_NEWTON_STEPS: usize = 50;
/// Newton stops when the momentum residual ‖∇E‖ is this small relative to the larger of its
/// two parts ‖M (ν − ν_free)‖ and ‖h Σ Jᵀ f‖ (100× below the step's failure mark, 1e-8).
pub const NEWTON_TOLERANCE: f64 = 1e-10;
/// Largest rounds of cone radii (a Newton solve each) of an island.
pub const MAX_CONE_ROUNDS: usize = 60;
/// The radii μ f_n have settled when a round changes none by more than this fraction of the
/// island's largest force; the forces are then that close to their cones.
pub const CONE_TOLERANCE: f64 = 1e-10;
/// A normal element counts in the Hessian while its sticking force w = g − D u is above
/// −D × this speed (m/s): boxes placed touching have gaps of ±1e-16 m and springs of ±1e-9 N,
/// and counting them from the first step engages a whole stack at once, where a strict test
/// engaged one more link of it per Newton step. (The force itself is always max(0, w).)
pub const CONTACT_SPEED_TOLERANCE: f64 = 1e-9;

/// What the implicit solve did in one step.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ImplicitReport {
    /// Elements (rows) of the step.
    pub elements: usize,
    /// Islands solved.
    pub islands: usize,
    /// Linear solves (factorizations: active-set passes, then Newton steps over the rounds) of
    /// the island that took the most.
    pub iterations: usize,
    /// Rounds of cone radii of the convex solve of the island that took the most (0: every
    /// island settled in the active set).
    pub rounds: usize,
    /// Largest relative momentum residual ‖∇E‖ (module documentation) at the end.
    pub residual: f64,
    /// Some island stopped short in the convex solve: Newton at [`MAX_NEWTON_STEPS`] above
    /// [`NEWTON_TOLERANCE`], or its cone radii still changing after [`MAX_CONE_ROUNDS`].
    pub unsettled: bool,
    /// How far the forces are from their laws: the largest excess of a friction force over μ
    /// times its normal force (|f_t| − μ f_n, when positive), relative to the island's largest
    /// force; about [`SLIDING_TOLERANCE`] when the active set settled, at most
    /// [`CONE_TOLERANCE`] when the convex solve's radii did. (The normal law f ≥ 0 holds
    /// exactly, by construction.)
    pub law_residual: f64,
}

/// The forces f⁺ (N) of `elements` at the end of a step of length `h` from `state`, under the
/// other forces `applied` (per body; gravity is added here), and what the solve did.
pub fn end_of_step_forces(
    model: &Model,
    state: &State,
    h: f64,
    applied: &[Wrench],
    elements: &[ForceElement],
) -> (Vec<f64>, ImplicitReport) {
    end_of_step_forces_with(model, state, h, applied, elements, &mut Memory::default())
}

/// [`end_of_step_forces`] with what the last step left in `memory` (updated to this step's):
/// its islands' symbolic factorizations (the same forces to the bit) and its friction pairs'
/// final modes, the first pass's guess (the same laws to the same tolerances, reached in fewer
/// passes; module documentation, "Warm start").
pub fn end_of_step_forces_with(
    model: &Model,
    state: &State,
    h: f64,
    applied: &[Wrench],
    elements: &[ForceElement],
    memory: &mut Memory,
) -> (Vec<f64>, ImplicitReport) {
    let system = System::new(model, state, h, applied, elements);
    let mut forces = vec![0.0; elements.len()];
    let mut report = ImplicitReport {
        elements: elements.len(),
        ..Default::default()
    };
    let keys = element_keys(elements);
    // This step's entries go into the spare maps, which then become the last step's (their
    // allocations kept).
    memory.next_patterns.clear();
    memory.next_modes.clear();
    for island in system.islands() {
        let first = island.bodies.first().copied();
        let mut problem = Problem::new(&system, &island);
        *problem.pattern.borrow_mut() = first.and_then(|b| memory.patterns.remove(&b));
        if !memory.modes.is_empty() {
            problem.remembered = problem
                .pairs
                .iter()
                .map(|p| memory.modes.get(&keys[island.elements[p.first]]).copied())
                .collect();
        }
        let final_modes = problem.solve(&mut forces, &mut report);
        for (k, mode) in final_modes {
            memory.next_modes.insert(keys[island.elements[k]], mode);
        }
        report.islands += 1;
        if let (Some(b), Some(kept)) = (first, problem.pattern.into_inner()) {
            memory.next_patterns.insert(b, kept);
        }
    }
    std::mem::swap(&mut memory.patterns, &mut memory.next_patterns);
    std::mem::swap(&mut memory.modes, &mut memory.next_modes);
    (forces, report)
}

/// What the implicit step keeps from one step to the next (only the last step's):
/// - the symbolic factorizations of its islands (a resting stack or pile has the same contact
///   graph step after step), keyed by an island's first moving body and used only when the
///   island's block places are the same: a pattern is a function of the places alone, so the
///   answer does not depend on whether it was kept;
/// - the final mode of each friction pair (sticking, or sliding with its scale s), keyed by
///   `element_keys`: the next step's first pass starts from it (module documentation, "Warm
///   start"). A key that matches another contact's element only costs passes: the modes are
///   checked pass by pass as from a cold start.
#[derive(Clone, Debug, Default)]
pub struct Memory {
    /// By an island's first moving body.
    patterns: FastMap<usize, (Vec<(usize, usize)>, BlockPattern)>,
    modes: FastMap<(usize, usize, usize), Mode>,
    next_patterns: FastMap<usize, (Vec<(usize, usize)>, BlockPattern)>,
    next_modes: FastMap<(usize, usize, usize), Mode>,
}

impl Memory {
    /// Forget the friction pairs' modes (keep the factorizations): the next solve starts its
    /// active set cold, as [`end_of_step_forces`] does.
    pub fn forget_modes(&mut self) {
        self.modes.clear();
    }
}

/// An element's key across steps: its two bodies and its place in the run of elements on the
/// same two bodies (a penalty model lists a pair's elements together, in the same order each
/// step).
fn element_keys(elements: &[ForceElement]) -> Vec<(usize, usize, usize)> {
    // A model lists a pair's elements one after another: the place is counted along the run.
    let mut keys: Vec<(usize, usize, usize)> = Vec::with_capacity(elements.len());
    for e in elements {
        let place = match keys.last() {
            Some(&(a, b, n)) if (a, b) == (e.body_a, e.body_b) => n + 1,
            _ => 0,
        };
        keys.push((e.body_a, e.body_b, place));
    }
    keys
}

/// The moving bodies and element rows of a step.
struct System<'a> {
    elements: &'a [ForceElement],
    h: f64,
    /// Per moving body (by offset / 6): mass (kg) and world inertia (kg m²).
    mass: Vec<(f64, DMat3)>,
    /// ν_free, stacked.
    free: Vec<f64>,
    /// ν at the state, stacked.
    velocity: Vec<f64>,
    rows: Vec<JacobianRow>,
    /// (D, g) of every element (module documentation).
    coefficients: Vec<(f64, f64)>,
}

/// One island: its moving bodies (offset / 6, increasing) and its elements (increasing).
struct Island {
    bodies: Vec<usize>,
    elements: Vec<usize>,
}

impl<'a> System<'a> {
    fn new(
        model: &Model,
        state: &State,
        h: f64,
        applied: &[Wrench],
        elements: &'a [ForceElement],
    ) -> Self {
        let mut next = 0;
        let offsets: Vec<Option<usize>> = model
            .bodies
            .iter()
            .map(|b| {
                (!b.fixed && b.moves(state.time)).then(|| {
                    next += 6;
                    next - 6
                })
            })
            .collect();
        let (mut mass, mut free, mut velocity) =
            (Vec::with_capacity(next / 6), Vec::with_capacity(next), Vec::with_capacity(next));
        for (i, o) in offsets.iter().enumerate() {
            if o.is_none() {
                continue;
            }
            let (body, bs) = (&model.bodies[i], &state.bodies[i]);
            let r = DMat3::from_quat(bs.orientation);
            mass.push((body.mass, r * body.inertia * r.transpose()));
            let (a, alpha) = accelerations(model, state, i, &applied[i]);
            let (v, w) = (bs.velocity, bs.angular_velocity);
            free.extend((v + h * a).to_array());
            free.extend((w + h * alpha).to_array());
            velocity.extend(v.to_array());
            velocity.extend(w.to_array());
        }
        let rows = elements
            .iter()
            .map(|e| {
                contact_row(
                    model,
                    state,
                    &offsets,
                    (e.body_a, e.point),
                    (e.body_b, e.point),
                    e.direction,
                )
            })
            .collect();
        let coefficients = elements
            .iter()
            .zip(&rows)
            .map(|(e, row): (&ForceElement, &JacobianRow)| {
                let u0 = row.dot(&velocity);
                (e.stiffness * h + e.damping, e.force + e.damping * u0)
            })
            .collect();
        System {
            elements,
            h,
            mass,
            free,
            velocity,
            rows,
            coefficients,
        }
    }

    /// Islands of bodies joined by elements, ordered by their first element. The elements on no
    /// moving body form one island of their own (their forces are their laws at u = 0; a
    /// friction pair stays with its normal).
    fn islands(&self) -> Vec<Island> {
        let n = self.mass.len();
        let mut sets = DisjointSets::new(n);
        for row in &self.rows {
            if let [(o1, _), (o2, _)] = row.blocks.as_slice() {
                sets.union(o1 / 6, o2 / 6);
            }
        }
        let mut island_of_root: Vec<Option<usize>> = vec![None; n];
        let mut bodiless: Option<usize> = None;
        // Each row's island, numbered by first row, then the islands' lists at their sizes.
        let mut sizes: Vec<usize> = Vec::new();
        let island_of_row: Vec<usize> = self
            .rows
            .iter()
            .map(|row| {
                let slot = match row.blocks.first() {
                    None => &mut bodiless,
                    Some((o, _)) => &mut island_of_root[sets.root(o / 6)],
                };
                let k = *slot.get_or_insert_with(|| {
                    sizes.push(0);
                    sizes.len() - 1
                });
                sizes[k] += 1;
                k
            })
            .collect();
        let mut islands: Vec<Island> = sizes
            .iter()
            .map(|&size| Island {
                bodies: Vec::new(),
                elements: Vec::with_capacity(size),
            })
            .collect();
        for (i, &k) in island_of_row.iter().enumerate() {
            islands[k].elements.push(i);
        }
        for body in 0..n {
            if let Some(k) = island_of_root[sets.root(body)] {
                islands[k].bodies.push(body);
            }
        }
        islands
    }

}

/// A sliding pair's (scale s, |w| in N) at its last pass, for the secant update of s
/// (`sliding_scale`).
type SlideHistory = Option<(f64, f64)>;

/// The state of an element in the active-set loop.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Mode {
    /// f⁺ = g − D u⁺.
    Implicit,
    /// f⁺ = 0.
    Off,
    /// f⁺ = s (g − D u⁺), 0 < s ≤ 1: a sliding friction tangent, its sticking force scaled to
    /// the cone's bound at the last pass (for a pure damper, g = 0, a damper s D).
    Sliding(f64),
}

/// The next sliding scale s for a cone bound `limit` (N) from the last two passes' (s, |w|):
/// s |w(s)| = limit with 1/|w| taken linear in s through the two points — exact for one body
/// sliding on a fixed one under a damper, and the secant step of the fixed point s = limit / |w|
/// otherwise, which alone converges slowly near sticking. Falls back to limit / |w| when the fit
/// gives no positive answer.
fn sliding_scale(limit: f64, (s0, w0): (f64, f64), (s1, w1): (f64, f64)) -> f64 {
    let plain = limit / w1.max(MIN_FORCE);
    if s0 == s1 || w0 <= 0.0 || w1 <= 0.0 {
        return plain;
    }
    let beta = (1.0 / w1 - 1.0 / w0) / (s1 - s0);
    let alpha = 1.0 / w1 - beta * s1;
    let denominator = 1.0 - limit * beta;
    let s = limit * alpha / denominator;
    if denominator > 0.0 && s.is_finite() && s > 0.0 {
        s
    } else {
        plain
    }
}

/// Two modes the same: the same kind, and a sliding scale within [`SLIDING_TOLERANCE`] of the
/// other's.
fn same_mode(a: Mode, b: Mode) -> bool {
    match (a, b) {
        (Mode::Sliding(x), Mode::Sliding(y)) => {
            (x - y).abs() <= SLIDING_TOLERANCE * x.abs().max(y.abs())
        }
        _ => a == b,
    }
}

/// A friction pair of an island: its two tangents and its normal (positions in the island's
/// element list) and μ.
#[derive(Clone, Copy, Debug)]
struct Pair {
    first: usize,
    second: usize,
    normal: usize,
    mu: f64,
}

/// One island's convex problem (module documentation).
struct Problem<'s> {
    system: &'s System<'s>,
    island: &'s Island,
    local: LocalIndex,
    /// 6 × 6 mass block of each of the island's bodies.
    mass: Vec<Matrix6<f64>>,
    /// ν_free of the island's bodies.
    free: DVector<f64>,
    /// ‖M ν_free‖ (N s), a scale of the momentum residual.
    momentum: f64,
    /// Positions of the normal elements in the island's element list.
    normals: Vec<usize>,
    pairs: Vec<Pair>,
    /// The last Hessian's off-diagonal block places (island bodies p, q, in the order summed)
    /// and their symbolic factorization.
    pattern: RefCell<Option<(Vec<(usize, usize)>, BlockPattern)>>,
    /// The last step's final mode of each friction pair (`pairs` order), if any.
    remembered: Vec<Option<Mode>>,
}

impl<'s> Problem<'s> {
    fn new(system: &'s System<'s>, island: &'s Island) -> Self {
        let local = LocalIndex::new(&island.bodies);
        let mass = island
            .bodies
            .iter()
            .map(|&b| mass_block(system.mass[b].0, system.mass[b].1))
            .collect();
        let free = system.island_vector(&island.bodies, &system.free);
        let position = |global: usize| island.elements.binary_search(&global).ok();
        let (mut normals, mut pairs) = (Vec::new(), Vec::new());
        for (k, &i) in island.elements.iter().enumerate() {
            match system.elements[i].law {
                ElementLaw::Unilateral => normals.push(k),
                ElementLaw::Friction {
                    partner,
                    normal,
                    mu,
                } if partner > i => {
                    // push_friction gives both tangents of a pair the same k and c, so one D:
                    // the pair's ψ is Φ(w) / D (module documentation).
                    debug_assert_eq!(system.coefficients[i].0, system.coefficients[partner].0);
                    pairs.push(Pair {
                        first: k,
                        second: position(partner).expect("a pair's tangents share an island"),
                        normal: position(normal).expect("a pair and its normal share an island"),
                        mu,
                    });
                }
                ElementLaw::Friction { .. } => {} // the pair is kept at its first tangent
            }
        }
        let mut problem = Problem {
            system,
            island,
            local,
            mass,
            free,
            momentum: 0.0,
            normals,
            pairs,
            pattern: RefCell::new(None),
            remembered: Vec::new(),
        };
        problem.momentum = problem.apply_mass(&problem.free).norm();
        problem
    }

    /// Solve the island (rounds of cone radii, a Newton solve each) and write its forces.
    fn solve(&self, forces: &mut [f64], report: &mut ImplicitReport) -> Vec<(usize, Mode)> {
        let mut nu = self.free.clone();
        let (passes, settled_set) = self.active_set(&mut nu);
        let (mut f, set_modes) = settled_set.unzip();
        let (mut iterations, mut rounds, mut residual) = (passes, 0, 0.0);
        let mut settled = f.is_some();
        if let Some(f) = &f {
            residual = self.gradient(&nu, f).1;
        } else {
            // The fallback: rounds of radii, a convex Newton solve each, from the last pass.
            let mut radii = self.radii(&self.forces(&self.velocities(&nu), &[]));
            let mut anderson = Anderson::default();
            let mut last_change = f64::INFINITY;
            while rounds < MAX_CONE_ROUNDS && !settled {
                rounds += 1;
                let (steps, r, converged, round) = self.newton(&radii, &mut nu);
                (iterations, residual) = (iterations + steps, r);
                let image = self.radii(&round);
                let change = max_difference(&image, &radii);
                settled = converged && change <= CONE_TOLERANCE * largest(&round);
                radii = if change > last_change {
                    // A round that made things worse (the map switched active sets, or the
                    // extrapolation overshot): restart Anderson from a damped plain update,
                    // which stops a two-round oscillation.
                    anderson = Anderson::default();
                    radii.iter().zip(&image).map(|(r, g)| 0.5 * (r + g)).collect()
                } else {
                    anderson.next(&radii, image)
                };
                last_change = change;
                f = Some(round);
            }
        }
        let f = f.unwrap_or_default();
        for (k, &i) in self.island.elements.iter().enumerate() {
            forces[i] = f[k];
        }
        report.iterations = report.iterations.max(iterations);
        report.rounds = report.rounds.max(rounds);
        report.residual = report.residual.max(residual);
        report.unsettled |= !settled;
        report.law_residual = report.law_residual.max(self.cone_excess(&f));
        match set_modes {
            Some(modes) => self.pairs.iter().map(|p| (p.first, modes[p.first])).collect(),
            None => self.final_modes(&nu, &f),
        }
    }

    /// Each pair's mode at the convex solve's answer ν with forces `f`: sliding at the scale
    /// μ f_n / |w| where its sticking force w leaves the cone, else sticking.
    fn final_modes(&self, nu: &DVector<f64>, f: &[f64]) -> Vec<(usize, Mode)> {
        let u = self.velocities(nu);
        self.pairs
            .iter()
            .map(|p| {
                let limit = p.mu * f[p.normal].max(0.0);
                let (w1, w2) = self.sticking(p, &u);
                let size = w1.hypot(w2);
                let mode = if size <= limit * (1.0 + 1e-9) {
                    Mode::Implicit
                } else {
                    Mode::Sliding((limit / size.max(MIN_FORCE)).min(1.0))
                };
                (p.first, mode)
            })
            .collect()
    }

    /// The active-set loop (module documentation) from ν_free: at most [`MAX_PASSES`] linear
    /// solves; its passes, and the forces and modes if the set settled (ν then the answer).
    fn active_set(&self, nu: &mut DVector<f64>) -> (usize, Option<(Vec<f64>, Vec<Mode>)>) {
        let mut modes = self.initial_modes();
        for (p, remembered) in self.pairs.iter().zip(&self.remembered) {
            if let Some(mode) = remembered {
                (modes[p.first], modes[p.second]) = (*mode, *mode);
            }
        }
        let mut history = vec![None; modes.len()];
        // u at the state's velocities, computed when a pair first starts to slide.
        let at_state = std::cell::OnceCell::new();
        for pass in 1..=MAX_PASSES {
            let (rows, mut x) = self.linear_system(&modes);
            if !self.solve_hessian(&rows, &mut x) {
                return (pass, None);
            }
            *nu = x;
            let u = self.velocities(nu);
            let f: Vec<f64> = (0..u.len())
                .map(|k| {
                    let (d, g) = self.coefficients(k);
                    match modes[k] {
                        Mode::Implicit => g - d * u[k],
                        Mode::Off => 0.0,
                        Mode::Sliding(s) => s * (g - d * u[k]),
                    }
                })
                .collect();
            if !self.update_modes((&u, &at_state), &f, (&mut modes, &mut history)) {
                return (pass, Some((f, modes)));
            }
        }
        (MAX_PASSES, None)
    }

    /// The first pass's modes: a normal element is on if it would push were the bodies to move
    /// freely (g − D J ν_free ≥ −D [`CONTACT_SPEED_TOLERANCE`]), off otherwise; friction sticks.
    fn initial_modes(&self) -> Vec<Mode> {
        let mut modes = vec![Mode::Implicit; self.island.elements.len()];
        for &k in &self.normals {
            let (d, g) = self.coefficients(k);
            let u = self.local.dot(&self.system.rows[self.island.elements[k]], &self.free);
            if g - d * u < -CONTACT_SPEED_TOLERANCE * d {
                modes[k] = Mode::Off;
            }
        }
        modes
    }

    /// The linear system of a pass: the rows beyond M with their weights h D (h s D sliding),
    /// and the right side M ν_free + h Σ Jᵀ g (s g sliding).
    fn linear_system(&self, modes: &[Mode]) -> (Vec<(JacobianRow, f64)>, DVector<f64>) {
        let mut rhs = self.apply_mass(&self.free);
        let mut rows = Vec::with_capacity(self.island.elements.len());
        let h = self.system.h;
        for (k, &i) in self.island.elements.iter().enumerate() {
            let (d, g) = self.coefficients(k);
            let scale = match modes[k] {
                Mode::Implicit => 1.0,
                Mode::Sliding(s) => s,
                Mode::Off => continue,
            };
            let row = &self.system.rows[i];
            self.local.add_transposed(row, h * scale * g, &mut rhs);
            rows.push((row.clone(), h * scale * d));
        }
        (rows, rhs)
    }

    /// The modes of the next pass from this pass's velocities `u` (and the state's, `at_state`) and forces `f`; true when a
    /// mode changed. A normal element is on where its linear law pushes, off where it would pull
    /// (a primal–dual active set); a friction pair sticks while its sticking force w = g − D u is
    /// inside the cone μ f_n, else slides as f = s w with s = μ f_n / |w| (the return map at this
    /// pass's w), by a secant step on s until it settles to [`SLIDING_TOLERANCE`].
    fn update_modes(
        &self,
        (u, at_state): (&[f64], &std::cell::OnceCell<Vec<f64>>),
        f: &[f64],
        (modes, history): (&mut [Mode], &mut [SlideHistory]),
    ) -> bool {
        let mut next = modes.to_vec();
        for &k in &self.normals {
            let (d, g) = self.coefficients(k);
            next[k] = if g - d * u[k] > 0.0 {
                Mode::Implicit
            } else {
                Mode::Off
            };
        }
        for p in &self.pairs {
            let limit = p.mu * f[p.normal].max(0.0);
            let (w1, w2) = self.sticking(p, u);
            let size = w1.hypot(w2);
            let mode = modes[p.first];
            let slide = if mode == Mode::Implicit && size <= limit * (1.0 + 1e-9) {
                Mode::Implicit
            } else {
                // Entering the slide, the stick solve's w is too small a guess for a contact
                // already sliding; its w at the state's velocities is the better one.
                let size = match mode {
                    Mode::Implicit => {
                        let at_state = at_state.get_or_init(|| {
                            let nu = self.system.island_vector(&self.island.bodies, &self.system.velocity);
                            self.velocities(&nu)
                        });
                        let (s1, s2) = self.sticking(p, at_state);
                        size.max(s1.hypot(s2))
                    }
                    _ => size,
                };
                let s = match (mode, history[p.first]) {
                    (Mode::Sliding(s), Some(last)) => sliding_scale(limit, last, (s, size)),
                    _ => limit / size.max(MIN_FORCE),
                };
                if let Mode::Sliding(s) = mode {
                    history[p.first] = Some((s, size));
                }
                Mode::Sliding(s.min(1.0)) // never stiffer than sticking
            };
            (next[p.first], next[p.second]) = (slide, slide);
        }
        let changed = next.iter().zip(modes.iter()).any(|(a, b)| !same_mode(*a, *b));
        modes.copy_from_slice(&next);
        changed
    }

    /// The cone radii μ f_n of the pairs under the forces `f` (island order; a pair's radius is
    /// 0 under no forces).
    fn radii(&self, f: &[f64]) -> Vec<f64> {
        self.pairs
            .iter()
            .map(|p| f.get(p.normal).map_or(0.0, |&n| p.mu * n.max(0.0)))
            .collect()
    }

    /// The largest excess |f_t| − μ f_n of a pair over its cone at the normal force `f` gives,
    /// relative to the largest force (`ImplicitReport::law_residual`).
    fn cone_excess(&self, f: &[f64]) -> f64 {
        let scale = largest(f);
        let excess = self
            .pairs
            .iter()
            .map(|p| f[p.first].hypot(f[p.second]) - p.mu * f[p.normal].max(0.0))
            .fold(0.0, f64::max);
        if scale > 0.0 {
            excess / scale
        } else {
            0.0
        }
    }

    /// u = J ν of every element of the island (island order).
    fn velocities(&self, nu: &DVector<f64>) -> Vec<f64> {
        self.island
            .elements
            .iter()
            .map(|&i| self.local.dot(&self.system.rows[i], nu))
            .collect()
    }

    /// The elements' forces at velocities `u` with the cone radii `radii` (none: every pair 0).
    fn forces(&self, u: &[f64], radii: &[f64]) -> Vec<f64> {
        let mut f = Vec::new();
        self.forces_into(u, radii, &mut f);
        f
    }

    /// [`forces`](Self::forces) into `f` (its allocation reused).
    fn forces_into(&self, u: &[f64], radii: &[f64], f: &mut Vec<f64>) {
        f.clear();
        f.resize(u.len(), 0.0);
        for &k in &self.normals {
            let (d, g) = self.coefficients(k);
            f[k] = (g - d * u[k]).max(0.0);
        }
        for (p, &r) in self.pairs.iter().zip(radii) {
            let (w1, w2) = self.sticking(p, u);
            let (f1, f2) = project_on_disc(w1, w2, r);
            (f[p.first], f[p.second]) = (f1, f2);
        }
    }

    /// A pair's sticking force w = g − D u (N, its two tangents).
    fn sticking(&self, p: &Pair, u: &[f64]) -> (f64, f64) {
        let ((d1, g1), (d2, g2)) = (self.coefficients(p.first), self.coefficients(p.second));
        (g1 - d1 * u[p.first], g2 - d2 * u[p.second])
    }

    /// (D, g) of the island's element at position `k`.
    fn coefficients(&self, k: usize) -> (f64, f64) {
        self.system.coefficients[self.island.elements[k]]
    }

    /// M x for an island vector.
    fn apply_mass(&self, x: &DVector<f64>) -> DVector<f64> {
        let mut y = DVector::zeros(x.len());
        for (k, m) in self.mass.iter().enumerate() {
            let xs = Vector6::from_column_slice(&x.as_slice()[6 * k..6 * k + 6]);
            y.fixed_rows_mut::<6>(6 * k).copy_from(&(m * xs));
        }
        y
    }

    /// ∇E at ν and its relative size (‖∇E‖ over the larger of ‖M (ν − ν_free)‖ and
    /// ‖h Σ Jᵀ f‖).
    fn gradient(&self, nu: &DVector<f64>, f: &[f64]) -> (DVector<f64>, f64) {
        let inertial = self.apply_mass(&(nu - &self.free));
        let mut contact = DVector::zeros(nu.len());
        for (&i, &fk) in self.island.elements.iter().zip(f) {
            self.local
                .add_transposed(&self.system.rows[i], self.system.h * fk, &mut contact);
        }
        let gradient = &inertial - &contact;
        let scale = inertial.norm().max(contact.norm()).max(self.momentum);
        let relative = if scale > 0.0 {
            gradient.norm() / scale
        } else {
            gradient.norm()
        };
        (gradient, relative)
    }

    /// Newton on E with the radii held: returns its steps, the final relative residual, and
    /// whether it reached [`NEWTON_TOLERANCE`].
    /// The forces at the final ν come back with them (every exit computed them there).
    fn newton(&self, radii: &[f64], nu: &mut DVector<f64>) -> (usize, f64, bool, Vec<f64>) {
        let mut steps = 0;
        loop {
            let u = self.velocities(nu);
            let f = self.forces(&u, radii);
            let (gradient, residual) = self.gradient(nu, &f);
            if residual <= NEWTON_TOLERANCE {
                return (steps, residual, true, f);
            }
            if steps == MAX_NEWTON_STEPS {
                return (steps, residual, false, f);
            }
            steps += 1;
            let mut delta = -gradient;
            if !self.solve_hessian(&self.hessian_rows(&u, radii), &mut delta) {
                return (steps, residual, false, f);
            }
            let alpha = self.step_length((nu, &u, &f), &delta, radii);
            if alpha == 0.0 {
                return (steps, residual, false, f); // no descent left at round-off
            }
            *nu += alpha * delta;
        }
    }

    /// The Hessian's rows beyond M: (row, weight h D P') per active normal, sticking tangent,
    /// or sliding pair (one row across its slip, module documentation).
    fn hessian_rows(&self, u: &[f64], radii: &[f64]) -> Vec<(JacobianRow, f64)> {
        let (h, rows) = (self.system.h, &self.system.rows);
        let global = |k: usize| self.island.elements[k];
        let mut out = Vec::new();
        for &k in &self.normals {
            let (d, g) = self.coefficients(k);
            if d > 0.0 && g - d * u[k] > -d * CONTACT_SPEED_TOLERANCE {
                out.push((rows[global(k)].clone(), h * d));
            }
        }
        for (p, &r) in self.pairs.iter().zip(radii) {
            let (d, _) = self.coefficients(p.first);
            let (w1, w2) = self.sticking(p, u);
            let size = w1.hypot(w2);
            if d <= 0.0 || r <= 0.0 {
                continue;
            }
            if size <= r {
                out.push((rows[global(p.first)].clone(), h * d));
                out.push((rows[global(p.second)].clone(), h * d));
            } else {
                let across = (-w2 / size, w1 / size);
                let row = combine(&rows[global(p.first)], &rows[global(p.second)], across);
                out.push((row, h * d * r / size));
            }
        }
        out
    }

    /// The step length α along `delta` where the slope of E vanishes (E is convex along it, its
    /// slope nondecreasing): 1 if E still falls there, else by regula falsi (Illinois) on
    /// [0, 1]. 0 when `delta` does not descend. `u` = J ν and `f` the forces there (the slope
    /// at α = 0 is read from them).
    fn step_length(
        &self,
        (nu, u, f0): (&DVector<f64>, &[f64], &[f64]),
        delta: &DVector<f64>,
        radii: &[f64],
    ) -> f64 {
        let s = self.velocities(delta);
        let m_delta = self.apply_mass(delta);
        let (a, b) = (delta.dot(&m_delta), m_delta.dot(&(nu - &self.free)));
        let h = self.system.h;
        // Buffers for the velocities and forces at α, kept across the evaluations.
        let (mut ua, mut f) = (Vec::with_capacity(u.len()), Vec::with_capacity(u.len()));
        let mut slope = |alpha: f64| {
            ua.clear();
            ua.extend(u.iter().zip(&s).map(|(u, s)| u + alpha * s));
            self.forces_into(&ua, radii, &mut f);
            b + alpha * a - h * f.iter().zip(&s).map(|(f, s)| f * s).sum::<f64>()
        };
        let s0 = b - h * f0.iter().zip(&s).map(|(f, s)| f * s).sum::<f64>();
        if s0 >= 0.0 {
            return 0.0;
        }
        let s1 = slope(1.0);
        if s1 <= 0.0 {
            return 1.0;
        }
        let ((mut lo, mut f_lo), (mut hi, mut f_hi)) = ((0.0, s0), (1.0, s1));
        let mut side = 0;
        for _ in 0..100 {
            let x = (lo * f_hi - hi * f_lo) / (f_hi - f_lo);
            let fx = slope(x);
            if fx.abs() <= 1e-9 * s0.abs() || hi - lo <= 1e-12 {
                return x;
            }
            if fx < 0.0 {
                (lo, f_lo) = (x, fx);
                if side == -1 {
                    f_hi *= 0.5;
                }
                side = -1;
            } else {
                (hi, f_hi) = (x, fx);
                if side == 1 {
                    f_lo *= 0.5;
                }
                side = 1;
            }
        }
        lo
    }

    /// Solve (M + Σ w JᵀJ) x = b in place, b in `x`, by the block Cholesky over the island's
    /// contact graph (`solvers::block_cholesky`); false if it could not be factored (M is
    /// positive definite and the rest semidefinite: only round-off on a wildly scaled island).
    fn solve_hessian(&self, weighted: &[(JacobianRow, f64)], x: &mut DVector<f64>) -> bool {
        let mut diagonal = self.mass.clone();
        let mut off_diagonal: Vec<(usize, usize, Matrix6<f64>)> = Vec::new();
        for (row, w) in weighted {
            // The row's (island body, block) pairs, at most two, without allocating.
            let mut v = [(0, [0.0; 6]); 2];
            for (slot, (o, b)) in v.iter_mut().zip(row.blocks.iter()) {
                *slot = (self.local.map[o / 6] / 6, *b);
            }
            let v = &v[..row.blocks.len()];
            for (p, vp) in v {
                // w v vᵀ, lower triangle: the pivot reads no other (`block_cholesky`).
                add_outer_product(diagonal[*p].as_mut_slice(), *w, vp, vp, true);
            }
            if let [(p, vp), (q, vq)] = v {
                // A pair's elements come in a run: one block per run (the factorization would
                // add them up one by one, in the same order).
                match off_diagonal.last_mut() {
                    Some((lp, lq, sum)) if (*lp, *lq) == (*p, *q) => {
                        add_outer_product(sum.as_mut_slice(), *w, vp, vq, false)
                    }
                    _ => {
                        let mut block = Matrix6::zeros();
                        add_outer_product(block.as_mut_slice(), *w, vp, vq, false);
                        off_diagonal.push((*p, *q, block));
                    }
                }
            }
        }
        // The symbolic factorization depends on the blocks' places alone: the passes and
        // Newton steps of an island mostly share them, and share it (the same pattern, the
        // same arithmetic as a fresh one).
        let mut cached = self.pattern.borrow_mut();
        let places = off_diagonal.iter().map(|&(p, q, _)| (p, q));
        let pattern = match &*cached {
            Some((key, pattern))
                if pattern.n() == diagonal.len() && key.iter().copied().eq(places.clone()) =>
            {
                pattern
            }
            _ => {
                let pattern = BlockPattern::new(diagonal.len(), places.clone());
                &cached.insert((places.collect(), pattern)).1
            }
        };
        let mut below = vec![Matrix6::zeros(); pattern.blocks()];
        for &(p, q, a) in &off_diagonal {
            if let Some(Slot { slot, transposed }) = pattern.slot(p, q) {
                below[slot] += if transposed { a.transpose() } else { a };
            }
        }
        if pattern.factor(&mut diagonal, &mut below).is_err() {
            return false;
        }
        pattern.solve(&diagonal, &below, x.as_mut_slice());
        x.iter().all(|v| v.is_finite())
    }
}

impl System<'_> {
    /// The island's part of a stacked vector of every moving body (`bodies` by offset / 6).
    fn island_vector(&self, bodies: &[usize], stacked: &[f64]) -> DVector<f64> {
        DVector::from_iterator(
            6 * bodies.len(),
            bodies
                .iter()
                .flat_map(|&b| stacked[6 * b..6 * b + 6].iter().copied()),
        )
    }
}

/// Anderson acceleration of the rounds' fixed point r = G(r) (G: the radii μ f_n at the
/// answer for radii r), with the last [`ANDERSON_MEMORY`] rounds: the plain update r ← G(r)
/// converges linearly (measured on `bin_64`: each round cuts the change by a factor 3, 19 rounds
/// to 1e-10); the next radii are the combination of the last images whose residuals G(r) − r
/// combine to the least (Walker & Ni 2011, "Anderson acceleration for fixed-point
/// iterations", type II), kept ≥ 0.
#[derive(Default)]
struct Anderson {
    /// (r, G(r)) of the last rounds, oldest first.
    history: Vec<(Vec<f64>, Vec<f64>)>,
}

/// Rounds remembered by [`Anderson`].
const ANDERSON_MEMORY: usize = 4;

impl Anderson {
    /// The radii of the next round from this round's `radii` and their `image` G(radii).
    fn next(&mut self, radii: &[f64], image: Vec<f64>) -> Vec<f64> {
        self.history.push((radii.to_vec(), image.clone()));
        if self.history.len() > ANDERSON_MEMORY + 1 {
            self.history.remove(0);
        }
        let m = self.history.len() - 1;
        if m == 0 || image.is_empty() {
            return image;
        }
        let residual = |(r, g): &(Vec<f64>, Vec<f64>)| -> Vec<f64> {
            g.iter().zip(r).map(|(g, r)| g - r).collect()
        };
        let last = residual(&self.history[m]);
        // Differences of residuals and of images between consecutive rounds.
        let dr: Vec<Vec<f64>> = (0..m)
            .map(|j| {
                let (a, b) = (residual(&self.history[j + 1]), residual(&self.history[j]));
                a.iter().zip(&b).map(|(a, b)| a - b).collect()
            })
            .collect();
        // γ = argmin ‖last − ΔR γ‖ by the normal equations (m ≤ 4), lightly regularised.
        let mut a = nalgebra::DMatrix::<f64>::zeros(m, m);
        let mut b = DVector::<f64>::zeros(m);
        for i in 0..m {
            b[i] = dot(&dr[i], &last);
            for j in 0..m {
                a[(i, j)] = dot(&dr[i], &dr[j]);
            }
        }
        let trace = (0..m).map(|i| a[(i, i)]).sum::<f64>();
        for i in 0..m {
            a[(i, i)] += 1e-12 * trace;
        }
        let Some(gamma) = a.lu().solve(&b).filter(|g| g.iter().all(|x| x.is_finite())) else {
            self.history.clear();
            return image;
        };
        let mut next = image;
        for (j, g) in gamma.iter().enumerate() {
            let (older, newer) = (&self.history[j].1, &self.history[j + 1].1);
            for (k, x) in next.iter_mut().enumerate() {
                *x -= g * (newer[k] - older[k]);
            }
        }
        next.iter_mut().for_each(|x| *x = x.max(0.0));
        next
    }
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// A ← A + (w a) bᵀ for a 6 × 6 block `a_block` stored by columns, each entry's product
/// formed as (w a_i) b_j; only the lower triangle when `lower` (a diagonal block, whose pivot
/// reads no other).
#[inline]
fn add_outer_product(a_block: &mut [f64], w: f64, a: &[f64; 6], b: &[f64; 6], lower: bool) {
    let wa = a.map(|x| w * x);
    for (j, column) in a_block.chunks_exact_mut(6).enumerate() {
        let from = if lower { j } else { 0 };
        for i in from..6 {
            column[i] += wa[i] * b[j];
        }
    }
}

/// The projection of (w1, w2) onto the disc of radius r ≥ 0.
fn project_on_disc(w1: f64, w2: f64, r: f64) -> (f64, f64) {
    let size = w1.hypot(w2);
    if size <= r {
        (w1, w2)
    } else {
        (w1 * r / size, w2 * r / size)
    }
}

/// a₁ J₁ + a₂ J₂ of two rows over the same bodies (a pair's tangents).
fn combine(first: &JacobianRow, second: &JacobianRow, (a1, a2): (f64, f64)) -> JacobianRow {
    let mut row = first.clone();
    row.blocks = crate::dynamics::jacobian::RowBlocks::new();
    for ((o, b1), (o2, b2)) in first.blocks.iter().zip(second.blocks.iter()) {
        debug_assert_eq!(o, o2);
        row.blocks.push((*o, std::array::from_fn(|j| a1 * b1[j] + a2 * b2[j])));
    }
    row
}

/// The largest |a − b| over two lists.
fn max_difference(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| (x - y).abs()).fold(0.0, f64::max)
}

/// The largest |f| of a list.
fn largest(f: &[f64]) -> f64 {
    f.iter().map(|x| x.abs()).fold(0.0, f64::max)
}

/// Generalized offsets of the whole step → offsets in an island's vector.
struct LocalIndex {
    /// Local offset of each moving body (by global offset / 6) in the island; only the island's
    /// bodies are set.
    map: Vec<usize>,
}

impl LocalIndex {
    fn new(bodies: &[usize]) -> Self {
        let n = bodies.iter().max().map_or(0, |&b| b + 1);
        let mut map = vec![usize::MAX; n];
        for (k, &b) in bodies.iter().enumerate() {
            map[b] = 6 * k;
        }
        LocalIndex { map }
    }

    /// J x for an island vector (each block's six products summed in order, then the blocks).
    fn dot(&self, row: &JacobianRow, x: &DVector<f64>) -> f64 {
        let x = x.as_slice();
        let mut total = 0.0;
        for (o, b) in row.blocks.iter() {
            let l = self.map[o / 6];
            let x: &[f64; 6] = x[l..l + 6].try_into().expect("six entries");
            total += b[0] * x[0] + b[1] * x[1] + b[2] * x[2] + b[3] * x[3] + b[4] * x[4] + b[5] * x[5];
        }
        total
    }

    /// y += s Jᵀ.
    fn add_transposed(&self, row: &JacobianRow, s: f64, y: &mut DVector<f64>) {
        for (o, b) in row.blocks.iter() {
            let l = self.map[o / 6];
            let y: &mut [f64; 6] = (&mut y.as_mut_slice()[l..l + 6]).try_into().expect("six entries");
            for k in 0..6 {
                y[k] += s * b[k];
            }
        }
    }
}

