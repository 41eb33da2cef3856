//! Drumwright's humanoid (experiments::humanoid): a 26-degree-of-freedom robot on a
//! differential-drive base, 2,500 steps under penalty and under Stewart–Trinkle with no failure,
//! driving forward within its wheels' rim-speed bound while its upper body moves; the timings
//! are printed beside the paper's (`cargo test --release --test experiments_humanoid --
//! --nocapture`).
use signorini::experiments::humanoid::{
    travel_bound, Humanoid, HumanoidRun, Model, PAPER_LCP, PAPER_PENALTY, SERVO_OMEGA, SERVO_ZETA,
    STEPS,
};
use signorini::multibody::algorithms::crba;
use signorini::multibody::urdf::{self, UrdfOptions, UrdfRobot};
use signorini::multibody::Workspace;
use std::path::Path;

fn robot() -> UrdfRobot {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/robots/humanoid.urdf");
    let options = UrdfOptions {
        cylinder_segments: 10,
        ..Default::default()
    };
    urdf::load(&path, &options).unwrap()
}

fn print(name: &str, r: &HumanoidRun) {
    println!(
        "{name}: {} steps in {:.3} s ({:.0} steps/s), travelled {:.4} m (lateral {:.4}), height {:.5} m, max tilt {:.4} rad, tracking rms {:.3e} max {:.3e} rad ({}), heading {:.4} rad, wheels {:.3} rad/s, max penetration {:.3e} m, {:.2} contacts/step, largest LCP {}",
        r.steps, r.wall_seconds, r.steps_per_second, r.distance, r.lateral, r.final_height, r.max_tilt,
        r.tracking_rms, r.tracking_max, r.worst_joint, r.heading, r.wheel_rate, r.max_penetration, r.mean_contacts, r.max_lcp_rows
    );
}

#[test]
fn the_humanoid_starts_on_its_targets_with_gains_from_its_joint_inertia() {
    let robot = robot();
    let humanoid = Humanoid::new(&robot).unwrap();
    let (q, v) = humanoid.initial_state();
    // The base at the origin, upright, at rest; 26 degrees of freedom.
    assert_eq!(&q[..7], &[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0]);
    assert!(v[..6].iter().all(|&x| x == 0.0));
    // Critically damped at ω on the joint's own inertia H_jj (CRBA at the initial pose):
    // k_p = ω² H_jj, k_d = 2 ζ ω H_jj.
    let mut ws = Workspace::new(&robot.tree);
    let h = crba(&robot.tree, &mut ws, q).unwrap();
    let gains = humanoid.gains();
    assert_eq!(gains.len(), 18);
    for (name, j, kp, kd) in gains {
        let w = SERVO_OMEGA;
        assert!(h[(j, j)] > 0.0, "{name}");
        assert!((kp - w * w * h[(j, j)]).abs() <= 1e-12 * kp, "{name}: {kp}");
        assert!(
            (kd - 2.0 * SERVO_ZETA * w * h[(j, j)]).abs() <= 1e-12 * kd,
            "{name}: {kd}"
        );
    }
}

#[test]
fn a_robot_without_the_humanoids_joints_is_refused_by_name() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/robots/diff_drive.urdf");
    let robot = urdf::load(&path, &UrdfOptions::default()).unwrap();
    let err = Humanoid::new(&robot).err().unwrap();
    assert!(
        err.contains("waist_yaw") && err.contains("diff_drive"),
        "{err}"
    );
}

#[test]
fn the_humanoid_drives_2500_steps_under_both_models() {
    let robot = robot();
    assert_eq!((robot.tree.nv(), robot.tree.nq()), (26, 27));
    let humanoid = Humanoid::new(&robot).unwrap();
    let pen = humanoid.run(Model::Penalty, STEPS);
    let lcp = humanoid.run(Model::StewartTrinkle, STEPS);
    print("penalty", &pen);
    print("stewart-trinkle", &lcp);
    let bound = travel_bound(STEPS);
    for (name, r) in [("penalty", &pen), ("stewart-trinkle", &lcp)] {
        assert_eq!(r.failure, None, "{name}");
        assert_eq!(r.steps, STEPS, "{name}");
        // It drives: the wheels' rim speed bounds the travel (r ∫ ω* dt = 1.125 m: the target
        // ramps over 0.5 s, then 0.5 m/s); more than half of it shows the wheels grip, more
        // than all of it would be energy entering through the contact step.
        let travel = r.distance.hypot(r.lateral);
        assert!(
            travel > 0.5 * bound && travel < bound,
            "{name}: {travel} m of {bound} m"
        );
        // Upright: on two wheels and two casters 0.4 m apart the base tilts only by the 10-gon
        // wheels' bumps (r (1 − cos 18°) = 4.9 mm over 0.2 m: 0.025 rad); 0.05 rad is one
        // caster 2 cm off the ground, the start of a fall.
        assert!(r.max_tilt < 0.05, "{name}: tilt {} rad", r.max_tilt);
        // No sinking: a 10-gon wheel rests up to 4.9 mm lower than the round one.
        assert!(r.final_height > -0.01, "{name}: {}", r.final_height);
        // The servos follow: with the inverse dynamics fed forward, what is left is the base's
        // own accelerations (not fed forward) on a 25 rad/s servo, a few hundredths of a radian
        // at the 0.4 kg hand (measured: rms 9e-3, largest 4–6e-2 rad at a wrist). A servo
        // that lost its target — a joint on its limit, a step gone wrong — is off by more.
        assert!(r.tracking_rms < 0.02, "{name}: rms {} rad", r.tracking_rms);
        assert!(
            r.tracking_max < 0.1,
            "{name}: {} rad at {}",
            r.tracking_max,
            r.worst_joint
        );
    }
    // Penetration: the LCP keeps the contacts to its tolerance (issue 16's 1e-6 m for
    // constraint models); the penalty model rests at W / (n k) ≈ 0.3 mm on three points of
    // its default stiffness, deeper while the base rocks, within issue 16's 5 mm for force
    // models.
    assert!(lcp.max_penetration < 1e-6, "{}", lcp.max_penetration);
    assert!(pen.max_penetration < 5e-3, "{}", pen.max_penetration);
    // The two models drive the same robot the same way: their travels agree to 10 % (the
    // penalty model's friction is regularized below 0.01 m/s of slip, the LCP's is exact).
    let (tp, tl) = (
        pen.distance.hypot(pen.lateral),
        lcp.distance.hypot(lcp.lateral),
    );
    assert!((tp - tl).abs() < 0.1 * tl, "penalty {tp} m, LCP {tl} m");
    println!(
        "ratio penalty/LCP: ours {:.2} ({:.0} vs {:.0} steps/s), paper {:.2} ({PAPER_PENALTY} vs {PAPER_LCP} steps/s)",
        pen.steps_per_second / lcp.steps_per_second,
        pen.steps_per_second,
        lcp.steps_per_second,
        PAPER_PENALTY / PAPER_LCP
    );
}
