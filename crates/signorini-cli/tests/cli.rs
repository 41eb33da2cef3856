//! End-to-end tests of the `signorini` binary: the files `run` writes, determinism, how bad input
//! is reported (exit code 2, file:line: key: message, `help:` hint), how a diverging simulation
//! is diagnosed (exit code 1, readable partial files), and the `models`, `bench` and `check`
//! commands.
//!
//! Every invocation runs with a fresh temporary directory as its working directory, so a default
//! `out/` directory could never land in the source tree, and asserts that the binary did not
//! panic.

mod common;

use common::{s, signorini, Outcome, BIN};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};

macro_rules! example {
    ($file:literal) => {
        concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/", $file)
    };
}

const TRAJECTORY_HEADER: &str = "time,body,x,y,z,qw,qx,qy,qz,vx,vy,vz,wx,wy,wz";

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

/// A unique temporary directory, removed when the test passes (kept for inspection when it fails).
struct TempDir(PathBuf);

impl TempDir {
    fn new(tag: &str) -> Self {
        static COUNTER: AtomicUsize = AtomicUsize::new(0);
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!(
            "signorini-cli-test-{}-{tag}-{n}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("create temp dir");
        TempDir(dir)
    }

    fn path(&self) -> &Path {
        &self.0
    }

    fn join(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }

    /// Write `text` to `name` in this directory; returns its path.
    fn write(&self, name: &str, text: &str) -> PathBuf {
        let p = self.join(name);
        std::fs::write(&p, text).expect("write temp file");
        p
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}

impl Outcome {
    fn expect_code(&self, code: i32, what: &str) -> &Self {
        assert_eq!(
            self.code,
            Some(code),
            "{what}: expected exit code {code}\n--- stdout:\n{}\n--- stderr:\n{}",
            self.stdout,
            self.stderr
        );
        self
    }
}

/// A CSV file as text fields (no quoting: our files never quote).
struct Csv {
    header: Vec<String>,
    rows: Vec<Vec<String>>,
}

impl Csv {
    fn read(path: &Path) -> Csv {
        let text = std::fs::read_to_string(path)
            .unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
        assert!(
            text.ends_with('\n'),
            "{} does not end with a newline (truncated?)",
            path.display()
        );
        let mut lines = text.lines();
        let header: Vec<String> = lines
            .next()
            .expect("header line")
            .split(',')
            .map(String::from)
            .collect();
        let rows = lines
            .map(|l| l.split(',').map(String::from).collect())
            .collect();
        Csv { header, rows }
    }

    fn col(&self, name: &str) -> usize {
        self.header
            .iter()
            .position(|h| h == name)
            .unwrap_or_else(|| panic!("no column `{name}` in {:?}", self.header))
    }

    fn f64s(&self, name: &str) -> Vec<f64> {
        let c = self.col(name);
        self.rows
            .iter()
            .map(|r| {
                r[c].parse::<f64>()
                    .unwrap_or_else(|e| panic!("{name} = {:?}: {e}", r[c]))
            })
            .collect()
    }

    /// Every row has the header's number of fields and every field except `text_columns` is a
    /// finite number.
    fn assert_well_formed(&self, what: &str, text_columns: &[&str]) {
        for (i, row) in self.rows.iter().enumerate() {
            assert_eq!(
                row.len(),
                self.header.len(),
                "{what}: row {} has {} fields, header has {}: {row:?}",
                i + 1,
                row.len(),
                self.header.len()
            );
            for (h, field) in self.header.iter().zip(row) {
                if text_columns.contains(&h.as_str()) {
                    continue;
                }
                let v: f64 = field.parse().unwrap_or_else(|e| {
                    panic!(
                        "{what}: row {} column {h} = {field:?} is not a number: {e}",
                        i + 1
                    )
                });
                assert!(
                    v.is_finite(),
                    "{what}: row {} column {h} = {field} is not finite",
                    i + 1
                );
            }
        }
    }
}

fn read_summary(dir: &Path) -> Value {
    let path = dir.join("summary.json");
    let text =
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
    serde_json::from_str(&text).expect("summary.json is JSON")
}

fn num(v: &Value, key: &str) -> f64 {
    v[key]
        .as_f64()
        .unwrap_or_else(|| panic!("summary `{key}` is not a number: {}", v[key]))
}

/// The file with the columns whose name ends in `_seconds` (wall-clock timings) removed.
fn without_timing_columns(path: &Path) -> String {
    let csv = Csv::read(path);
    let keep: Vec<usize> = (0..csv.header.len())
        .filter(|&i| !csv.header[i].ends_with("_seconds"))
        .collect();
    assert!(
        keep.len() < csv.header.len(),
        "{} has no timing columns to drop: {:?}",
        path.display(),
        csv.header
    );
    std::iter::once(&csv.header)
        .chain(&csv.rows)
        .map(|r| {
            keep.iter()
                .map(|&i| r[i].as_str())
                .collect::<Vec<_>>()
                .join(",")
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// 1-based line of the only line of `text` containing `needle`.
fn line_of(text: &str, needle: &str) -> usize {
    let hits: Vec<usize> = text
        .lines()
        .enumerate()
        .filter(|(_, l)| l.contains(needle))
        .map(|(i, _)| i + 1)
        .collect();
    assert_eq!(
        hits.len(),
        1,
        "`{needle}` must occur on exactly one line of the test scene"
    );
    hits[0]
}

// ---------------------------------------------------------------------------------------------
// 1. `run` on the Drumwright block: files, columns, row counts, summary
// ---------------------------------------------------------------------------------------------

/// Run the block scene with `extra` arguments into a fresh directory.
fn run_block(tmp: &TempDir, extra: &[&str]) -> PathBuf {
    let out = tmp.join("out");
    let mut args = vec![
        "run",
        example!("block_penetrating_plane.toml"),
        "--out",
        s(&out),
    ];
    args.extend_from_slice(extra);
    signorini(tmp.path(), &args).expect_code(0, "run block_penetrating_plane");
    out
}

#[test]
fn run_writes_trajectory_metrics_and_summary_with_documented_columns() {
    let tmp = TempDir::new("run-files");
    let out = run_block(&tmp, &[]);

    let traj = Csv::read(&out.join("trajectory.csv"));
    assert_eq!(traj.header.join(","), TRAJECTORY_HEADER);
    traj.assert_well_formed("trajectory.csv", &["body"]);
    // trajectory_interval defaults to 0 (every step) and the fixed ground is not written: one
    // row per step for the cube, plus the initial state.
    assert_eq!(traj.rows.len(), 3001);
    assert!(
        traj.rows.iter().all(|r| r[1] == "cube"),
        "only the dynamic body `cube` is written"
    );

    let metrics = Csv::read(&out.join("metrics.csv"));
    for c in [
        "time",
        "kinetic_energy",
        "potential_energy",
        "total_energy",
        "max_penetration",
        "contacts",
        "step_seconds",
    ] {
        metrics.col(c);
    }
    metrics.assert_well_formed("metrics.csv", &["solver"]);
    // 3 s at 1e-3 s: 3000 steps, plus the row of the initial state.
    assert_eq!(metrics.rows.len(), 3001);
    let t = metrics.f64s("time");
    assert_eq!(t[0], 0.0);
    // time = step * h: 3000 * 1e-3 is 3.0 up to one rounding of the product.
    assert!(
        (t[3000] - 3.0).abs() < 1e-12,
        "last metrics time {}",
        t[3000]
    );

    let summary = read_summary(&out);
    assert_eq!(summary["status"], "completed");
    assert!(summary["error"].is_null(), "error = {}", summary["error"]);
    assert_eq!(summary["steps"].as_u64(), Some(3000));
    // simulated_time = 3000 * 1e-3, exact up to one rounding.
    assert!((num(&summary, "simulated_time") - 3.0).abs() < 1e-12);
    for key in [
        "wall_time",
        "steps_per_second",
        "max_penetration",
        "mean_penetration",
        "final_kinetic_energy",
    ] {
        let v = num(&summary, key);
        assert!(v.is_finite() && v >= 0.0, "summary {key} = {v}");
    }
    assert_eq!(summary["model"]["name"], "deepest-point");
    assert_eq!(summary["model"]["parameters"]["kp"].as_f64(), Some(6000.0));
    assert_eq!(summary["model"]["parameters"]["kv"].as_f64(), Some(3000.0));
    // The scene's own settings, so that the override test below is a real change.
    assert_eq!(summary["integrator"], "rk4");
    assert_eq!(summary["time_step"].as_f64(), Some(1e-3));
    assert_eq!(summary["duration"].as_f64(), Some(3.0));
}

#[test]
fn block_penetrating_plane_starts_5cm_deep_and_ends_near_rest() {
    let tmp = TempDir::new("run-block");
    let out = run_block(&tmp, &[]);
    let metrics = Csv::read(&out.join("metrics.csv"));
    let pen = metrics.f64s("max_penetration");
    // The scene places the lowest corner 5 cm below the ground. The tolerance covers the
    // round-off of rotating the corner by the 35-degree quaternion (observed: ~2e-16 m).
    assert!(
        (pen[0] - 0.05).abs() < 1e-9,
        "initial max_penetration {} m, expected 0.05 m",
        pen[0]
    );
    // The initial state is at rest.
    assert_eq!(metrics.f64s("kinetic_energy")[0], 0.0);

    // The cube is pushed out and settles: about 25.7 J of potential energy is released (z of
    // the centre drops from 0.745 m to ~0.48 m, 10 kg) and kv = 3000 N s/m is far above the
    // critical 2 sqrt(kp m) = 490 N s/m, so the motion dies out. What remains (observed
    // 1.1e-4 J at t = 3 s, below 1e-2 J from t = 0.7 s on) is a slow rocking of the single
    // deepest-point spring. 1e-2 J is 100x that margin and still means a speed under 4.5 cm/s
    // for the 10 kg cube: near rest compared with the energy released.
    let summary = read_summary(&out);
    let ke = num(&summary, "final_kinetic_energy");
    assert!(
        ke < 1e-2,
        "final kinetic energy {ke} J: the block did not come to rest"
    );
    let last_pen = *pen.last().unwrap();
    assert!(
        last_pen < 0.05,
        "final penetration {last_pen} m: the block was not pushed out at all"
    );
}

#[test]
fn summary_totals_agree_with_metrics_csv() {
    let tmp = TempDir::new("run-consistency");
    let out = run_block(&tmp, &[]);
    let metrics = Csv::read(&out.join("metrics.csv"));
    let summary = read_summary(&out);
    let pen = metrics.f64s("max_penetration");
    let ke = metrics.f64s("kinetic_energy");
    // Both files print shortest round-trip decimals of the same f64s, so these are exact.
    assert_eq!(
        num(&summary, "max_penetration"),
        pen.iter().cloned().fold(0.0, f64::max)
    );
    assert_eq!(num(&summary, "final_kinetic_energy"), *ke.last().unwrap());
    // Mean over all rows including the initial one; summed in the same order, so only the
    // last-bit differences of a 3001-term sum are allowed (relative 1e-12).
    let mean = pen.iter().sum::<f64>() / pen.len() as f64;
    let got = num(&summary, "mean_penetration");
    assert!(
        (got - mean).abs() <= 1e-12 * mean,
        "mean_penetration {got} vs mean of metrics {mean}"
    );
    // total = kinetic + potential on every row (same f64 addition as the writer).
    let pe = metrics.f64s("potential_energy");
    let tot = metrics.f64s("total_energy");
    for i in 0..tot.len() {
        assert_eq!(
            tot[i],
            ke[i] + pe[i],
            "row {}: total_energy != kinetic + potential",
            i + 1
        );
    }
}

// ---------------------------------------------------------------------------------------------
// 2. Determinism
// ---------------------------------------------------------------------------------------------

/// Run `scene` twice in separate processes; trajectory.csv must be byte-identical and metrics.csv
/// identical once the wall-clock columns are removed. Returns the first run's output directory.
fn assert_deterministic(tmp: &TempDir, scene: &str, duration: &str) -> PathBuf {
    let (a, b) = (tmp.join("a"), tmp.join("b"));
    for dir in [&a, &b] {
        signorini(
            tmp.path(),
            &["run", scene, "--duration", duration, "--out", s(dir)],
        )
        .expect_code(0, scene);
    }
    let (ta, tb) = (
        std::fs::read(a.join("trajectory.csv")).unwrap(),
        std::fs::read(b.join("trajectory.csv")).unwrap(),
    );
    assert!(
        ta.len() > TRAJECTORY_HEADER.len() + 1,
        "trajectory.csv has no rows"
    );
    assert!(
        ta == tb,
        "{scene}: trajectory.csv differs between two runs of the same scene"
    );
    let (ma, mb) = (
        without_timing_columns(&a.join("metrics.csv")),
        without_timing_columns(&b.join("metrics.csv")),
    );
    assert_eq!(
        ma, mb,
        "{scene}: metrics.csv (timing columns removed) differs between two runs"
    );
    a
}

#[test]
fn resting_block_perturbed_runs_are_deterministic() {
    let tmp = TempDir::new("det-resting");
    let out = assert_deterministic(&tmp, example!("resting_block_perturbed.toml"), "2");
    // The random pulses really act in these 2 s (pulse 0 on during [0, 0.5), pulse 1 during
    // [1, 1.5)), so the comparison covers the seeded forces and not only a block at rest.
    let z = Csv::read(&out.join("trajectory.csv")).f64s("z");
    let (lo, hi) = z
        .iter()
        .fold((f64::MAX, f64::MIN), |(lo, hi), &v| (lo.min(v), hi.max(v)));
    assert!(
        hi - lo > 1e-3,
        "cube height varies by only {} m: pulses had no effect?",
        hi - lo
    );
}

#[test]
fn pile_runs_are_deterministic() {
    let tmp = TempDir::new("det-pile");
    let out = assert_deterministic(&tmp, example!("pile.toml"), "0.5");
    // By 0.5 s the lowest bodies have landed, so the comparison covers contacts between
    // spawned bodies and the container, not only free fall.
    let contacts = Csv::read(&out.join("metrics.csv")).f64s("contacts");
    assert!(
        contacts.iter().any(|&c| c > 0.0),
        "no contacts in 0.5 s of the pile"
    );
}

#[test]
fn trajectory_interval_writes_one_row_per_interval_per_dynamic_body() {
    let tmp = TempDir::new("interval");
    let out = tmp.join("out");
    signorini(
        tmp.path(),
        &[
            "run",
            example!("pile.toml"),
            "--duration",
            "0.5",
            "--out",
            s(&out),
        ],
    )
    .expect_code(0, "pile");
    // pile.toml: 200 spawned bodies, trajectory_interval = 0.01 s, steps of 1e-3 s: rows at
    // t = 0, 0.01, ..., 0.5, i.e. 51 per body; the fixed container is not written.
    let traj = Csv::read(&out.join("trajectory.csv"));
    traj.assert_well_formed("pile trajectory.csv", &["body"]);
    assert_eq!(traj.rows.len(), 200 * 51);
    // Every step still has its metrics row.
    assert_eq!(Csv::read(&out.join("metrics.csv")).rows.len(), 501);
}

// ---------------------------------------------------------------------------------------------
// 3. Invalid input: exit code 2, file:line: key, a help hint, no files written
// ---------------------------------------------------------------------------------------------

/// The head of every bad scene: valid, so that the error is further down the file.
const HEAD: &str = r#"[simulation]
duration = 0.1

[[body]]
name = "ground"
fixed = true
shape = { type = "halfspace", normal = [0.0, 0.0, 1.0] }
"#;

/// `check` and `run` on `text` both exit 2 and report `{file}:{line}: {key}: ...` with a
/// message containing `message` and a `help:` hint containing `help`, where `line` is the line
/// of `at`. `run` must write nothing.
fn assert_rejected(tag: &str, text: &str, at: &str, key: &str, message: &str, help: &str) {
    let tmp = TempDir::new(tag);
    let scene = tmp.write("scene.toml", text);
    let line = line_of(text, at);
    let expected = format!("{}:{line}: {key}: ", scene.display());
    let out = tmp.join("out");
    for args in [
        vec!["check", s(&scene)],
        vec!["run", s(&scene), "--out", s(&out)],
    ] {
        let o = signorini(tmp.path(), &args);
        o.expect_code(2, &format!("{tag}: signorini {}", args[0]));
        let err = &o.stderr;
        assert!(
            err.contains(&expected),
            "{tag}: stderr does not name `{expected}`:\n{err}"
        );
        let after = &err[err.find(&expected).unwrap()..];
        let (msg, hint) = after
            .split_once("\n  help: ")
            .unwrap_or_else(|| panic!("{tag}: no `help:` line:\n{err}"));
        assert!(
            msg.contains(message),
            "{tag}: message does not contain `{message}`:\n{err}"
        );
        assert!(
            hint.contains(help),
            "{tag}: hint does not contain `{help}`:\n{err}"
        );
    }
    assert!(
        !out.exists(),
        "{tag}: run on a bad scene created {}",
        out.display()
    );
}

#[test]
fn unknown_key_is_reported_with_line_key_and_suggestion() {
    let text = format!("{HEAD}\n[[body]]\nname = \"box\"\nmas = 1.0\nshape = {{ type = \"box\", size = [0.2, 0.2, 0.2] }}\n");
    assert_rejected(
        "unknown-key",
        &text,
        "mas = 1.0",
        "body[1].mas",
        "unknown key `mas`",
        "`mass`",
    );
}

#[test]
fn wrong_value_type_is_reported_with_line_and_key() {
    let text = format!("{HEAD}\n[[body]]\nname = \"box\"\nmass = \"heavy\"\nshape = {{ type = \"box\", size = [0.2, 0.2, 0.2] }}\n");
    assert_rejected(
        "wrong-type",
        &text,
        "mass = \"heavy\"",
        "body[1].mass",
        "expected a number",
        "number",
    );
}

#[test]
fn negative_mass_is_reported_with_line_and_key() {
    let text = format!("{HEAD}\n[[body]]\nname = \"box\"\nmass = -1.0\nshape = {{ type = \"box\", size = [0.2, 0.2, 0.2] }}\n");
    assert_rejected(
        "negative-mass",
        &text,
        "mass = -1.0",
        "body[1].mass",
        "greater than 0",
        "greater than 0",
    );
}

#[test]
fn degenerate_convex_hull_is_reported_at_the_shape_line() {
    // Four coplanar points: valid syntax (>= 4 finite points), rejected when the scene is built.
    // The `shape` line is not the `[[body]]` line, so a wrong line number is caught.
    let text = format!(
        "{HEAD}\n[[body]]\nname = \"flat\"\nmass = 1.0\nposition = [0.0, 0.0, 1.0]\n\
         shape = {{ type = \"convex\", points = [[0, 0, 0], [1, 0, 0], [0, 1, 0], [1, 1, 0]] }}\n"
    );
    assert_rejected(
        "degenerate-hull",
        &text,
        "type = \"convex\"",
        "body[1].shape",
        "degenerate",
        "plane",
    );
}

#[test]
fn undefined_material_is_reported_with_line_and_key() {
    let text = format!(
        "{HEAD}\n[[body]]\nname = \"box\"\nmass = 1.0\nmaterial = \"unobtainium\"\nshape = {{ type = \"box\", size = [0.2, 0.2, 0.2] }}\n"
    );
    assert_rejected(
        "undefined-material",
        &text,
        "unobtainium",
        "body[1].material",
        "undefined material `unobtainium`",
        "[[material]]",
    );
}

#[test]
fn force_on_undefined_body_is_reported_with_line_and_key() {
    let text = format!(
        "{HEAD}\n[[body]]\nname = \"box\"\nmass = 1.0\nshape = {{ type = \"box\", size = [0.2, 0.2, 0.2] }}\n\n\
         [[force]]\nbody = \"bxo\"\nforce = [0.0, 0.0, 1.0]\n"
    );
    assert_rejected(
        "undefined-body",
        &text,
        "\"bxo\"",
        "force[0].body",
        "undefined body `bxo`",
        "[[body]]",
    );
}

#[test]
fn unknown_contact_model_is_reported_with_the_available_models() {
    let text = format!("{HEAD}\n[contact]\nmodel = \"no-such-model\"\n");
    assert_rejected(
        "unknown-model",
        &text,
        "no-such-model",
        "contact.model",
        "unknown contact model `no-such-model`",
        "deepest-point",
    );
}

#[test]
fn unknown_contact_parameter_is_reported_with_the_model_parameters() {
    let text = format!("{HEAD}\n[contact]\nmodel = \"deepest-point\"\nkq = 1\n");
    assert_rejected(
        "unknown-param",
        &text,
        "kq = 1",
        "contact.kq",
        "no parameter `kq`",
        "kp",
    );
}

/// A box too thin to have distinguishable faces (aspect ratio 1e9 and beyond) is a scene error
/// at its shape, not a panic (issue 21, item 1).
#[test]
fn box_too_thin_to_be_a_solid_is_reported_at_its_shape() {
    for size in ["[10.0, 10.0, 1e-8]", "[0.2, 1e-308, 0.2]"] {
        let text = format!(
            "{HEAD}\n[[body]]\nname = \"plate\"\nmass = 1.0\nshape = {{ type = \"box\", size = {size} }}\n"
        );
        assert_rejected(
            "thin-box",
            &text,
            &format!("size = {size}"),
            "body[1].shape",
            "too thin to be a solid",
            "half-space",
        );
    }
}

#[test]
fn negative_contact_parameter_is_reported_with_its_minimum() {
    let text = format!("{HEAD}\n[contact]\nmodel = \"deepest-point\"\nkp = -5.0\n");
    assert_rejected(
        "negative-param",
        &text,
        "kp = -5.0",
        "contact.kp",
        "below its minimum",
        ">= 0",
    );
}

#[test]
fn non_positive_dt_and_duration_overrides_exit_2() {
    let tmp = TempDir::new("bad-dt");
    let out = tmp.join("out");
    let scene = example!("box_stack.toml");
    for (flag, value) in [
        ("--dt", "-1"),
        ("--dt", "0"),
        ("--dt", "nan"),
        ("--duration", "-2"),
    ] {
        let arg = format!("{flag}={value}");
        let o = signorini(tmp.path(), &["run", scene, &arg, "--out", s(&out)]);
        o.expect_code(2, &arg);
        assert!(
            o.stderr
                .contains(&format!("{flag} must be a positive number")),
            "{arg}: {}",
            o.stderr
        );
    }
    // Written with a space, `-1` is taken by the argument parser for an option and rejected
    // there (see the report: the message is the parser's, not the --dt check's); still exit 2.
    let o = signorini(tmp.path(), &["run", scene, "--dt", "-1", "--out", s(&out)]);
    o.expect_code(2, "--dt -1");
    assert!(
        o.stderr.contains("-1"),
        "--dt -1: stderr does not mention the value:\n{}",
        o.stderr
    );
    assert!(!out.exists(), "a rejected run created {}", out.display());
}

#[test]
fn unknown_integrator_override_exits_2_and_lists_the_integrators() {
    let tmp = TempDir::new("bad-integrator");
    let out = tmp.join("out");
    let o = signorini(
        tmp.path(),
        &[
            "run",
            example!("box_stack.toml"),
            "--integrator",
            "foo",
            "--out",
            s(&out),
        ],
    );
    o.expect_code(2, "--integrator foo");
    assert!(
        o.stderr.contains("unknown integrator `foo`"),
        "{}",
        o.stderr
    );
    assert!(
        o.stderr.contains("semi-implicit-euler") && o.stderr.contains("rk4"),
        "{}",
        o.stderr
    );
    assert!(!out.exists());
}

#[test]
fn unknown_model_override_exits_2_and_names_the_flag() {
    let tmp = TempDir::new("bad-model");
    let out = tmp.join("out");
    let o = signorini(
        tmp.path(),
        &[
            "run",
            example!("box_stack.toml"),
            "--model",
            "nope",
            "--out",
            s(&out),
        ],
    );
    o.expect_code(2, "--model nope");
    assert!(
        o.stderr.contains("--model") && o.stderr.contains("unknown contact model `nope`"),
        "{}",
        o.stderr
    );
    assert!(
        o.stderr.contains("help:") && o.stderr.contains("deepest-point"),
        "{}",
        o.stderr
    );
    assert!(!out.exists());
}

#[test]
fn missing_scene_file_exits_2_and_names_the_file() {
    let tmp = TempDir::new("missing");
    let missing = tmp.join("no-such-scene.toml");
    for cmd in ["check", "run", "bench"] {
        let o = signorini(tmp.path(), &[cmd, s(&missing)]);
        o.expect_code(2, cmd);
        assert!(
            o.stderr.contains(s(&missing)),
            "{cmd}: stderr does not name the file:\n{}",
            o.stderr
        );
        assert!(o.stderr.contains("help:"), "{cmd}: no hint:\n{}", o.stderr);
    }
    // `run` without --out would write to ./out/<scene>: nothing may be created.
    assert!(!tmp.join("out").exists());
}

#[test]
fn check_accepts_every_bundled_example() {
    let tmp = TempDir::new("check-examples");
    let scenes = bundled_examples();
    for name in [
        "block_penetrating_plane.toml",
        "box_stack.toml",
        "pile.toml",
        "resting_block_perturbed.toml",
    ] {
        assert!(
            scenes.iter().any(|p| p.ends_with(name)),
            "example {name} is missing"
        );
    }
    for scene in &scenes {
        let o = signorini(tmp.path(), &["check", s(scene)]);
        o.expect_code(0, &format!("check {}", scene.display()));
        assert!(
            o.stdout.contains(": ok"),
            "check {}: {}",
            scene.display(),
            o.stdout
        );
    }
    // `check` writes nothing.
    assert_eq!(std::fs::read_dir(tmp.path()).unwrap().count(), 0);
}

// ---------------------------------------------------------------------------------------------
// 4. A diverging run: exit 1, a diagnosis, a failed summary and readable partial files
// ---------------------------------------------------------------------------------------------

/// A 1 kg box dropped from 5 cm onto the ground with kp = 1e12 N/m and h = 1e-2 s: the contact
/// frequency is sqrt(kp/m) = 1e6 rad/s, so h ω = 1e4, far beyond the stability limit h ω < 2 of
/// semi-implicit Euler. The box falls freely for ~0.1 s (so there are rows to read) and the first
/// contact step throws it past max_speed.
const DIVERGING: &str = r#"[simulation]
time_step = 1e-2
duration = 1.0
integrator = "semi-implicit-euler"

[contact]
model = "deepest-point"
kp = 1e12
kv = 0

[[body]]
name = "ground"
fixed = true
shape = { type = "halfspace", normal = [0.0, 0.0, 1.0] }

[[body]]
name = "brick"
mass = 1.0
shape = { type = "box", size = [0.2, 0.2, 0.2] }
position = [0.0, 0.0, 0.15]
"#;

#[test]
fn diverging_run_exits_1_names_step_and_body_and_leaves_readable_files() {
    let tmp = TempDir::new("diverge");
    let scene = tmp.write("diverging.toml", DIVERGING);
    let out = tmp.join("out");
    let o = signorini(tmp.path(), &["run", s(&scene), "--out", s(&out)]);
    o.expect_code(1, "diverging run");

    // "step N (t = ...): body `brick` ...; try a smaller time step"
    let err = &o.stderr;
    let step: u64 = err
        .match_indices("step ")
        .find_map(|(i, _)| {
            err[i + 5..]
                .split(|c: char| !c.is_ascii_digit())
                .next()?
                .parse()
                .ok()
        })
        .unwrap_or_else(|| panic!("stderr does not name the step:\n{err}"));
    assert!(
        (1..100).contains(&step),
        "blow-up at step {step}: expected before the 100 steps of the duration"
    );
    assert!(
        err.contains("body `brick`"),
        "stderr does not name the body:\n{err}"
    );
    assert!(
        err.contains("smaller time step"),
        "stderr does not suggest a smaller time step:\n{err}"
    );
    assert!(
        err.contains(s(&out)),
        "stderr does not say where the partial files are:\n{err}"
    );

    let summary = read_summary(&out);
    assert_eq!(summary["status"], "failed");
    let error = summary["error"]
        .as_str()
        .unwrap_or_else(|| panic!("summary error is not a string: {}", summary["error"]));
    assert!(
        error.contains(&format!("step {step} ")) && error.contains("`brick`"),
        "summary error: {error}"
    );

    // The files hold the steps before the failing one and are well-formed to the last line.
    let metrics = Csv::read(&out.join("metrics.csv"));
    metrics.assert_well_formed("partial metrics.csv", &["solver"]);
    let traj = Csv::read(&out.join("trajectory.csv"));
    assert_eq!(traj.header.join(","), TRAJECTORY_HEADER);
    traj.assert_well_formed("partial trajectory.csv", &["body"]);
    // Initial row + steps 1 ..= step-1.
    assert_eq!(
        metrics.rows.len() as u64,
        step,
        "metrics rows: the initial state and the {} completed steps",
        step - 1
    );
    assert_eq!(traj.rows.len() as u64, step);
    // The falling brick takes ~0.1 s to reach the ground: a handful of rows precede the failure.
    assert!(
        step > 5,
        "the scene blew up at step {step}, before the free fall: is the scene still what it says?"
    );
}

/// The issue's case (issue 16, item 3): a box released 0.4 m above the ground in steps of 0.5 s
/// under explicit deepest-point falls g h² = 2.45 m in its first step. The run used to report
/// success (the box sank on to z = −7.4 m); now it stops at step 1: exit 1, the message names the
/// step, both bodies, how far beyond and what to change, and the files hold the initial state.
#[test]
fn a_box_dropped_through_the_ground_in_one_step_stops_the_run_with_readable_files() {
    let tmp = TempDir::new("through");
    let scene = tmp.write(
        "drop.toml",
        "[simulation]\ntime_step = 0.5\nduration = 2.0\nintegrator = \"semi-implicit-euler\"\n\n[contact]\nmodel = \"deepest-point\"\n\n[[body]]\nname = \"ground\"\nfixed = true\nshape = { type = \"halfspace\", normal = [0.0, 0.0, 1.0] }\n\n[[body]]\nname = \"box\"\nmass = 1.0\nshape = { type = \"box\", size = [0.2, 0.2, 0.2] }\nposition = [0.0, 0.0, 0.5]\n",
    );
    let out = tmp.join("out");
    let o = signorini(tmp.path(), &["run", s(&scene), "--out", s(&out)]);
    o.expect_code(1, "a box through the ground");
    for part in [
        "step 1 (t = 0.5 s): body `box` ended wholly beyond the half-space `ground`",
        "its nearest point is 1.853e0 m past the plane",
        "smaller time step",
        "integrator = \"implicit-euler\"",
        s(&out),
    ] {
        assert!(
            o.stderr.contains(part),
            "stderr lacks `{part}`:\n{}",
            o.stderr
        );
    }
    let summary = read_summary(&out);
    assert_eq!(summary["status"], "failed");
    let error = summary["error"]
        .as_str()
        .expect("summary error is a string");
    assert!(
        error.contains("`box`") && error.contains("`ground`"),
        "{error}"
    );
    let metrics = Csv::read(&out.join("metrics.csv"));
    metrics.assert_well_formed("partial metrics.csv", &["solver"]);
    let traj = Csv::read(&out.join("trajectory.csv"));
    assert_eq!(traj.header.join(","), TRAJECTORY_HEADER);
    traj.assert_well_formed("partial trajectory.csv", &["body"]);
    // The initial state only (one row per body, the dynamic box; or both bodies).
    assert_eq!(metrics.rows.len(), 1);
    assert!(
        !traj.rows.is_empty() && traj.rows.iter().all(|r| r[0] == "0"),
        "{:?}",
        traj.rows
    );
}

// ---------------------------------------------------------------------------------------------
// 5. `models`, 6. `bench`
// ---------------------------------------------------------------------------------------------

/// The indented lines under model `name` in `signorini models`' output (its summary and
/// parameters: the block runs until the next unindented line, the next model).
fn model_block<'a>(stdout: &'a str, name: &str) -> Vec<&'a str> {
    let lines: Vec<&str> = stdout.lines().collect();
    let start = lines
        .iter()
        .position(|l| l.trim() == name)
        .unwrap_or_else(|| panic!("no `{name}` line:\n{stdout}"));
    lines[start + 1..]
        .iter()
        .take_while(|l| l.starts_with(' '))
        .cloned()
        .collect()
}

/// `models` lists the planar models too, marked "(2D)", with their own parameters: planar PEG's
/// gap prediction and passes with their defaults.
#[test]
fn models_lists_the_planar_models() {
    let tmp = TempDir::new("models2d");
    let o = signorini(tmp.path(), &["models"]);
    o.expect_code(0, "models");
    let block = model_block(&o.stdout, "peg (2D)");
    for (param, default) in [
        ("gap_prediction", "\"implicit\""),
        ("passes", "8"),
        ("gap_tolerance", "0.000000001"),
    ] {
        assert!(
            block
                .iter()
                .any(|l| l.split_whitespace().next() == Some(param)
                    && l.ends_with(&format!("default {default}"))),
            "`{param}` with default {default} is not listed under peg (2D):\n{}",
            o.stdout
        );
    }
    assert!(!model_block(&o.stdout, "stewart-trinkle (2D)").is_empty());
}

#[test]
fn models_lists_deepest_point_with_its_parameters() {
    let tmp = TempDir::new("models");
    let o = signorini(tmp.path(), &["models"]);
    o.expect_code(0, "models");
    let block = model_block(&o.stdout, "deepest-point");
    for param in ["kp", "kv", "kp_per_kg", "kv_per_kg"] {
        assert!(
            block
                .iter()
                .any(|l| l.split_whitespace().next() == Some(param) && l.contains("default")),
            "parameter `{param}` with its default is not listed under deepest-point:\n{}",
            o.stdout
        );
    }
    assert!(
        block
            .iter()
            .any(|l| l.trim_start().starts_with("kp_per_kg") && l.contains("default omega^2")),
        "{}",
        o.stdout
    );
}

#[test]
fn bench_prints_steps_per_second_and_stage_times() {
    let tmp = TempDir::new("bench");
    let o = signorini(
        tmp.path(),
        &["bench", example!("box_stack.toml"), "--steps", "200"],
    );
    o.expect_code(0, "bench");
    assert!(o.stdout.contains("200 steps"), "{}", o.stdout);
    assert!(o.stdout.contains("steps/s"), "{}", o.stdout);
    let mut percent_sum = 0.0;
    for stage in ["broad", "narrow", "model", "solve", "integrate"] {
        let line = o
            .stdout
            .lines()
            .find(|l| l.split_whitespace().next() == Some(stage))
            .unwrap_or_else(|| panic!("no `{stage}` line:\n{}", o.stdout));
        assert!(line.contains("us/step"), "{line}");
        let pct: f64 = line
            .split_whitespace()
            .rev()
            .nth(1)
            .and_then(|p| p.parse().ok())
            .unwrap_or_else(|| panic!("no percentage: {line}"));
        percent_sum += pct;
    }
    // Five shares of the total, each printed to 0.1 %: the sum is 100 up to 5 x 0.05 %.
    assert!(
        (percent_sum - 100.0).abs() <= 0.25 + 1e-9,
        "stage shares sum to {percent_sum} %:\n{}",
        o.stdout
    );
    // bench writes no files.
    assert_eq!(std::fs::read_dir(tmp.path()).unwrap().count(), 0);
}

// ---------------------------------------------------------------------------------------------
// 7. Overrides
// ---------------------------------------------------------------------------------------------

#[test]
fn dt_duration_integrator_and_model_overrides_take_effect() {
    let tmp = TempDir::new("overrides");
    // The scene says rk4, h = 1e-3 s, 3 s (checked in the first test).
    let out = run_block(
        &tmp,
        &[
            "--dt",
            "2e-3",
            "--duration",
            "0.5",
            "--integrator",
            "semi-implicit-euler",
            "--model",
            "deepest-point",
        ],
    );
    let summary = read_summary(&out);
    // The values are parsed from the same decimal strings, hence exact.
    assert_eq!(summary["time_step"].as_f64(), Some(2e-3));
    assert_eq!(summary["duration"].as_f64(), Some(0.5));
    assert_eq!(summary["integrator"], "semi-implicit-euler");
    assert_eq!(summary["steps"].as_u64(), Some(250));
    // 250 * 2e-3, exact up to one rounding.
    assert!((num(&summary, "simulated_time") - 0.5).abs() < 1e-12);
    // Naming the scene's own model keeps the scene's parameters.
    assert_eq!(summary["model"]["name"], "deepest-point");
    assert_eq!(summary["model"]["parameters"]["kp"].as_f64(), Some(6000.0));
    let metrics = Csv::read(&out.join("metrics.csv"));
    assert_eq!(metrics.rows.len(), 251);
    let t = metrics.f64s("time");
    assert_eq!(
        t[1], 2e-3,
        "the first step is one overridden time step long"
    );

    // And the other way round: a semi-implicit-Euler scene run with rk4.
    let out2 = tmp.join("out2");
    signorini(
        tmp.path(),
        &[
            "run",
            example!("box_stack.toml"),
            "--integrator",
            "rk4",
            "--duration",
            "0.05",
            "--out",
            s(&out2),
        ],
    )
    .expect_code(0, "box_stack with rk4");
    let summary2 = read_summary(&out2);
    assert_eq!(summary2["integrator"], "rk4");
    assert_eq!(summary2["steps"].as_u64(), Some(50));
}

// ---------------------------------------------------------------------------------------------
// 8. `experiment`
// ---------------------------------------------------------------------------------------------

const EXPERIMENTS: [&str; 22] = [
    "activation",
    "ramp",
    "box-stack",
    "perturbed-block",
    "block-penetrating-plane",
    "pile",
    "bounce",
    "impulse-laws",
    "box-drop",
    "book-stack",
    "impulse-bounce",
    "thin-plate",
    "pour-3d",
    "box-of-polygons",
    "triangle-drop",
    "nguyen-trinkle-2d",
    "robustness",
    "pose-statistics",
    "mobile-robot",
    "humanoid",
    "grasp",
    "deformable",
];
const PNG_SIGNATURE: &[u8] = b"\x89PNG\r\n\x1a\n";
const EXAMPLES_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples");

/// The file exists and starts with the PNG signature followed by more bytes.
fn assert_png(path: &Path) {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
    assert!(
        bytes.len() > PNG_SIGNATURE.len() && bytes.starts_with(PNG_SIGNATURE),
        "{} is not a PNG ({} bytes)",
        path.display(),
        bytes.len()
    );
}

/// The names in an experiment listing: the first word of each indented line.
fn listed_experiments(text: &str) -> Vec<&str> {
    text.lines()
        .filter(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next())
        .collect()
}

#[test]
fn experiment_list_names_every_experiment() {
    let tmp = TempDir::new("exp-list");
    let listed = signorini(tmp.path(), &["experiment", "--list"]);
    listed.expect_code(0, "experiment --list");
    assert_eq!(
        listed_experiments(&listed.stdout),
        EXPERIMENTS,
        "{}",
        listed.stdout
    );
    // Each with a description on its line.
    for line in listed.stdout.lines().filter(|l| l.starts_with("  ")) {
        assert!(
            line.split_whitespace().count() > 3,
            "no description: {line}"
        );
    }
    // No name lists too.
    let bare = signorini(tmp.path(), &["experiment"]);
    bare.expect_code(0, "experiment");
    assert_eq!(bare.stdout, listed.stdout);
    // Listing writes nothing.
    assert_eq!(std::fs::read_dir(tmp.path()).unwrap().count(), 0);
}

#[test]
fn experiment_unknown_name_or_missing_scenes_exit_2() {
    let tmp = TempDir::new("exp-bad");
    let o = signorini(tmp.path(), &["experiment", "no-such-experiment"]);
    o.expect_code(2, "unknown experiment");
    assert!(o.stderr.contains("no-such-experiment"), "{}", o.stderr);
    assert_eq!(
        listed_experiments(&o.stderr),
        EXPERIMENTS,
        "the error lists the experiments:\n{}",
        o.stderr
    );
    // The working directory has no examples/: the scene is named and --examples suggested.
    let o = signorini(tmp.path(), &["experiment", "ramp", "--quick"]);
    o.expect_code(2, "experiment without examples/");
    assert!(
        o.stderr.contains("ramp.toml") && o.stderr.contains("--examples"),
        "{}",
        o.stderr
    );
    assert_eq!(std::fs::read_dir(tmp.path()).unwrap().count(), 0);
}

#[test]
fn experiment_ramp_quick_writes_csv_and_plot() {
    let tmp = TempDir::new("exp-ramp");
    let out = tmp.join("out");
    let o = signorini(
        tmp.path(),
        &[
            "experiment",
            "ramp",
            "--quick",
            "--examples",
            EXAMPLES_DIR,
            "--out",
            s(&out),
        ],
    );
    o.expect_code(0, "experiment ramp --quick");
    let csv = Csv::read(&out.join("ramp.csv"));
    assert_eq!(
        csv.header.join(","),
        "friction,expected,acceleration,relative_error,distance"
    );
    // relative_error is empty where the block should stick (expected = 0).
    csv.assert_well_formed("ramp.csv", &["relative_error"]);
    assert_eq!(csv.f64s("friction"), [0.0, 0.3, 0.6, 0.9]);
    let (expected, measured) = (csv.f64s("expected"), csv.f64s("acceleration"));
    let rel = csv.col("relative_error");
    // g sin 30° for μ = 0; tan 30° = 0.577 separates sliding (0, 0.3) from sticking (0.6, 0.9).
    assert!((expected[0] - 9.81 * 0.5).abs() < 1e-9, "{}", expected[0]);
    for i in 0..2 {
        // Within the 1 % of the library test; relative_error is the same figure.
        let e: f64 = csv.rows[i][rel].parse().unwrap();
        assert!((measured[i] - expected[i]).abs() <= 0.01 * expected[i]);
        assert!((e - (measured[i] - expected[i]) / expected[i]).abs() < 1e-12);
    }
    for (row, e) in csv.rows.iter().zip(&expected).skip(2) {
        assert_eq!(*e, 0.0, "{row:?}");
        assert_eq!(row[rel], "", "{row:?}");
    }
    assert_png(&out.join("ramp.png"));
    // The table is printed: one line per μ.
    assert!(o.stdout.contains("measured"), "{}", o.stdout);
}

#[test]
fn experiment_impulse_laws_quick_writes_csv_and_plots() {
    // No scene needed: run from an empty directory.
    let tmp = TempDir::new("exp-impulse");
    let out = tmp.join("out");
    let o = signorini(
        tmp.path(),
        &["experiment", "impulse-laws", "--quick", "--out", s(&out)],
    );
    o.expect_code(0, "experiment impulse-laws --quick");
    let csv = Csv::read(&out.join("impulse_laws.csv"));
    assert_eq!(
        csv.header.join(","),
        "case,law,friction,restitution,angle_deg,u0_t,u0_n,impulse_t,impulse_n,u_t,u_n,\
         kinematic,kinetic,energetic,energy_ratio,stick"
    );
    csv.assert_well_formed("impulse_laws.csv", &["case", "law", "stick"]);
    // 2 cases × 4 laws × 9 angles (−80° to 80° by 20°).
    assert_eq!(csv.rows.len(), 72);
    let (case, law) = (csv.col("case"), csv.col("law"));
    let (ratio, kinematic) = (csv.f64s("energy_ratio"), csv.f64s("kinematic"));
    let impulse_n = csv.f64s("impulse_n");
    for (i, row) in csv.rows.iter().enumerate() {
        // Stronge never gains energy; Newton's law leaves at u_n = e |u_n0| (closed-form planar
        // paths: round-off only).
        if row[law] == "stronge" {
            assert!(ratio[i] <= 0.0, "{row:?}");
        }
        if row[law] == "newton" {
            assert!((kinematic[i] - 0.9).abs() < 1e-12, "{row:?}");
        }
    }
    // On the sphere (no normal–tangent coupling) every law gives the same normal impulse.
    let sphere: Vec<usize> = (0..csv.rows.len())
        .filter(|&i| csv.rows[i][case] == "sphere")
        .collect();
    assert_eq!(sphere.len(), 36);
    for &i in &sphere {
        let same = sphere
            .iter()
            .find(|&&j| csv.rows[j][csv.col("angle_deg")] == csv.rows[i][csv.col("angle_deg")])
            .unwrap();
        assert!(
            (impulse_n[i] - impulse_n[*same]).abs() < 1e-12,
            "{:?}",
            csv.rows[i]
        );
    }
    assert_png(&out.join("impulse_laws_energy.png"));
    assert_png(&out.join("impulse_laws_restitution.png"));
    assert!(o.stdout.contains("largest ΔT/T₀"), "{}", o.stdout);
}

#[test]
fn experiment_activation_quick_type_2_stays_out_of_the_surface() {
    let tmp = TempDir::new("exp-activation");
    let out = tmp.join("out");
    signorini(
        tmp.path(),
        &[
            "experiment",
            "activation",
            "--quick",
            "--examples",
            EXAMPLES_DIR,
            "--out",
            s(&out),
        ],
    )
    .expect_code(0, "experiment activation --quick");
    let csv = Csv::read(&out.join("activation.csv"));
    assert_eq!(
        csv.header.join(","),
        "scene,activation,speed,time_step,speed_times_step,max_penetration,passed_through"
    );
    csv.assert_well_formed("activation.csv", &["scene", "activation"]);
    // The quick sweep's deepest ball (0.14 m, r = 0.1 m) is still partly above the ground: no run
    // stops as passed through (the full sweep's two at 50 m/s and h = 1e-2 s do).
    assert!(csv.f64s("passed_through").iter().all(|&p| p == 0.0));
    // 2 scenes x 2 activations x speeds {1, 20} x steps {1e-3, 1e-2}.
    assert_eq!(csv.rows.len(), 16);
    let (scene, act) = (csv.col("scene"), csv.col("activation"));
    let pen = csv.f64s("max_penetration");
    let vh = csv.f64s("speed_times_step");
    let (speed, step) = (csv.f64s("speed"), csv.f64s("time_step"));
    let mut anticipating = 0;
    let mut deepest_type_1: f64 = 0.0;
    for (i, row) in csv.rows.iter().enumerate() {
        assert!(
            ["sphere_on_plane", "sphere_in_wedge"].contains(&row[scene].as_str()),
            "{row:?}"
        );
        assert_eq!(vh[i], speed[i] * step[i], "{row:?}");
        match row[act].as_str() {
            // The bound of the library test (type 2: the gap closes exactly, up to round-off).
            "anticipating" => {
                anticipating += 1;
                assert!(pen[i] < 1e-9, "type 2 penetrates: {row:?}");
            }
            "penetrating" => deepest_type_1 = deepest_type_1.max(pen[i]),
            other => panic!("unknown activation `{other}`"),
        }
    }
    assert_eq!(anticipating, 8);
    // The contrast the experiment shows: type 1 goes in by a visible depth somewhere in the sweep
    // (measured: 0.14 m in the wedge at v = 20 m/s, h = 1e-2 s; 1e-4 m is far below that and far
    // above the type 2 bound).
    assert!(
        deepest_type_1 > 1e-4,
        "type 1 never penetrates more than {deepest_type_1} m"
    );
    assert_png(&out.join("activation.png"));
}

// ---------------------------------------------------------------------------------------------
// Time-stepping models: --model, --param, solver fallback and failure handling
// ---------------------------------------------------------------------------------------------

/// `--model` switches the scene's model: the stack written for deepest-point (here with a
/// deepest-point gain added) runs with stewart-trinkle, says which of the scene's parameters it
/// ignores, and records the model, the velocity-level integration and the solver statistics.
#[test]
fn model_override_runs_the_stack_with_stewart_trinkle() {
    let tmp = TempDir::new("st-override");
    let out = tmp.join("out");
    let stack = std::fs::read_to_string(example!("box_stack.toml")).unwrap();
    let scene = tmp.join("box_stack.toml");
    let with_gain = stack.replacen("[contact]\n", "[contact]\nkp = 20000.0\n", 1);
    assert_ne!(with_gain, stack, "box_stack.toml has no [contact] table");
    std::fs::write(&scene, with_gain).unwrap();
    let o = signorini(
        tmp.path(),
        &[
            "run",
            s(&scene),
            "--model",
            "stewart-trinkle",
            "--dt",
            "1e-2",
            "--duration",
            "0.5",
            "--out",
            s(&out),
        ],
    );
    o.expect_code(0, "stack with stewart-trinkle");
    assert!(
        o.stderr.contains("kp") && o.stderr.contains("ignored"),
        "the deepest-point gains should be reported as ignored:\n{}",
        o.stderr
    );
    let summary = read_summary(&out);
    assert_eq!(summary["model"]["name"], "stewart-trinkle");
    assert_eq!(summary["solver"]["solves"], 50);
    assert_eq!(summary["solver"]["failures"], 0);
    assert!(num(&summary["solver"], "max_residual") <= 1e-8);
    let metrics = Csv::read(&out.join("metrics.csv"));
    metrics.assert_well_formed("metrics.csv", &["solver"]);
    let rows = metrics.f64s("lcp_rows");
    // 10 boxes: 4 corners per face pair, 1 normal + 4 friction + 1 sliding row each.
    assert!(rows[1..].iter().all(|&r| r == 240.0), "{rows:?}");
}

/// A solver order whose first solver does not apply (PGS on the frictional LCP: zero diagonal of
/// the sliding rows) falls back to the next one at every step, and the summary counts it.
#[test]
fn solver_order_falls_back_when_the_first_solver_does_not_apply() {
    let tmp = TempDir::new("st-fallback");
    let out = tmp.join("out");
    signorini(
        tmp.path(),
        &[
            "run",
            example!("ramp.toml"),
            "--param",
            "solvers=pgs,lemke",
            "--duration",
            "0.1",
            "--out",
            s(&out),
        ],
    )
    .expect_code(0, "ramp with pgs then lemke");
    let summary = read_summary(&out);
    assert_eq!(summary["solver"]["solves"], 100);
    assert_eq!(summary["solver"]["fallbacks"], 100);
    assert_eq!(summary["solver"]["used"]["lemke"], 100);
}

/// When no solver meets the tolerance, `on_failure = "stop"` (the default) ends the run with exit
/// code 1 and a message naming each solver's status and residual; `"continue"` goes on and counts
/// the failed steps in metrics.csv and summary.json. A pivot limit of 1 makes Lemke fail on the
/// ramp's 24-row problem.
#[test]
fn unsolved_lcp_stops_the_run_or_is_counted_when_continuing() {
    let tmp = TempDir::new("st-fail");
    let out = tmp.join("stop");
    let args = |out: &PathBuf, extra: &'static str| {
        vec![
            "run".to_string(),
            example!("ramp.toml").to_string(),
            "--param".into(),
            "solvers=lemke".into(),
            "--param".into(),
            "max_pivots=1".into(),
            "--param".into(),
            extra.into(),
            "--duration".into(),
            "0.05".into(),
            "--out".into(),
            s(out).to_string(),
        ]
    };
    let a = args(&out, "on_failure=stop");
    let o = signorini(
        tmp.path(),
        &a.iter().map(String::as_str).collect::<Vec<_>>(),
    );
    o.expect_code(1, "unsolvable with on_failure = stop");
    assert!(
        o.stderr.contains("lemke: iteration limit") && o.stderr.contains("residual"),
        "{}",
        o.stderr
    );
    assert_eq!(read_summary(&out)["status"], "failed");

    let out = tmp.join("continue");
    let a = args(&out, "on_failure=continue");
    signorini(
        tmp.path(),
        &a.iter().map(String::as_str).collect::<Vec<_>>(),
    )
    .expect_code(0, "unsolvable with on_failure = continue");
    let summary = read_summary(&out);
    assert_eq!(summary["status"], "completed");
    let failures = summary["solver"]["failures"].as_u64().unwrap();
    let metrics = Csv::read(&out.join("metrics.csv"));
    let failed: f64 = metrics.f64s("solver_failed").iter().sum();
    assert!(failures > 0, "a one-pivot Lemke cannot solve these steps");
    assert_eq!(failed as u64, failures);
}

/// `--param` names a parameter the model does not have: exit 2 with the model's parameters.
#[test]
fn unknown_param_override_is_rejected_with_the_parameter_list() {
    let tmp = TempDir::new("st-badparam");
    let o = signorini(
        tmp.path(),
        &["run", example!("ramp.toml"), "--param", "stiffness=3"],
    );
    o.expect_code(2, "unknown --param");
    assert!(
        o.stderr.contains("stiffness") && o.stderr.contains("friction_directions"),
        "{}",
        o.stderr
    );
    let o = signorini(
        tmp.path(),
        &[
            "run",
            example!("ramp.toml"),
            "--param",
            "activation=sometimes",
        ],
    );
    o.expect_code(2, "bad choice");
    assert!(o.stderr.contains("anticipating"), "{}", o.stderr);
}

/// A `--param` value outside its range (open bounds, integers) exits 2 naming the flag and the
/// range; in a scene file the same value names file:line:key.
#[test]
fn out_of_range_param_names_the_flag_or_the_scene_key_and_the_range() {
    let tmp = TempDir::new("st-rangeparam");
    for (param, range) in [
        ("relaxation=2", "in (0, 2)"),
        ("friction_directions=3.5", "an integer >= 3"),
    ] {
        let o = signorini(
            tmp.path(),
            &["run", example!("ramp.toml"), "--param", param],
        );
        o.expect_code(2, param);
        let name = param.split('=').next().unwrap();
        assert!(
            o.stderr.contains(&format!("--param {name}")) && o.stderr.contains(range),
            "{}",
            o.stderr
        );
    }
    let text = std::fs::read_to_string(example!("ramp.toml"))
        .unwrap()
        .replace("[contact]", "[contact]\nrelaxation = 0.0");
    let scene = tmp.join("relaxation.toml");
    std::fs::write(&scene, text).unwrap();
    let o = signorini(tmp.path(), &["check", s(&scene)]);
    o.expect_code(2, "relaxation = 0 in a scene");
    assert!(
        o.stderr.contains("contact.relaxation") && o.stderr.contains("in (0, 2)"),
        "{}",
        o.stderr
    );
}

/// `experiment bounce --quick`: the CSV has its documented columns, every exact-law impact meets
/// its restitution within the issue's 2 %, eq. 5 rebounds higher than e, and both plots are
/// written.
#[test]
fn experiment_bounce_quick_measures_the_restitution() {
    let tmp = TempDir::new("exp-bounce");
    let out = tmp.join("out");
    let o = signorini(
        tmp.path(),
        &[
            "experiment",
            "bounce",
            "--quick",
            "--examples",
            EXAMPLES_DIR,
            "--out",
            s(&out),
        ],
    );
    o.expect_code(0, "experiment bounce --quick");
    let csv = Csv::read(&out.join("bounce.csv"));
    assert_eq!(
        csv.header.join(","),
        "damping,restitution,impact,speed_in,speed_out,measured_restitution,max_penetration,steps"
    );
    csv.assert_well_formed("bounce.csv", &["damping"]);
    let (e, measured) = (csv.f64s("restitution"), csv.f64s("measured_restitution"));
    let law = csv.col("damping");
    let mut seen = [0usize; 2];
    for (i, row) in csv.rows.iter().enumerate() {
        if row[law] == "exact" {
            seen[0] += 1;
            assert!((measured[i] - e[i]).abs() <= 0.02 * e[i], "{row:?}");
        } else {
            seen[1] += 1;
            assert!(measured[i] > e[i], "{row:?}");
        }
    }
    assert!(seen[0] >= 3 && seen[1] >= 3, "{seen:?}");
    assert_png(&out.join("bounce_height.png"));
    assert_png(&out.join("bounce_restitution.png"));
}

/// An adaptive scene runs to its duration with variable steps: `metrics.csv` has each step's
/// `time_step` (summing to the duration), `summary.json` the step statistics; the same scene with a
/// velocity-level model is refused as bad input (exit 2).
#[test]
fn adaptive_run_reports_its_steps_and_refuses_velocity_level_models() {
    let tmp = TempDir::new("adaptive");
    let out = tmp.join("out");
    let o = signorini(
        tmp.path(),
        &[
            "run",
            example!("bounce.toml"),
            "--duration",
            "0.6",
            "--out",
            s(&out),
        ],
    );
    o.expect_code(0, "adaptive bounce");
    let metrics = Csv::read(&out.join("metrics.csv"));
    metrics.assert_well_formed("metrics.csv", &["solver"]);
    let hs = metrics.f64s("time_step");
    assert_eq!(hs[0], 0.0);
    let total: f64 = hs.iter().sum();
    assert!((total - 0.6).abs() < 1e-12, "{total}");
    let t = metrics.f64s("time");
    assert!((t[t.len() - 1] - 0.6).abs() < 1e-12);
    let summary = read_summary(&out);
    let steps = &summary["time_steps"];
    assert_eq!(steps["accepted"].as_u64().unwrap() as usize, hs.len() - 1);
    assert!(
        num(steps, "smallest") < 1e-4 && num(steps, "largest") == 1e-2,
        "{steps}"
    );
    assert!(steps["rejected"].as_u64().unwrap() > 0);
    let counted: u64 = steps["histogram"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["count"].as_u64().unwrap())
        .sum();
    assert_eq!(counted, steps["accepted"].as_u64().unwrap());

    let o = signorini(
        tmp.path(),
        &[
            "run",
            example!("bounce.toml"),
            "--model",
            "stewart-trinkle",
            "--out",
            s(&out),
        ],
    );
    o.expect_code(2, "adaptive with a velocity-level model");
    assert!(
        o.stderr.contains("adaptive") && o.stderr.contains("velocity-level"),
        "{}",
        o.stderr
    );
}

/// `experiment perturbed-block`: one series per model run (the paper's deepest-point and
/// multi-point gains, the stiff multi-point gains, stewart-trinkle) in the CSV, 10001 rows each
/// (10 s at 1e-3 s plus the initial state), and both plots.
#[test]
fn experiment_perturbed_block_writes_every_model() {
    let tmp = TempDir::new("exp-perturbed");
    let out = tmp.join("out");
    let o = signorini(
        tmp.path(),
        &[
            "experiment",
            "perturbed-block",
            "--examples",
            EXAMPLES_DIR,
            "--out",
            s(&out),
        ],
    );
    o.expect_code(0, "experiment perturbed-block");
    let csv = Csv::read(&out.join("perturbed_block.csv"));
    assert_eq!(
        csv.header.join(","),
        "model,step,time,kinetic_energy,penetration"
    );
    csv.assert_well_formed("perturbed_block.csv", &["model"]);
    let model = csv.col("model");
    for label in [
        "deepest-point",
        "multi-point",
        "multi-point (stiff)",
        "stewart-trinkle",
    ] {
        let n = csv.rows.iter().filter(|r| r[model] == label).count();
        assert_eq!(n, 10001, "{label}");
    }
    assert_png(&out.join("perturbed_block_energy.png"));
    assert_png(&out.join("perturbed_block_penetration.png"));
    assert!(o.stdout.contains("multi-point (stiff)"), "{}", o.stdout);
}

/// `experiment block-penetrating-plane --quick`: both methods, one row per step from the initial
/// state, the starting depth of 5 cm in the first step's penetration, and both plots.
#[test]
fn experiment_block_penetrating_plane_quick_writes_both_methods() {
    let tmp = TempDir::new("exp-block");
    let out = tmp.join("out");
    let o = signorini(
        tmp.path(),
        &[
            "experiment",
            "block-penetrating-plane",
            "--quick",
            "--examples",
            EXAMPLES_DIR,
            "--out",
            s(&out),
        ],
    );
    o.expect_code(0, "experiment block-penetrating-plane --quick");
    let csv = Csv::read(&out.join("block_penetrating_plane.csv"));
    assert_eq!(
        csv.header.join(","),
        "model,step,kinetic_energy,penetration"
    );
    csv.assert_well_formed("block_penetrating_plane.csv", &["model"]);
    let (model, pen) = (csv.col("model"), csv.f64s("penetration"));
    for label in ["deepest-point", "multi-point"] {
        let rows: Vec<usize> = (0..csv.rows.len())
            .filter(|&i| csv.rows[i][model] == label)
            .collect();
        assert_eq!(
            rows.len(),
            1001,
            "{label}: 1 s at 1e-3 s plus the initial state"
        );
        // The first step ends still about 5 cm deep (the block has barely moved).
        assert!(
            (pen[rows[1]] - 0.05).abs() < 1e-3,
            "{label}: {}",
            pen[rows[1]]
        );
    }
    assert_png(&out.join("block_penetrating_plane_energy.png"));
    assert_png(&out.join("block_penetrating_plane_penetration.png"));
}

// ---------------------------------------------------------------------------------------------
// Impulse-based models: runs and experiments
// ---------------------------------------------------------------------------------------------

#[test]
fn impulse_run_writes_impulses_per_step_and_their_totals() {
    let tmp = TempDir::new("impulse-run");
    let out = tmp.join("out");
    signorini(
        tmp.path(),
        &[
            "run",
            example!("box_drop.toml"),
            "--param",
            "loop=sequential",
            "--duration",
            "1",
            "--out",
            s(&out),
        ],
    )
    .expect_code(0, "run box_drop.toml, sequential loop");
    let metrics = Csv::read(&out.join("metrics.csv"));
    metrics.assert_well_formed("metrics.csv", &["solver"]);
    let summary = read_summary(&out);
    assert_eq!(summary["model"]["name"], "impulse");
    assert_eq!(summary["model"]["parameters"]["loop"], "sequential");
    assert_eq!(summary["integrator"], "semi-implicit-euler (impulse loop)");
    let totals = &summary["impulses"];
    for (column, key) in [
        ("collisions", "collisions"),
        ("microcollisions", "microcollisions"),
        ("contact_impulses", "contact_impulses"),
        ("impulse_sweeps", "sweeps"),
        ("unresolved", "unresolved"),
        ("substeps", "substeps"),
    ] {
        let sum: f64 = metrics.f64s(column).iter().sum();
        assert_eq!(Some(sum as u64), totals[key].as_u64(), "{column}");
    }
    // Every step has at least one substep (the initial row none); the box lands, and from then
    // on its four corners collide at every step (pure impulses: resting contact is a train of
    // collisions).
    let substeps = metrics.f64s("substeps");
    assert_eq!(substeps[0], 0.0);
    assert!(substeps[1..].iter().all(|&n| n >= 1.0));
    let collisions = metrics.f64s("collisions");
    assert!(
        collisions[900..].iter().all(|&n| n == 4.0),
        "{:?}",
        &collisions[900..910]
    );
    assert!(totals["max_impulses_per_step"].as_u64().unwrap() >= 4);
    // A force-based model writes zeros in the new columns and no totals.
    let out2 = tmp.join("penalty");
    signorini(
        tmp.path(),
        &[
            "run",
            example!("block_penetrating_plane.toml"),
            "--duration",
            "0.01",
            "--out",
            s(&out2),
        ],
    )
    .expect_code(0, "run block_penetrating_plane.toml");
    let m2 = Csv::read(&out2.join("metrics.csv"));
    assert!(m2.f64s("substeps").iter().all(|&v| v == 0.0));
    assert!(read_summary(&out2)["impulses"].is_null());
}

/// A run whose sweeps run out goes on (the default `on_unresolved = "continue"`), writes the
/// approach left per step in metrics.csv, lists a warning in summary.json and prints it.
#[test]
fn unresolved_impulses_continue_with_a_warning_and_the_residual_per_step() {
    let tmp = TempDir::new("impulse-unresolved");
    let out = tmp.join("out");
    let o = signorini(
        tmp.path(),
        &[
            "run",
            example!("box_drop.toml"),
            "--param",
            "loop=sequential",
            "--param",
            "max_sweeps=1",
            "--duration",
            "1",
            "--out",
            s(&out),
        ],
    );
    o.expect_code(0, "run box_drop.toml, one sweep");
    let metrics = Csv::read(&out.join("metrics.csv"));
    let unresolved = metrics.f64s("unresolved");
    let speed = metrics.f64s("unresolved_speed");
    let steps = unresolved.iter().filter(|&&n| n > 0.0).count();
    assert!(steps > 0, "one sweep leaves points approaching");
    // The speed is there exactly where points are left.
    for (n, v) in unresolved.iter().zip(&speed) {
        assert_eq!(*n > 0.0, *v > 0.0, "unresolved {n}, speed {v}");
    }
    let summary = read_summary(&out);
    let max = speed.iter().copied().fold(0.0, f64::max);
    assert_eq!(num(&summary["impulses"], "max_unresolved_speed"), max);
    assert_eq!(
        summary["impulses"]["steps_unresolved"].as_u64(),
        Some(steps as u64)
    );
    let warnings = summary["warnings"].as_array().expect("a warnings list");
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    let w = warnings[0].as_str().unwrap();
    assert!(
        w.contains(&format!("{steps} steps")) && w.contains("unresolved_speed"),
        "{w}"
    );
    assert!(o.stderr.contains(&format!("warning: {w}")), "{}", o.stderr);
    // A clean run has none.
    let clean = tmp.join("clean");
    signorini(
        tmp.path(),
        &[
            "run",
            example!("box_drop.toml"),
            "--duration",
            "0.2",
            "--out",
            s(&clean),
        ],
    )
    .expect_code(0, "run box_drop.toml");
    assert_eq!(
        read_summary(&clean)["warnings"].as_array().map(Vec::len),
        Some(0)
    );
}

#[test]
fn impulse_runs_are_deterministic() {
    let tmp = TempDir::new("det-impulse");
    let out = assert_deterministic(&tmp, example!("box_drop.toml"), "1");
    // The comparison covers the impacts: the box lands within the first second.
    let collisions = Csv::read(&out.join("metrics.csv")).f64s("collisions");
    assert!(collisions.iter().any(|&c| c > 0.0));
    let tmp = TempDir::new("det-hybrid");
    for dir in ["a", "b"] {
        signorini(
            tmp.path(),
            &[
                "run",
                example!("box_drop.toml"),
                "--model",
                "hybrid",
                "--param",
                "kp_per_kg=1e4",
                "--duration",
                "1",
                "--out",
                s(&tmp.join(dir)),
            ],
        )
        .expect_code(0, "run box_drop.toml --model hybrid");
    }
    assert_eq!(
        std::fs::read(tmp.join("a/trajectory.csv")).unwrap(),
        std::fs::read(tmp.join("b/trajectory.csv")).unwrap()
    );
}

#[test]
fn adaptive_steps_refuse_impulse_models_with_exit_2() {
    let tmp = TempDir::new("impulse-adaptive");
    let scene = tmp.write(
        "adaptive.toml",
        "[simulation]\nduration = 0.1\n[simulation.adaptive]\nenergy_tolerance = 1e-6\n\
         [contact]\nmodel = \"impulse\"\n",
    );
    let o = signorini(tmp.path(), &["run", s(&scene), "--out", s(&tmp.join("o"))]);
    o.expect_code(2, "adaptive impulse run");
    assert!(o.stderr.contains("impulse-based"), "{}", o.stderr);
}

#[test]
fn experiment_box_drop_quick_shows_pure_impulses_sinking_and_the_others_settling() {
    let tmp = TempDir::new("exp-box-drop");
    let out = tmp.join("out");
    let o = signorini(
        tmp.path(),
        &[
            "experiment",
            "box-drop",
            "--quick",
            "--examples",
            EXAMPLES_DIR,
            "--out",
            s(&out),
        ],
    );
    o.expect_code(0, "experiment box-drop --quick");
    let csv = Csv::read(&out.join("box_drop.csv"));
    assert_eq!(
        csv.header.join(","),
        "loop,time,kinetic_energy,height,penetration,impulses,substeps"
    );
    csv.assert_well_formed("box_drop.csv", &["loop"]);
    let col = csv.col("loop");
    let rows = |label: &str| -> Vec<&Vec<String>> {
        csv.rows.iter().filter(|r| r[col] == label).collect()
    };
    let f = |r: &Vec<String>, c: &str| -> f64 { r[csv.col(c)].parse().unwrap() };
    for label in [
        "sequential",
        "microcollisions",
        "global",
        "guendelman",
        "hybrid",
    ] {
        // 1.5 s at 1 ms, and the initial state.
        assert_eq!(rows(label).len(), 1501, "{label}");
    }
    // Pure impulses: the box sinks into the ground over the last half second (at g h / (1 + e)
    // per second, 6.5 mm/s for e = 0.5), with its four corners colliding at every step.
    let seq = rows("sequential");
    let sink = f(seq[1000], "height") - f(seq[1500], "height");
    assert!(sink > 2e-3, "sequential sank {sink} m in 0.5 s");
    assert!(seq[1000..].iter().all(|r| f(r, "impulses") == 4.0));
    // The global option and the hybrid come to rest; microcollisions never penetrate.
    for label in ["global", "hybrid"] {
        let last = rows(label);
        assert!(f(last[1500], "kinetic_energy") < 1e-6, "{label}");
    }
    assert!(rows("microcollisions")
        .iter()
        .all(|r| f(r, "penetration") == 0.0));
    let rate = Csv::read(&out.join("box_drop_rate.csv"));
    assert_eq!(
        rate.header.join(","),
        "loop,window_start,impulses_per_second"
    );
    for png in [
        "box_drop_energy.png",
        "box_drop_impacts.png",
        "box_drop_height.png",
    ] {
        assert_png(&out.join(png));
    }
    assert!(o.stdout.contains("at rest"), "{}", o.stdout);
}

#[test]
fn experiment_thin_plate_quick_never_tunnels_with_regression() {
    let tmp = TempDir::new("exp-thin-plate");
    let out = tmp.join("out");
    signorini(
        tmp.path(),
        &[
            "experiment",
            "thin-plate",
            "--quick",
            "--examples",
            EXAMPLES_DIR,
            "--out",
            s(&out),
        ],
    )
    .expect_code(0, "experiment thin-plate --quick");
    let csv = Csv::read(&out.join("thin_plate.csv"));
    assert_eq!(
        csv.header.join(","),
        "speed,time_step,regression,tunnelled,final_vz,max_penetration,substeps,toi_iterations"
    );
    csv.assert_well_formed("thin_plate.csv", &[]);
    // 4 speeds × 2 steps × regression on/off.
    assert_eq!(csv.rows.len(), 16);
    let (reg, tun, speed, vz) = (
        csv.f64s("regression"),
        csv.f64s("tunnelled"),
        csv.f64s("speed"),
        csv.f64s("final_vz"),
    );
    for i in 0..csv.rows.len() {
        if reg[i] == 1.0 {
            // Bounced with e = 0.8, at every speed.
            assert_eq!(tun[i], 0.0, "{:?}", csv.rows[i]);
            assert!(
                (vz[i] - 0.8 * speed[i]).abs() < 1e-9 * speed[i],
                "{:?}",
                csv.rows[i]
            );
        } else if speed[i] == 1000.0 {
            assert_eq!(
                tun[i], 1.0,
                "a plain step lets 1 km/s through: {:?}",
                csv.rows[i]
            );
        }
    }
    assert_png(&out.join("thin_plate.png"));
}

#[test]
fn experiment_impulse_bounce_quick_measures_the_restitution_of_every_law() {
    let tmp = TempDir::new("exp-impulse-bounce");
    let out = tmp.join("out");
    signorini(
        tmp.path(),
        &[
            "experiment",
            "impulse-bounce",
            "--quick",
            "--examples",
            EXAMPLES_DIR,
            "--out",
            s(&out),
        ],
    )
    .expect_code(0, "experiment impulse-bounce --quick");
    let csv = Csv::read(&out.join("impulse_bounce.csv"));
    assert_eq!(
        csv.header.join(","),
        "law,restitution,bounce,time,speed_in,speed_out,measured_restitution,apex"
    );
    csv.assert_well_formed("impulse_bounce.csv", &["law"]);
    let (e, m) = (csv.f64s("restitution"), csv.f64s("measured_restitution"));
    let (v_in, v_out) = (csv.f64s("speed_in"), csv.f64s("speed_out"));
    let (g, h, delta) = (9.81f64, 1e-3f64, 1e-6);
    for i in 0..csv.rows.len() {
        // The library test's bound: semi-implicit Euler's one-step error g²h² in v², and an
        // impact up to the scene's contact distance δ from contact (2 g δ in v_out²).
        let tol = e[i]
            * (0.5 * g * g * h * h * (v_out[i].powi(-2) + v_in[i].powi(-2))
                + 2.0 * g * delta * v_out[i].powi(-2));
        assert!((m[i] - e[i]).abs() <= tol, "{:?} tol {tol}", csv.rows[i]);
    }
    let law = csv.col("law");
    for l in ["newton", "poisson", "stronge", "algebraic-newton"] {
        assert!(csv.rows.iter().any(|r| r[law] == l), "{l}");
    }
    assert_png(&out.join("impulse_bounce_restitution.png"));
    assert_png(&out.join("impulse_bounce_apex.png"));
}

#[test]
fn experiment_book_stack_quick_counts_impulses_with_and_without_priority() {
    let tmp = TempDir::new("exp-book-stack");
    let out = tmp.join("out");
    signorini(
        tmp.path(),
        &[
            "experiment",
            "book-stack",
            "--quick",
            "--examples",
            EXAMPLES_DIR,
            "--out",
            s(&out),
        ],
    )
    .expect_code(0, "experiment book-stack --quick");
    let csv = Csv::read(&out.join("book_stack.csv"));
    csv.assert_well_formed("book_stack.csv", &["run"]);
    // 3 stack heights × 6 runs.
    assert_eq!(csv.rows.len(), 18);
    let (run, books) = (csv.col("run"), csv.f64s("books"));
    let (mean, unresolved) = (csv.f64s("mean_impulses_per_step"), csv.f64s("unresolved"));
    for i in 0..csv.rows.len() {
        // Every stage converged (the sweep limit, 2000, was never reached).
        assert_eq!(unresolved[i], 0.0, "{:?}", csv.rows[i]);
        if csv.rows[i][run] == "global" {
            assert_eq!(mean[i], 0.0, "the LCP holds the stack without impulses");
        } else {
            assert!(mean[i] > books[i], "{:?}", csv.rows[i]);
        }
    }
    // Shock propagation: on the tallest stack a fraction of the plain loop's impulses (measured
    // 1/4 on --quick's 0.05 s, 1/12.7 over 0.5 s; asserted: at most half), without sinking more
    // than the plain loop's order of magnitude (both under 1 mm).
    let tallest = books.iter().copied().fold(0.0, f64::max);
    let row = |label: &str| {
        (0..csv.rows.len())
            .find(|&i| csv.rows[i][run] == label && books[i] == tallest)
            .unwrap_or_else(|| panic!("no {label} row"))
    };
    let (plain, shock) = (row("guendelman (gravity)"), row("guendelman + shock"));
    assert!(
        mean[shock] <= 0.5 * mean[plain],
        "shock {} vs plain {} impulses per step",
        mean[shock],
        mean[plain]
    );
    let pen = csv.f64s("final_penetration");
    assert!(
        pen[shock] <= 1e-3 && pen[plain] <= 1e-3,
        "{} {}",
        pen[shock],
        pen[plain]
    );
    let steps = Csv::read(&out.join("book_stack_steps.csv"));
    assert_eq!(steps.header.join(","), "run,books,time,impulses,sweeps");
    assert_png(&out.join("book_stack_impulses.png"));
    assert_png(&out.join("book_stack_growth.png"));
}

/// `experiment pile --quick` (1.5 s): the CSV's columns, no part pushed through the floor, the
/// kinetic energy down by more than 100× from its peak by the end (measured: 270×), the rest
/// verdict printed, and both plots.
#[test]
fn experiment_pile_quick_settles_without_parts_falling_through() {
    let tmp = TempDir::new("exp-pile");
    let out = tmp.join("out");
    let o = signorini(
        tmp.path(),
        &[
            "experiment",
            "pile",
            "--quick",
            "--examples",
            EXAMPLES_DIR,
            "--out",
            s(&out),
        ],
    );
    o.expect_code(0, "experiment pile --quick");
    let csv = Csv::read(&out.join("pile.csv"));
    assert_eq!(
        csv.header.join(","),
        "time,kinetic_energy,max_penetration,time_step"
    );
    csv.assert_well_formed("pile.csv", &[]);
    let ke = csv.f64s("kinetic_energy");
    let peak = ke.iter().copied().fold(0.0, f64::max);
    assert!(
        ke[ke.len() - 1] < peak / 100.0,
        "{} of {peak}",
        ke[ke.len() - 1]
    );
    assert!(
        o.stdout.contains("pushed through the floor: 0"),
        "{}",
        o.stdout
    );
    assert!(o.stdout.contains("comes to rest: "), "{}", o.stdout);
    assert_png(&out.join("pile_energy.png"));
    assert_png(&out.join("pile_penetration.png"));
}

// ---------------------------------------------------------------------------------------------
// PEG: the box of polyhedra
// ---------------------------------------------------------------------------------------------

/// `experiment pour-3d --quick` (2 seeds × h ∈ {4, 16} ms × {peg, stewart-trinkle}, 3
/// polyhedra, 1.5 s): one row per (model, h, seed) in that order whatever order the parallel
/// runs finished in, every run complete, the summary's figures recomputed from the rows, the
/// floors' table printed for each h, and the plot.
#[test]
fn experiment_pour_3d_quick_writes_runs_summary_and_plot() {
    let tmp = TempDir::new("exp-pour");
    let out = tmp.join("out");
    let o = signorini(
        tmp.path(),
        &[
            "experiment",
            "pour-3d",
            "--quick",
            "--examples",
            EXAMPLES_DIR,
            "--out",
            s(&out),
        ],
    );
    o.expect_code(0, "experiment pour-3d --quick");
    let runs = Csv::read(&out.join("pour_3d.csv"));
    assert_eq!(
        runs.header.join(","),
        "model,time_step,seed,steps,planned,completed,error,mean_overlap,max_overlap,\
         median_overlap,solver_failures,trap_steps,seconds_per_step,max_energy_gain,max_rows"
    );
    runs.assert_well_formed("pour_3d.csv", &["model", "completed", "error"]);
    let mut expected = Vec::new();
    for model in ["peg", "stewart-trinkle"] {
        for h in ["0.004", "0.016"] {
            for seed in ["1", "2"] {
                expected.push(format!("{model},{h},{seed}"));
            }
        }
    }
    let keys: Vec<String> = runs.rows.iter().map(|r| r[..3].join(",")).collect();
    assert_eq!(keys, expected);
    let (completed, error) = (runs.col("completed"), runs.col("error"));
    let (steps, planned) = (runs.f64s("steps"), runs.f64s("planned"));
    for (i, row) in runs.rows.iter().enumerate() {
        assert_eq!(row[completed], "true", "{row:?}");
        assert_eq!(row[error], "", "{row:?}");
        assert_eq!(steps[i], planned[i], "{row:?}");
    }
    // 1.5 s at 4 and 16 ms.
    assert_eq!(&steps[..4], [375.0, 375.0, 94.0, 94.0]);
    let (mean, max, median) = (
        runs.f64s("mean_overlap"),
        runs.f64s("max_overlap"),
        runs.f64s("median_overlap"),
    );
    for i in 0..mean.len() {
        assert!(0.0 <= median[i] && median[i] <= max[i] && mean[i] <= max[i]);
    }

    let summary = Csv::read(&out.join("pour_3d_summary.csv"));
    assert_eq!(
        summary.header.join(","),
        "model,time_step,runs,completed,errors,seed_mean_overlap_q1,seed_mean_overlap_median,\
         seed_mean_overlap_q3,mean_overlap,max_overlap,solver_failures,trap_steps,\
         seconds_per_step,max_energy_gain,max_rows"
    );
    summary.assert_well_formed("pour_3d_summary.csv", &["model"]);
    assert_eq!(summary.rows.len(), 4);
    let (q1, med, q3) = (
        summary.f64s("seed_mean_overlap_q1"),
        summary.f64s("seed_mean_overlap_median"),
        summary.f64s("seed_mean_overlap_q3"),
    );
    let (fails, traps) = (runs.f64s("solver_failures"), runs.f64s("trap_steps"));
    let (sum_fails, sum_traps) = (summary.f64s("solver_failures"), summary.f64s("trap_steps"));
    for g in 0..4 {
        let (a, b) = (mean[2 * g], mean[2 * g + 1]);
        // Two seeds: the type 7 quartiles are at 1/4, 1/2 and 3/4 of the way from the smaller
        // run mean to the larger (relative round-off of the interpolation only).
        let (lo, hi) = (a.min(b), a.max(b));
        let close = |x: f64, y: f64| (x - y).abs() <= 1e-12 * hi.max(f64::MIN_POSITIVE);
        assert!(
            close(q1[g], lo + 0.25 * (hi - lo)),
            "{} vs {lo}, {hi}",
            q1[g]
        );
        assert!(
            close(med[g], lo + 0.5 * (hi - lo)),
            "{} vs {lo}, {hi}",
            med[g]
        );
        assert!(
            close(q3[g], lo + 0.75 * (hi - lo)),
            "{} vs {lo}, {hi}",
            q3[g]
        );
        assert_eq!(sum_fails[g], fails[2 * g] + fails[2 * g + 1]);
        assert_eq!(sum_traps[g], traps[2 * g] + traps[2 * g + 1]);
    }
    // Both seeds have the same number of steps, so the pooled mean is the mean of the run means.
    let pooled = summary.f64s("mean_overlap");
    for g in 0..4 {
        let want = 0.5 * (mean[2 * g] + mean[2 * g + 1]);
        assert!((pooled[g] - want).abs() <= 1e-12 * want.max(f64::MIN_POSITIVE));
    }

    // The table names the paper and prints the floors at both step sizes.
    assert!(
        o.stdout.contains("Williams, Lu & Trinkle 2016"),
        "{}",
        o.stdout
    );
    let floor_lines: Vec<&str> = o
        .stdout
        .lines()
        .filter(|l| {
            l.trim_start().starts_with("0.0") && (l.contains(" met") || l.contains("MISSED"))
        })
        .collect();
    assert_eq!(floor_lines.len(), 2, "{}", o.stdout);
    assert!(floor_lines[0].trim_start().starts_with("0.004"));
    assert!(floor_lines[1].trim_start().starts_with("0.016"));
    assert!(o.stdout.contains("floors: "), "{}", o.stdout);
    assert_png(&out.join("pour_3d.png"));
}

/// Issue 4: `signorini run SCENE --model peg` works on every bundled example (the first 0.02 s;
/// docs/peg.md has the full runs), a scene with robots under PEG's tree form (issue 18). Scenes
/// with energy-based adaptive steps are refused with the reason, as for every velocity-level
/// model.
#[test]
fn peg_runs_on_every_bundled_example() {
    let tmp = TempDir::new("peg-examples");
    let scenes = bundled_examples();
    let mut ran = 0;
    for (i, scene) in scenes.iter().enumerate() {
        let text = std::fs::read_to_string(scene).unwrap();
        let out = tmp.path().join(format!("run{i}"));
        let o = signorini(
            tmp.path(),
            &[
                "run",
                s(scene),
                "--model",
                "peg",
                "--duration",
                "0.02",
                "--out",
                s(&out),
            ],
        );
        if text.contains("dimension = 2") {
            // 2D scenes: planar PEG (issue 17, item 2) runs them.
            o.expect_code(0, &format!("peg on {}", scene.display()));
            ran += 1;
        } else if text.contains("[simulation.adaptive]") {
            o.expect_code(2, &format!("peg on {}", scene.display()));
            assert!(
                o.stderr
                    .contains("adaptive time steps need a force-based contact model"),
                "{}: {}",
                scene.display(),
                o.stderr
            );
        } else {
            o.expect_code(0, &format!("peg on {}", scene.display()));
            assert!(out.join("metrics.csv").exists(), "{}", scene.display());
            ran += 1;
        }
    }
    assert!(ran >= 14, "only {ran} examples ran under peg");
}

/// Every `examples/*.toml`, sorted.
fn bundled_examples() -> Vec<PathBuf> {
    let dir = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples"));
    let mut scenes: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("examples directory")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    scenes.sort();
    scenes
}

/// `export --mjcf` writes the scene MuJoCo will step in the side-by-side benchmark: every dynamic
/// body with a free joint, its mass and inertia, box geoms for boxes, the ground as a plane, the
/// scene's step and gravity, and a keyframe of the initial poses. A scene it cannot carry over
/// (a scheduled force) is refused with exit 2.
#[test]
fn export_mjcf_writes_the_bodies_the_scene_builds() {
    let tmp = TempDir::new("export");
    let xml = tmp.0.join("stack.xml");
    let stack = PathBuf::from(example!("box_stack.toml"));
    signorini(&tmp.0, &["export", s(&stack), "--mjcf", s(&xml)]).expect_code(0, "export");
    let text = std::fs::read_to_string(&xml).unwrap();
    assert_eq!(text.matches("<freejoint/>").count(), 10);
    assert_eq!(
        text.matches("type=\"box\" size=\"0.25 0.25 0.25\"").count(),
        10
    );
    assert_eq!(text.matches("type=\"plane\"").count(), 1);
    assert!(text.contains("<option timestep=\"0.001\" gravity=\"0 0 -9.81\""));
    assert!(text.contains("mass=\"1\" fullinertia=\"0.04166666666666667 0.04166666666666667 0.04166666666666667 0 0 0\""));
    assert!(text.contains("<body name=\"box9\" pos=\"0 0 4.75\" quat=\"1 0 0 0\">"));
    assert_eq!(text.matches("<key name=\"initial\"").count(), 1);

    let forced = tmp.write(
        "forced.toml",
        "[simulation]\ntime_step = 1e-3\nduration = 1.0\n\n[[body]]\nname = \"b\"\nmass = 1.0\nshape = { type = \"sphere\", radius = 0.1 }\n\n[[force]]\nbody = \"b\"\nforce = [1.0, 0.0, 0.0]\nstart = 0.0\nend = 1.0\n",
    );
    let o = signorini(&tmp.0, &["export", s(&forced), "--mjcf", s(&xml)]);
    o.expect_code(2, "export of a scene with a scheduled force");
    assert!(o.stderr.contains("scheduled forces"), "{}", o.stderr);
}

/// An output that cannot be written is a usage error (exit 2) naming the path, not a failed
/// simulation (exit 1).
#[test]
fn unwritable_output_exits_2_naming_the_path() {
    let tmp = TempDir::new("unwritable-out");
    let not_a_dir = tmp.write("file.txt", "not a directory");
    let out = not_a_dir.join("run");
    let o = signorini(
        &tmp.0,
        &[
            "run",
            example!("box_drop.toml"),
            "--duration",
            "0.01",
            "--out",
            s(&out),
        ],
    );
    o.expect_code(2, "run into a path under a file");
    assert!(o.stderr.contains("file.txt"), "{}", o.stderr);
}

/// A run clears the files it owns at its start: a run that fails leaves no earlier run's summary
/// or plot beside its own files. (Here the failed run rewrites all three itself; the removal at
/// the start is what covers a run whose plots cannot be drawn or whose output fails midway.)
#[test]
fn a_failed_run_leaves_no_earlier_runs_files() {
    let tmp = TempDir::new("stale");
    let out = tmp.0.join("out");
    std::fs::create_dir_all(&out).unwrap();
    for f in ["summary.json", "energy.png", "penetration.png"] {
        std::fs::write(out.join(f), "an earlier run's file").unwrap();
    }
    // Falls at once, faster than max_speed after a few steps: the run stops with exit 1.
    let scene = tmp.write(
        "fast.toml",
        "[simulation]\ntime_step = 1e-3\nduration = 1.0\nmax_speed = 0.05\n\n[[body]]\nname = \"ball\"\nmass = 1.0\nshape = { type = \"sphere\", radius = 0.1 }\nposition = [0.0, 0.0, 1.0]\n",
    );
    signorini(&tmp.0, &["run", s(&scene), "--out", s(&out)]).expect_code(1, "run over max_speed");
    for f in ["summary.json", "energy.png", "penetration.png"] {
        if let Ok(bytes) = std::fs::read(out.join(f)) {
            assert_ne!(bytes, b"an earlier run's file", "{f} is the earlier run's");
        }
    }
    assert!(read_summary(&out)["status"] == "failed");
}

/// Three cases of honest advice (issue 21 item 7): an initial speed above `max_speed` is a scene
/// error at the body (not a diverging run blamed on the time step); `bench --warmup -1` is a
/// value error, not an unknown flag; `check` of an adaptive scene gives its step range, not a
/// fixed step count.
#[test]
fn initial_speed_negative_warmup_and_adaptive_check_get_the_right_message() {
    let tmp = TempDir::new("advice");
    let scene = tmp.write(
        "fast.toml",
        "[simulation]\ntime_step = 1e-3\nduration = 1.0\nmax_speed = 0.5\n\n[[body]]\nname = \"ball\"\nmass = 1.0\nshape = { type = \"sphere\", radius = 0.1 }\nvelocity = [0.0, 0.0, -1.0]\n",
    );
    let o = signorini(&tmp.0, &["check", s(&scene)]);
    o.expect_code(2, "initial speed above max_speed");
    assert!(
        o.stderr.contains("body[0].velocity") && o.stderr.contains("max_speed"),
        "{}",
        o.stderr
    );

    let o = signorini(
        &tmp.0,
        &["bench", example!("box_drop.toml"), "--warmup", "-1"],
    );
    o.expect_code(2, "negative warm-up");
    assert!(
        o.stderr.contains("--warmup must be a non-negative"),
        "{}",
        o.stderr
    );

    let o = signorini(&tmp.0, &["check", example!("bounce.toml")]);
    o.expect_code(0, "check of an adaptive scene");
    assert!(o.stdout.contains("in adaptive steps of"), "{}", o.stdout);
}

/// Ctrl-C (SIGINT) or SIGTERM in the middle of a run (issue 21 item 5): the step in progress is
/// finished, both CSV files are flushed up to it, `summary.json` says `interrupted` with the
/// steps done, and the exit code is 130 (the shell's code for SIGINT).
#[test]
fn an_interrupted_run_flushes_its_files_and_writes_an_interrupted_summary() {
    for signal in ["-INT", "-TERM"] {
        let tmp = TempDir::new("interrupt");
        let out = tmp.join("out");
        // bin_64 under stewart-trinkle for its 5 s takes minutes: long enough to interrupt.
        let child = Command::new(BIN)
            .args(["run", example!("bin_64.toml"), "--out", s(&out)])
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("spawn signorini");
        // Wait until the run has started writing (the header and the first flushed rows).
        let metrics = out.join("metrics.csv");
        let t0 = std::time::Instant::now();
        while std::fs::read_to_string(&metrics).map_or(0, |t| t.lines().count()) < 300 {
            assert!(
                t0.elapsed().as_secs() < 120,
                "the run did not start writing"
            );
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        let pid = child.id().to_string();
        let killed = Command::new("kill").args([signal, &pid]).status().unwrap();
        assert!(killed.success());
        let output = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(130), "{signal}: {stderr}");
        assert!(stderr.contains("interrupted at t = "), "{stderr}");
        let summary = read_summary(&out);
        assert_eq!(summary["status"], "interrupted", "{summary}");
        let steps = summary["steps"].as_u64().unwrap();
        assert!(steps >= 299 && steps < 2500, "{steps} steps");
        // Every step done is in metrics.csv (one row per step plus the initial state's), and
        // the last trajectory rows are at the summary's time.
        let rows = std::fs::read_to_string(&metrics).unwrap().lines().count() - 1;
        assert_eq!(rows as u64, steps + 1);
        let trajectory = std::fs::read_to_string(out.join("trajectory.csv")).unwrap();
        let last_time: f64 = trajectory
            .lines()
            .last()
            .unwrap()
            .split(',')
            .next()
            .unwrap()
            .parse()
            .unwrap();
        assert_eq!(last_time, num(&summary, "simulated_time"));
    }
}

/// `--dt` and `--duration` that do not make a whole number of steps are refused with the
/// durations that would (issue 21 item 4), exit 2, before anything runs.
#[test]
fn dt_and_duration_overrides_must_make_whole_steps() {
    let tmp = TempDir::new("steps");
    let out = tmp.join("out");
    let cases: [(&[&str], &str); 3] = [
        (
            &["--dt", "0.3", "--duration", "1"],
            "use duration = 0.9 or 1.2 s",
        ),
        (&["--dt", "2", "--duration", "1"], "at most the duration"),
        (&["--duration", "1e300"], "shorten the duration"),
    ];
    for (overrides, hint) in cases {
        let mut args = vec!["run", example!("sphere_on_plane.toml"), "--out", s(&out)];
        args.extend_from_slice(overrides);
        let o = signorini(tmp.path(), &args);
        o.expect_code(2, &overrides.join(" "));
        assert!(o.stderr.contains(hint), "{overrides:?}: {}", o.stderr);
        assert!(!out.join("summary.json").exists(), "{overrides:?} ran");
    }
}

/// Off a terminal (here: stderr is a pipe) a long run and an experiment print a heartbeat line
/// every SIGNORINI_HEARTBEAT_SECONDS (issue 21 item 10): how many steps (runs) of how many, the
/// rate, and for a run the simulated time reached, which must be steps × time step.
#[test]
fn runs_and_experiments_off_a_terminal_print_a_heartbeat() {
    let tmp = TempDir::new("heartbeat");
    let out = Command::new(BIN)
        .args([
            "run",
            example!("pile.toml"),
            "--duration",
            "0.5",
            "--out",
            s(&tmp.join("out")),
        ])
        .env("SIGNORINI_HEARTBEAT_SECONDS", "0.02")
        .output()
        .expect("spawn signorini");
    assert_eq!(out.status.code(), Some(0));
    let stderr = String::from_utf8_lossy(&out.stderr);
    let beats: Vec<(u64, f64)> = stderr
        .lines()
        .filter(|l| l.starts_with("run ") && l.contains("pile.toml: "))
        .map(|l| {
            let done = l
                .split(": ")
                .nth(1)
                .and_then(|r| r.split('/').next())
                .unwrap();
            let t = l.rsplit("t = ").next().unwrap().trim_end_matches(" s");
            assert!(
                l.contains("/500 steps (") && l.contains(" steps/s over the last "),
                "{l}"
            );
            (done.parse().unwrap(), t.parse().unwrap())
        })
        .collect();
    assert!(
        beats.len() >= 2,
        "expected heartbeats every 0.02 s, got:\n{stderr}"
    );
    for w in beats.windows(2) {
        assert!(w[1].0 > w[0].0, "steps done must grow: {beats:?}");
    }
    for &(done, t) in &beats {
        // pile.toml: h = 1e-3 s; t is printed to 4 decimals.
        assert!(
            (t - done as f64 * 1e-3).abs() <= 5e-5,
            "t = {t} after {done} steps"
        );
    }

    let out = Command::new(BIN)
        .args([
            "experiment",
            "box-stack",
            "--quick",
            "--out",
            s(&tmp.join("x")),
        ])
        .current_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("../.."))
        .env("SIGNORINI_HEARTBEAT_SECONDS", "0.001")
        .output()
        .expect("spawn signorini");
    assert_eq!(out.status.code(), Some(0));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr
            .lines()
            .any(|l| l.starts_with("experiment box-stack: ") && l.contains(" runs (")),
        "no heartbeat from the experiment:\n{stderr}"
    );
}

// ---------------------------------------------------------------------------------------------
// sweep
// ---------------------------------------------------------------------------------------------

/// The last `n` rows of a trajectory file (the final state of every body), as text.
fn last_rows(path: &Path, n: usize) -> Vec<String> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len() - n..]
        .iter()
        .map(|l| l.to_string())
        .collect()
}

#[test]
fn sweep_runs_every_combination_and_each_run_equals_signorini_run() {
    let tmp = TempDir::new("sweep");
    let scene = example!("box_stack.toml");
    // 2 models x 2 time steps, 0.02 s, on `jobs` threads, into `out`.
    let sweep = |jobs: &str, out: &Path| {
        let args = [
            "sweep",
            scene,
            "--model",
            "stewart-trinkle,anitescu-potra",
            "--dt",
            "1e-3,4e-3",
            "--duration",
            "0.02",
            "--jobs",
            jobs,
            "--out",
            s(out),
        ];
        signorini(tmp.path(), &args)
    };
    let out = tmp.join("sw");
    let o = sweep("2", &out);
    o.expect_code(0, "sweep of the stack");
    let csv = Csv::read(&out.join("sweep.csv"));
    assert_eq!(&csv.header[..4], ["run", "model", "time_step", "duration"]);
    assert_eq!(csv.rows.len(), 4, "2 models x 2 time steps");
    let col = |name: &str| csv.header.iter().position(|h| h == name).unwrap();
    let expected = [
        ("stewart-trinkle", "1e-3", 20),
        ("stewart-trinkle", "4e-3", 5),
        ("anitescu-potra", "1e-3", 20),
        ("anitescu-potra", "4e-3", 5),
    ];
    for (k, (model, dt, steps)) in expected.iter().enumerate() {
        let row = &csv.rows[k];
        assert_eq!(row[col("run")], k.to_string());
        assert_eq!(row[col("model")], *model);
        assert_eq!(row[col("time_step")], *dt);
        assert_eq!(row[col("status")], "ok");
        assert_eq!(row[col("steps")], steps.to_string());
        // The same settings through `signorini run` give the same final state, bit for bit
        // (the runs are pure functions of their settings, whatever ran beside them).
        let single = tmp.join(&format!("single{k}"));
        signorini(
            tmp.path(),
            &[
                "run",
                scene,
                "--model",
                model,
                "--dt",
                dt,
                "--duration",
                "0.02",
                "--out",
                s(&single),
            ],
        )
        .expect_code(0, "the same run alone");
        let run_dir = out.join("runs").join(format!("{k:03}"));
        assert_eq!(
            last_rows(&run_dir.join("trajectory.csv"), 11),
            last_rows(&single.join("trajectory.csv"), 11),
            "run {k} differs from signorini run"
        );
    }
    // One thread: the same sweep.csv but for the wall-clock columns.
    let out1 = tmp.join("sw1");
    sweep("1", &out1).expect_code(0, "sweep on one thread");
    let csv1 = Csv::read(&out1.join("sweep.csv"));
    let clock = [col("wall_time"), col("steps_per_second"), col("out_dir")];
    for (a, b) in csv.rows.iter().zip(&csv1.rows) {
        for i in (0..a.len()).filter(|i| !clock.contains(i)) {
            assert_eq!(
                a[i], b[i],
                "column {} differs between 2 threads and 1",
                csv.header[i]
            );
        }
    }
}

#[test]
fn sweep_varies_friction_and_seed_through_the_scene() {
    let tmp = TempDir::new("sweep-scene");
    let out = tmp.join("sw");
    signorini(
        tmp.path(),
        &[
            "sweep",
            example!("pile.toml"),
            "--duration",
            "0.01",
            "--set",
            "seed=1,2,1",
            "--set",
            "material.default.friction=0.1,0.9",
            "--out",
            s(&out),
        ],
    )
    .expect_code(0, "seed x friction sweep of the pile");
    let csv = Csv::read(&out.join("sweep.csv"));
    assert_eq!(csv.rows.len(), 6);
    assert_eq!(
        &csv.header[1..4],
        ["duration", "seed", "material.default.friction"]
    );
    let first = |k: usize| {
        let p = out
            .join("runs")
            .join(format!("{k:03}"))
            .join("trajectory.csv");
        let text = std::fs::read_to_string(p).unwrap();
        text.lines().nth(2).unwrap().to_string()
    };
    // Initial rows: the seed places the bodies, friction does not.
    assert_ne!(first(0), first(2), "seeds 1 and 2 place the pile alike");
    assert_eq!(first(0), first(1), "friction changed the initial placement");
    assert_eq!(
        first(0),
        first(4),
        "the same seed placed the pile differently"
    );
}

#[test]
fn sweep_bad_values_exit_2_before_any_run() {
    let tmp = TempDir::new("sweep-bad");
    let stack = example!("box_stack.toml");
    let cases: [(&[&str], &str); 4] = [
        (
            &["--model", "stewart-trinkle", "--param", "no_such=1,2"],
            "no_such",
        ),
        (
            &["--set", "material.rubber.friction=0.1"],
            "no material `rubber`",
        ),
        (&["--set", "seed=1,2"], "no [[spawn]]"),
        (&["--dt", "1e-3,-1"], "--dt"),
    ];
    for (args, needle) in cases {
        let out = tmp.join("sw");
        let mut all = vec!["sweep", stack, "--duration", "0.01", "--out", s(&out)];
        all.extend_from_slice(args);
        let o = signorini(tmp.path(), &all);
        o.expect_code(2, needle);
        assert!(
            o.stderr.contains(needle),
            "{args:?}: stderr lacks `{needle}`:\n{}",
            o.stderr
        );
        assert!(!out.join("runs").exists(), "{args:?}: a run started");
    }
}

// ---------------------------------------------------------------------------------------------
// replay.html: `run --html` and `view` (docs/replay.md)
// ---------------------------------------------------------------------------------------------

/// Standard base64 (the page's typed arrays), decoded.
fn unbase64(s: &str) -> Vec<u8> {
    let val = |c: u8| -> u32 {
        match c {
            b'A'..=b'Z' => (c - b'A') as u32,
            b'a'..=b'z' => (c - b'a') as u32 + 26,
            b'0'..=b'9' => (c - b'0') as u32 + 52,
            b'+' => 62,
            b'/' => 63,
            _ => panic!("not base64: {c}"),
        }
    };
    let mut out = Vec::new();
    for chunk in s.as_bytes().chunks(4) {
        let pad = chunk.iter().filter(|&&c| c == b'=').count();
        let mut n = 0u32;
        for &c in chunk {
            n = n << 6 | if c == b'=' { 0 } else { val(c) };
        }
        let bytes = [(n >> 16) as u8, (n >> 8) as u8, n as u8];
        out.extend_from_slice(&bytes[..3 - pad]);
    }
    out
}

fn f32s(v: &Value) -> Vec<f32> {
    unbase64(v.as_str().expect("base64 string"))
        .chunks(4)
        .map(|b| f32::from_le_bytes(b.try_into().unwrap()))
        .collect()
}

fn f64s_b64(v: &Value) -> Vec<f64> {
    unbase64(v.as_str().expect("base64 string"))
        .chunks(8)
        .map(|b| f64::from_le_bytes(b.try_into().unwrap()))
        .collect()
}

/// The JSON data element of a replay page.
fn page_data(html: &str) -> Value {
    let open = "<script type=\"application/json\" id=\"signorini-replay-data\">";
    let start = html.find(open).expect("data element") + open.len();
    let end = start
        + html[start..]
            .find("</script>")
            .expect("end of data element");
    serde_json::from_str(&html[start..end]).expect("data is JSON")
}

#[test]
fn run_html_writes_a_page_with_the_runs_frames_decimated() {
    let tmp = TempDir::new("html");
    let out = tmp.join("out");
    let o = signorini(
        tmp.path(),
        &[
            "run",
            example!("block_penetrating_plane.toml"),
            "--dt",
            "0.002",
            "--duration",
            "0.5",
            "--html",
            "--fps",
            "50",
            "--out",
            s(&out),
        ],
    );
    o.expect_code(0, "run --html");
    let page_path = out.join("replay.html");
    assert!(
        o.stdout.contains(&page_path.display().to_string()),
        "prints the page's path: {}",
        o.stdout
    );
    for f in [
        "scene.json",
        "contacts.csv",
        "trajectory.csv",
        "metrics.csv",
    ] {
        assert!(out.join(f).is_file(), "{f} written");
    }
    let html = std::fs::read_to_string(&page_path).unwrap();
    assert!(html.starts_with("<!DOCTYPE html>"));
    assert!(html.contains("<title>block_penetrating_plane — signorini replay</title>"));
    // Self-contained: no file or URL loaded from elsewhere.
    assert!(!html.contains("<script src") && !html.contains("<link"));
    let data = page_data(&html);
    let scene: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("scene.json")).unwrap()).unwrap();
    assert_eq!(
        data["scene"], scene,
        "the page carries scene.json as written"
    );

    // trajectory.csv: every step, 251 times (0, 0.002, ..., 0.5); at 50 fps the page keeps one
    // per 0.02 s: 26 frames, the trajectory's own rows rounded to f32.
    let traj = Csv::read(&out.join("trajectory.csv"));
    assert_eq!(traj.rows.len(), 251);
    let frames = &data["frames"];
    assert_eq!(frames["count"], 26);
    assert_eq!(
        frames["bodies"],
        serde_json::json!([1]),
        "the cube, body #1"
    );
    let times = f64s_b64(&frames["time"]);
    let pose = f32s(&frames["pose"]);
    let vel = f32s(&frames["velocity"]);
    assert_eq!((times.len(), pose.len(), vel.len()), (26, 26 * 7, 26 * 6));
    let t_all = traj.f64s("time");
    for (k, &t) in times.iter().enumerate() {
        assert!((t - 0.02 * k as f64).abs() < 1e-9, "frame {k} at {t}");
        let row = t_all
            .iter()
            .position(|&x| x == t)
            .expect("a trajectory time");
        for (j, col) in ["x", "y", "z", "qw", "qx", "qy", "qz"].iter().enumerate() {
            let want = traj.rows[row][traj.col(col)].parse::<f64>().unwrap() as f32;
            assert_eq!(pose[7 * k + j], want, "frame {k} {col}");
        }
        for (j, col) in ["vx", "vy", "vz", "wx", "wy", "wz"].iter().enumerate() {
            let want = traj.rows[row][traj.col(col)].parse::<f64>().unwrap() as f32;
            assert_eq!(vel[6 * k + j], want, "frame {k} {col}");
        }
    }
    // Contacts: recorded at the page's 50 fps (scene.json says so), one snapshot per frame.
    assert_eq!(scene["output"]["contacts_interval"], 0.02);
    let contacts = Csv::read(&out.join("contacts.csv"));
    contacts.assert_well_formed("contacts.csv", &["body_a", "body_b"]);
    let mut snap: Vec<f64> = contacts.f64s("time");
    snap.dedup();
    assert!(
        snap.iter().all(|t| times.contains(t)),
        "snapshots are frames: {snap:?}"
    );
    // The cube starts 5 cm into the ground, so frame 0 has points. The page quantizes them
    // (16 bits per axis over their box, normals 8 bits): each within 1e-4 of contacts.csv.
    let c = &data["contacts"];
    let offsets: Vec<u32> = unbase64(c["offsets"].as_str().unwrap())
        .chunks(4)
        .map(|b| u32::from_le_bytes(b.try_into().unwrap()))
        .collect();
    assert_eq!(offsets.len(), 27);
    assert_eq!(
        offsets[26] as usize,
        contacts.rows.len(),
        "every row is a frame's"
    );
    assert!(offsets[1] >= 1, "contacts at t = 0: {offsets:?}");
    let q: Vec<u16> = unbase64(c["point"].as_str().unwrap())
        .chunks(2)
        .map(|b| u16::from_le_bytes(b.try_into().unwrap()))
        .collect();
    let nq: Vec<i8> = unbase64(c["normal"].as_str().unwrap())
        .iter()
        .map(|&b| b as i8)
        .collect();
    let touching = unbase64(c["touching"].as_str().unwrap());
    assert_eq!(
        (q.len(), nq.len(), touching.len()),
        (
            3 * contacts.rows.len(),
            3 * contacts.rows.len(),
            contacts.rows.len()
        )
    );
    let (origin, scale) = (&c["origin"], &c["scale"]);
    for (i, row) in contacts.rows.iter().enumerate() {
        for (d, col) in ["x", "y", "z"].iter().enumerate() {
            let want: f64 = row[contacts.col(col)].parse().unwrap();
            let got =
                origin[d].as_f64().unwrap() + scale[d].as_f64().unwrap() * q[3 * i + d] as f64;
            assert!(
                (got - want).abs() < 1e-4,
                "contact {i} {col}: {got} vs {want}"
            );
        }
        for (d, col) in ["nx", "ny", "nz"].iter().enumerate() {
            let want: f64 = row[contacts.col(col)].parse().unwrap();
            assert!(
                (nq[3 * i + d] as f64 / 127.0 - want).abs() < 0.01,
                "contact {i} {col}"
            );
        }
        let gap: f64 = row[contacts.col("gap")].parse().unwrap();
        assert_eq!(touching[i], (gap <= 0.0) as u8, "contact {i}");
    }
    assert_eq!(touching[0], 1, "the deepest corner is in the ground");
    // Metrics: 251 rows, all kept.
    assert_eq!(data["metrics"]["count"], 251);
    assert_eq!(data["metrics"]["bucketed"], false);

    // `view` makes the same page from the files.
    std::fs::remove_file(&page_path).unwrap();
    let v = signorini(tmp.path(), &["view", s(&out), "--fps", "50"]);
    v.expect_code(0, "view");
    assert!(
        v.stdout.contains(&page_path.display().to_string()),
        "{}",
        v.stdout
    );
    assert_eq!(std::fs::read_to_string(&page_path).unwrap(), html);
}

#[test]
fn replay_page_escapes_names_that_could_end_its_script() {
    let tmp = TempDir::new("html-escape");
    let scene = tmp.write(
        "esc<ape>.toml",
        r#"
[simulation]
time_step = 1e-3
duration = 0.05

[contact]
model = "deepest-point"

[[body]]
name = "ground"
fixed = true
shape = { type = "halfspace", normal = [0.0, 0.0, 1.0] }

[[body]]
name = "</script><script>alert(1)</script><!--"
mass = 1.0
shape = { type = "sphere", radius = 0.1 }
position = [0.0, 0.0, 0.5]
"#,
    );
    let out = tmp.join("out");
    signorini(tmp.path(), &["run", s(&scene), "--html", "--out", s(&out)])
        .expect_code(0, "run --html");
    let html = std::fs::read_to_string(out.join("replay.html")).unwrap();
    // The name's `</script>` would end the data element: it appears only escaped, and the page
    // has exactly its two script elements.
    assert!(!html.contains("alert(1)</script>"));
    assert_eq!(html.matches("</script>").count(), 2);
    assert!(html.contains("<title>esc&lt;ape&gt; — signorini replay</title>"));
    let data = page_data(&html);
    assert_eq!(
        data["scene"]["bodies"][1]["name"],
        "</script><script>alert(1)</script><!--"
    );
    // 50 steps of 1 ms, every step written: at 60 fps, frames at 0, 17, 34 and 50 ms.
    let times = f64s_b64(&data["frames"]["time"]);
    assert_eq!(times.len(), 4, "{times:?}");
}

#[test]
fn view_of_an_incomplete_directory_names_the_missing_file() {
    let tmp = TempDir::new("view-missing");
    // Not a directory.
    let o = signorini(tmp.path(), &["view", "no-such-dir"]);
    o.expect_code(2, "view of a missing directory");
    assert!(
        o.stderr.contains("no-such-dir") && o.stderr.contains("not a directory"),
        "{}",
        o.stderr
    );
    let out = tmp.join("out");
    signorini(
        tmp.path(),
        &[
            "run",
            example!("sphere_on_plane.toml"),
            "--duration",
            "0.05",
            "--out",
            s(&out),
        ],
    )
    .expect_code(0, "run");
    // Without --html there is no contacts.csv, and view still makes a page (without contacts).
    assert!(!out.join("contacts.csv").exists());
    let o = signorini(tmp.path(), &["view", s(&out)]);
    o.expect_code(0, "view without contacts.csv");
    assert!(o.stdout.contains("no contacts.csv"), "{}", o.stdout);
    assert!(
        page_data(&std::fs::read_to_string(out.join("replay.html")).unwrap())["contacts"].is_null()
    );
    for missing in ["metrics.csv", "trajectory.csv", "scene.json"] {
        std::fs::remove_file(out.join(missing)).unwrap();
        let o = signorini(tmp.path(), &["view", s(&out)]);
        o.expect_code(2, &format!("view without {missing}"));
        assert!(
            o.stderr.contains(missing) && o.stderr.contains("missing"),
            "names {missing}: {}",
            o.stderr
        );
    }
    // A malformed file: line and reason.
    std::fs::write(out.join("scene.json"), "{\"bodies\": []}").unwrap();
    std::fs::write(
        out.join("trajectory.csv"),
        format!("{TRAJECTORY_HEADER}\n0,ball,1,2\n"),
    )
    .unwrap();
    std::fs::write(
        out.join("metrics.csv"),
        "time,kinetic_energy,potential_energy,max_penetration\n0,0,0,0\n",
    )
    .unwrap();
    let o = signorini(tmp.path(), &["view", s(&out)]);
    o.expect_code(2, "view of a malformed trajectory");
    assert!(o.stderr.contains("trajectory.csv:2:"), "{}", o.stderr);
    // A bad --fps.
    let o = signorini(tmp.path(), &["view", s(&out), "--fps", "0"]);
    o.expect_code(2, "--fps 0");
    assert!(o.stderr.contains("--fps"), "{}", o.stderr);
}

// ---------------------------------------------------------------------------------------------
// `run --impulses`: impulses.csv (docs/outputs.md)
// ---------------------------------------------------------------------------------------------

#[test]
fn run_impulses_writes_what_each_contact_carried_and_the_ground_carries_the_stack() {
    // The 10-box stack (1 kg cubes) under stewart-trinkle for 0.05 s, rows every step: at each
    // output time the ground's contacts carry the whole stack, 10 m g h (N s), and each box's
    // net contact impulse is its own m g h. The LCP is solved to a scaled residual of 1e-8;
    // 1e-7 relative leaves room for it and fails a misattributed or missing contact.
    let tmp = TempDir::new("run-impulses");
    let out = tmp.join("out");
    let args = [
        "run",
        example!("box_stack.toml"),
        "--model",
        "stewart-trinkle",
        "--duration",
        "0.05",
        "--impulses",
        "--out",
        s(&out),
    ];
    signorini(tmp.path(), &args).expect_code(0, "run --impulses");
    let csv = Csv::read(&out.join("impulses.csv"));
    assert_eq!(
        csv.header.join(","),
        "time,body_a,body_b,x,y,z,nx,ny,nz,jx,jy,jz,jn"
    );
    csv.assert_well_formed("impulses.csv", &["body_a", "body_b"]);
    let (h, g) = (1e-3, 9.81);
    let times = csv.f64s("time");
    let (a, b) = (csv.col("body_a"), csv.col("body_b"));
    let jz = csv.f64s("jz");
    let mut steps: Vec<f64> = times.clone();
    steps.dedup();
    assert_eq!(
        steps.len(),
        50,
        "one record per step (trajectory rows every step)"
    );
    for t in steps {
        let rows: Vec<usize> = (0..csv.rows.len()).filter(|&i| times[i] == t).collect();
        let ground: f64 = rows
            .iter()
            .filter(|&&i| csv.rows[i][a] == "ground" || csv.rows[i][b] == "ground")
            // The impulse on the box: jz when the box is B, −jz when it is A.
            .map(|&i| {
                if csv.rows[i][a] == "ground" {
                    jz[i]
                } else {
                    -jz[i]
                }
            })
            .sum();
        assert!(
            (ground - 10.0 * g * h).abs() <= 1e-7 * 10.0 * g * h,
            "t = {t}: the ground carries {ground} N s"
        );
        for k in 0..10 {
            let name = format!("box{k}");
            let net: f64 = rows
                .iter()
                .map(|&i| {
                    let on_b = f64::from(u8::from(csv.rows[i][b] == name));
                    let on_a = f64::from(u8::from(csv.rows[i][a] == name));
                    (on_b - on_a) * jz[i]
                })
                .sum();
            assert!(
                (net - g * h).abs() <= 1e-7 * g * h,
                "t = {t}: {name}'s net contact impulse {net} N s"
            );
        }
    }
    // A run without --impulses leaves no impulses.csv behind, not even a stale one.
    let args = [
        "run",
        example!("box_stack.toml"),
        "--duration",
        "0.01",
        "--out",
        s(&out),
    ];
    signorini(tmp.path(), &args).expect_code(0, "run without --impulses");
    assert!(!out.join("impulses.csv").exists());
}

/// `box-of-polygons --quick` (2D, PEG paper §6.1): a row per (model, h, seed), the summary, the
/// two plots; every run completes, and PEG counts I/X-constraints where the standard model has
/// none.
#[test]
fn experiment_box_of_polygons_quick_writes_csv_and_plots() {
    let tmp = TempDir::new("exp-bop");
    let out = tmp.join("out");
    let o = signorini(
        tmp.path(),
        &["experiment", "box-of-polygons", "--quick", "--out", s(&out)],
    );
    o.expect_code(0, "experiment box-of-polygons --quick");
    let csv = Csv::read(&out.join("box_of_polygons.csv"));
    assert_eq!(
        csv.header.join(","),
        "model,time_step,seed,steps,planned,error,mean_overlap,max_overlap,trap_step_fraction,multi_step_fraction,max_energy_gain,seconds_per_step"
    );
    csv.assert_well_formed("box_of_polygons.csv", &["model", "error"]);
    assert_eq!(csv.rows.len(), 8);
    let (steps, planned) = (csv.f64s("steps"), csv.f64s("planned"));
    assert_eq!(steps, planned, "every quick run completes");
    let model = csv.col("model");
    let multi = csv.f64s("multi_step_fraction");
    for (row, m) in csv.rows.iter().zip(&multi) {
        if row[model] == "peg" {
            assert!(*m > 0.1, "{row:?}");
        } else {
            assert_eq!(*m, 0.0, "{row:?}");
        }
    }
    assert_png(&out.join("box_of_polygons.png"));
    assert_png(&out.join("box_of_polygons_traps.png"));
    assert!(o.stdout.contains("median"), "{}", o.stdout);
}

/// `nguyen-trinkle-2d --quick`: both scenes under the four activations; the group method ends
/// every run where the true path does (exact final position) without penetration, type 1
/// penetrates, and the exploratory solve holds the disk above the gap.
#[test]
fn experiment_nguyen_trinkle_2d_quick_writes_csv_and_plots() {
    let tmp = TempDir::new("exp-nt2d");
    let out = tmp.join("out");
    let o = signorini(
        tmp.path(),
        &[
            "experiment",
            "nguyen-trinkle-2d",
            "--quick",
            "--examples",
            EXAMPLES_DIR,
            "--out",
            s(&out),
        ],
    );
    o.expect_code(0, "experiment nguyen-trinkle-2d --quick");
    let ends = Csv::read(&out.join("segment_end.csv"));
    ends.assert_well_formed(
        "segment_end.csv",
        &["activation", "throw", "outcome", "expected", "error"],
    );
    assert_eq!(ends.rows.len(), 4 * 2 * 2 * 2);
    let gap = Csv::read(&out.join("gap.csv"));
    gap.assert_well_formed("gap.csv", &["activation", "outcome", "error"]);
    assert_eq!(gap.rows.len(), 4 * 2 * 2);
    let (a, outcome, expected) = (
        ends.col("activation"),
        ends.col("outcome"),
        ends.col("expected"),
    );
    let (err, pen) = (ends.f64s("position_error"), ends.f64s("max_penetration"));
    for (i, row) in ends.rows.iter().enumerate() {
        if row[a] == "group" {
            assert_eq!(row[outcome], row[expected], "{row:?}");
            assert!(err[i] <= 1e-12 && pen[i] <= 1e-12, "{row:?}");
        }
        if row[a] == "penetrating" {
            assert!(pen[i] > 0.0, "{row:?}");
        }
    }
    let (a, outcome) = (gap.col("activation"), gap.col("outcome"));
    for row in &gap.rows {
        match row[a].as_str() {
            "group" | "anticipating" => assert_eq!(row[outcome], "in the gap", "{row:?}"),
            "exploratory" => assert_eq!(row[outcome], "held above the gap", "{row:?}"),
            _ => {}
        }
    }
    for png in [
        "nt2d_penetration.png",
        "nt2d_error.png",
        "nt2d_landing_paths.png",
        "nt2d_miss_paths.png",
    ] {
        assert_png(&out.join(png));
    }
    assert!(
        o.stdout.contains("segment end") && o.stdout.contains("two lines"),
        "{}",
        o.stdout
    );
}

/// `triangle-drop --quick`: the final position at h = 1 and 15 ms against h = 1e-4 s for both
/// models; the error grows with h and no overlap beyond rounding appears.
#[test]
fn experiment_triangle_drop_quick_converges() {
    let tmp = TempDir::new("exp-tri");
    let out = tmp.join("out");
    let o = signorini(
        tmp.path(),
        &["experiment", "triangle-drop", "--quick", "--out", s(&out)],
    );
    o.expect_code(0, "experiment triangle-drop --quick");
    let csv = Csv::read(&out.join("triangle_drop.csv"));
    assert_eq!(
        csv.header.join(","),
        "model,time_step,x,y,theta,position_error,max_overlap,error"
    );
    csv.assert_well_formed("triangle_drop.csv", &["model", "error"]);
    let err = csv.f64s("position_error");
    assert_eq!(err.len(), 4);
    assert!(err[0] < err[1] && err[2] < err[3], "{err:?}");
    assert!(csv.f64s("max_overlap").iter().all(|o| *o < 1e-12));
    assert_png(&out.join("triangle_drop.png"));
}

#[test]
fn experiment_grasp_lifts_the_box_under_both_models() {
    let tmp = TempDir::new("exp-grasp");
    let out = tmp.join("out");
    let args = [
        "experiment",
        "grasp",
        "--examples",
        EXAMPLES_DIR,
        "--out",
        s(&out),
    ];
    let o = signorini(tmp.path(), &args);
    o.expect_code(0, "experiment grasp");
    let csv = Csv::read(&out.join("grasp.csv"));
    csv.assert_well_formed("grasp.csv", &["model", "failure"]);
    let model = csv.col("model");
    let models: Vec<&str> = csv.rows.iter().map(|r| r[model].as_str()).collect();
    assert_eq!(models, ["penalty", "stewart-trinkle"]);
    // The box rises by the arm's 0.2 m less the servos' sag under its weight (a few mm);
    // a box left on the ground or dropped has lift ≈ 0.
    for (i, row) in csv.rows.iter().enumerate() {
        assert!((csv.f64s("lift")[i] - 0.2).abs() < 0.01, "{row:?}");
        assert_eq!(row[csv.col("failure")], "", "{row:?}");
    }
    let trace = Csv::read(&out.join("grasp_trace.csv"));
    trace.assert_well_formed("grasp_trace.csv", &["model"]);
    assert_png(&out.join("grasp.png"));
}

#[test]
fn experiment_humanoid_quick_runs_under_both_models() {
    let tmp = TempDir::new("exp-humanoid");
    let out = tmp.join("out");
    let o = signorini(
        tmp.path(),
        &[
            "experiment",
            "humanoid",
            "--quick",
            "--examples",
            EXAMPLES_DIR,
            "--out",
            s(&out),
        ],
    );
    o.expect_code(0, "experiment humanoid --quick");
    assert!(o.stdout.contains("the paper's 6.98"), "{}", o.stdout);
    let csv = Csv::read(&out.join("humanoid.csv"));
    csv.assert_well_formed("humanoid.csv", &["model", "worst_joint", "failure"]);
    let model = csv.col("model");
    let models: Vec<&str> = csv.rows.iter().map(|r| r[model].as_str()).collect();
    assert_eq!(models, ["penalty", "stewart-trinkle"]);
    // 250 steps of 1 ms, the wheels' target still ramping (rim bound r ∫ ω* dt = 0.03125 m at
    // 0.25 s): the robot stays upright (0.05 rad: a caster 2 cm up), does not sink, keeps its
    // servos within 0.1 rad of their targets and cannot outrun its wheels.
    for (i, row) in csv.rows.iter().enumerate() {
        assert_eq!(csv.f64s("steps")[i], 250.0, "{row:?}");
        assert!(csv.f64s("distance")[i].abs() < 0.03125, "{row:?}");
        assert!(csv.f64s("final_height")[i] > -0.01, "{row:?}");
        assert!(csv.f64s("max_tilt")[i] < 0.05, "{row:?}");
        assert!(csv.f64s("tracking_max")[i] < 0.1, "{row:?}");
        assert_eq!(row[csv.col("failure")], "", "{row:?}");
    }
}

#[test]
fn experiment_mobile_robot_quick_drives_under_both_models() {
    let tmp = TempDir::new("exp-mobile-robot");
    let out = tmp.join("out");
    let o = signorini(
        tmp.path(),
        &[
            "experiment",
            "mobile-robot",
            "--quick",
            "--examples",
            EXAMPLES_DIR,
            "--out",
            s(&out),
        ],
    );
    o.expect_code(0, "experiment mobile-robot --quick");
    assert!(o.stdout.contains("the paper's 2.47"), "{}", o.stdout);
    let csv = Csv::read(&out.join("mobile-robot.csv"));
    csv.assert_well_formed("mobile-robot.csv", &["model", "failure"]);
    let model = csv.col("model");
    let models: Vec<&str> = csv.rows.iter().map(|r| r[model].as_str()).collect();
    assert_eq!(models, ["penalty", "stewart-trinkle"]);
    // 250 steps of 1 ms with the wheels' servo at 5 rad/s on 0.1 m wheels: the base moves
    // forward (a rolling robot's travel is at most the rim's, 0.125 m; at least a fifth of it
    // shows the wheels grip) and does not sink (a 10-gon wheel sits 4.9 mm lower than the round
    // one; 1 cm lower is sinking).
    for (i, row) in csv.rows.iter().enumerate() {
        assert_eq!(csv.f64s("steps")[i], 250.0, "{row:?}");
        assert!(csv.f64s("distance")[i] > 0.025, "{row:?}");
        assert!(csv.f64s("final_height")[i] > -0.01, "{row:?}");
        assert_eq!(row[csv.col("failure")], "", "{row:?}");
    }
}
