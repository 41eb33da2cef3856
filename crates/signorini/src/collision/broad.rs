//! Broad phase: sweep and prune over the pieces' bounding boxes.
//!
//! Boxes are sorted along the axis where their centres spread most, then swept once with a list of
//! the boxes still open: O(n log n + k) for n pieces and k overlapping pairs, so it scales to
//! thousands of bodies. Half-spaces are unbounded and are paired with every bounded piece whose box
//! reaches them.
use crate::dynamics::{Model, State};
use crate::geometry::Shape;
use glam::DVec3;

use crate::dynamics::piece_pose;

/// A candidate pair of pieces: (body, piece) on each side, with `a.0 < b.0`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct PiecePair {
    pub a: (usize, usize),
    pub b: (usize, usize),
}

#[derive(Clone, Copy, Debug)]
struct Entry {
    min: DVec3,
    max: DVec3,
    body: usize,
    piece: usize,
}

/// Reusable broad-phase scratch memory.
#[derive(Default, Debug, Clone)]
pub struct BroadPhase {
    entries: Vec<Entry>,
    half_spaces: Vec<(usize, usize, DVec3, f64)>,
    order: Vec<usize>,
    active: Vec<usize>,
}

impl BroadPhase {
    /// Every pair of pieces of different bodies, not both fixed, whose boxes grown by `margin`
    /// (m) overlap; sorted, without duplicates. Bodies not yet released (`Body::held`) take part
    /// in no pair.
    pub fn find_pairs(
        &mut self,
        model: &Model,
        state: &State,
        margin: f64,
        out: &mut Vec<PiecePair>,
    ) {
        out.clear();
        self.entries.clear();
        self.half_spaces.clear();
        for (b, body) in model.bodies.iter().enumerate() {
            if body.held(state.time) {
                continue;
            }
            for (p, piece) in body.pieces.iter().enumerate() {
                let pose = piece_pose(model, state, b, p);
                match &piece.shape {
                    Shape::HalfSpace { normal } => {
                        let n = pose.transform_vector(*normal);
                        self.half_spaces.push((b, p, n, n.dot(pose.translation)));
                    }
                    Shape::Sphere { radius } => {
                        let r = DVec3::splat(radius + margin);
                        self.entries.push(Entry {
                            min: pose.translation - r,
                            max: pose.translation + r,
                            body: b,
                            piece: p,
                        });
                    }
                    Shape::Polytope(poly) => {
                        let (mut lo, mut hi) =
                            (DVec3::splat(f64::INFINITY), DVec3::splat(f64::NEG_INFINITY));
                        for v in &poly.vertices {
                            let w = pose.transform_point(*v);
                            lo = lo.min(w);
                            hi = hi.max(w);
                        }
                        let m = DVec3::splat(margin);
                        self.entries.push(Entry {
                            min: lo - m,
                            max: hi + m,
                            body: b,
                            piece: p,
                        });
                    }
                }
            }
        }
        let axis = self.sweep_axis();
        self.order.clear();
        self.order.extend(0..self.entries.len());
        let entries = &self.entries;
        self.order.sort_unstable_by(|&i, &j| {
            entries[i].min[axis]
                .total_cmp(&entries[j].min[axis])
                .then(i.cmp(&j))
        });
        self.active.clear();
        for &i in &self.order {
            let e = entries[i];
            self.active.retain(|&j| entries[j].max[axis] >= e.min[axis]);
            for &j in &self.active {
                let o = entries[j];
                if o.body == e.body || (model.bodies[o.body].fixed && model.bodies[e.body].fixed) {
                    continue;
                }
                if (0..3).all(|k| o.min[k] <= e.max[k] && e.min[k] <= o.max[k]) {
                    out.push(ordered((o.body, o.piece), (e.body, e.piece)));
                }
            }
            self.active.push(i);
        }
        for &(hb, hp, n, offset) in &self.half_spaces {
            for e in entries {
                if e.body == hb || (model.bodies[e.body].fixed && model.bodies[hb].fixed) {
                    continue;
                }
                // Lowest corner of the box along the normal.
                let low = DVec3::new(
                    if n.x >= 0.0 { e.min.x } else { e.max.x },
                    if n.y >= 0.0 { e.min.y } else { e.max.y },
                    if n.z >= 0.0 { e.min.z } else { e.max.z },
                );
                if n.dot(low) - offset <= margin {
                    out.push(ordered((hb, hp), (e.body, e.piece)));
                }
            }
        }
        out.sort_unstable();
        out.dedup();
    }

    fn sweep_axis(&self) -> usize {
        let n = self.entries.len().max(1) as f64;
        let mean = self.entries.iter().map(|e| e.min + e.max).sum::<DVec3>() / n;
        let var = self
            .entries
            .iter()
            .map(|e| ((e.min + e.max) - mean).powf(2.0))
            .sum::<DVec3>();
        if var.x >= var.y && var.x >= var.z {
            0
        } else if var.y >= var.z {
            1
        } else {
            2
        }
    }
}

fn ordered(x: (usize, usize), y: (usize, usize)) -> PiecePair {
    if x <= y {
        PiecePair { a: x, b: y }
    } else {
        PiecePair { a: y, b: x }
    }
}
