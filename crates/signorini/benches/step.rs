//! Time per step of each example scene (criterion). Each scene is first run for a while so the
//! measured steps are typical (the pile has landed, the stack has settled), then stepped on.
//! The `scale` group times the constraint models' scale scenes (issue 15) from a fixed state: the
//! 10-box stack under `stewart-trinkle`, and the 64- and 200-box bins as their boxes land (after
//! 0.4 s), each iteration one step from that same state (a bin left to run on would reach its
//! settled pile, whose steps take seconds; `docs/solvers.md`, "At scale").
//! Run: `cargo bench -p signorini --bench step`.
use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use signorini::contact::ContactModel;
use signorini::dynamics::State;
use signorini::pipeline::{step, Workspace};
use signorini::scene;
use std::path::Path;
use std::time::Duration;

/// (scene, seconds simulated before measuring)
const SCENES: [(&str, f64); 4] = [
    ("block_penetrating_plane.toml", 0.5),
    ("resting_block_perturbed.toml", 0.5),
    ("box_stack.toml", 0.5),
    ("pile.toml", 1.5),
];

/// `examples/FILE` under its own model (or `model_name`), stepped for `warm` simulated seconds:
/// the scene, the contact model, the state and the workspace.
fn warmed(
    examples: &Path,
    file: &str,
    model_name: Option<&str>,
    warm: f64,
) -> (scene::Scene, ContactModel, State, Workspace) {
    let scene = scene::load(&examples.join(file)).expect("bundled scene loads");
    let (mut model, _) = scene.contact_model(model_name).expect("model builds");
    let mut state = scene.initial.clone();
    let mut ws = Workspace::new();
    let warm_steps = (warm / scene.model.settings.time_step) as usize;
    for _ in 0..warm_steps {
        step(&scene.model, &mut state, &mut ws, &mut model).expect("bundled scene steps");
    }
    (scene, model, state, ws)
}

fn bench_steps(c: &mut Criterion) {
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples");
    let mut group = c.benchmark_group("step");
    group
        .sample_size(20)
        .measurement_time(Duration::from_secs(5));
    for (file, warm) in SCENES {
        let (scene, mut model, mut state, mut ws) = warmed(&examples, file, None, warm);
        group.bench_function(file.trim_end_matches(".toml"), |b| {
            b.iter(|| {
                step(&scene.model, &mut state, &mut ws, &mut model).expect("bundled scene steps")
            })
        });
    }
    group.finish();
}

/// (scene, contact model, seconds simulated before the measured state)
const SCALE: [(&str, &str, f64); 3] = [
    ("box_stack.toml", "stewart-trinkle", 0.5),
    ("bin_64.toml", "stewart-trinkle", 0.4),
    ("bin_200.toml", "stewart-trinkle", 0.4),
];

fn bench_scale(c: &mut Criterion) {
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples");
    let mut group = c.benchmark_group("scale");
    group
        .sample_size(20)
        .measurement_time(Duration::from_secs(5));
    for (file, model_name, warm) in SCALE {
        let (scene, mut model, state, _) = warmed(&examples, file, Some(model_name), warm);
        let name = format!("{}/{model_name}", file.trim_end_matches(".toml"));
        group.bench_function(name, |b| {
            b.iter_batched(
                || (state.clone(), Workspace::new()),
                |(mut s, mut w)| {
                    step(&scene.model, &mut s, &mut w, &mut model).expect("bundled scene steps")
                },
                BatchSize::SmallInput,
            )
        });
    }
    group.finish();
}

criterion_group!(benches, bench_steps, bench_scale);
criterion_main!(benches);
