//! Outputs (Chien: VC multiplexing onto the links): the wiring of the
//! [`OutputUnit`](super::output_unit::OutputUnit), which owns the output side's logic and state; the
//! flits as they leave the crossbar, with the output VC their input VC
//! holds; no output buffers.

use rust_hdl::prelude::*;

use super::{Stage, Unified};

/// The output unit's inputs from the crossbar, the switch and VC
/// allocation; the router's outputs from it ([`Stage`]).
pub(super) struct OutputSide;

impl<const W: usize> Stage<OutputSide> for Unified<W> {
    #[hdl_gen]
    fn update(&mut self) {
        self.output_unit.clock.next = self.clock.val();
        self.output_unit.rst.next = self.rst.val();
        for o in 0..self.p {
            self.output_unit.xbar_data[o].next = self.xbar.out_data[o].val();
            self.output_unit.xbar_valid[o].next = self.xbar.out_valid[o].val();
            self.output_unit.xbar_head[o].next = self.xbar.out_head[o].val();
            self.output_unit.xbar_tail[o].next = self.xbar.out_tail[o].val();
        }
        for m in 0..self.salloc.grant.len() {
            self.output_unit.grant[m].next = self.salloc.grant[m].val();
        }
        for q in 0..self.p {
            self.output_unit.send_vc[q].next = self.svc[q].val();
            self.output_unit.alloc_valid[q].next = self.valloc.alloc_valid[q].val();
            self.output_unit.alloc_port[q].next = self.valloc.alloc_port[q].val();
            self.output_unit.alloc_vc[q].next = self.valloc.alloc_vc[q].val();
        }
        for k in 0..self.pv {
            self.output_unit.out_credit[k].next = self.out_credit[k].val();
        }
        for o in 0..self.p {
            self.out_data[o].next = self.output_unit.out_data[o].val();
            self.out_valid[o].next = self.output_unit.out_valid[o].val();
            self.out_head[o].next = self.output_unit.out_head[o].val();
            self.out_tail[o].next = self.output_unit.out_tail[o].val();
            self.out_vc[o].next = self.output_unit.out_vc[o].val();
        }
    }
}
