//! The facets over a deformable body's outer particles, and the penalty contact of a particle of
//! another body with them (Deguet, Joukhadar & Laugier 1998, §3.3: "facets defined over the
//! outer particles" carry the collision of a deformable object).
//!
//! A generated box (`generate.rs`) is a grid of particles; its outer layer is the six faces of
//! the grid. Each face is cut into quads of four neighbouring particles and each quad into two
//! triangles, wound so that their normal points out of the body. The triangles pass through the
//! particles' centres; the body's surface is taken a particle radius r_B outside them, as the
//! particles' own contact radius says for the fixed obstacles (`contact.rs`).
//!
//! Contact of a particle p (radius r_p, of another body) with body B:
//!
//! ```text
//!   among B's triangles t with p on their outer side (n_t·(x_p − a_t) > 0), the nearest:
//!     c = closest point of t to x_p = Σ w_i x_i  (barycentric weights w_i ≥ 0 of its corners)
//!     d = |x_p − c|,  n = (x_p − c)/d
//!   δ = r_p + r_B − d  (penetration; contact when δ > 0)
//!   relative velocity u = v_p − Σ w_i v_i,  δ̇ = −n·u
//!   F = Hunt–Crossley normal force + regularised Coulomb friction of p's law (contact.rs) at (δ, u)
//!   p takes F, corner i takes −w_i F
//! ```
//!
//! One contact per (particle, body): the nearest facet, so a particle over a convex edge or a
//! corner of B is not pushed twice. The forces sum to zero (linear momentum is exchanged
//! exactly); the normal part acts along the line from c to x_p, so its torques cancel too.
//! Departure: the corners' share is by barycentric weight, the usual rule; the exact gradient of
//! ½ λ δ² with respect to the corners also turns the facet, which this leaves out. A particle
//! that has gone through a facet's plane (d measured from the inner side) is not held by that
//! facet: a penalty contact that deep (more than r_p + r_B) has already failed.
use super::contact::{Plane, PlaneContact};
use super::world::BodyInfo;
use glam::DVec3;

/// The outer triangles of one generated body, as indices into its world's particle arrays.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Facets {
    /// Corners of each triangle, counter-clockwise seen from outside.
    pub triangles: Vec<[usize; 3]>,
    /// The body's particle radius r_B (m).
    pub radius: f64,
}

/// Where a particle touches a body's facets.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FacetContact {
    /// The triangle's corners and the weights of the closest point.
    pub corners: [usize; 3],
    pub weights: [f64; 3],
    /// Unit normal from the closest point to the particle.
    pub normal: DVec3,
    /// Distance from the particle's centre to the triangle (m).
    pub distance: f64,
}

impl Facets {
    /// The outer facets of `body` (a grid of `counts` particles from `first`, x fastest), with
    /// particle radius `radius` (m). Quads that collapse (an axis of one layer) give no triangle
    /// of zero area; a body one particle thick along an axis has its two faces there both, back
    /// to back.
    pub fn of_body(body: &BodyInfo, x: &[DVec3], radius: f64) -> Facets {
        let n = body.counts;
        let id = |c: [usize; 3]| body.first + c[0] + n[0] * (c[1] + n[1] * c[2]);
        let mut triangles = Vec::new();
        for d in 0..3 {
            let (a, b) = ((d + 1) % 3, (d + 2) % 3);
            if n[a] < 2 || n[b] < 2 {
                continue;
            }
            for (layer, outward) in [(0, -1.0), (n[d] - 1, 1.0)] {
                for i in 0..n[a] - 1 {
                    for j in 0..n[b] - 1 {
                        let corner = |di: usize, dj: usize| {
                            let mut c = [0; 3];
                            c[d] = layer;
                            c[a] = i + di;
                            c[b] = j + dj;
                            id(c)
                        };
                        // (a, b, d) is right-handed: a quad ordered a then b faces +d.
                        let quad = [corner(0, 0), corner(1, 0), corner(1, 1), corner(0, 1)];
                        let q = if outward > 0.0 {
                            quad
                        } else {
                            [quad[0], quad[3], quad[2], quad[1]]
                        };
                        triangles.push([q[0], q[1], q[2]]);
                        triangles.push([q[0], q[2], q[3]]);
                    }
                }
            }
        }
        triangles.retain(|t| {
            let area2 = (x[t[1]] - x[t[0]]).cross(x[t[2]] - x[t[0]]).length();
            area2 > 0.0
        });
        Facets { triangles, radius }
    }

    /// The nearest facet with `p` on its outer side (see the module's rule) if it is within
    /// `reach` (m) of `p`, or `None`. Facets whose plane is farther than `reach` are skipped
    /// unmeasured: a triangle is no nearer than its plane.
    pub fn nearest(&self, p: DVec3, x: &[DVec3], reach: f64) -> Option<FacetContact> {
        let mut best: Option<FacetContact> = None;
        for t in &self.triangles {
            let [a, b, c] = t.map(|i| x[i]);
            let outward = (b - a).cross(c - a);
            let height = outward.dot(p - a);
            if height <= 0.0 || height * height > reach * reach * outward.length_squared() {
                continue;
            }
            let (point, weights) = closest_point_on_triangle(p, a, b, c);
            let gap = p - point;
            let distance = gap.length();
            if distance == 0.0 || distance > reach || best.is_some_and(|k| k.distance <= distance) {
                continue;
            }
            best = Some(FacetContact {
                corners: *t,
                weights,
                normal: gap / distance,
                distance,
            });
        }
        best
    }
}

/// Force on a particle at `p` with velocity `v` and radius `r` touching `contact` of a body whose
/// particles move at `vb` (elastic part, dissipative part), by `law`; `None` when apart. The
/// corners take −w_i times the sum.
pub fn facet_force(
    law: &PlaneContact,
    contact: &FacetContact,
    p: DVec3,
    v: DVec3,
    r: f64,
    facets_radius: f64,
    vb: &[DVec3],
) -> Option<(DVec3, DVec3)> {
    let surface = contact.corners
        .iter()
        .zip(contact.weights)
        .map(|(&i, w)| w * vb[i])
        .sum::<DVec3>();
    // The tangent plane of the body's surface at the closest point, r_B outside the facet.
    let plane = Plane {
        normal: contact.normal,
        offset: contact.normal.dot(p) - contact.distance + facets_radius,
    };
    law.force(&plane, p, v - surface, r)
}

/// Closest point of the triangle (a, b, c) to `p` and its barycentric weights (Ericson, Real-Time
/// Collision Detection, §5.1.5: the Voronoi regions of the corners, edges and face in turn).
pub fn closest_point_on_triangle(p: DVec3, a: DVec3, b: DVec3, c: DVec3) -> (DVec3, [f64; 3]) {
    let (ab, ac, ap) = (b - a, c - a, p - a);
    let (d1, d2) = (ab.dot(ap), ac.dot(ap));
    if d1 <= 0.0 && d2 <= 0.0 {
        return (a, [1.0, 0.0, 0.0]);
    }
    let bp = p - b;
    let (d3, d4) = (ab.dot(bp), ac.dot(bp));
    if d3 >= 0.0 && d4 <= d3 {
        return (b, [0.0, 1.0, 0.0]);
    }
    let vc = d1 * d4 - d3 * d2;
    if vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0 {
        let t = d1 / (d1 - d3);
        return (a + t * ab, [1.0 - t, t, 0.0]);
    }
    let cp = p - c;
    let (d5, d6) = (ab.dot(cp), ac.dot(cp));
    if d6 >= 0.0 && d5 <= d6 {
        return (c, [0.0, 0.0, 1.0]);
    }
    let vb = d5 * d2 - d1 * d6;
    if vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0 {
        let t = d2 / (d2 - d6);
        return (a + t * ac, [1.0 - t, 0.0, t]);
    }
    let va = d3 * d6 - d5 * d4;
    if va <= 0.0 && (d4 - d3) >= 0.0 && (d5 - d6) >= 0.0 {
        let t = (d4 - d3) / ((d4 - d3) + (d5 - d6));
        return (b + t * (c - b), [0.0, 1.0 - t, t]);
    }
    let denom = 1.0 / (va + vb + vc);
    let (v, w) = (vb * denom, vc * denom);
    (a + v * ab + w * ac, [1.0 - v - w, v, w])
}
