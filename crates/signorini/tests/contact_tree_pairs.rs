//! Contact between the bodies of a forest (`contact::tree::pairs`): which shape pairs may touch,
//! a free cube resting on another on the ground under Stewart–Trinkle (height held) and penalty
//! (the springs' analytic depths), linear momentum through a collision of two free cubes under
//! both models, and Coulomb friction between two boxes (stick, move together, slide) under the
//! LCP.
#[path = "common/multibody.rs"]
mod mb;

use mb::{box_inertia, G};
use signorini::contact::tree::{
    candidate_pairs, link_contacts, Ground, LinkContact, LinkShape, TreeLcp, TreeLcpParams,
    TreePenalty, TreePenaltyParams, TreeStepStats,
};
use signorini::geometry::{Pose, Shape};
use signorini::multibody::algorithms::{forward_kinematics, kinetic_energy, momentum};
use signorini::multibody::{Controls, JointKind, Link, LinkKinematics, Tree, Workspace};
use signorini::{DQuat, DVec3};

/// Time step (s), the project's default.
const H: f64 = 1e-3;
/// Edge of every cube (m).
const EDGE: f64 = 0.2;
const HALF: f64 = EDGE / 2.0;
/// |g| (m/s²).
const GRAV: f64 = 9.81;

/// A cube of edge `EDGE` centred on link `link`'s origin.
fn cube(link: usize, friction: f64) -> LinkShape {
    LinkShape {
        link,
        pose: Pose::IDENTITY,
        shape: Shape::cuboid(DVec3::splat(EDGE)).unwrap(),
        friction,
    }
}

/// A link of mass `mass` shaped as a solid cube of edge `EDGE`, centre of mass at its origin,
/// its joint frame at `at` in its parent's frame (the world's for a root).
fn cube_link(name: &str, parent: Option<usize>, joint: JointKind, mass: f64, at: DVec3) -> Link {
    let inertia = box_inertia(mass, EDGE, EDGE, EDGE);
    Link::new(name, parent, joint, mass, DVec3::ZERO, inertia).at(Pose::new(at, DQuat::IDENTITY))
}

/// A forest of free cubes, each a root on a floating joint, with its shapes and state.
struct Scene {
    tree: Tree,
    shapes: Vec<LinkShape>,
    q: Vec<f64>,
    v: Vec<f64>,
}

impl Scene {
    /// Cubes given as (mass kg, friction –, centre m): link i is cube i, unrotated, at rest.
    fn free_cubes(cubes: &[(f64, f64, DVec3)], gravity: DVec3) -> Scene {
        let links = (cubes.iter().enumerate())
            .map(|(i, &(m, _, _))| {
                cube_link(
                    &format!("cube{i}"),
                    None,
                    JointKind::Floating,
                    m,
                    DVec3::ZERO,
                )
            })
            .collect();
        let tree = Tree::new(links, gravity).unwrap();
        let shapes = (cubes.iter().enumerate())
            .map(|(i, c)| cube(i, c.1))
            .collect();
        let mut q = tree.neutral_q();
        for (i, c) in cubes.iter().enumerate() {
            let o = tree.q_offset(i);
            q[o..o + 3].copy_from_slice(&c.2.to_array());
        }
        let v = vec![0.0; tree.nv()];
        Scene { tree, shapes, q, v }
    }

    /// A cube of mass `m_upper` resting exactly on one of `m_lower` resting on the ground z = 0.
    fn stack(m_lower: f64, m_upper: f64, mu_lower: f64, mu_upper: f64) -> Scene {
        Scene::free_cubes(
            &[
                (m_lower, mu_lower, DVec3::new(0.0, 0.0, HALF)),
                (m_upper, mu_upper, DVec3::new(0.0, 0.0, 3.0 * HALF)),
            ],
            G,
        )
    }

    /// Cube i's centre (= its link origin, m, world).
    fn centre(&self, i: usize) -> DVec3 {
        let o = self.tree.q_offset(i);
        DVec3::from_slice(&self.q[o..o + 3])
    }

    /// Cube i's v = [ω; v] (link axes) set from world-axis vectors, the cube unrotated.
    fn set_velocity(&mut self, i: usize, omega: DVec3, vel: DVec3) {
        let o = self.tree.v_offset(i);
        self.v[o..o + 3].copy_from_slice(&omega.to_array());
        self.v[o + 3..o + 6].copy_from_slice(&vel.to_array());
    }
}

/// Either contact model of a tree, stepped alike.
enum Model {
    Lcp(TreeLcp),
    Penalty(TreePenalty),
}

impl Model {
    fn lcp(ground: Ground) -> Model {
        Model::Lcp(
            TreeLcp::new(TreeLcpParams {
                ground,
                ..TreeLcpParams::default()
            })
            .unwrap(),
        )
    }

    fn penalty(tree: &Tree, ground: Ground) -> Model {
        let params = TreePenaltyParams {
            ground,
            ..TreePenaltyParams::default()
        };
        Model::Penalty(TreePenalty::new(params, tree, H).unwrap())
    }

    /// The penalty model's stiffness per point (N/m); `None` for the LCP.
    fn stiffness(&self) -> Option<f64> {
        match self {
            Model::Lcp(_) => None,
            Model::Penalty(p) => Some(p.stiffness),
        }
    }

    /// `steps` steps of `H`; `each` sees the stats, the scene after the step and its links'
    /// world kinematics.
    fn run(
        &mut self,
        scene: &mut Scene,
        controls: &Controls,
        steps: usize,
        mut each: impl FnMut(&TreeStepStats, &Scene, &[LinkKinematics]),
    ) {
        let (mut ws, mut fk) = (Workspace::new(&scene.tree), Workspace::new(&scene.tree));
        for _ in 0..steps {
            let Scene { tree, shapes, q, v } = scene;
            let state = (q.as_mut_slice(), v.as_mut_slice());
            let stats = match self {
                Model::Lcp(m) => m.step(tree, &mut ws, shapes, state, controls, H),
                Model::Penalty(m) => m.step(tree, &mut ws, shapes, state, controls, H),
            }
            .unwrap();
            let links = forward_kinematics(&scene.tree, &mut fk, &scene.q, &scene.v).unwrap();
            each(&stats, scene, links);
        }
    }
}

/// The shape-pair contacts of `scene` within `margin` (m) at the links `links`.
fn pair_contacts(scene: &Scene, links: &[LinkKinematics], margin: f64) -> Vec<LinkContact> {
    let pairs = candidate_pairs(&scene.tree, &scene.shapes, false);
    let mut out = Vec::new();
    link_contacts(&scene.shapes, &pairs, links, margin, &mut out);
    out
}

#[test]
fn candidate_pairs_follow_bodies_joints_and_welds() {
    // Body 0, welded to the world: base (fixed root, two shapes) ← l1 ← l2 ← l3 (revolute), and
    // plate ← plate2 welded to the base by fixed joints. Body 1: a post, a second fixed root.
    // Bodies 2 and 3: free cubes on floating joints.
    let rev = |axis| JointKind::Revolute { axis };
    let up = DVec3::new(0.0, 0.0, EDGE);
    let links = vec![
        cube_link("base", None, JointKind::Fixed, 1.0, DVec3::ZERO),
        cube_link("l1", Some(0), rev(DVec3::Y), 1.0, up),
        cube_link("l2", Some(1), rev(DVec3::Y), 1.0, up),
        cube_link("l3", Some(2), rev(DVec3::X), 1.0, up),
        cube_link("plate", Some(0), JointKind::Fixed, 1.0, DVec3::X),
        cube_link("plate2", Some(4), JointKind::Fixed, 1.0, DVec3::X),
        cube_link("post", None, JointKind::Fixed, 1.0, DVec3::Y),
        cube_link("free_a", None, JointKind::Floating, 1.0, DVec3::ZERO),
        cube_link("free_b", None, JointKind::Floating, 1.0, DVec3::ZERO),
    ];
    let tree = Tree::new(links, G).unwrap();
    // Shape i on link i, then a second shape on the base (welded), on l2 and on free_a (both
    // movable: only the same-link rule keeps them apart with self contact on).
    let mut shapes: Vec<LinkShape> = (0..tree.len()).map(|l| cube(l, 0.5)).collect();
    shapes.extend([0, 2, 7].map(|l| cube(l, 0.5)));
    // What the test knows of each link, written out rather than derived from the tree: its body
    // (root), its rigid piece (links joined by fixed joints move as one: plate and plate2 are
    // the base's), whether it is welded to the world, its parent.
    let body = [0, 0, 0, 0, 0, 0, 6, 7, 8];
    let piece = [0, 1, 2, 3, 0, 0, 6, 7, 8];
    let welded = [true, false, false, false, true, true, true, false, false];
    let parent = [
        None,
        Some(0),
        Some(1),
        Some(2),
        Some(0),
        Some(4),
        None,
        None,
        None,
    ];
    let with_self = candidate_pairs(&tree, &shapes, true);
    let without = candidate_pairs(&tree, &shapes, false);
    let mut counts = [0usize; 5];
    for a in 0..shapes.len() {
        for b in a + 1..shapes.len() {
            let (la, lb) = (piece[shapes[a].link], piece[shapes[b].link]);
            let (in_self, in_without) = (with_self.contains(&(a, b)), without.contains(&(a, b)));
            let what =
                format!("shapes {a}, {b} (links {la}, {lb}): self {in_self}, no self {in_without}");
            let (expected_self, expected_without, case) = if la == lb {
                (false, false, 0) // (a) the same link or rigid piece
            } else if welded[la] && welded[lb] {
                (false, false, 4) // (e) both welded, whether one body or two
            } else if body[la] != body[lb] {
                (true, true, 3) // (d) different bodies
            } else if parent[la] == Some(lb) || parent[lb] == Some(la) {
                (false, false, 1) // (b) parent and child (l1 hangs from the base's piece)
            } else {
                (true, false, 2) // (c) one body, not adjacent
            };
            counts[case] += 1;
            assert_eq!(
                (in_self, in_without),
                (expected_self, expected_without),
                "{what}"
            );
        }
    }
    println!(
        "pairs: {} with self contact, {} without; cases (a)-(e) met {counts:?} times",
        with_self.len(),
        without.len()
    );
    // Each rule was exercised, including the discriminating ones: two shapes on l2 and on
    // free_a (movable links), base–plate2 (non-adjacent, one body, both welded) and base–post
    // (different bodies, both welded) are out even with self contact.
    assert!(counts.iter().all(|&n| n > 0), "{counts:?}");
    for pair in [(2, 10), (7, 11), (0, 5), (0, 6)] {
        assert!(!with_self.contains(&pair), "{pair:?}");
    }
    // Ordered a < b, in order, no repeats: deterministic.
    assert!(with_self.windows(2).all(|w| w[0] < w[1]) && with_self.iter().all(|&(a, b)| a < b));
}

#[test]
fn links_joined_by_fixed_joints_are_one_piece_for_self_contact() {
    // A free base carrying two overlapping cubes on fixed joints (siblings, not adjacent), a
    // third fixed one below the second (a chain of two fixed joints), and a revolute arm hung
    // from the first fixed cube: the four fixed-joined links are one rigid piece, so with self
    // contact on none of their shapes pair, and the arm is that piece's child (adjacent), so it
    // pairs with none of them either. (Before pieces were counted, the two siblings paired with
    // a Jacobian row of zeros, and the LCP's first step failed: Lemke's ray, PGS a zero diagonal.)
    let half = DVec3::new(0.0, 0.0, 0.25 * EDGE);
    let links = vec![
        cube_link(
            "base",
            None,
            JointKind::Floating,
            1.0,
            DVec3::new(0.0, 0.0, 1.0),
        ),
        cube_link("left", Some(0), JointKind::Fixed, 1.0, half),
        cube_link("right", Some(0), JointKind::Fixed, 1.0, -half),
        cube_link("below", Some(2), JointKind::Fixed, 1.0, -half),
        cube_link(
            "arm",
            Some(1),
            JointKind::Revolute { axis: DVec3::Y },
            1.0,
            half,
        ),
    ];
    let tree = Tree::new(links, G).unwrap();
    let shapes: Vec<LinkShape> = (0..tree.len()).map(|l| cube(l, 0.5)).collect();
    assert_eq!(candidate_pairs(&tree, &shapes, true), []);
    // A second body still touches every one of them.
    let mut links = tree.links().to_vec();
    links.push(cube_link(
        "other",
        None,
        JointKind::Floating,
        1.0,
        DVec3::ZERO,
    ));
    let forest = Tree::new(links, G).unwrap();
    let shapes: Vec<LinkShape> = (0..forest.len()).map(|l| cube(l, 0.5)).collect();
    let pairs = candidate_pairs(&forest, &shapes, true);
    assert_eq!(pairs, (0..5).map(|a| (a, 5)).collect::<Vec<_>>());
}

#[test]
fn lcp_cube_rests_on_a_cube_resting_on_the_ground() {
    let (m1, m2) = (2.0, 1.0);
    let mut scene = Scene::stack(m1, m2, 0.5, 0.5);
    let (z1, z2) = (scene.centre(0).z, scene.centre(1).z);
    let mut model = Model::lcp(Ground::at(0.0));
    let (mut drift, mut speed, mut worst_residual) = (0.0f64, 0.0f64, 0.0f64);
    let mut counts = std::collections::BTreeSet::new();
    let controls = Controls::new(&scene.tree);
    model.run(&mut scene, &controls, 1000, |stats, s, links| {
        drift = drift
            .max((s.centre(1).z - z2).abs())
            .max((s.centre(0).z - z1).abs());
        speed = s.v.iter().fold(speed, |m, w| m.max(w.abs()));
        worst_residual = worst_residual.max(stats.residual);
        // Physically required every step: the lower cube's four bottom corners on the ground
        // (the ground's vertex contacts), and between the cubes a support polygon containing
        // the upper cube's centre of mass: here, equal faces, every corner of the shared
        // square, with every point on that square.
        let pairs = pair_contacts(s, links, 0.01);
        let ground = stats.contacts - pairs.len();
        assert_eq!(ground, 4, "ground contacts");
        let top = s.centre(0) + DVec3::new(0.0, 0.0, HALF);
        for c in &pairs {
            let d = c.point_b - top;
            assert!(
                d.z.abs() <= 1e-9 && d.x.abs() <= HALF + 1e-9 && d.y.abs() <= HALF + 1e-9,
                "{c:?}"
            );
        }
        for (sx, sy) in [(-1.0, -1.0), (1.0, -1.0), (-1.0, 1.0), (1.0, 1.0)] {
            let corner = top + DVec3::new(sx * HALF, sy * HALF, 0.0);
            assert!(
                pairs.iter().any(|c| c.point_b.distance(corner) <= 1e-9),
                "corner {corner}: {pairs:?}"
            );
        }
        counts.insert((ground, pairs.len()));
    });
    println!("LCP stack: max height drift {drift:e} m, max |v| {speed:e}, worst residual {worst_residual:e}, (ground, box-box) contacts per step {counts:?}");
    // Issue 18's target for ground contact, ≤ 1e-9 m over 1 s, now for a stack: the position
    // term ψ/h keeps each gap at 0 to the LCP's tolerance (1e-8, scaled) times h.
    assert!(drift <= 1e-9, "height drift {drift} m");
    // Resting: the LCP answers v⁺ = 0 to its tolerance; 1e-9 m/s as for the penalty box at rest.
    assert!(speed <= 1e-9, "speed {speed}");
}

#[test]
fn penalty_stack_rests_at_the_springs_analytic_depths() {
    let (m1, m2) = (2.0, 1.0);
    let mut scene = Scene::stack(m1, m2, 0.5, 0.5);
    let mut model = Model::penalty(&scene.tree, Ground::at(0.0));
    let k = model.stiffness().unwrap();
    let mut last = (TreeStepStats::default(), 0);
    let controls = Controls::new(&scene.tree);
    model.run(&mut scene, &controls, 2000, |stats, s, links| {
        last = (stats.clone(), pair_contacts(s, links, 0.0).len());
    });
    let (stats, n_pair) = last;
    let n_ground = stats.contacts - n_pair;
    let depth = HALF - scene.centre(0).z;
    let overlap = scene.centre(0).z + EDGE - scene.centre(1).z;
    // At rest each spring carries its share: the ground's four corners the weight of both
    // cubes, the cubes' n_pair points the upper cube's weight.
    let d1 = (m1 + m2) * GRAV / (n_ground as f64 * k);
    let d2 = m2 * GRAV / (n_pair as f64 * k);
    let speed = scene.v.iter().fold(0.0f64, |m, w| m.max(w.abs()));
    println!(
        "penalty stack: k {k} N/m, contacts ground {n_ground} box-box {n_pair}; depth {depth:e} vs {d1:e} (rel {:e}), overlap {overlap:e} vs {d2:e} (rel {:e}), max |v| {speed:e}",
        (depth - d1) / d1,
        (overlap - d2) / d2
    );
    assert_eq!(n_ground, 4, "the lower cube's bottom corners");
    // The transient: masses 2 and 1 kg on springs 4k below each (k = 3e4 N/m) with dampers 4c
    // (c = 300 N s/m, so C = K · 0.01 s): modes at 188 and 453 rad/s with ζ = 0.94 and 2.26,
    // the slowest decaying as e^(−105 t), to e^-210 over 2 s. What remains is round-off of
    // 1e-4 m depths: 1e-9 relative, as the single cube's test.
    assert!(
        (depth - d1).abs() <= 1e-9 * d1,
        "depth {depth}, analytic {d1}"
    );
    assert!(
        (overlap - d2).abs() <= 1e-9 * d2,
        "overlap {overlap}, analytic {d2}"
    );
    assert!(speed <= 1e-9, "{:?}", scene.v);
}

/// What a collision of two free cubes did ([`collide`]).
#[derive(Debug)]
struct Collision {
    /// Largest |p(t) − p(0)| of the total linear momentum over the run (kg m/s).
    momentum_error: f64,
    /// |p(0)| (kg m/s).
    momentum: f64,
    /// Smallest gap between the cubes over the run (m; < 0: overlap).
    min_gap: f64,
    /// Box–box contact points at the deepest step.
    points_at_deepest: usize,
    /// Final world velocities of the two centres of mass (m/s).
    velocities: (DVec3, DVec3),
    /// Kinetic energy at the start and the end (J).
    energy: (f64, f64),
    /// The penalty model's stiffness per point (N/m).
    stiffness: Option<f64>,
}

/// Two 1 kg cubes without gravity (the ground 100 m below, never reached), faces aligned: A at
/// the origin moving along +x at 1 m/s and spinning about x at `spin` rad/s, B at rest 5.05 cm
/// ahead; 200 steps (contact from about step 50).
fn collide(model: impl FnOnce(&Tree, Ground) -> Model, spin: f64) -> Collision {
    let gap0 = 0.0505;
    let mut scene = Scene::free_cubes(
        &[
            (1.0, 0.5, DVec3::ZERO),
            (1.0, 0.5, DVec3::new(EDGE + gap0, 0.0, 0.0)),
        ],
        DVec3::ZERO,
    );
    scene.set_velocity(0, DVec3::new(spin, 0.0, 0.0), DVec3::X);
    let mut model = model(&scene.tree, Ground::at(-100.0));
    let mut ws = Workspace::new(&scene.tree);
    let (p0, _) = momentum(&scene.tree, &mut ws, &scene.q, &scene.v).unwrap();
    let e0 = kinetic_energy(&scene.tree, &mut ws, &scene.q, &scene.v).unwrap();
    let mut out = Collision {
        momentum_error: 0.0,
        momentum: p0.length(),
        min_gap: f64::INFINITY,
        points_at_deepest: 0,
        velocities: (DVec3::ZERO, DVec3::ZERO),
        energy: (e0, 0.0),
        stiffness: model.stiffness(),
    };
    let controls = Controls::new(&scene.tree);
    model.run(&mut scene, &controls, 200, |_, s, links| {
        let (p, _) = momentum(&s.tree, &mut ws, &s.q, &s.v).unwrap();
        out.momentum_error = out.momentum_error.max((p - p0).length());
        let pairs = pair_contacts(s, links, 0.01);
        if let Some(gap) = pairs.iter().map(|c| c.gap).reduce(f64::min) {
            if gap < out.min_gap {
                out.min_gap = gap;
                out.points_at_deepest = pairs.iter().filter(|c| c.gap < 0.0).count();
            }
        }
        out.velocities = (links[0].velocity, links[1].velocity);
    });
    out.energy.1 = kinetic_energy(&scene.tree, &mut ws, &scene.q, &scene.v).unwrap();
    out
}

#[test]
fn collision_of_free_cubes_conserves_linear_momentum() {
    for spin in [0.0, 3.0] {
        let lcp = collide(|_, ground| Model::lcp(ground), spin);
        let penalty = collide(Model::penalty, spin);
        for (name, c) in [("stewart-trinkle", &lcp), ("penalty", &penalty)] {
            println!("spin {spin} rad/s, {name}: {c:?}");
            // No external force (no gravity, the ground never reached): the contact impulses
            // are equal and opposite (J = J_B − J_A), H is block-diagonal per body, so the
            // world linear momentum changes by round-off only: 1e-12 of |p| = 1 kg m/s over 200
            // steps of order-1 arithmetic.
            assert!(c.momentum_error <= 1e-12 * c.momentum, "{name}: {c:?}");
            // Neither model adds energy in a collision (LCP: inelastic; penalty: backward
            // Euler removes energy from a spring–damper); 1e-12 J of round-off.
            assert!(c.energy.1 <= c.energy.0 + 1e-12, "{name}: {c:?}");
            // B ends ahead of A or with it: separating or together, never passing through.
            assert!(c.velocities.1.x >= c.velocities.0.x - 1e-9, "{name}: {c:?}");
        }
        // Stewart–Trinkle's impact is inelastic: v_n⁺ ≥ −ψ/h stops the approach at contact, and
        // at ψ = 0 the pair leaves with relative normal velocity 0: equal masses end at 0.5 m/s
        // each, to the LCP's tolerance (1e-8 scaled by ‖q‖ ≈ 1 m/s).
        let (a, b) = lcp.velocities;
        assert!(
            (a.x - 0.5).abs() <= 1e-8 && (b.x - 0.5).abs() <= 1e-8,
            "{lcp:?}"
        );
        // The approach is anticipated (ψ/h with ψ ≥ 0), so the cubes never overlap beyond the
        // LCP's tolerance times h.
        assert!(lcp.min_gap >= -1e-9, "{lcp:?}");
        // Penalty: the springs store at most the kinetic energy not bound to the conserved
        // momentum, E − |p|² / (2 M) (M = 2 kg: ½ μ v² = 0.25 J with μ = 0.5 kg, plus the
        // spin's 0.03 J; backward Euler only removes energy). The faces stay parallel, so n
        // points of stiffness k at one depth d hold ½ n k d²: d ≤ √(2 E_rel / (n k)), n the
        // points at the deepest step.
        let k = penalty.stiffness.unwrap();
        let e_rel = penalty.energy.0 - penalty.momentum.powi(2) / (2.0 * 2.0);
        let bound = (2.0 * e_rel / (penalty.points_at_deepest as f64 * k)).sqrt();
        println!(
            "penalty overlap {:e} m, energy bound {bound:e} m",
            -penalty.min_gap
        );
        assert!(-penalty.min_gap <= bound, "{penalty:?} bound {bound}");
    }
}

/// One run of the friction test: the push (N) and the expected accelerations (m/s², x) of the
/// lower and the upper cube.
struct Push {
    name: &'static str,
    force: f64,
    accel: (f64, f64),
}

#[test]
fn lcp_friction_between_cubes_sticks_carries_or_lets_slide() {
    // A 1 kg cube (μ 0.8) on a 2 kg cube (μ 0.2) on the ground; the ground's friction is the
    // lower cube's μ_g = 0.2, the cubes' √(0.2 · 0.8) = 0.4. The lower cube is pushed along x at
    // its centre. Coulomb: below μ_g (m1 + m2) g nothing moves; above, the pair slides on the
    // ground together at F / (m1 + m2) − μ_g g while the upper cube needs at most μ g of
    // friction, i.e. F ≤ (μ_g + μ)(m1 + m2) g; beyond, the upper cube slides at μ g and the
    // lower at (F − μ_g (m1 + m2) g − μ m2 g) / m1.
    let (m1, m2, mu_g, mu_top): (f64, f64, f64, f64) = (2.0, 1.0, 0.2, 0.8);
    let mu = (mu_g * mu_top).sqrt();
    let m = m1 + m2;
    let stick = mu_g * m * GRAV;
    let carry = (mu_g + mu) * m * GRAV;
    let together = |f: f64| f / m - mu_g * GRAV;
    let pushes = [
        Push {
            name: "stick",
            force: 0.5 * stick,
            accel: (0.0, 0.0),
        },
        Push {
            name: "together",
            force: 0.5 * (stick + carry),
            accel: (
                together(0.5 * (stick + carry)),
                together(0.5 * (stick + carry)),
            ),
        },
        Push {
            name: "slide",
            force: 1.5 * carry,
            accel: ((1.5 * carry - stick - mu * m2 * GRAV) / m1, mu * GRAV),
        },
    ];
    for push in pushes {
        let mut scene = Scene::stack(m1, m2, mu_g, mu_top);
        let mut controls = Controls::new(&scene.tree);
        // [moment; force] in link axes at the link origin = the centre; unrotated: world x.
        controls.tau[scene.tree.v_offset(0) + 3] = push.force;
        let mut model = Model::lcp(Ground::at(0.0));
        let (mut n, mut worst, mut lift) = (0, 0.0f64, 0.0f64);
        // 150 steps: sliding, the upper cube falls behind by ½ (a1 − a2) t² = 5 cm of its
        // 20 cm face, its centre of pressure (0.1 μ = 4 cm behind its centre) still on the
        // lower cube.
        model.run(&mut scene, &controls, 150, |_, s, links| {
            n += 1;
            let t = n as f64 * H;
            // Semi-implicit Euler under constant forces: v after n steps is n h a exactly.
            worst = worst.max((links[0].velocity.x - push.accel.0 * t).abs());
            worst = worst.max((links[1].velocity.x - push.accel.1 * t).abs());
            lift = lift
                .max((s.centre(0).z - HALF).abs())
                .max((s.centre(1).z - 3.0 * HALF).abs());
        });
        let x = |i: usize| scene.v[scene.tree.v_offset(i) + 3];
        let (v1, v2) = (x(0), x(1));
        println!(
            "{}: F {:.4} N, expected a ({:.6}, {:.6}) m/s², v at 0.15 s ({v1:.12}, {v2:.12}) m/s, worst |v - a t| {worst:e}, height change {lift:e}",
            push.name, push.force, push.accel.0, push.accel.1
        );
        // The pyramid has directions ±x about the normal +z, so Coulomb's cone is exact for
        // these pushes and the LCP's answer is Coulomb's to its tolerance (1e-8 of ‖q‖ ≈ g h,
        // accumulated over the steps), as for a single cube on the ground.
        assert!(worst <= 1e-8, "{}: worst {worst}", push.name);
        assert!(lift <= 1e-9, "{}: height change {lift}", push.name);
    }
}
