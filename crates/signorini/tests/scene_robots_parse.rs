//! `[[robot]]` scene tables (`scene/parse/robots.rs`): every key read into `RobotDesc` with its
//! defaults, joint order and lines kept, the servo and torque schedules, and every bad value
//! refused at its file:line:key with a hint (docs/scene-format.md, "Robots").

use glam::{DQuat, DVec3};
use signorini::scene::*;

#[path = "common/scene_errors.rs"]
mod scene_errors;
use scene_errors::{expect_error, line_of_marker, parse};

/// A minimal robot with extra lines (keys of the robot table, then any sub-tables).
fn robot(extra: &str) -> String {
    format!("[[robot]]\nname = \"arm\"\nurdf = \"arm.urdf\"\n{extra}\n")
}

/// A minimal robot with one servo table whose keys are `servo`.
fn servo(servo: &str) -> String {
    robot(&format!("[[robot.servo]]\n{servo}\n"))
}

/// A servo on `shoulder` with gain `kp = 10` and target `positions = {points}`.
fn schedule(points: &str) -> String {
    servo(&format!(
        "joint = \"shoulder\"\nkp = 10.0\npositions = {points}"
    ))
}

const BALL: &str = r#"shape = { type = "sphere", radius = 0.1 }"#;

/// The example of docs/scene-format.md, with the material defined after the robot.
const FULL: &str = r#"[[robot]]
name = "arm"
urdf = "robots/gripper_arm.urdf"
fixed_base = true
position = [1.0, 2.0, 0.5]
orientation = { rpy_deg = [0, 0, 90] }
material = "rubber"
joints = { shoulder = 0.5, elbow = -1.0, a_wrist = 2 }
joint_velocities = { left_wheel_joint = 2.0 }

[[robot.servo]]
joint = "shoulder"
kp = 100.0
kd = 5.0
positions = [[0.0, 0.5], [1.0, 0.8]]

[[robot.servo]]
joint = "left_wheel_joint"
kd = 3
velocities = [[0.0, 0.0], [0.5, 5.0]]

[[robot.torque]]
joint = "elbow"
schedule = [[0.0, 0.0], [2.0, 1.5]]

[[robot.torque]]
joint = "shoulder"
schedule = [[0.25, -1]]

[[material]]
name = "rubber"
friction = 0.9
"#;

// ---------------------------------------------------------------------------------------------
// Valid robots

#[test]
fn every_robot_key_is_read() {
    let scene = parse(FULL).unwrap();
    assert_eq!(scene.robots.len(), 1);
    let r = &scene.robots[0];
    assert_eq!(r.name, "arm");
    assert_eq!(r.urdf, "robots/gripper_arm.urdf");
    assert!(r.fixed_base);
    assert_eq!(r.position, DVec3::new(1.0, 2.0, 0.5));
    let want = DQuat::from_rotation_z(std::f64::consts::FRAC_PI_2);
    assert!(
        r.orientation.angle_between(want) < 1e-12,
        "{:?}",
        r.orientation
    );
    assert_eq!(r.material, "rubber");
    // File order, not sorted; integers accepted.
    let joints: Vec<(&str, f64)> = r.joints.iter().map(|(n, x)| (n.as_str(), *x)).collect();
    assert_eq!(
        joints,
        [("shoulder", 0.5), ("elbow", -1.0), ("a_wrist", 2.0)]
    );
    assert_eq!(r.joint_velocities, [("left_wheel_joint".to_string(), 2.0)]);
    assert_eq!((r.line, r.key.as_str()), (1, "robot[0]"));
    assert_eq!(r.key_lines.line_of("urdf", 0), 3);
    assert_eq!(r.key_lines.line_of("material", 0), 7);
    assert_eq!(r.key_lines.line_of("joints", 0), 8);
    assert_eq!(r.key_lines.line_of("joints.elbow", 0), 8);
    assert_eq!(
        r.key_lines.line_of("joint_velocities.left_wheel_joint", 0),
        9
    );

    assert_eq!(r.servos.len(), 2);
    let s = &r.servos[0];
    assert_eq!((s.joint.as_str(), s.kp, s.kd), ("shoulder", 100.0, 5.0));
    assert_eq!(
        s.target,
        ServoTarget::Positions(vec![(0.0, 0.5), (1.0, 0.8)])
    );
    assert_eq!((s.line, s.key.as_str()), (11, "robot[0].servo[0]"));
    let s = &r.servos[1];
    assert_eq!(
        (s.joint.as_str(), s.kp, s.kd),
        ("left_wheel_joint", 0.0, 3.0)
    );
    assert_eq!(
        s.target,
        ServoTarget::Velocities(vec![(0.0, 0.0), (0.5, 5.0)])
    );
    assert_eq!((s.line, s.key.as_str()), (17, "robot[0].servo[1]"));

    // A servo and a torque on the same joint (`shoulder`) are fine.
    assert_eq!(r.torques.len(), 2);
    let t = &r.torques[0];
    assert_eq!(t.joint, "elbow");
    assert_eq!(t.schedule, [(0.0, 0.0), (2.0, 1.5)]);
    assert_eq!((t.line, t.key.as_str()), (22, "robot[0].torque[0]"));
    let t = &r.torques[1];
    assert_eq!(
        (t.joint.as_str(), t.schedule.as_slice()),
        ("shoulder", &[(0.25, -1.0)][..])
    );
    assert_eq!((t.line, t.key.as_str()), (26, "robot[0].torque[1]"));
}

#[test]
fn robot_defaults() {
    let scene = parse(&robot("")).unwrap();
    let r = &scene.robots[0];
    assert!(!r.fixed_base);
    assert_eq!(r.position, DVec3::ZERO);
    assert_eq!(r.orientation, DQuat::IDENTITY);
    assert_eq!(r.material, "default");
    assert!(r.joints.is_empty() && r.joint_velocities.is_empty());
    assert!(r.servos.is_empty() && r.torques.is_empty());
    // Empty joint tables are fine; a servo's gains default to 0 (kd alone is enough).
    let text = servo("joint = \"j\"\nkd = 1.0\npositions = [[0.0, 1.0]]")
        .replace("urdf = ", "joints = {}\njoint_velocities = {}\nurdf = ");
    let r = &parse(&text).unwrap().robots[0];
    assert!(r.joints.is_empty() && r.joint_velocities.is_empty());
    assert_eq!((r.servos[0].kp, r.servos[0].kd), (0.0, 1.0));
}

#[test]
fn joints_as_sub_tables_keep_file_order_and_lines() {
    let text = "[[robot]]\nname = \"arm\"\nurdf = \"arm.urdf\"\n\
                [robot.joints]\nzeta = 0.1\nalpha = -0.2\nmid = 3\n\
                [robot.joint_velocities]\nwheel = 2.0\n\
                [[robot.servo]]\njoint = \"zeta\"\nkp = 1.0\npositions = [[0.0, 0.0]]\n";
    let r = &parse(text).unwrap().robots[0];
    let names: Vec<&str> = r.joints.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["zeta", "alpha", "mid"]);
    assert_eq!(r.joints[2].1, 3.0);
    assert_eq!(r.joint_velocities, [("wheel".to_string(), 2.0)]);
    assert_eq!(
        r.key_lines.line_of("joints.alpha", 0),
        line_of_marker(text, "alpha")
    );
    assert_eq!(
        r.key_lines.line_of("joint_velocities.wheel", 0),
        line_of_marker(text, "wheel")
    );
    assert_eq!(r.servos[0].line, line_of_marker(text, "[[robot.servo]]"));
}

#[test]
fn several_robots_keep_file_order_and_keys() {
    let text = format!(
        "{}[[robot]]\nname = \"rover\"\nurdf = \"/abs/rover.urdf\"\n\
         [[robot.torque]]\njoint = \"w\"\nschedule = [[0.0, 1.0]]\n",
        servo("joint = \"shoulder\"\nkp = 1.0\npositions = [[0.0, 0.0]]")
    );
    let scene = parse(&text).unwrap();
    let names: Vec<&str> = scene.robots.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(names, ["arm", "rover"]);
    assert_eq!(scene.robots[1].key, "robot[1]");
    assert_eq!(
        scene.robots[1].line,
        line_of_marker(&text, "name = \"rover\"") - 1
    );
    assert_eq!(scene.robots[1].torques[0].key, "robot[1].torque[0]");
    assert_eq!(scene.robots[0].servos[0].key, "robot[0].servo[0]");
}

// ---------------------------------------------------------------------------------------------
// Invalid robots: the robot table

#[test]
fn robot_must_be_an_array_of_tables() {
    expect_error(
        "[robot]\nname = \"a\"\n",
        "[robot]",
        "robot",
        "an array of tables",
        "[[robot]]",
    );
}

#[test]
fn missing_name_and_urdf() {
    expect_error(
        "[[robot]]\nurdf = \"a.urdf\"\n",
        "[[robot]]",
        "robot[0].name",
        "missing required key `name`",
        "add `name = ",
    );
    expect_error(
        "[[robot]]\nname = \"a\"\n",
        "[[robot]]",
        "robot[0].urdf",
        "missing required key `urdf`",
        "add `urdf = ",
    );
}

#[test]
fn bad_name_and_urdf() {
    let text = robot("").replace("\"arm\"", "\"\"");
    expect_error(&text, "name", "robot[0].name", "empty", "non-empty");
    let text = robot("").replace("\"arm.urdf\"", "\"\"");
    expect_error(
        &text,
        "urdf",
        "robot[0].urdf",
        "URDF path is empty",
        "relative to the scene",
    );
    let text = robot("").replace("\"arm.urdf\"", "3");
    expect_error(
        &text,
        "urdf",
        "robot[0].urdf",
        "expected a string",
        "double quotes",
    );
}

#[test]
fn unknown_keys_suggest_the_closest() {
    expect_error(
        &robot("fixd_base = true"),
        "fixd_base",
        "robot[0].fixd_base",
        "unknown key `fixd_base`",
        "did you mean `fixed_base`?",
    );
    let e = expect_error(
        &servo("joint = \"j\"\nkv = 1.0"),
        "kv",
        "robot[0].servo[0].kv",
        "unknown key `kv`",
        "did you mean `kp`?",
    );
    assert!(e.hint.contains("`velocities`"), "lists the servo keys: {e}");
    expect_error(
        &robot("[[robot.torque]]\njoint = \"j\"\nschedul = [[0.0, 1.0]]"),
        "schedul",
        "robot[0].torque[0].schedul",
        "unknown key",
        "did you mean `schedule`?",
    );
    expect_error(
        &robot("[[robot.servos]]\njoint = \"j\""),
        "[[robot.servos]]",
        "robot[0].servos",
        "unknown key",
        "did you mean `servo`?",
    );
}

#[test]
fn bad_fixed_base_position_and_orientation() {
    expect_error(
        &robot("fixed_base = \"yes\""),
        "fixed_base",
        "robot[0].fixed_base",
        "expected a boolean",
        "`true` or `false`",
    );
    expect_error(
        &robot("position = [0.0, 1.0]"),
        "position",
        "robot[0].position",
        "an array of 2 items",
        "[x, y, z]",
    );
    expect_error(
        &robot("orientation = { rpy_deg = [0, 0, 90], angle = 1.0 }"),
        "orientation",
        "robot[0].orientation",
        "orientation table",
        "rpy_deg",
    );
}

#[test]
fn undefined_material() {
    let text = format!(
        "{}[[material]]\nname = \"rubber\"\n",
        robot("material = \"rubbr\"")
    );
    expect_error(
        &text,
        "material = ",
        "robot[0].material",
        "undefined material `rubbr`",
        "did you mean `rubber`?",
    );
}

#[test]
fn bad_joint_values() {
    expect_error(
        &robot("joints = [0.5, 1.0]"),
        "joints",
        "robot[0].joints",
        "expected a table",
        "as a table",
    );
    expect_error(
        &robot("joints = { shoulder = 0.5, elbow = \"up\" }"),
        "joints",
        "robot[0].joints.elbow",
        "expected a number",
        "write a number",
    );
    let text = robot("[robot.joint_velocities]\nwheel = 1.0\naxle = nan");
    expect_error(
        &text,
        "axle",
        "robot[0].joint_velocities.axle",
        "finite",
        "finite number",
    );
    expect_error(
        &robot("joints = { '' = 0.5 }"),
        "joints",
        "robot[0].joints.''",
        "joint name is empty",
        "joint of the URDF",
    );
}

#[test]
fn duplicate_robot_names() {
    let again = robot("").replace("name = \"arm\"", "name = \"arm\" # again");
    let text = format!("{}{again}", robot(""));
    let e = expect_error(
        &text,
        "# again",
        "robot[1].name",
        "duplicate robot name `arm`",
        "first defined at line 1",
    );
    assert_eq!(e.line, 6);
}

#[test]
fn robot_and_body_names_are_unique_in_either_order() {
    let body = format!("[[body]]\nname = \"arm\"\nmass = 1.0\n{BALL}\n");
    // Robot after body: at the robot.
    let text = format!("{body}{}", robot(""));
    let e = expect_error(
        &text,
        "name = \"arm\"\nurdf",
        "robot[0].name",
        "already the name of body[0] (line 1)",
        "must be unique",
    );
    assert_eq!(e.line, 6);
    // Body after robot: at the body.
    let text = format!("{}{body}", robot(""));
    let e = expect_error(
        &text,
        "name = \"arm\"\nmass",
        "body[0].name",
        "already the name of robot[0] (line 1)",
        "must be unique",
    );
    assert_eq!(e.line, 6);
}

#[test]
fn robot_names_and_spawned_names_are_unique_in_either_order() {
    let spawn = "[[spawn]]\nname = \"arm\"\ncount = 3\nseed = 0\nlattice = [3, 1, 1]\n\
                 spacing = [0.5, 0.5, 0.5]\nmass = 1.0\nshapes = [{ type = \"sphere\", radius = 0.1 }]\n";
    let named = |n: &str| robot("").replace("\"arm\"", &format!("\"{n}\""));
    // Robot after spawn: at the robot.
    let text = format!("{spawn}{}", named("arm_1"));
    expect_error(
        &text,
        "name = \"arm_1\"",
        "robot[0].name",
        "also given to a body of spawn[0]",
        "rename this robot or the spawn",
    );
    // Spawn after robot: at the spawn.
    let text = format!("{}{spawn}", named("arm_2"));
    expect_error(
        &text,
        "name = \"arm\"",
        "spawn[0].name",
        "this spawn names a body `arm_2`, already the name of robot[0] (line 1)",
        "rename the spawn or that robot",
    );
    // A name the spawn does not generate is fine.
    assert!(parse(&format!("{}{spawn}", named("arm_3"))).is_ok());
    assert!(parse(&format!("{spawn}{}", named("arm"))).is_ok());
}

// ---------------------------------------------------------------------------------------------
// Invalid robots: servos and torques

#[test]
fn servo_and_torque_must_be_arrays_of_tables() {
    expect_error(
        &robot("servo = 3"),
        "servo",
        "robot[0].servo",
        "an array of tables",
        "[[robot.servo]]",
    );
    expect_error(
        &robot("torque = [1.0]"),
        "torque = ",
        "robot[0].torque[0]",
        "expected a table",
        "as a table",
    );
}

#[test]
fn servo_needs_a_joint() {
    expect_error(
        &servo("kp = 1.0\npositions = [[0.0, 0.0]]"),
        "[[robot.servo]]",
        "robot[0].servo[0].joint",
        "missing required key `joint`",
        "add `joint = ",
    );
    expect_error(
        &servo("joint = 1\nkp = 1.0\npositions = [[0.0, 0.0]]"),
        "joint = 1",
        "robot[0].servo[0].joint",
        "expected a string",
        "double quotes",
    );
}

#[test]
fn negative_gains() {
    expect_error(
        &servo("joint = \"j\"\nkp = -1.0\npositions = [[0.0, 0.0]]"),
        "kp",
        "robot[0].servo[0].kp",
        "at least 0",
        "at least 0",
    );
    expect_error(
        &servo("joint = \"j\"\nkp = 1.0\nkd = -0.5\npositions = [[0.0, 0.0]]"),
        "kd",
        "robot[0].servo[0].kd",
        "at least 0",
        "at least 0",
    );
}

#[test]
fn servo_needs_exactly_one_of_positions_and_velocities() {
    expect_error(
        &servo("joint = \"j\"\nkd = 1.0"),
        "[[robot.servo]]",
        "robot[0].servo[0].positions",
        "needs `positions` or `velocities`",
        "add `positions",
    );
    expect_error(
        &servo("joint = \"j\"\nkd = 1.0\npositions = [[0.0, 0.0]]\nvelocities = [[0.0, 0.0]]"),
        "velocities",
        "robot[0].servo[0].velocities",
        "not both",
        "remove one",
    );
}

#[test]
fn velocity_servo_takes_no_position_gain() {
    expect_error(
        &servo("joint = \"j\"\nkp = 2.0\nkd = 1.0\nvelocities = [[0.0, 1.0]]"),
        "kp",
        "robot[0].servo[0].kp",
        "velocities",
        "a velocity servo has no position gain",
    );
}

#[test]
fn servo_without_gains_does_nothing() {
    expect_error(
        &servo("joint = \"j\"\npositions = [[0.0, 1.0]]"),
        "[[robot.servo]]",
        "robot[0].servo[0]",
        "does nothing",
        "kp > 0",
    );
    expect_error(
        &servo("joint = \"j\"\nkp = 0\nkd = 0.0\nvelocities = [[0.0, 1.0]]"),
        "[[robot.servo]]",
        "robot[0].servo[0]",
        "does nothing",
        "kd > 0",
    );
}

#[test]
fn two_servos_on_one_joint() {
    let text = robot(
        "[[robot.servo]]\njoint = \"elbow\"\nkp = 1.0\npositions = [[0.0, 0.0]]\n\
         [[robot.servo]]\njoint = \"wrist\"\nkp = 1.0\npositions = [[0.0, 0.0]]\n\
         [[robot.servo]]\njoint = \"elbow\"\nkd = 1.0\nvelocities = [[0.0, 0.0]]",
    );
    let first = line_of_marker(&text, "[[robot.servo]]");
    let e = expect_error(
        &text,
        "joint = \"elbow\"\nkd",
        "robot[0].servo[2].joint",
        &format!("joint `elbow` already has a servo, robot[0].servo[0] (line {first})"),
        "at most one servo",
    );
    assert_eq!(e.line, 13);
    // The same joint in two robots is fine.
    let one = "[[robot.servo]]\njoint = \"elbow\"\nkp = 1.0\npositions = [[0.0, 0.0]]";
    let text = format!(
        "{}{}",
        robot(one),
        robot(one).replace("\"arm\"", "\"arm2\"")
    );
    assert_eq!(parse(&text).unwrap().robots.len(), 2);
}

#[test]
fn torque_needs_joint_and_schedule() {
    expect_error(
        &robot("[[robot.torque]]\nschedule = [[0.0, 1.0]]"),
        "[[robot.torque]]",
        "robot[0].torque[0].joint",
        "missing required key `joint`",
        "add `joint = ",
    );
    expect_error(
        &robot("[[robot.torque]]\njoint = \"elbow\""),
        "[[robot.torque]]",
        "robot[0].torque[0].schedule",
        "missing required key `schedule`",
        "add `schedule = ",
    );
}

// ---------------------------------------------------------------------------------------------
// Invalid schedules (the same rules for positions, velocities and a torque's schedule)

#[test]
fn schedule_must_be_a_non_empty_array() {
    expect_error(
        &schedule("0.5"),
        "positions",
        "robot[0].servo[0].positions",
        "expected an array",
        "brackets",
    );
    expect_error(
        &schedule("[]"),
        "positions",
        "robot[0].servo[0].positions",
        "no points",
        "at least one point",
    );
    expect_error(
        &robot("[[robot.torque]]\njoint = \"elbow\"\nschedule = []"),
        "schedule",
        "robot[0].torque[0].schedule",
        "no points",
        "at least one point",
    );
}

#[test]
fn schedule_points_are_pairs_of_numbers() {
    expect_error(
        &schedule("[[0.0, 1.0], [1.0]]"),
        "positions",
        "robot[0].servo[0].positions[1]",
        "an array of 2 numbers [time, value]",
        "[time, value]",
    );
    expect_error(
        &schedule("[[0.0, 1.0], 2.0]"),
        "positions",
        "robot[0].servo[0].positions[1]",
        "found the float 2.0",
        "[time, value]",
    );
    expect_error(
        &schedule("[[0.0, \"up\"]]"),
        "positions",
        "robot[0].servo[0].positions[0][1]",
        "expected a number",
        "write a number",
    );
    expect_error(
        &schedule("[[0.0, 1.0], [1.0, inf]]"),
        "positions",
        "robot[0].servo[0].positions[1][1]",
        "finite",
        "finite number",
    );
    expect_error(
        &schedule("[[nan, 1.0]]"),
        "positions",
        "robot[0].servo[0].positions[0][0]",
        "finite",
        "finite number",
    );
}

#[test]
fn schedule_times_are_non_negative_and_strictly_increasing() {
    expect_error(
        &schedule("[[-0.1, 1.0]]"),
        "positions",
        "robot[0].servo[0].positions[0][0]",
        "negative time -0.1",
        ">= 0",
    );
    expect_error(
        &schedule("[[0.0, 1.0], [1.0, 2.0], [1.0, 3.0]]"),
        "positions",
        "robot[0].servo[0].positions[2][0]",
        "time 1 s is not after the previous point's time 1 s",
        "strictly increasing",
    );
    let text = servo(
        "joint = \"w\"\nkd = 1.0\nvelocities = [\n  [0.0, 1.0],\n  [2.0, 2.0],\n  [1.5, 3.0],\n]",
    );
    expect_error(
        &text,
        "[1.5",
        "robot[0].servo[0].velocities[2][0]",
        "time 1.5 s is not after",
        "strictly increasing",
    );
    expect_error(
        &robot("[[robot.torque]]\njoint = \"elbow\"\nschedule = [[1.0, 0.0], [0.5, 1.0]]"),
        "schedule",
        "robot[0].torque[0].schedule[1][0]",
        "not after",
        "strictly increasing",
    );
}

#[test]
fn link_materials_are_read_in_file_order_and_must_name_defined_materials() {
    let text = format!(
        "[[material]]\nname = \"ice\"\nfriction = 0.0\n\n{}",
        robot("link_materials = { rear_caster = \"ice\", left_wheel = \"default\" }\n")
    );
    let scene = parse(&text).unwrap();
    let r = &scene.robots[0];
    let got: Vec<(&str, &str)> = (r.link_materials.iter())
        .map(|(l, m)| (l.as_str(), m.as_str()))
        .collect();
    assert_eq!(got, [("rear_caster", "ice"), ("left_wheel", "default")]);
    let line = line_of_marker(&text, "link_materials");
    assert_eq!(r.key_lines.line_of("link_materials.rear_caster", 0), line);
    // An undefined material: at the entry, naming the materials.
    let text = robot("link_materials = { rear_caster = \"ice\" } # HERE\n");
    expect_error(
        &text,
        "# HERE",
        "robot[0].link_materials.rear_caster",
        "undefined material `ice`",
        "default",
    );
    // A value that is not a material's name.
    let text = robot("link_materials = { rear_caster = 0.0 } # HERE\n");
    let e = parse(&text).unwrap_err();
    assert_eq!(
        (e.line, e.key.as_str()),
        (
            line_of_marker(&text, "# HERE"),
            "robot[0].link_materials.rear_caster"
        )
    );
}
