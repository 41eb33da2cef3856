//! The driver: for each polytope piece pair, place both polytopes (with their motions and covered
//! faces), skip pairs whose bounding spheres stay apart over the horizon, then build the vertex
//! groups of A's and of B's vertices (eqs 34, 36 I, 37 I), the edge groups (eqs 35, 36 X, 38 X)
//! and merge nearly equal contacts and implied groups into the output.
//!
//! ```text
//! for each piece pair (A, B):
//!     place A and B (each kept from an earlier pair or pass at the same pose)
//!     if |c_A − c_B| − r_A − r_B > σ + reach: skip
//!     vertex_groups(A against B's faces); vertex_groups(B against A's faces)
//!     edge_groups(A's edges against B's)
//!     merge_into(out)
//! ```
use super::edge::{edge_groups, WorldEdge};
use super::merge::{merge_into, MergeBuffers};
use super::placed::{Motion, PlacedPiece, Side, World};
use super::vertex::vertex_groups;
use super::{Group, PotentialParams, PotentialSet};
use crate::collision::Contact;
use crate::dynamics::{piece_pose, Model, State};
use crate::geometry::{Polytope, Pose};
use std::collections::BTreeMap;
use std::sync::Arc;

/// Reusable buffers.
#[derive(Clone, Debug, Default)]
pub struct Scratch {
    /// The two polytopes of [`pair`].
    pub(super) a: World,
    pub(super) b: World,
    /// The pieces [`detect`] placed, by (body, piece): a piece in several pairs, or searched
    /// again in a later pass at the same pose, is placed once.
    pub(super) pieces: BTreeMap<(usize, usize), PlacedPiece>,
    pub(super) work: Work,
}

/// The buffers of one pair's search.
#[derive(Clone, Debug, Default)]
pub(super) struct Work {
    /// Pair-local contacts and groups before merging.
    pub(super) contacts: Vec<Contact>,
    pub(super) applicability: Vec<f64>,
    pub(super) groups: Vec<Group>,
    /// B's world edges within reach (`edge_groups`).
    pub(super) edges: Vec<WorldEdge>,
    /// `merge_into`'s buffers.
    pub(super) merge: MergeBuffers,
    /// Emptied member and candidate lists of dropped groups, reused by the next groups (a
    /// group's two lists would otherwise be allocated and freed per group, most of them dropped
    /// as implied within the pair).
    pub(super) spare: Vec<Vec<usize>>,
}

impl Scratch {
    /// Clear `set`, keeping its groups' member and candidate lists for reuse.
    pub fn clear_set(&mut self, set: &mut PotentialSet) {
        for g in set.groups.drain(..) {
            recycle(&mut self.work.spare, g);
        }
        set.clear();
    }
}

/// Keep `g`'s member and candidate lists, emptied, in `spare`.
pub(super) fn recycle(spare: &mut Vec<Vec<usize>>, g: Group) {
    for mut list in [g.members, g.candidates] {
        list.clear();
        spare.push(list);
    }
}

/// Potential contacts and groups of every polytope piece pair `(body_a, piece_a, body_b,
/// piece_b)` in `pairs` at `state` (bodies moving with their velocities), with the thresholds
/// `params(body_a, body_b)`, appended to `out`. `covered[body][piece][face]` marks the faces that
/// another piece of the same body covers ([`covered_faces`](super::covered_faces);
/// absent entries: none). Pairs whose pieces are not both polytopes are skipped.
pub fn detect(
    model: &Model,
    state: &State,
    pairs: &[(usize, usize, usize, usize)],
    params: impl Fn(usize, usize) -> PotentialParams,
    covered: &[Vec<Vec<bool>>],
    scratch: &mut Scratch,
    out: &mut PotentialSet,
) {
    let mask = |b: usize, p: usize| -> &[bool] {
        covered
            .get(b)
            .and_then(|c| c.get(p))
            .map_or(&[], |v| v.as_slice())
    };
    use crate::geometry::Shape;
    for &(ba, pa, bb, pb) in pairs {
        let (Shape::Polytope(p), Shape::Polytope(q)) = (
            &model.bodies[ba].pieces[pa].shape,
            &model.bodies[bb].pieces[pb].shape,
        ) else {
            continue;
        };
        let motion = |b: usize| {
            let s = &state.bodies[b];
            if model.bodies[b].moves(state.time) {
                Motion {
                    point: s.position,
                    velocity: s.velocity,
                    angular_velocity: s.angular_velocity,
                }
            } else {
                Motion::REST
            }
        };
        let mut placed = |b: usize, piece: usize, poly: &Arc<Polytope>| {
            let pose = piece_pose(model, state, b, piece);
            let slot = scratch
                .pieces
                .entry((b, piece))
                .and_modify(|placed| placed.update(poly, &pose))
                .or_insert_with(|| PlacedPiece::new(poly, &pose));
            slot.world.set_motion(poly, &motion(b), mask(b, piece));
        };
        placed(ba, pa, p);
        placed(bb, pb, q);
        let start = out.contacts.len();
        let (wa, wb) = (&scratch.pieces[&(ba, pa)].world, &scratch.pieces[&(bb, pb)].world);
        search(
            Side { p, w: wa },
            Side { p: q, w: wb },
            &params(ba, bb),
            &mut scratch.work,
            out,
        );
        for c in &mut out.contacts[start..] {
            c.body_a = ba;
            c.piece_a = pa;
            c.body_b = bb;
            c.piece_b = pb;
        }
    }
}

/// Potential contacts and groups of polytope A (at its pose, moving with its motion, with the
/// faces `covered` by other pieces of its body: they are not boundary, `&[]` for none) and B,
/// appended to `out` (contacts with body and piece indices 0).
pub fn pair(
    (a, pose_a, motion_a, covered_a): (&Polytope, &Pose, &Motion, &[bool]),
    (b, pose_b, motion_b, covered_b): (&Polytope, &Pose, &Motion, &[bool]),
    params: &PotentialParams,
    scratch: &mut Scratch,
    out: &mut PotentialSet,
) {
    scratch.a.place(a, pose_a, motion_a, covered_a);
    scratch.b.place(b, pose_b, motion_b, covered_b);
    search(
        Side { p: a, w: &scratch.a },
        Side { p: b, w: &scratch.b },
        params,
        &mut scratch.work,
        out,
    );
}

/// [`pair`] for A and B placed.
fn search(sa: Side, sb: Side, params: &PotentialParams, work: &mut Work, out: &mut PotentialSet) {
    let (a, b) = (sa.p, sb.p);
    let (motion_a, motion_b) = (sa.w.motion, sb.w.motion);
    // Bounding spheres: nothing within σ over the horizon.
    let (ca, cb) = (sa.w.centroid, sb.w.centroid);
    let reach = params.horizon
        * ((motion_a.at(ca) - motion_b.at(cb)).length()
            + motion_a.angular_velocity.length() * a.radius
            + motion_b.angular_velocity.length() * b.radius);
    if ca.distance(cb) - a.radius - b.radius > params.distance + reach {
        return;
    }
    work.contacts.clear();
    work.applicability.clear();
    work.groups.clear();
    let mut local = Local {
        contacts: &mut work.contacts,
        applicability: &mut work.applicability,
        groups: &mut work.groups,
        spare: &mut work.spare,
    };
    vertex_groups(sa, sb, false, params, &mut local);
    vertex_groups(sb, sa, true, params, &mut local);
    edge_groups(sa, sb, params, &mut work.edges, &mut local);
    merge_into(
        work,
        params.merge_tolerance,
        params.merge_tolerance * (a.radius + b.radius),
        out,
    );
}

/// Pair-local output while generating.
pub(super) struct Local<'s> {
    pub(super) contacts: &'s mut Vec<Contact>,
    pub(super) applicability: &'s mut Vec<f64>,
    pub(super) groups: &'s mut Vec<Group>,
    /// Emptied lists to reuse ([`Work::spare`]).
    pub(super) spare: &'s mut Vec<Vec<usize>>,
}

impl Local<'_> {
    pub(super) fn push(&mut self, c: Contact, applicability: f64) -> usize {
        self.contacts.push(c);
        self.applicability.push(applicability);
        self.contacts.len() - 1
    }

    /// An empty list for a group's members or candidates (a reused one when there is one).
    pub(super) fn list(&mut self) -> Vec<usize> {
        self.spare.pop().unwrap_or_default()
    }
}
