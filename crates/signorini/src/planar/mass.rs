//! Mass properties of planar shapes per unit areal density: area, centroid and the polar second
//! moment of area about the centroid, J = ∫ |r − c|² dA (the rotational inertia about the
//! centroid is I = ρ J, ρ in kg/m²).
//!
//! Polygons: a fan of triangles (p₀, vᵢ, vᵢ₊₁) from p₀ = the mean of the vertices (inside a
//! convex polygon, which keeps the terms small and of one sign). For a triangle with vertices
//! a, b, c relative to p₀, with signed area A_t = ½ (b − a) × (c − a):
//!
//! ```text
//!   centroid  (a + b + c) / 3
//!   J_p₀      A_t (|a|² + |b|² + |c|² + a·b + b·c + c·a) / 6
//! ```
//!
//! summed exactly over the fan, then moved to the centroid by the parallel-axis theorem
//! J_c = J_p₀ − A |c − p₀|². Disks: A = π r², J = π r⁴ / 2. Both are exact up to rounding.
use super::shape::{cross, ConvexPolygon, PlanarShape};
use glam::DVec2;

/// Area (m²), centroid (m, in the shape's frame) and polar second moment of area about the
/// centroid (m⁴).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AreaProperties {
    pub area: f64,
    pub centroid: DVec2,
    pub polar_moment: f64,
}

impl AreaProperties {
    /// Mass (kg) and rotational inertia about the centroid (kg m²) at areal density `density`.
    pub fn with_density(&self, density: f64) -> (f64, f64) {
        (density * self.area, density * self.polar_moment)
    }

    /// Rotational inertia about the centroid (kg m²) for total mass `mass`.
    pub fn inertia_for_mass(&self, mass: f64) -> f64 {
        mass * self.polar_moment / self.area
    }
}

/// The area properties of a convex polygon (triangle fan, exact).
pub fn polygon(p: &ConvexPolygon) -> AreaProperties {
    let v = p.vertices();
    let n = v.len();
    let p0 = v.iter().copied().sum::<DVec2>() / n as f64;
    let mut area = 0.0;
    let mut first = DVec2::ZERO; // Σ A_t × triangle centroid (relative to p₀)
    let mut second = 0.0; // Σ J of each triangle about p₀
    for i in 0..n {
        let a = v[i] - p0;
        let b = v[(i + 1) % n] - p0;
        // The triangle (p₀, a, b): its third vertex is p₀ itself (0 relative to p₀).
        let at = 0.5 * cross(a, b);
        area += at;
        first += at * (a + b) / 3.0;
        second += at * (a.length_squared() + b.length_squared() + a.dot(b)) / 6.0;
    }
    let c = first / area;
    AreaProperties {
        area,
        centroid: p0 + c,
        polar_moment: second - area * c.length_squared(),
    }
}

/// The area properties of a disk of radius `r` centred on the origin.
pub fn disk(r: f64) -> AreaProperties {
    let area = std::f64::consts::PI * r * r;
    AreaProperties {
        area,
        centroid: DVec2::ZERO,
        polar_moment: 0.5 * area * r * r,
    }
}

/// The area properties of a shape with area (polygon, disk); `None` for segments and lines.
pub fn of_shape(shape: &PlanarShape) -> Option<AreaProperties> {
    match shape {
        PlanarShape::Polygon(p) => Some(polygon(p)),
        PlanarShape::Disk { radius } => Some(disk(*radius)),
        PlanarShape::Segment { .. } | PlanarShape::Line { .. } => None,
    }
}
