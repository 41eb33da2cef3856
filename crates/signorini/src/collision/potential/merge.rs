//! Nearly equal candidates: contacts of a pair that agree in points (within `merge_tolerance` ×
//! (r_A + r_B)) and normals (within `merge_tolerance`) are one contact (the same gap function to
//! first order); a group whose members include another group's is implied by it and dropped (of
//! equal groups the first is kept). Applicability of a merged contact is the best of its
//! originals.
use super::detect::{recycle, Work};
use super::PotentialSet;
use crate::collision::Contact;
use glam::DVec3;

/// How close two contacts of a pair must be to merge: their points within `point` (m,
/// `merge_tolerance` × (r_A + r_B)) and their unit normals within `normal`.
#[derive(Clone, Copy, Debug)]
pub(super) struct Tolerances {
    pub(super) point: f64,
    pub(super) normal: f64,
}

/// Are `ci` and `cj` nearly equal (one contact, the same gap function to first order)?
pub(super) fn nearly_equal(ci: &Contact, cj: &Contact, tol: Tolerances) -> bool {
    within(ci.point_a, cj.point_a, tol.point)
        && within(ci.point_b, cj.point_b, tol.point)
        && within(ci.normal, cj.normal, tol.normal)
}

/// The representative of a contact `c` about to join `contacts` (whose representatives are
/// `canon`): the first earlier contact nearly equal to it that is its own representative; None
/// when there is none (`c` is then its own). The merge keeps only representatives.
pub(super) fn representative(
    contacts: &[Contact],
    canon: &[usize],
    c: &Contact,
    tol: Tolerances,
) -> Option<usize> {
    (0..contacts.len()).find(|&j| canon[j] == j && nearly_equal(c, &contacts[j], tol))
}

/// Merge nearly equal contacts (each into its [`representative`], found as it was pushed:
/// `scratch.canon`, with the best applicability `scratch.merged_applicability`), drop implied
/// groups, and append what remains to `out`.
pub(super) fn merge_into(scratch: &mut Work, out: &mut PotentialSet) {
    let contacts = &scratch.contacts;
    let n = contacts.len();
    let canon = &scratch.canon;
    let mut groups = std::mem::take(&mut scratch.groups);
    for g in &mut groups {
        for m in g.members.iter_mut().chain(g.candidates.iter_mut()) {
            *m = canon[*m];
        }
        g.members.sort_unstable();
        g.members.dedup();
        g.candidates.sort_unstable();
        g.candidates.dedup();
    }
    // A group implied by another (a subset of its members, or an equal earlier one) goes. The
    // members are distinct, so a subset is no longer: the sizes are compared first.
    let implied = |i: usize| {
        let mine = &groups[i].members;
        groups.iter().enumerate().any(|(j, other)| {
            j != i
                && (other.members.len() < mine.len()
                    || (other.members.len() == mine.len() && j < i))
                && other.members.iter().all(|m| mine.contains(m))
        })
    };
    let keep = &mut scratch.merge.keep;
    keep.clear();
    keep.extend((0..groups.len()).map(|i| !implied(i)));
    // Applicability of a merged contact: the best of those merged into it (folded in as they
    // were pushed, in push order).
    let appl = &scratch.merged_applicability;
    // Append the contacts the kept groups use, in order, and remap.
    let index = &mut scratch.merge.index;
    index.clear();
    index.resize(n, usize::MAX);
    for (g, _) in groups.iter().zip(keep.iter()).filter(|(_, k)| **k) {
        for &m in &g.members {
            index[m] = 0;
        }
    }
    for i in 0..n {
        if index[i] == 0 {
            index[i] = out.contacts.len();
            out.contacts.push(contacts[i]);
            out.applicability.push(appl[i]);
        }
    }
    for (mut g, &k) in groups.drain(..).zip(keep.iter()) {
        if !k {
            recycle(&mut scratch.spare, g);
            continue;
        }
        for m in g.members.iter_mut().chain(g.candidates.iter_mut()) {
            *m = index[*m];
        }
        out.groups.push(g);
    }
    scratch.groups = groups;
}

/// `p.distance(q) <= tol`, the same answer, with most far pairs settled without the square
/// root: the computed length of d = p − q is never below |d_i| for a component whose square does
/// not underflow (|d_i| ≥ √MIN_POSITIVE): the sum of squares is at least fl(d_i²), and in binary
/// floating point the correctly rounded √fl(d_i²) is |d_i|. So a component beyond `tol` (and
/// beyond √MIN_POSITIVE) means the distance is beyond `tol` too.
fn within(p: DVec3, q: DVec3, tol: f64) -> bool {
    let largest = (p - q).abs().max_element();
    if largest > tol && largest >= f64::MIN_POSITIVE.sqrt() {
        return false;
    }
    p.distance(q) <= tol
}

/// `merge_into`'s buffers, kept between pairs (no allocation per pair).
#[derive(Clone, Debug, Default)]
pub(super) struct MergeBuffers {
    keep: Vec<bool>,
    index: Vec<usize>,
}
