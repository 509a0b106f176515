//! VC allocation: the wiring of the
//! [`VcAllocator`](super::VcAllocator) (Chien's routing arbiter with the
//! output VCs' state: a block of its own whose `update` is both its model
//! and its Verilog), the heads it serves (chosen round robin per input
//! port, [`super::route`]), and the state it sets: an output VC is held
//! from its head flit's allocation until its tail flit leaves. With
//! look-ahead, the mux keeps the granted port's next-router field.

use rust_hdl::prelude::*;

use super::route::Waiting;
use super::{Stage, Unified, CB, LA_BITS, PORT_BITS, VC_BITS};

impl<const W: usize> Unified<W> {
    /// The VC allocator's inputs: the output VCs' state, the waiting
    /// heads, their permitted output VCs, the output VC a leaving tail
    /// ahead of one holds.
    pub(super) fn vc_alloc_glue(&mut self, w: &Waiting<W>, perm: &[Vec<bool>]) {
        let (p, v) = (self.p, self.v);
        let pv = p * v;
        let u = &self.output_unit;
        let a = &mut self.valloc;
        for k in 0..pv {
            a.busy[k].next = u.busy[k].val();
            a.credit[k].next = Bits::<8>::from(if self.onoff {
                u64::from(u.level[k].val())
            } else {
                u.credits[k].val().to_u64()
            });
        }
        for q in 0..p {
            let i = q * v + w.rsel[q].unwrap_or(0);
            a.req[q].next = w.rsel[q].is_some();
            a.behind[q].next = w.behind[q];
            a.held_port[q].next = self.rport[i].q.val();
            a.held_vc[q].next = self.rvc[i].q.val();
            for k in 0..pv {
                a.perm[q * pv + k].next = perm[q][k];
            }
        }
    }

    /// The grants that count (after switch allocation: a head routed
    /// behind a tail keeps its grant only if the tail leaves now).
    pub(super) fn commit_glue(&mut self, w: &Waiting<W>) {
        let (p, v) = (self.p, self.v);
        for q in 0..p {
            let i = q * v + w.rsel[q].unwrap_or(0);
            self.valloc.leaves[q].next = self.fcu[i].out_ready.val() && self.fcu[i].out_tail.val();
        }
    }

    /// [`Unified::vc_alloc_glue`] and [`Unified::commit_glue`] as Verilog:
    /// the VC allocator's inputs, its answers as `acom$q` (a grant that
    /// counts), `aport$q`, `avc$q`, `ahand$q`.
    pub(super) fn vc_alloc_verilog(&self, line: &mut impl FnMut(String)) {
        let (p, v) = (self.p, self.v);
        let pv = p * v;
        let (vb, pb) = (VC_BITS, PORT_BITS);
        line("// VC allocation: the waiting heads, their permitted output VCs, the output VCs' state.".into());
        // The chosen head is behind a tail; the output VC that tail holds;
        // the tail leaves now.
        for q in 0..p {
            line(format!(
                "wire rbeh${q} = rany${q} & {};",
                super::by_rsel(q, v, |i| format!("behind${i}"))
            ));
            line(format!(
                "wire [{}:0] hport${q} = {};",
                pb - 1,
                super::by_rsel(q, v, |i| format!("rport${i}$q"))
            ));
            line(format!(
                "wire [{}:0] hvc${q} = {};",
                vb - 1,
                super::by_rsel(q, v, |i| format!("rvc${i}$q"))
            ));
            line(format!(
                "wire rleave${q} = {};",
                super::by_rsel(q, v, |i| format!("(fcu${i}$out_ready & fcu${i}$out_tail)"))
            ));
        }
        line("always @(*) begin".into());
        for k in 0..pv {
            let credit = if self.onoff {
                format!("{{7'd0, output_unit$level${k}}}")
            } else {
                format!("{{{}'d0, output_unit$credits${k}}}", 8 - CB)
            };
            line(format!(
                "    valloc$busy${k} = output_unit$busy${k}; valloc$credit${k} = {credit};"
            ));
        }
        for q in 0..p {
            line(format!(
                "    valloc$req${q} = rany${q}; valloc$behind${q} = rbeh${q}; \
                 valloc$held_port${q} = hport${q}; valloc$held_vc${q} = hvc${q}; \
                 valloc$leaves${q} = rleave${q};"
            ));
            for k in 0..pv {
                line(format!("    valloc$perm${} = perm${q}${k};", q * pv + k));
            }
        }
        line("end".into());
        for q in 0..p {
            line(format!(
                "wire acom${q} = valloc$alloc_valid${q}; wire [{}:0] aport${q} = valloc$alloc_port${q}; \
                 wire [{}:0] avc${q} = valloc$alloc_vc${q}; wire ahand${q} = valloc$handover${q};",
                pb - 1,
                vb - 1
            ));
        }
    }

    /// Look-ahead mux (LAPSES Figure 4b): the granted port's next-router
    /// field; a packet that leaves by the local port keeps its field.
    pub(super) fn lookahead_mux_glue(&mut self, w: &Waiting<W>) {
        let p = self.p;
        for q in 0..self.lamux.len() {
            self.lamux[q].in_hdr.next = Bits::<W>::default();
            for j in 0..p {
                self.lamux[q].sel[j].next = self.valloc.grant[q * p + j].val();
                for b in 0..self.fb {
                    self.lamux[q].next_mask[j * self.fb + b].next = match self.la_at[q * p + j] {
                        Some(m) => self.ladec[m].cand[b].val(),
                        None => j == 0 && (w.field[q] >> b) & 1 == 1,
                    };
                }
            }
            let chosen = self.lamux[q].out_hdr.val().to_u64() & ((1 << LA_BITS) - 1);
            self.lasel[q].next = chosen.into();
        }
    }

    /// [`Unified::lookahead_mux_glue`] as Verilog.
    pub(super) fn lookahead_mux_verilog(&self, line: &mut impl FnMut(String)) {
        if self.la.is_none() {
            return;
        }
        let p = self.p;
        line("// Look-ahead mux: the granted port's next-router field.".into());
        line("always @(*) begin".into());
        for q in 0..p {
            line(format!("    lamux${q}$in_hdr = {W}'d0;"));
            for j in 0..p {
                line(format!(
                    "    lamux${q}$sel${j} = valloc$grant${};",
                    q * p + j
                ));
                for b in 0..self.fb {
                    let bit = match self.la_at[q * p + j] {
                        Some(m) => format!("ladec${m}$cand${b}"),
                        None if j == 0 => format!("lf${q}[{b}]"),
                        None => "1'b0".into(),
                    };
                    line(format!(
                        "    lamux${q}$next_mask${} = {bit};",
                        j * self.fb + b
                    ));
                }
            }
            // The field sits in the header's low bits; a flit narrower
            // than the register is zero-extended (the field fits it).
            let field = if W >= LA_BITS {
                format!("lamux${q}$out_hdr[{}:0]", LA_BITS - 1)
            } else {
                format!("{{{}'d0, lamux${q}$out_hdr}}", LA_BITS - W)
            };
            line(format!("    lasel${q} = {field};"));
        }
        line("end".into());
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
                        self.rla[q * vw + c].d.next = self.la_zero.val();
                    }
                }
            }
        }
    }
}
