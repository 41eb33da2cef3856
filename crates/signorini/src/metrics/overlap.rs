//! Overlap volume of a state: the accuracy metric of the PEG paper (Williams, Lu & Trinkle,
//! section 6: the total volume of overlap of all pairs of bodies after every step).
use crate::dynamics::{Model, State};
use crate::geometry::{overlap, Pose};

/// Total overlap volume (m³) of the state: the sum of [`pair_overlaps`].
pub fn overlap_volume(model: &Model, state: &State) -> f64 {
    pair_overlaps(model, state).iter().map(|&(_, _, v)| v).sum()
}

/// Overlap volume (m³) of every pair of bodies (a < b) whose pieces overlap, in order of (a, b).
///
/// A pair's volume is the sum over every piece of body a and every piece of body b of the exact
/// overlap of the two convex pieces (`geometry::overlap::overlap_volume`); pieces of one compound
/// body are assumed not to overlap each other (they are never paired). Pairs of two fixed bodies
/// are skipped. Piece pairs whose bounding balls (`Shape::bounding_radius` about the piece frame)
/// are apart are skipped without computing; half-spaces are never pruned. O(n²) cheap ball tests
/// for n pieces plus the exact volumes of the candidates. A non-finite state gives NaN volumes
/// (reported, never dropped).
pub fn pair_overlaps(model: &Model, state: &State) -> Vec<(usize, usize, f64)> {
    // World pose and bounding radius of every piece of every body.
    let placed: Vec<Vec<(Pose, f64)>> = model
        .bodies
        .iter()
        .zip(&state.bodies)
        .map(|(body, s)| {
            let pose = s.pose();
            body.pieces
                .iter()
                .map(|p| (pose.mul(&p.pose), p.shape.bounding_radius()))
                .collect()
        })
        .collect();
    let mut out = Vec::new();
    for a in 0..model.bodies.len() {
        for b in a + 1..model.bodies.len() {
            if model.bodies[a].fixed && model.bodies[b].fixed {
                continue;
            }
            let mut volume = 0.0;
            for (pa, (pose_a, ra)) in model.bodies[a].pieces.iter().zip(&placed[a]) {
                for (pb, (pose_b, rb)) in model.bodies[b].pieces.iter().zip(&placed[b]) {
                    if pose_a.translation.distance(pose_b.translation) > ra + rb {
                        continue;
                    }
                    volume += overlap::overlap_volume(&pa.shape, pose_a, &pb.shape, pose_b);
                }
            }
            if volume != 0.0 {
                out.push((a, b, volume));
            }
        }
    }
    out
}
