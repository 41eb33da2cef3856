//! Impulse-based contact: single-point collision laws (`law`), sequential impulses over many
//! contact points (`sequential`), and the two catalogued models built on them: `impulse`
//! (`model`: Mirtich's sequential loop, microcollisions, Baraff's global option, Guendelman's
//! interleaving) and `hybrid` (Drumwright's impulses for impacts + multi-point penalty for resting
//! contact, `hybrid`).
//!
//! An impulse-based model changes velocities discontinuously, so the pipeline takes its steps
//! with its own loop (`pipeline::impulse`): the model is a `ContactModel::ImpulseBased`, whose
//! `ImpulseBasedModel` declares the loop it needs ([`LoopSettings`], `loop_settings`) and
//! provides the impulse stages ([`ImpulseStages`]); the pipeline keeps the time stepping, the
//! time-of-impact regression, the collision detection and the stage timing.
//! `ImpulseBasedModel::contact_forces` gives the model's continuous forces: Baraff's
//! resting-contact LCP for the global option, the penalty forces of resting pairs for the hybrid,
//! nothing otherwise.
pub mod hybrid;
pub mod law;
pub mod model;
pub mod sequential;

use super::{ContactError, ContactImpulses};
use crate::collision::Contact;
use crate::dynamics::{Model, State};

/// The step structure an impulse-based model runs with (`pipeline::impulse` documents each).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LoopVariant {
    /// Per (sub)step: impulses at the contacts that collide, then the forces of the model, then
    /// integration up to the next time of impact (Mirtich; slide 15 without the LCP). Used by
    /// the `sequential`, `microcollisions` and `global` loops of `impulse` and by `hybrid`.
    Collide,
    /// Guendelman, Bridson & Fedkiw (2003), as in Drumwright §II-E: collisions (velocity
    /// update) → velocity integration → contacts (velocity update) → position integration, one
    /// pass per step, no time-of-impact regression.
    Guendelman,
}

/// How the pipeline runs an impulse-based model.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LoopSettings {
    pub variant: LoopVariant,
    /// Regress to the time of impact by conservative advancement (`LoopVariant::Collide` only).
    pub time_of_impact: bool,
    /// δ (m): contact points with gap ψ ≤ δ touch (impulses act only on touching points, and
    /// points touching at the start of a substep do not stop its time-of-impact regression).
    pub contact_distance: f64,
    /// τ_toi (m), at most δ: the regression stops once a point that did not touch at the start of
    /// the substep comes within this gap. Conservative advancement never overshoots, so impacts
    /// are found with 0 < ψ ≤ τ_toi.
    pub toi_tolerance: f64,
    /// Regression iterations per substep; a substep that reaches it ends there (still without
    /// penetration) and is counted.
    pub max_toi_iterations: usize,
    /// Substeps (time-of-impact events, force horizons) per step; the last one takes the rest of
    /// the step without regression (counted in `ImpulseReport::toi_capped`).
    pub max_substeps: usize,
}

/// Which velocity update `ImpulseStages::apply_impulses` is asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    /// Collisions at the current state (every loop). `h` is the time left in the step.
    Collisions,
    /// Guendelman's contact stage, after the velocity integration: plastic impulses where the
    /// positions predicted with the new velocities would interpenetrate.
    Contacts,
}

/// What the impulse stages did over a step (summed over its substeps and stages).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ImpulseReport {
    /// Impulses of the collision law at colliding points, with the pair's restitution.
    pub collisions: u64,
    /// Microcollision impulses (restitution raised with the distance, slides 41–42).
    pub microcollisions: u64,
    /// Plastic impulses that stop a resting approach (global option) or a predicted
    /// interpenetration (Guendelman's contact stage).
    pub contact_impulses: u64,
    /// Gauss–Seidel sweeps over the contact points (the last one applies nothing).
    pub sweeps: u64,
    /// Points still approaching faster than the collision threshold when the sweep limit was
    /// reached.
    pub unresolved: u64,
    /// The fastest approach (m/s, ≥ 0) left at an unresolved point: how far the stage was from
    /// its answer; 0 when every stage converged. Over several stages or steps: the largest.
    pub unresolved_speed: f64,
    /// Impulses the fallback law gave because the chosen law's integration failed
    /// (`SequentialOptions::fallback`).
    pub law_fallbacks: u64,
    /// Substeps the step was cut into (1 without an impact inside the step); 0 for models
    /// without an impulse loop.
    pub substeps: u64,
    /// Conservative-advancement iterations (collision detections at trial states).
    pub toi_iterations: u64,
    /// Substeps whose regression hit `max_toi_iterations`, plus 1 when `max_substeps` cut the
    /// regression off for the rest of the step.
    pub toi_capped: u64,
}

impl ImpulseReport {
    /// Impulses of every kind.
    pub fn impulses(&self) -> u64 {
        self.collisions + self.microcollisions + self.contact_impulses
    }

    pub fn add(&mut self, o: &ImpulseReport) {
        self.collisions += o.collisions;
        self.microcollisions += o.microcollisions;
        self.contact_impulses += o.contact_impulses;
        self.sweeps += o.sweeps;
        self.unresolved += o.unresolved;
        self.unresolved_speed = self.unresolved_speed.max(o.unresolved_speed);
        self.law_fallbacks += o.law_fallbacks;
        self.substeps += o.substeps;
        self.toi_iterations += o.toi_iterations;
        self.toi_capped += o.toi_capped;
    }
}

/// The velocity updates of an impulse-based model, called by `pipeline::impulse`.
///
/// Memory kept across steps still changes only in `ContactModel::end_step`; what a model decides
/// during a step (the hybrid's contact phases) lives in per-step scratch reset by `begin_step`.
pub trait ImpulseStages {
    /// Called once at the start of every step, before any other stage.
    fn begin_step(&mut self, _model: &Model, _state: &State) {}

    /// Apply the impulses of `stage` to the velocities of `state` (positions unchanged), with
    /// `contacts` the contacts of `state` and `h` (s) the time left in the step (Guendelman's
    /// predicted gaps use it); each impulse applied is recorded in `log`.
    fn apply_impulses(
        &mut self,
        model: &Model,
        state: &mut State,
        contacts: &[Contact],
        stage: Stage,
        h: f64,
        log: &mut ContactImpulses,
    ) -> Result<ImpulseReport, ContactError>;

    /// How long (s) the forces of the last `ImpulseBasedModel::contact_forces` call stay valid when
    /// held: the substep ends there at the latest (Baraff's sliding friction until a slip stops).
    /// The default: for ever.
    fn force_horizon(&self) -> f64 {
        f64::INFINITY
    }
}

/// Bounding radius of body `i` about its centre of mass (m): how far a point of it can be from
/// the centre (0 for a body of half-spaces only, which is fixed anyway).
pub fn body_radius(model: &Model, i: usize) -> f64 {
    model.bodies[i]
        .pieces
        .iter()
        .filter(|p| !matches!(p.shape, crate::geometry::Shape::HalfSpace { .. }))
        .map(|p| p.pose.translation.length() + p.shape.bounding_radius())
        .fold(0.0, f64::max)
}

/// U (m/s): a bound on the speed of every point of body `i` over a semi-implicit Euler step of at
/// most `h` (s) from `state` with linear and angular accelerations `a` (m/s²) and `alpha`
/// (rad/s²) held over it, `radius` its bounding radius (m):
///
/// ```text
///   U = |v| + 2h|a| + (|ω| + 2h|α|) r
/// ```
///
/// Over a substep of length s ≤ h the centre moves to x + s(v + s a) and the orientation turns by
/// the rotation vector s(ω + s α); between two lengths s < s' the centre moves by at most
/// (s' − s)(|v| + (s + s')|a|) and the body turns by at most (s' − s)(|ω| + (s + s')|α|) (the
/// exponential map of SO(3) does not increase distances), which moves a point at distance r by
/// at most that angle times r. So no point moves farther than (s' − s) U. Fixed and held
/// bodies: 0.
pub fn speed_bound(
    model: &Model,
    state: &State,
    i: usize,
    (a, alpha): (glam::DVec3, glam::DVec3),
    h: f64,
    radius: f64,
) -> f64 {
    if !model.bodies[i].moves(state.time) {
        return 0.0;
    }
    let bs = &state.bodies[i];
    bs.velocity.length()
        + 2.0 * h * a.length()
        + (bs.angular_velocity.length() + 2.0 * h * alpha.length()) * radius
}

/// The activation distance an impulse loop needs at `state` before the forces are known:
/// δ + 2 h max_i U_i with gravity as the only acceleration, so every pair that can come within δ
/// during a step of `h` is detected (the loop re-detects with the forces' own bound).
pub fn default_activation(model: &Model, state: &State, contact_distance: f64, h: f64) -> f64 {
    let g = model.settings.gravity;
    let fastest = (0..model.bodies.len())
        .map(|i| {
            speed_bound(
                model,
                state,
                i,
                (g, glam::DVec3::ZERO),
                h,
                body_radius(model, i),
            )
        })
        .fold(0.0, f64::max);
    model
        .settings
        .activation_distance
        .max(contact_distance + 2.0 * h * fastest)
}
