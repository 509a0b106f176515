//! `routergen sim` on the command line: bad input exits 2 naming the bad
//! value; a short run on the rust-hdl engine prints its table and writes
//! CSV, SVG and a trace whose flits account for every packet.

mod common;

use common::{routergen, stderr, stdout};

#[test]
fn bad_sim_input_exits_2_naming_the_value() {
    for (args, needle) in [
        (vec!["sim", "--traffic", "zigzag"], "zigzag"),
        (vec!["sim", "--length", "0"], "'0'"),
        (vec!["sim", "--load", "3"], "load = 3"),
        (vec!["sim", "--load", "3"], "(flag: --load)"),
        (vec!["sim", "--traffic", "hot-spot:0.5:99"], "node 99"),
        (
            vec!["sim", "--radix", "3", "--traffic", "shuffle"],
            "power-of-two",
        ),
        (vec!["sim", "--fmax-mhz", "0"], "--fmax-mhz"),
        (vec!["sim", "--measure", "0"], "--measure"),
    ] {
        let o = routergen(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(needle), "{args:?}: {}", stderr(&o));
    }
}

#[test]
fn short_run_writes_table_csv_svg_and_trace() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("r.csv");
    let svg = dir.path().join("r.svg");
    let trace = dir.path().join("t.csv");
    let o = routergen(&[
        "sim",
        "--engine",
        "rust",
        "--radix",
        "3",
        "--length",
        "2..5",
        "--injection",
        "exponential",
        "--warmup",
        "50",
        "--measure",
        "300",
        "--load",
        "0.4",
        "--csv",
        csv.to_str().unwrap(),
        "--svg",
        svg.to_str().unwrap(),
        "--trace",
        trace.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("latency"), "{}", stdout(&o));
    let c = std::fs::read_to_string(&csv).unwrap();
    assert_eq!(c.lines().count(), 2);
    assert!(c.starts_with("algorithm,load,"));
    assert!(std::fs::read_to_string(&svg).unwrap().contains("<polyline"));
    // Every packet's flits 0..len-1 appear once each, in order.
    let t = std::fs::read_to_string(&trace).unwrap();
    let mut next: std::collections::HashMap<u64, u64> = Default::default();
    let mut rows = 0;
    for line in t.lines().skip(1) {
        let f: Vec<u64> = line.split(',').map(|x| x.parse().unwrap()).collect();
        let want = next.entry(f[2]).or_insert(0);
        assert_eq!(f[3], *want, "packet {} out of order", f[2]);
        *want += 1;
        rows += 1;
    }
    assert!(rows > 100, "{rows} flits");
    assert!(next.values().all(|&n| (2..=5).contains(&n)));
}

/// `routergen bench` on a small mesh: the cycles it ran, and the routers
/// alone never slower than the whole run (their time is part of it) nor
/// above 100% of it.
#[test]
fn bench_reports_the_run_and_the_routers_alone() {
    let o = routergen(&[
        "bench",
        "--engine",
        "rust",
        "--radix",
        "3",
        "--cycles",
        "400",
        "--threads",
        "2",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    let line = out
        .lines()
        .find(|l| l.starts_with("Rust: "))
        .unwrap_or_else(|| panic!("{out}"));
    let num_after = |key: &str| -> f64 {
        let at = line.find(key).unwrap_or_else(|| panic!("{key}: {line}")) + key.len();
        line[at..]
            .split_whitespace()
            .next()
            .and_then(|w| w.trim_end_matches('%').parse().ok())
            .unwrap_or_else(|| panic!("{key}: {line}"))
    };
    // The Rust engine measures a tenth of --cycles (and the reset cycles
    // and the drain come on top).
    assert!(num_after("Rust: ") >= 40.0, "{line}");
    let rate = num_after("s: ");
    let alone = num_after("routers alone ");
    let share = num_after("router-cycle, ");
    assert!(rate > 0.0 && alone >= rate, "{line}");
    assert!(share > 0.0 && share <= 100.0, "{line}");
}
