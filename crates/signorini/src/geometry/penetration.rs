//! Penetration geometry of Drumwright's multi-point penalty method (E. Drumwright, "A fast and
//! stable penalty method for rigid body simulation", IEEE TVCG 2008): the contact normal by the
//! min–max facet rule (appendix I, eq. 4) and the points on the bottom of the intersection volume
//! (section III-A), computed from the intersection polytope of [`super::intersection`].
//!
//! Conventions: the normal points from A to B and the springs push B along +n (A along −n); a
//! half-space from [`super::intersection::intersect_half_space`] plays body B.
use super::intersection::{FaceOrigin, Intersection};
use glam::{DVec2, DVec3};
use std::collections::BTreeMap;
use std::ops::Bound::{Excluded, Unbounded};

/// A face of the intersection counts as a bottom face when n_f · n < −`VERTICAL_COS`: faces
/// within 1e-9 rad of being parallel to the normal are side faces (neither bottom nor top), so
/// that rounding cannot decide whether a box's side walls are on the bottom.
pub const VERTICAL_COS: f64 = 1e-9;

/// The contact normal chosen by the min–max facet rule.
#[derive(Clone, Debug, PartialEq)]
pub struct ContactNormal {
    /// Unit normal from A to B: A's facet normal, or minus B's (or the half-space's).
    pub normal: DVec3,
    /// The facet the normal comes from.
    pub facet: FaceOrigin,
    /// max_j |n̂·p_j − d| for that facet (m): the thickness of the intersection along the normal,
    /// the smallest over the candidate facets.
    pub thickness: f64,
    /// Depth of each intersection vertex along the normal (m): max_k n·p_k − n·p_j, how far p_j
    /// lies below the top of the volume (the side facing B). When the facet is A's, its plane is
    /// that top and the depth is the paper's distance to the contact plane; when it is B's, the
    /// facet is the bottom of the volume and the paper's distance is `thickness − depth`.
    pub depths: Vec<f64>,
}

impl ContactNormal {
    /// The same contact with the roles swapped, for a model that pushes A instead of B (or whose
    /// body A was the intersection's B, e.g. a half-space under a box): the normal reversed, the
    /// same facet and thickness, and depths measured from the other side of the volume
    /// (max_k depth_k − depth_j).
    pub fn swapped(&self) -> ContactNormal {
        let deepest = self.depths.iter().copied().fold(0.0, f64::max);
        ContactNormal {
            normal: -self.normal,
            facet: self.facet,
            thickness: self.thickness,
            depths: self.depths.iter().map(|d| deepest - d).collect(),
        }
    }
}

/// Drumwright's eq. 4: among the facets of A and B that intersect or lie inside the other body —
/// exactly the facets that carry a face of the intersection polytope — choose the facet normal n̂_i
/// minimizing max_j |n̂_i·p_j − d_i| over the penetration points p_j (the vertices of the
/// intersection). Facets within the intersection's tolerance of the smallest maximum are tied; a
/// tie goes to A's facets, then to the lowest face id (`FaceOrigin`'s order), so the choice does
/// not depend on rounding. O(F V) for F faces and V vertices of the intersection. An
/// `Intersection` without faces (never one from `intersect`, only a hand-made one) has no facet:
/// it gets a zero normal, zero thickness and no depths, never a panic or a NaN.
pub fn contact_normal(inter: &Intersection) -> ContactNormal {
    let spread: Vec<f64> = inter
        .faces
        .iter()
        .map(|f| {
            inter
                .vertices
                .iter()
                .map(|p| (f.normal.dot(*p) - f.offset).abs())
                .fold(0.0, f64::max)
        })
        .collect();
    let smallest = spread.iter().copied().fold(f64::INFINITY, f64::min);
    let Some(chosen) = (0..inter.faces.len())
        .filter(|&i| spread[i] <= smallest + inter.tolerance)
        .min_by_key(|&i| inter.faces[i].origin)
    else {
        return ContactNormal {
            normal: DVec3::ZERO,
            facet: FaceOrigin::HalfSpace,
            thickness: 0.0,
            depths: Vec::new(),
        };
    };
    let face = &inter.faces[chosen];
    let normal = match face.origin {
        FaceOrigin::A(_) => face.normal,
        FaceOrigin::B(_) | FaceOrigin::HalfSpace => -face.normal,
    };
    let top = inter
        .vertices
        .iter()
        .map(|p| normal.dot(*p))
        .fold(f64::NEG_INFINITY, f64::max);
    ContactNormal {
        normal,
        facet: face.origin,
        thickness: spread[chosen],
        depths: inter
            .vertices
            .iter()
            .map(|p| top - normal.dot(*p))
            .collect(),
    }
}

/// The bottom points by definition (the brute force the fast procedure is tested against).
///
/// `normal` is the contact normal pointing into the body the springs push (with our convention,
/// from A to B: B is pushed along +n). The bottom of the intersection volume is the part of its
/// surface whose outward normal n_f has n_f · n < 0 (strictly, with the [`VERTICAL_COS`] margin):
/// the surface facing away from B, where B's material has gone deepest into A. A vertex of the
/// intersection is a bottom point when it lies on such a face. Returns sorted vertex indices.
/// O(total face size).
pub fn bottom_points(inter: &Intersection, normal: DVec3) -> Vec<usize> {
    let n = normal.normalize();
    let mut bottom = vec![false; inter.vertices.len()];
    for f in &inter.faces {
        if f.normal.dot(n) < -VERTICAL_COS {
            for &v in &f.vertices {
                bottom[v as usize] = true;
            }
        }
    }
    (0..bottom.len()).filter(|&i| bottom[i]).collect()
}

/// Drumwright's O(N log N) incremental procedure (section III-A) on the points alone, without
/// the intersection's faces; returns sorted indices of the points it keeps.
///
/// Points are sorted by depth along −n (deepest first: the farthest from the contact plane when
/// the facet is A's, see [`ContactNormal::depths`]); the comparator is the deepest point (among
/// equal depths, the bottom, right-most in the projected plane).
/// Each point is projected on the plane ⟂ n and kept when its projection lies outside the convex
/// polygon of the projections of the points processed before it (deeper or tied), else discarded:
/// a discarded point has material of the volume directly beneath it. The polygon's corners are
/// kept in order of their signed angle about a point inside it (the centroid of its first
/// triangle; the paper measures about the comparator, which may end on the boundary), so the
/// polygon edge facing a new point is found by binary search, and corners the new point makes
/// non-convex are removed (each at most once): O(N log N). Until three points span a triangle the
/// polygon is a point or a segment.
///
/// Tolerance: projections within 1e-9 of the points' bounding diagonal of the polygon count as
/// inside (a box's top corners project onto its bottom corners up to rounding).
///
/// Relation to [`bottom_points`] (proved in the tests' comments, checked on random cases): every
/// bottom point is kept, and the two agree whenever the intersection has no face other than the
/// contact facet's that faces B (n_f·n > 0). A vertex on the upper side of the volume that has
/// material beneath it only under faces whose corners are all shallower than itself is also
/// kept: the points alone cannot tell it from a bottom point.
pub fn bottom_points_incremental(points: &[DVec3], normal: DVec3) -> Vec<usize> {
    if points.is_empty() {
        return Vec::new();
    }
    let n = normal.normalize();
    let (e1, e2) = n.any_orthonormal_pair();
    let (lo, hi) = points.iter().fold(
        (DVec3::splat(f64::INFINITY), DVec3::splat(f64::NEG_INFINITY)),
        |(lo, hi), p| (lo.min(*p), hi.max(*p)),
    );
    let tau = 1e-9 * (hi - lo).length();
    let top = points
        .iter()
        .map(|p| n.dot(*p))
        .fold(f64::NEG_INFINITY, f64::max);
    let depth: Vec<f64> = points.iter().map(|p| top - n.dot(*p)).collect();
    let flat: Vec<DVec2> = points
        .iter()
        .map(|p| DVec2::new(p.dot(e1), p.dot(e2)))
        .collect();
    // Deepest first; ties by the bottom, right-most projection, then by index.
    let bottom_right = |i: usize, j: usize| {
        flat[i]
            .y
            .total_cmp(&flat[j].y)
            .then(flat[j].x.total_cmp(&flat[i].x))
            .then(i.cmp(&j))
    };
    // Deepest first (exact comparison: processing a shallower point first could hide a point just
    // below it); among equal depths the bottom, right-most projection (the paper's comparator
    // rule), then the lower index. The first point is the comparator.
    let mut order: Vec<usize> = (0..points.len()).collect();
    order.sort_by(|&i, &j| depth[j].total_cmp(&depth[i]).then(bottom_right(i, j)));
    let mut hull = Hull::Empty;
    let mut kept: Vec<usize> = order
        .into_iter()
        .filter(|&i| hull.insert(flat[i], tau))
        .collect();
    kept.sort_unstable();
    kept
}

/// f64 ordered by `total_cmp`, for the angle-keyed polygon.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Angle(f64);
impl Eq for Angle {}
impl PartialOrd for Angle {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Angle {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.0.total_cmp(&other.0)
    }
}

/// The convex hull of the projections processed so far.
enum Hull {
    Empty,
    Point(DVec2),
    Segment(DVec2, DVec2),
    /// Corners counter-clockwise, keyed by their angle about `centre` (strictly inside).
    Polygon {
        centre: DVec2,
        ring: BTreeMap<Angle, DVec2>,
    },
}

/// Signed distance of `q` to the left of the directed line a → b.
fn left_of(a: DVec2, b: DVec2, q: DVec2) -> f64 {
    let d = b - a;
    d.perp_dot(q - a) / d.length()
}

impl Hull {
    /// Adds `q` when it lies outside the hull by more than `tau`; returns whether it did.
    fn insert(&mut self, q: DVec2, tau: f64) -> bool {
        match self {
            Hull::Empty => {
                *self = Hull::Point(q);
                true
            }
            Hull::Point(p) => {
                if p.distance(q) <= tau {
                    return false;
                }
                *self = Hull::Segment(*p, q);
                true
            }
            Hull::Segment(p0, p1) => {
                let (a, b) = (*p0, *p1);
                let len = a.distance(b);
                if left_of(a, b, q).abs() <= tau {
                    let s = (q - a).dot(b - a) / len; // along the segment, m
                    if s >= -tau && s <= len + tau {
                        return false;
                    }
                    *self = if s < 0.0 {
                        Hull::Segment(q, b)
                    } else {
                        Hull::Segment(a, q)
                    };
                    return true;
                }
                let (a, b) = if left_of(a, b, q) > 0.0 {
                    (a, b)
                } else {
                    (b, a)
                };
                let centre = (a + b + q) / 3.0;
                let mut ring = BTreeMap::new();
                for p in [a, b, q] {
                    ring.insert(angle_about(centre, p), p);
                }
                *self = Hull::Polygon { centre, ring };
                true
            }
            Hull::Polygon { centre, ring } => {
                let key = angle_about(*centre, q);
                let (_, p) = cyclic_pred_or_equal(ring, key);
                let (_, s) = cyclic_succ(ring, key);
                if left_of(p, s, q) >= -tau {
                    return false;
                }
                ring.insert(key, q);
                // Corners that q makes non-convex (within tau of the chord) leave the hull.
                while ring.len() > 3 {
                    let (pk, p) = cyclic_pred(ring, key);
                    let (_, pp) = cyclic_pred(ring, pk);
                    if -left_of(pp, q, p) <= tau {
                        ring.remove(&pk);
                    } else {
                        break;
                    }
                }
                while ring.len() > 3 {
                    let (sk, s) = cyclic_succ(ring, key);
                    let (_, ss) = cyclic_succ(ring, sk);
                    if -left_of(q, ss, s) <= tau {
                        ring.remove(&sk);
                    } else {
                        break;
                    }
                }
                true
            }
        }
    }
}

fn angle_about(centre: DVec2, p: DVec2) -> Angle {
    let d = p - centre;
    Angle(d.y.atan2(d.x))
}

/// The corner with the largest angle ≤ `key`, wrapping to the last.
fn cyclic_pred_or_equal(ring: &BTreeMap<Angle, DVec2>, key: Angle) -> (Angle, DVec2) {
    let (k, v) = ring
        .range(..=key)
        .next_back()
        .or_else(|| ring.iter().next_back())
        .expect("a polygon has corners");
    (*k, *v)
}

/// The corner with the largest angle < `key`, wrapping to the last.
fn cyclic_pred(ring: &BTreeMap<Angle, DVec2>, key: Angle) -> (Angle, DVec2) {
    let (k, v) = ring
        .range(..key)
        .next_back()
        .or_else(|| ring.iter().next_back())
        .expect("a polygon has corners");
    (*k, *v)
}

/// The corner with the smallest angle > `key`, wrapping to the first.
fn cyclic_succ(ring: &BTreeMap<Angle, DVec2>, key: Angle) -> (Angle, DVec2) {
    let (k, v) = ring
        .range((Excluded(key), Unbounded))
        .next()
        .or_else(|| ring.iter().next())
        .expect("a polygon has corners");
    (*k, *v)
}
