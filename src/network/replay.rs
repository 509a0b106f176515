//! A replay of a `routergen sim` run against the network's Verilog
//! (docs/network.md, "Replaying a simulation"): the network with its
//! routers' local ports at its boundary, the run's local-port signals
//! cycle by cycle ([`crate::sim::replay`] writes them), and a testbench
//! that drives the stimulus into the network top and writes what its
//! routers drive out in the format of the expected lines.

use std::path::PathBuf;

use super::{top_name, verilog, Endpoints, NetworkParams};
use crate::algo::Network;
use crate::error::{Error, Result};
use crate::output::{Files, SPEC_FILE};
use crate::spec::RouterSpec;

const TESTBENCH: &str = include_str!("../../templates/network/replay_tb.v.tera");
const MAKEFILE: &str = include_str!("../../templates/network/replay.mk.tera");

/// Why a replay of `spec` cannot be written to `dir`, if it cannot: checked
/// before the simulation runs.
pub fn check(spec: &RouterSpec, dir: &std::path::Path) -> Result<()> {
    crate::output::check_target(dir)?;
    super::check(spec, &PARAMS)?;
    crate::router::supported(spec)
}

/// The network of a replay: the routers' local ports at its boundary, no
/// link stages (the simulator has none).
const PARAMS: NetworkParams = NetworkParams {
    link_stages: 0,
    endpoints: Endpoints::Flits,
};

/// The replay directory's files: the spec, `rtl/<network>.v`,
/// `replay_tb.v`, a Makefile, its Verilator configuration `network.vlt`,
/// `stimulus.hex` and `expected.hex` (`cycles` stimulus lines, reset
/// included).
pub fn files(spec: &RouterSpec, cycles: u64, stimulus: &str, expected: &str) -> Result<Files> {
    let top = top_name(spec);
    let net = Network::new(spec.topology, spec.dims, spec.radix)?;
    let mut ctx = tera::Context::new();
    ctx.insert("top", &top);
    ctx.insert("router", &spec.name());
    ctx.insert("nodes", &net.nodes());
    ctx.insert("w", &spec.flit_width);
    ctx.insert("v", &spec.vcs);
    ctx.insert("vb", &crate::router::vc_bits(spec.vcs));
    ctx.insert("cycles", &cycles);
    let render = |template: &str, what: &str| {
        tera::Tera::one_off(template, &ctx, false).map_err(|e| Error::template(what, &e))
    };
    Ok(vec![
        (PathBuf::from(SPEC_FILE), spec.to_toml()),
        (
            PathBuf::from(format!("rtl/{top}.v")),
            verilog(spec, &PARAMS)?,
        ),
        (
            PathBuf::from("replay_tb.v"),
            render(TESTBENCH, "replay testbench")?,
        ),
        (
            PathBuf::from("Makefile"),
            render(MAKEFILE, "replay Makefile")?,
        ),
        (
            PathBuf::from("network.vlt"),
            render(super::HIER_CONFIG, "Verilator configuration")?,
        ),
        (PathBuf::from("stimulus.hex"), stimulus.to_string()),
        (PathBuf::from("expected.hex"), expected.to_string()),
    ])
}
