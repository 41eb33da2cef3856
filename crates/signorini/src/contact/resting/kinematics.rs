//! Velocity-level quantities of a contact and the normal acceleration d̈ of (R2): the relative
//! velocity v_rel (R1), ṅ (from `normal_rate`), the point accelerations (R3), and the sphere
//! terms (n·P̈ = n·c̈ ± r |ṅ|², Ṗ = ċ ∓ r ṅ) of a contact point that slides over a sphere.
//!
//! ```text
//!   d̈ = n·(p̈_b − p̈_a) + 2 ṅ·(ṗ_b − ṗ_a)                                       (R2)
//!   p̈ = a + α × r + ω × (ω × r),   r = p − x                                   (R3)
//! ```
use super::normal_rate::normal_rate;
use crate::collision::Contact;
use crate::dynamics::piece_pose;
use crate::dynamics::{Model, State};
use crate::geometry::Shape;
use glam::DVec3;

/// Velocity-level quantities of one contact.
pub(super) struct Kinematics {
    /// v_B(p_b) − v_A(p_a), material points (m/s): its normal part is v_n, its tangential part the
    /// slip.
    pub v_rel: DVec3,
    /// ṅ (1/s).
    pub n_dot: DVec3,
    /// False when ṅ is approximated by 0 (see `normal_rate`).
    pub exact_normal_rate: bool,
    /// (centre, radius) of each side that is a sphere (m); `None` for polytopes and half-spaces.
    pub sphere_a: Option<(DVec3, f64)>,
    pub sphere_b: Option<(DVec3, f64)>,
}

impl Kinematics {
    pub(super) fn new(model: &Model, state: &State, c: &Contact) -> Self {
        let v_rel = point_velocity(model, state, c.body_b, c.point_b)
            - point_velocity(model, state, c.body_a, c.point_a);
        let (n_dot, exact_normal_rate) = match normal_rate(model, state, c) {
            Some(n_dot) => (n_dot, true),
            None => (DVec3::ZERO, false),
        };
        let sphere = |body: usize, piece: usize| match model.bodies[body].pieces[piece].shape {
            Shape::Sphere { radius } => {
                Some((piece_pose(model, state, body, piece).translation, radius))
            }
            _ => None,
        };
        Kinematics {
            v_rel,
            n_dot,
            exact_normal_rate,
            sphere_a: sphere(c.body_a, c.piece_a),
            sphere_b: sphere(c.body_b, c.piece_b),
        }
    }

    /// p̈_b − p̈_a (R3) of the material contact points under the body accelerations `acc`.
    pub(super) fn relative_point_acceleration(
        &self,
        model: &Model,
        state: &State,
        c: &Contact,
        acc: &[(DVec3, DVec3)],
    ) -> DVec3 {
        point_acceleration(model, state, c.body_b, c.point_b, acc[c.body_b])
            - point_acceleration(model, state, c.body_a, c.point_a, acc[c.body_a])
    }

    /// d̈ of (R2) (without the ψ n̈ term) under the body accelerations `acc`.
    ///
    /// A polytope or half-space side contributes its material contact point (the vertex, or any
    /// point of the edge or face: n is normal to the feature, so the choice does not change d).
    /// A sphere's contact point P = c ∓ r n is not material (it moves over the surface as the
    /// sphere rolls), so its side contributes the centre: for B, P_b = c_b − r_b n gives
    /// n·P̈_b = n·c̈_b + r_b |ṅ|² (as n·n̈ = −|ṅ|²) and Ṗ_b = ċ_b − r_b ṅ; for A, P_a = c_a + r_a n
    /// gives n·P̈_a = n·c̈_a − r_a |ṅ|² and Ṗ_a = ċ_a + r_a ṅ. Material points there would add the
    /// spurious r |ω × n − ṅ|² (a ball rolling on a floor would seem to lift off). The
    /// force-dependent part is the same either way (n·(α × r n) = 0), so A is unchanged.
    pub(super) fn normal_acceleration(
        &self,
        model: &Model,
        state: &State,
        c: &Contact,
        acc: &[(DVec3, DVec3)],
    ) -> f64 {
        let n = c.normal;
        let curvature = self.n_dot.length_squared();
        let (acc_b, vel_b) = match self.sphere_b {
            Some((centre, r)) => (
                n.dot(point_acceleration(
                    model,
                    state,
                    c.body_b,
                    centre,
                    acc[c.body_b],
                )) + r * curvature,
                point_velocity(model, state, c.body_b, centre) - r * self.n_dot,
            ),
            None => (
                n.dot(point_acceleration(
                    model,
                    state,
                    c.body_b,
                    c.point_b,
                    acc[c.body_b],
                )),
                point_velocity(model, state, c.body_b, c.point_b),
            ),
        };
        let (acc_a, vel_a) = match self.sphere_a {
            Some((centre, r)) => (
                n.dot(point_acceleration(
                    model,
                    state,
                    c.body_a,
                    centre,
                    acc[c.body_a],
                )) - r * curvature,
                point_velocity(model, state, c.body_a, centre) + r * self.n_dot,
            ),
            None => (
                n.dot(point_acceleration(
                    model,
                    state,
                    c.body_a,
                    c.point_a,
                    acc[c.body_a],
                )),
                point_velocity(model, state, c.body_a, c.point_a),
            ),
        };
        acc_b - acc_a + 2.0 * self.n_dot.dot(vel_b - vel_a)
    }
}

/// Angular velocity ω of body `i` (zero for fixed bodies).
pub(super) fn angular_velocity(model: &Model, state: &State, i: usize) -> DVec3 {
    if model.bodies[i].fixed {
        DVec3::ZERO
    } else {
        state.bodies[i].angular_velocity
    }
}

/// Velocity of the material point of body `i` at world point `p` (fixed bodies do not move).
pub(super) fn point_velocity(model: &Model, state: &State, i: usize, p: DVec3) -> DVec3 {
    if model.bodies[i].fixed {
        DVec3::ZERO
    } else {
        state.bodies[i].point_velocity(p)
    }
}

/// (R3): p̈ = a + α × r + ω × (ω × r) for the material point of body `i` at `p`.
pub(super) fn point_acceleration(
    model: &Model,
    state: &State,
    i: usize,
    p: DVec3,
    (a, alpha): (DVec3, DVec3),
) -> DVec3 {
    if model.bodies[i].fixed {
        return DVec3::ZERO;
    }
    let bs = &state.bodies[i];
    let r = p - bs.position;
    let w = bs.angular_velocity;
    a + alpha.cross(r) + w.cross(w.cross(r))
}
