//! URDF import (`multibody::urdf`): the three robots written for the tests (examples/robots/: a
//! double pendulum hanging from the world, a differential-drive base, a six-joint arm with a
//! gripper) load into the trees their files describe — link order, degrees of freedom, masses,
//! joint frames from xyz/rpy, inertias rotated and merged, collision shapes, warnings — checked
//! against hand-computed values, and the double pendulum's mass matrix against the analytic one;
//! malformed files are errors naming the file, the line and the element, never panics.
use signorini::geometry::{Pose, Shape};
use signorini::multibody::algorithms::{crba, forward_kinematics, potential_energy};
use signorini::multibody::urdf::{self, UrdfError, UrdfOptions, UrdfRobot};
use signorini::multibody::{JointKind, Workspace};
use signorini::{DMat3, DVec3};
use std::path::{Path, PathBuf};

fn robots_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/robots")
}

fn load(name: &str, options: &UrdfOptions) -> UrdfRobot {
    let path = robots_dir().join(name);
    urdf::load(&path, options).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn names(robot: &UrdfRobot) -> Vec<&str> {
    robot.tree.links().iter().map(|l| l.name.as_str()).collect()
}

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol * (1.0 + a.abs().max(b.abs()))
}

fn assert_vec(a: DVec3, b: DVec3, tol: f64, what: &str) {
    assert!((a - b).abs().max_element() <= tol, "{what}: {a} vs {b}");
}

fn assert_mat(a: DMat3, b: DMat3, tol: f64, what: &str) {
    let d = (a - b)
        .to_cols_array()
        .iter()
        .fold(0.0f64, |m, x| m.max(x.abs()));
    assert!(d <= tol, "{what}: {a} vs {b}");
}

fn rot_x(a: f64) -> DMat3 {
    let (s, c) = a.sin_cos();
    DMat3::from_cols_array(&[1.0, 0.0, 0.0, 0.0, c, s, 0.0, -s, c])
}

fn rot_y(a: f64) -> DMat3 {
    let (s, c) = a.sin_cos();
    DMat3::from_cols_array(&[c, 0.0, -s, 0.0, 1.0, 0.0, s, 0.0, c])
}

fn rot_z(a: f64) -> DMat3 {
    let (s, c) = a.sin_cos();
    DMat3::from_cols_array(&[c, s, 0.0, -s, c, 0.0, 0.0, 0.0, 1.0])
}

/// The bounds (min, max) of a polytope's vertices in its own frame.
fn bounds(shape: &Shape) -> (DVec3, DVec3, usize) {
    let Shape::Polytope(p) = shape else {
        panic!("not a polytope: {shape:?}")
    };
    let lo = p
        .vertices
        .iter()
        .fold(DVec3::splat(f64::INFINITY), |a, v| a.min(*v));
    let hi = p
        .vertices
        .iter()
        .fold(DVec3::splat(f64::NEG_INFINITY), |a, v| a.max(*v));
    (lo, hi, p.vertices.len())
}

// ---------------------------------------------------------------------------------------------
// The double pendulum

/// Rod lengths, masses and inertias about the centre of mass (about the hinge axis y) as written
/// in examples/robots/double_pendulum.urdf.
const L1: f64 = 1.0;
const M1: f64 = 1.0;
const I1: f64 = 0.08343333333333333;
const M2: f64 = 0.5;
const LC2: f64 = 0.4;
const I2: f64 = 0.026716666666666667;

#[test]
fn the_double_pendulum_hangs_from_the_world_on_two_hinges() {
    let r = load("double_pendulum.urdf", &UrdfOptions::default());
    assert_eq!(r.name, "double_pendulum");
    assert_eq!(names(&r), ["upper_rod", "lower_rod"]);
    assert_eq!((r.tree.nq(), r.tree.nv()), (2, 2));
    let [upper, lower] = r.tree.links() else {
        panic!("two links")
    };
    // `world` is the world: the shoulder hangs from it, whatever floating_base says.
    assert_eq!((upper.parent, lower.parent), (None, Some(0)));
    assert_eq!(upper.joint, JointKind::Revolute { axis: DVec3::Y });
    assert_eq!(
        upper.joint_frame,
        Pose::new(DVec3::new(0.0, 0.0, 2.0), Default::default())
    );
    assert_eq!(lower.joint_frame.translation, DVec3::new(0.0, 0.0, -1.0));
    // continuous: no limits; revolute: its <limit>; damping from <dynamics>.
    assert_eq!((upper.limits, lower.limits), (None, Some((-2.5, 2.5))));
    assert_eq!((upper.damping, lower.damping), (0.0, 0.05));
    assert_eq!(
        (upper.com, lower.com),
        (DVec3::new(0.0, 0.0, -0.5), DVec3::new(0.0, 0.0, -0.4))
    );
    assert!(close(r.mass(), 1.5, 1e-15));
    let kinds: Vec<_> = r.collisions.iter().map(|c| (c.link, c.geometry)).collect();
    assert_eq!(kinds, [(0, "cylinder"), (1, "cylinder"), (1, "sphere")]);
    assert_eq!(r.collisions[2].pose.translation, DVec3::new(0.0, 0.0, -0.8));
    assert_eq!(r.collisions[2].shape, Shape::Sphere { radius: 0.05 });
    // The cylinder: 16 sides by default, its axis along z, 1 m long.
    let (lo, hi, n) = bounds(&r.collisions[0].shape);
    assert_eq!(n, 32);
    assert!(close(lo.z, -0.5, 1e-12) && close(hi.z, 0.5, 1e-12) && close(hi.x, 0.02, 1e-12));
    assert!(r.warnings.is_empty(), "{:?}", r.warnings);
    assert_eq!(r.frames[0].link, None, "world is carried by the world");
    let world = r.joints.iter().find(|j| j.name == "elbow").unwrap();
    assert_eq!(
        (world.link, world.effort_limit, world.velocity_limit),
        (Some(1), Some(10.0), Some(20.0))
    );
}

/// H(q) of two rods on parallel hinges: H₁₁ = I₁ + I₂ + m₁ l_c1² + m₂ (l₁² + l_c2² + 2 l₁ l_c2
/// cos q₂), H₁₂ = I₂ + m₂ (l_c2² + l₁ l_c2 cos q₂), H₂₂ = I₂ + m₂ l_c2² (I about the centres of
/// mass, about the hinge axis). The potential energy at q = 0 is g Σ m z_com.
#[test]
fn the_double_pendulum_mass_matrix_is_the_analytic_one() {
    let r = load("double_pendulum.urdf", &UrdfOptions::default());
    let mut ws = Workspace::new(&r.tree);
    let lc1 = L1 / 2.0;
    for q2 in [0.0, 0.7, -2.1, std::f64::consts::FRAC_PI_2, 3.0] {
        let c = q2.cos();
        let h11 = I1 + I2 + M1 * lc1 * lc1 + M2 * (L1 * L1 + LC2 * LC2 + 2.0 * L1 * LC2 * c);
        let h12 = I2 + M2 * (LC2 * LC2 + L1 * LC2 * c);
        let h22 = I2 + M2 * LC2 * LC2;
        let h = crba(&r.tree, &mut ws, &[0.3, q2]).unwrap();
        for (got, want) in [
            (h[(0, 0)], h11),
            (h[(0, 1)], h12),
            (h[(1, 0)], h12),
            (h[(1, 1)], h22),
        ] {
            assert!(close(got, want, 1e-13), "q2 = {q2}: {got} vs {want}");
        }
    }
    let v = potential_energy(&r.tree, &mut ws, &[0.0, 0.0]).unwrap();
    assert!(close(v, 9.81 * (M1 * 1.5 + M2 * 0.6), 1e-14), "{v}");
}

// ---------------------------------------------------------------------------------------------
// The differential-drive base

#[test]
fn the_diff_drive_base_is_one_floating_link_with_two_wheels() {
    let r = load("diff_drive.urdf", &UrdfOptions::default());
    // base_footprint (no inertial), base_link and caster (fixed joints) are one link.
    assert_eq!(names(&r), ["base_footprint", "left_wheel", "right_wheel"]);
    let kinds: Vec<_> = r.tree.links().iter().map(|l| l.joint).collect();
    let wheel = JointKind::Revolute { axis: DVec3::Z };
    assert_eq!(kinds, [JointKind::Floating, wheel, wheel]);
    assert_eq!((r.tree.nq(), r.tree.nv()), (9, 8));
    assert!(close(r.mass(), 6.1, 1e-15));
    // The merged inertial: the body (5 kg at z = 0.1) and the caster (0.1 kg at (-0.15, 0,
    // 0.05)) about their common centre of mass, by the parallel-axis theorem.
    let base = &r.tree.links()[0];
    let (mb, cb, mc, cc) = (
        5.0,
        DVec3::new(0.0, 0.0, 0.1),
        0.1,
        DVec3::new(-0.15, 0.0, 0.05),
    );
    let com = (mb * cb + mc * cc) / (mb + mc);
    assert!(close(base.mass, 5.1, 1e-15));
    assert_vec(base.com, com, 1e-15, "merged centre of mass");
    let shift = |m: f64, d: DVec3| {
        m * DMat3::from_cols_array(&[
            d.y * d.y + d.z * d.z,
            -d.x * d.y,
            -d.x * d.z,
            -d.x * d.y,
            d.x * d.x + d.z * d.z,
            -d.y * d.z,
            -d.x * d.z,
            -d.y * d.z,
            d.x * d.x + d.y * d.y,
        ])
    };
    let body = DMat3::from_diagonal(DVec3::new(
        0.041666666666666664,
        0.07083333333333333,
        0.10416666666666667,
    ));
    let expected =
        body + shift(mb, cb - com) + DMat3::from_diagonal(DVec3::splat(1e-4)) + shift(mc, cc - com);
    assert_mat(base.inertia, expected, 1e-16, "merged inertia");
    // The wheels hang from the body frame, 0.1 m above the footprint; rpy (-90°, 0, 0) turns the
    // joint axis z onto the body's +y.
    let left = &r.tree.links()[1];
    assert_vec(
        left.joint_frame.translation,
        DVec3::new(0.05, 0.175, 0.1),
        1e-15,
        "left wheel",
    );
    assert_eq!((left.damping, left.limits), (0.01, None));
    let mut ws = Workspace::new(&r.tree);
    let q = r.tree.neutral_q();
    let kin = forward_kinematics(&r.tree, &mut ws, &q, &[0.0; 8]).unwrap();
    for (i, y) in [(1, 1.0), (2, 1.0)] {
        assert_vec(
            kin[i].rotation * DVec3::Z,
            DVec3::new(0.0, y, 0.0),
            1e-15,
            "wheel axis",
        );
    }
    // Collisions, in file order, on the link that carries them, in its frame.
    let c: Vec<_> = r
        .collisions
        .iter()
        .map(|c| (c.geometry, c.link, c.urdf_link.as_str()))
        .collect();
    assert_eq!(
        c,
        [
            ("box", 0, "base_link"),
            ("cylinder", 1, "left_wheel"),
            ("cylinder", 2, "right_wheel"),
            ("sphere", 0, "caster")
        ]
    );
    assert_eq!(r.collisions[0].pose.translation, DVec3::new(0.0, 0.0, 0.1));
    assert_vec(
        r.collisions[3].pose.translation,
        DVec3::new(-0.15, 0.0, 0.05),
        1e-16,
        "caster",
    );
    // Where the merged URDF links went, and which joints still move a link.
    let frame = |n: &str| r.frames.iter().find(|f| f.name == n).unwrap();
    assert_eq!(
        (frame("base_link").link, frame("base_link").pose.translation),
        (Some(0), DVec3::new(0.0, 0.0, 0.1))
    );
    assert_eq!(frame("caster").link, Some(0));
    let joints: Vec<_> = r
        .joints
        .iter()
        .map(|j| (j.name.as_str(), j.urdf_type, j.link))
        .collect();
    assert_eq!(
        joints,
        [
            ("base_joint", "fixed", None),
            ("left_wheel_joint", "continuous", Some(1)),
            ("right_wheel_joint", "continuous", Some(2)),
            ("caster_joint", "fixed", None)
        ]
    );
    // <transmission> and <gazebo> are named with their lines; <visual> and <material> are silent.
    assert_eq!(r.warnings.len(), 2, "{:?}", r.warnings);
    let text = std::fs::read_to_string(robots_dir().join("diff_drive.urdf")).unwrap();
    for (w, tag) in r.warnings.iter().zip(["<transmission", "<gazebo"]) {
        let line = text
            .lines()
            .position(|l| l.trim_start().starts_with(tag))
            .unwrap()
            + 1;
        assert!(
            w.contains(&format!("diff_drive.urdf:{line}: {tag}>")),
            "{w}"
        );
        assert!(w.contains("ignored"), "{w}");
    }
}

// ---------------------------------------------------------------------------------------------
// The arm

fn fixed_base() -> UrdfOptions {
    UrdfOptions {
        floating_base: false,
        ..Default::default()
    }
}

#[test]
fn the_arm_on_a_fixed_base_has_eight_joints_in_file_order() {
    let r = load("arm.urdf", &fixed_base());
    assert_eq!(
        names(&r),
        [
            "base_link",
            "shoulder_link",
            "upper_arm",
            "forearm",
            "wrist_1_link",
            "wrist_2_link",
            "wrist_3_link",
            "finger_left",
            "finger_right"
        ]
    );
    let parents: Vec<_> = r.tree.links().iter().map(|l| l.parent).collect();
    assert_eq!(
        parents,
        [
            None,
            Some(0),
            Some(1),
            Some(2),
            Some(3),
            Some(4),
            Some(5),
            Some(6),
            Some(6)
        ]
    );
    assert_eq!(r.tree.links()[0].joint, JointKind::Fixed);
    assert_eq!((r.tree.nq(), r.tree.nv()), (8, 8));
    assert!(close(r.mass(), 6.8, 1e-14), "{}", r.mass());
    let limits: Vec<_> = r.tree.links().iter().map(|l| l.limits).collect();
    assert_eq!(limits[1], Some((-3.1, 3.1)));
    assert_eq!(limits[7], Some((0.0, 0.02)));
    assert_eq!(
        r.tree.links()[8].joint,
        JointKind::Prismatic { axis: -DVec3::Y }
    );
    // Default: floating. 7 + 8 coordinates, 6 + 8 velocities.
    let floating = load("arm.urdf", &UrdfOptions::default());
    assert_eq!(floating.tree.links()[0].joint, JointKind::Floating);
    assert_eq!((floating.tree.nq(), floating.tree.nv()), (15, 14));
}

/// The elbow's `<origin xyz="0 0 0.4" rpy="0.3 -0.2 0.5">`: R = Rz(0.5) Ry(-0.2) Rx(0.3), the
/// fixed-axis roll, pitch, yaw of the URDF spec.
#[test]
fn joint_frames_are_xyz_and_fixed_axis_roll_pitch_yaw() {
    let r = load("arm.urdf", &fixed_base());
    let elbow = &r.tree.links()[3];
    assert_eq!(elbow.name, "forearm");
    assert_eq!(elbow.joint_frame.translation, DVec3::new(0.0, 0.0, 0.4));
    let expected = rot_z(0.5) * rot_y(-0.2) * rot_x(0.3);
    assert_mat(
        DMat3::from_quat(elbow.joint_frame.rotation),
        expected,
        1e-15,
        "elbow rotation",
    );
    // And one entry by hand: R[2][0] = −sin(pitch) = sin 0.2.
    assert!(close(expected.x_axis.z, 0.2f64.sin(), 1e-15));
}

/// The upper arm's inertial frame is turned by 45° about z: principal moments (a, b, c) =
/// (0.018, 0.014, 0.002) become, in link axes, ixx = iyy = (a + b)/2, ixy = (a − b)/2, izz = c.
#[test]
fn inertias_are_rotated_from_the_inertial_frame_into_link_axes() {
    let r = load("arm.urdf", &fixed_base());
    let upper = &r.tree.links()[2];
    assert_eq!(upper.name, "upper_arm");
    let expected = DMat3::from_cols_array(&[0.016, 0.002, 0.0, 0.002, 0.016, 0.0, 0.0, 0.0, 0.002]);
    assert_mat(upper.inertia, expected, 1e-17, "rotated inertia");
    assert_vec(upper.com, DVec3::new(0.0, 0.0, 0.2), 0.0, "upper arm com");
}

#[test]
fn the_arm_palm_and_tool_frame_merge_into_the_last_wrist_link() {
    let r = load("arm.urdf", &fixed_base());
    let wrist = &r.tree.links()[6];
    // wrist_3_link 0.2 kg at its origin, the palm 0.4 kg at 0.03 + 0.01 m up.
    assert!(close(wrist.mass, 0.6, 1e-15));
    assert_vec(
        wrist.com,
        DVec3::new(0.0, 0.0, 0.4 * 0.04 / 0.6),
        1e-16,
        "wrist + palm com",
    );
    let frame = |n: &str| r.frames.iter().find(|f| f.name == n).unwrap().clone();
    assert_eq!(frame("palm").link, Some(6));
    assert_eq!(frame("tool0").link, Some(6));
    assert_vec(
        frame("tool0").pose.translation,
        DVec3::new(0.0, 0.0, 0.13),
        1e-16,
        "tool0",
    );
    // The fingers hang from the palm's frame.
    assert_vec(
        r.tree.links()[7].joint_frame.translation,
        DVec3::new(0.0, 0.01, 0.05),
        1e-16,
        "finger",
    );
    // The palm's binary STL box, on the wrist link 3 cm up; the fingers' OBJ (package://), the
    // right one mirrored by scale 1 −1 1.
    let kinds: Vec<_> = r.collisions.iter().map(|c| (c.geometry, c.link)).collect();
    assert_eq!(
        kinds,
        [
            ("cylinder", 0),
            ("box", 1),
            ("box", 2),
            ("cylinder", 3),
            ("sphere", 4),
            ("mesh", 6),
            ("mesh", 7),
            ("mesh", 8)
        ]
    );
    let palm = &r.collisions[5];
    assert_eq!(palm.pose.translation, DVec3::new(0.0, 0.0, 0.03));
    let (lo, hi, n) = bounds(&palm.shape);
    assert_eq!(n, 8);
    assert_vec(
        lo,
        DVec3::new(-0.04, -0.03, 0.0),
        1e-8,
        "palm min (f32 in the file)",
    );
    assert_vec(hi, DVec3::new(0.04, 0.03, 0.02), 1e-8, "palm max");
    let (lo, hi, _) = bounds(&r.collisions[6].shape);
    assert_vec(lo, DVec3::new(-0.01, 0.0, 0.0), 1e-15, "left finger min");
    assert_vec(hi, DVec3::new(0.01, 0.01, 0.05), 1e-15, "left finger max");
    let (lo, hi, _) = bounds(&r.collisions[7].shape);
    assert_vec(lo, DVec3::new(-0.01, -0.01, 0.0), 1e-15, "right finger min");
    assert_vec(hi, DVec3::new(0.01, 0.0, 0.05), 1e-15, "right finger max");
    // <calibration>, <safety_controller> and <mimic> are warned about, by element and line.
    let w = r.warnings.join("\n");
    assert_eq!(r.warnings.len(), 3, "{w}");
    for what in [
        "joint \"shoulder_pan\" <calibration>",
        "joint \"wrist_3\" <safety_controller>",
        "joint \"finger_right_joint\" <mimic>: not modelled: the joint moves on its own",
    ] {
        assert!(w.contains(what), "no `{what}` in:\n{w}");
    }
}

#[test]
fn without_merging_fixed_joints_stay_fixed_links_and_massless_ones_still_merge() {
    let options = UrdfOptions {
        floating_base: false,
        merge_fixed_links: false,
        ..Default::default()
    };
    let r = load("arm.urdf", &options);
    let palm = r
        .tree
        .link_index("palm")
        .expect("the palm is a link of its own");
    assert_eq!(palm, 7, "breadth-first: the palm after wrist_3_link");
    let link = &r.tree.links()[palm];
    assert_eq!(
        (link.joint, link.parent, link.mass),
        (JointKind::Fixed, Some(6), 0.4)
    );
    assert_eq!((r.tree.nq(), r.tree.len()), (8, 10));
    let tool = r.frames.iter().find(|f| f.name == "tool0").unwrap();
    assert_eq!(
        (tool.link, tool.pose.translation),
        (Some(palm), DVec3::new(0.0, 0.0, 0.1))
    );
    // The diff-drive base on a floating base: the footprint has no mass and cannot float alone.
    let floating = UrdfOptions {
        merge_fixed_links: false,
        ..Default::default()
    };
    let Err(e) = urdf::load(&robots_dir().join("diff_drive.urdf"), &floating) else {
        panic!("a massless floating root loaded")
    };
    assert_eq!(e.element, "link \"base_footprint\"");
    assert!(e.message.contains("root link has no mass"), "{e}");
    // Welded to the world it never moves: a placeholder mass, with a warning.
    let r = load("diff_drive.urdf", &options);
    assert_eq!(
        (r.tree.links()[0].joint, r.tree.links()[0].mass),
        (JointKind::Fixed, 1e-3)
    );
    assert!(
        r.warnings[2].contains("welded to the world"),
        "{:?}",
        r.warnings
    );
}

// ---------------------------------------------------------------------------------------------
// Malformed files

/// A small valid robot: `base` (line 3) on a floating base, `arm` on the revolute joint `j1`
/// (line 7).
const TWO_LINKS: &str = r#"<?xml version="1.0"?>
<robot name="two">
  <link name="base">
    <inertial><mass value="1"/><inertia ixx="0.1" ixy="0" ixz="0" iyy="0.1" iyz="0" izz="0.1"/></inertial>
  </link>
  <link name="arm"><inertial><mass value="1"/><inertia ixx="0.1" ixy="0" ixz="0" iyy="0.1" iyz="0" izz="0.1"/></inertial></link>
  <joint name="j1" type="revolute">
    <parent link="base"/>
    <child link="arm"/>
    <origin xyz="0 0 1" rpy="0 0 0"/>
    <limit lower="-1" upper="1" effort="1" velocity="1"/>
  </joint>
</robot>
"#;

fn import(text: &str) -> Result<UrdfRobot, UrdfError> {
    urdf::from_str(text, "bad.urdf", &robots_dir(), &UrdfOptions::default())
}

/// The error of `text`, checked to name the file and a line.
fn error(text: &str) -> UrdfError {
    let e = import(text).expect_err("the URDF is malformed");
    assert_eq!(e.file, "bad.urdf");
    assert!(!e.hint.is_empty(), "no hint: {e}");
    e
}

fn line_of(text: &str, needle: &str) -> usize {
    text.lines()
        .position(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("no {needle}"))
        + 1
}

#[test]
fn the_two_link_robot_used_below_is_valid() {
    let r = import(TWO_LINKS).unwrap();
    assert_eq!((names(&r), r.tree.nv()), (vec!["base", "arm"], 7));
}

#[test]
fn a_joint_naming_a_missing_link_is_an_error_at_the_joint() {
    let text = TWO_LINKS.replace(r#"<parent link="base"/>"#, r#"<parent link="bsae"/>"#);
    let e = error(&text);
    assert_eq!((e.line, e.element.as_str()), (7, "joint \"j1\""));
    assert!(
        e.message.contains("parent link \"bsae\" is not defined"),
        "{e}"
    );
    assert!(e.hint.contains("\"base\""), "the hint lists the links: {e}");
    let text = TWO_LINKS.replace(r#"<child link="arm"/>"#, r#"<child link="hand"/>"#);
    assert!(error(&text).message.contains("child link \"hand\""));
}

#[test]
fn cycles_two_parents_and_several_roots_are_errors() {
    // b and c each the other's child; the root reaches neither.
    let cycle = r#"<robot name="r">
  <link name="root"/>
  <link name="b"/>
  <link name="c"/>
  <joint name="jb" type="fixed"><parent link="c"/><child link="b"/></joint>
  <joint name="jc" type="fixed"><parent link="b"/><child link="c"/></joint>
</robot>"#;
    let e = error(cycle);
    assert!(e.message.contains("form a cycle"), "{e}");
    assert!(
        e.message.contains("\"jb\"") && e.message.contains("\"jc\""),
        "{e}"
    );
    assert!(e.line == 5 || e.line == 6, "{e}");
    let self_loop = TWO_LINKS.replace(r#"<child link="arm"/>"#, r#"<child link="base"/>"#);
    assert!(error(&self_loop).message.contains("to itself"));
    // A second joint onto `arm`.
    let second = TWO_LINKS.replace(
        "</robot>",
        r#"  <joint name="j2" type="fixed"><parent link="base"/><child link="arm"/></joint>
</robot>"#,
    );
    let e = error(&second);
    assert_eq!(e.element, "joint \"j2\"");
    assert!(
        e.message.contains("two parents") && e.message.contains("joint \"j1\" (line 7)"),
        "{e}"
    );
    let two_roots = TWO_LINKS.replace("</robot>", "  <link name=\"stray\"/>\n</robot>");
    let e = error(&two_roots);
    assert_eq!(e.element, "link \"stray\"");
    assert!(e.message.contains("2 links are no joint's child"), "{e}");
}

#[test]
fn a_bad_number_is_an_error_at_its_line_naming_the_attribute() {
    let text = TWO_LINKS.replace(r#"xyz="0 0 1""#, "\n      xyz=\"0 0 one\"");
    let e = error(&text);
    assert_eq!(e.line, line_of(&text, "one"));
    assert_eq!(e.element, "joint \"j1\" <origin>");
    assert!(e.message.contains("`one`, which is not a number"), "{e}");
    assert_eq!(
        e.to_string(),
        format!(
            "bad.urdf:{}: joint \"j1\" <origin>: {}\n  help: {}",
            e.line, e.message, e.hint
        )
    );
    for (bad, why) in [
        (r#"xyz="0 0""#, "fewer than 3"),
        (r#"xyz="0 0 1 2""#, "more than 3"),
        (r#"xyz="0 0 inf""#, "not finite"),
        (r#"xyz="0 0 NaN""#, "not finite"),
        (r#"xyz="0 0 ${height}""#, "not a number"),
    ] {
        let e = error(&TWO_LINKS.replace(r#"xyz="0 0 1""#, bad));
        assert!(e.message.contains(why), "{bad}: {e}");
    }
    let xacro = error(&TWO_LINKS.replace(r#"xyz="0 0 1""#, r#"xyz="0 0 ${height}""#));
    assert!(xacro.hint.contains("xacro"), "{xacro}");
    let mass = error(&TWO_LINKS.replacen(r#"<mass value="1"/>"#, r#"<mass value="-2"/>"#, 1));
    assert_eq!(
        (mass.line, mass.element.as_str()),
        (4, "link \"base\" <inertial> <mass>")
    );
    assert!(mass.message.contains("negative"), "{mass}");
}

#[test]
fn unknown_and_planar_joint_types_are_errors() {
    let e = error(&TWO_LINKS.replace("type=\"revolute\"", "type=\"hinge\""));
    assert_eq!((e.line, e.element.as_str()), (7, "joint \"j1\""));
    assert!(e.message.contains("unknown joint type `hinge`"), "{e}");
    assert!(
        e.hint
            .contains("revolute, continuous, prismatic, fixed, floating"),
        "{e}"
    );
    let e = error(&TWO_LINKS.replace("type=\"revolute\"", "type=\"planar\""));
    assert!(e.message.contains("unsupported joint type planar"), "{e}");
    let e = error(&TWO_LINKS.replace(" type=\"revolute\"", ""));
    assert!(e.message.contains("`type` is missing"), "{e}");
}

#[test]
fn bad_axes_limits_inertias_and_masses_are_errors() {
    let zero_axis = TWO_LINKS.replace("<limit", "<axis xyz=\"0 0 0\"/>\n    <limit");
    let e = error(&zero_axis);
    assert_eq!(
        (e.line, e.element.as_str()),
        (line_of(&zero_axis, "<axis"), "joint \"j1\" <axis>")
    );
    let e = error(&TWO_LINKS.replace(r#"lower="-1" upper="1""#, r#"lower="1" upper="-1""#));
    assert!(e.message.contains("lower 1 is above upper -1"), "{e}");
    // A link on a moving joint with a point mass: its inertia is not positive definite.
    let point = TWO_LINKS.replacen(
        r#"<inertia ixx="0.1" ixy="0" ixz="0" iyy="0.1" iyz="0" izz="0.1"/></inertial></link>"#,
        r#"<inertia ixx="0" ixy="0" ixz="0" iyy="0" iyz="0" izz="0"/></inertial></link>"#,
        1,
    );
    let e = error(&point);
    assert_eq!((e.line, e.element.as_str()), (6, "link \"arm\""));
    assert!(e.message.contains("not symmetric positive definite"), "{e}");
    // A massless link on a moving joint: an error, or a stand-in with a warning.
    let massless = TWO_LINKS.replace(
        r#"<link name="arm"><inertial><mass value="1"/><inertia ixx="0.1" ixy="0" ixz="0" iyy="0.1" iyz="0" izz="0.1"/></inertial></link>"#,
        r#"<link name="arm"/>"#,
    );
    let e = error(&massless);
    assert_eq!((e.line, e.element.as_str()), (6, "link \"arm\""));
    assert!(
        e.message.contains("moves on joint \"j1\" (revolute)"),
        "{e}"
    );
    assert!(e.hint.contains("<inertial>"), "{e}");
    let options = UrdfOptions {
        massless_stand_in: Some(1e-3),
        ..Default::default()
    };
    let r = urdf::from_str(&massless, "bad.urdf", &robots_dir(), &options).unwrap();
    assert_eq!(r.tree.links()[1].mass, 1e-3);
    assert!(
        r.warnings[0].contains("bad.urdf:6: link \"arm\": no mass"),
        "{:?}",
        r.warnings
    );
    // An inertial without <inertia>.
    let e = error(&TWO_LINKS.replacen(
        r#"<inertia ixx="0.1" ixy="0" ixz="0" iyy="0.1" iyz="0" izz="0.1"/>"#,
        "",
        1,
    ));
    assert!(e.message.contains("<inertia> is missing"), "{e}");
    // A missing attribute of <inertia>.
    let e = error(&TWO_LINKS.replacen(r#" iyz="0""#, "", 1));
    assert!(e.message.contains("`iyz` is missing"), "{e}");
}

#[test]
fn documents_that_are_not_urdf_are_errors() {
    let e = error(&TWO_LINKS.replace("</joint>", "</joint"));
    assert!(e.message.contains("not well-formed XML"), "{e}");
    assert!(e.line >= 12, "{e}");
    let e = error("<sdf version=\"1.6\"><model name=\"m\"/></sdf>");
    assert!(e.message.contains("not <robot>"), "{e}");
    let xacro = r#"<robot name="r" xmlns:xacro="http://www.ros.org/wiki/xacro">
  <xacro:property name="l" value="1"/>
  <link name="a"/>
</robot>"#;
    let e = error(xacro);
    assert_eq!((e.line, e.element.as_str()), (2, "<xacro:property>"));
    assert!(
        e.hint.contains("xacro robot.urdf.xacro > robot.urdf"),
        "{e}"
    );
    let e = error("<robot name=\"r\"/>");
    assert!(e.message.contains("no <link>"), "{e}");
    let e = error(&TWO_LINKS.replace("<link name=\"arm\">", "<link name=\"base\">"));
    assert!(
        e.message
            .contains("a second link named \"base\" (the first is at line 3)"),
        "{e}"
    );
    let e = error(&TWO_LINKS.replace("<link name=\"arm\">", "<link>"));
    assert!(e.message.contains("has no name"), "{e}");
    let e = urdf::load(
        Path::new("/nonexistent/robot.urdf"),
        &UrdfOptions::default(),
    )
    .unwrap_err();
    assert!(e.message.contains("cannot read"), "{e}");
}

// ---------------------------------------------------------------------------------------------
// Collision geometry and meshes

fn temp_dir(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("signorini-urdf-{}-{tag}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A one-link robot with `geometry` as its collision.
fn with_collision(geometry: &str) -> String {
    format!(
        r#"<robot name="one">
  <link name="body">
    <inertial><mass value="1"/><inertia ixx="0.1" ixy="0" ixz="0" iyy="0.1" iyz="0" izz="0.1"/></inertial>
    <collision>
      <origin xyz="0 0 0.5"/>
      <geometry>{geometry}</geometry>
    </collision>
  </link>
</robot>"#
    )
}

fn import_in(dir: &Path, text: &str) -> Result<UrdfRobot, UrdfError> {
    urdf::from_str(text, "one.urdf", dir, &UrdfOptions::default())
}

#[test]
fn ascii_and_binary_stl_and_obj_meshes_become_scaled_hulls() {
    let dir = temp_dir("meshes");
    // An ASCII STL tetrahedron (repeated vertices read once).
    let tetra = [
        [0.0, 0.0, 0.0],
        [1.0, 0.0, 0.0],
        [0.0, 1.0, 0.0],
        [0.0, 0.0, 1.0],
    ];
    let mut ascii = String::from("solid tetra\n");
    for tri in [[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]] {
        ascii += "  facet normal 0 0 0\n    outer loop\n";
        for v in tri {
            let [x, y, z] = tetra[v];
            ascii += &format!("      vertex {x} {y} {z}\n");
        }
        ascii += "    endloop\n  endfacet\n";
    }
    ascii += "endsolid tetra\n";
    std::fs::write(dir.join("tetra.stl"), &ascii).unwrap();
    let r = import_in(
        &dir,
        &with_collision(r#"<mesh filename="tetra.stl" scale="2 3 4"/>"#),
    )
    .unwrap();
    let (lo, hi, n) = bounds(&r.collisions[0].shape);
    assert_eq!((n, lo, hi), (4, DVec3::ZERO, DVec3::new(2.0, 3.0, 4.0)));
    assert_eq!(r.collisions[0].pose.translation, DVec3::new(0.0, 0.0, 0.5));
    // A binary STL whose header starts with "solid" (as some exporters write) is still binary.
    let mut binary = b"solid but binary".to_vec();
    binary.resize(80, b' ');
    binary.extend(4u32.to_le_bytes());
    for tri in [[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]] {
        binary.extend([0u8; 12]);
        for v in tri {
            for x in tetra[v] {
                binary.extend((x as f32).to_le_bytes());
            }
        }
        binary.extend([0u8; 2]);
    }
    std::fs::write(dir.join("TETRA_BIN.STL"), &binary).unwrap();
    let r = import_in(&dir, &with_collision(r#"<mesh filename="TETRA_BIN.STL"/>"#)).unwrap();
    assert_eq!(bounds(&r.collisions[0].shape).2, 4);
    // OBJ: `v` lines only; comments, normals and faces do not matter.
    let obj = "# tetra\nv 0 0 0\nv 1 0 0 1.0\nvn 0 0 1\nv 0 1 0\nv 0 0 1\nf 1 2 3\n";
    std::fs::create_dir_all(dir.join("pkg/meshes")).unwrap();
    std::fs::write(dir.join("pkg/meshes/tetra.obj"), obj).unwrap();
    // package://pkg/... found as pkg/meshes/... beside the URDF.
    let r = import_in(
        &dir,
        &with_collision(r#"<mesh filename="package://pkg/meshes/tetra.obj"/>"#),
    )
    .unwrap();
    assert_eq!(bounds(&r.collisions[0].shape).1, DVec3::ONE);
    // ... and from inside the package (the URDF in pkg/urdf/, the mesh in pkg/meshes/).
    let inner = dir.join("pkg/urdf");
    std::fs::create_dir_all(&inner).unwrap();
    let r = import_in(
        &inner,
        &with_collision(r#"<mesh filename="package://pkg/meshes/tetra.obj"/>"#),
    )
    .unwrap();
    assert_eq!(bounds(&r.collisions[0].shape).2, 4);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn meshes_that_cannot_be_found_or_read_are_errors_at_the_collision() {
    let dir = temp_dir("bad-meshes");
    let at = |geometry: &str| {
        let e = import_in(&dir, &with_collision(geometry)).expect_err(geometry);
        assert_eq!((e.file.as_str(), e.line), ("one.urdf", 4), "{e}");
        assert_eq!(e.element, format!("link \"body\" <collision> <mesh>"));
        e
    };
    let e = at(r#"<mesh filename="missing.stl"/>"#);
    assert!(e.message.contains("missing.stl not found"), "{e}");
    let e = at(r#"<mesh filename="package://nopkg/meshes/x.stl"/>"#);
    assert!(
        e.message
            .contains("neither meshes/x.stl nor nopkg/meshes/x.stl"),
        "{e}"
    );
    assert!(e.hint.contains("no ROS package index"), "{e}");
    std::fs::write(dir.join("part.dae"), "<COLLADA/>").unwrap();
    let e = at(r#"<mesh filename="part.dae"/>"#);
    assert!(
        e.message.contains("COLLADA") && e.hint.contains("STL or OBJ"),
        "{e}"
    );
    std::fs::write(dir.join("flat.obj"), "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 1 1 0\n").unwrap();
    let e = at(r#"<mesh filename="flat.obj"/>"#);
    assert!(e.message.contains("convex hull"), "{e}");
    std::fs::write(dir.join("junk.stl"), "not a mesh").unwrap();
    let e = at(r#"<mesh filename="junk.stl"/>"#);
    assert!(e.message.contains("not an STL file"), "{e}");
    std::fs::write(dir.join("bad.obj"), "v 0 0 zero\n").unwrap();
    let e = at(r#"<mesh filename="bad.obj"/>"#);
    assert!(
        e.message
            .contains("line 1: `v` is not followed by three numbers"),
        "{e}"
    );
    let e = at(r#"<mesh filename="http://example.com/x.stl"/>"#);
    assert!(e.message.contains("only relative paths"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn primitive_geometry_is_checked_and_capsules_are_skipped_with_a_warning() {
    let dir = robots_dir();
    let r = import_in(&dir, &with_collision(r#"<box size="0.1 0.2 0.3"/>"#)).unwrap();
    let (lo, hi, _) = bounds(&r.collisions[0].shape);
    assert_vec(hi - lo, DVec3::new(0.1, 0.2, 0.3), 1e-15, "box size");
    let e = import_in(&dir, &with_collision(r#"<box size="0.1 0 0.3"/>"#)).unwrap_err();
    assert!(e.message.contains("not positive"), "{e}");
    let e = import_in(&dir, &with_collision(r#"<sphere/>"#)).unwrap_err();
    assert!(e.message.contains("`radius` is missing"), "{e}");
    let e = import_in(
        &dir,
        &with_collision(r#"<cylinder radius="0.1" length="-1"/>"#),
    )
    .unwrap_err();
    assert_eq!(e.element, "link \"body\" <collision> <cylinder>");
    let e = import_in(&dir, &with_collision("")).unwrap_err();
    assert!(e.message.contains("<geometry> is empty"), "{e}");
    let r = import_in(
        &dir,
        &with_collision(r#"<capsule radius="0.1" length="0.5"/>"#),
    )
    .unwrap();
    assert!(r.collisions.is_empty());
    assert!(
        r.warnings[0].contains("one.urdf:6: link \"body\" <collision> <capsule>"),
        "{:?}",
        r.warnings
    );
    let segments = UrdfOptions {
        cylinder_segments: 6,
        ..Default::default()
    };
    let r = urdf::from_str(
        &with_collision(r#"<cylinder radius="0.1" length="0.5"/>"#),
        "one.urdf",
        &dir,
        &segments,
    )
    .unwrap();
    assert_eq!(bounds(&r.collisions[0].shape).2, 12);
}

/// Truncated and mutated copies of the arm: each is a robot or an error, never a panic.
#[test]
fn damaged_files_are_errors_never_panics() {
    let text = std::fs::read_to_string(robots_dir().join("arm.urdf")).unwrap();
    let dir = robots_dir();
    let mut errors = 0;
    for cut in (0..text.len()).step_by(37) {
        if !text.is_char_boundary(cut) {
            continue;
        }
        errors += urdf::from_str(&text[..cut], "arm.urdf", &dir, &UrdfOptions::default()).is_err()
            as usize;
    }
    assert!(errors > 0);
    let digits: Vec<usize> = text
        .match_indices(|c: char| c.is_ascii_digit())
        .map(|(i, _)| i)
        .collect();
    for (k, &i) in digits.iter().enumerate().step_by(7) {
        for replacement in ["-", "e", "0", " "] {
            let mut damaged = text.clone();
            damaged.replace_range(i..i + 1, replacement);
            let _ = urdf::from_str(&damaged, "arm.urdf", &dir, &UrdfOptions::default());
        }
        let _ = k;
    }
}

/// A robot welded to a `world` link: the base stays a link of its own on a fixed root joint
/// (merging stops at the world), a massless frame on it merges into it, a `floating` joint
/// becomes `JointKind::Floating`, and collision geometry on `world` itself is warned about.
#[test]
fn a_base_welded_to_the_world_link_and_a_floating_joint() {
    let text = r#"<robot name="welded">
  <link name="world">
    <collision><geometry><box size="1 1 1"/></geometry></collision>
  </link>
  <joint name="weld" type="fixed">
    <parent link="world"/><child link="base"/>
    <origin xyz="1 2 3"/>
  </joint>
  <link name="base"><inertial><mass value="2"/><inertia ixx="0.1" ixy="0" ixz="0" iyy="0.1" iyz="0" izz="0.1"/></inertial></link>
  <joint name="mount" type="fixed"><parent link="base"/><child link="flange"/><origin xyz="0 0 0.5"/></joint>
  <link name="flange"/>
  <joint name="free" type="floating"><parent link="flange"/><child link="drone"/><origin xyz="0 0 1"/></joint>
  <link name="drone"><inertial><mass value="1"/><inertia ixx="0.01" ixy="0" ixz="0" iyy="0.01" iyz="0" izz="0.02"/></inertial></link>
</robot>"#;
    let r = import(text).unwrap();
    assert_eq!(names(&r), ["base", "drone"]);
    let [base, drone] = r.tree.links() else {
        panic!("two links")
    };
    assert_eq!((base.parent, base.joint), (None, JointKind::Fixed));
    assert_eq!(base.joint_frame.translation, DVec3::new(1.0, 2.0, 3.0));
    assert_eq!((drone.parent, drone.joint), (Some(0), JointKind::Floating));
    assert_eq!(drone.joint_frame.translation, DVec3::new(0.0, 0.0, 1.5));
    assert_eq!((r.tree.nq(), r.tree.nv()), (7, 6));
    assert_eq!(r.collisions.len(), 0);
    assert_eq!(r.warnings.len(), 1, "{:?}", r.warnings);
    assert!(
        r.warnings[0].contains("bad.urdf:3: link \"world\" <collision>"),
        "{:?}",
        r.warnings
    );
    let flange = r.frames.iter().find(|f| f.name == "flange").unwrap();
    assert_eq!(
        (flange.link, flange.pose.translation),
        (Some(0), DVec3::new(0.0, 0.0, 0.5))
    );
}
