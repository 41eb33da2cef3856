//! Edge groups the merge would drop, skipped where they are generated.
//!
//! An edge group whose edge–edge contact merges (module doc of `collision::potential`, "Nearly
//! equal candidates") into a contact that is by itself the whole of a vertex group — a
//! U-constraint, one vertex over one face — holds that vertex group's member set, so the merge
//! drops it as implied ("one of a subset ≥ 0" implies "one of the set ≥ 0"; a vertex group comes
//! before every edge group, so it is also the first of equal groups). Stacked boxes make eight
//! such groups a pair, two at each touching corner, each with two releases: three quarters of the
//! pair's contacts and half its groups, all dropped.
//!
//! Such a group is not built: its edge–edge contact is not pushed (its applicability is folded
//! into the contact it merges into, in generation order, as the merge would) and its releases
//! are set aside. Leaving them out changes nothing else the merge does as long as no contact
//! generated after them is nearly equal to one of them (the merge could then have taken that
//! release as the first copy); [`Skips::conflict`] records when that happens, and the pair is
//! then searched again with no group skipped. A skipped edge–edge contact itself needs no such
//! check: its representative, the lone contact or one before it, comes before every release
//! (vertex groups come first), so no release can be its first nearly equal contact. The releases
//! are therefore worked out only once a contact is pushed after them (on the stack, never: every
//! edge group of a pair is skipped). (A release carries applicability −∞, whose fold into a
//! representative changes nothing unless that applicability is NaN.) Without a conflict the
//! pair's output is the unskipped search's bit for bit (`tests/collision_potential.rs`,
//! `skipping_implied_edge_groups_changes_no_output` and
//! `a_pair_with_a_conflicting_skipped_release_is_searched_again_unskipped`). Conflicts are rare:
//! none in the stack, `pour_3d.toml` (3 s) and `bin_64.toml` (1.5 s) under peg, 229,000 pair
//! searches; 5 in a million pairs of hulls of points on the grid {−1, 0, 1}³.
//!
//! ```text
//! vertex group with one member (by representative) c:  lone ← lone ∪ {c}
//! edge pair with contact ee and releases ρ:
//!     if representative(ee) ∈ lone:  fold APPL(ee) into c; set the pair aside; no group
//!     else:                          work out the releases of the pairs set aside;
//!                                    push ee, ρ and the group
//! any contact pushed nearly equal to a release worked out:  conflict (search again)
//! ```
use super::edge::EdgeCrossing;
use super::merge::{nearly_equal, Tolerances};
use crate::collision::Contact;

/// What the skipping of implied edge groups keeps during one pair's search.
#[derive(Clone, Debug, Default)]
pub(super) struct Skips {
    /// Skip at all (false: every group is built, the reference the skipping is checked against).
    pub(super) enabled: bool,
    /// Contacts (representatives) that are the whole member set of a vertex group.
    lone: Vec<usize>,
    /// The skipped edge groups whose releases are not worked out yet: A's edge, B's edge and
    /// their crossing.
    pending: Vec<(usize, usize, EdgeCrossing)>,
    /// The releases of the skipped edge groups worked out.
    releases: Vec<Contact>,
    /// A contact generated after a skipped release is nearly equal to it.
    pub(super) conflict: bool,
    /// Edge groups skipped, and pairs searched again after a conflict, since the buffers were
    /// made (for the tests: `Scratch::skip_counts`).
    pub(super) skipped: usize,
    pub(super) conflicts: usize,
}

impl Skips {
    /// Ready for a pair's search.
    pub(super) fn clear(&mut self, enabled: bool) {
        self.enabled = enabled;
        self.lone.clear();
        self.pending.clear();
        self.releases.clear();
        self.conflict = false;
    }

    /// Note a vertex group whose members all have the representative `representative` (after
    /// the merge, a group of that one contact).
    pub(super) fn lone(&mut self, representative: usize) {
        self.lone.push(representative);
    }

    /// The lone contact of a vertex group that implies an edge group whose edge–edge contact has
    /// the representative `representative`, if it is one.
    pub(super) fn implying(&self, representative: usize) -> Option<usize> {
        (self.enabled && self.lone.contains(&representative)).then_some(representative)
    }

    /// Skip the edge group of A's edge `ea` and B's edge `eb` crossing as `crossing`.
    pub(super) fn skip(&mut self, ea: usize, eb: usize, crossing: EdgeCrossing) {
        self.skipped += 1;
        self.pending.push((ea, eb, crossing));
    }

    /// Work out the releases of the skipped groups not worked out yet, with `releases` (A's
    /// edge, B's edge, their crossing, where to append): before a contact is pushed after them.
    pub(super) fn work_out(
        &mut self,
        mut releases: impl FnMut(usize, usize, &EdgeCrossing, &mut Vec<Contact>),
    ) {
        for (ea, eb, crossing) in self.pending.drain(..) {
            releases(ea, eb, &crossing, &mut self.releases);
        }
    }

    /// Note contact `c`, pushed now: a conflict when it is nearly equal to a release worked out.
    pub(super) fn check(&mut self, c: &Contact, tol: Tolerances) {
        if self.releases.iter().any(|r| nearly_equal(c, r, tol)) {
            self.conflict = true;
        }
    }
}
