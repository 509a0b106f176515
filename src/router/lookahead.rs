//! Look-ahead routing (LAPSES §3.2, Figure 4) compiled for the router.
//!
//! With `lookahead = true` a head flit carries, above its address fields, one bit
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
//! [`LookaheadTable`]: field -> permitted output VCs. On a torus the ports
//! do not decide the dateline class (survey §8), so there the field has a
//! second bit per port: the wraparound link of that port's dimension lies
//! ahead going that way ([`field_at`]). [`compile`] builds the table by
//! asking the relation at every node for every destination, and refuses
//! the relation, naming two places, where one field stands for two
//! different sets of VCs.
//!
//! The next router's field along output port j comes from a decoder of
//! the router's own shape reading the head flit as it will leave by j
//! (`HeaderUpdate`) at the neighbour's node id ([`NextNode`]): its routing
//! key selects the field ([`LookaheadTable::next`]). [`compile`] derives
//! that key -> field table at every node for every destination and every
//! header encoding, and refuses a relation where one key would need two
//! fields.

use std::collections::HashMap;

use crate::algo::{Input, Port, Relation};
use crate::blocks::address_decoder::{DecoderShape, Outputs, Row};
use crate::error::{Error, Result};
use crate::spec::Topology;

use super::tables::CompiledTable;
pub use super::tables::LookaheadTable;

/// The field a head flit for `dest` carries into `node` (docs/interface.md,
/// "Head flit"): bit o for each port o the relation permits there, and on a
/// torus bit P + o where, going out of port o, the wraparound link of its
/// dimension lies ahead.
pub fn field_at(rel: &Relation, node: u32, input: Input, dest: u32) -> u64 {
    let net = &rel.net;
    let p = net.port_count();
    rel.hops(node, input, dest).iter().fold(0, |acc, h| {
        let o = net.port_index(h.port);
        let wrap = match h.port {
            Port::Link { dim, dir } if net.is_torus() => {
                net.dateline_class(node, dest, dim as usize, dir) == 0
            }
            _ => false,
        };
        acc | 1 << o | u64::from(wrap) << (p + o)
    })
}

/// The look-ahead table of `rel` (whose decoder table `table` is), or why
/// its field cannot carry its VCs.
pub fn compile(rel: &Relation, table: &CompiledTable) -> Result<LookaheadTable> {
    let net = &rel.net;
    let (p, v) = (table.ports(), table.vcs());
    let pv = p * v;
    let bits = crate::spec::lookahead_field_bits(table.shape.topology, p as u32) as usize;
    if bits > super::LA_BITS {
        return Err(Error::invalid(format!(
            "router generation does not support look-ahead with {p} ports on a {}: the \
             field takes {bits} bits and the router's look-ahead registers hold {}",
            table.shape.topology,
            super::LA_BITS
        )));
    }
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
    // field -> (VCs, where first seen); routing key of the next router's
    // decoder -> field.
    let mut seen: HashMap<u64, (Vec<u64>, u32, u32)> = HashMap::new();
    let mut next: HashMap<u32, (u64, u32, u32)> = HashMap::new();
    let mut buf = Vec::new();
    for node in 0..net.nodes() {
        let id = super::tables::node_id(&table.shape, net, node);
        for dest in 0..net.nodes() {
            // The relation's answer does not depend on the input
            // (`tables::compile` refuses those that do).
            rel.route(node, Input::INJECTED, dest, &mut buf);
            let mut mask = vec![0u64; pv.div_ceil(64)];
            for h in &buf {
                let k = net.port_index(h.port) * v + h.vc as usize;
                mask[k / 64] |= 1 << (k % 64);
            }
            let field = field_at(rel, node, Input::INJECTED, dest);
            match seen.get(&field) {
                None => {
                    seen.insert(field, (mask, node, dest));
                }
                Some((m, at, to)) if *m != mask => {
                    return Err(Error::invalid(format!(
                        "{}: look-ahead routing is not supported for this relation: the \
                         look-ahead field names ports{}, not virtual channels, and field \
                         {field:#x} stands for {} at {} for {} but for {} at {} for {}",
                        rel.name(),
                        if net.is_torus() {
                            " and dateline classes"
                        } else {
                            ""
                        },
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
            // The key a decoder computes for this head at this node, for
            // every encoding docs/interface.md allows, must give one field.
            for address in super::tables::addresses(&table.shape, net, node, dest) {
                let key = table.shape.key(address, id);
                match next.get(&key) {
                    None => {
                        next.insert(key, (field, node, dest));
                    }
                    Some((f, at, to)) if *f != field => {
                        return Err(Error::invalid(format!(
                            "{}: look-ahead routing is not supported for this relation: \
                             routing key {key:#x} reads field {f:#x} at {} for {} but \
                             {field:#x} at {} for {}",
                            rel.name(),
                            net.node_name(*at),
                            net.node_name(*to),
                            net.node_name(node),
                            net.node_name(dest)
                        )));
                    }
                    Some(_) => {}
                }
            }
        }
    }
    let mut rows: Vec<Row> = seen
        .into_iter()
        .map(|(key, (mask, _, _))| Row {
            key: key as u32,
            mask,
        })
        .collect();
    rows.sort_by_key(|r| r.key);
    let mut next: Vec<Row> = next
        .into_iter()
        .map(|(key, (field, _, _))| Row {
            key,
            mask: vec![field],
        })
        .collect();
    next.sort_by_key(|r| r.key);
    Ok(LookaheadTable {
        ports: p,
        vcs: v,
        field_bits: bits,
        rows,
        next,
    })
}

/// The decoder shape of the next router's field: one output per field bit.
pub fn field_shape(table: &CompiledTable, la: &LookaheadTable) -> DecoderShape {
    DecoderShape {
        ports: la.field_bits,
        vcs: 1,
        outputs_are: Outputs::FieldBits,
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
        // One port per dimension: a hypercube's, or a unidirectional
        // torus's toward +.
        let (dim, plus) = if shape.topology.links_per_dim() == 1 {
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
            (Topology::Torus | Topology::UniTorus, true) if coord == self.radix - 1 => {
                node.wrapping_sub(back)
            }
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
            (Topology::Torus | Topology::UniTorus, true) => format!(
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
    if let Some(es) = &table.es {
        let kind = match es.kind {
            super::tables::TableKind::Economical => "economical-storage",
            super::tables::TableKind::Full => "full",
            super::tables::TableKind::Meta { .. } => "meta",
        };
        return Err(Error::invalid(format!(
            "router generation does not support look-ahead with the {kind} table yet: the \
             next router's field would have to come from the neighbours' programmable \
             tables; use table = none with lookahead = true"
        )));
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
    fn a_torus_field_carries_the_dateline_class_of_each_port() {
        // Dimension order on a 4-ary 2-D torus with 2 VCs (survey §8): a
        // hop takes class 0 (VC 0) while the wraparound link of its
        // dimension lies ahead, class 1 (VC 1) once it does not; the
        // field's bit P + o says which, P = 5.
        let t = la(Algorithm::DimensionOrder, Topology::Torus, 2, 4, 2).unwrap();
        assert_eq!(t.field_bits, 10);
        let wrap = |o: usize| 1u64 << (5 + o);
        assert_eq!(vcs(&t, ports(&[1]) | wrap(1)), [(1, 0)]);
        assert_eq!(vcs(&t, ports(&[1])), [(1, 1)]);
        assert_eq!(vcs(&t, ports(&[4]) | wrap(4)), [(4, 0)]);
        assert_eq!(vcs(&t, ports(&[4])), [(4, 1)]);
        // The ports alone would name two VC sets: the table cannot be
        // keyed by them.
        assert!(t.lookup(ports(&[1]) | wrap(1)) != t.lookup(ports(&[1])));
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
