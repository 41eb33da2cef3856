//! ṅ, the rate of the contact normal, by the geometry that carries it (module documentation,
//! "Normal acceleration"): a half-space or a face parallel to the contact plane (ṅ = ω × n), an
//! edge–edge pair (ṅ = s (I − n nᵀ) u̇ / |u|, u = e_a × e_b), a sphere against a sphere, vertex or
//! edge (ṅ = ±(I − n nᵀ) ẇ / |w|, w = (I − e eᵀ)(c − p₀)); `None` (ṅ ≈ 0) otherwise.
use super::kinematics::{angular_velocity, point_velocity};
use crate::collision::Contact;
use crate::dynamics::piece_pose;
use crate::dynamics::{Model, State};
use crate::geometry::{Feature, Polytope, Shape};
use glam::DVec3;

/// A face normal matches the contact normal when their cosine is at least 1 − this (an angle of
/// about 1.4 mrad): the narrow phase copies face normals into contacts, so matches are exact up to
/// round-off, and genuine edge–edge normals are never this close to an adjacent face.
const FACE_MATCH_COS_TOL: f64 = 1e-6;

/// The faces of `p` next to `feature` (the face itself, an edge's two faces, a vertex's faces);
/// `exact` keeps only a `Face` feature.
fn adjacent_faces(p: &Polytope, feature: Feature, exact: bool) -> Vec<usize> {
    match (feature, exact) {
        (Feature::Face(f), _) => vec![f as usize],
        (Feature::Edge(e), false) => p.edges[e as usize]
            .faces
            .iter()
            .map(|&f| f as usize)
            .collect(),
        (Feature::Vertex(v), false) => p.vertex_faces[v as usize]
            .iter()
            .map(|&f| f as usize)
            .collect(),
        _ => Vec::new(),
    }
}

/// One side of a contact: (body, piece, feature, sign), sign +1 for A and −1 for B (the outward
/// normal of A's face is +n, of B's face −n).
type Side = (usize, usize, Feature, f64);

/// ṅ of contact `c` (see the module documentation), or `None` where it is approximated by 0.
pub(super) fn normal_rate(model: &Model, state: &State, c: &Contact) -> Option<DVec3> {
    let sides: [Side; 2] = [
        (c.body_a, c.piece_a, c.feature_a, 1.0),
        (c.body_b, c.piece_b, c.feature_b, -1.0),
    ];
    let shape = |body: usize, piece: usize| &model.bodies[body].pieces[piece].shape;

    if let Some(n_dot) = carried_normal_rate(model, state, c.normal, &sides) {
        return Some(n_dot);
    }
    if let (Shape::Polytope(pa), Shape::Polytope(pb), Feature::Edge(ea), Feature::Edge(eb)) = (
        shape(c.body_a, c.piece_a),
        shape(c.body_b, c.piece_b),
        c.feature_a,
        c.feature_b,
    ) {
        return edge_edge_normal_rate(model, state, c, (pa, ea as usize), (pb, eb as usize));
    }
    sphere_normal_rate(model, state, c, &sides)
}

/// ṅ = ω_owner × n when a side carries the normal: a half-space, or a face parallel to the contact
/// plane (first the sides whose feature is that face, then the sides whose feature (edge, vertex)
/// borders it; A before B). `None` when no side does.
fn carried_normal_rate(model: &Model, state: &State, n: DVec3, sides: &[Side; 2]) -> Option<DVec3> {
    let shape = |body: usize, piece: usize| &model.bodies[body].pieces[piece].shape;

    // A half-space carries its plane's normal.
    for &(body, piece, _, _) in sides {
        if let Shape::HalfSpace { .. } = shape(body, piece) {
            return Some(angular_velocity(model, state, body).cross(n));
        }
    }
    // A face parallel to the contact plane: first the sides whose feature is that face, then the
    // sides whose feature (edge, vertex) borders it.
    for exact in [true, false] {
        for &(body, piece, feature, sign) in sides {
            if let Shape::Polytope(p) = shape(body, piece) {
                let pose = piece_pose(model, state, body, piece);
                let matches = adjacent_faces(p, feature, exact).into_iter().any(|f| {
                    pose.transform_vector(p.faces[f].normal).dot(sign * n)
                        >= 1.0 - FACE_MATCH_COS_TOL
                });
                if matches {
                    return Some(angular_velocity(model, state, body).cross(n));
                }
            }
        }
    }
    None
}

/// Edge–edge: n = s (e_a × e_b)/|e_a × e_b|, so ṅ = s (I − n nᵀ) u̇ / |u| with u = e_a × e_b,
/// u̇ = ė_a × e_b + e_a × ė_b, ė = ω × e. `None` for (nearly) parallel edges or when n is not
/// along u.
fn edge_edge_normal_rate(
    model: &Model,
    state: &State,
    c: &Contact,
    (pa, ea): (&Polytope, usize),
    (pb, eb): (&Polytope, usize),
) -> Option<DVec3> {
    let n = c.normal;
    let e_a = piece_pose(model, state, c.body_a, c.piece_a).transform_vector(pa.edge_direction(ea));
    let e_b = piece_pose(model, state, c.body_b, c.piece_b).transform_vector(pb.edge_direction(eb));
    let u = e_a.cross(e_b);
    let len = u.length();
    if len > 1e-9 {
        let u_hat = u / len;
        let cos = u_hat.dot(n);
        if cos.abs() >= 1.0 - FACE_MATCH_COS_TOL {
            let s = cos.signum();
            let de_a = angular_velocity(model, state, c.body_a).cross(e_a);
            let de_b = angular_velocity(model, state, c.body_b).cross(e_b);
            let du = de_a.cross(e_b) + e_a.cross(de_b);
            return Some(s * (du - u_hat * u_hat.dot(du)) / len);
        }
    }
    None
}

/// A sphere against a sphere, a vertex or an edge: n along w = (I − e eᵀ)(centre − p₀) (p₀ the
/// other centre, the vertex or the edge's first vertex, e the unit edge direction or 0), so
/// ṅ = ±(I − n nᵀ) ẇ / |w| with ẇ = (I − e eᵀ)(ċ − ṗ₀) − ė (e·(c − p₀)) − e (ė·(c − p₀)).
/// `None` when neither side is a sphere, the other feature is a face, or n is not along w.
fn sphere_normal_rate(
    model: &Model,
    state: &State,
    c: &Contact,
    sides: &[Side; 2],
) -> Option<DVec3> {
    let n = c.normal;
    let shape = |body: usize, piece: usize| &model.bodies[body].pieces[piece].shape;
    let (sphere, other, s) = match (shape(c.body_b, c.piece_b), shape(c.body_a, c.piece_a)) {
        (Shape::Sphere { .. }, _) => (1, 0, 1.0),
        (_, Shape::Sphere { .. }) => (0, 1, -1.0),
        _ => return None,
    };
    let (sb, sp, _, _) = sides[sphere];
    let (ob, op, of, _) = sides[other];
    let centre = piece_pose(model, state, sb, sp).translation;
    let d_centre = point_velocity(model, state, sb, centre);
    let other_pose = piece_pose(model, state, ob, op);
    let (p0, e) = match (shape(ob, op), of) {
        (Shape::Sphere { .. }, _) => (other_pose.translation, DVec3::ZERO),
        (Shape::Polytope(p), Feature::Vertex(v)) => (
            other_pose.transform_point(p.vertices[v as usize]),
            DVec3::ZERO,
        ),
        (Shape::Polytope(p), Feature::Edge(e)) => {
            let v0 = p.edges[e as usize].vertices[0] as usize;
            (
                other_pose.transform_point(p.vertices[v0]),
                other_pose.transform_vector(p.edge_direction(e as usize)),
            )
        }
        _ => return None,
    };
    let d_p0 = point_velocity(model, state, ob, p0);
    let de = angular_velocity(model, state, ob).cross(e);
    let x = centre - p0;
    let w = x - e * e.dot(x);
    let len = w.length();
    if len.is_nan() || len <= 0.0 {
        return None;
    }
    let w_hat = w / len;
    if w_hat.dot(s * n) < 1.0 - FACE_MATCH_COS_TOL {
        return None;
    }
    let dx = d_centre - d_p0;
    let dw = dx - e * e.dot(dx) - de * e.dot(x) - e * de.dot(x);
    Some(s * (dw - w_hat * w_hat.dot(dw)) / len)
}
