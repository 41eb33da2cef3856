//! Experiments of the impulse issue: the single-point collision laws (`contact::impulse::law`)
//! side by side on a rough rod and a rough sphere striking fixed ground, against the impact angle;
//! and the impulse loops on scenes (`contact::impulse::model`, `hybrid`, `pipeline::impulse`): a
//! box dropped on the ground, a stack of books, a bouncing ball and a fast ball against a thin
//! plate (see the functions below and docs/impulse.md).
//!
//! Each body translates without spin at 1 m/s, at angle φ from the downward normal, so its
//! contact point's velocity is u₀ = (sin φ, 0, −cos φ) m/s and its kinetic energy T₀ = ½ m |u₀|².
//! The measured figures are the three coefficients each law could be said to enforce — kinematic
//! u_n / (−u_n0), kinetic P_n / P_c − 1 and energetic √(W_r / −W_c) — and the energy change ΔT/T₀.
use crate::simulation::Error;
use crate::contact::impulse::law::{collide, collision_matrix, BodyAtContact, ContactFrame};
use crate::contact::impulse::law::{IntegrationOptions, Law};
use glam::{DMat3, DVec3};

/// A body striking fixed ground z = 0 at one point: its collision matrix in the frame
/// (x, y, z) and its mass.
#[derive(Clone, Debug, PartialEq)]
pub struct ImpactCase {
    /// `rod-45` or `sphere`.
    pub name: String,
    /// What it is, for captions.
    pub description: String,
    /// K in the contact frame (x, y, z), 1/kg.
    pub k: DMat3,
    /// Mass (kg).
    pub mass: f64,
}

/// A 1 kg, 1 m rod (solid cylinder of radius 1 cm) in the x–z plane, tilted `tilt_deg` degrees
/// from the ground and touching it with its lower end (its centre of mass is at +x of the
/// contact: it leans towards +x).
pub fn rod(tilt_deg: f64) -> Result<ImpactCase, Error> {
    let (m, l, r) = (1.0, 1.0, 0.01);
    let tilt = tilt_deg.to_radians();
    let axis = DVec3::new(tilt.cos(), 0.0, tilt.sin());
    let transverse = m * l * l / 12.0 + m * r * r / 4.0;
    let axial = m * r * r / 2.0;
    let along = DMat3::from_cols(axis * axis.x, axis * axis.y, axis * axis.z);
    let body = BodyAtContact {
        inverse_mass: 1.0 / m,
        inverse_inertia: along * (1.0 / axial) + (DMat3::IDENTITY - along) * (1.0 / transverse),
        r: -0.5 * l * axis,
    };
    Ok(ImpactCase {
        name: format!("rod-{tilt_deg}"),
        description: format!("1 kg, 1 m rod at {tilt_deg}° hitting with its lower end"),
        k: ground_matrix(&body)?,
        mass: m,
    })
}

/// A solid 1 kg sphere of radius 0.1 m: K = diag(3.5, 3.5, 1) 1/kg, no coupling between the
/// normal and the tangents.
pub fn sphere() -> Result<ImpactCase, Error> {
    let (m, r) = (1.0, 0.1);
    let body = BodyAtContact {
        inverse_mass: 1.0 / m,
        inverse_inertia: DMat3::from_diagonal(DVec3::splat(1.0 / (0.4 * m * r * r))),
        r: DVec3::new(0.0, 0.0, -r),
    };
    Ok(ImpactCase {
        name: "sphere".into(),
        description: "1 kg solid sphere of radius 0.1 m".into(),
        k: ground_matrix(&body)?,
        mass: m,
    })
}

fn ground_matrix(body: &BodyAtContact) -> Result<DMat3, Error> {
    let frame = ContactFrame::new(DVec3::X, DVec3::Y, DVec3::Z)?;
    collision_matrix(&frame, None, Some(body)).map_err(Error::from)
}

/// One collision of the sweep.
#[derive(Clone, Debug, PartialEq)]
pub struct LawRun {
    pub case: String,
    pub law: Law,
    pub friction: f64,
    pub restitution: f64,
    /// Impact angle φ from the downward normal (degrees); positive: moving towards +x.
    pub angle_deg: f64,
    /// u₀ (m/s), contact frame (x, y, z).
    pub u0: DVec3,
    /// Total impulse on the body (N s), contact frame.
    pub impulse: DVec3,
    /// Contact velocity after (m/s).
    pub velocity: DVec3,
    /// u_n / (−u_n0).
    pub kinematic: f64,
    /// P_n / P_c − 1.
    pub kinetic: f64,
    /// sign(W_r) √|W_r / W_c|.
    pub energetic: f64,
    /// ΔT / T₀.
    pub energy_ratio: f64,
    /// `none`, `stable` or `unstable`: whether the slip stopped and sticking held.
    pub stick: &'static str,
}

/// Every law of `laws` on `case` at each impact angle of `angles_deg` (degrees, |φ| < 90), with
/// friction `mu` and restitution `e`.
pub fn angle_sweep(
    case: &ImpactCase,
    laws: &[Law],
    mu: f64,
    e: f64,
    angles_deg: &[f64],
) -> Result<Vec<LawRun>, Error> {
    let mut runs = Vec::new();
    for &law in laws {
        for &phi in angles_deg {
            if !(phi.abs() < 90.0) {
                return Err(Error::Experiment(format!("impact angle {phi}° must be within (−90°, 90°)")));
            }
            let a = phi.to_radians();
            let u0 = DVec3::new(a.sin(), 0.0, -a.cos());
            let c = collide(law, &case.k, u0, mu, e, &IntegrationOptions::default())
                .map_err(|err| Error::Experiment(format!("{}, {law}, φ = {phi}°: {err}", case.name)))?;
            let t0 = 0.5 * case.mass * u0.length_squared();
            let ratio = c.restitution_work / -c.compression_work;
            runs.push(LawRun {
                case: case.name.clone(),
                law,
                friction: mu,
                restitution: e,
                angle_deg: phi,
                u0,
                impulse: c.impulse,
                velocity: c.velocity,
                kinematic: c.velocity.z / -u0.z,
                kinetic: c.impulse.z / c.compression_impulse - 1.0,
                energetic: ratio.signum() * ratio.abs().sqrt(),
                energy_ratio: c.energy_change / t0,
                stick: match c.stick {
                    None => "none",
                    Some(s) if s.test.stable => "stable",
                    Some(_) => "unstable",
                },
            });
        }
    }
    Ok(runs)
}

// ---------------------------------------------------------------------------------------------
// The impulse loops on scenes
// ---------------------------------------------------------------------------------------------

use super::simulate;
use crate::pipeline::StepError;
use crate::contact::ParamInput;
use crate::metrics::kinetic_energy;
use crate::scene::Scene;

/// An impulse-based model with the parameters an experiment gives it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LoopRun {
    /// Label in tables, CSV files and plots.
    pub label: &'static str,
    /// `impulse` or `hybrid`.
    pub model: &'static str,
    /// Word parameters set on top of the scene's (name, word).
    pub words: &'static [(&'static str, &'static str)],
    /// Number parameters set on top of the scene's (name, value).
    pub numbers: &'static [(&'static str, f64)],
}

impl LoopRun {
    /// `scene` with this run's parameters set (for `simulate(&scene, Some(self.model), ..)`).
    pub fn apply(&self, scene: &Scene) -> Scene {
        let mut scene = scene.clone();
        for &(name, word) in self.words {
            scene.set_param(name, ParamInput::Word(word.into()), self.label);
        }
        for &(name, value) in self.numbers {
            scene.set_param(name, ParamInput::Number(value), self.label);
        }
        scene
    }
}

/// The hybrid's penalty gains in the experiments: k_p = 1e4 N/(m kg) (ω = 100 rad/s, 0.1 rad per
/// step of 1 ms, static depth |g|/k_p ≈ 1 mm), k_v = 200 N s/(m kg) (critical damping 2ω), k_i =
/// 200 N/(m kg) (Drumwright's k_i/k_p = 0.02). Drumwright's defaults (100, 50, 2 per kg) let a
/// body sink |g|/100 ≈ 10 cm.
pub const HYBRID_GAINS: &[(&str, f64)] = &[
    ("kp_per_kg", 1e4),
    ("kv_per_kg", 200.0),
    ("ki_per_kg", 200.0),
];

/// The box drop's runs: the four loops of `impulse` and the hybrid.
pub const BOX_DROP_RUNS: [LoopRun; 5] = [
    LoopRun {
        label: "sequential",
        model: "impulse",
        words: &[("loop", "sequential")],
        numbers: &[],
    },
    LoopRun {
        label: "microcollisions",
        model: "impulse",
        words: &[("loop", "microcollisions")],
        numbers: &[],
    },
    LoopRun {
        label: "global",
        model: "impulse",
        words: &[("loop", "global")],
        numbers: &[],
    },
    LoopRun {
        label: "guendelman",
        model: "impulse",
        words: &[("loop", "guendelman")],
        numbers: &[],
    },
    LoopRun {
        label: "hybrid",
        model: "hybrid",
        words: &[],
        numbers: HYBRID_GAINS,
    },
];

/// One step of a run: time (s), kinetic energy (J), height of the body's centre of mass (m),
/// largest penetration (m), impulses and substeps of the step.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LoopSample {
    pub time: f64,
    pub kinetic_energy: f64,
    pub height: f64,
    pub penetration: f64,
    pub impulses: u64,
    pub substeps: u64,
}

/// What a box-drop run measured.
#[derive(Clone, Debug, PartialEq)]
pub struct DropRun {
    pub label: String,
    /// Every step (and the initial state, with zero impulses).
    pub samples: Vec<LoopSample>,
    /// (window start s, impulses per second) over windows of `window` seconds.
    pub impact_rate: Vec<(f64, f64)>,
    /// Over the last second: largest kinetic energy (J).
    pub late_kinetic_energy: f64,
    /// Over the last second: the body's centre of mass moved down by this much (m; negative: up).
    pub late_sinking: f64,
    /// Over the last second: largest penetration (m).
    pub late_penetration: f64,
    /// Over the last second: impulses per second.
    pub late_impact_rate: f64,
    /// The first time after which the kinetic energy stays below `rest_energy` to the end (s);
    /// `None` when it never does.
    pub rest_time: Option<f64>,
}

/// Drop the scene's body `body` under `run`, record every step and measure the impact rate over
/// windows of `window` seconds and the last second of the run (the scene must last more than a
/// second). `rest_energy` (J) is the kinetic energy below which the box counts as at rest.
pub fn box_drop(
    scene: &Scene,
    run: &LoopRun,
    body: &str,
    window: f64,
    rest_energy: f64,
) -> Result<DropRun, Error> {
    let scene = run.apply(scene);
    let index = scene
        .model
        .body_index(body)
        .ok_or_else(|| Error::Experiment(format!("{}: no body named `{body}`", scene.desc.file)))?;
    if !(window > 0.0) || scene.model.settings.duration <= 1.0 {
        return Err(Error::Experiment(format!(
            "box drop: need a window > 0 and a run longer than 1 s (window {window} s, duration {} s)",
            scene.model.settings.duration
        )));
    }
    let m = &scene.model;
    let mut samples = Vec::new();
    simulate(&scene, Some(run.model), |s, r| {
        samples.push(LoopSample {
            time: s.time,
            kinetic_energy: kinetic_energy(m, s),
            height: s.bodies[index].position.z,
            penetration: r.map_or(0.0, |r| r.max_penetration),
            impulses: r.map_or(0, |r| r.impulses.impulses()),
            substeps: r.map_or(0, |r| r.impulses.substeps),
        })
    })?;
    let end = samples.last().map_or(0.0, |s| s.time);
    let mut impact_rate = Vec::new();
    let mut start = 0.0;
    while start + window <= end + 1e-9 {
        let n: u64 = samples
            .iter()
            .filter(|s| s.time > start && s.time <= start + window + 1e-12)
            .map(|s| s.impulses)
            .sum();
        impact_rate.push((start, n as f64 / window));
        start += window;
    }
    let late: Vec<&LoopSample> = samples.iter().filter(|s| s.time >= end - 1.0).collect();
    let late_kinetic_energy = late.iter().map(|s| s.kinetic_energy).fold(0.0, f64::max);
    let late_sinking =
        late.first().map_or(0.0, |s| s.height) - late.last().map_or(0.0, |s| s.height);
    let late_penetration = late.iter().map(|s| s.penetration).fold(0.0, f64::max);
    let late_impact_rate = late.iter().skip(1).map(|s| s.impulses).sum::<u64>() as f64 / 1.0;
    let rest_time = match samples
        .iter()
        .rposition(|s| s.kinetic_energy >= rest_energy)
    {
        None => Some(0.0),
        Some(i) if i + 1 < samples.len() => Some(samples[i + 1].time),
        Some(_) => None,
    };
    Ok(DropRun {
        label: run.label.to_string(),
        samples,
        impact_rate,
        late_kinetic_energy,
        late_sinking,
        late_penetration,
        late_impact_rate,
        rest_time,
    })
}

/// The book stack's runs: Guendelman's loop (without shock propagation, slide 43's sweeps) and
/// the sequential loop with and without prioritization along gravity, Guendelman's loop with
/// its shock propagation, and the global option.
pub const BOOK_STACK_RUNS: [LoopRun; 6] = [
    LoopRun {
        label: "guendelman (gravity)",
        model: "impulse",
        words: &[
            ("loop", "guendelman"),
            ("priority", "gravity"),
            ("shock_propagation", "off"),
        ],
        numbers: &[],
    },
    LoopRun {
        label: "guendelman (none)",
        model: "impulse",
        words: &[
            ("loop", "guendelman"),
            ("priority", "none"),
            ("shock_propagation", "off"),
        ],
        numbers: &[],
    },
    LoopRun {
        label: "guendelman + shock",
        model: "impulse",
        words: &[("loop", "guendelman"), ("shock_propagation", "on")],
        numbers: &[],
    },
    LoopRun {
        label: "sequential (gravity)",
        model: "impulse",
        words: &[("loop", "sequential"), ("priority", "gravity")],
        numbers: &[],
    },
    LoopRun {
        label: "sequential (none)",
        model: "impulse",
        words: &[("loop", "sequential"), ("priority", "none")],
        numbers: &[],
    },
    LoopRun {
        label: "global",
        model: "impulse",
        words: &[("loop", "global")],
        numbers: &[],
    },
];

/// What a book-stack run measured.
#[derive(Clone, Debug, PartialEq)]
pub struct StackRun {
    pub label: String,
    /// Books in the stack.
    pub books: usize,
    /// (time s, impulses, sweeps) of every step.
    pub steps: Vec<(f64, u64, u64)>,
    pub mean_impulses: f64,
    pub max_impulses: u64,
    pub mean_sweeps: f64,
    /// Points left approaching after the sweep limit, over the run.
    pub unresolved: u64,
    /// Largest penetration at the end (m).
    pub final_penetration: f64,
    /// How far the top book's centre moved from where it started (m).
    pub top_drift: f64,
    /// Kinetic energy at the end (J).
    pub final_kinetic_energy: f64,
}

/// The scene with only its bottom `books` books: the bodies named `book<k>` with k ≥ `books` are
/// removed (the scene must name its books `book0` at the bottom, `book1` above, ...); the
/// settings and materials are `scene`'s.
pub fn first_books(scene: &Scene, books: usize) -> Result<Scene, Error> {
    let mut desc = scene.desc.clone();
    desc.bodies.retain(|b| {
        b.name
            .strip_prefix("book")
            .and_then(|k| k.parse::<usize>().ok())
            .is_none_or(|k| k < books)
    });
    let kept = desc
        .bodies
        .iter()
        .filter(|b| b.name.starts_with("book"))
        .count();
    if kept != books {
        return Err(Error::Experiment(format!(
            "{}: asked for {books} books, the scene has {kept} named book0..",
            scene.desc.file
        )));
    }
    let mut built = crate::scene::build(desc)?;
    // Settings and materials as the caller may have changed them.
    built.model.settings = scene.model.settings.clone();
    built.model.materials = scene.model.materials.clone();
    Ok(built)
}

/// Run the bottom `books` books of the stack under `run` and count the impulses of every step.
pub fn book_stack(scene: &Scene, run: &LoopRun, books: usize) -> Result<StackRun, Error> {
    if books == 0 {
        return Err(Error::Experiment("book stack: need at least one book".into()));
    }
    let scene = first_books(&run.apply(scene), books)?;
    let top = scene
        .model
        .body_index(&format!("book{}", books - 1))
        .ok_or_else(|| Error::Experiment("no top book".into()))?;
    let start = scene.initial.bodies[top].position;
    let m = &scene.model;
    let mut steps = Vec::new();
    let (mut unresolved, mut pen) = (0, 0.0);
    let last = simulate(&scene, Some(run.model), |s, r| {
        if let Some(r) = r {
            steps.push((s.time, r.impulses.impulses(), r.impulses.sweeps));
            unresolved += r.impulses.unresolved;
            pen = r.max_penetration;
        }
    })?;
    let n = steps.len().max(1) as f64;
    Ok(StackRun {
        label: run.label.to_string(),
        books,
        mean_impulses: steps.iter().map(|s| s.1 as f64).sum::<f64>() / n,
        max_impulses: steps.iter().map(|s| s.1).max().unwrap_or(0),
        mean_sweeps: steps.iter().map(|s| s.2 as f64).sum::<f64>() / n,
        steps,
        unresolved,
        final_penetration: pen,
        top_drift: (last.bodies[top].position - start).length(),
        final_kinetic_energy: kinetic_energy(m, &last),
    })
}

/// One bounce of a ball.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bounce {
    /// Time of the step with the impact (s).
    pub time: f64,
    /// Speed at touch and when leaving (m/s), from the free-flight states just before and after
    /// the impact step: v = √(v_z² + 2|g| d), d the gap. For semi-implicit Euler over one step of
    /// length h this is exact to g²h² in v² (v_{k+1}² + 2g z_{k+1} = v_k² + 2g z_k − g²h²).
    pub speed_in: f64,
    pub speed_out: f64,
    /// The apex the ball will reach after the bounce, from the state after it: d + v_z²/(2|g|)
    /// (m, above the ground).
    pub apex: f64,
}

impl Bounce {
    pub fn restitution(&self) -> f64 {
        self.speed_out / self.speed_in
    }
}

/// Drop the scene's `ball` (a sphere of `radius` m over horizontal ground at z = 0, gravity along
/// −z) under the `impulse` model with `law` and restitution `e` (every material's restitution is
/// set to e, so the pair's is e) and record every bounce faster than `min_speed` (m/s): steps in
/// which exactly one collision happened, with free flight before and after.
pub fn ball_bounces(
    scene: &Scene,
    law: &str,
    e: f64,
    radius: f64,
    min_speed: f64,
) -> Result<Vec<Bounce>, Error> {
    let mut scene = scene.clone();
    scene.set_param("law", ParamInput::Word(law.into()), "ball_bounces");
    for m in &mut scene.model.materials {
        m.restitution = e;
    }
    let ball = scene
        .model
        .body_index("ball")
        .ok_or_else(|| Error::Experiment(format!("{}: no body named `ball`", scene.desc.file)))?;
    let g = -scene.model.settings.gravity.z;
    let free = |gap: f64, vz: f64| (vz * vz + 2.0 * g * gap).sqrt();
    let mut bounces = Vec::new();
    let mut before: Option<(f64, f64)> = None;
    simulate(&scene, Some("impulse"), |s, r| {
        let b = &s.bodies[ball];
        let gap = b.position.z - radius;
        if let (Some(r), Some((gap0, vz0))) = (r, before) {
            let v_in = free(gap0, vz0);
            if r.impulses.collisions == 1 && gap > 0.0 && b.velocity.z > 0.0 && v_in > min_speed {
                bounces.push(Bounce {
                    time: s.time,
                    speed_in: v_in,
                    speed_out: free(gap, b.velocity.z),
                    apex: gap + b.velocity.z * b.velocity.z / (2.0 * g),
                });
            }
        }
        before = (gap > 0.0).then_some((gap, b.velocity.z));
    })?;
    Ok(bounces)
}

/// A fast ball against a thin plate.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PlateRun {
    /// Speed towards the plate (m/s).
    pub speed: f64,
    pub time_step: f64,
    pub regress: bool,
    /// The ball went through the plate: the run stopped at the step that crossed it
    /// (`StepError::CrossedFixed`), or it ended below the plate.
    pub tunnelled: bool,
    /// Largest penetration over the run (m).
    pub max_penetration: f64,
    /// Final vertical velocity (m/s; > 0: bounced back up; at the last step before the stop for
    /// a run that tunnelled).
    pub final_vz: f64,
    /// Substeps and regression iterations over the run (up to the stop).
    pub substeps: u64,
    pub toi_iterations: u64,
}

/// Shoot the scene's `ball` down at `speed` (m/s) against its fixed plate (bottom at z =
/// `bottom`), with steps of `h` (s) and the time-of-impact regression on or off, for long enough
/// to cross 2.5 m (at least 3 steps): the ball starts above the plate, within 1.25 m.
pub fn thin_plate(
    scene: &Scene,
    speed: f64,
    h: f64,
    regress: bool,
    bottom: f64,
) -> Result<PlateRun, Error> {
    if !(speed > 0.0 && speed.is_finite() && h > 0.0 && h.is_finite()) {
        return Err(Error::Experiment(format!(
            "thin plate: need a finite speed > 0 and step > 0 (got {speed} m/s, {h} s)"
        )));
    }
    let mut scene = scene.clone();
    scene.set_param(
        "time_of_impact",
        ParamInput::Word(if regress { "regress" } else { "off" }.into()),
        "thin_plate",
    );
    scene.model.settings.time_step = h;
    scene.model.settings.duration = (2.5 / speed).max(3.0 * h);
    scene.model.settings.max_speed = scene.model.settings.max_speed.max(2.0 * speed);
    let ball = scene
        .model
        .body_index("ball")
        .ok_or_else(|| Error::Experiment(format!("{}: no body named `ball`", scene.desc.file)))?;
    scene.initial.bodies[ball].velocity = glam::DVec3::new(0.0, 0.0, -speed);
    let (mut pen, mut substeps, mut iterations) = (0.0f64, 0, 0);
    let mut vz = -speed;
    let run = simulate(&scene, Some("impulse"), |s, r| {
        vz = s.bodies[ball].velocity.z;
        if let Some(r) = r {
            pen = pen.max(r.max_penetration);
            substeps += r.impulses.substeps;
            iterations += r.impulses.toi_iterations;
        }
    });
    // The pipeline stops a run whose ball crossed the plate within a step
    // (`StepError::CrossedFixed`): that is the tunnelling this experiment counts, with the ball's
    // velocity as it went through (nothing acts on it in the step that crosses).
    let (tunnelled, final_vz) = match run {
        Ok(last) => {
            let b = &last.bodies[ball];
            (b.position.z < bottom, b.velocity.z)
        }
        Err(e) if matches!(e.step_error(), Some(StepError::CrossedFixed { .. })) => (true, vz),
        Err(e) => return Err(e),
    };
    Ok(PlateRun {
        speed,
        time_step: h,
        regress,
        tunnelled,
        max_penetration: pen,
        final_vz,
        substeps,
        toi_iterations: iterations,
    })
}
