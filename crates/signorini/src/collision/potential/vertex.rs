//! Vertex groups (Williams, Lu & Trinkle, eq. 34 vertex–face, the I-constraints of eq. 36
//! vertex–edge and eq. 37 vertex–vertex): for each vertex v of one polytope, the vertex–face
//! contacts with every face of the other whose polygon comes within σ of v's sweep
//! [p, p + T w] (§4.3 feasibility), with eq. 30's applicability choosing the candidates.
//!
//! ```text
//! for each vertex v of X (point p, sweep [p, q]) near Y's bounding sphere:
//!     inside Y: members = the uncovered faces within σ of v's shallowest way out
//!     else:     members = the uncovered faces whose polygon is within σ of [p, q]
//!     (minus a face coplanar with a face of X at v, facing the same way)
//!     candidates = the members with APPL ≥ −ε_θ (eq. 30), all members if none
//! ```
use super::detect::Local;
use super::placed::Side;
use super::pose::{VertexFace, VertexPoses};
use super::{Configuration, Group, GroupKey, PotentialParams};
use crate::collision::narrow::{contact, segment_closest_points};
use crate::collision::Contact;
use crate::geometry::polytope::point_segment_distance;
use crate::geometry::Feature;
use glam::DVec3;

/// The vertex–face contact of vertex `v` (world point `p`) of X with face `f` of Y; `b_side`
/// when X is B (a face–vertex contact, A's face).
fn vertex_face(y: Side, v: usize, p: DVec3, f: usize, b_side: bool) -> Contact {
    let n = y.w.normals[f];
    let gap = n.dot(p) - y.w.offsets[f];
    let on_plane = p - gap * n;
    if b_side {
        contact(
            on_plane,
            p,
            n,
            gap,
            Feature::Face(f as u32),
            Feature::Vertex(v as u32),
        )
    } else {
        contact(
            p,
            on_plane,
            -n,
            gap,
            Feature::Vertex(v as u32),
            Feature::Face(f as u32),
        )
    }
}

/// The sides of the polygon of face `f` of Y (world endpoints, in the face's vertex order: the
/// side from each vertex to the next, the last back to the first).
fn polygon_sides<'a>(y: Side<'a>, f: usize) -> impl Iterator<Item = (DVec3, DVec3)> + 'a {
    let ids = &y.p.faces[f].vertices;
    let k = ids.len();
    let at = move |i: usize| y.w.vertices[ids[i] as usize];
    (0..k).map(move |i| (at(i), at(if i + 1 == k { 0 } else { i + 1 })))
}

/// Does the projection of `p`, at signed distance `gap` from the plane of face `f` of Y, lie in
/// the face polygon (on the outer side of none of its sides)?
fn projects_into_polygon(y: Side, f: usize, p: DVec3, gap: f64) -> bool {
    let n = y.w.normals[f];
    let q = p - gap * n;
    !polygon_sides(y, f).any(|(v0, v1)| (v1 - v0).cross(q - v0).dot(n) < 0.0)
}

/// Distance (m) from `p`, at signed distance `gap` from the plane of face `f` of Y, to the face
/// polygon.
pub(super) fn polygon_distance(y: Side, f: usize, p: DVec3, gap: f64) -> f64 {
    if projects_into_polygon(y, f, p, gap) {
        return gap.abs();
    }
    polygon_sides(y, f)
        .map(|(v0, v1)| point_segment_distance(p, v0, v1))
        .fold(f64::INFINITY, f64::min)
}

/// `polygon_distance(y, f, p, gap) <= d`, the same answer, stopping at the first side within
/// `d` (the least of the sides' distances is within `d` exactly when one of them is).
fn polygon_within(y: Side, f: usize, p: DVec3, gap: f64, d: f64) -> bool {
    if projects_into_polygon(y, f, p, gap) {
        return gap.abs() <= d;
    }
    polygon_sides(y, f).any(|(v0, v1)| point_segment_distance(p, v0, v1) <= d)
}

/// Eq. 30: min over the neighbours v_k of vertex `v` of X of η·(v_k − v)/|v_k − v|.
fn vertex_applicability(x: Side, v: usize, eta: DVec3) -> f64 {
    let p = x.w.vertices[v];
    x.p.vertex_edges[v]
        .iter()
        .map(|&e| {
            let [v0, v1] = x.p.edges[e as usize].vertices;
            let other = if v0 as usize == v { v1 } else { v0 };
            let d = x.w.vertices[other as usize] - p;
            eta.dot(d) / d.length()
        })
        .fold(f64::INFINITY, f64::min)
}

/// Does the segment [p, q] come within `d` (m) of the polygon of face `f` of Y, with `p`'s
/// kept values against the face `at_p` (its gap, and its polygon distance once computed)? (The
/// distance is the least of the ends' distances, 0 where the segment passes through the face,
/// and the distances to the polygon's sides; the test stops at the first within `d`.)
fn segment_polygon_within(
    y: Side,
    f: usize,
    (p, at_p): (DVec3, &mut VertexFace),
    q: DVec3,
    d: f64,
) -> bool {
    let n = y.w.normals[f];
    let (gp, gq) = (at_p.gap, n.dot(q) - y.w.offsets[f]);
    let distance_p = *at_p
        .polygon_distance
        .get_or_insert_with(|| polygon_distance(y, f, p, gp));
    if distance_p <= d || polygon_within(y, f, q, gq, d) {
        return true;
    }
    if p == q {
        return false;
    }
    // Through the face?
    if (gp <= 0.0) != (gq <= 0.0) {
        let x = p + (gp / (gp - gq)) * (q - p);
        if polygon_distance(y, f, x, 0.0) == 0.0 && 0.0 <= d {
            return true;
        }
    }
    polygon_sides(y, f).any(|(v0, v1)| {
        let (s, t) = segment_closest_points(p, q, v0, v1);
        s.distance(t) <= d
    })
}

/// The vertex groups of X's vertices against Y's faces (`b_side`: X is B). Vertex p, moving at
/// w relative to Y, sweeps [p, p + T w]; the faces whose polygon comes within σ of the sweep are
/// its members. What depends on the placements alone comes from the pair's kept values `kept`
/// (`pose`).
pub(super) fn vertex_groups(
    x: Side,
    y: Side,
    b_side: bool,
    params: &PotentialParams,
    kept: &mut VertexPoses,
    out: &mut Local,
) {
    let d = params.distance;
    let eps = params.applicability;
    let touching = params.merge_tolerance * (x.p.radius + y.p.radius);
    for (v, &p) in x.w.vertices.iter().enumerate() {
        let q = p + params.horizon * (x.w.motion.at(p) - y.w.motion.at(p));
        if point_segment_distance(y.w.centroid, p, q) > y.p.radius + d {
            continue;
        }
        let first = out.contacts.len();
        // A vertex already inside Y (behind every face plane) must get out: its members are the
        // boundary faces within σ of its shallowest way out, wherever the sweep goes.
        // (Both maxima in one pass over the faces, in face order.)
        let row = kept.row(y, v, p);
        let (mut shallowest, mut exit) = (f64::NEG_INFINITY, f64::NEG_INFINITY);
        for (f, at) in row.iter().enumerate() {
            shallowest = shallowest.max(at.gap);
            if !y.w.covered[f] {
                exit = exit.max(at.gap);
            }
        }
        let inside = shallowest < 0.0;
        for (f, at) in row.iter_mut().enumerate() {
            if y.w.covered[f] {
                continue;
            }
            let n = y.w.normals[f];
            let gap = at.gap;
            // A face of Y in whose plane v lies together with a face of X at v, both facing the
            // same way (coplanar side faces of stacked equal boxes), separates nothing: X lies on
            // Y's side of that plane, and v sliding along it (ψ = 0 all the way) lets X sink
            // into Y with no vertex entering the other body.
            if gap.abs() <= touching
                && *at.coplanar.get_or_insert_with(|| {
                    x.p.vertex_faces[v]
                        .iter()
                        .any(|&g| x.w.normals[g as usize].distance(n) <= params.merge_tolerance)
                })
            {
                continue;
            }
            let gap_q = n.dot(q) - y.w.offsets[f];
            if inside {
                if gap < exit - d {
                    continue;
                }
            } else if gap.min(gap_q) > d
                || gap.max(gap_q) < -d
                || !segment_polygon_within(y, f, (p, at), q, d)
            {
                continue;
            }
            let appl = *at
                .applicability
                .get_or_insert_with(|| vertex_applicability(x, v, n));
            out.push(vertex_face(y, v, p, f, b_side), appl);
        }
        if first == out.contacts.len() {
            continue;
        }
        let mut members = out.list();
        members.extend(first..out.contacts.len());
        out.note_vertex_group(&members);
        let mut candidates = out.list();
        candidates.extend(
            members
                .iter()
                .copied()
                .filter(|&m| out.applicability[m] >= -eps),
        );
        if candidates.is_empty() {
            candidates.extend_from_slice(&members);
        }
        let configuration = match members.len() {
            1 => Configuration::VertexFace,
            2 => Configuration::VertexEdge,
            _ => Configuration::VertexVertex,
        };
        out.groups.push(Group {
            configuration,
            key: if b_side {
                GroupKey::VertexOfB(v as u32)
            } else {
                GroupKey::VertexOfA(v as u32)
            },
            members,
            candidates,
            from_edges: false,
        });
    }
}
