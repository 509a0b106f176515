//! `routergen` without a subcommand: validates the spec of `--config` and
//! the flags, prints it with the defaults chosen, and writes the output
//! directory (the resolved spec, the reports, and the RTL with its
//! testbench and scripts when the router is supported).

use super::{load_tech, Outcome};
use crate::cli::Cli;
use crate::error::{Error, Result};
use crate::output;
use crate::spec::SpecInput;

/// Generates the output directory `cli.out` for the spec of `cli.spec`.
pub fn run(cli: &Cli) -> Result<Outcome> {
    let out = cli
        .out
        .as_ref()
        .ok_or_else(|| Error::InvalidSpec("routergen needs an output directory: -o DIR".into()))?;
    let file = match &cli.spec.config {
        Some(path) => SpecInput::from_file(path)?,
        None => SpecInput::default(),
    };
    let resolved = file.overlay(cli.spec.input.clone()).resolve()?;
    let tech = load_tech(cli.tech.as_deref())?;
    let files = output::render(&resolved.spec, &tech)?;
    output::write_dir(out, &files)?;
    println!("routergen: {}", resolved.spec.name());
    print!("{}", resolved.spec.describe(&resolved.defaulted));
    println!("wrote {}:", out.display());
    for (rel, _) in &files {
        println!("  {}", rel.display());
    }
    if let Err(why) = crate::router::supported(&resolved.spec) {
        println!("no RTL written: {why}");
    }
    Ok(Outcome::Success)
}
