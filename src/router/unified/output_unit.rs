//! The output unit (Chien §3, Figure 1: the VC controller's side of an
//! output port): per output port the flit leaving the crossbar and its
//! output VC (no output buffers); per output VC whether a packet holds
//! it, and the downstream buffer's state: a credit counter (D at reset,
//! minus one per flit sent, plus one per `out_credit` pulse) or, with
//! on/off flow control, the downstream level of the cycle before.
//!
//! One source: the simulation model is this block's `update`, and the
//! router's Verilog module `..._output_unit` is printed from it.

use rust_hdl::prelude::*;

use super::{mask_for, PortId, VcId};
use crate::blocks::signals;

/// The output unit of a router of P ports and V VCs (module
/// documentation). Output VC k = o V + c is VC c of output port o.
#[derive(LogicBlock)]
pub struct OutputUnit<const W: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset: no output VC held, D credits each.
    pub rst: Signal<In, Bit>,
    /// Per output port: the flit the crossbar passes.
    pub xbar_data: Vec<Signal<In, Bits<W>>>,
    /// Per output port: the crossbar passes a flit.
    pub xbar_valid: Vec<Signal<In, Bit>>,
    /// Per output port: it is a head flit.
    pub xbar_head: Vec<Signal<In, Bit>>,
    /// Per output port: it is a tail flit.
    pub xbar_tail: Vec<Signal<In, Bit>>,
    /// Per output port o and input port q (`o P + q`): the crossbar
    /// connects q to o.
    pub grant: Vec<Signal<In, Bit>>,
    /// Per input port: the output VC its flit is sent on.
    pub send_vc: Vec<Signal<In, VcId>>,
    /// Per input port: its waiting head was granted an output VC this
    /// cycle, (`alloc_port`, `alloc_vc`).
    pub alloc_valid: Vec<Signal<In, Bit>>,
    /// Per input port: the output port granted.
    pub alloc_port: Vec<Signal<In, PortId>>,
    /// Per input port: the output VC granted.
    pub alloc_vc: Vec<Signal<In, VcId>>,
    /// Per output VC: a credit pulse (or the on/off level) from downstream.
    pub out_credit: Vec<Signal<In, Bit>>,
    /// Per output port: the flit leaving.
    pub out_data: Vec<Signal<Out, Bits<W>>>,
    /// Per output port: a flit leaves.
    pub out_valid: Vec<Signal<Out, Bit>>,
    /// Per output port: it is a head flit.
    pub out_head: Vec<Signal<Out, Bit>>,
    /// Per output port: it is a tail flit.
    pub out_tail: Vec<Signal<Out, Bit>>,
    /// Per output port: its output VC.
    pub out_vc: Vec<Signal<Out, VcId>>,
    /// Per output VC: a packet holds it.
    pub busy: Vec<Signal<Out, Bit>>,
    /// Per output VC: its downstream credits (credit flow control; none
    /// on/off).
    pub credits: Vec<Signal<Out, Credits>>,
    /// Per output VC: the downstream level of the cycle before (on/off;
    /// none with credits).
    pub level: Vec<Signal<Out, Bit>>,
    /// Per output VC: it may send in the next cycle if no flit leaves by
    /// it now (`may_send0`) or if one does (`may_send1`): a credit left
    /// (a returning credit leaves one either way), or the level arriving.
    pub may_send0: Vec<Signal<Out, Bit>>,
    /// See `may_send0`.
    pub may_send1: Vec<Signal<Out, Bit>>,
    held: Vec<DFF<Bit>>,
    count: Vec<DFF<Credits>>,
    on: Vec<DFF<Bit>>,
    /// Per output VC: a flit leaves by it now.
    sent: Vec<Signal<Local, Bit>>,
    /// Per output VC: its count after this cycle, before the mask.
    next_count: Vec<Signal<Local, Credits>>,
    port_id: Vec<Constant<PortId>>,
    vc_id: Vec<Constant<VcId>>,
    vc_zero: Constant<VcId>,
    depth: Constant<Credits>,
    one: Constant<Credits>,
    count_zero: Constant<Credits>,
    /// The count is 0 to D: the bits above stay constant and synthesis
    /// drops them.
    count_mask: Constant<Credits>,
    _p: usize,
    _p1: usize,
    _v: usize,
    _v1: usize,
    _pv: usize,
    /// Output VCs with a credit counter (P V, or 0 on/off), with a level
    /// register (the other way round).
    _cpv: usize,
    _lpv: usize,
}

/// A credit count: 0 to D, so the bits above stay 0 (`count_mask`) and
/// synthesis drops them; as wide as the VC allocator's scores, which add
/// the counts of a port.
pub(super) type Credits = Bits<8>;

impl<const W: usize> OutputUnit<W> {
    /// The output unit of `p` ports and `v` VCs whose downstream buffers
    /// hold `depth` flits, with on/off flow control when `on_off`.
    pub(super) fn new(p: usize, v: usize, depth: usize, on_off: bool) -> Self {
        let pv = p * v;
        let (cpv, lpv) = if on_off { (0, pv) } else { (pv, 0) };
        let count = |x: usize| Constant::new(Credits::from(x as u64));
        OutputUnit {
            clock: Signal::default(),
            rst: Signal::default(),
            xbar_data: signals(p),
            xbar_valid: signals(p),
            xbar_head: signals(p),
            xbar_tail: signals(p),
            grant: signals(p * p),
            send_vc: signals(p),
            alloc_valid: signals(p),
            alloc_port: signals(p),
            alloc_vc: signals(p),
            out_credit: signals(pv),
            out_data: signals(p),
            out_valid: signals(p),
            out_head: signals(p),
            out_tail: signals(p),
            out_vc: signals(p),
            busy: signals(pv),
            credits: signals(cpv),
            level: signals(lpv),
            may_send0: signals(pv),
            may_send1: signals(pv),
            held: (0..pv).map(|_| DFF::default()).collect(),
            count: (0..cpv).map(|_| DFF::default()).collect(),
            on: (0..lpv).map(|_| DFF::default()).collect(),
            sent: signals(pv),
            next_count: signals(cpv),
            port_id: (0..p)
                .map(|o| Constant::new(PortId::from(o as u64)))
                .collect(),
            vc_id: (0..v)
                .map(|c| Constant::new(VcId::from(c as u64)))
                .collect(),
            vc_zero: Constant::new(VcId::from(0u64)),
            depth: count(depth),
            one: count(1),
            count_zero: count(0),
            count_mask: count(mask_for(depth)),
            _p: p,
            _p1: p + 1,
            _v: v,
            _v1: v + 1,
            _pv: pv,
            _cpv: cpv,
            _lpv: lpv,
        }
    }
}

impl<const W: usize> Logic for OutputUnit<W> {
    #[hdl_gen]
    fn update(&mut self) {
        // (Clocks in loops of their own: the writer drops these copies.)
        for k in 0..self._pv {
            self.held[k].clock.next = self.clock.val();
        }
        for k in 0..self._cpv {
            self.count[k].clock.next = self.clock.val();
        }
        for k in 0..self._lpv {
            self.on[k].clock.next = self.clock.val();
        }
        // The flits as they cross; an output port's VC is that of the
        // input port the crossbar connects to it.
        for pw in self._p..self._p1 {
            for o in 0..self._p {
                self.out_data[o].next = self.xbar_data[o].val();
                self.out_valid[o].next = self.xbar_valid[o].val();
                self.out_head[o].next = self.xbar_head[o].val();
                self.out_tail[o].next = self.xbar_tail[o].val();
                self.out_vc[o].next = self.vc_zero.val();
                for q in 0..self._p {
                    if self.grant[o * pw + q].val() {
                        self.out_vc[o].next = self.out_vc[o].val() | self.send_vc[q].val();
                    }
                }
            }
        }
        for vw in self._v..self._v1 {
            for o in 0..self._p {
                for c in 0..self._v {
                    self.sent[o * vw + c].next =
                        self.xbar_valid[o].val() & (self.out_vc[o].val() == self.vc_id[c].val());
                    // Held from a head's allocation until its tail leaves.
                    self.held[o * vw + c].d.next = self.held[o * vw + c].q.val();
                    if self.sent[o * vw + c].val() & self.xbar_tail[o].val() {
                        self.held[o * vw + c].d.next = false;
                    }
                    for q in 0..self._p {
                        if self.alloc_valid[q].val()
                            & (self.alloc_port[q].val() == self.port_id[o].val())
                            & (self.alloc_vc[q].val() == self.vc_id[c].val())
                        {
                            self.held[o * vw + c].d.next = true;
                        }
                    }
                    if self.rst.val() {
                        self.held[o * vw + c].d.next = false;
                    }
                    self.busy[o * vw + c].next = self.held[o * vw + c].q.val();
                }
            }
        }
        for k in 0..self._cpv {
            // A pulse for the flit sent in this very cycle (a receiver
            // that frees the slot at once) counts too: the count stays
            // exact and never passes D (docs/interface.md, credit mode).
            self.next_count[k].next = self.count[k].q.val();
            if self.sent[k].val() {
                self.next_count[k].next = self.next_count[k].val() - self.one.val();
            }
            if self.out_credit[k].val()
                & ((self.count[k].q.val() != self.depth.val()) | self.sent[k].val())
            {
                self.next_count[k].next = self.next_count[k].val() + self.one.val();
            }
            self.count[k].d.next = self.next_count[k].val() & self.count_mask.val();
            if self.rst.val() {
                self.count[k].d.next = self.depth.val();
            }
            self.credits[k].next = self.count[k].q.val();
            self.may_send0[k].next =
                self.out_credit[k].val() | (self.count[k].q.val() != self.count_zero.val());
            self.may_send1[k].next =
                self.out_credit[k].val() | (self.count[k].q.val() > self.one.val());
        }
        for k in 0..self._lpv {
            self.on[k].d.next = self.out_credit[k].val() & !self.rst.val();
            self.level[k].next = self.on[k].q.val();
            self.may_send0[k].next = self.out_credit[k].val();
            self.may_send1[k].next = self.out_credit[k].val();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::blocks::cosim::{each, random_stimulus, run_model, InputSignal};
    use crate::blocks::{prepare, HwBlock};

    impl<const W: usize> HwBlock for OutputUnit<W> {
        fn clock_mut(&mut self) -> Option<&mut Signal<In, Clock>> {
            Some(&mut self.clock)
        }
        fn visit_inputs(&mut self, f: &mut dyn FnMut(&mut dyn InputSignal)) {
            f(&mut self.rst);
            each(&mut self.xbar_data, f);
            each(&mut self.xbar_valid, f);
            each(&mut self.xbar_head, f);
            each(&mut self.xbar_tail, f);
            each(&mut self.grant, f);
            each(&mut self.send_vc, f);
            each(&mut self.alloc_valid, f);
            each(&mut self.alloc_port, f);
            each(&mut self.alloc_vc, f);
            each(&mut self.out_credit, f);
        }
        fn bias(&self, name: &str) -> Option<f64> {
            // One grant in a few per output, allocations now and then.
            match name {
                n if n.starts_with("grant") => Some(0.2),
                n if n.starts_with("alloc_valid") => Some(0.15),
                n if n.starts_with("out_credit") => Some(0.3),
                _ => None,
            }
        }
        fn value_limit(&self, name: &str) -> Option<u64> {
            if name.starts_with("alloc_port") {
                Some(self._p as u64)
            } else if name.starts_with("send_vc") || name.starts_with("alloc_vc") {
                Some(self._v as u64)
            } else {
                None
            }
        }
    }

    /// The output unit written from its documentation, on the input row
    /// `r` in port order; returns the outputs before the clock edge.
    struct Reference {
        p: usize,
        v: usize,
        d: u64,
        on_off: bool,
        held: Vec<bool>,
        count: Vec<u64>,
        level: Vec<bool>,
    }

    impl Reference {
        fn new(p: usize, v: usize, d: usize, on_off: bool) -> Self {
            Reference {
                p,
                v,
                d: d as u64,
                on_off,
                held: vec![false; p * v],
                count: vec![0; p * v],
                level: vec![false; p * v],
            }
        }

        fn step(&mut self, r: &[u64]) -> Vec<u64> {
            let (p, v) = (self.p, self.v);
            let mut at = 0;
            let mut take = |n: usize| {
                at += n;
                r[at - n..at].to_vec()
            };
            let rst = take(1)[0] == 1;
            let (data, valid, head, tail) = (take(p), take(p), take(p), take(p));
            let grant = take(p * p);
            let (send_vc, alloc_valid, alloc_port, alloc_vc) = (take(p), take(p), take(p), take(p));
            let credit = take(p * v);
            let out_vc: Vec<u64> = (0..p)
                .map(|o| {
                    (0..p)
                        .filter(|&q| grant[o * p + q] == 1)
                        .fold(0, |x, q| x | send_vc[q])
                })
                .collect();
            let k_of = |o: usize, c: usize| o * v + c;
            let sent = |o: usize, c: usize| valid[o] == 1 && out_vc[o] == c as u64;
            let busy: Vec<u64> = self.held.iter().map(|&h| u64::from(h)).collect();
            let (mut may0, mut may1) = (vec![0; p * v], vec![0; p * v]);
            for k in 0..p * v {
                let c = credit[k] == 1;
                may0[k] = u64::from(c || (!self.on_off && self.count[k] != 0));
                may1[k] = u64::from(c || (!self.on_off && self.count[k] > 1));
            }
            let mut out = [
                data,
                valid.clone(),
                head,
                tail.clone(),
                out_vc.clone(),
                busy,
            ]
            .concat();
            if self.on_off {
                out.extend(self.level.iter().map(|&l| u64::from(l)));
            } else {
                out.extend(self.count.iter());
            }
            out.extend(may0);
            out.extend(may1);
            // The clock edge.
            let mask = (self.d + 1).next_power_of_two() - 1;
            for (o, &tail_o) in tail.iter().enumerate() {
                for c in 0..v {
                    let k = k_of(o, c);
                    let taken = (0..p).any(|q| {
                        alloc_valid[q] == 1 && alloc_port[q] == o as u64 && alloc_vc[q] == c as u64
                    });
                    self.held[k] =
                        !rst && (taken || (self.held[k] && !(sent(o, c) && tail_o == 1)));
                    let s = u64::from(sent(o, c));
                    let returned = credit[k] == 1 && (self.count[k] != self.d || s == 1);
                    self.count[k] = if rst {
                        self.d
                    } else {
                        ((self.count[k] + 32 - s + u64::from(returned)) % 32) & mask
                    };
                    self.level[k] = !rst && credit[k] == 1;
                }
            }
            out
        }
    }

    #[test]
    fn matches_the_reference_on_random_stimulus() {
        for (p, v, d, on_off) in [
            (5, 2, 4, false),
            (3, 3, 2, false),
            (5, 1, 3, true),
            (2, 4, 3, true),
        ] {
            let mut x = OutputUnit::<16>::new(p, v, d, on_off);
            prepare(&mut x);
            let stim = random_stimulus(&x, "clock", 2000, 7 + p as u64);
            let got = run_model(&mut x, &stim);
            let mut r = Reference::new(p, v, d, on_off);
            let (mut sends, mut held) = (0, 0);
            for (cycle, s) in stim.iter().enumerate() {
                let want = r.step(s);
                assert_eq!(
                    got[cycle], want,
                    "P={p} V={v} D={d} on_off={on_off} cycle {cycle}"
                );
                sends += want[p..2 * p].iter().sum::<u64>();
                held += want[5 * p..5 * p + p * v].iter().sum::<u64>();
            }
            assert!(sends > 500 && held > 500, "flits {sends}, held VCs {held}");
        }
    }
}
