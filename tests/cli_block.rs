//! `routergen block`: emission, bad input, and the gate count.

mod common;

use common::routergen;

/// A fresh directory path inside a temporary directory that is removed
/// when the guard drops.
fn temp_dir() -> (tempfile::TempDir, std::path::PathBuf) {
    let guard = tempfile::tempdir().unwrap();
    let path = guard.path().join("out");
    (guard, path)
}

#[test]
fn writes_one_file_named_after_the_block_with_a_parameterized_top_module() {
    let (_guard, dir) = temp_dir();
    let out = routergen(&[
        "block",
        "crossbar",
        "--ports",
        "3",
        "--flit-width",
        "8",
        "-o",
        dir.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(dir.join("crossbar.v")).unwrap();
    assert!(text.contains("module crossbar_p3_w8 ("));
    assert!(!text.contains("module top"), "rust-hdl's name is gone");
    // The flip-flops are registers of the crossbar (the P x P held
    // connections one vector), and no name has a `$`.
    assert_eq!(text.matches("\nmodule ").count(), 1, "one module");
    assert!(
        text.contains("    reg [8:0] held;  // 9 x 1 bit\n"),
        "{text}"
    );
    assert!(!text.contains('$'));
    // A child module is named after the top, so blocks can share a design.
    let out = routergen(&["block", "vc-controller", "-o", dir.to_str().unwrap()]);
    assert!(out.status.success());
    let text = std::fs::read_to_string(dir.join("vc_controller.v")).unwrap();
    assert!(text.contains("module vc_controller_v2_w16_d4_vc ("));
}

#[test]
fn bad_names_and_values_exit_2_with_a_message_naming_them() {
    let (_guard, dir) = temp_dir();
    let d = dir.to_str().unwrap();
    for (args, needle) in [
        (vec!["block", "router", "-o", d], "'router'"),
        (
            vec!["block", "crossbar", "--flit-width", "12", "-o", d],
            "flit_width = 12 is not supported by the crossbar block; allowed: 8, 16, 32, \
             64 bits (flag: --flit-width)",
        ),
        (
            vec!["block", "crossbar", "--ports", "0", "-o", d],
            "ports = 0 is not a valid block parameter: it must be a positive count (each \
             block narrows the range further) (flag: --ports)",
        ),
        (
            vec!["block", "crossbar", "--ports", "-3", "-o", d],
            "ports = -3 is not a valid block parameter",
        ),
        (
            vec!["block", "vc-controller", "--vcs", "17", "-o", d],
            "vcs = 17",
        ),
        (
            vec![
                "block",
                "routing-arbiter",
                "--ports",
                "3",
                "--freedom",
                "4",
                "-o",
                d,
            ],
            "freedom = 4 is larger than ports = 3",
        ),
        (
            vec![
                "block",
                "address-decoder",
                "--dims",
                "3",
                "--flit-width",
                "8",
                "-o",
                d,
            ],
            "dims = 3 does not fit flit_width = 8",
        ),
        // The block's own parameter and flag: depth, --depth.
        (
            vec![
                "block",
                "vc-controller",
                "--flow-control",
                "on-off",
                "--depth",
                "1",
                "-o",
                d,
            ],
            "needs a depth of 2 or more for the vc controller block (got depth = 1): its \
             levels are high while 2 slots are free, for senders that obey a level a cycle \
             late (flag: --depth)",
        ),
        (vec!["block", "crossbar"], "-o DIR"),
    ] {
        let out = routergen(&args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(needle), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
    assert!(!dir.exists(), "nothing written on bad input");
}

#[test]
fn measure_prints_the_yosys_count_beside_chien() {
    if !routergen::flows::require_tool("yosys") {
        return;
    }
    let out = routergen(&[
        "block",
        "crossbar",
        "--ports",
        "3",
        "--flit-width",
        "8",
        "--measure",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    let row = text
        .lines()
        .find(|l| l.starts_with("| crossbar_p3_w8"))
        .unwrap_or_else(|| panic!("no row in {text}"));
    let cells: Vec<&str> = row.split('|').map(str::trim).collect();
    // | module | P | gates | inverters | flip-flops | Chien | ratio | growth |
    assert_eq!(cells[2], "3");
    let gates: u64 = cells[3].parse().unwrap();
    assert!(gates > 0);
    // Chien Figure 4: 29 P^2 gates for a crossbar.
    assert_eq!(cells[6], "261");
    // 3 x 3 connections held: 9 flip-flops.
    assert_eq!(cells[5], "9");
}
