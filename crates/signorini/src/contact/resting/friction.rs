//! Coulomb friction of the resting contacts (module documentation, "Friction"): the rows that a
//! sticking contact's polyhedral cone adds to the LCP matrix (R6), (R7), the sliding friction
//! −μ f t̂ folded into the normal columns (R8), and the friction forces read back from z.
//!
//! ```text
//!   sticking c:  M[t, σ_c] = 1,  M[σ_c, t] = −1 (t its k cone rows),  M[σ_c, c] = μ_c   (R7)
//!   sliding c:   M[:, c] −= μ_c W[:, t̂_c]                                            (R8)
//!   friction on B:  Σ_j β_j d_j (sticking),  −μ_c f_c t̂_c (sliding)
//! ```
use super::lcp::LcpLayout;
use glam::DVec3;
use nalgebra::{DMatrix, DVector};

/// (R8): column c of a sliding contact becomes W[:, n_c] − μ_c W[:, t̂_c] (rows of f and β).
pub(super) fn fold_sliding_friction(
    m: &mut DMatrix<f64>,
    w: &DMatrix<f64>,
    layout: &LcpLayout,
    mu: &[f64],
    resting: &[usize],
) {
    let (nc, nt) = (layout.nc, layout.nt);
    for (l, &(r, _)) in layout.sliding.iter().enumerate() {
        let slip_row = nc + nt + l;
        let mu_c = mu[resting[r]];
        for i in 0..nc + nt {
            m[(i, r)] -= mu_c * w[(i, slip_row)];
        }
    }
}

/// (R6), (R7): the E and −Eᵀ blocks and the μ entries of the sticking contacts' σ rows.
pub(super) fn add_cone_complementarity(
    m: &mut DMatrix<f64>,
    layout: &LcpLayout,
    mu: &[f64],
    resting: &[usize],
) {
    let (nc, nt, k) = (layout.nc, layout.nt, layout.k);
    for (s, &r) in layout.sticking.iter().enumerate() {
        let sigma = nc + nt + s;
        for j in 0..k {
            let t = nc + s * k + j;
            m[(t, sigma)] = 1.0;
            m[(sigma, t)] = -1.0;
        }
        m[(sigma, r)] = mu[resting[r]];
    }
}

/// The multipliers −μ f of the slip rows (appended to `row_forces`) and the sliding friction
/// force −μ f t̂ on B of each sliding contact (into `friction`, per input contact).
pub(super) fn sliding_friction(
    z: &DVector<f64>,
    layout: &LcpLayout,
    mu: &[f64],
    resting: &[usize],
    row_forces: &mut Vec<f64>,
    friction: &mut [DVec3],
) {
    for &(r, t) in &layout.sliding {
        let i = resting[r];
        row_forces.push(-mu[i] * z[r]);
        friction[i] = -mu[i] * z[r] * t;
    }
}

/// The friction force Σ_j β_j d_j on B of each sticking contact (into `friction`).
pub(super) fn sticking_friction(
    z: &DVector<f64>,
    layout: &LcpLayout,
    dirs: &[DVec3],
    resting: &[usize],
    friction: &mut [DVec3],
) {
    let (nc, k) = (layout.nc, layout.k);
    for (s_idx, &r) in layout.sticking.iter().enumerate() {
        friction[resting[r]] = (0..k)
            .map(|j| z[nc + s_idx * k + j] * dirs[s_idx * k + j])
            .sum();
    }
}
