//! What each contact pushed with over a step: the per-contact impulses every contact model
//! records as it applies its forces or impulses, for the step report's readers (the library's
//! `Simulation::contact_impulses`, the Python package).
//!
//! ```text
//!   force models          record f at each point, weighted by how long the step holds it:
//!                         h (semi-implicit Euler; implicit Euler: the explicit part, and the
//!                         force elements' end-of-step forces, recorded by the pipeline),
//!                         h/6 · (1, 2, 2, 1) for the four RK4 stages
//!   velocity level        the LCP's impulses p_n n + Σ_j β_j d_j per contact (N s)
//!   impulse based         each impulse of the sequential sweeps as it is applied, and the
//!                         continuous forces of a substep times the substep's length
//!   when read             entries at the same (A, B, point) are summed into one (`merged`)
//! ```
//!
//! Recording is a push per record; the merge (a hash lookup per point, 2–3 % of a step of the
//! 10-box stack under deepest-point when it ran every step) is done only when someone reads the
//! step's impulses.
//!
//! The sum of the impulses on a body over a step is what contact changed its momentum by:
//! m (v⁺ − v) = h (m g + applied) + Σ_B J − Σ_A J, exactly for every coupling but RK4's
//! different stage points (where it still holds for linear momentum) and Guendelman's shock
//! propagation (whose held lower body does not receive −J; `docs/library.md`).
use crate::util::hash::FastMap;
use glam::DVec3;

/// The impulse one contact point carried over the last step: `impulse` on B at `point`, and
/// −`impulse` on A there.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ContactImpulse {
    pub body_a: usize,
    pub body_b: usize,
    /// World point where it acts (m): the contact's midpoint, a penalty model's force point, the
    /// impulse point of a sequential sweep.
    pub point: DVec3,
    /// Unit contact normal from A to B (the first record's at the point).
    pub normal: DVec3,
    /// Impulse on B over the step (N s, world axes).
    pub impulse: DVec3,
}

impl ContactImpulse {
    /// The impulse along the normal (N s; positive pushes A and B apart).
    pub fn normal_impulse(&self) -> f64 {
        self.impulse.dot(self.normal)
    }

    /// The impulse in the tangent plane (friction, N s).
    pub fn tangential_impulse(&self) -> DVec3 {
        self.impulse - self.normal_impulse() * self.normal
    }
}

/// The records of one step (module documentation). A model writes into it through
/// [`force`](Self::force) and [`impulse`](Self::impulse); a log that is off (the default, and
/// whatever a model is probed with outside a step) keeps nothing.
#[derive(Clone, Debug, Default)]
pub struct ContactImpulses {
    entries: Vec<ContactImpulse>,
    /// `merge`'s scratch, kept from step to step (its allocations were 1 % of a step).
    first: FastMap<(usize, usize, [u64; 3]), usize>,
    merged: Vec<ContactImpulse>,
    /// Seconds a recorded force is held (0: forces are not recorded).
    weight: f64,
    /// Impulses are recorded.
    on: bool,
    /// `entries` are merged (`merged`).
    merged_already: bool,
}

impl ContactImpulses {
    /// A log that keeps nothing (to probe a model outside a step).
    pub fn off() -> Self {
        Self::default()
    }

    /// Forget the last step's records and record from now on.
    pub fn start(&mut self) {
        self.entries.clear();
        self.on = true;
        self.weight = 0.0;
        self.merged_already = false;
    }

    /// Stop recording (forces evaluated only to measure, e.g. the power at the end of a step).
    pub fn pause(&mut self) {
        self.on = false;
        self.weight = 0.0;
    }

    /// Record forces from now on as held for `seconds` (the integrator's weight of the force
    /// evaluation that follows).
    pub fn hold_forces_for(&mut self, seconds: f64) {
        self.on = true;
        self.weight = seconds;
    }

    /// Force `force` (N) on B at `point` (−force on A), held for the current weight.
    pub fn force(&mut self, bodies: (usize, usize), point: DVec3, normal: DVec3, force: DVec3) {
        if self.on && self.weight != 0.0 {
            self.push(bodies, point, normal, self.weight * force);
        }
    }

    /// Impulse `impulse` (N s) on B at `point` (−impulse on A).
    pub fn impulse(&mut self, bodies: (usize, usize), point: DVec3, normal: DVec3, impulse: DVec3) {
        if self.on {
            self.push(bodies, point, normal, impulse);
        }
    }

    fn push(
        &mut self,
        (body_a, body_b): (usize, usize),
        point: DVec3,
        normal: DVec3,
        impulse: DVec3,
    ) {
        self.entries.push(ContactImpulse {
            body_a,
            body_b,
            point,
            normal,
            impulse,
        });
    }

    /// Records so far.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Multiply the records from index `from` on by `seconds`: forces recorded with weight 1
    /// before the impulse loop knew how long its substep would hold them.
    pub fn scale_from(&mut self, from: usize, seconds: f64) {
        for e in &mut self.entries[from..] {
            e.impulse *= seconds;
        }
    }

    /// The step's records with those at the same (A, B, point), bit for bit, summed into the
    /// first of them, in the order of first appearance (deterministic), zero ones dropped.
    pub fn merged(&mut self) -> &[ContactImpulse] {
        if !self.merged_already {
            self.merge();
            self.merged_already = true;
        }
        &self.entries
    }

    fn merge(&mut self) {
        let (first, merged) = (&mut self.first, &mut self.merged);
        first.clear();
        merged.clear();
        for e in self.entries.drain(..) {
            // Most repeats follow their first record (a point's normal force, then its friction):
            // those need no lookup.
            if let Some(last) = merged.last_mut() {
                if (last.body_a, last.body_b) == (e.body_a, e.body_b) && same(last.point, e.point) {
                    last.impulse += e.impulse;
                    continue;
                }
            }
            let key = (e.body_a, e.body_b, e.point.to_array().map(f64::to_bits));
            match first.entry(key) {
                std::collections::hash_map::Entry::Occupied(i) => {
                    merged[*i.get()].impulse += e.impulse
                }
                std::collections::hash_map::Entry::Vacant(v) => {
                    v.insert(merged.len());
                    merged.push(e);
                }
            }
        }
        merged.retain(|e| e.impulse != DVec3::ZERO);
        std::mem::swap(&mut self.entries, merged);
    }
}

/// The same point bit for bit (the key `merge` hashes).
fn same(p: DVec3, q: DVec3) -> bool {
    p.to_array().map(f64::to_bits) == q.to_array().map(f64::to_bits)
}
