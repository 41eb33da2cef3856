//! The embedded Dormand–Prince 5(4) Runge–Kutta pair (Dormand & Prince 1980, "A family of
//! embedded Runge–Kutta formulae", J. Comput. Appl. Math. 6(1)): seven stages (the last one
//! evaluated at the new point, "first same as last"), a 5th-order solution and the difference to
//! the embedded 4th-order one as the local error estimate. With local extrapolation the
//! 5th-order solution is kept.
//!
//! ```text
//!   k_i = f(t + c_i h, y + h Σ_{j<i} a_ij k_j),  i = 1..7
//!   y₅ = y + h Σ b_i k_i,   err = h Σ (b_i − b*_i) k_i
//! ```
//!
//! [`step`] takes one step of a system of N equations; step-size control, error norms and
//! event location are the caller's (e.g. the collision integration of
//! `contact::impulse::law`).

/// Nodes c_i (Dormand & Prince 1980).
const DP_C: [f64; 7] = [0.0, 1.0 / 5.0, 3.0 / 10.0, 4.0 / 5.0, 8.0 / 9.0, 1.0, 1.0];
/// Stage coefficients a_ij.
const DP_A: [[f64; 6]; 7] = [
    [0.0; 6],
    [1.0 / 5.0, 0.0, 0.0, 0.0, 0.0, 0.0],
    [3.0 / 40.0, 9.0 / 40.0, 0.0, 0.0, 0.0, 0.0],
    [44.0 / 45.0, -56.0 / 15.0, 32.0 / 9.0, 0.0, 0.0, 0.0],
    [
        19372.0 / 6561.0,
        -25360.0 / 2187.0,
        64448.0 / 6561.0,
        -212.0 / 729.0,
        0.0,
        0.0,
    ],
    [
        9017.0 / 3168.0,
        -355.0 / 33.0,
        46732.0 / 5247.0,
        49.0 / 176.0,
        -5103.0 / 18656.0,
        0.0,
    ],
    [
        35.0 / 384.0,
        0.0,
        500.0 / 1113.0,
        125.0 / 192.0,
        -2187.0 / 6784.0,
        11.0 / 84.0,
    ],
];
/// 5th-order weights (= the last stage row: first same as last).
const DP_B: [f64; 7] = [
    35.0 / 384.0,
    0.0,
    500.0 / 1113.0,
    125.0 / 192.0,
    -2187.0 / 6784.0,
    11.0 / 84.0,
    0.0,
];
/// 4th-order weights.
const DP_BS: [f64; 7] = [
    5179.0 / 57600.0,
    0.0,
    7571.0 / 16695.0,
    393.0 / 640.0,
    -92097.0 / 339200.0,
    187.0 / 2100.0,
    1.0 / 40.0,
];

/// One Dormand–Prince step of length `h` of dy/dt = f(t, y) from (t, y): the 5th-order
/// solution and its difference to the 4th-order one.
pub fn step<const N: usize>(
    f: impl Fn(f64, [f64; N]) -> [f64; N],
    t: f64,
    y: [f64; N],
    h: f64,
) -> ([f64; N], [f64; N]) {
    let mut ks = [[0.0f64; N]; 7];
    for i in 0..7 {
        let mut yi = y;
        for (j, kj) in ks.iter().enumerate().take(i) {
            for c in 0..N {
                yi[c] += h * DP_A[i][j] * kj[c];
            }
        }
        ks[i] = f(t + DP_C[i] * h, yi);
    }
    let mut y5 = y;
    let mut err = [0.0; N];
    for (i, ki) in ks.iter().enumerate() {
        for c in 0..N {
            y5[c] += h * DP_B[i] * ki[c];
            err[c] += h * (DP_B[i] - DP_BS[i]) * ki[c];
        }
    }
    (y5, err)
}
