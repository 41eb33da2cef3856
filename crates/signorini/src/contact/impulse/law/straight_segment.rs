//! Straight segments of the impulse path (L9): with a constant friction rate f, P, u and W_n are
//! closed-form in the step x along P_n, so the segment runs exactly to its first event — the slip
//! stopping, the end of compression or the law's target (L4a–c).
//!
//! ```text
//!   x ↦ P + (f, 1) x,  u + K(f, 1) x,  W_n + u_n x + ½ (K(f, 1))_n x²              (L9)
//! ```
use glam::{DVec2, DVec3};

use super::integration::{Path, Phase};
use super::records::{Law, SegmentKind};
use super::LawError;

/// What ended a straight segment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Event {
    SlipStop,
    CompressionEnd,
    Target,
}

impl Path {
    /// One straight segment (L9) with constant friction rate `f`, to the first event: the slip
    /// stopping (when sliding along `slip` with λ < 0 and not yet locked), the end of
    /// compression, or the law's target.
    pub(super) fn straight(
        &mut self,
        f: DVec2,
        slip: Option<DVec2>,
        kind: SegmentKind,
    ) -> Result<(), LawError> {
        let q = DVec3::new(f.x, f.y, 1.0);
        let d = self.k * q;
        let u = self.velocity();
        let mut best: Option<(f64, Event)> = None;
        let mut offer = |x: f64, ev: Event| {
            if x.is_finite() && x >= 0.0 && best.is_none_or(|(b, _)| x < b) {
                best = Some((x, ev));
            }
        };
        if let (Some(s), None) = (slip, self.locked) {
            let lam = s.dot(DVec2::new(d.x, d.y));
            if lam < 0.0 {
                offer(DVec2::new(u.x, u.y).length() / -lam, Event::SlipStop);
            }
        }
        let (pc, wc) = self.pc_wc();
        match (self.phase, self.law) {
            (Phase::Compression, _) | (Phase::Extension, _) => {
                if d.z > 0.0 {
                    let ev = if self.phase == Phase::Compression {
                        Event::CompressionEnd
                    } else {
                        Event::Target
                    };
                    offer((-u.z / d.z).max(0.0), ev);
                }
            }
            (_, Law::Newton) => {
                if d.z > 0.0 {
                    offer(((-self.e * self.u0.z - u.z) / d.z).max(0.0), Event::Target);
                }
            }
            (_, Law::Poisson) => offer(((1.0 + self.e) * pc - self.p.z).max(0.0), Event::Target),
            (_, Law::Stronge) => {
                // W_n + u_n x + ½ d_n x² = (1 − e²) W_c: smallest x ≥ 0, in the cancellation-free
                // form x = 2D / (u_n + √(u_n² + 2 d_n D)), D = target − W_n ≥ 0.
                let gap = ((1.0 - self.e * self.e) * wc - self.w).max(0.0);
                let disc = u.z * u.z + 2.0 * d.z * gap;
                if gap == 0.0 {
                    offer(0.0, Event::Target);
                } else if disc >= 0.0 && u.z + disc.sqrt() > 0.0 {
                    offer(2.0 * gap / (u.z + disc.sqrt()), Event::Target);
                }
            }
            (_, Law::AlgebraicNewton) => offer(0.0, Event::Target),
        }
        let Some((x, ev)) = best else {
            return Err(self.fail(format!(
                "no event ahead on a straight segment (friction rate {f}, du/dP_n = {d})"
            )));
        };
        let start = self.p;
        self.w += u.z * x + 0.5 * d.z * x * x;
        self.p += q * x;
        if ev == Event::Target && self.law == Law::Poisson && self.phase == Phase::Restitution {
            // Land exactly on (L4b).
            self.p.z = (1.0 + self.e) * pc;
        }
        self.record(kind, start);
        match ev {
            Event::SlipStop => self.slip_stopped = true,
            Event::CompressionEnd => self.end_compression(),
            Event::Target => self.done = true,
        }
        Ok(())
    }
}
