//! PEG's first step: potential contacts to constraints (Williams, Lu & Trinkle 2016, §§3–4).
//!
//! Polytope pairs that the narrow phase finds close go to `collision::potential`, which
//! enumerates their potential contacts with the thresholds of [`Peg::pair_params`] (the swept
//! activation of the module documentation) and groups them into constraints "at least one member
//! keeps ψ ≥ 0" (U-, I- and X-constraints, eqs 17–25, per configuration, eqs 34–38). Each group
//! becomes one [`Constraint`] with one primary contact (eq. 24) and the other members as slack
//! members; every other contact (sphere, half-space) is a plain unilateral constraint, and a
//! polytope pair that overlaps deeper than `recovery_depth` also gets its narrow-phase contacts as
//! recovery constraints.
//!
//! ```text
//!   pairs     ← polytope pairs among the narrow-phase contacts
//!   potential ← detect(pairs, pair_params)                     (eqs 17–25, 34–38)
//!   for each group g:   primary ← argmax gap (vertex groups) | the edge–edge contact (edge groups)
//!   for each contact c: polytope pair → recovery constraint when ψ < −recovery_depth
//!                       otherwise     → unilateral constraint when ψ < distance
//! ```
use super::Peg;
use crate::collision::potential::{self, GroupKey, PotentialParams, PotentialSet};
use crate::collision::Contact;
use crate::contact::time_stepping;
use crate::dynamics::{Model, State};
use crate::geometry::{Feature, Shape};
use crate::util::hash::FastSet;

/// What a constraint is, across steps (for warm starts).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) enum What {
    Group(GroupKey),
    Plain(Feature, Feature),
}

pub(super) type Key = (usize, usize, usize, usize, What);

pub(super) fn key(c: &Contact, what: What) -> Key {
    (c.body_a, c.piece_a, c.body_b, c.piece_b, what)
}

/// One constraint of the subproblem.
#[derive(Clone)]
pub(super) struct Constraint {
    pub(super) primary: Contact,
    /// The other members, in chain order.
    pub(super) others: Vec<Contact>,
    pub(super) key: Key,
    pub(super) multi: bool,
    pub(super) cross: bool,
    /// A recovery contact (narrow phase, deep overlap, frictionless).
    pub(super) recovery: bool,
}

impl Constraint {
    /// The constraint's gap at the start of the step (m): its largest member gap, ≥ 0 exactly
    /// when a member keeps ψ ≥ 0 (Lemma 1.1: the constraint holds), < 0 for an existing overlap.
    pub(super) fn start_gap(&self) -> f64 {
        self.others
            .iter()
            .map(|o| o.gap)
            .fold(self.primary.gap, f64::max)
    }

    /// The end-of-step gap (m) the constraint must reach (`time_stepping::recovery_floor` of
    /// its start gap): 0, or for an overlap deeper than v_max h that overlap less v_max h.
    pub(super) fn recovery_floor(&self, h: f64, max_recovery_speed: f64) -> f64 {
        time_stepping::recovery_floor(self.start_gap(), h, max_recovery_speed)
    }
}

/// Do both pieces of contact `c` hold polytopes?
fn is_polytope_pair(model: &Model, c: &Contact) -> bool {
    let is_polytope =
        |b: usize, p: usize| matches!(model.bodies[b].pieces[p].shape, Shape::Polytope(_));
    is_polytope(c.body_a, c.piece_a) && is_polytope(c.body_b, c.piece_b)
}

impl Peg {
    /// The search thresholds for bodies `a` and `b` at `state`: look-ahead T = h, margin
    /// σ = `simulation.activation_distance` + T² (|ω_a|² r_a + |ω_b|² r_b + |g|) / 2 (the
    /// second-order motion of a point over T), or σ = `activation_distance` and T = 0 when given;
    /// applicability relaxed by θ = `applicability_angle` + T |ω_a − ω_b| (the pair's turn over
    /// T), at most π/2.
    pub fn pair_params(&self, model: &Model, state: &State, a: usize, b: usize) -> PotentialParams {
        let (distance, horizon) = match self.activation_distance {
            Some(d) => (d, 0.0),
            None => {
                let s = &model.settings;
                let t = s.time_step;
                let spin = |i: usize| {
                    if model.bodies[i].moves(state.time) {
                        let r = self.radii.get(i).copied().unwrap_or(0.0);
                        state.bodies[i].angular_velocity.length_squared() * r
                    } else {
                        0.0
                    }
                };
                let curvature = spin(a) + spin(b) + s.gravity.length();
                (s.activation_distance + 0.5 * t * t * curvature, t)
            }
        };
        // The relative turn over the horizon widens the applicability relaxation.
        let turn = horizon
            * (state.bodies[a].angular_velocity - state.bodies[b].angular_velocity).length();
        let theta = (self.applicability_angle + turn).min(std::f64::consts::FRAC_PI_2);
        PotentialParams {
            distance,
            horizon,
            applicability: theta.sin(),
            parallel_sine: self.parallel_sine,
            ..PotentialParams::with_distance(distance)
        }
    }

    /// Rows of the largest island's subproblem among `constraints` (`islands.rs`): a force, the
    /// friction rows (k directions and σ) and a slack per non-primary member each.
    pub(super) fn island_rows(&self, model: &Model, constraints: &[&Constraint]) -> usize {
        let rows_of = |c: &Constraint| {
            let frictional =
                self.frictional && model.friction(c.primary.body_a, c.primary.body_b) > 0.0;
            1 + c.others.len() + if frictional { self.directions + 1 } else { 0 }
        };
        let primaries: Vec<&Contact> = constraints.iter().map(|c| &c.primary).collect();
        crate::contact::islands::partition(model, &primaries)
            .iter()
            .map(|island| island.iter().map(|&j| rows_of(constraints[j])).sum())
            .max()
            .unwrap_or(0)
    }

    /// The constraints of this step: PEG groups of close polytope pairs, then the other contacts.
    pub(super) fn constraints(
        &mut self,
        model: &Model,
        state: &State,
        contacts: &[Contact],
        distance: f64,
    ) -> Vec<Constraint> {
        self.detect_potential(model, state, contacts);
        let mut out = Vec::with_capacity(self.potential.groups.len() + contacts.len());
        group_constraints(&self.potential, &mut out);
        self.plain_constraints(model, contacts, distance, &mut out);
        out
    }

    /// Fill `self.potential` with the potential contacts and groups of the polytope pairs among
    /// `contacts` (`collision::potential::detect`, pair by pair with its [`Peg::pair_params`]).
    fn detect_potential(&mut self, model: &Model, state: &State, contacts: &[Contact]) {
        let mut pairs: Vec<(usize, usize, usize, usize)> = contacts
            .iter()
            .filter(|c| is_polytope_pair(model, c))
            .map(|c| (c.body_a, c.piece_a, c.body_b, c.piece_b))
            .collect();
        pairs.sort_unstable();
        pairs.dedup();
        self.scratch.clear_set(&mut self.potential);
        let params: Vec<PotentialParams> = pairs
            .iter()
            .map(|&(a, _, b, _)| self.pair_params(model, state, a, b))
            .collect();
        let mut scratch = std::mem::take(&mut self.scratch);
        let mut set = std::mem::take(&mut self.potential);
        if self.covered.len() != model.bodies.len() {
            self.covered = model.bodies.iter().map(potential::covered_faces).collect();
        }
        for (pair, params) in pairs.iter().zip(&params) {
            potential::detect(
                model,
                state,
                std::slice::from_ref(pair),
                |_, _| *params,
                &self.covered,
                &mut scratch,
                &mut set,
            );
        }
        self.scratch = scratch;
        self.potential = set;
    }

    /// Recovery and unilateral constraints of the narrow-phase `contacts`, after the groups in
    /// `out`.
    fn plain_constraints(
        &self,
        model: &Model,
        contacts: &[Contact],
        distance: f64,
        out: &mut Vec<Constraint>,
    ) {
        // Recovery: a polytope pair the narrow phase finds overlapping deeper than
        // `recovery_depth` also gets its standard contacts (those not already a primary), so
        // that the ψ/h term pushes the pieces apart whatever let them in. They are frictionless:
        // a recovery contact against a group on the same vertex, with friction on both, locked
        // into a squeeze of 3700 N s each way and spun a body to 1.2e3 rad/s (pour, h = 2 ms).
        let primaries: FastSet<Key> = out
            .iter()
            .map(|c| {
                key(
                    &c.primary,
                    What::Plain(c.primary.feature_a, c.primary.feature_b),
                )
            })
            .collect();
        for c in contacts {
            if is_polytope_pair(model, c) {
                let k = key(c, What::Plain(c.feature_a, c.feature_b));
                if c.gap < -self.recovery_depth && !primaries.contains(&k) {
                    out.push(Constraint {
                        primary: *c,
                        others: Vec::new(),
                        key: k,
                        multi: false,
                        cross: false,
                        recovery: true,
                    });
                }
                continue;
            }
            if c.gap < distance {
                out.push(Constraint {
                    primary: *c,
                    others: Vec::new(),
                    key: key(c, What::Plain(c.feature_a, c.feature_b)),
                    multi: false,
                    cross: false,
                    recovery: false,
                });
            }
        }
    }
}

/// The primary contact P_j of group `g` (eq. 24, the module doc of `contact::peg`), an index
/// into `set.contacts`: the member of largest gap (vertex groups) or the edge–edge contact (edge
/// groups, whose releases carry no force), then the most applicable, then the first. Also the
/// tree form's (`contact::tree::peg`).
pub(crate) fn primary_member(set: &PotentialSet, g: &potential::Group) -> usize {
    let pool = if g.from_edges {
        &g.candidates
    } else {
        &g.members
    };
    *pool
        .iter()
        .max_by(|&&i, &&j| {
            let (ci, cj) = (&set.contacts[i], &set.contacts[j]);
            ci.gap
                .total_cmp(&cj.gap)
                .then(set.applicability[i].total_cmp(&set.applicability[j]))
                .then(j.cmp(&i))
        })
        .expect("a group has a candidate")
}

/// One constraint per group of `set` (eq. 24), appended to `out`.
fn group_constraints(set: &PotentialSet, out: &mut Vec<Constraint>) {
    for g in &set.groups {
        let primary = primary_member(set, g);
        let c = set.contacts[primary];
        out.push(Constraint {
            primary: c,
            others: g
                .members
                .iter()
                .filter(|&&m| m != primary)
                .map(|&m| set.contacts[m])
                .collect(),
            key: key(&c, What::Group(g.key)),
            multi: g.members.len() > 1,
            cross: g.from_edges && g.members.len() > 1,
            recovery: false,
        });
    }
}
