//! From a validated [`SceneDesc`] to the simulation's [`Model`] and initial [`State`]: shapes
//! become polytopes and spheres, masses and inertias are computed, spawned bodies and random
//! force pulses are generated from their seeds. Errors found here (a degenerate hull, an unknown
//! contact parameter) are reported with the file, line and key of the offending table.
use super::desc::{
    self, BodyShapeDesc, ContactDesc, MassDesc, SceneDesc, ShapeDesc, SpawnMassDesc, SpawnShapeDesc,
};
use super::overlap::Placed;
use super::{load_scene, SceneError};
use crate::contact::{self, ConfigError, ContactModel, ParamInput};
use crate::dynamics::{Body, BodyState, Material, Model, Piece, ScheduledForce, State};
use crate::geometry::{Pose, Shape};
use crate::util::rng::Rng;
use glam::{DQuat, DVec3};
use std::path::Path;

/// A scene ready to run: what it is (`model`), where it starts (`initial`) and how it was written.
#[derive(Clone, Debug)]
pub struct Scene {
    pub desc: SceneDesc,
    pub model: Model,
    pub initial: State,
}

/// Read, validate and build the scene file at `path`.
pub fn load(path: &Path) -> Result<Scene, SceneError> {
    build(load_scene(path)?)
}

/// Build a parsed scene.
pub fn build(desc: SceneDesc) -> Result<Scene, SceneError> {
    let file = desc.file.clone();
    let err = |line: usize, key: &str, message: String, hint: &str| {
        SceneError::new(&file, line, key, message, hint)
    };

    // A scene with robots runs under a tree model, whose parameters the robot run checks
    // (`simulation::robot_scene`).
    if desc.robots.is_empty() {
        validate_contact(&desc, None)?;
    }
    let materials: Vec<Material> = desc
        .materials
        .iter()
        .map(|m| Material {
            name: m.name.clone(),
            friction: m.friction,
            restitution: m.restitution,
        })
        .collect();
    let material_index = |name: &str| materials.iter().position(|m| m.name == name);

    let mut bodies = Vec::new();
    let mut states = Vec::new();
    for b in &desc.bodies {
        let pieces = match &b.shape {
            BodyShapeDesc::Single(s) => vec![Piece {
                shape: make_shape(&file, s)?,
                pose: Pose::IDENTITY,
            }],
            BodyShapeDesc::Compound(ps) => ps
                .iter()
                .map(|p| {
                    Ok(Piece {
                        shape: make_shape(&file, &p.shape)?,
                        pose: Pose::new(p.position, p.orientation),
                    })
                })
                .collect::<Result<Vec<_>, SceneError>>()?,
        };
        let material = material_index(&b.material).ok_or_else(|| {
            err(
                b.line,
                &format!("{}.material", b.key),
                format!("undefined material `{}`", b.material),
                "define it in a [[material]] table",
            )
        })?;
        let mass_key = if matches!(b.mass, MassDesc::Density(_)) {
            "density"
        } else {
            "mass"
        };
        let body = match b.mass {
            MassDesc::Fixed => Ok(Body::fixed(&b.name, pieces, material)),
            MassDesc::Mass(m) => Body::dynamic(&b.name, pieces, Some(m), 1.0, material),
            MassDesc::Density(rho) => Body::dynamic(&b.name, pieces, None, rho, material),
        }
        .map_err(|m| {
            err(
                b.key_lines.line_of(mass_key, b.line),
                &format!("{}.{mass_key}", b.key),
                m,
                "check the body's shapes and its mass or density (kg, kg/m^3)",
            )
        })?;
        // The step's speed check (|v| + |ω| r above max_speed stops a run as diverging) would
        // otherwise blame the time step for what the scene asked.
        let max_speed = desc.simulation.settings.max_speed;
        let speed = b.velocity.length() + b.angular_velocity.length() * body.bounding_radius();
        if !body.fixed && speed > max_speed {
            // Blame the larger of the two terms.
            let spin = b.angular_velocity.length() * body.bounding_radius();
            let key = if spin > b.velocity.length() {
                "angular_velocity"
            } else {
                "velocity"
            };
            return Err(err(
                b.key_lines.line_of(key, b.line),
                &format!("{}.{key}", b.key),
                format!(
                    "body `{}` starts with a point moving at up to {speed:.4e} m/s (|v| + |ω| r, r its bounding radius), above simulation.max_speed = {max_speed} m/s",
                    b.name
                ),
                "lower its velocity or angular_velocity, or raise [simulation] max_speed",
            ));
        }
        states.push(initial_state(
            &body,
            b.position,
            b.orientation,
            b.velocity,
            b.angular_velocity,
        ));
        bodies.push(body);
    }
    for s in &desc.spawns {
        let material = material_index(&s.material).ok_or_else(|| {
            err(
                s.line,
                &format!("{}.material", s.key),
                format!("undefined material `{}`", s.material),
                "define it in a [[material]] table",
            )
        })?;
        spawn(&file, s, material, &mut bodies, &mut states)?;
    }

    let mut forces = Vec::new();
    for f in &desc.forces {
        let body = body_index(&bodies, &f.body).ok_or_else(|| {
            err(
                f.line,
                &format!("{}.body", f.key),
                format!("undefined body `{}`", f.body),
                "name a [[body]] of this scene",
            )
        })?;
        forces.push(ScheduledForce {
            body,
            force: f.force,
            torque: f.torque,
            point: f.point.map(|p| p - bodies[body].com_in_shape_frame),
            start: f.start,
            end: f.end,
        });
    }
    for r in &desc.random_forces {
        let body = body_index(&bodies, &r.body).ok_or_else(|| {
            err(
                r.line,
                &format!("{}.body", r.key),
                format!("undefined body `{}`", r.body),
                "name a [[body]] of this scene",
            )
        })?;
        forces.extend(random_pulses(r, body, bodies[body].com_in_shape_frame));
    }

    let settings = desc.simulation.settings.clone();
    let model = Model {
        bodies,
        materials,
        settings,
        forces,
    };
    let initial = State {
        time: 0.0,
        step: 0,
        bodies: states,
        external: Vec::new(),
    };
    // The deformables are built again to run (`simulation::Simulation`); here only checked.
    super::deformable::deformable_worlds(&desc, &model)?;
    Ok(Scene {
        desc,
        model,
        initial,
    })
}

impl Scene {
    /// Set the contact parameter `name` (replacing the scene's value), as if written in the file
    /// under the key `key` (for error messages, e.g. `--param activation`).
    pub fn set_param(&mut self, name: &str, value: ParamInput, key: &str) {
        let params = &mut self.desc.contact.params;
        params.retain(|p| p.name != name);
        params.push(super::ParamDesc {
            name: name.to_string(),
            value,
            line: 0,
            key: key.to_string(),
        });
    }

    /// The scene's contact model, or `override_name` instead. Parameters written for the scene's
    /// model apply when the model is the same; with another model, those it does not know are
    /// left out and returned so the caller can say so.
    pub fn contact_model(
        &self,
        override_name: Option<&str>,
    ) -> Result<(ContactModel, Vec<String>), SceneError> {
        let ignored = validate_contact(&self.desc, override_name)?;
        let name = override_name.unwrap_or(&self.desc.contact.model);
        let params: Vec<(String, ParamInput)> = self
            .desc
            .contact
            .params
            .iter()
            .filter(|p| !ignored.contains(&p.name))
            .map(|p| (p.name.clone(), p.value.clone()))
            .collect();
        let model = contact::build(name, &params).map_err(|e| {
            SceneError::new(
                &self.desc.file,
                0,
                "contact",
                e.to_string(),
                "see `signorini models`",
            )
        })?;
        Ok((model, ignored))
    }
}

/// Check the contact model and its parameters; returns the parameters to leave out when the
/// model is overridden by another one.
fn validate_contact(
    desc: &SceneDesc,
    override_name: Option<&str>,
) -> Result<Vec<String>, SceneError> {
    validate_contact_in(
        &contact::catalog(),
        "",
        &desc.file,
        &desc.contact,
        override_name,
    )
}

/// [`validate_contact`] against the models `specs` (`which` names them in the hint when it is
/// not the 3D catalog, e.g. "2D models"): shared by 3D and 2D scenes (`planar.rs`).
pub(super) fn validate_contact_in(
    specs: &[contact::ModelSpec],
    which: &str,
    file: &str,
    c: &ContactDesc,
    override_name: Option<&str>,
) -> Result<Vec<String>, SceneError> {
    let name = override_name.unwrap_or(&c.model);
    let Some(spec) = specs.iter().find(|s| s.name == name) else {
        let available = specs.iter().map(|s| s.name).collect::<Vec<_>>().join(", ");
        let (line, key) = if override_name.is_some() {
            (0, "--model".to_string())
        } else {
            (c.model_line, format!("{}.model", c.key))
        };
        let hint = if which.is_empty() {
            format!("use one of: {available} (see `signorini models`)")
        } else {
            format!("use one of the {which}: {available} (docs/planar.md)")
        };
        return Err(SceneError::new(
            file,
            line,
            key,
            format!("unknown contact model `{name}`"),
            hint,
        ));
    };
    let mut ignored = Vec::new();
    for p in &c.params {
        if override_name.is_some_and(|o| o != c.model)
            && !spec.params.iter().any(|s| s.name == p.name)
        {
            ignored.push(p.name.clone());
            continue;
        }
        if let Err(e) = contact::resolve_params(spec, &[(p.name.clone(), p.value.clone())]) {
            let hint = match &e {
                ConfigError::UnknownParam { available, .. } => {
                    format!("parameters of `{}`: {available}", spec.name)
                }
                ConfigError::OutOfRange { range, .. } if range.integer => format!("give {range}"),
                ConfigError::OutOfRange { range, .. } => format!("give a value {range}"),
                ConfigError::Invalid { expected, .. } => format!("write {expected}"),
                ConfigError::UnknownModel { .. } => String::new(),
            };
            return Err(SceneError::new(file, p.line, &p.key, e.to_string(), hint));
        }
    }
    Ok(ignored)
}

fn body_index(bodies: &[Body], name: &str) -> Option<usize> {
    bodies.iter().position(|b| b.name == name)
}

/// The body starts with its shape frame at `position` / `orientation`; its centre of mass sits
/// at `com_in_shape_frame` in that frame.
fn initial_state(
    body: &Body,
    position: DVec3,
    orientation: DQuat,
    velocity: DVec3,
    angular_velocity: DVec3,
) -> BodyState {
    let (velocity, angular_velocity) = if body.fixed {
        (DVec3::ZERO, DVec3::ZERO)
    } else {
        (velocity, angular_velocity)
    };
    BodyState {
        position: position + orientation * body.com_in_shape_frame,
        orientation,
        velocity,
        angular_velocity,
    }
}

fn make_shape(file: &str, s: &desc::LocatedShape) -> Result<Shape, SceneError> {
    let shape = match &s.shape {
        ShapeDesc::Sphere { radius } => Shape::sphere(*radius),
        ShapeDesc::Box { size } => Shape::cuboid(*size),
        ShapeDesc::Cylinder {
            radius,
            height,
            segments,
        } => Shape::cylinder(*radius, *height, *segments),
        ShapeDesc::Convex { points } => Shape::convex_hull(points),
        ShapeDesc::HalfSpace { normal } => Shape::half_space(*normal),
    };
    let hint = match &s.shape {
        ShapeDesc::Box { .. } => {
            "give edge lengths within about 1e8 of each other (a thinner plate is a half-space)"
        }
        _ => {
            "give at least 4 points that are not all on one plane (the hull must enclose a volume)"
        }
    };
    shape.map_err(|e| SceneError::new(file, s.line, &s.key, e.to_string(), hint))
}

/// Sample `r`: exact when lo = hi; (0, hi] when lo = 0; [lo, hi) otherwise.
fn sample(rng: &mut Rng, r: desc::Range) -> f64 {
    if r.lo == r.hi {
        r.lo
    } else if r.lo == 0.0 {
        rng.uniform_open_low(0.0, r.hi)
    } else {
        rng.uniform(r.lo, r.hi)
    }
}

/// Bodies of a `[[spawn]]` table: cell i of the lattice (x fastest), jittered, optionally
/// rotated, with a shape drawn by weight and its dimensions and mass drawn from their ranges,
/// released at i × `release_interval`.
/// Draw order per body (fixed, so seeds stay meaningful): jitter x, y, z; rotation; shape; its
/// dimensions; mass.
fn spawn(
    file: &str,
    s: &desc::SpawnDesc,
    material: usize,
    bodies: &mut Vec<Body>,
    states: &mut Vec<BodyState>,
) -> Result<(), SceneError> {
    let mut rng = Rng::new(s.seed);
    let total_weight: f64 = s.weights.iter().sum();
    let spawned_before = bodies.len()..bodies.len() + s.count as usize;
    // No spawned body may start inside another (`overlap.rs`): random sizes drawn on a lattice
    // can put two boxes into each other (8.5 mm for `bin_64.toml` at seed 17), and a run that
    // starts overlapping measures its model's recovery, not its contacts.
    let mut placed = Placed::new(s.spacing.min_element(), bodies, states);
    let [nx, ny, _] = s.lattice;
    for i in 0..s.count {
        let cell = DVec3::new(
            (i % nx) as f64,
            ((i / nx) % ny) as f64,
            (i / (nx * ny)) as f64,
        );
        let jitter = DVec3::new(
            rng.uniform(-1.0, 1.0),
            rng.uniform(-1.0, 1.0),
            rng.uniform(-1.0, 1.0),
        ) * s.jitter;
        let position = s.origin + s.spacing * cell + jitter;
        let orientation = if s.random_orientation {
            rng.rotation()
        } else {
            DQuat::IDENTITY
        };
        let mut pick = rng.uniform(0.0, total_weight);
        let mut which = s.weights.len() - 1;
        for (k, w) in s.weights.iter().enumerate() {
            if pick < *w {
                which = k;
                break;
            }
            pick -= w;
        }
        let located = &s.shapes[which];
        let shape = match &located.shape {
            SpawnShapeDesc::Box { size } => Shape::cuboid(DVec3::new(
                sample(&mut rng, size[0]),
                sample(&mut rng, size[1]),
                sample(&mut rng, size[2]),
            )),
            SpawnShapeDesc::Sphere { radius } => Shape::sphere(sample(&mut rng, *radius)),
            SpawnShapeDesc::Cylinder {
                radius,
                height,
                segments,
            } => {
                let r = sample(&mut rng, *radius);
                Shape::cylinder(r, sample(&mut rng, *height), *segments)
            }
            SpawnShapeDesc::RandomConvex { points, radius } => {
                let r = sample(&mut rng, *radius);
                let pts: Vec<DVec3> = (0..*points).map(|_| rng.unit_vector() * r).collect();
                Shape::convex_hull(&pts)
            }
        }
        .map_err(|e| {
            SceneError::new(
                file,
                located.line,
                &located.key,
                e.to_string(),
                "widen the shape's ranges or raise `points`",
            )
        })?;
        let name = s.body_name(i);
        let pieces = vec![Piece {
            shape,
            pose: Pose::IDENTITY,
        }];
        let body = match s.mass {
            SpawnMassDesc::Mass(r) => {
                Body::dynamic(&name, pieces, Some(sample(&mut rng, r)), 1.0, material)
            }
            SpawnMassDesc::Density(r) => {
                Body::dynamic(&name, pieces, None, sample(&mut rng, r), material)
            }
        }
        .map_err(|m| {
            let mass_key = match s.mass {
                SpawnMassDesc::Mass(_) => "mass",
                SpawnMassDesc::Density(_) => "density",
            };
            SceneError::new(
                file,
                s.key_lines.line_of(mass_key, s.line),
                &format!("{}.{mass_key}", s.key),
                m,
                "check the spawn's shapes and its mass or density (kg, kg/m^3)",
            )
        })?;
        let mut body = body;
        body.release_time = f64::from(i) * s.release_interval;
        let mut state = initial_state(&body, position, orientation, s.velocity, DVec3::ZERO);
        let mut tries = 1;
        while let Some((other, depth)) = placed.deepest_overlap(&body, &state, bodies, states) {
            if !s.random_orientation || tries == SPAWN_ORIENTATION_TRIES {
                let others = (bodies[other].name.as_str(), spawned_before.contains(&other));
                return Err(overlap_refusal(file, s, &name, others, depth));
            }
            tries += 1;
            state = initial_state(&body, position, rng.rotation(), s.velocity, DVec3::ZERO);
        }
        placed.insert(bodies.len(), &body, &state);
        states.push(state);
        bodies.push(body);
    }
    Ok(())
}

/// Orientations drawn for a spawned body before an overlap is reported (`random_orientation`).
pub const SPAWN_ORIENTATION_TRIES: usize = 64;

/// The error of spawn `s` whose body `name` overlaps the body `other` (its name, and whether
/// `s` spawned it) by `depth` (m) wherever it was tried. It blames what placed the body there:
/// the origin when the cells are so far out that their spacing is lost to round-off, the random
/// offset if there is one, the lattice's origin against a body of the scene, else its spacing.
fn overlap_refusal(
    file: &str,
    s: &desc::SpawnDesc,
    name: &str,
    (other, other_spawned): (&str, bool),
    depth: f64,
) -> SceneError {
    let how = if s.random_orientation {
        format!("in each of {SPAWN_ORIENTATION_TRIES} random orientations drawn")
    } else {
        "at its lattice cell".to_string()
    };
    let lost = (0..3).any(|k| {
        let (o, d) = (s.origin[k], s.spacing[k]);
        ((o + d) - o - d).abs() > 1e-2 * d
    });
    let (key, hint) = if lost {
        (
            "origin",
            "bring `origin` nearer the world origin: that far out, `spacing` is lost to round-off",
        )
    } else if s.jitter > 0.0 {
        ("jitter", "lower `jitter` or widen `spacing`")
    } else if !other_spawned {
        (
            "origin",
            "move `origin` (or narrow the lattice) clear of the scene's bodies",
        )
    } else {
        ("spacing", "widen `spacing` or narrow the shapes' sizes")
    };
    SceneError::new(
        file,
        s.key_lines.line_of(key, s.line),
        format!("{}.{key}", s.key),
        format!("spawned body `{name}` overlaps `{other}` by {depth:.3e} m {how}"),
        hint,
    )
}

/// The pulses of a `[[random_forces]]` table. Draw order per pulse: magnitude, then the point's
/// x, y, z.
fn random_pulses(r: &desc::RandomForcesDesc, body: usize, com: DVec3) -> Vec<ScheduledForce> {
    let mut rng = Rng::new(r.seed);
    (0..r.count)
        .map(|k| {
            let magnitude = rng.uniform(r.magnitude.lo, r.magnitude.hi);
            let u = DVec3::new(rng.next_f64(), rng.next_f64(), rng.next_f64());
            let point = r.point_min + (r.point_max - r.point_min) * u;
            let start = r.start + k as f64 * r.period;
            ScheduledForce {
                body,
                force: magnitude * r.direction,
                torque: DVec3::ZERO,
                point: Some(point - com),
                start,
                end: start + r.on_time,
            }
        })
        .collect()
}
