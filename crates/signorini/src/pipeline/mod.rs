//! One time step, read as the pipeline: broad phase → narrow phase → contacts → model → solve →
//! integrate. Each stage is timed into the [`StepReport`].
pub mod adaptive;
pub mod implicit;
pub mod impulse;
pub mod projection;
mod through;

use crate::collision::{max_penetration, BroadPhase, Contact, NarrowPhase, PiecePair, Reach};
use crate::contact::impulse::ImpulseReport;
use crate::contact::{
    ContactError, ContactImpulse, ContactImpulses, ContactModel, ForceModel, ModelBase, ModelStats,
    SolveReport, VelocityLevelModel, VelocityProblem,
};
use crate::dynamics::forces::add_scheduled;
use crate::dynamics::implicit::{ElementLaw, ForceElement};
use crate::dynamics::integrate::{self, Derivative};
use crate::dynamics::{Integrator, Model, State, Wrench};
use crate::geometry::Pose;
use implicit::ImplicitReport;
use std::time::Instant;

/// Wall-clock seconds spent in each stage of a step.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct StageTimes {
    pub broad: f64,
    pub narrow: f64,
    /// Contact model: force or constraint assembly.
    pub model: f64,
    /// Solver (zero for penalty models, which solve nothing).
    pub solve: f64,
    pub integrate: f64,
}

impl StageTimes {
    pub fn total(&self) -> f64 {
        self.broad + self.narrow + self.model + self.solve + self.integrate
    }

    /// Add another step's (or stage's) times to these.
    pub fn add(&mut self, o: &StageTimes) {
        self.broad += o.broad;
        self.narrow += o.narrow;
        self.model += o.model;
        self.solve += o.solve;
        self.integrate += o.integrate;
    }
}

/// What one step did and the contact state it ended in.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct StepReport {
    /// Contacts of the state at the end of the step.
    pub contacts: usize,
    /// Largest penetration depth at the end of the step (m).
    pub max_penetration: f64,
    pub times: StageTimes,
    /// Model statistics of the first force evaluation of the step.
    pub model_stats: ModelStats,
    /// The step length h (s).
    pub time_step: f64,
    /// Impulses, sweeps and substeps of an impulse-based model's step (all zero otherwise).
    pub impulses: ImpulseReport,
    /// The post-step position projection of a velocity-level model (`projection.rs`; all zero
    /// when none ran).
    pub projection: projection::ProjectionReport,
}

/// Why a step could not be completed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum StepError {
    #[error("step {step} (t = {time} s): body `{body}` has a non-finite {what}; the simulation blew up. Try a smaller time step or softer contact gains")]
    NonFinite {
        step: u64,
        time: f64,
        body: String,
        what: &'static str,
    },
    #[error("step {step} (t = {time} s): a point of body `{body}` moves at up to {speed:.3e} m/s (|v| + |ω| r, r its bounding radius), above simulation.max_speed = {limit} m/s; the simulation is diverging. Try a smaller time step or softer contact gains")]
    TooFast {
        step: u64,
        time: f64,
        body: String,
        speed: f64,
        limit: f64,
    },
    #[error("step {step} (t = {time} s): bodies `{body_a}` and `{body_b}` are {depth:.3e} m into each other, more than the size of the smaller piece ({size:.3e} m): the contact model has lost them (one passed into or through the other). Try a smaller time step or other contact gains")]
    PassedThrough {
        step: u64,
        time: f64,
        body_a: String,
        body_b: String,
        depth: f64,
        size: f64,
    },
    #[error("step {step} (t = {time} s): body {body} ended wholly beyond the half-space {half_space}: its nearest point is {beyond:.3e} m past the plane, its deepest {depth:.3e} m, after its centre moved {travel:.3e} m in the step. It went through the surface within one step and no contact model can bring it back as a contact. Try a smaller time step (a step should move a body less than its own size){remedy}")]
    BeyondHalfSpace {
        step: u64,
        time: f64,
        /// The dynamic piece: "`name`" or "piece i of `name`".
        body: String,
        /// The fixed half-space, worded the same way.
        half_space: String,
        /// Distance of the piece's nearest point beyond the plane (m).
        beyond: f64,
        /// Depth of its deepest point beyond the plane (m).
        depth: f64,
        /// How far the piece's centre moved in the step (m).
        travel: f64,
        /// What else to change for this model (", or …"; may be empty).
        remedy: String,
    },
    #[error("step {step} (t = {time} s): body {body} crossed the fixed body {obstacle} within one step: its centre moved {travel:.3e} m, went through {chord:.3e} m of {obstacle} and ended {beyond:.3e} m past its far side, where a contact, if one is left, pushes it on. Try a smaller time step (a step should move a body less than the fixed body is thick){remedy}")]
    CrossedFixed {
        step: u64,
        time: f64,
        /// The dynamic piece: "`name`" or "piece i of `name`".
        body: String,
        /// The fixed piece it crossed, worded the same way.
        obstacle: String,
        /// Length of the centre's segment inside the fixed piece (m).
        chord: f64,
        /// Distance of the end of the segment past the face it left by (m).
        beyond: f64,
        /// How far the piece's centre moved in the step (m).
        travel: f64,
        /// What else to change for this model (", or …"; may be empty).
        remedy: String,
    },
    #[error("step {step} (t = {time} s): body {body} sank through the fixed body {obstacle}: its centre went into {obstacle} at t = {entered} s and has now come out of its far side, {chord:.3e} m from where it went in and {beyond:.3e} m past it; the contact model let it in deeper than half its size and then pushed it on through. Try a smaller time step, stiffer contacts, or a constraint model (stewart-trinkle, anitescu-potra, peg){remedy}")]
    SankThrough {
        step: u64,
        time: f64,
        /// The dynamic piece: "`name`" or "piece i of `name`".
        body: String,
        /// The fixed piece it sank through, worded the same way.
        obstacle: String,
        /// When the piece's centre went into the fixed piece (s).
        entered: f64,
        /// Distance from where the centre went in to where it came out (m).
        chord: f64,
        /// Distance of the centre past the face it left by (m).
        beyond: f64,
        /// What else to change for this model (", or …"; may be empty).
        remedy: String,
    },
    /// A deformable body stepped with the rigid ones (`simulation::Deformables`) failed: its
    /// own message (`deformable::DeformableError`), which names the particle and the stable step.
    #[error("step {step} (t = {time} s): {message}")]
    Deformable { step: u64, time: f64, message: String },
    // Not named `source`: thiserror would make it the error's source, and anyhow would print the
    // message twice (once here, once as "Caused by").
    #[error("step {step} (t = {time} s): contact model failed: {failure}")]
    Contact {
        step: u64,
        time: f64,
        failure: ContactError,
    },
}

/// Scratch memory reused from step to step.
#[derive(Default, Debug, Clone)]
pub struct Workspace {
    broad: BroadPhase,
    pairs: Vec<PiecePair>,
    narrow: NarrowPhase,
    /// Contacts of the current state (valid when `fresh`).
    pub contacts: Vec<Contact>,
    fresh: bool,
    /// Activation distance `contacts` were detected with (m).
    act: f64,
    wrenches: Vec<Wrench>,
    /// A force model's elements of an `implicit-euler` step.
    elements: Vec<ForceElement>,
    /// The applied wrenches of a velocity-level step (its `VelocityProblem` borrows them).
    applied: Vec<Wrench>,
    stage: State,
    k: [Vec<Derivative>; 4],
    /// Body poses at the start of the step being advanced (the pass-through checks).
    start: Vec<Pose>,
    through: through::Scratch,
    /// What each contact pushed with over the last step attempted.
    impulses: ContactImpulses,
    /// Body pairs deeper than v_max h at the start of the step (`projection::recovering_pairs`).
    recovering: Vec<(usize, usize)>,
    /// `implicit-euler`'s symbolic factorizations of the last step's islands.
    implicit_memory: implicit::Memory,
}

impl Workspace {
    pub fn new() -> Self {
        Self::default()
    }

    /// Forget cached contacts (call after changing a state by hand).
    pub fn invalidate(&mut self) {
        self.fresh = false;
    }

    /// The impulse each contact point carried over the last step (`contact::impulses`): one
    /// entry per (A, B, point), in the order the model first applied them (merged on the first
    /// call after a step).
    pub fn contact_impulses(&mut self) -> &[ContactImpulse] {
        self.impulses.merged()
    }
}

/// Broad and narrow phase on `state` with activation distance `act` (m), into `ws.contacts`.
pub fn detect(
    model: &Model,
    state: &State,
    reach: Reach,
    ws: &mut Workspace,
    times: &mut StageTimes,
) {
    let t0 = Instant::now();
    ws.broad
        .find_pairs(model, state, reach.activation, &mut ws.pairs);
    let t1 = Instant::now();
    ws.narrow
        .detect(model, state, &ws.pairs, reach, &mut ws.contacts);
    let t2 = Instant::now();
    ws.act = reach.activation;
    times.broad += (t1 - t0).as_secs_f64();
    times.narrow += (t2 - t1).as_secs_f64();
}

/// Contacts of `state` as `contact_model` sees them (detected now unless the workspace holds
/// them already).
pub fn contacts<'w>(
    model: &Model,
    state: &State,
    ws: &'w mut Workspace,
    contact_model: &ContactModel,
) -> &'w [Contact] {
    ensure_contacts(
        model,
        state,
        ws,
        contact_model.base(),
        &mut StageTimes::default(),
    );
    ws.fresh = true;
    &ws.contacts
}

/// All forces on every body at `state`: scheduled forces, then what `contact_forces` adds (the
/// model's contact wrenches for a step of length `h`, s), timed into the model stage (its own
/// solver time into the solve stage, its own collision detection into the narrow phase).
fn evaluate_forces(
    model: &Model,
    state: &State,
    wrenches: &mut Vec<Wrench>,
    times: &mut StageTimes,
    contact_forces: impl FnOnce(&mut [Wrench]) -> Result<ModelStats, ContactError>,
) -> Result<ModelStats, ContactError> {
    let t0 = Instant::now();
    wrenches.clear();
    wrenches.resize(model.bodies.len(), Wrench::default());
    add_scheduled(model, state, state.time, wrenches);
    let stats = contact_forces(wrenches)?;
    let solve = stats.solve.map_or(0.0, |s| s.seconds);
    times.model += t0.elapsed().as_secs_f64() - solve - stats.detection;
    times.solve += solve;
    times.narrow += stats.detection;
    Ok(stats)
}

/// Advance `state` by one time step of the scene's length h and let the contact model update its
/// memory (`ModelBase::end_step`).
pub fn step(
    model: &Model,
    state: &mut State,
    ws: &mut Workspace,
    contact_model: &mut ContactModel,
) -> Result<StepReport, StepError> {
    let attempt = advance(
        model,
        state,
        ws,
        contact_model,
        model.settings.time_step,
        Clock::Fixed,
        false,
    )?;
    contact_model.end_step(model, state, &ws.contacts);
    Ok(attempt.report)
}

/// How a step sets the clock.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Clock {
    /// t = steps × h (fixed steps: no round-off drift of the clock).
    Fixed,
    /// t += h (variable steps).
    Accumulate,
}

/// One step taken but not yet accepted: the contact model's memory is unchanged.
pub struct Attempt {
    pub report: StepReport,
    /// Work done over the step by every force except gravity (J), when it was asked for: the
    /// integrator's own quadrature of the power Σ F·v + τ·ω (RK4: h/6 (P₁ + 2P₂ + 2P₃ + P₄) over its
    /// stages; semi-implicit Euler: the trapezoid h/2 (P(t) + P(t + h)), forces evaluated once more
    /// at the end state).
    pub work: Option<f64>,
}

/// Power of the non-gravitational wrenches at `state` (W).
fn power(model: &Model, state: &State, wrenches: &[Wrench]) -> f64 {
    model
        .bodies
        .iter()
        .zip(&state.bodies)
        .zip(wrenches)
        .filter(|((b, _), _)| !b.fixed)
        .map(|((_, s), w)| w.force.dot(s.velocity) + w.torque.dot(s.angular_velocity))
        .sum()
}

/// Advance `state` by `h` without accepting the step: the caller calls the contact model's
/// `end_step` if it keeps the step, or restores the state (and invalidates `ws`) if not.
///
/// One `match` over the three couplings (`contact::coupling`): force models are integrated by
/// the scene's integrator, velocity-level models solve their step's problem and are integrated by
/// semi-implicit Euler, impulse-based models run their impulse loop (`impulse.rs`). Every
/// coupling ends with the state checks and the depth check of the new state; then the
/// pass-through checks compare it with the poses at the start (`through.rs`: a piece wholly
/// beyond a half-space, a piece that crossed a fixed piece within the step). A failed check is an
/// error of the attempt, so an adaptive step retries shorter and only a step it keeps can stop
/// the run.
pub fn advance(
    model: &Model,
    state: &mut State,
    ws: &mut Workspace,
    contact_model: &mut ContactModel,
    h: f64,
    clock: Clock,
    measure_work: bool,
) -> Result<Attempt, StepError> {
    let mut start = std::mem::take(&mut ws.start);
    start.clear();
    start.extend(state.bodies.iter().map(|b| b.pose()));
    let start_time = state.time;
    let mut log = std::mem::take(&mut ws.impulses);
    log.start();
    let attempt = match contact_model {
        ContactModel::Force(m) => advance_force(
            model,
            state,
            ws,
            m.as_mut(),
            h,
            (clock, measure_work),
            &mut log,
        ),
        ContactModel::VelocityLevel(m) => {
            advance_velocity_level(model, state, ws, m.as_mut(), h, clock, &mut log)
        }
        // Impulses change velocities at instants: the impulse loop takes the step (no work
        // measurement: adaptive steps refuse impulse-based models).
        ContactModel::ImpulseBased(m) => {
            impulse::advance(model, state, ws, m.as_mut(), h, clock, &mut log)
        }
    };
    ws.impulses = log;
    let checked = attempt.and_then(|a| {
        through::check(
            model,
            &start,
            start_time,
            state,
            contact_model,
            &mut ws.through,
        )?;
        Ok(a)
    });
    ws.start = start;
    checked
}

/// A failure of the contact model in the step that starts at `state`.
fn contact_failure(state: &State) -> impl Fn(ContactError) -> StepError {
    let (step, time) = (state.step + 1, state.time);
    move |failure| StepError::Contact {
        step,
        time,
        failure,
    }
}

/// Detect at `state` unless the workspace holds its contacts.
/// What the narrow phase reports for `base` at `state`: its activation distance, and its near
/// features if it asks for them.
pub fn reach(base: &dyn ModelBase, model: &Model, state: &State) -> Reach {
    Reach {
        activation: base.activation_distance(model, state),
        near_features: base.near_features(model),
    }
}

fn ensure_contacts(
    model: &Model,
    state: &State,
    ws: &mut Workspace,
    base: &dyn ModelBase,
    times: &mut StageTimes,
) {
    if !ws.fresh {
        detect(model, state, reach(base, model, state), ws, times);
    }
}

/// A force model's step: the forces at `state`, then the scene's integrator (RK4 re-detects and
/// re-evaluates at its stages; `implicit-euler` takes the model's force elements at the end of
/// the step, `dynamics::implicit`). Each evaluation's forces go into `log` weighted by how long
/// the integrator holds them (h; RK4: h/6, h/3, h/3, h/6), the force elements' end-of-step
/// forces by h; the trapezoid's evaluation at the end state (work) is not recorded.
#[allow(clippy::too_many_arguments)]
fn advance_force(
    model: &Model,
    state: &mut State,
    ws: &mut Workspace,
    contact_model: &mut dyn ForceModel,
    h: f64,
    (clock, measure_work): (Clock, bool),
    log: &mut ContactImpulses,
) -> Result<Attempt, StepError> {
    let mut times = StageTimes::default();
    ensure_contacts(model, state, ws, contact_model, &mut times);
    let fail = contact_failure(state);
    let integrator = model.settings.integrator;
    let mut wrenches = std::mem::take(&mut ws.wrenches);
    let mut elements = std::mem::take(&mut ws.elements);
    log.hold_forces_for(if integrator == Integrator::Rk4 {
        h / 6.0
    } else {
        h
    });
    let mut model_stats = force_evaluation(
        model,
        state,
        &ws.contacts,
        contact_model,
        h,
        integrator,
        (&mut wrenches, &mut elements),
        &mut times,
        log,
    )
    .map_err(&fail)?;
    if integrator == Integrator::ImplicitEuler {
        let wrenches = (&mut wrenches[..], &elements[..], &mut ws.implicit_memory);
        let solve = element_forces(model, state, h, wrenches, log, &mut times);
        model_stats.solve = solve.or(model_stats.solve);
    }
    let mut work = measure_work.then(|| power(model, state, &wrenches));
    match integrator {
        Integrator::SemiImplicitEuler | Integrator::ImplicitEuler => {
            let t0 = Instant::now();
            integrate::semi_implicit_euler(model, state, &wrenches, h);
            times.integrate += t0.elapsed().as_secs_f64();
        }
        Integrator::Rk4 => {
            let result = rk4(
                model,
                state,
                ws,
                contact_model,
                h,
                (&mut wrenches, log),
                &mut times,
                work.as_mut(),
            );
            if let Err(e) = result {
                ws.wrenches = wrenches;
                ws.elements = elements;
                return Err(fail(e));
            }
            work = work.map(|w| w * h / 6.0);
        }
    }
    let finished = finish_step(model, state, ws, contact_model, h, clock, &mut times);
    if let Err(e) = finished {
        ws.wrenches = wrenches;
        ws.elements = elements;
        return Err(e);
    }
    if integrator != Integrator::Rk4 {
        if let Some(w) = work.as_mut() {
            // Trapezoid: the power at the end state needs the forces there (an element's force
            // as the model gives it there).
            let start = *w;
            log.pause();
            force_evaluation(
                model,
                state,
                &ws.contacts,
                contact_model,
                h,
                integrator,
                (&mut wrenches, &mut elements),
                &mut times,
                log,
            )
            .map_err(&fail)?;
            let forces: Vec<f64> = elements.iter().map(|e| e.force).collect();
            add_element_forces(state, &elements, &forces, &mut wrenches);
            *w = 0.5 * h * (start + power(model, state, &wrenches));
        }
    }
    ws.wrenches = wrenches;
    ws.elements = elements;
    Ok(Attempt {
        report: report(ws, times, model_stats, h),
        work,
    })
}

/// The forces at `state` into `out.0`: all of them for the explicit integrators, for
/// `implicit-euler` the model's explicit part there and its force elements into `out.1`.
#[allow(clippy::too_many_arguments)]
fn force_evaluation(
    model: &Model,
    state: &State,
    contacts: &[Contact],
    contact_model: &mut dyn ForceModel,
    h: f64,
    integrator: Integrator,
    (wrenches, elements): (&mut Vec<Wrench>, &mut Vec<ForceElement>),
    times: &mut StageTimes,
    log: &mut ContactImpulses,
) -> Result<ModelStats, ContactError> {
    elements.clear();
    evaluate_forces(model, state, wrenches, times, |out| {
        if integrator == Integrator::ImplicitEuler {
            contact_model.linearised_forces(model, state, contacts, h, out, elements, log)
        } else {
            contact_model.contact_forces(model, state, contacts, h, out, log)
        }
    })
}

/// `implicit-euler`'s end of the step: the force elements' end-of-step forces
/// (`implicit::end_of_step_forces`) added into `wrenches` and recorded in `log`, timed as the
/// solve; its report when there were elements.
pub(crate) fn element_forces(
    model: &Model,
    state: &State,
    h: f64,
    (wrenches, elements, memory): (&mut [Wrench], &[ForceElement], &mut implicit::Memory),
    log: &mut ContactImpulses,
    times: &mut StageTimes,
) -> Option<SolveReport> {
    let t0 = Instant::now();
    let (forces, implicit) =
        implicit::end_of_step_forces_with(model, state, h, wrenches, elements, memory);
    add_element_forces(state, elements, &forces, wrenches);
    record_element_forces(elements, &forces, log);
    let seconds = t0.elapsed().as_secs_f64();
    times.solve += seconds;
    (!elements.is_empty()).then(|| implicit_report(&implicit, seconds))
}

/// Each element's end-of-step force `forces[i]` (N) into `log` (held for its current weight,
/// h), with the normal of its contact: its own direction for a normal element, its normal
/// element's for a friction one.
fn record_element_forces(elements: &[ForceElement], forces: &[f64], log: &mut ContactImpulses) {
    for (e, &f) in elements.iter().zip(forces) {
        let normal = match e.law {
            ElementLaw::Unilateral => e.direction,
            ElementLaw::Friction { normal, .. } => elements[normal].direction,
        };
        log.force((e.body_a, e.body_b), e.point, normal, f * e.direction);
    }
}

/// Add each element's force `forces[i]` (N, along its direction on B, against it on A) into
/// the wrenches.
fn add_element_forces(
    state: &State,
    elements: &[ForceElement],
    forces: &[f64],
    wrenches: &mut [Wrench],
) {
    for (e, &f) in elements.iter().zip(forces) {
        let force = f * e.direction;
        wrenches[e.body_b].add_at(force, e.point, state.bodies[e.body_b].position);
        wrenches[e.body_a].add_at(-force, e.point, state.bodies[e.body_a].position);
    }
}

/// The implicit solve as the step's solve report: rows are the elements, iterations the Newton
/// steps (factorizations) of the island that took the most. The residual is the larger of the
/// momentum residual ‖∇E‖ (relative) and how far the friction forces are outside their cones
/// (`ImplicitReport::law_residual`); failed when it is above 1e-8.
fn implicit_report(r: &ImplicitReport, seconds: f64) -> SolveReport {
    let residual = r.residual.max(r.law_residual);
    SolveReport {
        rows: r.elements,
        solver: "implicit (block cholesky)",
        iterations: r.iterations,
        residual,
        attempts: 1,
        seconds,
        failed: residual > 1e-8,
        islands: r.islands,
    }
}

/// Classical RK4 over a force model: stages 2–4 detect and evaluate the forces at the offset
/// states; `wrenches` holds the first stage's forces on entry. Adds the stages' power
/// (weights 2, 2, 1) to `work` when asked.
#[allow(clippy::too_many_arguments)]
fn rk4(
    model: &Model,
    state: &mut State,
    ws: &mut Workspace,
    contact_model: &mut dyn ForceModel,
    h: f64,
    (wrenches, log): (&mut Vec<Wrench>, &mut ContactImpulses),
    times: &mut StageTimes,
    mut work: Option<&mut f64>,
) -> Result<(), ContactError> {
    let mut k = std::mem::take(&mut ws.k);
    let mut stage = std::mem::take(&mut ws.stage);
    let t0 = Instant::now();
    integrate::derivatives(model, state, wrenches, &mut k[0]);
    times.integrate += t0.elapsed().as_secs_f64();
    for s in 1..4 {
        let t0 = Instant::now();
        let frac = if s == 3 { h } else { 0.5 * h };
        integrate::offset_state(model, state, &k[s - 1], frac, &mut stage);
        times.integrate += t0.elapsed().as_secs_f64();
        detect(
            model,
            &stage,
            reach(contact_model, model, &stage),
            ws,
            times,
        );
        let contacts = &ws.contacts;
        log.hold_forces_for(if s == 3 { h / 6.0 } else { h / 3.0 });
        evaluate_forces(model, &stage, wrenches, times, |out| {
            contact_model.contact_forces(model, &stage, contacts, h, out, log)
        })?;
        if let Some(w) = work.as_deref_mut() {
            *w += if s == 3 { 1.0 } else { 2.0 } * power(model, &stage, wrenches);
        }
        let t0 = Instant::now();
        integrate::derivatives(model, &stage, wrenches, &mut k[s]);
        times.integrate += t0.elapsed().as_secs_f64();
    }
    let t0 = Instant::now();
    integrate::rk4_combine(model, state, [&k[0], &k[1], &k[2], &k[3]], h);
    times.integrate += t0.elapsed().as_secs_f64();
    ws.k = k;
    ws.stage = stage;
    Ok(())
}

/// A velocity-level model's step: the pipeline builds the step's [`VelocityProblem`] once (free
/// velocity, inverse mass, Jacobian rows on demand), the model adds its contact impulses / h to
/// the applied wrenches, and semi-implicit Euler takes the step with them. No work measurement:
/// adaptive steps refuse velocity-level models.
fn advance_velocity_level(
    model: &Model,
    state: &mut State,
    ws: &mut Workspace,
    contact_model: &mut dyn VelocityLevelModel,
    h: f64,
    clock: Clock,
    log: &mut ContactImpulses,
) -> Result<Attempt, StepError> {
    let mut times = StageTimes::default();
    ensure_contacts(model, state, ws, contact_model, &mut times);
    if let Some(settings) = contact_model.projection() {
        projection::recovering_pairs(&ws.contacts, &settings, h, &mut ws.recovering);
    }
    let fail = contact_failure(state);
    let mut wrenches = std::mem::take(&mut ws.wrenches);
    let mut applied = std::mem::take(&mut ws.applied);
    let at: &State = state;
    let solved = evaluate_forces(model, at, &mut wrenches, &mut times, |out| {
        applied.clear();
        applied.extend_from_slice(out);
        let problem = VelocityProblem::new(model, at, h, &applied);
        contact_model.solve_step(&problem, &ws.contacts, out, log)
    });
    ws.applied = applied;
    let model_stats = solved.map_err(fail)?;
    let t0 = Instant::now();
    integrate::semi_implicit_euler(model, state, &wrenches, h);
    times.integrate += t0.elapsed().as_secs_f64();
    ws.wrenches = wrenches;
    finish_step(model, state, ws, contact_model, h, clock, &mut times)?;
    let projected = project_positions(model, state, ws, contact_model, h, &mut times)?;
    Ok(Attempt {
        report: StepReport {
            projection: projected,
            ..report(ws, times, model_stats, h)
        },
        work: None,
    })
}

/// The model's post-step projection (`projection.rs`), at most [`projection::PASSES`] times,
/// each followed by the detection and depth check of the projected state; timed into the solve
/// stage (the detections into theirs).
fn project_positions(
    model: &Model,
    state: &mut State,
    ws: &mut Workspace,
    contact_model: &dyn VelocityLevelModel,
    h: f64,
    times: &mut StageTimes,
) -> Result<projection::ProjectionReport, StepError> {
    let mut total = projection::ProjectionReport::default();
    let Some(settings) = contact_model.projection() else {
        return Ok(total);
    };
    for _ in 0..projection::PASSES {
        let t0 = Instant::now();
        let done = projection::project(model, state, &ws.contacts, &settings, h, &ws.recovering);
        times.solve += t0.elapsed().as_secs_f64();
        let Some(done) = done else { break };
        total.add(&done);
        if done.failed {
            break;
        }
        detect(model, state, reach(contact_model, model, state), ws, times);
        ws.fresh = true;
        check_depths(model, state, &ws.contacts)?;
    }
    Ok(total)
}

/// The end of every step that is not an impulse loop's: the clock, the state checks, and the
/// detection at the new state (its contacts give the step's metrics and the next step's first
/// stage).
fn finish_step(
    model: &Model,
    state: &mut State,
    ws: &mut Workspace,
    base: &dyn ModelBase,
    h: f64,
    clock: Clock,
    times: &mut StageTimes,
) -> Result<(), StepError> {
    state.step += 1;
    state.time = match clock {
        Clock::Fixed => state.step as f64 * h,
        Clock::Accumulate => state.time + h,
    };
    check_state(model, state)?;
    detect(model, state, reach(base, model, state), ws, times);
    ws.fresh = true;
    check_depths(model, state, &ws.contacts)
}

/// The report of a step that ended with `ws`'s contacts.
fn report(ws: &Workspace, times: StageTimes, model_stats: ModelStats, h: f64) -> StepReport {
    StepReport {
        contacts: ws.contacts.len(),
        max_penetration: max_penetration(&ws.contacts),
        times,
        model_stats,
        time_step: h,
        impulses: ImpulseReport::default(),
        projection: Default::default(),
    }
}

/// Stop when a contact between two bounded pieces is deeper than the smaller one is wide (twice its
/// bounding radius): it lies wholly inside the other, where no normal can say which way is out,
/// and no contact model can recover the pair. Half-spaces are not checked here: a piece *partly*
/// in a half-space, however deep, still has the plane's normal as its way out and is left to the
/// model. A piece *wholly* beyond the plane is another matter — this comment used to say that
/// stewart-trinkle lifting a ball 0.3 m deep (r = 0.1 m: wholly underground) out of the ground
/// the next step was fine; it is a pass-through, and `through.rs` stops it, as it stops a body
/// whose centre crossed a fixed piece within the step (a thin wall: no contact may be left).
pub(crate) fn check_depths(
    model: &Model,
    state: &State,
    contacts: &[Contact],
) -> Result<(), StepError> {
    for c in contacts {
        let radius =
            |body: usize, piece: usize| model.bodies[body].pieces[piece].shape.bounding_radius();
        let (ra, rb) = (radius(c.body_a, c.piece_a), radius(c.body_b, c.piece_b));
        let size = 2.0 * ra.min(rb);
        if ra.is_finite() && rb.is_finite() && -c.gap > size {
            return Err(StepError::PassedThrough {
                step: state.step,
                time: state.time,
                body_a: model.bodies[c.body_a].name.clone(),
                body_b: model.bodies[c.body_b].name.clone(),
                depth: -c.gap,
                size,
            });
        }
    }
    Ok(())
}

/// Stop on a non-finite or runaway state, naming the step and the body.
fn check_state(model: &Model, state: &State) -> Result<(), StepError> {
    for (body, bs) in model.bodies.iter().zip(&state.bodies) {
        let what = if !bs.position.is_finite() {
            Some("position")
        } else if !bs.orientation.is_finite() {
            Some("orientation")
        } else if !bs.velocity.is_finite() {
            Some("velocity")
        } else if !bs.angular_velocity.is_finite() {
            Some("angular velocity")
        } else {
            None
        };
        if let Some(what) = what {
            return Err(StepError::NonFinite {
                step: state.step,
                time: state.time,
                body: body.name.clone(),
                what,
            });
        }
        // The fastest point: |v| + |ω| r (r the bounding radius about the centre of mass), so
        // that a diverging spin stops the run as a diverging translation does (the explicit
        // gyroscopic term of the free rotation blows up once |ω| h is large).
        let radius = body.bounding_radius();
        let spin = bs.angular_velocity.length() * if radius.is_finite() { radius } else { 0.0 };
        let speed = bs.velocity.length() + spin;
        if speed > model.settings.max_speed {
            return Err(StepError::TooFast {
                step: state.step,
                time: state.time,
                body: body.name.clone(),
                speed,
                limit: model.settings.max_speed,
            });
        }
    }
    Ok(())
}
