//! `signorini check robot.urdf`: a URDF file (by its `.urdf` extension) is imported by
//! `multibody::urdf` with the default options (floating base, fixed joints merged) and what it
//! became is printed: the tree's links and their joints, the URDF's joints by type, the degrees
//! of freedom, the mass, the collision geometry, and the warnings (on standard error).
//!
//! `signorini run robot.urdf`: a contact-free run of the tree (`simulation::multibody_run`):
//! gravity, joint damping, RK4 by default; a floating base just falls, with a warning, since the
//! tree has no contact yet (issue 18 item 2). `bench` still refuses a URDF.
use crate::{input_error, Failure, Overrides};
use serde_json::json;
use signorini::multibody::urdf::{self, UrdfOptions, UrdfRobot};
use signorini::multibody::{JointKind, MbIntegrator, Tree};
use signorini::simulation::multibody_run::{base_kind, run_tree, TreeRun};
use signorini::simulation::run::{remove_stale, RunConfig};
use signorini::DVec3;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Time step (s) of a URDF run without `--dt`.
pub const DEFAULT_TIME_STEP: f64 = 1e-3;
/// Duration (s) of a URDF run without `--duration`.
pub const DEFAULT_DURATION: f64 = 5.0;

/// `run`'s options for a URDF robot (refused for a scene file).
#[derive(clap::Args, Clone, Debug, Default)]
pub(crate) struct RobotArgs {
    /// URDF only: weld the root link to the world at its URDF pose (default: a floating base).
    #[arg(long)]
    fixed_base: bool,
    /// URDF only: initial joint positions, NAME=VALUE[,NAME=VALUE...] (rad for revolute, m for
    /// prismatic joints; repeatable).
    #[arg(long, value_name = "NAME=VALUE,...")]
    q0: Vec<String>,
    /// URDF only: initial joint velocities, NAME=VALUE[,...] (rad/s or m/s; repeatable).
    #[arg(long, value_name = "NAME=VALUE,...")]
    v0: Vec<String>,
    /// URDF only: ignore the joints' <dynamics damping> (to check energy conservation).
    #[arg(long)]
    no_damping: bool,
    /// URDF only: gravity GX,GY,GZ in m/s², world axes (default 0,0,-9.81).
    #[arg(long, value_name = "GX,GY,GZ", allow_hyphen_values = true)]
    gravity: Option<String>,
}

impl RobotArgs {
    /// The first URDF-only flag given, for refusing it on a scene file.
    pub(crate) fn first_given(&self) -> Option<&'static str> {
        [
            (self.fixed_base, "--fixed-base"),
            (!self.q0.is_empty(), "--q0"),
            (!self.v0.is_empty(), "--v0"),
            (self.no_damping, "--no-damping"),
            (self.gravity.is_some(), "--gravity"),
        ]
        .into_iter()
        .find_map(|(given, flag)| given.then_some(flag))
    }
}

/// Is `path` a URDF file (extension `.urdf`, any case)?
pub fn is_urdf(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("urdf"))
}

/// `bench` on a URDF: exit 2 saying what works instead.
pub fn refuse_to_step(path: &Path, command: &str) -> Result<(), Failure> {
    if !is_urdf(path) {
        return Ok(());
    }
    Err(input_error(anyhow::anyhow!(
        "{}: `signorini {command}` does not step a URDF yet: articulated robots have no contact \
         so far (issue 18 item 2)\n  help: `signorini check {}` imports it and prints its tree; \
         `signorini run` runs it contact-free",
        path.display(),
        path.display()
    )))
}

pub fn check(path: &Path) -> Result<(), Failure> {
    let robot = urdf::load(path, &UrdfOptions::default()).map_err(input_error)?;
    for w in &robot.warnings {
        eprintln!("warning: {w}");
    }
    say!("{}", summary(path, &robot));
    Ok(())
}

fn joint_name(kind: &JointKind) -> &'static str {
    kind.name()
}

/// `3 continuous, 2 fixed`: how many of each, in name order.
fn counts<'a>(items: impl Iterator<Item = &'a str>) -> String {
    let mut by_name: BTreeMap<&str, usize> = BTreeMap::new();
    for i in items {
        *by_name.entry(i).or_default() += 1;
    }
    if by_name.is_empty() {
        return "none".into();
    }
    by_name
        .iter()
        .map(|(name, n)| format!("{n} {name}"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn summary(path: &Path, robot: &UrdfRobot) -> String {
    let tree = &robot.tree;
    let links = tree.links();
    let base = match links.first() {
        Some(l) if l.parent.is_none() && l.joint == JointKind::Floating => "floating base",
        Some(l) if l.parent.is_none() && l.joint == JointKind::Fixed => "base welded to the world",
        _ => "hung from the world by its URDF's joints (its root link `world` is the world)",
    };
    let mut out = format!(
        "{}: ok — URDF robot \"{}\", {base}",
        path.display(),
        robot.name
    );
    let list = links
        .iter()
        .map(|l| format!("{} ({})", l.name, joint_name(&l.joint)))
        .collect::<Vec<_>>()
        .join(", ");
    out += &format!("\n  links: {} in the tree: {list}", links.len());
    let merged: Vec<String> = robot
        .frames
        .iter()
        .filter_map(|f| match f.link {
            Some(i) if links[i].name != f.name => Some(format!("{} → {}", f.name, links[i].name)),
            _ => None,
        })
        .collect();
    if !merged.is_empty() {
        out += &format!(
            "\n  merged by fixed joints into the link that carries them: {}",
            merged.join(", ")
        );
    }
    out += &format!(
        "\n  URDF joints: {}",
        counts(robot.joints.iter().map(|j| j.urdf_type))
    );
    out += &format!(
        "\n  degrees of freedom: nq = {}, nv = {}",
        tree.nq(),
        tree.nv()
    );
    // Rounded to 1e-9 kg: the sum of the file's masses without its round-off digits.
    out += &format!("\n  mass: {} kg", (robot.mass() * 1e9).round() / 1e9);
    out += &format!(
        "\n  collision geometry: {} ({})",
        robot.collisions.len(),
        counts(robot.collisions.iter().map(|c| c.geometry))
    );
    out += &format!("\n  warnings: {}", robot.warnings.len());
    out
}

/// Flags of `run` that mean nothing without contact or a scene file.
fn refuse_scene_flags(o: &Overrides, html: bool, impulses: bool) -> Result<(), Failure> {
    let refused = [
        (o.model.is_some(), "--model"),
        (!o.params.is_empty(), "--param"),
        (html, "--html"),
        (impulses, "--impulses"),
    ]
    .into_iter()
    .find_map(|(given, flag)| given.then_some(flag));
    match refused {
        None => Ok(()),
        Some(flag) => Err(input_error(anyhow::anyhow!(
            "{flag}: a URDF run has no contact model and no replay page yet (issue 18 item 2); \
             remove {flag}"
        ))),
    }
}

/// `GX,GY,GZ` (m/s²).
fn parse_gravity(text: &str) -> Result<DVec3, Failure> {
    let parts: Vec<Option<f64>> = text
        .split(',')
        .map(|p| p.trim().parse::<f64>().ok().filter(|x| x.is_finite()))
        .collect();
    match parts.as_slice() {
        [Some(x), Some(y), Some(z)] => Ok(DVec3::new(*x, *y, *z)),
        _ => Err(input_error(anyhow::anyhow!(
            "--gravity `{text}` is not three finite numbers GX,GY,GZ (m/s²), e.g. --gravity 0,0,0"
        ))),
    }
}

/// `NAME=VALUE,NAME=VALUE` pairs of every `--q0` (or `--v0`) given.
fn parse_joint_values<'a>(flag: &str, lists: &'a [String]) -> Result<Vec<(&'a str, f64)>, Failure> {
    let mut out = Vec::new();
    for item in lists.iter().flat_map(|l| l.split(',')) {
        let parsed = item
            .split_once('=')
            .and_then(|(n, v)| Some((n.trim(), v.trim().parse::<f64>().ok()?)))
            .filter(|(n, v)| !n.is_empty() && v.is_finite());
        match parsed {
            Some(pair) => out.push(pair),
            None => {
                return Err(input_error(anyhow::anyhow!(
                    "{flag} `{item}` is not NAME=VALUE with a finite number, e.g. {flag} shoulder=0.5,elbow=-0.3"
                )))
            }
        }
    }
    Ok(out)
}

/// The integrator of a URDF run: RK4 unless `--integrator semi-implicit-euler`.
fn integrator(o: &Overrides) -> Result<MbIntegrator, Failure> {
    match o.integrator.as_deref() {
        None | Some("rk4") => Ok(MbIntegrator::Rk4),
        Some("semi-implicit-euler") => Ok(MbIntegrator::SemiImplicitEuler),
        Some(other) => Err(input_error(anyhow::anyhow!(
            "--integrator `{other}`: a URDF run integrates by rk4 (default) or semi-implicit-euler"
        ))),
    }
}

/// The tree without joint damping.
fn without_damping(tree: &Tree) -> Result<Tree, Failure> {
    let links = tree
        .links()
        .iter()
        .map(|l| l.clone().damping(0.0))
        .collect();
    Tree::new(links, tree.gravity).map_err(input_error)
}

/// Import the URDF and set the run up from the flags.
fn prepare_run(path: &Path, o: &Overrides, robot_args: &RobotArgs) -> Result<TreeRun, Failure> {
    let gravity = match &robot_args.gravity {
        Some(g) => parse_gravity(g)?,
        None => UrdfOptions::default().gravity,
    };
    let options = UrdfOptions {
        floating_base: !robot_args.fixed_base,
        gravity,
        ..UrdfOptions::default()
    };
    let robot = urdf::load(path, &options).map_err(input_error)?;
    for w in &robot.warnings {
        eprintln!("warning: {w}");
    }
    let positive = |name: &str, v: Option<f64>, default: f64| match v {
        None => Ok(default),
        Some(x) if x.is_finite() && x > 0.0 => Ok(x),
        Some(x) => Err(input_error(anyhow::anyhow!(
            "--{name} must be a positive number of seconds, got {x}"
        ))),
    };
    let h = positive("dt", o.dt, DEFAULT_TIME_STEP)?;
    let duration = positive("duration", o.duration, DEFAULT_DURATION)?;
    let mut run = TreeRun::from_urdf(&robot, &path.display().to_string(), h, duration);
    if robot_args.no_damping {
        run.tree = without_damping(&run.tree)?;
    }
    run.integrator = integrator(o)?;
    let at = |flag: &str, e| input_error(anyhow::anyhow!("{}: {flag}: {e}", path.display()));
    for (name, value) in parse_joint_values("--q0", &robot_args.q0)? {
        run.set_initial(name, Some(value), None)
            .map_err(|e| at("--q0", e))?;
    }
    for (name, value) in parse_joint_values("--v0", &robot_args.v0)? {
        run.set_initial(name, None, Some(value))
            .map_err(|e| at("--v0", e))?;
    }
    run.options = json!({
        "fixed_base": robot_args.fixed_base,
        "no_damping": robot_args.no_damping,
        "q0": robot_args.q0.join(","),
        "v0": robot_args.v0.join(","),
        "trajectory_interval": 0.0,
    });
    run.check()
        .map_err(|e| input_error(anyhow::anyhow!("{}: --dt/--duration: {e}", path.display())))?;
    Ok(run)
}

/// `signorini run robot.urdf`: a contact-free run of the robot's tree.
pub(crate) fn run(
    path: &Path,
    o: &Overrides,
    out: Option<PathBuf>,
    (robot_args, html, impulses): (&RobotArgs, bool, bool),
) -> Result<(), Failure> {
    refuse_scene_flags(o, html, impulses)?;
    let run = prepare_run(path, o, robot_args)?;
    if base_kind(&run.tree) == "floating" {
        eprintln!(
            "warning: {}: contact for articulated bodies is not implemented yet (issue 18 item 2): \
             this run is contact-free, so the floating base falls freely under gravity; \
             --fixed-base welds the root link to the world",
            path.display()
        );
    }
    let out_dir = out.unwrap_or_else(|| {
        PathBuf::from("out").join(
            path.file_stem()
                .map_or_else(|| "robot".into(), |s| s.to_os_string()),
        )
    });
    for stale in ["energy.png", "penetration.png", "replay.html"] {
        remove_stale(&out_dir.join(stale)).map_err(input_error)?;
    }
    let interrupt = crate::on_interrupt("an interrupted run will leave no summary");
    let cfg = RunConfig {
        trajectory_interval: 0.0,
        out_dir: &out_dir,
        interrupt: Some(interrupt),
        contacts: None,
        impulses: false,
    };
    let summary = run_tree(&cfg, &run, &mut |_, _| {}).map_err(input_error)?;
    say!(
        "{}: contact-free articulated run, {} steps, {:.3} s simulated in {:.3} s wall ({:.0} steps/s); \
         energy drift {:.3e} relative (max |E - E0| = {:.3e} J)",
        path.display(),
        summary.steps,
        summary.simulated_time,
        summary.wall_time,
        summary.steps_per_second,
        summary.relative_energy_drift,
        summary.max_energy_change
    );
    if run.tree.links().iter().any(|l| l.damping > 0.0) && summary.steps > 0 {
        say!("  (the URDF's joint damping dissipates energy; --no-damping measures the integrator's drift alone)");
    }
    say!(
        "wrote {}/{{trajectory.csv, metrics.csv, summary.json}}",
        out_dir.display()
    );
    crate::run_outcome(
        summary
            .interrupted
            .then_some((summary.simulated_time, summary.steps)),
        summary.error,
        &out_dir,
    )
}
