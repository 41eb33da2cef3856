//! The polyhedral friction cone: k unit tangent directions spread evenly in the contact plane
//! (Stewart & Trinkle 1996; Anitescu & Potra 1997). The friction impulse is Σ_j β_j d_j with
//! β ≥ 0 and Σ_j β_j ≤ μ p_n, an inner approximation of the Coulomb cone that is exact for k → ∞.
use glam::DVec3;

/// An orthonormal pair (t1, t2) spanning the plane normal to the unit vector `n`, chosen by a
/// fixed rule so the same normal always gives the same basis (determinism, warm starts), and
/// nearby normals nearby bases except across one switch: t1 = n × a / |n × a| with a = X, or Y
/// when n is within 45° of ±X (|n_x| > 1/√2); either way |n × a| ≥ 1/√2.
///
/// The switch is kept away from ±Z, the normal of every face resting on a horizontal one. The
/// rule before ("the world axis least aligned with n") switched between X and Y where
/// |n_x| = |n_y|, which for n ≈ ±Z is decided by the round-off in n_x and n_y: at rest a box's
/// face normal crossed it from step to step, its friction directions turned by 90° (with k = 4,
/// d_j took d_(j+1)'s place), and every warm start keyed by the contact carried β onto the wrong
/// directions (the 64-box bin under `peg`, settled: last step's answer had a scaled residual of
/// 1e-4–0.7 on a problem whose q moved by 1e-11, and Lemke pivoted from scratch every step).
pub fn tangent_basis(n: DVec3) -> (DVec3, DVec3) {
    let a = if n.x.abs() <= std::f64::consts::FRAC_1_SQRT_2 {
        DVec3::X
    } else {
        DVec3::Y
    };
    let t1 = n.cross(a).normalize();
    (t1, n.cross(t1))
}

/// The k ≥ 3 directions d_j = cos(2πj/k) t1 + sin(2πj/k) t2, j = 0..k. With k even they come in
/// opposite pairs, so sliding in either sense along a direction meets the same friction.
pub fn directions(n: DVec3, k: usize) -> impl Iterator<Item = DVec3> {
    let (t1, t2) = tangent_basis(n);
    (0..k).map(move |j| {
        let (c, s) = unit_direction(j, k);
        c * t1 + s * t2
    })
}

/// (cos 2πj/k, sin 2πj/k).
fn unit_direction(j: usize, k: usize) -> (f64, f64) {
    let a = std::f64::consts::TAU * j as f64 / k as f64;
    (a.cos(), a.sin())
}

/// The k directions' (cos 2πj/k, sin 2πj/k), computed once for every contact of a step (the
/// trigonometry was 2 % of a step on the 10-box stack); [`directions`] gives the same bits.
#[derive(Clone, Debug)]
pub struct Cone {
    unit: Vec<(f64, f64)>,
}

impl Cone {
    pub fn new(k: usize) -> Self {
        let unit = (0..k).map(|j| unit_direction(j, k)).collect();
        Cone { unit }
    }

    /// The directions of [`directions`] about the unit normal `n`.
    pub fn directions(&self, n: DVec3) -> impl Iterator<Item = DVec3> + '_ {
        let (t1, t2) = tangent_basis(n);
        self.unit.iter().map(move |&(c, s)| c * t1 + s * t2)
    }

    /// β ≥ 0 on the k directions about `n` with Σ_j β_j d_j = the part of `force` in the contact
    /// plane, using the two directions that bracket it (the least Σ_j β_j, so the least of the
    /// cone's μ p_n any decomposition needs): with Δ = 2π/k and the force at angle
    /// θ = jΔ + φ from t1 (0 ≤ φ < Δ), β_j = |F_t| sin(Δ − φ) / sin Δ and
    /// β_{j+1} = |F_t| sin φ / sin Δ. Used to carry a friction impulse from one step's
    /// directions to the next when the contact's tangent basis changed (its normal moved across
    /// a switch of [`tangent_basis`]'s rule).
    pub fn decompose(&self, n: DVec3, force: DVec3) -> Vec<f64> {
        let k = self.unit.len();
        let mut beta = vec![0.0; k];
        let (t1, t2) = tangent_basis(n);
        let (a, b) = (force.dot(t1), force.dot(t2));
        let size = a.hypot(b);
        if size == 0.0 || !size.is_finite() {
            return beta;
        }
        let delta = std::f64::consts::TAU / k as f64;
        let theta = b.atan2(a).rem_euclid(std::f64::consts::TAU);
        let j = ((theta / delta) as usize).min(k - 1);
        let phi = (theta - j as f64 * delta).clamp(0.0, delta);
        beta[j] = size * (delta - phi).sin() / delta.sin();
        beta[(j + 1) % k] += size * phi.sin() / delta.sin();
        beta
    }
}
