//! The testbench's stimulus and its expected facts, computed from the
//! routing relation and docs/interface.md, never from the router.
//!
//! One router is placed at a node where every link exists when the network
//! has one (the middle of a mesh). Every input port with an upstream router
//! and every input VC gets packets bound for destinations that the upstream
//! router's relation would send on that VC, so each packet arrives as it
//! could in a network; the destinations are chosen so that every output
//! (port, VC) the relation permits from that input VC is permitted to at
//! least one packet, preferring destinations that leave a single choice so
//! the output is exercised whatever the router's path selection picks.
//!
//! Per packet the testbench is told which output VCs (k = o V + c) the
//! relation permits and what the head flit must look like after the hop
//! through each output port (the interface's header rule).

use std::collections::BTreeSet;
use std::fmt::Write as _;

use crate::algo::{Hop, Input, Network, NodeId, Port, Relation};
use crate::blocks::cosim::SplitMix64;
use crate::error::Result;
use crate::interface::{entry_port, in_port_at, input_through, port_number, HeadFormat};
use crate::router::lookahead::field_at;
use crate::spec::{bits_for, Addressing, Algorithm, RouterSpec};

/// Packets per input VC, covering ones included.
pub const PACKETS_PER_VC: usize = 12;
/// Longest packet, in flits.
pub const MAX_FLITS: usize = 6;
/// Flit index bits at the bottom of a body flit.
pub const INDEX_BITS: u32 = 4;
/// Fixed words of a packet record before the permitted mask.
pub const RECORD_FIXED: usize = 8;
/// The last word of the stimulus file, checked by both harnesses.
pub const SENTINEL: u64 = 0x5354_494d_5f45_4e44; // "STIM_END"

/// One packet: where it enters, where it goes, its flits, and the facts
/// the checker holds it to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Packet {
    /// Input port (interface number) the packet enters by.
    pub in_port: usize,
    /// Input VC it enters on.
    pub in_vc: usize,
    /// Destination node.
    pub dest: NodeId,
    /// Position in its input VC's queue.
    pub seq: usize,
    /// The next packet of the same input VC (packet count when none).
    pub next: usize,
    /// Its flits as they enter, head first; at most [`MAX_FLITS`].
    pub flits: Vec<u64>,
    /// Output VC k = o V + c is permitted.
    pub permitted: Vec<bool>,
    /// The head flit expected after the hop through port o (0 where the
    /// port is not permitted).
    pub head_out: Vec<u64>,
}

/// Everything the testbench needs to know, and the file it reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stimulus {
    /// The node the router under test is placed at.
    pub node: NodeId,
    /// That node's coordinates, as `(x,y)`.
    pub node_name: String,
    /// Physical ports P of the router, the local port included.
    pub ports: usize,
    /// Virtual channels V per physical channel.
    pub vcs: usize,
    /// Flit width in bits.
    pub width: u32,
    /// Bits of the routing field at the bottom of a head flit.
    pub header_bits: u32,
    /// Bits above the routing field naming the packet (its tag); packets
    /// whose ids agree modulo 2^tag_bits are never in flight together.
    pub tag_bits: u32,
    /// Every packet, indexed by id: round robin over the input VCs' queues.
    pub packets: Vec<Packet>,
    /// First packet of each input VC k = p V + v (packet count when none).
    pub queue_heads: Vec<usize>,
}

/// The node the testbench places its router at: the one with the most
/// links, nearest the middle of the network.
pub fn chosen_node(net: &Network) -> NodeId {
    let middle: Vec<u32> = (0..net.n()).map(|_| net.radix / 2).collect();
    let mid = net.node_at(&middle);
    (0..net.nodes())
        .max_by_key(|&x| (net.links(x).len(), std::cmp::Reverse(net.distance(x, mid))))
        .unwrap_or(0)
}

/// The routing field a packet at `at` bound for `dest` carries, by
/// docs/interface.md "Head flit" (address fields only).
pub fn address_fields(spec: &RouterSpec, net: &Network, at: NodeId, dest: NodeId) -> u64 {
    HeadFormat::of(spec).address(net, at, dest)
}

/// The stimulus for `spec`'s router, seeded from its name so that the same
/// spec always gives the same file.
pub fn build(spec: &RouterSpec) -> Result<Stimulus> {
    build_against(spec, spec.algorithm)
}

/// [`build`]'s packets, with the facts the checker holds them to (permitted
/// outputs, heads after the hop) taken from `checker`'s relation instead of
/// the spec's: the same file layout, so a harness built for the spec reads
/// it. With a wrong algorithm this is the broken checker that the tests
/// require the testbenches to fail under.
pub fn build_against(spec: &RouterSpec, checker: Algorithm) -> Result<Stimulus> {
    let net = Network::new(spec.topology, spec.dims, spec.radix)?;
    let rel = Relation::new(spec.algorithm, net, spec.vcs)?;
    let facts = Relation::new(checker, net, spec.vcs)?;
    let node = chosen_node(&net);
    let p = spec.physical_ports() as usize;
    let v = spec.vcs as usize;
    let w = spec.flit_width;
    let wmask = if w >= 64 { u64::MAX } else { (1u64 << w) - 1 };
    let n = net.n() as u32;
    let f = spec.address_field_bits();
    let address_bits = n * f;
    let header_bits = spec.header_bits();
    let mut rng = SplitMix64::new(seed(&spec.name()));

    // Destinations per input VC k = q V + c, in queue order.
    let mut queues: Vec<Vec<(NodeId, Input)>> = vec![Vec::new(); p * v];
    for q in 0..p {
        let here = in_port_at(&net, node, q);
        let upstream = match here {
            Port::Local => None,
            // A mesh edge (no neighbour): the network ties this link off.
            _ => match net.sender(node, here) {
                None => continue,
                some => some,
            },
        };
        let travelling = entry_port(here);
        for c in 0..v {
            let input = input_through(here, c as u8);
            let legal: Vec<NodeId> = (0..net.nodes())
                .filter(|&dst| match upstream {
                    None => true,
                    Some(u) => rel.permits(u, Input::INJECTED, dst, travelling, c as u8),
                })
                .collect();
            if legal.is_empty() {
                continue;
            }
            let hops: Vec<Vec<Hop>> = legal
                .iter()
                .map(|&dst| rel.hops(node, input, dst))
                .collect();
            // Cover every permitted output VC, with the fewest alternatives.
            let mut wanted: BTreeSet<(usize, u8)> = BTreeSet::new();
            for h in hops.iter().flatten() {
                wanted.insert((port_number(net.topology, h.port), h.vc));
            }
            let mut dests: Vec<NodeId> = Vec::new();
            for &(o, vc) in &wanted {
                let best = legal
                    .iter()
                    .zip(&hops)
                    .filter(|(_, hs)| {
                        hs.iter()
                            .any(|h| port_number(net.topology, h.port) == o && h.vc == vc)
                    })
                    .min_by_key(|(_, hs)| {
                        let ports: BTreeSet<Port> = hs.iter().map(|h| h.port).collect();
                        (ports.len(), hs.len())
                    })
                    .map(|(&dst, _)| dst)
                    .expect("a wanted output has a destination");
                if !dests.contains(&best) {
                    dests.push(best);
                }
            }
            while dests.len() < PACKETS_PER_VC {
                dests.push(legal[(rng.next_u64() % legal.len() as u64) as usize]);
            }
            // Fisher-Yates, so covering packets are not all first.
            for i in (1..dests.len()).rev() {
                let j = (rng.next_u64() % (i as u64 + 1)) as usize;
                dests.swap(i, j);
            }
            queues[q * v + c] = dests.into_iter().map(|d| (d, input)).collect();
        }
    }

    // Packet ids round robin over the queues, so that every queue has
    // early packets when tags are reused.
    let total: usize = queues.iter().map(Vec::len).sum();
    let id_bits = bits_for(total.saturating_sub(1) as u32);
    let tag_bits = id_bits.min(w - header_bits).min(20);
    let mut packets: Vec<Packet> = Vec::with_capacity(total);
    let mut last_of_queue: Vec<Option<usize>> = vec![None; p * v];
    let mut queue_heads = vec![total; p * v];
    let rounds = queues.iter().map(Vec::len).max().unwrap_or(0);
    for seq in 0..rounds {
        for (k, queue) in queues.iter().enumerate() {
            let Some(&(dest, input)) = queue.get(seq) else {
                continue;
            };
            let id = packets.len();
            let (q, c) = (k / v, k % v);
            let len = 1 + (rng.next_u64() % MAX_FLITS as u64) as usize;
            let tag = id as u64 & ((1u64 << tag_bits) - 1);
            let random = |rng: &mut SplitMix64, above: u32| {
                if above >= 64 {
                    0
                } else {
                    (rng.next_u64() << above) & wmask
                }
            };
            let mut head = address_fields(spec, &net, node, dest);
            if spec.lookahead {
                head |= field_at(&rel, node, input, dest) << address_bits;
            }
            head |= tag << header_bits;
            head |= random(&mut rng, header_bits + tag_bits);
            head &= wmask;
            let mut flits = vec![head];
            let body_id_bits = INDEX_BITS + id_bits;
            for i in 1..len {
                let ident = ((id as u64) << INDEX_BITS | i as u64) & wmask;
                flits.push(ident | random(&mut rng, body_id_bits));
            }
            let hops = facts.hops(node, input, dest);
            let mut permitted = vec![false; p * v];
            let mut head_out = vec![0u64; p];
            for h in &hops {
                let o = port_number(net.topology, h.port);
                permitted[o * v + h.vc as usize] = true;
                head_out[o] = head_after(spec, &facts, node, head, dest, h.port);
            }
            if let Some(prev) = last_of_queue[k] {
                packets[prev].next = id;
            } else {
                queue_heads[k] = id;
            }
            last_of_queue[k] = Some(id);
            packets.push(Packet {
                in_port: q,
                in_vc: c,
                dest,
                seq,
                next: total,
                flits,
                permitted,
                head_out,
            });
        }
    }
    Ok(Stimulus {
        node,
        node_name: net.node_name(node),
        ports: p,
        vcs: v,
        width: w,
        header_bits,
        tag_bits,
        packets,
        queue_heads,
    })
}

/// The head flit after the hop from `node` through `port`: with relative
/// addressing the field of the dimension travelled becomes the offset from
/// the next router (its magnitude one smaller); with absolute addressing it
/// is unchanged; a look-ahead field names the next router's permitted
/// ports. Payload bits are unchanged. Ejection leaves the head unchanged.
fn head_after(
    spec: &RouterSpec,
    rel: &Relation,
    node: NodeId,
    head: u64,
    dest: NodeId,
    port: Port,
) -> u64 {
    let net = &rel.net;
    let Port::Link { dim, .. } = port else {
        return head;
    };
    let next = net
        .neighbour(node, port)
        .expect("the relation permits only existing links");
    let f = spec.address_field_bits();
    let mut out = head;
    if spec.addressing == Addressing::Relative {
        let shift = dim as u32 * f;
        let mask = ((1u64 << f) - 1) << shift;
        out = (out & !mask) | (address_fields(spec, net, next, dest) & mask);
    }
    if spec.lookahead {
        let address_bits = net.n() as u32 * f;
        let bits = crate::spec::lookahead_field_bits(spec.topology, spec.physical_ports());
        let lmask = ((1u64 << bits) - 1) << address_bits;
        // The next router's permitted ports, over the VCs the hop may take.
        let ports = (0..rel.vcs).fold(0, |acc, vc| {
            acc | field_at(rel, next, Input { port, vc }, dest)
        });
        out = (out & !lmask) | (ports << address_bits);
    }
    out
}

/// FNV-1a of the configuration name: a fixed seed per configuration.
fn seed(name: &str) -> u64 {
    name.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ b as u64).wrapping_mul(0x0100_0000_01b3)
    })
}

impl Stimulus {
    /// Words of the permitted mask in a packet record.
    pub fn mask_words(&self) -> usize {
        (self.ports * self.vcs).div_ceil(64)
    }

    /// Words of one packet record.
    pub fn record_words(&self) -> usize {
        RECORD_FIXED + self.mask_words() + self.ports
    }

    /// Flits of all packets.
    pub fn flit_count(&self) -> usize {
        self.packets.iter().map(|p| p.flits.len()).sum()
    }

    /// Word offset of the packet records.
    pub fn packet_offset(&self) -> usize {
        self.ports * self.vcs
    }

    /// Word offset of the flits.
    pub fn flit_offset(&self) -> usize {
        self.packet_offset() + self.packets.len() * self.record_words()
    }

    /// Words in the file, the sentinel included.
    pub fn words(&self) -> usize {
        self.flit_offset() + self.flit_count() + 1
    }

    /// The `$readmemh` file both harnesses read: 64-bit hex words, with
    /// `//` comments.
    pub fn hex(&self, name: &str) -> String {
        let mut s = String::new();
        let _ = writeln!(
            s,
            "// {name}: testbench stimulus for the router at node {}.\n\
             // 64-bit words. Queue heads: the first packet of input VC k = p*{} + v\n\
             // ({} when none).",
            self.node_name,
            self.vcs,
            self.packets.len()
        );
        for (k, h) in self.queue_heads.iter().enumerate() {
            let _ = writeln!(
                s,
                "{h:016x} // input port {} VC {}",
                k / self.vcs,
                k % self.vcs
            );
        }
        let _ = writeln!(
            s,
            "// Packets: in_port in_vc dest length first_flit seq next tag, permitted \
             output VCs (bit o*{} + c, {} word(s)), expected head per output port 0..{}.",
            self.vcs,
            self.mask_words(),
            self.ports - 1
        );
        let tag_mask = (1u64 << self.tag_bits) - 1;
        let mut first = 0usize;
        for (id, pk) in self.packets.iter().enumerate() {
            let mut words = vec![
                pk.in_port as u64,
                pk.in_vc as u64,
                pk.dest as u64,
                pk.flits.len() as u64,
                first as u64,
                pk.seq as u64,
                pk.next as u64,
                id as u64 & tag_mask,
            ];
            for m in 0..self.mask_words() {
                let mut word = 0u64;
                for (b, &ok) in pk.permitted.iter().enumerate().skip(64 * m).take(64) {
                    word |= u64::from(ok) << (b - 64 * m);
                }
                words.push(word);
            }
            words.extend(&pk.head_out);
            let text: Vec<String> = words.iter().map(|w| format!("{w:016x}")).collect();
            let _ = writeln!(s, "{} // packet {id}", text.join(" "));
            first += pk.flits.len();
        }
        let _ = writeln!(s, "// Flits, packet after packet.");
        for pk in &self.packets {
            let text: Vec<String> = pk.flits.iter().map(|w| format!("{w:016x}")).collect();
            let _ = writeln!(s, "{}", text.join(" "));
        }
        let _ = writeln!(s, "{SENTINEL:016x} // end");
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::{SpecInput, Topology};

    fn spec(algo: Algorithm, topology: Topology, dims: i64, vcs: Option<i64>) -> RouterSpec {
        SpecInput {
            algorithm: Some(algo),
            topology: Some(topology),
            dims: Some(dims),
            vcs,
            ..SpecInput::default()
        }
        .resolve()
        .expect("valid")
        .spec
    }

    #[test]
    fn the_router_sits_where_every_link_exists() {
        let mesh = Network::new(Topology::Mesh, 3, 4).unwrap();
        let node = chosen_node(&mesh);
        assert_eq!(mesh.links(node).len(), 6);
        let line = Network::new(Topology::Mesh, 2, 2).unwrap();
        assert_eq!(line.links(chosen_node(&line)).len(), 2);
    }

    /// Every output VC the relation permits from an input VC, for some
    /// destination the upstream router would send on it, is permitted to a
    /// packet on that VC; and every port that some destination leaves as the
    /// only choice is forced on some packet.
    #[test]
    fn stimulus_covers_every_permitted_output() {
        for s in [
            spec(Algorithm::Duato, Topology::Mesh, 2, Some(3)),
            spec(Algorithm::PlanarAdaptive, Topology::Mesh, 3, None),
            spec(Algorithm::DimensionOrder, Topology::Torus, 2, None),
            spec(Algorithm::NegativeFirst, Topology::Hypercube, 3, None),
        ] {
            let st = build(&s).unwrap();
            let net = Network::new(s.topology, s.dims, s.radix).unwrap();
            let rel = Relation::new(s.algorithm, net, s.vcs).unwrap();
            let v = st.vcs;
            assert_eq!(net.links(st.node).len(), st.ports - 1, "{}", s.name());
            for k in 0..st.ports * v {
                let (q, c) = (k / v, k % v);
                let mine: Vec<&Packet> = st
                    .packets
                    .iter()
                    .filter(|p| p.in_port == q && p.in_vc == c)
                    .collect();
                // The upstream router across port q and the hops it may take
                // toward us, written out again here.
                let here = in_port_at(&net, st.node, q);
                let up = net.sender(st.node, here);
                let travelling = entry_port(here);
                let input = input_through(here, c as u8);
                let mut wanted = BTreeSet::new();
                let mut only = BTreeSet::new();
                for dst in 0..net.nodes() {
                    if let Some(u) = up {
                        if !rel.permits(u, Input::INJECTED, dst, travelling, c as u8) {
                            continue;
                        }
                    }
                    let hops = rel.hops(st.node, input, dst);
                    let ports: BTreeSet<usize> = hops
                        .iter()
                        .map(|h| port_number(net.topology, h.port))
                        .collect();
                    if ports.len() == 1 {
                        only.insert(*ports.iter().next().unwrap());
                    }
                    for h in hops {
                        wanted.insert(port_number(net.topology, h.port) * v + h.vc as usize);
                    }
                }
                assert!(!mine.is_empty() || wanted.is_empty());
                for &x in &wanted {
                    assert!(
                        mine.iter().any(|pk| pk.permitted[x]),
                        "{}: input VC {k}, output VC {x} never permitted",
                        s.name()
                    );
                }
                for &o in &only {
                    assert!(
                        mine.iter().any(|pk| {
                            (0..st.ports * v)
                                .all(|x| pk.permitted[x] == (x / v == o && pk.permitted[x]))
                                && (0..v).any(|c| pk.permitted[o * v + c])
                        }),
                        "{}: input VC {k}: no packet forced onto port {o}",
                        s.name()
                    );
                }
                if q == 0 {
                    // Injected packets go everywhere: every port is used.
                    let ports: BTreeSet<usize> = wanted.iter().map(|x| x / v).collect();
                    assert_eq!(ports.len(), st.ports, "{}", s.name());
                }
                for pk in &mine {
                    assert_eq!(
                        pk.flits[0]
                            & ((1 << st.header_bits) - 1)
                            & ((1 << (net.n() as u32 * s.address_field_bits())) - 1),
                        address_fields(&s, &net, st.node, pk.dest)
                    );
                }
            }
        }
    }

    #[test]
    fn same_spec_same_stimulus_and_tags_fit() {
        let s = spec(Algorithm::PlanarAdaptive, Topology::Mesh, 2, None);
        let a = build(&s).unwrap();
        assert_eq!(a, build(&s).unwrap());
        assert_eq!(a.hex("x"), build(&s).unwrap().hex("x"));
        assert!(a.header_bits + a.tag_bits <= a.width);
        let text = a.hex("x");
        let words = text
            .lines()
            .map(|l| l.split("//").next().unwrap())
            .flat_map(str::split_whitespace)
            .count();
        assert_eq!(words, a.words());
    }
}
