//! Contact Jacobian rows (`dynamics::jacobian`): J·ν must be the relative velocity of the two
//! contact points along the direction, for random states, with fixed bodies contributing nothing.
mod common;

use common::{
    body_state, initial_state, model, proptest_config, rotation, settings, single_piece,
    unit_cube_point, unit_vector, EPS,
};
use proptest::prelude::*;
use signorini::dynamics::jacobian::{contact_row, generalized_velocity};
use signorini::dynamics::{Body, Integrator, Model, Piece};
use signorini::geometry::{Pose, Shape};
use signorini::DVec3;

/// Bodies in the order dynamic, fixed, dynamic, dynamic: the generalized velocity skips the fixed
/// one, so the offsets are 0, –, 6, 12.
fn four_bodies() -> Model {
    let dynamic = |name: &str| {
        Body::dynamic(
            name,
            single_piece(Shape::sphere(0.3).unwrap()),
            Some(1.5),
            1.0,
            0,
        )
        .unwrap()
    };
    let ground = Body::fixed(
        "ground",
        vec![Piece {
            shape: Shape::half_space(DVec3::Z).unwrap(),
            pose: Pose::IDENTITY,
        }],
        0,
    );
    model(
        vec![dynamic("a"), ground, dynamic("b"), dynamic("c")],
        settings(1e-3, Integrator::SemiImplicitEuler, DVec3::ZERO),
    )
}

fn vec3(range: f64) -> impl Strategy<Value = DVec3> {
    unit_cube_point().prop_map(move |v| v * range)
}

/// Random position, orientation, velocity and angular velocity of one body.
fn body() -> impl Strategy<Value = (DVec3, signorini::DQuat, DVec3, DVec3)> {
    (vec3(5.0), rotation(), vec3(3.0), vec3(4.0))
}

#[test]
fn dof_offsets_skip_fixed_bodies() {
    let m = four_bodies();
    assert_eq!(m.dof_offsets(), vec![Some(0), None, Some(6), Some(12)]);
    assert_eq!(m.dof_count(), 18);
}

proptest! {
    #![proptest_config(proptest_config(128))]

    #[test]
    fn generalized_velocity_stacks_v_then_omega_of_dynamic_bodies(states in proptest::collection::vec(body(), 4)) {
        let m = four_bodies();
        let s = initial_state(states.iter().map(|&(x, q, v, w)| body_state(x, q, v, w)).collect());
        let nu = generalized_velocity(&m, &s);
        prop_assert_eq!(nu.len(), 18);
        for (body, offset) in [(0usize, 0usize), (2, 6), (3, 12)] {
            let b = &s.bodies[body];
            prop_assert_eq!(&nu[offset..offset + 3], &b.velocity.to_array()[..]);
            prop_assert_eq!(&nu[offset + 3..offset + 6], &b.angular_velocity.to_array()[..]);
        }
    }

    #[test]
    fn contact_row_times_generalized_velocity_is_the_relative_point_velocity_along_the_direction(
        states in proptest::collection::vec(body(), 4),
        pair in prop_oneof![Just((0usize, 2usize)), Just((3, 0)), Just((2, 3)), Just((1, 2)), Just((3, 1))],
        (p_a, p_b) in (vec3(6.0), vec3(6.0)),
        dir in unit_vector(),
    ) {
        let m = four_bodies();
        let mut s = initial_state(states.iter().map(|&(x, q, v, w)| body_state(x, q, v, w)).collect());
        // A fixed body does not move whatever its state says; give it nonzero velocities anyway to
        // check that the row ignores them.
        prop_assume!(s.bodies[1].velocity != DVec3::ZERO);
        let offsets = m.dof_offsets();
        let nu = generalized_velocity(&m, &s);
        let (a, b) = pair;
        let row = contact_row(&m, &s, &offsets, (a, p_a), (b, p_b), dir);

        // Velocity of the material point of body i at world point p: v + ω × (p − x), zero for the
        // fixed body.
        let point_velocity = |i: usize, p: DVec3| {
            if m.bodies[i].fixed {
                DVec3::ZERO
            } else {
                let bs = &s.bodies[i];
                bs.velocity + bs.angular_velocity.cross(p - bs.position)
            }
        };
        let expect = (point_velocity(b, p_b) - point_velocity(a, p_a)).dot(dir);
        let got = row.dot(&nu);
        // Sum of ≤ 12 products of terms ≤ |v| + |ω||r|: round-off ≤ 16 ε times their total size.
        let size = [a, b].iter().map(|&i| s.bodies[i].velocity.length() + s.bodies[i].angular_velocity.length() * 20.0).sum::<f64>();
        prop_assert!((got - expect).abs() <= 16.0 * EPS * size, "J·ν = {} vs relative velocity {} (diff {:e})", got, expect, got - expect);

        // One 6-block per dynamic body, at that body's offset, and none for the fixed one.
        let dynamic: Vec<usize> = [a, b].into_iter().filter(|&i| !m.bodies[i].fixed).map(|i| offsets[i].unwrap()).collect();
        let blocks: Vec<usize> = row.blocks.iter().map(|(o, _)| *o).collect();
        prop_assert_eq!(blocks, dynamic);

        // The row is linear in ν and depends on nothing else: changing the velocities changes J·ν
        // by the relative velocity the change produces (here: a pure translation of B).
        if !m.bodies[b].fixed {
            s.bodies[b].velocity += dir;
            let nu2 = generalized_velocity(&m, &s);
            let row2 = contact_row(&m, &s, &offsets, (a, p_a), (b, p_b), dir);
            prop_assert_eq!(&row2, &row);
            prop_assert!((row.dot(&nu2) - got - 1.0).abs() <= 16.0 * EPS * (size + 1.0));
        }
    }

    /// `DelassusRows` read three ways agree with the dense W = G M⁻¹ Gᵀ of `delassus`: `entry`
    /// and `principal_block` bit for bit (the same terms summed in the same order as the stored
    /// rows), `mul` (W z as G (M⁻¹ (Gᵀ z)), the terms in another order) within 1e-12 of
    /// Σ_s |W_rs z_s| per row (≤ 12 rows on random pairs of the four bodies: n ε ≈ 3e-15).
    #[test]
    fn delassus_entries_blocks_and_products_are_the_dense_matrix(
        states in proptest::collection::vec(body(), 4),
        rows_spec in proptest::collection::vec((0usize..5, vec3(6.0), vec3(6.0), unit_vector()), 1..12),
        pick in 2usize..5,
        z_seed in proptest::collection::vec(-2.0f64..2.0, 12),
    ) {
        use signorini::dynamics::jacobian::{delassus, DelassusRows, InverseMass};
        let m = four_bodies();
        let s = initial_state(states.iter().map(|&(x, q, v, w)| body_state(x, q, v, w)).collect());
        let offsets = m.dof_offsets();
        let pairs = [(0usize, 2usize), (3, 0), (2, 3), (1, 2), (3, 1)];
        let rows: Vec<_> = rows_spec
            .iter()
            .map(|&(p, pa, pb, d)| contact_row(&m, &s, &offsets, (pairs[p].0, pa), (pairs[p].1, pb), d))
            .collect();
        let inv = InverseMass::new(&m, &s);
        let dense = delassus(&rows, &inv);
        let w = DelassusRows::new(&rows, &inv);
        let n = rows.len();
        for r in 0..n {
            for c in 0..n {
                prop_assert_eq!(w.entry(r, c).to_bits(), dense[(r, c)].to_bits());
            }
        }
        let alpha: Vec<usize> = (0..n).filter(|i| i % pick != 1).collect();
        let block = w.principal_block(&alpha);
        for (i, &r) in alpha.iter().enumerate() {
            for (j, &c) in alpha.iter().enumerate() {
                prop_assert_eq!(block[(i, j)].to_bits(), dense[(r, c)].to_bits());
            }
        }
        let z = &z_seed[..n];
        let product = w.mul(z);
        for r in 0..n {
            let exact: f64 = (0..n).map(|c| dense[(r, c)] * z[c]).sum();
            let size: f64 = (0..n).map(|c| (dense[(r, c)] * z[c]).abs()).sum();
            prop_assert!((product[r] - exact).abs() <= 1e-12 * size.max(1e-300), "row {}: {} vs {}", r, product[r], exact);
        }
    }
}
