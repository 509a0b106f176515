//! Route computation (Chien: address decoders): per input port, one VC
//! whose front flit is a head flit without an output VC yet, or whose
//! front flit is a tail that may leave with a head flit right behind it
//! (round robin, the pointer advancing every cycle), the decoders' answers
//! for that head, and the output VCs the relation permits it. Routing the
//! head behind a tail while the tail leaves lets packets queued back to
//! back in one VC follow each other without an idle cycle; its grant
//! counts only if the tail does leave in that cycle
//! ([`super::vc_alloc`]). With look-ahead (LAPSES §3.2)
//! a link port reads its permitted VCs from the head's field, and a
//! decoder per input port and link computes the field of the next router.

use rust_hdl::prelude::*;

use super::{Stage, Unified};

/// The waiting heads ([`Stage`]): per input VC whether its front flit
/// (or, behind a tail that may leave now, the flit after it; with one
/// cycle per router, a head arriving into its empty buffer) is a head to
/// route, and that flit (`rdata`); per input port the VC chosen round
/// robin (`rany`, `rsel`), its flit (`shown`), and the address decoders'
/// inputs.
pub(super) struct WaitingHeads;

impl<const W: usize> Stage<WaitingHeads> for Unified<W> {
    #[hdl_gen]
    fn update(&mut self) {
        for i in 0..self.pv {
            // A tail holding an output VC with a credit (it may leave
            // now), a head right behind it.
            self.behind[i].next = self.routed[i].q.val()
                & self.cok[i].q.val()
                & self.fcu[i].out_tail.val()
                & self.fcu[i].after_head.val();
            self.waiting[i].next = (self.fcu[i].out_valid.val()
                & self.fcu[i].out_head.val()
                & !self.routed[i].q.val())
                | self.behind[i].val();
            // While the front flit's packet holds an output VC, the flit
            // behind it (selected by a flip-flop, so the decoders' inputs
            // stay one multiplexer from the buffer).
            self.rdata[i].next = self.fcu[i].out_data.val();
            if self.routed[i].q.val() {
                self.rdata[i].next = self.fcu[i].after_data.val();
            }
        }
        // One cycle per router: a head arriving on VC c of port q into its
        // empty buffer is routed while it is written (the buffer's
        // not-empty flag, a flip-flop, selects it).
        for vw in self.v..self.v1 {
            for q in 0..self.bypass_ports {
                for c in 0..self.v {
                    if self.buffered[q * vw + c].val()
                        & self.in_valid[q].val()
                        & (self.in_vc[q].val() == self.vc_id[c].val())
                        & self.in_head[q].val()
                        & !self.fcu[q * vw + c].out_valid.val()
                        & !self.routed[q * vw + c].q.val()
                    {
                        self.waiting[q * vw + c].next = true;
                    }
                    if !self.routed[q * vw + c].q.val() & !self.fcu[q * vw + c].out_valid.val() {
                        self.rdata[q * vw + c].next = self.in_data[q].val();
                    }
                }
            }
        }
        // Round robin: the first waiting VC at or after the pointer, else
        // the first from 0. The last assignment wins, so the VCs before
        // the pointer come first and each pass runs from the last VC down.
        for vw in self.v..self.v1 {
            for q in 0..self.p {
                self.rany[q].next = false;
                self.rsel[q].next = self.vc_zero.val();
                for c in 0..self.v {
                    if self.waiting[q * vw + vw - 1 - c].val()
                        & (self.rptr[q].q.val() > self.vc_id[vw - 1 - c].val())
                    {
                        self.rany[q].next = true;
                        self.rsel[q].next = self.vc_id[vw - 1 - c].val();
                    }
                }
                for c in 0..self.v {
                    if self.waiting[q * vw + vw - 1 - c].val()
                        & (self.rptr[q].q.val() <= self.vc_id[vw - 1 - c].val())
                    {
                        self.rany[q].next = true;
                        self.rsel[q].next = self.vc_id[vw - 1 - c].val();
                    }
                }
                self.shown[q].next = self.rdata[q * vw].val();
                for c in 1..self.v {
                    if self.rsel[q].val() == self.vc_id[c].val() {
                        self.shown[q].next = self.rdata[q * vw + c].val();
                    }
                }
            }
        }
        // The decoders of each input VC's waiting head.
        for i in 0..self.decode_now {
            self.dec[i].node_id.next = self.node_id.val();
            self.dec[i].in_data.next = self.rdata[i].val();
            self.dec[i].in_valid.next = self.waiting[i].val();
            self.dec[i].in_head.next = self.waiting[i].val();
        }
        // Decoded a cycle early (`early`): per input port the arriving
        // flit, per input VC the flit two places after its front
        // ([`EarlyRoutes`]).
        for q in 0..self.indec.len() {
            self.indec[q].node_id.next = self.node_id.val();
            self.indec[q].in_data.next = self.in_data[q].val();
            self.indec[q].in_valid.next = true;
            self.indec[q].in_head.next = true;
        }
        for i in 0..self.decode_ahead {
            self.dec[i].node_id.next = self.node_id.val();
            self.dec[i].in_data.next = self.fcu[i].third_data.val();
            self.dec[i].in_valid.next = true;
            self.dec[i].in_head.next = true;
        }
    }
}

/// The look-ahead decoders' inputs ([`Stage`], LAPSES §3.2): decoder m
/// serves input port `la_from[m]` and link `la_link[m]`, and decodes that
/// port's waiting head as it would leave by the link (its header update,
/// `hdr_*`) at the node id of the router across it (`next_*`,
/// [`NextNode::steps`]): the next router's field.
///
/// [`NextNode::steps`]: crate::router::lookahead::NextNode::steps
pub(super) struct LookaheadRoutes;

impl<const W: usize> Stage<LookaheadRoutes> for Unified<W> {
    #[hdl_gen]
    fn update(&mut self) {
        for m in 0..self.ladec.len() {
            self.la_shown[m].next = self.zero.val();
            self.ladec[m].in_valid.next = false;
            self.ladec[m].in_head.next = false;
            for q in 0..self.p {
                if self.la_from[m].val() == self.port_id[q].val() {
                    self.la_shown[m].next = self.shown[q].val();
                    self.ladec[m].in_valid.next = self.rany[q].val();
                    self.ladec[m].in_head.next = self.rany[q].val();
                }
            }
            self.ladec[m].node_id.next = self.zero.val();
            self.ladec[m].in_data.next = self.zero.val();
            for j in 0..self.p {
                if self.la_link[m].val() == self.port_id[j].val() {
                    self.ladec[m].node_id.next =
                        (self.node_id.val() ^ self.next_flip[j].val()) + self.next_step[j].val();
                    if self.next_wraps[j].val()
                        & ((self.node_id.val() & self.next_coord[j].val())
                            == self.next_edge[j].val())
                    {
                        self.ladec[m].node_id.next = self.node_id.val() + self.next_wrap[j].val();
                    }
                    self.ladec[m].in_data.next = (self.la_shown[m].val() & self.hdr_keep[j].val())
                        | ((self.la_shown[m].val() + self.hdr_step[j].val())
                            & self.hdr_moved[j].val());
                    if self.hdr_ties[j].val()
                        & ((self.la_shown[m].val() & !self.hdr_keep[j].val())
                            == self.hdr_tie[j].val())
                    {
                        self.ladec[m].in_data.next = (self.la_shown[m].val()
                            & self.hdr_keep[j].val())
                            | self.hdr_tie_to[j].val();
                    }
                }
            }
        }
    }
}

/// The permitted output VCs ([`Stage`]): per input port q and output VC
/// k, `perm[q P V + k]`: the route decoded a cycle early, or the
/// decoder's, or with look-ahead (but on the local port) the VCs of the
/// field the head carries (LAPSES §3.2), or with a table the entries whose
/// word line the head drives (LAPSES §5.2.1).
pub(super) struct Permitted;

impl<const W: usize> Stage<Permitted> for Unified<W> {
    #[hdl_gen]
    fn update(&mut self) {
        for vw in self.v..self.v1 {
            for kw in self.pv..self.pv1 {
                // Decoded a cycle early: the front flit's route, or while
                // its packet holds an output VC the one after it.
                for q in 0..self.perm_early_ports {
                    for k in 0..self.pv {
                        self.perm[q * kw + k].next =
                            self.rany[q].val() & self.fcand[(q * vw) * kw + k].q.val();
                        if self.routed[q * vw].q.val() {
                            self.perm[q * kw + k].next =
                                self.rany[q].val() & self.acand[(q * vw) * kw + k].q.val();
                        }
                        for c in 1..self.v {
                            if self.rsel[q].val() == self.vc_id[c].val() {
                                self.perm[q * kw + k].next =
                                    self.rany[q].val() & self.fcand[(q * vw + c) * kw + k].q.val();
                                if self.routed[q * vw + c].q.val() {
                                    self.perm[q * kw + k].next = self.rany[q].val()
                                        & self.acand[(q * vw + c) * kw + k].q.val();
                                }
                            }
                        }
                    }
                }
                // The decoder of the chosen VC.
                for q in 0..self.perm_dec_ports {
                    for k in 0..self.pv {
                        self.perm[q * kw + k].next = self.dec[q * vw].cand[k].val();
                        for c in 1..self.v {
                            if self.rsel[q].val() == self.vc_id[c].val() {
                                self.perm[q * kw + k].next = self.dec[q * vw + c].cand[k].val();
                            }
                        }
                    }
                }
                // Look-ahead: the row of the table whose key is the field.
                for q in self.la_first..self.p {
                    for k in 0..self.pv {
                        self.perm[q * kw + k].next = false;
                    }
                    for r in 0..self.la_key.len() {
                        if (self.shown[q].val() & self.la_field.val()) == self.la_key[r].val() {
                            for k in 0..self.pv {
                                self.perm[q * kw + k].next =
                                    self.rany[q].val() & self.la_row[r * kw + k].val();
                            }
                        }
                    }
                }
                // A table: the entries on the head's word lines.
                for ew in self.entries..self.entries1 {
                    for q in 0..self.table_ports {
                        for k in 0..self.pv {
                            self.perm[q * kw + k].next = false;
                            for e in 0..self.entries {
                                if self.word[q * ew + e].val() & self.tcol[k * ew + e].val() {
                                    self.perm[q * kw + k].next = true;
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

/// The decoded routes kept in flip-flops (`early`, [`Stage`]): the front
/// flit's next cycle is the flit after it (the front leaves) or the
/// arriving flit (it lands first), else the same; the flit after the front
/// is next the flit two places on (the front leaves) or the arriving flit
/// (it lands second), else the same. Where no flit will be, the value is
/// never read (VC allocation reads it for a waiting head only).
pub(super) struct EarlyRoutes;

impl<const W: usize> Stage<EarlyRoutes> for Unified<W> {
    #[hdl_gen]
    fn update(&mut self) {
        for vw in self.v..self.v1 {
            for kw in self.pv..self.pv1 {
                // Input VC q V + c, output VC k (none without `early`).
                for q in 0..self.indec.len() {
                    for c in 0..self.v {
                        for k in 0..self.pv {
                            self.fcand[(q * vw + c) * kw + k].d.next =
                                self.fcand[(q * vw + c) * kw + k].q.val();
                            if self.fcu[q * vw + c].front_takes_after.val() {
                                self.fcand[(q * vw + c) * kw + k].d.next =
                                    self.acand[(q * vw + c) * kw + k].q.val();
                            }
                            if self.fcu[q * vw + c].front_takes_in.val() {
                                self.fcand[(q * vw + c) * kw + k].d.next =
                                    self.indec[q].cand[k].val();
                            }
                            self.acand[(q * vw + c) * kw + k].d.next =
                                self.acand[(q * vw + c) * kw + k].q.val();
                            if self.fcu[q * vw + c].after_takes_third.val() {
                                self.acand[(q * vw + c) * kw + k].d.next =
                                    self.dec[q * vw + c].cand[k].val();
                            }
                            if self.fcu[q * vw + c].after_takes_in.val() {
                                self.acand[(q * vw + c) * kw + k].d.next =
                                    self.indec[q].cand[k].val();
                            }
                        }
                    }
                }
            }
        }
    }
}
