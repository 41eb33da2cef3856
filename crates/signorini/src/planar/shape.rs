//! Planar shapes, written in the body frame (x, y; angles counter-clockwise): convex polygons
//! (from points by their convex hull, regular n-gons, boxes), disks, segments (finite, no
//! thickness) and lines (the boundary of a fixed half-plane).
//!
//! A dynamic body's shape is stored about its centre of mass (`mass.rs` computes it; the scene
//! keeps the offset of the user's shape frame). Segments and lines have no area and are the
//! shapes of fixed bodies only (`PlanarBody::new` refuses them on a dynamic body).
use glam::DVec2;

/// Most points a `polygon` may list (its hull is O(n log n); the narrow phase is O(n) per pair).
pub const MAX_POLYGON_POINTS: usize = 10_000;

/// A convex polygon: vertices counter-clockwise, no three collinear, with the outward unit
/// normal of each edge i (from vertex i to vertex i + 1).
#[derive(Clone, Debug, PartialEq)]
pub struct ConvexPolygon {
    vertices: Vec<DVec2>,
    normals: Vec<DVec2>,
}

/// The outward normal of the edge from `a` to `b` of a counter-clockwise polygon: the edge
/// direction turned clockwise by 90°, normalized.
pub fn outward_normal(a: DVec2, b: DVec2) -> DVec2 {
    let e = b - a;
    DVec2::new(e.y, -e.x).normalize()
}

/// z of the cross product (a × b).
pub fn cross(a: DVec2, b: DVec2) -> f64 {
    a.x * b.y - a.y * b.x
}

impl ConvexPolygon {
    /// The convex hull of `points` (Andrew's monotone chain; collinear and repeated points are
    /// dropped). Fails, saying why, when the points are not finite or span no area (fewer than
    /// three points off one line, or a hull thinner than 1e-12 of its size).
    pub fn from_points(points: &[DVec2]) -> Result<Self, String> {
        if points.len() < 3 {
            return Err(format!(
                "a polygon needs at least 3 points, got {}",
                points.len()
            ));
        }
        if points.len() > MAX_POLYGON_POINTS {
            return Err(format!(
                "a polygon takes at most {MAX_POLYGON_POINTS} points, got {}",
                points.len()
            ));
        }
        if let Some(i) = points.iter().position(|p| !p.is_finite()) {
            return Err(format!("point {i} is not finite"));
        }
        let mut pts = points.to_vec();
        pts.sort_by(|a, b| a.x.total_cmp(&b.x).then(a.y.total_cmp(&b.y)));
        pts.dedup();
        // Lower then upper hull; a turn that is not strictly left (cross ≤ 0) is dropped, so
        // collinear points on an edge are not vertices.
        let mut hull: Vec<DVec2> = Vec::with_capacity(pts.len() + 1);
        for pass in 0..2 {
            let start = hull.len();
            let iter: Box<dyn Iterator<Item = &DVec2>> = if pass == 0 {
                Box::new(pts.iter())
            } else {
                Box::new(pts.iter().rev())
            };
            for &p in iter {
                while hull.len() >= start + 2
                    && cross(
                        hull[hull.len() - 1] - hull[hull.len() - 2],
                        p - hull[hull.len() - 2],
                    ) <= 0.0
                {
                    hull.pop();
                }
                hull.push(p);
            }
            hull.pop(); // the last point starts the other chain
        }
        let size = pts
            .iter()
            .map(|p| (*p - pts[0]).length())
            .fold(0.0, f64::max);
        let polygon = ConvexPolygon::from_hull(hull);
        let area = polygon.signed_area();
        if polygon.vertices.len() < 3 || area.is_nan() || area <= 1e-12 * size * size {
            return Err("the points span no area (they are collinear or coincide)".into());
        }
        Ok(polygon)
    }

    /// Vertices already convex and counter-clockwise (no check beyond debug builds).
    fn from_hull(vertices: Vec<DVec2>) -> Self {
        let n = vertices.len();
        let normals = (0..n)
            .map(|i| outward_normal(vertices[i], vertices[(i + 1) % n]))
            .collect();
        ConvexPolygon { vertices, normals }
    }

    /// A regular polygon of `sides` vertices on a circle of `radius` about the origin, vertex 0
    /// at angle 0.
    pub fn regular(sides: usize, radius: f64) -> Result<Self, String> {
        if sides < 3 {
            return Err(format!(
                "a regular polygon needs at least 3 sides, got {sides}"
            ));
        }
        if !(radius > 0.0 && radius.is_finite()) {
            return Err(format!(
                "the radius must be positive and finite, got {radius}"
            ));
        }
        let step = std::f64::consts::TAU / sides as f64;
        let vertices = (0..sides)
            .map(|i| {
                let a = step * i as f64;
                DVec2::new(radius * a.cos(), radius * a.sin())
            })
            .collect();
        Ok(ConvexPolygon::from_hull(vertices))
    }

    /// An axis-aligned rectangle of `width` × `height` centred on the origin.
    pub fn rectangle(width: f64, height: f64) -> Result<Self, String> {
        if !(width > 0.0 && height > 0.0 && width.is_finite() && height.is_finite()) {
            return Err(format!(
                "a box needs a positive, finite width and height, got {width} × {height}"
            ));
        }
        let (hx, hy) = (0.5 * width, 0.5 * height);
        Ok(ConvexPolygon::from_hull(vec![
            DVec2::new(-hx, -hy),
            DVec2::new(hx, -hy),
            DVec2::new(hx, hy),
            DVec2::new(-hx, hy),
        ]))
    }

    pub fn vertices(&self) -> &[DVec2] {
        &self.vertices
    }

    pub fn normals(&self) -> &[DVec2] {
        &self.normals
    }

    /// ½ Σ vᵢ × vᵢ₊₁ (positive: counter-clockwise).
    pub fn signed_area(&self) -> f64 {
        let n = self.vertices.len();
        0.5 * (0..n)
            .map(|i| cross(self.vertices[i], self.vertices[(i + 1) % n]))
            .sum::<f64>()
    }

    /// The same polygon moved by `offset` (the vertices; normals are unchanged).
    pub fn translated(&self, offset: DVec2) -> Self {
        ConvexPolygon {
            vertices: self.vertices.iter().map(|v| *v + offset).collect(),
            normals: self.normals.clone(),
        }
    }
}

/// A shape in its body's frame.
#[derive(Clone, Debug, PartialEq)]
pub enum PlanarShape {
    Polygon(ConvexPolygon),
    /// A disk of this radius about the body origin.
    Disk {
        radius: f64,
    },
    /// The segment from `a` to `b` (no thickness; fixed bodies only).
    Segment {
        a: DVec2,
        b: DVec2,
    },
    /// The line through the body origin with unit `normal`; the solid half-plane is on the side
    /// opposite to the normal (fixed bodies only).
    Line {
        normal: DVec2,
    },
}

impl PlanarShape {
    /// The name used in scene files.
    pub fn kind(&self) -> &'static str {
        match self {
            PlanarShape::Polygon(_) => "polygon",
            PlanarShape::Disk { .. } => "disk",
            PlanarShape::Segment { .. } => "segment",
            PlanarShape::Line { .. } => "line",
        }
    }

    /// Largest distance of a point of the shape from the body origin (m); ∞ for a line.
    pub fn bounding_radius(&self) -> f64 {
        match self {
            PlanarShape::Polygon(p) => p.vertices().iter().map(|v| v.length()).fold(0.0, f64::max),
            PlanarShape::Disk { radius } => *radius,
            PlanarShape::Segment { a, b } => a.length().max(b.length()),
            PlanarShape::Line { .. } => f64::INFINITY,
        }
    }

    /// Can a dynamic body have this shape (has it an area)?
    pub fn has_area(&self) -> bool {
        matches!(self, PlanarShape::Polygon(_) | PlanarShape::Disk { .. })
    }

    /// The same shape with its body origin moved to `origin` (every point p becomes p − origin).
    pub fn recentred(&self, origin: DVec2) -> Self {
        match self {
            PlanarShape::Polygon(p) => PlanarShape::Polygon(p.translated(-origin)),
            PlanarShape::Disk { radius } => {
                debug_assert!(
                    origin == DVec2::ZERO,
                    "a disk is centred on its body origin"
                );
                PlanarShape::Disk { radius: *radius }
            }
            PlanarShape::Segment { a, b } => PlanarShape::Segment {
                a: *a - origin,
                b: *b - origin,
            },
            PlanarShape::Line { normal } => {
                debug_assert!(
                    origin == DVec2::ZERO,
                    "a line passes through its body origin"
                );
                PlanarShape::Line { normal: *normal }
            }
        }
    }
}
