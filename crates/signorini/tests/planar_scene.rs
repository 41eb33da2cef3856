//! 2D scene files (`scene/planar.rs`, `scene/parse/planar.rs`): the bundled 2D examples load
//! with the bodies they describe, and errors name file:line:key with a hint.
use signorini::planar::PlanarShape;
use signorini::scene::{dimension_of_text, load_planar, parse_planar, parse_scene, SceneError};
use signorini::DVec2;
use std::path::Path;

fn example(name: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples")
        .join(name)
}

const HEAD: &str = "[simulation]\ndimension = 2\n";

fn err(text: &str) -> SceneError {
    match parse_planar(text, "s.toml") {
        Ok(_) => panic!("accepted:\n{text}"),
        Err(e) => e,
    }
}

/// The error is at `line` (1-based), key `key`, and its message or hint mentions `word`.
fn expect(text: &str, line: usize, key: &str, word: &str) {
    let e = err(text);
    assert_eq!((e.line, e.key.as_str()), (line, key), "{e}");
    assert!(
        e.message.contains(word) || e.hint.contains(word),
        "`{word}` not in: {e}"
    );
    assert!(
        e.to_string()
            .starts_with(&format!("s.toml:{line}: {key}: ")),
        "{e}"
    );
}

#[test]
fn bundled_2d_examples_load() {
    let ramp = load_planar(&example("planar_box_on_ramp.toml")).unwrap();
    assert_eq!(ramp.model.bodies.len(), 2);
    assert!(matches!(
        ramp.model.bodies[0].shape,
        PlanarShape::Line { .. }
    ));
    assert!((ramp.initial.bodies[1].angle - 30f64.to_radians()).abs() < 1e-15);
    assert_eq!(ramp.desc.contact.model, "stewart-trinkle");
    assert!((ramp.model.friction(0, 1) - 0.2).abs() < 1e-15);
    let stack = load_planar(&example("planar_stack.toml")).unwrap();
    assert_eq!(stack.model.bodies.iter().filter(|b| !b.fixed).count(), 4);
    let disk = load_planar(&example("planar_disk_segment.toml")).unwrap();
    assert!(matches!(
        disk.model.bodies[0].shape,
        PlanarShape::Segment { .. }
    ));
    assert_eq!(disk.initial.bodies[2].angular_velocity, -20.0);
    for s in [&ramp, &stack, &disk] {
        s.contact_model(None).unwrap();
    }
}

#[test]
fn position_places_the_shape_frame_and_the_state_is_the_centre_of_mass() {
    let text = format!(
        "{HEAD}[[body]]\nname = \"t\"\nmass = 1.0\nposition = [1.0, 2.0]\nangle_deg = 90.0\n\
         shape = {{ type = \"polygon\", points = [[0.0, 0.0], [3.0, 0.0], [0.0, 3.0]] }}\n"
    );
    let s = parse_planar(&text, "s.toml").unwrap();
    // Centroid (1, 1) in the shape frame, turned by 90°: (−1, 1).
    let c = s.initial.bodies[0].position;
    assert!((c - DVec2::new(0.0, 3.0)).length() < 1e-14, "{c:?}");
}

#[test]
fn dimension_dispatch() {
    assert_eq!(dimension_of_text("", "s.toml").unwrap(), 3);
    assert_eq!(dimension_of_text(HEAD, "s.toml").unwrap(), 2);
    let e = dimension_of_text("[simulation]\ndimension = 4\n", "s.toml").unwrap_err();
    assert_eq!((e.line, e.key.as_str()), (2, "simulation.dimension"), "{e}");
    // The 3D loader refuses a 2D scene at its `dimension`, saying which commands read it.
    let e = parse_scene(&format!("# a 2D scene\n{HEAD}"), "s.toml").unwrap_err();
    assert_eq!((e.line, e.key.as_str()), (3, "simulation.dimension"), "{e}");
    assert!(e.hint.contains("signorini run"), "{e}");
    // The 3D loader accepts `dimension = 3`.
    parse_scene("[simulation]\ndimension = 3\n", "s.toml").unwrap();
}

#[test]
fn errors_name_file_line_and_key() {
    let body = |extra: &str| format!("{HEAD}\n[[body]]\nname = \"b\"\nmass = 1.0\n{extra}\n");
    expect(
        &body("shape = { type = \"box\", size = [0.1, 0.2, 0.3] }"),
        7,
        "body[0].shape.size",
        "[x, y]",
    );
    expect(
        &body("shape = { type = \"sphere\", radius = 1.0 }"),
        7,
        "body[0].shape.type",
        "disk",
    );
    expect(
        &body("shape = { type = \"segment\", a = [0.0, 0.0], b = [1.0, 0.0] }"),
        7,
        "body[0].shape",
        "fixed = true",
    );
    expect(
        &body("shape = { type = \"polygon\", points = [[0.0, 0.0], [1.0, 1.0], [2.0, 2.0]] }"),
        7,
        "body[0].shape.points",
        "no area",
    );
    expect(
        &body("position = [0.0, 1.0, 2.0]\nshape = { type = \"disk\", radius = 0.1 }"),
        7,
        "body[0].position",
        "[x, y]",
    );
    expect(
        &body("angular_velocity = [0.0, 0.0, 1.0]\nshape = { type = \"disk\", radius = 0.1 }"),
        7,
        "body[0].angular_velocity",
        "number",
    );
    expect(
        &body("orientation = [1.0, 0.0, 0.0, 0.0]\nshape = { type = \"disk\", radius = 0.1 }"),
        7,
        "body[0].orientation",
        "angle_deg",
    );
    expect(
        &body("shape = { type = \"regular_polygon\", sides = 2, radius = 0.1 }"),
        7,
        "body[0].shape.sides",
        "at least 3",
    );
    expect(
        &body("shape = { type = \"line\", normal = [0.0, 0.0] }"),
        7,
        "body[0].shape.normal",
        "nonzero",
    );
    // A line on a dynamic body: it has no area.
    expect(
        &body("shape = { type = \"line\", normal = [0.0, 1.0] }"),
        7,
        "body[0].shape",
        "fixed",
    );
    expect(
        &format!("{HEAD}integrator = \"rk4\"\n"),
        3,
        "simulation.integrator",
        "semi-implicit Euler",
    );
    expect(
        &format!("{HEAD}gravity = [0.0, 0.0, -9.81]\n"),
        3,
        "simulation.gravity",
        "[x, y]",
    );
    expect(
        &format!("{HEAD}\n[[force]]\nbody = \"b\"\n"),
        4,
        "force",
        "not available in 2D",
    );
    // Contact model and parameters: checked against the planar catalog, at their lines.
    let with_contact = |c: &str| {
        let t = format!("{HEAD}[contact]\n{c}\n");
        let s = parse_planar(&t, "s.toml").unwrap();
        s.contact_model(None).map(|_| ()).unwrap_err()
    };
    let e = with_contact("model = \"hunt-crossley\"");
    assert_eq!((e.line, e.key.as_str()), (4, "contact.model"), "{e}");
    assert!(
        e.hint.contains("stewart-trinkle") && e.hint.contains("2D"),
        "{e}"
    );
    let e = with_contact("model = \"stewart-trinkle\"\nfriction_directions = 8");
    assert_eq!(
        (e.line, e.key.as_str()),
        (5, "contact.friction_directions"),
        "{e}"
    );
    let e = with_contact("model = \"anitescu-potra\"\ntolerance = -1.0");
    assert_eq!((e.line, e.key.as_str()), (5, "contact.tolerance"), "{e}");
    // A body starting faster than max_speed, at its velocity.
    let fast = format!(
        "{HEAD}max_speed = 1.0\n[[body]]\nname = \"b\"\nmass = 1.0\nvelocity = [2.0, 0.0]\nshape = {{ type = \"disk\", radius = 0.1 }}\n"
    );
    let e = err(&fast);
    assert_eq!(e.key, "body[0].velocity", "{e}");
    // Duplicate names and unknown materials, as in 3D.
    let dup = format!("{}[[body]]\nname = \"b\"\nfixed = true\nshape = {{ type = \"line\", normal = [0.0, 1.0] }}\n", body("shape = { type = \"disk\", radius = 0.1 }"));
    expect(&dup, 9, "body[1].name", "unique");
    expect(
        &body("material = \"ice\"\nshape = { type = \"disk\", radius = 0.1 }"),
        7,
        "body[0].material",
        "ice",
    );
}
