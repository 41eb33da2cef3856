//! The collision laws (Newton (L4a), Poisson (L4b), Stronge (L4c), the algebraic baseline) and
//! the record of one collision: the impulse, the exit velocity, the works (L3, L5), where the
//! slip stopped and the impulse path as segments.
use glam::{DVec2, DVec3};
use std::fmt;

use super::sticking::{Ray, RayMethod, StickingTest};

/// A collision law.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Law {
    /// Kinematic restitution (L4a), integrated with friction.
    Newton,
    /// Kinetic restitution (L4b), integrated with friction.
    Poisson,
    /// Energetic restitution (L4c), integrated with friction.
    Stronge,
    /// Frictionless Newton impulse, then a slip-stopping tangential impulse clamped to the cone.
    AlgebraicNewton,
}

impl Law {
    /// Every law, in this order.
    pub const ALL: [Law; 4] = [
        Law::Newton,
        Law::Poisson,
        Law::Stronge,
        Law::AlgebraicNewton,
    ];

    /// Lower-case name: `newton`, `poisson`, `stronge`, `algebraic-newton`.
    pub fn name(self) -> &'static str {
        match self {
            Law::Newton => "newton",
            Law::Poisson => "poisson",
            Law::Stronge => "stronge",
            Law::AlgebraicNewton => "algebraic-newton",
        }
    }

    /// The law named `name` (see [`Law::name`]).
    pub fn by_name(name: &str) -> Option<Law> {
        Law::ALL.into_iter().find(|l| l.name() == name)
    }
}

impl fmt::Display for Law {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// How a piece of the impulse path was computed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SegmentKind {
    /// μ = 0 or the algebraic law's normal impulse: P_t constant.
    Frictionless,
    /// Sliding, integrated (rotating slip direction).
    SlidingIntegrated,
    /// Sliding along an invariant ray: straight line (L9).
    SlidingStraight,
    /// Stable sticking, closed form: f = f* (L6).
    Sticking,
    /// After unstable sticking: sliding out along the diverging ray, straight line.
    LeavingAlongRay,
    /// The algebraic law's tangential impulse (P_n constant).
    TangentialCorrection,
}

/// A piece of the impulse path, from `start` to `end` (contact-frame impulses, N s).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Segment {
    pub kind: SegmentKind,
    pub start: DVec3,
    pub end: DVec3,
}

/// Where and how the slip stopped.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Stick {
    /// P_n at which the slip reached zero (N s); 0 when the collision started without slip.
    pub normal_impulse: f64,
    /// The sticking test (L6) there.
    pub test: StickingTest,
    /// When unstable: the diverging ray the slip left along, and how it was found.
    pub ray: Option<(Ray, RayMethod)>,
}

/// The result of one collision.
#[derive(Clone, Debug, PartialEq)]
pub struct Collision {
    pub law: Law,
    /// Total impulse P = (P_t1, P_t2, P_n) on B (−P on A), contact frame (N s).
    pub impulse: DVec3,
    /// Relative contact velocity after the collision, u₀ + K P, contact frame (m/s).
    pub velocity: DVec3,
    /// P_n at (first) maximum compression, u_n = 0 (N s).
    pub compression_impulse: f64,
    /// W_n at maximum compression (J, ≤ 0).
    pub compression_work: f64,
    /// W_n(end) − W_n(compression) (J).
    pub restitution_work: f64,
    /// ΔT − W_n: the friction work W_t (J, ≤ 0 for the integrated laws).
    pub friction_work: f64,
    /// ΔT = Pᵀu₀ + ½PᵀKP (L5) (J).
    pub energy_change: f64,
    /// Whether and where the slip stopped (integrated laws). For the algebraic law: Some when its
    /// tangential impulse was inside the cone, at the final P_n, with `test.friction_rate` =
    /// P_t/P_n and `test.required_friction` = |P_t|/P_n of that impulse.
    pub stick: Option<Stick>,
    /// Unit slip direction (t1, t2) at the end; None when the contact ends without slip.
    pub exit_slip: Option<DVec2>,
    /// The impulse path, in order.
    pub segments: Vec<Segment>,
    /// Accepted Runge–Kutta steps (0 when every piece was closed form).
    pub steps: usize,
    /// u_n went below zero again after maximum compression.
    pub recompressed: bool,
    /// Poisson's target was met with u_n < 0 and the integration went on to u_n = 0.
    pub extended_to_separation: bool,
}
