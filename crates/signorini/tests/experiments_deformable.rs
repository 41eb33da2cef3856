//! `experiments::deformable`, the functions behind `signorini experiment deformable`: the same
//! targets as `tests/deformable_generate.rs` and `deformable_integrate.rs` (which justify the
//! tolerances), on the experiment's own set-ups.
use signorini::deformable::DeformableIntegrator;
use signorini::experiments::deformable::{beam, energy, wave};

#[test]
fn beam_is_within_five_percent_of_euler_bernoulli() {
    let b = beam([20, 1, 1]).unwrap();
    assert!(b.residual_speed <= 1e-9);
    assert!(
        (b.deflection / b.euler_bernoulli - 1.0).abs() <= 0.05,
        "{b:?}"
    );
}

#[test]
fn wave_speed_matches_the_chain_and_sqrt_e_over_rho() {
    let w = wave(10, 1).unwrap();
    // The chain's dispersion 1 − (π/20)²/6 and the timing's 1e-5.
    assert!((w.measured / w.chain - 1.0).abs() <= 1e-5, "{w:?}");
    assert!((w.measured / w.continuum - 1.0).abs() <= (1.0 - w.chain / w.continuum) + 1e-5);
}

#[test]
fn verlet_drift_is_below_1e_6_and_taylor_gains() {
    let v = energy(DeformableIntegrator::Verlet, 1e-5, 1.0).unwrap();
    assert!(v.max_drift <= 1e-6, "{v:?}");
    let t = energy(DeformableIntegrator::Taylor, 1e-5, 1.0).unwrap();
    assert!(t.end_ratio > 1.0, "{t:?}");
}
