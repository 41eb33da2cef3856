//! What the CLI test files share: running the built `signorini` (asserting it never panics),
//! paths of the bundled scenes and robots, and scratch directories.
#![allow(dead_code)] // each test file uses its own part
use std::path::{Path, PathBuf};
use std::process::Command;

pub const BIN: &str = env!("CARGO_BIN_EXE_signorini");

/// What a run of the CLI printed and how it exited.
pub struct Outcome {
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
}

/// Run `signorini args...` in `cwd`. Asserts it did not panic (no panic message, not Rust's
/// panic exit code 101: the documented codes are 0, 1 and 2), whatever it was asked.
pub fn signorini(cwd: &Path, args: &[&str]) -> Outcome {
    let out = Command::new(BIN)
        .args(args)
        .current_dir(cwd)
        .output()
        .expect("spawn signorini");
    let o = Outcome {
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    };
    assert!(
        !o.stderr.contains("panicked") && o.code != Some(101),
        "signorini {args:?} panicked:\n{}",
        o.stderr
    );
    o
}

/// A bundled scene, `examples/NAME`.
pub fn example(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples")
        .join(name)
}

/// A bundled robot, `examples/robots/NAME`.
pub fn robot(name: &str) -> PathBuf {
    example("robots").join(name)
}

/// An empty scratch directory, unique to this test process: `signorini-<prefix>-<pid>-<tag>`.
pub fn temp(prefix: &str, tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("signorini-{prefix}-{}-{tag}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A path as the `&str` a command line takes.
pub fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}
