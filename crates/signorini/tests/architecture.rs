//! Rules of ARCHITECTURE.md that a test can hold: a long function is a driver, never the physics
//! (no non-test function of `contact/`, `collision/` or `pipeline/` over 100 lines), and layers
//! never reach upward.
use std::path::{Path, PathBuf};

const MAX_FUNCTION_LINES: usize = 100;

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// (name, first line, length in lines) of every function outside `#[cfg(test)]` modules: from
/// its `fn` line to the line of the brace that closes its body.
fn functions(text: &str) -> Vec<(String, usize, usize)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i].trim_start();
        if line.starts_with("#[cfg(test)]") {
            // Skip the test module: to the brace that closes it.
            i = block_end(&lines, i + 1).map_or(lines.len(), |e| e + 1);
            continue;
        }
        let is_fn = line.starts_with("fn ")
            || line.starts_with("pub fn ")
            || line.starts_with("pub(crate) fn ")
            || line.starts_with("pub(super) fn ")
            || line.starts_with("const fn ")
            || line.starts_with("pub const fn ");
        if is_fn {
            let name = line
                .split("fn ")
                .nth(1)
                .unwrap()
                .split(['(', '<'])
                .next()
                .unwrap()
                .to_string();
            if let Some(end) = block_end(&lines, i) {
                out.push((name, i + 1, end - i + 1));
                // Nested functions are counted within their parent.
                i = end + 1;
                continue;
            }
        }
        i += 1;
    }
    out
}

/// The line whose brace closes the first block opened at or after line `from` (comments and
/// string contents are not parsed: good enough for rustfmt-formatted code, where a brace in a
/// string literal is balanced or absent).
fn block_end(lines: &[&str], from: usize) -> Option<usize> {
    let mut depth = 0i64;
    let mut opened = false;
    for (k, line) in lines.iter().enumerate().skip(from) {
        let code = line.split("//").next().unwrap();
        if !opened && code.trim_end().ends_with(';') && !code.contains('{') {
            return None; // a declaration without a body
        }
        for ch in code.chars() {
            match ch {
                '{' => {
                    depth += 1;
                    opened = true;
                }
                '}' => depth -= 1,
                _ => {}
            }
        }
        if opened && depth == 0 {
            return Some(k);
        }
    }
    None
}

#[test]
fn no_function_of_contact_collision_or_pipeline_is_over_100_lines() {
    let mut long = Vec::new();
    for layer in ["contact", "collision", "pipeline"] {
        let mut files = Vec::new();
        rust_files(&src().join(layer), &mut files);
        files.sort();
        for f in files {
            let text = std::fs::read_to_string(&f).unwrap();
            for (name, line, len) in functions(&text) {
                if len > MAX_FUNCTION_LINES {
                    long.push(format!(
                        "{}:{line} fn {name}: {len} lines",
                        f.strip_prefix(src()).unwrap().display()
                    ));
                }
            }
        }
    }
    assert!(
        long.is_empty(),
        "functions over {MAX_FUNCTION_LINES} lines (split them at the algorithm's steps):\n{}",
        long.join("\n")
    );
}

#[test]
fn the_line_counter_counts_bodies_and_skips_test_modules() {
    let text = "fn a() {\n    let x = 1;\n}\n#[cfg(test)]\nmod tests {\n    fn b() {\n    }\n}\npub fn c(\n    x: u8,\n) -> u8 {\n    x\n}\n";
    assert_eq!(
        functions(text),
        vec![("a".to_string(), 1, 3), ("c".to_string(), 9, 5)]
    );
}

/// Layers never reach upward (ARCHITECTURE.md): each layer's files name no module of a layer
/// above it.
#[test]
fn layers_never_reach_upward() {
    // Lowest first; `metrics` reads states and contacts, `planar` (2D dynamics) reuses the
    // layers below it, `experiments` and `simulation` sit on top with `scene`.
    let order = [
        "util",
        "geometry",
        "dynamics",
        "multibody",
        "collision",
        "solvers",
        "contact",
        "pipeline",
        "metrics",
        "planar",
        "deformable",
        "scene",
        "experiments",
    ];
    let mut violations = Vec::new();
    for (i, layer) in order.iter().enumerate() {
        let mut files = Vec::new();
        rust_files(&src().join(layer), &mut files);
        for f in files {
            let text = std::fs::read_to_string(&f).unwrap();
            for above in &order[i + 1..] {
                let needle = format!("crate::{above}::");
                for (n, line) in text.lines().enumerate() {
                    let code = line.split("//").next().unwrap();
                    if code.contains(&needle) || code.contains(&format!("crate::{above}::{{")) {
                        violations.push(format!(
                            "{}:{} uses {above}",
                            f.strip_prefix(src()).unwrap().display(),
                            n + 1
                        ));
                    }
                }
            }
        }
    }
    assert!(violations.is_empty(), "{}", violations.join("\n"));
}

/// The README's set-up (issue 21, item 9): its two commands are a release `cargo run` and
/// `scripts/test.sh`; the script tests in the release profile (so the second command reuses the
/// first's build instead of compiling the workspace again); CI runs exactly that script.
#[test]
fn the_readme_commands_build_once_and_ci_runs_the_test_command() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let read =
        |p: &str| std::fs::read_to_string(root.join(p)).unwrap_or_else(|e| panic!("{p}: {e}"));
    let readme = read("README.md");
    let block = readme
        .split("```sh\n")
        .nth(1)
        .and_then(|rest| rest.split("```").next())
        .expect("README.md starts with a ```sh block of set-up commands");
    let commands: Vec<&str> = block.lines().filter(|l| !l.trim().is_empty()).collect();
    assert_eq!(commands.len(), 2, "two set-up commands: {commands:?}");
    assert!(
        commands[0].starts_with("cargo run --release "),
        "{}",
        commands[0]
    );
    assert_eq!(commands[1], "scripts/test.sh");
    let test_script = read("scripts/test.sh");
    assert!(
        test_script
            .lines()
            .any(|l| l.trim() == "cargo test --workspace --release"),
        "scripts/test.sh must test in the release profile the run command built"
    );
    let ci = read(".ci/run");
    let ci_commands: Vec<&str> = ci
        .lines()
        .map(str::trim)
        .filter(|l| {
            !l.is_empty() && !l.starts_with('#') && !l.starts_with("set ") && !l.starts_with("cd ")
        })
        .collect();
    assert_eq!(
        ci_commands,
        [commands[1]],
        ".ci/run runs the README's test command and nothing else"
    );
}
