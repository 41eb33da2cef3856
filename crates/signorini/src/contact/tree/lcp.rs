//! Stewart–Trinkle time stepping of a tree against the ground and between its bodies' links
//! (`pairs.rs`), with joint limits in the same LCP.
//!
//! The free-body model (`contact::stewart_trinkle`, its module doc) with the tree's joint-space
//! mass matrix H(q) (CRBA, RBDA Table 6.2) in place of the block-diagonal M, the generalized
//! velocity v in place of ν and the bias forces C(q, v) (RNEA) in the free velocity, whose
//! joint damping and PD servos (D_u: damping plus kd, K_u: kp; τ(q, v) the controls' force) are
//! taken linearly implicitly, as the penalty model takes them (`penalty::joint_system`): an
//! explicit servo on a light link (a wrist's 5e-4 kg m² under kd = 1 N m s/rad at h = 1 ms,
//! kd h / H = 2) diverged:
//!
//! ```text
//!   A v_ℓ = H v + h (τ(q, v) + D_u v − C(q, v))          (without contact; A = H + h D_u + h² K_u)
//!   v⁺  = v_ℓ + A⁻¹ (G_nᵀ p_n + Dᵀ β)
//!   0 ≤ p_n ⊥ G_n v⁺ + ψ̃/h ≥ 0                          (Stewart & Trinkle 1996, eq. 21)
//!   0 ≤ β_c ⊥ D_c v⁺ + e σ_c ≥ 0                         (eq. 22)
//!   0 ≤ σ_c ⊥ μ_c p_n,c − eᵀ β_c ≥ 0                     (eq. 23)
//!   q⁺  = q ⊕ h v⁺
//! ```
//!
//! with rows G written by the point Jacobian (`ground::point_jacobian`): a contact's normal row
//! n · J_p, its k friction rows d_j · J_p (`cone::directions`, the free bodies' pyramid about
//! n), J_p the Jacobian of its point's velocity relative to the other side (`pairs::Touch`:
//! J_B(p_B) − J_A(p_A) for a pair of links, J_B(p_B) on the ground). The
//! LCP in z = (p_n, β, σ) is the free bodies' (W = G A⁻¹ Gᵀ), A factored once a step (dense
//! Cholesky; A⁻¹ Gᵀ by its solves). ψ̃/h is `time_stepping::position_term` (ψ/h for a gap, an
//! overlap removed at no more than `max_recovery_speed`: stewart-trinkle's `recovery =
//! "bounded"`).
//!
//! `anitescu-potra` (`TreeLcpParams::formulation`) is the same LCP with Anitescu & Potra's
//! (1997) constraint G_nᵀ v⁺ ≥ 0 on the contacts: a gap gets no position term (a contact
//! activated apart stops the approach there), an existing overlap beyond
//! `time_stepping::OVERLAP_SLOP` is removed at up to `max_recovery_speed`, as the free bodies'
//! `anitescu-potra` does; joint limits keep the bounded ψ/h.
//!
//! `anitescu-convex` (`TreeLcpParams::convex`) poses the same step as Anitescu's convex
//! relaxation (Math. Programming 105 (2006), eq. 21, with a polyhedral cone), as the free
//! bodies' `anitescu-convex` does (`contact::convex_relaxation`, its module doc): one impulse
//! f_e ≥ 0 per edge e = (c, j) of each contact's pyramid, along n + μ d_j,
//!
//! ```text
//!   v⁺ = v_ℓ + A⁻¹ Σ_e a_eᵀ f_e,        a_e = (n + μ d_j) · J_p          (n · J_p if μ = 0)
//!   0 ≤ f_e ⊥ a_e v⁺ + ψ̃/h + μ s_c ≥ 0
//! ```
//!
//! the KKT conditions of min ½ (v⁺ − v_ℓ)ᵀ A (v⁺ − v_ℓ) over the rows: a symmetric positive
//! semidefinite LCP in f (W = a A⁻¹ aᵀ), v⁺ unique. s_c shifts a sliding contact's edges by its
//! slip speed σ_c = max(0, max_j −d_j · J_p v): with s = σ(v⁺) an answer solves the
//! Stewart–Trinkle LCP above (the loaded edges are those most opposed to the slip, where the row
//! is the normal row); with s = 0 (the published relaxation) a contact sliding at σ separates at
//! μ σ. s starts at the slip of the step's initial v (the free bodies take last step's σ, the
//! same velocity at the previous configuration) and is refined by up to `slip_passes` further
//! solves, each with the slip of the last answer, while it changes by more than the tolerance
//! times ‖q‖∞; a refining solve that misses the tolerance leaves the last answer. The tree has
//! one dense A, so the LCP is solved by the same chain (Lemke first) rather than the free
//! bodies' Newton solve in velocity space, which exists for large islands of 6 × 6 blocks.
//!
//! A joint limit is one more normal row without friction: for a revolute or prismatic joint
//! with limits (lo, hi), the gaps ψ = q − lo (row +e_j) and ψ = hi − q (row −e_j), each taken
//! into the LCP when below `limit_activation`; its multiplier is the limit's generalized
//! impulse (N m s or N s).
use super::ground::ground_contacts;
use super::pairs::{candidate_pairs, link_contacts, touches, LinkContact, Touch};
use super::peg::PegSearch;
use super::penalty::joint_system;
use super::{Ground, GroundContact, LinkShape, TreeStepStats};
use crate::contact::cone::Cone;
use crate::contact::stewart_trinkle::Formulation;
use crate::contact::time_stepping::{position_term, SolverChain, OVERLAP_SLOP};
use crate::contact::ContactError;
use crate::multibody::algorithms::forward_kinematics;
use crate::multibody::integrate::advance_positions;
use crate::multibody::{Controls, LinkKinematics, MultibodyError, Tree, Workspace};
use crate::solvers::Problem;
use glam::DVec3;
use nalgebra::{Cholesky, DMatrix, DVector, Dyn};

/// Parameters of the LCP contact of a tree.
#[derive(Clone, Debug, PartialEq)]
pub struct TreeLcpParams {
    /// Friction directions k of the pyramid (≥ 3; default 4).
    pub friction_directions: usize,
    /// Contact points with gap ψ below this enter the LCP (m, ≥ 0; default 0.01).
    pub activation_distance: f64,
    /// Joint limits with gap below this enter the LCP (rad or m, ≥ 0; default 0.1).
    pub limit_activation: f64,
    /// Bound of the overlap's removal speed (m/s for contacts, rad/s or m/s for limits, > 0;
    /// default 0.5, as stewart-trinkle's).
    pub max_recovery_speed: f64,
    /// Contact between the links of one body (`pairs.rs`; default false: only the links of
    /// different bodies, and each with the ground, touch).
    pub self_contact: bool,
    /// Stewart–Trinkle's ψ/h on every contact (default), or Anitescu–Potra's G_nᵀ v⁺ ≥ 0 with
    /// only an existing overlap removed (`anitescu-potra`; module doc).
    pub formulation: Formulation,
    /// Anitescu's convex relaxation (`anitescu-convex`; module doc): one row per edge
    /// n + μ d_j of each contact's friction pyramid, a symmetric LCP, each edge shifted by μ
    /// times its contact's slip speed (default false: the Stewart–Trinkle LCP).
    pub convex: bool,
    /// Under `convex`: at most this many further solves a step refining the slip speeds while
    /// they change (–, ≥ 0; default 2, as the free bodies' `anitescu-convex`).
    pub slip_passes: usize,
    /// PEG (`peg`; `peg.rs`): a pair of polytope shapes on two links takes PEG's grouped
    /// constraints of potential contacts instead of its narrow-phase points (default false).
    pub peg: bool,
    /// Under `peg`: a polytope pair overlapping deeper than this also gets its narrow-phase
    /// points as frictionless constraints (m, ≥ 0; default 1e-5, as the free bodies' `peg`).
    pub recovery_depth: f64,
    /// Under `peg`: θ of the potential contacts' applicability, widened by the pair's turn over
    /// the step (rad, in [0, π/2]; default 0.2, as the free bodies' `peg`).
    pub applicability_angle: f64,
    /// LCP solvers tried in order (default lemke, fischer-burmeister, pgs).
    pub solvers: Vec<&'static str>,
    /// Scaled residual a solve must meet (–, default 1e-8, as stewart-trinkle's).
    pub tolerance: f64,
    /// When no solver meets the tolerance: "stop" (the step is an error naming the residuals;
    /// default) or "continue" with the answer of smallest residual (`TreeStepStats::failed`).
    pub on_failure: &'static str,
    pub ground: Ground,
}

impl Default for TreeLcpParams {
    fn default() -> Self {
        TreeLcpParams {
            friction_directions: 4,
            activation_distance: 0.01,
            limit_activation: 0.1,
            max_recovery_speed: 0.5,
            self_contact: false,
            formulation: Formulation::StewartTrinkle,
            convex: false,
            slip_passes: 2,
            peg: false,
            recovery_depth: 1e-5,
            applicability_angle: 0.2,
            solvers: vec!["lemke", "fischer-burmeister", "pgs"],
            tolerance: 1e-8,
            on_failure: "stop",
            ground: Ground::at(0.0),
        }
    }
}

/// Why an LCP step of a tree failed.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum TreeContactError {
    #[error(transparent)]
    Multibody(#[from] MultibodyError),
    #[error(transparent)]
    Contact(#[from] ContactError),
    #[error("the joint-space mass matrix H(q) is not positive definite (Cholesky failed)")]
    SingularMass,
    /// The impulse model's contact stage (`impulse.rs`) left an approach beyond its tolerance
    /// after `max_sweeps` (and `on_failure = "stop"`).
    #[error("{problem}: residual {residual:.3e} m/s above the tolerance {tolerance:e} m/s (an approach left beyond -psi/h), largest at `{a}`-`{b}`; more sweeps (max_sweeps), a smaller time step, or on_failure = \"continue\" (the step taken and counted)")]
    SweepsShort {
        problem: String,
        /// m/s.
        residual: f64,
        /// m/s.
        tolerance: f64,
        a: String,
        b: String,
    },
}

/// What every tree model checks before a step: the shapes on the tree's links, (q, v) the
/// tree's and finite, the controls the tree's, h > 0 and finite.
pub(super) fn check_step(
    tree: &Tree,
    shapes: &[LinkShape],
    (q, v): (&[f64], &[f64]),
    controls: &Controls,
    h: f64,
) -> Result<(), TreeContactError> {
    if let Some(s) = shapes.iter().find(|s| s.link >= tree.len()) {
        return Err(MultibodyError::Length {
            what: "a link shape's link index (the tree's links)",
            expected: tree.len(),
            got: s.link,
        }
        .into());
    }
    tree.check_state(q, v)?;
    controls.check(tree)?;
    if !(h.is_finite() && h > 0.0) {
        return Err(MultibodyError::NonFiniteState.into());
    }
    Ok(())
}

/// A joint limit's unilateral row: +e_j (lower) or −e_j (upper) on one degree of freedom.
#[derive(Clone, Copy, Debug)]
pub(super) struct Limit {
    /// Degree of freedom (index in v).
    pub(super) dof: usize,
    /// +1: lower limit (q − lo ≥ 0), −1: upper (hi − q ≥ 0).
    pub(super) sign: f64,
    /// rad or m.
    pub(super) gap: f64,
}

/// The limits of revolute and prismatic joints whose gap at q is below `activation` (rad or m)
/// into `out` (cleared first), in link order, lower before upper: deterministic. Also the
/// penalty model's (`penalty.rs`).
pub(super) fn joint_limits(tree: &Tree, q: &[f64], activation: f64, out: &mut Vec<Limit>) {
    out.clear();
    for (i, link) in tree.links().iter().enumerate() {
        let Some((lo, hi)) = link.limits else {
            continue;
        };
        let (qi, dof) = (q[tree.q_offset(i)], tree.v_offset(i));
        for (sign, gap) in [(1.0, qi - lo), (-1.0, hi - qi)] {
            if gap < activation {
                out.push(Limit { dof, sign, gap });
            }
        }
    }
}

/// The LCP contact model of one tree, with its solver chain and scratch.
pub struct TreeLcp {
    pub params: TreeLcpParams,
    pub(super) chain: SolverChain,
    cone: Cone,
    pub(super) links: Vec<LinkKinematics>,
    pub(super) contacts: Vec<GroundContact>,
    pub(super) link_contacts: Vec<LinkContact>,
    /// The contacts of the step's normal rows (`peg`: its constraints' primaries).
    pub(super) touches: Vec<Touch>,
    pub(super) limits: Vec<Limit>,
    pub(super) jac: Vec<DVec3>,
    pub(super) warm: DVector<f64>,
    /// PEG's search and constraints (`peg.rs`; empty unless `params.peg`).
    pub(super) peg: PegSearch,
}

/// The rows of one step: G (rows × nv), the normal rows' position terms, the friction
/// contacts (indices into the contacts) and their coefficients.
pub(super) struct Rows {
    pub(super) g: DMatrix<f64>,
    pub(super) psi: Vec<f64>,
    pub(super) friction: Vec<(usize, f64)>,
    pub(super) normals: usize,
}

impl TreeLcp {
    /// Errors name the parameter out of its range or an unknown solver.
    pub fn new(params: TreeLcpParams) -> Result<TreeLcp, String> {
        if params.friction_directions < 3 {
            return Err(format!(
                "friction_directions = {}: must be at least 3",
                params.friction_directions
            ));
        }
        let ok = |x: f64| x.is_finite() && x >= 0.0;
        if !(ok(params.activation_distance) && ok(params.limit_activation)) {
            return Err("activation distances must be finite and >= 0 (m, rad)".into());
        }
        if !ok(params.recovery_depth) {
            return Err("recovery_depth must be finite and >= 0 (m)".into());
        }
        if !(0.0..=std::f64::consts::FRAC_PI_2).contains(&params.applicability_angle) {
            return Err(format!(
                "applicability_angle = {}: must be in [0, pi/2] (rad)",
                params.applicability_angle
            ));
        }
        if !(params.max_recovery_speed > 0.0 && params.tolerance > 0.0) {
            return Err("max_recovery_speed (m/s) and tolerance must be > 0".into());
        }
        if !matches!(params.on_failure, "stop" | "continue") {
            return Err(format!(
                "on_failure = \"{}\": must be \"stop\" or \"continue\"",
                params.on_failure
            ));
        }
        let chain = SolverChain::new(
            &params.solvers,
            params.tolerance,
            500,
            None,
            1.0,
            params.on_failure,
        )
        .map_err(|e| e.to_string())?;
        Ok(TreeLcp {
            cone: Cone::new(params.friction_directions),
            chain,
            params,
            links: Vec::new(),
            contacts: Vec::new(),
            link_contacts: Vec::new(),
            touches: Vec::new(),
            limits: Vec::new(),
            jac: Vec::new(),
            warm: DVector::zeros(0),
            peg: PegSearch::default(),
        })
    }

    /// One step of length h (s) from (q, v) under `controls`: the LCP's impulses, then
    /// v⁺ and q⁺ = q ⊕ h v⁺. On an error (q, v) are unchanged.
    pub fn step(
        &mut self,
        tree: &Tree,
        ws: &mut Workspace,
        shapes: &[LinkShape],
        (q, v): (&mut [f64], &mut [f64]),
        controls: &Controls,
        h: f64,
    ) -> Result<TreeStepStats, TreeContactError> {
        check_step(tree, shapes, (q, v), controls, h)?;
        let (chol, v_free) = free_velocity(tree, ws, (q, v), controls, h)?;
        self.links.clear();
        self.links
            .extend_from_slice(forward_kinematics(tree, ws, q, v)?);
        let mut contacts = std::mem::take(&mut self.contacts);
        let reach = self.params.activation_distance;
        ground_contacts(
            shapes,
            &self.links,
            self.params.ground,
            reach,
            &mut contacts,
        );
        self.contacts = contacts;
        let pairs = candidate_pairs(tree, shapes, self.params.self_contact);
        link_contacts(shapes, &pairs, &self.links, reach, &mut self.link_contacts);
        touches(&self.contacts, &self.link_contacts, &mut self.touches);
        self.collect_limits(tree, q);
        if self.params.convex {
            return self.relaxed_step(tree, (q, v), (&chol, v_free), h);
        }
        if self.params.peg {
            return self.peg_step(tree, shapes, &pairs, (q, v), (&chol, v_free), h);
        }
        let rows = self.rows(tree, h);
        let mut stats = self.stats(rows.normals);
        let mut v_new = v_free.clone();
        if rows.g.nrows() > 0 {
            // X = L⁻¹ Gᵀ (A = L Lᵀ): W = G A⁻¹ Gᵀ = Xᵀ X, and A⁻¹ Gᵀ z = L⁻ᵀ (X z) for the
            // impulses' velocity change: one triangular solve of Gᵀ instead of two.
            let x = (chol.l_dirty())
                .solve_lower_triangular(&rows.g.transpose())
                .ok_or(TreeContactError::SingularMass)?;
            let problem = lcp(&rows, &(x.transpose() * &x), &v_free, self.cone_size());
            let warm = if self.warm.len() == problem.len() {
                self.warm.clone()
            } else {
                DVector::zeros(problem.len())
            };
            let what = || {
                format!(
                    "tree LCP of {} rows ({} contacts, {} joint limits)",
                    problem.len(),
                    self.touches.len(),
                    self.limits.len()
                )
            };
            let (z, report) = self.chain.solve(&problem, &warm, what)?;
            let xz = &x * z.rows(0, rows.g.nrows());
            v_new += (chol.l_dirty().tr_solve_lower_triangular(&xz))
                .ok_or(TreeContactError::SingularMass)?;
            stats.solved(problem.len(), &report);
            self.warm = z;
        }
        advance_positions(tree, q, v_new.as_slice(), h);
        v.copy_from_slice(v_new.as_slice());
        Ok(stats)
    }

    pub(super) fn cone_size(&self) -> usize {
        self.params.friction_directions
    }

    fn stats(&self, normals: usize) -> TreeStepStats {
        let pen = self.touches.iter().filter(|c| c.gap < 0.0);
        TreeStepStats {
            contacts: self.touches.len(),
            penetrating: pen.clone().count(),
            max_penetration: pen.map(|c| -c.gap).fold(0.0, f64::max),
            limit_rows: normals - self.touches.len(),
            ..TreeStepStats::default()
        }
    }

    /// The joint limits within `limit_activation` of q.
    fn collect_limits(&mut self, tree: &Tree, q: &[f64]) {
        joint_limits(tree, q, self.params.limit_activation, &mut self.limits);
    }

    /// G: the contacts' normal rows, the limits' rows, then k friction rows per contact with
    /// μ > 0; the normal rows' position terms ψ̃/h.
    pub(super) fn rows(&mut self, tree: &Tree, h: f64) -> Rows {
        let nv = tree.nv();
        let k = self.cone_size();
        let friction: Vec<(usize, f64)> = (self.touches.iter().enumerate())
            .filter(|(_, c)| c.friction > 0.0)
            .map(|(i, c)| (i, c.friction))
            .collect();
        let normals = self.touches.len() + self.limits.len();
        let mut g = DMatrix::zeros(normals + k * friction.len(), nv);
        let mut psi = Vec::with_capacity(normals);
        self.jac.resize(nv, DVec3::ZERO);
        let vmax = self.params.max_recovery_speed;
        let mut f = 0;
        for (c, contact) in self.touches.iter().enumerate() {
            contact.jacobian(tree, &self.links, &mut self.jac);
            for (j, col) in self.jac.iter().enumerate() {
                g[(c, j)] = contact.normal.dot(*col);
            }
            psi.push(match self.params.formulation {
                Formulation::StewartTrinkle => position_term(contact.gap, h, vmax),
                // An existing overlap beyond the slop only; a gap gets no term.
                Formulation::AnitescuPotra => {
                    position_term((contact.gap + OVERLAP_SLOP).min(0.0), h, vmax)
                }
            });
            if contact.friction > 0.0 {
                for (r, d) in self.cone.directions(contact.normal).enumerate() {
                    for (j, col) in self.jac.iter().enumerate() {
                        g[(normals + k * f + r, j)] = d.dot(*col);
                    }
                }
                f += 1;
            }
        }
        for (l, limit) in self.limits.iter().enumerate() {
            g[(self.touches.len() + l, limit.dof)] = limit.sign;
            psi.push(position_term(limit.gap, h, vmax));
        }
        Rows {
            g,
            psi,
            friction,
            normals,
        }
    }
}

/// The rows of Anitescu's relaxation (module doc): per contact its normal row n · J_p and its
/// k direction rows d_j · J_p (for the slip), the edge rows a_e with the contact and μ of each,
/// then the limits' rows; the position terms ψ̃/h of the edge and limit rows.
struct EdgeRows {
    /// Edge rows then limit rows (rows × nv).
    a: DMatrix<f64>,
    psi: Vec<f64>,
    /// Per edge row: its contact and μ (limit rows: none).
    edge: Vec<Option<(usize, f64)>>,
    /// k rows d_j · J_p per contact (k nc × nv).
    d: DMatrix<f64>,
}

impl TreeLcp {
    /// The relaxation's rows (module doc).
    fn edge_rows(&mut self, tree: &Tree, h: f64) -> EdgeRows {
        let (nv, k) = (tree.nv(), self.cone_size());
        let edges: usize = (self.touches.iter())
            .map(|c| if c.friction > 0.0 { k } else { 1 })
            .sum();
        let n = edges + self.limits.len();
        let mut a = DMatrix::zeros(n, nv);
        let mut d = DMatrix::zeros(k * self.touches.len(), nv);
        let (mut psi, mut edge) = (Vec::with_capacity(n), Vec::with_capacity(n));
        self.jac.resize(nv, DVec3::ZERO);
        let vmax = self.params.max_recovery_speed;
        let mut r = 0;
        for (c, contact) in self.touches.iter().enumerate() {
            contact.jacobian(tree, &self.links, &mut self.jac);
            let (nrm, mu) = (contact.normal, contact.friction);
            for (j, dir) in self.cone.directions(nrm).enumerate() {
                for (col, x) in self.jac.iter().enumerate() {
                    d[(k * c + j, col)] = dir.dot(*x);
                    if mu > 0.0 {
                        a[(r + j, col)] = (nrm + mu * dir).dot(*x);
                    }
                }
            }
            if mu == 0.0 {
                for (col, x) in self.jac.iter().enumerate() {
                    a[(r, col)] = nrm.dot(*x);
                }
            }
            let rows = if mu > 0.0 { k } else { 1 };
            let term = position_term(contact.gap, h, vmax);
            psi.extend(std::iter::repeat_n(term, rows));
            edge.extend(std::iter::repeat_n(Some((c, mu)), rows));
            r += rows;
        }
        for limit in &self.limits {
            a[(r, limit.dof)] = limit.sign;
            psi.push(position_term(limit.gap, h, vmax));
            edge.push(None);
            r += 1;
        }
        EdgeRows { a, psi, edge, d }
    }

    /// σ_c = max(0, max_j −d_j · J_p v) of every contact at v.
    fn slip_speeds(&self, d: &DMatrix<f64>, v: &DVector<f64>) -> Vec<f64> {
        let k = self.cone_size();
        let t = d * v;
        (0..self.touches.len())
            .map(|c| (0..k).map(|j| -t[k * c + j]).fold(0.0, f64::max))
            .collect()
    }

    /// A step of Anitescu's relaxation with the slip fixed point (module doc).
    fn relaxed_step(
        &mut self,
        tree: &Tree,
        (q, v): (&mut [f64], &mut [f64]),
        (chol, v_free): (&Cholesky<f64, Dyn>, DVector<f64>),
        h: f64,
    ) -> Result<TreeStepStats, TreeContactError> {
        let rows = self.edge_rows(tree, h);
        let mut stats = self.stats(self.touches.len() + self.limits.len());
        let mut v_new = v_free.clone();
        if rows.a.nrows() > 0 {
            let x = (chol.l_dirty())
                .solve_lower_triangular(&rows.a.transpose())
                .ok_or(TreeContactError::SingularMass)?;
            let base = &rows.a * &v_free + DVector::from_column_slice(&rows.psi);
            let scale = base.amax();
            // One problem for every pass: the passes differ only in q's slip shift.
            let mut problem = Problem::lcp(x.transpose() * &x, base.clone());
            let mut slip = self.slip_speeds(&rows.d, &DVector::from_column_slice(v));
            let mut answer: Option<DVector<f64>> = None;
            for pass in 0..=self.params.slip_passes {
                for ((b, q0), e) in problem.q.iter_mut().zip(&base).zip(&rows.edge) {
                    *b = *q0 + e.map_or(0.0, |(c, mu)| mu * slip[c]);
                }
                let warm = match self.warm.len() == problem.len() {
                    true => self.warm.clone(),
                    false => DVector::zeros(problem.len()),
                };
                let what = || format!("tree relaxation of {} rows", problem.len());
                let (z, report) = match (self.chain.solve(&problem, &warm, what), &answer) {
                    (Ok(solved), _) if !(pass > 0 && solved.1.failed) => solved,
                    (Err(e), None) => return Err(e.into()),
                    // A refining pass that missed: the last answer stands.
                    _ => break,
                };
                stats.iterations += report.iterations;
                stats.residual = report.residual;
                stats.solver = report.solver;
                stats.failed = report.failed;
                let step = (chol.l_dirty().tr_solve_lower_triangular(&(&x * &z)))
                    .ok_or(TreeContactError::SingularMass)?;
                let candidate = &v_free + step;
                let next = self.slip_speeds(&rows.d, &candidate);
                let change = next
                    .iter()
                    .zip(&slip)
                    .fold(0.0f64, |m, (a, b)| m.max((a - b).abs()));
                self.warm = z;
                answer = Some(candidate);
                slip = next;
                if change <= self.params.tolerance * scale {
                    break;
                }
            }
            stats.lcp_rows = rows.a.nrows();
            v_new = answer.expect("the first pass answers or returns");
        }
        advance_positions(tree, q, v_new.as_slice(), h);
        v.copy_from_slice(v_new.as_slice());
        Ok(stats)
    }
}

/// A = H(q) + h D_u + h² K_u factored, and v_ℓ = A⁻¹ (H v + h (τ(q, v) + D_u v − C(q, v))):
/// the joints' damping and PD servos taken linearly implicitly (`penalty::joint_system`), so a
/// stiff servo on a light link is stable at any h.
fn free_velocity(
    tree: &Tree,
    ws: &mut Workspace,
    (q, v): (&[f64], &[f64]),
    controls: &Controls,
    h: f64,
) -> Result<(Cholesky<f64, Dyn>, DVector<f64>), TreeContactError> {
    let (a, b) = joint_system(tree, ws, (q, v), controls, h)?;
    let chol = Cholesky::new(a).ok_or(TreeContactError::SingularMass)?;
    let v_free = chol.solve(&b);
    Ok((chol, v_free))
}

/// The LCP in z = (p_n, β, σ) of the module doc, with W = G A⁻¹ Gᵀ.
pub(super) fn lcp(rows: &Rows, w: &DMatrix<f64>, v_free: &DVector<f64>, k: usize) -> Problem {
    let nr = rows.g.nrows();
    let nf = rows.friction.len();
    let n = nr + nf;
    let mut m = DMatrix::zeros(n, n);
    m.view_mut((0, 0), (nr, nr)).copy_from(&w);
    let gv = &rows.g * v_free;
    let mut q = DVector::zeros(n);
    q.rows_mut(0, nr).copy_from(&gv);
    for (i, p) in rows.psi.iter().enumerate() {
        q[i] += p;
    }
    for (f, &(c, mu)) in rows.friction.iter().enumerate() {
        let s = nr + f;
        m[(s, c)] = mu;
        for r in 0..k {
            let t = rows.normals + k * f + r;
            m[(t, s)] = 1.0;
            m[(s, t)] = -1.0;
        }
    }
    Problem::lcp(m, q)
}
