//! Formal proofs of the blocks (docs/prove.md): each proof passes on the
//! generated RTL and fails, with a counterexample trace, on a mutant, a
//! copy of the RTL with one planted bug, so every proof is shown able to
//! fail. Parameters are small where the proof's time grows with them; the
//! default-size proofs run in the ignored `every_block_proof_at_default_sizes`
//! (`make prove`).

use routergen::blocks::{BlockKind, BlockParams};
use routergen::flows::sby;
use routergen::prove::blocks::proof;

fn tools() -> bool {
    routergen::flows::require_tool("yowasp-sby")
        && routergen::flows::require_tool("z3")
        && sby::available()
}

/// Proves `kind` with `params`, then the mutant with `from` replaced by
/// `to` in its RTL, which must fail (with a trace when `trace`: the
/// bounded check that makes it takes minutes with Z3 on the sequential
/// blocks, seconds on the combinational ones).
fn proved_and_mutant_caught(kind: BlockKind, params: BlockParams, from: &str, to: &str) {
    caught(kind, params, from, to, false)
}

fn caught(kind: BlockKind, params: BlockParams, from: &str, to: &str, trace: bool) {
    if !tools() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let p = proof(kind, &params).unwrap();
    let v = sby::prove(&p, dir.path()).unwrap();
    assert!(v.proved, "{} not proved; see {}", p.name, v.dir.display());
    let rtl = format!("{}.v", kind.name());
    let m = p
        .mutated(&rtl, from, to)
        .unwrap_or_else(|| panic!("{rtl} has no '{from}' to mutate"));
    let v = sby::prove_with(&m, dir.path(), trace).unwrap();
    assert!(
        !v.proved,
        "the mutant of {} ({from} -> {to}) passed",
        p.name
    );
    if trace {
        let t = v.trace.expect("a failed proof writes a trace");
        assert!(t.is_file(), "{} missing", t.display());
    }
}

#[test]
fn flow_control_unit_proved_and_mutant_caught() {
    // The mutant drops a flit that leaves while another arrives.
    proved_and_mutant_caught(
        BlockKind::FlowControlUnit,
        BlockParams::default(),
        "pop = out_valid & out_ready;",
        "pop = out_valid & out_ready & ~in_valid;",
    );
}

#[test]
fn crossbar_proved_and_mutant_caught() {
    let params = BlockParams {
        ports: 3,
        flit_width: 8,
        ..BlockParams::default()
    };
    // The mutant carries input 1's head mark as output 0's tail.
    proved_and_mutant_caught(BlockKind::Crossbar, params, "| in_tail$1;", "| in_head$1;");
}

#[test]
fn routing_arbiter_proved_and_mutant_caught() {
    let params = BlockParams {
        ports: 3,
        ..BlockParams::default()
    };
    // The mutant can grant output 0 to two inputs in one cycle.
    proved_and_mutant_caught(
        BlockKind::RoutingArbiter,
        params,
        "if (~won$0 & pick$1$v",
        "if (pick$1$v",
    );
}

#[test]
fn vc_controller_proved_and_mutant_caught() {
    let params = BlockParams {
        vcs: 2,
        flit_width: 8,
        depth: 2,
        ..BlockParams::default()
    };
    // The mutant sends VC 1's flit without taking it from the buffer.
    proved_and_mutant_caught(
        BlockKind::VcController,
        params,
        "vc$1$send_req = grant$1;",
        "vc$1$send_req = 1'b0;",
    );
}

#[test]
fn header_selector_proved_and_mutant_caught() {
    caught(
        BlockKind::HeaderSelector,
        BlockParams::default(),
        "out_hdr = hdr$1;",
        "out_hdr = hdr$0;",
        true,
    );
}

#[test]
fn address_decoder_proved_and_mutant_caught() {
    // The mutant routes (+x, +y) along +y first: not dimension order.
    caught(
        BlockKind::AddressDecoder,
        BlockParams::default(),
        "6'h9: mask = 5'h2;",
        "6'h9: mask = 5'h8;",
        true,
    );
}

#[test]
fn blocks_without_a_proof_are_refused_by_name() {
    let e = proof(BlockKind::LookaheadMux, &BlockParams::default()).unwrap_err();
    let msg = e.to_string();
    assert!(
        msg.contains("lookahead mux") && msg.contains("flow-control-unit"),
        "{msg}"
    );
}

#[test]
#[ignore = "minutes: make prove"]
fn every_block_proof_at_default_sizes() {
    if !tools() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    for kind in routergen::prove::blocks::PROVED {
        let p = proof(kind, &BlockParams::default()).unwrap();
        let v = sby::prove(&p, dir.path()).unwrap();
        assert!(v.proved, "{} not proved", p.name);
        eprintln!("{}: {:.1} s", p.name, v.seconds);
    }
    for params in [
        BlockParams {
            on_off: true,
            ..BlockParams::default()
        },
        BlockParams {
            buffers: routergen::spec::BufferStorage::Bram,
            ..BlockParams::default()
        },
    ] {
        let p = proof(BlockKind::FlowControlUnit, &params).unwrap();
        let v = sby::prove(&p, dir.path()).unwrap();
        assert!(v.proved, "{} not proved", p.name);
        eprintln!("{}: {:.1} s", p.name, v.seconds);
    }
}

/// The bounded router properties (docs/prove.md) on a 2-D mesh router with
/// 2 VCs, D = 2, dimension order and Duato.
#[test]
#[ignore = "minutes: make prove"]
fn router_bounded_properties_dor_and_duato() {
    use routergen::spec::{Algorithm, SpecInput};
    if !tools() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    for algo in [Algorithm::DimensionOrder, Algorithm::Duato] {
        let spec = SpecInput {
            algorithm: Some(algo),
            vcs: Some(2),
            buffer_depth: Some(2),
            radix: Some(3),
            ..SpecInput::default()
        }
        .resolve()
        .unwrap()
        .spec;
        let p = routergen::prove::router::proof(&spec).unwrap();
        let v = sby::prove(&p, dir.path()).unwrap();
        assert!(v.proved, "{} failed; see {}", p.name, v.dir.display());
        eprintln!("{}: {:.1} s", p.name, v.seconds);
    }
}
