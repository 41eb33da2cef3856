//! `Scene`, `Simulation` and `StepReport`: the library's `Scene`, `Simulation` and
//! `StepReport` as Python classes.
use crate::convert::{self, array1, array2, column, rows3};
use crate::errors::{self, to_py};
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use signorini::models::ParamInput;
use signorini::scene;
use std::path::PathBuf;
use std::sync::{Mutex, MutexGuard};

/// A validated, built scene: from a file (`Scene.load`), a TOML string (`Scene.parse`) or a
/// `ModelBuilder`. Immutable; a `Simulation` starts from a copy of it.
#[pyclass(module = "signorini", frozen)]
pub struct Scene {
    pub inner: signorini::Scene,
}

#[pymethods]
impl Scene {
    /// Load, validate and build the scene file at `path`; a bad file raises SceneError with its
    /// file, line and key.
    #[staticmethod]
    fn load(py: Python<'_>, path: PathBuf) -> PyResult<Scene> {
        let inner = py
            .detach(|| scene::load(&path))
            .map_err(|e| to_py(e.into()))?;
        Ok(Scene { inner })
    }

    /// Parse, validate and build a scene from TOML `text`; errors name the file `name`
    /// (default "<string>") and the line within `text`.
    #[staticmethod]
    #[pyo3(signature = (text, name = "<string>"))]
    fn parse(py: Python<'_>, text: &str, name: &str) -> PyResult<Scene> {
        let inner = py
            .detach(|| scene::parse_scene(text, name).and_then(scene::build))
            .map_err(|e| to_py(e.into()))?;
        Ok(Scene { inner })
    }

    /// The scene's file name (or "<string>", or the ModelBuilder's name).
    #[getter]
    fn file(&self) -> String {
        self.inner.desc.file.clone()
    }

    /// Names of all bodies, fixed ones included, in index order.
    #[getter]
    fn body_names(&self) -> Vec<String> {
        self.inner
            .model
            .bodies
            .iter()
            .map(|b| b.name.clone())
            .collect()
    }

    /// The scene's contact model (its [contact] model).
    #[getter]
    fn contact_model(&self) -> String {
        self.inner.desc.contact.model.clone()
    }

    /// Time step h (s).
    #[getter]
    fn time_step(&self) -> f64 {
        self.inner.model.settings.time_step
    }

    /// Simulated duration (s).
    #[getter]
    fn duration(&self) -> f64 {
        self.inner.model.settings.duration
    }

    fn __repr__(&self) -> String {
        format!(
            "Scene(file={:?}, bodies={}, contact_model={:?})",
            self.inner.desc.file,
            self.inner.model.bodies.len(),
            self.inner.desc.contact.model
        )
    }
}

/// What one step did: stage wall times (s), the contact solve (solver, iterations, residual, LCP
/// rows), contacts and penetration at the end of the step; the columns of metrics.csv.
#[pyclass(module = "signorini", frozen, get_all)]
#[derive(Clone)]
pub struct StepReport {
    /// Simulated time at the end of the step (s).
    time: f64,
    /// Steps taken so far, this one included.
    step_count: u64,
    /// Length of the step h (s).
    time_step: f64,
    /// Contact points at the end of the step (gap ≤ activation distance).
    contacts: usize,
    /// Largest penetration depth at the end of the step (m; 0 when nothing penetrates).
    max_penetration: f64,
    /// Contact points that carried a force (first force evaluation of the step).
    active_points: usize,
    /// Wall time of the step (s): the sum of the five stages below.
    step_seconds: f64,
    broad_seconds: f64,
    narrow_seconds: f64,
    model_seconds: f64,
    solve_seconds: f64,
    integrate_seconds: f64,
    /// The solver whose answer was used; None when nothing was solved.
    solver: Option<String>,
    /// Unknowns of the complementarity problem (0 without a solve).
    lcp_rows: usize,
    /// Pivots, Newton iterations or PGS sweeps (0 without a solve).
    solver_iterations: usize,
    /// Scaled natural-map residual (0 without a solve).
    solver_residual: f64,
    /// No solver met the tolerance and the run went on with the best answer.
    solver_failed: bool,
    /// Contact islands the problem split into (0 without a solve).
    islands: usize,
    /// Impulse-based models: collision-law impulses, microcollisions, plastic contact impulses,
    /// Gauss–Seidel sweeps, unresolved points, their fastest approach (m/s), substeps.
    collisions: u64,
    microcollisions: u64,
    contact_impulses: u64,
    impulse_sweeps: u64,
    unresolved: u64,
    unresolved_speed: f64,
    substeps: u64,
    /// Post-step position projections applied in the step, the deepest overlap before them (m;
    /// 0 when none ran), and whether a projection's solve missed its tolerance (not applied).
    projection_passes: usize,
    projected_depth: f64,
    projection_failed: bool,
}

impl StepReport {
    fn new(r: &signorini::StepReport, state: &signorini::State) -> Self {
        let t = &r.times;
        let s = r.model_stats.solve;
        let i = &r.impulses;
        StepReport {
            time: state.time,
            step_count: state.step,
            time_step: r.time_step,
            contacts: r.contacts,
            max_penetration: r.max_penetration,
            active_points: r.model_stats.active_points,
            step_seconds: t.total(),
            broad_seconds: t.broad,
            narrow_seconds: t.narrow,
            model_seconds: t.model,
            solve_seconds: t.solve,
            integrate_seconds: t.integrate,
            solver: s.map(|s| s.solver.to_string()),
            lcp_rows: s.map_or(0, |s| s.rows),
            solver_iterations: s.map_or(0, |s| s.iterations),
            solver_residual: s.map_or(0.0, |s| s.residual),
            solver_failed: s.is_some_and(|s| s.failed),
            islands: s.map_or(0, |s| s.islands),
            collisions: i.collisions,
            microcollisions: i.microcollisions,
            contact_impulses: i.contact_impulses,
            impulse_sweeps: i.sweeps,
            unresolved: i.unresolved,
            unresolved_speed: i.unresolved_speed,
            substeps: i.substeps,
            projection_passes: r.projection.passes,
            projected_depth: r.projection.depth_before,
            projection_failed: r.projection.failed,
        }
    }
}

#[pymethods]
impl StepReport {
    /// The report as a dict (keys: the attribute names).
    fn as_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        d.set_item("time", self.time)?;
        d.set_item("step_count", self.step_count)?;
        d.set_item("time_step", self.time_step)?;
        d.set_item("contacts", self.contacts)?;
        d.set_item("max_penetration", self.max_penetration)?;
        d.set_item("active_points", self.active_points)?;
        d.set_item("step_seconds", self.step_seconds)?;
        d.set_item("broad_seconds", self.broad_seconds)?;
        d.set_item("narrow_seconds", self.narrow_seconds)?;
        d.set_item("model_seconds", self.model_seconds)?;
        d.set_item("solve_seconds", self.solve_seconds)?;
        d.set_item("integrate_seconds", self.integrate_seconds)?;
        d.set_item("solver", self.solver.clone())?;
        d.set_item("lcp_rows", self.lcp_rows)?;
        d.set_item("solver_iterations", self.solver_iterations)?;
        d.set_item("solver_residual", self.solver_residual)?;
        d.set_item("solver_failed", self.solver_failed)?;
        d.set_item("islands", self.islands)?;
        d.set_item("collisions", self.collisions)?;
        d.set_item("microcollisions", self.microcollisions)?;
        d.set_item("contact_impulses", self.contact_impulses)?;
        d.set_item("impulse_sweeps", self.impulse_sweeps)?;
        d.set_item("unresolved", self.unresolved)?;
        d.set_item("unresolved_speed", self.unresolved_speed)?;
        d.set_item("substeps", self.substeps)?;
        d.set_item("projection_passes", self.projection_passes)?;
        d.set_item("projected_depth", self.projected_depth)?;
        d.set_item("projection_failed", self.projection_failed)?;
        Ok(d)
    }

    fn __repr__(&self) -> String {
        format!(
            "StepReport(time={}, contacts={}, max_penetration={:e}, solver={}, lcp_rows={}, solver_iterations={}, solver_residual={:e}, step_seconds={:e})",
            self.time,
            self.contacts,
            self.max_penetration,
            self.solver.as_deref().map_or("None".into(), |s| format!("'{s}'")),
            self.lcp_rows,
            self.solver_iterations,
            self.solver_residual,
            self.step_seconds
        )
    }
}

/// Steps between two checks for Ctrl-C (KeyboardInterrupt) inside `step(n)` / `run_until(t)`.
const SIGNAL_CHECK_STEPS: u64 = 256;

/// A scene being simulated (the library's `Simulation`): steps it and reads its state.
#[pyclass(module = "signorini", frozen)]
pub struct Simulation {
    /// The library's simulation; a mutex so that stepping can release the GIL (and two Python
    /// threads sharing one simulation take turns instead of racing).
    inner: Mutex<signorini::Simulation>,
    names: Vec<String>,
}

impl Simulation {
    fn lock(&self) -> PyResult<MutexGuard<'_, signorini::Simulation>> {
        self.inner.lock().map_err(|_| {
            PyRuntimeError::new_err("the simulation is unusable: an earlier call panicked")
        })
    }

    /// The library's `Simulation::new` with the command line's `--dt` / `--duration` overrides.
    fn create(
        mut scene: signorini::Scene,
        model: Option<&str>,
        params: Vec<(String, ParamInput)>,
        time_step: Option<f64>,
        duration: Option<f64>,
    ) -> PyResult<Self> {
        let s = &mut scene.model.settings;
        let positive = |key: &str, v: f64| {
            if v > 0.0 && v.is_finite() {
                Ok(v)
            } else {
                let message = format!("must be a positive number of seconds, got {v}");
                Err(errors::config(key, message, None))
            }
        };
        if let Some(h) = time_step {
            s.time_step = positive("time_step", h)?;
        }
        if let Some(t) = duration {
            s.duration = positive("duration", t)?;
        }
        if (time_step.is_some() || duration.is_some()) && s.adaptive.is_none() {
            if let Err((message, hint)) =
                signorini::pipeline::adaptive::check_step_plan(s.duration, s.time_step)
            {
                return Err(errors::config("time_step/duration", message, Some(hint)));
            }
        }
        let names = scene.model.bodies.iter().map(|b| b.name.clone()).collect();
        let sim = signorini::Simulation::new(scene, model, &params).map_err(to_py)?;
        Ok(Simulation {
            inner: Mutex::new(sim),
            names,
        })
    }

    fn body_index(&self, body: &Bound<'_, PyAny>) -> PyResult<usize> {
        if let Ok(name) = body.extract::<String>() {
            return self
                .names
                .iter()
                .position(|n| *n == name)
                .ok_or_else(|| errors::no_such_body(&name, &self.names));
        }
        let index: i64 = body.extract().map_err(|_| {
            pyo3::exceptions::PyTypeError::new_err("body: give an index (int) or a name (str)")
        })?;
        usize::try_from(index).map_err(|_| {
            let message = format!(
                "no body {index}: body indices run from 0 to {} (no negative indices)",
                self.names.len().saturating_sub(1)
            );
            errors::no_such_body_message(message)
        })
    }

    /// Step `n` times (or until `until` is reached) with the GIL released, checking for signals
    /// every SIGNAL_CHECK_STEPS steps; the report of the last step.
    fn advance(&self, py: Python<'_>, n: Option<u64>, until: f64) -> PyResult<Option<StepReport>> {
        let mut last = None;
        let mut left = n.unwrap_or(u64::MAX);
        while left > 0 {
            let chunk = left.min(SIGNAL_CHECK_STEPS);
            let (report, done) = py.detach(|| -> PyResult<_> {
                let mut sim = self.lock()?;
                let mut report = None;
                for _ in 0..chunk {
                    let h = sim.model().settings.time_step;
                    if n.is_none() && sim.state().time >= until - 1e-9 * h {
                        return Ok((report, true));
                    }
                    let r = sim.step().map_err(to_py)?;
                    report = Some(StepReport::new(&r, sim.state()));
                }
                Ok((report, false))
            })?;
            if report.is_some() {
                last = report;
            }
            if done {
                break;
            }
            left -= chunk;
            py.check_signals()?;
        }
        Ok(last)
    }
}

#[pymethods]
impl Simulation {
    /// Simulate `scene` with its own contact model, or `model` (a name from signorini.models());
    /// `params` (name → number, word or list of words) replace the scene's [contact]
    /// parameters and are checked by the library: an unknown or out-of-range one raises
    /// ConfigError / SceneError naming it. `time_step` (s) and `duration` (s) override the
    /// scene's, as `signorini run --dt/--duration` do.
    #[new]
    #[pyo3(signature = (scene, model = None, params = None, *, time_step = None, duration = None))]
    fn new(
        scene: &Scene,
        model: Option<&str>,
        params: Option<&Bound<'_, PyDict>>,
        time_step: Option<f64>,
        duration: Option<f64>,
    ) -> PyResult<Self> {
        let params = convert::params(params)?;
        Self::create(scene.inner.clone(), model, params, time_step, duration)
    }

    /// `Simulation(Scene.load(path), ...)`.
    #[staticmethod]
    #[pyo3(signature = (path, model = None, params = None, *, time_step = None, duration = None))]
    fn from_file(
        py: Python<'_>,
        path: PathBuf,
        model: Option<&str>,
        params: Option<&Bound<'_, PyDict>>,
        time_step: Option<f64>,
        duration: Option<f64>,
    ) -> PyResult<Self> {
        let params = convert::params(params)?;
        let scene = py
            .detach(|| scene::load(&path))
            .map_err(|e| to_py(e.into()))?;
        Self::create(scene, model, params, time_step, duration)
    }

    /// `Simulation(Scene.parse(text, name), ...)`: a scene given as a TOML string; errors name
    /// the file `name` (default "<string>").
    #[staticmethod]
    #[pyo3(signature = (text, model = None, params = None, *, time_step = None, duration = None, name = "<string>"))]
    fn from_string(
        text: &str,
        model: Option<&str>,
        params: Option<&Bound<'_, PyDict>>,
        time_step: Option<f64>,
        duration: Option<f64>,
        name: &str,
    ) -> PyResult<Self> {
        let params = convert::params(params)?;
        let scene = scene::parse_scene(text, name)
            .and_then(scene::build)
            .map_err(|e| to_py(e.into()))?;
        Self::create(scene, model, params, time_step, duration)
    }

    /// Take `n` steps (default 1; the loop runs in Rust with the GIL released) and return the
    /// report of the last one. A failed step raises StepError; the state is then the one the
    /// library left (the steps before the failure are kept).
    #[pyo3(signature = (n = 1))]
    fn step(&self, py: Python<'_>, n: u64) -> PyResult<StepReport> {
        if n == 0 {
            return Err(PyValueError::new_err("step(n): n must be at least 1"));
        }
        self.advance(py, Some(n), f64::INFINITY)?
            .ok_or_else(|| PyRuntimeError::new_err("internal: no step was taken"))
    }

    /// Step until the time reaches `t` (s, within 1e-9 of a time step), as the library's
    /// run_until; the report of the last step, or None when the time had already reached `t`.
    fn run_until(&self, py: Python<'_>, t: f64) -> PyResult<Option<StepReport>> {
        if !t.is_finite() {
            return Err(PyValueError::new_err(format!(
                "run_until(t): t = {t} is not finite"
            )));
        }
        self.advance(py, None, t)
    }

    /// Simulated time (s).
    #[getter]
    fn time(&self) -> PyResult<f64> {
        Ok(self.lock()?.state().time)
    }

    /// Steps taken so far.
    #[getter]
    fn step_count(&self) -> PyResult<u64> {
        Ok(self.lock()?.step_count())
    }

    /// Has the time reached the scene's duration?
    #[getter]
    fn finished(&self) -> PyResult<bool> {
        Ok(self.lock()?.finished())
    }

    /// Steps of the whole duration with fixed steps (round(duration / time_step)).
    #[getter]
    fn planned_steps(&self) -> PyResult<u64> {
        Ok(self.lock()?.planned_steps())
    }

    /// Time step h (s) of the scene (after any override).
    #[getter]
    fn time_step(&self) -> PyResult<f64> {
        Ok(self.lock()?.model().settings.time_step)
    }

    /// The contact model that runs.
    #[getter]
    fn contact_model(&self) -> PyResult<String> {
        Ok(self.lock()?.contact_model().spec().name.to_string())
    }

    /// The contact model's parameters in effect, as summary.json writes them: name → the value
    /// given (number, word or list of words), or the default's value or expression (str).
    #[getter]
    fn params<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        for (name, value) in self.lock()?.contact_model().parameters() {
            d.set_item(name, convert::json(py, &value.to_json())?)?;
        }
        Ok(d)
    }

    /// Scene [contact] parameters the contact model does not use (left out).
    #[getter]
    fn ignored_params(&self) -> PyResult<Vec<String>> {
        Ok(self.lock()?.ignored_params().to_vec())
    }

    /// Names of all bodies, fixed ones included, in index order (the rows of the arrays).
    #[getter]
    fn body_names(&self) -> Vec<String> {
        self.names.clone()
    }

    /// (n,) bool: which bodies are fixed.
    #[getter]
    fn fixed<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, numpy::PyArray1<bool>>> {
        let v = self
            .lock()?
            .model()
            .bodies
            .iter()
            .map(|b| b.fixed)
            .collect();
        Ok(array1(py, v))
    }

    /// (n,) float64: masses (kg; inf for fixed bodies).
    #[getter]
    fn masses<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, numpy::PyArray1<f64>>> {
        let v = self.lock()?.model().bodies.iter().map(|b| b.mass).collect();
        Ok(array1(py, v))
    }

    /// (n, 3) float64: centre-of-mass positions (m, world). A fresh copy.
    #[getter]
    fn positions<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, numpy::PyArray2<f64>>> {
        rows3(py, &self.lock()?.state().bodies, |b| b.position)
    }

    /// (n, 4) float64: orientations as unit quaternions (w, x, y, z). A fresh copy.
    #[getter]
    fn quaternions<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, numpy::PyArray2<f64>>> {
        let sim = self.lock()?;
        let bodies = &sim.state().bodies;
        let mut data = Vec::with_capacity(4 * bodies.len());
        for b in bodies {
            let q = b.orientation;
            data.extend_from_slice(&[q.w, q.x, q.y, q.z]);
        }
        array2(py, data, 4)
    }

    /// (n, 3) float64: centre-of-mass velocities (m/s, world). A fresh copy.
    #[getter]
    fn velocities<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, numpy::PyArray2<f64>>> {
        rows3(py, &self.lock()?.state().bodies, |b| b.velocity)
    }

    /// (n, 3) float64: angular velocities (rad/s, world). A fresh copy.
    #[getter]
    fn angular_velocities<'py>(
        &self,
        py: Python<'py>,
    ) -> PyResult<Bound<'py, numpy::PyArray2<f64>>> {
        rows3(py, &self.lock()?.state().bodies, |b| b.angular_velocity)
    }

    /// Names of the scene's `[[deformable]]` bodies, in file order (empty without).
    #[getter]
    fn deformable_names(&self) -> PyResult<Vec<String>> {
        let sim = self.lock()?;
        Ok(sim
            .scene()
            .desc
            .deformables
            .iter()
            .map(|d| d.spec.name.clone())
            .collect())
    }

    /// (p, 3) float64: the particle positions (m, world) of deformable `name`, in the grid's
    /// order (x fastest; the rows of `deformable_<name>_particles.csv`). A fresh copy.
    fn deformable_positions<'py>(
        &self,
        py: Python<'py>,
        name: &str,
    ) -> PyResult<Bound<'py, numpy::PyArray2<f64>>> {
        let sim = self.lock()?;
        deformable_rows(py, &sim, name, |w| &w.x)
    }

    /// (p, 3) float64: the particle velocities (m/s, world) of deformable `name`. A fresh copy.
    fn deformable_velocities<'py>(
        &self,
        py: Python<'py>,
        name: &str,
    ) -> PyResult<Bound<'py, numpy::PyArray2<f64>>> {
        let sim = self.lock()?;
        deformable_rows(py, &sim, name, |w| &w.v)
    }

    /// The whole state at once: time (s), step_count, positions, quaternions, velocities,
    /// angular_velocities (arrays as the properties of those names), under one lock.
    fn state<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let sim = self.lock()?;
        let s = sim.state();
        let d = PyDict::new(py);
        d.set_item("time", s.time)?;
        d.set_item("step_count", s.step)?;
        d.set_item("positions", rows3(py, &s.bodies, |b| b.position)?)?;
        let mut q = Vec::with_capacity(4 * s.bodies.len());
        for b in &s.bodies {
            let o = b.orientation;
            q.extend_from_slice(&[o.w, o.x, o.y, o.z]);
        }
        d.set_item("quaternions", array2(py, q, 4)?)?;
        d.set_item("velocities", rows3(py, &s.bodies, |b| b.velocity)?)?;
        d.set_item(
            "angular_velocities",
            rows3(py, &s.bodies, |b| b.angular_velocity)?,
        )?;
        Ok(d)
    }

    /// The contacts of the current state (those of the last step, or detected now for the
    /// initial state), k of them: body_a, body_b (k,) int64 body indices; points_a, points_b
    /// (k, 3) world points on A and on B (m); normals (k, 3) unit normals from A towards B;
    /// gaps (k,) signed gaps ψ = (p_b − p_a)·n (m, negative when penetrating). The impulse each
    /// contact carried is `contact_impulses()`.
    fn contacts<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let mut sim = self.lock()?;
        let cs = sim.contacts();
        let d = PyDict::new(py);
        d.set_item("body_a", array1(py, column(cs, |c| c.body_a as i64)))?;
        d.set_item("body_b", array1(py, column(cs, |c| c.body_b as i64)))?;
        d.set_item("points_a", rows3(py, cs, |c| c.point_a)?)?;
        d.set_item("points_b", rows3(py, cs, |c| c.point_b)?)?;
        d.set_item("normals", rows3(py, cs, |c| c.normal)?)?;
        d.set_item("gaps", array1(py, column(cs, |c| c.gap)))?;
        Ok(d)
    }

    /// What each contact point pushed with over the last step, k entries (one per body pair and
    /// point, in the order the contact model applied them; empty before the first step):
    /// body_a, body_b (k,) int64; points (k, 3) world points where the impulse acts (m);
    /// normals (k, 3) unit contact normals from A to B; impulses (k, 3) the impulse on B over
    /// the step (N s, world axes; A receives the opposite); normal_impulses (k,) its component
    /// along the normal (N s). Divided by the step (`time_step`) it is the mean contact force.
    fn contact_impulses<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let mut sim = self.lock()?;
        let js = sim.contact_impulses();
        let d = PyDict::new(py);
        d.set_item("body_a", array1(py, column(js, |j| j.body_a as i64)))?;
        d.set_item("body_b", array1(py, column(js, |j| j.body_b as i64)))?;
        d.set_item("points", rows3(py, js, |j| j.point)?)?;
        d.set_item("normals", rows3(py, js, |j| j.normal)?)?;
        d.set_item("impulses", rows3(py, js, |j| j.impulse)?)?;
        let normal = column(js, |j| j.normal_impulse());
        d.set_item("normal_impulses", array1(py, normal))?;
        Ok(d)
    }

    /// Apply a constant `force` (N, at the centre of mass) and `torque` (N m), world axes, to
    /// `body` (index or name) from now on, replacing the one set before; zero for both removes
    /// it. Added to gravity and the scene's scheduled forces.
    #[pyo3(signature = (body, force = None, torque = None))]
    fn set_force(
        &self,
        body: &Bound<'_, PyAny>,
        force: Option<&Bound<'_, PyAny>>,
        torque: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        let index = self.body_index(body)?;
        let f = force.map_or(Ok(signorini::DVec3::ZERO), |v| convert::vec3("force", v))?;
        let t = torque.map_or(Ok(signorini::DVec3::ZERO), |v| convert::vec3("torque", v))?;
        self.lock()?.set_force(index, f, t).map_err(to_py)
    }

    fn __repr__(&self) -> PyResult<String> {
        let sim = self.lock()?;
        Ok(format!(
            "Simulation(scene={:?}, contact_model={:?}, time={}, step_count={})",
            sim.scene().desc.file,
            sim.contact_model().spec().name,
            sim.state().time,
            sim.step_count()
        ))
    }
}

/// The index of deformable `name` of the simulation's scene; a KeyError naming the ones there.
fn deformable_index(sim: &signorini::simulation::Simulation, name: &str) -> PyResult<usize> {
    let names: Vec<&str> = sim
        .scene()
        .desc
        .deformables
        .iter()
        .map(|d| d.spec.name.as_str())
        .collect();
    names.iter().position(|n| *n == name).ok_or_else(|| {
        pyo3::exceptions::PyKeyError::new_err(format!(
            "no deformable `{name}` in this scene (its deformables: {})",
            if names.is_empty() {
                "none".to_string()
            } else {
                names.join(", ")
            }
        ))
    })
}

/// One per-particle vector of deformable `name` (`of` picks positions or velocities) as (p, 3).
fn deformable_rows<'py>(
    py: Python<'py>,
    sim: &signorini::simulation::Simulation,
    name: &str,
    of: impl Fn(&signorini::deformable::World) -> &Vec<signorini::DVec3>,
) -> PyResult<Bound<'py, numpy::PyArray2<f64>>> {
    let k = deformable_index(sim, name)?;
    let w = &sim.deformables().expect("a deformable was named").worlds[k];
    rows3(py, of(w), |x| *x)
}
