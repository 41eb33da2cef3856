//! The catalogue of bad scenes, kept as a regression test (issue 21): every bundled example,
//! mutated one line at a time — each value replaced by a catalogue of bad values, each line
//! deleted, duplicated or its key misspelt — must load into a model holding finite numbers only,
//! or fail with a `SceneError` that names the file, a line inside it, a key, what is wrong and a
//! fix. A value made bad must be blamed on its own line. No mutation may panic.
//!
//! Also replays the inputs the fuzz targets (`fuzz/`, docs/fuzzing.md) once found to crash or
//! hang, kept in `fuzz/regressions/`.
use signorini::scene::{build, dimension_of_text, parse_planar, parse_scene, Scene, SceneError};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;

mod common;

/// The invariants the fuzz targets assert (finite model; located error), shared.
#[allow(dead_code)]
#[path = "../../../fuzz/fuzz_targets/common.rs"]
mod fuzz_common;

/// Values put in place of each value in turn: non-finite, negative, zero, extreme, tiny, huge
/// counts, and wrong types.
const BAD_VALUES: &[&str] = &[
    "nan",
    "inf",
    "-inf",
    "-1",
    "0",
    "1e308",
    "-1e308",
    "5e-324",
    "1e9",
    "2.5",
    "\"text\"",
    "true",
    "[]",
    "[1.0, 2.0]",
    "[nan, 0.0, 0.0]",
    "[1e308, 1e308, 1e308]",
    "{}",
];

/// Scene files whose body counts make a thousand rebuilds slow; their keys are those of the
/// smaller bins.
const SKIP: &[&str] = &["bin_200.toml"];

/// Run `f`; a panic is returned as its message.
fn no_panic<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    catch_unwind(AssertUnwindSafe(f)).map_err(|p| {
        p.downcast_ref::<String>()
            .cloned()
            .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_default()
    })
}

/// Load `text` as `file`; a panic is returned as its message.
/// A 3D scene (`Some`), or a 2D one (`dimension = 2`: `None` once loaded, its model built and
/// its initial state checked finite), or the error.
fn load(text: &str, file: &str) -> Result<Result<Option<Scene>, SceneError>, String> {
    no_panic(|| {
        if dimension_of_text(text, file) == Ok(2) {
            let s = parse_planar(text, file)?;
            s.contact_model(None)?;
            assert!(s.initial.bodies.iter().all(|b| b.position.is_finite()
                && b.angle.is_finite()
                && b.velocity.is_finite()
                && b.angular_velocity.is_finite()));
            return Ok(None);
        }
        parse_scene(text, file).and_then(build).map(Some)
    })
}

/// `key = value` with the whole value (a scalar or an array, brackets balanced) on one line:
/// (key, the value's byte range in the line).
fn value_of(line: &str) -> Option<(&str, std::ops::Range<usize>)> {
    let code = line.split('#').next()?;
    let (key, value) = code.split_once('=')?;
    let key = key.trim();
    let value = value.trim();
    let simple_key = !key.is_empty()
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.');
    let depth = |open: char, close: char| {
        value.chars().filter(|&c| c == open).count() as i64
            - value.chars().filter(|&c| c == close).count() as i64
    };
    let balanced = depth('[', ']') == 0 && depth('{', '}') == 0;
    if !simple_key || value.is_empty() || value.starts_with('{') || !balanced {
        return None;
    }
    let start = code.rfind(value)?;
    Some((key, start..start + value.len()))
}

#[derive(Default)]
struct Tally {
    mutations: usize,
    rejected: usize,
    failures: Vec<String>,
}

impl Tally {
    /// Load the mutated `text`. `blame` is (line, key, value) of a mutated value: an error must
    /// be on that line, or name the key or the value in its message or hint (a relation
    /// between two keys, such as a time step longer than the duration, is blamed on one of
    /// them and names both).
    fn try_mutation(
        &mut self,
        file: &str,
        text: &str,
        what: &str,
        blame: Option<(usize, &str, &str)>,
    ) {
        self.mutations += 1;
        let outcome = match load(text, file) {
            Err(panic) => Err(format!("panicked: {panic}")),
            Ok(Ok(Some(scene))) => no_panic(|| fuzz_common::check_scene(&scene)),
            Ok(Ok(None)) => Ok(()),
            Ok(Err(e)) => {
                self.rejected += 1;
                no_panic(|| fuzz_common::check_error(text, file, &e)).and_then(|()| match blame {
                    Some((line, key, value))
                        if e.line != line
                            && ![key, value.trim_matches('"')]
                                .iter()
                                .any(|w| e.message.contains(w) || e.hint.contains(w)) =>
                    {
                        Err(format!("blamed line {} instead of {line}: {e}", e.line))
                    }
                    _ => Ok(()),
                })
            }
        };
        if let Err(why) = outcome {
            self.failures.push(format!("{file}: {what}: {why}"));
        }
    }
}

/// Every line of every bundled example, mutated in every catalogued way.
#[test]
fn every_mutation_of_every_bundled_example_loads_or_is_located() {
    let mut tally = Tally::default();
    for path in common::bundled_examples() {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        if SKIP.contains(&name.as_str()) {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        let with_line = |i: usize, new: &str| {
            let mut out: Vec<&str> = lines.clone();
            out[i] = new;
            out.join("\n")
        };
        for (i, line) in lines.iter().enumerate() {
            let number = i + 1;
            if line.trim().is_empty() || line.trim_start().starts_with('#') {
                continue;
            }
            let deleted: Vec<&str> = lines
                .iter()
                .enumerate()
                .filter(|&(j, _)| j != i)
                .map(|(_, l)| *l)
                .collect();
            tally.try_mutation(
                &name,
                &deleted.join("\n"),
                &format!("line {number} deleted"),
                None,
            );
            let doubled = with_line(i, &format!("{line}\n{line}"));
            tally.try_mutation(&name, &doubled, &format!("line {number} doubled"), None);
            let Some((key, range)) = value_of(line) else {
                continue;
            };
            let misspelt = with_line(i, &line.replacen(key, &format!("{key}_x"), 1));
            let what = format!("key `{key}` misspelt");
            tally.try_mutation(&name, &misspelt, &what, Some((number, key, "_x")));
            for bad in BAD_VALUES {
                let new = format!("{}{bad}{}", &line[..range.start], &line[range.end..]);
                // A value no parser can read as the key's type, or one out of its range, is
                // the key's own line's fault.
                let what = format!("{key} = {bad}");
                tally.try_mutation(&name, &with_line(i, &new), &what, Some((number, key, bad)));
            }
        }
    }
    assert!(
        tally.mutations > 5_000,
        "only {} mutations",
        tally.mutations
    );
    assert!(
        tally.failures.is_empty(),
        "{} of {} mutations ({} rejected) went wrong:\n{}",
        tally.failures.len(),
        tally.mutations,
        tally.rejected,
        tally.failures.join("\n")
    );
}

/// Inputs the fuzz targets once crashed or hung on (`fuzz/regressions/TARGET/`): each still
/// loads or is rejected with a located error.
#[test]
fn fuzz_regressions_load_or_are_located() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/regressions");
    let mut tally = Tally::default();
    for target in std::fs::read_dir(&root).unwrap() {
        for input in std::fs::read_dir(target.unwrap().path()).unwrap() {
            let path = input.unwrap().path();
            let bytes = std::fs::read(&path).unwrap();
            if let Ok(text) = std::str::from_utf8(&bytes) {
                tally.try_mutation("fuzz.toml", text, &path.display().to_string(), None);
            }
        }
    }
    assert!(
        tally.mutations > 0,
        "no regression inputs under {}",
        root.display()
    );
    assert!(tally.failures.is_empty(), "{}", tally.failures.join("\n"));
}
