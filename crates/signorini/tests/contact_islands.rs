//! Contact islands (`contact::islands`) and the island-split solve of the time-stepping models:
//! fixed bodies join nothing, a chain of contacts joins its bodies, the partition is ordered;
//! a body's motion does not depend on an island it is not in (bit for bit, whatever else is in
//! the scene); a run is bit-identical on one thread and on two. Both for `stewart-trinkle` and for
//! `peg`, whose subproblem splits into islands of constraints (`contact/peg/islands.rs`).
mod common;

use signorini::collision::Contact;
use signorini::contact::islands::partition;
use signorini::geometry::Feature;
use signorini::prelude::*;
use signorini::scene;
use std::path::PathBuf;

/// Bodies: 0 the fixed ground, 1..=5 dynamic boxes.
fn five_boxes_on_ground() -> signorini::Model {
    let mut b = ModelBuilder::new().time_step(1e-3).duration(1.0).ground();
    for i in 1..=5 {
        b = b.body(
            BodyBuilder::cuboid(&format!("box{i}"), DVec3::splat(0.2))
                .mass(1.0)
                .position(DVec3::new(i as f64, 0.0, 0.1)),
        );
    }
    b.build().unwrap().model
}

fn contact(a: usize, b: usize) -> Contact {
    Contact {
        body_a: a,
        body_b: b,
        piece_a: 0,
        piece_b: 0,
        point_a: DVec3::ZERO,
        point_b: DVec3::ZERO,
        normal: DVec3::Z,
        gap: 0.0,
        feature_a: Feature::Surface,
        feature_b: Feature::Surface,
    }
}

#[test]
fn fixed_bodies_join_nothing_and_chains_join_everything_on_them() {
    let model = five_boxes_on_ground();
    // Every box on the ground, and boxes 2–3–4 in a chain; 5 alone on the ground, 1 alone.
    let contacts = [
        contact(0, 1),
        contact(0, 2),
        contact(0, 5),
        contact(3, 4),
        contact(2, 3),
        contact(0, 4),
    ];
    let refs: Vec<&Contact> = contacts.iter().collect();
    let islands = partition(&model, &refs);
    // Ordered by first contact, contacts increasing within each.
    assert_eq!(islands, vec![vec![0], vec![1, 3, 4, 5], vec![2]]);
}

#[test]
fn the_partition_does_not_depend_on_the_order_of_joins() {
    let model = five_boxes_on_ground();
    // The same graph (a path 1–2–3–4–5) joined from either end: one island either way.
    let forward = [contact(1, 2), contact(2, 3), contact(3, 4), contact(4, 5)];
    let backward = [contact(4, 5), contact(3, 4), contact(2, 3), contact(1, 2)];
    for contacts in [&forward, &backward] {
        let refs: Vec<&Contact> = contacts.iter().collect();
        assert_eq!(partition(&model, &refs), vec![vec![0, 1, 2, 3]]);
    }
    // A contact between two fixed bodies (no unknown velocity) is an island of its own.
    let mut b = ModelBuilder::new().time_step(1e-3).duration(1.0).ground();
    b = b.body(BodyBuilder::cuboid("wall", DVec3::splat(0.2)).fixed());
    let model = b.build().unwrap().model;
    let c = contact(0, 1);
    assert_eq!(partition(&model, &[&c, &c]), vec![vec![0], vec![1]]);
}

/// Two towers on the ground: `a` boxes of 0.3 m and 1 kg at x = 0, and (when `with_b`) a tower
/// of 2 boxes of 0.5 m and 7 kg at x = 3 m.
fn towers(with_b: bool, model: &str) -> Scene {
    let mut b = ModelBuilder::new()
        .time_step(1e-3)
        .duration(1.0)
        .contact_model(model)
        .ground();
    for i in 0..3 {
        b = b.body(
            BodyBuilder::cuboid(&format!("a{i}"), DVec3::splat(0.3))
                .mass(1.0)
                .position(DVec3::new(0.0, 0.0, 0.15 + 0.3 * i as f64)),
        );
    }
    if with_b {
        for i in 0..2 {
            b = b.body(
                BodyBuilder::cuboid(&format!("b{i}"), DVec3::splat(0.5))
                    .mass(7.0)
                    .position(DVec3::new(3.0, 0.0, 0.25 + 0.5 * i as f64)),
            );
        }
    }
    b.build().unwrap()
}

/// The LCP is block diagonal over islands, so tower A's contact impulses — and its motion — are
/// those of tower A alone, bit for bit, when tower B stands beside it (both start at rest, so
/// the anticipating activation distance, a bound on every body's speed, is the same).
#[test]
fn an_island_moves_as_if_alone() {
    for model in ["stewart-trinkle", "peg"] {
        let mut alone = Simulation::new(towers(false, model), None, &[]).unwrap();
        let mut both = Simulation::new(towers(true, model), None, &[]).unwrap();
        let mut islands_seen = 0;
        for _ in 0..300 {
            alone.step().unwrap();
            let report = both.step().unwrap();
            if let Some(s) = report.model_stats.solve {
                islands_seen = islands_seen.max(s.islands);
            }
            for i in 1..=3 {
                let (a, b) = (&alone.state().bodies[i], &both.state().bodies[i]);
                assert_eq!(
                    a.position.to_array(),
                    b.position.to_array(),
                    "{model}: body {i}"
                );
                assert_eq!(
                    a.angular_velocity.to_array(),
                    b.angular_velocity.to_array(),
                    "{model}: body {i}"
                );
            }
        }
        assert_eq!(islands_seen, 2, "{model}: two towers, two islands");
    }
}

/// The 64-box bin for 0.4 s (`stewart-trinkle`) and 0.6 s (`peg`): from 0.2 s on its steps have
/// many islands, and enough contacts (LCP rows, under `peg`: 300) to solve them in parallel.
/// One thread and two threads give the same state, bit for bit.
#[test]
fn a_run_is_the_same_on_one_thread_and_on_two() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/bin_64.toml");
    for (model, duration) in [("stewart-trinkle", 0.4), ("peg", 0.6)] {
        let run = |threads: usize| {
            common::on_threads(threads, || {
                let scene = scene::load(&path).unwrap_or_else(|e| panic!("{e}"));
                let mut sim = Simulation::new(scene, Some(model), &[]).unwrap();
                let mut most = (0, 0);
                sim.run_until(duration, |_, report| {
                    if let Some(s) = report.model_stats.solve {
                        most = most.max((s.islands, s.rows));
                    }
                })
                .unwrap();
                (sim.into_state(), most)
            })
        };
        let (one, most) = run(1);
        let (two, _) = run(2);
        // Measured: 18 islands (300 rows) and 18 islands (812 rows) at most.
        assert!(
            most.0 >= 10 && most.1 >= 300,
            "{model}: (islands, rows) {most:?}"
        );
        common::assert_same_bodies(&one, &two);
    }
}
