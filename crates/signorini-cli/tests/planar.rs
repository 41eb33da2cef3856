//! `signorini run` and `check` on the bundled 2D scenes (`[simulation] dimension = 2`,
//! docs/planar.md): the files and their documented columns, the physics they show, determinism,
//! and bad input.
mod common;

use common::{example, Outcome};
use std::path::{Path, PathBuf};

/// `signorini args...` in the test's own directory.
fn signorini(args: &[&str]) -> Outcome {
    common::signorini(Path::new("."), args)
}

fn temp(tag: &str) -> PathBuf {
    common::temp("planar-cli", tag)
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Rows of a CSV file as fields, the header first.
fn csv(path: &Path) -> Vec<Vec<String>> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| l.split(',').map(str::to_string).collect())
        .collect()
}

#[test]
fn run_writes_the_documented_files_of_a_2d_scene() {
    let out = temp("ramp");
    let o = signorini(&[
        "run",
        s(&example("planar_box_on_ramp.toml")),
        "--out",
        s(&out),
    ]);
    assert_eq!(o.code, Some(0), "{}\n{}", o.stdout, o.stderr);
    assert!(o.stdout.contains("2D, 1000 steps"), "{}", o.stdout);
    let traj = csv(&out.join("trajectory.csv"));
    assert_eq!(traj[0].join(","), "time,body,x,y,theta,vx,vy,omega");
    assert_eq!(
        traj.len(),
        1 + 1001,
        "one row per step and the initial state, for the one dynamic body"
    );
    let metrics = csv(&out.join("metrics.csv"));
    assert!(metrics[0].starts_with(&["time".to_string(), "kinetic_energy".to_string()]));
    assert_eq!(metrics.len(), 1 + 1001);
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["status"], "completed");
    assert_eq!(summary["dimension"], 2);
    assert_eq!(summary["model"]["name"], "stewart-trinkle");
    assert_eq!(summary["solver"]["failures"], 0);
    // The box slides at g (sin 30° − μ cos 30°) = 3.2059 m/s² (μ = 0.2): its speed along the
    // ramp grows by a·0.8 s between t = 0.2 and 1 s (the library's tests hold it to 1e-14).
    let speed = |row: &Vec<String>| {
        let (vx, vy): (f64, f64) = (row[5].parse().unwrap(), row[6].parse().unwrap());
        (vx * vx + vy * vy).sqrt()
    };
    let a = (speed(&traj[1001]) - speed(&traj[201])) / 0.8;
    let expected = 9.81 * (30f64.to_radians().sin() - 0.2 * 30f64.to_radians().cos());
    assert!(
        (a - expected).abs() < 1e-9 * expected,
        "a = {a}, expected {expected}"
    );
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn check_and_run_every_bundled_2d_example_deterministically() {
    for name in [
        "planar_box_on_ramp.toml",
        "planar_stack.toml",
        "planar_disk_segment.toml",
    ] {
        let o = signorini(&["check", s(&example(name))]);
        assert_eq!(o.code, Some(0), "{name}: {}", o.stderr);
        assert!(o.stdout.contains(": ok — 2D"), "{name}: {}", o.stdout);
        let (a, b) = (temp(&format!("{name}-a")), temp(&format!("{name}-b")));
        for d in [&a, &b] {
            let o = signorini(&["run", s(&example(name)), "--duration", "0.3", "--out", s(d)]);
            assert_eq!(o.code, Some(0), "{name}: {}", o.stderr);
        }
        // Identical trajectories (metrics differ only in the wall-clock columns).
        let ta = std::fs::read_to_string(a.join("trajectory.csv")).unwrap();
        let tb = std::fs::read_to_string(b.join("trajectory.csv")).unwrap();
        assert_eq!(ta, tb, "{name}");
        for d in [&a, &b] {
            let _ = std::fs::remove_dir_all(d);
        }
    }
}

#[test]
fn bad_2d_input_is_exit_2_with_file_line_and_key() {
    let dir = temp("bad");
    let scene = dir.join("bad.toml");
    std::fs::write(
        &scene,
        "[simulation]\ndimension = 2\n\n[[body]]\nname = \"b\"\nmass = 1.0\nshape = { type = \"box\", size = [1.0, 1.0, 1.0] }\n",
    )
    .unwrap();
    for cmd in ["check", "run"] {
        let o = signorini(
            &[cmd, s(&scene), "--out", s(&dir.join("out"))][..if cmd == "check" { 2 } else { 4 }],
        );
        assert_eq!(o.code, Some(2), "{cmd}: {}", o.stderr);
        assert!(
            o.stderr.contains("bad.toml:7: body[0].shape.size"),
            "{cmd}: {}",
            o.stderr
        );
        assert!(o.stderr.contains("help:"), "{cmd}: {}", o.stderr);
    }
    let o = signorini(&[
        "run",
        s(&example("planar_stack.toml")),
        "--model",
        "hunt-crossley",
        "--out",
        s(&dir.join("out")),
    ]);
    assert_eq!(o.code, Some(2));
    assert!(
        o.stderr.contains("unknown contact model `hunt-crossley`")
            && o.stderr.contains("deepest-point"),
        "{}",
        o.stderr
    );
    let o = signorini(&[
        "run",
        s(&example("planar_stack.toml")),
        "--integrator",
        "rk4",
        "--out",
        s(&dir.join("out")),
    ]);
    assert_eq!(o.code, Some(2));
    assert!(o.stderr.contains("semi-implicit Euler"), "{}", o.stderr);
    // Commands that read 3D scenes only refuse a 2D one at its `dimension`.
    let o = signorini(&["bench", s(&example("planar_stack.toml")), "--steps", "1"]);
    assert_eq!(o.code, Some(2));
    assert!(
        o.stderr
            .contains("planar_stack.toml:4: simulation.dimension"),
        "{}",
        o.stderr
    );
    let _ = std::fs::remove_dir_all(&dir);
}
