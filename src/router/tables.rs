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
use crate::blocks::address_decoder::{signs_of, DecoderShape, Row, Sign, CODE_BITS};
use crate::blocks::es_table::Entry;
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
    /// With `--table economical`: the reset contents of the router's
    /// programmable table, which then replaces `rows` in the hardware.
    pub es: Option<EsContents>,
    /// Whether an output VC may take a new packet only once its downstream
    /// queue is empty. Duato's theorem, on which the escape channels of
    /// *-channels and Duato rest, assumes it (survey §4.2, assumption 6: a
    /// queue never holds flits of two messages); without it a packet can
    /// wait behind another packet's flits in an adaptive queue, a wait the
    /// extended channel dependency graph does not contain, and a 4-ary
    /// torus under *-channels deadlocks at high load (the `sim` tests).
    /// Dimension order, the turn models and planar-adaptive are proved on
    /// the whole channel dependency graph, where such a wait adds no arc.
    pub atomic: bool,
    /// With `--lookahead`: the VCs each look-ahead field permits.
    pub la: Option<super::lookahead::LookaheadTable>,
    /// Per input port q, bit o: some packet that can arrive on q (injected
    /// there, or sent by the upstream router's relation) may leave by
    /// output port o ([`reach`]). The crossbar connects only these pairs.
    pub reach: Vec<u64>,
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

    /// The crossbar's connections (index o P + i): the pairs of [`reach`],
    /// or every pair with a programmable table, whose contents the relation
    /// does not bound.
    pub fn crossbar_links(&self) -> Vec<bool> {
        let p = self.ports();
        (0..p * p)
            .map(|k| self.es.is_some() || (self.reach[k % p] >> (k / p)) & 1 == 1)
            .collect()
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
    Ok(CompiledTable {
        shape,
        rows,
        es: None,
        atomic: rel.has_escape(),
        la: None,
        reach: reach(rel),
    })
}

/// Per input port q (docs/interface.md numbering), the output ports (bit o)
/// a packet arriving on q can leave by, over every node: a packet injected
/// at the node, or one the upstream router's relation sends over the link
/// into q, asked where the relation sends it next. A dimension-order
/// router never turns a flit from a higher dimension back to a lower one,
/// nor sends it back where it came from (Chien §5.1 builds its crossbar
/// from those facts); the other relations have their own gaps.
pub fn reach(rel: &Relation) -> Vec<u64> {
    let net = &rel.net;
    let mut reach = vec![0u64; net.port_count()];
    let mut buf = Vec::new();
    let mut next = Vec::new();
    for node in 0..net.nodes() {
        for dest in 0..net.nodes() {
            rel.route(node, Input::INJECTED, dest, &mut buf);
            for h in &buf {
                reach[0] |= 1 << net.port_index(h.port);
                let Port::Link { dim, dir } = h.port else {
                    continue;
                };
                let Some(there) = net.neighbour(node, h.port) else {
                    continue;
                };
                let q = net.port_index(Port::Link {
                    dim,
                    dir: dir.reverse(),
                });
                let input = Input {
                    port: h.port,
                    vc: h.vc,
                };
                rel.route(there, input, dest, &mut next);
                for o in &next {
                    reach[q] |= 1 << net.port_index(o.port);
                }
            }
        }
    }
    reach
}

/// Largest number of dimensions of the router's economical-storage table
/// (3^4 = 81 entries, the block's 7-bit entry address).
pub const MAX_ES_DIMS: usize = 4;

/// Largest number of VC classes (the router's 4-bit class registers).
pub const MAX_CLASSES: usize = 16;

/// The economical-storage table of a router (LAPSES §5.2.1): 3^n entries,
/// entry e = sum_d s_d 3^d with s_d = 0 (destination coordinate equal to
/// the router's), 1 (greater), 2 (smaller); each entry a set of output
/// ports and a VC class. LAPSES gives an entry output ports only; the
/// relations here also name VCs (escape and adaptive channels, planes), so
/// an entry also holds a class, and class c permits, on each port o, the
/// VCs of `classes[c][o]`. The classes are fixed when the router is
/// generated; entries are programmable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EsContents {
    pub dims: usize,
    pub ports: usize,
    pub vcs: usize,
    /// Reset contents, entry by entry.
    pub entries: Vec<Entry>,
    /// Per VC class, per port: the VCs permitted (bit v).
    pub classes: Vec<Vec<u32>>,
}

impl EsContents {
    /// Bits of `cfg_class` (docs/interface.md): enough for every class.
    pub fn class_bits(&self) -> u32 {
        crate::spec::bits_for(self.classes.len().max(2) as u32 - 1)
    }

    /// Bits of `cfg_addr`: enough for entry 3^n - 1.
    pub fn addr_bits(&self) -> u32 {
        crate::spec::bits_for(self.entries.len() as u32 - 1)
    }

    /// Whether `entry` permits output VC k = o V + v: port o in its mask
    /// and v in its class's VCs for o (a class past the list permits
    /// nothing).
    pub fn permits(&self, entry: Entry, k: usize) -> bool {
        let (o, v) = (k / self.vcs, k % self.vcs);
        (entry.mask >> o) & 1 == 1 && self.class_permits(usize::from(entry.class), o, v)
    }

    /// Whether VC class `class` permits VC `v` on port `o`.
    pub fn class_permits(&self, class: usize, o: usize, v: usize) -> bool {
        self.classes
            .get(class)
            .is_some_and(|c| (c[o] >> v) & 1 == 1)
    }

    /// The decoder rows of the table's word lines: key of entry e (the
    /// sign vector as state codes) -> bit e.
    pub fn word_lines(&self) -> Vec<Row> {
        (0..self.entries.len())
            .map(|e| {
                let key = signs_of(e, self.dims)
                    .iter()
                    .enumerate()
                    .fold(0u32, |key, (d, s)| {
                        let code = match s {
                            Sign::Zero => 0,
                            Sign::Plus => 1,
                            Sign::Minus => 3,
                        };
                        key | code << (CODE_BITS * d)
                    });
                let mut mask = vec![0u64; self.entries.len().div_ceil(64)];
                mask[e / 64] |= 1 << (e % 64);
                Row { key, mask }
            })
            .collect()
    }

    /// The entry's sign vector as `(+,0,-)`.
    pub fn signs_text(&self, e: usize) -> String {
        let signs: Vec<&str> = signs_of(e, self.dims)
            .iter()
            .map(|s| match s {
                Sign::Zero => "0",
                Sign::Plus => "+",
                Sign::Minus => "-",
            })
            .collect();
        format!("({})", signs.join(","))
    }

    /// The contents as Markdown: the classes, then one line per entry.
    pub fn to_markdown(&self) -> String {
        let mut s = String::new();
        s.push_str("| VC class | VCs permitted on each port |\n|---|---|\n");
        for (c, per) in self.classes.iter().enumerate() {
            let ports: Vec<String> = per
                .iter()
                .enumerate()
                .map(|(o, m)| format!("p{o}: {}", vc_list(*m, self.vcs)))
                .collect();
            s.push_str(&format!("| {c} | {} |\n", ports.join("; ")));
        }
        s.push_str("\n| entry | signs | ports (cfg_mask) | VC class |\n|---|---|---|---|\n");
        for (e, en) in self.entries.iter().enumerate() {
            let ports: Vec<String> = (0..self.ports)
                .filter(|o| (en.mask >> o) & 1 == 1)
                .map(|o| format!("p{o}"))
                .collect();
            s.push_str(&format!(
                "| {e} | {} | {} ({:#x}) | {} |\n",
                self.signs_text(e),
                if ports.is_empty() {
                    "none".to_string()
                } else {
                    ports.join(" ")
                },
                en.mask,
                en.class
            ));
        }
        s
    }
}

fn vc_list(mask: u32, vcs: usize) -> String {
    let on: Vec<String> = (0..vcs)
        .filter(|v| (mask >> v) & 1 == 1)
        .map(|v| format!("vc{v}"))
        .collect();
    if on.is_empty() {
        "-".into()
    } else {
        on.join(" ")
    }
}

/// The economical-storage contents of `table`, whose key must be the sign
/// vector (meshes and hypercubes with absolute addressing: codes 0, 1, 3
/// only), or why the table cannot hold it.
pub fn economical(table: &CompiledTable) -> Result<EsContents> {
    let shape = &table.shape;
    let (n, p, v) = (shape.dims, shape.ports, shape.vcs);
    if n > MAX_ES_DIMS {
        return Err(Error::invalid(format!(
            "the economical-storage table holds 3^n entries for at most {MAX_ES_DIMS} \
             dimensions (3^{MAX_ES_DIMS} = 81), not {n}"
        )));
    }
    let mut entries = vec![Entry::default(); 3usize.pow(n as u32)];
    // Per entry: the VCs permitted on each port (0 where the port is not).
    let mut wanted: Vec<Vec<u32>> = vec![vec![0; p]; entries.len()];
    for r in &table.rows {
        let mut e = 0;
        for d in (0..n).rev() {
            let s = match (r.key >> (CODE_BITS * d)) & 7 {
                0 => 0,
                1 => 1,
                3 => 2,
                code => {
                    return Err(Error::invalid(format!(
                        "routing key {:#x} has code {code} in dimension {d}: the \
                         economical-storage table is indexed by the sign of (destination \
                         - node id) alone (LAPSES §5.2.1)",
                        r.key
                    )))
                }
            };
            e = 3 * e + s;
        }
        for (o, want) in wanted[e].iter_mut().enumerate() {
            let vcs: u32 = (0..v)
                .filter(|c| r.permits(o * v + c))
                .map(|c| 1 << c)
                .sum();
            if vcs != 0 {
                entries[e].mask |= 1 << o;
            }
            *want = vcs;
        }
    }
    // Classes: the first whose VCs agree on every port the entry permits;
    // a port no entry of a class permits gets every VC.
    let mut classes: Vec<Vec<Option<u32>>> = Vec::new();
    for (e, want) in wanted.iter().enumerate() {
        let fits = |c: &Vec<Option<u32>>| {
            (0..p).all(|o| want[o] == 0 || c[o].map_or(true, |x| x == want[o]))
        };
        let c = match classes.iter().position(fits) {
            Some(c) => c,
            None => {
                classes.push(vec![None; p]);
                classes.len() - 1
            }
        };
        for o in (0..p).filter(|&o| want[o] != 0) {
            classes[c][o] = Some(want[o]);
        }
        entries[e].class = c as u8;
    }
    if classes.len() > MAX_CLASSES {
        return Err(Error::invalid(format!(
            "the relation needs {} VC classes in its economical-storage table (at most \
             {MAX_CLASSES})",
            classes.len()
        )));
    }
    let all = (1u32 << v) - 1;
    let es = EsContents {
        dims: n,
        ports: p,
        vcs: v,
        entries,
        classes: classes
            .into_iter()
            .map(|c| c.into_iter().map(|x| x.unwrap_or(all)).collect())
            .collect(),
    };
    // The contents hold exactly the compiled rows.
    for (e, want) in wanted.iter().enumerate() {
        for k in 0..p * v {
            let expect = (want[k / v] >> (k % v)) & 1 == 1;
            if es.permits(es.entries[e], k) != expect {
                return Err(Error::invalid(format!(
                    "internal: economical-storage entry {e} does not hold its outputs"
                )));
            }
        }
    }
    Ok(es)
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

    /// Output ports as a bit set.
    fn ports(list: &[usize]) -> u64 {
        list.iter().map(|o| 1 << o).sum()
    }

    #[test]
    fn dimension_order_never_turns_back_nor_to_a_lower_dimension() {
        // Ports: 0 local, 1 toward +x, 2 toward -x, 3 toward +y, 4 toward -y
        // (docs/interface.md). A flit arriving on port 1 travels -x: it goes
        // on -x, turns to y, or leaves (Chien §5.1: x first, then y).
        for (topology, k) in [(Topology::Mesh, 4), (Topology::Torus, 5)] {
            let t = table(Algorithm::DimensionOrder, topology, 2, k, 2);
            assert_eq!(t.reach[1], ports(&[0, 2, 3, 4]), "{topology}");
            assert_eq!(t.reach[2], ports(&[0, 1, 3, 4]), "{topology}");
            assert_eq!(t.reach[3], ports(&[0, 4]), "{topology}");
            assert_eq!(t.reach[4], ports(&[0, 3]), "{topology}");
            assert_eq!(t.reach[0] & ports(&[1, 2, 3, 4]), ports(&[1, 2, 3, 4]));
            let links = t.crossbar_links();
            assert!(!links[5 + 3], "no turn from y (port 3) to +x (port 1)");
            assert!(links[5 + 2], "x to x goes straight on");
        }
        // A 4-ary torus breaks the tie of offset 2 toward + (`dor_dir`): a
        // flit travelling -x has offset -1 and never goes on -x.
        let t = table(Algorithm::DimensionOrder, Topology::Torus, 2, 4, 2);
        assert_eq!(t.reach[1], ports(&[0, 3, 4]));
        assert_eq!(t.reach[2], ports(&[0, 1, 3, 4]));
        // e-cube on a 3-cube: after dimension d only higher dimensions.
        let e = table(Algorithm::DimensionOrder, Topology::Hypercube, 3, 2, 1);
        assert_eq!(e.reach[1], ports(&[0, 2, 3]));
        assert_eq!(e.reach[2], ports(&[0, 3]));
        assert_eq!(e.reach[3], ports(&[0]));
    }

    #[test]
    fn adaptive_relations_keep_their_turns_and_a_programmable_table_wires_all() {
        // West-first (turn model): a flit travelling west (arrived on the
        // east port 1) may go on west, north, south or leave; one travelling
        // north (arrived on port 4, the -y side) never turns west (port 2).
        let w = table(Algorithm::WestFirst, Topology::Mesh, 2, 4, 1);
        assert_eq!(w.reach[1], ports(&[0, 2, 3, 4]));
        assert_eq!(w.reach[4] & ports(&[2]), 0, "no turn to the west");
        assert_ne!(w.reach[4] & ports(&[1]), 0, "north may turn east");
        let mut es = table(Algorithm::DimensionOrder, Topology::Mesh, 2, 4, 1);
        es.es = Some(economical(&es).expect("a mesh has a 3^n table"));
        assert!(es.crossbar_links().iter().all(|&l| l));
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
