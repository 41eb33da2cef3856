//! The driver: for each polytope piece pair, place both polytopes (with their motions and covered
//! faces), skip pairs whose bounding spheres stay apart over the horizon, then build the vertex
//! groups of A's and of B's vertices (eqs 34, 36 I, 37 I), the edge groups (eqs 35, 36 X, 38 X)
//! and merge nearly equal contacts and implied groups into the output. Each contact's
//! representative for the merge is found as it is pushed, and an edge group that a lone vertex
//! contact implies is not built (`implied`). What the search computes from the two placements
//! alone is kept per pair for its next search at the same placements (`pose`: a PEG step's
//! passes differ only in the velocities).
//!
//! ```text
//! for each piece pair (A, B):
//!     place A and B (each kept from an earlier pair or pass at the same pose)
//!     if |c_A − c_B| − r_A − r_B > σ + reach: skip
//!     the pair's kept values (`pose`): renewed unless A and B are placed as at its last search
//!     vertex_groups(A against B's faces); vertex_groups(B against A's faces)
//!     edge_groups(A's edges against B's), skipping the implied ones
//!     if a skipped release conflicts: all three again, skipping none
//!     merge_into(out)
//! ```
use super::edge::{edge_groups, WorldEdge};
use super::implied::Skips;
use super::merge::{merge_into, representative, MergeBuffers, Tolerances};
use super::placed::{Motion, PlacedPiece, Side, World};
use super::pose::PairPose;
use super::reuse::{sweep, Kept};
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
    /// What each piece pair's search computed from the placements alone, by (body, piece, body,
    /// piece), for the pair's next search at the same placements (`pose`: the second and later
    /// passes of a PEG step).
    pub(super) pair_poses: BTreeMap<(usize, usize, usize, usize), PairPose>,
    /// [`pair`]'s kept values (its polytopes are placed afresh at each call: never reused).
    pub(super) pair_pose: PairPose,
    pub(super) work: Work,
    /// Each piece pair's last full search, by (body, piece, body, piece), for [`detect`] to take
    /// again while the pair barely moves (`reuse`; only with `reuse_within`).
    pub(super) kept: BTreeMap<(usize, usize, usize, usize), Kept>,
    /// The tolerance (m and rad) within which [`detect`] takes a pair's last search again
    /// (`reuse`); `None` (default): every search afresh.
    pub(super) reuse_within: Option<f64>,
    /// Pair searches [`detect`] took again, and made afresh (past the bounding-ball test).
    pub(super) reuse_counts: (u64, u64),
}

impl Scratch {
    /// Append the pair `key`'s kept search (`reuse`) to `out` if its sweeps are `quiet` (the
    /// tolerance, when they are below it) and it is within that tolerance of the kept one;
    /// whether it was taken.
    fn take_kept(
        &mut self,
        key: (usize, usize, usize, usize),
        quiet: Option<f64>,
        poses: (&Pose, &Pose),
        params: &PotentialParams,
        out: &mut PotentialSet,
    ) -> bool {
        let taken = match (quiet, self.kept.get(&key)) {
            (Some(tol), Some(kept)) => kept.reuse(poses, params, tol, &mut self.work.spare, out),
            _ => false,
        };
        self.reuse_counts.0 += taken as u64;
        taken
    }

    /// How many pair searches [`detect`] took again from a kept one (`reuse`), and how many it
    /// made afresh, since these buffers were made.
    pub fn reuse_counts(&self) -> (u64, u64) {
        self.reuse_counts
    }

    /// Let [`detect`] take a pair's last search again while B's placement in A's frame stays
    /// within `tolerance` (m and rad) of it, both sweeps stay below `tolerance` and the
    /// thresholds are the same (`reuse`, its module doc); `None`: search afresh every time.
    pub fn reuse_within(&mut self, tolerance: Option<f64>) {
        self.reuse_within = tolerance;
        self.kept.clear();
    }
}

#[cfg(feature = "internals")]
impl Scratch {
    /// Buffers for a search that builds every group, the implied edge groups too (the reference
    /// `implied`'s skipping is checked against, `tests/collision_potential.rs`).
    pub fn building_every_group() -> Self {
        let mut scratch = Scratch::default();
        scratch.work.every_group = true;
        scratch
    }

    /// How many implied edge groups these buffers' searches skipped, and how many pairs they
    /// searched again because a skipped release was nearly equal to a later contact.
    pub fn skip_counts(&self) -> (usize, usize) {
        (self.work.skips.skipped, self.work.skips.conflicts)
    }
}

/// The buffers of one pair's search.
#[derive(Clone, Debug, Default)]
pub(super) struct Work {
    /// Pair-local contacts and groups before merging.
    pub(super) contacts: Vec<Contact>,
    pub(super) applicability: Vec<f64>,
    /// The representative of each contact for the merge ([`representative`]).
    pub(super) canon: Vec<usize>,
    /// The best applicability of the contacts merged into each representative.
    pub(super) merged_applicability: Vec<f64>,
    pub(super) groups: Vec<Group>,
    /// B's world edges within reach (`edge_groups`).
    pub(super) edges: Vec<WorldEdge>,
    /// An edge group's releases before they are pushed.
    pub(super) releases: Vec<Contact>,
    /// The implied edge groups skipped (`implied`).
    pub(super) skips: Skips,
    /// Build every group, skipping none (a reference for the tests).
    pub(super) every_group: bool,
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
        let pair_params = params(ba, bb);
        let key = (ba, pa, bb, pb);
        // Nil sweeps (resting bodies): the pair's last search may be taken again (`reuse`).
        let poses = (
            piece_pose(model, state, ba, pa),
            piece_pose(model, state, bb, pb),
        );
        let quiet = scratch.reuse_within.filter(|&tol| {
            let (ma, mb) = (motion(ba), motion(bb));
            sweep(&pair_params, (p, &poses.0, &ma), (q, &poses.1, &mb)) <= tol
        });
        if scratch.take_kept(key, quiet, (&poses.0, &poses.1), &pair_params, out) {
            continue;
        }
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
        scratch.reuse_counts.1 += 1;
        let start = out.contacts.len();
        let first_group = out.groups.len();
        let (wa, wb) = (
            &scratch.pieces[&(ba, pa)].world,
            &scratch.pieces[&(bb, pb)].world,
        );
        let kept = scratch.pair_poses.entry((ba, pa, bb, pb)).or_default();
        search(
            Side { p, w: wa },
            Side { p: q, w: wb },
            &pair_params,
            kept,
            &mut scratch.work,
            out,
        );
        for c in &mut out.contacts[start..] {
            c.body_a = ba;
            c.piece_a = pa;
            c.body_b = bb;
            c.piece_b = pb;
        }
        if quiet.is_some() {
            let entry = scratch.kept.entry(key).or_default();
            entry.keep(
                (&poses.0, &poses.1),
                &pair_params,
                out,
                (start, first_group),
            );
        } else {
            scratch.kept.remove(&key);
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
        Side {
            p: a,
            w: &scratch.a,
        },
        Side {
            p: b,
            w: &scratch.b,
        },
        params,
        &mut scratch.pair_pose,
        &mut scratch.work,
        out,
    );
}

/// [`pair`] for A and B placed, with the values kept from an earlier search of the pair
/// (`kept`, `pose`).
fn search(
    sa: Side,
    sb: Side,
    params: &PotentialParams,
    kept: &mut PairPose,
    work: &mut Work,
    out: &mut PotentialSet,
) {
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
    let tol = Tolerances {
        point: params.merge_tolerance * (a.radius + b.radius),
        normal: params.merge_tolerance,
    };
    kept.prepare(sa, sb, params.parallel_sine, params.merge_tolerance);
    generate(sa, sb, params, tol, (!work.every_group, kept), work);
    if work.skips.conflict {
        work.skips.conflicts += 1;
        generate(sa, sb, params, tol, (false, kept), work);
    }
    merge_into(work, out);
}

/// The vertex and edge groups of A and B in `work` (`skip`: leave out the edge groups a lone
/// vertex contact implies, `implied`; `kept`: the pair's values that depend on the placements
/// alone, `pose`).
fn generate(
    sa: Side,
    sb: Side,
    params: &PotentialParams,
    tol: Tolerances,
    (skip, kept): (bool, &mut PairPose),
    work: &mut Work,
) {
    work.contacts.clear();
    work.applicability.clear();
    work.canon.clear();
    work.merged_applicability.clear();
    for g in work.groups.drain(..) {
        recycle(&mut work.spare, g);
    }
    work.skips.clear(skip);
    let mut local = Local {
        contacts: &mut work.contacts,
        applicability: &mut work.applicability,
        canon: &mut work.canon,
        merged_applicability: &mut work.merged_applicability,
        groups: &mut work.groups,
        spare: &mut work.spare,
        releases: &mut work.releases,
        skips: &mut work.skips,
        tol,
    };
    let [vertices_a, vertices_b] = &mut kept.vertices;
    vertex_groups(sa, sb, false, params, vertices_a, &mut local);
    vertex_groups(sb, sa, true, params, vertices_b, &mut local);
    edge_groups(
        sa,
        sb,
        params,
        &mut work.edges,
        &mut kept.edge_pairs,
        &mut local,
    );
}

/// Pair-local output while generating.
pub(super) struct Local<'s> {
    pub(super) contacts: &'s mut Vec<Contact>,
    pub(super) applicability: &'s mut Vec<f64>,
    /// Each contact's representative for the merge ([`representative`]).
    pub(super) canon: &'s mut Vec<usize>,
    /// The best applicability of each representative and the contacts merged into it so far
    /// (skipped edge–edge contacts too, `implied`), folded in push order as the merge did.
    pub(super) merged_applicability: &'s mut Vec<f64>,
    pub(super) groups: &'s mut Vec<Group>,
    /// Emptied lists to reuse ([`Work::spare`]).
    pub(super) spare: &'s mut Vec<Vec<usize>>,
    /// An edge group's releases before they are pushed.
    pub(super) releases: &'s mut Vec<Contact>,
    pub(super) skips: &'s mut Skips,
    pub(super) tol: Tolerances,
}

impl Local<'_> {
    pub(super) fn push(&mut self, c: Contact, applicability: f64) -> usize {
        let found = self.representative(&c);
        self.push_represented(c, applicability, found)
    }

    /// The representative of `c` among the contacts pushed so far (None: `c` would be its own).
    pub(super) fn representative(&self, c: &Contact) -> Option<usize> {
        representative(self.contacts, self.canon, c, self.tol)
    }

    /// Push `c` with its [`representative`](Self::representative) `found`.
    pub(super) fn push_represented(
        &mut self,
        c: Contact,
        applicability: f64,
        found: Option<usize>,
    ) -> usize {
        self.skips.check(&c, self.tol);
        let index = self.contacts.len();
        self.contacts.push(c);
        self.applicability.push(applicability);
        self.canon.push(found.unwrap_or(index));
        self.merged_applicability.push(applicability);
        if let Some(j) = found {
            self.merge_applicability(j, applicability);
        }
        index
    }

    /// Fold `applicability`, of a contact merged into the representative `j`, into `j`'s best.
    pub(super) fn merge_applicability(&mut self, j: usize, applicability: f64) {
        self.merged_applicability[j] = self.merged_applicability[j].max(applicability);
    }

    /// Note a vertex group of members `members` (not empty) for `implied`: lone when they all
    /// have one representative.
    pub(super) fn note_vertex_group(&mut self, members: &[usize]) {
        let first = self.canon[members[0]];
        if members.iter().all(|&m| self.canon[m] == first) {
            self.skips.lone(first);
        }
    }

    /// An empty list for a group's members or candidates (a reused one when there is one).
    pub(super) fn list(&mut self) -> Vec<usize> {
        self.spare.pop().unwrap_or_default()
    }
}
