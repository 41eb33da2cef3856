//! Sticking and slip rays (slides s. 37–40): the sticking test (L6) f* = −K_tt⁻¹ K_tn, stable iff
//! |f*| ≤ μ; the invariant slip directions (L7) of the sliding flow from the real roots of the
//! quartic (L8); and the diverging ray the slip leaves zero along when sticking is unstable
//! (the root with λ > 0, or the secular equation |(μK_tt + λI)⁻¹K_tn| = 1 as a fallback).
use glam::{DMat3, DVec2};

use super::collision_matrix::{
    check_collision_matrix, ktt_mul, ktt_solve, tangential_block, tangential_coupling,
};
use super::LawError;

/// Whether sticking, once reached, lasts (L6).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StickingTest {
    /// f* = −K_tt⁻¹ K_tn: tangential impulse per unit normal impulse that keeps u_t = 0.
    pub friction_rate: DVec2,
    /// |f*|: the friction coefficient sticking needs (dimensionless).
    pub required_friction: f64,
    /// |f*| ≤ μ.
    pub stable: bool,
}

/// The sticking test (L6) for collision matrix `k` (contact frame, assumed SPD) and friction `mu`.
pub fn sticking_test(k: &DMat3, mu: f64) -> StickingTest {
    let f = -ktt_solve(k, tangential_coupling(k));
    let required = f.length();
    StickingTest {
        friction_rate: f,
        required_friction: required,
        stable: required <= mu,
    }
}

/// How a diverging ray was found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RayMethod {
    /// The root of the quartic (L8) with λ > 0.
    Quartic,
    /// |(μK_tt + λI)⁻¹K_tn| = 1 by bisection (no quartic root had λ > 0 after round-off).
    Secular,
}

/// An invariant slip direction of the sliding flow (L7).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ray {
    /// Unit slip direction ŝ in the tangent plane (t1, t2).
    pub direction: DVec2,
    /// λ = ŝ·F(ŝ) = d|u_t|/dP_n along the ray (1/kg): > 0 diverging, < 0 converging.
    pub rate: f64,
}

/// g(θ) = ŝ⊥·F(ŝ) and its derivative, ŝ = (cos θ, sin θ) (the ray condition of (L7)).
pub(super) fn ray_condition(k: &DMat3, mu: f64, theta: f64) -> (f64, f64) {
    let (k11, k12, k22) = tangential_block(k);
    let c = tangential_coupling(k);
    let d = 0.5 * (k22 - k11);
    let (s, co) = theta.sin_cos();
    let (s2, c2) = (2.0 * theta).sin_cos();
    let g = c.y * co - c.x * s - mu * (d * s2 + k12 * c2);
    let dg = -c.y * s - c.x * co - mu * (2.0 * d * c2 - 2.0 * k12 * s2);
    (g, dg)
}

/// λ = ŝ·F(ŝ), F(ŝ) = K_tn − μ K_tt ŝ.
pub(super) fn ray_rate(k: &DMat3, mu: f64, s: DVec2) -> f64 {
    s.dot(tangential_coupling(k) - mu * ktt_mul(k, s))
}

/// Every invariant slip direction (L7) of K and μ, from the real roots of the quartic (L8), in
/// increasing angle from t1. The tangent frame is first turned by an angle θ₀ (the sample of
/// g(θ) farthest from zero, opposite t = ∞) so that no root sits at t = ∞. Roots are found by
/// bisection between the real roots of the derivative (recursively down to a quadratic), then
/// polished by Newton on g(θ); double roots (a ray where two merge, measure zero) can be missed.
pub fn slip_rays(k: &DMat3, mu: f64) -> Vec<Ray> {
    // θ₀: put the largest |g| among 16 sample angles at t = ∞.
    let samples = 16;
    let mut best = (0.0, -1.0);
    for j in 0..samples {
        let phi = std::f64::consts::TAU * j as f64 / samples as f64;
        let g = ray_condition(k, mu, phi).0.abs();
        if g > best.1 {
            best = (phi, g);
        }
    }
    let theta0 = best.0 - std::f64::consts::PI;
    // (L8) in the frame turned by θ₀: K_tn' = Rᵀ K_tn, K_tt' = Rᵀ K_tt R.
    let (sn, cs) = theta0.sin_cos();
    let (k11, k12, k22) = tangential_block(k);
    let kt = tangential_coupling(k);
    let a = cs * kt.x + sn * kt.y;
    let b = -sn * kt.x + cs * kt.y;
    let r11 = cs * cs * k11 + 2.0 * cs * sn * k12 + sn * sn * k22;
    let r22 = sn * sn * k11 - 2.0 * cs * sn * k12 + cs * cs * k22;
    let r12 = (k22 - k11) * cs * sn + k12 * (cs * cs - sn * sn);
    let d = 0.5 * (r22 - r11);
    let coeffs = [
        b - mu * r12,
        -2.0 * a - 4.0 * mu * d,
        6.0 * mu * r12,
        -2.0 * a + 4.0 * mu * d,
        -b - mu * r12,
    ];
    let mut thetas: Vec<f64> = real_roots(&coeffs)
        .into_iter()
        .map(|t| {
            // Newton polish on g(θ): keep only steps that reduce |g|.
            let mut th = theta0 + 2.0 * t.atan();
            for _ in 0..4 {
                let (g, dg) = ray_condition(k, mu, th);
                if dg == 0.0 {
                    break;
                }
                let next = th - g / dg;
                if ray_condition(k, mu, next).0.abs() < g.abs() {
                    th = next;
                } else {
                    break;
                }
            }
            th.rem_euclid(std::f64::consts::TAU)
        })
        .collect();
    thetas.sort_by(f64::total_cmp);
    thetas.dedup_by(|x, y| (*x - *y).abs() < 1e-12);
    thetas
        .into_iter()
        .map(|th| {
            let s = DVec2::new(th.cos(), th.sin());
            Ray {
                direction: s,
                rate: ray_rate(k, mu, s),
            }
        })
        .collect()
}

/// The direction the slip leaves zero in when sticking is unstable (s. 39): the unique
/// diverging ray (λ > 0) of (L7), with the method that found it. Errors when sticking is stable
/// (no ray diverges) or `mu` is not positive and finite.
pub fn diverging_ray(k: &DMat3, mu: f64) -> Result<(Ray, RayMethod), LawError> {
    let k = check_collision_matrix(k)?;
    if !(mu.is_finite() && mu > 0.0) {
        return Err(LawError::BadInput(format!(
            "friction coefficient {mu} must be positive and finite for a diverging ray"
        )));
    }
    let test = sticking_test(&k, mu);
    if test.stable {
        return Err(LawError::BadInput(format!(
            "sticking is stable (needs friction {} ≤ μ = {mu}): no ray diverges",
            test.required_friction
        )));
    }
    let best = slip_rays(&k, mu)
        .into_iter()
        .filter(|r| r.rate > 0.0)
        .max_by(|a, b| a.rate.total_cmp(&b.rate));
    if let Some(r) = best {
        return Ok((r, RayMethod::Quartic));
    }
    Ok((secular_ray(&k, mu), RayMethod::Secular))
}

/// The diverging ray from |ŝ(λ)| = 1, ŝ(λ) = (μK_tt + λI)⁻¹K_tn, decreasing in λ > 0 (see the
/// module notes): bisection to adjacent doubles. Only called when sticking is unstable.
fn secular_ray(k: &DMat3, mu: f64) -> Ray {
    let (k11, k12, k22) = tangential_block(k);
    let kt = tangential_coupling(k);
    let s_of = |lam: f64| {
        let (m11, m12, m22) = (mu * k11 + lam, mu * k12, mu * k22 + lam);
        let det = m11 * m22 - m12 * m12;
        DVec2::new(
            (m22 * kt.x - m12 * kt.y) / det,
            (m11 * kt.y - m12 * kt.x) / det,
        )
    };
    // |ŝ(λ)| ≤ |K_tn| / λ (μK_tt ⪰ 0), so λ = |K_tn| brackets the root from above.
    let (mut lo, mut hi) = (0.0, kt.length().max(f64::MIN_POSITIVE));
    for _ in 0..2000 {
        let mid = 0.5 * (lo + hi);
        if mid <= lo || mid >= hi {
            break;
        }
        if s_of(mid).length() > 1.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let s = s_of(hi).normalize_or_zero();
    Ray {
        direction: s,
        rate: ray_rate(k, mu, s),
    }
}

/// Real roots of Σ c[i] tⁱ (degree ≤ 4, c[last] ≠ 0), ascending. Between consecutive real roots
/// of the derivative the polynomial is monotone: each sign change there is bisected to adjacent
/// doubles. The roots lie within Cauchy's bound 1 + max |c[i]/c[n]|.
fn real_roots(c: &[f64]) -> Vec<f64> {
    let mut n = c.len() - 1;
    while n > 0 && c[n] == 0.0 {
        n -= 1;
    }
    if n == 0 {
        return Vec::new();
    }
    let c = &c[..=n];
    let eval = |t: f64| c.iter().rev().fold(0.0, |acc, &ci| acc * t + ci);
    let bound = 1.0
        + c[..n]
            .iter()
            .map(|ci| (ci / c[n]).abs())
            .fold(0.0, f64::max);
    let deriv: Vec<f64> = (1..=n).map(|i| i as f64 * c[i]).collect();
    let mut knots = vec![-bound];
    knots.extend(real_roots(&deriv).into_iter().filter(|t| t.abs() < bound));
    knots.push(bound);
    let mut roots = Vec::new();
    for w in knots.windows(2) {
        let (mut lo, mut hi) = (w[0], w[1]);
        let (glo, ghi) = (eval(lo), eval(hi));
        if glo == 0.0 {
            roots.push(lo);
            continue;
        }
        if glo * ghi > 0.0 {
            continue;
        }
        let rising = ghi > glo;
        loop {
            let mid = 0.5 * (lo + hi);
            if mid <= lo || mid >= hi {
                break;
            }
            if (eval(mid) < 0.0) == rising {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        roots.push(if eval(lo).abs() <= eval(hi).abs() {
            lo
        } else {
            hi
        });
    }
    if eval(bound) == 0.0 {
        roots.push(bound);
    }
    roots.dedup();
    roots
}
