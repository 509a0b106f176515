//! `routergen fpga`: the bring-up design (the 2x2 network with AXI4-Stream
//! endpoints, a traffic generator and checker on each, UART) is lint-clean
//! for every board, and an Icarus simulation shows the checkers counting
//! the packets, reporting them on the UART, and counting exactly one error
//! when one beat is corrupted or one sequence number skipped.

mod common;

use std::path::Path;
use std::process::Command;

use common::{routergen, stderr};
use routergen::flows::require_tool;

const BOARDS: [&str; 4] = ["icebreaker", "hx8k-breakout", "ulx3s", "orangecrab"];

/// Writes the design for `board` (dimension order, V = 1, D = 2) into `dir`.
fn design(board: &str, dir: &Path) {
    design_of(board, &["--vcs", "1", "--depth", "2"], dir);
}

/// Writes the design for `board` of the router `spec` (options) into `dir`.
fn design_of(board: &str, spec: &[&str], dir: &Path) {
    let mut args = vec!["fpga", "--board", board];
    args.extend_from_slice(spec);
    args.extend(["-o", dir.to_str().unwrap()]);
    let o = routergen(&args);
    assert!(o.status.success(), "{}", stderr(&o));
}

fn rtl_files(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir.join("rtl"))
        .unwrap()
        .map(|e| e.unwrap().path().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

fn top(board: &str) -> String {
    format!("routergen_{}_top", board.replace('-', "_"))
}

#[test]
fn every_board_design_is_lint_clean() {
    if !require_tool("verilator") || !require_tool("iverilog") {
        return;
    }
    for board in BOARDS {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path().join(board);
        design(board, &d);
        assert_lint_clean(board, &d);
        let pins = if board.starts_with("ice") || board.starts_with("hx8k") {
            format!("{board}.pcf")
        } else {
            format!("{board}.lpf")
        };
        assert!(d.join(pins).is_file());
    }
}

/// `verilator --lint-only -Wall` and `iverilog -Wall` say nothing of the
/// design for `board` in `d`.
fn assert_lint_clean(board: &str, d: &Path) {
    let files = rtl_files(d);
    let v = Command::new("verilator")
        .args(["--lint-only", "-Wall", "--top-module", &top(board)])
        .args(&files)
        .output()
        .unwrap();
    assert!(
        v.status.success() && stderr(&v).trim().is_empty(),
        "{board}: {}",
        stderr(&v)
    );
    let i = Command::new("iverilog")
        .args(["-Wall", "-o", "/dev/null", "-s", &top(board)])
        .args(&files)
        .output()
        .unwrap();
    let said = format!("{}{}", stderr(&i), String::from_utf8_lossy(&i.stdout));
    assert!(
        i.status.success() && said.trim().is_empty(),
        "{board}: {said}"
    );
}

/// The testbench: the HX8K board top with a fast UART (4 cycles a bit, a
/// line every 1,000 cycles), a UART receiver written here, and the mesh's
/// counters after `CYCLES` cycles.
const CYCLES: u32 = 3600;
fn testbench() -> String {
    format!(
        r#"`timescale 1ns/1ps
module tb;
    reg clk = 1'b0;
    always #5 clk = ~clk;
    wire [7:0] led;
    wire uart_tx;
    routergen_hx8k_breakout_top top (.clk(clk), .led(led), .uart_tx(uart_tx));
    defparam top.uart.PERIOD = 1000;
    defparam top.uart.DIV = 4;
    reg [7:0] text [0:127];
    integer n = 0;
    integer i, b;
    reg [7:0] c;
    initial begin
        forever begin
            @(negedge uart_tx);
            repeat (2) @(posedge clk);
            for (b = 0; b < 8; b = b + 1) begin
                repeat (4) @(posedge clk);
                c[b] = uart_tx;
            end
            repeat (4) @(posedge clk);
            if (n < 128) begin text[n] = c; n = n + 1; end
        end
    end
    initial begin
        repeat ({CYCLES}) @(posedge clk);
        $display("sent=%0d packets=%0d errors=%0d led1=%0d", top.sent, top.packets,
                 top.errors, led[1]);
        $write("uart=");
        for (i = 0; i < n; i = i + 1) $write("%c", text[i]);
        $display("");
        $finish;
    end
endmodule
"#
    )
}

struct Run {
    sent: u64,
    packets: u64,
    errors: u64,
    led_error: u64,
    uart: String,
}

fn simulate(dir: &Path, defines: &[&str]) -> Run {
    std::fs::write(dir.join("tb.v"), testbench()).unwrap();
    let exe = dir.join(format!("sim{}", defines.len()));
    let mut c = Command::new("iverilog");
    c.args(["-o", exe.to_str().unwrap(), "-s", "tb"]);
    for d in defines {
        c.arg(format!("-D{d}"));
    }
    c.arg(dir.join("tb.v")).args(rtl_files(dir));
    let o = c.output().unwrap();
    assert!(o.status.success(), "iverilog: {}", stderr(&o));
    let o = Command::new("vvp").arg("-n").arg(&exe).output().unwrap();
    let text = String::from_utf8_lossy(&o.stdout).into_owned();
    let field = |name: &str| -> u64 {
        text.split_whitespace()
            .find_map(|w| w.strip_prefix(&format!("{name}=")))
            .and_then(|v| v.parse().ok())
            .unwrap_or_else(|| panic!("no {name} in {text}"))
    };
    let uart = text
        .split_once("uart=")
        .map(|(_, u)| u.to_string())
        .unwrap_or_default();
    Run {
        sent: field("sent"),
        packets: field("packets"),
        errors: field("errors"),
        led_error: field("led1"),
        uart,
    }
}

/// The UART lines "P=hhhhhhhh E=hhhhhhhh\r\n", decoded.
fn uart_lines(text: &str) -> Vec<(u64, u64)> {
    text.split("\r\n")
        .filter_map(|l| {
            let (p, e) = l.strip_prefix("P=")?.split_once(" E=")?;
            if p.len() != 8 || e.len() != 8 {
                return None;
            }
            Some((
                u64::from_str_radix(p, 16).ok()?,
                u64::from_str_radix(e, 16).ok()?,
            ))
        })
        .collect()
}

/// Four generators starting a transfer one cycle in eight when idle: in
/// 3,600 cycles hundreds of packets, no error, all delivered but those in
/// flight: at most one per flit the network holds (4 routers x 5 ports x
/// `v` VCs x `depth` flits of input buffers, 4 ejection queues of `v` x
/// `depth` flits, a flit in each network interface's registers each way).
fn assert_delivered(run: &Run, v: u64, depth: u64) {
    println!(
        "sent={} packets={} errors={}",
        run.sent, run.packets, run.errors
    );
    assert!(run.packets > 200, "packets {}", run.packets);
    assert!(run.packets <= run.sent);
    let held = 4 * 5 * v * depth + 4 * v * depth + 2 * 4;
    assert!(
        run.sent - run.packets <= held,
        "{} sent, {} received",
        run.sent,
        run.packets
    );
    assert_eq!(run.errors, 0);
    assert_eq!(run.led_error, 0);
}

#[test]
#[ignore = "slow: make test-slow"]
fn checkers_count_packets_and_catch_a_corrupted_flit() {
    if !require_tool("iverilog") || !require_tool("vvp") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().join("hx8k");
    design("hx8k-breakout", &d);

    let clean = simulate(&d, &[]);
    assert_delivered(&clean, 1, 2);
    let lines = uart_lines(&clean.uart);
    assert!(lines.len() >= 2, "UART text {:?}", clean.uart);
    assert!(lines.windows(2).all(|w| w[0].0 < w[1].0), "{lines:?}");
    assert!(lines
        .iter()
        .all(|&(p, e)| p > 0 && p <= clean.packets && e == 0));

    let bad = simulate(&d, &["ROUTERGEN_CORRUPT_FLIT"]);
    println!(
        "corrupted: sent={} packets={} errors={}",
        bad.sent, bad.packets, bad.errors
    );
    assert_eq!(bad.errors, 1, "exactly the corrupted flit is flagged");
    assert_eq!(bad.led_error, 1);
    assert!(bad.packets > 200);
    let last = uart_lines(&bad.uart).last().copied().expect("a UART line");
    assert_eq!(last.1, 1, "the UART reports the error: {:?}", bad.uart);

    // A lost transfer: node 0 skips one sequence number.
    let lost = simulate(&d, &["ROUTERGEN_SKIP_SEQUENCE"]);
    assert_eq!(
        lost.errors, 1,
        "exactly the skipped sequence number is flagged"
    );
    assert!(lost.packets > 200);
}

#[test]
fn bad_fpga_requests_exit_2_and_write_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("x");
    let o = routergen(&["fpga", "--board", "arty", "-o", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("arty") && stderr(&o).contains("orangecrab"));
    assert!(!out.exists());

    let o = routergen(&[
        "fpga",
        "--board",
        "icebreaker",
        "--radix",
        "4",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("2x2"), "{}", stderr(&o));
    assert!(!out.exists());

    // Block RAM buffers: 4 routers x 3 wired ports (local, +x or -x, +y
    // or -y) x 3 VCs, one 16-bit-wide SB_RAM40_4K each, against the
    // UP5K's 30 (Lattice data sheet): refused, naming the count. One VC
    // takes 12 (`routergen fpga --buffers bram --build` reports 12 of 30).
    let o = routergen(&[
        "fpga",
        "--board",
        "icebreaker",
        "--radix",
        "2",
        "--buffers",
        "bram",
        "--vcs",
        "3",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let says =
        "take 36 block RAMs of 16-bit flits, and the iCE40UP5K-SG48 of the iCEBreaker has 30";
    assert!(stderr(&o).contains(says), "{}", stderr(&o));
    assert!(!out.exists());
}

/// A router with look-ahead routing, on/off flow control and an adaptive
/// relation (its network interfaces acknowledge each packet): the design
/// lints clean, and every transfer arrives unchanged, all but those the
/// network holds.
#[test]
#[ignore = "slow: make test-slow"]
fn an_adaptive_lookahead_on_off_design_lints_and_delivers() {
    if !require_tool("iverilog") || !require_tool("vvp") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().join("hx8k");
    let spec = [
        "--algo",
        "west-first",
        "--vcs",
        "2",
        "--depth",
        "4",
        "--lookahead",
        "--flow-control",
        "on-off",
    ];
    design_of("hx8k-breakout", &spec, &d);
    if require_tool("verilator") {
        assert_lint_clean("hx8k-breakout", &d);
    }
    assert_delivered(&simulate(&d, &[]), 2, 4);
}
