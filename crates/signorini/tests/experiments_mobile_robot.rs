//! Drumwright's mobile robot (experiments::mobile_robot): 2,500 steps under penalty and under
//! Stewart–Trinkle with no failure, the robot driving forward without sinking and within its
//! wheels' rim-speed bound; the timings are
//! printed beside the paper's (`cargo test --release --test experiments_mobile_robot --
//! --nocapture`).
use signorini::experiments::mobile_robot::{
    run, Model, PAPER_LCP, PAPER_PENALTY, STEPS, TIME_STEP, WHEEL_SPEED,
};
use signorini::multibody::urdf::{self, UrdfOptions};
use std::path::Path;

#[test]
fn the_mobile_robot_drives_2500_steps_under_both_models() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/robots/diff_drive.urdf");
    let options = UrdfOptions {
        cylinder_segments: 10,
        ..Default::default()
    };
    let robot = urdf::load(&path, &options).unwrap();
    let pen = run(&robot, Model::Penalty, STEPS);
    let lcp = run(&robot, Model::StewartTrinkle, STEPS);
    for (name, r) in [("penalty", &pen), ("stewart-trinkle", &lcp)] {
        println!(
            "{name}: {} steps in {:.3} s ({:.0} steps/s), travelled {:.4} m, final base height {:.5} m, max penetration {:.3e} m, {:.2} contacts/step, final speed {:.4} m/s, wheels {:.3} rad/s",
            r.steps, r.wall_seconds, r.steps_per_second, r.distance, r.final_height, r.max_penetration, r.mean_contacts, r.final_speed, r.wheel_rate
        );
    }
    for (name, r) in [("penalty", &pen), ("stewart-trinkle", &lcp)] {
        assert_eq!(r.failure, None, "{name}");
        assert_eq!(r.steps, STEPS, "{name}");
        // It drives: the wheels' rim speed bounds the travel (0.5 m/s × 2.5 s = 1.25 m, the
        // servo starting from rest); at least half of it shows the wheels grip.
        let bound = WHEEL_SPEED * 0.1 * STEPS as f64 * TIME_STEP;
        assert!(r.distance > 0.5 * bound, "{name}: {}", r.distance);
        // No sinking: a 10-gon wheel rests 4.9 mm lower than the round one (r (1 − cos 18°))
        // and rocks by up to r (1 − cos 18°) as it rolls; anything lower than 1 cm is sinking.
        assert!(r.final_height > -0.01, "{name}: {}", r.final_height);
    }
    // Both keep within the rim bound: the wheels' servo drives them towards 5 rad/s from rest,
    // so the base cannot outrun 0.5 m/s × 2.5 s without energy entering through the contact
    // step. (The explicit penalty step travelled 1.56 m, its wheels at 5.09 rad/s: friction's
    // slope on the rim's 0.25 kg effective mass was past its stability bound.)
    let bound = WHEEL_SPEED * 0.1 * STEPS as f64 * TIME_STEP;
    for (name, r) in [("penalty", &pen), ("stewart-trinkle", &lcp)] {
        assert!(r.distance < bound, "{name}: {} m > {bound} m", r.distance);
    }
    println!(
        "ratio penalty/LCP: ours {:.2} ({:.0} vs {:.0} steps/s), paper {:.2} ({PAPER_PENALTY} vs {PAPER_LCP} steps/s)",
        pen.steps_per_second / lcp.steps_per_second,
        pen.steps_per_second,
        lcp.steps_per_second,
        PAPER_PENALTY / PAPER_LCP
    );
}
