//! `ModelBuilder` and `BodyBuilder`: scenes written in code, as the library's builders. Each
//! method changes the builder in place and returns it, so calls chain as in Rust; `build()`
//! checks the scene as a scene file would be checked (SceneError with the file's key, e.g.
//! `body[0].mass`, and file = the builder's name).
use crate::convert;
use crate::errors::to_py;
use crate::sim::Scene;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use signorini::{BodyBuilder as RustBody, Integrator, ModelBuilder as RustModel};

/// One rigid body of a ModelBuilder scene: a convex shape, its mass (or fixed), material, pose
/// and velocity. Dynamic bodies need mass() or density().
#[pyclass(module = "signorini")]
#[derive(Clone)]
pub struct BodyBuilder {
    inner: RustBody,
}

impl BodyBuilder {
    fn map(
        mut slf: PyRefMut<'_, Self>,
        f: impl FnOnce(RustBody) -> RustBody,
    ) -> PyRefMut<'_, Self> {
        slf.inner = f(slf.inner.clone());
        slf
    }
}

#[pymethods]
impl BodyBuilder {
    /// A box with full edge lengths `size` (m, (x, y, z)), centred on the body's frame.
    #[staticmethod]
    fn cuboid(name: &str, size: &Bound<'_, PyAny>) -> PyResult<Self> {
        let size = convert::vec3("size", size)?;
        Ok(BodyBuilder {
            inner: RustBody::cuboid(name, size),
        })
    }

    /// A sphere of `radius` (m) about the body's frame origin.
    #[staticmethod]
    fn sphere(name: &str, radius: f64) -> Self {
        BodyBuilder {
            inner: RustBody::sphere(name, radius),
        }
    }

    /// The convex hull of `points` (m, body frame; a sequence of (x, y, z), at least 4 not on
    /// one plane).
    #[staticmethod]
    fn convex_hull(name: &str, points: Vec<Bound<'_, PyAny>>) -> PyResult<Self> {
        let pts = points
            .iter()
            .map(|p| convert::vec3("points", p))
            .collect::<PyResult<Vec<_>>>()?;
        Ok(BodyBuilder {
            inner: RustBody::convex_hull(name, &pts),
        })
    }

    /// A fixed half-space {x : normal·(x − position) ≤ 0} (the ground, a wall).
    #[staticmethod]
    fn half_space(name: &str, normal: &Bound<'_, PyAny>) -> PyResult<Self> {
        let normal = convert::vec3("normal", normal)?;
        Ok(BodyBuilder {
            inner: RustBody::half_space(name, normal),
        })
    }

    /// Total mass (kg).
    fn mass(slf: PyRefMut<'_, Self>, kg: f64) -> PyRefMut<'_, Self> {
        Self::map(slf, |b| b.mass(kg))
    }

    /// Uniform density (kg/m³); the mass follows from the shape's volume.
    fn density(slf: PyRefMut<'_, Self>, kg_per_m3: f64) -> PyRefMut<'_, Self> {
        Self::map(slf, |b| b.density(kg_per_m3))
    }

    /// An immovable body.
    fn fixed(slf: PyRefMut<'_, Self>) -> PyRefMut<'_, Self> {
        Self::map(slf, |b| b.fixed())
    }

    /// A material of the scene (default: "default").
    fn material<'a>(slf: PyRefMut<'a, Self>, name: &str) -> PyRefMut<'a, Self> {
        Self::map(slf, |b| b.material(name))
    }

    /// World position of the body's frame origin (m).
    fn position<'a>(slf: PyRefMut<'a, Self>, p: &Bound<'_, PyAny>) -> PyResult<PyRefMut<'a, Self>> {
        let p = convert::vec3("position", p)?;
        Ok(Self::map(slf, |b| b.position(p)))
    }

    /// Rotation of the body's frame as a quaternion (w, x, y, z); normalized when built.
    fn orientation<'a>(
        slf: PyRefMut<'a, Self>,
        q: &Bound<'_, PyAny>,
    ) -> PyResult<PyRefMut<'a, Self>> {
        let q = convert::quat_wxyz("orientation", q)?;
        Ok(Self::map(slf, |b| b.orientation(q)))
    }

    /// Velocity of the centre of mass (m/s, world).
    fn velocity<'a>(slf: PyRefMut<'a, Self>, v: &Bound<'_, PyAny>) -> PyResult<PyRefMut<'a, Self>> {
        let v = convert::vec3("velocity", v)?;
        Ok(Self::map(slf, |b| b.velocity(v)))
    }

    /// Angular velocity (rad/s, world).
    fn angular_velocity<'a>(
        slf: PyRefMut<'a, Self>,
        w: &Bound<'_, PyAny>,
    ) -> PyResult<PyRefMut<'a, Self>> {
        let w = convert::vec3("angular_velocity", w)?;
        Ok(Self::map(slf, |b| b.angular_velocity(w)))
    }

    fn __repr__(&self) -> String {
        format!("BodyBuilder({:?})", self.inner)
    }
}

/// A scene in code: settings, materials, bodies and the contact model. Defaults are the scene
/// file's: h = 1 ms for 1 s, gravity (0, 0, −9.81) m/s², semi-implicit Euler, the
/// deepest-point model, the material "default" (friction 0.5, restitution 0).
#[pyclass(module = "signorini")]
#[derive(Clone)]
pub struct ModelBuilder {
    inner: RustModel,
}

impl ModelBuilder {
    fn map(
        mut slf: PyRefMut<'_, Self>,
        f: impl FnOnce(RustModel) -> RustModel,
    ) -> PyRefMut<'_, Self> {
        slf.inner = f(std::mem::take(&mut slf.inner));
        slf
    }
}

#[pymethods]
impl ModelBuilder {
    /// An empty scene named `name` (in error messages; default "ModelBuilder").
    #[new]
    #[pyo3(signature = (name = "ModelBuilder"))]
    fn new(name: &str) -> Self {
        ModelBuilder {
            inner: RustModel::new().name(name),
        }
    }

    /// Time step h (s).
    fn time_step(slf: PyRefMut<'_, Self>, h: f64) -> PyRefMut<'_, Self> {
        Self::map(slf, |m| m.time_step(h))
    }

    /// Simulated duration (s).
    fn duration(slf: PyRefMut<'_, Self>, t: f64) -> PyRefMut<'_, Self> {
        Self::map(slf, |m| m.duration(t))
    }

    /// Gravity (m/s², (x, y, z)).
    fn gravity<'a>(slf: PyRefMut<'a, Self>, g: &Bound<'_, PyAny>) -> PyResult<PyRefMut<'a, Self>> {
        let g = convert::vec3("gravity", g)?;
        Ok(Self::map(slf, |m| m.gravity(g)))
    }

    /// The integrator: "semi-implicit-euler", "implicit-euler" or "rk4".
    fn integrator<'a>(slf: PyRefMut<'a, Self>, name: &str) -> PyResult<PyRefMut<'a, Self>> {
        let Some(i) = Integrator::from_name(name) else {
            let names: Vec<_> = Integrator::ALL.iter().map(|i| i.name()).collect();
            return Err(PyValueError::new_err(format!(
                "unknown integrator `{name}`; use one of {}",
                names.join(", ")
            )));
        };
        Ok(Self::map(slf, |m| m.integrator(i)))
    }

    /// The contact model (a name from signorini.models()).
    fn contact_model<'a>(slf: PyRefMut<'a, Self>, name: &str) -> PyRefMut<'a, Self> {
        Self::map(slf, |m| m.contact_model(name))
    }

    /// A contact-model parameter, as under [contact] in a scene file: a number, a word or a list
    /// of words (checked by build()).
    fn param<'a>(
        slf: PyRefMut<'a, Self>,
        name: &str,
        value: &Bound<'_, PyAny>,
    ) -> PyResult<PyRefMut<'a, Self>> {
        let value = convert::param(name, value)?;
        Ok(Self::map(slf, |m| m.param(name, value)))
    }

    /// A material: Coulomb friction coefficient (≥ 0) and restitution (in [0, 1]); redefining
    /// "default" replaces the implicit one.
    fn material<'a>(
        slf: PyRefMut<'a, Self>,
        name: &str,
        friction: f64,
        restitution: f64,
    ) -> PyRefMut<'a, Self> {
        Self::map(slf, |m| m.material(name, friction, restitution))
    }

    /// A fixed half-space "ground" whose surface is the plane z = 0 (normal +z).
    fn ground(slf: PyRefMut<'_, Self>) -> PyRefMut<'_, Self> {
        Self::map(slf, |m| m.ground())
    }

    /// Add a body (a copy of `body`: changing the BodyBuilder afterwards does not change it).
    fn body<'a>(slf: PyRefMut<'a, Self>, body: &BodyBuilder) -> PyRefMut<'a, Self> {
        let b = body.inner.clone();
        Self::map(slf, |m| m.body(b))
    }

    /// Check the values and build the scene, as a scene file is built; raises SceneError with the
    /// key a file would have. The builder is left as it was.
    fn build(&self) -> PyResult<Scene> {
        let inner = self.inner.clone().build().map_err(to_py)?;
        Ok(Scene { inner })
    }

    fn __repr__(&self) -> String {
        format!("ModelBuilder({:?})", self.inner)
    }
}
