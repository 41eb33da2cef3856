//! Narrow phase: contact points, normal, signed gap and features for each candidate pair.
//!
//! Polytope pairs use the separating-axis theorem over face normals and over the cross products
//! of edge pairs whose Gauss-map arcs intersect (the faces of the Minkowski difference), which
//! gives the exact penetration depth; separated pairs within the activation distance get their
//! exact distance from GJK. When a face realizes the gap, the most anti-parallel face of the other
//! polytope is clipped against it (Sutherland–Hodgman), so touching faces give several points
//! (a box flat on another box gets up to 8, its 4 corners on a plane).
use super::{near_features, Contact, PiecePair};
use crate::dynamics::{piece_pose, Model, State};
use crate::geometry::gjk::{self, PointSet, PosedPolytope, Proximity};
use crate::geometry::{Feature, PlacedPolytope, Polytope, Pose, Shape};
use glam::DVec3;

/// Relative tolerance (times the pair's size) for ties between separating axes.
const AXIS_TIE_REL: f64 = 1e-9;

/// Reusable narrow-phase memory: each polytope piece placed in the world once per detection
/// (however many pairs it is in), and the buffers of the SAT and clipping stages.
#[derive(Default, Debug, Clone)]
pub struct NarrowPhase {
    world: Vec<PlacedPolytope>,
    /// Each placed polytope's edges with their Gauss-map arcs (`world_arcs`), computed when it
    /// is placed: a piece in several pairs computes them once.
    arcs: Vec<Vec<ArcEdge>>,
    /// Detection in which `world[i]` was last placed.
    placed_in: Vec<u64>,
    detection: u64,
    first_piece: Vec<usize>,
    scratch: Scratch,
}

/// What the narrow phase reports of a pair.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Reach {
    /// Pairs whose gap is at most this (m) get contacts.
    pub activation: f64,
    /// Polytope pairs also get their near features (`near_features.rs`): every vertex, edge pair
    /// and edge crossing a face's boundary within the pair's reach (at most `activation`), not
    /// only the points of the axis that realizes the gap.
    pub near_features: bool,
}

impl Reach {
    /// The contacts of the axis that realizes each pair's gap, for gaps up to `activation` (m).
    pub fn axis(activation: f64) -> Reach {
        Reach {
            activation,
            near_features: false,
        }
    }
}

/// Relative motion over a step (m) below which a pair is still: it keeps the contacts it has and
/// gets no near features. A resting pile's round-off velocities (1e-8 m/s on the 64-box bin at
/// 1e-16 J) move its points by 1e-11 m a step.
const STILL: f64 = 1e-9;

/// How far the near features of a pair reach (`near_features.rs`): (distance, m; turn, rad), or
/// none for a still pair. The distance is twice what the pair can close over one step at the
/// present velocities (the factor 2 as the time-stepping models' activation distance),
/// 2 h (|v_B − v_A| + |ω_A| r_A + |ω_B| r_B + h |g|), r the bodies' bounding radii, at most
/// `activation`; the turn is 2 h |ω_B − ω_A|. A pair whose motion part, 2 h (|v_B − v_A| +
/// |ω_A| r_A + |ω_B| r_B), is below [`STILL`] gets none: a pile at rest keeps the axis's contacts
/// alone. (With the gravity term alone as its reach, 2 h² |g|, a resting pair found nothing new
/// but paid for the search: the 10-box stack's narrow phase took 80 µs a step instead of 22.)
fn near_reach(
    model: &Model,
    state: &State,
    (ba, bb): (usize, usize),
    activation: f64,
) -> Option<(f64, f64)> {
    let h = model.settings.time_step;
    let (sa, sb) = (&state.bodies[ba], &state.bodies[bb]);
    let radius = |b: usize| model.bodies[b].bounding_radius();
    let motion = (sb.velocity - sa.velocity).length()
        + sa.angular_velocity.length() * radius(ba)
        + sb.angular_velocity.length() * radius(bb);
    if 2.0 * h * motion < STILL {
        return None;
    }
    let closing = motion + h * model.settings.gravity.length();
    let turn = 2.0 * h * (sb.angular_velocity - sa.angular_velocity).length();
    Some(((2.0 * h * closing).min(activation), turn))
}

impl NarrowPhase {
    /// Contacts of every candidate pair whose gap is at most `reach.activation` (m), into `out`.
    pub fn detect(
        &mut self,
        model: &Model,
        state: &State,
        pairs: &[PiecePair],
        reach: Reach,
        out: &mut Vec<Contact>,
    ) {
        let activation = reach.activation;
        out.clear();
        self.detection += 1;
        self.first_piece.clear();
        let mut n = 0;
        for body in &model.bodies {
            self.first_piece.push(n);
            n += body.pieces.len();
        }
        self.world.resize_with(n, PlacedPolytope::default);
        self.arcs.resize_with(n, Vec::new);
        self.placed_in.resize(n, 0);
        for pair in pairs {
            let (ba, pa) = pair.a;
            let (bb, pb) = pair.b;
            let shape_a = &model.bodies[ba].pieces[pa].shape;
            let shape_b = &model.bodies[bb].pieces[pb].shape;
            let start = out.len();
            if let (Shape::Polytope(p), Shape::Polytope(q)) = (shape_a, shape_b) {
                let (ia, ib) = (self.first_piece[ba] + pa, self.first_piece[bb] + pb);
                for (i, body, piece, poly) in [(ia, ba, pa, p), (ib, bb, pb, q)] {
                    if self.placed_in[i] != self.detection {
                        self.world[i].place(poly, &piece_pose(model, state, body, piece));
                        world_arcs(poly, &self.world[i], &mut self.arcs[i]);
                        self.placed_in[i] = self.detection;
                    }
                }
                let a = Posed {
                    p,
                    w: &self.world[ia],
                    arcs: &self.arcs[ia],
                };
                let b = Posed {
                    p: q,
                    w: &self.world[ib],
                    arcs: &self.arcs[ib],
                };
                let bands = (activation, model.settings.face_preference);
                let near = reach
                    .near_features
                    .then(|| near_reach(model, state, (ba, bb), activation))
                    .flatten();
                polytope_polytope(a, b, &mut self.scratch, bands, near, out);
            } else {
                let (pose_a, pose_b) = (
                    piece_pose(model, state, ba, pa),
                    piece_pose(model, state, bb, pb),
                );
                pair_contacts(shape_a, &pose_a, shape_b, &pose_b, activation, out);
            }
            for c in &mut out[start..] {
                c.body_a = ba;
                c.piece_a = pa;
                c.body_b = bb;
                c.piece_b = pb;
            }
        }
    }
}

/// Contacts between two posed convex shapes, A → B, with body and piece indices left at 0.
pub fn pair_contacts(
    a: &Shape,
    pose_a: &Pose,
    b: &Shape,
    pose_b: &Pose,
    activation: f64,
    out: &mut Vec<Contact>,
) {
    pair_contacts_with(a, pose_a, b, pose_b, (activation, 0.0), out)
}

/// [`pair_contacts`] with a face preference (`Settings::face_preference`) for polytope pairs.
pub fn pair_contacts_with(
    a: &Shape,
    pose_a: &Pose,
    b: &Shape,
    pose_b: &Pose,
    (activation, face_preference): (f64, f64),
    out: &mut Vec<Contact>,
) {
    use Shape::*;
    let start = out.len();
    let flip = |out: &mut Vec<Contact>| {
        for c in &mut out[start..] {
            *c = c.flipped();
        }
    };
    match (a, b) {
        (Sphere { radius: ra }, Sphere { radius: rb }) => sphere_sphere(
            pose_a.translation,
            *ra,
            pose_b.translation,
            *rb,
            activation,
            out,
        ),
        (HalfSpace { normal }, Sphere { radius }) => plane_sphere(
            pose_a,
            *normal,
            pose_b.translation,
            *radius,
            activation,
            out,
        ),
        (Sphere { radius }, HalfSpace { normal }) => {
            plane_sphere(
                pose_b,
                *normal,
                pose_a.translation,
                *radius,
                activation,
                out,
            );
            flip(out)
        }
        (HalfSpace { normal }, Polytope(p)) => {
            plane_polytope(pose_a, *normal, p, pose_b, activation, out)
        }
        (Polytope(p), HalfSpace { normal }) => {
            plane_polytope(pose_b, *normal, p, pose_a, activation, out);
            flip(out)
        }
        (Polytope(p), Sphere { radius }) => {
            polytope_sphere(p, pose_a, pose_b.translation, *radius, activation, out)
        }
        (Sphere { radius }, Polytope(p)) => {
            polytope_sphere(p, pose_b, pose_a.translation, *radius, activation, out);
            flip(out)
        }
        (Polytope(p), Polytope(q)) => {
            let (mut wa, mut wb) = (PlacedPolytope::default(), PlacedPolytope::default());
            wa.place(p, pose_a);
            wb.place(q, pose_b);
            let (mut arcs_a, mut arcs_b) = (Vec::new(), Vec::new());
            world_arcs(p, &wa, &mut arcs_a);
            world_arcs(q, &wb, &mut arcs_b);
            let a = Posed {
                p,
                w: &wa,
                arcs: &arcs_a,
            };
            let b = Posed {
                p: q,
                w: &wb,
                arcs: &arcs_b,
            };
            let bands = (activation, face_preference);
            polytope_polytope(a, b, &mut Scratch::default(), bands, None, out)
        }
        (HalfSpace { .. }, HalfSpace { .. }) => {}
    }
}

/// A contact with the given geometry and features; bodies and pieces 0 (the caller sets them).
pub(crate) fn contact(
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

fn sphere_sphere(ca: DVec3, ra: f64, cb: DVec3, rb: f64, activation: f64, out: &mut Vec<Contact>) {
    let d = cb - ca;
    let dist = d.length();
    let gap = dist - ra - rb;
    if gap > activation {
        return;
    }
    // Concentric spheres have no preferred direction: pick +z.
    let n = if dist > 0.0 { d / dist } else { DVec3::Z };
    out.push(contact(
        ca + ra * n,
        cb - rb * n,
        n,
        gap,
        Feature::Surface,
        Feature::Surface,
    ));
}

/// Half-space {x : n·(x − o) ≤ 0} (n, o from the pose) against a sphere.
fn plane_sphere(
    pose: &Pose,
    normal: DVec3,
    c: DVec3,
    r: f64,
    activation: f64,
    out: &mut Vec<Contact>,
) {
    let n = pose.transform_vector(normal);
    let d = n.dot(c - pose.translation);
    let gap = d - r;
    if gap <= activation {
        out.push(contact(
            c - d * n,
            c - r * n,
            n,
            gap,
            Feature::Surface,
            Feature::Surface,
        ));
    }
}

/// Every vertex of the polytope within `activation` of the half-space's plane.
fn plane_polytope(
    pose: &Pose,
    normal: DVec3,
    p: &Polytope,
    pose_p: &Pose,
    activation: f64,
    out: &mut Vec<Contact>,
) {
    let n = pose.transform_vector(normal);
    let o = n.dot(pose.translation);
    for (i, v) in p.vertices.iter().enumerate() {
        let w = pose_p.transform_point(*v);
        let gap = n.dot(w) - o;
        if gap <= activation {
            out.push(contact(
                w - gap * n,
                w,
                n,
                gap,
                Feature::Surface,
                Feature::Vertex(i as u32),
            ));
        }
    }
}

/// Polytope A against a sphere B of centre `c` and radius `r`.
fn polytope_sphere(
    p: &Polytope,
    pose: &Pose,
    c: DVec3,
    r: f64,
    activation: f64,
    out: &mut Vec<Contact>,
) {
    let local = pose.inverse_transform_point(c);
    // Largest signed distance from the centre to a face plane: ≤ 0 means the centre is inside.
    let (face, s) = p
        .faces
        .iter()
        .enumerate()
        .map(|(f, face)| (f, face.normal.dot(local) - face.offset))
        .fold(
            (0, f64::NEG_INFINITY),
            |best, x| if x.1 > best.1 { x } else { best },
        );
    if s - r > activation {
        return;
    }
    let scale = p.radius.max(r);
    if s <= 0.0 {
        let n = pose.transform_vector(p.faces[face].normal);
        out.push(contact(
            c - s * n,
            c - r * n,
            n,
            s - r,
            Feature::Face(face as u32),
            Feature::Surface,
        ));
        return;
    }
    match gjk::distance(
        &PosedPolytope { polytope: p, pose },
        &PointSet(c),
        c - pose.translation,
        scale,
    ) {
        Proximity::Separated {
            distance, point_a, ..
        } => {
            let gap = distance - r;
            if gap <= activation {
                let n = (c - point_a).normalize();
                let feature = p.feature_at(pose.inverse_transform_point(point_a), 1e-7 * scale);
                out.push(contact(
                    point_a,
                    c - r * n,
                    n,
                    gap,
                    feature,
                    Feature::Surface,
                ));
            }
        }
        Proximity::Overlapping => {
            // The centre lies on the boundary: the face found above carries it.
            let n = pose.transform_vector(p.faces[face].normal);
            out.push(contact(
                c,
                c - r * n,
                n,
                -r,
                Feature::Face(face as u32),
                Feature::Surface,
            ));
        }
    }
}

/// A polytope with its world placement.
#[derive(Clone, Copy)]
struct Posed<'a> {
    p: &'a Polytope,
    w: &'a PlacedPolytope,
    /// `world_arcs` of `w`.
    arcs: &'a [ArcEdge],
}

impl std::ops::Deref for Posed<'_> {
    type Target = PlacedPolytope;
    fn deref(&self) -> &PlacedPolytope {
        self.w
    }
}

/// Buffers of the SAT edge query and of face clipping, reused from pair to pair.
#[derive(Default, Debug, Clone)]
struct Scratch {
    arcs_a: Vec<(usize, ArcEdge)>,
    arcs_b: Vec<(usize, ArcEdge)>,
    poly: Vec<ClipPoint>,
    next: Vec<ClipPoint>,
    /// The edges of each polytope within the near features' reach.
    near_edges: [Vec<usize>; 2],
}

/// An edge in world axes with the normals of its two faces (its Gauss-map arc).
#[derive(Clone, Copy, Debug, Default)]
struct ArcEdge {
    n0: DVec3,
    n1: DVec3,
    /// n1 × n0, normal of the arc's great circle.
    arc: DVec3,
    p0: DVec3,
    dir: DVec3,
}

impl PlacedPolytope {
    fn min_along(&self, dir: DVec3) -> f64 {
        self.vertices
            .iter()
            .map(|v| v.dot(dir))
            .fold(f64::INFINITY, f64::min)
    }

    /// Largest separation along a face normal of `self` from `other`: (separation, face).
    fn face_query(&self, other: &PlacedPolytope) -> (f64, usize) {
        let mut best = (f64::NEG_INFINITY, 0);
        for (f, n) in self.normals.iter().enumerate() {
            let sep = other.min_along(*n) - self.offsets[f];
            if sep > best.0 {
                best = (sep, f);
            }
        }
        best
    }
}

/// The edges of `p` placed as `w`, in `p`'s edge order: end point, direction and the world
/// normals of its two faces with their arc's normal n1 × n0, into `out`.
fn world_arcs(p: &Polytope, w: &PlacedPolytope, out: &mut Vec<ArcEdge>) {
    out.clear();
    out.extend(p.edges.iter().map(|e| {
        let p0 = w.vertices[e.vertices[0] as usize];
        let p1 = w.vertices[e.vertices[1] as usize];
        let (n0, n1) = (w.normals[e.faces[0] as usize], w.normals[e.faces[1] as usize]);
        ArcEdge {
            n0,
            n1,
            arc: n1.cross(n0),
            p0,
            dir: p1 - p0,
        }
    }));
}

/// Largest separation of B from A along the cross product of an edge of A and an edge of B,
/// over the edge pairs that form a face of the Minkowski difference (their Gauss-map arcs cross).
/// Returns (separation, axis A→B, edge of A, edge of B).
///
/// Only edges that come within `reach` (m) of the other polytope's bounding sphere are tried: the
/// pair of edges realizing the separation has witness points |sep| apart, so an edge farther than
/// the other's sphere radius plus |sep| cannot realize it. Callers pass reach ≥ |sep| (the face
/// separation bounds the penetration depth from above).
fn edge_query(
    a: Posed,
    b: Posed,
    reach: f64,
    scratch: &mut Scratch,
) -> Option<(f64, DVec3, usize, usize)> {
    let arcs = |w: Posed, sign: f64, other: Posed, out: &mut Vec<(usize, ArcEdge)>| {
        let (centre, limit) = (other.centroid, other.p.radius + reach);
        out.clear();
        out.extend(w.arcs.iter().enumerate().filter_map(|(i, e)| {
            if segment_beyond(centre, e.p0, e.dir, limit) {
                return None;
            }
            // (−n1) × (−n0) = n1 × n0 exactly: the arc's normal keeps its sign.
            let (n0, n1) = (sign * e.n0, sign * e.n1);
            Some((i, ArcEdge { n0, n1, ..*e }))
        }));
    };
    // Gauss map of −B: its arcs join −n_b0 and −n_b1.
    arcs(a, 1.0, b, &mut scratch.arcs_a);
    arcs(b, -1.0, a, &mut scratch.arcs_b);
    let (arcs_a, arcs_b) = (&scratch.arcs_a, &scratch.arcs_b);
    let mut best: Option<(f64, DVec3, usize, usize)> = None;
    for &(ea, ref ga) in arcs_a {
        for &(eb, ref gb) in arcs_b {
            // Arcs (a0, a1) and (b0, b1) cross iff b0, b1 lie on opposite sides of a's great
            // circle, a0, a1 on opposite sides of b's, and the crossing is not antipodal.
            let (cba, dba) = (gb.n0.dot(ga.arc), gb.n1.dot(ga.arc));
            if cba * dba >= 0.0 {
                continue;
            }
            let (adc, bdc) = (ga.n0.dot(gb.arc), ga.n1.dot(gb.arc));
            if adc * bdc >= 0.0 || cba * bdc <= 0.0 {
                continue;
            }
            let cross = ga.dir.cross(gb.dir);
            let len = cross.length();
            if len <= 1e-9 * (ga.dir.length() * gb.dir.length()) {
                continue; // parallel edges: the face axes cover them
            }
            let mut axis = cross / len;
            if axis.dot(ga.p0 - a.centroid) < 0.0 {
                axis = -axis;
            }
            let sep = axis.dot(gb.p0 - ga.p0);
            if best.is_none_or(|b| sep > b.0) {
                best = Some((sep, axis, ea, eb));
            }
        }
    }
    best
}

/// Is the segment from p0 along `along` farther than `limit` (m) from `centre`? Squared
/// distances, no root: the test runs on every edge of both polytopes of every touching pair.
fn segment_beyond(centre: DVec3, p0: DVec3, along: DVec3, limit: f64) -> bool {
    let to_centre = centre - p0;
    let length2 = along.length_squared();
    let t = if length2 > 0.0 {
        (to_centre.dot(along) / length2).clamp(0.0, 1.0)
    } else {
        0.0
    };
    (to_centre - t * along).length_squared() > limit * limit
}

/// The contacts of two polytopes within `activation` (m); `face_preference` as
/// `Settings::face_preference` (0: the exact axis). With `near_features = Some((distance,
/// turn))`, the pair's near features within `distance` (m) are added (`near_features.rs`; `turn`,
/// rad: how far B may turn relative to A before the contacts are detected again).
fn polytope_polytope(
    a: Posed,
    b: Posed,
    scratch: &mut Scratch,
    (activation, face_preference): (f64, f64),
    near_features: Option<(f64, f64)>,
    out: &mut Vec<Contact>,
) {
    let start = out.len();
    axis_contacts(a, b, scratch, (activation, face_preference), out);
    if let (Some(reach), true) = (near_features, out.len() > start) {
        let (a, b) = ((a.p, a.w), (b.p, b.w));
        let buffers = (start, &mut scratch.near_edges);
        near_features::add_near_features(a, b, reach, buffers, out);
    }
}

/// The contacts of the axis that realizes the gap of two polytopes within `activation` (m).
fn axis_contacts(
    a: Posed,
    b: Posed,
    scratch: &mut Scratch,
    (activation, face_preference): (f64, f64),
    out: &mut Vec<Contact>,
) {
    let (p, q) = (a.p, b.p);
    let (pose_p, pose_q) = (&a.pose, &b.pose);
    // Bounding spheres first.
    let (cp, cq) = (a.centroid, b.centroid);
    if cp.distance(cq) - p.radius - q.radius > activation {
        return;
    }
    let (sep_a, face_a) = a.face_query(b.w);
    if sep_a > activation {
        return;
    }
    let (sep_b, face_b) = b.face_query(a.w);
    if sep_b > activation {
        return;
    }
    // Separated along a face normal: GJK gives the exact gap and no edge axis is needed.
    let face_sep = sep_a.max(sep_b);
    let edge = if face_sep > 0.0 {
        None
    } else {
        edge_query(a, b, -face_sep + activation, scratch)
    };
    let sep_e = edge.map_or(f64::NEG_INFINITY, |e| e.0);
    let sat = sep_a.max(sep_b).max(sep_e);
    if sat > activation {
        return;
    }
    let scale = p.radius.max(q.radius);
    let tol = AXIS_TIE_REL * scale;
    // The gap: SAT is exact for penetration; a separated pair's distance comes from GJK.
    let mut closest = None;
    let gap = if sat <= 0.0 {
        sat
    } else {
        match gjk::distance(
            &PosedPolytope {
                polytope: p,
                pose: pose_p,
            },
            &PosedPolytope {
                polytope: q,
                pose: pose_q,
            },
            cq - cp,
            scale,
        ) {
            Proximity::Separated {
                distance,
                point_a,
                point_b,
            } => {
                closest = Some((point_a, point_b));
                distance
            }
            Proximity::Overlapping => sat,
        }
    };
    if gap > activation {
        return;
    }
    let start = out.len();
    // A face within the face preference of the gap is clipped (several points) rather than
    // an edge axis or GJK's closest points (one).
    let band = tol.max(face_preference * scale);
    let exact_face = sep_a.max(sep_b) >= gap - tol;
    if sep_a >= gap - tol || (sep_a >= gap - band && sep_a >= sep_b) {
        clip_faces(a, face_a, b, scratch, activation, out);
    } else if sep_b >= gap - band {
        clip_faces(b, face_b, a, scratch, activation, out);
        for c in &mut out[start..] {
            *c = c.flipped();
        }
    }
    // A face taken within the face preference may have clipped away the point that realizes the
    // gap (it lies past the face's edge): the exact axis's contact is then added.
    let lowest = out[start..].iter().map(|c| c.gap).fold(f64::INFINITY, f64::min);
    if out.len() > start && (exact_face || lowest <= gap + tol) {
        return;
    }
    let edge_axis = if exact_face {
        None
    } else {
        edge.filter(|_| sep_e >= gap - tol)
    };
    exact_contact(a, b, edge_axis, closest.map(|c| (c, gap)), out);
}

/// The one contact of the axis that realizes the gap: the crossing edges' closest points
/// (`edge`), else GJK's closest points (`closest`, with the gap), else none.
fn exact_contact(
    a: Posed,
    b: Posed,
    edge: Option<(f64, DVec3, usize, usize)>,
    closest: Option<((DVec3, DVec3), f64)>,
    out: &mut Vec<Contact>,
) {
    let (p, q) = (a.p, b.p);
    if let Some((_, axis, ea, eb)) = edge {
        let [a0, a1] = p.edges[ea].vertices.map(|v| a.vertices[v as usize]);
        let [b0, b1] = q.edges[eb].vertices.map(|v| b.vertices[v as usize]);
        let (pa, pb) = segment_closest_points(a0, a1, b0, b1);
        let (ga, gb) = (Feature::Edge(ea as u32), Feature::Edge(eb as u32));
        out.push(contact(pa, pb, axis, (pb - pa).dot(axis), ga, gb));
    } else if let Some(((pa, pb), gap)) = closest {
        // Separated with vertex–vertex, vertex–edge or skew closest features, or a face axis
        // that ties with the gap (within the tie band) but whose clip holds no point.
        let scale = p.radius.max(q.radius);
        let n = (pb - pa).normalize();
        let fa = p.feature_at(a.pose.inverse_transform_point(pa), 1e-7 * scale);
        let fb = q.feature_at(b.pose.inverse_transform_point(pb), 1e-7 * scale);
        out.push(contact(pa, pb, n, gap, fa, fb));
    }
}

/// A point of the clipped incident polygon with the features it lies on.
#[derive(Clone, Copy, Debug)]
struct ClipPoint {
    p: DVec3,
    on_ref: Feature,
    on_inc: Feature,
    /// Feature of the incident polytope carrying the segment from this point to the next.
    segment: Feature,
}

/// Contacts from reference face `rf` of A: the face of B most opposed to it is clipped against the
/// side planes of `rf`; each remaining point within `activation` of the face's plane is a contact
/// with normal = the face normal.
fn clip_faces(
    a: Posed,
    rf: usize,
    b: Posed,
    scratch: &mut Scratch,
    activation: f64,
    out: &mut Vec<Contact>,
) {
    let n = a.normals[rf];
    // The incident face is the most anti-parallel face among those at B's deepest vertex along
    // −n, so that the clipped polygon contains the point that realizes the gap (the most
    // anti-parallel face overall need not touch that vertex).
    let deepest = (0..b.vertices.len())
        .min_by(|&i, &j| {
            b.vertices[i]
                .dot(n)
                .total_cmp(&b.vertices[j].dot(n))
                .then(i.cmp(&j))
        })
        .expect("a polytope has vertices");
    let inc = b.p.vertex_faces[deepest]
        .iter()
        .map(|&f| f as usize)
        .min_by(|&i, &j| {
            b.normals[i]
                .dot(n)
                .total_cmp(&b.normals[j].dot(n))
                .then(i.cmp(&j))
        })
        .expect("a vertex is on faces");
    let inc_face = &b.p.faces[inc];
    let (poly, next) = (&mut scratch.poly, &mut scratch.next);
    poly.clear();
    poly.extend(
        inc_face
            .vertices
            .iter()
            .zip(&inc_face.edges)
            .map(|(&v, &e)| ClipPoint {
                p: b.vertices[v as usize],
                on_ref: Feature::Face(rf as u32),
                on_inc: Feature::Vertex(v),
                segment: Feature::Edge(e),
            }),
    );
    let ref_face = &a.p.faces[rf];
    let k = ref_face.vertices.len();
    for i in 0..k {
        let v0 = a.vertices[ref_face.vertices[i] as usize];
        let v1 = a.vertices[ref_face.vertices[(i + 1) % k] as usize];
        let side = (v1 - v0).cross(n);
        let edge = Feature::Edge(ref_face.edges[i]);
        next.clear();
        for j in 0..poly.len() {
            let (cur, nxt) = (poly[j], poly[(j + 1) % poly.len()]);
            let (dc, dn) = (side.dot(cur.p - v0), side.dot(nxt.p - v0));
            if dc <= 0.0 {
                next.push(cur);
            }
            if (dc <= 0.0) != (dn <= 0.0) {
                let t = dc / (dc - dn);
                let leaving = dc <= 0.0;
                next.push(ClipPoint {
                    p: cur.p + t * (nxt.p - cur.p),
                    on_ref: edge,
                    on_inc: cur.segment,
                    segment: if leaving {
                        Feature::Face(inc as u32)
                    } else {
                        cur.segment
                    },
                });
            }
        }
        std::mem::swap(poly, next);
        if poly.is_empty() {
            break;
        }
    }
    simplify_polygon(poly, 1e-9 * (a.p.radius + b.p.radius));
    for cp in poly.iter() {
        let gap = n.dot(cp.p) - a.offsets[rf];
        if gap <= activation {
            out.push(contact(cp.p - gap * n, cp.p, n, gap, cp.on_ref, cp.on_inc));
        }
    }
}

/// Drop points of a clipped polygon that coincide with their predecessor or lie on the segment
/// between their neighbours (within `tol`, m). Clipping a face by an equal or nearly parallel face
/// (stacked boxes turned by round-off) yields corners twice and points at arbitrary places along
/// nearly collinear edges; they add nothing to the support polygon but make the rows of
/// constraint-based models linearly dependent.
fn simplify_polygon(poly: &mut Vec<ClipPoint>, tol: f64) {
    loop {
        let n = poly.len();
        if n < 2 {
            return;
        }
        let redundant = (0..n).find(|&i| {
            let (prev, cur) = (poly[(i + n - 1) % n].p, poly[i].p);
            if cur.distance_squared(prev) <= tol * tol {
                return true;
            }
            if n < 3 {
                return false;
            }
            let next = poly[(i + 1) % n].p;
            let d = next - prev;
            let len = d.length();
            len > tol && (cur - prev).cross(d).length() <= tol * len && {
                // Between the neighbours, not beyond them.
                let t = (cur - prev).dot(d) / (len * len);
                (0.0..=1.0).contains(&t)
            }
        });
        match redundant {
            Some(i) => {
                poly.remove(i);
            }
            None => return,
        }
    }
}

/// Closest points between segments [a0, a1] and [b0, b1].
pub fn segment_closest_points(a0: DVec3, a1: DVec3, b0: DVec3, b1: DVec3) -> (DVec3, DVec3) {
    let (d1, d2, r) = (a1 - a0, b1 - b0, a0 - b0);
    let (aa, ee, f) = (d1.dot(d1), d2.dot(d2), d2.dot(r));
    let (c, bb) = (d1.dot(r), d1.dot(d2));
    let denom = aa * ee - bb * bb;
    let mut s = if denom > 1e-300 {
        ((bb * f - c * ee) / denom).clamp(0.0, 1.0)
    } else {
        0.0
    };
    let mut t = if ee > 0.0 { (bb * s + f) / ee } else { 0.0 };
    if t < 0.0 {
        t = 0.0;
        s = if aa > 0.0 {
            (-c / aa).clamp(0.0, 1.0)
        } else {
            0.0
        };
    } else if t > 1.0 {
        t = 1.0;
        s = if aa > 0.0 {
            ((bb - c) / aa).clamp(0.0, 1.0)
        } else {
            0.0
        };
    }
    (a0 + s * d1, b0 + t * d2)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn box_flat_on_half_space_gets_its_four_corners() {
        let ground = Shape::HalfSpace { normal: DVec3::Z };
        let cube = Shape::Polytope(Arc::new(Polytope::cuboid(DVec3::splat(0.5))));
        let mut out = Vec::new();
        pair_contacts(
            &ground,
            &Pose::IDENTITY,
            &cube,
            &Pose::new(DVec3::new(0.0, 0.0, 0.49), glam::DQuat::IDENTITY),
            1e-3,
            &mut out,
        );
        assert_eq!(out.len(), 4);
        assert!(out
            .iter()
            .all(|c| (c.gap + 0.01).abs() < 1e-12 && c.normal == DVec3::Z));
    }

    #[test]
    fn stacked_boxes_get_a_face_manifold() {
        let cube = Shape::Polytope(Arc::new(Polytope::cuboid(DVec3::splat(0.5))));
        let mut out = Vec::new();
        let top = Pose::new(
            DVec3::new(0.2, 0.1, 0.999),
            glam::DQuat::from_rotation_z(0.3),
        );
        pair_contacts(&cube, &Pose::IDENTITY, &cube, &top, 1e-3, &mut out);
        assert!(out.len() >= 4, "got {} points", out.len());
        for c in &out {
            assert!((c.gap + 1e-3).abs() < 1e-12);
            assert!((c.normal - DVec3::Z).length() < 1e-12);
            assert!(((c.point_b - c.point_a).dot(c.normal) - c.gap).abs() < 1e-12);
        }
    }
}
