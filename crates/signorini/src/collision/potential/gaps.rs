//! Gaps of potential contacts re-evaluated at other body poses, by the formulas of detection:
//! the vertex–face distance to the face's plane, the signed distance of two edge lines (eqs 28–31
//! measure), and the half-space and sphere gaps. PEG's models use them to see where a step's
//! motion takes each contact (`contact::peg`).
use crate::collision::Contact;
use crate::dynamics::Model;
use crate::geometry::{Feature, Polytope, Pose};

/// The gap (m) of contact `c`'s feature pair with the bodies at `poses` (world pose of each body's
/// frame), for the pairs whose gap is a function of their features: vertex–face and face–vertex
/// (the vertex's distance to the face's plane), edge–edge (the signed distance of the two lines,
/// the normal's sign kept close to `c.normal`), a polytope vertex against a half-space, a sphere
/// against a half-space or a sphere. `None` for the others (sphere–polytope), for edges that
/// have become parallel, and for features that do not exist on the pieces.
pub fn feature_gap(model: &Model, poses: &[Pose], c: &Contact) -> Option<f64> {
    use crate::geometry::Shape;
    let piece = |b: usize, p: usize| {
        let piece = model.bodies[b].pieces.get(p)?;
        Some((&piece.shape, poses[b].mul(&piece.pose)))
    };
    let (sa, pose_a) = piece(c.body_a, c.piece_a)?;
    let (sb, pose_b) = piece(c.body_b, c.piece_b)?;
    let vertex = |s: &Shape, pose: &Pose, v: u32| match s {
        Shape::Polytope(p) => p.vertices.get(v as usize).map(|x| pose.transform_point(*x)),
        _ => None,
    };
    // Outward unit normal and offset of face f in the world.
    let plane = |s: &Shape, pose: &Pose, f: u32| match s {
        Shape::Polytope(p) => p.faces.get(f as usize).map(|face| {
            let n = pose.transform_vector(face.normal);
            (n, face.offset + n.dot(pose.translation))
        }),
        Shape::HalfSpace { normal } => {
            let n = pose.transform_vector(*normal);
            Some((n, n.dot(pose.translation)))
        }
        Shape::Sphere { .. } => None,
    };
    match (c.feature_a, c.feature_b, sa, sb) {
        (Feature::Vertex(v), Feature::Face(f), _, _) => {
            let (n, o) = plane(sb, &pose_b, f)?;
            Some(n.dot(vertex(sa, &pose_a, v)?) - o)
        }
        (Feature::Face(f), Feature::Vertex(v), _, _) => {
            let (n, o) = plane(sa, &pose_a, f)?;
            Some(n.dot(vertex(sb, &pose_b, v)?) - o)
        }
        (Feature::Surface, Feature::Vertex(v), Shape::HalfSpace { .. }, _) => {
            let (n, o) = plane(sa, &pose_a, 0)?;
            Some(n.dot(vertex(sb, &pose_b, v)?) - o)
        }
        (Feature::Vertex(v), Feature::Surface, _, Shape::HalfSpace { .. }) => {
            let (n, o) = plane(sb, &pose_b, 0)?;
            Some(n.dot(vertex(sa, &pose_a, v)?) - o)
        }
        (Feature::Edge(ea), Feature::Edge(eb), Shape::Polytope(p), Shape::Polytope(q)) => {
            let ends = |poly: &Polytope, pose: &Pose, e: u32| {
                poly.edges.get(e as usize).map(|edge| {
                    edge.vertices
                        .map(|v| pose.transform_point(poly.vertices[v as usize]))
                })
            };
            let [a0, a1] = ends(p, &pose_a, ea)?;
            let [b0, b1] = ends(q, &pose_b, eb)?;
            let cross = (a1 - a0).cross(b1 - b0);
            if cross.length() <= 1e-9 * (a1 - a0).length() * (b1 - b0).length() {
                return None;
            }
            let mut n = cross.normalize();
            if n.dot(c.normal) < 0.0 {
                n = -n;
            }
            Some(n.dot(b0 - a0))
        }
        (Feature::Surface, Feature::Surface, Shape::HalfSpace { .. }, Shape::Sphere { radius }) => {
            let (n, o) = plane(sa, &pose_a, 0)?;
            Some(n.dot(pose_b.translation) - o - radius)
        }
        (Feature::Surface, Feature::Surface, Shape::Sphere { radius }, Shape::HalfSpace { .. }) => {
            let (n, o) = plane(sb, &pose_b, 0)?;
            Some(n.dot(pose_a.translation) - o - radius)
        }
        (
            Feature::Surface,
            Feature::Surface,
            Shape::Sphere { radius: ra },
            Shape::Sphere { radius: rb },
        ) => Some(pose_a.translation.distance(pose_b.translation) - ra - rb),
        _ => None,
    }
}
