//! The step of an impulse-based contact model (`ContactModel::ImpulseBased`): impulses
//! change velocities at instants, so the step is cut into substeps at the times of impact, and
//! the velocity and position updates may be interleaved with impulse stages.
//!
//! **`LoopVariant::Collide`** (the `impulse` model's `global`, `sequential` and `microcollisions`
//! loops, and `hybrid`), following slide 15 of "Rigid Body Dynamics (II)":
//!
//! ```text
//!   left ← h
//!   repeat
//!     C ← contacts(X)                                   broad + narrow
//!     applyImpulses(X, C)                               model stage (collisions)
//!     F ← scheduled forces + the model's forces at X    model + solve stages (global: resting LCP)
//!     s ← time of impact in (0, left] from X under F    conservative advancement (below)
//!     X ← X advanced by s (semi-implicit Euler, F held)  integrate stage
//!     left ← left − s
//!   until left = 0
//! ```
//!
//! **Time of impact by conservative advancement.** Over a substep every point of body i moves at
//! most U_i per second (`contact::impulse::speed_bound`: U = |v| + 2h|a| + (|ω| + 2h|α|) r), so
//! the gap of a contact point of bodies a and b cannot fall faster than U_a + U_b. Points that
//! touch at the start of the substep (ψ ≤ δ) are left out — they are the contacts the impulses
//! just resolved, or resting ones, and would stop the advancement at once. From s = 0, with the
//! trial state X(s) (one semi-implicit Euler step of length s from X) and its contacts:
//!
//! ```text
//!   if some other point has ψ ≤ τ_toi:  impact at s
//!   τ = min over the other points of (ψ − τ_toi/2) / (U_a + U_b)
//!   if s + τ ≥ left: no impact in the substep, s = left;  else s ← s + τ
//! ```
//!
//! Each advance keeps every gap above τ_toi/2 > 0 (the bound is conservative), so an impact is
//! found with 0 < ψ ≤ τ_toi and a body never passes through another, however thin and however
//! fast, as long as the narrow phase reports the pair: detection at trial states uses the
//! activation distance δ + 2 left max_i U_i, which covers any approach over the substep. Points
//! are identified across detections by (bodies, pieces, features); a point whose features change
//! while it touches counts as a new point (at worst an extra substep). A point that touches at
//! the start of a substep is not regressed in that substep even if it bounces off and comes back
//! (a hop shorter than the substep): it is caught, slightly penetrating, at the next collision
//! stage. This is what bounds the number of impacts per step where exact regression would follow
//! a Zeno sequence of ever shorter bounces.
//!
//! **`LoopVariant::Guendelman`**: one pass per step, no regression (Drumwright §II-E):
//!
//! ```text
//!   C ← contacts(X);  collisions(X, C, h)   v changed where ψ + h u_n < 0
//!   v ← v + h M⁻¹ F                          velocity integration
//!   contacts(X, C, h)                        plastic impulses where ψ + h u_n < 0, new v
//!   x ← x + h v;  q ← exp(h ω) q              position integration
//! ```
//!
//! Both variants integrate by semi-implicit Euler whatever the scene's integrator (the forces are
//! held over a substep, which the speed bound assumes). The contacts detected at the end of the
//! step (with the activation distance the model asks for) give the step's metrics and the next
//! step's first contacts. Stage times: detections at trial states go to broad/narrow, trial and
//! final integrations to integrate, the impulse stages and forces to model (solver time to solve).
use super::{
    check_depths, check_state, detect, element_forces, evaluate_forces, reach, Attempt, Clock,
    StageTimes, StepError, StepReport, Workspace,
};
use crate::collision::{max_penetration, Contact, Reach};
use crate::contact::impulse::{
    body_radius, default_activation, speed_bound, ImpulseReport, LoopSettings, LoopVariant, Stage,
};
use crate::contact::{ContactError, ContactImpulses, ImpulseBasedModel, ModelStats};
use crate::dynamics::implicit::ForceElement;
use crate::dynamics::integrate::{accelerations, rotate_by, semi_implicit_euler};
use crate::dynamics::{Integrator, Model, State, Wrench};
use crate::geometry::Feature;
use std::time::Instant;

/// A contact point's identity across detections.
type PointKey = (usize, usize, usize, usize, Feature, Feature);

fn key(c: &Contact) -> PointKey {
    (
        c.body_a,
        c.piece_a,
        c.body_b,
        c.piece_b,
        c.feature_a,
        c.feature_b,
    )
}

/// How a regression ended.
struct Regression {
    /// Length of the substep (s).
    length: f64,
    /// Trial states detected.
    iterations: u64,
    /// The iteration limit ended it.
    capped: bool,
}

/// Conservative advancement from `start` under `wrenches` over at most `left` seconds (module
/// documentation). When it returns a length below `left`, `trial` holds the state there and
/// `ws.contacts` its contacts.
#[allow(clippy::too_many_arguments)]
fn time_of_impact(
    model: &Model,
    start: &State,
    wrenches: &[Wrench],
    left: f64,
    settings: &LoopSettings,
    radii: &[f64],
    ws: &mut Workspace,
    times: &mut StageTimes,
    trial: &mut State,
) -> Regression {
    let t0 = Instant::now();
    let bound: Vec<f64> = (0..model.bodies.len())
        .map(|i| {
            let acc = accelerations(model, start, i, &wrenches[i]);
            speed_bound(model, start, i, acc, left, radii[i])
        })
        .collect();
    times.integrate += t0.elapsed().as_secs_f64();
    let fastest = bound.iter().copied().fold(0.0, f64::max);
    let mut done = Regression {
        length: left,
        iterations: 0,
        capped: false,
    };
    if fastest == 0.0 {
        return done;
    }
    let act = settings.contact_distance + 2.0 * left * fastest;
    if !ws.fresh || ws.act < act {
        detect(model, start, Reach::axis(act), ws, times);
        ws.fresh = true;
    }
    let mut excluded: Vec<PointKey> = ws
        .contacts
        .iter()
        .filter(|c| c.gap <= settings.contact_distance)
        .map(key)
        .collect();
    excluded.sort();
    let toi = settings.toi_tolerance;
    let mut s = 0.0;
    loop {
        let mut tau = f64::INFINITY;
        for c in &ws.contacts {
            if excluded.binary_search(&key(c)).is_ok() {
                continue;
            }
            if c.gap <= toi {
                // An impact (s > 0: at s = 0 every point that is not left out has ψ > δ ≥ τ_toi).
                done.length = s;
                return done;
            }
            let closing = bound[c.body_a] + bound[c.body_b];
            if closing > 0.0 {
                tau = tau.min((c.gap - 0.5 * toi) / closing);
            }
        }
        if s + tau >= left {
            done.length = left;
            return done;
        }
        if done.iterations >= settings.max_toi_iterations as u64 {
            done.length = s;
            done.capped = true;
            return done;
        }
        s += tau;
        let t0 = Instant::now();
        trial.clone_from(start);
        semi_implicit_euler(model, trial, wrenches, s);
        times.integrate += t0.elapsed().as_secs_f64();
        detect(model, trial, Reach::axis(act), ws, times);
        done.iterations += 1;
    }
}

/// v ← v + h a, ω ← ω + h α for every moving body (Guendelman's velocity integration; held
/// bodies wait for their release).
fn integrate_velocities(model: &Model, state: &mut State, wrenches: &[Wrench], h: f64) {
    for i in 0..model.bodies.len() {
        if !model.bodies[i].moves(state.time) {
            continue;
        }
        let (a, alpha) = accelerations(model, state, i, &wrenches[i]);
        let bs = &mut state.bodies[i];
        bs.velocity += h * a;
        bs.angular_velocity += h * alpha;
    }
}

/// x ← x + h v, q ← exp(h ω) q for every moving body (Guendelman's position integration).
fn integrate_positions(model: &Model, state: &mut State, h: f64) {
    let t = state.time;
    for (body, bs) in model.bodies.iter().zip(state.bodies.iter_mut()) {
        if !body.moves(t) {
            continue;
        }
        bs.position += h * bs.velocity;
        bs.orientation = rotate_by(bs.orientation, h * bs.angular_velocity);
    }
}

/// One step of an impulse loop in progress: what its substeps share.
struct ImpulseStep<'a> {
    model: &'a Model,
    contact_model: &'a mut dyn ImpulseBasedModel,
    settings: LoopSettings,
    /// The step's length (s), number and start time (s).
    h: f64,
    step_no: u64,
    time: f64,
    radii: Vec<f64>,
    times: StageTimes,
    impulses: ImpulseReport,
    /// The model's statistics of the step's first force evaluation.
    first_stats: Option<ModelStats>,
    wrenches: Vec<Wrench>,
    /// The model's force elements of a substep (`implicit-euler`).
    elements: Vec<ForceElement>,
    /// `implicit-euler`'s symbolic factorizations, kept between substeps and steps.
    implicit_memory: super::implicit::Memory,
    trial: State,
    /// The step's contact impulses (`contact::impulses`).
    log: &'a mut ContactImpulses,
}

impl ImpulseStep<'_> {
    fn fail(&self, failure: ContactError) -> StepError {
        StepError::Contact {
            step: self.step_no + 1,
            time: self.time,
            failure,
        }
    }

    /// Detect at `state` unless the workspace holds contacts detected at least `act` (m) wide.
    fn detect_within(&mut self, state: &State, ws: &mut Workspace, act: f64) {
        if !ws.fresh || ws.act < act {
            detect(self.model, state, Reach::axis(act), ws, &mut self.times);
            ws.fresh = true;
        }
    }

    /// One impulse stage (velocity update), timed as the model stage.
    fn impulse_stage(
        &mut self,
        state: &mut State,
        ws: &Workspace,
        stage: Stage,
        h: f64,
    ) -> Result<(), StepError> {
        let t0 = Instant::now();
        let r =
            self.contact_model
                .apply_impulses(self.model, state, &ws.contacts, stage, h, self.log);
        self.times.model += t0.elapsed().as_secs_f64();
        let r = r.map_err(|e| self.fail(e))?;
        self.impulses.add(&r);
        Ok(())
    }

    /// The model's continuous forces at `state`, held over at most `h` (s), into `wrenches`;
    /// recorded in the log as held for 1 s, from the log index returned (the caller scales them
    /// by the substep once its length is known). Under `implicit-euler` the model's force
    /// elements are taken at the end of a substep of `h` (`dynamics::implicit`, as the force
    /// step takes them); a substep the time-of-impact regression cuts shorter holds those
    /// forces for less time than they were solved for (less impulse, no more energy).
    fn forces(
        &mut self,
        state: &State,
        ws: &Workspace,
        h: f64,
    ) -> Result<(ModelStats, usize), StepError> {
        let (model, cm, log) = (self.model, &mut *self.contact_model, &mut *self.log);
        let mark = log.len();
        log.hold_forces_for(1.0);
        let implicit = model.settings.integrator == Integrator::ImplicitEuler;
        let elements = &mut self.elements;
        elements.clear();
        let evaluated = evaluate_forces(model, state, &mut self.wrenches, &mut self.times, |out| {
            if implicit {
                cm.linearised_forces(model, state, &ws.contacts, h, out, elements, log)
            } else {
                cm.contact_forces(model, state, &ws.contacts, h, out, log)
            }
        });
        let mut stats = evaluated.map_err(|e| self.fail(e))?;
        let log = &mut *self.log;
        if implicit {
            let wrenches = (&mut self.wrenches[..], &self.elements[..], &mut self.implicit_memory);
            let solve = element_forces(model, state, h, wrenches, log, &mut self.times);
            stats.solve = solve.or(stats.solve);
        }
        Ok((stats, mark))
    }

    /// The step reports its first force evaluation's statistics, unless a later substep's
    /// solve failed and the first did not: a failure is never hidden by a later success.
    fn keep_stats(&mut self, stats: ModelStats) {
        let failed = |s: &ModelStats| s.solve.as_ref().is_some_and(|r| r.failed);
        match &mut self.first_stats {
            None => self.first_stats = Some(stats),
            Some(first) if failed(&stats) && !failed(first) => first.solve = stats.solve,
            Some(_) => {}
        }
    }

    /// `LoopVariant::Collide`: substeps that end at the times of impact (module documentation).
    fn collide(&mut self, state: &mut State, ws: &mut Workspace) -> Result<(), StepError> {
        let (model, h, time) = (self.model, self.h, self.time);
        let mut left = h;
        let mut regress = self.settings.time_of_impact;
        loop {
            let act = default_activation(model, state, self.settings.contact_distance, left);
            self.detect_within(state, ws, act);
            self.impulse_stage(state, ws, Stage::Collisions, left)?;
            let (stats, mark) = self.forces(state, ws, left)?;
            self.keep_stats(stats);
            self.impulses.substeps += 1;
            let last = self.impulses.substeps >= self.settings.max_substeps as u64;
            // The forces hold at most this long; the last substep takes the rest of the step
            // whatever they say (so a horizon of zero cannot stall the step).
            let span = if last {
                left
            } else {
                self.contact_model.force_horizon().clamp(0.0, left)
            };
            if regress && last {
                // The rest of the step goes without regression.
                regress = false;
                self.impulses.toi_capped += 1;
            }
            let length = if regress {
                let reg = time_of_impact(
                    model,
                    state,
                    &self.wrenches,
                    span,
                    &self.settings,
                    &self.radii,
                    ws,
                    &mut self.times,
                    &mut self.trial,
                );
                self.impulses.toi_iterations += reg.iterations;
                self.impulses.toi_capped += reg.capped as u64;
                reg.length
            } else {
                span
            };
            self.log.scale_from(mark, length.min(span));
            if length < span {
                // The regression's last trial state is the substep's end; its contacts are in
                // the workspace.
                std::mem::swap(state, &mut self.trial);
                left -= length;
            } else {
                let t0 = Instant::now();
                semi_implicit_euler(model, state, &self.wrenches, span);
                self.times.integrate += t0.elapsed().as_secs_f64();
                ws.fresh = false;
                left = if span < left { left - span } else { 0.0 };
            }
            state.time = time + (h - left);
            check_state(model, state)?;
            if left <= 0.0 {
                return Ok(());
            }
        }
    }

    /// `LoopVariant::Guendelman`: collisions → velocities → contacts → positions, one pass.
    fn guendelman(&mut self, state: &mut State, ws: &mut Workspace) -> Result<(), StepError> {
        let (model, h) = (self.model, self.h);
        let act = default_activation(model, state, self.settings.contact_distance, h);
        self.detect_within(state, ws, act);
        self.impulses.substeps = 1;
        self.impulse_stage(state, ws, Stage::Collisions, h)?;
        let (stats, mark) = self.forces(state, ws, h)?;
        self.log.scale_from(mark, h);
        self.first_stats = Some(stats);
        let t0 = Instant::now();
        integrate_velocities(model, state, &self.wrenches, h);
        self.times.integrate += t0.elapsed().as_secs_f64();
        self.impulse_stage(state, ws, Stage::Contacts, h)?;
        let t0 = Instant::now();
        integrate_positions(model, state, h);
        self.times.integrate += t0.elapsed().as_secs_f64();
        ws.fresh = false;
        Ok(())
    }
}

/// Advance `state` by `h` with the impulse loop of `contact_model` (module documentation),
/// without accepting the step.
pub(super) fn advance(
    model: &Model,
    state: &mut State,
    ws: &mut Workspace,
    contact_model: &mut dyn ImpulseBasedModel,
    h: f64,
    clock: Clock,
    log: &mut ContactImpulses,
) -> Result<Attempt, StepError> {
    let settings = contact_model.loop_settings();
    let (step_no, time) = (state.step, state.time);
    let mut times = StageTimes::default();
    let t0 = Instant::now();
    let radii: Vec<f64> = (0..model.bodies.len())
        .map(|i| body_radius(model, i))
        .collect();
    contact_model.begin_step(model, state);
    times.model += t0.elapsed().as_secs_f64();
    let mut step = ImpulseStep {
        model,
        contact_model,
        settings,
        h,
        step_no,
        time,
        radii,
        times,
        impulses: ImpulseReport::default(),
        first_stats: None,
        wrenches: std::mem::take(&mut ws.wrenches),
        elements: std::mem::take(&mut ws.elements),
        implicit_memory: std::mem::take(&mut ws.implicit_memory),
        trial: std::mem::take(&mut ws.stage),
        log,
    };
    // The step being taken, for failures inside it (restored by the clock below).
    state.step = step_no + 1;
    let result = match settings.variant {
        LoopVariant::Collide => step.collide(state, ws),
        LoopVariant::Guendelman => step.guendelman(state, ws),
    };
    ws.wrenches = std::mem::take(&mut step.wrenches);
    ws.elements = std::mem::take(&mut step.elements);
    ws.implicit_memory = std::mem::take(&mut step.implicit_memory);
    ws.stage = std::mem::take(&mut step.trial);
    result?;
    state.time = match clock {
        Clock::Fixed => state.step as f64 * h,
        Clock::Accumulate => time + h,
    };
    check_state(model, state)?;
    let mut times = step.times;
    detect(
        model,
        state,
        reach(step.contact_model, model, state),
        ws,
        &mut times,
    );
    ws.fresh = true;
    check_depths(model, state, &ws.contacts)?;
    Ok(Attempt {
        report: StepReport {
            contacts: ws.contacts.len(),
            max_penetration: max_penetration(&ws.contacts),
            times,
            model_stats: step.first_stats.unwrap_or_default(),
            time_step: h,
            impulses: step.impulses,
            projection: Default::default(),
        },
        work: None,
    })
}
