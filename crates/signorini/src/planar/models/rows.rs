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

/// The impulse rows of a planar LCP and its friction structure.
pub(super) struct ImpulseRows {
    /// Each contact's normal row, then (+t, −t) per frictional contact (t = n turned +90°).
    pub rows: Vec<Row>,
    /// Per contact, its index among the frictional ones.
    pub friction_index: Vec<Option<usize>>,
    /// (contact, μ) of each frictional contact, in row order.
    pub mu: Vec<(usize, f64)>,
}

impl ImpulseRows {
    /// The rows of `contacts`; contact i has friction when `friction(i, contact)` gives μ > 0.
    pub(super) fn new<'c>(
        state: &PlanarState,
        dofs: &[Option<usize>],
        contacts: &[&'c Contact2],
        friction: impl Fn(usize, &'c Contact2) -> f64,
    ) -> Self {
        let mut rows: Vec<Row> = contacts
            .iter()
            .map(|c| Row::of(state, dofs, c, c.normal))
            .collect();
        let mut friction_index = vec![None; contacts.len()];
        let mut mu = Vec::new();
        for (i, c) in contacts.iter().enumerate() {
            let m = friction(i, c);
            if m > 0.0 {
                friction_index[i] = Some(mu.len());
                mu.push((i, m));
                let t = DVec2::new(-c.normal.y, c.normal.x);
                rows.push(Row::of(state, dofs, c, t));
                rows.push(Row::of(state, dofs, c, -t));
            }
        }
        ImpulseRows {
            rows,
            friction_index,
            mu,
        }
    }

    /// Into the LCP matrix `m` (z = (p, β, σ, …)): W = G M⁻¹ Gᵀ over the impulse rows, and
    /// the friction blocks E, −Eᵀ and μ (Stewart & Trinkle 1996 eqs 22–23), σ_f at column
    /// rows + f; q's impulse rows get G ν_ℓ.
    pub(super) fn fill(
        &self,
        inverse_mass: &[f64],
        nu_free: &[f64],
        m: &mut nalgebra::DMatrix<f64>,
        q: &mut DVector<f64>,
    ) {
        let (rows, nr) = (&self.rows, self.rows.len());
        let normals = self.friction_index.len();
        for i in 0..nr {
            for j in i..nr {
                let w = rows[i].weighted(&rows[j], inverse_mass);
                m[(i, j)] = w;
                m[(j, i)] = w;
            }
            q[i] = rows[i].dot(nu_free);
        }
        for (f, &(c, mu_c)) in self.mu.iter().enumerate() {
            let s = nr + f;
            for r in [normals + 2 * f, normals + 2 * f + 1] {
                m[(r, s)] = 1.0;
                m[(s, r)] = -1.0;
            }
            m[(s, c)] = mu_c;
        }
    }
}
