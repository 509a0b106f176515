//! Where every flit is: a model of each input buffer's contents, kept from
//! the flits seen on the ports (never from inside the routers), and the
//! deadlock watchdog built on it: when flits are in the network and none
//! has moved for a set number of cycles, it names the blocked channels and
//! the cycle of waits among them.

use std::collections::HashMap;
use std::fmt::Write as _;

use crate::algo::{Input, NodeId, Relation};

use super::network::{Flit, Wiring};

/// Input-buffer contents per input VC (index (n P + p) V + v): the packet
/// and flit index of each flit, oldest first. One ring of `cap` slots per
/// input VC, all in one allocation (the driver moves a flit between two
/// of them per flit on a port, so scattered queues cost a cache miss
/// each); a ring that fills doubles every ring.
#[derive(Debug, Clone)]
pub struct Buffers {
    /// Ring i's slots at `i * cap ..`.
    slots: Vec<(u32, u32)>,
    /// Per ring: the slot of its oldest flit, and its flits.
    start: Vec<u32>,
    len: Vec<u32>,
    /// Per ring: its oldest flit packed by [`pack`], or [`EMPTY`]: a head
    /// flit's input buffer is found by a scan of the node's fronts alone.
    fronts: Vec<u64>,
    /// Slots per ring (a power of two).
    cap: usize,
    /// Per output VC (same indexing): the input VC whose packet holds it.
    owner: Vec<Option<usize>>,
    /// Per output VC: the packet holding it.
    held: Vec<u32>,
    /// Flits in all buffers.
    pub flits: usize,
    /// Whether a packet leaves a router only from the front of its input
    /// buffer. Not in a sliced router (Chien §5.1): a packet that moves on
    /// to the next dimension's slice leaves the port's input buffer before
    /// it leaves the router, and the packet behind it may leave first; the
    /// model then takes a packet's flits from wherever they are in the
    /// buffer (still in order within the packet).
    pub fifo: bool,
}

/// A ring's front when it is empty (no flit packs to it: packet numbers
/// stay below 2^32 - 1).
const EMPTY: u64 = u64::MAX;

/// A flit (packet, flit index) as one word.
fn pack((id, i): (u32, u32)) -> u64 {
    u64::from(id) << 32 | u64::from(i)
}

impl Buffers {
    /// Empty buffers for the network `w` wires.
    pub fn new(w: &Wiring) -> Buffers {
        let k = w.nodes() * w.ports * w.vcs;
        // Enough for the usual depths; deeper buffers grow the rings once.
        let cap = 8;
        Buffers {
            slots: vec![(0, 0); k * cap],
            start: vec![0; k],
            len: vec![0; k],
            fronts: vec![EMPTY; k],
            cap,
            owner: vec![None; k],
            held: vec![0; k],
            flits: 0,
            fifo: true,
        }
    }

    /// Input VCs (rings).
    pub fn channels(&self) -> usize {
        self.len.len()
    }

    /// Flits input VC `i` holds.
    pub fn occupancy(&self, i: usize) -> usize {
        self.len[i] as usize
    }

    /// The oldest flit input VC `i` holds.
    pub fn front(&self, i: usize) -> Option<(u32, u32)> {
        (self.len[i] > 0).then(|| self.slots[self.slot(i, 0)])
    }

    /// The slot of ring `i`'s flit `at` (0 the oldest).
    fn slot(&self, i: usize, at: usize) -> usize {
        i * self.cap + ((self.start[i] as usize + at) & (self.cap - 1))
    }

    /// Every ring twice as large, each flit kept in its place in its ring.
    fn grow(&mut self) {
        let cap = self.cap * 2;
        let mut slots = vec![(0, 0); self.len.len() * cap];
        for i in 0..self.len.len() {
            for at in 0..self.len[i] as usize {
                slots[i * cap + at] = self.slots[self.slot(i, at)];
            }
            self.start[i] = 0;
        }
        self.slots = slots;
        self.cap = cap;
    }

    fn push(&mut self, i: usize, x: (u32, u32)) {
        if self.len[i] as usize == self.cap {
            self.grow();
        }
        let s = self.slot(i, self.len[i] as usize);
        self.slots[s] = x;
        if self.len[i] == 0 {
            self.fronts[i] = pack(x);
        }
        self.len[i] += 1;
        self.flits += 1;
    }

    /// Takes ring `i`'s flit `at` (0 the oldest), the younger ones moving
    /// up one.
    fn take(&mut self, i: usize, at: usize) -> (u32, u32) {
        let x = self.slots[self.slot(i, at)];
        if at == 0 {
            self.start[i] = (self.start[i] + 1) & (self.cap as u32 - 1);
        } else {
            for j in at..self.len[i] as usize - 1 {
                let (to, from) = (self.slot(i, j), self.slot(i, j + 1));
                self.slots[to] = self.slots[from];
            }
        }
        self.len[i] -= 1;
        self.fronts[i] = self.front(i).map_or(EMPTY, pack);
        self.flits -= 1;
        x
    }

    /// A flit injected into `node`'s local input VC `vc`.
    pub fn inject(&mut self, w: &Wiring, node: usize, vc: u8, x: (u32, u32)) {
        self.push((node * w.ports) * w.vcs + vc as usize, x);
    }

    /// The flit leaving router `node` on port `p`: taken from the input
    /// buffer that holds its packet at the front (a head flit names its
    /// packet `head_id`), moved into the downstream buffer (link ports).
    /// Returns the packet and flit index, or why the flit cannot be.
    pub fn leave(
        &mut self,
        w: &Wiring,
        node: usize,
        p: usize,
        f: &Flit,
        head_id: Option<u32>,
    ) -> Result<(u32, u32), String> {
        let (pp, v) = (w.ports, w.vcs);
        let ovc = (node * pp + p) * v + f.vc as usize;
        let name = || w.channel_name(node as NodeId, p, f.vc as usize);
        let from = if f.head {
            let id = head_id.ok_or_else(|| format!("{}: a head flit of no packet", name()))?;
            let first = node * pp * v;
            let found = if self.fifo {
                let want = pack((id, 0));
                self.fronts[first..first + pp * v]
                    .iter()
                    .position(|&x| x == want)
                    .map(|j| first + j)
            } else {
                (first..first + pp * v).find(|&j| {
                    (0..self.occupancy(j)).any(|at| self.slots[self.slot(j, at)] == (id, 0))
                })
            };
            let found = found.ok_or_else(|| {
                format!(
                    "{}: head of packet {id} leaves, but no input buffer has it in front",
                    name()
                )
            })?;
            if let Some(o) = self.owner[ovc] {
                return Err(format!(
                    "{}: packet {id} takes the VC while another (input {o}) holds it",
                    name()
                ));
            }
            self.owner[ovc] = Some(found);
            self.held[ovc] = id;
            found
        } else {
            self.owner[ovc].ok_or_else(|| format!("{}: a body flit on a free VC", name()))?
        };
        if self.len[from] == 0 {
            return Err(format!("{}: a flit from an empty buffer", name()));
        }
        let at = if self.fifo {
            0
        } else {
            let id = self.held[ovc];
            (0..self.occupancy(from))
                .find(|&at| self.slots[self.slot(from, at)].0 == id)
                .ok_or_else(|| format!("{}: packet {id} has no flit left", name()))?
        };
        let x = self.take(from, at);
        if f.tail {
            self.owner[ovc] = None;
        }
        if let Some((m, q)) = w.link[node * pp + p] {
            self.push((m as usize * pp + q) * v + f.vc as usize, x);
        }
        Ok(x)
    }
}

/// Counts cycles without movement while flits are in the network.
#[derive(Debug, Clone)]
pub struct Watchdog {
    /// Cycles without movement, with flits in the network, that count as a deadlock.
    pub limit: u64,
    still: u64,
}

impl Watchdog {
    /// A watchdog that fires after `limit` still cycles.
    pub fn new(limit: u64) -> Watchdog {
        Watchdog { limit, still: 0 }
    }

    /// One cycle: `moved` whether any flit moved; true when the limit is
    /// reached.
    pub fn tick(&mut self, flits: usize, moved: bool) -> bool {
        if flits == 0 || moved {
            self.still = 0;
        } else {
            self.still += 1;
        }
        self.still >= self.limit
    }
}

/// The deadlock report: every blocked input VC with the channels it waits
/// for, then a cycle of waits among them (if one is found). `depth`: the
/// occupancy at which an input buffer takes no more flits (its depth; with
/// on/off flow control, the depth less the slack its level needs, plus 1).
pub fn deadlock_report(
    w: &Wiring,
    rel: &Relation,
    bufs: &Buffers,
    packets: &[super::ni::Packet],
    still: u64,
    cycle: u64,
    depth: usize,
) -> String {
    let (pp, v) = (w.ports, w.vcs);
    let split = |i: usize| (i / (pp * v), (i / v) % pp, i % v);
    let name = |i: usize| {
        let (n, p, c) = split(i);
        format!("input {}", w.channel_name(n as NodeId, p, c))
    };
    let owner_of: HashMap<usize, usize> = bufs
        .owner
        .iter()
        .enumerate()
        .filter_map(|(o, x)| x.map(|i| (i, o)))
        .collect();
    let mut waits: Vec<Vec<usize>> = vec![Vec::new(); bufs.channels()];
    let mut text = String::new();
    let _ = writeln!(
        text,
        "deadlock: {} flits in the network, none moved for {} cycles (cycle {cycle}); blocked \
         channels:",
        bufs.flits, still
    );
    for (i, wait) in waits.iter_mut().enumerate() {
        let Some((id, fi)) = bufs.front(i) else {
            continue;
        };
        let (n, p, c) = split(i);
        let node = n as NodeId;
        // The output VCs this packet may take (or has taken).
        let wanted: Vec<(usize, usize)> = match owner_of.get(&i) {
            Some(&o) if fi > 0 => vec![((o / v) % pp, o % v)],
            _ => {
                let input = if p == 0 {
                    Input::INJECTED
                } else {
                    crate::interface::input_through(w.port(node, p), c as u8)
                };
                rel.hops(node, input, packets[id as usize].dest)
                    .into_iter()
                    .map(|h| (w.index(h.port), h.vc as usize))
                    .collect()
            }
        };
        let mut why = Vec::new();
        for (o, vc) in wanted {
            let ovc = (n * pp + o) * v + vc;
            if let Some(holder) = bufs.owner[ovc].filter(|&h| h != i) {
                wait.push(holder);
                why.push(format!("port {o} vc {vc} held by {}", name(holder)));
            }
            if let Some((m, q)) = w.link[n * pp + o] {
                let down = (m as usize * pp + q) * v + vc;
                if bufs.occupancy(down) >= depth {
                    wait.push(down);
                    why.push(format!("port {o} vc {vc}: downstream buffer full"));
                }
            }
        }
        let _ = writeln!(
            text,
            "  {} holds {} flits, front packet {id} flit {fi} to {}; waits for: {}",
            name(i),
            bufs.occupancy(i),
            w.net.node_name(packets[id as usize].dest),
            if why.is_empty() {
                "nothing visible".to_string()
            } else {
                why.join("; ")
            }
        );
    }
    // A cycle in the wait-for graph (the checker's depth-first search).
    match crate::algo::check::find_cycle(waits.len(), |v, out| out.extend_from_slice(&waits[v])) {
        Some(cyc) => {
            let _ = writeln!(text, "cycle of waits ({} channels):", cyc.len());
            for i in &cyc {
                let _ = writeln!(text, "  {} ->", name(*i));
            }
            let _ = writeln!(text, "  {}", name(cyc[0]));
        }
        None => {
            let _ = writeln!(text, "no cycle of waits found among the blocked channels");
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::VecDeque;

    // The rings against a queue per input VC (the model they replace):
    // flits pushed, taken from the front and from the middle, enough of
    // them in one ring to grow every ring twice, fronts and occupancies
    // compared after every step.
    #[test]
    fn rings_keep_every_buffer_in_order_as_queues_do() {
        let spec = crate::spec::SpecInput {
            radix: Some(2),
            vcs: Some(2),
            ..Default::default()
        }
        .resolve()
        .unwrap()
        .spec;
        let w = Wiring::new(&spec).unwrap();
        let mut b = Buffers::new(&w);
        let mut model: Vec<VecDeque<(u32, u32)>> = vec![VecDeque::new(); b.channels()];
        let mut rng = 0x2545_f491_4f6c_dd1du64;
        let mut next = || {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            rng
        };
        for step in 0..5000u32 {
            let r = next();
            let i = (r % b.channels() as u64) as usize;
            // Ring 3 fills past 8 and then 16 slots early on.
            let i = if step < 40 { 3 } else { i };
            if step < 40 || r >> 32 & 1 == 0 || model[i].is_empty() {
                b.push(i, (step, step ^ 5));
                model[i].push_back((step, step ^ 5));
            } else {
                let at = (r >> 40) as usize % model[i].len();
                let at = if r >> 50 & 1 == 0 { 0 } else { at };
                assert_eq!(b.take(i, at), model[i].remove(at).unwrap(), "step {step}");
            }
            for (j, q) in model.iter().enumerate() {
                assert_eq!(b.occupancy(j), q.len(), "step {step} ring {j}");
                assert_eq!(b.front(j), q.front().copied(), "step {step} ring {j}");
                assert_eq!(b.fronts[j], q.front().map_or(EMPTY, |&x| pack(x)));
            }
            assert_eq!(b.flits, model.iter().map(VecDeque::len).sum::<usize>());
        }
        assert!(b.cap >= 32, "the rings grew to {}", b.cap);
    }
}
