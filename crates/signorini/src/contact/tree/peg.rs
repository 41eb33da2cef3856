//! PEG (Williams, Lu & Trinkle 2016) on a tree: the free bodies' `peg` (`contact::peg`, its
//! module doc) with the tree's joint-space mass matrix, in the Stewart–Trinkle step of `lcp.rs`.
//!
//! A pair of polytope shapes on two links is searched for potential contacts
//! (`collision::potential::pair`, eqs 17–25 and 34–38) at the links' world poses, each moving
//! with its link's velocity; each group becomes one constraint "at least one member keeps
//! ψ ≥ 0" with one primary contact P_j (eq. 24, `contact::peg::primary_member`: the member of
//! largest gap, or the edge–edge contact) and the other members K_js as slacks. Every other
//! contact is a plain unilateral constraint, as in the free model: the ground (a half-space has
//! no corner to be trapped at), a pair with a sphere, and a polytope pair that the narrow phase
//! finds overlapping deeper than `recovery_depth` (its narrow-phase points, frictionless, so
//! that an overlap an unseen feature pair let in is pushed out). Joint limits are rows as in
//! `lcp.rs`. With the rows of `lcp.rs` written through the point Jacobians (G = n · J_p,
//! J_p = J_B(p_B) − J_A(p_A)), the subproblem is the free model's, with W = G A⁻¹ Gᵀ:
//!
//! ```text
//!   v⁺ = v_ℓ + A⁻¹ (G_Pᵀ p + Dᵀ β)                                         (eq. 43)
//!   0 ≤ p_j  ⊥ G_Pj v⁺ + (ψ_Pj − f_j)/h + c_j1 + … + c_jm ≥ 0               (eqs 24, 40, 46)
//!   0 ≤ c_js ⊥ (G_Pj − G_Kjs) v⁺ + (ψ_Pj − ψ_Kjs)/h + c_j1 + … + c_js ≥ 0     (eqs 20, 39, 45)
//!   friction on P_j as Stewart–Trinkle's (eqs 22–23 of their paper)
//! ```
//!
//! f_j = `time_stepping::recovery_floor` of the constraint's largest member gap at the start:
//! an overlap goes at no more than `max_recovery_speed` (the free model's `recovery =
//! "bounded"`). Eliminating v⁺ leaves the LCP in z = (p, β, σ, c): the Stewart–Trinkle LCP of
//! the primaries (`lcp::lcp`) bordered by the slack rows Δ = G_P − G_K with E_P and the lower
//! triangle L of ones. Without polytope pairs between links it *is* the Stewart–Trinkle LCP,
//! row for row (tested: the same trajectory to round-off).
//!
//! Warm start: every unknown is keyed across steps (`RowKey`, `Unknown`: a ground point by
//! shape and vertex, a narrow-phase point by shapes and features, a group by shapes and
//! `GroupKey`, a limit by joint and side), and last step's answer on the shared keys is tried
//! first: its support repaired by principal pivoting, a singular principal system answered
//! least-norm (`SolverChain::warm_start`), then the chain. The groups come and go as bodies
//! move, so a warm start by position (`lcp.rs`'s) missed on nearly every step of a grasp.
//!
//! Activation, as the free model's derived one: features are swept over T = h with their
//! relative velocity and kept within σ = `activation_distance` + h² (|ω_a|² r_a + |ω_b|² r_b +
//! |g|) / 2, r the farthest shape point from its link's origin; applicability is relaxed by
//! θ = `applicability_angle` + h |ω_a − ω_b| (at most π/2).
//!
//! Departures from the free `peg`, stated: one linearization a step, at the start (the paper's
//! `gap_prediction = "linear"`, `passes = 1`; the free model's implicit re-linearization passes
//! and energy guard are written on free bodies' poses and are not taken here), and no
//! post-step projection (the paper's PEG). Faces of a link's shape that another shape of the
//! same link covers are not excluded (each shape is searched as a whole polytope).
use super::lcp::{lcp, TreeContactError, TreeLcp, TreeLcpParams};
use super::pairs::{touches, world_pose, Touch};
use super::{LinkShape, TreeStepStats};
use crate::collision::potential::{self, GroupKey, Motion, PotentialParams, PotentialSet};
use crate::contact::peg::primary_member;
use crate::contact::time_stepping::recovery_floor;
use crate::geometry::{Feature, Shape};
use crate::multibody::integrate::advance_positions;
use crate::multibody::{LinkKinematics, Tree};
use crate::solvers::Problem;
use glam::DVec3;
use nalgebra::{Cholesky, DMatrix, DVector, Dyn};
use std::collections::BTreeMap;

/// PEG's search buffers and the step's constraints beyond their primaries (which are
/// `TreeLcp::touches`), kept across steps for their storage.
#[derive(Clone, Debug, Default)]
pub struct PegSearch {
    scratch: potential::Scratch,
    set: PotentialSet,
    /// Per contact row: the constraint's largest member gap at the start (m) for a group,
    /// `None` for a plain constraint (its own gap).
    start_gap: Vec<Option<f64>>,
    /// The slack members (K_js), constraint by constraint in row order: (the row of its
    /// constraint, the member).
    others: Vec<(usize, Touch)>,
    /// (shape a, shape b, feature a, feature b) of every group primary: a narrow-phase point
    /// that is one is not a recovery constraint too.
    primaries: Vec<(usize, usize, Feature, Feature)>,
    /// Each contact row's key, in row order; and each slack member's (its group's key and its
    /// features).
    keys: Vec<RowKey>,
    slack_keys: Vec<Unknown>,
    /// Last step's answer by unknown (the warm start of the next, `warm`).
    last: BTreeMap<Unknown, f64>,
}

/// What a constraint row is across steps, for the warm start.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum RowKey {
    /// A shape's vertex (0 for a sphere) on the ground.
    Ground(usize, usize),
    /// A narrow-phase point of two shapes (plain or recovery), by their features.
    Point(usize, usize, Feature, Feature),
    /// A group of two polytope shapes.
    Group(usize, usize, GroupKey),
    /// A joint limit: its degree of freedom, and whether it is the upper one.
    Limit(usize, bool),
}

/// An unknown of the LCP across steps: a row's impulse p (0), friction β_j (1 + j), slack σ
/// (`SIGMA`), or a group's slack variable c of the member with these features (`Slack`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Unknown {
    Row(RowKey, usize),
    Slack(RowKey, Feature, Feature),
}

const SIGMA: usize = usize::MAX;

/// Are shapes `a` and `b` of `shapes` both polytopes?
fn both_polytopes(shapes: &[LinkShape], a: usize, b: usize) -> bool {
    let polytope = |s: &LinkShape| matches!(s.shape, Shape::Polytope(_));
    polytope(&shapes[a]) && polytope(&shapes[b])
}

/// How far (m) a point of shape `s` can be from its link's origin.
fn reach_from_link(s: &LinkShape) -> f64 {
    s.pose.translation.length() + s.shape.bounding_radius()
}

/// The key of a narrow-phase point between two shapes.
fn point_key(c: &super::LinkContact) -> RowKey {
    RowKey::Point(c.shape_a, c.shape_b, c.features.0, c.features.1)
}

/// The motion of link `l` for the sweep: its origin, that point's velocity and its angular
/// velocity (world).
fn motion(l: &LinkKinematics) -> Motion {
    Motion {
        point: l.position,
        velocity: l.velocity,
        angular_velocity: l.angular_velocity,
    }
}

impl TreeLcpParams {
    /// The potential-contact search of shapes `sa` on link `la` and `sb` on `lb` over a step
    /// of h (s) under gravity of magnitude `gravity` (m/s²), as the free model's derived
    /// activation (module doc); `None` when their bounding balls about the links' origins,
    /// swept over h, stay beyond σ.
    fn search(
        &self,
        (la, sa): (&LinkKinematics, &LinkShape),
        (lb, sb): (&LinkKinematics, &LinkShape),
        gravity: f64,
        h: f64,
    ) -> Option<PotentialParams> {
        let (ra, rb) = (reach_from_link(sa), reach_from_link(sb));
        let curvature = la.angular_velocity.length_squared() * ra
            + lb.angular_velocity.length_squared() * rb
            + gravity;
        let distance = self.activation_distance + 0.5 * h * h * curvature;
        let sweep = h
            * ((la.velocity - lb.velocity).length()
                + la.angular_velocity.length() * ra
                + lb.angular_velocity.length() * rb);
        if la.position.distance(lb.position) - ra - rb > distance + sweep {
            return None;
        }
        let turn = h * (la.angular_velocity - lb.angular_velocity).length();
        let theta = (self.applicability_angle + turn).min(std::f64::consts::FRAC_PI_2);
        Some(PotentialParams {
            horizon: h,
            applicability: theta.sin(),
            ..PotentialParams::with_distance(distance)
        })
    }
}

impl TreeLcp {
    /// One PEG step (module doc) from the contacts `lcp.rs`'s step has found (`self.contacts`,
    /// `self.link_contacts` of the shape pairs `pairs`, `self.limits`), A = `chol`, v_ℓ =
    /// `v_free`.
    pub(super) fn peg_step(
        &mut self,
        tree: &Tree,
        shapes: &[LinkShape],
        pairs: &[(usize, usize)],
        (q, v): (&mut [f64], &mut [f64]),
        (chol, v_free): (&Cholesky<f64, Dyn>, DVector<f64>),
        h: f64,
    ) -> Result<TreeStepStats, TreeContactError> {
        self.peg_constraints(tree, shapes, pairs, h);
        let mut rows = self.rows(tree, h);
        let vmax = self.params.max_recovery_speed;
        for (j, d) in self.peg.start_gap.iter().enumerate() {
            if let Some(d) = d {
                rows.psi[j] = (self.touches[j].gap - recovery_floor(*d, h, vmax)) / h;
            }
        }
        let mut stats = self.peg_stats();
        let mut v_new = v_free.clone();
        let nr = rows.g.nrows();
        if nr > 0 {
            let (g_all, slack_gap) = self.slack_rows(tree, &rows.g);
            // X = L⁻¹ Gᵀ over the force and slack rows (A = L Lᵀ): W = Xᵀ X, and the impulses'
            // velocity change L⁻ᵀ (X z) over the force rows, as `lcp.rs`.
            let x = (chol.l_dirty())
                .solve_lower_triangular(&g_all.transpose())
                .ok_or(TreeContactError::SingularMass)?;
            let w = x.transpose() * &x;
            let problem = self.bordered(&rows, &w, &v_free, &slack_gap, &g_all, h);
            let unknowns = self.unknowns();
            debug_assert_eq!(unknowns.len(), problem.len());
            let warm = self.keyed_warm_start(&unknowns);
            let what = || {
                format!(
                    "tree PEG LCP of {} rows ({} constraints, {} slack members, {} joint limits)",
                    problem.len(),
                    self.touches.len(),
                    self.peg.others.len(),
                    self.limits.len()
                )
            };
            // Last step's support, repaired by principal pivoting with least-norm answers of
            // singular principal systems (a face's coplanar corners), before the chain.
            let warmed = (self.chain.warm_start_applies(problem.len(), &warm))
                .then(|| (self.chain).warm_start(&problem.m, &problem.q, &warm, &[], true))
                .and_then(Result::ok);
            let (z, report) = match warmed {
                Some((z, report, _)) => (z, report),
                None => self.chain.solve(&problem, &warm, what)?,
            };
            let xz = x.columns(0, nr) * z.rows(0, nr);
            v_new += (chol.l_dirty().tr_solve_lower_triangular(&xz))
                .ok_or(TreeContactError::SingularMass)?;
            stats.solved(problem.len(), &report);
            self.keep_answer(unknowns, &z);
        } else {
            self.peg.last.clear();
        }
        advance_positions(tree, q, v_new.as_slice(), h);
        v.copy_from_slice(v_new.as_slice());
        Ok(stats)
    }

    /// The step's constraints: their primaries into `self.touches` in row order (the ground's
    /// points, the plain link points, the groups, the recovery points), the groups' start gaps
    /// and slack members into `self.peg`.
    fn peg_constraints(
        &mut self,
        tree: &Tree,
        shapes: &[LinkShape],
        pairs: &[(usize, usize)],
        h: f64,
    ) {
        let peg = &mut self.peg;
        peg.start_gap.clear();
        peg.others.clear();
        peg.primaries.clear();
        peg.keys.clear();
        peg.slack_keys.clear();
        peg.keys.extend(
            self.contacts
                .iter()
                .map(|c| RowKey::Ground(c.shape, c.vertex)),
        );
        touches(&self.contacts, &[], &mut self.touches);
        let both_polytopes = |a: usize, b: usize| both_polytopes(shapes, a, b);
        for c in (self.link_contacts.iter()).filter(|c| !both_polytopes(c.shape_a, c.shape_b)) {
            self.touches.push(Touch::of_link(c, c.friction));
            peg.keys.push(point_key(c));
        }
        peg.start_gap.resize(self.touches.len(), None);
        self.peg_groups(tree, shapes, pairs, h);
        let peg = &mut self.peg;
        // Recovery: deep narrow-phase points of polytope pairs, frictionless.
        let depth = self.params.recovery_depth;
        for c in &self.link_contacts {
            let key = (c.shape_a, c.shape_b, c.features.0, c.features.1);
            if both_polytopes(c.shape_a, c.shape_b)
                && c.gap < -depth
                && !peg.primaries.contains(&key)
            {
                self.touches.push(Touch::of_link(c, 0.0));
                peg.start_gap.push(None);
                peg.keys.push(point_key(c));
            }
        }
    }

    /// The groups of every polytope pair of `pairs` within reach, pair by pair: each one's
    /// primary appended to `self.touches` (with its key and start gap), its other members to the
    /// slack members.
    fn peg_groups(&mut self, tree: &Tree, shapes: &[LinkShape], pairs: &[(usize, usize)], h: f64) {
        let peg = &mut self.peg;
        peg.scratch.clear_set(&mut peg.set);
        let gravity = tree.gravity.length();
        for &(a, b) in pairs.iter().filter(|&&(a, b)| both_polytopes(shapes, a, b)) {
            let (sa, sb) = (&shapes[a], &shapes[b]);
            let (la, lb) = (&self.links[sa.link], &self.links[sb.link]);
            let (Shape::Polytope(pa), Shape::Polytope(pb)) = (&sa.shape, &sb.shape) else {
                continue;
            };
            let (pose_a, pose_b) = (world_pose(la, &sa.pose), world_pose(lb, &sb.pose));
            let Some(params) = self.params.search((la, sa), (lb, sb), gravity, h) else {
                continue;
            };
            let first = peg.set.groups.len();
            potential::pair(
                (pa, &pose_a, &motion(la), &[]),
                (pb, &pose_b, &motion(lb), &[]),
                &params,
                &mut peg.scratch,
                &mut peg.set,
            );
            let friction = (sa.friction * sb.friction).sqrt();
            let touch = |c: &crate::collision::Contact, friction: f64| Touch {
                normal: c.normal,
                gap: c.gap,
                friction,
                b: (sb.link, c.point_b),
                a: Some((sa.link, c.point_a)),
            };
            for g in &peg.set.groups[first..] {
                let primary = primary_member(&peg.set, g);
                let p = &peg.set.contacts[primary];
                let row = self.touches.len();
                let mut start = p.gap;
                let key = RowKey::Group(a, b, g.key);
                for &m in g.members.iter().filter(|&&m| m != primary) {
                    let o = &peg.set.contacts[m];
                    start = start.max(o.gap);
                    peg.others.push((row, touch(o, 0.0)));
                    peg.slack_keys
                        .push(Unknown::Slack(key, o.feature_a, o.feature_b));
                }
                self.touches.push(touch(p, friction));
                peg.keys.push(key);
                peg.start_gap.push(Some(start));
                peg.primaries.push((a, b, p.feature_a, p.feature_b));
            }
        }
    }

    /// The force rows `g` (normals, limits, friction) followed by the slack rows
    /// Δ_s = G_Pj − n_K · J_K, and the slack rows' ψ_Pj − ψ_Ks (m).
    fn slack_rows(&mut self, tree: &Tree, g: &DMatrix<f64>) -> (DMatrix<f64>, Vec<f64>) {
        let (nr, nv) = (g.nrows(), g.ncols());
        let ns = self.peg.others.len();
        let mut all = DMatrix::zeros(nr + ns, nv);
        all.view_mut((0, 0), (nr, nv)).copy_from(g);
        let mut gap = Vec::with_capacity(ns);
        self.jac.resize(nv, DVec3::ZERO);
        for (s, (j, o)) in self.peg.others.iter().enumerate() {
            o.jacobian(tree, &self.links, &mut self.jac);
            for (col, x) in self.jac.iter().enumerate() {
                all[(nr + s, col)] = g[(*j, col)] - o.normal.dot(*x);
            }
            gap.push(self.touches[*j].gap - o.gap);
        }
        (all, gap)
    }

    /// The LCP in z = (p, β, σ, c) (module doc): `lcp::lcp` of the force rows, bordered by the
    /// slack rows (W over `g_all`'s rows is `w`). Without slacks, `lcp::lcp`'s problem itself.
    fn bordered(
        &self,
        rows: &super::lcp::Rows,
        w: &DMatrix<f64>,
        v_free: &DVector<f64>,
        slack_gap: &[f64],
        g_all: &DMatrix<f64>,
        h: f64,
    ) -> Problem {
        let nr = rows.g.nrows();
        let force = lcp(
            rows,
            &w.view((0, 0), (nr, nr)).into_owned(),
            v_free,
            self.cone_size(),
        );
        let ns = slack_gap.len();
        if ns == 0 {
            return force;
        }
        let n0 = force.len();
        let n = n0 + ns;
        let mut m = DMatrix::zeros(n, n);
        m.view_mut((0, 0), (n0, n0)).copy_from(&force.m);
        let mut q = DVector::zeros(n);
        q.rows_mut(0, n0).copy_from(&force.q);
        let mut chain_start = 0;
        for (s, &(owner, _)) in self.peg.others.iter().enumerate() {
            if s > 0 && self.peg.others[s - 1].0 != owner {
                chain_start = s;
            }
            let r = n0 + s;
            // W_ΔP, W_ΔD: the slack row against the impulses.
            m.view_mut((r, 0), (1, nr))
                .copy_from(&w.view((nr + s, 0), (1, nr)));
            // E_P: the constraint's force row sees every slack of its chain.
            m[(owner, r)] = 1.0;
            // L: a slack row sees the slacks of its chain up to itself.
            for s2 in chain_start..=s {
                m[(r, n0 + s2)] = 1.0;
            }
            q[r] = g_all.row(nr + s).transpose().dot(v_free) + slack_gap[s] / h;
        }
        Problem::lcp(m, q)
    }

    /// The unknowns of this step's LCP in order (module doc): p of every contact row then of
    /// every limit, k β per frictional contact row, σ per frictional contact row, c per slack.
    fn unknowns(&self) -> Vec<Unknown> {
        let k = self.cone_size();
        let limits = self
            .limits
            .iter()
            .map(|l| RowKey::Limit(l.dof, l.sign < 0.0));
        let rows: Vec<RowKey> = self.peg.keys.iter().copied().chain(limits).collect();
        let frictional: Vec<RowKey> = (self.touches.iter().zip(&self.peg.keys))
            .filter(|(t, _)| t.friction > 0.0)
            .map(|(_, &key)| key)
            .collect();
        let mut out: Vec<Unknown> = rows.iter().map(|&r| Unknown::Row(r, 0)).collect();
        for &r in &frictional {
            out.extend((1..=k).map(|j| Unknown::Row(r, j)));
        }
        out.extend(frictional.iter().map(|&r| Unknown::Row(r, SIGMA)));
        out.extend_from_slice(&self.peg.slack_keys);
        out
    }

    /// Last step's answer on this step's `unknowns` that it shares (by key), 0 on the others:
    /// the groups appear and go as the bodies move, so the LCP's size and order change where
    /// most of its unknowns persist.
    fn keyed_warm_start(&self, unknowns: &[Unknown]) -> DVector<f64> {
        DVector::from_iterator(
            unknowns.len(),
            unknowns
                .iter()
                .map(|u| self.peg.last.get(u).copied().unwrap_or(0.0)),
        )
    }

    /// Keep this step's answer `z` on its `unknowns` for the next step's warm start.
    fn keep_answer(&mut self, unknowns: Vec<Unknown>, z: &DVector<f64>) {
        self.peg.last.clear();
        self.peg
            .last
            .extend(unknowns.into_iter().zip(z.iter().copied()));
    }

    /// The step's counts: its constraints, those overlapping at the start (every member below
    /// its plane: the constraint's largest member gap < 0) and the deepest such overlap.
    fn peg_stats(&self) -> TreeStepStats {
        let start = (self.touches.iter().zip(&self.peg.start_gap))
            .map(|(t, d)| d.unwrap_or(t.gap))
            .filter(|&d| d < 0.0);
        TreeStepStats {
            contacts: self.touches.len(),
            penetrating: start.clone().count(),
            max_penetration: start.map(|d| -d).fold(0.0, f64::max),
            limit_rows: self.limits.len(),
            slack_rows: self.peg.others.len(),
            ..TreeStepStats::default()
        }
    }
}
