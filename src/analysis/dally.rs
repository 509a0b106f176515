//! Dally's analytic model of unidirectional k-ary n-cubes under constant
//! wire bisection (W. J. Dally, "Performance Analysis of k-ary n-cube
//! Interconnection Networks", IEEE ToC 1990).
//!
//! Every function names the equation it evaluates. Lengths are in bits,
//! times in channel cycles T_c, traffic `lambda` in bits per cycle per node
//! (the horizontal axis of Figures 14-17). The radix may be non-integer,
//! as in Figures 8-10 (footnote 2 of the paper).

use serde::Serialize;

/// A k-ary n-cube: `radix` k nodes in each of `dims` n dimensions.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Cube {
    /// Nodes per dimension, k (may be non-integer for Figures 8-10).
    pub radix: f64,
    /// Dimensions, n.
    pub dims: u32,
}

impl Cube {
    /// The cube of `nodes` nodes in `dims` dimensions: k = N^(1/n), eq. (1).
    pub fn with_nodes(nodes: f64, dims: u32) -> Cube {
        Cube {
            radix: nodes.powf(1.0 / f64::from(dims)),
            dims,
        }
    }

    /// N = k^n, eq. (1).
    pub fn nodes(&self) -> f64 {
        self.radix.powi(self.dims as i32)
    }

    /// "k-ary n-cube", as the paper names it (binary for k = 2).
    pub fn name(&self) -> String {
        if self.radix == 2.0 {
            format!("binary {}-cube", self.dims)
        } else {
            format!("{}-ary {}-cube", self.radix, self.dims)
        }
    }

    fn n(&self) -> f64 {
        f64::from(self.dims)
    }
}

/// Channel width W(k, n) = k/2 bits: the width at which a k-ary n-cube has
/// the bisection B = N of a bit-serial binary n-cube, eqs. (6)-(7).
pub fn channel_width(radix: f64) -> f64 {
    radix / 2.0
}

/// Bisection width B(k, n) = 2WN/k wires, eq. (6).
pub fn bisection(cube: Cube, width: f64) -> f64 {
    2.0 * width * cube.nodes() / cube.radix
}

/// Pins per node N_p = nk under constant bisection, eq. (9).
pub fn pins(cube: Cube) -> f64 {
    cube.n() * cube.radix
}

/// Average distance D = n(k-1)/2 channels between random nodes, eq. (11).
pub fn average_distance(cube: Cube) -> f64 {
    cube.n() * (cube.radix - 1.0) / 2.0
}

/// Message aspect ratio L/W = 2L/k cycles, eq. (7) in eq. (3).
pub fn aspect_ratio(cube: Cube, length: f64) -> f64 {
    length / channel_width(cube.radix)
}

/// Zero-load network latency T_net = D + 2L/k, in channel cycles, eq. (12).
pub fn zero_load_latency(cube: Cube, length: f64) -> f64 {
    average_distance(cube) + aspect_ratio(cube, length)
}

/// How the channel cycle T_c grows with wire length (§II-C, §III-A).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum WireDelay {
    /// T_c independent of length (Fig. 8).
    Constant,
    /// T_c proportional to 1 + ln l (Fig. 9).
    Logarithmic,
    /// T_c proportional to l (Fig. 10).
    Linear,
}

impl WireDelay {
    /// The three models in the paper's order.
    pub const ALL: [WireDelay; 3] = [
        WireDelay::Constant,
        WireDelay::Logarithmic,
        WireDelay::Linear,
    ];

    /// The model's name.
    pub fn name(self) -> &'static str {
        match self {
            WireDelay::Constant => "constant",
            WireDelay::Logarithmic => "logarithmic",
            WireDelay::Linear => "linear",
        }
    }
}

/// Longest wire l = k^(n/2 - 1) of the folded planar embedding, eq. (16).
pub fn longest_wire(cube: Cube) -> f64 {
    cube.radix.powf(cube.n() / 2.0 - 1.0)
}

/// Relative channel cycle T_c for a wire-delay model, eq. (17).
pub fn channel_cycle(cube: Cube, delay: WireDelay) -> f64 {
    match delay {
        WireDelay::Constant => 1.0,
        WireDelay::Logarithmic => 1.0 + (cube.n() / 2.0 - 1.0) * cube.radix.ln(),
        WireDelay::Linear => longest_wire(cube),
    }
}

/// Zero-load latency scaled by the wire-delay model, eqs. (12) and (18).
pub fn wire_latency(cube: Cube, length: f64, delay: WireDelay) -> f64 {
    channel_cycle(cube, delay) * zero_load_latency(cube, length)
}

/// The dimension n (2 to log2 N) of least [`wire_latency`] among the cubes
/// of `nodes` nodes, with non-integer radix (Figs. 8-10).
pub fn best_dimension(nodes: f64, length: f64, delay: WireDelay) -> u32 {
    let top = nodes.log2().round() as u32;
    (2..=top.max(2))
        .min_by(|&a, &b| {
            let la = wire_latency(Cube::with_nodes(nodes, a), length, delay);
            let lb = wire_latency(Cube::with_nodes(nodes, b), length, delay);
            la.total_cmp(&lb)
        })
        .unwrap_or(2)
}

/// Whether a node holds messages that are blocked (§III-B).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Queueing {
    /// No queuing: blocked messages hold their channels, eqs. (22)-(24);
    /// the case of Table I and Figures 14-17.
    None,
    /// Sufficient queuing at each node: service times do not grow,
    /// eqs. (25)-(26).
    Sufficient,
}

/// The service time T_n seen by a message entering the network at its
/// source under uniform Poisson traffic of `lambda` bits/cycle/node,
/// computed back from the sink's T_0 = L/W one dimension at a time
/// (eqs. 21-26). `None` when eq. (23) has no steady state
/// (1 - 2 lambda_C T_i < 0): the network is saturated.
pub fn source_service_time(cube: Cube, length: f64, lambda: f64, q: Queueing) -> Option<f64> {
    let k = cube.radix;
    let gamma = 1.0 / k; // probability of skipping a dimension, eq. (21)
    let lambda_e = lambda / length; // messages per cycle
    let lambda_r = (1.0 - gamma) * lambda_e;
    let sigma = (k - 2.0) / 2.0; // continuing channels per routed dimension
    let lambda_c = sigma * lambda_r;
    let t0 = aspect_ratio(cube, length);
    let mut t = t0;
    for _ in 0..cube.dims {
        t = match q {
            Queueing::None => {
                // eq. (23): the smaller root of T_i0 = T_i + lambda_C T_i0^2 / 2.
                let ti0 = if lambda_c > 0.0 {
                    let disc = 1.0 - 2.0 * lambda_c * t;
                    if disc < 0.0 {
                        return None;
                    }
                    // The same root, written without cancellation at low load.
                    2.0 * t / (1.0 + disc.sqrt())
                } else {
                    t
                };
                let tr = ti0 * (1.0 + lambda_c * ti0 / 2.0) - t; // eq. (24)
                t + (1.0 - gamma) * tr // eq. (22)
                    + gamma * (1.0 - gamma).powi(3) * lambda_e * (t + tr).powi(2)
                    + gamma.powi(3) * (1.0 - gamma) * lambda_e * t * t
            }
            Queueing::Sufficient => {
                let x = lambda_c * t0 / 2.0;
                if x >= 1.0 {
                    return None;
                }
                let tr = t / (1.0 - x) * (1.0 + x) - t; // eq. (25)
                t + (1.0 - gamma) * tr // eq. (26)
                    + (gamma * (1.0 - gamma).powi(3) + gamma.powi(3) * (1.0 - gamma))
                        * lambda_e
                        * t0
            }
        };
        if !t.is_finite() {
            return None;
        }
    }
    Some(t)
}

/// Network latency under load: D + T_n, in cycles (eqs. 11 and 22-26);
/// at lambda = 0 it is eq. (12). `None` past saturation.
pub fn latency(cube: Cube, length: f64, lambda: f64, q: Queueing) -> Option<f64> {
    source_service_time(cube, length, lambda, q).map(|t| average_distance(cube) + t)
}

/// Maximum throughput in bits/cycle/node, which is also the fraction of
/// the capacity Gamma ~ 1 of eq. (20): the largest lambda for which the
/// source service time T_n of eqs. (22)-(24) does not exceed the time
/// between messages 1/lambda_E = L/lambda (§III-B), or eq. (23) still
/// has a steady state. Found by bisection to 1e-9.
pub fn max_throughput(cube: Cube, length: f64) -> f64 {
    let ok = |lambda: f64| {
        source_service_time(cube, length, lambda, Queueing::None)
            .is_some_and(|t| t * lambda <= length)
    };
    let (mut lo, mut hi) = (0.0, 4.0);
    while hi - lo > 1e-9 {
        let mid = (lo + hi) / 2.0;
        if ok(mid) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    lo
}

/// Hot-spot throughput Theta_HS = W = k/2 bits/cycle under constant
/// bisection: one channel's bandwidth (§III-C, with W from eq. 7).
/// Eq. (27) as printed reads "W = k - 1"; see [`hot_spot_as_printed`].
pub fn hot_spot_throughput(cube: Cube) -> f64 {
    channel_width(cube.radix)
}

/// Eq. (27) as printed: Theta_HS = k - 1, which disagrees with W = k/2 of
/// eq. (7) except at k = 2.
pub fn hot_spot_as_printed(cube: Cube) -> f64 {
    cube.radix - 1.0
}

/// Message length of Table I and Figures 14-17, bits.
pub const TABLE_I_LENGTH: f64 = 200.0;

/// Message length of Figures 8-10, bits.
pub const FIGURE_8_LENGTH: f64 = 150.0;

/// The loads of Table I, bits/cycle/node.
pub const TABLE_I_LOADS: [f64; 3] = [0.1, 0.2, 0.3];

/// One column of Table I as printed: nodes, dimension, radix, maximum
/// throughput, latency at lambda = 0.1, 0.2, 0.3.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct TableIColumn {
    /// N.
    pub nodes: u32,
    /// n.
    pub dims: u32,
    /// k.
    pub radix: u32,
    /// Maximum throughput as a fraction of capacity.
    pub max_throughput: f64,
    /// Latency in cycles at lambda = 0.1, 0.2, 0.3.
    pub latency: [f64; 3],
}

impl TableIColumn {
    /// The cube of the column.
    pub fn cube(&self) -> Cube {
        Cube {
            radix: f64::from(self.radix),
            dims: self.dims,
        }
    }
}

/// Table I as printed (the tests compare against the paper's text).
pub const TABLE_I: [TableIColumn; 8] = [
    col(1024, 2, 32, 0.36, [46.1, 50.5, 59.3]),
    col(1024, 5, 4, 0.41, [128.0, 161.0, 221.0]),
    col(1024, 10, 2, 0.43, [233.0, 269.0, 317.0]),
    col(4096, 2, 64, 0.35, [70.7, 73.1, 78.6]),
    col(4096, 3, 16, 0.31, [55.2, 70.3, 135.0]),
    col(4096, 4, 8, 0.31, [79.9, 112.0, 245.0]),
    col(4096, 6, 4, 0.36, [135.0, 181.0, 287.0]),
    col(4096, 12, 2, 0.41, [241.0, 288.0, 357.0]),
];

const fn col(nodes: u32, dims: u32, radix: u32, thr: f64, latency: [f64; 3]) -> TableIColumn {
    TableIColumn {
        nodes,
        dims,
        radix,
        max_throughput: thr,
        latency,
    }
}

/// The unit of the last printed digit of a Table I value (three
/// significant figures: 0.1 below 100, 1 above; 0.01 for throughput).
pub fn printed_unit(value: f64) -> f64 {
    if value < 1.0 {
        0.01
    } else if value < 100.0 {
        0.1
    } else {
        1.0
    }
}

/// The networks of Figure 14 (1K nodes) and Figure 15 (4K nodes).
pub fn figure_networks(nodes: u32) -> Vec<Cube> {
    TABLE_I
        .iter()
        .filter(|c| c.nodes == nodes)
        .map(TableIColumn::cube)
        .collect()
}

/// The dimensions of least latency the paper states for 256, 16K and 1M
/// nodes, L = 150 (§III-A): constant delay 2, 4, 5; logarithmic 2, 3, 5;
/// linear 2 always.
pub const BEST_DIMENSIONS: [(WireDelay, [u32; 3]); 3] = [
    (WireDelay::Constant, [2, 4, 5]),
    (WireDelay::Logarithmic, [2, 3, 5]),
    (WireDelay::Linear, [2, 2, 2]),
];

/// The node counts of Figures 7-10: 256, 16K, 1M.
pub const FIGURE_8_NODES: [f64; 3] = [256.0, 16_384.0, 1_048_576.0];

#[cfg(test)]
mod tests {
    use super::*;

    fn cube(k: f64, n: u32) -> Cube {
        Cube { radix: k, dims: n }
    }

    #[test]
    fn zero_load_is_the_limit_of_the_loaded_model() {
        for c in figure_networks(1024) {
            let z = zero_load_latency(c, 200.0);
            let l = latency(c, 200.0, 1e-9, Queueing::None).unwrap();
            assert!((l - z).abs() < 1e-4, "{} {z} {l}", c.name());
        }
    }

    #[test]
    fn binary_cubes_route_without_continuing_channels() {
        // §III-B: for k = 2, T_Ri = 0 and T_{i+1} = T_i + lambda_E T_i^2 / 8.
        let c = cube(2.0, 1);
        let lambda = 0.2;
        let t0: f64 = 200.0;
        let expect = t0 + lambda / 200.0 * t0 * t0 / 8.0;
        let got = source_service_time(c, 200.0, lambda, Queueing::None).unwrap();
        assert!((got - expect).abs() < 1e-9, "{got} {expect}");
    }

    #[test]
    fn queuing_never_raises_latency() {
        for c in figure_networks(4096) {
            for l in [0.05, 0.1, 0.2] {
                let none = latency(c, 200.0, l, Queueing::None).unwrap();
                let q = latency(c, 200.0, l, Queueing::Sufficient).unwrap();
                assert!(q <= none + 1e-9, "{} at {l}: {q} > {none}", c.name());
            }
        }
    }

    #[test]
    fn bisection_is_constant_under_eq_7() {
        for c in figure_networks(4096) {
            let b = bisection(c, channel_width(c.radix));
            assert!((b - 4096.0).abs() < 1e-6, "{}: {b}", c.name());
        }
    }
}
