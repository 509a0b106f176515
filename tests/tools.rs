//! The external tools the suite drives are installed and answer. Under
//! CI=true a missing tool fails here (and in every test that needs it).

use std::process::Command;

use routergen::flows::{require_tool, TEST_TOOLS};

#[test]
fn every_test_tool_is_installed_and_runs() {
    for (tool, _) in TEST_TOOLS {
        if !require_tool(tool) {
            continue;
        }
        // Each prints its version and exits 0 with one of these flags.
        let flag = match tool {
            "iverilog" | "vvp" => "-V",
            "icepack" | "fst2vcd" => "-h",
            "slurmctld" => "-V",
            _ => "--version",
        };
        let out = Command::new(tool).arg(flag).output().expect("tool starts");
        let said = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(!said.trim().is_empty(), "{tool} {flag} printed nothing");
        // sbatch reads a cluster's configuration before anything else and
        // fails without one (testbench/slurm.sh writes one).
        if tool != "icepack" && tool != "sbatch" {
            assert!(out.status.success(), "{tool} {flag} failed: {said}");
        }
    }
}
