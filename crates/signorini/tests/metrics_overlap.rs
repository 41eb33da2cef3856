//! Total overlap volume of a state (`metrics::overlap`): a hand-built scene with closed-form
//! overlaps (box in the ground, sphere in a wall, a compound body's piece in a box; fixed–fixed
//! overlaps and a compound body's own overlapping pieces not counted), and random scenes against
//! an all-pairs brute force without pruning.
mod common;
#[path = "common/geometry.rs"]
mod geom;

use common::{body_state, initial_state, model, settings, single_piece};
use signorini::dynamics::{Body, Integrator, Piece};
use signorini::geometry::{overlap, Pose, Shape};
use signorini::metrics::overlap::{overlap_volume, pair_overlaps};
use signorini::util::rng::Rng;
use signorini::{DQuat, DVec3};
use std::f64::consts::PI;

fn cube(half: DVec3) -> Shape {
    Shape::cuboid(2.0 * half).unwrap()
}

fn at(x: f64, y: f64, z: f64) -> Pose {
    Pose::new(DVec3::new(x, y, z), DQuat::IDENTITY)
}

fn still(position: DVec3) -> signorini::dynamics::BodyState {
    body_state(position, DQuat::IDENTITY, DVec3::ZERO, DVec3::ZERO)
}

#[test]
fn hand_built_scene_has_its_closed_form_overlaps() {
    let ground = Body::fixed(
        "ground",
        single_piece(Shape::HalfSpace { normal: DVec3::Z }),
        0,
    );
    let wall = Body::fixed(
        "wall",
        vec![Piece {
            shape: cube(DVec3::new(0.5, 2.0, 1.0)),
            pose: at(3.0, 0.0, 1.0),
        }],
        0,
    );
    let cube_body = Body::dynamic(
        "cube",
        single_piece(cube(DVec3::splat(0.5))),
        Some(1.0),
        1.0,
        0,
    )
    .unwrap();
    let ball = Body::dynamic(
        "ball",
        single_piece(Shape::sphere(0.5).unwrap()),
        Some(1.0),
        1.0,
        0,
    )
    .unwrap();
    // Two cubes of half 0.25 overlapping each other by 0.1 along x: one body, never paired.
    let compound = Body::dynamic(
        "compound",
        vec![
            Piece {
                shape: cube(DVec3::splat(0.25)),
                pose: at(-0.2, 0.0, 0.0),
            },
            Piece {
                shape: cube(DVec3::splat(0.25)),
                pose: at(0.2, 0.0, 0.0),
            },
        ],
        Some(1.0),
        1.0,
        0,
    )
    .unwrap();
    // A fixed box overlapping both the wall and the ground: fixed–fixed pairs are skipped.
    let post = Body::fixed(
        "post",
        vec![Piece {
            shape: cube(DVec3::new(0.2, 0.2, 1.0)),
            pose: at(2.6, 1.0, 0.5),
        }],
        0,
    );
    let m = model(
        vec![ground, wall, cube_body, ball, compound, post],
        settings(1e-3, Integrator::SemiImplicitEuler, DVec3::ZERO),
    );
    let delta = 0.01;
    let state = initial_state(vec![
        still(DVec3::ZERO),
        still(DVec3::ZERO),
        // Unit cube δ into the ground: δ · 1 m².
        still(DVec3::new(0.0, 0.0, 0.5 - delta)),
        // Ball 0.1 m into the wall's face x = 2.5: cap of height 0.1.
        still(DVec3::new(2.1, 0.0, 1.0)),
        // Left piece spans x ∈ [0.45, 0.95], 0.05 into the cube (x ≤ 0.5), 0.5 × 0.5 section.
        still(DVec3::new(0.9, 0.0, 0.5)),
        still(DVec3::ZERO),
    ]);
    let cap = PI * 0.1 * 0.1 * (3.0 * 0.5 - 0.1) / 3.0;
    let want = [(0, 2, delta), (1, 3, cap), (2, 4, 0.05 * 0.5 * 0.5)];
    let got = pair_overlaps(&m, &state);
    assert_eq!(got.len(), want.len(), "{got:?}");
    for ((a, b, v), (wa, wb, wv)) in got.iter().zip(want) {
        assert_eq!((*a, *b), (wa, wb));
        // Exact up to rounding (~1e-16 m on unit coordinates): 1e-12 relative.
        assert!((v - wv).abs() < 1e-12 * wv, "({a}, {b}): {v} vs {wv}");
    }
    let total = overlap_volume(&m, &state);
    assert!((total - (delta + cap + 0.0125)).abs() < 1e-12);
    // Same state, same bits.
    assert_eq!(total.to_bits(), overlap_volume(&m, &state).to_bits());
}

#[test]
fn random_scenes_match_all_pairs_without_pruning() {
    // 25 dynamic bodies (spheres, hulls, two-hull compounds) in a 2 m cube over a ground
    // half-space and a fixed box, random poses: the pruned, paired result equals the sum over
    // every piece of every pair of different bodies (not both fixed), computed without pruning.
    let mut rng = Rng::new(53);
    for _ in 0..10 {
        let mut bodies = vec![
            Body::fixed(
                "ground",
                single_piece(Shape::HalfSpace { normal: DVec3::Z }),
                0,
            ),
            Body::fixed(
                "block",
                vec![Piece {
                    shape: cube(DVec3::new(0.5, 0.5, 0.3)),
                    pose: at(0.5, 0.5, 0.3),
                }],
                0,
            ),
        ];
        let mut states = vec![still(DVec3::ZERO), still(DVec3::ZERO)];
        for k in 0..25 {
            let pieces = match k % 3 {
                0 => single_piece(Shape::sphere(rng.uniform(0.1, 0.3)).unwrap()),
                1 => {
                    let n = 4 + rng.below(20);
                    single_piece(geom::shape(geom::random_polytope(&mut rng, n, 0.3)))
                }
                _ => (0..2)
                    .map(|_| Piece {
                        shape: geom::shape(geom::random_polytope(&mut rng, 8, 0.2)),
                        pose: geom::random_pose(&mut rng, 0.15),
                    })
                    .collect(),
            };
            bodies.push(Body::dynamic("b", pieces, Some(1.0), 1.0, 0).unwrap());
            states.push(body_state(
                DVec3::new(
                    rng.uniform(-1.0, 1.0),
                    rng.uniform(-1.0, 1.0),
                    rng.uniform(-0.1, 1.9),
                ),
                rng.rotation(),
                DVec3::ZERO,
                DVec3::ZERO,
            ));
        }
        let m = model(
            bodies,
            settings(1e-3, Integrator::SemiImplicitEuler, DVec3::ZERO),
        );
        let state = initial_state(states);
        let mut want = Vec::new();
        for a in 0..m.bodies.len() {
            for b in a + 1..m.bodies.len() {
                if m.bodies[a].fixed && m.bodies[b].fixed {
                    continue;
                }
                let mut v = 0.0;
                for pa in &m.bodies[a].pieces {
                    for pb in &m.bodies[b].pieces {
                        v += overlap::overlap_volume(
                            &pa.shape,
                            &state.bodies[a].pose().mul(&pa.pose),
                            &pb.shape,
                            &state.bodies[b].pose().mul(&pb.pose),
                        );
                    }
                }
                if v != 0.0 {
                    want.push((a, b, v));
                }
            }
        }
        let got = pair_overlaps(&m, &state);
        assert_eq!(got, want);
        assert!(got.len() >= 3, "the scene must overlap somewhere: {got:?}");
        let total: f64 = want.iter().map(|p| p.2).sum();
        assert_eq!(overlap_volume(&m, &state), total);
    }
}

#[test]
fn a_non_finite_state_is_reported_as_nan() {
    let ground = Body::fixed("g", single_piece(Shape::HalfSpace { normal: DVec3::Z }), 0);
    let b = Body::dynamic(
        "b",
        single_piece(cube(DVec3::splat(0.5))),
        Some(1.0),
        1.0,
        0,
    )
    .unwrap();
    let m = model(
        vec![ground, b],
        settings(1e-3, Integrator::SemiImplicitEuler, DVec3::ZERO),
    );
    let state = initial_state(vec![
        still(DVec3::ZERO),
        still(DVec3::new(f64::NAN, 0.0, 0.0)),
    ]);
    let got = pair_overlaps(&m, &state);
    assert_eq!(got.len(), 1);
    assert!(got[0].2.is_nan());
    assert!(overlap_volume(&m, &state).is_nan());
}
