//! Where every flit is: a model of each input buffer's contents, kept from
//! the flits seen on the ports (never from inside the routers), and the
//! deadlock watchdog built on it: when flits are in the network and none
//! has moved for a set number of cycles, it names the blocked channels and
//! the cycle of waits among them.

use std::collections::{HashMap, VecDeque};
use std::fmt::Write as _;

use crate::algo::{Input, NodeId, Relation};

use super::network::{Flit, Wiring};

/// Input-buffer contents per input VC (index (n P + p) V + v): the packet
/// and flit index of each flit, oldest first.
#[derive(Debug, Clone)]
pub struct Buffers {
    /// Per input VC: (packet, flit index) of each flit it holds, oldest first.
    pub bufs: Vec<VecDeque<(u32, u32)>>,
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

impl Buffers {
    /// Empty buffers for the network `w` wires.
    pub fn new(w: &Wiring) -> Buffers {
        let k = w.nodes() * w.ports * w.vcs;
        Buffers {
            bufs: vec![VecDeque::new(); k],
            owner: vec![None; k],
            held: vec![0; k],
            flits: 0,
            fifo: true,
        }
    }

    fn push(&mut self, i: usize, x: (u32, u32)) {
        self.bufs[i].push_back(x);
        self.flits += 1;
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
            let found = (0..pp * v)
                .map(|j| node * pp * v + j)
                .find(|&j| {
                    if self.fifo {
                        self.bufs[j].front() == Some(&(id, 0))
                    } else {
                        self.bufs[j].contains(&(id, 0))
                    }
                })
                .ok_or_else(|| {
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
        let at = if self.fifo {
            0
        } else {
            let id = self.held[ovc];
            self.bufs[from]
                .iter()
                .position(|x| x.0 == id)
                .ok_or_else(|| format!("{}: packet {id} has no flit left", name()))?
        };
        let x = if at == 0 {
            self.bufs[from].pop_front()
        } else {
            self.bufs[from].remove(at)
        };
        let x = x.ok_or_else(|| format!("{}: a flit from an empty buffer", name()))?;
        self.flits -= 1;
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
    let mut waits: Vec<Vec<usize>> = vec![Vec::new(); bufs.bufs.len()];
    let mut text = String::new();
    let _ = writeln!(
        text,
        "deadlock: {} flits in the network, none moved for {} cycles (cycle {cycle}); blocked \
         channels:",
        bufs.flits, still
    );
    for (i, b) in bufs.bufs.iter().enumerate() {
        let Some(&(id, fi)) = b.front() else { continue };
        let (n, p, c) = split(i);
        let node = n as NodeId;
        // The output VCs this packet may take (or has taken).
        let wanted: Vec<(usize, usize)> = match owner_of.get(&i) {
            Some(&o) if fi > 0 => vec![((o / v) % pp, o % v)],
            _ => {
                let input = if p == 0 {
                    Input::INJECTED
                } else {
                    crate::interface::input_through(w.in_port(node, p), c as u8)
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
                waits[i].push(holder);
                why.push(format!("port {o} vc {vc} held by {}", name(holder)));
            }
            if let Some((m, q)) = w.link[n * pp + o] {
                let down = (m as usize * pp + q) * v + vc;
                if bufs.bufs[down].len() >= depth {
                    waits[i].push(down);
                    why.push(format!("port {o} vc {vc}: downstream buffer full"));
                }
            }
        }
        let _ = writeln!(
            text,
            "  {} holds {} flits, front packet {id} flit {fi} to {}; waits for: {}",
            name(i),
            b.len(),
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
