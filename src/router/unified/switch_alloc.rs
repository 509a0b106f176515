//! Switch allocation and the crossbar (Chien: CB): the
//! [`SwitchAllocator`](super::SwitchAllocator) chooses per input port one
//! ready VC and per output port one input port; a P x P crossbar set per
//! flit moves the flits. A head flit crosses with its look-ahead field and
//! the header update of the port it holds, made before the crossbar from
//! the registered port so that it is off the path from switch allocation
//! to the output.

use rust_hdl::prelude::*;

use super::{Stage, Unified, VcId, PORT_BITS, VC_BITS};

impl<const W: usize> Unified<W> {
    /// The crossbar's data inputs: per input port the flit of the VC
    /// switch allocation chose, a head with its look-ahead field and
    /// header update (the requests and grants: [`SwitchRequests`]).
    pub(super) fn switch_alloc_glue(&mut self) {
        let (p, v) = (self.p, self.v);
        let fsel: Vec<usize> = (0..p).map(|q| self.salloc.sel[q].val().index()).collect();
        let sroute: Vec<(usize, usize)> = (0..p)
            .map(|q| {
                let i = q * v + fsel[q];
                (self.rport[i].q.val().index(), self.rvc[i].q.val().index())
            })
            .collect();
        for q in 0..p {
            self.svc[q].next = VcId::from(sroute[q].1 as u64);
        }
        let fmask = self.field_mask();
        for q in 0..p {
            let i = q * v + fsel[q];
            // A head flit crosses with the look-ahead field chosen for it
            // and the header of the port it holds.
            self.xbar.in_data[q].next = if self.fcu[i].out_head.val() {
                let mut data = self.fcu[i].out_data.val().to_u64();
                if self.la.is_some() {
                    let lamask = fmask << self.ab;
                    let la = self.rla[i].q.val().to_u64() << self.ab;
                    data = (data & !lamask) | (la & lamask);
                }
                match self.updates.get(sroute[q].0) {
                    Some(u) => Bits::<W>::from(u.apply(data, W)),
                    None => Bits::<W>::from(data),
                }
            } else {
                self.fcu[i].out_data.val()
            };
            self.xbar.in_head[q].next = self.fcu[i].out_head.val();
            self.xbar.in_tail[q].next = self.fcu[i].out_tail.val();
        }
    }

    /// [`Unified::switch_alloc_glue`] as Verilog.
    pub(super) fn switch_alloc_verilog(&self, line: &mut impl FnMut(String)) {
        let (p, v) = (self.p, self.v);
        let vb = VC_BITS;
        let pb = PORT_BITS;
        line("// The crossbar's inputs: the flit of the VC switch allocation chose.".into());
        line("always @(*) begin".into());
        for q in 0..p {
            let i0 = q * v;
            line(format!(
                "    sport${q} = rport${i0}$q; svc${q} = rvc${i0}$q;"
            ));
            line(format!(
                "    xbar$in_data${q} = fcu${i0}$out_data; xbar$in_head${q} = fcu${i0}$out_head; \
                 xbar$in_tail${q} = fcu${i0}$out_tail;"
            ));
            for c in 1..v {
                let i = q * v + c;
                line(format!(
                    "    if (salloc$sel${q} == {vb}'d{c}) begin sport${q} = rport${i}$q; svc${q} = rvc${i}$q; \
                     xbar$in_data${q} = fcu${i}$out_data; xbar$in_head${q} = fcu${i}$out_head; \
                     xbar$in_tail${q} = fcu${i}$out_tail; end"
                ));
            }
            if self.la.is_some() {
                // A head flit crosses with the look-ahead field chosen for it.
                let ab = self.ab;
                line(format!("    sla${q} = rla${i0}$q;"));
                for c in 1..v {
                    line(format!(
                        "    if (salloc$sel${q} == {vb}'d{c}) sla${q} = rla${}$q;",
                        q * v + c
                    ));
                }
                let x = format!("xbar$in_data${q}");
                let fb = self.fb;
                let top = if ab + fb < W {
                    format!("{x}[{}:{}], ", W - 1, ab + fb)
                } else {
                    String::new()
                };
                line(format!(
                    "    if (xbar$in_head${q}) {x} = {{{top}sla${q}[{}:0], {x}[{}:0]}};",
                    fb - 1,
                    ab - 1
                ));
            }
            // The header of the port the chosen VC holds (only ports the
            // crossbar links to q).
            let x = format!("xbar$in_data${q}");
            for o in (0..p).filter(|&o| self.links[o * p + q]) {
                let updated = self.updates[o].verilog(&x, W);
                if updated != x {
                    line(format!(
                        "    if (xbar$in_head${q} & (sport${q} == {pb}'d{o})) {x} = {updated};"
                    ));
                }
            }
        }
        line("end".into());
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
