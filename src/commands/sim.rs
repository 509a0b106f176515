//! `routergen sim`: simulates a network of generated routers under
//! traffic, checks every packet, and prints latency and throughput per
//! load and algorithm: in this process, or each algorithm and load as a
//! job of a plan (`--executor`, `--plan`; docs/cluster.md).

use std::sync::atomic::{AtomicBool, Ordering};

use super::{job, resolve_spec, write_file, Outcome};
use crate::cli::SimArgs;
use crate::error::{Error, Result};
use crate::sim::{stats, Control, SimConfig};
use crate::spec::{Algorithm, SpecInput};
use crate::work::{self, Output, Point, Task};

/// What the arguments decide before anything runs.
struct Setup {
    resolved: crate::spec::Resolved,
    pattern: crate::sim::traffic::Pattern,
    engine: crate::sim::EngineKind,
    /// Per algorithm, the configuration of its runs (load to be set).
    configs: Vec<(Algorithm, SimConfig)>,
    window: Option<crate::sim::waves::Window>,
}

/// What the runs gave.
#[derive(Default)]
struct Results {
    rows: Vec<stats::Stats>,
    trace: Vec<crate::sim::ni::TraceEntry>,
    saturation: Vec<(Algorithm, f64)>,
}

/// Runs the simulations `args` ask for and prints (and writes) the
/// results; [`Outcome::Interrupted`] after a Ctrl-C.
pub fn run(args: &SimArgs) -> Result<Outcome> {
    let setup = check(args)?;
    if job::asked(&args.exec) {
        let results = run_jobs(args, &setup)?;
        report(args, &setup, &results)?;
        return Ok(Outcome::Success);
    }
    let stop = crate::interrupt::stop_flag();
    let results = run_here(args, &setup, &stop)?;
    let stopped = stop.load(Ordering::Relaxed);
    if stopped {
        println!("interrupted: the results so far (the last run is marked incomplete)");
    }
    report(args, &setup, &results)?;
    // 128 + SIGINT, the shell's convention: the results above are partial.
    Ok(if stopped {
        Outcome::Interrupted
    } else {
        Outcome::Success
    })
}

/// Checks the arguments and builds each algorithm's configuration.
fn check(args: &SimArgs) -> Result<Setup> {
    // Packets are recognized by a tag in the head flit: 32-bit flits leave
    // room for it on every network the router supports.
    let base = SpecInput {
        flit_width: Some(32),
        ..SpecInput::default()
    };
    let resolved = resolve_spec(&args.spec, base.clone())?;
    let pattern: crate::sim::traffic::Pattern = args.traffic.parse()?;
    let length: crate::sim::traffic::Length = args.length.parse()?;
    if let Some(f) = args.fmax_mhz {
        if !(f > 0.0 && f.is_finite()) {
            return Err(Error::InvalidSpec(format!(
                "--fmax-mhz {f} must be a positive frequency"
            )));
        }
    }
    let algos = if args.algos.is_empty() {
        vec![resolved.spec.algorithm]
    } else {
        args.algos.clone()
    };
    let single = algos.len() == 1 && args.load.len() == 1 && !args.sweep && args.seeds == 1;
    if args.sweep && args.seeds > 1 {
        return Err(Error::InvalidSpec(format!(
            "--seeds {} with --sweep: the sweep finds one saturation load per run; give the \
             loads to replicate with --load instead",
            args.seeds
        )));
    }
    if args.trace.is_some() && !single {
        return Err(Error::InvalidSpec(
            "--trace needs one algorithm and one --load (no --sweep) and one seed (no --seeds \
             above 1)"
                .into(),
        ));
    }
    let waving = !args.waves.is_empty();
    for (asked, flag) in [(waving, "--waves"), (args.replay.is_some(), "--replay")] {
        if asked && !single {
            return Err(Error::InvalidSpec(format!(
                "{flag} needs one algorithm and one --load (no --sweep) and one seed (no --seeds \
                 above 1)"
            )));
        }
    }
    if let Some(dir) = &args.replay {
        crate::network::replay::check(&resolved.spec, dir)?;
    }
    if job::asked(&args.exec) {
        job::executor(&args.exec)?;
        if args.sweep || args.trace.is_some() || waving || args.replay.is_some() {
            return Err(Error::InvalidSpec(
                "--executor and --plan run each algorithm and load as an independent job: \
                 --sweep (each load depends on the last), --trace, --waves and --replay run \
                 in this process only"
                    .into(),
            ));
        }
    }
    // Checked before anything runs; the network is the same for every
    // algorithm.
    let window = if waving {
        Some(crate::sim::waves::Window::new(
            &args.waves,
            args.waves_cycles.as_deref(),
            &SimConfig {
                warmup: args.warmup,
                measure: args.measure,
                drain: args.drain,
                ..SimConfig::new(resolved.spec.clone())
            },
        )?)
    } else {
        None
    };
    let mut configs = Vec::new();
    for algorithm in algos {
        // The algorithm's own default VCs and path selection unless given.
        let spec = if args.algos.is_empty() {
            resolved.spec.clone()
        } else {
            resolve_spec(
                &args.spec,
                SpecInput {
                    algorithm: Some(algorithm),
                    ..base.clone()
                },
            )
            .map(|r| r.spec)?
        };
        crate::router::supported(&spec)?;
        let cfg = SimConfig {
            pattern,
            length: length.clone(),
            injection: args.injection,
            warmup: args.warmup,
            measure: args.measure,
            drain: args.drain,
            seed: args.seed,
            watchdog: args.watchdog,
            trace: args.trace.is_some(),
            cycle_ns: args.fmax_mhz.map(|f| 1000.0 / f),
            threads: args.threads as usize,
            ..SimConfig::new(spec)
        };
        for &load in &args.load {
            SimConfig {
                load,
                ..cfg.clone()
            }
            .check()?;
        }
        configs.push((algorithm, cfg));
    }
    Ok(Setup {
        resolved,
        pattern,
        engine: args
            .engine
            .unwrap_or_else(crate::sim::EngineKind::default_installed),
        configs,
        window,
    })
}

/// Every algorithm and load as its own job on the flags' executor; the
/// rows in the order of the arguments, whatever order the jobs ran in.
fn run_jobs(args: &SimArgs, setup: &Setup) -> Result<Results> {
    let mut tasks = Vec::new();
    for (algorithm, cfg) in &setup.configs {
        for cfg in points(cfg, args) {
            tasks.push((
                format!("sim: {algorithm}, load {}, seed {}", cfg.load, cfg.seed),
                Task::Simulate(Point::new(&cfg, setup.engine)?),
            ));
        }
    }
    let outputs = work::run_all(&tasks, |w| {
        job::run_plan(&args.exec, None, "routergen sim", w)
    })?;
    let mut results = Results::default();
    for ((_, task), out) in tasks.iter().zip(outputs) {
        match (task, out) {
            (_, Output::Simulated { stats: Some(s) }) => results.rows.push(s),
            (Task::Simulate(p), Output::Simulated { stats: None }) => {
                return Err(Error::Simulation(format!(
                    "{} at load {}: {} in {} cycles (raise --drain, or lower the load)",
                    p.spec.algorithm.map_or(String::new(), |a| a.to_string()),
                    p.load,
                    crate::sim::DRAIN_FAILED,
                    p.drain
                )));
            }
            (_, other) => {
                return Err(Error::Internal(format!(
                    "a sim plan's result is of another kind: {other:?}"
                )))
            }
        }
    }
    Ok(results)
}

/// The runs of `cfg` the arguments ask for: per load, one per seed.
fn points(cfg: &SimConfig, args: &SimArgs) -> Vec<SimConfig> {
    args.load
        .iter()
        .flat_map(|&load| {
            (0..u64::from(args.seeds)).map(move |i| SimConfig {
                load,
                seed: args.seed.wrapping_add(i),
                ..cfg.clone()
            })
        })
        .collect()
}

/// Every run in this process, with a progress bar; a first Ctrl-C
/// (`stop`) ends the runs with what they measured.
fn run_here(args: &SimArgs, setup: &Setup, stop: &AtomicBool) -> Result<Results> {
    let engine_kind = setup.engine;
    let bar = indicatif::ProgressBar::new(0);
    bar.set_style(
        indicatif::ProgressStyle::with_template("{msg} [{bar:30}] {pos}/{len} cycles {eta}")
            .map_err(|e| Error::Internal(format!("the progress bar's template: {e}")))?,
    );
    let progress = |t: u64, total: u64| {
        bar.set_length(total);
        bar.set_position(t.min(total));
    };
    let ctl = Control {
        stop: Some(stop),
        progress: Some(&progress),
        ..Control::default()
    };
    let mut out = Results::default();
    for (algorithm, cfg) in &setup.configs {
        let algorithm = *algorithm;
        bar.set_message(format!("{algorithm}: building"));
        let mut on_row = |s: &stats::Stats| {
            bar.suspend(|| {
                eprintln!(
                    "{}",
                    stats::table(std::slice::from_ref(s))
                        .lines()
                        .nth(1)
                        .unwrap_or("")
                )
            });
        };
        if args.sweep {
            bar.set_message(format!("{algorithm}"));
            let (r, sat) = crate::sim::find_saturation(cfg, engine_kind, &ctl, &mut on_row)?;
            out.rows.extend(r);
            out.saturation.push((algorithm, sat));
        } else if setup.window.is_some() || args.replay.is_some() {
            // One load (checked with the arguments): one run, recorded.
            let cfg = SimConfig {
                load: args.load[0],
                ..cfg.clone()
            };
            bar.set_message(format!("{algorithm} load {}", cfg.load));
            let run = run_recorded(args, setup, &cfg, &ctl, &bar)?;
            on_row(&run.stats);
            out.rows.push(run.stats);
            out.trace = run.trace;
        } else {
            // Every load and seed in one pass where the engine holds
            // several networks.
            bar.set_message(format!("{algorithm}"));
            let runs = crate::sim::run_configs(&points(cfg, args), engine_kind, &ctl, &mut |r| {
                on_row(&r.stats)
            })?;
            for run in runs {
                out.rows.push(run.stats);
                out.trace = run.trace;
            }
        }
        if stop.load(Ordering::Relaxed) {
            break;
        }
    }
    bar.finish_and_clear();
    Ok(out)
}

/// One run of `cfg` recorded as the arguments ask: its waveform
/// (`--waves`), its replay (`--replay`), each written when the run ends
/// (the waveform also when it fails).
fn run_recorded(
    args: &SimArgs,
    setup: &Setup,
    cfg: &SimConfig,
    ctl: &Control,
    bar: &indicatif::ProgressBar,
) -> Result<crate::sim::Run> {
    use std::cell::RefCell;
    let waves = match &setup.window {
        Some(w) => Some(RefCell::new(crate::sim::waves::Waves::create(
            &args.waves_file,
            w.clone(),
            cfg,
        )?)),
        None => None,
    };
    let s = &cfg.spec;
    let nodes = crate::algo::Network::new(s.topology, s.dims, s.radix)?.nodes() as usize;
    let replay = args.replay.as_ref().map(|_| {
        RefCell::new(crate::sim::replay::Replay::new(
            nodes,
            s.physical_ports() as usize,
            s.vcs,
            crate::router::vc_bits(s.vcs),
            s.flit_width,
        ))
    });
    let mut e = crate::sim::build_engine(cfg, setup.engine)?;
    let result = crate::sim::run(
        cfg,
        e.as_mut(),
        &Control {
            waves: waves.as_ref(),
            replay: replay.as_ref(),
            ..*ctl
        },
    );
    if let Some(waves) = waves {
        let note = waves_note(&waves.into_inner().finish()?);
        bar.suspend(|| {
            if result.is_err() {
                eprintln!("{note} (the failing run)");
            } else {
                println!("{note}");
            }
        });
    }
    let run = result?;
    if let (Some(dir), Some(replay)) = (&args.replay, replay) {
        let r = replay.into_inner();
        let files = crate::network::replay::files(s, r.cycles, &r.stimulus, &r.expected)?;
        crate::output::write_dir(dir, &files)?;
        bar.suspend(|| {
            println!(
                "replay: {} cycles of every local port in {} (make -C {} compares)",
                r.cycles,
                dir.display(),
                dir.display()
            )
        });
    }
    Ok(run)
}

/// Prints the table and writes the files the arguments ask for.
fn report(args: &SimArgs, setup: &Setup, r: &Results) -> Result<()> {
    let rows = &r.rows;
    print!("{}", stats::table(rows));
    if args.seeds > 1 {
        println!(
            "\nper point, {} replications (seeds {} to {}): mean and 95% confidence interval \
             (Student's t over the replications' means)",
            args.seeds,
            args.seed,
            args.seed.wrapping_add(u64::from(args.seeds) - 1)
        );
        print!("{}", stats::replication_table(&stats::replicate(rows)));
    }
    if let Some(r) = rows.first() {
        println!(
            "cycle time {:.2} ns ({}); loads are fractions of the bisection-limited rate",
            r.cycle_ns.unwrap_or(0.0),
            if args.fmax_mhz.is_some() {
                "from --fmax-mhz"
            } else {
                "Chien's model"
            }
        );
    }
    println!("engine: {} ({})", setup.engine, setup.engine.describe());
    for (a, s) in &r.saturation {
        println!("{a}: saturation at load {s:.3}");
    }
    if args.channels {
        for r in rows {
            println!(
                "channel utilization, {} at load {:.3}:",
                r.algorithm, r.load
            );
            for (name, u) in &r.utilization {
                println!("  {name:<16} {u:.3}");
            }
        }
    }
    if let Some(path) = &args.csv {
        let mut text = format!("{}\n", stats::CSV_HEADER);
        for r in rows {
            text.push_str(&r.csv_row());
            text.push('\n');
        }
        write_file(path, &text)?;
    }
    if let Some(path) = &args.svg {
        let spec = &setup.resolved.spec;
        let title = format!(
            "{}-ary {}-dimensional {}, {} traffic",
            spec.radix, spec.dims, spec.topology, setup.pattern
        );
        write_file(path, &crate::sim::plot::latency_svg(rows, &title))?;
    }
    if let Some(path) = &args.trace {
        let mut text = String::from("node,cycle,packet,flit\n");
        for (n, c, p, f) in &r.trace {
            text.push_str(&format!("{n},{c},{p},{f}\n"));
        }
        write_file(path, &text)?;
    }
    Ok(())
}

/// What a finished waveform holds, for the run's report.
fn waves_note(w: &crate::sim::waves::Written) -> String {
    match w.cycles {
        Some((a, b)) => format!("waveform: {} (cycles {a}..{b})", w.path.display()),
        None => format!(
            "waveform: {} (empty: the run ended before the first cycle asked for)",
            w.path.display()
        ),
    }
}
