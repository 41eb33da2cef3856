//! PEG's potential contacts (Williams, Lu & Trinkle 2016, "A geometrically exact contact model
//! for polytopes", §4–§5.2): for a pair of convex polytopes A and B, every feature pair that
//! could touch before the end of the step, grouped into the constraints
//! of the paper's configurations. Contact models choose which member of a group carries the
//! force (`contact::peg`); this module only does geometry.
//!
//! # Potential contacts (all [`Contact`]s: points, normal A → B, gap ψ, features)
//!
//! - **vertex–face** `C(v_a, f_b)`: ψ = η_b·v_a − o_b, the signed distance of the vertex to the
//!   face's *plane* (positive outside), normal −η_b, point on B the vertex's projection on the
//!   plane. **face–vertex** `C(f_a, v_b)` is the same with the roles swapped (normal +η_a).
//! - **edge–edge** `C(e_a, e_b)`: normal ±(e_a × e_b)/|e_a × e_b| oriented by applicability
//!   (eq. 31), ψ = n·(p_b − p_a) with p_a, p_b the closest points of the two *lines* (the signed
//!   distance between the lines, a smooth function of the configuration).
//!
//! # Applicability (eqs 28–31, relaxed by ε_θ = sin θ)
//!
//! - vertex–face, eq. 30: APPL = min over the neighbours v_k of v_a of η_b·(v_k − v_a)/|v_k − v_a|;
//!   v_a is the point of A that meets the plane first when APPL ≥ 0, and the pair is applicable
//!   when APPL ≥ −ε_θ (A may turn by θ during the step).
//! - edge–edge, eq. 31: with t the unit vectors in the two faces of each edge, perpendicular to
//!   it and pointing into the face (eq. 26: t₁ = η₁ × e, t₂ = e × η₂), APPL(n) =
//!   min(−n·t_a1, −n·t_a2, n·t_b1, n·t_b2): the faces of e_a recede from B and those of e_b from
//!   A along n. The sign of n giving the larger value is the A → B normal; applicable when
//!   APPL ≥ −ε_θ.
//!
//! # Feasibility (§4.3) and the groups (eqs 34–38)
//!
//! Every group is a constraint "at least one member keeps ψ ≥ 0" (an I- or X-constraint of eqs
//! 19–25; a U-constraint when it has one member).
//!
//! Features are swept over a look-ahead time T (the model uses T = h): a vertex p moving at w
//! relative to the other body sweeps the segment [p, p + T w], and σ is a distance margin (the
//! model's: `simulation.activation_distance` plus the second-order motion of rotation and
//! gravity over T).
//!
//! - **Vertex groups** (eq. 34 vertex–face, the I-constraints of eq. 36 vertex–edge and eq. 37
//!   vertex–vertex). For each vertex v of one polytope, the members are the vertex–face contacts
//!   with every face of the other whose *polygon* comes within σ of v's sweep (feasibility: v in
//!   the face's Voronoi region close to the plane, or near its boundary). One face when v is over a
//!   face, the two faces of an edge when v is near that edge, all faces of a vertex near a vertex;
//!   no group when no face is reachable. Since the other polytope is convex, v is outside it
//!   exactly when it is outside one of its face planes, and the faces near v's sweep are the only
//!   ones v can reach in a step: the group says exactly "v does not enter the polytope", and never
//!   traps v at a convex corner. A face of the other polytope whose plane holds v together with a
//!   face of v's own polytope at v, both facing the same way, is left out: that plane separates
//!   nothing (v can slide along it at ψ = 0 while its polytope sinks into the other; stacked equal
//!   boxes did). Candidates for the force (C_ι) are the applicable members (all
//!   members if none is).
//! - **Edge groups** (eq. 35 edge–edge, and the X-constraints of eqs 36 and 38). For each
//!   applicable, non-parallel edge pair whose segments are within d = σ + T |w| (w the relative
//!   velocity of their closest points) and whose lines' closest points lie on both segments
//!   (within d of their ends): the edge–edge contact, plus, for each endpoint of either edge
//!   within d of the crossing, a *release* ρ: the signed distance of that endpoint beyond the
//!   plane through the other edge's line that contains the normal n (a point on A, a point on B
//!   and a direction: a pseudo-contact with a Jacobian row like any other), positive once the
//!   crossing has left the segment through that endpoint. The edges pass through each other
//!   only if they cross on both segments with ψ < 0, so the group "ψ_EE ≥ 0 or some ρ ≥ 0" is
//!   exactly "these two edges do not pass through each other": it never traps an edge that slides
//!   off the other's end, whatever the faces around the endpoints (this replaces the paper's
//!   X-constraints against a vertex's face contacts, eqs 36 and 38, whose pairing of edges with
//!   faces is only right where the other body is the wedge of one edge). The edge–edge contact
//!   is the only candidate.
//!   A negative edge–edge gap is a contact only when the edges really pass through each other:
//!   the lines cross on both segments, at least |ψ| from their ends, and each closest point lies
//!   in the other polytope; or when they slide into a crossing: strictly applicable (APPL ≥ 0),
//!   the crossing beyond an end now and on both segments after the horizon's motion (the
//!   group's releases hold until the crossing reaches the segments). A gap within
//!   `merge_tolerance` × (r_A + r_B) of 0 counts as touching. Elsewhere (on an extension, near
//!   vertices where the other edge's faces end) the line distance measures nothing.
//!
//! Parallel edges (|ê_a × ê_b| < `parallel_sine`) give no edge–edge contact: their common normal is
//! not defined by the pair; their endpoints' vertex groups and the neighbouring edges' groups hold
//! them (see docs/peg.md for what this leaves out).
//!
//! # Nearly equal candidates
//!
//! Coincident features (a vertex on a vertex, stacked boxes' corners) give the same contact from
//! several feature pairs. Two contacts of a pair are merged when both their points agree within
//! `merge_tolerance` × (r_A + r_B) and their normals within `merge_tolerance` (they then have the
//! same gap function to first order). A group whose member set contains another group's is implied
//! by it ("one of a subset ≥ 0" implies "one of the set ≥ 0") and is dropped; of equal groups the
//! first is kept. Stacked boxes thus get one unilateral contact per corner, as the standard model.
use super::narrow::contact;
use super::Contact;
use crate::dynamics::{Model, State};
use crate::geometry::polytope::point_segment_distance;
use crate::geometry::{Feature, Polytope, Pose};
use glam::DVec3;

/// Thresholds of the potential-contact search.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PotentialParams {
    /// σ (m): feature pairs that come closer than this within the horizon are potential contacts.
    pub distance: f64,
    /// T (s): how far ahead features are swept: a vertex p moving at w relative to the other
    /// polytope sweeps the segment [p, p + T w]; edges reach T |w| further.
    pub horizon: f64,
    /// ε_θ = sin θ (dimensionless): relaxation of applicability for a turn of θ within a step.
    pub applicability: f64,
    /// Edges with |ê_a × ê_b| below this (the sine of their angle) are parallel.
    pub parallel_sine: f64,
    /// Relative tolerance (of lengths, times r_A + r_B, and of unit normals) for merging equal
    /// contacts.
    pub merge_tolerance: f64,
}

impl PotentialParams {
    /// The defaults of `contact::peg` at distance σ (m) without look-ahead (T = 0): θ = 0.2 rad,
    /// parallel below 1e-3 rad, merge tolerance 1e-9.
    pub fn with_distance(distance: f64) -> Self {
        PotentialParams {
            distance,
            horizon: 0.0,
            applicability: 0.2f64.sin(),
            parallel_sine: 1e-3,
            merge_tolerance: 1e-9,
        }
    }
}

/// How a polytope moves (world axes): the velocity of `point` and the angular velocity.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Motion {
    pub point: DVec3,
    /// m/s.
    pub velocity: DVec3,
    /// rad/s.
    pub angular_velocity: DVec3,
}

impl Motion {
    /// At rest.
    pub const REST: Motion = Motion {
        point: DVec3::ZERO,
        velocity: DVec3::ZERO,
        angular_velocity: DVec3::ZERO,
    };

    /// Velocity of the material point at `p` (m/s).
    pub fn at(&self, p: DVec3) -> DVec3 {
        self.velocity + self.angular_velocity.cross(p - self.point)
    }
}

/// PEG's configuration (§5.2) a group comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Configuration {
    /// A vertex over a face: one member (eq. 34).
    VertexFace,
    /// A vertex near an edge: the two faces of the edge (I of eq. 36), or an edge–edge contact
    /// released by the endpoints of one edge (X of eq. 36).
    VertexEdge,
    /// A vertex near a vertex: the faces around it (I of eq. 37), or an edge–edge contact
    /// released by endpoints of both edges (X of eq. 38).
    VertexVertex,
    /// Two crossing edges far from their ends (eq. 35).
    EdgeEdge,
}

/// What a group is about, stable across steps while the same features stay close.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum GroupKey {
    /// A vertex of A (against B's faces).
    VertexOfA(u32),
    /// A vertex of B (against A's faces).
    VertexOfB(u32),
    /// An edge of A against an edge of B.
    Edges(u32, u32),
}

/// The paper's constraint kind of a group.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ConstraintKind {
    /// One member: U (eq. 17).
    Unilateral,
    /// A vertex against several faces: I (eq. 19).
    Inter,
    /// An edge–edge contact with releases: X (eq. 25).
    Cross,
}

/// One constraint: at least one member keeps a non-negative gap.
#[derive(Clone, Debug, PartialEq)]
pub struct Group {
    pub configuration: Configuration,
    pub key: GroupKey,
    /// Indices into [`PotentialSet::contacts`], increasing, at least one.
    pub members: Vec<usize>,
    /// Members that may carry a force (C_ι), increasing, never empty.
    pub candidates: Vec<usize>,
    /// True for edge groups (X-constraints when they have releases).
    pub from_edges: bool,
}

impl Group {
    pub fn kind(&self) -> ConstraintKind {
        if self.members.len() == 1 {
            ConstraintKind::Unilateral
        } else if self.from_edges {
            ConstraintKind::Cross
        } else {
            ConstraintKind::Inter
        }
    }
}

/// Potential contacts and their groups, for one or many piece pairs.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PotentialSet {
    pub contacts: Vec<Contact>,
    /// Applicability of each contact (eqs 30–31; −∞ for releases, which carry no force).
    pub applicability: Vec<f64>,
    pub groups: Vec<Group>,
}

impl PotentialSet {
    pub fn clear(&mut self) {
        self.contacts.clear();
        self.applicability.clear();
        self.groups.clear();
    }
}

/// A polytope placed in the world.
#[derive(Clone, Debug, Default)]
struct World {
    vertices: Vec<DVec3>,
    normals: Vec<DVec3>,
    offsets: Vec<f64>,
    centroid: DVec3,
    motion: Motion,
    /// Faces covered by another piece of the same body (not boundary).
    covered: Vec<bool>,
}

impl World {
    fn place(&mut self, p: &Polytope, pose: &Pose, motion: &Motion, covered: &[bool]) {
        self.motion = *motion;
        self.covered.clear();
        self.covered
            .extend((0..p.faces.len()).map(|f| covered.get(f).copied().unwrap_or(false)));
        self.vertices.clear();
        self.vertices
            .extend(p.vertices.iter().map(|v| pose.transform_point(*v)));
        self.normals.clear();
        self.normals
            .extend(p.faces.iter().map(|f| pose.transform_vector(f.normal)));
        self.offsets.clear();
        self.offsets.extend(
            p.faces
                .iter()
                .zip(&self.normals)
                .map(|(f, n)| f.offset + n.dot(pose.translation)),
        );
        self.centroid = pose.transform_point(p.centroid);
    }
}

/// Reusable buffers.
#[derive(Clone, Debug, Default)]
pub struct Scratch {
    a: World,
    b: World,
    /// Pair-local contacts and groups before merging.
    contacts: Vec<Contact>,
    applicability: Vec<f64>,
    groups: Vec<Group>,
}

/// A polytope with its world placement.
#[derive(Clone, Copy)]
struct Side<'a> {
    p: &'a Polytope,
    w: &'a World,
}

/// Potential contacts and groups of every polytope piece pair `(body_a, piece_a, body_b,
/// piece_b)` in `pairs` at `state` (bodies moving with their velocities), with the thresholds
/// `params(body_a, body_b)`, appended to `out`. `covered[body][piece][face]` marks the faces that
/// another piece of the same body covers ([`covered_faces`]; absent entries: none). Pairs whose
/// pieces are not both polytopes are skipped.
pub fn detect(
    model: &Model,
    state: &State,
    pairs: &[(usize, usize, usize, usize)],
    params: impl Fn(usize, usize) -> PotentialParams,
    covered: &[Vec<Vec<bool>>],
    scratch: &mut Scratch,
    out: &mut PotentialSet,
) {
    let mask = |b: usize, p: usize| -> &[bool] {
        covered
            .get(b)
            .and_then(|c| c.get(p))
            .map_or(&[], |v| v.as_slice())
    };
    use crate::geometry::Shape;
    for &(ba, pa, bb, pb) in pairs {
        let (Shape::Polytope(p), Shape::Polytope(q)) = (
            &model.bodies[ba].pieces[pa].shape,
            &model.bodies[bb].pieces[pb].shape,
        ) else {
            continue;
        };
        let pose_a = super::broad::piece_pose(model, state, ba, pa);
        let pose_b = super::broad::piece_pose(model, state, bb, pb);
        let motion = |b: usize| {
            let s = &state.bodies[b];
            if model.bodies[b].moves(state.time) {
                Motion {
                    point: s.position,
                    velocity: s.velocity,
                    angular_velocity: s.angular_velocity,
                }
            } else {
                Motion::REST
            }
        };
        let start = out.contacts.len();
        pair(
            (p, &pose_a, &motion(ba), mask(ba, pa)),
            (q, &pose_b, &motion(bb), mask(bb, pb)),
            &params(ba, bb),
            scratch,
            out,
        );
        for c in &mut out.contacts[start..] {
            c.body_a = ba;
            c.piece_a = pa;
            c.body_b = bb;
            c.piece_b = pb;
        }
    }
}

/// Potential contacts and groups of polytope A (at its pose, moving with its motion, with the
/// faces `covered` by other pieces of its body: they are not boundary, `&[]` for none) and B,
/// appended to `out` (contacts with body and piece indices 0).
pub fn pair(
    (a, pose_a, motion_a, covered_a): (&Polytope, &Pose, &Motion, &[bool]),
    (b, pose_b, motion_b, covered_b): (&Polytope, &Pose, &Motion, &[bool]),
    params: &PotentialParams,
    scratch: &mut Scratch,
    out: &mut PotentialSet,
) {
    scratch.a.place(a, pose_a, motion_a, covered_a);
    scratch.b.place(b, pose_b, motion_b, covered_b);
    // Bounding spheres: nothing within σ over the horizon.
    let (ca, cb) = (scratch.a.centroid, scratch.b.centroid);
    let reach = params.horizon
        * ((motion_a.at(ca) - motion_b.at(cb)).length()
            + motion_a.angular_velocity.length() * a.radius
            + motion_b.angular_velocity.length() * b.radius);
    if ca.distance(cb) - a.radius - b.radius > params.distance + reach {
        return;
    }
    scratch.contacts.clear();
    scratch.applicability.clear();
    scratch.groups.clear();
    let sa = Side {
        p: a,
        w: &scratch.a,
    };
    let sb = Side {
        p: b,
        w: &scratch.b,
    };
    let mut local = Local {
        contacts: &mut scratch.contacts,
        applicability: &mut scratch.applicability,
        groups: &mut scratch.groups,
    };
    vertex_groups(sa, sb, false, params, &mut local);
    vertex_groups(sb, sa, true, params, &mut local);
    edge_groups(sa, sb, params, &mut local);
    merge_into(
        scratch,
        params.merge_tolerance,
        params.merge_tolerance * (a.radius + b.radius),
        out,
    );
}

/// Pair-local output while generating.
struct Local<'s> {
    contacts: &'s mut Vec<Contact>,
    applicability: &'s mut Vec<f64>,
    groups: &'s mut Vec<Group>,
}

impl Local<'_> {
    fn push(&mut self, c: Contact, applicability: f64) -> usize {
        self.contacts.push(c);
        self.applicability.push(applicability);
        self.contacts.len() - 1
    }
}

/// The vertex–face contact of vertex `v` (world point `p`) of X with face `f` of Y; `b_side`
/// when X is B (a face–vertex contact, A's face).
fn vertex_face(y: Side, v: usize, p: DVec3, f: usize, b_side: bool) -> Contact {
    let n = y.w.normals[f];
    let gap = n.dot(p) - y.w.offsets[f];
    let on_plane = p - gap * n;
    if b_side {
        contact(
            on_plane,
            p,
            n,
            gap,
            Feature::Face(f as u32),
            Feature::Vertex(v as u32),
        )
    } else {
        contact(
            p,
            on_plane,
            -n,
            gap,
            Feature::Vertex(v as u32),
            Feature::Face(f as u32),
        )
    }
}

/// Distance (m) from `p`, at signed distance `gap` from the plane of face `f` of Y, to the face
/// polygon.
fn polygon_distance(y: Side, f: usize, p: DVec3, gap: f64) -> f64 {
    let face = &y.p.faces[f];
    let n = y.w.normals[f];
    let q = p - gap * n;
    let k = face.vertices.len();
    let mut inside = true;
    for i in 0..k {
        let v0 = y.w.vertices[face.vertices[i] as usize];
        let v1 = y.w.vertices[face.vertices[(i + 1) % k] as usize];
        if (v1 - v0).cross(q - v0).dot(n) < 0.0 {
            inside = false;
            break;
        }
    }
    if inside {
        return gap.abs();
    }
    (0..k)
        .map(|i| {
            let v0 = y.w.vertices[face.vertices[i] as usize];
            let v1 = y.w.vertices[face.vertices[(i + 1) % k] as usize];
            point_segment_distance(p, v0, v1)
        })
        .fold(f64::INFINITY, f64::min)
}

/// Do two edges pass through each other: with p_a = a0 + s (a1 − a0) and p_b = b0 + t (b1 − b0)
/// the closest points of their lines (edge lengths `la`, `lb`, m) and `depth` = −ψ > `tol`, the
/// crossing lies on both segments at least `depth` from their ends and each closest point lies
/// in the other body (within `tol`, m).
fn passing_through(
    (a, b): (Side, Side),
    (pa, s, la): (DVec3, f64, f64),
    (pb, t, lb): (DVec3, f64, f64),
    depth: f64,
    tol: f64,
) -> bool {
    let inside = |u: f64, len: f64| u * len >= depth && (1.0 - u) * len >= depth;
    depth > tol && inside(s, la) && inside(t, lb) && contains(b, pa, tol) && contains(a, pb, tol)
}

/// [`line_params`] of two edges after their bodies move for `time` (s) with their motions
/// (endpoints moved to first order).
fn line_crossing(
    a: Side,
    b: Side,
    (a0, a1): (DVec3, DVec3),
    (b0, b1): (DVec3, DVec3),
    time: f64,
) -> Option<(f64, f64)> {
    let (ma, mb) = (a.w.motion, b.w.motion);
    let [a0, a1] = [a0, a1].map(|x| x + time * ma.at(x));
    let [b0, b1] = [b0, b1].map(|x| x + time * mb.at(x));
    line_params(a0, a1, b0, b1)
}

/// Parameters (s, t) of the closest points a0 + s (a1 − a0), b0 + t (b1 − b0) of the lines
/// through two segments; None for parallel lines.
fn line_params(a0: DVec3, a1: DVec3, b0: DVec3, b1: DVec3) -> Option<(f64, f64)> {
    let (da, db, r) = (a1 - a0, b1 - b0, a0 - b0);
    let (aa, bb, ee) = (da.dot(da), da.dot(db), db.dot(db));
    let den = aa * ee - bb * bb;
    if den <= 0.0 {
        return None;
    }
    let (c, f) = (da.dot(r), db.dot(r));
    Some(((bb * f - c * ee) / den, (aa * f - bb * c) / den))
}

/// Is `p` in polytope X, within `tol` (m) of its face planes?
fn contains(x: Side, p: DVec3, tol: f64) -> bool {
    x.w.normals
        .iter()
        .zip(&x.w.offsets)
        .all(|(n, o)| n.dot(p) - o <= tol)
}

/// Eq. 30: min over the neighbours v_k of vertex `v` of X of η·(v_k − v)/|v_k − v|.
fn vertex_applicability(x: Side, v: usize, eta: DVec3) -> f64 {
    let p = x.w.vertices[v];
    x.p.vertex_edges[v]
        .iter()
        .map(|&e| {
            let [v0, v1] = x.p.edges[e as usize].vertices;
            let other = if v0 as usize == v { v1 } else { v0 };
            let d = x.w.vertices[other as usize] - p;
            eta.dot(d) / d.length()
        })
        .fold(f64::INFINITY, f64::min)
}

/// Distance (m) from the segment [p, q] to the polygon of face `f` of Y.
fn segment_polygon_distance(y: Side, f: usize, p: DVec3, q: DVec3) -> f64 {
    let n = y.w.normals[f];
    let (gp, gq) = (n.dot(p) - y.w.offsets[f], n.dot(q) - y.w.offsets[f]);
    let mut best = polygon_distance(y, f, p, gp).min(polygon_distance(y, f, q, gq));
    if best == 0.0 || p == q {
        return best;
    }
    // Through the face?
    if (gp <= 0.0) != (gq <= 0.0) {
        let x = p + (gp / (gp - gq)) * (q - p);
        if polygon_distance(y, f, x, 0.0) == 0.0 {
            return 0.0;
        }
    }
    let face = &y.p.faces[f];
    let k = face.vertices.len();
    for i in 0..k {
        let v0 = y.w.vertices[face.vertices[i] as usize];
        let v1 = y.w.vertices[face.vertices[(i + 1) % k] as usize];
        let (s, t) = super::narrow::segment_closest_points(p, q, v0, v1);
        best = best.min(s.distance(t));
    }
    best
}

/// The vertex groups of X's vertices against Y's faces (`b_side`: X is B). Vertex p, moving at
/// w relative to Y, sweeps [p, p + T w]; the faces whose polygon comes within σ of the sweep are
/// its members.
fn vertex_groups(x: Side, y: Side, b_side: bool, params: &PotentialParams, out: &mut Local) {
    let d = params.distance;
    let eps = params.applicability;
    let touching = params.merge_tolerance * (x.p.radius + y.p.radius);
    for (v, &p) in x.w.vertices.iter().enumerate() {
        let q = p + params.horizon * (x.w.motion.at(p) - y.w.motion.at(p));
        if point_segment_distance(y.w.centroid, p, q) > y.p.radius + d {
            continue;
        }
        let first = out.contacts.len();
        // A vertex already inside Y (behind every face plane) must get out: its members are the
        // boundary faces within σ of its shallowest way out, wherever the sweep goes.
        let shallowest = (0..y.p.faces.len())
            .map(|f| y.w.normals[f].dot(p) - y.w.offsets[f])
            .fold(f64::NEG_INFINITY, f64::max);
        let exit = (0..y.p.faces.len())
            .filter(|&f| !y.w.covered[f])
            .map(|f| y.w.normals[f].dot(p) - y.w.offsets[f])
            .fold(f64::NEG_INFINITY, f64::max);
        let inside = shallowest < 0.0;
        for f in 0..y.p.faces.len() {
            if y.w.covered[f] {
                continue;
            }
            let n = y.w.normals[f];
            let gap = n.dot(p) - y.w.offsets[f];
            let gap_q = n.dot(q) - y.w.offsets[f];
            if inside {
                if gap < exit - d {
                    continue;
                }
            } else if gap.min(gap_q) > d
                || gap.max(gap_q) < -d
                || segment_polygon_distance(y, f, p, q) > d
            {
                continue;
            }
            // A face of Y in whose plane v lies together with a face of X at v, both facing the
            // same way (coplanar side faces of stacked equal boxes), separates nothing: X lies on
            // Y's side of that plane, and v sliding along it (ψ = 0 all the way) lets X sink
            // into Y with no vertex entering the other body.
            if gap.abs() <= touching
                && x.p.vertex_faces[v]
                    .iter()
                    .any(|&g| x.w.normals[g as usize].distance(n) <= params.merge_tolerance)
            {
                continue;
            }
            let appl = vertex_applicability(x, v, y.w.normals[f]);
            out.push(vertex_face(y, v, p, f, b_side), appl);
        }
        let members: Vec<usize> = (first..out.contacts.len()).collect();
        if members.is_empty() {
            continue;
        }
        let mut candidates: Vec<usize> = members
            .iter()
            .copied()
            .filter(|&m| out.applicability[m] >= -eps)
            .collect();
        if candidates.is_empty() {
            candidates = members.clone();
        }
        let configuration = match members.len() {
            1 => Configuration::VertexFace,
            2 => Configuration::VertexEdge,
            _ => Configuration::VertexVertex,
        };
        out.groups.push(Group {
            configuration,
            key: if b_side {
                GroupKey::VertexOfB(v as u32)
            } else {
                GroupKey::VertexOfA(v as u32)
            },
            members,
            candidates,
            from_edges: false,
        });
    }
}

/// Unit vectors in the two faces of edge `e` of X, perpendicular to it and into each face
/// (eq. 26), and the edge's world endpoints.
fn edge_frame(x: Side, e: usize) -> (DVec3, DVec3, DVec3, DVec3) {
    let edge = &x.p.edges[e];
    let p0 = x.w.vertices[edge.vertices[0] as usize];
    let p1 = x.w.vertices[edge.vertices[1] as usize];
    let dir = (p1 - p0).normalize();
    let t1 = x.w.normals[edge.faces[0] as usize].cross(dir).normalize();
    let t2 = dir.cross(x.w.normals[edge.faces[1] as usize]).normalize();
    (p0, p1, t1, t2)
}

/// The edge groups of A's and B's edges.
fn edge_groups(a: Side, b: Side, params: &PotentialParams, out: &mut Local) {
    let eps = params.applicability;
    // How far an edge of A can move relative to B within the horizon, at most.
    let (ma, mb) = (a.w.motion, b.w.motion);
    let reach_a = params.horizon
        * ((ma.at(a.w.centroid) - mb.at(a.w.centroid)).length()
            + (ma.angular_velocity.length() + mb.angular_velocity.length()) * a.p.radius);
    let seam = |x: Side, e: usize| x.p.edges[e].faces.iter().any(|&f| x.w.covered[f as usize]);
    for ea in 0..a.p.edges.len() {
        if seam(a, ea) {
            continue;
        }
        let (a0, a1, ta1, ta2) = edge_frame(a, ea);
        if point_segment_distance(b.w.centroid, a0, a1) > b.p.radius + params.distance + reach_a {
            continue;
        }
        let da = a1 - a0;
        let la = da.length();
        for eb in 0..b.p.edges.len() {
            if seam(b, eb) {
                continue;
            }
            let (b0, b1, tb1, tb2) = edge_frame(b, eb);
            let db = b1 - b0;
            let lb = db.length();
            let cross = da.cross(db);
            if cross.length() < params.parallel_sine * la * lb {
                continue;
            }
            let (sa, sb) = super::narrow::segment_closest_points(a0, a1, b0, b1);
            // σ plus how far the closest points can approach within the horizon.
            let d = params.distance + params.horizon * (ma.at(sa) - mb.at(sb)).length();
            if sa.distance(sb) > d {
                continue;
            }
            // Closest points of the two lines (s on A's edge, t on B's, in [0, 1] on the
            // segments).
            let Some((s, t)) = line_params(a0, a1, b0, b1) else {
                continue;
            };
            let near_a0 = s * la <= d;
            let near_a1 = (1.0 - s) * la <= d;
            let near_b0 = t * lb <= d;
            let near_b1 = (1.0 - t) * lb <= d;
            if s * la < -d || (s - 1.0) * la > d || t * lb < -d || (t - 1.0) * lb > d {
                continue;
            }
            // Eq. 31: orient the normal by applicability.
            let n0 = cross.normalize();
            let plus = (-n0.dot(ta1))
                .min(-n0.dot(ta2))
                .min(n0.dot(tb1))
                .min(n0.dot(tb2));
            let minus = n0
                .dot(ta1)
                .min(n0.dot(ta2))
                .min(-n0.dot(tb1))
                .min(-n0.dot(tb2));
            let (n, appl) = if plus >= minus {
                (n0, plus)
            } else {
                (-n0, minus)
            };
            if appl < -eps {
                continue;
            }
            let pa = a0 + s * da;
            let pb = b0 + t * db;
            let gap = n.dot(pb - pa);
            // The gap closes only along n: at ψ̇ = n·(w_B(p_b) − w_A(p_a)) it reaches at least
            // ψ + T min(ψ̇, 0) within the horizon (rotation's second-order motion is in σ).
            // An isotropic reach T |w| would take in every edge pair of two small fast bodies.
            let rate = n.dot(mb.at(pb) - ma.at(pa));
            if gap + params.horizon * rate.min(0.0) > params.distance || gap < -d {
                continue;
            }
            // A negative gap is a penetration only where the edges really pass through each
            // other: the lines cross on both segments, at least |ψ| from their ends. Nearer an
            // end (or on an extension) the faces of the other edges at that vertex bound the
            // body, and the line distance measures nothing: an endpoint that goes round the
            // other edge and inside is its vertex group's business. A gap within the merge
            // tolerance of 0 is touching, kept as at ψ = 0: round-off must not remove a group.
            // And each crossing point must lie in the other body (p_a in B and p_b in A, within
            // round-off), as they do where two edges really cross: two thin wedges whose lines
            // cross with ψ < 0 can be apart, and their group must not say otherwise (with only
            // one point inside, and that within |ψ| α, a fast-turning pair on the pour scene got
            // an edge pair at ψ = −2.8 cm whose ψ/h term spun a body to 190 rad/s).
            let touching = params.merge_tolerance * (a.p.radius + b.p.radius);
            // And an edge sliding into a crossing: a strictly applicable pair (APPL ≥ 0, n the
            // normal of the face e_a ⊕ (−e_b) of the Minkowski difference A − B) whose crossing
            // lies beyond an end now but on both segments after the horizon's motion (endpoints
            // moved to first order) is kept at any ψ ≥ −d. Its releases hold now (the crossing
            // is off a segment), and the group binds as the crossing reaches the segments,
            // where the crossing points need not lie in the other body yet (measured on the pour
            // scene: an edge sliding along another at 1 m/s with its crossing 2.4 mm beyond an
            // end, ψ = −0.4 mm, left out of the subproblem, ended the step 4.6 mm through it).
            // A pair crossing on both segments now keeps the test above: the thin wedges of
            // `collision_potential.rs` cross there with ψ = −2 cm while apart.
            let on_segments = |st: Option<(f64, f64)>| {
                st.is_some_and(|(s, t)| (0.0..=1.0).contains(&s) && (0.0..=1.0).contains(&t))
            };
            if gap < -touching
                && !passing_through((a, b), (pa, s, la), (pb, t, lb), -gap, touching)
                && !(appl >= 0.0
                    && !on_segments(Some((s, t)))
                    && on_segments(line_crossing(a, b, (a0, a1), (b0, b1), params.horizon)))
            {
                continue;
            }
            let ee_index = out.push(
                contact(
                    pa,
                    pb,
                    n,
                    gap,
                    Feature::Edge(ea as u32),
                    Feature::Edge(eb as u32),
                ),
                appl,
            );
            let mut members = vec![ee_index];
            let edge_a = &a.p.edges[ea];
            let edge_b = &b.p.edges[eb];
            let mut released_a = false;
            let mut released_b = false;
            // Releases: ρ, the signed distance of an endpoint beyond the plane through the other
            // edge's line that contains n, positive once the crossing has left the segment
            // through that endpoint.
            let beyond_b = n.cross(db).normalize();
            for (near, v, u) in [
                (near_a0, edge_a.vertices[0], da),
                (near_a1, edge_a.vertices[1], -da),
            ] {
                if near {
                    let pv = a.w.vertices[v as usize];
                    let m = if beyond_b.dot(u) >= 0.0 {
                        beyond_b
                    } else {
                        -beyond_b
                    };
                    members.push(out.push(
                        contact(
                            pv,
                            pb,
                            -m,
                            m.dot(pv - pb),
                            Feature::Vertex(v),
                            Feature::Edge(eb as u32),
                        ),
                        f64::NEG_INFINITY,
                    ));
                    released_a = true;
                }
            }
            let beyond_a = n.cross(da).normalize();
            for (near, v, u) in [
                (near_b0, edge_b.vertices[0], db),
                (near_b1, edge_b.vertices[1], -db),
            ] {
                if near {
                    let pw = b.w.vertices[v as usize];
                    let m = if beyond_a.dot(u) >= 0.0 {
                        beyond_a
                    } else {
                        -beyond_a
                    };
                    members.push(out.push(
                        contact(
                            pa,
                            pw,
                            m,
                            m.dot(pw - pa),
                            Feature::Edge(ea as u32),
                            Feature::Vertex(v),
                        ),
                        f64::NEG_INFINITY,
                    ));
                    released_b = true;
                }
            }
            let configuration = match (released_a, released_b) {
                (false, false) => Configuration::EdgeEdge,
                (true, true) => Configuration::VertexVertex,
                _ => Configuration::VertexEdge,
            };
            out.groups.push(Group {
                configuration,
                key: GroupKey::Edges(ea as u32, eb as u32),
                members,
                candidates: vec![ee_index],
                from_edges: true,
            });
        }
    }
}

/// Merge nearly equal contacts, drop implied groups, and append what remains to `out`.
fn merge_into(scratch: &mut Scratch, normal_tol: f64, point_tol: f64, out: &mut PotentialSet) {
    let contacts = &scratch.contacts;
    let n = contacts.len();
    // Canonical representative of each contact: the first equal one.
    let mut canon: Vec<usize> = (0..n).collect();
    for i in 0..n {
        for j in 0..i {
            if canon[j] != j {
                continue;
            }
            let (ci, cj) = (&contacts[i], &contacts[j]);
            if ci.point_a.distance(cj.point_a) <= point_tol
                && ci.point_b.distance(cj.point_b) <= point_tol
                && ci.normal.distance(cj.normal) <= normal_tol
            {
                canon[i] = j;
                break;
            }
        }
    }
    let mut groups = std::mem::take(&mut scratch.groups);
    for g in &mut groups {
        for m in g.members.iter_mut().chain(g.candidates.iter_mut()) {
            *m = canon[*m];
        }
        g.members.sort_unstable();
        g.members.dedup();
        g.candidates.sort_unstable();
        g.candidates.dedup();
    }
    // A group implied by another (a subset of its members, or an equal earlier one) goes.
    let implied = |i: usize| {
        groups.iter().enumerate().any(|(j, other)| {
            j != i
                && other.members.iter().all(|m| groups[i].members.contains(m))
                && (other.members.len() < groups[i].members.len() || j < i)
        })
    };
    let keep: Vec<bool> = (0..groups.len()).map(|i| !implied(i)).collect();
    // Applicability of a merged contact: the best of those merged into it.
    let mut appl = scratch.applicability.clone();
    for i in 0..n {
        if canon[i] != i {
            appl[canon[i]] = appl[canon[i]].max(scratch.applicability[i]);
        }
    }
    // Append the contacts the kept groups use, in order, and remap.
    let mut index = vec![usize::MAX; n];
    for (g, _) in groups.iter().zip(&keep).filter(|(_, k)| **k) {
        for &m in &g.members {
            index[m] = 0;
        }
    }
    for i in 0..n {
        if index[i] == 0 {
            index[i] = out.contacts.len();
            out.contacts.push(contacts[i]);
            out.applicability.push(appl[i]);
        }
    }
    for (mut g, k) in groups.drain(..).zip(keep) {
        if !k {
            continue;
        }
        for m in g.members.iter_mut().chain(g.candidates.iter_mut()) {
            *m = index[*m];
        }
        out.groups.push(g);
    }
    scratch.groups = groups;
}

/// The gap (m) of contact `c`'s feature pair with the bodies at `poses` (world pose of each body's
/// frame), for the pairs whose gap is a function of their features: vertex–face and face–vertex
/// (the vertex's distance to the face's plane), edge–edge (the signed distance of the two lines,
/// the normal's sign kept close to `c.normal`), a polytope vertex against a half-space, a sphere
/// against a half-space or a sphere. `None` for the others (sphere–polytope), for edges that
/// have become parallel, and for features that do not exist on the pieces.
pub fn feature_gap(model: &Model, poses: &[Pose], c: &Contact) -> Option<f64> {
    use crate::geometry::Shape;
    let piece = |b: usize, p: usize| {
        let piece = model.bodies[b].pieces.get(p)?;
        Some((&piece.shape, poses[b].mul(&piece.pose)))
    };
    let (sa, pose_a) = piece(c.body_a, c.piece_a)?;
    let (sb, pose_b) = piece(c.body_b, c.piece_b)?;
    let vertex = |s: &Shape, pose: &Pose, v: u32| match s {
        Shape::Polytope(p) => p.vertices.get(v as usize).map(|x| pose.transform_point(*x)),
        _ => None,
    };
    // Outward unit normal and offset of face f in the world.
    let plane = |s: &Shape, pose: &Pose, f: u32| match s {
        Shape::Polytope(p) => p.faces.get(f as usize).map(|face| {
            let n = pose.transform_vector(face.normal);
            (n, face.offset + n.dot(pose.translation))
        }),
        Shape::HalfSpace { normal } => {
            let n = pose.transform_vector(*normal);
            Some((n, n.dot(pose.translation)))
        }
        Shape::Sphere { .. } => None,
    };
    match (c.feature_a, c.feature_b, sa, sb) {
        (Feature::Vertex(v), Feature::Face(f), _, _) => {
            let (n, o) = plane(sb, &pose_b, f)?;
            Some(n.dot(vertex(sa, &pose_a, v)?) - o)
        }
        (Feature::Face(f), Feature::Vertex(v), _, _) => {
            let (n, o) = plane(sa, &pose_a, f)?;
            Some(n.dot(vertex(sb, &pose_b, v)?) - o)
        }
        (Feature::Surface, Feature::Vertex(v), Shape::HalfSpace { .. }, _) => {
            let (n, o) = plane(sa, &pose_a, 0)?;
            Some(n.dot(vertex(sb, &pose_b, v)?) - o)
        }
        (Feature::Vertex(v), Feature::Surface, _, Shape::HalfSpace { .. }) => {
            let (n, o) = plane(sb, &pose_b, 0)?;
            Some(n.dot(vertex(sa, &pose_a, v)?) - o)
        }
        (Feature::Edge(ea), Feature::Edge(eb), Shape::Polytope(p), Shape::Polytope(q)) => {
            let ends = |poly: &Polytope, pose: &Pose, e: u32| {
                poly.edges.get(e as usize).map(|edge| {
                    edge.vertices
                        .map(|v| pose.transform_point(poly.vertices[v as usize]))
                })
            };
            let [a0, a1] = ends(p, &pose_a, ea)?;
            let [b0, b1] = ends(q, &pose_b, eb)?;
            let cross = (a1 - a0).cross(b1 - b0);
            if cross.length() <= 1e-9 * (a1 - a0).length() * (b1 - b0).length() {
                return None;
            }
            let mut n = cross.normalize();
            if n.dot(c.normal) < 0.0 {
                n = -n;
            }
            Some(n.dot(b0 - a0))
        }
        (Feature::Surface, Feature::Surface, Shape::HalfSpace { .. }, Shape::Sphere { radius }) => {
            let (n, o) = plane(sa, &pose_a, 0)?;
            Some(n.dot(pose_b.translation) - o - radius)
        }
        (Feature::Surface, Feature::Surface, Shape::Sphere { radius }, Shape::HalfSpace { .. }) => {
            let (n, o) = plane(sb, &pose_b, 0)?;
            Some(n.dot(pose_a.translation) - o - radius)
        }
        (
            Feature::Surface,
            Feature::Surface,
            Shape::Sphere { radius: ra },
            Shape::Sphere { radius: rb },
        ) => Some(pose_a.translation.distance(pose_b.translation) - ra - rb),
        _ => None,
    }
}

/// Gap (m) and normal of the release member `c` of the edge group of A's edge `edge_a` and B's
/// edge `edge_b`, at the body `poses`, by the formula of detection: with n ∝ e_a × e_b, a
/// release of A's endpoint v against B's edge is ρ = m·(v − b₀), m = n × e_b normalized and
/// turned towards A's edge from v, normal −m; a release of B's endpoint w against A's edge is
/// ρ = m·(w − a₀), m = n × e_a turned towards B's edge from w, normal m. None for other
/// contacts, parallel edges or indices the pieces do not have.
pub fn release_gap(
    model: &Model,
    poses: &[Pose],
    c: &Contact,
    edge_a: u32,
    edge_b: u32,
) -> Option<(f64, DVec3)> {
    use crate::geometry::Shape;
    let piece = |b: usize, p: usize| {
        let piece = model.bodies[b].pieces.get(p)?;
        match &piece.shape {
            Shape::Polytope(poly) => Some((poly.as_ref(), poses[b].mul(&piece.pose))),
            _ => None,
        }
    };
    let (pa, xa) = piece(c.body_a, c.piece_a)?;
    let (pb, xb) = piece(c.body_b, c.piece_b)?;
    let ends = |poly: &Polytope, pose: &Pose, e: u32| {
        let edge = poly.edges.get(e as usize)?;
        Some((
            edge.vertices,
            edge.vertices
                .map(|v| pose.transform_point(poly.vertices[v as usize])),
        ))
    };
    let (va, [a0, a1]) = ends(pa, &xa, edge_a)?;
    let (vb, [b0, b1]) = ends(pb, &xb, edge_b)?;
    let n = (a1 - a0).cross(b1 - b0);
    // m ⊥ n and ⊥ `along`, turned towards `inward`.
    let beyond = |along: DVec3, inward: DVec3| {
        let m = n.cross(along).try_normalize()?;
        Some(if m.dot(inward) >= 0.0 { m } else { -m })
    };
    match (c.feature_a, c.feature_b) {
        (Feature::Vertex(v), Feature::Edge(e)) if e == edge_b => {
            let (pv, other) = match v {
                _ if v == va[0] => (a0, a1),
                _ if v == va[1] => (a1, a0),
                _ => return None,
            };
            let m = beyond(b1 - b0, other - pv)?;
            Some((m.dot(pv - b0), -m))
        }
        (Feature::Edge(e), Feature::Vertex(w)) if e == edge_a => {
            let (pw, other) = match w {
                _ if w == vb[0] => (b0, b1),
                _ if w == vb[1] => (b1, b0),
                _ => return None,
            };
            let m = beyond(a1 - a0, other - pw)?;
            Some((m.dot(pw - a0), m))
        }
        _ => None,
    }
}

/// For each piece of `body` and each of its faces: is the face covered by a face of another
/// piece of the same body (opposite normals within `tol` = 1e-9, same plane within 1e-9 of the
/// pieces' size, every corner inside the other face's polygon)? Such a face is glued to the other
/// piece — the wall of a container standing on its floor — and is not part of the body's
/// boundary: a vertex on the floor is not "outside the wall" through the wall's bottom face.
/// Non-polytope pieces get no entries.
pub fn covered_faces(body: &crate::dynamics::Body) -> Vec<Vec<bool>> {
    use crate::geometry::Shape;
    let placed: Vec<Option<World>> = body
        .pieces
        .iter()
        .map(|piece| match &piece.shape {
            Shape::Polytope(p) => {
                let mut w = World::default();
                w.place(p, &piece.pose, &Motion::REST, &[]);
                Some(w)
            }
            _ => None,
        })
        .collect();
    let polys: Vec<Option<&Polytope>> = body
        .pieces
        .iter()
        .map(|piece| match &piece.shape {
            Shape::Polytope(p) => Some(p.as_ref()),
            _ => None,
        })
        .collect();
    let mut out = Vec::with_capacity(body.pieces.len());
    for (i, (wi, pi)) in placed.iter().zip(&polys).enumerate() {
        let (Some(wi), Some(pi)) = (wi, pi) else {
            out.push(Vec::new());
            continue;
        };
        let mut flags = vec![false; pi.faces.len()];
        for (f, flag) in flags.iter_mut().enumerate() {
            *flag = placed.iter().zip(&polys).enumerate().any(|(j, (wj, pj))| {
                let (Some(wj), Some(pj), true) = (wj, pj, j != i) else {
                    return false;
                };
                let tol = 1e-9 * (pi.radius + pj.radius);
                (0..pj.faces.len()).any(|g| {
                    wi.normals[f].dot(wj.normals[g]) < -1.0 + 1e-9
                        && (wi.offsets[f] + wj.offsets[g]).abs() <= tol
                        && pi.faces[f].vertices.iter().all(|&v| {
                            let x = wi.vertices[v as usize];
                            let side = Side { p: pj, w: wj };
                            polygon_distance(side, g, x, 0.0) <= tol
                        })
                })
            });
        }
        out.push(flags);
    }
    out
}
