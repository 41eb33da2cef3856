//! The `impulse` contact model: collisions resolved by sequential impulses of a collision law
//! (`law`, `sequential`), with four loops (parameter `loop`; `pipeline::impulse` runs them):
//!
//! - `sequential` (Mirtich; slides 13–15 without the LCP): at each (sub)step, every touching
//!   point (ψ ≤ δ) that approaches faster than the collision threshold ε_c gets the law's impulse
//!   with the pair's restitution e; then free flight up to the next time of impact. Resting
//!   contact is nothing but a train of collisions (slide 41).
//! - `microcollisions` (slides 41–42): as `sequential`, but a touching point that approaches
//!   slower than the resting threshold ε_r — resting contact, by the normal velocity (slide 2) —
//!   gets a microcollision whose restitution rises as the distance falls, e_mc = max(e,
//!   v_mc(ψ)/|u_n|) with
//!
//!   ```text
//!     v_mc(ψ) = √(2 |g| (δ_mc − ψ)⁺)                                                    (I1)
//!   ```
//!
//!   the speed that carries the contact back up to the microcollision distance δ_mc under
//!   gravity: e_mc > 1 for a slow approach, more the deeper the point. The slides give only
//!   "ε = f(Distance(A, B))", "applied only if normal velocity is small", and Drumwright (§II-C)
//!   notes Mirtich's restitution above one; (I1) is our choice of f, stated here.
//! - `global` (Baraff's global option, slide 15): "while C.isColliding(): applyImpulses; then
//!   solveLCP(restingC)". Points approaching faster than ε_r collide (law, e); slower approaches
//!   are resting and get a plastic impulse that stops them (e = 0: an LCP on accelerations cannot
//!   undo a velocity); then Baraff's resting-contact LCP (`contact::resting`, with friction) gives
//!   the forces of the resting set — the touching points within ε_c of u_n = 0 — held over the
//!   substep. The forces hold until an event (`ImpulseStages::force_horizon`): a sliding point's
//!   slip reaching zero (then it sticks) or a slowly separating touching point decelerating back
//!   to u_n = 0 (then it rests), whichever comes first; the substep ends there.
//!   Departures (issue 16, item 4; docs/impulse.md): the resting LCP carries Baumgarte's drift
//!   terms a_n + 2 v_n/τ + ψ̃/τ² ≥ 0 (`stabilization_time` τ; ψ̃ the overlap bounded by
//!   −v_max τ), is warm-started from the last answer's active set, is accepted on the row-wise
//!   relative residual, and with `on_unresolved = "continue"` degrades (best answer within
//!   [`DEGRADED_LCP_TOLERANCE`], else no resting force for the substep) instead of stopping.
//! - `guendelman` (Guendelman, Bridson & Fedkiw 2003, as in Drumwright §II-E): collisions
//!   (points whose gap predicted with the current velocities, ψ + h u_n, is negative get the law
//!   with e, or e = 0 when they approach slower than ε_r) → velocity integration → contacts (with the new velocities, points with
//!   ψ + h u_n < 0 get a plastic impulse, e = 0) → position integration. No time-of-impact
//!   regression: collisions are handled up to a step early, where predicted, so a body can stop
//!   short of contact by up to h |u_n| (and then falls the rest by |g| h² per step). (Letting the
//!   contact stage close the gap, u_n = −ψ/h, leaves an approach that the next collision stage
//!   bounces with e: a resting box rocked for ever.)
//!
//!   With `shock_propagation = "on"` (the default) the contact stage ends with Guendelman et
//!   al.'s shock propagation (§7; `sequential::shock_propagation`): the contact graph's levels
//!   from the ground up, each resolved with the levels below held still.
//!
//! Sequential impulses visit points lowest along gravity first with `priority = "gravity"`
//! (slide 14). Units: SI (m, m/s, s).
use super::law::{IntegrationOptions, Law};
use super::sequential::{self, ImpactPoint, Priority, Response, SequentialOptions};
use super::{default_activation, ImpulseReport, ImpulseStages, LoopSettings, LoopVariant, Stage};
use crate::collision::Contact;
use crate::contact::params::model_params;
use crate::contact::resting::{ContactClass, RestingContact, RestingError, RestingOptions};
use crate::contact::{
    ConfigError, ContactError, ContactImpulses, ImpulseBasedModel, ModelBase, ModelSpec,
    ModelStats, ParamDefault, ParamKind, ParamSpec, ParamValue, Range, SolveReport,
};
use crate::dynamics::{Model, State, Wrench};

pub const NAME: &str = "impulse";

/// The four loops, in the order of the `loop` parameter's words.
pub const LOOPS: &[&str] = &["global", "sequential", "microcollisions", "guendelman"];
/// Collision laws by name (`law::Law::name`).
pub const LAWS: &[&str] = &["stronge", "newton", "poisson", "algebraic-newton"];
/// Solvers of the global option's resting-contact LCP.
const SOLVERS: &[&str] = &["lemke", "fischer-burmeister", "pgs"];

/// Parameters shared with `hybrid` (same names, units and defaults).
pub(crate) const LAW_PARAM: ParamSpec = ParamSpec {
    name: "law",
    unit: "-",
    default: ParamDefault::Word("stronge"),
    description: "collision law of every impulse: \"stronge\" (energetic), \"newton\" (kinematic), \"poisson\" (kinetic), integrated with Coulomb friction by Mirtich's method, or \"algebraic-newton\" (frictionless Newton + clamped tangential impulse)",
    kind: ParamKind::Choice(LAWS),
};
pub(crate) const PRIORITY_PARAM: ParamSpec = ParamSpec {
    name: "priority",
    unit: "-",
    default: ParamDefault::Word("gravity"),
    description: "order of the sequential impulses: \"gravity\" (lowest points along gravity first, slide 14) or \"none\" (the narrow phase's order)",
    kind: ParamKind::Choice(&["gravity", "none"]),
};
pub(crate) const TOI_PARAM: ParamSpec = ParamSpec {
    name: "time_of_impact",
    unit: "-",
    default: ParamDefault::Word("regress"),
    description: "\"regress\": cut the step at each time of impact by conservative advancement (no tunnelling); \"off\": plain fixed steps",
    kind: ParamKind::Choice(&["regress", "off"]),
};
pub(crate) const CONTACT_DISTANCE_PARAM: ParamSpec = ParamSpec {
    name: "contact_distance",
    unit: "m",
    default: ParamDefault::Value(1e-4),
    description: "delta: points with gap at most this touch (impulses act on touching points only)",
    kind: ParamKind::Number(Range::at_least(0.0)),
};
pub(crate) const TOI_TOLERANCE_PARAM: ParamSpec = ParamSpec {
    name: "toi_tolerance",
    unit: "m",
    default: ParamDefault::Value(1e-5),
    description: "the time-of-impact regression stops once a new point is within this gap (at most contact_distance); impacts are found with 0 < gap <= this",
    kind: ParamKind::Number(Range::at_least(0.0)),
};
pub(crate) const MAX_SWEEPS_PARAM: ParamSpec = ParamSpec {
    name: "max_sweeps",
    unit: "-",
    default: ParamDefault::Value(100.0),
    description:
        "Gauss-Seidel sweeps of the sequential impulses per stage before giving up (integer)",
    kind: ParamKind::Number(Range::at_least(1.0).integer()),
};
pub(crate) const MAX_SUBSTEPS_PARAM: ParamSpec = ParamSpec {
    name: "max_substeps",
    unit: "-",
    default: ParamDefault::Value(50.0),
    description: "time-of-impact substeps per step; the rest of a step that reaches it is integrated without regression (counted) (integer)",
    kind: ParamKind::Number(Range::at_least(1.0).integer()),
};
pub(crate) const MAX_TOI_ITERATIONS_PARAM: ParamSpec = ParamSpec {
    name: "max_toi_iterations",
    unit: "-",
    default: ParamDefault::Value(100.0),
    description: "conservative-advancement iterations per substep; a substep that reaches it ends there, without penetration (counted) (integer)",
    kind: ParamKind::Number(Range::at_least(1.0).integer()),
};
pub(crate) const ON_UNRESOLVED_PARAM: ParamSpec = ParamSpec {
    name: "on_unresolved",
    unit: "-",
    default: ParamDefault::Word("continue"),
    description: "when points still approach after max_sweeps, (global) no LCP solver meets its tolerance, or the collision law's integration fails at a point: \"continue\" (the step goes on: the approach left is in metrics.csv's unresolved and unresolved_speed, the LCP's best answer is used if its residual is within 1e-6, else no resting force, solver_failed; the failed impulse is the algebraic Newton law's, counted; the run's summary warns) or \"stop\" the run naming them",
    kind: ParamKind::Choice(&["stop", "continue"]),
};

model_params! {
    /// Parameters of `impulse`.
    pub struct ImpulseParams {
        r#loop: &'static str = ParamSpec {
            name: "loop",
            unit: "-",
            default: ParamDefault::Word("global"),
            description: "\"global\" (impulses until nothing collides, then Baraff's resting-contact LCP), \"sequential\" (impulses only: resting contact is a train of collisions), \"microcollisions\" (slow approaches get a restitution raised with the distance), \"guendelman\" (collisions, velocity integration, contacts, position integration)",
            kind: ParamKind::Choice(LOOPS),
        },
        law: &'static str = LAW_PARAM,
        priority: &'static str = PRIORITY_PARAM,
        time_of_impact: &'static str = TOI_PARAM,
        collision_threshold: f64 = ParamSpec {
            name: "collision_threshold",
            unit: "m/s",
            default: ParamDefault::Value(1e-6),
            description: "epsilon_c: a touching point collides when it approaches faster than this (the sequential impulses stop when none does)",
            kind: ParamKind::Number(Range::at_least(0.0)),
        },
        resting_threshold: f64 = ParamSpec {
            name: "resting_threshold",
            unit: "m/s",
            default: ParamDefault::Value(0.1),
            description: "epsilon_r: a touching point approaching slower than this rests (slide 2): global and guendelman stop it without bounce, microcollisions give it a microcollision; faster ones collide with the pair's e. Must exceed |g| h, the approach one step of gravity gives a resting body",
            kind: ParamKind::Number(Range::at_least(0.0)),
        },
        micro_distance: f64 = ParamSpec {
            name: "micro_distance",
            unit: "m",
            default: ParamDefault::Value(2e-4),
            description: "delta_mc: microcollisions send a point back up to this gap, e_mc = max(e, sqrt(2|g|(delta_mc - gap))/|u_n|); above contact_distance, so the hop leaves the contact",
            kind: ParamKind::Number(Range::at_least(0.0)),
        },
        contact_distance: f64 = CONTACT_DISTANCE_PARAM,
        toi_tolerance: f64 = TOI_TOLERANCE_PARAM,
        max_sweeps: usize = MAX_SWEEPS_PARAM,
        max_substeps: usize = MAX_SUBSTEPS_PARAM,
        max_toi_iterations: usize = MAX_TOI_ITERATIONS_PARAM,
        on_unresolved: &'static str = ON_UNRESOLVED_PARAM,
        solvers: Vec<&'static str> = ParamSpec {
            name: "solvers",
            unit: "-",
            default: ParamDefault::Words(&["lemke", "fischer-burmeister"]),
            description: "global: LCP solvers of the resting-contact forces, tried in this order",
            kind: ParamKind::List(SOLVERS),
        },
        shock_propagation: &'static str = ParamSpec {
            name: "shock_propagation",
            unit: "-",
            default: ParamDefault::Word("on"),
            description: "guendelman: \"on\" ends the contact stage with Guendelman's shock propagation (levels of the contact graph resolved from the ground up, each with the levels below held still), \"off\" leaves it to the sweeps",
            kind: ParamKind::Choice(&["on", "off"]),
        },
        stabilization_time: f64 = ParamSpec {
            name: "stabilization_time",
            unit: "s",
            default: ParamDefault::Value(0.02),
            description: "global: tau of the resting contacts' drift stabilization (Baumgarte): the resting LCP asks a_n + 2 v_n/tau + min(gap, 0)/tau^2 >= 0 and holds a sticking slip's acceleration at -u_t/tau, so velocity and overlap errors decay over about tau instead of accumulating; 0 is Baraff's a_n >= 0 exactly. Keep it above a few time steps (semi-implicit Euler of the spring 1/tau^2)",
            kind: ParamKind::Number(Range::at_least(0.0)),
        },
    }
}

const PARAMS: &[ParamSpec] = ImpulseParams::SPECS;

pub const SPEC: ModelSpec = ModelSpec {
    name: NAME,
    summary: "impulse-based: sequential impulses of a collision law (Newton, Poisson, Stronge with Mirtich's integration) with time-of-impact regression; loops: global (Baraff's resting LCP), sequential, microcollisions, guendelman",
    params: PARAMS,
};

/// With `on_unresolved = "continue"`, the global option's resting LCP uses the best answer of its
/// solvers when none meets the 1e-10 tolerance but this one (a row-wise relative residual,
/// `solvers::relative_residual`): forces wrong by at most a millionth of the terms they balance,
/// which the next substep's impulses absorb. Beyond it the substep has no resting force.
pub const DEGRADED_LCP_TOLERANCE: f64 = 1e-6;

/// Ordinary Gauss–Seidel sweeps of Guendelman's contact stage before its shock propagation
/// (`shock_propagation = "on"`); ours, not the paper's number: enough for a load to reach a
/// few contacts, few enough that a tall stack's cost is the one propagating pass.
pub const SWEEPS_BEFORE_SHOCK: usize = 5;

/// The loop of the `impulse` model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ImpulseLoop {
    Global,
    Sequential,
    Microcollisions,
    Guendelman,
}

impl ImpulseLoop {
    pub fn by_name(name: &str) -> Option<Self> {
        match name {
            "global" => Some(ImpulseLoop::Global),
            "sequential" => Some(ImpulseLoop::Sequential),
            "microcollisions" => Some(ImpulseLoop::Microcollisions),
            "guendelman" => Some(ImpulseLoop::Guendelman),
            _ => None,
        }
    }
}

/// toi_tolerance ≤ contact_distance, or an error naming both.
pub(crate) fn check_distances(contact: f64, toi: f64) -> Result<(), ConfigError> {
    if toi > contact {
        return Err(ConfigError::Invalid {
            param: "toi_tolerance".into(),
            value: toi.to_string(),
            expected: format!(
                "at most contact_distance = {contact} m (an impact must be found touching)"
            ),
        });
    }
    Ok(())
}

/// The `impulse` contact model.
pub struct ImpulseModel {
    values: Vec<ParamValue>,
    pub kind: ImpulseLoop,
    pub sequential: SequentialOptions,
    pub collision_threshold: f64,
    pub resting_threshold: f64,
    pub micro_distance: f64,
    loop_settings: LoopSettings,
    stop_unresolved: bool,
    /// Guendelman's loop ends its contact stage with shock propagation.
    shock_propagation: bool,
    resting: Option<RestingContact>,
    /// How long the last resting forces hold (s): until the first sliding contact stops.
    horizon: f64,
}

impl ImpulseModel {
    /// `values` in the order of `SPEC.params`.
    pub fn new(values: &[ParamValue]) -> Result<Self, ConfigError> {
        let p = ImpulseParams::from_values(values);
        let kind = ImpulseLoop::by_name(p.r#loop).expect("checked against LOOPS");
        let law = Law::by_name(p.law).expect("checked against LAWS");
        let priority = Priority::by_name(p.priority).expect("checked against the choices");
        let (contact_distance, toi_tolerance) = (p.contact_distance, p.toi_tolerance);
        check_distances(contact_distance, toi_tolerance)?;
        let micro_distance = p.micro_distance;
        if kind == ImpulseLoop::Microcollisions && micro_distance <= contact_distance {
            return Err(ConfigError::Invalid {
                param: "micro_distance".into(),
                value: micro_distance.to_string(),
                expected: format!(
                    "above contact_distance = {contact_distance} m (a microcollision must carry the point out of contact)"
                ),
            });
        }
        let resting_threshold = p.resting_threshold;
        let resting = if kind == ImpulseLoop::Global {
            let names = &p.solvers;
            let options = RestingOptions {
                degraded_tolerance: if p.on_unresolved == "continue" {
                    DEGRADED_LCP_TOLERANCE
                } else {
                    0.0
                },
                // Solved per island: one island without a solution (Painlevé, Lemke's ray)
                // leaves the others their forces; its points are the next collision stage's.
                skip_unsolved_islands: p.on_unresolved == "continue",
                stabilization_time: p.stabilization_time,
                gap_tolerance: contact_distance,
                // After the impulses no point approaches faster than ε_c; the resting set is the
                // points within ε_c of v_n = 0. A point separating faster is left out, so gravity
                // can bring it back: in the LCP its a_n ≥ 0 would hold it separating for ever.
                velocity_tolerance: p.collision_threshold.max(1e-9),
                // A slip below this sticks: the collision threshold, so a stopped slip is one.
                slip_tolerance: p.collision_threshold.max(1e-9),
                ..RestingOptions::default()
            };
            Some(
                RestingContact::with_solver_names(options, names).map_err(|e| {
                    ConfigError::Invalid {
                        param: "solvers".into(),
                        value: format!("{names:?}"),
                        expected: format!("solvers of this build ({e})"),
                    }
                })?,
            )
        } else {
            None
        };
        Ok(ImpulseModel {
            values: values.to_vec(),
            kind,
            sequential: SequentialOptions {
                law,
                priority,
                max_sweeps: p.max_sweeps,
                integration: IntegrationOptions::default(),
                fallback: (p.on_unresolved == "continue").then_some(Law::AlgebraicNewton),
            },
            collision_threshold: p.collision_threshold,
            resting_threshold,
            micro_distance,
            loop_settings: LoopSettings {
                variant: if kind == ImpulseLoop::Guendelman {
                    LoopVariant::Guendelman
                } else {
                    LoopVariant::Collide
                },
                time_of_impact: p.time_of_impact == "regress" && kind != ImpulseLoop::Guendelman,
                contact_distance,
                toi_tolerance,
                max_toi_iterations: p.max_toi_iterations,
                max_substeps: p.max_substeps,
            },
            stop_unresolved: p.on_unresolved == "stop",
            shock_propagation: p.shock_propagation == "on",
            resting,
            horizon: f64::INFINITY,
        })
    }

    /// What a point with normal velocity `u_n` gets in `stage` (module documentation); `h` is the
    /// time left in the step and `g` the magnitude of gravity (m/s²).
    fn respond(&self, p: &ImpactPoint, u_n: f64, stage: Stage, h: f64, g: f64) -> Response {
        let (eps_c, eps_r) = (self.collision_threshold, self.resting_threshold);
        let touching = p.gap <= self.loop_settings.contact_distance;
        match (self.kind, stage) {
            (ImpulseLoop::Guendelman, Stage::Collisions) => {
                if p.gap + h * u_n >= 0.0 || u_n >= -eps_c {
                    Response::Skip
                } else if -u_n <= eps_r {
                    // Resting by its normal velocity (slide 2): no bounce.
                    Response::Plastic { allowance: 0.0 }
                } else {
                    Response::Collide { e: p.restitution }
                }
            }
            (ImpulseLoop::Guendelman, Stage::Contacts) => {
                if p.gap + h * u_n < 0.0 && u_n < -eps_c {
                    Response::Plastic { allowance: 0.0 }
                } else {
                    Response::Skip
                }
            }
            (_, Stage::Contacts) => Response::Skip,
            _ if !touching || u_n >= -eps_c => Response::Skip,
            (ImpulseLoop::Sequential, _) => Response::Collide { e: p.restitution },
            (ImpulseLoop::Microcollisions, _) if -u_n <= eps_r => {
                // (I1): back up to δ_mc, or the pair's own restitution if that is more.
                let v_mc = (2.0 * g * (self.micro_distance - p.gap).max(0.0)).sqrt();
                Response::Micro {
                    target: v_mc.max(-p.restitution * u_n),
                }
            }
            (ImpulseLoop::Microcollisions, _) => Response::Collide { e: p.restitution },
            (ImpulseLoop::Global, _) if -u_n <= eps_r => Response::Plastic { allowance: 0.0 },
            (ImpulseLoop::Global, _) => Response::Collide { e: p.restitution },
        }
    }
}

/// The unresolved points as an error naming the first few pairs.
pub(crate) fn unresolved_error(
    model: &Model,
    points: &[ImpactPoint],
    report: &ImpulseReport,
    max_sweeps: usize,
) -> ContactError {
    let mut pairs: Vec<String> = points
        .iter()
        .map(|p| {
            format!(
                "`{}`-`{}`",
                model.bodies[p.body_a].name, model.bodies[p.body_b].name
            )
        })
        .collect();
    pairs.dedup();
    pairs.truncate(4);
    ContactError::Unresolved {
        max_sweeps,
        points: report.unresolved,
        pairs,
    }
}

impl ImpulseStages for ImpulseModel {
    fn apply_impulses(
        &mut self,
        model: &Model,
        state: &mut State,
        contacts: &[Contact],
        stage: Stage,
        h: f64,
        log: &mut ContactImpulses,
    ) -> Result<ImpulseReport, ContactError> {
        let points: Vec<ImpactPoint> = contacts
            .iter()
            .filter(|c| !(model.bodies[c.body_a].fixed && model.bodies[c.body_b].fixed))
            .map(|c| ImpactPoint::from_contact(model, c))
            .collect();
        let g = model.settings.gravity.length();
        let respond = |p: &ImpactPoint, u_n: f64| self.respond(p, u_n, stage, h, g);
        let shock = self.shock_propagation
            && self.kind == ImpulseLoop::Guendelman
            && stage == Stage::Contacts;
        // With shock propagation the ordinary sweeps only spread the load a little first
        // (Guendelman et al. iterate a few times before the last, propagating pass).
        let options = SequentialOptions {
            max_sweeps: if shock {
                self.sequential.max_sweeps.min(SWEEPS_BEFORE_SHOCK)
            } else {
                self.sequential.max_sweeps
            },
            ..self.sequential
        };
        let mut report =
            sequential::resolve(model, state, &points, &options, &mut [], respond, log)?;
        if shock {
            let options = &self.sequential;
            let shock =
                sequential::shock_propagation(model, state, &points, options, respond, log)?;
            report.add(&shock);
            // What is left approaching is judged after the last pass.
            report.unresolved = 0;
            report.unresolved_speed = 0.0;
            for p in &points {
                let u_n = sequential::normal_velocity(state, p);
                if respond(p, u_n) != Response::Skip {
                    report.unresolved += 1;
                    report.unresolved_speed = report.unresolved_speed.max(-u_n);
                }
            }
        }
        if report.unresolved > 0 && self.stop_unresolved {
            return Err(unresolved_error(
                model,
                &points,
                &report,
                self.sequential.max_sweeps,
            ));
        }
        Ok(report)
    }

    fn force_horizon(&self) -> f64 {
        self.horizon
    }
}

impl ModelBase for ImpulseModel {
    fn spec(&self) -> ModelSpec {
        SPEC
    }

    fn parameters(&self) -> Vec<(&'static str, ParamValue)> {
        crate::contact::named_values(PARAMS, &self.values)
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

impl ImpulseBasedModel for ImpulseModel {
    fn loop_settings(&self) -> LoopSettings {
        self.loop_settings
    }

    /// The global option's resting-contact forces (Baraff's LCP over the resting set); nothing
    /// for the other loops.
    fn contact_forces(
        &mut self,
        model: &Model,
        state: &State,
        contacts: &[Contact],
        _h: f64,
        out: &mut [Wrench],
        log: &mut ContactImpulses,
    ) -> Result<ModelStats, ContactError> {
        self.horizon = f64::INFINITY;
        let Some(resting) = &mut self.resting else {
            return Ok(ModelStats::default());
        };
        // A slip that friction stops within the step sticks now (`RestingOptions::stick_time`)
        // instead of cutting the step at the instant it stops (the horizon below): in a pile
        // of sliding boxes those instants filled every step's substeps. Only with the drift
        // stabilization, which takes the slip left out over τ (without it the slip would stay).
        resting.options.stick_time = if resting.options.stabilization_time > 0.0 {
            model.settings.time_step
        } else {
            0.0
        };
        let applied = out.to_vec();
        let rf = match resting.solve_warm(model, state, contacts, &applied) {
            Ok(rf) => rf,
            Err(RestingError::NotSolved { rows, attempts, .. }) if !self.stop_unresolved => {
                // Degrade: no resting force this substep (the next collision stage stops the
                // approach it lets build up); the solve is reported failed with its residual.
                let best = attempts
                    .iter()
                    .map(|a| a.residual)
                    .fold(f64::INFINITY, f64::min);
                return Ok(ModelStats {
                    solve: Some(SolveReport {
                        rows,
                        solver: "none",
                        iterations: attempts.iter().map(|a| a.iterations).sum(),
                        residual: best,
                        attempts: attempts.len(),
                        seconds: 0.0,
                        failed: true,
                        islands: 1,
                    }),
                    ..ModelStats::default()
                });
            }
            Err(error) => return Err(ContactError::Resting { error }),
        };
        for (o, w) in out.iter_mut().zip(&rf.wrenches) {
            o.force += w.force;
            o.torque += w.torque;
        }
        for &i in &rf.resting {
            let c = &contacts[i];
            let force = rf.normal[i] * c.normal + rf.friction[i];
            log.force((c.body_a, c.body_b), c.midpoint(), c.normal, force);
        }
        // Baraff's sliding friction holds only until the slip stops: the substep ends there
        // (the loop's force horizon), and the next one finds the contact sticking. With the
        // accelerations held over the substep the slip velocity of a point changes at
        // u̇_t = (a_B + α_B × r_B − a_A − α_A × r_A)_t, so along the slip direction t̂ it reaches
        // zero after s* = −(u_t·t̂)/(u̇_t·t̂) when u̇_t·t̂ < 0. Without this the friction held over
        // a whole step reverses a slip smaller than μ|g|h every step and never lets it stick.
        self.horizon = f64::INFINITY;
        for (i, c) in contacts.iter().enumerate() {
            let ContactClass::Sliding { direction } = rf.class[i] else {
                continue;
            };
            let p = c.midpoint();
            let rate = |b: usize| {
                let (a, alpha) = rf.accelerations[b];
                a + alpha.cross(p - state.bodies[b].position)
            };
            let slip = sequential::relative_velocity(state, c.body_a, c.body_b, p).dot(direction);
            let decel = (rate(c.body_b) - rate(c.body_a)).dot(direction);
            if decel < 0.0 && slip > 0.0 {
                self.horizon = self.horizon.min(-slip / decel);
            }
        }
        // Likewise a touching point that separates slowly but decelerates (d̈ < 0 after the
        // forces) comes back to v_n = 0 after s* = −v_n / d̈: the substep ends there, and the
        // next one has it in the resting set. (Held outside the LCP for the whole step, it would
        // fall back unsupported; held inside, its a_n ≥ 0 would keep it separating.)
        for &i in &rf.separating {
            let c = &contacts[i];
            let v_n = sequential::relative_velocity(state, c.body_a, c.body_b, c.midpoint())
                .dot(c.normal);
            let a_n = rf.normal_acceleration[i];
            if v_n > 0.0 && a_n < 0.0 {
                self.horizon = self.horizon.min(-v_n / a_n);
            }
        }
        Ok(ModelStats {
            active_points: rf.normal.iter().filter(|&&f| f > 0.0).count(),
            solve: rf.solve,
            ..ModelStats::default()
        })
    }
}
