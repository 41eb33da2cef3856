//! The files `simulation::run` writes for drawing a run: `scene.json` (always) describes every
//! body's pieces in the frame `trajectory.csv` moves, so a piece's world vertex computed from
//! them is where the geometry puts it; `contacts.csv` (when asked) has rows at exactly the
//! trajectory's times with unit normals and the narrow phase's gaps; a run that does not ask
//! removes a previous run's `contacts.csv`.
use signorini::prelude::*;
use signorini::scene::{self, parse_scene};
use signorini::simulation::run::{run, Decimator, RunConfig, CONTACTS_HEADER};
use std::path::{Path, PathBuf};

/// A compound body (two boxes, one off-centre, one turned) and a sphere falling on a half-space.
const SCENE: &str = r#"
[simulation]
time_step = 1e-3
duration = 0.4

[contact]
model = "deepest-point"

[[body]]
name = "ground"
fixed = true
shape = { type = "halfspace", normal = [0.0, 0.0, 1.0] }

[[body]]
name = "hammer"
mass = 2.0
position = [0.0, 0.0, 0.3]
[[body.piece]]
shape = { type = "box", size = [0.4, 0.1, 0.1] }
position = [0.0, 0.0, 0.0]
[[body.piece]]
shape = { type = "box", size = [0.1, 0.2, 0.2] }
position = [0.2, 0.0, 0.0]
orientation = { axis = [0.0, 0.0, 1.0], angle_deg = 30.0 }

[[body]]
name = "ball"
mass = 1.0
shape = { type = "sphere", radius = 0.1 }
position = [1.0, 0.0, 0.25]

[output]
trajectory_interval = 0.01
"#;

fn temp_dir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("signorini-run-files-{}-{tag}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn simulate(dir: &Path, contacts: Option<f64>) {
    let scene = scene::build(parse_scene(SCENE, "hammer.toml").unwrap()).unwrap();
    let mut sim = Simulation::new(scene, None, &[]).unwrap();
    let cfg = RunConfig {
        impulses: false,
        trajectory_interval: 0.01,
        out_dir: dir,
        interrupt: None,
        contacts,
    };
    let summary = run(&cfg, &mut sim, &mut |_, _| {}).unwrap();
    assert!(summary.error.is_none(), "{:?}", summary.error);
}

fn v3(v: &serde_json::Value) -> DVec3 {
    let a: Vec<f64> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect();
    DVec3::new(a[0], a[1], a[2])
}

fn q4(v: &serde_json::Value) -> DQuat {
    let a: Vec<f64> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect();
    DQuat::from_xyzw(a[1], a[2], a[3], a[0])
}

fn trajectory_times(dir: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(dir.join("trajectory.csv")).unwrap();
    let mut times: Vec<String> = text
        .lines()
        .skip(1)
        .map(|l| l.split(',').next().unwrap().to_string())
        .collect();
    times.dedup();
    times
}

#[test]
fn scene_json_places_every_piece_where_the_scene_does() {
    let dir = temp_dir("scene");
    simulate(&dir, None);
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("scene.json")).unwrap()).unwrap();
    assert_eq!(doc["scene"], "hammer.toml");
    assert_eq!(doc["time_step"], 1e-3);
    let bodies = doc["bodies"].as_array().unwrap();
    let names: Vec<&str> = bodies.iter().map(|b| b["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["ground", "hammer", "ball"]);
    assert_eq!(bodies[0]["fixed"], true);
    assert!(bodies[0]["mass"].is_null());
    assert_eq!(bodies[0]["pieces"][0]["shape"], "halfspace");
    assert_eq!(v3(&bodies[0]["pieces"][0]["normal"]), DVec3::Z);
    assert_eq!(bodies[2]["pieces"][0]["shape"], "sphere");
    assert_eq!(bodies[2]["pieces"][0]["radius"], 0.1);
    assert_eq!(v3(&bodies[2]["position"]), DVec3::new(1.0, 0.0, 0.25));

    // The hammer: two polytopes with 8 vertices and 6 quadrilateral faces, placed about the
    // centre of mass. Their world vertices (body pose ∘ piece pose) span the scene's boxes.
    let h = &bodies[1];
    assert_eq!(h["mass"], 2.0);
    let pieces = h["pieces"].as_array().unwrap();
    assert_eq!(pieces.len(), 2);
    let (p, q) = (v3(&h["position"]), q4(&h["orientation"]));
    let mut lo = DVec3::splat(f64::INFINITY);
    let mut hi = DVec3::splat(f64::NEG_INFINITY);
    for piece in pieces {
        assert_eq!(piece["shape"], "polytope");
        let verts: Vec<DVec3> = piece["vertices"]
            .as_array()
            .unwrap()
            .iter()
            .map(v3)
            .collect();
        let faces = piece["faces"].as_array().unwrap();
        assert_eq!((verts.len(), faces.len()), (8, 6));
        for f in faces {
            let f = f.as_array().unwrap();
            assert_eq!(f.len(), 4);
            assert!(f
                .iter()
                .all(|i| (i.as_u64().unwrap() as usize) < verts.len()));
        }
        let (pp, pq) = (v3(&piece["position"]), q4(&piece["orientation"]));
        for v in verts {
            let w = p + q * (pp + pq * v);
            lo = lo.min(w);
            hi = hi.max(w);
        }
    }
    // x: the long box spans [-0.2, 0.2] about (0, 0, 0.3); the turned head reaches past 0.2.
    assert!((lo.x - -0.2).abs() < 1e-12, "{lo}");
    let head = 0.2 + 0.05 * 30f64.to_radians().cos() + 0.1 * 30f64.to_radians().sin();
    assert!((hi.x - head).abs() < 1e-12, "{hi} vs {head}");
    assert!(
        (lo.z - 0.2).abs() < 1e-12 && (hi.z - 0.4).abs() < 1e-12,
        "{lo} {hi}"
    );
    // Without --html: no contacts.csv.
    assert!(!dir.join("contacts.csv").exists());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn contacts_csv_follows_the_trajectory_times() {
    let dir = temp_dir("contacts");
    simulate(&dir, Some(0.0));
    let text = std::fs::read_to_string(dir.join("contacts.csv")).unwrap();
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some(CONTACTS_HEADER));
    let traj = trajectory_times(&dir);
    assert_eq!(traj.len(), 41, "0, 0.01, ..., 0.4");
    let mut times = Vec::new();
    let mut rows = 0;
    let mut pairs = std::collections::BTreeSet::new();
    for l in lines {
        let f: Vec<&str> = l.split(',').collect();
        assert_eq!(f.len(), 12, "{l}");
        times.push(f[0].to_string());
        pairs.insert((f[1].to_string(), f[2].to_string()));
        let n: Vec<f64> = f[8..11].iter().map(|x| x.parse().unwrap()).collect();
        let len = (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt();
        assert!((len - 1.0).abs() < 1e-9, "normal of length {len}: {l}");
        let gap: f64 = f[11].parse().unwrap();
        assert!(gap.is_finite() && gap < 0.05, "{l}");
        rows += 1;
    }
    times.dedup();
    // Every contact time is a trajectory time; the bodies land, so the last times have contacts.
    assert!(times.iter().all(|t| traj.contains(t)), "{times:?}");
    assert_eq!(times.last(), traj.last());
    assert!(rows >= 2);
    assert!(
        pairs.contains(&("ground".into(), "ball".into()))
            || pairs.contains(&("ball".into(), "ground".into())),
        "{pairs:?}"
    );
    assert!(
        pairs.iter().any(|(a, b)| a == "hammer" || b == "hammer"),
        "{pairs:?}"
    );
    // At t = 0 nothing touches (the ball is 0.15 m up, the hammer 0.2 m): no rows at time 0.
    assert_ne!(times[0], "0");

    // At most one snapshot per 0.05 s: the trajectory times the Decimator picks, and scene.json
    // says so.
    simulate(&dir, Some(0.05));
    let text = std::fs::read_to_string(dir.join("contacts.csv")).unwrap();
    let mut times: Vec<String> = text
        .lines()
        .skip(1)
        .map(|l| l.split(',').next().unwrap().to_string())
        .collect();
    times.dedup();
    let mut d = Decimator::new(0.05);
    let picked: Vec<String> = traj
        .iter()
        .filter(|t| d.take(t.parse().unwrap()))
        .cloned()
        .collect();
    assert_eq!(picked.len(), 9, "0, 0.05, ..., 0.4: {picked:?}");
    assert!(
        times.iter().all(|t| picked.contains(t)),
        "{times:?} vs {picked:?}"
    );
    assert!(times.len() >= 3, "{times:?}");
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("scene.json")).unwrap()).unwrap();
    assert_eq!(doc["output"]["contacts_interval"], 0.05);

    // The same run without contacts removes the previous run's contacts.csv.
    simulate(&dir, None);
    assert!(!dir.join("contacts.csv").exists());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn decimator_keeps_one_time_per_interval() {
    // Output every 10 ms picked at 1/60 s: the first time at or after each multiple of 1/60.
    let mut d = Decimator::new(1.0 / 60.0);
    let kept: Vec<u32> = (0..=20).filter(|&k| d.take(0.01 * k as f64)).collect();
    assert_eq!(kept, [0, 2, 4, 5, 7, 9, 10, 12, 14, 15, 17, 19, 20]);
    // Interval 0: every time.
    let mut d = Decimator::new(0.0);
    assert!((0..5).all(|k| d.take(k as f64)));
    // Times that carry rounding (sums of 2 ms steps up to 1 s) still land on the grid.
    let mut d = Decimator::new(0.02);
    let mut t = 0.0;
    let mut n = 0;
    for _ in 0..=500 {
        n += d.take(t) as u32;
        t += 0.002;
    }
    assert_eq!(n, 51, "0, 0.02, ..., 1.0");
}
