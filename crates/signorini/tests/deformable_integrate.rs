//! Time integration of a deformable world (`deformable::integrate`): the energy balance with
//! damping off, scheme by scheme, against the exact behaviour of each scheme on the body's
//! linearised normal modes.
//!
//! The body is a free box of 4 × 2 × 2 cubic cells (0.1 m; E = 100 kPa, ρ = 1000 kg/m³, no
//! damping, no gravity), set moving by a smooth velocity field of amplitude 1 mm/s (strains
//! ~1e-4, so the network is linear to ~1e-4 in its energy). Its normal modes come from the
//! stiffness matrix K (central differences of the connectors' forces at rest) and the masses M:
//! ω_k² are the eigenvalues of M^{-1/2} K M^{-1/2}. On a mode of frequency ω each scheme is a
//! linear map of (ω x, v) with step s = ω τ:
//!
//! ```text
//!   verlet            [[1 − s²/2, s], [−s (1 − s²/4), 1 − s²/2]]   det 1
//!   symplectic Euler  [[1 − s², s], [−s, 1]]                        det 1
//!   taylor (eqs 10–11)[[1 − s²/2, s], [−s, 1]]                      det 1 + s²/2
//! ```
//!
//! A 2 × 2 map B with |tr B| < 2 √det B keeps the quadratic form Q of B/√det invariant, so the
//! mode's energy after n steps lies in E_k(0) detⁿ [1/κ, κ], κ = λ_max(Q)/λ_min(Q) (Q has the
//! eigenvalues 1 ± s/4 for Taylor, 1 ± s/2 for symplectic Euler, 1 − s²/4 and 1 for Verlet).
//! Summing over the modes bounds the body's energy at every step; `modal_bounds` computes it.
use nalgebra::{DMatrix, DVector, SymmetricEigen};
use signorini::deformable::{
    add_box, AdaptiveDeformable, BoxSpec, DeformableIntegrator, DeformableMaterial, Forces,
    Integrator, World, WorldSettings,
};
use signorini::dynamics::AdaptiveSettings;
use signorini::DVec3;
use std::f64::consts::PI;

/// Amplitude of the initial velocity field (m/s).
const V0: f64 = 1e-3;

fn body() -> World {
    let mut w = World::new(WorldSettings {
        gravity: DVec3::ZERO,
        ..WorldSettings::default()
    });
    let spec = BoxSpec {
        name: "box".into(),
        size: DVec3::new(0.4, 0.2, 0.2),
        divisions: [4, 2, 2],
        position: DVec3::ZERO,
        velocity: DVec3::ZERO,
        material: DeformableMaterial {
            young: 1e5,
            poisson: 0.3,
            density: 1000.0,
            damping: 0.0,
        },
        clamp: None,
        tip_load: DVec3::ZERO,
    };
    add_box(&mut w, &spec).unwrap();
    // A smooth field: axial, bending and twisting parts (and some rigid motion).
    for p in 0..w.x.len() {
        let x = w.x[p];
        let xi = (x.x + 0.2) / 0.4;
        w.v[p] = V0
            * DVec3::new(
                (PI * xi).cos(),
                0.5 * (PI * xi).sin() - 3.0 * x.z,
                (PI * xi).sin() + 3.0 * x.y * (2.0 * xi - 1.0),
            );
    }
    w
}

/// ω_k (rad/s) and the initial modal energies E_k (J) of the linearised network about its rest
/// positions (all particles free, the state at rest positions with velocities `w.v`).
fn modes(w: &World) -> (Vec<f64>, Vec<f64>) {
    let n = w.x.len();
    let mut f = Forces::default();
    let mut k = DMatrix::<f64>::zeros(3 * n, 3 * n);
    let eps = 1e-7; // m: round-off of the forces ~1e-16 λ l is far below λ ε
    let zero = vec![DVec3::ZERO; n];
    for p in 0..n {
        for d in 0..3 {
            let mut x = w.x.clone();
            x[p][d] += eps;
            w.forces(&x, &zero, &mut f);
            let plus = f.conservative.clone();
            x[p][d] -= 2.0 * eps;
            w.forces(&x, &zero, &mut f);
            for q in 0..n {
                for e in 0..3 {
                    k[(3 * q + e, 3 * p + d)] = -(plus[q][e] - f.conservative[q][e]) / (2.0 * eps);
                }
            }
        }
    }
    let k = 0.5 * (&k + k.transpose());
    let s = DVector::from_iterator(3 * n, (0..3 * n).map(|i| 1.0 / w.mass[i / 3].sqrt()));
    let a = DMatrix::from_fn(3 * n, 3 * n, |i, j| s[i] * k[(i, j)] * s[j]);
    let eig = SymmetricEigen::new(a);
    let u = DVector::from_iterator(
        3 * n,
        (0..3 * n).map(|i| w.mass[i / 3].sqrt() * w.v[i / 3][i % 3]),
    );
    let q = eig.eigenvectors.transpose() * u;
    let omega = eig.eigenvalues.iter().map(|l| l.max(0.0).sqrt()).collect();
    let energy = q.iter().map(|q| 0.5 * q * q).collect();
    (omega, energy)
}

/// The scheme's map of (ω x, v) over one step s = ω τ.
fn step_matrix(scheme: DeformableIntegrator, s: f64) -> [[f64; 2]; 2] {
    match scheme {
        DeformableIntegrator::Verlet => [
            [1.0 - s * s / 2.0, s],
            [-s * (1.0 - s * s / 4.0), 1.0 - s * s / 2.0],
        ],
        DeformableIntegrator::SymplecticEuler => [[1.0 - s * s, s], [-s, 1.0]],
        DeformableIntegrator::Taylor => [[1.0 - s * s / 2.0, s], [-s, 1.0]],
    }
}

/// (det B, κ) of the scheme at s: the per-step energy factor and the spread of the invariant
/// quadratic form of B/√det (for a = B/√det = [[a, b], [c, e]] with det 1, Q ∝ [[−c, (a−e)/2],
/// [(a−e)/2, b]]).
fn growth_and_spread(scheme: DeformableIntegrator, s: f64) -> (f64, f64) {
    if s < 1e-12 {
        return (1.0, 1.0); // a rigid mode: every scheme is exact at constant velocity
    }
    let b = step_matrix(scheme, s);
    let det = b[0][0] * b[1][1] - b[0][1] * b[1][0];
    let r = det.sqrt();
    let (a, bb, c, e) = (b[0][0] / r, b[0][1] / r, b[1][0] / r, b[1][1] / r);
    let (p, q, m) = (-c, bb, (a - e) / 2.0);
    let mean = (p + q) / 2.0;
    let rad = (((p - q) / 2.0).powi(2) + m * m).sqrt();
    (det, (mean + rad) / (mean - rad))
}

/// Bounds on the body's energy after `n` steps of `tau` (J): Σ_k E_k detⁿ [1/κ, κ].
fn modal_bounds(
    omega: &[f64],
    energy: &[f64],
    scheme: DeformableIntegrator,
    tau: f64,
    n: f64,
) -> (f64, f64) {
    let (mut lo, mut hi) = (0.0, 0.0);
    for (&w, &e) in omega.iter().zip(energy) {
        let (det, kappa) = growth_and_spread(scheme, w * tau);
        let g = det.powf(n);
        lo += e * g / kappa;
        hi += e * g * kappa;
    }
    (lo, hi)
}

/// Run `steps` fixed steps; returns (largest |E − E₀|/E₀ sampled every `every` steps, E_end/E₀).
fn run(
    w: &mut World,
    scheme: DeformableIntegrator,
    tau: f64,
    steps: usize,
    every: usize,
) -> (f64, f64) {
    let e0 = w.mechanical_energy();
    let mut it = Integrator::default();
    let mut worst: f64 = 0.0;
    for k in 1..=steps {
        it.step(w, scheme, tau, false).unwrap();
        if k % every == 0 || k == steps {
            worst = worst.max((w.mechanical_energy() - e0).abs() / e0);
        }
    }
    (worst, w.mechanical_energy() / e0)
}

/// The step of the energy tests (s) and their duration (s).
const TAU: f64 = 1e-5;
const DURATION: f64 = 10.0;

#[test]
fn modes_of_the_box_are_those_of_a_free_body() {
    let w = body();
    let (omega, energy) = modes(&w);
    let mut sorted = omega.clone();
    sorted.sort_by(f64::total_cmp);
    // Six rigid modes (three translations, three rotations) at ω ≈ 0, the rest positive: the
    // finite-difference stiffness is only accurate to ~ε relative, hence 1e-3 of the fundamental.
    assert!(sorted[5] < 1e-3 * sorted[6], "{sorted:?}");
    let total: f64 = energy.iter().sum();
    assert!(
        (total - w.mechanical_energy()).abs() <= 1e-9 * total,
        "{total} vs {}",
        w.mechanical_energy()
    );
    println!(
        "ω (rad/s): lowest elastic {:.3}, highest {:.3}; Gershgorin bound {:.3}",
        sorted[6],
        sorted[sorted.len() - 1],
        w.max_frequency()
    );
    assert!(sorted[sorted.len() - 1] <= w.max_frequency() * (1.0 + 1e-6));
}

/// Issue 19's target: no energy gain with damping off, relative drift ≤ 1e-6 over 10 s. Verlet
/// at τ = 10 µs on the box: the modal bound (Verlet's energy oscillates within a factor
/// 1/(1 − s²/4) of its invariant, mode by mode) is computed and asserted to be below 1e-6 too,
/// so the tolerance is the issue's and the bound explains why it holds.
#[test]
fn verlet_keeps_the_energy_within_1e_6_over_10_s() {
    let mut w = body();
    let (omega, energy) = modes(&w);
    let e0 = w.mechanical_energy();
    let steps = (DURATION / TAU).round() as usize;
    let (lo, hi) = modal_bounds(
        &omega,
        &energy,
        DeformableIntegrator::Verlet,
        TAU,
        steps as f64,
    );
    let bound = (hi / e0 - 1.0).max(1.0 - lo / e0);
    let (worst, end) = run(&mut w, DeformableIntegrator::Verlet, TAU, steps, 10);
    println!("verlet τ = {TAU:e} s, {steps} steps: max |ΔE|/E₀ = {worst:.3e}, E(10 s)/E₀ − 1 = {:.3e}, modal bound {bound:.3e}", end - 1.0);
    assert!(
        bound <= 1e-6,
        "the chosen step cannot meet the target: bound {bound:e}"
    );
    // Nonlinearity (strains ~1e-4) can shift the linear bound by ~1e-4 of itself; round-off
    // adds ~1e-13. Both far below the margin 1.01 × bound + 1e-12.
    assert!(
        worst <= 1.01 * bound + 1e-12,
        "max drift {worst:e} above the modal bound {bound:e}"
    );
    assert!(worst <= 1e-6, "max drift {worst:e}");
}

/// Symplectic Euler at the same step: bounded (no drift), but first order in s, so its energy
/// oscillates within the modal bound (κ = (1 + s/2)/(1 − s/2) per mode), well above 1e-6.
#[test]
fn symplectic_euler_energy_stays_within_its_modal_bound() {
    let mut w = body();
    let (omega, energy) = modes(&w);
    let e0 = w.mechanical_energy();
    let steps = (DURATION / TAU).round() as usize;
    let (lo, hi) = modal_bounds(
        &omega,
        &energy,
        DeformableIntegrator::SymplecticEuler,
        TAU,
        steps as f64,
    );
    let bound = (hi / e0 - 1.0).max(1.0 - lo / e0);
    let (worst, end) = run(
        &mut w,
        DeformableIntegrator::SymplecticEuler,
        TAU,
        steps,
        10,
    );
    println!("symplectic Euler τ = {TAU:e} s: max |ΔE|/E₀ = {worst:.3e}, E(10 s)/E₀ − 1 = {:.3e}, modal bound {bound:.3e}", end - 1.0);
    assert!(
        worst <= 1.01 * bound + 1e-12,
        "max drift {worst:e} above the modal bound {bound:e}"
    );
}

/// Deguet's Taylor scheme (eqs. 10–11) at the same step gains energy: each mode's energy grows
/// by det = 1 + ω²τ²/2 per step. Asserted: E(10 s) lies in the modal prediction
/// Σ E_k (1 + ω_k²τ²/2)ⁿ [1/κ_k, κ_k], which excludes E₀ (the scheme is not conservative).
/// Tolerance: the amplitudes grow with the energy (here by less than 10×), so the strains stay
/// below ~1e-3 and the linear prediction holds to ~1e-3 relative; the assertion allows 1e-2.
#[test]
fn taylor_gains_energy_as_predicted_per_mode() {
    let mut w = body();
    let (omega, energy) = modes(&w);
    let e0 = w.mechanical_energy();
    let steps = (DURATION / TAU).round() as usize;
    let (lo, hi) = modal_bounds(
        &omega,
        &energy,
        DeformableIntegrator::Taylor,
        TAU,
        steps as f64,
    );
    let (_, end) = run(&mut w, DeformableIntegrator::Taylor, TAU, steps, 1000);
    println!(
        "taylor τ = {TAU:e} s: E(10 s)/E₀ = {end:.6}, predicted [{:.6}, {:.6}]",
        lo / e0,
        hi / e0
    );
    assert!(
        lo / e0 > 1.0 + 1e-3,
        "the prediction should exclude conservation"
    );
    assert!(
        end * e0 >= lo * (1.0 - 1e-2) && end * e0 <= hi * (1.0 + 1e-2),
        "E(10 s)/E₀ = {end}"
    );
}

/// Deguet's adaptive step (§4.2) on the Taylor scheme: every accepted step keeps the energy
/// balance error within ε_e, so |E(T) − E(0)| ≤ (accepted steps) × ε_e with no work done (no
/// damping, no loads) — a consequence of the rule, asserted exactly; and the run lands on T.
#[test]
fn adaptive_taylor_bounds_the_energy_error_per_step() {
    let mut w = body();
    let e0 = w.mechanical_energy();
    let tol = 1e-7 * e0;
    let settings = AdaptiveSettings {
        energy_tolerance: tol,
        min_time_step: 1e-7,
        max_time_step: 1e-3,
    };
    let mut a = AdaptiveDeformable::new(settings, DeformableIntegrator::Taylor, 1e-4).unwrap();
    let duration = 1.0;
    while w.time < duration {
        let remaining = duration - w.time;
        let s = a.step(&mut w, remaining).unwrap();
        assert_eq!(s.work, 0.0);
    }
    let st = &a.stats;
    let drift = (w.mechanical_energy() - e0).abs();
    println!("adaptive taylor ε_e = {tol:.3e} J: {} accepted, {} rejected, {} forced, mean step {:.3e} s, |ΔE|/E₀ = {:.3e}", st.accepted, st.rejected, st.forced, st.mean(), drift / e0);
    assert_eq!(st.forced, 0);
    assert!(st.max_error <= tol);
    assert!(drift <= st.accepted as f64 * tol);
    assert!((w.time - duration).abs() <= 1e-12);
}
