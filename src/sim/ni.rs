//! Network interfaces: per node a source queue, injection into the
//! router's local port with credits per VC, or on/off levels
//! (docs/interface.md, "Flow control"), and ejection, where every flit is
//! checked against the packet it belongs to. The same code drives every
//! engine.

use std::collections::{HashMap, VecDeque};

use crate::algo::{Network, NodeId};
use crate::interface::HeadFormat;
use crate::spec::{Addressing, RouterSpec};

use super::network::Flit;

/// A packet of the run.
#[derive(Debug, Clone)]
pub struct Packet {
    /// Node the packet is injected at.
    pub src: NodeId,
    /// Node it is bound for.
    pub dest: NodeId,
    /// Length in flits, head and tail included.
    pub len: u32,
    /// Cycle (after reset) it was created in.
    pub created: u64,
    /// Cycle its head flit entered the router at the source, leaving the
    /// interface's queue.
    pub entered: Option<u64>,
    /// Cycle its tail was ejected.
    pub delivered: Option<u64>,
}

/// How packets are written into flits and recognized again.
#[derive(Debug, Clone)]
pub struct Codec {
    n: usize,
    field: usize,
    /// Bits of the look-ahead field above the address (0 without).
    lookahead: usize,
    width: usize,
    addressing: Addressing,
    /// The head flit's address fields (docs/interface.md).
    format: HeadFormat,
}

impl Codec {
    /// The codec for routers built to `spec`.
    pub fn new(spec: &RouterSpec) -> Codec {
        Codec {
            n: spec.dims as usize,
            field: spec.address_field_bits() as usize,
            lookahead: (spec.header_bits() - spec.dims * spec.address_field_bits()) as usize,
            width: spec.flit_width as usize,
            addressing: spec.addressing,
            format: HeadFormat::of(spec),
        }
    }

    fn mask(&self) -> u64 {
        if self.width >= 64 {
            u64::MAX
        } else {
            (1 << self.width) - 1
        }
    }

    /// Bits of the address fields.
    pub fn address_bits(&self) -> usize {
        self.n * self.field
    }

    /// Bits of the head flit's routing field: the address and the
    /// look-ahead field.
    fn header_bits(&self) -> usize {
        self.address_bits() + self.lookahead
    }

    /// Bits of the head flit above the routing field: the packet's tag.
    pub fn tag_bits(&self) -> usize {
        self.width - self.header_bits()
    }

    /// The tag of packet `id` in the head flit: its low [`Codec::tag_bits`] bits.
    pub fn tag(&self, id: u32) -> u64 {
        let b = self.tag_bits();
        if b >= 32 {
            u64::from(id)
        } else {
            u64::from(id) & ((1 << b) - 1)
        }
    }

    /// The tag of a head flit.
    pub fn tag_of(&self, data: u64) -> u64 {
        data >> self.header_bits()
    }

    /// The head flit at injection (docs/interface.md, "Head flit"): per
    /// dimension the signed offset (relative; a torus offset of k/2 goes
    /// +), the destination coordinate (absolute), or a differing bit
    /// (hypercube); with look-ahead, a field naming the local port (what a
    /// head flit carries into its destination router; at injection the
    /// router ignores it, docs/interface.md); the tag above.
    pub fn head(&self, net: &Network, id: u32, src: NodeId, dest: NodeId) -> u64 {
        let mut h = self.format.address(net, src, dest);
        if self.lookahead > 0 {
            h |= 1 << self.address_bits();
        }
        (h | self.tag(id) << self.header_bits()) & self.mask()
    }

    /// The head flit as it must arrive at its destination: relative
    /// offsets all zero, absolute coordinates unchanged (with look-ahead,
    /// the field naming the local port, as written at injection).
    pub fn arrived_head(&self, injected: u64) -> u64 {
        match self.addressing {
            Addressing::Absolute => injected,
            Addressing::Relative => injected & !((1u64 << (self.n * self.field)) - 1),
        }
    }

    /// Body flit `i` of packet `id`: a hash, so a swapped, lost or altered
    /// flit is seen.
    pub fn body(&self, id: u32, i: u32) -> u64 {
        let mut z = (u64::from(id) << 20 | u64::from(i)).wrapping_add(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        (z ^ (z >> 31)) & self.mask()
    }
}

/// The packets in flight by the tag of their head flit.
pub type Tags = HashMap<u64, u32, std::hash::BuildHasherDefault<TagHasher>>;

/// A hash of a tag for [`Tags`]: one multiplication (Fibonacci hashing),
/// enough for keys that are packet numbers and cheaper than the default
/// hash, which the driver pays for every head flit on every link.
#[derive(Debug, Default, Clone, Copy)]
pub struct TagHasher(u64);

impl std::hash::Hasher for TagHasher {
    fn finish(&self) -> u64 {
        self.0.wrapping_mul(0x9E37_79B9_7F4A_7C15)
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 << 8 | u64::from(b)).rotate_left(5);
        }
    }

    fn write_u64(&mut self, x: u64) {
        self.0 ^= x;
    }
}

/// One delivered flit: (node, cycle, packet, flit index).
pub type TraceEntry = (NodeId, u64, u32, u32);

/// The network interface of one node.
#[derive(Debug, Clone)]
pub struct Interface {
    /// The node.
    pub node: NodeId,
    /// Packets (ids into the run's packet list) waiting to start, oldest first.
    pub queue: VecDeque<u32>,
    /// Per local VC: the packet being injected and its next flit.
    sending: Vec<Option<(u32, u32)>>,
    /// Per local VC: credits; with on/off flow control, the level seen in
    /// the cycle before (1 high, 0 low).
    credits: Vec<u32>,
    on_off: bool,
    ptr: usize,
    /// Per local output VC: the packet being ejected and its next flit.
    receiving: Vec<Option<(u32, u32)>>,
    depth: u32,
}

impl Interface {
    /// `on_off`: the router's local input VCs give levels, not credits.
    pub fn new(node: NodeId, vcs: usize, depth: u32, on_off: bool) -> Interface {
        Interface {
            node,
            queue: VecDeque::new(),
            sending: vec![None; vcs],
            credits: vec![if on_off { 0 } else { depth }; vcs],
            on_off,
            ptr: 0,
            receiving: vec![None; vcs],
            depth,
        }
    }

    /// Packets started but not fully injected, and queued.
    pub fn backlog(&self) -> usize {
        self.queue.len() + self.sending.iter().flatten().count()
    }

    /// The flit to inject this cycle (invalid if none) and its packet and
    /// flit index: queued packets take a free local VC
    /// (the lowest), and the VCs with a packet and a credit take turns.
    pub fn inject(
        &mut self,
        codec: &Codec,
        net: &Network,
        packets: &[Packet],
        tags: &mut Tags,
    ) -> Result<(Flit, (u32, u32)), String> {
        let v = self.sending.len();
        for c in 0..v {
            if self.sending[c].is_none() {
                if let Some(id) = self.queue.pop_front() {
                    self.sending[c] = Some((id, 0));
                }
            }
        }
        let Some(c) = (0..v)
            .map(|i| (self.ptr + i) % v)
            .find(|&c| self.sending[c].is_some() && self.credits[c] > 0)
        else {
            return Ok((Flit::default(), (0, 0)));
        };
        self.ptr = (c + 1) % v;
        let (id, i) = self.sending[c].expect("chosen");
        let pk = &packets[id as usize];
        let data = if i == 0 {
            let tag = codec.tag(id);
            if let Some(other) = tags.insert(tag, id) {
                return Err(format!(
                    "packets {other} and {id} are in flight with the same {}-bit tag; use a \
                     wider flit than flit_width = {}",
                    codec.tag_bits(),
                    codec.width
                ));
            }
            codec.head(net, id, pk.src, pk.dest)
        } else {
            codec.body(id, i)
        };
        if !self.on_off {
            self.credits[c] -= 1;
        }
        self.sending[c] = (i + 1 < pk.len).then_some((id, i + 1));
        let f = Flit {
            valid: true,
            head: i == 0,
            tail: i + 1 == pk.len,
            vc: c as u8,
            data,
        };
        Ok((f, (id, i)))
    }

    /// Credits the router returned for the local input VCs this cycle
    /// (spent from the next cycle on); with on/off flow control, their
    /// levels (obeyed in the next cycle).
    pub fn credit(&mut self, bits: u32) -> Result<(), String> {
        for (c, credit) in self.credits.iter_mut().enumerate() {
            if self.on_off {
                *credit = bits >> c & 1;
                continue;
            }
            if bits >> c & 1 == 1 {
                *credit += 1;
                if *credit > self.depth {
                    return Err(format!(
                        "node {}: local input VC {c} returned more credits than its {} slots",
                        self.node, self.depth
                    ));
                }
            }
        }
        Ok(())
    }

    /// Takes the flit ejected this cycle and checks it: a head flit names a
    /// packet in flight bound for this node with its head unchanged but for
    /// the address (docs/interface.md); the packet's flits follow in order,
    /// unchanged, on one VC. Returns the credit bits to give back and the
    /// packet and flit index.
    #[allow(clippy::too_many_arguments)]
    pub fn eject(
        &mut self,
        f: &Flit,
        cycle: u64,
        codec: &Codec,
        net: &Network,
        packets: &mut [Packet],
        tags: &mut Tags,
    ) -> Result<(u32, Option<(u32, u32)>), String> {
        if !f.valid {
            return Ok((0, None));
        }
        let c = f.vc as usize;
        // Named only for a message: formatting it costs more than the checks.
        let here = || net.node_name(self.node);
        if c >= self.receiving.len() {
            return Err(format!(
                "node {}: ejected a flit on VC {c}, which does not exist",
                here()
            ));
        }
        let (id, i) = match self.receiving[c] {
            Some(x) => {
                if f.head {
                    return Err(format!(
                        "node {} VC {c}: a head flit interleaves packet {}",
                        here(),
                        x.0
                    ));
                }
                x
            }
            None => {
                if !f.head {
                    return Err(format!(
                        "node {} VC {c}: a body flit outside any packet",
                        here()
                    ));
                }
                let tag = codec.tag_of(f.data);
                let id = *tags.get(&tag).ok_or_else(|| {
                    format!(
                        "node {} VC {c} cycle {cycle}: head flit {:#x} names no packet in flight",
                        here(),
                        f.data
                    )
                })?;
                (id, 0)
            }
        };
        let pk = &mut packets[id as usize];
        if pk.dest != self.node {
            return Err(format!(
                "packet {id} for {} was delivered to {}",
                net.node_name(pk.dest),
                here()
            ));
        }
        let expect = if i == 0 {
            codec.arrived_head(codec.head(net, id, pk.src, pk.dest))
        } else {
            codec.body(id, i)
        };
        if f.data != expect {
            return Err(format!(
                "packet {id} flit {i} at {}: {:#x}, sent as {expect:#x}",
                here(),
                f.data
            ));
        }
        let last = i + 1 == pk.len;
        if f.tail != last {
            return Err(format!(
                "packet {id} flit {i} of {}: tail flag {}",
                pk.len, f.tail
            ));
        }
        if last {
            if pk.delivered.is_some() {
                return Err(format!("packet {id} delivered twice"));
            }
            pk.delivered = Some(cycle);
            tags.remove(&codec.tag(id));
            self.receiving[c] = None;
        } else {
            self.receiving[c] = Some((id, i + 1));
        }
        Ok((1 << c, Some((id, i))))
    }
}
