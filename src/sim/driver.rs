//! One experiment beside an engine: its traffic, network interfaces,
//! buffer model and checks, stepped a cycle at a time on the outputs of
//! its copy of the network. [`super::run`] runs one; [`super::run_many`]
//! runs several at once, each on its own copy of the network in the lanes
//! of one engine.

use crate::algo::Relation;
use crate::error::{Error, Result};

use super::network::{Flit, Wiring};
use super::ni::{Codec, Interface, Packet, Tags, TraceEntry};
use super::stats::Stats;
use super::traffic::{bisection_rate, Source};
use super::watchdog::{deadlock_report, Buffers, Watchdog};
use super::{check_lookahead, Run, SimConfig};

/// The state of one experiment.
pub struct Driver<'c> {
    cfg: &'c SimConfig,
    w: Wiring,
    rel: Relation,
    codec: Codec,
    /// The occupancy at which an input buffer takes no more flits (for the
    /// deadlock report).
    full: usize,
    on_off: bool,
    sources: Vec<Source>,
    nis: Vec<Interface>,
    /// Nodes whose interface has packets queued or being sent.
    busy: Vec<bool>,
    packets: Vec<Packet>,
    tags: Tags,
    bufs: Buffers,
    dog: Watchdog,
    trace: Vec<TraceEntry>,
    link_flits: Vec<u64>,
    delivered: usize,
    accepted_flits: u64,
    offered_flits: u64,
    /// Flits created and flits ejected since reset.
    created_flits: u64,
    ejected_flits: u64,
    /// Flits created and not yet ejected as the measurement phase begins
    /// and as it ends.
    backlog: [Option<u64>; 2],
    /// Cycles after reset.
    t: u64,
    /// Every packet delivered after the measurement phase: the run is over.
    pub done: bool,
}

impl<'c> Driver<'c> {
    /// An experiment of `cfg` (already checked).
    pub fn new(cfg: &'c SimConfig) -> Result<Driver<'c>> {
        let spec = &cfg.spec;
        let w = Wiring::new(spec)?;
        let rel = cfg.relation()?;
        let codec = Codec::new(spec);
        let (nodes, v) = (w.nodes(), w.vcs);
        let depth = spec.buffer_depth as usize;
        let on_off = spec.flow_control == crate::spec::FlowControl::OnOff;
        // The occupancy at which an input buffer takes no more flits: full,
        // or with on/off flow control, fewer free slots than the level needs.
        let full = if on_off {
            depth + 1 - crate::router::ON_OFF_SLACK
        } else {
            depth
        };
        let flit_rate = cfg.load * bisection_rate(&w.net);
        let mean_len = cfg.length.mean();
        let sources = (0..nodes)
            .map(|n| Source::new(cfg.seed, n as u32, flit_rate, mean_len, cfg.injection))
            .collect();
        let nis = (0..nodes)
            .map(|n| Interface::new(n as u32, v, spec.buffer_depth, on_off))
            .collect();
        let mut bufs = Buffers::new(&w);
        bufs.fifo = spec.datapath == crate::spec::RouterDatapath::Unified;
        Ok(Driver {
            cfg,
            full,
            on_off,
            sources,
            nis,
            busy: vec![false; nodes],
            packets: Vec::new(),
            tags: Tags::default(),
            bufs,
            dog: Watchdog::new(cfg.watchdog),
            trace: Vec::new(),
            link_flits: vec![0; nodes * w.ports],
            delivered: 0,
            accepted_flits: 0,
            offered_flits: 0,
            created_flits: 0,
            ejected_flits: 0,
            backlog: [None; 2],
            t: 0,
            done: false,
            w,
            rel,
            codec,
        })
    }

    /// Routers in the network.
    pub fn nodes(&self) -> usize {
        self.w.nodes()
    }

    /// The network's wiring.
    pub fn wiring(&self) -> &Wiring {
        &self.w
    }

    /// Cycles after reset so far, and those planned before the drain.
    pub fn progress(&self) -> (u64, u64) {
        (self.t, self.cfg.warmup + self.cfg.measure)
    }

    /// The first half of cycle `cycle` (`rst` while resetting): creates
    /// the cycle's packets, checks and takes the flits the routers drive
    /// (`flits`, `credits`: this network's outputs, index n P + p, and
    /// `valid`: the indices of the valid flits plus `base`, in increasing
    /// order), and
    /// writes the local ports' inputs for the cycle into `inject` and
    /// `eject_credit`. Returns whether a flit moved. Sets
    /// [`Driver::done`] (and leaves the inputs idle) when the run is over.
    pub fn before(
        &mut self,
        cycle: u64,
        rst: bool,
        (flits, credits, valid, base): (&[Flit], &[u32], &[u32], usize),
        inject: &mut [Flit],
        eject_credit: &mut [u32],
    ) -> Result<bool> {
        let cfg = self.cfg;
        let (m0, m1) = (cfg.warmup, cfg.warmup + cfg.measure);
        let t = self.t;
        let (pp, v) = (self.w.ports, self.w.vcs);
        eject_credit.fill(0);
        inject.fill(Flit::default());
        if !rst {
            for (i, edge) in [m0, m1].into_iter().enumerate() {
                if t == edge {
                    self.backlog[i] = Some(self.created_flits - self.ejected_flits);
                }
            }
            if t < m1 {
                for (n, src) in self.sources.iter_mut().enumerate() {
                    let (k, rng) = src.tick(t);
                    for _ in 0..k {
                        let Some(dest) = cfg.pattern.dest(&self.w.net, n as u32, rng) else {
                            continue;
                        };
                        let len = cfg.length.draw(rng);
                        if (m0..m1).contains(&t) {
                            self.offered_flits += u64::from(len);
                        }
                        self.created_flits += u64::from(len);
                        self.nis[n].queue.push_back(self.packets.len() as u32);
                        self.busy[n] = true;
                        self.packets.push(Packet {
                            src: n as u32,
                            dest,
                            len,
                            created: t,
                            entered: None,
                            delivered: None,
                        });
                    }
                }
            } else if self.delivered == self.packets.len() {
                self.done = true;
                if self.on_off {
                    eject_credit.fill((1u32 << v) - 1);
                }
                return Ok(false);
            } else if t >= m1 + cfg.drain {
                return Err(Error::Simulation(format!(
                    "{} in {} cycles: {} of {} packets delivered",
                    super::DRAIN_FAILED,
                    cfg.drain,
                    self.delivered,
                    self.packets.len()
                )));
            }
        }
        let fault = |e: String| Error::Simulation(format!("cycle {cycle}: {e}"));
        let measuring = (m0..m1).contains(&t) && !rst;
        let w = &self.w;
        let mut moved = false;
        for &k in valid {
            let k = k as usize - base;
            let (n, p) = (k / pp, k % pp);
            let f = &flits[k];
            moved = true;
            if f.vc as usize >= v {
                return Err(fault(format!(
                    "{}: a flit on a VC that does not exist",
                    w.channel_name(n as u32, p, f.vc as usize)
                )));
            }
            if p > 0 && w.link[k].is_none() {
                return Err(fault(format!(
                    "{}: a flit leaves on a port with no link",
                    w.channel_name(n as u32, p, f.vc as usize)
                )));
            }
            let head_id = f
                .head
                .then(|| self.tags.get(&self.codec.tag_of(f.data)).copied())
                .flatten();
            if let (true, Some(id), Some((m, _))) = (cfg.spec.lookahead, head_id, w.link[k]) {
                let dest = self.packets[id as usize].dest;
                check_lookahead(w, &self.rel, &self.codec, n, p, f, m, dest).map_err(fault)?;
            }
            self.bufs.leave(w, n, p, f, head_id).map_err(fault)?;
            if p > 0 {
                if measuring {
                    self.link_flits[k] += 1;
                }
                continue;
            }
            let (credit, got) = self.nis[n]
                .eject(f, t, &self.codec, &w.net, &mut self.packets, &mut self.tags)
                .map_err(fault)?;
            eject_credit[n] = credit;
            if let Some((id, i)) = got {
                if measuring {
                    self.accepted_flits += 1;
                }
                self.ejected_flits += 1;
                if cfg.trace {
                    self.trace.push((n as u32, t, id, i));
                }
                if i + 1 == self.packets[id as usize].len {
                    self.delivered += 1;
                }
            }
        }
        for n in 0..w.nodes() {
            // Only nodes with something to send or a credit coming back
            // have work this cycle.
            if !rst && self.busy[n] {
                let (f, x) = self.nis[n]
                    .inject(&self.codec, &w.net, &self.packets, &mut self.tags)
                    .map_err(fault)?;
                if f.valid {
                    moved = true;
                    if f.head {
                        self.packets[x.0 as usize].entered = Some(self.t);
                    }
                    self.bufs.inject(w, n, f.vc, x);
                }
                inject[n] = f;
                self.busy[n] = self.nis[n].backlog() > 0;
            }
            // Credits returned this cycle count from the next one on.
            let credits = credits[n * pp];
            if credits != 0 || self.on_off {
                self.nis[n].credit(credits).map_err(fault)?;
            }
        }
        if self.on_off {
            // The interfaces eject every flit at once: always on.
            eject_credit.fill((1u32 << v) - 1);
        }
        Ok(moved)
    }

    /// The second half of cycle `cycle`, after the edge: the watchdog.
    pub fn after(&mut self, cycle: u64, rst: bool, moved: bool) -> Result<()> {
        if rst || self.done {
            return Ok(());
        }
        if self.dog.tick(self.bufs.flits, moved) {
            return Err(Error::Simulation(deadlock_report(
                &self.w,
                &self.rel,
                &self.bufs,
                &self.packets,
                self.cfg.watchdog,
                cycle,
                self.full,
            )));
        }
        self.t += 1;
        Ok(())
    }

    /// What the run measured; `stopped` if it ended early.
    pub fn finish(self, stopped: bool) -> Run {
        let cfg = self.cfg;
        let (nodes, pp) = (self.w.nodes(), self.w.ports);
        let (m0, m1) = (cfg.warmup, cfg.warmup + cfg.measure);
        let measured: Vec<&Packet> = self
            .packets
            .iter()
            .filter(|p| (m0..m1).contains(&p.created))
            .collect();
        let span = (self.t.min(m1).saturating_sub(m0)).max(1) as f64;
        let mut utilization = Vec::new();
        for n in 0..nodes {
            for p in 1..pp {
                if self.w.link[n * pp + p].is_some() {
                    utilization.push((
                        format!(
                            "{}{}",
                            self.w.net.node_name(n as u32),
                            self.w.port(n as u32, p)
                        ),
                        self.link_flits[n * pp + p] as f64 / span,
                    ));
                }
            }
        }
        Run {
            stats: Stats {
                algorithm: cfg.spec.algorithm.to_string(),
                load: cfg.load,
                offered: self.offered_flits as f64 / (nodes as f64 * span),
                accepted: self.accepted_flits as f64 / (nodes as f64 * span),
                backlog: self.backlog.map(|b| {
                    b.unwrap_or(self.created_flits - self.ejected_flits) as f64
                        / (nodes as f64 * span)
                }),
                latencies: measured
                    .iter()
                    .filter_map(|p| p.delivered.map(|d| d - p.created))
                    .collect(),
                fastest: {
                    let mut fastest: Vec<Option<u64>> = Vec::new();
                    for p in &measured {
                        if let Some(d) = p.delivered {
                            let h = self.w.net.distance(p.src, p.dest) as usize;
                            if fastest.len() <= h {
                                fastest.resize(h + 1, None);
                            }
                            let l = d - p.created;
                            fastest[h] = Some(fastest[h].map_or(l, |f| f.min(l)));
                        }
                    }
                    fastest
                },
                network_latency: {
                    let inside: Vec<u64> = measured
                        .iter()
                        .filter_map(|p| p.delivered.zip(p.entered).map(|(d, e)| d - e))
                        .collect();
                    (!inside.is_empty())
                        .then(|| inside.iter().sum::<u64>() as f64 / inside.len() as f64)
                },
                measured_packets: measured.len(),
                utilization,
                cycles: self.t,
                complete: !stopped,
                cycle_ns: Some(cfg.cycle_time_ns()),
                seed: cfg.seed,
            },
            trace: self.trace,
        }
    }
}
