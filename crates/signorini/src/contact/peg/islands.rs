//! PEG's subproblem split into islands (issue 15, item 1): the constraints of bodies joined
//! through constraints form independent LCPs, each assembled and solved on its own.
//!
//! A constraint's members are feature pairs of one pair of pieces, so all its rows — force,
//! tangent, sliding and slack — involve the two bodies of its primary contact. Two constraints of
//! different islands ([`contact::islands::partition`] of the primaries: fixed bodies join
//! nothing) share no body, their entries of the matrix of `assemble`'s module documentation are
//! zero, and the step's LCP is block diagonal once its unknowns are grouped by island. Each
//! island's LCP is the step's LCP restricted to its unknowns, exactly; its answer is the step's
//! answer there.
//!
//! ```text
//!   islands ← partition(primaries)
//!   one island:  the step's LCP as before (bit for bit)
//!   otherwise, for each island I (in parallel from PARALLEL_MIN_ROWS = 300 rows, `passes.rs`):
//!     LCP_I ← assemble(constraints of I)          rows of I only; max_rows applies to each
//!     z_I   ← solve(LCP_I, warm start of I)       sparse path from large_island_rows
//!   in island order: scatter z_I, LCP_I's rows and blocks into the step's layout z = (p, β, σ, c)
//! ```
//!
//! Each island's answer depends on its own data only and they are combined in island order, so
//! a run is the same, bit for bit, on any number of threads (`tests/contact_islands.rs`).
//!
//! The step's layout: p_j at j; the k β's of the f-th frictional constraint at np + f k; its σ at
//! np + nt + f; the slack of the m-th other member of constraint j at np + nt + nf + (the members
//! of the constraints before j) + m. An island's own LCP has the same layout over its
//! constraints, in their order; [`Layout::global`] maps one to the other. The passes, the map back
//! to contacts and the warm starts read the step's layout as before; the step's matrix is stored
//! dense and block diagonal (the map back's w = M z + q reads it), but only the islands' blocks are
//! factored and pivoted on.
//!
//! Before: one dense LCP for the whole step. On `bin_64.toml` under `peg` the step at t = 0.98 s
//! posed 1,252 rows, above `max_rows` (1,250), and the run stopped (docs/experiments.md, the
//! robustness grid).
use super::assemble::{assemble, StepLcp};
use super::constraints::Constraint;
use crate::collision::Contact;
use crate::contact::islands;
use crate::dynamics::jacobian::{JacobianRow, RowBlocks};
use crate::dynamics::Model;
use crate::solvers::Problem;
use nalgebra::{DMatrix, DVector};

/// The islands of `constraints` (indices, increasing; islands ordered by their first index).
pub(super) fn partition(model: &Model, constraints: &[Constraint]) -> Vec<Vec<usize>> {
    let primaries: Vec<&Contact> = constraints.iter().map(|c| &c.primary).collect();
    islands::partition(model, &primaries)
}

/// Where each unknown of the step's LCP is (module documentation), from each constraint's
/// friction coefficient and its other members.
pub(super) struct Layout {
    np: usize,
    nt: usize,
    nf: usize,
    k: usize,
    /// Position of constraint j among the frictional ones (None: frictionless).
    frictional_rank: Vec<Option<usize>>,
    /// The slack unknowns of the constraints before j.
    slack_start: Vec<usize>,
    /// Slack unknowns.
    ns: usize,
}

impl Layout {
    pub(super) fn new(constraints: &[Constraint], mu: &[f64], k: usize) -> Self {
        let mut frictional_rank = Vec::with_capacity(constraints.len());
        let mut slack_start = Vec::with_capacity(constraints.len());
        let (mut nf, mut ns) = (0, 0);
        for (c, &m) in constraints.iter().zip(mu) {
            frictional_rank.push((m > 0.0).then_some(nf));
            nf += usize::from(m > 0.0);
            slack_start.push(ns);
            ns += c.others.len();
        }
        Layout {
            np: constraints.len(),
            nt: nf * k,
            nf,
            k,
            frictional_rank,
            slack_start,
            ns,
        }
    }

    /// Unknowns of the step's LCP.
    pub(super) fn len(&self) -> usize {
        self.np + self.nt + self.nf + self.ns
    }

    /// The step's index of each unknown of the LCP of the constraints `island` (indices into
    /// the step's constraints, increasing), in that LCP's own layout.
    fn global(&self, island: &[usize], constraints: &[Constraint]) -> Vec<usize> {
        let k = self.k;
        let frictional: Vec<usize> = island
            .iter()
            .filter_map(|&j| self.frictional_rank[j])
            .collect();
        let mut map: Vec<usize> = island.to_vec();
        for &f in &frictional {
            map.extend((0..k).map(|i| self.np + f * k + i));
        }
        map.extend(frictional.iter().map(|&f| self.np + self.nt + f));
        let slacks = self.np + self.nt + self.nf;
        for &j in island {
            let start = slacks + self.slack_start[j];
            map.extend(start..start + constraints[j].others.len());
        }
        map
    }
}

/// An island's LCP and the step's index of each of its unknowns.
pub(super) struct IslandLcp {
    pub(super) lcp: StepLcp,
    pub(super) constraints: Vec<Constraint>,
    pub(super) global: Vec<usize>,
}

/// Assemble the LCP of the constraints `island` (indices into the step's `constraints`,
/// increasing) and map its unknowns into the step's `layout`; `mu`, `k`, `about` and
/// `max_recovery_speed` as `assemble` takes them for the whole step.
#[allow(clippy::too_many_arguments)]
pub(super) fn assemble_island(
    problem: &crate::contact::VelocityProblem,
    constraints: &[Constraint],
    island: &[usize],
    layout: &Layout,
    mu: &[f64],
    k: usize,
    about: Option<&[f64]>,
    max_recovery_speed: f64,
) -> IslandLcp {
    let own: Vec<Constraint> = island.iter().map(|&j| constraints[j].clone()).collect();
    let own_mu: Vec<f64> = island.iter().map(|&j| mu[j]).collect();
    let lcp = assemble(problem, &own, &own_mu, k, about, max_recovery_speed);
    let global = layout.global(island, constraints);
    debug_assert_eq!(global.len(), lcp.len());
    IslandLcp {
        lcp,
        constraints: own,
        global,
    }
}

/// The step's LCP and answer from its islands' LCPs and answers: the blocks scattered into the
/// step's layout.
pub(super) fn combine(
    constraints: &[Constraint],
    mu: &[f64],
    k: usize,
    parts: &[(IslandLcp, DVector<f64>)],
) -> (StepLcp, DVector<f64>) {
    let layout = Layout::new(constraints, mu, k);
    let (n, ns) = (layout.len(), layout.ns);
    let impulse_rows = layout.np + layout.nt;
    let mut m = DMatrix::zeros(n, n);
    let mut q = DVector::zeros(n);
    let mut zz = DVector::zeros(n);
    let empty = JacobianRow {
        blocks: RowBlocks::new(),
    };
    let mut rows = vec![empty; impulse_rows];
    for (part, z_part) in parts {
        let g = &part.global;
        let dense = part.lcp.problem();
        for (r, &gr) in g.iter().enumerate() {
            q[gr] = part.lcp.q[r];
            zz[gr] = z_part[r];
            for (c, &gc) in g.iter().enumerate() {
                m[(gr, gc)] = dense.m[(r, c)];
            }
            if gr < impulse_rows {
                rows[gr] = part.lcp.rows[r].clone();
            }
        }
    }
    let frictional: Vec<usize> = (0..constraints.len())
        .filter(|&j| layout.frictional_rank[j].is_some())
        .collect();
    let lcp = StepLcp::given(Problem::lcp(m, q), rows, frictional, layout.nt, ns);
    (lcp, zz)
}

/// The islands of PEG's first pass on a state against the whole step's LCP: how many islands, whether the
/// islands' LCPs scattered into the step's layout are the whole LCP entry for entry, and the
/// scaled residual on the whole LCP of the islands' answers (each by Lemke's method), combined.
/// For the tests (`tests/contact_peg.rs`); PEG on its defaults, no applied forces, the first pass's
/// linearization at the start pose.
#[cfg(feature = "internals")]
#[derive(Clone, Debug)]
pub struct IslandCheck {
    pub islands: usize,
    pub constraints: usize,
    pub same_problem: bool,
    pub residual: f64,
    /// Every entry of the whole LCP's matrix-free operator (`assemble::PegOperator`), and its
    /// principal submatrices on all rows and on every other row, bit for bit the dense matrix's.
    pub operator_entries_match: bool,
    /// max |M z + q by the operator − by the dense matrix| / (‖M‖∞‖z‖∞ + ‖q‖∞), z the islands'
    /// answer (dimensionless: the two sum in different orders).
    pub operator_product_error: f64,
    /// Slack rows of the whole LCP (the operator's W_Δ, E_P and L blocks are exercised).
    pub slack_rows: usize,
}

/// [`IslandCheck`] of the state `state` of `model` with the narrow phase's `contacts`.
#[cfg(feature = "internals")]
pub fn check_islands(
    model: &Model,
    state: &crate::dynamics::State,
    contacts: &[Contact],
) -> IslandCheck {
    use crate::contact::{ModelBase, VelocityProblem};
    use crate::dynamics::Wrench;
    use crate::solvers::{lemke::Lemke, residual, Options, Solver};
    let mut peg = super::Peg::with_defaults();
    let distance = peg.activation_distance(model, state);
    let constraints = peg.constraints(model, state, contacts, distance);
    let islands = partition(model, &constraints);
    let k = peg.directions;
    let mu = peg.friction_coefficients(model, &constraints);
    let applied = vec![Wrench::default(); model.bodies.len()];
    let problem = VelocityProblem::new(model, state, model.settings.time_step, &applied);
    let recovery = peg.max_recovery_speed;
    let whole = assemble(&problem, &constraints, &mu, k, None, recovery);
    let layout = Layout::new(&constraints, &mu, k);
    let options = Options::default();
    let parts: Vec<(IslandLcp, DVector<f64>)> = islands
        .iter()
        .map(|island| {
            let part = assemble_island(
                &problem,
                &constraints,
                island,
                &layout,
                &mu,
                k,
                None,
                recovery,
            );
            let z = Lemke.solve(part.lcp.problem(), None, &options).z;
            (part, z)
        })
        .collect();
    let (combined, z) = combine(&constraints, &mu, k, &parts);
    let (operator_entries_match, operator_product_error) = check_operator(&whole, &z);
    IslandCheck {
        islands: islands.len(),
        constraints: constraints.len(),
        same_problem: combined.problem() == whole.problem()
            && combined.rows == whole.rows
            && combined.frictional == whole.frictional
            && (combined.nt, combined.ns) == (whole.nt, whole.ns),
        residual: residual(whole.problem(), &z),
        operator_entries_match,
        operator_product_error,
        slack_rows: whole.ns,
    }
}

/// [`IslandCheck`]'s operator fields for `lcp` (assembled from its parts) at the answer `z`.
#[cfg(feature = "internals")]
fn check_operator(lcp: &StepLcp, z: &DVector<f64>) -> (bool, f64) {
    use crate::solvers::sparse::LcpMatrix;
    let op = lcp.operator().expect("assembled from its parts");
    let dense = lcp.problem();
    let n = lcp.len();
    let same = |a: f64, b: f64| a.to_bits() == b.to_bits();
    let mut entries = (0..n).all(|r| (0..n).all(|c| same(op.get(r, c), dense.m[(r, c)])));
    for alpha in [(0..n).collect::<Vec<_>>(), (0..n).step_by(2).collect()] {
        let sub = op.principal_submatrix(&alpha);
        entries &= (0..alpha.len()).all(|i| {
            (0..alpha.len()).all(|j| same(sub[(i, j)], dense.m[(alpha[i], alpha[j])]))
        });
    }
    let by_op = op.mul_add(z, &lcp.q);
    let by_dense = &dense.m * z + &dense.q;
    let norm_m = (0..n)
        .map(|r| dense.m.row(r).iter().map(|x| x.abs()).sum::<f64>())
        .fold(0.0, f64::max);
    let scale = norm_m * z.amax() + lcp.q.amax();
    let error = (by_op - by_dense).amax() / scale.max(f64::MIN_POSITIVE);
    (entries, error)
}
