//! The one error type of the embedding API ([`Simulation`](super::Simulation),
//! [`ModelBuilder`](super::ModelBuilder), [`run`](super::run)): each layer's own
//! error wrapped as it is, so that it prints exactly the message that layer prints.
use crate::contact::ConfigError;
use crate::pipeline::adaptive::AdaptiveError;
use crate::pipeline::StepError;
use crate::scene::SceneError;
use std::path::PathBuf;

/// Why a scene could not be built, set up or stepped, or its output written.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A scene file, or a scene built in code ([`ModelBuilder`](super::ModelBuilder)), is
    /// invalid; names the file (or builder), line and key.
    #[error(transparent)]
    Scene(#[from] SceneError),
    /// A contact-model parameter given as an override (`key`, e.g. `--param kq`) is wrong.
    #[error("{key}: {error}")]
    Config { key: String, error: ConfigError },
    /// A step failed: the state blew up or the contact model failed.
    #[error(transparent)]
    Step(#[from] StepError),
    /// The scene asks for adaptive steps of a model that cannot take them.
    #[error(transparent)]
    Adaptive(#[from] AdaptiveError),
    /// [`Simulation::set_force`](super::Simulation::set_force) named a body the model lacks.
    #[error("no body {body}: the model has {bodies} bodies (indices from 0)")]
    NoSuchBody { body: usize, bodies: usize },
    /// An experiment cannot run as asked: the scene lacks a body it needs, a sweep setting is
    /// out of range, a collision law refused the experiment's impact (says which and why).
    #[error("{0}")]
    Experiment(String),
    /// A failure while running the scene file `file` (the experiments name the scene they ran).
    #[error("{file}: {error}")]
    InScene { file: String, error: Box<Error> },
    /// A collision law refused its input (the collision-law experiments).
    #[error(transparent)]
    Law(#[from] crate::contact::impulse::law::LawError),
    /// A tree run (`multibody_run`) cannot start as asked: which setting and why.
    #[error("{0}")]
    TreeRun(String),
    /// A tree, its state or its controls are invalid (`multibody`'s own message).
    #[error(transparent)]
    Multibody(#[from] crate::multibody::MultibodyError),
    /// An output file could not be written.
    #[error("cannot write {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
}

impl Error {
    /// The step error this is, or wraps (`InScene`): what stopped a run.
    pub fn step_error(&self) -> Option<&StepError> {
        match self {
            Error::Step(e) => Some(e),
            Error::InScene { error, .. } => error.step_error(),
            _ => None,
        }
    }
}
