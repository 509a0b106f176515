//! `routergen sim --waves`: a VCD of chosen routers' ports over a window of
//! cycles. Oracles: a VCD reader written here (IEEE 1364 §18: header,
//! scopes, declarations, value changes), the run's own per-flit delivery
//! trace (`--trace`: every flit that left a node's local port, and when),
//! the flits' contents as docs/interface.md and docs/sim.md give them, and
//! the port numbering and wiring of docs/interface.md (a link carries what
//! the router across it drives).

mod common;

use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::process::{Command, Output};

use common::{routergen, stderr, stdout};

/// A VCD as read here: per variable (scope path, e.g. `node_5.p1_out_data`)
/// its width and its value changes (time, value; `None` for x).
struct Vcd {
    /// ps per time unit.
    unit_ps: u64,
    width: HashMap<String, u32>,
    changes: HashMap<String, Vec<(u64, Option<u64>)>>,
    /// Every time stamp, in order.
    times: Vec<u64>,
}

impl Vcd {
    /// The value of `var` at time `at` (after the changes at `at`).
    fn at(&self, var: &str, at: u64) -> Option<u64> {
        let ch = self
            .changes
            .get(var)
            .unwrap_or_else(|| panic!("{var} is not in the VCD"));
        ch.iter()
            .take_while(|(t, _)| *t <= at)
            .last()
            .unwrap_or_else(|| panic!("{var} has no value at {at}"))
            .1
    }
}

/// Reads a VCD; panics on anything malformed: a `$` section without its
/// `$end`, unbalanced scopes, a variable without a width or name, a code
/// declared twice in one scope, a value for an undeclared code, a time
/// that does not increase, a value before the first time.
fn read_vcd(text: &str) -> Vcd {
    let mut words = text.split_whitespace().peekable();
    let mut scope: Vec<String> = Vec::new();
    let mut by_code: HashMap<String, Vec<String>> = HashMap::new();
    let mut width = HashMap::new();
    let mut unit_ps = None;
    let section = |words: &mut std::iter::Peekable<std::str::SplitWhitespace>| {
        let mut body = Vec::new();
        for w in words.by_ref() {
            if w == "$end" {
                return body;
            }
            body.push(w.to_string());
        }
        panic!("a section without $end");
    };
    loop {
        let w = words.next().expect("no $enddefinitions");
        match w {
            "$version" | "$comment" | "$date" => {
                section(&mut words);
            }
            "$timescale" => {
                let s = section(&mut words).concat();
                let (n, unit) = s.split_at(s.find(|c: char| !c.is_ascii_digit()).unwrap());
                let n: u64 = n.parse().unwrap();
                let per = match unit {
                    "ps" => 1,
                    "ns" => 1000,
                    "us" => 1_000_000,
                    u => panic!("timescale unit {u}"),
                };
                unit_ps = Some(n * per);
            }
            "$scope" => {
                let s = section(&mut words);
                assert_eq!(s.len(), 2, "$scope KIND NAME $end: {s:?}");
                scope.push(s[1].clone());
            }
            "$upscope" => {
                assert!(section(&mut words).is_empty());
                scope.pop().expect("$upscope outside any scope");
            }
            "$var" => {
                let s = section(&mut words);
                assert!((4..=5).contains(&s.len()), "$var: {s:?}");
                let bits: u32 = s[1].parse().expect("a width");
                if let Some(range) = s.get(4) {
                    assert_eq!(range, &format!("[{}:0]", bits - 1), "range of {s:?}");
                }
                let name = format!("{}.{}", scope.join("."), s[3]);
                assert!(
                    width.insert(name.clone(), bits).is_none(),
                    "{name} declared twice"
                );
                by_code.entry(s[2].clone()).or_default().push(name);
            }
            "$enddefinitions" => {
                section(&mut words);
                break;
            }
            other => panic!("unexpected {other} in the header"),
        }
    }
    assert!(scope.is_empty(), "scopes left open: {scope:?}");
    let mut changes: HashMap<String, Vec<(u64, Option<u64>)>> = HashMap::new();
    let mut times: Vec<u64> = Vec::new();
    let mut set = |code: &str, value: Option<u64>, times: &Vec<u64>| {
        let now = *times.last().expect("a value before the first time");
        let names = by_code
            .get(code)
            .unwrap_or_else(|| panic!("value for undeclared code {code}"));
        for n in names {
            changes.entry(n.clone()).or_default().push((now, value));
        }
    };
    while let Some(w) = words.next() {
        if let Some(t) = w.strip_prefix('#') {
            let t: u64 = t.parse().expect("a time");
            assert!(times.last().map_or(true, |&l| l < t), "time {t} goes back");
            times.push(t);
        } else if w == "$dumpvars" || w == "$end" {
        } else if let Some(bits) = w.strip_prefix('b') {
            let code = words.next().expect("a code after a vector value");
            let v = u64::from_str_radix(bits, 2).ok();
            assert!(v.is_some() || bits == "x", "vector value {bits}");
            set(code, v, &times);
        } else {
            let (v, code) = w.split_at(1);
            let v = match v {
                "0" => Some(0),
                "1" => Some(1),
                "x" => None,
                _ => panic!("scalar value {w}"),
            };
            set(code, v, &times);
        }
    }
    Vcd {
        unit_ps: unit_ps.expect("no $timescale"),
        width,
        changes,
        times,
    }
}

fn sim_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_routergen"))
        .arg("sim")
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap()
}

/// Body flit `i` of packet `id` as the network interfaces write it
/// (docs/sim.md: every flit is checked against its packet; the body
/// flits carry a hash of the packet and index, SplitMix64's finalizer of
/// `id << 20 | i`), at 32 bits.
fn body(id: u64, i: u64) -> u64 {
    let mut z = (id << 20 | i).wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    (z ^ (z >> 31)) & 0xFFFF_FFFF
}

const PORT_SIGNALS: [&str; 12] = [
    "in_data",
    "in_valid",
    "in_head",
    "in_tail",
    "in_vc",
    "in_credit",
    "out_data",
    "out_valid",
    "out_head",
    "out_tail",
    "out_vc",
    "out_credit",
];

/// The 4x4 mesh of `routergen sim`'s defaults (dimension order, 1 VC,
/// 32-bit flits) on the rust-hdl engine, nodes 0, 1 and 5 over cycles
/// 40..160 at a 100 MHz clock (10,000 ps a cycle): the VCD is well formed,
/// declares every documented port of every node, changes nothing outside
/// the window, shows each flit the delivery trace has leaving a node's
/// local port in the window at that cycle on p0 with its data, head and
/// tail (and no other flit there), and on each link what the router across
/// it drives.
#[test]
fn waves_show_the_ports_the_trace_and_links_give() {
    let tmp = tempfile::tempdir().unwrap();
    let (a, b, period) = (40u64, 160u64, 10_000u64);
    let o = sim_in(
        tmp.path(),
        &[
            "--engine",
            "rust",
            "--warmup",
            "30",
            "--measure",
            "200",
            "--load",
            "0.5",
            "--fmax-mhz",
            "100",
            "--trace",
            "trace.csv",
            "--waves",
            "5,0,1",
            "--waves-cycles",
            &format!("{a}..{b}"),
            "--waves-file",
            "w.vcd",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stdout(&o).contains(&format!("waveform: w.vcd (cycles {a}..{b})")),
        "{}",
        stdout(&o)
    );
    let vcd = read_vcd(&std::fs::read_to_string(tmp.path().join("w.vcd")).unwrap());
    assert_eq!(vcd.unit_ps, 1);
    let nodes = [0u64, 1, 5];
    // Every documented port (docs/interface.md, "Ports"), 5 ports on the
    // 2-D mesh, with its width (W = 32, V = 1, VB = 1).
    for n in nodes {
        for sig in ["clk", "rst"] {
            assert_eq!(vcd.width.get(&format!("node_{n}.{sig}")), Some(&1));
        }
        for p in 0..5 {
            for sig in PORT_SIGNALS {
                let name = format!("node_{n}.p{p}_{sig}");
                let want = if sig.ends_with("data") { 32 } else { 1 };
                assert_eq!(vcd.width.get(&name), Some(&want), "{name}");
            }
        }
    }
    assert_eq!(vcd.width.len(), 3 * (2 + 5 * 12));
    // Nothing outside the window: from the rising edge that starts cycle a
    // to the falling edge in cycle b.
    assert_eq!(vcd.times.first(), Some(&(a * period)));
    assert_eq!(vcd.times.last(), Some(&(b * period + period / 2)));
    // The clock rises at the start of every cycle.
    for t in a..=b {
        assert_eq!(vcd.at("node_0.clk", t * period), Some(1), "cycle {t}");
        assert_eq!(vcd.at("node_5.clk", t * period + period / 2), Some(0));
    }

    // The trace: (node, cycle, packet, flit).
    let text = std::fs::read_to_string(tmp.path().join("trace.csv")).unwrap();
    let rows: Vec<[u64; 4]> = text
        .lines()
        .skip(1)
        .map(|l| {
            let v: Vec<u64> = l.split(',').map(|x| x.parse().unwrap()).collect();
            [v[0], v[1], v[2], v[3]]
        })
        .collect();
    let mut len: HashMap<u64, u64> = HashMap::new();
    for r in &rows {
        let l = len.entry(r[2]).or_default();
        *l = (*l).max(r[3] + 1);
    }
    let mut seen = HashSet::new();
    for &[n, t, id, i] in rows
        .iter()
        .filter(|r| nodes.contains(&r[0]) && (a..=b).contains(&r[1]))
    {
        let at = t * period;
        let sig = |s: &str| vcd.at(&format!("node_{n}.p0_{s}"), at);
        // A head arrives with its address fields all zero (relative
        // addressing, docs/interface.md), the packet's tag above the two
        // 3-bit fields of the 4-ary mesh.
        let data = if i == 0 { id << 6 } else { body(id, i) };
        assert_eq!(sig("out_valid"), Some(1), "node {n} cycle {t}");
        assert_eq!(sig("out_data"), Some(data), "node {n} cycle {t} flit {i}");
        assert_eq!(sig("out_head"), Some(u64::from(i == 0)));
        assert_eq!(sig("out_tail"), Some(u64::from(i + 1 == len[&id])));
        seen.insert((n, t));
    }
    assert!(
        seen.len() > 20,
        "{} flits delivered in the window",
        seen.len()
    );
    for n in nodes {
        for t in a..=b {
            if vcd.at(&format!("node_{n}.p0_out_valid"), t * period) == Some(1) {
                assert!(
                    seen.contains(&(n, t)),
                    "node {n} ejects at {t}: not in the trace"
                );
            }
        }
    }

    // Links (docs/interface.md: port 2d+1 leads +d, 2d+2 -d): node 0's +x
    // port to node 1's -x port, node 1's +y port to node 5's -y port, and
    // back; node 0's -x port is at the mesh edge, tied off.
    let mut moved = 0;
    for (from, p, to, q) in [(0, 1, 1, 2), (1, 2, 0, 1), (1, 3, 5, 4), (5, 4, 1, 3)] {
        for t in a..=b {
            let at = t * period;
            for s in ["data", "valid", "head", "tail", "vc"] {
                let sent = vcd.at(&format!("node_{from}.p{p}_out_{s}"), at);
                let got = vcd.at(&format!("node_{to}.p{q}_in_{s}"), at);
                assert_eq!(
                    sent, got,
                    "{s}: node {from} p{p} to node {to} p{q}, cycle {t}"
                );
            }
            let credit = vcd.at(&format!("node_{to}.p{q}_in_credit"), at);
            let seen_up = vcd.at(&format!("node_{from}.p{p}_out_credit"), at);
            assert_eq!(
                credit, seen_up,
                "credit node {to} p{q} to node {from}, cycle {t}"
            );
            moved += vcd.at(&format!("node_{from}.p{p}_out_valid"), at).unwrap();
        }
    }
    assert!(moved > 10, "{moved} flits on the links watched");
    for t in a..=b {
        assert_eq!(vcd.at("node_0.p2_in_valid", t * period), Some(0));
        assert_eq!(vcd.at("node_0.p2_out_credit", t * period), Some(0));
    }
}

/// Without --waves-cycles the waveform covers the measurement phase's
/// first cycles (all of them here, fewer than 1000) and goes to waves.vcd
/// in the working directory.
#[test]
fn waves_default_to_the_measurement_phase() {
    let tmp = tempfile::tempdir().unwrap();
    let o = sim_in(
        tmp.path(),
        &[
            "--engine",
            "rust",
            "--radix",
            "3",
            "--warmup",
            "20",
            "--measure",
            "30",
            "--fmax-mhz",
            "250",
            "--waves",
            "4",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("waveform: waves.vcd (cycles 20..49)"));
    let vcd = read_vcd(&std::fs::read_to_string(tmp.path().join("waves.vcd")).unwrap());
    assert_eq!(vcd.times.first(), Some(&(20 * 4000)));
    assert_eq!(vcd.times.last(), Some(&(49 * 4000 + 2000)));
    assert!(vcd.width.keys().all(|k| k.starts_with("node_4.")));
}

/// Bad --waves arguments exit 2 before anything runs, naming the value and
/// what is allowed, and leave no file.
#[test]
fn bad_waves_arguments_exit_2_naming_the_value() {
    let tmp = tempfile::tempdir().unwrap();
    for (args, needles) in [
        (vec!["--waves", "16"], vec!["node 16", "0 to 15"]),
        (
            vec!["--waves", "0", "--waves-cycles", "9..3"],
            vec!["'9..3'", "A <= B"],
        ),
        (
            vec!["--waves", "0", "--waves-cycles", "0..9999"],
            vec!["9999", "after the run's last cycle", "2999"],
        ),
        (
            vec!["--waves", "0", "--waves-cycles", "5"],
            vec!["'5'", "A..B"],
        ),
        (
            vec!["--waves", "0", "--waves-cycles", "1..z"],
            vec!["'z'", "A..B"],
        ),
        (vec!["--waves-cycles", "1..3"], vec!["--waves"]),
        (vec!["--waves-file", "x.vcd"], vec!["--waves"]),
        (
            vec!["--waves", "0", "--load", "0.1,0.2"],
            vec!["--waves", "one"],
        ),
        (vec!["--waves", "zero"], vec!["zero"]),
    ] {
        let mut all = vec![
            "--engine",
            "rust",
            "--warmup",
            "1000",
            "--measure",
            "1000",
            "--drain",
            "1000",
        ];
        all.extend(&args);
        let o = sim_in(tmp.path(), &all);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        for n in needles {
            assert!(stderr(&o).contains(n), "{args:?}: {}", stderr(&o));
        }
    }
    let left: Vec<_> = std::fs::read_dir(tmp.path()).unwrap().collect();
    assert!(left.is_empty(), "{left:?}");
    // The option is in the help.
    let help = stdout(&routergen(&["sim", "--help"]));
    assert!(help.contains("--waves-cycles"), "{help}");
}
