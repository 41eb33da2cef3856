//! Experiments of the complementarity issue: type 1 vs type 2 activation (Nguyen–Trinkle
//! slides, disk–line and disk–two-lines in 3D), Coulomb friction on a ramp, the perturbed
//! resting block (Drumwright 2008, section IV-B) and the stack of 10 boxes.
use super::{penetration, simulate};
use crate::contact::ParamInput;
use crate::dynamics::State;
use crate::metrics::kinetic_energy;
use crate::pipeline::StepError;
use crate::scene::Scene;
use crate::simulation::Error;
use glam::DVec3;

/// One run of the activation sweep.
#[derive(Clone, Debug, PartialEq)]
pub struct ActivationRun {
    /// `penetrating` (type 1) or `anticipating` (type 2).
    pub activation: String,
    /// Speed the ball is thrown at (m/s).
    pub speed: f64,
    /// Time step (s).
    pub time_step: f64,
    /// Largest penetration over the run (m).
    pub max_penetration: f64,
    /// Largest speed of the ball over the run (m/s): the impact speed after the fall, which
    /// bounds every later approach (type 1's ejection returns at most the speed it came in with).
    pub max_speed: f64,
    /// The run stopped because the ball passed through: it ended a step wholly beyond a plane of
    /// the ground (`StepError::BeyondHalfSpace`, or deeper into a bounded piece than it is wide:
    /// `PassedThrough`). `max_penetration` then includes the depth it was stopped at.
    pub passed_through: bool,
}

/// Throw the scene's body `ball` straight down at `speed` (m/s) with step `h` (s) and the given
/// activation; the largest penetration over the run (m).
pub fn ball_penetration(
    scene: &Scene,
    speed: f64,
    h: f64,
    activation: &str,
) -> Result<ActivationRun, Error> {
    let mut scene = scene.clone();
    scene.model.settings.time_step = h;
    let ball = scene
        .model
        .body_index("ball")
        .ok_or_else(|| Error::Experiment(format!("{}: no body named `ball`", scene.desc.file)))?;
    scene.initial.bodies[ball].velocity = DVec3::new(0.0, 0.0, -speed);
    scene.set_param(
        "activation",
        ParamInput::Word(activation.into()),
        "experiment activation",
    );
    // The paper's model: an overlap removed in one step by ψ/h (what type 1 activation pays for).
    scene.set_param(
        "recovery",
        ParamInput::Word("full".into()),
        "experiment activation",
    );
    // Nor has it a post-step projection (`pipeline::projection`), which would remove type 1's
    // overlap after the step the sweep measures.
    scene.set_param(
        "projection",
        ParamInput::Word("none".into()),
        "experiment activation",
    );
    let (mut worst, mut fastest): (f64, f64) = (0.0, 0.0);
    let run = simulate(&scene, None, |s, r| {
        worst = worst.max(penetration(r));
        fastest = fastest.max(s.bodies[ball].velocity.length());
    });
    // A ball that went wholly into the ground is a result of type 1 activation (its figure: the
    // depth it was stopped at), not a failure of the sweep; any other error is.
    let stopped_at = match &run {
        Ok(_) => None,
        Err(e) => match e.step_error() {
            Some(
                StepError::BeyondHalfSpace { depth, .. } | StepError::PassedThrough { depth, .. },
            ) => Some(*depth),
            _ => None,
        },
    };
    if stopped_at.is_none() {
        run?;
    }
    Ok(ActivationRun {
        activation: activation.into(),
        speed,
        time_step: h,
        max_penetration: worst.max(stopped_at.unwrap_or(0.0)),
        max_speed: fastest,
        passed_through: stopped_at.is_some(),
    })
}

/// The two activations of the sweep, in its order: type 1 then type 2.
pub const ACTIVATIONS: [&str; 2] = ["penetrating", "anticipating"];

/// Every (activation, speed, step) combination on one ball scene.
pub fn activation_sweep(
    scene: &Scene,
    speeds: &[f64],
    steps: &[f64],
) -> Result<Vec<ActivationRun>, Error> {
    let mut runs = Vec::new();
    for activation in ACTIVATIONS {
        for &v in speeds {
            for &h in steps {
                runs.push(ball_penetration(scene, v, h, activation)?);
            }
        }
    }
    Ok(runs)
}

/// The block on the 30° ramp.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RampResult {
    pub friction: f64,
    /// Ramp angle θ (rad), from the ramp's normal.
    pub angle: f64,
    /// Mean acceleration along the slope over the run: final downhill speed / duration (m/s²).
    pub acceleration: f64,
    /// g (sin θ − μ cos θ) when positive, else 0 (m/s²).
    pub expected: f64,
    /// Distance moved down the slope (m).
    pub distance: f64,
}

/// Run the ramp scene (fixed body `ramp` with a half-space, dynamic `block`) with friction `mu`
/// for both materials.
pub fn ramp(scene: &Scene, mu: f64) -> Result<RampResult, Error> {
    let mut scene = scene.clone();
    for m in &mut scene.model.materials {
        m.friction = mu;
    }
    let block = scene
        .model
        .body_index("block")
        .ok_or_else(|| Error::Experiment("no body `block`".into()))?;
    let ramp = scene
        .model
        .body_index("ramp")
        .ok_or_else(|| Error::Experiment("no body `ramp`".into()))?;
    let normal = match &scene.model.bodies[ramp].pieces[0].shape {
        crate::geometry::Shape::HalfSpace { normal } => {
            scene.initial.bodies[ramp].orientation * *normal
        }
        _ => return Err(Error::Experiment("body `ramp` must be a half-space".into())),
    };
    let g = scene.model.settings.gravity;
    let angle = normal.angle_between(-g);
    // Downhill: gravity's component in the ramp plane.
    let downhill = (g - g.dot(normal) * normal).normalize();
    let start = scene.initial.bodies[block].position;
    let end = simulate(&scene, None, |_, _| {})?;
    let b = &end.bodies[block];
    Ok(RampResult {
        friction: mu,
        angle,
        acceleration: b.velocity.dot(downhill) / scene.model.settings.duration,
        expected: (g.length() * (angle.sin() - mu * angle.cos())).max(0.0),
        distance: (b.position - start).dot(downhill),
    })
}

/// A stack of boxes after its run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StackResult {
    pub time_step: f64,
    /// Horizontal displacement of the top box (m).
    pub top_drift: f64,
    /// Largest horizontal displacement of any box (m).
    pub max_drift: f64,
    /// Change of the top box's height (m; negative when it sank).
    pub top_height_change: f64,
    /// Largest tilt of any box from its initial orientation (rad).
    pub max_tilt: f64,
    /// Largest penetration over the run (m).
    pub max_penetration: f64,
    /// Kinetic energy at the end (J).
    pub final_kinetic_energy: f64,
    /// Wall-clock time of the run (s).
    pub seconds: f64,
}

/// Run a stack scene (every dynamic body is a box of the stack; the last is the top) with the
/// given model and step `h`.
pub fn stack(scene: &Scene, model: Option<&str>, h: f64) -> Result<StackResult, Error> {
    let mut scene = scene.clone();
    scene.model.settings.time_step = h;
    let boxes: Vec<usize> = (0..scene.model.bodies.len())
        .filter(|&i| !scene.model.bodies[i].fixed)
        .collect();
    let top = *boxes
        .last()
        .ok_or_else(|| Error::Experiment("the stack has no dynamic body".into()))?;
    let mut worst: f64 = 0.0;
    let t0 = std::time::Instant::now();
    let end = simulate(&scene, model, |_, r| worst = worst.max(penetration(r)))?;
    let seconds = t0.elapsed().as_secs_f64();
    let horizontal = |i: usize| {
        let d = end.bodies[i].position - scene.initial.bodies[i].position;
        (d - d.dot(DVec3::Z) * DVec3::Z).length()
    };
    // Rotation angle of q_end q_start⁻¹ from its vector part, 2 asin |v| (acos of the scalar
    // part would read every angle below ~2e-8 rad as 0).
    let tilt = |i: usize| {
        let rel = end.bodies[i].orientation * scene.initial.bodies[i].orientation.inverse();
        2.0 * glam::DVec3::new(rel.x, rel.y, rel.z)
            .length()
            .min(1.0)
            .asin()
    };
    Ok(StackResult {
        time_step: h,
        top_drift: horizontal(top),
        max_drift: boxes.iter().map(|&i| horizontal(i)).fold(0.0, f64::max),
        top_height_change: end.bodies[top].position.z - scene.initial.bodies[top].position.z,
        max_tilt: boxes.iter().map(|&i| tilt(i)).fold(0.0, f64::max),
        max_penetration: worst,
        final_kinetic_energy: kinetic_energy(&scene.model, &end),
        seconds,
    })
}

/// The perturbed resting block.
#[derive(Clone, Debug, PartialEq)]
pub struct PerturbedResult {
    /// Mean over steps of the largest penetration (m), the paper's figure.
    pub mean_penetration: f64,
    pub max_penetration: f64,
    /// For each force-free interval between pulses: (start s, end s, kinetic energy at its end J,
    /// largest kinetic energy in its second half J).
    pub force_free: Vec<(f64, f64, f64, f64)>,
    /// (time s, kinetic energy J, penetration m) after every step, for plots.
    pub series: Vec<(f64, f64, f64)>,
}

/// Run the perturbed-block scene with `model` (None: the scene's).
pub fn perturbed_block(scene: &Scene, model: Option<&str>) -> Result<PerturbedResult, Error> {
    let mut series = Vec::new();
    let m = &scene.model;
    simulate(scene, model, |s: &State, r| {
        series.push((s.time, kinetic_energy(m, s), penetration(r)))
    })?;
    let after_start = &series[1..];
    let mean = after_start.iter().map(|r| r.2).sum::<f64>() / after_start.len().max(1) as f64;
    let max = after_start.iter().map(|r| r.2).fold(0.0, f64::max);
    // Force-free intervals: from each pulse's end to the next pulse's start (or the run's end).
    let mut pulses: Vec<(f64, f64)> = m.forces.iter().map(|f| (f.start, f.end)).collect();
    pulses.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut force_free = Vec::new();
    for (i, &(_, end)) in pulses.iter().enumerate() {
        let next = pulses.get(i + 1).map_or(m.settings.duration, |p| p.0);
        if next <= end {
            continue;
        }
        let mid = 0.5 * (end + next);
        // States strictly before the next pulse: with RK4 the step ending at `next` already feels
        // the pulse that starts there (its last stage is evaluated at t = next).
        let in_half: Vec<f64> = series
            .iter()
            .filter(|r| r.0 >= mid && r.0 < next - 0.5 * m.settings.time_step)
            .map(|r| r.1)
            .collect();
        let last = in_half.last().copied().unwrap_or(0.0);
        force_free.push((end, next, last, in_half.iter().copied().fold(0.0, f64::max)));
    }
    Ok(PerturbedResult {
        mean_penetration: mean,
        max_penetration: max,
        force_free,
        series,
    })
}
