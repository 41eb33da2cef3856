//! The validation of deformable bodies as an experiment (issue 19 item 2; docs/deformable.md
//! "Validation"): a cantilever beam's tip deflection against Euler–Bernoulli, the longitudinal
//! wave speed of a rod against √(E/ρ), and the energy drift of a free box with damping off.
//! Pure functions of their arguments; the CLI's `signorini experiment deformable` prints and
//! writes them, the tests `tests/deformable_*.rs` assert the same set-ups.
use crate::deformable::{
    add_box, BoxSpec, Clamp, DeformableError, DeformableIntegrator, DeformableMaterial, Integrator,
    World, WorldSettings,
};
use glam::DVec3;
use std::f64::consts::PI;

fn weightless(drag: f64) -> World {
    World::new(WorldSettings {
        gravity: DVec3::ZERO,
        drag,
        ..WorldSettings::default()
    })
}

fn spec(size: DVec3, divisions: [usize; 3], material: DeformableMaterial) -> BoxSpec {
    BoxSpec {
        name: "experiment".into(),
        size,
        divisions,
        position: DVec3::ZERO,
        velocity: DVec3::ZERO,
        material,
        clamp: None,
        tip_load: DVec3::ZERO,
    }
}

/// A cantilever's static tip deflection against beam theory.
#[derive(Clone, Debug, PartialEq)]
pub struct Beam {
    pub divisions: [usize; 3],
    /// Mean downward displacement of the tip face (m).
    pub deflection: f64,
    /// P L³/(3 E I) (m).
    pub euler_bernoulli: f64,
    /// Euler–Bernoulli plus shear P L/(κ G A), κ = 5/6 (m).
    pub timoshenko: f64,
    /// Largest particle speed when the relaxation stopped (m/s).
    pub residual_speed: f64,
}

/// The beam 1 m × 0.1 m × 0.1 m (E = 1 MPa, ν = 0.3, ρ = 1000 kg/m³) clamped at x = −L/2, a tip
/// load giving 1 mm by Euler–Bernoulli; static deflection by dynamic relaxation (drag 2ω₁,
/// 40/ω₁ s of Verlet steps at 0.5/ω_max).
pub fn beam(divisions: [usize; 3]) -> Result<Beam, DeformableError> {
    let m = DeformableMaterial {
        young: 1e6,
        poisson: 0.3,
        density: 1000.0,
        damping: 0.0,
    };
    let size = DVec3::new(1.0, 0.1, 0.1);
    let i = size.y * size.z.powi(3) / 12.0;
    let load = 3.0 * m.young * i * 1e-3 / size.x.powi(3);
    let omega1 = 1.875_f64.powi(2) * (m.young * i / (m.density * size.y * size.z)).sqrt();
    let mut w = weightless(2.0 * omega1);
    let mut s = spec(size, divisions, m);
    s.clamp = Some(Clamp {
        axis: 0,
        positive: false,
    });
    s.tip_load = DVec3::new(0.0, 0.0, -load);
    add_box(&mut w, &s)?;
    let rest = w.x.clone();
    let tip: Vec<usize> = (0..w.x.len())
        .filter(|&p| (w.x[p].x - size.x / 2.0).abs() < 1e-12)
        .collect();
    let h = 0.5 / w.max_frequency();
    let steps = (40.0 / omega1 / h).ceil() as usize;
    let mut it = Integrator::default();
    for _ in 0..steps {
        it.step(&mut w, DeformableIntegrator::Verlet, h, false)?;
    }
    let deflection =
        -tip.iter().map(|&p| w.x[p].z - rest[p].z).sum::<f64>() / tip.len().max(1) as f64;
    let euler_bernoulli = load * size.x.powi(3) / (3.0 * m.young * i);
    let shear = load * size.x / (5.0 / 6.0 * m.shear_modulus() * size.y * size.z);
    Ok(Beam {
        divisions,
        deflection,
        euler_bernoulli,
        timoshenko: euler_bernoulli + shear,
        residual_speed: w.v.iter().map(|v| v.length()).fold(0.0, f64::max),
    })
}

/// A rod's longitudinal wave speed.
#[derive(Clone, Debug, PartialEq)]
pub struct Wave {
    pub cells: usize,
    /// Particles across the section (each way).
    pub section: usize,
    /// ω₁ L/π from the timed first axial mode (m/s).
    pub measured: f64,
    /// √(E/ρ) (m/s).
    pub continuum: f64,
    /// The chain's own speed c sin(π/2n)/(π/2n) (m/s).
    pub chain: f64,
}

/// A free rod 1 m × 0.05 m × 0.05 m (E = 1 MPa, ρ = 1000 kg/m³) of `cells` cells along x, set
/// moving in its first axial mode (1 mm/s) and timed by the zero crossings of its end's velocity
/// over 0.5 s of Verlet steps of 10 µs.
pub fn wave(cells: usize, section: usize) -> Result<Wave, DeformableError> {
    let (length, width) = (1.0, 0.05);
    let m = DeformableMaterial {
        young: 1e6,
        poisson: 0.3,
        density: 1000.0,
        damping: 0.0,
    };
    let mut w = weightless(0.0);
    add_box(
        &mut w,
        &spec(DVec3::new(length, width, width), [cells, section, section], m),
    )?;
    for p in 0..w.x.len() {
        // The chain's first mode at layer i (particles numbered x fastest): cos(π (i + ½)/n).
        let xi = ((p % cells) as f64 + 0.5) / cells as f64;
        w.v[p] = DVec3::new(1e-3 * (PI * xi).cos(), 0.0, 0.0);
    }
    let end = (0..w.x.len())
        .max_by(|&a, &b| w.x[a].x.total_cmp(&w.x[b].x))
        .unwrap_or(0);
    let h = 1e-5;
    let mut it = Integrator::default();
    let mut crossings = Vec::new();
    let mut previous = w.v[end].x;
    for k in 1..=50_000 {
        it.step(&mut w, DeformableIntegrator::Verlet, h, false)?;
        let now = w.v[end].x;
        if previous != 0.0 && previous.signum() != now.signum() {
            crossings.push((k as f64 - 1.0 + previous / (previous - now)) * h);
        }
        previous = now;
    }
    if crossings.len() < 2 {
        return Err(DeformableError::Invalid(
            "the rod did not oscillate in 0.5 s".into(),
        ));
    }
    let period = 2.0 * (crossings[crossings.len() - 1] - crossings[0]) / (crossings.len() - 1) as f64;
    let c = (m.young / m.density).sqrt();
    let x = PI / (2.0 * cells as f64);
    Ok(Wave {
        cells,
        section,
        measured: 2.0 * PI / period * length / PI,
        continuum: c,
        chain: c * x.sin() / x,
    })
}

/// The energy of a free box with damping off under one scheme.
#[derive(Clone, Debug, PartialEq)]
pub struct Energy {
    pub scheme: DeformableIntegrator,
    /// τ (s).
    pub step: f64,
    /// s.
    pub duration: f64,
    /// max |E(t) − E₀|/E₀ sampled every 10 steps.
    pub max_drift: f64,
    /// E(T)/E₀.
    pub end_ratio: f64,
}

/// The box of `tests/deformable_integrate.rs`: 4 × 2 × 2 cells of 0.1 m (E = 100 kPa,
/// ρ = 1000 kg/m³, no damping, no gravity) set moving by a smooth 1 mm/s velocity field, run for
/// `duration` at `step`.
pub fn energy(
    scheme: DeformableIntegrator,
    step: f64,
    duration: f64,
) -> Result<Energy, DeformableError> {
    let mut w = weightless(0.0);
    let m = DeformableMaterial {
        young: 1e5,
        poisson: 0.3,
        density: 1000.0,
        damping: 0.0,
    };
    add_box(&mut w, &spec(DVec3::new(0.4, 0.2, 0.2), [4, 2, 2], m))?;
    for p in 0..w.x.len() {
        let x = w.x[p];
        let xi = (x.x + 0.2) / 0.4;
        w.v[p] = 1e-3
            * DVec3::new(
                (PI * xi).cos(),
                0.5 * (PI * xi).sin() - 3.0 * x.z,
                (PI * xi).sin() + 3.0 * x.y * (2.0 * xi - 1.0),
            );
    }
    let e0 = w.mechanical_energy();
    let steps = (duration / step).round() as usize;
    let mut it = Integrator::default();
    let mut worst: f64 = 0.0;
    for k in 1..=steps {
        it.step(&mut w, scheme, step, false)?;
        if k % 10 == 0 || k == steps {
            worst = worst.max((w.mechanical_energy() - e0).abs() / e0);
        }
    }
    Ok(Energy {
        scheme,
        step,
        duration,
        max_drift: worst,
        end_ratio: w.mechanical_energy() / e0,
    })
}
