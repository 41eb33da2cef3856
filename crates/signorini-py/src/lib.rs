//! `signorini._signorini`: the Python extension module of the `signorini` package (PyO3).
//!
//! It wraps the library's embedding API (`docs/library.md`) and nothing else: [`Scene`] (a scene
//! file, a TOML string or a [`ModelBuilder`] scene), [`Simulation`] (`Simulation::new`, `step`,
//! `run_until`, `state`, `contacts`, `set_force`) and the step's report. Every library error
//! becomes one of the package's exceptions ([`errors`]); the binding code itself has no `unwrap`
//! or indexing that could panic, so no Rust panic reaches Python. The pure-Python half of the
//! package (`python/signorini/__init__.py`) re-exports these names; `docs/python.md` is the
//! user's page.
//!
//! ```text
//!   Python  ──►  Simulation (pyclass; Mutex<signorini::Simulation>)  ──►  library
//!                 step(n): the loop in Rust, GIL released, signals checked every 256 steps
//!                 positions / quaternions / …: one copy from the array of BodyState structs
//!                 into a fresh contiguous numpy array (no second copy: the Vec is handed over)
//! ```
//!
//! Everything is behind the feature `python` (maturin enables it through `extension-module`):
//! without it the crate is empty, so `cargo test --workspace` resolves and compiles nothing of
//! pyo3 or numpy.
#![cfg(feature = "python")]
use pyo3::prelude::*;

mod builder;
mod convert;
mod errors;
mod sim;

/// The contact models of this build: name → list of (parameter, unit, description) tuples
/// (`signorini models` on the command line prints the same catalogue with defaults).
#[pyfunction]
fn models() -> Vec<(String, Vec<(String, String, String)>)> {
    signorini::models::catalog()
        .into_iter()
        .map(|spec| {
            let params = spec
                .params
                .iter()
                .map(|p| {
                    (
                        p.name.to_string(),
                        p.unit.to_string(),
                        p.description.to_string(),
                    )
                })
                .collect();
            (spec.name.to_string(), params)
        })
        .collect()
}

#[pymodule]
fn _signorini(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    errors::register(m)?;
    m.add_class::<sim::Scene>()?;
    m.add_class::<sim::Simulation>()?;
    m.add_class::<sim::StepReport>()?;
    m.add_class::<builder::ModelBuilder>()?;
    m.add_class::<builder::BodyBuilder>()?;
    m.add_function(wrap_pyfunction!(models, m)?)?;
    Ok(())
}
