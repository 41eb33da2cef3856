//! Drumwright's hybrid (Drumwright 2008, §III and fig. 2): impulses for impacts, the multi-point
//! PID penalty method (`contact::multi_point`) for resting contact, chosen per pair of bodies by
//! a contact-phase state machine.
//!
//! Moore and Wilhelms (§II-A) separate collision from contact by a threshold on the relative
//! normal velocity; Drumwright keeps the threshold but applies the resting-contact method "during
//! continuous contact regardless of the relative normal velocity; once continuous contact has
//! begun, impacting contact can only be triggered if one of the bodies is impacted by a third
//! body", which lets the threshold ε go to "very near zero" (default 1e-6 m/s). With s_i the
//! relative normal velocity of touching point i of the pair (> 0 separating), the phases and
//! transitions of fig. 2 are, evaluated at each collision stage of the impulse loop:
//!
//! ```text
//!   no contact  → impact    "new impacting contact"   ∃i s_i < −ε
//!   no contact  → resting   "new resting contact"     ∀i s_i ≥ −ε
//!   impact      → impact    "reimpact (bounce)"       ∃i s_i < −ε
//!   impact      → resting   "recurring contact"       ∀i s_i ≥ −ε, or after the impulse some
//!                                                     s_i ≤ ε (the impact ended in contact)
//!   resting     → resting   "recurring contact"       whatever the velocities
//!   resting     → impact    "body impacted"           an impulse of this stage reached one of
//!                                                     the two bodies and now ∃i s_i < −ε
//!   any         → no contact "no longer in contact"   no point within the contact distance δ
//! ```
//!
//! Impacts are resolved by sequential impulses of the collision law (`sequential`), one impulse
//! per impacting pair "applied at the centroid of the contact surface" (§III): the mean of the
//! touching points, along their mean normal. Pairs in the resting phase get the multi-point
//! penalty forces (their narrow-phase contacts passed to `MultiPoint`); the others get none.
//! Phases decided during a step live in per-step scratch and become the model's memory in
//! `end_step`, as every model's memory does.
use super::law::{IntegrationOptions, Law};
use super::model::{
    check_distances, unresolved_error, CONTACT_DISTANCE_PARAM, LAW_PARAM, MAX_SUBSTEPS_PARAM,
    MAX_SWEEPS_PARAM, MAX_TOI_ITERATIONS_PARAM, ON_UNRESOLVED_PARAM, PRIORITY_PARAM, TOI_PARAM,
    TOI_TOLERANCE_PARAM,
};
use super::sequential::{
    self, normal_velocity, pair_restitution, ImpactPoint, Priority, Response, SequentialOptions,
};
use super::{default_activation, ImpulseReport, ImpulseStages, LoopSettings, LoopVariant, Stage};
use crate::collision::Contact;
use crate::contact::multi_point::{self, MultiPoint};
use crate::contact::params::model_params;
use crate::contact::ForceModel;
use crate::contact::{
    ConfigError, ContactError, ContactImpulses, ImpulseBasedModel, ModelBase, ModelSpec,
    ModelStats, ParamDefault, ParamKind, ParamSpec, ParamValue, Range,
};
use crate::dynamics::implicit::ForceElement;
use crate::dynamics::{Model, State, Wrench};
use glam::DVec3;
use std::collections::BTreeMap;

pub const NAME: &str = "hybrid";

/// Parameters of the hybrid's own, before the multi-point penalty's.
const OWN: usize = 10;

model_params! {
    /// Parameters of `hybrid`: its own, then the multi-point penalty's (`multi_point::SPEC`), in its order.
    pub struct HybridParams {
        law: &'static str = LAW_PARAM,
        velocity_threshold: f64 = ParamSpec {
            name: "velocity_threshold",
            unit: "m/s",
            default: ParamDefault::Value(1e-6),
            description: "epsilon of fig. 2: a pair not yet resting impacts when a touching point approaches faster than this; near zero, since resting pairs stay resting whatever their velocity",
            kind: ParamKind::Number(Range::at_least(0.0)),
        },
        priority: &'static str = PRIORITY_PARAM,
        time_of_impact: &'static str = TOI_PARAM,
        contact_distance: f64 = CONTACT_DISTANCE_PARAM,
        toi_tolerance: f64 = TOI_TOLERANCE_PARAM,
        max_sweeps: usize = MAX_SWEEPS_PARAM,
        max_substeps: usize = MAX_SUBSTEPS_PARAM,
        max_toi_iterations: usize = MAX_TOI_ITERATIONS_PARAM,
        on_unresolved: &'static str = ON_UNRESOLVED_PARAM,
        kp: Option<f64> = multi_point::SPEC.params[0],
        kv: Option<f64> = multi_point::SPEC.params[1],
        ki: Option<f64> = multi_point::SPEC.params[2],
        kp_per_kg: Option<f64> = multi_point::SPEC.params[3],
        kv_per_kg: Option<f64> = multi_point::SPEC.params[4],
        ki_per_kg: f64 = multi_point::SPEC.params[5],
        forgetting: f64 = multi_point::SPEC.params[6],
        bottom: &'static str = multi_point::SPEC.params[7],
        max_recovery_speed: f64 = multi_point::SPEC.params[8],
        friction_stiffness: Option<f64> = multi_point::SPEC.params[9],
        friction_damping: Option<f64> = multi_point::SPEC.params[10],
    }
}

const PARAMS: &[ParamSpec] = HybridParams::SPECS;

// Every multi-point parameter is listed above (a parameter added there must be added here).
const _: () = assert!(PARAMS.len() == OWN + multi_point::SPEC.params.len());

pub const SPEC: ModelSpec = ModelSpec {
    name: NAME,
    summary: "Drumwright's hybrid: impulses of a collision law for impacts, multi-point PID penalty for resting contact, chosen per pair of bodies by the contact-phase state machine of fig. 2 (velocity threshold near zero)",
    params: PARAMS,
};

/// The phase of a pair of bodies in contact (absent from the map: no contact).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// Handled by impulses.
    Impact,
    /// Handled by the penalty method.
    Resting,
}

/// A transition of fig. 2.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Transition {
    NewImpactingContact,
    NewRestingContact,
    Reimpact,
    RecurringContact,
    BodyImpacted,
    NoLongerInContact,
}

impl Transition {
    pub const ALL: [Transition; 6] = [
        Transition::NewImpactingContact,
        Transition::NewRestingContact,
        Transition::Reimpact,
        Transition::RecurringContact,
        Transition::BodyImpacted,
        Transition::NoLongerInContact,
    ];

    /// Fig. 2's label.
    pub fn label(self) -> &'static str {
        match self {
            Transition::NewImpactingContact => "new impacting contact",
            Transition::NewRestingContact => "new resting contact",
            Transition::Reimpact => "reimpact (bounce)",
            Transition::RecurringContact => "recurring contact",
            Transition::BodyImpacted => "body impacted",
            Transition::NoLongerInContact => "no longer in contact",
        }
    }
}

/// A pair of bodies (body A, body B) as the narrow phase orders them.
pub type BodyPair = (usize, usize);

/// Drumwright's hybrid.
pub struct Hybrid {
    values: Vec<ParamValue>,
    pub sequential: SequentialOptions,
    pub velocity_threshold: f64,
    loop_settings: LoopSettings,
    stop_unresolved: bool,
    penalty: MultiPoint,
    /// Phases after the last accepted step (memory).
    phases: BTreeMap<BodyPair, Phase>,
    /// Transitions of the last accepted step, in the order they happened.
    last_transitions: Vec<(BodyPair, Transition)>,
    /// Per-step scratch: the phases and transitions decided during the step in progress.
    pending: BTreeMap<BodyPair, Phase>,
    pending_transitions: Vec<(BodyPair, Transition)>,
}

impl Hybrid {
    /// `values` in the order of `SPEC.params`.
    pub fn new(values: &[ParamValue]) -> Result<Self, ConfigError> {
        let p = HybridParams::from_values(values);
        let (contact_distance, toi_tolerance) = (p.contact_distance, p.toi_tolerance);
        check_distances(contact_distance, toi_tolerance)?;
        Ok(Hybrid {
            values: values.to_vec(),
            sequential: SequentialOptions {
                law: Law::by_name(p.law).expect("checked against the laws"),
                priority: Priority::by_name(p.priority).expect("checked against the choices"),
                max_sweeps: p.max_sweeps,
                integration: IntegrationOptions::default(),
                fallback: (p.on_unresolved == "continue").then_some(Law::AlgebraicNewton),
            },
            velocity_threshold: p.velocity_threshold,
            loop_settings: LoopSettings {
                variant: LoopVariant::Collide,
                time_of_impact: p.time_of_impact == "regress",
                contact_distance,
                toi_tolerance,
                max_substeps: p.max_substeps,
                max_toi_iterations: p.max_toi_iterations,
            },
            stop_unresolved: p.on_unresolved == "stop",
            penalty: MultiPoint::new(&values[OWN..])?,
            phases: BTreeMap::new(),
            last_transitions: Vec::new(),
            pending: BTreeMap::new(),
            pending_transitions: Vec::new(),
        })
    }

    /// The phase of every pair in contact after the last accepted step.
    pub fn phases(&self) -> &BTreeMap<BodyPair, Phase> {
        &self.phases
    }

    /// The transitions of the last accepted step, in order.
    pub fn last_transitions(&self) -> &[(BodyPair, Transition)] {
        &self.last_transitions
    }

    /// Touching contacts (ψ ≤ δ, not both bodies fixed) grouped by pair of bodies.
    fn touching<'c>(
        &self,
        model: &Model,
        contacts: &'c [Contact],
    ) -> BTreeMap<BodyPair, Vec<&'c Contact>> {
        let mut groups: BTreeMap<BodyPair, Vec<&Contact>> = BTreeMap::new();
        for c in contacts {
            if c.gap <= self.loop_settings.contact_distance
                && !(model.bodies[c.body_a].fixed && model.bodies[c.body_b].fixed)
            {
                groups.entry((c.body_a, c.body_b)).or_default().push(c);
            }
        }
        groups
    }

    /// Pairs of `pending` with no touching point leave it ("no longer in contact").
    fn drop_separated(&mut self, groups: &BTreeMap<BodyPair, Vec<&Contact>>) {
        let gone: Vec<BodyPair> = self
            .pending
            .keys()
            .filter(|k| !groups.contains_key(k))
            .copied()
            .collect();
        for k in gone {
            self.pending.remove(&k);
            self.pending_transitions
                .push((k, Transition::NoLongerInContact));
        }
    }

    fn set(&mut self, pair: BodyPair, phase: Phase, t: Transition) {
        self.pending.insert(pair, phase);
        self.pending_transitions.push((pair, t));
    }

    /// Contacts of the pairs whose (pending) phase is resting.
    fn resting_contacts(&self, contacts: &[Contact]) -> Vec<Contact> {
        contacts
            .iter()
            .filter(|c| self.pending.get(&(c.body_a, c.body_b)) == Some(&Phase::Resting))
            .copied()
            .collect()
    }
}

/// The centroid impulse point of a pair's touching contacts: mean point, mean normal (unit),
/// smallest gap.
fn centroid(model: &Model, cs: &[&Contact]) -> ImpactPoint {
    let n = cs.len() as f64;
    let point = cs.iter().map(|c| c.midpoint()).sum::<DVec3>() / n;
    let normal = cs.iter().map(|c| c.normal).sum::<DVec3>();
    let normal = if normal.length() > 0.0 {
        normal.normalize()
    } else {
        cs[0].normal
    };
    let (a, b) = (cs[0].body_a, cs[0].body_b);
    ImpactPoint {
        body_a: a,
        body_b: b,
        point,
        normal,
        gap: cs.iter().map(|c| c.gap).fold(f64::INFINITY, f64::min),
        friction: model.friction(a, b),
        restitution: pair_restitution(model, a, b),
    }
}

/// Normal velocities s_i of a pair's touching points (m/s, > 0 separating).
fn speeds(model: &Model, state: &State, cs: &[&Contact]) -> Vec<f64> {
    cs.iter()
        .map(|c| normal_velocity(state, &ImpactPoint::from_contact(model, c)))
        .collect()
}

impl ImpulseStages for Hybrid {
    fn begin_step(&mut self, _model: &Model, _state: &State) {
        self.pending.clone_from(&self.phases);
        self.pending_transitions.clear();
    }

    fn apply_impulses(
        &mut self,
        model: &Model,
        state: &mut State,
        contacts: &[Contact],
        stage: Stage,
        _h: f64,
        log: &mut ContactImpulses,
    ) -> Result<ImpulseReport, ContactError> {
        if stage != Stage::Collisions {
            return Ok(ImpulseReport::default());
        }
        let eps = self.velocity_threshold;
        let groups = self.touching(model, contacts);
        self.drop_separated(&groups);
        // Transitions decided by the velocities before any impulse.
        let mut impacting: Vec<BodyPair> = Vec::new();
        for (&pair, cs) in &groups {
            let approaching = speeds(model, state, cs).iter().any(|&s| s < -eps);
            match (self.pending.get(&pair).copied(), approaching) {
                (None, true) => self.set(pair, Phase::Impact, Transition::NewImpactingContact),
                (None, false) => self.set(pair, Phase::Resting, Transition::NewRestingContact),
                (Some(Phase::Impact), true) => self.set(pair, Phase::Impact, Transition::Reimpact),
                (Some(Phase::Impact), false) => {
                    self.set(pair, Phase::Resting, Transition::RecurringContact)
                }
                (Some(Phase::Resting), _) => {}
            }
            if self.pending.get(&pair) == Some(&Phase::Impact) {
                impacting.push(pair);
            }
        }
        // Impulses at the impacting pairs' centroids; a resting pair that one of them reached
        // and that now approaches is impacted too, and the impulses are resolved again.
        let mut touched = vec![false; model.bodies.len()];
        let mut report = ImpulseReport::default();
        let mut points: Vec<ImpactPoint> = Vec::new();
        loop {
            points.clear();
            points.extend(impacting.iter().map(|p| centroid(model, &groups[p])));
            let r = sequential::resolve(
                model,
                state,
                &points,
                &self.sequential,
                &mut touched,
                |p, u_n| {
                    if u_n < -eps {
                        Response::Collide { e: p.restitution }
                    } else {
                        Response::Skip
                    }
                },
                log,
            )?;
            report.add(&r);
            if r.unresolved > 0 && self.stop_unresolved {
                return Err(unresolved_error(
                    model,
                    &points,
                    &r,
                    self.sequential.max_sweeps,
                ));
            }
            let hit: Vec<BodyPair> = groups
                .iter()
                .filter(|(pair, cs)| {
                    self.pending.get(pair) == Some(&Phase::Resting)
                        && (touched[pair.0] || touched[pair.1])
                        && speeds(model, state, cs).iter().any(|&s| s < -eps)
                })
                .map(|(&pair, _)| pair)
                .collect();
            if hit.is_empty() {
                break;
            }
            for pair in hit {
                self.set(pair, Phase::Impact, Transition::BodyImpacted);
                impacting.push(pair);
            }
        }
        // An impact that did not send every point apart ended in contact.
        for pair in impacting {
            if speeds(model, state, &groups[&pair])
                .iter()
                .any(|&s| s <= eps)
            {
                self.set(pair, Phase::Resting, Transition::RecurringContact);
            }
        }
        Ok(report)
    }
}

impl ModelBase for Hybrid {
    fn spec(&self) -> ModelSpec {
        SPEC
    }

    fn parameters(&self) -> Vec<(&'static str, ParamValue)> {
        crate::contact::named_values(PARAMS, &self.values)
    }

    /// Pairs that no longer touch leave the map; the step's phases become the memory; the
    /// penalty's memory (integral terms, friction springs) advances with the resting pairs.
    fn end_step(&mut self, model: &Model, state: &State, contacts: &[Contact]) {
        let groups = self.touching(model, contacts);
        self.drop_separated(&groups);
        self.phases.clone_from(&self.pending);
        self.last_transitions = std::mem::take(&mut self.pending_transitions);
        let resting = self.resting_contacts(contacts);
        self.penalty.end_step(model, state, &resting);
    }

    fn activation_distance(&self, model: &Model, state: &State) -> f64 {
        default_activation(
            model,
            state,
            self.loop_settings.contact_distance,
            model.settings.time_step,
        )
    }
}

impl ImpulseBasedModel for Hybrid {
    fn loop_settings(&self) -> LoopSettings {
        self.loop_settings
    }

    /// The multi-point penalty forces of the pairs in the resting phase.
    fn contact_forces(
        &mut self,
        model: &Model,
        state: &State,
        contacts: &[Contact],
        h: f64,
        out: &mut [Wrench],
        log: &mut ContactImpulses,
    ) -> Result<ModelStats, ContactError> {
        let resting = self.resting_contacts(contacts);
        ForceModel::contact_forces(&mut self.penalty, model, state, &resting, h, out, log)
    }

    fn linearises(&self) -> bool {
        true
    }

    /// The same penalty as force elements, for `implicit-euler` (the loop takes them at the end
    /// of each substep).
    fn linearised_forces(
        &mut self,
        model: &Model,
        state: &State,
        contacts: &[Contact],
        h: f64,
        out: &mut [Wrench],
        elements: &mut Vec<ForceElement>,
        log: &mut ContactImpulses,
    ) -> Result<ModelStats, ContactError> {
        let resting = self.resting_contacts(contacts);
        let penalty = &mut self.penalty;
        ForceModel::linearised_forces(penalty, model, state, &resting, h, out, elements, log)
    }
}
