//! What a failed resting-contact solve reports: each solver's attempt ([`SolveAttempt`]) and the
//! reasons [`resting_forces`](super::resting_forces) returns no forces ([`RestingError`]), among
//! them an LCP no solver could meet (possibly Painlevé's paradox: module documentation, "When
//! there is no solution").
use crate::solvers::Status;
use std::fmt;

/// One solver's attempt at the LCP.
#[derive(Clone, Debug, PartialEq)]
pub struct SolveAttempt {
    pub solver: &'static str,
    pub status: Status,
    /// Iterations or pivots.
    pub iterations: usize,
    /// Row-wise relative residual of its answer (`solvers::relative_residual`).
    pub residual: f64,
}

/// Why [`resting_forces`](super::resting_forces) returned no forces.
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
