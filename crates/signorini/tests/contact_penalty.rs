//! The penalty models' shared pieces (`contact::penalty`): the push-out caps of the spring depth
//! under `implicit-euler`, against the rate a backward Euler step gives the capped element.
use signorini::contact::penalty::{capped_depth, capped_depth_damped_by_depth};
use signorini::util::rng::Rng;

/// The push-out rate of a backward Euler step on an element of stiffness `kp` (N/m) and damping
/// `kv` (N s/m) at depth `x` (m), once inertia is overcome: kp x / (kp h + kv) (m/s).
fn push_out_rate(kp: f64, kv: f64, h: f64, x: f64) -> f64 {
    kp * x / (kp * h + kv)
}

/// A deep overlap's capped depth pushes out at exactly the cap's speed (to round-off, 1e-12
/// relative: a few operations on numbers of similar size), with the element's damping taken at
/// the capped depth for a law whose damping grows with it (Hunt–Crossley's λ x c); a depth under
/// the cap is kept; where the damping alone bounds the rate below the speed the depth is not
/// capped, and its rate is below the speed at any depth.
#[test]
fn a_capped_depth_pushes_out_at_the_cap_speed() {
    let mut rng = Rng::new(7);
    // How often each case was met: uncapped, capped, and capped where the old cap was faster.
    let mut met = [0usize; 3];
    for _ in 0..1000 {
        let kp = 10f64.powf(rng.uniform(2.0, 8.0));
        let h = 10f64.powf(rng.uniform(-4.0, -2.0));
        let speed = rng.uniform(0.05, 2.0);
        let deep = 10.0;

        let kv = kp * 10f64.powf(rng.uniform(-5.0, -1.0));
        let x = capped_depth(deep, speed, h, kp, kv);
        let rate = push_out_rate(kp, kv, h, x);
        assert!(
            (rate - speed).abs() <= 1e-12 * speed,
            "{rate} m/s for {speed}"
        );
        assert_eq!(capped_depth(0.5 * x, speed, h, kp, kv), 0.5 * x);

        let per_depth = kp * 10f64.powf(rng.uniform(-3.0, 1.0));
        let x = capped_depth_damped_by_depth(deep, speed, h, kp, per_depth);
        let rate = push_out_rate(kp, per_depth * x, h, x);
        if speed * per_depth >= kp {
            assert_eq!(x, deep);
            assert!(rate < speed, "uncapped at {rate} m/s above {speed}");
            met[0] += 1;
        } else {
            assert!(
                (rate - speed).abs() <= 1e-12 * speed,
                "{rate} m/s for {speed}"
            );
            assert_eq!(
                capped_depth_damped_by_depth(0.5 * x, speed, h, kp, per_depth),
                0.5 * x
            );
            met[1] += 1;
            // The cap of the full depth's damping, as hunt-crossley had it: faster than the speed.
            let old = capped_depth(deep, speed, h, kp, per_depth * deep);
            if old < deep {
                assert!(push_out_rate(kp, per_depth * old, h, old) > speed);
                met[2] += 1;
            }
        }
    }
    // Every case drawn a fair number of times (the ranges above straddle speed kv_per_depth = kp).
    assert!(met.iter().all(|&m| m >= 50), "cases met {met:?}");
}
