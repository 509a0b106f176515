//! The recursive latency model of minimal fully adaptive wormhole routing
//! in a k x k bidirectional torus (F. Quaglia, B. Ciciani, M. Colajanni,
//! "Performance analysis of adaptive wormhole routing in a two-dimensional
//! torus", Parallel Computing 2002, §3-4).
//!
//! The average message crosses K = k/4 channels in each dimension inside
//! one quadrant (Fig. 1): node N(i,j), 1 <= i, j <= K+1, from N(1,1) to the
//! destination N(K+1,K+1); X(i,j) leaves N(i,j) eastwards (j <= K), Y(i,j)
//! southwards (i <= K). The flows (eqs. 6-17), waiting times (eqs. 23-27),
//! residual transmission times (eqs. 32-42), contention probabilities
//! (eqs. 43-44) and latency (eqs. 45-46) depend on each other; they are
//! solved here by damped fixed-point iteration from zero load.
//!
//! Where the printed equations cannot be meant literally the model reads
//! them as follows (docs/analyze.md lists the same):
//! - eqs. 35, 39: "W T" inside the brackets is a sum (as in eq. 46), and a
//!   message blocked on both channels takes the one with the smaller mean
//!   wait (the intent of the binary terms r and s);
//! - eq. 25: the continuing flow on X(i,j+1) is f^X F^X(i,j) (printed
//!   F^Y); eq. 27: f^Y F^Y(i,j) continues on Y(i+1,j), so its service time
//!   is that of Y(i+1,j) (printed X);
//! - eq. 24: the deterministic term uses T^X_K, as eq. 23 does (printed
//!   T^X_{K-1}, which does not exist for K = 1); the other utilizations
//!   rho are built from the terms of their waiting times as eq. 24 is;
//! - §4.2.2: the link utilization time is taken as exponential, so
//!   S^2 = 2 T^2 (the paper assumes an exponential waiting part and the
//!   message length's own distribution, which it does not give).

use serde::Serialize;

/// The state of the model at one generation rate.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Solution {
    /// Mean latency in cycles, eq. (45).
    pub latency: f64,
    /// Probability that a horizontal channel is busy, eq. (43).
    pub p_x: f64,
    /// Probability that a vertical channel is busy, eq. (44).
    pub p_y: f64,
    /// Mean waits W_WE, W_NE, W_NS, W_WS in cycles, eqs. (23), (25)-(27).
    pub waits: [f64; 4],
    /// Fixed-point iterations used.
    pub iterations: usize,
}

/// Why the model has no solution.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unsolved {
    /// A channel's utilization reached 1: the network saturates.
    Saturated,
    /// The iteration did not settle within its budget.
    NoConvergence,
}

/// The torus side k the model accepts: a multiple of 4 from 4 to 256,
/// so that K = k/4 is a whole number of hops (§3).
pub fn check_side(k: u32) -> Result<u32, String> {
    if k >= 4 && k % 4 == 0 && k <= 256 {
        Ok(k / 4)
    } else {
        Err(format!(
            "torus side {k} is not allowed: the model takes k x k tori with k a multiple \
             of 4 from 4 to 256 (the average path K = k/4 must be whole)"
        ))
    }
}

/// The adaptive share alpha = (k-1)/(k+1), eq. (1).
pub fn alpha(k: u32) -> f64 {
    let k = f64::from(k);
    (k - 1.0) / (k + 1.0)
}

/// The share of each deterministic stream beta^X = beta^Y = 1/(k+1), eq. (2).
pub fn beta(k: u32) -> f64 {
    1.0 / (f64::from(k) + 1.0)
}

/// Zero-load latency: the limit of eq. (45) at rate 0, T_DT + 2K for the
/// adaptive stream and T_DT + K for the deterministic ones.
pub fn zero_load_latency(k: u32, length: f64) -> f64 {
    let kk = f64::from(k / 4);
    alpha(k) * (length + 2.0 * kk) + 2.0 * beta(k) * (length + kk)
}

type Grid = Vec<Vec<f64>>;

/// The model's latency for a k x k torus, messages of `length` flits
/// (one flit per cycle, B = 1, so T_DT = L), generated at `rate`
/// messages per cycle per node (Tables 1 and 2: 0.001 to 0.015).
// The loops index the grids by the paper's subscripts i, j.
#[allow(clippy::needless_range_loop)]
pub fn solve(k: u32, length: f64, rate: f64) -> Result<Solution, Unsolved> {
    let kk = (k / 4) as usize;
    let (a, b) = (alpha(k), beta(k));
    // tau = 4 tau_E: the analysis follows one quadrant's quarter of the flow (§3).
    let inv_tau = rate / 4.0;
    let tdt = length;
    let n = kk + 2; // indices 1..=K+1 used, 0 unused
    let (mut px, mut py) = (0.0_f64, 0.0_f64);
    let mut w = [0.0_f64; 4]; // WE, NE, NS, WS
    const DAMP: f64 = 0.5;
    for it in 1..=100_000 {
        let den = 1.0 - px * py;
        let fx = (1.0 - px) / den; // eq. (4)
        let fy = px * (1.0 - py) / den; // eq. (5)
                                        // Flows, eqs. (6)-(17): what enters N(i,j) leaves on X(i,j) and Y(i,j).
        let mut flx: Grid = vec![vec![0.0; n]; n];
        let mut fly: Grid = vec![vec![0.0; n]; n];
        for i in 1..=kk + 1 {
            for j in 1..=kk + 1 {
                let inflow = if i == 1 && j == 1 {
                    a * inv_tau
                } else {
                    flx[i][j - 1] + fly[i - 1][j]
                };
                if i <= kk && j <= kk {
                    flx[i][j] = inflow * fx;
                    fly[i][j] = inflow * fy;
                } else if i == kk + 1 && j <= kk {
                    flx[i][j] = inflow;
                } else if j == kk + 1 && i <= kk {
                    fly[i][j] = inflow;
                }
            }
        }
        // Residual transmission times, eqs. (32)-(42), backwards from T_DT.
        let [w_we, w_ne, w_ns, w_ws] = w;
        let mut tx: Grid = vec![vec![0.0; n + 1]; n + 1];
        let mut ty: Grid = vec![vec![0.0; n + 1]; n + 1];
        for j in (1..=kk).rev() {
            tx[kk + 1][j] = if j == kk {
                tdt + 1.0 // eq. (32)
            } else {
                w_we + tx[kk + 1][j + 1] + 1.0 // eq. (34)
            };
        }
        for i in (1..=kk).rev() {
            ty[i][kk + 1] = if i == kk {
                tdt + 1.0 // eq. (36)
            } else {
                w_ns + ty[i + 1][kk + 1] + 1.0 // eq. (38)
            };
        }
        for i in (1..=kk).rev() {
            for j in (1..=kk).rev() {
                tx[i][j] = if j == kk {
                    w_ws + ty[i][kk + 1] + 1.0 // eq. (33)
                } else {
                    let (x, y) = (tx[i][j + 1], ty[i][j + 1]);
                    let both = if w_we <= w_ws { w_we + x } else { w_ws + y };
                    (1.0 - px) * x + px * (1.0 - py) * y + px * py * both + 1.0 // eq. (35)
                };
                ty[i][j] = if i == kk {
                    w_ne + tx[kk + 1][j] + 1.0 // eq. (37)
                } else {
                    let (x, y) = (tx[i + 1][j], ty[i + 1][j]);
                    let both = if w_ne <= w_ns { w_ne + x } else { w_ns + y };
                    (1.0 - px) * x + px * (1.0 - py) * y + px * py * both + 1.0 // eq. (39)
                };
            }
        }
        let mut bx = vec![0.0; kk + 1];
        let mut by = vec![0.0; kk + 1];
        bx[1] = tdt + 1.0; // eq. (40)
        by[1] = tdt + 1.0;
        for j in 2..=kk {
            bx[j] = w_we + bx[j - 1] + 1.0; // eq. (41)
            by[j] = w_ns + by[j - 1] + 1.0; // eq. (42)
        }
        // Link utilization times, eqs. (28)-(31).
        let hops = |i: usize, j: usize| (2 * kk + 2 - i - j) as f64;
        let ux = |i: usize, j: usize| tx[i][j] - hops(i, j);
        let uy = |i: usize, j: usize| ty[i][j] - hops(i, j);
        let ubx = |j: usize| bx[j] - j as f64;
        let uby = |i: usize| by[i] - i as f64;
        // Waiting times, eqs. (23)-(27): M/G/1 with the classes (rate, service).
        let mut we = Vec::new();
        let mut ne = Vec::new();
        let mut ns = Vec::new();
        let mut ws = Vec::new();
        for j in 1..=kk {
            we.push((fly[kk][j], ux(kk + 1, j)));
            for i in 2..=kk {
                we.push((fx * fly[i - 1][j], ux(i, j)));
            }
        }
        we.push((b * inv_tau, ubx(kk)));
        we.push((a * fx * inv_tau, ux(1, 1)));
        for j in 1..kk {
            ne.push((flx[kk + 1][j], ux(kk + 1, j + 1)));
            for i in 1..=kk {
                ne.push((fx * flx[i][j], ux(i, j + 1)));
            }
            ne.push((b * inv_tau, ubx(j)));
        }
        ne.push((a * fx * inv_tau, ux(1, 1)));
        for i in 1..=kk {
            ns.push((flx[i][kk], uy(i, kk + 1)));
            for j in 1..kk {
                ns.push((fy * flx[i][j], uy(i, j + 1)));
            }
        }
        ns.push((b * inv_tau, uby(kk)));
        ns.push((a * fy * inv_tau, uy(1, 1)));
        for i in 1..kk {
            ws.push((fly[i][kk + 1], uy(i + 1, kk + 1)));
            for j in 1..=kk {
                ws.push((fy * fly[i][j], uy(i + 1, j)));
            }
        }
        for i in 1..=kk {
            ws.push((b * inv_tau, uby(i)));
        }
        ws.push((a * fy * inv_tau, uy(1, 1)));
        let mut new_w = [0.0; 4];
        for (slot, classes) in new_w.iter_mut().zip([&we, &ne, &ns, &ws]) {
            let rho: f64 = 2.0 * classes.iter().map(|(r, t)| r * t).sum::<f64>();
            if rho >= 1.0 {
                return Err(Unsolved::Saturated);
            }
            let s2: f64 = classes.iter().map(|(r, t)| r * 2.0 * t * t).sum();
            *slot = s2 / (1.0 - rho);
        }
        // Contention probabilities, eqs. (43)-(44).
        let mut new_px = 0.0;
        let mut new_py = 0.0;
        for i in 1..=kk + 1 {
            for j in 1..=kk + 1 {
                if j <= kk {
                    new_px += 2.0 * flx[i][j] * ux(i, j);
                }
                if i <= kk {
                    new_py += 2.0 * fly[i][j] * uy(i, j);
                }
            }
        }
        for j in 1..=kk {
            new_px += 2.0 * b * inv_tau * ubx(j);
            new_py += 2.0 * b * inv_tau * uby(j);
        }
        if new_px >= 1.0 || new_py >= 1.0 {
            return Err(Unsolved::Saturated);
        }
        let change = (new_px - px).abs()
            + (new_py - py).abs()
            + new_w
                .iter()
                .zip(&w)
                .map(|(x, y)| (x - y).abs())
                .sum::<f64>();
        px += DAMP * (new_px - px);
        py += DAMP * (new_py - py);
        for (old, new) in w.iter_mut().zip(new_w) {
            *old += DAMP * (new - *old);
        }
        if change < 1e-12 {
            // Eqs. (45)-(46) with the settled values.
            let [w_we, w_ne, w_ns, w_ws] = w;
            let both = if w_we + w_ne < w_ns + w_ws {
                w_we + w_ne + tx[1][1]
            } else {
                w_ns + w_ws + ty[1][1]
            };
            let t_alpha = (1.0 - px) * tx[1][1] + px * (1.0 - py) * ty[1][1] + px * py * both;
            let latency = a * t_alpha + b * (bx[kk] + w_we + w_ne) + b * (by[kk] + w_ns + w_ws);
            return Ok(Solution {
                latency,
                p_x: px,
                p_y: py,
                waits: w,
                iterations: it,
            });
        }
    }
    Err(Unsolved::NoConvergence)
}

/// Message length of Tables 1 and 2, flits.
pub const TABLE_LENGTH: f64 = 12.0;

/// The generation rates of Tables 1 and 2, messages per cycle per node.
pub const RATES: [f64; 12] = [
    0.001, 0.002, 0.003, 0.004, 0.005, 0.006, 0.007, 0.008, 0.009, 0.010, 0.011, 0.015,
];

/// One row of Tables 1 and 2 as printed: rate, simulation, model.
pub type Row = (f64, f64, f64);

/// Tables 1 (4x4, 8x8) and 2 (12x12, 16x16) as printed, per torus side:
/// (rate, simulation, model); the 16x16 column stops at 0.007.
pub const TABLES: [(u32, &[Row]); 4] = [
    (
        4,
        &[
            (0.001, 13.43, 13.65),
            (0.002, 13.58, 13.70),
            (0.003, 13.68, 13.75),
            (0.004, 13.89, 13.81),
            (0.005, 14.14, 13.87),
            (0.006, 14.32, 13.93),
            (0.007, 14.53, 13.98),
            (0.008, 14.73, 14.04),
            (0.009, 14.89, 14.10),
            (0.010, 15.06, 14.17),
            (0.011, 15.29, 14.23),
            (0.015, 16.10, 14.50),
        ],
    ),
    (
        8,
        &[
            (0.001, 15.55, 15.73),
            (0.002, 15.96, 15.92),
            (0.003, 16.27, 16.11),
            (0.004, 16.81, 16.31),
            (0.005, 17.10, 16.51),
            (0.006, 17.66, 16.72),
            (0.007, 18.15, 16.94),
            (0.008, 18.65, 17.18),
            (0.009, 19.14, 17.42),
            (0.010, 19.52, 17.69),
            (0.011, 20.12, 17.97),
            (0.015, 22.18, 19.39),
        ],
    ),
    (
        12,
        &[
            (0.001, 17.79, 17.90),
            (0.002, 18.43, 18.31),
            (0.003, 19.09, 18.76),
            (0.004, 19.88, 19.27),
            (0.005, 20.73, 19.87),
            (0.006, 21.33, 20.58),
            (0.007, 22.15, 21.40),
            (0.008, 22.65, 22.52),
            (0.009, 23.25, 24.20),
        ],
    ),
    (
        16,
        &[
            (0.001, 20.07, 20.05),
            (0.002, 20.99, 20.65),
            (0.003, 21.85, 21.37),
            (0.004, 22.82, 22.27),
            (0.005, 23.99, 23.47),
            (0.006, 25.06, 25.34),
            (0.007, 26.27, 29.28),
        ],
    ),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shares_cover_all_destinations() {
        for k in [4, 8, 12, 16] {
            assert!((alpha(k) + 2.0 * beta(k) - 1.0).abs() < 1e-12);
        }
    }

    #[test]
    fn latency_tends_to_the_zero_load_value() {
        for k in [4, 8, 16] {
            let s = solve(k, 12.0, 1e-7).unwrap();
            let z = zero_load_latency(k, 12.0);
            assert!((s.latency - z).abs() < 1e-3, "{k}: {} vs {z}", s.latency);
        }
    }

    #[test]
    fn latency_grows_with_load_until_saturation() {
        let mut last = 0.0;
        for r in RATES {
            match solve(8, 12.0, r) {
                Ok(s) => {
                    assert!(s.latency > last, "{r}");
                    last = s.latency;
                }
                Err(e) => panic!("8x8 saturated at {r}: {e:?}"),
            }
        }
        assert_eq!(solve(8, 12.0, 0.2), Err(Unsolved::Saturated));
    }

    #[test]
    fn sides_must_be_multiples_of_four() {
        assert!(check_side(6).unwrap_err().contains("multiple of 4"));
        assert_eq!(check_side(12), Ok(3));
    }
}
