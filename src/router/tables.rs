//! The routing relation compiled into the address decoders' table: routing
//! key -> permitted output virtual channels.
//!
//! The key (see [`crate::blocks::address_decoder`]) holds, per dimension,
//! what the header and the router's `node_id` say about the destination:
//! the sign of the remaining offset (LAPSES §5.2.1's sign vector, enough on
//! a mesh), whether both directions are minimal (a torus offset of exactly
//! k/2), whether the wraparound link of that dimension lies ahead (the
//! dateline classes of the survey §8, `Network::dateline_class`), and on a
//! hypercube the direction of the dimension's one link (the node's own
//! bit).
//!
//! The relation ([`Relation::route`]) stays the single source of truth.
//! [`compile`] asks it at every node, for every destination and every input
//! (injection and each link on each VC), computes the key the decoder
//! computes from the head flit that packet carries there (every encoding
//! docs/interface.md allows: at a torus tie, both signs) and from that
//! node's `node_id`, and refuses the configuration, naming both places,
//! when two questions with the same key get different answers, or when the
//! answer depends on the input the packet arrived on. Keys read from the
//! header alone are tried first (a router with relative addressing then
//! needs no `node_id`); the node id is added where the header alone does
//! not decide (tori: datelines; hypercubes under negative-first: the
//! direction of a hop).

use crate::algo::{Input, Network, NodeId, Port, Relation};
use crate::blocks::address_decoder::{DecoderShape, Row};
use crate::error::{Error, Result};
use crate::spec::{Addressing, Topology};

/// Largest number of keys a decoder table holds.
pub const MAX_ROWS: usize = 4096;

/// A relation as the router's hardware holds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompiledTable {
    /// How the decoders read headers and node ids.
    pub shape: DecoderShape,
    /// Key -> permitted output VCs (bit o V + v), sorted by key.
    pub rows: Vec<Row>,
}

impl CompiledTable {
    /// Physical ports P (docs/interface.md numbering).
    pub fn ports(&self) -> usize {
        self.shape.ports
    }

    /// Virtual channels per physical channel V.
    pub fn vcs(&self) -> usize {
        self.shape.vcs
    }

    /// Whether the router reads `node_id`.
    pub fn needs_node(&self) -> bool {
        self.shape.node_key
    }

    /// The row of `key`.
    pub fn row(&self, key: u32) -> Option<&Row> {
        self.rows
            .binary_search_by_key(&key, |r| r.key)
            .ok()
            .map(|i| &self.rows[i])
    }
}

/// Every input a message can arrive on at `node`: injected, or from each
/// neighbour on each VC (travelling away from that neighbour).
fn inputs(rel: &Relation, node: NodeId) -> Vec<Input> {
    let mut all = vec![Input::INJECTED];
    for q in rel.net.links(node) {
        if let Port::Link { dim, dir } = q {
            for vc in 0..rel.vcs {
                all.push(Input {
                    port: Port::Link {
                        dim,
                        dir: dir.reverse(),
                    },
                    vc,
                });
            }
        }
    }
    all
}

/// The router's `node_id` at `node` (docs/interface.md: coordinates of
/// `coord_bits` each, dimension 0 lowest).
pub fn node_id(shape: &DecoderShape, net: &Network, node: NodeId) -> u64 {
    (0..net.n())
        .map(|d| u64::from(net.coord(node, d)) << (shape.coord_bits * d))
        .sum()
}

/// Every address a head flit for `dest` may carry at `node`
/// (docs/interface.md): the destination's coordinates (absolute); the
/// remaining offsets (relative; the minimal one on a torus, both signs when
/// both ways are minimal); the bits that still differ (hypercube, relative).
pub fn addresses(shape: &DecoderShape, net: &Network, node: NodeId, dest: NodeId) -> Vec<u64> {
    let f = shape.field_bits;
    let fmask = (1u64 << f) - 1;
    let mut all = vec![0u64];
    for d in 0..net.n() {
        let a = i64::from(net.coord(node, d));
        let b = i64::from(net.coord(dest, d));
        let k = i64::from(net.radix);
        let fields: Vec<i64> = match (shape.topology, shape.addressing) {
            (_, Addressing::Absolute) => vec![b],
            (Topology::Hypercube, _) => vec![i64::from(a != b)],
            (Topology::Mesh, _) => vec![b - a],
            (Topology::Torus, _) => {
                let fwd = (b - a).rem_euclid(k);
                let back = k - fwd;
                if fwd == 0 {
                    vec![0]
                } else if fwd == back {
                    vec![fwd, -back]
                } else if fwd < back {
                    vec![fwd]
                } else {
                    vec![-back]
                }
            }
        };
        all = all
            .iter()
            .flat_map(|h| {
                fields
                    .iter()
                    .map(move |x| h | ((*x as u64) & fmask) << (f * d))
            })
            .collect();
    }
    all
}

/// Permitted output VCs, bit k = o V + v (P V <= 256).
type Mask = [u64; 4];

/// The answer to one question: permitted output VCs, and where it was
/// asked (node, destination, address).
struct Answer {
    mask: Mask,
    at: (NodeId, NodeId, u64),
}

fn place(net: &Network, (node, dest, address): (NodeId, NodeId, u64)) -> String {
    format!(
        "at {} for {} (address {address:#x})",
        net.node_name(node),
        net.node_name(dest)
    )
}

fn mask_text(mask: &[u64], v: usize, pv: usize) -> String {
    let on: Vec<String> = (0..pv)
        .filter(|k| (mask[k / 64] >> (k % 64)) & 1 == 1)
        .map(|k| format!("p{} vc{}", k / v, k % v))
        .collect();
    if on.is_empty() {
        "nothing".into()
    } else {
        on.join(", ")
    }
}

/// Compiles `rel` for decoders reading `addressing` headers, or explains
/// why a decoder table cannot hold it.
pub fn compile(rel: &Relation, addressing: Addressing) -> Result<CompiledTable> {
    let net = &rel.net;
    let header_only = DecoderShape::new(
        net.topology,
        net.n(),
        net.radix,
        addressing,
        rel.vcs as usize,
        false,
    );
    if !header_only.node_key {
        if let Ok(t) = compile_with(rel, header_only) {
            return Ok(t);
        }
    }
    let with_node = DecoderShape::new(
        net.topology,
        net.n(),
        net.radix,
        addressing,
        rel.vcs as usize,
        true,
    );
    compile_with(rel, with_node)
}

fn compile_with(rel: &Relation, shape: DecoderShape) -> Result<CompiledTable> {
    let net = &rel.net;
    let v = rel.vcs as usize;
    let pv = shape.outputs();
    let words = pv.div_ceil(64);
    if pv > 64 * 4 {
        return Err(Error::invalid(format!(
            "{}: {pv} output virtual channels; the router's decoder table covers at most 256",
            rel.name()
        )));
    }
    let mut seen: std::collections::HashMap<u32, Answer> = Default::default();
    let mut buf = Vec::new();
    let refuse = |why: String| {
        Err(Error::invalid(format!(
            "{}: {why}, so the router's address decoder cannot hold the relation; not \
             supported yet",
            rel.name()
        )))
    };
    for node in 0..net.nodes() {
        let ins = inputs(rel, node);
        let me = node_id(&shape, net, node);
        for dest in 0..net.nodes() {
            let mut first: Option<(Mask, Input)> = None;
            for input in &ins {
                rel.route(node, *input, dest, &mut buf);
                let mut mask = [0u64; 4];
                for h in &buf {
                    let k = net.port_index(h.port) * v + h.vc as usize;
                    mask[k / 64] |= 1 << (k % 64);
                }
                match &first {
                    None => first = Some((mask, *input)),
                    Some((m, i)) if *m != mask => {
                        return refuse(format!(
                            "at {} for {} the permitted outputs differ between arriving on \
                             {} vc{} ({}) and on {} vc{} ({}); the decoder does not see the \
                             input",
                            net.node_name(node),
                            net.node_name(dest),
                            i.port,
                            i.vc,
                            mask_text(m, v, pv),
                            input.port,
                            input.vc,
                            mask_text(&mask, v, pv)
                        ));
                    }
                    Some(_) => {}
                }
            }
            let (mask, _) = first.expect("at least the injection input");
            for address in addresses(&shape, net, node, dest) {
                let key = shape.key(address, me);
                let here = (node, dest, address);
                match seen.get(&key) {
                    None => {
                        seen.insert(key, Answer { mask, at: here });
                    }
                    Some(a) if a.mask != mask => {
                        return refuse(format!(
                            "routing key {key:#x} gets {} {} but {} {}",
                            mask_text(&a.mask, v, pv),
                            place(net, a.at),
                            mask_text(&mask, v, pv),
                            place(net, here)
                        ));
                    }
                    Some(_) => {}
                }
            }
        }
    }
    if seen.len() > MAX_ROWS {
        return refuse(format!(
            "the decoder table would hold {} routing keys (at most {MAX_ROWS})",
            seen.len()
        ));
    }
    let mut seen: Vec<(u32, Answer)> = seen.into_iter().collect();
    seen.sort_by_key(|(key, _)| *key);
    let rows = seen
        .into_iter()
        .map(|(key, a)| Row {
            key,
            mask: a.mask[..words].to_vec(),
        })
        .collect();
    Ok(CompiledTable { shape, rows })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::Algorithm;

    fn table(algo: Algorithm, topology: Topology, n: u32, k: u32, v: u32) -> CompiledTable {
        let net = Network::new(topology, n, k).unwrap();
        let rel = Relation::new(algo, net, v).unwrap();
        compile(&rel, Addressing::Relative).unwrap()
    }

    /// Key of per-dimension codes, dimension 0 first.
    fn key(codes: &[u32]) -> u32 {
        codes.iter().enumerate().map(|(d, c)| c << (3 * d)).sum()
    }

    fn ports_and_vcs(t: &CompiledTable, key: u32) -> Vec<(usize, usize)> {
        let v = t.vcs();
        let row = t.row(key).expect("key present");
        (0..t.shape.outputs())
            .filter(|&k| row.permits(k))
            .map(|k| (k / v, k % v))
            .collect()
    }

    #[test]
    fn dimension_order_on_a_mesh_is_x_then_y_on_every_vc() {
        let t = table(Algorithm::DimensionOrder, Topology::Mesh, 2, 4, 2);
        assert!(!t.needs_node());
        // Written by hand (codes: 0 zero, 1 +, 3 -): x first, both VCs.
        assert_eq!(ports_and_vcs(&t, key(&[0, 0])), [(0, 0)]);
        assert_eq!(ports_and_vcs(&t, key(&[1, 3])), [(1, 0), (1, 1)]);
        assert_eq!(ports_and_vcs(&t, key(&[3, 1])), [(2, 0), (2, 1)]);
        assert_eq!(ports_and_vcs(&t, key(&[0, 3])), [(4, 0), (4, 1)]);
        assert_eq!(t.rows.len(), 9);
    }

    #[test]
    fn torus_dimension_order_takes_the_dateline_class_from_the_key() {
        let t = table(Algorithm::DimensionOrder, Topology::Torus, 2, 5, 2);
        assert!(t.needs_node(), "datelines need the node's coordinates");
        // survey §8: class 0 (VC 0) while the wraparound link is ahead,
        // class 1 (VC 1) once it is not.
        assert_eq!(ports_and_vcs(&t, key(&[2, 0])), [(1, 0)]);
        assert_eq!(ports_and_vcs(&t, key(&[1, 0])), [(1, 1)]);
        assert_eq!(ports_and_vcs(&t, key(&[0, 4])), [(4, 0)]);
        assert_eq!(ports_and_vcs(&t, key(&[0, 3])), [(4, 1)]);
    }

    #[test]
    fn a_torus_tie_is_plus_for_dimension_order_and_both_ways_for_duato() {
        let t = table(Algorithm::DimensionOrder, Topology::Torus, 2, 4, 2);
        // Tie in x, going + wraps: +x, class 0.
        assert_eq!(ports_and_vcs(&t, key(&[5, 0])), [(1, 0)]);
        assert_eq!(ports_and_vcs(&t, key(&[6, 0])), [(1, 1)]);
        let d = table(Algorithm::Duato, Topology::Torus, 2, 4, 3);
        // Escape +x in its dateline class; adaptive VC 2 both ways.
        assert_eq!(ports_and_vcs(&d, key(&[5, 0])), [(1, 0), (1, 2), (2, 2)]);
    }

    #[test]
    fn hypercube_needs_the_node_id_only_when_direction_matters() {
        let e = table(Algorithm::DimensionOrder, Topology::Hypercube, 3, 2, 1);
        assert!(!e.needs_node());
        // e-cube: lowest differing dimension, port d + 1.
        assert_eq!(ports_and_vcs(&e, key(&[0, 1, 1])), [(2, 0)]);
        let nf = table(Algorithm::NegativeFirst, Topology::Hypercube, 3, 2, 1);
        assert!(nf.needs_node(), "negative-first clears 1 bits first");
        // Node bit 0 is 0 (+ hop), bit 1 is 1 (- hop): the - hop first.
        assert_eq!(ports_and_vcs(&nf, key(&[1, 3, 0])), [(2, 0)]);
    }

    #[test]
    fn a_relation_that_depends_on_the_input_is_refused_naming_where() {
        use crate::algo::TurnSet;
        let net = Network::new(Topology::Mesh, 2, 3).unwrap();
        let rel = Relation::turns(net, TurnSet::west_first()).unwrap();
        let err = compile(&rel, Addressing::Relative).unwrap_err().to_string();
        assert!(
            err.contains("not supported yet") && err.contains("arriving on"),
            "{err}"
        );
    }
}
