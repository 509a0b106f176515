//! The `routergen` command: parses arguments and hands the work to the library.

use std::process::ExitCode;

use clap::Parser;

use routergen::cli::{Cli, Command, Format, ModelArgs};
use routergen::error::{Error, Result};
use routergen::model::{self, paper, ModelInput, Technology};
use routergen::output;
use routergen::spec::{SpecInput, Topology};

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match &cli.command {
        Some(Command::Model(args)) => run_model(args),
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
