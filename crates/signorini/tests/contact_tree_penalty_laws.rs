//! The penalty laws of `contact::tree::penalty` besides the default multi-point one:
//! `DeepestPoint` (one spring–damper per touching pair of shapes, at its deepest point) and
//! `HuntCrossley` (k d (1 + c ẋ) there, c = ζ(e) / v_i). Static depths against the implicit
//! step's fixed point, rebounds against the exact damping rule's e v_i, momentum through a
//! collision of two links, the force never pulling, the impact speed forgotten when a pair
//! separates, and the `restitution` parameter's checks.
#[path = "common/multibody.rs"]
mod mb;

use mb::{box_inertia, G};
use signorini::contact::tree::{
    Ground, LinkShape, PenaltyLaw, TreePenalty, TreePenaltyParams, TreeStepStats, PENALTY_PARAMS,
};
use signorini::contact::ParamInput;
use signorini::geometry::{Pose, Shape};
use signorini::multibody::algorithms::momentum;
use signorini::multibody::{Controls, JointKind, Link, Tree, Workspace};
use signorini::{DMat3, DQuat, DVec3};

/// |g| (m/s²), as `mb::G`.
const GRAV: f64 = 9.81;
/// Edge of every box (m).
const EDGE: f64 = 0.2;
const HALF: f64 = EDGE / 2.0;
/// Radius of every sphere (m).
const RADIUS: f64 = 0.1;

/// A tree with its shapes and state.
struct Scene {
    tree: Tree,
    shapes: Vec<LinkShape>,
    q: Vec<f64>,
    v: Vec<f64>,
}

impl Scene {
    /// Boxes of edge `EDGE`, each a root on `joint` (floating, or prismatic along z: the box
    /// cannot tilt, so the static balance is of forces alone), given as (mass kg, centre m),
    /// unrotated, at rest.
    fn boxes(joint: JointKind, boxes: &[(f64, DVec3)]) -> Scene {
        let links = (boxes.iter().enumerate())
            .map(|(i, &(m, at))| {
                let inertia = box_inertia(m, EDGE, EDGE, EDGE);
                let link = Link::new(&format!("box{i}"), None, joint, m, DVec3::ZERO, inertia);
                match joint {
                    // The joint frame at the centre: q = 0 there, q the height change.
                    JointKind::Prismatic { .. } => link.at(Pose::new(at, DQuat::IDENTITY)),
                    _ => link,
                }
            })
            .collect();
        let tree = Tree::new(links, G).unwrap();
        let shape = Shape::cuboid(DVec3::splat(EDGE)).unwrap();
        let shapes = (0..boxes.len())
            .map(|link| LinkShape {
                link,
                pose: Pose::IDENTITY,
                shape: shape.clone(),
                friction: 0.5,
            })
            .collect();
        let mut q = tree.neutral_q();
        if joint == JointKind::Floating {
            for (i, (_, at)) in boxes.iter().enumerate() {
                let o = tree.q_offset(i);
                q[o..o + 3].copy_from_slice(&at.to_array());
            }
        }
        let v = vec![0.0; tree.nv()];
        Scene { tree, shapes, q, v }
    }

    /// Free spheres of radius `RADIUS` on floating joints without gravity, given as (mass kg,
    /// centre m, velocity m/s), not spinning.
    fn spheres(spheres: &[(f64, DVec3, DVec3)]) -> Scene {
        let links = (spheres.iter().enumerate())
            .map(|(i, &(m, _, _))| {
                let inertia = DMat3::from_diagonal(DVec3::splat(0.4 * m * RADIUS * RADIUS));
                Link::new(
                    &format!("ball{i}"),
                    None,
                    JointKind::Floating,
                    m,
                    DVec3::ZERO,
                    inertia,
                )
            })
            .collect();
        let tree = Tree::new(links, DVec3::ZERO).unwrap();
        let shapes = (0..spheres.len())
            .map(|link| LinkShape {
                link,
                pose: Pose::IDENTITY,
                shape: Shape::sphere(RADIUS).unwrap(),
                friction: 0.5,
            })
            .collect();
        let mut scene = Scene {
            q: tree.neutral_q(),
            v: vec![0.0; tree.nv()],
            tree,
            shapes,
        };
        for (i, &(_, at, vel)) in spheres.iter().enumerate() {
            let o = scene.tree.q_offset(i);
            scene.q[o..o + 3].copy_from_slice(&at.to_array());
            scene.set_velocity(i, vel);
        }
        scene
    }

    /// Root i's height change (prismatic) or centre height (floating) (m).
    fn height(&self, i: usize) -> f64 {
        let o = self.tree.q_offset(i);
        match self.tree.links()[i].joint {
            JointKind::Floating => self.q[o + 2],
            _ => self.q[o],
        }
    }

    /// Floating root i's world velocity (m/s), while it is unrotated (v in link axes).
    fn velocity(&self, i: usize) -> DVec3 {
        let o = self.tree.v_offset(i);
        DVec3::from_slice(&self.v[o + 3..o + 6])
    }

    fn set_velocity(&mut self, i: usize, vel: DVec3) {
        let o = self.tree.v_offset(i);
        self.v[o + 3..o + 6].copy_from_slice(&vel.to_array());
    }

    /// The penalty model of `law` with `params` (the ground at z = 0 unless given) for steps
    /// of `h`.
    fn model(&self, law: PenaltyLaw, params: TreePenaltyParams, h: f64) -> TreePenalty {
        TreePenalty::new(TreePenaltyParams { law, ..params }, &self.tree, h).unwrap()
    }

    /// `steps` steps of `h` under `model`; `each` sees the stats and the scene after each.
    fn run(
        &mut self,
        model: &mut TreePenalty,
        h: f64,
        steps: usize,
        mut each: impl FnMut(&TreeStepStats, &Scene),
    ) {
        let mut ws = Workspace::new(&self.tree);
        let controls = Controls::new(&self.tree);
        for _ in 0..steps {
            let state = (self.q.as_mut_slice(), self.v.as_mut_slice());
            let stats = model
                .step(&self.tree, &mut ws, &self.shapes, state, &controls, h)
                .unwrap();
            each(&stats, self);
        }
    }
}

#[test]
fn the_default_law_is_multi_point_and_the_laws_have_their_model_names() {
    assert_eq!(TreePenaltyParams::default().law, PenaltyLaw::MultiPoint);
    assert_eq!(PenaltyLaw::default(), PenaltyLaw::MultiPoint);
    for (law, name) in PenaltyLaw::ALL.into_iter().zip(PenaltyLaw::NAMES) {
        assert_eq!(law.name(), name);
        assert_eq!(PenaltyLaw::from_name(name), Some(law));
    }
    assert_eq!(PenaltyLaw::from_name("stewart-trinkle"), None);
}

/// The rest depth (m) of a box of `M` on a vertical prismatic joint under `law`, after 3 s of
/// steps of 1 ms from resting exactly on the ground, with the model's stiffness (N/m), the
/// points the last step used, and the largest |v| at the end (m/s).
fn box_rest(law: PenaltyLaw, weighted: bool) -> (f64, f64, usize, f64) {
    let mut scene = Scene::boxes(
        JointKind::Prismatic { axis: DVec3::Z },
        &[(2.0, DVec3::new(0.0, 0.0, HALF))],
    );
    let h = 1e-3;
    let params = TreePenaltyParams {
        weighted,
        ..TreePenaltyParams::default()
    };
    let mut model = scene.model(law, params, h);
    let mut points = 0;
    scene.run(&mut model, h, 3000, |stats, _| points = stats.contacts);
    let speed = scene.v.iter().fold(0.0f64, |m, w| m.max(w.abs()));
    (-scene.height(0), model.stiffness, points, speed)
}

#[test]
fn deepest_point_box_carries_its_weight_at_one_point() {
    // A 2 kg box resting flat on the ground, held level by a vertical prismatic joint (so the
    // balance is of forces: under deepest-point its one corner's force has a moment that a
    // floating box would answer by rocking, see the next test). The step's fixed point
    // (v = v⁺ = 0): 0 = h (−m g + Σ P), P = k d per point: one point (deepest-point with
    // `point = "deepest"`, its four corners tie and the first is taken) sinks m g / k; four
    // (multi-point) m g / (4 k); deepest-point's default shares one law k d among the four
    // (w = 1/4 each), so four points and m g / k.
    let m = 2.0;
    let (deep, k, deep_points, deep_speed) = box_rest(PenaltyLaw::DeepestPoint, false);
    let (multi, k_multi, multi_points, multi_speed) = box_rest(PenaltyLaw::MultiPoint, true);
    let (shared, _, shared_points, shared_speed) = box_rest(PenaltyLaw::DeepestPoint, true);
    let (one, four) = (m * GRAV / k, m * GRAV / (4.0 * k));
    println!(
        "deepest-point: depth {deep:e} m vs m g / k = {one:e} (rel {:e}), {deep_points} point, |v| {deep_speed:e}; multi-point: {multi:e} vs m g / (4 k) = {four:e} (rel {:e}), {multi_points} points, |v| {multi_speed:e}",
        (deep - one) / one,
        (multi - four) / four
    );
    assert_eq!(k, k_multi, "one gains rule for both laws");
    assert_eq!((deep_points, multi_points), (1, 4));
    // The transient: one point, k = m ω² and c = 2 ζ m ω with ω = 100 rad/s, ζ = 0.5, decays as
    // e^(−ζ ω t) = e^(−150) over 3 s (backward Euler only damps it more); four points at 2ω,
    // ζ = 1. What remains is round-off of a 1e-3 m depth: 1e-9 relative, as the multi-point
    // tests (contact_tree.rs).
    assert!((deep - one).abs() <= 1e-9 * one, "{deep} vs {one}");
    assert!((multi - four).abs() <= 1e-9 * four, "{multi} vs {four}");
    assert!(deep_speed <= 1e-9 && multi_speed <= 1e-9);
    assert_eq!(shared_points, 4);
    assert!((shared - one).abs() <= 1e-9 * one, "{shared} vs {one}");
    assert!(shared_speed <= 1e-9);
}

#[test]
fn deepest_point_floating_box_rocks_on_alternate_corners() {
    // The same 2 kg box on a floating joint: no rest exists. A corner's force F ≈ m g at
    // r = (a, a, −a) from the centre (a = 0.1 m) has the moment √2 a F about the diagonal
    // axis (1, −1, 0)/√2, where the cube's inertia is (2/3) m a²; in one step it turns the box
    // by Δω = 1.5 √2 h g / a = 0.21 rad/s (an explicit kick: the implicit step's slope on the
    // corner resists the turn, so less), the opposite corner of that diagonal becomes the
    // deepest, and the box rocks between the two for ever (the free bodies' `point =
    // "deepest"`, documented as rocking; the classical method's known weakness on faces).
    // The turn rate swings by a kick a step, through zero, so |ω| ≤ Δω and a corner rises at
    // most at √2 a Δω = 3 h g. The active corner rises (the kick lifts it), so its force
    // k d − S v_n⁺ (S = c + h k) is below k d: with the force's mean m g (the motion is
    // bounded), the deepest depth lies between m g / k and (m g + 3 h g S) / k.
    let m = 2.0;
    let mut scene = Scene::boxes(JointKind::Floating, &[(m, DVec3::new(0.0, 0.0, HALF))]);
    let h = 1e-3;
    let deepest = TreePenaltyParams {
        weighted: false,
        ..TreePenaltyParams::default()
    };
    let mut model = scene.model(PenaltyLaw::DeepestPoint, deepest, h);
    let (k, s) = (model.stiffness, model.damping + h * model.stiffness);
    let (low, high) = (m * GRAV / k, (m * GRAV + 3.0 * h * GRAV * s) / k);
    let kick = 1.5 * 2f64.sqrt() * h * GRAV / HALF;
    let (mut step, mut most) = (0, 0usize);
    let (mut d_min, mut d_max, mut spin) = (f64::INFINITY, 0.0f64, 0.0f64);
    scene.run(&mut model, h, 3000, |stats, sc| {
        step += 1;
        most = most.max(stats.contacts);
        if step > 2000 {
            d_min = d_min.min(stats.max_penetration);
            d_max = d_max.max(stats.max_penetration);
            let o = sc.tree.v_offset(0);
            spin = spin.max(DVec3::from_slice(&sc.v[o..o + 3]).length());
        }
    });
    println!(
        "floating deepest-point box, last second: depth {d_min:e} to {d_max:e} m (m g / k = {low:e}, bound {high:e}), |omega| up to {spin:.4} rad/s (kick {kick:.4})"
    );
    assert_eq!(most, 1, "one point a step");
    assert!(
        low <= d_min && d_max <= high,
        "{d_min} {d_max} not in [{low}, {high}]"
    );
    // Still rocking after 3 s, at a turn rate of the kick's order (not the 1e-9 rad/s of a box
    // at rest), and no faster than one kick.
    assert!(1e-2 <= spin && spin <= kick, "{spin} vs kick {kick}");
}

#[test]
fn shared_deepest_point_floating_box_rests_flat_at_m_g_over_k() {
    // The floating box of the test above under deepest-point's default (`point = "weighted"`):
    // its law shared among the four corners by depth acts at the depth-weighted centre, under
    // the centre of mass when the box is flat, so no moment and a rest at d = m g / k (the
    // fixed point of the step, as for the held box) with no turn (the rocking box keeps
    // 1e-2–0.2 rad/s). Tolerances as the held box's: the transient decays as e^(−150) in 3 s,
    // what remains is round-off.
    let m = 2.0;
    let mut scene = Scene::boxes(JointKind::Floating, &[(m, DVec3::new(0.0, 0.0, HALF))]);
    let h = 1e-3;
    let mut model = scene.model(PenaltyLaw::DeepestPoint, TreePenaltyParams::default(), h);
    let one = m * GRAV / model.stiffness;
    let mut points = 0;
    scene.run(&mut model, h, 3000, |stats, _| points = stats.contacts);
    let depth = HALF - scene.height(0);
    let speed = scene.v.iter().fold(0.0f64, |a, w| a.max(w.abs()));
    assert_eq!(points, 4);
    assert!((depth - one).abs() <= 1e-9 * one, "{depth} vs {one}");
    assert!(speed <= 1e-9, "{speed}");
}

#[test]
fn box_on_a_box_rests_at_the_one_point_depths_under_both_laws() {
    // A 1 kg box on a 2 kg box on the ground, both held level by vertical prismatic joints.
    // At rest (module doc: P = k d balances the load, the slopes multiply v⁺ = 0) under either
    // law the ground's one point carries (m1 + m2) g and the boxes' one point m2 g, whatever
    // the damping (hunt-crossley's k d c ẋ vanishes at rest).
    let (m1, m2) = (2.0, 1.0);
    for (law, restitution) in [
        (PenaltyLaw::DeepestPoint, 0.0),
        (PenaltyLaw::HuntCrossley, 0.5),
    ] {
        let mut scene = Scene::boxes(
            JointKind::Prismatic { axis: DVec3::Z },
            &[
                (m1, DVec3::new(0.0, 0.0, HALF)),
                (m2, DVec3::new(0.0, 0.0, 3.0 * HALF)),
            ],
        );
        let h = 1e-3;
        let params = TreePenaltyParams {
            restitution,
            ..TreePenaltyParams::default()
        };
        let mut model = scene.model(law, params, h);
        let k = model.stiffness;
        let mut points = 0;
        scene.run(&mut model, h, 3000, |stats, _| points = stats.contacts);
        let (z1, z2) = (scene.height(0), scene.height(1));
        let (depth, overlap) = (-z1, z1 - z2);
        let (d1, d2) = ((m1 + m2) * GRAV / k, m2 * GRAV / k);
        let speed = scene.v.iter().fold(0.0f64, |m, w| m.max(w.abs()));
        println!(
            "{}: k {k} N/m, {points} points; depth {depth:e} vs {d1:e} (rel {:e}), overlap {overlap:e} vs {d2:e} (rel {:e}), |v| {speed:e}",
            law.name(),
            (depth - d1) / d1,
            (overlap - d2) / d2
        );
        assert_eq!(
            points, 8,
            "four corners share the law with the ground, four between the boxes"
        );
        // Transients: deepest-point's modes (masses 2 and 1 kg on springs k = 3e4 N/m with
        // dampers c = 300 N s/m) decay at least as e^(−50 t); hunt-crossley's are overdamped
        // (c_hc = ζ(0.5) / v_i = 1.43 / 0.01 s/m at the impact-speed floor, the boxes starting
        // at rest; damping k d c_hc ≈ 1400 to 4200 N s/m), the slowest at k / (k d c_hc) ≥
        // 7 /s: e^(−21) over 3 s of a 1e-3 m depth is 1e-12 m, below round-off's 1e-9 relative.
        assert!((depth - d1).abs() <= 1e-9 * d1, "{}", law.name());
        assert!((overlap - d2).abs() <= 1e-9 * d2, "{}", law.name());
        assert!(speed <= 1e-9, "{}: {speed}", law.name());
    }
}

/// What a sphere thrown at the ground did ([`bounce`]).
#[derive(Debug)]
struct Bounce {
    /// Vertical velocity after leaving the ground (m/s).
    out: f64,
    /// The smallest vertical impulse of a step over the run (N s): negative if a force pulled.
    min_impulse: f64,
    /// Steps with a contact.
    steps_in_contact: usize,
}

/// The 1 kg sphere of `scene` (no gravity) put 5 mm above the ground and thrown down at `v_in`
/// (m/s) under `model`, for 0.1 s of steps of `h` (s).
fn bounce(scene: &mut Scene, model: &mut TreePenalty, v_in: f64, h: f64) -> Bounce {
    scene.q[2] = RADIUS + 0.005;
    scene.set_velocity(0, DVec3::new(0.0, 0.0, -v_in));
    let mut out = Bounce {
        out: 0.0,
        min_impulse: f64::INFINITY,
        steps_in_contact: 0,
    };
    let steps = (0.1 / h).round() as usize;
    let mut before = scene.velocity(0).z;
    scene.run(model, h, steps, |stats, s| {
        let now = s.velocity(0).z;
        // No gravity: the step's vertical impulse is the contact's, m Δv_z (m = 1 kg).
        out.min_impulse = out.min_impulse.min(now - before);
        before = now;
        out.steps_in_contact += usize::from(stats.contacts > 0);
    });
    out.out = scene.velocity(0).z;
    out
}

fn sphere_model(scene: &Scene, e: f64, omega_h: f64, h: f64) -> TreePenalty {
    let params = TreePenaltyParams {
        restitution: e,
        omega_h,
        ..TreePenaltyParams::default()
    };
    scene.model(PenaltyLaw::HuntCrossley, params, h)
}

#[test]
fn hunt_crossley_sphere_rebounds_at_e_times_its_impact_speed() {
    // Without gravity the sphere meets the ground at v_i = 1 m/s; on F = k x (1 + c ẋ) with
    // c = ζ(e) / v_i the phase plane gives the exit speed e v_i exactly, whatever m and k
    // (contact::hunt_crossley's module doc). ω = 100 rad/s (omega_h = 0.01 at h = 1e-4 s):
    // contact lasts about π / ω = 31 ms, 300 steps, 1 cm deep.
    let v_in = 1.0;
    let omega_h = 0.01;
    for e in [0.2, 0.5, 0.8] {
        let mut errors = Vec::new();
        for h in [1e-4, 5e-5] {
            let mut scene = Scene::spheres(&[(1.0, DVec3::ZERO, DVec3::ZERO)]);
            // ω = 100 rad/s at every h: omega_h scales with h.
            let wh = omega_h * h / 1e-4;
            let mut model = sphere_model(&scene, e, wh, h);
            let b = bounce(&mut scene, &mut model, v_in, h);
            let rel = (b.out - e * v_in) / (e * v_in);
            println!(
                "e {e}, h {h:e}: out {:.6} m/s vs e v_i {:.6} (rel {rel:+.3e}), {} steps in contact, smallest impulse {:e} N s",
                b.out,
                e * v_in,
                b.steps_in_contact,
                b.min_impulse
            );
            // Never pulling: every step's impulse from the ground is ≥ 0 (Δv_z in the
            // round-off of 1 m/s).
            assert!(b.min_impulse >= -1e-15, "e {e}: {b:?}");
            assert!(b.out > 0.0, "e {e}: {b:?}");
            errors.push(rel);
            // Backward Euler's dissipation of an oscillator at ω h per step: the amplitude
            // falls by (1 + (ω h)²)^(−1/2) a step, e^(−π ω h / 2) over the π / (ω h) steps of
            // a half period: −1.6 % at ω h = 0.01. The damping's linearization adds the same
            // order; bound: π ω h (twice the oscillator's figure; measured 0.19 %, 0.97 % and
            // 1.38 % at ω h = 0.01 for e = 0.2, 0.5, 0.8, all below it).
            let bound = std::f64::consts::PI * wh;
            assert!(rel.abs() <= bound, "e {e}, h {h}: rel {rel} > {bound}");
        }
        // The error is the step's: first order, so it halves with h (to 10 %).
        let ratio = errors[0] / errors[1];
        assert!((ratio - 2.0).abs() <= 0.2, "e {e}: errors {errors:?}");
    }
}

#[test]
fn hunt_crossley_forgets_the_impact_speed_when_the_pair_separates() {
    // Two bounces of one sphere on one model: at 1 m/s, then (after it left) at 0.5 m/s. The
    // second rebound is e · 0.5 m/s only if c = ζ / v_i was recomputed from the second impact:
    // with the first impact's v_i kept, c would be half as large (less damping) and the rebound
    // well above e · 0.5 (the exact rule with ζ(0.5)/2 = 0.716 gives e' = 0.673: 35 % more).
    let (e, h, omega_h) = (0.5, 1e-4, 0.01);
    let mut scene = Scene::spheres(&[(1.0, DVec3::ZERO, DVec3::ZERO)]);
    let mut model = sphere_model(&scene, e, omega_h, h);
    let first = bounce(&mut scene, &mut model, 1.0, h);
    let second = bounce(&mut scene, &mut model, 0.5, h);
    let rel = |b: &Bounce, v: f64| (b.out - e * v) / (e * v);
    println!(
        "first {:.6} m/s (rel {:+e}), second {:.6} m/s (rel {:+e})",
        first.out,
        rel(&first, 1.0),
        second.out,
        rel(&second, 0.5)
    );
    // Both within the previous test's bound π ω h: the step's error is the same at both
    // speeds (the phase plane scales with v_i).
    let bound = std::f64::consts::PI * omega_h;
    assert!(rel(&first, 1.0).abs() <= bound, "{first:?}");
    assert!(rel(&second, 0.5).abs() <= bound, "{second:?}");
}

#[test]
fn hunt_crossley_collision_of_two_spheres_keeps_momentum_and_rebounds_at_e() {
    // Two links of different bodies: a 1 kg sphere at 1 m/s along x against a 2 kg one at
    // rest, no gravity (the ground 100 m below). Along the line of centres the relative motion
    // is the ground case's with the reduced mass, so the spheres separate at e times their
    // approach speed; the impulses are equal and opposite (J = J_B − J_A), so the linear
    // momentum changes by round-off only.
    let (e, h, omega_h) = (0.5, 1e-4, 0.01);
    let mut scene = Scene::spheres(&[
        (1.0, DVec3::ZERO, DVec3::X),
        (2.0, DVec3::new(2.0 * RADIUS + 0.005, 0.0, 0.0), DVec3::ZERO),
    ]);
    let params = TreePenaltyParams {
        restitution: e,
        omega_h,
        ground: Ground::at(-100.0),
        ..TreePenaltyParams::default()
    };
    let mut model = scene.model(PenaltyLaw::HuntCrossley, params, h);
    let mut ws = Workspace::new(&scene.tree);
    let (p0, _) = momentum(&scene.tree, &mut ws, &scene.q, &scene.v).unwrap();
    let mut drift = 0.0f64;
    let mut touched = 0;
    scene.run(&mut model, h, 1000, |stats, s| {
        let (p, _) = momentum(&s.tree, &mut Workspace::new(&s.tree), &s.q, &s.v).unwrap();
        drift = drift.max((p - p0).length());
        touched += usize::from(stats.contacts > 0);
    });
    let (va, vb) = (scene.velocity(0), scene.velocity(1));
    let separation = vb.x - va.x;
    let rel = (separation - e) / e;
    println!(
        "spheres: after {va} and {vb} m/s, separating at {separation:.6} vs e = {e} (rel {rel:+e}), {touched} steps in contact, momentum drift {drift:e} kg m/s"
    );
    assert!(touched > 0);
    // Round-off of |p| = 1 kg m/s over 1000 steps of order-1 arithmetic.
    assert!(drift <= 1e-12, "{drift}");
    // The ground test's step bound, π ω h, with the pair's ω = √(k / m_red): k = m ω²
    // from the forest's 3 kg, the reduced mass 2/3 kg, so the pair's ω h is √4.5 ≈ 2.1 times
    // omega_h.
    let bound = std::f64::consts::PI * omega_h * 4.5f64.sqrt();
    assert!(rel.abs() <= bound, "rel {rel} > {bound}");
}

#[test]
fn restitution_is_a_parameter_checked_where_the_model_is_built() {
    let spec = PENALTY_PARAMS
        .iter()
        .find(|s| s.name == "restitution")
        .expect("declared");
    assert_eq!((spec.unit, spec.default), ("-", "0.5"));
    assert_eq!(TreePenaltyParams::default().restitution, 0.5);
    let mut params = TreePenaltyParams {
        law: PenaltyLaw::HuntCrossley,
        ..TreePenaltyParams::default()
    };
    params.set("restitution", &ParamInput::Number(0.3)).unwrap();
    assert_eq!(params.restitution, 0.3);
    let e = params
        .set("restitution", &ParamInput::Word("bouncy".into()))
        .unwrap_err();
    assert!(
        e.contains("restitution") && e.contains("finite number"),
        "{e}"
    );
    // Unknown names are reported against the law's model name.
    let e = params.set("kp", &ParamInput::Number(1.0)).unwrap_err();
    assert!(
        e.contains("hunt-crossley") && e.contains("restitution"),
        "{e}"
    );
    let scene = Scene::spheres(&[(1.0, DVec3::ZERO, DVec3::ZERO)]);
    for bad in [-0.1, 1.5, f64::NAN] {
        for law in PenaltyLaw::ALL {
            let p = TreePenaltyParams {
                law,
                restitution: bad,
                ..TreePenaltyParams::default()
            };
            let e = TreePenalty::new(p, &scene.tree, 1e-3).unwrap_err();
            assert!(e.contains("restitution") && e.contains("[0, 1]"), "{e}");
        }
    }
    for good in [0.0, 1.0] {
        params.restitution = good;
        assert!(TreePenalty::new(params, &scene.tree, 1e-3).is_ok());
    }
}

#[test]
fn hunt_crossley_floating_box_settles_flat_at_m_g_over_k_on_the_default_restitution() {
    // A 2 kg box put on the ground at rest, floating, under hunt-crossley's defaults (e = 0.5,
    // the law shared among the four corners): it rests at d = m g / k with no turn, as the
    // held box of `box_on_a_box…` (the transient: c = ζ(0.5)/v_i at the impact-speed floor,
    // overdamped, decays well within 3 s; what remains is round-off, 1e-9 relative). With
    // e → 0 the same box creeps instead (c ≈ 1e5 s/m: ẋ ≈ (m g / k d − 1) / c, 3e-4 m after 3 s
    // measured), which is why the tree's default is not the free bodies' e = 0.
    let m = 2.0;
    let mut scene = Scene::boxes(JointKind::Floating, &[(m, DVec3::new(0.0, 0.0, HALF))]);
    let h = 1e-3;
    let mut model = scene.model(PenaltyLaw::HuntCrossley, TreePenaltyParams::default(), h);
    assert_eq!(model.params.restitution, 0.5);
    let one = m * GRAV / model.stiffness;
    scene.run(&mut model, h, 3000, |_, _| {});
    let depth = HALF - scene.height(0);
    let speed = scene.v.iter().fold(0.0f64, |a, w| a.max(w.abs()));
    assert!((depth - one).abs() <= 1e-9 * one, "{depth} vs {one}");
    assert!(speed <= 1e-9, "{speed}");
}
