//! `signorini check robot.urdf`: a URDF file (by its `.urdf` extension) is imported by
//! `multibody::urdf` with the default options (floating base, fixed joints merged) and what it
//! became is printed: the tree's links and their joints, the URDF's joints by type, the degrees
//! of freedom, the mass, the collision geometry, and the warnings (on standard error). A URDF
//! cannot be run yet: the tree has no contact (issue 18 item 2), so `run` and `bench` refuse it
//! with that said.
use crate::{input_error, Failure};
use signorini::multibody::urdf::{self, UrdfOptions, UrdfRobot};
use signorini::multibody::JointKind;
use std::collections::BTreeMap;
use std::path::Path;

/// Is `path` a URDF file (extension `.urdf`, any case)?
pub fn is_urdf(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("urdf"))
}

/// `run` and `bench` on a URDF: exit 2 saying what works instead.
pub fn refuse_to_step(path: &Path, command: &str) -> Result<(), Failure> {
    if !is_urdf(path) {
        return Ok(());
    }
    Err(input_error(anyhow::anyhow!(
        "{}: `signorini {command}` does not step a URDF yet: articulated robots have no contact \
         so far (issue 18 item 2)\n  help: `signorini check {}` imports it and prints its tree",
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
    match kind {
        JointKind::Revolute { .. } => "revolute",
        JointKind::Prismatic { .. } => "prismatic",
        JointKind::Fixed => "fixed",
        JointKind::Ball => "ball",
        JointKind::Floating => "floating",
    }
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
