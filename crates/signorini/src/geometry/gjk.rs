//! Distance between two separated convex sets by the Gilbert–Johnson–Keerthi algorithm
//! (Gilbert, Johnson & Keerthi, IEEE J. Robotics & Automation 4(2), 1988).
//!
//! GJK finds the point `v` of the Minkowski difference D = A − B closest to the origin, using only
//! support mappings: s_D(d) = s_A(d) − s_B(−d). The distance between A and B is |v|; the closest
//! points follow from the barycentric coordinates of `v` in the final simplex.
use super::{Polytope, Pose};
use glam::DVec3;

/// A convex set known through its support mapping, in world coordinates.
pub trait Support {
    /// A point of the set maximizing `x · dir`.
    fn support(&self, dir: DVec3) -> DVec3;
}

/// A polytope placed in the world by a pose.
pub struct PosedPolytope<'a> {
    pub polytope: &'a Polytope,
    pub pose: &'a Pose,
}

impl Support for PosedPolytope<'_> {
    fn support(&self, dir: DVec3) -> DVec3 {
        let local = self.pose.inverse_transform_vector(dir);
        self.pose
            .transform_point(self.polytope.vertices[self.polytope.support_index(local)])
    }
}

/// A single point (the centre of a sphere).
pub struct PointSet(pub DVec3);

impl Support for PointSet {
    fn support(&self, _dir: DVec3) -> DVec3 {
        self.0
    }
}

/// Result of a distance query.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Proximity {
    /// The sets are disjoint: closest points on A and on B, and their distance (m).
    Separated {
        distance: f64,
        point_a: DVec3,
        point_b: DVec3,
    },
    /// The sets touch or overlap (distance below the numerical floor).
    Overlapping,
}

#[derive(Clone, Copy, Default)]
struct Vertex {
    w: DVec3,
    a: DVec3,
    b: DVec3,
}

/// Distance between A and B. `scale` is a length typical of the shapes (m), used for tolerances.
pub fn distance(a: &dyn Support, b: &dyn Support, initial_dir: DVec3, scale: f64) -> Proximity {
    let dir0 = if initial_dir.length_squared() > 0.0 {
        initial_dir
    } else {
        DVec3::X
    };
    let first = {
        let (pa, pb) = (a.support(dir0), b.support(-dir0));
        Vertex {
            w: pa - pb,
            a: pa,
            b: pb,
        }
    };
    // The simplex (at most 4 vertices) and the barycentric coordinates of `v` in it.
    let (mut simplex, mut len) = ([first; 4], 1);
    let mut lambdas = [1.0, 0.0, 0.0, 0.0];
    let mut v = first.w;
    let floor = 1e-12 * scale;
    for _ in 0..128 {
        let v2 = v.length_squared();
        if v2 <= floor * floor {
            return Proximity::Overlapping;
        }
        let (pa, pb) = (a.support(-v), b.support(v));
        let w = pa - pb;
        // |v|² − v·w bounds |v|·(|v| − distance): stop when the lower bound meets |v|.
        if v2 - v.dot(w) <= 1e-13 * v2 || simplex[..len].iter().any(|s| s.w == w) {
            break;
        }
        simplex[len] = Vertex { w, a: pa, b: pb };
        len += 1;
        let (closest, lambda, kept, k) = closest_on_simplex(&simplex[..len]);
        // All four vertices share the closest point: it is the origin's projection onto their
        // affine hull, which for a tetrahedron is the origin itself — the origin is inside and
        // the sets overlap, whatever round-off left of |closest|. (Where round-off left it above
        // the floor, the loop went on with a full simplex and indexed past it: a panic on
        // `bin_64`, spawn seed 3, under anitescu-convex with the post-step projection.)
        if k == 4 {
            return Proximity::Overlapping;
        }
        let old = simplex;
        for j in 0..k {
            simplex[j] = old[kept[j]];
        }
        len = k;
        lambdas = lambda;
        let progress = closest.length_squared() < v2;
        v = closest;
        if !progress {
            break; // no progress (round-off): keep the best point found
        }
    }
    if v.length_squared() <= floor * floor {
        return Proximity::Overlapping;
    }
    let point_a = simplex[..len]
        .iter()
        .zip(&lambdas)
        .map(|(s, l)| s.a * *l)
        .sum();
    let point_b = simplex[..len]
        .iter()
        .zip(&lambdas)
        .map(|(s, l)| s.b * *l)
        .sum();
    Proximity::Separated {
        distance: v.length(),
        point_a,
        point_b,
    }
}

/// The point of the simplex's convex hull closest to the origin, its barycentric coordinates, the
/// indices of the vertices with a share in it and their count. Every face of the simplex (every non-empty
/// subset of vertices) is projected onto its affine hull; among projections that fall inside their
/// face (all coordinates ≥ 0), the nearest to the origin is the answer.
fn closest_on_simplex(s: &[Vertex]) -> (DVec3, [f64; 4], [usize; 4], usize) {
    let n = s.len();
    let mut best: Option<(f64, DVec3, [f64; 4], [usize; 4], usize)> = None;
    for mask in 1u32..(1 << n) {
        let mut idx = [0usize; 4];
        let mut w = [DVec3::ZERO; 4];
        let mut k = 0;
        for i in 0..n {
            if mask & (1 << i) != 0 {
                idx[k] = i;
                w[k] = s[i].w;
                k += 1;
            }
        }
        let Some(lambda) = affine_projection(&w[..k]) else {
            continue;
        };
        if lambda[..k].iter().any(|&l| l < 0.0) {
            continue;
        }
        let p: DVec3 = (0..k).map(|j| w[j] * lambda[j]).sum();
        let d2 = p.length_squared();
        if best.as_ref().is_none_or(|b| d2 < b.0) {
            best = Some((d2, p, lambda, idx, k));
        }
    }
    let (_, p, lambda, idx, k) = best.expect("single vertices are always candidates");
    (p, lambda, idx, k)
}

/// Barycentric coordinates of the origin's projection onto the affine hull of `w`
/// (None when the points are affinely dependent).
fn affine_projection(w: &[DVec3]) -> Option<[f64; 4]> {
    let k = w.len();
    if k == 1 {
        return Some([1.0, 0.0, 0.0, 0.0]);
    }
    // Minimize |w0 + Σ μ_j e_j|², e_j = w_j − w0: Gram system G μ = −Eᵀ w0.
    let m = k - 1;
    let mut e = [DVec3::ZERO; 3];
    for j in 0..m {
        e[j] = w[j + 1] - w[0];
    }
    let mut g = [[0.0; 3]; 3];
    let mut rhs = [0.0; 3];
    for i in 0..m {
        for j in 0..m {
            g[i][j] = e[i].dot(e[j]);
        }
        rhs[i] = -e[i].dot(w[0]);
    }
    let mu = solve_small(&g, &rhs, m)?;
    let mut lambda = [0.0; 4];
    lambda[0] = 1.0 - mu[..m].iter().sum::<f64>();
    lambda[1..k].copy_from_slice(&mu[..m]);
    Some(lambda)
}

/// Solve an m×m symmetric positive semi-definite system (m ≤ 3) by Cramer's rule; None if singular.
fn solve_small(g: &[[f64; 3]; 3], r: &[f64; 3], m: usize) -> Option<[f64; 3]> {
    let scale = (0..m).map(|i| g[i][i]).fold(0.0, f64::max);
    match m {
        1 => (g[0][0] > 1e-24 * scale.max(1e-300)).then(|| [r[0] / g[0][0], 0.0, 0.0]),
        2 => {
            let det = g[0][0] * g[1][1] - g[0][1] * g[1][0];
            (det > 1e-12 * scale * scale).then(|| {
                [
                    (r[0] * g[1][1] - g[0][1] * r[1]) / det,
                    (g[0][0] * r[1] - r[0] * g[1][0]) / det,
                    0.0,
                ]
            })
        }
        3 => {
            let det3 = |m: [[f64; 3]; 3]| {
                m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1])
                    - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
                    + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0])
            };
            let det = det3(*g);
            if det <= 1e-12 * scale * scale * scale {
                return None;
            }
            let mut out = [0.0; 3];
            for (col, o) in out.iter_mut().enumerate() {
                let mut mm = *g;
                for row in 0..3 {
                    mm[row][col] = r[row];
                }
                *o = det3(mm) / det;
            }
            Some(out)
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unit_cubes_one_metre_apart_along_a_diagonal_direction() {
        let cube = Polytope::cuboid(DVec3::splat(0.5));
        let (pa, pb) = (
            Pose::IDENTITY,
            Pose::new(DVec3::new(2.0, 2.0, 0.0), glam::DQuat::IDENTITY),
        );
        let r = distance(
            &PosedPolytope {
                polytope: &cube,
                pose: &pa,
            },
            &PosedPolytope {
                polytope: &cube,
                pose: &pb,
            },
            DVec3::X,
            1.0,
        );
        // Closest features are the vertical edges at (0.5, 0.5) and (1.5, 1.5): distance √2.
        let Proximity::Separated {
            distance,
            point_a,
            point_b,
        } = r
        else {
            panic!("expected separation")
        };
        assert!((distance - 2f64.sqrt()).abs() < 1e-12);
        assert!((point_a.x - 0.5).abs() < 1e-12 && (point_b.y - 1.5).abs() < 1e-12);
    }

    #[test]
    fn overlapping_cubes_are_reported() {
        let cube = Polytope::cuboid(DVec3::splat(0.5));
        let (pa, pb) = (
            Pose::IDENTITY,
            Pose::new(DVec3::new(0.3, 0.2, 0.1), glam::DQuat::IDENTITY),
        );
        let r = distance(
            &PosedPolytope {
                polytope: &cube,
                pose: &pa,
            },
            &PosedPolytope {
                polytope: &cube,
                pose: &pb,
            },
            DVec3::X,
            1.0,
        );
        assert_eq!(r, Proximity::Overlapping);
    }
}
