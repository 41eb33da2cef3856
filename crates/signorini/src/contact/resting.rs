//! Resting contact at the acceleration level: Baraff's contact-force LCP (Baraff 1994, "Fast
//! contact force computation for nonpenetrating rigid bodies"; slides "Rigid Body Dynamics (II)",
//! slides 2 and 8–15), with Coulomb friction.
//!
//! This is a component, not a [`ContactModel`](super::ContactModel): an impulse-based model first
//! resolves the colliding contacts with impulses, then calls [`resting_forces`] for the forces that
//! keep the remaining (resting) contacts from accelerating into each other (slide 15's loop:
//! `applyImpulses` until nothing collides, then `solveLCP(restingC)`).
//!
//! # Classification (slide 2)
//!
//! Only contacts with gap ψ ≤ `gap_tolerance` touch; the others (and contacts between two fixed
//! bodies) are [`ContactClass::Apart`]. A touching contact with relative normal velocity
//!
//! ```text
//!   v_n = (v_B(p_b) − v_A(p_a))·n                                             (R1)
//! ```
//!
//! is separating when v_n > ε_v (no force), colliding when v_n < −ε_v (excluded from the LCP and
//! listed: the caller must apply impulses first) and resting when |v_n| ≤ ε_v (in the LCP).
//!
//! # Normal acceleration (slides 8–10)
//!
//! For a resting contact the separation d(t) = (p_b(t) − p_a(t))·n(t), with p_a, p_b material
//! points of A and B, has (Baraff's course notes "Rigid body simulation II: nonpenetration
//! constraints", the d̈ formula; A and B swapped to this crate's normal from A to B)
//!
//! ```text
//!   d̈ = n·(p̈_b − p̈_a) + 2 ṅ·(ṗ_b − ṗ_a) + (p_b − p_a)·n̈                      (R2)
//!   p̈ = a + α × r + ω × (ω × r),   r = p − x (x the centre of mass)           (R3)
//! ```
//!
//! This is exact for polyhedral features, whose contact points are material points (a vertex, or
//! any point of an edge or face: n is normal to the feature). A sphere's contact point
//! P = c ∓ r n slides over its surface as it rolls, so for a sphere side (R2) is taken of the true
//! gap with P in place of the material point: n·P̈_b = n·c̈_b + r_b |ṅ|², Ṗ_b = ċ_b − r_b ṅ on B
//! (signs flipped on A), c̈ from (R3) at the centre. (Material points there would add the
//! spurious r |ω × n − ṅ|²: a ball rolling fast on a floor would seem to lift off.)
//!
//! The last term of (R2) vanishes at ψ = 0 and is dropped (its size is |ψ| |ṅ|², below
//! `gap_tolerance` × |ω|²). The body accelerations (a, α) are affine in the contact forces, so the
//! normal accelerations of the resting contacts are (slide 9)
//!
//! ```text
//!   a_n = A f + b,   A = G_n M⁻¹ G_nᵀ (`delassus`),                            (R4)
//!   b   = (R2) evaluated with the applied wrenches, gravity and the gyroscopic term −ω × Jω
//!         and no contact force (`integrate::accelerations`), velocity products included,
//! ```
//!
//! and the forces solve the LCP (slides 9–10; Baraff 1994)
//!
//! ```text
//!   0 ≤ f ⊥ a_n = A f + b ≥ 0.                                                (R5)
//! ```
//!
//! ṅ depends on which body carries the normal:
//! - a half-space piece, or a face parallel to the contact plane (the contact's feature is that
//!   face, or a vertex or edge next to it, as for points clipped on a face's side): n turns with
//!   that body, ṅ = ω_owner × n. When both sides carry such a face (face–face contact) the first
//!   match wins, A before B; the choice changes b by 2 ((ω_B − ω_A) × n)·v_rel, which vanishes
//!   for a contact that is resting and sticking.
//! - edge–edge: n = s (e_a × e_b)/|e_a × e_b| with ė = ω × e, so
//!   ṅ = s (I − n nᵀ) u̇ / |u|, u = e_a × e_b, u̇ = ė_a × e_b + e_a × ė_b.
//! - a sphere against a sphere, vertex or edge: n is along w = (I − e eᵀ)(c − p₀) (c the sphere's
//!   centre, p₀ the other centre, the vertex or a point of the edge, e the unit edge direction or
//!   0), ṅ = ±(I − n nᵀ) ẇ / |w| with ẇ = (I − e eᵀ)(ċ − ṗ₀) − ė (e·(c − p₀)) − e (ė·(c − p₀)).
//! - anything else (polytope vertex–vertex or vertex–edge, where the normal is the direction
//!   between two touching points and is not defined at ψ = 0): ṅ ≈ 0, and the contact is listed
//!   in [`RestingForces::approximate_normal_rate`].
//!
//! # Friction
//!
//! μ is `Material::pair_friction` of the two bodies' materials. With the tangential slip
//! v_t = v_rel − v_n n:
//!
//! - sticking (|v_t| ≤ ε_t): the polyhedral cone of k directions d_j (`cone::directions`) with the
//!   Stewart–Trinkle σ rows at the acceleration level (β ≥ 0 the friction force components, σ ≥ 0
//!   the magnitude of the tangential acceleration once the contact starts to slip):
//!
//!   ```text
//!     0 ≤ β_c ⊥ D_cᵀ a + e σ_c ≥ 0,     0 ≤ σ_c ⊥ μ_c f_c − eᵀ β_c ≥ 0          (R6)
//!   ```
//!
//!   with D_cᵀ a = A_tn f + A_tt β + b_t, b_t = d_j·(p̈_b − p̈_a) at zero contact force. The velocity
//!   product of the tangent directions (ḋ_j·v_rel) is dropped: v_rel is within (ε_v, ε_t) of zero
//!   for a resting sticking contact. The cone rows use material points for spheres too, so for
//!   a rolling sphere they miss the terms of the contact point's motion over the surfaces. The
//!   LCP in z = (f, β, σ) has the matrix of `stewart_trinkle` (there in impulses, here in
//!   forces):
//!
//!   ```text
//!     M = [ A_nn  A_nt  0 ]     q = [ b_n ]
//!         [ A_tn  A_tt  E ]         [ b_t ]                                       (R7)
//!         [ μ     −Eᵀ   0 ]         [ 0   ]
//!   ```
//!
//!   The polyhedral cone is an inner approximation of Coulomb's: the friction force may reach only
//!   μ f cos(π/k) in directions halfway between two d_j (exact along each d_j).
//! - sliding (|v_t| > ε_t): Coulomb's law fixes the friction force on B to −μ f t̂, t̂ = v_t/|v_t|
//!   (and its opposite on A). It is folded into the normal column: the generalized force of contact
//!   c is f_c (G_n,c − μ_c G_t̂,c)ᵀ, so column c of (R7) becomes
//!
//!   ```text
//!     M[:, c] = W[:, n_c] − μ_c W[:, t̂_c],   W = G M⁻¹ Gᵀ over the rows (n, D, t̂)   (R8)
//!   ```
//!
//!   and M is no longer symmetric (Baraff 1994 treats dynamic friction this way; Drumwright, "A
//!   fast and stable penalty method for rigid body simulation", §II-B: "the matrix A generally
//!   becomes non-symmetric and nonpositive definite").
//!
//! # When there is no solution (Painlevé)
//!
//! Without sliding contacts M is copositive-plus (zᵀ M z = |Gᵀ(f, β)|²_{M⁻¹} + μ σ f ≥ 0), so
//! Lemke's method finds a solution whenever one exists. With sliding friction (R8) the diagonal
//! entry of a sliding contact, G_n M⁻¹ (G_n − μ G_t̂)ᵀ, can be negative. A thin rod of mass m
//! leaning at θ from the ground on its lower end, sliding towards the side away from its centre
//! of mass, has m A = 1 + 3 cos²θ − 3 μ sinθ cosθ, negative for μ > (1 + 3 cos²θ)/(3 sinθ cosθ)
//! (μ > 1.35 at θ = 60°): then a_n = A f + b < 0 for every f ≥ 0 when b < 0 (Painlevé's paradox:
//! the configuration is inconsistent and only an impulse, not a force, can resolve it), and there
//! are two solutions (f = 0 and f = −b/A) when b > 0. No solution: every solver fails and
//! [`resting_forces`] returns [`RestingError::NotSolved`] with each solver's status and residual
//! and the number of sliding contacts; it never returns forces that miss the tolerance. (Lemke
//! may also end on a ray for such a non-copositive M when a solution does exist; the next solver
//! in the list then gets its turn.)
//!
//! Units: SI. Forces in N, accelerations in m/s², velocities in m/s, gaps in m.
use super::cone;
use super::SolveReport;
use crate::collision::broad::piece_pose;
use crate::collision::Contact;
use crate::dynamics::integrate::accelerations;
use crate::dynamics::jacobian::{add_row_forces, delassus, InverseMass, JacobianRow};
use crate::dynamics::{Model, State, Wrench};
use crate::geometry::{Feature, Polytope, Shape};
use crate::solvers::{self, Options, Problem, Solver, Status};
use glam::DVec3;
use nalgebra::{DMatrix, DVector};
use std::fmt;
use std::time::Instant;

/// Solvers tried by [`RestingContact::new`], in order.
pub const DEFAULT_SOLVERS: &[&str] = &["lemke", "fischer-burmeister"];

/// A face normal matches the contact normal when their cosine is at least 1 − this (an angle of
/// about 1.4 mrad): the narrow phase copies face normals into contacts, so matches are exact up to
/// round-off, and genuine edge–edge normals are never this close to an adjacent face.
const FACE_MATCH_COS_TOL: f64 = 1e-6;

/// Settings of the resting-contact solve.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RestingOptions {
    /// Contacts with gap ψ at most this (m) touch; farther ones get no force. Default 1e-4 m: ten
    /// times below the default activation distance (1e-3 m), so a body hovering at the edge of
    /// detection is not held up, and far above the position drift of an acceleration-level
    /// simulation over a step. Penetrating contacts (ψ < 0) touch; the forces act on
    /// accelerations only and do not push them apart (that is the caller's position correction).
    pub gap_tolerance: f64,
    /// ε_v (m/s): a touching contact is resting when |v_n| ≤ ε_v, separating above, colliding
    /// below −ε_v. Default 1e-4 m/s (a resting contact stays within round-off of v_n = 0 once its
    /// accelerations are held at zero; impulses leave v_n ≥ 0 up to their solver tolerance).
    pub velocity_tolerance: f64,
    /// ε_t (m/s): a resting frictional contact sticks when its tangential slip speed is at most
    /// this, and slides otherwise. Default 1e-4 m/s.
    pub slip_tolerance: f64,
    /// k ≥ 3, directions of the polyhedral friction cone (`cone::directions`). Default 4 (two
    /// opposite pairs along the tangent basis).
    pub friction_directions: usize,
    /// Options passed to every LCP solver. A solve counts only when its scaled natural-map residual
    /// (`solvers::residual`) is at most `lcp.tolerance`; default tolerance 1e-10.
    pub lcp: Options,
}

impl Default for RestingOptions {
    fn default() -> Self {
        RestingOptions {
            gap_tolerance: 1e-4,
            velocity_tolerance: 1e-4,
            slip_tolerance: 1e-4,
            friction_directions: 4,
            lcp: Options {
                tolerance: 1e-10,
                max_iterations: 200,
                max_pivots: 10_000,
                relaxation: 1.0,
            },
        }
    }
}

/// How a contact was treated.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ContactClass {
    /// Gap above `gap_tolerance`, or both bodies fixed: no force, not in the LCP.
    Apart,
    /// v_n > ε_v: no force.
    Separating,
    /// v_n < −ε_v: not in the LCP; the caller must resolve it with an impulse first.
    Colliding,
    /// Resting, μ = 0: a normal row only.
    Frictionless,
    /// Resting, slip speed ≤ ε_t: normal row, k cone rows and a σ row.
    Sticking,
    /// Resting, slip speed > ε_t: normal row with the friction −μ f t̂ folded into its column.
    Sliding {
        /// t̂, unit slip direction of B's point relative to A's (world axes).
        direction: DVec3,
    },
}

impl ContactClass {
    /// True for the classes that are in the LCP.
    pub fn is_resting(&self) -> bool {
        matches!(
            self,
            ContactClass::Frictionless | ContactClass::Sticking | ContactClass::Sliding { .. }
        )
    }
}

/// The answer of [`resting_forces`]. Per-contact vectors follow the input contact order.
#[derive(Clone, Debug, PartialEq)]
pub struct RestingForces {
    /// Normal force f ≥ 0 of each contact (N), pushing B along +n and A along −n; 0 for contacts
    /// not in the LCP.
    pub normal: Vec<f64>,
    /// Friction force on B at each contact (N, world axes, ⊥ n); A receives the opposite.
    pub friction: Vec<DVec3>,
    /// Contact wrench on each body (force N and torque N m about its centre of mass, world axes);
    /// zero for fixed bodies. Add it to the applied wrenches to integrate.
    pub wrenches: Vec<Wrench>,
    /// Linear (m/s²) and angular (rad/s²) acceleration of each body under the applied wrenches,
    /// gravity and the contact wrenches (zero for fixed bodies).
    pub accelerations: Vec<(DVec3, DVec3)>,
    /// Normal relative acceleration d̈ (R2) of every contact after the forces (m/s²), from
    /// `accelerations`: ≥ 0 (to the solver's tolerance) for resting contacts, 0 where f > 0.
    pub normal_acceleration: Vec<f64>,
    /// How each contact was treated.
    pub class: Vec<ContactClass>,
    /// Indices of the contacts in the LCP, in order.
    pub resting: Vec<usize>,
    /// Indices of the colliding contacts (need impulses; no force here).
    pub colliding: Vec<usize>,
    /// Indices of the separating contacts.
    pub separating: Vec<usize>,
    /// Indices of the contacts that do not touch (or join two fixed bodies).
    pub apart: Vec<usize>,
    /// Indices of the contacts whose ṅ was approximated by 0 (see the module documentation).
    pub approximate_normal_rate: Vec<usize>,
    /// The LCP solve (`None` when no contact rests). `failed` is always false: failures are
    /// errors.
    pub solve: Option<SolveReport>,
}

/// One solver's attempt at the LCP.
#[derive(Clone, Debug, PartialEq)]
pub struct SolveAttempt {
    pub solver: &'static str,
    pub status: Status,
    /// Iterations or pivots.
    pub iterations: usize,
    /// Scaled natural-map residual of its answer.
    pub residual: f64,
}

/// Why [`resting_forces`] returned no forces.
#[derive(Clone, Debug, PartialEq)]
pub enum RestingError {
    /// Inconsistent or non-finite input (says what).
    BadInput(String),
    /// No solver was given.
    NoSolver,
    /// A solver name that this build does not provide.
    UnknownSolver { name: String, available: String },
    /// Every solver failed on the LCP.
    NotSolved {
        /// Unknowns of the LCP.
        rows: usize,
        /// Resting contacts in it, and how many of them slide.
        contacts: usize,
        sliding: usize,
        /// Each solver's status and residual, in the order tried.
        attempts: Vec<SolveAttempt>,
    },
}

impl fmt::Display for RestingError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RestingError::BadInput(why) => write!(f, "resting contact: bad input: {why}"),
            RestingError::NoSolver => f.write_str("resting contact: no LCP solver given"),
            RestingError::UnknownSolver { name, available } => write!(
                f,
                "resting contact: solver `{name}` is not in this build (available: {available})"
            ),
            RestingError::NotSolved {
                rows,
                contacts,
                sliding,
                attempts,
            } => {
                write!(
                    f,
                    "resting-contact LCP of {rows} rows ({contacts} contacts, {sliding} sliding) not solved: "
                )?;
                for (i, a) in attempts.iter().enumerate() {
                    if i > 0 {
                        f.write_str("; ")?;
                    }
                    write!(
                        f,
                        "{}: {} after {} iterations, residual {:.3e}",
                        a.solver, a.status, a.iterations, a.residual
                    )?;
                }
                if *sliding > 0 {
                    f.write_str(
                        ". With sliding friction the LCP may have no solution (Painlevé): \
                         an impulse is needed, or a smaller friction coefficient",
                    )?;
                }
                Ok(())
            }
        }
    }
}

impl std::error::Error for RestingError {}

/// The solvers called `names`, in order.
pub fn solvers_by_name(names: &[&str]) -> Result<Vec<Box<dyn Solver>>, RestingError> {
    if names.is_empty() {
        return Err(RestingError::NoSolver);
    }
    names
        .iter()
        .map(|&name| {
            solvers::by_name(name).ok_or_else(|| RestingError::UnknownSolver {
                name: name.to_string(),
                available: solvers::names(),
            })
        })
        .collect()
}

/// Options and a solver fallback list, ready to solve resting contacts.
pub struct RestingContact {
    pub options: RestingOptions,
    solvers: Vec<Box<dyn Solver>>,
}

impl RestingContact {
    /// With [`DEFAULT_SOLVERS`] (Lemke, then Fischer–Burmeister).
    pub fn new(options: RestingOptions) -> Result<Self, RestingError> {
        Self::with_solvers(options, solvers_by_name(DEFAULT_SOLVERS)?)
    }

    /// With the named solvers, tried in this order.
    pub fn with_solver_names(
        options: RestingOptions,
        names: &[&str],
    ) -> Result<Self, RestingError> {
        Self::with_solvers(options, solvers_by_name(names)?)
    }

    /// With these solvers, tried in this order (at least one).
    pub fn with_solvers(
        options: RestingOptions,
        solvers: Vec<Box<dyn Solver>>,
    ) -> Result<Self, RestingError> {
        if solvers.is_empty() {
            return Err(RestingError::NoSolver);
        }
        Ok(RestingContact { options, solvers })
    }

    /// Names of the solvers, in the order tried.
    pub fn solver_names(&self) -> Vec<&'static str> {
        self.solvers.iter().map(|s| s.name()).collect()
    }

    /// [`resting_forces`] with these options and solvers.
    pub fn solve(
        &self,
        model: &Model,
        state: &State,
        contacts: &[Contact],
        applied: &[Wrench],
    ) -> Result<RestingForces, RestingError> {
        resting_forces(
            model,
            state,
            contacts,
            applied,
            &self.options,
            &self.solvers,
        )
    }
}

/// The resting-contact forces at `state`: classify `contacts` (R1), build the LCP (R4)–(R8) for the
/// resting ones and solve it with `solvers` in order until one meets `options.lcp.tolerance`.
/// `applied` holds one wrench per body (N, N m about the centre of mass, world axes) without
/// contact forces; gravity comes from `model.settings`. See the module documentation.
pub fn resting_forces(
    model: &Model,
    state: &State,
    contacts: &[Contact],
    applied: &[Wrench],
    options: &RestingOptions,
    solvers: &[Box<dyn Solver>],
) -> Result<RestingForces, RestingError> {
    validate(model, state, contacts, applied, options)?;
    if solvers.is_empty() {
        return Err(RestingError::NoSolver);
    }
    let nb = model.bodies.len();
    let fixed = |i: usize| model.bodies[i].fixed;

    // Body accelerations without contact forces: gravity, applied wrench, gyroscopic term.
    let free: Vec<(DVec3, DVec3)> = (0..nb)
        .map(|i| accelerations(model, state, i, &applied[i]))
        .collect();

    // Per-contact kinematics and classification (R1).
    let kin: Vec<Kinematics> = contacts
        .iter()
        .map(|c| Kinematics::new(model, state, c))
        .collect();
    let mut class = Vec::with_capacity(contacts.len());
    let mut mu = vec![0.0; contacts.len()];
    for (i, c) in contacts.iter().enumerate() {
        let k = &kin[i];
        let v_n = k.v_rel.dot(c.normal);
        let cls = if c.gap > options.gap_tolerance || (fixed(c.body_a) && fixed(c.body_b)) {
            ContactClass::Apart
        } else if v_n > options.velocity_tolerance {
            ContactClass::Separating
        } else if v_n < -options.velocity_tolerance {
            ContactClass::Colliding
        } else {
            mu[i] = model.friction(c.body_a, c.body_b);
            let slip = k.v_rel - v_n * c.normal;
            let speed = slip.length();
            if mu[i] == 0.0 {
                ContactClass::Frictionless
            } else if speed <= options.slip_tolerance {
                ContactClass::Sticking
            } else {
                ContactClass::Sliding {
                    direction: slip / speed,
                }
            }
        };
        class.push(cls);
    }
    let pick = |f: &dyn Fn(&ContactClass) -> bool| -> Vec<usize> {
        (0..contacts.len()).filter(|&i| f(&class[i])).collect()
    };
    let resting = pick(&|c| c.is_resting());
    let colliding = pick(&|c| matches!(c, ContactClass::Colliding));
    let separating = pick(&|c| matches!(c, ContactClass::Separating));
    let apart = pick(&|c| matches!(c, ContactClass::Apart));
    let approximate_normal_rate = (0..contacts.len())
        .filter(|&i| !kin[i].exact_normal_rate)
        .collect();

    let mut normal = vec![0.0; contacts.len()];
    let mut friction = vec![DVec3::ZERO; contacts.len()];
    let mut wrenches = vec![Wrench::default(); nb];
    let mut solve = None;

    if !resting.is_empty() {
        let k = options.friction_directions;
        let offsets = model.dof_offsets();
        let row = |c: &Contact, d: DVec3| -> JacobianRow {
            super::contact_jacobian_row(model, state, &offsets, c, d)
        };
        // Positions (in `resting`) of the sticking and sliding contacts.
        let sticking: Vec<usize> = (0..resting.len())
            .filter(|&r| class[resting[r]] == ContactClass::Sticking)
            .collect();
        let sliding: Vec<(usize, DVec3)> = (0..resting.len())
            .filter_map(|r| match class[resting[r]] {
                ContactClass::Sliding { direction } => Some((r, direction)),
                _ => None,
            })
            .collect();
        let (nc, ns, nl) = (resting.len(), sticking.len(), sliding.len());
        let nt = ns * k;

        // Rows of G: normals, k cone directions per sticking contact, one slip row per sliding
        // contact; b of the normal and cone rows at zero contact force (R2), (R6).
        let mut rows = Vec::with_capacity(nc + nt + nl);
        let mut dirs = Vec::with_capacity(nt);
        let mut q = DVector::zeros(nc + nt + ns);
        for (r, &i) in resting.iter().enumerate() {
            let c = &contacts[i];
            rows.push(row(c, c.normal));
            q[r] = kin[i].normal_acceleration(model, state, c, &free);
        }
        for &r in &sticking {
            let i = resting[r];
            let c = &contacts[i];
            let rel = kin[i].relative_point_acceleration(model, state, c, &free);
            for d in cone::directions(c.normal, k) {
                q[nc + dirs.len()] = d.dot(rel);
                rows.push(row(c, d));
                dirs.push(d);
            }
        }
        for &(r, t) in &sliding {
            rows.push(row(&contacts[resting[r]], t));
        }
        let w = delassus(&rows, &InverseMass::new(model, state));

        // The LCP matrix (R7) with the sliding columns (R8).
        let n = nc + nt + ns;
        let mut m = DMatrix::zeros(n, n);
        m.view_mut((0, 0), (nc + nt, nc + nt))
            .copy_from(&w.view((0, 0), (nc + nt, nc + nt)));
        for (l, &(r, _)) in sliding.iter().enumerate() {
            let slip_row = nc + nt + l;
            let mu_c = mu[resting[r]];
            for i in 0..nc + nt {
                m[(i, r)] -= mu_c * w[(i, slip_row)];
            }
        }
        for (s, &r) in sticking.iter().enumerate() {
            let sigma = nc + nt + s;
            for j in 0..k {
                let t = nc + s * k + j;
                m[(t, sigma)] = 1.0;
                m[(sigma, t)] = -1.0;
            }
            m[(sigma, r)] = mu[resting[r]];
        }
        let problem = Problem::lcp(m, q);

        let t0 = Instant::now();
        let mut attempts = Vec::new();
        let mut found = None;
        for solver in solvers {
            let s = solver.solve(&problem, None, &options.lcp);
            let usable = s.status.is_solved()
                && s.z.len() == n
                && s.z.iter().all(|v| v.is_finite())
                && s.stats.residual <= options.lcp.tolerance;
            attempts.push(SolveAttempt {
                solver: solver.name(),
                status: if usable || !s.status.is_solved() {
                    s.status.clone()
                } else {
                    Status::Inaccurate
                },
                iterations: s.stats.iterations,
                residual: s.stats.residual,
            });
            if usable {
                found = Some((solver.name(), s));
                break;
            }
        }
        let seconds = t0.elapsed().as_secs_f64();
        let Some((name, s)) = found else {
            return Err(RestingError::NotSolved {
                rows: n,
                contacts: nc,
                sliding: nl,
                attempts,
            });
        };
        let z = &s.z;

        // Row multipliers: f on the normal rows, β on the cone rows, −μ f on the slip rows.
        let mut row_forces = Vec::with_capacity(rows.len());
        row_forces.extend((0..nc + nt).map(|r| z[r]));
        for &(r, t) in &sliding {
            let i = resting[r];
            row_forces.push(-mu[i] * z[r]);
            friction[i] = -mu[i] * z[r] * t;
        }
        add_row_forces(model, &rows, &row_forces, 1.0, &mut wrenches);
        for (r, &i) in resting.iter().enumerate() {
            normal[i] = z[r];
        }
        for (s_idx, &r) in sticking.iter().enumerate() {
            friction[resting[r]] = (0..k)
                .map(|j| z[nc + s_idx * k + j] * dirs[s_idx * k + j])
                .sum();
        }
        solve = Some(SolveReport {
            rows: n,
            solver: name,
            iterations: s.stats.iterations,
            residual: s.stats.residual,
            attempts: attempts.len(),
            seconds,
            failed: false,
        });
    }

    let accelerations: Vec<(DVec3, DVec3)> = (0..nb)
        .map(|i| {
            let total = Wrench {
                force: applied[i].force + wrenches[i].force,
                torque: applied[i].torque + wrenches[i].torque,
            };
            accelerations(model, state, i, &total)
        })
        .collect();
    let normal_acceleration = contacts
        .iter()
        .zip(&kin)
        .map(|(c, k)| k.normal_acceleration(model, state, c, &accelerations))
        .collect();

    Ok(RestingForces {
        normal,
        friction,
        wrenches,
        accelerations,
        normal_acceleration,
        class,
        resting,
        colliding,
        separating,
        apart,
        approximate_normal_rate,
        solve,
    })
}

/// Velocity-level quantities of one contact.
struct Kinematics {
    /// v_B(p_b) − v_A(p_a), material points (m/s): its normal part is v_n, its tangential part the
    /// slip.
    v_rel: DVec3,
    /// ṅ (1/s).
    n_dot: DVec3,
    exact_normal_rate: bool,
    /// (centre, radius) of each side that is a sphere (m); `None` for polytopes and half-spaces.
    sphere_a: Option<(DVec3, f64)>,
    sphere_b: Option<(DVec3, f64)>,
}

impl Kinematics {
    fn new(model: &Model, state: &State, c: &Contact) -> Self {
        let v_rel = point_velocity(model, state, c.body_b, c.point_b)
            - point_velocity(model, state, c.body_a, c.point_a);
        let (n_dot, exact_normal_rate) = match normal_rate(model, state, c) {
            Some(n_dot) => (n_dot, true),
            None => (DVec3::ZERO, false),
        };
        let sphere = |body: usize, piece: usize| match model.bodies[body].pieces[piece].shape {
            Shape::Sphere { radius } => {
                Some((piece_pose(model, state, body, piece).translation, radius))
            }
            _ => None,
        };
        Kinematics {
            v_rel,
            n_dot,
            exact_normal_rate,
            sphere_a: sphere(c.body_a, c.piece_a),
            sphere_b: sphere(c.body_b, c.piece_b),
        }
    }

    /// p̈_b − p̈_a (R3) of the material contact points under the body accelerations `acc`.
    fn relative_point_acceleration(
        &self,
        model: &Model,
        state: &State,
        c: &Contact,
        acc: &[(DVec3, DVec3)],
    ) -> DVec3 {
        point_acceleration(model, state, c.body_b, c.point_b, acc[c.body_b])
            - point_acceleration(model, state, c.body_a, c.point_a, acc[c.body_a])
    }

    /// d̈ of (R2) (without the ψ n̈ term) under the body accelerations `acc`.
    ///
    /// A polytope or half-space side contributes its material contact point (the vertex, or any
    /// point of the edge or face: n is normal to the feature, so the choice does not change d).
    /// A sphere's contact point P = c ∓ r n is not material (it moves over the surface as the
    /// sphere rolls), so its side contributes the centre: for B, P_b = c_b − r_b n gives
    /// n·P̈_b = n·c̈_b + r_b |ṅ|² (as n·n̈ = −|ṅ|²) and Ṗ_b = ċ_b − r_b ṅ; for A, P_a = c_a + r_a n
    /// gives n·P̈_a = n·c̈_a − r_a |ṅ|² and Ṗ_a = ċ_a + r_a ṅ. Material points there would add the
    /// spurious r |ω × n − ṅ|² (a ball rolling on a floor would seem to lift off). The
    /// force-dependent part is the same either way (n·(α × r n) = 0), so A is unchanged.
    fn normal_acceleration(
        &self,
        model: &Model,
        state: &State,
        c: &Contact,
        acc: &[(DVec3, DVec3)],
    ) -> f64 {
        let n = c.normal;
        let curvature = self.n_dot.length_squared();
        let (acc_b, vel_b) = match self.sphere_b {
            Some((centre, r)) => (
                n.dot(point_acceleration(
                    model,
                    state,
                    c.body_b,
                    centre,
                    acc[c.body_b],
                )) + r * curvature,
                point_velocity(model, state, c.body_b, centre) - r * self.n_dot,
            ),
            None => (
                n.dot(point_acceleration(
                    model,
                    state,
                    c.body_b,
                    c.point_b,
                    acc[c.body_b],
                )),
                point_velocity(model, state, c.body_b, c.point_b),
            ),
        };
        let (acc_a, vel_a) = match self.sphere_a {
            Some((centre, r)) => (
                n.dot(point_acceleration(
                    model,
                    state,
                    c.body_a,
                    centre,
                    acc[c.body_a],
                )) - r * curvature,
                point_velocity(model, state, c.body_a, centre) + r * self.n_dot,
            ),
            None => (
                n.dot(point_acceleration(
                    model,
                    state,
                    c.body_a,
                    c.point_a,
                    acc[c.body_a],
                )),
                point_velocity(model, state, c.body_a, c.point_a),
            ),
        };
        acc_b - acc_a + 2.0 * self.n_dot.dot(vel_b - vel_a)
    }
}

fn angular_velocity(model: &Model, state: &State, i: usize) -> DVec3 {
    if model.bodies[i].fixed {
        DVec3::ZERO
    } else {
        state.bodies[i].angular_velocity
    }
}

/// Velocity of the material point of body `i` at world point `p` (fixed bodies do not move).
fn point_velocity(model: &Model, state: &State, i: usize, p: DVec3) -> DVec3 {
    if model.bodies[i].fixed {
        DVec3::ZERO
    } else {
        state.bodies[i].point_velocity(p)
    }
}

/// (R3): p̈ = a + α × r + ω × (ω × r) for the material point of body `i` at `p`.
fn point_acceleration(
    model: &Model,
    state: &State,
    i: usize,
    p: DVec3,
    (a, alpha): (DVec3, DVec3),
) -> DVec3 {
    if model.bodies[i].fixed {
        return DVec3::ZERO;
    }
    let bs = &state.bodies[i];
    let r = p - bs.position;
    let w = bs.angular_velocity;
    a + alpha.cross(r) + w.cross(w.cross(r))
}

/// The faces of `p` next to `feature` (the face itself, an edge's two faces, a vertex's faces);
/// `exact` keeps only a `Face` feature.
fn adjacent_faces(p: &Polytope, feature: Feature, exact: bool) -> Vec<usize> {
    match (feature, exact) {
        (Feature::Face(f), _) => vec![f as usize],
        (Feature::Edge(e), false) => p.edges[e as usize]
            .faces
            .iter()
            .map(|&f| f as usize)
            .collect(),
        (Feature::Vertex(v), false) => p.vertex_faces[v as usize]
            .iter()
            .map(|&f| f as usize)
            .collect(),
        _ => Vec::new(),
    }
}

/// ṅ of contact `c` (see the module documentation), or `None` where it is approximated by 0.
fn normal_rate(model: &Model, state: &State, c: &Contact) -> Option<DVec3> {
    let n = c.normal;
    // (body, piece, feature, sign): the outward normal of A's face is +n, of B's face −n.
    let sides = [
        (c.body_a, c.piece_a, c.feature_a, 1.0),
        (c.body_b, c.piece_b, c.feature_b, -1.0),
    ];
    let shape = |body: usize, piece: usize| &model.bodies[body].pieces[piece].shape;

    // A half-space carries its plane's normal.
    for &(body, piece, _, _) in &sides {
        if let Shape::HalfSpace { .. } = shape(body, piece) {
            return Some(angular_velocity(model, state, body).cross(n));
        }
    }
    // A face parallel to the contact plane: first the sides whose feature is that face, then the
    // sides whose feature (edge, vertex) borders it.
    for exact in [true, false] {
        for &(body, piece, feature, sign) in &sides {
            if let Shape::Polytope(p) = shape(body, piece) {
                let pose = piece_pose(model, state, body, piece);
                let matches = adjacent_faces(p, feature, exact).into_iter().any(|f| {
                    pose.transform_vector(p.faces[f].normal).dot(sign * n)
                        >= 1.0 - FACE_MATCH_COS_TOL
                });
                if matches {
                    return Some(angular_velocity(model, state, body).cross(n));
                }
            }
        }
    }
    // Edge–edge: n = s (e_a × e_b)/|e_a × e_b|.
    if let (Shape::Polytope(pa), Shape::Polytope(pb), Feature::Edge(ea), Feature::Edge(eb)) = (
        shape(c.body_a, c.piece_a),
        shape(c.body_b, c.piece_b),
        c.feature_a,
        c.feature_b,
    ) {
        let e_a = piece_pose(model, state, c.body_a, c.piece_a)
            .transform_vector(pa.edge_direction(ea as usize));
        let e_b = piece_pose(model, state, c.body_b, c.piece_b)
            .transform_vector(pb.edge_direction(eb as usize));
        let u = e_a.cross(e_b);
        let len = u.length();
        if len > 1e-9 {
            let u_hat = u / len;
            let cos = u_hat.dot(n);
            if cos.abs() >= 1.0 - FACE_MATCH_COS_TOL {
                let s = cos.signum();
                let de_a = angular_velocity(model, state, c.body_a).cross(e_a);
                let de_b = angular_velocity(model, state, c.body_b).cross(e_b);
                let du = de_a.cross(e_b) + e_a.cross(de_b);
                return Some(s * (du - u_hat * u_hat.dot(du)) / len);
            }
        }
        return None;
    }
    // A sphere against a sphere, a vertex or an edge: n along w = (I − e eᵀ)(centre − p₀).
    let (sphere, other, s) = match (shape(c.body_b, c.piece_b), shape(c.body_a, c.piece_a)) {
        (Shape::Sphere { .. }, _) => (1, 0, 1.0),
        (_, Shape::Sphere { .. }) => (0, 1, -1.0),
        _ => return None,
    };
    let (sb, sp, _, _) = sides[sphere];
    let (ob, op, of, _) = sides[other];
    let centre = piece_pose(model, state, sb, sp).translation;
    let d_centre = point_velocity(model, state, sb, centre);
    let other_pose = piece_pose(model, state, ob, op);
    let (p0, e) = match (shape(ob, op), of) {
        (Shape::Sphere { .. }, _) => (other_pose.translation, DVec3::ZERO),
        (Shape::Polytope(p), Feature::Vertex(v)) => (
            other_pose.transform_point(p.vertices[v as usize]),
            DVec3::ZERO,
        ),
        (Shape::Polytope(p), Feature::Edge(e)) => {
            let v0 = p.edges[e as usize].vertices[0] as usize;
            (
                other_pose.transform_point(p.vertices[v0]),
                other_pose.transform_vector(p.edge_direction(e as usize)),
            )
        }
        _ => return None,
    };
    let d_p0 = point_velocity(model, state, ob, p0);
    let de = angular_velocity(model, state, ob).cross(e);
    let x = centre - p0;
    let w = x - e * e.dot(x);
    let len = w.length();
    if len.is_nan() || len <= 0.0 {
        return None;
    }
    let w_hat = w / len;
    if w_hat.dot(s * n) < 1.0 - FACE_MATCH_COS_TOL {
        return None;
    }
    let dx = d_centre - d_p0;
    let dw = dx - e * e.dot(dx) - de * e.dot(x) - e * de.dot(x);
    Some(s * (dw - w_hat * w_hat.dot(dw)) / len)
}

/// Reject input the computation cannot use, naming what is wrong.
fn validate(
    model: &Model,
    state: &State,
    contacts: &[Contact],
    applied: &[Wrench],
    options: &RestingOptions,
) -> Result<(), RestingError> {
    let bad = |why: String| Err(RestingError::BadInput(why));
    let nb = model.bodies.len();
    if state.bodies.len() != nb {
        return bad(format!(
            "the state has {} bodies, the model {nb}",
            state.bodies.len()
        ));
    }
    if applied.len() != nb {
        return bad(format!(
            "{} applied wrenches for {nb} bodies",
            applied.len()
        ));
    }
    let nonneg = |v: f64| v >= 0.0 && v.is_finite();
    if !nonneg(options.gap_tolerance)
        || !nonneg(options.velocity_tolerance)
        || !nonneg(options.slip_tolerance)
        || !nonneg(options.lcp.tolerance)
    {
        return bad(format!(
            "tolerances must be finite and non-negative (gap {}, velocity {}, slip {}, lcp {})",
            options.gap_tolerance,
            options.velocity_tolerance,
            options.slip_tolerance,
            options.lcp.tolerance
        ));
    }
    if options.friction_directions < 3 {
        return bad(format!(
            "friction_directions = {} (at least 3)",
            options.friction_directions
        ));
    }
    if !model.settings.gravity.is_finite() {
        return bad("gravity is not finite".into());
    }
    for (i, (body, bs)) in model.bodies.iter().zip(&state.bodies).enumerate() {
        if !body.fixed && !bs.is_finite() {
            return bad(format!("body {i} (`{}`) has a non-finite state", body.name));
        }
        let finite_mass = body.inv_mass.is_finite()
            && body.inv_mass >= 0.0
            && body.inv_inertia.is_finite()
            && body.inertia.is_finite();
        if !body.fixed && !finite_mass {
            return bad(format!(
                "body {i} (`{}`) has non-finite mass properties",
                body.name
            ));
        }
        if !applied[i].force.is_finite() || !applied[i].torque.is_finite() {
            return bad(format!("the applied wrench on body {i} is not finite"));
        }
        match model.materials.get(body.material) {
            Some(m) if m.friction >= 0.0 && m.friction.is_finite() => {}
            Some(m) => {
                return bad(format!(
                    "material `{}` has friction {} (must be finite, ≥ 0)",
                    m.name, m.friction
                ))
            }
            None => return bad(format!("body {i} has no material {}", body.material)),
        }
    }
    for (k, c) in contacts.iter().enumerate() {
        for (body, piece, feature) in [
            (c.body_a, c.piece_a, c.feature_a),
            (c.body_b, c.piece_b, c.feature_b),
        ] {
            let Some(b) = model.bodies.get(body) else {
                return bad(format!("contact {k} names body {body} of {nb}"));
            };
            let Some(p) = b.pieces.get(piece) else {
                return bad(format!("contact {k} names piece {piece} of body {body}"));
            };
            if let Shape::Polytope(poly) = &p.shape {
                let ok = match feature {
                    Feature::Vertex(v) => (v as usize) < poly.vertices.len(),
                    Feature::Edge(e) => (e as usize) < poly.edges.len(),
                    Feature::Face(f) => (f as usize) < poly.faces.len(),
                    Feature::Surface => true,
                };
                if !ok {
                    return bad(format!(
                        "contact {k}: feature {feature:?} is not on piece {piece} of body {body}"
                    ));
                }
            }
        }
        if c.body_a == c.body_b {
            return bad(format!("contact {k} joins body {} to itself", c.body_a));
        }
        if !(c.point_a.is_finite() && c.point_b.is_finite() && c.gap.is_finite()) {
            return bad(format!("contact {k} has non-finite points or gap"));
        }
        if !c.normal.is_finite() || (c.normal.length() - 1.0).abs() > 1e-6 {
            return bad(format!("contact {k} has normal {} (not unit)", c.normal));
        }
    }
    Ok(())
}
