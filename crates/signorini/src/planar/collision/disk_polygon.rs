// ---------------------------------------------------------------------------------------------
// Disk–polygon: with the centre c outside the polygon, the closest point q of its boundary (the
// nearest of every edge's closest point; an edge end is the vertex feature), ψ = |c − q| − r;
// with c inside, the face of largest separation s = n·(c − v) (the least way out), ψ = s − r,
// the normal that face's. Exact for convex polygons; O(n) per pair.
// ---------------------------------------------------------------------------------------------
use super::{Contact2, Feature2, PolyView};
use glam::DVec2;

/// The contact between disk A (centre `c`, radius `r`) and polygon B.
pub fn disk_polygon(c: DVec2, r: f64, poly: PolyView, margin: f64) -> Option<Contact2> {
    let n = poly.vertices.len();
    // Face of largest separation.
    let (face, sep) = (0..n)
        .map(|i| (i, poly.normals[i].dot(c - poly.vertices[i])))
        .fold(
            (0, f64::NEG_INFINITY),
            |best, x| if x.1 > best.1 { x } else { best },
        );
    if sep - r > margin {
        return None;
    }
    // (closest point of the boundary, outward normal there, polygon feature, distance)
    let (q, m, feature, dist) = if sep <= 0.0 {
        let m = poly.normals[face];
        (c - sep * m, m, Feature2::Edge(face as u32), sep)
    } else {
        let mut best: Option<(DVec2, Feature2, f64)> = None;
        for i in 0..n {
            let (a, b) = (poly.vertices[i], poly.vertices[(i + 1) % n]);
            let e = b - a;
            let t = ((c - a).dot(e) / e.length_squared()).clamp(0.0, 1.0);
            let (q, f) = if t <= 0.0 {
                (a, Feature2::Vertex(i as u32))
            } else if t >= 1.0 {
                (b, Feature2::Vertex(((i + 1) % n) as u32))
            } else {
                (a + t * e, Feature2::Edge(i as u32))
            };
            let d = (c - q).length();
            if best.is_none_or(|(_, _, bd)| d < bd) {
                best = Some((q, f, d));
            }
        }
        let (q, f, d) = best.expect("a polygon has edges");
        // Outside, so d ≥ sep > 0.
        (q, (c - q) / d, f, d)
    };
    let gap = dist - r;
    (gap <= margin).then(|| Contact2 {
        body_a: 0,
        body_b: 0,
        point_a: c - r * m,
        point_b: q,
        normal: -m,
        gap,
        feature_a: Feature2::Surface,
        feature_b: feature,
    })
}
