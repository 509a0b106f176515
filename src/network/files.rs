//! The output directory of a network: its Verilog, a cocotb testbench that
//! drives every AXI4-Stream endpoint (`tb/`), Yosys scripts (`synth/`), a
//! Makefile and a FuseSoC core that run them, and a drawing
//! (`network.svg`); docs/network.md, "Output directory".

use std::path::PathBuf;

use super::{top_name, verilog, Endpoints, NetworkParams};
use crate::algo::Network;
use crate::error::{Error, Result};
use crate::output::Files;
use crate::spec::RouterSpec;

const TEST: &str = include_str!("../../templates/network/test_network.py.tera");
const RUN: &str = include_str!("../../templates/network/run.py.tera");
const MAKEFILE: &str = include_str!("../../templates/network/Makefile.tera");
const CORE: &str = include_str!("../../templates/network/network.core.tera");

/// The testbench's traffic by default: transfers per node, beats per
/// transfer at most, and the cycles it watches the drained network.
const PACKETS: usize = 20;
const MAX_BEATS: usize = 4;
const DRAIN: usize = 200;

/// The files of the network of `spec` with `params`, by path relative to
/// the output directory (all but the spec file, whose regenerating line
/// the command writes).
pub fn render(spec: &RouterSpec, params: &NetworkParams) -> Result<Files> {
    let top = top_name(spec);
    let text = verilog(spec, params)?;
    let net = Network::new(spec.topology, spec.dims, spec.radix)?;
    let axi = params.endpoints == Endpoints::AxiStream;
    let coord_bits = crate::interface::coord_bits(spec.topology, spec.radix);
    let mut ctx = tera::Context::new();
    ctx.insert("top", &top);
    ctx.insert("router", &spec.name());
    ctx.insert("shape", &super::shape(spec));
    ctx.insert("axi", &axi);
    ctx.insert("nodes", &net.nodes());
    ctx.insert("coord_bits", &coord_bits);
    let ids: Vec<String> = (0..net.nodes())
        .map(|n| format!("0x{:x}", crate::interface::node_id(&net, coord_bits, n)))
        .collect();
    ctx.insert("node_ids", &ids.join(", "));
    ctx.insert("w", &spec.flit_width);
    ctx.insert("packets", &PACKETS);
    ctx.insert("max_beats", &MAX_BEATS);
    ctx.insert("drain", &DRAIN);
    ctx.insert("seed", &crate::emit::SEED);
    ctx.insert("vlnv", &crate::emit::vlnv_of("network", &top));
    let render = |template: &str, what: &str| {
        tera::Tera::one_off(template, &ctx, false).map_err(|e| Error::template(what, &e))
    };
    let mut files: Files = vec![
        (PathBuf::from(format!("rtl/{top}.v")), text),
        (
            PathBuf::from("Makefile"),
            render(MAKEFILE, "network Makefile")?,
        ),
        (
            PathBuf::from(format!("{top}.core")),
            render(CORE, "network FuseSoC core")?,
        ),
        (
            PathBuf::from("network.svg"),
            super::picture::render(spec, params, &net),
        ),
    ];
    if axi {
        files.push((
            PathBuf::from(format!("tb/test_{top}.py")),
            render(TEST, "cocotb testbench")?,
        ));
        files.push((PathBuf::from("tb/run.py"), render(RUN, "cocotb runner")?));
        files.push((
            PathBuf::from("tb/network.vlt"),
            render(super::HIER_CONFIG, "Verilator configuration")?,
        ));
    }
    // Generic and iCE40: no ECP5 script, its flow is the FPGA design's.
    files.extend(crate::emit::synth_scripts(&top, &["generic", "ice40"])?);
    Ok(files)
}
