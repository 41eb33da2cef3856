//! Deformable bodies as networks of particles and visco-elastic connectors (Deguet, Joukhadar &
//! Laugier 1998, §3–4; docs/deformable.md).
//!
//! - `connector.rs`: the linear, torsion and shear connectors (Kelvin–Voigt laws with λ and μ).
//! - `generate.rs`: a box (rod, plate) discretised into particles and connectors, and the
//!   identification of masses, λ and μ from E, ν, ρ and a retardation time.
//! - `world.rs`: particles, connectors, gravity, point loads, drag, planes; forces and energies.
//! - `contact.rs`: particle–half-space and particle–convex-polytope penalty contact
//!   (Hunt–Crossley, regularised Coulomb).
//! - `facets.rs`: the triangles over a body's outer particles, and a particle's contact with
//!   them.
//! - `couple.rs`: two-way contact with rigid bodies and between deformable worlds: the forces
//!   each side takes for one step, or the touches the impulse law resolves.
//! - `impulse.rs`: the impulse law (Newton and Coulomb by sequential impulses, then a position
//!   projection) for `contact_law = "impulse"`.
//! - `integrate.rs`: Taylor (Deguet eqs. 10–11), symplectic Euler and Verlet steps, and Deguet's
//!   energy-based adaptive step (§4.2).
//!
//! Layering: on `dynamics` (adaptive settings, the rigid bodies' model and state for the
//! coupling), `geometry` (their shapes) and `pipeline` (adaptive statistics). Read by
//! `scene` (`[[deformable]]` tables, `scene/deformable.rs`) and run by `signorini run`.
pub mod connector;
pub mod contact;
pub mod couple;
pub mod facets;
pub mod generate;
pub mod impulse;
pub mod integrate;
pub mod world;

pub use connector::{Linear, Shear, Torsion};
pub use contact::{Plane, PlaneContact, Polytope};
pub use couple::Coupler;
pub use facets::{FacetContact, Facets};
pub use generate::{add_box, BoxSpec, Clamp, DeformableMaterial};
pub use integrate::{
    AdaptiveDeformable, DeformableError, DeformableIntegrator, DeformableStep, Integrator,
};
pub use world::{BodyInfo, ContactLaw, Forces, ImpactLaw, World, WorldSettings};
