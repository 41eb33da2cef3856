//! Experiments of the penalty family (Drumwright 2008; Deguet, Joukhadar & Laugier 1998): the
//! Hunt–Crossley bounce.
use super::simulate;
use crate::contact::ParamInput;
use crate::scene::Scene;

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
) -> Result<BounceRun, String> {
    let mut scene = scene.clone();
    scene.set_param("restitution", ParamInput::Number(restitution), "bounce");
    scene.set_param("damping", ParamInput::Word(damping.into()), "bounce");
    let ball = scene
        .model
        .body_index("ball")
        .ok_or_else(|| format!("{}: no body named `ball`", scene.desc.file))?;
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
