//! Outputs (Chien: VC multiplexing onto the links): the flits as they
//! leave the crossbar, with the output VC their input VC holds; no output
//! buffers. Per output VC a credit counter for the downstream buffer (D at
//! reset, minus one per flit sent, plus one per `out_credit` pulse), or
//! with on/off flow control a flip-flop holding the downstream level of the
//! cycle before.

use super::super::block::Io;
use super::switch_alloc::Switch;
use super::vc_alloc::Alloc;
use super::{mask_for, Count, Unified, VcId, CB, VC_BITS};

impl<const W: usize> Unified<W> {
    /// The router's outputs from the crossbar; returns each output port's
    /// VC.
    pub(super) fn outputs_glue(&mut self, io: &mut Io<'_, W>, s: &Switch) -> Vec<usize> {
        let p = self.p;
        let mut out_vc = vec![0usize; p];
        for o in 0..p {
            io.out_data[o].next = self.xbar.out_data[o].val();
            io.out_valid[o].next = self.xbar.out_valid[o].val();
            io.out_head[o].next = self.xbar.out_head[o].val();
            io.out_tail[o].next = self.xbar.out_tail[o].val();
            for q in 0..p {
                if s.grant_out[o * p + q] {
                    out_vc[o] |= s.sroute[q].1;
                }
            }
            io.out_vc[o].next = VcId::from(out_vc[o] as u64);
        }
        out_vc
    }

    /// [`Unified::outputs_glue`] as Verilog.
    pub(super) fn outputs_verilog(&self, line: &mut impl FnMut(String)) {
        let (p, vb) = (self.p, VC_BITS);
        line("// Output side: the flits as they cross, the output VC.".into());
        line("always @(*) begin".into());
        for o in 0..p {
            line(format!("    out_data${o} = xbar$out_data${o};"));
            line(format!("    out_valid${o} = xbar$out_valid${o};"));
            line(format!("    out_head${o} = xbar$out_head${o};"));
            line(format!("    out_tail${o} = xbar$out_tail${o};"));
            line(format!("    out_vc${o} = {vb}'d0;"));
            for q in 0..p {
                line(format!(
                    "    if (xbar$grant${}) out_vc${o} = out_vc${o} | svc${q};",
                    o * p + q
                ));
            }
        }
        line("end".into());
    }

    /// Whether output VC (o, c) may send in the next cycle: with a credit
    /// flow, it has a credit left after `sent` flits leave now (a
    /// returning credit leaves one either way); on/off, the level now
    /// arriving. Ports and VCs out of range: never.
    pub(super) fn may_send(&self, io: &Io<'_, W>, o: usize, c: usize, sent: bool) -> bool {
        let (p, v) = (self.p, self.v);
        let k = o * v + c;
        o < p
            && c < v
            && (io.out_credit[k].val()
                || (!self.onoff && self.credits[k].q.val().to_u64() > u64::from(sent)))
    }

    /// [`Unified::may_send`] as Verilog: output VC {o, c} may send in the
    /// next cycle after 0 (`msend0`) or 1 (`msend1`) flit leaves by it now.
    pub(super) fn may_send_verilog(&self, line: &mut impl FnMut(String)) {
        line("    msend0 = 256'h0; msend1 = 256'h0;".into());
        for o in 0..self.p {
            for c in 0..self.v {
                let k = o * self.v + c;
                let at = (o << VC_BITS) + c;
                if self.onoff {
                    line(format!(
                        "    msend0[{at}] = out_credit${k}; msend1[{at}] = out_credit${k};"
                    ));
                } else {
                    line(format!(
                        "    msend0[{at}] = out_credit${k} | (credits${k}$q != {CB}'d0); \
                         msend1[{at}] = out_credit${k} | (credits${k}$q > {CB}'d1);"
                    ));
                }
            }
        }
    }

    /// Next state of each output VC's credit counter (or on/off level).
    pub(super) fn credit_state_glue(&mut self, io: &Io<'_, W>, a: &Alloc, out_vc: &[usize]) {
        let (v, depth) = (self.v, self.depth);
        let rst = io.rst.val();
        for o in 0..self.p {
            for c in 0..v {
                let k = o * v + c;
                if self.onoff {
                    self.on[k].d.next = !rst && io.out_credit[k].val();
                    continue;
                }
                let sent = self.xbar.out_valid[o].val() && out_vc[o] == c;
                let mut next = self.credits[k].q.val();
                if sent {
                    next = next - Count::from(1u64);
                }
                // A pulse for the flit sent in this very cycle (a receiver
                // that frees the slot at once) counts too: the count stays
                // exact and never passes D (docs/interface.md, credit mode).
                if io.out_credit[k].val() && (a.credit[k] != depth as u64 || sent) {
                    next = next + Count::from(1u64);
                }
                if rst {
                    next = Count::from(depth as u64);
                }
                // The count is 0 to D: the bits above stay constant and
                // synthesis drops them.
                let next = next & Count::from(mask_for(depth) as u64);
                self.credits[k].d.next = next;
            }
        }
    }

    /// [`Unified::credit_state_glue`] of output VC o V + c as Verilog.
    pub(super) fn credit_state_verilog(&self, line: &mut impl FnMut(String), o: usize, c: usize) {
        let vb = VC_BITS;
        let k = o * self.v + c;
        if self.onoff {
            line(format!(
                "    if (rst) on${k}$d = 1'b0; else on${k}$d = out_credit${k};"
            ));
            return;
        }
        let sent = format!("(xbar$out_valid${o} & (out_vc${o} == {vb}'d{c}))");
        // Both sums come from flip-flops and inputs; the late `sent` only
        // selects between them.
        let (d, m) = (self.depth, mask_for(self.depth));
        line(format!(
            "    if (rst) credits${k}$d = {CB}'d{d}; \
             else if {sent} credits${k}$d = (credits${k}$q - {CB}'d1 \
             + {{{}'d0, out_credit${k}}}) & {CB}'d{m}; \
             else credits${k}$d = (credits${k}$q \
             + {{{}'d0, out_credit${k} & (credits${k}$q != {CB}'d{d})}}) & {CB}'d{m};",
            CB - 1,
            CB - 1,
        ));
    }
}
