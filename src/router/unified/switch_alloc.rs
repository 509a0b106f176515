//! Switch allocation and the crossbar (Chien: CB): per input port one VC
//! that holds an output VC, has a flit and may send on that VC (round
//! robin), per output port one requesting input port (a second routing
//! arbiter, STATIC-XY); a P x P crossbar set per flit moves the flits. A
//! head flit crosses with its look-ahead field and the header update of
//! the port it holds, made before the crossbar from the registered port so
//! that it is off the path from switch allocation to the output.
//!
//! Second choices: a separable input-first allocator loses the input port
//! whose chosen VC loses its output, even when another of its ready VCs
//! wants an output nobody asked for. So each input port also names its
//! next ready VC in round-robin order; where its first choice is
//! contended (another port asks for the same output), that second choice
//! goes to its own arbiter (`salloc2`), for the outputs no first choice
//! asks for. The two arbiters decide in parallel and their outputs are
//! disjoint; a port granted both sends its first choice (the second
//! output idles, as it would have). First choices never compete with
//! second ones, so each input VC is served within the bound of the one
//! allocator before (docs/router.md, switch allocation).

use rust_hdl::prelude::*;

use super::super::block::Io;
use super::route::Waiting;
use super::vc_alloc::Alloc;
use super::{by_sel, round_robin, round_robin_verilog, PortId, Unified, PORT_BITS, VC_BITS};

/// The switch allocation of one cycle.
pub(super) struct Switch {
    /// Per input port: the (output port, output VC) its chosen VC holds.
    pub sroute: Vec<(usize, usize)>,
    /// Output o goes to input q (o P + q).
    pub grant_out: Vec<bool>,
}

impl<const W: usize> Unified<W> {
    /// Requests and grants of switch allocation, the crossbar's inputs,
    /// the buffers' reads.
    pub(super) fn switch_alloc_glue(&mut self) -> Switch {
        let (p, v) = (self.p, self.v);
        // First choices: per input port one ready VC (round robin).
        let mut ssel = vec![None; p];
        let mut second = vec![None; p];
        let mut first_port = vec![0usize; p];
        let mut second_port = vec![0usize; p];
        for q in 0..p {
            let ready: Vec<bool> = (0..v)
                .map(|c| {
                    let i = q * v + c;
                    self.fcu[i].out_valid.val() && self.cok[i].q.val()
                })
                .collect();
            ssel[q] = round_robin(self.sptr[q].q.val().index(), &ready);
            let others: Vec<bool> = (0..v).map(|c| ready[c] && ssel[q] != Some(c)).collect();
            second[q] = round_robin(self.sptr[q].q.val().index(), &others);
            first_port[q] = self.rport[q * v + ssel[q].unwrap_or(0)].q.val().index();
            second_port[q] = self.rport[q * v + second[q].unwrap_or(0)].q.val().index();
            self.salloc.req[q].next = ssel[q].is_some();
            self.salloc.cand[q].next = PortId::from(first_port[q] as u64);
            self.salloc.cand_valid[q].next = true;
        }
        // Second choices: an input port whose first choice is contended
        // offers its next ready VC, to an output no first choice asks for.
        let asked = |o: usize, but: Option<usize>| {
            (0..p).any(|r| Some(r) != but && ssel[r].is_some() && first_port[r] == o)
        };
        for q in 0..p {
            self.salloc2.req[q].next = second[q].is_some()
                && asked(first_port[q], Some(q))
                && !asked(second_port[q], None);
            self.salloc2.cand[q].next = PortId::from(second_port[q] as u64);
            self.salloc2.cand_valid[q].next = true;
        }
        for a in [&mut self.salloc, &mut self.salloc2] {
            for o in 0..p {
                a.out_free[o].next = true;
                a.out_credits[o].next = Bits::<8>::from(0u64);
                a.out_mux[o].next = Bits::<8>::from(0u64);
            }
        }
        // The VC each input port sends from: its first choice if granted,
        // else its second if granted.
        let first: Vec<bool> = (0..p).map(|q| self.salloc.grant[q].val()).collect();
        let go: Vec<bool> = (0..p)
            .map(|q| first[q] || self.salloc2.grant[q].val())
            .collect();
        let fsel: Vec<Option<usize>> = (0..p)
            .map(|q| if first[q] { ssel[q] } else { second[q] })
            .collect();
        let grant_out: Vec<bool> = (0..p * p)
            .map(|m| {
                self.salloc.grant_out[m].val() || (self.salloc2.grant_out[m].val() && !first[m % p])
            })
            .collect();
        for m in 0..p * p {
            self.xbar.grant[m].next = grant_out[m];
        }
        let sroute: Vec<(usize, usize)> = (0..p)
            .map(|q| {
                let i = q * v + fsel[q].unwrap_or(0);
                (self.rport[i].q.val().index(), self.rvc[i].q.val().index())
            })
            .collect();
        let fmask = self.field_mask();
        for q in 0..p {
            let i = q * v + fsel[q].unwrap_or(0);
            // A head flit crosses with the look-ahead field chosen for it
            // and the header of the port it holds.
            self.xbar.in_data[q].next = if self.fcu[i].out_head.val() {
                let mut data = self.fcu[i].out_data.val().to_u64();
                if self.la.is_some() {
                    let lamask = fmask << self.ab;
                    let la = self.rla[i].q.val().to_u64() << self.ab;
                    data = (data & !lamask) | (la & lamask);
                }
                match self.updates.get(sroute[q].0) {
                    Some(u) => Bits::<W>::from(u.apply(data, W)),
                    None => Bits::<W>::from(data),
                }
            } else {
                self.fcu[i].out_data.val()
            };
            self.xbar.in_valid[q].next = go[q];
            self.xbar.in_head[q].next = self.fcu[i].out_head.val();
            self.xbar.in_tail[q].next = self.fcu[i].out_tail.val();
            for c in 0..v {
                self.fcu[q * v + c].out_ready.next = go[q] && fsel[q] == Some(c);
            }
        }
        Switch { sroute, grant_out }
    }

    /// [`Unified::switch_alloc_glue`] as Verilog.
    pub(super) fn switch_alloc_verilog(&self, line: &mut impl FnMut(String)) {
        let (p, v) = (self.p, self.v);
        let vb = VC_BITS;
        let pb = PORT_BITS;
        line(
            "// Switch allocation: per input port a first and a second ready VC, per output \
             port one input."
                .into(),
        );
        for i in 0..p * v {
            line(format!("wire ready${i} = fcu${i}$out_valid & cok${i}$q;"));
        }
        line("always @(*) begin".into());
        for q in 0..p {
            for t in round_robin_verilog(q, v, "ready", "sany", "ssel", "sptr") {
                line(t);
            }
            for c in 0..v {
                let i = q * v + c;
                line(format!(
                    "    sready2${i} = ready${i} & (ssel${q} != {vb}'d{c});"
                ));
            }
            for t in round_robin_verilog(q, v, "sready2", "tany", "tsel", "sptr") {
                line(t);
            }
            line(format!(
                "    pport${q} = {}; tport${q} = {};",
                by_sel(q, v, "ssel", |i| format!("rport${i}$q")),
                by_sel(q, v, "tsel", |i| format!("rport${i}$q"))
            ));
        }
        // A second choice is offered when the first is contended, to an
        // output no first choice asks for.
        let asked = |port: &str, but: Option<usize>| {
            let terms: Vec<String> = (0..p)
                .filter(|&r| Some(r) != but)
                .map(|r| format!("(sany${r} & (pport${r} == {port}))"))
                .collect();
            if terms.is_empty() {
                "1'b0".to_string()
            } else {
                format!("({})", terms.join(" | "))
            }
        };
        for q in 0..p {
            line(format!(
                "    salloc$req${q} = sany${q}; salloc$cand${q} = pport${q}; salloc$cand_valid${q} = 1'b1;"
            ));
            line(format!(
                "    salloc2$req${q} = tany${q} & {} & ~{}; salloc2$cand${q} = tport${q}; \
                 salloc2$cand_valid${q} = 1'b1;",
                asked(&format!("pport${q}"), Some(q)),
                asked(&format!("tport${q}"), None)
            ));
            for a in ["salloc", "salloc2"] {
                line(format!(
                    "    {a}$out_free${q} = 1'b1; {a}$out_credits${q} = 8'd0; {a}$out_mux${q} = 8'd0;"
                ));
            }
        }
        line("end".into());
        line("always @(*) begin".into());
        for q in 0..p {
            // The VC sent from: the first choice if granted, else the second.
            line(format!(
                "    sgo${q} = salloc$grant${q} | salloc2$grant${q}; \
                 fsel${q} = salloc$grant${q} ? ssel${q} : tsel${q};"
            ));
            let i0 = q * v;
            line(format!(
                "    sport${q} = rport${i0}$q; svc${q} = rvc${i0}$q;"
            ));
            line(format!(
                "    xbar$in_data${q} = fcu${i0}$out_data; xbar$in_head${q} = fcu${i0}$out_head; \
                 xbar$in_tail${q} = fcu${i0}$out_tail;"
            ));
            for c in 1..v {
                let i = q * v + c;
                line(format!(
                    "    if (fsel${q} == {vb}'d{c}) begin sport${q} = rport${i}$q; svc${q} = rvc${i}$q; \
                     xbar$in_data${q} = fcu${i}$out_data; xbar$in_head${q} = fcu${i}$out_head; \
                     xbar$in_tail${q} = fcu${i}$out_tail; end"
                ));
            }
            if self.la.is_some() {
                // A head flit crosses with the look-ahead field chosen for it.
                let ab = self.ab;
                line(format!("    sla${q} = rla${i0}$q;"));
                for c in 1..v {
                    line(format!(
                        "    if (fsel${q} == {vb}'d{c}) sla${q} = rla${}$q;",
                        q * v + c
                    ));
                }
                let x = format!("xbar$in_data${q}");
                let fb = self.fb;
                let top = if ab + fb < W {
                    format!("{x}[{}:{}], ", W - 1, ab + fb)
                } else {
                    String::new()
                };
                line(format!(
                    "    if (xbar$in_head${q}) {x} = {{{top}sla${q}[{}:0], {x}[{}:0]}};",
                    fb - 1,
                    ab - 1
                ));
            }
            // The header of the port the chosen VC holds (only ports the
            // crossbar links to q).
            let x = format!("xbar$in_data${q}");
            for o in (0..p).filter(|&o| self.links[o * p + q]) {
                let updated = self.updates[o].verilog(&x, W);
                if updated != x {
                    line(format!(
                        "    if (xbar$in_head${q} & (sport${q} == {pb}'d{o})) {x} = {updated};"
                    ));
                }
            }
        }
        for m in 0..p * p {
            let q = m % p;
            line(format!(
                "    xbar$grant${m} = salloc$grant_out${m} | (salloc2$grant_out${m} & ~salloc$grant${q});"
            ));
        }
        for q in 0..p {
            line(format!("    xbar$in_valid${q} = sgo${q};"));
            for c in 0..v {
                line(format!(
                    "    fcu${}$out_ready = sgo${q} & (fsel${q} == {vb}'d{c});",
                    q * v + c
                ));
            }
        }
        line("end".into());
    }

    /// Next state of each input VC's may-send flag `cok`: it holds an
    /// output VC and that VC may send in the next cycle. A newly held
    /// output VC was free, so nothing is sent on it now; a held one sends
    /// only this input VC's flits (or, on a handover, the tail before).
    pub(super) fn switch_state_glue(&mut self, io: &Io<'_, W>, w: &Waiting<W>, a: &Alloc) {
        let v = self.v;
        let rst = io.rst.val();
        for q in 0..self.p {
            for c in 0..v {
                let i = q * v + c;
                let granted = w.rsel[q] == Some(c) && a.alloc[q].is_some();
                let leaves = self.fcu[i].out_ready.val() && self.fcu[i].out_tail.val();
                let (o, vc) = a.alloc[q].unwrap_or((0, 0));
                let (ho, hvc) = (self.rport[i].q.val().index(), self.rvc[i].q.val().index());
                let next = !rst
                    && if granted {
                        // A handover: the tail leaving now is sent on it.
                        self.may_send(o, vc, a.handover[q])
                    } else {
                        !leaves
                            && self.routed[i].q.val()
                            && self.may_send(ho, hvc, self.fcu[i].out_ready.val())
                    };
                self.cok[i].d.next = next;
            }
        }
    }

    /// [`Unified::switch_state_glue`] of input VC q V + c as Verilog.
    pub(super) fn switch_state_verilog(&self, line: &mut impl FnMut(String), q: usize, c: usize) {
        let vb = VC_BITS;
        let i = q * self.v + c;
        let granted = format!("(acom${q} & (rsel${q} == {vb}'d{c}))");
        line(format!(
            "    if (rst) cok${i}$d = 1'b0; else if {granted} cok${i}$d = ahand${q} ? \
             msend1[{{aport${q}, avc${q}}}] : msend0[{{aport${q}, avc${q}}}]; \
             else if ((fcu${i}$out_ready & fcu${i}$out_tail) | ~routed${i}$q) cok${i}$d = 1'b0; \
             else if (fcu${i}$out_ready) cok${i}$d = msend1[{{rport${i}$q, rvc${i}$q}}]; \
             else cok${i}$d = msend0[{{rport${i}$q, rvc${i}$q}}];"
        ));
    }
}
