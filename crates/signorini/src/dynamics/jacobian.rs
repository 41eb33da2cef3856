//! Contact Jacobian rows in generalized coordinates (for the constraint-based models).
//!
//! The generalized velocity stacks [v; ω] (world axes) of every dynamic body (`Model::dof_offsets`).
//! For a direction `d` at contact points p_a on A and p_b on B, the row J gives
//! J·ν = (v_b + ω_b × r_b − v_a − ω_a × r_a)·d, i.e. the block of B is [dᵀ, (r_b × d)ᵀ] and the block
//! of A is −[dᵀ, (r_a × d)ᵀ], with r = p − x (DESIGN.md conventions).
use super::{Model, State};
use glam::{DMat3, DVec3};
use nalgebra::Matrix6;

/// A sparse Jacobian row: at most two 6-blocks.
#[derive(Clone, Debug, PartialEq)]
pub struct JacobianRow {
    /// (offset in the generalized velocity, block) for each dynamic body involved.
    pub blocks: RowBlocks,
}

/// One 6-block of a row: (offset in the generalized velocity, block).
pub type RowBlock = (usize, [f64; 6]);

/// The blocks of a [`JacobianRow`], at most two, stored inline: a step builds a row per contact
/// direction, and a heap allocation for each cost 9 % of a step on the 10-box stack. Read as a
/// slice (`Deref`).
#[derive(Clone, Copy, Debug, Default)]
pub struct RowBlocks {
    len: usize,
    items: [RowBlock; 2],
}

impl RowBlocks {
    pub fn new() -> Self {
        Self::default()
    }

    /// Append a block. Panics beyond two: a contact row involves at most two bodies.
    pub fn push(&mut self, block: RowBlock) {
        assert!(self.len < 2, "a contact row involves at most two bodies");
        self.items[self.len] = block;
        self.len += 1;
    }

    pub fn as_slice(&self) -> &[RowBlock] {
        &self.items[..self.len]
    }

    /// The blocks in increasing offset (the order a row's terms are summed in W).
    pub fn by_offset(&self) -> impl Iterator<Item = &RowBlock> {
        let swap = self.len == 2 && self.items[1].0 < self.items[0].0;
        let order = if swap { [1, 0] } else { [0, 1] };
        order.into_iter().take(self.len).map(|i| &self.items[i])
    }
}

impl std::ops::Deref for RowBlocks {
    type Target = [RowBlock];
    fn deref(&self) -> &[RowBlock] {
        &self.items[..self.len]
    }
}

impl std::ops::DerefMut for RowBlocks {
    fn deref_mut(&mut self) -> &mut [RowBlock] {
        &mut self.items[..self.len]
    }
}

impl<'a> IntoIterator for &'a RowBlocks {
    type Item = &'a RowBlock;
    type IntoIter = std::slice::Iter<'a, RowBlock>;
    fn into_iter(self) -> Self::IntoIter {
        self.as_slice().iter()
    }
}

impl PartialEq for RowBlocks {
    fn eq(&self, other: &Self) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl FromIterator<RowBlock> for RowBlocks {
    fn from_iter<I: IntoIterator<Item = RowBlock>>(iter: I) -> Self {
        let mut blocks = RowBlocks::new();
        for b in iter {
            blocks.push(b);
        }
        blocks
    }
}

impl JacobianRow {
    /// J·ν for a dense generalized velocity.
    #[inline]
    pub fn dot(&self, nu: &[f64]) -> f64 {
        // The sums of `Iterator::sum` (from −0.0, in order), one bounds check per block.
        let mut total = -0.0;
        for (o, b) in self.blocks.iter() {
            let x = &nu[*o..*o + 6];
            let mut block = -0.0;
            for k in 0..6 {
                block += b[k] * x[k];
            }
            total += block;
        }
        total
    }
}

/// The Jacobian row of the relative velocity of p_b (on body b) with respect to p_a (on body a)
/// along `dir`.
pub fn contact_row(
    model: &Model,
    state: &State,
    offsets: &[Option<usize>],
    (a, p_a): (usize, DVec3),
    (b, p_b): (usize, DVec3),
    dir: DVec3,
) -> JacobianRow {
    let mut blocks = RowBlocks::new();
    for (body, p, sign) in [(a, p_a, -1.0), (b, p_b, 1.0)] {
        if let (Some(o), false) = (offsets[body], model.bodies[body].fixed) {
            let r = p - state.bodies[body].position;
            let rxd = r.cross(dir);
            blocks.push((
                o,
                [
                    sign * dir.x,
                    sign * dir.y,
                    sign * dir.z,
                    sign * rxd.x,
                    sign * rxd.y,
                    sign * rxd.z,
                ],
            ));
        }
    }
    JacobianRow { blocks }
}

/// The generalized velocity of a state.
pub fn generalized_velocity(model: &Model, state: &State) -> Vec<f64> {
    let mut nu = Vec::with_capacity(model.dof_count());
    for (body, bs) in model.bodies.iter().zip(&state.bodies) {
        if !body.fixed {
            nu.extend(bs.velocity.to_array());
            nu.extend(bs.angular_velocity.to_array());
        }
    }
    nu
}

/// The inverse generalized mass M⁻¹, block-diagonal: 1/m and the world inverse inertia
/// J_w⁻¹ = R J⁻¹ Rᵀ of each dynamic body, in `Model::dof_offsets` order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct InverseMass {
    blocks: Vec<(f64, glam::DMat3)>,
}

impl InverseMass {
    pub fn new(model: &Model, state: &State) -> Self {
        let blocks = model
            .bodies
            .iter()
            .zip(&state.bodies)
            .filter(|(b, _)| !b.fixed)
            .map(|(b, s)| {
                let r = glam::DMat3::from_quat(s.orientation);
                (b.inv_mass, r * b.inv_inertia * r.transpose())
            })
            .collect();
        InverseMass { blocks }
    }

    /// M⁻¹ applied to one 6-block [f; τ] of the body at generalized offset `offset`.
    pub fn apply(&self, offset: usize, block: &[f64; 6]) -> [f64; 6] {
        let (inv_m, inv_j) = self.blocks[offset / 6];
        let t = inv_j * DVec3::new(block[3], block[4], block[5]);
        [
            inv_m * block[0],
            inv_m * block[1],
            inv_m * block[2],
            t.x,
            t.y,
            t.z,
        ]
    }
}

/// The Delassus matrix W = G M⁻¹ Gᵀ of the rows of G (rows × rows, symmetric positive
/// semidefinite). Only pairs of rows that share a body contribute, so the cost is the sum over
/// bodies of (rows touching the body)².
pub fn delassus(rows: &[JacobianRow], inv_mass: &InverseMass) -> nalgebra::DMatrix<f64> {
    let n = rows.len();
    let mut w = nalgebra::DMatrix::zeros(n, n);
    delassus_into(rows, inv_mass, &mut w, 0);
    w
}

/// [`delassus`] written into the block of `w` at rows and columns `at..at + rows.len()` (the
/// same entries, bit for bit; entries of rows that share no body are left as they are): a
/// larger matrix that holds W as a block is assembled without a second n × n matrix and copy.
pub fn delassus_into(
    rows: &[JacobianRow],
    inv_mass: &InverseMass,
    w: &mut nalgebra::DMatrix<f64>,
    at: usize,
) {
    let by_body = DelassusRows::new(rows, inv_mass);
    for r in 0..rows.len() {
        by_body.visit_row(r, |s, v| w[(at + r, at + s)] = v);
    }
}

/// W = G M⁻¹ Gᵀ row by row, for sparse assembly: row r's nonzeros are the rows s that share a
/// body with r, W_rs = Σ over the shared bodies (in increasing generalized offset) of
/// G_r,body · M⁻¹_body G_s,bodyᵀ.
///
/// The per-body lists of M⁻¹-weighted blocks are built on first need (entries, rows, the
/// sparse matrix): a step whose warm start holds reads only a principal block and products,
/// which weigh only the rows they touch ([`principal_block`](Self::principal_block),
/// [`velocity`](Self::velocity)) — bit for bit what the lists give.
pub struct DelassusRows<'a> {
    rows: &'a [JacobianRow],
    inv_mass: &'a InverseMass,
    lists: std::cell::OnceCell<BodyLists>,
}

/// For every dynamic body, in increasing offset: (row, M⁻¹ times the row's block), rows
/// increasing; body b's are `entries[start[b]..start[b + 1]]` (one allocation, not one per body).
struct BodyLists {
    start: Vec<usize>,
    entries: Vec<(usize, [f64; 6])>,
}

impl BodyLists {
    /// The lists of `rows` (index, row), indices increasing, by a counting sort over bodies.
    fn of<'r>(
        rows: impl Iterator<Item = (usize, &'r JacobianRow)> + Clone,
        inv_mass: &InverseMass,
    ) -> Self {
        let bodies = inv_mass.blocks.len();
        let mut start = vec![0; bodies + 1];
        for (_, row) in rows.clone() {
            for (o, _) in &row.blocks {
                start[o / 6 + 1] += 1;
            }
        }
        for b in 0..bodies {
            start[b + 1] += start[b];
        }
        let mut next = start.clone();
        let mut entries = vec![(0, [0.0; 6]); start[bodies]];
        for (r, row) in rows {
            for (o, b) in &row.blocks {
                let at = &mut next[o / 6];
                entries[*at] = (r, inv_mass.apply(*o, b));
                *at += 1;
            }
        }
        BodyLists { start, entries }
    }

    /// Body `b`'s (row, M⁻¹ times the row's block), rows increasing.
    fn body(&self, b: usize) -> &[(usize, [f64; 6])] {
        &self.entries[self.start[b]..self.start[b + 1]]
    }
}

impl<'a> DelassusRows<'a> {
    pub fn new(rows: &'a [JacobianRow], inv_mass: &'a InverseMass) -> Self {
        DelassusRows {
            rows,
            inv_mass,
            lists: std::cell::OnceCell::new(),
        }
    }

    fn lists(&self) -> &BodyLists {
        self.lists
            .get_or_init(|| BodyLists::of(self.rows.iter().enumerate(), self.inv_mass))
    }

    /// Dynamic bodies.
    fn bodies(&self) -> usize {
        self.inv_mass.blocks.len()
    }

    /// Body `b`'s (row, M⁻¹ times the row's block), rows increasing.
    fn body(&self, b: usize) -> &[(usize, [f64; 6])] {
        self.lists().body(b)
    }

    /// Append the nonzeros of row `r` of W to (`cols`, `values`), by increasing column. O(the
    /// row's nonzeros): the lists of the row's (at most two) bodies are merged.
    pub fn append_row(&self, r: usize, cols: &mut Vec<usize>, values: &mut Vec<f64>) {
        self.visit_row(r, |s, v| {
            cols.push(s);
            values.push(v);
        });
    }

    /// Call `f(s, W_rs)` for the nonzeros of row `r` of W, by increasing column (the entries
    /// [`append_row`](Self::append_row) appends, bit for bit, without the lists).
    pub fn visit_row(&self, r: usize, mut f: impl FnMut(usize, f64)) {
        let dot = |b: &[f64; 6], mb: &[f64; 6]| (0..6).map(|k| b[k] * mb[k]).sum::<f64>();
        let blocks = &self.rows[r].blocks;
        match blocks.as_slice() {
            [] => {}
            [(o, b)] => {
                for (s, mb) in self.body(o / 6) {
                    f(*s, 0.0 + dot(b, mb));
                }
            }
            [first, second] => {
                // The body of lower offset first (the order its terms are added in).
                let (&(o1, ref b1), &(o2, ref b2)) = if first.0 <= second.0 {
                    (first, second)
                } else {
                    (second, first)
                };
                let (l1, l2) = (self.body(o1 / 6), self.body(o2 / 6));
                let (mut i, mut j) = (0, 0);
                while i < l1.len() || j < l2.len() {
                    let s1 = l1.get(i).map_or(usize::MAX, |e| e.0);
                    let s2 = l2.get(j).map_or(usize::MAX, |e| e.0);
                    if s1 < s2 {
                        f(s1, 0.0 + dot(b1, &l1[i].1));
                        i += 1;
                    } else if s2 < s1 {
                        f(s2, 0.0 + dot(b2, &l2[j].1));
                        j += 1;
                    } else {
                        f(s1, 0.0 + dot(b1, &l1[i].1) + dot(b2, &l2[j].1));
                        i += 1;
                        j += 1;
                    }
                }
            }
            _ => unreachable!("a contact row involves at most two bodies"),
        }
    }

    /// W_rs, summed as [`append_row`](Self::append_row) sums it (so bit for bit the stored
    /// entry): over the bodies the two rows share, in increasing generalized offset; 0 when they
    /// share none. O(log of the rows touching the body).
    pub fn entry(&self, r: usize, s: usize) -> f64 {
        let dot = |b: &[f64; 6], mb: &[f64; 6]| (0..6).map(|k| b[k] * mb[k]).sum::<f64>();
        let mut sum = 0.0;
        for (o, b) in self.rows[r].blocks.by_offset() {
            let list = self.body(o / 6);
            if let Ok(k) = list.binary_search_by_key(&s, |e| e.0) {
                sum += dot(b, &list[k].1);
            }
        }
        sum
    }

    /// W_αα for the rows `alpha` (increasing), each entry summed as
    /// [`entry`](Self::entry) sums it (bit for bit the stored one), in O(the nonzeros of W in
    /// α's rows): each body's rows that are in α are listed once, then for each row of α, its
    /// bodies in increasing offset, and on each the listed rows.
    pub fn principal_block(&self, alpha: &[usize]) -> nalgebra::DMatrix<f64> {
        self.principal_entries(alpha, false)
    }

    /// [`principal_block`](Self::principal_block)'s lower triangle (the same entries), zeros
    /// above the diagonal: for a factorization that reads W_αα's lower triangle only.
    pub fn principal_block_lower(&self, alpha: &[usize]) -> nalgebra::DMatrix<f64> {
        self.principal_entries(alpha, true)
    }

    /// W_αα, or its lower triangle (`lower`).
    fn principal_entries(&self, alpha: &[usize], lower: bool) -> nalgebra::DMatrix<f64> {
        let dot = |b: &[f64; 6], mb: &[f64; 6]| (0..6).map(|k| b[k] * mb[k]).sum::<f64>();
        let k = alpha.len();
        // Body b's (local index, M⁻¹ block) of the rows in α, rows increasing (the blocks
        // weighted as the full lists weigh them).
        let in_alpha = BodyLists::of(
            alpha.iter().map(|&r| &self.rows[r]).enumerate(),
            self.inv_mass,
        );
        let mut w = nalgebra::DMatrix::zeros(k, k);
        for (i, &r) in alpha.iter().enumerate() {
            for (o, b) in self.rows[r].blocks.by_offset() {
                for (j, mb) in in_alpha.body(o / 6) {
                    if lower && *j > i {
                        break; // the body's rows come in increasing order
                    }
                    w[(i, *j)] += dot(b, mb);
                }
            }
        }
        w
    }

    /// The principal submatrix for `alpha` (increasing) of an LCP matrix whose first `m` rows
    /// and columns are W (these rows): W_αα from [`principal_block`](Self::principal_block),
    /// every other entry from `rest(row, column)` (the matrix's own entry, so that the whole
    /// is bit for bit the stored one).
    pub fn principal_with(
        &self,
        alpha: &[usize],
        m: usize,
        rest: impl Fn(usize, usize) -> f64,
    ) -> nalgebra::DMatrix<f64> {
        let impulses = alpha.partition_point(|&r| r < m);
        if impulses == alpha.len() {
            return self.principal_block(alpha);
        }
        let mut out = nalgebra::DMatrix::zeros(alpha.len(), alpha.len());
        out.view_mut((0, 0), (impulses, impulses))
            .copy_from(&self.principal_block(&alpha[..impulses]));
        for (i, &r) in alpha.iter().enumerate() {
            for (j, &c) in alpha.iter().enumerate() {
                if r >= m || c >= m {
                    out[(i, j)] = rest(r, c);
                }
            }
        }
        out
    }

    /// Entry (x, c) of X M⁻¹ Gᵀ for a row `x` outside G (PEG's slack rows Δ) and row `c` of G,
    /// summed as [`cross_delassus_into`] sums it (x's blocks in stored order, from 0.0): bit for
    /// bit the entry it writes. O(log of the rows touching each of x's bodies).
    pub fn cross_entry(&self, x: &JacobianRow, c: usize) -> f64 {
        let dot = |b: &[f64; 6], mb: &[f64; 6]| (0..6).map(|k| b[k] * mb[k]).sum::<f64>();
        let mut sum = 0.0;
        for (o, b) in &x.blocks {
            let list = self.body(o / 6);
            if let Ok(k) = list.binary_search_by_key(&c, |e| e.0) {
                sum += dot(b, &list[k].1);
            }
        }
        sum
    }

    /// v = M⁻¹ Gᵀ z per body (m/s and rad/s per unit of z), O(rows): W z = G v, and X M⁻¹ Gᵀ z
    /// = X v for any other row X ([`row_times`](Self::row_times)).
    pub fn velocity(&self, z: &[f64]) -> Vec<[f64; 6]> {
        // Row by row, rows increasing, so each body's sum runs in its list's order; a zero z_s
        // adds exactly nothing and is skipped.
        let mut v = vec![[0.0; 6]; self.bodies()];
        for (row, &zs) in self.rows.iter().zip(z) {
            if zs == 0.0 {
                continue;
            }
            for (o, b) in &row.blocks {
                let (mb, acc) = (self.inv_mass.apply(*o, b), &mut v[o / 6]);
                for k in 0..6 {
                    acc[k] += zs * mb[k];
                }
            }
        }
        v
    }

    /// Row `x` times the per-body velocity `v` of [`velocity`](Self::velocity).
    pub fn row_times(x: &JacobianRow, v: &[[f64; 6]]) -> f64 {
        x.blocks
            .iter()
            .map(|(o, b)| (0..6).map(|k| b[k] * v[o / 6][k]).sum::<f64>())
            .sum()
    }

    /// W z (`z` of one entry per row), as G (M⁻¹ (Gᵀ z)): O(rows), W never formed.
    pub fn mul(&self, z: &[f64]) -> Vec<f64> {
        let v = self.velocity(z);
        self.rows.iter().map(|row| Self::row_times(row, &v)).collect()
    }

    /// The number of nonzeros of W: Σ over bodies of (rows touching the body)² (an upper bound
    /// when two rows share two bodies), for reserving storage.
    pub fn nonzeros_bound(&self) -> usize {
        self.lists()
            .start
            .windows(2)
            .map(|w| (w[1] - w[0]) * (w[1] - w[0]))
            .sum()
    }
}

/// Add the generalized impulse Gᵀz, divided by `h` (s), to the per-body wrenches: the block
/// [d; r × d] of a row carries force d z and torque (r × d) z.
pub fn add_row_forces(
    model: &Model,
    rows: &[JacobianRow],
    z: &[f64],
    h: f64,
    out: &mut [super::Wrench],
) {
    let body_of_offset: Vec<usize> = model
        .bodies
        .iter()
        .enumerate()
        .filter(|(_, b)| !b.fixed)
        .map(|(i, _)| i)
        .collect();
    for (row, &zi) in rows.iter().zip(z) {
        if zi == 0.0 {
            continue;
        }
        let s = zi / h;
        for (o, b) in &row.blocks {
            let w = &mut out[body_of_offset[o / 6]];
            w.force += s * DVec3::new(b[0], b[1], b[2]);
            w.torque += s * DVec3::new(b[3], b[4], b[5]);
        }
    }
}

/// The direction d of a contact row ([`contact_row`]) of a body B whose velocities start at
/// `offset_b` (`None` when B is fixed): B's block starts with d, A's with −d.
pub fn row_direction(row: &JacobianRow, offset_b: Option<usize>) -> DVec3 {
    let linear = |b: &[f64; 6]| DVec3::new(b[0], b[1], b[2]);
    match row.blocks.iter().find(|(o, _)| Some(*o) == offset_b) {
        Some((_, b)) => linear(b),
        None => row.blocks.first().map_or(DVec3::ZERO, |(_, b)| -linear(b)),
    }
}

/// The difference row `p − k` (blocks of the same body added): rows of one body pair (two
/// contacts of the same pair, as PEG's slack rows), so that it keeps at most two blocks.
pub fn row_difference(p: &JacobianRow, k: &JacobianRow) -> JacobianRow {
    let mut blocks = p.blocks;
    for (o, b) in &k.blocks {
        match blocks.iter_mut().find(|(q, _)| q == o) {
            Some((_, acc)) => {
                for i in 0..6 {
                    acc[i] -= b[i];
                }
            }
            None => blocks.push((*o, b.map(|x| -x))),
        }
    }
    JacobianRow { blocks }
}

/// The rectangular product G_x M⁻¹ G_yᵀ of two sets of rows (rows_x × rows_y). Only pairs of rows
/// that share a body contribute.
pub fn cross_delassus(
    rows_x: &[JacobianRow],
    rows_y: &[JacobianRow],
    inv_mass: &InverseMass,
) -> nalgebra::DMatrix<f64> {
    let mut w = nalgebra::DMatrix::zeros(rows_x.len(), rows_y.len());
    cross_delassus_into(rows_x, rows_y, inv_mass, &mut w, (0, 0));
    w
}

/// [`cross_delassus`] added into the block of `w` whose top-left entry is `at` (row, column): a
/// block of zeros receives the same entries, bit for bit.
pub fn cross_delassus_into(
    rows_x: &[JacobianRow],
    rows_y: &[JacobianRow],
    inv_mass: &InverseMass,
    w: &mut nalgebra::DMatrix<f64>,
    (r0, c0): (usize, usize),
) {
    let mut by_body: Vec<Vec<(usize, [f64; 6])>> = vec![Vec::new(); inv_mass.blocks.len()];
    for (c, row) in rows_y.iter().enumerate() {
        for (o, b) in &row.blocks {
            by_body[o / 6].push((c, inv_mass.apply(*o, b)));
        }
    }
    for (r, row) in rows_x.iter().enumerate() {
        for (o, b) in &row.blocks {
            for (c, mb) in &by_body[o / 6] {
                w[(r0 + r, c0 + *c)] += (0..6).map(|k| b[k] * mb[k]).sum::<f64>();
            }
        }
    }
}

/// diag(m I, J) as a 6 × 6 block (kg, kg m²): a rigid body's mass matrix for its generalized
/// velocity [v; ω], J the inertia about the centre of mass in the axes of ω.
pub fn mass_block(mass: f64, inertia: DMat3) -> Matrix6<f64> {
    let mut block = Matrix6::zeros();
    for r in 0..3 {
        block[(r, r)] = mass;
        for c in 0..3 {
            block[(3 + r, 3 + c)] = inertia.col(c)[r];
        }
    }
    block
}

/// Body `b`'s [`mass_block`] at `state`, in world axes: diag(m I, R I_body Rᵀ).
pub fn body_mass_block(model: &Model, state: &State, b: usize) -> Matrix6<f64> {
    let body = &model.bodies[b];
    let r = DMat3::from_quat(state.bodies[b].orientation);
    mass_block(body.mass, r * body.inertia * r.transpose())
}
