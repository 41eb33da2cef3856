//! Assertions on scene parse errors, shared by the parser's test files.
use signorini::scene::{parse_scene, SceneError};

/// The file name the parser tests give their texts.
pub const FILE: &str = "test.toml";

pub fn parse(text: &str) -> Result<signorini::scene::SceneDesc, SceneError> {
    parse_scene(text, FILE)
}

/// 1-based line of the first occurrence of `marker` in `text`.
pub fn line_of_marker(text: &str, marker: &str) -> usize {
    let at = text
        .find(marker)
        .unwrap_or_else(|| panic!("marker {marker:?} not in text"));
    text[..at].matches('\n').count() + 1
}

/// Asserts that `text` fails with one error at the line of `marker`, on `key`, whose message
/// contains `message` and whose hint contains `hint`, displayed as `FILE:LINE: KEY: …`;
/// returns the error for further checks.
#[track_caller]
pub fn expect_error(text: &str, marker: &str, key: &str, message: &str, hint: &str) -> SceneError {
    let e = match parse(text) {
        Ok(_) => panic!("expected an error for:\n{text}"),
        Err(e) => e,
    };
    let line = line_of_marker(text, marker);
    let shown = e.to_string();
    assert_eq!(e.file, FILE, "{shown}");
    assert_eq!(e.line, line, "{shown}");
    assert_eq!(e.key, key, "{shown}");
    assert!(
        e.message.contains(message),
        "message should contain {message:?}:\n{shown}"
    );
    assert!(
        e.hint.contains(hint),
        "hint should contain {hint:?}:\n{shown}"
    );
    assert!(
        shown.starts_with(&format!("{FILE}:{line}: {key}: ")),
        "{shown}"
    );
    e
}
