//! Shared helpers for the integration tests.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Runs the `routergen` binary with `args`.
pub fn routergen(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_routergen"))
        .args(args)
        .output()
        .expect("the routergen binary runs")
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The papers folder: `$ROUTERGEN_PAPERS`, else `../shared/papers` beside the crate.
pub fn papers_dir() -> PathBuf {
    match std::env::var_os("ROUTERGEN_PAPERS") {
        Some(p) => PathBuf::from(p),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/papers"),
    }
}

/// The text of one paper, for tests whose oracle is the paper itself.
pub fn paper(file: &str) -> String {
    let path = papers_dir().join(file);
    std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "cannot read {} ({e}); the tests need ../shared/papers beside the crate \
             or ROUTERGEN_PAPERS set",
            path.display()
        )
    })
}

/// `routergen ARGS -o DIR`; panics with routergen's message on failure.
pub fn generate(dir: &Path, args: &[&str]) {
    let mut all: Vec<&str> = args.to_vec();
    let d = dir.to_str().unwrap();
    all.extend(["-o", d]);
    let out = routergen(&all);
    assert!(out.status.success(), "routergen {all:?}: {}", stderr(&out));
}

/// Runs FuseSoC's `target` of the core file `core` (in the cores root
/// `dir`) from the working directory `work`: success, and what it printed.
pub fn fusesoc(dir: &Path, core: &str, target: &str, work: &Path) -> (bool, String) {
    let text = std::fs::read_to_string(dir.join(core)).unwrap();
    let vlnv = text
        .lines()
        .find_map(|l| l.strip_prefix("name: "))
        .expect("the core names itself");
    std::fs::create_dir_all(work).unwrap();
    let out = Command::new(routergen::flows::find_tool("fusesoc").expect("fusesoc"))
        .arg("--cores-root")
        .arg(dir)
        .args(["run", "--target", target, vlnv])
        .current_dir(work)
        .output()
        .unwrap();
    (
        out.status.success(),
        format!("{}{}", stdout(&out), stderr(&out)),
    )
}
