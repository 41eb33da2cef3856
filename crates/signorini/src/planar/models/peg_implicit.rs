//! PEG 2D's implicit gap prediction: each constraint's vertex–edge members measured exactly at the
//! pose a velocity leads to, and linearized about it.
//!
//! The paper's subproblem (Williams, Lu & Trinkle 2016, eq. 6 truncated) asks the *linear*
//! end-of-step gap ψ + h G ν⁺ of one member of each constraint to be ≥ 0, with G at the start
//! pose. A polygon that the step's impulse turns by θ moves its corners by about r θ²/2 off that
//! prediction: measured on the box of polygons (seed 2, h = 16 ms), a landing that gives a polygon
//! 13 rad/s (0.2 rad in the step) left every constraint satisfied to round-off by the linear gap
//! and 8 mm deep by the exact one (1.0e-3 m² of overlap). As the 3D model (`contact/peg/passes.rs`)
//! and the geometrically implicit time stepping of Chakraborty, Berard, Akella & Trinkle (2007), a
//! further pass linearizes every member about the pose q* = q + h ν* that the last pass's
//! velocities ν* lead to:
//!
//! ```text
//!   ψ(q + h ν) ≈ ψ* + h G* (ν − ν*)        ψ* = n*·(v* − e₀*), the vertex's distance to the
//!                                          edge's line at q*; G* the Jacobian at q*
//! ```
//!
//! which `Lcp::assemble` takes as a member of gap ψ* − h G* ν* and row G*: the member's contact
//! points are moved to the end pose's arms about each body's *start* centre (`Row::of` reads the
//! arm p − c from the state it is given; G is a derivative with respect to ν, which acts at the
//! start pose, so the arm at q* hung on the start centre is G*). The primary of each constraint
//! (eq. 24) becomes, of the members that hold at the start (gap ≥ −`gap_tolerance`), the one of
//! largest gap at q* (the member that holds the constraint there); a member that starts behind
//! its line is primary only when none holds. With the largest gap at q* alone, an X-constraint's
//! member 3.5 mm behind its line took the force and its vertex was pushed out by 3.5 mm in one
//! 5 ms step: 0.017 J gained, and up to 0.35 J in one step over the box of polygons.
//! Plain constraints (disks, segments, lines, recovery contacts) keep their start-pose
//! linearization: their narrow phase is not re-run.
//!
//! Which pass a step keeps is decided in `peg.rs` (`PlanarPeg::solve_step`) by [`violation`]:
//! the deepest exact end-of-step gap of any constraint below its recovery floor.
use super::peg::Constraint2;
use super::rows::Row;
use crate::planar::collision::{Contact2, Feature2, Placed};
use crate::planar::{PlanarModel, PlanarState};
use glam::DVec2;

/// The pose a velocity leads to: each dynamic body's centre and polygon placed at q + h ν.
pub(super) struct EndPose {
    state: PlanarState,
    placed: Vec<Placed>,
}

impl EndPose {
    /// q* = q + h ν (semi-implicit Euler's position update, `PlanarWorld::integrate`).
    pub(super) fn new(model: &PlanarModel, state: &PlanarState, velocity: &[f64], h: f64) -> Self {
        let mut end = state.clone();
        for (s, o) in end.bodies.iter_mut().zip(model.dof_offsets()) {
            if let Some(o) = o {
                s.velocity = DVec2::new(velocity[o], velocity[o + 1]);
                s.angular_velocity = velocity[o + 2];
                s.position += h * s.velocity;
                s.angle += h * s.angular_velocity;
            }
        }
        let placed = model
            .bodies
            .iter()
            .zip(&end.bodies)
            .map(|(b, s)| Placed::new(&b.shape, &s.pose()))
            .collect();
        EndPose { state: end, placed }
    }

    /// Every body placed at this pose.
    pub(super) fn placed(&self) -> &[Placed] {
        &self.placed
    }

    /// A vertex–edge member (A: the edge's polygon, B: the vertex's) at this pose: ψ* and the
    /// contact there (points, normal), or `None` for any other feature pair.
    fn member(&self, c: &Contact2) -> Option<Contact2> {
        let (Feature2::Edge(k), Feature2::Vertex(i)) = (c.feature_a, c.feature_b) else {
            return None;
        };
        let (
            Placed::Polygon {
                vertices: va,
                normals: na,
            },
            Placed::Polygon { vertices: vb, .. },
        ) = (&self.placed[c.body_a], &self.placed[c.body_b])
        else {
            return None;
        };
        let (n, e0, v) = (na[k as usize], va[k as usize], vb[i as usize]);
        let gap = n.dot(v - e0);
        Some(Contact2 {
            point_a: v - gap * n,
            point_b: v,
            normal: n,
            gap,
            ..*c
        })
    }
}

/// The exact gap (m) of member `c` at `end`, else its linear prediction ψ + h G ν from `start`.
fn end_gap(c: &Contact2, start: &PlanarState, dofs: &[Option<usize>], end: &EndPose, velocity: &[f64], h: f64) -> f64 {
    match end.member(c) {
        Some(m) => m.gap,
        None => c.gap + h * Row::of(start, dofs, c, c.normal).dot(velocity),
    }
}

/// `c` linearized about `end` (reached from `start` with `about`): the member of gap
/// ψ* − h G* ν* and points whose arms about the start centres are those at q*; `c` itself when
/// it is not a vertex–edge member of two polygons.
fn relinearized(c: &Contact2, start: &PlanarState, dofs: &[Option<usize>], end: &EndPose, about: &[f64], h: f64) -> (Contact2, f64) {
    let Some(m) = end.member(c) else {
        return (*c, c.gap + h * Row::of(start, dofs, c, c.normal).dot(about));
    };
    let carried = |body: usize, p: DVec2| {
        start.bodies[body].position + (p - end.state.bodies[body].position)
    };
    let mut lin = Contact2 {
        point_a: carried(m.body_a, m.point_a),
        point_b: carried(m.body_b, m.point_b),
        ..m
    };
    lin.gap = m.gap - h * Row::of(start, dofs, &lin, lin.normal).dot(about);
    (lin, m.gap)
}

/// The constraints `set` (start pose) linearized about `end`, reached with `about`; each
/// constraint's primary is the member of largest gap there (its first member on ties).
pub(super) fn relinearize(
    model: &PlanarModel,
    start: &PlanarState,
    set: &[Constraint2],
    end: &EndPose,
    about: &[f64],
    tolerance: f64,
) -> Vec<Constraint2> {
    let (h, dofs) = (model.settings.time_step, model.dof_offsets());
    set.iter()
        .map(|c| {
            let starts: Vec<f64> = std::iter::once(&c.primary)
                .chain(&c.others)
                .map(|m| m.gap)
                .collect();
            let mut members: Vec<(Contact2, f64)> = std::iter::once(&c.primary)
                .chain(&c.others)
                .map(|m| relinearized(m, start, &dofs, end, about, h))
                .collect();
            // A member that holds at the start (gap ≥ −tolerance) before one that does not: a
            // force on a member that starts behind its line pushes that vertex out by its whole
            // depth in one step (measured: an X-constraint's member at −3.5 mm, 0.017 J gained
            // in one 5 ms step); then the largest gap at `end`.
            let holds = |x: usize| starts[x] >= -tolerance;
            let best = (0..members.len())
                .max_by(|&x, &y| {
                    holds(x)
                        .cmp(&holds(y))
                        .then(members[x].1.total_cmp(&members[y].1))
                        .then(y.cmp(&x))
                })
                .expect("a constraint has a primary");
            let primary = members.remove(best).0;
            Constraint2 {
                what: c.what,
                primary,
                others: members.into_iter().map(|m| m.0).collect(),
            }
        })
        .collect()
}

/// The largest member gap of constraint `c` (start pose) at `end` (m): ≥ 0 exactly when the
/// constraint holds there.
pub(super) fn held_gap(
    model: &PlanarModel,
    start: &PlanarState,
    c: &Constraint2,
    end: &EndPose,
    velocity: &[f64],
) -> f64 {
    let (h, dofs) = (model.settings.time_step, model.dof_offsets());
    std::iter::once(&c.primary)
        .chain(&c.others)
        .map(|m| end_gap(m, start, &dofs, end, velocity, h))
        .fold(f64::NEG_INFINITY, f64::max)
}

/// The deepest violation (m, ≤ 0) at `end` of the constraints `set` (start pose), each against
/// its recovery floor `floors[j]`: min over j of min(0, [`held_gap`] − floor).
pub(super) fn violation(
    model: &PlanarModel,
    start: &PlanarState,
    set: &[Constraint2],
    floors: &[f64],
    end: &EndPose,
    velocity: &[f64],
) -> f64 {
    set.iter()
        .zip(floors)
        .map(|(c, floor)| (held_gap(model, start, c, end, velocity) - floor).min(0.0))
        .fold(0.0, f64::min)
}
