//! One place for each fact: the limits the spec accepts are the ones the
//! rest builds, the meta table the report describes is the one the router
//! holds, every RTL-changing option changes the module name, and the
//! network interfaces write the head flits the routers read.

mod common;

use std::collections::{BTreeSet, HashMap};
use std::path::Path;

use common::{routergen, stderr, stdout};
use routergen::spec::options::{SpecOption, ValueKind};
use routergen::spec::{RouterSpec, SpecInput, OPTIONS};

fn resolve(toml: &str) -> Result<routergen::spec::RouterSpec, String> {
    SpecInput::from_toml(toml, std::path::Path::new("test.toml"))
        .and_then(|i| i.resolve())
        .map(|r| r.spec)
        .map_err(|e| e.to_string())
}

/// At each limit the spec is accepted and the router builds; one past it
/// the spec is refused, naming the limit.
#[test]
fn the_spec_accepts_what_the_router_builds_and_refuses_the_rest_by_name() {
    let accepted_and_built = [
        "topology = \"mesh\"\ndims = 2\nradix = 64",
        "topology = \"hypercube\"\ndims = 10",
        "buffer_depth = 16",
        "table = \"full\"\nradix = 8",
        "table = \"economical\"\ndims = 4\nradix = 2",
        "flit_width = 64",
    ];
    for toml in accepted_and_built {
        let spec = resolve(toml).unwrap_or_else(|e| panic!("{toml}: {e}"));
        routergen::router::supported(&spec).unwrap_or_else(|e| panic!("{toml}: {e}"));
    }
    let refused = [
        ("topology = \"mesh\"\ndims = 2\nradix = 65", "4096"),
        ("topology = \"hypercube\"\ndims = 11", "1 to 10"),
        ("topology = \"mesh\"\ndims = 8\nradix = 2", "1 to 7"),
        ("buffer_depth = 17", "1 to 16"),
        ("table = \"full\"\nradix = 9", "at most 64 nodes"),
        ("table = \"meta\"\nradix = 17", "at most 256 nodes"),
        (
            "table = \"economical\"\ndims = 5\nradix = 2",
            "at most 4 dimensions",
        ),
        ("flit_width = 8", "16, 32 or 64"),
        (
            "algorithm = \"duato\"\nflow_control = \"on-off\"",
            "allowed with duato: flow_control = credit",
        ),
    ];
    for (toml, says) in refused {
        let err = resolve(toml).expect_err(toml);
        assert!(err.contains(says), "{toml}: {err:?} does not say {says:?}");
    }
}

/// docs/limits.md holds the limits table the code enforces.
#[test]
fn the_limits_page_lists_the_enforced_limits() {
    let page = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/limits.md"))
        .expect("docs/limits.md");
    assert!(
        page.contains(&routergen::limits::to_markdown()),
        "docs/limits.md lacks the table `routergen::limits::to_markdown()` prints"
    );
}

/// The report, `routergen check --node` and the router agree on the meta
/// table's split: a 4-ary 2-D mesh under dimension order routes with the
/// cluster id in x (columns, LAPSES Figure 8b); clusters of rows would
/// lose every output for most destinations.
#[test]
fn the_report_describes_the_meta_table_the_router_holds() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("meta");
    let o = routergen(&[
        "--algo",
        "dor",
        "--radix",
        "4",
        "--table",
        "meta",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let report = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(
        report.contains("cluster id = the coordinates of dimensions 0..1"),
        "the router's table: {report}"
    );
    assert!(
        report.contains(
            "with the cluster id in dimensions 0..1, cluster entries narrow the outputs for 0 \
             and lose all of them for 0 of 240"
        ),
        "the statistics must be those of the router's split: {report}"
    );
    let o = routergen(&["check", "--algo", "dor", "--radix", "4", "--node", "1,1"]);
    let text = stdout(&o);
    assert!(
        text.contains(
            "meta table at (1,1) (4 sub-cluster + 4 cluster entries, cluster id in dimensions 0..1"
        ),
        "{text}"
    );
}

/// Words to try as an option's value: every name of a named option, both
/// switch values, and whole numbers around every limit.
fn words_to_try(option: &SpecOption) -> Vec<String> {
    match option.kind {
        ValueKind::Words(words) => words().into_iter().map(|(w, _)| w.to_string()).collect(),
        ValueKind::Switch => vec!["true".into(), "false".into()],
        ValueKind::Integer => (0..=20)
            .chain([32, 64, 256])
            .map(|n| n.to_string())
            .collect(),
    }
}

/// Two variants of one router can sit in one design: every option that
/// changes the RTL changes the top module's name. Each option of the one
/// declaration (`routergen::spec::OPTIONS`) takes every value it accepts
/// over several bases; no two different specs get one name, and every
/// option is seen with two or more values, so none is missed.
#[test]
fn every_rtl_option_changes_the_module_name() {
    let bases = [
        "",
        "algorithm = \"duato\"",
        "lookahead = true\nflit_width = 32",
        "table = \"meta\"",
        "topology = \"torus\"",
        "topology = \"hypercube\"\ndims = 3",
    ];
    let mut by_name: HashMap<String, RouterSpec> = HashMap::new();
    let mut seen: HashMap<&str, BTreeSet<String>> = HashMap::new();
    for base in bases {
        let input = SpecInput::from_toml(base, Path::new("base.toml")).unwrap();
        for option in OPTIONS {
            for word in words_to_try(option) {
                let mut input = input.clone();
                input.set(option.key, &word).unwrap();
                let Ok(resolved) = input.resolve() else {
                    continue;
                };
                let spec = resolved.spec;
                let value = spec.values().into_iter().find(|(k, _)| *k == option.key);
                seen.entry(option.key).or_default().insert(value.unwrap().1);
                let name = spec.name();
                if let Some(other) = by_name.get(&name) {
                    assert_eq!(other, &spec, "two specs are named {name}");
                }
                by_name.insert(name, spec);
            }
        }
    }
    for option in OPTIONS {
        let values = seen.get(option.key).cloned().unwrap_or_default();
        assert!(
            values.len() >= 2,
            "{} took only {values:?}: add a base where it takes another value",
            option.key
        );
    }
}

/// The printed spec says what `ports` is, beside the physical ports.
#[test]
fn the_printed_ports_are_named() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("d");
    let o = routergen(&["--algo", "duato", "-o", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(
        text.contains("ports          = 9 [Chien's crossbar size P: one crossbar of 9x9; the router has 5 physical ports]"),
        "{text}"
    );
}

/// The network interfaces write absolute addresses on a hypercube as
/// coordinates (docs/interface.md), so packets reach their destinations.
#[test]
fn hypercube_packets_with_absolute_addresses_arrive() {
    let o = routergen(&[
        "sim",
        "--topology",
        "hypercube",
        "--dims",
        "3",
        "--addressing",
        "absolute",
        "--engine",
        "rust",
        "--warmup",
        "20",
        "--measure",
        "200",
        "--load",
        "0.2",
    ]);
    assert!(o.status.success(), "{}{}", stdout(&o), stderr(&o));
}
