//! Time of each LCP solver on the contact problems the time-stepping models solve (criterion),
//! plus a table of (rows, status, iterations, residual, time) per problem and solver.
//!
//! Problems (built once, deterministically, before anything is timed):
//! - **frictionless**: the normal block W = G_n M⁻¹ G_nᵀ (symmetric PSD) with
//!   q = G_nᵀ ν_ℓ + ψ/h of the Stewart–Trinkle LCP (`contact::stewart_trinkle::assemble` with
//!   μ = 0);
//! - **frictional**: the full Stewart–Trinkle LCP with k = 4 friction directions (zero σ
//!   diagonal, so PGS is not applicable);
//!
//! from these sources:
//! - `pile`: `examples/pile.toml` after 1.5 s of its own (deepest-point) model; the bodies nearest
//!   one corner of the container, as many as give the row count closest to the target (`pile-all`:
//!   every contact);
//! - `stack`: `examples/box_stack.toml` after 0.5 s of `stewart-trinkle` (4-point manifolds);
//! - `wedge`: `examples/sphere_in_wedge.toml` after 0.5 s of `stewart-trinkle` (2 contacts);
//! - `wall`: a staggered brick wall resting on the ground, built here (seeded height jitter);
//! - `random`: synthetic, random boxes on a lattice with random contact points and normals
//!   (W from `delassus`), no coplanar manifolds.
//!
//! Contacts are those the `stewart-trinkle` model with default parameters puts in its problem;
//! every solver gets that model's default options and no warm start.
//!
//! Run: `cargo bench -p signorini --bench solvers` (table on stderr, then criterion).
//! `SIGNORINI_SOLVER_TABLE=only` prints the table and skips criterion; `=skip` skips the table.
//! A plain name filter (`cargo bench -p signorini --bench solvers -- pile-500`) applies to both.
use criterion::{Criterion, SamplingMode};
use signorini::collision::Contact;
use signorini::contact::stewart_trinkle::{assemble, Formulation};
use signorini::contact::{self, ContactModel};
use signorini::dynamics::forces::add_scheduled;
use signorini::dynamics::{Body, BodyState, Material, Model, Piece, Settings, State, Wrench};
use signorini::geometry::{Feature, Pose, Shape};
use signorini::pipeline::{self, step, Workspace};
use signorini::scene;
use signorini::solvers::{self, Options, Problem, Solve, Status};
use signorini::util::rng::Rng;
use signorini::{DQuat, DVec3};
use std::collections::HashMap;
use std::path::Path;
use std::time::{Duration, Instant};

/// Friction directions of the frictional problems.
const K: usize = 4;

/// Seed of the brick wall's jitter.
const WALL_SEED: u64 = 2024;

/// Seed of the synthetic random boxes.
const RANDOM_SEED: u64 = 7;

/// Fischer–Burmeister factors a dense n × n Jacobian by LU in every Newton iteration (≈2.4 s at
/// n = 2000 here). Above this many rows one solve takes more than 20 s (measured once on the
/// machine of docs/solvers.md: frictionless pile-all, 1097 rows, 500 iterations in 62 s, iteration
/// limit; frictionless random-2000, 11 iterations in 26 s, solved), so it is not run there.
const FB_MAX_ROWS: usize = 1000;

/// Criterion's 10 samples plus warm-up cost about 11 solves; slower (problem, solver) pairs are
/// only timed once, in the table.
const CRITERION_MAX_SECONDS: f64 = 5.0;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Family {
    Frictionless,
    Frictional,
}

impl Family {
    fn name(self) -> &'static str {
        match self {
            Family::Frictionless => "frictionless",
            Family::Frictional => "frictional",
        }
    }
}

/// One benchmark problem.
struct Case {
    family: Family,
    /// Stable name: source and nominal size, e.g. `pile-200`.
    name: String,
    problem: Problem,
    contacts: usize,
    /// Dynamic bodies touched by the contacts (rank W ≤ 6 × this).
    bodies: usize,
}

/// The options the time-stepping models use by default (`[contact]` defaults).
fn options(n: usize) -> Options {
    Options {
        tolerance: 1e-8,
        max_iterations: 500,
        max_pivots: 100 + 20 * n,
        relaxation: 1.0,
    }
}

/// The `stewart-trinkle` model with default parameters.
fn time_stepping() -> ContactModel {
    contact::build(contact::stewart_trinkle::NAME_STEWART_TRINKLE, &[])
        .expect("default stewart-trinkle builds")
}

/// A bundled scene after `seconds` of its own contact model (or `model`), from its initial state.
fn settled(file: &str, model: Option<&str>, seconds: f64) -> (Model, State) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples")
        .join(file);
    let scene = scene::load(&path).expect("bundled scene loads");
    let (mut cm, _) = scene.contact_model(model).expect("bundled model builds");
    let mut state = scene.initial.clone();
    let mut ws = Workspace::new();
    let steps = (seconds / scene.model.settings.time_step).round() as usize;
    for _ in 0..steps {
        step(&scene.model, &mut state, &mut ws, &mut cm).expect("bundled scene steps");
    }
    (scene.model, state)
}

/// The contacts the default `stewart-trinkle` model puts in its problem at `state`.
fn active_contacts(model: &Model, state: &State) -> Vec<Contact> {
    let cm = time_stepping();
    let distance = cm.activation_distance(model, state);
    let mut ws = Workspace::new();
    pipeline::contacts(model, state, &mut ws, &cm)
        .iter()
        .filter(|c| c.gap < distance)
        .copied()
        .collect()
}

/// Contacts ordered by the rank of the last of their dynamic bodies in order of distance from
/// `corner`, with that rank: a prefix of rank < p holds exactly the contacts among the p nearest
/// bodies (and fixed ones).
fn by_distance(
    model: &Model,
    state: &State,
    contacts: &[Contact],
    corner: DVec3,
) -> Vec<(usize, Contact)> {
    let mut order: Vec<usize> = (0..model.bodies.len())
        .filter(|&i| !model.bodies[i].fixed)
        .collect();
    order.sort_by(|&a, &b| {
        let da = state.bodies[a].position.distance(corner);
        let db = state.bodies[b].position.distance(corner);
        da.total_cmp(&db).then(a.cmp(&b))
    });
    let mut rank = vec![0; model.bodies.len()];
    for (r, &i) in order.iter().enumerate() {
        rank[i] = r;
    }
    let mut ranked: Vec<(usize, Contact)> = contacts
        .iter()
        .map(|c| {
            let r = [c.body_a, c.body_b]
                .iter()
                .filter(|&&b| !model.bodies[b].fixed)
                .map(|&b| rank[b])
                .max()
                .unwrap_or(0);
            (r, *c)
        })
        .collect();
    ranked.sort_by_key(|(r, _)| *r);
    ranked
}

/// The nonempty body prefix of `ranked` whose problem size is closest to `target` rows.
fn prefix(ranked: &[(usize, Contact)], rows_per_contact: usize, target: usize) -> Vec<Contact> {
    let mut best = (usize::MAX, 0);
    for end in 1..=ranked.len() {
        if end == ranked.len() || ranked[end].0 != ranked[end - 1].0 {
            best = best.min(((end * rows_per_contact).abs_diff(target), end));
        }
    }
    ranked[..best.1].iter().map(|(_, c)| *c).collect()
}

/// The Stewart–Trinkle LCP of `contacts` at `state` (k = [`K`]); frictionless: every material
/// with μ = 0, so only the normal rows remain.
fn case(family: Family, name: &str, model: &Model, state: &State, contacts: &[Contact]) -> Case {
    let mut model = model.clone();
    if family == Family::Frictionless {
        for m in &mut model.materials {
            m.friction = 0.0;
        }
    }
    let mut applied = vec![Wrench::default(); model.bodies.len()];
    add_scheduled(&model, state, state.time, &mut applied);
    let refs: Vec<&Contact> = contacts.iter().collect();
    let h = model.settings.time_step;
    let lcp = assemble(
        Formulation::StewartTrinkle,
        K,
        &model,
        state,
        &refs,
        h,
        &applied,
    );
    let mut bodies: Vec<usize> = contacts
        .iter()
        .flat_map(|c| [c.body_a, c.body_b])
        .filter(|&b| !model.bodies[b].fixed)
        .collect();
    bodies.sort_unstable();
    bodies.dedup();
    Case {
        family,
        name: name.to_string(),
        problem: lcp.problem,
        contacts: contacts.len(),
        bodies: bodies.len(),
    }
}

/// A staggered wall of 0.4 × 0.2 × 0.2 m, 2 kg bricks on a ground plane: `width` bricks in even
/// courses, `width − 1` in odd ones (offset by half a brick, each resting on two), 1 cm between
/// neighbours of a course, heights jittered by ±2 µm (seeded), at rest.
fn brick_wall(width: usize, courses: usize, seed: u64) -> (Model, State) {
    let size = DVec3::new(0.4, 0.2, 0.2);
    let pitch = size.x + 0.01;
    let material = Material {
        name: "brick".into(),
        friction: 0.5,
        restitution: 0.0,
    };
    let ground = Body::fixed(
        "ground",
        vec![Piece {
            shape: Shape::half_space(DVec3::Z).expect("valid normal"),
            pose: Pose::IDENTITY,
        }],
        0,
    );
    let mut bodies = vec![ground];
    let mut states = vec![BodyState {
        position: DVec3::ZERO,
        orientation: DQuat::IDENTITY,
        velocity: DVec3::ZERO,
        angular_velocity: DVec3::ZERO,
    }];
    let mut rng = Rng::new(seed);
    for course in 0..courses {
        let (count, offset) = if course % 2 == 0 {
            (width, 0.0)
        } else {
            (width - 1, pitch / 2.0)
        };
        for i in 0..count {
            let brick = Body::dynamic(
                &format!("brick{course}_{i}"),
                vec![Piece {
                    shape: Shape::cuboid(size).expect("valid box"),
                    pose: Pose::IDENTITY,
                }],
                Some(2.0),
                1.0,
                0,
            )
            .expect("valid brick");
            bodies.push(brick);
            let z = size.z * (course as f64 + 0.5) + rng.uniform(-2e-6, 2e-6);
            states.push(BodyState {
                position: DVec3::new(offset + pitch * i as f64, 0.0, z),
                orientation: DQuat::IDENTITY,
                velocity: DVec3::ZERO,
                angular_velocity: DVec3::ZERO,
            });
        }
    }
    let model = Model {
        bodies,
        materials: vec![material],
        settings: Settings::default(),
        forces: Vec::new(),
    };
    let state = State {
        time: 0.0,
        step: 0,
        bodies: states,
        external: Vec::new(),
    };
    (model, state)
}

/// A synthetic problem built like a real one: `n.0 × n.1 × n.2` random boxes (edges 0.08–0.2 m,
/// 500 kg/m³, random orientations and velocities) on a jittered 0.3 m lattice over a ground plane,
/// and `count` contacts between lattice neighbours (or a bottom box and the ground), each with a
/// random point near the pair's midpoint, a random normal within about 60° of the line between
/// the centres and a gap in [−1, 0.5] mm. Every normal has a positive component along the
/// centres' separation, so a uniform expansion separates all contacts: the frictionless LCP is
/// feasible, hence solvable. Unlike real manifolds, no two contacts are coplanar.
fn random_boxes(n: (usize, usize, usize), count: usize, seed: u64) -> (Model, State, Vec<Contact>) {
    let mut rng = Rng::new(seed);
    let ground = Body::fixed(
        "ground",
        vec![Piece {
            shape: Shape::half_space(DVec3::Z).expect("valid normal"),
            pose: Pose::IDENTITY,
        }],
        0,
    );
    let mut bodies = vec![ground];
    let mut states = vec![BodyState {
        position: DVec3::ZERO,
        orientation: DQuat::IDENTITY,
        velocity: DVec3::ZERO,
        angular_velocity: DVec3::ZERO,
    }];
    let index = |i: usize, j: usize, k: usize| 1 + i + n.0 * (j + n.1 * k);
    for k in 0..n.2 {
        for j in 0..n.1 {
            for i in 0..n.0 {
                let size = DVec3::new(
                    rng.uniform(0.08, 0.2),
                    rng.uniform(0.08, 0.2),
                    rng.uniform(0.08, 0.2),
                );
                let body = Body::dynamic(
                    &format!("box{i}_{j}_{k}"),
                    vec![Piece {
                        shape: Shape::cuboid(size).expect("valid box"),
                        pose: Pose::IDENTITY,
                    }],
                    None,
                    500.0,
                    0,
                )
                .expect("valid box");
                bodies.push(body);
                let jitter = DVec3::new(
                    rng.uniform(-0.02, 0.02),
                    rng.uniform(-0.02, 0.02),
                    rng.uniform(-0.02, 0.02),
                );
                states.push(BodyState {
                    position: DVec3::new(0.3 * i as f64, 0.3 * j as f64, 0.15 + 0.3 * k as f64)
                        + jitter,
                    orientation: rng.rotation(),
                    velocity: 0.1 * rng.unit_vector() * rng.next_f64(),
                    angular_velocity: 0.5 * rng.unit_vector() * rng.next_f64(),
                });
            }
        }
    }
    let mut contacts = Vec::with_capacity(count);
    while contacts.len() < count {
        let (i, j, k) = (rng.below(n.0), rng.below(n.1), rng.below(n.2));
        let b = index(i, j, k);
        let neighbour = match rng.below(6) {
            0 if i + 1 < n.0 => Some(index(i + 1, j, k)),
            1 if j + 1 < n.1 => Some(index(i, j + 1, k)),
            2 if k + 1 < n.2 => Some(index(i, j, k + 1)),
            3 if k == 0 => Some(0),
            4 if i > 0 => Some(index(i - 1, j, k)),
            5 if j > 0 => Some(index(i, j - 1, k)),
            _ => None,
        };
        let Some(a) = neighbour else { continue };
        // Body a below/behind: the axis from a to b.
        let (xa, xb) = if a == 0 {
            (
                DVec3::new(states[b].position.x, states[b].position.y, -0.15),
                states[b].position,
            )
        } else {
            (states[a].position, states[b].position)
        };
        let axis = (xb - xa).normalize();
        let mut normal = (axis + 0.6 * rng.unit_vector()).normalize();
        if normal.dot(axis) < 0.1 {
            normal = axis;
        }
        let mid = 0.5 * (xa + xb);
        let offset = 0.05 * rng.unit_vector();
        let point_a = mid + offset - offset.dot(normal) * normal;
        let gap = rng.uniform(-1e-3, 5e-4);
        contacts.push(Contact {
            body_a: a,
            body_b: b,
            piece_a: 0,
            piece_b: 0,
            point_a,
            point_b: point_a + gap * normal,
            normal,
            gap,
            feature_a: Feature::Surface,
            feature_b: Feature::Surface,
        });
    }
    let model = Model {
        bodies,
        materials: vec![Material {
            name: "synthetic".into(),
            friction: 0.5,
            restitution: 0.0,
        }],
        settings: Settings::default(),
        forces: Vec::new(),
    };
    let state = State {
        time: 0.0,
        step: 0,
        bodies: states,
        external: Vec::new(),
    };
    (model, state, contacts)
}

/// Every benchmark problem, smallest first within each family.
fn build_cases() -> Vec<Case> {
    let st = Some(contact::stewart_trinkle::NAME_STEWART_TRINKLE);
    let (pile, pile_state) = settled("pile.toml", None, 1.5);
    let pile_contacts = active_contacts(&pile, &pile_state);
    let corner = DVec3::new(-0.9, -0.9, 0.0);
    let ranked = by_distance(&pile, &pile_state, &pile_contacts, corner);
    let (stack, stack_state) = settled("box_stack.toml", st, 0.5);
    let stack_contacts = active_contacts(&stack, &stack_state);
    let (wedge, wedge_state) = settled("sphere_in_wedge.toml", st, 0.5);
    let wedge_contacts = active_contacts(&wedge, &wedge_state);
    let (mid_wall, mid_wall_state) = brick_wall(15, 7, WALL_SEED);
    let mid_wall_contacts = active_contacts(&mid_wall, &mid_wall_state);
    let (wall, wall_state) = brick_wall(25, 11, WALL_SEED);
    let wall_contacts = active_contacts(&wall, &wall_state);
    let (small_wall, small_wall_state) = brick_wall(9, 6, WALL_SEED);
    let small_wall_contacts = active_contacts(&small_wall, &small_wall_state);
    let (boxes, boxes_state, boxes_contacts) = random_boxes((8, 8, 5), 2000, RANDOM_SEED);

    let (fl, fr, r) = (Family::Frictionless, Family::Frictional, K + 2);
    let pile_part = |rows_per_contact, target| prefix(&ranked, rows_per_contact, target);
    vec![
        case(fl, "pile-10", &pile, &pile_state, &pile_part(1, 10)),
        case(fl, "stack-40", &stack, &stack_state, &stack_contacts),
        case(fl, "pile-200", &pile, &pile_state, &pile_part(1, 200)),
        case(fl, "pile-500", &pile, &pile_state, &pile_part(1, 500)),
        case(
            fl,
            "wall-700",
            &mid_wall,
            &mid_wall_state,
            &mid_wall_contacts,
        ),
        case(fl, "pile-all", &pile, &pile_state, &pile_contacts),
        case(fl, "wall-2000", &wall, &wall_state, &wall_contacts),
        case(fl, "random-2000", &boxes, &boxes_state, &boxes_contacts),
        case(fr, "wedge-12", &wedge, &wedge_state, &wedge_contacts),
        case(fr, "pile-50", &pile, &pile_state, &pile_part(r, 50)),
        case(fr, "stack-240", &stack, &stack_state, &stack_contacts),
        case(fr, "pile-500", &pile, &pile_state, &pile_part(r, 500)),
        case(fr, "pile-2000", &pile, &pile_state, &pile_part(r, 2000)),
        case(
            fr,
            "wall-2000",
            &small_wall,
            &small_wall_state,
            &small_wall_contacts,
        ),
    ]
}

fn id(case: &Case, solver: &str) -> String {
    format!("{}/{}/{}", case.family.name(), case.name, solver)
}

/// Why `solver` is not run on `case`, if it is not.
fn skipped(case: &Case, solver: &str) -> Option<&'static str> {
    (solver == "fischer-burmeister" && case.problem.len() > FB_MAX_ROWS)
        .then_some("over 20 s per solve above 1000 rows")
}

/// The positional filter of the bench's command line (criterion's FILTER), if any.
fn filter() -> Option<String> {
    const WITH_VALUE: &[&str] = &[
        "-c",
        "--color",
        "--colour",
        "-s",
        "--save-baseline",
        "-b",
        "--baseline",
        "--baseline-lenient",
        "--format",
        "--profile-time",
        "--load-baseline",
        "--sample-size",
        "--warm-up-time",
        "--measurement-time",
        "--nresamples",
        "--noise-threshold",
        "--confidence-level",
        "--significance-level",
        "--plotting-backend",
        "--output-format",
    ];
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        if WITH_VALUE.contains(&a.as_str()) {
            args.next();
        } else if !a.starts_with('-') {
            return Some(a);
        }
    }
    None
}

/// One (problem, solver) of the table.
struct Row {
    solve: Solve,
    /// Seconds of the first solve, and the mean over the table pass; `None` when the solver
    /// refused the problem (not applicable).
    seconds: Option<(f64, f64)>,
}

/// Solve once (and again until 0.2 s have passed, for a stable mean on small problems).
fn measure(case: &Case, solver: &dyn solvers::Solver) -> Row {
    let opts = options(case.problem.len());
    let t0 = Instant::now();
    let solve = solver.solve(&case.problem, None, &opts);
    let first = t0.elapsed();
    if matches!(solve.status, Status::NotApplicable(_)) {
        return Row {
            solve,
            seconds: None,
        };
    }
    let mut runs = 1;
    while t0.elapsed() < Duration::from_millis(200) {
        std::hint::black_box(solver.solve(&case.problem, None, &opts));
        runs += 1;
    }
    let mean = t0.elapsed().as_secs_f64() / runs as f64;
    Row {
        solve,
        seconds: Some((first.as_secs_f64(), mean)),
    }
}

fn time(s: f64) -> String {
    if s < 1e-3 {
        format!("{:.1} µs", s * 1e6)
    } else if s < 1.0 {
        format!("{:.2} ms", s * 1e3)
    } else {
        format!("{:.2} s", s)
    }
}

/// Print the markdown table of every (problem, solver) selected by `filter` to stderr; returns
/// the time of one solve of each (`None`: not applicable), keyed by benchmark id.
fn print_table(cases: &[Case], filter: Option<&str>) -> HashMap<String, Option<f64>> {
    let mut once = HashMap::new();
    eprintln!(
        "| family | problem | rows | contacts | 6 × bodies | solver | status | iterations | residual | time per solve | × lemke |"
    );
    eprintln!("| --- | --- | ---: | ---: | ---: | --- | --- | ---: | ---: | ---: | ---: |");
    for case in cases {
        let mut rows: Vec<(&'static str, Option<Row>)> = Vec::new();
        for solver in solvers::all() {
            let name = solver.name();
            if filter.is_some_and(|f| !id(case, name).contains(f)) {
                continue;
            }
            let row = skipped(case, name)
                .is_none()
                .then(|| measure(case, solver.as_ref()));
            if let Some(r) = &row {
                once.insert(id(case, name), r.seconds.map(|(first, _)| first));
            }
            rows.push((name, row));
        }
        let lemke = rows
            .iter()
            .find(|(n, _)| *n == "lemke")
            .and_then(|(_, r)| Some(r.as_ref()?.seconds?.1));
        for (name, row) in &rows {
            let head = format!(
                "| {} | {} | {} | {} | {} | {} |",
                case.family.name(),
                case.name,
                case.problem.len(),
                case.contacts,
                6 * case.bodies,
                name
            );
            match row {
                None => eprintln!(
                    "{head} skipped: {} | | | | |",
                    skipped(case, name).unwrap_or_default()
                ),
                Some(Row {
                    solve,
                    seconds: None,
                }) => eprintln!("{head} {} | — | — | — | |", short(&solve.status)),
                Some(Row {
                    solve,
                    seconds: Some((_, mean)),
                }) => eprintln!(
                    "{head} {} | {} | {:.1e} | {} | {} |",
                    short(&solve.status),
                    solve.stats.iterations,
                    solve.stats.residual,
                    time(*mean),
                    lemke.map_or(String::new(), |l| format!("{:.2}", mean / l)),
                ),
            }
        }
    }
    once
}

fn short(status: &Status) -> String {
    match status {
        Status::NotApplicable(_) => "not applicable".into(),
        s => s.to_string(),
    }
}

/// Criterion timing of every applicable, not skipped (problem, solver) selected by `filter`.
/// The sampling plan follows the time of one solve (from `once`, or a probe solve), so that slow
/// solves are timed 10 times and no more.
fn bench(
    c: &mut Criterion,
    cases: &[Case],
    filter: Option<&str>,
    once: &HashMap<String, Option<f64>>,
    listing: bool,
) {
    for case in cases {
        let opts = options(case.problem.len());
        let group_name = format!("{}/{}", case.family.name(), case.name);
        for solver in solvers::all() {
            let name = solver.name();
            let id = id(case, name);
            if skipped(case, name).is_some() || filter.is_some_and(|f| !id.contains(f)) {
                continue;
            }
            let seconds = once.get(&id).copied().unwrap_or_else(|| {
                if listing {
                    // Listing names only: PGS refuses the zero σ diagonal of friction LCPs.
                    let refused = name == "pgs" && case.family == Family::Frictional;
                    return (!refused).then_some(0.0);
                }
                let t0 = Instant::now();
                let probe = solver.solve(&case.problem, None, &opts);
                let applicable = !matches!(probe.status, Status::NotApplicable(_));
                applicable.then(|| t0.elapsed().as_secs_f64())
            });
            // Not timing a method that refuses the problem up front.
            let Some(seconds) = seconds else { continue };
            if seconds > CRITERION_MAX_SECONDS {
                eprintln!(
                    "{id}: not sampled by criterion (one solve took {seconds:.1} s; see the table)"
                );
                continue;
            }
            let mut group = c.benchmark_group(&group_name);
            group
                .sample_size(if seconds < 1e-3 { 20 } else { 10 })
                .warm_up_time(Duration::from_millis(300))
                .measurement_time(Duration::from_secs(1));
            if seconds > 0.05 {
                group.sampling_mode(SamplingMode::Flat);
            }
            group.bench_function(name, |b| {
                b.iter(|| solver.solve(std::hint::black_box(&case.problem), None, &opts))
            });
            group.finish();
        }
    }
}

fn main() {
    let mode = std::env::var("SIGNORINI_SOLVER_TABLE").unwrap_or_default();
    let args: Vec<String> = std::env::args().collect();
    let benching = args.iter().any(|a| a == "--bench");
    let listing = args.iter().any(|a| a == "--list");
    let filter = filter();
    let t0 = Instant::now();
    let cases = build_cases();
    eprintln!(
        "built {} problems in {:.1} s",
        cases.len(),
        t0.elapsed().as_secs_f64()
    );
    let mut once = HashMap::new();
    if mode == "only" || (benching && !listing && mode != "skip") {
        let t1 = Instant::now();
        once = print_table(&cases, filter.as_deref());
        eprintln!("table pass: {:.1} s", t1.elapsed().as_secs_f64());
    }
    if mode == "only" {
        return;
    }
    let mut c = Criterion::default().configure_from_args();
    bench(&mut c, &cases, filter.as_deref(), &once, listing);
    c.final_summary();
}
