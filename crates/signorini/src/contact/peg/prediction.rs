//! The implicit gap prediction of PEG's subproblem: the end-of-step gap ψ(q + h ν) of PEG eq. 6,
//! taken exactly at the poses one step of a velocity ν* leads to and linearized about it (the
//! geometrically implicit time stepping of Chakraborty, Berard, Akella & Trinkle 2007, applied to
//! PEG's feature pairs):
//!
//! ```text
//!   ψ(q + h ν) ≈ ψ* + h G* (ν − ν*),   ψ* = ψ(q + h ν*),  G* the Jacobian at q + h ν*
//! ```
//!
//! `VelocityProblem::poses_after` gives q + h ν*, [`carried`] a contact moved there (points with their bodies,
//! the normal with the body whose face or edges define it, the exact gap of its feature pair),
//! [`member_gap`] a constraint member's exact gap there; [`retain_reaching`] keeps the
//! constraints one step reaches when a subproblem would exceed `max_rows`.
use super::constraints::{Constraint, What};
use crate::collision::potential::{feature_gap, release_gap, GroupKey};
use crate::collision::Contact;
use crate::dynamics::Model;
use crate::geometry::{Feature, Pose, Shape};
use glam::DVec3;

/// Keep the constraints that one step brings within `margin` (m) at the `poses` it leads to: whose
/// deepest-reaching member (largest exact gap, `collision::potential::feature_gap`) ends the
/// step at most `margin` from its plane. The sweep finds every feature pair a step could bring
/// together; when they are more than `max_rows` can pose (a body turning a radian per step has
/// nearly all its feature pairs within reach), this keeps those the motion at hand does. What
/// the contact forces then bring is the next pass's (its velocities are swept again).
pub(super) fn retain_reaching(
    model: &Model,
    poses: &[Pose],
    margin: f64,
    constraints: &mut Vec<Constraint>,
) {
    constraints.retain(|c| {
        std::iter::once(&c.primary)
            .chain(&c.others)
            .map(|m| member_gap(model, poses, c.key.4, m).unwrap_or(m.gap))
            .fold(f64::NEG_INFINITY, f64::max)
            <= margin
    });
}

/// Contact `c` (found at the poses `start`) carried to the poses `to`: each point moves with its
/// body, the normal turns with the body whose face defines it (both edges for an edge–edge
/// contact, the edge for a vertex–edge release), and the gap is the exact one of the feature
/// pair at `to` (`collision::potential::feature_gap`) or, where that has none, ψ plus the
/// normal approach of the carried points.
pub(super) fn carried(
    model: &Model,
    start: &[Pose],
    to: &[Pose],
    what: What,
    c: &Contact,
) -> Contact {
    let turn = |b: usize| to[b].rotation * start[b].rotation.inverse();
    let carry = |b: usize, x: DVec3| to[b].translation + turn(b) * (x - start[b].translation);
    let mut out = *c;
    out.point_a = carry(c.body_a, c.point_a);
    out.point_b = carry(c.body_b, c.point_b);
    out.normal = match (c.feature_a, c.feature_b) {
        (Feature::Face(_) | Feature::Surface, Feature::Vertex(_)) => turn(c.body_a) * c.normal,
        (Feature::Edge(ea), Feature::Edge(eb)) => {
            let edge = |b: usize, p: usize, e: u32| match &model.bodies[b].pieces[p].shape {
                Shape::Polytope(poly) => poly.edges.get(e as usize).map(|edge| {
                    let [v0, v1] = edge.vertices.map(|v| poly.vertices[v as usize]);
                    let pose = to[b].mul(&model.bodies[b].pieces[p].pose);
                    pose.transform_vector(v1 - v0)
                }),
                _ => None,
            };
            let cross = edge(c.body_a, c.piece_a, ea)
                .zip(edge(c.body_b, c.piece_b, eb))
                .map(|(da, db)| da.cross(db))
                .filter(|x| x.length_squared() > 0.0);
            match cross {
                Some(x) => {
                    let n = x.normalize();
                    if n.dot(turn(c.body_b) * c.normal) < 0.0 {
                        -n
                    } else {
                        n
                    }
                }
                None => turn(c.body_b) * c.normal,
            }
        }
        _ => turn(c.body_b) * c.normal,
    };
    if let Some((gap, normal)) = release(model, to, what, c) {
        out.normal = normal;
        out.gap = gap;
        return out;
    }
    out.gap = match (c.feature_a, c.feature_b) {
        // The carried points stay on their edges' lines: the line distance along the normal
        // above (oriented by the turned normal, not the start one, for a large turn).
        (Feature::Edge(_), Feature::Edge(_)) => out.normal.dot(out.point_b - out.point_a),
        _ => feature_gap(model, to, c).unwrap_or_else(|| {
            c.gap
                + out
                    .normal
                    .dot((out.point_b - c.point_b) - (out.point_a - c.point_a))
        }),
    };
    out
}

/// Gap and normal at `poses` of a release member (vertex–edge) of an edge group; None for
/// every other member.
fn release(model: &Model, poses: &[Pose], what: What, c: &Contact) -> Option<(f64, DVec3)> {
    match what {
        What::Group(GroupKey::Edges(ea, eb)) => release_gap(model, poses, c, ea, eb),
        _ => None,
    }
}

/// The exact gap (m) at `poses` of member `c` of the constraint `what`: its feature pair's
/// (`collision::potential::feature_gap`) or its release's; None where the geometry has none.
pub(super) fn member_gap(model: &Model, poses: &[Pose], what: What, c: &Contact) -> Option<f64> {
    release(model, poses, what, c)
        .map(|(gap, _)| gap)
        .or_else(|| feature_gap(model, poses, c))
}
