//! Particle–plane penalty contact of a deformable body (`deformable::contact`): a block dropped
//! on the ground comes to rest on it, every non-conservative force only dissipates, and at rest
//! the contact springs carry the weight exactly.
use signorini::deformable::{
    add_box, BoxSpec, DeformableIntegrator, DeformableMaterial, Integrator, Plane, PlaneContact,
    World, WorldSettings,
};
use signorini::DVec3;

const G: f64 = 9.81;
/// Contact stiffness per particle (N/m).
const LAMBDA: f64 = 1e5;
/// Drop: gap between the block's bottom face and the ground (m).
const GAP: f64 = 0.05;

/// A 0.1 m cube of 3 × 3 × 3 cells (E = 100 kPa, ρ = 1000 kg/m³, τ_d = 2 ms: the fundamental's
/// damping ratio τ_d ω/2 ≈ 0.1–0.3) sliding at 0.2 m/s, its bottom GAP above the ground. Contact:
/// Deguet's eq. 5 μ = (3/2) α λ with α = (1 − e)/v_i, e = 0.5 at the impact speed v_i = √(2 g GAP);
/// friction 0.5.
fn drop_scene() -> World {
    let v_impact = (2.0 * G * GAP).sqrt();
    let mut w = World::new(WorldSettings {
        gravity: DVec3::new(0.0, 0.0, -G),
        drag: 0.0,
        contact: PlaneContact {
            stiffness: LAMBDA,
            damping: 1.5 * (1.0 - 0.5) / v_impact * LAMBDA,
            friction: 0.5,
            slip_speed: 1e-3,
        },
        ..WorldSettings::default()
    });
    w.planes.push(Plane::ground(0.0));
    let spec = BoxSpec {
        name: "block".into(),
        size: DVec3::splat(0.1),
        divisions: [3, 3, 3],
        position: DVec3::new(0.0, 0.0, 0.05 + GAP),
        velocity: DVec3::new(0.2, 0.0, 0.0),
        material: DeformableMaterial {
            young: 1e5,
            poisson: 0.3,
            density: 1000.0,
            damping: 2e-3,
        },
        clamp: None,
        tip_load: DVec3::ZERO,
    };
    add_box(&mut w, &spec).unwrap();
    w
}

/// Issue 19 (d): the block falls, slides, comes to rest on the plane.
/// - Energy decreases: the power of every non-conservative force here (connector damping
///   −μ l̇², Hunt–Crossley −μ δ δ̇², clipped or not, friction −μ_f F_n |v_t|²/√(|v_t|²+v_s²)) is
///   ≤ 0, so each step's work (trapezoid rule on the power) is ≤ 0, asserted exactly; and the
///   energy balance E_m(T) − E_m(0) = W holds to 1e-3 of the energy dissipated (Verlet's error
///   at ω_max τ ≈ 0.03 is ~(ω τ)²/4 of the energy in the stiffest modes).
/// - At rest (speeds ≤ 1e-4 m/s after 2 s: the slowest mode, the block's compression on its
///   own stiffness, decays at ζ ω ≈ 30/s): the normal contact forces balance the weight,
///   Σ λ δ_p = M g to 1e-3 (the residual damping and inertia forces are ≤ μ δ v ≈ 1e-4 N), so no
///   particle is deeper than M g/λ (every δ_p ≥ 0 and they sum to M g/λ).
/// - During the impact no particle passes through (δ < its contact radius a/2).
/// What a drop at step `h` ends with.
struct Drop {
    e0: f64,
    e1: f64,
    balance: f64,
    speed: f64,
    contacts: usize,
    support: f64,
    resting_depth: f64,
    deepest: f64,
    com: DVec3,
}

fn drop(h: f64) -> Drop {
    let mut w = drop_scene();
    let mass = w.free_mass();
    let e0 = w.mechanical_energy();
    let steps = (2.0 / h).round() as usize;
    let mut it = Integrator::default();
    let (mut work, mut deepest) = (0.0, 0.0_f64);
    for _ in 0..steps {
        let dw = it
            .step(&mut w, DeformableIntegrator::Verlet, h, true)
            .unwrap();
        assert!(
            dw <= 0.0,
            "a step gained {dw} J from dissipative forces at t = {}",
            w.time
        );
        work += dw;
        deepest = deepest.max(w.max_penetration());
    }
    let e1 = w.mechanical_energy();
    let support: f64 = (0..w.x.len())
        .map(|p| LAMBDA * w.planes[0].penetration(w.x[p], w.radius[p]).max(0.0))
        .sum();
    let d = Drop {
        e0,
        e1,
        balance: (e1 - e0 - work).abs(),
        speed: w.v.iter().map(|v| v.length()).fold(0.0, f64::max),
        contacts: w.contacts(),
        support: support / (mass * G),
        resting_depth: w.max_penetration(),
        deepest,
        com: w.x.iter().zip(&w.mass).map(|(x, m)| *x * *m).sum::<DVec3>() / mass,
    };
    println!("drop τ = {h:e} s (ω_max τ ≤ {:.3}): E_m {e0:.6} → {e1:.6} J, work {work:.6} J, balance error {:.2e} J; max speed {:.2e} m/s; contacts {}; Σλδ/(Mg) = {:.6}; deepest at rest {:.3e} m (bound Mg/λ = {:.3e} m), during the run {deepest:.3e} m; centre of mass {:.5?}", w.max_frequency() * h, d.balance, d.speed, d.contacts, d.support, d.resting_depth, mass * G / LAMBDA, d.com);
    d
}

/// Issue 19 (d): the block falls, slides, comes to rest on the plane.
/// - Energy decreases: the power of every non-conservative force here (connector damping
///   −μ l̇², Hunt–Crossley −μ δ δ̇², clipped or not, friction −μ_f F_n |v_t|²/√(|v_t|²+v_s²)) is
///   ≤ 0, so each step's work (trapezoid rule on the power) is ≤ 0, asserted exactly at every
///   step; and the energy balance E_m(T) − E_m(0) = W closes with an error of second order in τ
///   (Verlet and the trapezoid rule are both second order: halving τ must divide it by ≥ 3),
///   below 1e-3 of the energy dissipated at τ = 5 µs.
/// - At rest (speeds ≤ 1e-4 m/s after 2 s: the slowest mode, the block's compression on its
///   own stiffness, decays at ζ ω ≈ 30/s): the normal contact forces balance the weight,
///   Σ λ δ_p = M g to 1e-3 (the residual damping and inertia forces are ≤ μ δ v ≈ 1e-4 N), so no
///   particle is deeper than M g/λ (every δ_p ≥ 0 and they sum to M g/λ).
/// - During the impact no particle passes through (δ < its contact radius a/2).
#[test]
fn dropped_block_comes_to_rest_on_the_plane() {
    let w = drop_scene();
    let (mass, radius) = (w.free_mass(), w.radius[0]);
    let coarse = drop(1e-5);
    let fine = drop(5e-6);
    for d in [&coarse, &fine] {
        assert!(d.e1 < d.e0);
        assert!(d.speed <= 1e-4, "not at rest: {} m/s", d.speed);
        assert_eq!(d.contacts, 9, "the bottom layer rests on the plane");
        assert!((d.support - 1.0).abs() <= 1e-3);
        assert!(d.resting_depth <= mass * G / LAMBDA);
        assert!(d.deepest < radius);
        // It slid: friction stopped it downstream of where it landed, and it stands on its base.
        assert!(d.com.x > 0.0 && d.com.z > 0.04 && d.com.z < 0.05);
    }
    let ratio = coarse.balance / fine.balance;
    println!("balance error ratio τ → τ/2: {ratio:.2}");
    assert!(ratio >= 3.0, "not second order: {ratio}");
    assert!(
        fine.balance <= 1e-3 * (fine.e0 - fine.e1),
        "balance error {}",
        fine.balance
    );
}

/// A particle against a fixed box (`Polytope`): the contact's elastic force is minus the
/// gradient of its energy ½ λ δ² (central differences, step 1e-7 m: the truncation error of a
/// piecewise quadratic is 0 away from the kinks, round-off ~ λ δ ε/1e-7 ≈ 1e-9 N relative 1e-6),
/// inside, over a face, and outside near an edge and a corner, where the deepest face acts.
#[test]
fn polytope_contact_force_is_the_gradient_of_its_energy() {
    use signorini::deformable::Polytope;
    let faces = (0..3)
        .flat_map(|d| [1.0, -1.0].map(|s| (d, s)))
        .map(|(d, s)| Plane {
            normal: DVec3::AXES[d] * s,
            offset: 0.5,
        })
        .collect();
    let mut w = World::new(WorldSettings {
        gravity: DVec3::ZERO,
        drag: 0.0,
        contact: PlaneContact {
            stiffness: LAMBDA,
            damping: 0.0,
            friction: 0.0,
            slip_speed: 1e-3,
        },
        ..WorldSettings::default()
    });
    w.polytopes.push(Polytope { faces });
    let r = 0.05;
    w.x.push(DVec3::ZERO);
    w.v.push(DVec3::ZERO);
    w.mass.push(1.0);
    w.fixed.push(false);
    w.radius.push(r);
    w.load.push(DVec3::ZERO);
    let points = [
        DVec3::new(0.1, 0.2, 0.47),   // inside, nearest the top face
        DVec3::new(0.1, 0.2, 0.53),   // above the top face, within r
        DVec3::new(0.52, 0.1, 0.54),  // outside near the top +x edge
        DVec3::new(0.53, 0.52, 0.51), // outside near the corner
    ];
    let mut f = signorini::deformable::Forces::default();
    for x in points {
        w.forces(&[x], &[DVec3::ZERO], &mut f);
        let e = |y: DVec3| w.potential_energy(&[y]);
        let eps = 1e-7;
        let grad = DVec3::new(
            (e(x + DVec3::X * eps) - e(x - DVec3::X * eps)) / (2.0 * eps),
            (e(x + DVec3::Y * eps) - e(x - DVec3::Y * eps)) / (2.0 * eps),
            (e(x + DVec3::Z * eps) - e(x - DVec3::Z * eps)) / (2.0 * eps),
        );
        let force = f.conservative[0];
        assert!(force.length() > 0.0, "{x}: no contact");
        assert!(
            (force + grad).length() <= 1e-6 * force.length(),
            "{x}: force {force}, −∇E {}",
            -grad
        );
        // Along the normal of the face of largest n·x − d: the axis of x's largest component
        // (the cube is centred on the origin), here z but at the corner point, x.
        let axis = (0..3)
            .max_by(|&a, &b| x[a].abs().total_cmp(&x[b].abs()))
            .unwrap();
        let normal = DVec3::AXES[axis] * x[axis].signum();
        assert!(
            (force - normal * force.length()).length() < 1e-12 * force.length(),
            "{x}: {force}"
        );
    }
}
