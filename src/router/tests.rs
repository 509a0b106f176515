//! Router tests. The oracles are the routing relation (`Relation::permits`),
//! the interface document's port numbering, header rule and flow-control
//! rules (written here from docs/interface.md), and the Verilog tools; none
//! is computed by the router code.

use std::collections::{HashMap, VecDeque};

use super::*;
use crate::algo::{Dir, Input, NodeId, Port};
use crate::blocks::cosim::SplitMix64;
use crate::sim::network::port_of;
use crate::spec::{Addressing, Algorithm, PathSelection, SpecInput};

/// A resolved spec: `algorithm` on a k-ary n-dimensional `topology`, V
/// VCs, 16-bit flits, relative addressing, the default path selection.
pub(crate) fn spec_on(
    algorithm: Algorithm,
    topology: Topology,
    dims: u32,
    radix: u32,
    vcs: u32,
) -> RouterSpec {
    SpecInput {
        topology: Some(topology),
        dims: Some(dims as i64),
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

/// `algorithm` on a k x k mesh.
pub(crate) fn spec(algorithm: Algorithm, radix: u32, vcs: u32) -> RouterSpec {
    spec_on(algorithm, Topology::Mesh, 2, radix, vcs)
}

fn spec_with(algorithm: Algorithm, radix: u32, vcs: u32, sel: PathSelection) -> RouterSpec {
    RouterSpec {
        path_selection: sel,
        ..spec(algorithm, radix, vcs)
    }
}

fn absolute(s: RouterSpec) -> RouterSpec {
    RouterSpec {
        addressing: Addressing::Absolute,
        ..s
    }
}

/// `s` with the economical-storage table (absolute addressing, as the
/// spec requires).
fn economical(s: RouterSpec) -> RouterSpec {
    RouterSpec {
        table: TableStorage::Economical,
        ..absolute(s)
    }
}

/// `s` with the full routing table (absolute addressing).
fn full_table(s: RouterSpec) -> RouterSpec {
    RouterSpec {
        table: TableStorage::Full,
        ..absolute(s)
    }
}

/// `s` with the two-level meta table (absolute addressing).
fn meta_table(s: RouterSpec) -> RouterSpec {
    RouterSpec {
        table: TableStorage::Meta,
        ..absolute(s)
    }
}

/// `s` with look-ahead routing and `w`-bit flits.
fn lookahead(s: RouterSpec, w: u32) -> RouterSpec {
    RouterSpec {
        lookahead: true,
        flit_width: w,
        ..s
    }
}

/// `s` with on/off flow control and `depth`-flit buffers.
pub(super) fn on_off(s: RouterSpec, depth: u32) -> RouterSpec {
    RouterSpec {
        flow_control: FlowControl::OnOff,
        buffer_depth: depth,
        ..s
    }
}

/// Bits of one coordinate of `node_id` (docs/interface.md).
fn coord_bits(spec: &RouterSpec) -> usize {
    if spec.topology == Topology::Hypercube {
        1
    } else {
        (32 - (spec.radix - 1).leading_zeros()) as usize
    }
}

/// The address field docs/interface.md prescribes for dimension `d` of a
/// packet at `at` bound for `dest`; `tie_minus` picks the sign of a torus
/// offset of exactly k/2.
fn address_field(
    spec: &RouterSpec,
    net: &Network,
    at: NodeId,
    dest: NodeId,
    d: usize,
    tie_minus: bool,
) -> i64 {
    let a = i64::from(net.coord(at, d));
    let b = i64::from(net.coord(dest, d));
    let k = i64::from(spec.radix);
    match (spec.addressing, spec.topology) {
        (Addressing::Absolute, _) => b,
        (_, Topology::Hypercube) => i64::from(a != b),
        (_, Topology::Mesh) => b - a,
        (_, Topology::Torus) => {
            let fwd = (b - a).rem_euclid(k);
            if 2 * fwd < k || (2 * fwd == k && !tie_minus) {
                fwd
            } else {
                fwd - k
            }
        }
    }
}

/// The look-ahead field of a head flit arriving at `at` through `input`
/// for `dest` (docs/interface.md: bit p for each port p the relation
/// permits there, ports numbered as the interface numbers them; on a torus
/// also bit P + p where leaving by p the packet still has the wraparound
/// link of p's dimension ahead: the destination's coordinate is below
/// this node's going +, above it going -).
fn la_field(rel: &Relation, at: NodeId, input: Input, dest: NodeId) -> u64 {
    let net = &rel.net;
    let p = net.port_count();
    rel.hops(at, input, dest).iter().fold(0, |acc, h| {
        let o = (0..p)
            .find(|&o| port_of(net, at, o) == h.port)
            .expect("a permitted port exists");
        let wrap = match h.port {
            Port::Link { dim, dir } if net.topology == Topology::Torus => {
                let (a, b) = (net.coord(at, dim as usize), net.coord(dest, dim as usize));
                if dir == Dir::Plus {
                    b < a
                } else {
                    b > a
                }
            }
            _ => false,
        };
        acc | 1 << o | u64::from(wrap) << (p + o)
    })
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

/// Scoreboard run: one router at `node` of the spec's network; packets on
/// every input VC to destinations the relation lets a message arriving
/// there take, random back-pressure both ways. Checks every flit is
/// delivered once, in order per input VC, unchanged but for the documented
/// header update, on a port and VC the relation permits, never beyond the
/// downstream credits, never interleaved with another packet on one VC.
///
/// With on/off flow control (docs/interface.md) the test's senders send on
/// an input VC only in the cycle after they saw its level high, as fast as
/// that allows; a model of each input buffer (flits sent in, less those of
/// its packets that left) must show the level high exactly while 2 slots
/// are free (at least then in a sliced router, whose flits leave the input
/// buffer for the next slice before they leave the router). Downstream, a model of each receiving buffer (D slots, drained
/// at random, with stretches of no draining) drives the level high while
/// 2 of its slots are free, and low at random besides; a flit arriving at
/// a full model buffer, or in a cycle after a low level, fails.
/// Panics on the first violation; returns the cycles taken.
// Index loops on purpose: port and VC numbers index several tables at once.
#[allow(clippy::needless_range_loop)]
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
    let relative = spec.addressing == Addressing::Relative;
    // docs/interface.md: node_id holds the coordinates, dimension 0 low.
    let cb = coord_bits(spec);
    let node_id: u64 = (0..n)
        .map(|d| (net.coord(node, d) as u64) << (d * cb))
        .sum();
    r.node_id.next = node_id.into();
    let mut rng = SplitMix64::new(seed);

    // Packet ids ride in the head flit's payload when it has room, else in
    // the second flit (every packet then has two flits at least).
    // Look-ahead: the field sits above the address fields, ids above it.
    let ab = n * f;
    let hb = spec.header_bits() as usize;
    let la = spec.lookahead;
    let la_bits = hb - ab;
    let payload = W - hb;
    let estimate = packets_per_vc * p * v;
    let id_in_head = payload >= 64 || (1usize << payload) > estimate;
    let min_len = if id_in_head { 1 } else { 2 };
    let onoff = spec.flow_control == FlowControl::OnOff;
    let sliced = spec.datapath == RouterDatapath::Sliced;
    // docs/interface.md: a level is high while this many slots are free.
    let slack = 2;
    assert!(
        !onoff || id_in_head,
        "the on/off input-buffer model needs the packet id in the head flit"
    );

    let mut queues: Vec<VecDeque<Packet>> = vec![VecDeque::new(); p * v];
    let mut all: HashMap<usize, Packet> = HashMap::new();
    let mut id = 0;
    for q in 0..p {
        let here = port_of(&net, node, q);
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
            for seq in 0..packets_per_vc {
                if dests.is_empty() {
                    break;
                }
                let dest = dests[(rng.next_u64() % dests.len() as u64) as usize];
                let len = min_len + (rng.next_u64() % 4) as usize;
                let mut head = 0u64;
                for d in 0..n {
                    let x = address_field(spec, &net, node, dest, d, rng.chance(0.5));
                    head |= (x as u64 & fmask) << (d * f);
                }
                let mut flits = vec![head];
                for _ in 1..len {
                    flits.push(rng.next_u64() & wmask);
                }
                if la {
                    // docs/interface.md: a link input carries the ports the
                    // relation permits here; the local port's field is
                    // ignored, so it gets random bits.
                    let input = Input {
                        port: travelling,
                        vc: c as u8,
                    };
                    let field = if q == 0 {
                        rng.next_u64() & ((1 << la_bits) - 1)
                    } else {
                        la_field(&rel, node, input, dest)
                    };
                    flits[0] |= field << ab;
                }
                if id_in_head {
                    flits[0] |= (id as u64) << hb;
                } else {
                    flits[0] |= (rng.next_u64() << hb) & wmask;
                    flits[1] = id as u64;
                }
                flits[0] &= wmask;
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
    assert!(id <= estimate);
    let total = id;

    // The head the packet must leave with on port `o` (docs/interface.md:
    // relative addressing moves the travelled dimension's field to the
    // remaining offset from the next node; with look-ahead the field names
    // the ports the relation permits at the next router; otherwise
    // unchanged; leaving by the local port, unchanged).
    let expected_head = |pk: &Packet, o: usize| -> u64 {
        let mut h = pk.flits[0];
        let out = port_of(&net, node, o);
        if let (Port::Link { dim, .. }, true) = (out, relative) {
            let d = dim as usize;
            let next = net.neighbour(node, out).expect("a link");
            let x = address_field(spec, &net, next, pk.dest, d, false);
            h = (h & !(fmask << (d * f))) | ((x as u64 & fmask) << (d * f));
        }
        if la && o != 0 {
            let next = net.neighbour(node, out).expect("a link");
            let arriving = Input { port: out, vc: 0 };
            let lamask = ((1u64 << la_bits) - 1) << ab;
            h = (h & !lamask) | (la_field(&rel, next, arriving, pk.dest) << ab);
        }
        h
    };

    // Sender state per input VC: credits, position in the current packet.
    let mut send_credits = vec![depth; p * v];
    let mut send_pos = vec![0usize; p * v];
    // Receiver state per output VC: credits, packet in progress (its id
    // once known, the head, flits seen), credit returns due.
    let mut out_credits = vec![depth; p * v];
    let mut holding: Vec<Option<(Option<usize>, u64, usize)>> = vec![None; p * v];
    let mut returns: Vec<VecDeque<usize>> = vec![VecDeque::new(); p * v];
    // On/off: per input VC the level seen last cycle and the buffer model;
    // per output VC the level driven last cycle and the receiving buffer.
    let mut level_seen = vec![false; p * v];
    let mut occupancy = vec![0usize; p * v];
    let mut level_driven = vec![false; p * v];
    let mut receiving = vec![0usize; p * v];
    let mut delivered = 0;
    let mut last_seq: HashMap<usize, usize> = HashMap::new();
    let mut seen = vec![false; total];
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
                .filter(|&c| {
                    let k = q * v + c;
                    !queues[k].is_empty()
                        && if onoff {
                            level_seen[k]
                        } else {
                            send_credits[k] > 0
                        }
                })
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
        // Downstream receivers return credits after random delays; or, on/off,
        // drain their buffers at random (not at all for stretches) and show
        // their levels.
        let stalled = (cycle / 150) % 4 == 3;
        let mut drained = vec![false; p * v];
        let mut levels = vec![false; p * v];
        for k in 0..p * v {
            if onoff {
                levels[k] = !rst && depth - receiving[k] >= slack && !rng.chance(0.1);
                r.out_credit[k].next = levels[k];
                drained[k] = receiving[k] > 0 && !stalled && rng.chance(0.6);
                continue;
            }
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
        if onoff && !rst {
            for k in 0..p * v {
                let want = occupancy[k] + slack <= depth;
                let level = r.in_credit[k].val();
                // Slices: a flit may have moved on into the next slice's
                // buffer, so the level may be high with the model's buffer
                // fuller (docs/interface.md, "Flow control").
                if sliced && level && !want {
                    continue;
                }
                assert_eq!(
                    level,
                    want,
                    "cycle {cycle}: input VC {k} holds {} of {depth} flits: its level should \
                     be {}",
                    occupancy[k],
                    if want { "high" } else { "low" }
                );
            }
        }
        for (q, sent_on) in sent.iter().enumerate() {
            if let Some(&c) = sent_on.as_ref() {
                let k = q * v + c;
                occupancy[k] += 1;
                if onoff {
                    send_pos[k] += 1;
                    if send_pos[k] == queues[k][0].flits.len() {
                        queues[k].pop_front();
                        send_pos[k] = 0;
                    }
                    continue;
                }
                send_credits[k] -= 1;
                send_pos[k] += 1;
                if send_pos[k] == queues[k][0].flits.len() {
                    queues[k].pop_front();
                    send_pos[k] = 0;
                }
            }
        }
        for (k, credits) in send_credits.iter_mut().enumerate() {
            if onoff {
                level_seen[k] = !rst && r.in_credit[k].val();
                continue;
            }
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
            if onoff {
                assert!(
                    level_driven[k],
                    "cycle {cycle}: output {o} VC {c} sent the cycle after a low level"
                );
                assert!(
                    receiving[k] < depth,
                    "cycle {cycle}: output {o} VC {c} overflowed the downstream buffer"
                );
                receiving[k] += 1;
            } else {
                assert!(
                    out_credits[k] > 0,
                    "cycle {cycle}: output {o} VC {c} sent without a credit"
                );
                out_credits[k] -= 1;
                let delay = 1 + (rng.next_u64() % 12) as usize;
                let at = returns[k].back().map_or(0, |&t| t + 1).max(cycle + delay);
                returns[k].push_back(at);
            }
            let data = r.out_data[o].val().to_u64();
            let head = r.out_head[o].val();
            let tail = r.out_tail[o].val();
            if head {
                assert!(
                    holding[k].is_none(),
                    "cycle {cycle}: output {o} VC {c}: a head interleaves another packet"
                );
                holding[k] = Some((None, data, 0));
            }
            let Some((pid, head_data, i)) = holding[k] else {
                panic!("cycle {cycle}: output {o} VC {c}: a body flit outside a packet");
            };
            let pid = match pid {
                Some(pid) => {
                    assert_eq!(data, all[&pid].flits[i], "packet {pid} flit {i} changed");
                    pid
                }
                None if i == 0 && !id_in_head => {
                    // The id rides in the second flit: the head waits.
                    assert!(
                        !tail,
                        "cycle {cycle}: output {o} VC {c}: a one-flit packet without its id"
                    );
                    holding[k] = Some((None, data, 1));
                    continue;
                }
                None if i == usize::from(!id_in_head) => {
                    // The packet is known: check its head and the hop.
                    let pid = if id_in_head {
                        (data >> hb) as usize
                    } else {
                        data as usize
                    };
                    let pk = all.get(&pid).unwrap_or_else(|| {
                        panic!("cycle {cycle}: unknown packet {pid} on output {o}")
                    });
                    assert!(!seen[pid], "packet {pid} delivered twice");
                    seen[pid] = true;
                    assert!(
                        rel.permits(node, pk.input, pk.dest, port_of(&net, node, o), c as u8),
                        "packet {pid} to {} left on port {o} VC {c}, which the relation \
                         does not permit",
                        net.node_name(pk.dest)
                    );
                    // Packets of one input VC leave in the order they came
                    // (by the same output port in a sliced router, where a
                    // packet that moves on to the next slice may leave
                    // after one behind it that kept its dimension; by
                    // the same output VC with plane slices, where a link's
                    // VCs belong to different planes' slices).
                    let lane = match r.organization() {
                        Organization::Unified(_) => 0,
                        Organization::DimensionSlices(_) | Organization::VcPorts(_) => o,
                        Organization::PlaneSlices(_) => k,
                    };
                    let ik = (pk.in_port * v + pk.in_vc) * p * v + lane;
                    if let Some(&last) = last_seq.get(&ik) {
                        assert!(
                            last < pk.seq,
                            "packet {pid} overtook another of its input VC"
                        );
                    }
                    last_seq.insert(ik, pk.seq);
                    let expect = expected_head(pk, o);
                    assert_eq!(
                        head_data, expect,
                        "packet {pid} on port {o}: head {head_data:#x}, expected {expect:#x}"
                    );
                    if i == 1 {
                        assert_eq!(data, pk.flits[1], "packet {pid} flit 1 changed");
                    }
                    pid
                }
                None => {
                    panic!("cycle {cycle}: output {o} VC {c}: a one-flit packet without its id")
                }
            };
            assert!(i < all[&pid].flits.len(), "packet {pid}: too many flits");
            let from = all[&pid].in_port * v + all[&pid].in_vc;
            // With the id in the second flit, the head is counted with it.
            occupancy[from] -= if i == 1 && !id_in_head { 2 } else { 1 };
            holding[k] = Some((Some(pid), head_data, i + 1));
            if tail {
                assert_eq!(i + 1, all[&pid].flits.len(), "packet {pid}: tail too early");
                holding[k] = None;
                delivered += 1;
            } else {
                assert!(
                    i + 1 < all[&pid].flits.len(),
                    "packet {pid}: tail flag missing"
                );
            }
        }
        if onoff {
            for k in 0..p * v {
                receiving[k] -= usize::from(drained[k]);
            }
            level_driven = levels;
        }
        r.clock.next = Clock::from(true);
        simulate(&mut r, 1000);
    }
    assert!(seen.iter().all(|&s| s));
    assert!(occupancy.iter().all(|&o| o == 0));
    cycle
}

/// [`scoreboard`] at the spec's flit width.
pub(super) fn run(spec: &RouterSpec, node: NodeId, packets_per_vc: usize, seed: u64) -> usize {
    match spec.flit_width {
        16 => scoreboard::<16>(spec, node, packets_per_vc, seed),
        32 => scoreboard::<32>(spec, node, packets_per_vc, seed),
        _ => scoreboard::<64>(spec, node, packets_per_vc, seed),
    }
}

pub(super) fn node_at(spec: &RouterSpec, coords: &[u32]) -> NodeId {
    Network::new(spec.topology, spec.dims, spec.radix)
        .unwrap()
        .node_at(coords)
}

#[test]
fn scoreboard_dor_v1_middle_node() {
    let s = spec(Algorithm::DimensionOrder, 4, 1);
    let cycles = run(&s, node_at(&s, &[1, 2]), 60, 11);
    eprintln!("dor v1: {cycles} cycles");
}

#[test]
fn scoreboard_dor_v2_middle_and_corner() {
    let s = spec(Algorithm::DimensionOrder, 5, 2);
    for (node, seed) in [(node_at(&s, &[2, 2]), 12), (0, 13)] {
        let cycles = run(&s, node, 20, seed);
        eprintln!("dor v2 at {node}: {cycles} cycles");
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
        let cycles = run(&s, node_at(&s, &[1, 2]), 40, seed);
        eprintln!("{a} v1: {cycles} cycles");
    }
}

#[test]
fn scoreboard_planar_and_duato_v2_every_path_selection() {
    for (a, sel, seed) in [
        (Algorithm::PlanarAdaptive, PathSelection::Lru, 31),
        (Algorithm::Duato, PathSelection::MaxCredit, 32),
        (Algorithm::Duato, PathSelection::MinMux, 33),
        (Algorithm::WestFirst, PathSelection::Lfu, 34),
        (Algorithm::PlanarAdaptive, PathSelection::StaticXy, 35),
    ] {
        let s = spec_with(a, 4, 2, sel);
        let cycles = run(&s, node_at(&s, &[2, 1]), 25, seed);
        eprintln!("{a} v2 {sel}: {cycles} cycles");
    }
}

#[test]
fn scoreboard_absolute_addressing_and_wide_flits() {
    for (s, coords, seed) in [
        (absolute(spec(Algorithm::DimensionOrder, 4, 1)), [1, 2], 51),
        (absolute(spec(Algorithm::Duato, 5, 3)), [2, 3], 52),
        (absolute(spec(Algorithm::WestFirst, 4, 1)), [0, 0], 53),
        (
            RouterSpec {
                flit_width: 32,
                ..spec(Algorithm::DimensionOrder, 4, 2)
            },
            [1, 2],
            61,
        ),
        (
            RouterSpec {
                flit_width: 64,
                ..spec(Algorithm::NegativeFirst, 4, 2)
            },
            [1, 2],
            62,
        ),
    ] {
        let cycles = run(&s, node_at(&s, &coords), 20, seed);
        eprintln!("{}: {cycles} cycles", s.name());
    }
}

/// Tori: next to the wraparound links (coordinates 0 and k - 1, where the
/// dateline classes change) and inside, even k (ties) and odd k, relative
/// (the node id decides the dateline) and absolute addressing.
#[test]
fn scoreboard_tori_at_the_wraparound_and_inside() {
    let dor4 = spec_on(Algorithm::DimensionOrder, Topology::Torus, 2, 4, 2);
    let dor5 = spec_on(Algorithm::DimensionOrder, Topology::Torus, 2, 5, 3);
    for (s, coords, seed) in [
        (dor4.clone(), [0, 0], 71),
        (dor4.clone(), [3, 1], 72),
        (absolute(dor4), [2, 3], 73),
        (dor5.clone(), [4, 0], 74),
        (absolute(dor5), [1, 4], 75),
    ] {
        let cycles = run(&s, node_at(&s, &coords), 12, seed);
        eprintln!("{} at {coords:?}: {cycles} cycles", s.name());
    }
}

#[test]
fn scoreboard_adaptive_tori() {
    for (s, coords, seed) in [
        (
            spec_on(Algorithm::Duato, Topology::Torus, 2, 4, 3),
            [3, 0],
            81,
        ),
        (
            absolute(spec_on(Algorithm::StarChannels, Topology::Torus, 2, 4, 3)),
            [0, 3],
            82,
        ),
        (
            spec_on(Algorithm::StarChannels, Topology::Torus, 2, 5, 4),
            [2, 2],
            83,
        ),
    ] {
        let cycles = run(&s, node_at(&s, &coords), 8, seed);
        eprintln!("{} at {coords:?}: {cycles} cycles", s.name());
    }
}

#[test]
fn scoreboard_planar_torus_and_3d_torus() {
    for (s, coords, seed) in [
        (
            spec_on(Algorithm::PlanarAdaptive, Topology::Torus, 2, 4, 8),
            vec![3, 3],
            91,
        ),
        (
            spec_on(Algorithm::DimensionOrder, Topology::Torus, 3, 3, 2),
            vec![0, 2, 1],
            92,
        ),
    ] {
        let cycles = run(&s, node_at(&s, &coords), 3, seed);
        eprintln!("{} at {coords:?}: {cycles} cycles", s.name());
    }
}

#[test]
fn scoreboard_hypercubes() {
    for (s, node, seed) in [
        (
            spec_on(Algorithm::DimensionOrder, Topology::Hypercube, 3, 2, 1),
            0b010,
            101,
        ),
        (
            spec_on(Algorithm::NegativeFirst, Topology::Hypercube, 3, 2, 1),
            0b110,
            102,
        ),
        (
            absolute(spec_on(Algorithm::Duato, Topology::Hypercube, 3, 2, 2)),
            0b101,
            103,
        ),
        (
            spec_on(Algorithm::Duato, Topology::Hypercube, 4, 2, 3),
            0b1001,
            104,
        ),
    ] {
        let cycles = run(&s, node, 12, seed);
        eprintln!("{} at {node:#b}: {cycles} cycles", s.name());
    }
}

#[test]
fn scoreboard_3d_and_4d_meshes() {
    for (s, coords, seed) in [
        (
            spec_on(Algorithm::PlanarAdaptive, Topology::Mesh, 3, 4, 3),
            vec![1, 2, 0],
            111,
        ),
        (
            absolute(spec_on(Algorithm::NegativeFirst, Topology::Mesh, 4, 3, 1)),
            vec![1, 0, 2, 1],
            112,
        ),
    ] {
        let cycles = run(&s, node_at(&s, &coords), 6, seed);
        eprintln!("{} at {coords:?}: {cycles} cycles", s.name());
    }
}

/// On/off flow control with random back-pressure both ways (see
/// [`scoreboard`]): the smallest depth, 2, and deeper buffers; a mesh, an
/// adaptive router choosing by MAX-CREDIT (the levels), a torus at its
/// wraparound, a hypercube.
#[test]
fn scoreboard_on_off_flow_control() {
    for (s, at, seed) in [
        (
            on_off(spec(Algorithm::DimensionOrder, 4, 1), 2),
            vec![1, 2],
            201,
        ),
        (
            on_off(
                spec_with(Algorithm::WestFirst, 4, 2, PathSelection::MaxCredit),
                3,
            ),
            vec![2, 1],
            202,
        ),
        (
            on_off(
                spec_on(Algorithm::DimensionOrder, Topology::Torus, 2, 4, 2),
                4,
            ),
            vec![0, 3],
            203,
        ),
        (
            on_off(
                spec_on(Algorithm::NegativeFirst, Topology::Hypercube, 3, 2, 1),
                2,
            ),
            vec![1, 1, 0],
            204,
        ),
    ] {
        let cycles = run(&s, node_at(&s, &at), 15, seed);
        eprintln!("{} D={} on-off: {cycles} cycles", s.name(), s.buffer_depth);
    }
}

/// Look-ahead (LAPSES §3.2): head flits on the links carry the ports the
/// relation permits here, the local port's field is random (the router
/// ignores it), and every head must leave with the ports the relation
/// permits at the next router ([`scoreboard`]); meshes with deterministic,
/// turn-model and adaptive relations (the field's VCs: Duato's escape
/// channel, planar-adaptive's planes), absolute addressing, hypercubes,
/// on/off flow control.
#[test]
fn scoreboard_lookahead() {
    for (s, at, seed) in [
        (
            lookahead(spec(Algorithm::DimensionOrder, 4, 1), 16),
            vec![1, 2],
            301,
        ),
        (
            lookahead(
                spec_with(Algorithm::Duato, 4, 2, PathSelection::MaxCredit),
                32,
            ),
            vec![2, 1],
            302,
        ),
        (
            lookahead(absolute(spec(Algorithm::WestFirst, 4, 1)), 16),
            vec![0, 3],
            303,
        ),
        (
            lookahead(
                spec_on(Algorithm::PlanarAdaptive, Topology::Mesh, 3, 3, 3),
                32,
            ),
            vec![1, 0, 2],
            304,
        ),
        (
            lookahead(
                spec_on(Algorithm::NegativeFirst, Topology::Hypercube, 3, 2, 1),
                16,
            ),
            vec![1, 1, 0],
            305,
        ),
        (
            on_off(
                lookahead(
                    spec_with(Algorithm::WestFirst, 4, 2, PathSelection::Lru),
                    32,
                ),
                3,
            ),
            vec![1, 1],
            306,
        ),
        // Tori: the field's second half carries the dateline class.
        (
            lookahead(
                spec_on(Algorithm::DimensionOrder, Topology::Torus, 2, 4, 2),
                32,
            ),
            vec![3, 0],
            307,
        ),
        (
            lookahead(spec_on(Algorithm::Duato, Topology::Torus, 3, 4, 3), 32),
            vec![1, 2, 3],
            308,
        ),
        (
            lookahead(
                spec_on(Algorithm::StarChannels, Topology::Torus, 2, 5, 3),
                32,
            ),
            vec![4, 2],
            309,
        ),
        // 9 ports on a 4-D torus: an 18-bit field (in 32-bit flits, which
        // leave the packet id no room in the head: it rides in flit 1).
        (
            lookahead(
                spec_on(Algorithm::DimensionOrder, Topology::Torus, 4, 3, 2),
                32,
            ),
            vec![2, 0, 1, 2],
            310,
        ),
    ] {
        let cycles = run(&s, node_at(&s, &at), 6, seed);
        eprintln!("{} look-ahead at {at:?}: {cycles} cycles", s.name());
    }
}

/// The rate of on/off links, worked out by hand from docs/interface.md: a
/// level seen high in cycle t allows a flit in t + 1, and a buffer's level
/// is high while 2 slots are free. A stream through a buffer that forwards
/// each flit the cycle after it arrives keeps one flit in it, so the level
/// stays high only if D - 1 >= 2: with D = 3 a packet streams one flit per
/// cycle (after one bubble behind the head, which waits a cycle longer to
/// be routed); with D = 2 the level falls after every second flit and the stream
/// runs at half rate (two flits, then two idle cycles).
#[test]
fn on_off_streams_at_full_rate_from_three_slots_and_half_rate_with_two() {
    for depth in [3usize, 2] {
        let s = on_off(spec(Algorithm::DimensionOrder, 4, 1), depth as u32);
        let mut r = Router::<16>::new(&s).unwrap();
        crate::blocks::prepare(&mut r);
        // Node (1,1): a 16-flit packet from the local port to (3,1), +x.
        let flits: Vec<u64> = std::iter::once(0b010u64).chain(0xa1..0xb0).collect();
        let (mut seen, mut next) = (false, 0usize);
        // Downstream of +x: a buffer model drained every cycle.
        let (mut held, mut level) = (0usize, false);
        let mut out = Vec::new();
        for cycle in 0..80usize {
            let rst = cycle < 2;
            r.rst.next = rst;
            let send = !rst && seen && next < flits.len();
            r.in_valid[0].next = send;
            r.in_head[0].next = send && next == 0;
            r.in_tail[0].next = send && next + 1 == flits.len();
            r.in_data[0].next = if send { flits[next] } else { 0 }.into();
            let level_now = !rst && depth - held >= 2;
            r.out_credit[1].next = level_now;
            r.clock.next = Clock::from(false);
            simulate(&mut r, 1000);
            let drained = held > 0;
            if r.out_valid[1].val() {
                assert!(level && held < depth, "cycle {cycle}: overflow downstream");
                held += 1;
                out.push(cycle);
            }
            held -= usize::from(drained);
            level = level_now;
            seen = !rst && r.in_credit[0].val();
            next += usize::from(send);
            r.clock.next = Clock::from(true);
            simulate(&mut r, 1000);
        }
        assert_eq!(out.len(), flits.len(), "D={depth}: {out:?}");
        let gaps: Vec<usize> = out.windows(2).map(|w| w[1] - w[0]).collect();
        eprintln!("D={depth}: flits leave in cycles {out:?}");
        if depth == 3 {
            // The head's routing cycle leaves one bubble (the flits behind
            // it fill the buffer meanwhile); then one flit per cycle.
            let late: Vec<usize> = gaps.iter().copied().filter(|&g| g != 1).collect();
            assert!(
                late.len() <= 1 && late.iter().all(|&g| g == 2),
                "D=3: {out:?}"
            );
        } else {
            // Two flits every four cycles: never more, and no slower.
            let span = out[out.len() - 1] - out[0];
            let busiest = out.windows(3).map(|w| w[2] - w[0]).min().unwrap();
            assert!(
                busiest >= 4 && span <= 2 * (flits.len() - 1),
                "D=2: {out:?}"
            );
        }
    }
}

/// Latency and rate on an idle router, measured against the module
/// documentation: a head flit leaves two cycles after it arrives, and a
/// packet's flits then leave one per cycle.
/// The economical-storage table loaded at reset routes as the relation:
/// LAPSES Figure 7's north-last on a mesh, Duato, planar-adaptive in 3-D,
/// negative-first on a hypercube (its sign is the node's bit).
#[test]
fn scoreboard_economical_storage_table() {
    for (s, at) in [
        (economical(spec(Algorithm::NorthLast, 3, 1)), vec![1, 1]),
        (
            economical(spec_with(Algorithm::Duato, 4, 2, PathSelection::Lru)),
            vec![2, 1],
        ),
        (
            economical(spec_on(Algorithm::PlanarAdaptive, Topology::Mesh, 3, 3, 3)),
            vec![1, 0, 2],
        ),
        (
            economical(spec_on(
                Algorithm::NegativeFirst,
                Topology::Hypercube,
                3,
                2,
                1,
            )),
            vec![1, 0, 1],
        ),
    ] {
        let node = node_at(&s, &at);
        let cycles = run(&s, node, 12, 0xe5 + at.len() as u64);
        eprintln!("{}: {cycles} cycles", s.name());
    }
}

/// The full table loaded at reset routes as the relation at every node it
/// is placed: dimension order on a mesh (a corner) and on a torus (its
/// dateline classes in the entries' VC classes), Duato on a mesh, and
/// negative-first on a hypercube.
#[test]
fn scoreboard_full_table() {
    for (s, at) in [
        (
            full_table(spec(Algorithm::DimensionOrder, 4, 1)),
            vec![0, 3],
        ),
        (
            full_table(spec_on(Algorithm::DimensionOrder, Topology::Torus, 2, 4, 2)),
            vec![3, 1],
        ),
        (
            full_table(spec_with(Algorithm::Duato, 4, 2, PathSelection::Lru)),
            vec![2, 1],
        ),
        (
            full_table(spec_on(
                Algorithm::NegativeFirst,
                Topology::Hypercube,
                3,
                2,
                1,
            )),
            vec![1, 0, 1],
        ),
    ] {
        let node = node_at(&s, &at);
        let cycles = run(&s, node, 10, 0xf0 + at.len() as u64);
        eprintln!("{}: {cycles} cycles", s.name());
    }
}

/// The meta table loaded at reset routes as the relation (the scoreboard)
/// on a mesh, a torus, north-last and a 4-cube.
#[test]
fn scoreboard_meta_table() {
    for (s, at) in [
        (
            meta_table(spec(Algorithm::DimensionOrder, 4, 1)),
            vec![1, 2],
        ),
        (
            meta_table(spec_on(Algorithm::DimensionOrder, Topology::Torus, 2, 4, 2)),
            vec![3, 0],
        ),
        (meta_table(spec(Algorithm::NorthLast, 4, 1)), vec![1, 1]),
        (
            meta_table(spec_on(
                Algorithm::DimensionOrder,
                Topology::Hypercube,
                4,
                2,
                1,
            )),
            vec![1, 0, 1, 1],
        ),
    ] {
        let node = node_at(&s, &at);
        let cycles = run(&s, node, 10, 0x3e + at.len() as u64);
        eprintln!("{}: {cycles} cycles", s.name());
    }
}

/// The meta table narrows the relation (LAPSES §5.1.1): north-last on a
/// 4x4 mesh, clusters = columns (worked by hand: with rows, (0,0) toward
/// row 3 would keep nothing: (0,3) permits +y only, (1,3) +x only). The
/// model here: toward a node of another column, the (port, VC) pairs the
/// relation permits toward every node of that column; of its own column,
/// the relation's. From every router to every destination a packet on an
/// idle router must leave by one of them, and somewhere the model is
/// narrower than the relation.
#[test]
fn meta_table_routes_only_what_a_cluster_entry_keeps() {
    let s = meta_table(spec(Algorithm::NorthLast, 4, 1));
    let net = Network::new(s.topology, s.dims, s.radix).unwrap();
    let rel = Relation::new(s.algorithm, net, s.vcs).unwrap();
    let k = s.radix;
    let mut narrowed = 0;
    for node in 0..net.nodes() {
        let mut r = Router::<16>::new(&s).unwrap();
        crate::blocks::prepare(&mut r);
        let x = net.coord(node, 0);
        r.node_id.next = u64::from(x | net.coord(node, 1) << 2).into();
        for dest in (0..net.nodes()).filter(|&d| d != node) {
            let dx = net.coord(dest, 0);
            let members: Vec<NodeId> = if dx == x {
                vec![dest]
            } else {
                (0..k).map(|yy| net.node_at(&[dx, yy])).collect()
            };
            let allowed: Vec<(usize, usize)> = (0..net.port_count())
                .flat_map(|p| (0..s.vcs as usize).map(move |v| (p, v)))
                .filter(|&(p, v)| {
                    members.iter().all(|&m| {
                        rel.permits(node, Input::INJECTED, m, port_of(&net, node, p), v as u8)
                    })
                })
                .collect();
            let relation = rel.hops(node, Input::INJECTED, dest).len();
            narrowed += usize::from(allowed.len() < relation);
            // Reset, then one single-flit packet on p0.
            let mut left = None;
            for cycle in 0..8 {
                r.rst.next = cycle == 0;
                let send = cycle == 2;
                r.in_valid[0].next = send;
                r.in_head[0].next = send;
                r.in_tail[0].next = send;
                r.in_data[0].next = u64::from(dx | net.coord(dest, 1) << 2).into();
                r.clock.next = Clock::from(false);
                simulate(&mut r, 1000);
                for o in 0..r.ports() {
                    if r.out_valid[o].val() {
                        left = Some((o, r.out_vc[o].val().index()));
                    }
                    r.out_credit[o].next = r.out_valid[o].val();
                }
                r.clock.next = Clock::from(true);
                simulate(&mut r, 1000);
            }
            let left = left.expect("the packet leaves");
            assert!(
                allowed.contains(&left),
                "at {} toward {}: left by {left:?}, the meta table keeps {allowed:?}",
                net.node_name(node),
                net.node_name(dest)
            );
        }
    }
    assert!(narrowed > 0, "the meta table should narrow somewhere");
}

/// Reprogramming the meta table: dimension order at (1,1) of a 4x4 mesh,
/// clusters = columns (x), so entry 4 + x serves every node of column x
/// (docs/interface.md); rewriting column 3's entry to +y sends (3,1) up
/// too (a full table has an entry per node), leaves column 2 on +x, and a
/// reset restores +x.
#[test]
fn reprogramming_a_meta_table_entry_changes_a_whole_cluster() {
    let s = meta_table(spec(Algorithm::DimensionOrder, 4, 1));
    assert_eq!(
        routes_after_programming(&s, 4 + 3, [(3, 1), (2, 1), (3, 3)]),
        [3, 1, 1]
    );
}

/// Reprogramming: entry (+,+) of a dimension-order router at (1,1) of a
/// 4x4 mesh rewritten to +y through `cfg_*`; a packet to (3,3) then leaves
/// on +y, one to (3,1) still on +x, and after a reset (3,3) is +x again.
/// The model here: entry = s_x + 3 s_y (docs/interface.md), the port the
/// programmed mask names.
#[test]
fn reprogramming_an_entry_changes_the_route() {
    let entry = |dx: i32, dy: i32| {
        let sign = |x: i32| match x.signum() {
            0 => 0u64,
            1 => 1,
            _ => 2,
        };
        sign(dx) + 3 * sign(dy)
    };
    let s = economical(spec(Algorithm::DimensionOrder, 4, 1));
    assert_eq!(reprogrammed_routes(&s, entry(2, 2)), [3, 1, 1]);
}

/// The full table: the same router, entry 15 = destination (3,3) (the
/// model: entry = x + 4 y, docs/interface.md) rewritten to +y; (3,1)'s
/// entry is untouched. Rewriting (3,3)'s entry does not move a packet to
/// (3,2), which the economical table would (same sign vector).
#[test]
fn reprogramming_a_full_table_entry_changes_the_route() {
    let s = full_table(spec(Algorithm::DimensionOrder, 4, 1));
    assert_eq!(reprogrammed_routes(&s, 3 + 4 * 3), [3, 1, 1]);
    let s = full_table(spec(Algorithm::DimensionOrder, 4, 1));
    assert_eq!(
        routes_after_programming(&s, 3 + 4 * 3, [(3, 2), (3, 3), (3, 3)]),
        [1, 3, 1]
    );
}

/// Output ports taken at node (1,1) of a 4x4 mesh by packets to (3,3),
/// (3,1) and, after a reset, (3,3) again, once entry `entry` has been
/// programmed to +y (port 3) with VC class 0.
fn reprogrammed_routes(s: &RouterSpec, entry: u64) -> Vec<usize> {
    routes_after_programming(s, entry, [(3, 3), (3, 1), (3, 3)])
}

fn routes_after_programming(s: &RouterSpec, entry: u64, to: [(u64, u64); 3]) -> Vec<usize> {
    let mut r = Router::<16>::new(s).unwrap();
    crate::blocks::prepare(&mut r);
    // node_id (1,1): 2-bit coordinates.
    r.node_id.next = 0b0101u64.into();
    // Cycle plan: (cycle, action).
    enum Act {
        Reset,
        Program(u64, u32),
        Send(u64),
    }
    let dest = |(x, y): (u64, u64)| x | y << 2;
    let plan = [
        (0, Act::Reset),
        (2, Act::Program(entry, 1 << 3)),
        (4, Act::Send(dest(to[0]))),
        (12, Act::Send(dest(to[1]))),
        (20, Act::Reset),
        (24, Act::Send(dest(to[2]))),
    ];
    let mut left: Vec<(usize, usize)> = Vec::new();
    for cycle in 0..34usize {
        r.rst.next = false;
        r.cfg_we.next = false;
        r.in_valid[0].next = false;
        r.in_head[0].next = false;
        r.in_tail[0].next = false;
        for (at, act) in &plan {
            if *at != cycle {
                continue;
            }
            match act {
                Act::Reset => r.rst.next = true,
                Act::Program(e, mask) => {
                    r.cfg_we.next = true;
                    r.cfg_addr.next = (*e).into();
                    for o in 0..5 {
                        r.cfg_mask[o].next = (mask >> o) & 1 == 1;
                    }
                    r.cfg_class.next = 0u64.into();
                }
                Act::Send(d) => {
                    r.in_valid[0].next = true;
                    r.in_head[0].next = true;
                    r.in_tail[0].next = true;
                    r.in_data[0].next = (*d).into();
                }
            }
        }
        r.clock.next = Clock::from(false);
        simulate(&mut r, 1000);
        for o in 0..5 {
            if r.out_valid[o].val() {
                left.push((cycle, o));
            }
        }
        for k in 0..5 {
            r.out_credit[k].next = r.out_valid[k].val();
        }
        r.clock.next = Clock::from(true);
        simulate(&mut r, 1000);
    }
    left.iter().map(|x| x.1).collect()
}

#[test]
fn a_head_takes_two_cycles_and_a_packet_streams_one_flit_per_cycle() {
    let s = RouterSpec {
        buffer_depth: 8,
        ..spec(Algorithm::DimensionOrder, 4, 1)
    };
    let mut r = Router::<16>::new(&s).unwrap();
    crate::blocks::prepare(&mut r);
    // Node (1,1), a 6-flit packet from the local port to (3,1): +x.
    let flits = [0b010u64, 0xa1, 0xa2, 0xa3, 0xa4, 0xa5];
    let mut out = Vec::new();
    for cycle in 0..16usize {
        r.rst.next = cycle == 0;
        let i = cycle.wrapping_sub(2);
        let sending = (2..2 + flits.len()).contains(&cycle);
        r.in_valid[0].next = sending;
        r.in_head[0].next = sending && i == 0;
        r.in_tail[0].next = sending && i == flits.len() - 1;
        r.in_data[0].next = if sending { flits[i] } else { 0 }.into();
        r.clock.next = Clock::from(false);
        simulate(&mut r, 1000);
        if r.out_valid[1].val() {
            out.push((cycle, r.out_data[1].val().to_u64()));
        }
        r.clock.next = Clock::from(true);
        simulate(&mut r, 1000);
    }
    let cycles: Vec<usize> = out.iter().map(|x| x.0).collect();
    assert_eq!(cycles, (4..10).collect::<Vec<_>>(), "{out:?}");
    assert_eq!(out[0].1, 0b001, "dx 2 -> 1");
}

/// The top module's ports, written from docs/interface.md: (name, input,
/// width) in the document's order. `node_id` is present with absolute
/// addressing, on tori, and on hypercubes under negative-first.
fn interface_ports(spec: &RouterSpec) -> Vec<(String, bool, u32)> {
    let w = spec.flit_width;
    let v = spec.vcs;
    let vb = if v <= 1 {
        1
    } else {
        32 - (v - 1).leading_zeros()
    };
    let mut ports = vec![("clk".to_string(), true, 1), ("rst".to_string(), true, 1)];
    let node = spec.addressing == Addressing::Absolute
        || spec.topology == Topology::Torus
        || (spec.topology == Topology::Hypercube && spec.algorithm == Algorithm::NegativeFirst);
    if node {
        ports.push((
            "node_id".to_string(),
            true,
            spec.dims * coord_bits(spec) as u32,
        ));
    }
    let p = match spec.topology {
        Topology::Hypercube => spec.dims + 1,
        _ => 2 * spec.dims + 1,
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
fn declared_ports(verilog: &str, name: &str) -> Vec<(String, bool, u32)> {
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
        msg.contains("does not fit a 16-bit flit") && msg.contains("5 bits per dimension, 20"),
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
            msg.contains("on-off") && msg.contains("at least 2") && msg.contains("--depth 1"),
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
                if a.supports(t, n).is_err() || (t == Topology::Torus && n == 4) {
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
    for w in ROUTER_WIDTHS {
        assert!(m.iter().any(|s| s.flit_width == w));
    }
    for s in &m {
        supported(s).unwrap_or_else(|e| panic!("{}: {e}", s.name()));
    }
    eprintln!("{} configurations compiled in {:?}", m.len(), t0.elapsed());
}

/// Cycles from a head flit entering port `q` to its leaving port `o`
/// on VC `vc` of the router of `spec` (node_id 0: relative addressing on
/// a mesh, where the router does not read it); its three body flits must
/// follow one cycle apart.
pub(super) fn head_latency(spec: &RouterSpec, q: usize, vc: u64, head: u64, o: usize) -> usize {
    let mut r = Router::<16>::new(spec).unwrap();
    crate::blocks::prepare(&mut r);
    let flits = [head, 0xb1, 0xb2, 0xb3];
    let mut out = Vec::new();
    for cycle in 0..24usize {
        r.rst.next = cycle == 0;
        let i = cycle.wrapping_sub(2);
        let sending = (2..2 + flits.len()).contains(&cycle);
        r.in_valid[q].next = sending;
        r.in_head[q].next = sending && i == 0;
        r.in_tail[q].next = sending && i == flits.len() - 1;
        r.in_data[q].next = if sending { flits[i] } else { 0 }.into();
        r.in_vc[q].next = vc.into();
        r.clock.next = Clock::from(false);
        simulate(&mut r, 1000);
        for p in 0..r.ports() {
            if r.out_valid[p].val() {
                assert_eq!(p, o, "left by port {p}");
                out.push(cycle);
            }
        }
        r.clock.next = Clock::from(true);
        simulate(&mut r, 1000);
    }
    assert_eq!(out.len(), flits.len(), "{out:?}");
    assert!(out.windows(2).all(|w| w[1] == w[0] + 1), "{out:?}");
    out[0] - 2
}

/// `routergen sim` on a network of routers of `s` with `engine`, the
/// per-flit trace kept: the run's own checks (every packet once, at
/// its destination, in order, unchanged; the watchdog) must pass.
pub(super) fn sim_run(s: RouterSpec, engine: crate::sim::EngineKind) -> crate::sim::Run {
    use crate::sim::{build_engine, run, Control, SimConfig};
    let c = SimConfig {
        load: 0.5,
        warmup: 100,
        measure: 400,
        trace: true,
        ..SimConfig::new(RouterSpec {
            flit_width: 32,
            ..s
        })
    };
    let mut e = build_engine(&c, engine).unwrap();
    let r = run(&c, e.as_mut(), &Control::default()).unwrap();
    assert!(r.trace.len() > 300, "{} flits", r.trace.len());
    assert_eq!(r.stats.latencies.len(), r.stats.measured_packets);
    r
}

/// [`sim_run`] of routers of `s` on both `routergen sim` engines: the
/// same flit-by-flit trace (when Verilator is installed).
pub(super) fn engines_agree(s: RouterSpec) {
    use crate::sim::EngineKind;
    if !crate::flows::require_tool("verilator") {
        return;
    }
    let r = sim_run(s.clone(), EngineKind::Rust);
    let v = sim_run(s, EngineKind::Verilator);
    let first = (0..r.trace.len().max(v.trace.len())).find(|&i| r.trace.get(i) != v.trace.get(i));
    assert!(
        first.is_none(),
        "traces differ from delivered flit {first:?}"
    );
}

/// Verilator -Wall and iverilog -Wall on every configuration of `configs`,
/// Yosys synth on those marked.
pub(super) fn lint_and_synth(configs: &[(RouterSpec, bool)]) {
    use crate::flows::{lint_warnings, require_tool, yosys};
    if !require_tool("verilator") || !require_tool("iverilog") || !require_tool("yosys") {
        return;
    }
    for (s, synth) in configs {
        let t0 = std::time::Instant::now();
        // Two-flit buffers: the same logic, less for Yosys to synthesize.
        let s = &RouterSpec {
            buffer_depth: 2,
            ..s.clone()
        };
        let text = verilog(s).expect("supported");
        let top = s.name();
        let lint = lint_warnings(&text, &top).expect("the linters run");
        assert!(lint.is_empty(), "{top}:\n{}", lint.join("\n"));
        let t1 = t0.elapsed();
        if *synth {
            let cells = yosys::synth(&text, &top).expect("yosys synth");
            assert!(cells.flip_flops() > 0, "{top}: synth kept no flip-flops");
        }
        eprintln!(
            "{top}: verilog+lint+iverilog {t1:?}, yosys {:?}",
            t0.elapsed() - t1
        );
    }
}

/// Meshes: every mesh-only algorithm synthesized, the others linted.
#[test]
fn emitted_verilog_lints_and_synthesizes_meshes() {
    lint_and_synth(&[
        (
            spec_with(Algorithm::WestFirst, 4, 1, PathSelection::Lru),
            true,
        ),
        (
            absolute(spec_with(
                Algorithm::NorthLast,
                4,
                1,
                PathSelection::StaticXy,
            )),
            true,
        ),
        (spec(Algorithm::PlanarAdaptive, 4, 2), true),
        (spec(Algorithm::DimensionOrder, 4, 1), false),
        (
            RouterSpec {
                flit_width: 32,
                ..spec_with(Algorithm::NegativeFirst, 4, 1, PathSelection::MaxCredit)
            },
            false,
        ),
        (
            spec_with(Algorithm::Duato, 4, 2, PathSelection::MinMux),
            false,
        ),
        (economical(spec(Algorithm::DimensionOrder, 4, 1)), true),
        (full_table(spec(Algorithm::DimensionOrder, 4, 1)), true),
        (meta_table(spec(Algorithm::DimensionOrder, 4, 1)), false),
        (
            full_table(spec_with(Algorithm::Duato, 4, 2, PathSelection::MaxCredit)),
            false,
        ),
        (
            economical(spec_with(Algorithm::Duato, 4, 2, PathSelection::MaxCredit)),
            false,
        ),
        (on_off(spec(Algorithm::DimensionOrder, 4, 2), 2), true),
        (lookahead(spec(Algorithm::DimensionOrder, 4, 1), 16), true),
        (
            lookahead(
                spec_with(Algorithm::Duato, 4, 2, PathSelection::MaxCredit),
                32,
            ),
            false,
        ),
        (
            on_off(
                spec_with(Algorithm::WestFirst, 4, 2, PathSelection::MaxCredit),
                2,
            ),
            false,
        ),
    ]);
}

/// Tori and hypercubes: dimension order, *-channels, negative-first and
/// Duato synthesized (with the meshes' test, every algorithm and every
/// topology), planar-adaptive on a torus linted.
#[test]
fn emitted_verilog_lints_and_synthesizes_tori_and_hypercubes() {
    lint_and_synth(&[
        (
            spec_on(Algorithm::DimensionOrder, Topology::Torus, 2, 4, 2),
            true,
        ),
        (
            absolute(spec_on(Algorithm::StarChannels, Topology::Torus, 2, 3, 3)),
            true,
        ),
        (
            spec_on(Algorithm::NegativeFirst, Topology::Hypercube, 3, 2, 1),
            true,
        ),
        (
            absolute(spec_on(Algorithm::Duato, Topology::Hypercube, 2, 2, 2)),
            true,
        ),
        (
            spec_on(Algorithm::PlanarAdaptive, Topology::Torus, 2, 4, 8),
            false,
        ),
        (
            economical(spec_on(
                Algorithm::NegativeFirst,
                Topology::Hypercube,
                3,
                2,
                2,
            )),
            false,
        ),
    ]);
}

/// The co-simulation of `core` (a router's rust-hdl model against its core
/// module) moved to the clean top module of docs/interface.md: the same
/// stimulus and model outputs, packed into the documented ports (credit bits
/// into V-bit buses, VC numbers into VB bits, node_id into its
/// coordinates), through a small adapter that names the clock `clock` as
/// the harness expects.
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
        let mask = if port.width >= 64 {
            u64::MAX
        } else {
            (1 << port.width) - 1
        };
        if port.name == "cfg_mask" {
            return (0..port.width)
                .map(|o| at(list, row, &format!("cfg_mask${o}")) << o)
                .sum();
        }
        let Some((pp, sig)) = port
            .name
            .split_once('_')
            .filter(|(a, _)| a.starts_with('p'))
        else {
            return at(list, row, &port.name) & mask;
        };
        let q: usize = pp[1..].parse().expect("port number");
        if sig.ends_with("credit") {
            (0..v)
                .map(|c| at(list, row, &format!("{sig}${}", q * v + c)) << c)
                .sum()
        } else {
            at(list, row, &format!("{sig}${q}")) & mask
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
/// (all configurations and a faulty copy in one build): a torus (its core
/// module) and a hypercube that reads node_id (through the clean top
/// module). Meshes use the same glue; `emitted_verilog_matches_the_model_more`
/// (ignored) adds a mesh, absolute addressing and *-channels.
#[test]
fn emitted_verilog_matches_the_model() {
    cosimulate_with_mutant(&[
        spec_on(Algorithm::DimensionOrder, Topology::Torus, 2, 4, 2),
        RouterSpec {
            path_selection: PathSelection::Lfu,
            ..spec_on(Algorithm::NegativeFirst, Topology::Hypercube, 3, 2, 2)
        },
    ]);
}

/// The economical-storage table under random programming through `cfg_*`
/// (its core, and a hypercube through the clean top module); the faulty
/// copy reads entry 4, (+,+), as if its VC class were 1 where it is 0 (with
/// one class, class 1 permits nothing: packets for (+,+) never leave).
#[test]
fn economical_table_matches_the_model() {
    cosimulate_with(
        &[
            economical(spec(Algorithm::DimensionOrder, 4, 1)),
            economical(spec_on(Algorithm::Duato, Topology::Hypercube, 2, 2, 2)),
        ],
        (
            "(tmask$21$q & ((tclass$4$q == 4'd0)))",
            "(tmask$21$q & ((tclass$4$q == 4'd1)))",
        ),
    );
}

/// The full and meta tables under random programming through `cfg_*` and
/// random node ids (the reset ROM): a torus's meta table through its core,
/// a hypercube's full table through the clean top module; the faulty copy
/// selects own-cluster entry 2 for destinations of entry 1 (its word line
/// compares the wrong coordinate).
#[test]
fn full_and_meta_tables_match_the_model() {
    cosimulate_with(
        &[
            meta_table(spec_on(Algorithm::DimensionOrder, Topology::Torus, 2, 4, 2)),
            full_table(spec_on(Algorithm::Duato, Topology::Hypercube, 2, 2, 2)),
        ],
        (
            "(shown$0[1:0] == node_id[1:0]) & (shown$0[3:2] == 2'd1))",
            "(shown$0[1:0] == node_id[1:0]) & (shown$0[3:2] == 2'd2))",
        ),
    );
}

/// Look-ahead: a Duato mesh through its core (every decoder of the next
/// routers' fields, the mux, the field registers), a hypercube under
/// negative-first (its decoders read the neighbours' node ids) through the
/// top module, a torus (the field's dateline bits); the faulty copy never
/// selects port 3's field for packets from port 1.
#[test]
fn lookahead_matches_the_model() {
    cosimulate_with(
        &[
            lookahead(
                spec_with(Algorithm::Duato, 4, 2, PathSelection::MaxCredit),
                16,
            ),
            lookahead(
                spec_on(Algorithm::NegativeFirst, Topology::Hypercube, 3, 2, 2),
                16,
            ),
            lookahead(
                spec_on(Algorithm::DimensionOrder, Topology::Torus, 2, 4, 2),
                16,
            ),
        ],
        ("lamux$1$sel$3 = valloc$grant$8;", "lamux$1$sel$3 = 1'b0;"),
    );
}

/// On/off flow control: a torus through its core, a mesh choosing by
/// MAX-CREDIT (the levels) through the top module; the faulty copy sends on
/// output VC 3 (at {port 1, VC 1} of the may-send flags) whatever its
/// downstream level.
#[test]
fn on_off_flow_control_matches_the_model() {
    cosimulate_with(
        &[
            on_off(
                spec_on(Algorithm::DimensionOrder, Topology::Torus, 2, 4, 2),
                2,
            ),
            on_off(
                spec_with(Algorithm::WestFirst, 4, 2, PathSelection::MaxCredit),
                2,
            ),
        ],
        (
            "msend0[17] = out_credit$3; msend1[17] = out_credit$3;",
            "msend0[17] = 1'b1; msend1[17] = 1'b1;",
        ),
    );
}

fn bram(s: RouterSpec) -> RouterSpec {
    RouterSpec {
        buffers: crate::spec::BufferStorage::Bram,
        ..s
    }
}

/// Input buffers in block RAM: the scoreboard (every flit once, in order,
/// unchanged, to a permitted port) on a torus and under west-first with
/// absolute addressing and on/off flow control; Verilator -Wall and
/// Icarus -Wall on both; co-simulation of the torus through its core, with
/// a faulty copy whose first input buffer shows the RAM's read (the old
/// entry) where a flit landed in the same edge.
#[test]
fn block_ram_buffers_pass_the_scoreboard_and_match_the_model() {
    let torus = bram(spec_on(Algorithm::DimensionOrder, Topology::Torus, 2, 4, 2));
    let west = bram(on_off(
        absolute(spec_with(
            Algorithm::WestFirst,
            4,
            2,
            PathSelection::MaxCredit,
        )),
        3,
    ));
    for (s, node, seed) in [(&torus, 0, 41), (&west, node_at(&west, &[1, 2]), 42)] {
        let cycles = run(s, node, 20, seed);
        eprintln!("{} with block RAM: {cycles} cycles", s.name());
    }
    lint_and_synth(&[(torus.clone(), false), (west.clone(), false)]);
    cosimulate_with(
        &[torus],
        (
            "byp_sel$0$d = push & (raddr == wp$q);",
            "byp_sel$0$d = 1'b0;",
        ),
    );
}

#[test]
#[ignore]
fn emitted_verilog_matches_the_model_more() {
    cosimulate_with_mutant(&[
        spec(Algorithm::DimensionOrder, 4, 1),
        absolute(spec_with(Algorithm::Duato, 4, 2, PathSelection::MaxCredit)),
        absolute(spec_on(Algorithm::StarChannels, Topology::Torus, 2, 5, 3)),
    ]);
}

/// [`emitted_verilog_matches_the_model`] on `configs`: the first through
/// its core module (and a faulty copy of it), the others through their
/// clean top modules.
fn cosimulate_with_mutant(configs: &[RouterSpec]) {
    // A faulty copy: an output VC stays held after its tail has left.
    cosimulate_with(
        configs,
        (
            "& xbar$out_tail$1) busy$3$d = 1'b0",
            "& xbar$out_tail$1) busy$3$d = 1'b1",
        ),
    );
}

/// The routers of `configs` against their Verilog, the first also as a
/// copy with `mutation` applied, which must be caught.
pub(super) fn cosimulate_with(configs: &[RouterSpec], mutation: (&str, &str)) {
    use crate::blocks::tool_checks::cosimulate_with_mutant;
    use crate::blocks::Variant;
    use crate::flows::require_tool;
    if !require_tool("verilator") {
        return;
    }
    let t0 = std::time::Instant::now();
    let mut variants = Vec::new();
    for (n, s) in configs.iter().enumerate() {
        // Short buffers fill often: back-pressure in the random stimulus.
        let s = RouterSpec {
            buffer_depth: 2,
            ..s.clone()
        };
        let mut r = Router::<16>::new(&s).expect("supported");
        crate::blocks::prepare(&mut r);
        let core = core_verilog(&s).expect("supported");
        let var = Variant::new(&mut r, &core, &core_name(&s), 2000, 0x7007 + n as u64);
        variants.push(if n == 0 { var } else { through_top(&s, &var) });
        eprintln!("{}: model {:?}", s.name(), t0.elapsed());
    }
    cosimulate_with_mutant(variants, mutation);
    eprintln!("co-simulation {:?}", t0.elapsed());
}

/// The whole matrix: every configuration of [`matrix`] built, linted
/// (Verilator -Wall, Icarus -Wall) and run through the scoreboard at a
/// node next to the wraparound links or the mesh corner and at an inner
/// node. `cargo test --release matrix_every_configuration -- --ignored
/// --nocapture`; prints each configuration's times.
#[test]
#[ignore]
fn matrix_every_configuration_builds_lints_and_passes_the_scoreboard() {
    use crate::flows::{lint_warnings, require_tool};
    let tools = require_tool("verilator") && require_tool("iverilog");
    let t0 = std::time::Instant::now();
    let m = matrix();
    for (n, s) in m.iter().enumerate() {
        let t = std::time::Instant::now();
        let text = verilog(s).expect("supported");
        let built = t.elapsed();
        if tools {
            let lint = lint_warnings(&text, &s.name()).expect("the linters run");
            assert!(lint.is_empty(), "{}:\n{}", s.name(), lint.join("\n"));
        }
        let linted = t.elapsed();
        let net = Network::new(s.topology, s.dims, s.radix).unwrap();
        let inner: Vec<u32> = (0..s.dims).map(|d| 1 + d % (s.radix - 1)).collect();
        let edge: Vec<u32> = (0..s.dims)
            .map(|d| if d % 2 == 0 { 0 } else { s.radix - 1 })
            .collect();
        let packets = (48 / (s.physical_ports() * s.vcs) as usize).max(2);
        for (i, at) in [edge, inner].iter().enumerate() {
            run(s, net.node_at(at), packets, 0x3a7 + (2 * n + i) as u64);
        }
        eprintln!(
            "[{}/{}] {}: verilog {built:?}, lint {:?}, scoreboard {:?} (total {:?})",
            n + 1,
            m.len(),
            s.name(),
            linted - built,
            t.elapsed() - linted,
            t0.elapsed()
        );
    }
}
