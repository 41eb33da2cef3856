//! Whether a spawned body starts inside another (`[[spawn]]`, `build.rs`): the narrow phase on
//! every pair of pieces within reach of each other, the bodies already placed found through a
//! hash grid so that a spawn of n bodies costs about n tests, not n².
use crate::collision;
use crate::dynamics::{Body, BodyState};
use crate::util::hash::FastMap;

/// The bodies placed so far: the bounded ones in a grid of cubic cells of side `size` (m) by
/// their centres of mass, the unbounded ones (a half-space piece) listed apart.
pub(super) struct Placed {
    size: f64,
    grid: FastMap<[i64; 3], Vec<usize>>,
    unbounded: Vec<usize>,
    bounded: usize,
    /// The largest bounding radius of a bounded body placed (m).
    largest: f64,
}

impl Placed {
    /// `bodies` (at `states`) placed, in a grid of cell side `size` (m, > 0).
    pub(super) fn new(size: f64, bodies: &[Body], states: &[BodyState]) -> Placed {
        let mut placed = Placed {
            size,
            grid: FastMap::default(),
            unbounded: Vec::new(),
            bounded: 0,
            largest: 0.0,
        };
        for (i, (b, s)) in bodies.iter().zip(states).enumerate() {
            placed.insert(i, b, s);
        }
        placed
    }

    fn cell(&self, p: glam::DVec3) -> [i64; 3] {
        (p / self.size).floor().to_array().map(|x| x as i64)
    }

    /// Body `index` placed at `state`.
    pub(super) fn insert(&mut self, index: usize, body: &Body, state: &BodyState) {
        let r = body.bounding_radius();
        if !r.is_finite() {
            self.unbounded.push(index);
            return;
        }
        self.largest = self.largest.max(r);
        self.bounded += 1;
        let key = self.cell(state.position);
        self.grid.entry(key).or_default().push(index);
    }

    /// The placed bodies that can reach `body` at `state`, in increasing index: every unbounded
    /// one and every bounded one whose centre is within the two bounding radii (a superset:
    /// the cells around it).
    fn candidates(&self, body: &Body, state: &BodyState) -> Vec<usize> {
        let reach = body.bounding_radius() + self.largest;
        let k = (reach / self.size).ceil();
        let mut out = self.unbounded.clone();
        if !reach.is_finite() || (2.0 * k + 1.0).powi(3) > self.bounded as f64 {
            out.extend(self.grid.values().flatten().copied());
        } else {
            let [x, y, z] = self.cell(state.position);
            let k = k as i64;
            for i in x - k..=x + k {
                for j in y - k..=y + k {
                    for l in z - k..=z + k {
                        if let Some(list) = self.grid.get(&[i, j, l]) {
                            out.extend_from_slice(list);
                        }
                    }
                }
            }
        }
        out.sort_unstable();
        out
    }

    /// The placed body that `body`, at `state`, overlaps the deepest, and by how much (m, the
    /// narrow phase's deepest negative gap over every pair of pieces); `None` when it overlaps
    /// none. Ties go to the lowest index.
    pub(super) fn deepest_overlap(
        &self,
        body: &Body,
        state: &BodyState,
        bodies: &[Body],
        states: &[BodyState],
    ) -> Option<(usize, f64)> {
        let pose = state.pose();
        let mut contacts = Vec::new();
        let mut deepest: Option<(usize, f64)> = None;
        for other in self.candidates(body, state) {
            let other_pose = states[other].pose();
            for piece in &body.pieces {
                let piece_pose = pose.mul(&piece.pose);
                for other_piece in &bodies[other].pieces {
                    let other_piece_pose = other_pose.mul(&other_piece.pose);
                    let reach = piece.shape.bounding_radius() + other_piece.shape.bounding_radius();
                    let apart = piece_pose
                        .translation
                        .distance(other_piece_pose.translation);
                    if apart > reach {
                        continue;
                    }
                    contacts.clear();
                    collision::narrow::pair_contacts(
                        &piece.shape,
                        &piece_pose,
                        &other_piece.shape,
                        &other_piece_pose,
                        0.0,
                        &mut contacts,
                    );
                    for c in &contacts {
                        if c.gap < 0.0 && deepest.is_none_or(|(_, d)| -c.gap > d) {
                            deepest = Some((other, -c.gap));
                        }
                    }
                }
            }
        }
        deepest
    }
}
