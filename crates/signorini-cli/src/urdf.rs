//! `signorini check robot.urdf`: a URDF file (by its `.urdf` extension) is imported by
//! `multibody::urdf` with the default options (floating base, fixed joints merged) and what it
//! became is printed: the tree's links and their joints, the URDF's joints by type, the degrees
//! of freedom, the mass, the collision geometry, and the warnings (on standard error).
//!
//! `signorini run robot.urdf`: the robot stood on the ground plane z = 0 and run with contact
//! (`simulation::multibody_run`, `contact::tree`): `--model stewart-trinkle` (default) or
//! `multi-point`, their parameters by `--param`, gravity, joint damping. `--no-ground` runs it
//! contact-free as before (RK4 by default; a floating base then falls, with a warning).
//! `--html` also writes `links.csv`, `contacts.csv` and the replay page (docs/replay.md). `bench`
//! still refuses a URDF.
use crate::{input_error, Failure, Overrides};
use serde_json::json;
use signorini::multibody::urdf::{self, UrdfOptions, UrdfRobot};
use signorini::multibody::{JointKind, MbIntegrator, Tree};
use signorini::scene::{ParamDesc, Scene};
use signorini::simulation::multibody_run::{base_kind, run_tree, TreeContactModel, TreeRun};
use signorini::simulation::robot_scene::tree_run;
use signorini::simulation::run::{remove_stale, RunConfig};
use signorini::DVec3;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Time step (s) of a URDF run without `--dt`.
pub const DEFAULT_TIME_STEP: f64 = 1e-3;
/// Duration (s) of a URDF run without `--duration`.
pub const DEFAULT_DURATION: f64 = 5.0;
/// Coulomb friction coefficient (–) of every collision shape against the ground without
/// `--param friction=...`.
pub const DEFAULT_FRICTION: f64 = 0.5;

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
    /// URDF only: no ground plane: a contact-free run (RK4 by default).
    #[arg(long)]
    no_ground: bool,
    /// URDF only: start the robot's lowest collision point this high above the ground (m,
    /// default 0: standing on it).
    #[arg(long, value_name = "H", allow_negative_numbers = true)]
    height: Option<f64>,
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
            (self.no_ground, "--no-ground"),
            (self.height.is_some(), "--height"),
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
        "{}: `signorini {command}` does not step a URDF yet\n  help: `signorini check {}` \
         imports it and prints its tree; `signorini run` runs it on a ground plane (it prints \
         its steps/s)",
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

/// Flags of `run` that mean nothing on a URDF run: no impulse file yet; no contact model or
/// replay page without a ground.
fn refuse_scene_flags(
    o: &Overrides,
    robot_args: &RobotArgs,
    html: bool,
    impulses: bool,
) -> Result<(), Failure> {
    let ng = robot_args.no_ground;
    let refused = [
        (
            ng && html,
            "--html",
            "a run without ground (--no-ground) places no collision shapes for the page to draw",
        ),
        (
            impulses,
            "--impulses",
            "a URDF run writes no impulses.csv yet",
        ),
        (
            ng && o.model.is_some(),
            "--model",
            "a run without ground (--no-ground) has no contact model",
        ),
        (
            ng && !o.params.is_empty(),
            "--param",
            "a run without ground (--no-ground) has no contact model",
        ),
        (
            ng && robot_args.height.is_some(),
            "--height",
            "a run without ground (--no-ground) has nothing to stand on",
        ),
    ]
    .into_iter()
    .find(|(given, _, _)| *given);
    match refused {
        None => Ok(()),
        Some((_, flag, why)) => Err(input_error(anyhow::anyhow!("{flag}: {why}; remove {flag}"))),
    }
}

/// The contact model of `--model` (default stewart-trinkle) with every `--param` applied, and
/// the friction coefficient (`--param friction`, –).
fn contact_model(o: &Overrides) -> Result<(TreeContactModel, f64), Failure> {
    let name = o.model.as_deref().unwrap_or(TreeContactModel::NAMES[0]);
    let mut model = TreeContactModel::by_name(name).ok_or_else(|| {
        input_error(anyhow::anyhow!(
            "--model `{name}` is not supported on an articulated robot (a URDF run); the models \
             a tree supports: {} (default), {}",
            TreeContactModel::NAMES[0],
            TreeContactModel::NAMES[1..].join(", ")
        ))
    })?;
    let mut friction = DEFAULT_FRICTION;
    for p in &o.params {
        let (key, value) = crate::parse_param(p)?;
        let result = match (key, &value) {
            ("friction", signorini::contact::ParamInput::Number(mu)) => {
                friction = *mu;
                Ok(())
            }
            ("friction", other) => Err(format!("friction = {other}: must be a number (–)")),
            _ => model.set(key, &value),
        };
        result.map_err(|e| {
            input_error(anyhow::anyhow!(
                "--param {p}: {e} (friction, the shapes' Coulomb coefficient, applies to both)"
            ))
        })?;
    }
    Ok((model, friction))
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

/// The integrator of a URDF run: `default` (RK4 without ground, semi-implicit Euler on it)
/// unless `--integrator` says.
fn integrator(o: &Overrides, default: MbIntegrator) -> Result<MbIntegrator, Failure> {
    match o.integrator.as_deref() {
        None => Ok(default),
        Some("rk4") => Ok(MbIntegrator::Rk4),
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
    run.integrator = integrator(
        o,
        if robot_args.no_ground {
            MbIntegrator::Rk4
        } else {
            MbIntegrator::SemiImplicitEuler
        },
    )?;
    let at = |flag: &str, e| input_error(anyhow::anyhow!("{}: {flag}: {e}", path.display()));
    for (name, value) in parse_joint_values("--q0", &robot_args.q0)? {
        run.set_initial(name, Some(value), None)
            .map_err(|e| at("--q0", e))?;
    }
    for (name, value) in parse_joint_values("--v0", &robot_args.v0)? {
        run.set_initial(name, None, Some(value))
            .map_err(|e| at("--v0", e))?;
    }
    if !robot_args.no_ground {
        let (model, friction) = contact_model(o)?;
        if o.integrator.as_deref() == Some("rk4") {
            eprintln!(
                "note: `{}` integrates by its own {} and ignores --integrator rk4",
                model.name(),
                match model {
                    TreeContactModel::StewartTrinkle(_) =>
                        "semi-implicit Euler (velocity-level time stepping)",
                    TreeContactModel::Impulse(_) =>
                        "semi-implicit Euler (impulses, then the free velocity)",
                    TreeContactModel::Penalty(_) | TreeContactModel::Hybrid(_) =>
                        "linearly implicit Euler (the penalty forces at the end of the step)",
                }
            );
        }
        let height = robot_args.height.unwrap_or(0.0);
        run.place_on_ground(&robot.collisions, model, friction, height)
            .map_err(|e| input_error(anyhow::anyhow!("{}: {e}", path.display())))?;
        if robot_args.height.is_some() && base_kind(&run.tree) == "world" {
            eprintln!(
                "note: {}: the robot hangs from its URDF's `world` link, which says where it is: \
                 --height does not move it",
                path.display()
            );
        }
    }
    run.options = json!({
        "fixed_base": robot_args.fixed_base,
        "no_damping": robot_args.no_damping,
        "no_ground": robot_args.no_ground,
        "height": robot_args.height,
        "model": o.model,
        "params": o.params,
        "q0": robot_args.q0.join(","),
        "v0": robot_args.v0.join(","),
        "trajectory_interval": 0.0,
    });
    run.check()
        .map_err(|e| input_error(anyhow::anyhow!("{}: {e}", path.display())))?;
    Ok(run)
}

/// `signorini run robot.urdf`: a contact-free run of the robot's tree.
pub(crate) fn run(
    path: &Path,
    o: &Overrides,
    out: Option<PathBuf>,
    (robot_args, html_fps, impulses): (&RobotArgs, Option<f64>, bool),
) -> Result<(), Failure> {
    refuse_scene_flags(o, robot_args, html_fps.is_some(), impulses)?;
    let run = prepare_run(path, o, robot_args)?;
    if base_kind(&run.tree) == "floating" && run.ground.is_none() {
        eprintln!(
            "warning: {}: --no-ground: this run is contact-free, so the floating base falls \
             freely under gravity; without --no-ground it stands on a ground plane, and \
             --fixed-base welds the root link to the world",
            path.display()
        );
    }
    execute(path, &run, out, (0.0, true), html_fps)
}

/// Run a prepared tree run from `path` into `out` (default `out/STEM`), writing trajectory.csv
/// every `interval` s (0: every step), and say what happened; `placed`: the run stood a robot
/// on the ground (`TreeRun::place_on_ground`), so say where; `html_fps`: also record the links'
/// poses and the contacts and write the replay page at that many frames per simulated second.
fn execute(
    path: &Path,
    run: &TreeRun,
    out: Option<PathBuf>,
    (interval, placed): (f64, bool),
    html_fps: Option<f64>,
) -> Result<(), Failure> {
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
        trajectory_interval: interval,
        out_dir: &out_dir,
        interrupt: Some(interrupt),
        contacts: html_fps.map(|fps| 1.0 / fps),
        impulses: false,
    };
    let summary = run_tree(&cfg, run, &mut |_, _| {}).map_err(input_error)?;
    let timing = format!(
        "{} steps, {:.3} s simulated in {:.3} s wall ({:.0} steps/s)",
        summary.steps, summary.simulated_time, summary.wall_time, summary.steps_per_second
    );
    match (&run.ground, &summary.contact) {
        (Some(g), Some(c)) => {
            let base = if placed && base_kind(&run.tree) == "floating" {
                // q of a floating root: x, y, z first (docs/multibody.md).
                format!("; base at z = {:.6} m", summary.final_q[2])
            } else {
                String::new()
            };
            say!(
                "{}: on the ground under {}, {timing}; max penetration {:.3e} m, {:.2} contact \
                 points per step, {} solver failures{base}",
                path.display(),
                g.model.name(),
                c.max_penetration,
                c.mean_contacts,
                c.solver_failures,
            );
            if placed {
                say!(
                    "  placed {:+.6} m along z (lowest collision point {:.6} m above the ground at the start)",
                    g.shift,
                    g.clearance
                );
            }
        }
        _ => {
            say!(
                "{}: contact-free articulated run, {timing}; energy drift {:.3e} relative (max |E - E0| = {:.3e} J)",
                path.display(),
                summary.relative_energy_drift,
                summary.max_energy_change
            );
            if run.tree.links().iter().any(|l| l.damping > 0.0) && summary.steps > 0 {
                say!("  (the URDF's joint damping dissipates energy; --no-damping measures the integrator's drift alone)");
            }
        }
    }
    let extra = if html_fps.is_some() {
        ", links.csv, contacts.csv"
    } else {
        ""
    };
    say!(
        "wrote {}/{{scene.json, trajectory.csv, metrics.csv, summary.json{extra}}}",
        out_dir.display()
    );
    // The page shows whatever the run wrote, a failed or interrupted run's steps included.
    if let Some(fps) = html_fps {
        match crate::replay::write_replay(&out_dir, fps) {
            Ok((page, stats)) => crate::report_page(&page, &stats),
            Err(e) if summary.error.is_none() && !summary.interrupted => {
                return Err(input_error(e));
            }
            Err(e) => eprintln!("note: no replay page: {e}"),
        }
    }
    crate::run_outcome(
        summary
            .interrupted
            .then_some((summary.simulated_time, summary.steps)),
        summary.error,
        &out_dir,
    )
}

/// A scene with robots (`[[robot]]`): the scene's forest of trees (`simulation::robot_scene`)
/// with the command line's --dt, --duration, --model and --param, ready to run.
fn prepare_robot_scene(path: &Path, mut scene: Scene, o: &Overrides) -> Result<TreeRun, Failure> {
    if let Some(name) = &o.model {
        scene.desc.contact.model = name.clone();
        scene.desc.contact.model_line = 0;
        scene.desc.contact.params.clear();
    }
    for p in &o.params {
        let (name, value) = crate::parse_param(p)?;
        scene.desc.contact.params.push(ParamDesc {
            name: name.to_string(),
            value,
            line: 0,
            key: "--param".into(),
        });
    }
    let (mut run, warnings) = tree_run(&scene).map_err(input_error)?;
    for w in &warnings {
        eprintln!("warning: {w}");
    }
    if let Some(dt) = o.dt {
        run.time_step = dt;
    }
    if let Some(t) = o.duration {
        run.duration = t;
    }
    if o.integrator.is_some() {
        eprintln!("note: a scene with robots integrates by its contact model's own step; --integrator is ignored");
    }
    run.check()
        .map_err(|e| input_error(anyhow::anyhow!("{}: {e}", path.display())))?;
    Ok(run)
}

/// `signorini run scene.toml` for a scene with robots.
pub(crate) fn run_scene(
    path: &Path,
    scene: Scene,
    o: &Overrides,
    out: Option<PathBuf>,
    (html_fps, impulses): (Option<f64>, bool),
) -> Result<(), Failure> {
    refuse_scene_flags(o, &RobotArgs::default(), html_fps.is_some(), impulses)?;
    let interval = scene.desc.output.trajectory_interval;
    let run = prepare_robot_scene(path, scene, o)?;
    execute(path, &run, out, (interval, false), html_fps)
}

/// `signorini check scene.toml` for a scene with robots: the forest it builds.
pub(crate) fn check_scene(path: &Path, scene: Scene) -> Result<(), Failure> {
    let robots = scene.desc.robots.len();
    let run = prepare_robot_scene(path, scene, &Overrides::none())?;
    let tree = &run.tree;
    let roots = tree.links().iter().filter(|l| l.parent.is_none()).count();
    let g = run
        .ground
        .as_ref()
        .expect("a scene with robots has a ground");
    say!(
        "{}: ok — {robots} robots and {} bodies as a forest of {roots} trees: {} links, nq = {}, nv = {}, {} collision shapes; model {}, ground at z = {} m; {} steps of {} s",
        path.display(),
        roots - robots,
        tree.len(),
        tree.nq(),
        tree.nv(),
        g.shapes.len(),
        g.model.name(),
        g.model.ground().height,
        run.planned_steps(),
        run.time_step
    );
    Ok(())
}
