//! `signorini run robot.urdf` (src/urdf.rs, the library's simulation::multibody_run): a
//! contact-free run (`--no-ground`) writes trajectory.csv, metrics.csv and summary.json with the
//! documented headers and exits 0; its floating base is warned about (it falls), a fixed one is
//! not; a malformed URDF exits 2 naming the file; flags that mean nothing here exit 2; a run that
//! blows up exits 1 with readable files; two runs (on the ground) write identical bytes. Runs on
//! the ground: tests/urdf_ground.rs.
mod common;

use common::{robot, s, signorini};
use std::path::{Path, PathBuf};

fn temp(tag: &str) -> PathBuf {
    common::temp("urdf-run", tag)
}

fn summary(dir: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(dir.join("summary.json")).unwrap()).unwrap()
}

const WARNING: &str = "this run is contact-free, so the floating base falls freely";

#[test]
fn run_writes_the_three_files_with_the_documented_headers() {
    let dir = temp("files");
    let out = dir.join("out");
    let o = signorini(
        &dir,
        &[
            "run",
            s(&robot("double_pendulum.urdf")),
            "--out",
            s(&out),
            "--q0",
            "shoulder=1.0,elbow=0.5",
            "--no-ground",
        ],
    );
    assert_eq!(o.code, Some(0), "{}\n{}", o.stdout, o.stderr);
    assert!(!o.stderr.contains(WARNING), "{}", o.stderr);
    assert!(
        o.stdout
            .contains("contact-free articulated run, 5000 steps"),
        "{}",
        o.stdout
    );
    let traj = std::fs::read_to_string(out.join("trajectory.csv")).unwrap();
    let mut lines = traj.lines();
    assert_eq!(
        lines.next().unwrap(),
        "time,q_shoulder,q_elbow,v_shoulder,v_elbow,tau_shoulder,tau_elbow,\
         x_upper_rod,y_upper_rod,z_upper_rod,qx_upper_rod,qy_upper_rod,qz_upper_rod,qw_upper_rod,\
         x_lower_rod,y_lower_rod,z_lower_rod,qx_lower_rod,qy_lower_rod,qz_lower_rod,qw_lower_rod"
    );
    // Defaults: h = 1e-3 s for 5 s, a row per step and the initial one.
    assert_eq!(lines.clone().count(), 5001);
    let first: Vec<f64> = lines
        .next()
        .unwrap()
        .split(',')
        .map(|x| x.parse().unwrap())
        .collect();
    assert_eq!(&first[..3], &[0.0, 1.0, 0.5]);
    // The upper rod's frame is at the shoulder, 2 m up, turned 1 rad about y.
    assert_eq!(&first[7..10], &[0.0, 0.0, 2.0]);
    assert!((first[11] - 0.5f64.sin()).abs() < 1e-15 && (first[13] - 0.5f64.cos()).abs() < 1e-15);
    let metrics = std::fs::read_to_string(out.join("metrics.csv")).unwrap();
    assert_eq!(
        metrics.lines().next().unwrap(),
        "time,kinetic_energy,potential_energy,total_energy,step_seconds"
    );
    assert_eq!(metrics.lines().count(), 5002);
    let sm = summary(&out);
    assert_eq!(sm["status"], "completed");
    assert_eq!(sm["steps"], 5000);
    assert_eq!(sm["time_step"], 1e-3);
    assert_eq!(sm["duration"], 5.0);
    assert_eq!(sm["integrator"], "rk4");
    assert_eq!(sm["gravity"], serde_json::json!([0.0, 0.0, -9.81]));
    assert_eq!(sm["initial_q"], serde_json::json!([1.0, 0.5]));
    assert_eq!(sm["options"]["q0"], "shoulder=1.0,elbow=0.5");
    // The elbow's damping dissipates: the drift is that, and the run says so.
    assert!(sm["energy"]["relative_drift"].as_f64().unwrap() > 1e-6);
    assert!(o.stdout.contains("--no-damping"), "{}", o.stdout);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_floating_base_is_warned_about_and_falls() {
    let dir = temp("floating");
    let out = dir.join("out");
    let path = robot("diff_drive.urdf");
    let o = signorini(
        &dir,
        &[
            "run",
            s(&path),
            "--out",
            s(&out),
            "--duration",
            "1",
            "--no-ground",
        ],
    );
    assert_eq!(o.code, Some(0), "{}", o.stderr);
    assert!(
        o.stderr.contains(WARNING) && o.stderr.contains("contact-free"),
        "{}",
        o.stderr
    );
    let sm = summary(&out);
    assert_eq!(sm["base"], "floating");
    // Free fall: after 1 s the base has fallen g/2 = 4.905 m (to RK4's exactness on a
    // quadratic, up to round-off).
    let traj = std::fs::read_to_string(out.join("trajectory.csv")).unwrap();
    let last: Vec<f64> = traj
        .lines()
        .last()
        .unwrap()
        .split(',')
        .map(|x| x.parse().unwrap())
        .collect();
    assert!((last[3] + 4.905).abs() < 1e-9, "z = {}", last[3]);
    // Welded: no warning, nothing moves.
    let o = signorini(
        &dir,
        &[
            "run",
            s(&path),
            "--out",
            s(&out),
            "--duration",
            "1",
            "--fixed-base",
            "--no-ground",
        ],
    );
    assert_eq!(o.code, Some(0), "{}", o.stderr);
    assert!(!o.stderr.contains(WARNING), "{}", o.stderr);
    assert_eq!(summary(&out)["base"], "fixed");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_malformed_urdf_exits_2_naming_the_file() {
    let dir = temp("malformed");
    let text = std::fs::read_to_string(robot("double_pendulum.urdf")).unwrap();
    let path = dir.join("broken.urdf");
    std::fs::write(
        &path,
        text.replace(r#"<mass value="0.5"/>"#, r#"<mass value="half"/>"#),
    )
    .unwrap();
    let out = dir.join("out");
    let o = signorini(&dir, &["run", s(&path), "--out", s(&out)]);
    assert_eq!(o.code, Some(2), "{}", o.stderr);
    assert!(
        o.stderr.contains(&format!("error: {}:", path.display())),
        "{}",
        o.stderr
    );
    assert!(o.stderr.contains("which is not a number"), "{}", o.stderr);
    assert!(!out.exists());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bad_flags_exit_2() {
    let dir = temp("flags");
    let pendulum = robot("double_pendulum.urdf");
    let p = s(&pendulum);
    for (args, says) in [
        (vec!["--q0", "wrist=1"], "no joint `wrist`"),
        (vec!["--q0", "shoulder"], "is not NAME=VALUE"),
        (
            vec!["--model", "penalty"],
            "--model `penalty` is not supported on an articulated robot",
        ),
        (
            vec!["--integrator", "implicit-euler"],
            "rk4 (default) or semi-implicit-euler",
        ),
        (vec!["--dt", "0.3"], "not a whole number of steps"),
        (vec!["--gravity", "0,0"], "not three finite numbers"),
    ] {
        let mut all = vec!["run", p, "--out", "out"];
        all.extend(args.iter());
        let o = signorini(&dir, &all);
        assert_eq!(o.code, Some(2), "{args:?}: {}", o.stderr);
        assert!(o.stderr.contains(says), "{args:?}: {}", o.stderr);
    }
    // A URDF flag on a scene file.
    let scene = dir.join("ball.toml");
    std::fs::write(
        &scene,
        "[[body]]\nname = \"ball\"\nmass = 1.0\nshape = { type = \"sphere\", radius = 0.1 }\n",
    )
    .unwrap();
    let o = signorini(&dir, &["run", s(&scene), "--fixed-base"]);
    assert_eq!(o.code, Some(2), "{}", o.stderr);
    assert!(
        o.stderr.contains("--fixed-base applies to a URDF robot"),
        "{}",
        o.stderr
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_run_that_blows_up_exits_1_and_leaves_readable_files() {
    // Semi-implicit Euler at h = 0.1 s with the wrist spinning at 200 rad/s: the arm's motion
    // explodes within a few steps and a step fails. The rows before it are all finite numbers.
    let dir = temp("blowup");
    let out = dir.join("out");
    let o = signorini(
        &dir,
        &[
            "run",
            s(&robot("arm.urdf")),
            "--fixed-base",
            "--out",
            s(&out),
            "--dt",
            "0.1",
            "--duration",
            "20",
            "--integrator",
            "semi-implicit-euler",
            "--no-damping",
            "--v0",
            "wrist_3=200,finger_left_joint=50",
            "--no-ground",
        ],
    );
    assert_eq!(o.code, Some(1), "{}\n{}", o.stdout, o.stderr);
    assert!(o.stderr.contains("the run stopped early"), "{}", o.stderr);
    assert!(o.stderr.contains("smaller time step"), "{}", o.stderr);
    let sm = summary(&out);
    assert_eq!(sm["status"], "failed");
    let steps = sm["steps"].as_u64().unwrap();
    assert!(steps < 200, "{steps}");
    for file in ["trajectory.csv", "metrics.csv"] {
        let text = std::fs::read_to_string(out.join(file)).unwrap();
        assert_eq!(text.lines().count() as u64, steps + 2, "{file}");
        for line in text.lines().skip(1) {
            assert!(
                line.split(',')
                    .all(|x| x.parse::<f64>().is_ok_and(f64::is_finite)),
                "{line}"
            );
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn two_runs_write_byte_identical_trajectories() {
    let dir = temp("determinism");
    let arm = robot("arm.urdf");
    for out in ["a", "b"] {
        let o = signorini(
            &dir,
            &[
                "run",
                s(&arm),
                "--fixed-base",
                "--out",
                out,
                "--duration",
                "1",
                "--q0",
                "elbow=1",
            ],
        );
        assert_eq!(o.code, Some(0), "{}", o.stderr);
    }
    let a = std::fs::read(dir.join("a/trajectory.csv")).unwrap();
    let b = std::fs::read(dir.join("b/trajectory.csv")).unwrap();
    assert!(a.len() > 100_000);
    assert!(a == b, "trajectory.csv differs between two identical runs");
    std::fs::remove_dir_all(&dir).unwrap();
}
