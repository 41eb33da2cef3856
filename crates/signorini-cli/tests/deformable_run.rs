//! `signorini run` and `check` on scenes with `[[deformable]]` tables: the bundled block drop
//! runs, writes its files and comes to rest on the ground within the derived penetration bound;
//! a bad deformable is refused with exit 2 at file:line:key; a step too long for the network is
//! refused before running.
mod common;
use common::{example, signorini};

const G: f64 = 9.81;

fn scratch(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("signorini-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn the_bundled_block_drop_runs_and_comes_to_rest_on_the_ground() {
    let dir = scratch("deformable-run");
    let scene = example("deformable_block_drop.toml");
    let o = signorini(&dir, &["check", scene.to_str().unwrap()]);
    assert_eq!(o.code, Some(0), "{}\n{}", o.stdout, o.stderr);
    assert!(
        o.stdout.contains("1 deformables (27 particles)"),
        "{}",
        o.stdout
    );
    let o = signorini(&dir, &["run", scene.to_str().unwrap(), "--out", "out"]);
    assert_eq!(o.code, Some(0), "{}\n{}", o.stdout, o.stderr);
    let out = dir.join("out");
    let csv = std::fs::read_to_string(out.join("deformable_block.csv")).unwrap();
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let rows: Vec<Vec<f64>> = lines
        .map(|l| l.split(',').map(|v| v.parse().unwrap()).collect())
        .collect();
    // One row at t = 0 and one per millisecond ([output] trajectory_interval) to t = 2 s.
    assert_eq!(rows.len(), 2001);
    let last = rows.last().unwrap();
    assert_eq!(last[col("time")], 2.0);
    // Mass 1 kg (0.1 m cube at 1000 kg/m³), contact_stiffness 1e5 N/m: at rest the contact
    // forces (each λ δ ≥ 0) sum to M g, so no particle sinks deeper than M g/λ = 9.81e-5 m.
    let bound = 1.0 * G / 1e5;
    let pen = last[col("max_penetration")];
    assert!(pen > 0.0 && pen <= bound, "{pen} m vs {bound} m");
    // At rest: residual speeds below 1e-4 m/s (measured 2.0e-6 m/s) and nine bottom particles
    // touching.
    assert!(last[col("max_speed")] < 1e-4, "{last:?}");
    assert_eq!(last[col("contacts")], 9.0);
    // The centroid rests at half the block's height above the ground, less the sinking and the
    // block's own sag under its weight (both below 1 mm: ρ g h²/E = 1e-3 m at most).
    let z = last[col("centroid_z")];
    assert!((z - 0.05).abs() < 1e-3, "centroid z {z}");
    // The impact is deeper than the rest; the run's deepest is in deformables.json.
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("deformables.json")).unwrap())
            .unwrap();
    let s = &summary[0];
    assert_eq!(s["name"], "block");
    assert_eq!(s["steps"], 200_000);
    assert!(s["error"].is_null());
    assert!(s["max_penetration"].as_f64().unwrap() >= pen);
    // The run's plots carry the deformable: this scene's rigid bodies never move (all-zero
    // kinetic energy, nothing to draw on a log axis), so energy.png exists only through the
    // block's curve.
    for plot in ["energy.png", "penetration.png"] {
        let png = std::fs::read(out.join(plot)).unwrap_or_default();
        assert!(png.starts_with(b"\x89PNG"), "{plot}: {}", o.stderr);
    }
    assert!(!o.stderr.contains("no plots"), "{}", o.stderr);
    // Particle positions every 0.05 s (41 frames of 27 particles) plus the header.
    let particles = std::fs::read_to_string(out.join("deformable_block_particles.csv")).unwrap();
    assert_eq!(particles.lines().count(), 1 + 41 * 27);
    // Deterministic: a second run writes the same bytes.
    let o = signorini(&dir, &["run", scene.to_str().unwrap(), "--out", "again"]);
    assert_eq!(o.code, Some(0));
    for f in [
        "deformable_block.csv",
        "deformable_block_particles.csv",
        "deformables.json",
    ] {
        assert_eq!(
            std::fs::read(out.join(f)).unwrap(),
            std::fs::read(dir.join("again").join(f)).unwrap(),
            "{f}"
        );
    }
}

#[test]
fn a_bad_deformable_exits_2_at_its_line_and_key() {
    let dir = scratch("deformable-bad");
    let text = "[simulation]\ntime_step = 1e-5\nduration = 0.01\n\n[[deformable]]\nname = \"b\"\nsize = [0.1, 0.1, 0.1]\ndivisions = [2, 2, 2]\npoisson = 0.7\n";
    std::fs::write(dir.join("bad.toml"), text).unwrap();
    for cmd in ["check", "run"] {
        let o = signorini(&dir, &[cmd, "bad.toml"]);
        assert_eq!(o.code, Some(2), "{cmd}: {}", o.stderr);
        assert!(
            o.stderr.contains("bad.toml:9: deformable[0].poisson:"),
            "{}",
            o.stderr
        );
    }
    let slow = text.replace("poisson = 0.7", "").replace("1e-5", "1e-2");
    std::fs::write(dir.join("slow.toml"), slow).unwrap();
    let o = signorini(&dir, &["run", "slow.toml"]);
    assert_eq!(o.code, Some(2), "{}", o.stderr);
    assert!(
        o.stderr.contains("slow.toml:1: simulation.time_step:"),
        "{}",
        o.stderr
    );
    assert!(!dir.join("out").exists());
}

/// The bundled coupling scene (a rigid cube and a soft block dropped on a soft mat) for its
/// first 0.1 s: `check` counts the coupled rigid piece, the run writes both deformables' files,
/// each with coupled contacts (the block lands at 0.064 s and rebounds a little), the cube lands on the mat (its bottom stays above the mat's
/// particles, z = 0.02 m, and ends within a contact radius of the mat's top, z = 0.04 m), and a
/// second run writes the same bytes.
#[test]
fn the_bundled_coupling_scene_lands_the_cube_and_the_block_on_the_mat() {
    let dir = scratch("deformable-coupling");
    let scene = example("deformable_coupling.toml");
    let o = signorini(&dir, &["check", scene.to_str().unwrap()]);
    assert_eq!(o.code, Some(0), "{}\n{}", o.stdout, o.stderr);
    assert!(
        o.stdout
            .contains("2 deformables (91 particles), 1 rigid pieces coupled"),
        "{}",
        o.stdout
    );
    let run = |out: &str| {
        let args = [
            "run",
            scene.to_str().unwrap(),
            "--duration",
            "0.1",
            "--out",
            out,
        ];
        let o = signorini(&dir, &args);
        assert_eq!(o.code, Some(0), "{}\n{}", o.stdout, o.stderr);
        o
    };
    let o = run("a");
    assert!(o.stdout.contains("coupled contacts"), "{}", o.stdout);
    let out = dir.join("a");
    let table = |file: &str| {
        let text = std::fs::read_to_string(out.join(file)).unwrap();
        let mut lines = text.lines();
        let header: Vec<String> = lines.next().unwrap().split(',').map(String::from).collect();
        let rows: Vec<Vec<String>> = lines
            .map(|l| l.split(',').map(String::from).collect())
            .collect();
        (header, rows)
    };
    for name in ["mat", "block"] {
        let (header, rows) = table(&format!("deformable_{name}.csv"));
        let col = header.iter().position(|h| h == "coupled_contacts").unwrap();
        let most = rows
            .iter()
            .map(|r| r[col].parse::<usize>().unwrap())
            .max()
            .unwrap();
        assert!(most > 0, "{name}: no coupled contact in 0.1 s");
    }
    let (header, rows) = table("trajectory.csv");
    let (body, z) = (
        header.iter().position(|h| h == "body").unwrap(),
        header.iter().position(|h| h == "z").unwrap(),
    );
    let cube: Vec<f64> = rows
        .iter()
        .filter(|r| r[body] == "cube")
        .map(|r| r[z].parse().unwrap())
        .collect();
    assert_eq!(cube.len(), 101);
    let lowest = cube.iter().copied().fold(f64::INFINITY, f64::min);
    // The cube's bottom is 0.05 m below its centre.
    assert!(
        lowest - 0.05 > 0.02,
        "the cube sank through the mat: {lowest}"
    );
    let end = cube.last().unwrap() - 0.05;
    assert!(
        (end - 0.04).abs() < 0.02,
        "the cube did not land on the mat: bottom at {end}"
    );
    assert!(
        cube[0] - cube.last().unwrap() > 0.015,
        "the cube did not fall: {cube:?}"
    );
    // summary.json repeats deformables.json under `deformables`.
    let json = |f: &str| -> serde_json::Value {
        serde_json::from_str(&std::fs::read_to_string(out.join(f)).unwrap()).unwrap()
    };
    let summary = json("summary.json");
    assert_eq!(summary["deformables"], json("deformables.json"));
    assert_eq!(summary["deformables"][1]["name"], "block");
    run("b");
    for f in [
        "trajectory.csv",
        "deformable_mat.csv",
        "deformable_block_particles.csv",
        "deformables.json",
    ] {
        let a = std::fs::read(dir.join("a").join(f)).unwrap();
        let b = std::fs::read(dir.join("b").join(f)).unwrap();
        assert!(a == b, "{f} differs between two runs");
    }
}
