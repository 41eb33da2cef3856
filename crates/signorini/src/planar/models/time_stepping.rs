//! Velocity-level time stepping in the plane: Stewart–Trinkle (1996) and Anitescu–Potra (1997),
//! posed as an LCP and solved by the project's solver chain (`contact::time_stepping::
//! SolverChain`: Lemke first, then the fallbacks, exactly as in 3D).
//!
//! The generalized velocity is ν = [vx, vy, ω] per dynamic body and M = diag(m, m, I). With
//! ν_ℓ = ν + h M⁻¹ f_ext the free velocity (no gyroscopic term in the plane), each step solves for
//! the impulses over the step and sets (Stewart & Trinkle 1996, eq. 16; PEG paper eq. 5)
//!
//! ```text
//!   ν⁺ = ν_ℓ + M⁻¹ (G_n p_n + D β),        q⁺ = q + h ν⁺   (semi-implicit Euler)
//! ```
//!
//! A contact c between A and B with normal n (A → B) at points p_a, p_b has the normal row
//! G_n,c = [−nᵀ, −(r_a × n)] on A and [nᵀ, r_b × n] on B (r the point less the centre of mass,
//! × the scalar cross product). In the plane the friction cone is exact with two directions:
//! D_c = [t, −t] with t = n turned counter-clockwise by 90°, e = (1, 1). The complementarity
//! conditions (Stewart & Trinkle 1996, eqs. 21–23, as in `contact/stewart_trinkle.rs`):
//!
//! ```text
//!   0 ≤ p_n,c ⊥ G_n,cᵀ ν⁺ + ψ_c / h ≥ 0          (Anitescu–Potra 1997: no ψ/h for ψ ≥ 0)
//!   0 ≤ β_c   ⊥ D_cᵀ ν⁺ + e σ_c ≥ 0
//!   0 ≤ σ_c   ⊥ μ_c p_n,c − eᵀ β_c ≥ 0
//! ```
//!
//! and eliminating ν⁺ with W = G M⁻¹ Gᵀ, G = [G_n D], gives the LCP in z = (p_n, β, σ):
//!
//! ```text
//!   M_lcp = [ W_nn  W_nt  0 ]     q = [ G_nᵀ ν_ℓ + ψ/h ]
//!           [ W_tn  W_tt  E ]         [ Dᵀ ν_ℓ         ]
//!           [ μ     −Eᵀ   0 ]         [ 0              ]
//! ```
//!
//! The position term is the 3D models' (`contact::time_stepping::position_term`, issue 16's
//! bounded recovery, `recovery` and `max_recovery_speed` as in 3D), and so is activation
//! (Nguyen & Trinkle type 1 `penetrating` / type 2 `anticipating`, with the same derived
//! activation distance). The slides' group-of-constraints method (`group`, and its exploratory
//! solve alone, `exploratory`) is planar only: `group.rs`. An Anitescu–Potra step whose corrected LCP no solver meets while a
//! contact overlaps is solved again with the paper's q, as in 3D.
//!
//! What the plane does not need from the 3D model: islands and sparse Lemke (the planar scenes
//! are small; the whole step is one dense LCP, which `SolverChain::solve` still splits into its
//! independent blocks).
use super::super::body::{PlanarModel, PlanarState};
use super::super::collision::{Contact2, Feature2};
use super::group::{self, GroupStats, Linearized, ACTIVE_GAP};
use super::rows::{self, ImpulseRows, Row};
use crate::contact::params::model_params;
use crate::contact::time_stepping::{self, SolverChain};
use crate::contact::{
    ConfigError, ContactError, ModelSpec, ParamDefault, ParamKind, ParamSpec, ParamValue,
    SolveReport,
};
use crate::solvers::Problem;
use nalgebra::{DMatrix, DVector};
use std::collections::BTreeMap;

model_params! {
    /// Parameters of planar `stewart-trinkle` and `anitescu-potra` (the 3D models' without
    /// `friction_directions`, the cone being exact in the plane, and without the large-island
    /// settings).
    pub struct PlanarTimeSteppingParams {
        activation: &'static str = ParamSpec {
            name: "activation",
            unit: "-",
            default: ParamDefault::Word("anticipating"),
            description: "which contacts enter the problem: \"anticipating\" (Nguyen-Trinkle type 2: every contact with gap below activation_distance), \"penetrating\" (type 1: only contacts with gap < 0), \"group\" (the slides' group of constraints: every possible constraint of each pair within activation_distance in an exploratory solve, then the correct one per pair; planar/models/group.rs) or \"exploratory\" (the group method's first solve alone: every possible constraint, infinite segment lines included; for comparison)",
            kind: ParamKind::Choice(&["anticipating", "penetrating", "group", "exploratory"]),
        },
        activation_distance: Option<f64> = time_stepping::ACTIVATION_DISTANCE,
        recovery: &'static str = time_stepping::RECOVERY_ANITESCU_POTRA,
        max_recovery_speed: f64 = time_stepping::MAX_RECOVERY_SPEED,
        solvers: Vec<&'static str> = time_stepping::SOLVERS,
        tolerance: f64 = time_stepping::TOLERANCE,
        max_iterations: usize = time_stepping::MAX_ITERATIONS,
        max_pivots: Option<usize> = time_stepping::MAX_PIVOTS,
        relaxation: f64 = time_stepping::RELAXATION,
        on_failure: &'static str = time_stepping::ON_FAILURE,
    }
}

/// stewart-trinkle's table: `recovery` without `"none"` (the ψ/h term is the model).
const PARAMS_STEWART_TRINKLE: &[ParamSpec] =
    &crate::contact::params::with_spec::<{ PlanarTimeSteppingParams::SPECS.len() }>(
        PlanarTimeSteppingParams::SPECS,
        time_stepping::RECOVERY,
    );

pub const SPEC_STEWART_TRINKLE: ModelSpec = ModelSpec {
    name: "stewart-trinkle",
    summary: "planar velocity-level time stepping (LCP per step) with psi/h stabilization; exact friction cone (two directions)",
    params: PARAMS_STEWART_TRINKLE,
};

pub const SPEC_ANITESCU_POTRA: ModelSpec = ModelSpec {
    name: "anitescu-potra",
    summary: "planar velocity-level time stepping (LCP per step) without position stabilization of gaps (an existing overlap is removed at a bounded speed); exact friction cone",
    params: PlanarTimeSteppingParams::SPECS,
};

/// Which normal constraint the subproblem uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Formulation {
    StewartTrinkle,
    AnitescuPotra,
}

/// Which contacts enter a step's LCP (the `activation` parameter).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Activation {
    /// Type 2: every contact with ψ below the activation distance.
    Anticipating,
    /// Type 1: contacts with ψ < 0.
    Penetrating,
    /// The slides' group of constraints (`group.rs`).
    Group,
    /// The group method's step 1 alone (`group.rs`).
    Exploratory,
}

impl Activation {
    fn from_word(word: &str) -> Self {
        match word {
            "penetrating" => Activation::Penetrating,
            "group" => Activation::Group,
            "exploratory" => Activation::Exploratory,
            _ => Activation::Anticipating,
        }
    }
}

/// A contact's answer at the last step: (p_n, β₊, β₋, σ).
type Previous = [f64; 4];
type ContactKey = (usize, usize, Feature2, Feature2);

/// The planar Stewart–Trinkle / Anitescu–Potra model.
pub struct PlanarTimeStepping {
    formulation: Formulation,
    values: Vec<ParamValue>,
    activation: Activation,
    activation_distance: Option<f64>,
    max_recovery_speed: f64,
    solvers: SolverChain,
    previous: BTreeMap<ContactKey, Previous>,
}

/// What a step's solve gives: the new generalized velocity and the solve's report (None when
/// no contact was active).
pub struct StepSolve {
    pub velocity: Vec<f64>,
    pub report: Option<SolveReport>,
    /// Active contacts in the problem.
    pub active: usize,
    /// What the group activation did (`group` and `exploratory` only).
    pub group: Option<GroupStats>,
}

impl PlanarTimeStepping {
    /// `values` in the order of `PlanarTimeSteppingParams::SPECS`.
    pub fn new(formulation: Formulation, values: &[ParamValue]) -> Result<Self, ConfigError> {
        let p = PlanarTimeSteppingParams::from_values(values);
        Ok(PlanarTimeStepping {
            formulation,
            values: values.to_vec(),
            activation: Activation::from_word(p.activation),
            activation_distance: p.activation_distance,
            max_recovery_speed: time_stepping::recovery_bound(p.recovery, p.max_recovery_speed),
            solvers: time_stepping::solver_chain!(p)?,
            previous: BTreeMap::new(),
        })
    }

    pub fn spec(&self) -> ModelSpec {
        match self.formulation {
            Formulation::StewartTrinkle => SPEC_STEWART_TRINKLE,
            Formulation::AnitescuPotra => SPEC_ANITESCU_POTRA,
        }
    }

    pub fn values(&self) -> &[ParamValue] {
        &self.values
    }

    /// The distance below which the narrow phase must report contacts (m): the parameter when
    /// given; else `simulation.activation_distance` for `penetrating` and, for `anticipating`,
    /// `simulation.activation_distance + 4 h max_i(|v_i| + |ω_i| r_i + h |g|)` as in 3D.
    pub fn activation_distance(&self, model: &PlanarModel, state: &PlanarState) -> f64 {
        if let Some(d) = self.activation_distance {
            return d;
        }
        if self.activation == Activation::Penetrating {
            return model.settings.activation_distance;
        }
        derived_activation_distance(model, state)
    }

    pub fn activation(&self) -> Activation {
        self.activation
    }

    fn is_active(&self, c: &Contact2, distance: f64) -> bool {
        match self.activation {
            Activation::Penetrating => c.gap < 0.0,
            _ => c.gap < distance,
        }
    }

    /// One step: the new generalized velocity from the free velocity `nu_free` and the contacts.
    pub fn solve_step(
        &mut self,
        model: &PlanarModel,
        state: &PlanarState,
        contacts: &[Contact2],
        nu_free: &[f64],
        distance: f64,
    ) -> Result<StepSolve, ContactError> {
        let active: Vec<&Contact2> = contacts
            .iter()
            .filter(|c| self.is_active(c, distance))
            .collect();
        if matches!(self.activation, Activation::Group | Activation::Exploratory) {
            return self.solve_groups(model, state, &active, nu_free, distance);
        }
        let mut velocity = nu_free.to_vec();
        if active.is_empty() {
            self.previous.clear();
            return Ok(StepSolve {
                velocity,
                report: None,
                active: 0,
                group: None,
            });
        }
        let constraints: Vec<Linearized> =
            active.iter().map(|c| Linearized::at_start(**c)).collect();
        let (z, report, lcp) = self.solve_lcp(model, state, &constraints, nu_free)?;
        lcp.apply(&z, &mut velocity);
        self.remember(&lcp, &constraints, &z);
        Ok(StepSolve {
            velocity,
            report: Some(report),
            active: active.len(),
            group: None,
        })
    }

    /// The slides' algorithm (`group.rs`): the exploratory solve with every member of every
    /// group, then, when a member is active, the solve with each group's correct member.
    fn solve_groups(
        &mut self,
        model: &PlanarModel,
        state: &PlanarState,
        active: &[&Contact2],
        nu_free: &[f64],
        distance: f64,
    ) -> Result<StepSolve, ContactError> {
        let h = model.settings.time_step;
        let groups = group::groups(model, state, active, distance);
        if groups.is_empty() {
            self.previous.clear();
            return Ok(StepSolve {
                velocity: nu_free.to_vec(),
                report: None,
                active: 0,
                group: Some(GroupStats::default()),
            });
        }
        let members: Vec<Linearized> = groups
            .iter()
            .flat_map(|g| g.members.iter().copied().map(Linearized::at_start))
            .collect();
        let mut stats = GroupStats {
            groups: groups.len(),
            members: members.len(),
            ..GroupStats::default()
        };
        // Step 1: the exploratory solve.
        let (z, report, lcp) = self.solve_lcp(model, state, &members, nu_free)?;
        let mut nu_star = nu_free.to_vec();
        lcp.apply(&z, &mut nu_star);
        let is_active: Vec<bool> = (0..lcp.nc)
            .map(|c| z[c] > 0.0 || h * (lcp.rows[c].dot(&nu_star) + lcp.terms[c]) <= ACTIVE_GAP)
            .collect();
        stats.active = is_active.iter().filter(|a| **a).count();
        // Step 2: nothing active (ν* is the free motion), or the exploratory model alone.
        if stats.active == 0 || self.activation == Activation::Exploratory {
            self.remember(&lcp, &members, &z);
            return Ok(StepSolve {
                velocity: nu_star,
                report: Some(report),
                active: members.len(),
                group: Some(stats),
            });
        }
        // Step 3: each group's correct member at the exploratory end pose.
        let end = group::advanced(model, state, &nu_star, h);
        let (chosen, switched) = group::correct_members(model, state, &end, &groups, &nu_star);
        stats.switched = switched;
        stats.resolved = true;
        let kept: Vec<ContactKey> = chosen.iter().map(|c| key(&c.contact)).collect();
        stats.dropped = members
            .iter()
            .zip(&is_active)
            .filter(|(m, a)| **a && !kept.contains(&key(&m.contact)))
            .count();
        let (z, report, lcp) = self.solve_lcp(model, state, &chosen, nu_free)?;
        let mut velocity = nu_free.to_vec();
        lcp.apply(&z, &mut velocity);
        self.remember(&lcp, &chosen, &z);
        Ok(StepSolve {
            velocity,
            report: Some(report),
            active: chosen.len(),
            group: Some(stats),
        })
    }

    /// Assemble and solve the LCP of `constraints`: its answer z, the solve's report and the
    /// LCP (what maps z back).
    fn solve_lcp(
        &mut self,
        model: &PlanarModel,
        state: &PlanarState,
        constraints: &[Linearized],
        nu_free: &[f64],
    ) -> Result<(DVector<f64>, SolveReport, Lcp), ContactError> {
        let bound = self.max_recovery_speed;
        let lcp = Lcp::assemble(model, state, constraints, nu_free, self.formulation, bound);
        let warm = self.warm_start(&lcp, constraints);
        let result = self.solvers.solve(&lcp.problem, &warm, || lcp.describe());
        // Anitescu–Potra's corrected LCP may have no solution where the paper's has (a body
        // overlapping two facing walls); solve the paper's then, as in 3D.
        let corrected = self.formulation == Formulation::AnitescuPotra
            && bound > 0.0
            && constraints
                .iter()
                .any(|c| c.contact.gap < -time_stepping::OVERLAP_SLOP);
        if corrected && !result.as_ref().is_ok_and(|(_, r)| !r.failed) {
            let paper = Lcp::assemble(model, state, constraints, nu_free, self.formulation, 0.0);
            if let Ok((z, r)) = self
                .solvers
                .solve(&paper.problem, &warm, || paper.describe())
            {
                if !r.failed {
                    return Ok((z, r, paper));
                }
            }
        }
        let (z, report) = result?;
        Ok((z, report, lcp))
    }

    fn warm_start(&self, lcp: &Lcp, active: &[Linearized]) -> DVector<f64> {
        let mut warm = DVector::zeros(lcp.problem.len());
        for (c, constraint) in active.iter().enumerate() {
            if let Some(p) = self.previous.get(&key(&constraint.contact)) {
                warm[c] = p[0];
                if let Some(f) = lcp.friction_index[c] {
                    warm[lcp.nc + 2 * f] = p[1];
                    warm[lcp.nc + 2 * f + 1] = p[2];
                    warm[lcp.nc + 2 * lcp.nf + f] = p[3];
                }
            }
        }
        warm
    }

    fn remember(&mut self, lcp: &Lcp, active: &[Linearized], z: &DVector<f64>) {
        self.previous.clear();
        for (c, constraint) in active.iter().enumerate() {
            let mut p = [z[c], 0.0, 0.0, 0.0];
            if let Some(f) = lcp.friction_index[c] {
                p[1] = z[lcp.nc + 2 * f];
                p[2] = z[lcp.nc + 2 * f + 1];
                p[3] = z[lcp.nc + 2 * lcp.nf + f];
            }
            self.previous.insert(key(&constraint.contact), p);
        }
    }
}

/// The anticipating activation distance (m): `simulation.activation_distance` + 4 h
/// max_i(|v_i| + |ω_i| r_i + h |g|) over the dynamic bodies, as in 3D (shared with planar `peg`).
pub fn derived_activation_distance(model: &PlanarModel, state: &PlanarState) -> f64 {
    let s = &model.settings;
    let h = s.time_step;
    let fastest = model
        .bodies
        .iter()
        .zip(&state.bodies)
        .filter(|(b, _)| !b.fixed)
        .map(|(b, bs)| {
            bs.velocity.length()
                + bs.angular_velocity.abs() * b.shape.bounding_radius()
                + h * s.gravity.length()
        })
        .fold(0.0, f64::max);
    s.activation_distance + 4.0 * h * fastest
}

fn key(c: &Contact2) -> ContactKey {
    (c.body_a, c.body_b, c.feature_a, c.feature_b)
}

/// One step's LCP and what maps its answer back.
struct Lcp {
    problem: Problem,
    /// G: the normal rows, then (+t, −t) per frictional contact.
    rows: Vec<Row>,
    /// Per active contact, its index among the frictional ones.
    friction_index: Vec<Option<usize>>,
    nc: usize,
    nf: usize,
    inverse_mass: Vec<f64>,
    /// The position term of each normal row (m/s).
    terms: Vec<f64>,
}

impl Lcp {
    /// Assemble M_lcp and q (module documentation), the position term of normal rows bounded
    /// by `bound` m/s; a constraint linearized at the group method's end pose has ψ*/h (bounded)
    /// plus its shift, whatever the formulation (`group.rs`).
    fn assemble(
        model: &PlanarModel,
        state: &PlanarState,
        constraints: &[Linearized],
        nu_free: &[f64],
        formulation: Formulation,
        bound: f64,
    ) -> Self {
        let h = model.settings.time_step;
        let dofs = model.dof_offsets();
        let nc = constraints.len();
        let active: Vec<&Contact2> = constraints.iter().map(|c| &c.contact).collect();
        let impulse = ImpulseRows::new(state, &dofs, &active, |_, c| {
            model.friction(c.body_a, c.body_b)
        });
        let nf = impulse.mu.len();
        let inverse_mass = rows::inverse_mass(model, &dofs, nu_free.len());
        let n = impulse.rows.len() + nf;
        let mut m = DMatrix::zeros(n, n);
        let mut q = DVector::zeros(n);
        impulse.fill(&inverse_mass, nu_free, &mut m, &mut q);
        let ImpulseRows {
            rows,
            friction_index,
            ..
        } = impulse;
        let mut terms = Vec::with_capacity(nc);
        for (c, constraint) in constraints.iter().enumerate() {
            let contact = &constraint.contact;
            let term = match formulation {
                _ if constraint.at_end => {
                    time_stepping::position_term(contact.gap, h, bound) + constraint.shift
                }
                Formulation::StewartTrinkle => time_stepping::position_term(contact.gap, h, bound),
                // Only an existing overlap beyond the slop (the paper: G_nᵀ ν⁺ ≥ 0).
                Formulation::AnitescuPotra => time_stepping::position_term(
                    (contact.gap + time_stepping::OVERLAP_SLOP).min(0.0),
                    h,
                    bound,
                ),
            };
            q[c] += term;
            terms.push(term);
        }
        Lcp {
            problem: Problem::lcp(m, q),
            rows,
            friction_index,
            nc,
            nf,
            inverse_mass,
            terms,
        }
    }

    fn describe(&self) -> String {
        format!(
            "planar LCP of {} rows ({} contacts, {} with friction)",
            self.problem.len(),
            self.nc,
            self.nf
        )
    }

    /// ν⁺ = ν_ℓ + M⁻¹ Gᵀ (p_n, β) (eq. 16).
    fn apply(&self, z: &DVector<f64>, velocity: &mut [f64]) {
        rows::add_impulses(&self.rows, z, &self.inverse_mass, velocity);
    }
}
