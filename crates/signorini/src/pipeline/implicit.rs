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
//! The laws are piecewise linear, so the solve is an active-set loop (at most [`MAX_PASSES`]):
//!
//! - a unilateral (normal) element starts on if it would push, or touch with no force, were the
//!   bodies to move freely (g − D J ν_free ≥ −D [`CONTACT_SPEED_TOLERANCE`]: boxes stacked at
//!   zero gap start on, where a strict test engaged one more link of the stack per pass); after
//!   each solve it is on where g − D u⁺ > 0 and off (f⁺ = 0) where the linearised law would pull
//!   (a primal–dual active set). An element switched off for good at its first negative answer
//!   let a box that a transient pulled away slide 19 mm into a wall;
//! - a friction element pair (two tangents at one point) whose force leaves the cone
//!   |f_t⁺| ≤ μ f_n⁺ (f_n⁺ of its normal element) slides: for the next solve it is a damper
//!   f = −d u⁺ with d = μ f_n⁺ / |u_t⁺| of this solve (the cone's bound at the predicted slip
//!   speed; entering the slide, the larger of that and the slip at the state; never more than
//!   the element's sticking D), updated by a secant step until d settles to
//!   [`SLIDING_TOLERANCE`]. A damper never reverses the slip, as a force held fixed at μ f_n⁺ can
//!   when the slip it was computed from was too fast (a 64-box pile blew up that way);
//! - a set still changing kind at the last pass is projected onto the laws (f_n ≥ 0, friction in
//!   its cone) and reported (`ImplicitReport::unsettled`).
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
use crate::solvers::block_cholesky::BlockCholesky;
use crate::util::disjoint::DisjointSets;
use glam::DMat3;
use nalgebra::{DVector, Matrix6, Vector6};

/// Largest number of active-set passes of a step.
pub const MAX_PASSES: usize = 8;
/// A sliding damper d = μ f_n⁺ / |u_t⁺| is settled when it changes by less than this fraction
/// from one pass to the next (the friction force is then within it of the cone's bound). The
/// fixed point converges at the rate h μ f_n / (m_t |u_t,free|): fast for a contact that
/// slides, slowly only at the edge of sticking.
pub const SLIDING_TOLERANCE: f64 = 1e-2;
/// A normal element starts on when the free motion leaves it within this speed (m/s) of pushing:
/// boxes placed touching have gaps of ±1e-16 m, whose springs are ±1e-9 N from zero.
pub const CONTACT_SPEED_TOLERANCE: f64 = 1e-9;
/// Slip speeds below this (m/s) count as this in a sliding damper (no division by zero).
pub const MIN_SLIP_SPEED: f64 = 1e-12;

/// What the implicit solve did in one step.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ImplicitReport {
    /// Elements (rows) of the step.
    pub elements: usize,
    /// Islands solved.
    pub islands: usize,
    /// Active-set passes (the largest over islands).
    pub passes: usize,
    /// Largest relative residual ‖A ν − b‖ / ‖b‖ of the last solves.
    pub residual: f64,
    /// Some island's elements still changed kind (on, off, sticking, sliding) at the last pass
    /// (its forces are the last pass's).
    pub unsettled: bool,
    /// How far an unsettled island's last forces were from their laws: the largest change the
    /// projection onto the laws (f ≥ 0, friction in its cone) made to a force, relative to the
    /// island's largest force; 0 when every island settled.
    pub law_residual: f64,
}

/// A sliding friction element's (damper N s/m, slip speed m/s) at its last pass, for the
/// secant update of its damper (`sliding_damper`).
type SlideHistory = Option<(f64, f64)>;

/// The state of an element in the active-set loop.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Mode {
    /// f⁺ = g − D u⁺.
    Implicit,
    /// f⁺ = 0.
    Off,
    /// f⁺ = −d u⁺ with this d (N s/m): a sliding friction tangent, a damper whose force is the
    /// cone's bound at the slip speed of the last pass (a damper never reverses the slip, as a
    /// force held fixed can).
    Sliding(f64),
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
    let system = System::new(model, state, h, applied, elements);
    let mut forces = vec![0.0; elements.len()];
    let mut report = ImplicitReport {
        elements: elements.len(),
        ..Default::default()
    };
    for island in system.islands() {
        system.solve_island(&island, &mut forces, &mut report);
        report.islands += 1;
    }

    (forces, report)
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
        let (mut mass, mut free, mut velocity) = (Vec::new(), Vec::new(), Vec::new());
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

    /// Islands of bodies joined by elements, ordered by their first element. An element on no
    /// moving body is an island of its own (its force is g, nothing moves).
    fn islands(&self) -> Vec<Island> {
        let n = self.mass.len();
        let mut sets = DisjointSets::new(n);
        for row in &self.rows {
            if let [(o1, _), (o2, _)] = row.blocks.as_slice() {
                sets.union(o1 / 6, o2 / 6);
            }
        }
        let mut island_of_root: Vec<Option<usize>> = vec![None; n];
        let mut islands: Vec<Island> = Vec::new();
        for (i, row) in self.rows.iter().enumerate() {
            let Some((o, _)) = row.blocks.first() else {
                islands.push(Island {
                    bodies: Vec::new(),
                    elements: vec![i],
                });
                continue;
            };
            let root = sets.root(o / 6);
            let k = *island_of_root[root].get_or_insert_with(|| {
                islands.push(Island {
                    bodies: Vec::new(),
                    elements: Vec::new(),
                });
                islands.len() - 1
            });
            islands[k].elements.push(i);
        }
        for body in 0..n {
            if let Some(k) = island_of_root[sets.root(body)] {
                islands[k].bodies.push(body);
            }
        }
        islands
    }

    /// D and g of element `i` (module documentation).
    fn coefficients(&self, i: usize) -> (f64, f64) {
        self.coefficients[i]
    }

    /// Run the active-set loop on one island, writing its elements' forces into `forces`.
    fn solve_island(&self, island: &Island, forces: &mut [f64], report: &mut ImplicitReport) {
        let mut modes = self.initial_modes(island);
        let mut history = vec![None; island.elements.len()];
        let local = LocalIndex::new(&island.bodies);
        let mut nu = DVector::zeros(6 * island.bodies.len());
        for pass in 1..=MAX_PASSES {
            let residual = self.solve_velocities(island, &local, &modes, &mut nu);
            report.residual = report.residual.max(residual);
            report.passes = report.passes.max(pass);
            let before = modes.clone();
            let changed =
                self.update_modes(island, &local, &nu, (&mut modes, &mut history), forces);
            if !changed {
                return;
            }
            if pass == MAX_PASSES {
                // Sliding dampers still settling leave forces within a few per cent of the cone's
                // bound; an element that changed kind leaves a force of the wrong law, which is
                // projected onto its bounds.
                let kinds = |m: &Mode| std::mem::discriminant(m);
                let unsettled = before.iter().zip(&modes).any(|(a, b)| kinds(a) != kinds(b));
                report.unsettled |= unsettled;
                let unprojected: Vec<f64> = island.elements.iter().map(|&i| forces[i]).collect();
                self.project(island, forces);
                if unsettled {
                    let law_residual = projection_change(island, &unprojected, forces);
                    report.law_residual = report.law_residual.max(law_residual);
                }
            }
        }
    }

    /// The modes of the first pass: a normal element is on if it would push were the bodies to
    /// move freely (g − D J ν_free ≥ −D [`CONTACT_SPEED_TOLERANCE`]), off otherwise (a spring
    /// that would pull, on, would drag the bodies it joins and could switch off an element that
    /// must push); friction sticks.
    fn initial_modes(&self, island: &Island) -> Vec<Mode> {
        island
            .elements
            .iter()
            .map(|&i| match self.elements[i].law {
                ElementLaw::Unilateral => {
                    let (d, g) = self.coefficients(i);
                    if g - d * self.rows[i].dot(&self.free) >= -CONTACT_SPEED_TOLERANCE * d {
                        Mode::Implicit
                    } else {
                        Mode::Off
                    }
                }
                ElementLaw::Friction { .. } => Mode::Implicit,
            })
            .collect()
    }

    /// Clip the island's forces to their laws: normal forces to f ≥ 0, friction pairs into
    /// their cones.
    fn project(&self, island: &Island, forces: &mut [f64]) {
        for &i in &island.elements {
            if self.elements[i].law == ElementLaw::Unilateral {
                forces[i] = forces[i].max(0.0);
            }
        }
        for &i in &island.elements {
            if let ElementLaw::Friction {
                partner,
                normal,
                mu,
            } = self.elements[i].law
            {
                if partner < i {
                    continue; // the pair is clipped from its first tangent
                }
                let limit = mu * forces[normal];
                let size = forces[i].hypot(forces[partner]);
                if size > limit {
                    let scale = if size > 0.0 { limit / size } else { 0.0 };
                    forces[i] *= scale;
                    forces[partner] *= scale;
                }
            }
        }
    }

    /// Solve for the island's ν⁺ with the elements in `modes`; returns the relative residual.
    fn solve_velocities(
        &self,
        island: &Island,
        local: &LocalIndex,
        modes: &[Mode],
        nu: &mut DVector<f64>,
    ) -> f64 {
        let dof = 6 * island.bodies.len();
        let mut rhs = DVector::zeros(dof);
        for (k, &body) in island.bodies.iter().enumerate() {
            let free = Vector6::from_column_slice(&self.free[6 * body..6 * body + 6]);
            rhs.fixed_rows_mut::<6>(6 * k)
                .copy_from(&(mass_block(self.mass[body].0, self.mass[body].1) * free));
        }
        for (&i, mode) in island.elements.iter().zip(modes) {
            if *mode == Mode::Implicit {
                local.add_transposed(&self.rows[i], self.h * self.coefficients(i).1, &mut rhs);
            }
        }
        let damped: Vec<(usize, f64)> = island
            .elements
            .iter()
            .zip(modes)
            .filter_map(|(&i, m)| match *m {
                Mode::Implicit => Some((i, self.h * self.coefficients(i).0)),
                Mode::Sliding(d) => Some((i, self.h * d)),
                Mode::Off => None,
            })
            .collect();
        self.solve_blocks(island, local, &damped, &rhs, nu)
    }

    /// The island's matrix M + h Σ D J_iᵀ J_i applied to `x`.
    fn apply(
        &self,
        island: &Island,
        local: &LocalIndex,
        damped: &[(usize, f64)],
        x: &DVector<f64>,
    ) -> DVector<f64> {
        let mut y = DVector::zeros(x.len());
        for (k, &body) in island.bodies.iter().enumerate() {
            let xs = Vector6::from_column_slice(&x.as_slice()[6 * k..6 * k + 6]);
            y.fixed_rows_mut::<6>(6 * k)
                .copy_from(&(mass_block(self.mass[body].0, self.mass[body].1) * xs));
        }
        for &(i, hd) in damped {
            let u = local.dot(&self.rows[i], x);
            local.add_transposed(&self.rows[i], hd * u, &mut y);
        }
        y
    }

    /// Block Cholesky of the island's matrix (`solvers::block_cholesky`): the mass blocks and,
    /// per damped row, the products h D J_pᵀ J_q of its blocks. Returns the relative residual.
    fn solve_blocks(
        &self,
        island: &Island,
        local: &LocalIndex,
        damped: &[(usize, f64)],
        rhs: &DVector<f64>,
        nu: &mut DVector<f64>,
    ) -> f64 {
        let mut diagonal: Vec<Matrix6<f64>> = island
            .bodies
            .iter()
            .map(|&b| mass_block(self.mass[b].0, self.mass[b].1))
            .collect();
        let mut off_diagonal = Vec::new();
        for &(i, hd) in damped {
            // The row's (island body, block) pairs, at most two, without allocating.
            let mut v = [(0, Vector6::zeros()); 2];
            let blocks = &self.rows[i].blocks;
            for (slot, (o, b)) in v.iter_mut().zip(blocks.iter()) {
                *slot = (local.map[o / 6] / 6, Vector6::from_column_slice(b));
            }
            let v = &v[..blocks.len()];
            for (p, vp) in v {
                diagonal[*p] += hd * vp * vp.transpose();
            }
            if let [(p, vp), (q, vq)] = v {
                let block = hd * vp * vq.transpose();
                // A pair's elements come in a run: one block per run (the factorization would
                // add them up one by one, in the same order).
                match off_diagonal.last_mut() {
                    Some((lp, lq, sum)) if (*lp, *lq) == (*p, *q) => *sum += block,
                    _ => off_diagonal.push((*p, *q, block)),
                }
            }
        }
        let mut x = rhs.as_slice().to_vec();
        match BlockCholesky::factor(diagonal, &off_diagonal) {
            Ok(chol) => chol.solve(&mut x),
            // M is positive definite and the rest positive semidefinite: only round-off on a
            // wildly scaled island could get here; the residual then says how far off ν is.
            Err(_) => x.iter_mut().for_each(|v| *v = 0.0),
        }
        *nu = DVector::from_vec(x);
        relative_residual(&self.apply(island, local, damped, nu), rhs)
    }

    /// The forces at the island's ν⁺ under `modes`, into `forces`, and the modes of the next
    /// pass; true when a mode changed.
    fn update_modes(
        &self,
        island: &Island,
        local: &LocalIndex,
        nu: &DVector<f64>,
        (modes, history): (&mut [Mode], &mut [SlideHistory]),
        forces: &mut [f64],
    ) -> bool {
        // Trial forces f = g − D u⁺ of every element, whatever its mode.
        let velocity: Vec<f64> = island
            .elements
            .iter()
            .map(|&i| local.dot(&self.rows[i], nu))
            .collect();
        let trial: Vec<f64> = island
            .elements
            .iter()
            .zip(&velocity)
            .map(|(&i, u)| {
                let (d, g) = self.coefficients(i);
                g - d * u
            })
            .collect();
        for (k, &i) in island.elements.iter().enumerate() {
            forces[i] = match modes[k] {
                Mode::Implicit => trial[k],
                Mode::Off => 0.0,
                Mode::Sliding(d) => -d * velocity[k],
            };
        }
        let mut changed = false;
        for (k, &i) in island.elements.iter().enumerate() {
            let next = match self.elements[i].law {
                // Primal–dual active set: on where the linearised law pushes at this pass's
                // velocities, off where it would pull.
                ElementLaw::Unilateral => {
                    if trial[k] > 0.0 {
                        Mode::Implicit
                    } else {
                        Mode::Off
                    }
                }
                ElementLaw::Friction {
                    partner,
                    normal,
                    mu,
                } => {
                    // The two tangents are consecutive elements of the same bodies, so
                    // consecutive in the island's increasing list.
                    let kp = if partner > i { k + 1 } else { k - 1 };
                    debug_assert_eq!(island.elements[kp], partner);
                    let limit = mu * forces[normal].max(0.0);
                    let size = trial[k].hypot(trial[kp]);
                    let speed = velocity[k].hypot(velocity[kp]);
                    if modes[k] == Mode::Implicit && size <= limit * (1.0 + 1e-9) {
                        Mode::Implicit
                    } else {
                        // Entering the slide: the stick solve's slip is too slow a guess for
                        // a contact already sliding; its slip at the state is the better one.
                        let speed = if modes[k] == Mode::Implicit {
                            let start = |j: usize| self.rows[j].dot(&self.velocity);
                            speed.max(start(i).hypot(start(partner)))
                        } else {
                            speed
                        };
                        let d = match (modes[k], history[k]) {
                            (Mode::Sliding(d), Some(last)) => {
                                sliding_damper(limit, last, (d, speed))
                            }
                            _ => limit / speed.max(MIN_SLIP_SPEED),
                        };
                        if let Mode::Sliding(d) = modes[k] {
                            history[k] = Some((d, speed));
                        }
                        // Never stiffer than sticking: a slip that slow sticks.
                        Mode::Sliding(d.min(self.coefficients(i).0))
                    }
                }
            };
            if !same_mode(next, modes[k]) {
                changed = true;
            }
            modes[k] = next;
        }
        changed
    }
}

/// The next sliding damper d (N s/m) for a cone bound `limit` (N) from the last two passes'
/// (damper, slip speed): d s(d) = limit, with 1/s taken linear in d through the two points — exact
/// for one body sliding on a fixed one (s = s_free / (1 + h d / m)), and the secant step of the
/// fixed point d = limit / s otherwise, which alone converges slowly near sticking. Falls back
/// to limit / s when the fit gives no positive answer.
fn sliding_damper(limit: f64, (d0, s0): (f64, f64), (d1, s1): (f64, f64)) -> f64 {
    let plain = limit / s1.max(MIN_SLIP_SPEED);
    if d0 == d1 || s0 <= 0.0 || s1 <= 0.0 {
        return plain;
    }
    let beta = (1.0 / s1 - 1.0 / s0) / (d1 - d0);
    let alpha = 1.0 / s1 - beta * d1;
    let denominator = 1.0 - limit * beta;
    let d = limit * alpha / denominator;
    if denominator > 0.0 && d.is_finite() && d > 0.0 {
        d
    } else {
        plain
    }
}

/// Two modes the same: the same kind, and a sliding damper within [`SLIDING_TOLERANCE`] of the
/// other's.
fn same_mode(a: Mode, b: Mode) -> bool {
    match (a, b) {
        (Mode::Sliding(x), Mode::Sliding(y)) => {
            (x - y).abs() <= SLIDING_TOLERANCE * x.abs().max(y.abs())
        }
        _ => a == b,
    }
}

/// The largest |f − f_projected| over the island's elements relative to its largest force
/// (`ImplicitReport::law_residual`); `unprojected` in the island's element order.
fn projection_change(island: &Island, unprojected: &[f64], forces: &[f64]) -> f64 {
    let (mut change, mut scale) = (0.0f64, 0.0f64);
    for (&i, &f) in island.elements.iter().zip(unprojected) {
        change = change.max((f - forces[i]).abs());
        scale = scale.max(f.abs());
    }
    if scale > 0.0 {
        change / scale
    } else {
        0.0
    }
}

fn relative_residual(ax: &DVector<f64>, b: &DVector<f64>) -> f64 {
    let nb = b.norm();
    if nb == 0.0 {
        ax.norm()
    } else {
        (ax - b).norm() / nb
    }
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

    /// J x for an island vector.
    fn dot(&self, row: &JacobianRow, x: &DVector<f64>) -> f64 {
        row.blocks
            .iter()
            .map(|(o, b)| {
                let l = self.map[o / 6];
                (0..6).map(|k| b[k] * x[l + k]).sum::<f64>()
            })
            .sum()
    }

    /// y += s Jᵀ.
    fn add_transposed(&self, row: &JacobianRow, s: f64, y: &mut DVector<f64>) {
        for (o, b) in row.blocks.iter() {
            let l = self.map[o / 6];
            for k in 0..6 {
                y[l + k] += s * b[k];
            }
        }
    }
}
