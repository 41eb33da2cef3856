//! The polyhedral friction cone: k unit tangent directions spread evenly in the contact plane
//! (Stewart & Trinkle 1996; Anitescu & Potra 1997). The friction impulse is Σ_j β_j d_j with
//! β ≥ 0 and Σ_j β_j ≤ μ p_n, an inner approximation of the Coulomb cone that is exact for k → ∞.
use glam::DVec3;

/// An orthonormal pair (t1, t2) spanning the plane normal to the unit vector `n`, chosen by a
/// fixed rule so the same normal always gives the same basis (determinism, warm starts).
pub fn tangent_basis(n: DVec3) -> (DVec3, DVec3) {
    // Cross with the world axis least aligned with n: |n × a| ≥ √(2/3).
    let a = if n.x.abs() <= n.y.abs() && n.x.abs() <= n.z.abs() {
        DVec3::X
    } else if n.y.abs() <= n.z.abs() {
        DVec3::Y
    } else {
        DVec3::Z
    };
    let t1 = n.cross(a).normalize();
    (t1, n.cross(t1))
}

/// The k ≥ 3 directions d_j = cos(2πj/k) t1 + sin(2πj/k) t2, j = 0..k. With k even they come in
/// opposite pairs, so sliding in either sense along a direction meets the same friction.
pub fn directions(n: DVec3, k: usize) -> impl Iterator<Item = DVec3> {
    let (t1, t2) = tangent_basis(n);
    (0..k).map(move |j| {
        let a = std::f64::consts::TAU * j as f64 / k as f64;
        a.cos() * t1 + a.sin() * t2
    })
}
