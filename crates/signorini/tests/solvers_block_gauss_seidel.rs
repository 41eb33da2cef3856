//! Projected block Gauss–Seidel (`solvers::block_gauss_seidel`): single-contact friction LCPs
//! solved in one sweep, multi-contact Stewart–Trinkle LCPs built from random bodies and from the
//! box stack scene, agreement with PGS where every block is a single row, refusals, limits and
//! warm starts.
use nalgebra::{DMatrix, DVector, Matrix3, Vector3};
use signorini::collision::Contact;
use signorini::contact::stewart_trinkle::{assemble, Formulation};
use signorini::dynamics::Wrench;
use signorini::pipeline::{self, Workspace};
use signorini::scene;
use signorini::solvers::block_gauss_seidel::BlockGaussSeidel;
use signorini::solvers::lemke::Lemke;
use signorini::solvers::pgs::Pgs;
use signorini::solvers::{self, residual, Options, Problem, Solve, Solver, Status};
use std::path::PathBuf;
use std::time::Instant;

#[path = "common/lcp.rs"]
mod lcp;

fn problem(n: usize, m: &[f64], q: &[f64]) -> Problem {
    Problem::lcp(
        DMatrix::from_row_slice(n, n, m),
        DVector::from_column_slice(q),
    )
}

fn options(tolerance: f64) -> Options {
    Options {
        tolerance,
        max_iterations: 1000,
        ..Options::default()
    }
}

fn report(what: &str, s: &Solve) {
    eprintln!(
        "{what}: {} after {} iterations, residual {:.3e}",
        s.status, s.stats.iterations, s.stats.residual
    );
}

/// Asserts that z solves the LCP to within a residual-derived tolerance: with the scaled
/// residual ρ = ‖min(z, w)‖∞ / ‖q‖∞, every z_i and w_i is ≥ −ρ‖q‖∞ and min(z_i, w_i) is within
/// ρ‖q‖∞ of 0, so |z_i w_i| ≤ ρ‖q‖∞ · max(‖z‖∞, ‖w‖∞). The check allows twice that (round-off of
/// w = Mz + q in the check itself is ~1e-16 ‖M‖‖z‖, far below).
fn assert_solves(p: &Problem, s: &Solve) {
    let w = lcp::w_of(p, &s.z);
    let rho = residual(p, &s.z);
    assert_eq!(
        rho, s.stats.residual,
        "the reported residual is the library's"
    );
    let scale = p.q.amax().max(f64::MIN_POSITIVE);
    let tol = 2.0 * rho * scale * 1f64.max(s.z.amax()).max(w.amax());
    lcp::check_solution(p, &s.z, tol).unwrap_or_else(|e| panic!("{e} (tol {tol:e})"));
}

// ---------------------------------------------------------------------------------------------
// Friction LCPs from rigid bodies (W = G M⁻¹ Gᵀ computed here, nothing of the library's).

/// A rigid body: inverse mass, world inverse inertia, centre of mass.
struct Body {
    inv_mass: f64,
    inv_inertia: Matrix3<f64>,
    position: Vector3<f64>,
}

/// A contact between `a` (None: the fixed ground) and `b` at `point`, normal from a to b.
struct Point {
    a: Option<usize>,
    b: usize,
    point: Vector3<f64>,
    normal: Vector3<f64>,
    mu: f64,
    gap: f64,
}

fn random_unit(rng: &mut lcp::Rng) -> Vector3<f64> {
    loop {
        let v = Vector3::new(
            rng.uniform(-1.0, 1.0),
            rng.uniform(-1.0, 1.0),
            rng.uniform(-1.0, 1.0),
        );
        let l = v.norm();
        if (0.1..=1.0).contains(&l) {
            return v / l;
        }
    }
}

/// A random rotation matrix (normalized random quaternion).
fn random_rotation(rng: &mut lcp::Rng) -> Matrix3<f64> {
    let q = nalgebra::Quaternion::new(
        rng.uniform(-1.0, 1.0),
        rng.uniform(-1.0, 1.0),
        rng.uniform(-1.0, 1.0),
        rng.uniform(-1.0, 1.0),
    );
    nalgebra::UnitQuaternion::from_quaternion(q)
        .to_rotation_matrix()
        .into_inner()
}

/// `n` bodies of mass 0.5–5 kg with principal moments m·(0.01–0.1) m² about random axes, at
/// random places in [−1, 1]³.
fn random_bodies(rng: &mut lcp::Rng, n: usize) -> Vec<Body> {
    (0..n)
        .map(|_| {
            let mass = rng.uniform(0.5, 5.0);
            let moments = Vector3::from_fn(|_, _| mass * rng.uniform(0.01, 0.1));
            let r = random_rotation(rng);
            let inv = Matrix3::from_diagonal(&moments.map(|v| 1.0 / v));
            Body {
                inv_mass: 1.0 / mass,
                inv_inertia: r * inv * r.transpose(),
                position: Vector3::from_fn(|_, _| rng.uniform(-1.0, 1.0)),
            }
        })
        .collect()
}

/// `count` contacts: body b random, a the ground with probability `ground` (else another body),
/// the point 0.05–0.3 m from b's centre, a random normal, μ in [0.1, 0.9], gap in [0, 1 mm]
/// (ψ ≥ 0: ν⁺ = 0 is feasible, so the Stewart–Trinkle LCP has a solution).
fn random_points(rng: &mut lcp::Rng, bodies: &[Body], count: usize, ground: f64) -> Vec<Point> {
    (0..count)
        .map(|_| {
            let b = rng.index(0, bodies.len() - 1);
            let a = if bodies.len() == 1 || rng.unit() < ground {
                None
            } else {
                let mut a = rng.index(0, bodies.len() - 2);
                if a >= b {
                    a += 1;
                }
                Some(a)
            };
            Point {
                a,
                b,
                point: bodies[b].position + random_unit(rng) * rng.uniform(0.05, 0.3),
                normal: random_unit(rng),
                mu: rng.uniform(0.1, 0.9),
                gap: rng.uniform(0.0, 1e-3),
            }
        })
        .collect()
}

/// k unit tangent directions at equal angles around `n`.
fn tangents(n: &Vector3<f64>, k: usize) -> Vec<Vector3<f64>> {
    let helper = if n.x.abs() < 0.6 {
        Vector3::x()
    } else {
        Vector3::y()
    };
    let t1 = n.cross(&helper).normalize();
    let t2 = n.cross(&t1);
    (0..k)
        .map(|j| {
            let a = std::f64::consts::TAU * j as f64 / k as f64;
            t1 * a.cos() + t2 * a.sin()
        })
        .collect()
}

/// The Stewart–Trinkle LCP in z = (p_n, β, σ) of the module doc of `contact::stewart_trinkle`:
/// G's rows are the normals, then k tangent rows per contact; W = G M⁻¹ Gᵀ; q = G ν + (ψ/h, 0)
/// for the generalized velocity `nu` and step `h`; the σ rows are (μ at p_n, −1 at the tangents).
/// Returns the problem and G.
fn friction_lcp(
    bodies: &[Body],
    points: &[Point],
    k: usize,
    nu: &DVector<f64>,
    h: f64,
) -> (Problem, DMatrix<f64>) {
    let (nc, dof) = (points.len(), 6 * bodies.len());
    let nt = nc * k;
    let mut g = DMatrix::zeros(nc + nt, dof);
    let mut set_row = |row: usize, p: &Point, d: &Vector3<f64>| {
        for (body, sign) in [(p.a, -1.0), (Some(p.b), 1.0)] {
            if let Some(i) = body {
                let rxd = (p.point - bodies[i].position).cross(d);
                for c in 0..3 {
                    g[(row, 6 * i + c)] += sign * d[c];
                    g[(row, 6 * i + 3 + c)] += sign * rxd[c];
                }
            }
        }
    };
    for (c, p) in points.iter().enumerate() {
        set_row(c, p, &p.normal);
        for (j, d) in tangents(&p.normal, k).iter().enumerate() {
            set_row(nc + c * k + j, p, d);
        }
    }
    let mut minv = DMatrix::zeros(dof, dof);
    for (i, b) in bodies.iter().enumerate() {
        for c in 0..3 {
            minv[(6 * i + c, 6 * i + c)] = b.inv_mass;
            for e in 0..3 {
                minv[(6 * i + 3 + c, 6 * i + 3 + e)] = b.inv_inertia[(c, e)];
            }
        }
    }
    let w = &g * &minv * g.transpose();
    let n = nc + nt + nc;
    let mut m = DMatrix::zeros(n, n);
    m.view_mut((0, 0), (nc + nt, nc + nt)).copy_from(&w);
    let mut q = DVector::zeros(n);
    q.rows_mut(0, nc + nt).copy_from(&(&g * nu));
    for (c, p) in points.iter().enumerate() {
        q[c] += p.gap / h;
        let sigma = nc + nt + c;
        m[(sigma, c)] = p.mu;
        for j in 0..k {
            m[(nc + c * k + j, sigma)] = 1.0;
            m[(sigma, nc + c * k + j)] = -1.0;
        }
    }
    (Problem::lcp(m, q), g)
}

/// A random multi-contact friction LCP: (problem, G).
fn random_friction_lcp(
    seed: u64,
    bodies: usize,
    contacts: usize,
    k: usize,
) -> (Problem, DMatrix<f64>) {
    let mut rng = lcp::Rng::new(seed);
    let b = random_bodies(&mut rng, bodies);
    let pts = random_points(&mut rng, &b, contacts, 0.4);
    let nu = DVector::from_fn(6 * bodies, |_, _| rng.uniform(-1.0, 1.0));
    friction_lcp(&b, &pts, k, &nu, 1e-2)
}

// ---------------------------------------------------------------------------------------------
// Single contacts: one block, one sweep.

/// One contact, one friction direction: rows (normal, tangent, σ), W = [[2, 0.5], [0.5, 2]],
/// μ = 0.5; q pushes into the contact and hard along the tangent, so the contact slides.
fn one_direction_contact() -> Problem {
    let (a, b, c, mu) = (2.0, 0.5, 2.0, 0.5);
    problem(
        3,
        &[a, b, 0.0, b, c, 1.0, mu, -1.0, 0.0],
        &[-1.0, -3.0, 0.0],
    )
}

#[test]
fn single_contact_one_direction_is_one_block_solved_in_one_sweep() {
    let p = one_direction_contact();
    let s = BlockGaussSeidel.solve(&p, None, &options(1e-12));
    report("one direction", &s);
    assert_eq!(s.status, Status::Solved);
    // Row 2 (σ) has the zero diagonal and references columns 0 and 1: the whole problem is one
    // block, solved exactly by the first sweep.
    assert_eq!(s.stats.iterations, 1);
    // Exactly solved: round-off of a 3 × 3 pivoting, well below 1e-14 on data of size ~3.
    assert!(s.stats.residual < 1e-14, "{}", s.stats.residual);
    let l = Lemke.solve(&p, None, &options(1e-12));
    assert_eq!(l.status, Status::Solved);
    // W is positive definite, so the solution is unique (the oracle finds one): both must be it.
    let oracle = lcp::enumerate(&p, 1e-12);
    assert_eq!(oracle.len(), 1, "{oracle:?}");
    assert!((&s.z - &l.z).amax() < 1e-13, "BGS {} Lemke {}", s.z, l.z);
    assert!(
        (&s.z - &oracle[0].z).amax() < 1e-12,
        "{} vs {}",
        s.z,
        oracle[0].z
    );
    // Sliding: σ > 0 and the friction impulse saturates the cone, β = μ p_n.
    assert!(
        s.z[2] > 0.0 && (s.z[1] - 0.5 * s.z[0]).abs() < 1e-14,
        "{}",
        s.z
    );
}

/// The normal of [`single_contact_k4`].
fn k4_normal() -> Vector3<f64> {
    Vector3::new(0.1, 0.2, 1.0).normalize()
}

/// One contact of a free body with the ground, k = 4 (W is 5 × 5 of rank 3), friction μ, with
/// the body's velocity ν: (problem, G).
fn single_contact_k4(seed: u64, mu: f64, nu: [f64; 6]) -> (Problem, DMatrix<f64>) {
    let mut rng = lcp::Rng::new(seed);
    let bodies = random_bodies(&mut rng, 1);
    let pts = vec![Point {
        a: None,
        b: 0,
        point: bodies[0].position + Vector3::new(0.1, -0.05, -0.2),
        normal: k4_normal(),
        mu,
        gap: 0.0,
    }];
    let nu = DVector::from_column_slice(&nu);
    friction_lcp(&bodies, &pts, 4, &nu, 1e-2)
}

#[test]
fn single_contact_k4_is_solved_in_one_sweep_and_matches_lemke() {
    // Moving straight into the ground with μ = 2 (sticks: the friction needed to stop the spin
    // the normal impulse causes is inside the cone), sideways and into it with μ = 0.4 (slides),
    // and away from it while sliding sideways (separates: no impulse).
    let n = k4_normal();
    let cases = [
        ("sticking", 2.0, [-n.x, -n.y, -n.z, 0.0, 0.0, 0.0]),
        ("sliding", 0.4, [3.0, -2.0, -0.5, 0.3, 0.1, -0.2]),
        ("separating", 0.4, [0.5, 0.0, 1.0, 0.0, 0.0, 0.0]),
    ];
    for (seed, (what, mu, nu)) in cases.into_iter().enumerate() {
        let (p, g) = single_contact_k4(seed as u64, mu, nu);
        assert_eq!(p.len(), 6);
        let s = BlockGaussSeidel.solve(&p, None, &options(1e-12));
        report(what, &s);
        assert_eq!(s.status, Status::Solved, "{what}");
        assert_eq!(s.stats.iterations, 1, "{what}: one block, one sweep");
        assert_solves(&p, &s);
        let l = Lemke.solve(&p, None, &options(1e-12));
        assert_eq!(l.status, Status::Solved, "{what}");
        // β is not unique (W has rank 3 for 5 impulse rows: opposite directions cancel), but
        // the impulse Gᵀ(p_n, β) on the body is: the contact point's inverse mass (3 × 3) is
        // positive definite. Both solve to residual ≤ 1e-12 on data of size ~1 with W ~ 1 and
        // impulses ~ 1, so the impulses agree to ~1e-11.
        let impulse = |z: &DVector<f64>| g.transpose() * z.rows(0, 5);
        let (bi, li) = (impulse(&s.z), impulse(&l.z));
        assert!(
            (&bi - &li).amax() <= 1e-10 * (1.0 + li.amax()),
            "{what}: impulse BGS {bi} vs Lemke {li}"
        );
        match what {
            // No impulse (β at round-off of 0); σ is the sliding speed, which the body has.
            "separating" => assert!(
                s.z[0] == 0.0 && s.z.rows(1, 4).amax() < 1e-15 && s.z[5] > 0.0,
                "{}",
                s.z
            ),
            "sliding" => assert!(s.z[5] > 0.0, "σ > 0 when sliding: {}", s.z),
            _ => assert!(
                s.z[0] > 0.0 && s.z[5] == 0.0 && s.z.rows(1, 4).amax() > 0.0,
                "sticking with friction: {}",
                s.z
            ),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Multi-contact friction LCPs.

/// Well-conditioned: few contacts per body (12 bodies, 10 contacts; the normal block is then
/// nonsingular and friction cones of different bodies interact weakly), k = 4. Every instance
/// reaches 1e-6 and its answer solves the LCP.
#[test]
fn multi_contact_random_bodies_reach_1e6() {
    let mut worst = 0;
    for seed in 0..20 {
        let (p, _) = random_friction_lcp(seed, 12, 10, 4);
        assert_eq!(p.len(), 10 * 6);
        let s = BlockGaussSeidel.solve(&p, None, &options(1e-6));
        report(&format!("seed {seed}, {} rows", p.len()), &s);
        assert_eq!(s.status, Status::Solved, "seed {seed}");
        assert_solves(&p, &s);
        worst = worst.max(s.stats.iterations);
    }
    eprintln!("12 bodies, 10 contacts: at most {worst} sweeps");
}

/// Denser coupling (8 bodies, 16 contacts, k = 4: 96 rows; W is rank-deficient, 80 impulse rows
/// acting on 48 dofs). Every answer that says Solved must solve the LCP. Measured: 19 of the 20
/// instances reach 1e-6 (1 to 642 sweeps); seed 110 does not: from the 10th sweep on the iterates
/// alternate between two points (period-2 cycle, residual 2.57e-2 after every even sweep), a
/// non-convergence of the non-symmetric Gauss–Seidel iteration itself (Lemke solves that
/// instance in 71 pivots). No convergence theorem covers these matrices (module doc), so the
/// assertion is on the measured share.
#[test]
fn multi_contact_rank_deficient_random_bodies() {
    let mut solved = 0;
    let mut sweeps = Vec::new();
    for seed in 100..120 {
        let (p, _) = random_friction_lcp(seed, 8, 16, 4);
        let s = BlockGaussSeidel.solve(&p, None, &options(1e-6));
        report(&format!("seed {seed}, {} rows", p.len()), &s);
        if s.status.is_solved() {
            assert_solves(&p, &s);
            solved += 1;
            sweeps.push(s.stats.iterations);
        } else {
            assert!(s.stats.residual > 1e-6, "{:?}", s.stats);
        }
    }
    eprintln!("8 bodies, 16 contacts: {solved}/20 solved, sweeps {sweeps:?}");
    assert!(solved >= 18, "{solved}/20");
}

/// The Stewart–Trinkle LCP (k = 4, h = 1e-3 s) of the box stack scene (`examples/box_stack.toml`,
/// 10 boxes on the ground, each face contact a 4-point manifold) at its initial state, with the
/// scene's friction (μ = 0.5) or none; and the number of contacts.
fn box_stack_lcp(friction: bool) -> (Problem, usize) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/box_stack.toml");
    let scene = scene::load(&path).unwrap_or_else(|e| panic!("{e}"));
    let (contact_model, _) = scene
        .contact_model(Some("stewart-trinkle"))
        .unwrap_or_else(|e| panic!("{e}"));
    let (mut model, state) = (scene.model.clone(), &scene.initial);
    if !friction {
        for m in &mut model.materials {
            m.friction = 0.0;
        }
    }
    let mut ws = Workspace::new();
    let contacts: Vec<Contact> =
        pipeline::contacts(&model, state, &mut ws, &contact_model).to_vec();
    let distance = contact_model.activation_distance(&model, state);
    let active: Vec<&Contact> = contacts.iter().filter(|c| c.gap < distance).collect();
    let zero = vec![Wrench::default(); model.bodies.len()];
    let lcp = assemble(
        Formulation::StewartTrinkle,
        4,
        &model,
        state,
        &active,
        1e-3,
        &zero,
    );
    (lcp.problem, active.len())
}

/// The box stack from rest. Every box falls by g h in the free motion, so only the ground
/// contacts see an approach (‖q‖∞ = g h) and the load of the boxes above has to travel down the
/// chain of contacts.
///
/// Without friction (40 rows, every block a single row: PGS) 1e-6 is reached in a few hundred
/// sweeps (measured: 536). With friction (240 rows, 40 blocks of 6) it is NOT reached within 1000
/// sweeps: the residual falls like PGS's for ~300 sweeps, to ~2e-3, then by a factor of only
/// ~0.9997 per sweep (measured: 9.9e-4 after 1000 sweeps, 1.0e-4 after 10 000). This is Gauss–Seidel itself, not the
/// complementarity: at the solution every contact sticks with no friction, and plain linear block
/// Gauss–Seidel on the sticking equations (normal and two tangent rows per contact, 3 × 3 blocks,
/// no projection) reproduces the same residuals sweep for sweep (checked outside this suite with
/// NumPy on this very matrix). Those equations are those of a slender cantilever (5 m tall,
/// 0.5 m wide) held by redundant corner contacts: the nonzero eigenvalues of the sticking Delassus
/// matrix span 1.0e-3 to 47, and the bending mode the asymmetric corner updates excite decays
/// accordingly slowly. Lemke solves the same problem in 31 pivots.
#[test]
fn box_stack_scene() {
    let (p, contacts) = box_stack_lcp(false);
    assert_eq!(
        (contacts, p.len()),
        (40, 40),
        "10 face contacts of 4 points"
    );
    let s = BlockGaussSeidel.solve(&p, None, &options(1e-6));
    report("box stack without friction", &s);
    assert_eq!(s.status, Status::Solved);
    assert!(s.stats.iterations <= 1000);
    assert_solves(&p, &s);

    let (p, _) = box_stack_lcp(true);
    assert_eq!(p.len(), 240);
    let t0 = Instant::now();
    let s = BlockGaussSeidel.solve(&p, None, &options(1e-6));
    let seconds = t0.elapsed().as_secs_f64();
    report("box stack with friction", &s);
    eprintln!("box stack with friction: {:.2} ms", seconds * 1e3);
    // Documented above: 1000 sweeps leave the residual at 9.9e-4 (bound 2e-3 for round-off in
    // the sweep order of other platforms; it is 2.3e-3 after 300 sweeps).
    assert_eq!(s.status, Status::IterationLimit);
    assert_eq!(s.stats.iterations, 1000);
    assert!(
        s.stats.residual > 1e-6 && s.stats.residual < 2e-3,
        "{}",
        s.stats.residual
    );
    // Still a usable approximation: z ≥ 0, and the ground carries the weight of the 10 boxes,
    // Σ p_n of its 4 contacts (rows 0–3) = 10 · 9.81 · h, to 1e-3 (the residual is ~1e-3 of
    // g h, one contact's impulse ~ 2.5 g h).
    assert!(s.z.iter().all(|&v| v >= 0.0));
    let ground: f64 = (0..4).map(|c| s.z[c]).sum();
    let weight = 10.0 * 9.81 * 1e-3;
    eprintln!("box stack with friction: ground impulse {ground:.6e}, 10 m g h {weight:.6e}");
    let l = Lemke.solve(&p, None, &options(1e-6));
    report("box stack with friction, lemke", &l);
    assert_eq!(l.status, Status::Solved);
    let lemke_ground: f64 = (0..4).map(|c| l.z[c]).sum();
    assert!(
        (lemke_ground - weight).abs() < 1e-6 * weight,
        "{lemke_ground}"
    );
    // (measured: 9.8109e-2 against 9.81e-2)
    assert!(
        (ground - weight).abs() < 1e-3 * weight,
        "{ground} vs {weight}"
    );
    // From Lemke's answer as a warm start (what the time stepper does with the previous step's
    // solution of a resting stack) there is nothing left to do.
    let warm = BlockGaussSeidel.solve(&p, Some(&l.z), &options(1e-6));
    report("box stack with friction, warm", &warm);
    assert_eq!(warm.status, Status::Solved);
    assert_eq!(warm.stats.iterations, 0);
}

// ---------------------------------------------------------------------------------------------
// Without zero diagonals: PGS.

/// Every block is a single row: BGS performs PGS's operations in PGS's order (and refreshes w
/// the same way), so the iterates, sweep counts and answers are identical, bit for bit.
#[test]
fn spd_problems_give_the_iterates_of_pgs() {
    for seed in 0..40u64 {
        let n = 1 + (seed as usize * 7) % 30;
        let base = lcp::random_lcp(lcp::MatrixKind::Spd, n, seed);
        for (omega, free) in [(1.0, 0), (1.5, 0), (1.0, n.min(3))] {
            let p = Problem {
                free,
                ..base.clone()
            };
            let opts = Options {
                relaxation: omega,
                tolerance: 1e-10,
                max_iterations: 10_000,
                ..Options::default()
            };
            let b = BlockGaussSeidel.solve(&p, None, &opts);
            let g = Pgs.solve(&p, None, &opts);
            assert_eq!(b.status, g.status, "seed {seed} ω {omega}");
            assert_eq!(b.stats, g.stats, "seed {seed} ω {omega}");
            assert_eq!(b.z, g.z, "seed {seed} ω {omega}");
            assert_eq!(b.status, Status::Solved);
        }
    }
    // Also after a sweep limit, where the intermediate iterate is compared.
    let p = lcp::random_lcp(lcp::MatrixKind::Spd, 25, 99);
    let opts = Options {
        max_iterations: 3,
        ..Options::default()
    };
    let (b, g) = (
        BlockGaussSeidel.solve(&p, None, &opts),
        Pgs.solve(&p, None, &opts),
    );
    assert_eq!(b.status, Status::IterationLimit);
    assert_eq!((b.z, b.stats), (g.z, g.stats));
}

// ---------------------------------------------------------------------------------------------
// Refusals, failures and limits.

#[test]
fn overlapping_zero_diagonal_blocks_are_not_applicable() {
    // σ-like rows 2 and 3 both reference column 0: blocks {0, 1, 2} and {0, 3} share row 0.
    let p = problem(
        4,
        &[
            2.0, 0.5, 0.0, 0.0, //
            0.5, 2.0, 1.0, 0.0, //
            0.5, -1.0, 0.0, 0.0, //
            0.3, 0.0, 0.0, 0.0,
        ],
        &[-1.0, -1.0, 0.0, 0.0],
    );
    let s = BlockGaussSeidel.solve(&p, None, &options(1e-8));
    match &s.status {
        Status::NotApplicable(why) => assert!(why.contains("overlaps"), "{why}"),
        other => panic!("expected NotApplicable, got {other:?}"),
    }
    assert_eq!(s.stats.iterations, 0);
    // The start comes back with its residual: z = 0, ‖min(0, q)‖∞ / ‖q‖∞ = 1.
    assert_eq!(s.z, DVector::zeros(4));
    assert_eq!(s.stats.residual, 1.0);
}

#[test]
fn zero_diagonal_block_containing_a_free_row_is_not_applicable() {
    let mut p = one_direction_contact();
    p.free = 1;
    let s = BlockGaussSeidel.solve(&p, None, &options(1e-8));
    match &s.status {
        Status::NotApplicable(why) => assert!(why.contains("free row 0"), "{why}"),
        other => panic!("expected NotApplicable, got {other:?}"),
    }
    // A free row with a zero diagonal.
    let p = Problem {
        free: 1,
        ..problem(2, &[0.0, 1.0, 1.0, 2.0], &[-1.0, -1.0])
    };
    let s = BlockGaussSeidel.solve(&p, None, &options(1e-8));
    assert!(
        matches!(&s.status, Status::NotApplicable(why) if why.contains("free row 0")),
        "{:?}",
        s.status
    );
}

/// Two zero-diagonal rows with the same set {0, 2, 3} are one block: M = [[A, −Bᵀ], [B, S]]
/// with A positive definite and S skew, a monotone LCP, feasible at z = (1, 1, 0, 0), hence
/// solvable.
#[test]
fn zero_diagonal_rows_with_the_same_set_form_one_block() {
    let p = problem(
        4,
        &[
            2.0, 0.5, -1.0, -0.5, //
            0.5, 2.0, 0.0, 0.0, //
            1.0, 0.0, 0.0, 1.0, //
            0.5, 0.0, -1.0, 0.0,
        ],
        &[-1.0, -1.0, 0.2, 0.3],
    );
    let s = BlockGaussSeidel.solve(&p, None, &options(1e-10));
    report("same-set blocks", &s);
    assert_eq!(s.status, Status::Solved);
    assert_solves(&p, &s);
}

#[test]
fn block_without_local_solution_is_inaccurate() {
    // Row 1 has a zero diagonal and references column 0: one block, the whole problem, whose
    // LCP has no solution (w_0 ≥ 0 needs z_0 ≥ 1, w_1 ≥ 0 needs z_0 ≤ 0.5).
    let p = problem(2, &[1.0, 0.0, -1.0, 0.0], &[-1.0, 0.5]);
    let s = BlockGaussSeidel.solve(&p, None, &options(1e-8));
    assert_eq!(s.status, Status::Inaccurate);
    assert_eq!(s.stats.iterations, 1);
    // The start z = 0 is returned unchanged with its residual |min(0, −1)| / 1 = 1.
    assert_eq!(s.z, DVector::zeros(2));
    assert_eq!(s.stats.residual, 1.0);
    // A zero row: 0 · z − 1 ≥ 0 has no solution either.
    let p = problem(1, &[0.0], &[-1.0]);
    let s = BlockGaussSeidel.solve(&p, None, &options(1e-8));
    assert_eq!(s.status, Status::Inaccurate);
}

#[test]
fn malformed_inputs_are_bad_problems() {
    let mut p = one_direction_contact();
    p.m[(1, 2)] = f64::NAN;
    let s = BlockGaussSeidel.solve(&p, None, &options(1e-8));
    assert!(matches!(s.status, Status::BadProblem(_)), "{:?}", s.status);
    let mut p = one_direction_contact();
    p.q[0] = f64::INFINITY;
    let s = BlockGaussSeidel.solve(&p, None, &options(1e-8));
    assert!(matches!(s.status, Status::BadProblem(_)), "{:?}", s.status);
    for omega in [2.0, 0.0, -0.5, 2.5, f64::NAN] {
        let opts = Options {
            relaxation: omega,
            ..options(1e-8)
        };
        let s = BlockGaussSeidel.solve(&one_direction_contact(), None, &opts);
        assert!(
            matches!(s.status, Status::BadProblem(_)),
            "ω = {omega}: {:?}",
            s.status
        );
    }
}

#[test]
fn iteration_limit_leaves_the_residual_above_tolerance() {
    let (p, _) = random_friction_lcp(3, 12, 10, 4);
    let full = BlockGaussSeidel.solve(&p, None, &options(1e-10));
    assert_eq!(full.status, Status::Solved);
    assert!(full.stats.iterations > 2, "{}", full.stats.iterations);
    let opts = Options {
        max_iterations: 2,
        ..options(1e-10)
    };
    let s = BlockGaussSeidel.solve(&p, None, &opts);
    assert_eq!(s.status, Status::IterationLimit);
    assert_eq!(s.stats.iterations, 2);
    assert!(s.stats.residual > 1e-10, "{}", s.stats.residual);
    assert_eq!(s.stats.residual, residual(&p, &s.z));
}

#[test]
fn warm_start_at_the_solution_returns_at_once() {
    let (p, _) = random_friction_lcp(5, 12, 10, 4);
    let cold = BlockGaussSeidel.solve(&p, None, &options(1e-8));
    assert_eq!(cold.status, Status::Solved);
    assert!(cold.stats.iterations > 1);
    let warm = BlockGaussSeidel.solve(&p, Some(&cold.z), &options(1e-8));
    assert_eq!(warm.status, Status::Solved);
    // The start already meets the tolerance: checked before the first sweep.
    assert_eq!(warm.stats.iterations, 0);
    assert_eq!(warm.z, cold.z);
    // Negative entries of a warm start are projected to 0 (and a start of the wrong length is
    // ignored).
    let mut start = cold.z.clone();
    start[0] = -5.0;
    let s = BlockGaussSeidel.solve(&p, Some(&start), &options(1e-8));
    assert_eq!(s.status, Status::Solved);
    assert!(s.z.iter().all(|&v| v >= 0.0));
    let s = BlockGaussSeidel.solve(&p, Some(&DVector::zeros(3)), &options(1e-8));
    assert_eq!(s.stats, cold.stats);
}

#[test]
fn empty_problem_is_solved() {
    let p = Problem::lcp(DMatrix::zeros(0, 0), DVector::zeros(0));
    let s = BlockGaussSeidel.solve(&p, None, &options(1e-8));
    assert_eq!(s.status, Status::Solved);
    assert_eq!(s.stats.iterations, 0);
}

#[test]
fn registered_after_lemke() {
    assert_eq!(BlockGaussSeidel.name(), "block-gauss-seidel");
    let names: Vec<&str> = solvers::all().iter().map(|s| s.name()).collect();
    assert_eq!(names[0], "lemke");
    assert_eq!(names[1], "block-gauss-seidel");
    assert!(solvers::by_name("block-gauss-seidel").is_some());
}

// ---------------------------------------------------------------------------------------------
// Cost of a sweep.

/// A 2000-row friction LCP (334 contacts among 300 bodies, k = 4): the time of a sweep is the
/// difference between 101 and 1 sweeps (the setup — checks, sparse copy, residuals — is the
/// same in both). Printed; the assertions are on the counts, not on the clock.
#[test]
fn sweep_cost_on_2000_rows() {
    let (p, _) = random_friction_lcp(11, 300, 334, 4);
    assert_eq!(p.len(), 2004);
    let run = |sweeps: usize| {
        let opts = Options {
            max_iterations: sweeps,
            tolerance: 1e-14,
            ..Options::default()
        };
        let t0 = Instant::now();
        let s = BlockGaussSeidel.solve(&p, None, &opts);
        (t0.elapsed().as_secs_f64(), s)
    };
    let (t1, s1) = run(1);
    let (t101, s101) = run(101);
    assert_eq!(s1.stats.iterations, 1);
    assert_eq!(s101.stats.iterations, 101);
    assert!(s101.stats.residual < s1.stats.residual);
    eprintln!(
        "2004 rows: 1 sweep {:.2} ms in all, 101 sweeps {:.2} ms: {:.1} µs per sweep; \
         residual after 101 sweeps {:.2e}",
        t1 * 1e3,
        t101 * 1e3,
        (t101 - t1) / 100.0 * 1e6,
        s101.stats.residual
    );
}
