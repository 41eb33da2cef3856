//! Building scenes: what `[[spawn]] release_interval` does to the bodies (held at their initial
//! state, out of every collision pair, until i × interval), checked by stepping the built scene;
//! spawned bodies never start overlapping (checked pair by pair by the narrow phase), and a
//! spawn without room is refused at its `spacing`.
use signorini::collision::BroadPhase;
use signorini::contact::build;
use signorini::pipeline::{step, Workspace};
use signorini::scene::{build as build_scene, parse_scene};

/// Three boxes spawned in a row 1 m above the ground, released every 0.1 s, falling onto a
/// half-space under the deepest-point model.
const SCENE: &str = r#"
[simulation]
time_step = 1e-3
duration = 0.5

[[body]]
name = "ground"
fixed = true
shape = { type = "halfspace", normal = [0.0, 0.0, 1.0] }

[[spawn]]
name = "part"
count = 3
seed = 4
lattice = [3, 1, 1]
spacing = [0.5, 0.5, 0.5]
origin = [0.0, 0.0, 1.0]
mass = 1.0
shapes = [{ type = "box", size = [0.1, 0.1, 0.1] }]
release_interval = 0.1
"#;

/// Body i is released at i × 0.1 s: before, its state is bit-for-bit its initial state and the
/// broad phase pairs it with nothing (not even the ground it would reach); after, it falls freely
/// from rest, so its drop after t − t_i is g (t − t_i)² / 2 (semi-implicit Euler: g h² n(n+1)/2
/// for n steps, which the assertion uses exactly to 1e-12 m).
#[test]
fn spawned_bodies_are_held_until_their_release_time() {
    let scene = build_scene(parse_scene(SCENE, "release.toml").unwrap()).unwrap();
    let m = &scene.model;
    let ids: Vec<usize> = (0..3)
        .map(|i| m.body_index(&format!("part_{i}")).unwrap())
        .collect();
    for (i, &b) in ids.iter().enumerate() {
        assert_eq!(m.bodies[b].release_time, i as f64 * 0.1);
    }
    let mut model = build("deepest-point", &[]).unwrap();
    let mut state = scene.initial.clone();
    let mut ws = Workspace::new();
    let mut broad = BroadPhase::default();
    let mut pairs = Vec::new();
    let h = m.settings.time_step;
    let g = 9.81;
    // A margin of 2 m reaches the ground from every box: only released bodies get pairs.
    for _ in 0..250 {
        broad.find_pairs(m, &state, 2.0, &mut pairs);
        for (i, &b) in ids.iter().enumerate() {
            let released = state.time >= i as f64 * 0.1;
            let paired = pairs.iter().any(|p| p.a.0 == b || p.b.0 == b);
            assert_eq!(paired, released, "body {i} at t = {}", state.time);
        }
        step(m, &mut state, &mut ws, &mut model).unwrap();
        for (i, &b) in ids.iter().enumerate() {
            let start = (i as f64 * 0.1 / h).round() as u64;
            let s = &state.bodies[b];
            if state.step <= start {
                assert_eq!(*s, scene.initial.bodies[b], "body {i} moved while held");
            } else {
                let n = (state.step - start) as f64;
                let drop = scene.initial.bodies[b].position.z - s.position.z;
                let expected = g * h * h * n * (n + 1.0) / 2.0;
                assert!(
                    (drop - expected).abs() < 1e-12,
                    "body {i} step {}: drop {drop}, expected {expected}",
                    state.step
                );
            }
        }
    }
}

/// Every pair of pieces of `scene`'s bodies, checked by the narrow phase with no broad-phase cull
/// (the oracle): the deepest overlap at the initial state (m), 0 when none.
fn deepest_initial_overlap(scene: &signorini::scene::Scene) -> f64 {
    use signorini::collision::narrow::pair_contacts;
    use signorini::dynamics::piece_pose;
    let (m, s) = (&scene.model, &scene.initial);
    let mut contacts = Vec::new();
    let mut deepest: f64 = 0.0;
    for a in 0..m.bodies.len() {
        for b in a + 1..m.bodies.len() {
            for (pa, piece_a) in m.bodies[a].pieces.iter().enumerate() {
                for (pb, piece_b) in m.bodies[b].pieces.iter().enumerate() {
                    contacts.clear();
                    pair_contacts(
                        &piece_a.shape,
                        &piece_pose(m, s, a, pa),
                        &piece_b.shape,
                        &piece_pose(m, s, b, pb),
                        0.0,
                        &mut contacts,
                    );
                    for c in &contacts {
                        deepest = deepest.max(-c.gap);
                    }
                }
            }
        }
    }
    deepest
}

/// `bin_64.toml`'s spawn draws sides of 0.1–0.3 m on a 0.45 m lattice with random orientations,
/// so a cell's box can reach into its neighbour's: seeds 17, 19 and 23 drew boxes overlapping by
/// 8.5, 16 and 1.5 mm. The spawn draws such a body's orientation again; no two bodies (the bin
/// included) start overlapping, for those seeds and a few others.
#[test]
fn spawned_bodies_never_start_overlapping() {
    let path =
        std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/bin_64.toml");
    let text = std::fs::read_to_string(&path).unwrap();
    for seed in [1, 3, 17, 19, 23] {
        let seeded = text.replace("seed = 1\n", &format!("seed = {seed}\n"));
        let scene = build_scene(parse_scene(&seeded, "bin_64.toml").unwrap()).unwrap();
        assert_eq!(scene.model.bodies.len(), 65);
        let deepest = deepest_initial_overlap(&scene);
        assert!(deepest == 0.0, "seed {seed}: bodies overlap by {deepest} m");
    }
}

/// A spawn whose cells cannot hold its bodies apart is refused at load time, at its `spacing`;
/// one that puts a body inside a body of the scene, at its `origin`; one whose random offsets do
/// either, at its `jitter`.
#[test]
fn a_spawn_without_room_is_refused_at_the_key_that_placed_it() {
    let tight = |random: bool| {
        format!(
            r#"
[[spawn]]
name = "part"
count = 2
seed = 4
lattice = [2, 1, 1]
spacing = [0.5, 1.0, 1.0]
origin = [0.0, 0.0, 1.0]
random_orientation = {random}
mass = 1.0
shapes = [{{ type = "box", size = [0.8, 0.8, 0.8] }}]
"#
        )
    };
    for random in [false, true] {
        let text = tight(random);
        let e = build_scene(parse_scene(&text, "tight.toml").unwrap()).unwrap_err();
        let line = text[..text.find("spacing").unwrap()].matches('\n').count() + 1;
        assert_eq!((e.line, e.key.as_str()), (line, "spawn[0].spacing"), "{e}");
        assert!(e.message.contains("`part_1` overlaps `part_0`"), "{e}");
        assert!(e.hint.contains("widen `spacing`"), "{e}");
    }
}

#[test]
fn a_spawn_into_a_scene_body_is_refused_at_its_origin_or_jitter() {
    for (jitter, key) in [(0.0, "origin"), (0.01, "jitter")] {
        let text = format!(
            r#"
[[body]]
name = "block"
fixed = true
shape = {{ type = "box", size = [1.0, 1.0, 1.0] }}

[[spawn]]
name = "part"
count = 1
seed = 4
lattice = [1, 1, 1]
spacing = [1.0, 1.0, 1.0]
origin = [0.0, 0.0, 0.2]
jitter = {jitter}
mass = 1.0
shapes = [{{ type = "box", size = [0.2, 0.2, 0.2] }}]
"#
        );
        let e = build_scene(parse_scene(&text, "inside.toml").unwrap()).unwrap_err();
        let line = text[..text.find(&format!("{key} =")).unwrap()]
            .matches('\n')
            .count()
            + 1;
        assert_eq!(
            (e.line, e.key.as_str()),
            (line, format!("spawn[0].{key}").as_str()),
            "{e}"
        );
        assert!(e.message.contains("`part_0` overlaps `block`"), "{e}");
    }
}
