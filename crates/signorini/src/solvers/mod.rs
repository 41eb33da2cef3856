//! Linear complementarity solvers: pure functions over vectors and matrices.
//!
//! A [`Problem`] is the mixed LCP (MLCP)
//!
//! ```text
//!   w = M z + q,
//!   w_i = 0, z_i free                for the first `free` rows (equalities),
//!   0 ≤ z_i ⊥ w_i ≥ 0                for the other rows (complementarity),
//! ```
//!
//! which is a plain LCP when `free == 0`. Every solver implements [`Solver`]: a pure function of
//! (problem, warm start, options) returning a [`Solve`] = (solution, status, stats). A solve is
//! reported [`Status::Solved`] only when its scaled natural-map residual (see [`residual`]) is at
//! most `options.tolerance`; anything else is a failure that names its reason.
//!
//! One solver per file: `lemke` (complementary pivoting), `pgs` (projected Gauss–Seidel / SOR),
//! `fischer_burmeister` (semismooth Newton on the Fischer–Burmeister function),
//! `block_gauss_seidel` (projected block Gauss–Seidel, one small LCP per contact block); `common`
//! holds what they share (failed solves, the warm start, the natural-map residual from w);
//! `sparse` holds the problem with a sparse matrix that a step assembles, checks and warm-starts
//! on before any solver needs it dense.
pub mod block_gauss_seidel;
mod common;
pub mod fischer_burmeister;
pub mod lemke;
pub mod lemke_sparse;
pub mod pgs;
pub mod sparse;
pub mod block_cholesky;
pub mod convex;
pub mod sparse_lu;

use nalgebra::{DMatrix, DVector};
use std::fmt;

/// A mixed linear complementarity problem; see the module documentation.
#[derive(Clone, Debug, PartialEq)]
pub struct Problem {
    /// n × n.
    pub m: DMatrix<f64>,
    /// n.
    pub q: DVector<f64>,
    /// Number of leading free (equality) rows.
    pub free: usize,
}

impl Problem {
    /// A pure LCP (no free rows).
    pub fn lcp(m: DMatrix<f64>, q: DVector<f64>) -> Self {
        Problem { m, q, free: 0 }
    }

    /// Number of unknowns.
    pub fn len(&self) -> usize {
        self.q.len()
    }

    pub fn is_empty(&self) -> bool {
        self.q.is_empty()
    }

    /// Why this problem is malformed, if it is (shape mismatch, non-finite entries).
    pub fn check(&self) -> Result<(), String> {
        let n = self.q.len();
        if self.m.nrows() != n || self.m.ncols() != n {
            return Err(format!(
                "M is {}×{} but q has {} entries",
                self.m.nrows(),
                self.m.ncols(),
                n
            ));
        }
        if self.free > n {
            return Err(format!("{} free rows in a problem of {n} rows", self.free));
        }
        // Chunks folded without a branch, the test per chunk: O(n²) for a dense M, so it must
        // not cost more than reading it. A value is not finite exactly when its exponent bits are
        // all ones; the integer test vectorizes (the float `is_finite` fold ran at ~4
        // instructions an entry: 6 % of a PEG step on the 10-box stack).
        const EXPONENT: u64 = 0x7ff0_0000_0000_0000;
        let finite = |s: &[f64]| {
            s.chunks(64).all(|c| {
                c.iter()
                    .fold(0u64, |a, v| a | u64::from(v.to_bits() & EXPONENT == EXPONENT))
                    == 0
            })
        };
        if !finite(self.m.as_slice()) || !finite(self.q.as_slice()) {
            return Err("M or q has a non-finite entry".into());
        }
        Ok(())
    }
}

/// Solver settings; each solver reads the fields it needs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Options {
    /// A solve succeeds when its scaled residual (see [`residual`]) is at most this.
    pub tolerance: f64,
    /// Iteration limit of the iterative solvers (PGS sweeps, Newton iterations).
    pub max_iterations: usize,
    /// Pivot limit of Lemke's method.
    pub max_pivots: usize,
    /// Over-relaxation factor ω of PGS/SOR, in (0, 2); 1 is plain Gauss–Seidel.
    pub relaxation: f64,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            tolerance: 1e-10,
            max_iterations: 1000,
            max_pivots: 10_000,
            relaxation: 1.0,
        }
    }
}

/// How a solve ended. Only `Solved` is a success.
#[derive(Clone, Debug, PartialEq)]
pub enum Status {
    /// The scaled residual is at most the tolerance.
    Solved,
    /// Lemke's method left along a secondary ray: the LCP has no solution this method can find
    /// (for a copositive-plus M, none exists).
    RayTermination,
    /// The iteration or pivot limit was reached before the tolerance.
    IterationLimit,
    /// The method ended but its answer misses the tolerance (round-off, a stalled line search).
    Inaccurate,
    /// The method does not apply to this problem (says why), e.g. PGS on a zero diagonal.
    NotApplicable(String),
    /// A linear system the method needed was singular.
    Singular,
    /// The problem itself is malformed (says why).
    BadProblem(String),
}

impl Status {
    pub fn is_solved(&self) -> bool {
        matches!(self, Status::Solved)
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Status::Solved => f.write_str("solved"),
            Status::RayTermination => f.write_str("ray termination (no solution found)"),
            Status::IterationLimit => f.write_str("iteration limit reached"),
            Status::Inaccurate => f.write_str("inaccurate"),
            Status::NotApplicable(why) => write!(f, "not applicable: {why}"),
            Status::Singular => f.write_str("singular linear system"),
            Status::BadProblem(why) => write!(f, "malformed problem: {why}"),
        }
    }
}

/// What a solve cost and how good its answer is.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Stats {
    /// PGS sweeps, Newton iterations or Lemke pivots.
    pub iterations: usize,
    /// Scaled natural-map residual of the returned solution (see [`residual`]).
    pub residual: f64,
}

/// The result of a solve: `z` always has the problem's length (the best iterate on failure).
#[derive(Clone, Debug, PartialEq)]
pub struct Solve {
    pub z: DVector<f64>,
    pub status: Status,
    pub stats: Stats,
}

/// A complementarity solver.
pub trait Solver: Send + Sync {
    /// The name used in scene files (`lemke`, `pgs`, `fischer-burmeister`).
    fn name(&self) -> &'static str;

    /// Does the method iterate from the warm start (so that a different start can end
    /// differently)? Lemke only takes a proposed active set from it and otherwise runs from
    /// scratch.
    fn iterates_from_warm_start(&self) -> bool {
        true
    }

    /// Solve `problem`, starting from `warm_start` when the method can use one (it must have the
    /// problem's length; otherwise it is ignored).
    fn solve(
        &self,
        problem: &Problem,
        warm_start: Option<&DVector<f64>>,
        options: &Options,
    ) -> Solve;

    /// [`solve`](Self::solve), returning as well the rows that make up the answer's basis when
    /// the method has one (Lemke: the basic z's, the support of its final principal system,
    /// which the time-stepping models propose as the next step's warm start); empty otherwise.
    fn solve_with_basis(
        &self,
        problem: &Problem,
        warm_start: Option<&DVector<f64>>,
        options: &Options,
    ) -> (Solve, Vec<bool>) {
        (self.solve(problem, warm_start, options), Vec::new())
    }
}

/// Scaled natural-map residual of `z`:
///
/// ```text
///   r_i = (Mz + q)_i                 for free rows,
///   r_i = min(z_i, (Mz + q)_i)       for complementarity rows,
///   residual = ‖r‖∞ / ‖q‖∞          (‖r‖∞ itself when q = 0).
/// ```
///
/// Zero exactly at a solution; relative to the data, so one tolerance serves problems of any
/// unit and size.
pub fn residual(problem: &Problem, z: &DVector<f64>) -> f64 {
    let w = &problem.m * z + &problem.q;
    let mut r: f64 = 0.0;
    for i in 0..problem.len() {
        if w[i].is_nan() || z[i].is_nan() {
            return f64::INFINITY;
        }
        let ri = common::natural_map_entry(problem, i, z[i], w[i]);
        r = r.max(ri);
    }
    let scale = problem.q.amax();
    if scale > 0.0 {
        r / scale
    } else {
        r
    }
}

/// Row-wise relative residual of `z`, the backward-error form of [`residual`]: each row's
/// natural-map entry measured against the size of the data that row is made of,
///
/// ```text
///   w = M z + q,   s_i = |q_i| + ‖M_i,:‖₁ ‖z‖∞      (the largest w_i the row's data can make)
///   e_i = |w_i| / s_i                                  free rows
///   e_i = |min(z_i / ‖z‖∞, w_i / s_i)|                 complementarity rows
///   relative_residual = max_i e_i                      (a term with a zero scale counts as 0)
/// ```
///
/// e_i is the smallest relative change of row i of [M q] that makes w_i exact (the normwise
/// backward error of Rigal and Gaches, one row at a time), so rounding alone leaves e_i ≈ n ε
/// however large the forces in the answer. [`residual`], scaled by ‖q‖∞ only, charges a
/// load-carrying row the cancellation of its large terms: a 10-box stack's bottom contacts carry
/// 49 N each against a q of 9.81 m/s², and an exact Lemke answer scored 1.45e-10 there. A
/// rowwise scale without ‖z‖∞ (|q_i| + Σ_j |M_ij z_j|) is no better: a friction row whose
/// normal force is zero has β ≈ 2e-10 N of round-off and scores 1 against itself. Infinite as
/// soon as any z_i or w_i is not finite; 0 exactly at a solution. Used to accept the resting
/// LCP's answers (`contact::resting`).
pub fn relative_residual(problem: &Problem, z: &DVector<f64>) -> f64 {
    let w = &problem.m * z + &problem.q;
    let z_scale = z.amax();
    let ratio = |a: f64, b: f64| if b > 0.0 { a / b } else { 0.0 };
    let mut e: f64 = 0.0;
    for i in 0..problem.len() {
        if !(w[i].is_finite() && z[i].is_finite()) {
            return f64::INFINITY;
        }
        let s = problem.q[i].abs() + problem.m.row(i).iter().map(|v| v.abs()).sum::<f64>() * z_scale;
        let ei = if i < problem.free {
            ratio(w[i].abs(), s)
        } else {
            ratio(z[i], z_scale).min(ratio(w[i], s)).abs()
        };
        e = e.max(ei);
    }
    e
}

/// Every solver this build provides, in the default fallback order.
pub fn all() -> Vec<Box<dyn Solver>> {
    vec![
        Box::new(lemke::Lemke),
        Box::new(block_gauss_seidel::BlockGaussSeidel),
        Box::new(fischer_burmeister::FischerBurmeister),
        Box::new(pgs::Pgs),
    ]
}

/// The solver called `name`.
pub fn by_name(name: &str) -> Option<Box<dyn Solver>> {
    all().into_iter().find(|s| s.name() == name)
}

/// Names of every solver, comma-separated (for error messages).
pub fn names() -> String {
    all()
        .iter()
        .map(|s| s.name())
        .collect::<Vec<_>>()
        .join(", ")
}
