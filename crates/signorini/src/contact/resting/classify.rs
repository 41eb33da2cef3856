//! Classification of the contacts (module documentation, "Classification", slide 2; (R1)):
//! apart, separating, colliding, or resting (frictionless, sticking, sliding), and the friction
//! coefficient μ of each resting contact.
//!
//! ```text
//!   for each contact c:
//!     ψ > gap_tolerance or both bodies fixed  -> Apart
//!     v_n = v_rel·n (R1) > ε_v                -> Separating
//!     v_n < −ε_v                              -> Colliding
//!     else μ = pair friction, v_t = v_rel − v_n n:
//!       μ = 0 -> Frictionless,  |v_t| ≤ max(ε_t, μ |g| t_s) -> Sticking,
//!       else Sliding { t̂ = v_t/|v_t| }
//! ```
use super::kinematics::Kinematics;
use super::options::RestingOptions;
use crate::collision::Contact;
use crate::dynamics::Model;
use glam::DVec3;

/// How a contact was treated.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ContactClass {
    /// Gap above `gap_tolerance`, or both bodies fixed: no force, not in the LCP.
    Apart,
    /// v_n > ε_v: no force.
    Separating,
    /// v_n < −ε_v: not in the LCP; the caller must resolve it with an impulse first.
    Colliding,
    /// Resting, μ = 0: a normal row only.
    Frictionless,
    /// Resting, slip speed ≤ ε_t: normal row, k cone rows and a σ row.
    Sticking,
    /// Resting, slip speed > ε_t: normal row with the friction −μ f t̂ folded into its column.
    Sliding {
        /// t̂, unit slip direction of B's point relative to A's (world axes).
        direction: DVec3,
    },
}

impl ContactClass {
    /// True for the classes that are in the LCP.
    pub fn is_resting(&self) -> bool {
        matches!(
            self,
            ContactClass::Frictionless | ContactClass::Sticking | ContactClass::Sliding { .. }
        )
    }
}

/// The class and friction coefficient of every contact, in input order.
pub(super) struct Classification {
    /// How each contact is treated.
    pub class: Vec<ContactClass>,
    /// μ of each resting contact (0 for the others, which never read it).
    pub mu: Vec<f64>,
}

/// Classify every contact (R1) from its relative velocity `kin[i].v_rel`.
pub(super) fn classify(
    model: &Model,
    contacts: &[Contact],
    kin: &[Kinematics],
    options: &RestingOptions,
) -> Classification {
    let fixed = |i: usize| model.bodies[i].fixed;
    let mut class = Vec::with_capacity(contacts.len());
    let mut mu = vec![0.0; contacts.len()];
    let g = model.settings.gravity.length();
    for (i, c) in contacts.iter().enumerate() {
        let k = &kin[i];
        let v_n = k.v_rel.dot(c.normal);
        let cls = if c.gap > options.gap_tolerance || (fixed(c.body_a) && fixed(c.body_b)) {
            ContactClass::Apart
        } else if v_n > options.separation_speed(c.gap) {
            ContactClass::Separating
        } else if v_n < -options.velocity_tolerance {
            ContactClass::Colliding
        } else {
            mu[i] = model.friction(c.body_a, c.body_b);
            let slip = k.v_rel - v_n * c.normal;
            let speed = slip.length();
            if mu[i] == 0.0 {
                ContactClass::Frictionless
            } else if speed <= options.slip_tolerance.max(mu[i] * g * options.stick_time) {
                ContactClass::Sticking
            } else {
                ContactClass::Sliding {
                    direction: slip / speed,
                }
            }
        };
        class.push(cls);
    }
    Classification { class, mu }
}

/// Indices of the contacts of each class, in input order.
pub(super) struct ClassIndices {
    /// The contacts in the LCP.
    pub resting: Vec<usize>,
    /// The colliding contacts (need impulses first).
    pub colliding: Vec<usize>,
    pub separating: Vec<usize>,
    /// The contacts that do not touch (or join two fixed bodies).
    pub apart: Vec<usize>,
}

impl ClassIndices {
    pub(super) fn new(class: &[ContactClass]) -> Self {
        let pick = |f: &dyn Fn(&ContactClass) -> bool| -> Vec<usize> {
            (0..class.len()).filter(|&i| f(&class[i])).collect()
        };
        let resting = pick(&|c| c.is_resting());
        let colliding = pick(&|c| matches!(c, ContactClass::Colliding));
        let separating = pick(&|c| matches!(c, ContactClass::Separating));
        let apart = pick(&|c| matches!(c, ContactClass::Apart));
        ClassIndices {
            resting,
            colliding,
            separating,
            apart,
        }
    }
}
