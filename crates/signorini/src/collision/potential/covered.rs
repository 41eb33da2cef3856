//! Faces glued to another piece of the same body: a compound body (a container of walls on a
//! floor) has faces inside it that are not part of its boundary, and vertices must not be
//! "outside" the body through them. Vertex and edge groups leave such faces out.
use super::placed::{Motion, Side, World};
use super::vertex::polygon_distance;
use crate::geometry::Polytope;

/// For each piece of `body` and each of its faces: is the face covered by a face of another
/// piece of the same body (opposite normals within `tol` = 1e-9, same plane within 1e-9 of the
/// pieces' size, every corner inside the other face's polygon)? Such a face is glued to the other
/// piece — the wall of a container standing on its floor — and is not part of the body's
/// boundary: a vertex on the floor is not "outside the wall" through the wall's bottom face.
/// Non-polytope pieces get no entries.
pub fn covered_faces(body: &crate::dynamics::Body) -> Vec<Vec<bool>> {
    use crate::geometry::Shape;
    let placed: Vec<Option<World>> = body
        .pieces
        .iter()
        .map(|piece| match &piece.shape {
            Shape::Polytope(p) => {
                let mut w = World::default();
                w.place(p, &piece.pose, &Motion::REST, &[]);
                Some(w)
            }
            _ => None,
        })
        .collect();
    let polys: Vec<Option<&Polytope>> = body
        .pieces
        .iter()
        .map(|piece| match &piece.shape {
            Shape::Polytope(p) => Some(p.as_ref()),
            _ => None,
        })
        .collect();
    let mut out = Vec::with_capacity(body.pieces.len());
    for (i, (wi, pi)) in placed.iter().zip(&polys).enumerate() {
        let (Some(wi), Some(pi)) = (wi, pi) else {
            out.push(Vec::new());
            continue;
        };
        let mut flags = vec![false; pi.faces.len()];
        for (f, flag) in flags.iter_mut().enumerate() {
            *flag = placed.iter().zip(&polys).enumerate().any(|(j, (wj, pj))| {
                let (Some(wj), Some(pj), true) = (wj, pj, j != i) else {
                    return false;
                };
                let tol = 1e-9 * (pi.radius + pj.radius);
                (0..pj.faces.len()).any(|g| {
                    wi.normals[f].dot(wj.normals[g]) < -1.0 + 1e-9
                        && (wi.offsets[f] + wj.offsets[g]).abs() <= tol
                        && pi.faces[f].vertices.iter().all(|&v| {
                            let x = wi.vertices[v as usize];
                            let side = Side { p: pj, w: wj };
                            polygon_distance(side, g, x, 0.0) <= tol
                        })
                })
            });
        }
        out.push(flags);
    }
    out
}
