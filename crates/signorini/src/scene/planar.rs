//! 2D scenes: a scene file whose `[simulation]` has `dimension = 2` (docs/scene-format.md, "2D
//! scenes"). The format is the 3D one with planar keys; [`load_planar`] reads it into a
//! [`PlanarScene`] (the planar model, its initial state and the contact settings), with the same
//! file:line:key errors. [`dimension_of_file`] tells a program which loader a file needs (the
//! CLI's `run` and `check` dispatch on it).
use std::path::Path;

use super::desc::{ContactDesc, MaterialDesc};
use super::error::SceneError;
use crate::contact::ParamInput;
use crate::planar::{
    Material, PlanarBody, PlanarBodyState, PlanarContactModel, PlanarModel, PlanarSettings,
    PlanarState,
};

/// A 2D scene as written, each body already built (hull, centre of mass, inertia), with where it
/// was written.
#[derive(Clone, Debug, PartialEq)]
pub struct PlanarSceneDesc {
    pub file: String,
    pub settings: PlanarSettings,
    pub contact: ContactDesc,
    pub materials: Vec<MaterialDesc>,
    pub bodies: Vec<PlanarBodyDesc>,
    /// `[output] trajectory_interval` (s; 0: every step).
    pub trajectory_interval: f64,
}

/// One `[[body]]` of a 2D scene: the body, its initial state, and its table's line and key.
#[derive(Clone, Debug, PartialEq)]
pub struct PlanarBodyDesc {
    pub body: PlanarBody,
    pub state: PlanarBodyState,
    pub line: usize,
    pub key: String,
}

/// A loaded 2D scene: the model and initial state a [`crate::planar::PlanarWorld`] steps.
#[derive(Clone, Debug, PartialEq)]
pub struct PlanarScene {
    pub desc: PlanarSceneDesc,
    pub model: PlanarModel,
    pub initial: PlanarState,
}

fn read(path: &Path) -> Result<(String, String), SceneError> {
    let file = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| {
        SceneError::new(
            &file,
            0,
            "file",
            format!("cannot read the scene file: {e}"),
            "check that the path exists and is a readable UTF-8 text file",
        )
    })?;
    Ok((file, text))
}

/// The scene's `[simulation] dimension`: 2 or 3 (3 when not given). Errors: the file cannot be
/// read, is not TOML, or gives another dimension.
pub fn dimension_of_file(path: &Path) -> Result<u32, SceneError> {
    let (file, text) = read(path)?;
    super::parse::dimension_of_text(&text, &file)
}

/// Read and validate the 2D scene at `path`.
pub fn load_planar(path: &Path) -> Result<PlanarScene, SceneError> {
    let (file, text) = read(path)?;
    parse_planar(&text, &file)
}

/// Parse and validate 2D scene `text` (`file` names it in errors); the scene must say
/// `dimension = 2`.
pub fn parse_planar(text: &str, file: &str) -> Result<PlanarScene, SceneError> {
    let desc = super::parse::parse_planar_scene(text, file)?;
    build_planar(desc)
}

/// The model and initial state of a parsed 2D scene; a body starting faster than
/// `simulation.max_speed` is an error at its `velocity` or `angular_velocity`, as in 3D.
pub fn build_planar(desc: PlanarSceneDesc) -> Result<PlanarScene, SceneError> {
    let max_speed = desc.settings.max_speed;
    for b in &desc.bodies {
        if b.body.fixed {
            continue;
        }
        let v = b.state.velocity.length();
        let spin = b.state.angular_velocity.abs() * b.body.shape.bounding_radius();
        if v + spin > max_speed {
            let key = if spin > v {
                "angular_velocity"
            } else {
                "velocity"
            };
            return Err(SceneError::new(
                &desc.file,
                b.line,
                format!("{}.{key}", b.key),
                format!(
                    "body `{}` starts with a point moving at up to {:.4e} m/s (|v| + |ω| r, r its bounding radius), above simulation.max_speed = {max_speed} m/s",
                    b.body.name,
                    v + spin
                ),
                "lower its velocity or angular_velocity, or raise [simulation] max_speed",
            ));
        }
    }
    let model = PlanarModel {
        bodies: desc.bodies.iter().map(|b| b.body.clone()).collect(),
        materials: desc
            .materials
            .iter()
            .map(|m| Material {
                name: m.name.clone(),
                friction: m.friction,
                restitution: m.restitution,
            })
            .collect(),
        settings: desc.settings.clone(),
    };
    let initial = PlanarState {
        time: 0.0,
        bodies: desc.bodies.iter().map(|b| b.state).collect(),
    };
    Ok(PlanarScene {
        desc,
        model,
        initial,
    })
}

impl PlanarScene {
    /// The scene's planar contact model (or `override_name`'s), its parameters checked against
    /// the model's table with errors at their line and key (as 3D scenes'); returns the scene's
    /// parameters the overriding model does not know (ignored, as in 3D).
    pub fn contact_model(
        &self,
        override_name: Option<&str>,
    ) -> Result<(PlanarContactModel, Vec<String>), SceneError> {
        let c = &self.desc.contact;
        let ignored = super::build::validate_contact_in(
            &crate::planar::catalog(),
            "2D models",
            &self.desc.file,
            c,
            override_name,
        )?;
        let name = override_name.unwrap_or(&c.model);
        let params: Vec<(String, ParamInput)> = c
            .params
            .iter()
            .filter(|p| !ignored.contains(&p.name))
            .map(|p| (p.name.clone(), p.value.clone()))
            .collect();
        let model = crate::planar::build(name, &params).map_err(|e| {
            SceneError::new(
                &self.desc.file,
                0,
                "contact",
                e.to_string(),
                "see docs/planar.md",
            )
        })?;
        Ok((model, ignored))
    }
}
