//! Force elements: what a penalty model gives the `implicit-euler` integrator.
//!
//! A penalty model hands its contact forces over as [`ForceElement`]s: a force f⁰ (N) along a
//! unit direction d at a point, acting on body B (−f on A), with its stiffness k (N/m) and
//! damping c (N s/m), and how it is bounded ([`ElementLaw`]: a normal force never pulls, a
//! friction force stays in its cone). `pipeline::implicit` takes them at the end of the step:
//! with u = J ν the relative velocity of the point along d and the element's stretch shrinking at
//! rate u, f⁺ = f⁰ − k h u⁺ − c (u⁺ − u⁰), linearised backward Euler on the spring–damper.
use glam::DVec3;

/// How an element's force is bounded.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ElementLaw {
    /// A normal force: never pulls (f ≥ 0).
    Unilateral,
    /// One of the two tangents of a friction force at a point: with its `partner` (the other
    /// tangent) inside the cone μ f⁺ of element `normal`.
    Friction { partner: usize, normal: usize, mu: f64 },
}

/// A penalty force along a direction at a point, with its linearisation (module documentation).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ForceElement {
    /// The force acts on `body_b` along +`direction`, on `body_a` along −`direction`.
    pub body_a: usize,
    pub body_b: usize,
    /// World point (m).
    pub point: DVec3,
    /// Unit direction.
    pub direction: DVec3,
    /// f⁰: the force at the state (N).
    pub force: f64,
    /// k = −∂f/∂(displacement of B relative to A along d) (N/m, ≥ 0).
    pub stiffness: f64,
    /// c = −∂f/∂u (N s/m, ≥ 0).
    pub damping: f64,
    pub law: ElementLaw,
}

impl ForceElement {
    /// A unilateral normal element.
    pub fn normal(
        (body_a, body_b): (usize, usize),
        point: DVec3,
        direction: DVec3,
        force: f64,
        stiffness: f64,
        damping: f64,
    ) -> Self {
        ForceElement {
            body_a,
            body_b,
            point,
            direction,
            force,
            stiffness,
            damping,
            law: ElementLaw::Unilateral,
        }
    }
}

/// Append the two tangent elements of a friction force `force` (N, in the plane normal to
/// `n`, on B) at `point`, with stiffness `k` and damping `c` in every tangent direction, bounded
/// by μ times the force of element `normal`.
#[allow(clippy::too_many_arguments)]
pub fn push_friction(
    elements: &mut Vec<ForceElement>,
    bodies: (usize, usize),
    point: DVec3,
    n: DVec3,
    force: DVec3,
    (k, c): (f64, f64),
    normal: usize,
    mu: f64,
) {
    let (t1, t2) = n.any_orthonormal_pair();
    let first = elements.len();
    for (t, partner) in [(t1, first + 1), (t2, first)] {
        elements.push(ForceElement {
            body_a: bodies.0,
            body_b: bodies.1,
            point,
            direction: t,
            force: force.dot(t),
            stiffness: k,
            damping: c,
            law: ElementLaw::Friction { partner, normal, mu },
        });
    }
}

