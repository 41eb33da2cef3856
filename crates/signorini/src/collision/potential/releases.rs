//! Releases of an edge group (module doc of `collision::potential`, replacing the X-constraints
//! of eqs 36 and 38): for each endpoint of either edge within d of the crossing, the pseudo-contact
//! ρ = the signed distance of that endpoint beyond the plane through the other edge's line that
//! contains the normal n, positive once the crossing has left the segment through that endpoint.
//! A release has a point on A, a point on B and a direction (a Jacobian row like any contact) but
//! carries no force (applicability −∞). [`release_gap`] re-evaluates one at other poses.
use super::edge::{EdgeCrossing, WorldEdge};
use super::placed::Side;
use crate::collision::narrow::contact;
use crate::collision::Contact;
use crate::dynamics::Model;
use crate::geometry::{Feature, Polytope, Pose};
use glam::DVec3;

/// The releases of the crossing `c` of A's edge `ea` and B's edge `eb`, appended to `into`:
/// first A's endpoints against B's edge line, then B's against A's. Returns whether A's, and
/// whether B's, endpoints got releases.
pub(super) fn releases(
    (a, b): (Side, Side),
    (ea, eb): (&WorldEdge, &WorldEdge),
    c: &EdgeCrossing,
    into: &mut Vec<Contact>,
) -> (bool, bool) {
    let (n, pa, pb, da, db) = (c.n, c.pa, c.pb, ea.dir, eb.dir);
    let [near_a0, near_a1] = c.near_a;
    let [near_b0, near_b1] = c.near_b;
    let edge_a = &a.p.edges[ea.index];
    let edge_b = &b.p.edges[eb.index];
    let mut released_a = false;
    let mut released_b = false;
    // Releases: ρ, the signed distance of an endpoint beyond the plane through the other
    // edge's line that contains n, positive once the crossing has left the segment
    // through that endpoint.
    let beyond_b = n.cross(db).normalize();
    for (near, v, u) in [
        (near_a0, edge_a.vertices[0], da),
        (near_a1, edge_a.vertices[1], -da),
    ] {
        if near {
            let pv = a.w.vertices[v as usize];
            let m = if beyond_b.dot(u) >= 0.0 {
                beyond_b
            } else {
                -beyond_b
            };
            into.push(contact(
                pv,
                pb,
                -m,
                m.dot(pv - pb),
                Feature::Vertex(v),
                Feature::Edge(eb.index as u32),
            ));
            released_a = true;
        }
    }
    let beyond_a = n.cross(da).normalize();
    for (near, v, u) in [
        (near_b0, edge_b.vertices[0], db),
        (near_b1, edge_b.vertices[1], -db),
    ] {
        if near {
            let pw = b.w.vertices[v as usize];
            let m = if beyond_a.dot(u) >= 0.0 {
                beyond_a
            } else {
                -beyond_a
            };
            into.push(contact(
                pa,
                pw,
                m,
                m.dot(pw - pa),
                Feature::Edge(ea.index as u32),
                Feature::Vertex(v),
            ));
            released_b = true;
        }
    }
    (released_a, released_b)
}

/// Gap (m) and normal of the release member `c` of the edge group of A's edge `edge_a` and B's
/// edge `edge_b`, at the body `poses`, by the formula of detection: with n ∝ e_a × e_b, a
/// release of A's endpoint v against B's edge is ρ = m·(v − b₀), m = n × e_b normalized and
/// turned towards A's edge from v, normal −m; a release of B's endpoint w against A's edge is
/// ρ = m·(w − a₀), m = n × e_a turned towards B's edge from w, normal m. None for other
/// contacts, parallel edges or indices the pieces do not have.
pub fn release_gap(
    model: &Model,
    poses: &[Pose],
    c: &Contact,
    edge_a: u32,
    edge_b: u32,
) -> Option<(f64, DVec3)> {
    use crate::geometry::Shape;
    let piece = |b: usize, p: usize| {
        let piece = model.bodies[b].pieces.get(p)?;
        match &piece.shape {
            Shape::Polytope(poly) => Some((poly.as_ref(), poses[b].mul(&piece.pose))),
            _ => None,
        }
    };
    let (pa, xa) = piece(c.body_a, c.piece_a)?;
    let (pb, xb) = piece(c.body_b, c.piece_b)?;
    let ends = |poly: &Polytope, pose: &Pose, e: u32| {
        let edge = poly.edges.get(e as usize)?;
        Some((
            edge.vertices,
            edge.vertices
                .map(|v| pose.transform_point(poly.vertices[v as usize])),
        ))
    };
    let (va, [a0, a1]) = ends(pa, &xa, edge_a)?;
    let (vb, [b0, b1]) = ends(pb, &xb, edge_b)?;
    let n = (a1 - a0).cross(b1 - b0);
    // m ⊥ n and ⊥ `along`, turned towards `inward`.
    let beyond = |along: DVec3, inward: DVec3| {
        let m = n.cross(along).try_normalize()?;
        Some(if m.dot(inward) >= 0.0 { m } else { -m })
    };
    match (c.feature_a, c.feature_b) {
        (Feature::Vertex(v), Feature::Edge(e)) if e == edge_b => {
            let (pv, other) = match v {
                _ if v == va[0] => (a0, a1),
                _ if v == va[1] => (a1, a0),
                _ => return None,
            };
            let m = beyond(b1 - b0, other - pv)?;
            Some((m.dot(pv - b0), -m))
        }
        (Feature::Edge(e), Feature::Vertex(w)) if e == edge_a => {
            let (pw, other) = match w {
                _ if w == vb[0] => (b0, b1),
                _ if w == vb[1] => (b1, b0),
                _ => return None,
            };
            let m = beyond(a1 - a0, other - pw)?;
            Some((m.dot(pw - a0), m))
        }
        _ => None,
    }
}
