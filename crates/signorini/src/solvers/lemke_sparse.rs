//! Lemke's method on a sparse LCP: the pivoting of [`lemke`](super::lemke) (same ratio test,
//! anti-cycling, endings and polish) with the basis kept as a sparse LU factorization plus
//! eta matrices, and a warm start from a proposed basis.
//!
//! # Why
//!
//! The dense method keeps B⁻¹ explicitly: O(n²) a pivot, O(n²) memory, and from B = I a path of
//! O(n) pivots: seconds for the 1,500-row island of a settled pile of 64 boxes. Here a pivot
//! costs one solve with the factors of B (whose columns are unit vectors and columns of the
//! sparse M) and one O(n) update per pivot since the last factorization.
//!
//! # Linear algebra (product form of the inverse with refactorization)
//!
//! B⁻¹ = E_k ⋯ E₁ B₀⁻¹, with B₀ the basis at the last factorization (sparse LU with partial
//! pivoting, [`SparseLu`], of its non-unit part only: `BasisFactors`) and E_j the eta matrix of the j-th pivot since (module doc of
//! `lemke`, "Linear algebra"), stored as its pivot row r, pivot cᵣ and the nonzeros of c.
//! - *Entering column* (FTRAN): c = B⁻¹a = E_k ⋯ E₁ (B₀⁻¹a): one LU solve, then the etas in order.
//! - *A row of B⁻¹* (the lexicographic test, only for rows still tied after the ratio):
//!   eᵢᵀB⁻¹ = (B₀⁻ᵀ E₁ᵀ ⋯ E_kᵀ eᵢ)ᵀ; Eᵀ changes only entry r: uᵣ ← (uᵣ − Σ_{i≠r} cᵢuᵢ)/cᵣ.
//!   Rows are computed when first asked for and kept until the next pivot.
//! - Every [`REFACTOR_PIVOTS`] pivots B is factored afresh and the etas dropped (bounding the
//!   O(k n) cost of the etas and their round-off).
//!
//! # Warm start from a basis (the covering vector d = B₀·1)
//!
//! Given a proposed active set α (the last step's support), B₀ holds zᵢ for i ∈ α and wᵢ
//! otherwise, and x_B = B₀⁻¹q. If its z part (negative round-off read as 0) solves the LCP to the
//! tolerance — B₀ is complementary and x_B ≥ 0 up to round-off — that is the answer, with 0
//! pivots, as the dense method's warm start (the principal system on α) gives it. Otherwise
//! Lemke's augmented system w − Mz − d z₀ = q is used with d = B₀(1, …, 1): z₀'s column in the
//! basis's coordinates is then B₀⁻¹(−d) = −1, exactly as B = I, d = 1 makes it for the method as
//! published, and the path runs unchanged from step 2 (`lemke::pivot_path`). This is the usual
//! way to start Lemke's method from a basis (Cottle, Pang & Stone §4.4 allow any d with
//! B₀⁻¹d > 0 and a feasible start). *Departure*: d need not be positive, so the guarantee for
//! copositive-plus M (a ray proves infeasibility) does not hold on this path; a path from the
//! warm basis that ends otherwise than with a solution is followed by the method from B = I,
//! d = 1, which keeps the guarantee.
//!
//! # Regularized restarts
//!
//! When neither path solves the problem and the better one ended on a ray or a cycle, the
//! method is run from B = I on M + εI for the shifts of
//! [`REGULARIZATION`](super::lemke::REGULARIZATION), as the dense method does (`lemke` module doc, "Ending"): each answer is polished on the
//! shifted problem and accepted when it meets the tolerance on this one.
use super::common::{failure, power_of_two_below};
use super::lemke::{pivot_path, status_of, BasisAlgebra, Ending, Tableau, Var, REGULARIZATION};
use super::sparse::{Columns, SparseProblem};
use super::sparse_lu::SparseLu;
use super::{Options, Solve, Stats, Status};
use nalgebra::DVector;

/// Pivots between two factorizations of the basis.
pub const REFACTOR_PIVOTS: usize = 40;

/// The eta matrix of one pivot: row r, pivot cᵣ, the other nonzeros (i, cᵢ) of the column.
struct Eta {
    r: usize,
    pivot: f64,
    entries: Vec<(usize, f64)>,
}

/// The basis of `[I | −M̂ | −d]` as a sparse LU of B₀ and the etas since (module doc).
struct SparseBasis<'a> {
    /// The columns of M: (row, value), rows increasing.
    columns: &'a Columns,
    /// 1/μ (M̂ = M/μ).
    m_inv_unit: f64,
    /// The covering vector d.
    d: DVector<f64>,
    /// q̂, the right-hand side every factorization is checked against.
    q: DVector<f64>,
    factors: BasisFactors,
    etas: Vec<Eta>,
    /// Rows of B⁻¹ computed since the last pivot.
    rows: Vec<(usize, Vec<f64>)>,
}

impl SparseBasis<'_> {
    /// v ← B⁻¹v.
    fn ftran(&mut self, v: &mut DVector<f64>) {
        self.factors.solve(v.as_mut_slice());
        for eta in &self.etas {
            let p = v[eta.r] / eta.pivot;
            if p != 0.0 {
                for &(i, c) in &eta.entries {
                    v[i] -= c * p;
                }
            }
            v[eta.r] = p;
        }
    }
}

impl BasisAlgebra for SparseBasis<'_> {
    fn entering_column(&mut self, var: Var, out: &mut DVector<f64>) {
        out.fill(0.0);
        self.add_column(var, 1.0, out);
        self.ftran(out);
    }

    fn inverse_entry(&mut self, i: usize, k: usize) -> f64 {
        if let Some((_, row)) = self.rows.iter().find(|(r, _)| *r == i) {
            return row[k];
        }
        let mut u = vec![0.0; self.factors.n];
        u[i] = 1.0;
        for eta in self.etas.iter().rev() {
            let sum: f64 = eta.entries.iter().map(|&(j, c)| c * u[j]).sum();
            u[eta.r] = (u[eta.r] - sum) / eta.pivot;
        }
        self.factors.solve_transpose(&mut u);
        let value = u[k];
        self.rows.push((i, u));
        value
    }

    fn pivot(&mut self, r: usize, column: &DVector<f64>, basis: &[Var]) {
        self.rows.clear();
        let entries = column
            .iter()
            .enumerate()
            .filter(|&(i, &c)| i != r && c != 0.0)
            .map(|(i, &c)| (i, c))
            .collect();
        self.etas.push(Eta {
            r,
            pivot: column[r],
            entries,
        });
        if self.etas.len() >= REFACTOR_PIVOTS {
            let factors = BasisFactors::new(self.columns, self.m_inv_unit, &self.d, basis, &self.q);
            if let Some(factors) = factors {
                self.factors = factors;
                self.etas.clear();
            }
        }
    }

    fn add_column(&self, var: Var, x: f64, out: &mut DVector<f64>) {
        match var {
            Var::W(j) => out[j] += x,
            Var::Z(j) => {
                let s = -x * self.m_inv_unit;
                for &(r, v) in &self.columns[j] {
                    out[r] += s * v;
                }
            }
            Var::Z0 => out.axpy(-x, &self.d, 1.0),
        }
    }

    fn add_solve(&mut self, v: &mut DVector<f64>, x: &mut DVector<f64>) {
        self.ftran(v);
        *x += &*v;
    }
}

/// What one path of [`solve`] ended with.
struct Path {
    z: DVector<f64>,
    basic_z: Vec<bool>,
    pivots: usize,
    ending: Ending,
}

/// Lemke's method on the sparse LCP `problem` (module doc), warm-started from the proposed
/// active set `support` (say, last step's basic z's and positive z's): the path from its basis
/// (which ends at once, with the principal system's solution, when that basis is feasible, as
/// the dense method's warm start does), then the path from B = I; each path's answer is polished as the dense method's is and the first that meets
/// `options.tolerance` is returned, with the z's basic at its end (the active set to propose
/// next time). `iterations` counts the
/// pivots of every path.
pub fn solve(
    problem: &SparseProblem,
    support: Option<&[bool]>,
    options: &Options,
) -> (Solve, Vec<bool>) {
    let n = problem.len();
    if let Err(why) = problem.check() {
        return (failure(n, Status::BadProblem(why)), vec![false; n]);
    }
    let columns = problem.m.columns();
    let support: Option<Vec<bool>> = support
        .filter(|s| s.len() == n && s.iter().any(|&b| b))
        .map(|s| pruned_support(problem, &columns, s.to_vec()));
    if problem.q.iter().all(|&q| q >= 0.0) {
        return (solved(DVector::zeros(n), 0, 0.0), vec![false; n]);
    }

    // Units as in the dense method: M̂ = M/μ, q̂ = q/κ, ẑ = (μ/κ) z.
    let m_unit = power_of_two_below(problem.m.max_abs());
    let q_unit = power_of_two_below(problem.q.amax());
    let q_hat = &problem.q / q_unit;
    let z_unit = q_unit / m_unit;

    let mut pivots = 0;
    let mut best: Option<(DVector<f64>, f64, Ending, Vec<bool>)> = None;
    // The paths on M from each start, their answers polished and judged: the solved one, or
    // `best` updated. `refine`: the last resort (`lemke` module doc), the textbook path, x_B
    // refined where it blocks. Returns also whether a path ended blocked (a ray or a cycle).
    let paths_on_m = |refine: bool, pivots: &mut usize, best: &mut Option<_>| {
        let mut blocked = false;
        let starts = support.as_deref().into_iter().map(Some).chain([None]);
        for start in starts {
            let accept =
                |z_hat: &DVector<f64>| problem.residual(&(z_hat * z_unit)) <= options.tolerance;
            let Some(path) = run_path(
                &columns,
                1.0 / m_unit,
                &q_hat,
                start,
                Some(&accept),
                options,
                refine,
            ) else {
                continue;
            };
            *pivots += path.pivots;
            blocked |= matches!(path.ending, Ending::Ray | Ending::Cycle);
            let z = path.z * z_unit;
            let (z, r) = polish(problem, z, &path.basic_z, path.ending, options.tolerance);
            let ending = match path.ending {
                Ending::Ray | Ending::Cycle if r <= options.tolerance => Ending::Complementary,
                ending => ending,
            };
            if status_of(ending, r, options.tolerance).is_solved() {
                return (Some((solved(z, *pivots, r), path.basic_z)), blocked);
            }
            if best
                .as_ref()
                .is_none_or(|b: &(DVector<f64>, f64, Ending, Vec<bool>)| r < b.1)
            {
                *best = Some((z, r, ending, path.basic_z));
            }
        }
        (None, blocked)
    };
    let (answer, blocked) = paths_on_m(false, &mut pivots, &mut best);
    if let Some(answer) = answer {
        return answer;
    }
    // Regularized restarts (`lemke` module doc, "Ending"): the path of M + εI from B = I, its
    // answer polished on the shifted problem and judged on this one.
    let restart = best
        .as_ref()
        .is_some_and(|b| matches!(b.2, Ending::Ray | Ending::Cycle));
    for eps in REGULARIZATION.into_iter().filter(|_| restart) {
        let shifted = SparseProblem {
            m: problem.m.shifted(eps * problem.m.max_abs()),
            q: problem.q.clone(),
        };
        let shifted_columns = shifted.m.columns();
        let Some(path) = run_path(
            &shifted_columns,
            1.0 / m_unit,
            &q_hat,
            None,
            None,
            options,
            false,
        ) else {
            continue;
        };
        pivots += path.pivots;
        let (z, _) = polish(
            &shifted,
            path.z * z_unit,
            &path.basic_z,
            path.ending,
            options.tolerance,
        );
        let r = problem.residual(&z);
        if r <= options.tolerance && path.ending != Ending::PivotLimit {
            return (solved(z, pivots, r), path.basic_z);
        }
        if best.as_ref().is_none_or(|b| r < b.1) {
            best = Some((z, r, path.ending, path.basic_z));
        }
    }
    // Last resort (`lemke` module doc): the textbook paths on M, x_B refined where they block.
    if blocked {
        if let (Some(answer), _) = paths_on_m(true, &mut pivots, &mut best) {
            return answer;
        }
    }
    let (z, residual, ending, basic) = best.unwrap_or((
        DVector::zeros(n),
        f64::INFINITY,
        Ending::Ray,
        vec![false; n],
    ));
    let solve = Solve {
        z,
        status: status_of(ending, residual, options.tolerance),
        stats: Stats {
            iterations: pivots,
            residual,
        },
    };
    (solve, basic)
}

/// `support` without the rows i whose row or column of M_αα is empty (repeatedly, as removing
/// one can empty another): with such a row M_αα is singular whatever its values. A contact LCP
/// makes them when last step's answer has a positive slip-speed multiplier λ (row σ of
/// Stewart–Trinkle, whose diagonal entry is 0) at a contact whose normal and friction impulses
/// were 0.
fn pruned_support(problem: &SparseProblem, columns: &Columns, mut support: Vec<bool>) -> Vec<bool> {
    loop {
        let mut changed = false;
        for i in 0..support.len() {
            if !support[i] {
                continue;
            }
            let row_empty = !problem.m.row(i).any(|(c, v)| support[c] && v != 0.0);
            let column_empty = !columns[i].iter().any(|&(r, v)| support[r] && v != 0.0);
            if row_empty || column_empty {
                support[i] = false;
                changed = true;
            }
        }
        if !changed {
            return support;
        }
    }
}

fn solved(z: DVector<f64>, pivots: usize, residual: f64) -> Solve {
    Solve {
        z,
        status: Status::Solved,
        stats: Stats {
            iterations: pivots,
            residual,
        },
    }
}

/// One path of Lemke's method on (M̂, q̂) from the basis with zᵢ basic for i ∈ `start` (None:
/// B = I, d = 1), at most `options.max_pivots` pivots; a start whose basic solution ẑ `accept`s
/// ends at once. None when that basis is singular.
fn run_path(
    columns: &Columns,
    m_inv_unit: f64,
    q_hat: &DVector<f64>,
    start: Option<&[bool]>,
    accept: Option<&dyn Fn(&DVector<f64>) -> bool>,
    options: &Options,
    last_resort: bool,
) -> Option<Path> {
    let n = q_hat.len();
    let basis: Vec<Var> = (0..n)
        .map(|i| match start {
            Some(s) if s[i] => Var::Z(i),
            _ => Var::W(i),
        })
        .collect();
    let mut factors = BasisFactors::new(columns, m_inv_unit, &DVector::zeros(0), &basis, q_hat)?;
    // d = B₀·1, the sum of B₀'s columns (for B₀ = I: d = 1).
    let mut d = DVector::zeros(n);
    for var in &basis {
        match *var {
            Var::W(i) => d[i] += 1.0,
            Var::Z(j) => columns[j].iter().for_each(|&(r, v)| d[r] -= v * m_inv_unit),
            Var::Z0 => unreachable!("z0 is not in a starting basis"),
        }
    }
    let mut xb = q_hat.clone();
    factors.solve(xb.as_mut_slice());
    // A warm basis whose basic solution (negative round-off read as 0) already solves the LCP
    // to the tolerance ends here, as the dense method's warm start does (the principal system on
    // `start`); Lemke's step 1 would otherwise bring z₀ in for a −1e-17.
    if let Some(accept) = start.and(accept) {
        let mut z = DVector::zeros(n);
        for (pos, var) in basis.iter().enumerate() {
            if let Var::Z(j) = *var {
                z[j] = xb[pos].max(0.0);
            }
        }
        if accept(&z) {
            let basic_z = basis.iter().map(|v| matches!(v, Var::Z(_))).collect();
            return Some(Path {
                z,
                basic_z,
                pivots: 0,
                ending: Ending::Complementary,
            });
        }
    }
    let d_max = d.amax();
    let alg = SparseBasis {
        columns,
        m_inv_unit,
        d,
        q: q_hat.clone(),
        factors,
        etas: Vec::new(),
        rows: Vec::new(),
    };
    let mut t = Tableau::new(alg, q_hat.clone(), basis, xb);
    t.last_resort = last_resort;
    let (pivots, ending) = pivot_path(&mut t, d_max, options.max_pivots, options.tolerance);
    let (z, basic_z) = t.z();
    Some(Path {
        z,
        basic_z,
        pivots,
        ending,
    })
}

/// The factors of a basis B whose columns are unit vectors (the basic w's) and columns of
/// `[−M̂ | −d]` (the basic z's and z₀), reduced to the part that needs factoring. With U the rows
/// whose wᵢ is basic, R the others and A the non-unit columns, B x = a reads
///
/// ```text
///   A_R x_A = a_R           (|R| × |R|: one sparse LU, of the basic z's only)
///   x_{wᵢ} = aᵢ − A_i x_A   for i ∈ U
/// ```
///
/// and Bᵀ y = b reads y_U = b_{w_U}, then A_Rᵀ y_R = b_A − A_Uᵀ y_U. A contact LCP's basis holds
/// as many w's as z's or more, so this factors a matrix a third to a half the size of B.
struct BasisFactors {
    n: usize,
    /// The rows of R, in order.
    r_rows: Vec<usize>,
    /// Position of each row's unit column (usize::MAX for a row of R).
    unit_pos: Vec<usize>,
    /// Positions of the non-unit columns, in order (column k of A_R is position `a_pos[k]`).
    a_pos: Vec<usize>,
    /// The entries of each non-unit column in rows of U: (row, value).
    a_u: Vec<Vec<(usize, f64)>>,
    /// LU of A_R (None when every column is a unit column).
    lu: Option<SparseLu>,
    /// Work buffers of the solves (|R| and n entries), so a pivot allocates nothing here.
    reduced: Vec<f64>,
    full: Vec<f64>,
}

impl BasisFactors {
    /// Factor the basis `basis` (position k holds `basis[k]`) of `[I | −M̂ | −d]`, checked against
    /// the right-hand side `probe`. None when it is singular.
    fn new(
        columns: &Columns,
        m_inv_unit: f64,
        d: &DVector<f64>,
        basis: &[Var],
        probe: &DVector<f64>,
    ) -> Option<Self> {
        let n = basis.len();
        let mut unit_pos = vec![usize::MAX; n];
        let mut a_pos = Vec::new();
        for (pos, var) in basis.iter().enumerate() {
            match *var {
                Var::W(i) => unit_pos[i] = pos,
                _ => a_pos.push(pos),
            }
        }
        let r_rows: Vec<usize> = (0..n).filter(|&i| unit_pos[i] == usize::MAX).collect();
        if r_rows.len() != a_pos.len() {
            return None;
        }
        let mut r_local = vec![usize::MAX; n];
        for (k, &i) in r_rows.iter().enumerate() {
            r_local[i] = k;
        }
        // A_R by columns (rows increasing: M's columns are, and R keeps their order).
        let (mut start, mut rows, mut values) = (vec![0], Vec::new(), Vec::new());
        let mut a_u = Vec::with_capacity(a_pos.len());
        for &pos in &a_pos {
            let mut in_u = Vec::new();
            let mut add = |r: usize, v: f64| {
                if r_local[r] == usize::MAX {
                    in_u.push((r, v));
                } else {
                    rows.push(r_local[r]);
                    values.push(v);
                }
            };
            match basis[pos] {
                Var::Z(j) => columns[j]
                    .iter()
                    .for_each(|&(r, v)| add(r, -v * m_inv_unit)),
                Var::Z0 => d
                    .iter()
                    .enumerate()
                    .filter(|(_, v)| **v != 0.0)
                    .for_each(|(r, &v)| add(r, -v)),
                Var::W(_) => unreachable!("unit columns are not in A"),
            }
            start.push(rows.len());
            a_u.push(in_u);
        }
        let lu = if r_rows.is_empty() {
            None
        } else {
            let probe_r: Vec<f64> = r_rows.iter().map(|&i| probe[i]).collect();
            Some(SparseLu::from_columns(
                r_rows.len(),
                &start,
                &rows,
                &values,
                &probe_r,
            )?)
        };
        Some(BasisFactors {
            n,
            reduced: Vec::with_capacity(r_rows.len()),
            full: vec![0.0; n],
            r_rows,
            unit_pos,
            a_pos,
            a_u,
            lu,
        })
    }

    /// v ← B⁻¹v (v given by rows, returned by positions).
    fn solve(&mut self, v: &mut [f64]) {
        let (x_a, out) = (&mut self.reduced, &mut self.full);
        x_a.clear();
        x_a.extend(self.r_rows.iter().map(|&i| v[i]));
        if let Some(lu) = &self.lu {
            lu.solve(x_a);
        }
        out.fill(0.0);
        for i in 0..self.n {
            if self.unit_pos[i] != usize::MAX {
                out[self.unit_pos[i]] = v[i];
            }
        }
        for (k, &pos) in self.a_pos.iter().enumerate() {
            out[pos] = x_a[k];
            for &(i, value) in &self.a_u[k] {
                out[self.unit_pos[i]] -= value * x_a[k];
            }
        }
        v.copy_from_slice(out);
    }

    /// b ← B⁻ᵀb (b given by positions, returned by rows).
    fn solve_transpose(&mut self, b: &mut [f64]) {
        let (y_r, out) = (&mut self.reduced, &mut self.full);
        out.fill(0.0);
        for i in 0..self.n {
            if self.unit_pos[i] != usize::MAX {
                out[i] = b[self.unit_pos[i]];
            }
        }
        y_r.clear();
        y_r.extend(
            self.a_pos
                .iter()
                .zip(&self.a_u)
                .map(|(&pos, in_u)| b[pos] - in_u.iter().map(|&(i, v)| v * out[i]).sum::<f64>()),
        );
        if let Some(lu) = &self.lu {
            lu.solve_transpose(y_r);
        }
        for (k, &i) in self.r_rows.iter().enumerate() {
            out[i] = y_r[k];
        }
        b.copy_from_slice(out);
    }
}

/// The dense method's finish (module doc of `lemke`, "Finishing") on the sparse problem: when z
/// misses the tolerance or the path did not end with z₀ leaving, the principal systems on the
/// basic z's and on {zᵢ > 0} are solved and the best of the three answers kept, with its
/// residual.
fn polish(
    problem: &SparseProblem,
    z: DVector<f64>,
    basic_z: &[bool],
    ending: Ending,
    tolerance: f64,
) -> (DVector<f64>, f64) {
    let mut best = (problem.residual(&z), z);
    if best.0 <= tolerance && ending == Ending::Complementary {
        return (best.1, best.0);
    }
    let positive: Vec<bool> = best.1.iter().map(|&x| x > 0.0).collect();
    for support in [basic_z, &positive[..]] {
        if let Some(polished) = problem.solve_on_support(support) {
            let r = problem.residual(&polished);
            if r < best.0 {
                best = (r, polished);
            }
        }
    }
    (best.1, best.0)
}
