//! Nguyen & Trinkle's non-penetration modelling error in 2D (RPI slides, 29 May 2008, "A case
//! study: Disk - Line", "Disk - Two lines", "The algorithm"): a disk against segments with ends
//! under the three ways of choosing the constraints — type 1 (`penetrating`), type 2
//! (`anticipating`), the group of constraints (`group`) — and the group method's exploratory
//! solve alone (`exploratory`: every possible constraint, the segments' infinite lines included).
//!
//! - **Segment end** (`examples/planar_nt_segment_end.toml`): a frictionless disk thrown at 45°
//!   at speed u so that its true path either lands on the table 5 cm past the table's left end
//!   ("landing", moving right) or crosses the table's height 15 cm left of it and falls to the
//!   floor ("miss", moving left). Neither true path touches the corner (`clearance` > 0), and
//!   nothing but the flat table and floor acts on the disk, so the true final state is exact:
//!   x(T) = x₀ + v_x0 T (gravity is vertical, the surfaces frictionless), at rest height r on the
//!   table (landing) or on the floor (miss). The throw starts `LEAD_TIME` before the true landing
//!   on the continuous parabola.
//! - **Gap** (`examples/planar_nt_gap.toml`): the disk thrown down at speed v onto the gap between
//!   two collinear segments, narrower than the disk: the true rest is centred in the gap touching
//!   both inner ends, √(r² − (w/2)²) above their line.
//!
//! Every run uses the scene's model and parameters with `activation` set per run and the
//! scene's `recovery` (the bundled scenes: the paper's ψ/h, `"full"`).
use crate::contact::ParamInput;
use crate::planar::collision::Placed;
use crate::planar::{build, PlanarWorld};
use crate::scene::PlanarScene;
use crate::simulation::Error;
use glam::DVec2;

/// The activations compared, in the tables' order: type 1, type 2, the exploratory solve alone,
/// the group method.
pub const ACTIVATIONS: [&str; 4] = ["penetrating", "anticipating", "exploratory", "group"];

/// Time from the throw to the true landing (s): not a multiple of the sweep's steps, so that the
/// discrete landing falls inside a step (at a step boundary type 1 would penetrate only by the
/// discretization's offset g h t/2).
pub const LEAD_TIME: f64 = 0.1035;
/// Where the landing throw's true path reaches contact height: this far past the table's end (m).
pub const LANDING_OFFSET: f64 = 0.05;
/// Where the miss throw's true path crosses contact height: this far before the table's end (m).
pub const MISS_OFFSET: f64 = 0.15;
/// A disk in the gap is touching an end when its gap to it is at most this (m).
pub const TOUCH_TOLERANCE: f64 = 1e-6;
/// A final position within this of the true rest (m) counts as at rest there.
pub const REST_TOLERANCE: f64 = 1e-3;
/// A disk faster than this at the end of a gap run (m/s) is "still moving" (e.g. thrown up).
pub const MOVING_SPEED: f64 = 1e-3;

/// The two throws of the segment-end scene.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Throw {
    /// Lands on the table just past its end.
    Landing,
    /// Passes the end and falls to the floor.
    Miss,
}

impl Throw {
    pub fn name(self) -> &'static str {
        match self {
            Throw::Landing => "landing",
            Throw::Miss => "miss",
        }
    }
}

/// The group activation's counts summed over a run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GroupTotals {
    /// Steps in which step 3 (the re-solve) ran.
    pub resolved_steps: u64,
    /// Members active in an exploratory solve but not correct (dropped), summed over steps.
    pub dropped: u64,
    /// Groups whose correct member was not the start's closest feature, summed over steps.
    pub switched: u64,
}

/// One run of the segment-end scene.
#[derive(Clone, Debug, PartialEq)]
pub struct SegmentEndRun {
    pub activation: String,
    pub throw: Throw,
    /// Throw speed u: the true velocity at landing is (±u, −u) (m/s).
    pub speed: f64,
    /// Time step (s).
    pub h: f64,
    /// Smallest distance of the true path from the table's end, less r (m): > 0, the true disk
    /// never touches the corner.
    pub clearance: f64,
    /// Largest penetration after any step (m).
    pub max_penetration: f64,
    /// Final centre (m).
    pub end: DVec2,
    /// The true final centre (m).
    pub truth: DVec2,
    /// |v_x(T) − v_x0| (m/s): the horizontal speed the disk gained or lost (frictionless: 0).
    pub vx_error: f64,
    /// Where it ended: "table", "floor" or "elsewhere".
    pub outcome: &'static str,
    /// The outcome of the true path ("table" for landing, "floor" for miss).
    pub expected: &'static str,
    pub group: GroupTotals,
    /// The step error that ended the run, if any.
    pub failure: Option<String>,
    /// The centre after every step (m), the initial one first.
    pub path: Vec<DVec2>,
    /// The throw's initial velocity (m/s) and the scene's gravity (m/s², along −y).
    pub start_velocity: DVec2,
    pub gravity: DVec2,
}

impl SegmentEndRun {
    /// The true centre at time t (s): the continuous parabola from the throw until it reaches
    /// its rest height (r on the table, or on the floor), then sliding at the throw's v_x.
    pub fn true_centre(&self, t: f64) -> DVec2 {
        let p0 = self.path[0];
        let p = p0 + self.start_velocity * t + 0.5 * self.gravity * t * t;
        DVec2::new(p.x, p.y.max(self.truth.y))
    }

    /// |final centre − true final centre| (m): the modelling error at the end of the run.
    pub fn position_error(&self) -> f64 {
        (self.end - self.truth).length()
    }

    pub fn correct(&self) -> bool {
        self.failure.is_none() && self.outcome == self.expected
    }
}

/// One run of the gap scene.
#[derive(Clone, Debug, PartialEq)]
pub struct GapRun {
    pub activation: String,
    /// Throw speed (m/s, downwards).
    pub speed: f64,
    pub h: f64,
    pub max_penetration: f64,
    pub end: DVec2,
    /// The true rest: centred in the gap touching both ends (m).
    pub rest: DVec2,
    /// Final gaps to the left and right inner ends (m; < 0 penetrating).
    pub gaps: [f64; 2],
    /// Final speed of the disk (m/s).
    pub speed_end: f64,
    /// "in the gap" (within `REST_TOLERANCE` of the true rest; type 1 jitters there at ~g h),
    /// "still moving" (elsewhere, faster than `MOVING_SPEED`), "held above the gap" (on the
    /// segments' lines), "thrown out" (onto a table), "fell through" or "elsewhere".
    pub outcome: &'static str,
    pub group: GroupTotals,
    pub failure: Option<String>,
    pub path: Vec<DVec2>,
}

impl GapRun {
    pub fn position_error(&self) -> f64 {
        (self.end - self.rest).length()
    }

    /// At rest in the gap touching both ends (gaps within `TOUCH_TOLERANCE` of 0).
    pub fn touching_both(&self) -> bool {
        self.failure.is_none() && self.gaps.iter().all(|g| g.abs() <= TOUCH_TOLERANCE)
    }
}

fn body(scene: &PlanarScene, name: &str) -> Result<usize, Error> {
    scene
        .model
        .bodies
        .iter()
        .position(|b| b.name == name)
        .ok_or_else(|| Error::Experiment(format!("{}: the experiment needs a body named `{name}`", scene.desc.file)))
}

/// A horizontal segment body's ends (left, right) in the world, or an error naming it.
fn horizontal_segment(scene: &PlanarScene, i: usize) -> Result<(DVec2, DVec2), Error> {
    let placed = Placed::new(&scene.model.bodies[i].shape, &scene.initial.bodies[i].pose());
    match placed {
        Placed::Segment { a, b } if (a.y - b.y).abs() <= 1e-12 && a.x != b.x => {
            Ok(if a.x < b.x { (a, b) } else { (b, a) })
        }
        _ => Err(Error::Experiment(format!(
            "{}: body `{}` must be a horizontal segment",
            scene.desc.file, scene.model.bodies[i].name
        ))),
    }
}

fn disk_radius(scene: &PlanarScene, i: usize) -> Result<f64, Error> {
    match scene.model.bodies[i].shape {
        crate::planar::PlanarShape::Disk { radius } if !scene.model.bodies[i].fixed => Ok(radius),
        _ => Err(Error::Experiment(format!(
            "{}: body `disk` must be a dynamic disk",
            scene.desc.file
        ))),
    }
}

/// The scene's world at step `h` with `activation`.
fn world(scene: &PlanarScene, h: f64, activation: &str) -> Result<PlanarWorld, Error> {
    if !(h > 0.0 && h.is_finite()) {
        return Err(Error::Experiment(format!("time step must be positive, got {h} s")));
    }
    if !ACTIVATIONS.contains(&activation) {
        return Err(Error::Experiment(format!(
            "unknown activation `{activation}`; use one of {}",
            ACTIVATIONS.join(", ")
        )));
    }
    let mut params: Vec<(String, ParamInput)> = scene
        .desc
        .contact
        .params
        .iter()
        .filter(|p| p.name != "activation")
        .map(|p| (p.name.clone(), p.value.clone()))
        .collect();
    params.push(("activation".into(), ParamInput::Word(activation.into())));
    let contact = build(&scene.desc.contact.model, &params)
        .map_err(|e| Error::Experiment(format!("{}: {e}", scene.desc.file)))?;
    let mut model = scene.model.clone();
    model.settings.time_step = h;
    Ok(PlanarWorld::new(model, scene.initial.clone(), contact))
}

/// Step `world` to its duration, recording the path of body `disk`, the largest penetration and
/// the group counts; a step error ends the run and is returned as text.
fn run_to_end(
    world: &mut PlanarWorld,
    disk: usize,
) -> (Vec<DVec2>, f64, GroupTotals, Option<String>) {
    let mut path = vec![world.state.bodies[disk].position];
    let (mut worst, mut totals) = (0.0f64, GroupTotals::default());
    let steps = world.planned_steps();
    while world.steps < steps {
        match world.step() {
            Ok(r) => {
                worst = worst.max(r.max_penetration);
                if let Some(g) = r.group {
                    totals.resolved_steps += g.resolved as u64;
                    totals.dropped += g.dropped as u64;
                    totals.switched += g.switched as u64;
                }
                path.push(world.state.bodies[disk].position);
            }
            Err(e) => return (path, worst, totals, Some(e.to_string())),
        }
    }
    (path, worst, totals, None)
}

/// The throw's initial centre and velocity and its true path's landing point (the point where
/// its centre reaches contact height r above the table), for the table's left end `corner`.
fn throw_start(throw: Throw, corner: DVec2, r: f64, u: f64, g: DVec2) -> (DVec2, DVec2, DVec2) {
    let (land, v_land) = match throw {
        Throw::Landing => (corner + DVec2::new(LANDING_OFFSET, r), DVec2::new(u, -u)),
        Throw::Miss => (corner + DVec2::new(-MISS_OFFSET, r), DVec2::new(-u, -u)),
    };
    let t = LEAD_TIME;
    (land - v_land * t + 0.5 * g * t * t, v_land - g * t, land)
}

/// Smallest distance from `corner`, less r, of the continuous parabola from (p0, v0) under g,
/// sampled every 1e-5 s, while the centre is above the corner's height less r and, for the
/// landing throw, before the landing (after it the disk slides away on the table).
fn clearance(throw: Throw, p0: DVec2, v0: DVec2, g: DVec2, corner: DVec2, r: f64) -> f64 {
    let dt = 1e-5;
    let mut best = f64::INFINITY;
    for k in 0.. {
        let t = k as f64 * dt;
        if throw == Throw::Landing && t > LEAD_TIME {
            break;
        }
        let p = p0 + v0 * t + 0.5 * g * t * t;
        if p.y < corner.y - r || t > 10.0 {
            break;
        }
        best = best.min((p - corner).length() - r);
    }
    best
}

/// One run of the segment-end scene (bodies `table`, a horizontal segment whose left end is the
/// corner; `floor`, a line with upward normal; `disk`): `throw` at speed `u` (m/s), step `h`
/// (s), `activation` one of [`ACTIVATIONS`]. Bad scenes and arguments are errors; a step error
/// is recorded in the run.
pub fn segment_end_run(
    scene: &PlanarScene,
    throw: Throw,
    u: f64,
    h: f64,
    activation: &str,
) -> Result<SegmentEndRun, Error> {
    if !(u > 0.0 && u.is_finite()) {
        return Err(Error::Experiment(format!("throw speed must be positive, got {u} m/s")));
    }
    let (table, floor, disk) = (body(scene, "table")?, body(scene, "floor")?, body(scene, "disk")?);
    let (corner, _) = horizontal_segment(scene, table)?;
    let r = disk_radius(scene, disk)?;
    let floor_level = match Placed::new(&scene.model.bodies[floor].shape, &scene.initial.bodies[floor].pose()) {
        Placed::Line { normal, offset } if (normal - DVec2::Y).length() <= 1e-12 => offset,
        _ => {
            return Err(Error::Experiment(format!(
                "{}: body `floor` must be a line with normal [0, 1]",
                scene.desc.file
            )))
        }
    };
    let g = scene.model.settings.gravity;
    if g.x != 0.0 || g.y >= 0.0 {
        return Err(Error::Experiment(format!(
            "{}: the experiment needs gravity along −y, got {g}",
            scene.desc.file
        )));
    }
    let mut w = world(scene, h, activation)?;
    let (p0, v0, _) = throw_start(throw, corner, r, u, g);
    w.state.bodies[disk].position = p0;
    w.state.bodies[disk].velocity = v0;
    w.state.bodies[disk].angular_velocity = 0.0;
    let (path, max_penetration, group, failure) = run_to_end(&mut w, disk);
    let end = *path.last().expect("the initial centre");
    let t_end = w.state.time;
    let (expected, rest_y) = match throw {
        Throw::Landing => ("table", corner.y + r),
        Throw::Miss => ("floor", floor_level + r),
    };
    let outcome = if end.y >= corner.y && end.x >= corner.x {
        "table"
    } else if end.y < 0.5 * (corner.y + floor_level) {
        "floor"
    } else {
        "elsewhere"
    };
    Ok(SegmentEndRun {
        activation: activation.into(),
        throw,
        speed: u,
        h,
        clearance: clearance(throw, p0, v0, g, corner, r),
        max_penetration,
        end,
        truth: DVec2::new(p0.x + v0.x * t_end, rest_y),
        vx_error: (w.state.bodies[disk].velocity.x - v0.x).abs(),
        outcome,
        expected,
        group,
        failure,
        path,
        start_velocity: v0,
        gravity: g,
    })
}

/// One run of the gap scene (bodies `left` and `right`, collinear horizontal segments whose
/// inner ends are closer than the disk's diameter; `disk`): the disk at its scene position thrown
/// down at `speed` (m/s), step `h` (s), `activation` one of [`ACTIVATIONS`].
pub fn gap_run(scene: &PlanarScene, speed: f64, h: f64, activation: &str) -> Result<GapRun, Error> {
    if !(speed >= 0.0 && speed.is_finite()) {
        return Err(Error::Experiment(format!("throw speed must be ≥ 0, got {speed} m/s")));
    }
    let (left, right, disk) = (body(scene, "left")?, body(scene, "right")?, body(scene, "disk")?);
    let (_, inner_left) = horizontal_segment(scene, left)?;
    let (inner_right, _) = horizontal_segment(scene, right)?;
    let r = disk_radius(scene, disk)?;
    let half = 0.5 * (inner_right.x - inner_left.x);
    if (inner_left.y - inner_right.y).abs() > 1e-12 || !(half > 0.0 && half < r) {
        return Err(Error::Experiment(format!(
            "{}: `left` and `right` must be collinear with a gap between them narrower than the disk",
            scene.desc.file
        )));
    }
    let level = inner_left.y;
    let rest = DVec2::new(0.5 * (inner_left.x + inner_right.x), level + (r * r - half * half).sqrt());
    let mut w = world(scene, h, activation)?;
    w.state.bodies[disk].velocity = DVec2::new(0.0, -speed);
    w.state.bodies[disk].angular_velocity = 0.0;
    let (path, max_penetration, group, failure) = run_to_end(&mut w, disk);
    let end = *path.last().expect("the initial centre");
    let gaps = [
        (end - inner_left).length() - r,
        (end - inner_right).length() - r,
    ];
    let over_gap = (end.x - rest.x).abs() < half;
    let speed_end = w.state.bodies[disk].velocity.length();
    let outcome = if (end - rest).length() <= REST_TOLERANCE {
        "in the gap"
    } else if speed_end > MOVING_SPEED {
        "still moving"
    } else if over_gap && end.y >= level + r - REST_TOLERANCE {
        "held above the gap"
    } else if !over_gap && end.y >= level {
        "thrown out"
    } else if end.y < level - r {
        "fell through"
    } else {
        "elsewhere"
    };
    Ok(GapRun {
        activation: activation.into(),
        speed,
        h,
        max_penetration,
        end,
        rest,
        gaps,
        speed_end,
        outcome,
        group,
        failure,
        path,
    })
}
