//! The files of a run's deformables, written by `run.rs` as the run goes (docs/outputs.md,
//! "Deformables"):
//!
//! - `deformable_<name>.csv`: time, centroid, mean velocity, energies, deepest penetration and
//!   contacts (the world's own obstacles, then the coupled surfaces), at t = 0, every
//!   `[output] trajectory_interval` (every step when 0) and at the last step;
//! - `deformable_<name>_particles.csv`: every particle's position every `particle_interval`;
//! - `deformables.json`: one summary per deformable, at the end;
//! - in `scene.json`, `deformables`: each one's particle count, contact radius and facets, for
//!   the replay page (`scene_json`).
use super::run::{RunError, Writer};
use super::{Deformables, Simulation};
use crate::deformable::World;
use std::path::{Path, PathBuf};

pub const DEFORMABLE_HEADER: &str = "time,centroid_x,centroid_y,centroid_z,velocity_x,velocity_y,velocity_z,kinetic_energy,elastic_energy,potential_energy,max_penetration,contacts,max_speed,coupled_penetration,coupled_contacts";
pub const PARTICLES_HEADER: &str = "time,particle,x,y,z,fixed";

fn row(w: &World) -> String {
    let (c, v) = w.free_centroid();
    let max_speed = (0..w.v.len())
        .filter(|&p| !w.fixed[p])
        .map(|p| w.v[p].length())
        .fold(0.0, f64::max);
    format!(
        "{},{:e},{:e},{:e},{:e},{:e},{:e},{:e},{:e},{:e},{:e},{},{:e},{:e},{}",
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
        max_speed,
        w.coupled_penetration,
        w.coupled_contacts
    )
}

fn particle_rows(out: &mut Writer, w: &World) -> Result<(), RunError> {
    for (p, x) in w.x.iter().enumerate() {
        let fixed = u8::from(w.fixed[p]);
        out.line(&format!(
            "{},{p},{:e},{:e},{:e},{fixed}",
            w.time, x.x, x.y, x.z
        ))?;
    }
    Ok(())
}

/// `scene.json`'s `deformables`: per deformable its `name`, `particles` (count), `radius` (m,
/// the contact radius) and `triangles` (its facets, `deformable::Facets`, as particle indices
/// of its own particles file), in the order of `[[deformable]]`.
pub fn scene_json(d: &Deformables, desc: &crate::scene::SceneDesc) -> serde_json::Value {
    let list: Vec<serde_json::Value> = d
        .worlds
        .iter()
        .zip(&desc.deformables)
        .enumerate()
        .map(|(k, (w, t))| {
            let triangles: Vec<[usize; 3]> = d.coupler().facets[k]
                .iter()
                .flat_map(|f| f.triangles.iter().copied())
                .collect();
            serde_json::json!({
                "name": t.spec.name,
                "particles": w.x.len(),
                "radius": w.radius.first().copied().unwrap_or(0.0),
                "particles_file": format!("deformable_{}_particles.csv", t.spec.name),
                "triangles": triangles,
            })
        })
        .collect();
    serde_json::Value::Array(list)
}

/// The open files of one run's deformables and when each next writes.
pub(super) struct DeformableFiles {
    dir: PathBuf,
    rows: Vec<Writer>,
    particles: Vec<Writer>,
    row_interval: f64,
    particle_intervals: Vec<f64>,
    next_row: f64,
    next_particles: Vec<f64>,
}

impl DeformableFiles {
    /// Create the files of `sim`'s deformables in `dir` with their first rows (`None` without
    /// deformables).
    pub(super) fn create(
        dir: &Path,
        sim: &Simulation,
        interval: f64,
    ) -> Result<Option<Self>, RunError> {
        let Some(d) = sim.deformables() else {
            return Ok(None);
        };
        let desc = &sim.scene().desc;
        let h = sim.model().settings.time_step;
        let mut files = DeformableFiles {
            dir: dir.to_path_buf(),
            rows: Vec::new(),
            particles: Vec::new(),
            row_interval: interval.max(h),
            particle_intervals: desc
                .deformables
                .iter()
                .map(|t| t.particle_interval)
                .collect(),
            next_row: interval.max(h),
            next_particles: desc
                .deformables
                .iter()
                .map(|t| t.particle_interval)
                .collect(),
        };
        for (w, t) in d.worlds.iter().zip(&desc.deformables) {
            let name = &t.spec.name;
            let mut rows = Writer::create(
                dir.join(format!("deformable_{name}.csv")),
                DEFORMABLE_HEADER,
            )?;
            rows.line(&row(w))?;
            let mut particles = Writer::create(
                dir.join(format!("deformable_{name}_particles.csv")),
                PARTICLES_HEADER,
            )?;
            particle_rows(&mut particles, w)?;
            files.rows.push(rows);
            files.particles.push(particles);
        }
        Ok(Some(files))
    }

    /// Rows due after a step of length `h` (s) that ended at the deformables' time; `last`
    /// writes them all.
    pub(super) fn record(&mut self, d: &Deformables, h: f64, last: bool) -> Result<(), RunError> {
        let Some(time) = d.worlds.first().map(|w| w.time) else {
            return Ok(());
        };
        let slack = 1e-9 * h;
        if last || time >= self.next_row - slack {
            for (w, f) in d.worlds.iter().zip(&mut self.rows) {
                f.line(&row(w))?;
            }
            self.next_row += self.row_interval;
        }
        for (k, w) in d.worlds.iter().enumerate() {
            if last || time >= self.next_particles[k] - slack {
                particle_rows(&mut self.particles[k], w)?;
                self.next_particles[k] += self.particle_intervals[k];
            }
        }
        Ok(())
    }

    pub(super) fn flush(&mut self) -> Result<(), RunError> {
        for f in self.rows.iter_mut().chain(self.particles.iter_mut()) {
            f.flush()?;
        }
        Ok(())
    }

    /// Flush the CSVs and write `deformables.json` (`error`: why the run stopped, if it did);
    /// returns its list, which `summary.json` repeats under `deformables`.
    pub(super) fn finish(
        mut self,
        sim: &Simulation,
        error: Option<String>,
    ) -> Result<Option<serde_json::Value>, RunError> {
        self.flush()?;
        let Some(d) = sim.deformables() else {
            return Ok(None);
        };
        let desc = &sim.scene().desc;
        let h = sim.model().settings.time_step;
        let summaries: Vec<serde_json::Value> = d
            .worlds
            .iter()
            .zip(&desc.deformables)
            .enumerate()
            .map(|(k, (w, t))| {
                let (c, _) = w.free_centroid();
                let adaptive = d.adaptive_stats(k).map(|a| {
                    serde_json::json!({
                        "accepted": a.accepted,
                        "rejected": a.rejected,
                        "forced": a.forced,
                        "smallest": a.smallest,
                        "largest": a.largest,
                        "mean": a.mean(),
                        "max_error": a.max_error,
                    })
                });
                serde_json::json!({
                    "name": t.spec.name,
                    "particles": w.x.len(),
                    "free_particles": w.free_particles(),
                    "mass": w.free_mass(),
                    "steps": sim.step_count(),
                    "time_step": h,
                    "integrator": t.integrator.name(),
                    "simulated_time": w.time,
                    "centroid": [c.x, c.y, c.z],
                    "initial_mechanical_energy": d.initial_energy[k],
                    "final_mechanical_energy": w.mechanical_energy(),
                    "final_kinetic_energy": w.kinetic_energy(&w.v),
                    "max_penetration": d.max_penetration[k],
                    "final_max_penetration": w.max_penetration().max(w.coupled_penetration),
                    "adaptive": adaptive,
                    "impulses": matches!(w.settings.law, crate::deformable::ContactLaw::Impulse { .. }).then(|| {
                        let t = d.impulses;
                        serde_json::json!({
                            "steps": t.steps,
                            "unconverged": t.unconverged,
                            "most_touches": t.most_touches,
                            "most_sweeps": t.most_sweeps,
                            "largest_residual": t.largest_residual,
                            "collisions": t.collisions,
                        })
                    }),
                    "contact_law": match w.settings.law {
                        crate::deformable::ContactLaw::Penalty => "penalty",
                        crate::deformable::ContactLaw::Impulse { .. } => "impulse",
                    },
                    "impact_law": match w.settings.law {
                        crate::deformable::ContactLaw::Penalty => None,
                        crate::deformable::ContactLaw::Impulse { impact, .. } => Some(impact.name()),
                    },
                    "error": error,
                })
            })
            .collect();
        let list = serde_json::Value::Array(summaries);
        let text = serde_json::to_string_pretty(&list).expect("plain JSON");
        let path = self.dir.join("deformables.json");
        std::fs::write(&path, text + "\n").map_err(|source| RunError::Io { path, source })?;
        Ok(Some(list))
    }
}
