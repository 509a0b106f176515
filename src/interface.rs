//! The generated router's external interface, docs/interface.md as code.
//!
//! Every fact a neighbour, a testbench or a network interface needs to
//! talk to a router routergen builds lives here once: how ports are
//! numbered, what `node_id` holds, how a head flit names its destination
//! (one torus-tie rule), which ports the top module has, and on which
//! VCs a flit can arrive at a port. The router's tables, the emitted
//! testbenches, the simulators and their network interfaces all ask this
//! module; the RTL's own tests keep oracles of their own.
//!
//! ```
//! use routergen::algo::{Dir, Network, Port};
//! use routergen::interface::{port_at, port_number, HeadFormat};
//! use routergen::spec::{Addressing, Topology};
//!
//! let net = Network::new(Topology::Torus, 2, 4).unwrap();
//! // Port 3 is the link toward +y (2d+1 with d = 1).
//! assert_eq!(port_at(&net, 0, 3), Port::link(1, Dir::Plus));
//! assert_eq!(port_number(Topology::Torus, Port::link(1, Dir::Plus)), 3);
//! // A 4-ary ring: the destination 2 hops away either way is written +2.
//! let head = HeadFormat::new(Topology::Torus, 2, 4, Addressing::Relative);
//! assert_eq!(head.offset(0, 2), 2);
//! assert_eq!(head.offset(3, 0), 1);
//! ```

pub use crate::algo::numbering::{
    arrival_inputs, deciding_inputs, entry_port, es_digits, es_entry, far_port, in_port_at,
    input_through, port_at, port_number,
};
use crate::algo::{Network, NodeId};
use crate::spec::{Addressing, RouterSpec, Topology};

/// Bits needed to hold every value in `0..=max` (at least 1).
pub fn bits_for(max: u32) -> u32 {
    (32 - max.leading_zeros()).max(1)
}

/// Bits needed to number `count` things, `max(1, ceil(log2 count))`.
pub fn index_bits(count: u32) -> u32 {
    bits_for(count.saturating_sub(1))
}

/// Width of the `*_vc` ports: `VB = max(1, ceil(log2 V))`.
pub fn vc_bits(vcs: u32) -> u32 {
    index_bits(vcs)
}

/// Physical ports of one router, the local port included: `2n + 1` on
/// meshes and tori, `n + 1` on a hypercube and a unidirectional torus.
pub fn physical_ports(topology: Topology, dims: u32) -> u32 {
    topology.links_per_dim() * dims + 1
}

/// Bits of one coordinate of `node_id` (and of an absolute address
/// field): `ceil(log2 k)`, one on a hypercube.
pub fn coord_bits(topology: Topology, radix: u32) -> u32 {
    match topology {
        Topology::Hypercube => 1,
        _ => bits_for(radix.saturating_sub(1)),
    }
}

/// The `node_id` value of the router at `node`: its coordinates, each
/// `coord_bits` wide, dimension 0 in the low field.
pub fn node_id(net: &Network, coord_bits: u32, node: NodeId) -> u64 {
    (0..net.n())
        .map(|d| u64::from(net.coord(node, d)) << (coord_bits as usize * d))
        .sum()
}

/// The head flit's address fields (docs/interface.md, "Head flit").
///
/// Per dimension d a field of [`HeadFormat::field_bits`] bits `F` at bits
/// `[d*F, d*F+F)`:
/// - relative addressing on a mesh or torus: the remaining signed offset
///   to the destination, two's complement. On a torus it is the minimal
///   offset around the ring; when both ways are minimal (even k, offset
///   k/2) a packet is written `+k/2`. A router also accepts `-k/2` there;
///   either way it chooses the direction its relation permits and writes
///   the remaining minimal offset after the hop (`k/2 - 1` with the sign
///   of the direction taken);
/// - relative addressing on a unidirectional torus: the hops left toward
///   +, `(b - a) mod k`, unsigned;
/// - absolute addressing: the destination's coordinate;
/// - relative addressing on a hypercube: 1 while the coordinate differs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HeadFormat {
    /// The network's topology.
    pub topology: Topology,
    /// Dimensions n.
    pub dims: u32,
    /// Nodes per dimension k.
    pub radix: u32,
    /// How the fields name the destination.
    pub addressing: Addressing,
}

impl HeadFormat {
    /// The format of a k-ary n-dimensional `topology`'s head flits.
    pub fn new(topology: Topology, dims: u32, radix: u32, addressing: Addressing) -> HeadFormat {
        HeadFormat {
            topology,
            dims,
            radix,
            addressing,
        }
    }

    /// The format of `spec`'s head flits.
    pub fn of(spec: &RouterSpec) -> HeadFormat {
        HeadFormat::new(spec.topology, spec.dims, spec.radix, spec.addressing)
    }

    /// Bits `F` of one dimension's field: relative offsets in two's
    /// complement, `1 + ceil(log2 k)` bits on a mesh (|offset| <= k - 1)
    /// and `1 + bits(k/2)` on a torus (|offset| <= k/2); on a
    /// unidirectional torus the offset `(b - a) mod k` unsigned,
    /// `ceil(log2 k)` bits; absolute
    /// coordinates `ceil(log2 k)`; one bit on a hypercube.
    pub fn field_bits(&self) -> u32 {
        match (self.topology, self.addressing) {
            (Topology::Hypercube, _) => 1,
            (Topology::Mesh, Addressing::Relative) => 1 + bits_for(self.radix.saturating_sub(1)),
            (Topology::Torus, Addressing::Relative) => 1 + bits_for(self.radix / 2),
            (Topology::UniTorus, Addressing::Relative) => bits_for(self.radix - 1),
            (_, Addressing::Absolute) => bits_for(self.radix.saturating_sub(1)),
        }
    }

    /// Bits of all address fields, `n F`.
    pub fn address_bits(&self) -> u32 {
        self.dims * self.field_bits()
    }

    /// The relative offset written for coordinate `a` toward `b` (a
    /// signed value; the field holds its low `F` bits): `b - a` on a mesh,
    /// the minimal offset around the ring on a torus, `+k/2` on a tie.
    pub fn offset(&self, a: u32, b: u32) -> i64 {
        let (a, b, k) = (i64::from(a), i64::from(b), i64::from(self.radix));
        match self.topology {
            Topology::Torus => {
                let fwd = (b - a).rem_euclid(k);
                if 2 * fwd <= k {
                    fwd
                } else {
                    fwd - k
                }
            }
            Topology::UniTorus => (b - a).rem_euclid(k),
            _ => b - a,
        }
    }

    /// The value of dimension `d`'s field of a packet at `at` bound for
    /// `dest`, as written at injection (signed before masking).
    pub fn field(&self, net: &Network, at: NodeId, dest: NodeId, d: usize) -> i64 {
        let (a, b) = (net.coord(at, d), net.coord(dest, d));
        match (self.addressing, self.topology) {
            (Addressing::Absolute, _) => i64::from(b),
            (Addressing::Relative, Topology::Hypercube) => i64::from(a != b),
            (Addressing::Relative, _) => self.offset(a, b),
        }
    }

    /// The address fields of a packet at `at` bound for `dest`, as a
    /// network interface writes them at injection and as they stand after
    /// every hop.
    pub fn address(&self, net: &Network, at: NodeId, dest: NodeId) -> u64 {
        let f = self.field_bits();
        let fmask = (1u64 << f) - 1;
        (0..net.n()).fold(0, |acc, d| {
            acc | (self.field(net, at, dest, d) as u64 & fmask) << (d as u32 * f)
        })
    }

    /// Every address a router accepts for a packet at `at` bound for
    /// `dest`: [`Self::address`], and on a torus tie the field written
    /// `-k/2` as well (in every combination over the tied dimensions).
    pub fn accepted_addresses(&self, net: &Network, at: NodeId, dest: NodeId) -> Vec<u64> {
        let mut all = Vec::new();
        self.accepted_addresses_into(net, at, dest, &mut all);
        all
    }

    /// [`Self::accepted_addresses`] into `out` (cleared first), in the same
    /// order: the tied dimensions' `+k/2` before `-k/2`, lower dimensions
    /// varying slowest.
    pub fn accepted_addresses_into(
        &self,
        net: &Network,
        at: NodeId,
        dest: NodeId,
        out: &mut Vec<u64>,
    ) {
        let f = self.field_bits() as usize;
        let fmask = (1u64 << f) - 1;
        out.clear();
        out.push(0);
        for d in 0..net.n() {
            let x = self.field(net, at, dest, d);
            let put = |h: u64, x: i64| h | ((x as u64) & fmask) << (f * d);
            let tie = self.addressing == Addressing::Relative
                && self.topology == Topology::Torus
                && 2 * x == i64::from(self.radix);
            if tie {
                // Each address so far, with +k/2 then with -k/2.
                let before = std::mem::take(out);
                for h in before {
                    out.push(put(h, x));
                    out.push(put(h, -x));
                }
            } else {
                for h in out.iter_mut() {
                    *h = put(*h, x);
                }
            }
        }
    }
}

/// A port of a Verilog module: name, whether it is an input, width.
pub type ModulePort = (String, bool, u32);

/// The per-port signals of docs/interface.md, "Ports", in order: name
/// after `p<p>_`, input, and width in terms of (W, V, VB).
const PORT_SIGNALS: [(&str, bool, Width); 12] = [
    ("in_data", true, Width::Flit),
    ("in_valid", true, Width::One),
    ("in_head", true, Width::One),
    ("in_tail", true, Width::One),
    ("in_vc", true, Width::VcNumber),
    ("in_credit", false, Width::PerVc),
    ("out_data", false, Width::Flit),
    ("out_valid", false, Width::One),
    ("out_head", false, Width::One),
    ("out_tail", false, Width::One),
    ("out_vc", false, Width::VcNumber),
    ("out_credit", true, Width::PerVc),
];

/// The width of a per-port signal.
#[derive(Clone, Copy)]
enum Width {
    Flit,
    One,
    VcNumber,
    PerVc,
}

/// The ports docs/interface.md gives the top module of a router with
/// `ports` physical ports, W-bit flits and V VCs, in order, without
/// `node_id` and the routing table's `cfg_*` ports: `clk`, `rst`, then
/// per port p the twelve `p<p>_*` signals.
pub fn documented_ports(ports: u32, flit_width: u32, vcs: u32) -> Vec<ModulePort> {
    let vb = vc_bits(vcs);
    let mut out = vec![("clk".to_string(), true, 1), ("rst".to_string(), true, 1)];
    for p in 0..ports {
        for (sig, input, width) in PORT_SIGNALS {
            let w = match width {
                Width::Flit => flit_width,
                Width::One => 1,
                Width::VcNumber => vb,
                Width::PerVc => vcs,
            };
            out.push((format!("p{p}_{sig}"), input, w));
        }
    }
    out
}

/// The names of the routing table's configuration ports, in the order of
/// docs/interface.md (after `node_id`, before the ports).
pub const CFG_PORTS: [&str; 4] = ["cfg_we", "cfg_addr", "cfg_mask", "cfg_class"];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::algo::{Dir, Input, Port};

    // The table of docs/interface.md, "Ports", written out by hand.
    #[test]
    fn ports_are_numbered_as_the_interface_page_says() {
        let mesh = Network::new(Topology::Mesh, 3, 4).unwrap();
        let want = [
            (0, Port::Local),
            (1, Port::link(0, Dir::Plus)),
            (2, Port::link(0, Dir::Minus)),
            (3, Port::link(1, Dir::Plus)),
            (4, Port::link(1, Dir::Minus)),
            (5, Port::link(2, Dir::Plus)),
            (6, Port::link(2, Dir::Minus)),
        ];
        for (p, port) in want {
            assert_eq!(port_at(&mesh, 21, p), port);
            assert_eq!(port_number(Topology::Mesh, port), p);
        }
        assert_eq!(
            (far_port(Topology::Mesh, 3), far_port(Topology::Mesh, 4)),
            (4, 3)
        );
        let cube = Network::new(Topology::Hypercube, 3, 2).unwrap();
        // Node 5 = (1,0,1): dimension 0 and 2 links lead -, dimension 1 +.
        assert_eq!(port_at(&cube, 5, 1), Port::link(0, Dir::Minus));
        assert_eq!(port_at(&cube, 5, 2), Port::link(1, Dir::Plus));
        assert_eq!(port_at(&cube, 5, 3), Port::link(2, Dir::Minus));
        assert_eq!(
            port_number(Topology::Hypercube, Port::link(2, Dir::Minus)),
            3
        );
        assert_eq!(far_port(Topology::Hypercube, 2), 2);
    }

    #[test]
    fn widths_follow_the_interface_page() {
        assert_eq!([1, 2, 3, 4, 5, 16, 17].map(vc_bits), [1, 1, 2, 2, 3, 4, 5]);
        assert_eq!(
            [0, 1, 2, 3, 4, 255, 256].map(bits_for),
            [1, 1, 2, 2, 3, 8, 9]
        );
        assert_eq!(coord_bits(Topology::Mesh, 5), 3);
        assert_eq!(coord_bits(Topology::Hypercube, 2), 1);
        let ports = documented_ports(3, 16, 3);
        assert_eq!(ports.len(), 2 + 3 * 12);
        assert_eq!(ports[2], ("p0_in_data".to_string(), true, 16));
        assert_eq!(ports[6], ("p0_in_vc".to_string(), true, 2));
        assert_eq!(ports[7], ("p0_in_credit".to_string(), false, 3));
        assert_eq!(ports[37], ("p2_out_credit".to_string(), true, 3));
    }

    // Worked examples: a 4-ary 2-D torus, F = 1 + bits(2) = 3 bits.
    #[test]
    fn head_fields_are_twos_complement_offsets_with_the_tie_written_plus() {
        let net = Network::new(Topology::Torus, 2, 4).unwrap();
        let head = HeadFormat::new(Topology::Torus, 2, 4, Addressing::Relative);
        assert_eq!(head.field_bits(), 3);
        // From (3,0) to (0,2): +1 in x (through the wraparound), +2 in y
        // (a tie, written +2 = 0b010).
        let (at, dest) = (net.node_at(&[3, 0]), net.node_at(&[0, 2]));
        assert_eq!(head.address(&net, at, dest), 0b010_001);
        // From (0,1) to (3,0): -1 (0b111) in both.
        let (at, dest) = (net.node_at(&[0, 1]), net.node_at(&[3, 0]));
        assert_eq!(head.address(&net, at, dest), 0b111_111);
        // The tie is accepted both ways: +2 (0b010) and -2 (0b110).
        let (at, dest) = (net.node_at(&[1, 0]), net.node_at(&[3, 0]));
        let mut all = head.accepted_addresses(&net, at, dest);
        all.sort();
        assert_eq!(all, vec![0b000_010, 0b000_110]);
        // A 4-ary mesh, F = 3: from (2,1) to (0,3), x -2 = 0b110, y +2.
        let mesh = Network::new(Topology::Mesh, 2, 4).unwrap();
        let m = HeadFormat::new(Topology::Mesh, 2, 4, Addressing::Relative);
        let (a, b) = (mesh.node_at(&[2, 1]), mesh.node_at(&[0, 3]));
        assert_eq!(m.address(&mesh, a, b), 0b010_110);
        // An odd ring has no tie.
        let five = HeadFormat::new(Topology::Torus, 1, 5, Addressing::Relative);
        assert_eq!((five.offset(0, 2), five.offset(0, 3)), (2, -2));
        // Absolute: the coordinates; a hypercube's relative bits: XOR.
        let abs = HeadFormat::new(Topology::Torus, 2, 4, Addressing::Absolute);
        assert_eq!(abs.address(&net, 0, net.node_at(&[3, 2])), 0b10_11);
        let cube = Network::new(Topology::Hypercube, 3, 2).unwrap();
        let rel = HeadFormat::new(Topology::Hypercube, 3, 2, Addressing::Relative);
        assert_eq!(rel.address(&cube, 0b101, 0b011), 0b110);
        let abs = HeadFormat::new(Topology::Hypercube, 3, 2, Addressing::Absolute);
        assert_eq!(abs.address(&cube, 0b101, 0b011), 0b011);
    }

    #[test]
    fn node_id_holds_the_coordinates_dimension_zero_low() {
        let net = Network::new(Topology::Mesh, 3, 5).unwrap();
        let node = net.node_at(&[4, 1, 3]);
        assert_eq!(
            node_id(&net, coord_bits(Topology::Mesh, 5), node),
            0b011_001_100
        );
    }

    // docs/interface.md: entry = sum_d s_d 3^d; (+,-) in 2-D is 1 + 2*3.
    #[test]
    fn economical_entries_are_base_three_digits() {
        assert_eq!(es_entry([1u8, 2].into_iter()), 7);
        assert_eq!(es_digits(7, 2), vec![1, 2]);
        assert_eq!(es_digits(7, 3), vec![1, 2, 0]);
        for e in 0..81 {
            assert_eq!(es_entry(es_digits(e, 4).into_iter()), e);
        }
    }

    #[test]
    fn a_flit_through_a_link_travels_away_from_it() {
        let i = input_through(Port::link(1, Dir::Minus), 2);
        assert_eq!((i.port, i.vc), (Port::link(1, Dir::Plus), 2));
        assert_eq!(input_through(Port::Local, 0), Input::INJECTED);
    }
}
