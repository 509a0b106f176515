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

use super::{by_rsel, round_robin, round_robin_verilog, Stage, Unified, VcId, VC_BITS};

/// Per input port, the head flit routing chose this cycle.
pub(super) struct Waiting<const W: usize> {
    /// The VC chosen (None: no head waits).
    pub rsel: Vec<Option<usize>>,
    /// Its front flit (VC 0's when none waits).
    pub shown: Vec<Bits<W>>,
    /// The look-ahead field it carries (0 without look-ahead).
    pub field: Vec<u64>,
    /// The chosen head is behind a tail that may leave now: its grant
    /// counts only if the tail leaves.
    pub behind: Vec<bool>,
}

impl<const W: usize> Unified<W> {
    /// The waiting head flit of each input port into its decoders and the
    /// look-ahead decoders.
    pub(super) fn route_glue(&mut self) -> Waiting<W> {
        let (p, v) = (self.p, self.v);
        let mut rsel = vec![None; p];
        let mut shown = vec![Bits::<W>::default(); p];
        let mut behind = vec![false; p];
        for q in 0..p {
            let after: Vec<bool> = (0..v).map(|c| self.behind(q * v + c)).collect();
            let waiting: Vec<bool> = (0..v)
                .map(|c| {
                    let i = q * v + c;
                    (self.fcu[i].out_valid.val()
                        && self.fcu[i].out_head.val()
                        && !self.routed[i].q.val())
                        || after[c]
                        || self.arriving(q, c)
                })
                .collect();
            rsel[q] = round_robin(self.rptr[q].q.val().index(), &waiting);
            self.rany[q].next = rsel[q].is_some();
            self.rsel[q].next = VcId::from(rsel[q].unwrap_or(0) as u64);
            let i = q * v + rsel[q].unwrap_or(0);
            shown[q] = self.route_data(i);
            behind[q] = rsel[q].is_some() && after[rsel[q].unwrap_or(0)];
            if self.early {
                // Decoded a cycle early: the arriving flit, and the flit
                // two places after each front (module documentation).
                let x = &mut self.indec[q];
                x.node_id.next = self.node_id.val();
                x.in_data.next = self.in_data[q].val();
                x.in_valid.next = true;
                x.in_head.next = true;
                for c in 0..v {
                    let i = q * v + c;
                    self.dec[i].node_id.next = self.node_id.val();
                    self.dec[i].in_data.next = self.fcu[i].third_data.val();
                    self.dec[i].in_valid.next = true;
                    self.dec[i].in_head.next = true;
                }
            } else if q * v < self.dec.len() {
                for c in 0..v {
                    let i = q * v + c;
                    self.dec[i].node_id.next = self.node_id.val();
                    self.dec[i].in_data.next = self.route_data(i);
                    self.dec[i].in_valid.next = waiting[c];
                    self.dec[i].in_head.next = waiting[c];
                }
            }
            // Look-ahead: the next router's field along every link j, from
            // the head as it would leave by j, at the neighbour's node id.
            for j in 1..p {
                if let Some(m) = self.la_at[q * p + j] {
                    let node = self.next[j - 1].apply(self.node_id.val().to_u64(), W);
                    let data = self.updates[j].apply(shown[q].to_u64(), W);
                    self.ladec[m].node_id.next = Bits::<W>::from(node);
                    self.ladec[m].in_data.next = Bits::<W>::from(data);
                    self.ladec[m].in_valid.next = rsel[q].is_some();
                    self.ladec[m].in_head.next = rsel[q].is_some();
                }
            }
        }
        // The look-ahead field each port's waiting head flit carries.
        let fmask = self.field_mask();
        let field = shown
            .iter()
            .map(|d| (d.to_u64() >> self.ab) & fmask)
            .collect();
        Waiting {
            rsel,
            shown,
            field,
            behind,
        }
    }

    /// Input VC i's front flit is a tail that holds an output VC with a
    /// credit (it may leave now), and a head flit is right behind it.
    fn behind(&self, i: usize) -> bool {
        self.routed[i].q.val()
            && self.cok[i].q.val()
            && self.fcu[i].out_tail.val()
            && self.fcu[i].after_head.val()
    }

    /// One cycle per router: a head flit arrives on input VC c of port q
    /// into its empty buffer (whose last packet has left), and is routed
    /// in this cycle, while it is written.
    fn arriving(&self, q: usize, c: usize) -> bool {
        let i = q * self.v + c;
        self.bypass
            && self.fcu[i].is_present()
            && self.in_valid[q].val()
            && self.in_vc[q].val().index() == c
            && self.in_head[q].val()
            && !self.fcu[i].out_valid.val()
            && !self.routed[i].q.val()
    }

    /// The flit input VC i routes: its front flit, or, while the front
    /// flit's packet holds an output VC, the flit behind it (selected by
    /// a flip-flop, so the decoders' inputs stay one multiplexer from
    /// the buffer); with one cycle per router, the arriving flit while the
    /// buffer is empty (again selected by a flip-flop, the buffer's
    /// not-empty flag).
    fn route_data(&self, i: usize) -> Bits<W> {
        if self.routed[i].q.val() {
            self.fcu[i].after_data.val()
        } else if self.bypass && !self.fcu[i].out_valid.val() {
            self.in_data[i / self.v].val()
        } else {
            self.fcu[i].out_data.val()
        }
    }

    /// The look-ahead field's bits, at bit 0.
    pub(super) fn field_mask(&self) -> u64 {
        (1u64 << self.fb) - 1
    }

    /// [`Unified::route_glue`] as Verilog.
    pub(super) fn route_verilog(&self, line: &mut impl FnMut(String)) {
        let (p, v, vb) = (self.p, self.v, VC_BITS);
        line("// Routing: per input port one waiting head flit, round robin.".into());
        for i in 0..p * v {
            let (q, c) = (i / v, i % v);
            line(format!(
                "wire behind${i} = routed${i}$q & cok${i}$q & fcu${i}$out_tail & fcu${i}$after_head;"
            ));
            // One cycle per router: a head arriving into an empty buffer.
            let arriving = if self.bypass && self.fcu[i].is_present() {
                format!(
                    " | (in_valid${q} & (in_vc${q} == {vb}'d{c}) & in_head${q} & ~fcu${i}$out_valid & ~routed${i}$q)"
                )
            } else {
                String::new()
            };
            line(format!(
                "wire wait${i} = (fcu${i}$out_valid & fcu${i}$out_head & ~routed${i}$q) | behind${i}{arriving};"
            ));
            let front = if self.bypass {
                format!("(fcu${i}$out_valid ? fcu${i}$out_data : in_data${q})")
            } else {
                format!("fcu${i}$out_data")
            };
            line(format!(
                "wire [{}:0] rdata${i} = routed${i}$q ? fcu${i}$after_data : {front};",
                W - 1
            ));
        }
        line("always @(*) begin".into());
        for q in 0..p {
            for t in round_robin_verilog(q, v, "wait", "rany", "rsel", "rptr") {
                line(t);
            }
            line(format!("    shown${q} = rdata${};", q * v));
            for c in 1..v {
                line(format!(
                    "    if (rsel${q} == {vb}'d{c}) shown${q} = rdata${};",
                    q * v + c
                ));
            }
            if self.early {
                line(format!(
                    "    indec${q}$node_id = node_id; indec${q}$in_data = in_data${q};"
                ));
                line(format!(
                    "    indec${q}$in_valid = 1'b1; indec${q}$in_head = 1'b1;"
                ));
                for i in q * v..(q + 1) * v {
                    line(format!("    dec${i}$node_id = node_id;"));
                    line(format!("    dec${i}$in_data = fcu${i}$third_data;"));
                    line(format!(
                        "    dec${i}$in_valid = 1'b1; dec${i}$in_head = 1'b1;"
                    ));
                }
            } else if q * v < self.dec.len() {
                for i in q * v..(q + 1) * v {
                    line(format!("    dec${i}$node_id = node_id;"));
                    line(format!("    dec${i}$in_data = rdata${i};"));
                    line(format!(
                        "    dec${i}$in_valid = wait${i}; dec${i}$in_head = wait${i};"
                    ));
                }
            }
            // Look-ahead: the next router's field along every link j.
            for j in 1..p {
                if let Some(m) = self.la_at[q * p + j] {
                    line(format!(
                        "    ladec${m}$node_id = {};",
                        self.next[j - 1].verilog("node_id", W)
                    ));
                    line(format!(
                        "    ladec${m}$in_data = {};",
                        self.updates[j].verilog(&format!("shown${q}"), W)
                    ));
                    line(format!(
                        "    ladec${m}$in_valid = rany${q}; ladec${m}$in_head = rany${q};"
                    ));
                }
            }
        }
        line("end".into());
        if self.la.is_some() {
            let ab = self.ab;
            for q in 0..p {
                line(format!(
                    "wire [{}:0] lf${q} = shown${q}[{}:{ab}];",
                    self.fb - 1,
                    ab + self.fb - 1
                ));
            }
        }
    }

    /// The permitted output VCs k of each port's waiting head flit
    /// (`perm[q][k]`): the decoder's, or the table entry whose word line
    /// it drives, or with look-ahead (but on the local port) the VCs of
    /// the field it carries.
    pub(super) fn permitted_glue(&self, w: &Waiting<W>) -> Vec<Vec<bool>> {
        let (p, v) = (self.p, self.v);
        (0..p)
            .map(|q| {
                (0..p * v)
                    .map(|k| match (&self.es, &self.la) {
                        (None, Some(la)) if q > 0 => {
                            w.rsel[q].is_some()
                                && la.lookup(w.field[q]).is_some_and(|r| r.permits(k))
                        }
                        (None, _) if self.early => w.rsel[q].is_some_and(|c| {
                            let i = q * v + c;
                            let held = if self.routed[i].q.val() {
                                &self.acand
                            } else {
                                &self.fcand
                            };
                            held[i * p * v + k].q.val()
                        }),
                        (None, _) => self.dec[q * v + w.rsel[q].unwrap_or(0)].cand[k].val(),
                        (Some(es), _) => self.table_permits(es, w, q, k),
                    })
                    .collect()
            })
            .collect()
    }

    /// [`Unified::permitted_glue`] as Verilog: wires `perm$q$k`.
    pub(super) fn permitted_verilog(&self, line: &mut impl FnMut(String)) {
        let (p, v) = (self.p, self.v);
        let pv = p * v;
        line("// Permitted output VCs: the decoder's, or the table entry on its word line.".into());
        match (&self.es, &self.la) {
            (None, None) if self.early => {
                for q in 0..p {
                    for k in 0..pv {
                        let cand = by_rsel(q, v, |i| {
                            let j = i * pv + k;
                            format!("(routed${i}$q ? acand${j}$q : fcand${j}$q)")
                        });
                        line(format!("wire perm${q}${k} = rany${q} & {cand};"));
                    }
                }
            }
            (None, None) => {
                for q in 0..p {
                    for k in 0..pv {
                        let cand = by_rsel(q, v, |i| format!("dec${i}$cand${k}"));
                        line(format!("wire perm${q}${k} = {cand};"));
                    }
                }
            }
            (None, Some(la)) => {
                // The local port decodes its first hop; the others read the
                // VCs of their field (LAPSES §3.2).
                for k in 0..pv {
                    let cand = by_rsel(0, v, |i| format!("dec${i}$cand${k}"));
                    line(format!("wire perm$0${k} = {cand};"));
                }
                for q in 1..p {
                    line(format!("reg [{}:0] lam${q};", pv - 1));
                    line("always @(*) begin".into());
                    line(format!("    case (lf${q})"));
                    for r in &la.rows {
                        line(format!(
                            "        {}'h{:x}: lam${q} = {};",
                            self.fb,
                            r.key,
                            crate::blocks::address_decoder::hex_literal(pv, &r.mask)
                        ));
                    }
                    line(format!("        default: lam${q} = {pv}'h0;"));
                    line("    endcase".into());
                    line("end".into());
                    for k in 0..pv {
                        line(format!("wire perm${q}${k} = rany${q} & lam${q}[{k}];"));
                    }
                }
            }
            (Some(es), _) => self.table_permitted_verilog(line, es),
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
