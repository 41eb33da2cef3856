//! Planar (2D) rigid-body contact dynamics (issue 17, item 1): bodies move in the (x, y) plane
//! with state (x, y, θ) and velocities (vx, vy, ω); gravity along −y by default.
//!
//! - `shape.rs`: convex polygons (hulls of points, regular n-gons, boxes), disks, segments,
//!   lines (fixed half-planes).
//! - `mass.rs`: area, centroid and polar moment of polygons (exact triangle fan) and disks.
//! - `body.rs`: bodies, materials, settings, the model and the state; energies and momenta.
//! - `collision/`: broad phase and one routine per pair of shape kinds → `Contact2`.
//! - `models/`: `stewart-trinkle`, `anitescu-potra` (velocity-level LCP, solved by the
//!   project's solvers), `deepest-point` (penalty) and `peg` (PEG 2D, §5.1 of Williams, Lu &
//!   Trinkle 2016: vertex–edge potential contacts in U/I/X-constraints).
//! - `overlap.rs`: area of overlap of convex polygons (the PEG paper's 2D accuracy metric).
//! - `step.rs`: one step (`PlanarWorld::step`): detect, model, semi-implicit Euler, checks.
//!
//! Layering: planar sits beside `pipeline`, above `contact` (it reuses the solver chain, the
//! position term and the parameter tables of the 3D time-stepping models read-only), `solvers`
//! and `dynamics` (the `Material` type), and below `scene` (which loads 2D scenes into it) and
//! `simulation` (which writes their runs). It never names `scene`, `simulation` or the CLI.
//! Nothing here is a thin 3D prism: the dynamics, shapes, contacts and LCPs are planar.
pub mod body;
pub mod collision;
pub mod mass;
pub mod models;
pub mod overlap;
pub mod shape;
pub mod step;

pub use body::{
    MassSpec, Material, PlanarBody, PlanarBodyState, PlanarModel, PlanarSettings, PlanarState,
    Pose2, Rot2,
};
pub use collision::{Contact2, Feature2};
pub use models::{build, catalog, PlanarContactModel};
pub use shape::{ConvexPolygon, PlanarShape};
pub use step::{PlanarStepError, PlanarStepReport, PlanarWorld};
