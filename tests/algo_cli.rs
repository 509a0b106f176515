//! `routergen check` as users run it.

use std::process::{Command, Output};

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_routergen"))
        .arg("check")
        .args(args)
        .output()
        .expect("routergen runs")
}

fn text(o: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

#[test]
fn a_proved_relation_exits_zero() {
    let o = run(&[
        "--algo",
        "duato",
        "--topology",
        "mesh",
        "--dims",
        "2",
        "--radix",
        "4",
    ]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}{err}");
    assert!(out.contains("verdict: deadlock-free"), "{out}");
    assert!(out.contains("extended dependency graph"), "{out}");
    assert!(out.contains("economical storage 9 entries"), "{out}");
}

#[test]
fn a_torus_ring_without_datelines_exits_one_with_a_cycle() {
    let o = run(&[
        "--algo",
        "dor",
        "--topology",
        "torus",
        "--dims",
        "2",
        "--radix",
        "4",
        "--vcs",
        "1",
    ]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}{err}");
    assert!(out.contains("deadlock possible"), "{out}");
    let cycle = out
        .lines()
        .find(|l| l.starts_with("cycle"))
        .expect("a cycle line");
    // Four channels of one ring, closed: five names, four arrows.
    assert_eq!(cycle.matches(" -> ").count(), 4, "{cycle}");
    assert!(cycle.contains("vc0"), "{cycle}");
}

#[test]
fn duato_with_one_vc_exits_one() {
    let o = run(&["--algo", "duato", "--radix", "3", "--vcs", "1"]);
    let (out, _) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(out.contains("cycle"), "{out}");
}

#[test]
fn node_flag_prints_the_economical_table() {
    let o = run(&["--algo", "north-last", "--radix", "3", "--node", "1,1"]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}{err}");
    assert!(out.contains("economical-storage table at (1,1)"), "{out}");
    let row = out
        .lines()
        .find(|l| l.trim_start().starts_with("(+,-)"))
        .expect("(+,-) entry");
    assert!(row.contains("+x") && row.contains("-y"), "{row}");
    let row = out
        .lines()
        .find(|l| l.trim_start().starts_with("(+,+)"))
        .expect("(+,+) entry");
    assert!(row.contains("+x") && !row.contains("+y"), "{row}");
}

#[test]
fn bad_input_exits_two_with_a_message_and_no_panic() {
    for (args, names) in [
        (
            vec!["--algo", "west-first", "--topology", "torus"],
            "west-first",
        ),
        (vec!["--algo", "dor", "--radix", "1"], "--radix 1"),
        (vec!["--algo", "dor", "--radix", "-3"], "--radix -3"),
        (vec!["--algo", "dor", "--dims", "0"], "--dims 0"),
        (vec!["--algo", "dor", "--vcs", "0"], "--vcs 0"),
        (vec!["--algo", "dor", "--vcs", "99"], "--vcs 99"),
        (
            vec!["--algo", "dor", "--topology", "hypercube", "--radix", "3"],
            "--radix 3",
        ),
        (
            vec!["--algo", "dor", "--radix", "64", "--dims", "3"],
            "nodes",
        ),
        (vec!["--algo", "dor", "--node", "7,7"], "--node"),
        (vec!["--algo", "dor", "--node", "a"], "--node"),
        (
            vec!["--algo", "star-channels", "--topology", "mesh"],
            "star-channels",
        ),
        (vec!["--algo", "planar", "--dims", "1"], "planar"),
        (vec!["--algo", "dor", "--no-dateline"], "--no-dateline"),
        (vec!["--algo", "dor", "--no-escape"], "--no-escape"),
    ] {
        let o = run(&args);
        let (out, err) = text(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {out}{err}");
        assert!(err.contains(names), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
}

#[test]
fn unknown_algorithm_is_a_usage_error() {
    let o = run(&["--algo", "zigzag"]);
    let (_, err) = text(&o);
    assert_eq!(o.status.code(), Some(2));
    assert!(err.contains("zigzag"), "{err}");
}

#[test]
fn exploration_flags_show_what_each_rule_is_for() {
    let o = run(&[
        "--algo",
        "duato",
        "--topology",
        "torus",
        "--radix",
        "4",
        "--no-escape",
    ]);
    let (out, _) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(out.contains("cycle"), "{out}");
    let o = run(&[
        "--algo",
        "dor",
        "--topology",
        "torus",
        "--radix",
        "5",
        "--no-dateline",
    ]);
    let (out, _) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}");
    let o = run(&["--algo", "dor", "--topology", "torus", "--radix", "5"]);
    assert_eq!(o.status.code(), Some(0));
}

// docs/check.md quotes two `routergen check` outputs; they must stay what
// the binary prints.
#[test]
fn the_docs_quote_current_check_output() {
    let doc =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/check.md")).unwrap();
    let quoted = |marker: &str| -> String {
        let start = doc.find(marker).expect("docs/check.md quotes it") + marker.len();
        let start = start + doc[start..].find("```\n").unwrap() + 4;
        doc[start..start + doc[start..].find("```").unwrap()].to_string()
    };
    let (out, _) = text(&run(&[
        "--algo",
        "dor",
        "--topology",
        "torus",
        "--radix",
        "4",
        "--vcs",
        "1",
    ]));
    assert_eq!(
        quoted("`routergen check --algo dor --topology torus --radix 4 --vcs 1` prints:"),
        out
    );
    let (out, _) = text(&run(&[
        "--algo",
        "north-last",
        "--radix",
        "3",
        "--node",
        "1,1",
    ]));
    let table = quoted("`routergen check --algo north-last --radix 3 --node 1,1` prints LAPSES");
    assert!(out.contains(&table), "{table}");
    assert!(table.contains("(+,-)  +x vc0, -y vc0"), "{table}");
}
