//! The switch allocator (Chien §3: the VC controllers' share of the
//! crossbar, decided per flit): per input port one VC that holds an
//! output VC, has a flit and may send on that VC, chosen round robin; per
//! output port one input port, chosen by a routing arbiter (STATIC-XY).
//!
//! Second choices: a separable input-first allocator loses the input port
//! whose chosen VC loses its output, even when another of its ready VCs
//! wants an output nobody asked for. So each input port also names its
//! next ready VC in round-robin order; where its first choice is
//! contended (another port asks for the same output), that second choice
//! goes to a second arbiter, for the outputs no first choice asks for.
//! The two arbiters decide in parallel and their outputs are disjoint; a
//! port granted both sends its first choice (the second output idles, as
//! it would have). First choices never compete with second ones, so each
//! input VC is served within the bound of the one allocator before
//! (docs/router.md, switch allocation).
//!
//! One source: the simulation model is this block's `update`, and the
//! router's Verilog module `..._switch_allocator` is printed from it.

use rust_hdl::prelude::*;

use super::{mask_for, PortId, VcId};
use crate::blocks::{signals, RoutingArbiter};
use crate::spec::PathSelection;

/// The switch allocator of a router of P ports and V VCs (module
/// documentation). Input VC i = q V + c is VC c of input port q.
#[derive(LogicBlock)]
pub struct SwitchAllocator {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset: the round-robin pointers to VC 0.
    pub rst: Signal<In, Bit>,
    /// Per input VC: a flit waits at the front of its buffer.
    pub valid: Vec<Signal<In, Bit>>,
    /// Per input VC: it holds an output VC that may send.
    pub may_send: Vec<Signal<In, Bit>>,
    /// Per input VC: the output port it holds.
    pub port: Vec<Signal<In, PortId>>,
    /// Per input port: a flit of it crosses.
    pub go: Vec<Signal<Out, Bit>>,
    /// Per input port: the VC whose flit crosses.
    pub sel: Vec<Signal<Out, VcId>>,
    /// Per output port o and input port q (`o P + q`): the crossbar
    /// connects q to o.
    pub grant: Vec<Signal<Out, Bit>>,
    /// Per input VC: its front flit leaves (the buffer's read).
    pub read: Vec<Signal<Out, Bit>>,
    /// Per input port: the round-robin pointer, the VC first in line.
    ptr: Vec<DFF<VcId>>,
    /// The first choices' arbiter, and the second choices'.
    arbiter: RoutingArbiter,
    second_arbiter: RoutingArbiter,
    /// Per input VC: ready (a flit and an output VC that may send), and
    /// ready but not its port's first choice.
    ready: Vec<Signal<Local, Bit>>,
    /// Per input VC: it comes at or after its port's pointer (by equality
    /// tests only: a comparison with the last VC would be constant).
    from_ptr: Vec<Signal<Local, Bit>>,
    others: Vec<Signal<Local, Bit>>,
    /// Per input port: a first choice, which VC, for which output port;
    /// the same for the second choice.
    first: Vec<Signal<Local, Bit>>,
    first_vc: Vec<Signal<Local, VcId>>,
    first_port: Vec<Signal<Local, PortId>>,
    second: Vec<Signal<Local, Bit>>,
    second_vc: Vec<Signal<Local, VcId>>,
    second_port: Vec<Signal<Local, PortId>>,
    /// Per input port: another port's first choice asks for its first
    /// choice's output; some port's first choice asks for its second's.
    contended: Vec<Signal<Local, Bit>>,
    taken: Vec<Signal<Local, Bit>>,
    /// Per input ports r and q (`r P + q`): they differ.
    other: Vec<Constant<Bit>>,
    vc_id: Vec<Constant<VcId>>,
    vc_zero: Constant<VcId>,
    vc_one: Constant<VcId>,
    vc_last: Constant<VcId>,
    /// The pointer is 0 to V - 1: the bits above stay constant and
    /// synthesis drops them.
    vc_mask: Constant<VcId>,
    score_zero: Constant<Bits<8>>,
    _p: usize,
    _p1: usize,
    _v: usize,
    _v1: usize,
}

impl SwitchAllocator {
    /// The switch allocator of `p` ports and `v` VCs.
    pub(crate) fn new(p: usize, v: usize) -> Self {
        let pv = p * v;
        let vc = |c: usize| Constant::new(VcId::from(c as u64));
        SwitchAllocator {
            clock: Signal::default(),
            rst: Signal::default(),
            valid: signals(pv),
            may_send: signals(pv),
            port: signals(pv),
            go: signals(p),
            sel: signals(p),
            grant: signals(p * p),
            read: signals(pv),
            ptr: (0..p).map(|_| DFF::default()).collect(),
            arbiter: RoutingArbiter::new_unchecked(p, 1, PathSelection::StaticXy),
            second_arbiter: RoutingArbiter::new_unchecked(p, 1, PathSelection::StaticXy),
            ready: signals(pv),
            others: signals(pv),
            from_ptr: signals(pv),
            first: signals(p),
            first_vc: signals(p),
            first_port: signals(p),
            second: signals(p),
            second_vc: signals(p),
            second_port: signals(p),
            contended: signals(p),
            taken: signals(p),
            other: (0..p * p).map(|m| Constant::new(m / p != m % p)).collect(),
            vc_id: (0..v).map(vc).collect(),
            vc_zero: vc(0),
            vc_one: vc(1),
            vc_last: vc(v - 1),
            vc_mask: vc(mask_for(v - 1)),
            score_zero: Constant::new(Bits::<8>::from(0u64)),
            _p: p,
            _p1: p + 1,
            _v: v,
            _v1: v + 1,
        }
    }
}

impl Logic for SwitchAllocator {
    #[hdl_gen]
    fn update(&mut self) {
        // (Clocks in loops of their own: the writer drops these copies.)
        for q in 0..self._p {
            self.ptr[q].clock.next = self.clock.val();
        }
        self.arbiter.clock.next = self.clock.val();
        self.arbiter.rst.next = self.rst.val();
        self.second_arbiter.clock.next = self.clock.val();
        self.second_arbiter.rst.next = self.rst.val();
        for vw in self._v..self._v1 {
            for q in 0..self._p {
                // The first choice: the first ready VC at or after the
                // pointer, else the first before it.
                for c in 0..self._v {
                    self.ready[q * vw + c].next =
                        self.valid[q * vw + c].val() & self.may_send[q * vw + c].val();
                }
                self.from_ptr[q * vw].next = self.ptr[q].q.val() == self.vc_zero.val();
                for c in 1..self._v {
                    self.from_ptr[q * vw + c].next = self.from_ptr[q * vw + c - 1].val()
                        | (self.ptr[q].q.val() == self.vc_id[c].val());
                }
                self.first[q].next = false;
                self.first_vc[q].next = self.vc_zero.val();
                for c in 0..self._v {
                    if self.ready[q * vw + c].val()
                        & self.from_ptr[q * vw + c].val()
                        & !self.first[q].val()
                    {
                        self.first[q].next = true;
                        self.first_vc[q].next = self.vc_id[c].val();
                    }
                }
                for c in 0..self._v {
                    if self.ready[q * vw + c].val()
                        & !self.from_ptr[q * vw + c].val()
                        & !self.first[q].val()
                    {
                        self.first[q].next = true;
                        self.first_vc[q].next = self.vc_id[c].val();
                    }
                }
                // The second choice: the same order over the other ready VCs.
                for c in 0..self._v {
                    self.others[q * vw + c].next = self.ready[q * vw + c].val()
                        & (self.first_vc[q].val() != self.vc_id[c].val());
                }
                self.second[q].next = false;
                self.second_vc[q].next = self.vc_zero.val();
                for c in 0..self._v {
                    if self.others[q * vw + c].val()
                        & self.from_ptr[q * vw + c].val()
                        & !self.second[q].val()
                    {
                        self.second[q].next = true;
                        self.second_vc[q].next = self.vc_id[c].val();
                    }
                }
                for c in 0..self._v {
                    if self.others[q * vw + c].val()
                        & !self.from_ptr[q * vw + c].val()
                        & !self.second[q].val()
                    {
                        self.second[q].next = true;
                        self.second_vc[q].next = self.vc_id[c].val();
                    }
                }
                // The output ports the choices hold (VC 0's without one).
                self.first_port[q].next = self.port[q * vw].val();
                self.second_port[q].next = self.port[q * vw].val();
                for c in 0..self._v {
                    if self.first_vc[q].val() == self.vc_id[c].val() {
                        self.first_port[q].next = self.port[q * vw + c].val();
                    }
                    if self.second_vc[q].val() == self.vc_id[c].val() {
                        self.second_port[q].next = self.port[q * vw + c].val();
                    }
                }
            }
        }
        // A second choice is offered when the first is contended, to an
        // output no first choice asks for.
        for pw in self._p..self._p1 {
            for q in 0..self._p {
                self.contended[q].next = false;
                self.taken[q].next = false;
                for r in 0..self._p {
                    if self.first[r].val() & (self.first_port[r].val() == self.second_port[q].val())
                    {
                        self.taken[q].next = true;
                    }
                    if self.other[r * pw + q].val()
                        & self.first[r].val()
                        & (self.first_port[r].val() == self.first_port[q].val())
                    {
                        self.contended[q].next = true;
                    }
                }
            }
        }
        for q in 0..self._p {
            self.arbiter.req[q].next = self.first[q].val();
            self.arbiter.cand[q].next = self.first_port[q].val();
            self.arbiter.cand_valid[q].next = true;
            self.second_arbiter.req[q].next =
                self.second[q].val() & self.contended[q].val() & !self.taken[q].val();
            self.second_arbiter.cand[q].next = self.second_port[q].val();
            self.second_arbiter.cand_valid[q].next = true;
            self.arbiter.out_free[q].next = true;
            self.arbiter.out_credits[q].next = self.score_zero.val();
            self.arbiter.out_mux[q].next = self.score_zero.val();
            self.second_arbiter.out_free[q].next = true;
            self.second_arbiter.out_credits[q].next = self.score_zero.val();
            self.second_arbiter.out_mux[q].next = self.score_zero.val();
        }
        // The VC sent from: the first choice if granted, else the second.
        for pw in self._p..self._p1 {
            for q in 0..self._p {
                self.go[q].next = self.arbiter.grant[q].val() | self.second_arbiter.grant[q].val();
                self.sel[q].next = self.second_vc[q].val();
                if self.arbiter.grant[q].val() {
                    self.sel[q].next = self.first_vc[q].val();
                }
                for o in 0..self._p {
                    self.grant[o * pw + q].next = self.arbiter.grant_out[o * pw + q].val()
                        | (self.second_arbiter.grant_out[o * pw + q].val()
                            & !self.arbiter.grant[q].val());
                }
            }
        }
        for vw in self._v..self._v1 {
            for q in 0..self._p {
                for c in 0..self._v {
                    self.read[q * vw + c].next =
                        self.go[q].val() & (self.sel[q].val() == self.vc_id[c].val());
                }
                // The pointer advances every cycle: a waiting VC is first
                // in line once every V cycles.
                self.ptr[q].d.next = (self.ptr[q].q.val() + self.vc_one.val()) & self.vc_mask.val();
                // (Equality: with V = 1 a `>=` test would be constant.)
                if self.ptr[q].q.val() == self.vc_last.val() {
                    self.ptr[q].d.next = self.vc_zero.val();
                }
                if self.rst.val() {
                    self.ptr[q].d.next = self.vc_zero.val();
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::blocks::cosim::{each, random_stimulus, run_model, InputSignal};
    use crate::blocks::{prepare, HwBlock};

    impl HwBlock for SwitchAllocator {
        fn clock_mut(&mut self) -> Option<&mut Signal<In, Clock>> {
            Some(&mut self.clock)
        }
        fn visit_inputs(&mut self, f: &mut dyn FnMut(&mut dyn InputSignal)) {
            f(&mut self.rst);
            each(&mut self.valid, f);
            each(&mut self.may_send, f);
            each(&mut self.port, f);
        }
        fn bias(&self, name: &str) -> Option<f64> {
            (name.starts_with("valid") || name.starts_with("may_send")).then_some(0.6)
        }
        fn value_limit(&self, name: &str) -> Option<u64> {
            name.starts_with("port").then_some(self._p as u64)
        }
    }

    /// The switch allocator written from its documentation and the routing
    /// arbiter's (each output to the first input asking for it in round
    /// robin from a pointer that advances every cycle), on the input row
    /// `r` in port order; returns the outputs before the clock edge.
    struct Reference {
        p: usize,
        v: usize,
        ptr: Vec<usize>,
        start: [usize; 2],
        /// Flits sent by second choices.
        seconds: usize,
    }

    impl Reference {
        /// Round robin from `ptr` among the set `flags`.
        fn choose(ptr: usize, flags: &[bool]) -> Option<usize> {
            (ptr..flags.len()).chain(0..ptr).find(|&c| flags[c])
        }

        /// Per output, the first input from `start` on asking for it;
        /// the grants per input and per (output, input).
        fn arbitrate(&self, start: usize, asks: &[Option<usize>]) -> (Vec<bool>, Vec<bool>) {
            let p = self.p;
            let (mut grant, mut grant_out) = (vec![false; p], vec![false; p * p]);
            for o in 0..p {
                if let Some(q) = (start..p).chain(0..start).find(|&q| asks[q] == Some(o)) {
                    grant[q] = true;
                    grant_out[o * p + q] = true;
                }
            }
            (grant, grant_out)
        }

        fn step(&mut self, r: &[u64]) -> Vec<u64> {
            let (p, v) = (self.p, self.v);
            let rst = r[0] == 1;
            let valid = &r[1..1 + p * v];
            let may = &r[1 + p * v..1 + 2 * p * v];
            let port = &r[1 + 2 * p * v..1 + 3 * p * v];
            let mut first = vec![None; p];
            let mut second = vec![None; p];
            for q in 0..p {
                let ready: Vec<bool> = (0..v)
                    .map(|c| valid[q * v + c] == 1 && may[q * v + c] == 1)
                    .collect();
                first[q] = Self::choose(self.ptr[q], &ready);
                let others: Vec<bool> = (0..v).map(|c| ready[c] && first[q] != Some(c)).collect();
                second[q] = Self::choose(self.ptr[q], &others);
            }
            let port_of = |q: usize, c: Option<usize>| c.map(|c| port[q * v + c] as usize);
            let asks: Vec<Option<usize>> = (0..p).map(|q| port_of(q, first[q])).collect();
            // A second choice where another port asks for the first's
            // output and no first choice asks for the second's.
            let asks2: Vec<Option<usize>> = (0..p)
                .map(|q| {
                    let o = port_of(q, second[q])?;
                    let contended =
                        (0..p).any(|r| r != q && asks[r].is_some() && asks[r] == asks[q]);
                    (contended && !asks.contains(&Some(o))).then_some(o)
                })
                .collect();
            let (g1, go1) = self.arbitrate(self.start[0], &asks);
            let (g2, go2) = self.arbitrate(self.start[1], &asks2);
            self.seconds += (0..p).filter(|&q| g2[q] && !g1[q]).count();
            let go: Vec<bool> = (0..p).map(|q| g1[q] || g2[q]).collect();
            let sel: Vec<usize> = (0..p)
                .map(|q| if g1[q] { first[q] } else { second[q] }.unwrap_or(0))
                .collect();
            let mut out: Vec<u64> = go.iter().map(|&g| u64::from(g)).collect();
            out.extend(sel.iter().map(|&c| c as u64));
            out.extend((0..p * p).map(|m| u64::from(go1[m] || (go2[m] && !g1[m % p]))));
            out.extend((0..p * v).map(|i| u64::from(go[i / v] && sel[i / v] == i % v)));
            for x in self.ptr.iter_mut() {
                *x = if rst || *x + 1 >= v { 0 } else { *x + 1 };
            }
            for x in self.start.iter_mut() {
                *x = if rst || *x + 1 >= p { 0 } else { *x + 1 };
            }
            out
        }
    }

    #[test]
    fn matches_the_reference_on_random_stimulus() {
        for (p, v) in [(5, 2), (3, 3), (5, 1), (2, 4), (7, 3)] {
            let mut x = SwitchAllocator::new(p, v);
            prepare(&mut x);
            let stim = random_stimulus(&x, "clock", 2000, 11 + p as u64);
            let got = run_model(&mut x, &stim);
            let mut r = Reference {
                p,
                v,
                ptr: vec![0; p],
                start: [0; 2],
                seconds: 0,
            };
            let mut sent = 0;
            for (cycle, s) in stim.iter().enumerate() {
                let want = r.step(s);
                assert_eq!(got[cycle], want, "P={p} V={v} cycle {cycle}");
                sent += want[..p].iter().sum::<u64>();
            }
            assert!(sent > 1000, "P={p} V={v}: {sent} flits");
            if v > 1 {
                assert!(r.seconds > 50, "P={p} V={v}: {} second choices", r.seconds);
            }
        }
    }
}
