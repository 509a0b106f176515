//! The commands that drive external tools, run where the tools are not
//! installed: each must name the missing tool, say how to install it, and
//! exit with 1 (a failure while doing valid work), not speak of a file it
//! could not write or blame the user's input.

mod common;

use std::path::Path;
use std::process::{Command, Output};

use common::stderr;

/// Runs `routergen` in `dir` with PATH set to `dir` alone (no tools there)
/// and no virtual environment named by the environment.
fn without_tools(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_routergen"))
        .current_dir(dir)
        .env("PATH", dir)
        .env_remove("ROUTERGEN_VENV")
        .args(args)
        .output()
        .expect("the routergen binary runs")
}

/// False (and a note) when the crate's own .venv holds `tool`: routergen
/// searches it after PATH, so the tool cannot be hidden from it.
fn can_hide(tool: &str) -> bool {
    let venv = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(".venv/bin")
        .join(tool);
    if venv.exists() {
        eprintln!(
            "SKIPPED: {} exists, so {tool} cannot be hidden",
            venv.display()
        );
        return false;
    }
    true
}

/// The message names the tool, its package and how to install it; the exit
/// status is 1.
fn says_tool_missing(o: &Output, tool: &str, package: &str) {
    let err = stderr(o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    assert!(
        err.starts_with(&format!("routergen: error: {tool}: not found on PATH")),
        "{err}"
    );
    for want in [package, "make tools", "testbench/install-tools.sh"] {
        assert!(err.contains(want), "no {want:?} in: {err}");
    }
    assert!(!err.contains("cannot write"), "{err}");
}

#[test]
fn synth_without_yosys_names_the_tool() {
    if !can_hide("yosys") {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let o = without_tools(tmp.path(), &["synth", "--radix", "2"]);
    says_tool_missing(&o, "yosys", "Debian package yosys");
    assert!(stderr(&o).contains("target generic"), "{}", stderr(&o));
}

#[test]
fn block_measure_without_yosys_names_the_tool() {
    if !can_hide("yosys") {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let o = without_tools(tmp.path(), &["block", "crossbar", "--measure"]);
    says_tool_missing(&o, "yosys", "Debian package yosys");
}

#[test]
fn fpga_build_without_yosys_names_the_tool() {
    if !can_hide("yosys") {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let o = without_tools(
        tmp.path(),
        &["fpga", "--board", "icebreaker", "--build", "-o", "design"],
    );
    says_tool_missing(&o, "yosys", "Debian package yosys");
}
