//! Scene files: the TOML format describing bodies, materials, forces and settings.
//!
//! [`parse_scene`] / [`load_scene`] turn a file into a validated [`SceneDesc`]; every problem is
//! reported as one [`SceneError`] naming the file, line and key, with a hint. [`build`] turns the
//! description into a runnable [`Scene`]. The format is documented in `docs/scene-format.md`.

mod build;
mod deformable;
mod desc;
mod error;
mod overlap;
mod parse;
mod planar;

pub use build::{build, load, Scene};
pub use deformable::{deformable_worlds, DeformableWorlds};
pub use desc::*;
pub use error::{line_of, LineIndex, SceneError};
pub use parse::{
    dimension_of_text, load_scene, parse_planar_scene, parse_scene, MAX_CONVEX_POINTS,
    MAX_CYLINDER_SEGMENTS, MAX_RANDOM_CONVEX_POINTS,
};
pub use planar::{
    build_planar, dimension_of_file, load_planar, parse_planar, PlanarBodyDesc, PlanarScene,
    PlanarSceneDesc,
};
