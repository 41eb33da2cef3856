//! PEG against the standard-model traps (Williams, Lu & Trinkle 2016, figs 2, 3, 5–6) in 3D, on
//! the bundled scenes `examples/peg_corner_trap.toml` (fig. 2: a vertex driven at a convex
//! corner), `peg_slot_trap.toml` (fig. 3: two traps at once) and `peg_tips.toml` (figs 5–6:
//! vertex against vertex). Each scene runs under PEG and under the standard model
//! (stewart-trinkle, same time stepper, same solvers) with `experiments::peg::run`, which
//! measures the exact overlap volume of all pairs (`metrics::overlap`) and the kinetic +
//! gravitational energy after every step.
#[allow(dead_code)]
mod common;

use signorini::contact::ParamInput;
use signorini::experiments::peg::{run, Run};
use signorini::scene::{self, Scene};
use std::path::Path;

fn scene(name: &str) -> Scene {
    let path = format!("{}/../../examples/{name}.toml", env!("CARGO_MANIFEST_DIR"));
    scene::load(Path::new(&path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn both(name: &str, h: f64) -> (Run, Run) {
    let sc = scene(name);
    let standard = run(&sc, "stewart-trinkle", 0, h).unwrap();
    let peg = run(&sc, "peg", 0, h).unwrap();
    for r in [&standard, &peg] {
        assert!(r.completed(), "{name} h = {h} {}: {:?}", r.model, r.error);
    }
    (standard, peg)
}

const TRAPS: [&str; 3] = ["peg_corner_trap", "peg_slot_trap", "peg_tips"];

/// The figure: PEG ends every step with less than 1e-10 m³ of overlap, at every step of
/// the pour sweep (measured at 8 and 16 ms before the rows moved to the carried pose: corner
/// 3.4e-17 / 2.3e-16, slot 3.7e-16 / 1.2e-14, tips 1.4e-18 / 8.8e-11 m³), while the standard model, on the same scenes, lets the bodies
/// overlap by more than 1e-9 m³ at 2 ms (measured: 5.0e-8, 2.6e-7, 3.8e-9 m³): it is trapped
/// and then penetrates.
#[test]
fn peg_keeps_every_trap_below_1e_10_cubic_metres_at_every_step() {
    for name in TRAPS {
        for h in [0.001, 0.002, 0.008, 0.016] {
            let (standard, peg) = both(name, h);
            assert!(
                peg.max_overlap() < 1e-10,
                "{name} h = {h}: PEG overlap {:e} m³",
                peg.max_overlap()
            );
            if h == 0.002 {
                assert!(
                    standard.max_overlap() > 1e-9,
                    "{name} h = {h}: the standard model is not trapped here ({:e} m³); the scene no longer tests anything",
                    standard.max_overlap()
                );
            }
            assert_eq!(peg.solver_failures, 0, "{name} h = {h}");
        }
    }
}

/// What holds the traps at large steps is the implicit gap prediction (each pass linearizes the
/// gaps about the pose the last pass's velocities lead to): with the gaps linearized about the
/// free motion only, the corner a contact impulse swings down goes in (measured at 16 ms: corner
/// 9.3e-8, slot 2.4e-5, tips 9.7e-9 m³, against at most 8.8e-11 implicit).
#[test]
fn implicit_gap_prediction_holds_the_traps_at_16_ms() {
    for name in TRAPS {
        let mut sc = scene(name);
        sc.set_param(
            "gap_prediction",
            ParamInput::Word("free-motion".into()),
            "test",
        );
        let free = run(&sc, "peg", 0, 0.016).unwrap();
        let implicit = run(&scene(name), "peg", 0, 0.016).unwrap();
        assert!(
            implicit.max_overlap() < 1e-10 && free.max_overlap() > 1e-9,
            "{name}: implicit {:e} m³, free-motion {:e} m³",
            implicit.max_overlap(),
            free.max_overlap()
        );
    }
}

/// No energy gain: on the corner and slot traps PEG's largest one-step increase of kinetic +
/// gravitational energy stays at round-off (measured 2.7e-15 J and 3.4e-14 J at 1 ms, for about
/// 1 J of energy: the bound 1e-9 J is 1e-9 relative), where the standard model's trap ejects the
/// cube (slot, h = 1 ms: +7.0e-6 J in one step). The tips scene gains energy under both models
/// alike (up to 3.8e-4 J per step at 1 ms, only in steps with one active contact, none in free
/// flight; cause not yet found, docs/peg.md), so it is not asserted here.
#[test]
fn peg_does_not_gain_energy_in_the_corner_and_slot_traps() {
    for name in ["peg_corner_trap", "peg_slot_trap"] {
        let (standard, peg) = both(name, 0.001);
        assert!(
            peg.max_energy_gain() < 1e-9,
            "{name}: PEG gains {:e} J in one step",
            peg.max_energy_gain()
        );
        if name == "peg_slot_trap" {
            assert!(
                standard.max_energy_gain() > 1e-7,
                "{name}: the standard model no longer ejects ({:e} J)",
                standard.max_energy_gain()
            );
        }
    }
}

/// `box_stack.toml` (10 equal cubes stacked exactly, on the ground) under PEG for 0.2 s: with the
/// coplanar-face rule of `collision::potential` every corner is one unilateral constraint, so
/// the subproblem has at most 10 interfaces × 4 corners × (1 normal + 4 friction directions +
/// 1 σ) = 240 rows, and no box sinks (a height change below −1e-9 m would be sinking; before the
/// rule the corners' three-member groups let the stack sink up to 9.8e-5 m in 0.05 s, at
/// 1100–1180 rows a step).
#[test]
fn stacked_equal_boxes_hold_one_constraint_per_corner_and_do_not_sink() {
    use signorini::experiments::simulate;
    let mut sc = scene("box_stack");
    sc.model.settings.duration = 0.2;
    let start: Vec<f64> = sc.initial.bodies.iter().map(|b| b.position.z).collect();
    let mut rows = 0;
    let end = simulate(&sc, Some("peg"), |_, report| {
        if let Some(s) = report.and_then(|r| r.model_stats.solve) {
            rows = rows.max(s.rows);
        }
    })
    .unwrap();
    assert!(rows > 0 && rows <= 240, "largest subproblem {rows} rows");
    for (i, b) in end.bodies.iter().enumerate() {
        let dz = b.position.z - start[i];
        assert!(
            dz > -1e-9,
            "{}: height change {dz:e} m",
            sc.model.bodies[i].name
        );
    }
}

/// The resting stack under PEG at h = 0.5, 1, 2 ms and 1/240 s for 1 s: no step's LCP goes past
/// the warm start (every constraint matched from last step proposes its force row, and a face's
/// four corners share its load: `contact_stewart_trinkle.rs`,
/// `the_resting_stack_holds_to_round_off…`), no solve fails, and the top box moves less than
/// 1e-12 m (measured ≤ 4.2e-15 m over 5 s; ≤ 6e-16 m over this 1 s). Before this warm start
/// PEG counted no warm-start attempt, so `missed` guards the new path only; the old runs' drift
/// over 1 s was not measured.
#[test]
fn the_resting_stack_holds_to_round_off_and_its_warm_start_holds_at_every_step() {
    for h in [5e-4, 1e-3, 2e-3, 1.0 / 240.0] {
        let r = common::resting_stack("peg", h, 1.0);
        eprintln!("peg, h = {h}: {r:?}");
        assert!(
            r.missed == 0 && r.failed == 0 && r.drift < 1e-12,
            "h = {h}: {r:?}"
        );
    }
}

/// PEG's islands (`contact/peg/islands.rs`): on three steps of the 3D pour with several islands,
/// the islands' LCPs scattered into the step's layout are the step's whole LCP entry for entry
/// (it is block diagonal over islands: their constraints share no body), and their answers,
/// each island's by Lemke's method, combined, solve the whole LCP to the solvers' tolerance.
#[test]
fn the_islands_lcps_are_the_steps_lcp_and_their_answers_solve_it() {
    use signorini::contact::peg::check_islands;
    let scene = scene::load(Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/pour_3d.toml"
    )))
    .unwrap_or_else(|e| panic!("{e}"));
    let mut sim = signorini::Simulation::new(scene, Some("peg"), &[]).unwrap();
    let mut checked = Vec::new();
    let mut slack_rows = 0;
    for until in [1.0, 2.0, 3.0] {
        sim.run_until(until, |_, _| {}).unwrap();
        let contacts = sim.contacts().to_vec();
        let check = check_islands(sim.model(), sim.state(), &contacts);
        assert!(check.same_problem, "at {until} s: {check:?}");
        assert!(check.residual <= 1e-8, "at {until} s: {check:?}");
        // The matrix-free operator Lemke's warm start reads: its entries are the dense
        // matrix's bit for bit (same sums in the same order); its product M z + q sums in
        // another order, so it agrees to round-off: a few ulps of the largest term, 1e-13
        // relative leaves a factor of ~400 over f64's 2.2e-16 for sums of tens of terms.
        assert!(check.operator_entries_match, "at {until} s: {check:?}");
        assert!(
            check.operator_product_error <= 1e-13,
            "at {until} s: {check:?}"
        );
        checked.push((check.islands, check.constraints));
        slack_rows = slack_rows.max(check.slack_rows);
    }
    // Measured: 2, 4 and 4 islands (5, 12 and 20 constraints) at 1, 2 and 3 s.
    assert!(checked.iter().all(|&(i, _)| i >= 2), "{checked:?}");
    // Measured: these steps pose no slack rows (no several-member constraint), so the
    // operator's slack blocks (W_Δ, E_P, L) are not compared here: not done.
    eprintln!("slack rows on the steps checked: {slack_rows}");
}

/// A vertex on the other box's edge whose edge turns in under that edge (the vertex–edge
/// configuration of eq. 36; measured first on `bin_64.toml`, spawn seed 3, t = 0.456 s, box_29
/// against box_45). B is a fixed unit cube; A, a 0.2 m cube, has its vertex v 1e-9 m outside
/// B's +y face and 1e-7 m below the plane of B's +z face, on B's edge {y = z = 0.5} (along x),
/// and its edge e_a from v runs nearly along that edge: yawed φ = 0.1 rad into −y, pitched
/// θ = 2e-3 rad up, so that it enters B at once and leaves through the +z face 5e-5 m from v,
/// its far end v₁ 0.4 mm above B's top. The lines of e_a and B's edge cross 3e-8 m from v at
/// ψ = −1e-7 m (v's group holds through the +y face, v₁ is outside). A turns at 2 rad/s about
/// the y axis through v₁, so that v slides down B's +y face at 0.4 m/s and e_a turns in under
/// B's edge: nothing but the pair (e_a, B's edge) can stop it (no vertex of either box enters
/// the other). Without its group (the crossing nearer v than |ψ| was left to v's vertex
/// group) the first step ends with e_a 0.75 mm under B's edge (measured: below). With it the
/// narrow phase's deepest contact stays below the 1e-6 m for constraint models (the
/// passes' `gap_tolerance` is 1e-7 m), and the overlap, a sliver of depth δ and slopes φ, θ of
/// volume about δ³/(φθ), below 1e-15 m³.
#[test]
fn an_edge_leaving_a_vertex_on_an_edge_does_not_turn_in_under_it() {
    use signorini::metrics::overlap::overlap_volume;
    use signorini::simulation::{BodyBuilder, ModelBuilder, Simulation};
    use signorini::{DQuat, DVec3};
    let (l, phi, theta) = (0.2, 0.1, 2e-3);
    // Yaw, pitch, and a roll of 0.05 rad about e_a that lifts A's bottom face off B's edge (its
    // edge from v along A's y then passes B's edge line above it, on the extension).
    let q = DQuat::from_rotation_z(-phi)
        * DQuat::from_rotation_y(-theta)
        * DQuat::from_rotation_x(0.05);
    let v = DVec3::new(0.0, 0.5 + 1e-9, 0.5 - 1e-7);
    let centre = v + q * DVec3::splat(l / 2.0);
    let far = v + q * DVec3::new(l, 0.0, 0.0);
    let omega = DVec3::new(0.0, -2.0, 0.0);
    let scene = ModelBuilder::new()
        .time_step(2e-3)
        .duration(0.02)
        .gravity(DVec3::ZERO)
        .material("m", 0.0, 0.0)
        .body(BodyBuilder::cuboid("b", DVec3::ONE).fixed().material("m"))
        .body(
            BodyBuilder::cuboid("a", DVec3::splat(l))
                .density(1000.0)
                .material("m")
                .position(centre)
                .orientation(q)
                .velocity(omega.cross(centre - far))
                .angular_velocity(omega),
        )
        .build()
        .unwrap();
    let mut sim = Simulation::new(scene, Some("peg"), &[]).unwrap();
    let start = overlap_volume(sim.model(), sim.state());
    let (mut depth, mut volume) = (0.0f64, 0.0f64);
    while !sim.finished() {
        let report = sim.step().unwrap();
        depth = depth.max(report.max_penetration);
        volume = volume.max(overlap_volume(sim.model(), sim.state()));
        eprintln!(
            "t = {:.3}: deepest contact {:.3e} m, overlap {:.3e} m³",
            sim.state().time,
            report.max_penetration,
            overlap_volume(sim.model(), sim.state())
        );
    }
    eprintln!("start overlap {start:.3e} m³");
    assert!(
        depth <= 1e-6 && volume <= 1e-15,
        "deepest contact {depth:e} m, overlap {volume:e} m³"
    );
}
