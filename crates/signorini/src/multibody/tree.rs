//! A kinematic tree: links in an order where every parent comes before its children, each hung
//! from its parent (or the world) by one joint.
use super::joint::JointKind;
use super::spatial::{Motion, RigidInertia, Transform};
use super::MultibodyError;
use crate::geometry::Pose;
use glam::{DMat3, DVec3};

/// One link and the joint that attaches it to its parent.
#[derive(Clone, Debug, PartialEq)]
pub struct Link {
    pub name: String,
    /// Index of the parent link, which must be smaller than this link's; `None`: the world.
    pub parent: Option<usize>,
    /// The joint frame in the parent link's frame (in the world frame for a root link): the
    /// fixed part of the parent → child transform (X_T, RBDA §4.2).
    pub joint_frame: Pose,
    pub joint: JointKind,
    /// kg, > 0.
    pub mass: f64,
    /// Centre of mass in the link frame (m).
    pub com: DVec3,
    /// Rotational inertia about the centre of mass, link axes (kg m²), symmetric positive
    /// definite.
    pub inertia: DMat3,
    /// Viscous joint damping, per degree of freedom of the joint: the joint force −d q̇
    /// (N m s/rad for rotational, N s/m for translational degrees of freedom), ≥ 0.
    pub damping: f64,
    /// Armature: an inertia added to the joint-space mass matrix diagonal for each of the joint's
    /// degrees of freedom (a motor rotor's reflected inertia: kg m² rotational, kg
    /// translational), ≥ 0.
    pub armature: f64,
    /// Position limits (lower, upper) of a revolute (rad) or prismatic (m) joint. Enforced as
    /// unilateral rows by the LCP contact of trees (`contact::tree::TreeLcp`); `integrate::step`
    /// and penalty contact do not enforce them.
    pub limits: Option<(f64, f64)>,
}

impl Link {
    /// A link with no damping, armature or limits, its joint frame at the parent's origin.
    pub fn new(
        name: &str,
        parent: Option<usize>,
        joint: JointKind,
        mass: f64,
        com: DVec3,
        inertia: DMat3,
    ) -> Link {
        Link {
            name: name.to_string(),
            parent,
            joint_frame: Pose::IDENTITY,
            joint,
            mass,
            com,
            inertia,
            damping: 0.0,
            armature: 0.0,
            limits: None,
        }
    }

    pub fn at(mut self, joint_frame: Pose) -> Link {
        self.joint_frame = joint_frame;
        self
    }

    pub fn damping(mut self, d: f64) -> Link {
        self.damping = d;
        self
    }

    pub fn armature(mut self, a: f64) -> Link {
        self.armature = a;
        self
    }

    pub fn limits(mut self, lower: f64, upper: f64) -> Link {
        self.limits = Some((lower, upper));
        self
    }
}

/// A validated kinematic tree with its derived quantities: offsets of each joint in q and v,
/// each link's spatial inertia, fixed transforms and motion subspace columns.
#[derive(Clone, Debug, PartialEq)]
pub struct Tree {
    links: Vec<Link>,
    /// m/s², world axes.
    pub gravity: DVec3,
    q_offsets: Vec<usize>,
    v_offsets: Vec<usize>,
    nq: usize,
    nv: usize,
    pub(super) inertias: Vec<RigidInertia>,
    /// X_T: parent coordinates → joint frame coordinates.
    pub(super) x_tree: Vec<Transform>,
    /// Is X_T a pure translation (its rotation exactly the identity)?
    pub(super) x_tree_pure_translation: Vec<bool>,
    /// The motion subspace columns of every degree of freedom, in v order.
    pub(super) s_cols: Vec<Motion>,
    /// The armature of every degree of freedom, in v order.
    pub(super) armature: Vec<f64>,
    /// The damping of every degree of freedom, in v order.
    pub(super) damping: Vec<f64>,
}

/// Relative tolerance under which a joint axis counts as zero: |axis| ≤ 1e-12 (axes are
/// directions of order 1 written by hand or read from files; anything this short is a mistake,
/// and normalizing it would amplify its round-off by 1e12).
const MIN_AXIS: f64 = 1e-12;

impl Tree {
    /// Check and build a tree. Errors: a parent index not before its child, a zero or
    /// non-finite axis, a non-positive or non-finite mass, an inertia that is not symmetric
    /// positive definite, a non-finite centre of mass or joint frame, negative damping or
    /// armature, limits that are not ordered, limits on a joint that is not revolute or
    /// prismatic.
    pub fn new(mut links: Vec<Link>, gravity: DVec3) -> Result<Tree, MultibodyError> {
        if !gravity.is_finite() {
            return Err(MultibodyError::NonFinite {
                link: String::new(),
                what: "gravity",
            });
        }
        let (mut q_offsets, mut v_offsets) = (Vec::new(), Vec::new());
        let (mut nq, mut nv) = (0, 0);
        let mut inertias = Vec::with_capacity(links.len());
        let mut x_tree = Vec::with_capacity(links.len());
        let (mut s_cols, mut armature, mut damping) = (Vec::new(), Vec::new(), Vec::new());
        for (i, link) in links.iter_mut().enumerate() {
            check_link(i, link)?;
            q_offsets.push(nq);
            v_offsets.push(nv);
            nq += link.joint.nq();
            nv += link.joint.nv();
            inertias.push(RigidInertia::from_com(link.mass, link.com, link.inertia));
            let rot = DMat3::from_quat(link.joint_frame.rotation.normalize());
            x_tree.push(Transform::from_frame(rot, link.joint_frame.translation));
            for k in 0..link.joint.nv() {
                s_cols.push(link.joint.subspace(k));
                armature.push(link.armature);
                damping.push(link.damping);
            }
        }
        Ok(Tree {
            links,
            gravity,
            q_offsets,
            v_offsets,
            nq,
            nv,
            inertias,
            x_tree_pure_translation: x_tree.iter().map(|x| x.e == DMat3::IDENTITY).collect(),
            x_tree,
            s_cols,
            armature,
            damping,
        })
    }

    pub fn links(&self) -> &[Link] {
        &self.links
    }

    pub fn len(&self) -> usize {
        self.links.len()
    }

    pub fn is_empty(&self) -> bool {
        self.links.is_empty()
    }

    /// Length of the position vector q.
    pub fn nq(&self) -> usize {
        self.nq
    }

    /// Length of the velocity vector v (degrees of freedom).
    pub fn nv(&self) -> usize {
        self.nv
    }

    /// Where link i's joint coordinates start in q.
    pub fn q_offset(&self, i: usize) -> usize {
        self.q_offsets[i]
    }

    /// Where link i's joint coordinates start in v.
    pub fn v_offset(&self, i: usize) -> usize {
        self.v_offsets[i]
    }

    pub fn link_index(&self, name: &str) -> Option<usize> {
        self.links.iter().position(|l| l.name == name)
    }

    /// Link i's joint position slice of q.
    pub fn joint_q<'a>(&self, i: usize, q: &'a [f64]) -> &'a [f64] {
        &q[self.q_offsets[i]..self.q_offsets[i] + self.links[i].joint.nq()]
    }

    /// Link i's joint velocity slice of v.
    pub fn joint_v<'a>(&self, i: usize, v: &'a [f64]) -> &'a [f64] {
        &v[self.v_offsets[i]..self.v_offsets[i] + self.links[i].joint.nv()]
    }

    /// The neutral position: every joint at zero, quaternions at the identity.
    pub fn neutral_q(&self) -> Vec<f64> {
        let mut q = vec![0.0; self.nq];
        for (i, l) in self.links.iter().enumerate() {
            let o = self.q_offsets[i];
            l.joint.neutral(&mut q[o..o + l.joint.nq()]);
        }
        q
    }

    /// Check a state for this tree: lengths, finite values, and quaternions that are not zero
    /// (they are normalized where used, so only a zero or non-finite one is unusable).
    pub fn check_state(&self, q: &[f64], v: &[f64]) -> Result<(), MultibodyError> {
        check_len("q", self.nq, q.len())?;
        check_len("v", self.nv, v.len())?;
        if !q.iter().chain(v).all(|x| x.is_finite()) {
            return Err(MultibodyError::NonFiniteState);
        }
        for (i, l) in self.links.iter().enumerate() {
            if let Some(o) = l.joint.quaternion_offset() {
                let s = self.q_offsets[i] + o;
                let n2: f64 = q[s..s + 4].iter().map(|x| x * x).sum();
                if n2 < 1e-12 {
                    return Err(MultibodyError::ZeroQuaternion {
                        link: l.name.clone(),
                    });
                }
            }
        }
        Ok(())
    }
}

pub(super) fn check_len(what: &'static str, expected: usize, got: usize) -> Result<(), MultibodyError> {
    if expected == got {
        Ok(())
    } else {
        Err(MultibodyError::Length {
            what,
            expected,
            got,
        })
    }
}

/// Validate link i and normalize its joint axis.
fn check_link(i: usize, link: &mut Link) -> Result<(), MultibodyError> {
    let name = || link.name.clone();
    if let Some(p) = link.parent {
        if p >= i {
            return Err(MultibodyError::ParentNotBefore {
                link: link.name.clone(),
                index: i,
                parent: p,
            });
        }
    }
    if let JointKind::Revolute { axis } | JointKind::Prismatic { axis } = &mut link.joint {
        let n = axis.length();
        if !(n.is_finite() && n > MIN_AXIS) {
            return Err(MultibodyError::ZeroAxis { link: name() });
        }
        *axis /= n;
    }
    if !(link.mass.is_finite() && link.mass > 0.0) {
        return Err(MultibodyError::Mass {
            link: name(),
            mass: link.mass,
        });
    }
    let finite = |what: &'static str, ok: bool| {
        if ok {
            Ok(())
        } else {
            Err(MultibodyError::NonFinite { link: name(), what })
        }
    };
    finite("centre of mass", link.com.is_finite())?;
    finite(
        "joint frame",
        link.joint_frame.translation.is_finite()
            && link.joint_frame.rotation.is_finite()
            && link.joint_frame.rotation.length_squared() > 1e-12,
    )?;
    finite("inertia", link.inertia.is_finite())?;
    if !symmetric_positive_definite(&link.inertia) {
        return Err(MultibodyError::Inertia { link: name() });
    }
    link.inertia = 0.5 * (link.inertia + link.inertia.transpose());
    link.joint_frame.rotation = link.joint_frame.rotation.normalize();
    for (what, x) in [("damping", link.damping), ("armature", link.armature)] {
        if !(x.is_finite() && x >= 0.0) {
            return Err(MultibodyError::Negative {
                link: name(),
                what,
                value: x,
            });
        }
    }
    if let Some((lo, hi)) = link.limits {
        let one_dof = matches!(
            link.joint,
            JointKind::Revolute { .. } | JointKind::Prismatic { .. }
        );
        if !one_dof || lo.is_nan() || hi.is_nan() || lo > hi {
            return Err(MultibodyError::Limits {
                link: name(),
                lower: lo,
                upper: hi,
            });
        }
    }
    Ok(())
}

/// Symmetric (to 1e-9 of its largest entry: hand-written or file-read tensors are symmetric up
/// to their printed digits) and positive definite (Sylvester's criterion on the leading
/// minors, each compared with the scale of the matrix so that round-off does not pass for
/// definiteness).
fn symmetric_positive_definite(m: &DMat3) -> bool {
    let scale = m.to_cols_array().iter().fold(0.0f64, |a, x| a.max(x.abs()));
    if scale == 0.0 {
        return false;
    }
    let sym = (*m - m.transpose())
        .to_cols_array()
        .iter()
        .all(|x| x.abs() <= 1e-9 * scale);
    let (a, d2, d3) = (
        m.x_axis.x,
        m.x_axis.x * m.y_axis.y - m.y_axis.x * m.x_axis.y,
        m.determinant(),
    );
    let tiny = 1e-12;
    sym && a > tiny * scale && d2 > tiny * scale * scale && d3 > tiny * scale * scale * scale
}
