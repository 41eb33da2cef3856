//! The multi-point penalty method's cost against the number of contact points (Drumwright 2008,
//! §III-A claims O(N log N)), and against the LCP model (stewart-trinkle) on the same scenes.
//!
//! Scenes: a right prism with N sides (`Shape::cylinder` with N segments, radius 0.3 m, height
//! 0.1 m, 10 kg) resting on one of its flat faces on the ground, 0.5 mm deep: the bottom face's N
//! corners are the contact points (the narrow phase's manifold for stewart-trinkle, the bottom of
//! the intersection for multi-point). A table — N, µs per step of each model, their ratio, and
//! multi-point's µs per step / (N log₂ N) — is printed first from a timed loop in the same run,
//! then criterion measures the steps and the bottom-point procedure alone on N random points.
//! `SIGNORINI_PENALTY_TABLE=only` prints the table alone.
//! Run: `cargo bench -p signorini --bench penalty`.
use criterion::{BenchmarkId, Criterion};
use signorini::contact::{ContactModel, ParamInput};
use signorini::dynamics::{Body, BodyState, Integrator, Material, Model, Piece, Settings, State};
use signorini::geometry::penetration::bottom_points_incremental;
use signorini::geometry::{Pose, Shape};
use signorini::pipeline::{step, Workspace};
use signorini::util::rng::Rng;
use signorini::{DQuat, DVec3};
use std::time::{Duration, Instant};

const SIDES: [u32; 7] = [4, 8, 16, 32, 64, 128, 256];
const MODELS: [&str; 2] = ["multi-point", "stewart-trinkle"];

/// The prism with `sides` sides resting on the ground.
fn prism(sides: u32) -> (Model, State) {
    let ground = Body::fixed(
        "ground",
        vec![Piece {
            shape: Shape::half_space(DVec3::Z).unwrap(),
            pose: Pose::IDENTITY,
        }],
        0,
    );
    let prism = Body::dynamic(
        "prism",
        vec![Piece {
            shape: Shape::cylinder(0.3, 0.1, sides).unwrap(),
            pose: Pose::IDENTITY,
        }],
        Some(10.0),
        1.0,
        0,
    )
    .unwrap();
    let model = Model {
        bodies: vec![ground, prism],
        materials: vec![Material {
            name: "default".into(),
            friction: 0.5,
            restitution: 0.0,
        }],
        settings: Settings {
            time_step: 1e-3,
            integrator: Integrator::SemiImplicitEuler,
            ..Settings::default()
        },
        forces: Vec::new(),
    };
    let at = |z: f64| BodyState {
        position: DVec3::new(0.0, 0.0, z),
        orientation: DQuat::IDENTITY,
        velocity: DVec3::ZERO,
        angular_velocity: DVec3::ZERO,
    };
    let state = State {
        time: 0.0,
        step: 0,
        bodies: vec![at(0.0), at(0.05 - 5e-4)],
        external: Vec::new(),
    };
    (model, state)
}

/// The contact model `name`; multi-point with the stiff gains of the perturbed-block experiment.
fn contact_model(name: &str) -> ContactModel {
    let params: Vec<(String, ParamInput)> = if name == "multi-point" {
        [("kp", 1e5), ("kv", 2000.0), ("ki", 2000.0)]
            .iter()
            .map(|&(n, v)| (n.to_string(), ParamInput::Number(v)))
            .collect()
    } else {
        Vec::new()
    };
    signorini::contact::build(name, &params).expect("model builds")
}

/// A prism scene stepped 50 times (the springs settle), ready to be stepped on.
struct Running {
    model: Model,
    state: State,
    ws: Workspace,
    cm: ContactModel,
}

impl Running {
    fn new(sides: u32, name: &str) -> Self {
        let (model, state) = prism(sides);
        let mut r = Running {
            model,
            state,
            ws: Workspace::new(),
            cm: contact_model(name),
        };
        for _ in 0..50 {
            r.step();
        }
        r
    }

    /// One step; the number of points that carried a force.
    fn step(&mut self) -> usize {
        step(&self.model, &mut self.state, &mut self.ws, &mut self.cm)
            .expect("the prism steps")
            .model_stats
            .active_points
    }
}

fn table() {
    println!(
        "multi-point vs stewart-trinkle: a prism with N sides resting on a face (µs per step)"
    );
    println!(
        "{:>5} {:>8} {:>14} {:>16} {:>8} {:>20}",
        "N", "points", "multi-point", "stewart-trinkle", "ratio", "MP / (N log2 N) (ns)"
    );
    for sides in SIDES {
        let mut us = [0.0; 2];
        let mut points = 0;
        for (i, name) in MODELS.iter().enumerate() {
            let mut r = Running::new(sides, name);
            let reps = (20_000 / sides as usize).clamp(20, 5000);
            let start = Instant::now();
            for _ in 0..reps {
                let p = r.step();
                if i == 0 {
                    points = p;
                }
            }
            us[i] = 1e6 * start.elapsed().as_secs_f64() / reps as f64;
        }
        let n = sides as f64;
        println!(
            "{:>5} {:>8} {:>14.1} {:>16.1} {:>8.3} {:>20.1}",
            sides,
            points,
            us[0],
            us[1],
            us[0] / us[1],
            1e3 * us[0] / (n * n.log2())
        );
    }
}

fn criterion_benches(c: &mut Criterion) {
    let mut group = c.benchmark_group("penalty_step");
    group
        .sample_size(20)
        .measurement_time(Duration::from_secs(3));
    for sides in SIDES {
        for name in MODELS {
            let mut r = Running::new(sides, name);
            group.bench_with_input(BenchmarkId::new(name, sides), &sides, |b, _| {
                b.iter(|| r.step())
            });
        }
    }
    group.finish();
    let mut group = c.benchmark_group("bottom_points_incremental");
    group.sample_size(20);
    let mut rng = Rng::new(2008);
    for n in [64usize, 256, 1024, 4096, 16384] {
        let points: Vec<DVec3> = (0..n)
            .map(|_| {
                DVec3::new(
                    rng.uniform(-1.0, 1.0),
                    rng.uniform(-1.0, 1.0),
                    rng.uniform(-1.0, 1.0),
                )
            })
            .collect();
        group.bench_with_input(BenchmarkId::from_parameter(n), &points, |b, p| {
            b.iter(|| bottom_points_incremental(p, DVec3::Z))
        });
    }
    group.finish();
}

fn main() {
    let mode = std::env::var("SIGNORINI_PENALTY_TABLE").unwrap_or_default();
    if mode != "skip" {
        table();
    }
    if mode == "only" {
        return;
    }
    let mut c = Criterion::default().configure_from_args();
    criterion_benches(&mut c);
    c.final_summary();
}
