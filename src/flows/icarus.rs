//! Icarus Verilog: compile with every warning on.

use super::{run, TempDir, ToolError};

/// Compiles `verilog` with `iverilog -Wall` (top module `top`) and returns
/// the warnings it printed; an error if it does not compile.
pub fn check(verilog: &str, top: &str) -> Result<Vec<String>, ToolError> {
    let dir = TempDir::new("iverilog")?;
    dir.write("design.v", verilog)?;
    let out = run(
        "iverilog",
        &["-Wall", "-s", top, "-o", "design.vvp", "design.v"],
        dir.path(),
    )?;
    let lines: Vec<String> = out
        .stdout
        .lines()
        .chain(out.stderr.lines())
        .filter(|l| !l.trim().is_empty())
        .map(str::to_string)
        .collect();
    if !out.success {
        return Err(ToolError::new("iverilog", lines.join("\n")));
    }
    Ok(lines)
}
