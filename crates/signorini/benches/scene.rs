//! Scene loading (criterion): parse and build a scene of 1,000 to 20,000 boxes on a ground plane,
//! as `signorini check` does, to show that loading grows linearly with the file (issue 21 item 2:
//! it once grew quadratically, 21.7 s for 20,000 bodies; the target is ≤ 1 s).
//! Run: `cargo bench -p signorini --bench scene`.
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use signorini::scene::{build, parse_scene};
use std::fmt::Write as _;
use std::time::Duration;

/// A scene file of `n` unit-mass 0.1 m boxes on a 100-wide grid above a ground plane.
fn boxes(n: usize) -> String {
    let mut text = String::from(
        "[simulation]\ntime_step = 1e-3\nduration = 1.0\n\
         [[material]]\nname = \"m\"\nfriction = 0.5\n\
         [[body]]\nname = \"ground\"\nfixed = true\nmaterial = \"m\"\n\
         shape = { type = \"halfspace\", normal = [0.0, 0.0, 1.0] }\n",
    );
    for i in 0..n {
        let (x, y) = ((i % 100) as f64 * 0.2, (i / 100) as f64 * 0.2);
        write!(
            text,
            "[[body]]\nname = \"b{i}\"\nmass = 1.0\nmaterial = \"m\"\n\
             shape = {{ type = \"box\", size = [0.1, 0.1, 0.1] }}\nposition = [{x}, {y}, 0.5]\n"
        )
        .expect("writing to a String");
    }
    text
}

fn bench_scene_loading(c: &mut Criterion) {
    let mut group = c.benchmark_group("scene_load");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(10));
    for n in [1_000, 4_000, 20_000] {
        let text = boxes(n);
        group.throughput(Throughput::Elements(n as u64));
        group.bench_with_input(BenchmarkId::from_parameter(n), &text, |b, text| {
            b.iter(|| build(parse_scene(text, "boxes.toml").expect("parses")).expect("builds"))
        });
    }
    group.finish();
}

criterion_group!(benches, bench_scene_loading);
criterion_main!(benches);
