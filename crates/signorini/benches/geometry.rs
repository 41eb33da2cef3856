//! Time of the intersection polytope and of the exact overlap volume (criterion): box–box, random
//! hulls of 12 and 50 points, sphere–polytope. Each case is a fixed overlapping configuration
//! (seeded), so the figures compare across machines and commits.
//! Run: `cargo bench -p signorini --bench geometry`.
use criterion::{criterion_group, criterion_main, Criterion};
use signorini::geometry::{intersect, overlap_volume, Polytope, Pose, Shape};
use signorini::util::rng::Rng;
use signorini::DVec3;
use std::hint::black_box;
use std::sync::Arc;
use std::time::Duration;

/// Hull of `n` points uniform in the unit ball.
fn hull(rng: &mut Rng, n: usize) -> Polytope {
    let pts: Vec<DVec3> = (0..n)
        .map(|_| rng.unit_vector() * rng.next_f64().cbrt())
        .collect();
    Polytope::from_points(&pts).expect("random cloud spans a volume")
}

/// A pose that overlaps a unit-size body at the origin deeply but not completely.
fn near(rng: &mut Rng) -> Pose {
    Pose::new(
        DVec3::new(0.5, 0.3, 0.2) + 0.1 * rng.unit_vector(),
        rng.rotation(),
    )
}

fn bench_geometry(c: &mut Criterion) {
    let mut rng = Rng::new(2024);
    let cube = Polytope::cuboid(DVec3::splat(0.5));
    let cases: Vec<(&str, Polytope, Polytope)> = vec![
        ("box-box", cube.clone(), cube.clone()),
        ("hull12-hull12", hull(&mut rng, 12), hull(&mut rng, 12)),
        ("hull50-hull50", hull(&mut rng, 50), hull(&mut rng, 50)),
    ];
    let mut group = c.benchmark_group("geometry");
    group
        .sample_size(50)
        .measurement_time(Duration::from_secs(3));
    let pa = Pose::new(DVec3::ZERO, rng.rotation());
    for (name, a, b) in &cases {
        let pb = near(&mut rng);
        let i = intersect(a, &pa, b, &pb).expect("the bench pairs overlap");
        println!(
            "{name}: intersection of {} vertices, {} faces, volume {:.4} m³",
            i.vertices.len(),
            i.faces.len(),
            i.volume
        );
        group.bench_function(format!("intersect/{name}"), |bench| {
            bench.iter(|| intersect(black_box(a), &pa, black_box(b), &pb))
        });
        let (sa, sb) = (
            Shape::Polytope(Arc::new(a.clone())),
            Shape::Polytope(Arc::new(b.clone())),
        );
        group.bench_function(format!("overlap_volume/{name}"), |bench| {
            bench.iter(|| overlap_volume(black_box(&sa), &pa, black_box(&sb), &pb))
        });
    }
    let ball = Shape::Sphere { radius: 0.6 };
    for (name, p) in [
        ("sphere-box", cube.clone()),
        ("sphere-hull12", hull(&mut rng, 12)),
        ("sphere-hull50", hull(&mut rng, 50)),
    ] {
        let sp = Shape::Polytope(Arc::new(p));
        let pb = near(&mut rng);
        println!(
            "{name}: overlap {:.6} m³",
            overlap_volume(&ball, &pb, &sp, &pa)
        );
        group.bench_function(format!("overlap_volume/{name}"), |bench| {
            bench.iter(|| overlap_volume(black_box(&ball), &pb, black_box(&sp), &pa))
        });
    }
    group.finish();
}

criterion_group!(benches, bench_geometry);
criterion_main!(benches);
