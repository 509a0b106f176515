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
