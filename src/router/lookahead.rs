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

/// A [`NextNode`] as constants ([`NextNode::steps`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NextSteps {
    /// Bits flipped (a hypercube's dimension bit).
    pub flip: u64,
    /// Added: one step along the port.
    pub step: u64,
    /// On a ring: the coordinate's bits, their value at the edge, and what
    /// is added there instead (around the ring).
    pub edge: Option<(u64, u64, u64)>,
}

#[cfg(test)]
impl NextSteps {
    /// The steps applied to the W-bit `node` (the form the router's
    /// logic takes, for testing against [`NextNode::apply`]).
    pub fn apply(&self, node: u64, w: usize) -> u64 {
        let next = match self.edge {
            Some((coord, edge, wrap)) if node & coord == edge => node.wrapping_add(wrap),
            _ => (node ^ self.flip).wrapping_add(self.step),
        };
        if w >= 64 {
            next
        } else {
            next & ((1u64 << w) - 1)
        }
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

    /// [`Self::apply`] as W-bit constants, for logic written once over
    /// ports: `(node ^ flip) + step`, but where `node & coord == edge`
    /// (the ring's last node toward the port) `node + wrap`.
    pub fn steps(&self, w: usize) -> NextSteps {
        let mask = |x: u64| if w >= 64 { x } else { x & ((1u64 << w) - 1) };
        let unit = self.unit();
        let back = (self.radix - 1) * unit;
        let at = self.dim * self.coord_bits;
        let coord = ((1u64 << self.coord_bits) - 1) << at;
        let ring = matches!(self.topology, Topology::Torus | Topology::UniTorus);
        let (flip, step, edge) = match (self.topology, self.plus) {
            (Topology::Hypercube, _) => (unit, 0, None),
            (_, true) => (
                0,
                unit,
                ring.then(|| ((self.radix - 1) << at, back.wrapping_neg())),
            ),
            (_, false) => (0, unit.wrapping_neg(), ring.then_some((0, back))),
        };
        NextSteps {
            flip,
            step: mask(step),
            edge: edge.map(|(e, wrap)| (coord, e, mask(wrap))),
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

    /// The constants the router's look-ahead decoders' inputs use
    /// ([`NextNode::steps`]) against [`NextNode::apply`], for every port
    /// and every node of each network (and the bits above its id).
    #[test]
    fn next_steps_are_the_next_nodes() {
        let mut checked = 0;
        for (topology, n, k) in [
            (Topology::Mesh, 2, 4),
            (Topology::Mesh, 3, 3),
            (Topology::Torus, 2, 5),
            (Topology::Torus, 2, 4),
            (Topology::UniTorus, 3, 3),
            (Topology::Hypercube, 4, 2),
        ] {
            let shape = DecoderShape::new(topology, n, k, Addressing::Absolute, 1, true);
            let net = Network::new(topology, n as u32, k).unwrap();
            let ports = 1 + n * topology.links_per_dim() as usize;
            let c = shape.coord_bits;
            for w in [16, 64] {
                for port in 1..ports {
                    let x = NextNode::new(&shape, port);
                    let steps = x.steps(w);
                    for node in 0..net.nodes() {
                        let id = tables::node_id(&shape, &net, node);
                        for above in [0, 1u64 << (c * n)] {
                            assert_eq!(
                                steps.apply(id | above, w),
                                x.apply(id | above, w),
                                "{topology} port {port} node {node}"
                            );
                            checked += 1;
                        }
                    }
                }
            }
        }
        assert!(checked > 500, "{checked}");
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
