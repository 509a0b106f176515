//! Latency and rate on an idle router, measured against the module
//! documentation and docs/interface.md.

use super::*;

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

/// Cycles from a head flit entering port `q` to its leaving port `o`
/// on VC `vc` of the router of `spec` (node_id 0: relative addressing on
/// a mesh, where the router does not read it); its three body flits must
/// follow one cycle apart.
pub(crate) fn head_latency(spec: &RouterSpec, q: usize, vc: u64, head: u64, o: usize) -> usize {
    let mut r = Router::<16>::new(spec).unwrap();
    crate::blocks::prepare(&mut r);
    let flits = [head, 0xb1, 0xb2, 0xb3];
    let out: Vec<usize> = drive_packet(&mut r, q, vc, &flits, 24)
        .into_iter()
        .map(|(cycle, p, _)| {
            assert_eq!(p, o, "left by port {p}");
            cycle
        })
        .collect();
    assert_eq!(out.len(), flits.len(), "{out:?}");
    assert!(out.windows(2).all(|w| w[1] == w[0] + 1), "{out:?}");
    out[0] - 2
}

/// Drives `flits` (one packet) into port `q` on VC `vc` one per cycle from
/// cycle 2 on, after a reset in cycle 0, for `cycles` cycles; returns
/// every flit that leaves: (cycle, port, data).
fn drive_packet(
    r: &mut Router<16>,
    q: usize,
    vc: u64,
    flits: &[u64],
    cycles: usize,
) -> Vec<(usize, usize, u64)> {
    let mut out = Vec::new();
    for cycle in 0..cycles {
        r.rst.next = cycle == 0;
        let i = cycle.wrapping_sub(2);
        let sending = (2..2 + flits.len()).contains(&cycle);
        r.in_valid[q].next = sending;
        r.in_head[q].next = sending && i == 0;
        r.in_tail[q].next = sending && i == flits.len() - 1;
        r.in_data[q].next = if sending { flits[i] } else { 0 }.into();
        r.in_vc[q].next = vc.into();
        r.clock.next = Clock::from(false);
        simulate(r, 1000);
        for p in 0..r.ports() {
            if r.out_valid[p].val() {
                out.push((cycle, p, r.out_data[p].val().to_u64()));
            }
        }
        r.clock.next = Clock::from(true);
        simulate(r, 1000);
    }
    out
}

/// Flits per cycle of one stream of back-to-back `len`-flit packets into
/// input port 2 (on VC 0) of node (1,1), all leaving by output port `o`
/// (head `head`), with each downstream credit returned the cycle after its
/// flit leaves and the sender keeping to its input credits
/// (docs/interface.md, credit mode). Measured over 200 cycles after 40
/// cycles of warm-up; also the output VCs the stream used.
fn stream_rate(spec: &RouterSpec, len: usize, head: u64, o: usize) -> (f64, Vec<u64>) {
    let v = spec.vcs as usize;
    let d = spec.buffer_depth as usize;
    let mut r = Router::<16>::new(spec).unwrap();
    crate::blocks::prepare(&mut r);
    let (q, mut credits, mut sent) = (2usize, d, 0usize);
    let mut back = vec![false; r.ports() * v];
    let (mut flits, mut vcs) = (0usize, Vec::new());
    for cycle in 0..240usize {
        let rst = cycle < 2;
        r.rst.next = rst;
        let send = !rst && credits > 0;
        let i = sent % len;
        r.in_valid[q].next = send;
        r.in_head[q].next = send && i == 0;
        r.in_tail[q].next = send && i + 1 == len;
        r.in_data[q].next = if send && i == 0 {
            head
        } else {
            0xb0 + i as u64
        }
        .into();
        r.in_vc[q].next = 0u64.into();
        for (p, c) in settle_returning_credits(&mut r, &mut back, v) {
            assert_eq!(p, o, "cycle {cycle}: left by port {p}");
            if cycle >= 40 {
                flits += 1;
            }
            if !vcs.contains(&c) {
                vcs.push(c);
            }
        }
        if send {
            credits -= 1;
            sent += 1;
        }
        if !rst && r.in_credit[q * v].val() {
            credits += 1;
        }
        if rst {
            credits = d;
        }
        r.clock.next = Clock::from(true);
        simulate(&mut r, 1000);
    }
    (flits as f64 / 200.0, vcs)
}

/// The first half of a cycle with each downstream credit returned the
/// cycle after its flit left (docs/interface.md, credit mode): `back`
/// (per output VC, port p VC c at p V + c) drives `out_credit`, the
/// router settles with the clock low, and `back` then holds this cycle's
/// departures. Returns the (port, output VC) of each flit leaving.
fn settle_returning_credits(r: &mut Router<16>, back: &mut [bool], v: usize) -> Vec<(usize, u64)> {
    for (k, b) in back.iter().enumerate() {
        r.out_credit[k].next = *b;
    }
    r.clock.next = Clock::from(false);
    simulate(r, 1000);
    back.iter_mut().for_each(|b| *b = false);
    let mut left = Vec::new();
    for p in 0..r.ports() {
        if r.out_valid[p].val() {
            let c = r.out_vc[p].val().to_u64();
            back[p * v + c as usize] = true;
            left.push((p, c));
        }
    }
    left
}

/// A single stream of back-to-back packets gets one flit per cycle
/// whatever the packet length, on one VC or several, to a link and to
/// the local port: the head behind a tail is routed while the tail
/// leaves and may take over the output VC the tail held. Atomic
/// allocation (Duato) may not take it over (the downstream queue must be
/// empty first) and takes another VC whose queue is.
#[test]
fn a_stream_of_back_to_back_packets_gets_one_flit_per_cycle() {
    for (algorithm, vcs) in [
        (Algorithm::DimensionOrder, 1),
        (Algorithm::DimensionOrder, 2),
        (Algorithm::NegativeFirst, 1),
        (Algorithm::Duato, 3),
    ] {
        let s = spec(algorithm, 4, vcs);
        for len in [1usize, 2, 4, 16] {
            // To (3,1), +x by port 1; and to this node, the local port.
            for (head, o) in [(0b010u64, 1usize), (0, 0)] {
                let (rate, used) = stream_rate(&s, len, head, o);
                eprintln!("{algorithm:?} V={vcs} L={len} port {o}: {rate:.3} {used:?}");
                assert!(
                    rate > 0.99,
                    "{algorithm:?} V={vcs} L={len} to port {o}: {rate:.3} flits/cycle \
                     (output VCs {used:?})"
                );
            }
        }
    }
}

/// Atomic allocation on two VCs: a link's output VC is free for the next
/// packet only once its credits are back, one cycle after its tail
/// leaves (the receiver's credit, docs/interface.md), so 1-flit packets
/// alternating two VCs get two flits in three cycles; from 2 flits on the
/// other VC covers the wait. The local port has no such wait.
#[test]
fn atomic_allocation_on_two_vcs_waits_for_the_credit_of_one_flit_packets() {
    let s = spec(Algorithm::Duato, 4, 2);
    for len in [1usize, 2, 4] {
        let (link, _) = stream_rate(&s, len, 0b010, 1);
        let (local, _) = stream_rate(&s, len, 0, 0);
        let want = if len == 1 { 2.0 / 3.0 } else { 1.0 };
        assert!(
            (link - want).abs() < 0.01,
            "L={len}: {link:.3} to +x, want {want:.3}"
        );
        assert!(local > 0.99, "L={len}: {local:.3} to the local port");
    }
}

/// One cycle per router (`pipeline = 1`), through the top-level ports and
/// worked out from docs/interface.md: node (1,1) of a 4x4 mesh under
/// dimension order with look-ahead. A 5-flit packet for (3,1) arrives on
/// port 2 (the link from (0,1), travelling +x) from cycle 2 on, one flit
/// per cycle; its head carries offset +2 in x, 0 in y and the look-ahead
/// field of this router's permitted ports, port 1 (+x): bit 1. The head
/// must leave by port 1 in cycle 3 with offset +1 and the field of (2,1),
/// again port 1; the body flits in cycles 4 to 7, unchanged. The same
/// from the local port (an injected head leaves the cycle after it is
/// offered), and to the local port (a head for (1,1) carries bit 0).
#[test]
fn with_pipeline_1_a_head_leaves_the_cycle_after_it_arrives() {
    // Eight credits downstream: the five flits leave without a credit back.
    let s = RouterSpec {
        pipeline: 1,
        buffer_depth: 8,
        ..lookahead(spec(Algorithm::DimensionOrder, 4, 1), 16)
    };
    let net = Network::new(s.topology, s.dims, s.radix).unwrap();
    let node = net.node_at(&[1, 1]);
    let f = s.address_field_bits() as usize;
    let fmask = (1u64 << f) - 1;
    let ab = 2 * f;
    let head = |dx: i64, dy: i64, field: u64| {
        (dx as u64 & fmask) | ((dy as u64 & fmask) << f) | (field << ab)
    };
    // (input port, head, output port, head as it leaves)
    for (q, h, o, out_head) in [
        (2usize, head(2, 0, 0b10), 1usize, head(1, 0, 0b10)),
        (0, head(2, 0, 0), 1, head(1, 0, 0b10)),
        (2, head(0, 0, 0b1), 0, head(0, 0, 0b1)),
    ] {
        let mut r = Router::<16>::new(&s).unwrap();
        crate::blocks::prepare(&mut r);
        r.node_id.next = node_id_of(&s, &net, node).into();
        let flits = [h, 0xa1, 0xa2, 0xa3, 0xa4];
        let out: Vec<(usize, u64)> = drive_packet(&mut r, q, 0, &flits, 14)
            .into_iter()
            .map(|(cycle, p, data)| {
                assert_eq!(p, o, "port {q}: left by port {p}");
                (cycle, data)
            })
            .collect();
        let cycles: Vec<usize> = out.iter().map(|x| x.0).collect();
        assert_eq!(cycles, (3..8).collect::<Vec<_>>(), "port {q}: {out:?}");
        let data: Vec<u64> = out.iter().map(|x| x.1).collect();
        assert_eq!(
            data,
            [out_head, 0xa1, 0xa2, 0xa3, 0xa4],
            "port {q}: {out:?}"
        );
    }
}

/// One cycle per router keeps a stream of back-to-back packets at one
/// flit per cycle, as two do.
#[test]
fn with_pipeline_1_a_stream_of_back_to_back_packets_gets_one_flit_per_cycle() {
    for (algorithm, vcs) in [(Algorithm::DimensionOrder, 1), (Algorithm::Duato, 3)] {
        let s = RouterSpec {
            pipeline: 1,
            ..lookahead(spec(algorithm, 4, vcs), 16)
        };
        for len in [1usize, 2, 4] {
            // To (3,1) by port 1 (field bit 1), and to this node (bit 0).
            for (dx, field, o) in [(2u64, 0b10u64, 1usize), (0, 0b1, 0)] {
                let f = s.address_field_bits() as usize;
                let (rate, used) = stream_rate(&s, len, dx | field << (2 * f), o);
                assert!(
                    rate > 0.99,
                    "{algorithm:?} V={vcs} L={len} to port {o}: {rate:.3} flits/cycle \
                     (output VCs {used:?})"
                );
            }
        }
    }
}

/// Second choices in switch allocation (docs/router.md, switch
/// allocation): input port 2 of node (1,1) streams 16-flit packets on
/// VC 0 to +x (port 1) and on VC 1 to the local port; the local input
/// port streams to +x as well. When port 1 carries the local input's
/// flit, port 2's first choice was either VC 1 (to the local port) or
/// VC 0, contended, whose second choice VC 1 then takes the local port,
/// which no first choice asks for: so whenever a body flit of VC 1 is
/// ready, the local port never idles in such a cycle. A separable
/// allocator without second choices idles it whenever port 2 chose VC 0
/// and lost.
#[test]
fn a_port_that_loses_the_switch_sends_its_other_vc_to_an_idle_output() {
    let s = spec(Algorithm::DimensionOrder, 4, 2);
    let (v, d) = (2usize, s.buffer_depth as usize);
    let mut r = Router::<16>::new(&s).unwrap();
    crate::blocks::prepare(&mut r);
    const LEN: usize = 16;
    // (input port, VC, head, body base): to (3,1) by +x; here; to (2,1) by +x.
    let streams = [
        (2usize, 0usize, 0b010u64, 0xa0u64),
        (2, 1, 0, 0xc0),
        (0, 0, 0b001, 0xe0),
    ];
    let mut credits = [d; 3];
    let mut sent = [0usize; 3];
    let mut back = vec![false; r.ports() * v];
    // Cycles in which each flit of VC 1 (stream 1) entered; how many left.
    let (mut entered, mut left) = (Vec::new(), 0usize);
    let (mut candidates, mut idle) = (0usize, Vec::new());
    for cycle in 0..400usize {
        let rst = cycle < 2;
        r.rst.next = rst;
        // Port 2 alternates its VCs (the other when one has no credit);
        // port 0 sends whenever it may.
        let first = cycle % 2;
        let pick2 = [first, 1 - first].into_iter().find(|&k| credits[k] > 0);
        let picks = [(2usize, pick2), (0, (credits[2] > 0).then_some(2))];
        for &(q, pick) in &picks {
            let pick = pick.filter(|_| !rst);
            r.in_valid[q].next = pick.is_some();
            if let Some(k) = pick {
                let (_, c, head, base) = streams[k];
                let i = sent[k] % LEN;
                r.in_vc[q].next = (c as u64).into();
                r.in_head[q].next = i == 0;
                r.in_tail[q].next = i + 1 == LEN;
                r.in_data[q].next = if i == 0 { head } else { base + i as u64 }.into();
            } else {
                r.in_head[q].next = false;
                r.in_tail[q].next = false;
            }
        }
        settle_returning_credits(&mut r, &mut back, v);
        // A body flit of VC 1 is at its buffer's front, two cycles in.
        let ready = left < entered.len() && entered[left] + 2 <= cycle && left % LEN != 0;
        let x = r.out_data[1].val().to_u64();
        let from_local = r.out_valid[1].val() && (x == 0 || (0xe1..0xf0).contains(&x));
        if !rst && cycle >= 40 && ready && from_local {
            candidates += 1;
            if !r.out_valid[0].val() {
                idle.push(cycle);
            }
        }
        if r.out_valid[0].val() {
            left += 1;
        }
        for &(_, pick) in &picks {
            if let Some(k) = pick.filter(|_| !rst) {
                credits[k] -= 1;
                sent[k] += 1;
                if k == 1 {
                    entered.push(cycle);
                }
            }
        }
        for (k, &(q, c, _, _)) in streams.iter().enumerate() {
            if !rst && r.in_credit[q * v + c].val() {
                credits[k] += 1;
            }
        }
        r.clock.next = Clock::from(true);
        simulate(&mut r, 1000);
    }
    eprintln!("{candidates} cycles with the local input's flit on +x and VC 1 ready; idle local port in {idle:?}");
    assert!(candidates >= 20, "only {candidates} cycles to judge");
    assert!(
        idle.is_empty(),
        "the local port idled beside a ready flit in cycles {idle:?}"
    );
}

/// Where VC allocation reads the permitted output VCs of a waiting head
/// (docs/router.md, route computation): from the decoded routes kept in
/// flip-flops (`fcand`, `acand`) when the route is decoded a cycle early,
/// from a decoder's answer (`dec_i_cand`) with look-ahead (the local
/// port) and one cycle per router. The scoreboards hold
/// the two forms to the same behaviour; this holds each option to its
/// form, so that the decoder does not come back onto the allocation path.
#[test]
fn vc_allocation_reads_the_decoded_route_from_flip_flops_where_it_is_decoded_early() {
    // The always block of the permitted VCs (`route::Permitted`), from
    // its comment to the next stage's.
    let perm = |s: &RouterSpec| -> String {
        let v = core_verilog(s).expect("verilog");
        let at = v
            .find("// The output VCs each waiting head may take.")
            .expect("the stage's comment");
        let end = v[at + 4..]
            .find("\n    // ")
            .map_or(v.len(), |e| at + 4 + e);
        v[at..end].to_string()
    };
    let base = spec(Algorithm::DimensionOrder, 4, 2);
    let early = perm(&base);
    assert!(
        early.contains("fcand[") && early.contains("acand[") && !early.contains("dec_"),
        "{early}"
    );
    for s in [
        RouterSpec {
            pipeline: 1,
            ..base.clone()
        },
        lookahead(base.clone(), 16),
    ] {
        let late = perm(&s);
        assert!(
            late.contains("dec_") && !late.contains("fcand["),
            "pipeline {} look-ahead {}: {late}",
            s.pipeline,
            s.lookahead
        );
    }
}
