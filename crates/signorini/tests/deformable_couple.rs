//! Two-way contact between deformables and rigid bodies, and between deformables
//! (`deformable/couple.rs`, `deformable/facets.rs`, stepped by `simulation/deformables.rs`):
//! the facets close the body's surface, the closest point on a triangle against a brute-force
//! oracle, linear momentum exchanged exactly in a collision without gravity (rigid–deformable
//! and deformable–deformable), and at rest the forces carrying each body's weight.
use signorini::deformable::facets::closest_point_on_triangle;
use signorini::deformable::{add_box, BoxSpec, DeformableMaterial, Facets, World, WorldSettings};
use signorini::scene::{self, parse_scene};
use signorini::simulation::Simulation;
use signorini::DVec3;

const G: f64 = 9.81;

/// A small deterministic generator (xorshift64*), for the oracle's random cases.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> f64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 11) as f64 / (1u64 << 53) as f64
    }

    fn vec(&mut self) -> DVec3 {
        DVec3::new(self.next(), self.next(), self.next()) * 2.0 - DVec3::ONE
    }
}

#[test]
fn the_facets_of_a_box_close_its_surface_with_outward_normals() {
    let mut w = World::new(WorldSettings::default());
    let spec = BoxSpec {
        name: "b".into(),
        size: DVec3::new(0.3, 0.2, 0.4),
        divisions: [3, 2, 4],
        position: DVec3::new(1.0, -2.0, 0.5),
        velocity: DVec3::ZERO,
        material: DeformableMaterial::default(),
        clamp: None,
        tip_load: DVec3::ZERO,
    };
    add_box(&mut w, &spec).unwrap();
    let f = Facets::of_body(&w.bodies[0], &w.x, w.radius[0]);
    // n layers span (n − 1) L/√(n² − 1) = L √((n − 1)/(n + 1)) along each axis (the spacing
    // that keeps the box's inertia, `generate`): the hull is a box of those sides. Its surface
    // is 2 (ab + bc + ca), 2 triangles per quad.
    let span = |l: f64, n: f64| l * ((n - 1.0) / (n + 1.0)).sqrt();
    let (a, b, c) = (span(0.3, 3.0), span(0.2, 2.0), span(0.4, 4.0));
    let quads = 2 * (2 + 3 * 1 + 3 * 2);
    assert_eq!(f.triangles.len(), 2 * quads);
    let (mut area, mut flux, mut volume) = (0.0, DVec3::ZERO, 0.0);
    for t in &f.triangles {
        let [p, q, r] = t.map(|i| w.x[i]);
        let n2 = (q - p).cross(r - p);
        let centre = (p + q + r) / 3.0;
        assert!(
            n2.dot(centre - spec.position) > 0.0,
            "a facet faces in: {t:?}"
        );
        area += n2.length() / 2.0;
        flux += n2 / 2.0;
        // Divergence theorem: V = (1/3) ∮ x·n dA.
        volume += (centre - spec.position).dot(n2 / 2.0) / 3.0;
    }
    assert!(
        (area - 2.0 * (a * b + b * c + c * a)).abs() < 1e-14,
        "{area}"
    );
    assert!(flux.length() < 1e-15, "a closed surface: {flux}");
    assert!((volume - a * b * c).abs() < 1e-15, "{volume}");
    // A plate one particle thick has its two faces back to back; a rod one across has none.
    let mut plate = World::new(WorldSettings::default());
    add_box(
        &mut plate,
        &BoxSpec {
            divisions: [3, 2, 1],
            ..spec.clone()
        },
    )
    .unwrap();
    let fp = Facets::of_body(&plate.bodies[0], &plate.x, plate.radius[0]);
    assert_eq!(fp.triangles.len(), 2 * 2 * 2);
    let mut rod = World::new(WorldSettings::default());
    add_box(
        &mut rod,
        &BoxSpec {
            divisions: [3, 1, 1],
            ..spec
        },
    )
    .unwrap();
    assert!(Facets::of_body(&rod.bodies[0], &rod.x, rod.radius[0])
        .triangles
        .is_empty());
}

#[test]
fn the_closest_point_on_a_triangle_matches_a_brute_force_search() {
    let mut rng = Rng(0x5eed);
    for case in 0..300 {
        let (a, b, c, p) = (rng.vec(), rng.vec(), rng.vec(), 2.0 * rng.vec());
        let (q, w) = closest_point_on_triangle(p, a, b, c);
        assert!(w.iter().all(|&x| x >= 0.0) && (w.iter().sum::<f64>() - 1.0).abs() < 1e-12);
        assert!(
            (w[0] * a + w[1] * b + w[2] * c - q).length() < 1e-12,
            "case {case}"
        );
        // Oracle: a grid of 201 points a side over the triangle. The answer is at least as near
        // as every grid point, and within the grid's spacing of the nearest (the longest edge
        // over 200, at most √2 · 2√3 / 200 < 0.025 here).
        let d = (p - q).length();
        let n = 200;
        let mut best = f64::INFINITY;
        for i in 0..=n {
            for j in 0..=n - i {
                let (s, t) = (i as f64 / n as f64, j as f64 / n as f64);
                let x = a + s * (b - a) + t * (c - a);
                best = best.min((p - x).length());
            }
        }
        let spacing = (b - a).length().max((c - a).length()).max((c - b).length()) / n as f64;
        assert!(d <= best + 1e-12, "case {case}: {d} > grid {best}");
        assert!(best - d <= spacing, "case {case}: grid {best} vs {d}");
    }
}

/// A scene: no ground, gravity `g`, a deformable block and what `rest` adds, steps of 10 µs.
fn scene(g: f64, block: &str, rest: &str) -> Simulation {
    scene_at(1e-5, g, block, rest)
}

/// The same with steps of `h` (s).
fn scene_at(h: f64, g: f64, block: &str, rest: &str) -> Simulation {
    let text = format!(
        "[simulation]\ntime_step = {h:e}\nduration = 1.0\ngravity = [0.0, 0.0, {}]\n\n{block}\n{rest}",
        -g
    );
    let desc = parse_scene(&text, "coupled.toml").unwrap();
    Simulation::new(scene::build(desc).unwrap(), None, &[]).unwrap()
}

const BLOCK: &str = r#"[[deformable]]
name = "block"
size = [0.1, 0.1, 0.1]
divisions = [3, 3, 3]
young = 1e5
density = 1000.0
integrator = "verlet"
contact_stiffness = 1e5
"#;

/// Linear momentum of the deformables' free particles and the rigid free bodies (kg m/s).
fn momentum(sim: &Simulation) -> DVec3 {
    let mut p = DVec3::ZERO;
    for w in &sim.deformables().unwrap().worlds {
        for k in (0..w.x.len()).filter(|&k| !w.fixed[k]) {
            p += w.mass[k] * w.v[k];
        }
    }
    for (b, s) in sim.model().bodies.iter().zip(&sim.state().bodies) {
        if !b.fixed {
            p += b.mass * s.velocity;
        }
    }
    p
}

#[test]
fn a_block_striking_a_free_box_gives_it_the_momentum_it_loses() {
    // No gravity: the 1 kg block moves at 1 m/s along x into a 2 kg box at rest 2 cm away,
    // struck off its centre (y offset 3 cm), friction 0.5, contact damping on.
    let block = format!(
        "{BLOCK}position = [0.0, 0.0, 0.0]\nvelocity = [1.0, 0.0, 0.0]\ncontact_damping = 2e4\nfriction = 0.5\n"
    );
    let rest = "[[body]]\nname = \"box\"\nmass = 2.0\nshape = { type = \"box\", size = [0.1, 0.2, 0.2] }\nposition = [0.12, 0.03, 0.0]\n";
    let mut sim = scene(0.0, &block, rest);
    let p0 = momentum(&sim);
    let mut touched = 0;
    for _ in 0..10_000 {
        sim.step().unwrap();
        let block = &sim.deformables().unwrap().worlds[0];
        touched += usize::from(block.coupled_contacts > 0);
        // Every step: the box has taken h Σ F_n, the block's Verlet ½ h F_0 + h (F_1 + … +
        // F_N−1) + ½ h F_N (`simulation/deformables.rs`), F_0 = 0: they differ by ½ h F_N, F_N
        // the exchange at the current state, to round-off (a few ulps of 1 kg m/s over 28 masses).
        let pending = 0.5e-5 * block.coupling.iter().sum::<DVec3>();
        let dp = momentum(&sim) - p0 - pending;
        assert!(
            dp.length() < 1e-14,
            "momentum drifted by {dp} at t = {}",
            sim.state().time
        );
    }
    assert_eq!(
        sim.deformables().unwrap().worlds[0].coupled_contacts,
        0,
        "still touching"
    );
    let bs = &sim.state().bodies[0];
    eprintln!(
        "box v {} w {}, touched {touched} steps",
        bs.velocity, bs.angular_velocity
    );
    assert!(
        touched > 100,
        "the block never touched the box ({touched} steps)"
    );
    // The box was pushed along x (momentum exchange of the order of the block's), and the
    // off-centre blow turned it about z.
    assert!(bs.velocity.x > 0.2, "{}", bs.velocity);
    assert!(
        bs.angular_velocity.z.abs() > 1e-2,
        "{}",
        bs.angular_velocity
    );
}

#[test]
fn two_deformables_exchange_momentum_through_their_facets() {
    let a = format!("{BLOCK}position = [0.0, 0.0, 0.0]\nvelocity = [0.5, 0.0, 0.0]\n");
    let b = BLOCK
        .replace("\"block\"", "\"other\"")
        .replace("density = 1000.0", "density = 2000.0")
        + "position = [0.12, 0.05, 0.02]\nvelocity = [-0.5, 0.0, 0.0]\n";
    let mut sim = scene(0.0, &a, &b);
    let p0 = momentum(&sim);
    let mut touched = 0;
    for _ in 0..10_000 {
        sim.step().unwrap();
        let d = sim.deformables().unwrap();
        touched += usize::from(d.worlds[0].coupled_contacts > 0);
        let dp = momentum(&sim) - p0;
        assert!(
            dp.length() < 1e-14,
            "momentum drifted by {dp} at t = {}",
            sim.state().time
        );
    }
    let d = sim.deformables().unwrap();
    assert!(touched > 100, "{touched}");
    let (_, va) = d.worlds[0].free_centroid();
    let (_, vb) = d.worlds[1].free_centroid();
    eprintln!(
        "va {va} vb {vb} touched {touched} deepest {:?}",
        d.max_penetration
    );
    // They bounced apart (part of the energy left in their vibrations: e ≈ 0.3 on the centroids).
    assert!(va.x - vb.x < -0.1, "{va} {vb}");
    let e: f64 = d.worlds.iter().map(|w| w.mechanical_energy()).sum();
    eprintln!("energy {e} vs {}", d.initial_energy.iter().sum::<f64>());
    // The deepest they went into each other stays within the contact radius (1.46e-2 m each).
    for (w, deepest) in d.worlds.iter().zip(&d.max_penetration) {
        assert!(*deepest < w.radius[0], "{deepest} vs {}", w.radius[0]);
    }
}

/// Kinetic energy of the rigid free bodies (J): ½ m v² + ½ ωᵀ (R J Rᵀ) ω.
fn rigid_kinetic(sim: &Simulation) -> f64 {
    let mut e = 0.0;
    for (b, s) in sim.model().bodies.iter().zip(&sim.state().bodies) {
        if !b.fixed {
            let r = signorini::DMat3::from_quat(s.orientation);
            let j = r * b.inertia * r.transpose();
            e += 0.5 * b.mass * s.velocity.length_squared()
                + 0.5 * s.angular_velocity.dot(j * s.angular_velocity);
        }
    }
    e
}

/// (E(end) − E₀) / E₀ after a frictionless, undamped collision of the block with `other`
/// (a deformable or a rigid body) at step `h` (s), E the worlds' mechanical energy (kinetic +
/// connectors; no gravity, no obstacles of their own) plus the rigid kinetic energy; and the
/// steps spent touching. The bodies have separated at the end (asserted): the contact springs
/// hold no energy then.
fn energy_error(h: f64, other: &str) -> (f64, usize) {
    let a =
        format!("{BLOCK}position = [0.0, 0.0, 0.0]\nvelocity = [0.5, 0.0, 0.0]\nfriction = 0.0\n");
    let mut sim = scene_at(h, 0.0, &a, other);
    let energy = |sim: &Simulation| {
        let d = sim.deformables().unwrap();
        d.worlds.iter().map(|w| w.mechanical_energy()).sum::<f64>() + rigid_kinetic(sim)
    };
    let e0 = energy(&sim);
    let mut touched = 0;
    for _ in 0..(0.1 / h).round() as usize {
        sim.step().unwrap();
        touched += usize::from(sim.deformables().unwrap().worlds[0].coupled_contacts > 0);
    }
    assert_eq!(
        sim.deformables().unwrap().worlds[0].coupled_contacts,
        0,
        "still touching at the end"
    );
    ((energy(&sim) - e0) / e0, touched)
}

/// The coupling is a symplectic Euler step on the contact springs (`World::kick`, and the rigid
/// step's v ← v + h F/m): its energy error does not grow step after step as an explicit
/// (Taylor) update's would — holding the force over a Verlet step instead gained 2.4% of E₀ in
/// this collision at h = 1e-5 s —, and it falls at least as fast as h. Bound: 1e-4 of E₀ at
/// h = 1e-5 s, ω h ≈ 0.03 for the contact spring on a particle (ω = √(λ_c/m_p) = 3.2e3 rad/s),
/// the size of a first-order error over a collision of a few hundred steps.
#[test]
fn a_frictionless_undamped_collision_keeps_its_energy_and_the_error_falls_with_h() {
    let deformable = BLOCK.replace("\"block\"", "\"other\"")
        + "position = [0.12, 0.05, 0.02]\nvelocity = [-0.5, 0.0, 0.0]\nfriction = 0.0\n";
    let rigid = "[[body]]\nname = \"ball\"\nmass = 0.5\nshape = { type = \"sphere\", radius = 0.05 }\nposition = [0.12, 0.03, 0.0]\n";
    for (what, other) in [("deformable", deformable.as_str()), ("rigid sphere", rigid)] {
        let (e1, t1) = energy_error(1e-5, other);
        let (e2, t2) = energy_error(5e-6, other);
        eprintln!(
            "{what}: h = 1e-5 s: {e1:.3e} of E0 ({t1} steps touching); 5e-6 s: {e2:.3e} ({t2})"
        );
        assert!(t1 > 100, "{what}: never touched");
        assert!(e1.abs() < 1e-4, "{what}: {e1}");
        assert!(e2.abs() < e1.abs() / 2.0, "{what}: {e2} vs {e1}");
    }
}

/// Σ of the forces the ground's plane puts on a world's particles (N).
fn ground_force(w: &World) -> DVec3 {
    let mut f = DVec3::ZERO;
    for p in (0..w.x.len()).filter(|&p| !w.fixed[p]) {
        for plane in &w.planes {
            if let Some((e, o)) = w.settings.contact.force(plane, w.x[p], w.v[p], w.radius[p]) {
                f += e + o;
            }
        }
    }
    f
}

/// `examples/deformable_coupling.toml`: a rigid cube (1 kg) and a soft block (1 kg) dropped
/// from 2 cm onto a soft mat (6.4 kg) on the ground, 1 s. At the end everything is at rest
/// (speeds ≤ 1e-6 m/s, asserted; measured 2.5e-7) and each contact carries the weight W above it.
/// Normal force within 1e-6 W: at rest only the damping terms could differ from the static
/// balance, μ_c δ δ̇ ≤ 1e7 N·s/m² × 1e-4 m × 1e-6 m/s = 1e-3 N spread over the particles,
/// ≈1e-4 N each against ≈1 N (measured: 1e-10 relative). Sideways within the regularised
/// friction of that creep, μ W v/v_s = 0.5 W × v/1e-3.
#[test]
fn the_bundled_cube_and_block_rest_on_the_soft_mat_each_carried_by_its_weight() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples/deformable_coupling.toml");
    let mut sim = Simulation::from_file(&path).unwrap();
    while !sim.finished() {
        sim.step().unwrap();
    }
    let d = sim.deformables().unwrap();
    let (mat, block) = (&d.worlds[0], &d.worlds[1]);
    let cube = &sim.state().bodies[1];
    let speeds = d.worlds.iter().flat_map(|w| w.v.iter().map(|v| v.length()));
    let fastest = speeds.fold(
        cube.velocity.length() + cube.angular_velocity.length() * 0.1,
        f64::max,
    );
    assert!(fastest < 1e-6, "not at rest: {fastest} m/s");
    let mut worlds = d.worlds.clone();
    let wrenches = d.coupler().exchange(&mut worlds, sim.model(), sim.state());
    let on_mat: DVec3 = worlds[0].coupling.iter().sum();
    let on_block: DVec3 = worlds[1].coupling.iter().sum();
    let (mb, mm, mc) = (block.free_mass(), mat.free_mass(), 1.0);
    let on_ground = ground_force(mat);
    eprintln!(
        "fastest {fastest:.2e} m/s; on the cube {:?}; on the block {on_block}; on the mat {on_mat}; ground on the mat {on_ground}; deepest {:?}",
        wrenches, d.max_penetration
    );
    let close = |f: DVec3, weight: f64, what: &str| {
        let w = weight * G;
        let sideways = f.truncate().length();
        assert!((f.z - w).abs() < 1e-6 * w, "{what}: {f} against {w} N up");
        assert!(sideways <= 0.5 * w * fastest / 1e-3, "{what}: {f} sideways");
    };
    assert_eq!(wrenches.len(), 1);
    close(wrenches[0].1.force, mc, "the mat on the cube");
    close(on_block, mb, "the mat on the block");
    close(-on_mat, mc + mb, "the cube and the block on the mat");
    close(on_ground, mm + mb + mc, "the ground under the mat");
    // Nothing went deeper than its contact radius (0.02 m for the mat, 1.46e-2 m for the block).
    for (w, deepest) in d.worlds.iter().zip(&d.max_penetration) {
        assert!(*deepest < w.radius[0], "{deepest} vs {}", w.radius[0]);
    }
}
