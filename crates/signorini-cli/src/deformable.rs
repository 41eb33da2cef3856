//! `signorini run` on a scene with `[[deformable]]` tables: each deformable world
//! (`scene::deformable_worlds`) is stepped at the scene's `time_step` for its `duration` with
//! its own integrator, and writes (docs/outputs.md, "Deformables"):
//!
//! - `deformable_<name>.csv`: time, centroid, mean velocity, energies, deepest penetration and
//!   contacts, every `[output] trajectory_interval` (every step when 0);
//! - `deformable_<name>_particles.csv`: every particle's position every `particle_interval`;
//! - `deformables.json`: one summary per deformable.
//!
//! The rigid bodies run first (the usual files); deformables see the fixed half-spaces and
//! boxes only (one-way contact, docs/deformable.md).
use crate::{input_error, Failure};
use signorini::deformable::{Integrator, World};
use signorini::scene::{self, SceneDesc};
use std::io::{BufWriter, Write};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

pub(crate) const HEADER: &str = "time,centroid_x,centroid_y,centroid_z,velocity_x,velocity_y,velocity_z,kinetic_energy,elastic_energy,potential_energy,max_penetration,contacts,max_speed";

fn row(w: &World) -> String {
    let (c, v) = w.free_centroid();
    let max_speed = (0..w.v.len())
        .filter(|&p| !w.fixed[p])
        .map(|p| w.v[p].length())
        .fold(0.0, f64::max);
    format!(
        "{},{:e},{:e},{:e},{:e},{:e},{:e},{:e},{:e},{:e},{:e},{},{:e}",
        w.time,
        c.x,
        c.y,
        c.z,
        v.x,
        v.y,
        v.z,
        w.kinetic_energy(&w.v),
        w.elastic_energy(&w.x),
        w.potential_energy(&w.x),
        w.max_penetration(),
        w.contacts(),
        max_speed
    )
}

fn particles(out: &mut impl Write, w: &World) -> std::io::Result<()> {
    for (p, x) in w.x.iter().enumerate() {
        writeln!(
            out,
            "{},{p},{:e},{:e},{:e},{}",
            w.time,
            x.x,
            x.y,
            x.z,
            u8::from(w.fixed[p])
        )?;
    }
    Ok(())
}

/// What one deformable's run gave.
struct Outcome {
    steps: u64,
    max_penetration: f64,
    error: Option<String>,
}

fn step_world(
    w: &mut World,
    desc: &scene::DeformableDesc,
    plan: (f64, u64, f64),
    dir: &Path,
    interrupt: &AtomicBool,
) -> std::io::Result<Outcome> {
    let (h, steps, row_interval) = plan;
    let name = &desc.spec.name;
    let create = |f: String| std::fs::File::create(dir.join(f)).map(BufWriter::new);
    let mut csv = create(format!("deformable_{name}.csv"))?;
    let mut pcsv = create(format!("deformable_{name}_particles.csv"))?;
    writeln!(csv, "{HEADER}")?;
    writeln!(pcsv, "time,particle,x,y,z,fixed")?;
    writeln!(csv, "{}", row(w))?;
    particles(&mut pcsv, w)?;
    let (mut next_row, mut next_particles) = (row_interval, desc.particle_interval);
    let mut integ = Integrator::default();
    let mut out = Outcome {
        steps: 0,
        max_penetration: w.max_penetration(),
        error: None,
    };
    for k in 1..=steps {
        if interrupt.load(Ordering::SeqCst) {
            out.error = Some(format!("interrupted at t = {} s", w.time));
            break;
        }
        if let Err(e) = integ.step(w, desc.integrator, h, false) {
            out.error = Some(e.to_string());
            break;
        }
        // The world's clock by step count (no drift from summing h).
        w.time = k as f64 * h;
        out.steps = k;
        out.max_penetration = out.max_penetration.max(w.max_penetration());
        let last = k == steps;
        if last || w.time >= next_row - 1e-9 * h {
            writeln!(csv, "{}", row(w))?;
            next_row += row_interval;
        }
        if last || w.time >= next_particles - 1e-9 * h {
            particles(&mut pcsv, w)?;
            next_particles += desc.particle_interval;
        }
    }
    csv.flush()?;
    pcsv.flush()?;
    Ok(out)
}

/// Step every deformable of `desc` and write its files into `dir`; exit 1 when one diverged.
pub(crate) fn run(
    desc: &SceneDesc,
    steps: u64,
    dir: &Path,
    interrupt: &AtomicBool,
) -> Result<(), Failure> {
    let built = scene::deformable_worlds(desc).map_err(input_error)?;
    if !built.ignored.is_empty() {
        eprintln!(
            "note: deformables touch fixed half-spaces and boxes only; they ignore the rigid bodies {}",
            built.ignored.join(", ")
        );
    }
    std::fs::create_dir_all(dir).map_err(input_error)?;
    let h = desc.simulation.settings.time_step;
    let interval = desc.output.trajectory_interval.max(h);
    let mut summaries = Vec::new();
    let mut failed = None;
    for (mut w, d) in built.worlds.into_iter().zip(&desc.deformables) {
        let e0 = w.mechanical_energy();
        let o = step_world(&mut w, d, (h, steps, interval), dir, interrupt).map_err(input_error)?;
        let (m, (c, _)) = (w.free_mass(), w.free_centroid());
        let ke = w.kinetic_energy(&w.v);
        say!(
            "deformable {}: {} particles ({} free, {:.6e} kg), {} steps of {} s ({}); centroid ({:.6e}, {:.6e}, {:.6e}) m, kinetic energy {:.3e} J, max penetration {:.3e} m (now {:.3e} m)",
            d.spec.name,
            w.x.len(),
            w.free_particles(),
            m,
            o.steps,
            h,
            d.integrator.name(),
            c.x,
            c.y,
            c.z,
            ke,
            o.max_penetration,
            w.max_penetration()
        );
        summaries.push(serde_json::json!({
            "name": d.spec.name,
            "particles": w.x.len(),
            "free_particles": w.free_particles(),
            "mass": m,
            "steps": o.steps,
            "time_step": h,
            "integrator": d.integrator.name(),
            "simulated_time": w.time,
            "centroid": [c.x, c.y, c.z],
            "initial_mechanical_energy": e0,
            "final_mechanical_energy": w.mechanical_energy(),
            "final_kinetic_energy": ke,
            "max_penetration": o.max_penetration,
            "final_max_penetration": w.max_penetration(),
            "error": o.error,
        }));
        if let Some(e) = o.error {
            failed.get_or_insert(format!("deformable `{}`: {e}", d.spec.name));
        }
    }
    let text =
        serde_json::to_string_pretty(&serde_json::Value::Array(summaries)).map_err(input_error)?;
    std::fs::write(dir.join("deformables.json"), text + "\n").map_err(input_error)?;
    let files: Vec<String> = std::iter::once("deformables.json".to_string())
        .chain(desc.deformables.iter().flat_map(|d| {
            let name = &d.spec.name;
            [
                format!("deformable_{name}.csv"),
                format!("deformable_{name}_particles.csv"),
            ]
        }))
        .collect();
    say!("wrote {}/{{{}}}", dir.display(), files.join(", "));
    match failed {
        None => Ok(()),
        Some(e) => Err(Failure {
            code: 1,
            error: anyhow::anyhow!(
                "{e}; the deformable files in {} hold the steps before it",
                dir.display()
            ),
        }),
    }
}
