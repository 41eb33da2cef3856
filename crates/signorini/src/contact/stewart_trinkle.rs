//! Velocity-level time stepping with complementarity contact: Stewart–Trinkle (1996) and
//! Anitescu–Potra (1997), with Coulomb friction on a polyhedral cone.
//!
//! Each step solves for the impulses p over the step. With ν_ℓ = ν + h M⁻¹(f_ext − ω × Jω) the
//! free velocity (what semi-implicit Euler gives without contact), the new velocity is
//! (PEG paper, eq. 5, plus friction)
//!
//! ```text
//!   ν⁺ = ν_ℓ + M⁻¹ (G_n p_n + D β)
//! ```
//!
//! and, for every active contact c with normal row G_n,c, tangent rows D_c (k directions of
//! `cone::directions`) and friction coefficient μ_c (Stewart & Trinkle 1996, eqs. 21–23):
//!
//! ```text
//!   0 ≤ p_n,c ⊥ G_n,cᵀ ν⁺ + ψ_c / h ≥ 0                 (PEG eq. 7; ψ_t = 0, obstacles are fixed)
//!   0 ≤ β_c   ⊥ D_cᵀ ν⁺ + e σ_c ≥ 0                      (σ_c: sliding speed)
//!   0 ≤ σ_c   ⊥ μ_c p_n,c − eᵀ β_c ≥ 0                   (friction inside the cone)
//! ```
//!
//! Eliminating ν⁺ (the Schur complement of the MLCP of PEG eq. 8 in M) leaves the LCP in
//! z = (p_n, β, σ) with W = G M⁻¹ Gᵀ, G = [G_n D]:
//!
//! ```text
//!   M_lcp = [ W_nn  W_nt  0 ]     q = [ G_nᵀ ν_ℓ + ψ/h ]
//!           [ W_tn  W_tt  E ]         [ Dᵀ ν_ℓ         ]
//!           [ μ     −Eᵀ   0 ]         [ 0              ]
//! ```
//!
//! Anitescu–Potra (1997) drops the ψ/h term: the normal constraint is G_nᵀ ν⁺ ≥ 0 on the active
//! set. They prove their LCP always has a solution that Lemke's method finds in exact arithmetic
//! (M_lcp is copositive, though not copositive-plus: a unit σ gives zᵀMz = 0 with
//! (M + Mᵀ)z = μ e ≠ 0; see docs/solvers.md); the price is that penetration is never corrected and
//! bodies stop at the gap they had when their contact became active.
//!
//! The impulses are returned as forces p/h held over the step, so the pipeline's semi-implicit
//! Euler update reproduces ν⁺ and then q⁺ = q + h ν⁺ with the orientation advanced by the
//! exponential map and renormalized (PEG eq. 10 uses the first-order quaternion update; both
//! renormalize).
//!
//! Activation (Nguyen & Trinkle, "type 1 / type 2"): `penetrating` puts only contacts with ψ < 0
//! in the problem, so a body approaching fast enters by up to |v| h before it is stopped;
//! `anticipating` puts every contact with ψ below the activation distance, so the ψ/h term stops
//! the approach exactly at contact.
use super::params::model_params;
use super::time_stepping::{self, SolverChain};
use super::VelocityProblem;
use super::{cone, ModelSpec};
use super::{
    ConfigError, ContactError, ModelBase, ModelStats, ParamDefault, ParamKind, ParamSpec,
    ParamValue, VelocityLevelModel,
};
use crate::collision::Contact;
use crate::dynamics::jacobian::{add_row_forces, delassus, JacobianRow};
use crate::dynamics::{Model, State, Wrench};
use crate::geometry::Feature;
use crate::solvers::Problem;
use nalgebra::{DMatrix, DVector};
use std::collections::HashMap;

pub const NAME_STEWART_TRINKLE: &str = "stewart-trinkle";
pub const NAME_ANITESCU_POTRA: &str = "anitescu-potra";

model_params! {
    /// Parameters of `stewart-trinkle` and `anitescu-potra`.
    pub struct TimeSteppingParams {
        activation: &'static str = ParamSpec {
            name: "activation",
            unit: "-",
            default: ParamDefault::Word("anticipating"),
            description: "which contacts enter the problem: \"anticipating\" (Nguyen-Trinkle type 2: every contact with gap below activation_distance) or \"penetrating\" (type 1: only contacts with gap < 0)",
            kind: ParamKind::Choice(&["anticipating", "penetrating"]),
        },
        activation_distance: Option<f64> = time_stepping::ACTIVATION_DISTANCE,
        friction_directions: usize = time_stepping::FRICTION_DIRECTIONS,
        solvers: Vec<&'static str> = time_stepping::SOLVERS,
        tolerance: f64 = time_stepping::TOLERANCE,
        max_iterations: usize = time_stepping::MAX_ITERATIONS,
        max_pivots: Option<usize> = time_stepping::MAX_PIVOTS,
        relaxation: f64 = time_stepping::RELAXATION,
        on_failure: &'static str = time_stepping::ON_FAILURE,
    }
}

const PARAMS: &[ParamSpec] = TimeSteppingParams::SPECS;

pub const SPEC_STEWART_TRINKLE: ModelSpec = ModelSpec {
    name: NAME_STEWART_TRINKLE,
    summary: "velocity-level time stepping (LCP per step) with psi/h stabilization and a polyhedral friction cone",
    params: PARAMS,
};

pub const SPEC_ANITESCU_POTRA: ModelSpec = ModelSpec {
    name: NAME_ANITESCU_POTRA,
    summary: "velocity-level time stepping (LCP per step) without position stabilization, always solvable, polyhedral friction cone",
    params: PARAMS,
};

/// Which normal constraint the subproblem uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Formulation {
    /// G_nᵀ ν⁺ + ψ/h ≥ 0.
    StewartTrinkle,
    /// G_nᵀ ν⁺ ≥ 0.
    AnitescuPotra,
}

/// Key of a contact across steps, for warm starts.
type ContactKey = (usize, usize, usize, usize, Feature, Feature);

fn key(c: &Contact) -> ContactKey {
    (
        c.body_a,
        c.body_b,
        c.piece_a,
        c.piece_b,
        c.feature_a,
        c.feature_b,
    )
}

/// The Stewart–Trinkle / Anitescu–Potra time-stepping model.
pub struct TimeStepping {
    formulation: Formulation,
    values: Vec<ParamValue>,
    anticipating: bool,
    activation_distance: Option<f64>,
    directions: usize,
    solvers: SolverChain,
    /// Bounding radius of each body about its centre of mass (m), computed on first use.
    radii: Vec<f64>,
    /// Last step's solution per contact: (p_n, β, σ); β has `directions` entries or none.
    previous: HashMap<ContactKey, (f64, Vec<f64>, f64)>,
}

impl TimeStepping {
    /// `values` in the order of `PARAMS`.
    pub fn new(formulation: Formulation, values: &[ParamValue]) -> Result<Self, ConfigError> {
        let p = TimeSteppingParams::from_values(values);
        Ok(TimeStepping {
            formulation,
            values: values.to_vec(),
            anticipating: p.activation == "anticipating",
            activation_distance: p.activation_distance,
            directions: p.friction_directions,
            solvers: time_stepping::solver_chain!(p)?,
            radii: Vec::new(),
            previous: HashMap::new(),
        })
    }

    fn body_radii(&mut self, model: &Model) -> &[f64] {
        if self.radii.len() != model.bodies.len() {
            self.radii = time_stepping::body_radii(model);
        }
        &self.radii
    }

    /// Is contact `c` in this step's problem?
    fn is_active(&self, c: &Contact, distance: f64) -> bool {
        if self.anticipating {
            c.gap < distance
        } else {
            c.gap < 0.0
        }
    }
}

impl ModelBase for TimeStepping {
    fn spec(&self) -> ModelSpec {
        match self.formulation {
            Formulation::StewartTrinkle => SPEC_STEWART_TRINKLE,
            Formulation::AnitescuPotra => SPEC_ANITESCU_POTRA,
        }
    }

    fn parameters(&self) -> Vec<(&'static str, ParamValue)> {
        super::named_values(PARAMS, &self.values)
    }

    fn activation_distance(&self, model: &Model, state: &State) -> f64 {
        if let Some(d) = self.activation_distance {
            return d;
        }
        if !self.anticipating {
            return model.settings.activation_distance;
        }
        time_stepping::anticipating_distance(model, state, &self.radii)
    }
}

impl VelocityLevelModel for TimeStepping {
    fn solve_step(
        &mut self,
        problem: &VelocityProblem,
        contacts: &[Contact],
        out: &mut [Wrench],
    ) -> Result<ModelStats, ContactError> {
        let (model, state, h) = (problem.model, problem.state, problem.h);
        self.body_radii(model);
        let distance = self.activation_distance(model, state);
        let active: Vec<&Contact> = contacts
            .iter()
            .filter(|c| self.is_active(c, distance))
            .collect();
        if active.is_empty() {
            self.previous.clear();
            return Ok(ModelStats::default());
        }
        let k = self.directions;
        let lcp = assemble_on(self.formulation, k, problem, &active);
        let (problem, rows, frictional) = (&lcp.problem, &lcp.rows, &lcp.frictional);
        let (nc, nf, n) = (active.len(), frictional.len(), problem.len());
        let nt = nf * k;

        // Warm start from last step's solution of the same contacts.
        let mut warm = DVector::zeros(n);
        for (c, contact) in active.iter().enumerate() {
            if let Some((pn, _, _)) = self.previous.get(&key(contact)) {
                warm[c] = *pn;
            }
        }
        for (f, &c) in frictional.iter().enumerate() {
            if let Some((_, beta, sigma)) = self.previous.get(&key(active[c])) {
                if beta.len() == k {
                    for j in 0..k {
                        warm[nc + f * k + j] = beta[j];
                    }
                    warm[nc + nt + f] = *sigma;
                }
            }
        }

        let (z, report) = self.solvers.solve(problem, &warm, || {
            format!("LCP of {n} rows ({nc} contacts, {nf} with friction)")
        })?;

        add_row_forces(model, rows, z.as_slice(), h, out);

        self.previous.clear();
        for (c, contact) in active.iter().enumerate() {
            self.previous.insert(key(contact), (z[c], Vec::new(), 0.0));
        }
        for (f, &c) in frictional.iter().enumerate() {
            let entry = self
                .previous
                .get_mut(&key(active[c]))
                .expect("inserted above");
            entry.1 = (0..k).map(|j| z[nc + f * k + j]).collect();
            entry.2 = z[nc + nt + f];
        }
        Ok(ModelStats {
            active_points: (0..nc).filter(|&c| z[c] > 0.0).count(),
            solve: Some(report),
            detection: 0.0,
        })
    }
}

/// The time-stepping LCP of one step.
#[derive(Clone, Debug)]
pub struct StepLcp {
    /// In z = (p_n, β, σ): one normal impulse per contact, then k friction impulses and one
    /// sliding speed per frictional contact.
    pub problem: Problem,
    /// Rows of G: the normals, then k tangent rows per frictional contact.
    pub rows: Vec<JacobianRow>,
    /// Indices (into the active contacts) of the contacts with μ > 0, in row order.
    pub frictional: Vec<usize>,
}

/// Assemble the LCP of the module documentation for the `active` contacts at `state`, with step
/// `h` (s), `k` friction directions and the applied wrenches `applied` (per body, without
/// contact). Public so tests and benchmarks can solve the problems real scenes produce.
pub fn assemble(
    formulation: Formulation,
    k: usize,
    model: &Model,
    state: &State,
    active: &[&Contact],
    h: f64,
    applied: &[Wrench],
) -> StepLcp {
    assemble_on(
        formulation,
        k,
        &VelocityProblem::new(model, state, h, applied),
        active,
    )
}

/// The LCP of the module documentation (Stewart & Trinkle 1996, eqs. 16–19; Anitescu & Potra
/// 1997 without the ψ/h term) for the `active` contacts, posed on the step's system dynamics.
pub fn assemble_on(
    formulation: Formulation,
    k: usize,
    problem: &VelocityProblem,
    active: &[&Contact],
) -> StepLcp {
    let (model, h) = (problem.model, problem.h);
    let mu: Vec<f64> = active
        .iter()
        .map(|c| model.friction(c.body_a, c.body_b))
        .collect();
    let frictional: Vec<usize> = (0..active.len()).filter(|&c| mu[c] > 0.0).collect();
    let (nc, nf) = (active.len(), frictional.len());

    // Rows of G: normals first, then k tangent rows per frictional contact.
    let mut rows: Vec<JacobianRow> = Vec::with_capacity(nc + nf * k);
    let rel_row = |c: &Contact, d| problem.row(c, d);
    for c in active {
        rows.push(rel_row(c, c.normal));
    }
    for &c in &frictional {
        for d in cone::directions(active[c].normal, k) {
            rows.push(rel_row(active[c], d));
        }
    }

    // Free velocity ν_ℓ: the semi-implicit Euler velocity under the applied wrenches.
    let nu_free = problem.free_velocity();

    // The LCP in z = (p_n, β, σ).
    let nt = nf * k;
    let n = nc + nt + nf;
    let w = delassus(&rows, problem.inverse_mass());
    let mut m = DMatrix::zeros(n, n);
    m.view_mut((0, 0), (nc + nt, nc + nt)).copy_from(&w);
    let mut q = DVector::zeros(n);
    for (r, row) in rows.iter().enumerate() {
        q[r] = row.dot(nu_free);
    }
    if formulation == Formulation::StewartTrinkle {
        for (c, contact) in active.iter().enumerate() {
            q[c] += contact.gap / h;
        }
    }
    for (f, &c) in frictional.iter().enumerate() {
        let sigma = nc + nt + f;
        for j in 0..k {
            let t = nc + f * k + j;
            m[(t, sigma)] = 1.0;
            m[(sigma, t)] = -1.0;
        }
        m[(sigma, c)] = mu[c];
    }
    StepLcp {
        problem: Problem::lcp(m, q),
        rows,
        frictional,
    }
}
