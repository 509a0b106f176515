//! The `routergen` command: parses arguments and hands the work to the library.

use std::process::ExitCode;

use clap::Parser;

use routergen::algo::{self, check, tables, Knobs, Network, Relation};
use routergen::blocks::{measure, BlockKind, BlockParams};
use routergen::cli::{
    BenchArgs, BlockArgs, CheckArgs, Cli, Command, Format, FpgaArgs, ModelArgs, SimArgs, SpecArgs,
    SynthArgs,
};
use routergen::error::{Error, Result};
use routergen::model::{self, paper, ModelInput, Technology};
use routergen::output;
use routergen::spec::{
    Addressing, Algorithm, BufferStorage, FlowControl, PathSelection, SpecInput, Topology,
};

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match &cli.command {
        Some(Command::Model(args)) => run_model(args).map(|()| ExitCode::SUCCESS),
        Some(Command::Block(args)) => run_block(args).map(|()| ExitCode::SUCCESS),
        Some(Command::Check(args)) => run_check(args),
        Some(Command::Synth(args)) => run_synth(args).map(|()| ExitCode::SUCCESS),
        Some(Command::Fpga(args)) => run_fpga(args).map(|()| ExitCode::SUCCESS),
        Some(Command::Sim(args)) => run_sim(args),
        Some(Command::Bench(args)) => run_bench(args).map(|()| ExitCode::SUCCESS),
        None => run_generate(&cli).map(|()| ExitCode::SUCCESS),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("routergen: error: {e}");
            ExitCode::from(e.exit_code() as u8)
        }
    }
}

fn load_tech(path: Option<&std::path::Path>) -> Result<Technology> {
    match path {
        Some(p) => Technology::from_file(p),
        None => Ok(Technology::chien()),
    }
}

fn run_generate(cli: &Cli) -> Result<()> {
    let out = cli.out.as_ref().expect("clap requires --out");
    let file = match &cli.spec.config {
        Some(path) => SpecInput::from_file(path)?,
        None => SpecInput::default(),
    };
    let resolved = file.overlay(cli.spec.to_input()).resolve()?;
    let tech = load_tech(cli.tech.as_deref())?;
    let files = output::render(&resolved.spec, &tech)?;
    output::write_dir(out, &files)?;
    println!("routergen: {}", resolved.spec.name());
    print!("{}", resolved.spec.describe(&resolved.defaulted));
    println!("wrote {}:", out.display());
    for (rel, _) in &files {
        println!("  {}", rel.display());
    }
    if let Err(why) = routergen::router::supported(&resolved.spec) {
        println!("no RTL written: {why}");
    }
    Ok(())
}

fn run_model(args: &ModelArgs) -> Result<()> {
    let tech = load_tech(args.tech.as_deref())?;
    if args.paper_tables {
        print!("{}", paper::tables(&tech));
        return Ok(());
    }
    let algorithm = args.algorithm.expect("clap requires --algo");
    let dims = args.dims.expect("clap requires --dims");
    if !(1..=32).contains(&dims) {
        return Err(Error::InvalidSpec(format!(
            "--dims {dims} is out of range: the model takes 1 to 32 dimensions"
        )));
    }
    let dims = dims as u32;
    let topology = args.topology.unwrap_or_else(|| {
        [Topology::Mesh, Topology::Torus, Topology::Hypercube]
            .into_iter()
            .find(|t| algorithm.supports(*t, dims).is_ok())
            .unwrap_or(Topology::Mesh)
    });
    algorithm.supports(topology, dims).map_err(|why| {
        Error::InvalidSpec(format!(
            "--algo {algorithm} cannot route a {dims}-dimensional {topology}: {why}"
        ))
    })?;
    let vcs = match args.vcs {
        None => ModelInput::chien_vcs(algorithm, topology, dims),
        Some(v) if (1..=64).contains(&v) => v as u32,
        Some(v) => {
            return Err(Error::InvalidSpec(format!(
                "--vcs {v} is out of range: the model takes 1 to 64 virtual channels per \
                 physical channel (1 means none to multiplex)"
            )))
        }
    };
    let input = ModelInput {
        algorithm,
        topology,
        dims,
        vcs,
    };
    let report = model::evaluate(&input, &tech);
    match args.format {
        Format::Text => print!("{}", report.to_text()),
        Format::Json => println!(
            "{}",
            serde_json::to_string_pretty(&report).expect("reports serialize")
        ),
    }
    Ok(())
}

/// The spec of `--config` and the flags, over `base` (defaults of the command).
fn resolve_spec(args: &SpecArgs, base: SpecInput) -> Result<routergen::spec::Resolved> {
    let file = match &args.config {
        Some(path) => SpecInput::from_file(path)?,
        None => SpecInput::default(),
    };
    base.overlay(file).overlay(args.to_input()).resolve()
}

fn run_synth(args: &SynthArgs) -> Result<()> {
    use routergen::synth::{self, compare};
    if let Some(mhz) = args.clock_mhz {
        if !(mhz > 0.0 && mhz <= 1000.0) {
            return Err(Error::InvalidSpec(format!(
                "--clock-mhz {mhz} is out of range: give a clock between 0 and 1000 MHz"
            )));
        }
        if args.target == synth::Target::Generic {
            return Err(Error::InvalidSpec(
                "--clock-mhz applies to the FPGA targets (ice40-up5k, ice40-hx8k, ecp5-25k,                  ecp5-85k), not to --target generic"
                    .into(),
            ));
        }
    }
    if args.compare_chien {
        let tech = load_tech(args.tech.as_deref())?;
        synth::check_tools(args.target)?;
        let cases = compare::compare(args.target, &tech, |name| {
            eprintln!("routergen synth: measuring {name}")
        })?;
        if args.json {
            println!(
                "{}",
                serde_json::to_string_pretty(&cases).expect("reports serialize")
            );
        } else {
            println!(
                "Chien's model (technology {}) beside Yosys on routergen's RTL, W = {},                  D = {}",
                tech.name,
                compare::WIDTH,
                compare::DEPTH
            );
            for c in &cases {
                print!("{}", compare::case_text(c));
            }
            print!("{}", compare::summary(&cases));
        }
        return Ok(());
    }
    let resolved = resolve_spec(&args.spec, SpecInput::default())?;
    let report = synth::run(
        &resolved.spec,
        args.target,
        args.clock_mhz,
        args.out.as_deref(),
    )?;
    if args.json {
        print!("{}", report.to_json());
    } else {
        print!("{}", report.to_text());
        if let Some(dir) = &args.out {
            println!("build products in {}", dir.display());
        }
    }
    Ok(())
}

fn run_fpga(args: &FpgaArgs) -> Result<()> {
    use routergen::fpga::{self, Board};
    let board = Board::by_name(&args.board)?;
    // The bring-up mesh is 2x2: radix 2 unless the spec says otherwise
    // (and then check_spec names the conflict).
    let base = SpecInput {
        radix: Some(fpga::MESH_RADIX as i64),
        ..SpecInput::default()
    };
    let resolved = resolve_spec(&args.spec, base)?;
    let spec = &resolved.spec;
    if args.build {
        routergen::synth::check_tools(board.target)?;
    }
    let files = fpga::design_files(spec, &board)?;
    output::write_dir(&args.out, &files)?;
    println!(
        "routergen fpga: {} on the {} ({}), a 2x2 mesh",
        spec.name(),
        board.title,
        board.target.part()
    );
    println!("wrote {}:", args.out.display());
    for (rel, _) in &files {
        println!("  {}", rel.display());
    }
    if args.build {
        let report = fpga::build(spec, &board, &args.out)?;
        print!("{}", report.to_text());
    }
    Ok(())
}

/// A block parameter from the command line: positive and small, or a
/// message naming the flag.
fn block_param(flag: &str, value: Option<i64>, default: usize) -> Result<usize> {
    match value {
        None => Ok(default),
        Some(v) if (1..=1024).contains(&v) => Ok(v as usize),
        Some(v) => Err(Error::InvalidSpec(format!(
            "{flag} {v} is not a valid block parameter: it must be a positive count \
             (each block narrows the range further)"
        ))),
    }
}

fn run_block(args: &BlockArgs) -> Result<()> {
    let kind = BlockKind::from_name(&args.name)?;
    let d = BlockParams::default();
    let params = BlockParams {
        ports: block_param("--ports", args.ports, d.ports)?,
        vcs: block_param("--vcs", args.vcs, d.vcs)?,
        freedom: block_param("--freedom", args.freedom, d.freedom)?,
        flit_width: block_param("--flit-width", args.flit_width, d.flit_width)?,
        dims: block_param("--dims", args.dims, d.dims)?,
        depth: block_param("--depth", args.depth, d.depth)?,
        on_off: args.flow_control == Some(FlowControl::OnOff),
        buffers: args.buffers.unwrap_or(BufferStorage::Flops),
        selection: args.path_selection.unwrap_or(PathSelection::StaticXy),
        addressing: args.addressing.unwrap_or(Addressing::Relative),
    };
    kind.check_named(&params, &|p| p.flag().to_string())?;
    if args.out.is_none() && !args.measure && !args.sweep {
        return Err(Error::InvalidSpec(format!(
            "routergen block {} needs something to do: -o DIR to write DIR/{}.v, \
             --measure for its gate count, or --sweep for the growth of that count",
            kind.name(),
            kind.module_name(&params)
        )));
    }
    if let Some(dir) = &args.out {
        let verilog = kind.verilog(&params)?;
        let out_err = |e: std::io::Error| Error::Output {
            path: dir.clone(),
            message: e.to_string(),
        };
        std::fs::create_dir_all(dir).map_err(out_err)?;
        let file = dir.join(format!("{}.v", kind.name()));
        std::fs::write(&file, verilog).map_err(|e| Error::Output {
            path: file.clone(),
            message: e.to_string(),
        })?;
        println!("wrote {}", file.display());
    }
    if args.measure || args.sweep {
        if routergen::flows::find_tool("yosys").is_none() {
            return Err(Error::Output {
                path: "yosys".into(),
                message: "yosys is not on PATH (Debian package yosys); --measure needs it".into(),
            });
        }
        let tech = load_tech(args.tech.as_deref())?;
        let rows = if args.sweep {
            measure::sweep(kind, &params, &kind.sweep_values(), &tech)?
        } else {
            vec![measure::measure(kind, &params, &tech)?]
        };
        print!("{}", measure::table(&rows));
    }
    Ok(())
}

/// Largest network `routergen check` explores, in nodes.
const CHECK_MAX_NODES: u64 = 1024;

fn run_check(args: &CheckArgs) -> Result<ExitCode> {
    let algorithm = args.algorithm;
    let topology = args.topology.unwrap_or(Topology::Mesh);
    let dims = args.dims.unwrap_or(2);
    if !(1..=16).contains(&dims) {
        return Err(Error::InvalidSpec(format!(
            "--dims {dims} is out of range: the checker takes 1 to 16 dimensions"
        )));
    }
    let dims = dims as u32;
    let radix = match (topology, args.radix) {
        (Topology::Hypercube, None | Some(2)) => 2,
        (Topology::Hypercube, Some(k)) => {
            return Err(Error::InvalidSpec(format!(
                "--radix {k} does not fit a hypercube: a hypercube (binary n-cube) has \
                 radix 2; leave --radix out or give 2"
            )))
        }
        (_, None) => 4,
        (_, Some(k)) if (2..=64).contains(&k) => k as u32,
        (_, Some(k)) => {
            return Err(Error::InvalidSpec(format!(
                "--radix {k} is out of range: the checker takes 2 to 64 nodes per dimension"
            )))
        }
    };
    let nodes = (radix as u64).saturating_pow(dims);
    if nodes > CHECK_MAX_NODES {
        return Err(Error::InvalidSpec(format!(
            "a {radix}-ary {dims}-dimensional {topology} has {nodes} nodes: the checker \
             explores every source and destination and takes at most {CHECK_MAX_NODES} \
             nodes (e.g. --radix 16 --dims 2)"
        )));
    }
    algorithm.supports(topology, dims).map_err(|why| {
        Error::InvalidSpec(format!(
            "--algo {algorithm} cannot route a {dims}-dimensional {topology}: {why}"
        ))
    })?;
    let vcs = match args.vcs {
        None => algorithm.min_vcs(topology, dims),
        Some(v) if (1..=routergen::spec::MAX_VCS as i64).contains(&v) => v as u32,
        Some(v) => {
            return Err(Error::InvalidSpec(format!(
                "--vcs {v} is out of range: the checker takes 1 to {} virtual channels per \
                 physical channel",
                routergen::spec::MAX_VCS
            )))
        }
    };
    let net = Network::new(topology, dims, radix)?;
    let node = match &args.node {
        None => None,
        Some(text) => Some(parse_node(&net, text)?),
    };
    if args.no_dateline && topology != Topology::Torus {
        return Err(Error::InvalidSpec(format!(
            "--no-dateline applies to tori, not to a {topology}: only torus rings have \
             dateline virtual channels"
        )));
    }
    if args.no_escape && !matches!(algorithm, Algorithm::Duato | Algorithm::StarChannels) {
        return Err(Error::InvalidSpec(format!(
            "--no-escape applies to duato and star-channels, not to {algorithm}: only \
             they have an escape sub-function"
        )));
    }
    let knobs = Knobs {
        dateline: !args.no_dateline,
        escape: !args.no_escape,
        ..Knobs::default()
    };
    let rel = Relation::with_knobs(algorithm, net, vcs, knobs)?;
    let report = check::check(&rel, true);
    print!("{}", report.to_text());
    if let Some(node) = node {
        print!("{}", tables::economical(&rel, node).to_text(&net));
        print!("{}", tables::full_text(&rel, node));
        print!("{}", tables::meta(&rel, node).to_text(&net));
    }
    Ok(if report.proved() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// Parses `--node 1,2` into a node of `net`.
fn parse_node(net: &Network, text: &str) -> Result<algo::NodeId> {
    let bad = || {
        Error::InvalidSpec(format!(
            "--node {text:?} is not a router of this network: give {} coordinates, each \
             0 to {}, separated by commas (e.g. --node {})",
            net.dims,
            net.radix - 1,
            vec!["1"; net.dims as usize].join(",")
        ))
    };
    let coords: Vec<u32> = text
        .split(',')
        .map(|p| p.trim().parse::<u32>())
        .collect::<std::result::Result<_, _>>()
        .map_err(|_| bad())?;
    if coords.len() != net.dims as usize || coords.iter().any(|&c| c >= net.radix) {
        return Err(bad());
    }
    Ok(net.node_at(&coords))
}

/// Writes `text` to `path`, naming the file on failure.
fn write_file(path: &std::path::Path, text: &str) -> Result<()> {
    std::fs::write(path, text).map_err(|e| Error::Output {
        path: path.to_path_buf(),
        message: e.to_string(),
    })
}

fn run_sim(args: &SimArgs) -> Result<ExitCode> {
    use routergen::sim::{self, stats, Control, SimConfig};
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
            .expect("valid template"),
    );
    let progress = |t: u64, total: u64| {
        bar.set_length(total);
        bar.set_position(t.min(total));
    };
    let ctl = Control {
        stop: Some(&stop),
        progress: Some(&progress),
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
        routergen::router::supported(&spec)?;
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
        let mut engine = || sim::build_engine(&cfg, args.engine);
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
            let (r, sat) = sim::find_saturation(&cfg, &mut engine, &ctl, &mut on_row)?;
            rows.extend(r);
            saturation.push((algorithm, sat));
        } else {
            for &load in &args.load {
                let mut e = engine()?;
                bar.set_message(format!("{algorithm} load {load}"));
                let run = sim::run(
                    &SimConfig {
                        load,
                        ..cfg.clone()
                    },
                    e.as_mut(),
                    &ctl,
                )?;
                on_row(&run.stats);
                rows.push(run.stats);
                trace = run.trace;
                if stop.load(Ordering::Relaxed) {
                    break;
                }
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
        ExitCode::from(130)
    } else {
        ExitCode::SUCCESS
    })
}

fn run_bench(args: &BenchArgs) -> Result<()> {
    use routergen::sim::{self, Control, EngineKind, SimConfig};
    let spec = SpecInput {
        radix: Some(i64::from(args.radix)),
        flit_width: Some(32),
        ..SpecInput::default()
    }
    .resolve()?
    .spec;
    println!(
        "{}x{} mesh, {}, uniform traffic, 4-flit packets, load {} of the bisection-limited rate, \
         {} thread(s)",
        args.radix, args.radix, spec.algorithm, args.load, args.threads
    );
    let nodes = f64::from(args.radix * args.radix);
    for &kind in &args.engine {
        let cycles = match kind {
            EngineKind::Rust => (args.cycles / 10).max(1),
            EngineKind::Verilator => args.cycles,
        };
        let cfg = SimConfig {
            load: args.load,
            warmup: 0,
            measure: cycles,
            threads: args.threads as usize,
            ..SimConfig::new(spec.clone())
        };
        let t0 = std::time::Instant::now();
        let mut e = sim::build_engine(&cfg, kind)?;
        let built = t0.elapsed().as_secs_f64();
        let mut timed = sim::network::Timed {
            engine: e.as_mut(),
            spent: std::time::Duration::ZERO,
        };
        let t1 = std::time::Instant::now();
        let run = sim::run(&cfg, &mut timed, &Control::default())?;
        let secs = t1.elapsed().as_secs_f64();
        let alone = timed.spent.as_secs_f64();
        let rc = run.stats.cycles as f64 * nodes;
        println!(
            "{kind:?}: {} cycles in {secs:.2} s: {:.3} M router-cycles/s; routers alone {:.3} M \
             ({:.2} us per router-cycle, {:.0}% of the time) (build or load {built:.1} s)",
            run.stats.cycles,
            rc / secs / 1e6,
            rc / alone / 1e6,
            alone / rc * 1e6,
            100.0 * alone / secs
        );
    }
    Ok(())
}
