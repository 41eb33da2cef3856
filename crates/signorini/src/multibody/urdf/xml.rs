//! The XML side of URDF import: the document read into plain descriptions of its links and
//! joints, each with its line, every number checked finite, every element outside what is
//! supported warned about (see the module above for the list).
use super::UrdfError;
use crate::geometry::Pose;
use glam::{DMat3, DQuat, DVec3};
use roxmltree::{Document, Node};

/// The document's `<robot>`, element by element.
pub(super) struct Description {
    pub name: String,
    pub links: Vec<LinkDesc>,
    pub joints: Vec<JointDesc>,
    pub warnings: Vec<String>,
}

pub(super) struct LinkDesc {
    pub name: String,
    pub line: usize,
    pub inertial: Option<InertialDesc>,
    pub collisions: Vec<CollisionDesc>,
}

/// `<inertial>`: the centre-of-mass frame in the link frame, the mass, and the inertia about the
/// centre of mass in that frame's axes.
pub(super) struct InertialDesc {
    pub line: usize,
    pub origin: Pose,
    pub mass: f64,
    pub inertia: DMat3,
}

pub(super) struct CollisionDesc {
    pub line: usize,
    pub origin: Pose,
    pub geometry: GeometryDesc,
}

pub(super) enum GeometryDesc {
    /// Full edge lengths (m).
    Box {
        size: DVec3,
    },
    Sphere {
        radius: f64,
    },
    /// Axis along z, centred.
    Cylinder {
        radius: f64,
        length: f64,
    },
    Mesh {
        filename: String,
        scale: DVec3,
    },
}

impl GeometryDesc {
    pub fn kind(&self) -> &'static str {
        match self {
            GeometryDesc::Box { .. } => "box",
            GeometryDesc::Sphere { .. } => "sphere",
            GeometryDesc::Cylinder { .. } => "cylinder",
            GeometryDesc::Mesh { .. } => "mesh",
        }
    }
}

/// The joint types the tree can hold (`planar` is refused while reading).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum JointType {
    Revolute,
    Continuous,
    Prismatic,
    Fixed,
    Floating,
}

impl JointType {
    pub fn name(self) -> &'static str {
        match self {
            JointType::Revolute => "revolute",
            JointType::Continuous => "continuous",
            JointType::Prismatic => "prismatic",
            JointType::Fixed => "fixed",
            JointType::Floating => "floating",
        }
    }
}

pub(super) struct JointDesc {
    pub name: String,
    pub line: usize,
    pub kind: JointType,
    pub parent: String,
    pub child: String,
    /// The joint frame (= the child link's frame at q = 0) in the parent link's frame.
    pub origin: Pose,
    /// In the joint frame; not normalized (checked non-zero).
    pub axis: DVec3,
    /// `(lower, upper)` of a revolute or prismatic joint with a `<limit>`.
    pub limits: Option<(f64, f64)>,
    pub effort: Option<f64>,
    pub velocity: Option<f64>,
    pub damping: f64,
}

/// Read the document. Errors: XML syntax, a root element other than `<robot>`, xacro macros,
/// malformed or missing values, unknown or planar joint types, duplicate names.
pub(super) fn read(text: &str, file: &str) -> Result<Description, UrdfError> {
    let doc = Document::parse(text).map_err(|e| syntax_error(file, &e))?;
    let mut r = Reader::new(text, file);
    let robot = doc.root_element();
    if robot.tag_name().name() != "robot" {
        return Err(r.error(
            robot,
            &format!("<{}>", robot.tag_name().name()),
            "the root element is not <robot>",
            "a URDF file holds one <robot name=\"...\"> element with <link> and <joint> elements in it",
        ));
    }
    r.refuse_xacro(robot)?;
    let (mut links, mut joints) = (Vec::new(), Vec::new());
    for node in robot.children().filter(Node::is_element) {
        match node.tag_name().name() {
            "link" => links.push(r.link(node)?),
            "joint" => joints.push(r.joint(node)?),
            "material" => {}
            "transmission" => r.warn(
                node,
                "<transmission>",
                "actuator transmissions are not modelled; ignored",
            ),
            "gazebo" => r.warn(
                node,
                "<gazebo>",
                "Gazebo's simulator settings are not read; ignored",
            ),
            other => r.warn(
                node,
                &format!("<{other}>"),
                "not a URDF element signorini reads; ignored",
            ),
        }
    }
    r.no_duplicates("link", links.iter().map(|l| (&l.name, l.line)))?;
    r.no_duplicates("joint", joints.iter().map(|j| (&j.name, j.line)))?;
    Ok(Description {
        name: robot.attribute("name").unwrap_or_default().to_string(),
        links,
        joints,
        warnings: r.warnings,
    })
}

fn syntax_error(file: &str, e: &roxmltree::Error) -> UrdfError {
    let message = e.to_string();
    let hint = if message.contains("xacro") {
        XACRO_HINT
    } else {
        "the file must be well-formed XML: every element closed, attribute values quoted"
    };
    UrdfError {
        file: file.to_string(),
        line: e.pos().row as usize,
        element: String::new(),
        message: format!("not well-formed XML: {message}"),
        hint: hint.into(),
    }
}

const XACRO_HINT: &str = "this is a xacro file (macros and ${...} expressions): expand it first, \
     e.g. `xacro robot.urdf.xacro > robot.urdf`, and load the result";

/// Reading context: the file name, where each line of its text starts, the warnings so far.
struct Reader<'a> {
    file: &'a str,
    line_starts: Vec<usize>,
    warnings: Vec<String>,
}

impl<'a> Reader<'a> {
    fn new(text: &str, file: &'a str) -> Self {
        let line_starts = std::iter::once(0)
            .chain(text.match_indices('\n').map(|(i, _)| i + 1))
            .collect();
        Reader {
            file,
            line_starts,
            warnings: Vec::new(),
        }
    }

    /// 1-based line of a byte offset.
    fn line_at(&self, offset: usize) -> usize {
        self.line_starts.partition_point(|&s| s <= offset)
    }

    fn line(&self, node: Node) -> usize {
        self.line_at(node.range().start)
    }

    fn error(&self, node: Node, element: &str, message: &str, hint: &str) -> UrdfError {
        self.error_at(self.line(node), element, message, hint)
    }

    fn error_at(&self, line: usize, element: &str, message: &str, hint: &str) -> UrdfError {
        UrdfError {
            file: self.file.to_string(),
            line,
            element: element.to_string(),
            message: message.to_string(),
            hint: hint.to_string(),
        }
    }

    fn warn(&mut self, node: Node, element: &str, what: &str) {
        let line = self.line(node);
        self.warnings
            .push(format!("{}:{line}: {element}: {what}", self.file));
    }

    /// A xacro file (elements in the xacro namespace) is refused with the command that expands it.
    fn refuse_xacro(&self, robot: Node) -> Result<(), UrdfError> {
        let xacro = robot.descendants().filter(Node::is_element).find(|n| {
            n.tag_name()
                .namespace()
                .is_some_and(|ns| ns.contains("xacro"))
        });
        match xacro {
            Some(n) => Err(self.error(
                n,
                &format!("<xacro:{}>", n.tag_name().name()),
                "xacro macros are not URDF",
                XACRO_HINT,
            )),
            None => Ok(()),
        }
    }

    fn no_duplicates<'n>(
        &self,
        what: &str,
        names: impl Iterator<Item = (&'n String, usize)>,
    ) -> Result<(), UrdfError> {
        let mut seen: std::collections::BTreeMap<&str, usize> = Default::default();
        for (name, line) in names {
            if let Some(first) = seen.insert(name, line) {
                return Err(self.error_at(
                    line,
                    &format!("{what} \"{name}\""),
                    &format!("a second {what} named \"{name}\" (the first is at line {first})"),
                    &format!("{what} names must be unique; rename one of them"),
                ));
            }
        }
        Ok(())
    }

    /// The required `name` attribute of a `<link>` or `<joint>` (`tag`).
    fn name(&self, node: Node, tag: &str) -> Result<String, UrdfError> {
        match node.attribute("name") {
            Some(n) if !n.trim().is_empty() => Ok(n.to_string()),
            _ => Err(self.error(
                node,
                &format!("<{tag}>"),
                "has no name",
                &format!("write <{tag} name=\"...\">; links and joints are referred to by name"),
            )),
        }
    }

    /// The `N` numbers of attribute `attr` of `node`, or `default` when the attribute is absent
    /// (`None`: required). `element` names the node in errors; `unit` says what the numbers are.
    fn numbers<const N: usize>(
        &self,
        node: Node,
        element: &str,
        attr: &str,
        default: Option<[f64; N]>,
        unit: &str,
    ) -> Result<[f64; N], UrdfError> {
        let count = if N == 1 {
            "a number".to_string()
        } else {
            format!("{N} numbers separated by spaces")
        };
        let Some(a) = node.attribute_node(attr) else {
            return default.ok_or_else(|| {
                self.error(
                    node,
                    element,
                    &format!("the attribute `{attr}` is missing"),
                    &format!("give `{attr}` {count} ({unit})"),
                )
            });
        };
        let line = self.line_at(a.range().start);
        let bad = |why: &str| {
            let hint = if a.value().contains("${") || a.value().contains("$(") {
                XACRO_HINT.to_string()
            } else {
                format!("give `{attr}` {count} ({unit}), finite")
            };
            self.error_at(
                line,
                element,
                &format!("{attr}=\"{}\" {why}", a.value()),
                &hint,
            )
        };
        let mut out = [0.0; N];
        let mut words = a.value().split_whitespace();
        for x in out.iter_mut() {
            let word = words
                .next()
                .ok_or_else(|| bad(&format!("has fewer than {N} numbers")))?;
            *x = word
                .parse::<f64>()
                .map_err(|_| bad(&format!("has `{word}`, which is not a number")))?;
            if !x.is_finite() {
                return Err(bad(&format!("has `{word}`, which is not finite")));
            }
        }
        if words.next().is_some() {
            return Err(bad(&format!(
                "has more than {N} number{}",
                if N == 1 { "" } else { "s" }
            )));
        }
        Ok(out)
    }

    fn number(
        &self,
        node: Node,
        element: &str,
        attr: &str,
        default: Option<f64>,
        unit: &str,
    ) -> Result<f64, UrdfError> {
        Ok(self.numbers::<1>(node, element, attr, default.map(|d| [d]), unit)?[0])
    }

    /// A positive number (a length or a radius).
    fn positive(&self, node: Node, element: &str, attr: &str) -> Result<f64, UrdfError> {
        let x = self.number(node, element, attr, None, "m")?;
        if x > 0.0 {
            Ok(x)
        } else {
            Err(self.error(
                node,
                element,
                &format!("{attr} = {x} m is not positive"),
                &format!("give `{attr}` a length > 0 in metres"),
            ))
        }
    }

    /// The `<origin xyz rpy>` child of `node` (the identity when absent).
    fn origin(&self, node: Node, element: &str) -> Result<Pose, UrdfError> {
        let Some(o) = child(node, "origin") else {
            return Ok(Pose::IDENTITY);
        };
        let element = format!("{element} <origin>");
        let xyz = self.numbers(o, &element, "xyz", Some([0.0; 3]), "m")?;
        let rpy = self.numbers(o, &element, "rpy", Some([0.0; 3]), "rad: roll, pitch, yaw")?;
        Ok(Pose::new(DVec3::from(xyz), rpy_to_quat(rpy)))
    }

    /// Warn about every child element of `node` not in `known` (`silent` ones pass quietly).
    fn warn_unknown_children(
        &mut self,
        node: Node,
        element: &str,
        known: &[&str],
        silent: &[&str],
    ) {
        for c in node.children().filter(Node::is_element) {
            let tag = c.tag_name().name();
            if !known.contains(&tag) && !silent.contains(&tag) {
                let what = match tag {
                    "mimic" => "not modelled: the joint moves on its own; ignored".to_string(),
                    "calibration" | "safety_controller" => "not modelled; ignored".to_string(),
                    _ => format!(
                        "<{tag}> is not read in a <{}>; ignored",
                        node.tag_name().name()
                    ),
                };
                self.warn(c, &format!("{element} <{tag}>"), &what);
            }
        }
    }

    fn link(&mut self, node: Node) -> Result<LinkDesc, UrdfError> {
        let name = self.name(node, "link")?;
        let element = format!("link \"{name}\"");
        self.warn_unknown_children(node, &element, &["inertial", "collision"], &["visual"]);
        let inertials: Vec<Node> = children(node, "inertial").collect();
        if let Some(second) = inertials.get(1) {
            return Err(self.error(
                *second,
                &format!("{element} <inertial>"),
                "a second <inertial>",
                "a link has at most one <inertial>; merge them into one",
            ));
        }
        let inertial = match inertials.first() {
            Some(n) => Some(self.inertial(*n, &element)?),
            None => None,
        };
        let mut collisions = Vec::new();
        for c in children(node, "collision") {
            if let Some(desc) = self.collision(c, &element)? {
                collisions.push(desc);
            }
        }
        Ok(LinkDesc {
            line: self.line(node),
            name,
            inertial,
            collisions,
        })
    }

    fn inertial(&mut self, node: Node, link: &str) -> Result<InertialDesc, UrdfError> {
        let element = format!("{link} <inertial>");
        self.warn_unknown_children(node, &element, &["origin", "mass", "inertia"], &[]);
        let origin = self.origin(node, &element)?;
        let required = |tag: &str| {
            child(node, tag).ok_or_else(|| {
                self.error(
                    node,
                    &element,
                    &format!("<{tag}> is missing"),
                    "an <inertial> has <mass value=\"...\"/> (kg) and <inertia ixx=\"...\" ixy=\"...\" \
                     ixz=\"...\" iyy=\"...\" iyz=\"...\" izz=\"...\"/> (kg m²); remove the <inertial> \
                     of a link without mass",
                )
            })
        };
        let mass_node = required("mass")?;
        let mass_element = format!("{element} <mass>");
        let mass = self.number(mass_node, &mass_element, "value", None, "kg")?;
        if mass < 0.0 {
            return Err(self.error(
                mass_node,
                &mass_element,
                &format!("mass {mass} kg is negative"),
                "give the link's mass in kg, ≥ 0",
            ));
        }
        let i = required("inertia")?;
        let ie = format!("{element} <inertia>");
        let mut m = [0.0; 6];
        for (x, attr) in m.iter_mut().zip(["ixx", "ixy", "ixz", "iyy", "iyz", "izz"]) {
            *x = self.number(i, &ie, attr, None, "kg m²")?;
        }
        let [ixx, ixy, ixz, iyy, iyz, izz] = m;
        Ok(InertialDesc {
            line: self.line(node),
            origin,
            mass,
            inertia: DMat3::from_cols(
                DVec3::new(ixx, ixy, ixz),
                DVec3::new(ixy, iyy, iyz),
                DVec3::new(ixz, iyz, izz),
            ),
        })
    }

    /// A `<collision>`, or `None` (with a warning) for geometry outside the URDF spec.
    fn collision(&mut self, node: Node, link: &str) -> Result<Option<CollisionDesc>, UrdfError> {
        let element = format!("{link} <collision>");
        self.warn_unknown_children(node, &element, &["origin", "geometry"], &[]);
        let origin = self.origin(node, &element)?;
        let no_shape = "a <geometry> holds one of <box size>, <sphere radius>, <cylinder radius \
                        length>, <mesh filename scale>";
        let Some(g) = child(node, "geometry") else {
            return Err(self.error(node, &element, "<geometry> is missing", no_shape));
        };
        let Some(shape) = g.children().find(Node::is_element) else {
            return Err(self.error(g, &element, "the <geometry> is empty", no_shape));
        };
        let tag = shape.tag_name().name();
        let se = format!("{element} <{tag}>");
        let geometry = match tag {
            "box" => {
                let size = self.numbers(shape, &se, "size", None, "m: the full edge lengths")?;
                if !size.iter().all(|&s| s > 0.0) {
                    return Err(self.error(
                        shape,
                        &se,
                        &format!("size {size:?} has an edge that is not positive"),
                        "give three edge lengths > 0 in metres",
                    ));
                }
                GeometryDesc::Box {
                    size: DVec3::from(size),
                }
            }
            "sphere" => GeometryDesc::Sphere {
                radius: self.positive(shape, &se, "radius")?,
            },
            "cylinder" => GeometryDesc::Cylinder {
                radius: self.positive(shape, &se, "radius")?,
                length: self.positive(shape, &se, "length")?,
            },
            "mesh" => GeometryDesc::Mesh {
                filename: match shape.attribute("filename") {
                    Some(f) if !f.trim().is_empty() => f.trim().to_string(),
                    _ => {
                        return Err(self.error(
                            shape,
                            &se,
                            "the attribute `filename` is missing",
                            "give the mesh file (STL or OBJ), relative to the URDF or as package://PACKAGE/PATH",
                        ))
                    }
                },
                scale: DVec3::from(self.numbers(shape, &se, "scale", Some([1.0; 3]), "per axis")?),
            },
            other => {
                self.warn(
                    shape,
                    &se,
                    &format!(
                        "<{other}> is not URDF geometry (box, sphere, cylinder, mesh); this \
                         collision is skipped"
                    ),
                );
                return Ok(None);
            }
        };
        Ok(Some(CollisionDesc {
            line: self.line(node),
            origin,
            geometry,
        }))
    }

    fn joint(&mut self, node: Node) -> Result<JointDesc, UrdfError> {
        let name = self.name(node, "joint")?;
        let element = format!("joint \"{name}\"");
        let kind = self.joint_type(node, &element)?;
        self.warn_unknown_children(
            node,
            &element,
            &["origin", "parent", "child", "axis", "limit", "dynamics"],
            &[],
        );
        let link_of = |tag: &str| -> Result<String, UrdfError> {
            match child(node, tag).and_then(|n| n.attribute("link")) {
                Some(l) if !l.trim().is_empty() => Ok(l.to_string()),
                _ => Err(self.error(
                    node,
                    &element,
                    &format!("<{tag} link=\"...\"/> is missing"),
                    "a joint names its parent and child links: <parent link=\"...\"/> <child link=\"...\"/>",
                )),
            }
        };
        let (parent, child_link) = (link_of("parent")?, link_of("child")?);
        let origin = self.origin(node, &element)?;
        let axis = match child(node, "axis") {
            Some(a) => DVec3::from(self.numbers(
                a,
                &format!("{element} <axis>"),
                "xyz",
                Some([1.0, 0.0, 0.0]),
                "a direction",
            )?),
            None => DVec3::X,
        };
        let moves_along_axis = matches!(
            kind,
            JointType::Revolute | JointType::Continuous | JointType::Prismatic
        );
        if moves_along_axis && axis.length() <= 1e-12 {
            return Err(self.error(
                child(node, "axis").unwrap_or(node),
                &format!("{element} <axis>"),
                "the axis is zero",
                "give the joint's axis as a non-zero direction in the joint frame, e.g. xyz=\"0 0 1\"",
            ));
        }
        let (limits, effort, velocity) = self.limit(node, &element, kind)?;
        let damping = self.dynamics(node, &element)?;
        Ok(JointDesc {
            line: self.line(node),
            name,
            kind,
            parent,
            child: child_link,
            origin,
            axis,
            limits,
            effort,
            velocity,
            damping,
        })
    }

    fn joint_type(&self, node: Node, element: &str) -> Result<JointType, UrdfError> {
        let types = "revolute, continuous, prismatic, fixed, floating";
        Ok(match node.attribute("type").map(str::trim) {
            Some("revolute") => JointType::Revolute,
            Some("continuous") => JointType::Continuous,
            Some("prismatic") => JointType::Prismatic,
            Some("fixed") => JointType::Fixed,
            Some("floating") => JointType::Floating,
            Some("planar") => return Err(self.error(
                node,
                element,
                "unsupported joint type planar",
                "the tree has no planar joint: model it as two prismatic joints and a revolute \
                     joint in series (through two small links with <inertial>s)",
            )),
            Some(other) => {
                return Err(self.error(
                    node,
                    element,
                    &format!("unknown joint type `{other}`"),
                    &format!("the joint types are {types}"),
                ))
            }
            None => {
                return Err(self.error(
                    node,
                    element,
                    "the attribute `type` is missing",
                    &format!("give the joint a type: {types}"),
                ))
            }
        })
    }

    /// `<limit>`: the (lower, upper) of a revolute or prismatic joint, and the effort and
    /// velocity limits of any joint.
    #[allow(clippy::type_complexity)]
    fn limit(
        &mut self,
        node: Node,
        element: &str,
        kind: JointType,
    ) -> Result<(Option<(f64, f64)>, Option<f64>, Option<f64>), UrdfError> {
        let bounded = matches!(kind, JointType::Revolute | JointType::Prismatic);
        let unit = if kind == JointType::Prismatic {
            "m"
        } else {
            "rad"
        };
        let Some(l) = child(node, "limit") else {
            if bounded {
                self.warn(
                    node,
                    element,
                    &format!(
                        "a {} joint without <limit>: no position limits",
                        kind.name()
                    ),
                );
            }
            return Ok((None, None, None));
        };
        let le = format!("{element} <limit>");
        let optional = |attr: &str, unit: &str| -> Result<Option<f64>, UrdfError> {
            match l.attribute(attr) {
                Some(_) => Ok(Some(self.number(l, &le, attr, None, unit)?)),
                None => Ok(None),
            }
        };
        let effort = optional("effort", "N m or N")?;
        let velocity = optional("velocity", "rad/s or m/s")?;
        if !bounded {
            return Ok((None, effort, velocity));
        }
        let lower = self.number(l, &le, "lower", Some(0.0), unit)?;
        let upper = self.number(l, &le, "upper", Some(0.0), unit)?;
        if lower > upper {
            return Err(self.error(
                l,
                &le,
                &format!("lower {lower} is above upper {upper}"),
                &format!("give lower ≤ upper ({unit})"),
            ));
        }
        if l.attribute("lower").is_none() && l.attribute("upper").is_none() {
            let what = "neither lower nor upper: URDF's defaults [0, 0] hold the joint at 0 \
                        once limits are enforced";
            self.warn(l, &le, what);
        }
        Ok((Some((lower, upper)), effort, velocity))
    }

    /// `<dynamics damping friction>`: the damping (≥ 0); friction is warned about.
    fn dynamics(&mut self, node: Node, element: &str) -> Result<f64, UrdfError> {
        let Some(d) = child(node, "dynamics") else {
            return Ok(0.0);
        };
        let de = format!("{element} <dynamics>");
        let damping = self.number(d, &de, "damping", Some(0.0), "N m s/rad or N s/m")?;
        if damping < 0.0 {
            return Err(self.error(
                d,
                &de,
                &format!("damping {damping} is negative"),
                "give a damping ≥ 0 (N m s/rad for a revolute joint, N s/m for a prismatic one)",
            ));
        }
        let friction = self.number(d, &de, "friction", Some(0.0), "N m or N")?;
        if friction != 0.0 {
            self.warn(d, &de, "joint friction is not modelled; ignored");
        }
        Ok(damping)
    }
}

/// URDF's fixed-axis roll, pitch, yaw: R = Rz(yaw) Ry(pitch) Rx(roll).
pub(super) fn rpy_to_quat([roll, pitch, yaw]: [f64; 3]) -> DQuat {
    DQuat::from_rotation_z(yaw) * DQuat::from_rotation_y(pitch) * DQuat::from_rotation_x(roll)
}

fn child<'a, 'input>(node: Node<'a, 'input>, tag: &str) -> Option<Node<'a, 'input>> {
    node.children()
        .find(|n| n.is_element() && n.tag_name().name() == tag)
}

fn children<'a, 'input: 'a>(
    node: Node<'a, 'input>,
    tag: &'a str,
) -> impl Iterator<Item = Node<'a, 'input>> + 'a {
    node.children()
        .filter(move |n| n.is_element() && n.tag_name().name() == tag)
}
