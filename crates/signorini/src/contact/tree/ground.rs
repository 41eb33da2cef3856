//! Contact points of a tree's link shapes with a ground half-space, and the point Jacobian in
//! generalized coordinates.
//!
//! The ground is the half-space z ≥ `height` (world z up, normal +z). A polytope's contact
//! points are its vertices whose gap ψ = z − height is below a margin (a box resting on a face
//! gives its four corners, a wheel's prism the vertices of its lowest edge); a sphere's is its
//! lowest point, ψ = z_centre − r − height. This is the vertex–half-space test of the free
//! bodies' narrow phase (`collision::narrow`, half-space pairs), written over the tree's link
//! poses instead of a `State`.
use crate::geometry::{Pose, Shape};
use crate::multibody::{LinkKinematics, Tree};
use glam::DVec3;

/// A collision shape moving with a tree link.
#[derive(Clone, Debug)]
pub struct LinkShape {
    /// The tree link it moves with.
    pub link: usize,
    /// The shape's frame in the link frame.
    pub pose: Pose,
    pub shape: Shape,
    /// Coulomb friction coefficient against the ground (–, ≥ 0).
    pub friction: f64,
}

/// The ground plane z = `height` (m), solid below.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ground {
    /// m, world z.
    pub height: f64,
    /// The ground's own friction coefficient μ_g (–, ≥ 0): a shape of friction μ touches it
    /// with √(μ μ_g), the free bodies' pair rule (`Material::pair_friction`). `None`: with the
    /// shape's own μ (a URDF run's `friction` parameter).
    pub friction: Option<f64>,
}

impl Ground {
    /// The normal, pointing out of the ground: +z.
    pub const NORMAL: DVec3 = DVec3::Z;

    /// The plane z = `height` (m) with no friction of its own (shapes touch it with theirs).
    pub const fn at(height: f64) -> Ground {
        Ground {
            height,
            friction: None,
        }
    }

    /// The friction of a contact with a shape of friction `mu` (–).
    pub fn friction_with(&self, mu: f64) -> f64 {
        self.friction.map_or(mu, |g| (mu * g).sqrt())
    }
}

/// One contact point of a link with the ground.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GroundContact {
    pub link: usize,
    /// The index of the shape in the list given to [`ground_contacts`].
    pub shape: usize,
    /// The vertex of the shape (0 for a sphere): identifies the point across steps.
    pub vertex: usize,
    /// The material point's world position (m): on the shape, so below the ground when ψ < 0.
    pub point: DVec3,
    /// Signed gap ψ (m): > 0 apart, < 0 penetrating.
    pub gap: f64,
    /// Friction coefficient of its shape.
    pub friction: f64,
}

/// Every contact point with gap ψ < `margin` (m) of the shapes at the link poses `links`
/// (`multibody::algorithms::forward_kinematics`), appended to `out` (cleared first) in shape
/// then vertex order: deterministic.
pub fn ground_contacts(
    shapes: &[LinkShape],
    links: &[LinkKinematics],
    ground: Ground,
    margin: f64,
    out: &mut Vec<GroundContact>,
) {
    out.clear();
    for (s, ls) in shapes.iter().enumerate() {
        let k = &links[ls.link];
        let world = |p: DVec3| k.point(ls.pose.transform_point(p));
        let mut push = |vertex: usize, point: DVec3, gap: f64| {
            if gap < margin {
                out.push(GroundContact {
                    link: ls.link,
                    shape: s,
                    vertex,
                    point,
                    gap,
                    friction: ground.friction_with(ls.friction),
                });
            }
        };
        match &ls.shape {
            Shape::Sphere { radius } => {
                let c = world(DVec3::ZERO);
                let p = c - *radius * Ground::NORMAL;
                push(0, p, p.z - ground.height);
            }
            Shape::Polytope(poly) => {
                for (i, &v) in poly.vertices.iter().enumerate() {
                    let p = world(v);
                    push(i, p, p.z - ground.height);
                }
            }
            // A half-space on a link never touches the ground in a way a point describes.
            Shape::HalfSpace { .. } => {}
        }
    }
}

/// The point Jacobian of the material point at world position `p` on link `link`: column j of
/// `out` (length nv) is the point's world velocity per unit v_j, so the point moves at
/// Σ_j out[j] v_j. For each joint on the path from the link to the root, with motion subspace
/// column S = [s_ω; s_v] in that joint's child link coordinates (RBDA §4.4; link axes R and
/// origin o in the world): out[j] = R s_v + (R s_ω) × (p − o). Columns of joints off the path
/// are zero. A force f at the point maps to the generalized force τ = Jᵀ f.
pub fn point_jacobian(
    tree: &Tree,
    links: &[LinkKinematics],
    link: usize,
    p: DVec3,
    out: &mut [DVec3],
) {
    out.fill(DVec3::ZERO);
    for_each_column(tree, links, link, p, |j, column| out[j] = column);
}

/// `out[j] += scale · column j` of the point Jacobian of [`point_jacobian`] (length nv): a
/// relative velocity's Jacobian is one point's minus another's.
pub fn add_point_jacobian(
    tree: &Tree,
    links: &[LinkKinematics],
    link: usize,
    p: DVec3,
    scale: f64,
    out: &mut [DVec3],
) {
    for_each_column(tree, links, link, p, |j, column| out[j] += scale * column);
}

/// Call `f(j, column j of the point Jacobian)` for every degree of freedom j on the path from
/// `link` to the root ([`point_jacobian`]'s formula), the others being zero.
fn for_each_column(
    tree: &Tree,
    links: &[LinkKinematics],
    link: usize,
    p: DVec3,
    mut f: impl FnMut(usize, DVec3),
) {
    let mut j = Some(link);
    while let Some(i) = j {
        let l = &tree.links()[i];
        let (r, o) = (links[i].rotation, links[i].position);
        for k in 0..l.joint.nv() {
            let s = l.joint.subspace(k);
            f(tree.v_offset(i) + k, r * s.lin + (r * s.ang).cross(p - o));
        }
        j = l.parent;
    }
}

/// `τ += Jᵀ f`: the generalized force of the force `f` (N, world axes) at world point `p` on
/// link `link`, without forming J.
pub fn add_point_force(
    tree: &Tree,
    links: &[LinkKinematics],
    link: usize,
    p: DVec3,
    f: DVec3,
    tau: &mut [f64],
) {
    for_each_column(tree, links, link, p, |j, column| tau[j] += column.dot(f));
}

/// The world velocity (m/s) of the material point at `p` on link `link` (`links` from forward
/// kinematics at (q, v)).
pub fn point_velocity(links: &[LinkKinematics], link: usize, p: DVec3) -> DVec3 {
    let k = &links[link];
    k.velocity + k.angular_velocity.cross(p - k.position)
}

/// Each link shape of a URDF import with friction coefficient `friction`.
pub fn shapes_of(
    collisions: &[crate::multibody::urdf::Collision],
    friction: f64,
) -> Vec<LinkShape> {
    collisions
        .iter()
        .map(|c| LinkShape {
            link: c.link,
            pose: c.pose,
            shape: c.shape.clone(),
            friction,
        })
        .collect()
}
