//! `signorini check robot.urdf` (src/urdf.rs): the bundled robots (examples/robots/) are
//! imported and summarized with exit 0, their warnings on standard error; a malformed URDF exits
//! 2 naming the file, the line and the element; `bench` refuses a URDF with exit 2 (`run` runs
//! it contact-free: tests/urdf_run.rs).
mod common;

use common::{robot, s, signorini};
use std::path::PathBuf;

fn temp(tag: &str) -> PathBuf {
    common::temp("urdf-cli", tag)
}

#[test]
fn check_summarizes_the_diff_drive_base() {
    let dir = temp("diff-drive");
    let path = robot("diff_drive.urdf");
    let o = signorini(&dir, &["check", s(&path)]);
    assert_eq!(o.code, Some(0), "{}\n{}", o.stdout, o.stderr);
    for line in [
        "diff_drive.urdf: ok — URDF robot \"diff_drive\", floating base",
        "  links: 3 in the tree: base_footprint (floating), left_wheel (revolute), right_wheel (revolute)",
        "  merged by fixed joints into the link that carries them: base_link → base_footprint, caster → base_footprint",
        "  URDF joints: 2 continuous, 2 fixed",
        "  degrees of freedom: nq = 9, nv = 8",
        "  mass: 6.1 kg",
        "  collision geometry: 4 (1 box, 2 cylinder, 1 sphere)",
        "  warnings: 2",
    ] {
        assert!(o.stdout.contains(line), "no `{line}` in:\n{}", o.stdout);
    }
    let warnings: Vec<&str> = o
        .stderr
        .lines()
        .filter(|l| l.starts_with("warning: "))
        .collect();
    assert_eq!(warnings.len(), 2, "{}", o.stderr);
    assert!(
        warnings[0].contains("diff_drive.urdf:93: <transmission>"),
        "{}",
        o.stderr
    );
    // `check` writes nothing.
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn check_accepts_every_bundled_robot() {
    let dir = temp("robots");
    let mut robots: Vec<PathBuf> = std::fs::read_dir(robot(""))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "urdf"))
        .collect();
    robots.sort();
    assert!(robots.len() >= 3, "{robots:?}");
    for (path, dof) in robots.iter().zip(["nv = 14", "nv = 8", "nv = 2"]) {
        let o = signorini(&dir, &["check", s(path)]);
        assert_eq!(o.code, Some(0), "{}: {}", path.display(), o.stderr);
        assert!(o.stdout.contains(": ok — URDF robot"), "{}", o.stdout);
        assert!(o.stdout.contains(dof), "{}: {}", path.display(), o.stdout);
    }
    let arm = signorini(&dir, &["check", s(&robot("arm.urdf"))]);
    assert!(
        arm.stdout
            .contains("palm → wrist_3_link, tool0 → wrist_3_link"),
        "{}",
        arm.stdout
    );
    assert!(arm.stdout.contains("3 mesh"), "{}", arm.stdout);
    assert!(arm.stderr.contains("<mimic>"), "{}", arm.stderr);
    let pendulum = signorini(&dir, &["check", s(&robot("double_pendulum.urdf"))]);
    assert!(
        pendulum.stdout.contains(
            "hung from the world by its URDF's joints (its root link `world` is the world)"
        ) && !pendulum.stdout.contains("merged"),
        "{}",
        pendulum.stdout
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_malformed_urdf_exits_2_naming_file_line_and_element() {
    let dir = temp("malformed");
    let text = std::fs::read_to_string(robot("double_pendulum.urdf")).unwrap();
    let bad = text.replace(
        r#"<parent link="upper_rod"/>"#,
        r#"<parent link="upper_arm"/>"#,
    );
    assert_ne!(bad, text);
    let path = dir.join("pendulum.urdf");
    std::fs::write(&path, &bad).unwrap();
    let o = signorini(&dir, &["check", s(&path)]);
    assert_eq!(o.code, Some(2), "{}\n{}", o.stdout, o.stderr);
    let line = bad
        .lines()
        .position(|l| l.contains(r#"<joint name="elbow""#))
        .unwrap()
        + 1;
    let expected = format!(
        "error: {}:{line}: joint \"elbow\": its parent link \"upper_arm\" is not defined",
        path.display()
    );
    assert!(
        o.stderr.contains(&expected),
        "no `{expected}` in:\n{}",
        o.stderr
    );
    assert!(
        o.stderr.contains("help: define <link name=\"upper_arm\">"),
        "{}",
        o.stderr
    );
    assert!(o.stdout.is_empty(), "{}", o.stdout);
    // A bad number: its line and attribute.
    let bad = text.replace(r#"<mass value="0.5"/>"#, r#"<mass value="half"/>"#);
    std::fs::write(&path, &bad).unwrap();
    let o = signorini(&dir, &["check", s(&path)]);
    assert_eq!(o.code, Some(2));
    let line = bad.lines().position(|l| l.contains("half")).unwrap() + 1;
    assert!(
        o.stderr.contains(&format!(":{line}: link \"lower_rod\" <inertial> <mass>: value=\"half\" has `half`, which is not a number")),
        "{}",
        o.stderr
    );
    // A file that is not there.
    let o = signorini(&dir, &["check", "missing.urdf"]);
    assert_eq!(o.code, Some(2));
    assert!(
        o.stderr.contains("missing.urdf: cannot read the file"),
        "{}",
        o.stderr
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bench_refuses_a_urdf_with_exit_2() {
    let dir = temp("run");
    let path = robot("arm.urdf");
    for cmd in ["bench"] {
        let o = signorini(&dir, &[cmd, s(&path)]);
        assert_eq!(o.code, Some(2), "{cmd}: {}", o.stderr);
        assert!(
            o.stderr.contains("does not step a URDF yet"),
            "{}",
            o.stderr
        );
        assert!(o.stderr.contains("signorini check"), "{}", o.stderr);
    }
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0);
    std::fs::remove_dir_all(&dir).unwrap();
}
