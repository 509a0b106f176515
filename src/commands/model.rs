//! `routergen model`: Chien's cost and speed model of one router, or the
//! paper's Figures 9 and 10 as the model computes them.

use super::{load_tech, to_json, Outcome};
use crate::cli::{Format, ModelArgs};
use crate::error::{Error, Result};
use crate::limits::{MAX_COST_MODEL_DIMS, MAX_COST_MODEL_VCS};
use crate::model::{self, paper, ModelInput};
use crate::spec::Topology;

/// Prints the model's report for the router `args` describe.
pub fn run(args: &ModelArgs) -> Result<Outcome> {
    let tech = load_tech(args.tech.as_deref())?;
    if args.paper_tables {
        print!("{}", paper::tables(&tech));
        return Ok(Outcome::Success);
    }
    let (Some(algorithm), Some(dims)) = (args.algorithm, args.dims) else {
        return Err(Error::InvalidSpec(
            "routergen model needs --algo and --dims, or --paper-tables".into(),
        ));
    };
    if !(1..=i64::from(MAX_COST_MODEL_DIMS)).contains(&dims) {
        return Err(Error::InvalidSpec(format!(
            "--dims {dims} is out of range: the model takes 1 to {MAX_COST_MODEL_DIMS} dimensions"
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
        Some(v) if (1..=i64::from(MAX_COST_MODEL_VCS)).contains(&v) => v as u32,
        Some(v) => {
            return Err(Error::InvalidSpec(format!(
                "--vcs {v} is out of range: the model takes 1 to {MAX_COST_MODEL_VCS} virtual \
                 channels per \
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
        Format::Json => println!("{}", to_json(&report)?),
    }
    Ok(Outcome::Success)
}
