//! The parser of the whole document: visits the top-level tables (and each entry of an array of
//! tables) in file order and reads the single-table sections `[simulation]` (with
//! `[simulation.adaptive]`), `[contact]` and `[output]`. The array sections are read in
//! `bodies.rs` (`[[material]]`, `[[body]]`), `forces.rs` (`[[force]]`, `[[random_forces]]`),
//! `spawn.rs` (`[[spawn]]`), `deformable.rs` (`[[deformable]]`) and `robots.rs` (`[[robot]]`;
//! a body or spawn read after a robot is checked there against the robot names).
use toml::de::{DeTable, DeValue};

use super::super::desc::*;
use super::hints::choices_hint;
use super::reader::Reader;
use super::values::{param_input, string, table, tables, Check};
use super::{keys, Cx, Res, Value};
use crate::dynamics::AdaptiveSettings;
use crate::pipeline::adaptive::check_step_plan;

pub(super) struct Parser<'a, 'i> {
    pub(super) cx: &'a Cx<'a>,
    pub(super) root: &'a DeTable<'i>,
    /// Names given in `[[material]]`, `[[body]]` and `[[spawn]]` anywhere in the file, for
    /// resolving references regardless of order.
    pub(super) material_names: Vec<&'a str>,
    pub(super) body_names: Vec<&'a str>,
    pub(super) spawn_names: Vec<&'a str>,
    /// Index in `scene.bodies` of each body parsed so far, by name (only looked up, never
    /// iterated: the duplicate check in O(1) instead of a scan of the bodies before).
    pub(super) parsed_bodies: std::collections::HashMap<String, usize>,
    pub(super) scene: SceneDesc,
}

/// The `name` strings of the entries of the array of tables `section`.
pub(super) fn declared_names<'a>(root: &'a DeTable, section: &str) -> Vec<&'a str> {
    let Some(DeValue::Array(items)) = root.get(section).map(|v| v.get_ref()) else {
        return Vec::new();
    };
    items
        .iter()
        .filter_map(|e| e.get_ref().as_table()?.get("name")?.get_ref().as_str())
        .collect()
}

impl<'a, 'i> Parser<'a, 'i> {
    pub(super) fn new(cx: &'a Cx<'a>, root: &'a DeTable<'i>) -> Self {
        let mut material_names = declared_names(root, "material");
        if !material_names.contains(&"default") {
            material_names.insert(0, "default");
        }
        Parser {
            cx,
            root,
            material_names,
            body_names: declared_names(root, "body"),
            spawn_names: declared_names(root, "spawn"),
            parsed_bodies: std::collections::HashMap::new(),
            scene: SceneDesc {
                file: cx.file.to_string(),
                simulation: SimulationDesc::default(),
                contact: ContactDesc::default(),
                materials: Vec::new(),
                bodies: Vec::new(),
                forces: Vec::new(),
                random_forces: Vec::new(),
                spawns: Vec::new(),
                output: OutputDesc::default(),
                deformables: Vec::new(),
                robots: Vec::new(),
            },
        }
    }

    pub(super) fn run(mut self) -> Res<SceneDesc> {
        // (position, section, index in its array of tables, value), visited in file order.
        let mut items: Vec<(usize, &'a str, Option<usize>, &'a Value<'i>)> = Vec::new();
        for (k, v) in self.root.iter() {
            let section: &'a str = k.get_ref();
            match v.get_ref() {
                DeValue::Array(a) if keys::ARRAY_SECTIONS.contains(&section) => {
                    items.extend(
                        a.iter()
                            .enumerate()
                            .map(|(i, e)| (e.span().start, section, Some(i), e)),
                    );
                }
                _ => items.push((k.span().start.min(v.span().start), section, None, v)),
            }
        }
        items.sort_by_key(|it| it.0);
        for (pos, section, index, v) in items {
            match (section, index) {
                ("simulation", _) => self.scene.simulation = self.simulation(v)?,
                ("contact", _) => self.scene.contact = self.contact(v)?,
                ("output", _) => self.scene.output = self.output(v)?,
                ("material", Some(i)) => self.material(i, v)?,
                ("body", Some(i)) => {
                    self.body(i, v)?;
                    self.body_vs_robots()?;
                }
                ("force", Some(i)) => self.force(i, v)?,
                ("random_forces", Some(i)) => self.random_forces(i, v)?,
                ("spawn", Some(i)) => {
                    self.spawn(i, v)?;
                    self.spawn_vs_robots()?;
                }
                ("deformable", Some(i)) => self.deformable(i, v)?,
                ("robot", Some(i)) => self.robot(i, v)?,
                // Not an array (arrays were split into their entries above): fails.
                (s, None) if keys::ARRAY_SECTIONS.contains(&s) => _ = tables(self.cx, v, s)?,
                (s, _) => {
                    let msg = format!("unknown key `{}`", keys::spelled(s));
                    return Err(self.cx.err(
                        pos,
                        keys::spelled(s),
                        msg,
                        choices_hint(s, keys::ROOT, "top-level keys"),
                    ));
                }
            }
        }
        if !self.scene.materials.iter().any(|m| m.name == "default") {
            self.scene
                .materials
                .insert(0, MaterialDesc::default_material());
        }
        Ok(self.scene)
    }

    pub(super) fn simulation(&self, v: &'a Value<'i>) -> Res<SimulationDesc> {
        let mut r = Reader::open(self.cx, v, "simulation", keys::SIMULATION)?;
        r.get("dimension"); // 3, checked before the walk (2D scenes: `planar.rs`)
        let d = SimulationDesc::default();
        let settings = Settings {
            time_step: r.num("time_step", d.time_step, Check::Positive)?,
            duration: r.num("duration", d.duration, Check::Positive)?,
            gravity: r.vec3("gravity", d.gravity)?,
            integrator: {
                let name = r.string("integrator", d.integrator.name())?;
                name.parse().map_err(|msg| {
                    let names = Integrator::ALL.map(|i| i.name());
                    let hint = choices_hint(&name, &names, "integrators");
                    r.err("integrator", msg, hint)
                })?
            },
            activation_distance: r.num(
                "activation_distance",
                d.activation_distance,
                Check::NonNegative,
            )?,
            max_speed: r.num("max_speed", d.max_speed, Check::Positive)?,
            face_preference: r.num("face_preference", d.face_preference, Check::Fraction)?,
            adaptive: None,
        };
        let mut settings = settings;
        if let Some(a) = r.get("adaptive") {
            settings.adaptive = Some(self.adaptive(a, settings.time_step)?);
        } else if let Err((message, hint)) = check_step_plan(settings.duration, settings.time_step)
        {
            return Err(r.err("duration", message, hint));
        }
        let sim = SimulationDesc {
            settings,
            line: self.cx.line(v.span().start),
            key: d.key,
        };
        r.finish()?;
        Ok(sim)
    }

    /// `[simulation.adaptive]`: Deguet's energy-based adaptive steps, starting from `time_step`.
    pub(super) fn adaptive(&self, v: &'a Value<'i>, time_step: f64) -> Res<AdaptiveSettings> {
        let mut r = Reader::open(self.cx, v, "simulation.adaptive", keys::ADAPTIVE)?;
        let a = AdaptiveSettings {
            energy_tolerance: r.req_num("energy_tolerance", Check::Positive)?,
            min_time_step: r.num("min_time_step", time_step * 1e-6, Check::Positive)?,
            max_time_step: r.num("max_time_step", time_step, Check::Positive)?,
        };
        if a.min_time_step > a.max_time_step {
            return Err(r.err(
                "min_time_step",
                format!(
                    "min_time_step = {} s is above max_time_step = {} s",
                    a.min_time_step, a.max_time_step
                ),
                "make min_time_step <= max_time_step (max_time_step defaults to time_step)",
            ));
        }
        if time_step > a.max_time_step || time_step < a.min_time_step {
            return Err(r.err(
                "max_time_step",
                format!(
                    "simulation.time_step = {time_step} s, the first step, is outside [min_time_step, max_time_step] = [{}, {}] s",
                    a.min_time_step, a.max_time_step
                ),
                "set time_step between min_time_step and max_time_step",
            ));
        }
        r.finish()?;
        Ok(a)
    }

    /// `[contact]`: `model` plus the model's parameters (numbers, words or lists of words), kept
    /// in file order; the model checks them.
    pub(super) fn contact(&self, v: &'a Value<'i>) -> Res<ContactDesc> {
        let cx = self.cx;
        let t = table(cx, v, "contact")?;
        let mut contact = ContactDesc {
            line: cx.line(v.span().start),
            ..ContactDesc::default()
        };
        let mut entries: Vec<_> = t.iter().collect();
        entries.sort_by_key(|(k, _)| k.span().start);
        for (k, val) in entries {
            let name: &str = k.get_ref();
            let key = format!("contact.{name}");
            if name == "model" {
                contact.model = string(cx, val, &key)?.to_string();
                contact.model_line = cx.line(val.span().start);
            } else {
                let value = param_input(cx, val, &key)?;
                let line = cx.line(k.span().start);
                contact.params.push(ParamDesc {
                    name: name.to_string(),
                    value,
                    line,
                    key,
                });
            }
        }
        Ok(contact)
    }

    pub(super) fn output(&self, v: &'a Value<'i>) -> Res<OutputDesc> {
        let mut r = Reader::open(self.cx, v, "output", keys::OUTPUT)?;
        let out = OutputDesc {
            trajectory_interval: r.num("trajectory_interval", 0.0, Check::NonNegative)?,
            line: self.cx.line(v.span().start),
            key: "output".into(),
        };
        r.finish()?;
        Ok(out)
    }
}
