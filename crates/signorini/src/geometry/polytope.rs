//! Convex polytopes with full vertex / edge / face topology.
//!
//! Built from a point cloud: parry's quickhull gives triangles, which we merge into polygon faces
//! when coplanar, dropping the triangulation diagonals (parry keeps them as edges whose two sides
//! are the same face) and vertices that only lie on an edge. What remains is the polytope's true
//! boundary: every edge separates two distinct faces and V − E + F = 2.
use super::GeometryError;
use glam::DVec3;
use std::collections::HashMap;

/// A feature of a shape's boundary, carried by every contact so that later models can track it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Feature {
    Vertex(u32),
    Edge(u32),
    Face(u32),
    /// The smooth surface of a sphere, or the plane of a half-space.
    Surface,
}

/// A planar convex polygon face. Vertices run counter-clockwise seen from outside.
#[derive(Clone, Debug, PartialEq)]
pub struct Face {
    pub vertices: Vec<u32>,
    /// `edges[i]` joins `vertices[i]` and `vertices[i + 1]`.
    pub edges: Vec<u32>,
    /// Outward unit normal.
    pub normal: DVec3,
    /// Plane offset: points `x` of the face satisfy `normal · x = offset`.
    pub offset: f64,
}

/// An edge between two distinct faces. `faces[0]` traverses `vertices[0] → vertices[1]` in its
/// counter-clockwise loop, `faces[1]` traverses it the other way.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Edge {
    pub vertices: [u32; 2],
    pub faces: [u32; 2],
}

/// A convex polytope in its own frame (for bodies: the body frame, origin at the centre of mass).
#[derive(Clone, Debug, PartialEq)]
pub struct Polytope {
    pub vertices: Vec<DVec3>,
    pub faces: Vec<Face>,
    pub edges: Vec<Edge>,
    /// Edges incident to each vertex.
    pub vertex_edges: Vec<Vec<u32>>,
    /// Faces incident to each vertex.
    pub vertex_faces: Vec<Vec<u32>>,
    /// Mean of the vertices (an interior point).
    pub centroid: DVec3,
    /// Largest distance from `centroid` to a vertex (m).
    pub radius: f64,
    /// Largest distance from the frame's origin to a vertex (m): the shape's bounding radius,
    /// read for every contact of every step (`Shape::bounding_radius`).
    pub origin_radius: f64,
}

/// Relative tolerance (times the size of the point cloud) under which points count as coplanar.
const COPLANAR_REL_TOL: f64 = 1e-9;

impl Polytope {
    /// The convex hull of `points`. Fails on fewer than 4 points, non-finite coordinates, or
    /// points that span no volume (all on a plane or a line).
    pub fn from_points(points: &[DVec3]) -> Result<Polytope, GeometryError> {
        if points.len() < 4 {
            return Err(GeometryError::DegenerateHull(format!(
                "{} points given; a convex hull needs at least 4 points not on one plane",
                points.len()
            )));
        }
        if points.iter().any(|p| !p.is_finite()) {
            return Err(GeometryError::DegenerateHull(
                "a point has a non-finite coordinate".into(),
            ));
        }
        let size = bounding_diagonal(points);
        check_spans_volume(points, size)?;
        let input: Vec<_> = points
            .iter()
            .map(|p| parry3d_f64::math::Vector::new(p.x, p.y, p.z))
            .collect();
        let (hull_points, triangles) = parry3d_f64::transformation::try_convex_hull(&input)
            .map_err(|e| GeometryError::DegenerateHull(format!("quickhull failed: {e:?}")))?;
        let hull_points: Vec<DVec3> = hull_points
            .iter()
            .map(|p| DVec3::new(p.x, p.y, p.z))
            .collect();
        let p = Self::from_triangles(&hull_points, &triangles, size)?;
        // Corners wrongly dropped (from a broken triangle mesh) would leave input points outside.
        let tol = 1e-7 * size;
        if points
            .iter()
            .any(|x| p.faces.iter().any(|f| f.normal.dot(*x) - f.offset > tol))
        {
            return Err(GeometryError::DegenerateHull(
                "an input point lies outside the hull".into(),
            ));
        }
        Ok(p)
    }

    /// A box with the given half extents (m), centred at the origin. Panics where
    /// [`Polytope::try_cuboid`] fails: for boxes written in code with ordinary proportions.
    pub fn cuboid(half: DVec3) -> Polytope {
        Self::try_cuboid(half).expect("a box of ordinary proportions is a valid hull")
    }

    /// A box with the given half extents (m), centred at the origin, or an error when its faces
    /// cannot be told apart at the hull tolerance (relative to the box's diagonal): a box whose
    /// shortest edge is below about 1e-9 of its longest is too thin to be a solid here.
    pub fn try_cuboid(half: DVec3) -> Result<Polytope, GeometryError> {
        let mut corners = Vec::with_capacity(8);
        for i in 0..8 {
            let sx = if i & 1 == 0 { -1.0 } else { 1.0 };
            let sy = if i & 2 == 0 { -1.0 } else { 1.0 };
            let sz = if i & 4 == 0 { -1.0 } else { 1.0 };
            corners.push(DVec3::new(sx * half.x, sy * half.y, sz * half.z));
        }
        // The box's own triangulation, not a hull computation: quickhull treats boxes thinner than
        // ~1e-3 of their size as flat, which made thin plates panic here.
        const QUADS: [[u32; 4]; 6] = [
            [0, 2, 6, 4],
            [1, 5, 7, 3],
            [0, 4, 5, 1],
            [2, 3, 7, 6],
            [0, 1, 3, 2],
            [4, 6, 7, 5],
        ];
        let mut triangles = Vec::with_capacity(12);
        for q in QUADS {
            for t in [[q[0], q[1], q[2]], [q[0], q[2], q[3]]] {
                let [a, b, c] = t.map(|i| corners[i as usize]);
                // Outward: the box is centred at the origin.
                triangles.push(if (b - a).cross(c - a).dot(a) > 0.0 {
                    t
                } else {
                    [t[0], t[2], t[1]]
                });
            }
        }
        Self::from_triangles(&corners, &triangles, bounding_diagonal(&corners)).map_err(|e| {
            GeometryError::InvalidShape(format!(
                "a box of edge lengths [{:e}, {:e}, {:e}] m is too thin to be a solid (shortest / longest \
                 edge {:.1e}; {e}); make the thin edge thicker or model the plate as a half-space",
                2.0 * half.x,
                2.0 * half.y,
                2.0 * half.z,
                half.min_element() / half.max_element()
            ))
        })
    }

    /// A right prism with a regular `segments`-gon section of circumradius `radius` (m) and the
    /// given `height` (m) along z, centred at the origin: a cylinder approximated as a polytope.
    pub fn cylinder(radius: f64, height: f64, segments: u32) -> Result<Polytope, GeometryError> {
        if segments < 3 || radius <= 0.0 || height <= 0.0 {
            return Err(GeometryError::InvalidShape(
                "cylinder needs radius > 0, height > 0 and at least 3 segments".into(),
            ));
        }
        let mut points = Vec::with_capacity(2 * segments as usize);
        for z in [-0.5 * height, 0.5 * height] {
            for k in 0..segments {
                let a = std::f64::consts::TAU * k as f64 / segments as f64;
                points.push(DVec3::new(radius * a.cos(), radius * a.sin(), z));
            }
        }
        Self::from_points(&points)
    }

    /// Build the topology from a closed, outward-oriented triangle mesh of a convex body.
    fn from_triangles(
        points: &[DVec3],
        triangles: &[[u32; 3]],
        size: f64,
    ) -> Result<Polytope, GeometryError> {
        let tol = COPLANAR_REL_TOL * size.max(f64::MIN_POSITIVE);
        let tri_normal = |t: &[u32; 3]| {
            let [a, b, c] = t.map(|i| points[i as usize]);
            (b - a).cross(c - a).normalize_or_zero()
        };
        let normals: Vec<DVec3> = triangles.iter().map(tri_normal).collect();
        let mut owner: HashMap<(u32, u32), usize> = HashMap::with_capacity(3 * triangles.len());
        for (t, tri) in triangles.iter().enumerate() {
            for k in 0..3 {
                owner.insert((tri[k], tri[(k + 1) % 3]), t);
            }
        }
        // Merge each triangle with the neighbours lying in its plane (union-find).
        let mut parent: Vec<usize> = (0..triangles.len()).collect();
        fn root(parent: &mut [usize], mut i: usize) -> usize {
            while parent[i] != i {
                parent[i] = parent[parent[i]];
                i = parent[i];
            }
            i
        }
        // A triangle of (nearly) collinear points has no plane of its own: it lies in the planes of
        // both faces along whose common edge it sits, so it must not bridge them. It joins one
        // neighbouring face (the first whose plane holds it) once the faces are formed.
        let degenerate: Vec<bool> = triangles
            .iter()
            .map(|t| {
                let [a, b, c] = t.map(|i| points[i as usize]);
                let longest = a.distance(b).max(b.distance(c)).max(c.distance(a));
                (b - a).cross(c - a).length() <= tol * longest
            })
            .collect();
        for (t, tri) in triangles.iter().enumerate() {
            let plane_point = points[tri[0] as usize];
            for k in 0..3 {
                let Some(&u) = owner.get(&(tri[(k + 1) % 3], tri[k])) else {
                    return Err(GeometryError::DegenerateHull(
                        "hull mesh is not closed".into(),
                    ));
                };
                let coplanar = !degenerate[t]
                    && !degenerate[u]
                    && normals[t].dot(normals[u]) > 0.0
                    && triangles[u]
                        .iter()
                        .all(|&v| (points[v as usize] - plane_point).dot(normals[t]).abs() <= tol);
                if coplanar {
                    let (rt, ru) = (root(&mut parent, t), root(&mut parent, u));
                    if rt != ru {
                        parent[rt.max(ru)] = rt.min(ru);
                    }
                }
            }
        }
        for (t, tri) in triangles.iter().enumerate() {
            if !degenerate[t] {
                continue;
            }
            let host = (0..3)
                .map(|k| owner[&(tri[(k + 1) % 3], tri[k])])
                .find(|&u| {
                    let plane_point = points[triangles[u][0] as usize];
                    !degenerate[u]
                        && tri.iter().all(|&v| {
                            (points[v as usize] - plane_point).dot(normals[u]).abs() <= tol
                        })
                });
            if let Some(u) = host {
                let (rt, ru) = (root(&mut parent, t), root(&mut parent, u));
                parent[rt.max(ru)] = rt.min(ru);
            }
        }
        // Boundary loop of each group of coplanar triangles.
        let mut group_of_root: HashMap<usize, usize> = HashMap::new();
        let mut groups: Vec<Vec<usize>> = Vec::new();
        for t in 0..triangles.len() {
            let r = root(&mut parent, t);
            let g = *group_of_root.entry(r).or_insert_with(|| {
                groups.push(Vec::new());
                groups.len() - 1
            });
            groups[g].push(t);
        }
        let mut loops: Vec<Vec<u32>> = Vec::with_capacity(groups.len());
        for group in &groups {
            let mut next: HashMap<u32, u32> = HashMap::new();
            let mut start = u32::MAX;
            for &t in group {
                let tri = triangles[t];
                for k in 0..3 {
                    let (a, b) = (tri[k], tri[(k + 1) % 3]);
                    let interior = owner
                        .get(&(b, a))
                        .is_some_and(|&u| root(&mut parent, u) == root(&mut parent, t));
                    if !interior {
                        if next.insert(a, b).is_some() {
                            return Err(GeometryError::DegenerateHull(
                                "a face boundary is pinched".into(),
                            ));
                        }
                        start = start.min(a);
                    }
                }
            }
            let mut face = vec![start];
            let mut v = next[&start];
            while v != start {
                if face.len() > next.len() {
                    return Err(GeometryError::DegenerateHull(
                        "a face boundary does not close".into(),
                    ));
                }
                face.push(v);
                v = *next
                    .get(&v)
                    .ok_or_else(|| GeometryError::DegenerateHull("open face boundary".into()))?;
            }
            if face.len() != next.len() {
                return Err(GeometryError::DegenerateHull(
                    "a face has several boundary loops".into(),
                ));
            }
            loops.push(face);
        }
        // A vertex on fewer than three faces lies inside an edge: it is not a corner.
        let mut face_count = vec![0usize; points.len()];
        for l in &loops {
            for &v in l {
                face_count[v as usize] += 1;
            }
        }
        for l in &mut loops {
            l.retain(|&v| face_count[v as usize] >= 3);
        }
        // Re-index the corners that remain.
        let mut new_index = vec![u32::MAX; points.len()];
        let mut vertices = Vec::new();
        for l in &loops {
            for &v in l {
                if new_index[v as usize] == u32::MAX {
                    new_index[v as usize] = vertices.len() as u32;
                    vertices.push(points[v as usize]);
                }
            }
        }
        let mut faces = Vec::with_capacity(loops.len());
        for l in &loops {
            let idx: Vec<u32> = l.iter().map(|&v| new_index[v as usize]).collect();
            if idx.len() < 3 {
                return Err(GeometryError::DegenerateHull(
                    "a face collapsed to fewer than 3 corners".into(),
                ));
            }
            let normal = newell_normal(&idx, &vertices);
            let offset = idx
                .iter()
                .map(|&v| normal.dot(vertices[v as usize]))
                .sum::<f64>()
                / idx.len() as f64;
            faces.push(Face {
                vertices: idx,
                edges: Vec::new(),
                normal,
                offset,
            });
        }
        Self::with_topology(vertices, faces, size)
    }

    /// Fill edges and adjacency from faces with counter-clockwise vertex loops, and check them.
    fn with_topology(
        vertices: Vec<DVec3>,
        mut faces: Vec<Face>,
        size: f64,
    ) -> Result<Polytope, GeometryError> {
        let mut edges: Vec<Edge> = Vec::new();
        let mut edge_of: HashMap<(u32, u32), u32> = HashMap::new();
        for (f, face) in faces.iter_mut().enumerate() {
            let n = face.vertices.len();
            for i in 0..n {
                let (a, b) = (face.vertices[i], face.vertices[(i + 1) % n]);
                let key = (a.min(b), a.max(b));
                let e = *edge_of.entry(key).or_insert_with(|| {
                    edges.push(Edge {
                        vertices: [key.0, key.1],
                        faces: [u32::MAX; 2],
                    });
                    (edges.len() - 1) as u32
                });
                let side = if a < b { 0 } else { 1 };
                if edges[e as usize].faces[side] != u32::MAX {
                    return Err(GeometryError::DegenerateHull(
                        "an edge is used twice in one direction".into(),
                    ));
                }
                edges[e as usize].faces[side] = f as u32;
                face.edges.push(e);
            }
        }
        if edges
            .iter()
            .any(|e| e.faces.contains(&u32::MAX) || e.faces[0] == e.faces[1])
        {
            return Err(GeometryError::DegenerateHull(
                "an edge does not separate two faces".into(),
            ));
        }
        let mut vertex_edges = vec![Vec::new(); vertices.len()];
        for (e, edge) in edges.iter().enumerate() {
            for &v in &edge.vertices {
                vertex_edges[v as usize].push(e as u32);
            }
        }
        let mut vertex_faces = vec![Vec::new(); vertices.len()];
        for (f, face) in faces.iter().enumerate() {
            for &v in &face.vertices {
                vertex_faces[v as usize].push(f as u32);
            }
        }
        let centroid = vertices.iter().copied().sum::<DVec3>() / vertices.len() as f64;
        let radius = vertices
            .iter()
            .map(|v| v.distance(centroid))
            .fold(0.0, f64::max);
        let origin_radius = largest_length(&vertices);
        let p = Polytope {
            vertices,
            faces,
            edges,
            vertex_edges,
            vertex_faces,
            centroid,
            radius,
            origin_radius,
        };
        if p.euler_characteristic() != 2 {
            return Err(GeometryError::DegenerateHull(format!(
                "V - E + F = {} instead of 2",
                p.euler_characteristic()
            )));
        }
        let tol = 1e-7 * size.max(f64::MIN_POSITIVE);
        for face in &p.faces {
            if p.vertices
                .iter()
                .any(|v| face.normal.dot(*v) - face.offset > tol)
            {
                return Err(GeometryError::DegenerateHull(
                    "hull is not convex within tolerance".into(),
                ));
            }
        }
        Ok(p)
    }

    /// V − E + F (2 for every convex polytope).
    pub fn euler_characteristic(&self) -> i64 {
        self.vertices.len() as i64 - self.edges.len() as i64 + self.faces.len() as i64
    }

    /// The same polytope with every vertex moved by `delta` (used to put the origin at the centre
    /// of mass).
    pub fn translated(&self, delta: DVec3) -> Polytope {
        let mut p = self.clone();
        for v in &mut p.vertices {
            *v += delta;
        }
        for f in &mut p.faces {
            f.offset += f.normal.dot(delta);
        }
        p.centroid += delta;
        p.origin_radius = largest_length(&p.vertices);
        p
    }

    /// Index of a vertex maximizing `v · dir` (the lowest index among ties).
    pub fn support_index(&self, dir: DVec3) -> usize {
        let mut best = 0;
        let mut best_dot = f64::NEG_INFINITY;
        for (i, v) in self.vertices.iter().enumerate() {
            let d = v.dot(dir);
            if d > best_dot {
                best_dot = d;
                best = i;
            }
        }
        best
    }

    /// Unit direction of an edge, from `vertices[0]` to `vertices[1]`.
    pub fn edge_direction(&self, e: usize) -> DVec3 {
        let [a, b] = self.edges[e].vertices;
        (self.vertices[b as usize] - self.vertices[a as usize]).normalize()
    }

    /// The feature of the boundary on which the local point `p` lies, within `tol` (m): a vertex if
    /// one is that close, else an edge, else the face whose plane is closest.
    pub fn feature_at(&self, p: DVec3, tol: f64) -> Feature {
        if let Some(v) = self.vertices.iter().position(|v| v.distance(p) <= tol) {
            return Feature::Vertex(v as u32);
        }
        for (e, edge) in self.edges.iter().enumerate() {
            let [a, b] = edge.vertices.map(|i| self.vertices[i as usize]);
            if point_segment_distance(p, a, b) <= tol {
                return Feature::Edge(e as u32);
            }
        }
        let (f, _) = self
            .faces
            .iter()
            .enumerate()
            .map(|(f, face)| (f, (face.normal.dot(p) - face.offset).abs()))
            .fold(
                (0, f64::INFINITY),
                |best, c| if c.1 < best.1 { c } else { best },
            );
        Feature::Face(f as u32)
    }

    /// Volume (m³) by the divergence theorem over a fan triangulation of each face.
    pub fn volume(&self) -> f64 {
        let mut six_v = 0.0;
        for face in &self.faces {
            let a = self.vertices[face.vertices[0] as usize];
            for w in face.vertices[1..].windows(2) {
                let (b, c) = (self.vertices[w[0] as usize], self.vertices[w[1] as usize]);
                six_v += a.dot(b.cross(c));
            }
        }
        six_v / 6.0
    }
}

/// Distance from `p` to the segment `[a, b]`.
pub fn point_segment_distance(p: DVec3, a: DVec3, b: DVec3) -> f64 {
    let ab = b - a;
    let t = if ab.length_squared() > 0.0 {
        ((p - a).dot(ab) / ab.length_squared()).clamp(0.0, 1.0)
    } else {
        0.0
    };
    p.distance(a + t * ab)
}

/// The largest |v| (m).
fn largest_length(vertices: &[DVec3]) -> f64 {
    vertices.iter().map(|v| v.length()).fold(0.0, f64::max)
}

/// Newell's method: a robust normal for a planar polygon.
fn newell_normal(loop_: &[u32], vertices: &[DVec3]) -> DVec3 {
    let mut n = DVec3::ZERO;
    for i in 0..loop_.len() {
        let (a, b) = (
            vertices[loop_[i] as usize],
            vertices[loop_[(i + 1) % loop_.len()] as usize],
        );
        n += DVec3::new(
            (a.y - b.y) * (a.z + b.z),
            (a.z - b.z) * (a.x + b.x),
            (a.x - b.x) * (a.y + b.y),
        );
    }
    n.normalize()
}

fn bounding_diagonal(points: &[DVec3]) -> f64 {
    let (lo, hi) = points.iter().fold(
        (DVec3::splat(f64::INFINITY), DVec3::splat(f64::NEG_INFINITY)),
        |(lo, hi), p| (lo.min(*p), hi.max(*p)),
    );
    (hi - lo).length()
}

/// Fails unless the points span a volume: some four of them form a tetrahedron of real height.
fn check_spans_volume(points: &[DVec3], size: f64) -> Result<(), GeometryError> {
    let tol = 1e-9 * size;
    let p0 = points[0];
    let far = |f: &dyn Fn(DVec3) -> f64| {
        points
            .iter()
            .copied()
            .map(|p| (f(p), p))
            .fold((-1.0, p0), |a, b| if b.0 > a.0 { b } else { a })
    };
    let (d1, p1) = far(&|p| p.distance(p0));
    if d1 <= tol {
        return Err(GeometryError::DegenerateHull("all points coincide".into()));
    }
    let axis = (p1 - p0) / d1;
    let (d2, p2) = far(&|p| (p - p0 - axis * (p - p0).dot(axis)).length());
    if d2 <= tol {
        return Err(GeometryError::DegenerateHull(
            "all points lie on one line".into(),
        ));
    }
    let normal = axis.cross(p2 - p0).normalize();
    let (d3, _) = far(&|p| (p - p0).dot(normal).abs());
    if d3 <= tol {
        return Err(GeometryError::DegenerateHull(
            "all points lie on one plane".into(),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cube_has_eight_corners_twelve_edges_six_square_faces() {
        let p = Polytope::cuboid(DVec3::new(0.5, 1.0, 1.5));
        assert_eq!((p.vertices.len(), p.edges.len(), p.faces.len()), (8, 12, 6));
        assert!(p
            .faces
            .iter()
            .all(|f| f.vertices.len() == 4 && f.edges.len() == 4));
        assert!((p.volume() - 6.0).abs() < 1e-12);
    }

    #[test]
    fn points_on_edges_and_faces_are_not_corners() {
        // Cube corners plus an edge midpoint, a face centre and the body centre.
        let mut pts: Vec<DVec3> = Polytope::cuboid(DVec3::ONE).vertices.clone();
        pts.extend([
            DVec3::new(0.0, -1.0, -1.0),
            DVec3::new(0.0, 0.0, 1.0),
            DVec3::ZERO,
        ]);
        let p = Polytope::from_points(&pts).unwrap();
        assert_eq!((p.vertices.len(), p.edges.len(), p.faces.len()), (8, 12, 6));
    }

    #[test]
    fn flat_point_sets_are_rejected() {
        let flat = [DVec3::ZERO, DVec3::X, DVec3::Y, DVec3::new(1.0, 1.0, 0.0)];
        assert!(
            matches!(Polytope::from_points(&flat), Err(GeometryError::DegenerateHull(m)) if m.contains("plane"))
        );
        assert!(Polytope::from_points(&[DVec3::ZERO; 3]).is_err());
    }

    #[test]
    fn cylinder_prism_topology() {
        let p = Polytope::cylinder(0.5, 1.0, 12).unwrap();
        assert_eq!(
            (p.vertices.len(), p.edges.len(), p.faces.len()),
            (24, 36, 14)
        );
    }
}
