//! Sliding with a rotating slip direction: one adaptive Dormand–Prince 5(4) step
//! ([`crate::dynamics::dormand_prince`]) of (L2), (L3) on y = (P_t1, P_t2, W_n) against P_n, with
//! the error norm max(|δP_t| / (μΠ), |δW_n| / (VΠ)), the step limited to the slip's own scale
//! near zero slip, the snap onto a settled converging ray, and events (end of compression,
//! restitution targets) located by Illinois regula falsi on the step length.
use glam::{DVec2, DVec3};

use super::integration::{Path, Phase};
use super::records::{Law, SegmentKind};
use super::sticking::{ray_condition, ray_rate};
use super::LawError;
use crate::dynamics::dormand_prince;

impl Path {
    /// dy/dP_n for y = (P_t1, P_t2, W_n) at normal impulse `pn` (L2, L3).
    fn rhs(&self, pn: f64, y: [f64; 3]) -> [f64; 3] {
        let u = self.velocity_at(DVec3::new(y[0], y[1], pn));
        let s = DVec2::new(u.x, u.y).normalize_or_zero();
        [-self.mu * s.x, -self.mu * s.y, u.z]
    }

    /// One Dormand–Prince step of length h from (pn, y): the 5th-order solution and the
    /// difference to the 4th-order one.
    fn dp_step(&self, pn: f64, y: [f64; 3], h: f64) -> ([f64; 3], [f64; 3]) {
        dormand_prince::step(|t, yt| self.rhs(t, yt), pn, y, h)
    }

    /// The error norm of a step relative to the tolerance (≤ 1: accept).
    fn error_norm(&self, err: [f64; 3]) -> f64 {
        let pt = err[0].hypot(err[1]) / (self.mu * self.p_scale);
        let w = err[2].abs() / (self.v_scale * self.p_scale);
        pt.max(w) / self.options.tolerance
    }

    /// The event function of the current phase at (pn, y): crossing from < 0 to ≥ 0 ends the
    /// phase. None when the phase has no state event (Poisson's target is a parameter value).
    fn event_value(&self, pn: f64, y: [f64; 3]) -> Option<f64> {
        let un = self.velocity_at(DVec3::new(y[0], y[1], pn)).z;
        let (_, wc) = self.pc_wc();
        match (self.phase, self.law) {
            (Phase::Compression, _) | (Phase::Extension, _) => Some(un),
            (_, Law::Newton) => Some(un + self.e * self.u0.z),
            (_, Law::Stronge) => Some(y[2] - (1.0 - self.e * self.e) * wc),
            _ => None,
        }
    }

    /// One accepted Runge–Kutta step of the sliding phase (shortened to an event inside it).
    pub(super) fn rk_step(&mut self) -> Result<(), LawError> {
        let pn = self.p.z;
        let y = [self.p.x, self.p.y, self.w];
        let u = self.velocity();
        let ut = DVec2::new(u.x, u.y);
        let rho = ut.length();
        let s0 = ut / rho;
        // In polar form u_t = ρ(cos θ, sin θ) the flow is dρ/dP_n = R(θ), dθ/dP_n = g(θ)/ρ, with
        // g(θ) = ŝ⊥·F(ŝ) the ray condition of (L7) and R = ŝ·F(ŝ). Near zero slip the angle is
        // stiff: it relaxes onto an attracting ray at the rate |g'(θ)|/ρ. An explicit step
        // longer than that is unstable, and the 5(4) estimate can then be fooled into a
        // chattering pseudo-equilibrium that never reaches zero. So each step is limited to
        // h ≤ ρ / (5|g| + 1.5|g'| + |R⁻|/0.9): a turn of at most ~0.2 rad, h|g'|/ρ ≤ 2/3 (well
        // inside the method's stability interval, ≈ 3.3), and 0.9 of the distance to zero slip.
        let theta = s0.y.atan2(s0.x);
        let (g, dg) = ray_condition(&self.k, self.mu, theta);
        let radial = ray_rate(&self.k, self.mu, s0);
        // Steps below a few ulps of P_n cannot move it.
        let h_min = 16.0 * f64::EPSILON * pn.abs() + f64::MIN_POSITIVE;
        let mut h_max = rho / (5.0 * g.abs() + 1.5 * dg.abs() + radial.min(0.0).abs() / 0.9);
        if h_max <= h_min {
            // The slip is within what P_n can resolve of zero: it has stopped.
            self.slip_stopped = true;
            return Ok(());
        }
        if dg < 0.0 && g.abs() <= 0.01 * dg.abs() {
            if let Some(ray) = self.settled_ray(theta, rho) {
                return self.straight(-self.mu * ray, Some(ray), SegmentKind::SlidingIntegrated);
            }
        }
        let poisson_end = self.law == Law::Poisson && self.phase == Phase::Restitution;
        let to_target = (1.0 + self.e) * self.pc_wc().0 - pn;
        if poisson_end {
            h_max = h_max.min(to_target);
        }
        let h = self.h.min(h_max);
        let g0 = self.event_value(pn, y);
        let (h, y1, grow) = self.accepted_trial(pn, y, h, h_min, rho, s0)?;
        let start = self.p;
        let g1 = self.event_value(pn + h, y1);
        let (h_used, y_used, event) = match (g0, g1) {
            (Some(a), Some(b)) if a < 0.0 && b >= 0.0 => {
                let (hs, ys) = self.locate(pn, y, h, a, b);
                (hs, ys, true)
            }
            _ => (h, y1, poisson_end && h >= to_target),
        };
        self.p = DVec3::new(y_used[0], y_used[1], pn + h_used);
        if event && poisson_end {
            self.p.z = (1.0 + self.e) * self.pc_wc().0;
        }
        self.w = y_used[2];
        self.steps += 1;
        self.h = h * grow;
        self.record(SegmentKind::SlidingIntegrated, start);
        if event {
            if self.phase == Phase::Compression {
                self.end_compression();
            } else {
                self.done = true;
            }
        }
        if self.steps > self.options.max_steps {
            return Err(self.fail(format!("more than {} steps", self.options.max_steps)));
        }
        Ok(())
    }

    /// The attracting converging ray θ* the slip direction θ has settled onto, if it has.
    ///
    /// Once the direction has settled onto an attracting (g' < 0) converging (λ < 0) ray θ*,
    /// finish along the ray (L9): snap when the slip across the ray, ρ |θ − θ*|, is at the
    /// round-off level of u_t, so the straight segment ends at zero slip to round-off and the
    /// friction impulse left, μ ρ/|λ|, is off by μ ρ |θ − θ*| / |λ| at most. (Near such a ray
    /// θ − θ* shrinks like ρ^(g'/λ); the more strongly it attracts, the stiffer the angle and
    /// the sooner the snap.) Called only when g'(θ) < 0 and |g(θ)| ≤ 0.01 |g'(θ)|.
    fn settled_ray(&self, theta: f64, rho: f64) -> Option<DVec2> {
        let mut star = theta;
        for _ in 0..6 {
            let (gs, dgs) = ray_condition(&self.k, self.mu, star);
            if dgs == 0.0 {
                break;
            }
            star -= gs / dgs;
        }
        let ray = DVec2::new(star.cos(), star.sin());
        let lam = ray_rate(&self.k, self.mu, ray);
        let (gs, dgs) = ray_condition(&self.k, self.mu, star);
        let settled = (star - theta).abs() <= 0.01
            && dgs < 0.0
            && gs.abs() <= 64.0 * f64::EPSILON * (dgs.abs() + lam.abs())
            && lam < 0.0
            && rho * (star - theta).abs() <= self.slip_floor();
        settled.then_some(ray)
    }

    /// Trial steps from (pn, y), starting at length `h` and shrunk until the error norm accepts
    /// one that does not turn the slip `s0` (of size `rho`) around: its length, its 5th-order
    /// solution and the growth factor for the next step. Fails below `h_min`.
    fn accepted_trial(
        &self,
        pn: f64,
        y: [f64; 3],
        mut h: f64,
        h_min: f64,
        rho: f64,
        s0: DVec2,
    ) -> Result<(f64, [f64; 3], f64), LawError> {
        loop {
            if h < h_min {
                return Err(self.fail(format!(
                    "step size {h:e} N s below {h_min:e} (slip {rho:e} m/s)"
                )));
            }
            let (y1, err) = self.dp_step(pn, y, h);
            let norm = self.error_norm(err);
            let u1 = self.velocity_at(DVec3::new(y1[0], y1[1], pn + h));
            let turned = DVec2::new(u1.x, u1.y).dot(s0) < 0.0;
            if norm.is_nan() || norm > 1.0 || turned {
                let shrink = if norm.is_finite() {
                    (0.9 * norm.powf(-0.2)).clamp(0.2, 0.9)
                } else {
                    0.2
                };
                h *= if turned { 0.5f64.min(shrink) } else { shrink };
                continue;
            }
            let grow = if norm > 0.0 {
                (0.9 * norm.powf(-0.2)).clamp(0.2, 5.0)
            } else {
                5.0
            };
            return Ok((h, y1, grow));
        }
    }

    /// The step length in (0, h] where the event function crosses zero (Illinois regula falsi on
    /// the step length; each trial is one Runge–Kutta step from the same start). Returns the
    /// bracket's upper end, where the function is ≥ 0.
    fn locate(&self, pn: f64, y: [f64; 3], h: f64, g_lo: f64, g_hi: f64) -> (f64, [f64; 3]) {
        let (mut lo, mut hi) = (0.0, h);
        let (mut glo, mut ghi) = (g_lo, g_hi);
        let mut y_hi = self.dp_step(pn, y, h).0;
        let mut side = 0i8;
        for _ in 0..200 {
            if hi - lo <= 4.0 * f64::EPSILON * (pn + hi) || ghi == 0.0 {
                break;
            }
            let mut x = hi - ghi * (hi - lo) / (ghi - glo);
            if !(x > lo && x < hi) {
                x = 0.5 * (lo + hi);
            }
            let yx = self.dp_step(pn, y, x).0;
            let gx = self.event_value(pn + x, yx).unwrap_or(0.0);
            if gx >= 0.0 {
                hi = x;
                ghi = gx;
                y_hi = yx;
                if side == 1 {
                    glo *= 0.5;
                }
                side = 1;
            } else {
                lo = x;
                glo = gx;
                if side == -1 {
                    ghi *= 0.5;
                }
                side = -1;
            }
        }
        (hi, y_hi)
    }
}
