//! Time integration of trees (`multibody::integrate`) against closed forms and conservation
//! laws: a pendulum's period, a floating body against the free-body integrator, energy drift of
//! a double pendulum and of a free-floating spinning chain (with its momenta), damping (exact
//! exponential decay with armature; monotone energy), a critically damped PD servo, and the
//! quaternion staying on the unit sphere under semi-implicit Euler.
mod common;
#[path = "common/multibody.rs"]
mod mb;

use common::{body_state, initial_state, model, settings, single_piece};
use mb::{box_inertia, rod, G};
use signorini::contact::ContactModel;
use signorini::dynamics::{Body, Integrator};
use signorini::geometry::{Pose, Shape};
use signorini::multibody::algorithms::{
    forward_kinematics, kinetic_energy, momentum, potential_energy,
};
use signorini::multibody::integrate::step;
use signorini::multibody::{Controls, JointKind, Link, MbIntegrator, PdActuator, Tree, Workspace};
use signorini::pipeline::Workspace as StepWorkspace;
use signorini::{DMat3, DQuat, DVec3};
use std::f64::consts::PI;

/// Total energy (J).
fn energy(tree: &Tree, ws: &mut Workspace, q: &[f64], v: &[f64]) -> f64 {
    kinetic_energy(tree, ws, q, v).unwrap() + potential_energy(tree, ws, q).unwrap()
}

#[allow(clippy::too_many_arguments)]
/// Run n steps, calling `each(k, q, v)` after step k.
fn run(
    tree: &Tree,
    q: &mut [f64],
    v: &mut [f64],
    controls: &Controls,
    h: f64,
    n: usize,
    integrator: MbIntegrator,
    mut each: impl FnMut(usize, &[f64], &[f64], &mut Workspace),
) {
    let mut ws = Workspace::new(tree);
    let mut probe = Workspace::new(tree);
    for k in 1..=n {
        step(tree, &mut ws, q, v, controls, h, integrator).unwrap();
        each(k, q, v, &mut probe);
    }
}

// ------------------------------------------------------------------------------------------------
// Pendulum

#[test]
fn pendulum_period_matches_the_small_angle_series() {
    // A 1 kg, 1 m rod on a revolute joint: θ̈ = −(m g l/2)/I_p sin θ with I_p = m l²/3 (+ the
    // thin-rod term about z, not involved), so ω₀² = 3g/(2l). The period at amplitude θ₀ is
    // T₀ (1 + θ₀²/16 + 11 θ₀⁴/3072 + O(θ₀⁶)); θ₀ = 0.05 rad makes the next term ~1e-10 T₀.
    // Measured over 5 periods from crossings of θ = 0 located by cubic Hermite interpolation
    // (error O(h⁴ ω⁴) ≈ 1e-10 s); RK4's phase error (h ω₀)⁴ ω₀ t / 120 ≈ 1e-11 rad. 1e-8
    // relative.
    let (m, l, theta0): (f64, f64, f64) = (1.0, 1.0, 0.05);
    let tree = Tree::new(vec![rod("rod", None, DVec3::ZERO, m, l)], G).unwrap();
    let w0 = (3.0 * 9.81 / (2.0 * l)).sqrt();
    let t0 = 2.0 * PI / w0;
    let expected = t0 * (1.0 + theta0 * theta0 / 16.0 + 11.0 * theta0.powi(4) / 3072.0);
    let (mut q, mut v) = (vec![theta0], vec![0.0]);
    let h = 1e-3;
    let mut crossings = Vec::new();
    let (mut prev_q, mut prev_v) = (q[0], v[0]);
    let n = (5.3 * expected / h) as usize;
    let mut ws = Workspace::new(&tree);
    let controls = Controls::new(&tree);
    for k in 1..=n {
        step(
            &tree,
            &mut ws,
            &mut q,
            &mut v,
            &controls,
            h,
            MbIntegrator::Rk4,
        )
        .unwrap();
        if prev_q < 0.0 && q[0] >= 0.0 {
            crossings.push((k as f64 - 1.0) * h + hermite_root(prev_q, prev_v, q[0], v[0], h));
        }
        (prev_q, prev_v) = (q[0], v[0]);
    }
    assert!(crossings.len() >= 5, "{crossings:?}");
    let period = (crossings[crossings.len() - 1] - crossings[0]) / (crossings.len() - 1) as f64;
    let err = (period - expected).abs() / expected;
    println!("pendulum: period {period:.12} s, series {expected:.12} s, relative {err:.2e}");
    assert!(err <= 1e-8, "period {period} vs {expected}: {err:e}");
}

/// The root in [0, h] of the cubic Hermite interpolant of (y0, y0') and (y1, y1') (bisection:
/// it changes sign there).
fn hermite_root(y0: f64, d0: f64, y1: f64, d1: f64, h: f64) -> f64 {
    let f = |t: f64| {
        let s = t / h;
        let (h00, h10) = (
            2.0 * s.powi(3) - 3.0 * s * s + 1.0,
            s.powi(3) - 2.0 * s * s + s,
        );
        let (h01, h11) = (-2.0 * s.powi(3) + 3.0 * s * s, s.powi(3) - s * s);
        h00 * y0 + h10 * h * d0 + h01 * y1 + h11 * h * d1
    };
    let (mut a, mut b) = (0.0, h);
    for _ in 0..100 {
        let c = 0.5 * (a + b);
        if (f(a) < 0.0) == (f(c) < 0.0) {
            a = c;
        } else {
            b = c;
        }
    }
    0.5 * (a + b)
}

// ------------------------------------------------------------------------------------------------
// A floating body is the free rigid body

/// The tumbling box of `dynamics_integrate.rs`: 12 kg, J = diag(2, 3, 4) kg m².
fn tumbling_box() -> Body {
    let size = DVec3::new(2.5f64.sqrt(), 1.5f64.sqrt(), 0.5f64.sqrt());
    Body::dynamic(
        "box",
        single_piece(Shape::cuboid(size).unwrap()),
        Some(12.0),
        1.0,
        0,
    )
    .unwrap()
}

/// World position, orientation, velocity and angular velocity after `t_end` s of RK4 at step h,
/// from the free-body integrator (`pipeline::step`, no contacts) and from a one-link tree with a
/// floating joint (velocities in body axes, converted).
fn free_and_floating(h: f64, t_end: f64) -> [(DVec3, DQuat, DVec3, DVec3); 2] {
    let body = tumbling_box();
    let x0 = DVec3::new(0.5, -1.0, 2.0);
    let q0 = DQuat::from_axis_angle(DVec3::new(1.0, 2.0, -0.5).normalize(), 0.8);
    let (v0, w0) = (DVec3::new(1.0, 0.5, 3.0), q0 * DVec3::new(0.1, 4.0, 0.15));
    let n = (t_end / h).round() as usize;

    let m = model(vec![body.clone()], settings(h, Integrator::Rk4, G));
    let mut state = initial_state(vec![body_state(x0, q0, v0, w0)]);
    let mut sw = StepWorkspace::new();
    let mut contact: ContactModel = signorini::contact::build("deepest-point", &[]).unwrap();
    for _ in 0..n {
        signorini::pipeline::step(&m, &mut state, &mut sw, &mut contact).unwrap();
    }
    let b = state.bodies[0];

    let tree = Tree::new(
        vec![Link::new(
            "box",
            None,
            JointKind::Floating,
            body.mass,
            DVec3::ZERO,
            body.inertia,
        )],
        G,
    )
    .unwrap();
    let mut q = vec![x0.x, x0.y, x0.z, q0.x, q0.y, q0.z, q0.w];
    let (wb, vb) = (q0.inverse() * w0, q0.inverse() * v0);
    let mut v = vec![wb.x, wb.y, wb.z, vb.x, vb.y, vb.z];
    run(
        &tree,
        &mut q,
        &mut v,
        &Controls::new(&tree),
        h,
        n,
        MbIntegrator::Rk4,
        |_, _, _, _| {},
    );
    let r = mb::read_quat(&q[3..]);
    let fb = (
        DVec3::new(q[0], q[1], q[2]),
        r,
        r * DVec3::new(v[3], v[4], v[5]),
        r * DVec3::new(v[0], v[1], v[2]),
    );
    [
        (b.position, b.orientation, b.velocity, b.angular_velocity),
        fb,
    ]
}

/// Largest of the differences in position (m), orientation (rad), velocity (m/s) and angular
/// velocity (rad/s).
fn difference(a: &(DVec3, DQuat, DVec3, DVec3), b: &(DVec3, DQuat, DVec3, DVec3)) -> f64 {
    let angle = (a.1.inverse() * b.1).normalize().to_axis_angle().1;
    let angle = angle.min(2.0 * PI - angle);
    [
        (a.0 - b.0).length(),
        angle,
        (a.2 - b.2).length(),
        (a.3 - b.3).length(),
    ]
    .into_iter()
    .fold(0.0, f64::max)
}

#[test]
fn a_floating_body_follows_the_free_body_integrator() {
    // Both integrate the same Newton–Euler equations with fourth-order methods (the free body in
    // world velocities with quaternions renormalized in ℝ⁴; the tree in body velocities on
    // SO(3)): they differ by their truncation errors, O(h⁴). Over 2 s of a body tumbling about
    // its unstable intermediate axis (|ω| = 4 rad/s) while flying in gravity: the difference
    // must be small at h = 1e-3 (≤ 1e-7) and shrink by 2⁴ = 16 (asserted 12–20) when h halves,
    // i.e. both converge to the same solution.
    let [a1, b1] = free_and_floating(1e-3, 2.0);
    let [a2, b2] = free_and_floating(5e-4, 2.0);
    let (d1, d2) = (difference(&a1, &b1), difference(&a2, &b2));
    println!(
        "free body vs floating tree: {d1:.2e} at h = 1e-3, {d2:.2e} at h = 5e-4, ratio {:.1}",
        d1 / d2
    );
    assert!(d1 <= 1e-7, "difference {d1:e}");
    assert!(
        (12.0..=20.0).contains(&(d1 / d2)),
        "ratio {} ({d1:e}, {d2:e})",
        d1 / d2
    );
}

// ------------------------------------------------------------------------------------------------
// Energy drift

fn double_pendulum(damping: f64) -> Tree {
    Tree::new(
        vec![
            rod("upper", None, DVec3::ZERO, 1.0, 1.0).damping(damping),
            rod("lower", Some(0), DVec3::new(0.0, 0.0, -1.0), 1.0, 1.0).damping(damping),
        ],
        G,
    )
    .unwrap()
}

#[test]
fn double_pendulum_forward_kinematics_by_hand() {
    // Rotation about +y by θ takes −z to (−sin θ, 0, −cos θ): the elbow at −l (sin θ₁, 0, cos θ₁)
    // and the lower rod's centre of mass l/2 further along θ₁ + θ₂. Exact to a few ε.
    let tree = double_pendulum(0.0);
    let (t1, t2) = (0.7, -1.9);
    let mut ws = Workspace::new(&tree);
    let k = forward_kinematics(&tree, &mut ws, &[t1, t2], &[0.3, 0.5]).unwrap();
    let elbow = DVec3::new(-t1.sin(), 0.0, -t1.cos());
    let com2 = elbow + 0.5 * DVec3::new(-(t1 + t2).sin(), 0.0, -(t1 + t2).cos());
    assert!((k[1].position - elbow).length() < 1e-15);
    assert!((k[1].point(DVec3::new(0.0, 0.0, -0.5)) - com2).length() < 1e-15);
    assert!((k[1].angular_velocity - DVec3::new(0.0, 0.8, 0.0)).length() < 1e-15);
}

#[test]
fn double_pendulum_energy_drift_under_rk4() {
    // Released from both rods horizontal (θ₁ = π/2, θ₂ = 0): a chaotic swing through the whole
    // circle. 10 s at h = 1e-3: relative drift ≤ 1e-6 (issue 18's target), relative to the
    // energy above the hanging rest (E₀ − V_min = 2.5 m g l here; E₀ itself is 0 with the pivot
    // at the potential's zero).
    let tree = double_pendulum(0.0);
    let (mut q, mut v) = (vec![PI / 2.0, 0.0], vec![0.0, 0.0]);
    let mut ws = Workspace::new(&tree);
    let e0 = energy(&tree, &mut ws, &q, &v);
    let v_min = potential_energy(&tree, &mut ws, &[0.0, 0.0]).unwrap();
    let scale = e0 - v_min;
    let mut drift: f64 = 0.0;
    run(
        &tree,
        &mut q,
        &mut v,
        &Controls::new(&tree),
        1e-3,
        10_000,
        MbIntegrator::Rk4,
        |_, q, v, ws| {
            drift = drift.max((energy(&tree, ws, q, v) - e0).abs() / scale);
        },
    );
    println!("double pendulum, 10 s RK4 h = 1e-3: max relative energy drift {drift:.2e}");
    assert!(drift <= 1e-6, "drift {drift:e}");
}

/// A floating base and four links on revolute joints about different axes, offset from each
/// other, no gravity.
fn spinning_chain() -> Tree {
    let axes = [DVec3::X, DVec3::Y, DVec3::Z, DVec3::new(1.0, 1.0, 0.0)];
    let mut links = vec![Link::new(
        "base",
        None,
        JointKind::Floating,
        3.0,
        DVec3::new(0.05, 0.0, 0.0),
        box_inertia(3.0, 0.4, 0.3, 0.2),
    )];
    for (k, axis) in axes.into_iter().enumerate() {
        links.push(
            Link::new(
                &format!("link{k}"),
                Some(k),
                JointKind::Revolute { axis },
                1.0 + 0.2 * k as f64,
                DVec3::new(0.15, 0.02, 0.0),
                box_inertia(1.0 + 0.2 * k as f64, 0.3, 0.08, 0.06),
            )
            .at(Pose::new(
                DVec3::new(0.3, 0.0, 0.05),
                DQuat::from_rotation_z(0.3 * k as f64),
            )),
        );
    }
    Tree::new(links, DVec3::ZERO).unwrap()
}

#[test]
fn floating_spinning_chain_conserves_energy_and_momenta_under_rk4() {
    // No gravity, no damping: energy, linear momentum and angular momentum about the origin are
    // invariants. 10 s at h = 1e-3, the base spinning at ~3 rad/s and drifting at 0.5 m/s, the
    // joints at ±2 rad/s. Energy drift ≤ 1e-6 (issue 18); momenta to 1e-6 of their size as
    // well: RK4's local error moves them by O(h⁵) a step, like the energy.
    let tree = spinning_chain();
    let mut q = tree.neutral_q();
    let mut v = vec![0.0; tree.nv()];
    v[..6].copy_from_slice(&[1.0, -2.0, 2.0, 0.5, 0.2, -0.1]);
    v[6..].copy_from_slice(&[2.0, -1.5, 1.0, -2.0]);
    for (k, x) in q[7..].iter_mut().enumerate() {
        *x = 0.4 * k as f64 - 0.5;
    }
    let mut ws = Workspace::new(&tree);
    let e0 = energy(&tree, &mut ws, &q, &v);
    let (p0, l0) = momentum(&tree, &mut ws, &q, &v).unwrap();
    let (mut de, mut dp, mut dl): (f64, f64, f64) = (0.0, 0.0, 0.0);
    run(
        &tree,
        &mut q,
        &mut v,
        &Controls::new(&tree),
        1e-3,
        10_000,
        MbIntegrator::Rk4,
        |_, q, v, ws| {
            de = de.max((energy(&tree, ws, q, v) - e0).abs() / e0);
            let (p, l) = momentum(&tree, ws, q, v).unwrap();
            dp = dp.max((p - p0).length() / p0.length());
            dl = dl.max((l - l0).length() / l0.length());
        },
    );
    println!(
        "floating chain, 10 s RK4 h = 1e-3: energy drift {de:.2e}, linear momentum {dp:.2e}, \
         angular momentum {dl:.2e} (relative)"
    );
    assert!(de <= 1e-6, "energy drift {de:e}");
    assert!(dp <= 1e-6, "linear momentum {dp:e}");
    assert!(dl <= 1e-6, "angular momentum {dl:e}");
}

// ------------------------------------------------------------------------------------------------
// Damping and actuators

#[test]
fn damping_with_armature_decays_a_spin_exponentially() {
    // A link spinning about a revolute z axis through its centre of mass, no gravity:
    // (I_zz + a) ω̇ = −d ω, ω(t) = ω₀ exp(−d t / (I_zz + a)). RK4's relative error per step is
    // (λh)⁵/120 with λ = d/(I + a) = 2 s⁻¹: ~3e-16; 1e-12 relative over 2 s.
    let (izz, a, d, w0) = (0.4, 0.1, 1.0, 5.0);
    let link = Link::new(
        "disc",
        None,
        JointKind::Revolute { axis: DVec3::Z },
        2.0,
        DVec3::ZERO,
        DMat3::from_diagonal(DVec3::new(0.2, 0.2, izz)),
    )
    .damping(d)
    .armature(a);
    let tree = Tree::new(vec![link], DVec3::ZERO).unwrap();
    let (mut q, mut v) = (vec![0.0], vec![w0]);
    let h = 1e-3;
    run(
        &tree,
        &mut q,
        &mut v,
        &Controls::new(&tree),
        h,
        2000,
        MbIntegrator::Rk4,
        |k, _, v, _| {
            let expected = w0 * (-d * k as f64 * h / (izz + a)).exp();
            assert!(
                (v[0] - expected).abs() <= 1e-12 * w0,
                "step {k}: {} vs {expected}",
                v[0]
            );
        },
    );
}

#[test]
fn damping_dissipates_energy_monotonically() {
    // Damped double pendulum (0.2 N m s/rad per joint) released horizontal: dE/dt = −d Σ q̇² ≤
    // 0. Each step's energy must not exceed the previous one by more than round-off of the
    // energy evaluation (a few ε times its terms, ~50 J: 1e-13 J) — at turning points the
    // dissipation per step is itself ~0. And it dissipates: E(10 s) well below E₀.
    let tree = double_pendulum(0.2);
    let (mut q, mut v) = (vec![PI / 2.0, 0.0], vec![0.0, 0.0]);
    let mut ws = Workspace::new(&tree);
    let mut prev = energy(&tree, &mut ws, &q, &v);
    let e0 = prev;
    let mut rises = 0.0f64;
    run(
        &tree,
        &mut q,
        &mut v,
        &Controls::new(&tree),
        1e-3,
        10_000,
        MbIntegrator::Rk4,
        |k, q, v, ws| {
            let e = energy(&tree, ws, q, v);
            rises = rises.max(e - prev);
            assert!(
                e <= prev + 1e-13,
                "step {k}: energy rose by {:e} J",
                e - prev
            );
            prev = e;
        },
    );
    println!("damped double pendulum: E {e0:.4} → {prev:.4} J, largest rise {rises:.1e} J");
    let v_min = potential_energy(&tree, &mut ws, &[0.0, 0.0]).unwrap();
    assert!(prev - v_min < 0.5 * (e0 - v_min));
}

#[test]
fn critically_damped_pd_actuator_reaches_its_target_as_the_closed_form() {
    // A rod on a revolute joint, no gravity, I_p = m l²/3. kp = I_p ω², kd = 2 I_p ω (critical
    // damping, ω = 10 rad/s), target q* = 0.5 rad from rest at 0:
    // q(t) = q* − q* (1 + ω t) e^{−ω t}. RK4's global error on this linear system is ≈
    // (hω)⁴/120 · ω t · q* ≲ 1e-10 · q* over 3 s; 1e-9 rad.
    let (m, l, w, target) = (1.0, 1.0, 10.0, 0.5);
    let tree = Tree::new(vec![rod("arm", None, DVec3::ZERO, m, l)], DVec3::ZERO).unwrap();
    let ip = m * l * l / 3.0;
    let mut controls = Controls::new(&tree);
    controls.pd.push(PdActuator {
        link: 0,
        kp: ip * w * w,
        kd: 2.0 * ip * w,
        target_position: target,
        target_velocity: 0.0,
    });
    let (mut q, mut v) = (vec![0.0], vec![0.0]);
    let h = 1e-3;
    let mut worst: f64 = 0.0;
    run(
        &tree,
        &mut q,
        &mut v,
        &controls,
        h,
        3000,
        MbIntegrator::Rk4,
        |k, q, _, _| {
            let t = k as f64 * h;
            let expected = target - target * (1.0 + w * t) * (-w * t).exp();
            worst = worst.max((q[0] - expected).abs());
            assert!(
                (q[0] - expected).abs() <= 1e-9,
                "t = {t}: {} vs {expected}",
                q[0]
            );
        },
    );
    println!("critically damped PD: worst error {worst:.2e} rad");
    assert!((q[0] - target).abs() < 1e-9, "settled at {}", q[0]);
}

#[test]
fn semi_implicit_euler_keeps_quaternions_unit_and_pendulum_energy_bounded() {
    // The exponential map keeps a floating body's quaternion on the unit sphere to round-off
    // (one renormalization of a product per step: ≤ 1e-15 after 10⁴ steps of tumbling).
    let body = tumbling_box();
    let tree = Tree::new(
        vec![Link::new(
            "box",
            None,
            JointKind::Floating,
            body.mass,
            DVec3::ZERO,
            body.inertia,
        )],
        DVec3::ZERO,
    )
    .unwrap();
    let mut q = tree.neutral_q();
    let mut v = vec![0.1, 4.0, 0.15, 0.0, 0.0, 0.0];
    run(
        &tree,
        &mut q,
        &mut v,
        &Controls::new(&tree),
        1e-3,
        10_000,
        MbIntegrator::SemiImplicitEuler,
        |k, q, _, _| {
            let n = mb::read_quat(&q[3..]).length();
            assert!((n - 1.0).abs() <= 1e-15, "step {k}: |q| = {n}");
        },
    );
    // Symplectic Euler on a pendulum: the energy error stays O(h) and does not grow (no
    // drift): over 10 s at h = 1e-3 its largest relative value is ≤ h ω₀ (≈ 4e-3, the bound of
    // the modified energy's O(h) term), and the last second's largest is within 10 % of the
    // first second's.
    let tree = Tree::new(vec![rod("rod", None, DVec3::ZERO, 1.0, 1.0)], G).unwrap();
    let (mut q, mut v) = (vec![1.0], vec![0.0]);
    let mut ws = Workspace::new(&tree);
    let e0 = energy(&tree, &mut ws, &q, &v);
    let scale = e0 - potential_energy(&tree, &mut ws, &[0.0]).unwrap();
    let (mut first, mut last) = (0.0f64, 0.0f64);
    run(
        &tree,
        &mut q,
        &mut v,
        &Controls::new(&tree),
        1e-3,
        10_000,
        MbIntegrator::SemiImplicitEuler,
        |k, q, v, ws| {
            let e = (energy(&tree, ws, q, v) - e0).abs() / scale;
            if k <= 1000 {
                first = first.max(e);
            }
            if k > 9000 {
                last = last.max(e);
            }
        },
    );
    let w0 = (3.0f64 * 9.81 / 2.0).sqrt();
    println!("semi-implicit Euler pendulum: energy error first second {first:.2e}, last second {last:.2e}");
    assert!(first.max(last) <= 1e-3 * w0, "{first:e} {last:e}");
    assert!((last - first).abs() <= 0.1 * first, "{first:e} {last:e}");
}
