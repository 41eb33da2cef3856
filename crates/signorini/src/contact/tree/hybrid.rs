//! Drumwright's hybrid on a tree (Drumwright 2008, §III and fig. 2; the free bodies'
//! `contact::impulse::hybrid`): impulses for impacts (`impulse.rs`, Mirtich's articulated
//! collision matrix), the multi-point penalty method for resting contact (`penalty.rs`), chosen
//! per touching pair of shapes (a link shape and the ground, or two link shapes) by a
//! contact-phase state machine.
//!
//! With s_i the normal velocity of touching point i of a pair (u_n = n · J v, > 0 separating;
//! a point touches when its gap is within the impulse model's `activation_distance`) and ε the
//! impact threshold (`impact_speed`, Drumwright's "very near zero", default 1e-6 m/s), the
//! phases and transitions, decided at the start of each step:
//!
//! ```text
//!   no contact → impact     "new impacting contact"    ∃i s_i < −ε
//!   no contact → resting    "new resting contact"      ∀i s_i ≥ −ε
//!   impact     → impact     "reimpact (bounce)"        ∃i s_i < −ε
//!   impact     → resting    "recurring contact"        ∀i s_i ≥ −ε, or after the step's
//!                                                      impulses the slowest |s_i| ≤ ε (the
//!                                                      impact ended in contact; ε here at
//!                                                      least the sweeps' tolerance)
//!   resting    → resting    "recurring contact"        whatever the velocities
//!   any        → no contact "no longer in contact"     no point within the activation distance
//! ```
//!
//! **Step** (one pass; A = H + h D_u + h² K_u the step's matrix of both models):
//!
//! ```text
//!   FK; touches; phases (above)
//!   collisions:  the impulse model's collision stage (the law, restitution e, Guendelman's
//!                rule ψ + h u_n < 0) on the rows of the impacting pairs only → v_c
//!   phases:      an impacting pair some of whose points now have s_i ≤ ε rests
//!   penalty:     the multi-point penalty step from (q, v_c) on the resting pairs' penetrating
//!                points only (its implicit forces, joint limits as its LCP rows), q⁺ = q ⊕ h v⁺
//! ```
//!
//! **Departures** (ours): the "body impacted" transition (a resting pair whose body an impulse
//! of this stage reached, now approaching) is not taken — a resting pair stays resting while it
//! touches, which Drumwright's rule does unless a third body strikes; impulses act on whole
//! pairs of shapes, where the free bodies' hybrid applies one impulse per pair "at the centroid
//! of the contact surface" (here each touching point is a row of the impulse model's sweeps,
//! whose simultaneous answer has the same resultant on a flat face). Units SI.
use super::impulse::{TreeImpulse, TreeImpulseParams};
use super::lcp::TreeContactError;
use super::params::{number, spec, unknown, TreeParamSpec};
use super::penalty::{PairKey, PenaltyLaw, TreePenalty, TreePenaltyParams};
use super::{Ground, LinkShape, TreeStepStats};
use crate::contact::ParamInput;
use crate::multibody::{Controls, Tree, Workspace};
use std::collections::BTreeMap;

/// Drumwright's impact threshold ε (m/s): "very near zero".
pub const DEFAULT_IMPACT_SPEED: f64 = 1e-6;

/// Parameters of the hybrid on a tree: the impact threshold, and its two models' own.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TreeHybridParams {
    /// ε (m/s, ≥ 0; default [`DEFAULT_IMPACT_SPEED`]): a pair approaching faster starts an
    /// impact.
    pub impact_speed: f64,
    /// The resting contact's penalty model (its `law` is multi-point).
    pub penalty: TreePenaltyParams,
    /// The impacts' impulse model (its law, restitution, activation distance, sweeps).
    pub impulse: TreeImpulseParams,
}

impl Default for TreeHybridParams {
    fn default() -> Self {
        TreeHybridParams {
            impact_speed: DEFAULT_IMPACT_SPEED,
            penalty: TreePenaltyParams::default(),
            impulse: TreeImpulseParams::default(),
        }
    }
}

/// `hybrid` on a tree (`HybridParams::set`): the threshold, the impulse model's collision
/// parameters, the penalty model's gains; `self_contact` and the ground go to both.
pub const HYBRID_PARAMS: &[TreeParamSpec] = &[
    spec("impact_speed", "m/s", "1e-6", "a touching pair approaching faster than this starts an impact (Drumwright's threshold), >= 0"),
    spec("law", "-", "stronge", "the impacts' collision law: newton, poisson, stronge or algebraic-newton"),
    spec("restitution", "-", "0", "the impacts' coefficient of restitution, in [0, 1]"),
    spec("activation_distance", "m", "0.01", "points within this gap touch (the phases' and the impulses' rows), >= 0"),
    spec("max_sweeps", "-", "1000", "the collision stage's sweeps at most, a whole number >= 1"),
    spec("stiffness", "N/m", "m (omega_h / h)^2", "the resting contact's normal stiffness per point, > 0"),
    spec("damping", "N s/m", "2 damping_ratio m omega_h / h", "the resting contact's normal damping per point, >= 0"),
    spec("omega_h", "-", "0.1", "omega h of the derived stiffness, in (0, 1]"),
    spec("damping_ratio", "-", "0.5", "damping ratio of the derived damping, >= 0"),
    spec("slip_speed", "m/s", "0.01", "regularization of the resting contact's Coulomb friction, > 0"),
    spec("self_contact", "-", "off", "on: the links of one body touch each other; off: only different bodies and the ground"),
];

impl TreeHybridParams {
    /// Set the parameter `name` (one of [`HYBRID_PARAMS`]) to `value`.
    pub fn set(&mut self, name: &str, value: &ParamInput) -> Result<(), String> {
        match name {
            "impact_speed" => self.impact_speed = number(name, value)?,
            "law" | "restitution" | "activation_distance" | "max_sweeps" => {
                self.impulse.set(name, value)?
            }
            "stiffness" | "damping" | "omega_h" | "damping_ratio" | "slip_speed" => {
                self.penalty.set(name, value)?
            }
            "self_contact" => {
                self.penalty.set(name, value)?;
                self.impulse.set(name, value)?;
            }
            _ => return Err(unknown(name, "hybrid", HYBRID_PARAMS)),
        }
        Ok(())
    }

    /// Set the ground of both models.
    pub fn set_ground(&mut self, ground: Ground) {
        self.penalty.ground = ground;
        self.impulse.ground = ground;
    }
}

/// A pair's contact phase (module doc).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    Impact,
    Resting,
}

/// The hybrid of one tree: its two models and the pairs' phases.
#[derive(Debug)]
pub struct TreeHybrid {
    pub params: TreeHybridParams,
    penalty: TreePenalty,
    impulse: TreeImpulse,
    /// The phase of every pair in contact at the last step.
    phases: BTreeMap<PairKey, Phase>,
    /// Per pair this step: the smallest s_i of its touching points (m/s).
    slowest: BTreeMap<PairKey, f64>,
    /// Scratch: the velocities the penalty step starts from.
    velocity: Vec<f64>,
}

impl TreeHybrid {
    /// Both models from `params` (the penalty's law made multi-point); errors name the
    /// parameter.
    pub fn new(params: TreeHybridParams, tree: &Tree, h: f64) -> Result<TreeHybrid, String> {
        if !(params.impact_speed >= 0.0 && params.impact_speed.is_finite()) {
            return Err(format!(
                "impact_speed = {}: must be finite and >= 0 (m/s)",
                params.impact_speed
            ));
        }
        let penalty = TreePenaltyParams {
            law: PenaltyLaw::MultiPoint,
            ..params.penalty
        };
        Ok(TreeHybrid {
            penalty: TreePenalty::new(penalty, tree, h)?,
            impulse: TreeImpulse::new(params.impulse)?,
            params,
            phases: BTreeMap::new(),
            slowest: BTreeMap::new(),
            velocity: Vec::new(),
        })
    }

    /// The resting contact's gains (N/m, N s/m per point).
    pub fn gains(&self) -> (f64, f64) {
        (self.penalty.stiffness, self.penalty.damping)
    }

    /// One step of length h (s) from (q, v) under `controls` (module doc). On an error (q, v)
    /// are unchanged.
    pub fn step(
        &mut self,
        tree: &Tree,
        ws: &mut Workspace,
        shapes: &[LinkShape],
        (q, v): (&mut [f64], &mut [f64]),
        controls: &Controls,
        h: f64,
    ) -> Result<TreeStepStats, TreeContactError> {
        self.impulse
            .prepare(tree, ws, shapes, (q, v), controls, h)?;
        self.measure();
        let eps = self.params.impact_speed;
        // Pairs no longer touching leave; a new or impacting pair that does not approach
        // faster than ε rests; a resting pair rests.
        let slowest = &self.slowest;
        self.phases.retain(|pair, _| slowest.contains_key(pair));
        for (&pair, &s) in slowest {
            let phase = self.phases.entry(pair).or_insert(Phase::Impact);
            if *phase == Phase::Impact && s >= -eps {
                *phase = Phase::Resting;
            }
        }
        let phases = &self.phases;
        let impacting = |p: PairKey| phases.get(&p) == Some(&Phase::Impact);
        let sweeps = self.impulse.collide_pairs(tree, h, impacting)?;
        // An impact that ended in contact rests from now on: its slowest point neither
        // approaches nor separates, to the threshold or the sweeps' own tolerance.
        self.measure();
        let band = eps.max(self.params.impulse.tolerance);
        for (pair, phase) in self.phases.iter_mut() {
            let ended = self.slowest.get(pair).is_some_and(|&s| s.abs() <= band);
            if *phase == Phase::Impact && ended {
                *phase = Phase::Resting;
            }
        }
        let impact = self.phases.iter().filter(|(_, p)| **p == Phase::Impact);
        self.penalty.exclude(impact.map(|(pair, _)| *pair));
        // The penalty step from the collisions' velocities, in scratch: (q, v) stay as they
        // were if it fails.
        self.velocity.clear();
        self.velocity.extend_from_slice(self.impulse.velocity_now());
        let mut stats =
            (self.penalty).step(tree, ws, shapes, (q, &mut self.velocity), controls, h)?;
        v.copy_from_slice(&self.velocity);
        stats.iterations += sweeps;
        Ok(stats)
    }

    /// The smallest normal velocity s_i (m/s) of each pair's touching points at the impulse
    /// model's current velocities.
    fn measure(&mut self) {
        self.slowest.clear();
        for (pair, _, s) in self.impulse.touch_rows() {
            let slowest = self.slowest.entry(pair).or_insert(f64::INFINITY);
            *slowest = slowest.min(s);
        }
    }
}
