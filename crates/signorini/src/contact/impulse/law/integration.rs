//! Mirtich's collision integration (s. 28–40; Deguet eqs. 1–3), the driver: the state of the
//! impulse path parameterized by P_n (P = (P_t1, P_t2, P_n) and the normal work W_n, (L2), (L3)),
//! the phases compression → restitution (→ extension for Poisson), the choice of the next piece
//! (frictionless or locked straight segment, sticking test at zero slip, straight segment along
//! an invariant ray, or a Runge–Kutta step of the sliding flow) and the final [`Collision`].
//!
//! ```text
//!   loop:
//!     end compression at the first u_n ≥ 0; stop once the law's target (L4a–c) is met
//!     μ = 0          → straight segment, f = 0                      (straight_segment.rs)
//!     slip locked    → straight segment with the locked f (L6, L7)  (straight_segment.rs)
//!     slip = 0       → sticking test (L6), lock f* or the diverging ray
//!     slip on a ray  → straight segment along it (L9)               (straight_segment.rs)
//!     otherwise      → one Dormand–Prince step of (L2), (L3)        (sliding_step.rs)
//! ```
use glam::{DMat3, DVec2, DVec3};

use super::collide::energy_change;
use super::collision_matrix::{at, ktt_mul, max_abs, tangential_block, tangential_coupling};
use super::records::{Collision, Law, Segment, SegmentKind, Stick};
use super::sticking::{diverging_ray, sticking_test};
use super::LawError;

/// Options of the collision integration.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct IntegrationOptions {
    /// Local error allowed per step, relative to the impulse scale Π = |u₀| / K_nn (and to
    /// μΠ for the friction impulse, |u₀|Π for the work). Dimensionless, in [1e-14, 1e-2].
    pub tolerance: f64,
    /// Accepted integration steps before giving up.
    pub max_steps: usize,
    /// Take exact straight segments whenever the slip direction is an invariant ray (default
    /// true). False sends sliding phases that start on a ray through the Runge–Kutta integrator
    /// too: for tests of the integrator against closed forms.
    pub straight_rays: bool,
}

impl Default for IntegrationOptions {
    fn default() -> Self {
        IntegrationOptions {
            tolerance: 1e-10,
            max_steps: 100_000,
            straight_rays: true,
        }
    }
}

/// The phase of the collision: which target ends it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Phase {
    Compression,
    Restitution,
    /// Poisson's target met with u_n < 0: on to u_n = 0.
    Extension,
}

/// The friction rate chosen once the slip stopped: for the rest of the collision.
#[derive(Clone, Copy, Debug)]
pub(super) struct Locked {
    pub(super) friction: DVec2,
    pub(super) kind: SegmentKind,
    /// The diverging ray when unstable.
    pub(super) slip: Option<DVec2>,
}

/// Integration state: P = (P_t1, P_t2, P_n) and W_n, with the phase bookkeeping.
pub(super) struct Path {
    pub(super) law: Law,
    pub(super) k: DMat3,
    pub(super) u0: DVec3,
    pub(super) mu: f64,
    pub(super) e: f64,
    pub(super) options: IntegrationOptions,
    /// |u₀| (m/s) and Π = |u₀| / K_nn (N s): the scales of the error norm.
    pub(super) v_scale: f64,
    pub(super) p_scale: f64,
    pub(super) p: DVec3,
    pub(super) w: f64,
    pub(super) phase: Phase,
    pub(super) compression: Option<(f64, f64)>,
    pub(super) done: bool,
    pub(super) slip_stopped: bool,
    pub(super) locked: Option<Locked>,
    pub(super) stick: Option<Stick>,
    pub(super) segments: Vec<Segment>,
    pub(super) steps: usize,
    pub(super) h: f64,
    pub(super) recompressed: bool,
    pub(super) extended: bool,
}

impl Path {
    pub(super) fn new(
        law: Law,
        k: DMat3,
        u0: DVec3,
        mu: f64,
        e: f64,
        options: IntegrationOptions,
    ) -> Self {
        let v_scale = u0.length();
        let p_scale = v_scale / at(&k, 2, 2);
        Path {
            law,
            k,
            u0,
            mu,
            e,
            options,
            v_scale,
            p_scale,
            p: DVec3::ZERO,
            w: 0.0,
            phase: Phase::Compression,
            compression: None,
            done: false,
            slip_stopped: false,
            locked: None,
            stick: None,
            segments: Vec::new(),
            steps: 0,
            h: 0.05 * p_scale,
            recompressed: false,
            extended: false,
        }
    }

    pub(super) fn velocity_at(&self, p: DVec3) -> DVec3 {
        self.u0 + self.k * p
    }

    pub(super) fn velocity(&self) -> DVec3 {
        self.velocity_at(self.p)
    }

    /// Round-off level of u_t = u₀ + K P: below it the slip counts as zero.
    pub(super) fn slip_floor(&self) -> f64 {
        64.0 * f64::EPSILON
            * (self.u0.abs().element_sum() + max_abs(&self.k) * self.p.abs().element_sum())
    }

    pub(super) fn fail(&self, why: impl Into<String>) -> LawError {
        LawError::IntegrationFailed {
            normal_impulse: self.p.z,
            steps: self.steps,
            why: why.into(),
        }
    }

    /// Record the path from `start` to the current P as a `kind` segment (merged with the
    /// previous one when of the same kind).
    pub(super) fn record(&mut self, kind: SegmentKind, start: DVec3) {
        match self.segments.last_mut() {
            Some(last) if last.kind == kind && last.end == start => last.end = self.p,
            _ => self.segments.push(Segment {
                kind,
                start,
                end: self.p,
            }),
        }
    }

    pub(super) fn end_compression(&mut self) {
        self.compression = Some((self.p.z, self.w));
        self.phase = Phase::Restitution;
        self.done = false;
    }

    /// (P_c, W_c), known once compression ended.
    pub(super) fn pc_wc(&self) -> (f64, f64) {
        self.compression.unwrap_or((0.0, 0.0))
    }

    /// Restitution's end reached, by value (the events also set `done`).
    fn target_met(&self) -> bool {
        let (pc, wc) = self.pc_wc();
        let u = self.velocity();
        self.done
            || match (self.phase, self.law) {
                (Phase::Compression, _) => false,
                (Phase::Extension, _) => u.z >= 0.0,
                (_, Law::Newton) => u.z >= -self.e * self.u0.z,
                (_, Law::Poisson) => self.p.z >= (1.0 + self.e) * pc,
                (_, Law::Stronge) => self.w >= (1.0 - self.e * self.e) * wc,
                (_, Law::AlgebraicNewton) => true,
            }
    }

    pub(super) fn run(mut self) -> Result<Collision, LawError> {
        let mut iterations = 0usize;
        loop {
            iterations += 1;
            if iterations > 4 * self.options.max_steps + 64 {
                return Err(self.fail("too many segments"));
            }
            if self.phase == Phase::Compression && self.velocity().z >= 0.0 {
                self.end_compression();
            }
            if self.phase != Phase::Compression && self.velocity().z < -self.slip_floor() {
                self.recompressed = true;
            }
            if self.phase != Phase::Compression && self.target_met() {
                if self.law == Law::Poisson
                    && self.phase == Phase::Restitution
                    && self.velocity().z < 0.0
                {
                    self.phase = Phase::Extension;
                    self.extended = true;
                    self.done = false;
                    continue;
                }
                break;
            }
            if self.mu == 0.0 {
                self.straight(DVec2::ZERO, None, SegmentKind::Frictionless)?;
                continue;
            }
            if let Some(l) = self.locked {
                self.straight(l.friction, l.slip, l.kind)?;
                continue;
            }
            let u = self.velocity();
            let ut = DVec2::new(u.x, u.y);
            let rho = ut.length();
            if self.slip_stopped || rho <= self.slip_floor() {
                self.stick_here()?;
                continue;
            }
            let s = ut / rho;
            let kt = tangential_coupling(&self.k);
            let (k11, k12, k22) = tangential_block(&self.k);
            let along = kt - self.mu * ktt_mul(&self.k, s);
            let across = DVec2::new(-s.y, s.x).dot(along);
            let size = kt.length() + self.mu * (k11.abs() + 2.0 * k12.abs() + k22.abs());
            if self.options.straight_rays && across.abs() <= 64.0 * f64::EPSILON * size {
                self.straight(-self.mu * s, Some(s), SegmentKind::SlidingStraight)?;
            } else {
                self.rk_step()?;
            }
        }
        Ok(self.finish())
    }

    /// The slip reached zero: test sticking (L6), pick the friction rate for the rest.
    fn stick_here(&mut self) -> Result<(), LawError> {
        let test = sticking_test(&self.k, self.mu);
        let (locked, ray) = if test.stable {
            (
                Locked {
                    friction: test.friction_rate,
                    kind: SegmentKind::Sticking,
                    slip: None,
                },
                None,
            )
        } else {
            // A near-marginal ray (|f*| ≈ μ) may come with λ ≈ 0 of either sign: the slip then
            // stays at round-off level, which is the physical limit.
            let (ray, method) = diverging_ray(&self.k, self.mu)?;
            (
                Locked {
                    friction: -self.mu * ray.direction,
                    kind: SegmentKind::LeavingAlongRay,
                    slip: Some(ray.direction),
                },
                Some((ray, method)),
            )
        };
        self.stick = Some(Stick {
            normal_impulse: self.p.z,
            test,
            ray,
        });
        self.locked = Some(locked);
        Ok(())
    }

    fn finish(self) -> Collision {
        let u = self.velocity();
        let (pc, wc) = self.pc_wc();
        let de = energy_change(&self.k, self.u0, self.p);
        let ut = DVec2::new(u.x, u.y);
        let stuck = self.locked.is_some_and(|l| l.kind == SegmentKind::Sticking)
            || (self.mu > 0.0 && self.locked.is_none() && self.slip_stopped);
        Collision {
            law: self.law,
            impulse: self.p,
            velocity: u,
            compression_impulse: pc,
            compression_work: wc,
            restitution_work: self.w - wc,
            friction_work: de - self.w,
            energy_change: de,
            stick: self.stick,
            // Sticking at the end: no slip (u_t is then zero to round-off or, when the slip was
            // found stopped at the resolution of P_n, to a few ulps of P_n times ‖K‖).
            exit_slip: (!stuck && ut.length() > self.slip_floor()).then(|| ut.normalize()),
            segments: self.segments,
            steps: self.steps,
            recompressed: self.recompressed,
            extended_to_separation: self.extended,
        }
    }
}
