//! From the document's links and joints to a tree: the topology (one root, one parent per link,
//! no cycle), links welded by fixed joints merged into the link that carries them, each tree
//! link's joint, joint frame and combined inertial, and the collision shapes placed on them.
use super::xml::{CollisionDesc, Description, GeometryDesc, JointDesc, JointType, LinkDesc};
use super::{mesh, Collision, LinkFrame, UrdfError, UrdfJoint, UrdfOptions, UrdfRobot};
use crate::geometry::{Pose, Shape};
use crate::multibody::{JointKind, Link, MultibodyError, Tree};
use glam::{DMat3, DVec3};
use std::collections::BTreeMap;
use std::path::Path;

/// Radius (m) of the solid sphere whose inertia a stand-in mass gets.
const STAND_IN_RADIUS: f64 = 0.01;

/// Mass (kg) given to a massless link welded to the world: it never moves, so its mass enters no
/// equation of motion, but the tree holds only links with mass.
const WELDED_PLACEHOLDER_MASS: f64 = 1e-3;

pub(super) fn assemble(
    desc: Description,
    file: &str,
    base_dir: &Path,
    options: &UrdfOptions,
) -> Result<UrdfRobot, UrdfError> {
    let at = At { file };
    let topology = Topology::new(&desc, &at)?;
    let carriers = Carriers::new(&desc, &topology, options);
    let mut warnings = desc.warnings.clone();
    let links = tree_links(&desc, &topology, &carriers, options, &at, &mut warnings)?;
    let tree = Tree::new(links, options.gravity).map_err(|e| tree_error(&desc, e, &at))?;
    let collisions = collisions(&desc, &carriers, base_dir, options, &at, &mut warnings)?;
    let frames = desc
        .links
        .iter()
        .enumerate()
        .map(|(l, link)| LinkFrame {
            name: link.name.clone(),
            link: carriers.tree_link(l),
            pose: carriers.offset[l],
        })
        .collect();
    let joints = desc
        .joints
        .iter()
        .map(|j| {
            let child = topology.index[j.child.as_str()];
            UrdfJoint {
                name: j.name.clone(),
                urdf_type: j.kind.name(),
                parent: j.parent.clone(),
                child: j.child.clone(),
                link: (carriers.carrier[child] == Carrier::Link(child))
                    .then(|| carriers.tree_index[&child]),
                effort_limit: j.effort,
                velocity_limit: j.velocity,
            }
        })
        .collect();
    Ok(UrdfRobot {
        name: desc.name,
        tree,
        collisions,
        frames,
        joints,
        warnings,
    })
}

/// Where errors and warnings point: the file.
struct At<'a> {
    file: &'a str,
}

impl At<'_> {
    fn error(&self, line: usize, element: String, message: String, hint: &str) -> UrdfError {
        UrdfError {
            file: self.file.to_string(),
            line,
            element,
            message,
            hint: hint.to_string(),
        }
    }
}

/// Which joint hangs each link from its parent, each link's child joints in file order, the root,
/// and the links breadth-first from the root (children in the order of their joints in the file).
struct Topology<'d> {
    index: BTreeMap<&'d str, usize>,
    parent_joint: Vec<Option<usize>>,
    child_joints: Vec<Vec<usize>>,
    root: usize,
    order: Vec<usize>,
}

impl<'d> Topology<'d> {
    fn new(desc: &'d Description, at: &At) -> Result<Topology<'d>, UrdfError> {
        if desc.links.is_empty() {
            return Err(at.error(
                0,
                "<robot>".into(),
                "the robot has no <link>".into(),
                "a URDF describes at least one <link name=\"...\">",
            ));
        }
        let index: BTreeMap<&str, usize> = desc
            .links
            .iter()
            .enumerate()
            .map(|(i, l)| (l.name.as_str(), i))
            .collect();
        let n = desc.links.len();
        let mut parent_joint: Vec<Option<usize>> = vec![None; n];
        let mut child_joints = vec![Vec::new(); n];
        for (j, joint) in desc.joints.iter().enumerate() {
            let element = format!("joint \"{}\"", joint.name);
            let find = |role: &str, name: &str| {
                index.get(name).copied().ok_or_else(|| {
                    at.error(
                        joint.line,
                        element.clone(),
                        format!("its {role} link \"{name}\" is not defined"),
                        &format!(
                            "define <link name=\"{name}\">, or name one of the links: {}",
                            name_list(desc.links.iter().map(|l| l.name.as_str()))
                        ),
                    )
                })
            };
            let (parent, child) = (find("parent", &joint.parent)?, find("child", &joint.child)?);
            if parent == child {
                return Err(at.error(
                    joint.line,
                    element,
                    format!("joins link \"{}\" to itself: a cycle", joint.parent),
                    "a joint's parent and child are different links",
                ));
            }
            if let Some(first) = parent_joint[child] {
                let other = &desc.joints[first];
                return Err(at.error(
                    joint.line,
                    element,
                    format!(
                        "link \"{}\" has two parents: it is already the child of joint \"{}\" (line {})",
                        joint.child, other.name, other.line
                    ),
                    "a URDF is a tree, each link the child of at most one joint (closed loops are \
                     not supported); remove one of the two joints",
                ));
            }
            parent_joint[child] = Some(j);
            child_joints[parent].push(j);
        }
        let roots: Vec<usize> = (0..n).filter(|&l| parent_joint[l].is_none()).collect();
        if roots.len() > 1 {
            let list = roots
                .iter()
                .map(|&l| format!("\"{}\" (line {})", desc.links[l].name, desc.links[l].line))
                .collect::<Vec<_>>()
                .join(", ");
            return Err(at.error(
                desc.links[roots[1]].line,
                format!("link \"{}\"", desc.links[roots[1]].name),
                format!("{} links are no joint's child: {list}", roots.len()),
                "a URDF has one root link; attach the others to the robot with joints (or remove them)",
            ));
        }
        let mut topology = Topology {
            index,
            parent_joint,
            child_joints,
            root: roots.first().copied().unwrap_or(0),
            order: Vec::with_capacity(n),
        };
        topology.breadth_first(desc);
        if roots.is_empty() || topology.order.len() < n {
            return Err(topology.cycle_error(desc, at));
        }
        Ok(topology)
    }

    fn breadth_first(&mut self, desc: &Description) {
        let mut queue = std::collections::VecDeque::from([self.root]);
        while let Some(l) = queue.pop_front() {
            self.order.push(l);
            for &j in &self.child_joints[l] {
                queue.push_back(self.index[desc.joints[j].child.as_str()]);
            }
        }
    }

    /// The joints of a cycle: from a link the root does not reach, follow parents until a link
    /// repeats (every such link has a parent, or it would be a root).
    fn cycle_error(&self, desc: &Description, at: &At) -> UrdfError {
        let reached: Vec<bool> = {
            let mut r = vec![false; desc.links.len()];
            for &l in &self.order {
                r[l] = true;
            }
            r
        };
        let start = (0..desc.links.len()).find(|&l| !reached[l]).unwrap_or(0);
        let (mut path, mut link) = (Vec::new(), start);
        while let Some(j) = self.parent_joint[link] {
            if path.contains(&j) {
                break;
            }
            path.push(j);
            link = self.index[desc.joints[j].parent.as_str()];
        }
        let first = path
            .iter()
            .position(|&j| self.index[desc.joints[j].child.as_str()] == link);
        let cycle = &path[first.unwrap_or(0)..];
        let names = cycle
            .iter()
            .rev()
            .map(|&j| format!("\"{}\"", desc.joints[j].name))
            .collect::<Vec<_>>()
            .join(" → ");
        let j = &desc.joints[cycle.last().copied().unwrap_or(0)];
        at.error(
            j.line,
            format!("joint \"{}\"", j.name),
            format!("the joints {names} form a cycle: no link of it is reached from a root"),
            "a URDF is a tree (closed loops are not supported); remove one joint of the cycle",
        )
    }
}

fn name_list<'a>(names: impl Iterator<Item = &'a str>) -> String {
    let names: Vec<_> = names.map(|n| format!("\"{n}\"")).collect();
    if names.len() > 12 {
        format!("{}, … ({} links)", names[..12].join(", "), names.len())
    } else {
        names.join(", ")
    }
}

/// What carries a URDF link: the world, or the tree link named after URDF link `l`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Carrier {
    World,
    Link(usize),
}

/// For every URDF link, its carrier and its frame in the carrier's frame; the tree's links (the
/// URDF links that carry themselves) in breadth-first order, and each one's index in the tree.
struct Carriers {
    carrier: Vec<Carrier>,
    offset: Vec<Pose>,
    tree_order: Vec<usize>,
    tree_index: BTreeMap<usize, usize>,
}

fn massless(link: &LinkDesc) -> bool {
    link.inertial.as_ref().is_none_or(|i| i.mass == 0.0)
}

impl Carriers {
    /// A link on a fixed joint joins its parent's carrier (always when merging fixed links,
    /// otherwise only when it has no mass), unless that carrier is the world: a link welded to
    /// the world stays a tree link on a fixed joint, so its collisions have a link to move with.
    /// A massless root named `world` is the world.
    fn new(desc: &Description, topology: &Topology, options: &UrdfOptions) -> Carriers {
        let n = desc.links.len();
        let mut carrier = vec![Carrier::World; n];
        let mut offset = vec![Pose::IDENTITY; n];
        let root = topology.root;
        if !(desc.links[root].name == "world" && massless(&desc.links[root])) {
            carrier[root] = Carrier::Link(root);
        }
        for &l in &topology.order[1..] {
            let joint = &desc.joints[topology.parent_joint[l].unwrap_or_default()];
            let parent = topology.index[joint.parent.as_str()];
            let merge = joint.kind == JointType::Fixed
                && carrier[parent] != Carrier::World
                && (options.merge_fixed_links || massless(&desc.links[l]));
            if merge {
                carrier[l] = carrier[parent];
                offset[l] = offset[parent].mul(&joint.origin);
            } else {
                carrier[l] = Carrier::Link(l);
            }
        }
        let tree_order: Vec<usize> = topology
            .order
            .iter()
            .copied()
            .filter(|&l| carrier[l] == Carrier::Link(l))
            .collect();
        let tree_index = tree_order
            .iter()
            .enumerate()
            .map(|(i, &l)| (l, i))
            .collect();
        Carriers {
            carrier,
            offset,
            tree_order,
            tree_index,
        }
    }

    fn tree_link(&self, l: usize) -> Option<usize> {
        match self.carrier[l] {
            Carrier::World => None,
            Carrier::Link(c) => Some(self.tree_index[&c]),
        }
    }

    /// The URDF links a tree link carries (itself first).
    fn members(&self, l: usize) -> impl Iterator<Item = usize> + '_ {
        (0..self.carrier.len()).filter(move |&m| self.carrier[m] == Carrier::Link(l))
    }
}

/// The tree's links: joint, joint frame, combined inertial, damping and limits of each.
fn tree_links(
    desc: &Description,
    topology: &Topology,
    carriers: &Carriers,
    options: &UrdfOptions,
    at: &At,
    warnings: &mut Vec<String>,
) -> Result<Vec<Link>, UrdfError> {
    let mut links = Vec::with_capacity(carriers.tree_order.len());
    for &l in &carriers.tree_order {
        let urdf_link = &desc.links[l];
        let joint = topology.parent_joint[l].map(|j| &desc.joints[j]);
        let (parent, kind, joint_frame) = match joint {
            None if options.floating_base => (None, JointKind::Floating, Pose::IDENTITY),
            None => (None, JointKind::Fixed, Pose::IDENTITY),
            Some(j) => {
                let p = topology.index[j.parent.as_str()];
                (
                    carriers.tree_link(p),
                    joint_kind(j),
                    carriers.offset[p].mul(&j.origin),
                )
            }
        };
        let (mass, com, inertia) = match combined_inertial(desc, carriers, l) {
            Some(inertial) => inertial,
            None => {
                let welded = kind == JointKind::Fixed && parent.is_none();
                let stand_in = if welded {
                    Some(WELDED_PLACEHOLDER_MASS)
                } else {
                    options.massless_stand_in
                };
                let Some(m) = stand_in else {
                    return Err(massless_error(urdf_link, joint, at));
                };
                let why = if welded {
                    " (welded to the world: its mass enters no equation of motion)"
                } else {
                    ""
                };
                warnings.push(format!(
                    "{}:{}: link \"{}\": no mass (no <inertial>, nor in a link welded to it); \
                     given {m} kg and the inertia of a {} cm solid sphere{why}",
                    at.file,
                    urdf_link.line,
                    urdf_link.name,
                    100.0 * STAND_IN_RADIUS,
                ));
                let i = 0.4 * m * STAND_IN_RADIUS * STAND_IN_RADIUS;
                (m, DVec3::ZERO, DMat3::from_diagonal(DVec3::splat(i)))
            }
        };
        let mut link = Link::new(&urdf_link.name, parent, kind, mass, com, inertia).at(joint_frame);
        if let Some(j) = joint {
            link.damping = j.damping;
            link.limits = j.limits;
        }
        links.push(link);
    }
    Ok(links)
}

fn joint_kind(j: &JointDesc) -> JointKind {
    match j.kind {
        JointType::Revolute | JointType::Continuous => JointKind::Revolute { axis: j.axis },
        JointType::Prismatic => JointKind::Prismatic { axis: j.axis },
        JointType::Fixed => JointKind::Fixed,
        JointType::Floating => JointKind::Floating,
    }
}

/// The mass, centre of mass and inertia about it (link axes) of tree link `l` and every URDF
/// link merged into it; `None` if none of them has mass. Each inertial's inertia is rotated
/// from its `<origin>` axes into the tree link's (R I Rᵀ) and moved to the common centre of
/// mass by the parallel-axis theorem.
fn combined_inertial(
    desc: &Description,
    carriers: &Carriers,
    l: usize,
) -> Option<(f64, DVec3, DMat3)> {
    let parts: Vec<(f64, DVec3, DMat3)> = carriers
        .members(l)
        .filter_map(|m| {
            let inertial = desc.links[m].inertial.as_ref().filter(|i| i.mass > 0.0)?;
            let frame = carriers.offset[m].mul(&inertial.origin);
            let r = DMat3::from_quat(frame.rotation);
            Some((
                inertial.mass,
                frame.translation,
                r * inertial.inertia * r.transpose(),
            ))
        })
        .collect();
    if let [single] = parts.as_slice() {
        return Some(*single);
    }
    let mass: f64 = parts.iter().map(|p| p.0).sum();
    if mass <= 0.0 {
        return None;
    }
    let com = parts.iter().map(|p| p.0 * p.1).sum::<DVec3>() / mass;
    let inertia = parts.iter().fold(DMat3::ZERO, |acc, &(m, c, i)| {
        let d = c - com;
        acc + i + m * (DMat3::from_diagonal(DVec3::splat(d.length_squared())) - outer(d, d))
    });
    Some((mass, com, inertia))
}

fn outer(a: DVec3, b: DVec3) -> DMat3 {
    DMat3::from_cols(a * b.x, a * b.y, a * b.z)
}

fn massless_error(link: &LinkDesc, joint: Option<&JointDesc>, at: &At) -> UrdfError {
    let how = "give it an <inertial>: a small one will do, e.g. <mass value=\"0.001\"/> and \
               <inertia ixx=\"1e-7\" ixy=\"0\" ixz=\"0\" iyy=\"1e-7\" iyz=\"0\" izz=\"1e-7\"/> \
               (the library's UrdfOptions::massless_stand_in does this for every such link)";
    let message = match joint {
        None => "the root link has no mass: no <inertial> (or mass 0), and no link welded to it \
                 by a fixed joint has one; a floating base needs mass"
            .to_string(),
        Some(j) => format!(
            "has no mass (no <inertial>, or mass 0, and no link welded to it has one) but moves on \
             joint \"{}\" ({}): every moving link needs mass",
            j.name,
            j.kind.name()
        ),
    };
    at.error(link.line, format!("link \"{}\"", link.name), message, how)
}

/// A tree error (the tree checks what the document could not: inertia positive definite after
/// rotation and merging) placed at the link it names.
fn tree_error(desc: &Description, e: MultibodyError, at: &At) -> UrdfError {
    let name = match &e {
        MultibodyError::ZeroAxis { link }
        | MultibodyError::Mass { link, .. }
        | MultibodyError::Inertia { link }
        | MultibodyError::NonFinite { link, .. }
        | MultibodyError::Negative { link, .. }
        | MultibodyError::Limits { link, .. } => Some(link.as_str()),
        _ => None,
    };
    let link = name.and_then(|n| desc.links.iter().find(|l| l.name == n));
    let line = link.map_or(0, |l| l.inertial.as_ref().map_or(l.line, |i| i.line));
    let hint = match e {
        MultibodyError::Inertia { .. } => {
            "an <inertia> about the centre of mass is positive definite: ixx, iyy, izz > 0, each \
             at most the sum of the other two, off-diagonal terms small enough (a point mass has \
             no inertia: give it that of a small sphere, 0.4 m r²)"
        }
        _ => "check the link's <inertial> and its joint",
    };
    at.error(
        line,
        link.map_or(String::new(), |l| format!("link \"{}\"", l.name)),
        e.to_string(),
        hint,
    )
}

/// The collision shapes in file order, placed in the frame of the tree link that carries them.
fn collisions(
    desc: &Description,
    carriers: &Carriers,
    base_dir: &Path,
    options: &UrdfOptions,
    at: &At,
    warnings: &mut Vec<String>,
) -> Result<Vec<Collision>, UrdfError> {
    let mut out = Vec::new();
    for (l, link) in desc.links.iter().enumerate() {
        for c in &link.collisions {
            let Some(tree_link) = carriers.tree_link(l) else {
                warnings.push(format!(
                    "{}:{}: link \"{}\" <collision>: geometry on the world link is not read; ignored",
                    at.file,
                    c.line,
                    link.name
                ));
                continue;
            };
            let shape = shape(c, base_dir, options).map_err(|(message, hint)| {
                at.error(
                    c.line,
                    format!("link \"{}\" <collision> <{}>", link.name, c.geometry.kind()),
                    message,
                    &hint,
                )
            })?;
            out.push(Collision {
                link: tree_link,
                pose: carriers.offset[l].mul(&c.origin),
                shape,
                geometry: c.geometry.kind(),
                urdf_link: link.name.clone(),
            });
        }
    }
    Ok(out)
}

fn shape(
    c: &CollisionDesc,
    base_dir: &Path,
    options: &UrdfOptions,
) -> Result<Shape, (String, String)> {
    let geometry_error = |e: crate::geometry::GeometryError| {
        (e.to_string(), "check the geometry's sizes".to_string())
    };
    match &c.geometry {
        GeometryDesc::Box { size } => Shape::cuboid(*size).map_err(geometry_error),
        GeometryDesc::Sphere { radius } => Shape::sphere(*radius).map_err(geometry_error),
        GeometryDesc::Cylinder { radius, length } => {
            Shape::cylinder(*radius, *length, options.cylinder_segments.max(3))
                .map_err(geometry_error)
        }
        GeometryDesc::Mesh { filename, scale } => {
            let path = mesh::resolve(filename, base_dir)?;
            let points: Vec<DVec3> = mesh::read_vertices(&path)?
                .into_iter()
                .map(|p| p * *scale)
                .collect();
            Shape::convex_hull(&points).map_err(|e| {
                (
                    format!("mesh file {} (scale {}): its convex hull: {e}", path.display(), scale),
                    "a collision mesh needs at least 4 vertices not on one plane, and a scale with \
                     no zero component"
                        .to_string(),
                )
            })
        }
    }
}
