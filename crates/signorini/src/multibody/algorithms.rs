//! The recursive algorithms over a kinematic tree (RBDA chapters 5–7), with every link's
//! quantities in its own coordinates, and what is read from them: forward kinematics, energies,
//! momenta.
//!
//! All of them work in a [`Workspace`] made once per tree: no allocation per call. Gravity
//! enters as a fictitious upward acceleration of the world, a₀ = −g (RBDA §5.3), so the link
//! accelerations held in the workspace after RNEA or ABA are "a_i − g", while q̈ and τ are the
//! true ones.
//!
//! Generalized forces τ given to `rnea`/`aba` are the whole joint force: the integrators add
//! torque inputs, PD actuators and damping (`control.rs`) before calling ABA. Armature is part
//! of the mass matrix: H = H_links + diag(armature), so RNEA adds armature · q̈ and ABA adds it
//! to D_i = S_iᵀ U_i.
use super::spatial::{ArticulatedInertia, Force, Motion, Transform};
use super::tree::{check_len, Tree};
use super::MultibodyError;
use glam::{DMat3, DVec3};
use nalgebra::DMatrix;

/// A link's pose and velocity in the world.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LinkKinematics {
    /// Columns: the link's axes in the world.
    pub rotation: DMat3,
    /// The link frame's origin (m).
    pub position: DVec3,
    /// World axes (rad/s).
    pub angular_velocity: DVec3,
    /// Velocity of the link frame's origin, world axes (m/s).
    pub velocity: DVec3,
}

impl LinkKinematics {
    /// World position of a point given in link coordinates (m).
    pub fn point(&self, p: DVec3) -> DVec3 {
        self.position + self.rotation * p
    }

    /// World velocity of the material point at link coordinates `p` (m/s).
    pub fn point_velocity(&self, p: DVec3) -> DVec3 {
        self.velocity + self.angular_velocity.cross(self.rotation * p)
    }
}

/// Scratch of the algorithms, sized for one tree.
#[derive(Clone, Debug)]
pub struct Workspace {
    /// ⁱX_λ(i): parent (or world) coordinates → link i's.
    x_up: Vec<Transform>,
    v: Vec<Motion>,
    c: Vec<Motion>,
    a: Vec<Motion>,
    ia: Vec<ArticulatedInertia>,
    pa: Vec<Force>,
    f: Vec<Force>,
    /// U = Iᴬ S, one column per degree of freedom.
    u_cols: Vec<Force>,
    /// u = τ − Sᵀ pᴬ per degree of freedom.
    u: Vec<f64>,
    /// Per link: 1/D for one degree of freedom, else the Cholesky factor L of D = L Lᵀ
    /// (nv × nv, row stride 6).
    d_factor: Vec<[f64; 36]>,
    links: Vec<LinkKinematics>,
    /// The joint-space mass matrix written by [`crba`].
    h: DMatrix<f64>,
    pub(super) step: super::integrate::StepScratch,
}

impl Workspace {
    pub fn new(tree: &Tree) -> Workspace {
        let (n, nv) = (tree.len(), tree.nv());
        Workspace {
            x_up: vec![Transform::IDENTITY; n],
            v: vec![Motion::ZERO; n],
            c: vec![Motion::ZERO; n],
            a: vec![Motion::ZERO; n],
            ia: vec![ArticulatedInertia::ZERO; n],
            pa: vec![Force::ZERO; n],
            f: vec![Force::ZERO; n],
            u_cols: vec![Force::ZERO; nv],
            u: vec![0.0; nv],
            d_factor: vec![[0.0; 36]; n],
            links: vec![
                LinkKinematics {
                    rotation: DMat3::IDENTITY,
                    position: DVec3::ZERO,
                    angular_velocity: DVec3::ZERO,
                    velocity: DVec3::ZERO,
                };
                n
            ],
            h: DMatrix::zeros(nv, nv),
            step: super::integrate::StepScratch::new(tree),
        }
    }

    fn check(&self, tree: &Tree) -> Result<(), MultibodyError> {
        check_len("workspace links", tree.len(), self.x_up.len())?;
        check_len("workspace degrees of freedom", tree.nv(), self.u.len())
    }

    /// Spatial velocities of the links in their own coordinates, as the last call that computed
    /// velocities left them.
    pub fn link_velocities(&self) -> &[Motion] {
        &self.v
    }
}

/// The world's spatial acceleration in world coordinates: −g (RBDA §5.3).
fn world_acceleration(tree: &Tree) -> Motion {
    Motion::new(DVec3::ZERO, -tree.gravity)
}

/// First pass: ⁱX_λ(i) from q, and if `v` is given the link velocities
/// v_i = ⁱX_λ v_λ + S_i q̇_i (RBDA eq. 7.34) and c_i = v_i × S_i q̇_i (eq. 7.35; c_J = 0 for every
/// joint here).
fn kinematics(tree: &Tree, ws: &mut Workspace, q: &[f64], v: Option<&[f64]>) {
    for (i, link) in tree.links().iter().enumerate() {
        let xj = link.joint.transform(tree.joint_q(i, q));
        let xt = &tree.x_tree[i];
        ws.x_up[i] = if tree.x_tree_pure_translation[i] {
            // X_J xlt(r_T) = (E_J, r_T + r_J): the common case of a joint frame not rotated
            // from its parent's, without the 3 × 3 product.
            Transform {
                e: xj.e,
                r: xt.r + xj.r,
            }
        } else {
            xj.compose(xt)
        };
        let Some(v) = v else { continue };
        let o = tree.v_offset(i);
        let mut vj = Motion::ZERO;
        for k in 0..link.joint.nv() {
            vj += tree.s_cols[o + k].scale(v[o + k]);
        }
        let vp = match link.parent {
            Some(p) => ws.x_up[i].apply_motion(&ws.v[p]),
            None => Motion::ZERO,
        };
        ws.v[i] = vp + vj;
        ws.c[i] = ws.v[i].cross_motion(&vj);
    }
}

/// Inverse dynamics by the recursive Newton–Euler algorithm (RBDA Table 5.1): the joint forces
/// τ (length nv) that give accelerations `qdd` at (q, v), gravity included, plus armature · q̈.
pub fn rnea(
    tree: &Tree,
    ws: &mut Workspace,
    q: &[f64],
    v: &[f64],
    qdd: &[f64],
    tau: &mut [f64],
) -> Result<(), MultibodyError> {
    tree.check_state(q, v)?;
    ws.check(tree)?;
    check_len("q̈", tree.nv(), qdd.len())?;
    check_len("τ", tree.nv(), tau.len())?;
    kinematics(tree, ws, q, Some(v));
    let a0 = world_acceleration(tree);
    for (i, link) in tree.links().iter().enumerate() {
        let o = tree.v_offset(i);
        // a_i = ⁱX_λ a_λ + S_i q̈_i + c_i
        let ap = match link.parent {
            Some(p) => ws.a[p],
            None => a0,
        };
        let mut a = ws.x_up[i].apply_motion(&ap) + ws.c[i];
        for k in 0..link.joint.nv() {
            a += tree.s_cols[o + k].scale(qdd[o + k]);
        }
        ws.a[i] = a;
        // f_i = I_i a_i + v_i ×* I_i v_i (RBDA eq. 5.9)
        let inertia = &tree.inertias[i];
        ws.f[i] = inertia.mul_motion(&a) + ws.v[i].cross_force(&inertia.mul_motion(&ws.v[i]));
    }
    for i in (0..tree.len()).rev() {
        let link = &tree.links()[i];
        let o = tree.v_offset(i);
        // τ_i = S_iᵀ f_i (RBDA eq. 5.11), plus the armature's share.
        for k in 0..link.joint.nv() {
            tau[o + k] = tree.s_cols[o + k].dot(&ws.f[i]) + tree.armature[o + k] * qdd[o + k];
        }
        if let Some(p) = link.parent {
            let fp = ws.x_up[i].transpose_apply_force(&ws.f[i]);
            ws.f[p] += fp;
        }
    }
    Ok(())
}

/// The bias forces C(q, v) = RNEA(q, v, 0): Coriolis, centrifugal and gravity terms, so that
/// H q̈ + C = τ.
pub fn bias_forces(
    tree: &Tree,
    ws: &mut Workspace,
    q: &[f64],
    v: &[f64],
    out: &mut [f64],
) -> Result<(), MultibodyError> {
    let zero = std::mem::take(&mut ws.step.zero_nv);
    let r = rnea(tree, ws, q, v, &zero, out);
    ws.step.zero_nv = zero;
    r
}

/// The joint-space mass matrix H(q) by the composite-rigid-body algorithm (RBDA Table 6.2),
/// armature on the diagonal: symmetric positive definite, ½ vᵀ H v the kinetic energy.
#[allow(clippy::needless_range_loop)] // k indexes S, H and the columns together
pub fn crba<'w>(
    tree: &Tree,
    ws: &'w mut Workspace,
    q: &[f64],
) -> Result<&'w DMatrix<f64>, MultibodyError> {
    check_len("q", tree.nq(), q.len())?;
    ws.check(tree)?;
    kinematics(tree, ws, q, None);
    // Composite inertias I^c_i = I_i + Σ children, accumulated leaves first.
    for i in 0..tree.len() {
        ws.ia[i] = tree.inertias[i].to_articulated();
    }
    for i in (0..tree.len()).rev() {
        if let Some(p) = tree.links()[i].parent {
            let ic = ws.ia[i].transform_to_parent(&ws.x_up[i]);
            ws.ia[p] += ic;
        }
    }
    ws.h.fill(0.0);
    let mut cols = [Force::ZERO; 6];
    for i in 0..tree.len() {
        let n = tree.links()[i].joint.nv();
        let oi = tree.v_offset(i);
        for k in 0..n {
            // F = I^c_i S_i; H_ii = S_iᵀ F
            // (one triangle, mirrored: H exactly symmetric whatever the round-off of I^c)
            cols[k] = ws.ia[i].mul_motion(&tree.s_cols[oi + k]);
            for l in 0..=k {
                let hlk = tree.s_cols[oi + l].dot(&cols[k]);
                ws.h[(oi + l, oi + k)] = hlk;
                ws.h[(oi + k, oi + l)] = hlk;
            }
            ws.h[(oi + k, oi + k)] += tree.armature[oi + k];
        }
        // Up the tree: F = ᵏX_λᵀ F; H_ij = Fᵀ S_j, H_ji = H_ijᵀ
        let mut j = i;
        while let Some(p) = tree.links()[j].parent {
            for col in cols.iter_mut().take(n) {
                *col = ws.x_up[j].transpose_apply_force(col);
            }
            j = p;
            let oj = tree.v_offset(j);
            for l in 0..tree.links()[j].joint.nv() {
                for (k, col) in cols.iter().enumerate().take(n) {
                    let hij = tree.s_cols[oj + l].dot(col);
                    ws.h[(oi + k, oj + l)] = hij;
                    ws.h[(oj + l, oi + k)] = hij;
                }
            }
        }
    }
    Ok(&ws.h)
}

/// Forward dynamics by the articulated-body algorithm (RBDA Table 7.1): q̈ (length nv) under
/// joint forces τ at (q, v), gravity included.
pub fn aba(
    tree: &Tree,
    ws: &mut Workspace,
    q: &[f64],
    v: &[f64],
    tau: &[f64],
    qdd: &mut [f64],
) -> Result<(), MultibodyError> {
    tree.check_state(q, v)?;
    ws.check(tree)?;
    check_len("τ", tree.nv(), tau.len())?;
    check_len("q̈", tree.nv(), qdd.len())?;
    aba_unchecked(tree, ws, q, v, tau, qdd)
}

/// [`aba`] without the checks of lengths and finiteness (the integrators check once per step).
pub(super) fn aba_unchecked(
    tree: &Tree,
    ws: &mut Workspace,
    q: &[f64],
    v: &[f64],
    tau: &[f64],
    qdd: &mut [f64],
) -> Result<(), MultibodyError> {
    kinematics(tree, ws, q, Some(v));
    for i in 0..tree.len() {
        // Iᴬ_i = I_i, pᴬ_i = v_i ×* I_i v_i
        let inertia = &tree.inertias[i];
        ws.ia[i] = inertia.to_articulated();
        ws.pa[i] = ws.v[i].cross_force(&inertia.mul_motion(&ws.v[i]));
    }
    for i in (0..tree.len()).rev() {
        articulate(tree, ws, tau, i)?;
    }
    let a0 = world_acceleration(tree);
    for (i, link) in tree.links().iter().enumerate() {
        let n = link.joint.nv();
        let o = tree.v_offset(i);
        // a' = ⁱX_λ a_λ + c_i; q̈_i = D_i⁻¹ (u_i − U_iᵀ a'); a_i = a' + S_i q̈_i
        let ap = match link.parent {
            Some(p) => ws.a[p],
            None => a0,
        };
        let mut a = ws.x_up[i].apply_motion(&ap) + ws.c[i];
        if n == 1 {
            let qdd_i = ws.d_factor[i][0] * (ws.u[o] - a.dot(&ws.u_cols[o]));
            qdd[o] = qdd_i;
            ws.a[i] = a + tree.s_cols[o].scale(qdd_i);
            continue;
        }
        // q̈ = D⁻¹ r = L⁻ᵀ L⁻¹ r with D = L Lᵀ
        let mut r = [0.0; 6];
        for (k, rk) in r.iter_mut().enumerate().take(n) {
            *rk = ws.u[o + k] - a.dot(&ws.u_cols[o + k]);
        }
        let l = &ws.d_factor[i];
        solve_lower(n, l, &mut r);
        solve_lower_transposed(n, l, &mut r);
        qdd[o..o + n].copy_from_slice(&r[..n]);
        for k in 0..n {
            a += tree.s_cols[o + k].scale(qdd[o + k]);
        }
        ws.a[i] = a;
    }
    Ok(())
}

/// The second pass of ABA at link i (RBDA eqs. 7.43–7.48): U_i = Iᴬ_i S_i,
/// D_i = S_iᵀ U_i (+ armature), u_i = τ_i − S_iᵀ pᴬ_i, and the link's articulated inertia and
/// bias force handed to its parent: Iᵃ = Iᴬ − U D⁻¹ Uᵀ, pᵃ = pᴬ + Iᵃ c + U D⁻¹ u.
fn articulate(
    tree: &Tree,
    ws: &mut Workspace,
    tau: &[f64],
    i: usize,
) -> Result<(), MultibodyError> {
    let link = &tree.links()[i];
    let n = link.joint.nv();
    let o = tree.v_offset(i);
    if n == 1 {
        return articulate_one(tree, ws, tau, i, o);
    }
    let d = &mut ws.d_factor[i];
    for k in 0..n {
        let s = &tree.s_cols[o + k];
        ws.u_cols[o + k] = ws.ia[i].mul_motion(s);
        ws.u[o + k] = tau[o + k] - s.dot(&ws.pa[i]);
    }
    for j in 0..n {
        for k in 0..=j {
            d[6 * j + k] = tree.s_cols[o + j].dot(&ws.u_cols[o + k]);
        }
        d[6 * j + j] += tree.armature[o + j];
    }
    if !cholesky(n, d) {
        return Err(MultibodyError::SingularJoint {
            link: link.name.clone(),
        });
    }
    let Some(p) = link.parent else {
        return Ok(());
    };
    // U D⁻¹ Uᵀ = W Wᵀ and U D⁻¹ u = W y with W = U L⁻ᵀ (W Lᵀ = U, column by column) and
    // y = L⁻¹ u.
    let l = &ws.d_factor[i];
    let mut w = [Force::ZERO; 6];
    let mut y = [0.0; 6];
    y[..n].copy_from_slice(&ws.u[o..o + n]);
    solve_lower(n, l, &mut y);
    let mut ia = ws.ia[i];
    let mut pa = ws.pa[i];
    for m in 0..n {
        let mut wm = ws.u_cols[o + m];
        for k in 0..m {
            wm -= w[k].scale(l[6 * m + k]);
        }
        wm = wm.scale(1.0 / l[6 * m + m]);
        w[m] = wm;
        ia.sub_outer(&wm, &wm, 1.0);
        pa += wm.scale(y[m]);
    }
    pa += ia.mul_motion(&ws.c[i]);
    let x = &ws.x_up[i];
    let iap = ia.transform_to_parent(x);
    let pap = x.transpose_apply_force(&pa);
    ws.ia[p] += iap;
    ws.pa[p] += pap;
    Ok(())
}

/// [`articulate`] for a joint of one degree of freedom (revolute, prismatic): the same
/// equations with scalar D and u, written out (most joints of a robot are these).
fn articulate_one(
    tree: &Tree,
    ws: &mut Workspace,
    tau: &[f64],
    i: usize,
    o: usize,
) -> Result<(), MultibodyError> {
    let s = &tree.s_cols[o];
    let u_col = ws.ia[i].mul_motion(s);
    let d = s.dot(&u_col) + tree.armature[o];
    if !(d > 0.0 && d.is_finite()) {
        return Err(MultibodyError::SingularJoint {
            link: tree.links()[i].name.clone(),
        });
    }
    let dinv = 1.0 / d;
    let u = tau[o] - s.dot(&ws.pa[i]);
    ws.u_cols[o] = u_col;
    ws.u[o] = u;
    ws.d_factor[i][0] = dinv;
    let Some(p) = tree.links()[i].parent else {
        return Ok(());
    };
    let mut ia = ws.ia[i];
    ia.sub_outer(&u_col, &u_col, dinv);
    let pa = ws.pa[i] + ia.mul_motion(&ws.c[i]) + u_col.scale(dinv * u);
    let x = &ws.x_up[i];
    let iap = ia.transform_to_parent(x);
    let pap = x.transpose_apply_force(&pa);
    ws.ia[p] += iap;
    ws.pa[p] += pap;
    Ok(())
}

/// Cholesky factor L (lower, L Lᵀ = m) of the symmetric positive definite n × n matrix whose
/// lower triangle is in `m` (row stride 6, n ≤ 6), in place; false if a pivot is not positive.
fn cholesky(n: usize, m: &mut [f64; 36]) -> bool {
    for j in 0..n {
        let mut s = m[6 * j + j];
        for k in 0..j {
            s -= m[6 * j + k] * m[6 * j + k];
        }
        if !(s > 0.0 && s.is_finite()) {
            return false;
        }
        let ljj = s.sqrt();
        m[6 * j + j] = ljj;
        for i in j + 1..n {
            let mut s = m[6 * i + j];
            for k in 0..j {
                s -= m[6 * i + k] * m[6 * j + k];
            }
            m[6 * i + j] = s / ljj;
        }
    }
    true
}

/// x ← L⁻¹ x.
fn solve_lower(n: usize, l: &[f64; 36], x: &mut [f64; 6]) {
    for i in 0..n {
        let mut s = x[i];
        for k in 0..i {
            s -= l[6 * i + k] * x[k];
        }
        x[i] = s / l[6 * i + i];
    }
}

/// x ← L⁻ᵀ x.
fn solve_lower_transposed(n: usize, l: &[f64; 36], x: &mut [f64; 6]) {
    for i in (0..n).rev() {
        let mut s = x[i];
        for k in i + 1..n {
            s -= l[6 * k + i] * x[k];
        }
        x[i] = s / l[6 * i + i];
    }
}

/// Forward kinematics: every link's world pose and velocity at (q, v).
pub fn forward_kinematics<'w>(
    tree: &Tree,
    ws: &'w mut Workspace,
    q: &[f64],
    v: &[f64],
) -> Result<&'w [LinkKinematics], MultibodyError> {
    tree.check_state(q, v)?;
    ws.check(tree)?;
    link_kinematics(tree, ws, q, v);
    Ok(&ws.links)
}

fn link_kinematics(tree: &Tree, ws: &mut Workspace, q: &[f64], v: &[f64]) {
    kinematics(tree, ws, q, Some(v));
    // World → link i coordinates: ⁱX_0 = ⁱX_λ ˡX_0; its rotation's transpose holds the link's
    // axes in the world, its r the link origin.
    for (i, link) in tree.links().iter().enumerate() {
        let x0 = match link.parent {
            Some(p) => {
                let xp = Transform::from_frame(ws.links[p].rotation, ws.links[p].position);
                ws.x_up[i].compose(&xp)
            }
            None => ws.x_up[i],
        };
        let rotation = x0.e.transpose();
        ws.links[i] = LinkKinematics {
            rotation,
            position: x0.r,
            angular_velocity: rotation * ws.v[i].ang,
            velocity: rotation * ws.v[i].lin,
        };
    }
}

/// Kinetic energy Σ_i ½ v_iᵀ I_i v_i over the links plus ½ Σ armature q̇² (J).
pub fn kinetic_energy(
    tree: &Tree,
    ws: &mut Workspace,
    q: &[f64],
    v: &[f64],
) -> Result<f64, MultibodyError> {
    tree.check_state(q, v)?;
    ws.check(tree)?;
    kinematics(tree, ws, q, Some(v));
    let links: f64 = (0..tree.len())
        .map(|i| 0.5 * ws.v[i].dot(&tree.inertias[i].mul_motion(&ws.v[i])))
        .sum();
    let rotors: f64 = tree
        .armature
        .iter()
        .zip(v)
        .map(|(a, w)| 0.5 * a * w * w)
        .sum();
    Ok(links + rotors)
}

/// Gravitational potential energy −Σ m_i g·x_i of the links' centres of mass, zero at the world
/// origin (J), as `dynamics::energy` counts it for free bodies.
pub fn potential_energy(tree: &Tree, ws: &mut Workspace, q: &[f64]) -> Result<f64, MultibodyError> {
    let zero = std::mem::take(&mut ws.step.zero_nv);
    let r = forward_kinematics(tree, ws, q, &zero).map(|_| ());
    ws.step.zero_nv = zero;
    r?;
    Ok(tree
        .links()
        .iter()
        .zip(&ws.links)
        .map(|(l, k)| -l.mass * tree.gravity.dot(k.point(l.com)))
        .sum())
}

/// Total linear momentum (kg m/s) and angular momentum about the world origin (kg m²/s) of the
/// links, world axes: Σ_i ⁰X*_i I_i v_i. The armature's rotors are not counted (armature models
/// a rotor geared to its joint, whose reaction is not among the links).
pub fn momentum(
    tree: &Tree,
    ws: &mut Workspace,
    q: &[f64],
    v: &[f64],
) -> Result<(DVec3, DVec3), MultibodyError> {
    tree.check_state(q, v)?;
    ws.check(tree)?;
    link_kinematics(tree, ws, q, v);
    let (mut lin, mut ang) = (DVec3::ZERO, DVec3::ZERO);
    for i in 0..tree.len() {
        let h = tree.inertias[i].mul_motion(&ws.v[i]);
        let k = &ws.links[i];
        let l = k.rotation * h.lin;
        lin += l;
        ang += k.rotation * h.ang + k.position.cross(l);
    }
    Ok((lin, ang))
}
