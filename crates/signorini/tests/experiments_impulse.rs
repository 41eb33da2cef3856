//! The impulse loops' experiments (`experiments::impulse`): the box drop's claims (pure impulses:
//! the impact rate grows and the box sinks; microcollisions, the global option, Guendelman's loop
//! and the hybrid hold it), measured on the bundled scene.
use signorini::experiments::impulse::{box_drop, BOX_DROP_RUNS};
use std::path::Path;

#[test]
fn box_drop_pure_impulses_grow_their_impact_rate_and_sink_while_the_others_hold_the_box() {
    let mut scene = signorini::scene::load(Path::new("../../examples/box_drop.toml")).unwrap();
    scene.model.settings.duration = 2.0;
    let h = scene.model.settings.time_step;
    let runs: Vec<_> = BOX_DROP_RUNS
        .iter()
        .map(|r| box_drop(&scene, r, "box", 0.1, 1e-6).unwrap())
        .collect();
    let get = |label: &str| runs.iter().find(|r| r.label == label).unwrap();

    // Pure impulses: a few impacts per window while the box bounces, then its four corners at
    // every step (4/h per second) — and the box sinks at about g h / (1 + e) per second (5 mm
    // over the last second at e = 0.5, h = 1 ms; its corners are not all at the same depth).
    let seq = get("sequential");
    let first = seq.impact_rate.iter().find(|(_, r)| *r > 0.0).unwrap().1;
    assert!(first < 1.0 / h, "first window with impacts: {first}/s");
    assert_eq!(seq.late_impact_rate, 4.0 / h);
    assert!(seq.late_sinking > 5e-3, "sank {} m", seq.late_sinking);
    assert!(seq.rest_time.is_none());

    // Microcollisions: no sinking (it hops within δ_mc = 0.2 mm), never penetrating, fewer than
    // one impulse per step.
    let micro = get("microcollisions");
    assert!(micro.late_sinking.abs() < 2e-4, "{}", micro.late_sinking);
    assert_eq!(micro.late_penetration, 0.0);
    assert!(
        micro.late_impact_rate < 1.0 / h,
        "{}",
        micro.late_impact_rate
    );

    // Baraff's global option and the hybrid come to rest (kinetic energy below 1e-6 J to the end)
    // within the first second; Guendelman's loop holds the box without drift.
    for label in ["global", "hybrid"] {
        let r = get(label);
        assert!(
            r.rest_time.is_some_and(|t| t < 1.0),
            "{label}: {:?}",
            r.rest_time
        );
        assert!(r.late_sinking.abs() < 1e-6, "{label}: {}", r.late_sinking);
    }
    assert_eq!(get("global").late_impact_rate, 0.0);
    assert_eq!(get("hybrid").late_impact_rate, 0.0);
    let g = get("guendelman");
    assert!(g.late_sinking.abs() < 1e-5 && g.late_penetration == 0.0);
}
