//! An installed routergen, run from a directory unrelated to its build
//! tree, says where it looked for a missing tool and takes the virtual
//! environment of ROUTERGEN_VENV (docs/cluster.md, "What must be shared").

mod common;

use std::path::Path;
use std::process::Command;

use common::stderr;

/// `routergen synth` of a tiny router by the binary at `exe`, from an
/// unrelated directory, with PATH holding only an empty directory and
/// ROUTERGEN_VENV set: the error names PATH and ROUTERGEN_VENV's bin.
fn says_where_it_looked(exe: &Path) {
    let work = tempfile::tempdir().unwrap();
    let empty = work.path().join("empty");
    let venv = work.path().join("venv");
    std::fs::create_dir_all(&empty).unwrap();
    let out = Command::new(exe)
        .args(["synth", "--radix", "2", "--vcs", "1", "--depth", "2"])
        .current_dir(work.path())
        .env("PATH", &empty)
        .env("ROUTERGEN_VENV", &venv)
        .output()
        .unwrap();
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("yosys: not found on PATH"), "{err}");
    assert!(err.contains("PATH (1 directories)"), "{err}");
    assert!(
        err.contains(&*venv.join("bin").to_string_lossy()),
        "ROUTERGEN_VENV's bin is not named: {err}"
    );
}

#[test]
fn a_copied_binary_says_where_it_looked_for_a_tool() {
    let dir = tempfile::tempdir().unwrap();
    let exe = dir.path().join("routergen");
    std::fs::copy(env!("CARGO_BIN_EXE_routergen"), &exe).unwrap();
    says_where_it_looked(&exe);
}

/// `cargo install --path . --root DIR` (a release build: minutes; `make
/// install-check`), then the installed binary from an unrelated directory.
#[test]
#[ignore]
fn cargo_install_gives_a_binary_that_finds_its_tools() {
    let root = tempfile::tempdir().unwrap();
    let s = Command::new(env!("CARGO"))
        .args([
            "install",
            "--quiet",
            "--path",
            env!("CARGO_MANIFEST_DIR"),
            "--root",
        ])
        .arg(root.path())
        .status()
        .unwrap();
    assert!(s.success());
    let exe = root.path().join("bin/routergen");
    says_where_it_looked(&exe);
    // From an unrelated directory, with the tools on PATH and the virtual
    // environment named by ROUTERGEN_VENV, it runs and finds them: Yosys
    // on PATH (a block's gate count), SymbiYosys in the environment (a
    // block's proof).
    let run = |args: &[&str]| {
        let out = Command::new(&exe)
            .args(args)
            .current_dir(root.path())
            .env(
                "ROUTERGEN_VENV",
                Path::new(env!("CARGO_MANIFEST_DIR")).join(".venv"),
            )
            .output()
            .unwrap();
        assert!(out.status.success(), "{args:?}: {}", stderr(&out));
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    run(&["check", "--algo", "dor", "--radix", "4"]);
    if routergen::flows::require_tool("yosys") {
        let gates = run(&["block", "crossbar", "--measure", "-o", "crossbar"]);
        assert!(gates.contains("| crossbar_p5_w16 | 5 |"), "{gates}");
    }
    if routergen::flows::require_tool("yowasp-sby") {
        let proof = run(&["block", "header-selector", "--prove", "-o", "hs"]);
        assert!(proof.contains("proved  header_selector_f2_w16"), "{proof}");
    }
}
