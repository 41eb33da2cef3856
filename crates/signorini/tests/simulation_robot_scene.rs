//! A scene with robots (`[[robot]]`) as a forest of trees (`simulation::robot_scene`): bodies
//! become floating links with their state, the ground half-space the tree models' ground,
//! servos and torques follow their schedules; what it cannot hold is refused at its key.
use signorini::contact::tree::TreeLcp;
use signorini::multibody::algorithms::forward_kinematics;
use signorini::multibody::{Piecewise, Workspace};
use signorini::scene::{build, parse_scene, SceneError};
use signorini::simulation::multibody_run::TreeRun;
use signorini::simulation::robot_scene::tree_run;
use signorini::DVec3;

/// The scene `text` as if it were a file in examples/ (URDF paths resolve there).
fn forest(text: &str) -> Result<TreeRun, SceneError> {
    let file = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/inline.toml");
    let scene = build(parse_scene(text, file)?)?;
    tree_run(&scene).map(|(run, _)| run)
}

const GROUND: &str = r#"
[[body]]
name = "ground"
fixed = true
shape = { type = "halfspace", normal = [0.0, 0.0, 1.0] }
"#;

const ARM: &str = r#"
[[robot]]
name = "arm"
urdf = "robots/gripper_arm.urdf"
fixed_base = true
joints = { shoulder = 0.5 }
"#;

fn scene(parts: &[&str]) -> String {
    let mut s = String::from("[contact]\nmodel = \"stewart-trinkle\"\n");
    for p in parts {
        s.push_str(p);
    }
    s
}

#[test]
fn a_body_becomes_a_floating_link_moving_as_the_scene_says() {
    // A box high above the ground, turned 40° about a tilted axis, moving and spinning: after
    // the forest is built, the link's world velocity and angular velocity (forward kinematics of
    // the floating joint's [ω; v] in body axes) are the scene's, to round-off.
    let body = r#"
[[body]]
name = "box"
mass = 2.0
position = [0.3, -0.2, 2.0]
orientation = { axis = [1.0, 2.0, 0.5], angle_deg = 40.0 }
velocity = [1.0, -0.5, 0.25]
angular_velocity = [0.3, 2.0, -1.0]
shape = { type = "box", size = [0.1, 0.2, 0.3] }
"#;
    let run = forest(&scene(&[GROUND, body])).unwrap();
    assert_eq!((run.tree.len(), run.tree.nv()), (1, 6));
    let mut ws = Workspace::new(&run.tree);
    let links = forward_kinematics(&run.tree, &mut ws, &run.q0, &run.v0).unwrap();
    let k = links[0];
    assert!(
        (k.position - DVec3::new(0.3, -0.2, 2.0)).length() < 1e-15,
        "{:?}",
        k.position
    );
    assert!(
        (k.velocity - DVec3::new(1.0, -0.5, 0.25)).length() < 1e-14,
        "{:?}",
        k.velocity
    );
    let w = DVec3::new(0.3, 2.0, -1.0);
    assert!(
        (k.angular_velocity - w).length() < 1e-14,
        "{:?}",
        k.angular_velocity
    );
    assert_eq!(run.joint_names, ["box"]);
}

#[test]
fn a_box_on_the_ground_of_a_forest_rests_and_touches_it_with_the_pair_friction() {
    // The box resting on the ground under the LCP: height held to the LCP's 1e-9 m for 0.5 s.
    let body = r#"
[[material]]
name = "rubber"
friction = 0.9

[[body]]
name = "box"
mass = 1.0
material = "rubber"
position = [0.6, 0.0, 0.05]
shape = { type = "box", size = [0.1, 0.1, 0.1] }
"#;
    let run = forest(&scene(&[GROUND, body])).unwrap();
    let g = run.ground.as_ref().unwrap();
    // Ground material `default` (0.5) against rubber (0.9): √(0.5 · 0.9), the pair rule.
    assert_eq!(g.model.ground().friction, Some(0.5));
    let params = match &g.model {
        signorini::simulation::multibody_run::TreeContactModel::StewartTrinkle(p) => p.clone(),
        _ => unreachable!(),
    };
    let mut lcp = TreeLcp::new(params).unwrap();
    let (mut q, mut v) = (run.q0.clone(), run.v0.clone());
    let mut ws = Workspace::new(&run.tree);
    for _ in 0..500 {
        lcp.step(
            &run.tree,
            &mut ws,
            &g.shapes,
            (&mut q, &mut v),
            &run.controls,
            1e-3,
        )
        .unwrap();
        assert!(q[2].abs() < 1e-9, "box moved {} m", q[2]);
    }
    let mut contacts = Vec::new();
    let links = forward_kinematics(&run.tree, &mut ws, &q, &v).unwrap();
    signorini::contact::tree::ground_contacts(
        &g.shapes,
        links,
        g.model.ground(),
        1e-3,
        &mut contacts,
    );
    assert!(!contacts.is_empty());
    for c in &contacts {
        assert_eq!(c.friction, (0.5f64 * 0.9).sqrt());
    }
}

#[test]
fn link_materials_give_a_link_its_own_friction() {
    let text = scene(&[
        "[[material]]\nname = \"ice\"\nfriction = 0.0\n",
        GROUND,
        &ARM.replace(
            "fixed_base = true",
            "fixed_base = true\nlink_materials = { left_finger = \"ice\" }",
        ),
    ]);
    let run = forest(&text).unwrap();
    let g = run.ground.as_ref().unwrap();
    let finger = run
        .joint_names
        .iter()
        .position(|n| n == "arm.left_finger")
        .unwrap();
    for s in &g.shapes {
        // The robot's own material is `default` (0.5); the left finger's is ice.
        let expected = if s.link == finger { 0.0 } else { 0.5 };
        assert_eq!(s.friction, expected, "link {}", s.link);
    }
}

#[test]
fn a_robot_is_placed_at_its_pose_with_its_joints_and_schedules() {
    let text = scene(&[
        GROUND,
        r#"
[[robot]]
name = "arm"
urdf = "robots/gripper_arm.urdf"
fixed_base = true
position = [1.0, 2.0, 0.0]
orientation = { axis = [0.0, 0.0, 1.0], angle_deg = 90.0 }
joints = { shoulder = 0.5, left_finger = 0.03 }
joint_velocities = { elbow = -0.2 }

[[robot.servo]]
joint = "elbow"
kp = 10.0
kd = 1.0
positions = [[0.0, 0.0], [1.0, 0.4]]

[[robot.torque]]
joint = "wrist"
schedule = [[0.5, 1.0]]
"#,
    ]);
    let run = forest(&text).unwrap();
    let tree = &run.tree;
    let link = |name: &str| run.joint_names.iter().position(|n| n == name).unwrap();
    let (shoulder, elbow, finger) = (
        link("arm.shoulder"),
        link("arm.elbow"),
        link("arm.left_finger"),
    );
    assert_eq!(run.q0[tree.q_offset(shoulder)], 0.5);
    assert_eq!(run.q0[tree.q_offset(finger)], 0.03);
    assert_eq!(run.v0[tree.v_offset(elbow)], -0.2);
    // The base (welded) at the robot's pose: the URDF's turret joint 0.1 m above it.
    let mut ws = Workspace::new(tree);
    let links = forward_kinematics(tree, &mut ws, &run.q0, &run.v0).unwrap();
    let turret = link("arm.base_yaw");
    assert!((links[turret].position - DVec3::new(1.0, 2.0, 0.1)).length() < 1e-15);
    // The servo follows its schedule; the torque is held after its one point.
    let mut c = run.controls.clone();
    run.schedule.apply(0.25, &mut c);
    assert_eq!(c.pd.len(), 1);
    assert!(
        (c.pd[0].target_position - 0.1).abs() < 1e-15
            && (c.pd[0].target_velocity - 0.4).abs() < 1e-15
    );
    assert_eq!(c.tau[tree.v_offset(link("arm.wrist"))], 1.0);
}

#[test]
fn piecewise_schedules_are_linear_between_points_and_held_outside() {
    let p = Piecewise(vec![(1.0, 2.0), (3.0, 6.0), (4.0, 6.0)]);
    assert_eq!(p.at(0.0), (2.0, 0.0));
    assert_eq!(p.at(1.0), (2.0, 2.0));
    assert_eq!(p.at(2.0), (4.0, 2.0));
    assert_eq!(p.at(3.5), (6.0, 0.0));
    assert_eq!(p.at(9.0), (6.0, 0.0));
}

/// The error of `text`: its line, key and message.
fn refused(text: &str) -> (usize, String, String) {
    let e = forest(text).err().expect("refused");
    (e.line, e.key, e.message)
}

/// Line (1-based) of the first line of `text` containing `needle`.
fn line_of(text: &str, needle: &str) -> usize {
    text.lines().position(|l| l.contains(needle)).unwrap() + 1
}

#[test]
fn what_a_robot_scene_cannot_hold_is_refused_at_its_key() {
    // A model without a tree form (every 3D model has one; an unknown name has none).
    let text = scene(&[GROUND, ARM]).replace("stewart-trinkle", "no-such-model");
    let (line, key, msg) = refused(&text);
    assert_eq!(
        (line, key.as_str()),
        (line_of(&text, "\"no-such-model\""), "contact.model")
    );
    assert!(msg.contains("tree form"), "{msg}");
    // A parameter the tree model does not have, at its line.
    let text = scene(&[GROUND, ARM]).replace("[contact]\n", "[contact]\nrestitution = 0.5\n");
    let (line, key, msg) = refused(&text);
    assert_eq!(
        (line, key.as_str()),
        (line_of(&text, "restitution"), "contact.restitution")
    );
    assert!(msg.contains("no parameter"), "{msg}");
    // No ground.
    let (_, key, msg) = refused(&scene(&[ARM]));
    assert!(
        key == "body" && msg.contains("needs a ground"),
        "{key}: {msg}"
    );
    // A wall (a half-space not facing up).
    let wall = GROUND
        .replace("\"ground\"", "\"wall\"")
        .replace("[0.0, 0.0, 1.0]", "[1.0, 0.0, 0.0]");
    let text = scene(&[GROUND, &wall, ARM]);
    let (line, _, msg) = refused(&text);
    assert_eq!(line, line_of(&text, "\"wall\"") - 1);
    assert!(msg.contains("one ground half-space"), "{msg}");
    // A joint the URDF does not have, at its own line; a fixed joint's name.
    let text = scene(&[
        GROUND,
        &ARM.replace("shoulder = 0.5", "shoulder = 0.5, knee = 1.0"),
    ]);
    let (line, key, msg) = refused(&text);
    assert_eq!(
        (line, key.as_str()),
        (line_of(&text, "knee"), "robot[0].joints.knee")
    );
    assert!(
        msg.contains("no joint `knee`") && msg.contains("shoulder, elbow"),
        "{msg}"
    );
    // A link the URDF lacks (or that has no collision geometry), in link_materials.
    let text = scene(&[
        GROUND,
        &ARM.replace(
            "fixed_base = true",
            "fixed_base = true\nlink_materials = { gripper = \"default\" }",
        ),
    ]);
    let (line, key, msg) = refused(&text);
    assert_eq!(
        (line, key.as_str()),
        (
            line_of(&text, "link_materials"),
            "robot[0].link_materials.gripper"
        )
    );
    assert!(
        msg.contains("no link `gripper`") && msg.contains("left_finger"),
        "{msg}"
    );
    // A URDF that is not there.
    let text = scene(&[GROUND, &ARM.replace("gripper_arm", "no_such_robot")]);
    let (line, key, msg) = refused(&text);
    assert_eq!(
        (line, key.as_str()),
        (line_of(&text, "no_such_robot"), "robot[0].urdf")
    );
    assert!(msg.contains("no_such_robot"), "{msg}");
    // Scheduled forces.
    let force = "\n[[force]]\nbody = \"box\"\nforce = [1.0, 0.0, 0.0]\n";
    let body = "\n[[body]]\nname = \"box\"\nmass = 1.0\nposition = [0.6, 0.0, 0.05]\nshape = { type = \"box\", size = [0.1, 0.1, 0.1] }\n";
    let text = scene(&[GROUND, ARM, body, force]);
    let (line, key, msg) = refused(&text);
    assert_eq!(
        (line, key.as_str()),
        (line_of(&text, "[[force]]"), "force[0]")
    );
    assert!(msg.contains("does not take [[force]]"), "{msg}");
}

#[test]
fn the_free_bodies_simulation_refuses_a_scene_with_robots() {
    // Stepping the bodies and leaving the robot out would be a silent wrong answer.
    let text = scene(&[GROUND, ARM]);
    let file = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/inline.toml");
    let built = build(parse_scene(&text, file).unwrap()).unwrap();
    let e = signorini::Simulation::new(built, None, &[])
        .err()
        .expect("refused");
    let message = e.to_string();
    assert!(
        message.contains("robot[0]") && message.contains("forest of trees"),
        "{message}"
    );
}
