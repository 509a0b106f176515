//! Wrappers around the external tools routergen drives (Verilator, Icarus
//! Verilog, Yosys, nextpnr, icestorm): finding them, running them, and
//! parsing what they print. Tests and commands share these.

use std::path::PathBuf;

/// The tools the test suite needs, with the Debian package that provides each.
pub const TEST_TOOLS: [(&str, &str); 6] = [
    ("verilator", "verilator"),
    ("iverilog", "iverilog"),
    ("vvp", "iverilog"),
    ("yosys", "yosys"),
    ("nextpnr-ice40", "nextpnr-ice40"),
    ("icepack", "fpga-icestorm"),
];

/// The full path of `tool` on PATH, if it is there.
pub fn find_tool(tool: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(tool))
        .find(|p| p.is_file())
}

/// For tests that need an external tool: `true` if it is present. When it
/// is missing, the test is skipped with a message, except under `CI=true`,
/// where a missing tool is a failure, never a silent skip.
pub fn require_tool(tool: &str) -> bool {
    if find_tool(tool).is_some() {
        return true;
    }
    let package = TEST_TOOLS
        .iter()
        .find(|(t, _)| *t == tool)
        .map_or(tool, |(_, p)| *p);
    let msg = format!("{tool} is not on PATH (Debian package {package}); `make test` installs it");
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!("CI=true and a tool this test needs is missing: {msg}");
    }
    eprintln!("SKIPPED: {msg}");
    false
}
