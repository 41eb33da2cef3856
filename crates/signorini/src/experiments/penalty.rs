//! Experiments of the penalty family (Drumwright 2008; Deguet, Joukhadar & Laugier 1998): the
//! block penetrating a plane, the perturbed block with each model's gains, the pile, and the
//! Hunt–Crossley bounce.
use crate::simulation::Error;
use super::{penetration, simulate};
use crate::contact::ParamInput;
use crate::metrics::kinetic_energy;
use crate::scene::Scene;

/// A contact model with the parameters an experiment gives it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ModelRun {
    /// Label in tables, CSV files and plots.
    pub label: &'static str,
    pub model: &'static str,
    /// Parameters set on top of the scene's (name, value).
    pub params: &'static [(&'static str, f64)],
    /// Word parameters set on top of the scene's (name, word).
    pub words: &'static [(&'static str, &'static str)],
}

impl ModelRun {
    /// `scene` with this run's parameters set (ready for `simulate(&scene, Some(self.model), ..)`).
    pub fn apply(&self, scene: &Scene) -> Scene {
        let mut scene = scene.clone();
        for &(name, value) in self.params {
            scene.set_param(name, ParamInput::Number(value), self.label);
        }
        for &(name, word) in self.words {
            scene.set_param(name, ParamInput::Word(word.to_string()), self.label);
        }
        scene
    }
}

/// Drumwright's deepest-point gains of §IV-A (k_p = 6000 N/m, k_v = 3000 N s/m, k_i = 200 N/m),
/// the spring at the deepest point as in the paper.
pub const DEEPEST_POINT_PAPER: ModelRun = ModelRun {
    label: "deepest-point",
    model: "deepest-point",
    params: &[("kp", 6000.0), ("kv", 3000.0), ("ki", 200.0)],
    words: &[("point", "deepest")],
};

/// Drumwright's multi-point gains of §IV-A (k_p = 5000 N/m, k_v = 2500 N s/m, k_i = 100 N/m).
pub const MULTI_POINT_PAPER: ModelRun = ModelRun {
    label: "multi-point",
    model: "multi-point",
    params: &[("kp", 5000.0), ("kv", 2500.0), ("ki", 100.0)],
    words: &[],
};

/// The multi-point method with a stiff spring for the 10 kg cube: k_p = 1e5 N/m (ω = 100 rad/s,
/// 0.1 rad per step of 1e-3 s), k_v = 2000 N s/m (critical damping of the cube's vertical motion),
/// k_i = 2000 N/m (Drumwright's ratio k_i/k_p = 0.02). Drumwright's own ratio k_v/k_p = 0.5 at
/// this stiffness is a damping rate of 5000/s, beyond RK4's stability at h = 1e-3 s.
pub const MULTI_POINT_STIFF: ModelRun = ModelRun {
    label: "multi-point (stiff)",
    model: "multi-point",
    params: &[("kp", 1e5), ("kv", 2000.0), ("ki", 2000.0)],
    words: &[],
};

/// Block penetrating a plane (Drumwright §IV-A, figs. 7–9): the two methods with the paper's gains.
pub const BLOCK_RUNS: [ModelRun; 2] = [DEEPEST_POINT_PAPER, MULTI_POINT_PAPER];

/// The perturbed block (§IV-B, figs. 10–12): deepest point and multi-point with the paper's gains,
/// the multi-point method stiff enough for the paper's penetration, and the LCP model.
pub const PERTURBED_RUNS: [ModelRun; 4] = [
    DEEPEST_POINT_PAPER,
    MULTI_POINT_PAPER,
    MULTI_POINT_STIFF,
    ModelRun {
        label: "stewart-trinkle",
        model: "stewart-trinkle",
        params: &[],
        words: &[],
    },
];

/// (step, kinetic energy J, largest penetration m) after every step of `scene` under `run`
/// (step 0: the initial state).
pub fn energy_and_penetration(
    scene: &Scene,
    run: &ModelRun,
) -> Result<Vec<(u64, f64, f64)>, Error> {
    let scene = run.apply(scene);
    let mut series = Vec::new();
    let m = &scene.model;
    simulate(&scene, Some(run.model), |s, r| {
        series.push((s.step, kinetic_energy(m, s), penetration(r)))
    })?;
    Ok(series)
}

/// One impact of a bouncing ball.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Impact {
    /// Speed at first touch (m/s), from the last free-flight state before the impact.
    pub speed_in: f64,
    /// Speed when it leaves the ground (m/s), from the first free-flight state after it.
    pub speed_out: f64,
}

impl Impact {
    /// The measured coefficient of restitution v_out / v_in.
    pub fn restitution(&self) -> f64 {
        self.speed_out / self.speed_in
    }
}

/// What a bounce run measured.
#[derive(Clone, Debug, PartialEq)]
pub struct BounceRun {
    /// Restitution the model was given.
    pub restitution: f64,
    /// Damping law (`hunt-crossley` model parameter `damping`).
    pub damping: String,
    /// Impacts with an impact speed above `min_speed`, in order.
    pub impacts: Vec<Impact>,
    /// Largest penetration over the run (m).
    pub max_penetration: f64,
    /// Steps taken.
    pub steps: u64,
    /// (time, height of the ball's lowest point) at least every millisecond (s, m).
    pub trace: Vec<(f64, f64)>,
}

/// Drop the scene's body `ball` (a sphere of radius `radius` resting on a horizontal plane
/// through the origin, gravity along −z) with the model's `restitution` and `damping` set, and
/// measure every impact faster than `min_speed` (m/s).
///
/// Speeds at touch and at lift-off come from the nearest free-flight states (gap d > 0, no
/// contact force) by energy conservation in free fall, v = √(v_z² + 2 g d): exact whatever the
/// step, so the measured restitution is the model's, not the sampling's.
pub fn bounce(
    scene: &Scene,
    radius: f64,
    restitution: f64,
    damping: &str,
    min_speed: f64,
) -> Result<BounceRun, Error> {
    let mut scene = scene.clone();
    scene.set_param("restitution", ParamInput::Number(restitution), "bounce");
    scene.set_param("damping", ParamInput::Word(damping.into()), "bounce");
    let ball = scene
        .model
        .body_index("ball")
        .ok_or_else(|| Error::Experiment(format!("{}: no body named `ball`", scene.desc.file)))?;
    let g = -scene.model.settings.gravity.z;
    let mut impacts = Vec::new();
    let (mut in_contact, mut speed_in, mut last_free) = (false, 0.0, None::<(f64, f64)>);
    let (mut worst, mut steps): (f64, u64) = (0.0, 0);
    let mut trace: Vec<(f64, f64)> = Vec::new();
    simulate(&scene, None, |s, report| {
        let b = &s.bodies[ball];
        let gap = b.position.z - radius;
        if trace.last().is_none_or(|&(t, _)| s.time - t >= 1e-3) {
            trace.push((s.time, gap));
        }
        let touching = report.is_some_and(|r| r.max_penetration > 0.0) || gap < 0.0;
        if let Some(r) = report {
            worst = worst.max(r.max_penetration);
            steps += 1;
        }
        let free_speed = |gap: f64, vz: f64| (vz * vz + 2.0 * g * gap.max(0.0)).sqrt();
        match (touching, in_contact) {
            (true, false) => {
                in_contact = true;
                speed_in = last_free.map_or(0.0, |(d, vz)| free_speed(d, vz));
            }
            (false, true) => {
                in_contact = false;
                if speed_in > min_speed && b.velocity.z > 0.0 {
                    impacts.push(Impact {
                        speed_in,
                        speed_out: free_speed(gap, b.velocity.z),
                    });
                }
            }
            _ => {}
        }
        if !touching {
            last_free = Some((gap, b.velocity.z));
        }
    })?;
    Ok(BounceRun {
        restitution,
        damping: damping.into(),
        impacts,
        max_penetration: worst,
        steps,
        trace,
    })
}

/// A body counts as at rest below this speed (m/s): 1 cm/s, a tenth of a part's size per
/// second for the 8–16 cm parts of the pile.
pub const REST_SPEED: f64 = 0.01;

/// The pile after its run.
#[derive(Clone, Debug, PartialEq)]
pub struct PileRun {
    /// (time s, kinetic energy J, largest penetration m, step s) after every step.
    pub series: Vec<(f64, f64, f64, f64)>,
    /// Largest speed of a body's centre of mass, or of a point at its bounding radius from it
    /// (|v| + |ω| r), at the end (m/s), and that body's name.
    pub largest_speed: f64,
    pub fastest: String,
    /// Every dynamic body slower than `REST_SPEED` at the end.
    pub at_rest: bool,
    /// (name, shape kind, speed m/s) of the bodies still faster than `REST_SPEED` at the end.
    pub moving: Vec<(String, &'static str, f64)>,
    /// Dynamic bodies whose centre of mass ended below z = 0 (the container's floor): parts pushed
    /// through it.
    pub fell_through: usize,
    /// Dynamic bodies.
    pub bodies: usize,
}

/// Run the pile scene with its own model and steps; whether it comes to rest.
pub fn pile(scene: &Scene) -> Result<PileRun, Error> {
    let m = &scene.model;
    let mut series = Vec::new();
    let end = simulate(scene, None, |s, r| {
        series.push((
            s.time,
            kinetic_energy(m, s),
            penetration(r),
            r.map_or(0.0, |r| r.time_step),
        ))
    })?;
    let (mut largest_speed, mut fastest, mut fell_through, mut bodies) = (0.0, String::new(), 0, 0);
    let mut moving = Vec::new();
    for (body, b) in m.bodies.iter().zip(&end.bodies) {
        if body.fixed {
            continue;
        }
        bodies += 1;
        let reach = body
            .pieces
            .iter()
            .map(|p| p.pose.translation.length() + p.shape.bounding_radius())
            .fold(0.0, f64::max);
        let speed = b.velocity.length() + b.angular_velocity.length() * reach;
        if speed > largest_speed {
            (largest_speed, fastest) = (speed, body.name.clone());
        }
        if speed >= REST_SPEED {
            moving.push((body.name.clone(), body.pieces[0].shape.kind(), speed));
        }
        fell_through += (b.position.z < 0.0) as usize;
    }
    Ok(PileRun {
        series,
        largest_speed,
        fastest,
        at_rest: largest_speed < REST_SPEED,
        moving,
        fell_through,
        bodies,
    })
}
