//! Outputs (Chien: VC multiplexing onto the links): the wiring of the
//! [`OutputUnit`], which owns the output side's logic and state; the
//! flits as they leave the crossbar, with the output VC their input VC
//! holds; no output buffers.

use super::super::block::Io;
use super::output_unit::OutputUnit;
use super::switch_alloc::Switch;
use super::vc_alloc::Alloc;
use super::{PortId, Unified, VcId};

impl<const W: usize> Unified<W> {
    /// The output unit's inputs from the crossbar, the switch and VC
    /// allocation; the router's outputs from it.
    pub(super) fn outputs_glue(&mut self, io: &mut Io<'_, W>, s: &Switch, a: &Alloc) {
        let p = self.p;
        let u: &mut OutputUnit<W> = &mut self.output_unit;
        u.clock.next = io.clock.val();
        u.rst.next = io.rst.val();
        for o in 0..p {
            u.xbar_data[o].next = self.xbar.out_data[o].val();
            u.xbar_valid[o].next = self.xbar.out_valid[o].val();
            u.xbar_head[o].next = self.xbar.out_head[o].val();
            u.xbar_tail[o].next = self.xbar.out_tail[o].val();
        }
        for (m, &g) in s.grant_out.iter().enumerate() {
            u.grant[m].next = g;
        }
        for q in 0..p {
            u.send_vc[q].next = VcId::from(s.sroute[q].1 as u64);
            let (o, c) = a.alloc[q].unwrap_or((0, 0));
            u.alloc_valid[q].next = a.alloc[q].is_some();
            u.alloc_port[q].next = PortId::from(o as u64);
            u.alloc_vc[q].next = VcId::from(c as u64);
        }
        for (k, credit) in io.out_credit.iter().enumerate() {
            u.out_credit[k].next = credit.val();
        }
        for o in 0..p {
            io.out_data[o].next = u.out_data[o].val();
            io.out_valid[o].next = u.out_valid[o].val();
            io.out_head[o].next = u.out_head[o].val();
            io.out_tail[o].next = u.out_tail[o].val();
            io.out_vc[o].next = u.out_vc[o].val();
        }
    }

    /// [`Unified::outputs_glue`] as Verilog.
    pub(super) fn outputs_verilog(&self, line: &mut impl FnMut(String)) {
        let p = self.p;
        line("// Output side: the output unit's inputs, the router's outputs.".into());
        line("always @(*) begin".into());
        line("    output_unit$clock = clock; output_unit$rst = rst;".into());
        for o in 0..p {
            for f in ["data", "valid", "head", "tail"] {
                line(format!("    output_unit$xbar_{f}${o} = xbar$out_{f}${o};"));
            }
        }
        for m in 0..p * p {
            line(format!("    output_unit$grant${m} = xbar$grant${m};"));
        }
        for q in 0..p {
            line(format!(
                "    output_unit$send_vc${q} = svc${q}; output_unit$alloc_valid${q} = acom${q}; \
                 output_unit$alloc_port${q} = aport${q}; output_unit$alloc_vc${q} = avc${q};"
            ));
        }
        for k in 0..p * self.v {
            line(format!("    output_unit$out_credit${k} = out_credit${k};"));
        }
        for o in 0..p {
            for f in ["data", "valid", "head", "tail", "vc"] {
                line(format!("    out_{f}${o} = output_unit$out_{f}${o};"));
            }
        }
        line("end".into());
    }

    /// Whether output VC (o, c) may send in the next cycle after `sent`
    /// flits leave by it now ([`OutputUnit::may_send0`]). Ports and VCs
    /// out of range: never.
    pub(super) fn may_send(&self, o: usize, c: usize, sent: bool) -> bool {
        let (p, v) = (self.p, self.v);
        let k = o * v + c;
        let u = &self.output_unit;
        o < p
            && c < v
            && if sent {
                u.may_send1[k].val()
            } else {
                u.may_send0[k].val()
            }
    }

    /// [`Unified::may_send`] as Verilog: output VC {o, c} may send in the
    /// next cycle after 0 (`msend0`) or 1 (`msend1`) flit leaves by it now,
    /// indexed by {port, VC} so that a held (port, VC) selects its flag.
    pub(super) fn may_send_verilog(&self, line: &mut impl FnMut(String)) {
        line("    msend0 = 256'h0; msend1 = 256'h0;".into());
        for o in 0..self.p {
            for c in 0..self.v {
                let k = o * self.v + c;
                let at = (o << super::VC_BITS) + c;
                line(format!(
                    "    msend0[{at}] = output_unit$may_send0${k}; \
                     msend1[{at}] = output_unit$may_send1${k};"
                ));
            }
        }
    }
}
