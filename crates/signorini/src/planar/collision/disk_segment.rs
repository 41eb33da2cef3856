// ---------------------------------------------------------------------------------------------
// Disk–segment: the closest point q of the segment to the centre c (the parameter of the
// projection clamped to [0, 1]), ψ = |c − q| − r along (c − q)/|c − q|. The ends matter: a disk
// past an end touches only that end point (feature Vertex(0) or Vertex(1)), with the normal
// from the end to the centre, so it rolls over the end and falls; farther away it has no
// contact. A centre on the segment itself takes the normal of side 0.
// ---------------------------------------------------------------------------------------------
use super::{segment_normals, Contact2, Feature2};
use glam::DVec2;

/// The contact between disk A (centre `c`, radius `r`) and the segment (a, b) as B.
pub fn disk_segment(c: DVec2, r: f64, a: DVec2, b: DVec2, margin: f64) -> Option<Contact2> {
    let e = b - a;
    let t = ((c - a).dot(e) / e.length_squared()).clamp(0.0, 1.0);
    let (q, feature) = if t <= 0.0 {
        (a, Feature2::Vertex(0))
    } else if t >= 1.0 {
        (b, Feature2::Vertex(1))
    } else {
        let side = if segment_normals(a, b)[0].dot(c - a) >= 0.0 {
            0
        } else {
            1
        };
        (a + t * e, Feature2::Edge(side))
    };
    let d = c - q;
    let dist = d.length();
    let gap = dist - r;
    if gap > margin {
        return None;
    }
    // From the segment towards the disk.
    let m = if dist > 0.0 {
        d / dist
    } else {
        segment_normals(a, b)[0]
    };
    Some(Contact2 {
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
