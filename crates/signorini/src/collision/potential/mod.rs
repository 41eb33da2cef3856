//! PEG's potential contacts (Williams, Lu & Trinkle 2016, "A complementarity based contact model
//! for geometrically accurate treatment of polytopes in simulation", §4–§5.2): for a pair of
//! convex polytopes A and B, every feature pair that
//! could touch before the end of the step, grouped into the constraints
//! of the paper's configurations. Contact models choose which member of a group carries the
//! force (`contact::peg`); this module only does geometry.
//!
//! # Potential contacts (all [`Contact`](crate::collision::Contact)s: points, normal A → B, gap ψ, features)
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
//!   the lines cross on both segments, each closest point lies in the other polytope, and each
//!   end of an edge nearer the crossing than |ψ| lies outside the other polytope or on its
//!   boundary (within `merge_tolerance` × (r_A + r_B)); or when they slide into a crossing:
//!   strictly applicable (APPL ≥ 0), the crossing beyond an end now and on both segments after
//!   the horizon's motion (the group's releases hold until the crossing reaches the segments).
//!   A gap within `merge_tolerance` × (r_A + r_B) of 0 counts as touching. On an extension the
//!   line distance measures nothing, and an end that went round the other edge *inside* the
//!   other polytope is its vertex group's business. An end outside or on the boundary, with the
//!   crossing nearer it than |ψ|, is a vertex on the other's edge (eq. 36, vertex–edge): the
//!   vertex group holds the vertex, not the edges leaving it, which can turn in under the other
//!   edge while the vertex stays on a face; their edge groups, with the vertex's release, stand
//!   in for eq. 36's X-constraints of those edges (`bin_64.toml`, spawn seed 3: left out, one
//!   edge ended a step 1.5 mm under the other's).
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
//! Each contact's merge representative (the first nearly equal contact before it) is found as it
//! is generated, and an edge group whose edge–edge contact merges into a vertex group's only
//! member is not built at all (`implied`: the merge would drop it; the output is the same bit for
//! bit).
//!
//! # Files (the steps of the search)
//!
//! - `placed`: the two polytopes placed in the world with their [`Motion`] and covered faces
//!   (the sweep [p, p + T w] of §4.3), and the placements [`detect`] keeps between calls (a
//!   piece is placed again only when its pose or polytope changes).
//! - `pose`: what a pair's search computes from the placements alone (face gaps, polygon
//!   distances, applicabilities, edge pairs' normals and closest points), kept for the pair's
//!   next search at the same placements (PEG's passes of a step differ only in the velocities).
//! - `reuse`: a pair's last search taken again while its placement and thresholds stay within
//!   a tolerance and it sweeps nothing (a resting pile; [`Scratch::reuse_within`], PEG's
//!   `search_reuse`), its contacts carried with their bodies.
//! - `covered`: [`covered_faces`], the faces glued to another piece of the same body.
//! - `vertex`: vertex groups (eqs 34, 36 I, 37 I) with vertex–face applicability (eq. 30).
//! - `edge`: edge groups (eq. 35, the X-constraints of eqs 36 and 38) with edge–edge
//!   applicability (eq. 31).
//! - `releases`: the release pseudo-contacts of an edge group, and [`release_gap`].
//! - `implied`: edge groups a lone vertex contact implies, skipped where they are generated.
//! - `merge`: nearly equal candidates merged, implied groups dropped.
//! - `set`: what comes out, [`PotentialSet`] and its [`Group`]s (constraints of eqs 17–25).
//! - `gaps`: [`feature_gap`], a contact's gap re-evaluated at other poses.
//! - `detect`: the driver, [`detect`] over piece pairs and [`pair`] for one pair.
mod covered;
mod detect;
mod edge;
mod gaps;
mod implied;
mod merge;
mod placed;
mod pose;
mod releases;
mod reuse;
mod set;
mod vertex;

pub use covered::covered_faces;
pub use detect::{detect, pair, Scratch};
pub use gaps::feature_gap;
pub use placed::Motion;
pub use releases::release_gap;
pub use set::{Configuration, ConstraintKind, Group, GroupKey, PotentialSet};

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
