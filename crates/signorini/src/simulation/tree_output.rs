//! The geometry and replay files of a tree run (docs/outputs.md, "Articulated robots";
//! docs/replay.md), beside the run's own `trajectory.csv` and `metrics.csv`:
//!
//! - `scene.json`, always: the ground (a run on the ground) and every tree link as a body, with
//!   its collision shapes posed in the link frame, its mass, its pose at the start, and `fixed`
//!   for a link no joint moves; `poses` names the file that moves the bodies;
//! - with [`RunConfig::contacts`] (the CLI's `run --html`), `links.csv`: at every trajectory
//!   output time each moving link's world pose and velocity, one row per link in the free
//!   bodies' `trajectory.csv` format, so the replay page reads it as it reads a scene's bodies;
//!   and `contacts.csv`: the contact points within the model's reach (ground and link pairs, the
//!   narrow phase the models use) at most once per that interval.
//!
//! No physics here: the files say what the run's states are.
use super::multibody_run::{moves, TreeGround, TreeRun};
use super::run::{piece_json, Decimator, RunConfig, Writer, CONTACTS_HEADER, TRAJECTORY_HEADER};
use super::Error;
use crate::contact::tree::ground::ground_contacts;
use crate::contact::tree::pairs::{candidate_pairs, link_contacts, LinkContact};
use crate::contact::tree::{Ground, GroundContact, LinkShape};
use crate::multibody::algorithms::forward_kinematics;
use crate::multibody::{LinkKinematics, Workspace};
use glam::{DQuat, DVec3};
use serde_json::json;
use std::fmt::Write as _;

/// The file of the links' poses and velocities a run with contacts recorded writes.
pub const LINK_POSES_FILE: &str = "links.csv";

/// Name of the ground body in `scene.json` and `contacts.csv`.
pub const GROUND_NAME: &str = "ground";

/// The open replay files of a tree run and what they need each row.
pub(super) struct TreeOutput {
    poses: Option<Writer>,
    contacts: Option<(Writer, Decimator)>,
    /// Each link's name as the files write it, and whether a joint moves it.
    names: Vec<String>,
    moving: Vec<bool>,
    /// Per shape of the ground's list: its index among its link's shapes (its piece).
    piece: Vec<usize>,
    scratch: (Vec<GroundContact>, Vec<LinkContact>),
    line: String,
}

impl TreeOutput {
    /// Write `scene.json` for `run` at (q0, v0) and open the files `cfg` asks for.
    pub(super) fn create(
        cfg: &RunConfig,
        run: &TreeRun,
        ws: &mut Workspace,
    ) -> Result<TreeOutput, Error> {
        let tree = &run.tree;
        let names: Vec<String> = tree.links().iter().map(|l| safe_name(&l.name)).collect();
        let moving: Vec<bool> = (0..tree.len()).map(|i| moves(tree, i)).collect();
        let recorded = cfg.contacts.is_some() && run.ground.is_some();
        let links = forward_kinematics(tree, ws, &run.q0, &run.v0)?;
        let doc = scene_json(cfg, run, (&names, &moving), links, recorded);
        let path = cfg.out_dir.join("scene.json");
        let text = serde_json::to_string(&doc).expect("plain JSON") + "\n";
        std::fs::write(&path, text).map_err(|source| Error::Io { path, source })?;
        let (poses, contacts) = match (recorded, cfg.contacts) {
            (true, Some(interval)) => (
                Some(Writer::create(
                    cfg.out_dir.join(LINK_POSES_FILE),
                    TRAJECTORY_HEADER,
                )?),
                Some((
                    Writer::create(cfg.out_dir.join("contacts.csv"), CONTACTS_HEADER)?,
                    Decimator::new(interval),
                )),
            ),
            _ => (None, None),
        };
        let mut piece = Vec::new();
        if let Some(g) = &run.ground {
            let mut count = vec![0usize; tree.len()];
            for s in &g.shapes {
                piece.push(count[s.link]);
                count[s.link] += 1;
            }
        }
        Ok(TreeOutput {
            poses,
            contacts,
            names,
            moving,
            piece,
            scratch: (Vec::new(), Vec::new()),
            line: String::new(),
        })
    }

    /// The rows of a trajectory output time: the moving links' poses and, when its interval has
    /// come, the contact points, at the state whose link kinematics are `links`.
    pub(super) fn row(
        &mut self,
        run: &TreeRun,
        links: &[LinkKinematics],
        time: f64,
    ) -> Result<(), Error> {
        if self.poses.is_none() {
            return Ok(());
        }
        let poses = self.poses.as_mut().expect("checked");
        for (i, k) in links.iter().enumerate().filter(|(i, _)| self.moving[*i]) {
            self.line.clear();
            pose_row(&mut self.line, time, &self.names[i], k);
            poses.line(&self.line)?;
        }
        let (Some((w, every)), Some(g)) = (self.contacts.as_mut(), run.ground.as_ref()) else {
            return Ok(());
        };
        if !every.take(time) {
            return Ok(());
        }
        let (ground, pairs) = &mut self.scratch;
        let reach = g.model.reach();
        ground_contacts(&g.shapes, links, g.model.ground(), reach, ground);
        let candidates = candidate_pairs(&run.tree, &g.shapes, g.model.self_contact());
        link_contacts(&g.shapes, &candidates, links, reach, pairs);
        for c in ground.iter() {
            self.line.clear();
            let n = Ground::NORMAL;
            let mid = c.point - 0.5 * c.gap * n;
            let b = (self.names[c.link].as_str(), self.piece[c.shape]);
            contact_row(&mut self.line, time, ((GROUND_NAME, 0), b), (mid, n, c.gap));
            w.line(&self.line)?;
        }
        for c in pairs.iter() {
            self.line.clear();
            let a = (self.names[c.link_a].as_str(), self.piece[c.shape_a]);
            let b = (self.names[c.link_b].as_str(), self.piece[c.shape_b]);
            let mid = 0.5 * (c.point_a + c.point_b);
            contact_row(&mut self.line, time, (a, b), (mid, c.normal, c.gap));
            w.line(&self.line)?;
        }
        Ok(())
    }

    pub(super) fn flush(&mut self) -> Result<(), Error> {
        if let Some(w) = self.poses.as_mut() {
            w.flush()?;
        }
        if let Some((w, _)) = self.contacts.as_mut() {
            w.flush()?;
        }
        Ok(())
    }
}

/// `scene.json` of a tree run (module doc); `recorded`: `links.csv` is written.
fn scene_json(
    cfg: &RunConfig,
    run: &TreeRun,
    (names, moving): (&[String], &[bool]),
    links: &[LinkKinematics],
    recorded: bool,
) -> serde_json::Value {
    let v3 = |v: DVec3| json!([v.x, v.y, v.z]);
    let mut bodies = Vec::new();
    let mut shapes: Vec<&LinkShape> = Vec::new();
    if let Some(g) = &run.ground {
        bodies.push(ground_json(g));
        shapes.extend(g.shapes.iter().chain(&g.welded));
    }
    for (i, (l, k)) in run.tree.links().iter().zip(links).enumerate() {
        let pieces: Vec<_> = shapes
            .iter()
            .filter(|s| s.link == i)
            .map(|s| piece_json(&s.shape, &s.pose))
            .collect();
        let r = DQuat::from_mat3(&k.rotation).normalize();
        bodies.push(json!({
            "name": names[i],
            "fixed": !moving[i],
            "mass": l.mass,
            "release_time": 0.0,
            "position": v3(k.position),
            "orientation": [r.w, r.x, r.y, r.z],
            "pieces": pieces,
        }));
    }
    json!({
        "scene": run.source,
        "kind": "articulated tree",
        "time_step": run.time_step,
        "duration": run.duration,
        "gravity": v3(run.tree.gravity),
        "output": {
            "trajectory_interval": cfg.trajectory_interval,
            "contacts_interval": if recorded { cfg.contacts } else { None },
        },
        "poses": if recorded { Some(LINK_POSES_FILE) } else { None },
        "bodies": bodies,
        "version": env!("CARGO_PKG_VERSION"),
    })
}

/// The ground plane as a fixed body with one half-space piece.
fn ground_json(g: &TreeGround) -> serde_json::Value {
    let height = g.model.ground().height;
    json!({
        "name": GROUND_NAME,
        "fixed": true,
        "mass": null,
        "release_time": 0.0,
        "position": [0.0, 0.0, height],
        "orientation": [1.0, 0.0, 0.0, 0.0],
        "pieces": [{
            "shape": "halfspace",
            "normal": [0.0, 0.0, 1.0],
            "position": [0.0, 0.0, 0.0],
            "orientation": [1.0, 0.0, 0.0, 0.0],
        }],
    })
}

/// `time,body,x,y,z,qw,qx,qy,qz,vx,vy,vz,wx,wy,wz` of one link (world axes; v of the link
/// frame's origin).
fn pose_row(s: &mut String, time: f64, name: &str, k: &LinkKinematics) {
    let r = DQuat::from_mat3(&k.rotation).normalize();
    let (p, v, w) = (k.position, k.velocity, k.angular_velocity);
    let _ = write!(
        s,
        "{time},{name},{},{},{},{},{},{},{},{},{},{},{},{},{}",
        p.x, p.y, p.z, r.w, r.x, r.y, r.z, v.x, v.y, v.z, w.x, w.y, w.z
    );
}

/// One `contacts.csv` row: `time,body_a,body_b,piece_a,piece_b,x,y,z,nx,ny,nz,gap`.
fn contact_row(
    s: &mut String,
    time: f64,
    ((a, pa), (b, pb)): ((&str, usize), (&str, usize)),
    (p, n, gap): (DVec3, DVec3, f64),
) {
    let _ = write!(
        s,
        "{time},{a},{b},{pa},{pb},{},{},{},{},{},{},{gap}",
        p.x, p.y, p.z, n.x, n.y, n.z
    );
}

/// A link name made safe for a CSV field (commas, quotes, line breaks become `_`), as
/// `trajectory.csv`'s columns write it.
pub(super) fn safe_name(name: &str) -> String {
    name.chars()
        .map(|c| match c {
            ',' | '"' | '\n' | '\r' => '_',
            c => c,
        })
        .collect()
}
