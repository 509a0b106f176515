//! Gate counts of the emitted blocks (Yosys, two-input gates) beside
//! Chien's Figure 4 formula for the same parameters.

use std::fmt::Write as _;

use super::{BlockKind, BlockParams, Param};
use crate::error::{Error, Result};
use crate::flows::yosys;
use crate::model::Technology;

/// One measured point.
#[derive(Debug, Clone, PartialEq)]
pub struct Measurement {
    /// The measured top module.
    pub top: String,
    /// The value of the swept parameter (P, F or V), if the block has one.
    pub param: Option<(Param, usize)>,
    /// Two-input gates after `synth -flatten; abc -g ...` (see
    /// [`yosys::CellCounts::two_input_gates`]).
    pub gates: u64,
    /// Inverters in the same netlist.
    pub inverters: u64,
    /// Flip-flops in the same netlist.
    pub flip_flops: u64,
    /// Chien Figure 4 for this module and parameter, if the block is one
    /// of his modules.
    pub chien_gates: Option<f64>,
}

/// Synthesizes `kind` with `params` to two-input gates.
pub fn measure(kind: BlockKind, params: &BlockParams, tech: &Technology) -> Result<Measurement> {
    let verilog = kind.verilog(params)?;
    let top = kind.module_name(params);
    let cells = yosys::synth_gates(&verilog, &top)?;
    let (chien_gates, param) = match kind.chien_module() {
        Some((module, Some(p))) => {
            let v = p.get(params);
            (Some(module.gates(tech, v as u32)), Some((p, v)))
        }
        Some((module, None)) => (Some(module.gates(tech, 0)), None),
        None => (None, kind.sweep_param().map(|p| (p, p.get(params)))),
    };
    Ok(Measurement {
        top,
        param,
        gates: cells.two_input_gates(),
        inverters: cells.inverters(),
        flip_flops: cells.flip_flops(),
        chien_gates,
    })
}

/// Measures `kind` at each value of its swept parameter.
pub fn sweep(
    kind: BlockKind,
    params: &BlockParams,
    values: &[usize],
    tech: &Technology,
) -> Result<Vec<Measurement>> {
    let p = kind.sweep_param().ok_or_else(|| {
        Error::InvalidSpec(format!(
            "the {} block has no size parameter (P, F or V) to sweep",
            kind.name()
        ))
    })?;
    values
        .iter()
        .map(|&v| {
            let mut q = *params;
            p.set(&mut q, v);
            // F candidates need at least F outputs.
            if p == Param::Freedom {
                q.ports = q.ports.max(v);
            }
            measure(kind, &q, tech)
        })
        .collect()
}

/// Growth exponent between two points: log(g2/g1) / log(x2/x1).
pub fn exponent(x1: usize, g1: f64, x2: usize, g2: f64) -> Option<f64> {
    if x1 == x2 || g1 <= 0.0 || g2 <= 0.0 {
        return None;
    }
    Some((g2 / g1).ln() / (x2 as f64 / x1 as f64).ln())
}

/// A Markdown table of measurements, with the growth exponent of the
/// measured count between consecutive rows.
pub fn table(rows: &[Measurement]) -> String {
    let mut s = String::new();
    let pname = rows
        .iter()
        .find_map(|r| r.param.map(|(p, _)| p.symbol()))
        .unwrap_or("-");
    let _ = writeln!(
        s,
        "| module | {pname} | Yosys 2-input gates | inverters | flip-flops | Chien Fig. 4 | measured / Chien | growth exponent |"
    );
    s.push_str("|---|---|---|---|---|---|---|---|\n");
    let mut prev: Option<&Measurement> = None;
    for r in rows {
        let pv = r.param.map_or("-".to_string(), |(_, v)| v.to_string());
        // Figure 4 gives no constant for the header selector (0 in the
        // technology file): shown as "-".
        let chien = r
            .chien_gates
            .filter(|&c| c > 0.0)
            .map_or("-".to_string(), |c| format!("{c:.0}"));
        let ratio = r
            .chien_gates
            .filter(|&c| c > 0.0)
            .map_or("-".to_string(), |c| format!("{:.2}", r.gates as f64 / c));
        let growth = prev
            .and_then(|p| match (p.param, r.param) {
                (Some((_, x1)), Some((_, x2))) => exponent(x1, p.gates as f64, x2, r.gates as f64),
                _ => None,
            })
            .map_or("-".to_string(), |e| format!("{e:.2}"));
        let _ = writeln!(
            s,
            "| {} | {pv} | {} | {} | {} | {chien} | {ratio} | {growth} |",
            r.top, r.gates, r.inverters, r.flip_flops
        );
        prev = Some(r);
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exponent_of_a_square_law_is_two() {
        let e = exponent(2, 40.0, 4, 160.0).unwrap();
        assert!((e - 2.0).abs() < 1e-9);
        assert_eq!(exponent(3, 1.0, 3, 2.0), None);
    }

    #[test]
    fn crossbar_gates_grow_with_p_squared() {
        if !crate::flows::require_tool("yosys") {
            return;
        }
        let tech = Technology::chien();
        let params = BlockParams {
            flit_width: 8,
            ..BlockParams::default()
        };
        let rows = sweep(BlockKind::Crossbar, &params, &[4, 8], &tech).unwrap();
        // Chien Figure 4: crossbar cost is quadratic in P; from P = 4 to 8
        // an AND-OR selection per output should scale between P^1.5 and P^2.5.
        let e = exponent(4, rows[0].gates as f64, 8, rows[1].gates as f64).unwrap();
        assert!((1.5..2.5).contains(&e), "exponent {e}, rows {rows:?}");
        assert_eq!(
            rows[1].chien_gates,
            Some(tech.gates.crossbar_per_port_squared * 64.0)
        );
    }
}
