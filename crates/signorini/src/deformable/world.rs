//! A world of deformable bodies: particles (point masses; Deguet's primitives without rotation),
//! the connectors between them, fixed (clamped) particles, gravity, point loads, a mass-
//! proportional drag, and ground planes touched through a penalty law (`contact.rs`).
//!
//! Newton's law for each particle (Deguet eqs. 6 and 8: F_i = m_i a_i with F_i the connectors'
//! forces, the interactions' and the external ones):
//!
//! ```text
//!   m_i a_i = Σ connectors + m_i g + f_i (point load) − γ m_i v_i (drag) + contact
//! ```
use super::connector::{Linear, Shear, Torsion};
use super::contact::{Plane, PlaneContact, Polytope};
use super::generate::DeformableMaterial;
use super::integrate::DeformableError;
use crate::contact::impulse::law::Law;
use glam::DVec3;

/// One generated body: its particles are `first .. first + count` of the world's arrays, laid out
/// as a grid of `counts` (x fastest).
#[derive(Clone, Debug, PartialEq)]
pub struct BodyInfo {
    pub name: String,
    pub first: usize,
    pub count: usize,
    pub counts: [usize; 3],
    pub material: DeformableMaterial,
}

/// Settings of a deformable world (SI units).
#[derive(Clone, Debug, PartialEq)]
pub struct WorldSettings {
    /// Gravity (m/s²).
    pub gravity: DVec3,
    /// Mass-proportional drag γ (1/s, ≥ 0): a force −γ m v on every particle (damps all modes
    /// at the rate γ/2; a static deflection is found by running with it).
    pub drag: f64,
    /// Penalty contact with the planes.
    pub contact: PlaneContact,
    /// How the particles' contacts act: penalty forces (`contact`), or impulses at the end of
    /// each step (`impulse.rs`; `contact.friction` is then the impulses' Coulomb coefficient).
    pub law: ContactLaw,
}

/// A deformable's contact law.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub enum ContactLaw {
    /// Hunt–Crossley forces with regularised Coulomb friction (`contact.rs`).
    #[default]
    Penalty,
    /// Impulses with Coulomb friction, by sequential impulses, and a position projection out of
    /// every surface (`impulse.rs`); `restitution` e in [0, 1] under the collision law `impact`.
    Impulse { restitution: f64, impact: ImpactLaw },
}

/// The collision law of the impulse contact law (`impulse.rs`; docs/deformable.md "Impulse law").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ImpactLaw {
    /// Newton's kinematic restitution u_n⁺ = −e u_n⁻ on each touch, with clamped Coulomb friction
    /// (the sweeps alone).
    #[default]
    Newton,
    /// Poisson's kinetic restitution (P_n = (1 + e) P_n at maximum compression), the impulse
    /// path integrated with friction (Mirtich) for each arriving touch.
    Poisson,
    /// Stronge's energetic restitution (W_n = (1 − e²) W_c), integrated the same way.
    Stronge,
}

impl ImpactLaw {
    /// Every law, in this order.
    pub const ALL: [ImpactLaw; 3] = [ImpactLaw::Newton, ImpactLaw::Poisson, ImpactLaw::Stronge];
    /// Their names, those of the rigid model's laws (`contact::impulse::law::Law::name`).
    pub const NAMES: [&'static str; 3] = ["newton", "poisson", "stronge"];

    /// The single-point law of `contact::impulse::law` it names (Newton's is used by the sweeps
    /// alone, never integrated).
    pub fn law(self) -> Law {
        match self {
            ImpactLaw::Newton => Law::Newton,
            ImpactLaw::Poisson => Law::Poisson,
            ImpactLaw::Stronge => Law::Stronge,
        }
    }

    pub fn name(self) -> &'static str {
        self.law().name()
    }

    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|l| l.name() == name)
    }
}

impl Default for WorldSettings {
    fn default() -> Self {
        WorldSettings {
            gravity: DVec3::new(0.0, 0.0, -9.81),
            drag: 0.0,
            contact: PlaneContact::default(),
            law: ContactLaw::Penalty,
        }
    }
}

/// Particles, connectors and planes; positions and velocities are the state.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct World {
    pub time: f64,
    /// Positions (m).
    pub x: Vec<DVec3>,
    /// Velocities (m/s).
    pub v: Vec<DVec3>,
    /// Masses (kg).
    pub mass: Vec<f64>,
    /// Clamped particles never move.
    pub fixed: Vec<bool>,
    /// Contact radius: the distance from a particle to the surface it stands for (m).
    pub radius: Vec<f64>,
    /// Constant point loads (N).
    pub load: Vec<DVec3>,
    pub linear: Vec<Linear>,
    pub torsion: Vec<Torsion>,
    pub shear: Vec<Shear>,
    pub planes: Vec<Plane>,
    /// Fixed convex polytopes (each touched through its deepest face, `Polytope::active`).
    pub polytopes: Vec<Polytope>,
    pub bodies: Vec<BodyInfo>,
    pub settings: WorldSettings,
    /// Forces from bodies outside the world (N, one per particle, or empty): free rigid bodies
    /// and other deformables, as the last exchange found them (`couple.rs`). Added to the
    /// particles' forces wherever the world evaluates them; counted with the non-conservative
    /// forces in the energy balance.
    pub coupling: Vec<DVec3>,
    /// Sum of the contact stiffnesses (N/m) of the surfaces outside the world a particle may
    /// touch at once (free rigid pieces, other deformables: `couple.rs`), added to every
    /// particle's row in `max_frequency`.
    pub coupled_stiffness: f64,
    /// Deepest penetration into a coupled surface at the last exchange (m; 0 when none).
    pub coupled_penetration: f64,
    /// Coupled contacts (particle, surface) at the last exchange.
    pub coupled_contacts: usize,
}

/// Forces on every particle, split into the conservative part (connectors' elastic forces,
/// gravity, the contact's elastic part) and the rest (damping, drag, friction, point loads),
/// whose power the energy balance counts.
#[derive(Clone, Debug, Default)]
pub struct Forces {
    pub conservative: Vec<DVec3>,
    pub other: Vec<DVec3>,
}

impl Forces {
    /// Accelerations (m/s²); zero for fixed particles.
    pub fn accelerations(&self, w: &World, out: &mut Vec<DVec3>) {
        out.clear();
        out.extend((0..w.x.len()).map(|p| {
            if w.fixed[p] {
                DVec3::ZERO
            } else {
                (self.conservative[p] + self.other[p]) / w.mass[p]
            }
        }));
    }

    /// Power of the non-conservative forces at velocities `v` (W).
    pub fn power(&self, w: &World, v: &[DVec3]) -> f64 {
        (0..v.len())
            .filter(|&p| !w.fixed[p])
            .map(|p| self.other[p].dot(v[p]))
            .sum()
    }
}

impl World {
    pub fn new(settings: WorldSettings) -> Self {
        World {
            settings,
            ..World::default()
        }
    }

    pub(super) fn push_particle(
        &mut self,
        x: DVec3,
        v: DVec3,
        mass: f64,
        fixed: bool,
        radius: f64,
        load: DVec3,
    ) {
        self.x.push(x);
        self.v.push(v);
        self.mass.push(mass);
        self.fixed.push(fixed);
        self.radius.push(radius);
        self.load.push(load);
    }

    /// Check the settings and the planes: gravity finite, drag ≥ 0 (1/s), contact stiffness
    /// > 0 (N/m), contact damping ≥ 0 (N·s/m²), friction ≥ 0, slip speed > 0 (m/s), planes with
    /// a unit normal and a finite offset (m). The message names the field and its range.
    pub fn check_settings(&self) -> Result<(), DeformableError> {
        let s = &self.settings;
        let c = &s.contact;
        let fail = |what: String| Err(DeformableError::Invalid(what));
        if !s.gravity.is_finite() {
            return fail(format!("gravity must be finite (m/s²), got {}", s.gravity));
        }
        if !(s.drag >= 0.0 && s.drag.is_finite()) {
            return fail(format!("drag must be ≥ 0 and finite (1/s), got {}", s.drag));
        }
        let positive = [("contact.stiffness", c.stiffness, "N/m"), ("contact.slip_speed", c.slip_speed, "m/s")];
        for (name, v, unit) in positive {
            if !(v > 0.0 && v.is_finite()) {
                return fail(format!("{name} must be > 0 and finite ({unit}), got {v}"));
            }
        }
        let non_negative = [("contact.damping", c.damping, "N·s/m²"), ("contact.friction", c.friction, "1")];
        for (name, v, unit) in non_negative {
            if !(v >= 0.0 && v.is_finite()) {
                return fail(format!("{name} must be ≥ 0 and finite ({unit}), got {v}"));
            }
        }
        let faces = self.polytopes.iter().flat_map(|p| p.faces.iter());
        for (k, pl) in self.planes.iter().chain(faces).enumerate() {
            if !(pl.normal.is_finite() && (pl.normal.length() - 1.0).abs() < 1e-9 && pl.offset.is_finite()) {
                return fail(format!(
                    "plane {k} needs a unit normal and a finite offset (m), got normal {} offset {}",
                    pl.normal, pl.offset
                ));
            }
        }
        Ok(())
    }

    /// The surfaces a particle at `x` may touch: every plane, and the active face of every
    /// polytope (`Polytope::active`).
    pub fn surfaces(&self, x: DVec3) -> impl Iterator<Item = &Plane> {
        self.planes
            .iter()
            .chain(self.polytopes.iter().filter_map(move |p| p.active(x)))
    }

    /// Number of particles that move.
    pub fn free_particles(&self) -> usize {
        self.fixed.iter().filter(|f| !**f).count()
    }

    /// All forces at positions `x` and velocities `v` (Deguet eq. 8), into `f`.
    pub fn forces(&self, x: &[DVec3], v: &[DVec3], f: &mut Forces) {
        let n = x.len();
        f.conservative.clear();
        f.conservative.resize(n, DVec3::ZERO);
        f.other.clear();
        f.other.resize(n, DVec3::ZERO);
        let g = self.settings.gravity;
        let drag = self.settings.drag;
        for p in 0..n {
            f.conservative[p] = self.mass[p] * g;
            f.other[p] = self.load[p] - drag * self.mass[p] * v[p];
        }
        for (p, c) in self.coupling.iter().enumerate() {
            f.other[p] += *c;
        }
        for c in &self.linear {
            let s = c.force(x, v);
            f.conservative[c.i] += s.elastic;
            f.conservative[c.j] -= s.elastic;
            f.other[c.i] += s.damping;
            f.other[c.j] -= s.damping;
        }
        for c in &self.torsion {
            let s = c.forces(x, v);
            for (p, s) in [c.i, c.j, c.k].into_iter().zip(s) {
                f.conservative[p] += s.elastic;
                f.other[p] += s.damping;
            }
        }
        for c in &self.shear {
            for (p, s) in c.corners.into_iter().zip(c.forces(x, v)) {
                f.conservative[p] += s.elastic;
                f.other[p] += s.damping;
            }
        }
        let penalty = self.settings.law == ContactLaw::Penalty;
        for p in (0..n).filter(|&p| penalty && !self.fixed[p]) {
            for plane in self.surfaces(x[p]) {
                if let Some((elastic, other)) =
                    self.settings.contact.force(plane, x[p], v[p], self.radius[p])
                {
                    f.conservative[p] += elastic;
                    f.other[p] += other;
                }
            }
        }
    }

    /// Kinetic energy Σ ½ m v² of the free particles (J).
    pub fn kinetic_energy(&self, v: &[DVec3]) -> f64 {
        (0..v.len())
            .filter(|&p| !self.fixed[p])
            .map(|p| 0.5 * self.mass[p] * v[p].length_squared())
            .sum()
    }

    /// Potential energy: gravity (−Σ m g·x over free particles), the connectors' elastic energy
    /// and the planes' penalty springs (J).
    pub fn potential_energy(&self, x: &[DVec3]) -> f64 {
        let g = self.settings.gravity;
        let gravity: f64 = (0..x.len())
            .filter(|&p| !self.fixed[p])
            .map(|p| -self.mass[p] * g.dot(x[p]))
            .sum();
        let springs = self.elastic_energy(x);
        let penalty = self.settings.law == ContactLaw::Penalty;
        let contact: f64 = (0..x.len())
            .filter(|&p| penalty && !self.fixed[p])
            .map(|p| {
                self.surfaces(x[p])
                    .map(|pl| self.settings.contact.energy(pl, x[p], self.radius[p]))
                    .sum::<f64>()
            })
            .sum();
        gravity + springs + contact
    }

    /// Elastic energy of the connectors alone (J).
    pub fn elastic_energy(&self, x: &[DVec3]) -> f64 {
        self.linear.iter().map(|c| c.energy(x)).sum::<f64>()
            + self.torsion.iter().map(|c| c.energy(x)).sum::<f64>()
            + self.shear.iter().map(|c| c.energy(x)).sum::<f64>()
    }

    /// Mechanical energy E_m = kinetic + potential of the current state (J).
    pub fn mechanical_energy(&self) -> f64 {
        self.kinetic_energy(&self.v) + self.potential_energy(&self.x)
    }

    /// Total mass of the free particles (kg).
    pub fn free_mass(&self) -> f64 {
        (0..self.x.len())
            .filter(|&p| !self.fixed[p])
            .map(|p| self.mass[p])
            .sum()
    }

    /// Centroid (m) and mean velocity (m/s) of the free particles, mass-weighted (the sums
    /// themselves when no particle is free).
    pub fn free_centroid(&self) -> (DVec3, DVec3) {
        let (mut m, mut x, mut v) = (0.0, DVec3::ZERO, DVec3::ZERO);
        for p in (0..self.x.len()).filter(|&p| !self.fixed[p]) {
            m += self.mass[p];
            x += self.mass[p] * self.x[p];
            v += self.mass[p] * self.v[p];
        }
        if m > 0.0 {
            (x / m, v / m)
        } else {
            (x, v)
        }
    }

    /// Deepest penetration of any free particle into any plane (m; 0 when none).
    pub fn max_penetration(&self) -> f64 {
        let mut deepest: f64 = 0.0;
        for p in (0..self.x.len()).filter(|&p| !self.fixed[p]) {
            for pl in self.surfaces(self.x[p]) {
                deepest = deepest.max(pl.penetration(self.x[p], self.radius[p]));
            }
        }
        deepest
    }

    /// Particles touching a plane.
    pub fn contacts(&self) -> usize {
        let mut n = 0;
        for p in (0..self.x.len()).filter(|&p| !self.fixed[p]) {
            n += self
                .surfaces(self.x[p])
                .filter(|pl| pl.penetration(self.x[p], self.radius[p]) > 0.0)
                .count();
        }
        n
    }

    /// A bound on the highest angular frequency of the network (rad/s), by Gershgorin's theorem
    /// on M⁻¹K: ω_max² ≤ max_p (Σ over p's connectors of their stiffness seen by p) / m_p, with a
    /// linear connector contributing 2λ and a torsion connector 2λ/l_min² per particle (the
    /// row sums of their stiffness blocks), and the plane contact its stiffness.
    pub fn max_frequency(&self) -> f64 {
        let mut row = vec![0.0; self.x.len()];
        for c in &self.linear {
            row[c.i] += 2.0 * c.stiffness;
            row[c.j] += 2.0 * c.stiffness;
        }
        for c in &self.torsion {
            let l1 = (self.x[c.i] - self.x[c.j]).length();
            let l2 = (self.x[c.k] - self.x[c.j]).length();
            let l = l1.min(l2).max(1e-300);
            let k = 4.0 * c.stiffness / (l * l);
            row[c.i] += k;
            row[c.j] += 2.0 * k;
            row[c.k] += k;
        }
        for c in &self.shear {
            // |∂γ/∂x_p| ≤ 1/l_min per corner (¼ of 2/l as the middle of one angle and 1/l as an
            // end of two), so the row sum of λ ∇γ ∇γᵀ is at most 4λ/l_min².
            let l = (0..4)
                .map(|s| (self.x[c.corners[s]] - self.x[c.corners[(s + 1) % 4]]).length())
                .fold(f64::INFINITY, f64::min)
                .max(1e-300);
            for p in c.corners {
                row[p] += 4.0 * c.stiffness / (l * l);
            }
        }
        // One contact spring per plane and polytope a particle may touch at once, and the
        // coupled surfaces' springs.
        // (None under the impulse law: its contacts are impulses, not springs.)
        let surfaces = self.planes.len() + self.polytopes.len();
        let own = match self.settings.law {
            ContactLaw::Penalty => surfaces as f64 * self.settings.contact.stiffness,
            ContactLaw::Impulse { .. } => 0.0,
        };
        let contact = own + self.coupled_stiffness;
        if contact > 0.0 {
            for r in row.iter_mut() {
                *r += contact;
            }
        }
        (0..self.x.len())
            .filter(|&p| !self.fixed[p] && self.mass[p] > 0.0)
            .map(|p| row[p] / self.mass[p])
            .fold(0.0, f64::max)
            .sqrt()
    }
}
