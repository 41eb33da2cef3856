//! The contact frame (t1, t2, n) and the collision matrix K (L1) in it (slides s. 25–27): the
//! change Δu = K P of the relative contact velocity under an impulse P, built from the bodies'
//! inverse masses and world inverse inertias, checked symmetric positive definite; and the
//! tangential blocks K_tt, K_tn the friction laws work with.
use glam::{DMat3, DVec2, DVec3};

use super::LawError;

/// An orthonormal right-handed contact frame: tangents t1, t2 and the normal n (from A to B),
/// t1 × t2 = n. World vectors, dimensionless.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ContactFrame {
    pub t1: DVec3,
    pub t2: DVec3,
    pub n: DVec3,
}

impl ContactFrame {
    /// The frame (t1, t2, n), checked orthonormal and right-handed to 1e-9.
    pub fn new(t1: DVec3, t2: DVec3, n: DVec3) -> Result<Self, LawError> {
        let ok = [t1, t2, n]
            .iter()
            .all(|v| v.is_finite() && (v.length() - 1.0).abs() <= 1e-9)
            && t1.dot(t2).abs() <= 1e-9
            && t1.dot(n).abs() <= 1e-9
            && t2.dot(n).abs() <= 1e-9
            && (t1.cross(t2) - n).length() <= 1e-9;
        if !ok {
            return Err(LawError::BadInput(format!(
                "contact frame t1 = {t1}, t2 = {t2}, n = {n} is not orthonormal and right-handed"
            )));
        }
        Ok(ContactFrame { t1, t2, n })
    }

    /// A frame with normal `n` (normalized; must be finite and nonzero) and tangents chosen
    /// deterministically: t1 ⊥ n built from the world axis least aligned with n, t2 = n × t1.
    pub fn from_normal(n: DVec3) -> Result<Self, LawError> {
        let len = n.length();
        if !(len.is_finite() && len > 0.0) {
            return Err(LawError::BadInput(format!(
                "contact normal {n} must be finite and nonzero"
            )));
        }
        let n = n / len;
        let a = n.abs();
        let axis = if a.x <= a.y && a.x <= a.z {
            DVec3::X
        } else if a.y <= a.z {
            DVec3::Y
        } else {
            DVec3::Z
        };
        let t1 = (axis - axis.dot(n) * n).normalize();
        let t2 = n.cross(t1);
        Ok(ContactFrame { t1, t2, n })
    }

    /// A world vector's components in the frame (t1, t2, n).
    pub fn to_contact(&self, w: DVec3) -> DVec3 {
        DVec3::new(w.dot(self.t1), w.dot(self.t2), w.dot(self.n))
    }

    /// The world vector with components `c` in the frame.
    pub fn to_world(&self, c: DVec3) -> DVec3 {
        c.x * self.t1 + c.y * self.t2 + c.z * self.n
    }

    /// R = [t1 t2 n]: contact → world.
    pub fn rotation(&self) -> DMat3 {
        DMat3::from_cols(self.t1, self.t2, self.n)
    }
}

/// What the collision matrix needs of one dynamic body at the contact point.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BodyAtContact {
    /// 1/m (1/kg), ≥ 0.
    pub inverse_mass: f64,
    /// World inverse inertia about the centre of mass, R J⁻¹ Rᵀ (1/(kg m²)), symmetric.
    pub inverse_inertia: DMat3,
    /// Contact point minus centre of mass, world (m).
    pub r: DVec3,
}

/// Element (row i, column j) of a glam matrix.
pub(super) fn at(m: &DMat3, i: usize, j: usize) -> f64 {
    m.col(j)[i]
}

pub(super) fn max_abs(m: &DMat3) -> f64 {
    m.to_cols_array().iter().fold(0.0, |a, v| a.max(v.abs()))
}

/// The collision matrix (L1) in the contact frame for bodies A and B (None: a fixed body).
/// Errors when an input is not finite, a mass or inertia is negative or asymmetric, or K is not
/// symmetric positive definite (e.g. both bodies fixed).
pub fn collision_matrix(
    frame: &ContactFrame,
    a: Option<&BodyAtContact>,
    b: Option<&BodyAtContact>,
) -> Result<DMat3, LawError> {
    let frame = ContactFrame::new(frame.t1, frame.t2, frame.n)?;
    let mut k_world = DMat3::ZERO;
    for (name, body) in [("A", a), ("B", b)] {
        let Some(body) = body else { continue };
        let ii = body.inverse_inertia;
        let finite = body.inverse_mass.is_finite()
            && ii.to_cols_array().iter().all(|v| v.is_finite())
            && body.r.is_finite();
        if !finite {
            return Err(LawError::BadInput(format!(
                "body {name}: inverse mass, inverse inertia and r must be finite"
            )));
        }
        if body.inverse_mass < 0.0 {
            return Err(LawError::BadInput(format!(
                "body {name}: inverse mass {} 1/kg is negative",
                body.inverse_mass
            )));
        }
        if max_abs(&(ii - ii.transpose())) > 1e-9 * max_abs(&ii) {
            return Err(LawError::BadInput(format!(
                "body {name}: inverse inertia {ii} is not symmetric"
            )));
        }
        // [r]× as a matrix: [r]× x = r × x.
        let rx = DMat3::from_cols(
            DVec3::new(0.0, body.r.z, -body.r.y),
            DVec3::new(-body.r.z, 0.0, body.r.x),
            DVec3::new(body.r.y, -body.r.x, 0.0),
        );
        // (L1): m⁻¹ I₃ − [r]× I⁻¹ [r]×.
        k_world += DMat3::from_diagonal(DVec3::splat(body.inverse_mass)) - rx * ii * rx;
    }
    let r = frame.rotation();
    check_collision_matrix(&(r.transpose() * k_world * r))
}

/// K checked finite, symmetric (to 1e-10 of its largest entry) and positive definite (Cholesky
/// pivots above 1e-14 of the largest diagonal entry); returned exactly symmetrized.
pub fn check_collision_matrix(k: &DMat3) -> Result<DMat3, LawError> {
    if !k.to_cols_array().iter().all(|v| v.is_finite()) {
        return Err(LawError::BadInput(format!(
            "collision matrix {k} is not finite"
        )));
    }
    let scale = max_abs(k);
    if max_abs(&(*k - k.transpose())) > 1e-10 * scale {
        return Err(LawError::NotPositiveDefinite(format!(
            "{k} is not symmetric"
        )));
    }
    let ks = (*k + k.transpose()) * 0.5;
    // Cholesky: K = L Lᵀ; every pivot must be clearly positive.
    let dmax = (0..3).map(|i| at(&ks, i, i)).fold(0.0, f64::max);
    let mut l = [[0.0f64; 3]; 3];
    for j in 0..3 {
        let d = at(&ks, j, j) - l[j][..j].iter().map(|v| v * v).sum::<f64>();
        if d.is_nan() || d <= 1e-14 * dmax {
            return Err(LawError::NotPositiveDefinite(format!(
                "{k}: Cholesky pivot {j} is {d:e} (largest diagonal entry {dmax:e})"
            )));
        }
        l[j][j] = d.sqrt();
        for i in j + 1..3 {
            let s = at(&ks, i, j) - (0..j).map(|m| l[i][m] * l[j][m]).sum::<f64>();
            l[i][j] = s / l[j][j];
        }
    }
    Ok(ks)
}

/// The tangential block K_tt (2×2, rows/cols t1, t2) as (k11, k12, k22).
pub(super) fn tangential_block(k: &DMat3) -> (f64, f64, f64) {
    (at(k, 0, 0), at(k, 0, 1), at(k, 1, 1))
}

/// K_tn: the tangential part of K's normal column.
pub(super) fn tangential_coupling(k: &DMat3) -> DVec2 {
    DVec2::new(at(k, 0, 2), at(k, 1, 2))
}

/// K_tt x.
pub(super) fn ktt_mul(k: &DMat3, x: DVec2) -> DVec2 {
    let (k11, k12, k22) = tangential_block(k);
    DVec2::new(k11 * x.x + k12 * x.y, k12 * x.x + k22 * x.y)
}

/// K_tt⁻¹ x (K_tt is SPD when K is).
pub(super) fn ktt_solve(k: &DMat3, x: DVec2) -> DVec2 {
    let (k11, k12, k22) = tangential_block(k);
    let det = k11 * k22 - k12 * k12;
    DVec2::new((k22 * x.x - k12 * x.y) / det, (k11 * x.y - k12 * x.x) / det)
}
