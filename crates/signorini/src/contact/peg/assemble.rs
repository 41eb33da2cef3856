//! PEG's subproblem (Williams, Lu & Trinkle 2016, eqs 39–49, velocity level): the LCP of the module
//! documentation in z = (p, β, σ, c), assembled from the constraints in three parts:
//!
//! ```text
//!   force rows   G_P (the primaries' normals) and D (k tangent rows per frictional primary),
//!                the primaries' gaps ψ_P                                      (eqs 43, 46)
//!   slack rows   Δ = G_P − G_K per non-primary member, gaps ψ_P − ψ_K          (eq. 42)
//!   matrix       [W_PP W_PD 0 E_P; W_DP W_DD E 0; μ −Eᵀ 0 0; W_ΔP W_ΔD 0 L],
//!                q = (G_P ν_ℓ + ψ_P/h, D ν_ℓ, 0, Δ ν_ℓ + (ψ_P − ψ_K)/h)       (eqs 20, 24, 45)
//! ```
//!
//! With `about` = ν* every row and gap is taken at the poses one step of ν* leads to
//! (`prediction`): the implicit gap prediction, ψ replaced by ψ* − h G* ν*.
//!
//! Departure (issue 16, item 5; `recovery = "bounded"`, the default): an overlap that exists at
//! the start of the step is removed at no more than v_max = `max_recovery_speed`. Constraint j
//! must end the step with its largest member gap (Lemma 1.1) at least its recovery floor
//! f_j = min(0, d_j + v_max h) (`time_stepping::recovery_floor`), d_j its largest member gap at
//! the start (`Constraint::start_gap`), instead of at least 0: every member's ψ is lowered by
//! f_j, which changes the force row's q by −f_j/h and leaves the slack rows' ψ_P − ψ_K as they
//! are. A constraint that holds at the start (d_j ≥ 0), or overlaps by no more than v_max h, has
//! f_j = 0: the paper's row, exactly, whatever the gap prediction. `recovery = "full"` (f_j = 0
//! always) is the paper's ψ/h.
//!
//! The first form of this option (bounding every gap ψ below by −v_max h) let overlaps appear on
//! `pour_3d.toml` (largest 5.0e-5 → 5.0e-4 m at h = 1 ms): it raised the gaps of members far
//! behind their face planes (a vertex outside a body is behind most of its faces), making a group
//! easier to satisfy than its geometry allows, and the implicitly predicted gaps ψ* − h G ν* of
//! pairs that did not overlap (which of the two let the overlaps in was not separated). The
//! floor does neither: `pour_3d.toml` runs bit for bit as with `"full"` at h = 1 to 16 ms.
use super::constraints::{Constraint, What};
use super::prediction::carried;
use crate::collision::Contact;
use crate::contact::{cone, contact_jacobian_row, VelocityProblem};
use crate::dynamics::jacobian::{
    cross_delassus_into, delassus_into, row_difference, DelassusRows, InverseMass, JacobianRow,
};
use crate::dynamics::{Model, State};
use crate::geometry::Pose;
use crate::solvers::sparse::LcpMatrix;
use crate::solvers::Problem;
use nalgebra::{DMatrix, DVector};
use std::sync::OnceLock;

/// PEG's time-stepping LCP of one step. q is always formed (O(n)); the dense matrix M only when
/// something asks for it ([`problem`](Self::problem)): a step whose warm start holds reads M
/// through [`operator`](Self::operator) (W from the Jacobian rows, never stored) instead.
pub(super) struct StepLcp {
    /// q of the LCP (m/s).
    pub(super) q: DVector<f64>,
    /// (M, q), formed on first use (from `parts`, or given by `islands::combine`).
    dense: OnceLock<Problem>,
    /// What M is made of; None when `dense` was given.
    parts: Option<Parts>,
    /// Rows of the forces: the primaries' normals, then k tangent rows per frictional primary.
    pub(super) rows: Vec<JacobianRow>,
    /// Constraints with μ > 0, in row order.
    pub(super) frictional: Vec<usize>,
    /// Tangent rows.
    pub(super) nt: usize,
    /// Slack variables (non-primary members).
    pub(super) ns: usize,
}

/// What M is made of besides the force rows: M⁻¹, μ, k and the slack rows.
struct Parts {
    inverse_mass: InverseMass,
    mu: Vec<f64>,
    k: usize,
    slack: SlackRows,
}

impl StepLcp {
    /// The LCP (M, q) given whole (`islands::combine`).
    pub(super) fn given(
        problem: Problem,
        rows: Vec<JacobianRow>,
        frictional: Vec<usize>,
        nt: usize,
        ns: usize,
    ) -> Self {
        StepLcp {
            q: problem.q.clone(),
            dense: OnceLock::from(problem),
            parts: None,
            rows,
            frictional,
            nt,
            ns,
        }
    }

    /// Rows (= unknowns) of the LCP.
    pub(super) fn len(&self) -> usize {
        self.q.len()
    }

    /// The dense LCP (M, q), assembled on first use: entry for entry what `assemble` stored
    /// before the operator existed.
    pub(super) fn problem(&self) -> &Problem {
        self.dense.get_or_init(|| {
            let parts = self.parts.as_ref().expect("an LCP without parts is given whole");
            Problem::lcp(self.dense_matrix(parts), self.q.clone())
        })
    }

    /// M through the rows, never stored, when the LCP was assembled from its parts (None when
    /// given whole).
    pub(super) fn operator(&self) -> Option<PegOperator<'_>> {
        let parts = self.parts.as_ref()?;
        Some(PegOperator::new(self, parts))
    }

    /// Are q, the force rows and the slack rows finite? (The operator's counterpart of
    /// `Problem::check`'s finiteness test: W's entries are sums of products of these and M⁻¹;
    /// an overflow to ∞ in a product of finite values makes the warm start's residual ∞, a miss,
    /// and the chain's own check then reports it.)
    pub(super) fn finite(&self) -> bool {
        let row_finite = |r: &JacobianRow| (&r.blocks).into_iter().all(|(_, b)| b.iter().all(|x| x.is_finite()));
        self.q.iter().all(|x| x.is_finite())
            && self.rows.iter().all(row_finite)
            && self
                .parts
                .as_ref()
                .is_none_or(|p| p.slack.rows.iter().all(row_finite))
    }

    /// The matrix of the module documentation, dense (W and W_Δ written straight into M's
    /// blocks, no n × n copy).
    fn dense_matrix(&self, parts: &Parts) -> DMatrix<f64> {
        let Parts {
            inverse_mass: inv,
            mu,
            k,
            slack,
        } = parts;
        let (rows, k, n) = (&self.rows, *k, self.len());
        let np = rows.len() - self.nt;
        let c0 = np + self.nt + self.frictional.len();
        let mut m = DMatrix::zeros(n, n);
        delassus_into(rows, inv, &mut m, 0);
        cross_delassus_into(&slack.rows, rows, inv, &mut m, (c0, 0));
        // Friction: as Stewart–Trinkle.
        for (f, &j) in self.frictional.iter().enumerate() {
            let sigma = np + self.nt + f;
            for i in 0..k {
                let t = np + f * k + i;
                m[(t, sigma)] = 1.0;
                m[(sigma, t)] = -1.0;
            }
            m[(sigma, j)] = mu[j];
        }
        // Slack chains: E_P (eq. 24) and the lower-triangular ones L (eq. 20).
        for s in 0..slack.rows.len() {
            let j = slack.owner[s];
            m[(j, c0 + s)] = 1.0;
            for s2 in slack.chain_start[s]..=s {
                m[(c0 + s, c0 + s2)] = 1.0;
            }
        }
        m
    }
}

/// PEG's LCP matrix read through W = G M⁻¹ Gᵀ and W_Δ = Δ M⁻¹ Gᵀ ([`DelassusRows`]) and the
/// constant blocks (E, μ, E_P, L) without being stored ([`LcpMatrix`]): what Lemke's warm start
/// reads (principal systems and products), as `stewart-trinkle`'s `StepOperator`. Its entries
/// are bit for bit the dense matrix's ([`StepLcp::problem`]); its products M z + q are summed in
/// another order than the dense product (they decide only whether the warm start is accepted,
/// against the solver tolerance).
pub(super) struct PegOperator<'a> {
    w: DelassusRows<'a>,
    lcp: &'a StepLcp,
    parts: &'a Parts,
    /// np: normal rows; m: impulse rows (np + nt); c0: the first slack unknown.
    np: usize,
    m: usize,
    c0: usize,
}

impl<'a> PegOperator<'a> {
    fn new(lcp: &'a StepLcp, parts: &'a Parts) -> Self {
        let m = lcp.rows.len();
        PegOperator {
            w: DelassusRows::new(&lcp.rows, &parts.inverse_mass),
            lcp,
            parts,
            np: m - lcp.nt,
            m,
            c0: m + lcp.frictional.len(),
        }
    }
}

impl LcpMatrix for PegOperator<'_> {
    fn n(&self) -> usize {
        self.lcp.len()
    }

    /// The entry `StepLcp::problem` stores (bit for bit).
    fn get(&self, r: usize, c: usize) -> f64 {
        let (np, m, c0, k) = (self.np, self.m, self.c0, self.parts.k);
        let slack = &self.parts.slack;
        let one = |b: bool| f64::from(u8::from(b));
        if r < m {
            return if c < m {
                self.w.entry(r, c)
            } else if c < c0 {
                // A tangent row's +1 at its constraint's σ.
                one(r >= np && c == m + (r - np) / k)
            } else {
                // E_P: a primary's +1 at its slacks.
                one(slack.owner[c - c0] == r)
            };
        }
        if r < c0 {
            let f = r - m;
            let j = self.lcp.frictional[f];
            return if c == j {
                self.parts.mu[j]
            } else if (np + f * k..np + (f + 1) * k).contains(&c) {
                -1.0
            } else {
                0.0
            };
        }
        let s = r - c0;
        if c < m {
            self.w.cross_entry(&slack.rows[s], c)
        } else if c < c0 {
            0.0
        } else {
            // L: lower triangular within the chain.
            let s2 = c - c0;
            one(s2 <= s && s2 >= slack.chain_start[s])
        }
    }

    /// W_αα from the rows' bodies ([`DelassusRows::principal_block`]), the rest from
    /// [`get`](LcpMatrix::get): bit for bit what `get` gives everywhere.
    fn principal_submatrix(&self, alpha: &[usize]) -> DMatrix<f64> {
        self.w.principal_with(alpha, self.m, |r, c| self.get(r, c))
    }

    /// The impulse rows (p, β): W, symmetric to round-off; a principal system inside it (a
    /// resting face's corners) is factored by Cholesky, as `stewart-trinkle`'s.
    fn symmetric_rows(&self) -> usize {
        self.m
    }

    /// W_αα's lower triangle ([`DelassusRows::principal_block_lower`]).
    fn symmetric_principal_lower(&self, alpha: &[usize]) -> DMatrix<f64> {
        self.w.principal_block_lower(alpha)
    }

    fn mul_add(&self, z: &DVector<f64>, q: &DVector<f64>) -> DVector<f64> {
        let (np, m, c0, k) = (self.np, self.m, self.c0, self.parts.k);
        let slack = &self.parts.slack;
        let v = self.w.velocity(&z.as_slice()[..m]);
        let mut out = q.clone();
        for (r, row) in self.lcp.rows.iter().enumerate() {
            out[r] += DelassusRows::row_times(row, &v);
            if r >= np {
                out[r] += z[m + (r - np) / k];
            }
        }
        for (f, &j) in self.lcp.frictional.iter().enumerate() {
            let beta: f64 = (0..k).map(|i| z[np + f * k + i]).sum();
            out[m + f] += self.parts.mu[j] * z[j] - beta;
        }
        for (s, row) in slack.rows.iter().enumerate() {
            out[slack.owner[s]] += z[c0 + s];
            let chain: f64 = (slack.chain_start[s]..=s).map(|s2| z[c0 + s2]).sum();
            out[c0 + s] += DelassusRows::row_times(row, &v) + chain;
        }
        out
    }
}

/// Assemble the LCP of the module documentation in z = (p, β, σ, c). With `about` = ν*, every
/// gap ψ is replaced by ψ* − h G ν*, ψ* the exact gap of the feature pair at the pose one step
/// of ν* leads to (`collision::potential::feature_gap`), so that ψ/h + G ν⁺ is the linearization
/// of the end-of-step gap about ν* (the free motion ν_ℓ, or the last pass's ν⁺) instead of
/// about the start.
pub(super) fn assemble(
    problem: &VelocityProblem,
    constraints: &[Constraint],
    mu: &[f64],
    k: usize,
    about: Option<&[f64]>,
    max_recovery_speed: f64,
) -> StepLcp {
    let at = Linearization::new(problem, about);
    let np = constraints.len();
    let frictional: Vec<usize> = (0..np).filter(|&j| mu[j] > 0.0).collect();
    let nf = frictional.len();
    let nt = nf * k;
    let (rows, primary_gap) = force_rows(&at, constraints, &frictional, k);
    let slack = slack_rows(&at, constraints, &rows, &primary_gap);
    // The force rows' gaps measured from each constraint's recovery floor (the slack rows'
    // differences ψ_P − ψ_K do not see it).
    let force_gap: Vec<f64> = primary_gap
        .iter()
        .zip(constraints)
        .map(|(g, c)| g - c.recovery_floor(problem.h, max_recovery_speed))
        .collect();
    let ns = slack.rows.len();
    StepLcp {
        q: vector(problem, &rows, &force_gap, nf, &slack),
        dense: OnceLock::new(),
        rows,
        frictional,
        nt,
        ns,
        parts: Some(Parts {
            inverse_mass: problem.inverse_mass().clone(),
            mu: mu.to_vec(),
            k,
            slack,
        }),
    }
}

/// Where a step's rows and gaps are taken. With `about` = ν*, every contact is taken where one
/// step of ν* carries it (points with their bodies, the normal with the body whose face or edges
/// define it), and its rows are the Jacobian there: ψ(q + h ν) ≈ ψ* + h G* (ν − ν*), the Newton
/// linearization of the exact end-of-step gap, with the contact forces along the end-of-step
/// normals (the geometrically implicit time stepping of Chakraborty, Berard, Akella & Trinkle
/// 2007). Without, at the start of the step.
struct Linearization<'a> {
    model: &'a Model,
    state: &'a State,
    offsets: &'a [Option<usize>],
    h: f64,
    about: Option<&'a [f64]>,
    /// The poses one step of ν* leads to, and the start state moved there.
    predicted: Option<(Vec<Pose>, State)>,
    start: Vec<Pose>,
}

impl<'a> Linearization<'a> {
    fn new(problem: &'a VelocityProblem, about: Option<&'a [f64]>) -> Self {
        let (model, state, h) = (problem.model, problem.state, problem.h);
        let predicted: Option<(Vec<Pose>, State)> = about.map(|nu| {
            let poses = problem.poses_after(nu);
            let mut at = state.clone();
            for (b, p) in at.bodies.iter_mut().zip(&poses) {
                b.position = p.translation;
                b.orientation = p.rotation;
            }
            (poses, at)
        });
        let start: Vec<Pose> = state.bodies.iter().map(|b| b.pose()).collect();
        Linearization {
            model,
            state,
            offsets: problem.offsets(),
            h,
            about,
            predicted,
            start,
        }
    }

    /// Contact `c` of the constraint `what` where the rows are taken.
    fn moved(&self, what: What, c: &Contact) -> Contact {
        match &self.predicted {
            Some((poses, _)) => carried(self.model, &self.start, poses, what, c),
            None => *c,
        }
    }

    /// The Jacobian row of (moved) contact `c` along `d`.
    fn row(&self, c: &Contact, d: glam::DVec3) -> JacobianRow {
        let row_state = self.predicted.as_ref().map_or(self.state, |(_, at)| at);
        contact_jacobian_row(self.model, row_state, self.offsets, c, d)
    }

    /// The gap of each (carried) contact the rows use: ψ, or ψ* − h G* ν*.
    fn gap(&self, c: &Contact, row: &JacobianRow) -> f64 {
        match self.about {
            Some(nu) => c.gap - self.h * row.dot(nu),
            None => c.gap,
        }
    }
}

/// The force rows (eqs 43, 46): every primary's normal row, then k tangent rows per frictional
/// primary (`frictional`); and the primaries' gaps.
fn force_rows(
    at: &Linearization,
    constraints: &[Constraint],
    frictional: &[usize],
    k: usize,
) -> (Vec<JacobianRow>, Vec<f64>) {
    let np = constraints.len();
    let nt = frictional.len() * k;
    let primaries: Vec<Contact> = constraints
        .iter()
        .map(|c| at.moved(c.key.4, &c.primary))
        .collect();
    let mut rows: Vec<JacobianRow> = Vec::with_capacity(np + nt);
    for p in &primaries {
        rows.push(at.row(p, p.normal));
    }
    for &j in frictional {
        let p = &primaries[j];
        for d in cone::directions(p.normal, k) {
            rows.push(at.row(p, d));
        }
    }
    let primary_gap: Vec<f64> = primaries
        .iter()
        .zip(&rows)
        .map(|(c, row)| at.gap(c, row))
        .collect();
    (rows, primary_gap)
}

/// The slack rows, one per non-primary member, chain by chain.
struct SlackRows {
    /// Δ = G_P − G_K (eq. 42).
    rows: Vec<JacobianRow>,
    /// ψ_P − ψ_K.
    gap: Vec<f64>,
    /// The constraint of each.
    owner: Vec<usize>,
    /// The first slack row of each one's chain (its constraint's first).
    chain_start: Vec<usize>,
}

/// Difference rows Δ = G_P − G_K (eq. 42) and their gaps ψ_P − ψ_K, chain by chain.
fn slack_rows(
    at: &Linearization,
    constraints: &[Constraint],
    rows: &[JacobianRow],
    primary_gap: &[f64],
) -> SlackRows {
    let mut diff = Vec::new();
    let mut diff_gap = Vec::new();
    let mut owner = Vec::new();
    let mut chain_start = Vec::new();
    for (j, c) in constraints.iter().enumerate() {
        let start = owner.len();
        for o in &c.others {
            let o = at.moved(c.key.4, o);
            let row = at.row(&o, o.normal);
            diff_gap.push(primary_gap[j] - at.gap(&o, &row));
            diff.push(row_difference(&rows[j], &row));
            owner.push(j);
            chain_start.push(start);
        }
    }
    SlackRows {
        rows: diff,
        gap: diff_gap,
        owner,
        chain_start,
    }
}

/// The LCP vector q of the module documentation from the force rows `rows` (np normal rows,
/// then the tangent rows), the primaries' gaps (above their constraints' recovery floors) and
/// the slack rows: q = (G_P ν_ℓ + ψ_P/h, D ν_ℓ, 0, Δ ν_ℓ + (ψ_P − ψ_K)/h) (m/s).
fn vector(
    problem: &VelocityProblem,
    rows: &[JacobianRow],
    primary_gap: &[f64],
    nf: usize,
    slack: &SlackRows,
) -> DVector<f64> {
    let (h, nu_free) = (problem.h, problem.free_velocity());
    let ns = slack.rows.len();
    // The σ rows (one per frictional primary, q = 0) sit between the impulse rows and the
    // slacks.
    let c0 = rows.len() + nf;
    let mut q = DVector::zeros(c0 + ns);
    for (r, row) in rows.iter().enumerate() {
        q[r] = row.dot(nu_free);
    }
    for (j, g) in primary_gap.iter().enumerate() {
        q[j] += g / h;
    }
    for s in 0..ns {
        q[c0 + s] = slack.rows[s].dot(nu_free) + slack.gap[s] / h;
    }
    q
}
