//! Planar collision detection: a broad phase over bounding boxes, then one routine per pair of
//! shape kinds (one file each, with a banner comment per case), each returning contacts in the
//! project's convention: bodies A and B, world points `point_a` on A and `point_b` on B, the
//! unit normal from A towards B and the signed gap ψ = (p_b − p_a)·n (negative when
//! penetrating), with the features (vertex or edge ids, or `Surface` for disks and lines) that
//! produced each point — what PEG 2D's vertex–edge constraints will need.
//!
//! | pair | file | points |
//! |---|---|---|
//! | polygon–polygon | `polygon_polygon.rs` (SAT, reference/incident edge clipping) | ≤ 2 |
//! | polygon–segment | `polygon_segment.rs` (the segment as a two-sided polygon of 2 vertices) | ≤ 2 |
//! | polygon–line | `polygon_line.rs` (every vertex below the margin) | ≤ n |
//! | disk–disk | `disk_disk.rs` | ≤ 1 |
//! | disk–polygon | `disk_polygon.rs` (closest point of the boundary) | ≤ 1 |
//! | disk–segment | `disk_segment.rs` (closest point of the segment: its ends count) | ≤ 1 |
//! | disk–line | `disk_line.rs` | ≤ 1 |
//!
//! Segments and lines belong to fixed bodies only, so segment–segment, segment–line and
//! line–line pairs never meet (pairs of two fixed bodies are skipped).
mod disk_disk;
mod disk_line;
mod disk_polygon;
mod disk_segment;
mod polygon_line;
mod polygon_polygon;
mod polygon_segment;

pub use disk_disk::disk_disk;
pub use disk_line::disk_line;
pub use disk_polygon::disk_polygon;
pub use disk_segment::disk_segment;
pub use polygon_line::polygon_line;
pub use polygon_polygon::{polygon_polygon, PolyView};
pub use polygon_segment::polygon_segment;

use super::body::{PlanarModel, PlanarState, Pose2};
use super::shape::{outward_normal, PlanarShape};
use glam::DVec2;

/// The feature of a shape a contact point belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Feature2 {
    /// Vertex i of a polygon (segments: 0 = a, 1 = b).
    Vertex(u32),
    /// Edge i of a polygon, from vertex i to i + 1 (segments: 0 = the side of its normal
    /// (b − a) turned clockwise, 1 = the other side).
    Edge(u32),
    /// A disk's boundary or a line.
    Surface,
}

/// One contact point between bodies A and B (see the module documentation).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Contact2 {
    pub body_a: usize,
    pub body_b: usize,
    pub point_a: DVec2,
    pub point_b: DVec2,
    /// Unit, from A towards B.
    pub normal: DVec2,
    /// ψ = (p_b − p_a)·n, m.
    pub gap: f64,
    pub feature_a: Feature2,
    pub feature_b: Feature2,
}

impl Contact2 {
    /// The same contact seen from the other body (A and B swapped, the normal reversed).
    pub fn flipped(self) -> Self {
        Contact2 {
            body_a: self.body_b,
            body_b: self.body_a,
            point_a: self.point_b,
            point_b: self.point_a,
            normal: -self.normal,
            gap: self.gap,
            feature_a: self.feature_b,
            feature_b: self.feature_a,
        }
    }
}

/// A shape placed in the world.
#[derive(Clone, Debug, PartialEq)]
pub enum Placed {
    /// Vertices counter-clockwise and edge normals, world frame.
    Polygon {
        vertices: Vec<DVec2>,
        normals: Vec<DVec2>,
    },
    Disk {
        center: DVec2,
        radius: f64,
    },
    Segment {
        a: DVec2,
        b: DVec2,
    },
    /// The half-plane {p : normal·p ≤ offset}.
    Line {
        normal: DVec2,
        offset: f64,
    },
}

impl Placed {
    pub fn new(shape: &PlanarShape, pose: &Pose2) -> Self {
        match shape {
            PlanarShape::Polygon(p) => Placed::Polygon {
                vertices: p.vertices().iter().map(|v| pose.point(*v)).collect(),
                normals: p.normals().iter().map(|n| pose.vector(*n)).collect(),
            },
            PlanarShape::Disk { radius } => Placed::Disk {
                center: pose.position,
                radius: *radius,
            },
            PlanarShape::Segment { a, b } => Placed::Segment {
                a: pose.point(*a),
                b: pose.point(*b),
            },
            PlanarShape::Line { normal } => {
                let n = pose.vector(*normal);
                Placed::Line {
                    normal: n,
                    offset: n.dot(pose.position),
                }
            }
        }
    }

    /// Axis-aligned bounding box (min, max); a line's is the whole plane.
    pub fn aabb(&self) -> (DVec2, DVec2) {
        match self {
            Placed::Polygon { vertices, .. } => {
                let lo = vertices.iter().copied().fold(DVec2::INFINITY, DVec2::min);
                let hi = vertices
                    .iter()
                    .copied()
                    .fold(DVec2::NEG_INFINITY, DVec2::max);
                (lo, hi)
            }
            Placed::Disk { center, radius } => (*center - *radius, *center + *radius),
            Placed::Segment { a, b } => (a.min(*b), a.max(*b)),
            Placed::Line { .. } => (DVec2::NEG_INFINITY, DVec2::INFINITY),
        }
    }
}

/// The contacts between two placed shapes with ψ ≤ `margin`, A = `a`, B = `b` (body indices
/// are filled in by the caller). Pairs of shapes without area on both sides give none.
pub fn shape_pair(a: &Placed, b: &Placed, margin: f64, out: &mut Vec<Contact2>) {
    let start = out.len();
    let mut flip = false;
    match (a, b) {
        (
            Placed::Polygon {
                vertices: va,
                normals: na,
            },
            Placed::Polygon {
                vertices: vb,
                normals: nb,
            },
        ) => polygon_polygon(PolyView::new(va, na), PolyView::new(vb, nb), margin, out),
        (Placed::Polygon { vertices, normals }, Placed::Segment { a: s0, b: s1 }) => {
            polygon_segment(PolyView::new(vertices, normals), *s0, *s1, margin, out)
        }
        (Placed::Segment { .. }, Placed::Polygon { .. }) => {
            flip = true;
            shape_pair(b, a, margin, out)
        }
        (Placed::Polygon { vertices, .. }, Placed::Line { normal, offset }) => {
            polygon_line(vertices, *normal, *offset, margin, out)
        }
        (Placed::Line { .. }, Placed::Polygon { .. }) => {
            flip = true;
            shape_pair(b, a, margin, out)
        }
        (
            Placed::Disk {
                center: ca,
                radius: ra,
            },
            Placed::Disk {
                center: cb,
                radius: rb,
            },
        ) => out.extend(disk_disk(*ca, *ra, *cb, *rb, margin)),
        (Placed::Disk { center, radius }, Placed::Polygon { vertices, normals }) => out.extend(
            disk_polygon(*center, *radius, PolyView::new(vertices, normals), margin),
        ),
        (Placed::Polygon { .. }, Placed::Disk { .. }) => {
            flip = true;
            shape_pair(b, a, margin, out)
        }
        (Placed::Disk { center, radius }, Placed::Segment { a: s0, b: s1 }) => {
            out.extend(disk_segment(*center, *radius, *s0, *s1, margin))
        }
        (Placed::Segment { .. }, Placed::Disk { .. }) => {
            flip = true;
            shape_pair(b, a, margin, out)
        }
        (Placed::Disk { center, radius }, Placed::Line { normal, offset }) => {
            out.extend(disk_line(*center, *radius, *normal, *offset, margin))
        }
        (Placed::Line { .. }, Placed::Disk { .. }) => {
            flip = true;
            shape_pair(b, a, margin, out)
        }
        // Shapes without area on both sides: fixed bodies only, never paired.
        (
            Placed::Segment { .. } | Placed::Line { .. },
            Placed::Segment { .. } | Placed::Line { .. },
        ) => {}
    }
    if flip {
        for c in &mut out[start..] {
            *c = c.flipped();
        }
    }
}

/// The segment from `a` to `b` as a polygon of two vertices and two edges (a→b with its
/// clockwise normal, b→a with the opposite one): what polygon–segment clips against.
pub fn segment_normals(a: DVec2, b: DVec2) -> [DVec2; 2] {
    let n = outward_normal(a, b);
    [n, -n]
}

/// Every contact of the state with ψ ≤ `margin`, in the order of the pairs (i, j), i < j, and
/// within a pair in the order the routine gives them. Broad phase: bounding boxes grown by the
/// margin, tested over all pairs (O(n²) box tests, a few ns each: ample for the planar scenes
/// of issue 17; a sweep would replace it for thousands of bodies). Pairs of two fixed bodies
/// are skipped.
pub fn detect(model: &PlanarModel, state: &PlanarState, margin: f64) -> Vec<Contact2> {
    let placed: Vec<Placed> = model
        .bodies
        .iter()
        .zip(&state.bodies)
        .map(|(b, s)| Placed::new(&b.shape, &s.pose()))
        .collect();
    let mut out = Vec::new();
    for (i, j) in near_pairs(model, &placed, margin) {
        let start = out.len();
        shape_pair(&placed[i], &placed[j], margin, &mut out);
        for c in &mut out[start..] {
            c.body_a = i;
            c.body_b = j;
        }
    }
    out
}

/// The broad phase: the pairs (i, j), i < j, not both fixed, whose bounding boxes grown by
/// `margin` (m) overlap, in order.
pub fn near_pairs(model: &PlanarModel, placed: &[Placed], margin: f64) -> Vec<(usize, usize)> {
    let boxes: Vec<(DVec2, DVec2)> = placed.iter().map(|p| p.aabb()).collect();
    let mut pairs = Vec::new();
    for i in 0..placed.len() {
        for j in i + 1..placed.len() {
            if model.bodies[i].fixed && model.bodies[j].fixed {
                continue;
            }
            let ((lo_i, hi_i), (lo_j, hi_j)) = (boxes[i], boxes[j]);
            let apart = lo_i.x > hi_j.x + margin
                || lo_j.x > hi_i.x + margin
                || lo_i.y > hi_j.y + margin
                || lo_j.y > hi_i.y + margin;
            if !apart {
                pairs.push((i, j));
            }
        }
    }
    pairs
}
