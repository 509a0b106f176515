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
        (vec!["sim", "--seeds", "0"], "'0'"),
        (vec!["sim", "--seeds", "101"], "1..=100"),
        (
            vec!["sim", "--seeds", "3", "--sweep"],
            "--seeds 3 with --sweep",
        ),
        (vec!["sim", "--seeds", "2", "--trace", "t.csv"], "one seed"),
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

/// `--seeds 3`: three runs per load with seeds 4, 5, 6 in the CSV, and
/// the printed mean and 95% interval are those of the three runs' mean
/// latencies, recomputed here from the CSV (t(0.975, 2) = 4.303 from the
/// printed table of Student's t).
#[test]
fn seeds_replicate_each_point_with_a_confidence_interval() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("r.csv");
    let o = routergen(&[
        "sim",
        "--engine",
        "rust",
        "--radix",
        "3",
        "--warmup",
        "50",
        "--measure",
        "300",
        "--load",
        "0.3",
        "--seed",
        "4",
        "--seeds",
        "3",
        "--csv",
        csv.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("3 replications (seeds 4 to 6)"), "{out}");
    let c = std::fs::read_to_string(&csv).unwrap();
    let header: Vec<&str> = c.lines().next().unwrap().split(',').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let rows: Vec<Vec<&str>> = c.lines().skip(1).map(|l| l.split(',').collect()).collect();
    let seeds: Vec<&str> = rows.iter().map(|r| r[col("seed")]).collect();
    assert_eq!(seeds, ["4", "5", "6"]);
    let lat: Vec<f64> = rows
        .iter()
        .map(|r| r[col("mean_latency_cycles")].parse().unwrap())
        .collect();
    assert!(
        lat[0] != lat[1] || lat[1] != lat[2],
        "{lat:?}: seeds change nothing"
    );
    let mean = lat.iter().sum::<f64>() / 3.0;
    let sd = (lat.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / 2.0).sqrt();
    let half = 4.303 * sd / 3f64.sqrt();
    let line = out
        .lines()
        .skip_while(|l| !l.contains("replications"))
        .find(|l| l.starts_with("dor "))
        .unwrap_or_else(|| panic!("{out}"));
    let words: Vec<&str> = line.split_whitespace().collect();
    let (m, h): (f64, f64) = (words[3].parse().unwrap(), words[5].parse().unwrap());
    assert_eq!(words[4], "±", "{line}");
    // The CSV's latencies carry two decimals.
    assert!((m - mean).abs() < 0.01, "{line}: mean {mean}");
    assert!((h - half).abs() < 0.05, "{line}: half-width {half}");
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
