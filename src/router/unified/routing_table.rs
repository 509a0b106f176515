//! The programmable routing table (`table`): economical storage (LAPSES
//! §5.2.1, one entry per sign vector, its word line driven by the address
//! decoder), full (§5, an entry per destination) or meta (§5.1.1, an entry
//! per node of the router's cluster and per other cluster), whose word
//! lines the glue drives by comparing the head's address with each entry.
//! Per entry the permitted ports and a VC class, in flip-flops; reset loads
//! the relation's contents (of the router's `node_id` for the full and meta
//! tables, from a ROM), `cfg_*` rewrites an entry.

use super::super::tables::{EsContents, TableKind};
use super::route::Waiting;
use super::{by_rsel, ClassId, Unified};
use crate::router::CLASS_BITS;

impl<const W: usize> Unified<W> {
    /// Whether output VC k is permitted to input port q's waiting head by
    /// the table entry whose word line it drives.
    pub(super) fn table_permits(
        &self,
        es: &EsContents,
        w: &Waiting<W>,
        q: usize,
        k: usize,
    ) -> bool {
        let (p, v) = (self.p, self.v);
        (0..es.entries.len()).any(|e| {
            (if es.kind == TableKind::Economical {
                self.dec[q * v + w.rsel[q].unwrap_or(0)].cand[e].val()
            } else {
                w.rsel[q].is_some()
                    && es.selects(e, w.shown[q].to_u64(), self.node_id.val().to_u64())
            }) && self.tmask[e * p + k / v].q.val()
                && es.class_permits(self.tclass[e].q.val().index(), k / v, k % v)
        })
    }

    /// [`Unified::table_permits`] as Verilog: per output VC k the column
    /// `tcol$k` of entries permitting it, per input port the word lines
    /// `word$q`, and `perm$q$k`.
    pub(super) fn table_permitted_verilog(&self, line: &mut impl FnMut(String), es: &EsContents) {
        let (p, v) = (self.p, self.v);
        let ne = es.entries.len();
        let clb = CLASS_BITS;
        for k in 0..p * v {
            let (o, c) = (k / v, k % v);
            let bits: Vec<String> = (0..ne)
                .rev()
                .map(|e| {
                    let cls: Vec<String> = (0..es.classes.len())
                        .filter(|&cl| es.class_permits(cl, o, c))
                        .map(|cl| format!("(tclass${e}$q == {clb}'d{cl})"))
                        .collect();
                    if cls.is_empty() {
                        "1'b0".to_string()
                    } else {
                        format!("(tmask${}$q & ({}))", e * p + o, cls.join(" | "))
                    }
                })
                .collect();
            line(format!(
                "wire [{}:0] tcol${k} = {{{}}};",
                ne - 1,
                bits.join(", ")
            ));
        }
        for q in 0..p {
            let lines: Vec<String> = (0..ne)
                .rev()
                .map(|e| {
                    if es.kind == TableKind::Economical {
                        by_rsel(q, v, |i| format!("dec${i}$cand${e}"))
                    } else {
                        format!(
                            "(rany${q} & {})",
                            es.selects_verilog(e, &format!("shown${q}"), "node_id")
                        )
                    }
                })
                .collect();
            line(format!(
                "wire [{}:0] word${q} = {{{}}};",
                ne - 1,
                lines.join(", ")
            ));
            for k in 0..p * v {
                line(format!("wire perm${q}${k} = |(word${q} & tcol${k});"));
            }
        }
    }

    /// Table programming; reset loads the relation's contents (of the
    /// router's node_id for the full and meta tables).
    pub(super) fn table_state_glue(&mut self) {
        let Some(es) = &self.es else {
            return;
        };
        let p = self.p;
        let rst = self.rst.val();
        for (e, init) in es
            .reset_entries(self.node_id.val().to_u64())
            .iter()
            .enumerate()
        {
            let write = self.cfg_we.val() && self.cfg_addr.val().index() == e;
            self.tclass[e].d.next = if rst {
                ClassId::from(u64::from(init.class))
            } else if write {
                self.cfg_class.val()
            } else {
                self.tclass[e].q.val()
            };
            for o in 0..p {
                self.tmask[e * p + o].d.next = if rst {
                    (init.mask >> o) & 1 == 1
                } else if write {
                    self.cfg_mask[o].val()
                } else {
                    self.tmask[e * p + o].q.val()
                };
            }
        }
    }

    /// [`Unified::table_state_glue`] as Verilog (in the state block).
    pub(super) fn table_state_verilog(&self, line: &mut impl FnMut(String)) {
        let Some(es) = &self.es else {
            return;
        };
        let p = self.p;
        let ab = crate::blocks::es_table::ADDR_BITS;
        let by_node = es.kind != TableKind::Economical;
        for (e, init) in es.entries.iter().enumerate() {
            let write = format!("(cfg_we & (cfg_addr == {ab}'d{e}))");
            let class = if by_node {
                format!("iclass${e}")
            } else {
                format!("{}'d{}", CLASS_BITS, init.class)
            };
            line(format!(
                "    if (rst) tclass${e}$d = {class}; else if {write} tclass${e}$d = cfg_class; \
                 else tclass${e}$d = tclass${e}$q;"
            ));
            for o in 0..p {
                let j = e * p + o;
                let bit = if by_node {
                    format!("imask${e}[{o}]")
                } else {
                    format!("1'b{}", (init.mask >> o) & 1)
                };
                line(format!(
                    "    if (rst) tmask${j}$d = {bit}; else if {write} tmask${j}$d = cfg_mask${o}; \
                     else tmask${j}$d = tmask${j}$q;"
                ));
            }
        }
    }

    /// The reset contents of the router's node (full and meta tables): a
    /// ROM node_id -> entries (a node_id of no node loads nothing
    /// permitted), as Verilog.
    pub(super) fn table_rom_verilog(&self, line: &mut impl FnMut(String)) {
        let Some(es) = self.es.as_ref().filter(|t| !t.by_node.is_empty()) else {
            return;
        };
        let p = self.p;
        for e in 0..es.entries.len() {
            line(format!(
                "reg [{}:0] imask${e}; reg [{}:0] iclass${e};",
                p - 1,
                CLASS_BITS - 1
            ));
        }
        line("always @(*) begin".into());
        for e in 0..es.entries.len() {
            line(format!(
                "    imask${e} = {p}'h0; iclass${e} = {CLASS_BITS}'d0;"
            ));
        }
        line("    case (node_id)".into());
        for (id, entries) in &es.by_node {
            let sets: Vec<String> = entries
                .iter()
                .enumerate()
                .map(|(e, x)| {
                    format!(
                        "imask${e} = {p}'h{:x}; iclass${e} = {CLASS_BITS}'d{};",
                        x.mask, x.class
                    )
                })
                .collect();
            line(format!("        {W}'h{id:x}: begin {} end", sets.join(" ")));
        }
        line("        default: ;".into());
        line("    endcase".into());
        line("end".into());
    }
}
