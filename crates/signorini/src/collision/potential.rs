//! PEG's potential contacts (Williams, Lu & Trinkle 2016, "A geometrically exact contact model
//! for polytopes", §4–§5.2): for a pair of convex polytopes A and B closer than a distance δ,
//! every feature pair that could touch before the end of the step, grouped into the constraints
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
//! - **Vertex groups** (eq. 34 vertex–face, the I-constraints of eq. 36 vertex–edge and eq. 37
//!   vertex–vertex). For each vertex v of one polytope within δ of the other, the members are the
//!   vertex–face contacts with every face whose *polygon* is within δ of v (feasibility: v in the
//!   face's Voronoi region with |ψ| ≤ δ, or within δ of its boundary). One face when v is over a
//!   face, the two faces of an edge when v is near that edge, all faces of a vertex near a vertex.
//!   Since the other polytope is convex, v is outside it exactly when it is outside one of its
//!   face planes, and within δ the faces near v are the only ones v can reach in a step: the group
//!   says exactly "v does not enter the polytope", and never traps v at a convex corner.
//!   Candidates for the force (C_ι) are the applicable members (all members if none is).
//! - **Edge groups** (eq. 35 edge–edge, and the X-constraints of eqs 36 and 38). For each
//!   applicable, non-parallel edge pair whose lines' closest points lie on both segments (within
//!   δ of their ends) and whose segments are within δ: the edge–edge contact, plus, for each
//!   endpoint of either edge within δ of the crossing, a *release*: the vertex–face contact of that
//!   endpoint with the face of the other edge towards which the edge heads from the endpoint
//!   (the face f_k with (η_k − η_other)·u > 0, u the edge direction from the endpoint; this is the
//!   sign of the edge orientation of eq. 27). An endpoint outside that face's plane has left the
//!   crossing: any penetration of the other body's edge wedge by the edge then puts the edge's far
//!   end inside that body, which its own vertex group forbids. So the edge–edge gap must stay
//!   non-negative unless a release is non-negative. The edge–edge contact is the only candidate.
//!   A negative edge–edge gap is a contact only when the edges really pass through each other:
//!   the lines cross on both segments and the point midway between the two closest points lies
//!   in both polytopes (within |ψ| α for a pair of applicability −α < 0). Elsewhere (on an extension, near vertices where the other edge's faces
//!   end) the line distance measures nothing.
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
use super::Contact;
use crate::dynamics::{Model, State};
use crate::geometry::polytope::point_segment_distance;
use crate::geometry::{Feature, Polytope, Pose};
use glam::DVec3;

/// Thresholds of the potential-contact search.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PotentialParams {
    /// δ (m): feature pairs closer than this are potential contacts.
    pub distance: f64,
    /// ε_θ = sin θ (dimensionless): relaxation of applicability for a turn of θ within a step.
    pub applicability: f64,
    /// Edges with |ê_a × ê_b| below this (the sine of their angle) are parallel.
    pub parallel_sine: f64,
    /// Relative tolerance (of lengths, times r_A + r_B, and of unit normals) for merging equal
    /// contacts.
    pub merge_tolerance: f64,
}

impl PotentialParams {
    /// The defaults of `contact::peg` at distance δ (m): θ = 0.2 rad, parallel below 1e-3 rad,
    /// merge tolerance 1e-9.
    pub fn with_distance(distance: f64) -> Self {
        PotentialParams {
            distance,
            applicability: 0.2f64.sin(),
            parallel_sine: 1e-3,
            merge_tolerance: 1e-9,
        }
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
}

impl World {
    fn place(&mut self, p: &Polytope, pose: &Pose) {
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
/// piece_b)` in `pairs` at `state`, with the thresholds `params(body_a, body_b)`, appended to
/// `out`. Pairs whose pieces are not both polytopes are skipped.
pub fn detect(
    model: &Model,
    state: &State,
    pairs: &[(usize, usize, usize, usize)],
    params: impl Fn(usize, usize) -> PotentialParams,
    scratch: &mut Scratch,
    out: &mut PotentialSet,
) {
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
        let start = out.contacts.len();
        pair(p, &pose_a, q, &pose_b, &params(ba, bb), scratch, out);
        for c in &mut out.contacts[start..] {
            c.body_a = ba;
            c.piece_a = pa;
            c.body_b = bb;
            c.piece_b = pb;
        }
    }
}

/// Potential contacts and groups of polytope A at `pose_a` and B at `pose_b`, appended to `out`
/// (contacts with body and piece indices 0).
pub fn pair(
    a: &Polytope,
    pose_a: &Pose,
    b: &Polytope,
    pose_b: &Pose,
    params: &PotentialParams,
    scratch: &mut Scratch,
    out: &mut PotentialSet,
) {
    let d = params.distance;
    scratch.a.place(a, pose_a);
    scratch.b.place(b, pose_b);
    // Bounding spheres: nothing within δ.
    if scratch.a.centroid.distance(scratch.b.centroid) - a.radius - b.radius > d {
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

fn contact(
    point_a: DVec3,
    point_b: DVec3,
    normal: DVec3,
    gap: f64,
    feature_a: Feature,
    feature_b: Feature,
) -> Contact {
    Contact {
        body_a: 0,
        body_b: 0,
        piece_a: 0,
        piece_b: 0,
        point_a,
        point_b,
        normal,
        gap,
        feature_a,
        feature_b,
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

/// Is `p` in the polytope X, within `tol` (m) of its face planes?
fn inside(x: Side, p: DVec3, tol: f64) -> bool {
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

/// The vertex groups of X's vertices against Y's faces (`b_side`: X is B).
fn vertex_groups(x: Side, y: Side, b_side: bool, params: &PotentialParams, out: &mut Local) {
    let d = params.distance;
    let eps = params.applicability;
    for (v, &p) in x.w.vertices.iter().enumerate() {
        if p.distance(y.w.centroid) > y.p.radius + d {
            continue;
        }
        let first = out.contacts.len();
        for f in 0..y.p.faces.len() {
            let gap = y.w.normals[f].dot(p) - y.w.offsets[f];
            if gap.abs() > d || polygon_distance(y, f, p, gap) > d {
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

/// The face of edge `e` of X towards which a direction `u` heads: the face f_k of the edge with
/// (η_k − η_other)·u > 0 (ties: the edge's first face).
fn heading_face(x: Side, e: usize, u: DVec3) -> usize {
    let [f0, f1] = x.p.edges[e].faces.map(|f| f as usize);
    if (x.w.normals[f1] - x.w.normals[f0]).dot(u) > 0.0 {
        f1
    } else {
        f0
    }
}

/// The edge groups of A's and B's edges.
fn edge_groups(a: Side, b: Side, params: &PotentialParams, out: &mut Local) {
    let d = params.distance;
    let eps = params.applicability;
    for ea in 0..a.p.edges.len() {
        let (a0, a1, ta1, ta2) = edge_frame(a, ea);
        if point_segment_distance(b.w.centroid, a0, a1) > b.p.radius + d {
            continue;
        }
        let da = a1 - a0;
        let la = da.length();
        for eb in 0..b.p.edges.len() {
            let (b0, b1, tb1, tb2) = edge_frame(b, eb);
            let db = b1 - b0;
            let lb = db.length();
            let cross = da.cross(db);
            if cross.length() < params.parallel_sine * la * lb {
                continue;
            }
            let (sa, sb) = super::narrow::segment_closest_points(a0, a1, b0, b1);
            if sa.distance(sb) > d {
                continue;
            }
            // Closest points of the two lines (s on A's edge, t on B's, in [0, 1] on the
            // segments).
            let r = a0 - b0;
            let (aa, bb, ee) = (da.dot(da), da.dot(db), db.dot(db));
            let (c, f) = (da.dot(r), db.dot(r));
            let den = aa * ee - bb * bb;
            let s = (bb * f - c * ee) / den;
            let t = (aa * f - bb * c) / den;
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
            if gap.abs() > d {
                continue;
            }
            // A negative gap is a penetration only where the edges really pass through each
            // other: the lines cross on both segments and the point midway between them lies in
            // both polytopes. Otherwise (an extension, or near vertices where the faces of the
            // other edge end) the line distance measures nothing; an endpoint that goes round
            // the other edge and inside is its vertex group's business.
            if gap < 0.0 {
                let on_segments = (0.0..=1.0).contains(&s) && (0.0..=1.0).contains(&t);
                let mid = 0.5 * (pa + pb);
                // A pair whose applicability is −α < 0 has its midpoint up to |ψ| α outside the
                // face that makes it inapplicable.
                let tol = 1e-9 * (a.p.radius + b.p.radius) - gap * (-appl).max(0.0);
                if !on_segments || !inside(a, mid, tol) || !inside(b, mid, tol) {
                    continue;
                }
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
            for (near, v, u) in [
                (near_a0, edge_a.vertices[0], da),
                (near_a1, edge_a.vertices[1], -da),
            ] {
                if near {
                    let f = heading_face(b, eb, u);
                    let v = v as usize;
                    members.push(out.push(
                        vertex_face(b, v, a.w.vertices[v], f, false),
                        f64::NEG_INFINITY,
                    ));
                    released_a = true;
                }
            }
            for (near, v, u) in [
                (near_b0, edge_b.vertices[0], db),
                (near_b1, edge_b.vertices[1], -db),
            ] {
                if near {
                    let f = heading_face(a, ea, u);
                    let v = v as usize;
                    members.push(out.push(
                        vertex_face(a, v, b.w.vertices[v], f, true),
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
