//! The box of polyhedra (`experiments::peg`; Williams, Lu & Trinkle 2016 §6.2, fig. 24): the
//! statistics of the sweep checked against hand-computed values, the reduced sweep's scene and
//! order, and the floors of issue 4 on the reduced sweep (`Sweep::quick`).
use signorini::experiments::peg::{
    self, floors, quartiles, sort_runs, summarize, Run, Sweep, PEG, STANDARD,
};
use std::path::Path;

fn pour_scene() -> signorini::scene::Scene {
    signorini::scene::load(Path::new("../../examples/pour_3d.toml")).unwrap()
}

/// A run with the given overlaps after each step, step time and counts; energies all 0.
fn run(model: &str, h: f64, seed: u64, overlap: &[f64], seconds: f64) -> Run {
    Run {
        model: model.into(),
        seed,
        time_step: h,
        planned: overlap.len() as u64,
        steps: overlap.len() as u64,
        error: None,
        overlap: overlap.to_vec(),
        energy: vec![0.0; overlap.len() + 1],
        solver_failures: 0,
        trap_steps: 0,
        step_seconds: seconds,
        max_rows: 0,
    }
}

// ---------------------------------------------------------------------------------------------
// Statistics
// ---------------------------------------------------------------------------------------------

#[test]
fn quartiles_interpolate_between_order_statistics() {
    // Type 7: the p-quantile sits at position p (n − 1) of the sorted values. n = 4: positions
    // 0.75, 1.5, 2.25 of [1, 2, 3, 4] → 1.75, 2.5, 3.25 (all exact in binary).
    assert_eq!(quartiles(&[4.0, 1.0, 3.0, 2.0]), (1.75, 2.5, 3.25));
    // n = 5: positions 1, 2, 3 exactly.
    assert_eq!(
        quartiles(&[40.0, 0.0, 30.0, 10.0, 20.0]),
        (10.0, 20.0, 30.0)
    );
    // n = 3 unsorted: positions 0.5, 1, 1.5 of [1, 2, 3].
    assert_eq!(quartiles(&[3.0, 1.0, 2.0]), (1.5, 2.0, 2.5));
    // n = 2: positions 0.25, 0.5, 0.75 of [0, 8].
    assert_eq!(quartiles(&[8.0, 0.0]), (2.0, 4.0, 6.0));
    assert_eq!(quartiles(&[5.0]), (5.0, 5.0, 5.0));
    let (a, b, c) = quartiles(&[]);
    assert!(a.is_nan() && b.is_nan() && c.is_nan());
}

#[test]
fn run_figures_follow_their_definitions() {
    let mut r = run(PEG, 0.004, 1, &[0.0, 4.0, 0.0, 2.0, 0.0], 1.0);
    r.energy = vec![1.0, 1.5, 1.25, 2.0, 1.0, 1.0];
    assert_eq!(r.mean_overlap(), 6.0 / 5.0);
    assert_eq!(r.max_overlap(), 4.0);
    assert_eq!(r.median_overlap(), 0.0);
    // Gains: 0.5, −0.25, 0.75, −1, 0.
    assert_eq!(r.max_energy_gain(), 0.75);
    assert_eq!(r.seconds_per_step(), 0.2);
    assert!(r.completed());
    r.error = Some("stopped".into());
    assert!(!r.completed());
}

#[test]
fn summaries_group_by_model_and_step_in_order() {
    let mut a = run(STANDARD, 0.016, 2, &[2.0, 4.0], 3.0); // mean 3
    a.solver_failures = 1;
    a.max_rows = 12;
    let mut b = run(STANDARD, 0.016, 1, &[1.0, 1.0, 1.0, 1.0], 1.0); // mean 1
    b.trap_steps = 2;
    b.max_rows = 30;
    let mut c = run(STANDARD, 0.016, 3, &[8.0], 1.0); // mean 8, stopped after 1 of 3 steps
    c.planned = 3;
    c.error = Some("speed".into());
    let d = run(PEG, 0.016, 1, &[0.0, 0.0], 0.5);
    let e = run(PEG, 0.004, 1, &[1e-12], 0.25);
    // Any input order gives the same summaries, sorted by (model, h).
    let s = summarize(&[a, d, b, e, c]);
    let keys: Vec<(&str, f64)> = s.iter().map(|s| (s.model.as_str(), s.time_step)).collect();
    assert_eq!(keys, [(PEG, 0.004), (PEG, 0.016), (STANDARD, 0.016)]);
    let st = &s[2];
    assert_eq!((st.runs, st.completed, st.errors), (3, 2, 1));
    // Quartiles over seeds of the run means 1, 3, 8: positions 0.5, 1, 1.5.
    assert_eq!(st.overlap_quartiles, (2.0, 3.0, 5.5));
    // Pooled over the 7 steps: (6 + 4 + 8) / 7.
    assert_eq!(st.mean_overlap, 18.0 / 7.0);
    assert_eq!(st.max_overlap, 8.0);
    assert_eq!((st.solver_failures, st.trap_steps, st.steps), (1, 2, 7));
    assert_eq!(st.seconds_per_step, 5.0 / 7.0);
    assert_eq!(st.max_rows, 30);
    assert_eq!(s[1].mean_overlap, 0.0);
    assert_eq!(s[1].overlap_quartiles, (0.0, 0.0, 0.0));
}

#[test]
fn floors_compare_each_step_size_and_judge_zero_overlaps() {
    let runs = [
        run(STANDARD, 0.004, 1, &[1e-9], 1.0),
        run(PEG, 0.004, 1, &[1e-12], 2.0),
        run(STANDARD, 0.008, 1, &[1e-9], 1.0),
        run(PEG, 0.008, 1, &[0.0], 4.0),
        run(STANDARD, 0.016, 1, &[0.0], 1.0),
        run(PEG, 0.016, 1, &[0.0], 1.0),
        // A step size with PEG only gives no row.
        run(PEG, 0.032, 1, &[0.0], 1.0),
    ];
    let mut s = summarize(&runs);
    s.iter_mut()
        .find(|s| s.model == PEG && s.time_step == 0.008)
        .unwrap()
        .solver_failures = 2;
    let f = floors(&s);
    let hs: Vec<f64> = f.iter().map(|f| f.time_step).collect();
    assert_eq!(hs, [0.004, 0.008, 0.016]);
    // 1e-9 / 1e-12 = 1000 (to round-off), 2× the time: met, met, met.
    assert!((f[0].overlap_ratio - 1000.0).abs() < 1e-9);
    assert_eq!(f[0].time_ratio, 2.0);
    assert!(f[0].overlap_met() && f[0].time_met() && f[0].failures_met());
    // PEG exactly 0: an infinite ratio meets the floor; 4× the time and 2 failures do not.
    assert_eq!(f[1].overlap_ratio, f64::INFINITY);
    assert!(f[1].overlap_met() && !f[1].time_met() && !f[1].failures_met());
    // Both 0: nothing was compared, the floor is not met.
    assert!(f[2].overlap_ratio.is_nan() && !f[2].overlap_met());
}

// ---------------------------------------------------------------------------------------------
// The sweep
// ---------------------------------------------------------------------------------------------

#[test]
fn sweep_jobs_are_every_model_step_and_seed_in_order() {
    let full = Sweep::full();
    let jobs = full.jobs();
    assert_eq!(jobs.len(), 2 * 5 * 10);
    let mut sorted = jobs.clone();
    sorted.reverse();
    peg::sort_jobs(&mut sorted);
    assert_eq!(sorted, jobs);
    assert_eq!(
        (jobs[0].model.as_str(), jobs[0].time_step, jobs[0].seed),
        (PEG, 0.001, 1)
    );
    assert_eq!(
        (jobs[10].model.as_str(), jobs[10].time_step, jobs[10].seed),
        (PEG, 0.002, 1)
    );
    let last = jobs.last().unwrap();
    assert_eq!(
        (last.model.as_str(), last.time_step, last.seed),
        (STANDARD, 0.016, 10)
    );
    // Runs sort the same way.
    let mut runs: Vec<Run> = jobs
        .iter()
        .rev()
        .map(|j| run(&j.model, j.time_step, j.seed, &[0.0], 0.0))
        .collect();
    sort_runs(&mut runs);
    assert!(runs
        .iter()
        .zip(&jobs)
        .all(|(r, j)| (r.model.as_str(), r.time_step, r.seed)
            == (j.model.as_str(), j.time_step, j.seed)));
}

#[test]
fn quick_sweep_keeps_the_first_bodies_of_the_full_scene() {
    let scene = pour_scene();
    let quick = Sweep::quick().apply(&scene).unwrap();
    assert_eq!(quick.model.settings.duration, 1.5);
    assert_eq!(quick.model.bodies.len(), 1 + 3, "the box and 3 polyhedra");
    // The kept bodies are drawn exactly as in the full scene (same poses, masses, releases).
    for i in 0..quick.model.bodies.len() {
        let (q, f) = (&quick.model.bodies[i], &scene.model.bodies[i]);
        assert_eq!(q.name, f.name);
        assert_eq!(q.mass, f.mass);
        assert_eq!(q.release_time, f.release_time);
        assert_eq!(quick.initial.bodies[i], scene.initial.bodies[i]);
    }
    // Released at 0, 0.5 and 1 s: all three fall within the 1.5 s.
    assert_eq!(quick.model.bodies[3].release_time, 1.0);
    // The full sweep keeps the scene as it is.
    let full = Sweep::full().apply(&scene).unwrap();
    assert_eq!(full.model.bodies.len(), scene.model.bodies.len());
    assert_eq!(full.model.settings.duration, 5.0);
}

#[test]
fn sweep_rejects_empty_or_non_positive_settings() {
    let scene = pour_scene();
    let bad = [
        Sweep {
            seeds: vec![],
            ..Sweep::quick()
        },
        Sweep {
            time_steps: vec![0.004, 0.0],
            ..Sweep::quick()
        },
        Sweep {
            time_steps: vec![f64::NAN],
            ..Sweep::quick()
        },
        Sweep {
            duration: Some(-1.0),
            ..Sweep::quick()
        },
        Sweep {
            bodies: Some(0),
            ..Sweep::quick()
        },
    ];
    for s in bad {
        let e = s.apply(&scene).unwrap_err();
        assert!(!e.to_string().is_empty(), "{s:?}");
    }
}

#[test]
fn a_run_of_the_sweep_is_bit_reproducible() {
    let scene = Sweep::quick().apply(&pour_scene()).unwrap();
    for model in [PEG, STANDARD] {
        let a = peg::run(&scene, model, 2, 0.016).unwrap();
        let b = peg::run(&scene, model, 2, 0.016).unwrap();
        assert_eq!(a.overlap, b.overlap, "{model}");
        assert_eq!(a.energy, b.energy, "{model}");
        assert_eq!(a.steps, a.planned, "{model}: {:?}", a.error);
    }
}

// ---------------------------------------------------------------------------------------------
// The floors (issue 4) on the reduced sweep
// ---------------------------------------------------------------------------------------------

/// Every run of `sweep` on the pour scene, in job order (the runs in parallel, each
/// single-threaded and deterministic).
fn run_sweep(sweep: &Sweep) -> Vec<Run> {
    use rayon::prelude::*;
    let scene = sweep.apply(&pour_scene()).unwrap();
    sweep
        .jobs()
        .par_iter()
        .map(|j| peg::run(&scene, &j.model, j.seed, j.time_step).unwrap())
        .collect()
}

/// The floors of issue 4 on `Sweep::quick` (2 seeds × h ∈ {4, 16} ms, 3 polyhedra, 1.5 s): no
/// PEG solver failure, and PEG's mean overlap volume (pooled over steps and seeds) at least 100×
/// below the standard model's at 16 ms and below it at 4 ms. Measured (docs/peg.md): PEG 1.3e-13
/// and 5.1e-13 m³ against 4.5e-13 and 9.7e-11 m³, ratios 3.4 and 192. At 4 ms the quick sweep's
/// three bodies spend most of it resting, where the standard model is exact too once each
/// island's LCP is solved to its own scale (docs/solvers.md, "At scale": before, a resting body
/// was solved only to 1e-8 of a falling body's speed and the ratio read 986); the 100× floor at
/// every step size is checked on the paper's whole sweep (`full_sweep_meets_the_overlap_floor`).
/// The time floor (PEG at most 3× the standard model's time per step) is a speed claim:
/// `signorini experiment pour-3d` measures and judges it, not a test on a shared machine.
#[test]
fn quick_sweep_meets_the_floors() {
    let sweep = Sweep::quick();
    let runs = run_sweep(&sweep);
    for r in &runs {
        assert!(
            r.completed(),
            "{} h = {} seed {}: {} of {} steps, {:?}",
            r.model,
            r.time_step,
            r.seed,
            r.steps,
            r.planned,
            r.error
        );
    }
    let summaries = summarize(&runs);
    let rows = floors(&summaries);
    assert_eq!(rows.len(), sweep.time_steps.len());
    let report = summaries
        .iter()
        .map(|s| {
            format!(
                "{} h = {}: mean overlap {:.3e} m³, {:.3e} s/step, {} failures, {} trap steps",
                s.model,
                s.time_step,
                s.mean_overlap,
                s.seconds_per_step,
                s.solver_failures,
                s.trap_steps
            )
        })
        .collect::<Vec<_>>()
        .join("\n");
    for f in &rows {
        assert!(
            f.failures_met(),
            "h = {}: {} PEG solver failures\n{report}",
            f.time_step,
            f.peg_solver_failures
        );
        let floor = if f.time_step >= 0.016 {
            peg::OVERLAP_RATIO_FLOOR
        } else {
            1.0
        };
        assert!(
            f.overlap_ratio >= floor,
            "h = {}: standard/PEG mean overlap {:.3e} < {floor}\n{report}",
            f.time_step,
            f.overlap_ratio,
        );
    }
}

/// The overlap and failure floors of issue 4 on the paper's sweep (`Sweep::full`: 10 seeds × h ∈
/// {1, 2, 4, 8, 16} ms, 10 polyhedra, 5 s; the runs in parallel, each single-threaded): PEG's
/// pooled mean overlap at least 100× below the standard model's at every step size, no PEG
/// solver failure, every run completed. Measured: ratios 1120, 293, 1516, 695, 148.
#[test]
fn full_sweep_meets_the_overlap_floor() {
    let runs = run_sweep(&Sweep::full());
    assert!(runs.iter().all(|r| r.completed()));
    let rows = floors(&summarize(&runs));
    assert_eq!(rows.len(), 5);
    for f in &rows {
        assert!(
            f.failures_met(),
            "h = {}: {} PEG failures",
            f.time_step,
            f.peg_solver_failures
        );
        assert!(
            f.overlap_met(),
            "h = {}: standard/PEG mean overlap {:.3e} < {}",
            f.time_step,
            f.overlap_ratio,
            peg::OVERLAP_RATIO_FLOOR
        );
    }
}

/// Determinism (developers' guide): the same scene and options give bit-identical trajectories.
/// The quick pour scene (3 polyhedra into the box, 1.5 s) at h = 4 ms under PEG, twice: every
/// body's position, orientation and velocities after every step agree to the bit (PEG keeps
/// per-constraint memory in hash maps, used for lookups only, and its passes must not depend on
/// anything but the state).
#[test]
fn peg_pour_trajectories_are_bit_identical_between_runs() {
    use signorini::experiments::simulate;
    let mut sc = Sweep::quick().apply(&pour_scene()).unwrap();
    sc.model.settings.time_step = 0.004;
    let record = || {
        let mut bits: Vec<u64> = Vec::new();
        simulate(&sc, Some(PEG), |state, _| {
            for b in &state.bodies {
                let q = b.orientation;
                for x in b
                    .position
                    .to_array()
                    .into_iter()
                    .chain([q.x, q.y, q.z, q.w])
                    .chain(b.velocity.to_array())
                    .chain(b.angular_velocity.to_array())
                {
                    bits.push(x.to_bits());
                }
            }
        })
        .unwrap();
        bits
    };
    let (first, second) = (record(), record());
    assert!(first.len() > 375 * 4 * 13, "{} values", first.len());
    assert!(first == second, "the two runs differ");
}
