//! What a pair's search computes from the two placements alone, kept for the pair's next search
//! at the same placements.
//!
//! PEG searches each pair at least twice a step at the same pose (`contact::peg::passes`: the
//! first pass at the free motion, then the probe of each pass's velocities ν⁺): only the motions
//! change, and with them the thresholds σ and ε_θ and the sweeps. [`PairPose`] keeps, per pair,
//! what depends on the placements (and on the fixed thresholds `parallel_sine` and
//! `merge_tolerance`) only:
//!
//! - per vertex of either polytope: its gaps to the other's face planes; per (vertex, face) that
//!   a search reached: whether the face is coplanar with one of the vertex's own (the vertex
//!   group's coplanar-face test), the vertex's distance to the face polygon, and eq. 30's
//!   applicability;
//! - per edge pair that a search reached: e_a × e_b's length against `parallel_sine`, eq. 31's
//!   oriented normal and applicability, the segments' closest points, and the lines' closest
//!   points p_a, p_b with their parameters and ψ.
//!
//! Each value is computed the first time a search of the pair needs it, by the same expression on
//! the same inputs as a fresh search, so the kept value is the fresh one bit for bit; every test
//! against σ, T, ε_θ or the motions is made again by each search. The kept values hold while the
//! two placements do (a placement gets a new stamp whenever it is made: `placed`) and the two
//! thresholds are the same bits; otherwise the generation moves on and every entry is unknown
//! again (entries carry the generation they were filled in, so nothing is cleared).
//! `tests/collision_potential.rs`, `a_second_search_at_the_same_pose_equals_a_fresh_one`.
use super::edge::{oriented_normal, WorldEdge};
use super::placed::Side;
use crate::collision::narrow::segment_closest_points;
use glam::DVec3;

/// The kept values of one pair (A, B).
#[derive(Clone, Debug, Default)]
pub(super) struct PairPose {
    /// What the kept values are for: the placements' stamps and the bits of `parallel_sine` and
    /// `merge_tolerance`.
    key: [u64; 4],
    /// Entries filled in another generation are unknown.
    generation: u64,
    /// A's vertices against B's faces, B's against A's.
    pub(super) vertices: [VertexPoses; 2],
    pub(super) edge_pairs: EdgePairPoses,
}

impl PairPose {
    /// Ready for a search of A and B with the fixed thresholds `parallel_sine` and
    /// `merge_tolerance`: the kept values stay when the placements and thresholds are those they
    /// were computed for.
    pub(super) fn prepare(&mut self, a: Side, b: Side, parallel_sine: f64, merge_tolerance: f64) {
        let key = [
            a.w.stamp,
            b.w.stamp,
            parallel_sine.to_bits(),
            merge_tolerance.to_bits(),
        ];
        if key == self.key && self.generation != 0 {
            return;
        }
        self.key = key;
        self.generation += 1;
        let generation = self.generation;
        let (na, nb) = (a.p.faces.len(), b.p.faces.len());
        self.vertices[0].prepare(generation, a.p.vertices.len(), nb);
        self.vertices[1].prepare(generation, b.p.vertices.len(), na);
        self.edge_pairs
            .prepare(generation, a.p.edges.len(), b.p.edges.len());
    }
}

/// The kept values of the vertices of X against the faces of Y.
#[derive(Clone, Debug, Default)]
pub(super) struct VertexPoses {
    generation: u64,
    faces_y: usize,
    /// Per vertex of X: the generation its row was filled in.
    filled: Vec<u64>,
    /// Per vertex of X, a row of Y's faces.
    rows: Vec<VertexFace>,
}

/// A vertex of X against a face of Y.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct VertexFace {
    /// The vertex's gap to the face plane, η·v − o (m).
    pub(super) gap: f64,
    /// The coplanar-face test (`vertex_groups`), once made.
    pub(super) coplanar: Option<bool>,
    /// The vertex's distance to the face polygon (m), once computed.
    pub(super) polygon_distance: Option<f64>,
    /// Eq. 30's applicability of the vertex against the face's normal, once computed.
    pub(super) applicability: Option<f64>,
}

impl VertexPoses {
    fn prepare(&mut self, generation: u64, vertices_x: usize, faces_y: usize) {
        self.generation = generation;
        self.faces_y = faces_y;
        self.filled.resize(vertices_x, 0);
        self.rows.resize(vertices_x * faces_y, VertexFace::default());
    }

    /// The row of vertex `v` (world point `p`) of X against Y's faces, its gaps filled now if
    /// they were not in this generation.
    pub(super) fn row(&mut self, y: Side, v: usize, p: DVec3) -> &mut [VertexFace] {
        let k = self.faces_y;
        let row = &mut self.rows[v * k..(v + 1) * k];
        if self.filled[v] != self.generation {
            self.filled[v] = self.generation;
            for (f, entry) in row.iter_mut().enumerate() {
                *entry = VertexFace {
                    gap: y.w.normals[f].dot(p) - y.w.offsets[f],
                    ..VertexFace::default()
                };
            }
        }
        row
    }
}

/// The kept values of A's edges against B's.
#[derive(Clone, Debug, Default)]
pub(super) struct EdgePairPoses {
    generation: u64,
    edges_b: usize,
    pairs: Vec<EdgePair>,
}

/// An edge pair's values that depend on the placements only (`edge::edge_crossing`).
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct EdgePair {
    /// The generation the entry was filled in.
    generation: u64,
    /// Eq. 31's A → B normal and its applicability; None for parallel edges.
    oriented: Option<(DVec3, f64)>,
    closest: Option<Closest>,
}

/// Where the segments and the lines of an edge pair come closest.
#[derive(Clone, Copy, Debug)]
pub(super) struct Closest {
    /// The closest points of the segments, on A's edge and on B's.
    pub(super) segments: (DVec3, DVec3),
    /// The closest points of the lines; None for parallel lines.
    pub(super) lines: Option<Lines>,
}

/// The closest points of two edges' lines: p_a = a0 + s (a1 − a0), p_b = b0 + t (b1 − b0), and
/// ψ = n·(p_b − p_a) along the oriented normal n.
#[derive(Clone, Copy, Debug)]
pub(super) struct Lines {
    pub(super) s: f64,
    pub(super) t: f64,
    pub(super) pa: DVec3,
    pub(super) pb: DVec3,
    pub(super) gap: f64,
}

impl EdgePairPoses {
    fn prepare(&mut self, generation: u64, edges_a: usize, edges_b: usize) {
        self.generation = generation;
        self.edges_b = edges_b;
        self.pairs.resize(edges_a * edges_b, EdgePair::default());
    }

    /// The entry of A's edge `ea` and B's edge `eb`, its normal filled now if it was not in this
    /// generation: edges with |e_a × e_b| < `parallel_sine` |e_a| |e_b| are parallel.
    pub(super) fn pair(
        &mut self,
        ea: &WorldEdge,
        eb: &WorldEdge,
        parallel_sine: f64,
    ) -> &mut EdgePair {
        let entry = &mut self.pairs[ea.index * self.edges_b + eb.index];
        if entry.generation != self.generation {
            let cross = ea.dir.cross(eb.dir);
            *entry = EdgePair {
                generation: self.generation,
                oriented: if cross.length() < parallel_sine * ea.len * eb.len {
                    None
                } else {
                    Some(oriented_normal(cross, ea, eb))
                },
                closest: None,
            };
        }
        entry
    }
}

impl EdgePair {
    /// Eq. 31's oriented normal and applicability; None for parallel edges.
    pub(super) fn oriented(&self) -> Option<(DVec3, f64)> {
        self.oriented
    }

    /// The closest points of the segments and lines of the (non-parallel) pair `ea`, `eb`
    /// oriented by `n`.
    pub(super) fn closest(&mut self, ea: &WorldEdge, eb: &WorldEdge, n: DVec3) -> Closest {
        *self.closest.get_or_insert_with(|| {
            let (a0, a1, b0, b1) = (ea.p0, ea.p1, eb.p0, eb.p1);
            Closest {
                segments: segment_closest_points(a0, a1, b0, b1),
                lines: super::edge::line_params(a0, a1, b0, b1).map(|(s, t)| {
                    let pa = a0 + s * ea.dir;
                    let pb = b0 + t * eb.dir;
                    Lines {
                        s,
                        t,
                        pa,
                        pb,
                        gap: n.dot(pb - pa),
                    }
                }),
            }
        })
    }
}
