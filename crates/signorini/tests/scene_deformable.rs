//! `[[deformable]]` scene tables (`scene/parse/deformable.rs`, `scene/deformable.rs`): every key
//! read into the description, every bad value refused at its file:line:key with a hint, the
//! scene's fixed half-spaces turned into the planes the deformables touch, and, run from a scene,
//! the bundled block coming to rest within its derived penetration bound and a run without any
//! damping gaining no energy beyond Verlet's bounded oscillation.
mod common;

use signorini::deformable::{DeformableIntegrator, Integrator};
use signorini::scene::{self, deformable_worlds, parse_scene, DeformableWorlds, SceneDesc};
use signorini::DVec3;
use std::path::Path;

const G: f64 = 9.81;

fn example() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/deformable_block_drop.toml")
}

const BASE: &str = r#"[simulation]
time_step = 1e-5
duration = 0.1

[[body]]
name = "ground"
fixed = true
shape = { type = "halfspace", normal = [0.0, 0.0, 1.0] }

[[deformable]]
name = "beam"
size = [1.0, 0.1, 0.1]
divisions = [10, 1, 1]
"#;

#[test]
fn every_key_is_read_into_the_description() {
    let text = format!(
        "{BASE}position = [0.0, 1.0, 2.0]\nvelocity = [0.5, 0.0, 0.0]\nyoung = 2e5\npoisson = 0.25\n\
         density = 500.0\ndamping = 1e-3\nclamp = \"+x\"\ntip_load = [0.0, 0.0, -1.0]\ndrag = 0.5\n\
         integrator = \"taylor\"\ncontact_stiffness = 2e4\ncontact_damping = 10.0\nfriction = 0.3\n\
         slip_speed = 2e-3\nparticle_interval = 0.02\n"
    );
    let desc = parse_scene(&text, "t.toml").unwrap();
    assert_eq!(desc.deformables.len(), 1);
    let d = &desc.deformables[0];
    let s = &d.spec;
    assert_eq!(s.name, "beam");
    assert_eq!(s.size, DVec3::new(1.0, 0.1, 0.1));
    assert_eq!(s.divisions, [10, 1, 1]);
    assert_eq!(s.position, DVec3::new(0.0, 1.0, 2.0));
    assert_eq!(s.velocity, DVec3::new(0.5, 0.0, 0.0));
    assert_eq!(
        (
            s.material.young,
            s.material.poisson,
            s.material.density,
            s.material.damping
        ),
        (2e5, 0.25, 500.0, 1e-3)
    );
    let clamp = s.clamp.unwrap();
    assert_eq!((clamp.axis, clamp.positive), (0, true));
    assert_eq!(s.tip_load, DVec3::new(0.0, 0.0, -1.0));
    assert_eq!(d.drag, 0.5);
    assert_eq!(d.integrator, DeformableIntegrator::Taylor);
    assert_eq!(
        (
            d.contact.stiffness,
            d.contact.damping,
            d.contact.friction,
            d.contact.slip_speed
        ),
        (2e4, 10.0, 0.3, 2e-3)
    );
    assert_eq!(d.particle_interval, 0.02);
    assert_eq!((d.line, d.key.as_str()), (10, "deformable[0]"));
    // Defaults (docs/scene-format.md).
    let d = &parse_scene(BASE, "t.toml").unwrap().deformables[0];
    assert_eq!(d.spec.clamp, None);
    assert_eq!(
        d.spec.material,
        signorini::deformable::DeformableMaterial::default()
    );
    assert_eq!(d.contact, signorini::deformable::PlaneContact::default());
    assert_eq!(
        (d.drag, d.integrator, d.particle_interval),
        (0.0, DeformableIntegrator::Verlet, 0.01)
    );
    assert_eq!(d.law, signorini::deformable::ContactLaw::Penalty);
    // The impulse law: restitution 0.5 and Newton's collision law by default; every law by name.
    let d = parse_scene(&format!("{BASE}contact_law = \"impulse\"\n"), "t.toml").unwrap();
    assert_eq!(
        d.deformables[0].law,
        signorini::deformable::ContactLaw::Impulse {
            restitution: 0.5,
            impact: signorini::deformable::ImpactLaw::Newton
        }
    );
    for name in signorini::deformable::ImpactLaw::NAMES {
        let text = format!("{BASE}contact_law = \"impulse\"\nimpact_law = \"{name}\"\n");
        let d = parse_scene(&text, "t.toml").unwrap();
        let signorini::deformable::ContactLaw::Impulse { impact, .. } = d.deformables[0].law else {
            panic!("{name}: not the impulse law");
        };
        assert_eq!(impact.name(), name);
    }
    // Every clamp name: axis and side.
    for (k, name) in ["-x", "+x", "-y", "+y", "-z", "+z"].iter().enumerate() {
        let d = parse_scene(&format!("{BASE}clamp = \"{name}\"\n"), "t.toml").unwrap();
        let c = d.deformables[0].spec.clamp.unwrap();
        assert_eq!((c.axis, c.positive), (k / 2, k % 2 == 1), "{name}");
    }
}

/// The error of `text`, by parse or build.
fn error(text: &str) -> scene::SceneError {
    match parse_scene(text, "t.toml") {
        Err(e) => e,
        Ok(desc) => scene::build(desc)
            .err()
            .expect("the scene should be refused"),
    }
}

#[test]
fn each_bad_value_is_refused_at_its_line_and_key() {
    // (extra lines after BASE, line, key, part of the message, part of the hint)
    let cases: &[(&str, usize, &str, &str, &str)] = &[
        (
            "colour = 1\n",
            14,
            "deformable[0].colour",
            "unknown key",
            "valid keys",
        ),
        (
            "young = -1.0\n",
            14,
            "deformable[0].young",
            "greater than 0",
            "",
        ),
        (
            "contact_law = \"bouncy\"\n",
            14,
            "deformable[0].contact_law",
            "unknown contact law",
            "impulse",
        ),
        (
            "restitution = 0.5\n",
            14,
            "deformable[0].restitution",
            "without contact_law",
            "contact_law = \"impulse\"",
        ),
        (
            "impact_law = \"stronge\"\n",
            14,
            "deformable[0].impact_law",
            "without contact_law",
            "contact_law = \"impulse\"",
        ),
        (
            "contact_law = \"impulse\"\nimpact_law = \"strong\"\n",
            15,
            "deformable[0].impact_law",
            "unknown collision law",
            "stronge",
        ),
        (
            "contact_law = \"impulse\"\nrestitution = 1.5\n",
            15,
            "deformable[0].restitution",
            "above 1",
            "[0, 1]",
        ),
        (
            "adaptive_min_step = 1e-6\n",
            14,
            "deformable[0].adaptive_min_step",
            "without adaptive_tolerance",
            "adaptive_tolerance",
        ),
        (
            "adaptive_tolerance = 0.0\n",
            14,
            "deformable[0].adaptive_tolerance",
            "greater than 0",
            "",
        ),
        (
            "adaptive_tolerance = 1e-7\nadaptive_min_step = 1e-4\n",
            15,
            "deformable[0].adaptive_min_step",
            "above simulation.time_step",
            "below time_step",
        ),
        (
            "poisson = 0.5\n",
            14,
            "deformable[0].poisson",
            "[0, 0.5)",
            "Poisson",
        ),
        (
            "density = 0.0\n",
            14,
            "deformable[0].density",
            "greater than 0",
            "",
        ),
        (
            "damping = -1e-3\n",
            14,
            "deformable[0].damping",
            "at least 0",
            "",
        ),
        (
            "clamp = \"+q\"\n",
            14,
            "deformable[0].clamp",
            "unknown clamp",
            "valid clamps",
        ),
        (
            "tip_load = [0.0, 0.0, -1.0]\n",
            14,
            "deformable[0].tip_load",
            "needs a clamp",
            "clamp =",
        ),
        (
            "integrator = \"verlett\"\n",
            14,
            "deformable[0].integrator",
            "unknown integrator",
            "did you mean `verlet`",
        ),
        (
            "contact_stiffness = 0.0\n",
            14,
            "deformable[0].contact_stiffness",
            "greater than 0",
            "",
        ),
        (
            "contact_damping = -1.0\n",
            14,
            "deformable[0].contact_damping",
            "at least 0",
            "",
        ),
        (
            "slip_speed = 0.0\n",
            14,
            "deformable[0].slip_speed",
            "greater than 0",
            "",
        ),
        (
            "particle_interval = 0.0\n",
            14,
            "deformable[0].particle_interval",
            "greater than 0",
            "",
        ),
        (
            "velocity = [0.0, 1.0]\n",
            14,
            "deformable[0].velocity",
            "3 numbers",
            "",
        ),
        (
            "\n[[deformable]]\nname = \"beam\"\nsize = [1.0, 1.0, 1.0]\ndivisions = [1, 1, 1]\n",
            16,
            "deformable[1].name",
            "duplicate deformable name",
            "line 10",
        ),
        (
            "\n[[deformable]]\nname = \"b2\"\ndivisions = [1, 1, 1]\n",
            15,
            "deformable[1].size",
            "missing required key `size`",
            "size = [0.1, 0.1, 0.1]",
        ),
    ];
    for &(extra, line, key, message, hint) in cases {
        let e = error(&format!("{BASE}{extra}"));
        assert_eq!((e.line, e.key.as_str()), (line, key), "{extra}: {e}");
        assert!(e.message.contains(message), "{extra}: {e}");
        assert!(e.hint.contains(hint), "{extra}: {e}");
        assert!(
            e.to_string()
                .starts_with(&format!("t.toml:{line}: {key}: ")),
            "{e}"
        );
    }
    // A position where the cells are lost in round-off (the Gershgorin bound would be infinite).
    let e = error(&format!("{BASE}position = [1e308, 0.0, 0.0]\n"));
    assert_eq!(
        (e.line, e.key.as_str()),
        (14, "deformable[0].position"),
        "{e}"
    );
    assert!(e.message.contains("lost in round-off"), "{e}");
    // A zero cell count: at the item.
    let e = error(&BASE.replace("[10, 1, 1]", "[0, 1, 1]"));
    assert_eq!(
        (e.line, e.key.as_str()),
        (13, "deformable[0].divisions[0]"),
        "{e}"
    );
    // Too many cells: at divisions.
    let e = error(&BASE.replace("[10, 1, 1]", "[10000, 1000, 1]"));
    assert_eq!(
        (e.line, e.key.as_str()),
        (13, "deformable[0].divisions"),
        "{e}"
    );
    // A step above 2/ω_max: at simulation.time_step, with the bound in the message.
    let e = error(&BASE.replace("time_step = 1e-5", "time_step = 1e-2"));
    assert_eq!((e.line, e.key.as_str()), (1, "simulation.time_step"), "{e}");
    assert!(
        e.message.contains("stable step of deformable `beam`"),
        "{e}"
    );
    // Adaptive steps are refused at the deformable.
    let e = error(&BASE.replace(
        "duration = 0.1\n",
        "duration = 0.1\n[simulation.adaptive]\nenergy_tolerance = 1e-6\n",
    ));
    assert_eq!((e.line, e.key.as_str()), (12, "deformable[0]"), "{e}");
}

#[test]
fn fixed_half_spaces_become_planes_and_free_bodies_are_coupled() {
    let text = BASE.replace(
        "shape = { type = \"halfspace\", normal = [0.0, 0.0, 1.0] }",
        "shape = { type = \"halfspace\", normal = [0.0, 0.0, 1.0] }\nposition = [0.0, 0.0, 0.25]\norientation = { axis = [1.0, 0.0, 0.0], angle_deg = 90.0 }",
    ) + "\n[[body]]\nname = \"ball\"\nmass = 1.0\nshape = { type = \"sphere\", radius = 0.1 }\nposition = [5.0, 0.0, 1.0]\n";
    let desc = parse_scene(&text, "t.toml").unwrap();
    let d = worlds_of(&desc);
    // The ball (body 1, a free sphere) is touched two-way through the coupler.
    assert_eq!(d.coupler.rigid, vec![(1, 0)]);
    let plane = d.worlds[0].planes[0];
    // z turned by 90° about x is −y; the surface passes through the body's position.
    assert!(
        (plane.normal - DVec3::new(0.0, -1.0, 0.0)).length() < 1e-15,
        "{plane:?}"
    );
    assert!(plane.offset.abs() < 1e-15, "{plane:?}");
    assert_eq!(d.worlds[0].settings.gravity, DVec3::new(0.0, 0.0, -G));
}

/// The deformable worlds of `desc`, on the rigid model its scene builds.
fn worlds_of(desc: &SceneDesc) -> DeformableWorlds {
    let scene = scene::build(desc.clone()).unwrap();
    deformable_worlds(&scene.desc, &scene.model).unwrap()
}

fn bundled() -> SceneDesc {
    scene::load_scene(&example()).unwrap()
}

#[test]
fn the_bundled_block_comes_to_rest_within_its_derived_penetration() {
    let desc = bundled();
    let mut w = worlds_of(&desc).worlds.remove(0);
    let d = &desc.deformables[0];
    let h = desc.simulation.settings.time_step;
    let steps = (desc.simulation.settings.duration / h).round() as u64;
    let mut integ = Integrator::default();
    for _ in 0..steps {
        integ.step(&mut w, d.integrator, h, false).unwrap();
    }
    let m = w.free_mass();
    // At rest the contact forces, all ≥ 0, sum to the weight M g; each particle's is λ δ, so no
    // particle sinks deeper than M g / λ (= 9.81e-5 m for 1 kg on 1e5 N/m).
    let bound = m * G / d.contact.stiffness;
    let max_speed = w.v.iter().map(|v| v.length()).fold(0.0, f64::max);
    // "At rest": the residual speeds (measured 3.2e-6 m/s) are below 1e-4 m/s, a speed at which
    // the Hunt–Crossley damping force is μ_c δ v ≈ 7.6e4 · 1e-5 · 1e-4 ≈ 1e-4 N, 1e-5 of M g.
    assert!(max_speed < 1e-4, "max speed {max_speed} m/s");
    let deepest = w.max_penetration();
    assert!(
        deepest > 0.0 && deepest <= bound,
        "{deepest} m vs M g/λ = {bound} m"
    );
    // The bottom particles carry the weight: Σ λ δ = M g to 1e-6 (the residual accelerations,
    // at most max_speed / 2 s of decay, are far below).
    let r = w.radius[0];
    let carried: f64 =
        w.x.iter()
            .map(|x| d.contact.stiffness * (r - x.z).max(0.0))
            .sum();
    assert!(
        (carried / (m * G) - 1.0).abs() < 1e-6,
        "Σ λδ / M g = {}",
        carried / (m * G)
    );
}

#[test]
fn without_damping_the_block_gains_no_energy() {
    // The bundled drop with every dissipation off (connectors, contact damping, friction): the
    // mechanical energy may only oscillate by Verlet's bounded error, no drift upward.
    let text = std::fs::read_to_string(example()).unwrap();
    let text = text
        .replace("damping = 2e-3", "damping = 0.0")
        .replace("contact_damping = 7.6e4", "contact_damping = 0.0")
        .replace("friction = 0.5", "friction = 0.0")
        .replace("duration = 2.0", "duration = 0.5");
    let desc = parse_scene(&text, "drop.toml").unwrap();
    let d = &desc.deformables[0];
    assert_eq!(
        (
            d.spec.material.damping,
            d.contact.damping,
            d.contact.friction
        ),
        (0.0, 0.0, 0.0)
    );
    let mut w = worlds_of(&desc).worlds.remove(0);
    let h = desc.simulation.settings.time_step;
    let e0 = w.mechanical_energy();
    let mut integ = Integrator::default();
    let mut worst: f64 = 0.0;
    for _ in 0..50_000 {
        integ.step(&mut w, d.integrator, h, false).unwrap();
        worst = worst.max(w.mechanical_energy() / e0 - 1.0);
    }
    println!("max (E - E0)/E0 = {worst:.3e}");
    // Verlet's energy error is bounded by a factor 1/(1 − s²/4) per mode, s = ω τ
    // (docs/deformable.md, "Integrators"), with ω at most the Gershgorin bound ω_max: no gain
    // beyond (ω_max τ)²/4 of E0 (a drift would exceed it over 50,000 steps). The bound is the
    // linear analysis; the contact springs switch on and off, which it does not cover, so the
    // margin matters: measured 1.2e-5 against 1.4e-4.
    let s = w.max_frequency() * h;
    let bound = s * s / 4.0 / (1.0 - s * s / 4.0);
    println!("ω_max τ = {s:.3e}, bound {bound:.3e}");
    assert!(
        worst < bound,
        "energy gained: {worst:.3e} of E0, bound {bound:.3e}"
    );
}

#[test]
fn a_block_dropped_on_a_fixed_box_rests_on_its_top_face() {
    // The bundled drop (2 s) onto a fixed 0.6 m × 0.6 m × 0.2 m box (top face at z = 0.2 m) turned
    // 30° about z, the ground below it: the block lands on the box's top face and rests there.
    let text = std::fs::read_to_string(example()).unwrap()
        .replace("position = [0.0, 0.0, 0.1]", "position = [0.0, 0.0, 0.3]")
        + "\n[[body]]\nname = \"table\"\nfixed = true\nshape = { type = \"box\", size = [0.6, 0.6, 0.2] }\nposition = [0.0, 0.0, 0.1]\norientation = { axis = [0.0, 0.0, 1.0], angle_deg = 30.0 }\n";
    let desc = parse_scene(&text, "table.toml").unwrap();
    let built = worlds_of(&desc);
    assert!(built.coupler.rigid.is_empty(), "{:?}", built.coupler.rigid);
    let mut w = built.worlds.into_iter().next().unwrap();
    assert_eq!((w.planes.len(), w.polytopes.len()), (1, 1));
    let d = &desc.deformables[0];
    let h = desc.simulation.settings.time_step;
    let mut integ = Integrator::default();
    for _ in 0..200_000 {
        integ.step(&mut w, d.integrator, h, false).unwrap();
    }
    let m = w.free_mass();
    let z = w.x.iter().zip(&w.mass).map(|(x, m)| x.z * m).sum::<f64>() / m;
    let bound = m * G / d.contact.stiffness;
    let deepest = w.max_penetration();
    let max_speed = w.v.iter().map(|v| v.length()).fold(0.0, f64::max);
    println!("centroid z {z:.6e} m, deepest {deepest:.3e} m (bound {bound:.3e}), max speed {max_speed:.3e} m/s");
    // Resting on the top face (z = 0.2 m): the centroid half the block's height above it, less
    // the sinking and the block's sag (each below 1 mm, as on the ground).
    assert!((z - 0.25).abs() < 1e-3, "centroid z {z}");
    // The same bound as on the ground: the contact forces at rest sum to M g.
    assert!(deepest > 0.0 && deepest <= bound, "{deepest} vs {bound}");
    assert!(max_speed < 1e-4, "{max_speed}");
    assert_eq!(w.contacts(), 9);
}

/// A free rigid body the deformables touch is stepped explicitly on their contact springs: a
/// time step above its bound 2/ω (every free particle pressing on it, `rigid_frequency`) is
/// refused at `simulation.time_step`, naming the body and the bound. A 0.1 g ball of 5 cm on the
/// ten particles of the beam (1e5 N/m each): ω² = 1e6 (1/m + R² ‖J⁻¹‖_F) = 5.3e10, 2/ω = 8.66e-6 s
/// < 1e-5 s; at 1 g it is 2.7e-5 s and the scene builds.
#[test]
fn a_time_step_too_long_for_a_light_coupled_rigid_body_is_refused() {
    let ball = |mass: f64| {
        format!("{BASE}\n[[body]]\nname = \"pebble\"\nmass = {mass}\nshape = {{ type = \"sphere\", radius = 0.05 }}\nposition = [0.0, 0.0, 1.0]\n")
    };
    let e = error(&ball(1e-4));
    assert_eq!((e.line, e.key.as_str()), (1, "simulation.time_step"), "{e}");
    assert!(
        e.message.contains("rigid body `pebble`") && e.message.contains("8.663e-6 s"),
        "{e}"
    );
    assert!(e.hint.contains("heavier"), "{e}");
    let desc = parse_scene(&ball(1e-3), "t.toml").unwrap();
    scene::build(desc).unwrap();
}

/// `adaptive_tolerance`: Deguet's energy-based adaptive steps (§4.2) inside each scene step. The
/// bundled drop with scene steps of 1 ms — 100 times the fixed-step scene's, and above the
/// network's stable step 2/ω_max, which a fixed step would be refused for — and ε_e = 1e-6 J:
/// every accepted step keeps its energy balance error within ε_e (none forced), no step is
/// longer than the scene's, they add up to the duration, and the block comes to rest at its static
/// equilibrium on the penalty springs (`common::lattice_rest_height`), where the fixed-step run
/// (200,000 steps of 10 µs) rests too.
#[test]
fn adaptive_steps_divide_each_scene_step_and_keep_their_energy_error() {
    let text = std::fs::read_to_string(example()).unwrap();
    let text = text
        .replace("time_step = 1e-5", "time_step = 1e-3")
        .replace(
            "particle_interval = 0.05",
            "particle_interval = 0.05\nadaptive_tolerance = 1e-6",
        );
    let desc = parse_scene(&text, "adaptive.toml").unwrap();
    assert_eq!(desc.deformables[0].adaptive, Some((1e-6, None)));
    let mut sim =
        signorini::simulation::Simulation::new(scene::build(desc).unwrap(), None, &[]).unwrap();
    while !sim.finished() {
        sim.step().unwrap();
    }
    let d = sim.deformables().unwrap();
    let a = d.adaptive_stats(0).unwrap();
    let w = &d.worlds[0];
    let (c, _) = w.free_centroid();
    eprintln!("{a:?}; centroid {c}; time {}", w.time);
    assert_eq!(a.forced, 0);
    assert!(a.max_error <= 1e-6, "{}", a.max_error);
    // (The smallest may be below h/1024: the last step of a scene step is clipped to what is
    // left of it.)
    assert!(a.largest <= 1e-3, "{a:?}");
    assert!((a.total - 2.0).abs() < 1e-9, "{}", a.total);
    // The static rest of the block on its penalty springs (each bottom particle sunk by the
    // weight of its column, 3 m g, over λ_c = 1e5 N/m): 4.980743e-2 m. Measured: 2.4e-12 m
    // off (the fixed-step run: 1.4e-14); held to 1e-8 m. (The energy rule alone would allow a
    // bounce of √(2 ε_e/M)/ω ≈ 1.5e-6 m on the contact springs, ω ≈ 950 rad/s; the damping of
    // connectors and contacts takes it out over the 2 s.)
    let m = 1.0 / 27.0;
    let rest =
        common::lattice_rest_height(0.1, 3, m, 1e5, (0.1f64 / 3.0).powi(2), G, 3.0 * m * G / 1e5);
    assert!((c.z - rest).abs() < 1e-8, "{c} vs {rest}");
    // At rest up to what the rule lets through: each step may gain ε_e, a kinetic energy
    // ½ M v² = ε_e is v = √(2 ε_e / M) = 1.4e-3 m/s for the 1 kg block (measured 5.1e-4; the
    // fixed run's 3.2e-6).
    let speed = w.v.iter().map(|v| v.length()).fold(0.0, f64::max);
    assert!(speed < (2.0 * 1e-6 / w.free_mass()).sqrt(), "{speed}");
}
