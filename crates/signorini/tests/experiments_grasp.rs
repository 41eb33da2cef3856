//! A manipulator from URDF grasps a box and lifts it (experiments::grasp): contact between a
//! robot's links and a free body under both tree contact models.
use signorini::experiments::grasp::{reach, steps, Grasp, GraspRun, Model, LIFT};
use signorini::multibody::urdf::{self, UrdfOptions, UrdfRobot};
use std::path::Path;

fn robot() -> UrdfRobot {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/robots/gripper_arm.urdf");
    let options = UrdfOptions {
        floating_base: false,
        ..Default::default()
    };
    urdf::load(&path, &options).unwrap()
}

fn print(name: &str, r: &GraspRun) {
    println!(
        "{name}: {} steps in {:.3} s ({:.0} steps/s), lift {:.5} m, slip {:.3e} m, box tilt {:.3e} rad, max penetration {:.3e} m, {:.2} contacts/step, largest LCP {}, failure {:?}",
        r.steps, r.wall_seconds, r.steps_per_second, r.lift, r.slip, r.box_tilt, r.max_penetration, r.mean_contacts, r.max_lcp_rows, r.failure
    );
}

#[test]
fn the_arm_lifts_the_box_under_both_models() {
    let robot = robot();
    let grasp = Grasp::new(&robot).unwrap();
    let pen = grasp.run(Model::Penalty, steps());
    let lcp = grasp.run(Model::StewartTrinkle, steps());
    print("penalty", &pen);
    print("stewart-trinkle", &lcp);
    for (name, r) in [("penalty", &pen), ("stewart-trinkle", &lcp)] {
        assert_eq!(r.failure, None, "{name}");
        assert_eq!(r.steps, steps(), "{name}");
        // Lifted: the grasp centre rises by LIFT; the arm's servos (25 rad/s, the box's
        // 0.98 N not fed forward) sag under it by about load × lever / k_p ≈ 1 N × 0.35 m /
        // 94 N m/rad × 0.35 m at the shoulder, a few millimetres with the elbow's. A box left on
        // the ground or dropped has lift ≈ 0.
        assert!((r.lift - LIFT).abs() < 0.01, "{name}: lift {} m", r.lift);
        // Upright in the fingers: two parallel pads hold it face on.
        assert!(r.box_tilt < 0.05, "{name}: tilt {} rad", r.box_tilt);
    }
    // Held by friction: the LCP's static friction keeps the pads' contact points on the box,
    // which can only turn in the grip about the axis through the two pads (the hand's path in
    // joint space swings it); a tilt θ moves its centre, 1.5 cm below the grasp centre, by
    // about 1.5 cm × θ: 0.3 mm at the measured 0.019 rad (2e-5 m with the servos explicit,
    // tilt 0.009 rad). A box sliding out of the fingers moves by centimetres. The penalty
    // model's friction is a damper below the slip speed ε = 0.01 m/s, so the box creeps at
    // ε × weight / (2 μ × squeeze) ≈ 0.01 × 0.98 / 10 = 1 mm/s over the 2 s of lift and hold.
    assert!(lcp.slip < 1e-3, "{}", lcp.slip);
    assert!(pen.slip < 5e-3, "{}", pen.slip);
    // The box rests on the ground, then in the fingers, within the LCP's tolerance.
    assert!(lcp.max_penetration < 1e-6, "{}", lcp.max_penetration);
}

#[test]
fn without_friction_the_fingers_cannot_lift_the_box() {
    let robot = robot();
    let mut grasp = Grasp::new(&robot).unwrap();
    grasp.set_grip_friction(0.0);
    let r = grasp.run(Model::StewartTrinkle, steps());
    print("stewart-trinkle, frictionless grip", &r);
    assert_eq!(r.failure, None);
    // The pads press on vertical faces: with μ = 0 nothing carries the box's weight upward,
    // and it stays on the ground (or falls back onto it) within the LCP's tolerance.
    assert!(r.lift.abs() < 1e-3, "lift {} m", r.lift);
}

#[test]
fn the_inverse_kinematics_puts_the_wrist_where_asked_with_the_hand_down() {
    // θ from the vertical towards +x: wrist − shoulder = L1 (sin θ1, cos θ1) + L2 (sin(θ1 +
    // θ2), cos(θ1 + θ2)), shoulder 0.18 m up, L1 = 0.3, L2 = 0.25 (gripper_arm.urdf).
    for (x, z) in [(0.35, 0.1), (0.35, 0.3), (0.2, 0.4), (0.45, 0.05)] {
        let [t1, t2, t3] = reach(x, z).unwrap();
        let (px, pz) = (
            0.3 * t1.sin() + 0.25 * (t1 + t2).sin(),
            0.18 + 0.3 * t1.cos() + 0.25 * (t1 + t2).cos(),
        );
        assert!(
            (px - x).abs() < 1e-12 && (pz - z).abs() < 1e-12,
            "({x}, {z}): ({px}, {pz})"
        );
        assert!((t1 + t2 + t3 - std::f64::consts::PI).abs() < 1e-12);
    }
    assert_eq!(reach(0.6, 0.18), None);
}
