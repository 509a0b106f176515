//! How the network's ports, the relation's inputs and the economical
//! table's entries are numbered: facts the relation, the routing tables
//! and the router's interface (docs/interface.md, "Ports"; LAPSES §5.2.1)
//! share, kept below all of them.

use super::{Dir, Input, Network, NodeId, Port, Relation};
use crate::spec::Topology;

/// Interface number of a relation port (docs/interface.md, "Ports"): 0
/// local; on meshes and tori `2d+1` toward +d and `2d+2` toward -d; on a
/// hypercube `d+1` for dimension d's one link; on a unidirectional torus
/// `d+1` for dimension d's pair, out toward + and in from -.
pub fn port_number(topology: Topology, port: Port) -> usize {
    match port {
        Port::Local => 0,
        Port::Link { dim, .. } if topology.links_per_dim() == 1 => 1 + dim as usize,
        Port::Link { dim, dir } => 1 + 2 * dim as usize + usize::from(dir == Dir::Minus),
    }
}

/// Interface port `p` of the router at `node` as a relation port, the
/// way it sends (the inverse of [`port_number`]). A hypercube's port `d+1`
/// leads toward +d from a node whose bit d is 0, toward -d otherwise; a
/// unidirectional torus's toward +d.
pub fn port_at(net: &Network, node: NodeId, p: usize) -> Port {
    if p == 0 {
        return Port::Local;
    }
    if net.is_one_way() {
        return Port::link(p - 1, Dir::Plus);
    }
    if net.topology == Topology::Hypercube {
        let d = p - 1;
        let dir = if net.coord(node, d) == 0 {
            Dir::Plus
        } else {
            Dir::Minus
        };
        return Port::link(d, dir);
    }
    let dir = if p % 2 == 1 { Dir::Plus } else { Dir::Minus };
    Port::link((p - 1) / 2, dir)
}

/// Interface port `p` of the router at `node` as a relation port, the
/// way it receives: the link toward the routers that send into it. The
/// same link as [`port_at`] except on a unidirectional torus, whose port
/// `d+1` receives from -d.
pub fn in_port_at(net: &Network, node: NodeId, p: usize) -> Port {
    if p != 0 && net.is_one_way() {
        return Port::link(p - 1, Dir::Minus);
    }
    port_at(net, node, p)
}

/// The port at the far end of link port `p`: the opposite direction of
/// the same dimension (a hypercube dimension has one port, the same at
/// both ends; a unidirectional torus's port `d+1` sends into the
/// neighbour's port `d+1`).
pub fn far_port(topology: Topology, p: usize) -> usize {
    match topology {
        _ if topology.links_per_dim() == 1 => p,
        _ if p % 2 == 1 => p + 1,
        _ => p - 1,
    }
}

/// The relation's input for a flit entering through port `port` on `vc`:
/// through a link it travels the way the upstream router sent it, away
/// from that router, i.e. in the direction opposite to `port`; through
/// the local port it is injected.
pub fn input_through(port: Port, vc: u8) -> Input {
    Input {
        port: entry_port(port),
        vc,
    }
}

/// The port through which a flit sent on link `sent` enters the router
/// across it: the same dimension, the opposite direction (the inverse of
/// [`input_through`]: `input_through(entry_port(p), vc).port == p`).
pub fn entry_port(sent: Port) -> Port {
    match sent {
        Port::Local => Port::Local,
        Port::Link { dim, dir } => Port::Link {
            dim,
            dir: dir.reverse(),
        },
    }
}

/// The inputs whose answers at `node` cover every input: all of
/// [`arrival_inputs`] where the relation reads the input (the generic turn
/// model), else the injection input alone (one question per node and
/// destination answers for every input).
pub fn deciding_inputs(rel: &Relation, node: NodeId) -> Vec<Input> {
    if rel.reads_input() {
        arrival_inputs(rel, node)
    } else {
        vec![Input::INJECTED]
    }
}

/// Every input a flit can arrive on at `node`: injected, or through each
/// existing link on each of the relation's VCs.
pub fn arrival_inputs(rel: &Relation, node: NodeId) -> Vec<Input> {
    let mut all = vec![Input::INJECTED];
    for q in rel.net.in_links(node) {
        for vc in 0..rel.vcs {
            all.push(input_through(q, vc));
        }
    }
    all
}

/// The economical-storage table's entry (LAPSES §5.2.1; `cfg_addr` in
/// docs/interface.md) for the per-dimension digits `s_d`, dimension 0
/// first: 0 when the destination's coordinate equals the router's, 1 when
/// it is greater, 2 when it is smaller; the entry is `sum_d s_d 3^d`.
pub fn es_entry(digits: impl DoubleEndedIterator<Item = u8>) -> usize {
    digits.rev().fold(0, |acc, s| acc * 3 + usize::from(s))
}

/// The digits `s_d` of economical-storage entry `entry` in `n`
/// dimensions, dimension 0 first (the inverse of [`es_entry`]).
pub fn es_digits(entry: usize, n: usize) -> Vec<u8> {
    let mut e = entry;
    (0..n)
        .map(|_| {
            let s = (e % 3) as u8;
            e /= 3;
            s
        })
        .collect()
}
