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
use routergen::flows::require_tool;
use routergen::interface::HeadFormat;
use routergen::network::{self, NetworkParams};
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

/// Generates the network of `toml`, checks it with the tools, runs every
/// pair's packet through it and checks each arrives where and as sent.
fn every_packet_arrives(toml: &str, link_stages: u32) {
    if !["verilator", "iverilog", "vvp", "yosys"]
        .iter()
        .all(|t| require_tool(t))
    {
        return;
    }
    let spec = spec(toml);
    let params = NetworkParams { link_stages };
    let dir = tempfile::tempdir().unwrap();
    let stages = link_stages.to_string();
    let mut args = vec!["network", "--config"];
    let cfg = dir.path().join("spec.toml");
    std::fs::write(&cfg, toml).unwrap();
    args.push(cfg.to_str().unwrap());
    args.extend(["--link-stages", &stages, "-o"]);
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
    let (tb, packets) = testbench(&spec, &top);
    let tb_file = dir.path().join("tb.v");
    std::fs::write(&tb_file, tb).unwrap();
    let exe = dir.path().join("sim");
    let c = Command::new("iverilog")
        .arg("-o")
        .arg(&exe)
        .arg(&rtl)
        .arg(&tb_file)
        .output()
        .unwrap();
    assert!(c.status.success(), "iverilog: {}", common::stderr(&c));
    let run = Command::new("vvp").arg("-n").arg(&exe).output().unwrap();
    let text = common::stdout(&run);
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
fn a_3x3_torus_with_link_stages_delivers_every_packet() {
    every_packet_arrives(
        "algorithm = \"duato\"\ntopology = \"torus\"\nradix = 3\nvcs = 3\n",
        2,
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
