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
    proved_and_mutant_caught(BlockKind::Crossbar, params, "| in_tail_1;", "| in_head_1;");
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
        "if (~won_0 & pick_1_v",
        "if (pick_1_v",
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
        "vc_send_req[v] = grant[v];",
        "vc_send_req[v] = grant[v] & (v != 1);",
    );
}

#[test]
fn header_selector_proved_and_mutant_caught() {
    caught(
        BlockKind::HeaderSelector,
        BlockParams::default(),
        "out_hdr = hdr_1;",
        "out_hdr = hdr_0;",
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
fn economical_storage_table_proved_and_mutant_caught() {
    let params = BlockParams {
        flit_width: 8,
        ..BlockParams::default()
    };
    // The mutant's reset table sends (-x, 0) nowhere instead of along -x:
    // only the relation's table, not the block's own, says it is wrong.
    proved_and_mutant_caught(
        BlockKind::EconomicalStorageTable,
        params,
        "mask_d[2*5+o] = init_mask[2*5+o];",
        "mask_d[2*5+o] = init_mask[2*5+o] & (o != 2);",
    );
}

#[test]
fn lookahead_mux_proved_and_mutant_caught() {
    // The mutant writes candidate 1's "local port" bit as bit 1 of the
    // new field.
    caught(
        BlockKind::LookaheadMux,
        BlockParams::default(),
        "if (next_mask_5) begin\n                field = field | bit_0;",
        "if (next_mask_5) begin\n                field = field | bit_1;",
        true,
    );
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

/// A router mutant: the first input buffer drops a flit arriving while it
/// holds one.
const DROPS_A_FLIT: (&str, &str) = (
    "push = in_valid & (count != depth);",
    "push = in_valid & (count != depth) & (count != one);",
);

/// A router mutant: the first output VC starts with 3 credits, not D = 2.
const COUNTS_3_CREDITS: (&str, &str) = (
    "if (rst) credits_d[0 +: 5] = 5'd2;",
    "if (rst) credits_d[0 +: 5] = 5'd3;",
);

/// The router's bounded properties fail, through `make prove` in an output
/// directory, on a router whose address decoders send (+x, +y) heads
/// along +y (not dimension order: the routing property), on one whose
/// first input buffer drops a flit arriving while it holds one (order and
/// conservation), and on one whose first output VC counts 3 credits
/// instead of D = 2 (credit safety).
#[test]
#[ignore = "minutes: make prove"]
fn output_directory_router_mutants_caught() {
    if !tools() || !routergen::flows::require_tool("make") {
        return;
    }
    let (_tmp, dir, name) = moved_output_directory();
    let mutants = [
        ("6'h9: mask = 10'hc;", "6'h9: mask = 10'hc0;"),
        DROPS_A_FLIT,
        COUNTS_3_CREDITS,
    ];
    each_mutant_fails(&dir, name, name, &mutants);
}

/// The router's unbounded credit proof (docs/prove.md) through `make
/// prove` in an output directory: it passes on the generated router and
/// fails on one whose first input buffer returns a credit in every cycle
/// its front flit waits as well as when it leaves (credits more than once
/// per flit), on one whose first buffer drops a flit arriving while it
/// holds one (a flit's credit never returned), and on one whose first
/// output VC counts 3 credits instead of D = 2 (a flit out without a
/// downstream credit).
#[test]
#[ignore = "minutes: make prove"]
fn output_directory_router_credit_proof_and_mutants() {
    proved_then_mutants_fail(
        "credits",
        "",
        &[
            ("credit_out = pop;", "credit_out = out_valid;"),
            DROPS_A_FLIT,
            COUNTS_3_CREDITS,
        ],
    );
}

/// `make prove PROOFS=NAME_job` in a moved output directory passes, then
/// fails on each mutant of the router ([`each_mutant_fails`]), with
/// `narrow` (harness text: assumptions that only remove behaviours) added
/// to the job's harness before the mutants run.
fn proved_then_mutants_fail(job: &str, narrow: &str, mutants: &[(&str, &str)]) {
    if !tools() || !routergen::flows::require_tool("make") {
        return;
    }
    let (_tmp, dir, name) = moved_output_directory();
    let job = format!("{name}_{job}");
    let (ok, text) = make_prove(&dir, &job);
    assert!(ok && text.contains(&format!("proved  {job}")), "{text}");
    if !narrow.is_empty() {
        let harness = dir.join(format!("prove/{job}_formal.sv"));
        let text = std::fs::read_to_string(&harness).unwrap();
        let end = text
            .rfind("endmodule")
            .expect("the harness ends its module");
        std::fs::write(
            &harness,
            format!("{}{narrow}{}", &text[..end], &text[end..]),
        )
        .unwrap();
    }
    each_mutant_fails(&dir, name, &job, mutants);
}

/// Plants each mutant (`from` replaced by `to` once in `rtl/NAME.v`) in
/// turn and requires `make prove PROOFS=job` in `dir` to fail on it.
fn each_mutant_fails(dir: &std::path::Path, name: &str, job: &str, mutants: &[(&str, &str)]) {
    let rtl = dir.join(format!("rtl/{name}.v"));
    let good = std::fs::read_to_string(&rtl).unwrap();
    for (from, to) in mutants {
        assert!(good.contains(from), "no '{from}' in the router");
        std::fs::write(&rtl, good.replacen(from, to, 1)).unwrap();
        let (ok, text) = make_prove(dir, job);
        assert!(
            !ok && text.contains(&format!("FAILED  {job}")),
            "the mutant {from} -> {to} passed:\n{text}"
        );
    }
}

/// The router's unbounded liveness proof (docs/prove.md, N = 20) through
/// `make prove` in an output directory: it passes on the generated router
/// and fails on one whose first input VC is never ready for the switch.
///
/// A counterexample is longer than the bound, and with every input free
/// neither PDR nor bmc3 found one on a starving router in minutes. So the
/// mutant's run narrows the harness's environment to one sender (port 0,
/// VC 0; every other input idle): that only removes behaviours, so a
/// counterexample under it is one of the job as written, and PDR finds it
/// in seconds. On the generated router the narrowed job cannot fail, since
/// the job as written is proved first.
#[test]
#[ignore = "minutes: make prove"]
fn output_directory_router_liveness_proof_and_mutant() {
    let one_sender = "  always @(*) if (!init && !rst) assume(!p1_in_valid && !p2_in_valid && \
                      !p3_in_valid && !p4_in_valid && (!p0_in_valid || p0_in_vc == 0));\n";
    let never_ready = (
        "wire ready_0 = fcu_out_valid[0] & cok[0];",
        "wire ready_0 = 1'b0;",
    );
    proved_then_mutants_fail("liveness", one_sender, &[never_ready]);
}

/// The router's unbounded order and conservation proof (docs/prove.md)
/// through `make prove` in an output directory: it passes on the
/// generated router and fails on one whose input buffers show their slot 0
/// whatever their front slot (they share one module: a flit duplicated and
/// one lost, with every credit still right: only the data path changes).
#[test]
#[ignore = "minutes: make prove"]
fn output_directory_router_order_proof_and_mutants() {
    let wrong_slot = (
        "front = slot_data[(k)*16 +: 16];",
        "front = slot_data[0 +: 16];",
    );
    proved_then_mutants_fail("order", "", &[wrong_slot]);
}
