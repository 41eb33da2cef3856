// ---------------------------------------------------------------------------------------------
// Polygon–segment: the segment is a polygon of two vertices and two edges, one per side (a→b
// with normal (b − a) turned clockwise, b→a with the opposite normal), and goes through the
// polygon–polygon test. Its ends matter: the separating axes include the polygon's edge normals,
// so a polygon beyond an end is apart, and with the segment as the reference edge the incident
// points are clipped at the end lines, so no point lies past an end.
// ---------------------------------------------------------------------------------------------
use super::{polygon_polygon, segment_normals, Contact2, PolyView};
use glam::DVec2;

/// The contacts between polygon A and the segment (a, b) as B, ψ ≤ `margin`.
pub fn polygon_segment(poly: PolyView, a: DVec2, b: DVec2, margin: f64, out: &mut Vec<Contact2>) {
    let vertices = [a, b];
    let normals = segment_normals(a, b);
    polygon_polygon(poly, PolyView::new(&vertices, &normals), margin, out);
}
