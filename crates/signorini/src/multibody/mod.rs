//! Articulated multibody dynamics in generalized coordinates (Featherstone, *Rigid Body
//! Dynamics Algorithms*, 2008): kinematic trees of revolute, prismatic, fixed, ball and floating
//! joints; inverse dynamics (RNEA), the joint-space mass matrix (CRBA), forward dynamics (ABA),
//! forward kinematics, energies and momenta; joint damping, armature, torque inputs and PD
//! actuators; semi-implicit Euler and RK4 with quaternions integrated on the manifold.
//! URDF import (`urdf`: a robot file → a tree and its links' collision shapes). Contact-free so
//! far (docs/multibody.md lists what is not done). Uses `geometry` (poses, shapes) only.
pub mod algorithms;
pub mod control;
pub mod integrate;
pub mod joint;
pub mod spatial;
pub mod tree;
pub mod urdf;

pub use algorithms::{LinkKinematics, Workspace};
pub use control::{Controls, PdActuator, Piecewise, Schedule, ServoSchedule};
pub use integrate::MbIntegrator;
pub use joint::JointKind;
pub use tree::{Link, Tree};

/// What is wrong with a tree, a state or controls given to this module.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum MultibodyError {
    #[error("link `{link}` (index {index}) names parent {parent}, which does not come before it")]
    ParentNotBefore {
        link: String,
        index: usize,
        parent: usize,
    },
    #[error("link `{link}`: the joint axis is zero or not finite")]
    ZeroAxis { link: String },
    #[error("link `{link}`: mass {mass} kg is not positive and finite")]
    Mass { link: String, mass: f64 },
    #[error("link `{link}`: the inertia tensor is not symmetric positive definite")]
    Inertia { link: String },
    #[error("link `{link}`: {what} is not finite")]
    NonFinite { link: String, what: &'static str },
    #[error("link `{link}`: {what} {value} is negative or not finite")]
    Negative {
        link: String,
        what: &'static str,
        value: f64,
    },
    #[error("link `{link}`: limits [{lower}, {upper}] are not ordered or the joint is not revolute or prismatic")]
    Limits {
        link: String,
        lower: f64,
        upper: f64,
    },
    #[error("{what} has length {got}, the tree needs {expected}")]
    Length {
        what: &'static str,
        expected: usize,
        got: usize,
    },
    #[error("the state holds a value that is not finite")]
    NonFiniteState,
    #[error("link `{link}`: its joint's quaternion is zero")]
    ZeroQuaternion { link: String },
    #[error("link `{link}`: its joint-space inertia D = Sᵀ Iᴬ S is not positive definite")]
    SingularJoint { link: String },
    #[error("PD actuator on link {link}: {reason}")]
    Actuator { link: usize, reason: String },
}
