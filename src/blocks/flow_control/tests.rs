//! Tests of the flow-control unit: against a reference queue written from
//! the module documentation, between storage kinds, and through the tools.

use std::collections::VecDeque;

use super::*;
use crate::blocks::cosim::{random_stimulus, run_model, SplitMix64};
use crate::blocks::tool_checks::all_checks;
use crate::blocks::{emit, prepare, BlockKind, BlockParams};

/// Reference unit written from the module doc; outputs in port order:
/// data, valid, head, tail, credit_out, send_ok, overflow, after_head,
/// after_data (the low [`FIELDS`] bits; [`STALE`] when fewer than two
/// flits are held: unspecified then), third_data (likewise, three),
/// front_takes_after, front_takes_in, after_takes_third, after_takes_in.
const FIELDS: usize = 5;
const STALE: u64 = u64::MAX;

struct Reference {
    d: usize,
    on_off: bool,
    /// On/off: free slots needed for the level to be high.
    slack: usize,
    buf: VecDeque<(u64, bool, bool)>,
    credits: usize,
}

impl Reference {
    fn step(&mut self, r: &[u64]) -> Vec<u64> {
        let (rst, data, valid, head, tail) = (r[0] == 1, r[1], r[2] == 1, r[3] == 1, r[4] == 1);
        let (out_ready, credit_in, send_req) = (r[5] == 1, r[6] == 1, r[7] == 1);
        let front = self.buf.front().copied().unwrap_or((0, false, false));
        let out_valid = !self.buf.is_empty();
        let pop = out_valid && out_ready;
        let push = valid && self.buf.len() < self.d;
        let credit_out = if self.on_off {
            self.d - self.buf.len() >= self.slack
        } else {
            pop
        };
        let send_ok = if self.on_off {
            credit_in
        } else {
            self.credits > 0
        };
        let out = vec![
            front.0,
            u64::from(out_valid),
            u64::from(front.1),
            u64::from(front.2),
            u64::from(credit_out),
            u64::from(send_ok),
            u64::from(valid && !push),
            u64::from(self.buf.get(1).is_some_and(|f| f.1)),
            self.buf.get(1).map_or(STALE, |f| f.0 & ((1 << FIELDS) - 1)),
            self.buf.get(2).map_or(STALE, |f| f.0 & ((1 << FIELDS) - 1)),
            u64::from(pop && self.buf.len() >= 2),
            u64::from(if pop {
                self.buf.len() == 1
            } else {
                self.buf.is_empty()
            }),
            u64::from(pop && self.buf.len() >= 3),
            u64::from(if pop {
                self.buf.len() == 2
            } else {
                self.buf.len() == 1
            }),
        ];
        if pop {
            self.buf.pop_front();
        }
        if push {
            self.buf.push_back((data, head, tail));
        }
        if !self.on_off {
            let inc = credit_in && self.credits < self.d;
            let dec = send_req && send_ok;
            self.credits = self.credits + usize::from(inc) - usize::from(dec);
        }
        if rst {
            self.buf.clear();
            self.credits = self.d;
        }
        out
    }
}

#[test]
fn matches_the_reference_on_random_stimulus() {
    for (d, on_off, slack, storage) in [
        (1, false, 1, BufferStorage::Flops),
        (3, false, 1, BufferStorage::Flops),
        (4, true, 1, BufferStorage::Flops),
        (16, false, 1, BufferStorage::Flops),
        (5, true, 2, BufferStorage::Flops),
        (2, true, 2, BufferStorage::Flops),
        (1, false, 1, BufferStorage::Bram),
        (3, false, 1, BufferStorage::Bram),
        (4, true, 2, BufferStorage::Bram),
        (16, false, 1, BufferStorage::Bram),
        (1, false, 1, BufferStorage::Lutram),
        (3, true, 2, BufferStorage::Lutram),
        (16, false, 1, BufferStorage::Lutram),
    ] {
        let mut x = FlowControlUnit::<16>::build(d, on_off, slack, storage, FIELDS, false);
        prepare(&mut x);
        let stim = random_stimulus(&x, "clock", 3000, 99 + d as u64);
        let got = run_model(&mut x, &stim);
        // The random stimulus is not held to the protocol: overflows,
        // underflow attempts and spurious credits all occur.
        let mut r = Reference {
            d,
            on_off,
            slack,
            buf: VecDeque::new(),
            credits: 0,
        };
        let mut overflows = 0;
        for (c, s) in stim.iter().enumerate() {
            let want = r.step(s);
            overflows += want[6];
            // The data of an empty buffer is unspecified.
            let mut got = got[c].clone();
            if got[1] == 0 {
                got[0] = 0;
            }
            for j in [8, 9] {
                if want[j] == STALE {
                    got[j] = STALE;
                }
            }
            assert_eq!(got, want, "D={d} on_off={on_off} {storage} cycle {c}");
        }
        assert!(overflows > 0, "the stimulus should reach a full buffer");
    }
}

/// An absent unit (module doc of [`FlowControlUnit::absent`]): under
/// stimulus that fills a present unit, every output stays low but
/// `overflow`, which follows `in_valid`; Yosys keeps none of its
/// flip-flops, where the present unit keeps its counters (and with
/// flip-flop storage its D W data bits). A present unit's Verilog has no
/// trace of the option: its module assigns each output once, where an
/// absent unit's ties it a second time.
#[test]
fn an_absent_unit_shows_nothing_and_synthesizes_to_no_flip_flop() {
    for (on_off, storage) in [
        (false, BufferStorage::Flops),
        (true, BufferStorage::Flops),
        (false, BufferStorage::Bram),
        (false, BufferStorage::Lutram),
    ] {
        let unit = || FlowControlUnit::<16>::build(4, on_off, 2, storage, 5, false);
        let mut x = unit().absent();
        assert!(!x.is_present() && unit().is_present());
        prepare(&mut x);
        let stim = random_stimulus(&x, "clock", 2000, 7);
        let got = run_model(&mut x, &stim);
        let mut offered = 0;
        for (c, (s, g)) in stim.iter().zip(&got).enumerate() {
            // Inputs: rst, data, valid, ...; outputs in port order with
            // overflow last.
            offered += s[2];
            let mut want = vec![0; g.len()];
            want[6] = s[2];
            assert_eq!(g, &want, "on_off={on_off} {storage} cycle {c}");
        }
        assert!(offered > 100, "the stimulus offers flits");
        let text = emit(unit(), "fcu").expect("written");
        let assigned = |t: &str| {
            let top = &t[..t.find("endmodule").expect("a module")];
            top.matches(" out_valid = ").count()
        };
        assert_eq!(assigned(&text), 1, "a present unit assigns out_valid once");
        assert_eq!(
            assigned(&emit(unit().absent(), "fcu").expect("written")),
            2,
            "an absent unit ties out_valid"
        );
        if !crate::flows::require_tool("yosys") {
            continue;
        }
        let flops = |v: String| {
            crate::flows::yosys::synth(&v, "fcu")
                .expect("yosys synth")
                .flip_flops()
        };
        assert_eq!(
            flops(emit(unit().absent(), "fcu").expect("written")),
            0,
            "on_off={on_off} {storage}"
        );
        let data = if storage == BufferStorage::Flops {
            4 * 16
        } else {
            0
        };
        assert!(flops(text) >= data + 4, "on_off={on_off} {storage}");
    }
}

/// Two units joined by a link: the upstream unit's send side feeds the
/// downstream unit's buffer, whose credits (or on level) go back. The
/// sender obeys `send_ok`, with the downstream stalling for long
/// stretches. With `registered`, the on level reaches the sender through
/// a flip-flop, as in the router: the level of cycle t governs cycle
/// t + 1. Returns the flits refused for a full buffer; when there are
/// none, also checks nothing was lost or reordered.
fn link(d: usize, on_off: Option<(usize, bool)>, seed: u64) -> usize {
    let (mut up, mut down) = match on_off {
        None => (
            FlowControlUnit::<16>::new(d, false).unwrap(),
            FlowControlUnit::<16>::new(d, false).unwrap(),
        ),
        Some((slack, _)) => (
            FlowControlUnit::<16>::on_off(d, slack).unwrap(),
            FlowControlUnit::<16>::on_off(d, slack).unwrap(),
        ),
    };
    let registered = on_off.is_some_and(|(_, r)| r);
    prepare(&mut up);
    prepare(&mut down);
    let mut rng = SplitMix64::new(seed);
    let (mut sent, mut received) = (0u64, Vec::new());
    let mut overflows = 0;
    let mut seen = false;
    let settle = |b: &mut FlowControlUnit<16>| {
        simulate(b, 1000);
    };
    for cycle in 0..4000 {
        let rst = cycle == 0;
        let stall = (cycle / 200) % 2 == 1; // long full-buffer stretches
        up.rst.next = rst;
        down.rst.next = rst;
        up.clock.next = Clock::from(false);
        down.clock.next = Clock::from(false);
        up.send_req.next = rng.chance(0.7);
        down.out_ready.next = !stall && rng.chance(0.5);
        // On/off: the level is a function of the downstream state only.
        settle(&mut down);
        let level = down.credit_out.val();
        up.credit_in.next = if registered { seen } else { level };
        settle(&mut up);
        let send = !rst && up.send_req.val() && up.send_ok.val();
        down.in_valid.next = send;
        down.in_data.next = Bits::<16>::from(sent & 0xffff);
        settle(&mut down);
        overflows += usize::from(down.overflow.val());
        if down.out_valid.val() && down.out_ready.val() {
            received.push(down.out_data.val().to_u64());
        }
        // Credit mode: the credit pulse of this cycle's pop.
        if on_off.is_none() {
            up.credit_in.next = down.credit_out.val();
        }
        settle(&mut up);
        if send {
            sent += 1;
        }
        seen = level && !rst;
        up.clock.next = Clock::from(true);
        down.clock.next = Clock::from(true);
        settle(&mut up);
        settle(&mut down);
    }
    assert!(sent > 400, "the link should carry traffic (sent {sent})");
    if overflows == 0 {
        let want: Vec<u64> = (0..received.len() as u64).map(|v| v & 0xffff).collect();
        assert_eq!(received, want, "flits lost or reordered");
        assert!(
            sent - received.len() as u64 <= d as u64,
            "more in flight than the buffer holds"
        );
    }
    overflows
}

#[test]
fn a_sender_that_obeys_credits_never_overflows_or_loses_a_flit() {
    assert_eq!(link(1, None, 1), 0);
    assert_eq!(link(4, None, 2), 0);
    assert_eq!(link(4, Some((1, false)), 3), 0);
}

/// The router's timing: the level passes a flip-flop before the sender
/// obeys it, so a flit sent on the level of cycle t - 1 arrives in t,
/// after the level of t was computed without it, and the level of t
/// lets one more through in t + 1. Two free slots (slack 2) keep the
/// buffer from overflowing, also at the smallest depth, 2; slack 1
/// overflows.
#[test]
fn a_registered_on_level_needs_two_free_slots() {
    assert_eq!(link(2, Some((2, true)), 4), 0);
    assert_eq!(link(5, Some((2, true)), 5), 0);
    let refused = link(5, Some((1, true)), 6);
    assert!(
        refused > 0,
        "slack 1 with a registered level should overflow"
    );
}

#[test]
fn reset_in_the_middle_of_a_packet_empties_the_buffer() {
    let mut x = FlowControlUnit::<8>::new(4, false).unwrap();
    prepare(&mut x);
    // rst, data, valid, head, tail, out_ready, credit_in, send_req
    let stim = vec![
        vec![1, 0, 0, 0, 0, 0, 0, 0],
        vec![0, 0x11, 1, 1, 0, 0, 0, 1],
        vec![0, 0x22, 1, 0, 0, 0, 0, 1],
        vec![1, 0x33, 1, 0, 0, 0, 0, 0],
        vec![0, 0, 0, 0, 0, 1, 0, 0],
    ];
    let out = run_model(&mut x, &stim);
    assert_eq!(&out[2][..2], &[0x11, 1], "head flit at the front");
    assert_eq!(out[4][1], 0, "empty after reset");
    assert_eq!(out[4][5], 1, "credits restored");
    assert_eq!(out[3][5], 1, "two of four credits left before reset");
}

/// Block RAM changes where the flits are kept, not what the unit
/// shows: every output, the data of an empty buffer included, equals
/// the flip-flop unit's in every cycle of a random stimulus (which
/// resets, overflows and underflows), also with low bits (routing
/// fields) kept in flip-flops as well.
#[test]
fn block_ram_storage_shows_what_flip_flops_show_every_cycle() {
    storage_shows_what_flip_flops_show(BufferStorage::Bram);
}

/// The same for distributed RAM.
#[test]
fn distributed_ram_storage_shows_what_flip_flops_show_every_cycle() {
    storage_shows_what_flip_flops_show(BufferStorage::Lutram);
}

fn storage_shows_what_flip_flops_show(storage: BufferStorage) {
    for (d, on_off, low, seed) in [
        (1, false, 0, 1),
        (2, true, 0, 2),
        (4, false, 0, 3),
        (7, false, 0, 4),
        (1, false, 3, 5),
        (4, true, 6, 6),
        (5, false, 16, 7),
    ] {
        let mut flops = FlowControlUnit::<16>::new(d, on_off)
            .unwrap()
            .fields_in_flops(low);
        let mut ram = FlowControlUnit::<16>::new(d, on_off)
            .unwrap()
            .stored_in(storage)
            .fields_in_flops(low);
        prepare(&mut flops);
        prepare(&mut ram);
        let stim = random_stimulus(&flops, "clock", 4000, seed);
        let want = run_model(&mut flops, &stim);
        let got = run_model(&mut ram, &stim);
        let bypassed = (1..stim.len())
            .filter(|&c| got[c][1] == 1 && got[c - 1][1] == 0)
            .count();
        assert!(bypassed > 50, "D={d}: flits should land in an empty buffer");
        for c in 0..stim.len() {
            assert_eq!(
                got[c], want[c],
                "{storage} D={d} on_off={on_off} low {low} cycle {c}"
            );
        }
    }
}

/// A flit written into an empty block-RAM buffer is shown next cycle
/// from the bypass register: the RAM's read of that edge returns the
/// old entry (the model and the Verilog read first; the hardware's is
/// undefined). The co-simulation below catches a Verilog copy without
/// the bypass.
#[test]
fn the_bypass_shows_a_flit_written_into_an_empty_ram_buffer() {
    let mut x = FlowControlUnit::<8>::new(2, false)
        .unwrap()
        .stored_in(BufferStorage::Bram);
    prepare(&mut x);
    // rst, data, valid, head, tail, out_ready, credit_in, send_req
    let stim = vec![
        vec![1, 0, 0, 0, 0, 0, 0, 0],
        vec![0, 0x11, 1, 1, 0, 0, 0, 0],
        vec![0, 0x22, 1, 0, 0, 1, 0, 0],
        vec![0, 0x33, 1, 0, 1, 1, 0, 0],
        vec![0, 0, 0, 0, 0, 1, 0, 0],
        vec![0, 0x44, 1, 1, 1, 0, 0, 0],
        vec![0, 0, 0, 0, 0, 1, 0, 0],
    ];
    let out = run_model(&mut x, &stim);
    let fronts: Vec<[u64; 2]> = out.iter().map(|o| [o[0], o[1]]).collect();
    // Each flit lands at the front of an empty buffer (or one whose
    // only flit leaves), so each is shown from the bypass.
    assert_eq!(&fronts[2..5], &[[0x11, 1], [0x22, 1], [0x33, 1]]);
    assert_eq!(fronts[5][1], 0, "empty");
    assert_eq!(fronts[6], [0x44, 1]);
}

/// Yosys puts the block-RAM unit's flits into iCE40 block RAM: no
/// data flip-flops but the bypass register, where the flip-flop unit
/// has D W of them.
#[test]
fn yosys_maps_the_ram_buffer_to_ice40_block_ram() {
    if !crate::flows::require_tool("yosys") {
        return;
    }
    let params = |buffers| BlockParams {
        depth: 4,
        flit_width: 32,
        buffers,
        ..BlockParams::default()
    };
    let stats = |buffers| {
        let p = params(buffers);
        let top = BlockKind::FlowControlUnit.module_name(&p);
        let v = BlockKind::FlowControlUnit.verilog(&p).expect("valid");
        crate::flows::yosys::synth_ice40(&v, &top).expect("synth_ice40")
    };
    let (flops, ram) = (stats(BufferStorage::Flops), stats(BufferStorage::Bram));
    assert_eq!(flops.rams(), 0);
    assert!(flops.flip_flops() >= 4 * 32, "flip-flop unit: {flops:?}");
    assert!(
        ram.rams() >= 2,
        "32-bit flits take two 16-bit-wide RAMs: {ram:?}"
    );
    // D W data flip-flops leave; the bypass word (W) and its select
    // come in (a few more for the RAM's read address at most).
    assert!(
        ram.flip_flops() + 3 * 32 - 8 <= flops.flip_flops(),
        "RAM unit keeps only the bypass word in flip-flops: {ram:?} against {flops:?}"
    );
    assert!(ram.luts() < flops.luts(), "{ram:?} against {flops:?}");
}

/// Yosys puts the distributed-RAM unit's flits into the ECP5's RAM
/// slices (TRELLIS_DPR16X4, 4 bits each: W / 4 of them), with no data
/// flip-flops, where the flip-flop unit has D W of them.
#[test]
fn yosys_maps_the_lutram_buffer_to_ecp5_distributed_ram() {
    if !crate::flows::require_tool("yosys") {
        return;
    }
    let stats = |buffers| {
        let p = BlockParams {
            depth: 4,
            flit_width: 32,
            buffers,
            ..BlockParams::default()
        };
        let top = BlockKind::FlowControlUnit.module_name(&p);
        let v = BlockKind::FlowControlUnit.verilog(&p).expect("valid");
        crate::flows::yosys::synth_ecp5(&v, &top).expect("synth_ecp5")
    };
    let (flops, lut) = (stats(BufferStorage::Flops), stats(BufferStorage::Lutram));
    assert_eq!(flops.count("TRELLIS_DPR16X4"), 0, "{flops:?}");
    assert_eq!(lut.count("TRELLIS_DPR16X4"), 32 / 4, "{lut:?}");
    assert!(
        lut.flip_flops() + 4 * 32 <= flops.flip_flops(),
        "no data flip-flops: {lut:?} against {flops:?}"
    );
}

#[test]
fn verilog_passes_the_tools_and_cosimulates() {
    let sets: Vec<BlockParams> = [(1, 8, false), (4, 16, true), (5, 64, false)]
        .iter()
        .map(|&(d, w, on_off)| BlockParams {
            depth: d,
            flit_width: w,
            on_off,
            ..BlockParams::default()
        })
        .collect();
    // The mutant forgets to refuse a flit when the buffer is full.
    all_checks(
        BlockKind::FlowControlUnit,
        &sets,
        3000,
        ("overflow = in_valid & ~push", "overflow = 1'b0"),
    );
}

#[test]
fn block_ram_verilog_passes_the_tools_and_cosimulates() {
    // The mutant shows the RAM's read also when the flit it wrote in
    // the same edge is the front: the old entry (read first).
    ram_verilog_cosimulates(
        BufferStorage::Bram,
        (
            "bypassed_d = write & (next_front_slot == write_slot);",
            "bypassed_d = 1'b0;",
        ),
    );
}

#[test]
fn distributed_ram_verilog_passes_the_tools_and_cosimulates() {
    // The mutant reads the RAM at the read pointer's next value: the
    // flit after the oldest shows while the oldest leaves.
    ram_verilog_cosimulates(
        BufferStorage::Lutram,
        (
            "lutram_0_read_address = queue_front_slot;",
            "lutram_0_read_address = queue_next_front_slot;",
        ),
    );
}

fn ram_verilog_cosimulates(storage: BufferStorage, mutation: (&str, &str)) {
    let sets: Vec<BlockParams> = [(4, 32, false), (1, 16, false), (3, 64, true)]
        .iter()
        .map(|&(d, w, on_off)| BlockParams {
            depth: d,
            flit_width: w,
            on_off,
            buffers: storage,
            ..BlockParams::default()
        })
        .collect();
    all_checks(BlockKind::FlowControlUnit, &sets, 3000, mutation);
}
