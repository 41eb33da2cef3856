//! The connectors (`deformable::connector`): elastic forces are the exact gradient of their
//! energies (what makes a network without damping conserve energy), forces and moments balance,
//! damping only dissipates, and the shear connector measures shear and not the trapezoid of
//! bending.
use signorini::deformable::{Linear, Shear, Torsion};
use signorini::DVec3;
use std::f64::consts::{FRAC_PI_2, PI};

/// Positions of a slightly distorted configuration (m) and velocities (m/s).
fn state() -> (Vec<DVec3>, Vec<DVec3>) {
    let x = vec![
        DVec3::new(0.0, 0.0, 0.0),
        DVec3::new(0.11, 0.004, -0.003),
        DVec3::new(0.102, 0.097, 0.006),
        DVec3::new(-0.005, 0.1, 0.002),
        DVec3::new(0.2, 0.01, 0.008),
    ];
    let v = vec![
        DVec3::new(0.1, -0.2, 0.05),
        DVec3::new(-0.3, 0.1, 0.2),
        DVec3::new(0.05, 0.02, -0.1),
        DVec3::new(0.0, 0.3, 0.1),
        DVec3::new(-0.1, 0.0, 0.2),
    ];
    (x, v)
}

/// −∂U/∂x_p by central differences (step 1e-7 m: truncation ~(1e-7/0.1)² relative, round-off
/// ~1e-16 U/1e-7), against the connector's elastic force; tolerance 1e-6 of the largest force.
fn check_gradient(energy: &dyn Fn(&[DVec3]) -> f64, forces: &[(usize, DVec3)], x: &[DVec3]) {
    let eps = 1e-7;
    let scale = forces.iter().map(|(_, f)| f.length()).fold(0.0, f64::max);
    assert!(scale > 0.0);
    for &(p, f) in forces {
        for d in 0..3 {
            let mut xp = x.to_vec();
            xp[p][d] += eps;
            let mut xm = x.to_vec();
            xm[p][d] -= eps;
            let g = -(energy(&xp) - energy(&xm)) / (2.0 * eps);
            assert!(
                (g - f[d]).abs() <= 1e-6 * scale,
                "particle {p} axis {d}: {g} vs {}",
                f[d]
            );
        }
    }
}

fn balanced(x: &[DVec3], forces: &[(usize, DVec3)]) {
    let sum: DVec3 = forces.iter().map(|(_, f)| *f).sum();
    let moment: DVec3 = forces.iter().map(|(p, f)| x[*p].cross(*f)).sum();
    let scale = forces.iter().map(|(_, f)| f.length()).fold(0.0, f64::max);
    assert!(sum.length() <= 1e-12 * scale, "{sum}");
    assert!(moment.length() <= 1e-12 * scale, "{moment}");
}

#[test]
fn elastic_forces_are_the_gradient_of_the_energy() {
    let (x, v) = state();
    let lin = Linear {
        i: 0,
        j: 1,
        rest: 0.1,
        stiffness: 1e4,
        damping: 0.0,
    };
    let f = lin.force(&x, &v).elastic;
    check_gradient(&|x| lin.energy(x), &[(0, f), (1, -f)], &x);
    for rest in [PI, FRAC_PI_2, 2.0] {
        let t = Torsion {
            i: 0,
            j: 1,
            k: 4,
            rest,
            stiffness: 3.0,
            damping: 0.0,
        };
        let s = t.forces(&x, &v);
        let f = [(0, s[0].elastic), (1, s[1].elastic), (4, s[2].elastic)];
        check_gradient(&|x| t.energy(x), &f, &x);
        balanced(&x, &f);
    }
    let sh = Shear {
        corners: [0, 1, 2, 3],
        stiffness: 5.0,
        damping: 0.0,
    };
    let s = sh.forces(&x, &v);
    let f: Vec<(usize, DVec3)> = (0..4).map(|k| (k, s[k].elastic)).collect();
    check_gradient(&|x| sh.energy(x), &f, &x);
    balanced(&x, &f);
}

/// Damping forces −μ ṙ ∇r have power −μ ṙ² ≤ 0 (r the length, angle or shear).
#[test]
fn damping_only_dissipates() {
    let (x, v) = state();
    let lin = Linear {
        i: 0,
        j: 1,
        rest: 0.1,
        stiffness: 0.0,
        damping: 2.0,
    };
    let d = lin.force(&x, &v).damping;
    let rate = (x[1] - x[0]).normalize().dot(v[1] - v[0]);
    let power = d.dot(v[0]) - d.dot(v[1]);
    assert!((power + 2.0 * rate * rate).abs() <= 1e-12);
    let t = Torsion {
        i: 0,
        j: 1,
        k: 4,
        rest: PI,
        stiffness: 0.0,
        damping: 2.0,
    };
    let s = t.forces(&x, &v);
    let power: f64 = [0, 1, 4]
        .iter()
        .zip(s)
        .map(|(&p, s)| s.damping.dot(v[p]))
        .sum();
    assert!(power < 0.0);
    let sh = Shear {
        corners: [0, 1, 2, 3],
        stiffness: 0.0,
        damping: 2.0,
    };
    let s = sh.forces(&x, &v);
    let power: f64 = (0..4).map(|k| s[k].damping.dot(v[k])).sum();
    assert!(power < 0.0);
}

/// A unit square sheared by γ reads γ; a trapezoid (top edge stretched by δ, bottom one
/// compressed by δ, the face of a bent beam) reads 0, as does any rigid motion.
#[test]
fn shear_reads_shear_not_bending() {
    let sh = Shear {
        corners: [0, 1, 2, 3],
        stiffness: 1.0,
        damping: 0.0,
    };
    let g: f64 = 0.01;
    let sheared = [
        DVec3::ZERO,
        DVec3::X,
        DVec3::new(1.0 + g.tan(), 1.0, 0.0),
        DVec3::new(g.tan(), 1.0, 0.0),
    ];
    // The corner angles change by ∓ atan(tan γ) = γ exactly.
    assert!(
        (sh.shear(&sheared).0.abs() - g).abs() <= 1e-12,
        "{}",
        sh.shear(&sheared).0
    );
    let d = 0.01;
    let trapezoid = [
        DVec3::new(d, 0.0, 0.0),
        DVec3::new(1.0 - d, 0.0, 0.0),
        DVec3::new(1.0 + d, 1.0, 0.0),
        DVec3::new(-d, 1.0, 0.0),
    ];
    assert!(
        sh.shear(&trapezoid).0.abs() <= 1e-15,
        "{}",
        sh.shear(&trapezoid).0
    );
    let r = signorini::DQuat::from_axis_angle(DVec3::new(1.0, 2.0, 3.0).normalize(), 0.7);
    let square = [DVec3::ZERO, DVec3::X, DVec3::new(1.0, 1.0, 0.0), DVec3::Y];
    let moved: Vec<DVec3> = square
        .iter()
        .map(|p| r * *p + DVec3::new(3.0, -1.0, 2.0))
        .collect();
    assert!(sh.shear(&moved).0.abs() <= 1e-14);
}
