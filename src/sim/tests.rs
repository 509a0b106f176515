//! Network simulation tests. Oracles: the packets the test created (every
//! one must arrive once, at its destination, unchanged: checked in
//! [`run`]), docs/interface.md's head-flit rule, the routing relation (the
//! deadlock report), and the other engines on the same stimulus (three
//! independent routes from the router to its behaviour: rust-hdl's own
//! simulation, Verilator on the emitted Verilog, and Yosys's gates).

use std::time::Instant;

use super::*;
use crate::router::tests::spec_on;
use crate::spec::names::Named;
use crate::spec::{Algorithm, Topology};
use engine_netlist::Eval;

fn cfg(spec: RouterSpec, load: f64) -> SimConfig {
    SimConfig {
        load,
        warmup: 200,
        measure: 800,
        ..SimConfig::new(RouterSpec {
            flit_width: 32,
            ..spec
        })
    }
}

fn run_rust(c: &SimConfig) -> Result<Run> {
    let mut e = build_engine(c, EngineKind::Rust)?;
    run(c, e.as_mut(), &Control::default())
}

#[test]
fn mesh_dimension_order_delivers_everything() {
    let s = spec_on(Algorithm::DimensionOrder, Topology::Mesh, 2, 4, 1);
    let c = cfg(s, 0.3);
    let t0 = Instant::now();
    let r = run_rust(&c).unwrap();
    let el = t0.elapsed().as_secs_f64();
    eprintln!(
        "{} cycles in {el:.2} s: {:.0} router-cycles/s",
        r.stats.cycles,
        r.stats.cycles as f64 * 16.0 / el
    );
    eprintln!("{}", stats::table(std::slice::from_ref(&r.stats)));
    assert!(r.stats.latencies.len() == r.stats.measured_packets);
    assert!(r.stats.measured_packets > 50);
}

/// Flits are conserved across the measurement phase: accepted = offered +
/// the backlog as it begins - the backlog as it ends, at a low load and
/// past saturation (where the backlog grows); the accepted flits are the
/// ejections the delivery trace records in the phase.
#[test]
fn accepted_is_offered_plus_the_backlog_change() {
    let s = spec_on(Algorithm::DimensionOrder, Topology::Mesh, 2, 4, 1);
    for load in [0.2, 0.9] {
        let c = SimConfig {
            trace: true,
            ..cfg(s.clone(), load)
        };
        let r = run_rust(&c).unwrap();
        let st = &r.stats;
        let [b0, b1] = st.backlog;
        assert!(
            (st.accepted - (st.offered + b0 - b1)).abs() < 1e-12,
            "load {load}: accepted {} offered {} backlog {b0} -> {b1}",
            st.accepted,
            st.offered
        );
        let (m0, m1) = (c.warmup, c.warmup + c.measure);
        let ejected = r.trace.iter().filter(|e| (m0..m1).contains(&e.1)).count();
        let per = 16.0 * c.measure as f64;
        assert!(
            (st.accepted - ejected as f64 / per).abs() < 1e-12,
            "load {load}"
        );
        if load > 0.5 {
            assert!(b1 > b0, "load {load}: past saturation the backlog grows");
        }
    }
}

/// The latency inside the network leaves out the wait in the source
/// queue: never above the whole latency, never below the hops and flits a
/// packet needs; nearly the whole latency at light load, where a packet
/// rarely waits behind another at its source, and well below it past
/// saturation, where the source queues grow.
#[test]
fn network_latency_leaves_out_the_source_queue() {
    let s = spec_on(Algorithm::DimensionOrder, Topology::Mesh, 2, 4, 2);
    let net = Network::new(s.topology, s.dims, s.radix).unwrap();
    let floor = crate::study::mean_min_hops(&net) + 8.0;
    for load in [0.05, 0.9] {
        let c = SimConfig {
            length: crate::sim::traffic::Length::Fixed(8),
            ..cfg(s.clone(), load)
        };
        let st = run_rust(&c).unwrap().stats;
        let (all, inside) = (st.mean_latency().unwrap(), st.network_latency.unwrap());
        assert!(
            inside <= all && inside >= floor,
            "load {load}: {inside} of {all}"
        );
        if load < 0.5 {
            assert!(all - inside < 0.05 * all, "load {load}: {inside} of {all}");
        } else {
            assert!(
                all - inside > 0.5 * inside,
                "load {load}: {inside} of {all}"
            );
        }
    }
}

fn run_on(c: &SimConfig, kind: EngineKind) -> Run {
    let mut e = build_engine(c, kind).unwrap();
    run(c, e.as_mut(), &Control::default()).unwrap()
}

/// A run on `kind` with the waveform of nodes 0, 5, 6 and 15 (corners,
/// middle) over cycles 100..400: the run and the VCD's text.
fn run_waved(c: &SimConfig, kind: EngineKind) -> (Run, String) {
    let mut e = build_engine(c, kind).unwrap();
    waved(c, e.as_mut())
}

/// A run of `c` on `e` with the waveform of [`run_waved`].
fn waved(c: &SimConfig, e: &mut dyn Engine) -> (Run, String) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("w.vcd");
    let window = waves::Window::new(&[0, 5, 6, 15], Some("100..400"), c).unwrap();
    let w = std::cell::RefCell::new(waves::Waves::create(&path, window, c).unwrap());
    let ctl = Control {
        waves: Some(&w),
        ..Control::default()
    };
    let r = run(c, e, &ctl).unwrap();
    let written = w.into_inner().finish().unwrap();
    assert_eq!(written.cycles, Some((100, 400)));
    (r, std::fs::read_to_string(&path).unwrap())
}

/// The netlist engine with its gates evaluated as `eval`.
fn netlist_engine(c: &SimConfig, eval: Eval) -> engine_netlist::NetlistEngine {
    let table = c.table().unwrap();
    let text = engine_netlist::netlist_json(&c.spec, &table).unwrap();
    let n = netlist::Netlist::from_yosys_json(&text, &c.spec.name(), "clk").unwrap();
    engine_netlist::NetlistEngine::from_netlist(&c.spec, &n, 1, eval).unwrap()
}

/// A run on the netlist engine with its gates evaluated as `eval`.
fn run_netlist(c: &SimConfig, eval: Eval) -> Run {
    let mut e = netlist_engine(c, eval);
    run(c, &mut e, &Control::default()).unwrap()
}

/// The first delivered flit where two traces differ, as a message.
fn trace_diff(a: &[TraceEntry], b: &[TraceEntry], names: (&str, &str)) -> Option<String> {
    let i = (0..a.len().max(b.len())).find(|&i| a.get(i) != b.get(i))?;
    Some(format!(
        "traces differ from delivered flit {i}: {} {:?}, {} {:?}",
        names.0,
        &a[i.min(a.len())..(i + 4).min(a.len())],
        names.1,
        &b[i.min(b.len())..(i + 4).min(b.len())]
    ))
}

#[test]
fn engines_agree_flit_by_flit_on_a_mesh() {
    // Also on several threads: the Verilator engine on 3 (ranges of 5, 5
    // and 6 routers), the rust-hdl engine on 1 and 2.
    let s = spec_on(Algorithm::DimensionOrder, Topology::Mesh, 2, 4, 1);
    let c = SimConfig {
        trace: true,
        ..cfg(s, 0.5)
    };
    let t0 = Instant::now();
    let (v, v_waves) = run_waved(
        &SimConfig {
            threads: 3,
            ..c.clone()
        },
        EngineKind::Verilator,
    );
    eprintln!("verilator: {:.2} s", t0.elapsed().as_secs_f64());
    let (r, r_waves) = run_waved(&c, EngineKind::Rust);
    let t1 = Instant::now();
    let (n, n_waves) = waved(&c, &mut netlist_engine(&c, Eval::Compiled));
    eprintln!("netlist, compiled: {:.2} s", t1.elapsed().as_secs_f64());
    let ni = run_netlist(&c, Eval::Interpreted);
    // The same ports, cycle for cycle, data, head, tail and VC also
    // without a valid flit (docs/sim.md, "Waveforms").
    assert!(r_waves.matches('\n').count() > 2000, "{r_waves}");
    for (name, other) in [("verilator", &v_waves), ("netlist", &n_waves)] {
        if let Some((i, (a, b))) = r_waves
            .lines()
            .zip(other.lines())
            .enumerate()
            .find(|(_, (a, b))| a != b)
        {
            panic!("the {name} engine's waveform differs from rust's at line {i}: {b} against {a}");
        }
        assert_eq!(&r_waves, other, "{name}");
    }
    let r2 = run_on(
        &SimConfig {
            threads: 2,
            ..c.clone()
        },
        EngineKind::Rust,
    );
    assert!(v.trace.len() > 1000, "{} flits", v.trace.len());
    if let Some(e) = trace_diff(&v.trace, &r.trace, ("verilator", "rust")) {
        panic!("{e}");
    }
    if let Some(e) = trace_diff(&r2.trace, &r.trace, ("rust on 2 threads", "rust on 1")) {
        panic!("{e}");
    }
    if let Some(e) = trace_diff(&n.trace, &r.trace, ("netlist compiled", "rust")) {
        panic!("{e}");
    }
    if let Some(e) = trace_diff(&ni.trace, &r.trace, ("netlist interpreted", "rust")) {
        panic!("{e}");
    }
}

/// The netlist engine runs the gates Yosys wrote, not a model of them:
/// the router's netlist with one gate changed (the one driving bit 0 of
/// the local port's outgoing data, made a NOR, or an AND if it was one)
/// gives another trace, or a run that fails its checks, on the
/// interpreted op list and on the compiled C alike.
#[test]
fn a_netlist_with_one_gate_changed_is_caught() {
    use super::netlist::{Gate, Netlist};
    let s = spec_on(Algorithm::DimensionOrder, Topology::Mesh, 2, 4, 1);
    let c = SimConfig {
        trace: true,
        measure: 400,
        ..cfg(s, 0.4)
    };
    let table = c.table().unwrap();
    let text = engine_netlist::netlist_json(&c.spec, &table).unwrap();
    let good = Netlist::from_yosys_json(&text, &c.spec.name(), "clk").unwrap();
    let run_with = |n: &Netlist, eval| {
        let mut e = engine_netlist::NetlistEngine::from_netlist(&c.spec, n, 1, eval).unwrap();
        run(&c, &mut e, &Control::default())
    };
    let want = run_with(&good, Eval::Interpreted).unwrap();
    assert!(want.trace.len() > 500, "{} flits", want.trace.len());
    let mut bad = good.clone();
    let net = bad.ports["p0_out_data"].bits[0];
    let cell = bad
        .cells
        .iter_mut()
        .find(|c| c.out == net)
        .expect("a gate drives p0_out_data[0]");
    eprintln!("{:?} made a NOR", cell.kind);
    cell.kind = if cell.kind == Gate::Nor {
        Gate::And
    } else {
        Gate::Nor
    };
    for eval in [Eval::Interpreted, Eval::Compiled] {
        match run_with(&bad, eval) {
            Err(e) => eprintln!("{eval:?}: caught: {e}"),
            Ok(r) => assert_ne!(
                r.trace, want.trace,
                "{eval:?}: the changed gate went unseen"
            ),
        }
    }
}

/// Nine loads in the lanes of one netlist engine (nine copies of the
/// 4x4 mesh: 144 lanes in three blocks of words, which the compiled gates
/// evaluate as one group of four with an idle block, copies straddling
/// blocks) give each the trace and figures of that load run alone (one
/// block), compiled and interpreted; a copy's traffic cannot leak into
/// another's (every run checks each flit against its own packets).
#[test]
fn loads_in_the_lanes_of_one_pass_match_the_loads_run_alone() {
    let s = spec_on(Algorithm::DimensionOrder, Topology::Mesh, 2, 4, 1);
    let base = SimConfig {
        trace: true,
        measure: 400,
        ..cfg(s, 0.1)
    };
    let loads = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9];
    let cfgs: Vec<SimConfig> = loads
        .iter()
        .map(|&load| SimConfig {
            load,
            ..base.clone()
        })
        .collect();
    let n = engine_netlist::netlist(&base.spec, "test", || base.table()).unwrap();
    for eval in [Eval::Compiled, Eval::Interpreted] {
        let mut e =
            engine_netlist::NetlistEngine::from_netlist(&base.spec, &n, loads.len(), eval).unwrap();
        let together = run_many(&cfgs, &mut e, &Control::default()).unwrap();
        assert_eq!(together.len(), loads.len());
        for (c, r) in cfgs.iter().zip(&together) {
            let alone = run_netlist(c, eval);
            assert!(alone.trace.len() > 100, "load {}", c.load);
            if let Some(e) = trace_diff(&r.trace, &alone.trace, ("in one pass", "alone")) {
                panic!("{eval:?} load {}: {e}", c.load);
            }
            assert_eq!(r.stats.cycles, alone.stats.cycles);
            assert_eq!(r.stats.latencies, alone.stats.latencies);
        }
    }
}

/// The cache's binary copy of a netlist reads back equal to the netlist
/// read from Yosys's JSON; a copy cut short is refused, not misread.
#[test]
fn a_netlist_reads_back_from_its_binary_copy() {
    use super::netlist::Netlist;
    let c = cfg(
        spec_on(Algorithm::DimensionOrder, Topology::Mesh, 2, 4, 1),
        0.1,
    );
    let table = c.table().unwrap();
    let text = engine_netlist::netlist_json(&c.spec, &table).unwrap();
    let n = Netlist::from_yosys_json(&text, &c.spec.name(), "clk").unwrap();
    assert!(n.cells.len() > 1000 && n.flip_flops.len() > 100);
    let b = n.to_bytes();
    assert_eq!(Netlist::from_bytes(&b).unwrap(), n);
    assert!(Netlist::from_bytes(&b[..b.len() / 2]).is_err());
    assert!(Netlist::from_bytes(&b[1..]).is_err());
}

#[test]
fn watchdog_catches_dimension_order_on_a_torus_without_dateline_vcs() {
    // One VC: without the dateline classes each ring is one cycle of
    // channel dependencies (Dally and Seitz; survey §5).
    let s = RouterSpec {
        vcs: 1,
        ..spec_on(Algorithm::DimensionOrder, Topology::Torus, 2, 4, 2)
    };
    let c = SimConfig {
        length: traffic::Length::Fixed(16),
        watchdog: 200,
        deadlock_prone_without_dateline_vcs: true,
        ..cfg(s, 1.0)
    };
    // With a waveform of node 0 over every cycle the run may take: it is
    // written up to the cycle the watchdog fired in.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("deadlock.vcd");
    let all = format!("0..{}", c.warmup + c.measure + c.drain - 1);
    let window = waves::Window::new(&[0], Some(&all), &c).unwrap();
    let w = std::cell::RefCell::new(waves::Waves::create(&path, window, &c).unwrap());
    let mut engine = build_engine(&c, EngineKind::Rust).unwrap();
    let ctl = Control {
        waves: Some(&w),
        ..Control::default()
    };
    let e = match run(&c, engine.as_mut(), &ctl) {
        Err(e) => e,
        Ok(r) => panic!("no deadlock: {} packets delivered", r.stats.latencies.len()),
    };
    let text = e.to_string();
    eprintln!("{text}");
    assert!(text.starts_with("deadlock:"), "{text}");
    // "(cycle N)" counts the reset cycles; the waveform's cycles do not.
    let fired: u64 = text
        .split("(cycle ")
        .nth(1)
        .and_then(|r| r.split(')').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no (cycle N) in {text}"));
    let written = w.into_inner().finish().unwrap();
    assert_eq!(written.cycles, Some((0, fired - RESET_CYCLES)));
    assert!(std::fs::metadata(&path).unwrap().len() > 10_000);
    assert!(text.contains("cycle of waits"), "{text}");
    assert!(text.contains("downstream buffer full"), "{text}");
    // The same traffic with the dateline VCs in place drains.
    let ok = SimConfig {
        deadlock_prone_without_dateline_vcs: false,
        spec: RouterSpec {
            vcs: 2,
            ..c.spec.clone()
        },
        ..c
    };
    let r = run_rust(&ok).unwrap();
    assert_eq!(r.stats.latencies.len(), r.stats.measured_packets);
}

#[test]
fn hot_spot_overload_drains_without_loss() {
    let s = spec_on(Algorithm::Duato, Topology::Mesh, 2, 4, 2);
    let c = SimConfig {
        pattern: "hot-spot:0.5:5".parse().unwrap(),
        warmup: 100,
        measure: 400,
        ..cfg(s, 1.0)
    };
    let r = run_rust(&c).unwrap();
    // Overload: the hot node ejects at most one flit per cycle.
    assert!(
        r.stats.accepted < 0.8 * r.stats.offered,
        "{:?}",
        (r.stats.accepted, r.stats.offered)
    );
    assert!(r.stats.measured_packets > 100);
    assert_eq!(r.stats.latencies.len(), r.stats.measured_packets);
}

/// The three engines on one configuration and seed (the netlist engine
/// compiled and interpreted): identical per-flit delivery traces, and
/// every check of [`run`] passed on each.
fn engines_agree(s: RouterSpec, load: f64, measure: u64) -> (String, usize) {
    let c = SimConfig {
        trace: true,
        measure,
        ..cfg(s, load)
    };
    let v = run_on(&c, EngineKind::Verilator);
    let r = run_on(&c, EngineKind::Rust);
    for eval in [Eval::Compiled, Eval::Interpreted] {
        let n = run_netlist(&c, eval);
        if let Some(e) = trace_diff(&n.trace, &r.trace, (&format!("netlist {eval:?}"), "rust")) {
            panic!("{}: {e}", c.spec.name());
        }
    }
    assert_eq!(v.trace.len(), r.trace.len(), "{}", c.spec.name());
    if let Some(i) = (0..v.trace.len()).find(|&i| v.trace[i] != r.trace[i]) {
        panic!(
            "{}: traces differ from delivered flit {i}: verilator {:?}, rust {:?}",
            c.spec.name(),
            &v.trace[i..(i + 4).min(v.trace.len())],
            &r.trace[i..(i + 4).min(r.trace.len())]
        );
    }
    assert_eq!(r.stats.latencies.len(), r.stats.measured_packets);
    (c.spec.name(), v.trace.len())
}

/// A unidirectional torus: flits arrive from the - neighbour and credits
/// come back from the + one, wired by each engine on its own.
#[test]
fn engines_agree_on_a_unidirectional_torus() {
    let s = spec_on(Algorithm::DimensionOrder, Topology::UniTorus, 2, 4, 2);
    assert!(engines_agree(s, 0.8, 800).1 > 600);
}

#[test]
#[ignore = "slow: make test-slow"]
fn engines_agree_on_a_torus_under_duato() {
    let s = spec_on(Algorithm::Duato, Topology::Torus, 2, 4, 3);
    assert!(engines_agree(s, 0.8, 1500).1 > 2000);
}

/// Every algorithm on the 4-ary 2-D mesh and tori (where it is defined),
/// at low and high load, on the rust-hdl engine: every packet delivered
/// once, unchanged, at its destination (checked by [`run`]). A sample of
/// the matrix below, itself too slow for the default suite (3 minutes).
#[test]
#[ignore = "slow: make test-slow"]
fn every_algorithm_delivers_on_2d_meshes_and_tori_at_low_and_high_load() {
    for algorithm in Algorithm::all() {
        for topology in [Topology::Mesh, Topology::Torus, Topology::UniTorus] {
            if algorithm.supports(topology, 2).is_err() {
                continue;
            }
            let v = algorithm.min_vcs(topology, 2);
            for load in [0.1, 0.8] {
                let c = SimConfig {
                    warmup: 100,
                    measure: 400,
                    ..cfg(spec_on(algorithm, topology, 2, 4, v), load)
                };
                let r = run_rust(&c).unwrap_or_else(|e| panic!("{}: {e}", c.spec.name()));
                assert_eq!(r.stats.latencies.len(), r.stats.measured_packets);
                assert!(
                    r.stats.measured_packets > (40.0 * load) as usize,
                    "{} load {load}: {} packets",
                    c.spec.name(),
                    r.stats.measured_packets
                );
            }
        }
    }
}

/// On/off flow control (docs/interface.md): the routers' levels wired
/// router to router, the interfaces injecting on the levels and ejecting
/// with theirs always high; at the smallest depth (2) under heavy load
/// both engines deliver every packet with identical traces (a router that
/// overflowed a buffer would lose a flit, which the interfaces report).
#[test]
#[ignore = "slow: make test-slow"]
fn on_off_flow_control_engines_agree_and_deliver_everything() {
    let s = RouterSpec {
        flow_control: crate::spec::FlowControl::OnOff,
        buffer_depth: 2,
        ..spec_on(Algorithm::WestFirst, Topology::Mesh, 2, 4, 2)
    };
    assert!(engines_agree(s, 0.7, 1000).1 > 1000);
}

/// Look-ahead in a network (LAPSES §3.2): sixteen routers wired, every
/// head flit on every link checked by [`run`] to carry the ports the
/// relation permits at the router it enters (the field that router reads
/// its hop from), every packet delivered; both engines, identical traces.
#[test]
#[ignore = "slow: make test-slow"]
fn lookahead_network_carries_the_next_routers_ports_on_both_engines() {
    let s = RouterSpec {
        lookahead: true,
        ..spec_on(Algorithm::Duato, Topology::Mesh, 2, 4, 2)
    };
    assert!(engines_agree(s, 0.6, 1000).1 > 1000);
}

/// Look-ahead on a torus: every head on every link carries the ports and
/// dateline bits the relation gives at the router it enters ([`run`]'s
/// check), the routers route from them (a wrong dateline bit sends a flit
/// on a VC the relation does not permit or deadlocks the ring), and every
/// packet arrives; rust-hdl engine.
#[test]
fn lookahead_on_a_torus_carries_the_dateline_bits_and_delivers() {
    for topology in [Topology::Torus, Topology::UniTorus] {
        let s = RouterSpec {
            lookahead: true,
            ..spec_on(Algorithm::DimensionOrder, topology, 2, 4, 2)
        };
        let r = run_rust(&cfg(s, 0.6)).unwrap();
        assert!(r.stats.measured_packets > 50, "{topology}");
        assert_eq!(r.stats.latencies.len(), r.stats.measured_packets);
    }
}

/// The network check itself: a head leaving (0,0) by +x for (3,3) under
/// Duato must carry ports +x and +y (1 and 3, field 0xa: both directions
/// are minimal at (1,0), worked by hand); any other field is a fault.
#[test]
fn a_head_with_the_wrong_lookahead_field_is_a_fault() {
    let s = RouterSpec {
        lookahead: true,
        flit_width: 32,
        ..spec_on(Algorithm::Duato, Topology::Mesh, 2, 4, 2)
    };
    let w = network::Wiring::new(&s).unwrap();
    let rel = Relation::new(s.algorithm, w.net, s.vcs).unwrap();
    let codec = ni::Codec::new(&s);
    let (src, next, dest) = (
        w.net.node_at(&[0, 0]),
        w.net.node_at(&[1, 0]),
        w.net.node_at(&[3, 3]),
    );
    let ab = codec.address_bits();
    let head = |field: u64| network::Flit {
        valid: true,
        head: true,
        tail: true,
        vc: 1,
        data: (codec.head(&w.net, 0, src, dest) & !(0x1f << ab)) | field << ab,
    };
    let check =
        |field| check_lookahead(&w, &rel, &codec, src as usize, 1, &head(field), next, dest);
    assert_eq!(check(0xa), Ok(()));
    for wrong in [0x2, 0x8, 0x1, 0x0] {
        let e = check(wrong).unwrap_err();
        assert!(
            e.contains(&format!("field {wrong:#x}")) && e.contains("ports 0xa"),
            "{e}"
        );
    }
}

/// A head flit of one packet injected into an idle network: the cycles
/// from its injection until it leaves the destination router's local port.
fn head_latency(spec: &RouterSpec, from: &[u32], to: &[u32]) -> u64 {
    let c = cfg(spec.clone(), 0.1);
    let mut e = build_engine(&c, EngineKind::Rust).unwrap();
    let w = network::Wiring::new(&c.spec).unwrap();
    let codec = ni::Codec::new(&c.spec);
    let (src, dest) = (w.net.node_at(from), w.net.node_at(to));
    let nodes = w.nodes();
    let idle = vec![network::Flit::default(); nodes];
    let none = vec![0u32; nodes];
    for _ in 0..RESET_CYCLES {
        e.step(true, &idle, &none);
    }
    let mut inject = idle.clone();
    inject[src as usize] = network::Flit {
        valid: true,
        head: true,
        tail: true,
        vc: 0,
        data: codec.head(&w.net, 0, src, dest),
    };
    for t in 0..200u64 {
        if e.outputs().flits[dest as usize * w.ports].valid {
            return t;
        }
        e.step(false, if t == 0 { &inject } else { &idle }, &none);
    }
    panic!("the packet did not arrive");
}

/// Each hop count's fastest packet at light load is a packet alone in the
/// network: against [`head_latency`], which drives one packet into an
/// idle network itself, the same latency for every hop count, give or
/// take one constant (the run counts from the packet's creation).
#[test]
fn the_fastest_packet_of_each_hop_count_is_a_lone_packet() {
    let s = spec_on(Algorithm::DimensionOrder, Topology::Mesh, 2, 4, 1);
    let c = SimConfig {
        length: crate::sim::traffic::Length::Fixed(1),
        warmup: 100,
        measure: 3000,
        ..cfg(s.clone(), 0.05)
    };
    let fastest = run_rust(&c).unwrap().stats.fastest;
    assert_eq!(fastest.len(), 7, "hop counts 0 to 6: {fastest:?}");
    let s = RouterSpec {
        flit_width: 32,
        ..s
    };
    let offsets: Vec<i64> = (1..=6u32)
        .map(|h| {
            let to = [h.min(3), h.saturating_sub(3)];
            fastest[h as usize].unwrap() as i64 - head_latency(&s, &[0, 0], &to) as i64
        })
        .collect();
    assert!(offsets.iter().all(|&o| o == offsets[0]), "{offsets:?}");
}

/// Head latency with and without look-ahead, measured: a 1-flit packet
/// across a 4x4 mesh, (0,0) to (3,3), six hops through seven routers. Both
/// routers take 2 cycles per router (src/router: a head is decoded and
/// allocated in the cycle after it is written, and crosses in the next),
/// so 14 cycles either way: here the address decoder already shares its
/// cycle with VC allocation, and look-ahead takes the decoder off that
/// path (for every input but the local one) rather than saving a cycle.
/// The same traffic also gives identical per-flit traces with and without.
#[test]
fn lookahead_head_latency_is_that_of_the_router_without_it() {
    for (algorithm, v) in [(Algorithm::DimensionOrder, 1), (Algorithm::Duato, 2)] {
        let plain = RouterSpec {
            flit_width: 32,
            ..spec_on(algorithm, Topology::Mesh, 2, 4, v)
        };
        let la = RouterSpec {
            lookahead: true,
            ..plain.clone()
        };
        let with = head_latency(&la, &[0, 0], &[3, 3]);
        let without = head_latency(&plain, &[0, 0], &[3, 3]);
        eprintln!("{algorithm}: head latency {without} cycles without look-ahead, {with} with");
        assert_eq!((with, without), (14, 14));
        let traced = |s: RouterSpec| {
            let c = SimConfig {
                trace: true,
                measure: 400,
                ..cfg(s, 0.4)
            };
            run_rust(&c).unwrap().trace
        };
        assert_eq!(traced(la), traced(plain), "{algorithm}");
    }
}

/// One cycle per router (`pipeline = 1`): a 1-flit packet from (0,0) to
/// (3,3) of an idle 4x4 mesh passes seven routers, one cycle each (each
/// routes the head from its look-ahead field in the cycle it arrives and
/// sends it in the next), so 7 cycles against 14 with two cycles per
/// router; under dimension order and Duato.
#[test]
fn pipeline_1_takes_one_cycle_per_router() {
    for (algorithm, v) in [(Algorithm::DimensionOrder, 1), (Algorithm::Duato, 2)] {
        let p1 = RouterSpec {
            flit_width: 32,
            lookahead: true,
            pipeline: 1,
            ..spec_on(algorithm, Topology::Mesh, 2, 4, v)
        };
        assert_eq!(head_latency(&p1, &[0, 0], &[3, 3]), 7, "{algorithm}");
    }
}

/// One cycle per router in a network: every head on every link checked
/// to carry the next router's ports, every packet delivered, the three
/// engines' traces identical.
#[test]
#[ignore = "slow: make test-slow"]
fn pipeline_1_engines_agree() {
    let s = RouterSpec {
        lookahead: true,
        pipeline: 1,
        ..spec_on(Algorithm::Duato, Topology::Mesh, 2, 4, 2)
    };
    assert!(engines_agree(s, 0.6, 1000).1 > 1000);
}

/// Every algorithm on 4-ary 2-D and 3-D meshes and tori (where the
/// algorithm is defined), at low and high load: all three engines, identical
/// traces, every packet delivered. Slow (a Verilator build per
/// configuration, 64-router networks on the rust-hdl engine): `make
/// sim-matrix`.
#[test]
#[ignore]
fn every_algorithm_on_meshes_and_tori_both_engines() {
    for algorithm in Algorithm::all() {
        for topology in [Topology::Mesh, Topology::Torus, Topology::UniTorus] {
            for dims in [2, 3] {
                if algorithm.supports(topology, dims).is_err() {
                    continue;
                }
                let v = algorithm.min_vcs(topology, dims);
                let s = spec_on(algorithm, topology, dims, 4, v);
                for load in [0.1, 0.7] {
                    let t0 = Instant::now();
                    let (name, n) = engines_agree(s.clone(), load, 2000);
                    eprintln!(
                        "{name} load {load}: {n} flits, traces equal ({:.0} s)",
                        t0.elapsed().as_secs_f64()
                    );
                }
            }
        }
    }
}
