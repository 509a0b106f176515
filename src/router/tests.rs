//! Router tests. The oracles are the routing relation (`Relation::permits`),
//! the interface document's header rule and flow-control rules, and the
//! Verilog tools; none is computed by the router code.

use std::collections::{HashMap, VecDeque};

use super::*;
use crate::algo::{Dir, Input, NodeId, Port};
use crate::blocks::cosim::SplitMix64;
use crate::spec::{Algorithm, PathSelection, SpecInput};

pub(crate) fn spec(algorithm: Algorithm, radix: u32, vcs: u32) -> RouterSpec {
    SpecInput {
        algorithm: Some(algorithm),
        radix: Some(radix as i64),
        vcs: Some(vcs as i64),
        flit_width: Some(16),
        ..SpecInput::default()
    }
    .resolve()
    .expect("valid spec")
    .spec
}

/// Interface port p as a relation port (docs/interface.md: 0 local,
/// 2d+1 toward +d, 2d+2 toward -d). Written from the document.
fn port_of(p: usize) -> Port {
    if p == 0 {
        Port::Local
    } else {
        let dir = if p % 2 == 1 { Dir::Plus } else { Dir::Minus };
        Port::link((p - 1) / 2, dir)
    }
}

#[derive(Debug, Clone)]
struct Packet {
    input: Input,
    in_port: usize,
    in_vc: usize,
    dest: NodeId,
    seq: usize,
    flits: Vec<u64>,
}

/// Scoreboard run: one router at `node` of a k x k mesh; packets on every
/// input to every destination the relation routes from there, random
/// back-pressure both ways. Panics on the first violation.
fn scoreboard<const W: usize>(
    spec: &RouterSpec,
    node: NodeId,
    packets_per_vc: usize,
    seed: u64,
) -> usize {
    let net = Network::new(spec.topology, spec.dims, spec.radix).unwrap();
    let rel = Relation::new(spec.algorithm, net, spec.vcs).unwrap();
    let mut r = Router::<W>::new(spec).expect("supported");
    crate::blocks::prepare(&mut r);
    let wmask = if W >= 64 { u64::MAX } else { (1u64 << W) - 1 };
    let p = r.ports();
    let v = r.vcs();
    let depth = spec.buffer_depth as usize;
    let f = spec.address_field_bits() as usize;
    let n = spec.dims as usize;
    let fmask = (1u64 << f) - 1;
    let absolute = spec.addressing == Addressing::Absolute;
    // docs/interface.md: node_id holds the coordinates, dimension 0 low.
    let node_id: u64 = (0..n).map(|d| (net.coord(node, d) as u64) << (d * f)).sum();
    r.node_id.next = node_id.into();
    let mut rng = SplitMix64::new(seed);

    // Packets per (input port, VC), each to a destination the relation
    // lets a message arriving there take.
    let mut queues: Vec<VecDeque<Packet>> = vec![VecDeque::new(); p * v];
    let mut all: HashMap<usize, Packet> = HashMap::new();
    let mut id = 0;
    for q in 0..p {
        let here = port_of(q);
        // The upstream router on link q sends toward us in the reverse
        // direction; its hop must be one the relation permits.
        let (upstream, travelling) = match here {
            Port::Local => (None, Port::Local),
            Port::Link { dim, dir } => (
                net.neighbour(node, here),
                Port::Link {
                    dim,
                    dir: dir.reverse(),
                },
            ),
        };
        if here != Port::Local && upstream.is_none() {
            continue; // a mesh edge: the link is tied off
        }
        for c in 0..v {
            let dests: Vec<NodeId> = (0..net.nodes())
                .filter(|&dst| match upstream {
                    None => true,
                    Some(u) => rel.permits(u, Input::INJECTED, dst, travelling, c as u8),
                })
                .collect();
            assert!(!dests.is_empty() || q == 0);
            for seq in 0..packets_per_vc {
                if dests.is_empty() {
                    break;
                }
                let dest = dests[(rng.next_u64() % dests.len() as u64) as usize];
                let len = 1 + (rng.next_u64() % 4) as usize;
                // Head: the offsets (docs/interface.md), then the packet id.
                let mut head = 0u64;
                for d in 0..n {
                    let field = if absolute {
                        net.coord(dest, d) as u64
                    } else {
                        (net.coord(dest, d) as i64 - net.coord(node, d) as i64) as u64
                    };
                    head |= (field & fmask) << (d * f);
                }
                head |= (id as u64) << (n * f);
                head &= wmask;
                let mut flits = vec![head];
                for _ in 1..len {
                    flits.push(rng.next_u64() & wmask);
                }
                let pk = Packet {
                    input: Input {
                        port: travelling,
                        vc: c as u8,
                    },
                    in_port: q,
                    in_vc: c,
                    dest,
                    seq,
                    flits,
                };
                all.insert(id, pk.clone());
                queues[q * v + c].push_back(pk);
                id += 1;
            }
        }
    }
    assert!(
        id < 1 << (W.min(32) - n * f),
        "packet ids must fit the payload"
    );
    let total = id;

    // Sender state per input VC: credits, position in the current packet.
    let mut send_credits = vec![depth; p * v];
    let mut send_pos = vec![0usize; p * v];
    // Receiver state per output VC: credits, packet in progress, returns.
    let mut out_credits = vec![depth; p * v];
    let mut holding: Vec<Option<(usize, usize)>> = vec![None; p * v];
    let mut returns: Vec<VecDeque<usize>> = vec![VecDeque::new(); p * v];
    let mut delivered = 0;
    let mut last_seq: HashMap<(usize, usize), Option<usize>> = HashMap::new();
    let mut seen_head = vec![false; total];
    let mut cycle = 0;
    let mut idle = 0;
    while delivered < total {
        cycle += 1;
        assert!(
            idle < 2000,
            "no progress for 2000 cycles at cycle {cycle}: {delivered} of {total} delivered"
        );
        let rst = cycle <= 2;
        r.rst.next = rst;
        // Senders: one flit per input port, on a VC with a credit.
        let mut sent: Vec<Option<usize>> = vec![None; p];
        for q in 0..p {
            r.in_valid[q].next = false;
            r.in_head[q].next = false;
            r.in_tail[q].next = false;
            r.in_data[q].next = 0u64.into();
            r.in_vc[q].next = 0u64.into();
            if rst || !rng.chance(0.7) {
                continue;
            }
            let ready: Vec<usize> = (0..v)
                .filter(|&c| !queues[q * v + c].is_empty() && send_credits[q * v + c] > 0)
                .collect();
            if ready.is_empty() {
                continue;
            }
            let c = ready[(rng.next_u64() % ready.len() as u64) as usize];
            let k = q * v + c;
            let pk = &queues[k][0];
            let i = send_pos[k];
            r.in_valid[q].next = true;
            r.in_head[q].next = i == 0;
            r.in_tail[q].next = i + 1 == pk.flits.len();
            r.in_data[q].next = pk.flits[i].into();
            r.in_vc[q].next = (c as u64).into();
            sent[q] = Some(c);
        }
        // Downstream receivers return credits after random delays.
        for k in 0..p * v {
            let due = returns[k].front().is_some_and(|&t| t <= cycle);
            r.out_credit[k].next = due;
            if due {
                returns[k].pop_front();
                out_credits[k] += 1;
            }
        }
        r.clock.next = Clock::from(false);
        simulate(&mut r, 1000);
        idle += 1;
        for (q, sent_on) in sent.iter().enumerate() {
            if let Some(&c) = sent_on.as_ref() {
                let k = q * v + c;
                send_credits[k] -= 1;
                send_pos[k] += 1;
                if send_pos[k] == queues[k][0].flits.len() {
                    queues[k].pop_front();
                    send_pos[k] = 0;
                }
            }
        }
        for (k, credits) in send_credits.iter_mut().enumerate() {
            if r.in_credit[k].val() {
                *credits += 1;
                assert!(*credits <= depth, "input VC {k}: more credits than slots");
            }
        }
        for o in 0..p {
            if !r.out_valid[o].val() {
                continue;
            }
            idle = 0;
            let c = r.out_vc[o].val().index();
            assert!(c < v, "output {o}: VC {c} out of range");
            let k = o * v + c;
            assert!(
                out_credits[k] > 0,
                "cycle {cycle}: output {o} VC {c} sent without a credit"
            );
            out_credits[k] -= 1;
            let delay = 1 + (rng.next_u64() % 12) as usize;
            let at = returns[k].back().map_or(0, |&t| t + 1).max(cycle + delay);
            returns[k].push_back(at);
            let data = r.out_data[o].val().to_u64();
            let head = r.out_head[o].val();
            let tail = r.out_tail[o].val();
            if head {
                assert!(
                    holding[k].is_none(),
                    "cycle {cycle}: output {o} VC {c}: a head interleaves another packet"
                );
                let pid = (data >> (n * f)) as usize;
                let pk = all
                    .get(&pid)
                    .unwrap_or_else(|| panic!("cycle {cycle}: unknown packet {pid} on output {o}"));
                assert!(!seen_head[pid], "packet {pid} delivered twice");
                seen_head[pid] = true;
                assert!(
                    rel.permits(node, pk.input, pk.dest, port_of(o), c as u8),
                    "packet {pid} to {} left on port {o} VC {c}, which the relation does not permit",
                    net.node_name(pk.dest)
                );
                // In order: packets from one input VC that share an output
                // VC leave in the order they came (on different outputs they
                // may pass one another in the output buffers).
                let ik = pk.in_port * v + pk.in_vc;
                let last = last_seq.entry((ik, k)).or_insert(None);
                assert!(
                    !matches!(*last, Some(l) if l >= pk.seq),
                    "packet {pid} overtook another from its input VC on output {o} VC {c}"
                );
                *last = Some(pk.seq);
                // Header rule: with relative addressing the offset of the
                // dimension travelled moves one step toward zero; everything
                // else (and the whole header with absolute addressing) is
                // unchanged.
                let mut expect = pk.flits[0];
                if let (Port::Link { dim, dir }, false) = (port_of(o), absolute) {
                    let shift = dim as usize * f;
                    let field = (expect >> shift) & fmask;
                    let moved = match dir {
                        Dir::Plus => field.wrapping_sub(1),
                        Dir::Minus => field.wrapping_add(1),
                    } & fmask;
                    expect = (expect & !(fmask << shift)) | (moved << shift);
                }
                assert_eq!(
                    data, expect,
                    "packet {pid}: head {data:#x}, expected {expect:#x}"
                );
                holding[k] = Some((pid, 1));
            } else {
                let (pid, i) = holding[k].unwrap_or_else(|| {
                    panic!("cycle {cycle}: output {o} VC {c}: a body flit outside a packet")
                });
                let pk = &all[&pid];
                assert!(i < pk.flits.len(), "packet {pid}: too many flits");
                assert_eq!(data, pk.flits[i], "packet {pid} flit {i} changed");
                holding[k] = Some((pid, i + 1));
            }
            if tail {
                let (pid, i) = holding[k].expect("held");
                assert_eq!(i, all[&pid].flits.len(), "packet {pid}: tail too early");
                holding[k] = None;
                delivered += 1;
            } else if let Some((pid, i)) = holding[k] {
                assert!(i < all[&pid].flits.len(), "packet {pid}: tail flag missing");
            }
        }
        r.clock.next = Clock::from(true);
        simulate(&mut r, 1000);
    }
    assert!(seen_head.iter().all(|&s| s));
    cycle
}

#[test]
fn scoreboard_dor_v1_middle_node() {
    let s = spec(Algorithm::DimensionOrder, 4, 1);
    let node = 1 + 4 * 2; // (1, 2)
    let cycles = scoreboard::<16>(&s, node, 60, 11);
    eprintln!("dor v1: {cycles} cycles");
}

#[test]
fn scoreboard_dor_v2_middle_and_corner() {
    let s = spec(Algorithm::DimensionOrder, 5, 2);
    let cycles = scoreboard::<16>(&s, 2 + 5 * 2, 20, 12);
    eprintln!("dor v2 middle: {cycles} cycles");
    let cycles = scoreboard::<16>(&s, 0, 20, 13);
    eprintln!("dor v2 corner: {cycles} cycles");
}

fn spec_with(algorithm: Algorithm, radix: u32, vcs: u32, sel: PathSelection) -> RouterSpec {
    RouterSpec {
        path_selection: sel,
        ..spec(algorithm, radix, vcs)
    }
}

#[test]
fn scoreboard_turn_models_v1() {
    for (a, seed) in [
        (Algorithm::NegativeFirst, 21),
        (Algorithm::WestFirst, 22),
        (Algorithm::NorthLast, 23),
    ] {
        let s = spec_with(a, 4, 1, PathSelection::MaxCredit);
        let cycles = scoreboard::<16>(&s, 1 + 4 * 2, 60, seed);
        eprintln!("{a} v1: {cycles} cycles");
    }
}

#[test]
fn scoreboard_planar_and_duato_v2() {
    for (a, sel, seed) in [
        (Algorithm::PlanarAdaptive, PathSelection::Lru, 31),
        (Algorithm::Duato, PathSelection::MaxCredit, 32),
        (Algorithm::Duato, PathSelection::MinMux, 33),
        (Algorithm::WestFirst, PathSelection::Lfu, 34),
    ] {
        let s = spec_with(a, 4, 2, sel);
        let cycles = scoreboard::<16>(&s, 2 + 4, 40, seed);
        eprintln!("{a} v2 {sel}: {cycles} cycles");
    }
}

#[test]
fn scoreboard_absolute_addressing() {
    for (a, k, v, node, seed) in [
        (Algorithm::DimensionOrder, 4, 1, 1 + 4 * 2, 51),
        (Algorithm::Duato, 5, 2, 2 + 5 * 3, 52),
        (Algorithm::WestFirst, 4, 1, 0, 53),
    ] {
        let s = RouterSpec {
            addressing: Addressing::Absolute,
            ..spec(a, k, v)
        };
        let cycles = scoreboard::<16>(&s, node, 30, seed);
        eprintln!("{a} v{v} absolute: {cycles} cycles");
    }
}

#[test]
fn scoreboard_wide_flits() {
    for (w, a, seed) in [
        (32, Algorithm::DimensionOrder, 61),
        (64, Algorithm::NegativeFirst, 62),
    ] {
        let s = RouterSpec {
            flit_width: w,
            ..spec(a, 4, 2)
        };
        let cycles = if w == 32 {
            scoreboard::<32>(&s, 1 + 4 * 2, 30, seed)
        } else {
            scoreboard::<64>(&s, 1 + 4 * 2, 30, seed)
        };
        eprintln!("{a} w{w}: {cycles} cycles");
    }
}

#[test]
fn scoreboard_duato_v3() {
    let s = spec_with(Algorithm::Duato, 4, 3, PathSelection::MaxCredit);
    let cycles = scoreboard::<16>(&s, 1 + 4 * 2, 30, 41);
    eprintln!("duato v3: {cycles} cycles");
}

/// The top module's ports, written from docs/interface.md: (name, input,
/// width) in the document's order.
fn interface_ports(spec: &RouterSpec) -> Vec<(String, bool, u32)> {
    let mut ports = crate::emit::documented_ports(spec);
    if spec.addressing == Addressing::Absolute {
        let field = if spec.radix <= 2 {
            1
        } else {
            32 - (spec.radix - 1).leading_zeros()
        };
        ports.insert(2, ("node_id".to_string(), true, spec.dims * field));
    }
    ports
}

/// The ports declared in module `name` of `verilog` (ANSI style).
fn declared_ports(verilog: &str, name: &str) -> Vec<(String, bool, u32)> {
    crate::emit::module_ports(verilog, name).expect("top module present")
}

#[test]
fn top_module_has_exactly_the_documented_ports() {
    for (algo, k, v) in [
        (Algorithm::DimensionOrder, 4, 1),
        (Algorithm::DimensionOrder, 5, 2),
        (Algorithm::DimensionOrder, 4, 3),
        (Algorithm::Duato, 8, 2),
        (Algorithm::WestFirst, 4, 2),
    ] {
        let mut s = spec(algo, k, v);
        if algo == Algorithm::WestFirst {
            s.flit_width = 64;
        }
        if algo == Algorithm::Duato {
            s.addressing = Addressing::Absolute;
        }
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
            RouterSpec {
                topology: crate::spec::Topology::Torus,
                vcs: 2,
                ..base.clone()
            },
            "torus",
        ),
        (
            RouterSpec {
                lookahead: true,
                ..base.clone()
            },
            "look-ahead",
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
                dims: 3,
                ports: 7,
                ..base.clone()
            },
            "3-D",
        ),
        (
            RouterSpec {
                vcs: 4,
                ..base.clone()
            },
            "virtual channels",
        ),
        (
            RouterSpec {
                table: TableStorage::Economical,
                ..base.clone()
            },
            "table",
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
    assert!(supported(&base).is_ok());
}

/// Verilator -Wall, iverilog -Wall and Yosys synth on one configuration of
/// each algorithm.
fn lint_and_synth(configs: &[RouterSpec]) {
    use crate::flows::{lint_warnings, require_tool, yosys};
    if !require_tool("verilator") || !require_tool("iverilog") || !require_tool("yosys") {
        return;
    }
    let t0 = std::time::Instant::now();
    for s in configs {
        // Two-flit buffers: the same logic, less for Yosys to synthesize.
        let s = &RouterSpec {
            buffer_depth: 2,
            ..s.clone()
        };
        let text = verilog(s).expect("supported");
        let top = s.name();
        let lint = lint_warnings(&text, &top).expect("the linters run");
        assert!(lint.is_empty(), "{top}:\n{}", lint.join("\n"));
        let cells = yosys::synth(&text, &top).expect("yosys synth");
        assert!(cells.flip_flops() > 0, "{top}: synth kept no flip-flops");
        eprintln!("{top}: lint, iverilog, yosys {:?}", t0.elapsed());
    }
}

#[test]
fn emitted_verilog_lints_and_synthesizes_dor_and_turn_models() {
    lint_and_synth(&[
        spec(Algorithm::DimensionOrder, 4, 1),
        RouterSpec {
            flit_width: 32,
            ..spec_with(Algorithm::NegativeFirst, 4, 1, PathSelection::MaxCredit)
        },
        spec_with(Algorithm::WestFirst, 4, 1, PathSelection::Lru),
        RouterSpec {
            addressing: Addressing::Absolute,
            ..spec_with(Algorithm::NorthLast, 4, 1, PathSelection::StaticXy)
        },
    ]);
}

#[test]
fn emitted_verilog_lints_and_synthesizes_planar_and_duato() {
    lint_and_synth(&[
        spec_with(Algorithm::PlanarAdaptive, 4, 2, PathSelection::MaxCredit),
        spec_with(Algorithm::Duato, 4, 2, PathSelection::MinMux),
    ]);
}

/// The co-simulation of `core` (a router's rust-hdl model against its core
/// module) moved to the clean top module of docs/interface.md: the same
/// stimulus and model outputs, packed into the documented ports (credit bits
/// into V-bit buses, VC numbers into VB bits), through a small adapter that
/// names the clock `clock` as the harness expects.
fn through_top(s: &RouterSpec, core: &crate::blocks::Variant) -> crate::blocks::Variant {
    use crate::flows::verilator::Port as VPort;
    let text = verilog(s).expect("supported");
    let top_ports = declared_ports(&text, &s.name());
    let adapter = format!("{}_cosim", s.name());
    let v = s.vcs as usize;
    let mut ports = vec![VPort {
        name: "clock".into(),
        width: 1,
        input: true,
    }];
    let mut decls = vec!["    input wire clock;".to_string()];
    let mut conns = vec![".clk(clock)".to_string()];
    for (name, input, width) in top_ports.iter().filter(|p| p.0 != "clk") {
        ports.push(VPort {
            name: name.clone(),
            width: *width as usize,
            input: *input,
        });
        let dir = if *input { "input" } else { "output" };
        decls.push(format!("    {dir} wire [{}:0] {name};", width - 1));
        conns.push(format!(".{name}({name})"));
    }
    let names: Vec<&str> = ports.iter().map(|p| p.name.as_str()).collect();
    let wrapper = format!(
        "module {adapter}({});\n{}\n    {} dut({});\nendmodule\n",
        names.join(", "),
        decls.join("\n"),
        s.name(),
        conns.join(", ")
    );
    let core_in: Vec<&str> = core
        .ports
        .iter()
        .filter(|p| p.input && p.name != "clock")
        .map(|p| p.name.as_str())
        .collect();
    let core_out: Vec<&str> = core
        .ports
        .iter()
        .filter(|p| !p.input)
        .map(|p| p.name.as_str())
        .collect();
    let at = |list: &[&str], row: &[u64], name: &str| -> u64 {
        let k = list.iter().position(|n| *n == name).expect(name);
        row[k]
    };
    // Top port `p<P>_<sig>` from the core's `<sig>$P` (or `<sig>$(P V + c)`
    // packed for the credit buses).
    let value = |list: &[&str], row: &[u64], port: &VPort| -> u64 {
        let Some((pp, sig)) = port
            .name
            .split_once('_')
            .filter(|(a, _)| a.starts_with('p'))
        else {
            let mask = if port.width >= 64 {
                u64::MAX
            } else {
                (1 << port.width) - 1
            };
            return at(list, row, &port.name) & mask;
        };
        let q: usize = pp[1..].parse().expect("port number");
        if sig.ends_with("credit") {
            (0..v)
                .map(|c| at(list, row, &format!("{sig}${}", q * v + c)) << c)
                .sum()
        } else {
            at(list, row, &format!("{sig}${q}"))
        }
    };
    let ins: Vec<&VPort> = ports.iter().skip(1).filter(|p| p.input).collect();
    let outs: Vec<&VPort> = ports.iter().filter(|p| !p.input).collect();
    crate::blocks::Variant {
        top: adapter,
        verilog: format!("{text}\n{wrapper}"),
        stimulus: core
            .stimulus
            .iter()
            .map(|row| ins.iter().map(|p| value(&core_in, row, p)).collect())
            .collect(),
        model: core
            .model
            .iter()
            .map(|row| outs.iter().map(|p| value(&core_out, row, p)).collect())
            .collect(),
        ports,
    }
}

/// Co-simulation: the rust-hdl router and a Verilator build of its emitted
/// Verilog on the same seeded random stimulus, every output every cycle
/// (all configurations and a faulty copy in one build).
#[test]
fn emitted_verilog_matches_the_model() {
    use crate::blocks::{cosimulate_all, Variant};
    use crate::flows::require_tool;
    if !require_tool("verilator") {
        return;
    }
    let t0 = std::time::Instant::now();
    let configs = [
        spec(Algorithm::DimensionOrder, 4, 1),
        RouterSpec {
            addressing: Addressing::Absolute,
            ..spec_with(Algorithm::Duato, 4, 2, PathSelection::MaxCredit)
        },
    ];
    let mut variants = Vec::new();
    for (n, s) in configs.iter().enumerate() {
        let mut r = Router::<16>::new(s).expect("supported");
        crate::blocks::prepare(&mut r);
        let core = core_verilog(s).expect("supported");
        variants.push(Variant::new(
            &mut r,
            &core,
            &core_name(s),
            2000,
            0x7007 + n as u64,
        ));
        eprintln!("{}: model {:?}", s.name(), t0.elapsed());
    }
    // The second configuration through its clean top module.
    variants[1] = through_top(&configs[1], &variants[1]);
    // A faulty copy: an output VC counts as free while another packet holds it.
    let mut mutant = variants[0].clone();
    let faulty = mutant.verilog.replacen("= ~xbar$out_busy$1 &", "= ", 1);
    assert_ne!(
        faulty, mutant.verilog,
        "the mutation must change the Verilog"
    );
    let name = format!("{}_mutant", mutant.top);
    mutant.verilog = faulty.replace(&mutant.top, &name);
    mutant.top = name.clone();
    variants.push(mutant);
    match cosimulate_all(&variants).expect("co-simulation runs") {
        Some((top, _)) if top == name => {}
        Some((top, m)) => panic!("{top}: the Verilog differs from the rust-hdl model: {m}"),
        None => panic!("co-simulation missed the faulty copy {name}"),
    }
    eprintln!("co-simulation {:?}", t0.elapsed());
}
