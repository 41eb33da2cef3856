//! What every fuzz target checks: a scene either loads into a model with nothing non-finite in
//! it, or fails with a [`SceneError`] that names the file, a line inside it, a key and a fix.
//! `crates/signorini/tests/scene_mutations.rs` includes this file and checks the same.
use signorini::{Scene, SceneError};

/// The file name the targets give the parser; every error must carry it.
pub const FILE: &str = "fuzz.toml";

/// Parse and build `data` as a scene file. Non-UTF-8 input is not a scene file (the CLI reads
/// files as UTF-8 and reports that itself), so it is skipped.
pub fn load(data: &[u8]) -> Option<Result<Scene, SceneError>> {
    let text = std::str::from_utf8(data).ok()?;
    let loaded = signorini::scene::parse_scene(text, FILE).and_then(signorini::scene::build);
    if let Err(e) = &loaded {
        check_error(text, FILE, e);
    }
    Some(loaded)
}

/// A scene error about `file` (whose text is `text`) points into it (line 0 means "the file as a
/// whole") and says what to do.
pub fn check_error(text: &str, file: &str, e: &SceneError) {
    assert_eq!(e.file, file, "error names another file: {e}");
    let lines = text.lines().count().max(1);
    assert!(
        e.line <= lines + 1,
        "line {} beyond the file's {lines} lines: {e}",
        e.line
    );
    assert!(!e.key.is_empty(), "error without a key: {e}");
    assert!(
        !e.message.is_empty() && !e.hint.is_empty(),
        "error without message or hint: {e}"
    );
}

/// A built scene holds finite numbers only: masses, inertias and the initial state.
pub fn check_scene(scene: &Scene) {
    let m = &scene.model;
    assert!(m.settings.time_step > 0.0 && m.settings.time_step.is_finite());
    assert!(m.settings.duration >= 0.0 && m.settings.duration.is_finite());
    for b in &m.bodies {
        assert!(
            !b.pieces.is_empty() || b.fixed,
            "dynamic body {} has no shape",
            b.name
        );
        if !b.fixed {
            // (A fixed half-space is unbounded; a dynamic body never is.)
            assert!(
                b.bounding_radius().is_finite(),
                "body {}: bounding radius",
                b.name
            );
            assert!(
                b.mass > 0.0 && b.mass.is_finite(),
                "body {}: mass {}",
                b.name,
                b.mass
            );
            assert!(
                b.inv_mass.is_finite(),
                "body {}: 1/mass {}",
                b.name,
                b.inv_mass
            );
            assert!(
                b.inertia.is_finite() && b.inv_inertia.is_finite(),
                "body {}: inertia",
                b.name
            );
        }
    }
    for (b, s) in m.bodies.iter().zip(&scene.initial.bodies) {
        assert!(s.is_finite(), "body {}: initial state {s:?}", b.name);
    }
}
