//! `routergen synth`: synthesizes the router of a spec with Yosys (and on
//! an FPGA target places and routes it with nextpnr) and prints the report;
//! or, with `--compare-chien`, Chien's model beside the measured counts of
//! every algorithm.

use super::{load_tech, resolve_spec, to_json, Outcome};
use crate::cli::SynthArgs;
use crate::error::{Error, Result};
use crate::spec::SpecInput;

/// Synthesizes the router `args` describe, or compares every algorithm
/// with Chien's model, and prints the report.
pub fn run(args: &SynthArgs) -> Result<Outcome> {
    use crate::synth::{self, compare};
    if let Some(mhz) = args.clock_mhz {
        if !(mhz > 0.0 && mhz <= 1000.0) {
            return Err(Error::InvalidSpec(format!(
                "--clock-mhz {mhz} is out of range: give a clock between 0 and 1000 MHz"
            )));
        }
        if args.target == synth::Target::Generic {
            return Err(Error::InvalidSpec(
                "--clock-mhz applies to the FPGA targets (ice40-up5k, ice40-hx8k, ecp5-25k, \
                 ecp5-85k), not to --target generic"
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
            println!("{}", to_json(&cases)?);
        } else {
            println!(
                "Chien's model (technology {}) beside Yosys on routergen's RTL, W = {}, \
                 D = {}",
                tech.name,
                compare::WIDTH,
                compare::DEPTH
            );
            for c in &cases {
                print!("{}", compare::case_text(c));
            }
            print!("{}", compare::summary(&cases));
        }
        return Ok(Outcome::Success);
    }
    let resolved = resolve_spec(&args.spec, SpecInput::default())?;
    let reports = synth::run_scope(
        &resolved.spec,
        args.scope,
        args.target,
        args.clock_mhz,
        args.out.as_deref(),
    )?;
    if args.json {
        // One design: its report; several: a list of them.
        match &reports[..] {
            [one] => print!("{}", one.to_json()),
            _ => println!("{}", to_json(&reports)?),
        }
    } else {
        match &reports[..] {
            [one] => print!("{}", one.to_text()),
            several => print!("{}", synth::scope_table(several)),
        }
        if let Some(dir) = &args.out {
            println!("build products in {}", dir.display());
        }
    }
    Ok(Outcome::Success)
}
