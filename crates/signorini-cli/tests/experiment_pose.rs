//! `signorini experiment pose-statistics` end to end (issue 19 item 3): `--quick` writes the
//! per-drop, frequency and summary CSV files and a bar chart per part, the rows agree with each
//! other, the paper's numbers are in the frequency file; bad options exit 2.
use std::path::{Path, PathBuf};
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_signorini");
const PNG_SIGNATURE: &[u8] = b"\x89PNG\r\n\x1a\n";

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

fn temp_dir(tag: &str) -> PathBuf {
    let name = format!("signorini-pose-{}-{tag}", std::process::id());
    let dir = std::env::temp_dir().join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// (header, rows) of a CSV file of ours (no quoting).
fn csv(path: &Path) -> (Vec<String>, Vec<Vec<String>>) {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut lines = text.lines();
    let header: Vec<String> = lines.next().unwrap().split(',').map(String::from).collect();
    let rows: Vec<Vec<String>> = lines
        .map(|l| l.split(',').map(String::from).collect::<Vec<_>>())
        .collect();
    for r in &rows {
        assert_eq!(r.len(), header.len(), "{}: {r:?}", path.display());
    }
    (header, rows)
}

fn col(header: &[String], name: &str) -> usize {
    header
        .iter()
        .position(|h| h == name)
        .unwrap_or_else(|| panic!("no column {name}"))
}

#[test]
fn quick_pose_statistics_writes_its_files() {
    let dir = temp_dir("quick");
    let out = dir.join("out");
    let (code, stdout, stderr) = signorini(
        &dir,
        &[
            "experiment",
            "pose-statistics",
            "--quick",
            "--out",
            out.to_str().unwrap(),
        ],
    );
    assert_eq!(code, Some(0), "{stdout}\n{stderr}");
    // Per drop: 8 drops × 3 parts × 2 models, seeds 1..8 in order for each.
    let (h, rows) = csv(&out.join("pose_drops.csv"));
    assert_eq!(rows.len(), 48);
    let (part, model, seed, outcome) = (
        col(&h, "part"),
        col(&h, "model"),
        col(&h, "seed"),
        col(&h, "outcome"),
    );
    for (i, r) in rows.iter().enumerate() {
        assert_eq!(r[seed], (i % 8 + 1).to_string(), "{r:?}");
        assert!(
            ["cube", "cap", "button"].contains(&r[part].as_str()),
            "{r:?}"
        );
        assert!(
            ["hunt-crossley", "impulse"].contains(&r[model].as_str()),
            "{r:?}"
        );
    }
    // Frequencies: the counts add up to the classified drops of the per-drop file.
    let (fh, frows) = csv(&out.join("pose_frequencies.csv"));
    let (fpart, fmodel, count) = (col(&fh, "part"), col(&fh, "model"), col(&fh, "count"));
    for p in ["cube", "cap", "button"] {
        for m in ["hunt-crossley", "impulse"] {
            let counted: usize = frows
                .iter()
                .filter(|r| r[fpart] == p && r[fmodel] == m)
                .map(|r| r[count].parse::<usize>().unwrap())
                .sum();
            let classified = rows
                .iter()
                .filter(|r| r[part] == p && r[model] == m)
                .filter(|r| !["leaning", "not-at-rest", "failed"].contains(&r[outcome].as_str()))
                .count();
            assert_eq!(counted, classified, "{p} {m}");
        }
    }
    // The cube's expected 1/6 and the paper's table 1 (pose 1: 46.0 % in its physical tests).
    let expected = col(&fh, "expected");
    assert!(frows
        .iter()
        .filter(|r| r[fpart] == "cube")
        .all(|r| r[expected].parse::<f64>().unwrap() == 1.0 / 6.0));
    let phys = col(&fh, "paper_physical_percent");
    assert!(
        frows.iter().any(|r| r[fpart] == "cap" && r[phys] == "46"),
        "{frows:?}"
    );
    // Summary: the cube has a chi-square p-value in [0, 1].
    let (sh, srows) = csv(&out.join("pose_summary.csv"));
    assert_eq!(srows.len(), 6);
    let p = col(&sh, "p_value");
    for r in srows.iter().filter(|r| r[0] == "cube") {
        let v: f64 = r[p].parse().unwrap();
        assert!((0.0..=1.0).contains(&v), "{r:?}");
    }
    for part in ["cube", "cap", "button"] {
        let bytes = std::fs::read(out.join(format!("pose_statistics_{part}.png"))).unwrap();
        assert!(bytes.starts_with(PNG_SIGNATURE) && bytes.len() > 1000);
    }
    assert!(stdout.contains("chi-square"), "{stdout}");
}

#[test]
fn bad_pose_options_exit_2() {
    let dir = temp_dir("bad");
    let cases: [&[&str]; 5] = [
        &["experiment", "pose-statistics", "--part", "teapot"],
        &[
            "experiment",
            "pose-statistics",
            "--model",
            "no-such-model",
            "--drops",
            "1",
        ],
        &["experiment", "pose-statistics", "--drops", "0"],
        &["experiment", "ramp", "--drops", "10"],
        &[
            "experiment",
            "pose-statistics",
            "--seed",
            "18446744073709551615",
            "--drops",
            "2",
        ],
    ];
    for args in cases {
        let (code, _, stderr) = signorini(&dir, args);
        assert_eq!(code, Some(2), "{args:?}: {stderr}");
        assert!(stderr.starts_with("error:"), "{args:?}: {stderr}");
    }
    // Nothing written.
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0);
}
