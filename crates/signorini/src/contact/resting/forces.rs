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
use super::lcp::{LcpLayout, RestingLcp, RowInputs};
use super::options::RestingOptions;
use super::solve::{apply_solution, solve_in_order, ContactForces, Proposal};
use super::validate::validate;
use crate::collision::Contact;
use crate::contact::islands::partition;
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
    /// The answers as warm starts for the next solve, one per island solved (empty when no
    /// contact rests).
    pub warm_start: Vec<WarmStart>,
}

/// A solved resting LCP, kept to warm-start the next one: its answer z and what identifies its
/// rows — each resting contact by bodies, pieces and features, sliding or not. A later LCP with
/// the same signature has the same layout, so z proposes its active set; one whose contacts
/// only partly repeat gets, for each contact found here, the rows that were active here
/// ([`WarmStart::support`]).
#[derive(Clone, Debug, PartialEq)]
pub struct WarmStart {
    signature: Vec<RowKey>,
    z: DVector<f64>,
    /// Per resting contact, in signature order: its normal row active (f > 0), and for a
    /// sticking one its cone rows' and σ row's activity.
    support: Vec<(bool, Vec<bool>, bool)>,
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

    /// The warm start of the answer `z` of an LCP laid out as `layout`.
    fn new(signature: Vec<RowKey>, z: DVector<f64>, layout: &LcpLayout) -> Self {
        let mut support: Vec<(bool, Vec<bool>, bool)> =
            (0..layout.nc).map(|r| (z[r] > 0.0, Vec::new(), false)).collect();
        for (j, &r) in layout.sticking.iter().enumerate() {
            let cone = (0..layout.k).map(|d| z[layout.nc + j * layout.k + d] > 0.0);
            support[r].1 = cone.collect();
            support[r].2 = z[layout.nc + layout.nt + j] > 0.0;
        }
        WarmStart {
            signature,
            z,
            support,
        }
    }
}

/// The active rows the contacts of `signature` had in `warm`, as a support of an LCP laid out
/// as `layout` (rows of contacts not found, or whose cone rows are new, proposed inactive);
/// `None` when no contact is found.
fn proposed_support(
    warm: &[WarmStart],
    signature: &[RowKey],
    layout: &LcpLayout,
) -> Option<Vec<bool>> {
    let strip = |k: &RowKey| (k.0, k.1, k.2, k.3, k.4, k.5);
    let mut known = std::collections::BTreeMap::new();
    for w in warm {
        for (k, s) in w.signature.iter().zip(&w.support) {
            known.insert(strip(k), s);
        }
    }
    let mut support = vec![false; layout.unknowns()];
    let mut found = false;
    let sticking_at: std::collections::BTreeMap<usize, usize> =
        layout.sticking.iter().enumerate().map(|(j, &r)| (r, j)).collect();
    for (r, key) in signature.iter().enumerate() {
        let Some((normal, cone, sigma)) = known.get(&strip(key)) else {
            continue;
        };
        found = true;
        support[r] = *normal;
        if let (Some(&j), true) = (sticking_at.get(&r), cone.len() == layout.k) {
            for (d, &a) in cone.iter().enumerate() {
                support[layout.nc + j * layout.k + d] = a;
            }
            support[layout.nc + layout.nt + j] = *sigma;
        }
    }
    found.then_some(support)
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
    resting_forces_from(model, state, contacts, applied, options, solvers, &[])
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
    warm: &[WarmStart],
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
    let input = RowInputs {
        model,
        state,
        contacts,
        kin: &kin,
        free: &free,
        resting: &resting,
        options,
    };
    let out = ContactForces {
        normal: &mut normal,
        friction: &mut friction,
        wrenches: &mut wrenches,
    };
    let (solve, warm_start) = solve_islands(&input, &class, &mu, solvers, warm, out)?;

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

/// The resting contacts of `input` split into contact islands (`contact::islands::partition`:
/// bodies joined by a chain of resting contacts, fixed bodies joining nothing), each an LCP
/// (R4)–(R8) of its own, solved (R5) and mapped back to forces into `out`: their rows share no
/// body, so the whole LCP is block diagonal over them and its solution is theirs side by side.
/// Solved apart, an island that has no solution (Painlevé, or a ray of Lemke's) costs only its
/// own forces: with `skip_unsolved_islands` it gets none (reported failed, solver `none`) and
/// the others keep theirs; otherwise its [`RestingError::NotSolved`] is returned. One island (a
/// box, a stack) is the LCP of every resting contact in their order, as before the split.
/// Returns the combined report (`None` when nothing rests) and a warm start per island solved.
fn solve_islands(
    input: &RowInputs,
    class: &[ContactClass],
    mu: &[f64],
    solvers: &[Box<dyn Solver>],
    warm: &[WarmStart],
    out: ContactForces,
) -> Result<(Option<SolveReport>, Vec<WarmStart>), RestingError> {
    let ContactForces {
        normal,
        friction,
        wrenches,
    } = out;
    let (contacts, options) = (input.contacts, input.options);
    let refs: Vec<&Contact> = input.resting.iter().map(|&i| &contacts[i]).collect();
    let mut report: Option<SolveReport> = None;
    let mut warm_start = Vec::new();
    for island in partition(input.model, &refs) {
        let resting: Vec<usize> = island.iter().map(|&k| input.resting[k]).collect();
        let here = RowInputs {
            resting: &resting,
            ..*input
        };
        let lcp = RestingLcp::assemble(&here, class, mu, options.friction_directions);
        let signature = WarmStart::signature(contacts, &resting, class);
        let exact = warm.iter().find(|w| w.signature == signature);
        let support = match exact {
            Some(_) => None,
            None => proposed_support(warm, &signature, &lcp.layout),
        };
        let proposal = match (exact, &support) {
            (Some(w), _) => Some(Proposal::Answer(&w.z)),
            (None, Some(s)) => Some(Proposal::Support(s)),
            (None, None) => None,
        };
        let tolerance = options.degraded_tolerance;
        let island_report = match solve_in_order(&lcp, solvers, &options.lcp, tolerance, proposal)
        {
            Ok(solved) => {
                let out = ContactForces {
                    normal: &mut *normal,
                    friction: &mut *friction,
                    wrenches: &mut *wrenches,
                };
                apply_solution(input.model, &lcp, &solved, mu, &resting, out);
                let r = solved.report(lcp.layout.unknowns());
                warm_start.push(WarmStart::new(signature, solved.solution.z, &lcp.layout));
                r
            }
            Err(RestingError::NotSolved { rows, attempts, .. }) if options.skip_unsolved_islands => {
                SolveReport {
                    rows,
                    solver: "none",
                    iterations: attempts.iter().map(|a| a.iterations).sum(),
                    residual: attempts.iter().map(|a| a.residual).fold(f64::INFINITY, f64::min),
                    attempts: attempts.len(),
                    seconds: 0.0,
                    failed: true,
                    islands: 1,
                }
            }
            Err(e) => return Err(e),
        };
        report = Some(match report {
            None => island_report,
            Some(r) => r.combined(&island_report),
        });
    }
    Ok((report, warm_start))
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
