//! Studies: routergen's own routers simulated ([`crate::sim`]) beside a
//! paper's analytic model and its printed values, written as a Markdown
//! table and SVG plots (`routergen study`), beside the runs they are made
//! from and the study's configuration ([`data`]: points.csv, config.json).
//!
//! - [`dally`]: Dally's k-ary n-cubes under constant bisection, emulated by
//!   message length: a message of L bits is L/W flits with W = k/2 (eq. 7);
//! - [`quaglia`]: Duato's fully adaptive routing on k x k tori at the
//!   generation rates and message length of Quaglia et al.'s Tables 1-2;
//! - [`lapses::lapses`]: LAPSES's 16x16 mesh experiments (Figures 5 and 6,
//!   Tables 3 and 4);
//! - [`chien::chien`]: the algorithms Chien compares, latency in ns with
//!   each router's cycle time (Chien's model, Fmax measured on FPGAs).

pub mod chien;
pub mod data;
pub mod lapses;

use std::fmt::Write as _;

use crate::algo::Network;
use crate::analysis::svg::{Plot, Series};
use crate::analysis::{dally as dm, quaglia as qm};
use crate::error::{Error, Result};
use crate::sim::stats::{Interval, Replicated, Run};
use crate::sim::traffic::{bisection_rate, Injection, Length, Pattern};
use crate::sim::{self, EngineKind, SimConfig};
use crate::spec::{Algorithm, RouterSpec, SpecInput, Topology};
use crate::work::{self, Book};
use data::RunConfig;

/// The scale of a study.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scale {
    /// A tiny network and few cycles: seconds, for the test suite.
    Quick,
    /// The papers' networks and enough cycles for steady state.
    Full,
}

/// What a study produced.
#[derive(Debug, Clone)]
pub struct Report {
    /// The Markdown page (tables, the command and engine).
    pub markdown: String,
    /// SVG plots by file name.
    pub figures: Vec<(String, String)>,
    /// One row per simulated point.
    pub points: Vec<Point>,
}

/// The replications of one point: each run's configuration and what it
/// measured (`None`: it did not drain), and their aggregate (`None`:
/// some run did not drain).
#[derive(Debug, Clone, PartialEq)]
pub struct Measured {
    /// Each replication.
    pub runs: Vec<(RunConfig, Option<Run>)>,
    /// Their means and intervals.
    pub stats: Option<Replicated>,
}

/// A load sweep: each load, with what was measured there.
pub type Sweep = Vec<(f64, Measured)>;

/// One simulated point beside the model.
#[derive(Debug, Clone, PartialEq)]
pub struct Point {
    /// The network, e.g. "8x8 torus".
    pub network: String,
    /// The load on the paper's axis (bits/cycle/node for Dally,
    /// messages/cycle/node for Quaglia).
    pub paper_load: f64,
    /// Offered flits per node per cycle.
    pub offered: f64,
    /// Accepted flits per node per cycle.
    pub accepted: f64,
    /// Flits per node per cycle created and not ejected as the measurement
    /// phase begins and as it ends (the runs' means; [`Stats::backlog`]).
    pub backlog: [f64; 2],
    /// Mean simulated latency, cycles: the mean over the replications of
    /// each one's mean (None: nothing measured).
    pub latency: Option<f64>,
    /// Half the 95% confidence interval of `latency` (Student's t over the
    /// replications; None with one).
    pub latency_half: Option<f64>,
    /// Mean latency inside the network (from the head's entry into the
    /// source router; [`Stats::network_latency`]) and half its interval.
    pub network_latency: Option<Interval>,
    /// Packets measured, all replications.
    pub packets: usize,
    /// Replications (seeds 1 to this).
    pub seeds: usize,
    /// Lower bound on any latency: mean minimal hops + message flits.
    pub bound: f64,
    /// The model's latency at the same load (None: saturated).
    pub model: Option<f64>,
    /// The simulation's zero-load latency ([`zero_load`]).
    pub sim_zero: Option<f64>,
    /// The replications' least latency per hop count
    /// ([`Replicated::fastest`]).
    pub fastest: Vec<Option<u64>>,
    /// Each replication (points.csv's rows).
    pub runs: Vec<(RunConfig, Option<Run>)>,
    /// Whether the study judged the point past saturation (`None`: it
    /// does not judge).
    pub saturated: Option<bool>,
}

impl Point {
    /// The point of `network` at `paper_load` that the replications `m`
    /// measured (NaN throughput and no latency where they did not drain),
    /// beside the latency `bound`; no model yet.
    fn measured(network: String, paper_load: f64, m: &Measured, bound: f64) -> Point {
        let r = m.stats.as_ref();
        Point {
            network,
            paper_load,
            offered: r.map_or(f64::NAN, |r| r.offered.mean),
            accepted: r.map_or(f64::NAN, |r| r.accepted.mean),
            backlog: r.map_or([f64::NAN; 2], |r| r.backlog),
            latency: r.and_then(Replicated::mean_latency),
            latency_half: r.and_then(|r| r.latency?.half),
            network_latency: r.and_then(|r| r.network_latency),
            packets: r.map_or(0, |r| r.packets),
            seeds: r.map_or(0, |r| r.seeds.len()),
            bound,
            model: None,
            sim_zero: None,
            fastest: r.map_or(Vec::new(), |r| r.fastest.clone()),
            runs: m.runs.clone(),
            saturated: None,
        }
    }

    /// The simulated latency as the page prints it: `mean ± half` with
    /// replications, the mean alone with one, `-` without.
    pub fn latency_text(&self) -> String {
        self.latency.map_or("-".into(), |mean| {
            Interval {
                mean,
                half: self.latency_half,
            }
            .text(2)
        })
    }
}

/// Mean minimal hop count between distinct nodes of `net` under uniform traffic.
pub fn mean_min_hops(net: &Network) -> f64 {
    let k = net.radix;
    let per_dim: f64 = match net.topology {
        Topology::Torus => (0..k).map(|d| f64::from(d.min(k - d))).sum::<f64>() / f64::from(k),
        Topology::Mesh => {
            let s: u32 = (0..k)
                .flat_map(|a| (0..k).map(move |b| a.abs_diff(b)))
                .sum();
            f64::from(s) / f64::from(k * k)
        }
        Topology::Hypercube => 0.5,
        // (b - a) mod k, uniform over 0..k: Dally's D = n(k-1)/2 (eq. 11).
        Topology::UniTorus => f64::from(k - 1) / 2.0,
    };
    let n = f64::from(net.nodes());
    f64::from(net.dims) * per_dim * n / (n - 1.0)
}

/// Mean minimal hop count of the packets `pattern` sends on `net`: the
/// uniform mean, or the mean over the nodes a permutation sends from.
pub fn pattern_hops(net: &Network, pattern: Pattern) -> f64 {
    if pattern == Pattern::Uniform {
        return mean_min_hops(net);
    }
    let mut rng = crate::blocks::cosim::SplitMix64::new(1);
    let pairs: Vec<u32> = (0..net.nodes())
        .filter_map(|s| pattern.dest(net, s, &mut rng).map(|d| net.distance(s, d)))
        .collect();
    f64::from(pairs.iter().sum::<u32>()) / pairs.len().max(1) as f64
}

fn spec(topology: Topology, dims: u32, radix: u32, algorithm: Algorithm) -> Result<RouterSpec> {
    spec_of(SpecInput {
        topology: Some(topology),
        dims: Some(i64::from(dims)),
        radix: Some(i64::from(radix)),
        algorithm: Some(algorithm),
        ..SpecInput::default()
    })
}

/// The router of `input` with 32-bit flits unless given (room for the
/// simulation's packet tags), refused by name if routergen does not build it.
fn spec_of(input: SpecInput) -> Result<RouterSpec> {
    let spec = SpecInput {
        flit_width: input.flit_width.or(Some(32)),
        ..input
    }
    .resolve()?
    .spec;
    crate::router::supported(&spec)?;
    Ok(spec)
}

/// Warm-up and measured cycles of one point at `scale`.
fn cycles(scale: Scale) -> (u64, u64) {
    match scale {
        Scale::Quick => (100, 400),
        Scale::Full => (2_000, 10_000),
    }
}

/// Replications of each point at `scale`: seeds 1 to this. Five at full
/// scale; two at the quick scale, so that its pages show intervals too.
pub fn seeds(scale: Scale) -> u32 {
    match scale {
        Scale::Quick => 2,
        Scale::Full => 5,
    }
}

/// Where a study's simulations run: the engine, the [`Book`] that runs,
/// plans or answers them ([`crate::jobs`]), and how many replications of
/// each point ([`seeds`] gives the default of each scale).
#[derive(Clone, Copy)]
pub struct Sim<'a> {
    /// Does, plans or answers the work.
    pub book: &'a Book<'a>,
    /// The simulation engine.
    pub engine: EngineKind,
    /// Replications of each point: seeds 1 to this.
    pub seeds: u32,
}

/// The simulations of `spec` at normalized `load` (LAPSES §2.2: a fraction
/// of the uniform bisection rate) with `flits`-flit messages, exponential
/// inter-arrival times, one per seed 1 to `sim.seeds` (each a job); no
/// aggregate when the network did not drain its backlog in one of them
/// (past saturation). Any other fault (a deadlock, a misdelivery) is an
/// error. `what` names the point.
fn run_point(
    sim: Sim,
    what: &dyn Fn() -> String,
    spec: &RouterSpec,
    pattern: Pattern,
    flits: u32,
    load: f64,
    (warmup, measure): (u64, u64),
) -> Result<Measured> {
    let mut runs = Vec::new();
    for seed in 1..=u64::from(sim.seeds.max(1)) {
        let cfg = SimConfig {
            pattern,
            length: Length::Fixed(flits),
            injection: Injection::Exponential,
            load,
            warmup,
            measure,
            drain: 20_000,
            seed,
            ..SimConfig::new(spec.clone())
        };
        let what = || format!("{}, seed {seed}", what());
        let run = sim
            .book
            .simulate(&what, work::Point::new(&cfg, sim.engine)?)?;
        runs.push((RunConfig::of(&cfg, sim.engine), run));
    }
    // Every seed is asked for (so that each is a job) before any answer is
    // looked at.
    let all: Option<Vec<&Run>> = runs.iter().map(|r| r.1.as_ref()).collect();
    let stats = all.map(|r| Replicated::of_runs(&r));
    Ok(Measured { runs, stats })
}

/// A load sweep of one router and pattern: `loads` in order until the
/// first saturated point ([`sim::saturated`] against the first load's
/// latency, or no drain), which is kept. Every load is asked for, so
/// that the points are independent jobs; those past the first saturated
/// one are dropped. `label` names the sweep.
fn sweep(
    sim: Sim,
    label: &str,
    spec: &RouterSpec,
    pattern: Pattern,
    flits: u32,
    loads: &[f64],
    scale_cycles: (u64, u64),
) -> Result<Sweep> {
    let mut all = Vec::new();
    for &load in loads {
        let what = || format!("{label}, load {load}");
        all.push((
            load,
            run_point(sim, &what, spec, pattern, flits, load, scale_cycles)?,
        ));
    }
    let mut out = Vec::new();
    let mut base = None;
    for (load, s) in all {
        let sat = s
            .stats
            .as_ref()
            .map_or(true, |s| sim::point_saturated(s, base));
        base = base.or(s.stats.as_ref().and_then(Replicated::mean_latency));
        out.push((load, s));
        if sat {
            break;
        }
    }
    Ok(out)
}

/// The first load of a sweep past saturation, if any.
fn saturation_load(runs: &[(f64, Measured)]) -> Option<f64> {
    let base = runs
        .first()
        .and_then(|r| r.1.stats.as_ref()?.mean_latency());
    runs.iter()
        .find(|(_, s)| {
            s.stats
                .as_ref()
                .map_or(true, |s| sim::point_saturated(s, base))
        })
        .map(|r| r.0)
}

/// A sweep's points, each named `name` and judged saturated or not,
/// beside the latency bound of `pattern` on `net` with `flits`-flit
/// messages.
fn sweep_points(
    net: &Network,
    name: &str,
    pattern: Pattern,
    flits: u32,
    runs: &[(f64, Measured)],
) -> Vec<Point> {
    let sat = saturation_load(runs);
    runs.iter()
        .map(|(load, m)| Point {
            saturated: Some(sat == Some(*load)),
            ..Point::measured(
                name.to_string(),
                *load,
                m,
                pattern_hops(net, pattern) + f64::from(flits),
            )
        })
        .collect()
}

/// The table cell of the sweep `runs` at `load`: the mean latency (with
/// its 95% interval over the replications), marked where the sweep
/// saturated; `no drain`, or empty where the sweep stopped before it.
fn cell(runs: &[(f64, Measured)], load: f64) -> String {
    match runs.iter().find(|r| (r.0 - load).abs() < 1e-9) {
        None => "".into(),
        Some((_, Measured { stats: None, .. })) => "no drain".into(),
        Some((_, Measured { stats: Some(s), .. })) => {
            let sat = saturation_load(runs).is_some_and(|l| (l - load).abs() < 1e-9);
            let sat = if sat { " (sat.)" } else { "" };
            s.latency
                .map_or("-".into(), |l| format!("{}{sat}", l.text(1)))
        }
    }
}

/// One simulation of `spec` at `flit_rate` flits/node/cycle.
fn simulate(
    sim: Sim,
    what: &dyn Fn() -> String,
    spec: &RouterSpec,
    flits: u32,
    flit_rate: f64,
    scale: Scale,
) -> Result<Measured> {
    let net = Network::new(spec.topology, spec.dims, spec.radix)?;
    let load = flit_rate / bisection_rate(&net);
    run_point(
        sim,
        what,
        spec,
        Pattern::Uniform,
        flits,
        load,
        cycles(scale),
    )
    .and_then(|m| match m.stats {
        Some(_) => Ok(m),
        None => Err(Error::Simulation(format!(
            "{}: the network did not drain at load {load:.3}",
            spec.name()
        ))),
    })
}

/// The page's title and how to regenerate it. No run time: the page is
/// the same bytes whichever executor ran its jobs (the run time is told
/// on standard error).
fn header(title: &str, command: &str, engine: EngineKind, seeds: u32) -> String {
    format!(
        "# {title}\n\nRegenerate: {command} (engine {engine}).\n\nEach simulated point is \
         {seeds} runs, seeds 1 to {seeds}: its latency is the mean of the runs' mean latencies \
         ± half its 95% confidence interval (Student's t over the runs), drawn as error bars; \
         offered and accepted loads are the runs' means.\n\n"
    )
}

/// A study's page: the [`header`] of study `name`, then `body`.
fn page(title: &str, name: &str, scale: Scale, sim: Sim, body: &str) -> String {
    header(title, &command(name, scale), sim.engine, sim.seeds) + body
}

fn fmt_opt(x: Option<f64>) -> String {
    x.map_or("-".into(), |v| format!("{v:.2}"))
}

/// Fills the `sim_zero` of `points`, all of network `net` under uniform
/// traffic, with the zero-load latency of [`zero_load`] from their
/// lowest load.
fn zero_loads(points: &mut [Point], net: &Network) {
    let z = points
        .iter()
        .min_by(|a, b| a.paper_load.total_cmp(&b.paper_load))
        .and_then(|p| zero_load(net, &p.fastest));
    for p in points.iter_mut() {
        p.sim_zero = z;
    }
}

/// The share of the ordered source-destination pairs of `net` (source and
/// destination apart) whose minimal routes cross h links, by h: uniform
/// traffic's hop distribution, counted exactly (a dimension's coordinate
/// pairs by distance, convolved over the dimensions).
pub fn hop_shares(net: &Network) -> Vec<f64> {
    let k = net.radix;
    let mut one = vec![0.0; k as usize + 1];
    for a in 0..k {
        for b in 0..k {
            // Nodes a and b differ in dimension 0 only.
            one[net.minimal_dirs(a, b, 0).2 as usize] += 1.0;
        }
    }
    let mut all = vec![1.0];
    for _ in 0..net.dims {
        let mut next = vec![0.0; all.len() + one.len() - 1];
        for (i, x) in all.iter().enumerate() {
            for (j, y) in one.iter().enumerate() {
                next[i + j] += x * y;
            }
        }
        all = next;
    }
    let n = f64::from(net.nodes());
    all[0] -= n;
    all.iter().map(|c| c / (n * (n - 1.0))).collect()
}

/// The simulation's zero-load latency on `net` under uniform traffic:
/// each hop count's fastest packet (`fastest`, from the lowest load, where
/// some packet of each count meets no contention), weighted by the share
/// of pairs that far apart ([`hop_shares`]). A hop count no packet had
/// takes the least-squares line through those that had (a lone packet's
/// latency grows by the router's cycles per hop: docs/router.md). `None`
/// with fewer than two counts seen.
pub fn zero_load(net: &Network, fastest: &[Option<u64>]) -> Option<f64> {
    let seen: Vec<(f64, f64)> = fastest
        .iter()
        .enumerate()
        .filter_map(|(h, t)| t.map(|t| (h as f64, t as f64)))
        .collect();
    if seen.len() < 2 {
        return None;
    }
    let m = seen.len() as f64;
    let (sx, sy) = seen
        .iter()
        .fold((0.0, 0.0), |(a, b), (x, y)| (a + x, b + y));
    let (mx, my) = (sx / m, sy / m);
    let sxx: f64 = seen.iter().map(|(x, _)| (x - mx) * (x - mx)).sum();
    let sxy: f64 = seen.iter().map(|(x, y)| (x - mx) * (y - my)).sum();
    let slope = sxy / sxx;
    let line = |h: f64| my + slope * (h - mx);
    let z = hop_shares(net)
        .iter()
        .enumerate()
        .skip(1)
        .map(|(h, share)| {
            let t = fastest
                .get(h)
                .copied()
                .flatten()
                .map_or_else(|| line(h as f64), |t| t as f64);
            share * t
        })
        .sum();
    Some(z)
}

/// Quaglia et al.'s Tables 1-2 beside Duato's algorithm on our tori:
/// 12-flit messages, exponential inter-arrival, uniform destinations, at
/// the paper's generation rates, simulated through `book`.
pub fn quaglia(scale: Scale, sim: Sim) -> Result<Report> {
    let engine = sim.engine;
    let (sides, rates): (Vec<u32>, Vec<f64>) = match scale {
        Scale::Quick => (vec![4], vec![0.001, 0.01]),
        Scale::Full => (vec![4, 8, 12, 16], qm::RATES.to_vec()),
    };
    let flits = qm::TABLE_LENGTH as u32;
    let mut points = Vec::new();
    let mut table = String::from(
        "| torus | rate (msg/cycle/node) | sim latency | sim contention | model | model \
         contention | paper model | paper sim | accepted / offered |\n|---|---|---|---|---|---|---|---|---|\n",
    );
    for k in sides {
        let spec = spec(Topology::Torus, 2, k, Algorithm::Duato)?;
        let net = Network::new(Topology::Torus, 2, k)?;
        let printed = qm::TABLES.iter().find(|t| t.0 == k).map(|t| t.1);
        let mut rows = Vec::new();
        for &rate in &rates {
            let flit_rate = rate * f64::from(flits);
            if flit_rate > bisection_rate(&net) {
                continue;
            }
            let what = || format!("quaglia: {k}x{k} torus, rate {rate}");
            let s = simulate(sim, &what, &spec, flits, flit_rate, scale)?;
            rows.push(Point {
                model: qm::solve(k, qm::TABLE_LENGTH, rate).ok().map(|x| x.latency),
                ..Point::measured(
                    format!("{k}x{k} torus"),
                    rate,
                    &s,
                    mean_min_hops(&net) + f64::from(flits),
                )
            });
        }
        zero_loads(&mut rows, &net);
        let mz = qm::zero_load_latency(k, qm::TABLE_LENGTH);
        for p in &rows {
            let paper = printed.and_then(|t| t.iter().find(|r| r.0 == p.paper_load));
            let _ = writeln!(
                table,
                "| {}x{} | {} | {} | {} | {} | {} | {} | {} | {:.4} / {:.4} |",
                k,
                k,
                p.paper_load,
                p.latency_text(),
                fmt_opt(p.latency.zip(p.sim_zero).map(|(a, b)| a - b)),
                fmt_opt(p.model),
                fmt_opt(p.model.map(|m| m - mz)),
                paper.map_or("-".into(), |r| format!("{:.2}", r.2)),
                paper.map_or("-".into(), |r| format!("{:.2}", r.1)),
                p.accepted,
                p.offered
            );
        }
        points.extend(rows);
    }
    let series = plot_series(&points, |p| p.model);
    let plot = Plot {
        title: "Duato on k x k tori, 12 flits: simulation (points) and Quaglia's model (lines)"
            .into(),
        x_label: "generation rate (messages/cycle/node)".into(),
        y_label: "mean latency (cycles)".into(),
        y_max: None,
        series,
    };
    let mut md = header(
        "Quaglia et al. (2002) beside routergen's Duato routers",
        &command("quaglia", scale),
        engine,
        sim.seeds,
    );
    md.push_str(&table);
    md.push_str(
        "\nThe model counts one cycle per hop and per flit; routergen's routers take \
         several cycles per hop (routing, VC and switch allocation, link), so the simulated \
         latency sits above the model by a constant. The contention columns subtract each \
         side's zero-load latency (the simulation's: the latency of a message alone in \
         the network, each hop count's fastest message at the lowest rate weighted by \
         the share of pairs that far apart; the model's: its eq. 45 limit) \
         and compare what load adds. Loads the local port cannot offer are left out.\n\n\
         ![latency](quaglia-latency.svg)\n",
    );
    Ok(Report {
        markdown: md,
        figures: vec![("quaglia-latency.svg".into(), plot.to_svg())],
        points,
    })
}

/// Model lines and simulation points, one colour per network.
fn plot_series(points: &[Point], model: impl Fn(&Point) -> Option<f64>) -> Vec<Series> {
    let mut nets: Vec<&str> = Vec::new();
    for p in points {
        if !nets.contains(&p.network.as_str()) {
            nets.push(&p.network);
        }
    }
    let mut out = Vec::new();
    for (i, net) in nets.iter().enumerate() {
        let mine: Vec<&Point> = points.iter().filter(|p| p.network == *net).collect();
        out.push(Series {
            name: format!("{net} model"),
            points: mine
                .iter()
                .filter_map(|p| model(p).map(|m| (p.paper_load, m)))
                .collect(),
            line: true,
            colour: i,
            marker: None,
            errors: Vec::new(),
        });
        out.push(Series {
            name: format!("{net} sim"),
            points: mine
                .iter()
                .filter_map(|p| p.latency.map(|l| (p.paper_load, l)))
                .collect(),
            line: false,
            colour: i,
            marker: None,
            errors: mine
                .iter()
                .filter(|p| p.latency.is_some())
                .map(|p| p.latency_half.unwrap_or(0.0))
                .collect(),
        });
    }
    out
}

fn command(name: &str, scale: Scale) -> String {
    match scale {
        Scale::Quick => format!("`routergen study {name} --quick -o DIR`"),
        Scale::Full => format!("`routergen study {name} -o docs/studies/{name}` or `make studies`"),
    }
}

/// Dally's networks simulated (through `book`) with dimension-order routers: a k-ary
/// n-cube (a torus, or a hypercube for k = 2) with L = 200-bit messages of
/// L/W flits (W = k/2, eq. 7), at Dally's loads in bits/cycle/node,
/// beside eqs. (22)-(24) and Table I.
pub fn dally(scale: Scale, sim: Sim) -> Result<Report> {
    let engine = sim.engine;
    let (nets, loads): (Vec<(u32, u32)>, Vec<f64>) = match scale {
        Scale::Quick => (vec![(4, 2), (2, 4)], vec![0.02, 0.1]),
        Scale::Full => (
            // Table I's 1K- and 4K-node networks; the 4-ary 5- and 6-cubes
            // and the binary 12-cube are rows with the reason routergen does
            // not build them.
            vec![
                (32, 2),
                (4, 5),
                (2, 10),
                (64, 2),
                (16, 3),
                (8, 4),
                (4, 6),
                (2, 12),
            ],
            // Table I's loads, then past saturation (Figures 16-17's plateau).
            vec![0.02, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5],
        ),
    };
    // Quick: 32-bit messages, so a short run still sees many of them.
    let length = match scale {
        Scale::Quick => 32.0,
        Scale::Full => dm::TABLE_I_LENGTH,
    };
    let mut points = Vec::new();
    let mut table = String::from(
        "| network | lambda (bits/cycle/node) | flits per message | sim latency | sim in \
         network | sim contention (in network) | model | model contention | Table I | \
         accepted / offered (flits) |\n\
         |---|---|---|---|---|---|---|---|---|---|\n",
    );
    for (k, n) in nets {
        // Dally's k-ary n-cubes are unidirectional (§II-A): so are these.
        let topology = if k == 2 {
            Topology::Hypercube
        } else {
            Topology::UniTorus
        };
        let cube = dm::Cube {
            radix: f64::from(k),
            dims: n,
        };
        // A network whose router routergen does not build keeps its row,
        // with the reason, so the page shows what it leaves out.
        let spec = match spec(topology, n, k, Algorithm::DimensionOrder) {
            Ok(spec) => spec,
            Err(e) => {
                let _ = writeln!(
                    table,
                    "| {} | - | - | not simulated: {} | | | | | |",
                    cube.name(),
                    e.to_string().replace('|', "/")
                );
                continue;
            }
        };
        let net = Network::new(topology, n, k)?;
        let w = dm::channel_width(cube.radix);
        let flits = (length / w).ceil() as u32;
        let printed = dm::TABLE_I
            .iter()
            .find(|c| (c.radix, c.dims) == (k, n))
            .copied();
        let mut rows = Vec::new();
        for &lam in &loads {
            let flit_rate = lam / w;
            if flit_rate > bisection_rate(&net) {
                continue;
            }
            let what = || format!("dally: {}, lambda {lam}", cube.name());
            let s = simulate(sim, &what, &spec, flits, flit_rate, scale)?;
            rows.push(Point {
                model: dm::latency(cube, length, lam, dm::Queueing::None),
                ..Point::measured(cube.name(), lam, &s, mean_min_hops(&net) + f64::from(flits))
            });
        }
        zero_loads(&mut rows, &net);
        let mz = dm::zero_load_latency(cube, length);
        // Dally's latency (eq. 22) starts at the source channel, so the
        // sim's contention is taken inside the network too (at zero load
        // nothing waits at the source: the same baseline).
        let inside = |p: &Point| p.network_latency.map(|l| l.mean);
        for p in &rows {
            let t1 = printed.and_then(|c| {
                dm::TABLE_I_LOADS
                    .iter()
                    .position(|l| (l - p.paper_load).abs() < 1e-12)
                    .map(|i| c.latency[i])
            });
            let _ = writeln!(
                table,
                "| {} | {} | {flits} | {} | {} | {} | {} | {} | {} | {:.4} / {:.4} |",
                p.network,
                p.paper_load,
                p.latency_text(),
                p.network_latency.map_or("-".into(), |l| l.text(2)),
                fmt_opt(inside(p).zip(p.sim_zero).map(|(a, b)| a - b)),
                fmt_opt(p.model),
                fmt_opt(p.model.map(|m| m - mz)),
                t1.map_or("-".into(), |v| format!("{v}")),
                p.accepted,
                p.offered
            );
        }
        points.extend(rows);
    }
    let plot = Plot {
        title: "Dimension order under constant bisection: simulation (points), Dally (lines)"
            .into(),
        x_label: "traffic lambda (bits/cycle/node)".into(),
        y_label: "mean latency (cycles)".into(),
        y_max: None,
        series: plot_series(&points, |p| p.model),
    };
    let mut md = header(
        "Dally (1990) beside routergen's dimension-order routers",
        &command("dally", scale),
        engine,
        sim.seeds,
    );
    let _ = writeln!(md, "L = {length} bits.\n");
    md.push_str(&table);
    md.push_str(
        "\nConstant bisection is emulated by message length: an L-bit message is \
         ceil(L / W) flits with W = k/2 (eq. 7); one flit per cycle per channel. \
         The k-ary n-cubes are unidirectional tori, as Dally's are (§II-A: one channel \
         per dimension out of each node, the average distance n(k-1)/2 of eq. 11), \
         routed in dimension order with two dateline VCs; the binary n-cubes are \
         hypercubes. \"sim latency\" runs from a message's creation to its tail's \
         delivery, its wait in the source queue included; \"sim in network\" from its \
         head's entry into the source router, which is where Dally's latency D + T_n \
         (eq. 22) starts: T_n is the service time of the source channel, and the time \
         a message waits behind the messages before it at its source is in neither \
         the model nor Table I; on the binary 10-cube near saturation the source queue \
         is most of the gap to Table I (docs/studies/README.md gives the run). \
         routergen's routers take \
         several cycles per hop, so the zero-load latencies differ; the contention \
         columns subtract each side's zero-load latency (the sim's: the latency of a \
         packet alone in the network, each hop count's fastest packet at the lowest \
         load weighted by the share of pairs that far apart). \
         Loads the local port cannot offer are left out.\n\n\
         ![latency](dally-latency.svg)\n",
    );
    Ok(Report {
        markdown: md,
        figures: vec![("dally-latency.svg".into(), plot.to_svg())],
        points,
    })
}

/// Writes `report` of the study `setting` into `dir` (created if
/// missing): README.md, the SVGs, points.csv and config.json, each file
/// whole or not at all.
pub fn write(report: &Report, setting: &data::Setting, dir: &std::path::Path) -> Result<()> {
    let out = |e: std::io::Error, p: &std::path::Path| Error::Output {
        path: p.to_path_buf(),
        message: e.to_string(),
    };
    std::fs::create_dir_all(dir).map_err(|e| out(e, dir))?;
    crate::atomic::write(&dir.join("README.md"), report.markdown.as_bytes())?;
    for (name, svg) in &report.figures {
        crate::atomic::write(&dir.join(name), svg.as_bytes())?;
    }
    crate::atomic::write(
        &dir.join("points.csv"),
        data::csv(&report.points).as_bytes(),
    )?;
    crate::atomic::write(
        &dir.join("config.json"),
        data::config_json(setting, &report.points).as_bytes(),
    )?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The hop distribution against every pair counted one by one, and its
    /// mean against [`mean_min_hops`].
    #[test]
    fn hop_shares_count_every_pair() {
        for (t, n, k) in [
            (Topology::Mesh, 2, 4),
            (Topology::Torus, 2, 5),
            (Topology::UniTorus, 3, 3),
            (Topology::Hypercube, 4, 2),
        ] {
            let net = Network::new(t, n, k).unwrap();
            let shares = hop_shares(&net);
            let mut count = vec![0.0; shares.len()];
            for a in 0..net.nodes() {
                for b in (0..net.nodes()).filter(|&b| b != a) {
                    count[net.distance(a, b) as usize] += 1.0;
                }
            }
            let pairs = f64::from(net.nodes()) * f64::from(net.nodes() - 1);
            for (h, s) in shares.iter().enumerate() {
                assert!((s - count[h] / pairs).abs() < 1e-12, "{t} h={h}");
            }
            let mean: f64 = shares.iter().enumerate().map(|(h, s)| h as f64 * s).sum();
            assert!((mean - mean_min_hops(&net)).abs() < 1e-12, "{t}");
        }
    }

    /// A lone packet's latency a + b h, with hop counts missing: the line
    /// through the others fills them, and the zero-load latency is
    /// a + b times the mean hop count.
    #[test]
    fn zero_load_weights_each_hop_count_and_fills_the_missing() {
        let net = Network::new(Topology::Torus, 2, 8).unwrap();
        let fastest: Vec<Option<u64>> = (0..=8u64)
            .map(|h| (h != 0 && h != 5 && h != 8).then_some(10 + 2 * h))
            .collect();
        let z = zero_load(&net, &fastest).unwrap();
        assert!((z - (10.0 + 2.0 * mean_min_hops(&net))).abs() < 1e-9, "{z}");
        assert_eq!(zero_load(&net, &[None, Some(12)]), None);
    }
}
