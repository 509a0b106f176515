//! `routergen check`: proves a routing relation deadlock-free, connected
//! and minimal on a concrete network, and prints a router's tables.

use super::Outcome;
use crate::algo::{self, check, tables, Knobs, Network, Relation};
use crate::cli::CheckArgs;
use crate::error::{Error, Result};
use crate::spec::Topology;

use crate::limits::{MAX_CHECK_DIMS, MAX_CHECK_NODES, MAX_CHECK_RADIX, MAX_VCS};

/// Checks the relation `args` describe; [`Outcome::Failed`] when it is
/// not proved.
pub fn run(args: &CheckArgs) -> Result<Outcome> {
    let algorithm = args.algorithm;
    let topology = args.topology.unwrap_or(Topology::Mesh);
    let dims = args.dims.unwrap_or(2);
    if !(1..=i64::from(MAX_CHECK_DIMS)).contains(&dims) {
        return Err(Error::InvalidSpec(format!(
            "--dims {dims} is out of range: the checker takes 1 to {MAX_CHECK_DIMS} dimensions"
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
        (_, Some(k)) if (2..=i64::from(MAX_CHECK_RADIX)).contains(&k) => k as u32,
        (_, Some(k)) => {
            return Err(Error::InvalidSpec(format!(
                "--radix {k} is out of range: the checker takes 2 to {MAX_CHECK_RADIX} nodes \
                 per dimension"
            )))
        }
    };
    let nodes = (radix as u64).saturating_pow(dims);
    if nodes > MAX_CHECK_NODES {
        return Err(Error::InvalidSpec(format!(
            "a {radix}-ary {dims}-dimensional {topology} has {nodes} nodes: the checker \
             explores every source and destination and takes at most {MAX_CHECK_NODES} \
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
        Some(v) if (1..=i64::from(MAX_VCS)).contains(&v) => v as u32,
        Some(v) => {
            return Err(Error::InvalidSpec(format!(
                "--vcs {v} is out of range: the checker takes 1 to {MAX_VCS} virtual channels \
                 per physical channel"
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
    if args.no_escape && !algorithm.routing().has_escape() {
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
    // Long proofs show their progress on standard error (hidden when it
    // is not a terminal).
    let bar = indicatif::ProgressBar::new(u64::from(net.nodes()));
    bar.set_style(
        indicatif::ProgressStyle::with_template(
            "proving [{bar:30}] {pos}/{len} destinations {eta}",
        )
        .map_err(|e| Error::Internal(format!("the progress bar's template: {e}")))?,
    );
    let report = check::check_with_progress(&rel, true, &mut |done, total| {
        bar.set_length(total);
        bar.set_position(done);
    });
    bar.finish_and_clear();
    print!("{}", report.to_text());
    if let Some(node) = node {
        print!("{}", tables::economical(&rel, node).to_text(&net));
        print!("{}", tables::full_text(&rel, node));
        print!("{}", tables::meta(&rel, node).to_text(&net));
    }
    Ok(if report.proved() {
        Outcome::Success
    } else {
        Outcome::Failed
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
