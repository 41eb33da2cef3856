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
    // At rest: residual speeds below 1e-4 m/s (measured 3.2e-6 m/s) and nine bottom particles
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
