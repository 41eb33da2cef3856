//! `signorini run` on a scene with `[[deformable]]` tables: the deformables step with the rigid
//! bodies (`simulation::Deformables`, two-way contact) and `simulation::run` writes their files
//! (docs/outputs.md, "Deformables"); this prints one line per deformable and the files written.
use signorini::simulation::Simulation;
use std::path::Path;

/// One line per deformable of `sim` (its state at the end of the run), then the files.
pub(crate) fn report(sim: &Simulation, dir: &Path) {
    let Some(d) = sim.deformables() else {
        return;
    };
    let desc = &sim.scene().desc;
    let h = sim.model().settings.time_step;
    for (k, (w, t)) in d.worlds.iter().zip(&desc.deformables).enumerate() {
        let (c, _) = w.free_centroid();
        say!(
            "deformable {}: {} particles ({} free, {:.6e} kg), {} steps of {} s ({}); centroid ({:.6e}, {:.6e}, {:.6e}) m, kinetic energy {:.3e} J, max penetration {:.3e} m (now {:.3e} m), {} coupled contacts",
            t.spec.name,
            w.x.len(),
            w.free_particles(),
            w.free_mass(),
            sim.step_count(),
            h,
            t.integrator.name(),
            c.x,
            c.y,
            c.z,
            w.kinetic_energy(&w.v),
            d.max_penetration[k],
            w.max_penetration().max(w.coupled_penetration),
            w.coupled_contacts
        );
        if let signorini::deformable::ContactLaw::Impulse { impact, .. } = w.settings.law {
            let t = d.impulses;
            say!(
                "  impulse law ({}): {} steps with touches, {} integrated collisions, up to {} touches and {} sweeps a step, {} not converged (largest residual {:.3e} m/s)",
                impact.name(),
                t.steps,
                t.collisions,
                t.most_touches,
                t.most_sweeps,
                t.unconverged,
                t.largest_residual
            );
        }
        if let Some(a) = d.adaptive_stats(k) {
            say!(
                "  adaptive steps: {} accepted ({:.3e} to {:.3e} s, mean {:.3e} s), {} rejected, {} forced at the smallest; largest energy error {:.3e} J",
                a.accepted,
                a.smallest,
                a.largest,
                a.mean(),
                a.rejected,
                a.forced,
                a.max_error
            );
        }
    }
    let files: Vec<String> = std::iter::once("deformables.json".to_string())
        .chain(desc.deformables.iter().flat_map(|t| {
            let name = &t.spec.name;
            [
                format!("deformable_{name}.csv"),
                format!("deformable_{name}_particles.csv"),
            ]
        }))
        .collect();
    say!("wrote {}/{{{}}}", dir.display(), files.join(", "));
}
