//! What the search produces: the potential contacts of a pair and their groups, each group the
//! paper's constraint "at least one member keeps ψ ≥ 0" (Williams, Lu & Trinkle, §5.2 and the
//! U-, I- and X-constraints of eqs 17–25), tagged with the configuration (eqs 34–38) it comes
//! from.
use crate::collision::Contact;

/// PEG's configuration (§5.2) a group comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Configuration {
    /// A vertex over a face: one member (eq. 34).
    VertexFace,
    /// A vertex near an edge: the two faces of the edge (I of eq. 36), or an edge–edge contact
    /// released by the endpoints of one edge (X of eq. 36).
    VertexEdge,
    /// A vertex near a vertex: the faces around it (I of eq. 37), or an edge–edge contact
    /// released by endpoints of both edges (X of eq. 38).
    VertexVertex,
    /// Two crossing edges far from their ends (eq. 35).
    EdgeEdge,
}

/// What a group is about, stable across steps while the same features stay close.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum GroupKey {
    /// A vertex of A (against B's faces).
    VertexOfA(u32),
    /// A vertex of B (against A's faces).
    VertexOfB(u32),
    /// An edge of A against an edge of B.
    Edges(u32, u32),
}

/// The paper's constraint kind of a group.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ConstraintKind {
    /// One member: U (eq. 17).
    Unilateral,
    /// A vertex against several faces: I (eq. 19).
    Inter,
    /// An edge–edge contact with releases: X (eq. 25).
    Cross,
}

/// One constraint: at least one member keeps a non-negative gap.
#[derive(Clone, Debug, PartialEq)]
pub struct Group {
    pub configuration: Configuration,
    pub key: GroupKey,
    /// Indices into [`PotentialSet::contacts`], increasing, at least one.
    pub members: Vec<usize>,
    /// Members that may carry a force (C_ι), increasing, never empty.
    pub candidates: Vec<usize>,
    /// True for edge groups (X-constraints when they have releases).
    pub from_edges: bool,
}

impl Group {
    pub fn kind(&self) -> ConstraintKind {
        if self.members.len() == 1 {
            ConstraintKind::Unilateral
        } else if self.from_edges {
            ConstraintKind::Cross
        } else {
            ConstraintKind::Inter
        }
    }
}

/// Potential contacts and their groups, for one or many piece pairs.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PotentialSet {
    pub contacts: Vec<Contact>,
    /// Applicability of each contact (eqs 30–31; −∞ for releases, which carry no force).
    pub applicability: Vec<f64>,
    pub groups: Vec<Group>,
}

impl PotentialSet {
    pub fn clear(&mut self) {
        self.contacts.clear();
        self.applicability.clear();
        self.groups.clear();
    }
}
