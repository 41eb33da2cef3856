//! Jacobian rows over the planar bodies' velocities (vx, vy, ω per dynamic body, at
//! `PlanarModel::dof_offsets`) and what both planar LCP models (`time_stepping.rs`, `peg.rs`) do
//! with them: the entries of W = G M⁻¹ Gᵀ, and ν⁺ = ν_ℓ + M⁻¹ Gᵀ z.
use crate::planar::{Contact2, PlanarModel, PlanarState};
use glam::DVec2;
use nalgebra::DVector;

/// A row of G: (offset, entries) per dynamic body it touches.
#[derive(Clone, Debug, Default)]
pub(super) struct Row(Vec<(usize, [f64; 3])>);

impl Row {
    /// The row of direction `dir` (A → B) at contact `c`'s points: B's block
    /// [dirᵀ, r_b × dir], minus A's.
    pub(super) fn of(state: &PlanarState, dofs: &[Option<usize>], c: &Contact2, dir: DVec2) -> Self {
        let mut r = Row::default();
        for (body, p, sign) in [(c.body_a, c.point_a, -1.0), (c.body_b, c.point_b, 1.0)] {
            if let Some(o) = dofs[body] {
                let arm = p - state.bodies[body].position;
                r.add(
                    o,
                    [
                        sign * dir.x,
                        sign * dir.y,
                        sign * (arm.x * dir.y - arm.y * dir.x),
                    ],
                );
            }
        }
        r
    }

    /// Add `g` to the block at offset `o`.
    pub(super) fn add(&mut self, o: usize, g: [f64; 3]) {
        match self.0.iter_mut().find(|(p, _)| *p == o) {
            Some((_, e)) => (0..3).for_each(|k| e[k] += g[k]),
            None => self.0.push((o, g)),
        }
    }

    /// self − other.
    pub(super) fn minus(&self, other: &Row) -> Self {
        let mut r = self.clone();
        for (o, g) in &other.0 {
            r.add(*o, [-g[0], -g[1], -g[2]]);
        }
        r
    }

    pub(super) fn dot(&self, nu: &[f64]) -> f64 {
        self.0
            .iter()
            .map(|(o, g)| g[0] * nu[*o] + g[1] * nu[o + 1] + g[2] * nu[o + 2])
            .sum()
    }

    /// self M⁻¹ otherᵀ (M⁻¹ diagonal, `inverse_mass` per velocity).
    pub(super) fn weighted(&self, other: &Row, inverse_mass: &[f64]) -> f64 {
        let mut w = 0.0;
        for (oi, gi) in &self.0 {
            for (oj, gj) in &other.0 {
                if oi == oj {
                    w += (0..3)
                        .map(|k| gi[k] * inverse_mass[oi + k] * gj[k])
                        .sum::<f64>();
                }
            }
        }
        w
    }
}

/// M⁻¹ per velocity (1/m, 1/m, 1/I per dynamic body; 0 elsewhere), `n` velocities.
pub(super) fn inverse_mass(model: &PlanarModel, dofs: &[Option<usize>], n: usize) -> Vec<f64> {
    let mut inverse_mass = vec![0.0; n];
    for (b, o) in model.bodies.iter().zip(dofs) {
        if let Some(o) = o {
            let (im, ii) = b.inverse_mass();
            inverse_mass[*o..o + 3].copy_from_slice(&[im, im, ii]);
        }
    }
    inverse_mass
}

/// velocity += M⁻¹ Σ_r z_r G_rᵀ over the rows (z's first `rows.len()` entries).
pub(super) fn add_impulses(rows: &[Row], z: &DVector<f64>, inverse_mass: &[f64], velocity: &mut [f64]) {
    for (r, row) in rows.iter().enumerate() {
        let p = z[r];
        if p == 0.0 {
            continue;
        }
        for (o, g) in &row.0 {
            for k in 0..3 {
                velocity[o + k] += inverse_mass[o + k] * g[k] * p;
            }
        }
    }
}
