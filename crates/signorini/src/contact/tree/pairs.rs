//! Contact between the collision shapes of a tree's links, and the one form in which the two
//! tree contact models take every contact (ground or link pair).
//!
//! A `Tree` may be a forest: every link whose parent is `None` roots a *body* (a robot, or a
//! free object on a floating joint). Shapes of two different bodies always touch; shapes of one
//! body touch only with `self_contact` on, and then never on the same link or on a parent and
//! its child (their joint holds them together, and a URDF's collision shapes overlap there, as
//! MuJoCo and Drake exclude them). Shapes that cannot move relative to each other never touch:
//! links joined by fixed joints count as one link (one rigid piece), and two pieces welded to
//! the world never touch.
//!
//! The narrow phase is the free bodies' (`collision::narrow::pair_contacts`: sphere, polytope
//! and their pairs; A → B normal, ψ < 0 penetrating), on each shape's world pose, for pairs
//! whose bounding balls come within the margin (`Shape::bounding_radius`). Friction of a pair
//! is √(μ_a μ_b), the free bodies' `Material::pair_friction`.
//!
//! The models see a contact as a `Touch`: normal n (from A to B), gap, friction, the point on
//! B's link and, unless A is the ground, the point on A's. Its relative velocity is
//! v_B(p_B) − v_A(p_A) = J v with J = J_B(p_B) − J_A(p_A) (`ground::point_jacobian` of each
//! link); a force f on B at p_B and −f on A at p_A is the generalized force Jᵀ f.
use super::ground::{add_point_jacobian, point_jacobian, point_velocity, GroundContact};
use super::{Ground, LinkShape};
use crate::collision::narrow::pair_contacts;
use crate::collision::Contact;
use crate::geometry::{Feature, Pose};
use crate::multibody::{LinkKinematics, Tree};
use glam::{DQuat, DVec3};

/// One contact point between shapes on two links.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LinkContact {
    pub link_a: usize,
    pub link_b: usize,
    /// Indices of the shapes in the list given to [`link_contacts`].
    pub shape_a: usize,
    pub shape_b: usize,
    /// World points on A and on B (m).
    pub point_a: DVec3,
    pub point_b: DVec3,
    /// Unit normal, from A towards B.
    pub normal: DVec3,
    /// Signed gap ψ (m): > 0 apart, < 0 penetrating.
    pub gap: f64,
    /// √(μ_a μ_b) (–).
    pub friction: f64,
    /// The features of A's and B's shapes that made the contact (which vertex, edge or face).
    pub features: (Feature, Feature),
}

/// The shape pairs (a, b), a < b, that may touch (module doc), in order: deterministic. Links
/// joined by fixed joints move as one rigid piece, so they count as one link here: shapes on
/// one piece never touch, a piece's parent is the piece its first moving joint hangs from, and a
/// piece whose fixed joints reach the world is welded.
pub fn candidate_pairs(
    tree: &Tree,
    shapes: &[LinkShape],
    self_contact: bool,
) -> Vec<(usize, usize)> {
    let links = tree.links();
    // The link at the top of i's rigid piece: up through fixed joints (nv = 0).
    let piece = |mut i: usize| {
        while let (0, Some(p)) = (links[i].joint.nv(), links[i].parent) {
            i = p;
        }
        i
    };
    let root = |mut i: usize| {
        while let Some(p) = links[i].parent {
            i = p;
        }
        i
    };
    let welded = |i: usize| links[piece(i)].joint.nv() == 0;
    let parent_piece = |i: usize| links[piece(i)].parent.map(piece);
    let mut pairs = Vec::new();
    for (a, sa) in shapes.iter().enumerate() {
        for (b, sb) in shapes.iter().enumerate().skip(a + 1) {
            let (pa, pb) = (piece(sa.link), piece(sb.link));
            let same_body = root(pa) == root(pb);
            if pa == pb || (welded(pa) && welded(pb)) || (same_body && !self_contact) {
                continue;
            }
            if same_body && (parent_piece(pa) == Some(pb) || parent_piece(pb) == Some(pa)) {
                continue;
            }
            pairs.push((a, b));
        }
    }
    pairs
}

/// Every contact point with gap below `margin` (m) between the shape pairs `pairs`
/// ([`candidate_pairs`]) at the link poses `links`, appended to `out` (cleared first) in pair
/// order: deterministic.
pub fn link_contacts(
    shapes: &[LinkShape],
    pairs: &[(usize, usize)],
    links: &[LinkKinematics],
    margin: f64,
    out: &mut Vec<LinkContact>,
) {
    out.clear();
    let mut found: Vec<Contact> = Vec::new();
    for &(a, b) in pairs {
        let (sa, sb) = (&shapes[a], &shapes[b]);
        let (pa, pb) = (
            world_pose(&links[sa.link], &sa.pose),
            world_pose(&links[sb.link], &sb.pose),
        );
        let reach = sa.shape.bounding_radius() + sb.shape.bounding_radius() + margin;
        if pa.translation.distance_squared(pb.translation) > reach * reach {
            continue;
        }
        found.clear();
        pair_contacts(&sa.shape, &pa, &sb.shape, &pb, margin, &mut found);
        let friction = (sa.friction * sb.friction).sqrt();
        out.extend(
            found
                .iter()
                .filter(|c| c.gap < margin)
                .map(|c| LinkContact {
                    link_a: sa.link,
                    link_b: sb.link,
                    shape_a: a,
                    shape_b: b,
                    point_a: c.point_a,
                    point_b: c.point_b,
                    normal: c.normal,
                    gap: c.gap,
                    friction,
                    features: (c.feature_a, c.feature_b),
                }),
        );
    }
}

/// A shape's world pose: its pose in the link frame, placed by the link's.
pub(super) fn world_pose(link: &LinkKinematics, shape: &Pose) -> Pose {
    let frame = Pose::new(link.position, DQuat::from_mat3(&link.rotation).normalize());
    frame.mul(shape)
}

/// A contact as the models take it (module doc).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Touch {
    /// From A to B (m, unit).
    pub normal: DVec3,
    /// m: > 0 apart, < 0 penetrating.
    pub gap: f64,
    /// –.
    pub friction: f64,
    /// B's link and the point on it (m, world).
    pub b: (usize, DVec3),
    /// A's link and the point on it; `None`: the ground.
    pub a: Option<(usize, DVec3)>,
}

impl Touch {
    /// J = J_B(p_B) − J_A(p_A) into `out` (length nv): column j is the relative velocity per
    /// unit v_j.
    pub fn jacobian(&self, tree: &Tree, links: &[LinkKinematics], out: &mut [DVec3]) {
        point_jacobian(tree, links, self.b.0, self.b.1, out);
        if let Some((link, p)) = self.a {
            add_point_jacobian(tree, links, link, p, -1.0, out);
        }
    }

    /// The relative velocity v_B(p_B) − v_A(p_A) (m/s, world) at the link velocities `links`.
    pub fn velocity(&self, links: &[LinkKinematics]) -> DVec3 {
        let vb = point_velocity(links, self.b.0, self.b.1);
        match self.a {
            Some((link, p)) => vb - point_velocity(links, link, p),
            None => vb,
        }
    }
}

impl Touch {
    /// A ground contact as a touch.
    pub fn of_ground(c: &GroundContact) -> Touch {
        Touch {
            normal: Ground::NORMAL,
            gap: c.gap,
            friction: c.friction,
            b: (c.link, c.point),
            a: None,
        }
    }

    /// A link contact as a touch, with friction coefficient `friction` (–).
    pub fn of_link(c: &LinkContact, friction: f64) -> Touch {
        Touch {
            normal: c.normal,
            gap: c.gap,
            friction,
            b: (c.link_b, c.point_b),
            a: Some((c.link_a, c.point_a)),
        }
    }
}

/// The ground contacts then the link contacts as touches, into `out` (cleared first).
pub fn touches(ground: &[GroundContact], pairs: &[LinkContact], out: &mut Vec<Touch>) {
    out.clear();
    out.extend(ground.iter().map(Touch::of_ground));
    out.extend(pairs.iter().map(|c| Touch::of_link(c, c.friction)));
}
