//! Resting contact at the acceleration level (`contact::resting`): Baraff's LCP on boxes resting,
//! pulled, separating, colliding, on an incline, sliding, pivoting on an edge and stacked, the
//! velocity-product term against finite differences of exact gap functions, and the failures
//! (Painlevé, bad input).
//!
//! Contacts come from the library's own broad + narrow phase (`pipeline::detect`) on hand-built
//! models, except in the finite-difference tests, which place a feature pair exactly.
//!
//! Tolerances: Lemke's method pivots to an exact basic solution, so its answers carry round-off
//! only (≈ 1e-15 relative for these few-body systems); the solve is accepted at a scaled residual
//! ≤ 1e-10 (`RestingOptions::default`). Equalities of forces and accelerations are asserted to
//! 1e-9 relative to the weight m g (or to g): ten times the solver tolerance, far above round-off.
mod common;

use common::{body_state, initial_state, settings, single_piece};
use signorini::collision::{Contact, Reach};
use signorini::contact::cone;
use signorini::contact::resting::{
    resting_forces, ContactClass, RestingContact, RestingError, RestingForces, RestingOptions,
};
use signorini::dynamics::integrate::accelerations;
use signorini::dynamics::{Body, Integrator, Material, Model, Piece, State, Wrench};
use signorini::geometry::{Feature, Polytope, Pose, Shape};
use signorini::pipeline::{detect, StageTimes, Workspace};
use signorini::{DMat3, DQuat, DVec3};

const G: f64 = 9.81;

// ---------------------------------------------------------------------------------------------
// Building blocks

fn material(mu: f64) -> Material {
    Material {
        name: format!("mu{mu}"),
        friction: mu,
        restitution: 0.0,
    }
}

/// A fixed half-space {n·x ≤ 0} through the origin.
fn ground(normal: DVec3) -> Body {
    Body::fixed(
        "ground",
        vec![Piece {
            shape: Shape::half_space(normal).unwrap(),
            pose: Pose::IDENTITY,
        }],
        0,
    )
}

/// A box of full edge lengths `size` (m) and `mass` (kg).
fn cuboid(name: &str, size: DVec3, mass: f64) -> Body {
    Body::dynamic(
        name,
        single_piece(Shape::cuboid(size).unwrap()),
        Some(mass),
        1.0,
        0,
    )
    .unwrap()
}

/// Bodies sharing one material of friction `mu`, gravity (0, 0, −G).
fn world(bodies: Vec<Body>, mu: f64) -> Model {
    Model {
        bodies,
        materials: vec![material(mu)],
        settings: settings(
            1e-3,
            Integrator::SemiImplicitEuler,
            DVec3::new(0.0, 0.0, -G),
        ),
        forces: vec![],
    }
}

/// The state of a fixed body (never moves).
fn still() -> signorini::dynamics::BodyState {
    body_state(DVec3::ZERO, DQuat::IDENTITY, DVec3::ZERO, DVec3::ZERO)
}

/// Contacts the library's broad and narrow phase find (activation distance 1e-3 m).
fn contacts_of(model: &Model, state: &State) -> Vec<Contact> {
    let mut ws = Workspace::new();
    detect(
        model,
        state,
        Reach::axis(1e-3),
        &mut ws,
        &mut StageTimes::default(),
    );
    ws.contacts.clone()
}

/// The default solver list (Lemke, then Fischer–Burmeister) with default options.
fn default_solver() -> RestingContact {
    RestingContact::new(RestingOptions::default()).unwrap_or_else(|e| panic!("{e}"))
}

fn solve(model: &Model, state: &State, contacts: &[Contact], applied: &[Wrench]) -> RestingForces {
    default_solver()
        .solve(model, state, contacts, applied)
        .unwrap_or_else(|e| panic!("{e}"))
}

fn no_wrenches(model: &Model) -> Vec<Wrench> {
    vec![Wrench::default(); model.bodies.len()]
}

fn assert_rel(what: &str, got: f64, want: f64, rel: f64, scale: f64) {
    assert!(
        (got - want).abs() <= rel * scale,
        "{what}: got {got:.15e}, want {want:.15e} (tolerance {:.1e})",
        rel * scale
    );
}

/// Box of size (0.4, 0.3, 0.2) m and 2 kg resting flat on the plane z = 0.
const BOX: DVec3 = DVec3::new(0.4, 0.3, 0.2);
const MASS: f64 = 2.0;

fn box_on_plane(mu: f64, velocity: DVec3, angular_velocity: DVec3) -> (Model, State) {
    let model = world(vec![ground(DVec3::Z), cuboid("box", BOX, MASS)], mu);
    let state = initial_state(vec![
        still(),
        body_state(
            DVec3::new(0.0, 0.0, BOX.z / 2.0),
            DQuat::IDENTITY,
            velocity,
            angular_velocity,
        ),
    ]);
    (model, state)
}

// ---------------------------------------------------------------------------------------------
// A box on a plane

/// Four corner contacts; the forces hold the box: Σ f = m g, every a_n ≥ 0, no body acceleration.
/// (How the weight is shared among four coplanar corners is indeterminate and not asserted.)
#[test]
fn box_resting_on_plane_carries_its_weight() {
    for mu in [0.0, 0.5] {
        let (model, state) = box_on_plane(mu, DVec3::ZERO, DVec3::ZERO);
        let contacts = contacts_of(&model, &state);
        assert_eq!(contacts.len(), 4, "four corners");
        let r = solve(&model, &state, &contacts, &no_wrenches(&model));
        assert_eq!(r.resting, vec![0, 1, 2, 3]);
        let total: f64 = r.normal.iter().sum();
        assert_rel("Σ f_n", total, MASS * G, 1e-9, MASS * G);
        for (i, a) in r.normal_acceleration.iter().enumerate() {
            assert!(*a >= -1e-9 * G, "contact {i}: a_n = {a:e}");
            assert!(
                r.normal[i] >= -1e-9 * MASS * G,
                "contact {i}: f = {:e}",
                r.normal[i]
            );
            // No tangential load: friction stays zero.
            assert!(r.friction[i].length() <= 1e-9 * MASS * G);
        }
        let (a, alpha) = r.accelerations[1];
        assert!(a.length() <= 1e-9 * G, "box acceleration {a}");
        // α scale: g over the box's half diagonal (0.27 m) ≈ 36 rad/s².
        assert!(
            alpha.length() <= 1e-9 * G / 0.27,
            "box angular acceleration {alpha}"
        );
        let solve = r.solve.expect("an LCP was solved");
        assert_eq!(solve.rows, if mu > 0.0 { 4 * (1 + 4 + 1) } else { 4 });
        assert!(solve.residual <= 1e-10);
        eprintln!(
            "box on plane, mu {mu}: sum f = {total:.15} N (m g = {}), forces {:?}, solver {} ({} iterations, residual {:.1e})",
            MASS * G,
            r.normal,
            solve.solver,
            solve.iterations,
            solve.residual
        );
    }
}

/// Pulled up by F > m g: the contacts carry nothing and the box accelerates at (F − m g)/m.
/// Pulled up by F < m g: the contacts carry m g − F.
#[test]
fn box_pulled_up() {
    let (model, state) = box_on_plane(0.5, DVec3::ZERO, DVec3::ZERO);
    let contacts = contacts_of(&model, &state);
    let pull = |f: f64| {
        let mut w = no_wrenches(&model);
        w[1].force = DVec3::new(0.0, 0.0, f);
        w
    };

    let f = 1.5 * MASS * G;
    let r = solve(&model, &state, &contacts, &pull(f));
    assert!(r.normal.iter().all(|&x| x == 0.0), "forces {:?}", r.normal);
    let (a, _) = r.accelerations[1];
    assert_rel("a_z", a.z, (f - MASS * G) / MASS, 1e-12, G);
    assert!(a.x.abs() + a.y.abs() <= 1e-12 * G);
    // Every corner then accelerates away at (F − m g)/m.
    for an in &r.normal_acceleration {
        assert_rel("a_n", *an, (f - MASS * G) / MASS, 1e-12, G);
    }

    let f = 0.4 * MASS * G;
    let r = solve(&model, &state, &contacts, &pull(f));
    let total: f64 = r.normal.iter().sum();
    assert_rel("Σ f_n", total, MASS * G - f, 1e-9, MASS * G);
    assert!(r.accelerations[1].0.length() <= 1e-9 * G);
    eprintln!(
        "pulled by 0.4 m g: sum f = {total:.15} N, want {}",
        MASS * G - f
    );
}

/// Moving up at 1 m/s: every contact separates and gets no force; no LCP is solved.
#[test]
fn separating_contacts_get_no_force() {
    let (model, state) = box_on_plane(0.5, DVec3::new(0.0, 0.0, 1.0), DVec3::ZERO);
    let contacts = contacts_of(&model, &state);
    let r = solve(&model, &state, &contacts, &no_wrenches(&model));
    assert_eq!(r.separating, vec![0, 1, 2, 3]);
    assert!(r.resting.is_empty() && r.colliding.is_empty());
    assert!(r.solve.is_none());
    assert!(r.normal.iter().all(|&f| f == 0.0));
    assert_eq!(r.accelerations[1].0, DVec3::new(0.0, 0.0, -G));
}

/// Falling at 1 m/s: every contact collides; they are listed for the impulse stage, not solved.
/// Rotating about its bottom edge at x = −a (ω along +y): that edge's two corners have zero
/// velocity (resting, in the LCP) while the far corners move down at 2 a ω (colliding).
#[test]
fn colliding_contacts_are_listed_not_solved() {
    let (model, state) = box_on_plane(0.5, DVec3::new(0.0, 0.0, -1.0), DVec3::ZERO);
    let contacts = contacts_of(&model, &state);
    let r = solve(&model, &state, &contacts, &no_wrenches(&model));
    assert_eq!(r.colliding, vec![0, 1, 2, 3]);
    assert!(r.solve.is_none() && r.normal.iter().all(|&f| f == 0.0));

    let (a, c) = (BOX.x / 2.0, BOX.z / 2.0);
    let w = 2.0;
    // Rotation about the edge (x = −a, z = 0): v_com = ω × (a, 0, c).
    let omega = DVec3::new(0.0, w, 0.0);
    let (model, state) = box_on_plane(0.5, omega.cross(DVec3::new(a, 0.0, c)), omega);
    let contacts = contacts_of(&model, &state);
    assert_eq!(contacts.len(), 4);
    let near: Vec<usize> = (0..4).filter(|&i| contacts[i].point_b.x < 0.0).collect();
    let far: Vec<usize> = (0..4).filter(|&i| contacts[i].point_b.x > 0.0).collect();
    let r = solve(&model, &state, &contacts, &no_wrenches(&model));
    assert_eq!(r.resting, near);
    assert_eq!(r.colliding, far);
    for &i in &far {
        assert_eq!(r.normal[i], 0.0);
        assert_eq!(r.class[i], ContactClass::Colliding);
    }
    for &i in &near {
        assert_eq!(r.class[i], ContactClass::Sticking);
    }
    // Two sticking contacts: 2 × (1 normal + 4 cone + 1 σ) rows.
    assert_eq!(r.solve.unwrap().rows, 12);
}

/// A contact whose gap exceeds the gap tolerance touches nothing, even when it approaches.
#[test]
fn contacts_beyond_the_gap_tolerance_are_apart() {
    let (model, mut state) = box_on_plane(0.5, DVec3::new(0.0, 0.0, -1.0), DVec3::ZERO);
    state.bodies[1].position.z += 5e-4;
    let contacts = contacts_of(&model, &state);
    assert_eq!(contacts.len(), 4, "within the 1e-3 m activation distance");
    let r = solve(&model, &state, &contacts, &no_wrenches(&model));
    assert_eq!(r.apart, vec![0, 1, 2, 3]);
    assert!(r.solve.is_none());
}

// ---------------------------------------------------------------------------------------------
// Friction

/// A flat box (0.4 × 0.3 × 0.1 m, 2 kg) at rest on a plane tilted by θ = 30° about y, built
/// tilted (not by tilting gravity). Its normal n = (−sin θ, 0, cos θ) and down-slope direction
/// s = −(cos θ, 0, sin θ).
fn box_on_incline(mu: f64) -> (Model, State, DVec3, DVec3) {
    let theta = 30f64.to_radians();
    let n = DVec3::new(-theta.sin(), 0.0, theta.cos());
    let down = -DVec3::new(theta.cos(), 0.0, theta.sin());
    let size = DVec3::new(0.4, 0.3, 0.1);
    let model = world(vec![ground(n), cuboid("box", size, MASS)], mu);
    let state = initial_state(vec![
        still(),
        body_state(
            n * size.z / 2.0,
            DQuat::from_rotation_y(-theta),
            DVec3::ZERO,
            DVec3::ZERO,
        ),
    ]);
    (model, state, n, down)
}

/// The k = 4 cone directions of the incline's normal include the down-slope direction exactly, so
/// the polyhedral cone is exact for slip along the slope (no cos(π/k) loss).
#[test]
fn incline_cone_directions_contain_the_slope() {
    let (_, _, n, down) = box_on_incline(0.5);
    let best = cone::directions(n, 4)
        .map(|d| d.dot(down))
        .fold(f64::NEG_INFINITY, f64::max);
    assert!(best >= 1.0 - 1e-15, "cos = {best}");
}

/// μ = 0.8 > tan 30°: the box sticks. Body acceleration 0; friction m g sin θ up the slope;
/// normal forces m g cos θ.
#[test]
fn box_on_incline_sticks_when_mu_exceeds_tan_theta() {
    let (model, state, n, down) = box_on_incline(0.8);
    let theta = 30f64.to_radians();
    let contacts = contacts_of(&model, &state);
    assert_eq!(contacts.len(), 4);
    let r = solve(&model, &state, &contacts, &no_wrenches(&model));
    assert!(r.class.iter().all(|c| *c == ContactClass::Sticking));
    let (a, alpha) = r.accelerations[1];
    assert!(a.length() <= 1e-9 * G, "a = {a}");
    assert!(alpha.length() <= 1e-9 * G / 0.2, "α = {alpha}");
    let friction: DVec3 = r.friction.iter().sum();
    let normal: f64 = r.normal.iter().sum();
    let weight = MASS * G;
    assert_rel(
        "friction up the slope",
        friction.dot(-down),
        weight * theta.sin(),
        1e-9,
        weight,
    );
    assert!((friction - friction.dot(down) * down).length() <= 1e-9 * weight);
    assert!(friction.dot(n).abs() <= 1e-12 * weight);
    assert_rel("Σ f_n", normal, weight * theta.cos(), 1e-9, weight);
    for &f in &r.normal {
        assert!(f >= -1e-9 * weight);
    }
    eprintln!(
        "incline mu 0.8: friction {:.15} N (m g sin θ = {:.15}), normal {normal:.15}, |a| = {:.1e}",
        friction.dot(-down),
        weight * theta.sin(),
        a.length()
    );
}

/// μ = 0.3 < tan 30°: the box starts to slide (its contacts are sticking by velocity, so this is
/// the cone LCP deciding the slip). Tangential acceleration g (sin θ − μ cos θ) down the slope,
/// exact because one cone direction lies along the slope (see above); no rotation.
#[test]
fn box_on_incline_slips_when_mu_is_below_tan_theta() {
    let mu = 0.3;
    let (model, state, n, down) = box_on_incline(mu);
    let theta = 30f64.to_radians();
    let contacts = contacts_of(&model, &state);
    let r = solve(&model, &state, &contacts, &no_wrenches(&model));
    let (a, alpha) = r.accelerations[1];
    let want = G * (theta.sin() - mu * theta.cos());
    assert_rel("a along the slope", a.dot(down), want, 1e-9, G);
    assert!((a - a.dot(down) * down).length() <= 1e-9 * G, "a = {a}");
    assert!(alpha.length() <= 1e-9 * G / 0.2, "α = {alpha}");
    let friction: DVec3 = r.friction.iter().sum();
    let normal: f64 = r.normal.iter().sum();
    assert_rel("|friction|", friction.length(), mu * normal, 1e-9, MASS * G);
    assert_rel("Σ f_n", normal, MASS * G * theta.cos(), 1e-9, MASS * G);
    let _ = n;
    eprintln!(
        "incline mu 0.3: a along slope {:.15} (g (sin − μ cos) = {want:.15})",
        a.dot(down)
    );
}

/// Sliding at 1 m/s along x on a flat plane with μ = 0.5: the friction −μ f x̂ is folded into the
/// normal columns; the box decelerates at μ g with no rotation (the normal forces shift to the
/// leading corners to balance the friction's moment, which is why the 4 corners are needed).
#[test]
fn sliding_block_decelerates_at_mu_g() {
    let mu = 0.5;
    let (model, state) = box_on_plane(mu, DVec3::new(1.0, 0.0, 0.0), DVec3::ZERO);
    let contacts = contacts_of(&model, &state);
    let r = solve(&model, &state, &contacts, &no_wrenches(&model));
    for c in &r.class {
        match c {
            ContactClass::Sliding { direction } => {
                assert!((*direction - DVec3::X).length() <= 1e-15)
            }
            other => panic!("expected sliding, got {other:?}"),
        }
    }
    let (a, alpha) = r.accelerations[1];
    assert_rel("a_x", a.x, -mu * G, 1e-9, G);
    assert!(a.y.abs() + a.z.abs() <= 1e-9 * G, "a = {a}");
    assert!(alpha.length() <= 1e-9 * G / 0.27, "α = {alpha}");
    let normal: f64 = r.normal.iter().sum();
    assert_rel("Σ f_n", normal, MASS * G, 1e-9, MASS * G);
    // The leading corners (x > 0) carry more than the trailing ones.
    let lead: f64 = (0..4)
        .filter(|&i| contacts[i].point_b.x > 0.0)
        .map(|i| r.normal[i])
        .sum();
    // Moments about the centre of mass (pitch): the friction μ m g acts c = 0.1 m below it, the
    // normal forces at ±a = ±0.2 m, so (N_lead − N_trail) a = μ m g c and the leading share is
    // ½ + μ c / (2a) = 0.625. (Unlike the left/right split, this one is determinate.)
    let (half_a, half_c) = (BOX.x / 2.0, BOX.z / 2.0);
    assert_rel(
        "leading share",
        lead / normal,
        0.5 + mu * half_c / (2.0 * half_a),
        1e-9,
        1.0,
    );
    let solve = r.solve.unwrap();
    eprintln!(
        "sliding: a_x = {:.15} (−μ g = {}), leading share {:.6}, solver {} residual {:.1e}",
        a.x,
        -mu * G,
        lead / normal,
        solve.solver,
        solve.residual
    );
}

// ---------------------------------------------------------------------------------------------
// The velocity-product term

/// A frictionless box (half extents a, b, c; mass m) standing on its bottom edge at body
/// (+a, ·, −c), tilted by φ about y, spinning at ω about that edge (the edge points have zero
/// velocity). With r = R_y(φ)(−a, 0, c) the vector from the edge to the centre of mass and
/// I = m (a² + c²)/3 the inertia about y through the centre (y is principal, so ω × Jω = 0):
///
/// - horizontal: no friction, a_x = 0;
/// - vertical: m a_z = N − m g;
/// - rotation: I α = torque of N ẑ at the edge about the centre = N r_x (about y);
/// - the edge point's vertical acceleration (R3): a_z + α r_x + ω² r_z
///   (α × (−r) has z-part α r_x; ω × (ω × (−r)) = ω² r for r ⊥ ω).
///
/// Setting it to 0 (N > 0): N = (g − ω² r_z) / (1/m + r_x²/I). For ω² r_z > g the edge lifts off:
/// N = 0 and a_n = ω² r_z − g.
#[test]
fn pivoting_box_normal_force_follows_the_centripetal_term() {
    let (a, b, c, m) = (0.3, 0.15, 0.1, 3.0);
    let phi = 25f64.to_radians();
    let q = DQuat::from_rotation_y(phi);
    let r = q * DVec3::new(-a, 0.0, c);
    let inertia = m * (a * a + c * c) / 3.0;
    let model = world(
        vec![
            ground(DVec3::Z),
            cuboid("box", DVec3::new(2.0 * a, 2.0 * b, 2.0 * c), m),
        ],
        0.0,
    );
    // ω² r_z < g for the first three, > g (lift-off) for the last.
    for w in [0.0, 2.0, -4.0, 12.0] {
        let omega = DVec3::new(0.0, w, 0.0);
        let state = initial_state(vec![still(), body_state(r, q, omega.cross(r), omega)]);
        let contacts = contacts_of(&model, &state);
        assert_eq!(contacts.len(), 2, "the two ends of the edge");
        let res = solve(&model, &state, &contacts, &no_wrenches(&model));
        assert_eq!(res.resting, vec![0, 1]);
        let total: f64 = res.normal.iter().sum();
        let closed = ((G - w * w * r.z) / (1.0 / m + r.x * r.x / inertia)).max(0.0);
        assert_rel("N", total, closed, 1e-9, m * G);
        if closed > 0.0 {
            // The two ends are symmetric about the centre: N/2 each (the 2×2 A is nonsingular).
            for &f in &res.normal {
                assert_rel("N/2", f, closed / 2.0, 1e-9, m * G);
            }
            for &an in &res.normal_acceleration {
                assert!(an.abs() <= 1e-9 * G);
            }
        } else {
            for &an in &res.normal_acceleration {
                assert_rel("lift-off a_n", an, w * w * r.z - G, 1e-9, G);
            }
        }
        eprintln!("pivot ω = {w}: N = {total:.15} N, closed form {closed:.15} N");
    }
}

/// Second time derivative at t = 0 of `gap(t)` by central differences with one Richardson step:
/// D(h) = (ψ(h) − 2ψ(0) + ψ(−h))/h² has error h² ψ⁗/12 + O(h⁴); (4 D(h/2) − D(h))/3 cancels the
/// h² term, leaving −h⁴ ψ⁽⁶⁾/1440 plus round-off ≈ 1e-16 |ψ| / (h/2)². Measured on the three cases
/// below: at h = 4e-3 the differences to d̈ are ≤ 4.2e-8 m/s², at h = 2e-3 ≤ 2.7e-9 (the 16× drop
/// of the h⁴ term), at h = 1e-3 ≈ 1e-9 (round-off takes over). Hence h = 2e-3 and a tolerance of
/// 1e-8 g ≈ 1e-7 m/s².
fn second_derivative(gap: impl Fn(f64) -> f64) -> f64 {
    let d = |h: f64| (gap(h) - 2.0 * gap(0.0) + gap(-h)) / (h * h);
    let h = 2e-3;
    (4.0 * d(h / 2.0) - d(h)) / 3.0
}

/// The pose of body `i` at time t along its second-order Taylor trajectory under the free
/// accelerations (a, α): x(t) = x + v t + a t²/2, R(t) = exp((ω t + α t²/2)^) R. Its first two
/// derivatives at 0 are those of the true motion (R̈ = ([α] + [ω]²) R), so the second derivative
/// of any gap function along it at t = 0 is exactly the true d̈.
fn taylor_pose(model: &Model, state: &State, i: usize, applied: &Wrench, t: f64) -> Pose {
    let bs = &state.bodies[i];
    let (a, alpha) = accelerations(model, state, i, applied);
    Pose::new(
        bs.position + bs.velocity * t + 0.5 * a * t * t,
        DQuat::from_scaled_axis(bs.angular_velocity * t + 0.5 * alpha * t * t) * bs.orientation,
    )
}

fn face_with_normal(p: &Polytope, local: DVec3) -> u32 {
    p.faces
        .iter()
        .position(|f| f.normal.dot(local) > 1.0 - 1e-12)
        .unwrap() as u32
}

fn edge_between(p: &Polytope, u: DVec3, v: DVec3) -> u32 {
    let vi = |x: DVec3| {
        p.vertices
            .iter()
            .position(|w| w.distance(x) < 1e-12)
            .unwrap() as u32
    };
    let (i, j) = (vi(u), vi(v));
    p.edges
        .iter()
        .position(|e| e.vertices == [i, j] || e.vertices == [j, i])
        .unwrap() as u32
}

fn polytope(model: &Model, body: usize) -> &Polytope {
    match &model.bodies[body].pieces[0].shape {
        Shape::Polytope(p) => p,
        _ => unreachable!(),
    }
}

/// Two free boxes in gravity with applied wrenches and generic spins.
fn two_boxes(extra: Option<Body>) -> Model {
    let mut bodies = vec![
        cuboid("a", DVec3::new(1.0, 0.8, 0.2), 4.0),
        cuboid("b", DVec3::new(0.3, 0.2, 0.25), 1.5),
    ];
    if let Some(b) = extra {
        bodies[1] = b;
    }
    world(bodies, 0.5)
}

fn wrenches() -> Vec<Wrench> {
    vec![
        Wrench {
            force: DVec3::new(3.0, -1.0, 20.0),
            torque: DVec3::new(0.5, 0.2, -0.7),
        },
        Wrench {
            force: DVec3::new(-2.0, 1.0, 4.0),
            torque: DVec3::new(-0.1, 0.3, 0.05),
        },
    ]
}

/// Check d̈ of a separating contact (no force anywhere, so the reported a_n is b of (R4)) against
/// the finite-difference second derivative of the exact gap function.
fn check_against_gap(model: &Model, state: &State, contact: Contact, gap: impl Fn(f64) -> f64) {
    let applied = wrenches();
    let r = default_solver()
        .solve(model, state, &[contact], &applied)
        .unwrap();
    assert_eq!(r.class[0], ContactClass::Separating);
    assert!(r.approximate_normal_rate.is_empty());
    let fd = second_derivative(&gap);
    let d2 = r.normal_acceleration[0];
    let tol = 1e-8 * G;
    assert!(
        (d2 - fd).abs() <= tol,
        "d̈ = {d2:.12e}, finite differences {fd:.12e}"
    );
    // The test sees the velocity products: n·(p̈_b − p̈_a) of the material contact points alone
    // (no 2 ṅ·v term, no sphere correction) is far off.
    let point_acc = |body: usize, p: DVec3| {
        let bs = &state.bodies[body];
        let (a, alpha) = accelerations(model, state, body, &applied[body]);
        let r = p - bs.position;
        a + alpha.cross(r) + bs.angular_velocity.cross(bs.angular_velocity.cross(r))
    };
    let material = contact
        .normal
        .dot(point_acc(1, contact.point_b) - point_acc(0, contact.point_a));
    assert!(
        (d2 - material).abs() > 1e4 * tol,
        "velocity products {:e}",
        d2 - material
    );
    eprintln!(
        "d̈ = {d2:.12e}, finite differences {fd:.12e}, difference {:.1e}; velocity products {:.3e}",
        d2 - fd,
        d2 - material
    );
}

/// Vertex of B on the top face of A while A spins: ṅ = ω_A × n and the vertex slides over the
/// face, so 2 ṅ·v_rel ≠ 0. Exact gap: ψ(t) = n(t)·(p_B(t) − q_A(t)) with n(t) = R_A(t) ẑ, p_B the
/// vertex and q_A a material point of the face.
#[test]
fn normal_acceleration_of_a_vertex_on_a_spinning_face_matches_the_gap() {
    let model = two_boxes(None);
    let pa = polytope(&model, 0);
    let pb = polytope(&model, 1);
    let qa = DQuat::from_scaled_axis(DVec3::new(0.2, -0.1, 0.3));
    let xa = DVec3::new(0.1, -0.2, 0.5);
    let top = face_with_normal(pa, DVec3::Z);
    let on_face = DVec3::new(0.15, -0.1, 0.1); // local point of A's top face (z = +0.1)
    let p = xa + qa * on_face;
    let n = qa * DVec3::Z;
    // B tilted so its corner 0 (−,−,−) is lowest, that corner at p.
    let qb = qa * DQuat::from_scaled_axis(DVec3::new(0.15, -0.2, 0.4));
    let corner = pb.vertices[0];
    let xb = p - qb * corner;
    let (wa, wb) = (DVec3::new(0.4, -1.1, 1.9), DVec3::new(-0.7, 0.8, 0.3));
    let va = DVec3::new(0.2, 0.1, -0.3);
    // B's corner slides over the face at ≈ 1 m/s and separates at 0.2 m/s.
    let mut vb = va + wa.cross(p - xa) - wb.cross(p - xb);
    vb += qa * DVec3::new(0.8, -0.6, 0.0) + 0.2 * n;
    let state = initial_state(vec![body_state(xa, qa, va, wa), body_state(xb, qb, vb, wb)]);
    let contact = Contact {
        body_a: 0,
        body_b: 1,
        piece_a: 0,
        piece_b: 0,
        point_a: p,
        point_b: p,
        normal: n,
        gap: 0.0,
        feature_a: Feature::Face(top),
        feature_b: Feature::Vertex(0),
    };
    let applied = wrenches();
    let gap = |t: f64| {
        let (pose_a, pose_b) = (
            taylor_pose(&model, &state, 0, &applied[0], t),
            taylor_pose(&model, &state, 1, &applied[1], t),
        );
        let n = pose_a.transform_vector(DVec3::Z);
        n.dot(pose_b.transform_point(corner) - pose_a.transform_point(on_face))
    };
    // The velocity-product term is far above the tolerance (1e-7 g ≈ 1e-6 m/s²).
    let v_rel = state.bodies[1].point_velocity(p) - state.bodies[0].point_velocity(p);
    let product = 2.0 * wa.cross(n).dot(v_rel);
    assert!(product.abs() > 0.5, "2 ṅ·v = {product}");
    check_against_gap(&model, &state, contact, gap);
}

/// Edge of A against edge of B, both spinning: n = (e_a × e_b)/|e_a × e_b| turns with both edges.
/// Exact gap: ψ(t) = n(t)·(q_B(t) − q_A(t)) for material points q on each edge line.
#[test]
fn normal_acceleration_of_crossing_edges_matches_the_gap() {
    let model = two_boxes(None);
    let (pa, pb) = (polytope(&model, 0), polytope(&model, 1));
    let (ha, hb) = (DVec3::new(0.5, 0.4, 0.1), DVec3::new(0.15, 0.1, 0.125));
    // A's edge along local x at (y, z) = (+h_y, +h_z); B's edge along its local x at (−h_y, −h_z).
    let ea = edge_between(
        pa,
        DVec3::new(-ha.x, ha.y, ha.z),
        DVec3::new(ha.x, ha.y, ha.z),
    );
    let eb = edge_between(
        pb,
        DVec3::new(-hb.x, -hb.y, -hb.z),
        DVec3::new(hb.x, -hb.y, -hb.z),
    );
    // In A's frame: n = (0, 1, 1)/√2 (between A's two faces at the edge), B's edge
    // e_b = (cos β, sin β/√2, −sin β/√2) ⊥ n, and B's frame (e_b, (n − m)/√2, (n + m)/√2) with
    // m = e_b × n, so B's interior lies along +n from its edge.
    let s2 = std::f64::consts::SQRT_2;
    let n_local = DVec3::new(0.0, 1.0, 1.0) / s2;
    let beta = 50f64.to_radians();
    let eb_local = DVec3::new(beta.cos(), beta.sin() / s2, -beta.sin() / s2);
    let m = eb_local.cross(n_local);
    let rb_local = DQuat::from_mat3(&DMat3::from_cols(
        eb_local,
        (n_local - m) / s2,
        (n_local + m) / s2,
    ));
    let qa = DQuat::from_scaled_axis(DVec3::new(-0.3, 0.25, 0.6));
    let xa = DVec3::new(0.3, 0.0, 1.0);
    let p = xa + qa * DVec3::new(0.1, ha.y, ha.z);
    let n = qa * n_local;
    let qb = qa * rb_local;
    let xb = p - qb * DVec3::new(0.0, -hb.y, -hb.z);
    let (wa, wb) = (DVec3::new(1.2, -0.5, 0.9), DVec3::new(-1.4, 2.0, -0.6));
    let va = DVec3::new(-0.1, 0.3, 0.2);
    let mut vb = va + wa.cross(p - xa) - wb.cross(p - xb);
    vb += 0.7 * (qa * DVec3::X) - 0.5 * (qb * DVec3::X) + 0.3 * n;
    let state = initial_state(vec![body_state(xa, qa, va, wa), body_state(xb, qb, vb, wb)]);
    let contact = Contact {
        body_a: 0,
        body_b: 1,
        piece_a: 0,
        piece_b: 0,
        point_a: p,
        point_b: p,
        normal: n,
        gap: 0.0,
        feature_a: Feature::Edge(ea),
        feature_b: Feature::Edge(eb),
    };
    let applied = wrenches();
    let (qa_local, qb_local) = (DVec3::new(0.1, ha.y, ha.z), DVec3::new(0.0, -hb.y, -hb.z));
    let gap = |t: f64| {
        let (pose_a, pose_b) = (
            taylor_pose(&model, &state, 0, &applied[0], t),
            taylor_pose(&model, &state, 1, &applied[1], t),
        );
        let u = pose_a
            .transform_vector(DVec3::X)
            .cross(pose_b.transform_vector(DVec3::X));
        let n_t = u.normalize() * u.dot(n).signum();
        n_t.dot(pose_b.transform_point(qb_local) - pose_a.transform_point(qa_local))
    };
    check_against_gap(&model, &state, contact, gap);
}

/// A ball (B) touching a vertex of a box (A), both moving: n = (c − p_v)/|c − p_v| and the exact
/// gap is ψ(t) = |c(t) − p_v(t)| − r. (Material points on the ball would be wrong here: its
/// contact point slides over its surface.)
#[test]
fn normal_acceleration_of_a_ball_on_a_vertex_matches_the_gap() {
    let radius = 0.2;
    let ball = Body::dynamic(
        "ball",
        single_piece(Shape::sphere(radius).unwrap()),
        Some(1.5),
        1.0,
        0,
    )
    .unwrap();
    let model = two_boxes(Some(ball));
    let pa = polytope(&model, 0);
    let qa = DQuat::from_scaled_axis(DVec3::new(0.2, -0.1, 0.3));
    let xa = DVec3::new(0.1, -0.2, 0.5);
    let v = 7; // corner (+, +, +)
    let corner = pa.vertices[v];
    let pv = xa + qa * corner;
    let n = (qa * DVec3::new(0.3, 0.5, 0.8)).normalize();
    let xb = pv + radius * n;
    let (wa, wb) = (DVec3::new(0.4, -1.1, 1.9), DVec3::new(-2.0, 0.8, 1.3));
    let va = DVec3::new(0.2, 0.1, -0.3);
    let slide = DVec3::new(0.6, -0.9, 0.4);
    let vb = va + wa.cross(pv - xa) + (slide - slide.dot(n) * n) + 0.2 * n;
    let state = initial_state(vec![
        body_state(xa, qa, va, wa),
        body_state(xb, DQuat::IDENTITY, vb, wb),
    ]);
    let contact = Contact {
        body_a: 0,
        body_b: 1,
        piece_a: 0,
        piece_b: 0,
        point_a: pv,
        point_b: xb - radius * n,
        normal: n,
        gap: 0.0,
        feature_a: Feature::Vertex(v as u32),
        feature_b: Feature::Surface,
    };
    let applied = wrenches();
    let gap = |t: f64| {
        let (pose_a, pose_b) = (
            taylor_pose(&model, &state, 0, &applied[0], t),
            taylor_pose(&model, &state, 1, &applied[1], t),
        );
        (pose_b.translation - pose_a.transform_point(corner)).length() - radius
    };
    check_against_gap(&model, &state, contact, gap);
}

/// A ball of radius r rolling without slipping on a fixed floor at speed v (ω = v/r about the
/// horizontal axis ⊥ v): its centre moves straight, so the floor carries exactly m g whatever v.
/// (With the material point of the ball's surface instead of the centre, b would gain r ω² and the
/// ball would leave the floor for r ω² > g; here r ω² = 90 m/s² ≈ 9 g.)
#[test]
fn rolling_ball_keeps_its_weight_on_the_floor() {
    let (radius, m, v) = (0.1, 0.7, 3.0);
    let ball = Body::dynamic(
        "ball",
        single_piece(Shape::sphere(radius).unwrap()),
        Some(m),
        1.0,
        0,
    )
    .unwrap();
    let model = world(vec![ground(DVec3::Z), ball], 0.5);
    // Rolling along +x: ω = (0, v/r, 0), so the contact point's velocity v + ω × (−r ẑ) is 0.
    let state = initial_state(vec![
        still(),
        body_state(
            DVec3::new(0.0, 0.0, radius),
            DQuat::IDENTITY,
            DVec3::new(v, 0.0, 0.0),
            DVec3::new(0.0, v / radius, 0.0),
        ),
    ]);
    let contacts = contacts_of(&model, &state);
    assert_eq!(contacts.len(), 1);
    let r = solve(&model, &state, &contacts, &no_wrenches(&model));
    assert_eq!(r.class[0], ContactClass::Sticking);
    assert_rel("N", r.normal[0], m * G, 1e-9, m * G);
    assert!(r.friction[0].length() <= 1e-9 * m * G);
    assert!(r.accelerations[1].0.length() <= 1e-9 * G);
    eprintln!("rolling ball: N = {:.15} N (m g = {})", r.normal[0], m * G);
}

// ---------------------------------------------------------------------------------------------
// Stacks

/// Two boxes of equal mass stacked on a plane (the top one smaller, so the middle contacts are its
/// four bottom corners): the bottom contacts carry 2 m g, the middle ones m g.
#[test]
fn stacked_boxes_carry_the_weight_above_them() {
    let m = 1.5;
    let model = world(
        vec![
            ground(DVec3::Z),
            cuboid("bottom", DVec3::new(0.4, 0.4, 0.2), m),
            cuboid("top", DVec3::new(0.3, 0.25, 0.2), m),
        ],
        0.5,
    );
    let state = initial_state(vec![
        still(),
        body_state(
            DVec3::new(0.0, 0.0, 0.1),
            DQuat::IDENTITY,
            DVec3::ZERO,
            DVec3::ZERO,
        ),
        body_state(
            DVec3::new(0.02, -0.03, 0.3),
            DQuat::IDENTITY,
            DVec3::ZERO,
            DVec3::ZERO,
        ),
    ]);
    let contacts = contacts_of(&model, &state);
    let pair = |c: &Contact, x: usize, y: usize| {
        (c.body_a, c.body_b) == (x, y) || (c.body_a, c.body_b) == (y, x)
    };
    let bottom: Vec<usize> = (0..contacts.len())
        .filter(|&i| pair(&contacts[i], 0, 1))
        .collect();
    let middle: Vec<usize> = (0..contacts.len())
        .filter(|&i| pair(&contacts[i], 1, 2))
        .collect();
    assert_eq!(bottom.len(), 4);
    assert_eq!(middle.len(), 4);
    assert_eq!(contacts.len(), 8);
    let r = solve(&model, &state, &contacts, &no_wrenches(&model));
    let sum = |idx: &[usize]| idx.iter().map(|&i| r.normal[i]).sum::<f64>();
    assert_rel("bottom Σ f_n", sum(&bottom), 2.0 * m * G, 1e-9, 2.0 * m * G);
    assert_rel("middle Σ f_n", sum(&middle), m * G, 1e-9, m * G);
    for i in 1..3 {
        let (a, alpha) = r.accelerations[i];
        assert!(a.length() <= 1e-9 * G && alpha.length() <= 1e-9 * G / 0.2);
    }
    for &an in &r.normal_acceleration {
        assert!(an >= -1e-9 * G);
    }
    let solve = r.solve.unwrap();
    eprintln!(
        "stack: bottom {:.15} N (2 m g = {}), middle {:.15} N (m g = {}); {} rows, {} {} iterations, residual {:.1e}",
        sum(&bottom),
        2.0 * m * G,
        sum(&middle),
        m * G,
        solve.rows,
        solve.solver,
        solve.iterations,
        solve.residual
    );
}

// ---------------------------------------------------------------------------------------------
// Failures

/// Painlevé: a thin rod (length 2l) leaning at θ = 60° on its lower end, sliding away from the side
/// of its centre of mass with μ = 2. With r = l (cos θ, 0, sin θ) from the contact to the centre of
/// mass and I = m (2l)²/12, the normal column of (R8) is m A = 1 + 3 cos²θ − 3 μ sinθ cosθ
/// = 1.75 − 2.60 < 0, and b = −g < 0 (at rest but for the slip, ω = 0): a_n = A f + b < 0 for
/// every f ≥ 0. No solution exists; the solve must fail and say so.
#[test]
fn painleve_configuration_is_reported_not_solved() {
    let (l, w, m, mu) = (0.5, 0.01, 1.0, 2.0);
    let theta = 60f64.to_radians();
    let model = world(
        vec![
            ground(DVec3::Z),
            cuboid("rod", DVec3::new(2.0 * l, w, w), m),
        ],
        mu,
    );
    // Rod axis (cos θ, 0, sin θ): rotation about y by −θ. Its lowest edge rests on z = 0; slide
    // along −x (away from the centre of mass, which is at +x from the contact).
    let q = DQuat::from_rotation_y(-theta);
    let low_edge = q * DVec3::new(-l, 0.0, -w / 2.0);
    let low_edge_2 = q * DVec3::new(-l, 0.0, w / 2.0);
    let lowest = if low_edge.z < low_edge_2.z {
        low_edge
    } else {
        low_edge_2
    };
    let state = initial_state(vec![
        still(),
        body_state(-lowest, q, DVec3::new(-1.0, 0.0, 0.0), DVec3::ZERO),
    ]);
    let contacts = contacts_of(&model, &state);
    assert_eq!(contacts.len(), 2, "the two ends of the lowest edge");
    let err = default_solver()
        .solve(&model, &state, &contacts, &no_wrenches(&model))
        .expect_err("an inconsistent configuration has no contact forces");
    match &err {
        RestingError::NotSolved {
            sliding, attempts, ..
        } => {
            assert_eq!(*sliding, 2);
            assert_eq!(attempts.len(), 2, "both solvers tried");
            for a in attempts {
                assert!(!a.status.is_solved());
            }
        }
        other => panic!("expected NotSolved, got {other:?}"),
    }
    let msg = err.to_string();
    assert!(msg.contains("Painlevé") && msg.contains("lemke"), "{msg}");
    eprintln!("{msg}");
}

/// A solver that fails hands the problem to the next one in the list; the report names the one
/// whose answer was used and counts the attempts.
#[test]
fn a_failing_solver_falls_back_to_the_next() {
    let (model, state) = box_on_plane(0.5, DVec3::ZERO, DVec3::ZERO);
    let contacts = contacts_of(&model, &state);
    let lemke = signorini::solvers::by_name("lemke").unwrap();
    let solver =
        RestingContact::with_solvers(RestingOptions::default(), vec![Box::new(Never), lemke])
            .unwrap();
    assert_eq!(solver.solver_names(), vec!["never", "lemke"]);
    let r = solver
        .solve(&model, &state, &contacts, &no_wrenches(&model))
        .unwrap();
    let report = r.solve.unwrap();
    assert_eq!((report.solver, report.attempts), ("lemke", 2));
    assert_rel("Σ f_n", r.normal.iter().sum(), MASS * G, 1e-9, MASS * G);
    // Only failing solvers: an error naming each one's status.
    let err = RestingContact::with_solvers(RestingOptions::default(), vec![Box::new(Never)])
        .unwrap()
        .solve(&model, &state, &contacts, &no_wrenches(&model))
        .unwrap_err();
    assert!(err.to_string().contains("never: iteration limit"), "{err}");
}

/// NaN in the state, a wrench list of the wrong length, a contact naming a missing body or with a
/// non-unit normal: errors, never panics.
#[test]
fn bad_input_is_an_error() {
    let (model, state) = box_on_plane(0.5, DVec3::ZERO, DVec3::ZERO);
    let contacts = contacts_of(&model, &state);
    let solver = default_solver();
    let w = no_wrenches(&model);

    let mut nan = state.clone();
    nan.bodies[1].velocity.x = f64::NAN;
    assert!(matches!(
        solver.solve(&model, &nan, &contacts, &w),
        Err(RestingError::BadInput(_))
    ));
    assert!(matches!(
        solver.solve(&model, &state, &contacts, &w[..1]),
        Err(RestingError::BadInput(_))
    ));
    let mut bad = contacts.clone();
    bad[0].body_b = 7;
    assert!(matches!(
        solver.solve(&model, &state, &bad, &w),
        Err(RestingError::BadInput(_))
    ));
    let mut bad = contacts.clone();
    bad[0].normal = DVec3::new(0.0, 0.0, 2.0);
    assert!(matches!(
        solver.solve(&model, &state, &bad, &w),
        Err(RestingError::BadInput(_))
    ));
    let mut bad = contacts.clone();
    bad[0].gap = f64::NAN;
    assert!(matches!(
        solver.solve(&model, &state, &bad, &w),
        Err(RestingError::BadInput(_))
    ));
    let mut nan_force = w.clone();
    nan_force[1].force.z = f64::INFINITY;
    assert!(matches!(
        solver.solve(&model, &state, &contacts, &nan_force),
        Err(RestingError::BadInput(_))
    ));
    assert!(matches!(
        RestingContact::with_solver_names(RestingOptions::default(), &["no-such-solver"]),
        Err(RestingError::UnknownSolver { .. })
    ));
    assert!(matches!(
        resting_forces(
            &model,
            &state,
            &contacts,
            &w,
            &RestingOptions::default(),
            &[]
        ),
        Err(RestingError::NoSolver)
    ));
    let options = RestingOptions {
        friction_directions: 2,
        ..RestingOptions::default()
    };
    assert!(matches!(
        resting_forces(&model, &state, &contacts, &w, &options, &[Box::new(Never)]),
        Err(RestingError::BadInput(_))
    ));
}

/// A solver that never succeeds (for input checks that must fail before any solve).
struct Never;

impl signorini::solvers::Solver for Never {
    fn name(&self) -> &'static str {
        "never"
    }

    fn solve(
        &self,
        problem: &signorini::solvers::Problem,
        _warm_start: Option<&nalgebra::DVector<f64>>,
        _options: &signorini::solvers::Options,
    ) -> signorini::solvers::Solve {
        signorini::solvers::Solve {
            z: nalgebra::DVector::zeros(problem.len()),
            status: signorini::solvers::Status::IterationLimit,
            stats: Default::default(),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Warm start, the residual as the contract, the degraded tolerance, drift stabilization

/// A solver that returns Lemke's answer scaled by `1 + scale`, with the status `status` (to
/// check that acceptance is by the residual, not by what the solver says).
struct Scaled {
    scale: f64,
    status: signorini::solvers::Status,
}

impl signorini::solvers::Solver for Scaled {
    fn name(&self) -> &'static str {
        "scaled"
    }

    fn solve(
        &self,
        problem: &signorini::solvers::Problem,
        warm_start: Option<&nalgebra::DVector<f64>>,
        options: &signorini::solvers::Options,
    ) -> signorini::solvers::Solve {
        let mut s = signorini::solvers::by_name("lemke")
            .unwrap()
            .solve(problem, warm_start, options);
        s.z *= 1.0 + self.scale;
        s.status = self.status.clone();
        s
    }
}

/// The second solve of the same contacts starts from the first one's active set and ends there
/// (solver `warm start`, no pivot) with the same forces; a different contact set runs Lemke.
#[test]
fn a_repeated_resting_lcp_is_solved_on_the_last_active_set() {
    let (model, state) = box_on_plane(0.5, DVec3::ZERO, DVec3::ZERO);
    let contacts = contacts_of(&model, &state);
    let w = no_wrenches(&model);
    let mut solver = default_solver();
    let first = solver.solve_warm(&model, &state, &contacts, &w).unwrap();
    assert_eq!(first.solve.as_ref().unwrap().solver, "lemke");
    let second = solver.solve_warm(&model, &state, &contacts, &w).unwrap();
    let report = second.solve.as_ref().unwrap();
    assert_eq!((report.solver, report.iterations), ("warm start", 0));
    assert!(report.residual <= 1e-10);
    for (a, b) in first.normal.iter().zip(&second.normal) {
        // Both solve the same principal system: equal to round-off of a 24-row LU.
        assert_rel("f_n", *b, *a, 1e-12, MASS * G);
    }
    // Three of the four corners: another signature, but every contact was in the last answer,
    // so its rows propose the support (repaired by principal pivoting, else sparse Lemke from
    // it), not Lemke from scratch.
    let third = solver
        .solve_warm(&model, &state, &contacts[..3], &w)
        .unwrap();
    let report = third.solve.as_ref().unwrap();
    assert!(
        ["warm start", "warm lemke"].contains(&report.solver),
        "{}",
        report.solver
    );
    assert!(report.residual <= 1e-10);
    // Three corners still carry the weight (to the 1e-10 relative residual).
    assert_rel("Σ f_n", third.normal.iter().sum(), MASS * G, 1e-9, MASS * G);
}

/// The LCP is solved per contact island: a Painlevé rod (no solution, as in
/// `painleve_configuration_is_reported_not_solved`) beside a resting box. Without
/// `skip_unsolved_islands` the rod's island fails the whole solve; with it the rod gets no force,
/// the box still carries its weight, and the report counts two islands and is failed.
#[test]
fn an_island_without_a_solution_leaves_the_others_their_forces() {
    let (l, w, m, mu) = (0.5, 0.01, 1.0, 2.0);
    let theta = 60f64.to_radians();
    let model = world(
        vec![
            ground(DVec3::Z),
            cuboid("rod", DVec3::new(2.0 * l, w, w), m),
            cuboid("box", BOX, MASS),
        ],
        mu,
    );
    let q = DQuat::from_rotation_y(-theta);
    let ends = [
        q * DVec3::new(-l, 0.0, -w / 2.0),
        q * DVec3::new(-l, 0.0, w / 2.0),
    ];
    let lowest = if ends[0].z < ends[1].z {
        ends[0]
    } else {
        ends[1]
    };
    let state = initial_state(vec![
        still(),
        body_state(-lowest, q, DVec3::new(-1.0, 0.0, 0.0), DVec3::ZERO),
        body_state(
            DVec3::new(5.0, 0.0, BOX.z / 2.0),
            DQuat::IDENTITY,
            DVec3::ZERO,
            DVec3::ZERO,
        ),
    ]);
    let contacts = contacts_of(&model, &state);
    assert_eq!(
        contacts.len(),
        6,
        "the rod's edge ends and the box's corners"
    );
    let applied = no_wrenches(&model);
    let err = default_solver().solve(&model, &state, &contacts, &applied);
    assert!(
        matches!(err, Err(RestingError::NotSolved { .. })),
        "{err:?}"
    );
    let options = RestingOptions {
        skip_unsolved_islands: true,
        ..RestingOptions::default()
    };
    let r = RestingContact::new(options)
        .unwrap()
        .solve(&model, &state, &contacts, &applied)
        .unwrap_or_else(|e| panic!("{e}"));
    let report = r.solve.unwrap();
    assert_eq!(report.islands, 2);
    assert!(report.failed);
    let on = |b: usize| -> f64 {
        (0..contacts.len())
            .filter(|&i| contacts[i].body_b == b || contacts[i].body_a == b)
            .map(|i| r.normal[i])
            .sum()
    };
    assert_eq!(on(1), 0.0, "the rod's island has no force");
    // The box's island alone: its weight to the solver's 1e-10 relative residual.
    assert_rel("box Σ f_n", on(2), MASS * G, 1e-9, MASS * G);
}

/// `stick_time`: a slip that friction under the contact's weight stops within t_s, |v_t| ≤
/// μ |g| t_s, is sticking; above it, and with t_s = 0, sliding.
#[test]
fn a_slip_friction_stops_within_stick_time_sticks() {
    let mu = 0.5;
    // μ |g| t_s = 4.905e-3 m/s with t_s = 1e-3 s.
    for (slip, stick_time, sticks) in [
        (4.0e-3, 1e-3, true),
        (6.0e-3, 1e-3, false),
        (4.0e-3, 0.0, false),
    ] {
        let (model, state) = box_on_plane(mu, DVec3::new(slip, 0.0, 0.0), DVec3::ZERO);
        let contacts = contacts_of(&model, &state);
        let options = RestingOptions {
            stick_time,
            ..RestingOptions::default()
        };
        let r = RestingContact::new(options)
            .unwrap()
            .solve(&model, &state, &contacts, &no_wrenches(&model))
            .unwrap_or_else(|e| panic!("{e}"));
        for class in &r.class {
            assert_eq!(
                matches!(class, ContactClass::Sticking),
                sticks,
                "slip {slip} m/s, stick_time {stick_time} s: {class:?}"
            );
        }
    }
}

/// A solver's answer counts when its residual meets the tolerance, whatever its status; one
/// that misses it is used only within `degraded_tolerance`, and then reported failed.
#[test]
fn the_residual_decides_and_the_degraded_tolerance_is_reported_failed() {
    use signorini::solvers::Status;
    let (model, state) = box_on_plane(0.5, DVec3::ZERO, DVec3::ZERO);
    let contacts = contacts_of(&model, &state);
    let w = no_wrenches(&model);
    let with = |scale: f64, degraded: f64| {
        let options = RestingOptions {
            degraded_tolerance: degraded,
            ..RestingOptions::default()
        };
        let solver = Scaled {
            scale,
            status: Status::IterationLimit,
        };
        RestingContact::with_solvers(options, vec![Box::new(solver)])
            .unwrap()
            .solve(&model, &state, &contacts, &w)
    };
    // Exact answer, "iteration limit": used, not failed.
    let r = with(0.0, 0.0).unwrap().solve.unwrap();
    assert!(!r.failed && r.residual <= 1e-10, "{r:?}");
    // Forces 1e-8 too large: a relative residual of about 1e-8 (the supporting rows' a_n is off
    // by 1e-8 of the terms it is summed from), above 1e-10: an error without a degraded
    // tolerance, used and reported failed with one.
    let err = with(1e-8, 0.0).unwrap_err();
    assert!(matches!(err, RestingError::NotSolved { .. }), "{err}");
    let r = with(1e-8, 1e-6).unwrap().solve.unwrap();
    assert!(r.failed, "{r:?}");
    assert!(r.residual > 1e-10 && r.residual <= 1e-6, "{r:?}");
    // 1e-4 too large is beyond the degraded tolerance too.
    assert!(with(1e-4, 1e-6).is_err());
}

/// Baumgarte's terms: a resting box held 1 cm in the ground is pushed up at a_z = −ψ̃/τ² with
/// ψ̃ = max(ψ, −v_max τ); one separating at v (below ε_v) is held at a_z = −2 v/τ; a contact
/// being pushed out stays resting up to ε_v + 2|ψ̃|/τ.
#[test]
fn stabilization_pushes_an_overlap_out_and_damps_the_normal_velocity() {
    let tau = 0.02;
    let options = RestingOptions {
        stabilization_time: tau,
        ..RestingOptions::default()
    };
    let solver = RestingContact::new(options).unwrap();
    let v_max = options.max_recovery_speed;
    for depth in [0.005, 0.05] {
        let (model, mut state) = box_on_plane(0.0, DVec3::ZERO, DVec3::ZERO);
        state.bodies[1].position.z -= depth;
        let contacts = contacts_of(&model, &state);
        let r = solver
            .solve(&model, &state, &contacts, &no_wrenches(&model))
            .unwrap();
        let bounded = depth.min(v_max * tau);
        let want = bounded / (tau * tau);
        // Four equal corners, one LU: round-off of the 4-row system.
        assert_rel("a_z", r.accelerations[1].0.z, want, 1e-9, want);
    }
    let v = 5e-5;
    let (model, state) = box_on_plane(0.0, DVec3::new(0.0, 0.0, v), DVec3::ZERO);
    let contacts = contacts_of(&model, &state);
    let r = solver
        .solve(&model, &state, &contacts, &no_wrenches(&model))
        .unwrap();
    assert_eq!(r.resting.len(), 4);
    assert_rel("a_z", r.accelerations[1].0.z, -2.0 * v / tau, 1e-9, G);
    // Without stabilization the same box is held at a_z = 0.
    let plain = solve(&model, &state, &contacts, &no_wrenches(&model));
    assert!(plain.accelerations[1].0.z.abs() <= 1e-9 * G);
    // Separation speed while an overlap is pushed out.
    let psi = -0.004;
    let limit = options.velocity_tolerance + 2.0 * (-psi) / tau;
    assert_eq!(options.separation_speed(psi), limit);
    assert_eq!(options.separation_speed(0.001), options.velocity_tolerance);
    assert_eq!(options.corrected_overlap(-1.0), -v_max * tau);
}
