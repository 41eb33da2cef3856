//! The PEG paper's 2D experiments (Williams, Lu & Trinkle 2016, §6.1), built in code from the
//! numbers of the authors' MATLAB scripts (github.com/rpiRobotics/PEG, `simulator2D/PEG_testing/
//! scripts/box_of_poly.m` and `tri_drop.m`; read, not copied):
//!
//! - **Box of polygons** (figs 20–22): an open box of three fixed rectangles (floor 2 × 0.4 m with
//!   its top at y = 0; walls 0.4 × 2 m centred at x = ±1, y = 0.6), and random convex polygons —
//!   the hull of 10 points uniform in the unit square, less their mean, scaled by 0.25 — of mass
//!   0.25 kg and inertia 0.005 kg m² (the scripts' values), released one every round(0.25/h)
//!   steps, turned by a random angle, alternately at (−0.5, 0.8) m moving at +0.7 m/s and at
//!   (0.5, 0.8) m moving at −0.7 m/s; gravity 9.8 m/s², frictionless, 5 s (20 polygons). The
//!   metric is the total area of overlap after every step (`planar::overlap`). Both models keep
//!   the paper's ψ/h (`recovery = "full"`): PEG (`peg`) against the standard model
//!   (`stewart-trinkle`), as in the paper. Bodies not yet released are parked far away as fixed
//!   bodies (pairs of fixed bodies are never tested).
//! - **Triangle drop**: an equilateral triangle of circumradius √2 m (mass 1 kg, the scripts'
//!   inertia b h³/36 = 0.6495 kg m²) turned by π/3 (a vertex down) released from rest at (1, 5) m
//!   above a fixed equilateral triangle of circumradius 2√2 m at the origin (vertex up); no
//!   friction, g = 9.81 m/s², 1.5 s. The final position at h is compared with the run at
//!   h = 1e-4 s (self-convergence).
use crate::contact::ParamInput;
use crate::planar::shape::ConvexPolygon;
use crate::planar::{
    build, overlap, MassSpec, Material, PlanarBody, PlanarBodyState, PlanarModel, PlanarSettings,
    PlanarShape, PlanarState, PlanarWorld,
};
use crate::util::rng::Rng;
use glam::DVec2;

/// Mass (kg) and inertia (kg m²) of the box-of-polygons bodies (the authors' script).
pub const POLYGON_MASS: f64 = 0.25;
pub const POLYGON_INERTIA: f64 = 0.005;
/// Hull scale (m), points per hull, release interval (s), throw speed (m/s), gravity (m/s²).
pub const HULL_SCALE: f64 = 0.25;
pub const HULL_POINTS: usize = 10;
pub const RELEASE_INTERVAL: f64 = 0.25;
pub const THROW_SPEED: f64 = 0.7;
pub const BOX_GRAVITY: f64 = 9.8;

fn material() -> Vec<Material> {
    vec![Material {
        name: "frictionless".into(),
        friction: 0.0,
        restitution: 0.0,
    }]
}

fn fixed_box(name: &str, w: f64, h: f64, at: DVec2) -> (PlanarBody, PlanarBodyState) {
    let shape = PlanarShape::Polygon(ConvexPolygon::rectangle(w, h).expect("a valid box"));
    (
        PlanarBody::fixed(name, shape, 0),
        PlanarBodyState::at_rest(at, 0.0),
    )
}

/// Parameters of a model run with the paper's ψ/h.
fn paper_params() -> Vec<(String, ParamInput)> {
    vec![("recovery".into(), ParamInput::Word("full".into()))]
}

/// One box-of-polygons run.
#[derive(Clone, Debug, PartialEq)]
pub struct BoxRun {
    pub model: String,
    pub seed: u64,
    pub h: f64,
    /// Steps taken (fewer than planned when the run failed).
    pub steps: u64,
    pub planned: u64,
    /// The step error that ended the run early, if any.
    pub failure: Option<String>,
    /// Total overlap area after each step (m²).
    pub overlap: Vec<f64>,
    /// Narrow-phase contacts at the start of each step.
    pub contacts: Vec<usize>,
    /// PEG only: multi-member constraints and standard-model traps avoided per step.
    pub multi: Vec<usize>,
    pub traps: Vec<usize>,
    /// Kinetic + gravitational energy after each step less before it (J); a release step counts
    /// from the released body's energy (issue 17 item 4: no step may gain energy beyond what
    /// gravity supplies, which this sum already holds).
    pub energy_gain: Vec<f64>,
    /// Wall time spent in `PlanarWorld::step` (s), the measurements excluded.
    pub step_seconds: f64,
}

impl BoxRun {
    pub fn mean_overlap(&self) -> f64 {
        if self.overlap.is_empty() {
            0.0
        } else {
            self.overlap.iter().sum::<f64>() / self.overlap.len() as f64
        }
    }

    pub fn max_overlap(&self) -> f64 {
        self.overlap.iter().copied().fold(0.0, f64::max)
    }

    /// The largest energy gain of one step (J; ≤ 0 when no step gained energy).
    pub fn max_energy_gain(&self) -> f64 {
        self.energy_gain
            .iter()
            .copied()
            .fold(f64::NEG_INFINITY, f64::max)
    }

    /// Wall time per step (s).
    pub fn seconds_per_step(&self) -> f64 {
        self.step_seconds / self.steps.max(1) as f64
    }

    /// Fraction of steps with at least one standard-model trap avoided (PEG).
    pub fn trap_step_fraction(&self) -> f64 {
        if self.traps.is_empty() {
            0.0
        } else {
            self.traps.iter().filter(|&&t| t > 0).count() as f64 / self.traps.len() as f64
        }
    }

    /// Fraction of steps with at least one multi-member (I or X) constraint (PEG).
    pub fn multi_step_fraction(&self) -> f64 {
        if self.multi.is_empty() {
            0.0
        } else {
            self.multi.iter().filter(|&&t| t > 0).count() as f64 / self.multi.len() as f64
        }
    }
}

/// The random polygons of `seed`: (shape, angle), `count` of them.
pub fn random_polygons(seed: u64, count: usize) -> Vec<(ConvexPolygon, f64)> {
    let mut rng = Rng::new(seed);
    (0..count)
        .map(|_| {
            let pts: Vec<DVec2> = (0..HULL_POINTS)
                .map(|_| DVec2::new(rng.next_f64(), rng.next_f64()))
                .collect();
            let mean = pts.iter().copied().sum::<DVec2>() / HULL_POINTS as f64;
            let scaled: Vec<DVec2> = pts.iter().map(|p| (*p - mean) * HULL_SCALE).collect();
            let angle = std::f64::consts::TAU * rng.next_f64();
            (
                ConvexPolygon::from_points(&scaled).expect("10 random points span a hull"),
                angle,
            )
        })
        .collect()
}

/// Run the box of polygons with `model` ("peg" or "stewart-trinkle") at step `h` for `duration`
/// seconds, polygons of `seed`. A step error ends the run (recorded in `failure`).
pub fn box_of_polygons(model: &str, seed: u64, h: f64, duration: f64) -> BoxRun {
    box_of_polygons_with(model, &[], seed, h, duration)
}

/// [`box_of_polygons`] with the model's parameters `params` besides the paper's ψ/h (e.g. PEG's
/// `gap_prediction = "linear"`, the paper's own gap prediction).
pub fn box_of_polygons_with(
    model: &str,
    params: &[(String, ParamInput)],
    seed: u64,
    h: f64,
    duration: f64,
) -> BoxRun {
    box_of_polygons_inner(model, params, seed, h, duration, None).0
}

/// The world after step `stop` + 1 of a box-of-polygons run, and the state before that step
/// (for diagnosing one step).
pub fn box_of_polygons_trace(
    model: &str,
    seed: u64,
    h: f64,
    duration: f64,
    stop: u64,
) -> (PlanarWorld, PlanarState) {
    let (_, w) = box_of_polygons_inner(model, &[], seed, h, duration, Some(stop));
    w.expect("a traced run")
}

fn box_of_polygons_inner(
    model: &str,
    params: &[(String, ParamInput)],
    seed: u64,
    h: f64,
    duration: f64,
    stop: Option<u64>,
) -> (BoxRun, Option<(PlanarWorld, PlanarState)>) {
    let interval = (RELEASE_INTERVAL / h).round().max(1.0) as u64;
    let planned = (duration / h).round() as u64;
    let count = planned.div_ceil(interval) as usize;
    let mut bodies = vec![
        fixed_box("floor", 2.0, 0.4, DVec2::new(0.0, -0.2)),
        fixed_box("left", 0.4, 2.0, DVec2::new(-1.0, 0.6)),
        fixed_box("right", 0.4, 2.0, DVec2::new(1.0, 0.6)),
    ];
    let first = bodies.len();
    for (k, (poly, _)) in random_polygons(seed, count).into_iter().enumerate() {
        let mut b = PlanarBody::dynamic(
            &format!("polygon{k}"),
            PlanarShape::Polygon(poly),
            MassSpec::Mass(POLYGON_MASS),
            0,
        )
        .expect("a hull with area");
        b.inertia = POLYGON_INERTIA;
        // Parked: fixed and far apart until released.
        b.fixed = true;
        let park = DVec2::new(100.0 + 2.0 * k as f64, 100.0);
        bodies.push((b, PlanarBodyState::at_rest(park, 0.0)));
    }
    let angles: Vec<f64> = random_polygons(seed, count).iter().map(|p| p.1).collect();
    let (bodies, states): (Vec<_>, Vec<_>) = bodies.into_iter().unzip();
    let settings = PlanarSettings {
        time_step: h,
        duration,
        gravity: DVec2::new(0.0, -BOX_GRAVITY),
        ..PlanarSettings::default()
    };
    let mut all = paper_params();
    all.extend_from_slice(params);
    let cm = build(model, &all).expect("a planar model");
    let mut world = PlanarWorld::new(
        PlanarModel {
            bodies,
            materials: material(),
            settings,
        },
        PlanarState {
            time: 0.0,
            bodies: states,
        },
        cm,
    );
    let mut run = BoxRun {
        model: model.to_string(),
        seed,
        h,
        steps: 0,
        planned,
        failure: None,
        overlap: Vec::new(),
        contacts: Vec::new(),
        multi: Vec::new(),
        traps: Vec::new(),
        energy_gain: Vec::new(),
        step_seconds: 0.0,
    };
    let energy = |w: &PlanarWorld| w.state.kinetic_energy(&w.model) + w.state.potential_energy(&w.model);
    while world.steps < planned {
        if world.steps % interval == 0 {
            let k = (world.steps / interval) as usize;
            let i = first + k;
            if i < world.model.bodies.len() {
                // Bodies 1, 3, 5, … of the script (k even) from the left, moving right.
                let (x, vx) = if k % 2 == 0 {
                    (-0.5, THROW_SPEED)
                } else {
                    (0.5, -THROW_SPEED)
                };
                world.model.bodies[i].fixed = false;
                world.state.bodies[i] = PlanarBodyState {
                    position: DVec2::new(x, 0.8),
                    angle: angles[k],
                    velocity: DVec2::new(vx, 0.0),
                    angular_velocity: 0.0,
                };
            }
        }
        let before = world.state.clone();
        let energy_before = energy(&world);
        let clock = std::time::Instant::now();
        let result = world.step();
        run.step_seconds += clock.elapsed().as_secs_f64();
        if stop == Some(world.steps - 1) {
            run.steps = world.steps;
            return (run, Some((world, before)));
        }
        match result {
            Ok(report) => {
                run.contacts.push(report.contacts);
                if let Some(p) = report.peg {
                    run.multi.push(p.multi);
                    run.traps.push(p.traps);
                }
                run.overlap
                    .push(overlap::total_overlap(&world.model, &world.state));
                run.energy_gain.push(energy(&world) - energy_before);
            }
            Err(e) => {
                run.failure = Some(e.to_string());
                break;
            }
        }
    }
    run.steps = world.steps;
    (run, None)
}

/// The triangle-drop world at step `h` under `model`.
pub fn triangle_drop_world(model: &str, h: f64) -> PlanarWorld {
    let r = 2f64.sqrt();
    let triangle = |radius: f64| {
        ConvexPolygon::from_points(&[
            DVec2::new(0.0, radius),
            DVec2::new(-radius * (std::f64::consts::PI / 6.0).cos(), -radius * 0.5),
            DVec2::new(radius * (std::f64::consts::PI / 6.0).cos(), -radius * 0.5),
        ])
        .expect("a triangle")
    };
    let ground = PlanarBody::fixed("base", PlanarShape::Polygon(triangle(2.0 * r)), 0);
    let mut falling = PlanarBody::dynamic(
        "triangle",
        PlanarShape::Polygon(triangle(r)),
        MassSpec::Mass(1.0),
        0,
    )
    .expect("a triangle with area");
    // The script's inertia: b h³/36 with b = 2 r cos(π/6), h = 1.5 r.
    let (b, ht) = (2.0 * r * (std::f64::consts::PI / 6.0).cos(), 1.5 * r);
    falling.inertia = b * ht.powi(3) / 36.0;
    let settings = PlanarSettings {
        time_step: h,
        duration: 1.5,
        gravity: DVec2::new(0.0, -9.81),
        ..PlanarSettings::default()
    };
    PlanarWorld::new(
        PlanarModel {
            bodies: vec![ground, falling],
            materials: material(),
            settings,
        },
        PlanarState {
            time: 0.0,
            bodies: vec![
                PlanarBodyState::at_rest(DVec2::ZERO, 0.0),
                PlanarBodyState::at_rest(
                    DVec2::new(1.0, 5.0),
                    std::f64::consts::FRAC_PI_3,
                ),
            ],
        },
        build(model, &paper_params()).expect("a planar model"),
    )
}

/// Final state of the triangle drop: (x, y, θ), the largest overlap area along the way (m²), or
/// the step error.
pub fn triangle_drop(model: &str, h: f64) -> Result<([f64; 3], f64), String> {
    let mut w = triangle_drop_world(model, h);
    let steps = w.planned_steps();
    let mut worst: f64 = 0.0;
    while w.steps < steps {
        w.step().map_err(|e| e.to_string())?;
        worst = worst.max(overlap::total_overlap(&w.model, &w.state));
    }
    let b = &w.state.bodies[1];
    Ok(([b.position.x, b.position.y, b.angle], worst))
}
