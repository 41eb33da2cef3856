//! URDF import: a robot description (ROS's Unified Robot Description Format, the `urdf/XML`
//! pages of the ROS wiki: `robot`, `link`, `joint`) read into a validated [`Tree`] with the
//! collision geometry of its links as [`Shape`]s.
//!
//! What is read, and how it maps (URDF is in SI units: m, kg, rad, kg m²):
//!
//! | URDF | here |
//! |------|------|
//! | `<link>` | a tree [`Link`](super::Link) named after it, or merged into its parent's (below) |
//! | `<joint type="revolute">` | `JointKind::Revolute { axis }`, `<limit lower upper>` → `Link::limits` |
//! | `continuous` | `JointKind::Revolute`, no limits |
//! | `prismatic` | `JointKind::Prismatic { axis }`, `<limit lower upper>` → `Link::limits` |
//! | `fixed` | merged: the child's mass, inertia and collisions join its parent's link (option: `JointKind::Fixed`) |
//! | `floating` | `JointKind::Floating` |
//! | `planar` | an error (no planar joint in the tree) |
//! | `<origin xyz rpy>` of a joint | `Link::joint_frame`: translation xyz, rotation R = Rz(yaw) Ry(pitch) Rx(roll) (fixed-axis roll, pitch, yaw) |
//! | `<axis xyz>` (default 1 0 0) | the joint's axis in the joint frame (= the child's frame at q = 0) |
//! | `<dynamics damping>` | `Link::damping` (N m s/rad or N s/m); `friction` is not modelled (a warning) |
//! | `<inertial>`: `<origin>`, `<mass>`, `<inertia>` | `Link::com` = origin xyz; `Link::inertia` = R I Rᵀ (R the origin's rotation: URDF gives I in the inertial frame's axes, the tree wants link axes); `Link::mass` |
//! | `<collision>`: `<origin>`, `<geometry>` | a [`Collision`]: box, sphere, cylinder (axis z, a prism of `cylinder_segments` sides inscribed in the circle), mesh (STL binary or ASCII, OBJ: the convex hull of its vertices, scaled by `scale`) |
//! | the root link (no joint's child) | the tree's first link, on a floating joint (option: fixed) at the world origin; a root named `world` without `<inertial>` is the world itself: its children hang from the world |
//!
//! Links are ordered parents first: breadth-first from the root, children in the order their
//! joints appear in the file. Fixed joints are merged by default (as MuJoCo's URDF import fuses
//! static bodies): a link welded to its parent becomes part of the parent's tree link, its
//! inertial combined (parallel-axis theorem), its collisions carried along, its frame kept in
//! [`UrdfRobot::frames`]. That also handles links without `<inertial>` (frames such as
//! `base_footprint` or `tool0`), which the tree cannot hold alone (mass > 0). With
//! `merge_fixed_links = false` fixed joints stay `JointKind::Fixed` links and only massless links
//! are merged. A link that still has no mass after merging (a massless link on a moving joint)
//! is an error, or gets [`UrdfOptions::massless_stand_in`] with a warning.
//!
//! Ignored silently: `<visual>` and `<material>` (appearance only), a joint's `<limit effort
//! velocity>` (kept in [`UrdfJoint`], not enforced). Ignored with a warning naming the element
//! and line: `<transmission>`, `<gazebo>`, `<mimic>` (the joint moves on its own),
//! `<calibration>`, `<safety_controller>`, non-zero `<dynamics friction>`, unknown elements,
//! geometry outside the spec (`<capsule>`: the collision is skipped). Errors name the file, the
//! line and the element, say what is wrong and how to fix it: XML syntax, xacro macros (expand
//! them first), missing or malformed attributes, non-finite numbers, unknown or planar joint
//! types, a joint naming a link that does not exist, a link with two parent joints, cycles,
//! several roots, negative mass, inertia that is not positive definite, meshes that cannot be
//! found or read.
//!
//! Layering: this module reads files (the URDF, and meshes relative to it) and builds `geometry`
//! shapes; it knows nothing of scenes, contact or the pipeline.
mod assemble;
mod mesh;
mod xml;

use super::Tree;
use crate::geometry::{Pose, Shape};
use glam::DVec3;
use std::path::Path;

/// Choices the URDF itself does not make.
#[derive(Clone, Debug, PartialEq)]
pub struct UrdfOptions {
    /// The root link on a floating joint (true, a mobile robot or a humanoid) or welded to the
    /// world (false, a mounted arm). Ignored when the root link is `world` (the URDF then says
    /// how the robot is attached).
    pub floating_base: bool,
    /// Merge every link on a fixed joint into its parent's tree link (true), or keep fixed joints
    /// as `JointKind::Fixed` links and merge only links without mass (false).
    pub merge_fixed_links: bool,
    /// A link left without mass after merging (a massless link on a moving joint): `None` makes
    /// it an error; `Some(m)` gives it mass m (kg) and the inertia of a solid sphere of radius
    /// 1 cm of that mass, with a warning.
    pub massless_stand_in: Option<f64>,
    /// Sides of the prism that stands for a `<cylinder>` (≥ 3; the scene format's default).
    pub cylinder_segments: u32,
    /// Gravity of the tree (m/s², world axes); URDF does not say.
    pub gravity: DVec3,
}

impl Default for UrdfOptions {
    fn default() -> Self {
        UrdfOptions {
            floating_base: true,
            merge_fixed_links: true,
            massless_stand_in: None,
            cylinder_segments: 16,
            gravity: DVec3::new(0.0, 0.0, -9.81),
        }
    }
}

/// A URDF robot: its kinematic tree, the collision geometry of its links, where every URDF link
/// ended up, its joints, and what was ignored.
#[derive(Clone, Debug)]
pub struct UrdfRobot {
    /// The `name` of `<robot>`.
    pub name: String,
    pub tree: Tree,
    /// Collision geometry in the order of the file, each on the tree link it moves with.
    pub collisions: Vec<Collision>,
    /// Every URDF link, in the order of the file: which tree link carries it and where.
    pub frames: Vec<LinkFrame>,
    /// Every URDF joint, in the order of the file.
    pub joints: Vec<UrdfJoint>,
    /// Elements and values that were ignored or replaced, each `file:line: element: what`.
    pub warnings: Vec<String>,
}

/// One `<collision>` of a link.
#[derive(Clone, Debug)]
pub struct Collision {
    /// Index of the tree link it moves with.
    pub link: usize,
    /// The shape's frame in that tree link's frame.
    pub pose: Pose,
    pub shape: Shape,
    /// The URDF geometry it came from: `box`, `sphere`, `cylinder` or `mesh`.
    pub geometry: &'static str,
    /// The URDF link it was written in.
    pub urdf_link: String,
}

/// Where a URDF link is: on tree link `link` (`None`: the world), its frame at `pose` in that
/// link's frame (the identity for the link that names the tree link).
#[derive(Clone, Debug, PartialEq)]
pub struct LinkFrame {
    pub name: String,
    pub link: Option<usize>,
    pub pose: Pose,
}

/// A URDF joint as written, and the tree link it moves (`None` for a merged fixed joint).
#[derive(Clone, Debug, PartialEq)]
pub struct UrdfJoint {
    pub name: String,
    /// `revolute`, `continuous`, `prismatic`, `fixed` or `floating`.
    pub urdf_type: &'static str,
    pub parent: String,
    pub child: String,
    pub link: Option<usize>,
    /// `<limit effort>` (N m or N) and `<limit velocity>` (rad/s or m/s): stored, not enforced.
    pub effort_limit: Option<f64>,
    pub velocity_limit: Option<f64>,
}

impl UrdfRobot {
    /// Total mass (kg).
    pub fn mass(&self) -> f64 {
        self.tree.links().iter().map(|l| l.mass).sum()
    }
}

/// What is wrong with a URDF: the file, the line (0 when unknown), the element, what, and how to
/// fix it. Displayed as `file:line: element: message` and `help: hint` on the next line, as scene
/// errors are.
#[derive(Clone, Debug, PartialEq)]
pub struct UrdfError {
    pub file: String,
    pub line: usize,
    /// E.g. `joint "elbow" <origin>`, `link "base" <inertial>`.
    pub element: String,
    pub message: String,
    pub hint: String,
}

impl std::fmt::Display for UrdfError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.line > 0 {
            write!(f, "{}:{}: ", self.file, self.line)?;
        } else {
            write!(f, "{}: ", self.file)?;
        }
        if !self.element.is_empty() {
            write!(f, "{}: ", self.element)?;
        }
        write!(f, "{}", self.message)?;
        if !self.hint.is_empty() {
            write!(f, "\n  help: {}", self.hint)?;
        }
        Ok(())
    }
}

impl std::error::Error for UrdfError {}

/// Read and import the URDF file at `path`; meshes are looked up relative to its directory.
pub fn load(path: &Path, options: &UrdfOptions) -> Result<UrdfRobot, UrdfError> {
    let file = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| UrdfError {
        file: file.clone(),
        line: 0,
        element: String::new(),
        message: format!("cannot read the file: {e}"),
        hint: "check the path; a URDF is a UTF-8 XML text file".into(),
    })?;
    let dir = path.parent().unwrap_or(Path::new("."));
    from_str(&text, &file, dir, options)
}

/// Import URDF text. `file` names it in errors and warnings; relative mesh paths and
/// `package://` URIs are resolved from `base_dir`.
pub fn from_str(
    text: &str,
    file: &str,
    base_dir: &Path,
    options: &UrdfOptions,
) -> Result<UrdfRobot, UrdfError> {
    let description = xml::read(text, file)?;
    assemble::assemble(description, file, base_dir, options)
}
