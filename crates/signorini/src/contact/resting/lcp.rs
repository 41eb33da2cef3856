//! Assembly of the resting-contact LCP (R4)–(R8): the rows of G (a normal row per resting contact,
//! k cone rows per sticking contact, a slip row per sliding contact), q = b at zero contact force
//! (R2), (R6), W = G M⁻¹ Gᵀ (`delassus`, R4) and the matrix M of (R7) with the sliding columns
//! (R8) folded in (`friction`).
//!
//! ```text
//!   z = (f, β, σ):  f one per resting contact (nc), β k per sticking contact (nt = ns k),
//!                   σ one per sticking contact (ns)
//!   rows of G:      n_c for every resting c, d_j for every sticking c, t̂_c for every sliding c
//!   M = [ W_nn  W_nt  0 ] with column c −= μ_c W[:, t̂_c] for sliding c      (R7), (R8)
//!       [ W_tn  W_tt  E ]
//!       [ μ     −Eᵀ   0 ]
//!   q = (b_n, b_t, 0)     (+ Baumgarte's drift terms when RestingOptions::stabilization_time > 0)
//! ```
use super::classify::ContactClass;
use super::friction::{add_cone_complementarity, fold_sliding_friction};
use super::kinematics::Kinematics;
use super::options::RestingOptions;
use crate::collision::Contact;
use crate::contact::cone;
use crate::contact::contact_jacobian_row;
use crate::dynamics::jacobian::{delassus, InverseMass, JacobianRow};
use crate::dynamics::{Model, State};
use crate::solvers::Problem;
use glam::DVec3;
use nalgebra::{DMatrix, DVector};

/// Where the unknowns z = (f, β, σ) of each resting contact sit, and the rows of G.
pub(super) struct LcpLayout {
    /// k, directions of the polyhedral friction cone.
    pub k: usize,
    /// Positions (in `resting`) of the sticking contacts.
    pub sticking: Vec<usize>,
    /// Positions (in `resting`) of the sliding contacts, with their slip direction t̂.
    pub sliding: Vec<(usize, DVec3)>,
    /// Resting contacts (normal unknowns f).
    pub nc: usize,
    /// Sticking contacts (σ unknowns).
    pub ns: usize,
    /// Sliding contacts (slip rows of G, no unknowns).
    pub nl: usize,
    /// Cone rows, ns k (β unknowns).
    pub nt: usize,
}

impl LcpLayout {
    /// The layout for the contacts `resting` (indices into `class`), with `k` cone directions.
    pub(super) fn new(class: &[ContactClass], resting: &[usize], k: usize) -> Self {
        let sticking: Vec<usize> = (0..resting.len())
            .filter(|&r| class[resting[r]] == ContactClass::Sticking)
            .collect();
        let sliding: Vec<(usize, DVec3)> = (0..resting.len())
            .filter_map(|r| match class[resting[r]] {
                ContactClass::Sliding { direction } => Some((r, direction)),
                _ => None,
            })
            .collect();
        let (nc, ns, nl) = (resting.len(), sticking.len(), sliding.len());
        let nt = ns * k;
        LcpLayout {
            k,
            sticking,
            sliding,
            nc,
            ns,
            nl,
            nt,
        }
    }

    /// Unknowns of the LCP: nc + nt + ns.
    pub(super) fn unknowns(&self) -> usize {
        self.nc + self.nt + self.ns
    }
}

/// The assembled LCP and what mapping its solution back to forces needs.
pub(super) struct RestingLcp {
    pub layout: LcpLayout,
    /// Rows of G: normals, cone directions, slip directions (in that order).
    pub rows: Vec<JacobianRow>,
    /// The cone direction d_j of each cone row, in row order.
    pub dirs: Vec<DVec3>,
    /// 0 ≤ z ⊥ M z + q ≥ 0 (R7).
    pub problem: Problem,
}

/// What building the rows of G and q needs: the model at `state`, the contacts with their
/// kinematics, and the body accelerations without contact forces.
pub(super) struct RowInputs<'a> {
    pub model: &'a Model,
    pub state: &'a State,
    pub contacts: &'a [Contact],
    pub kin: &'a [Kinematics],
    /// (a, α) of every body without contact forces.
    pub free: &'a [(DVec3, DVec3)],
    /// Indices of the resting contacts, in row order.
    pub resting: &'a [usize],
    /// The stabilization's settings (`stabilization_time`, `max_recovery_speed`).
    pub options: &'a RestingOptions,
}

impl RestingLcp {
    /// Assemble the LCP (R4)–(R8) of the contacts `input.resting`, of classes `class` and
    /// friction coefficients `mu` (per input contact), with `k` cone directions.
    pub(super) fn assemble(
        input: &RowInputs,
        class: &[ContactClass],
        mu: &[f64],
        k: usize,
    ) -> Self {
        let offsets = input.model.dof_offsets();
        let layout = LcpLayout::new(class, input.resting, k);
        let (rows, dirs, q) = rows_and_free_terms(input, &offsets, &layout);
        let w = delassus(&rows, &InverseMass::new(input.model, input.state));
        let m = lcp_matrix(&w, &layout, mu, input.resting);
        RestingLcp {
            layout,
            rows,
            dirs,
            problem: Problem::lcp(m, q),
        }
    }
}

/// Rows of G: normals, k cone directions per sticking contact, one slip row per sliding contact;
/// b of the normal and cone rows at zero contact force (R2), (R6), as q (zero on the σ rows).
fn rows_and_free_terms(
    input: &RowInputs,
    offsets: &[Option<usize>],
    layout: &LcpLayout,
) -> (Vec<JacobianRow>, Vec<DVec3>, DVector<f64>) {
    let RowInputs {
        model,
        state,
        contacts,
        kin,
        free,
        resting,
        ..
    } = *input;
    let LcpLayout {
        k, nc, ns, nl, nt, ..
    } = *layout;
    let row = |c: &Contact, d: DVec3| -> JacobianRow {
        contact_jacobian_row(model, state, offsets, c, d)
    };
    let mut rows = Vec::with_capacity(nc + nt + nl);
    let mut dirs = Vec::with_capacity(nt);
    let mut q = DVector::zeros(nc + nt + ns);
    // Baumgarte's drift terms (`RestingOptions::stabilization_time`, τ; none when τ = 0).
    let options = input.options;
    let tau = options.stabilization_time;
    let (rate, stiffness) = if tau > 0.0 {
        (1.0 / tau, 1.0 / (tau * tau))
    } else {
        (0.0, 0.0)
    };
    // (R2): b_n of the normal rows, + 2 v_n/τ + ψ̃/τ² (ψ̃ the bounded overlap).
    for (r, &i) in resting.iter().enumerate() {
        let c = &contacts[i];
        rows.push(row(c, c.normal));
        let drift =
            2.0 * rate * kin[i].v_rel.dot(c.normal) + stiffness * options.corrected_overlap(c.gap);
        q[r] = kin[i].normal_acceleration(model, state, c, free) + drift;
    }
    // (R6): b_t = d_j·(p̈_b − p̈_a) of the cone rows, + d_j·u/τ; with `stick_time` t_s the slip
    // is asked to stop within t_s, d_j·u/t_s (a slip up to μ|g|t_s sticks: friction within the
    // cone removes it in the step instead of over τ).
    let slip_rate = if options.stick_time > 0.0 && tau > 0.0 {
        1.0 / options.stick_time
    } else {
        rate
    };
    for &r in &layout.sticking {
        let i = resting[r];
        let c = &contacts[i];
        let rel =
            kin[i].relative_point_acceleration(model, state, c, free) + slip_rate * kin[i].v_rel;
        for d in cone::directions(c.normal, k) {
            q[nc + dirs.len()] = d.dot(rel);
            rows.push(row(c, d));
            dirs.push(d);
        }
    }
    // (R8): the slip rows t̂ (columns of W folded into the normal columns, no unknowns).
    for &(r, t) in &layout.sliding {
        rows.push(row(&contacts[resting[r]], t));
    }
    (rows, dirs, q)
}

/// The LCP matrix (R7) with the sliding columns (R8), from W = G M⁻¹ Gᵀ over all rows of G.
fn lcp_matrix(w: &DMatrix<f64>, layout: &LcpLayout, mu: &[f64], resting: &[usize]) -> DMatrix<f64> {
    let (nc, nt) = (layout.nc, layout.nt);
    let n = layout.unknowns();
    let mut m = DMatrix::zeros(n, n);
    m.view_mut((0, 0), (nc + nt, nc + nt))
        .copy_from(&w.view((0, 0), (nc + nt, nc + nt)));
    fold_sliding_friction(&mut m, w, layout, mu, resting);
    add_cone_complementarity(&mut m, layout, mu, resting);
    m
}
