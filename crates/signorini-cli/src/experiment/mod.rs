//! `signorini experiment NAME`: run one of the papers' experiments (`signorini::experiments`) on
//! the bundled scenes, print its figures as a table and write a CSV file and plots. The
//! experiments, their sources and their files are described in `docs/experiments.md`.
mod complementarity;
mod deformable;
mod grasp;
mod humanoid;
mod impulse;
mod mobile_robot;
mod peg;
mod penalty;
mod planar_nguyen_trinkle;
mod planar_peg;
mod pose;
mod robustness;

use crate::plot::{self, Axes, Band, BarGroup, Grid, Mark, Series};
use crate::progress::Progress;
use crate::{input_error, Failure};
use anyhow::anyhow;
pub use pose::PoseOptions;
use signorini::experiments::tree_drive::Model as TreeModel;
use signorini::multibody::urdf::{self, UrdfOptions, UrdfRobot};
use signorini::scene::{self, Scene};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// A named experiment of the `experiment` command.
struct Experiment {
    name: &'static str,
    summary: &'static str,
    run: fn(&mut Context) -> Result<(), Failure>,
}

const EXPERIMENTS: [Experiment; 22] = [
    Experiment {
        name: "activation",
        summary: "type 1 vs type 2 activation: sphere onto a plane and into a wedge, penetration vs v·h",
        run: complementarity::activation,
    },
    Experiment {
        name: "ramp",
        summary: "block on a 30° ramp: acceleration vs g (sin θ − μ cos θ)⁺ for μ from 0 to 1",
        run: complementarity::ramp,
    },
    Experiment {
        name: "box-stack",
        summary: "10 stacked boxes: drift, tilt, sinking; stewart-trinkle at h = 1e-2, 1e-3 vs deepest-point",
        run: complementarity::box_stack,
    },
    Experiment {
        name: "perturbed-block",
        summary: "resting cube under 10 random pushes: energy and penetration, deepest-point, multi-point, stewart-trinkle (Drumwright 2008 figs 10-12)",
        run: penalty::perturbed_block,
    },
    Experiment {
        name: "block-penetrating-plane",
        summary: "tilted cube starting 5 cm in the ground: kinetic energy and penetration, deepest-point vs multi-point (Drumwright 2008 figs 7-9)",
        run: penalty::block_penetrating_plane,
    },
    Experiment {
        name: "pile",
        summary: "boxes, prisms and spheres of 0-100 kg dropped into a box under the multi-point method: does it come to rest (Drumwright 2008 fig 13)",
        run: penalty::pile,
    },
    Experiment {
        name: "bounce",
        summary: "ball dropped on the ground under Hunt-Crossley for e = 0.3, 0.6, 0.9: measured restitution per impact (Deguet 1998)",
        run: penalty::bounce,
    },
    Experiment {
        name: "impulse-laws",
        summary: "Newton, Poisson, Stronge and algebraic collision laws on a rough rod and sphere against impact angle",
        run: impulse::laws,
    },
    Experiment {
        name: "box-drop",
        summary: "box dropped on the ground under each impulse loop and the hybrid: impact rate, kinetic energy, sinking (Deguet 1998 2.1, slides 41-42)",
        run: impulse::box_drop,
    },
    Experiment {
        name: "book-stack",
        summary: "stacks of 2, 5, 10 books: impulses per step with and without prioritization along gravity (slides 14, 43)",
        run: impulse::book_stack,
    },
    Experiment {
        name: "impulse-bounce",
        summary: "ball bouncing under each collision law for e = 0.3, 0.6, 0.9: measured restitution and apex per bounce",
        run: impulse::impulse_bounce,
    },
    Experiment {
        name: "thin-plate",
        summary: "fast ball against a 1 cm plate, 1 m/s to 5 km/s: tunnelling with and without time-of-impact regression",
        run: impulse::thin_plate,
    },
    Experiment {
        name: "pour-3d",
        summary: "random polyhedra poured into a box, 10 seeds x h = 1-16 ms: overlap volume under peg vs stewart-trinkle (Williams, Lu & Trinkle 2016 §6.2, fig. 24)",
        run: peg::pour_3d,
    },
    Experiment {
        name: "box-of-polygons",
        summary: "2D: random polygons poured into a box, 10 seeds x h = 1-16 ms: overlap area and traps under planar peg vs stewart-trinkle (Williams, Lu & Trinkle 2016 §6.1, figs 21-22)",
        run: planar_peg::box_of_polygons_experiment,
    },
    Experiment {
        name: "triangle-drop",
        summary: "2D: a triangle dropped corner-first onto a fixed triangle's apex: self-convergence of the final position against h = 1e-4 s, planar peg and stewart-trinkle",
        run: planar_peg::triangle_drop_experiment,
    },
    Experiment {
        name: "nguyen-trinkle-2d",
        summary: "2D: a disk thrown past a segment's end and onto a gap between two segments under type 1, type 2, the exploratory solve and the group of constraints: penetration, modelling error, wrong stops, h = 1-20 ms (Nguyen & Trinkle 2008 slides)",
        run: planar_nguyen_trinkle::nguyen_trinkle_2d,
    },
    Experiment {
        name: "robustness",
        summary: "every contact model on its defaults: 10-box stack at h = 1e-3 and 1/240, 64-box bin, cube started in the ground, perturbed cube; pass/fail against issue 16's targets",
        run: robustness::robustness,
    },
    Experiment {
        name: "pose-statistics",
        summary: "cube, insulator cap and stereo button dropped from random orientations under a penalty and an impulse model: resting-pose frequencies, chi-square of the fair die, the paper's tables 1-2 (Deguet 1998 §5)",
        run: pose::pose_statistics,
    },
    Experiment {
        name: "mobile-robot",
        summary: "a differential-drive robot (URDF, ten contact points a wheel) driving on a plane for 2,500 steps under penalty and stewart-trinkle contact on the tree: steps/s and their ratio beside the paper's (Drumwright 2008 §IV)",
        run: mobile_robot::mobile_robot,
    },
    Experiment {
        name: "humanoid",
        summary: "a 26-DOF humanoid on a differential-drive base (URDF) driving and moving its arms for 2,500 steps under penalty and stewart-trinkle contact on the tree: steps/s and their ratio beside the paper's (Drumwright 2008 §IV)",
        run: humanoid::humanoid,
    },
    Experiment {
        name: "grasp",
        summary: "a gripper arm (URDF, fixed base) grasps a box on the ground and lifts it 0.2 m by friction, under penalty and stewart-trinkle contact on the tree: lift, slip, penetration, steps/s",
        run: grasp::grasp,
    },
    Experiment {
        name: "deformable",
        summary: "particles and connectors (Deguet 1998 §3-4): cantilever tip deflection vs Euler-Bernoulli, rod wave speed vs sqrt(E/rho), energy drift with damping off (verlet, taylor)",
        run: deformable::deformable,
    },
];

/// Options of the `experiment` command.
pub struct Options {
    /// Output directory (default `out/experiment-NAME`).
    pub out: Option<PathBuf>,
    /// Fewer and shorter runs.
    pub quick: bool,
    /// Where the scenes are (default `examples`).
    pub examples: Option<PathBuf>,
    /// `pose-statistics` only: `--drops`, `--part`, `--model`, `--seed`.
    pub pose: PoseOptions,
}

/// The experiments' names with one-line descriptions, one a line.
pub fn listing() -> String {
    EXPERIMENTS
        .iter()
        .map(|e| format!("  {:<16} {}", e.name, e.summary))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Run the experiment `name`, or list the experiments when there is no name or `list` is set.
pub fn cmd_experiment(name: Option<&str>, list: bool, o: Options) -> Result<(), Failure> {
    let name = match name {
        Some(n) if !list => n,
        _ => {
            say!("experiments (signorini experiment NAME [--quick] [--out DIR] [--examples DIR]; pose-statistics also [--drops N] [--part cube|cap|button] [--model M] [--seed S]):");
            say!("{}", listing());
            return Ok(());
        }
    };
    let Some(e) = EXPERIMENTS.iter().find(|e| e.name == name) else {
        return Err(input_error(anyhow!(
            "unknown experiment `{name}`; the experiments are:\n{}",
            listing()
        )));
    };
    if e.name != "pose-statistics" && o.pose.any() {
        return Err(input_error(anyhow!(
            "--drops, --part, --model and --seed are options of pose-statistics only, not of `{name}`"
        )));
    }
    let mut cx = Context {
        examples: o.examples.unwrap_or_else(|| PathBuf::from("examples")),
        out: o
            .out
            .unwrap_or_else(|| PathBuf::from("out").join(format!("experiment-{name}"))),
        quick: o.quick,
        pose: o.pose,
        label: format!("experiment {name}"),
        bar: None,
        written: Vec::new(),
    };
    let start = Instant::now();
    (e.run)(&mut cx)?;
    say!(
        "wrote {}/{{{}}} ({:.1} s)",
        cx.out.display(),
        cx.written.join(", "),
        start.elapsed().as_secs_f64()
    );
    Ok(())
}

/// What an experiment needs from the command: where scenes are and files go, progress and the
/// list of files written.
pub(super) struct Context {
    pub(super) examples: PathBuf,
    pub(super) out: PathBuf,
    pub(super) quick: bool,
    /// `pose-statistics`' own options.
    pub(super) pose: PoseOptions,
    /// How the heartbeat names the command.
    pub(super) label: String,
    pub(super) bar: Option<Progress>,
    pub(super) written: Vec<String>,
}

impl Drop for Context {
    fn drop(&mut self) {
        // A failed run leaves no half-drawn bar above the error message.
        self.finish();
    }
}

impl Context {
    /// Load `<examples>/<file>`, check it has the `bodies` the experiment refers to and that each
    /// of `models` (None: the scene's own) builds with it. Any of these failing is bad input.
    pub(super) fn scene(
        &self,
        file: &str,
        models: &[Option<&str>],
        bodies: &[&str],
    ) -> Result<Scene, Failure> {
        let path = self.examples.join(file);
        if !path.is_file() {
            return Err(input_error(anyhow!(
                "scene {} not found: run from the repository root (which holds examples/) or pass --examples DIR",
                path.display()
            )));
        }
        let scene = scene::load(&path).map_err(input_error)?;
        for b in bodies {
            if scene.model.body_index(b).is_none() {
                return Err(input_error(anyhow!(
                    "{}: the experiment needs a body named `{b}`",
                    path.display()
                )));
            }
        }
        for m in models {
            scene.contact_model(*m).map_err(input_error)?;
        }
        Ok(scene)
    }

    /// Load the robot `<examples>/<file>` with each `<cylinder>` a 10-sided prism (Drumwright's
    /// "the number of contact points per wheel is limited to ten"). A missing or bad file is bad
    /// input.
    pub(super) fn robot(&self, file: &str) -> Result<UrdfRobot, Failure> {
        let options = UrdfOptions {
            cylinder_segments: 10,
            ..Default::default()
        };
        self.robot_with(file, &options)
    }

    /// Load the robot `<examples>/<file>` with `options`. A missing or bad file is bad input.
    pub(super) fn robot_with(
        &self,
        file: &str,
        options: &UrdfOptions,
    ) -> Result<UrdfRobot, Failure> {
        let path = self.examples.join(file);
        if !path.is_file() {
            return Err(input_error(anyhow!(
                "robot {} not found: run from the repository root (which holds examples/) or pass --examples DIR",
                path.display()
            )));
        }
        urdf::load(&path, options).map_err(input_error)
    }

    /// Progress over `runs` runs: a bar when stdout is a terminal (drawn on stderr), else a
    /// heartbeat line on stderr every few seconds.
    pub(super) fn start(&mut self, runs: usize) {
        let terminal = std::io::stdout().is_terminal();
        let template = "{spinner} [{elapsed_precise}] {bar:30} {pos}/{len} runs  {msg}";
        let progress = Progress::new(terminal, &self.label, "runs", runs as u64, template);
        if let Some(bar) = progress.bar() {
            bar.enable_steady_tick(Duration::from_millis(200));
        }
        self.bar = Some(progress);
    }

    pub(super) fn finish(&mut self) {
        if let Some(b) = self.bar.take() {
            b.finish();
        }
    }

    /// One run of the experiment, described by `what` in the progress bar and in the error
    /// message if it fails (exit code 1).
    pub(super) fn run<T>(
        &self,
        what: &str,
        f: impl FnOnce() -> Result<T, signorini::Error>,
    ) -> Result<T, Failure> {
        if let Some(b) = self.bar.as_ref().and_then(Progress::bar) {
            b.set_message(what.to_string());
        }
        let r = f().map_err(|e| Failure {
            code: 1,
            error: anyhow!("{what}: {e}"),
        })?;
        if let Some(b) = &self.bar {
            b.inc(|| format!("last: {what}"));
        }
        Ok(r)
    }

    /// Write `<out>/<name>`: the header line and one line per row.
    pub(super) fn csv(&mut self, name: &str, header: &str, rows: &[String]) -> Result<(), Failure> {
        let path = self.out.join(name);
        let mut text = String::with_capacity(64 * (rows.len() + 1));
        text.push_str(header);
        text.push('\n');
        for r in rows {
            text.push_str(r);
            text.push('\n');
        }
        std::fs::create_dir_all(&self.out)
            .and_then(|_| std::fs::write(&path, text))
            .map_err(|e| Failure {
                code: 1,
                error: anyhow!("writing {}: {e}", path.display()),
            })?;
        self.written.push(name.to_string());
        Ok(())
    }

    /// Draw `<out>/<name>`; a plot that cannot be drawn is a note, not a failure (the CSV holds
    /// the figures).
    pub(super) fn plot(&mut self, name: &str, axes: &Axes, series: &[(&Series, Mark)]) {
        match plot::chart(&self.out.join(name), axes, series) {
            Ok(()) => self.written.push(name.to_string()),
            Err(e) => eprintln!("note: no {name}: {e:#}"),
        }
    }
}

impl Context {
    /// Draw `<out>/<name>` as quartile bands (`plot::band_chart`); like `plot`, a plot that
    /// cannot be drawn is a note.
    pub(super) fn band_plot(&mut self, name: &str, axes: &Axes, bands: &[Band]) {
        match plot::band_chart(&self.out.join(name), axes, bands) {
            Ok(()) => self.written.push(name.to_string()),
            Err(e) => eprintln!("note: no {name}: {e:#}"),
        }
    }
}

impl Context {
    /// Draw `<out>/<name>` as a grid of coloured cells (`plot::grid_chart`); like `plot`, a plot
    /// that cannot be drawn is a note.
    pub(super) fn grid_plot(&mut self, name: &str, grid: &Grid) {
        match plot::grid_chart(&self.out.join(name), grid) {
            Ok(()) => self.written.push(name.to_string()),
            Err(e) => eprintln!("note: no {name}: {e:#}"),
        }
    }
}

impl Context {
    /// Draw `<out>/<name>` as grouped bars with error bars (`plot::bar_chart`); like `plot`, a
    /// plot that cannot be drawn is a note.
    pub(super) fn bar_plot(
        &mut self,
        name: &str,
        axes: &Axes,
        categories: &[String],
        groups: &[BarGroup],
    ) {
        match plot::bar_chart(&self.out.join(name), axes, categories, groups) {
            Ok(()) => self.written.push(name.to_string()),
            Err(e) => eprintln!("note: no {name}: {e:#}"),
        }
    }
}

/// Every series drawn as a line.
/// The tree contact models the robot experiments compare, as their tables name them.
pub(super) const TREE_MODELS: [(TreeModel, &str); 2] = [
    (TreeModel::Penalty, "penalty"),
    (TreeModel::StewartTrinkle, "stewart-trinkle"),
];

/// Run `run` under each of [`TREE_MODELS`] with progress: (the model's name, its result).
pub(super) fn under_tree_models<R>(
    cx: &mut Context,
    run: impl Fn(TreeModel) -> R,
) -> Result<Vec<(&'static str, R)>, Failure> {
    cx.start(TREE_MODELS.len());
    let mut runs = Vec::new();
    for (model, name) in TREE_MODELS {
        let r = cx.run(name, || Ok(run(model)))?;
        runs.push((name, r));
    }
    cx.finish();
    Ok(runs)
}

/// Exit 1 naming the first run that failed (`what` under its model: its failure), else Ok.
pub(super) fn first_failure<R>(
    what: &str,
    runs: &[(&str, R)],
    failure: impl Fn(&R) -> Option<&String>,
) -> Result<(), Failure> {
    match runs
        .iter()
        .find_map(|(name, r)| failure(r).map(|f| (name, f)))
    {
        Some((name, f)) => Err(Failure {
            code: 1,
            error: anyhow!("{what} under {name}: {f}"),
        }),
        None => Ok(()),
    }
}

pub(super) fn lines(series: &[Series]) -> Vec<(&Series, Mark)> {
    series.iter().map(|s| (s, Mark::Line)).collect()
}

pub(super) fn stem(file: &str) -> String {
    Path::new(file)
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default()
}
