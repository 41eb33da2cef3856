// ---------------------------------------------------------------------------------------------
// Polygon–line (a fixed half-plane {p : n·p ≤ d}): every vertex whose signed distance n·v − d
// is at most the margin is a contact point, with the half-plane's normal (from the line towards
// the polygon: the normal from A to B is −n when the polygon is A).
// ---------------------------------------------------------------------------------------------
use super::{Contact2, Feature2};
use glam::DVec2;

/// The contacts between polygon A (world vertices) and the half-plane (n, d) as B.
pub fn polygon_line(vertices: &[DVec2], n: DVec2, d: f64, margin: f64, out: &mut Vec<Contact2>) {
    for (i, v) in vertices.iter().enumerate() {
        let gap = n.dot(*v) - d;
        if gap <= margin {
            out.push(Contact2 {
                body_a: 0,
                body_b: 0,
                point_a: *v,
                point_b: *v - gap * n,
                normal: -n,
                gap,
                feature_a: Feature2::Vertex(i as u32),
                feature_b: Feature2::Surface,
            });
        }
    }
}
