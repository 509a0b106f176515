//! `routergen synth --compare-chien`: Chien's cost and speed model (gates
//! per module, Figure 4; setup and flow-control paths, §5) beside Yosys's
//! count of the two-input gates of routergen's own RTL for the same
//! algorithm, n, V and W = 16, block by block, with the measured logic depth
//! and, on an FPGA target, the achieved clock frequency.

use std::fmt::Write as _;

use serde::Serialize;

use super::hierarchy::block_info;
use super::{run, SynthReport, Target};
use crate::error::Result;
use crate::model::{self, fmt_gates, CostReport, ModelInput, Module, Technology};
use crate::router;
use crate::spec::names::Named;
use crate::spec::{Algorithm, SpecInput, Topology};

/// Flit width of the comparison (the one Chien's Figure 4 counts are set
/// beside in docs/blocks.md).
pub const WIDTH: i64 = 16;
/// Buffer depth of the compared routers: Chien's counts leave buffering
/// out (§5.5), so the smallest double buffer.
pub const DEPTH: i64 = 2;
/// The dimensions compared.
pub const DIMS: [u32; 2] = [2, 3];

/// One algorithm at one n.
#[derive(Debug, Clone, Serialize)]
pub struct Case {
    /// The routing algorithm.
    pub algorithm: Algorithm,
    /// The topology.
    pub topology: Topology,
    /// Dimensions n.
    pub dims: u32,
    /// Virtual channels per physical channel.
    pub vcs: u32,
    /// The configuration's name, or why it was not built.
    pub name: Option<String>,
    /// Chien's cost and speed model of the router.
    pub chien: CostReport,
    /// Generic synthesis of the RTL, if the router supports the case.
    pub gates: Option<SynthReport>,
    /// The same on the FPGA target, if one was asked for.
    pub fpga: Option<SynthReport>,
    /// Why there is no measurement.
    pub skipped: Option<String>,
}

/// The Chien gates of `module` in the case's inventory.
fn chien_gates(c: &CostReport, module: Module) -> Option<(u32, Option<u32>, f64)> {
    c.modules
        .iter()
        .find(|m| m.module == module)
        .map(|m| (m.count, m.param, m.gates))
}

/// The router's own two-input gates in the hierarchical synthesis (the
/// scan wrapper left out).
pub fn router_gates(r: &SynthReport) -> u64 {
    r.hierarchical_total.gates - r.wrapper_cells.gates
}

/// Runs every algorithm at n = 2 and 3 on the topology Chien evaluates it
/// on (mesh; torus for *-channels) with Chien's V (§5; the deadlock
/// minimum where he gives none). `progress` is told each case as it starts.
pub fn compare(
    target: Target,
    tech: &Technology,
    mut progress: impl FnMut(&str),
) -> Result<Vec<Case>> {
    let mut out = Vec::new();
    for &algorithm in Algorithm::all().iter() {
        for dims in DIMS {
            let Some(topology) = [Topology::Mesh, Topology::Torus, Topology::Hypercube]
                .into_iter()
                .find(|t| algorithm.supports(*t, dims).is_ok())
            else {
                continue;
            };
            let vcs = ModelInput::chien_vcs(algorithm, topology, dims)
                .max(algorithm.min_vcs(topology, dims));
            let chien = model::evaluate(
                &ModelInput {
                    algorithm,
                    topology,
                    dims,
                    vcs,
                },
                tech,
            );
            let input = SpecInput {
                algorithm: Some(algorithm),
                topology: Some(topology),
                dims: Some(dims as i64),
                vcs: Some(vcs as i64),
                flit_width: Some(WIDTH),
                buffer_depth: Some(DEPTH),
                ..SpecInput::default()
            };
            let mut case = Case {
                algorithm,
                topology,
                dims,
                vcs,
                name: None,
                chien,
                gates: None,
                fpga: None,
                skipped: None,
            };
            match input.resolve() {
                Err(e) => case.skipped = Some(e.to_string()),
                Ok(resolved) => {
                    let spec = resolved.spec;
                    case.name = Some(spec.name());
                    match router::supported(&spec) {
                        Err(e) => case.skipped = Some(e.to_string()),
                        Ok(()) => {
                            progress(&spec.name());
                            case.gates = Some(run(&spec, Target::Generic, None, None)?);
                            if target != Target::Generic {
                                case.fpga = Some(run(&spec, target, None, None)?);
                            }
                        }
                    }
                }
            }
            out.push(case);
        }
    }
    Ok(out)
}

/// Chien's modules in the order of his setup path (§3.1).
const MODULES: [Module; 6] = [
    Module::AddressDecoder,
    Module::RoutingArbiter,
    Module::HeaderSelector,
    Module::Crossbar,
    Module::FlowControlUnit,
    Module::VcController,
];

fn inventory_text(c: &CostReport, module: Module) -> (String, String) {
    match chien_gates(c, module) {
        None => ("-".into(), "-".into()),
        Some((count, param, gates)) => {
            let p = match (module.parameter_name(), param) {
                (Some(n), Some(v)) => format!(" x {n}={v}"),
                _ => String::new(),
            };
            (format!("{count}{p}"), fmt_gates(gates))
        }
    }
}

/// The per-block table of one case.
pub fn case_text(c: &Case) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "== {}, {}-D {}, V = {}: {} ==",
        c.algorithm,
        c.dims,
        c.topology,
        c.vcs,
        c.name.as_deref().unwrap_or("-")
    );
    let Some(g) = &c.gates else {
        let _ = writeln!(
            s,
            "Chien: {} gates, setup {:.2} ns, flow control {:.2} ns; not measured: {}\n",
            fmt_gates(c.chien.gates.total),
            c.chien.delay_ns.setup,
            c.chien.delay_ns.flow_control,
            c.skipped.as_deref().unwrap_or("")
        );
        return s;
    };
    let _ = writeln!(
        s,
        "{:<18} {:>14} {:>8} | {:<30} {:>8} {:>7}",
        "Chien module", "count x param", "gates", "our block (instances)", "gates", "ratio"
    );
    for module in MODULES {
        let (inv, chien) = inventory_text(&c.chien, module);
        let ours: Vec<_> = g
            .blocks
            .iter()
            .filter(|b| block_info(&b.block).chien == Some(module))
            .collect();
        if inv == "-" && ours.is_empty() {
            continue;
        }
        let our_name = if ours.is_empty() {
            "(in the glue)".to_string()
        } else {
            ours.iter()
                .map(|b| format!("{} ({})", b.block, b.instances))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let our_gates: u64 = ours.iter().map(|b| b.resources.gates).sum();
        let ratio = match chien_gates(&c.chien, module) {
            Some((_, _, cg)) if cg > 0.0 && !ours.is_empty() => {
                format!("{:.2}", our_gates as f64 / cg)
            }
            _ => "-".into(),
        };
        let _ = writeln!(
            s,
            "{:<18} {:>14} {:>8} | {:<30} {:>8} {:>7}",
            module.title(),
            inv,
            chien,
            our_name,
            if ours.is_empty() {
                "-".into()
            } else {
                our_gates.to_string()
            },
            ratio
        );
    }
    let others: Vec<_> = g
        .blocks
        .iter()
        .filter(|b| block_info(&b.block).chien.is_none())
        .collect();
    let other_gates: u64 = others.iter().map(|b| b.resources.gates).sum::<u64>() + g.glue.gates;
    let names: Vec<String> = others
        .iter()
        .map(|b| format!("{} ({})", b.block, b.instances))
        .chain(std::iter::once("glue".to_string()))
        .collect();
    let _ = writeln!(
        s,
        "{:<18} {:>14} {:>8} | {:<30} {:>8} {:>7}",
        "not in the model",
        "-",
        "-",
        names.join(", "),
        other_gates,
        "-"
    );
    let total = router_gates(g);
    let _ = writeln!(
        s,
        "{:<18} {:>14} {:>8} | {:<30} {:>8} {:>7.2}",
        "total",
        "",
        fmt_gates(c.chien.gates.total),
        "router",
        total,
        total as f64 / c.chien.gates.total
    );
    let fmax = c
        .fpga
        .as_ref()
        .and_then(|f| {
            f.fmax_mhz
                .map(|m| format!(", Fmax {m:.1} MHz on {}", f.part))
        })
        .unwrap_or_default();
    let _ = writeln!(
        s,
        "critical path: Chien setup {:.2} ns, flow control {:.2} ns; measured {} gate \
         levels{fmax}\n",
        c.chien.delay_ns.setup,
        c.chien.delay_ns.flow_control,
        g.logic_depth.map_or("-".into(), |d| d.to_string()),
    );
    s
}

/// Ranks of `values` (1 = smallest), ties sharing a rank.
pub fn ranks(values: &[f64]) -> Vec<usize> {
    values
        .iter()
        .map(|v| 1 + values.iter().filter(|w| *w < v).count())
        .collect()
}

/// The summary table (Markdown) of the measured cases, with the order of
/// the algorithms by Chien's numbers and by ours.
pub fn summary(cases: &[Case]) -> String {
    let measured: Vec<&Case> = cases.iter().filter(|c| c.gates.is_some()).collect();
    let mut s = String::new();
    s.push_str(
        "| algorithm | n | V | Chien gates | Yosys gates | ratio | Chien setup ns | Chien flow-control ns | logic depth | Fmax MHz |\n\
         |---|---|---|---|---|---|---|---|---|---|\n",
    );
    for c in &measured {
        let g = c.gates.as_ref().expect("measured");
        let total = router_gates(g);
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} | {:.2} | {:.2} | {:.2} | {} | {} |",
            c.algorithm,
            c.dims,
            c.vcs,
            fmt_gates(c.chien.gates.total),
            total,
            total as f64 / c.chien.gates.total,
            c.chien.delay_ns.setup,
            c.chien.delay_ns.flow_control,
            g.logic_depth.map_or("-".into(), |d| d.to_string()),
            c.fpga
                .as_ref()
                .and_then(|f| f.fmax_mhz)
                .map_or("-".into(), |f| format!("{f:.1}")),
        );
    }
    for c in cases.iter().filter(|c| c.gates.is_none()) {
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | not built | | {:.2} | {:.2} | | |",
            c.algorithm,
            c.dims,
            c.vcs,
            fmt_gates(c.chien.gates.total),
            c.chien.delay_ns.setup,
            c.chien.delay_ns.flow_control,
        );
    }
    let order = |key: &dyn Fn(&Case) -> f64| -> String {
        let v: Vec<f64> = measured.iter().map(|c| key(c)).collect();
        let r = ranks(&v);
        let mut idx: Vec<usize> = (0..measured.len()).collect();
        idx.sort_by_key(|&i| (r[i], i));
        idx.iter()
            .map(|&i| format!("{} (n={})", measured[i].algorithm, measured[i].dims))
            .collect::<Vec<_>>()
            .join(" < ")
    };
    let _ = writeln!(
        s,
        "\nfewest gates first: Chien {}\n                    Yosys {}",
        order(&|c| c.chien.gates.total),
        order(&|c| router_gates(c.gates.as_ref().expect("measured")) as f64)
    );
    let _ = writeln!(
        s,
        "shortest path first: Chien setup {}\n                     logic depth {}",
        order(&|c| c.chien.delay_ns.setup),
        order(&|c| c
            .gates
            .as_ref()
            .and_then(|g| g.logic_depth)
            .unwrap_or(u64::MAX) as f64)
    );
    if measured.iter().any(|c| c.fpga.is_some()) {
        let _ = writeln!(
            s,
            "                     Fmax (fastest first) {}",
            order(&|c| -c.fpga.as_ref().and_then(|f| f.fmax_mhz).unwrap_or(0.0))
        );
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranks_share_ties() {
        assert_eq!(ranks(&[3.0, 1.0, 3.0, 2.0]), vec![3, 1, 3, 2]);
    }
}
