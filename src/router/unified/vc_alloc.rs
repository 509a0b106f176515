//! VC allocation (Chien: routing arbiter): input ports to output ports
//! with the path-selection heuristic (LAPSES §4.1); candidate slot j of
//! input port q is output port j when the relation permits one of its VCs
//! that is free, and the packet takes the lowest-numbered such VC. An
//! output VC is held from its head flit's allocation until its tail flit
//! leaves; with atomic allocation it is free again only once its
//! downstream queue is empty ([`crate::router::tables::CompiledTable::atomic`]).
//! A head routed behind a tail ([`super::route`]) may also take the output
//! VC that tail holds (it is that input VC's own), and its grant counts
//! only if the tail leaves in the same cycle: so a stream of packets in
//! one VC keeps one flit per cycle, even on a single output VC.
//! With look-ahead, the mux keeps the granted port's next-router field.

use rust_hdl::prelude::*;

use super::route::Waiting;
use super::{LaField, PortId, Unified, VcId, CB, LA_BITS, PORT_BITS, VC_BITS};

/// The allocation of one cycle.
pub(super) struct Alloc {
    /// Per input port: the output (port, VC) granted to its waiting head
    /// (after [`Unified::commit_glue`]: only grants that count).
    pub alloc: Vec<Option<(usize, usize)>>,
    /// Per input port: the grant is the output VC its leaving tail holds,
    /// on which that tail is sent now.
    pub handover: Vec<bool>,
}

impl<const W: usize> Unified<W> {
    /// Candidates, heuristic inputs and grants of VC allocation.
    pub(super) fn vc_alloc_glue(&mut self, w: &Waiting<W>, perm: &[Vec<bool>]) -> Alloc {
        let (p, v) = (self.p, self.v);
        let pv = p * v;
        let u = &self.output_unit;
        let busy: Vec<bool> = (0..pv).map(|k| u.busy[k].val()).collect();
        let credit: Vec<u64> = (0..pv)
            .map(|k| {
                if self.onoff {
                    u64::from(u.level[k].val())
                } else {
                    u.credits[k].val().to_u64()
                }
            })
            .collect();
        // An output VC takes a new packet when no packet holds it and, with
        // atomic allocation (credit flow control only) on a link, its
        // downstream queue is empty.
        let free: Vec<bool> = (0..pv)
            .map(|k| !busy[k] && (!self.atomic_at(k / v) || credit[k] == self.depth as u64))
            .collect();
        let usable = |q: usize, k: usize| free[k] || w.own[q] == Some(k);
        for o in 0..p {
            self.valloc.out_free[o].next = true;
            let sum: u64 = (0..v).map(|c| credit[o * v + c]).sum();
            self.valloc.out_credits[o].next = Bits::<8>::from(sum.min(255));
            let held = (0..v).filter(|&c| busy[o * v + c]).count();
            self.valloc.out_mux[o].next = Bits::<8>::from(held as u64);
        }
        for q in 0..p {
            self.valloc.req[q].next = w.rsel[q].is_some();
            for j in 0..p {
                let open = self.links[j * p + q]
                    && (0..v).any(|c| perm[q][j * v + c] && usable(q, j * v + c));
                self.valloc.cand[q * p + j].next = PortId::from(j as u64);
                self.valloc.cand_valid[q * p + j].next = open;
            }
        }
        // Per input port: the output VC granted (lowest free permitted VC
        // of the granted port).
        let mut alloc: Vec<Option<(usize, usize)>> = vec![None; p];
        for q in 0..p {
            for j in 0..p {
                if !self.valloc.grant[q * p + j].val() {
                    continue;
                }
                for c in (0..v).rev() {
                    if perm[q][j * v + c] && usable(q, j * v + c) {
                        alloc[q] = Some((j, c));
                    }
                }
            }
        }
        Alloc {
            alloc,
            handover: vec![false; p],
        }
    }

    /// Whether allocation on output port `o` is atomic: on links only. A
    /// packet in the local port's queue is consumed by the network
    /// interface whatever follows it, so that queue is not a channel of
    /// Duato's dependency graph (the survey §4.2) and may hold two
    /// packets.
    pub(super) fn atomic_at(&self, o: usize) -> bool {
        self.atomic && o > 0
    }

    /// Keeps the grants that count (after switch allocation): a head
    /// routed behind a tail keeps its grant only if the tail leaves now.
    pub(super) fn commit_glue(&self, w: &Waiting<W>, a: &mut Alloc) {
        let v = self.v;
        for q in 0..self.p {
            if !w.behind[q] {
                continue;
            }
            let i = q * v + w.rsel[q].unwrap_or(0);
            if !(self.fcu[i].out_ready.val() && self.fcu[i].out_tail.val()) {
                a.alloc[q] = None;
            }
            a.handover[q] = a.alloc[q].is_some_and(|(o, c)| w.own[q] == Some(o * v + c));
        }
    }

    /// [`Unified::vc_alloc_glue`] as Verilog.
    pub(super) fn vc_alloc_verilog(&self, line: &mut impl FnMut(String)) {
        let (p, v) = (self.p, self.v);
        let (vb, pb) = (VC_BITS, PORT_BITS);
        line("// VC allocation: candidate slot j = output port j with a free permitted VC.".into());
        for o in 0..p {
            let sum: Vec<String> = (0..v)
                .map(|c| {
                    if self.onoff {
                        format!("{{8'd0, output_unit$level${}}}", o * v + c)
                    } else {
                        format!("{{{}'d0, output_unit$credits${}}}", 9 - CB, o * v + c)
                    }
                })
                .collect();
            line(format!("wire [8:0] csum${o} = {};", sum.join(" + ")));
            let held: Vec<String> = (0..v)
                .map(|c| format!("{{7'd0, output_unit$busy${}}}", o * v + c))
                .collect();
            line(format!("wire [7:0] bsum${o} = {};", held.join(" + ")));
        }
        // The chosen head is behind a tail; the output VC that tail holds.
        for q in 0..p {
            line(format!(
                "wire rbeh${q} = rany${q} & {};",
                super::by_rsel(q, v, |i| format!("behind${i}"))
            ));
            line(format!(
                "wire [{}:0] hport${q} = {};",
                PORT_BITS - 1,
                super::by_rsel(q, v, |i| format!("rport${i}$q"))
            ));
            line(format!(
                "wire [{}:0] hvc${q} = {};",
                VC_BITS - 1,
                super::by_rsel(q, v, |i| format!("rvc${i}$q"))
            ));
        }
        for k in 0..p * v {
            let empty = if self.atomic_at(k / v) {
                format!(" & (output_unit$credits${k} == {CB}'d{})", self.depth)
            } else {
                String::new()
            };
            line(format!("wire vfree${k} = ~output_unit$busy${k}{empty};"));
        }
        line("always @(*) begin".into());
        for o in 0..p {
            line(format!("    valloc$out_free${o} = 1'b1;"));
            line(format!(
                "    valloc$out_credits${o} = csum${o}[8] ? 8'hff : csum${o}[7:0];"
            ));
            line(format!("    valloc$out_mux${o} = bsum${o};"));
        }
        for q in 0..p {
            line(format!("    valloc$req${q} = rany${q};"));
            for j in 0..p {
                let m = q * p + j;
                let open: Vec<String> = (0..v)
                    .map(|c| format!("(perm${q}${} & {})", j * v + c, self.usable(q, j, c)))
                    .collect();
                // A pair the crossbar does not wire is never a candidate.
                let open = if self.links[j * p + q] {
                    open.join(" | ")
                } else {
                    "1'b0".into()
                };
                line(format!(
                    "    valloc$cand${m} = {pb}'d{j}; valloc$cand_valid${m} = {open};"
                ));
            }
        }
        line("end".into());
        line("always @(*) begin".into());
        for q in 0..p {
            line(format!(
                "    agot${q} = 1'b0; aport${q} = {pb}'d0; avc${q} = {vb}'d0;"
            ));
            for j in 0..p {
                for c in (0..v).rev() {
                    line(format!(
                        "    if (valloc$grant${} & perm${q}${} & {}) begin \
                         agot${q} = 1'b1; aport${q} = {pb}'d{j}; avc${q} = {vb}'d{c}; end",
                        q * p + j,
                        j * v + c,
                        self.usable(q, j, c)
                    ));
                }
            }
        }
        line("end".into());
        // The grants that count (`commit_glue`) and the handovers.
        for q in 0..p {
            line(format!(
                "wire rleave${q} = {};",
                super::by_rsel(q, v, |i| format!("(fcu${i}$out_ready & fcu${i}$out_tail)"))
            ));
            line(format!(
                "wire acom${q} = agot${q} & (~rbeh${q} | rleave${q});"
            ));
            let local = if self.atomic {
                format!(" & (aport${q} == {PORT_BITS}'d0)")
            } else {
                String::new()
            };
            let hand = format!("rbeh${q} & (aport${q} == hport${q}) & (avc${q} == hvc${q}){local}");
            line(format!("wire ahand${q} = {hand};"));
        }
    }

    /// The Verilog condition "output VC (j, c) is usable by input port
    /// q's waiting head": free, or the one its leaving tail holds.
    fn usable(&self, q: usize, j: usize, c: usize) -> String {
        let k = j * self.v + c;
        if self.atomic_at(j) {
            format!("vfree${k}")
        } else {
            format!(
                "(vfree${k} | (rbeh${q} & (hport${q} == {}'d{j}) & (hvc${q} == {}'d{c})))",
                PORT_BITS, VC_BITS
            )
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
