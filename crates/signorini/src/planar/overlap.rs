//! Area of overlap between placed shapes: the PEG paper's accuracy metric in 2D (§6.1, "at the
//! end of each time step, the area of overlap among all polygons was computed"). Convex polygons
//! are clipped against each other (Sutherland–Hodgman: the intersection of two convex polygons
//! is the first clipped by each edge line of the second) and the clipped polygon's area is the
//! shoelace formula; a polygon against a line is the polygon clipped by the line's half-plane.
//! Disks and segments are not measured (they are absent from the paper's scenes).
use super::body::{PlanarModel, PlanarState};
use super::collision::Placed;
use glam::DVec2;

/// The polygon `poly` clipped to the half-plane {p : n·p ≤ offset}.
fn clip(poly: &[DVec2], n: DVec2, offset: f64) -> Vec<DVec2> {
    let mut out = Vec::with_capacity(poly.len() + 1);
    for i in 0..poly.len() {
        let (p, q) = (poly[i], poly[(i + 1) % poly.len()]);
        let (dp, dq) = (n.dot(p) - offset, n.dot(q) - offset);
        if dp <= 0.0 {
            out.push(p);
        }
        if (dp < 0.0 && dq > 0.0) || (dp > 0.0 && dq < 0.0) {
            out.push(p + (q - p) * (dp / (dp - dq)));
        }
    }
    out
}

/// Shoelace area of a polygon (m², ≥ 0 for counter-clockwise vertices).
pub fn area(poly: &[DVec2]) -> f64 {
    let n = poly.len();
    if n < 3 {
        return 0.0;
    }
    0.5 * (0..n)
        .map(|i| {
            let (p, q) = (poly[i], poly[(i + 1) % n]);
            p.x * q.y - p.y * q.x
        })
        .sum::<f64>()
}

/// Area of the intersection of two convex counter-clockwise polygons (m²).
pub fn convex_overlap(a: &[DVec2], b: &[DVec2]) -> f64 {
    let mut poly = a.to_vec();
    for i in 0..b.len() {
        if poly.is_empty() {
            return 0.0;
        }
        let (p, q) = (b[i], b[(i + 1) % b.len()]);
        // Outward normal of the counter-clockwise edge p → q: (q − p) turned clockwise.
        let n = DVec2::new(q.y - p.y, p.x - q.x);
        poly = clip(&poly, n, n.dot(p));
    }
    area(&poly).max(0.0)
}

/// Area of overlap (m²) of two placed shapes: polygon–polygon and polygon–line; 0 for others.
pub fn placed_overlap(a: &Placed, b: &Placed) -> f64 {
    match (a, b) {
        (Placed::Polygon { vertices: va, .. }, Placed::Polygon { vertices: vb, .. }) => {
            convex_overlap(va, vb)
        }
        (Placed::Polygon { vertices, .. }, Placed::Line { normal, offset })
        | (Placed::Line { normal, offset }, Placed::Polygon { vertices, .. }) => {
            area(&clip(vertices, *normal, *offset)).max(0.0)
        }
        _ => 0.0,
    }
}

/// Total area of overlap of the state (m²): the sum over every pair with a dynamic body whose
/// bounding boxes meet (pairs of two fixed bodies are skipped, as the paper skips the box's
/// parts).
pub fn total_overlap(model: &PlanarModel, state: &PlanarState) -> f64 {
    let placed: Vec<Placed> = model
        .bodies
        .iter()
        .zip(&state.bodies)
        .map(|(b, s)| Placed::new(&b.shape, &s.pose()))
        .collect();
    let boxes: Vec<(DVec2, DVec2)> = placed.iter().map(|p| p.aabb()).collect();
    let mut total = 0.0;
    for i in 0..placed.len() {
        for j in i + 1..placed.len() {
            if model.bodies[i].fixed && model.bodies[j].fixed {
                continue;
            }
            let ((lo_i, hi_i), (lo_j, hi_j)) = (boxes[i], boxes[j]);
            if lo_i.x > hi_j.x || lo_j.x > hi_i.x || lo_i.y > hi_j.y || lo_j.y > hi_i.y {
                continue;
            }
            total += placed_overlap(&placed[i], &placed[j]);
        }
    }
    total
}
