//! The convex shapes a body is made of.
use super::{GeometryError, MassProperties, Polytope};
use glam::DVec3;
use std::sync::Arc;

/// A convex piece of a body, in the piece's own frame.
#[derive(Clone, Debug, PartialEq)]
pub enum Shape {
    /// Ball of the given radius (m) centred at the origin.
    Sphere { radius: f64 },
    /// Convex polytope: boxes, cylinders (as prisms) and hulls of point clouds.
    Polytope(Arc<Polytope>),
    /// The solid {x : normal · x ≤ 0}; only for fixed bodies. `normal` is a unit vector.
    HalfSpace { normal: DVec3 },
}

impl Shape {
    /// Box of full edge lengths `size` (m).
    pub fn cuboid(size: DVec3) -> Result<Shape, GeometryError> {
        if !(size.min_element() > 0.0) || !size.is_finite() {
            return Err(GeometryError::InvalidShape(
                "box edge lengths must be positive".into(),
            ));
        }
        Ok(Shape::Polytope(Arc::new(Polytope::try_cuboid(size / 2.0)?)))
    }

    pub fn sphere(radius: f64) -> Result<Shape, GeometryError> {
        if !(radius > 0.0) || !radius.is_finite() {
            return Err(GeometryError::InvalidShape(
                "sphere radius must be positive".into(),
            ));
        }
        Ok(Shape::Sphere { radius })
    }

    pub fn convex_hull(points: &[DVec3]) -> Result<Shape, GeometryError> {
        Ok(Shape::Polytope(Arc::new(Polytope::from_points(points)?)))
    }

    pub fn cylinder(radius: f64, height: f64, segments: u32) -> Result<Shape, GeometryError> {
        Ok(Shape::Polytope(Arc::new(Polytope::cylinder(
            radius, height, segments,
        )?)))
    }

    pub fn half_space(normal: DVec3) -> Result<Shape, GeometryError> {
        let n = normal.normalize_or_zero();
        if n == DVec3::ZERO || !n.is_finite() {
            return Err(GeometryError::InvalidShape(
                "half-space normal must be a nonzero vector".into(),
            ));
        }
        Ok(Shape::HalfSpace { normal: n })
    }

    /// Mass properties at density `rho` (kg/m³); `None` for unbounded shapes.
    pub fn mass_properties(&self, rho: f64) -> Option<MassProperties> {
        match self {
            Shape::Sphere { radius } => Some(MassProperties::sphere(*radius, rho)),
            Shape::Polytope(p) => Some(MassProperties::polytope(p, rho)),
            Shape::HalfSpace { .. } => None,
        }
    }

    /// Radius of a ball about the shape-frame origin that contains the shape (m); infinite for a
    /// half-space.
    pub fn bounding_radius(&self) -> f64 {
        match self {
            Shape::Sphere { radius } => *radius,
            Shape::Polytope(p) => p.origin_radius,
            Shape::HalfSpace { .. } => f64::INFINITY,
        }
    }

    /// The shape with its frame origin moved so that the old point `-delta` becomes the origin
    /// (i.e. every point moves by `delta`). Spheres are recentred by the caller's pose instead.
    pub fn translated(&self, delta: DVec3) -> Shape {
        match self {
            Shape::Polytope(p) => Shape::Polytope(Arc::new(p.translated(delta))),
            other => other.clone(),
        }
    }

    pub fn kind(&self) -> &'static str {
        match self {
            Shape::Sphere { .. } => "sphere",
            Shape::Polytope(_) => "polytope",
            Shape::HalfSpace { .. } => "halfspace",
        }
    }
}
