//! The error of the collision laws: an input outside a law's domain, a collision matrix that is
//! not symmetric positive definite, or an integration that could not finish.

/// Why a collision could not be resolved.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum LawError {
    /// An input outside the law's domain (the text says which and why).
    #[error("collision law: bad input: {0}")]
    BadInput(String),
    /// The collision matrix is not symmetric positive definite.
    #[error("collision law: collision matrix is not symmetric positive definite: {0}")]
    NotPositiveDefinite(String),
    /// The integration could not finish.
    #[error("collision law: integration failed at P_n = {normal_impulse} N s after {steps} steps: {why}")]
    IntegrationFailed {
        normal_impulse: f64,
        steps: usize,
        why: String,
    },
}
