//! Virtual-channel controller: multiplexes V virtual channels onto one
//! physical channel.
//!
//! Chien §3 (Figure 1): with virtual channels, a VC controller per physical
//! channel keeps per-VC buffers and flow-control state and arbitrates among
//! the VCs for the physical channel, one flit per cycle. Figure 2: its delay
//! grows with log V; Figure 4: its cost grows with V.
//!
//! Each VC is a [`FlowControlUnit`]: a D-flit buffer (flits of one VC leave
//! in the order they came, so two packets on one VC never interleave) and a
//! credit counter for the VC's buffer downstream (also D flits).
//!
//! Ports (v < V):
//! - `in_data_v` (W bits), `in_valid_v`, `in_head_v`, `in_tail_v`: flits
//!   for VC v; `credit_out_v` pulses when VC v's buffer frees a slot;
//!   `overflow_v` flags a flit refused because the buffer was full.
//! - `credit_in_v`: a credit for VC v from downstream.
//! - `phys_data` (W bits), `phys_valid`, `phys_head`, `phys_tail`,
//!   `phys_vc` (3 bits): the flit on the physical channel this cycle.
//!
//! Arbitration: among the VCs with a flit and a credit, round robin from the
//! VC after the last one served, so a VC that has a flit and a credit waits
//! at most V - 1 cycles. Synchronous reset `rst` empties every VC and
//! restores D credits each.
//!
//! On/off flow control ([`VcController::on_off`], docs/interface.md):
//! `credit_out_v` is VC v's level, high while at least 2 of its D slots are
//! free (its sender obeys the level a cycle late); `credit_in_v` is the
//! downstream level, which the controller registers and obeys in the cycle
//! after, so VC v may send in cycle t + 1 when the level was high in t. A
//! level is low after reset. Credit-mode Verilog carries no trace of it.

use rust_hdl::prelude::*;

use super::cosim::{each, InputSignal};
use super::flow_control::FlowControlUnit;
use super::{signals, HwBlock};
use crate::spec::ON_OFF_ROUND_TRIP;

/// Bits of a VC number (V up to 16, the router's limit).
pub const VC_BITS: usize = 4;
type VcId = Bits<VC_BITS>;

/// V virtual channels of W-bit flits multiplexed onto one physical
/// channel (module documentation; Chien §3).
#[derive(LogicBlock)]
pub struct VcController<const W: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high.
    pub rst: Signal<In, Bit>,
    /// `in_data[v]`: a flit for VC v (W bits).
    pub in_data: Vec<Signal<In, Bits<W>>>,
    /// `in_valid[v]`: a flit arrives for VC v.
    pub in_valid: Vec<Signal<In, Bit>>,
    /// `in_head[v]`: it is a head flit.
    pub in_head: Vec<Signal<In, Bit>>,
    /// `in_tail[v]`: it is a tail flit.
    pub in_tail: Vec<Signal<In, Bit>>,
    /// `credit_in[v]`: a credit (or, on/off, the level) for VC v from
    /// downstream.
    pub credit_in: Vec<Signal<In, Bit>>,
    /// `credit_out[v]`: VC v's buffer freed a slot (or, on/off, its level).
    pub credit_out: Vec<Signal<Out, Bit>>,
    /// `overflow[v]`: a flit for VC v was refused, its buffer full.
    pub overflow: Vec<Signal<Out, Bit>>,
    /// The flit on the physical channel this cycle (W bits).
    pub phys_data: Signal<Out, Bits<W>>,
    /// The physical channel carries a flit.
    pub phys_valid: Signal<Out, Bit>,
    /// It is a head flit.
    pub phys_head: Signal<Out, Bit>,
    /// It is a tail flit.
    pub phys_tail: Signal<Out, Bit>,
    /// Its VC number.
    pub phys_vc: Signal<Out, VcId>,
    vc: Vec<FlowControlUnit<W>>,
    /// On/off: per VC the downstream level of the cycle before (none with
    /// credits).
    level: Vec<DFF<Bit>>,
    last: DFF<VcId>,
    after: Vec<Signal<Local, Bit>>,
    seen: Signal<Local, Bit>,
    elig: Vec<Signal<Local, Bit>>,
    grant: Vec<Signal<Local, Bit>>,
    vc_id: Vec<Constant<VcId>>,
    zero: Constant<Bits<W>>,
    vc_zero: Constant<VcId>,
    vc_last: Constant<VcId>,
    _v: usize,
    _v1: usize,
    /// V with on/off flow control, else 0; `_cv` the other way round.
    _lv: usize,
    _cv: usize,
}

impl<const W: usize> VcController<W> {
    /// `vcs` virtual channels (1 to 16) with `depth`-flit buffers each (1
    /// to [`MAX_BUFFER_DEPTH`](crate::limits::MAX_BUFFER_DEPTH)), credit flow
    /// control.
    pub fn new(vcs: usize, depth: usize) -> crate::Result<Self> {
        Self::with_flow_control(vcs, depth, false)
    }

    /// The same with on/off flow control (module doc; `depth` at least
    /// [`ON_OFF_ROUND_TRIP`]).
    pub fn on_off(vcs: usize, depth: usize) -> crate::Result<Self> {
        Self::with_flow_control(vcs, depth, true)
    }

    /// [`VcController::on_off`] when `on_off`, else [`VcController::new`].
    pub fn with_flow_control(vcs: usize, depth: usize, on_off: bool) -> crate::Result<Self> {
        let name = "VC controller";
        super::check_width::<W>(name)?;
        super::check_size(
            name,
            "VC count V",
            vcs,
            (1, 1 << VC_BITS),
            "a VC number is VC_BITS = 4 bits wide",
        )?;
        let lowest = if on_off {
            ON_OFF_ROUND_TRIP as usize
        } else {
            1
        };
        let why = if on_off {
            "with on/off flow control a level is high while 2 slots are free, \
             for senders that obey it a cycle late; the counters hold at most 16"
        } else {
            "the occupancy and credit counters hold at most 16"
        };
        super::check_size(
            name,
            "buffer depth D (flits)",
            depth,
            (lowest, crate::limits::MAX_BUFFER_DEPTH as usize),
            why,
        )?;
        Ok(Self::with_flow_control_unchecked(vcs, depth, on_off))
    }

    /// [`VcController::new`] for callers whose sizes are validated.
    pub(crate) fn new_unchecked(vcs: usize, depth: usize) -> Self {
        Self::with_flow_control_unchecked(vcs, depth, false)
    }

    /// [`VcController::with_flow_control`] for callers whose sizes are
    /// validated (out of range sizes are clamped).
    pub(crate) fn with_flow_control_unchecked(vcs: usize, depth: usize, on_off: bool) -> Self {
        let v = vcs.clamp(1, 1 << VC_BITS);
        let lv = if on_off { v } else { 0 };
        let id = |k: usize| Constant::new(VcId::from(k as u64));
        VcController {
            clock: Signal::default(),
            rst: Signal::default(),
            in_data: signals(v),
            in_valid: signals(v),
            in_head: signals(v),
            in_tail: signals(v),
            credit_in: signals(v),
            credit_out: signals(v),
            overflow: signals(v),
            phys_data: Signal::default(),
            phys_valid: Signal::default(),
            phys_head: Signal::default(),
            phys_tail: Signal::default(),
            phys_vc: Signal::default(),
            vc: (0..v)
                .map(|_| {
                    if on_off {
                        FlowControlUnit::on_off_unchecked(depth, ON_OFF_ROUND_TRIP as usize)
                    } else {
                        FlowControlUnit::new_unchecked(depth, false)
                    }
                })
                .collect(),
            level: (0..lv).map(|_| DFF::default()).collect(),
            last: DFF::default(),
            after: signals(v),
            seen: Signal::default(),
            elig: signals(2 * v),
            grant: signals(v),
            vc_id: (0..v).map(id).collect(),
            zero: Constant::new(Bits::<W>::default()),
            vc_zero: id(0),
            vc_last: id(v - 1),
            _v: v,
            _v1: v + 1,
            _lv: lv,
            _cv: v - lv,
        }
    }
}

impl<const W: usize> Logic for VcController<W> {
    #[hdl_gen]
    fn update(&mut self) {
        self.last.clock.next = self.clock.val();
        self.last.d.next = self.last.q.val();
        self.seen.next = false;
        for v in 0..self._v {
            self.vc[v].clock.next = self.clock.val();
            self.vc[v].rst.next = self.rst.val();
            self.vc[v].in_data.next = self.in_data[v].val();
            self.vc[v].in_valid.next = self.in_valid[v].val();
            self.vc[v].in_head.next = self.in_head[v].val();
            self.vc[v].in_tail.next = self.in_tail[v].val();
            self.credit_out[v].next = self.vc[v].credit_out.val();
            self.overflow[v].next = self.vc[v].overflow.val();
            // VCs numbered above the last one served.
            self.after[v].next = self.seen.val();
            if self.vc_id[v].val() == self.last.q.val() {
                self.seen.next = true;
            }
            self.grant[v].next = false;
        }
        // Credits go straight to the VC's counter; on/off, each VC obeys the
        // downstream level of the cycle before. One assignment each: a
        // port assigned twice in one block glitches, and Icarus can loop on
        // such glitches without advancing time.
        for v in 0..self._cv {
            self.vc[v].credit_in.next = self.credit_in[v].val();
        }
        for v in 0..self._lv {
            self.level[v].clock.next = self.clock.val();
            self.level[v].d.next = self.credit_in[v].val() & !self.rst.val();
            self.vc[v].credit_in.next = self.level[v].q.val();
        }
        self.phys_data.next = self.zero.val();
        self.phys_valid.next = false;
        self.phys_head.next = false;
        self.phys_tail.next = false;
        self.phys_vc.next = self.vc_zero.val();
        for vw in self._v..self._v1 {
            // Round robin: the VCs after the last one served, then the rest.
            for v in 0..self._v {
                self.elig[v].next =
                    self.vc[v].out_valid.val() & self.vc[v].send_ok.val() & self.after[v].val();
                self.elig[vw + v].next =
                    self.vc[v].out_valid.val() & self.vc[v].send_ok.val() & !self.after[v].val();
            }
            for pass in 0..2 {
                for v in 0..self._v {
                    if self.elig[pass * vw + v].val() & !self.phys_valid.val() {
                        self.grant[v].next = true;
                        self.phys_valid.next = true;
                        self.phys_data.next = self.vc[v].out_data.val();
                        self.phys_head.next = self.vc[v].out_head.val();
                        self.phys_tail.next = self.vc[v].out_tail.val();
                        self.phys_vc.next = self.vc_id[v].val();
                    }
                }
            }
        }
        for v in 0..self._v {
            self.vc[v].out_ready.next = self.grant[v].val();
            self.vc[v].send_req.next = self.grant[v].val();
        }
        if self.phys_valid.val() {
            self.last.d.next = self.phys_vc.val();
        }
        if self.rst.val() {
            self.last.d.next = self.vc_last.val();
        }
    }
}

impl<const W: usize> HwBlock for VcController<W> {
    fn clock_mut(&mut self) -> Option<&mut Signal<In, Clock>> {
        Some(&mut self.clock)
    }
    fn visit_inputs(&mut self, f: &mut dyn FnMut(&mut dyn InputSignal)) {
        f(&mut self.rst);
        each(&mut self.in_data, f);
        each(&mut self.in_valid, f);
        each(&mut self.in_head, f);
        each(&mut self.in_tail, f);
        each(&mut self.credit_in, f);
    }
    fn bias(&self, name: &str) -> Option<f64> {
        if name.starts_with("in_valid") {
            Some(0.4)
        } else if name.starts_with("credit_in") {
            Some(0.3)
        } else {
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::VecDeque;

    use super::*;
    use crate::blocks::cosim::{random_stimulus, run_model};
    use crate::blocks::tool_checks::all_checks;
    use crate::blocks::{prepare, BlockKind, BlockParams};

    /// Reference controller written from the module doc.
    struct Reference {
        v: usize,
        d: usize,
        buf: Vec<VecDeque<(u64, bool, bool)>>,
        credits: Vec<usize>,
        last: usize,
        /// On/off: the downstream levels seen last cycle.
        on_off: bool,
        levels: Vec<bool>,
    }

    impl Reference {
        fn new(v: usize, d: usize, on_off: bool) -> Self {
            Reference {
                v,
                d,
                buf: vec![VecDeque::new(); v],
                credits: vec![0; v],
                last: 0,
                on_off,
                levels: vec![false; v],
            }
        }

        /// Outputs in port order: credit_out (V), overflow (V), phys_data,
        /// phys_valid, phys_head, phys_tail, phys_vc.
        fn step(&mut self, r: &[u64]) -> Vec<u64> {
            let v = self.v;
            let rst = r[0] == 1;
            let data = &r[1..1 + v];
            let valid = &r[1 + v..1 + 2 * v];
            let head = &r[1 + 2 * v..1 + 3 * v];
            let tail = &r[1 + 3 * v..1 + 4 * v];
            let credit_in = &r[1 + 4 * v..1 + 5 * v];
            let ready = |k: usize| {
                !self.buf[k].is_empty()
                    && if self.on_off {
                        self.levels[k]
                    } else {
                        self.credits[k] > 0
                    }
            };
            let winner = (1..=v).map(|s| (self.last + s) % v).find(|&k| ready(k));
            let mut phys = vec![0, 0, 0, 0, 0];
            // On/off: each level from the occupancy at the start of the
            // cycle, high while 2 slots are free.
            let mut credit_out: Vec<u64> = (0..v)
                .map(|k| u64::from(self.on_off && self.buf[k].len() + 2 <= self.d))
                .collect();
            let mut overflow = vec![0; v];
            // A buffer full at the start of the cycle refuses a flit even
            // if one leaves in it (src/blocks/flow_control/).
            let full: Vec<bool> = self.buf.iter().map(|b| b.len() >= self.d).collect();
            if let Some(k) = winner {
                let (d, h, t) = self.buf[k].pop_front().unwrap();
                phys = vec![d, 1, u64::from(h), u64::from(t), k as u64];
                if !self.on_off {
                    credit_out[k] = 1;
                }
                self.last = k;
            }
            for k in 0..v {
                let popped = winner == Some(k);
                if valid[k] == 1 {
                    if !full[k] {
                        self.buf[k].push_back((data[k], head[k] == 1, tail[k] == 1));
                    } else {
                        overflow[k] = 1;
                    }
                }
                let inc = credit_in[k] == 1 && self.credits[k] < self.d;
                self.credits[k] = self.credits[k] + usize::from(inc) - usize::from(popped);
                self.levels[k] = credit_in[k] == 1;
            }
            if rst {
                *self = Reference::new(v, self.d, self.on_off);
                self.credits = vec![self.d; v];
                self.last = v - 1;
            }
            [credit_out, overflow, phys].concat()
        }
    }

    #[test]
    fn matches_the_reference_on_random_stimulus() {
        for (v, d, on_off) in [
            (1, 2, false),
            (2, 3, false),
            (4, 2, false),
            (1, 2, true),
            (3, 3, true),
            (4, 4, true),
        ] {
            let mut x = VcController::<16>::with_flow_control(v, d, on_off).unwrap();
            prepare(&mut x);
            let stim = random_stimulus(&x, "clock", 3000, 40 + v as u64);
            let got = run_model(&mut x, &stim);
            let mut r = Reference::new(v, d, on_off);
            let mut sent = 0;
            for (c, s) in stim.iter().enumerate() {
                let want = r.step(s);
                sent += want[2 * v + 1];
                assert_eq!(got[c], want, "V={v} D={d} on_off={on_off} cycle {c}");
            }
            assert!(sent > 300, "the channel carries flits ({sent})");
        }
    }

    /// Credit mode's Verilog names no on/off register.
    #[test]
    fn credit_mode_verilog_has_no_level_registers() {
        let credit = crate::blocks::emit(VcController::<16>::new(3, 2).unwrap(), "c").unwrap();
        let on_off = crate::blocks::emit(VcController::<16>::on_off(3, 2).unwrap(), "o").unwrap();
        assert!(!credit.contains("level"), "credit mode");
        assert!(on_off.contains("level["), "on/off mode");
    }

    #[test]
    fn vcs_share_the_channel_in_turn_and_packets_stay_whole_per_vc() {
        let (v, d) = (3, 8);
        let mut x = VcController::<16>::new(v, d).unwrap();
        prepare(&mut x);
        // Each VC gets two 3-flit packets back to back; data = vc*16 + seq.
        let mut stim = Vec::new();
        let reset = {
            let mut r = vec![0; 1 + 5 * v];
            r[0] = 1;
            r
        };
        stim.push(reset);
        for seq in 0..6u64 {
            let mut r = vec![0; 1 + 5 * v];
            for k in 0..v {
                r[1 + k] = k as u64 * 16 + seq;
                r[1 + v + k] = 1;
                r[1 + 2 * v + k] = u64::from(seq % 3 == 0);
                r[1 + 3 * v + k] = u64::from(seq % 3 == 2);
                r[1 + 4 * v + k] = 1; // credits keep coming back
            }
            stim.push(r);
        }
        for _ in 0..30 {
            let mut r = vec![0; 1 + 5 * v];
            for k in 0..v {
                r[1 + 4 * v + k] = 1;
            }
            stim.push(r);
        }
        let out = run_model(&mut x, &stim);
        let mut per_vc: Vec<Vec<(u64, u64, u64)>> = vec![Vec::new(); v];
        let mut order = Vec::new();
        for o in &out {
            let p = &o[2 * v..];
            if p[1] == 1 {
                per_vc[p[4] as usize].push((p[0], p[2], p[3]));
                order.push(p[4]);
            }
        }
        for (k, flits) in per_vc.iter().enumerate() {
            let want: Vec<(u64, u64, u64)> = (0..6u64)
                .map(|s| {
                    (
                        k as u64 * 16 + s,
                        u64::from(s % 3 == 0),
                        u64::from(s % 3 == 2),
                    )
                })
                .collect();
            assert_eq!(flits, &want, "VC {k}: every flit, in order, packets whole");
        }
        // All three VCs always have a flit and a credit: strict rotation.
        let want: Vec<u64> = (0..18).map(|n| n % 3).collect();
        assert_eq!(order, want);
    }

    #[test]
    fn reset_in_the_middle_of_a_packet_empties_every_vc() {
        let v = 2;
        let mut x = VcController::<8>::new(v, 2).unwrap();
        prepare(&mut x);
        let mut rows = vec![vec![0u64; 1 + 5 * v]; 4];
        rows[0][0] = 1;
        // cycle 1: head flits into both VCs
        rows[1][1] = 5;
        rows[1][2] = 6;
        rows[1][1 + v] = 1;
        rows[1][2 + v] = 1;
        rows[1][1 + 2 * v] = 1;
        rows[1][2 + 2 * v] = 1;
        rows[2][0] = 1; // reset with VC 1 still holding its head flit
        let out = run_model(&mut x, &rows);
        assert_eq!(out[2][2 * v + 1], 1, "VC 0's head flit leaves in cycle 2");
        assert_eq!(out[3][2 * v + 1], 0, "nothing left after the reset");
    }

    /// Block parameters of each (V, D, W).
    fn block_params(sets: &[(usize, usize, usize)], on_off: bool) -> Vec<BlockParams> {
        sets.iter()
            .map(|&(vcs, depth, flit_width)| BlockParams {
                vcs,
                depth,
                flit_width,
                on_off,
                ..BlockParams::default()
            })
            .collect()
    }

    #[test]
    fn verilog_passes_the_tools_and_cosimulates() {
        let sets = block_params(&[(2, 2, 16), (1, 3, 8), (4, 2, 32)], false);
        // The mutant ignores the round-robin pointer: VC 0 always first.
        all_checks(
            BlockKind::VcController,
            &sets,
            3000,
            ("after[1] = seen", "after[1] = 1'b1"),
        );
    }

    /// On/off (`routergen block vc-controller --flow-control on-off`): the
    /// tools and co-simulation; the mutant's VC 0 sends whatever its
    /// downstream level.
    #[test]
    fn on_off_verilog_passes_the_tools_and_cosimulates() {
        let sets = block_params(&[(3, 2, 16), (1, 4, 8)], true);
        all_checks(
            BlockKind::VcController,
            &sets,
            3000,
            ("level_d[0] = credit_in_0 & ~rst;", "level_d[0] = 1'b1;"),
        );
    }
}
