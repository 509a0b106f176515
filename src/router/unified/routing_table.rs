//! The programmable routing table (`table`): economical storage (LAPSES
//! §5.2.1, one entry per sign vector, its word line driven by the address
//! decoder), full (§5, an entry per destination) or meta (§5.1.1, an entry
//! per node of the router's cluster and per other cluster), whose word
//! lines the glue drives by comparing the head's address with each entry.
//! Per entry the permitted ports and a VC class, in flip-flops; reset loads
//! the relation's contents (of the router's `node_id` for the full and meta
//! tables, from a ROM), `cfg_*` rewrites an entry.

use rust_hdl::prelude::*;

use super::{Stage, Unified};

/// The table's word lines and columns ([`Stage`]): per input port q and
/// entry e, `word[q E + e]`: the waiting head selects e (the economical
/// table: the decoder drives the line of its sign vector; the full and
/// meta tables: the head's address against the entry's, `ent_*`); per
/// output VC k = o V + c and entry e, `tcol[k E + e]`: e permits k (its
/// ports hold o, its VC class permits c on o).
pub(super) struct WordLines;

impl<const W: usize> Stage<WordLines> for Unified<W> {
    #[hdl_gen]
    fn update(&mut self) {
        for vw in self.v..self.v1 {
            for kw in self.pv..self.pv1 {
                for ew in self.entries..self.entries1 {
                    for pw in self.p..self.p1 {
                        for o in 0..self.table_ports {
                            for c in 0..self.v {
                                for e in 0..self.entries {
                                    self.tcol[(o * vw + c) * ew + e].next = false;
                                    for cl in 0..self.class_id.len() {
                                        if self.class_ok[cl * kw + o * vw + c].val()
                                            & (self.tclass[e].q.val() == self.class_id[cl].val())
                                        {
                                            self.tcol[(o * vw + c) * ew + e].next =
                                                self.tmask[e * pw + o].q.val();
                                        }
                                    }
                                }
                            }
                        }
                    }
                    for q in 0..self.word_dec_ports {
                        for e in 0..self.entries {
                            self.word[q * ew + e].next = self.dec[q * vw].cand[e].val();
                            for c in 1..self.v {
                                if self.rsel[q].val() == self.vc_id[c].val() {
                                    self.word[q * ew + e].next = self.dec[q * vw + c].cand[e].val();
                                }
                            }
                        }
                    }
                    for q in 0..self.word_sel_ports {
                        // The destination is in the router's own cluster.
                        self.home[q].next = ((self.shown[q].val() ^ self.node_id.val())
                            & self.cluster_mask.val())
                            == self.zero.val();
                        for e in 0..self.entries {
                            self.word[q * ew + e].next = self.rany[q].val()
                                & ((self.shown[q].val() & self.ent_mask[e].val())
                                    == self.ent_value[e].val())
                                & (self.ent_any[e].val()
                                    | (self.home[q].val() == self.ent_home[e].val()));
                        }
                    }
                }
            }
        }
    }
}

/// The table's state ([`Stage`]): per entry its ports and VC class,
/// rewritten by `cfg_*`; reset loads the relation's contents (`init_*`;
/// for the full and meta tables those of the router's `node_id`, from a
/// ROM of a row per node: `rom_*`; a `node_id` of no node loads nothing
/// permitted).
pub(super) struct TableState;

impl<const W: usize> Stage<TableState> for Unified<W> {
    #[hdl_gen]
    fn update(&mut self) {
        for ew in self.entries..self.entries1 {
            for pw in self.p..self.p1 {
                for e in 0..self.entries {
                    self.iclass[e].next = self.init_class[e].val();
                    for o in 0..self.p {
                        self.imask[e * pw + o].next = self.init_mask[e * pw + o].val();
                    }
                }
                for r in 0..self.rom_node.len() {
                    if self.node_id.val() == self.rom_node[r].val() {
                        for e in 0..self.entries {
                            self.iclass[e].next = self.rom_class[r * ew + e].val();
                            for o in 0..self.p {
                                self.imask[e * pw + o].next =
                                    self.rom_mask[(r * ew + e) * pw + o].val();
                            }
                        }
                    }
                }
                for e in 0..self.entries {
                    self.tclass[e].d.next = self.tclass[e].q.val();
                    if self.cfg_we.val() & (self.cfg_addr.val() == self.entry_addr[e].val()) {
                        self.tclass[e].d.next = self.cfg_class.val();
                    }
                    if self.reset.val() {
                        self.tclass[e].d.next = self.iclass[e].val();
                    }
                    for o in 0..self.p {
                        self.tmask[e * pw + o].d.next = self.tmask[e * pw + o].q.val();
                        if self.cfg_we.val() & (self.cfg_addr.val() == self.entry_addr[e].val()) {
                            self.tmask[e * pw + o].d.next = self.cfg_mask[o].val();
                        }
                        if self.reset.val() {
                            self.tmask[e * pw + o].d.next = self.imask[e * pw + o].val();
                        }
                    }
                }
            }
        }
    }
}
