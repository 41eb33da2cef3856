//! Nothing passes through a fixed body: the checks `advance` runs on every step it completes,
//! with the body poses at the start of the step (`Workspace::start`).
//!
//! The depth check at the end of a step (`check_depths`) sees only the pairs the narrow phase
//! still reports, and skips half-spaces (a piece partly in the ground still has the plane's
//! normal as its way out). Two ways of passing through slip past it:
//!
//! 1. **Wholly beyond a half-space**: every point of a dynamic piece lies beyond the plane of a
//!    fixed half-space (for a sphere its centre more than r beyond, for a polytope the greatest
//!    n · x over its vertices below the plane's offset). The pair is still reported, but the
//!    piece is inside the solid with nothing of it left outside: a penalty spring of depth
//!    several times the piece's size throws it out at hundreds of m/s, a velocity-level model
//!    lifts it at its recovery speed from metres down, and either way the trajectory is not a
//!    contact any more. A piece *partly* beyond the plane, however deep, is left to the model
//!    (as before: its deepest point is pushed out along the normal, which always points out —
//!    `a_cube_deep_in_the_ground_is_pushed_straight_up`).
//! 2. **Crossed a bounded fixed piece within the step** (a wall, a floor slab, a plate): the
//!    segment from an interior point of a dynamic piece at the start of the step (the centre of
//!    mass of a body of one piece — inside it, a convex solid of uniform density; for a piece of
//!    a compound body a sphere's centre or a polytope's vertex mean) to the same point at the end
//!    enters the fixed piece after the start and leaves it before the end, through a face turned
//!    away from the one it went in by (entry normal · exit normal < 0: the far face of a wall,
//!    the opposite side of a ball). Such a body may have no contact left at all, so no depth check can see
//!    it. The criterion asks for the point to go in *and* come out within one step, on the
//!    opposite side: a legitimate motion does not take a piece's centre into a fixed piece (its
//!    whole half-width would overlap), and a chord that cuts a corner (in through the top, out
//!    through a side, normals at 90°) is not taken for a crossing. A point that starts the step
//!    already inside the fixed piece is left to the depth check.
//! 3. **Sank through a bounded fixed piece over several steps**: the interior point went into the
//!    fixed piece at one step and out at a later one through a face turned away from the one it
//!    went in by. A penalty contact under a load it cannot carry does this to a floor slab: the
//!    piece sinks until its centre passes the slab's middle, where the narrow phase's way out
//!    (the least overlap) turns to the far side and the spring pushes it on through (seen on
//!    `bin_200.toml` under `deepest-point`: the pile fell through the 0.1 m floor at 1.2 s and
//!    the run went on to report success). Where the point went in is remembered (`Scratch::inside`,
//!    keyed by the dynamic and the fixed piece, changed only once the step that made the change
//!    is kept: an adaptive attempt may be thrown away) until it comes out; a point inside since the start
//!    of the run has no entry face and is left alone.
//!
//! Cost per step: one pass over the dynamic pieces that moved, each placed once at the end of the
//! step and once at its start. Against each half-space an interior point on the near side rejects
//! the piece with one dot product (the vertices are read only for a piece whose interior point is
//! beyond). Against the bounded fixed pieces, sorted by the low x of their world bounding boxes,
//! only those whose box overlaps the segment's box are clipped exactly against their faces: a
//! box resting in a bin touches the boxes of no wall and of no floor slab it sits above.
use super::StepError;
use crate::contact::ContactModel;
use crate::dynamics::{Integrator, Model, State};
use crate::geometry::{Polytope, Pose, Shape};
use crate::util::hash::FastMap;
use glam::DVec3;

/// A bounded piece of a fixed body, placed in the world.
#[derive(Clone, Debug)]
pub(super) struct Obstacle {
    body: usize,
    piece: usize,
    pose: Pose,
    /// Corners of its world bounding box (m).
    lo: DVec3,
    hi: DVec3,
}

/// Scratch memory of the checks.
#[derive(Default, Debug, Clone)]
pub(super) struct Scratch {
    planes: Vec<Plane>,
    obstacles: Vec<Obstacle>,
    /// Interior points inside a fixed piece: (dynamic body, piece, fixed body, piece) → where
    /// they went in (way 3 of the module doc), as of the last accepted step. Only looked up,
    /// never iterated.
    inside: FastMap<(usize, usize, usize, usize), Entry>,
    /// The changes to `inside` the last checked step made (an entry: the point went in; none:
    /// it came out), and the time that step ended at. An adaptive attempt may be thrown away,
    /// so they are applied only when the next step starts where that one ended (it was kept).
    staged: Vec<((usize, usize, usize, usize), Option<Entry>)>,
    staged_end: f64,
}

impl Scratch {
    /// Apply the staged changes if the step being checked starts at `start_time`, where the
    /// staged one ended (it was accepted); drop them otherwise.
    fn commit_if_kept(&mut self, start_time: f64) {
        if self.staged_end == start_time {
            for (key, entry) in self.staged.drain(..) {
                match entry {
                    Some(e) => self.inside.insert(key, e),
                    None => self.inside.remove(&key),
                };
            }
        }
        self.staged.clear();
    }
}

/// Where an interior point went into a fixed piece.
#[derive(Clone, Copy, Debug)]
struct Entry {
    /// Outward normal of the face it went in by, in the fixed piece's frame.
    normal: DVec3,
    /// The point where it went in (world, m) and when (s).
    point: DVec3,
    time: f64,
}

/// A point inside the piece (local frame); `None` for a half-space.
fn interior(shape: &Shape) -> Option<DVec3> {
    match shape {
        Shape::Sphere { .. } => Some(DVec3::ZERO),
        Shape::Polytope(p) => Some(p.centroid),
        Shape::HalfSpace { .. } => None,
    }
}

/// Corners of the world bounding box of a bounded piece at `pose`.
fn bounding_box(shape: &Shape, pose: &Pose) -> (DVec3, DVec3) {
    match shape {
        Shape::Sphere { radius } => (
            pose.translation - DVec3::splat(*radius),
            pose.translation + DVec3::splat(*radius),
        ),
        Shape::Polytope(poly) => poly.vertices.iter().fold(
            (DVec3::splat(f64::INFINITY), DVec3::splat(f64::NEG_INFINITY)),
            |(lo, hi), v| {
                let w = pose.transform_point(*v);
                (lo.min(w), hi.max(w))
            },
        ),
        Shape::HalfSpace { .. } => (DVec3::splat(f64::NEG_INFINITY), DVec3::splat(f64::INFINITY)),
    }
}

/// "`name`", or "piece i of `name`" for a body of several pieces.
fn piece_name(model: &Model, body: usize, piece: usize) -> String {
    let b = &model.bodies[body];
    if b.pieces.len() > 1 {
        format!("piece {piece} of `{}`", b.name)
    } else {
        format!("`{}`", b.name)
    }
}

/// Check the step that took the bodies from the poses `start` (at time `start_time`) to
/// `state` (module documentation).
pub(super) fn check(
    model: &Model,
    start: &[Pose],
    start_time: f64,
    state: &State,
    contact_model: &ContactModel,
    scratch: &mut Scratch,
) -> Result<(), StepError> {
    scratch.commit_if_kept(start_time);
    let found = search(model, start, start_time, state, scratch);
    scratch.staged_end = state.time;
    match found {
        Some(found) => Err(found.into_error(model, state, contact_model)),
        None => Ok(()),
    }
}

/// What a check found, before it is worded.
enum Found {
    Beyond {
        body: usize,
        piece: usize,
        half_space: (usize, usize),
        /// Distance of the piece's nearest point beyond the plane (m).
        beyond: f64,
        /// Depth of its deepest point (m).
        depth: f64,
        travel: f64,
    },
    Crossed {
        body: usize,
        piece: usize,
        crossing: Crossing,
    },
    SankThrough {
        body: usize,
        piece: usize,
        crossing: Crossing,
        /// When the point went in (s).
        entered: f64,
    },
}

/// A segment that went through a fixed piece.
struct Crossing {
    /// The fixed piece: (body, piece).
    obstacle: (usize, usize),
    /// Length of the segment inside it (m).
    chord: f64,
    /// Distance of the segment's end past the surface it left by (m).
    beyond: f64,
    /// Length of the segment (m).
    travel: f64,
}

impl Found {
    fn into_error(self, model: &Model, state: &State, contact_model: &ContactModel) -> StepError {
        let remedy = remedy(model, contact_model);
        match self {
            Found::Beyond {
                body,
                piece,
                half_space,
                beyond,
                depth,
                travel,
            } => StepError::BeyondHalfSpace {
                step: state.step,
                time: state.time,
                body: piece_name(model, body, piece),
                half_space: piece_name(model, half_space.0, half_space.1),
                beyond,
                depth,
                travel,
                remedy,
            },
            Found::Crossed {
                body,
                piece,
                crossing: c,
            } => StepError::CrossedFixed {
                step: state.step,
                time: state.time,
                body: piece_name(model, body, piece),
                obstacle: piece_name(model, c.obstacle.0, c.obstacle.1),
                chord: c.chord,
                beyond: c.beyond,
                travel: c.travel,
                remedy,
            },
            Found::SankThrough {
                body,
                piece,
                crossing: c,
                entered,
            } => StepError::SankThrough {
                step: state.step,
                time: state.time,
                body: piece_name(model, body, piece),
                obstacle: piece_name(model, c.obstacle.0, c.obstacle.1),
                entered,
                chord: c.chord,
                beyond: c.beyond,
                remedy,
            },
        }
    }
}

/// What besides a smaller time step would keep a body out, for the model in use: the
/// activation that anticipates contact, the time-of-impact regression, or the implicit
/// integrator whose penalty springs engage ahead of touching (", or …", or empty).
fn remedy(model: &Model, contact_model: &ContactModel) -> String {
    let params = contact_model.parameters();
    let word = |name: &str| {
        params
            .iter()
            .find(|(n, _)| *n == name)
            .and_then(|(_, v)| v.word().map(str::to_string))
    };
    if word("activation").as_deref() == Some("penetrating") {
        return ", or `activation = \"anticipating\"` in [contact] (contacts enter the problem before they touch)".into();
    }
    if word("time_of_impact").as_deref() == Some("off") {
        return ", or `time_of_impact = \"regress\"` in [contact] (the step is cut at each impact)"
            .into();
    }
    let penalty = matches!(contact_model, ContactModel::Force(_));
    if penalty && model.settings.integrator != Integrator::ImplicitEuler {
        return ", or `integrator = \"implicit-euler\"` in [simulation] (its springs engage 4 h times the speed ahead of touching)".into();
    }
    String::new()
}

/// A fixed half-space: its body and piece, world normal and offset (points x of the plane have
/// n · x = offset).
#[derive(Clone, Copy, Debug)]
pub(super) struct Plane {
    body: usize,
    piece: usize,
    normal: DVec3,
    offset: f64,
}

/// The fixed pieces at `state`: half-spaces into `planes`, bounded pieces into `obstacles`
/// (sorted by the low x of their bounding box); the largest x-width of those boxes (m).
fn fixed_pieces(
    model: &Model,
    state: &State,
    planes: &mut Vec<Plane>,
    obstacles: &mut Vec<Obstacle>,
) -> f64 {
    planes.clear();
    obstacles.clear();
    for (b, body) in model.bodies.iter().enumerate().filter(|(_, b)| b.fixed) {
        for (p, piece) in body.pieces.iter().enumerate() {
            let pose = state.bodies[b].pose().mul(&piece.pose);
            if let Shape::HalfSpace { normal } = &piece.shape {
                let n = pose.transform_vector(*normal);
                planes.push(Plane {
                    body: b,
                    piece: p,
                    normal: n,
                    offset: n.dot(pose.translation),
                });
            } else {
                let (lo, hi) = bounding_box(&piece.shape, &pose);
                obstacles.push(Obstacle {
                    body: b,
                    piece: p,
                    pose,
                    lo,
                    hi,
                });
            }
        }
    }
    obstacles.sort_unstable_by(|x, y| x.lo.x.total_cmp(&y.lo.x));
    obstacles
        .iter()
        .map(|o| o.hi.x - o.lo.x)
        .fold(0.0, f64::max)
}

/// The first dynamic piece, in body order, that ended the step wholly beyond a half-space or
/// crossed a bounded fixed piece: one pass over the pieces that moved, each placed once at the
/// end of the step (and at its start when there is a bounded fixed piece to cross).
fn search(
    model: &Model,
    start: &[Pose],
    t0: f64,
    state: &State,
    scratch: &mut Scratch,
) -> Option<Found> {
    let Scratch {
        planes,
        obstacles,
        inside,
        staged,
        ..
    } = scratch;
    let width = fixed_pieces(model, state, planes, obstacles);
    if planes.is_empty() && obstacles.is_empty() {
        return None;
    }
    for (b, body) in model.bodies.iter().enumerate() {
        if !body.moves(t0) {
            continue;
        }
        let end = state.bodies[b].pose();
        // A body of one convex piece of uniform density has its centre of mass inside it: the
        // body's position is the interior point, and the piece's shape is read only if needed.
        let single = body.pieces.len() == 1;
        for (p, piece) in body.pieces.iter().enumerate() {
            // The interior point in the body frame; at the end and the start of the step.
            let local = match single {
                true => DVec3::ZERO,
                false => match interior(&piece.shape) {
                    Some(inside) => piece.pose.transform_point(inside),
                    None => continue,
                },
            };
            let e = end.transform_point(local);
            let a = || start[b].transform_point(local);
            for plane in planes.iter() {
                // An interior point on the near side: not wholly beyond (one dot product).
                if plane.normal.dot(e) >= plane.offset {
                    continue;
                }
                let pose = end.mul(&piece.pose);
                let (highest, lowest) = extent(&piece.shape, &pose, plane.normal);
                if highest < plane.offset {
                    return Some(Found::Beyond {
                        body: b,
                        piece: p,
                        half_space: (plane.body, plane.piece),
                        beyond: plane.offset - highest,
                        depth: plane.offset - lowest,
                        travel: (e - a()).length(),
                    });
                }
            }
            if obstacles.is_empty() {
                continue;
            }
            let a = a();
            if a == e {
                continue;
            }
            let memory = (&*inside, &mut *staged);
            if let Some(found) = cross(
                model,
                obstacles,
                width,
                a,
                e,
                (b, p),
                t0,
                state.time,
                memory,
            ) {
                return Some(found);
            }
        }
    }
    None
}

/// (max, min) of n · x over a bounded piece placed at `pose`.
fn extent(shape: &Shape, pose: &Pose, n: DVec3) -> (f64, f64) {
    match shape {
        Shape::Sphere { radius } => {
            let c = n.dot(pose.translation);
            (c + radius, c - radius)
        }
        Shape::Polytope(poly) => {
            let local = pose.inverse_transform_vector(n);
            let at = n.dot(pose.translation);
            let (lo, hi) = poly
                .vertices
                .iter()
                .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
                    (lo.min(v.dot(local)), hi.max(v.dot(local)))
                });
            (hi + at, lo + at)
        }
        Shape::HalfSpace { .. } => (f64::INFINITY, f64::NEG_INFINITY),
    }
}

/// Where the segment `a + t (b − a)` (in the polytope's frame) runs inside the convex polytope
/// (Cyrus–Beck clipping of its line against every face plane), or `None` when its line misses.
fn clip_polytope(poly: &Polytope, a: DVec3, b: DVec3) -> Option<Clip> {
    let d = b - a;
    let (mut t_in, mut t_out) = (f64::NEG_INFINITY, f64::INFINITY);
    let (mut n_in, mut n_out, mut out_offset) = (DVec3::ZERO, DVec3::ZERO, 0.0);
    for f in &poly.faces {
        let (num, den) = (f.offset - f.normal.dot(a), f.normal.dot(d));
        if den == 0.0 {
            if num < 0.0 {
                return None;
            }
        } else if den < 0.0 {
            let t = num / den;
            if t > t_in {
                (t_in, n_in) = (t, f.normal);
            }
        } else {
            let t = num / den;
            if t < t_out {
                (t_out, n_out, out_offset) = (t, f.normal, f.offset);
            }
        }
        if t_in > t_out {
            return None;
        }
    }
    Some(Clip {
        t_in,
        t_out,
        n_in,
        n_out,
        beyond: n_out.dot(b) - out_offset,
    })
}

/// The part of a segment inside a convex piece.
struct Clip {
    t_in: f64,
    t_out: f64,
    /// Outward normals of the surface where the segment enters and leaves.
    n_in: DVec3,
    n_out: DVec3,
    /// Distance of the segment's end past the surface it leaves by (m).
    beyond: f64,
}

/// Where the segment `a + t (b − a)` runs inside the ball of `radius` about the origin, or
/// `None` when its line misses.
fn clip_sphere(radius: f64, a: DVec3, b: DVec3) -> Option<Clip> {
    let d = b - a;
    let dd = d.length_squared();
    if dd == 0.0 {
        return None;
    }
    // |a + t d|² = r²: t = (−a·d ± √((a·d)² − dd (|a|² − r²))) / dd.
    let ad = a.dot(d);
    let disc = ad * ad - dd * (a.length_squared() - radius * radius);
    if disc <= 0.0 {
        return None;
    }
    let root = disc.sqrt();
    let (t_in, t_out) = ((-ad - root) / dd, (-ad + root) / dd);
    let (x_in, x_out) = (a + t_in * d, a + t_out * d);
    Some(Clip {
        t_in,
        t_out,
        n_in: x_in / radius,
        n_out: x_out / radius,
        beyond: b.length() - radius,
    })
}

/// The first fixed piece of `obstacles` (sorted by the low x of their bounding boxes, none wider
/// than `width` along x) that the segment `a → e` of the interior point of `moving` (body,
/// piece), from time `t0` to `t1`, goes through: into it after `a` and out before `e` (way 2 of
/// the module doc), or out of it before `e` after going in at an earlier step (way 3), leaving by
/// a surface turned away from the one it went in by. `memory` = (where points went in as of
/// the last accepted step, the changes this step stages): stages where the point goes in when
/// it ends the step inside, and its removal when it comes out.
#[allow(clippy::too_many_arguments)]
fn cross(
    model: &Model,
    obstacles: &[Obstacle],
    width: f64,
    a: DVec3,
    e: DVec3,
    moving: (usize, usize),
    t0: f64,
    t1: f64,
    memory: (
        &FastMap<(usize, usize, usize, usize), Entry>,
        &mut Vec<((usize, usize, usize, usize), Option<Entry>)>,
    ),
) -> Option<Found> {
    let (inside, staged) = memory;
    let (lo, hi) = (a.min(e), a.max(e));
    // A box whose low x is below lo.x − width ends below lo.x.
    let first = obstacles.partition_point(|o| o.lo.x < lo.x - width);
    for o in obstacles[first..].iter().take_while(|o| o.lo.x <= hi.x) {
        if (0..3).any(|k| o.hi[k] < lo[k] || hi[k] < o.lo[k]) {
            continue;
        }
        let (la, le) = (
            o.pose.inverse_transform_point(a),
            o.pose.inverse_transform_point(e),
        );
        let clip = match &model.bodies[o.body].pieces[o.piece].shape {
            Shape::Sphere { radius } => clip_sphere(*radius, la, le),
            Shape::Polytope(poly) => clip_polytope(poly, la, le),
            Shape::HalfSpace { .. } => None,
        };
        let Some(c) = clip else { continue };
        if c.t_in >= c.t_out {
            continue;
        }
        let travel = (e - a).length();
        let key = (moving.0, moving.1, o.body, o.piece);
        let went_in = c.t_in > 0.0 && c.t_in <= 1.0;
        let came_out = c.t_out >= 0.0 && c.t_out < 1.0;
        if went_in && came_out && c.n_in.dot(c.n_out) < 0.0 {
            return Some(Found::Crossed {
                body: moving.0,
                piece: moving.1,
                crossing: Crossing {
                    obstacle: (o.body, o.piece),
                    chord: (c.t_out - c.t_in) * travel,
                    beyond: c.beyond,
                    travel,
                },
            });
        }
        if went_in && !came_out {
            let point = a + c.t_in * (e - a);
            let time = t0 + c.t_in * (t1 - t0);
            staged.push((
                key,
                Some(Entry {
                    normal: c.n_in,
                    point,
                    time,
                }),
            ));
        } else if came_out && !went_in {
            if let Some(entry) = inside.get(&key) {
                staged.push((key, None));
                if entry.normal.dot(c.n_out) < 0.0 {
                    let exit = a + c.t_out * (e - a);
                    return Some(Found::SankThrough {
                        body: moving.0,
                        piece: moving.1,
                        crossing: Crossing {
                            obstacle: (o.body, o.piece),
                            chord: (exit - entry.point).length(),
                            beyond: c.beyond,
                            travel,
                        },
                        entered: entry.time,
                    });
                }
            }
        }
    }
    None
}
