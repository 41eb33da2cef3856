//! Applied forces: gravity is in the settings; these are the forces scheduled by the scene.
use super::{Model, State};
use glam::DVec3;

/// A force (N) and a torque about the centre of mass (N m), world axes.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Wrench {
    pub force: DVec3,
    pub torque: DVec3,
}

impl Wrench {
    /// Add force `f` (N) applied at world point `p` (m) of a body whose centre of mass is `com`.
    pub fn add_at(&mut self, f: DVec3, p: DVec3, com: DVec3) {
        self.force += f;
        self.torque += (p - com).cross(f);
    }
}

/// A force switched on during `[start, end)` (s).
#[derive(Clone, Debug, PartialEq)]
pub struct ScheduledForce {
    pub body: usize,
    /// N, world axes.
    pub force: DVec3,
    /// N m, world axes.
    pub torque: DVec3,
    /// Point of application in the body frame (m, relative to the centre of mass); `None` = the
    /// centre of mass.
    pub point: Option<DVec3>,
    pub start: f64,
    pub end: f64,
}

impl ScheduledForce {
    pub fn active(&self, t: f64) -> bool {
        t >= self.start && t < self.end
    }
}

/// Add the scheduled forces active at time `t` (s), then the state's external wrenches
/// (`State::external`), to `out` (one wrench per body).
pub fn add_scheduled(model: &Model, state: &State, t: f64, out: &mut [Wrench]) {
    for f in model.forces.iter().filter(|f| f.active(t)) {
        let bs = &state.bodies[f.body];
        let w = &mut out[f.body];
        match f.point {
            Some(local) => w.add_at(f.force, bs.position + bs.orientation * local, bs.position),
            None => w.force += f.force,
        }
        w.torque += f.torque;
    }
    for (body, ext) in &state.external {
        out[*body].force += ext.force;
        out[*body].torque += ext.torque;
    }
}
