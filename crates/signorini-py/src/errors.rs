//! The package's exceptions: one class per kind of [`signorini::Error`], all under
//! `signorini.Error`, each instance carrying the Rust message and, where the Rust error has
//! them, `file`, `line` (1-based; `None` when unknown), `key` and `hint` (`None` otherwise).
use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use signorini::Error as RustError;

create_exception!(
    signorini,
    Error,
    PyException,
    "Base class of signorini's errors; attributes file, line, key, hint (None where unknown)."
);
create_exception!(
    signorini,
    SceneError,
    Error,
    "A scene (file, string or ModelBuilder) is invalid: file, line and key say where."
);
create_exception!(
    signorini,
    ConfigError,
    Error,
    "A contact-model parameter or an override (model, params, time_step, duration) is wrong; key names it."
);
create_exception!(
    signorini,
    StepError,
    Error,
    "A step failed: the state blew up or the contact model failed (the message says which and why)."
);
create_exception!(
    signorini,
    AdaptiveError,
    Error,
    "The scene asks for adaptive time steps of a contact model that cannot take them."
);
create_exception!(
    signorini,
    NoSuchBodyError,
    Error,
    "set_force named a body the model lacks (an index out of range or an unknown name)."
);

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("Error", py.get_type::<Error>())?;
    m.add("SceneError", py.get_type::<SceneError>())?;
    m.add("ConfigError", py.get_type::<ConfigError>())?;
    m.add("StepError", py.get_type::<StepError>())?;
    m.add("AdaptiveError", py.get_type::<AdaptiveError>())?;
    m.add("NoSuchBodyError", py.get_type::<NoSuchBodyError>())?;
    Ok(())
}

/// Where an error points: file, line (None when unknown), key, hint.
#[derive(Default)]
pub struct Location {
    pub file: Option<String>,
    pub line: Option<usize>,
    pub key: Option<String>,
    pub hint: Option<String>,
}

/// `err` with the attributes `file`, `line`, `key`, `hint` set on its instance.
pub fn with_location(py: Python<'_>, err: PyErr, at: Location) -> PyErr {
    let value = err.value(py);
    // Setting an attribute on a fresh exception instance does not fail; if it ever did, the
    // exception still carries its message, which names the same place.
    let _ = value.setattr("file", at.file);
    let _ = value.setattr("line", at.line);
    let _ = value.setattr("key", at.key);
    let _ = value.setattr("hint", at.hint);
    err
}

/// The Python exception of a library error, with the message the library prints.
pub fn to_py(e: RustError) -> PyErr {
    Python::attach(|py| {
        let message = e.to_string();
        let (err, at) = match &e {
            RustError::Scene(s) => (
                SceneError::new_err(message),
                Location {
                    file: Some(s.file.clone()),
                    line: (s.line > 0).then_some(s.line),
                    key: Some(s.key.clone()),
                    hint: Some(s.hint.clone()),
                },
            ),
            RustError::Config { key, .. } => (
                ConfigError::new_err(message),
                Location {
                    key: Some(key.clone()),
                    ..Location::default()
                },
            ),
            RustError::Step(_) => (StepError::new_err(message), Location::default()),
            RustError::Adaptive(_) => (AdaptiveError::new_err(message), Location::default()),
            RustError::NoSuchBody { .. } => (
                NoSuchBodyError::new_err(message),
                Location {
                    key: Some("body".into()),
                    ..Location::default()
                },
            ),
            RustError::InScene { file, .. } => (
                Error::new_err(message),
                Location {
                    file: Some(file.clone()),
                    ..Location::default()
                },
            ),
            _ => (Error::new_err(message), Location::default()),
        };
        with_location(py, err, at)
    })
}

/// A [`ConfigError`] about an override given to the binding (`time_step`, `duration`, …).
pub fn config(key: &str, message: String, hint: Option<String>) -> PyErr {
    Python::attach(|py| {
        let text = match &hint {
            Some(h) => format!("{key}: {message}\n  help: {h}"),
            None => format!("{key}: {message}"),
        };
        let at = Location {
            key: Some(key.to_string()),
            hint,
            ..Location::default()
        };
        with_location(py, ConfigError::new_err(text), at)
    })
}

/// A [`NoSuchBodyError`] for a body name the model lacks.
pub fn no_such_body(name: &str, names: &[String]) -> PyErr {
    no_such_body_message(format!(
        "no body named `{name}`: the model's bodies are {}",
        names.join(", ")
    ))
}

/// A [`NoSuchBodyError`] with `message`, key `body`.
pub fn no_such_body_message(message: String) -> PyErr {
    Python::attach(|py| {
        let at = Location {
            key: Some("body".into()),
            ..Location::default()
        };
        with_location(py, NoSuchBodyError::new_err(message), at)
    })
}
