//! Economical-storage routing table (LAPSES §5.2): 3^n entries indexed by
//! the sign vector of (destination - node id), each a set of permitted
//! output ports and a VC class.
//!
//! LAPSES §5.2.1: "the actual hardware requirements apart from the routing
//! table are a node-id register on the router and two comparators" per
//! dimension to find the signs, sx = sign(dx - ix); the 3^n entries replace
//! a k^n-entry full table.
//!
//! Head flit and node id: dimension d's coordinate is bits [4d, 4d + 4)
//! (as for the [`AddressDecoder`](super::AddressDecoder) with absolute
//! addressing). Entry index: sum_d s_d 3^d with s_d = 0 (equal), 1 (+,
//! destination above), 2 (-). Output ports: 2n + 1 as for the address
//! decoder (0 local, 2d + 1 = +d, 2d + 2 = -d).
//!
//! Ports:
//! - `cfg_node_we`, `cfg_node` (W bits): write the node-id register;
//! - `cfg_we`, `cfg_addr` (7 bits), `cfg_mask_o`, `cfg_class` (2 bits):
//!   write entry `cfg_addr` (addresses past 3^n are ignored);
//! - `in_data` (W bits), `in_valid`, `in_head`: the incoming flit;
//! - `cand_o`, `vc_class` (2 bits): the entry for the head flit's
//!   destination (all zero unless a valid head flit is present).
//!
//! Synchronous reset `rst` clears the node id and reloads every entry with
//! the contents given at construction (computed from the routing
//! algorithm).

use rust_hdl::prelude::*;

use super::address_decoder::{signs_of, Sign, FIELD_BITS};
use super::cosim::{each, InputSignal};
use super::{signals, HwBlock};
use crate::limits::MAX_ECONOMICAL_DIMS;

/// Bits of an entry address (3^4 = 81 entries).
pub const ADDR_BITS: usize = 7;
/// Bits of a VC class.
pub const CLASS_BITS: usize = 2;

type Addr = Bits<ADDR_BITS>;
type Class = Bits<CLASS_BITS>;

/// One table entry: permitted outputs (bit o = output o) and VC class.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Entry {
    /// Permitted outputs: bit o is output o (0 local, 2d + 1 = +d, 2d + 2 = -d).
    pub mask: u32,
    /// VC class (2 bits).
    pub class: u8,
}

/// The economical-storage routing table of 3^n entries for an
/// n-dimensional mesh (module documentation; LAPSES §5.2).
#[derive(LogicBlock)]
pub struct EconomicalStorageTable<const W: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high.
    pub rst: Signal<In, Bit>,
    /// Write `cfg_node` into the node-id register.
    pub cfg_node_we: Signal<In, Bit>,
    /// The router's node id (W bits, 4 bits per coordinate).
    pub cfg_node: Signal<In, Bits<W>>,
    /// Write entry `cfg_addr`.
    pub cfg_we: Signal<In, Bit>,
    /// The entry written (addresses past 3^n are ignored).
    pub cfg_addr: Signal<In, Addr>,
    /// `cfg_mask[o]`: the written entry permits output o.
    pub cfg_mask: Vec<Signal<In, Bit>>,
    /// The written entry's VC class.
    pub cfg_class: Signal<In, Class>,
    /// The incoming flit (W bits).
    pub in_data: Signal<In, Bits<W>>,
    /// A flit arrives.
    pub in_valid: Signal<In, Bit>,
    /// It is a head flit.
    pub in_head: Signal<In, Bit>,
    /// `cand[o]`: the head flit's entry permits output o.
    pub cand: Vec<Signal<Out, Bit>>,
    /// The head flit's entry's VC class.
    pub vc_class: Signal<Out, Class>,
    node: DFF<Bits<W>>,
    mask: Vec<DFF<Bit>>,
    class: Vec<DFF<Class>>,
    neg: Vec<Signal<Local, Bit>>,
    pos: Vec<Signal<Local, Bit>>,
    hit: Vec<Signal<Local, Bit>>,
    look: Signal<Local, Bit>,
    field: Vec<Constant<Bits<W>>>,
    e_neg: Vec<Constant<Bit>>,
    e_pos: Vec<Constant<Bit>>,
    e_addr: Vec<Constant<Addr>>,
    init_mask: Vec<Constant<Bit>>,
    init_class: Vec<Constant<Class>>,
    zero: Constant<Bits<W>>,
    class_zero: Constant<Class>,
    _n: usize,
    _n1: usize,
    _p: usize,
    _p1: usize,
    _e: usize,
    _ep: usize,
}

impl<const W: usize> EconomicalStorageTable<W> {
    /// A table for `dims` dimensions (1 to min(4, W / 4)) whose entries
    /// reset to `init` (at most 3^n entries; missing ones permit nothing;
    /// each mask over the 2n + 1 outputs, each class below 4).
    pub fn new(dims: usize, init: &[Entry]) -> crate::Result<Self> {
        use super::check_size;
        let name = "economical-storage table";
        super::check_width::<W>(name)?;
        check_size(
            name,
            "dimension count n",
            dims,
            (1, (MAX_ECONOMICAL_DIMS as usize).min(W / FIELD_BITS)),
            &format!(
                "a coordinate is {FIELD_BITS} bits of the {W}-bit head flit, and the \
                 table's {ADDR_BITS}-bit entry address reaches 3^{MAX_ECONOMICAL_DIMS} entries"
            ),
        )?;
        let entries = 3usize.pow(dims as u32);
        check_size(
            name,
            "initial entry count",
            init.len(),
            (0, entries),
            "one entry per sign vector, 3^n",
        )?;
        let outputs = 2 * dims + 1;
        for (e, entry) in init.iter().enumerate() {
            if entry.mask >> outputs != 0 {
                return Err(crate::Error::invalid(format!(
                    "economical-storage table entry {e} permits outputs {:#b}, but a \
                     {dims}-dimensional router has only {outputs} outputs",
                    entry.mask
                )));
            }
            check_size(
                name,
                &format!("VC class of entry {e}"),
                usize::from(entry.class),
                (0, (1 << CLASS_BITS) - 1),
                "a class is CLASS_BITS = 2 bits wide",
            )?;
        }
        Ok(Self::new_unchecked(dims, init))
    }

    /// [`EconomicalStorageTable::new`] for callers whose sizes are
    /// validated (out of range sizes are clamped).
    pub(crate) fn new_unchecked(dims: usize, init: &[Entry]) -> Self {
        let n = dims.clamp(1, (MAX_ECONOMICAL_DIMS as usize).min(W / FIELD_BITS));
        let p = 2 * n + 1;
        let entries = 3usize.pow(n as u32);
        let mut e_neg = Vec::new();
        let mut e_pos = Vec::new();
        let mut init_mask = Vec::new();
        for e in 0..entries {
            for s in signs_of(e, n) {
                e_neg.push(Constant::new(s == Sign::Minus));
                e_pos.push(Constant::new(s == Sign::Plus));
            }
            let m = init.get(e).copied().unwrap_or_default().mask;
            for o in 0..p {
                init_mask.push(Constant::new((m >> o) & 1 == 1));
            }
        }
        let field_mask = (1u64 << FIELD_BITS) - 1;
        EconomicalStorageTable {
            clock: Signal::default(),
            rst: Signal::default(),
            cfg_node_we: Signal::default(),
            cfg_node: Signal::default(),
            cfg_we: Signal::default(),
            cfg_addr: Signal::default(),
            cfg_mask: signals(p),
            cfg_class: Signal::default(),
            in_data: Signal::default(),
            in_valid: Signal::default(),
            in_head: Signal::default(),
            cand: signals(p),
            vc_class: Signal::default(),
            node: DFF::default(),
            mask: (0..entries * p).map(|_| DFF::default()).collect(),
            class: (0..entries).map(|_| DFF::default()).collect(),
            neg: signals(n),
            pos: signals(n),
            hit: signals(entries),
            look: Signal::default(),
            field: (0..n)
                .map(|d| Constant::new(Bits::<W>::from(field_mask << (FIELD_BITS * d))))
                .collect(),
            e_neg,
            e_pos,
            e_addr: (0..entries)
                .map(|e| Constant::new(Addr::from(e as u64)))
                .collect(),
            init_mask,
            init_class: (0..entries)
                .map(|e| {
                    let c = init.get(e).copied().unwrap_or_default().class;
                    Constant::new(Class::from(u64::from(c) & 3))
                })
                .collect(),
            zero: Constant::new(Bits::<W>::default()),
            class_zero: Constant::new(Class::default()),
            _n: n,
            _n1: n + 1,
            _p: p,
            _p1: p + 1,
            _e: entries,
            _ep: entries * p,
        }
    }
}

impl<const W: usize> Logic for EconomicalStorageTable<W> {
    #[hdl_gen]
    fn update(&mut self) {
        self.node.clock.next = self.clock.val();
        self.node.d.next = self.node.q.val();
        if self.cfg_node_we.val() {
            self.node.d.next = self.cfg_node.val();
        }
        for k in 0..self._ep {
            self.mask[k].clock.next = self.clock.val();
            self.mask[k].d.next = self.mask[k].q.val();
        }
        for e in 0..self._e {
            self.class[e].clock.next = self.clock.val();
            self.class[e].d.next = self.class[e].q.val();
        }
        // LAPSES §5.2.1: a comparator pair per dimension, sx = sign(dx - ix).
        for d in 0..self._n {
            self.neg[d].next = (self.in_data.val() & self.field[d].val())
                < (self.node.q.val() & self.field[d].val());
            self.pos[d].next = (self.in_data.val() & self.field[d].val())
                > (self.node.q.val() & self.field[d].val());
        }
        self.look.next = self.in_valid.val() & self.in_head.val();
        self.vc_class.next = self.class_zero.val();
        for nw in self._n..self._n1 {
            for e in 0..self._e {
                self.hit[e].next = self.look.val();
                for d in 0..self._n {
                    if (self.neg[d].val() != self.e_neg[e * nw + d].val())
                        | (self.pos[d].val() != self.e_pos[e * nw + d].val())
                    {
                        self.hit[e].next = false;
                    }
                }
                if self.hit[e].val() {
                    self.vc_class.next = self.class[e].q.val();
                }
            }
        }
        for pw in self._p..self._p1 {
            for o in 0..self._p {
                self.cand[o].next = false;
                for e in 0..self._e {
                    if self.hit[e].val() & self.mask[e * pw + o].q.val() {
                        self.cand[o].next = true;
                    }
                }
            }
            // Configuration port: write one entry.
            for e in 0..self._e {
                if self.cfg_we.val() & (self.cfg_addr.val() == self.e_addr[e].val()) {
                    self.class[e].d.next = self.cfg_class.val();
                    for o in 0..self._p {
                        self.mask[e * pw + o].d.next = self.cfg_mask[o].val();
                    }
                }
                if self.rst.val() {
                    self.class[e].d.next = self.init_class[e].val();
                    for o in 0..self._p {
                        self.mask[e * pw + o].d.next = self.init_mask[e * pw + o].val();
                    }
                }
            }
        }
        if self.rst.val() {
            self.node.d.next = self.zero.val();
        }
    }
}

impl<const W: usize> HwBlock for EconomicalStorageTable<W> {
    fn clock_mut(&mut self) -> Option<&mut Signal<In, Clock>> {
        Some(&mut self.clock)
    }
    fn visit_inputs(&mut self, f: &mut dyn FnMut(&mut dyn InputSignal)) {
        f(&mut self.rst);
        f(&mut self.cfg_node_we);
        f(&mut self.cfg_node);
        f(&mut self.cfg_we);
        f(&mut self.cfg_addr);
        each(&mut self.cfg_mask, f);
        f(&mut self.cfg_class);
        f(&mut self.in_data);
        f(&mut self.in_valid);
        f(&mut self.in_head);
    }
    fn bias(&self, name: &str) -> Option<f64> {
        match name {
            "cfg_we" | "cfg_node_we" => Some(0.05),
            "in_valid" | "in_head" => Some(0.8),
            _ => None,
        }
    }
    fn value_limit(&self, name: &str) -> Option<u64> {
        // Mostly real entries, sometimes an address past the table.
        (name == "cfg_addr").then_some(self._e as u64 + 2)
    }
}

/// Reset contents from a table of masks (VC class 0), e.g.
/// [`dimension_order_table`](super::address_decoder::dimension_order_table).
pub fn entries_from_masks(masks: &[u32]) -> Vec<Entry> {
    masks.iter().map(|&mask| Entry { mask, class: 0 }).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::blocks::cosim::{random_stimulus, run_model};
    use crate::blocks::tool_checks::all_checks;
    use crate::blocks::{prepare, BlockKind, BlockParams};

    /// West-first-like reset contents written here: any productive
    /// direction, VC class 1 when the destination is below in dimension 0.
    fn init(n: usize) -> Vec<Entry> {
        (0..3u32.pow(n as u32))
            .map(|e| {
                let mut m = 0;
                let mut rest = e;
                for d in 0..n {
                    match rest % 3 {
                        1 => m |= 1 << (2 * d + 1),
                        2 => m |= 1 << (2 * d + 2),
                        _ => {}
                    }
                    rest /= 3;
                }
                Entry {
                    mask: if m == 0 { 1 } else { m },
                    class: u8::from(e % 3 == 2),
                }
            })
            .collect()
    }

    /// Reference table: a Vec of entries, a node id, the same rules.
    #[test]
    fn matches_a_reference_table_with_programming_and_resets() {
        for n in [1, 2, 3] {
            let p = 2 * n + 1;
            let start = init(n);
            let mut x = EconomicalStorageTable::<16>::new(n, &start).unwrap();
            prepare(&mut x);
            let stim = random_stimulus(&x, "clock", 3000, 5 + n as u64);
            let got = run_model(&mut x, &stim);
            // Flip-flops start at zero; the first cycle's reset loads `start`.
            let mut table = vec![Entry::default(); start.len()];
            let mut node = 0u64;
            let mut programmed = 0;
            for (c, r) in stim.iter().enumerate() {
                // rst, cfg_node_we, cfg_node, cfg_we, cfg_addr, cfg_mask (P),
                // cfg_class, in_data, in_valid, in_head
                let (rst, node_we, cfg_node, we, addr) =
                    (r[0] == 1, r[1] == 1, r[2], r[3] == 1, r[4] as usize);
                let cfg_mask: u32 = (0..p).map(|o| (r[5 + o] as u32) << o).sum();
                let (cfg_class, data, valid, head) =
                    (r[5 + p], r[6 + p], r[7 + p] == 1, r[8 + p] == 1);
                let mut e = 0;
                for d in (0..n).rev() {
                    let (dst, me) = ((data >> (4 * d)) & 15, (node >> (4 * d)) & 15);
                    e = e * 3
                        + if dst > me {
                            1
                        } else if dst < me {
                            2
                        } else {
                            0
                        };
                }
                let mut want = vec![0u64; p + 1];
                if valid && head {
                    let entry = table[e];
                    for (o, w) in want.iter_mut().enumerate().take(p) {
                        *w = u64::from((entry.mask >> o) & 1);
                    }
                    want[p] = u64::from(entry.class);
                }
                assert_eq!(got[c], want, "n={n} cycle {c}");
                if node_we {
                    node = cfg_node;
                }
                if we && addr < table.len() {
                    table[addr] = Entry {
                        mask: cfg_mask,
                        class: cfg_class as u8,
                    };
                    programmed += 1;
                }
                if rst {
                    table = start.clone();
                    node = 0;
                }
            }
            assert!(programmed > 50, "the stimulus should program entries");
        }
    }

    #[test]
    fn node_id_register_and_nine_entries_route_a_2d_mesh() {
        // Node (2, 1); destinations around it select the 9 entries.
        let mut x = EconomicalStorageTable::<8>::new(2, &init(2)).unwrap();
        prepare(&mut x);
        let p = 5;
        let row = |node_we: u64, node: u64, dst: u64| {
            let mut r = vec![0u64, node_we, node, 0, 0];
            r.extend(vec![0; p]);
            r.extend([0, dst, 1, 1]);
            r
        };
        let mut stim = vec![row(1, 0x12, 0)];
        stim[0][0] = 1; // reset, then the node id is written next cycle
        stim.push(row(1, 0x12, 0));
        for dst in [0x12u64, 0x13, 0x11, 0x22, 0x02, 0x33] {
            stim.push(row(0, 0, dst));
        }
        let out = run_model(&mut x, &stim);
        let cands: Vec<Vec<u64>> = out[2..].iter().map(|o| o[..p].to_vec()).collect();
        assert_eq!(cands[0], vec![1, 0, 0, 0, 0], "at the destination: local");
        assert_eq!(cands[1], vec![0, 1, 0, 0, 0], "dx = +1: +x");
        assert_eq!(cands[2], vec![0, 0, 1, 0, 0], "dx = -1: -x");
        assert_eq!(cands[3], vec![0, 0, 0, 1, 0], "dy = +1: +y");
        assert_eq!(cands[4], vec![0, 0, 0, 0, 1], "dy = -1: -y");
        assert_eq!(cands[5], vec![0, 1, 0, 1, 0], "+x and +y both productive");
        assert_eq!(out[4][p], 1, "VC class of a - entry in dimension 0");
    }

    #[test]
    fn verilog_passes_the_tools_and_cosimulates() {
        let sets: Vec<BlockParams> = [(2, 16), (1, 8), (3, 32)]
            .iter()
            .map(|&(n, w)| BlockParams {
                dims: n,
                flit_width: w,
                ..BlockParams::default()
            })
            .collect();
        // The mutant ignores configuration writes of entry 4's class (+, +).
        all_checks(
            BlockKind::EconomicalStorageTable,
            &sets,
            3000,
            ("class_4_d = cfg_class", "class_4_d = class_4"),
        );
    }
}
