//! Nguyen & Trinkle's non-penetration modelling error in 2D (RPI slides, 2008) and the group of
//! constraints (`planar/models/group.rs`, `experiments/planar_nguyen_trinkle.rs`): a disk against
//! segments with ends, on the bundled scenes `examples/planar_nt_segment_end.toml` and
//! `examples/planar_nt_gap.toml`. Every scene is frictionless, so the true answers are exact.
use glam::DVec2;
use signorini::contact::ParamInput;
use signorini::experiments::planar_nguyen_trinkle::{
    gap_run, segment_end_run, Throw, ACTIVATIONS, TOUCH_TOLERANCE,
};
use signorini::planar::{
    build, MassSpec, Material, PlanarBody, PlanarBodyState, PlanarModel, PlanarSettings,
    PlanarShape, PlanarState, PlanarWorld,
};
use signorini::scene::{load_planar, PlanarScene};

const G: f64 = 9.81;

fn scene(file: &str) -> PlanarScene {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples")
        .join(file);
    load_planar(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// A frictionless disk (r = 0.1 m, 1 kg) at `at` with velocity `v` over the table segment from
/// (0, 0) to (1, 0), under `activation` (recovery "full"), step `h`.
fn disk_and_table(at: DVec2, v: DVec2, h: f64, activation: &str) -> PlanarWorld {
    let table = PlanarBody::fixed(
        "table",
        PlanarShape::Segment {
            a: DVec2::ZERO,
            b: DVec2::new(1.0, 0.0),
        },
        0,
    );
    let disk = PlanarBody::dynamic(
        "disk",
        PlanarShape::Disk { radius: 0.1 },
        MassSpec::Mass(1.0),
        0,
    )
    .unwrap();
    let params = vec![
        (
            "activation".to_string(),
            ParamInput::Word(activation.into()),
        ),
        ("recovery".to_string(), ParamInput::Word("full".into())),
    ];
    PlanarWorld::new(
        PlanarModel {
            bodies: vec![table, disk],
            materials: vec![Material {
                name: "ice".into(),
                friction: 0.0,
                restitution: 0.0,
            }],
            settings: PlanarSettings {
                time_step: h,
                duration: 1.0,
                gravity: DVec2::new(0.0, -G),
                ..PlanarSettings::default()
            },
        },
        PlanarState {
            time: 0.0,
            bodies: vec![
                PlanarBodyState::at_rest(DVec2::ZERO, 0.0),
                PlanarBodyState {
                    position: at,
                    angle: 0.0,
                    velocity: v,
                    angular_velocity: 0.0,
                },
            ],
        },
        build("stewart-trinkle", &params).unwrap(),
    )
}

/// A disk 5 cm past the table's end at contact height of the table's line, at rest: the true
/// closest feature is the end point, 1.18 cm away, so the disk falls freely for the step. The
/// exploratory solve (every possible constraint) holds it on the segment's infinite line; the
/// group method finds that line is not the correct constraint at the end pose and drops it.
#[test]
fn group_drops_the_infinite_line_past_the_segment_end() {
    let h = 0.01;
    let at = DVec2::new(1.05, 0.1);
    let mut group = disk_and_table(at, DVec2::ZERO, h, "group");
    let report = group.step().unwrap();
    let stats = report.group.expect("group counts");
    assert_eq!(stats.groups, 1);
    assert_eq!(stats.members, 3, "the segment's line and both end points");
    assert!(stats.active >= 1 && stats.dropped >= 1, "{stats:?}");
    let v = group.state.bodies[1].velocity;
    assert!((v.y + G * h).abs() <= 1e-12, "free fall: vy = {} m/s", v.y);
    assert!(v.x.abs() <= 1e-12);

    let mut exploratory = disk_and_table(at, DVec2::ZERO, h, "exploratory");
    exploratory.step().unwrap();
    let v = exploratory.state.bodies[1].velocity;
    assert!(
        v.y.abs() <= 1e-12,
        "the infinite line holds it: vy = {} m/s",
        v.y
    );
}

/// Resting in the middle of the table, the group's correct constraint is the line, linearized at
/// the start: rest holds exactly.
#[test]
fn resting_disk_holds_under_group_activation() {
    let at = DVec2::new(0.5, 0.1);
    let mut w = disk_and_table(at, DVec2::ZERO, 1e-3, "group");
    for _ in 0..1000 {
        w.step().unwrap();
    }
    let s = &w.state.bodies[1];
    assert!((s.position - at).length() <= 1e-12, "{:?}", s.position);
    assert!(s.velocity.length() <= 1e-12);
}

/// The landing throw at u = 8 m/s, h = 20 ms: the step that crosses the table's end starts with
/// the end point as the closest feature, and type 2 linearizes that point's constraint there
/// (its half-plane tilted back towards the throw), which pushes the disk back although its true
/// path clears the corner by 1.18 cm. The group method finds the table's line correct at the end
/// pose: no horizontal impulse, the exact final position.
#[test]
fn group_lands_past_the_corner_without_a_spurious_impulse() {
    let s = scene("planar_nt_segment_end.toml");
    let group = segment_end_run(&s, Throw::Landing, 8.0, 0.02, "group").unwrap();
    assert!(group.clearance > 0.01, "the true path clears the corner");
    assert!(group.failure.is_none());
    assert!(group.vx_error <= 1e-12, "|dvx| = {}", group.vx_error);
    assert!(
        group.position_error() <= 1e-12,
        "{}",
        group.position_error()
    );
    assert!(group.max_penetration <= 1e-12);
    assert!(group.group.switched >= 1);
    let type2 = segment_end_run(&s, Throw::Landing, 8.0, 0.02, "anticipating").unwrap();
    assert!(
        type2.vx_error > 0.05,
        "type 2's corner impulse: {}",
        type2.vx_error
    );
    assert!(type2.position_error() > 0.01);
}

/// Both throws at every speed and step: the group method never keeps a wrong constraint, so the
/// disk lands on the table or passes the end to the floor exactly as its true path, without
/// penetration; the exploratory solve's infinite line catches the miss throw at h = 20 ms.
#[test]
fn group_follows_the_true_path_past_the_segment_end() {
    let s = scene("planar_nt_segment_end.toml");
    for throw in [Throw::Landing, Throw::Miss] {
        for u in [1.0, 2.0, 4.0, 8.0] {
            for h in [0.001, 0.005, 0.02] {
                let r = segment_end_run(&s, throw, u, h, "group").unwrap();
                assert!(r.clearance > 0.0);
                assert!(
                    r.correct(),
                    "{} u = {u} h = {h}: ended on {}",
                    throw.name(),
                    r.outcome
                );
                assert!(
                    r.position_error() <= 1e-12 && r.vx_error <= 1e-12,
                    "{} u = {u} h = {h}: error {} m, dvx {} m/s",
                    throw.name(),
                    r.position_error(),
                    r.vx_error
                );
                assert!(r.max_penetration <= 1e-12);
            }
        }
    }
    let caught = segment_end_run(&s, Throw::Miss, 4.0, 0.02, "exploratory").unwrap();
    assert!(
        caught.position_error() > 0.05,
        "{}",
        caught.position_error()
    );
}

/// Type 1 admits a contact only once the disk penetrates, so the first contact step ends up to
/// one step's approach deep: positive, bounded by h (v_impact + g h), and growing with v h
/// (the slides' "error proportional to relative velocity and time step"). Type 2 and the group
/// method keep it at rounding.
#[test]
fn type_1_penetration_is_bounded_by_the_approach_in_a_step() {
    let s = scene("planar_nt_gap.toml");
    // The disk starts 0.4 m up and touches both ends with its centre at 0.08 m.
    let drop = 0.4 - 0.08;
    let mut worst_small: f64 = 0.0;
    let mut worst_large: f64 = 0.0;
    for v in [1.0, 10.0] {
        for h in [0.002, 0.02] {
            let impact = (v * v + 2.0 * G * drop).sqrt();
            let r = gap_run(&s, v, h, "penetrating").unwrap();
            assert!(r.max_penetration > 0.0);
            assert!(
                r.max_penetration <= h * (impact + G * h) * (1.0 + 1e-9),
                "v = {v} h = {h}: {} m",
                r.max_penetration
            );
            if v * h < 0.01 {
                worst_small = worst_small.max(r.max_penetration);
            } else if v * h > 0.1 {
                worst_large = worst_large.max(r.max_penetration);
            }
            for a in ["anticipating", "group"] {
                let r = gap_run(&s, v, h, a).unwrap();
                assert!(
                    r.max_penetration <= 1e-12,
                    "{a} v = {v} h = {h}: {}",
                    r.max_penetration
                );
            }
        }
    }
    assert!(
        worst_large > 10.0 * worst_small,
        "{worst_small} → {worst_large}"
    );
}

/// The disk thrown onto the gap comes to rest centred in it touching both inner ends, under the
/// group method at every speed and step; the exploratory solve holds it on the two segments'
/// lines, r − 0.08 = 2 cm above the true rest.
#[test]
fn disk_comes_to_rest_in_the_gap_touching_both_ends() {
    let s = scene("planar_nt_gap.toml");
    for v in [1.0, 2.0, 5.0, 10.0] {
        for h in [0.001, 0.005, 0.02] {
            let r = gap_run(&s, v, h, "group").unwrap();
            assert_eq!(r.outcome, "in the gap", "v = {v} h = {h}");
            assert!(r.touching_both(), "v = {v} h = {h}: gaps {:?}", r.gaps);
            assert!(r.gaps.iter().all(|g| *g >= -1e-12));
            assert!(r.position_error() <= 1e-12, "{}", r.position_error());
            assert!(r.speed_end <= 1e-12);
            assert!(
                r.group.dropped > 0,
                "the lines are active in every exploratory solve"
            );
            let x = gap_run(&s, v, h, "exploratory").unwrap();
            assert_eq!(x.outcome, "held above the gap");
            assert!((x.end.y - 0.1).abs() <= 1e-9 && (x.position_error() - 0.02).abs() <= 1e-9);
        }
    }
    assert!(TOUCH_TOLERANCE <= 1e-6);
}

/// The disk of `examples/planar_disk_segment.toml` rolls at 2 m/s off the table's end (x = 1 m,
/// reached at t = 0.75 s): under the group method it leaves the table and falls, as under type 2;
/// at t = 1 s its height is the free fall from the end, r − g (0.25 s)²/2, within semi-implicit
/// Euler's offset g h t/2 ≈ 1.2e-3 m.
#[test]
fn rolling_disk_leaves_the_segment_end_under_group_activation() {
    let s = scene("planar_disk_segment.toml");
    let run = |activation: &str| {
        let params = vec![(
            "activation".to_string(),
            ParamInput::Word(activation.into()),
        )];
        let mut w = PlanarWorld::new(
            s.model.clone(),
            s.initial.clone(),
            build("stewart-trinkle", &params).unwrap(),
        );
        while w.state.time < 1.0 - 1e-9 {
            w.step().unwrap();
        }
        w.state.bodies[2].position
    };
    let (group, type2) = (run("group"), run("anticipating"));
    let free_fall = 0.1 - 0.5 * G * 0.25 * 0.25;
    assert!(
        (group.y - free_fall).abs() <= 2e-3,
        "{group:?} against y = {free_fall} m"
    );
    assert!((group.x - 1.5).abs() <= 1e-9, "{group:?}");
    assert!((group - type2).length() <= 1e-9, "{group:?} vs {type2:?}");
}

/// Every activation runs on both scenes in the experiment's quick setting with sane figures;
/// two runs are identical; bad arguments are errors, not panics.
#[test]
fn experiment_functions_run_and_check_their_input() {
    let end = scene("planar_nt_segment_end.toml");
    let gap = scene("planar_nt_gap.toml");
    for a in ACTIVATIONS {
        for h in [0.005, 0.02] {
            let r = segment_end_run(&end, Throw::Miss, 2.0, h, a).unwrap();
            assert!(r.failure.is_none() && r.end.is_finite() && r.max_penetration >= 0.0);
            assert_eq!(r.path.len(), 1 + (0.6 / h).round() as usize);
            let again = segment_end_run(&end, Throw::Miss, 2.0, h, a).unwrap();
            assert_eq!(r, again, "deterministic");
            let g = gap_run(&gap, 2.0, h, a).unwrap();
            assert!(g.failure.is_none() && g.end.is_finite());
            assert!((g.rest - DVec2::new(0.0, 0.08)).length() <= 1e-15);
        }
    }
    let bad = [
        segment_end_run(&end, Throw::Landing, 2.0, 0.0, "group").map(|_| ()),
        segment_end_run(&end, Throw::Landing, -1.0, 0.01, "group").map(|_| ()),
        segment_end_run(&end, Throw::Landing, 2.0, 0.01, "type-3").map(|_| ()),
        segment_end_run(&gap, Throw::Landing, 2.0, 0.01, "group").map(|_| ()),
        gap_run(&end, 2.0, 0.01, "group").map(|_| ()),
    ];
    for (i, b) in bad.iter().enumerate() {
        let e = b.as_ref().expect_err("bad input").to_string();
        assert!(!e.is_empty(), "case {i}");
    }
    let e = build(
        "stewart-trinkle",
        &[("activation".to_string(), ParamInput::Word("groups".into()))],
    )
    .err()
    .expect("an unknown activation")
    .to_string();
    assert!(e.contains("activation") && e.contains("group"), "{e}");
}
