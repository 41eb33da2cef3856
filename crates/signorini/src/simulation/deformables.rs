//! The deformables of a scene stepped together with its rigid bodies (docs/deformable.md,
//! "Coupling"). One step of `Simulation::step`, from the state at t_n:
//!
//! ```text
//!   F_n, W_n = exchange at t_n            forces on the particles, wrenches on the rigid bodies
//!                                         (kept from the end of the last step; computed at the
//!                                         first step)
//!   rigid step with W_n added to State::external for this step only (its v ← v + h F/m)
//!   each world: Integrator::begin with F_n held (Taylor, symplectic Euler: the whole step;
//!               Verlet: x ← x + h v + ½ h² a_n, v ← v + h a_n)
//!   F_n+1, W_n+1 = exchange at t_n+1      the rigid bodies and the particles where they now are
//!   each world: Integrator::finish with F_n+1 (Verlet: v ← v_n + ½ h (a_n + a_n+1))
//! ```
//!
//! So a Verlet world takes the coupling forces as Verlet takes its own (the trapezoid of both
//! ends), and a rigid body as its integrator takes applied forces (F_n over the step). The
//! impulses they exchange match step by step between two Verlet worlds, or with a world on
//! the other schemes; between a Verlet world and a rigid body they match once the contact has
//! ended (the particles have taken ½ h F_N less than the body's h Σ F_n while it lasts: tested).
//! At rest both sides are at rest exactly (no velocity offset from mixing the schemes). Each
//! world keeps its own integrator (`[[deformable]] integrator`), at the rigid step's h, or with
//! `adaptive_tolerance` in Deguet's adaptive steps (§4.2) that cover it, the forces of the
//! exchange at its start held (an explicit coupling, first order in h; the rigid bodies' own
//! steps are fixed: deformable scenes refuse `[simulation.adaptive]`).
use crate::deformable::impulse::{self, Bodies, Other, Touch, TouchLaw};
use crate::deformable::{
    AdaptiveDeformable, ContactLaw, Coupler, DeformableError, DeformableIntegrator, Integrator,
    World,
};
use crate::dynamics::{Model, State, Wrench};
use crate::pipeline::adaptive::AdaptiveStats;
use crate::scene::{deformable_worlds, Scene, SceneError};
use std::collections::BTreeSet;

/// The deformable worlds of a running scene, their integrators and the coupler.
pub struct Deformables {
    /// One world per `[[deformable]]`, in file order.
    pub worlds: Vec<World>,
    coupler: Coupler,
    schemes: Vec<DeformableIntegrator>,
    steppers: Vec<WorldStepper>,
    /// Deepest penetration of each world's particles so far (m).
    pub max_penetration: Vec<f64>,
    /// Mechanical energy of each world at the start (J).
    pub initial_energy: Vec<f64>,
    /// The rigid bodies' wrenches of the exchange at the current state (`None` before the
    /// first step).
    wrenches: Option<Vec<(usize, Wrench)>>,
    /// The impulse law's sweeps so far (worlds with `contact_law = "impulse"`).
    pub impulses: ImpulseTotals,
    /// The impulse law's touches at the end of the last step, by particle and what it touched
    /// (`touch_key`): a touch found again is resting and does not bounce.
    touching: BTreeSet<TouchKey>,
}

/// The impulse law's resolutions over a run (`deformable::impulse`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ImpulseTotals {
    /// Steps with at least one touch.
    pub steps: u64,
    /// Of them, steps whose sweeps did not converge (a velocity change still above 1e-9 m/s).
    pub unconverged: u64,
    /// Most touches and sweeps in one step, and the largest final velocity change (m/s).
    pub most_touches: usize,
    pub most_sweeps: usize,
    pub largest_residual: f64,
    /// Touches resolved by an integrated collision law (`impact_law` poisson or stronge).
    pub collisions: u64,
}

impl Deformables {
    /// The scene's deformables, or `None` when it has none.
    pub fn of_scene(scene: &Scene) -> Result<Option<Deformables>, SceneError> {
        let desc = &scene.desc;
        if desc.deformables.is_empty() {
            return Ok(None);
        }
        let built = deformable_worlds(desc, &scene.model)?;
        let n = built.worlds.len();
        Ok(Some(Deformables {
            max_penetration: built.worlds.iter().map(World::max_penetration).collect(),
            initial_energy: built.worlds.iter().map(World::mechanical_energy).collect(),
            worlds: built.worlds,
            coupler: built.coupler,
            steppers: (0..n)
                .map(|k| {
                    let d = &desc.deformables[k];
                    match built.adaptive[k] {
                        None => Ok(WorldStepper::Fixed(Integrator::default())),
                        Some(a) => AdaptiveDeformable::new(a, d.integrator, a.max_time_step)
                            .map(WorldStepper::Adaptive)
                            .map_err(|e| {
                                let hint = "see docs/scene-format.md, [[deformable]]";
                                SceneError::new(&desc.file, d.line, &d.key, e.to_string(), hint)
                            }),
                    }
                })
                .collect::<Result<_, _>>()?,
            schemes: desc.deformables.iter().map(|d| d.integrator).collect(),
            wrenches: None,
            impulses: ImpulseTotals::default(),
            touching: BTreeSet::new(),
        }))
    }

    /// The rigid bodies' wrenches for a step from `state` (N, N m; body, wrench in body order):
    /// those of the exchange at the end of the last step, or of one made now at the first.
    pub fn wrenches(&mut self, model: &Model, state: &State) -> Vec<(usize, Wrench)> {
        if self.wrenches.is_none() {
            self.wrenches = Some(self.coupler.exchange(&mut self.worlds, model, state));
        }
        self.wrenches.clone().unwrap_or_default()
    }

    /// Step every world by `h` (s) to the rigid bodies' `state` after their step (see the
    /// module's order), keeping the exchange at the end for the next step.
    /// Worlds under the impulse law have their touches resolved last (`deformable::impulse`),
    /// which may change the rigid bodies' velocities and positions in `state`.
    pub fn step(
        &mut self,
        h: f64,
        model: &Model,
        state: &mut State,
    ) -> Result<(), DeformableError> {
        for (k, w) in self.worlds.iter_mut().enumerate() {
            self.steppers[k].begin(w, self.schemes[k], h)?;
        }
        self.wrenches = Some(self.coupler.exchange(&mut self.worlds, model, state));
        for (k, w) in self.worlds.iter_mut().enumerate() {
            self.steppers[k].finish(w, self.schemes[k], h)?;
            w.time = state.time;
        }
        self.resolve_impulses(h, model, state);
        for (k, w) in self.worlds.iter().enumerate() {
            let deepest = w.max_penetration().max(w.coupled_penetration);
            self.max_penetration[k] = self.max_penetration[k].max(deepest);
        }
        Ok(())
    }

    /// The impulse law's touches at the end of a step of `h` (s), resolved; nothing when no
    /// world uses it.
    fn resolve_impulses(&mut self, h: f64, model: &Model, state: &mut State) {
        if self
            .worlds
            .iter()
            .all(|w| w.settings.law == ContactLaw::Penalty)
        {
            return;
        }
        let touches = self.coupler.touches(&self.worlds, model, state);
        let resting: Vec<bool> = touches
            .iter()
            .map(|t| self.touching.contains(&touch_key(t)))
            .collect();
        self.touching = touches.iter().map(touch_key).collect();
        if touches.is_empty() {
            return;
        }
        let laws: Vec<TouchLaw> = self
            .worlds
            .iter()
            .map(|w| TouchLaw::of(&w.settings))
            .collect();
        let g = model.settings.gravity.length();
        let rest_speed = impulse::rest_speeds(&self.worlds, &touches, g, h);
        let mut bodies = Bodies {
            worlds: &mut self.worlds,
            model,
            state,
        };
        let r = impulse::resolve(&touches, &mut bodies, &laws, &rest_speed, &resting);
        let t = &mut self.impulses;
        t.steps += 1;
        t.unconverged += u64::from(r.residual > 1e-9);
        t.most_touches = t.most_touches.max(r.touches);
        t.most_sweeps = t.most_sweeps.max(r.sweeps);
        t.largest_residual = t.largest_residual.max(r.residual);
        t.collisions += r.collisions as u64;
    }

    /// World `k`'s adaptive steps so far (`None` for fixed steps).
    pub fn adaptive_stats(&self, k: usize) -> Option<&AdaptiveStats> {
        match &self.steppers[k] {
            WorldStepper::Fixed(_) => None,
            WorldStepper::Adaptive(a) => Some(&a.stats),
        }
    }

    /// The coupler: rigid pieces touched and each world's facets.
    pub fn coupler(&self) -> &Coupler {
        &self.coupler
    }
}

/// `user` wrenches with `coupling` added, one per body, in body order.
pub(super) fn merged(
    user: &[(usize, Wrench)],
    coupling: &[(usize, Wrench)],
) -> Vec<(usize, Wrench)> {
    let mut out: Vec<(usize, Wrench)> = user.to_vec();
    for (b, w) in coupling {
        match out.iter_mut().find(|(o, _)| o == b) {
            Some((_, sum)) => {
                sum.force += w.force;
                sum.torque += w.torque;
            }
            None => out.push((*b, *w)),
        }
    }
    out.sort_by_key(|(b, _)| *b);
    out
}

/// How a world advances over one scene step.
enum WorldStepper {
    /// One step of the scene's h, split around the exchange at its end (`Integrator::begin`,
    /// `finish`).
    Fixed(Integrator),
    /// Deguet's adaptive steps (§4.2) until the scene step is covered, the coupling forces of
    /// the exchange at its start held throughout (they are the world's `coupling`).
    Adaptive(AdaptiveDeformable),
}

impl WorldStepper {
    fn begin(
        &mut self,
        w: &mut World,
        scheme: DeformableIntegrator,
        h: f64,
    ) -> Result<(), DeformableError> {
        match self {
            WorldStepper::Fixed(it) => it.begin(w, scheme, h, false).map(|_| ()),
            WorldStepper::Adaptive(a) => {
                let end = w.time + h;
                // Stop within a billionth of the step of the end: the last attempt is clipped
                // to the remainder, so this only absorbs round-off in the sum of the steps.
                while end - w.time > 1e-9 * h {
                    a.step(w, end - w.time)?;
                }
                Ok(())
            }
        }
    }

    fn finish(
        &mut self,
        w: &mut World,
        scheme: DeformableIntegrator,
        h: f64,
    ) -> Result<(), DeformableError> {
        match self {
            WorldStepper::Fixed(it) => it.finish(w, scheme, h),
            WorldStepper::Adaptive(_) => Ok(()),
        }
    }
}

/// A touch's identity across steps: (world, particle, what it touches) — a fixed surface by its
/// normal's bits (a plane's and a fixed box face's normal are constant), a rigid body by its
/// index, another deformable by its world.
type TouchKey = (usize, usize, u8, usize, [u64; 3]);

fn touch_key(t: &Touch) -> TouchKey {
    match t.other {
        Other::Fixed => {
            let n = t.normal;
            (
                t.world,
                t.particle,
                0,
                0,
                [n.x.to_bits(), n.y.to_bits(), n.z.to_bits()],
            )
        }
        Other::Rigid { body } => (t.world, t.particle, 1, body, [0; 3]),
        Other::Facet { world, .. } => (t.world, t.particle, 2, world, [0; 3]),
    }
}
