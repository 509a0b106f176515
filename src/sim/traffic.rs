//! Traffic: where packets go (the destination patterns), how long they are,
//! and when they are created (Bernoulli or exponential inter-arrival at a
//! load normalized to the bisection-limited rate, LAPSES §2.2). Everything
//! here depends on the seed and the cycle only, never on the network's
//! state, so every engine sees the same stimulus.

use std::fmt;
use std::str::FromStr;

use crate::algo::{Network, NodeId};
use crate::blocks::cosim::SplitMix64;
use crate::error::{Error, Result};
use crate::spec::names::named_enum;
use crate::spec::Topology;

/// Destination patterns.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Pattern {
    /// Every other node equally likely.
    Uniform,
    /// Mesh and torus: the coordinates in reverse order ((x,y) -> (y,x));
    /// hypercube: the two halves of the address swapped.
    Transpose,
    /// The address bits reversed (N a power of two).
    BitReversal,
    /// The address bits rotated left by one (N a power of two).
    Shuffle,
    /// With probability `fraction` the hot node, otherwise uniform.
    HotSpot {
        /// Probability, 0 to 1, that a packet goes to the hot node.
        fraction: f64,
        /// The hot node.
        node: NodeId,
    },
    /// One of the node's neighbours, equally likely.
    Neighbour,
}

impl fmt::Display for Pattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Pattern::Uniform => f.write_str("uniform"),
            Pattern::Transpose => f.write_str("transpose"),
            Pattern::BitReversal => f.write_str("bit-reversal"),
            Pattern::Shuffle => f.write_str("shuffle"),
            Pattern::HotSpot { fraction, node } => write!(f, "hot-spot:{fraction}:{node}"),
            Pattern::Neighbour => f.write_str("neighbour"),
        }
    }
}

/// Pattern names accepted on the command line.
pub const PATTERNS: &str =
    "uniform, transpose, bit-reversal, shuffle, neighbour, hot-spot:FRACTION:NODE";

impl FromStr for Pattern {
    type Err = Error;
    fn from_str(s: &str) -> Result<Pattern> {
        let bad = || {
            Error::InvalidSpec(format!(
                "unknown traffic pattern '{s}'; allowed: {PATTERNS} (FRACTION in [0, 1], NODE \
                 a node number)"
            ))
        };
        Ok(match s {
            "uniform" => Pattern::Uniform,
            "transpose" => Pattern::Transpose,
            "bit-reversal" => Pattern::BitReversal,
            "shuffle" => Pattern::Shuffle,
            "neighbour" | "neighbor" => Pattern::Neighbour,
            _ => {
                let rest = s.strip_prefix("hot-spot:").ok_or_else(bad)?;
                let (f, n) = rest.split_once(':').ok_or_else(bad)?;
                let fraction: f64 = f.parse().map_err(|_| bad())?;
                let node: NodeId = n.parse().map_err(|_| bad())?;
                if !(0.0..=1.0).contains(&fraction) {
                    return Err(bad());
                }
                Pattern::HotSpot { fraction, node }
            }
        })
    }
}

impl Pattern {
    /// Whether the pattern is defined on `net`; the error says why not.
    pub fn check(&self, net: &Network) -> Result<()> {
        let n = net.nodes();
        let bits = n.trailing_zeros();
        let pow2 = n.is_power_of_two();
        match self {
            Pattern::BitReversal | Pattern::Shuffle if !pow2 => Err(Error::InvalidSpec(format!(
                "traffic '{self}' needs a power-of-two number of nodes; this network has {n}"
            ))),
            Pattern::Transpose if net.topology == Topology::Hypercube && bits % 2 == 1 => {
                Err(Error::InvalidSpec(format!(
                    "traffic 'transpose' on a hypercube needs an even dimension count; this \
                     one has {bits}"
                )))
            }
            Pattern::HotSpot { node, .. } if *node >= n => Err(Error::InvalidSpec(format!(
                "hot-spot node {node} does not exist; nodes are 0 to {}",
                n - 1
            ))),
            _ => Ok(()),
        }
    }

    /// The destination of a packet from `src`, or `None` when the pattern
    /// sends `src` nothing (a fixed point of a permutation).
    pub fn dest(&self, net: &Network, src: NodeId, rng: &mut SplitMix64) -> Option<NodeId> {
        let n = net.nodes();
        let bits = n.trailing_zeros();
        let uniform = |rng: &mut SplitMix64| {
            let d = (rng.next_u64() % u64::from(n - 1)) as NodeId;
            if d >= src {
                d + 1
            } else {
                d
            }
        };
        let d = match self {
            Pattern::Uniform => uniform(rng),
            Pattern::HotSpot { fraction, node } => {
                if rng.chance(*fraction) {
                    *node
                } else {
                    uniform(rng)
                }
            }
            Pattern::Transpose if net.topology == Topology::Hypercube => {
                let h = bits / 2;
                let mask = (1 << h) - 1;
                ((src & mask) << h) | (src >> h)
            }
            Pattern::Transpose => {
                let mut c = net.coords(src);
                c.reverse();
                net.node_at(&c)
            }
            Pattern::BitReversal => src.reverse_bits() >> (32 - bits),
            Pattern::Shuffle => ((src << 1) | (src >> (bits - 1))) & (n - 1),
            Pattern::Neighbour => {
                let links = net.links(src);
                let p = links[(rng.next_u64() % links.len() as u64) as usize];
                net.neighbour(src, p).expect("an existing link")
            }
        };
        (d != src).then_some(d)
    }
}

/// Packet lengths in flits.
#[derive(Debug, Clone, PartialEq)]
pub enum Length {
    /// Every packet this long.
    Fixed(u32),
    /// Uniform over `lo..=hi`.
    Uniform(u32, u32),
    /// `(length, weight)` pairs, drawn in proportion to the weights.
    Mix(Vec<(u32, f64)>),
}

impl FromStr for Length {
    type Err = Error;
    fn from_str(s: &str) -> Result<Length> {
        let bad = || {
            Error::InvalidSpec(format!(
                "bad message length '{s}'; allowed: L (fixed), LO..HI (uniform), or \
                 L:WEIGHT,L:WEIGHT,... (a mix), lengths from 1 flit"
            ))
        };
        let num = |t: &str| -> Result<u32> {
            match t.trim().parse::<u32>() {
                Ok(x) if x >= 1 => Ok(x),
                _ => Err(bad()),
            }
        };
        if let Some((a, b)) = s.split_once("..") {
            let (lo, hi) = (num(a)?, num(b)?);
            if lo > hi {
                return Err(bad());
            }
            return Ok(Length::Uniform(lo, hi));
        }
        if s.contains(':') {
            let mut mix = Vec::new();
            for part in s.split(',') {
                let (l, w) = part.split_once(':').ok_or_else(bad)?;
                let w: f64 = w.trim().parse().map_err(|_| bad())?;
                if !(w > 0.0 && w.is_finite()) {
                    return Err(bad());
                }
                mix.push((num(l)?, w));
            }
            return Ok(Length::Mix(mix));
        }
        Ok(Length::Fixed(num(s)?))
    }
}

impl fmt::Display for Length {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Length::Fixed(l) => write!(f, "{l}"),
            Length::Uniform(a, b) => write!(f, "{a}..{b}"),
            Length::Mix(m) => {
                let parts: Vec<String> = m.iter().map(|(l, w)| format!("{l}:{w}")).collect();
                f.write_str(&parts.join(","))
            }
        }
    }
}

impl Length {
    /// Mean length in flits.
    pub fn mean(&self) -> f64 {
        match self {
            Length::Fixed(l) => f64::from(*l),
            Length::Uniform(a, b) => f64::from(a + b) / 2.0,
            Length::Mix(m) => {
                let w: f64 = m.iter().map(|x| x.1).sum();
                m.iter().map(|&(l, x)| f64::from(l) * x).sum::<f64>() / w
            }
        }
    }

    /// Longest length in flits.
    pub fn max(&self) -> u32 {
        match self {
            Length::Fixed(l) => *l,
            Length::Uniform(_, b) => *b,
            Length::Mix(m) => m.iter().map(|x| x.0).max().unwrap_or(1),
        }
    }

    /// One length in flits, drawn from `rng`.
    pub fn draw(&self, rng: &mut SplitMix64) -> u32 {
        match self {
            Length::Fixed(l) => *l,
            Length::Uniform(a, b) => a + (rng.next_u64() % u64::from(b - a + 1)) as u32,
            Length::Mix(m) => {
                let total: f64 = m.iter().map(|x| x.1).sum();
                let mut x = unit(rng) * total;
                for &(l, w) in m {
                    if x < w {
                        return l;
                    }
                    x -= w;
                }
                m.last().map_or(1, |x| x.0)
            }
        }
    }
}

/// Uniform in [0, 1).
fn unit(rng: &mut SplitMix64) -> f64 {
    (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64
}

named_enum!(
    /// When packets are created at a node.
    Injection, "injection process", {
        /// Each cycle a packet with probability rate / mean length.
        Bernoulli => "bernoulli" [],
        /// Exponential inter-arrival times of mean length / rate cycles.
        Exponential => "exponential" [],
    }
);

/// Bisection channels of `net`, one direction: the links a cut through
/// the middle of the highest dimension crosses (k^(n-1) on a mesh and a
/// unidirectional torus, twice that on a torus with its wraparound links,
/// N/2 on a hypercube).
pub fn bisection_channels(net: &Network) -> f64 {
    let n = f64::from(net.nodes());
    match net.topology {
        Topology::Hypercube => n / 2.0,
        Topology::Mesh => n / f64::from(net.radix),
        Topology::Torus => 2.0 * n / f64::from(net.radix),
        // One link per ring crosses the cut each way: the middle one toward
        // the far half, the wraparound one back.
        Topology::UniTorus => n / f64::from(net.radix),
    }
}

/// The injection rate in flits per node per cycle at which uniform
/// traffic fills the bisection (LAPSES §2.2: normalized load is the
/// injection rate over this rate). Under uniform traffic a fraction
/// (N/2)/(N-1) of each side's packets cross, and each side's N/2 nodes
/// share the B bisection channels leaving it: (N/2) r (N/2)/(N-1) = B.
/// Capped at one flit per cycle, the rate of a local port.
pub fn bisection_rate(net: &Network) -> f64 {
    let n = f64::from(net.nodes());
    let b = bisection_channels(net);
    (b * 4.0 * (n - 1.0) / (n * n)).min(1.0)
}

/// The packet creation process of one node.
#[derive(Debug, Clone)]
pub struct Source {
    rng: SplitMix64,
    /// Packets per cycle.
    rate: f64,
    injection: Injection,
    /// Exponential: the (fractional) time of the next packet.
    next: f64,
}

impl Source {
    /// The source of `node` for `seed`, creating packets at `flit_rate`
    /// flits per cycle of `mean_len`-flit packets.
    pub fn new(
        seed: u64,
        node: NodeId,
        flit_rate: f64,
        mean_len: f64,
        injection: Injection,
    ) -> Self {
        let mut rng =
            SplitMix64::new(seed ^ (u64::from(node) + 1).wrapping_mul(0xA24B_AED4_963E_E407));
        let rate = flit_rate / mean_len;
        let next = exp_gap(&mut rng, rate);
        Source {
            rng,
            rate,
            injection,
            next,
        }
    }

    /// How many packets the node creates in `cycle`, and the generator for
    /// their destinations and lengths.
    pub fn tick(&mut self, cycle: u64) -> (usize, &mut SplitMix64) {
        let mut k = 0;
        match self.injection {
            Injection::Bernoulli => {
                if self.rate > 0.0 && unit(&mut self.rng) < self.rate {
                    k = 1;
                }
            }
            Injection::Exponential => {
                while self.next < (cycle + 1) as f64 {
                    k += 1;
                    self.next += exp_gap(&mut self.rng, self.rate);
                }
            }
        }
        (k, &mut self.rng)
    }
}

fn exp_gap(rng: &mut SplitMix64, rate: f64) -> f64 {
    if rate <= 0.0 {
        return f64::INFINITY;
    }
    -(1.0 - unit(rng)).ln() / rate
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mesh(k: u32) -> Network {
        Network::new(Topology::Mesh, 2, k).unwrap()
    }

    #[test]
    fn permutations_follow_their_definitions() {
        let net = mesh(4);
        let mut rng = SplitMix64::new(1);
        // (x,y) = (1,2) is node 1 + 2*4 = 9; transposed (2,1) = 6.
        assert_eq!(Pattern::Transpose.dest(&net, 9, &mut rng), Some(6));
        // 16 nodes, 4 bits: 0b0001 reversed is 0b1000; shuffled 0b0010.
        assert_eq!(Pattern::BitReversal.dest(&net, 1, &mut rng), Some(8));
        assert_eq!(Pattern::Shuffle.dest(&net, 1, &mut rng), Some(2));
        assert_eq!(Pattern::Shuffle.dest(&net, 0b1001, &mut rng), Some(0b0011));
        assert_eq!(Pattern::Transpose.dest(&net, 5, &mut rng), None);
        for _ in 0..200 {
            let d = Pattern::Neighbour.dest(&net, 5, &mut rng).unwrap();
            assert_eq!(net.distance(5, d), 1);
            let u = Pattern::Uniform.dest(&net, 5, &mut rng).unwrap();
            assert!(u < 16 && u != 5);
        }
    }

    #[test]
    fn hot_spot_fraction_is_respected() {
        let net = mesh(4);
        let mut rng = SplitMix64::new(7);
        let p: Pattern = "hot-spot:0.3:10".parse().unwrap();
        let hits = (0..20000)
            .filter(|_| p.dest(&net, 0, &mut rng) == Some(10))
            .count();
        // 0.3 + 0.7/15 expected.
        let expect = 0.3 + 0.7 / 15.0;
        assert!((hits as f64 / 20000.0 - expect).abs() < 0.015, "{hits}");
    }

    #[test]
    fn bad_patterns_and_lengths_are_refused() {
        assert!("zigzag".parse::<Pattern>().is_err());
        assert!("hot-spot:1.5:0".parse::<Pattern>().is_err());
        assert!("0".parse::<Length>().is_err());
        assert!("9..3".parse::<Length>().is_err());
        assert_eq!("4..8".parse::<Length>().unwrap(), Length::Uniform(4, 8));
        let net = Network::new(Topology::Mesh, 2, 3).unwrap();
        assert!(Pattern::BitReversal.check(&net).is_err());
    }

    #[test]
    fn bisection_rate_of_a_mesh_is_four_over_k() {
        // k x k mesh: B = k, N = k^2: 4 k (N-1)/N^2, about 4/k.
        let net = mesh(8);
        let r = bisection_rate(&net);
        assert!((r - 4.0 * 8.0 * 63.0 / 4096.0).abs() < 1e-12);
    }

    #[test]
    fn injection_processes_meet_the_rate() {
        for inj in [Injection::Bernoulli, Injection::Exponential] {
            let mut s = Source::new(3, 0, 0.2, 4.0, inj);
            let made: usize = (0..100_000).map(|c| s.tick(c).0).sum();
            let expect = 0.05 * 100_000.0;
            assert!(
                (made as f64 - expect).abs() < 0.05 * expect,
                "{inj}: {made}"
            );
        }
    }
}
