//! `signorini experiment robustness --quick` end to end (issue 16 item 6): the printed table has
//! every model × every scene class with a verdict, `robustness.csv` parses back into the same
//! rows and verdicts, a run that stopped says why, stewart-trinkle holds the stack at h = 1e-3 s
//! and the grid plot is written. It asserts what the experiment must report, not which of the
//! weak models fail (they are being fixed).
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_signorini");
const EXAMPLES_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples");
const SCENES: [&str; 5] = [
    "stack-1e-3",
    "stack-1/240",
    "bin-64",
    "penetrating-cube",
    "perturbed-cube",
];

/// Run the binary with `args` in `cwd`; (exit code, stdout, stderr), having checked it did not
/// panic.
fn signorini(cwd: &Path, args: &[&str]) -> (Option<i32>, String, String) {
    let out = Command::new(BIN)
        .args(args)
        .current_dir(cwd)
        .output()
        .expect("spawn signorini");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!stderr.contains("panicked"), "{stderr}");
    (out.status.code(), stdout, stderr)
}

/// The 3D catalog's model names, from `signorini models` (names start a line).
fn models(cwd: &Path) -> Vec<String> {
    let (code, stdout, _) = signorini(cwd, &["models"]);
    assert_eq!(code, Some(0));
    // The 3D models (the planar ones, listed after them, are marked "(2D)").
    stdout
        .lines()
        .filter(|l| !l.starts_with(' ') && !l.is_empty() && !l.ends_with("(2D)"))
        .map(String::from)
        .collect()
}

/// A fresh temporary directory for the test `tag`.
fn temp_dir(tag: &str) -> PathBuf {
    let name = format!("signorini-robustness-{}-{tag}", std::process::id());
    let dir = std::env::temp_dir().join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn quick_robustness_reports_every_model_on_every_scene() {
    let dir = temp_dir("quick");
    let out = dir.join("out");
    let (code, stdout, stderr) = signorini(
        &dir,
        &[
            "experiment",
            "robustness",
            "--quick",
            "--examples",
            EXAMPLES_DIR,
            "--out",
            out.to_str().unwrap(),
        ],
    );
    assert_eq!(code, Some(0), "{stdout}\n{stderr}");
    let models = models(&dir);
    assert!(models.len() >= 8, "{models:?}");
    assert!(stdout.contains("verdicts are provisional"), "{stdout}");

    // The printed grid: one line per model, a PASS or FAIL cell per scene class.
    let mut printed = BTreeMap::new();
    for model in &models {
        let line = stdout
            .lines()
            .find(|l| l.split(" | ").next().map(str::trim) == Some(model.as_str()))
            .unwrap_or_else(|| panic!("no table line for {model}:\n{stdout}"));
        let cells: Vec<&str> = line.split(" | ").skip(1).collect();
        assert_eq!(cells.len(), SCENES.len(), "{line}");
        for (scene, cell) in SCENES.iter().zip(cells) {
            let verdict = cell.split_whitespace().next().unwrap_or_default();
            assert!(verdict == "PASS" || verdict == "FAIL", "{line}");
            printed.insert((model.clone(), scene.to_string()), verdict.to_string());
        }
    }

    // The CSV: the same (model, scene) rows, in table order, with the same verdicts.
    let text = std::fs::read_to_string(out.join("robustness.csv")).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    assert_eq!(rows.len(), models.len() * SCENES.len());
    for (k, row) in rows.iter().enumerate() {
        assert_eq!(row.len(), header.len(), "{row:?}");
        let (model, scene) = (row[col("model")], row[col("scene")]);
        assert_eq!(model, models[k / SCENES.len()]);
        assert_eq!(scene, SCENES[k % SCENES.len()]);
        let verdict = row[col("verdict")];
        assert_eq!(printed[&(model.to_string(), scene.to_string())], verdict);
        // A FAIL says why; a run that stopped gives its diagnosis and the whole error.
        assert_eq!(verdict == "FAIL", !row[col("reason")].is_empty(), "{row:?}");
        if row[col("outcome")] != "completed" {
            assert_eq!(verdict, "FAIL", "{row:?}");
        }
        if row[col("outcome")] == "stopped" {
            assert!(row[col("reason")].starts_with("stopped: step "), "{row:?}");
            assert!(!row[col("message")].is_empty(), "{row:?}");
        }
        for name in [
            "steps",
            "planned",
            "end_time",
            "max_penetration",
            "steps_per_second",
        ] {
            let v: f64 = row[col(name)]
                .parse()
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            assert!(v >= 0.0, "{name} = {v}");
        }
    }

    // stewart-trinkle holds the stack at h = 1e-3 s: every step taken, the top box still.
    let st = rows
        .iter()
        .find(|r| r[col("model")] == "stewart-trinkle" && r[col("scene")] == "stack-1e-3")
        .unwrap();
    assert_eq!(st[col("outcome")], "completed");
    assert_eq!(st[col("steps")], st[col("planned")]);
    let drift: f64 = st[col("top_drift")].parse().unwrap();
    assert!(drift <= 1e-9, "top drift {drift} m");
    assert_eq!(st[col("verdict")], "PASS");

    let png = std::fs::read(out.join("robustness.png")).unwrap();
    assert!(png.starts_with(b"\x89PNG\r\n\x1a\n"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_budget_that_is_not_a_number_is_bad_input() {
    let dir = temp_dir("budget");
    let out = Command::new(BIN)
        .args([
            "experiment",
            "robustness",
            "--quick",
            "--examples",
            EXAMPLES_DIR,
        ])
        .env("SIGNORINI_ROBUSTNESS_BUDGET_SECONDS", "soon")
        .current_dir(&dir)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("SIGNORINI_ROBUSTNESS_BUDGET_SECONDS"),
        "{stderr}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
