//! Mass, centre of mass and inertia tensor of shapes and of unions of shapes.
use super::{Polytope, Pose};
use glam::{DMat3, DVec3};

/// Mass properties in a shape's (or body's) own frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MassProperties {
    /// kg
    pub mass: f64,
    /// Centre of mass (m), in the shape frame.
    pub com: DVec3,
    /// Inertia tensor about the centre of mass, axes of the shape frame (kg m²).
    pub inertia: DMat3,
}

impl MassProperties {
    /// Solid sphere of radius `r` (m) and density `rho` (kg/m³): I = 2/5 m r².
    pub fn sphere(r: f64, rho: f64) -> Self {
        let mass = rho * 4.0 / 3.0 * std::f64::consts::PI * r * r * r;
        MassProperties {
            mass,
            com: DVec3::ZERO,
            inertia: DMat3::from_diagonal(DVec3::splat(0.4 * mass * r * r)),
        }
    }

    /// Exact mass properties of a uniform polytope of density `rho` (kg/m³).
    ///
    /// Each face is fanned into triangles (a, b, c); with the origin they form signed tetrahedra of
    /// volume det[a b c]/6, whose second moment is ∫ x xᵀ dV = det/120 (aaᵀ + bbᵀ + ccᵀ + ssᵀ),
    /// s = a + b + c (the canonical-tetrahedron covariance mapped by [a b c]). Summing gives the
    /// second moment S about the origin; about the centre of mass S_c = S − V c cᵀ, and the
    /// inertia tensor is ρ (tr(S_c) I − S_c).
    pub fn polytope(p: &Polytope, rho: f64) -> Self {
        let (mut six_v, mut first, mut second) = (0.0, DVec3::ZERO, DMat3::ZERO);
        for face in &p.faces {
            let a = p.vertices[face.vertices[0] as usize];
            for w in face.vertices[1..].windows(2) {
                let (b, c) = (p.vertices[w[0] as usize], p.vertices[w[1] as usize]);
                let det = a.dot(b.cross(c));
                let s = a + b + c;
                six_v += det;
                first += det * s;
                second += (outer(a, a) + outer(b, b) + outer(c, c) + outer(s, s)) * (det / 120.0);
            }
        }
        let volume = six_v / 6.0;
        let com = first / 24.0 / volume;
        let central = second - outer(com, com) * volume;
        let trace = central.x_axis.x + central.y_axis.y + central.z_axis.z;
        let inertia = (DMat3::from_diagonal(DVec3::splat(trace)) - central) * rho;
        MassProperties {
            mass: rho * volume,
            com,
            inertia,
        }
    }

    /// The same distribution of matter scaled to total mass `m` (kg).
    pub fn with_mass(&self, m: f64) -> Self {
        let k = m / self.mass;
        MassProperties {
            mass: m,
            com: self.com,
            inertia: self.inertia * k,
        }
    }

    /// Mass properties of a union of parts, each given in its own frame placed by a pose in the
    /// common frame (parts are assumed not to overlap). Parallel-axis theorem:
    /// I = Σ R Iᵢ Rᵀ + mᵢ (|d|² I − d dᵀ), d = offset of part i's centre from the common centre.
    pub fn union(parts: &[(MassProperties, Pose)]) -> Self {
        let mass: f64 = parts.iter().map(|(m, _)| m.mass).sum();
        let com = parts
            .iter()
            .map(|(m, pose)| pose.transform_point(m.com) * m.mass)
            .sum::<DVec3>()
            / mass;
        let mut inertia = DMat3::ZERO;
        for (m, pose) in parts {
            let r = DMat3::from_quat(pose.rotation);
            let d = pose.transform_point(m.com) - com;
            inertia += r * m.inertia * r.transpose()
                + (DMat3::from_diagonal(DVec3::splat(d.length_squared())) - outer(d, d)) * m.mass;
        }
        MassProperties { mass, com, inertia }
    }
}

/// a bᵀ
pub fn outer(a: DVec3, b: DVec3) -> DMat3 {
    DMat3::from_cols(a * b.x, a * b.y, a * b.z)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn box_inertia_matches_closed_form() {
        // I_xx = m (ly² + lz²) / 12 for a box of edge lengths lx, ly, lz.
        let (lx, ly, lz, rho) = (1.0, 2.0, 3.0, 7.0);
        let p = Polytope::cuboid(DVec3::new(lx, ly, lz) / 2.0);
        let mp = MassProperties::polytope(&p, rho);
        let m = rho * lx * ly * lz;
        assert!((mp.mass - m).abs() < 1e-12 * m);
        let expect =
            DVec3::new(ly * ly + lz * lz, lx * lx + lz * lz, lx * lx + ly * ly) * (m / 12.0);
        let got = DVec3::new(
            mp.inertia.x_axis.x,
            mp.inertia.y_axis.y,
            mp.inertia.z_axis.z,
        );
        assert!((got - expect).abs().max_element() < 1e-12 * m);
        assert!(mp.com.length() < 1e-14);
    }
}
