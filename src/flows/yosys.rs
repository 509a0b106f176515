//! Yosys: generic synthesis to two-input gates, and `synth_ice40`.

use std::collections::BTreeMap;

use super::{run, TempDir, ToolError};

/// The gate library `abc -g` maps to: Chien counts two-input gates (§4).
pub const GATE_LIBRARY: &str = "AND,NAND,OR,NOR,XOR,XNOR,ANDNOT,ORNOT,MUX";

/// Cell counts of a synthesized design.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CellCounts {
    /// Yosys cell type (e.g. `$_AND_`, `SB_LUT4`) to count.
    pub cells: BTreeMap<String, u64>,
}

impl CellCounts {
    pub fn total(&self) -> u64 {
        self.cells.values().sum()
    }

    pub fn count(&self, cell: &str) -> u64 {
        self.cells.get(cell).copied().unwrap_or(0)
    }

    /// Flip-flops of any kind (`$_DFF_*`, `$_SDFF*`, `SB_DFF*`).
    pub fn flip_flops(&self) -> u64 {
        self.cells
            .iter()
            .filter(|(k, _)| k.contains("DFF"))
            .map(|(_, v)| v)
            .sum()
    }

    /// Inverters (`$_NOT_`), which the gate count leaves out.
    pub fn inverters(&self) -> u64 {
        self.count("$_NOT_")
    }

    /// Two-input gate equivalents: each AND, NAND, OR, NOR, XOR, XNOR,
    /// ANDNOT and ORNOT counts 1, a 2:1 MUX counts 3 (two ANDs and an OR
    /// over a shared inverter). Inverters and flip-flops are not counted:
    /// Chien's Figure 4 counts logic gates, not storage.
    pub fn two_input_gates(&self) -> u64 {
        let ones = [
            "$_AND_",
            "$_NAND_",
            "$_OR_",
            "$_NOR_",
            "$_XOR_",
            "$_XNOR_",
            "$_ANDNOT_",
            "$_ORNOT_",
        ];
        ones.iter().map(|c| self.count(c)).sum::<u64>() + 3 * self.count("$_MUX_")
    }
}

/// Parses the cell lines of Yosys `stat` (the last report printed).
pub fn parse_stat(text: &str) -> CellCounts {
    let mut counts = CellCounts::default();
    // Only the last "Number of cells" section: earlier ones belong to
    // submodules when the design is not flattened.
    let start = text.rfind("Number of cells").unwrap_or(0);
    for line in text[start..].lines().skip(1) {
        let t = line.trim();
        if t.is_empty() {
            if counts.cells.is_empty() {
                continue;
            }
            break;
        }
        let mut it = t.split_whitespace();
        if let (Some(name), Some(n), None) = (it.next(), it.next(), it.next()) {
            if let Ok(n) = n.parse::<u64>() {
                *counts.cells.entry(name.to_string()).or_insert(0) += n;
                continue;
            }
        }
        break;
    }
    counts
}

fn synth_script(top: &str, body: &str) -> String {
    format!("read_verilog design.v; hierarchy -check -top {top}; {body}; stat")
}

fn yosys(verilog: &str, script: &str) -> Result<String, ToolError> {
    let dir = TempDir::new("yosys")?;
    dir.write("design.v", verilog)?;
    let out = run(
        "yosys",
        &["-q", "-p", script, "-l", "yosys.log"],
        dir.path(),
    )?;
    let log = std::fs::read_to_string(dir.path().join("yosys.log")).unwrap_or_default();
    if !out.success {
        let tail: Vec<&str> = out
            .stderr
            .lines()
            .chain(log.lines())
            .rev()
            .take(12)
            .collect();
        let tail: Vec<&str> = tail.into_iter().rev().collect();
        return Err(ToolError::new("yosys", tail.join("\n")));
    }
    Ok(log)
}

/// Generic synthesis (`synth -flatten`) mapped by ABC to two-input gates.
pub fn synth_gates(verilog: &str, top: &str) -> Result<CellCounts, ToolError> {
    let log = yosys(
        verilog,
        &synth_script(
            top,
            &format!("synth -flatten -top {top}; abc -g {GATE_LIBRARY}; opt_clean"),
        ),
    )?;
    Ok(parse_stat(&log))
}

/// Generic `synth` with the default cell library.
pub fn synth(verilog: &str, top: &str) -> Result<CellCounts, ToolError> {
    let log = yosys(
        verilog,
        &synth_script(top, &format!("synth -flatten -top {top}")),
    )?;
    Ok(parse_stat(&log))
}

/// `synth_ice40` (Lattice iCE40 LUTs and flip-flops).
pub fn synth_ice40(verilog: &str, top: &str) -> Result<CellCounts, ToolError> {
    let log = yosys(
        verilog,
        &synth_script(top, &format!("synth_ice40 -top {top}")),
    )?;
    Ok(parse_stat(&log))
}
