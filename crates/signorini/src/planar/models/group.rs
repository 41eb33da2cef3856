//! The group-of-constraints activation of the planar time-stepping models
//! (`activation = "group"`; Binh Nguyen & Jeff Trinkle, "Non-penetration modeling error in
//! physical simulation time-steppers: a more accurate and robust method", RPI slides, 29 May
//! 2008, "The algorithm"; text in `/work/shared/papers/nguyen-trinkle-nonpenetration-modeling-
//! error.txt`).
//!
//! # What the slides say
//!
//! A *group of constraints* belongs to a pair of objects and "contains all possible constraints
//! between them to make sure that there is no penetration"; how to choose it depends on the
//! situation. Each step:
//!
//! 1. (exploratory) formulate the complete system with every possible constraint, solve it, and
//!    determine which constraint is actually active in each group (the one whose distance is 0);
//! 2. if there is no active constraint, go to 4;
//! 3. reformulate with the correct active constraint found in 1 and solve;
//! 4. update, go to 1.
//!
//! # What is built here
//!
//! ```text
//!   pairs  ← disk–segment and disk–polygon pairs with a member's ψ < d (bounding boxes
//!            grown by d first), d the anticipating (type 2) activation distance; and the
//!            other pairs the narrow phase reports within d
//!   for each pair: members ← its group (below); start ← the member of the pair's closest
//!            feature at the start of the step
//!   ν* ← solve the LCP with every member of every group          (step 1, exploratory)
//!   active ← members with impulse > 0 or linearized end gap h w ≤ ACTIVE_GAP
//!   if active = ∅: ν⁺ ← ν*                                       (step 2: ν* is the free motion)
//!   else:                                                        (step 3)
//!     q* ← q + h ν*  (the exploratory end pose)
//!     for each group: chosen ← the member of the pair's closest feature at q*
//!                     (start's member when that feature is not a member)
//!                     linearized at q (start) if chosen = start, else at q*
//!     ν⁺ ← solve the LCP with the chosen members only
//!   q⁺ ← q + h ν⁺                                                (step 4, `step.rs`)
//! ```
//!
//! **Groups.** Disk against segment: the line of the segment on the side the disk's centre is
//! on (ψ = m·(c − a) − r, m that side's unit normal: the infinite line) and both end points
//! (ψ = |c − e| − r, normal from the end to the centre): three members, with no decision of
//! which feature is the closest — the slides' "remove the need for a sophisticated collision
//! detection". Disk against a convex polygon: the line of every edge whose outward normal faces
//! the centre, and every vertex (a centre inside the polygon: the narrow phase's contact alone).
//! Every other pair (disk–line, disk–disk: one possible constraint; polygon pairs, below): its
//! narrow-phase contacts, all kept, so for those the method is type 2 activation.
//!
//! **Rule for "the correct active constraint".** The slides name the active constraint as the
//! one with distance 0 after the exploratory solve, but with every member present an infinite
//! line can be the one at distance 0 while the disk is past the segment's end (the slides' own
//! modelling error: the line wrongly catches the disk). So "correct" here is "the member whose
//! feature is the pair's closest at the exploratory end pose q*" (found by the exact narrow phase
//! at q*, `collision::shape_pair` with an unbounded margin): a line whose foot point is past the
//! segment's end is never correct; the end point is. Every group's correct member enters step 3,
//! also for groups with no active member in step 1 (it is inactive there unless step 3's motion,
//! freed of a wrong constraint, reaches it: without it such a disk could pass into the pair
//! unopposed in that step).
//!
//! **Linearization of the chosen member.** A member whose feature is also the closest at the
//! start keeps its start-of-step linearization (exact at rest: the resting tests hold to
//! rounding). One whose feature changed during the step (a disk sliding over a segment's end:
//! edge at the start, end point at q*) is linearized at q*: ψ* + h G*(ν⁺ − ν*) ≥ 0, ψ*, G* the
//! gap and row at q*. Linearized at the start, an end point the disk is still approaching from
//! above the edge has a normal tilted backwards: for a disk at contact height, its centre δ
//! behind the end, moving at v along the table, that row asks an upward and backward velocity of
//! about v δ/r + g h − δ²/(2 r h) (an estimate, not measured: the build has no switch for the
//! start linearization of a changed feature). For the member at q* the position
//! term is ψ*/h (bounded by `max_recovery_speed` if ψ* < 0) for both formulations: the gap at the
//! linearization point is part of the linearization, not a stabilization term.
//!
//! # Departures and limits
//!
//! - One exploratory solve and one re-solve per step, as the slides; the re-solve's end pose is
//!   not checked again (a feature change during step 3's motion is caught the next step).
//! - Polygon pairs keep the narrow phase's vertex–edge contacts (not candidate features): their
//!   features are what `collision::polygon_polygon` clips, and choosing among a polygon pair's
//!   vertex–edge candidates is PEG's business (`peg.rs`). Not done.
//! - `activation = "exploratory"` stops after step 1 (every member, no re-solve): the infinite-
//!   line model, kept for the experiment `nguyen-trinkle-2d` to show the error step 3 removes.
use super::super::body::{PlanarModel, PlanarState};
use super::super::collision::{near_pairs, segment_normals, shape_pair, Contact2, Feature2, Placed};
use super::rows::Row;
use glam::DVec2;

/// A member whose LCP row predicts an end gap h w (m) at most this is active in step 1 (the
/// slides' "distance value equals zero"), as is every member with a positive impulse.
pub const ACTIVE_GAP: f64 = 1e-9;

/// A constraint as it enters an LCP: the contact (points, normal, gap ψ at its linearization
/// point) and the shift of its position term.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Linearized {
    /// Points expressed at the start of the step (a member linearized at q* has its arms at q*
    /// moved back with its bodies), ψ at the linearization point.
    pub contact: Contact2,
    /// −G* ν* (m/s) for a member linearized at the exploratory end pose; 0 at the start.
    pub shift: f64,
    /// Linearized at the exploratory end pose q*.
    pub at_end: bool,
}

impl Linearized {
    pub fn at_start(contact: Contact2) -> Self {
        Linearized {
            contact,
            shift: 0.0,
            at_end: false,
        }
    }
}

/// The group of constraints of one body pair.
#[derive(Clone, Debug, PartialEq)]
pub struct Group {
    /// The bodies (i, j), i < j, as `collision::detect` orders them (A = i, B = j).
    pub pair: (usize, usize),
    /// Every possible constraint of the pair (disk against segment or polygon), or the narrow
    /// phase's contacts (other pairs).
    pub members: Vec<Contact2>,
    /// The members are candidates to choose among; false: all kept.
    pub choose: bool,
    /// The member of the pair's closest feature at the start of the step.
    pub start: usize,
}

/// What the group activation did in one step.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GroupStats {
    /// Groups (body pairs within the activation distance).
    pub groups: usize,
    /// Members in the exploratory LCP.
    pub members: usize,
    /// Members active in the exploratory solve.
    pub active: usize,
    /// Active members that were not the correct one of their group (wrongly active: dropped).
    pub dropped: usize,
    /// Groups whose correct member differs from the start's closest feature.
    pub switched: usize,
    /// Step 3 ran (some member was active).
    pub resolved: bool,
}

/// The placed shape of body `i` in `state`.
fn placed(model: &PlanarModel, state: &PlanarState, i: usize) -> Placed {
    Placed::new(&model.bodies[i].shape, &state.bodies[i].pose())
}

/// The disk–line-of-an-edge member: ψ = m·(c − p₀) − r, `m` the line's unit normal facing the
/// centre, normal (disk → line) −m.
fn line_member(c: DVec2, r: f64, m: DVec2, p0: DVec2, feature: Feature2) -> Contact2 {
    let s = m.dot(c - p0);
    Contact2 {
        body_a: 0,
        body_b: 0,
        point_a: c - r * m,
        point_b: c - s * m,
        normal: -m,
        gap: s - r,
        feature_a: Feature2::Surface,
        feature_b: feature,
    }
}

/// The disk–point member: ψ = |c − q| − r along (c − q)/|c − q| (`fallback` when c = q).
fn point_member(c: DVec2, r: f64, q: DVec2, feature: Feature2, fallback: DVec2) -> Contact2 {
    let d = c - q;
    let dist = d.length();
    let m = if dist > 0.0 { d / dist } else { fallback };
    Contact2 {
        body_a: 0,
        body_b: 0,
        point_a: c - r * m,
        point_b: q,
        normal: -m,
        gap: dist - r,
        feature_a: Feature2::Surface,
        feature_b: feature,
    }
}

/// Every possible constraint of disk A against shape B (module documentation, "Groups"), A and
/// B as given (members of a swapped pair come flipped); None when the pair has no candidate
/// features (disk–line, disk–disk, polygon pairs, a centre inside a polygon).
pub fn candidates(a: &Placed, b: &Placed) -> Option<Vec<Contact2>> {
    match (a, b) {
        (Placed::Disk { center: c, radius: r }, Placed::Segment { a: s0, b: s1 }) => {
            let normals = segment_normals(*s0, *s1);
            // The side rule of `collision::disk_segment`.
            let side = if normals[0].dot(*c - *s0) >= 0.0 { 0 } else { 1 };
            let m = normals[side];
            Some(vec![
                line_member(*c, *r, m, *s0, Feature2::Edge(side as u32)),
                point_member(*c, *r, *s0, Feature2::Vertex(0), m),
                point_member(*c, *r, *s1, Feature2::Vertex(1), m),
            ])
        }
        (Placed::Disk { center: c, radius: r }, Placed::Polygon { vertices, normals }) => {
            let facing: Vec<usize> = (0..vertices.len())
                .filter(|&i| normals[i].dot(*c - vertices[i]) > 0.0)
                .collect();
            if facing.is_empty() {
                return None;
            }
            let mut out: Vec<Contact2> = facing
                .iter()
                .map(|&i| line_member(*c, *r, normals[i], vertices[i], Feature2::Edge(i as u32)))
                .collect();
            out.extend(vertices.iter().enumerate().map(|(i, v)| {
                point_member(*c, *r, *v, Feature2::Vertex(i as u32), normals[i])
            }));
            Some(out)
        }
        (Placed::Segment { .. } | Placed::Polygon { .. }, Placed::Disk { .. }) => {
            candidates(b, a).map(|v| v.into_iter().map(Contact2::flipped).collect())
        }
        _ => None,
    }
}

/// The features (A's, B's) of the pair's closest contact, by the exact narrow phase with no
/// distance limit.
fn closest_features(a: &Placed, b: &Placed) -> Option<(Feature2, Feature2)> {
    let mut out = Vec::new();
    shape_pair(a, b, f64::INFINITY, &mut out);
    out.first().map(|c| (c.feature_a, c.feature_b))
}

fn features(c: &Contact2) -> (Feature2, Feature2) {
    (c.feature_a, c.feature_b)
}

/// The groups of a step: every pair of a disk and a segment or polygon whose bounding boxes,
/// grown by `margin`, overlap and of which some possible constraint has ψ < `margin` (a choice
/// group: the narrow phase does not decide which feature is the closest, so a group forms as soon
/// as any member, an infinite line included, comes within the activation distance); then, for
/// every other pair of `contacts` (the narrow phase's within the activation distance), a group of
/// its contacts, all kept.
pub fn groups(
    model: &PlanarModel,
    state: &PlanarState,
    contacts: &[&Contact2],
    margin: f64,
) -> Vec<Group> {
    let placed: Vec<Placed> = (0..model.bodies.len())
        .map(|i| placed(model, state, i))
        .collect();
    let mut out: Vec<Group> = Vec::new();
    for (i, j) in near_pairs(model, &placed, margin) {
        let Some(members) = candidates(&placed[i], &placed[j]) else {
            continue;
        };
        if !members.iter().any(|m| m.gap < margin) {
            continue;
        }
        let Some(start) = closest_features(&placed[i], &placed[j])
            .and_then(|f| members.iter().position(|m| features(m) == f))
        else {
            continue;
        };
        out.push(Group {
            pair: (i, j),
            members: members
                .into_iter()
                .map(|m| Contact2 {
                    body_a: i,
                    body_b: j,
                    ..m
                })
                .collect(),
            choose: true,
            start,
        });
    }
    for c in contacts {
        let pair = (c.body_a, c.body_b);
        match out.iter_mut().find(|g| g.pair == pair) {
            Some(g) if !g.choose => g.members.push(**c),
            Some(_) => {}
            None => out.push(Group {
                pair,
                members: vec![**c],
                choose: false,
                start: 0,
            }),
        }
    }
    out
}

/// `state` advanced by h ν (positions and angles of the dynamic bodies; velocities unchanged).
pub fn advanced(model: &PlanarModel, state: &PlanarState, nu: &[f64], h: f64) -> PlanarState {
    let mut end = state.clone();
    for (s, o) in end.bodies.iter_mut().zip(model.dof_offsets()) {
        if let Some(o) = o {
            s.position += h * DVec2::new(nu[o], nu[o + 1]);
            s.angle += h * nu[o + 2];
        }
    }
    end
}

/// Step 3's constraints (module documentation): per group its correct member, linearized at the
/// start or at the exploratory end pose `end` (reached with velocity `nu_star`); with the number
/// of groups whose correct member is not the start's.
pub fn correct_members(
    model: &PlanarModel,
    state: &PlanarState,
    end: &PlanarState,
    groups: &[Group],
    nu_star: &[f64],
) -> (Vec<Linearized>, usize) {
    let dofs = model.dof_offsets();
    let mut out = Vec::new();
    let mut switched = 0;
    for g in groups {
        if !g.choose {
            out.extend(g.members.iter().copied().map(Linearized::at_start));
            continue;
        }
        let (pa, pb) = (placed(model, end, g.pair.0), placed(model, end, g.pair.1));
        let at_end = closest_features(&pa, &pb).and_then(|f| {
            let k = g.members.iter().position(|m| features(m) == f)?;
            Some((k, candidates(&pa, &pb)?.into_iter().find(|m| features(m) == f)?))
        });
        match at_end {
            Some((k, member)) if k != g.start => {
                switched += 1;
                let member = Contact2 {
                    body_a: g.pair.0,
                    body_b: g.pair.1,
                    ..member
                };
                out.push(moved_back(state, end, &dofs, member, nu_star));
            }
            _ => out.push(Linearized::at_start(g.members[g.start])),
        }
    }
    (out, switched)
}

/// A member found at the end pose `end`, its points moved back with their bodies to `state`
/// (same arms), and the shift −G* ν* of its linearization about `end`.
fn moved_back(
    state: &PlanarState,
    end: &PlanarState,
    dofs: &[Option<usize>],
    member: Contact2,
    nu_star: &[f64],
) -> Linearized {
    let back = |body: usize, p: DVec2| state.bodies[body].position + (p - end.bodies[body].position);
    let contact = Contact2 {
        point_a: back(member.body_a, member.point_a),
        point_b: back(member.body_b, member.point_b),
        ..member
    };
    let row = Row::of(state, dofs, &contact, contact.normal);
    Linearized {
        contact,
        shift: -row.dot(nu_star),
        at_end: true,
    }
}
