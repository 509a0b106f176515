//! The tests' own encoding of what docs/interface.md prescribes: node_id,
//! the head flit's address fields and the look-ahead field. Written from
//! the document, not read from the code under test, and kept here once
//! for every router test.

use super::*;

/// Bits of one coordinate of `node_id` (docs/interface.md).
pub(crate) fn coord_bits(spec: &RouterSpec) -> usize {
    if spec.topology == Topology::Hypercube {
        1
    } else {
        (32 - (spec.radix - 1).leading_zeros()) as usize
    }
}

/// `node_id` of `node` (docs/interface.md: its coordinates, dimension 0
/// in the low bits, [`coord_bits`] each).
pub(crate) fn node_id_of(spec: &RouterSpec, net: &Network, node: NodeId) -> u64 {
    let cb = coord_bits(spec);
    (0..spec.dims as usize)
        .map(|d| u64::from(net.coord(node, d)) << (d * cb))
        .sum()
}

/// Bits of one address field of the head flit.
fn field_bits(spec: &RouterSpec) -> usize {
    spec.address_field_bits() as usize
}

/// The address fields of a head flit at `at` bound for `dest`
/// (docs/interface.md: field d at bits [d F, d F + F), [`address_field`]
/// in F bits); `tie_minus` is asked, dimension by dimension, for the sign
/// of a torus offset of exactly k/2.
pub(crate) fn head_address(
    spec: &RouterSpec,
    net: &Network,
    at: NodeId,
    dest: NodeId,
    mut tie_minus: impl FnMut() -> bool,
) -> u64 {
    (0..spec.dims as usize).fold(0, |h, d| {
        with_address_field(
            spec,
            h,
            d,
            address_field(spec, net, at, dest, d, tie_minus()),
        )
    })
}

/// `head` with the address field of dimension `d` set to `x`.
pub(crate) fn with_address_field(spec: &RouterSpec, head: u64, d: usize, x: i64) -> u64 {
    let f = field_bits(spec);
    let m = (1u64 << f) - 1;
    (head & !(m << (d * f))) | ((x as u64 & m) << (d * f))
}

/// The address field docs/interface.md prescribes for dimension `d` of a
/// packet at `at` bound for `dest`; `tie_minus` picks the sign of a torus
/// offset of exactly k/2.
pub(crate) fn address_field(
    spec: &RouterSpec,
    net: &Network,
    at: NodeId,
    dest: NodeId,
    d: usize,
    tie_minus: bool,
) -> i64 {
    let a = i64::from(net.coord(at, d));
    let b = i64::from(net.coord(dest, d));
    let k = i64::from(spec.radix);
    match (spec.addressing, spec.topology) {
        (Addressing::Absolute, _) => b,
        (_, Topology::Hypercube) => i64::from(a != b),
        (_, Topology::Mesh) => b - a,
        // The hops left toward +, the only way round.
        (_, Topology::UniTorus) => (b - a).rem_euclid(k),
        (_, Topology::Torus) => {
            let fwd = (b - a).rem_euclid(k);
            if 2 * fwd < k || (2 * fwd == k && !tie_minus) {
                fwd
            } else {
                fwd - k
            }
        }
    }
}

/// The look-ahead field of a head flit arriving at `at` through `input`
/// for `dest` (docs/interface.md: bit p for each port p the relation
/// permits there, ports numbered as the interface numbers them; on a torus
/// also bit P + p where leaving by p the packet still has the wraparound
/// link of p's dimension ahead: the destination's coordinate is below
/// this node's going +, above it going -).
pub(crate) fn la_field(rel: &Relation, at: NodeId, input: Input, dest: NodeId) -> u64 {
    let net = &rel.net;
    let p = net.port_count();
    rel.hops(at, input, dest).iter().fold(0, |acc, h| {
        let o = (0..p)
            .find(|&o| port_of(net, at, o) == h.port)
            .expect("a permitted port exists");
        let wrap = match h.port {
            Port::Link { dim, dir }
                if matches!(net.topology, Topology::Torus | Topology::UniTorus) =>
            {
                let (a, b) = (net.coord(at, dim as usize), net.coord(dest, dim as usize));
                if dir == Dir::Plus {
                    b < a
                } else {
                    b > a
                }
            }
            _ => false,
        };
        acc | 1 << o | u64::from(wrap) << (p + o)
    })
}
