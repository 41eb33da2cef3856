//! Scene parser tests: a full valid scene, one test per kind of invalid scene, and a no-panic
//! sweep over truncated and garbled files.

use glam::{DQuat, DVec3};
use signorini::contact::ParamInput;
use signorini::scene::*;

#[path = "common/scene_errors.rs"]
mod scene_errors;
use scene_errors::{expect_error, line_of_marker, parse, FILE};

/// A scene using every table and most keys.
const FULL: &str = r#"
[simulation]
time_step = 5e-4
duration = 3
gravity = [0.0, 0.0, -9.81]
integrator = "rk4"
activation_distance = 2e-3
max_speed = 100.0

[contact]
model = "compliant"
stiffness = 1e5
damping = 20

[[material]]
name = "rubber"
friction = 0.8
restitution = 0.3

[[material]]
name = "ice"
friction = 0.02

[[body]]
name = "ground"
fixed = true
material = "ice"
shape = { type = "halfspace", normal = [0.0, 0.0, 2.0] }

[[body]]
name = "cube"
material = "rubber"
mass = 10
position = [0.0, 0.0, 0.5]
orientation = { axis = [0.0, 0.0, 1.0], angle_deg = 90.0 }
velocity = [1.0, 0.0, 0.0]
angular_velocity = [0.0, 0.0, 0.5]
shape = { type = "box", size = [1.0, 1.0, 1.0] }

[[body]]
name = "table"
density = 700.0
orientation = { rpy_deg = [0.0, 0.0, 90.0] }
[[body.piece]]
shape = { type = "box", size = [1.0, 1.0, 0.1] }
position = [0.0, 0.0, 0.5]
[[body.piece]]
shape = { type = "cylinder", radius = 0.05, height = 0.5 }
orientation = [2.0, 0.0, 0.0, 0.0]
[[body.piece]]
shape = { type = "convex", points = [[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]] }
[[body.piece]]
shape = { type = "sphere", radius = 0.2 }
orientation = { axis = [1.0, 0.0, 0.0], angle = 0.5 }

[[force]]
body = "cube"
force = [0.0, 0.0, -50.0]
point = [0.0, 0.0, 0.5]
end = 0.5

[[force]]
body = "table"
torque = [0.0, 0.0, 1.0]
start = 1.0

[[random_forces]]
body = "cube"
seed = 7
count = 10
period = 1.0
on_time = 0.5
magnitude = [10.0, 100.0]
direction = [0.0, 0.0, -3.0]
point_min = [-0.5, -0.5, 0.5]
point_max = [0.5, 0.5, 0.5]

[[spawn]]
name = "part"
count = 200
seed = 3
lattice = [5, 5, 8]
spacing = [0.3, 0.3, 0.3]
origin = [0.0, 0.0, 1.0]
jitter = 0.02
random_orientation = true
material = "rubber"
mass = [0.0, 100.0]
shapes = [
  { type = "box", size = [[0.1, 0.2], 0.15, [0.1, 0.2]] },
  { type = "sphere", radius = [0.05, 0.1] },
  { type = "cylinder", radius = 0.05, height = [0.1, 0.2], segments = 12 },
  { type = "random_convex", points = 12, radius = [0.05, 0.1] },
]
weights = [1.0, 2, 0.0, 1.0]

[[spawn]]
name = "pebble"
count = 3
seed = 0
lattice = [3, 1, 1]
spacing = [0.1, 0.1, 0.1]
density = 2500
shapes = [{ type = "sphere", radius = 0.01 }]

[output]
trajectory_interval = 0.01
"#;

/// Asserts that `text` fails with one error at the line of `marker`, on `key`, whose hint
/// contains `hint` and whose display has a help line; returns the error for further checks.
#[track_caller]
fn expect_err(text: &str, marker: &str, key: &str, hint: &str) -> SceneError {
    let e = expect_error(text, marker, key, "", hint);
    assert!(e.to_string().contains("\n  help: "), "{e}");
    e
}

const BOX: &str = r#"shape = { type = "box", size = [1.0, 1.0, 1.0] }"#;

/// A minimal dynamic body with extra lines.
fn body(extra: &str) -> String {
    format!("[[body]]\nname = \"b\"\nmass = 1.0\n{BOX}\n{extra}\n")
}

fn approx(a: DVec3, b: DVec3) -> bool {
    (a - b).length() < 1e-12
}

// ---------------------------------------------------------------------------------------------
// Valid scenes

#[test]
fn full_scene_parses_with_values_and_defaults() {
    let s = parse(FULL).unwrap();
    assert_eq!(s.file, FILE);

    let sim = &s.simulation;
    assert_eq!((sim.time_step, sim.duration), (5e-4, 3.0));
    assert_eq!(sim.gravity, DVec3::new(0.0, 0.0, -9.81));
    assert_eq!(sim.integrator, Integrator::Rk4);
    assert_eq!((sim.activation_distance, sim.max_speed), (2e-3, 100.0));
    assert_eq!((sim.line, sim.key.as_str()), (2, "simulation"));

    let c = &s.contact;
    assert_eq!(c.model, "compliant");
    assert_eq!(c.model_line, line_of_marker(FULL, "model ="));
    let params: Vec<_> = c
        .params
        .iter()
        .map(|p| (p.name.as_str(), p.value.clone(), p.key.as_str()))
        .collect();
    assert_eq!(
        params,
        [
            ("stiffness", ParamInput::Number(1e5), "contact.stiffness"),
            ("damping", ParamInput::Number(20.0), "contact.damping")
        ]
    );
    assert_eq!(c.params[1].line, line_of_marker(FULL, "damping"));

    let names: Vec<_> = s.materials.iter().map(|m| m.name.as_str()).collect();
    assert_eq!(names, ["default", "rubber", "ice"]);
    assert_eq!(
        (s.materials[0].friction, s.materials[0].restitution),
        (0.5, 0.0)
    );
    assert_eq!(
        (s.materials[1].friction, s.materials[1].restitution),
        (0.8, 0.3)
    );
    assert_eq!(
        (s.materials[2].friction, s.materials[2].restitution),
        (0.02, 0.0)
    );
    assert_eq!(s.material("ice").unwrap().key, "material[1]");

    assert_eq!(s.bodies.len(), 3);
    let ground = &s.bodies[0];
    assert!(ground.is_fixed());
    assert_eq!(ground.material, "ice");
    assert_eq!(
        (ground.position, ground.orientation),
        (DVec3::ZERO, DQuat::IDENTITY)
    );
    match &ground.shape {
        BodyShapeDesc::Single(LocatedShape {
            shape: ShapeDesc::HalfSpace { normal },
            line,
            key,
        }) => {
            assert_eq!(*normal, DVec3::Z);
            assert_eq!(*line, line_of_marker(FULL, "halfspace"));
            assert_eq!(key, "body[0].shape");
        }
        other => panic!("{other:?}"),
    }

    let cube = &s.bodies[1];
    assert_eq!(
        (cube.name.as_str(), cube.mass),
        ("cube", MassDesc::Mass(10.0))
    );
    assert_eq!(cube.position, DVec3::new(0.0, 0.0, 0.5));
    assert!(approx(cube.orientation * DVec3::X, DVec3::Y));
    assert_eq!(cube.velocity, DVec3::X);
    assert_eq!(cube.angular_velocity, DVec3::new(0.0, 0.0, 0.5));
    assert_eq!(
        cube.shape,
        BodyShapeDesc::Single(LocatedShape {
            shape: ShapeDesc::Box { size: DVec3::ONE },
            line: line_of_marker(FULL, r#"{ type = "box", size = [1.0, 1.0, 1.0] }"#),
            key: "body[1].shape".into(),
        })
    );
    assert_eq!(
        (cube.line, cube.key.as_str()),
        (line_of_marker(FULL, "name = \"cube\"") - 1, "body[1]")
    );

    let table = &s.bodies[2];
    assert_eq!(
        (table.mass, table.material.as_str()),
        (MassDesc::Density(700.0), "default")
    );
    assert!(
        approx(table.orientation * DVec3::X, DVec3::Y),
        "rpy yaw 90 deg maps x to y"
    );
    let BodyShapeDesc::Compound(pieces) = &table.shape else {
        panic!()
    };
    assert_eq!(pieces.len(), 4);
    assert_eq!(pieces[0].position, DVec3::new(0.0, 0.0, 0.5));
    assert_eq!(
        pieces[0].shape.shape,
        ShapeDesc::Box {
            size: DVec3::new(1.0, 1.0, 0.1)
        }
    );
    assert_eq!(
        pieces[1].shape.shape,
        ShapeDesc::Cylinder {
            radius: 0.05,
            height: 0.5,
            segments: 16
        }
    );
    assert_eq!(
        pieces[1].orientation,
        DQuat::IDENTITY,
        "quaternion is normalized"
    );
    assert_eq!(
        (pieces[1].key.as_str(), pieces[1].shape.key.as_str()),
        ("body[2].piece[1]", "body[2].piece[1].shape")
    );
    let ShapeDesc::Convex { points } = &pieces[2].shape.shape else {
        panic!()
    };
    assert_eq!(points.len(), 4);
    assert_eq!(points[3], DVec3::Z);
    assert!((pieces[3].orientation.angle_between(DQuat::IDENTITY) - 0.5).abs() < 1e-12);
    assert_eq!(s.body_index("table"), Some(2));

    assert_eq!(s.forces.len(), 2);
    let f = &s.forces[0];
    assert_eq!(
        (f.body.as_str(), f.force, f.torque),
        ("cube", DVec3::new(0.0, 0.0, -50.0), DVec3::ZERO)
    );
    assert_eq!(
        (f.point, f.start, f.end),
        (Some(DVec3::new(0.0, 0.0, 0.5)), 0.0, 0.5)
    );
    let f = &s.forces[1];
    assert_eq!((f.point, f.start, f.end), (None, 1.0, f64::INFINITY));

    let rf = &s.random_forces[0];
    assert_eq!(
        (rf.body.as_str(), rf.seed, rf.count, rf.start),
        ("cube", 7, 10, 0.0)
    );
    assert_eq!((rf.period, rf.on_time), (1.0, 0.5));
    assert_eq!(
        rf.magnitude,
        Range {
            lo: 10.0,
            hi: 100.0
        }
    );
    assert_eq!(rf.direction, -DVec3::Z);
    assert_eq!(
        (rf.point_min, rf.point_max),
        (DVec3::new(-0.5, -0.5, 0.5), DVec3::splat(0.5))
    );

    let sp = &s.spawns[0];
    assert_eq!(
        (sp.name.as_str(), sp.count, sp.seed, sp.lattice),
        ("part", 200, 3, [5, 5, 8])
    );
    assert_eq!(
        (sp.spacing, sp.origin, sp.jitter),
        (DVec3::splat(0.3), DVec3::Z, 0.02)
    );
    assert!(sp.random_orientation);
    assert_eq!((sp.velocity, sp.material.as_str()), (DVec3::ZERO, "rubber"));
    assert_eq!(sp.mass, SpawnMassDesc::Mass(Range { lo: 0.0, hi: 100.0 }));
    let r = |lo, hi| Range { lo, hi };
    let shapes: Vec<_> = sp.shapes.iter().map(|s| s.shape.clone()).collect();
    assert_eq!(
        shapes,
        [
            SpawnShapeDesc::Box {
                size: [r(0.1, 0.2), Range::exact(0.15), r(0.1, 0.2)]
            },
            SpawnShapeDesc::Sphere {
                radius: r(0.05, 0.1)
            },
            SpawnShapeDesc::Cylinder {
                radius: Range::exact(0.05),
                height: r(0.1, 0.2),
                segments: 12
            },
            SpawnShapeDesc::RandomConvex {
                points: 12,
                radius: r(0.05, 0.1)
            },
        ]
    );
    assert_eq!(sp.shapes[3].key, "spawn[0].shapes[3]");
    assert_eq!(sp.shapes[3].line, line_of_marker(FULL, "random_convex"));
    assert_eq!(sp.weights, [1.0, 2.0, 0.0, 1.0]);
    assert_eq!(
        (sp.body_name(0), sp.body_name(7), sp.body_name(199)),
        ("part_000".into(), "part_007".into(), "part_199".into())
    );
    assert!(sp.generates("part_042") && !sp.generates("part_42") && !sp.generates("part_200"));

    let sp = &s.spawns[1];
    assert_eq!(sp.mass, SpawnMassDesc::Density(Range::exact(2500.0)));
    assert_eq!(
        (sp.weights.as_slice(), sp.material.as_str()),
        ([1.0].as_slice(), "default")
    );
    assert_eq!(
        (sp.origin, sp.jitter, sp.random_orientation),
        (DVec3::ZERO, 0.0, false)
    );
    assert_eq!(sp.body_name(2), "pebble_2");

    assert_eq!(s.output.trajectory_interval, 0.01);
}

#[test]
fn empty_scene_is_all_defaults() {
    let s = parse("# nothing\n").unwrap();
    assert_eq!(s.simulation, SimulationDesc::default());
    assert_eq!(s.simulation.integrator, Integrator::ImplicitEuler);
    assert_eq!(
        (
            s.simulation.time_step,
            s.simulation.duration,
            s.simulation.max_speed
        ),
        (1e-3, 1.0, 1e4)
    );
    assert_eq!(s.simulation.gravity, DVec3::new(0.0, 0.0, -9.81));
    assert_eq!(s.simulation.activation_distance, 1e-3);
    assert_eq!(s.contact.model, "deepest-point");
    assert!(s.contact.params.is_empty());
    assert_eq!(s.materials, [MaterialDesc::default_material()]);
    assert!(
        s.bodies.is_empty()
            && s.forces.is_empty()
            && s.random_forces.is_empty()
            && s.spawns.is_empty()
    );
    assert_eq!(s.output.trajectory_interval, 0.0);
}

#[test]
fn redefined_default_material_replaces_the_implicit_one() {
    let text = "[[material]]\nname = \"ice\"\n[[material]]\nname = \"default\"\nfriction = 0.9\n";
    let s = parse(text).unwrap();
    let m: Vec<_> = s
        .materials
        .iter()
        .map(|m| (m.name.as_str(), m.friction))
        .collect();
    assert_eq!(m, [("ice", 0.5), ("default", 0.9)]);
}

#[test]
fn materials_may_be_defined_after_use_and_orientation_forms_agree() {
    let text = format!(
        "{}[[material]]\nname = \"late\"\n",
        body("material = \"late\"\norientation = { rpy = [0.3, -0.2, 1.1] }")
    );
    let s = parse(&text).unwrap();
    assert_eq!(s.bodies[0].material, "late");
    let expect =
        DQuat::from_rotation_z(1.1) * DQuat::from_rotation_y(-0.2) * DQuat::from_rotation_x(0.3);
    assert!(s.bodies[0].orientation.angle_between(expect) < 1e-12);
    let s = parse(&body("orientation = { rpy_deg = [10.0, 20.0, 30.0] }")).unwrap();
    let expect = DQuat::from_euler(
        glam::EulerRot::ZYX,
        30f64.to_radians(),
        20f64.to_radians(),
        10f64.to_radians(),
    );
    assert!(s.bodies[0].orientation.angle_between(expect) < 1e-12);
}

#[test]
fn integers_are_accepted_where_floats_are_expected() {
    let s = parse("[simulation]\ntime_step = 1\ngravity = [0, 0, -10]\n").unwrap();
    assert_eq!(s.simulation.time_step, 1.0);
    assert_eq!(s.simulation.gravity, DVec3::new(0.0, 0.0, -10.0));
}

#[test]
fn error_helper_formats_like_parse_errors() {
    let text = "a\nb\nc = 1\n";
    let e = SceneError::at(
        "f.toml",
        text,
        text.find('c').unwrap(),
        "body[0].shape",
        "degenerate hull",
        "spread the points",
    );
    assert_eq!(
        e.to_string(),
        "f.toml:3: body[0].shape: degenerate hull\n  help: spread the points"
    );
    assert_eq!(
        SceneError::new(
            "f.toml",
            3,
            "body[0].shape",
            "degenerate hull",
            "spread the points"
        ),
        e
    );
}

#[test]
fn load_scene_reads_files_and_reports_io_errors() {
    let dir = std::env::temp_dir().join(format!("scene-dev-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("scene.toml");
    std::fs::write(&path, FULL).unwrap();
    let s = load_scene(&path).unwrap();
    assert_eq!(s.file, path.display().to_string());
    assert_eq!(s.bodies.len(), 3);
    let missing = dir.join("missing.toml");
    let e = load_scene(&missing).unwrap_err();
    assert_eq!((e.line, e.file.clone()), (0, missing.display().to_string()));
    assert!(e.message.contains("cannot read"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

// ---------------------------------------------------------------------------------------------
// Invalid scenes: one test per case

#[test]
fn toml_syntax_error() {
    let text = "[simulation]\ntime_step = 1e-3\nduration = = 2\n";
    expect_err(
        text,
        "duration",
        "syntax",
        "check the TOML syntax at this line",
    );
    let text = "[simulation\ntime_step = 1e-3\n";
    expect_err(text, "[simulation", "syntax", "check the TOML syntax");
}

#[test]
fn unknown_key_in_body_suggests_closest() {
    let text = "[[body]]\nname = \"b\"\nmas = 1.0\nshape = { type = \"sphere\", radius = 1.0 }\n";
    let e = expect_err(text, "mas =", "body[0].mas", "did you mean `mass`?");
    assert!(
        e.hint.contains("`angular_velocity`"),
        "lists the valid keys: {e}"
    );
    assert_eq!(e.message, "unknown key `mas`");
}

/// The empty key (`'' = 1`, valid TOML) is named as the scene spells it, `''`, at the top level
/// and in a table (found by the `check` fuzz target: the error named no key).
#[test]
fn an_empty_key_is_named_as_two_quotes() {
    let e = expect_err("''=''\n", "''=", "''", "top-level keys");
    assert_eq!(e.message, "unknown key `''`");
    let e = expect_err(
        "[simulation]\n'' = 1\n",
        "'' =",
        "simulation.''",
        "keys here",
    );
    assert_eq!(e.message, "unknown key `''`");
}

#[test]
fn unknown_key_at_top_level_and_in_nested_tables() {
    expect_err(
        "[simulaton]\nduration = 1.0\n",
        "[simulaton]",
        "simulaton",
        "did you mean `simulation`?",
    );
    let text = body("").replace("size = [", "sise = [");
    expect_err(&text, "sise", "body[0].shape.sise", "did you mean `size`?");
    let text = "[simulation]\nintegrater = \"rk4\"\n";
    expect_err(
        text,
        "integrater",
        "simulation.integrater",
        "did you mean `integrator`?",
    );
    let e = expect_err(
        "[output]\nfoo = 1\n",
        "foo",
        "output.foo",
        "`trajectory_interval`",
    );
    assert!(!e.hint.contains("did you mean"), "no close key: {e}");
    let text = body("orientation = { axis = [0.0, 0.0, 1.0], angel = 1.0 }");
    expect_err(
        &text,
        "orientation",
        "body[0].orientation.angel",
        "did you mean `angle`?",
    );
}

#[test]
fn wrong_type_string_for_number() {
    let e = expect_err(
        "[simulation]\nduration = \"3.0\"\n",
        "duration",
        "simulation.duration",
        "write a number",
    );
    assert!(
        e.message
            .contains("expected a number, found the string \"3.0\""),
        "{e}"
    );
}

#[test]
fn wrong_type_vec3_of_wrong_length() {
    let e = expect_err(
        &body("position = [0.0, 1.0]"),
        "position",
        "body[0].position",
        "[x, y, z]",
    );
    assert!(e.message.contains("an array of 2 items"), "{e}");
    let e = expect_err(
        &body("velocity = [0.0, \"1\", 2.0]"),
        "velocity",
        "body[0].velocity[1]",
        "write a number",
    );
    assert!(e.message.contains("the string"), "{e}");
}

#[test]
fn wrong_type_float_where_integer_expected() {
    let text = "[[spawn]]\nname = \"p\"\ncount = 2.0\n";
    let e = expect_err(text, "count", "spawn[0].count", "without a decimal point");
    assert!(
        e.message
            .contains("expected an integer, found the float 2.0"),
        "{e}"
    );
}

#[test]
fn wrong_type_other_values() {
    expect_err(
        &body("fixed = 1"),
        "fixed = 1",
        "body[0].fixed",
        "`true` or `false`",
    );
    expect_err(
        "[[body]]\nname = 5\n",
        "name = 5",
        "body[0].name",
        "double quotes",
    );
    expect_err("simulation = 3\n", "simulation", "simulation", "as a table");
    expect_err("[body]\nname = \"b\"\n", "[body]", "body", "[[body]]");
    expect_err(
        &body("orientation = \"up\""),
        "orientation",
        "body[0].orientation",
        "quaternion",
    );
    expect_err(
        "[contact]\nstiffness = true\n",
        "stiffness",
        "contact.stiffness",
        "a word in quotes",
    );
}

#[test]
fn missing_required_key() {
    let e = expect_err(
        "[[material]]\nfriction = 0.3\n",
        "[[material]]",
        "material[0].name",
        "add `name = ",
    );
    assert_eq!(e.message, "missing required key `name`");
    let text = format!("{}[[random_forces]]\nbody = \"b\"\ncount = 1\n", body(""));
    expect_err(
        &text,
        "[[random_forces]]",
        "random_forces[0].seed",
        "add `seed = <integer>`",
    );
    expect_err(
        &body("").replace("size = [1.0, 1.0, 1.0]", ""),
        BOX.split(" size").next().unwrap(),
        "body[0].shape.size",
        "add `size",
    );
    expect_err(
        "[[body]]\nname = \"b\"\nmass = 1.0\nshape = { radius = 1.0 }\n",
        "shape",
        "body[0].shape.type",
        "\"sphere\"",
    );
}

#[test]
fn non_positive_mass() {
    let text = body("").replace("mass = 1.0", "mass = 0.0");
    expect_err(
        &text,
        "mass",
        "body[0].mass",
        "`mass` is in kg; give a value greater than 0",
    );
}

#[test]
fn non_positive_density() {
    let text = body("").replace("mass = 1.0", "density = -1000");
    let e = expect_err(&text, "density", "body[0].density", "greater than 0");
    assert_eq!(e.message, "must be greater than 0, got -1000");
}

#[test]
fn non_positive_time_step_and_duration() {
    expect_err(
        "[simulation]\ntime_step = 0.0\n",
        "time_step",
        "simulation.time_step",
        "`time_step` is in s",
    );
    expect_err(
        "[simulation]\nduration = -1.0\n",
        "duration",
        "simulation.duration",
        "greater than 0",
    );
}

#[test]
fn non_positive_radius_and_box_size() {
    let text = "[[body]]\nname = \"s\"\nmass = 1\nshape = { type = \"sphere\", radius = 0 }\n";
    expect_err(
        text,
        "radius",
        "body[0].shape.radius",
        "`radius` is in m; give a value greater than 0",
    );
    let text = body("").replace("[1.0, 1.0, 1.0]", "[1.0, -1.0, 1.0]");
    expect_err(&text, "size", "body[0].shape.size[1]", "greater than 0");
    let text = format!(
        "{}[[body.piece]]\nshape = {{ type = \"cylinder\", radius = 1, height = 0 }}\n",
        "[[body]]\nname = \"c\"\nmass = 1\n"
    );
    expect_err(
        &text,
        "cylinder",
        "body[0].piece[0].shape.height",
        "greater than 0",
    );
}

#[test]
fn negative_friction_and_restitution_out_of_range() {
    let text = "[[material]]\nname = \"m\"\nfriction = -0.1\n";
    expect_err(text, "friction", "material[0].friction", "at least 0");
    let text = "[[material]]\nname = \"m\"\nrestitution = 1.5\n";
    let e = expect_err(
        text,
        "restitution",
        "material[0].restitution",
        "between 0 and 1",
    );
    assert!(
        e.message.contains("must be between 0 and 1, got 1.5"),
        "{e}"
    );
}

#[test]
fn dynamic_body_needs_exactly_one_of_mass_and_density() {
    let text = format!("[[body]]\nname = \"b\"\n{BOX}\n");
    let e = expect_err(&text, "[[body]]", "body[0].mass", "or set `fixed = true`");
    assert!(e.message.contains("needs `mass` or `density`"), "{e}");
    let text = body("density = 10.0");
    expect_err(&text, "density", "body[0].density", "remove one of them");
}

#[test]
fn fixed_body_takes_no_mass() {
    let text = format!("[[body]]\nname = \"g\"\nfixed = true\nmass = 3.0\n{BOX}\n");
    let e = expect_err(&text, "mass", "body[0].mass", "remove `mass`");
    assert!(e.message.contains("fixed bodies do not move"), "{e}");
}

#[test]
fn body_needs_exactly_one_of_shape_and_piece() {
    let text = format!("{}[[body.piece]]\n{BOX}\n", body(""));
    expect_err(&text, "[[body.piece]]", "body[0].piece", "remove `shape`");
    let text = "[[body]]\nname = \"b\"\nmass = 1.0\n";
    let e = expect_err(text, "[[body]]", "body[0].shape", "[[body.piece]]");
    assert!(e.message.contains("no `shape` and no `piece`"), "{e}");
}

#[test]
fn halfspace_only_on_fixed_single_shape_bodies() {
    let text = "[[body]]\nname = \"g\"\nmass = 1.0\nshape = { type = \"halfspace\", normal = [0, 0, 1] }\n";
    expect_err(text, "halfspace", "body[0].shape", "set `fixed = true`");
    let text = "[[body]]\nname = \"g\"\nfixed = true\n[[body.piece]]\nshape = { type = \"halfspace\", normal = [0, 0, 1] }\n";
    let e = expect_err(
        text,
        "halfspace",
        "body[0].piece[0].shape",
        "its own [[body]]",
    );
    assert!(e.message.contains("cannot be a piece"), "{e}");
}

#[test]
fn zero_normal_axis_and_quaternion() {
    let text = "[[body]]\nname = \"g\"\nfixed = true\nshape = { type = \"halfspace\", normal = [0, 0, 0] }\n";
    expect_err(text, "halfspace", "body[0].shape.normal", "nonzero");
    let text = body("orientation = { axis = [0.0, 0.0, 0.0], angle = 1.0 }");
    expect_err(&text, "orientation", "body[0].orientation.axis", "nonzero");
    let text = body("orientation = [0.0, 0.0, 0.0, 0.0]");
    let e = expect_err(
        &text,
        "orientation",
        "body[0].orientation",
        "[1.0, 0.0, 0.0, 0.0]",
    );
    assert!(e.message.contains("zero norm"), "{e}");
}

#[test]
fn orientation_with_conflicting_forms() {
    let text = body("orientation = { axis = [0.0, 0.0, 1.0], angle = 1.0, rpy = [0.0, 0.0, 1.0] }");
    expect_err(
        &text,
        "orientation",
        "body[0].orientation",
        "angle_deg = 30.0",
    );
    let text = body("orientation = { axis = [0.0, 0.0, 1.0] }");
    expect_err(&text, "orientation", "body[0].orientation", "rpy_deg");
}

#[test]
fn convex_with_too_few_points() {
    let text = body("").replace(
        r#"{ type = "box", size = [1.0, 1.0, 1.0] }"#,
        r#"{ type = "convex", points = [[0, 0, 0], [1, 0, 0], [0, 1, 0]] }"#,
    );
    let e = expect_err(&text, "convex", "body[0].shape.points", "at least 4 points");
    assert!(e.message.contains("got 3"), "{e}");
}

#[test]
fn convex_with_non_finite_point() {
    let text = body("").replace(
        r#"{ type = "box", size = [1.0, 1.0, 1.0] }"#,
        r#"{ type = "convex", points = [[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, nan]] }"#,
    );
    let e = expect_err(
        &text,
        "convex",
        "body[0].shape.points[3][2]",
        "finite number",
    );
    assert!(e.message.contains("found nan"), "{e}");
}

#[test]
fn unknown_shape_type() {
    let text = body("").replace("\"box\"", "\"sphear\"");
    let e = expect_err(
        &text,
        "sphear",
        "body[0].shape.type",
        "did you mean `sphere`?",
    );
    assert!(e.hint.contains("`halfspace`"), "lists the valid types: {e}");
    let text = "[[spawn]]\nname = \"p\"\ncount = 1\nseed = 1\nlattice = [1, 1, 1]\nspacing = [1, 1, 1]\nmass = 1\nshapes = [{ type = \"convex\" }]\n";
    expect_err(
        text,
        "convex",
        "spawn[0].shapes[0].type",
        "valid types: `box`, `sphere`, `cylinder`, `random_convex`",
    );
}

#[test]
fn duplicate_body_names() {
    let text = format!("{}{}", body(""), body(""));
    let e = parse(&text).unwrap_err();
    assert_eq!(
        (e.file.as_str(), e.line, e.key.as_str()),
        (FILE, 7, "body[1].name")
    );
    assert!(e.hint.contains("first defined at line 1"), "{e}");
    assert!(e.message.contains("duplicate body name `b`"), "{e}");
}

#[test]
fn duplicate_material_names() {
    let text = "[[material]]\nname = \"m\"\n[[material]]\nname = \"m\"\nfriction = 1.0\n";
    let e = parse(text).unwrap_err();
    assert_eq!(
        (e.file.as_str(), e.line, e.key.as_str()),
        (FILE, 4, "material[1].name")
    );
    assert!(
        e.hint
            .contains("must be unique; `m` is first defined at line 1"),
        "{e}"
    );
    let text = "[[material]]\nname = \"default\"\n[[material]]\nname = \"default\"\n";
    assert_eq!(parse(text).unwrap_err().key, "material[1].name");
}

#[test]
fn spawned_names_clash_with_body_names() {
    let spawn = "[[spawn]]\nname = \"part\"\ncount = 12\nseed = 1\nlattice = [12, 1, 1]\nspacing = [1, 1, 1]\nmass = 1\nshapes = [{ type = \"sphere\", radius = 0.1 }]\n";
    let text = format!("{spawn}{}", body("").replace("\"b\"", "\"part_07\""));
    let e = expect_err(&text, "part_07", "body[0].name", "rename");
    assert!(e.message.contains("spawn[0]"), "{e}");
    let text = format!("{}{spawn}", body("").replace("\"b\"", "\"part_11\""));
    expect_err(&text, "\"part\"", "spawn[0].name", "rename");
    // part_7 or part_12 are not generated (width 2, count 12).
    assert!(parse(&format!(
        "{spawn}{}",
        body("").replace("\"b\"", "\"part_7\"")
    ))
    .is_ok());
    assert!(parse(&format!(
        "{spawn}{}",
        body("").replace("\"b\"", "\"part_12\"")
    ))
    .is_ok());
    let text = format!("{spawn}{spawn}");
    let e = parse(&text).unwrap_err();
    assert_eq!((e.line, e.key.as_str()), (10, "spawn[1].name"));
    assert!(e.hint.contains("must be unique"), "{e}");
}

#[test]
fn undefined_body_in_force() {
    let text = format!(
        "{}[[force]]\nbody = \"c\"\nforce = [1.0, 0.0, 0.0]\n",
        body("")
    );
    let e = expect_err(&text, "body = \"c\"", "force[0].body", "did you mean `b`?");
    assert_eq!(e.message, "undefined body `c`");
}

#[test]
fn undefined_body_in_random_forces() {
    let text = "[[random_forces]]\nbody = \"ghost\"\nseed = 1\n";
    expect_err(
        text,
        "ghost",
        "random_forces[0].body",
        "no [[body]] names are defined",
    );
    let spawn = "[[spawn]]\nname = \"p\"\ncount = 2\nseed = 1\nlattice = [2, 1, 1]\nspacing = [1, 1, 1]\nmass = 1\nshapes = [{ type = \"sphere\", radius = 0.1 }]\n";
    let text = format!("[[force]]\nbody = \"p_1\"\n{spawn}");
    expect_err(
        &text,
        "p_1",
        "force[0].body",
        "spawned bodies cannot be referenced",
    );
}

#[test]
fn undefined_material_in_body() {
    let e = expect_err(
        &body("material = \"rubbr\""),
        "rubbr",
        "body[0].material",
        "[[material]]",
    );
    assert!(e.message.contains("undefined material `rubbr`"), "{e}");
    let text = format!(
        "[[material]]\nname = \"rubber\"\n{}",
        body("material = \"rubbr\"")
    );
    expect_err(&text, "rubbr", "body[0].material", "did you mean `rubber`?");
}

#[test]
fn undefined_material_in_spawn() {
    let text = "[[spawn]]\nname = \"p\"\ncount = 1\nseed = 1\nlattice = [1, 1, 1]\nspacing = [1, 1, 1]\nmaterial = \"steel\"\n";
    expect_err(
        text,
        "steel",
        "spawn[0].material",
        "valid materials: `default`",
    );
}

#[test]
fn unknown_integrator() {
    let e = expect_err(
        "[simulation]\nintegrator = \"rk5\"\n",
        "rk5",
        "simulation.integrator",
        "did you mean `rk4`?",
    );
    assert!(e.hint.contains("`semi-implicit-euler`"), "{e}");
    assert_eq!(e.message, "unknown integrator `rk5`");
}

#[test]
fn spawn_count_exceeds_lattice() {
    let text = "[[spawn]]\nname = \"p\"\ncount = 201\nseed = 3\nlattice = [5, 5, 8]\n";
    let e = expect_err(text, "count", "spawn[0].count", "enlarge `lattice`");
    assert!(e.message.contains("count 201 exceeds the 200 cells"), "{e}");
}

#[test]
fn range_with_lo_above_hi() {
    let text = "[[spawn]]\nname = \"p\"\ncount = 1\nseed = 1\nlattice = [1, 1, 1]\nspacing = [1, 1, 1]\nmass = [2.0, 1.0]\n";
    let e = expect_err(text, "mass", "spawn[0].mass", "[1, 2]");
    assert!(e.message.contains("lo > hi"), "{e}");
    let text = format!("{}[[random_forces]]\nbody = \"b\"\nseed = 1\ncount = 1\nperiod = 1\non_time = 1\nmagnitude = [5, 1]\n", body(""));
    expect_err(
        &text,
        "magnitude",
        "random_forces[0].magnitude",
        "smaller bound first",
    );
}

#[test]
fn non_finite_numbers() {
    let e = expect_err(
        "[simulation]\ngravity = [0.0, 0.0, nan]\n",
        "gravity",
        "simulation.gravity[2]",
        "finite number",
    );
    assert!(
        e.message.contains("expected a finite number, found nan"),
        "{e}"
    );
    expect_err(
        &body("position = [inf, 0.0, 0.0]"),
        "position",
        "body[0].position[0]",
        "finite",
    );
    expect_err(
        "[simulation]\nmax_speed = +inf\n",
        "max_speed",
        "simulation.max_speed",
        "finite",
    );
    expect_err("[contact]\nk = -inf\n", "k =", "contact.k", "finite");
    expect_err(
        "[simulation]\nduration = 1e999\n",
        "duration",
        "simulation.duration",
        "finite",
    );
}

#[test]
fn force_and_pulse_timing() {
    let text = format!(
        "{}[[force]]\nbody = \"b\"\nstart = 1.0\nend = 0.5\n",
        body("")
    );
    expect_err(&text, "end", "force[0].end", "greater than `start`");
    let text = format!(
        "{}[[random_forces]]\nbody = \"b\"\nseed = 1\ncount = 1\nperiod = 1\non_time = 2\n",
        body("")
    );
    expect_err(
        &text,
        "on_time",
        "random_forces[0].on_time",
        "at most `period`",
    );
    let text = format!("{}[[random_forces]]\nbody = \"b\"\nseed = -1\n", body(""));
    expect_err(&text, "seed", "random_forces[0].seed", "at least 0");
}

#[test]
fn random_force_point_box_must_be_ordered() {
    let text = format!("{}[[random_forces]]\nbody = \"b\"\nseed = 1\ncount = 1\nperiod = 1\non_time = 1\nmagnitude = 1\ndirection = [0, 0, 1]\npoint_min = [0, 0, 1]\npoint_max = [0, 0, 0]\n", body(""));
    let e = expect_err(
        &text,
        "point_max",
        "random_forces[0].point_max",
        "at least that of `point_min`",
    );
    assert!(e.message.contains("point_max[2]"), "{e}");
}

#[test]
fn spawn_shapes_and_weights() {
    let head = "[[spawn]]\nname = \"p\"\ncount = 1\nseed = 1\nlattice = [1, 1, 1]\nspacing = [1, 1, 1]\nmass = 1\n";
    expect_err(
        &format!("{head}shapes = []\n"),
        "shapes",
        "spawn[0].shapes",
        "at least one shape",
    );
    let text = format!("{head}shapes = [{{ type = \"sphere\", radius = 1 }}]\nweights = [1, 2]\n");
    expect_err(&text, "weights", "spawn[0].weights", "one weight per entry");
    let text = format!("{head}shapes = [{{ type = \"sphere\", radius = 1 }}]\nweights = [0]\n");
    expect_err(&text, "weights", "spawn[0].weights", "positive weight");
    let text = format!("{head}shapes = [{{ type = \"random_convex\", points = 3, radius = 1 }}]\n");
    expect_err(
        &text,
        "random_convex",
        "spawn[0].shapes[0].points",
        "at least 4",
    );
    let text = format!("{head}shapes = [{{ type = \"box\", size = [1, [0, 1], 1] }}]\n");
    expect_err(
        &text,
        "box",
        "spawn[0].shapes[0].size[1][0]",
        "greater than 0",
    );
    let text = format!("{head}density = 1\n");
    expect_err(&text, "density", "spawn[0].density", "remove one of them");
    let text = format!(
        "{head}shapes = [{{ type = \"cylinder\", radius = 1, height = 1, segments = 2 }}]\n"
    );
    expect_err(
        &text,
        "cylinder",
        "spawn[0].shapes[0].segments",
        "at least 3",
    );
}

/// Generated geometry has documented bounds (docs/scene-format.md), so a typo such as
/// `segments = 1e8` is an error at the key instead of gigabytes and minutes of hull building.
#[test]
fn generated_geometry_is_bounded() {
    use signorini::scene::{MAX_CONVEX_POINTS, MAX_CYLINDER_SEGMENTS, MAX_RANDOM_CONVEX_POINTS};
    let cylinder = |segments: i64| {
        format!(
            "[[body]]\nname = \"c\"\nmass = 1.0\nshape = {{ type = \"cylinder\", radius = 1, height = 1, segments = {segments} }}\n"
        )
    };
    assert!(parse(&cylinder(MAX_CYLINDER_SEGMENTS)).is_ok());
    let e = expect_err(
        &cylinder(MAX_CYLINDER_SEGMENTS + 1),
        "cylinder",
        "body[0].shape.segments",
        &format!("at most {MAX_CYLINDER_SEGMENTS}"),
    );
    assert!(e
        .to_string()
        .contains(&format!("got {}", MAX_CYLINDER_SEGMENTS + 1)));
    let spawn = |points: i64| {
        format!(
            "[[spawn]]\nname = \"p\"\ncount = 1\nseed = 1\nlattice = [1, 1, 1]\nspacing = [1, 1, 1]\nmass = 1\nshapes = [{{ type = \"random_convex\", points = {points}, radius = 0.1 }}]\n"
        )
    };
    assert!(
        parse(&spawn(MAX_RANDOM_CONVEX_POINTS)).is_ok(),
        "{:?}",
        parse(&spawn(MAX_RANDOM_CONVEX_POINTS)).err()
    );
    expect_err(
        &spawn(MAX_RANDOM_CONVEX_POINTS + 1),
        "random_convex",
        "spawn[0].shapes[0].points",
        &format!("at most {MAX_RANDOM_CONVEX_POINTS}"),
    );
    let cloud = |n: usize| {
        let points: Vec<String> = (0..n)
            .map(|i| format!("[{}, {}, {}]", i % 7, (i / 7) % 11, i / 77))
            .collect();
        format!(
            "[[body]]\nname = \"p\"\nmass = 1.0\nshape = {{ type = \"convex\", points = [{}] }}\n",
            points.join(", ")
        )
    };
    let e = expect_err(
        &cloud(MAX_CONVEX_POINTS + 1),
        "convex",
        "body[0].shape.points",
        "hull's own vertices",
    );
    assert!(e
        .to_string()
        .contains(&format!("at most {MAX_CONVEX_POINTS} points")));
}

/// A run in fixed steps lands exactly on its duration (issue 21 item 4): a duration that is not a
/// whole number of steps, a step longer than the duration, or more than 1e9 steps is an error at
/// `simulation.duration` whose hint gives durations that work. Adaptive runs land on the
/// duration by construction and are not checked.
#[test]
fn duration_is_a_whole_number_of_fixed_steps() {
    let sim = |h: &str, t: &str| format!("[simulation]\ntime_step = {h}\nduration = {t}\n");
    assert!(parse(&sim("0.001", "0.3")).is_ok());
    assert!(parse(&sim("0.002", "5.0")).is_ok());
    let e = expect_err(
        &sim("0.003", "1.0"),
        "duration",
        "simulation.duration",
        "0.999 or 1.002",
    );
    assert!(e.message.contains("not a whole number of steps"), "{e}");
    expect_err(
        &sim("2.0", "1.0"),
        "duration",
        "simulation.duration",
        "at most the duration",
    );
    expect_err(
        &sim("5e-324", "1.0"),
        "duration",
        "simulation.duration",
        "shorten the duration",
    );
    let adaptive = "[simulation]\ntime_step = 0.003\nduration = 1.0\n[simulation.adaptive]\nenergy_tolerance = 1e-3\n";
    assert!(parse(adaptive).is_ok(), "{:?}", parse(adaptive).err());
}

#[test]
fn first_error_in_file_order_is_reported() {
    // Both tables are wrong; the one earlier in the file wins, whatever the section.
    let text = "[output]\ntrajectory_interval = -1\n[simulation]\ntime_step = 0\n";
    assert_eq!(parse(text).unwrap_err().key, "output.trajectory_interval");
    let text = "[simulation]\ntime_step = 0\n[output]\ntrajectory_interval = -1\n";
    assert_eq!(parse(text).unwrap_err().key, "simulation.time_step");
    // An unknown key is reported before a missing required key of the same table.
    let text = "[[material]]\nnmae = \"x\"\n";
    assert_eq!(parse(text).unwrap_err().key, "material[0].nmae");
}

// ---------------------------------------------------------------------------------------------
// Robustness

/// Truncated and garbled versions of a valid scene must give `Ok` or `Err`, never panic.
#[test]
fn garbled_scenes_never_panic() {
    let mut runs = 0;
    let mut try_text = |t: &str| {
        runs += 1;
        if let Err(e) = parse(t) {
            assert!(e.line <= t.lines().count() + 1, "{e}");
        }
    };
    let cuts: Vec<usize> = FULL.char_indices().map(|(i, _)| i).collect();
    for &i in &cuts {
        try_text(&FULL[..i]);
        try_text(&FULL[i..]);
    }
    let junk = [
        "",
        "\"",
        "[",
        "]",
        "{",
        "}",
        "=",
        ",",
        "\n",
        "0",
        "-",
        ".",
        "nan",
        "[[body]]\n",
        "x",
        "1e999",
        "\"\"\"",
        "'",
    ];
    for (n, &i) in cuts.iter().enumerate() {
        let j = junk[n % junk.len()];
        let next = FULL[i..].chars().next().map_or(i, |c| i + c.len_utf8());
        try_text(&format!("{}{}{}", &FULL[..i], j, &FULL[next..]));
        try_text(&format!(
            "{}{}{}",
            &FULL[..i],
            junk[(n * 7 + 3) % junk.len()],
            &FULL[i..]
        ));
    }
    // Swap whole lines around and duplicate them.
    let lines: Vec<&str> = FULL.lines().collect();
    for i in 0..lines.len() {
        let mut l = lines.clone();
        l.swap(i, (i * 13 + 5) % lines.len());
        try_text(&l.join("\n"));
        let mut l = lines.clone();
        l.insert(i, lines[(i * 7 + 1) % lines.len()]);
        try_text(&l.join("\n"));
    }
    for t in [
        "",
        "\u{feff}",
        "\0",
        "a",
        "[[",
        "x = \"\u{1F600}\"",
        "[a.b.c]\n[a]\nb = 1",
        "body = [1, 2]",
        "material = [[1]]",
    ] {
        try_text(t);
    }
    assert!(runs > 5_000, "{runs}");
}

/// `[simulation.adaptive]`: values and defaults (min = time_step × 1e-6, max = time_step), and its
/// errors at the right line and key: the required tolerance, min above max, a first step outside
/// [min, max], an unknown key.
#[test]
fn adaptive_time_steps_parse_with_defaults_and_errors() {
    let text = "[simulation]\ntime_step = 1e-3\n[simulation.adaptive]\nenergy_tolerance = 1e-6\n";
    let a = parse(text).unwrap().simulation.adaptive.expect("adaptive");
    assert_eq!(
        (a.energy_tolerance, a.min_time_step, a.max_time_step),
        (1e-6, 1e-3 * 1e-6, 1e-3)
    );
    assert!(parse("[simulation]\n")
        .unwrap()
        .simulation
        .adaptive
        .is_none());
    expect_err(
        "[simulation]\n[simulation.adaptive]\nmin_time_step = 1e-6\n",
        "[simulation.adaptive]",
        "simulation.adaptive.energy_tolerance",
        "add `energy_tolerance = <number>` (in J)",
    );
    expect_err(
        "[simulation.adaptive]\nenergy_tolerance = 1e-6\nmin_time_step = 1e-2\nmax_time_step = 1e-3\n",
        "min_time_step",
        "simulation.adaptive.min_time_step",
        "min_time_step <= max_time_step",
    );
    expect_err(
        "[simulation]\ntime_step = 0.1\n[simulation.adaptive]\nenergy_tolerance = 1e-6\nmax_time_step = 1e-2\n",
        "max_time_step",
        "simulation.adaptive.max_time_step",
        "set time_step between",
    );
    expect_err(
        "[simulation.adaptive]\nenergy_tolerance = 1e-6\nmax_timestep = 1\n",
        "max_timestep",
        "simulation.adaptive.max_timestep",
        "did you mean `max_time_step`?",
    );
    expect_err(
        "[simulation.adaptive]\nenergy_tolerance = -1.0\n",
        "energy_tolerance",
        "simulation.adaptive.energy_tolerance",
        "",
    );
}

/// `release_interval` of a spawn: parsed in s, default 0, negative or non-numeric values rejected
/// at its line with the unit in the hint.
#[test]
fn spawn_release_interval_is_parsed_and_checked() {
    let spawn = "[[spawn]]\nname = \"p\"\ncount = 3\nseed = 1\nlattice = [3, 1, 1]\nspacing = [1, 1, 1]\nmass = 1\nshapes = [{ type = \"sphere\", radius = 0.1 }]\n";
    let s = parse(spawn).unwrap();
    assert_eq!(s.spawns[0].release_interval, 0.0);
    let s = parse(&format!("{spawn}release_interval = 0.5\n")).unwrap();
    assert_eq!(s.spawns[0].release_interval, 0.5);
    let text = format!("{spawn}release_interval = -0.5\n");
    let e = expect_err(
        &text,
        "release_interval",
        "spawn[0].release_interval",
        "`release_interval` is in s; give a value at least 0",
    );
    assert_eq!(e.message, "must be at least 0, got -0.5");
    expect_err(
        &format!("{spawn}release_interval = \"soon\"\n"),
        "release_interval",
        "spawn[0].release_interval",
        "write a number",
    );
}

/// The line index the parser builds once gives, at every byte offset (and past the end), the line
/// that counting newlines from the start gives.
#[test]
fn the_line_index_agrees_with_counting_newlines() {
    use signorini::scene::{line_of, LineIndex};
    for text in [
        "",
        "a",
        "\n",
        "a\nb",
        "a\nb\n",
        "\n\n[x]\ny = 1\n\nz = 2",
        "ü\nß\n",
    ] {
        let index = LineIndex::new(text);
        for offset in 0..text.len() + 3 {
            assert_eq!(
                index.line(offset),
                line_of(text, offset),
                "{text:?} at {offset}"
            );
        }
    }
}
