//! The algebraic Newton + clamped Coulomb impulse of games and Guendelman et al. 2003 (the
//! baseline): the frictionless Newton impulse P_n = −(1 + e) u_n0 / K_nn, then the
//! slip-stopping tangential impulse P_t = −K_tt⁻¹ u_t scaled back onto the cone |P_t| = μ P_n.
use glam::{DMat3, DVec2, DVec3};

use super::collide::energy_change;
use super::collision_matrix::{at, ktt_solve, max_abs};
use super::records::{Collision, Law, Segment, SegmentKind, Stick};
use super::sticking::StickingTest;

/// The algebraic Newton + clamped Coulomb impulse (module notes).
pub(super) fn algebraic(k: &DMat3, u0: DVec3, mu: f64, e: f64) -> Collision {
    let knn = at(k, 2, 2);
    let pc = -u0.z / knn;
    let pn = (1.0 + e) * pc;
    let p1 = DVec3::new(0.0, 0.0, pn);
    let u1 = u0 + *k * p1;
    let mut pt = -ktt_solve(k, DVec2::new(u1.x, u1.y));
    let unclamped = pt.length();
    let clamped = unclamped > mu * pn;
    if clamped {
        pt *= mu * pn / unclamped;
    }
    let p = DVec3::new(pt.x, pt.y, pn);
    let u = u0 + *k * p;
    let de = energy_change(k, u0, p);
    // The normal stage alone: W_c = −u_n0²/(2K_nn), W_r = e² u_n0²/(2K_nn).
    let wc = -u0.z * u0.z / (2.0 * knn);
    let wr = e * e * u0.z * u0.z / (2.0 * knn);
    let ut = DVec2::new(u.x, u.y);
    let slip_floor =
        64.0 * f64::EPSILON * (u0.abs().element_sum() + max_abs(k) * p.abs().element_sum());
    Collision {
        law: Law::AlgebraicNewton,
        impulse: p,
        velocity: u,
        compression_impulse: pc,
        compression_work: wc,
        restitution_work: wr,
        friction_work: de - wc - wr,
        energy_change: de,
        stick: (!clamped && mu > 0.0).then(|| Stick {
            normal_impulse: pn,
            test: StickingTest {
                friction_rate: pt / pn,
                required_friction: unclamped / pn,
                stable: true,
            },
            ray: None,
        }),
        exit_slip: (ut.length() > slip_floor).then(|| ut.normalize()),
        segments: vec![
            Segment {
                kind: SegmentKind::Frictionless,
                start: DVec3::ZERO,
                end: p1,
            },
            Segment {
                kind: SegmentKind::TangentialCorrection,
                start: p1,
                end: p,
            },
        ],
        steps: 0,
        recompressed: false,
        extended_to_separation: false,
    }
}
