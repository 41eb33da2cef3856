//! Discretisation of a box (a rod and a plate are thin boxes) into particles and connectors, and
//! the identification of their parameters from the material (Deguet, Joukhadar & Laugier 1998,
//! §3.1–3.2; docs/deformable.md "Identification").
//!
//! Particles sit on a grid of `divisions` = [n_x, n_y, n_z] cells of length ℓ_d = L_d/n_d, one
//! particle layer per cell along an axis without a clamp: each particle stands for its cell (the
//! paper's "components": each carries its own part of the mass, ρ ℓ_x ℓ_y ℓ_z). Deguet §3.2 asks
//! that the components keep the object's inertia matrix and centre; so along a free axis the n
//! layers are spread a spacing s = L/√(n² − 1) apart about the centre (not the cell centres'
//! L/n): n equal masses then have the second moment Σ (M/n) x² = M s² (n² − 1)/12 = M L²/12, the
//! solid's, and the lattice (a tensor product, so no products of inertia) has the box's inertia
//! matrix exactly when every free axis has n ≥ 2 layers. A single layer (n = 1) sits at the
//! middle and lacks M L²/12 along that axis. Along the axis of a clamped face the particles sit at
//! the cell vertices j ℓ, j = 0..n, the end ones standing for ℓ/2 (the trapezoid rule, so that
//! the clamped face is itself a layer of particles), with one more fixed layer a cell behind the
//! face that fixes the fibres' slope there. With w_x, w_y, w_z a particle's tributary widths (its
//! share of the box along each axis) and a_d its spacing to the next layer along d:
//!
//! ```text
//!   mass               m = ρ w_x w_y w_z                                        (kg)
//!   linear, along d    λ = E A_f / ℓ_d,        A_f = w_a w_b                     (N/m)
//!   torsion θ₀ = π     λ = E I_f ℓ_d / (w_d a_d)                                 (N·m/rad)
//!   shear (4 corners)  λ = G a_1 a_2 w_n,      G = E / (2 (1 + ν))               (N·m/rad)
//!   damping            μ = τ_d λ                                                 (Kelvin–Voigt)
//! ```
//!
//! with (a, b) the two axes across d. Why: a fibre of cross-section A_f under a uniform strain ε
//! stores ½ E A_f ε² per length; a chain of masses ρ A_f ℓ and springs E A_f/ℓ carries waves at
//! √(E/ρ) (per cell) and stretches as the continuum between its end particles. In bending a
//! cross-section of fibres has I = Σ A_f z_f² + Σ I_f (the parallel-axis theorem). The first sum
//! is carried by the linear connectors of fibres at distance z_f from the neutral axis, and it is
//! already the solid's L_b L_a³/12 across any axis of n ≥ 2 layers (the same second moment as the
//! mass above) — so a fibre's own moment I_f is needed only across a free axis of a single layer,
//! where z_f = 0: I_f = w_a w_b w²/12 with w the smallest single-layer width across the fibre,
//! carried by the straight torsion connectors along it (a discrete elastica: a node's turn φ is
//! the curvature times the fibre length it stands for, w_d a_d/ℓ_d — its tributary width, scaled
//! by the stretch of the layers along d — so that the moment is E I_f times the curvature). A
//! torsion connector keeps an unsigned angle, so it is isotropic: in a rod of one fibre with a
//! flat section, the fibre's moment in the plane of its wide side is short by
//! w_a w_b (w_max² − w_min²)/12; in a one-layer plate the in-plane bending is over-stiffened by
//! I_f, a fraction (t/width)². The shear connectors, one per cell face (its four
//! corners, `connector::Shear`), store ½ λ γ² = ½ G γ² a_1 a_2 w_n under a shear γ in the
//! face's plane: the shear energy of the region between the four particles. (An earlier version
//! used four right-angle torsion connectors per face, one per corner; they also resisted the
//! trapezoid a face takes in bending, a parasitic bending stiffness of (3/8)(G/E)(a_x/a_z)²·EI
//! for two layers: 14% on a 2 × 2 beam, 75% on a two-layer plate.) Pure stretches leave the
//! right angles unchanged and shears leave lengths unchanged to first order, so the three
//! families identify E (axial), EI (bending) and G (shear) independently. ν enters only
//! through G: the lattice has no lateral (Poisson) contraction.
use super::connector::{Linear, Shear, Torsion};
use super::integrate::DeformableError;
use super::world::{BodyInfo, World};
use glam::DVec3;
use std::f64::consts::PI;

/// An elastic material (SI units).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DeformableMaterial {
    /// Young's modulus E (Pa, > 0).
    pub young: f64,
    /// Poisson's ratio ν (in [0, 0.5)); used for the shear modulus G = E/(2(1+ν)) only.
    pub poisson: f64,
    /// Density ρ (kg/m³, > 0).
    pub density: f64,
    /// Kelvin–Voigt retardation time τ_d (s, ≥ 0): every connector's μ = τ_d λ. 0: no damping.
    pub damping: f64,
}

impl Default for DeformableMaterial {
    /// A soft rubber-like solid: E = 1 MPa, ν = 0.3, ρ = 1000 kg/m³, no damping.
    fn default() -> Self {
        DeformableMaterial {
            young: 1e6,
            poisson: 0.3,
            density: 1000.0,
            damping: 0.0,
        }
    }
}

impl DeformableMaterial {
    /// Shear modulus G = E / (2 (1 + ν)) (Pa).
    pub fn shear_modulus(&self) -> f64 {
        self.young / (2.0 * (1.0 + self.poisson))
    }
}

/// A face of the box held fixed (clamped): axis 0, 1, 2 = x, y, z, and which end.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Clamp {
    pub axis: usize,
    /// `true`: the face at +size/2; `false`: the face at −size/2.
    pub positive: bool,
}

/// A box to discretise.
#[derive(Clone, Debug, PartialEq)]
pub struct BoxSpec {
    pub name: String,
    /// Edge lengths along x, y, z (m, > 0).
    pub size: DVec3,
    /// Cells along x, y, z (≥ 1 each).
    pub divisions: [usize; 3],
    /// World position of the box's centre (m); the box is axis-aligned.
    pub position: DVec3,
    /// Initial velocity of every particle (m/s).
    pub velocity: DVec3,
    pub material: DeformableMaterial,
    pub clamp: Option<Clamp>,
    /// Total force on the face opposite the clamp (N), spread over its particles in proportion
    /// to their share of the face's area. Needs a clamp.
    pub tip_load: DVec3,
}

/// One axis of the grid: local coordinates of its particle layers (from −size/2 side), their
/// tributary widths, and which layers are fixed.
struct Axis {
    coords: Vec<f64>,
    widths: Vec<f64>,
    fixed: Vec<bool>,
    /// The layer carrying a tip load (the one opposite the clamp), if clamped.
    tip: Option<usize>,
}

fn axis(size: f64, n: usize, clamp: Option<bool>) -> Axis {
    let a = size / n as f64;
    match clamp {
        None => Axis {
            coords: (0..n).map(|j| (j as f64 - (n as f64 - 1.0) / 2.0) * free_spacing(size, n)).collect(),
            widths: vec![a; n],
            fixed: vec![false; n],
            tip: None,
        },
        Some(positive) => {
            // Layers j = −1 (behind the face), 0 (the face), 1..=n, counted from the clamp.
            let mut coords: Vec<f64> = (-1..=n as i64)
                .map(|j| -size / 2.0 + j as f64 * a)
                .collect();
            let mut widths: Vec<f64> = (-1..=n as i64)
                .map(|j| match j {
                    -1 => 0.0,
                    0 => a / 2.0,
                    j if j == n as i64 => a / 2.0,
                    _ => a,
                })
                .collect();
            let mut fixed: Vec<bool> = (-1..=n as i64).map(|j| j <= 0).collect();
            let mut tip = n + 1;
            if positive {
                coords = coords.iter().rev().map(|c| -c).collect();
                widths.reverse();
                fixed.reverse();
                tip = 0;
            }
            Axis {
                coords,
                widths,
                fixed,
                tip: Some(tip),
            }
        }
    }
}

/// Spacing of the n particle layers along a free (unclamped) axis of length `size`:
/// s = size/√(n² − 1), so that n equal masses M/n at (j − (n − 1)/2) s have the second moment
/// Σ (M/n) x_j² = M s² (n² − 1)/12 = M size²/12, the solid's (eq. of the box's inertia; Deguet
/// §3.2: the components keep the object's inertia matrix). For n = 1 the single layer sits at
/// the middle (spacing unused): its second moment along that axis is 0 where the solid's is
/// M size²/12, which no single point can carry.
fn free_spacing(size: f64, n: usize) -> f64 {
    if n < 2 {
        size
    } else {
        size / ((n * n - 1) as f64).sqrt()
    }
}

/// Check a spec: sizes, divisions and material in range. Returns a message naming the field.
pub fn check(spec: &BoxSpec) -> Result<(), String> {
    let m = &spec.material;
    if !(spec.size.min_element() > 0.0 && spec.size.is_finite()) {
        return Err(format!("size must be three positive lengths (m), got {}", spec.size));
    }
    if spec.divisions.iter().any(|&n| n == 0 || n > 10_000) {
        return Err(format!("divisions must be 1..=10000 each, got {:?}", spec.divisions));
    }
    if spec.divisions.iter().product::<usize>() > 2_000_000 {
        return Err("more than 2,000,000 cells".into());
    }
    if !(m.young > 0.0 && m.young.is_finite()) {
        return Err(format!("material.young must be > 0 Pa, got {}", m.young));
    }
    if !(0.0..0.5).contains(&m.poisson) {
        return Err(format!("material.poisson must be in [0, 0.5), got {}", m.poisson));
    }
    if !(m.density > 0.0 && m.density.is_finite()) {
        return Err(format!("material.density must be > 0 kg/m³, got {}", m.density));
    }
    if !(m.damping >= 0.0 && m.damping.is_finite()) {
        return Err(format!("material.damping must be ≥ 0 s, got {}", m.damping));
    }
    let vectors = [
        ("position", spec.position, "m"),
        ("velocity", spec.velocity, "m/s"),
        ("tip_load", spec.tip_load, "N"),
    ];
    for (name, v, unit) in vectors {
        if !v.is_finite() {
            return Err(format!("{name} must be finite ({unit}), got {v}"));
        }
    }
    if let Some(c) = spec.clamp {
        if c.axis > 2 {
            return Err(format!("clamp.axis must be 0, 1 or 2 (x, y, z), got {}", c.axis));
        }
    }
    if spec.clamp.is_none() && spec.tip_load != DVec3::ZERO {
        return Err("tip_load needs a clamp (it acts on the face opposite the clamped one)".into());
    }
    Ok(())
}

/// Discretise `spec` and append its particles and connectors to `world`. A spec that fails
/// [`check`] is refused with [`DeformableError::Invalid`] naming the field (the world is left
/// unchanged).
pub fn add_box(world: &mut World, spec: &BoxSpec) -> Result<(), DeformableError> {
    check(spec).map_err(|e| DeformableError::Invalid(format!("box `{}`: {e}", spec.name)))?;
    let m = spec.material;
    let g = m.shear_modulus();
    let axes: Vec<Axis> = (0..3)
        .map(|d| {
            let c = spec.clamp.filter(|c| c.axis == d).map(|c| c.positive);
            axis(spec.size[d], spec.divisions[d], c)
        })
        .collect();
    let counts = [axes[0].coords.len(), axes[1].coords.len(), axes[2].coords.len()];
    let base = world.x.len();
    let id = |c: [usize; 3]| base + c[0] + counts[0] * (c[1] + counts[1] * c[2]);
    // Contact radius: how far inside the surface the outer layer of a free axis sits,
    // (size − (n − 1) s)/2 (size/2 for a single layer); the smallest over the free axes.
    let free = |d: usize| spec.clamp.is_none_or(|c| c.axis != d);
    let radius = (0..3)
        .filter(|&d| free(d))
        .map(|d| {
            let n = spec.divisions[d];
            let span = if n < 2 { 0.0 } else { (n - 1) as f64 * free_spacing(spec.size[d], n) };
            (spec.size[d] - span) / 2.0
        })
        .fold(f64::INFINITY, f64::min);
    // The cell length along each axis, L_d / n_d: the fibre length a linear connector and a
    // torsion connector's turn stand for (see the module docs).
    let cell = DVec3::new(
        spec.size.x / spec.divisions[0] as f64,
        spec.size.y / spec.divisions[1] as f64,
        spec.size.z / spec.divisions[2] as f64,
    );
    // A fibre's own second moment is needed only across a free axis of a single layer: along
    // any other axis the layers' Σ A_f z_f² is already the solid's (free axes: free_spacing;
    // the clamped axis: its vertices, by the trapezoid rule, slightly above).
    let single_layer = |d: usize| free(d) && spec.divisions[d] == 1;
    let radius = if radius.is_finite() { radius } else { 0.0 };
    let tip_area: f64 = match spec.clamp {
        Some(c) => {
            let (a, b) = ((c.axis + 1) % 3, (c.axis + 2) % 3);
            axes[a].widths.iter().sum::<f64>() * axes[b].widths.iter().sum::<f64>()
        }
        None => 1.0,
    };
    for iz in 0..counts[2] {
        for iy in 0..counts[1] {
            for ix in 0..counts[0] {
                let c = [ix, iy, iz];
                let w = DVec3::new(axes[0].widths[ix], axes[1].widths[iy], axes[2].widths[iz]);
                let local = DVec3::new(axes[0].coords[ix], axes[1].coords[iy], axes[2].coords[iz]);
                let fixed = (0..3).any(|d| axes[d].fixed[c[d]]);
                let mut load = DVec3::ZERO;
                if let Some(cl) = spec.clamp {
                    if axes[cl.axis].tip == Some(c[cl.axis]) {
                        let (a, b) = ((cl.axis + 1) % 3, (cl.axis + 2) % 3);
                        load = spec.tip_load * (w[a] * w[b] / tip_area);
                    }
                }
                world.push_particle(
                    spec.position + local,
                    if fixed { DVec3::ZERO } else { spec.velocity },
                    m.density * w.x * w.y * w.z,
                    fixed,
                    radius,
                    load,
                );
                let _ = id(c);
            }
        }
    }
    let widths = |c: [usize; 3]| {
        DVec3::new(axes[0].widths[c[0]], axes[1].widths[c[1]], axes[2].widths[c[2]])
    };
    let fixed = |p: usize| world_fixed(&axes, counts, p - base);
    // Linear and straight torsion connectors along each axis d.
    for d in 0..3 {
        let (a, b) = ((d + 1) % 3, (d + 2) % 3);
        for iz in 0..counts[2] {
            for iy in 0..counts[1] {
                for ix in 0..counts[0] {
                    let c = [ix, iy, iz];
                    if c[d] + 1 >= counts[d] {
                        continue;
                    }
                    let w = widths(c);
                    let mut next = c;
                    next[d] += 1;
                    let (p, q) = (id(c), id(next));
                    let spacing = axes[d].coords[next[d]] - axes[d].coords[c[d]];
                    let spacing = spacing.abs();
                    if !(fixed(p) && fixed(q)) {
                        let k = m.young * w[a] * w[b] / cell[d];
                        world.linear.push(Linear {
                            i: p,
                            j: q,
                            rest: spacing,
                            stiffness: k,
                            damping: m.damping * k,
                        });
                    }
                    if c[d] == 0 {
                        continue;
                    }
                    // Straight torsion at c with neighbours c − e_d and c + e_d.
                    let mut prev = c;
                    prev[d] -= 1;
                    let o = id(prev);
                    if fixed(o) && fixed(p) && fixed(q) {
                        continue;
                    }
                    let own = [a, b]
                        .into_iter()
                        .filter(|&e| single_layer(e))
                        .map(|e| w[e])
                        .fold(f64::INFINITY, f64::min);
                    if !own.is_finite() {
                        continue; // no fibre moment missing across this fibre
                    }
                    let i_f = w[a] * w[b] * own * own / 12.0;
                    let k = m.young * i_f * cell[d] / (w[d] * spacing);
                    world.torsion.push(Torsion {
                        i: o,
                        j: p,
                        k: q,
                        rest: PI,
                        stiffness: k,
                        damping: m.damping * k,
                    });
                }
            }
        }
    }
    // Shear connectors: one per cell face in each plane (d1, d2).
    for (d1, d2) in [(0, 1), (1, 2), (2, 0)] {
        let n = 3 - d1 - d2;
        for iz in 0..counts[2] {
            for iy in 0..counts[1] {
                for ix in 0..counts[0] {
                    let c = [ix, iy, iz];
                    if c[d1] + 1 >= counts[d1] || c[d2] + 1 >= counts[d2] {
                        continue;
                    }
                    let mut c1 = c;
                    c1[d1] += 1;
                    let mut c2 = c;
                    c2[d2] += 1;
                    let mut c12 = c1;
                    c12[d2] += 1;
                    let a1 = (axes[d1].coords[c1[d1]] - axes[d1].coords[c[d1]]).abs();
                    let a2 = (axes[d2].coords[c2[d2]] - axes[d2].coords[c[d2]]).abs();
                    let k = g * a1 * a2 * widths(c)[n];
                    let corners = [id(c), id(c1), id(c12), id(c2)];
                    if corners.iter().all(|&p| fixed(p)) {
                        continue;
                    }
                    world.shear.push(Shear {
                        corners,
                        stiffness: k,
                        damping: m.damping * k,
                    });
                }
            }
        }
    }
    world.bodies.push(BodyInfo {
        name: spec.name.clone(),
        first: base,
        count: world.x.len() - base,
        counts,
        material: m,
    });
    Ok(())
}

fn world_fixed(axes: &[Axis], counts: [usize; 3], local: usize) -> bool {
    let c = [
        local % counts[0],
        (local / counts[0]) % counts[1],
        local / (counts[0] * counts[1]),
    ];
    (0..3).any(|d| axes[d].fixed[c[d]])
}
