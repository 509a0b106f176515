//! VC allocation: the wiring of the
//! [`VcAllocator`](super::VcAllocator) (Chien's routing arbiter with the
//! output VCs' state: a block of its own whose `update` is both its model
//! and its Verilog), the heads it serves (chosen round robin per input
//! port, [`super::route`]), and the state it sets: an output VC is held
//! from its head flit's allocation until its tail flit leaves. With
//! look-ahead, the mux keeps the granted port's next-router field.

use rust_hdl::prelude::*;

use super::{Stage, Unified};

/// VC allocation's requests ([`Stage`]): the output VCs' state, per input
/// port its waiting head (whether one waits, whether it is behind a tail
/// that may leave now, the output VC that tail holds, whether the tail
/// leaves now), and the output VCs the head is permitted.
pub(super) struct VcRequests;

impl<const W: usize> Stage<VcRequests> for Unified<W> {
    #[hdl_gen]
    fn update(&mut self) {
        for k in 0..self.pv {
            self.valloc.busy[k].next = self.output_unit.busy[k].val();
        }
        // Credits, or the on/off level as 0 or 1.
        for k in 0..self.output_unit.credits.len() {
            self.valloc.credit[k].next = self.output_unit.credits[k].val();
        }
        for k in 0..self.output_unit.level.len() {
            self.valloc.credit[k].next = self.score_zero.val();
            if self.output_unit.level[k].val() {
                self.valloc.credit[k].next = self.score_one.val();
            }
        }
        for vw in self.v..self.v1 {
            for kw in self.pv..self.pv1 {
                for q in 0..self.p {
                    self.valloc.req[q].next = self.rany[q].val();
                    self.valloc.behind[q].next = self.rany[q].val() & self.behind[q * vw].val();
                    self.valloc.held_port[q].next = self.rport[q * vw].q.val();
                    self.valloc.held_vc[q].next = self.rvc[q * vw].q.val();
                    self.valloc.leaves[q].next = self.leaves[q * vw].val();
                    for c in 1..self.v {
                        if self.rsel[q].val() == self.vc_id[c].val() {
                            self.valloc.behind[q].next =
                                self.rany[q].val() & self.behind[q * vw + c].val();
                            self.valloc.held_port[q].next = self.rport[q * vw + c].q.val();
                            self.valloc.held_vc[q].next = self.rvc[q * vw + c].q.val();
                            self.valloc.leaves[q].next = self.leaves[q * vw + c].val();
                        }
                    }
                    for k in 0..self.pv {
                        self.valloc.perm[q * kw + k].next = self.perm[q * kw + k].val();
                    }
                }
            }
        }
    }
}

/// The look-ahead mux's inputs ([`Stage`], LAPSES Figure 4b): per input
/// port, the allocator's grants select among the next-router fields of
/// its links (each from its look-ahead decoder, [`super::route`]); a
/// packet that leaves by the local port keeps its field. The chosen field
/// goes to its place in the header (`lasel`).
pub(super) struct LookaheadFields;

impl<const W: usize> Stage<LookaheadFields> for Unified<W> {
    #[hdl_gen]
    fn update(&mut self) {
        for pw in self.p..self.p1 {
            for fw in self.fb..self.fb1 {
                for ab in self.ab..self.ab1 {
                    for q in 0..self.lamux.len() {
                        self.lamux[q].in_hdr.next = self.zero.val();
                        for j in 0..self.p {
                            self.lamux[q].sel[j].next = self.valloc.grant[q * pw + j].val();
                            for b in 0..self.fb {
                                self.lamux[q].next_mask[j * fw + b].next = false;
                            }
                        }
                        for b in 0..self.fb {
                            self.lamux[q].next_mask[b].next = self.shown[q].val().get_bit(ab + b);
                        }
                        self.lasel[q].next = self.lamux[q].out_hdr.val() << self.la_shift.val();
                    }
                }
                for m in 0..self.ladec.len() {
                    for q in 0..self.p {
                        for j in 0..self.p {
                            if (self.la_from[m].val() == self.port_id[q].val())
                                & (self.la_link[m].val() == self.port_id[j].val())
                            {
                                for b in 0..self.fb {
                                    self.lamux[q].next_mask[j * fw + b].next =
                                        self.ladec[m].cand[b].val();
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

/// The held output VCs ([`Stage`]): each input VC's output VC, taken
/// when its head is granted, given up when its tail leaves, with the
/// look-ahead field the head leaves with.
pub(super) struct HeldVcs;

impl<const W: usize> Stage<HeldVcs> for Unified<W> {
    #[hdl_gen]
    fn update(&mut self) {
        for vw in self.v..self.v1 {
            for q in 0..self.p {
                for c in 0..self.v {
                    // The head of input VC q V + c is granted an output VC
                    // (one that counts) this cycle.
                    self.granted[q * vw + c].next = self.valloc.alloc_valid[q].val()
                        & (self.rsel[q].val() == self.vc_id[c].val());
                    self.leaves[q * vw + c].next =
                        self.fcu[q * vw + c].out_ready.val() & self.fcu[q * vw + c].out_tail.val();
                    self.routed[q * vw + c].d.next = self.routed[q * vw + c].q.val();
                    self.rport[q * vw + c].d.next = self.rport[q * vw + c].q.val();
                    self.rvc[q * vw + c].d.next = self.rvc[q * vw + c].q.val();
                    if self.leaves[q * vw + c].val() {
                        self.routed[q * vw + c].d.next = false;
                    }
                    if self.granted[q * vw + c].val() {
                        self.routed[q * vw + c].d.next = true;
                        self.rport[q * vw + c].d.next = self.valloc.alloc_port[q].val();
                        self.rvc[q * vw + c].d.next = self.valloc.alloc_vc[q].val();
                    }
                    if self.reset.val() {
                        self.routed[q * vw + c].d.next = false;
                        self.rport[q * vw + c].d.next = self.port_zero.val();
                        self.rvc[q * vw + c].d.next = self.vc_zero.val();
                    }
                }
            }
            // With look-ahead: the field the mux chose for the granted head.
            for q in 0..self.lasel.len() {
                for c in 0..self.v {
                    self.rla[q * vw + c].d.next = self.rla[q * vw + c].q.val();
                    if self.granted[q * vw + c].val() {
                        self.rla[q * vw + c].d.next = self.lasel[q].val();
                    }
                    if self.reset.val() {
                        self.rla[q * vw + c].d.next = self.zero.val();
                    }
                }
            }
        }
    }
}
