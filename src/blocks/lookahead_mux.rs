//! Look-ahead mux (LAPSES §3.2, Figure 4b): from the path-selection
//! outcome, picks the next-hop routing information that was looked up
//! concurrently with arbitration and builds the new header flit.
//!
//! LAPSES §3.2: the table lookup at router R yields, for every candidate
//! port a, b of R, the ports the message may take at the next router (a1,
//! a2 or b1, b2); once path selection has chosen a port, the information
//! for the other ports is discarded and the rest goes into the new header
//! flit. The mux is off the arbitration critical path: the new header is
//! built while the old one crosses the crossbar.
//!
//! Header: the low P bits of the W-bit head flit are the look-ahead field,
//! the candidate-output mask for the router that receives it; the other
//! W - P bits (destination and the rest) pass unchanged.
//!
//! Ports (combinational, no clock; j < F candidates, o < P outputs):
//! - `in_hdr` (W bits): the current head flit;
//! - `next_mask_m`, m = j * P + o: at the next router along candidate j,
//!   output o is permitted (the concurrent table lookup);
//! - `sel_j`: the path-selection outcome, one-hot (lowest j wins if not);
//! - `out_hdr` (W bits): `in_hdr` with its look-ahead field replaced by the
//!   selected candidate's mask (cleared when nothing is selected);
//! - `out_valid`: a candidate is selected.

use rust_hdl::prelude::*;

use super::cosim::{each, InputSignal};
use super::{signals, HwBlock};

/// The look-ahead mux of P outputs and F candidates (module
/// documentation; LAPSES §3.2).
#[derive(LogicBlock)]
pub struct LookaheadMux<const W: usize> {
    /// The current head flit (W bits).
    pub in_hdr: Signal<In, Bits<W>>,
    /// `next_mask[j * P + o]`: at the next router along candidate j,
    /// output o is permitted.
    pub next_mask: Vec<Signal<In, Bit>>,
    /// `sel[j]`: path selection chose candidate j (one-hot; the lowest wins).
    pub sel: Vec<Signal<In, Bit>>,
    /// `in_hdr` with its look-ahead field (low P bits) replaced by the
    /// selected candidate's mask.
    pub out_hdr: Signal<Out, Bits<W>>,
    /// A candidate is selected.
    pub out_valid: Signal<Out, Bit>,
    field: Signal<Local, Bits<W>>,
    bit: Vec<Constant<Bits<W>>>,
    keep: Constant<Bits<W>>,
    zero: Constant<Bits<W>>,
    _p: usize,
    _p1: usize,
    _f: usize,
}

impl<const W: usize> LookaheadMux<W> {
    /// `ports` outputs (1 to W: the look-ahead field must fit the flit) and
    /// `freedom` candidates (at least 1).
    pub fn new(ports: usize, freedom: usize) -> crate::Result<Self> {
        let name = "look-ahead mux";
        super::check_width::<W>(name)?;
        super::check_size(
            name,
            "port count P",
            ports,
            (1, W),
            "the look-ahead field holds one bit per output in the W-bit head flit",
        )?;
        super::check_size(name, "routing freedom F", freedom, (1, usize::MAX), "")?;
        Ok(Self::new_unchecked(ports, freedom))
    }

    /// [`LookaheadMux::new`] for callers whose sizes are validated (out of
    /// range sizes are clamped).
    pub(crate) fn new_unchecked(ports: usize, freedom: usize) -> Self {
        let p = ports.clamp(1, W);
        let f = freedom.max(1);
        let low = if p >= 64 { u64::MAX } else { (1u64 << p) - 1 };
        let all = if W >= 64 { u64::MAX } else { (1u64 << W) - 1 };
        LookaheadMux {
            in_hdr: Signal::default(),
            next_mask: signals(f * p),
            sel: signals(f),
            out_hdr: Signal::default(),
            out_valid: Signal::default(),
            field: Signal::default(),
            bit: (0..p)
                .map(|o| Constant::new(Bits::<W>::from(1u64 << o)))
                .collect(),
            keep: Constant::new(Bits::<W>::from(all & !low)),
            zero: Constant::new(Bits::<W>::default()),
            _p: p,
            _p1: p + 1,
            _f: f,
        }
    }
}

impl<const W: usize> Logic for LookaheadMux<W> {
    #[hdl_gen]
    fn update(&mut self) {
        self.field.next = self.zero.val();
        self.out_valid.next = false;
        for pw in self._p..self._p1 {
            for j in 0..self._f {
                if self.sel[j].val() & !self.out_valid.val() {
                    self.out_valid.next = true;
                    for o in 0..self._p {
                        if self.next_mask[j * pw + o].val() {
                            self.field.next = self.field.val() | self.bit[o].val();
                        }
                    }
                }
            }
        }
        self.out_hdr.next = (self.in_hdr.val() & self.keep.val()) | self.field.val();
    }
}

impl<const W: usize> HwBlock for LookaheadMux<W> {
    fn clock_mut(&mut self) -> Option<&mut Signal<In, Clock>> {
        None
    }
    fn visit_inputs(&mut self, f: &mut dyn FnMut(&mut dyn InputSignal)) {
        f(&mut self.in_hdr);
        each(&mut self.next_mask, f);
        each(&mut self.sel, f);
    }
    fn bias(&self, name: &str) -> Option<f64> {
        name.starts_with("sel").then_some(0.3)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::blocks::cosim::{random_stimulus, run_model};
    use crate::blocks::tool_checks::all_checks;
    use crate::blocks::{prepare, BlockKind, BlockParams};

    #[test]
    fn builds_the_new_header_from_the_selected_lookup() {
        for (p, f) in [(5, 2), (3, 3), (7, 1), (16, 4)] {
            let mut x = LookaheadMux::<16>::new(p, f).unwrap();
            prepare(&mut x);
            let stim = random_stimulus(&x, "clock", 2000, (p * 10 + f) as u64);
            let got = run_model(&mut x, &stim);
            for (c, r) in stim.iter().enumerate() {
                let hdr = r[0];
                let masks = &r[1..1 + f * p];
                let sel = &r[1 + f * p..];
                // Reference: Figure 4b's mux, written here with integers.
                let low = (1u64 << p) - 1;
                let want = match sel.iter().position(|&s| s == 1) {
                    Some(j) => {
                        let m: u64 = (0..p).map(|o| masks[j * p + o] << o).sum();
                        vec![(hdr & !low & 0xffff) | m, 1]
                    }
                    None => vec![hdr & !low & 0xffff, 0],
                };
                assert_eq!(got[c], want, "P={p} F={f} cycle {c}");
            }
        }
    }

    #[test]
    fn the_unused_ports_information_is_discarded() {
        // LAPSES Figure 4: at R, port a leads to A (a1, a2), port b to B
        // (b1, b2). Choosing b keeps b1, b2 only.
        let (p, f) = (5, 2);
        let mut x = LookaheadMux::<16>::new(p, f).unwrap();
        prepare(&mut x);
        let a = [0, 1, 0, 1, 0]; // a1 = +x, a2 = +y
        let b = [0, 0, 1, 0, 1]; // b1 = -x, b2 = -y
        let mut r = vec![0xab00 | 0x1f];
        r.extend(a);
        r.extend(b);
        r.extend([0, 1]);
        let out = run_model(&mut x, &[r]);
        assert_eq!(out[0], vec![0xab00 | 0b10100, 1]);
    }

    #[test]
    fn verilog_passes_the_tools_and_cosimulates() {
        let sets: Vec<BlockParams> = [(5, 2, 16), (3, 1, 8), (9, 4, 64)]
            .iter()
            .map(|&(p, f, w)| BlockParams {
                ports: p,
                freedom: f,
                flit_width: w,
                ..BlockParams::default()
            })
            .collect();
        // The mutant lets a later selection override an earlier one.
        all_checks(
            BlockKind::LookaheadMux,
            &sets,
            2000,
            ("if (sel_1 & ~out_valid)", "if (sel_1)"),
        );
    }
}
