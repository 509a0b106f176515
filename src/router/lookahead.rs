//! Look-ahead routing (LAPSES §3.2, Figure 4) compiled for the router.
//!
//! With `--lookahead` a head flit carries, above its address fields, one bit
//! per port of the router it is arriving at: the ports the routing relation
//! permits there (docs/interface.md, "Head flit"). A router reads its
//! current hop from that field instead of decoding the address, and
//! decodes, concurrently with VC allocation, the field for the next router
//! along every output port it might take (LAPSES §3.2: the entries for
//! ports a1, a2 of A and b1, b2 of B); the path-selection outcome picks one
//! (the [`crate::blocks::LookaheadMux`]) and the head leaves with it. The
//! local input port has no upstream router to compute its field: it decodes
//! its own first hop from the address (docs/interface.md: "On p0 the router
//! ignores this field").
//!
//! The field names ports, but the relations here also name virtual
//! channels (escape and adaptive channels, planes, dateline classes). The
//! VCs a hop may take on each port are read from the field through
//! [`LookaheadTable`]: field -> permitted output VCs. [`compile`] builds it
//! by asking the relation at every node for every destination, and refuses
//! the relation, naming two places, where one field stands for two
//! different sets of VCs (a torus, whose dateline class is not a function
//! of the ports).
//!
//! The next router's field along output port j is the port-reduced answer
//! of the router's own compiled decoder table ([`port_rows`]) to the head
//! flit as it will leave by j (`HeaderUpdate`) at the neighbour's node id
//! ([`NextNode`]): [`tables::compile`] proved that table right at every
//! node, so it is right at the neighbour too.

use std::collections::HashMap;

use crate::algo::{Input, Relation};
use crate::blocks::address_decoder::{DecoderShape, Row};
use crate::error::{Error, Result};
use crate::spec::Topology;

use super::tables::CompiledTable;

/// The look-ahead field's VCs: per field value (bit o: port o permitted)
/// the permitted output VCs (bit o V + v).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LookaheadTable {
    pub ports: usize,
    pub vcs: usize,
    /// Sorted by field (`Row::key`).
    pub rows: Vec<Row>,
}

impl LookaheadTable {
    /// The permitted output VCs of a head flit carrying `field` (none for a
    /// field no router writes).
    pub fn lookup(&self, field: u64) -> Option<&Row> {
        self.rows
            .binary_search_by_key(&field, |r| u64::from(r.key))
            .ok()
            .map(|i| &self.rows[i])
    }
}

/// The ports of permitted output VC mask `mask` (bit o V + v), as a field.
fn ports_of(mask: &[u64], ports: usize, vcs: usize) -> u32 {
    let row = Row {
        key: 0,
        mask: mask.to_vec(),
    };
    (0..ports)
        .filter(|o| (0..vcs).any(|c| row.permits(o * vcs + c)))
        .fold(0, |acc, o| acc | 1 << o)
}

/// The field a head flit for `dest` carries into `node`: the ports the
/// relation permits there (docs/interface.md).
pub fn field_at(rel: &Relation, node: u32, input: Input, dest: u32) -> u64 {
    rel.hops(node, input, dest)
        .iter()
        .fold(0, |acc, h| acc | 1 << rel.net.port_index(h.port))
}

/// The look-ahead table of `rel` (whose decoder table `table` is), or why
/// a field of ports cannot carry its VCs.
pub fn compile(rel: &Relation, table: &CompiledTable) -> Result<LookaheadTable> {
    let net = &rel.net;
    let (p, v) = (table.ports(), table.vcs());
    let pv = p * v;
    if p > super::LA_BITS {
        return Err(Error::invalid(format!(
            "look-ahead with {p} ports: the router's look-ahead registers hold {} ports",
            super::LA_BITS
        )));
    }
    let mut seen: HashMap<u32, (Vec<u64>, u32, u32)> = HashMap::new();
    let mut buf = Vec::new();
    for node in 0..net.nodes() {
        for dest in 0..net.nodes() {
            // The relation's answer does not depend on the input
            // (`tables::compile` refuses those that do).
            rel.route(node, Input::INJECTED, dest, &mut buf);
            let mut mask = vec![0u64; pv.div_ceil(64)];
            for h in &buf {
                let k = net.port_index(h.port) * v + h.vc as usize;
                mask[k / 64] |= 1 << (k % 64);
            }
            let field = ports_of(&mask, p, v);
            match seen.get(&field) {
                None => {
                    seen.insert(field, (mask, node, dest));
                }
                Some((m, at, to)) if *m != mask => {
                    let vcs = |m: &[u64]| {
                        let row = Row {
                            key: 0,
                            mask: m.to_vec(),
                        };
                        let on: Vec<String> = (0..pv)
                            .filter(|&k| row.permits(k))
                            .map(|k| format!("p{} vc{}", k / v, k % v))
                            .collect();
                        on.join(", ")
                    };
                    return Err(Error::invalid(format!(
                        "{}: look-ahead routing is not supported for this relation yet: the \
                         look-ahead field names ports, not virtual channels, and field {field:#x} \
                         stands for {} at {} for {} but for {} at {} for {}",
                        rel.name(),
                        vcs(m),
                        net.node_name(*at),
                        net.node_name(*to),
                        vcs(&mask),
                        net.node_name(node),
                        net.node_name(dest)
                    )));
                }
                Some(_) => {}
            }
        }
    }
    let mut rows: Vec<Row> = seen
        .into_iter()
        .map(|(key, (mask, _, _))| Row { key, mask })
        .collect();
    rows.sort_by_key(|r| r.key);
    Ok(LookaheadTable {
        ports: p,
        vcs: v,
        rows,
    })
}

/// The decoder rows of the next router's field: each row of `table` with
/// its mask reduced to ports (bit o: some VC of port o permitted).
pub fn port_rows(table: &CompiledTable) -> Vec<Row> {
    let (p, v) = (table.ports(), table.vcs());
    table
        .rows
        .iter()
        .map(|r| Row {
            key: r.key,
            mask: vec![u64::from(ports_of(&r.mask, p, v))],
        })
        .collect()
}

/// The decoder shape of the next router's field: P outputs, one "VC".
pub fn port_shape(table: &CompiledTable) -> DecoderShape {
    DecoderShape {
        vcs: 1,
        ..table.shape.clone()
    }
}

/// `value` masked to `bits` bits.
fn low(value: u64, bits: usize) -> u64 {
    if bits >= 64 {
        value
    } else {
        value & ((1u64 << bits) - 1)
    }
}

/// The node id of the router across output port `port` (docs/interface.md
/// numbering and `node_id` layout), from this router's: one coordinate
/// one step along the port (around the ring on a torus; a hypercube's
/// link flips the dimension's bit). At a mesh edge the port leads nowhere
/// and the value is meaningless (the relation never permits that port).
#[derive(Debug, Clone)]
pub struct NextNode {
    dim: usize,
    plus: bool,
    topology: Topology,
    radix: u64,
    coord_bits: usize,
}

impl NextNode {
    /// The neighbour across `port` (1 to P - 1) of a decoder of `shape`.
    pub fn new(shape: &DecoderShape, port: usize) -> Self {
        let (dim, plus) = if shape.topology == Topology::Hypercube {
            (port - 1, true)
        } else {
            ((port - 1) / 2, port % 2 == 1)
        };
        NextNode {
            dim,
            plus,
            topology: shape.topology,
            radix: u64::from(shape.radix),
            coord_bits: shape.coord_bits,
        }
    }

    fn unit(&self) -> u64 {
        1u64 << (self.dim * self.coord_bits)
    }

    /// The neighbour's `node_id` (W bits) from this router's.
    pub fn apply(&self, node: u64, w: usize) -> u64 {
        let unit = self.unit();
        let coord = low(node >> (self.dim * self.coord_bits), self.coord_bits);
        let back = (self.radix - 1) * unit;
        let next = match (self.topology, self.plus) {
            (Topology::Hypercube, _) => node ^ unit,
            (Topology::Torus, true) if coord == self.radix - 1 => node.wrapping_sub(back),
            (Topology::Torus, false) if coord == 0 => node.wrapping_add(back),
            (_, true) => node.wrapping_add(unit),
            (_, false) => node.wrapping_sub(unit),
        };
        low(next, w)
    }

    /// Verilog expression for [`Self::apply`] on the W-bit expression `x`.
    pub fn verilog(&self, x: &str, w: usize) -> String {
        let unit = self.unit();
        let back = (self.radix - 1) * unit;
        let (c, at) = (self.coord_bits, self.dim * self.coord_bits);
        let coord = format!("{x}[{}:{at}]", at + c - 1);
        match (self.topology, self.plus) {
            (Topology::Hypercube, _) => format!("({x} ^ {w}'d{unit})"),
            (Topology::Torus, true) => format!(
                "(({coord} == {c}'d{}) ? {x} - {w}'d{back} : {x} + {w}'d{unit})",
                self.radix - 1
            ),
            (Topology::Torus, false) => {
                format!("(({coord} == {c}'d0) ? {x} + {w}'d{back} : {x} - {w}'d{unit})")
            }
            (_, true) => format!("({x} + {w}'d{unit})"),
            (_, false) => format!("({x} - {w}'d{unit})"),
        }
    }
}

/// The look-ahead table of the spec's relation, compiled with `table`.
pub fn for_table(rel: &Relation, table: &CompiledTable) -> Result<LookaheadTable> {
    if table.es.is_some() {
        return Err(Error::invalid(
            "router generation does not support look-ahead with the economical-storage table \
             yet: the next router's field would have to come from the neighbours' \
             programmable tables; use --table none with --lookahead",
        ));
    }
    compile(rel, table)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::algo::Network;
    use crate::router::tables;
    use crate::spec::{Addressing, Algorithm};

    fn la(algo: Algorithm, topology: Topology, n: u32, k: u32, v: u32) -> Result<LookaheadTable> {
        let net = Network::new(topology, n, k).unwrap();
        let rel = Relation::new(algo, net, v).unwrap();
        let t = tables::compile(&rel, Addressing::Relative).unwrap();
        compile(&rel, &t)
    }

    /// Port mask of interface ports.
    fn ports(list: &[usize]) -> u64 {
        list.iter().map(|o| 1u64 << o).sum()
    }

    fn vcs(t: &LookaheadTable, field: u64) -> Vec<(usize, usize)> {
        let row = t.lookup(field).expect("field present");
        (0..t.ports * t.vcs)
            .filter(|&k| row.permits(k))
            .map(|k| (k / t.vcs, k % t.vcs))
            .collect()
    }

    #[test]
    fn duato_on_a_mesh_reads_the_escape_channel_from_the_ports() {
        // Duato, 2 VCs: VC 0 the escape channel along dimension order (x
        // first), VC 1 adaptive on every minimal port; worked by hand.
        let t = la(Algorithm::Duato, Topology::Mesh, 2, 4, 2).unwrap();
        assert_eq!(vcs(&t, ports(&[1, 3])), [(1, 0), (1, 1), (3, 1)]);
        assert_eq!(vcs(&t, ports(&[2, 4])), [(2, 0), (2, 1), (4, 1)]);
        assert_eq!(vcs(&t, ports(&[3])), [(3, 0), (3, 1)]);
        // At the destination the relation's one hop is the local port, VC 0.
        assert_eq!(vcs(&t, ports(&[0])), [(0, 0)]);
        // Every field a 2-D mesh offers: local, 4 single ports, 4 pairs.
        assert_eq!(t.rows.len(), 9);
    }

    #[test]
    fn a_torus_dateline_class_is_not_in_the_ports_and_is_refused() {
        let err = la(Algorithm::DimensionOrder, Topology::Torus, 2, 4, 2)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("not supported") && err.contains("names ports, not virtual channels"),
            "{err}"
        );
    }

    #[test]
    fn next_node_ids_step_one_coordinate_and_wrap_on_a_torus() {
        let shape = DecoderShape::new(Topology::Torus, 2, 5, Addressing::Absolute, 1, true);
        // (4, 2) with 3-bit coordinates: 4 | 2 << 3.
        let node = 4 | 2 << 3;
        let at = |port| NextNode::new(&shape, port).apply(node, 16);
        assert_eq!(at(1), 2 << 3, "+x wraps to 0");
        assert_eq!(at(2), 3 | 2 << 3);
        assert_eq!(at(3), 4 | 3 << 3);
        assert_eq!(at(4), 4 | 1 << 3);
        let cube = DecoderShape::new(Topology::Hypercube, 3, 2, Addressing::Absolute, 1, true);
        assert_eq!(NextNode::new(&cube, 2).apply(0b101, 16), 0b111);
    }
}
