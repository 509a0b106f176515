//! The files of an output directory that check the router: a self-checking
//! Icarus testbench and a Verilator C++ harness (`tb/`), Yosys scripts
//! (`synth/`) and a Makefile that runs them, each from a tera template in
//! `templates/`. The testbench's facts come from [`stimulus`], computed from
//! the routing relation and docs/interface.md.

pub mod canvas;
pub mod header;
pub mod picture;
pub mod prove;
pub mod stimulus;

use std::path::PathBuf;

use crate::error::{Error, Result};
use crate::interface::vc_bits;
use crate::spec::RouterSpec;

pub use stimulus::Stimulus;

const TB_VERILOG: &str = include_str!("../../templates/router_tb.v.tera");
const TB_CPP: &str = include_str!("../../templates/router_tb.cpp.tera");
const MAKEFILE: &str = include_str!("../../templates/Makefile.tera");
const CORE: &str = include_str!("../../templates/fusesoc/router.core.tera");
const SYNTH: [(&str, &str); 3] = [
    (
        "synth/generic.ys",
        include_str!("../../templates/synth_generic.ys.tera"),
    ),
    (
        "synth/ice40.ys",
        include_str!("../../templates/synth_ice40.ys.tera"),
    ),
    (
        "synth/ecp5.ys",
        include_str!("../../templates/synth_ecp5.ys.tera"),
    ),
];

/// The testbenches' default random seed.
pub const SEED: u64 = 1;

pub use crate::interface::ModulePort;

/// The ports of module `name` in `verilog`, declared ANSI style one per line
/// (`input wire [7:0] x,`), as the top module of docs/interface.md is.
pub fn module_ports(verilog: &str, name: &str) -> Option<Vec<ModulePort>> {
    let start = verilog.find(&format!("module {name} ("))?;
    let end = start + verilog[start..].find(");")?;
    Some(
        verilog[start..end]
            .lines()
            .skip(1)
            .filter_map(|l| {
                let l = l.trim().trim_end_matches(',');
                let input = l.starts_with("input");
                if !input && !l.starts_with("output") {
                    return None;
                }
                let port = l.split_whitespace().last()?.to_string();
                let width = match (l.find('['), l.find(':')) {
                    (Some(a), Some(b)) => l[a + 1..b].trim().parse::<u32>().ok()? + 1,
                    _ => 1,
                };
                Some((port, input, width))
            })
            .collect(),
    )
}

/// The ports docs/interface.md gives a router of `spec`, without `node_id`
/// and the table's `cfg_*` ports ([`crate::interface::documented_ports`]).
pub fn documented_ports(spec: &RouterSpec) -> Vec<ModulePort> {
    crate::interface::documented_ports(spec.physical_ports(), spec.flit_width, spec.vcs)
}

/// The `node_id` value of docs/interface.md for the router at `node`,
/// whose `node_id` port is `width` bits (n coordinates of `width / n`).
fn node_id_value(spec: &RouterSpec, node: u32, width: u32) -> Result<u64> {
    let net = crate::algo::Network::new(spec.topology, spec.dims, spec.radix)?;
    Ok(crate::interface::node_id(&net, width / spec.dims, node))
}

/// The FuseSoC VLNV of the router's core: `routergen:router:<name>:<version>`.
pub fn vlnv(spec: &RouterSpec) -> String {
    vlnv_of("router", &spec.name())
}

/// The FuseSoC VLNV of a core routergen writes: `routergen:<library>:<name>:<version>`.
pub fn vlnv_of(library: &str, name: &str) -> String {
    format!("routergen:{library}:{name}:{}", env!("CARGO_PKG_VERSION"))
}

/// The Yosys scripts `synth/<target>.ys` for the top module `name` (read
/// from `../rtl/<name>.v`), of each of `targets` (generic, ice40, ecp5).
pub fn synth_scripts(name: &str, targets: &[&str]) -> Result<Vec<(PathBuf, String)>> {
    let mut ctx = tera::Context::new();
    ctx.insert("name", name);
    SYNTH
        .iter()
        .filter(|(path, _)| targets.iter().any(|t| *path == format!("synth/{t}.ys")))
        .map(|(path, template)| Ok((PathBuf::from(path), render(template, &ctx, path)?)))
        .collect()
}

fn render(template: &str, ctx: &tera::Context, what: &str) -> Result<String> {
    tera::Tera::one_off(template, ctx, false).map_err(|e| Error::template(what, &e))
}

/// The files under `tb/` and `synth/` and the `Makefile` for `spec`, whose
/// router Verilog (the top module first) is `rtl`.
pub fn files(spec: &RouterSpec, rtl: &str) -> Result<Vec<(PathBuf, String)>> {
    let name = spec.name();
    let ports = module_ports(rtl, &name)
        .ok_or_else(|| Error::Internal(format!("the router Verilog has no top module {name}")))?;
    let node_id = ports.iter().find(|p| p.0 == "node_id").cloned();
    // The routing-table port (docs/interface.md), held idle: the table's
    // reset contents are the relation the checkers are built from.
    let cfg: Vec<ModulePort> = ports
        .iter()
        .filter(|p| p.0.starts_with("cfg_"))
        .cloned()
        .collect();
    let mut expected = documented_ports(spec);
    if let Some(id) = &node_id {
        expected.insert(2, id.clone());
    }
    if spec.table != crate::spec::TableStorage::None {
        let at = 2 + usize::from(node_id.is_some());
        for (i, name) in crate::interface::CFG_PORTS.iter().enumerate() {
            let width = cfg.iter().find(|p| p.0 == *name).map_or(0, |p| p.2);
            expected.insert(at + i, (name.to_string(), true, width));
        }
    }
    if ports != expected {
        return Err(Error::InvalidSpec(format!(
            "the top module {name} does not have the ports of docs/interface.md, which the \
             testbench is written against: {ports:?}"
        )));
    }
    let st = stimulus::build(spec)?;
    let stim_path = format!("tb/{name}_stimulus.hex");
    let mut ctx = tera::Context::new();
    ctx.insert("name", &name);
    ctx.insert("node_name", &st.node_name);
    ctx.insert("p", &st.ports);
    ctx.insert("v", &st.vcs);
    ctx.insert("w", &st.width);
    ctx.insert("vb", &vc_bits(spec.vcs));
    ctx.insert("depth", &spec.buffer_depth);
    let onoff = spec.flow_control == crate::spec::FlowControl::OnOff;
    ctx.insert("onoff", &onoff);
    // Slices: a flit leaves its input buffer for the next slice before it
    // leaves the router, so a level may be high with more flits inside
    // (docs/interface.md, "Flow control").
    ctx.insert(
        "level_exact",
        &(spec.datapath != crate::spec::RouterDatapath::Sliced),
    );
    ctx.insert("slack", &crate::spec::ON_OFF_ROUND_TRIP);
    ctx.insert(
        "flow_words",
        if onoff {
            "the on/off levels"
        } else {
            "credits"
        },
    );
    ctx.insert("ports", &(0..st.ports).collect::<Vec<_>>());
    ctx.insert("npk", &st.packets.len());
    ctx.insert("nflit", &st.flit_count());
    ctx.insert("nwords", &st.words());
    ctx.insert("rec", &st.record_words());
    ctx.insert("mw", &st.mask_words());
    ctx.insert("header_bits", &st.header_bits);
    ctx.insert("tag_bits", &st.tag_bits);
    ctx.insert("ntag", &(1u64 << st.tag_bits));
    ctx.insert("poff", &st.packet_offset());
    ctx.insert("foff", &st.flit_offset());
    // Generous bounds: a working router needs a few cycles per flit.
    ctx.insert("timeout", &(2000 + 50 * st.flit_count()));
    ctx.insert("idle_limit", &2000);
    // Long enough for the last credit returns (at most 52 cycles late,
    // one per cycle per output VC).
    ctx.insert("drain", &(64 + 2 * spec.buffer_depth));
    ctx.insert("sentinel", &format!("{:016x}", stimulus::SENTINEL));
    ctx.insert("stimulus", &stim_path);
    ctx.insert("seed", &SEED);
    ctx.insert("node_id", &node_id.is_some());
    ctx.insert(
        "cfg",
        &cfg.iter()
            .map(|(name, _, width)| (name.clone(), *width))
            .collect::<Vec<_>>(),
    );
    if let Some((_, _, width)) = &node_id {
        ctx.insert("node_id_width", width);
        ctx.insert(
            "node_id_hex",
            &format!("{:x}", node_id_value(spec, st.node, *width)?),
        );
    }
    let mut out = vec![
        (
            PathBuf::from(format!("tb/{name}_tb.v")),
            render(TB_VERILOG, &ctx, "testbench")?,
        ),
        (
            PathBuf::from(format!("tb/{name}_tb.cpp")),
            render(TB_CPP, &ctx, "Verilator harness")?,
        ),
        (PathBuf::from(stim_path), st.hex(&name)),
    ];
    out.extend(synth_scripts(&name, &["generic", "ice40", "ecp5"])?);
    let (proofs, jobs) = prove::files(spec)?;
    out.extend(proofs);
    ctx.insert("proofs", &jobs.join(" "));
    out.push((
        PathBuf::from("Makefile"),
        render(MAKEFILE, &ctx, "Makefile")?,
    ));
    ctx.insert("vlnv", &vlnv(spec));
    ctx.insert("algorithm", &spec.algorithm.to_string());
    ctx.insert("topology", &spec.topology.to_string());
    out.push((
        PathBuf::from(format!("{name}.core")),
        render(CORE, &ctx, "FuseSoC core")?,
    ));
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::flows::{require_tool, TempDir};
    use crate::spec::{Addressing, Algorithm, SpecInput, Topology};

    /// A router with the documented ports that never sends a flit or a
    /// credit: enough to lint the testbench for configurations the router
    /// does not build yet, and a router the testbench must fail.
    fn silent_router(spec: &RouterSpec, node_id: Option<u32>) -> String {
        let mut ports = documented_ports(spec);
        if let Some(w) = node_id {
            ports.insert(2, ("node_id".into(), true, w));
        }
        let decl: Vec<String> = ports
            .iter()
            .map(|(n, input, w)| {
                let dir = if *input { "input" } else { "output" };
                if *w == 1 {
                    format!("    {dir} wire {n}")
                } else {
                    format!("    {dir} wire [{}:0] {n}", w - 1)
                }
            })
            .collect();
        let ties: Vec<String> = ports
            .iter()
            .filter(|p| !p.1)
            .map(|(n, _, _)| format!("    assign {n} = 0;"))
            .collect();
        format!(
            "module {} (\n{}\n);\n{}\nendmodule\n",
            spec.name(),
            decl.join(",\n"),
            ties.join("\n")
        )
    }

    fn spec(algo: Algorithm, topology: Topology, dims: i64, more: SpecInput) -> RouterSpec {
        SpecInput {
            algorithm: Some(algo),
            topology: Some(topology),
            dims: Some(dims),
            ..more
        }
        .resolve()
        .expect("valid")
        .spec
    }

    /// Tori, hypercubes, n = 3 and 4, V up to 4, 64-bit flits, a node_id and
    /// a head flit with no room for tags: the testbench renders, compiles
    /// with `iverilog -Wall` without a warning (`make sim` builds it so),
    /// and fails on a silent router; so does the C++ harness, once.
    #[test]
    fn testbench_lints_everywhere_and_fails_a_silent_router() {
        if !require_tool("make") || !require_tool("iverilog") || !require_tool("vvp") {
            return;
        }
        let cases = [
            (
                spec(
                    Algorithm::DimensionOrder,
                    Topology::Torus,
                    2,
                    SpecInput::default(),
                ),
                None,
            ),
            (
                spec(
                    Algorithm::Duato,
                    Topology::Hypercube,
                    4,
                    SpecInput {
                        vcs: Some(3),
                        ..SpecInput::default()
                    },
                ),
                None,
            ),
            (
                spec(
                    Algorithm::PlanarAdaptive,
                    Topology::Mesh,
                    3,
                    SpecInput {
                        flit_width: Some(64),
                        vcs: Some(4),
                        addressing: Some(Addressing::Absolute),
                        ..SpecInput::default()
                    },
                ),
                Some(6),
            ),
            (
                spec(
                    Algorithm::StarChannels,
                    Topology::Torus,
                    2,
                    SpecInput {
                        radix: Some(5),
                        ..SpecInput::default()
                    },
                ),
                None,
            ),
            // 4096 nodes, 16 header bits of 16: every packet shares tag 0.
            (
                spec(
                    Algorithm::NegativeFirst,
                    Topology::Mesh,
                    4,
                    SpecInput {
                        radix: Some(8),
                        flit_width: Some(16),
                        ..SpecInput::default()
                    },
                ),
                None,
            ),
            // The Verilator case (below): the widths of the planar case
            // on a smaller router, which halves the C++ build.
            (
                spec(
                    Algorithm::DimensionOrder,
                    Topology::Mesh,
                    2,
                    SpecInput {
                        flit_width: Some(64),
                        vcs: Some(4),
                        ..SpecInput::default()
                    },
                ),
                Some(6),
            ),
        ];
        for (n, (s, node_id)) in cases.into_iter().enumerate() {
            let name = s.name();
            let rtl = silent_router(&s, node_id);
            let mut files = files(&s, &rtl).expect("renders");
            files.push((PathBuf::from(format!("rtl/{name}.v")), rtl));
            let dir = TempDir::new("tb-silent").unwrap();
            for (path, text) in &files {
                let p = dir.path().join(path);
                std::fs::create_dir_all(p.parent().unwrap()).unwrap();
                std::fs::write(p, text).unwrap();
            }
            let make = |target: &str| {
                // FAIL_WAVES=0: the expected failure needs no traced rerun.
                let out = std::process::Command::new("make")
                    .arg(target)
                    .env("FAIL_WAVES", "0")
                    .current_dir(dir.path())
                    .output()
                    .unwrap();
                let said = format!(
                    "{}{}",
                    String::from_utf8_lossy(&out.stdout),
                    String::from_utf8_lossy(&out.stderr)
                );
                (out.status.success(), said)
            };
            let mut targets = vec!["sim"];
            // One Verilator build: the C++ harness with 64-bit flits, V = 4
            // and a node_id, compiled with -Wall.
            if n == 5 && require_tool("verilator") {
                targets.push("sim-verilator");
            }
            for target in targets {
                let (ok, said) = make(target);
                assert!(!ok, "{name} {target}: {said}");
                assert!(
                    said.contains("FAIL: cycle") && said.contains("no flit left the router"),
                    "{name} {target}: {said}"
                );
                assert!(
                    !said.contains("PASS") && !said.contains("warning"),
                    "{name} {target}: {said}"
                );
            }
        }
    }
}
