//! PEG, the polytopal exact-geometry contact model (Williams, Lu & Trinkle 2016), in the same
//! velocity-level time stepper as Stewart–Trinkle (paper §6: "the only difference in the time
//! steppers was that one used the standard contact model and the other used PEG"), with Coulomb
//! friction on a polyhedral cone added (the paper leaves friction out).
//!
//! Polytope pairs that the narrow phase finds close are handed to `collision::potential`, which
//! enumerates their potential contacts and groups them into constraints "at least one member keeps
//! ψ ≥ 0" (U-, I- and X-constraints, eqs 17–25, per configuration, eqs 34–38). Every other contact
//! (sphere, half-space) is a plain unilateral constraint, as in the standard model: a plane or a
//! smooth surface has no corner to be trapped at.
//!
//! # One primary contact per constraint (eq. 24)
//!
//! Each constraint j gets one primary contact P_j (|C_ι| = 1), the only one that carries a force;
//! the other members K_j1 … K_jm are geometry only. The heuristic: for a vertex group, the member
//! with the **largest gap** (ties: the more applicable, then the first): the face in whose Voronoi
//! region the vertex lies (the largest face-plane distance of a point outside a convex body is the
//! face that realizes its distance), and for a penetrating vertex the face of the shallowest way
//! out. Applicability only breaks ties: a vertex swept through a thin slab also sees the slab's far
//! face, often the only "applicable" member, and a force along that face's normal pushes the body
//! *into* the slab while another constraint pushes back (measured on the pour scene: two opposite
//! impulses of 80 N s and a body spun to 700 rad/s). Edge groups have the edge–edge contact as
//! their only candidate (their releases carry no force).
//!
//! # The subproblem (eqs 39–49, velocity level)
//!
//! With ψ̂_X = ψ_X / h + G_X ν⁺ (the end-of-step gap over h, eq. 6; ψ_t = 0: no body here moves by
//! prescription) and slack variables c (m/s):
//!
//! ```text
//!   ν⁺ = ν_ℓ + M⁻¹ (Σ_j G_Pjᵀ p_j + Dᵀ β)                               (eq. 43, plus friction)
//!   0 ≤ c_js ⊥ c_j1 + … + c_js + ψ̂_Pj − ψ̂_Kjs ≥ 0     s = 1 … m       (eqs 20, 39, 45)
//!   0 ≤ p_j  ⊥ c_j1 + … + c_jm + ψ̂_Pj ≥ 0                             (eqs 24, 40, 46)
//!   0 ≤ β_j  ⊥ D_jᵀ ν⁺ + e σ_j ≥ 0,   0 ≤ σ_j ⊥ μ_j p_j − eᵀ β_j ≥ 0   (friction on P_j)
//! ```
//!
//! By Lemma 1.1 the chain makes ψ̂_Pj + Σ_s c_js = max(ψ̂_Pj, ψ̂_Kj1, …, ψ̂_Kjm): the constraint holds
//! when any member ends the step with a non-negative gap, and p_j pushes along P_j's normal only
//! when that maximum is zero. Eliminating ν⁺ as in `stewart_trinkle.rs` leaves an LCP in
//! z = (p, β, σ, c):
//!
//! ```text
//!   [ W_PP  W_PD  0   E_P ]       [ G_P ν_ℓ + ψ_P/h     ]
//!   [ W_DP  W_DD  E   0   ]       [ D ν_ℓ               ]
//!   [ μ     −Eᵀ   0   0   ] z  +  [ 0                   ]
//!   [ W_ΔP  W_ΔD  0   L   ]       [ Δ ν_ℓ + (ψ_P − ψ_K)/h ]
//! ```
//!
//! with Δ the rows G_Pj − G_Kjs (eq. 42), E_P the ones of eq. 24 and L the lower-triangular ones of
//! E_I1 (eq. 45). The ψ/h stabilization term is kept, as in the paper's experiments. The c rows
//! have a unit diagonal, the σ rows a zero one: Lemke or Fischer–Burmeister solve it
//! (`docs/solvers.md`), with the same fallback chain as Stewart–Trinkle.
//!
//! # Activation
//!
//! The narrow phase finds the candidate pairs with Stewart–Trinkle's anticipating distance
//! (`time_stepping::anticipating_distance`). Within a pair (a, b), features are swept over
//! T = h with their velocity relative to the other body (a vertex p moving at w sweeps
//! [p, p + T w]) and kept when they come within σ = `simulation.activation_distance` +
//! T² (|ω_a|² r_a + |ω_b|² r_b + |g|) / 2 of each other: what they can close in one free step,
//! plus the second-order motion of rotation and gravity. A fast body thus gets potential contacts
//! only ahead of it, a resting one only within σ. A given `activation_distance` is σ for every
//! pair, without sweeping. T = 2h was tried: it also covers the turn a contact impulse gives the
//! body within the step, but two small polytopes at 2 m/s and 27 rad/s then have nearly all their
//! edge pairs within reach (1700 constraints, an LCP of 18,000 rows that Lemke cannot finish);
//! with T = h a corner the impulse swings down is found by the next pass, whose detection sweeps
//! the solve's velocities, and held by the implicit re-linearization (`contact_forces`).
use super::params::model_params;
use super::time_stepping::{self, SolverChain};
use super::VelocityProblem;
use super::{
    cone, contact_jacobian_row, ConfigError, ContactError, ModelBase, ModelSpec, ModelStats,
    ParamDefault, ParamKind, ParamSpec, ParamValue, Range, VelocityLevelModel,
};
use crate::collision::potential::{
    self, feature_gap, release_gap, GroupKey, PotentialParams, PotentialSet,
};
use crate::collision::Contact;
use crate::dynamics::energy::kinetic_energy;
use crate::dynamics::integrate::rotate_by;
use crate::dynamics::jacobian::{
    add_row_forces, cross_delassus, delassus, row_difference, JacobianRow,
};
use crate::dynamics::{Model, State, Wrench};
use crate::geometry::{Feature, Pose, Shape};
use crate::solvers::Problem;
use glam::DVec3;
use nalgebra::{DMatrix, DVector};
use std::collections::HashMap;
use std::time::Instant;

pub const NAME: &str = "peg";

/// A constraint whose primary ends the step more than this below its plane (m) let its body pass
/// a corner the standard model's half-space would have blocked: a trap, counted in [`PegStats`].
pub const TRAP_DEPTH: f64 = 1e-9;

/// A further pass whose velocities hold more kinetic energy than this times the first pass's
/// (whose linearization is about the free motion) is not kept: re-linearizing moves where the
/// gaps are measured, not how much energy contact may add. Measured on the pour sweep: 1.1
/// stopped converging landings at 16 ms (the first pass under-rotates the body) and left mm-deep
/// overlaps; 1.5 keeps them, with the sweep's largest one-step energy gain unchanged.
pub const PASS_ENERGY_RATIO: f64 = 1.5;

model_params! {
    /// Parameters of `peg`.
    pub struct PegParams {
        activation_distance: Option<f64> = ParamSpec {
            name: "activation_distance",
            unit: "m",
            default: ParamDefault::Derived(
            "features swept over T = h with their relative velocity, margin simulation.activation_distance + T^2 (|w_a|^2 r_a + |w_b|^2 r_b + |g|) / 2",
            ),
            description: "feature pairs closer than this are potential contacts (no sweep when given); the default sweeps each feature over its free motion in one step (r_i: body i's bounding radius about its centre of mass)",
            kind: ParamKind::Number(Range::at_least(0.0)),
        },
        applicability_angle: f64 = ParamSpec {
            name: "applicability_angle",
            unit: "rad",
            default: ParamDefault::Value(0.2),
            description: "theta of the relaxed applicability eps = sin(theta) (PEG eqs 29-31): feature pairs that a turn of theta within a step would make able to touch count as potential contacts",
            kind: ParamKind::Number(Range::closed(0.0, std::f64::consts::FRAC_PI_2)),
        },
        parallel_angle: f64 = ParamSpec {
            name: "parallel_angle",
            unit: "rad",
            default: ParamDefault::Value(1e-3),
            description: "edges closer to parallel than this give no edge-edge contact (their endpoints' vertex constraints hold them)",
            kind: ParamKind::Number(Range::closed(0.0, std::f64::consts::FRAC_PI_2)),
        },
        gap_prediction: &'static str = ParamSpec {
            name: "gap_prediction",
            unit: "-",
            default: ParamDefault::Word("implicit"),
            description: "end-of-step gap: \"linear\" psi + h G nu (PEG eq. 6 truncated after the linear term, as the paper's experiments); \"free-motion\" the exact gap of each feature pair after one free step, linearized about it (eq. 6 to higher order); \"implicit\" as free-motion, then each further pass linearizes about the pose the previous pass's velocities lead to (a Newton iteration on the exact end-of-step gaps: the turn a contact impulse gives a body no longer drives its corners into faces)",
            kind: ParamKind::Choice(&["implicit", "free-motion", "linear"]),
        },
        friction: &'static str = ParamSpec {
            name: "friction",
            unit: "-",
            default: ParamDefault::Word("coulomb"),
            description: "\"coulomb\": a polyhedral Coulomb cone on every force-carrying contact, with the materials' coefficients; \"none\": frictionless, as in the paper",
            kind: ParamKind::Choice(&["coulomb", "none"]),
        },
        max_rows: usize = ParamSpec {
            name: "max_rows",
            unit: "-",
            default: ParamDefault::Value(1250.0),
            description: "largest subproblem (rows of the LCP in p, beta, sigma, c) a step may pose; beyond it the step stops with a diagnosis instead of running dense Lemke for minutes (the box stack's 1100 rows take 0.05-0.25 s a step; on the pour scene 1456 rows did not finish in 5 minutes and a spinning body brought 18,000). Fast spinning bodies bring nearly every feature pair within reach",
            kind: ParamKind::Number(Range::at_least(1.0).integer()),
        },
        friction_directions: usize = time_stepping::FRICTION_DIRECTIONS,
        solvers: Vec<&'static str> = time_stepping::SOLVERS,
        tolerance: f64 = time_stepping::TOLERANCE,
        max_iterations: usize = time_stepping::MAX_ITERATIONS,
        max_pivots: Option<usize> = time_stepping::MAX_PIVOTS,
        relaxation: f64 = time_stepping::RELAXATION,
        on_failure: &'static str = time_stepping::ON_FAILURE,
        passes: usize = ParamSpec {
            name: "passes",
            unit: "-",
            default: ParamDefault::Value(4.0),
            description: "most detection + solve passes per step; a further pass runs only when the last pass's velocities bring new potential contacts within reach or leave a constraint's exact end-of-step gap below -gap_tolerance",
            kind: ParamKind::Number(Range::at_least(1.0).integer()),
        },
        gap_tolerance: f64 = ParamSpec {
            name: "gap_tolerance",
            unit: "m",
            default: ParamDefault::Value(1e-7),
            description: "a constraint whose members all end the step (at the pose the pass's velocities lead to, exact geometry) deeper than this calls for another pass",
            kind: ParamKind::Number(Range::at_least(0.0)),
        },
        recovery_depth: f64 = ParamSpec {
            name: "recovery_depth",
            unit: "m",
            default: ParamDefault::Value(1e-5),
            description: "a polytope pair that the narrow phase finds overlapping deeper than this also gets its standard (narrow-phase) contacts as unilateral constraints, which push the pieces apart; PEG's groups alone hold what they see, not an overlap that an unseen feature pair let in",
            kind: ParamKind::Number(Range::at_least(0.0)),
        },
    }
}

const PARAMS: &[ParamSpec] = PegParams::SPECS;

pub const SPEC: ModelSpec = ModelSpec {
    name: NAME,
    summary: "PEG: geometrically exact polytope contact (potential contacts before penetration, one primary contact per I/X-constraint) in the Stewart-Trinkle time stepper, polyhedral friction cone",
    params: PARAMS,
};

/// What the last step's subproblem held.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PegStats {
    /// Constraints (one force each): unilateral, inter-contact (vertex groups of several faces)
    /// and cross-contact (edge–edge with releases).
    pub unilateral: usize,
    pub inter: usize,
    pub cross: usize,
    /// Non-primary members (slack variables c).
    pub slacks: usize,
    /// Constraints with several members whose primary ended the step more than [`TRAP_DEPTH`]
    /// beyond its plane: the body went round a corner that the primary's half-space alone (the
    /// standard model's contact) would have blocked.
    pub traps: usize,
    /// Detection + solve passes the step ran (parameter `passes`).
    pub passes: usize,
    /// 1 when a further pass's subproblem was too large or was not solved, or its velocities
    /// diverged, so that the step kept an earlier pass's solution.
    pub passes_dropped: usize,
}

/// What a constraint is, across steps (for warm starts).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum What {
    Group(GroupKey),
    Plain(Feature, Feature),
}

type Key = (usize, usize, usize, usize, What);

fn key(c: &Contact, what: What) -> Key {
    (c.body_a, c.piece_a, c.body_b, c.piece_b, what)
}

/// Last step's solution of a constraint: p, β (k entries or none), σ, and the slack of each
/// member by its features.
#[derive(Clone, Debug, Default)]
struct Previous {
    p: f64,
    beta: Vec<f64>,
    sigma: f64,
    slacks: Vec<((Feature, Feature), f64)>,
}

/// One constraint of the subproblem.
struct Constraint {
    primary: Contact,
    /// The other members, in chain order.
    others: Vec<Contact>,
    key: Key,
    multi: bool,
    cross: bool,
    /// A recovery contact (narrow phase, deep overlap, frictionless).
    recovery: bool,
}

/// The PEG contact model.
pub struct Peg {
    values: Vec<ParamValue>,
    activation_distance: Option<f64>,
    /// θ (rad) of the applicability relaxation, before the pair's turn over the horizon.
    applicability_angle: f64,
    parallel_sine: f64,
    /// Gap prediction: exact gaps at a predicted pose (else linear), re-linearized each pass.
    predict: bool,
    implicit: bool,
    /// Most passes per step, and the end-of-step depth (m) that calls for another.
    passes: usize,
    gap_tolerance: f64,
    /// Narrow-phase overlap (m) beyond which a polytope pair also gets its standard contacts.
    recovery_depth: f64,
    frictional: bool,
    /// Largest LCP a step may pose (rows).
    max_rows: usize,
    directions: usize,
    solvers: SolverChain,
    radii: Vec<f64>,
    /// Faces covered by another piece of the same body, per body and piece.
    covered: Vec<Vec<Vec<bool>>>,
    potential: PotentialSet,
    scratch: potential::Scratch,
    previous: HashMap<Key, Previous>,
    last: PegStats,
}

impl Peg {
    /// `values` in the order of the spec's parameters.
    pub fn new(values: &[ParamValue]) -> Result<Self, ConfigError> {
        let p = PegParams::from_values(values);
        Ok(Peg {
            values: values.to_vec(),
            activation_distance: p.activation_distance,
            applicability_angle: p.applicability_angle,
            parallel_sine: p.parallel_angle.sin(),
            predict: p.gap_prediction != "linear",
            implicit: p.gap_prediction == "implicit",
            passes: p.passes,
            gap_tolerance: p.gap_tolerance,
            recovery_depth: p.recovery_depth,
            frictional: p.friction == "coulomb",
            max_rows: p.max_rows,
            directions: p.friction_directions,
            solvers: time_stepping::solver_chain!(p)?,
            radii: Vec::new(),
            covered: Vec::new(),
            potential: PotentialSet::default(),
            scratch: potential::Scratch::default(),
            previous: HashMap::new(),
            last: PegStats::default(),
        })
    }

    /// The model with every parameter at its default.
    pub fn with_defaults() -> Self {
        Peg::new(&PegParams::defaults()).expect("defaults are valid")
    }

    /// What the last step's subproblem held.
    pub fn last_stats(&self) -> PegStats {
        self.last
    }

    /// The potential contacts and groups of the last step.
    pub fn potential_contacts(&self) -> &PotentialSet {
        &self.potential
    }

    /// The search thresholds for bodies `a` and `b` at `state`: look-ahead T = h, margin
    /// σ = `simulation.activation_distance` + T² (|ω_a|² r_a + |ω_b|² r_b + |g|) / 2 (the
    /// second-order motion of a point over T), or σ = `activation_distance` and T = 0 when given;
    /// applicability relaxed by θ = `applicability_angle` + T |ω_a − ω_b| (the pair's turn over
    /// T), at most π/2.
    pub fn pair_params(&self, model: &Model, state: &State, a: usize, b: usize) -> PotentialParams {
        let (distance, horizon) = match self.activation_distance {
            Some(d) => (d, 0.0),
            None => {
                let s = &model.settings;
                let t = s.time_step;
                let spin = |i: usize| {
                    if model.bodies[i].moves(state.time) {
                        let r = self.radii.get(i).copied().unwrap_or(0.0);
                        state.bodies[i].angular_velocity.length_squared() * r
                    } else {
                        0.0
                    }
                };
                let curvature = spin(a) + spin(b) + s.gravity.length();
                (s.activation_distance + 0.5 * t * t * curvature, t)
            }
        };
        // The relative turn over the horizon widens the applicability relaxation.
        let turn = horizon
            * (state.bodies[a].angular_velocity - state.bodies[b].angular_velocity).length();
        let theta = (self.applicability_angle + turn).min(std::f64::consts::FRAC_PI_2);
        PotentialParams {
            distance,
            horizon,
            applicability: theta.sin(),
            parallel_sine: self.parallel_sine,
            ..PotentialParams::with_distance(distance)
        }
    }

    /// Rows of the subproblem of `constraints`: a force, the friction rows (k directions and σ)
    /// and a slack per non-primary member each.
    fn rows(&self, model: &Model, constraints: &[Constraint]) -> usize {
        constraints
            .iter()
            .map(|c| {
                let frictional =
                    self.frictional && model.friction(c.primary.body_a, c.primary.body_b) > 0.0;
                1 + c.others.len() + if frictional { self.directions + 1 } else { 0 }
            })
            .sum()
    }

    /// The constraints of this step: PEG groups of close polytope pairs, then the other contacts.
    fn constraints(
        &mut self,
        model: &Model,
        state: &State,
        contacts: &[Contact],
        distance: f64,
    ) -> Vec<Constraint> {
        let is_polytope =
            |b: usize, p: usize| matches!(model.bodies[b].pieces[p].shape, Shape::Polytope(_));
        let mut pairs: Vec<(usize, usize, usize, usize)> = contacts
            .iter()
            .filter(|c| is_polytope(c.body_a, c.piece_a) && is_polytope(c.body_b, c.piece_b))
            .map(|c| (c.body_a, c.piece_a, c.body_b, c.piece_b))
            .collect();
        pairs.sort_unstable();
        pairs.dedup();
        self.potential.clear();
        let params: Vec<PotentialParams> = pairs
            .iter()
            .map(|&(a, _, b, _)| self.pair_params(model, state, a, b))
            .collect();
        let mut scratch = std::mem::take(&mut self.scratch);
        let mut set = std::mem::take(&mut self.potential);
        if self.covered.len() != model.bodies.len() {
            self.covered = model.bodies.iter().map(potential::covered_faces).collect();
        }
        for (pair, params) in pairs.iter().zip(&params) {
            potential::detect(
                model,
                state,
                std::slice::from_ref(pair),
                |_, _| *params,
                &self.covered,
                &mut scratch,
                &mut set,
            );
        }
        self.scratch = scratch;
        self.potential = set;

        let set = &self.potential;
        let mut out = Vec::with_capacity(set.groups.len() + contacts.len());
        for g in &set.groups {
            // The primary: the member of largest gap (vertex groups) or the edge-edge contact
            // (edge groups, whose releases carry no force), then the most applicable, then the
            // first.
            let pool = if g.from_edges {
                &g.candidates
            } else {
                &g.members
            };
            let primary = *pool
                .iter()
                .max_by(|&&i, &&j| {
                    let (ci, cj) = (&set.contacts[i], &set.contacts[j]);
                    ci.gap
                        .total_cmp(&cj.gap)
                        .then(set.applicability[i].total_cmp(&set.applicability[j]))
                        .then(j.cmp(&i))
                })
                .expect("a group has a candidate");
            let c = set.contacts[primary];
            out.push(Constraint {
                primary: c,
                others: g
                    .members
                    .iter()
                    .filter(|&&m| m != primary)
                    .map(|&m| set.contacts[m])
                    .collect(),
                key: key(&c, What::Group(g.key)),
                multi: g.members.len() > 1,
                cross: g.from_edges && g.members.len() > 1,
                recovery: false,
            });
        }
        // Recovery: a polytope pair the narrow phase finds overlapping deeper than
        // `recovery_depth` also gets its standard contacts (those not already a primary), so
        // that the ψ/h term pushes the pieces apart whatever let them in. They are frictionless:
        // a recovery contact against a group on the same vertex, with friction on both, locked
        // into a squeeze of 3700 N s each way and spun a body to 1.2e3 rad/s (pour, h = 2 ms).
        let primaries: std::collections::HashSet<Key> = out
            .iter()
            .map(|c| {
                key(
                    &c.primary,
                    What::Plain(c.primary.feature_a, c.primary.feature_b),
                )
            })
            .collect();
        for c in contacts {
            if is_polytope(c.body_a, c.piece_a) && is_polytope(c.body_b, c.piece_b) {
                let k = key(c, What::Plain(c.feature_a, c.feature_b));
                if c.gap < -self.recovery_depth && !primaries.contains(&k) {
                    out.push(Constraint {
                        primary: *c,
                        others: Vec::new(),
                        key: k,
                        multi: false,
                        cross: false,
                        recovery: true,
                    });
                }
                continue;
            }
            if c.gap < distance {
                out.push(Constraint {
                    primary: *c,
                    others: Vec::new(),
                    key: key(c, What::Plain(c.feature_a, c.feature_b)),
                    multi: false,
                    cross: false,
                    recovery: false,
                });
            }
        }
        out
    }
}

impl Peg {
    /// Assemble and solve the subproblem of `constraints` (warm-started from last step's
    /// solution of the same constraints) and add the contact forces to `out`.
    fn solve_constraints(
        &mut self,
        problem: &VelocityProblem,
        constraints: &[Constraint],
        about: &[f64],
        out: &mut [Wrench],
    ) -> Result<(StepLcp, DVector<f64>, crate::contact::SolveReport), ContactError> {
        let (model, state, h) = (problem.model, problem.state, problem.h);
        let k = self.directions;
        let mu: Vec<f64> = constraints
            .iter()
            .map(|c| {
                if self.frictional && !c.recovery {
                    model.friction(c.primary.body_a, c.primary.body_b)
                } else {
                    0.0
                }
            })
            .collect();
        let about = self.predict.then_some(about);
        let lcp = assemble(problem, constraints, &mu, k, about);
        let (np, nt, nf, ns) = (constraints.len(), lcp.nt, lcp.frictional.len(), lcp.ns);
        let n = lcp.problem.len();
        if n > self.max_rows {
            let fastest = (0..model.bodies.len())
                .filter(|&i| model.bodies[i].moves(state.time))
                .max_by(|&i, &j| {
                    let w = |k: usize| state.bodies[k].angular_velocity.length();
                    w(i).total_cmp(&w(j))
                });
            let spin = fastest.map_or(String::new(), |i| {
                format!(
                    "; fastest turning body `{}` at {:.3e} rad/s",
                    model.bodies[i].name,
                    state.bodies[i].angular_velocity.length()
                )
            });
            return Err(ContactError(format!(
                "PEG subproblem of {n} rows ({np} constraints, {ns} slack rows) exceeds max_rows = {}{spin}; too many potential contacts are within one step's reach. Try a smaller time step, or raise max_rows",
                self.max_rows
            )));
        }

        // Warm start from the same constraints last step.
        let mut warm = DVector::zeros(n);
        let mut slack = np + nt + nf;
        for (j, c) in constraints.iter().enumerate() {
            if let Some(prev) = self.previous.get(&c.key) {
                warm[j] = prev.p;
                for o in &c.others {
                    if let Some((_, v)) = prev
                        .slacks
                        .iter()
                        .find(|(f, _)| *f == (o.feature_a, o.feature_b))
                    {
                        warm[slack] = *v;
                    }
                    slack += 1;
                }
            } else {
                slack += c.others.len();
            }
        }
        for (f, &j) in lcp.frictional.iter().enumerate() {
            if let Some(prev) = self.previous.get(&constraints[j].key) {
                if prev.beta.len() == k {
                    for i in 0..k {
                        warm[np + f * k + i] = prev.beta[i];
                    }
                    warm[np + nt + f] = prev.sigma;
                }
            }
        }

        let (z, report) = self.solvers.solve(&lcp.problem, &warm, || {
            format!(
                "PEG LCP of {n} rows ({np} constraints, {nf} with friction, {ns} slack variables)"
            )
        })?;
        add_row_forces(model, &lcp.rows, &z.as_slice()[..np + nt], h, out);
        Ok((lcp, z, report))
    }
}

impl ModelBase for Peg {
    fn spec(&self) -> ModelSpec {
        SPEC
    }

    /// The last step's [`PegStats`].
    fn counters(&self) -> Vec<(&'static str, u64)> {
        let s = self.last;
        [
            ("unilateral", s.unilateral),
            ("inter", s.inter),
            ("cross", s.cross),
            ("slacks", s.slacks),
            ("traps", s.traps),
            ("passes", s.passes),
            ("passes_dropped", s.passes_dropped),
        ]
        .into_iter()
        .map(|(n, v)| (n, v as u64))
        .collect()
    }

    fn parameters(&self) -> Vec<(&'static str, ParamValue)> {
        super::named_values(PARAMS, &self.values)
    }

    fn activation_distance(&self, model: &Model, state: &State) -> f64 {
        if let Some(d) = self.activation_distance {
            return d;
        }
        time_stepping::anticipating_distance(model, state, &self.radii)
    }
}

impl VelocityLevelModel for Peg {
    fn solve_step(
        &mut self,
        problem: &VelocityProblem,
        contacts: &[Contact],
        out: &mut [Wrench],
    ) -> Result<ModelStats, ContactError> {
        let (model, state, h) = (problem.model, problem.state, problem.h);
        if self.radii.len() != model.bodies.len() {
            self.radii = time_stepping::body_radii(model);
        }
        let distance = self.activation_distance(model, state);
        let t0 = Instant::now();
        let mut constraints = self.constraints(model, state, contacts, distance);
        let mut detection = t0.elapsed().as_secs_f64();
        self.last = PegStats::default();
        if constraints.is_empty() {
            self.previous.clear();
            return Ok(ModelStats {
                detection,
                ..ModelStats::default()
            });
        }
        let k = self.directions;
        let applied = out.to_vec();
        // Passes (at most `passes`): a further pass adds the constraints that the velocities ν⁺
        // the last solve gave bring within reach (a landing impulse spins a body and swings a
        // corner the free-motion sweep did not see) and, with `implicit`, linearizes every gap
        // about the pose ν⁺ leads to: ψ(q + h ν) ≈ ψ(q + h ν⁺) + h G (ν − ν⁺), a Newton step on
        // the exact end-of-step gaps (the geometrically implicit time stepping of Chakraborty,
        // Berard, Akella & Trinkle 2007, applied to PEG's feature pairs). A pass ends the loop
        // when nothing is new and every constraint's deepest-reaching member ends the step within
        // `gap_tolerance` of its plane.
        let mut about = problem.free_velocity.clone();
        // A subproblem beyond `max_rows` keeps the constraints the motion at hand reaches.
        let margin = model.settings.activation_distance;
        if self.rows(model, &constraints) > self.max_rows {
            let poses = stepped_poses(model, state, &about, h);
            retain_reaching(model, &poses, margin, &mut constraints);
        }
        // The pass kept: of the solved passes, the one whose end-of-step pose leaves the
        // shallowest violation (a violation within `gap_tolerance` counts as none; later passes
        // win ties, as they hold more constraints); a pass no solver met the tolerance for only
        // when none was solved (measured: a failed first pass with no violation outranked a
        // solved fourth at −6e-7 m and counted a solver failure). Newton on a non-smooth problem
        // need not improve monotonically.
        struct Kept {
            solved: (StepLcp, DVector<f64>, crate::contact::SolveReport),
            forces: Vec<Wrench>,
            count: usize,
            score: f64,
        }
        let mut kept: Option<Kept> = None;
        let mut first_energy: Option<f64> = None;
        let mut pass = 0;
        let mut dropped = 0;
        loop {
            pass += 1;
            // A further pass that cannot be posed (max_rows) or solved leaves the step with the
            // pass kept so far.
            let attempt = self.solve_constraints(problem, &constraints, &about, out);
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
                kept = Some(Kept {
                    solved,
                    forces: out.to_vec(),
                    count: constraints.len(),
                    score: 0.0,
                });
                break;
            }
            let t1 = Instant::now();
            let nu = problem.velocity_after(out);
            let mut probe = state.clone();
            let offsets = model.dof_offsets();
            for (i, bs) in probe.bodies.iter_mut().enumerate() {
                if let Some(o) = offsets[i] {
                    bs.velocity = DVec3::from_slice(&nu[o..o + 3]);
                    bs.angular_velocity = DVec3::from_slice(&nu[o + 3..o + 6]);
                }
            }
            // A pass whose velocities carry more than `PASS_ENERGY_RATIO` × the first pass's
            // kinetic energy is a diverging Newton iterate (measured: one gave a body 1.6e5
            // rad/s); the step keeps the pass kept so far and stops iterating.
            let energy = kinetic_energy(model, &probe);
            let first = *first_energy.get_or_insert(energy);
            if energy > PASS_ENERGY_RATIO * first + f64::EPSILON {
                dropped = 1;
                detection += t1.elapsed().as_secs_f64();
                break;
            }
            let known: std::collections::HashSet<Key> = constraints.iter().map(|c| c.key).collect();
            let mut extra: Vec<Constraint> = self
                .constraints(model, &probe, contacts, distance)
                .into_iter()
                .filter(|c| !known.contains(&c.key))
                .collect();
            let poses = stepped_poses(model, state, &nu, h);
            if self.rows(model, &constraints) + self.rows(model, &extra) > self.max_rows {
                retain_reaching(model, &poses, margin, &mut extra);
            }
            // The deepest end-of-step violation: over the constraints, of the largest exact
            // member gap at the pose ν⁺ leads to. A constraint with no exact member gap (a
            // narrow-phase face–edge point) is linear: the solve itself holds it.
            let depth = constraints
                .iter()
                .chain(&extra)
                .filter_map(|c| {
                    std::iter::once(&c.primary)
                        .chain(&c.others)
                        .filter_map(|m| member_gap(model, &poses, c.key.4, m))
                        .reduce(f64::max)
                })
                .fold(f64::INFINITY, f64::min);
            let violated = self.implicit && depth < -self.gap_tolerance;
            let score = if depth < -self.gap_tolerance {
                depth
            } else {
                0.0
            };
            detection += t1.elapsed().as_secs_f64();
            let solved_ok = !solved.2.failed;
            if kept.as_ref().is_none_or(|k| {
                let kept_ok = !k.solved.2.failed;
                solved_ok > kept_ok || (solved_ok == kept_ok && score >= k.score)
            }) {
                kept = Some(Kept {
                    solved,
                    forces: out.to_vec(),
                    count: constraints.len(),
                    score,
                });
            }
            if (extra.is_empty() && !violated) || pass >= self.passes {
                break;
            }
            constraints.extend(extra);
            if self.implicit {
                about = nu;
            }
            out.copy_from_slice(&applied);
        }
        let kept = kept.expect("the first pass is kept or returned an error");
        out.copy_from_slice(&kept.forces);
        constraints.truncate(kept.count);
        let (lcp, z, report) = kept.solved;
        let (np, nt, nf, ns) = (constraints.len(), lcp.nt, lcp.frictional.len(), lcp.ns);
        // Traps: the primary of a several-member constraint ended beyond its plane.
        let w = &lcp.problem.m * &z + &lcp.problem.q;
        let mut stats = PegStats {
            slacks: ns,
            passes: pass,
            ..PegStats::default()
        };
        let mut slack = np + nt + nf;
        for (j, c) in constraints.iter().enumerate() {
            let m = c.others.len();
            let sum: f64 = (0..m).map(|s| z[slack + s]).sum();
            slack += m;
            if c.cross {
                stats.cross += 1;
            } else if c.multi {
                stats.inter += 1;
            } else {
                stats.unilateral += 1;
            }
            if c.multi && h * (w[j] - sum) < -TRAP_DEPTH {
                stats.traps += 1;
            }
        }
        stats.passes_dropped = dropped;
        self.last = stats;

        self.previous.clear();
        let mut slack = np + nt + nf;
        for (j, c) in constraints.iter().enumerate() {
            let slacks = c
                .others
                .iter()
                .enumerate()
                .map(|(s, o)| ((o.feature_a, o.feature_b), z[slack + s]))
                .collect();
            slack += c.others.len();
            self.previous.insert(
                c.key,
                Previous {
                    p: z[j],
                    slacks,
                    ..Previous::default()
                },
            );
        }
        for (f, &j) in lcp.frictional.iter().enumerate() {
            let entry = self
                .previous
                .get_mut(&constraints[j].key)
                .expect("inserted above");
            entry.beta = (0..k).map(|i| z[np + f * k + i]).collect();
            entry.sigma = z[np + nt + f];
        }
        Ok(ModelStats {
            active_points: (0..np).filter(|&j| z[j] > 0.0).count(),
            solve: Some(report),
            detection,
        })
    }
}

/// PEG's time-stepping LCP of one step.
struct StepLcp {
    problem: Problem,
    /// Rows of the forces: the primaries' normals, then k tangent rows per frictional primary.
    rows: Vec<JacobianRow>,
    /// Constraints with μ > 0, in row order.
    frictional: Vec<usize>,
    /// Tangent rows.
    nt: usize,
    /// Slack variables (non-primary members).
    ns: usize,
}

/// Keep the constraints that one step brings within `margin` (m) at the `poses` it leads to: whose
/// deepest-reaching member (largest exact gap, `collision::potential::feature_gap`) ends the
/// step at most `margin` from its plane. The sweep finds every feature pair a step could bring
/// together; when they are more than `max_rows` can pose (a body turning a radian per step has
/// nearly all its feature pairs within reach), this keeps those the motion at hand does. What
/// the contact forces then bring is the next pass's (its velocities are swept again).
fn retain_reaching(model: &Model, poses: &[Pose], margin: f64, constraints: &mut Vec<Constraint>) {
    constraints.retain(|c| {
        std::iter::once(&c.primary)
            .chain(&c.others)
            .map(|m| member_gap(model, poses, c.key.4, m).unwrap_or(m.gap))
            .fold(f64::NEG_INFINITY, f64::max)
            <= margin
    });
}

/// Contact `c` (found at the poses `start`) carried to the poses `to`: each point moves with its
/// body, the normal turns with the body whose face defines it (both edges for an edge–edge
/// contact, the edge for a vertex–edge release), and the gap is the exact one of the feature
/// pair at `to` (`collision::potential::feature_gap`) or, where that has none, ψ plus the
/// normal approach of the carried points.
fn carried(model: &Model, start: &[Pose], to: &[Pose], what: What, c: &Contact) -> Contact {
    let turn = |b: usize| to[b].rotation * start[b].rotation.inverse();
    let carry = |b: usize, x: DVec3| to[b].translation + turn(b) * (x - start[b].translation);
    let mut out = *c;
    out.point_a = carry(c.body_a, c.point_a);
    out.point_b = carry(c.body_b, c.point_b);
    out.normal = match (c.feature_a, c.feature_b) {
        (Feature::Face(_) | Feature::Surface, Feature::Vertex(_)) => turn(c.body_a) * c.normal,
        (Feature::Edge(ea), Feature::Edge(eb)) => {
            let edge = |b: usize, p: usize, e: u32| match &model.bodies[b].pieces[p].shape {
                Shape::Polytope(poly) => poly.edges.get(e as usize).map(|edge| {
                    let [v0, v1] = edge.vertices.map(|v| poly.vertices[v as usize]);
                    let pose = to[b].mul(&model.bodies[b].pieces[p].pose);
                    pose.transform_vector(v1 - v0)
                }),
                _ => None,
            };
            let cross = edge(c.body_a, c.piece_a, ea)
                .zip(edge(c.body_b, c.piece_b, eb))
                .map(|(da, db)| da.cross(db))
                .filter(|x| x.length_squared() > 0.0);
            match cross {
                Some(x) => {
                    let n = x.normalize();
                    if n.dot(turn(c.body_b) * c.normal) < 0.0 {
                        -n
                    } else {
                        n
                    }
                }
                None => turn(c.body_b) * c.normal,
            }
        }
        _ => turn(c.body_b) * c.normal,
    };
    if let Some((gap, normal)) = release(model, to, what, c) {
        out.normal = normal;
        out.gap = gap;
        return out;
    }
    out.gap = match (c.feature_a, c.feature_b) {
        // The carried points stay on their edges' lines: the line distance along the normal
        // above (oriented by the turned normal, not the start one, for a large turn).
        (Feature::Edge(_), Feature::Edge(_)) => out.normal.dot(out.point_b - out.point_a),
        _ => feature_gap(model, to, c).unwrap_or_else(|| {
            c.gap
                + out
                    .normal
                    .dot((out.point_b - c.point_b) - (out.point_a - c.point_a))
        }),
    };
    out
}

/// Gap and normal at `poses` of a release member (vertex–edge) of an edge group; None for
/// every other member.
fn release(model: &Model, poses: &[Pose], what: What, c: &Contact) -> Option<(f64, DVec3)> {
    match what {
        What::Group(GroupKey::Edges(ea, eb)) => release_gap(model, poses, c, ea, eb),
        _ => None,
    }
}

/// The exact gap (m) at `poses` of member `c` of the constraint `what`: its feature pair's
/// (`collision::potential::feature_gap`) or its release's; None where the geometry has none.
fn member_gap(model: &Model, poses: &[Pose], what: What, c: &Contact) -> Option<f64> {
    release(model, poses, what, c)
        .map(|(gap, _)| gap)
        .or_else(|| feature_gap(model, poses, c))
}

/// The poses one step of velocities `nu` leads to (bodies that do not move stay).
fn stepped_poses(model: &Model, state: &State, nu: &[f64], h: f64) -> Vec<Pose> {
    let offsets = model.dof_offsets();
    model
        .bodies
        .iter()
        .zip(&state.bodies)
        .enumerate()
        .map(|(i, (b, s))| match offsets[i] {
            Some(o) if b.moves(state.time) => {
                let v = DVec3::from_slice(&nu[o..o + 3]);
                let w = DVec3::from_slice(&nu[o + 3..o + 6]);
                Pose::new(s.position + h * v, rotate_by(s.orientation, h * w))
            }
            _ => s.pose(),
        })
        .collect()
}

/// Assemble the LCP of the module documentation in z = (p, β, σ, c). With `about` = ν*, every
/// gap ψ is replaced by ψ* − h G ν*, ψ* the exact gap of the feature pair at the pose one step
/// of ν* leads to (`collision::potential::feature_gap`), so that ψ/h + G ν⁺ is the linearization
/// of the end-of-step gap about ν* (the free motion ν_ℓ, or the last pass's ν⁺) instead of
/// about the start.
fn assemble(
    problem: &VelocityProblem,
    constraints: &[Constraint],
    mu: &[f64],
    k: usize,
    about: Option<&[f64]>,
) -> StepLcp {
    let (model, state, h) = (problem.model, problem.state, problem.h);
    let offsets = &problem.offsets;
    let nu_free = &problem.free_velocity;
    // With `about` = ν*, every contact is taken where one step of ν* carries it (points with
    // their bodies, the normal with the body whose face or edges define it), and its rows are
    // the Jacobian there: ψ(q + h ν) ≈ ψ* + h G* (ν − ν*), the Newton linearization of the
    // exact end-of-step gap, with the contact forces along the end-of-step normals (the
    // geometrically implicit time stepping of Chakraborty, Berard, Akella & Trinkle 2007).
    let predicted: Option<(Vec<Pose>, State)> = about.map(|nu| {
        let poses = stepped_poses(model, state, nu, h);
        let mut at = state.clone();
        for (b, p) in at.bodies.iter_mut().zip(&poses) {
            b.position = p.translation;
            b.orientation = p.rotation;
        }
        (poses, at)
    });
    let start: Vec<Pose> = state.bodies.iter().map(|b| b.pose()).collect();
    let moved = |what: What, c: &Contact| -> Contact {
        match &predicted {
            Some((poses, _)) => carried(model, &start, poses, what, c),
            None => *c,
        }
    };
    let row_state = predicted.as_ref().map_or(state, |(_, at)| at);
    let rel_row = |c: &Contact, d| contact_jacobian_row(model, row_state, &offsets, c, d);
    let np = constraints.len();
    let frictional: Vec<usize> = (0..np).filter(|&j| mu[j] > 0.0).collect();
    let nf = frictional.len();
    let nt = nf * k;

    let primaries: Vec<Contact> = constraints
        .iter()
        .map(|c| moved(c.key.4, &c.primary))
        .collect();
    let mut rows: Vec<JacobianRow> = Vec::with_capacity(np + nt);
    for p in &primaries {
        rows.push(rel_row(p, p.normal));
    }
    for &j in &frictional {
        let p = &primaries[j];
        for d in cone::directions(p.normal, k) {
            rows.push(rel_row(p, d));
        }
    }
    // The gap of each (carried) contact the rows use: ψ, or ψ* − h G* ν*.
    let gap = |c: &Contact, row: &JacobianRow| match about {
        Some(nu) => c.gap - h * row.dot(nu),
        None => c.gap,
    };
    let primary_gap: Vec<f64> = primaries
        .iter()
        .zip(&rows)
        .map(|(c, row)| gap(c, row))
        .collect();

    // Difference rows Δ = G_P − G_K (eq. 42) and their gaps ψ_P − ψ_K, chain by chain.
    let mut diff = Vec::new();
    let mut diff_gap = Vec::new();
    let mut owner = Vec::new();
    for (j, c) in constraints.iter().enumerate() {
        for o in &c.others {
            let o = moved(c.key.4, o);
            let row = rel_row(&o, o.normal);
            diff_gap.push(primary_gap[j] - gap(&o, &row));
            diff.push(row_difference(&rows[j], &row));
            owner.push(j);
        }
    }
    let ns = diff.len();

    let inv = &problem.inverse_mass;
    let w = delassus(&rows, inv);
    let wd = cross_delassus(&diff, &rows, inv);
    let (nr, c0) = (np + nt, np + nt + nf);
    let n = c0 + ns;
    let mut m = DMatrix::zeros(n, n);
    m.view_mut((0, 0), (nr, nr)).copy_from(&w);
    m.view_mut((c0, 0), (ns, nr)).copy_from(&wd);
    let mut q = DVector::zeros(n);
    for (r, row) in rows.iter().enumerate() {
        q[r] = row.dot(&nu_free);
    }
    for (j, g) in primary_gap.iter().enumerate() {
        q[j] += g / h;
    }
    // Friction: as Stewart–Trinkle.
    for (f, &j) in frictional.iter().enumerate() {
        let sigma = np + nt + f;
        for i in 0..k {
            let t = np + f * k + i;
            m[(t, sigma)] = 1.0;
            m[(sigma, t)] = -1.0;
        }
        m[(sigma, j)] = mu[j];
    }
    // Slack chains: E_P (eq. 24) and the lower-triangular ones L (eq. 20).
    let mut start = 0;
    while start < ns {
        let j = owner[start];
        let mut end = start;
        while end < ns && owner[end] == j {
            end += 1;
        }
        for s in start..end {
            m[(j, c0 + s)] = 1.0;
            for s2 in start..=s {
                m[(c0 + s, c0 + s2)] = 1.0;
            }
            q[c0 + s] = diff[s].dot(&nu_free) + diff_gap[s] / h;
        }
        start = end;
    }
    StepLcp {
        problem: Problem::lcp(m, q),
        rows,
        frictional,
        nt,
        ns,
    }
}
