//! The VC allocator (Chien §3: the routing arbiter; LAPSES §4.1: its
//! path-selection heuristic): input ports to output ports, candidate slot
//! j of input port q being output port j when the relation permits one of
//! its VCs that is usable, and the packet takes the lowest-numbered such
//! VC. An output VC is usable when no packet holds it and, with atomic
//! allocation on a link, its downstream queue is empty
//! ([`crate::router::tables::CompiledTable::atomic`]); a head routed
//! behind a leaving tail may also take the output VC that tail holds (it
//! is that input VC's own), and its grant counts only if the tail leaves
//! in the same cycle: so a stream of packets in one VC keeps one flit per
//! cycle, even on a single output VC.
//!
//! One source: the simulation model is this block's `update`, and the
//! router's Verilog module `..._vc_allocator` is printed from it.

use rust_hdl::prelude::*;

use super::{PortId, VcId};
use crate::blocks::{signals, RoutingArbiter};
use crate::spec::PathSelection;

/// The arbiter's scores, credits and VC counts (8 bits).
type Score = Bits<8>;

/// The VC allocator of a router of P ports and V VCs (module
/// documentation). Output VC k = o V + c is VC c of output port o.
#[derive(LogicBlock)]
pub struct VcAllocator {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset (the arbiter's pointer and history).
    pub rst: Signal<In, Bit>,
    /// Per output VC: a packet holds it.
    pub busy: Vec<Signal<In, Bit>>,
    /// Per output VC: its downstream credits (on/off: the level, 0 or 1),
    /// as wide as the arbiter's scores.
    pub credit: Vec<Signal<In, Score>>,
    /// Per input port: a head flit waits for an output VC.
    pub req: Vec<Signal<In, Bit>>,
    /// Per input port q and output VC k (`q P V + k`): the relation
    /// permits k to q's waiting head.
    pub perm: Vec<Signal<In, Bit>>,
    /// Per input port: its waiting head is right behind a tail that may
    /// leave now.
    pub behind: Vec<Signal<In, Bit>>,
    /// Per input port: the output port and VC that tail holds.
    pub held_port: Vec<Signal<In, PortId>>,
    /// See `held_port`.
    pub held_vc: Vec<Signal<In, VcId>>,
    /// Per input port: that tail leaves now.
    pub leaves: Vec<Signal<In, Bit>>,
    /// Per input port q and output port j (`q P + j`): q's head is
    /// granted port j (the look-ahead mux's select).
    pub grant: Vec<Signal<Out, Bit>>,
    /// Per input port: its head is granted an output VC, and the grant
    /// counts.
    pub alloc_valid: Vec<Signal<Out, Bit>>,
    /// Per input port: the output port granted.
    pub alloc_port: Vec<Signal<Out, PortId>>,
    /// Per input port: the output VC granted.
    pub alloc_vc: Vec<Signal<Out, VcId>>,
    /// Per input port: the grant is the output VC its leaving tail holds
    /// (on which that tail is sent now).
    pub handover: Vec<Signal<Out, Bit>>,
    routing_arbiter: RoutingArbiter,
    /// Per output VC: no packet holds it and, if atomic, it is empty.
    free: Vec<Signal<Local, Bit>>,
    /// Per input port q and output VC k (`q P V + k`): k is free or the
    /// one q's leaving tail holds.
    usable: Vec<Signal<Local, Bit>>,
    /// Per output port: its credits (and whether their sum passed 255),
    /// and its VCs held.
    credit_sum: Vec<Signal<Local, Score>>,
    over: Vec<Signal<Local, Bit>>,
    held: Vec<Signal<Local, Score>>,
    /// Per input port: the arbiter granted it a port with a usable VC.
    got: Vec<Signal<Local, Bit>>,
    /// Per output port j and input port q (`j P + q`): the crossbar wires
    /// q to j.
    links: Vec<Constant<Bit>>,
    /// Per output port: allocation on it is atomic. On links only: a
    /// packet in the local port's queue is consumed by the network
    /// interface whatever follows it, so that queue is not a channel of
    /// Duato's dependency graph (the survey §4.2) and may hold two
    /// packets.
    atomic: Vec<Constant<Bit>>,
    /// Atomic allocation on the links.
    atomic_links: Constant<Bit>,
    depth: Constant<Score>,
    port_id: Vec<Constant<PortId>>,
    vc_id: Vec<Constant<VcId>>,
    port_zero: Constant<PortId>,
    vc_zero: Constant<VcId>,
    score_zero: Constant<Score>,
    score_one: Constant<Score>,
    score_max: Constant<Score>,
    _p: usize,
    _p1: usize,
    _v: usize,
    _v1: usize,
    _pv: usize,
    _pv1: usize,
}

impl VcAllocator {
    /// The VC allocator of `p` ports and `v` VCs whose downstream buffers
    /// hold `depth` flits; `links[j P + q]` where the crossbar wires input
    /// q to output j; `atomic` allocation on the links; `selection` the
    /// path-selection heuristic.
    pub(crate) fn new(
        p: usize,
        v: usize,
        depth: usize,
        links: &[bool],
        atomic: bool,
        selection: PathSelection,
    ) -> Self {
        let pv = p * v;
        VcAllocator {
            clock: Signal::default(),
            rst: Signal::default(),
            busy: signals(pv),
            credit: signals(pv),
            req: signals(p),
            perm: signals(p * pv),
            behind: signals(p),
            held_port: signals(p),
            held_vc: signals(p),
            leaves: signals(p),
            grant: signals(p * p),
            alloc_valid: signals(p),
            alloc_port: signals(p),
            alloc_vc: signals(p),
            handover: signals(p),
            routing_arbiter: RoutingArbiter::new_unchecked(p, p, selection),
            free: signals(pv),
            usable: signals(p * pv),
            credit_sum: signals(p),
            over: signals(p),
            held: signals(p),
            got: signals(p),
            links: (0..p * p).map(|m| Constant::new(links[m])).collect(),
            atomic: (0..p).map(|o| Constant::new(atomic && o > 0)).collect(),
            atomic_links: Constant::new(atomic),
            depth: Constant::new(Score::from(depth as u64)),
            port_id: (0..p)
                .map(|o| Constant::new(PortId::from(o as u64)))
                .collect(),
            vc_id: (0..v)
                .map(|c| Constant::new(VcId::from(c as u64)))
                .collect(),
            port_zero: Constant::new(PortId::from(0u64)),
            vc_zero: Constant::new(VcId::from(0u64)),
            score_zero: Constant::new(Score::from(0u64)),
            score_one: Constant::new(Score::from(1u64)),
            score_max: Constant::new(Score::from(255u64)),
            _p: p,
            _p1: p + 1,
            _v: v,
            _v1: v + 1,
            _pv: pv,
            _pv1: pv + 1,
        }
    }
}

impl Logic for VcAllocator {
    #[hdl_gen]
    fn update(&mut self) {
        self.routing_arbiter.clock.next = self.clock.val();
        self.routing_arbiter.rst.next = self.rst.val();
        // The output ports' state, for the heuristic: credits (MAX-CREDIT)
        // and VCs held (MIN-MUX), saturating at 255.
        for vw in self._v..self._v1 {
            for o in 0..self._p {
                self.credit_sum[o].next = self.score_zero.val();
                self.over[o].next = false;
                self.held[o].next = self.score_zero.val();
                for c in 0..self._v {
                    self.free[o * vw + c].next = !self.busy[o * vw + c].val()
                        & (!self.atomic[o].val()
                            | (self.credit[o * vw + c].val() == self.depth.val()));
                    // At most 16 x 16 credits: the sum wraps once at most,
                    // and it has when it is less than what was added.
                    self.credit_sum[o].next =
                        self.credit_sum[o].val() + self.credit[o * vw + c].val();
                    if self.credit_sum[o].val() < self.credit[o * vw + c].val() {
                        self.over[o].next = true;
                    }
                    if self.busy[o * vw + c].val() {
                        self.held[o].next = self.held[o].val() + self.score_one.val();
                    }
                }
                self.routing_arbiter.out_free[o].next = true;
                self.routing_arbiter.out_credits[o].next = self.credit_sum[o].val();
                if self.over[o].val() {
                    self.routing_arbiter.out_credits[o].next = self.score_max.val();
                }
                self.routing_arbiter.out_mux[o].next = self.held[o].val();
            }
        }
        for pvw in self._pv..self._pv1 {
            for pw in self._p..self._p1 {
                for vw in self._v..self._v1 {
                    for q in 0..self._p {
                        // Candidate slot j: output port j with a usable
                        // permitted VC, where the crossbar wires q to j.
                        self.routing_arbiter.req[q].next = self.req[q].val();
                        for j in 0..self._p {
                            self.routing_arbiter.cand[q * pw + j].next = self.port_id[j].val();
                            self.routing_arbiter.cand_valid[q * pw + j].next = false;
                            for c in 0..self._v {
                                self.usable[q * pvw + j * vw + c].next = self.free[j * vw + c]
                                    .val()
                                    | (self.behind[q].val()
                                        & (self.held_port[q].val() == self.port_id[j].val())
                                        & (self.held_vc[q].val() == self.vc_id[c].val())
                                        & !self.atomic[j].val());
                                if self.links[j * pw + q].val()
                                    & self.perm[q * pvw + j * vw + c].val()
                                    & self.usable[q * pvw + j * vw + c].val()
                                {
                                    self.routing_arbiter.cand_valid[q * pw + j].next = true;
                                }
                            }
                        }
                        // The output VC granted: the lowest usable
                        // permitted VC of the granted port.
                        self.got[q].next = false;
                        self.alloc_port[q].next = self.port_zero.val();
                        self.alloc_vc[q].next = self.vc_zero.val();
                        for j in 0..self._p {
                            self.grant[q * pw + j].next =
                                self.routing_arbiter.grant[q * pw + j].val();
                            for c in 0..self._v {
                                if self.routing_arbiter.grant[q * pw + j].val()
                                    & self.perm[q * pvw + j * vw + c].val()
                                    & self.usable[q * pvw + j * vw + c].val()
                                    & !self.got[q].val()
                                {
                                    self.got[q].next = true;
                                    self.alloc_port[q].next = self.port_id[j].val();
                                    self.alloc_vc[q].next = self.vc_id[c].val();
                                }
                            }
                        }
                        // A head behind a tail keeps its grant only if
                        // the tail leaves now.
                        self.alloc_valid[q].next =
                            self.got[q].val() & (!self.behind[q].val() | self.leaves[q].val());
                        self.handover[q].next = self.alloc_valid[q].val()
                            & self.behind[q].val()
                            & (self.alloc_port[q].val() == self.held_port[q].val())
                            & (self.alloc_vc[q].val() == self.held_vc[q].val())
                            & !(self.atomic_links.val()
                                & (self.alloc_port[q].val() != self.port_zero.val()));
                    }
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

    impl HwBlock for VcAllocator {
        fn clock_mut(&mut self) -> Option<&mut Signal<In, Clock>> {
            Some(&mut self.clock)
        }
        fn visit_inputs(&mut self, f: &mut dyn FnMut(&mut dyn InputSignal)) {
            f(&mut self.rst);
            each(&mut self.busy, f);
            each(&mut self.credit, f);
            each(&mut self.req, f);
            each(&mut self.perm, f);
            each(&mut self.behind, f);
            each(&mut self.held_port, f);
            each(&mut self.held_vc, f);
            each(&mut self.leaves, f);
        }
        fn bias(&self, name: &str) -> Option<f64> {
            match name {
                n if n.starts_with("busy") => Some(0.3),
                n if n.starts_with("perm") => Some(0.3),
                n if n.starts_with("behind") => Some(0.3),
                _ => None,
            }
        }
        fn value_limit(&self, name: &str) -> Option<u64> {
            if name.starts_with("held_port") {
                Some(self._p as u64)
            } else if name.starts_with("held_vc") {
                Some(self._v as u64)
            } else if name.starts_with("credit") {
                // 0 to D (D = 3 in the tests).
                Some(4)
            } else {
                None
            }
        }
    }

    /// The VC allocator written from its documentation and the routing
    /// arbiter's (each input picks its best valid candidate, the earliest
    /// of equal scores; each output goes to the first input picking it in
    /// round robin from a pointer that advances every cycle), on the input
    /// row `r` in port order; returns the outputs before the clock edge.
    struct Reference {
        p: usize,
        v: usize,
        d: u64,
        links: Vec<bool>,
        atomic: bool,
        selection: PathSelection,
        start: usize,
        /// Grants that count, and handovers among them.
        counted: usize,
        handovers: usize,
    }

    impl Reference {
        fn step(&mut self, r: &[u64]) -> Vec<u64> {
            let (p, v) = (self.p, self.v);
            let pv = p * v;
            let mut at = 0;
            let mut take = |n: usize| {
                at += n;
                r[at - n..at].to_vec()
            };
            let rst = take(1)[0] == 1;
            let (busy, credit, req, perm) = (take(pv), take(pv), take(p), take(p * pv));
            let (behind, hport, hvc, leaves) = (take(p), take(p), take(p), take(p));
            let (atomic, d, selection, links) = (self.atomic, self.d, self.selection, &self.links);
            let atomic_at = |o: usize| atomic && o > 0;
            let free = |k: usize| busy[k] == 0 && (!atomic_at(k / v) || credit[k] == d);
            let usable = |q: usize, j: usize, c: usize| {
                free(j * v + c)
                    || (behind[q] == 1
                        && hport[q] == j as u64
                        && hvc[q] == c as u64
                        && !atomic_at(j))
            };
            let open =
                |q: usize, j: usize, c: usize| perm[q * pv + j * v + c] == 1 && usable(q, j, c);
            let score = |o: usize| -> u64 {
                let credits: u64 = (0..v).map(|c| credit[o * v + c]).sum();
                let held = (0..v).filter(|&c| busy[o * v + c] == 1).count() as u64;
                match selection {
                    PathSelection::MaxCredit => credits.min(255),
                    PathSelection::MinMux => 255 - held,
                    _ => 0,
                }
            };
            let pick: Vec<Option<usize>> = (0..p)
                .map(|q| {
                    let mut best: Option<(usize, u64)> = None;
                    for j in 0..p {
                        let valid = links[j * p + q] && (0..v).any(|c| open(q, j, c));
                        if req[q] == 1 && valid && best.map_or(true, |(_, b)| score(j) > b) {
                            best = Some((j, score(j)));
                        }
                    }
                    best.map(|(j, _)| j)
                })
                .collect();
            let mut grant = vec![0u64; p * p];
            let (mut counted, mut handovers) = (0, 0);
            let mut taken = vec![false; p];
            for q in (self.start..p).chain(0..self.start) {
                if let Some(j) = pick[q] {
                    if !taken[j] {
                        taken[j] = true;
                        grant[q * p + j] = 1;
                    }
                }
            }
            let mut out = grant.clone();
            let (mut valid, mut port, mut vc, mut hand) =
                (vec![0; p], vec![0; p], vec![0; p], vec![0; p]);
            for q in 0..p {
                let won = (0..p).find(|&j| grant[q * p + j] == 1);
                if let Some((j, c)) =
                    won.and_then(|j| (0..v).find(|&c| open(q, j, c)).map(|c| (j, c)))
                {
                    port[q] = j as u64;
                    vc[q] = c as u64;
                    if behind[q] == 0 || leaves[q] == 1 {
                        valid[q] = 1;
                        counted += 1;
                        if behind[q] == 1 && hport[q] == port[q] && hvc[q] == vc[q] && !atomic_at(j)
                        {
                            hand[q] = 1;
                            handovers += 1;
                        }
                    }
                }
            }
            for x in [valid, port, vc, hand] {
                out.extend(x);
            }
            self.counted += counted;
            self.handovers += handovers;
            self.start = if rst || self.start + 1 >= p {
                0
            } else {
                self.start + 1
            };
            out
        }
    }

    #[test]
    fn matches_the_reference_on_random_stimulus() {
        for (p, v, atomic, selection) in [
            (5, 2, false, PathSelection::StaticXy),
            (5, 2, true, PathSelection::MaxCredit),
            (3, 3, false, PathSelection::MinMux),
            (4, 1, true, PathSelection::StaticXy),
        ] {
            // A crossbar missing some pairs (a U-turn, say).
            let links: Vec<bool> = (0..p * p).map(|m| m % (p + 1) != 3).collect();
            let mut x = VcAllocator::new(p, v, 3, &links, atomic, selection);
            prepare(&mut x);
            let stim = random_stimulus(&x, "clock", 2000, 5 + p as u64);
            let got = run_model(&mut x, &stim);
            let mut r = Reference {
                p,
                v,
                d: 3,
                links,
                atomic,
                selection,
                start: 0,
                counted: 0,
                handovers: 0,
            };
            for (cycle, s) in stim.iter().enumerate() {
                let want = r.step(s);
                assert_eq!(got[cycle], want, "P={p} V={v} {selection:?} cycle {cycle}");
            }
            assert!(
                r.counted > 500 && r.handovers > 20,
                "P={p} V={v}: {} grants, {} handovers",
                r.counted,
                r.handovers
            );
        }
    }
}
