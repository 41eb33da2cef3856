//! Helpers shared by the integration tests: proptest configuration and strategies, hand-built
//! models, and brute-force geometric oracles that use nothing of the library but its types.
#![allow(dead_code)]

use proptest::prelude::*;
use proptest::test_runner::{Config as ProptestConfig, RngSeed};
use signorini::dynamics::{Body, BodyState, Integrator, Material, Model, Piece, Settings, State};
use signorini::geometry::{Pose, Shape};
use signorini::{DQuat, DVec3};

/// Machine epsilon of f64.
pub const EPS: f64 = f64::EPSILON;

// ---------------------------------------------------------------------------------------------
// bundled scenes

/// The bundled example scenes (`examples/*.toml`), sorted by name.
pub fn bundled_examples() -> Vec<std::path::PathBuf> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    files.sort();
    files
}

/// What a run of the 10-box stack (`examples/box_stack.toml`) did ([`resting_stack`]).
#[derive(Debug)]
pub struct RestingStack {
    pub steps: usize,
    /// Steps whose LCP went past the warm start (its solve made more than one attempt).
    pub missed: usize,
    /// Steps whose solve failed (continued under `on_failure = "continue"`).
    pub failed: usize,
    /// How far the top box moved (m).
    pub drift: f64,
}

/// The 10-box stack under `model` at step `h` (s) for `duration` (s).
pub fn resting_stack(model: &str, h: f64, duration: f64) -> RestingStack {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/box_stack.toml");
    let mut scene = signorini::scene::load(&path).unwrap_or_else(|e| panic!("{e}"));
    scene.model.settings.time_step = h;
    let mut sim =
        signorini::Simulation::new(scene, Some(model), &[]).unwrap_or_else(|e| panic!("{e}"));
    let top = sim.state().bodies.len() - 1;
    let start = sim.state().bodies[top].position;
    let (mut steps, mut missed, mut failed) = (0, 0, 0);
    sim.run_until(duration, |_, r| {
        steps += 1;
        if let Some(solve) = r.model_stats.solve.as_ref() {
            missed += usize::from(solve.attempts > 1);
            failed += usize::from(solve.failed);
        }
    })
    .unwrap_or_else(|e| panic!("{model} at h = {h}: {e}"));
    let drift = (sim.state().bodies[top].position - start).length();
    RestingStack {
        steps,
        missed,
        failed,
        drift,
    }
}

/// A box (0.3 × 0.2 × 0.1 m, 1000 kg/m³) falling at 3 m/s onto the edge (pedestal axis
/// [1, 0, 0]) or the corner ([1, 1, 0]) of a fixed box turned 45°, while turning at `spin` rad/s
/// about y and 3 rad/s about z, its own orientation 40° about `axis`; h = 2 ms, 0.2 s.
pub fn turning_box(pedestal: &str, spin: f64, axis: &str) -> signorini::scene::Scene {
    use signorini::scene::{build, parse_scene};
    let text = format!(
        r#"
[simulation]
time_step = 2e-3
duration = 0.2

[[body]]
name = "pedestal"
fixed = true
shape = {{ type = "box", size = [0.4, 0.4, 0.4] }}
position = [0.0, 0.0, -0.3]
orientation = {{ axis = [{pedestal}], angle_deg = 45.0 }}

[[body]]
name = "box"
density = 1000.0
shape = {{ type = "box", size = [0.3, 0.2, 0.1] }}
position = [0.02, 0.01, 0.3]
orientation = {{ axis = [{axis}], angle_deg = 40.0 }}
velocity = [0.0, 0.0, -3.0]
angular_velocity = [0.0, {spin}, 3.0]
"#
    );
    build(parse_scene(&text, "turning.toml").expect("parses")).expect("builds")
}

// ---------------------------------------------------------------------------------------------
// determinism

/// `run` on a rayon pool of `threads` threads (the determinism tests compare one with two).
pub fn on_threads<T: Send>(threads: usize, run: impl FnOnce() -> T + Send) -> T {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap()
        .install(run)
}

/// Two states are the same bit for bit, body by body.
pub fn assert_same_bodies(one: &State, two: &State) {
    for (i, (a, b)) in one.bodies.iter().zip(&two.bodies).enumerate() {
        assert_eq!(a.position.to_array(), b.position.to_array(), "body {i}");
        assert_eq!(a.velocity.to_array(), b.velocity.to_array(), "body {i}");
        assert_eq!(
            a.orientation.to_array(),
            b.orientation.to_array(),
            "body {i}"
        );
        assert_eq!(
            a.angular_velocity.to_array(),
            b.angular_velocity.to_array(),
            "body {i}"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// proptest

/// `cases` cases, no failure files written into the source tree, and a fixed seed so that the
/// suite is deterministic. PROPTEST_CASES and PROPTEST_RNG_SEED override both (for longer or
/// different campaigns).
pub fn proptest_config(cases: u32) -> ProptestConfig {
    let mut c = ProptestConfig {
        failure_persistence: None,
        ..ProptestConfig::default()
    };
    if std::env::var_os("PROPTEST_CASES").is_none() {
        c.cases = cases;
    }
    if std::env::var_os("PROPTEST_RNG_SEED").is_none() {
        c.rng_seed = RngSeed::Fixed(0x5167_0121_a11c_e5ed);
    }
    c
}

/// A point uniform in the cube [-1, 1]³.
pub fn unit_cube_point() -> impl Strategy<Value = DVec3> {
    (-1.0..1.0f64, -1.0..1.0f64, -1.0..1.0f64).prop_map(|(x, y, z)| DVec3::new(x, y, z))
}

/// A rotation uniform over SO(3): Shoemake's construction from three uniforms.
pub fn rotation() -> impl Strategy<Value = DQuat> {
    (0.0..1.0f64, 0.0..1.0f64, 0.0..1.0f64).prop_map(|(u1, u2, u3)| {
        let (s1, s2) = ((1.0 - u1).sqrt(), u1.sqrt());
        let (t2, t3) = (std::f64::consts::TAU * u2, std::f64::consts::TAU * u3);
        DQuat::from_xyzw(s1 * t2.sin(), s1 * t2.cos(), s2 * t3.sin(), s2 * t3.cos()).normalize()
    })
}

/// A unit vector uniform on the sphere (normalized Gaussian-free rejection: a point of the cube
/// kept when inside the unit ball and not too close to its centre).
pub fn unit_vector() -> impl Strategy<Value = DVec3> {
    unit_cube_point()
        .prop_filter("inside the unit ball", |v| {
            (1e-3..=1.0).contains(&v.length_squared())
        })
        .prop_map(|v| v.normalize())
}

/// A point cloud of `n` points uniform in [-1, 1]³.
pub fn random_cloud(n: std::ops::RangeInclusive<usize>) -> impl Strategy<Value = Vec<DVec3>> {
    proptest::collection::vec(unit_cube_point(), n)
}

// ---------------------------------------------------------------------------------------------
// Models

pub fn material() -> Material {
    Material {
        name: "test".into(),
        friction: 0.5,
        restitution: 0.0,
    }
}

pub fn settings(h: f64, integrator: Integrator, gravity: DVec3) -> Settings {
    Settings {
        time_step: h,
        duration: 1.0,
        gravity,
        integrator,
        activation_distance: 1e-3,
        max_speed: 1e6,
        face_preference: 0.0,
        adaptive: None,
    }
}

pub fn single_piece(shape: Shape) -> Vec<Piece> {
    vec![Piece {
        shape,
        pose: Pose::IDENTITY,
    }]
}

pub fn model(bodies: Vec<Body>, settings: Settings) -> Model {
    Model {
        bodies,
        materials: vec![material()],
        settings,
        forces: vec![],
    }
}

pub fn body_state(
    position: DVec3,
    orientation: DQuat,
    velocity: DVec3,
    angular_velocity: DVec3,
) -> BodyState {
    BodyState {
        position,
        orientation,
        velocity,
        angular_velocity,
    }
}

pub fn initial_state(bodies: Vec<BodyState>) -> State {
    State {
        time: 0.0,
        step: 0,
        bodies,
        external: Vec::new(),
    }
}

// ---------------------------------------------------------------------------------------------
// Brute-force geometry

/// Length of the diagonal of the axis-aligned box of `points`.
pub fn bounding_diagonal(points: &[DVec3]) -> f64 {
    let lo = points
        .iter()
        .fold(DVec3::splat(f64::INFINITY), |a, p| a.min(*p));
    let hi = points
        .iter()
        .fold(DVec3::splat(f64::NEG_INFINITY), |a, p| a.max(*p));
    (hi - lo).length()
}

/// Height of the tallest tetrahedron found greedily (farthest point, farthest from that line,
/// farthest from that plane), relative to the cloud size: 0 for flat clouds.
pub fn relative_thickness(points: &[DVec3]) -> f64 {
    let size = bounding_diagonal(points);
    if size == 0.0 {
        return 0.0;
    }
    let p0 = points[0];
    let p1 = *points
        .iter()
        .max_by(|a, b| a.distance(p0).total_cmp(&b.distance(p0)))
        .unwrap();
    let axis = (p1 - p0).normalize_or_zero();
    let off_line = |p: &DVec3| (*p - p0 - axis * (*p - p0).dot(axis)).length();
    let p2 = *points
        .iter()
        .max_by(|a, b| off_line(a).total_cmp(&off_line(b)))
        .unwrap();
    let normal = axis.cross(p2 - p0).normalize_or_zero();
    points
        .iter()
        .map(|p| (*p - p0).dot(normal).abs())
        .fold(0.0, f64::max)
        / size
}

/// A plane {x : normal·x = offset} with `normal` outward for a convex hull.
#[derive(Clone, Copy, Debug)]
pub struct Plane {
    pub normal: DVec3,
    pub offset: f64,
}

impl Plane {
    pub fn distance(&self, x: DVec3) -> f64 {
        self.normal.dot(x) - self.offset
    }
}

/// Brute-force convex hull facets: every plane through three of the points with all points on or
/// below it (within `tol`), oriented outward, with planes through the same points merged. For each
/// merged plane the best-conditioned triple (largest triangle) defines the normal.
pub fn brute_force_hull_planes(points: &[DVec3], tol: f64) -> Vec<Plane> {
    let n = points.len();
    let mut planes: Vec<(Plane, f64)> = Vec::new();
    for i in 0..n {
        for j in i + 1..n {
            for k in j + 1..n {
                let (a, b, c) = (points[i], points[j], points[k]);
                let cross = (b - a).cross(c - a);
                let area2 = cross.length();
                if area2 <= 1e-12 * bounding_diagonal(&[a, b, c]).powi(2) {
                    continue; // (nearly) collinear triple: no plane
                }
                let mut normal = cross / area2;
                let mut offset = normal.dot(a);
                let above = points
                    .iter()
                    .filter(|p| normal.dot(**p) - offset > tol)
                    .count();
                let below = points
                    .iter()
                    .filter(|p| normal.dot(**p) - offset < -tol)
                    .count();
                if above > 0 && below > 0 {
                    continue; // points on both sides: not a supporting plane
                }
                if above > 0 {
                    normal = -normal;
                    offset = -offset;
                }
                let plane = Plane { normal, offset };
                // Same plane as one already found: all three points lie on it, same orientation.
                let same = planes.iter().position(|(q, _)| {
                    q.normal.dot(normal) > 0.0
                        && [a, b, c].iter().all(|p| q.distance(*p).abs() <= tol)
                });
                match same {
                    Some(s) if planes[s].1 >= area2 => {}
                    Some(s) => planes[s] = (plane, area2),
                    None => planes.push((plane, area2)),
                }
            }
        }
    }
    planes.into_iter().map(|(p, _)| p).collect()
}

/// Distance from `p` to the segment [a, b].
pub fn point_segment_distance(p: DVec3, a: DVec3, b: DVec3) -> f64 {
    let ab = b - a;
    let l2 = ab.length_squared();
    if l2 == 0.0 {
        return p.distance(a);
    }
    let t = ((p - a).dot(ab) / l2).clamp(0.0, 1.0);
    p.distance(a + t * ab)
}

/// Distance from `p` to the (filled) triangle abc: the plane distance when the projection falls
/// inside (all three edge tests agree with the normal), else the nearest edge.
pub fn point_triangle_distance(p: DVec3, a: DVec3, b: DVec3, c: DVec3) -> f64 {
    let edges = point_segment_distance(p, a, b)
        .min(point_segment_distance(p, b, c))
        .min(point_segment_distance(p, c, a));
    let n = (b - a).cross(c - a);
    let n2 = n.length_squared();
    if n2 == 0.0 {
        return edges;
    }
    let inside = (b - a).cross(p - a).dot(n) >= 0.0
        && (c - b).cross(p - b).dot(n) >= 0.0
        && (a - c).cross(p - c).dot(n) >= 0.0;
    if inside {
        ((p - a).dot(n).abs() / n2.sqrt()).min(edges)
    } else {
        edges
    }
}

/// Distance between segments [a0, a1] and [b0, b1]: the interior critical point of
/// |a0 + s da − b0 − t db|² when it lies in [0, 1]², else the best of the four endpoint–segment
/// distances (the minimum of a convex function on a square is inside or on its boundary).
pub fn segment_segment_distance(a0: DVec3, a1: DVec3, b0: DVec3, b1: DVec3) -> f64 {
    let boundary = point_segment_distance(a0, b0, b1)
        .min(point_segment_distance(a1, b0, b1))
        .min(point_segment_distance(b0, a0, a1))
        .min(point_segment_distance(b1, a0, a1));
    let (da, db, r) = (a1 - a0, b1 - b0, a0 - b0);
    let (aa, bb, ab) = (da.dot(da), db.dot(db), da.dot(db));
    let det = aa * bb - ab * ab;
    if det <= 1e-14 * aa * bb {
        return boundary; // parallel: a boundary point attains the minimum
    }
    let (ra, rb) = (da.dot(r), db.dot(r));
    // ∂/∂s: aa s − ab t + ra = 0; ∂/∂t: −ab s + bb t − rb = 0.
    let s = (ab * rb - bb * ra) / det;
    let t = (aa * rb - ab * ra) / det;
    if (0.0..=1.0).contains(&s) && (0.0..=1.0).contains(&t) {
        (a0 + s * da).distance(b0 + t * db).min(boundary)
    } else {
        boundary
    }
}

/// Euclidean distance between the convex hulls of two point sets by brute force over features:
/// every point of one set against every triangle of the other (vertex–face, vertex–edge,
/// vertex–vertex) and every segment of one against every segment of the other (edge–edge).
/// All candidates are distances between subsets of the hulls, so none is below the true distance,
/// and the closest pair of features of two disjoint polytopes is among them.
pub fn hull_distance(a: &[DVec3], b: &[DVec3]) -> f64 {
    let mut best = f64::INFINITY;
    for (p, q) in [(a, b), (b, a)] {
        for x in p {
            for i in 0..q.len() {
                for j in i + 1..q.len() {
                    for k in j + 1..q.len() {
                        best = best.min(point_triangle_distance(*x, q[i], q[j], q[k]));
                    }
                }
            }
        }
    }
    for i in 0..a.len() {
        for j in i + 1..a.len() {
            for k in 0..b.len() {
                for l in k + 1..b.len() {
                    best = best.min(segment_segment_distance(a[i], a[j], b[k], b[l]));
                }
            }
        }
    }
    best
}

/// max over points of x·d.
pub fn support(points: &[DVec3], d: DVec3) -> f64 {
    points
        .iter()
        .map(|p| p.dot(d))
        .fold(f64::NEG_INFINITY, f64::max)
}

/// min over points of x·d.
pub fn lowest(points: &[DVec3], d: DVec3) -> f64 {
    points
        .iter()
        .map(|p| p.dot(d))
        .fold(f64::INFINITY, f64::min)
}

/// Every candidate separating axis of two polytopes given by point sets (the hull vertices are
/// among the points): the normal of every triangle of points of either set and the cross product
/// of every segment of A with every segment of B, both signs, no pruning. This is a superset of
/// the face normals of A and B and of the edge–edge cross products.
pub fn candidate_axes(a: &[DVec3], b: &[DVec3]) -> Vec<DVec3> {
    let mut axes = Vec::new();
    let mut push = |v: DVec3| {
        let l = v.length();
        if l > 0.0 {
            axes.push(v / l);
            axes.push(-v / l);
        }
    };
    for p in [a, b] {
        for i in 0..p.len() {
            for j in i + 1..p.len() {
                for k in j + 1..p.len() {
                    push((p[j] - p[i]).cross(p[k] - p[i]));
                }
            }
        }
    }
    for i in 0..a.len() {
        for j in i + 1..a.len() {
            for k in 0..b.len() {
                for l in k + 1..b.len() {
                    push((a[j] - a[i]).cross(b[l] - b[k]));
                }
            }
        }
    }
    axes
}

/// Separation of B from A along unit `d`: min_{b∈B} b·d − max_{a∈A} a·d.
pub fn separation(a: &[DVec3], b: &[DVec3], d: DVec3) -> f64 {
    lowest(b, d) - support(a, d)
}

/// Exact signed distance ψ of two convex hulls. ψ = max over unit d of the separation. When the
/// hulls overlap the maximum is attained at a face normal or an edge–edge cross product, all of
/// which are in `candidate_axes` (any other unit direction only gives a lower bound, so the extra
/// candidates do no harm); when they are disjoint ψ is the Euclidean distance.
pub fn signed_distance(a: &[DVec3], b: &[DVec3]) -> f64 {
    let sat = candidate_axes(a, b)
        .into_iter()
        .map(|d| separation(a, b, d))
        .fold(f64::NEG_INFINITY, f64::max);
    if sat <= 0.0 {
        sat
    } else {
        hull_distance(a, b)
    }
}

/// Signed distance from `x` to the hull given by its facet planes and points: inside, minus the
/// distance to the nearest facet plane (exact for convex polytopes); outside, the Euclidean
/// distance by brute force over triangles of the points.
pub fn point_hull_signed_distance(planes: &[Plane], points: &[DVec3], x: DVec3) -> f64 {
    let m = planes
        .iter()
        .map(|p| p.distance(x))
        .fold(f64::NEG_INFINITY, f64::max);
    if m <= 0.0 {
        return m;
    }
    let mut best = f64::INFINITY;
    for i in 0..points.len() {
        for j in i + 1..points.len() {
            for k in j + 1..points.len() {
                best = best.min(point_triangle_distance(x, points[i], points[j], points[k]));
            }
        }
    }
    best
}

/// The largest t in [0, t_max] with f(t) ≤ target, for f convex with f(0) ≤ target < f(t_max), by
/// bisection (the sublevel set of a convex function is an interval containing 0).
pub fn bisect_right(f: impl Fn(f64) -> f64, target: f64, t_max: f64, iterations: usize) -> f64 {
    let (mut lo, mut hi) = (0.0, t_max);
    for _ in 0..iterations {
        let mid = 0.5 * (lo + hi);
        if f(mid) <= target {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    lo
}

// ---------------------------------------------------------------------------------------------
// deformable oracles

/// Height of the centre of mass of a free lattice block (`deformable::add_box`, n_z ≥ 2 layers
/// of equal particles of mass `m`, cell length `cell` along z, Young's modulus `young`, cell
/// cross-section `area`) resting flat on the ground at static equilibrium under gravity `g`:
/// every column is a chain of n_z particles whose bottom one sits `sink` below its contact
/// radius; the connector between layers j and j + 1 (from the bottom) carries the weight of the
/// n_z − 1 − j layers above it and shortens by that over its stiffness E A/ℓ. The layers' rest
/// positions are symmetric about the centre, so the unloaded centre stands L_z/2 above the level
/// where the bottom particles touch; the centre of mass sinks by `sink` plus the mean of the
/// layers' accumulated shortenings. (Horizontal, shear and torsion connectors are unloaded in a
/// uniform vertical compression: the columns stay straight and the faces square.)
pub fn lattice_rest_height(
    size_z: f64,
    layers: usize,
    m: f64,
    young: f64,
    area: f64,
    g: f64,
    sink: f64,
) -> f64 {
    let cell = size_z / layers as f64;
    let k = young * area / cell;
    let mut shortening = 0.0;
    let mut total = 0.0;
    for j in 1..layers {
        shortening += (layers - j) as f64 * m * g / k;
        total += shortening;
    }
    size_z / 2.0 - sink - total / layers as f64
}
