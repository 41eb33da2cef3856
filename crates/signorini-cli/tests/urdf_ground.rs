//! `signorini run robot.urdf` on the ground plane (src/urdf.rs, the library's
//! simulation::multibody_run with contact::tree): the diff-drive robot stands on its wheels for
//! 1 s under both tree models without a solver failure and with bounded penetration, and under
//! penalty comes to rest without creeping (10 s); the arm on a fixed base runs under both
//! models with its joint limits kept; a solver failure stops the run
//! (exit 1, the residual) unless `on_failure=continue`; an unsupported model, an unknown
//! parameter, and contact flags with --no-ground exit 2 with the list of what is supported.
mod common;

use common::{robot, s, signorini};
use std::f64::consts::PI;
use std::path::{Path, PathBuf};

fn temp(tag: &str) -> PathBuf {
    common::temp("urdf-ground", tag)
}

fn summary(dir: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(dir.join("summary.json")).unwrap()).unwrap()
}

/// The header and the rows of `trajectory.csv` (all numbers).
fn trajectory(dir: &Path) -> (Vec<String>, Vec<Vec<f64>>) {
    let text = std::fs::read_to_string(dir.join("trajectory.csv")).unwrap();
    let mut lines = text.lines();
    let header = lines.next().unwrap().split(',').map(String::from).collect();
    let rows = lines
        .map(|l| l.split(',').map(|x| x.parse().unwrap()).collect())
        .collect();
    (header, rows)
}

fn col(header: &[String], name: &str) -> usize {
    header.iter().position(|h| h == name).unwrap()
}

/// Wheel radius of diff_drive.urdf (m); the import makes each wheel a 16-sided prism.
const R: f64 = 0.1;

/// Run the diff-drive robot for 1 s under `model`; its output directory and summary.
fn diff_drive(dir: &Path, model: &str) -> (PathBuf, serde_json::Value, String) {
    let out = dir.join(model);
    let o = signorini(
        dir,
        &[
            "run",
            s(&robot("diff_drive.urdf")),
            "--model",
            model,
            "--duration",
            "1",
            "--out",
            s(&out),
        ],
    );
    assert_eq!(o.code, Some(0), "{}\n{}", o.stdout, o.stderr);
    assert!(
        o.stdout
            .contains(&format!("on the ground under {model}, 1000 steps")),
        "{}",
        o.stdout
    );
    // Standing on the ground is not the contact-free run's fall: no such warning.
    assert!(!o.stderr.contains("falls freely"), "{}", o.stderr);
    let sm = summary(&out);
    assert_eq!(sm["status"], "completed");
    assert_eq!(sm["kind"], "articulated tree on a ground plane");
    assert_eq!(sm["contact"]["model"], model);
    assert_eq!(sm["contact"]["solver_failures"], 0);
    (out, sm, o.stdout)
}

/// Each wheel centre's height at the end: between r cos(π/16) (a flat of the prism down) and r
/// (a vertex down), widened by `depth` (m) for penetration.
fn assert_on_wheels(out: &Path, depth: f64) {
    let (header, rows) = trajectory(out);
    let last = rows.last().unwrap();
    for wheel in ["z_left_wheel", "z_right_wheel"] {
        let z = last[col(&header, wheel)];
        assert!(
            z >= R * (PI / 16.0).cos() - depth && z <= R + 1e-9,
            "{wheel} = {z} m"
        );
    }
}

#[test]
fn the_diff_drive_robot_stands_on_its_wheels_under_the_lcp() {
    let dir = temp("lcp");
    let (out, sm, _) = diff_drive(&dir, "stewart-trinkle");
    assert_eq!(sm["integrator"], "semi-implicit-euler");
    // The LCP makes each active point's normal velocity at the end of a step at least −ψ/h, so a
    // point ends a step below the ground only by the second-order error of q ⊕ h v⁺ on a
    // turning link (≤ h² |ω|² r / 2 = 5e-8 m for |ω| ≤ 1 rad/s, r = 0.1 m, h = 1 ms) and the
    // solver's tolerance (1e-8, scaled); 1e-6 m bounds both with a margin. Measured 7.6e-12 m.
    let depth = sm["contact"]["max_penetration"].as_f64().unwrap();
    assert!(depth <= 1e-6, "{depth}");
    assert_on_wheels(&out, 1e-6);
    // At rest: static friction holds it where it stands (measured 1.7e-15 J after 1 s; 1e-9 J is
    // a speed of 2e-5 m/s for its 6.1 kg).
    let metrics = std::fs::read_to_string(out.join("metrics.csv")).unwrap();
    let mut lines = metrics.lines();
    assert_eq!(
        lines.next().unwrap(),
        "time,kinetic_energy,potential_energy,total_energy,step_seconds,contacts,penetrating,\
         max_penetration,limit_rows,lcp_rows,solver,solver_iterations,solver_residual,solver_failed"
    );
    let last: Vec<&str> = lines.last().unwrap().split(',').collect();
    let kinetic: f64 = last[1].parse().unwrap();
    assert!(kinetic < 1e-9, "{kinetic}");
    // The last step solved an LCP of its contacts (6 rows a point: normal, 4 friction
    // directions, the cone's slack) to the tolerance.
    let (contacts, rows): (usize, usize) = (last[5].parse().unwrap(), last[9].parse().unwrap());
    assert!(
        contacts >= 3 && rows == 6 * contacts,
        "{contacts} contacts, {rows} rows"
    );
    assert!(
        last[12].parse::<f64>().unwrap() <= 1e-8 && last[13] == "0",
        "{last:?}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_diff_drive_robot_stands_on_its_wheels_under_every_other_tree_model() {
    let dir = temp("others");
    // Constraint models (anitescu-convex: the LCP's rows per pyramid edge; peg: the
    // stewart-trinkle LCP here, its wheels against the ground being plain rows; impulse: plastic
    // impulses bring each touching point's end-of-step normal velocity to −ψ̃/h within the
    // sweeps' 1e-5 m/s): below the ground only by the second-order error of q ⊕ h v⁺ (5e-8 m,
    // the LCP test above) and the tolerance times h (1e-8 m). Measured 4e-10 and 6.5e-9 m.
    for model in ["anitescu-convex", "peg", "impulse"] {
        let (out, sm, _) = diff_drive(&dir, model);
        let depth = sm["contact"]["max_penetration"].as_f64().unwrap();
        assert!(depth <= 1e-6, "{model}: {depth}");
        assert_on_wheels(&out, 1e-6);
    }
    // One penalty law per touching pair (shared among its points): the robot's weight on at
    // least three pairs (two wheels, the caster) sinks each at most m g / (3 k) at rest, and a
    // landing from rest overshoots that by less than 3× (deepest-point's damping ratio 0.5:
    // 16 %; hunt-crossley overdamped at its impact-speed floor): m g / k bounds both. The
    // hybrid's resting contact is multi-point's, whose bound this is too (the test below).
    for model in ["deepest-point", "hunt-crossley", "hybrid"] {
        let (out, sm, _) = diff_drive(&dir, model);
        let k = sm["contact"]["stiffness"].as_f64().unwrap();
        let bound = sm["mass"].as_f64().unwrap() * 9.81 / k;
        let depth = sm["contact"]["max_penetration"].as_f64().unwrap();
        assert!(
            depth > 0.0 && depth <= bound,
            "{model}: {depth} > m g / k = {bound}"
        );
        assert_on_wheels(&out, bound);
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_diff_drive_robot_stands_on_its_wheels_under_penalty() {
    let dir = temp("penalty");
    let (out, sm, _) = diff_drive(&dir, "multi-point");
    // The robot's weight m g is shared by at least three points (two wheels and the caster),
    // each of stiffness k: at rest each sinks at most m g / (3 k); landing from rest with damping
    // ratio 0.5 overshoots that by 16 % (exp(−π ζ / √(1 − ζ²))). m g / k bounds both.
    let k = sm["contact"]["stiffness"].as_f64().unwrap();
    let m = sm["mass"].as_f64().unwrap();
    let bound = m * 9.81 / k;
    let depth = sm["contact"]["max_penetration"].as_f64().unwrap();
    assert!(depth > 0.0 && depth <= bound, "{depth} > m g / k = {bound}");
    assert_on_wheels(&out, bound);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_arm_on_a_fixed_base_runs_on_the_ground_with_its_limits_kept() {
    let dir = temp("arm");
    let out = dir.join("out");
    let o = signorini(
        &dir,
        &[
            "run",
            s(&robot("arm.urdf")),
            "--fixed-base",
            "--duration",
            "1",
            "--out",
            s(&out),
        ],
    );
    assert_eq!(o.code, Some(0), "{}\n{}", o.stdout, o.stderr);
    let sm = summary(&out);
    assert_eq!(sm["status"], "completed");
    assert_eq!(sm["base"], "fixed");
    assert_eq!(sm["contact"]["model"], "stewart-trinkle");
    // The base plate is welded: its shape cannot touch, the others can.
    assert!(sm["contact"]["welded_shapes"].as_u64().unwrap() >= 1);
    // Unactuated, the arm folds under gravity and its joints reach their limits: the limit rows
    // keep every joint within [lower, upper] (arm.urdf) to the LCP's accuracy (its rows are
    // linear in q, so only the solver's tolerance, 1e-8 scaled by |q| ≤ a few m/s, times h,
    // remains: 1e-9 bounds it).
    assert_arm_within_limits(&out);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Every limited joint of arm.urdf stays within [lower, upper] to 1e-9 over the run in `out`,
/// and some limit row was active at some step (`limit_rows` of metrics.csv).
fn assert_arm_within_limits(out: &Path) {
    let (header, rows) = trajectory(out);
    for (name, lo, hi) in ARM_LIMITS {
        let c = col(&header, name);
        for row in &rows {
            assert!(
                row[c] >= lo - 1e-9 && row[c] <= hi + 1e-9,
                "{name} = {}",
                row[c]
            );
        }
    }
    let metrics = std::fs::read_to_string(out.join("metrics.csv")).unwrap();
    let limit_rows = metrics
        .lines()
        .skip(1)
        .map(|l| l.split(',').nth(8).unwrap().parse::<usize>().unwrap())
        .max()
        .unwrap();
    assert!(limit_rows > 0, "no joint limit was ever active");
}

/// The joints of arm.urdf with limits (rad or m).
const ARM_LIMITS: [(&str, f64, f64); 4] = [
    ("q_elbow", -2.5, 2.5),
    ("q_shoulder_lift", -2.0, 2.0),
    ("q_finger_left_joint", 0.0, 0.02),
    ("q_finger_right_joint", 0.0, 0.02),
];

#[test]
fn the_arm_on_a_fixed_base_keeps_its_limits_under_penalty() {
    let dir = temp("arm-penalty");
    let out = dir.join("out");
    let o = signorini(
        &dir,
        &[
            "run",
            s(&robot("arm.urdf")),
            "--fixed-base",
            "--model",
            "multi-point",
            "--duration",
            "1",
            "--out",
            s(&out),
        ],
    );
    // Before the limits were enforced under penalty this run stopped at step 677 (the fingers
    // flew out, 1.4e3 J).
    assert_eq!(o.code, Some(0), "{}\n{}", o.stdout, o.stderr);
    let sm = summary(&out);
    assert_eq!(sm["status"], "completed");
    assert_eq!(sm["contact"]["model"], "multi-point");
    assert_eq!(sm["integrator"], "linearly-implicit-euler");
    // The penalty model's limits are rows of an LCP with the step's matrix: as under the LCP
    // model, a row linear in q leaves only the solver's tolerance (1e-8 scaled) times h.
    assert_arm_within_limits(&out);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_diff_drive_robot_comes_to_rest_without_creeping_under_penalty() {
    let dir = temp("creep");
    let out = dir.join("out");
    let o = signorini(
        &dir,
        &[
            "run",
            s(&robot("diff_drive.urdf")),
            "--model",
            "multi-point",
            "--duration",
            "10",
            "--out",
            s(&out),
        ],
    );
    assert_eq!(o.code, Some(0), "{}\n{}", o.stdout, o.stderr);
    // Unactuated on level ground it must come to rest. The explicit penalty step crept along x
    // at 5.0 mm/s for ever (friction's slope on a wheel's 0.25 kg rim mass past semi-implicit
    // Euler's bound: the wheel rate flipped sign every step, ratcheting the base). Now each
    // wheel starts on a vertex of its 16-gon (pivoting on it lowers the axle: read as an
    // unstable equilibrium, docs/multibody.md) that the landing's 0.2 mm sinking tips: the
    // robot rolls back slowly (growing as ≈ e^(0.9 t), 0.7 mm/s at 5 s) onto a flat, reached at
    // ~9 s, where it rests (measured 1e-15 m/s). Asserted: < 1e-5 m/s
    // over the last second of 10 s, and no period-2 oscillation (a few sign changes of a wheel's
    // rate, not one a step).
    let (header, rows) = trajectory(&out);
    let (t, x, y) = (
        col(&header, "time"),
        col(&header, "x_base_footprint"),
        col(&header, "y_base_footprint"),
    );
    let last = rows.last().unwrap();
    assert!((last[t] - 10.0).abs() < 1e-9, "{}", last[t]);
    let before = rows
        .iter()
        .find(|r| (r[t] - 9.0).abs() < 1e-6)
        .expect("a row at t = 9 s");
    let creep = (last[x] - before[x]).hypot(last[y] - before[y]) / 1.0;
    assert!(creep < 1e-5, "creep {creep} m/s over the last second");
    let w = col(&header, "v_left_wheel_joint");
    let flips = rows.windows(2).filter(|p| p[0][w] * p[1][w] < 0.0).count();
    assert!(flips <= 10, "the wheel's rate changed sign {flips} times");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn unsupported_models_and_parameters_exit_2_with_the_list() {
    let dir = temp("flags");
    let arm = robot("diff_drive.urdf");
    for (args, says) in [
        (
            vec!["--model", "no-such-model"],
            "the models a tree supports: stewart-trinkle (default), anitescu-potra, anitescu-convex, peg, multi-point, deepest-point, hunt-crossley, impulse, hybrid",
        ),
        (
            vec!["--model", "peg", "--param", "recovery_depth=-1"],
            "recovery_depth must be finite and >= 0",
        ),
        (
            vec!["--model", "multi-point", "--param", "stiff=3"],
            "its parameters are: stiffness, damping, omega_h, damping_ratio, slip_speed, limit_activation",
        ),
        (
            vec!["--param", "tolerance=tight"],
            "tolerance = \"tight\": must be a finite number",
        ),
        (
            vec!["--param", "friction_directions=2"],
            "must be at least 3",
        ),
        (
            vec!["--param", "friction=-1"],
            "friction = -1: must be finite and >= 0",
        ),
        (
            vec!["--no-ground", "--model", "multi-point"],
            "--model: a run without ground (--no-ground) has no contact model",
        ),
        (vec!["--height", "-0.1"], "must be finite and >= 0"),
    ] {
        let mut all = vec!["run", s(&arm), "--out", "out", "--duration", "0.01"];
        all.extend(args.iter());
        let o = signorini(&dir, &all);
        assert_eq!(o.code, Some(2), "{args:?}: {}", o.stderr);
        assert!(o.stderr.contains(says), "{args:?}: {}", o.stderr);
        assert!(!dir.join("out").exists(), "{args:?} wrote files");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_solver_failure_stops_the_run_with_the_residual_unless_told_to_continue() {
    // PGS alone cannot solve the friction LCP (its slack rows have a zero diagonal): every
    // step's solve fails.
    let dir = temp("failure");
    let out = dir.join("out");
    let dd = robot("diff_drive.urdf");
    let args = [
        "run",
        s(&dd),
        "--duration",
        "0.01",
        "--param",
        "solvers=pgs",
        "--out",
        s(&out),
    ];
    let o = signorini(&dir, &args);
    assert_eq!(o.code, Some(1), "{}\n{}", o.stdout, o.stderr);
    assert!(
        o.stderr.contains("step 1 (from t = 0 s): tree LCP of"),
        "{}",
        o.stderr
    );
    assert!(
        o.stderr.contains("residual") && o.stderr.contains("on_failure=continue"),
        "{}",
        o.stderr
    );
    assert_eq!(summary(&out)["status"], "failed");
    let mut more = args.to_vec();
    more.extend(["--param", "on_failure=continue"]);
    let o = signorini(&dir, &more);
    assert_eq!(o.code, Some(0), "{}\n{}", o.stdout, o.stderr);
    let sm = summary(&out);
    assert_eq!(sm["status"], "completed");
    assert_eq!(sm["contact"]["solver_failures"], 10);
    let metrics = std::fs::read_to_string(out.join("metrics.csv")).unwrap();
    // Every step's row: solver pgs, solver_failed 1.
    for line in metrics.lines().skip(2) {
        let fields: Vec<&str> = line.split(',').collect();
        assert_eq!((fields[10], fields[13]), ("pgs", "1"), "{line}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `signorini check` and `signorini run` on a scene with a robot (examples/robot_grasp.toml): the
/// forest is described, the arm lifts the box by friction under both tree models, no solver
/// fails, and penetrations stay within each model's bound.
#[test]
fn a_scene_with_a_robot_runs_as_a_forest_and_the_arm_lifts_the_box() {
    let dir = temp("robot-scene");
    let scene = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/robot_grasp.toml");
    let o = signorini(&dir, &["check", s(&scene)]);
    assert_eq!(o.code, Some(0), "{}\n{}", o.stdout, o.stderr);
    assert!(
        o.stdout
            .contains("1 robots and 1 bodies as a forest of 2 trees"),
        "{}",
        o.stdout
    );
    for (model, bound) in [
        ("stewart-trinkle", 1e-6),
        ("anitescu-convex", 1e-6),
        ("peg", 1e-6),
        ("multi-point", 5e-3),
        ("deepest-point", 5e-3),
        ("hunt-crossley", 5e-3),
        ("hybrid", 5e-3),
    ] {
        let out = dir.join(model);
        let args = ["run", s(&scene), "--model", model, "--out", s(&out)];
        let o = signorini(&dir, &args);
        assert_eq!(o.code, Some(0), "{model}: {}\n{}", o.stdout, o.stderr);
        let (header, rows) = trajectory(&out);
        let last = rows.last().unwrap();
        // The box's floating joint: its displacement from where the scene put it. Lifted by
        // the arm's 0.2 m less its servos' sag (a few mm; a dropped box would be at 0).
        let lift = last[col(&header, "q_box_z")];
        assert!((lift - 0.2).abs() < 0.01, "{model}: lift {lift} m");
        let sum = summary(&out);
        let contact = &sum["contact"];
        assert_eq!(contact["solver_failures"], 0, "{model}: {sum}");
        let deepest = contact["max_penetration"].as_f64().unwrap();
        assert!(deepest < bound, "{model}: {deepest} m");
    }
}

/// A floating-base robot in a scene (examples/humanoid_pushes_boxes.toml): the humanoid drives
/// into three free boxes and pushes them; every tree model runs the 4 s without a solver
/// failure; under the scene's multi-point penalty the base travels more than 1 m and the middle
/// box is pushed ahead of it, no box lifting off or sinking more than the penalty's depth.
#[test]
fn a_floating_robot_in_a_scene_pushes_free_boxes() {
    let dir = temp("humanoid-boxes");
    let scene =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/humanoid_pushes_boxes.toml");
    for model in ["multi-point", "stewart-trinkle", "anitescu-potra"] {
        let out = dir.join(model);
        let o = signorini(
            &dir,
            &["run", s(&scene), "--model", model, "--out", s(&out)],
        );
        assert_eq!(o.code, Some(0), "{model}: {}\n{}", o.stdout, o.stderr);
        assert_eq!(summary(&out)["contact"]["solver_failures"], 0, "{model}");
        if model != "multi-point" {
            continue;
        }
        let (header, rows) = trajectory(&out);
        let last = rows.last().unwrap();
        let base = last[col(&header, "q_humanoid.base_footprint_x")];
        let middle = last[col(&header, "q_box_middle_x")];
        // The wheels' rim speed bounds the base's travel: 0.5 m/s after a 0.5 s ramp, 1.875 m.
        assert!(base > 1.0 && base < 1.875, "base travelled {base} m");
        // The box, 0.55 m ahead of the base's front at the start, is pushed with it.
        assert!(middle > 0.5 && middle < base, "middle box moved {middle} m");
        for b in ["box_left", "box_middle", "box_right"] {
            let z = last[col(&header, &format!("q_{b}_z"))];
            assert!(z.abs() < 5e-3, "{b} at {z} m from its resting height");
        }
    }
}

/// `run robot.urdf --html`: `scene.json` lists the ground and every link with its collision
/// shapes, `links.csv` moves them (the same poses as `trajectory.csv`'s link columns, to the
/// bit: both are printed from one forward kinematics), `contacts.csv` holds the points within
/// the LCP's reach, and `replay.html` is written; `view` makes the page again. Without --html
/// there is nothing for the page to move (`view` says so, exit 2); --no-ground --html is refused.
#[test]
fn a_robot_run_with_html_writes_its_links_contacts_and_replay_page() {
    let dir = temp("html");
    let out = dir.join("out");
    let urdf = robot("diff_drive.urdf");
    let args = [
        "run",
        s(&urdf),
        "--duration",
        "0.2",
        "--html",
        "--out",
        s(&out),
    ];
    let o = signorini(&dir, &args);
    assert_eq!(o.code, Some(0), "{}\n{}", o.stdout, o.stderr);
    assert!(o.stdout.contains("replay.html"), "{}", o.stdout);
    assert!(out.join("replay.html").is_file());
    let scene: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("scene.json")).unwrap()).unwrap();
    assert_eq!(scene["poses"], "links.csv");
    let bodies = scene["bodies"].as_array().unwrap();
    assert_eq!(bodies[0]["name"], "ground");
    let sum = summary(&out);
    assert_eq!(bodies.len() as u64, 1 + sum["links"].as_u64().unwrap());
    let pieces: usize = bodies[1..]
        .iter()
        .map(|b| b["pieces"].as_array().unwrap().len())
        .sum();
    let shapes = sum["contact"]["shapes"].as_u64().unwrap() as usize;
    let welded = sum["contact"]["welded_shapes"].as_u64().unwrap() as usize;
    assert_eq!(pieces, shapes + welded, "every collision shape is drawn");

    // links.csv against trajectory.csv's link columns at the last output time.
    let (header, rows) = trajectory(&out);
    let last = rows.last().unwrap();
    let text = std::fs::read_to_string(out.join("links.csv")).unwrap();
    let moving: Vec<&str> = bodies[1..]
        .iter()
        .filter(|b| b["fixed"] == false)
        .map(|b| b["name"].as_str().unwrap())
        .collect();
    let final_rows: Vec<Vec<&str>> = text
        .lines()
        .skip(1)
        .map(|l| l.split(',').collect::<Vec<_>>())
        .filter(|f| f[0].parse::<f64>().unwrap() == last[0])
        .collect();
    assert_eq!(final_rows.len(), moving.len(), "one row per moving link");
    for (f, name) in final_rows.iter().zip(&moving) {
        assert_eq!(f[1], *name);
        for (k, c) in ["x", "y", "z"].iter().enumerate() {
            let from_traj = last[col(&header, &format!("{c}_{name}"))];
            assert_eq!(f[2 + k].parse::<f64>().unwrap(), from_traj, "{c}_{name}");
        }
    }
    // contacts.csv: the wheels' points within the LCP's 0.01 m activation distance, none deeper
    // than the run's max penetration.
    let contacts = std::fs::read_to_string(out.join("contacts.csv")).unwrap();
    let deepest = sum["contact"]["max_penetration"].as_f64().unwrap();
    let gaps: Vec<f64> = contacts
        .lines()
        .skip(1)
        .map(|l| l.rsplit(',').next().unwrap().parse().unwrap())
        .collect();
    assert!(gaps.len() >= 4, "{} contact rows", gaps.len());
    assert!(
        gaps.iter().all(|&g| g < 0.01 && g >= -deepest - 1e-15),
        "{gaps:?}"
    );

    std::fs::remove_file(out.join("replay.html")).unwrap();
    let o = signorini(&dir, &["view", s(&out)]);
    assert_eq!(o.code, Some(0), "{}\n{}", o.stdout, o.stderr);
    assert!(out.join("replay.html").is_file());

    let plain = dir.join("plain");
    let o = signorini(
        &dir,
        &["run", s(&urdf), "--duration", "0.01", "--out", s(&plain)],
    );
    assert_eq!(o.code, Some(0), "{}", o.stderr);
    let o = signorini(&dir, &["view", s(&plain)]);
    assert_eq!(o.code, Some(2), "{}", o.stderr);
    assert!(o.stderr.contains("`poses` is null"), "{}", o.stderr);

    let o = signorini(
        &dir,
        &["run", s(&urdf), "--no-ground", "--html", "--out", "x"],
    );
    assert_eq!(o.code, Some(2), "{}", o.stderr);
    assert!(
        o.stderr.contains("--html: a run without ground"),
        "{}",
        o.stderr
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
