//! PEG's passes: detection + solve, repeated (at most `passes` times) while the last solve's
//! velocities ν⁺ bring new potential contacts within reach or leave a constraint's exact
//! end-of-step gap below −`gap_tolerance`.
//!
//! A further pass adds the constraints that ν⁺ brings within reach (a landing impulse spins a body
//! and swings a corner the free-motion sweep did not see) and, with `implicit`, linearizes every
//! gap about the pose ν⁺ leads to: ψ(q + h ν) ≈ ψ(q + h ν⁺) + h G (ν − ν⁺), a Newton step on the
//! exact end-of-step gaps (the geometrically implicit time stepping of Chakraborty, Berard, Akella
//! & Trinkle 2007, applied to PEG's feature pairs; PEG eq. 6 to higher order).
//!
//! ```text
//!   about ← ν_ℓ
//!   loop:
//!     solve the subproblem about `about` (warm-started)            → forces, ν⁺
//!     probe ν⁺: energy guard (> PASS_ENERGY_RATIO × first pass: stop, keep the pass kept)
//!               new constraints at ν⁺, the deepest exact end-of-step violation
//!     keep the pass if it outranks the kept one (solved first, then the shallowest violation)
//!     stop when nothing is new and nothing is violated, or after `passes`
//!     constraints += new;  about ← ν⁺ (implicit)
//! ```
use super::assemble::{assemble, StepLcp};
use super::constraints::{Constraint, Key};
use super::islands;
use super::prediction::{member_gap, retain_reaching};
use super::{Peg, PASS_ENERGY_RATIO};
use crate::collision::Contact;
use crate::contact::{ContactError, SolveReport, VelocityProblem};
use crate::dynamics::energy::kinetic_energy;
use crate::dynamics::jacobian::add_row_forces;
use crate::dynamics::{Model, State, Wrench};
use crate::geometry::Pose;
use crate::solvers::sparse::SparseProblem;
use crate::util::hash::FastSet;
use glam::DVec3;
use nalgebra::DVector;
use rayon::prelude::*;
use std::time::Instant;

/// A step whose LCP has at least this many rows solves its islands in parallel (rayon); below,
/// the threads cost more than they save (`stewart-trinkle` starts at 64 contacts, about as many
/// rows of its LCP as here).
const PARALLEL_MIN_ROWS: usize = 300;

/// A solved subproblem: the LCP, its solution z and the solver's report.
pub(super) type Solved = (StepLcp, DVector<f64>, SolveReport);

/// The pass kept: of the solved passes, the one whose end-of-step pose leaves the shallowest
/// violation (a violation within `gap_tolerance` counts as none; later passes win ties, as they
/// hold more constraints); a pass no solver met the tolerance for only when none was solved
/// (measured: a failed first pass with no violation outranked a solved fourth at −6e-7 m and
/// counted a solver failure). Newton on a non-smooth problem need not improve monotonically.
pub(super) struct Kept {
    pub(super) solved: Solved,
    /// The wrenches (applied plus contact) of the pass.
    pub(super) forces: Vec<Wrench>,
    /// Constraints the pass solved (the first `count` of the step's).
    pub(super) count: usize,
    score: f64,
}

impl Kept {
    fn new(solved: Solved, forces: &[Wrench], count: usize, score: f64) -> Self {
        Kept {
            solved,
            forces: forces.to_vec(),
            count,
            score,
        }
    }

    /// Does a pass `solved` whose violation scores `score` replace this one?
    fn yields_to(&self, solved: &Solved, score: f64) -> bool {
        let solved_ok = !solved.2.failed;
        let kept_ok = !self.solved.2.failed;
        solved_ok > kept_ok || (solved_ok == kept_ok && score >= self.score)
    }
}

/// What the passes of a step end with.
pub(super) struct Passes {
    pub(super) kept: Kept,
    /// Passes run.
    pub(super) pass: usize,
    /// 1 when a further pass was dropped (`PegStats::passes_dropped`).
    pub(super) dropped: usize,
    /// Detection time (s), the first detection's included.
    pub(super) detection: f64,
}

/// What probing a pass's velocities ν⁺ found.
struct Probe {
    /// Constraints ν⁺ brings within reach that the pass did not hold.
    extra: Vec<Constraint>,
    /// With `implicit`: a constraint ends the step deeper than `gap_tolerance`.
    violated: bool,
    /// The deepest violation beyond `gap_tolerance` (m, ≤ 0), else 0.
    score: f64,
}

impl Peg {
    /// Run the passes of a step from the `constraints` of the free motion (which grow by what
    /// each pass brings), with the applied wrenches in `out`; `out` ends with the last pass's
    /// forces added, the kept pass's are in the result.
    pub(super) fn run_passes(
        &mut self,
        problem: &VelocityProblem,
        contacts: &[Contact],
        distance: f64,
        constraints: &mut Vec<Constraint>,
        mut detection: f64,
        out: &mut [Wrench],
    ) -> Result<Passes, ContactError> {
        let model = problem.model;
        let mut about = problem.free_velocity().to_vec();
        // A subproblem beyond `max_rows` keeps the constraints the motion at hand reaches.
        let margin = model.settings.activation_distance;
        let all: Vec<&Constraint> = constraints.iter().collect();
        if self.island_rows(model, &all) > self.max_rows {
            let poses = problem.poses_after(&about);
            retain_reaching(model, &poses, margin, constraints);
        }
        let mut kept: Option<Kept> = None;
        let mut first_energy: Option<f64> = None;
        let mut pass = 0;
        let mut dropped = 0;
        let mut solve_seconds = 0.0;
        loop {
            pass += 1;
            // A further pass that cannot be posed (max_rows) or solved leaves the step with the
            // pass kept so far.
            let attempt = self.solve_constraints(problem, constraints, &about, out);
            if let Ok(r) = &attempt {
                solve_seconds += r.2.seconds;
            }
            let solved = match attempt {
                Ok(r) if !(r.2.failed && kept.as_ref().is_some_and(|k| !k.solved.2.failed)) => r,
                _ if kept.is_some() => {
                    dropped = 1;
                    break;
                }
                Err(e) => return Err(e),
                Ok(r) => r,
            };
            if self.passes == 1 {
                kept = Some(Kept::new(solved, out, constraints.len(), 0.0));
                break;
            }
            let t1 = Instant::now();
            let nu = problem.velocity_after(out);
            let probe = self.probe(
                problem,
                contacts,
                distance,
                constraints,
                &nu,
                &mut first_energy,
            );
            detection += t1.elapsed().as_secs_f64();
            let Some(probe) = probe else {
                dropped = 1;
                break;
            };
            if kept
                .as_ref()
                .is_none_or(|k| k.yields_to(&solved, probe.score))
            {
                kept = Some(Kept::new(solved, out, constraints.len(), probe.score));
            }
            if (probe.extra.is_empty() && !probe.violated) || pass >= self.passes {
                break;
            }
            constraints.extend(probe.extra);
            if self.implicit {
                about = nu;
            }
            out.copy_from_slice(problem.applied);
        }
        let mut kept = kept.expect("the first pass is kept or returned an error");
        // The step's solve time is every pass's, not the kept pass's alone.
        kept.solved.2.seconds = solve_seconds;
        Ok(Passes {
            kept,
            pass,
            dropped,
            detection,
        })
    }

    /// Probe a pass's velocities `nu` (its solve over `constraints`): None when they carry more
    /// than `PASS_ENERGY_RATIO` × the first pass's kinetic energy (`first_energy`, set by the
    /// first probe), else the constraints they bring and the deepest end-of-step violation.
    fn probe(
        &mut self,
        problem: &VelocityProblem,
        contacts: &[Contact],
        distance: f64,
        constraints: &[Constraint],
        nu: &[f64],
        first_energy: &mut Option<f64>,
    ) -> Option<Probe> {
        let (model, state) = (problem.model, problem.state);
        let probe = with_velocities(model, state, nu);
        // A pass whose velocities carry more than `PASS_ENERGY_RATIO` × the first pass's
        // kinetic energy is a diverging Newton iterate (measured: one gave a body 1.6e5
        // rad/s); the step keeps the pass kept so far and stops iterating.
        let energy = kinetic_energy(model, &probe);
        let first = *first_energy.get_or_insert(energy);
        if energy > PASS_ENERGY_RATIO * first + f64::EPSILON {
            return None;
        }
        let known: FastSet<Key> = constraints.iter().map(|c| c.key).collect();
        let mut extra: Vec<Constraint> = self
            .constraints(model, &probe, contacts, distance)
            .into_iter()
            .filter(|c| !known.contains(&c.key))
            .collect();
        let poses = problem.poses_after(nu);
        let all: Vec<&Constraint> = constraints.iter().chain(&extra).collect();
        if self.island_rows(model, &all) > self.max_rows {
            let margin = model.settings.activation_distance;
            retain_reaching(model, &poses, margin, &mut extra);
        }
        let floor = |c: &Constraint| c.recovery_floor(problem.h, self.max_recovery_speed);
        let depth = deepest_violation(model, &poses, constraints, &extra, floor);
        let violated = self.implicit && depth < -self.gap_tolerance;
        let score = if depth < -self.gap_tolerance {
            depth
        } else {
            0.0
        };
        Some(Probe {
            extra,
            violated,
            score,
        })
    }

    /// Assemble and solve the subproblem of `constraints` (warm-started from last step's
    /// solution of the same constraints) and add the contact forces to `out`.
    fn solve_constraints(
        &mut self,
        problem: &VelocityProblem,
        constraints: &[Constraint],
        about: &[f64],
        out: &mut [Wrench],
    ) -> Result<Solved, ContactError> {
        let (model, h) = (problem.model, problem.h);
        let k = self.directions;
        let mu = self.friction_coefficients(model, constraints);
        let about = self.predict.then_some(about);
        let islands = islands::partition(model, constraints);
        if islands.len() > 1 {
            return self.solve_islands(problem, constraints, &islands, (&mu, about), out);
        }
        let lcp = assemble(problem, constraints, &mu, k, about, self.max_recovery_speed);
        let (np, nt, nf, ns) = (constraints.len(), lcp.nt, lcp.frictional.len(), lcp.ns);
        let n = lcp.len();
        if n > self.max_rows {
            return Err(self.too_large(problem, n, np, ns));
        }
        // Warm start from the same constraints last step.
        let (warm, proposed) = self.warm_start(constraints, &lcp, k);
        // One island: the step's LCP is this one (`solve_lcp` sends a large one to the sparse
        // path, without resting faces).
        let (z, report) =
            self.solve_lcp(&lcp, (&warm, &proposed), self.least_norm, || {
                format!(
                "PEG LCP of {n} rows ({np} constraints, {nf} with friction, {ns} slack variables)"
            )
            })?;
        add_row_forces(model, &lcp.rows, &z.as_slice()[..np + nt], h, out);
        Ok((lcp, z, report))
    }

    /// [`solve_constraints`](Self::solve_constraints) for constraints of several `islands`
    /// (`islands.rs`): each island's LCP assembled, checked against `max_rows` and solved
    /// (warm-started) on its own, in island order; the answers combined into the step's layout.
    /// `mu`: each constraint's friction coefficient; `about`: the linearization's ν*.
    fn solve_islands(
        &self,
        problem: &VelocityProblem,
        constraints: &[Constraint],
        islands: &[Vec<usize>],
        (mu, about): (&[f64], Option<&[f64]>),
        out: &mut [Wrench],
    ) -> Result<Solved, ContactError> {
        let (model, h, k) = (problem.model, problem.h, self.directions);
        let recovery = self.max_recovery_speed;
        let layout = islands::Layout::new(constraints, mu, k);
        let count = islands.len();
        // Resting faces' least-norm warm starts on a step without a large island
        // (`stewart-trinkle`'s `resting_faces_apply`).
        let least_norm = self.least_norm && !self.solvers.is_large(layout.len());
        let solve = |(i, island): (usize, &Vec<usize>)| {
            let part = islands::assemble_island(
                problem,
                constraints,
                island,
                &layout,
                mu,
                k,
                about,
                recovery,
            );
            let (np, nf, ns) = (
                part.constraints.len(),
                part.lcp.frictional.len(),
                part.lcp.ns,
            );
            let n = part.lcp.len();
            if n > self.max_rows {
                return Err(self.too_large(problem, n, np, ns));
            }
            let (warm, proposed) = self.warm_start(&part.constraints, &part.lcp, k);
            let (z, solved) = self.solve_lcp(&part.lcp, (&warm, &proposed), least_norm, || {
                format!(
                    "PEG LCP of {n} rows ({np} constraints, {nf} with friction, {ns} slack variables), island {} of {count}",
                    i + 1
                )
            })?;
            Ok(((part, z), solved))
        };
        // Each island's answer depends on its own data only, and they are combined in island
        // order: the same result with any number of threads.
        let t0 = Instant::now();
        let solved: Vec<Result<_, ContactError>> = if layout.len() >= PARALLEL_MIN_ROWS {
            islands.par_iter().enumerate().map(solve).collect()
        } else {
            islands.iter().enumerate().map(solve).collect()
        };
        let mut parts = Vec::with_capacity(count);
        let mut report: Option<SolveReport> = None;
        for result in solved {
            let (part, one) = result?;
            report = Some(match report {
                None => one,
                Some(r) => r.combined(&one),
            });
            parts.push(part);
        }
        // Wall-clock time of the islands' assembly and solves: the islands' own times add up
        // the threads' (on two threads the solve stage outran the whole step and `metrics.csv`'s
        // model_seconds, the remainder, went negative).
        let mut report = report.expect("at least one island");
        report.seconds = t0.elapsed().as_secs_f64();
        let (lcp, z) = islands::combine(constraints, mu, k, &parts);
        let impulses = constraints.len() + lcp.nt;
        add_row_forces(model, &lcp.rows, &z.as_slice()[..impulses], h, out);
        Ok((lcp, z, report))
    }

    /// μ of each constraint's rows: the pair's coefficient, 0 without friction (`friction =
    /// "none"`) and for a recovery constraint.
    pub(super) fn friction_coefficients(
        &self,
        model: &Model,
        constraints: &[Constraint],
    ) -> Vec<f64> {
        constraints
            .iter()
            .map(|c| {
                if self.frictional && !c.recovery {
                    model.friction(c.primary.body_a, c.primary.body_b)
                } else {
                    0.0
                }
            })
            .collect()
    }

    /// An island's LCP by the solvers chain: dense below `large_island_rows`, from there on the
    /// sparse matrix first (`SolverChain::solve_sparse`: Lemke's method with a sparse LU of the
    /// basis, then block Gauss–Seidel, as `stewart-trinkle`'s large islands; PEG's matrix has no
    /// free rows).
    fn solve_lcp(
        &self,
        lcp: &StepLcp,
        (warm, proposed): (&DVector<f64>, &[bool]),
        least_norm: bool,
        what: impl FnOnce() -> String,
    ) -> Result<(DVector<f64>, SolveReport), ContactError> {
        if self.solvers.is_large(lcp.len()) {
            return self
                .solvers
                .solve_sparse(&SparseProblem::from_dense(lcp.problem()), warm, what);
        }
        // On a step of resting faces (`least_norm`), Lemke's warm start with the proposed rows
        // (`SolverChain::warm_start`) on the operator (M never formed: `PegOperator`); a miss
        // goes to the chain on the dense matrix, assembled then, whose Lemke tries the support
        // of `warm` alone before pivoting, and counts as an attempt.
        let tried =
            least_norm && self.solvers.warm_start_applies(lcp.len(), warm) && lcp.finite();
        if tried {
            let attempt = match lcp.operator() {
                Some(op) => self.solvers.warm_start(&op, &lcp.q, warm, proposed, true),
                None => self
                    .solvers
                    .warm_start(&lcp.problem().m, &lcp.q, warm, proposed, true),
            };
            if let Ok((z, report, _)) = attempt {
                return Ok((z, report));
            }
        }
        let (z, mut report) = self.solvers.solve(lcp.problem(), warm, what)?;
        report.attempts += usize::from(tried);
        Ok((z, report))
    }

    /// The diagnosis of a subproblem of `n` rows beyond `max_rows` (`np` constraints, `ns` slack
    /// rows), with the fastest turning body.
    fn too_large(&self, problem: &VelocityProblem, n: usize, np: usize, ns: usize) -> ContactError {
        let (model, state) = (problem.model, problem.state);
        let fastest = (0..model.bodies.len())
            .filter(|&i| model.bodies[i].moves(state.time))
            .max_by(|&i, &j| {
                let w = |k: usize| state.bodies[k].angular_velocity.length();
                w(i).total_cmp(&w(j))
            });
        ContactError::TooManyRows {
            rows: n,
            constraints: np,
            slacks: ns,
            max_rows: self.max_rows,
            fastest: fastest.map(|i| {
                (
                    model.bodies[i].name.clone(),
                    state.bodies[i].angular_velocity.length(),
                )
            }),
        }
    }
}

/// `state` with the body velocities `nu` (generalized, `Model::dof_offsets` order).
fn with_velocities(model: &Model, state: &State, nu: &[f64]) -> State {
    let mut probe = state.clone();
    let offsets = model.dof_offsets();
    for (i, bs) in probe.bodies.iter_mut().enumerate() {
        if let Some(o) = offsets[i] {
            bs.velocity = DVec3::from_slice(&nu[o..o + 3]);
            bs.angular_velocity = DVec3::from_slice(&nu[o + 3..o + 6]);
        }
    }
    probe
}

/// The deepest end-of-step violation: over the constraints, of the largest exact member gap at
/// the `poses` ν⁺ leads to, measured from the constraint's recovery `floor` (m, ≤ 0: what the
/// step must reach, `Constraint::recovery_floor`). A constraint with no exact member gap (a
/// narrow-phase face–edge point) is linear: the solve itself holds it.
fn deepest_violation(
    model: &Model,
    poses: &[Pose],
    constraints: &[Constraint],
    extra: &[Constraint],
    floor: impl Fn(&Constraint) -> f64,
) -> f64 {
    constraints
        .iter()
        .chain(extra)
        .filter_map(|c| {
            std::iter::once(&c.primary)
                .chain(&c.others)
                .filter_map(|m| member_gap(model, poses, c.key.4, m))
                .reduce(f64::max)
                .map(|gap| gap - floor(c))
        })
        .fold(f64::INFINITY, f64::min)
}
