//! `routergen sim`: simulates a network of generated routers under
//! traffic, checks every packet, and prints latency and throughput per
//! load and algorithm.

use super::{resolve_spec, write_file, Outcome};
use crate::cli::SimArgs;
use crate::error::{Error, Result};
use crate::spec::SpecInput;

/// Runs the simulations `args` ask for and prints (and writes) the
/// results; [`Outcome::Interrupted`] after a Ctrl-C.
pub fn run(args: &SimArgs) -> Result<Outcome> {
    use crate::sim::{self, stats, Control, SimConfig};
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;
    // Packets are recognized by a tag in the head flit: 32-bit flits leave
    // room for it on every network the router supports.
    let base = SpecInput {
        flit_width: Some(32),
        ..SpecInput::default()
    };
    let resolved = resolve_spec(&args.spec, base.clone())?;
    let pattern: sim::traffic::Pattern = args.traffic.parse()?;
    let length: sim::traffic::Length = args.length.parse()?;
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
    let single = algos.len() == 1 && args.load.len() == 1 && !args.sweep;
    if args.trace.is_some() && !single {
        return Err(Error::InvalidSpec(
            "--trace needs one algorithm and one --load (no --sweep)".into(),
        ));
    }
    let waving = !args.waves.is_empty();
    if waving && !single {
        return Err(Error::InvalidSpec(
            "--waves needs one algorithm and one --load (no --sweep)".into(),
        ));
    }
    // Checked before anything runs; the network is the same for every
    // algorithm.
    let window = if waving {
        Some(sim::waves::Window::new(
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
    let engine_kind = args
        .engine
        .unwrap_or_else(sim::EngineKind::default_installed);
    let stop = Arc::new(AtomicBool::new(false));
    {
        let stop = stop.clone();
        // A second Ctrl-C ends the process at once.
        let _ = ctrlc::set_handler(move || {
            if stop.swap(true, Ordering::Relaxed) {
                std::process::exit(130);
            }
        });
    }
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
        stop: Some(&stop),
        progress: Some(&progress),
        waves: None,
    };
    let mut rows: Vec<stats::Stats> = Vec::new();
    let mut trace = Vec::new();
    let mut saturation = Vec::new();
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
            let (r, sat) = sim::find_saturation(&cfg, engine_kind, &ctl, &mut on_row)?;
            rows.extend(r);
            saturation.push((algorithm, sat));
        } else {
            if let Some(w) = &window {
                // One load (checked with the arguments): one run, recorded.
                let cfg = SimConfig {
                    load: args.load[0],
                    ..cfg.clone()
                };
                let waves = std::cell::RefCell::new(sim::waves::Waves::create(
                    &args.waves_file,
                    w.clone(),
                    &cfg,
                )?);
                let mut e = sim::build_engine(&cfg, engine_kind)?;
                bar.set_message(format!("{algorithm} load {}", cfg.load));
                let result = sim::run(
                    &cfg,
                    e.as_mut(),
                    &Control {
                        waves: Some(&waves),
                        ..ctl
                    },
                );
                let note = waves_note(&waves.into_inner().finish()?);
                bar.suspend(|| {
                    if result.is_err() {
                        eprintln!("{note} (the failing run)");
                    } else {
                        println!("{note}");
                    }
                });
                let run = result?;
                on_row(&run.stats);
                rows.push(run.stats);
                trace = run.trace;
                continue;
            }
            // Every load in one pass where the engine holds several networks.
            bar.set_message(format!("{algorithm}"));
            let runs = sim::run_loads(&cfg, &args.load, engine_kind, &ctl, &mut |r| {
                on_row(&r.stats)
            })?;
            for run in runs {
                rows.push(run.stats);
                trace = run.trace;
            }
        }
        if stop.load(Ordering::Relaxed) {
            break;
        }
    }
    bar.finish_and_clear();
    if stop.load(Ordering::Relaxed) {
        println!("interrupted: the results so far (the last run is marked incomplete)");
    }
    print!("{}", stats::table(&rows));
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
    println!("engine: {engine_kind} ({})", engine_kind.describe());
    for (a, s) in &saturation {
        println!("{a}: saturation at load {s:.3}");
    }
    if args.channels {
        for r in &rows {
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
        for r in &rows {
            text.push_str(&r.csv_row());
            text.push('\n');
        }
        write_file(path, &text)?;
    }
    if let Some(path) = &args.svg {
        let title = format!(
            "{}-ary {}-dimensional {}, {} traffic",
            resolved.spec.radix, resolved.spec.dims, resolved.spec.topology, pattern
        );
        write_file(path, &sim::plot::latency_svg(&rows, &title))?;
    }
    if let Some(path) = &args.trace {
        let mut text = String::from("node,cycle,packet,flit\n");
        for (n, c, p, f) in &trace {
            text.push_str(&format!("{n},{c},{p},{f}\n"));
        }
        write_file(path, &text)?;
    }
    // 128 + SIGINT, the shell's convention: the results above are partial.
    Ok(if stop.load(Ordering::Relaxed) {
        Outcome::Interrupted
    } else {
        Outcome::Success
    })
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
