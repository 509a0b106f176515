//! Address decoder: from the head flit's address, the candidate outputs the
//! routing algorithm allows and, in parallel, every candidate's updated
//! header.
//!
//! Chien §3-4 (Figure 1): one address decoder per input reads the header,
//! determines the outputs the routing relation permits and computes the
//! header for each; Figure 2: constant delay; Figure 4: constant cost.
//!
//! Header: dimension d's field is bits [4d, 4d + 4) of the W-bit head flit
//! (so n <= W / 4):
//! - relative addressing: a signed offset (-8 to 7) still to travel;
//!   moving + along d decrements it, moving - increments it;
//! - absolute addressing: the destination coordinate (0 to 15), compared
//!   with the node-id register; the header is passed on unchanged.
//!
//! Ports follow the mesh/torus convention P = 2n + 1: port 0 delivers to
//! the local node, port 2d + 1 goes + along dimension d, port 2d + 2 goes -.
//!
//! The routing algorithm arrives as data: a table of 3^n candidate-output
//! masks indexed by the sign vector of the remaining offsets, entry
//! sum_d s_d 3^d with s_d = 0 (zero), 1 (+), 2 (-); bit o of a mask allows
//! output o.
//!
//! Ports:
//! - `cfg_we`, `cfg_node` (W bits): write the node-id register (absolute
//!   addressing; fields as in the header); synchronous reset clears it;
//! - `in_data` (W bits), `in_valid`, `in_head`: the incoming flit;
//! - `cand$o`: output o is a candidate (only for a valid head flit);
//! - `hdr$o` (W bits): the header to forward if output o is chosen.

use rust_hdl::prelude::*;

use super::cosim::InputSignal;
use super::{signals, HwBlock};
use crate::spec::Addressing;

/// Bits of one dimension's address field.
pub const FIELD_BITS: usize = 4;

/// Largest number of dimensions (3^4 = 81 table entries).
pub const MAX_DIMS: usize = 4;

/// The sign of one dimension's remaining offset.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sign {
    Zero,
    Plus,
    Minus,
}

/// The table entry of a sign vector: sum_d s_d 3^d (Zero 0, Plus 1, Minus 2).
pub fn sign_index(signs: &[Sign]) -> usize {
    signs.iter().rev().fold(0, |acc, s| {
        acc * 3
            + match s {
                Sign::Zero => 0,
                Sign::Plus => 1,
                Sign::Minus => 2,
            }
    })
}

/// The sign vector of table entry `e` for `n` dimensions.
pub fn signs_of(mut e: usize, n: usize) -> Vec<Sign> {
    (0..n)
        .map(|_| {
            let s = match e % 3 {
                0 => Sign::Zero,
                1 => Sign::Plus,
                _ => Sign::Minus,
            };
            e /= 3;
            s
        })
        .collect()
}

/// Dimension-order routing as a table (the default the CLI emits): the
/// lowest dimension with a nonzero offset, in its direction; local when
/// every offset is zero.
pub fn dimension_order_table(n: usize) -> Vec<u32> {
    (0..3usize.pow(n as u32))
        .map(|e| {
            let signs = signs_of(e, n);
            match signs.iter().position(|&s| s != Sign::Zero) {
                None => 1,
                Some(d) if signs[d] == Sign::Plus => 1 << (2 * d + 1),
                Some(d) => 1 << (2 * d + 2),
            }
        })
        .collect()
}

#[derive(LogicBlock)]
pub struct AddressDecoder<const W: usize> {
    pub clock: Signal<In, Clock>,
    pub rst: Signal<In, Bit>,
    pub cfg_we: Signal<In, Bit>,
    pub cfg_node: Signal<In, Bits<W>>,
    pub in_data: Signal<In, Bits<W>>,
    pub in_valid: Signal<In, Bit>,
    pub in_head: Signal<In, Bit>,
    pub cand: Vec<Signal<Out, Bit>>,
    pub hdr: Vec<Signal<Out, Bits<W>>>,
    node: DFF<Bits<W>>,
    neg: Vec<Signal<Local, Bit>>,
    pos: Vec<Signal<Local, Bit>>,
    hit: Vec<Signal<Local, Bit>>,
    /// Per dimension: the field mask, its sign bit and its unit (1 << 4d).
    mask: Vec<Constant<Bits<W>>>,
    sign_bit: Vec<Constant<Bits<W>>>,
    unit: Vec<Constant<Bits<W>>>,
    /// Per entry and dimension: the entry's expected sign.
    e_neg: Vec<Constant<Bit>>,
    e_pos: Vec<Constant<Bit>>,
    /// Per entry and output: the routing table.
    table: Vec<Constant<Bit>>,
    absolute: Constant<Bit>,
    zero: Constant<Bits<W>>,
    _n: usize,
    _n1: usize,
    _p: usize,
    _p1: usize,
    _e: usize,
}

impl<const W: usize> AddressDecoder<W> {
    /// A decoder for `dims` dimensions (1 to min(4, W / 4)) with the given
    /// addressing and routing `table` (3^n masks over 2n + 1 outputs;
    /// missing entries allow nothing).
    pub fn new(dims: usize, addressing: Addressing, table: &[u32]) -> Self {
        Self::with_field_bits(dims, FIELD_BITS, addressing, table)
    }

    /// As [`AddressDecoder::new`] with `field` bits per dimension's address
    /// field (2 to 8; fields at bits [d * field, d * field + field)), as a
    /// router's head flit lays them out (docs/interface.md).
    pub fn with_field_bits(
        dims: usize,
        field: usize,
        addressing: Addressing,
        table: &[u32],
    ) -> Self {
        let field = field.clamp(2, 8);
        let n = dims.clamp(1, MAX_DIMS.min(W / field));
        let p = 2 * n + 1;
        let entries = 3usize.pow(n as u32);
        let word = |v: u64| Constant::new(Bits::<W>::from(v));
        let field_mask = (1u64 << field) - 1;
        let mut e_neg = Vec::new();
        let mut e_pos = Vec::new();
        let mut tab = Vec::new();
        for e in 0..entries {
            for s in signs_of(e, n) {
                e_neg.push(Constant::new(s == Sign::Minus));
                e_pos.push(Constant::new(s == Sign::Plus));
            }
            let m = table.get(e).copied().unwrap_or(0);
            for o in 0..p {
                tab.push(Constant::new((m >> o) & 1 == 1));
            }
        }
        AddressDecoder {
            clock: Signal::default(),
            rst: Signal::default(),
            cfg_we: Signal::default(),
            cfg_node: Signal::default(),
            in_data: Signal::default(),
            in_valid: Signal::default(),
            in_head: Signal::default(),
            cand: signals(p),
            hdr: signals(p),
            node: DFF::default(),
            neg: signals(n),
            pos: signals(n),
            hit: signals(entries),
            mask: (0..n).map(|d| word(field_mask << (field * d))).collect(),
            sign_bit: (0..n).map(|d| word(1 << (field * d + field - 1))).collect(),
            unit: (0..n).map(|d| word(1 << (field * d))).collect(),
            e_neg,
            e_pos,
            table: tab,
            absolute: Constant::new(addressing == Addressing::Absolute),
            zero: word(0),
            _n: n,
            _n1: n + 1,
            _p: p,
            _p1: p + 1,
            _e: entries,
        }
    }

    pub fn dims(&self) -> usize {
        self._n
    }
}

impl<const W: usize> Logic for AddressDecoder<W> {
    #[hdl_gen]
    fn update(&mut self) {
        self.node.clock.next = self.clock.val();
        self.node.d.next = self.node.q.val();
        if self.cfg_we.val() {
            self.node.d.next = self.cfg_node.val();
        }
        if self.rst.val() {
            self.node.d.next = self.zero.val();
        }
        // Sign vector: relative offsets' signs, or destination against the
        // node id, one comparator pair per dimension (LAPSES §5.2).
        for d in 0..self._n {
            if self.absolute.val() {
                self.neg[d].next = (self.in_data.val() & self.mask[d].val())
                    < (self.node.q.val() & self.mask[d].val());
                self.pos[d].next = (self.in_data.val() & self.mask[d].val())
                    > (self.node.q.val() & self.mask[d].val());
            } else {
                self.neg[d].next = (self.in_data.val() & self.sign_bit[d].val()) != self.zero.val();
                self.pos[d].next = !self.neg[d].val()
                    & ((self.in_data.val() & self.mask[d].val()) != self.zero.val());
            }
        }
        // Table lookup: which entry matches, then its output mask.
        for nw in self._n..self._n1 {
            for e in 0..self._e {
                self.hit[e].next = true;
                for d in 0..self._n {
                    if (self.neg[d].val() != self.e_neg[e * nw + d].val())
                        | (self.pos[d].val() != self.e_pos[e * nw + d].val())
                    {
                        self.hit[e].next = false;
                    }
                }
            }
        }
        for pw in self._p..self._p1 {
            for o in 0..self._p {
                self.cand[o].next = false;
                for e in 0..self._e {
                    if self.hit[e].val()
                        & self.table[e * pw + o].val()
                        & self.in_valid.val()
                        & self.in_head.val()
                    {
                        self.cand[o].next = true;
                    }
                }
            }
        }
        // Updated headers, all computed in parallel (Chien §3).
        self.hdr[0].next = self.in_data.val();
        for d in 0..self._n {
            if self.absolute.val() {
                self.hdr[2 * d + 1].next = self.in_data.val();
                self.hdr[2 * d + 2].next = self.in_data.val();
            } else {
                self.hdr[2 * d + 1].next = (self.in_data.val() & !self.mask[d].val())
                    | ((self.in_data.val() - self.unit[d].val()) & self.mask[d].val());
                self.hdr[2 * d + 2].next = (self.in_data.val() & !self.mask[d].val())
                    | ((self.in_data.val() + self.unit[d].val()) & self.mask[d].val());
            }
        }
    }
}

impl<const W: usize> HwBlock for AddressDecoder<W> {
    fn clock_mut(&mut self) -> Option<&mut Signal<In, Clock>> {
        Some(&mut self.clock)
    }
    fn visit_inputs(&mut self, f: &mut dyn FnMut(&mut dyn InputSignal)) {
        f(&mut self.rst);
        f(&mut self.cfg_we);
        f(&mut self.cfg_node);
        f(&mut self.in_data);
        f(&mut self.in_valid);
        f(&mut self.in_head);
    }
    fn bias(&self, name: &str) -> Option<f64> {
        match name {
            "cfg_we" => Some(0.05),
            "in_valid" | "in_head" => Some(0.8),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::blocks::cosim::{random_stimulus, run_model};
    use crate::blocks::tool_checks::all_checks;
    use crate::blocks::{prepare, BlockKind, BlockParams};

    /// Minimal adaptive routing, written independently of the block: every
    /// productive direction (+ on dimension d is output 2d + 1, - is
    /// 2d + 2); the local port when there is none. Indexed like the block's
    /// table: entry sum_d s_d 3^d, s = 0 zero, 1 plus, 2 minus.
    fn minimal_adaptive(n: usize) -> Vec<u32> {
        let mut t = Vec::new();
        for e in 0..3u32.pow(n as u32) {
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
            t.push(if m == 0 { 1 } else { m });
        }
        t
    }

    /// Reference decoder: returns cand (P) then hdr (P), as the ports are
    /// declared, for the inputs of one cycle; `node` is the node register.
    #[allow(clippy::too_many_arguments)]
    fn reference(
        n: usize,
        absolute: bool,
        table: &[u32],
        node: u64,
        data: u64,
        valid: bool,
        head: bool,
        w: usize,
    ) -> Vec<u64> {
        let p = 2 * n + 1;
        let field = |x: u64, d: usize| (x >> (4 * d)) & 0xf;
        let mut e = 0;
        for d in (0..n).rev() {
            let f = field(data, d);
            let s = if absolute {
                let me = field(node, d);
                if f > me {
                    1
                } else if f < me {
                    2
                } else {
                    0
                }
            } else {
                let signed = if f >= 8 { f as i64 - 16 } else { f as i64 };
                if signed > 0 {
                    1
                } else if signed < 0 {
                    2
                } else {
                    0
                }
            };
            e = e * 3 + s;
        }
        let mask = table[e as usize];
        let cand: Vec<u64> = (0..p)
            .map(|o| u64::from(valid && head && (mask >> o) & 1 == 1))
            .collect();
        let wmask = if w == 64 { u64::MAX } else { (1u64 << w) - 1 };
        let mut hdr = vec![data; p];
        if !absolute {
            for d in 0..n {
                let f = field(data, d);
                let clear = data & !(0xf << (4 * d));
                hdr[2 * d + 1] = (clear | (((f + 15) & 0xf) << (4 * d))) & wmask;
                hdr[2 * d + 2] = (clear | (((f + 1) & 0xf) << (4 * d))) & wmask;
            }
        }
        [cand, hdr].concat()
    }

    fn check_random(n: usize, absolute: bool, table: &[u32], seed: u64) {
        let addressing = if absolute {
            Addressing::Absolute
        } else {
            Addressing::Relative
        };
        let mut x = AddressDecoder::<16>::new(n, addressing, table);
        prepare(&mut x);
        let stim = random_stimulus(&x, "clock", 2000, seed);
        let got = run_model(&mut x, &stim);
        let mut node = 0;
        let mut seen = std::collections::BTreeSet::new();
        for (c, r) in stim.iter().enumerate() {
            // rst, cfg_we, cfg_node, in_data, in_valid, in_head
            let want = reference(n, absolute, table, node, r[3], r[4] == 1, r[5] == 1, 16);
            assert_eq!(got[c], want, "n={n} absolute={absolute} cycle {c}");
            seen.insert(want[..2 * n + 1].to_vec());
            if r[1] == 1 {
                node = r[2];
            }
            if r[0] == 1 {
                node = 0;
            }
        }
        // Every direction of the first dimension, and more.
        assert!(
            seen.len() > 3,
            "the stimulus should reach many candidate sets: {seen:?}"
        );
    }

    #[test]
    fn dimension_order_and_adaptive_tables_with_both_addressings() {
        for n in [1, 2, 3] {
            // Dimension order, written here: the lowest nonzero dimension.
            let mut xy = Vec::new();
            for e in 0..3u32.pow(n as u32) {
                let mut out = 1;
                let mut rest = e;
                for d in 0..n {
                    if rest % 3 != 0 {
                        out = 1 << (2 * d + if rest % 3 == 1 { 1 } else { 2 });
                        break;
                    }
                    rest /= 3;
                }
                xy.push(out);
            }
            assert_eq!(dimension_order_table(n), xy, "the CLI's default table");
            for absolute in [false, true] {
                check_random(n, absolute, &xy, n as u64);
                check_random(n, absolute, &minimal_adaptive(n), 10 + n as u64);
            }
        }
    }

    #[test]
    fn offsets_at_the_edges_of_the_field() {
        let mut x = AddressDecoder::<8>::new(2, Addressing::Relative, &dimension_order_table(2));
        prepare(&mut x);
        // dx = -8 (0x8), dy = 7: go -x, and the offset becomes -7.
        // dx = 0, dy = 0: deliver locally.
        let stim = vec![
            vec![1, 0, 0, 0x78, 1, 1],
            vec![0, 0, 0, 0x00, 1, 1],
            vec![0, 0, 0, 0x01, 1, 0],
        ];
        let out = run_model(&mut x, &stim);
        assert_eq!(&out[0][..5], &[0, 0, 1, 0, 0]);
        assert_eq!(out[0][5 + 2], 0x79, "-x move: dx -8 -> -7");
        assert_eq!(&out[1][..5], &[1, 0, 0, 0, 0]);
        assert_eq!(
            &out[2][..5],
            &[0, 0, 0, 0, 0],
            "body flits carry no address"
        );
    }

    #[test]
    fn verilog_passes_the_tools_and_cosimulates() {
        let sets: Vec<BlockParams> = [
            (2, 16, Addressing::Relative),
            (1, 8, Addressing::Absolute),
            (3, 32, Addressing::Absolute),
        ]
        .iter()
        .map(|&(n, w, addressing)| BlockParams {
            dims: n,
            flit_width: w,
            addressing,
            ..BlockParams::default()
        })
        .collect();
        // The mutant breaks the table lookup of the first entry.
        all_checks(
            BlockKind::AddressDecoder,
            &sets,
            2000,
            ("hit$0 = 1'b1", "hit$0 = 1'b0"),
        );
    }
}
