//! [`resting_forces`]: the driver of the resting-contact solve (slide 15's `solveLCP(restingC)`),
//! and its answer [`RestingForces`].
//!
//! ```text
//!   validate the input
//!   free accelerations (a, α) of every body without contact forces
//!   kinematics (v_rel, ṅ, spheres) and class (R1) of every contact      classify.rs
//!   if some contact rests:
//!     assemble the LCP (R4)–(R8)                                        lcp.rs
//!     solve it: last answer's active set if it repeats, else each solver  solve.rs
//!     in turn until one meets the tolerance
//!     map z = (f, β, σ) back to normal forces, friction and wrenches   lcp.rs
//!   body accelerations and d̈ (R2) of every contact under the forces
//! ```
use super::classify::{classify, ClassIndices, Classification, ContactClass};
use super::error::RestingError;
use super::kinematics::Kinematics;
use super::lcp::{RestingLcp, RowInputs};
use super::options::RestingOptions;
use super::solve::{apply_solution, solve_in_order, ContactForces};
use super::validate::validate;
use crate::collision::Contact;
use crate::contact::SolveReport;
use crate::dynamics::integrate::accelerations;
use crate::dynamics::{Model, State, Wrench};
use crate::geometry::Feature;
use crate::solvers::Solver;
use glam::DVec3;
use nalgebra::DVector;

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
    /// The LCP solve (`None` when no contact rests). `failed`: no solver met the tolerance and
    /// the answer is the best one within `RestingOptions::degraded_tolerance`.
    pub solve: Option<SolveReport>,
    /// The answer as a warm start for the next solve (`None` when no contact rests).
    pub warm_start: Option<WarmStart>,
}

/// A solved resting LCP, kept to warm-start the next one: its answer z and what identifies its
/// rows — each resting contact by bodies, pieces and features, sliding or not. A later LCP with
/// the same signature has the same layout, so z proposes its active set.
#[derive(Clone, Debug, PartialEq)]
pub struct WarmStart {
    signature: Vec<RowKey>,
    z: DVector<f64>,
}

/// A resting contact's identity in [`WarmStart::signature`].
type RowKey = (usize, usize, usize, usize, Feature, Feature, bool);

impl WarmStart {
    fn signature(contacts: &[Contact], resting: &[usize], class: &[ContactClass]) -> Vec<RowKey> {
        resting
            .iter()
            .map(|&i| {
                let c = &contacts[i];
                let sliding = matches!(class[i], ContactClass::Sliding { .. });
                (
                    c.body_a,
                    c.piece_a,
                    c.body_b,
                    c.piece_b,
                    c.feature_a,
                    c.feature_b,
                    sliding,
                )
            })
            .collect()
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
    resting_forces_from(model, state, contacts, applied, options, solvers, None)
}

/// [`resting_forces`], first trying the active set of `warm` (a previous answer) when its
/// signature matches this LCP's: z_α solving M_αα z_α = −q_α on α = {z̃ > 0}, used if it meets
/// the tolerance (solver `warm start`), the solvers in order otherwise. A resting stack's LCP
/// repeats from step to step, so most solves end there without pivoting.
pub fn resting_forces_from(
    model: &Model,
    state: &State,
    contacts: &[Contact],
    applied: &[Wrench],
    options: &RestingOptions,
    solvers: &[Box<dyn Solver>],
    warm: Option<&WarmStart>,
) -> Result<RestingForces, RestingError> {
    validate(model, state, contacts, applied, options)?;
    if solvers.is_empty() {
        return Err(RestingError::NoSolver);
    }
    let nb = model.bodies.len();

    // Body accelerations without contact forces: gravity, applied wrench, gyroscopic term.
    let free: Vec<(DVec3, DVec3)> = (0..nb)
        .map(|i| accelerations(model, state, i, &applied[i]))
        .collect();

    // Per-contact kinematics and classification (R1).
    let kin: Vec<Kinematics> = contacts
        .iter()
        .map(|c| Kinematics::new(model, state, c))
        .collect();
    let Classification { class, mu } = classify(model, contacts, &kin, options);
    let ClassIndices {
        resting,
        colliding,
        separating,
        apart,
    } = ClassIndices::new(&class);
    let approximate_normal_rate = (0..contacts.len())
        .filter(|&i| !kin[i].exact_normal_rate)
        .collect();

    let mut normal = vec![0.0; contacts.len()];
    let mut friction = vec![DVec3::ZERO; contacts.len()];
    let mut wrenches = vec![Wrench::default(); nb];
    let mut solve = None;
    let mut warm_start = None;

    if !resting.is_empty() {
        // The LCP (R4)–(R8), solved (R5) and mapped back to forces.
        let input = RowInputs {
            model,
            state,
            contacts,
            kin: &kin,
            free: &free,
            resting: &resting,
            options,
        };
        let lcp = RestingLcp::assemble(&input, &class, &mu, options.friction_directions);
        let signature = WarmStart::signature(contacts, &resting, &class);
        let proposal = warm.filter(|w| w.signature == signature).map(|w| &w.z);
        let solved = solve_in_order(
            &lcp,
            solvers,
            &options.lcp,
            options.degraded_tolerance,
            proposal,
        )?;
        let out = ContactForces {
            normal: &mut normal,
            friction: &mut friction,
            wrenches: &mut wrenches,
        };
        apply_solution(model, &lcp, &solved, &mu, &resting, out);
        solve = Some(solved.report(lcp.layout.unknowns()));
        warm_start = Some(WarmStart {
            signature,
            z: solved.solution.z,
        });
    }

    let (accelerations, normal_acceleration) =
        accelerations_under_forces(model, state, contacts, &kin, applied, &wrenches);

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
        warm_start,
    })
}

/// The acceleration (a, α) of every body under its applied wrench, gravity and the contact
/// wrench, and the normal relative acceleration d̈ (R2) of every contact under them.
fn accelerations_under_forces(
    model: &Model,
    state: &State,
    contacts: &[Contact],
    kin: &[Kinematics],
    applied: &[Wrench],
    wrenches: &[Wrench],
) -> (Vec<(DVec3, DVec3)>, Vec<f64>) {
    let nb = model.bodies.len();
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
        .zip(kin)
        .map(|(c, k)| k.normal_acceleration(model, state, c, &accelerations))
        .collect();
    (accelerations, normal_acceleration)
}
