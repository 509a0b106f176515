//! A router through its output directory's own checks (`routergen
//! matrix`): the directory written into a scratch directory, then `make
//! lint`, `make sim` (the Icarus testbench) and `make synth` (Yosys) run
//! in it, each passing when make succeeds and prints no FAIL.

use std::path::Path;
use std::process::Command;

use super::Output;
use crate::error::{Error, Result};
use crate::spec::RouterSpec;

/// The make targets run, in order.
pub const STEPS: [&str; 3] = ["lint", "sim", "synth"];

/// The tools the steps run, by the Makefile variable that names each.
const TOOLS: [(&str, &str); 4] = [
    ("VERILATOR", "verilator"),
    ("IVERILOG", "iverilog"),
    ("VVP", "vvp"),
    ("YOSYS", "yosys"),
];

/// The last lines of a failed step's output kept in the result.
const TAIL_LINES: usize = 15;

/// Writes `spec`'s output directory into a scratch directory and runs
/// [`STEPS`] in it. A missing tool, or a router routergen does not build,
/// is an error; a step that fails is a result.
pub fn run(spec: &RouterSpec) -> Result<Output> {
    crate::router::supported(spec)?;
    let make = crate::flows::require("make", Some("routergen matrix"))?;
    let mut vars = Vec::new();
    for (var, tool) in TOOLS {
        let path = crate::flows::require(tool, Some("routergen matrix"))?;
        vars.push(format!("{var}={}", path.display()));
    }
    let scratch = crate::interrupt::Scratch::new("routergen-check-")?;
    let name = spec.name();
    let dir = scratch.path().join(&name);
    let files = crate::output::render(spec, &crate::model::Technology::chien())?;
    crate::output::write_dir(&dir, &files)?;
    let mut steps = Vec::new();
    let mut log = String::new();
    for step in STEPS {
        let (ok, text) = make_step(&make, &dir, step, &vars)?;
        if !ok {
            log.push_str(&format!("{name}: make {step}:\n"));
            let lines: Vec<&str> = text.lines().collect();
            for l in &lines[lines.len().saturating_sub(TAIL_LINES)..] {
                // The scratch path differs from run to run; the report must not.
                log.push_str(&l.replace(&*scratch.path().to_string_lossy(), "DIR"));
                log.push('\n');
            }
        }
        steps.push((step.to_string(), ok));
    }
    Ok(Output::Checked { steps, log })
}

/// `make -C DIR STEP VARS`: whether it passed (success, no FAIL printed)
/// and what it printed. A failing simulation is not run again for its
/// waveform (`FAIL_WAVES=0`).
fn make_step(make: &Path, dir: &Path, step: &str, vars: &[String]) -> Result<(bool, String)> {
    let out = Command::new(make)
        .env("FAIL_WAVES", "0")
        .arg("-C")
        .arg(dir)
        .arg(step)
        .args(vars)
        .output()
        .map_err(|e| Error::Tool {
            tool: "make".into(),
            message: format!("cannot run {}: {e}", make.display()),
        })?;
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    Ok((out.status.success() && !text.contains("FAIL"), text))
}

/// The matrix's table: a row per router (its name and each step's ok or
/// FAIL), then how many passed every step, then the failed steps' output.
/// Rows are in the order of `rows`, whatever order they were checked in.
pub fn table(rows: &[(String, Output)]) -> Result<String> {
    let mut s = format!("{:<48}", "configuration");
    for step in STEPS {
        s.push_str(&format!(" {step:<5}"));
    }
    s = s.trim_end().to_string() + "\n";
    let mut passed = 0;
    let mut logs = String::new();
    for (name, out) in rows {
        let Output::Checked { steps, log } = out else {
            return Err(Error::Internal(format!(
                "a matrix job's result is of another kind: {out:?}"
            )));
        };
        let mut line = format!("{name:<48}");
        for (_, ok) in steps {
            line.push_str(&format!(" {:<5}", if *ok { "ok" } else { "FAIL" }));
        }
        s.push_str(line.trim_end());
        s.push('\n');
        if steps.iter().all(|(_, ok)| *ok) {
            passed += 1;
        }
        logs.push_str(log);
    }
    s.push_str(&format!(
        "{passed} of {} configuration(s) pass every check\n",
        rows.len()
    ));
    if !logs.is_empty() {
        s.push('\n');
        s.push_str(&logs);
    }
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn checked(steps: [bool; 3], log: &str) -> Output {
        Output::Checked {
            steps: STEPS
                .iter()
                .zip(steps)
                .map(|(s, ok)| (s.to_string(), ok))
                .collect(),
            log: log.into(),
        }
    }

    #[test]
    fn the_table_has_a_row_per_router_in_order_and_the_failures_after() {
        let t = table(&[
            ("b".into(), checked([true, true, true], "")),
            (
                "a".into(),
                checked([true, false, true], "a: make sim:\nFAIL x\n"),
            ),
        ])
        .unwrap();
        let want = format!(
            "{:<48} lint  sim   synth\n{:<48} ok    ok    ok\n{:<48} ok    FAIL  ok\n\
             1 of 2 configuration(s) pass every check\n\na: make sim:\nFAIL x\n",
            "configuration", "b", "a"
        );
        assert_eq!(t, want);
    }
}
