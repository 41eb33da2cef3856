//! [`RestingContact`]: the resting-contact solve as a component of an impulse-based model (slide
//! 15's `solveLCP(restingC)`), holding its options and the LCP solvers to try in order.
use super::error::RestingError;
use super::forces::{resting_forces, resting_forces_from, RestingForces, WarmStart};
use super::options::RestingOptions;
use crate::collision::Contact;
use crate::dynamics::{Model, State, Wrench};
use crate::solvers::{self, Solver};

/// Solvers tried by [`RestingContact::new`], in order.
pub const DEFAULT_SOLVERS: &[&str] = &["lemke", "fischer-burmeister"];

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
    /// The last answer of [`solve_warm`](Self::solve_warm). It changes within a step, not in
    /// `end_step` as a model's memory does: it only proposes where a solve starts. Every answer
    /// used meets the same tolerance, but a degenerate LCP (a box's four coplanar corners) has
    /// many, so which one a step gets depends on this history — deterministically.
    /// One per island solved.
    previous: Vec<WarmStart>,
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
        Ok(RestingContact {
            options,
            solvers,
            previous: Vec::new(),
        })
    }

    /// Names of the solvers, in the order tried.
    pub fn solver_names(&self) -> Vec<&'static str> {
        self.solvers.iter().map(|s| s.name()).collect()
    }

    /// [`resting_forces_from`] warm-started from the last answer of this method (when its
    /// contacts repeat), which it then replaces; an LCP without resting contacts clears it.
    pub fn solve_warm(
        &mut self,
        model: &Model,
        state: &State,
        contacts: &[Contact],
        applied: &[Wrench],
    ) -> Result<RestingForces, RestingError> {
        let forces = resting_forces_from(
            model,
            state,
            contacts,
            applied,
            &self.options,
            &self.solvers,
            &self.previous,
        )?;
        // A solve whose every island failed keeps the last answers (it has none of its own).
        let failed = forces.solve.as_ref().is_some_and(|r| r.failed);
        if !(failed && forces.warm_start.is_empty()) {
            self.previous = forces.warm_start.clone();
        }
        Ok(forces)
    }

    /// [`resting_forces`] with these options and solvers (no warm start).
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
