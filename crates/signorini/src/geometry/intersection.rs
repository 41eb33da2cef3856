//! The intersection polytope of two convex polyhedra, or of a convex polyhedron and a half-space.
//!
//! Algorithm (O(m n) for polytopes with m and n faces): A's boundary is copied into a frame with
//! A's rotation and its origin at A's centroid, so that coordinates are of the size of the bodies
//! wherever they are in the world; then it is clipped by each face plane of B in turn. One clip:
//! 1. every vertex gets its signed distance s = n·x − d to the plane, snapped to 0 when
//!    |s| ≤ tolerance (so a vertex on a face, an edge on a face and coplanar faces are exact cases);
//! 2. nothing above the plane: the plane does not cut (a coplanar face of A is kept as it is, so
//!    coplanar faces give one face, never slivers); nothing below: the interiors do not overlap;
//! 3. every face is clipped (Sutherland–Hodgman); a crossing edge gets one new vertex, shared by
//!    its two faces, interpolated from the edge's lower-index end so that it is computed once;
//! 4. the cap: the kept faces' boundary edges whose twin is gone (all of them on the plane) are
//!    chained, reversed, into the cap polygon, which carries the plane of B's face.
//!
//! The result is closed by construction whatever the rounding (each edge keeps its twin or becomes
//! a cap edge), and convex within the tolerance. Volume and centroid by the divergence theorem.
use super::{PlacedPolytope, Polytope, Pose};
use glam::DVec3;

/// Which input facet a face of the intersection lies in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum FaceOrigin {
    /// Face id of the first polytope.
    A(u32),
    /// Face id of the second polytope.
    B(u32),
    /// The plane of the half-space of [`intersect_half_space`] (which plays body B).
    HalfSpace,
}

/// A face of the intersection polytope, in world coordinates.
#[derive(Clone, Debug, PartialEq)]
pub struct IntersectionFace {
    /// Indices into [`Intersection::vertices`], counter-clockwise seen from outside.
    pub vertices: Vec<u32>,
    /// Outward unit normal: the normal of the input facet it lies in.
    pub normal: DVec3,
    /// Plane offset (m): the face lies in {x : normal·x = offset}, the input facet's plane.
    pub offset: f64,
    pub origin: FaceOrigin,
}

/// A convex polytope A ∩ B, in world coordinates.
#[derive(Clone, Debug, PartialEq)]
pub struct Intersection {
    pub vertices: Vec<DVec3>,
    pub faces: Vec<IntersectionFace>,
    /// m³
    pub volume: f64,
    /// Centroid of the volume (m).
    pub centroid: DVec3,
    /// The distance (m) under which a point counted as lying on a plane: the result is exact to
    /// within it (see [`intersect`]).
    pub tolerance: f64,
}

impl Intersection {
    /// Number of edges (each edge is on two faces).
    pub fn edge_count(&self) -> usize {
        self.faces.iter().map(|f| f.vertices.len()).sum::<usize>() / 2
    }

    /// V − E + F: 2 for a closed polytope of genus 0.
    pub fn euler_characteristic(&self) -> i64 {
        self.vertices.len() as i64 - self.edge_count() as i64 + self.faces.len() as i64
    }
}

/// The intersection of two convex polytopes placed in the world by their poses, or `None` when
/// their interiors do not overlap (separated, touching, or an overlap thinner than the tolerance)
/// or a pose is not finite.
///
/// Tolerance (m), under which a vertex counts as on a cutting plane:
/// `1e-12 · min(r_a, r_b) + 64 ε (r_a + r_b + |t_a| + |t_b|) + 2 (δ_a + δ_b)`, where r are the
/// polytopes' radii about their centroids, t the pose translations, ε the machine epsilon and δ
/// the largest distance of an input vertex from its own face plane (input faces are planar only
/// to the hull builder's tolerance). The second term covers the rounding of moving B into A's
/// frame and of the cuts (a few ε times the coordinates; 64 leaves room for the cuts accumulating
/// over many planes); the first keeps the snap well above rounding for similar sizes while overlaps
/// down to ~1e-11 of the smaller size are still resolved; the third makes faces that are coplanar
/// within the inputs' own flatness one face. The result is the exact intersection up to moving its
/// faces by at most the tolerance, so the volume error is at most tolerance × surface area.
pub fn intersect(a: &Polytope, pose_a: &Pose, b: &Polytope, pose_b: &Pose) -> Option<Intersection> {
    if !pose_is_finite(pose_a) || !pose_is_finite(pose_b) {
        return None;
    }
    let frame = Frame::new(a, pose_a);
    // B in A's centred frame: x_L = q_rel x_B + t_rel.
    let inv_a = pose_a.rotation.inverse();
    let q_rel = inv_a * pose_b.rotation;
    let t_rel = inv_a * (pose_b.translation - pose_a.translation) - a.centroid;
    let b_placed = PlacedPolytope::new(b, &Pose::new(t_rel, q_rel));
    let b_vertices: &[DVec3] = &b_placed.vertices;
    let b_planes: Vec<(DVec3, f64)> = b_placed
        .normals
        .iter()
        .copied()
        .zip(b_placed.offsets.iter().copied())
        .collect();
    let tolerance = 1e-12 * a.radius.min(b.radius)
        + 64.0
            * f64::EPSILON
            * (a.radius + b.radius + pose_a.translation.length() + pose_b.translation.length())
        + 2.0 * (planarity_defect(a) + planarity_defect(b));

    // Bounding spheres, then the face planes of each against the other's vertices (a separating
    // face plane, or a touching one, means no overlap of the interiors).
    let b_centre = b_placed.centroid;
    if b_centre.length() > a.radius + b.radius + tolerance {
        return None;
    }
    let a_vertices: Vec<DVec3> = a.vertices.iter().map(|v| *v - a.centroid).collect();
    let a_planes: Vec<(DVec3, f64)> = a
        .faces
        .iter()
        .map(|f| (f.normal, f.offset - f.normal.dot(a.centroid)))
        .collect();
    let separates =
        |(n, d): &(DVec3, f64), pts: &[DVec3]| pts.iter().all(|p| n.dot(*p) - d >= -tolerance);
    if a_planes.iter().any(|pl| separates(pl, b_vertices))
        || b_planes.iter().any(|pl| separates(pl, &a_vertices))
    {
        return None;
    }

    with_clipper(a, &a_vertices, |clipper| {
        for (i, (n, d)) in b_planes.iter().enumerate() {
            if let ClipOutcome::Empty = clipper.clip(*n, *d, FaceOrigin::B(i as u32), tolerance) {
                return None;
            }
        }
        frame.finish(&clipper.mesh, tolerance)
    })
}

/// The intersection of a convex polytope placed by `pose_a` with the half-space
/// {x : normal·x ≤ offset} (world coordinates; `normal` need not be unit, offset in m times its
/// length). `None` when they do not overlap (as [`intersect`]) or an input is not finite or the
/// normal is zero. The half-space plays body B: its face has origin [`FaceOrigin::HalfSpace`].
/// Tolerance as in [`intersect`] with B's radius taken as 0 and |offset| as its distance term.
pub fn intersect_half_space(
    a: &Polytope,
    pose_a: &Pose,
    normal: DVec3,
    offset: f64,
) -> Option<Intersection> {
    let len = normal.length();
    if !pose_is_finite(pose_a) || !(len > 0.0) || !len.is_finite() || !offset.is_finite() {
        return None;
    }
    let (n_w, d_w) = (normal / len, offset / len);
    let frame = Frame::new(a, pose_a);
    let n = pose_a.rotation.inverse() * n_w;
    // n_w·x_w = n_w·(R (x_L + c) + t) = n·x_L + n·c + n_w·t.
    let d = d_w - n_w.dot(pose_a.translation) - n.dot(a.centroid);
    let tolerance = 1e-12 * a.radius
        + 64.0 * f64::EPSILON * (a.radius + pose_a.translation.length() + d_w.abs())
        + 2.0 * planarity_defect(a);
    let a_vertices: Vec<DVec3> = a.vertices.iter().map(|v| *v - a.centroid).collect();
    with_clipper(a, &a_vertices, |clipper| {
        match clipper.clip(n, d, FaceOrigin::HalfSpace, tolerance) {
            ClipOutcome::Empty => None,
            _ => frame.finish(&clipper.mesh, tolerance),
        }
    })
}

fn pose_is_finite(p: &Pose) -> bool {
    p.translation.is_finite() && p.rotation.is_finite()
}

/// Largest distance of a vertex of `p` from the plane of a face it is on (m).
fn planarity_defect(p: &Polytope) -> f64 {
    let mut worst = 0.0f64;
    for f in &p.faces {
        for &v in &f.vertices {
            worst = worst.max((f.normal.dot(p.vertices[v as usize]) - f.offset).abs());
        }
    }
    worst
}

/// A's centred frame: x_world = R (x_L + c) + t, with (R, t) A's pose and c A's centroid.
struct Frame {
    pose: Pose,
    centroid: DVec3,
}

impl Frame {
    fn new(a: &Polytope, pose: &Pose) -> Frame {
        Frame {
            pose: *pose,
            centroid: a.centroid,
        }
    }

    /// Volume, centroid and world coordinates of the clipped mesh; `None` if nothing is left.
    fn finish(&self, mesh: &Mesh, tolerance: f64) -> Option<Intersection> {
        if mesh.faces.len() < 4 || mesh.verts.len() < 4 {
            return None;
        }
        // Divergence theorem over a fan of each face, about the mean vertex (a point near the
        // volume, so that thin volumes do not lose digits to cancellation): tetrahedra (r, a, b, c)
        // of signed volume det/6 and centroid r + (a + b + c)/4 (a, b, c relative to r).
        let r = mesh.verts.iter().copied().sum::<DVec3>() / mesh.verts.len() as f64;
        let (mut six_v, mut first) = (0.0, DVec3::ZERO);
        for f in &mesh.faces {
            let lp = mesh.face_loop(f);
            let a = mesh.verts[lp[0] as usize] - r;
            for w in lp[1..].windows(2) {
                let (b, c) = (mesh.verts[w[0] as usize] - r, mesh.verts[w[1] as usize] - r);
                let det = a.dot(b.cross(c));
                six_v += det;
                first += det * (a + b + c);
            }
        }
        let volume = six_v / 6.0;
        if !(volume > 0.0) {
            return None;
        }
        let centroid_local = r + first / (4.0 * six_v);
        let to_world = |x: DVec3| self.pose.transform_point(x + self.centroid);
        let faces = mesh
            .faces
            .iter()
            .map(|f| {
                let normal = self.pose.rotation * f.normal;
                IntersectionFace {
                    vertices: mesh.face_loop(f).to_vec(),
                    normal,
                    // n_w·x_w = n·x_L + n·c + n_w·t.
                    offset: f.offset
                        + f.normal.dot(self.centroid)
                        + normal.dot(self.pose.translation),
                    origin: f.origin,
                }
            })
            .collect();
        Some(Intersection {
            vertices: mesh.verts.iter().map(|v| to_world(*v)).collect(),
            faces,
            volume,
            centroid: to_world(centroid_local),
            tolerance,
        })
    }
}

#[derive(Clone, Copy, Debug)]
struct MeshFace {
    start: u32,
    len: u32,
    normal: DVec3,
    offset: f64,
    origin: FaceOrigin,
}

/// A closed polygon mesh: face loops stored one after another in `loops`.
#[derive(Clone, Debug, Default)]
struct Mesh {
    verts: Vec<DVec3>,
    loops: Vec<u32>,
    faces: Vec<MeshFace>,
}

impl Mesh {
    fn face_loop(&self, f: &MeshFace) -> &[u32] {
        &self.loops[f.start as usize..(f.start + f.len) as usize]
    }
}

enum ClipOutcome {
    Unchanged,
    Empty,
    Cut,
}

/// The mesh being clipped and the scratch buffers of one clip, reused from plane to plane, and
/// from one intersection to the next on the same thread ([`with_clipper`]).
#[derive(Default)]
struct Clipper {
    mesh: Mesh,
    dist: Vec<f64>,
    side: Vec<i8>,
    loops: Vec<u32>,
    faces: Vec<MeshFace>,
    /// (lower vertex, higher vertex, new vertex) of each cut edge.
    cuts: Vec<(u32, u32, u32)>,
    /// Directed edges of kept faces with both ends on the plane.
    on_plane: Vec<(u32, u32)>,
    /// Cap edges (reversed orphans of `on_plane`) and whether each is used.
    cap: Vec<(u32, u32)>,
    used: Vec<bool>,
    remap: Vec<u32>,
    verts: Vec<DVec3>,
}

thread_local! {
    /// Each thread's clipper: a multi-point step intersects every touching pair of boxes, and
    /// the clipper's dozen buffers, grown afresh for each, were most of the cost of an
    /// intersection. Their contents never outlive a call (each starts from `start`), so the
    /// answer does not depend on what the thread intersected before.
    static CLIPPER: std::cell::RefCell<Clipper> = std::cell::RefCell::new(Clipper::default());
}

/// Run `f` with this thread's clipper set to polytope `a` (its vertices `local_vertices`, in its
/// centred frame); a fresh clipper if the thread's is in use.
fn with_clipper<R>(a: &Polytope, local_vertices: &[DVec3], f: impl FnOnce(&mut Clipper) -> R) -> R {
    CLIPPER.with(|cell| match cell.try_borrow_mut() {
        Ok(mut clipper) => {
            clipper.start(a, local_vertices);
            f(&mut clipper)
        }
        Err(_) => {
            let mut clipper = Clipper::default();
            clipper.start(a, local_vertices);
            f(&mut clipper)
        }
    })
}

impl Clipper {
    /// Make the mesh polytope `a` with vertices `local_vertices` (its centred frame).
    fn start(&mut self, a: &Polytope, local_vertices: &[DVec3]) {
        let mesh = &mut self.mesh;
        mesh.verts.clear();
        mesh.verts.extend_from_slice(local_vertices);
        mesh.loops.clear();
        mesh.faces.clear();
        for (i, f) in a.faces.iter().enumerate() {
            mesh.faces.push(MeshFace {
                start: mesh.loops.len() as u32,
                len: f.vertices.len() as u32,
                normal: f.normal,
                offset: f.offset - f.normal.dot(a.centroid),
                origin: FaceOrigin::A(i as u32),
            });
            mesh.loops.extend_from_slice(&f.vertices);
        }
    }

    /// Keep the part of the mesh in {x : n·x ≤ d}.
    fn clip(&mut self, n: DVec3, d: f64, origin: FaceOrigin, tol: f64) -> ClipOutcome {
        self.dist.clear();
        self.side.clear();
        let (mut below, mut above) = (false, false);
        for v in &self.mesh.verts {
            let s = n.dot(*v) - d;
            let side = if s > tol {
                above = true;
                1
            } else if s < -tol {
                below = true;
                -1
            } else {
                0
            };
            self.dist.push(s);
            self.side.push(side);
        }
        if !above {
            return ClipOutcome::Unchanged;
        }
        if !below {
            return ClipOutcome::Empty;
        }

        // 3. Clip every face.
        self.loops.clear();
        self.faces.clear();
        self.cuts.clear();
        for fi in 0..self.mesh.faces.len() {
            let face = self.mesh.faces[fi];
            let start = self.loops.len();
            let (s0, len) = (face.start as usize, face.len as usize);
            let mut all_on = true;
            for i in 0..len {
                let a = self.mesh.loops[s0 + i];
                let b = self.mesh.loops[s0 + (i + 1) % len];
                let (sa, sb) = (self.side[a as usize], self.side[b as usize]);
                if sa <= 0 {
                    self.loops.push(a);
                    all_on &= sa == 0;
                }
                if sa * sb < 0 {
                    let c = self.cut_vertex(a, b);
                    self.loops.push(c);
                }
            }
            let kept = self.loops.len() - start;
            // A face left with fewer than 3 corners is gone; a face lying in the plane and facing
            // the same way is replaced by the cap (which has the same plane).
            if kept < 3 || (all_on && face.normal.dot(n) > 0.0) {
                self.loops.truncate(start);
                continue;
            }
            self.faces.push(MeshFace {
                start: start as u32,
                len: kept as u32,
                ..face
            });
        }

        // 4. The cap: edges on the plane whose twin is not in any kept face, reversed and chained.
        self.on_plane.clear();
        for f in &self.faces {
            let lp = &self.loops[f.start as usize..(f.start + f.len) as usize];
            for i in 0..lp.len() {
                let (a, b) = (lp[i], lp[(i + 1) % lp.len()]);
                if self.side[a as usize] == 0 && self.side[b as usize] == 0 {
                    self.on_plane.push((a, b));
                }
            }
        }
        self.on_plane.sort_unstable();
        self.cap.clear();
        for &(a, b) in &self.on_plane {
            if self.on_plane.binary_search(&(b, a)).is_err() {
                self.cap.push((b, a));
            }
        }
        self.cap.sort_unstable();
        self.used.clear();
        self.used.resize(self.cap.len(), false);
        // Every vertex has as many cap edges in as out (the kept faces' boundary is a cycle), so
        // following unused edges always closes a loop. A pinched cap (only in degenerate rounding)
        // gives several loops on the plane, each a face.
        for first in 0..self.cap.len() {
            if self.used[first] {
                continue;
            }
            let start = self.loops.len();
            let mut e = first;
            loop {
                self.used[e] = true;
                let (from, to) = self.cap[e];
                self.loops.push(from);
                if to == self.cap[first].0 {
                    break;
                }
                let lo = self.cap.partition_point(|&(f, _)| f < to);
                match (lo..self.cap.len())
                    .take_while(|&k| self.cap[k].0 == to)
                    .find(|&k| !self.used[k])
                {
                    Some(k) => e = k,
                    None => break,
                }
            }
            let kept = self.loops.len() - start;
            if kept < 3 {
                self.loops.truncate(start);
                continue;
            }
            self.faces.push(MeshFace {
                start: start as u32,
                len: kept as u32,
                normal: n,
                offset: d,
                origin,
            });
        }

        // Keep only the vertices still used, numbered by first use.
        self.remap.clear();
        self.remap.resize(self.mesh.verts.len(), u32::MAX);
        self.verts.clear();
        for v in self.loops.iter_mut() {
            let r = &mut self.remap[*v as usize];
            if *r == u32::MAX {
                *r = self.verts.len() as u32;
                self.verts.push(self.mesh.verts[*v as usize]);
            }
            *v = *r;
        }
        std::mem::swap(&mut self.mesh.verts, &mut self.verts);
        std::mem::swap(&mut self.mesh.loops, &mut self.loops);
        std::mem::swap(&mut self.mesh.faces, &mut self.faces);
        ClipOutcome::Cut
    }

    /// The vertex where edge (a, b) crosses the plane, created once per edge.
    fn cut_vertex(&mut self, a: u32, b: u32) -> u32 {
        let (lo, hi) = (a.min(b), a.max(b));
        if let Some(&(_, _, c)) = self.cuts.iter().find(|&&(l, h, _)| l == lo && h == hi) {
            return c;
        }
        let (s_lo, s_hi) = (self.dist[lo as usize], self.dist[hi as usize]);
        // s_lo and s_hi have opposite signs and |s| > tol, so the denominator is > 2 tol.
        let t = (s_lo / (s_lo - s_hi)).clamp(0.0, 1.0);
        let (p_lo, p_hi) = (self.mesh.verts[lo as usize], self.mesh.verts[hi as usize]);
        let c = self.mesh.verts.len() as u32;
        self.mesh.verts.push(p_lo + (p_hi - p_lo) * t);
        self.dist.push(0.0);
        self.side.push(0);
        self.cuts.push((lo, hi, c));
        c
    }
}
