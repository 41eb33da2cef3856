//! The polyhedral friction cone (`contact/cone.rs`): carrying a friction impulse onto another
//! contact's k directions (`Cone::decompose`, the warm start of a contact whose tangent basis
//! changed between steps).
use glam::DVec3;
use proptest::prelude::*;
use signorini::contact::cone::{self, Cone};

fn unit(v: [f64; 3]) -> Option<DVec3> {
    let v = DVec3::from(v);
    (v.length() > 1e-3).then(|| v.normalize())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// β ≥ 0, Σ_j β_j d_j is the force's part in the contact plane (to 1e-12 of its size: a few
    /// roundings of sines and dot products), at most two adjacent entries are non-zero, and no
    /// pair of directions carries that force with a smaller Σ β (brute force over every pair:
    /// the bracketing pair is the least a pyramid needs, so the warm start asks no more of the
    /// cone's μ p_n than the impulse did).
    #[test]
    fn a_friction_impulse_decomposes_onto_the_two_directions_that_bracket_it(
        n in prop::array::uniform3(-1.0f64..1.0),
        f in prop::array::uniform3(-10.0f64..10.0),
        k in 3usize..9,
    ) {
        let Some(n) = unit(n) else { return Ok(()) };
        let force = DVec3::from(f);
        let tangential = force - force.dot(n) * n;
        let beta = Cone::new(k).decompose(n, force);
        let d: Vec<DVec3> = cone::directions(n, k).collect();
        prop_assert_eq!(beta.len(), k);
        prop_assert!(beta.iter().all(|&b| b >= 0.0), "{beta:?}");
        let sum: DVec3 = d.iter().zip(&beta).map(|(d, &b)| b * *d).sum();
        prop_assert!((sum - tangential).length() <= 1e-12 * force.length().max(1.0),
            "{sum:?} vs {tangential:?}");
        let nonzero: Vec<usize> = (0..k).filter(|&j| beta[j] > 0.0).collect();
        prop_assert!(nonzero.len() <= 2);
        if let [i, j] = nonzero[..] {
            prop_assert!(j == i + 1 || (i == 0 && j == k - 1), "{nonzero:?}");
        }
        let ours: f64 = beta.iter().sum();
        for i in 0..k {
            for j in i + 1..k {
                // tangential = x d_i + y d_j in the plane (t1, t2).
                let (t1, t2) = cone::tangent_basis(n);
                let (a, b) = (tangential.dot(t1), tangential.dot(t2));
                let (di, dj) = ((d[i].dot(t1), d[i].dot(t2)), (d[j].dot(t1), d[j].dot(t2)));
                let det = di.0 * dj.1 - di.1 * dj.0;
                if det.abs() < 1e-9 {
                    continue;
                }
                let x = (a * dj.1 - b * dj.0) / det;
                let y = (di.0 * b - di.1 * a) / det;
                if x >= 0.0 && y >= 0.0 {
                    prop_assert!(ours <= x + y + 1e-12 * force.length().max(1.0),
                        "pair ({i}, {j}) carries it with {} < {ours}", x + y);
                }
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// (t1, t2) is orthonormal and normal to n (to 1e-15: a cross product and a normalization),
    /// and right-handed (t1 × t2 = n).
    #[test]
    fn the_tangent_basis_is_orthonormal_and_right_handed(n in prop::array::uniform3(-1.0f64..1.0)) {
        let Some(n) = unit(n) else { return Ok(()) };
        let (t1, t2) = cone::tangent_basis(n);
        for (a, b) in [(t1, t1), (t2, t2)] {
            prop_assert!((a.dot(b) - 1.0).abs() < 1e-15);
        }
        for (a, b) in [(t1, t2), (t1, n), (t2, n)] {
            prop_assert!(a.dot(b).abs() < 1e-15, "{}", a.dot(b));
        }
        prop_assert!((t1.cross(t2) - n).length() < 1e-15);
    }

    /// A normal within round-off of a world axis (a resting box's face normal, rotated by its
    /// orientation quaternion) gets the axis's own basis to within that round-off: the friction
    /// directions do not turn from step to step while the normal jitters by 1e-15 (the rule
    /// before switched between the X and Y axes at |n_x| = |n_y|, which near ±Z is decided by
    /// the jitter).
    #[test]
    fn a_normal_jittering_about_a_world_axis_keeps_its_basis(
        axis in 0usize..6,
        jitter in prop::array::uniform3(-1e-13f64..1e-13),
    ) {
        let exact = [DVec3::X, DVec3::Y, DVec3::Z, -DVec3::X, -DVec3::Y, -DVec3::Z][axis];
        let n = (exact + DVec3::from(jitter)).normalize();
        let (e1, e2) = cone::tangent_basis(exact);
        let (t1, t2) = cone::tangent_basis(n);
        prop_assert!((t1 - e1).length() < 1e-12 && (t2 - e2).length() < 1e-12,
            "{n:?}: ({t1:?}, {t2:?}) against ({e1:?}, {e2:?})");
    }
}

/// The one switch of the rule is at |n_x| = 1/√2: either side of it the basis is continuous
/// (t1 moves by about as much as n), across it t1 turns.
#[test]
fn the_tangent_basis_switches_only_at_45_degrees_from_x() {
    let at = |angle: f64| DVec3::new(angle.cos(), 0.0, angle.sin());
    let quarter = std::f64::consts::FRAC_PI_4;
    for (a, b) in [
        (0.1, 0.1 + 1e-9),
        (quarter + 1e-6, quarter + 2e-6),
        (1.2, 1.2 + 1e-9),
    ] {
        let moved = (cone::tangent_basis(at(a)).0 - cone::tangent_basis(at(b)).0).length();
        assert!(moved < 1e-6, "{a} → {b}: t1 moved {moved:e}");
    }
    let (before, after) = (at(quarter - 1e-9), at(quarter + 1e-9));
    let turned = (cone::tangent_basis(before).0 - cone::tangent_basis(after).0).length();
    assert!(turned > 1.0, "t1 turned {turned} across the switch");
}

/// No force in the plane (along the normal: round-off of its 3 N s, or zero): no friction.
#[test]
fn a_normal_or_zero_force_has_no_friction() {
    let n = DVec3::new(0.0, 0.6, 0.8);
    let cone = Cone::new(4);
    let along_normal: f64 = cone.decompose(n, 3.0 * n).iter().sum();
    assert!(along_normal <= 1e-15 * 3.0, "{along_normal:e}");
    assert_eq!(cone.decompose(n, DVec3::ZERO), vec![0.0; 4]);
}

/// Along a direction d_j exactly: all of it on β_j.
#[test]
fn a_force_along_a_direction_is_that_direction_alone() {
    let n = DVec3::new(0.3, -0.4, 0.866).normalize();
    let cone = Cone::new(6);
    for (j, d) in cone::directions(n, 6).enumerate() {
        let beta = cone.decompose(n, 2.5 * d);
        assert!((beta[j] - 2.5).abs() < 1e-12, "{j}: {beta:?}");
        let rest: f64 = (0..6).filter(|&i| i != j).map(|i| beta[i]).sum();
        assert!(rest < 1e-12, "{j}: {beta:?}");
    }
}
