//! VC allocation: the wiring of the
//! [`VcAllocator`](super::VcAllocator) (Chien's routing arbiter with the
//! output VCs' state: a block of its own whose `update` is both its model
//! and its Verilog), the heads it serves (chosen round robin per input
//! port, [`super::route`]), and the state it sets: an output VC is held
//! from its head flit's allocation until its tail flit leaves. With
//! look-ahead, the mux keeps the granted port's next-router field.

use rust_hdl::prelude::*;

use super::route::Waiting;
use super::{LaField, PortId, Unified, VcId, CB, LA_BITS, PORT_BITS, VC_BITS};

/// The allocation of one cycle.
pub(super) struct Alloc {
    /// Per input port: the output (port, VC) granted to its waiting head,
    /// where the grant counts.
    pub alloc: Vec<Option<(usize, usize)>>,
    /// Per input port: the grant is the output VC its leaving tail holds,
    /// on which that tail is sent now.
    pub handover: Vec<bool>,
}

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
    pub(super) fn commit_glue(&mut self, w: &Waiting<W>) -> Alloc {
        let (p, v) = (self.p, self.v);
        for q in 0..p {
            let i = q * v + w.rsel[q].unwrap_or(0);
            self.valloc.leaves[q].next = self.fcu[i].out_ready.val() && self.fcu[i].out_tail.val();
        }
        let a = &self.valloc;
        Alloc {
            alloc: (0..p)
                .map(|q| {
                    a.alloc_valid[q]
                        .val()
                        .then(|| (a.alloc_port[q].val().index(), a.alloc_vc[q].val().index()))
                })
                .collect(),
            handover: (0..p).map(|q| a.handover[q].val()).collect(),
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
        }
        line("end".into());
    }

    /// Next state of each input VC's held output VC (and its look-ahead
    /// field): taken when its head is granted, given up when its tail
    /// leaves.
    pub(super) fn held_state_glue(&mut self, rst: bool, w: &Waiting<W>, a: &Alloc) {
        let v = self.v;
        for q in 0..self.p {
            for c in 0..v {
                let i = q * v + c;
                let granted = w.rsel[q] == Some(c) && a.alloc[q].is_some();
                let leaves = self.fcu[i].out_ready.val() && self.fcu[i].out_tail.val();
                let (o, vc) = a.alloc[q].unwrap_or((0, 0));
                self.routed[i].d.next = if rst {
                    false
                } else if granted {
                    true
                } else if leaves {
                    false
                } else {
                    self.routed[i].q.val()
                };
                self.rport[i].d.next = if rst {
                    PortId::from(0u64)
                } else if granted {
                    PortId::from(o as u64)
                } else {
                    self.rport[i].q.val()
                };
                self.rvc[i].d.next = if rst {
                    VcId::from(0u64)
                } else if granted {
                    VcId::from(vc as u64)
                } else {
                    self.rvc[i].q.val()
                };
                if self.la.is_some() {
                    let chosen = self.lamux[q].out_hdr.val().to_u64() & ((1 << LA_BITS) - 1);
                    self.rla[i].d.next = if rst {
                        LaField::from(0u64)
                    } else if granted {
                        LaField::from(chosen)
                    } else {
                        self.rla[i].q.val()
                    };
                }
            }
        }
    }

    /// [`Unified::held_state_glue`] of input VC q V + c as Verilog.
    pub(super) fn held_state_verilog(&self, line: &mut impl FnMut(String), q: usize, c: usize) {
        let (vb, pb) = (VC_BITS, PORT_BITS);
        let i = q * self.v + c;
        let granted = format!("(acom${q} & (rsel${q} == {vb}'d{c}))");
        line(format!(
            "    if (rst) routed${i}$d = 1'b0; else if {granted} routed${i}$d = 1'b1; \
             else if (fcu${i}$out_ready & fcu${i}$out_tail) routed${i}$d = 1'b0; \
             else routed${i}$d = routed${i}$q;"
        ));
        line(format!(
            "    if (rst) rport${i}$d = {pb}'d0; else if {granted} rport${i}$d = aport${q}; \
             else rport${i}$d = rport${i}$q;"
        ));
        line(format!(
            "    if (rst) rvc${i}$d = {vb}'d0; else if {granted} rvc${i}$d = avc${q}; \
             else rvc${i}$d = rvc${i}$q;"
        ));
        if self.la.is_some() {
            // The field sits in the header's low bits; a flit narrower
            // than the register is zero-extended (the field fits it).
            let field = if W >= LA_BITS {
                format!("lamux${q}$out_hdr[{}:0]", LA_BITS - 1)
            } else {
                format!("{{{}'d0, lamux${q}$out_hdr}}", LA_BITS - W)
            };
            line(format!(
                "    if (rst) rla${i}$d = {LA_BITS}'d0; else if {granted} \
                 rla${i}$d = {field}; else rla${i}$d = rla${i}$q;"
            ));
        }
    }
}
