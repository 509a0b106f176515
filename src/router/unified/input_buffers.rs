//! Input buffers (Chien: flow-control units): a flit goes to the buffer of
//! the VC its `in_vc` names; each slot freed sends a credit (or the on/off
//! level) upstream.

use rust_hdl::prelude::*;

use super::{Stage, Unified};

/// The arriving flits into their VCs' buffers, the buffers' credits to
/// the upstream senders ([`Stage`]).
pub(super) struct InputBuffers;

impl<const W: usize> Stage<InputBuffers> for Unified<W> {
    #[hdl_gen]
    fn update(&mut self) {
        for vw in self.v..self.v1 {
            for q in 0..self.p {
                for c in 0..self.v {
                    self.fcu[q * vw + c].in_data.next = self.in_data[q].val();
                    self.fcu[q * vw + c].in_valid.next =
                        self.in_valid[q].val() & (self.in_vc[q].val() == self.vc_id[c].val());
                    self.fcu[q * vw + c].in_head.next = self.in_head[q].val();
                    self.fcu[q * vw + c].in_tail.next = self.in_tail[q].val();
                    // The router's buffers only receive.
                    self.fcu[q * vw + c].credit_in.next = false;
                    self.fcu[q * vw + c].send_req.next = false;
                }
            }
            for i in 0..self.pv {
                self.in_credit[i].next = self.fcu[i].credit_out.val();
            }
        }
    }
}
