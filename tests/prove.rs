//! Formal proofs of the blocks (docs/prove.md): each proof passes on the
//! generated RTL and fails, with a counterexample trace where the suite
//! asks for one, on a mutant, a copy of the RTL with one planted bug, so
//! every proof is shown able to fail. These are the checks of the proof
//! suite (`routergen prove --all`, `make prove-all`) that take seconds;
//! the suite itself runs them all as jobs, and a two-job part of it must
//! print the same report on one worker and on two.

mod common;

use routergen::blocks::{BlockKind, BlockParams};
use routergen::flows::sby;
use routergen::prove::blocks::proof;
use routergen::prove::suite;

fn tools() -> bool {
    routergen::flows::require_tool("yowasp-sby")
        && routergen::flows::require_tool("z3")
        && sby::available()
}

/// The suite's check `name`: its proof holds, and each of its mutants
/// fails it (with a trace where the mutant asks for one).
fn proved_and_mutants_caught(name: &str) {
    if !tools() {
        return;
    }
    let check = suite::find(name).unwrap();
    assert!(!check.mutants.is_empty(), "{name} has no mutant");
    let v = suite::run(name, None, None).unwrap();
    assert!(v.proved, "{name} not proved");
    for (k, m) in check.mutants.iter().enumerate() {
        let v = suite::run(name, Some(k), None).unwrap();
        assert!(
            !v.proved,
            "the mutant of {name} ({} -> {}) passed",
            m.from, m.to
        );
        assert_eq!(v.trace.is_some(), m.trace, "{name} mutant {k}: trace");
    }
}

#[test]
fn flow_control_unit_proved_and_mutant_caught() {
    proved_and_mutants_caught("flow_control_unit");
}

#[test]
fn routing_arbiter_proved_and_mutant_caught() {
    proved_and_mutants_caught("routing_arbiter_p3");
}

#[test]
fn vc_controller_proved_and_mutant_caught() {
    proved_and_mutants_caught("vc_controller_v2_w8_d2");
}

#[test]
fn header_selector_proved_and_mutant_caught() {
    proved_and_mutants_caught("header_selector");
}

#[test]
fn address_decoder_proved_and_mutant_caught() {
    proved_and_mutants_caught("address_decoder");
}

#[test]
fn economical_storage_table_proved_and_mutant_caught() {
    proved_and_mutants_caught("economical_storage_table_w8");
}

#[test]
fn lookahead_mux_proved_and_mutant_caught() {
    proved_and_mutants_caught("lookahead_mux");
}

/// `routergen prove --all --only crossbar_p3` (the crossbar's proof and
/// its mutant, two jobs) on two workers and on one: the proof holds, the
/// mutant fails it, and the report is the same, in the suite's order,
/// whichever job ended first.
#[test]
fn a_suite_part_as_jobs_reports_the_same_on_one_worker_and_two() {
    if !tools() {
        return;
    }
    let work = tempfile::tempdir().unwrap();
    let run = |jobs: &str| {
        let plan = work.path().join(format!("plan{jobs}"));
        let o = common::routergen(&[
            "prove",
            "--all",
            "--only",
            "crossbar_p3",
            "-j",
            jobs,
            "--plan",
            plan.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{}", common::stderr(&o));
        assert!(
            common::stderr(&o).contains("2 job(s)"),
            "{}",
            common::stderr(&o)
        );
        common::stdout(&o)
    };
    let two = run("2");
    assert_eq!(
        two,
        "ok      proof crossbar_p3_w8: proved\n\
         ok      crossbar_p3_w8 mutant 0: output 0's tail mark taken from input 1's head mark: fails\n\
         2 of 2 as they must be\n"
    );
    assert_eq!(run("1"), two);
}

#[test]
fn blocks_without_a_proof_are_refused_by_name() {
    let onoff = BlockParams {
        on_off: true,
        ..BlockParams::default()
    };
    let e = proof(BlockKind::VcController, &onoff).unwrap_err();
    let msg = e.to_string();
    assert!(
        msg.contains("vc controller block with on/off") && msg.contains("flow-control-unit"),
        "{msg}"
    );
    // The look-ahead mux's proof reads a mesh router's ports, 2n + 1.
    let four = BlockParams {
        ports: 4,
        ..BlockParams::default()
    };
    let msg = proof(BlockKind::LookaheadMux, &four)
        .unwrap_err()
        .to_string();
    assert!(msg.contains("P = 4") && msg.contains("2n + 1"), "{msg}");
}

/// A 3x3-mesh dimension-order router (V 2, D 2) generated into a
/// directory that is then moved; returns the temp dir, the directory and
/// the router's name.
fn moved_output_directory() -> (tempfile::TempDir, std::path::PathBuf, &'static str) {
    let tmp = tempfile::tempdir().unwrap();
    let made = tmp.path().join("made");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_routergen"))
        .args([
            "--algo", "dor", "--vcs", "2", "--depth", "2", "--radix", "3", "-o",
        ])
        .arg(&made)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let dir = tmp.path().join("moved");
    std::fs::rename(&made, &dir).unwrap();
    (tmp, dir, "router_dor_mesh2d_k3_v2_w16_d2")
}

/// `make prove PROOFS=...` in `dir`: whether it succeeded, what it printed.
fn make_prove(dir: &std::path::Path, proofs: &str) -> (bool, String) {
    // The yowasp tools live in .venv/bin, which a user puts on PATH (or
    // names with SBY=..., docs/prove.md); the test does the former.
    let mut path = routergen::flows::venv_bin_dirs();
    path.extend(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    ));
    let o = std::process::Command::new("make")
        .env("PATH", std::env::join_paths(path).unwrap())
        .arg("-C")
        .arg(dir)
        .arg("prove")
        .arg(format!("PROOFS={proofs}"))
        .output()
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    (o.status.success(), text)
}

/// `make prove` in an output directory (docs/prove.md) after the directory
/// is moved: a block's proof and the router's bounded properties pass.
#[test]
fn output_directory_make_prove_runs_moved() {
    if !tools() || !routergen::flows::require_tool("make") {
        return;
    }
    let (_tmp, dir, name) = moved_output_directory();
    let (ok, text) = make_prove(&dir, &format!("header_selector_f2_w16 {name}"));
    assert!(ok, "{text}");
    assert!(text.contains("proved  header_selector_f2_w16"), "{text}");
    assert!(text.contains(&format!("proved  {name}")), "{text}");
}
