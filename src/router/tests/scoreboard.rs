//! The scoreboard: one router among random traffic on every input VC,
//! random back-pressure both ways, every flit checked against the routing
//! relation and docs/interface.md.

use super::*;

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
pub(crate) fn scoreboard<const W: usize>(
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
    let relative = spec.addressing == Addressing::Relative;
    r.node_id.next = node_id_of(spec, &net, node).into();
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
            // docs/interface.md: on a unidirectional torus port d+1
            // receives from the -d neighbour, the flit travelling +.
            Port::Link { dim, .. } if spec.topology == Topology::UniTorus => {
                let mut c = net.coords(node);
                let d = dim as usize;
                c[d] = (c[d] + spec.radix - 1) % spec.radix;
                (Some(net.node_at(&c)), Port::link(d, Dir::Plus))
            }
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
                let head = head_address(spec, &net, node, dest, || rng.chance(0.5));
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
            h = with_address_field(spec, h, d, x);
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
pub(crate) fn run(spec: &RouterSpec, node: NodeId, packets_per_vc: usize, seed: u64) -> usize {
    match spec.flit_width {
        16 => scoreboard::<16>(spec, node, packets_per_vc, seed),
        32 => scoreboard::<32>(spec, node, packets_per_vc, seed),
        _ => scoreboard::<64>(spec, node, packets_per_vc, seed),
    }
}

pub(crate) fn node_at(spec: &RouterSpec, coords: &[u32]) -> NodeId {
    Network::new(spec.topology, spec.dims, spec.radix)
        .unwrap()
        .node_at(coords)
}
