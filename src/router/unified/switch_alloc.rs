//! Switch allocation and the crossbar (Chien: CB): the
//! [`SwitchAllocator`](super::SwitchAllocator) chooses per input port one
//! ready VC and per output port one input port; a P x P crossbar set per
//! flit moves the flits. A head flit crosses with its look-ahead field and
//! the header update of the port it holds, made before the crossbar from
//! the registered port so that it is off the path from switch allocation
//! to the output.

use rust_hdl::prelude::*;

use super::{Stage, Unified};

/// The crossbar's inputs ([`Stage`]): per input port the flit of the VC
/// switch allocation chose, the port and output VC that VC holds; a head
/// flit with its look-ahead field and the header update of the port it
/// holds (`hdr_*`, [`HeaderUpdate::rewrite`]).
///
/// [`HeaderUpdate::rewrite`]: crate::blocks::address_decoder::HeaderUpdate::rewrite
pub(super) struct CrossbarInputs;

impl<const W: usize> Stage<CrossbarInputs> for Unified<W> {
    #[hdl_gen]
    fn update(&mut self) {
        for vw in self.v..self.v1 {
            for q in 0..self.p {
                self.sport[q].next = self.rport[q * vw].q.val();
                self.svc[q].next = self.rvc[q * vw].q.val();
                self.sflit[q].next = self.fcu[q * vw].out_data.val();
                self.xbar.in_head[q].next = self.fcu[q * vw].out_head.val();
                self.xbar.in_tail[q].next = self.fcu[q * vw].out_tail.val();
                for c in 1..self.v {
                    if self.salloc.sel[q].val() == self.vc_id[c].val() {
                        self.sport[q].next = self.rport[q * vw + c].q.val();
                        self.svc[q].next = self.rvc[q * vw + c].q.val();
                        self.sflit[q].next = self.fcu[q * vw + c].out_data.val();
                        self.xbar.in_head[q].next = self.fcu[q * vw + c].out_head.val();
                        self.xbar.in_tail[q].next = self.fcu[q * vw + c].out_tail.val();
                    }
                }
            }
            // With look-ahead: a head flit crosses with the field chosen
            // for it.
            for q in 0..self.p {
                self.sdata[q].next = self.sflit[q].val();
            }
            for q in 0..self.sla.len() {
                self.sla[q].next = self.rla[q * vw].q.val();
                for c in 1..self.v {
                    if self.salloc.sel[q].val() == self.vc_id[c].val() {
                        self.sla[q].next = self.rla[q * vw + c].q.val();
                    }
                }
                if self.xbar.in_head[q].val() {
                    self.sdata[q].next =
                        (self.sflit[q].val() & !self.la_field.val()) | self.sla[q].val();
                }
            }
        }
        // The header update of the port the chosen VC holds, made before
        // the crossbar from the registered port, off the path from switch
        // allocation to the output (only where the crossbar links q to o).
        for pw in self.p..self.p1 {
            for q in 0..self.p {
                self.xbar.in_data[q].next = self.sdata[q].val();
                for o in 0..self.p {
                    if self.hdr_rewrite[o * pw + q].val()
                        & self.xbar.in_head[q].val()
                        & (self.sport[q].val() == self.port_id[o].val())
                    {
                        if self.hdr_ties[o].val()
                            & ((self.sdata[q].val() & !self.hdr_keep[o].val())
                                == self.hdr_tie[o].val())
                        {
                            self.xbar.in_data[q].next = (self.sdata[q].val()
                                & self.hdr_keep[o].val())
                                | self.hdr_tie_to[o].val();
                        } else {
                            self.xbar.in_data[q].next = (self.sdata[q].val()
                                & self.hdr_keep[o].val())
                                | ((self.sdata[q].val() + self.hdr_step[o].val())
                                    & self.hdr_moved[o].val());
                        }
                    }
                }
            }
        }
    }
}

/// Switch allocation's requests and answers ([`Stage`]): each input VC
/// asks with a flit waiting, its may-send flag and the port it holds; the
/// grants set the crossbar, the chosen input ports' flits cross, the
/// chosen VCs' buffers are read.
pub(super) struct SwitchRequests;

impl<const W: usize> Stage<SwitchRequests> for Unified<W> {
    #[hdl_gen]
    fn update(&mut self) {
        for i in 0..self.pv {
            self.salloc.valid[i].next = self.fcu[i].out_valid.val();
            self.salloc.may_send[i].next = self.cok[i].q.val();
            self.salloc.port[i].next = self.rport[i].q.val();
        }
        for m in 0..self.salloc.grant.len() {
            self.xbar.grant[m].next = self.salloc.grant[m].val();
        }
        for q in 0..self.p {
            self.xbar.in_valid[q].next = self.salloc.go[q].val();
        }
        for i in 0..self.pv {
            self.fcu[i].out_ready.next = self.salloc.read[i].val();
        }
    }
}

/// Each input VC's may-send flag `cok` ([`Stage`]): it holds an output VC
/// and that VC may send in the next cycle. A newly held output VC was
/// free, so nothing is sent on it now but, on a handover, the tail before
/// on it; a held one sends only this input VC's flits.
pub(super) struct MaySend;

impl<const W: usize> Stage<MaySend> for Unified<W> {
    #[hdl_gen]
    fn update(&mut self) {
        for vw in self.v..self.v1 {
            for q in 0..self.p {
                for c in 0..self.v {
                    self.cok[q * vw + c].d.next = false;
                    // Output VC o V + x: the one it keeps holding, or the
                    // one it is granted now.
                    for o in 0..self.p {
                        for x in 0..self.v {
                            if self.routed[q * vw + c].q.val()
                                & !self.leaves[q * vw + c].val()
                                & !self.granted[q * vw + c].val()
                                & (self.rport[q * vw + c].q.val() == self.port_id[o].val())
                                & (self.rvc[q * vw + c].q.val() == self.vc_id[x].val())
                            {
                                self.cok[q * vw + c].d.next =
                                    self.output_unit.may_send0[o * vw + x].val();
                                if self.fcu[q * vw + c].out_ready.val() {
                                    self.cok[q * vw + c].d.next =
                                        self.output_unit.may_send1[o * vw + x].val();
                                }
                            }
                            if self.granted[q * vw + c].val()
                                & (self.valloc.alloc_port[q].val() == self.port_id[o].val())
                                & (self.valloc.alloc_vc[q].val() == self.vc_id[x].val())
                            {
                                self.cok[q * vw + c].d.next =
                                    self.output_unit.may_send0[o * vw + x].val();
                                if self.valloc.handover[q].val() {
                                    self.cok[q * vw + c].d.next =
                                        self.output_unit.may_send1[o * vw + x].val();
                                }
                            }
                        }
                    }
                    if self.reset.val() {
                        self.cok[q * vw + c].d.next = false;
                    }
                }
            }
        }
    }
}
