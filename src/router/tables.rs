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

use std::collections::hash_map;

use crate::algo::tables as algo_tables;
use crate::algo::{Hop, Input, Network, NodeId, Relation};
use crate::blocks::address_decoder::{signs_of, DecoderShape, Row, Sign, CODE_BITS};
use crate::blocks::es_table::Entry;
use crate::error::{Error, Result};
use crate::interface::{deciding_inputs, entry_port, input_through, HeadFormat};
use crate::limits::{
    MAX_DECODER_KEYS, MAX_ECONOMICAL_DIMS, MAX_FULL_TABLE_NODES, MAX_META_TABLE_NODES,
    MAX_TABLE_VC_CLASSES,
};
use crate::spec::Addressing;
use rayon::prelude::*;

/// The look-ahead field's VCs ([`super::lookahead`] compiles it): per
/// field value (bit o: port o permitted) the permitted output VCs (bit
/// o V + v).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LookaheadTable {
    /// Physical ports P of the router.
    pub ports: usize,
    /// Virtual channels V per physical channel.
    pub vcs: usize,
    /// Bits of the field (`spec::lookahead_field_bits`).
    pub field_bits: usize,
    /// Field -> permitted output VCs, sorted by field (`Row::key`).
    pub rows: Vec<Row>,
    /// The next router's field from its decoder's routing key (the key of
    /// the head as it leaves, at the neighbour's node id): key -> field
    /// (bit b of the mask: field bit b), sorted by key.
    pub next: Vec<Row>,
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

/// A relation as the router's hardware holds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompiledTable {
    /// How the decoders read headers and node ids.
    pub shape: DecoderShape,
    /// Key -> permitted output VCs (bit o V + v), sorted by key.
    pub rows: Vec<Row>,
    /// With `table = economical`: the reset contents of the router's
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
    /// With `lookahead = true`: the VCs each look-ahead field permits.
    pub la: Option<LookaheadTable>,
    /// Per input port q, bit o: some packet that can arrive on q (injected
    /// there, or sent by the upstream router's relation) may leave by
    /// output port o ([`reach`]). The crossbar connects only these pairs.
    pub reach: Vec<u64>,
    /// Per input port q, bit c: a flit may arrive on q in VC c (every VC
    /// on the local port; on a link, the VCs on which the upstream
    /// router's relation sends over it, [`reach`]).
    pub arrive: Vec<u64>,
    /// Crossbar ports per physical link: 1, or V in the core of a router
    /// with a crossbar port per VC (`super::vcports`), whose port o is on
    /// link o / V.
    pub per_link: usize,
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

    /// Per input VC i = q V + c: whether it needs a buffer, that is,
    /// whether a flit may arrive on it ([`CompiledTable::arrive`]); every
    /// one with a programmable table, whose contents the relation does not
    /// bound.
    pub fn buffered_inputs(&self) -> Vec<bool> {
        let v = self.vcs();
        (0..self.ports() * v)
            .map(|i| self.es.is_some() || (self.arrive[i / v] >> (i % v)) & 1 == 1)
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

/// The router's `node_id` at `node` ([`crate::interface::node_id`]).
pub fn node_id(shape: &DecoderShape, net: &Network, node: NodeId) -> u64 {
    crate::interface::node_id(net, shape.coord_bits as u32, node)
}

/// Every address a head flit for `dest` may carry at `node`
/// ([`crate::interface::HeadFormat::accepted_addresses`]: at a torus tie,
/// both signs).
pub fn addresses(shape: &DecoderShape, net: &Network, node: NodeId, dest: NodeId) -> Vec<u64> {
    HeadFormat::new(shape.topology, net.dims, net.radix, shape.addressing)
        .accepted_addresses(net, node, dest)
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

/// Routing key -> the first answer seen for it.
type Seen = std::collections::HashMap<u32, Answer, std::hash::BuildHasherDefault<KeyHasher>>;

/// A hash of a routing key (Fibonacci hashing): the scan looks a key up
/// once per node, destination and address (16.7 million times at 4,096
/// nodes), where the standard library's DoS-resistant hash is not needed.
#[derive(Default)]
struct KeyHasher(u64);

impl std::hash::Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        // The product's high half depends on every bit of the key; the
        // table indexes by the low bits.
        self.0 ^ (self.0 >> 32)
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }

    fn write_u32(&mut self, key: u32) {
        self.write_u64(u64::from(key));
    }

    fn write_u64(&mut self, key: u64) {
        self.0 = (self.0.rotate_left(5) ^ key).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
}

/// Asks the relation at every node of `nodes` for every destination (and
/// every input, where the relation reads it), and maps each routing key
/// the decoder computes there to its answer; `Err` says where two
/// questions with one key, or two inputs, get different answers.
fn scan(
    rel: &Relation,
    shape: &DecoderShape,
    nodes: std::ops::Range<NodeId>,
) -> std::result::Result<Seen, String> {
    let net = &rel.net;
    let v = rel.vcs as usize;
    let pv = shape.outputs();
    let mut seen = Seen::default();
    let mut buf = Vec::new();
    let format = HeadFormat::new(shape.topology, net.dims, net.radix, shape.addressing);
    let mut accepted = Vec::new();
    for node in nodes {
        let ins = deciding_inputs(rel, node);
        let me = node_id(shape, net, node);
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
                        return Err(format!(
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
            format.accepted_addresses_into(net, node, dest, &mut accepted);
            for &address in &accepted {
                let key = shape.key(address, me);
                let here = (node, dest, address);
                match seen.entry(key) {
                    hash_map::Entry::Vacant(e) => {
                        e.insert(Answer { mask, at: here });
                    }
                    hash_map::Entry::Occupied(a) if a.get().mask != mask => {
                        return Err(format!(
                            "routing key {key:#x} gets {} {} but {} {}",
                            mask_text(&a.get().mask, v, pv),
                            place(net, a.get().at),
                            mask_text(&mask, v, pv),
                            place(net, here)
                        ));
                    }
                    hash_map::Entry::Occupied(_) => {}
                }
            }
        }
    }
    Ok(seen)
}

fn compile_with(rel: &Relation, shape: DecoderShape) -> Result<CompiledTable> {
    let net = &rel.net;
    let pv = shape.outputs();
    let words = pv.div_ceil(64);
    if pv > 64 * 4 {
        return Err(Error::invalid(format!(
            "{}: {pv} output virtual channels; the router's decoder table covers at most 256",
            rel.name()
        )));
    }
    let refuse = |why: String| {
        Err(Error::invalid(format!(
            "{}: {why}, so the router's address decoder cannot hold the relation; not \
             supported yet",
            rel.name()
        )))
    };
    // The nodes are scanned in parallel chunks; where any chunk, or the
    // merge, finds two answers for one key, the whole network is scanned
    // again in order, so the refusal names the first place it fails, the
    // same whatever the number of threads.
    let n = net.nodes();
    let chunk = n.div_ceil(4 * rayon::current_num_threads() as u32).max(1);
    let ranges: Vec<std::ops::Range<NodeId>> = (0..n)
        .step_by(chunk as usize)
        .map(|lo| lo..(lo + chunk).min(n))
        .collect();
    let parts: Vec<std::result::Result<Seen, String>> = ranges
        .into_par_iter()
        .map(|r| scan(rel, &shape, r))
        .collect();
    let mut seen = Seen::default();
    let mut consistent = true;
    for part in parts {
        match part {
            Ok(map) => {
                for (key, answer) in map {
                    match seen.get(&key) {
                        None => {
                            seen.insert(key, answer);
                        }
                        Some(a) if a.mask != answer.mask => consistent = false,
                        Some(_) => {}
                    }
                }
            }
            Err(_) => consistent = false,
        }
    }
    if !consistent {
        match scan(rel, &shape, 0..n) {
            Err(why) => return refuse(why),
            Ok(map) => seen = map,
        }
    }
    if seen.len() > MAX_DECODER_KEYS {
        return refuse(format!(
            "the decoder table would hold {} routing keys (at most {MAX_DECODER_KEYS})",
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
    let (reach, arrive) = reach(rel);
    Ok(CompiledTable {
        shape,
        rows,
        es: None,
        atomic: rel.has_escape(),
        la: None,
        reach,
        arrive,
        per_link: 1,
    })
}

/// Per input port q (docs/interface.md numbering), the output ports (bit o)
/// a packet arriving on q can leave by, over every node: a packet injected
/// at the node, or one the upstream router's relation sends over the link
/// into q, asked where the relation sends it next. A dimension-order
/// router never turns a flit from a higher dimension back to a lower one,
/// nor sends it back where it came from (Chien §5.1 builds its crossbar
/// from those facts); the other relations have their own gaps.
///
/// Second, per input port q, the VCs (bit c) a flit may arrive on: every
/// VC on the local port, and on a link the VCs the upstream relation sends
/// on over it. Planar-adaptive routing, for one, carries a dimension's
/// first-dimension class and its second-dimension classes only where the
/// planes use them (Chien §5.2).
pub fn reach(rel: &Relation) -> (Vec<u64>, Vec<u64>) {
    let (reach, mut arrive) = if rel.reads_input() {
        reach_per_node(rel)
    } else {
        reach_per_destination(rel)
    };
    arrive[0] = (1u64 << rel.vcs) - 1;
    (reach, arrive)
}

/// [`reach`] without `arrive[0]`: per node, in parallel, the relation
/// asked again at the far end of each hop with the input it arrives on.
fn reach_per_node(rel: &Relation) -> (Vec<u64>, Vec<u64>) {
    let net = &rel.net;
    (0..net.nodes())
        .into_par_iter()
        .fold(
            || (vec![0u64; net.port_count()], vec![0u64; net.port_count()]),
            |(mut reach, mut arrive), node| {
                let mut buf = Vec::new();
                let mut next = Vec::new();
                for dest in 0..net.nodes() {
                    rel.route(node, Input::INJECTED, dest, &mut buf);
                    for h in &buf {
                        reach[0] |= 1 << net.port_index(h.port);
                        let Some(there) = net.neighbour(node, h.port) else {
                            continue;
                        };
                        let q = net.port_index(entry_port(h.port));
                        let input = input_through(entry_port(h.port), h.vc);
                        arrive[q] |= 1 << h.vc;
                        rel.route(there, input, dest, &mut next);
                        for o in &next {
                            reach[q] |= 1 << net.port_index(o.port);
                        }
                    }
                }
                (reach, arrive)
            },
        )
        .reduce(
            || (vec![0u64; net.port_count()], vec![0u64; net.port_count()]),
            or_each,
        )
}

/// Two pairs of bit sets OR-ed together, set by set.
fn or_each(
    (mut r, mut a): (Vec<u64>, Vec<u64>),
    (r2, a2): (Vec<u64>, Vec<u64>),
) -> (Vec<u64>, Vec<u64>) {
    for (x, y) in r.iter_mut().zip(r2) {
        *x |= y;
    }
    for (x, y) in a.iter_mut().zip(a2) {
        *x |= y;
    }
    (r, a)
}

/// [`reach`] without `arrive[0]`, for a relation that does not read the
/// input: its answer at the far end of a hop is the one for a packet
/// injected there, so per destination (in parallel) the relation is asked
/// once at every node instead of once more per hop.
fn reach_per_destination(rel: &Relation) -> (Vec<u64>, Vec<u64>) {
    let net = &rel.net;
    let ports = net.port_count();
    (0..net.nodes())
        .into_par_iter()
        .fold(
            || (vec![0u64; ports], vec![0u64; ports]),
            |(mut reach, mut arrive), dest| {
                let mut buf = Vec::new();
                // Every node's hops towards dest, and their output ports.
                let mut hops = Vec::new();
                let mut start = Vec::with_capacity(net.nodes() as usize + 1);
                let mut leaves = Vec::with_capacity(net.nodes() as usize);
                for node in 0..net.nodes() {
                    rel.route(node, Input::INJECTED, dest, &mut buf);
                    start.push(hops.len());
                    leaves.push(
                        buf.iter()
                            .fold(0u64, |m, h| m | 1 << net.port_index(h.port)),
                    );
                    hops.extend_from_slice(&buf);
                }
                start.push(hops.len());
                for node in 0..net.nodes() {
                    reach[0] |= leaves[node as usize];
                    for h in &hops[start[node as usize]..start[node as usize + 1]] {
                        let Some(there) = net.neighbour(node, h.port) else {
                            continue;
                        };
                        let q = net.port_index(entry_port(h.port));
                        arrive[q] |= 1 << h.vc;
                        reach[q] |= leaves[there as usize];
                    }
                }
                (reach, arrive)
            },
        )
        .reduce(|| (vec![0u64; ports], vec![0u64; ports]), or_each)
}

/// Which table a router holds (LAPSES §5, Table 5).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TableKind {
    /// Economical storage (§5.2.1): 3^n entries indexed by the sign vector.
    Economical,
    /// Full table (§5): one entry per destination, entry = destination
    /// node index (sum_d x_d k^d).
    Full,
    /// Two-level meta table (§5.1.1, §5.2.2): the sub-cluster id is the
    /// coordinates of dimensions `sub_lo..sub_hi`, the cluster id those of
    /// the others (`sub_hi..n` when `sub_lo` = 0, else `0..sub_lo`).
    /// Entries 0 .. k^s - 1 for the nodes of the router's own cluster
    /// (entry = the destination's index over the sub-cluster dimensions),
    /// then one per cluster (k^s + its index over the cluster dimensions).
    Meta {
        /// First dimension of the sub-cluster id.
        sub_lo: usize,
        /// One past the last dimension of the sub-cluster id.
        sub_hi: usize,
    },
}

/// A router's programmable routing table (LAPSES §5): entries, each a set
/// of output ports and a VC class. LAPSES gives an entry output ports
/// only; the relations here also name VCs (escape and adaptive channels,
/// planes, torus dateline classes), so an entry also holds a class, and
/// class c permits, on each port o, the VCs of `classes[c][o]`. The classes
/// are fixed when the router is generated; entries are programmable.
///
/// The economical-storage table (§5.2.1): 3^n entries, entry e = sum_d s_d
/// 3^d with s_d = 0 (destination coordinate equal to the router's), 1
/// (greater), 2 (smaller); its contents are the same at every node. The
/// full and meta tables' contents depend on the node: reset loads those of
/// the router's `node_id` (`by_node`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EsContents {
    /// Which table this is.
    pub kind: TableKind,
    /// Dimensions n of the network.
    pub dims: usize,
    /// Physical ports P of the router, the local port included.
    pub ports: usize,
    /// Virtual channels V per physical channel.
    pub vcs: usize,
    /// Nodes per dimension k.
    pub radix: u32,
    /// Bits of one coordinate (of `node_id` and of an absolute address
    /// field).
    pub coord_bits: usize,
    /// The decoder's state code ([`crate::blocks::address_decoder`]) of a
    /// dimension whose destination coordinate is below the router's
    /// ([`below_code`]).
    pub below: u32,
    /// Reset contents, entry by entry (full and meta tables: those of
    /// node 0).
    pub entries: Vec<Entry>,
    /// Full and meta tables: per node, its `node_id` value and its reset
    /// contents; empty for the economical-storage table.
    pub by_node: Vec<(u64, Vec<Entry>)>,
    /// Per VC class, per port: the VCs permitted (bit v).
    pub classes: Vec<Vec<u32>>,
}

impl EsContents {
    /// Bits of `cfg_class` (docs/interface.md): enough for every class.
    pub fn class_bits(&self) -> u32 {
        crate::spec::bits_for(self.classes.len().max(2) as u32 - 1)
    }

    /// Bits of `cfg_addr`: enough for the last entry.
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
                            Sign::Minus => self.below,
                        };
                        key | code << (CODE_BITS * d)
                    });
                let mut mask = vec![0u64; self.entries.len().div_ceil(64)];
                mask[e / 64] |= 1 << (e % 64);
                Row { key, mask }
            })
            .collect()
    }

    /// Full and meta tables: the coordinates of entry `e`'s index over
    /// dimensions `dims` (dimension `dims.start` first).
    fn index_coords(&self, mut e: usize, dims: std::ops::Range<usize>) -> Vec<u64> {
        let k = self.radix as usize;
        dims.map(|_| {
            let c = e % k;
            e /= k;
            c as u64
        })
        .collect()
    }

    /// Full and meta tables: the dimensions entry `e` names coordinates of,
    /// its coordinates there, and whether it is selected only for the
    /// router's own cluster (`Some(true)`), only for other clusters
    /// (`Some(false)`) or for every destination (`None`, full table).
    pub fn entry_match(&self, e: usize) -> (std::ops::Range<usize>, Vec<u64>, Option<bool>) {
        match self.kind {
            TableKind::Economical | TableKind::Full => {
                (0..self.dims, self.index_coords(e, 0..self.dims), None)
            }
            TableKind::Meta { sub_lo, sub_hi } => {
                let per = (self.radix as usize).pow((sub_hi - sub_lo) as u32);
                if e < per {
                    (
                        sub_lo..sub_hi,
                        self.index_coords(e, sub_lo..sub_hi),
                        Some(true),
                    )
                } else {
                    let r = self.cluster_dims();
                    (r.clone(), self.index_coords(e - per, r), Some(false))
                }
            }
        }
    }

    /// Meta table: the dimensions of the cluster id (empty otherwise).
    pub fn cluster_dims(&self) -> std::ops::Range<usize> {
        match self.kind {
            TableKind::Meta { sub_lo: 0, sub_hi } => sub_hi..self.dims,
            TableKind::Meta { sub_lo, .. } => 0..sub_lo,
            _ => 0..0,
        }
    }

    /// Coordinate `d` of a head flit's absolute address or of a `node_id`
    /// (docs/interface.md: `coord_bits` per dimension, dimension 0 low).
    pub fn coord(&self, value: u64, d: usize) -> u64 {
        (value >> (self.coord_bits * d)) & ((1 << self.coord_bits) - 1)
    }

    /// Full and meta tables: whether a head flit with absolute address
    /// `address` at the router with `node_id` selects entry `e` (the word
    /// line of e; LAPSES §5.1.1: the destination's cluster id against the
    /// router's, then the sub-cluster id or the cluster id).
    pub fn selects(&self, e: usize, address: u64, node_id: u64) -> bool {
        let (dims, coords, own) = self.entry_match(e);
        let same = |d: usize| self.coord(address, d) == self.coord(node_id, d);
        let own_cluster = self.cluster_dims().all(same);
        own.map_or(true, |o| o == own_cluster)
            && dims.zip(coords).all(|(d, c)| self.coord(address, d) == c)
    }

    /// [`Self::selects`] as masks, for logic written once over entries:
    /// entry e selects an address `a` at `node_id` when `a & mask ==
    /// value` and, where `home` is given, whether `(a ^ node_id) &`
    /// [`Self::cluster_mask`] is 0 (the destination in the router's own
    /// cluster) equals it.
    pub fn selector(&self, e: usize) -> (u64, u64, Option<bool>) {
        let (dims, coords, own) = self.entry_match(e);
        let field = (1u64 << self.coord_bits) - 1;
        let (mut mask, mut value) = (0, 0);
        for (d, c) in dims.zip(coords) {
            mask |= field << (self.coord_bits * d);
            value |= c << (self.coord_bits * d);
        }
        (mask, value, own)
    }

    /// The coordinates that name a node's cluster (meta tables; 0 for the
    /// others): [`Self::selector`].
    pub fn cluster_mask(&self) -> u64 {
        self.cluster_dims()
            .map(|d| ((1u64 << self.coord_bits) - 1) << (self.coord_bits * d))
            .fold(0, |m, f| m | f)
    }

    /// The reset contents of the router with `node_id`: the same at every
    /// node for the economical-storage table; for the full and meta tables
    /// those of the node, nothing permitted for a `node_id` of no node.
    pub fn reset_entries(&self, node_id: u64) -> Vec<Entry> {
        if self.kind == TableKind::Economical {
            return self.entries.clone();
        }
        self.by_node
            .iter()
            .find(|(id, _)| *id == node_id)
            .map_or_else(
                || vec![Entry::default(); self.entries.len()],
                |x| x.1.clone(),
            )
    }

    /// What entry `e` stands for: its sign vector (economical), the
    /// destination's coordinates (full), the sub-cluster node or cluster
    /// (meta).
    pub fn entry_name(&self, e: usize) -> String {
        let coords = |c: &[u64]| {
            let t: Vec<String> = c.iter().map(|x| x.to_string()).collect();
            format!("({})", t.join(","))
        };
        match self.kind {
            TableKind::Economical => self.signs_text(e),
            TableKind::Full => format!("node {}", coords(&self.entry_match(e).1)),
            TableKind::Meta { .. } => {
                let (dims, c, own) = self.entry_match(e);
                let what = if own == Some(true) {
                    "own cluster's node"
                } else {
                    "cluster"
                };
                format!(
                    "{what}, dims {}..{} at {}",
                    dims.start,
                    dims.end,
                    coords(&c)
                )
            }
        }
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
        s.push_str("\n| entry | index of | ports (cfg_mask) | VC class |\n|---|---|---|---|\n");
        for (e, en) in self.entries.iter().enumerate() {
            let ports: Vec<String> = (0..self.ports)
                .filter(|o| (en.mask >> o) & 1 == 1)
                .map(|o| format!("p{o}"))
                .collect();
            s.push_str(&format!(
                "| {e} | {} | {} ({:#x}) | {} |\n",
                self.entry_name(e),
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

/// The decoder's state code of a dimension whose destination coordinate is
/// below the router's, with absolute addressing: 3 (-) on meshes and
/// hypercubes, 2 (+ across the wraparound link) on a unidirectional torus.
/// With 0 (equal) and 1 (above) it makes the sign vector that indexes the
/// economical-storage table (LAPSES §5.2.1).
pub fn below_code(topology: crate::spec::Topology) -> u32 {
    if topology == crate::spec::Topology::UniTorus {
        2
    } else {
        3
    }
}

/// The economical-storage contents of `table`, whose key must be the sign
/// vector (codes 0, 1 and [`below_code`] only), or why the table cannot
/// hold it.
pub fn economical(table: &CompiledTable) -> Result<EsContents> {
    let shape = &table.shape;
    let (n, p, v) = (shape.dims, shape.ports, shape.vcs);
    if n > MAX_ECONOMICAL_DIMS as usize {
        return Err(Error::invalid(format!(
            "the economical-storage table holds 3^n entries for at most \
             {MAX_ECONOMICAL_DIMS} dimensions (3^{MAX_ECONOMICAL_DIMS} = 81), not {n}"
        )));
    }
    // Per entry: the VCs permitted on each port (0 where the port is not).
    let mut wanted: Vec<Vec<u32>> = vec![vec![0; p]; 3usize.pow(n as u32)];
    let below = below_code(shape.topology);
    for r in &table.rows {
        let mut e = 0;
        for d in (0..n).rev() {
            let s = match (r.key >> (CODE_BITS * d)) & 7 {
                0 => 0,
                1 => 1,
                code if code == below => 2,
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
            *want = (0..v)
                .filter(|c| r.permits(o * v + c))
                .map(|c| 1 << c)
                .sum();
        }
    }
    let (entries, classes) = assign_classes(&wanted, p, v)?;
    Ok(EsContents {
        kind: TableKind::Economical,
        dims: n,
        ports: p,
        vcs: v,
        radix: shape.radix,
        coord_bits: shape.coord_bits,
        below: below_code(shape.topology),
        entries,
        by_node: Vec::new(),
        classes,
    })
}

/// Entries (ports and VC class) holding `wanted` (per entry, per port: the
/// VCs permitted) and the VC classes they use: each entry takes the first
/// class whose VCs agree on every port the entry permits; a port no entry
/// of a class permits gets every VC.
fn assign_classes(wanted: &[Vec<u32>], p: usize, v: usize) -> Result<(Vec<Entry>, Vec<Vec<u32>>)> {
    let mut entries = vec![Entry::default(); wanted.len()];
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
            entries[e].mask |= 1 << o;
        }
        entries[e].class = c as u8;
    }
    if classes.len() > MAX_TABLE_VC_CLASSES {
        return Err(Error::invalid(format!(
            "the relation needs {} VC classes in its routing table (at most \
             {MAX_TABLE_VC_CLASSES})",
            classes.len()
        )));
    }
    let all = (1u32 << v) - 1;
    let classes: Vec<Vec<u32>> = classes
        .into_iter()
        .map(|c| c.into_iter().map(|x| x.unwrap_or(all)).collect())
        .collect();
    // The entries hold exactly what was wanted.
    for (e, want) in wanted.iter().enumerate() {
        for k in 0..p * v {
            let (o, c) = (k / v, k % v);
            let holds = (entries[e].mask >> o) & 1 == 1
                && (classes[usize::from(entries[e].class)][o] >> c) & 1 == 1;
            if holds != ((want[o] >> c) & 1 == 1) {
                return Err(Error::invalid(format!(
                    "internal: routing-table entry {e} does not hold its outputs"
                )));
            }
        }
    }
    Ok((entries, classes))
}

/// Per port, the VCs of `hops` (bit v).
fn port_vcs(net: &Network, hops: &[Hop], p: usize) -> Vec<u32> {
    let mut want = vec![0u32; p];
    for h in hops {
        want[net.port_index(h.port)] |= 1 << h.vc;
    }
    want
}

/// Node-dependent contents: `wanted[x]` is node x's table; the classes are
/// shared by every node.
fn by_node(
    kind: TableKind,
    table: &CompiledTable,
    net: &Network,
    wanted: Vec<Vec<Vec<u32>>>,
) -> Result<EsContents> {
    let shape = &table.shape;
    let (p, v) = (shape.ports, shape.vcs);
    let per = wanted[0].len();
    let flat: Vec<Vec<u32>> = wanted.into_iter().flatten().collect();
    let (entries, classes) = assign_classes(&flat, p, v)?;
    let by_node: Vec<(u64, Vec<Entry>)> = entries
        .chunks(per)
        .enumerate()
        .map(|(x, c)| (node_id(shape, net, x as NodeId), c.to_vec()))
        .collect();
    if per > 1 << crate::blocks::es_table::ADDR_BITS {
        return Err(Error::invalid(format!(
            "the routing table would have {per} entries; the router's cfg_addr register \
             holds {} bits",
            crate::blocks::es_table::ADDR_BITS
        )));
    }
    Ok(EsContents {
        kind,
        dims: shape.dims,
        ports: p,
        vcs: v,
        radix: shape.radix,
        coord_bits: shape.coord_bits,
        below: below_code(shape.topology),
        entries: by_node[0].1.clone(),
        by_node,
        classes,
    })
}

/// The full table (LAPSES §5, Table 5): at node x, entry e = destination
/// node e, the outputs the relation permits there. `compile` has proved
/// that they do not depend on the input (every input, every VC), so one
/// entry per destination holds the relation exactly, a torus's dateline
/// class included (a node's entry for a destination fixes both).
pub fn full(rel: &Relation, table: &CompiledTable) -> Result<EsContents> {
    let net = &rel.net;
    let nodes = net.nodes() as usize;
    if nodes as u64 > MAX_FULL_TABLE_NODES {
        return Err(Error::invalid(format!(
            "the full routing table has one entry per node, {nodes} here; the router holds \
             at most {MAX_FULL_TABLE_NODES} (its reset contents are a ROM of nodes x entries, \
             {nodes} x {nodes} here): use table = meta or none"
        )));
    }
    let p = table.shape.ports;
    let mut buf = Vec::new();
    let wanted = (0..nodes as NodeId)
        .map(|x| {
            (0..nodes as NodeId)
                .map(|e| {
                    rel.route(x, Input::INJECTED, e, &mut buf);
                    port_vcs(net, &buf, p)
                })
                .collect()
        })
        .collect();
    by_node(TableKind::Full, table, net, wanted)
}

/// The two-level meta table (LAPSES §5.1.1, §5.2.2): at node x, an entry
/// per node of x's cluster (the relation's outputs there) and one per
/// other cluster, which serves all its nodes and so can only hold the
/// outputs the relation permits toward every one of them (their
/// intersection). That restricts the relation; the restricted relation is
/// proved with the deadlock checker ([`crate::algo::check::check_table`]: a hop toward every
/// destination, an escape hop where the relation has escape channels, no
/// dependency cycle). Two splits of the node id are tried: the cluster id
/// as the upper dimensions (2-D: rows, LAPSES Figure 8a), then as the
/// lower ones (2-D: columns; dimension order resolves them first, so its
/// cluster entries keep its hop). Refused, with the checker's reasons,
/// where neither holds. With `clusters` = squares (LAPSES Figure 8(b)) the
/// square clusters alone are tried; where the checker proves them the
/// router is refused as not built (its word lines compare whole
/// coordinates), and the checker has proved them on no 2-D or 3-D mesh or
/// torus routergen routes: toward a cluster in line with the router's, the
/// entry keeps no escape channel.
pub fn meta(
    rel: &Relation,
    table: &CompiledTable,
    clusters: crate::spec::MetaClusters,
) -> Result<EsContents> {
    let net = &rel.net;
    let nodes = net.nodes() as usize;
    if nodes as u64 > MAX_META_TABLE_NODES {
        return Err(Error::invalid(format!(
            "the meta routing table's reset contents are a ROM of nodes x entries; the \
             router holds it for at most {MAX_META_TABLE_NODES} nodes, not {nodes}: use table = \
             none"
        )));
    }
    let candidates = match clusters {
        crate::spec::MetaClusters::Rows => algo_tables::MetaSplit::candidates(net.n()),
        crate::spec::MetaClusters::Squares => {
            let b = (1..=net.radix).find(|b| b * b == net.radix).unwrap_or(1);
            vec![algo_tables::MetaSplit::squares(net.n(), b)]
        }
    };
    let split = algo_tables::meta_split_among(rel, &candidates).map_err(|why| {
        Error::invalid(format!(
            "the meta routing table (LAPSES §5.1.1) cannot hold {}: a cluster entry keeps \
             only the outputs permitted toward every node of its cluster, and the relation \
             so restricted fails the deadlock checker {why}",
            rel.name()
        ))
    })?;
    if split.square.is_some() {
        return Err(Error::invalid(format!(
            "the meta routing table with square clusters holds {} deadlock-free here, but \
             its word lines are not built (they compare whole coordinates, not their \
             halves): use meta_clusters = rows",
            rel.name()
        )));
    }
    let kind = TableKind::Meta {
        sub_lo: split.sub.start,
        sub_hi: split.sub.end,
    };
    let p = table.shape.ports;
    let per = split.per_cluster(net);
    let wanted = (0..nodes as NodeId)
        .map(|x| {
            let m = algo_tables::meta_with(rel, &split, x, &algo_tables::full(rel, x));
            let mut w = vec![vec![0u32; p]; per + m.cluster.len()];
            for (i, hops) in m.sub_cluster.iter().enumerate() {
                w[i] = port_vcs(net, hops, p);
            }
            for (c, hops) in m.cluster.iter().enumerate() {
                w[per + c] = port_vcs(net, hops, p);
            }
            w
        })
        .collect();
    by_node(kind, table, net, wanted)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::names::Named;
    use crate::spec::{Algorithm, Topology};

    fn table(algo: Algorithm, topology: Topology, n: u32, k: u32, v: u32) -> CompiledTable {
        let net = Network::new(topology, n, k).unwrap();
        let rel = Relation::new(algo, net, v).unwrap();
        compile(&rel, Addressing::Relative).unwrap()
    }

    /// The per-destination shortcut of [`reach`] gives what asking again at
    /// the far end of every hop gives, for every relation that does not
    /// read the input, on 2-D and 3-D networks at the fewest VCs and one
    /// more.
    /// The masks the router's word lines compare ([`EsContents::selector`])
    /// against [`EsContents::selects`], for every entry, node and
    /// destination of the full and meta table families.
    #[test]
    fn selectors_are_the_entry_matches() {
        let mut checked = 0;
        for spec in crate::router::option_families() {
            let Some(es) = crate::router::compile(&spec).unwrap().es else {
                continue;
            };
            if es.kind == TableKind::Economical {
                continue;
            }
            let cluster = es.cluster_mask();
            for e in 0..es.entries.len() {
                let (mask, value, home) = es.selector(e);
                for (node, _) in &es.by_node {
                    for (dest, _) in &es.by_node {
                        // Bits above the coordinates (the look-ahead field,
                        // the payload) do not take part.
                        let a = dest | 0xa5 << (es.coord_bits * es.dims);
                        let own = (a ^ node) & cluster == 0;
                        let selected = a & mask == value && home.map_or(true, |h| h == own);
                        assert_eq!(selected, es.selects(e, a, *node), "entry {e} node {node:x}");
                        checked += 1;
                    }
                }
            }
        }
        assert!(checked > 1000, "{checked}");
    }

    #[test]
    fn reach_per_destination_is_reach_per_node() {
        let mut checked = 0;
        for algo in Algorithm::all() {
            for topology in Topology::all() {
                for n in [2, 3] {
                    if algo.supports(topology, n).is_err() {
                        continue;
                    }
                    let k = if topology == Topology::Hypercube {
                        2
                    } else {
                        4
                    };
                    let min = algo.min_vcs(topology, n);
                    for v in [min, min + 1] {
                        let net = Network::new(topology, n, k).unwrap();
                        let rel = Relation::new(algo, net, v).unwrap();
                        if rel.reads_input() {
                            continue;
                        }
                        let what = format!("{algo:?} {topology:?} n={n} v={v}");
                        assert_eq!(reach_per_destination(&rel), reach_per_node(&rel), "{what}");
                        checked += 1;
                    }
                }
            }
        }
        assert!(checked >= 20, "only {checked} relations checked");
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

    /// Plane slices (Chien §5.2): plane A_i takes the plane class of d_i
    /// and the increasing and decreasing classes of d_{i+1}. On a 3-D mesh
    /// with V = 3, d_0 has only its plane class, whose lanes are all three
    /// VCs (`VcMap`: class c on VC c mod V), d_1 its two second-dimension
    /// classes on VCs 0 and 1 and A_1's plane class on VC 2, and d_2 two
    /// classes on three VCs. So A_0's slice receives three VCs on d_0 and
    /// two on d_1, A_1's one on d_1 and three on d_2; the local port takes
    /// every VC. The unified router's links carry every VC. Dimension order
    /// uses every VC on every link (lanes on a mesh, dateline classes on a
    /// torus). A programmable table buffers every input VC.
    #[test]
    fn inputs_are_buffered_on_the_vcs_the_upstream_relation_sends_on() {
        let vcs_per_port =
            |t: &CompiledTable| -> Vec<u32> { t.arrive.iter().map(|m| m.count_ones()).collect() };
        let net = Network::new(Topology::Mesh, 3, 3).unwrap();
        let full = Relation::new(Algorithm::PlanarAdaptive, net, 3).unwrap();
        let slice = |i| compile(&Relation::plane(&full, i).unwrap(), Addressing::Relative).unwrap();
        assert_eq!(vcs_per_port(&slice(0)), [3, 3, 3, 2, 2]);
        let a1 = slice(1);
        assert_eq!(vcs_per_port(&a1), [3, 1, 1, 3, 3]);
        assert_eq!(a1.arrive[1], 1 << 2, "A_1's plane class of d_1 is VC 2");
        let buffered = a1.buffered_inputs();
        assert_eq!(buffered.iter().filter(|&&b| b).count(), 3 + 1 + 1 + 3 + 3);
        assert!(buffered[3 + 2] && !buffered[3] && !buffered[3 + 1]);
        let t = table(Algorithm::PlanarAdaptive, Topology::Mesh, 3, 3, 3);
        assert_eq!(vcs_per_port(&t), [3; 7]);
        for (topology, k, v) in [(Topology::Mesh, 4, 3), (Topology::Torus, 5, 2)] {
            let t = table(Algorithm::DimensionOrder, topology, 2, k, v);
            assert_eq!(vcs_per_port(&t), [v; 5], "{topology}");
        }
        let mut es = table(Algorithm::DimensionOrder, Topology::Mesh, 2, 4, 1);
        es.es = Some(economical(&es).expect("a mesh has a 3^n table"));
        es.arrive = vec![0; 5];
        assert!(es.buffered_inputs().iter().all(|&b| b));
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

    /// The table checker on a table that holds a relation unchanged: it
    /// proves dimension order on a torus with its dateline VCs and finds
    /// the ring cycle without them (survey §5); a table that keeps no hop
    /// somewhere is named.
    #[test]
    fn the_table_checker_proves_or_names_the_failure() {
        use crate::algo::{check::check_table, Knobs};
        let net = Network::new(Topology::Torus, 2, 4).unwrap();
        let routes = |rel: &Relation| -> Vec<Vec<Vec<Hop>>> {
            (0..net.nodes())
                .map(|x| {
                    (0..net.nodes())
                        .map(|e| rel.hops(x, Input::INJECTED, e))
                        .collect()
                })
                .collect()
        };
        let rel = Relation::new(Algorithm::DimensionOrder, net, 2).unwrap();
        assert_eq!(check_table(&rel, &routes(&rel)), Ok(()));
        let knobs = Knobs {
            dateline: false,
            ..Knobs::default()
        };
        let ring = Relation::with_knobs(Algorithm::DimensionOrder, net, 2, knobs).unwrap();
        let err = check_table(&ring, &routes(&ring)).unwrap_err();
        assert!(err.contains("cycle"), "{err}");
        let mut holed = routes(&rel);
        holed[5][6].clear();
        let err = check_table(&rel, &holed).unwrap_err();
        assert!(
            err.contains("permits no hop") && err.contains("(1,1)"),
            "{err}"
        );
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
