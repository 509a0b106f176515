//! Input buffers (Chien: flow-control units): a flit goes to the buffer of
//! the VC its `in_vc` names; each slot freed sends a credit (or the on/off
//! level) upstream.

use super::super::block::Io;
use super::{Unified, VC_BITS};

impl<const W: usize> Unified<W> {
    /// The arriving flits into their VCs' buffers, the buffers' credits to
    /// the upstream senders.
    pub(super) fn input_buffers_glue(&mut self, io: &mut Io<'_, W>) {
        let v = self.v;
        for q in 0..self.p {
            for c in 0..v {
                let i = q * v + c;
                let u = &mut self.fcu[i];
                u.in_data.next = io.in_data[q].val();
                u.in_valid.next = io.in_valid[q].val() && io.in_vc[q].val().index() == c;
                u.in_head.next = io.in_head[q].val();
                u.in_tail.next = io.in_tail[q].val();
                u.credit_in.next = false;
                u.send_req.next = false;
                io.in_credit[i].next = u.credit_out.val();
            }
        }
    }

    /// [`Unified::input_buffers_glue`] as Verilog.
    pub(super) fn input_buffers_verilog(&self, line: &mut impl FnMut(String)) {
        let (v, vb) = (self.v, VC_BITS);
        line("// Input side: the flit goes to the buffer of its VC.".into());
        line("always @(*) begin".into());
        for q in 0..self.p {
            for c in 0..v {
                let i = q * v + c;
                line(format!("    fcu${i}$in_data = in_data${q};"));
                line(format!(
                    "    fcu${i}$in_valid = in_valid${q} & (in_vc${q} == {vb}'d{c});"
                ));
                line(format!("    fcu${i}$in_head = in_head${q};"));
                line(format!("    fcu${i}$in_tail = in_tail${q};"));
                line(format!(
                    "    fcu${i}$credit_in = 1'b0; fcu${i}$send_req = 1'b0;"
                ));
                line(format!("    in_credit${i} = fcu${i}$credit_out;"));
            }
        }
        line("end".into());
    }
}
