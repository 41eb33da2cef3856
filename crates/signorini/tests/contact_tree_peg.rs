//! PEG on a tree (`contact::tree::peg`): without polytope pairs between links it is the tree's
//! Stewart–Trinkle step bit for bit; on the PEG paper's fig. 2 trap (a cube thrown corner-first
//! at the top edge of a fixed block, `examples/peg_corner_trap.toml` rebuilt as a forest) it
//! keeps the exact overlap volume below 1e-10 m³ at every step while the standard model lets
//! the bodies overlap; a cube resting on a cube on the ground holds its height; its parameters
//! are set by name and checked.
#[path = "common/multibody.rs"]
mod mb;

use mb::{box_inertia, write_quat, G};
use signorini::contact::tree::{Ground, LinkShape, TreeLcp, TreeLcpParams, TreeStepStats};
use signorini::geometry::overlap::overlap_volume;
use signorini::geometry::{Pose, Shape};
use signorini::multibody::algorithms::forward_kinematics;
use signorini::multibody::{Controls, JointKind, Link, Tree, Workspace};
use signorini::{DQuat, DVec3};

/// A forest, its shapes and state.
struct Forest {
    tree: Tree,
    shapes: Vec<LinkShape>,
    q: Vec<f64>,
    v: Vec<f64>,
}

/// A root link of mass `mass` (kg) with the inertia of a solid box of edges `size` (m).
fn root(name: &str, joint: JointKind, mass: f64, size: DVec3) -> Link {
    let inertia = box_inertia(mass, size.x, size.y, size.z);
    Link::new(name, None, joint, mass, DVec3::ZERO, inertia)
}

fn shape(link: usize, shape: Shape, friction: f64) -> LinkShape {
    LinkShape {
        link,
        pose: Pose::IDENTITY,
        shape,
        friction,
    }
}

impl Forest {
    /// Link `i`'s floating joint set to the world pose (`at`, `r`) and the world velocities
    /// (`vel`, `omega`), converted to its [ω; v] in link axes.
    fn place(&mut self, i: usize, (at, r): (DVec3, DQuat), (vel, omega): (DVec3, DVec3)) {
        let (o, w) = (self.tree.q_offset(i), self.tree.v_offset(i));
        self.q[o..o + 3].copy_from_slice(&at.to_array());
        write_quat(r, &mut self.q[o + 3..o + 7]);
        let inv = r.inverse();
        self.v[w..w + 3].copy_from_slice(&(inv * omega).to_array());
        self.v[w + 3..w + 6].copy_from_slice(&(inv * vel).to_array());
    }

    /// `steps` steps of `h` under `model`; `each` sees the stats and the forest after the step.
    fn run(
        &mut self,
        model: &mut TreeLcp,
        h: f64,
        steps: usize,
        mut each: impl FnMut(&TreeStepStats, &Forest),
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

    /// The exact overlap volume of shapes 0 and 1 (m³).
    fn overlap(&self) -> f64 {
        let mut ws = Workspace::new(&self.tree);
        let links = forward_kinematics(&self.tree, &mut ws, &self.q, &self.v).unwrap();
        let pose = |s: &LinkShape| {
            let l = &links[s.link];
            Pose::new(l.position, DQuat::from_mat3(&l.rotation).normalize()).mul(&s.pose)
        };
        let (a, b) = (&self.shapes[0], &self.shapes[1]);
        overlap_volume(&a.shape, &pose(a), &b.shape, &pose(b))
    }
}

fn model(peg: bool, ground: f64) -> TreeLcp {
    TreeLcp::new(TreeLcpParams {
        peg,
        ground: Ground::at(ground),
        ..TreeLcpParams::default()
    })
    .unwrap()
}

/// A 0.2 m, 1 kg cube resting on the ground and a 0.1 m-radius, 1 kg ball dropped from 0.3 m
/// onto its top, off centre: every contact is a ground or a ball–cube point, none a polytope
/// pair between links, so PEG's LCP is Stewart–Trinkle's row for row. The two solve it from
/// different warm starts (PEG: last step's answer by constraint key, least-norm on singular
/// supports; Stewart–Trinkle: last step's answer by position), so where the impulses are not
/// unique (the cube's four coplanar corners) they may differ, but the velocities and the
/// trajectory are the same to round-off: q and v within 1e-12 over 600 steps of 1 ms (measured
/// 6.9e-14). The ball must land (a ball–cube contact seen), or the comparison proves nothing
/// about link pairs.
#[test]
fn without_polytope_pairs_between_links_peg_steps_as_stewart_trinkle() {
    let build = || {
        let cube = root("cube", JointKind::Floating, 1.0, DVec3::splat(0.2));
        let ball = root("ball", JointKind::Floating, 1.0, DVec3::splat(0.2));
        let tree = Tree::new(vec![cube, ball], G).unwrap();
        let shapes = vec![
            shape(0, Shape::cuboid(DVec3::splat(0.2)).unwrap(), 0.4),
            shape(1, Shape::Sphere { radius: 0.1 }, 0.4),
        ];
        let (q, v) = (tree.neutral_q(), vec![0.0; tree.nv()]);
        let mut f = Forest { tree, shapes, q, v };
        f.place(
            0,
            (DVec3::new(0.0, 0.0, 0.1), DQuat::IDENTITY),
            (DVec3::ZERO, DVec3::ZERO),
        );
        let at = DVec3::new(0.06, 0.02, 0.5);
        f.place(1, (at, DQuat::IDENTITY), (DVec3::ZERO, DVec3::ZERO));
        f
    };
    let (mut st, mut peg) = (build(), build());
    let mut standard = Vec::new();
    st.run(&mut model(false, 0.0), 1e-3, 600, |_, f| {
        standard.push((f.q.clone(), f.v.clone()))
    });
    let mut pair_contact = false;
    let mut i = 0;
    let mut largest = 0.0f64;
    peg.run(&mut model(true, 0.0), 1e-3, 600, |stats, f| {
        let (q, v) = &standard[i];
        let apart = |a: &[f64], b: &[f64]| {
            a.iter()
                .zip(b)
                .map(|(x, y)| (x - y).abs())
                .fold(0.0, f64::max)
        };
        largest = largest.max(apart(&f.q, q)).max(apart(&f.v, v));
        assert_eq!(stats.slack_rows, 0);
        // Four ground corners, and the ball on the cube.
        pair_contact |= stats.contacts > 4;
        i += 1;
    });
    assert!(pair_contact, "the ball never touched the cube");
    eprintln!("peg and stewart-trinkle apart by {largest:e} in q, v");
    assert!(largest < 1e-12, "q, v apart by {largest:e}");
}

/// `examples/peg_corner_trap.toml` as a forest: a fixed 1 m block welded to the world and a
/// 0.2 m, 1 kg cube thrown corner-first at its top edge (rpy 45°, 35.264°, 0; v = (−1, 0, −3)
/// m/s, ω = (0, 5, 0) rad/s, μ = 0.3), the ground far below.
fn corner_trap() -> Forest {
    let block = root("block", JointKind::Fixed, 1.0, DVec3::ONE);
    let cube = root("cube", JointKind::Floating, 1.0, DVec3::splat(0.2));
    let tree = Tree::new(vec![block, cube], G).unwrap();
    let shapes = vec![
        shape(0, Shape::cuboid(DVec3::ONE).unwrap(), 0.3),
        shape(1, Shape::cuboid(DVec3::splat(0.2)).unwrap(), 0.3),
    ];
    let (q, v) = (tree.neutral_q(), vec![0.0; tree.nv()]);
    let mut f = Forest { tree, shapes, q, v };
    let r = DQuat::from_rotation_z(0.0)
        * DQuat::from_rotation_y(35.264f64.to_radians())
        * DQuat::from_rotation_x(45f64.to_radians());
    let at = DVec3::new(0.52, 0.0, 0.70);
    let motion = (DVec3::new(-1.0, 0.0, -3.0), DVec3::new(0.0, 5.0, 0.0));
    f.place(1, (at, r), motion);
    f
}

/// The PEG paper's claim (fig. 2, §6) on a tree: over 1 s of the corner trap, PEG ends every
/// step with less than 1e-10 m³ of overlap (the free bodies' test bound,
/// `contact_peg.rs`), its groups with slack members in use (the trap is a vertex near an edge,
/// an I-constraint); the standard model, the same step without the groups, lets the bodies
/// overlap by more than 1e-9 m³ at some step (a tenfold separation). Measured at h = 1 and 2 ms:
/// see the assertions' messages (printed).
#[test]
fn peg_keeps_the_corner_trap_free_of_overlap_where_stewart_trinkle_lets_the_cube_in() {
    for h in [1e-3, 2e-3] {
        let steps = (1.0 / h) as usize;
        let mut worst = [0.0f64; 2];
        let mut slack = 0;
        for (k, peg) in [false, true].into_iter().enumerate() {
            let mut f = corner_trap();
            f.run(&mut model(peg, -10.0), h, steps, |stats, f| {
                assert!(!stats.failed);
                worst[k] = worst[k].max(f.overlap());
                slack = slack.max(stats.slack_rows * peg as usize);
            });
        }
        eprintln!(
            "h = {h}: largest overlap, stewart-trinkle {:.3e} m^3, peg {:.3e} m^3; most slack rows {slack}",
            worst[0], worst[1]
        );
        assert!(worst[1] < 1e-10, "h = {h}: peg overlap {:e} m^3", worst[1]);
        assert!(
            worst[0] > 1e-9,
            "h = {h}: standard overlap {:e} m^3",
            worst[0]
        );
        assert!(slack > 0, "h = {h}: no group had a slack member");
    }
}

/// A 1 kg cube resting exactly on a 2 kg cube resting on the ground, under PEG for 1 s at 1 ms:
/// both hold their heights to 1e-9 m (the tree Stewart–Trinkle test's bound,
/// `contact_tree_pairs.rs`), no solve fails, and the cubes' interface is held by PEG's groups
/// (one per corner, each a single member by the coplanar-face rule: no slack row).
#[test]
fn a_cube_rests_on_a_cube_under_peg() {
    let lower = root("lower", JointKind::Floating, 2.0, DVec3::splat(0.2));
    let upper = root("upper", JointKind::Floating, 1.0, DVec3::splat(0.2));
    let tree = Tree::new(vec![lower, upper], G).unwrap();
    let shapes = vec![
        shape(0, Shape::cuboid(DVec3::splat(0.2)).unwrap(), 0.5),
        shape(1, Shape::cuboid(DVec3::splat(0.2)).unwrap(), 0.5),
    ];
    let (q, v) = (tree.neutral_q(), vec![0.0; tree.nv()]);
    let mut f = Forest { tree, shapes, q, v };
    let rest = (DVec3::ZERO, DVec3::ZERO);
    f.place(0, (DVec3::new(0.0, 0.0, 0.1), DQuat::IDENTITY), rest);
    f.place(1, (DVec3::new(0.0, 0.0, 0.3), DQuat::IDENTITY), rest);
    let (o0, o1) = (f.tree.q_offset(0) + 2, f.tree.q_offset(1) + 2);
    let mut drift = 0.0f64;
    let mut contacts = 0;
    f.run(&mut model(true, 0.0), 1e-3, 1000, |stats, f| {
        assert!(!stats.failed);
        assert_eq!(stats.slack_rows, 0);
        contacts = contacts.max(stats.contacts);
        drift = drift.max((f.q[o0] - 0.1).abs()).max((f.q[o1] - 0.3).abs());
    });
    assert!(drift < 1e-9, "height drift {drift:e} m");
    // Four ground corners and four groups between the cubes (at least).
    assert!(contacts >= 8, "{contacts} constraints");
}

/// The standard-model trap at its simplest (the PEG paper's fig. 2, one step): a 0.2 m cube
/// beside the top edge of a fixed 1 m block, its bottom-left edge 1 mm outside the side face
/// (x = 0.5 m) and 5 mm below the top (z = 0.5 m), moving in and up at (−0.5, 0, 3) m/s over
/// h = 10 ms. It clears the edge (at x = 0.5 it has risen 6 mm) and ends 2.5 cm above the
/// top, 4 mm inside the side plane: the end pose overlaps nothing.
///
/// - PEG: each of the edge's vertex groups {side face, top face} holds through its top member
///   (the side member, of the larger start gap 1 mm, is the primary; its slack takes the
///   difference, eqs 20, 24), so no impulse: v⁺ is the free flight v + h g to round-off
///   (1e-12 m/s). A step that drops the slack from the primary's row (E_P) or ignores the
///   group pushes along the side normal instead.
/// - Stewart–Trinkle: its contacts are on the side face (normal +x, gap 1 mm), whose rows
///   hold the edge's ends to v_x⁺ ≥ −ψ/h = −0.1 m/s: trapped beside the block.
#[test]
fn a_corner_passing_over_an_edge_is_free_under_peg_and_trapped_under_stewart_trinkle() {
    let h = 1e-2;
    let vel = DVec3::new(-0.5, 0.0, 3.0);
    let centre = DVec3::new(0.5 + 0.1 + 1e-3, 0.0, 0.5 - 5e-3 + 0.1);
    let mut after = Vec::new();
    for peg in [true, false] {
        let mut f = corner_trap();
        f.place(1, (centre, DQuat::IDENTITY), (vel, DVec3::ZERO));
        let mut stats = TreeStepStats::default();
        f.run(&mut model(peg, -10.0), h, 1, |s, _| stats = s.clone());
        let w = f.tree.v_offset(1);
        let v = (
            DVec3::from_slice(&f.v[w..w + 3]),
            DVec3::from_slice(&f.v[w + 3..w + 6]),
        );
        eprintln!("peg {peg}: {stats:?}, omega {:?}, v {:?}", v.0, v.1);
        assert!(stats.contacts > 0 && !stats.failed);
        after.push(v);
    }
    let free_flight = vel + h * G;
    let (peg, standard) = (after[0], after[1]);
    assert!(
        (peg.1 - free_flight).length() < 1e-12 && peg.0.length() < 1e-12,
        "peg: omega {:?}, v {:?} (free flight {free_flight:?})",
        peg.0,
        peg.1
    );
    // The bottom-left edge's ends approach the side face no faster than ψ/h allows, and the
    // impulse that made them so changed the cube's motion (measured: v_x −0.5 → −0.36 m/s and a
    // spin of 2.7 rad/s about y).
    for y in [-0.1, 0.1] {
        let corner = standard.1 + standard.0.cross(DVec3::new(-0.1, y, -0.1));
        assert!(
            corner.x >= -0.1 - 1e-9,
            "stewart-trinkle: corner velocity {corner:?}"
        );
    }
    assert!(
        (standard.1 - free_flight).length() > 0.1,
        "stewart-trinkle: v {:?}",
        standard.1
    );
}

/// `recovery_depth` and `applicability_angle` are set by name and checked where the model is
/// built, naming the parameter; the LCP parameters' list names them.
#[test]
fn peg_parameters_are_set_by_name_and_checked() {
    use signorini::contact::tree::LCP_PARAMS;
    use signorini::contact::ParamInput;
    let mut p = TreeLcpParams {
        peg: true,
        ..TreeLcpParams::default()
    };
    p.set("recovery_depth", &ParamInput::Number(2e-5)).unwrap();
    p.set("applicability_angle", &ParamInput::Number(0.3))
        .unwrap();
    assert_eq!((p.recovery_depth, p.applicability_angle), (2e-5, 0.3));
    for (name, bad) in [("recovery_depth", -1e-3), ("applicability_angle", 2.0)] {
        let mut q = p.clone();
        q.set(name, &ParamInput::Number(bad)).unwrap();
        let err = TreeLcp::new(q).err().expect("refused");
        assert!(err.contains(name), "{err}");
    }
    for name in ["recovery_depth", "applicability_angle"] {
        assert!(LCP_PARAMS.iter().any(|s| s.name == name), "{name}");
    }
}

/// One step of the tree form against one step of the free bodies' `peg` in the paper's form
/// (`gap_prediction = "linear"`, `passes = 1`, `projection = "none"`: one linearization at the
/// start of the step, as the tree form takes it), from the same state: the corner trap's cube
/// where the tree run first poses a group with slack members, moving at (−1, 0, −3) m/s
/// without spin, the activation distance the tree's 0.01 m. The two pose the same constraints
/// and the same LCP in other coordinates (the floating joint's v in link axes, W through H⁻¹),
/// so the velocities after the step agree to round-off (1e-10 m/s and rad/s on speeds of 3 m/s).
/// Without spin at the start the free motion is the same in both: the floating joint's bias
/// ω × v vanishes, and the tree's v⁺ (link axes) is read in the axes of the start pose, before
/// its q⁺ = q ⊕ h v⁺ turns them (the two integrators differ there at O(h²) a step, so
/// trajectories are not compared).
#[test]
fn one_step_of_the_tree_form_is_one_step_of_the_free_bodies_peg() {
    use signorini::contact::ParamInput;
    use signorini::simulation::Simulation;
    let (vel, h) = (DVec3::new(-1.0, 0.0, -3.0), 1e-3);
    // The first pose, along the trap's run, whose spin-free step has slack members and
    // changes the cube's motion.
    let mut trap = corner_trap();
    let o = trap.tree.q_offset(1);
    let mut found = None;
    for _ in 0..300 {
        trap.run(&mut model(true, -10.0), h, 1, |_, _| {});
        let pose = (
            DVec3::from_slice(&trap.q[o..o + 3]),
            mb::read_quat(&trap.q[o + 3..o + 7]),
        );
        let mut probe = corner_trap();
        probe.place(1, pose, (vel, DVec3::ZERO));
        let mut slack = 0;
        probe.run(&mut model(true, -10.0), h, 1, |s, _| slack = s.slack_rows);
        let w = probe.tree.v_offset(1) + 3;
        let changed = (pose.1 * DVec3::from_slice(&probe.v[w..w + 3]) - (vel + h * G)).length();
        if slack > 0 && changed > 1e-3 {
            found = Some(pose);
            break;
        }
    }
    let (x, r) = found.expect("such a pose within 300 steps");
    let mut tree = corner_trap();
    tree.place(1, (x, r), (vel, DVec3::ZERO));
    let mut stats = TreeStepStats::default();
    tree.run(&mut model(true, -10.0), h, 1, |s, _| stats = s.clone());
    let w = tree.tree.v_offset(1);
    let omega = r * DVec3::from_slice(&tree.v[w..w + 3]);
    let velocity = r * DVec3::from_slice(&tree.v[w + 3..w + 6]);

    let path = format!(
        "{}/../../examples/peg_corner_trap.toml",
        env!("CARGO_MANIFEST_DIR")
    );
    let mut scene = signorini::scene::load(std::path::Path::new(&path)).unwrap();
    scene.model.settings.activation_distance = 0.01;
    let cube = scene
        .model
        .bodies
        .iter()
        .position(|b| b.name == "cube")
        .unwrap();
    let b = &mut scene.initial.bodies[cube];
    (b.position, b.orientation, b.velocity, b.angular_velocity) = (x, r, vel, DVec3::ZERO);
    let params = [
        (
            "gap_prediction".to_string(),
            ParamInput::Word("linear".into()),
        ),
        ("passes".to_string(), ParamInput::Number(1.0)),
        ("projection".to_string(), ParamInput::Word("none".into())),
    ];
    let mut free = Simulation::new(scene, Some("peg"), &params).unwrap();
    free.step().unwrap();
    let b = &free.state().bodies[cube];
    let (dv, dw) = (
        velocity.distance(b.velocity),
        omega.distance(b.angular_velocity),
    );
    eprintln!(
        "slack rows {}, rows {}: tree v {velocity:?} w {omega:?}, free v {:?} w {:?}; |dv| {dv:e}, |dw| {dw:e}",
        stats.slack_rows, stats.lcp_rows, b.velocity, b.angular_velocity
    );
    assert!(stats.slack_rows > 0);
    // The contact changed the motion (or the comparison is of free flight only).
    assert!((velocity - (vel + h * G)).length() > 1e-3, "{velocity:?}");
    assert!(
        dv < 1e-10 && dw < 1e-10,
        "|dv| {dv:e} m/s, |dw| {dw:e} rad/s"
    );
}
