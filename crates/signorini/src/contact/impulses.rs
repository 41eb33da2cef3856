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
//!   end of the step       entries at the same (A, B, point) are summed into one (`merge`)
//! ```
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
    /// Seconds a recorded force is held (0: forces are not recorded).
    weight: f64,
    /// Impulses are recorded.
    on: bool,
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

    fn push(&mut self, (body_a, body_b): (usize, usize), point: DVec3, normal: DVec3, impulse: DVec3) {
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

    /// Sum the records at the same (A, B, point), bit for bit, into the first of them, keeping
    /// the order of first appearance (deterministic), and drop the ones of zero impulse.
    pub fn merge(&mut self) {
        let mut first: FastMap<(usize, usize, [u64; 3]), usize> = FastMap::default();
        let mut merged: Vec<ContactImpulse> = Vec::with_capacity(self.entries.len());
        for e in self.entries.drain(..) {
            let key = (e.body_a, e.body_b, e.point.to_array().map(f64::to_bits));
            match first.get(&key) {
                Some(&i) => merged[i].impulse += e.impulse,
                None => {
                    first.insert(key, merged.len());
                    merged.push(e);
                }
            }
        }
        merged.retain(|e| e.impulse != DVec3::ZERO);
        self.entries = merged;
    }

    /// The records.
    pub fn entries(&self) -> &[ContactImpulse] {
        &self.entries
    }
}
