//! Chien's comparison (Hot Interconnects 1993, §5) run on routergen's
//! routers: each algorithm's latency against load in ns, the simulated
//! cycles multiplied by that router's cycle time, (a) from Chien's model
//! ([`crate::model`]: the longer of the setup delay and the flow-control
//! cycle, §3.1 and §5, as `routergen sim` takes it) and (b) from the Fmax
//! `routergen synth` measures after place and route on an iCE40 and an
//! ECP5. §5.7: "apparent advantages in low load latency in router cycles
//! are probably illusory" and "even throughput advantages of adaptive
//! routers on nonuniform loads may be erased by the brute speed advantage
//! of the deterministic routers"; the page says where that holds.
//!
//! Synthesis takes minutes per router, so each measured report is kept in
//! a cache directory (one `routergen synth --json` report per router and
//! target) and read back on the next run; the quick scale uses the model
//! alone.

use std::fmt::Write as _;
use std::path::Path;

use super::{cell, saturation_load, spec_of, sweep, sweep_points, Measured, Report, Scale, Sim};
use crate::algo::Network;
use crate::analysis::svg::{Plot, Series};
use crate::error::{Error, Result};
use crate::sim::traffic::{bisection_rate, Pattern};
use crate::sim::SimConfig;
use crate::spec::names::Named;
use crate::spec::{Algorithm, RouterSpec, SpecInput, Topology};
use crate::synth::Target;
use crate::work::Book;

/// The FPGAs whose Fmax the study uses.
pub const TARGETS: [Target; 2] = [Target::Ice40Hx8k, Target::Ecp5_25k];

/// Message length in flits (the length of LAPSES's experiments).
pub const FLITS: u32 = 20;

/// Where a router's cycle time comes from.
#[derive(Debug, Clone, PartialEq)]
pub enum Clock {
    /// Chien's model (0.8 um gate array), ns.
    Model(f64),
    /// Measured by nextpnr on a target: Fmax in MHz, or why there is none.
    Measured(Target, std::result::Result<f64, String>),
}

impl Clock {
    /// The cycle time in ns, if known.
    pub fn ns(&self) -> Option<f64> {
        match self {
            Clock::Model(ns) => Some(*ns),
            Clock::Measured(_, Ok(mhz)) => Some(1000.0 / mhz),
            Clock::Measured(_, Err(_)) => None,
        }
    }

    /// The column title.
    pub fn name(&self) -> String {
        match self {
            Clock::Model(_) => "Chien's model".into(),
            Clock::Measured(t, _) => t.part().to_string(),
        }
    }
}

pub use super::Sweep;

/// One algorithm of one network: its router, clocks and load sweeps.
#[derive(Debug, Clone)]
pub struct Algo {
    /// The routing algorithm.
    pub algorithm: Algorithm,
    /// Its router.
    pub spec: RouterSpec,
    /// Cycle times: the model's first, then one per FPGA target.
    pub clocks: Vec<Clock>,
    /// Per pattern, the load sweep.
    pub sweeps: Vec<(Pattern, Sweep)>,
}

/// The networks Chien compares (§5: two-dimensional networks; *-channels
/// is a torus algorithm, the turn model a mesh one), with their algorithms.
fn networks(scale: Scale) -> Vec<(Topology, u32, Vec<Algorithm>)> {
    use Algorithm::*;
    match scale {
        Scale::Quick => vec![
            (Topology::Mesh, 4, vec![DimensionOrder, Duato]),
            (Topology::Torus, 4, vec![DimensionOrder, StarChannels]),
        ],
        Scale::Full => vec![
            (
                Topology::Mesh,
                8,
                vec![DimensionOrder, PlanarAdaptive, NegativeFirst, Duato],
            ),
            (
                Topology::Torus,
                8,
                vec![DimensionOrder, StarChannels, Duato],
            ),
        ],
    }
}

fn loads(scale: Scale) -> Vec<f64> {
    match scale {
        Scale::Quick => vec![0.1, 0.5],
        Scale::Full => (1..=10).map(|i| f64::from(i) / 10.0).collect(),
    }
}

fn patterns(scale: Scale) -> Vec<Pattern> {
    match scale {
        Scale::Quick => vec![Pattern::Uniform],
        Scale::Full => vec![Pattern::Uniform, Pattern::Transpose],
    }
}

/// What to do about a router whose synthesis report is not cached.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Synth {
    /// Synthesize it now (minutes) and cache the report.
    Missing,
    /// Leave it without a measured Fmax.
    CacheOnly,
}

/// The measured Fmax of `spec` on `target`: from a `routergen synth
/// --json` report in `cache` named for the router and target, else
/// synthesized through `book` (and the report stored there, atomically:
/// array tasks may share the cache) unless `synth` is
/// [`Synth::CacheOnly`]. The outer error is the study's (a job without
/// its result); the inner one is the page's "none: why".
pub fn measured_fmax(
    spec: &RouterSpec,
    target: Target,
    cache: &Path,
    synth: Synth,
    book: &Book,
) -> Result<std::result::Result<f64, String>> {
    let file = cache.join(format!("{}.{}.json", spec.name(), target.name()));
    let report = match std::fs::read_to_string(&file) {
        Ok(text) => text,
        Err(_) if synth == Synth::CacheOnly => {
            return Ok(Err(format!("not measured (no {})", report_name(&file))))
        }
        Err(_) => {
            let what = || {
                format!(
                    "chien: synthesizing {} for {} (minutes)",
                    spec.name(),
                    target.name()
                )
            };
            match book.synthesize(&what, spec, target)? {
                Ok(text) => {
                    crate::atomic::write(&file, text.as_bytes())?;
                    text
                }
                Err(e) => return Ok(Err(e)),
            }
        }
    };
    Ok(fmax_of(&report, spec, target).map_err(|e| format!("{e} ({})", report_name(&file))))
}

/// A cached report named as the page shows it: its file name, since the
/// page sits beside the cache whatever directory it was written to.
fn report_name(file: &Path) -> String {
    file.file_name().map_or_else(
        || file.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}

/// The Fmax of a `routergen synth --json` report, checked to be the
/// report of `spec` on `target`.
fn fmax_of(report: &str, spec: &RouterSpec, target: Target) -> std::result::Result<f64, String> {
    let v: serde_json::Value = serde_json::from_str(report).map_err(|e| e.to_string())?;
    if v["name"] != spec.name() || v["target"] != target.name() {
        return Err(format!(
            "a report of {} on {}, not of {} on {}",
            v["name"],
            v["target"],
            spec.name(),
            target.name()
        ));
    }
    if v["fits"] == false {
        return Err(format!(
            "does not fit the {} in its scan wrapper",
            target.part()
        ));
    }
    v["fmax_mhz"]
        .as_f64()
        .ok_or_else(|| "no Fmax in the report".to_string())
}

/// The latency (ns) of the last unsaturated point and the accepted
/// throughput there, flits per node per us, under `ns` per cycle.
fn summary(runs: &[(f64, Measured)], ns: f64) -> (Option<f64>, Option<f64>) {
    let zero = runs
        .first()
        .and_then(|r| r.1.stats.as_ref()?.mean_latency())
        .map(|c| c * ns);
    let sat = saturation_load(runs);
    let best = runs
        .iter()
        .filter(|r| sat.map_or(true, |s| r.0 < s))
        .filter_map(|r| r.1.stats.as_ref())
        .map(|s| s.accepted.mean)
        .fold(None, |a: Option<f64>, x| Some(a.map_or(x, |a| a.max(x))));
    (zero, best.map(|f| f * 1000.0 / ns))
}

/// The Chien study at `scale` on `engine`, Fmax reports cached in
/// `fmax_cache` (full scale only; the quick scale uses the model alone).
pub fn chien(scale: Scale, fmax_cache: Option<(&Path, Synth)>, sim: Sim) -> Result<Report> {
    let book = sim.book;
    let mut md = String::new();
    let mut figures = Vec::new();
    let mut points = Vec::new();
    let measure = scale == Scale::Full && fmax_cache.is_some();
    let _ = writeln!(
        md,
        "Each algorithm's router simulated in cycles ({FLITS}-flit messages, exponential \
         inter-arrival times, loads normalized to the uniform bisection rate as in LAPSES \
         §2.2), then put in ns with that router's own cycle time: Chien's model (the \
         longer of its setup delay and flow-control cycle, 0.8 um gate array, §4-§5; \
         `routergen model`){}. The sweep stops at the first saturated load.\n",
        if measure {
            ", and the Fmax nextpnr reports after placing and routing the router (in its \
             scan wrapper) on the iCE40HX8K and the LFE5U-25F (`routergen synth --target \
             ice40-hx8k|ecp5-25k --json`, cached in `fmax/` beside this page: delete a \
             file to measure again)"
        } else {
            " (the quick scale uses the model alone)"
        }
    );
    for (topology, k, algos) in networks(scale) {
        let net = Network::new(topology, 2, k)?;
        let title = format!("{k}x{k} {topology}");
        let mut rows: Vec<Algo> = Vec::new();
        for algorithm in algos {
            let spec = spec_of(SpecInput {
                topology: Some(topology),
                dims: Some(2),
                radix: Some(i64::from(k)),
                algorithm: Some(algorithm),
                ..SpecInput::default()
            })?;
            let mut clocks = vec![Clock::Model(SimConfig::new(spec.clone()).cycle_time_ns())];
            if let (true, Some((cache, synth))) = (measure, fmax_cache) {
                for t in TARGETS {
                    clocks.push(Clock::Measured(
                        t,
                        measured_fmax(&spec, t, cache, synth, book)?,
                    ));
                }
            }
            let mut sweeps = Vec::new();
            for pattern in patterns(scale) {
                let runs = sweep(
                    sim,
                    &format!("chien: {title}, {algorithm}, {pattern}"),
                    &spec,
                    pattern,
                    FLITS,
                    &loads(scale),
                    match scale {
                        Scale::Quick => (50, super::lapses::QUICK_MEASURE),
                        Scale::Full => super::cycles(scale),
                    },
                )?;
                points.extend(sweep_points(
                    &net,
                    &format!("{title} {pattern}: {algorithm}"),
                    pattern,
                    FLITS,
                    &runs,
                ));
                sweeps.push((pattern, runs));
            }
            rows.push(Algo {
                algorithm,
                spec,
                clocks,
                sweeps,
            });
        }
        md.push_str(&network_section(&title, &net, &rows, &mut figures));
    }
    Ok(Report {
        markdown: super::page(
            "Chien (1993): the algorithms in ns, with each router's cycle time",
            "chien",
            scale,
            sim,
            &md,
        ),
        figures,
        points,
    })
}

fn f1(x: Option<f64>) -> String {
    x.map_or("-".into(), |v| format!("{v:.1}"))
}

/// One network's tables, plots and verdicts.
fn network_section(
    title: &str,
    net: &Network,
    rows: &[Algo],
    figures: &mut Vec<(String, String)>,
) -> String {
    let mut md = format!("## {title}\n\nCycle times (ns; the FPGA ones are 1000 / Fmax in MHz):\n\n| algorithm | V | router |");
    let clocks = &rows[0].clocks;
    for c in clocks {
        let _ = write!(md, " {} |", c.name());
    }
    let _ = writeln!(md, "\n|---|---|---{}|", "|---".repeat(clocks.len()));
    for a in rows {
        let _ = write!(
            md,
            "| {} | {} | `{}` |",
            a.algorithm,
            a.spec.vcs,
            a.spec.name()
        );
        for c in &a.clocks {
            let _ = write!(
                md,
                " {} |",
                match c {
                    Clock::Model(ns) => format!("{ns:.2}"),
                    Clock::Measured(_, Ok(mhz)) => format!("{:.2} ({mhz:.1} MHz)", 1000.0 / mhz),
                    Clock::Measured(_, Err(e)) => format!("none: {e}"),
                }
            );
        }
        md.push('\n');
    }
    let rate = bisection_rate(net);
    for (pi, (pattern, _)) in rows[0].sweeps.iter().enumerate() {
        let _ = writeln!(
            md,
            "\n### {title}, {pattern} traffic\n\nMean latency in cycles by normalized load \
             (1.0 = {rate:.3} flits/node/cycle offered):\n\n| load | {} |\n|---{}|",
            rows.iter()
                .map(|a| a.algorithm.to_string())
                .collect::<Vec<_>>()
                .join(" | "),
            "|---".repeat(rows.len())
        );
        let loads: Vec<f64> = {
            let mut l: Vec<f64> = rows
                .iter()
                .flat_map(|a| a.sweeps[pi].1.iter().map(|r| r.0))
                .collect();
            l.sort_by(f64::total_cmp);
            l.dedup();
            l
        };
        for load in loads {
            let cells: Vec<String> = rows.iter().map(|a| cell(&a.sweeps[pi].1, load)).collect();
            let _ = writeln!(md, "| {load} | {} |", cells.join(" | "));
        }
        let _ = writeln!(
            md,
            "\nIn ns: the lowest load's latency and the highest accepted throughput below \
             saturation (flits/node/us), per clock:\n\n| algorithm |{}\n|---{}|",
            clocks
                .iter()
                .map(|c| format!(" {0} latency | {0} throughput |", c.name()))
                .collect::<String>(),
            "|---|---".repeat(clocks.len())
        );
        for a in rows {
            let _ = write!(md, "| {} |", a.algorithm);
            for c in &a.clocks {
                let (z, t) = c
                    .ns()
                    .map_or((None, None), |ns| summary(&a.sweeps[pi].1, ns));
                let _ = write!(md, " {} | {} |", f1(z), f1(t));
            }
            md.push('\n');
        }
        md.push('\n');
        for (ci, c) in clocks.iter().enumerate() {
            md.push_str(&verdict(rows, pi, ci, c));
            let name = format!(
                "{}-{}-{}.svg",
                title.replace(' ', "-"),
                pattern,
                match c {
                    Clock::Model(_) => "model",
                    Clock::Measured(t, _) => t.name(),
                }
            );
            let mut series = Vec::new();
            for (i, a) in rows.iter().enumerate() {
                let Some(ns) = a.clocks[ci].ns() else {
                    continue;
                };
                let runs = &a.sweeps[pi].1;
                let (pts, errors): (Vec<(f64, f64)>, Vec<f64>) = runs
                    .iter()
                    .filter_map(|(_, s)| {
                        let s = s.stats.as_ref()?;
                        let l = s.latency?;
                        Some((
                            (s.offered.mean * 1000.0 / ns, l.mean * ns),
                            l.half.unwrap_or(0.0) * ns,
                        ))
                    })
                    .unzip();
                let marker = saturation_load(runs).and_then(|l| {
                    runs.iter()
                        .find(|r| r.0 == l)
                        .and_then(|r| r.1.stats.as_ref())
                        .map(|s| s.offered.mean * 1000.0 / ns)
                });
                series.push(Series {
                    name: format!("{}", a.algorithm),
                    points: pts.clone(),
                    line: true,
                    colour: i,
                    marker,
                    errors: Vec::new(),
                });
                series.push(Series {
                    name: format!("{} sim", a.algorithm),
                    points: pts,
                    line: false,
                    colour: i,
                    marker: None,
                    errors,
                });
            }
            let _ = writeln!(md, "![{title}, {pattern}, {}]({name})\n", c.name());
            figures.push((
                name,
                Plot {
                    title: format!("{title}, {pattern}, clock: {}", c.name()),
                    x_label: "offered (flits/node/us)".into(),
                    y_label: "mean latency (ns)".into(),
                    y_max: None,
                    series,
                }
                .to_svg(),
            ));
        }
    }
    md
}

/// Which algorithm wins at low load and at high load under clock `ci`,
/// and whether Chien's §5.7 conclusion (dimension order's speed erases
/// the adaptive routers' advantages) holds there.
fn verdict(rows: &[Algo], pi: usize, ci: usize, clock: &Clock) -> String {
    let mut s: Vec<(Algorithm, Option<f64>, Option<f64>)> = rows
        .iter()
        .map(|a| {
            let (z, t) = a.clocks[ci]
                .ns()
                .map_or((None, None), |ns| summary(&a.sweeps[pi].1, ns));
            (a.algorithm, z, t)
        })
        .collect();
    s.retain(|r| r.1.is_some());
    let low = s
        .iter()
        .min_by(|a, b| a.1.unwrap_or(f64::MAX).total_cmp(&b.1.unwrap_or(f64::MAX)));
    let high = s
        .iter()
        .max_by(|a, b| a.2.unwrap_or(0.0).total_cmp(&b.2.unwrap_or(0.0)));
    let (Some(low), Some(high)) = (low, high) else {
        return format!("{}: no cycle time, no verdict.\n\n", clock.name());
    };
    let holds = low.0 == Algorithm::DimensionOrder && high.0 == Algorithm::DimensionOrder;
    format!(
        "{}: lowest latency at low load `{}` ({} ns); highest throughput below saturation \
         `{}` ({} flits/node/us). Chien's conclusion (dimension order's shorter cycle \
         erases the adaptive routers' advantages) {}.\n\n",
        clock.name(),
        low.0,
        f1(low.1),
        high.0,
        f1(high.2),
        if holds {
            "holds here"
        } else if low.0 == Algorithm::DimensionOrder {
            "holds at low load only"
        } else if high.0 == Algorithm::DimensionOrder {
            "holds at high load only"
        } else {
            "does not hold here"
        }
    )
}

/// Refuses an Fmax cache path that exists and is not a directory.
pub fn check_cache(cache: &Path) -> Result<()> {
    if cache.exists() && !cache.is_dir() {
        return Err(Error::InvalidSpec(format!(
            "the Fmax cache {} is not a directory",
            cache.display()
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::stats::Replicated;

    fn dor() -> RouterSpec {
        spec_of(SpecInput {
            topology: Some(Topology::Mesh),
            dims: Some(2),
            radix: Some(4),
            algorithm: Some(Algorithm::DimensionOrder),
            ..SpecInput::default()
        })
        .unwrap()
    }

    fn report(name: &str, target: &str, fits: bool, fmax: f64) -> String {
        format!("{{\"name\": \"{name}\", \"target\": \"{target}\", \"fits\": {fits}, \"fmax_mhz\": {fmax}}}")
    }

    #[test]
    fn a_cached_report_is_read_back_and_checked() {
        let spec = dor();
        let dir = tempfile::tempdir().unwrap();
        let t = Target::Ice40Hx8k;
        let file = dir
            .path()
            .join(format!("{}.{}.json", spec.name(), t.name()));
        std::fs::write(&file, report(&spec.name(), "ice40-hx8k", true, 50.0)).unwrap();
        let quiet = |_: &str| {};
        let book = Book::direct(&quiet);
        assert_eq!(
            measured_fmax(&spec, t, dir.path(), Synth::CacheOnly, &book).unwrap(),
            Ok(50.0)
        );
        let c = Clock::Measured(t, Ok(50.0));
        assert_eq!(c.ns(), Some(20.0));
        // Another router's report, or one that did not fit, gives no Fmax.
        std::fs::write(&file, report("router_other", "ice40-hx8k", true, 50.0)).unwrap();
        assert!(measured_fmax(&spec, t, dir.path(), Synth::CacheOnly, &book)
            .unwrap()
            .is_err());
        std::fs::write(&file, report(&spec.name(), "ecp5-25k", true, 50.0)).unwrap();
        assert!(measured_fmax(&spec, t, dir.path(), Synth::CacheOnly, &book)
            .unwrap()
            .is_err());
        std::fs::write(&file, report(&spec.name(), "ice40-hx8k", false, 50.0)).unwrap();
        let e = measured_fmax(&spec, t, dir.path(), Synth::CacheOnly, &book)
            .unwrap()
            .unwrap_err();
        assert!(e.contains("does not fit"), "{e}");
        // The page names the report as it sits beside it, not this machine's path.
        assert!(
            e.contains(&format!("({}.ice40-hx8k.json)", spec.name())),
            "{e}"
        );
        assert!(!e.contains(&*dir.path().to_string_lossy()), "{e}");
        std::fs::remove_file(&file).unwrap();
        let e = measured_fmax(&spec, t, dir.path(), Synth::CacheOnly, &book)
            .unwrap()
            .unwrap_err();
        assert!(e.contains("not measured"), "{e}");
    }

    #[test]
    fn throughput_in_ns_scales_with_the_cycle() {
        let s = crate::sim::stats::Stats {
            offered: 0.2,
            accepted: 0.2,
            latencies: vec![30, 50],
            complete: true,
            ..crate::sim::stats::Stats::default()
        };
        let runs = vec![(
            0.1,
            Measured {
                runs: Vec::new(),
                stats: Some(Replicated::of(&[&s])),
            },
        )];
        // 40 cycles of 5 ns; 0.2 flits per 5 ns cycle = 40 flits/us.
        let (z, t) = summary(&runs, 5.0);
        assert_eq!(z, Some(200.0));
        assert!((t.unwrap() - 40.0).abs() < 1e-9);
    }
}
