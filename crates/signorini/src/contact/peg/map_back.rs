//! PEG's last step: the kept pass's solution z = (p, β, σ, c) mapped back to what the step
//! reports and remembers.
//!
//! ```text
//!   w = M z + q;  trap ⇔ a several-member constraint whose primary ends the step below its plane:
//!                        h (w_j − Σ_s c_js) < −TRAP_DEPTH   (w_j − Σ_s c_js = ψ̂_Pj, Lemma 1.1,
//!                        measured from the constraint's recovery floor: below what it must reach)
//!   memory[key] ← (p_j, β_j, σ_j, c_j·)   → the warm start of the same constraint next step
//! ```
use super::assemble::StepLcp;
use super::constraints::Constraint;
use super::passes::Passes;
use super::{Peg, TRAP_DEPTH};
use crate::contact::{ContactImpulses, ModelStats};
use crate::dynamics::jacobian::row_direction;
use crate::dynamics::Wrench;
use crate::geometry::Feature;
use glam::DVec3;
use nalgebra::DVector;

/// What the last step's subproblem held.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PegStats {
    /// Constraints (one force each): unilateral, inter-contact (vertex groups of several faces)
    /// and cross-contact (edge–edge with releases).
    pub unilateral: usize,
    pub inter: usize,
    pub cross: usize,
    /// Non-primary members (slack variables c).
    pub slacks: usize,
    /// Constraints with several members whose primary ended the step more than [`TRAP_DEPTH`]
    /// beyond its plane: the body went round a corner that the primary's half-space alone (the
    /// standard model's contact) would have blocked.
    pub traps: usize,
    /// Detection + solve passes the step ran (parameter `passes`).
    pub passes: usize,
    /// 1 when a further pass's subproblem was too large or was not solved, or its velocities
    /// diverged, so that the step kept an earlier pass's solution.
    pub passes_dropped: usize,
}

/// Last step's solution of a constraint: p, β (k entries or none), σ, and the slack of each
/// member by its features.
#[derive(Clone, Debug, Default)]
pub(super) struct Previous {
    p: f64,
    beta: Vec<f64>,
    sigma: f64,
    slacks: Vec<((Feature, Feature), f64)>,
}

/// The [`PegStats`] of the kept pass's solution `z` of `lcp` over `constraints` (step `h`):
/// constraint kinds, slack variables and traps; `passes` and `passes_dropped` as given.
pub(super) fn count_traps(
    constraints: &[Constraint],
    lcp: &StepLcp,
    z: &DVector<f64>,
    h: f64,
    passes: usize,
) -> PegStats {
    let (np, nt, nf, ns) = (constraints.len(), lcp.nt, lcp.frictional.len(), lcp.ns);
    // Traps: the primary of a several-member constraint ended beyond its plane (w = M z + q,
    // an n × n product, only when some constraint has several members).
    let w = if constraints.iter().any(|c| c.multi) {
        let dense = lcp.problem();
        &dense.m * z + &dense.q
    } else {
        DVector::zeros(0)
    };
    let mut stats = PegStats {
        slacks: ns,
        passes,
        ..PegStats::default()
    };
    let mut slack = np + nt + nf;
    for (j, c) in constraints.iter().enumerate() {
        let m = c.others.len();
        let sum: f64 = (0..m).map(|s| z[slack + s]).sum();
        slack += m;
        if c.cross {
            stats.cross += 1;
        } else if c.multi {
            stats.inter += 1;
        } else {
            stats.unilateral += 1;
        }
        if c.multi && h * (w[j] - sum) < -TRAP_DEPTH {
            stats.traps += 1;
        }
    }
    stats
}

/// Each constraint's impulse p n + Σ_j β_j d_j (N s, on B of its primary, at the primary's
/// midpoint) of the solution `z` of `lcp` into `log`. The directions are the rows' own (the
/// normals and tangents where the linearization took them), so the record is exactly the
/// impulse the step applied.
fn record_impulses(
    constraints: &[Constraint],
    lcp: &StepLcp,
    z: &DVector<f64>,
    (k, offsets): (usize, &[Option<usize>]),
    log: &mut ContactImpulses,
) {
    let np = constraints.len();
    let direction =
        |j: usize, r: usize| row_direction(&lcp.rows[r], offsets[constraints[j].primary.body_b]);
    let normals: Vec<DVec3> = (0..np).map(|j| direction(j, j)).collect();
    let mut impulses: Vec<DVec3> = (0..np).map(|j| z[j] * normals[j]).collect();
    for (f, &j) in lcp.frictional.iter().enumerate() {
        for i in 0..k {
            let r = np + f * k + i;
            impulses[j] += z[r] * direction(j, r);
        }
    }
    for ((c, n), impulse) in constraints.iter().zip(normals).zip(impulses) {
        let p = &c.primary;
        log.impulse((p.body_a, p.body_b), p.midpoint(), n, impulse);
    }
}

impl Peg {
    /// End the step with the kept pass of `passes`: its forces into `out` and each
    /// constraint's impulse into `log`, `constraints` cut to the ones it solved, its
    /// [`PegStats`] (step `h`) and its solution remembered (k friction directions; `offsets`
    /// of the bodies' velocities).
    pub(super) fn map_back(
        &mut self,
        passes: Passes,
        constraints: &mut Vec<Constraint>,
        (h, k, offsets): (f64, usize, &[Option<usize>]),
        out: &mut [Wrench],
        log: &mut ContactImpulses,
    ) -> ModelStats {
        let kept = passes.kept;
        out.copy_from_slice(&kept.forces);
        constraints.truncate(kept.count);
        let (lcp, z, report) = kept.solved;
        record_impulses(constraints, &lcp, &z, (k, offsets), log);
        let np = constraints.len();
        let mut stats = count_traps(constraints, &lcp, &z, h, passes.pass);
        stats.passes_dropped = passes.dropped;
        self.last = stats;
        self.record_memory(constraints, &lcp, &z, k);
        ModelStats {
            active_points: (0..np).filter(|&j| z[j] > 0.0).count(),
            solve: Some(report),
            detection: passes.detection,
        }
    }

    /// Remember the solution `z` of `lcp` over `constraints` (k friction directions) by
    /// constraint key, for next step's warm start; forget everything else.
    pub(super) fn record_memory(
        &mut self,
        constraints: &[Constraint],
        lcp: &StepLcp,
        z: &DVector<f64>,
        k: usize,
    ) {
        let (np, nt, nf) = (constraints.len(), lcp.nt, lcp.frictional.len());
        self.previous.clear();
        let mut slack = np + nt + nf;
        for (j, c) in constraints.iter().enumerate() {
            let slacks = c
                .others
                .iter()
                .enumerate()
                .map(|(s, o)| ((o.feature_a, o.feature_b), z[slack + s]))
                .collect();
            slack += c.others.len();
            self.previous.insert(
                c.key,
                Previous {
                    p: z[j],
                    slacks,
                    ..Previous::default()
                },
            );
        }
        for (f, &j) in lcp.frictional.iter().enumerate() {
            let entry = self
                .previous
                .get_mut(&constraints[j].key)
                .expect("inserted above");
            entry.beta = (0..k).map(|i| z[np + f * k + i]).collect();
            entry.sigma = z[np + nt + f];
        }
    }

    /// The warm start of `lcp` over `constraints` (k friction directions): last step's solution
    /// of the same constraints (by key), zero elsewhere; and the rows proposed for the principal
    /// system besides its support: the force row of every constraint matched from last step,
    /// loaded or not (the four corners of a resting face, as `stewart-trinkle`'s normal rows).
    pub(super) fn warm_start(
        &self,
        constraints: &[Constraint],
        lcp: &StepLcp,
        k: usize,
    ) -> (DVector<f64>, Vec<bool>) {
        let (np, nt, nf) = (constraints.len(), lcp.nt, lcp.frictional.len());
        let mut warm = DVector::zeros(lcp.len());
        let mut proposed = vec![false; lcp.len()];
        let mut slack = np + nt + nf;
        for (j, c) in constraints.iter().enumerate() {
            if let Some(prev) = self.previous.get(&c.key) {
                warm[j] = prev.p;
                proposed[j] = true;
                for o in &c.others {
                    if let Some((_, v)) = prev
                        .slacks
                        .iter()
                        .find(|(f, _)| *f == (o.feature_a, o.feature_b))
                    {
                        warm[slack] = *v;
                    }
                    slack += 1;
                }
            } else {
                slack += c.others.len();
            }
        }
        for (f, &j) in lcp.frictional.iter().enumerate() {
            if let Some(prev) = self.previous.get(&constraints[j].key) {
                if prev.beta.len() == k {
                    for i in 0..k {
                        warm[np + f * k + i] = prev.beta[i];
                    }
                    warm[np + nt + f] = prev.sigma;
                }
            }
        }
        (warm, proposed)
    }
}
