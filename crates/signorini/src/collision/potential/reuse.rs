//! A pair's search kept for the next steps while neither its placement nor its thresholds move
//! (issue 15 item 4: "cached across steps where the pose barely changed").
//!
//! A search's output is a function of the pair's relative placement, its motions over the horizon
//! and its thresholds. Between two steps of a resting pile the placements change by round-off
//! (1e-16 m a step on the 10-box stack) and the sweeps are nil, yet each search redoes the whole
//! enumeration (about 14 µs for two boxes). When B's placement in A's frame has moved by at most
//! `tolerance` (m, and `tolerance` rad) since the pair's last full search, both searches swept
//! less than `tolerance` and the thresholds are the same (σ within `tolerance`), that search's
//! feature pairs and groups are taken again, each contact carried with its bodies:
//!
//! ```text
//!   T = (A⁻¹ B)_now (A⁻¹ B)_then⁻¹          B's motion in A's frame since the search
//!   p_A  kept (in A's frame), p_B ← T p_B
//!   n ← n (a face or edge of A defines it) | T n (a face or edge of B)
//!   ψ ← ψ + n'·(p_B' − p_A) − n·(p_B − p_A)
//! ```
//!
//! Exact for vertex–face pairs (the face's plane moves with its body), second order in T's angle
//! for edge–edge pairs (n ∝ e_A × e_B is carried with A; n ∥ p_B − p_A), first order for
//! releases (m ∝ (e_A × e_B) × e turns with the other body's edge: ρ off by up to T's angle
//! times |p_B − p_A|, below `tolerance` × 1 m for pieces under a metre).
//!
//! A feature pair that crossed the threshold σ within `tolerance` since the search keeps its
//! membership from then. Off unless asked for (`Scratch::reuse_within`): the tests of the search
//! compare fresh searches.
use super::{Group, PotentialParams, PotentialSet};
use crate::collision::Contact;
use crate::geometry::{Feature, Polytope, Pose};

/// One pair's last full search, in A's piece frame.
#[derive(Clone, Debug, Default)]
pub(super) struct Kept {
    /// B's piece pose in A's piece frame at the search.
    relative: Pose,
    params: Option<PotentialParams>,
    /// The contacts, points and normals in A's frame.
    contacts: Vec<Contact>,
    /// Does B define the contact's normal (a face of B, or a release along B's edge)?
    normal_of_b: Vec<bool>,
    applicability: Vec<f64>,
    /// Member and candidate indices into `contacts`.
    groups: Vec<Group>,
}

/// Does B's feature define the normal of `c` (module doc)?
fn normal_of_b(c: &Contact) -> bool {
    matches!(
        (c.feature_a, c.feature_b),
        (Feature::Vertex(_), Feature::Face(_)) | (Feature::Vertex(_), Feature::Edge(_))
    )
}

/// The angle (rad) of a unit quaternion's rotation, for small angles.
fn small_angle(p: &Pose) -> f64 {
    2.0 * p.rotation.xyz().length()
}

impl Kept {
    /// Keep the search whose output is `out`'s contacts from `first_contact` and groups from
    /// `first_group`, made with `params` at A's piece pose `pose_a` and B's `pose_b`.
    pub(super) fn keep(
        &mut self,
        (pose_a, pose_b): (&Pose, &Pose),
        params: &PotentialParams,
        out: &PotentialSet,
        (first_contact, first_group): (usize, usize),
    ) {
        self.relative = pose_a.inverse().mul(pose_b);
        self.params = Some(*params);
        self.contacts.clear();
        self.normal_of_b.clear();
        for c in &out.contacts[first_contact..] {
            self.normal_of_b.push(normal_of_b(c));
            self.contacts.push(Contact {
                point_a: pose_a.inverse_transform_point(c.point_a),
                point_b: pose_a.inverse_transform_point(c.point_b),
                normal: pose_a.inverse_transform_vector(c.normal),
                ..*c
            });
        }
        self.applicability.clear();
        self.applicability
            .extend_from_slice(&out.applicability[first_contact..]);
        self.groups.clear();
        self.groups
            .extend(out.groups[first_group..].iter().map(|g| {
                let local = |list: &[usize]| list.iter().map(|&i| i - first_contact).collect();
                Group {
                    members: local(&g.members),
                    candidates: local(&g.candidates),
                    ..g.clone()
                }
            }));
    }

    /// If the pair at A's piece pose `pose_a` and B's `pose_b` under `params` is within
    /// `tolerance` of the kept search (module doc), append its contacts, carried, and its groups
    /// (their lists from `spare` where it has some) to `out` and return true.
    pub(super) fn reuse(
        &self,
        (pose_a, pose_b): (&Pose, &Pose),
        params: &PotentialParams,
        tolerance: f64,
        spare: &mut Vec<Vec<usize>>,
        out: &mut PotentialSet,
    ) -> bool {
        let Some(kept) = &self.params else {
            return false;
        };
        let same_thresholds = (kept.distance - params.distance).abs() <= tolerance
            && (kept.applicability - params.applicability).abs() <= tolerance
            && kept.horizon == params.horizon
            && kept.parallel_sine == params.parallel_sine
            && kept.merge_tolerance == params.merge_tolerance;
        let moved = pose_a.inverse().mul(pose_b).mul(&self.relative.inverse());
        if !(same_thresholds
            && moved.translation.length() <= tolerance
            && small_angle(&moved) <= tolerance)
        {
            return false;
        }
        let first = out.contacts.len();
        for (c, &of_b) in self.contacts.iter().zip(&self.normal_of_b) {
            let point_b = moved.transform_point(c.point_b);
            let normal = if of_b {
                moved.transform_vector(c.normal)
            } else {
                c.normal
            };
            let gap = c.gap + normal.dot(point_b - c.point_a) - c.normal.dot(c.point_b - c.point_a);
            out.contacts.push(Contact {
                point_a: pose_a.transform_point(c.point_a),
                point_b: pose_a.transform_point(point_b),
                normal: pose_a.transform_vector(normal),
                gap,
                ..*c
            });
        }
        out.applicability.extend_from_slice(&self.applicability);
        for g in &self.groups {
            let mut global = |list: &[usize]| {
                let mut v = spare.pop().unwrap_or_default();
                v.extend(list.iter().map(|&i| i + first));
                v
            };
            out.groups.push(Group {
                configuration: g.configuration,
                key: g.key,
                members: global(&g.members),
                candidates: global(&g.candidates),
                from_edges: g.from_edges,
            });
        }
        true
    }
}

/// The largest distance (m) a point of either polytope sweeps relative to the other over the
/// horizon T of `params`: T (|v_B(c_B) − v_A(c_A)| + |ω_A| r_A + |ω_B| r_B), c the world
/// centroids, r the radii, each polytope at its piece pose with its body's motion.
pub(super) fn sweep(
    params: &PotentialParams,
    (a, pose_a, motion_a): (&Polytope, &Pose, &super::Motion),
    (b, pose_b, motion_b): (&Polytope, &Pose, &super::Motion),
) -> f64 {
    let (ca, cb) = (
        pose_a.transform_point(a.centroid),
        pose_b.transform_point(b.centroid),
    );
    params.horizon
        * ((motion_b.at(cb) - motion_a.at(ca)).length()
            + motion_a.angular_velocity.length() * a.radius
            + motion_b.angular_velocity.length() * b.radius)
}
