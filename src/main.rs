//! The `routergen` command: parses arguments and hands the work to the library.

use std::process::ExitCode;

use clap::Parser;

use routergen::blocks::{measure, BlockKind, BlockParams};
use routergen::cli::{BlockArgs, Cli, Command, Format, ModelArgs};
use routergen::error::{Error, Result};
use routergen::model::{self, paper, ModelInput, Technology};
use routergen::output;
use routergen::spec::{Addressing, FlowControl, PathSelection, SpecInput, Topology};

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match &cli.command {
        Some(Command::Model(args)) => run_model(args),
        Some(Command::Block(args)) => run_block(args),
        None => run_generate(&cli),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
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
    let files = output::render(&resolved.spec, &tech);
    output::write_dir(out, &files)?;
    println!("routergen: {}", resolved.spec.name());
    print!("{}", resolved.spec.describe(&resolved.defaulted));
    println!("wrote {}:", out.display());
    for (rel, _) in &files {
        println!("  {}", rel.display());
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
        selection: args.path_selection.unwrap_or(PathSelection::StaticXy),
        addressing: args.addressing.unwrap_or(Addressing::Relative),
    };
    kind.check(&params)?;
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
