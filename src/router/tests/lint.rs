//! Verilator, Icarus and Yosys on the emitted Verilog.

use super::*;

/// Verilator -Wall and iverilog -Wall on every configuration of `configs`,
/// Yosys synth on those marked.
pub(crate) fn lint_and_synth(configs: &[(RouterSpec, bool)]) {
    use crate::flows::{lint_warnings, require_tool, yosys};
    if !require_tool("verilator") || !require_tool("iverilog") || !require_tool("yosys") {
        return;
    }
    for (s, synth) in configs {
        let t0 = std::time::Instant::now();
        // Two-flit buffers: the same logic, less for Yosys to synthesize.
        let s = &RouterSpec {
            buffer_depth: 2,
            ..s.clone()
        };
        let text = verilog(s).expect("supported");
        let tv = t0.elapsed();
        let top = s.name();
        let lint = lint_warnings(&text, &top).expect("the linters run");
        assert!(lint.is_empty(), "{top}:\n{}", lint.join("\n"));
        let t1 = t0.elapsed();
        if *synth {
            let cells = yosys::synth(&text, &top).expect("yosys synth");
            assert!(cells.flip_flops() > 0, "{top}: synth kept no flip-flops");
        }
        eprintln!(
            "{top}: verilog {tv:?}, lint+iverilog {:?}, yosys {:?}",
            t1 - tv,
            t0.elapsed() - t1
        );
    }
}

/// The suite's share of `configs`: every configuration linted, the first
/// of those marked for synthesis synthesized (all of them in the ignored
/// `*_all` tests, `make test-slow`: Yosys takes 6 to 18 s a router, lint
/// about 1 s).
fn lint_all_synthesize_one(configs: &[(RouterSpec, bool)]) {
    let first = configs.iter().position(|(_, synth)| *synth);
    let sample: Vec<(RouterSpec, bool)> = configs
        .iter()
        .enumerate()
        .map(|(i, (s, synth))| (s.clone(), *synth && Some(i) == first))
        .collect();
    lint_and_synth(&sample);
}

/// Meshes: every mesh-only algorithm synthesized, the others linted.
fn emitted_verilog_lints_and_synthesizes_meshes_configs() -> Vec<(RouterSpec, bool)> {
    vec![
        (
            spec_with(Algorithm::WestFirst, 4, 1, PathSelection::Lru),
            true,
        ),
        (
            absolute(spec_with(
                Algorithm::NorthLast,
                4,
                1,
                PathSelection::StaticXy,
            )),
            true,
        ),
        (spec(Algorithm::PlanarAdaptive, 4, 2), true),
        (spec(Algorithm::DimensionOrder, 4, 1), false),
        (
            RouterSpec {
                flit_width: 32,
                ..spec_with(Algorithm::NegativeFirst, 4, 1, PathSelection::MaxCredit)
            },
            false,
        ),
        (
            spec_with(Algorithm::Duato, 4, 2, PathSelection::MinMux),
            false,
        ),
    ]
}

#[test]
fn emitted_verilog_lints_and_synthesizes_meshes() {
    lint_all_synthesize_one(&emitted_verilog_lints_and_synthesizes_meshes_configs());
}

/// Every configuration of the test above synthesized (`make test-slow`).
#[test]
#[ignore = "slow: make test-slow"]
fn emitted_verilog_lints_and_synthesizes_meshes_all() {
    lint_and_synth(&emitted_verilog_lints_and_synthesizes_meshes_configs());
}

/// Meshes with the options that change the datapath: routing tables, on/off
/// flow control, look-ahead and the one-cycle pipeline (two tests, so that
/// the suite's threads share them).
fn emitted_verilog_lints_and_synthesizes_mesh_options_configs() -> Vec<(RouterSpec, bool)> {
    vec![
        (economical(spec(Algorithm::DimensionOrder, 4, 1)), true),
        (full_table(spec(Algorithm::DimensionOrder, 4, 1)), true),
        (meta_table(spec(Algorithm::DimensionOrder, 4, 1)), false),
        (
            full_table(spec_with(Algorithm::Duato, 4, 2, PathSelection::MaxCredit)),
            false,
        ),
        (
            economical(spec_with(Algorithm::Duato, 4, 2, PathSelection::MaxCredit)),
            false,
        ),
        (on_off(spec(Algorithm::DimensionOrder, 4, 2), 2), true),
        (lookahead(spec(Algorithm::DimensionOrder, 4, 1), 16), true),
        (
            RouterSpec {
                pipeline: 1,
                ..lookahead(spec(Algorithm::DimensionOrder, 4, 2), 32)
            },
            true,
        ),
        (
            RouterSpec {
                pipeline: 1,
                ..lookahead(
                    spec_with(Algorithm::Duato, 4, 2, PathSelection::MaxCredit),
                    32,
                )
            },
            false,
        ),
        (
            lookahead(
                spec_with(Algorithm::Duato, 4, 2, PathSelection::MaxCredit),
                32,
            ),
            false,
        ),
        (
            on_off(
                spec_with(Algorithm::WestFirst, 4, 2, PathSelection::MaxCredit),
                2,
            ),
            false,
        ),
    ]
}

#[test]
fn emitted_verilog_lints_and_synthesizes_mesh_options() {
    lint_all_synthesize_one(&emitted_verilog_lints_and_synthesizes_mesh_options_configs());
}

/// Every configuration of the test above synthesized (`make test-slow`).
#[test]
#[ignore = "slow: make test-slow"]
fn emitted_verilog_lints_and_synthesizes_mesh_options_all() {
    lint_and_synth(&emitted_verilog_lints_and_synthesizes_mesh_options_configs());
}

/// Tori and hypercubes: dimension order (on a unidirectional torus too,
/// with an economical table), *-channels, negative-first and Duato
/// synthesized (with the meshes' test, every algorithm and every
/// topology), planar-adaptive on a torus linted.
fn emitted_verilog_lints_and_synthesizes_tori_and_hypercubes_configs() -> Vec<(RouterSpec, bool)> {
    vec![
        (
            spec_on(Algorithm::DimensionOrder, Topology::Torus, 2, 4, 2),
            true,
        ),
        (
            spec_on(Algorithm::DimensionOrder, Topology::UniTorus, 2, 3, 2),
            true,
        ),
        (
            economical(spec_on(
                Algorithm::DimensionOrder,
                Topology::UniTorus,
                2,
                4,
                2,
            )),
            false,
        ),
        (
            absolute(spec_on(Algorithm::StarChannels, Topology::Torus, 2, 3, 3)),
            true,
        ),
        (
            spec_on(Algorithm::NegativeFirst, Topology::Hypercube, 3, 2, 1),
            true,
        ),
        (
            absolute(spec_on(Algorithm::Duato, Topology::Hypercube, 2, 2, 2)),
            true,
        ),
        (
            spec_on(Algorithm::PlanarAdaptive, Topology::Torus, 2, 4, 8),
            false,
        ),
        (
            economical(spec_on(
                Algorithm::NegativeFirst,
                Topology::Hypercube,
                3,
                2,
                2,
            )),
            false,
        ),
    ]
}

#[test]
fn emitted_verilog_lints_and_synthesizes_tori_and_hypercubes() {
    lint_all_synthesize_one(&emitted_verilog_lints_and_synthesizes_tori_and_hypercubes_configs());
}

/// Every configuration of the test above synthesized (`make test-slow`).
#[test]
#[ignore = "slow: make test-slow"]
fn emitted_verilog_lints_and_synthesizes_tori_and_hypercubes_all() {
    lint_and_synth(&emitted_verilog_lints_and_synthesizes_tori_and_hypercubes_configs());
}

/// The whole matrix: every configuration of [`matrix`] built, linted
/// (Verilator -Wall, Icarus -Wall) and run through the scoreboard at a
/// node next to the wraparound links or the mesh corner and at an inner
/// node. `cargo test --release matrix_every_configuration -- --ignored
/// --nocapture`; prints each configuration's times.
#[test]
#[ignore]
fn matrix_every_configuration_builds_lints_and_passes_the_scoreboard() {
    use crate::flows::{lint_warnings, require_tool};
    let tools = require_tool("verilator") && require_tool("iverilog");
    let t0 = std::time::Instant::now();
    let m = matrix();
    for (n, s) in m.iter().enumerate() {
        let t = std::time::Instant::now();
        let text = verilog(s).expect("supported");
        let built = t.elapsed();
        if tools {
            let lint = lint_warnings(&text, &s.name()).expect("the linters run");
            assert!(lint.is_empty(), "{}:\n{}", s.name(), lint.join("\n"));
        }
        let linted = t.elapsed();
        let net = Network::new(s.topology, s.dims, s.radix).unwrap();
        let inner: Vec<u32> = (0..s.dims).map(|d| 1 + d % (s.radix - 1)).collect();
        let edge: Vec<u32> = (0..s.dims)
            .map(|d| if d % 2 == 0 { 0 } else { s.radix - 1 })
            .collect();
        let packets = (48 / (s.physical_ports() * s.vcs) as usize).max(2);
        for (i, at) in [edge, inner].iter().enumerate() {
            run(s, net.node_at(at), packets, 0x3a7 + (2 * n + i) as u64);
        }
        eprintln!(
            "[{}/{}] {}: verilog {built:?}, lint {:?}, scoreboard {:?} (total {:?})",
            n + 1,
            m.len(),
            s.name(),
            linted - built,
            t.elapsed() - linted,
            t0.elapsed()
        );
    }
}
