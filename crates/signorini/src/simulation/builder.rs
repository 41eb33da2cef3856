//! Scenes written in code: [`ModelBuilder`] collects settings, materials, bodies
//! ([`BodyBuilder`]) and the contact model, and builds a [`Scene`] as a scene file would.
//!
//! Why through a [`SceneDesc`] and [`scene::build`] rather than assembling `Model` and `State`
//! directly: `build` is where a scene's bodies get their mass properties, centres of mass and
//! initial states, where materials are resolved and where the contact model and its parameters
//! are checked; going through it gives a built scene exactly what the same scene written as a file
//! gets (same numbers, same checks, same error messages), and `Scene::desc` stays meaningful for
//! [`Scene::contact_model`] and the run's summary. What the file parser checks on values before
//! `build` (positive time step and mass, friction >= 0, unique names, …) the builder checks here,
//! reporting a [`SceneError`] whose file is the builder's name and whose key is the one a scene
//! file would have (`body[1].mass`, `simulation.time_step`).
//!
//! ```text
//!   ModelBuilder::new().time_step(1e-3).ground()
//!       .body(BodyBuilder::cuboid("box", DVec3::splat(0.1)).mass(1.0).position(…))
//!       .build()?                       → Scene (through SceneDesc and scene::build)
//! ```
use super::Error;
use crate::contact::ParamInput;
use crate::dynamics::{Integrator, Settings};
use crate::scene::{
    self, BodyDesc, BodyShapeDesc, ContactDesc, KeyLines, LocatedShape, MassDesc, MaterialDesc,
    OutputDesc, ParamDesc, Scene, SceneDesc, SceneError, ShapeDesc, SimulationDesc,
};
use glam::{DQuat, DVec3};

/// A scene in code: settings, materials, bodies and contact model; [`ModelBuilder::build`] checks
/// and builds it.
#[derive(Clone, Debug)]
pub struct ModelBuilder {
    name: String,
    settings: Settings,
    contact: ContactDesc,
    materials: Vec<MaterialDesc>,
    bodies: Vec<BodyBuilder>,
}

impl Default for ModelBuilder {
    fn default() -> Self {
        Self::new()
    }
}

impl ModelBuilder {
    /// An empty scene with the scene file's defaults: h = 1 ms for 1 s, gravity −9.81 m/s² along
    /// z, semi-implicit Euler, `deepest-point` contacts, the material `default` (friction 0.5,
    /// restitution 0).
    pub fn new() -> Self {
        ModelBuilder {
            name: "ModelBuilder".into(),
            settings: Settings::default(),
            contact: ContactDesc::default(),
            materials: vec![MaterialDesc::default_material()],
            bodies: Vec::new(),
        }
    }

    /// The scene's name, in error messages and a run's summary (default `ModelBuilder`).
    pub fn name(mut self, name: &str) -> Self {
        self.name = name.to_string();
        self
    }

    /// Time step h (s).
    pub fn time_step(mut self, h: f64) -> Self {
        self.settings.time_step = h;
        self
    }

    /// Simulated duration (s).
    pub fn duration(mut self, t: f64) -> Self {
        self.settings.duration = t;
        self
    }

    /// Gravity (m/s²).
    pub fn gravity(mut self, g: DVec3) -> Self {
        self.settings.gravity = g;
        self
    }

    pub fn integrator(mut self, integrator: Integrator) -> Self {
        self.settings.integrator = integrator;
        self
    }

    /// All settings at once (activation distance, speed limit, adaptive steps, …).
    pub fn settings(mut self, settings: Settings) -> Self {
        self.settings = settings;
        self
    }

    /// The contact model (see `signorini models`).
    pub fn contact_model(mut self, name: &str) -> Self {
        self.contact.model = name.to_string();
        self
    }

    /// A contact-model parameter, as under `[contact]` in a scene file; a number (`1e4`), a word
    /// (`"penetrating"`) or a list of words (`vec!["pgs", "lemke"]`).
    pub fn param(mut self, name: &str, value: impl IntoParam) -> Self {
        self.contact.params.retain(|p| p.name != name);
        self.contact.params.push(ParamDesc {
            name: name.to_string(),
            value: value.into_param(),
            line: 0,
            key: format!("contact.{name}"),
        });
        self
    }

    /// A material (friction coefficient ≥ 0, restitution in [0, 1]); redefining `default`
    /// replaces the implicit one.
    pub fn material(mut self, name: &str, friction: f64, restitution: f64) -> Self {
        let key = format!("material({name})");
        self.materials.retain(|m| m.name != name);
        self.materials.push(MaterialDesc {
            name: name.to_string(),
            friction,
            restitution,
            line: 0,
            key,
        });
        self
    }

    pub fn body(mut self, body: BodyBuilder) -> Self {
        self.bodies.push(body);
        self
    }

    /// A fixed half-space `ground` whose surface is the plane z = 0 (normal +z).
    pub fn ground(self) -> Self {
        self.body(BodyBuilder::half_space("ground", DVec3::Z))
    }

    /// Check the values and build the scene through [`scene::build`] (which checks the rest:
    /// shapes, masses, materials, the contact model and its parameters).
    pub fn build(self) -> Result<Scene, Error> {
        let file = self.name.clone();
        let err = |key: String, message: String, hint: &str| {
            Error::Scene(SceneError::new(&file, 0, key, message, hint))
        };
        check_settings(&self.settings).map_err(|(key, message, hint)| err(key, message, hint))?;
        for m in &self.materials {
            check_material(m).map_err(|(key, message, hint)| err(key, message, hint))?;
        }
        let mut bodies: Vec<BodyDesc> = Vec::with_capacity(self.bodies.len());
        for (i, b) in self.bodies.into_iter().enumerate() {
            let desc = b
                .desc(i)
                .map_err(|(key, message, hint)| err(key, message, hint))?;
            if bodies.iter().any(|o| o.name == desc.name) {
                let message = format!("duplicate body name `{}`", desc.name);
                return Err(err(
                    format!("{}.name", desc.key),
                    message,
                    "body names must be unique",
                ));
            }
            bodies.push(desc);
        }
        let desc = SceneDesc {
            file,
            simulation: SimulationDesc {
                settings: self.settings,
                ..SimulationDesc::default()
            },
            contact: self.contact,
            materials: self.materials,
            bodies,
            forces: Vec::new(),
            random_forces: Vec::new(),
            spawns: Vec::new(),
            output: OutputDesc::default(),
            deformables: Vec::new(),
            robots: Vec::new(),
        };
        Ok(scene::build(desc)?)
    }
}

/// (key, message, hint) of a value the scene parser would reject.
type Rejected = (String, String, &'static str);

/// What the parser checks of `[simulation]`.
fn check_settings(s: &Settings) -> Result<(), Rejected> {
    let positive = |name: &str, v: f64| {
        if v > 0.0 && v.is_finite() {
            Ok(())
        } else {
            let message = format!("{name} = {v} must be a finite number greater than 0");
            Err((
                format!("simulation.{name}"),
                message,
                "give a positive number",
            ))
        }
    };
    positive("time_step", s.time_step)?;
    positive("duration", s.duration)?;
    positive("max_speed", s.max_speed)?;
    if !(s.activation_distance >= 0.0 && s.activation_distance.is_finite()) {
        let message = format!(
            "activation_distance = {} must be a finite number of at least 0",
            s.activation_distance
        );
        let key = "simulation.activation_distance".to_string();
        return Err((key, message, "give a distance in m, 0 or more"));
    }
    if !s.gravity.is_finite() {
        let message = format!("gravity = {} is not finite", s.gravity);
        return Err(("simulation.gravity".into(), message, "give finite numbers"));
    }
    Ok(())
}

/// What the parser checks of a `[[material]]`.
fn check_material(m: &MaterialDesc) -> Result<(), Rejected> {
    if !(m.friction >= 0.0 && m.friction.is_finite()) {
        let message = format!("friction = {} must be at least 0", m.friction);
        return Err((
            format!("{}.friction", m.key),
            message,
            "give a coefficient >= 0",
        ));
    }
    if !(0.0..=1.0).contains(&m.restitution) {
        let message = format!("restitution = {} must be between 0 and 1", m.restitution);
        return Err((
            format!("{}.restitution", m.key),
            message,
            "give a coefficient in [0, 1]",
        ));
    }
    Ok(())
}

/// One rigid body of a [`ModelBuilder`] scene: a convex shape, its mass (or fixed), material,
/// pose and velocity. Dynamic bodies need [`BodyBuilder::mass`] or [`BodyBuilder::density`].
#[derive(Clone, Debug)]
pub struct BodyBuilder {
    name: String,
    shape: ShapeDesc,
    mass: Option<MassDesc>,
    material: String,
    position: DVec3,
    orientation: DQuat,
    velocity: DVec3,
    angular_velocity: DVec3,
}

impl BodyBuilder {
    fn new(name: &str, shape: ShapeDesc) -> Self {
        BodyBuilder {
            name: name.to_string(),
            shape,
            mass: None,
            material: "default".into(),
            position: DVec3::ZERO,
            orientation: DQuat::IDENTITY,
            velocity: DVec3::ZERO,
            angular_velocity: DVec3::ZERO,
        }
    }

    /// A box with full edge lengths `size` (m), centred on the body's frame.
    pub fn cuboid(name: &str, size: DVec3) -> Self {
        Self::new(name, ShapeDesc::Box { size })
    }

    /// A sphere of `radius` (m) about the body's frame origin.
    pub fn sphere(name: &str, radius: f64) -> Self {
        Self::new(name, ShapeDesc::Sphere { radius })
    }

    /// The convex hull of `points` (m, body frame; at least 4 not on one plane).
    pub fn convex_hull(name: &str, points: &[DVec3]) -> Self {
        Self::new(
            name,
            ShapeDesc::Convex {
                points: points.to_vec(),
            },
        )
    }

    /// A fixed half-space `{x : normal·(x − position) <= 0}` (the ground, a wall).
    pub fn half_space(name: &str, normal: DVec3) -> Self {
        Self::new(name, ShapeDesc::HalfSpace { normal }).fixed()
    }

    /// Total mass (kg).
    pub fn mass(mut self, kg: f64) -> Self {
        self.mass = Some(MassDesc::Mass(kg));
        self
    }

    /// Uniform density (kg/m³); the mass follows from the shape's volume.
    pub fn density(mut self, rho: f64) -> Self {
        self.mass = Some(MassDesc::Density(rho));
        self
    }

    /// An immovable body.
    pub fn fixed(mut self) -> Self {
        self.mass = Some(MassDesc::Fixed);
        self
    }

    /// A material of the scene (default: `default`).
    pub fn material(mut self, name: &str) -> Self {
        self.material = name.to_string();
        self
    }

    /// World position of the body's frame origin (m).
    pub fn position(mut self, p: DVec3) -> Self {
        self.position = p;
        self
    }

    /// Rotation of the body's frame (normalized when built).
    pub fn orientation(mut self, q: DQuat) -> Self {
        self.orientation = q;
        self
    }

    /// Velocity of the centre of mass (m/s, world).
    pub fn velocity(mut self, v: DVec3) -> Self {
        self.velocity = v;
        self
    }

    /// Angular velocity (rad/s, world).
    pub fn angular_velocity(mut self, w: DVec3) -> Self {
        self.angular_velocity = w;
        self
    }

    /// The `[[body]]` table this body would be, as `body[index]`, with the parser's value checks.
    fn desc(self, index: usize) -> Result<BodyDesc, Rejected> {
        let key = format!("body[{index}]");
        let name = &self.name;
        if name.is_empty() {
            let hint = "give every body a name (set_force and the outputs refer to it)";
            return Err((format!("{key}.name"), "a body needs a name".into(), hint));
        }
        let mass = match self.mass {
            None => {
                let message = format!("body `{name}`: a dynamic body needs a mass or a density");
                let hint = "call .mass(kg) or .density(kg_per_m3), or .fixed()";
                return Err((format!("{key}.mass"), message, hint));
            }
            Some(MassDesc::Mass(v) | MassDesc::Density(v)) if !(v > 0.0 && v.is_finite()) => {
                let message = format!("body `{name}`: mass or density {v} is not positive");
                return Err((
                    format!("{key}.mass"),
                    message,
                    "give a number greater than 0",
                ));
            }
            Some(m) => m,
        };
        if matches!(self.shape, ShapeDesc::HalfSpace { .. }) && mass != MassDesc::Fixed {
            let message = format!("body `{name}`: a half-space is infinite and must be fixed");
            return Err((
                format!("{key}.shape"),
                message,
                "call .fixed() on this body",
            ));
        }
        let vectors = [
            ("position", self.position),
            ("velocity", self.velocity),
            ("angular_velocity", self.angular_velocity),
        ];
        if let Some((what, v)) = vectors.iter().find(|(_, v)| !v.is_finite()) {
            let message = format!("body `{name}`: {what} {v} is not finite");
            return Err((format!("{key}.{what}"), message, "give finite numbers"));
        }
        if !(self.orientation.is_finite() && self.orientation.length() > 0.0) {
            let message = format!(
                "body `{name}`: orientation {} is not a rotation",
                self.orientation
            );
            return Err((
                format!("{key}.orientation"),
                message,
                "give a nonzero quaternion",
            ));
        }
        Ok(BodyDesc {
            name: self.name,
            material: self.material,
            mass,
            position: self.position,
            orientation: self.orientation.normalize(),
            velocity: self.velocity,
            angular_velocity: self.angular_velocity,
            shape: BodyShapeDesc::Single(LocatedShape {
                shape: self.shape,
                line: 0,
                key: format!("{key}.shape"),
            }),
            line: 0,
            key,
            key_lines: KeyLines::default(),
        })
    }
}

/// A contact-model parameter value: a number, a word or a list of words.
pub trait IntoParam {
    fn into_param(self) -> ParamInput;
}

impl IntoParam for ParamInput {
    fn into_param(self) -> ParamInput {
        self
    }
}

impl IntoParam for f64 {
    fn into_param(self) -> ParamInput {
        ParamInput::Number(self)
    }
}

impl IntoParam for &str {
    fn into_param(self) -> ParamInput {
        ParamInput::Word(self.to_string())
    }
}

impl IntoParam for String {
    fn into_param(self) -> ParamInput {
        ParamInput::Word(self)
    }
}

impl IntoParam for Vec<&str> {
    fn into_param(self) -> ParamInput {
        ParamInput::List(self.into_iter().map(str::to_string).collect())
    }
}
