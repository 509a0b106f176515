//! The top module's ports, the configurations refused and the matrix of
//! those built.

use super::*;

/// The top module's ports, written from docs/interface.md: (name, input,
/// width) in the document's order. `node_id` is present with absolute
/// addressing, on tori, and on hypercubes under negative-first.
pub(crate) fn interface_ports(spec: &RouterSpec) -> Vec<(String, bool, u32)> {
    let w = spec.flit_width;
    let v = spec.vcs;
    let vb = if v <= 1 {
        1
    } else {
        32 - (v - 1).leading_zeros()
    };
    let mut ports = vec![("clk".to_string(), true, 1), ("rst".to_string(), true, 1)];
    let node = spec.addressing == Addressing::Absolute
        || matches!(spec.topology, Topology::Torus | Topology::UniTorus)
        || (spec.topology == Topology::Hypercube && spec.algorithm == Algorithm::NegativeFirst);
    if node {
        ports.push((
            "node_id".to_string(),
            true,
            spec.dims * coord_bits(spec) as u32,
        ));
    }
    // docs/interface.md, "Ports": one link port per dimension on a
    // hypercube and a unidirectional torus, two elsewhere.
    let p = match spec.topology {
        Topology::Hypercube | Topology::UniTorus => spec.dims + 1,
        Topology::Mesh | Topology::Torus => 2 * spec.dims + 1,
    };
    if spec.table != TableStorage::None {
        // Economical: 3^n entries; full: one per node. The cases below
        // need at most two VC classes.
        let entries = match spec.table {
            TableStorage::Full => spec.nodes() as u32,
            // k^ceil(n/2) sub-cluster and k^floor(n/2) cluster entries.
            TableStorage::Meta => {
                spec.radix.pow(spec.dims.div_ceil(2)) + spec.radix.pow(spec.dims / 2)
            }
            _ => 3u32.pow(spec.dims),
        };
        ports.push(("cfg_we".to_string(), true, 1));
        ports.push((
            "cfg_addr".to_string(),
            true,
            32 - (entries - 1).leading_zeros(),
        ));
        ports.push(("cfg_mask".to_string(), true, p));
        ports.push(("cfg_class".to_string(), true, 1));
    }
    for p in 0..p {
        for (sig, input, width) in [
            ("in_data", true, w),
            ("in_valid", true, 1),
            ("in_head", true, 1),
            ("in_tail", true, 1),
            ("in_vc", true, vb),
            ("in_credit", false, v),
            ("out_data", false, w),
            ("out_valid", false, 1),
            ("out_head", false, 1),
            ("out_tail", false, 1),
            ("out_vc", false, vb),
            ("out_credit", true, v),
        ] {
            ports.push((format!("p{p}_{sig}"), input, width));
        }
    }
    ports
}

/// The ports declared in module `name` of `verilog` (ANSI style).
pub(crate) fn declared_ports(verilog: &str, name: &str) -> Vec<(String, bool, u32)> {
    crate::emit::module_ports(verilog, name).expect("top module present")
}

#[test]
fn top_module_has_exactly_the_documented_ports() {
    let mut cases = vec![
        spec(Algorithm::DimensionOrder, 4, 1),
        spec(Algorithm::DimensionOrder, 5, 2),
        spec(Algorithm::DimensionOrder, 4, 3),
        absolute(spec(Algorithm::Duato, 8, 2)),
        RouterSpec {
            flit_width: 64,
            ..spec(Algorithm::WestFirst, 4, 2)
        },
        spec_on(Algorithm::PlanarAdaptive, Topology::Torus, 2, 4, 9),
        spec_on(Algorithm::StarChannels, Topology::Torus, 2, 5, 3),
        spec_on(Algorithm::DimensionOrder, Topology::Hypercube, 3, 2, 1),
        spec_on(Algorithm::NegativeFirst, Topology::Hypercube, 3, 2, 2),
        absolute(spec_on(Algorithm::Duato, Topology::Hypercube, 4, 2, 2)),
        economical(spec(Algorithm::DimensionOrder, 4, 1)),
        economical(spec(Algorithm::Duato, 4, 2)),
        economical(spec_on(Algorithm::DimensionOrder, Topology::Mesh, 3, 3, 2)),
        full_table(spec(Algorithm::DimensionOrder, 4, 1)),
        full_table(spec_on(
            Algorithm::DimensionOrder,
            Topology::Hypercube,
            3,
            2,
            1,
        )),
        meta_table(spec(Algorithm::DimensionOrder, 4, 1)),
        meta_table(spec_on(Algorithm::DimensionOrder, Topology::Mesh, 3, 3, 1)),
    ];
    cases.extend(matrix().into_iter().step_by(7));
    cases.extend(sliced::samples());
    cases.extend(vcports::samples());
    for s in cases {
        let text = top_verilog(&s).expect("supported");
        assert_eq!(
            declared_ports(&text, &s.name()),
            interface_ports(&s),
            "{}",
            s.name()
        );
    }
}

#[test]
fn unsupported_configurations_are_refused_with_a_reason() {
    let base = spec(Algorithm::DimensionOrder, 4, 1);
    let cases: Vec<(RouterSpec, &str)> = vec![
        (
            lookahead(economical(spec(Algorithm::DimensionOrder, 4, 1)), 16),
            "look-ahead with the economical-storage table",
        ),
        (
            RouterSpec {
                flit_width: 8,
                ..base.clone()
            },
            "flit width 8",
        ),
        (
            RouterSpec {
                buffer_depth: 20,
                ..base.clone()
            },
            "buffer depth 20",
        ),
        (
            RouterSpec {
                radix: 128,
                ..base.clone()
            },
            "16384 nodes",
        ),
    ];
    for (s, word) in cases {
        for err in [
            supported(&s).unwrap_err(),
            verilog(&s).unwrap_err(),
            Router::<16>::new(&s).err().expect("refused"),
        ] {
            assert!(matches!(err, Error::InvalidSpec(_)));
            let msg = err.to_string();
            assert!(msg.contains(word) && msg.contains("not support"), "{msg}");
        }
    }
    // An address wider than the flit (a spec built by hand, past the
    // validation of `SpecInput::resolve`): named, with the sizes.
    let wide = RouterSpec {
        dims: 4,
        radix: 9,
        ports: 9,
        ..base.clone()
    };
    let msg = supported(&wide).unwrap_err().to_string();
    assert!(
        msg.contains("does not fit flit_width = 16") && msg.contains("5 bits per dimension, 20"),
        "{msg}"
    );
    assert!(supported(&base).is_ok());
    // A full table past its bound: one entry per node, 9 x 9 here.
    let big = full_table(spec(Algorithm::DimensionOrder, 9, 1));
    let msg = supported(&big).unwrap_err().to_string();
    assert!(
        msg.contains("full routing table") && msg.contains("81 here") && msg.contains("at most 64"),
        "{msg}"
    );
    assert!(supported(&full_table(base.clone())).is_ok());
    // A meta table whose cluster entries leave a destination nothing:
    // negative-first on a 4-cube, clusters of 4 nodes either way round.
    let nf = meta_table(spec_on(
        Algorithm::NegativeFirst,
        Topology::Hypercube,
        4,
        2,
        1,
    ));
    let msg = supported(&nf).unwrap_err().to_string();
    assert!(
        msg.contains("meta routing table") && msg.contains("permits no hop"),
        "{msg}"
    );
    // On/off buffers shallower than the round trip (a spec built by hand,
    // past `SpecInput::resolve`, which refuses it too).
    let shallow = on_off(base.clone(), 1);
    for err in [
        supported(&shallow).unwrap_err(),
        Router::<16>::new(&shallow).err().expect("refused"),
    ] {
        let msg = err.to_string();
        assert!(
            msg.contains("on-off")
                && msg.contains("at least 2")
                && msg.contains("buffer_depth = 1"),
            "{msg}"
        );
    }
    assert!(supported(&on_off(base, 2)).is_ok());
    // On/off under an escape-channel algorithm: atomic VC allocation needs
    // the downstream queue's emptiness, which only credits tell.
    for (algorithm, topology) in [
        (Algorithm::Duato, Topology::Mesh),
        (Algorithm::StarChannels, Topology::Torus),
    ] {
        let s = on_off(spec_on(algorithm, topology, 2, 4, 3), 4);
        let msg = supported(&s).unwrap_err().to_string();
        assert!(
            msg.contains("on-off")
                && msg.contains(&algorithm.to_string())
                && msg.contains("credit"),
            "{msg}"
        );
    }
}

/// The matrix holds every algorithm on every topology it supports, with
/// n = 2, 3 (and 4 off tori), V = min and min + 1, both addressings, and
/// every one of them compiles: the relation fits the decoders.
#[test]
fn the_matrix_covers_every_algorithm_and_topology_and_compiles() {
    let m = matrix();
    let t0 = std::time::Instant::now();
    use crate::spec::names::Named;
    for a in Algorithm::all() {
        for t in Topology::all() {
            for n in 2..=4u32 {
                if a.supports(t, n).is_err() || (t.wraps() && n == 4) {
                    continue;
                }
                let min = a.min_vcs(t, n);
                for v in [min, min + 1] {
                    for ad in [Addressing::Relative, Addressing::Absolute] {
                        assert!(
                            m.iter().any(|s| s.algorithm == a
                                && s.topology == t
                                && s.dims == n
                                && s.vcs == v
                                && s.addressing == ad),
                            "{a} {t} n={n} V={v} {ad} missing"
                        );
                    }
                }
            }
        }
    }
    for w in crate::limits::ROUTER_FLIT_WIDTHS {
        assert!(m.iter().any(|s| s.flit_width == w));
    }
    for s in &m {
        supported(s).unwrap_or_else(|e| panic!("{}: {e}", s.name()));
    }
    eprintln!("{} configurations compiled in {:?}", m.len(), t0.elapsed());
}

/// A `Router::<W>` of a spec of another flit width is refused, naming the
/// type parameter and the spec's width, whichever way they differ; the
/// matching width builds.
#[test]
fn a_router_of_another_width_than_its_spec_is_refused_by_name() {
    let s16 = spec(Algorithm::DimensionOrder, 4, 1);
    let s64 = RouterSpec {
        flit_width: 64,
        ..s16.clone()
    };
    for (e, w, spec_w) in [
        (Router::<32>::new(&s16).err(), 32, 16),
        (Router::<16>::new(&s64).err(), 16, 64),
        (
            Router::<64>::with_table(&s16, compile(&s16).unwrap()).err(),
            64,
            16,
        ),
    ] {
        let e = e.expect("refused").to_string();
        assert!(
            e.contains(&format!("Router::<{w}>")) && e.contains(&format!("flit_width {spec_w}")),
            "{e}"
        );
        assert!(
            e.contains("type parameter") && e.contains("disagree"),
            "{e}"
        );
    }
    assert!(Router::<16>::new(&s16).is_ok());
    assert!(Router::<64>::new(&s64).is_ok());
}

/// The reference router (5 ports, 2 VCs, 32-bit flits, 4 flits per VC;
/// docs/router.md, "Module hierarchy") is a file a person reads: at most
/// 3,000 lines and 40 modules, no `$` in a name, each block's module once.
#[test]
fn the_reference_router_reads_in_few_modules_and_lines() {
    let s = RouterSpec {
        flit_width: 32,
        buffer_depth: 4,
        ..spec(Algorithm::DimensionOrder, 4, 2)
    };
    let text = verilog(&s).expect("the reference router");
    let lines = text.lines().count();
    let modules: Vec<&str> = text
        .lines()
        .filter_map(|l| l.strip_prefix("module "))
        .collect();
    assert!(lines <= 3000, "{lines} lines");
    assert!(modules.len() <= 40, "{} modules", modules.len());
    assert!(!text.contains('$'), "a `$` in the Verilog");
    let fcu = format!("{}_core_flow_control_unit ", s.name());
    assert_eq!(
        modules.iter().filter(|m| m.starts_with(&fcu)).count(),
        1,
        "the flow-control unit once"
    );
}
