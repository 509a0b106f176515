//! Verilator: `--lint-only -Wall`, and a cycle-by-cycle simulation driven by
//! a generated C++ harness (for co-simulation against the rust-hdl model).

use std::fmt::Write as _;

use super::{run, TempDir, ToolError};

/// Runs `verilator --lint-only -Wall` on `verilog` with top module `top`
/// and returns every warning line (empty when clean).
pub fn lint(verilog: &str, top: &str) -> Result<Vec<String>, ToolError> {
    let dir = TempDir::new("verilator-lint")?;
    // Named after the top module, as `routergen block` writes it.
    let file = format!("{top}.v");
    dir.write(&file, verilog)?;
    let out = run(
        "verilator",
        &["--lint-only", "-Wall", "--top-module", top, &file],
        dir.path(),
    )?;
    let lines: Vec<String> = out
        .stderr
        .lines()
        .filter(|l| l.starts_with("%Warning") || l.starts_with("%Error"))
        .map(str::to_string)
        .collect();
    if !out.success && lines.is_empty() {
        return Err(ToolError::new("verilator", out.stderr));
    }
    Ok(lines)
}

/// A top-level port: its Verilog name, width in bits (at most 64) and direction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Port {
    /// The port's name in the Verilog.
    pub name: String,
    /// Its width in bits.
    pub width: usize,
    /// True for an input, false for an output.
    pub input: bool,
}

/// The C++ name Verilator gives a Verilog identifier (`$` becomes `__024`).
pub fn cpp_name(verilog_name: &str) -> String {
    verilog_name.replace('$', "__024")
}

/// A C++ harness: reads one line per cycle of hex input values (in the
/// order of the input ports, clock excluded) from the file named by
/// `argv[1]`; each cycle it applies them with the clock low, evaluates,
/// prints every output in hex (in port order), then raises the clock and
/// evaluates again.
pub fn harness(top: &str, ports: &[Port], clock: &str) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "#include \"V{top}.h\"\n#include \"verilated.h\"");
    s.push_str("#include <cstdio>\n#include <cstdint>\n#include <cinttypes>\n\n");
    s.push_str("int main(int argc, char** argv) {\n");
    s.push_str("    Verilated::commandArgs(argc, argv);\n");
    s.push_str("    FILE* in = std::fopen(argv[1], \"r\");\n    if (!in) return 2;\n");
    let _ = writeln!(s, "    V{top}* top = new V{top};");
    let _ = writeln!(s, "    top->{} = 0;", cpp_name(clock));
    s.push_str("    uint64_t v;\n    for (;;) {\n");
    let mut first = true;
    for p in ports.iter().filter(|p| p.input && p.name != clock) {
        if first {
            s.push_str("        if (std::fscanf(in, \"%\" SCNx64, &v) != 1) break;\n");
            first = false;
        } else {
            s.push_str("        if (std::fscanf(in, \"%\" SCNx64, &v) != 1) return 3;\n");
        }
        let _ = writeln!(s, "        top->{} = v;", cpp_name(&p.name));
    }
    let _ = writeln!(
        s,
        "        top->{} = 0;\n        top->eval();",
        cpp_name(clock)
    );
    for (k, p) in ports.iter().filter(|p| !p.input).enumerate() {
        let sep = if k == 0 { "" } else { " " };
        let _ = writeln!(
            s,
            "        std::printf(\"{sep}%\" PRIx64, (uint64_t)top->{});",
            cpp_name(&p.name)
        );
    }
    s.push_str("        std::printf(\"\\n\");\n");
    let _ = writeln!(
        s,
        "        top->{} = 1;\n        top->eval();",
        cpp_name(clock)
    );
    s.push_str("    }\n    top->final();\n    delete top;\n    return 0;\n}\n");
    s
}

/// A Verilator build of one design with the harness of [`harness`].
#[derive(Debug)]
pub struct Simulator {
    dir: TempDir,
    inputs: usize,
}

impl Simulator {
    /// Verilates and compiles `verilog` (top module `top`) with a harness
    /// for `ports`; `clock` names the clock input.
    pub fn build(verilog: &str, top: &str, ports: &[Port], clock: &str) -> Result<Self, ToolError> {
        let dir = TempDir::new("verilator-sim")?;
        dir.write("design.v", verilog)?;
        dir.write("harness.cpp", &harness(top, ports, clock))?;
        let out = run(
            "verilator",
            &[
                "--cc",
                "--exe",
                "--build",
                "-Wno-fatal",
                "-Wno-lint",
                "-Wno-style",
                "--top-module",
                top,
                "-o",
                "sim",
                // Small designs, a few thousand cycles: compile time
                // dominates, so no C++ optimization.
                "-CFLAGS",
                "-O0",
                "design.v",
                "harness.cpp",
            ],
            dir.path(),
        )?;
        if !out.success {
            return Err(ToolError::new(
                "verilator",
                format!("{}\n{}", out.stdout, out.stderr),
            ));
        }
        let inputs = ports.iter().filter(|p| p.input && p.name != clock).count();
        Ok(Simulator { dir, inputs })
    }

    /// Runs the stimulus (one vector of input values per cycle) and returns
    /// the output values of every cycle.
    pub fn run(&self, stimulus: &[Vec<u64>]) -> Result<Vec<Vec<u64>>, ToolError> {
        let mut text = String::new();
        for row in stimulus {
            if row.len() != self.inputs {
                return Err(ToolError::new(
                    "verilator",
                    format!(
                        "stimulus row has {} values, the design {} inputs",
                        row.len(),
                        self.inputs
                    ),
                ));
            }
            let line: Vec<String> = row.iter().map(|v| format!("{v:x}")).collect();
            text.push_str(&line.join(" "));
            text.push('\n');
        }
        let file = self.dir.write("stimulus.txt", &text)?;
        let exe = self.dir.path().join("obj_dir").join("sim");
        let out = std::process::Command::new(exe)
            .arg(file)
            .output()
            .map_err(|e| ToolError::new("verilator", format!("cannot run the simulation: {e}")))?;
        if !out.status.success() {
            return Err(ToolError::new(
                "verilator",
                format!("simulation exited with {}", out.status),
            ));
        }
        let stdout = String::from_utf8_lossy(&out.stdout);
        stdout
            .lines()
            .map(|l| {
                l.split_whitespace()
                    .map(|w| {
                        u64::from_str_radix(w, 16).map_err(|_| {
                            ToolError::new("verilator", format!("bad output value {w}"))
                        })
                    })
                    .collect()
            })
            .collect()
    }
}
