//! PEG in the plane: Williams, Lu & Trinkle, "A geometrically exact contact model for polytopes
//! in multirigid-body simulation" (2016), §5.1 (PEG 2D), with the constraints of §3 (eqs 17–25)
//! and the time-stepping subproblem of §5.3 (eqs 39–49) in the Stewart–Trinkle stepper of
//! `time_stepping.rs`; equation numbers are the paper's.
//!
//! **Potential contacts.** For every pair of polygons whose bounding boxes come within the
//! activation distance d (by default each pair's own reach over the step, [`pair_distance`]) (the broad phase's test; not the narrow phase's pairs, whose SAT
//! manifold is empty for two corners about to meet), every vertex v of one polygon within d of an edge e of the other gives
//! the vertex–edge potential contact C(v, e): normal n_e (the edge's outward normal), gap
//! ψ = n_e·(v − e₀), the signed distance of v to the edge's *line* (not the segment), so that
//! ψ ≥ 0 is the half-plane of the edge, as in the standard model.
//!
//! **Constraints** (eqs 32–33). The paper's two planar configurations:
//!
//! - *vertex–edge*, eq. 32 / vertex–vertex's I-constraints, eq. 33: the potential contacts of
//!   one vertex v against polygon B form one group, "at least one member keeps ψ ≥ 0", i.e.
//!   max_e ψ(v, e) ≥ 0 (eq. 11; Lemma 1.1). A vertex near the middle of one edge has one member:
//!   a U-constraint (eq. 17). A vertex near a corner has two (or more): an I-constraint (eq. 19)
//!   — the vertex must stay outside the convex polygon, which is exactly "outside at least one
//!   edge line", so it may round the corner (the standard-model trap of fig. 2 is gone). A vertex
//!   already inside B with no edge within d gets its shallowest exit. An edge of B whose line
//!   holds v together with an edge of v's own polygon at v, facing the same way (the coplanar
//!   tops of two equal boxes side by side), is not a member: that line separates nothing, as in
//!   3D (`docs/peg.md`).
//! - *vertex–vertex*, eq. 33's X-constraints X({C₁},{C₄}), X({C₂},{C₃}): for vertices v_a of A
//!   and v_b of B within d of each other, edge e_a of A at v_a and edge e_b of B at v_b cross
//!   near the vertices exactly when v_a is behind e_b's line and v_b behind e_a's line, *if*
//!   each edge runs from its vertex out across the other's line (n_b·u_a > 0 and n_a·u_b > 0,
//!   u the edge direction leaving the vertex, at the start pose or after one step of the free
//!   motion's turn) and each far endpoint is in front of the other edge's line by at least d
//!   (then it still is at the end of the step, the two lines cross on both segments whenever
//!   both vertices are behind, and that is an overlap: the constraint is necessary, never a
//!   trap). For those pairs the X-constraint
//!   max(ψ(v_a, e_b), ψ(v_b, e_a)) ≥ 0 forbids the crossing (fig. 6) that the two vertices'
//!   I-constraints alone allow. Pairs whose edges run away from each other (a box hanging over
//!   another's corner) would be wrongly blocked by it and get none.
//!
//! **One primary per constraint** (|C_ι| = 1, eq. 24): the member of largest gap *predicted at
//! the end of the step under the free motion* (ψ + h (v_B − v_A)·n with ν_ℓ), relaxed
//! applicability (eq. 29, APPL = min over v's neighbours v_k of n_e·(v_k − v)/|v_k − v|) breaking
//! ties. The 3D code takes the start gap and corrects a wrong choice with its implicit passes,
//! which the plane had not yet when this rule was chosen; with the start gap, a triangle's corner sliding at 6.6 m/s past
//! the apex of another (the triangle drop, h = 1 ms) kept the force on the apex's far edge line,
//! which spun the triangle and left 1.8e-3 m² of overlap after one step; the implicit passes
//! re-choose it as the member of largest gap at the pose they linearize about. Only the primary carries a force (and friction: the exact planar cone
//! [t, −t] on every primary, `friction = "coulomb"`, the pair's μ; the paper's experiments are
//! frictionless: `friction = "none"`). X-constraints are I-constraints whose members belong to
//! the two vertices (§3: an X-constraint "may be represented mathematically as an I-constraint";
//! the LCP needs a force on one member to be solvable, so it gets one, on the primary).
//!
//! **The subproblem** (eqs 39–49, velocity level, ψ/h kept as in the paper): with z = (p, β, σ, c),
//! per constraint j with primary P and other members K₁…K_k,
//!
//! ```text
//!   0 ≤ p_j   ⊥ G_P ν⁺ + (ψ_P − f_j)/h + Σ_i c_ji ≥ 0                         (eqs 24, 40, 46)
//!   0 ≤ c_ji  ⊥ (G_P − G_Ki) ν⁺ + (ψ_P − ψ_Ki)/h + Σ_{i' ≤ i} c_ji' ≥ 0       (eqs 20, 39, 42, 45)
//!   0 ≤ β, σ  as in Stewart–Trinkle (eqs 22–23 of their paper) on the primaries
//!   ν⁺ = ν_ℓ + M⁻¹ (G_Pᵀ p + Dᵀ β)                                           (eqs 41, 43)
//! ```
//!
//! so ψ̂_P + Σ c = max of the members' end-of-step gaps (Lemma 1.1) must be ≥ 0, and p_j > 0 only
//! when every member ends at ψ̂ ≤ 0 and one at 0. f_j is the recovery floor of the project's
//! `recovery = "bounded"` (issue 16; `time_stepping::recovery_floor` of the constraint's largest
//! member gap at the start): 0 unless the constraint already overlaps by more than v_max h;
//! `recovery = "full"` is the paper's ψ/h. ν⁺ is eliminated as in `stewart-trinkle`, and the LCP
//! is solved by the same `SolverChain` (Lemke first, then the fallbacks).
//!
//! Disks, segments and lines have no corner to be trapped at on the polygon's side that PEG's
//! vertex groups would model here: their narrow-phase contacts are plain unilateral constraints
//! (the standard model), as spheres and half-spaces in 3D. A polygon pair overlapping deeper than
//! `recovery_depth` also gets its narrow-phase contacts as frictionless unilateral constraints
//! (as 3D PEG), whose ψ/h term pushes the pieces apart whatever let them in.
//!
//! **Gap prediction and passes** (`gap_prediction`, `peg_implicit.rs`): the paper's linear ψ + h
//! G ν at the start pose (eq. 6 truncated, as its experiments; `"linear"`), or, by default, each
//! member linearized about the pose a velocity leads to, the free motion's first and then each
//! pass's (`"implicit"`: a Newton iteration on the exact end-of-step gaps, as 3D PEG), with
//! detection repeated at each pass's velocities ([`PlanarPeg::solve_step`]).
use super::super::body::{PlanarModel, PlanarState};
use super::super::collision::{Contact2, Feature2, Placed};
use super::rows::{self, ImpulseRows, Row};
use super::peg_implicit::{held_gap, relinearize, violation, EndPose};
use super::time_stepping::{derived_activation_distance, StepSolve};
use crate::contact::params::model_params;
use crate::contact::peg::PASS_ENERGY_RATIO;
use crate::contact::time_stepping::{self, SolverChain};
use crate::contact::{
    ConfigError, ContactError, ModelSpec, ParamDefault, ParamKind, ParamSpec, ParamValue, Range,
    SolveReport,
};
use crate::solvers::Problem;
use glam::DVec2;
use nalgebra::{DMatrix, DVector};
use std::collections::{BTreeMap, BTreeSet};

/// A multi-member constraint whose primary ends the step more than this behind its line (m),
/// while another member holds the constraint, let its vertex pass a corner (or its edge pass
/// another's end) that the standard model's half-plane would have blocked: a standard-model
/// trap avoided, counted per step (the paper's fig. 22).
pub const TRAP_DEPTH: f64 = 1e-9;

/// Distance (m) within which a vertex counts as lying on an edge's line for the coplanar rule.
pub const COPLANAR_DISTANCE: f64 = 1e-9;

/// |n_b·u_a| and |n_a·u_b| below this (the sine of the angle between the edges) count as
/// parallel edges, which cannot cross near their ends (their vertices' groups hold them).
pub const PARALLEL_SINE: f64 = 1e-9;

model_params! {
    /// Parameters of planar `peg`.
    pub struct PlanarPegParams {
        activation_distance: Option<f64> = ParamSpec {
            default: ParamDefault::Derived(
                "per pair, simulation.activation_distance + h (s_i + s_j), s = |v| + |w| r + h |g| (4 h (s_i + s_j) under gap_prediction = \"linear\")",
            ),
            description: "vertex-edge feature pairs closer than this are potential contacts, vertex pairs closer than this get X-constraints; the default is each pair's approach over one step under the start motion, simulation.activation_distance + h (s_i + s_j), s = |v| + |omega| r + h |g| (r: the body's bounding radius about its centre of mass), with a factor 4 on h (s_i + s_j) under gap_prediction = \"linear\"; each pass adds what its velocities bring within reach",
            ..time_stepping::ACTIVATION_DISTANCE
        },
        friction: &'static str = ParamSpec {
            name: "friction",
            unit: "-",
            default: ParamDefault::Word("coulomb"),
            description: "\"coulomb\": the exact planar Coulomb cone on every primary contact, with the materials' coefficients; \"none\": frictionless, as in the paper's experiments",
            kind: ParamKind::Choice(&["coulomb", "none"]),
        },
        recovery: &'static str = time_stepping::RECOVERY,
        max_recovery_speed: f64 = time_stepping::MAX_RECOVERY_SPEED,
        recovery_depth: f64 = ParamSpec {
            name: "recovery_depth",
            unit: "m",
            default: ParamDefault::Value(1e-5),
            description: "a polygon pair that the narrow phase finds overlapping deeper than this also gets its narrow-phase contacts as frictionless unilateral constraints, which push the pieces apart",
            kind: ParamKind::Number(Range::at_least(0.0)),
        },
        gap_prediction: &'static str = ParamSpec {
            name: "gap_prediction",
            unit: "-",
            default: ParamDefault::Word("implicit"),
            description: "end-of-step gap of each vertex-edge member: \"linear\" psi + h G nu at the start pose (eq. 6 truncated, as the paper's experiments); \"free-motion\" the exact gap at the pose the free motion leads to, linearized about it; \"implicit\" as free-motion, then each further pass linearizes about the pose the previous pass's velocities lead to (a Newton iteration on the exact end-of-step gaps: the turn a landing impulse gives a polygon no longer drives its corners into others)",
            kind: ParamKind::Choice(&["implicit", "free-motion", "linear"]),
        },
        passes: usize = ParamSpec {
            name: "passes",
            unit: "-",
            default: ParamDefault::Value(8.0),
            description: "most detection + solve passes per step; a further pass runs only when the last pass's velocities bring new constraints within reach or (implicit) leave a constraint's exact end-of-step gap below -gap_tolerance",
            kind: ParamKind::Number(Range::at_least(1.0).integer()),
        },
        gap_tolerance: f64 = ParamSpec {
            default: ParamDefault::Value(1e-9),
            ..crate::contact::peg::GAP_TOLERANCE
        },
        max_rows: usize = ParamSpec {
            name: "max_rows",
            unit: "-",
            default: ParamDefault::Value(1000.0),
            description: "largest subproblem (rows of the LCP in p, beta, sigma, c) a step may pose; beyond it the step stops with a diagnosis instead of running dense Lemke and its fallbacks for minutes (measured: an unsolved step of 610 rows took over a minute)",
            kind: ParamKind::Number(Range::at_least(1.0).integer()),
        },
        solvers: Vec<&'static str> = time_stepping::SOLVERS,
        tolerance: f64 = time_stepping::TOLERANCE,
        max_iterations: usize = time_stepping::MAX_ITERATIONS,
        max_pivots: Option<usize> = time_stepping::MAX_PIVOTS,
        relaxation: f64 = time_stepping::RELAXATION,
        on_failure: &'static str = time_stepping::ON_FAILURE,
    }
}

pub const SPEC: ModelSpec = ModelSpec {
    name: "peg",
    summary: "planar PEG (Williams, Lu & Trinkle 2016 §5.1): vertex-edge potential contacts grouped into U/I/X-constraints, one primary contact each, in the Stewart-Trinkle LCP; exact friction cone",
    params: PlanarPegParams::SPECS,
};

/// What a constraint is, across steps (warm starts) and in counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum What {
    /// Vertex `vertex` of body `body` stays outside polygon `other` (U- or I-constraint).
    Vertex { body: usize, vertex: u32, other: usize },
    /// Edge `ea` of body `a` and edge `eb` of body `b` do not cross near their vertices `va`,
    /// `vb` (X-constraint).
    Cross {
        a: usize,
        va: u32,
        ea: u32,
        b: usize,
        vb: u32,
        eb: u32,
    },
    /// A narrow-phase contact as a plain unilateral constraint (disks, segments, lines), or a
    /// recovery contact of a deep polygon overlap.
    Plain {
        a: usize,
        b: usize,
        fa: Feature2,
        fb: Feature2,
        recovery: bool,
    },
}

/// One constraint of the subproblem: "at least one member keeps ψ ≥ 0", force on the primary.
#[derive(Clone, Debug, PartialEq)]
pub struct Constraint2 {
    pub what: What,
    pub primary: Contact2,
    /// The other members, in chain order.
    pub others: Vec<Contact2>,
}

impl Constraint2 {
    /// Largest member gap at the start (m): ≥ 0 exactly when the constraint holds (Lemma 1.1).
    pub fn start_gap(&self) -> f64 {
        self.others
            .iter()
            .map(|o| o.gap)
            .fold(self.primary.gap, f64::max)
    }

    fn recovery(&self) -> bool {
        matches!(self.what, What::Plain { recovery: true, .. })
    }
}

/// What PEG did in a step (the paper's fig. 22 counts).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PlanarPegStats {
    /// Constraints in the subproblem.
    pub constraints: usize,
    /// Potential contacts in them (every member).
    pub potential_contacts: usize,
    /// Constraints with more than one member (I- and X-constraints).
    pub multi: usize,
    /// Of those, X-constraints.
    pub cross: usize,
    /// Multi-member constraints whose primary ends the step behind its line by more than
    /// [`TRAP_DEPTH`] while another member holds: standard-model traps avoided.
    pub traps: usize,
}

/// The vertex–edge contact of vertex `i` (at `v`, body `vb`) against edge `k` (from `e0`, outward
/// unit normal `n`, body `eb`): A = the edge's body, B = the vertex's, ψ = n·(v − e0).
fn vertex_edge(eb: usize, k: usize, e0: DVec2, n: DVec2, vb: usize, i: usize, v: DVec2) -> Contact2 {
    let gap = n.dot(v - e0);
    Contact2 {
        body_a: eb,
        body_b: vb,
        point_a: v - gap * n,
        point_b: v,
        normal: n,
        gap,
        feature_a: Feature2::Edge(k as u32),
        feature_b: Feature2::Vertex(i as u32),
    }
}

/// Distance from `p` to the segment [a, b] (m).
fn segment_distance(p: DVec2, a: DVec2, b: DVec2) -> f64 {
    let e = b - a;
    let l2 = e.length_squared();
    let t = if l2 > 0.0 {
        ((p - a).dot(e) / l2).clamp(0.0, 1.0)
    } else {
        0.0
    };
    (p - (a + t * e)).length()
}

/// Relaxed applicability of vertex `i` of `verts` to an edge of outward normal `n` (eq. 29):
/// min over v's neighbours v_k of n·(v_k − v)/|v_k − v|.
fn applicability(verts: &[DVec2], i: usize, n: DVec2) -> f64 {
    let m = verts.len();
    let v = verts[i];
    [verts[(i + m - 1) % m], verts[(i + 1) % m]]
        .iter()
        .map(|w| n.dot((*w - v).normalize_or_zero()))
        .fold(f64::INFINITY, f64::min)
}

/// A polygon placed in the world, with its body, its turn over the step (rad) and its free
/// motion (centre of mass, velocity ν_ℓ, angular velocity; zero for a fixed body).
struct Poly<'a> {
    body: usize,
    verts: &'a [DVec2],
    normals: &'a [DVec2],
    turn: f64,
    center: DVec2,
    velocity: DVec2,
    omega: f64,
    h: f64,
    /// The vertices at the end pose of a solved pass, when detection follows one, and the
    /// depth (m) beyond which two edges cross there (`gap_tolerance`).
    end: Option<(&'a [DVec2], f64)>,
}

impl Poly<'_> {
    fn point_velocity(&self, p: DVec2) -> DVec2 {
        let r = p - self.center;
        self.velocity + self.omega * DVec2::new(-r.y, r.x)
    }
}

/// The gap of vertex–edge contact `c` (A = `edge`'s body, B = `vertex`'s) at the end of the
/// step under the free motion, linearized: ψ + h (v_B − v_A)·n.
fn predicted_gap(c: &Contact2, edge: &Poly, vertex: &Poly) -> f64 {
    let dv = vertex.point_velocity(c.point_b) - edge.point_velocity(c.point_a);
    c.gap + edge.h * dv.dot(c.normal)
}

/// The vertex groups of `p`'s vertices against polygon `q` (eqs 17–24, 32–33), appended to
/// `out`.
fn vertex_groups(p: &Poly, q: &Poly, d: f64, out: &mut Vec<Constraint2>) {
    let (n, m) = (p.verts.len(), q.verts.len());
    for i in 0..n {
        let v = p.verts[i];
        // The outward normals of p's two edges at v.
        let own = [p.normals[(i + n - 1) % n], p.normals[i]];
        let mut members: Vec<Contact2> = Vec::new();
        let mut inside = true;
        let mut exit: Option<Contact2> = None;
        for k in 0..m {
            let (e0, e1) = (q.verts[k], q.verts[(k + 1) % m]);
            let c = vertex_edge(q.body, k, e0, q.normals[k], p.body, i, v);
            if c.gap >= 0.0 {
                inside = false;
            }
            if exit.is_none_or(|x| c.gap > x.gap) {
                exit = Some(c);
            }
            if segment_distance(v, e0, e1) <= d {
                let coplanar = c.gap.abs() <= COPLANAR_DISTANCE
                    && own.iter().any(|o| o.dot(q.normals[k]) >= 1.0 - 1e-9);
                if !coplanar {
                    members.push(c);
                }
            }
        }
        if members.is_empty() {
            match exit {
                Some(x) if inside => members.push(x),
                _ => continue,
            }
        }
        // The primary: largest predicted gap, then the most applicable (eq. 29), then the
        // first.
        let best = (0..members.len())
            .max_by(|&x, &y| {
                let (cx, cy) = (&members[x], &members[y]);
                let ax = applicability(p.verts, i, cx.normal);
                let ay = applicability(p.verts, i, cy.normal);
                predicted_gap(cx, q, p)
                    .total_cmp(&predicted_gap(cy, q, p))
                    .then(ax.total_cmp(&ay))
                    .then(y.cmp(&x))
            })
            .expect("a group has a member");
        let primary = members.remove(best);
        out.push(Constraint2 {
            what: What::Vertex {
                body: p.body,
                vertex: i as u32,
                other: q.body,
            },
            primary,
            others: members,
        });
    }
}

/// Rotate `v` by `angle` (rad).
fn turned(v: DVec2, angle: f64) -> DVec2 {
    let (s, c) = angle.sin_cos();
    DVec2::new(c * v.x - s * v.y, s * v.x + c * v.y)
}

/// The X-constraints of the vertex pairs of `a` and `b` within `d` (eq. 33): edges at the two
/// vertices that run across each other's lines.
fn cross_constraints(a: &Poly, b: &Poly, d: f64, out: &mut Vec<Constraint2>) {
    let (n, m) = (a.verts.len(), b.verts.len());
    // Edges at vertex i of a polygon with n vertices: (edge index, its far endpoint).
    let at = |i: usize, n: usize| [((i + n - 1) % n, (i + n - 1) % n), (i, (i + 1) % n)];
    for i in 0..n {
        for j in 0..m {
            let (va, vb) = (a.verts[i], b.verts[j]);
            if (va - vb).length() > d {
                continue;
            }
            for (ea, fa) in at(i, n) {
                let ua = (a.verts[fa] - va).normalize_or_zero();
                let na = a.normals[ea];
                for (eb, fb) in at(j, m) {
                    let ub = (b.verts[fb] - vb).normalize_or_zero();
                    let nb = b.normals[eb];
                    let crossing = |ua: DVec2, na: DVec2, ub: DVec2, nb: DVec2| {
                        nb.dot(ua) > PARALLEL_SINE && na.dot(ub) > PARALLEL_SINE
                    };
                    let now = crossing(ua, na, ub, nb);
                    let later = crossing(
                        turned(ua, a.turn),
                        turned(na, a.turn),
                        turned(ub, b.turn),
                        turned(nb, b.turn),
                    );
                    // The far endpoints in front of the other edge's line by d: at the end of
                    // the step they still are, so the two lines' crossing lies on both segments
                    // whenever both vertices are behind (an overlap), and the X-constraint is
                    // necessary. Otherwise it could block a configuration without overlap.
                    let far_a = nb.dot(a.verts[fa] - vb) >= d;
                    let far_b = na.dot(b.verts[fb] - va) >= d;
                    if !((now || later) && far_a && far_b) {
                        continue;
                    }
                    // C(v_a, e_b) and C(v_b, e_a); e_b starts at its own vertex index.
                    let c1 = vertex_edge(b.body, eb, b.verts[eb], nb, a.body, i, va);
                    let c2 = vertex_edge(a.body, ea, a.verts[ea], na, b.body, j, vb);
                    let first = predicted_gap(&c1, b, a) >= predicted_gap(&c2, a, b);
                    let (primary, other) = if first { (c1, c2) } else { (c2, c1) };
                    out.push(Constraint2 {
                        what: What::Cross {
                            a: a.body,
                            va: i as u32,
                            ea: ea as u32,
                            b: b.body,
                            vb: j as u32,
                            eb: eb as u32,
                        },
                        primary,
                        others: vec![other],
                    });
                }
            }
        }
    }
}

/// The X-constraints of the edges of `a` and `b` that cross at the end pose of the pass that
/// detection follows (`Poly::end`; none without one), beyond those of [`cross_constraints`]: an
/// edge e_a whose endpoints lie on both sides of e_b's line while e_b's lie on both sides of
/// e_a's crosses it (an overlap at that pose); the constraint pairs the endpoint of each edge
/// that is behind the other's line, max(ψ(v_a, e_b), ψ(v_b, e_a)) ≥ 0, built at the start pose.
/// The start-pose rule pairs vertices within d whose far endpoints are in front by d; measured
/// on the box of polygons, polygons resting side by side on the floor pushed their nearly
/// parallel faces through each other (crossing at the far ends: 1.4e-3 m² of overlap with every
/// vertex outside the other polygon), which only the end pose shows.
/// `out[first..]` holds the pair's constraints so far (an X-constraint already there is kept
/// once).
fn end_crossings(a: &Poly, b: &Poly, first: usize, out: &mut Vec<Constraint2>) {
    let (Some((ea_end, tolerance)), Some((eb_end, _))) = (a.end, b.end) else {
        return;
    };
    let (n, m) = (a.verts.len(), b.verts.len());
    // Outward unit normal of the edge from p to q of a counter-clockwise polygon.
    let normal = |p: DVec2, q: DVec2| DVec2::new(q.y - p.y, p.x - q.x).normalize_or_zero();
    for ea in 0..n {
        let (a0, a1) = (ea_end[ea], ea_end[(ea + 1) % n]);
        let na = normal(a0, a1);
        for eb in 0..m {
            let (b0, b1) = (eb_end[eb], eb_end[(eb + 1) % m]);
            let nb = normal(b0, b1);
            let (sa0, sa1) = (nb.dot(a0 - b0), nb.dot(a1 - b0));
            let (sb0, sb1) = (na.dot(b0 - a0), na.dot(b1 - a0));
            // A crossing deeper than the tolerance at both ends: edges of polygons at rest
            // touch at round-off (±1e-17 m) and are no crossing that calls for another pass.
            let deep = |x: f64, y: f64| x.min(y) < -tolerance && x.max(y) > 0.0;
            if !(deep(sa0, sa1) && deep(sb0, sb1)) {
                continue;
            }
            let i = if sa0 < 0.0 { ea } else { (ea + 1) % n };
            let j = if sb0 < 0.0 { eb } else { (eb + 1) % m };
            let what = What::Cross {
                a: a.body,
                va: i as u32,
                ea: ea as u32,
                b: b.body,
                vb: j as u32,
                eb: eb as u32,
            };
            if out[first..].iter().any(|c| c.what == what) {
                continue;
            }
            let c1 = vertex_edge(b.body, eb, b.verts[eb], b.normals[eb], a.body, i, a.verts[i]);
            let c2 = vertex_edge(a.body, ea, a.verts[ea], a.normals[ea], b.body, j, b.verts[j]);
            // Both vertices already behind at the start (beyond the tolerance: faces resting on
            // each other touch at ±1e-13 m) while the edges do not cross there: the far
            // endpoints are behind too, the constraint would separate edges that do not overlap
            // (a trap; measured: passes at 3.6× the energy, 5 ms).
            let crossing_at_start = {
                let (s0, s1) = (a.verts[ea], a.verts[(ea + 1) % n]);
                let (t0, t1) = (b.verts[eb], b.verts[(eb + 1) % m]);
                let (na, nb) = (a.normals[ea], b.normals[eb]);
                nb.dot(s0 - t0) * nb.dot(s1 - t0) < 0.0 && na.dot(t0 - s0) * na.dot(t1 - s0) < 0.0
            };
            if c1.gap < -tolerance && c2.gap < -tolerance && !crossing_at_start {
                continue;
            }
            let (primary, other) = if predicted_gap(&c1, b, a) >= predicted_gap(&c2, a, b) {
                (c1, c2)
            } else {
                (c2, c1)
            };
            out.push(Constraint2 {
                what,
                primary,
                others: vec![other],
            });
        }
    }
}

/// The constraints of a step: PEG's groups of every polygon pair whose bounding boxes come
/// within `distance`, then plain unilateral constraints for the other
/// contacts and recovery constraints for deep polygon overlaps. `h` turns the free motion's
/// angular velocities into the step's turn.
pub fn constraints(
    model: &PlanarModel,
    state: &PlanarState,
    contacts: &[Contact2],
    distance: f64,
    recovery_depth: f64,
) -> Vec<Constraint2> {
    constraints_within(model, state, contacts, distance, None, recovery_depth, None)
}

/// [`constraints`], with each pair's reach its own [`pair_distance`] (at most `distance`) when
/// `reach` = Some(factor) (the derived default: [`pair_distance`] × factor), else `distance` for
/// every pair (a given value); with `end`
/// (every body placed at the end pose of a solved pass), also the X-constraints of edges that
/// cross there ([`end_crossings`]).
pub fn constraints_within(
    model: &PlanarModel,
    state: &PlanarState,
    contacts: &[Contact2],
    distance: f64,
    reach: Option<f64>,
    recovery_depth: f64,
    end: Option<(&[Placed], f64)>,
) -> Vec<Constraint2> {
    let h = model.settings.time_step;
    let placed: Vec<Placed> = model
        .bodies
        .iter()
        .zip(&state.bodies)
        .map(|(b, s)| Placed::new(&b.shape, &s.pose()))
        .collect();
    let is_polygon = |b: usize| matches!(placed[b], Placed::Polygon { .. });
    // Polygon pairs whose bounding boxes come within d (not the narrow phase's pairs: its SAT
    // manifold of two polygons corner to corner can be empty while the corners are within d).
    let boxes: Vec<(DVec2, DVec2)> = placed.iter().map(|p| p.aabb()).collect();
    let mut pairs: BTreeSet<(usize, usize)> = BTreeSet::new();
    for i in 0..placed.len() {
        for j in i + 1..placed.len() {
            if (model.bodies[i].fixed && model.bodies[j].fixed) || !is_polygon(i) || !is_polygon(j)
            {
                continue;
            }
            let ((lo_i, hi_i), (lo_j, hi_j)) = (boxes[i], boxes[j]);
            let apart = lo_i.x > hi_j.x + distance
                || lo_j.x > hi_i.x + distance
                || lo_i.y > hi_j.y + distance
                || lo_j.y > hi_i.y + distance;
            if !apart {
                pairs.insert((i, j));
            }
        }
    }
    let mut out = Vec::new();
    for &(i, j) in &pairs {
        let poly = |b: usize| match &placed[b] {
            Placed::Polygon { vertices, normals } => Poly {
                body: b,
                verts: vertices,
                normals,
                turn: if model.bodies[b].fixed {
                    0.0
                } else {
                    h * state.bodies[b].angular_velocity
                },
                center: state.bodies[b].position,
                velocity: if model.bodies[b].fixed {
                    DVec2::ZERO
                } else {
                    state.bodies[b].velocity + h * model.settings.gravity
                },
                omega: if model.bodies[b].fixed {
                    0.0
                } else {
                    state.bodies[b].angular_velocity
                },
                h,
                end: end.and_then(|(e, tolerance)| match &e[b] {
                    Placed::Polygon { vertices, .. } => Some((vertices.as_slice(), tolerance)),
                    _ => None,
                }),
            },
            _ => unreachable!("pairs hold polygons only"),
        };
        let (a, b) = (poly(i), poly(j));
        let d = if let Some(factor) = reach {
            pair_distance(model, state, i, j, factor).min(distance)
        } else {
            distance
        };
        vertex_groups(&a, &b, d, &mut out);
        vertex_groups(&b, &a, d, &mut out);
        let first = out.len();
        cross_constraints(&a, &b, d, &mut out);
        end_crossings(&a, &b, first, &mut out);
    }
    // A feature pair once, whichever body is A: the canonical key of a contact.
    let canonical = |c: &Contact2| {
        let (x, y) = ((c.body_a, c.feature_a), (c.body_b, c.feature_b));
        if x <= y {
            (x, y)
        } else {
            (y, x)
        }
    };
    let primaries: BTreeSet<_> = out.iter().map(|c| canonical(&c.primary)).collect();
    for c in contacts {
        let polygons = is_polygon(c.body_a) && is_polygon(c.body_b);
        if polygons && (c.gap >= -recovery_depth || primaries.contains(&canonical(c))) {
            continue;
        }
        out.push(Constraint2 {
            what: What::Plain {
                a: c.body_a,
                b: c.body_b,
                fa: c.feature_a,
                fb: c.feature_b,
                recovery: polygons,
            },
            primary: *c,
            others: Vec::new(),
        });
    }
    out
}

/// The reach of the pair (i, j) over one step (m): `simulation.activation_distance` + factor ×
/// h (s_i + s_j), s = |v| + |ω| r + h |g| for a dynamic body (0 for a fixed one): the pair's
/// closest approach in the step under the start motion, h (s_i + s_j), times `factor`. PEG takes
/// 1 with its implicit passes (what the solve's velocities bring closer, each pass's detection at
/// ν⁺ adds; with the time-stepping default's factor 4 the 16 ms box of polygons posed LCPs of
/// 500–1,000 rows and cost 80× the standard model per step, with 1 7.7× and less overlap: the
/// median over seeds of the mean overlap 1.2e-10 → 2.4e-12 m²), and 4 with the paper's linear
/// gaps (with 1 a run stopped on a 1,114-row step). The global derived distance (4 h of the
/// fastest body in the scene) brought every vertex of a 20-polygon pile within reach of every
/// edge once one polygon spun (13 rad/s at h = 16 ms: d = 0.37 m for polygons of 0.25 m), and a
/// dense LCP of thousands of rows that did not finish in minutes.
pub fn pair_distance(model: &PlanarModel, state: &PlanarState, i: usize, j: usize, factor: f64) -> f64 {
    let s = &model.settings;
    let h = s.time_step;
    let speed = |b: usize| {
        if model.bodies[b].fixed {
            0.0
        } else {
            let st = &state.bodies[b];
            st.velocity.length()
                + st.angular_velocity.abs() * model.bodies[b].shape.bounding_radius()
                + h * s.gravity.length()
        }
    };
    s.activation_distance + factor * h * (speed(i) + speed(j))
}

/// One step's LCP in z = (p, β, σ, c) and what maps its answer back.
struct Lcp {
    problem: Problem,
    /// The impulse rows: the primaries' normals, then (+t, −t) per frictional constraint.
    rows: Vec<Row>,
    /// Per constraint, its index among the frictional ones.
    friction_index: Vec<Option<usize>>,
    /// Per constraint, the index of its first slack variable in z.
    slack_start: Vec<usize>,
    np: usize,
    nf: usize,
    ns: usize,
    inverse_mass: Vec<f64>,
}

impl Lcp {
    fn assemble(
        model: &PlanarModel,
        state: &PlanarState,
        constraints: &[Constraint2],
        floors: &[f64],
        nu_free: &[f64],
        frictional: bool,
    ) -> Self {
        let h = model.settings.time_step;
        let dofs = model.dof_offsets();
        let np = constraints.len();
        let primaries: Vec<&Contact2> = constraints.iter().map(|c| &c.primary).collect();
        let impulse = ImpulseRows::new(state, &dofs, &primaries, |j, p| {
            let m = model.friction(p.body_a, p.body_b);
            if frictional && !constraints[j].recovery() {
                m
            } else {
                0.0
            }
        });
        let (rows, mu) = (&impulse.rows, &impulse.mu);
        let nf = mu.len();
        let nr = rows.len(); // np + 2 nf
        // Slack rows Δ = G_P − G_K (eq. 42) and their gaps ψ_P − ψ_K.
        let mut slack_rows: Vec<(usize, Row, f64)> = Vec::new();
        let mut slack_start = Vec::with_capacity(np);
        for (j, c) in constraints.iter().enumerate() {
            slack_start.push(nr + nf + slack_rows.len());
            for k in &c.others {
                let gk = Row::of(state, &dofs, k, k.normal);
                slack_rows.push((j, rows[j].minus(&gk), c.primary.gap - k.gap));
            }
        }
        let ns = slack_rows.len();
        let inverse_mass = rows::inverse_mass(model, &dofs, nu_free.len());
        let n = nr + nf + ns;
        let mut m = DMatrix::zeros(n, n);
        let mut q = DVector::zeros(n);
        // W = G M⁻¹ Gᵀ over the impulse rows, and friction's E, −Eᵀ, μ.
        impulse.fill(&inverse_mass, nu_free, &mut m, &mut q);
        // Force rows: + Σ c of the constraint (E_I2, eq. 46); q: + (ψ_P − f_j)/h (eq. 44), f_j
        // the recovery floor of the constraint's start gap (`floors`).
        for (j, c) in constraints.iter().enumerate() {
            for s in 0..c.others.len() {
                m[(j, slack_start[j] + s)] = 1.0;
            }
            q[j] += (c.primary.gap - floors[j]) / h;
        }
        // Slack rows: Δ M⁻¹ Gᵀ, the lower-triangular ones of E_I1 (eqs 20, 45), q = Δ ν_ℓ +
        // (ψ_P − ψ_K)/h.
        let mut index_in_constraint = 0;
        for (s, (j, delta, gap)) in slack_rows.iter().enumerate() {
            let r = nr + nf + s;
            if s > 0 && slack_rows[s - 1].0 != *j {
                index_in_constraint = 0;
            }
            for (col, row) in rows.iter().enumerate() {
                m[(r, col)] = delta.weighted(row, &inverse_mass);
            }
            for i in 0..=index_in_constraint {
                m[(r, slack_start[*j] + i)] = 1.0;
            }
            index_in_constraint += 1;
            q[r] = delta.dot(nu_free) + gap / h;
        }
        Lcp {
            problem: Problem::lcp(m, q),
            rows: impulse.rows,
            friction_index: impulse.friction_index,
            slack_start,
            np,
            nf,
            ns,
            inverse_mass,
        }
    }

    fn describe(&self) -> String {
        format!(
            "planar PEG LCP of {} rows ({} constraints, {} with friction, {} slack variables)",
            self.problem.len(),
            self.np,
            self.nf,
            self.ns
        )
    }

    /// ν⁺ = ν_ℓ + M⁻¹ (G_Pᵀ p + Dᵀ β) (eqs 41, 43).
    fn apply(&self, z: &DVector<f64>, velocity: &mut [f64]) {
        rows::add_impulses(&self.rows, z, &self.inverse_mass, velocity);
    }
}

/// How each pass linearizes the members' gaps (`gap_prediction`, `peg_implicit.rs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Prediction {
    /// ψ + h G ν at the start pose (the paper's).
    Linear,
    /// About the pose the free motion ν_ℓ leads to, in every pass.
    FreeMotion,
    /// About ν_ℓ's pose, then about the pose of the last pass's velocities.
    Implicit,
}

/// A solved pass: its (linearized) constraints, LCP, answer, report, velocities, and the deepest
/// exact end-of-step violation of the step's constraints (m, ≤ 0; 0 within `gap_tolerance`).
struct Pass {
    set: Vec<Constraint2>,
    lcp: Lcp,
    z: DVector<f64>,
    report: SolveReport,
    velocity: Vec<f64>,
    score: f64,
}

impl Pass {
    /// Does `other` replace this pass as the step's answer? A solved pass before one no solver
    /// met the tolerance for, then the shallower violation; later passes win ties (they hold
    /// more constraints), as in 3D (`contact/peg/passes.rs`).
    fn yields_to(&self, other: &Pass) -> bool {
        let (mine, theirs) = (!self.report.failed, !other.report.failed);
        theirs > mine || (theirs == mine && other.score >= self.score)
    }
}

/// The planar PEG model.
pub struct PlanarPeg {
    values: Vec<ParamValue>,
    activation_distance: Option<f64>,
    frictional: bool,
    max_recovery_speed: f64,
    recovery_depth: f64,
    prediction: Prediction,
    passes: usize,
    gap_tolerance: f64,
    max_rows: usize,
    solvers: SolverChain,
    /// Last step's answer per constraint: (p, β₊, β₋, σ, c…).
    previous: BTreeMap<What, Vec<f64>>,
    last: PlanarPegStats,
}

impl PlanarPeg {
    /// `values` in the order of `PlanarPegParams::SPECS`.
    pub fn new(values: &[ParamValue]) -> Result<Self, ConfigError> {
        let p = PlanarPegParams::from_values(values);
        Ok(PlanarPeg {
            values: values.to_vec(),
            activation_distance: p.activation_distance,
            frictional: p.friction == "coulomb",
            max_recovery_speed: time_stepping::recovery_bound(p.recovery, p.max_recovery_speed),
            recovery_depth: p.recovery_depth,
            prediction: match p.gap_prediction {
                "linear" => Prediction::Linear,
                "free-motion" => Prediction::FreeMotion,
                _ => Prediction::Implicit,
            },
            passes: p.passes,
            gap_tolerance: p.gap_tolerance,
            max_rows: p.max_rows,
            solvers: time_stepping::solver_chain!(p)?,
            previous: BTreeMap::new(),
            last: PlanarPegStats::default(),
        })
    }

    pub fn values(&self) -> &[ParamValue] {
        &self.values
    }

    /// The last step's counts.
    pub fn stats(&self) -> PlanarPegStats {
        self.last
    }

    /// The distance below which the narrow phase must report pairs, and within which feature
    /// pairs are potential contacts (m): the parameter, else the time-stepping models' derived
    /// anticipating distance.
    pub fn activation_distance(&self, model: &PlanarModel, state: &PlanarState) -> f64 {
        self.activation_distance
            .unwrap_or_else(|| derived_activation_distance(model, state))
    }

    /// One step: the new generalized velocity from the free velocity `nu_free`, the narrow-phase
    /// `contacts` (within `distance`) and PEG's constraints, in at most `passes` detection +
    /// solve passes (`peg_implicit.rs`):
    ///
    /// ```text
    ///   about ← ν_ℓ (free-motion, implicit) or the start pose (linear)
    ///   loop:
    ///     solve the constraints linearized about `about` (warm-started)      → ν⁺
    ///     energy guard: ν⁺ above PASS_ENERGY_RATIO × the first pass's energy: stop
    ///     measure the deepest exact end-of-step violation at q + h ν⁺; detect at ν⁺
    ///     keep the pass if it outranks the kept one (`Pass::yields_to`)
    ///     stop when nothing is new and nothing violated (or after `passes`)
    ///     constraints += new;  about ← ν⁺ (implicit)
    /// ```
    pub fn solve_step(
        &mut self,
        model: &PlanarModel,
        state: &PlanarState,
        contacts: &[Contact2],
        nu_free: &[f64],
        distance: f64,
    ) -> Result<StepSolve, ContactError> {
        let h = model.settings.time_step;
        let mut set = self.detect(model, state, contacts, distance, None);
        self.last = PlanarPegStats::of(&set);
        if set.is_empty() {
            self.previous.clear();
            return Ok(StepSolve {
                velocity: nu_free.to_vec(),
                report: None,
                active: 0,
                group: None,
            });
        }
        let bound = self.max_recovery_speed;
        let floor = |c: &Constraint2| time_stepping::recovery_floor(c.start_gap(), h, bound);
        let mut floors: Vec<f64> = set.iter().map(floor).collect();
        // The linearization point (velocity, and the pose it leads to), and the one of the pass
        // before, to which a diverging pass returns once.
        let mut about = (self.prediction != Prediction::Linear)
            .then(|| (nu_free.to_vec(), EndPose::new(model, state, nu_free, h)));
        let (mut before, mut reverted): (Option<Option<(Vec<f64>, EndPose)>>, bool) = (None, false);
        let mut warm_from = std::mem::take(&mut self.previous);
        let (mut kept, mut first_energy): (Option<Pass>, Option<f64>) = (None, None);
        for pass in 0..self.passes {
            let pass_set = match &about {
                Some((v, pose)) => relinearize(model, state, &set, pose, v, self.gap_tolerance),
                None => set.clone(),
            };
            let lcp = Lcp::assemble(model, state, &pass_set, &floors, nu_free, self.frictional);
            if lcp.problem.len() > self.max_rows {
                match kept {
                    None => return Err(self.too_many_rows(model, state, &lcp)),
                    Some(_) => break,
                }
            }
            let warm = warm_start(&lcp, &pass_set, &warm_from);
            let (z, report) = match self.solvers.solve(&lcp.problem, &warm, || lcp.describe()) {
                Ok(solved) => solved,
                // A first pass about the free motion that no solver meets (measured: Lemke's
                // ray on a 75-row island at 16 ms) falls back to the paper's start-pose gaps.
                Err(_) if kept.is_none() && about.is_some() => {
                    about = None;
                    continue;
                }
                Err(e) if kept.is_none() => return Err(e),
                Err(_) => break,
            };
            let mut velocity = nu_free.to_vec();
            lcp.apply(&z, &mut velocity);
            // A pass carrying more than `PASS_ENERGY_RATIO` × the first pass's kinetic energy
            // is a diverging Newton iterate: keep the pass kept so far.
            let energy = kinetic_energy(&lcp.inverse_mass, &velocity);
            let first = *first_energy.get_or_insert(energy);
            if energy > PASS_ENERGY_RATIO * first + f64::EPSILON {
                // Relinearized about a deep crossing, a pass can diverge (measured: 12.8× the
                // energy at 16 ms, a corner falling through another at 2.6 m/s); once, the
                // constraints the pass added are solved about the point before instead.
                match before.take() {
                    Some(point) if !reverted => {
                        (about, reverted) = (point, true);
                        continue;
                    }
                    _ => break,
                }
            }
            let end = EndPose::new(model, state, &velocity, h);
            let added = if pass + 1 < self.passes {
                self.detect_new(model, state, contacts, distance, (&velocity, &end), &set)
            } else {
                Vec::new()
            };
            floors.extend(added.iter().map(floor));
            set.extend(added.iter().cloned());
            let depth = violation(model, state, &set, &floors, &end, &velocity);
            let score = if depth < -self.gap_tolerance { depth } else { 0.0 };
            warm_from = answers(&lcp, &pass_set, &z);
            let candidate = Pass {
                set: pass_set,
                lcp,
                z,
                report,
                velocity,
                score,
            };
            let violated = self.prediction == Prediction::Implicit && score < 0.0;
            if self.prediction == Prediction::Implicit {
                before = Some(about.replace((candidate.velocity.clone(), end)));
            }
            if kept.as_ref().is_none_or(|k| k.yields_to(&candidate)) {
                kept = Some(candidate);
            }
            if added.is_empty() && !violated {
                break;
            }
        }
        let kept = kept.expect("the first pass is kept or the step returned its error");
        self.last.traps = traps(model, state, &kept.set, &kept.velocity);
        self.previous = answers(&kept.lcp, &kept.set, &kept.z);
        Ok(StepSolve {
            active: kept.set.len(),
            velocity: kept.velocity,
            report: Some(kept.report),
            group: None,
        })
    }

    /// The step's constraints at the start pose (each pair's own reach when the activation
    /// distance is derived).
    fn detect(
        &self,
        model: &PlanarModel,
        state: &PlanarState,
        contacts: &[Contact2],
        distance: f64,
        end: Option<&EndPose>,
    ) -> Vec<Constraint2> {
        // The paper's linear gaps have no pass that re-linearizes what the solve's turn brings
        // in: they keep the time-stepping default's reach (factor 4, [`pair_distance`]).
        let factor = if self.prediction == Prediction::Linear { 4.0 } else { 1.0 };
        let reach = self.activation_distance.is_none().then_some(factor);
        let end = end.map(|e| (e.placed(), self.gap_tolerance));
        constraints_within(model, state, contacts, distance, reach, self.recovery_depth, end)
    }

    /// The constraints that a pass's velocities `velocity` bring within reach (detection with
    /// ν⁺ as the free motion: reach, predicted gaps, X-constraints' turn; and the edges that
    /// cross at the pose `end` they lead to) and `set` lacks.
    fn detect_new(
        &self,
        model: &PlanarModel,
        state: &PlanarState,
        contacts: &[Contact2],
        distance: f64,
        (velocity, end): (&[f64], &EndPose),
        set: &[Constraint2],
    ) -> Vec<Constraint2> {
        let g = model.settings.gravity * model.settings.time_step;
        let mut moving = state.clone();
        for (s, o) in moving.bodies.iter_mut().zip(model.dof_offsets()) {
            if let Some(o) = o {
                s.velocity = DVec2::new(velocity[o], velocity[o + 1]) - g;
                s.angular_velocity = velocity[o + 2];
            }
        }
        // Of the new constraints, those that end the pass within `simulation.activation_distance`
        // of violation: a fast landing brought 63 more within reach under ν⁺ (230 → 600+ rows,
        // over `max_rows`), most of them centimetres clear at the pose ν⁺ leads to.
        let margin = model.settings.activation_distance;
        let known: BTreeSet<What> = set.iter().map(|c| c.what).collect();
        self.detect(model, &moving, contacts, distance, Some(end))
            .into_iter()
            .filter(|c| !known.contains(&c.what))
            .filter(|c| held_gap(model, state, c, end, velocity) < margin)
            .collect()
    }

    fn too_many_rows(&self, model: &PlanarModel, state: &PlanarState, lcp: &Lcp) -> ContactError {
        let fastest = model
            .bodies
            .iter()
            .zip(&state.bodies)
            .filter(|(b, _)| !b.fixed)
            .map(|(b, s)| (b.name.clone(), s.angular_velocity.abs()))
            .max_by(|x, y| x.1.total_cmp(&y.1));
        ContactError::TooManyRows {
            rows: lcp.problem.len(),
            constraints: lcp.np,
            slacks: lcp.ns,
            max_rows: self.max_rows,
            fastest,
        }
    }
}

impl PlanarPegStats {
    /// The counts of a step's constraints (traps are counted after the solve).
    fn of(set: &[Constraint2]) -> Self {
        PlanarPegStats {
            constraints: set.len(),
            potential_contacts: set.iter().map(|c| 1 + c.others.len()).sum(),
            multi: set.iter().filter(|c| !c.others.is_empty()).count(),
            cross: set
                .iter()
                .filter(|c| matches!(c.what, What::Cross { .. }))
                .count(),
            traps: 0,
        }
    }
}

/// ½ νᵀ M ν over the dynamic bodies (J), M diagonal from `inverse_mass`.
fn kinetic_energy(inverse_mass: &[f64], velocity: &[f64]) -> f64 {
    inverse_mass
        .iter()
        .zip(velocity)
        .filter(|(w, _)| **w > 0.0)
        .map(|(w, v)| 0.5 * v * v / w)
        .sum()
}

/// The warm start of `lcp` (constraints `set`) from the answers `from` of the same constraints.
fn warm_start(lcp: &Lcp, set: &[Constraint2], from: &BTreeMap<What, Vec<f64>>) -> DVector<f64> {
    let mut warm = DVector::zeros(lcp.problem.len());
    for (j, c) in set.iter().enumerate() {
        let Some(p) = from.get(&c.what) else {
            continue;
        };
        if p.len() != 4 + c.others.len() {
            continue;
        }
        warm[j] = p[0];
        if let Some(f) = lcp.friction_index[j] {
            warm[lcp.np + 2 * f] = p[1];
            warm[lcp.np + 2 * f + 1] = p[2];
            warm[lcp.np + 2 * lcp.nf + f] = p[3];
        }
        for s in 0..c.others.len() {
            warm[lcp.slack_start[j] + s] = p[4 + s];
        }
    }
    warm
}

/// The answer z of `lcp` per constraint of `set`: (p, β₊, β₋, σ, c…).
fn answers(lcp: &Lcp, set: &[Constraint2], z: &DVector<f64>) -> BTreeMap<What, Vec<f64>> {
    let mut out = BTreeMap::new();
    for (j, c) in set.iter().enumerate() {
        let mut p = vec![z[j], 0.0, 0.0, 0.0];
        if let Some(f) = lcp.friction_index[j] {
            p[1] = z[lcp.np + 2 * f];
            p[2] = z[lcp.np + 2 * f + 1];
            p[3] = z[lcp.np + 2 * lcp.nf + f];
        }
        p.extend((0..c.others.len()).map(|s| z[lcp.slack_start[j] + s]));
        out.insert(c.what, p);
    }
    out
}

/// Multi-member constraints whose primary ends the step (linear prediction ψ + h G ν⁺) behind
/// its line by more than [`TRAP_DEPTH`] while another member ends in front of −TRAP_DEPTH.
fn traps(model: &PlanarModel, state: &PlanarState, set: &[Constraint2], velocity: &[f64]) -> usize {
    let h = model.settings.time_step;
    let dofs = model.dof_offsets();
    let end = |c: &Contact2| c.gap + h * Row::of(state, &dofs, c, c.normal).dot(velocity);
    set.iter()
        .filter(|c| !c.others.is_empty())
        .filter(|c| {
            end(&c.primary) < -TRAP_DEPTH && c.others.iter().any(|k| end(k) >= -TRAP_DEPTH)
        })
        .count()
}
