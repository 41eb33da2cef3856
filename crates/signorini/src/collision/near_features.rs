//! Near features of a convex polytope pair: every vertex of one polytope within reach of the
//! other, every edge pair whose closest points are within reach, and every point where an edge of
//! one passes over the boundary of a face of the other within reach, each a contact, added to the
//! contacts of the axis that realizes the pair's gap (`narrow.rs`: the clipped faces or the one
//! exact point).
//!
//! Why: a separated pair whose gap is realized by two edges, or by a vertex and an edge, gets one
//! contact from the narrow phase. A constraint model that keeps that one point apart lets every
//! other point of the pair through: a box turning at 15 rad/s as it lands on another brought a
//! corner 4.3 mm into it in one step of 2 ms on `bin_64`, its pair's only contact before the step
//! being an edge–edge one 0.5 mm apart. With the near features in the problem, each point that can
//! reach the other body within the step has its own row (Nguyen & Trinkle's anticipating
//! activation needs the point that will touch, not the one that touches first).
//!
//! The reach is the pair's own: twice what it can close over a step at its present velocities,
//! at most the activation distance (`narrow.rs`, `near_reach`). A pile at rest gets none, so its
//! contacts are exactly the axis's (points within the 1 mm activation distance but out of reach
//! kept anitescu-convex's resting 64-box pile creeping at 7e-5 J with 60 Newton steps a step,
//! against 1e-16 J and 13 without them).
//!
//! # Rules
//! - **Vertex–polytope.** Vertex v of Y against polytope X: skipped when some face plane of X has v
//!   farther than the reach outside (the distance is at least that), or when v is
//!   inside X (penetration is the separating axis's to report). Otherwise the exact closest point
//!   c of X: the projection on a face whose polygon holds it, else the nearest point of an edge
//!   (min over the boundary, which is the union of the faces). Normal (v − c)/|v − c|, the face's
//!   normal when c is inside a face; gap |v − c|.
//! - **Edge–edge.** Edges e_a, e_b whose closest points are interior to both (so the normal
//!   n = (p_b − p_a)/|p_b − p_a| is perpendicular to both), with n in the normal cone of e_a (a
//!   non-negative combination of its two faces' normals) and −n in that of e_b: the pair is then
//!   a local minimum of the distance between the polytopes. Parallel edges are left to the
//!   vertices at their ends.
//! - **Edge over a face's boundary.** Where edge e of Y crosses the side plane of face f of X at
//!   boundary edge g (the plane through g perpendicular to f), at height s ∈ [0, reach] above f's
//!   plane and over g itself: a contact there with f's normal and gap s, features (g, e) (the
//!   points face clipping gives two touching faces). An edge within 1e-3 rad of the side plane
//!   crosses it nowhere in particular and is left to its vertices (two stacked boxes' coincident
//!   edges gave rows at round-off's crossings: the 10-box stack's 240 rows grew). An edge lying across a face and turning
//!   down onto it meets the face's boundary edge at this point, whose edge–edge pair with g need
//!   not be a closest pair before the step: on `bin_64` (spawn seed 3) an edge of a box turning
//!   at 14 rad/s lay across the top face of the box below, touching one of its edges, 3.3 mm
//!   above another with the normal of that pair 12° outside its cone, and went 1.8 mm in.
//! - **Merging.** A near feature is not added when a contact of the pair already carries it: one
//!   with the same two features (a clipped corner is its vertex's near feature, a clipped crossing
//!   its two edges'), one on the same vertex of the same body, or one whose two points are both
//!   within `MERGE_REL` × the pair's size of its own; an edge–edge pair whose closest point is that close to an end of
//!   either edge is left to the vertex there. Rows for nearly the same point with slightly
//!   different normals make the constraint models' problems nearly degenerate: with a merge
//!   distance of 1e-6 × size, anitescu-convex's Newton solve stalled at a KKT residual of 1.7e-5
//!   on an island of the 64-box bin (rows whose directions are nearly dependent converge at
//!   1/(1 + ρσ) per multiplier update, σ their small eigenvalue: `solvers/convex.rs`).
use super::narrow::{contact, segment_closest_points};
use super::Contact;
use crate::geometry::polytope::point_segment_distance;
use crate::geometry::{Edge, Feature, PlacedPolytope, Polytope};
use glam::DVec3;

/// Two contacts whose points are both closer than this (times the larger polytope's radius) are
/// one contact (0.15 mm on the 0.15 m boxes of the bins).
pub const MERGE_REL: f64 = 1e-3;

/// Add to `out` the near features of A and B (contacts A → B) within `reach` (m) that no contact
/// in `out[start..]` already carries; an edge pair's normal may lie up to `turn` (rad) outside
/// the edges' normal cones (the angle B may turn relative to A before the next detection: PEG's
/// relaxed applicability, ε_θ). `edges`: reused buffers for the lists of edges within reach.
pub fn add_near_features(
    (p, a): (&Polytope, &PlacedPolytope),
    (q, b): (&Polytope, &PlacedPolytope),
    (reach, turn): (f64, f64),
    (start, edges): (usize, &mut [Vec<usize>; 2]),
    out: &mut Vec<Contact>,
) {
    let mut near = Near {
        reach,
        cos_turn: turn.min(std::f64::consts::FRAC_PI_2).cos(),
        merge: MERGE_REL * p.radius.max(q.radius),
        scale: p.radius.max(q.radius),
        start,
        out,
    };
    near.vertices((p, a), b, false);
    near.vertices((q, b), a, true);
    let [edges_a, edges_b] = edges;
    edges_within(a, &p.edges, (b.centroid, q.radius + reach), edges_a);
    edges_within(b, &q.edges, (a.centroid, p.radius + reach), edges_b);
    near.edge_pairs((p, a, edges_a), (q, b, edges_b));
    near.crossings((p, a), (q, b, edges_b), false);
    near.crossings((q, b), (p, a, edges_a), true);
}

/// One pair's search: its reach, the tolerances, and the contacts found so far.
struct Near<'o> {
    reach: f64,
    cos_turn: f64,
    merge: f64,
    scale: f64,
    start: usize,
    out: &'o mut Vec<Contact>,
}

impl Near<'_> {
    /// Push `c` (A → B) unless a contact of the pair carries it (module doc, merging). `own`: the
    /// side (A: true) whose vertex `c` is for, if it is a vertex's.
    fn add(&mut self, c: Contact, own: Option<bool>) {
        let merge = self.merge;
        let carried = self.out[self.start..].iter().any(|o| {
            (o.feature_a == c.feature_a && o.feature_b == c.feature_b)
                || (own == Some(true) && o.feature_a == c.feature_a)
                || (own == Some(false) && o.feature_b == c.feature_b)
                || (o.point_a.distance(c.point_a) <= merge
                    && o.point_b.distance(c.point_b) <= merge)
        });
        if !carried {
            self.out.push(c);
        }
    }

    /// Vertices of Y within reach of X, each with its closest point on X (X is A unless
    /// `flipped`).
    fn vertices(
        &mut self,
        (px, x): (&Polytope, &PlacedPolytope),
        y: &PlacedPolytope,
        flipped: bool,
    ) {
        for (v, &point) in y.vertices.iter().enumerate() {
            if point.distance(x.centroid) > px.radius + self.reach {
                continue;
            }
            if let Some((c, n, gap, feature)) = closest_on_polytope(px, x, point, self.reach) {
                let c = contact(c, point, n, gap, feature, Feature::Vertex(v as u32));
                match flipped {
                    false => self.add(c, Some(false)),
                    true => self.add(c.flipped(), Some(true)),
                }
            }
        }
    }

    /// Edge pairs (among `edges_a` × `edges_b`) whose closest points are interior, within reach,
    /// with the normal within the turn of both normal cones.
    fn edge_pairs(
        &mut self,
        (p, a, edges_a): (&Polytope, &PlacedPolytope, &[usize]),
        (q, b, edges_b): (&Polytope, &PlacedPolytope, &[usize]),
    ) {
        let merge = self.merge;
        let interior =
            |p: DVec3, e0: DVec3, e1: DVec3| p.distance(e0) > merge && p.distance(e1) > merge;
        for &ea in edges_a {
            let edge_a = &p.edges[ea];
            let [a0, a1] = edge_a.vertices.map(|v| a.vertices[v as usize]);
            for &eb in edges_b {
                let edge_b = &q.edges[eb];
                let [b0, b1] = edge_b.vertices.map(|v| b.vertices[v as usize]);
                let (da, db) = (a1 - a0, b1 - b0);
                // Parallel (or nearly): the closest points are not unique.
                let cross = da.cross(db).length_squared();
                if cross <= 1e-12 * da.length_squared() * db.length_squared() {
                    continue;
                }
                let (pa, pb) = segment_closest_points(a0, a1, b0, b1);
                let gap = pa.distance(pb);
                if gap > self.reach || gap <= 1e-12 * self.scale {
                    continue;
                }
                if !interior(pa, a0, a1) || !interior(pb, b0, b1) {
                    continue;
                }
                let n = (pb - pa) / gap;
                let [fa0, fa1] = edge_a.faces.map(|f| a.normals[f as usize]);
                let [fb0, fb1] = edge_b.faces.map(|f| b.normals[f as usize]);
                if near_cone(n, fa0, fa1, self.cos_turn) && near_cone(-n, fb0, fb1, self.cos_turn)
                {
                    let (ga, gb) = (Feature::Edge(ea as u32), Feature::Edge(eb as u32));
                    self.add(contact(pa, pb, n, gap, ga, gb), None);
                }
            }
        }
    }

    /// Where the edges `edges_y` of Y pass over the boundary of a face of X within reach (X is A
    /// unless `flipped`).
    fn crossings(
        &mut self,
        (px, x): (&Polytope, &PlacedPolytope),
        (py, y, edges_y): (&Polytope, &PlacedPolytope, &[usize]),
        flipped: bool,
    ) {
        for (f, face) in px.faces.iter().enumerate() {
            let (n, offset) = (x.normals[f], x.offsets[f]);
            let height = |p: DVec3| n.dot(p) - offset;
            // Y wholly beyond reach above the face's plane, or wholly below it: no point of Y
            // is within reach above the face.
            let (low, high) = y.vertices.iter().map(|&v| height(v)).fold(
                (f64::INFINITY, f64::NEG_INFINITY),
                |(low, high), h| (low.min(h), high.max(h)),
            );
            if low > self.reach || high < 0.0 {
                continue;
            }
            let k = face.vertices.len();
            for &e in edges_y {
                let [y0, y1] = py.edges[e].vertices.map(|v| y.vertices[v as usize]);
                let (h0, h1) = (height(y0), height(y1));
                if h0.min(h1) > self.reach || h0.max(h1) < 0.0 {
                    continue;
                }
                for i in 0..k {
                    let v0 = x.vertices[face.vertices[i] as usize];
                    let v1 = x.vertices[face.vertices[(i + 1) % k] as usize];
                    let side = (v1 - v0).cross(n);
                    let (d0, d1) = (side.dot(y0 - v0), side.dot(y1 - v0));
                    // A crossing, and a clean one: an edge along the side plane (two stacked
                    // boxes' coincident edges) crosses it wherever round-off says; its ends are
                    // the vertices' to carry.
                    // (The sign test first: it alone settles most, with no square root.)
                    if (d0 <= 0.0) == (d1 <= 0.0) {
                        continue;
                    }
                    let clean = (d0 - d1).abs() >= 1e-3 * side.length() * y0.distance(y1);
                    if !clean {
                        continue;
                    }
                    let point = y0 + d0 / (d0 - d1) * (y1 - y0);
                    let s = height(point);
                    let u = (point - v0).dot(v1 - v0) / (v1 - v0).length_squared();
                    if !(0.0..=self.reach).contains(&s) || !(0.0..=1.0).contains(&u) {
                        continue;
                    }
                    let g = Feature::Edge(face.edges[i]);
                    let c = contact(point - s * n, point, n, s, g, Feature::Edge(e as u32));
                    self.add(if flipped { c.flipped() } else { c }, None);
                }
            }
        }
    }
}

/// The edges of placed polytope `x` that come within `radius` (m) of `centre`, into `out`.
fn edges_within(
    x: &PlacedPolytope,
    edges: &[Edge],
    (centre, radius): (DVec3, f64),
    out: &mut Vec<usize>,
) {
    let reached = |e: &Edge| {
        let [e0, e1] = e.vertices.map(|v| x.vertices[v as usize]);
        point_segment_distance(centre, e0, e1) <= radius
    };
    out.clear();
    out.extend((0..edges.len()).filter(|&e| reached(&edges[e])));
}

/// Whether unit `n`, perpendicular to an edge whose faces have the unit normals `n0`, `n1`, is
/// within the angle whose cosine is `cos_turn` of the edge's normal cone (their non-negative
/// combinations, an arc of the great circle perpendicular to the edge).
fn near_cone(n: DVec3, n0: DVec3, n1: DVec3, cos_turn: f64) -> bool {
    if n.dot(n0).max(n.dot(n1)) >= cos_turn {
        return true;
    }
    let c = n0.dot(n1);
    let det = 1.0 - c * c;
    if det <= 1e-12 {
        return n.dot(n0) >= 1.0 - 1e-9;
    }
    let (r0, r1) = (n.dot(n0), n.dot(n1));
    let alpha = (r0 - c * r1) / det;
    let beta = (r1 - c * r0) / det;
    alpha >= -1e-9 && beta >= -1e-9
}

/// The closest point of polytope X (placed `x`) to the world point `v` outside it, when within
/// `reach` (m): (point, unit normal X → v, distance, feature of X).
fn closest_on_polytope(
    p: &Polytope,
    x: &PlacedPolytope,
    v: DVec3,
    reach: f64,
) -> Option<(DVec3, DVec3, f64, Feature)> {
    let heights = || x.normals.iter().zip(&x.offsets).map(|(n, o)| n.dot(v) - o);
    let highest = heights().fold(f64::NEG_INFINITY, f64::max);
    if highest > reach || highest < 0.0 {
        return None;
    }
    let mut best: Option<(DVec3, DVec3, f64, Feature)> = None;
    for (f, s) in heights().enumerate() {
        if s < 0.0 {
            continue;
        }
        let n = x.normals[f];
        let c = v - s * n;
        let face = &p.faces[f];
        let k = face.vertices.len();
        let inside = (0..k).all(|i| {
            let v0 = x.vertices[face.vertices[i] as usize];
            let v1 = x.vertices[face.vertices[(i + 1) % k] as usize];
            (v1 - v0).cross(n).dot(c - v0) <= 0.0
        });
        if inside && best.is_none_or(|b| s < b.2) {
            best = Some((c, n, s, Feature::Face(f as u32)));
        }
    }
    if best.is_none() {
        for (e, edge) in p.edges.iter().enumerate() {
            let [e0, e1] = edge.vertices.map(|i| x.vertices[i as usize]);
            let d = e1 - e0;
            let t = ((v - e0).dot(d) / d.length_squared()).clamp(0.0, 1.0);
            let c = e0 + t * d;
            let dist = v.distance(c);
            if best.is_none_or(|b| dist < b.2) {
                let feature = match t {
                    0.0 => Feature::Vertex(edge.vertices[0]),
                    1.0 => Feature::Vertex(edge.vertices[1]),
                    _ => Feature::Edge(e as u32),
                };
                best = Some((c, DVec3::ZERO, dist, feature));
            }
        }
        if let Some(b) = &mut best {
            if b.2 <= 1e-12 * p.radius {
                return None;
            }
            b.1 = (v - b.0) / b.2;
        }
    }
    best.filter(|b| b.2 <= reach)
}
