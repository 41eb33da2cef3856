// ---------------------------------------------------------------------------------------------
// Polygon–polygon: the separating axis test over both polygons' edge normals, then the
// reference edge (the face of largest separation) clips the incident edge (the other polygon's
// edge most opposed to it) between the reference edge's side lines: up to 2 points, each with
// its separation along the reference normal (Box2D's b2CollidePolygons; Ericson, "Real-Time
// Collision Detection" §5.3 on clipping).
// ---------------------------------------------------------------------------------------------
use super::{Contact2, Feature2};
use glam::DVec2;

/// A convex polygon in the world: vertices counter-clockwise and the outward normal of each
/// edge i (vertex i to i + 1). Two vertices make a two-sided segment (`polygon_segment.rs`).
#[derive(Clone, Copy, Debug)]
pub struct PolyView<'a> {
    pub vertices: &'a [DVec2],
    pub normals: &'a [DVec2],
}

impl<'a> PolyView<'a> {
    pub fn new(vertices: &'a [DVec2], normals: &'a [DVec2]) -> Self {
        debug_assert_eq!(vertices.len(), normals.len());
        PolyView { vertices, normals }
    }

    fn len(&self) -> usize {
        self.vertices.len()
    }

    fn vertex(&self, i: usize) -> DVec2 {
        self.vertices[i % self.len()]
    }

    /// Largest distance between two vertices along the axes (m): the polygon's size, for the
    /// reference-face tolerance.
    fn size(&self) -> f64 {
        let lo = self
            .vertices
            .iter()
            .copied()
            .fold(DVec2::INFINITY, DVec2::min);
        let hi = self
            .vertices
            .iter()
            .copied()
            .fold(DVec2::NEG_INFINITY, DVec2::max);
        (hi - lo).max_element()
    }
}

/// The edge of `a` along whose normal `b` is farthest out, and that separation (m): for each
/// edge i of a, min over the vertices v of b of nᵢ·(v − aᵢ); the largest over i. Positive:
/// the polygons are apart (by at least that much); negative: the least penetration along a's
/// normals.
pub fn max_separation(a: PolyView, b: PolyView) -> (usize, f64) {
    let mut best = (0, f64::NEG_INFINITY);
    for i in 0..a.len() {
        let n = a.normals[i];
        let v = a.vertices[i];
        let s = b
            .vertices
            .iter()
            .map(|w| n.dot(*w - v))
            .fold(f64::INFINITY, f64::min);
        if s > best.1 {
            best = (i, s);
        }
    }
    best
}

/// B's separation along A's best face must exceed A's along B's by this fraction of the smaller
/// polygon's size for B's face to be the reference: between near-equal faces (a box resting
/// on a box) the choice then stays put from step to step instead of following round-off (Box2D
/// uses 0.1 × its linear slop, 5e-4 m for metre-sized bodies).
const REFERENCE_TOLERANCE: f64 = 5e-4;

/// A clipped point: its position on the incident polygon and the features of the incident and
/// reference polygons it comes from.
#[derive(Clone, Copy, Debug)]
struct ClipPoint {
    p: DVec2,
    incident: Feature2,
    reference: Feature2,
}

/// Keeps the part of the segment `pts` with d·p ≤ offset; a point made by the cut lies on the
/// incident edge `edge` against the reference vertex `vertex`.
fn clip(
    pts: [ClipPoint; 2],
    d: DVec2,
    offset: f64,
    edge: u32,
    vertex: u32,
) -> Option<[ClipPoint; 2]> {
    let s0 = d.dot(pts[0].p) - offset;
    let s1 = d.dot(pts[1].p) - offset;
    let mut out = Vec::with_capacity(2);
    if s0 <= 0.0 {
        out.push(pts[0]);
    }
    if s1 <= 0.0 {
        out.push(pts[1]);
    }
    if s0 * s1 < 0.0 {
        let t = s0 / (s0 - s1);
        out.push(ClipPoint {
            p: pts[0].p + t * (pts[1].p - pts[0].p),
            incident: Feature2::Edge(edge),
            reference: Feature2::Vertex(vertex),
        });
    }
    (out.len() == 2).then(|| [out[0], out[1]])
}

/// The contacts between polygons A and B with ψ ≤ `margin` (body indices left 0). A separation
/// found along an edge normal is a lower bound of the distance of separated polygons (exact
/// when the nearest features are a vertex and an edge), so a pair within `margin` is never
/// missed.
pub fn polygon_polygon(a: PolyView, b: PolyView, margin: f64, out: &mut Vec<Contact2>) {
    let (edge_a, sep_a) = max_separation(a, b);
    if sep_a > margin {
        return;
    }
    let (edge_b, sep_b) = max_separation(b, a);
    if sep_b > margin {
        return;
    }
    let tolerance = REFERENCE_TOLERANCE * a.size().min(b.size());
    // (reference, incident, reference edge, is the reference A?)
    let (rf, inc, re, ref_is_a) = if sep_b > sep_a + tolerance {
        (b, a, edge_b, false)
    } else {
        (a, b, edge_a, true)
    };
    let n = rf.normals[re];
    // The incident edge: the one whose normal is most opposed to n.
    let ie = (0..inc.len())
        .min_by(|&i, &j| n.dot(inc.normals[i]).total_cmp(&n.dot(inc.normals[j])))
        .expect("a polygon has edges");
    let i1 = (ie + 1) % inc.len();
    let pts = [
        ClipPoint {
            p: inc.vertex(ie),
            incident: Feature2::Vertex(ie as u32),
            reference: Feature2::Edge(re as u32),
        },
        ClipPoint {
            p: inc.vertex(i1),
            incident: Feature2::Vertex(i1 as u32),
            reference: Feature2::Edge(re as u32),
        },
    ];
    let r1 = (re + 1) % rf.len();
    let (v1, v2) = (rf.vertex(re), rf.vertex(r1));
    let t = (v2 - v1).normalize();
    // Side lines of the reference edge: −t·p ≤ −t·v1 (beyond v1) and t·p ≤ t·v2 (beyond v2).
    let Some(pts) = clip(pts, -t, -t.dot(v1), ie as u32, re as u32) else {
        return;
    };
    let Some(pts) = clip(pts, t, t.dot(v2), ie as u32, r1 as u32) else {
        return;
    };
    for cp in pts {
        let sep = n.dot(cp.p - v1);
        if sep > margin {
            continue;
        }
        // The incident point and its projection on the reference edge.
        let on_ref = cp.p - sep * n;
        out.push(if ref_is_a {
            Contact2 {
                body_a: 0,
                body_b: 0,
                point_a: on_ref,
                point_b: cp.p,
                normal: n,
                gap: sep,
                feature_a: cp.reference,
                feature_b: cp.incident,
            }
        } else {
            Contact2 {
                body_a: 0,
                body_b: 0,
                point_a: cp.p,
                point_b: on_ref,
                normal: -n,
                gap: sep,
                feature_a: cp.incident,
                feature_b: cp.reference,
            }
        });
    }
}
